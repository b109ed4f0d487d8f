//! Random program texts: atom expressions over every atom operator, and pipelines of
//! sequence operators on a `(seq a (seq b uint8))` value. The fast evaluator's tests
//! (`tests/seq_fast.rs`) and the fuzzer ([`crate::fuzz`]) both draw from here.

use crate::util::rng::Rng;

/// A random atom expression of scalar type `t` (bit, uint8 or int16) over the variables
/// `x` (int16), `c` (bit), `k` (uint8) and `p` (an atom tuple), at most `depth` deep,
/// exercising every atom operator.
pub fn atom_expr(rng: &mut Rng, t: &str, depth: u32) -> String {
    if depth == 0 || rng.range(0, 5) == 0 {
        return match (t, rng.range(0, 2)) {
            ("bit", 0) => "c".into(),
            ("bit", _) => format!("(const bit {})", rng.range(0, 1)),
            ("uint8", 0) => "k".into(),
            ("uint8", 1) => "(snd p)".into(),
            ("uint8", _) => format!("(const uint8 {})", rng.range(0, 255)),
            (_, 0) => "x".into(),
            (_, 1) => "(fst p)".into(),
            _ => format!("(const int16 {})", rng.range(0, 65535) as i64 - 32768),
        };
    }
    let d = depth - 1;
    let pick = rng.range(0, 8);
    let lsl_by = rng.range(0, 9);
    let divisor = rng.range(0, 255);
    let mut e = |t: &str| atom_expr(rng, t, d);
    match t {
        "bit" => match pick % 7 {
            0 => format!("(not {})", e("bit")),
            1 => format!("(and {} {})", e("bit"), e("bit")),
            2 => format!("(or {} {})", e("bit"), e("bit")),
            3 => format!("(lt {} {})", e("int16"), e("int16")),
            4 => format!("(eq {} {})", e("uint8"), e("uint8")),
            5 => format!(
                "(eq (atuple {} {}) (atuple {} {}))",
                e("int16"),
                e("bit"),
                e("int16"),
                e("bit")
            ),
            _ => format!("(if {} {} {})", e("bit"), e("bit"), e("bit")),
        },
        "uint8" => match pick % 4 {
            0 => format!("(add {} {})", e("uint8"), e("uint8")),
            1 => format!("(lsr {} {})", e("uint8"), e("uint8")),
            2 => format!("(lsl {} (const uint8 {lsl_by}))", e("uint8")),
            _ => format!("(if {} {} {})", e("bit"), e("uint8"), e("uint8")),
        },
        _ => match pick {
            0 => format!("(add {} {})", e("int16"), e("int16")),
            1 => format!("(sub {} {})", e("int16"), e("int16")),
            2 => format!("(mul {} {})", e("int16"), e("int16")),
            3 => format!("(div {} (const fixp1_7 {divisor}/128))", e("int16")),
            4 => format!("(abs {})", e("int16")),
            5 => format!("(lsr {} {})", e("int16"), e("uint8")),
            6 => format!("(lsl {} {})", e("int16"), e("uint8")),
            7 => format!("(if {} {} {})", e("bit"), e("int16"), e("int16")),
            _ => format!(
                "(fst (if {} (atuple {} k) (atuple {} k)))",
                e("bit"),
                e("int16"),
                e("int16")
            ),
        },
    }
}

/// A random function `(seq b uint8) -> (seq b uint8)` for an `hmap` lane.
pub fn lane_fn(rng: &mut Rng, b: u64) -> String {
    let k = rng.range(0, 255);
    match rng.range(0, 4) {
        0 => format!("(fn (r) (map {b} (fn (v) (add v (const uint8 {k}))) r))"),
        1 => format!("(fn (r) (shift {b} 1 r))"),
        2 => format!("(fn (r) (shift {b} {} (init {k}) r))", rng.range(0, b)),
        3 => format!("(fn (r) (hmap {b} (list_to_seq {}) r))", {
            let fs: Vec<String> = (0..b)
                .map(|i| format!("(fn (v) (mul v (const uint8 {})))", (i + k) % 256))
                .collect();
            fs.join(" ")
        }),
        _ => "(fn (r) r)".into(),
    }
}

/// One random step on an expression of type `(seq a (seq b uint8))`; returns the new
/// expression and its shape. The steps build values the fast evaluator holds as parts
/// (`hmap`, seq-tuples) and move them with every sequence operator.
pub fn structural_step(rng: &mut Rng, e: &str, a: u64, b: u64) -> (String, u64, u64) {
    let k = rng.range(0, 255);
    match rng.range(0, 11) {
        0 => {
            let fs: Vec<String> = (0..a).map(|_| lane_fn(rng, b)).collect();
            (format!("(hmap {a} (list_to_seq {}) {e})", fs.join(" ")), a, b)
        }
        1 => (format!("(map {a} {} {e})", lane_fn(rng, b)), a, b),
        2 => (format!("(transpose {a} {b} {e})"), b, a),
        3 => {
            let s = rng.range(0, a);
            if rng.coin() {
                let init: Vec<String> = (0..b).map(|i| (i * 7 % 256).to_string()).collect();
                (format!("(shift {a} {s} (init ({})) {e})", init.join(" ")), a, b)
            } else {
                (format!("(shift {a} {s} {e})"), a, b)
            }
        }
        4 => {
            let n = a * b;
            let divisors: Vec<u64> = (1..=n).filter(|d| n.is_multiple_of(*d)).collect();
            let na = *rng.pick(&divisors);
            (
                format!("(partition {na} {} (unpartition {a} {b} {e}))", n / na),
                na,
                n / na,
            )
        }
        5 => {
            let i = rng.range(0, b - 1);
            (
                format!("(map {a} (fn (r) (up_1d {b} (down_1d {b} {i} r))) {e})"),
                a,
                b,
            )
        }
        6 => {
            let i = rng.range(0, a - 1);
            (format!("(up_1d {a} (down_1d {a} {i} {e}))"), a, b)
        }
        7 => (
            format!("(map {a} (fn (r) (up_1d {b} (reduce {b} add r))) {e})"),
            a,
            b,
        ),
        8 => (
            format!("(up_1d {a} (reduce {a} (map {b} add) {e}))"),
            a,
            b,
        ),
        9 => (
            format!(
                "(map {a} (unpartition 2 {b}) (map2 {a} (fn (r s) (stuple_to_seq 2 \
                 (map2 1 stuple (partition 1 {b} r) (partition 1 {b} s)))) {e} (shift {a} 1 {e})))"
            ),
            a,
            2 * b,
        ),
        _ => (
            format!(
                "(map {a} (fn (r) (map {b} (fn (v) (if (lt v (const uint8 {k})) v (const uint8 {k}))) r)) {e})"
            ),
            a,
            b,
        ),
    }
}

/// A program of four inputs (int16, bit, uint8 and an atom tuple, each a `(seq n ..)` with
/// `n` in 1..=40) whose output maps one random atom expression (at most 4 deep) over them;
/// also returns the expression.
pub fn atom_program(rng: &mut Rng) -> (String, String) {
    let t = *rng.pick(&["bit", "uint8", "int16"]);
    let depth = rng.range(1, 4) as u32;
    let body = atom_expr(rng, t, depth);
    let n = rng.range(1, 40);
    let text = format!(
        "(input X (seq {n} int16)) (input C (seq {n} bit)) (input K (seq {n} uint8))
             (input P (seq {n} (atuple int16 uint8)))
             (output (map2 {n} (fn (xc kp) (let ((x (fst xc)) (c (snd xc)) (k (fst kp)) (p (snd kp))) {body}))
                (map2 {n} atuple X C) (map2 {n} atuple K P)))"
    );
    (text, body)
}

/// A program of one input `(seq n uint8)` (n at most 16) that partitions it and applies 1 to
/// 5 random [`structural_step`]s while the value holds at most 64 atoms.
pub fn structural_program(rng: &mut Rng) -> String {
    let (mut a, mut b) = (rng.range(1, 4), rng.range(1, 4));
    let mut e = format!("(partition {a} {b} I)");
    let n = a * b;
    for _ in 0..rng.range(1, 5) {
        if a * b > 64 {
            break;
        }
        (e, a, b) = structural_step(rng, &e, a, b);
    }
    format!("(input I (seq {n} uint8)) (output {e})")
}
