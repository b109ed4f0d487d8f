//! Casts in the sequence language (docs/language.md §4.1a): the interpreter against Rust's
//! `as` on every ordered pair of the seven cast types, the surface forms, don't-care, and
//! positioned type errors.

use tessera::seq::op::AtomOp;
use tessera::seq::types::ScalarType;
use tessera::seq::value::{format_value, scalar_to_int};
use tessera::seq::{interp, parse_program, Program, Value};
use tessera::util::diag::Pos;
use tessera::util::rng::Rng;

/// A source value as the Rust integer of its type (`bit` as a `bool`).
#[derive(Clone, Copy, Debug)]
enum Rs {
    Bit(bool),
    I8(i8),
    U8(u8),
    I16(i16),
    U16(u16),
    I32(i32),
    U32(u32),
}

fn to_rust(raw: u64, t: ScalarType) -> Rs {
    use ScalarType::*;
    match t {
        Bit => Rs::Bit(raw == 1),
        Int8 => Rs::I8(raw as u8 as i8),
        UInt8 => Rs::U8(raw as u8),
        Int16 => Rs::I16(raw as u16 as i16),
        UInt16 => Rs::U16(raw as u16),
        Int32 => Rs::I32(raw as u32 as i32),
        UInt32 => Rs::U32(raw as u32),
        FixP1_7 => unreachable!("not a cast type"),
    }
}

/// `v as T` in Rust, as `T`'s raw bits; `bit` is the lowest bit, a 1-bit unsigned type.
fn rust_cast(v: Rs, to: ScalarType) -> u64 {
    macro_rules! as_ {
        ($t:ty) => {
            match v {
                Rs::Bit(b) => b as $t,
                Rs::I8(x) => x as $t,
                Rs::U8(x) => x as $t,
                Rs::I16(x) => x as $t,
                Rs::U16(x) => x as $t,
                Rs::I32(x) => x as $t,
                Rs::U32(x) => x as $t,
            }
        };
    }
    use ScalarType::*;
    match to {
        Bit => u64::from(as_!(u8) & 1),
        Int8 => u64::from(as_!(i8) as u8),
        UInt8 => u64::from(as_!(u8)),
        Int16 => u64::from(as_!(i16) as u16),
        UInt16 => u64::from(as_!(u16)),
        Int32 => u64::from(as_!(i32) as u32),
        UInt32 => u64::from(as_!(u32)),
        FixP1_7 => unreachable!("not a cast type"),
    }
}

/// Raw values of `t` worth testing: 0, 1, 2, -1 (all ones), the maximum and minimum of
/// both readings (0x7f.., 0x80..), 0x80..01, alternating bits, then random ones.
fn values(t: ScalarType, rng: &mut Rng) -> Vec<u64> {
    let m = t.mask();
    let top = (m >> 1) + 1;
    let mut v = vec![
        0,
        1,
        2,
        m,
        m - 1,
        m >> 1,
        top,
        top + 1,
        0x5555_5555,
        0xaaaa_aaaa,
    ];
    v.extend((0..200).map(|_| rng.next_u64()));
    v.into_iter().map(|x| x & m).collect()
}

fn program(text: &str) -> Program {
    parse_program("c.seq", "c", text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn eval_list(p: &Program, xs: &[Value]) -> Vec<Value> {
    let out = interp::eval(p, &[Value::List(xs.to_vec())]).unwrap();
    match out {
        Value::List(v) => v,
        other => panic!("not a list: {other:?}"),
    }
}

#[test]
fn every_pair_of_types_agrees_with_rust_as() {
    let mut rng = Rng::new(17);
    for from in AtomOp::CAST_TARGETS {
        let raws = values(from, &mut rng);
        let xs: Vec<Value> = raws.iter().map(|r| Value::Scalar(*r)).collect();
        let n = xs.len();
        for to in AtomOp::CAST_TARGETS {
            // Both surface forms: the function form and the expression form.
            for body in [format!("(cast {to})"), format!("(fn (x) (cast {to} x))")] {
                let p = program(&format!(
                    "(input I (seq {n} {from}))\n(output (map {n} {body} I))"
                ));
                assert_eq!(p.output_type().to_string(), format!("(seq {n} {to})"));
                for (raw, got) in raws.iter().zip(eval_list(&p, &xs)) {
                    let want = rust_cast(to_rust(*raw, from), to);
                    assert_eq!(
                        got,
                        Value::Scalar(want),
                        "{from} {} -> {to}: want {}",
                        scalar_to_int(*raw, from),
                        scalar_to_int(want, to)
                    );
                }
            }
        }
    }
}

#[test]
fn documented_examples() {
    let val = |e: &str| {
        let p = program(&format!("(input U bit)\n(output {e})"));
        let out = interp::eval(&p, &[Value::Scalar(0)]).unwrap();
        format_value(&out, p.output_type())
    };
    assert_eq!(val("(cast int16 (const int8 -1))"), "-1");
    assert_eq!(val("(cast uint16 (const int8 -1))"), "65535");
    assert_eq!(val("(cast int16 (const uint8 255))"), "255");
    assert_eq!(val("(cast uint8 (const uint16 300))"), "44");
    assert_eq!(val("(cast int8 (const uint16 200))"), "-56");
    assert_eq!(val("(cast uint8 (const int8 -1))"), "255");
    assert_eq!(val("(cast bit (const uint8 3))"), "1");
    assert_eq!(val("(cast int32 (const bit 1))"), "1");
    assert_eq!(val("(cast uint32 (const int32 -2147483648))"), "2147483648");
    assert_eq!(val("(cast int32 (const uint32 4294967295))"), "-1");
    // The one-word form, case and separators ignored like every keyword.
    assert_eq!(val("(cast_uint16 (const int8 -1))"), "65535");
    assert_eq!(val("(Cast-UInt16 (const int8 -1))"), "65535");
    assert_eq!(val("(CAST Int16 (const int8 -2))"), "-2");
}

#[test]
fn sums_that_wrap_in_uint8_fit_in_uint16() {
    let p = program(
        "(input I (seq 4 uint8))
         (output (reduce 4 add (map 4 (cast uint16) I)))",
    );
    let out = interp::eval(&p, &[Value::List(vec![Value::Scalar(255); 4])]).unwrap();
    assert_eq!(format_value(&out, p.output_type()), "[1020]");
    let p8 = program("(input I (seq 4 uint8)) (output (reduce 4 add I))");
    let out = interp::eval(&p8, &[Value::List(vec![Value::Scalar(255); 4])]).unwrap();
    assert_eq!(format_value(&out, p8.output_type()), "[252]");
}

#[test]
fn dont_care_in_dont_care_out() {
    let p = program("(input I (seq 3 int8)) (output (map 3 (cast uint32) (shift 3 1 I)))");
    let xs = vec![Value::Scalar(0x80), Value::Undef, Value::Scalar(1)];
    let out = interp::eval(&p, &[Value::List(xs)]).unwrap();
    assert_eq!(format_value(&out, p.output_type()), "[_, 4294967168, _]");
}

/// The error of `text`, which must be positioned in `c.seq`.
fn error_at(text: &str) -> (Pos, String) {
    let e = match parse_program("c.seq", "c", text) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e,
    };
    assert_eq!(e.file, "c.seq");
    (
        e.pos.unwrap_or_else(|| panic!("no position: {e}")),
        e.message,
    )
}

fn fails_at(text: &str, line: u32, col: u32, words: &[&str]) {
    let (pos, msg) = error_at(text);
    assert_eq!(pos, Pos { line, col }, "{msg}\n{text}");
    for w in words {
        assert!(msg.contains(w), "`{w}` not in: {msg}");
    }
}

#[test]
fn type_errors_are_positioned() {
    let i4 = "(input I (seq 4 uint8))\n";
    // fixp1_7 as a target: at the type.
    fails_at(
        &format!("{i4}(output (map 4 (fn (x) (cast fixp1_7 x)) I))"),
        2,
        30,
        &["fixp1_7", "not a cast target"],
    );
    // fixp1_7 as a source: at the cast.
    fails_at(
        "(input I (seq 4 fixp1_7))\n(output (map 4 (cast uint16) I))",
        2,
        16,
        &["cast uint16", "found fixp1_7"],
    );
    // An atom tuple.
    fails_at(
        &format!("{i4}(output (map 4 (fn (x) (let ((pair (atuple x x))) (cast uint16 pair))) I))"),
        2,
        51,
        &["cast uint16", "found (atuple uint8 uint8)"],
    );
    // A sequence.
    fails_at(
        &format!("{i4}(output (cast uint16 I))"),
        2,
        9,
        &["found (seq 4 uint8)"],
    );
    // An unknown type, a missing type, a compound type.
    fails_at(
        &format!("{i4}(output (map 4 (fn (x) (cast foo x)) I))"),
        2,
        30,
        &["target type", "`foo`"],
    );
    fails_at(
        &format!("{i4}(output (map 4 (fn (x) (cast x)) I))"),
        2,
        30,
        &["target type", "`x`"],
    );
    fails_at(
        &format!("{i4}(output (map 4 (fn (x) (cast (seq 2 uint8) x)) I))"),
        2,
        30,
        &["target type"],
    );
    // The bare keyword needs its type; a cast with two inputs.
    fails_at(
        &format!("{i4}(output (map 4 cast I))"),
        2,
        16,
        &["needs its parameters"],
    );
    fails_at(
        &format!("{i4}(output (map 4 (fn (x) (cast uint16 x x)) I))"),
        2,
        24,
        &["takes 1"],
    );
    // A cast is a keyword, not a name.
    fails_at("(input cast uint8)\n(output cast)", 1, 8, &["keyword"]);
}

#[test]
fn broken_casts_never_panic() {
    let bodies = [
        "(cast)",
        "(cast uint8)",
        "(cast ())",
        "(cast 5 x)",
        "(cast _ x)",
        "(cast uint8 (cast))",
        "(cast_uint8)",
        "(cast_uint8 x x)",
        "(cast_fixp1_7 x)",
        "((cast uint8) x)",
    ];
    for b in bodies {
        let text = format!("(input I (seq 4 uint8))\n(output (map 4 (fn (x) {b}) I))");
        let _ = error_at(&text);
    }
}
