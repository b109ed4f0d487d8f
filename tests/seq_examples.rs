//! Golden tests of the example programs (`examples/`).
//!
//! Expected values come from outside the interpreter:
//! - the published test vectors of Aetherling's apps (reference/benchmarks.md §2, §7), where
//!   253 marks a don't-care position. The rule: where the published value is not 253 our
//!   output equals it; where our output is don't-care the published value must be 253;
//! - for the 1920x1080 apps, an independent golden model written below in plain Rust from
//!   the golden-generator descriptions of benchmarks.md (conv_generator, stencil_generator,
//!   stencil_2x2_generator, conv_2x2_generator, sharp_px', demosaic_generator), run on the
//!   reduced-size variants in `examples/small/` (same program shape, W = 16, H = 8). The
//!   model marks don't-care with `None` instead of the in-band 253, so a genuine 253 is
//!   still checked;
//! - hand computation for the seed examples.
//!
//! Every program runs in both evaluators, which must agree (`run`); the 1920x1080 frames,
//! which take the reference interpreter minutes, run in the fast evaluator only and are
//! checked against the golden model.

use std::path::{Path, PathBuf};
use std::process::Command;
use tessera::seq::{
    fast, interp, load_program, parse_program, FlatValue, Op, Program, ScalarType, SeqType, Value,
};
use tessera::util::rng::Rng;

/// The published don't-care marker (`int_to_ignore`).
const DC: u64 = 253;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn example(rel: &str) -> Program {
    let path = root().join("examples").join(rel);
    load_program(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The reference interpreter's output, after checking that the fast evaluator's equals it
/// (up to how a don't-care atom tuple is written: see `FlatValue::to_value`).
fn run(p: &Program, inputs: &[Value]) -> Value {
    let out = interp::eval(p, inputs).unwrap_or_else(|e| panic!("{}: {e}", p.name));
    let quick = fast::eval(p, inputs).unwrap_or_else(|e| panic!("{}: fast: {e}", p.name));
    let t = p.output_type();
    assert!(
        interp::expand_undef(&out, t) == interp::expand_undef(&quick, t),
        "{}: the fast evaluator differs from the reference",
        p.name
    );
    out
}

/// A sequence of raw scalars.
fn raw_seq(xs: impl IntoIterator<Item = u64>) -> Value {
    Value::List(xs.into_iter().map(Value::Scalar).collect())
}

/// A sequence of integers of type `t` (negative numbers in two's complement).
fn int_seq(xs: &[i128], t: ScalarType) -> Value {
    Value::List(xs.iter().map(|x| Value::from_int(*x, t)).collect())
}

fn scalar(v: &Value, what: &str) -> Option<u64> {
    match v {
        Value::Undef => None,
        Value::Scalar(x) => Some(*x),
        other => panic!("{what}: expected a scalar, found {other:?}"),
    }
}

/// Checks `out` against a published vector with 253 as don't-care; returns how many
/// positions were actually compared.
fn check_published(name: &str, out: &Value, expected: &[u64]) -> usize {
    let xs = out.list();
    assert_eq!(xs.len(), expected.len(), "{name}: output length");
    let mut compared = 0;
    for (k, (o, &e)) in xs.iter().zip(expected).enumerate() {
        match scalar(o, name) {
            None => assert_eq!(
                e, DC,
                "{name}[{k}]: our output is don't-care, the published value is {e}"
            ),
            Some(v) if e != DC => {
                assert_eq!(v, e, "{name}[{k}]");
                compared += 1;
            }
            Some(_) => {}
        }
    }
    compared
}

/// `n` copies of the don't-care marker followed by `rest`.
fn dc_then(n: usize, rest: &[u64]) -> Vec<u64> {
    let mut v = vec![DC; n];
    v.extend_from_slice(rest);
    v
}

// ---------------------------------------------------------------------------------------
// Published vectors of the small apps (benchmarks.md §2)

#[test]
fn map_published_vector() {
    let p = example("map.seq");
    let out = run(&p, &[raw_seq(1..=200)]);
    let expected: Vec<u64> = (6..=205).collect();
    assert_eq!(check_published("map", &out, &expected), 200);
}

#[test]
fn conv2d_published_vector() {
    let p = example("conv2d.seq");
    let out = run(&p, &[raw_seq(1..=16)]);
    let expected = dc_then(10, &[6, 7, DC, DC, 10, 11]);
    assert_eq!(check_published("conv2d", &out, &expected), 4);
}

/// The 1-D pyramid's vector from Test_Slowdown.hs (benchmarks.md §2.6).
#[test]
fn pyramid_1d_published_vector() {
    let p = example("pyramid_1d.seq");
    let out = run(&p, &[raw_seq(1..=27)]);
    assert_eq!(check_published("pyramid_1d", &out, &[5, 14, 23]), 3);
}

#[test]
fn conv2d_b2b_published_vector() {
    let p = example("conv2d_b2b.seq");
    let out = run(&p, &[raw_seq(1..=16)]);
    let expected = dc_then(15, &[8]);
    assert_eq!(check_published("conv2d_b2b", &out, &expected), 1);
}

#[test]
fn conv2d_b2b_3x3_repeat_published_vector() {
    // The published vector is all don't-care: it checks only that we claim nothing else.
    let p = example("conv2d_b2b_3x3_repeat.seq");
    let out = run(&p, &[raw_seq(1..=16)]);
    assert_eq!(check_published("conv2d_b2b_3x3_repeat", &out, &[DC; 16]), 0);
    // A second 3x3 stage needs r >= 4 on a 4x4 image: every output reads a position
    // before the image, so ours is don't-care everywhere too.
    assert!(out.list().iter().all(|v| *v == Value::Undef));
}

#[test]
fn sharpen_published_vector() {
    let p = example("sharpen.seq");
    let out = run(&p, &[raw_seq((1..=16).map(|i| 5 * i))]);
    let expected = dc_then(10, &[65, 74, DC, DC, 93, 98]);
    assert_eq!(check_published("sharpen", &out, &expected), 4);
}

#[test]
fn the_documented_programs_run() {
    // The two programs of docs/language.md: the map of the introduction and the 3x3
    // convolution of §6, which must give conv2d's published vector.
    let doc = std::fs::read_to_string(root().join("docs/language.md")).unwrap();
    let blocks: Vec<&str> = doc
        .split("```scheme\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .filter(|b| b.contains("(output"))
        .collect();
    assert!(
        blocks.len() >= 2,
        "docs/language.md lost its example programs"
    );
    let intro = prog("doc_map", blocks[0]);
    let out = run(&intro, &[raw_seq(1..=200)]);
    assert_eq!(
        check_published("doc map", &out, &(6..=205).collect::<Vec<_>>()),
        200
    );
    let conv = blocks
        .iter()
        .find(|b| b.contains("stencil_2d 4 4 3 3"))
        .expect("the 3x3 convolution example");
    let out = run(&prog("doc_conv2d", conv), &[raw_seq(1..=16)]);
    let expected = dc_then(10, &[6, 7, DC, DC, 10, 11]);
    assert_eq!(check_published("doc conv2d", &out, &expected), 4);
}

#[test]
fn published_vectors_through_the_cli() {
    // `tessera eval --input F.json --json`: don't-care prints as null.
    let dir = root().join("tests/data/seq");
    let cases: [(&str, &str, Vec<u64>); 3] = [
        ("map.seq", "in_1_to_200.json", (6..=205).collect()),
        (
            "conv2d.seq",
            "in_1_to_16.json",
            dc_then(10, &[6, 7, DC, DC, 10, 11]),
        ),
        (
            "sharpen.seq",
            "in_5_to_80.json",
            dc_then(10, &[65, 74, DC, DC, 93, 98]),
        ),
    ];
    for ((prog, input, expected), reference) in cases
        .iter()
        .flat_map(|c| [(c.clone(), false), (c.clone(), true)])
    {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tessera"));
        cmd.arg("eval")
            .arg(root().join("examples").join(prog))
            .arg("--input")
            .arg(dir.join(input))
            .arg("--json");
        if reference {
            cmd.arg("--reference");
        }
        let out = cmd.output().expect("run tessera");
        assert!(
            out.status.success(),
            "{prog}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
        assert_eq!(doc["program"], prog.trim_end_matches(".seq"));
        let values = doc["output"].as_array().expect("an array");
        assert_eq!(values.len(), expected.len(), "{prog}");
        for (k, (v, &e)) in values.iter().zip(&expected).enumerate() {
            match v.as_u64() {
                None => {
                    assert!(v.is_null(), "{prog}[{k}]: {v}");
                    assert_eq!(e, DC, "{prog}[{k}] is null, published {e}");
                }
                Some(x) if e != DC => assert_eq!(x, e, "{prog}[{k}]"),
                Some(_) => {}
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Test_Slowdown.hs small cases (benchmarks.md §7) and the seeds' programs

fn prog(name: &str, text: &str) -> Program {
    parse_program(&format!("{name}.seq"), name, text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn slowdown_single_map_and_two_maps() {
    let input = int_seq(&[0, -1, 2, 3], ScalarType::Int8);
    for file in ["seed/map4abs.seq", "seed/map4abs_twice.seq"] {
        let out = run(&example(file), std::slice::from_ref(&input));
        assert_eq!(out, raw_seq([0, 1, 2, 3]), "{file}");
    }
}

#[test]
fn slowdown_diamond_map() {
    let p = prog(
        "diamond_map",
        "(input I (seq 4 int8))
         (let b (map 4 abs I))
         (output (map 4 add (map2 4 atuple b I)))",
    );
    let out = run(&p, &[int_seq(&[0, -1, 2, 3], ScalarType::Int8)]);
    assert_eq!(out, raw_seq([0, 0, 4, 6]));
}

#[test]
fn slowdown_up_and_down() {
    let map_to_up = prog(
        "map_to_up",
        "(input I (seq 1 int8)) (output (up_1d 4 (map 1 abs I)))",
    );
    assert_eq!(
        run(&map_to_up, &[int_seq(&[2], ScalarType::Int8)]),
        raw_seq([2; 4])
    );
    let up_to_down = prog(
        "up_to_down",
        "(input I (seq 5 uint8)) (output (up_1d 4 (down_1d 5 0 I)))",
    );
    assert_eq!(run(&up_to_down, &[raw_seq(1..=5)]), raw_seq([1; 4]));
    let top = prog(
        "nested_map_to_top_level_up",
        "(input I (seq 1 (seq 4 int8))) (output (up_1d 4 (map 1 (map 4 abs) I)))",
    );
    let row = raw_seq([2, 3, 4, 5]);
    assert_eq!(
        run(&top, &[Value::List(vec![row.clone()])]),
        Value::List(vec![row; 4])
    );
    let nested = prog(
        "nested_map_to_nested_up",
        "(input I (seq 4 (seq 1 int8))) (output (map 4 (up_1d 4) (map 4 (map 1 abs) I)))",
    );
    let input = Value::List((2..=5).map(|x| raw_seq([x])).collect());
    let expected = Value::List((2..=5).map(|x| raw_seq([x; 4])).collect());
    assert_eq!(run(&nested, &[input]), expected);
}

#[test]
fn slowdown_partition_cases() {
    let p2m = prog(
        "partition_to_flat_map",
        "(input I (seq 4 int8)) (output (map 2 (map 2 abs) (partition 2 2 I)))",
    );
    let out = run(&p2m, &[int_seq(&[1, -2, 3, 4], ScalarType::Int8)]);
    assert_eq!(out, Value::List(vec![raw_seq([1, 2]), raw_seq([3, 4])]));
    let m2u = prog(
        "map_to_unpartition",
        "(input I (seq 2 (seq 2 int8)))
         (output (map 4 abs (unpartition 2 2 (map 2 (map 2 abs) I))))",
    );
    let input = Value::List(vec![
        int_seq(&[1, -2], ScalarType::Int8),
        int_seq(&[3, 4], ScalarType::Int8),
    ]);
    assert_eq!(run(&m2u, &[input]), raw_seq([1, 2, 3, 4]));
    let double_up = prog(
        "double_up",
        "(input I (seq 2 uint8))
         (output (unpartition 4 8 (up_1d 4 (partition 1 8
                   (unpartition 2 4 (map 2 (up_1d 4) (partition 2 1 I)))))))",
    );
    let once = [1, 1, 1, 1, 2, 2, 2, 2];
    let expected: Vec<u64> = (0..4).flat_map(|_| once).collect();
    assert_eq!(run(&double_up, &[raw_seq([1, 2])]), raw_seq(expected));
    let down = prog(
        "down_over_nested_to_down_over_flattened",
        "(input I (seq 16 uint8))
         (output (down_1d 4 0 (unpartition 1 4 (down_1d 4 0 (partition 4 4 I)))))",
    );
    assert_eq!(run(&down, &[raw_seq(1..=16)]), raw_seq([1]));
}

#[test]
fn slowdown_shift_one() {
    // Shift by 4, then 1, then 1 on [1..4096]: 6 don't-cares, then 1..4090.
    let p = prog(
        "shift_one",
        "(input I (seq 4096 uint16))
         (output (shift 4096 1 (shift 4096 1 (shift 4096 4 I))))",
    );
    let out = run(&p, &[raw_seq(1..=4096)]);
    let expected = dc_then(6, &(1..=4090).collect::<Vec<u64>>());
    // The published value 253 (at index 258) is itself the don't-care marker.
    assert_eq!(check_published("shift_one", &out, &expected), 4089);
    let mut exact = vec![Value::Undef; 6];
    exact.extend((1..=4090).map(Value::Scalar));
    assert_eq!(out, Value::List(exact));
}

#[test]
fn slowdown_counter_lt_if() {
    let counter = prog(
        "counter",
        "(input I (seq 9 uint8)) (output (counter 9 2 uint8))",
    );
    assert_eq!(
        run(&counter, &[raw_seq(0..9)]),
        raw_seq((0..9).map(|i| 2 * i))
    );
    let lt = prog(
        "lt_test",
        "(input I (seq 4 uint8)) (output (map 4 (fn (x) (lt x (const uint8 1))) I))",
    );
    assert_eq!(run(&lt, &[raw_seq(0..4)]), raw_seq([1, 0, 0, 0]));
    let if_lt = prog(
        "if_lt_test",
        "(input I (seq 4 uint8))
         (output (map 4 (fn (x) (if (lt x (const uint8 1)) (const uint8 3) (const uint8 2))) I))",
    );
    assert_eq!(run(&if_lt, &[raw_seq(0..4)]), raw_seq([3, 2, 2, 2]));
}

#[test]
fn seed_select_examples() {
    let select4 = example("seed/select4.seq");
    let out = run(&select4, &[int_seq(&[-7, 1, 2, 3], ScalarType::Int8)]);
    assert_eq!(out, int_seq(&[-7], ScalarType::Int8));
    // Select_1d 2 0 keeps the first row, then abs: [[-1, -128], [3, 4]] -> [[1, -128]]
    // (abs of the minimum wraps).
    let sm = example("seed/select_map.seq");
    let input = Value::List(vec![
        int_seq(&[-1, -128], ScalarType::Int8),
        int_seq(&[3, 4], ScalarType::Int8),
    ]);
    let out = run(&sm, &[input]);
    assert_eq!(
        out,
        Value::List(vec![int_seq(&[1, -128], ScalarType::Int8)])
    );
}

#[test]
fn seed_diamond() {
    let p = example("seed/diamond.seq");
    let out = run(&p, &[Value::List(vec![int_seq(&[-5], ScalarType::Int8)])]);
    let five = Value::pair(Value::Scalar(5), Value::Scalar(5));
    assert_eq!(out, Value::List(vec![five.clone(), five]));
    // Exactly the seed's operators: two abs maps, up_1d on each branch, two unpartitions.
    let counts: std::collections::BTreeMap<_, _> = p.op_counts().into_iter().collect();
    assert_eq!(counts["up_1d"], 2);
    assert_eq!(counts["unpartition"], 2);
    assert_eq!(counts["map2"], 1);
    assert_eq!(counts["abs"], 1);
}

#[test]
fn seed_stencil_underutil() {
    let p = example("seed/stencil_underutil.seq");
    assert_eq!(p.inputs[0].ty.atoms(), 6);
    assert_eq!(p.output_type().atoms(), 12);
    let out = run(&p, &[int_seq(&[1, -2, 3, -4, 5, -6], ScalarType::Int8)]);
    let win = |a: Value, b: i128| Value::List(vec![a, Value::from_int(b, ScalarType::Int8)]);
    let i8v = |x: i128| Value::from_int(x, ScalarType::Int8);
    let expected = Value::List(vec![
        win(Value::Undef, 1),
        win(i8v(1), -2),
        win(i8v(-2), 3),
        win(i8v(3), -4),
        win(i8v(-4), 5),
        win(i8v(5), -6),
    ]);
    assert_eq!(out, expected);
}

#[test]
fn seed_sum3x1() {
    // out[j] = x[j-2] + 2 x[j-1] + x[j] mod 256; don't-care for j < 2.
    let p = example("seed/sum3x1.seq");
    let out = run(&p, &[raw_seq([1, 2, 3, 4, 5, 6, 7, 200])]);
    // j=2: 1+4+3 = 8; j=3: 2+6+4 = 12; ...; j=6: 5+12+7 = 24; j=7: 6+14+200 = 220.
    let expected = dc_then(2, &[8, 12, 16, 20, 24, 220]);
    assert_eq!(check_published("sum3x1", &out, &expected), 6);
    // Wrapping: 100 + 2*100 + 100 = 400 = 144 mod 256.
    let out = run(&p, &[raw_seq([100; 8])]);
    assert_eq!(check_published("sum3x1", &out, &dc_then(2, &[144; 6])), 6);
}

#[test]
fn seed_blur3x1() {
    // out[j] = floor(((x[j-2] + 3 x[j-1] + x[j]) mod 256) * 26 / 128), x[-1] = x[-2] = 0.
    let p = example("seed/blur3x1.seq");
    let out = run(&p, &[raw_seq([10, 20, 30, 40, 0, 0, 5, 60])]);
    // sums: 0+0+10 = 10, 0+30+20 = 50, 10+60+30 = 100, 20+90+40 = 150, 30+120+0 = 150,
    //       40+0+0 = 40, 0+0+5 = 5, 0+15+60 = 75
    // *26/128: 2.03 -> 2, 10.2 -> 10, 20.3 -> 20, 30.5 -> 30, 30.5 -> 30, 8.1 -> 8,
    //          1.02 -> 1, 15.2 -> 15
    assert_eq!(out, raw_seq([2, 10, 20, 30, 30, 8, 1, 15]));
    // From 64 up the reciprocal is not exactly 1/5: 64 * 26 / 128 = 13, not 12;
    // 3 * 64 = 192 -> 39 (= 192 * 26 / 128 exactly).
    let out = run(&p, &[raw_seq([64, 0, 0, 0, 0, 0, 0, 0])]);
    assert_eq!(out, raw_seq([13, 39, 13, 0, 0, 0, 0, 0]));
    // Below 64 the reciprocal 26/128 divides by 5 exactly (floor): 5*3 = 15 -> 3.
    let out = run(&p, &[raw_seq([3; 8])]);
    assert_eq!(out, raw_seq([0, 2, 3, 3, 3, 3, 3, 3]));
}

// ---------------------------------------------------------------------------------------
// The stencil idiom: `stencil_2d` expands to the paper's primitive graph (benchmarks §1c)

fn shifts(p: &Program) -> Vec<(tessera::seq::NodeId, u64, tessera::seq::NodeId)> {
    p.reachable()
        .into_iter()
        .filter_map(|id| match &p.node(id).op {
            Op::Shift { amount, init, .. } => {
                assert!(init.is_none(), "the benchmark shifts have no init");
                Some((id, *amount, p.node(id).args[0]))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn stencil_2d_3x3_is_the_papers_idiom() {
    let p = example("conv2d.seq");
    let s = shifts(&p);
    assert_eq!(s.len(), 8, "2 row shifts + 3 x 2 column shifts");
    let input = p.inputs[0].node;
    // Two row shifts by W = 4, in series: I -> r1 -> r2.
    let rows: Vec<_> = s.iter().filter(|x| x.1 == 4).collect();
    assert_eq!(rows.len(), 2);
    let r1 = rows
        .iter()
        .find(|x| x.2 == input)
        .expect("a row shift of I")
        .0;
    let r2 = rows
        .iter()
        .find(|x| x.2 == r1)
        .expect("a row shift of r1")
        .0;
    // Each of the three row streams gets its own chain of two shifts by 1.
    let ones: Vec<_> = s.iter().filter(|x| x.1 == 1).collect();
    assert_eq!(ones.len(), 6);
    for stream in [input, r1, r2] {
        let first = ones
            .iter()
            .find(|x| x.2 == stream)
            .unwrap_or_else(|| panic!("no 1-shift of {stream}"))
            .0;
        assert!(ones.iter().any(|x| x.2 == first), "no second 1-shift");
    }
    // The zip: map2 stuple and map2 stuple_append, partition n 1, map stuple_to_seq 3.
    let counts: std::collections::BTreeMap<_, _> = p.op_counts().into_iter().collect();
    assert_eq!(counts["stuple"], 2, "one stuple body per element type");
    assert_eq!(counts["stuple_append"], 2);
    assert_eq!(counts["stuple_to_seq"], 2);
    // 3 row stencils + the row zip, each a partition 16 1.
    let partitions = p
        .reachable()
        .into_iter()
        .filter(|id| matches!(p.node(*id).op, Op::Partition { no: 16, ni: 1 }))
        .count();
    assert_eq!(partitions, 4);
    assert_eq!(counts["lsl"], 1);
    assert_eq!(counts["lsr"], 1);
}

#[test]
fn stencil_counts_of_every_app() {
    // 8 shifts per 3x3 stencil, 3 per 2x2 stencil (benchmarks §1c, §1d).
    for (file, n) in [
        ("conv2d.seq", 8),
        ("conv2d_b2b.seq", 11),
        ("conv2d_b2b_3x3_repeat.seq", 16),
        ("sharpen.seq", 8),
        ("big_real_32_conv2d.seq", 8),
        ("big_real_32_conv2d_b2b.seq", 11),
        ("big_real_32_sharpen.seq", 8),
        ("demosaic.seq", 8),
        ("camera.seq", 32),
        ("small/camera_16x8.seq", 32),
    ] {
        assert_eq!(shifts(&example(file)).len(), n, "{file}");
    }
}

#[test]
fn every_example_checks_with_its_documented_type() {
    let u8s = |n| format!("(seq {n} uint8)");
    let u32s = |n| format!("(seq {n} uint32)");
    let rgb = |n| format!("(seq {n} (atuple uint32 (atuple uint32 uint32)))");
    let cases = [
        ("map.seq", u8s(200), u8s(200)),
        ("box5x5_u16.seq", u8s(64), u8s(64)),
        ("pyramid_1d.seq", u8s(27), u8s(3)),
        ("first_layer_pyr.seq", u8s(64), u8s(16)),
        ("conv2d.seq", u8s(16), u8s(16)),
        ("conv2d_b2b.seq", u8s(16), u8s(16)),
        ("conv2d_b2b_3x3_repeat.seq", u8s(16), u8s(16)),
        ("sharpen.seq", u8s(16), u8s(16)),
        ("big_real_32_conv2d.seq", u32s(2073600), u32s(2073600)),
        ("big_real_32_conv2d_b2b.seq", u32s(2073600), u32s(2073600)),
        ("big_real_32_sharpen.seq", u32s(2073600), u32s(2073600)),
        ("demosaic.seq", u32s(2073600), rgb(2073600)),
        ("camera.seq", u32s(2073600), rgb(2073600)),
        ("small/big_real_32_conv2d_16x8.seq", u32s(128), u32s(128)),
        (
            "small/big_real_32_conv2d_b2b_16x8.seq",
            u32s(128),
            u32s(128),
        ),
        ("small/big_real_32_sharpen_16x8.seq", u32s(128), u32s(128)),
        ("small/demosaic_16x8.seq", u32s(128), rgb(128)),
        ("small/camera_16x8.seq", u32s(128), rgb(128)),
        ("seed/sum3x1.seq", u8s(8), u8s(8)),
        ("seed/blur3x1.seq", u8s(8), u8s(8)),
        (
            "seed/map4abs.seq",
            "(seq 4 int8)".into(),
            "(seq 4 int8)".into(),
        ),
        (
            "seed/map4abs_twice.seq",
            "(seq 4 int8)".into(),
            "(seq 4 int8)".into(),
        ),
        (
            "seed/select4.seq",
            "(seq 4 int8)".into(),
            "(seq 1 int8)".into(),
        ),
        (
            "seed/select_map.seq",
            "(seq 2 (seq 2 int8))".into(),
            "(seq 1 (seq 2 int8))".into(),
        ),
        (
            "seed/diamond.seq",
            "(seq 1 (seq 1 int8))".into(),
            "(seq 2 (atuple int8 int8))".into(),
        ),
        (
            "seed/stencil_underutil.seq",
            "(seq 6 int8)".into(),
            "(seq 6 (seq 2 int8))".into(),
        ),
    ];
    for (file, input, output) in &cases {
        let p = example(file);
        assert_eq!(p.inputs.len(), 1, "{file}");
        assert_eq!(p.inputs[0].ty.to_string(), *input, "{file}");
        assert_eq!(p.output_type().to_string(), *output, "{file}");
        let stem = Path::new(file).file_stem().unwrap().to_string_lossy();
        assert_eq!(p.name, stem, "{file}");
    }
    // Every .seq file under examples/ is listed above, so none goes untested.
    let mut found = Vec::new();
    for dir in ["", "small", "seed"] {
        for entry in std::fs::read_dir(root().join("examples").join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "seq") {
                let rel = path.strip_prefix(root().join("examples")).unwrap();
                found.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    for f in &found {
        assert!(
            cases.iter().any(|c| c.0 == f),
            "examples/{f} is not covered by this test"
        );
    }
}

// ---------------------------------------------------------------------------------------
// The independent golden model (benchmarks.md §1e-§1h, §3, §4, §5)

type Px = Option<u64>;

/// `stencil_generator` / `stencil_2x2_generator` for an s x s window on a w-wide image:
/// window k = (r, c) holds `xs[(r-s+1+i)*w + (c-s+1+j)]` at `i*s + j`, or `None` where
/// the row or the column is before the image.
fn stencil_gen(w: usize, s: usize, xs: &[Px]) -> Vec<Vec<Px>> {
    (0..xs.len())
        .map(|k| {
            let (r, c) = ((k / w) as isize, (k % w) as isize);
            let mut win = Vec::with_capacity(s * s);
            for i in 0..s as isize {
                for j in 0..s as isize {
                    let (rr, cc) = (r - s as isize + 1 + i, c - s as isize + 1 + j);
                    win.push(if rr < 0 || cc < 0 {
                        None
                    } else {
                        xs[rr as usize * w + cc as usize]
                    });
                }
            }
            win
        })
        .collect()
}

/// `conv_generator` / `conv_2x2_generator`: the weighted sum modulo 2^bits, divided;
/// `None` if any window element is.
fn conv_gen(wins: &[Vec<Px>], weights: &[u64], div: u64, mask: u64) -> Vec<Px> {
    wins.iter()
        .map(|win| {
            let mut sum = 0u64;
            for (x, k) in win.iter().zip(weights) {
                sum = sum.wrapping_add(x.as_ref()?.wrapping_mul(*k)) & mask;
            }
            Some(sum / div)
        })
        .collect()
}

const K3: [u64; 9] = [1, 2, 1, 2, 4, 2, 1, 2, 1];
const K2: [u64; 4] = [1, 4, 2, 1];

fn conv3_gen(w: usize, xs: &[Px], mask: u64) -> Vec<Px> {
    conv_gen(&stencil_gen(w, 3, xs), &K3, 16, mask)
}

/// `sharp_px'`: a is the blurred value, b the pixel; unsigned, wrapping.
fn sharp_px_gen(a: Px, b: Px, mask: u64) -> Px {
    let (a, b) = (a?, b?);
    let b_sub_a = b.wrapping_sub(a) & mask;
    let a_sub_b = a.wrapping_sub(b) & mask;
    let h = if b_sub_a > 15 || a_sub_b > 15 {
        b_sub_a
    } else {
        0
    };
    Some(b.wrapping_add(h / 4) & mask)
}

fn sharpen_gen(w: usize, xs: &[Px], mask: u64) -> Vec<Px> {
    conv3_gen(w, xs, mask)
        .into_iter()
        .zip(xs)
        .map(|(a, b)| sharp_px_gen(a, *b, mask))
        .collect()
}

type Rgb = (Px, Px, Px);

/// `demosaic_generator`: output (r, c) is the pixel at the centre (r-1, c-1) of a G R / B G
/// mosaic; `None` if a neighbour is outside the image.
fn demosaic_gen(w: usize, xs: &[u64]) -> Vec<Rgb> {
    const M: u64 = 0xffff_ffff;
    (0..xs.len())
        .map(|k| {
            let (r, c) = (k / w, k % w);
            if r < 2 || c < 2 {
                return (None, None, None);
            }
            let (cr, cc) = (r - 1, c - 1);
            let px = |dr: isize, dc: isize| {
                xs[(cr as isize + dr) as usize * w + (cc as isize + dc) as usize]
            };
            let div2 = |x: u64, y: u64| ((x + y) & M) / 2;
            let div4 = |a: u64, b: u64, c: u64, d: u64| ((a + b + c + d) & M) / 4;
            let (l, rr, t, b) = (px(0, -1), px(0, 1), px(-1, 0), px(1, 0));
            let (tl, tr, bl, br) = (px(-1, -1), px(-1, 1), px(1, -1), px(1, 1));
            let centre = px(0, 0);
            let (red, green, blue) = match (cr % 2, cc % 2) {
                (0, 0) => (div2(l, rr), centre, div2(t, b)),
                (0, 1) => (centre, div4(l, t, rr, b), div4(tl, tr, bl, br)),
                (1, 0) => (div4(tl, tr, bl, br), div4(l, t, rr, b), centre),
                _ => (div2(t, b), centre, div2(l, rr)),
            };
            (Some(red), Some(green), Some(blue))
        })
        .collect()
}

fn camera_gen(w: usize, xs: &[u64]) -> Vec<Rgb> {
    const M: u64 = 0xffff_ffff;
    let d = demosaic_gen(w, xs);
    let red = sharpen_gen(w, &d.iter().map(|p| p.0).collect::<Vec<_>>(), M);
    let green = sharpen_gen(w, &d.iter().map(|p| p.1).collect::<Vec<_>>(), M);
    let blue = sharpen_gen(w, &d.iter().map(|p| p.2).collect::<Vec<_>>(), M);
    (0..xs.len()).map(|k| (red[k], green[k], blue[k])).collect()
}

/// Where the model gives a value ours equals it; where ours is don't-care the model's is
/// too. Returns how many positions were compared.
fn check_golden(name: &str, ours: &[Value], golden: &[Px]) -> usize {
    let ours: Vec<Px> = ours.iter().map(|o| scalar(o, name)).collect();
    check_px(name, &ours, golden)
}

fn check_px(name: &str, ours: &[Px], golden: &[Px]) -> usize {
    assert_eq!(ours.len(), golden.len(), "{name}: length");
    let mut compared = 0;
    for (k, (o, g)) in ours.iter().zip(golden).enumerate() {
        match (o, g) {
            (Some(v), Some(e)) => {
                assert_eq!(v, e, "{name}[{k}]");
                compared += 1;
            }
            (None, Some(e)) => panic!("{name}[{k}]: ours is don't-care, the golden model {e}"),
            (_, None) => {}
        }
    }
    compared
}

/// Splits an output of `(atuple uint32 (atuple uint32 uint32))` into its three channels.
fn channels(out: &Value) -> [Vec<Value>; 3] {
    let mut ch: [Vec<Value>; 3] = Default::default();
    for v in out.list() {
        let (r, gb) = match v {
            Value::Pair(p) => (p.0.clone(), p.1.clone()),
            Value::Undef => (Value::Undef, Value::Undef),
            other => panic!("expected an rgb pair, found {other:?}"),
        };
        let (g, b) = match gb {
            Value::Pair(p) => (p.0, p.1),
            Value::Undef => (Value::Undef, Value::Undef),
            other => panic!("expected a (green, blue) pair, found {other:?}"),
        };
        ch[0].push(r);
        ch[1].push(g);
        ch[2].push(b);
    }
    ch
}

fn check_rgb(name: &str, out: &Value, golden: &[Rgb]) -> usize {
    let ours = channels(out);
    let g: [Vec<Px>; 3] = [
        golden.iter().map(|p| p.0).collect(),
        golden.iter().map(|p| p.1).collect(),
        golden.iter().map(|p| p.2).collect(),
    ];
    let mut compared = 0;
    for (c, colour) in ["red", "green", "blue"].iter().enumerate() {
        compared += check_golden(&format!("{name}.{colour}"), &ours[c], &g[c]);
    }
    compared
}

const W: usize = 16;
const H: usize = 8;
const N: usize = W * H;
const M32: u64 = 0xffff_ffff;

/// The published input formulas at size n, then a few random uint32 images (which make
/// every sum wrap).
fn inputs_32(published: impl Fn(u64) -> u64, n: usize) -> Vec<Vec<u64>> {
    let mut all = vec![(1..=n as u64).map(published).collect::<Vec<_>>()];
    for seed in 1..=3 {
        let mut rng = Rng::new(seed);
        all.push((0..n).map(|_| rng.next_u64() & M32).collect());
    }
    all
}

fn some(xs: &[u64]) -> Vec<Px> {
    xs.iter().map(|x| Some(*x)).collect()
}

/// Counts positions with r >= lo and c >= lo on a w-wide image of n pixels.
fn valid_count(w: usize, n: usize, lo: usize) -> usize {
    (n / w - lo) * (w - lo)
}

#[test]
fn golden_model_reproduces_the_published_small_vectors() {
    // The model itself, on the 4x4 apps' published vectors (uint8).
    let xs = some(&(1..=16).collect::<Vec<_>>());
    let conv = conv3_gen(4, &xs, 0xff);
    assert_eq!(
        conv[10..],
        [Some(6), Some(7), None, None, Some(10), Some(11)]
    );
    assert!(conv[..10].iter().all(Option::is_none));
    let b2b = conv_gen(&stencil_gen(4, 2, &conv), &K2, 8, 0xff);
    assert_eq!(b2b[15], Some(8));
    let xs = some(&(1..=16).map(|i| 5 * i).collect::<Vec<_>>());
    let sharp = sharpen_gen(4, &xs, 0xff);
    assert_eq!(sharp[10..12], [Some(65), Some(74)]);
    assert_eq!(sharp[14..], [Some(93), Some(98)]);
}

#[test]
fn big_real_32_conv2d_small_matches_the_golden_model() {
    let p = example("small/big_real_32_conv2d_16x8.seq");
    for xs in inputs_32(|i| 5 * i, N) {
        let out = run(&p, &[raw_seq(xs.clone())]);
        let golden = conv3_gen(W, &some(&xs), M32);
        let n = check_golden("big_real_32_conv2d_16x8", out.list(), &golden);
        assert_eq!(n, valid_count(W, N, 2));
    }
}

#[test]
fn big_real_32_conv2d_b2b_small_matches_the_golden_model() {
    let p = example("small/big_real_32_conv2d_b2b_16x8.seq");
    for xs in inputs_32(|i| i, N) {
        let out = run(&p, &[raw_seq(xs.clone())]);
        let c1 = conv3_gen(W, &some(&xs), M32);
        let golden = conv_gen(&stencil_gen(W, 2, &c1), &K2, 8, M32);
        let n = check_golden("big_real_32_conv2d_b2b_16x8", out.list(), &golden);
        assert_eq!(n, valid_count(W, N, 3));
    }
}

#[test]
fn big_real_32_sharpen_small_matches_the_golden_model() {
    let p = example("small/big_real_32_sharpen_16x8.seq");
    for xs in inputs_32(|i| 5 * i, N) {
        let out = run(&p, &[raw_seq(xs.clone())]);
        let golden = sharpen_gen(W, &some(&xs), M32);
        let n = check_golden("big_real_32_sharpen_16x8", out.list(), &golden);
        assert_eq!(n, valid_count(W, N, 2));
    }
}

#[test]
fn demosaic_small_matches_the_golden_model() {
    let p = example("small/demosaic_16x8.seq");
    for xs in inputs_32(|i| (i * i) & M32, N) {
        let out = run(&p, &[raw_seq(xs.clone())]);
        let n = check_rgb("demosaic_16x8", &out, &demosaic_gen(W, &xs));
        assert_eq!(n, 3 * valid_count(W, N, 2));
    }
}

#[test]
fn camera_small_matches_the_golden_model() {
    let p = example("small/camera_16x8.seq");
    for xs in inputs_32(|i| (i * i) & M32, N) {
        let out = run(&p, &[raw_seq(xs.clone())]);
        let n = check_rgb("camera_16x8", &out, &camera_gen(W, &xs));
        assert_eq!(n, 3 * valid_count(W, N, 4));
    }
}

#[test]
fn conv3_twice_on_8x8_matches_the_golden_model() {
    // conv2d_b2b_3x3_repeat's published 4x4 vector checks nothing; the same two-stage
    // shift-math program on an 8x8 image has 16 valid outputs (r >= 4, c >= 4).
    let p = load_program(&root().join("tests/data/seq/conv2d_b2b_3x3_repeat_8x8.seq"))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut rng = Rng::new(42);
    let random: Vec<u64> = (0..64).map(|_| rng.next_u64() & 0xff).collect();
    for xs in [(1..=64).collect::<Vec<u64>>(), random] {
        let out = run(&p, &[raw_seq(xs.clone())]);
        let once = conv3_gen(8, &some(&xs), 0xff);
        let golden = conv3_gen(8, &once, 0xff);
        assert_eq!(
            check_golden("conv2d_b2b_3x3_repeat_8x8", out.list(), &golden),
            16
        );
    }
}

#[test]
fn box5x5_u16_matches_the_golden_model_without_wrapping() {
    // The 5x5 binomial weights, summed exactly (no wrap: u64), divided by 256.
    let a = [1u64, 4, 6, 4, 1];
    let weights: Vec<u64> = a
        .iter()
        .flat_map(|x| a.iter().map(move |y| x * y))
        .collect();
    assert_eq!(weights.iter().sum::<u64>(), 256);
    let p = example("box5x5_u16.seq");
    let mut rng = Rng::new(7);
    let random: Vec<u64> = (0..64).map(|_| rng.next_u64() & 0xff).collect();
    let white = vec![255u64; 64];
    let ramp: Vec<u64> = (0..64).map(|i| 4 * i).collect();
    for xs in [random, white.clone(), ramp] {
        let out = run(&p, &[raw_seq(xs.clone())]);
        let golden = conv_gen(&stencil_gen(8, 5, &some(&xs)), &weights, 256, u64::MAX);
        // r >= 4 and c >= 4: 16 defined outputs.
        assert_eq!(check_golden("box5x5_u16", out.list(), &golden), 16);
    }
    // A white image stays white: 255 * 256 = 65280 did not wrap (in uint8 it would). The
    // shifts are flat, so every window from pixel 36 = 4*8 + 4 on is defined (those with
    // c < 4 reach into the previous row).
    let out = run(&p, &[raw_seq(white)]);
    let defined: Vec<Option<u64>> = out.list().iter().map(|v| scalar(v, "box")).collect();
    assert!(defined[..36].iter().all(Option::is_none));
    assert!(defined[36..].iter().all(|v| *v == Some(255)));
}

// ---------------------------------------------------------------------------------------
// Full size, in the fast evaluator (the reference interpreter builds every intermediate
// sequence as a tree of values: 38 s for conv2d to 4 minutes for camera and up to 2 GB in
// the test profile). The fast evaluator agrees with the reference on the 16x8 variants
// above and on every other example (tests/seq_fast.rs).

const FULL: usize = 1920 * 1080;

/// Runs a 1920x1080 app on the published input formula; returns the input and the output
/// as `k` channels (one per scalar of an output atom).
fn full_size(file: &str, published: impl Fn(u64) -> u64, k: usize) -> (Vec<u64>, Vec<Vec<Px>>) {
    let p = example(file);
    let xs: Vec<u64> = (1..=FULL as u64).map(published).collect();
    let input = FlatValue {
        ty: SeqType::seq(FULL as u64, ScalarType::UInt32.into()),
        scalars: xs.iter().map(|x| *x as u32).collect(),
        undef: vec![false; FULL],
    };
    let out = fast::eval_flat(&p, &[input]).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert_eq!(out.len(), FULL * k, "{file}: output scalars");
    let channels = (0..k)
        .map(|c| {
            (0..FULL)
                .map(|i| out.get(i * k + c).map(u64::from))
                .collect()
        })
        .collect();
    (xs, channels)
}

fn check_full_rgb(name: &str, ours: &[Vec<Px>], golden: &[Rgb]) -> usize {
    let g: [Vec<Px>; 3] = [
        golden.iter().map(|p| p.0).collect(),
        golden.iter().map(|p| p.1).collect(),
        golden.iter().map(|p| p.2).collect(),
    ];
    (0..3)
        .map(|c| check_px(&format!("{name}.{c}"), &ours[c], &g[c]))
        .sum()
}

#[test]
fn big_real_32_conv2d_full_size_matches_the_golden_model() {
    let (xs, out) = full_size("big_real_32_conv2d.seq", |i| 5 * i, 1);
    let golden = conv3_gen(1920, &some(&xs), M32);
    let n = check_px("big_real_32_conv2d", &out[0], &golden);
    assert_eq!(n, valid_count(1920, FULL, 2));
}

#[test]
fn big_real_32_conv2d_b2b_full_size_matches_the_golden_model() {
    let (xs, out) = full_size("big_real_32_conv2d_b2b.seq", |i| i, 1);
    let c1 = conv3_gen(1920, &some(&xs), M32);
    let golden = conv_gen(&stencil_gen(1920, 2, &c1), &K2, 8, M32);
    let n = check_px("big_real_32_conv2d_b2b", &out[0], &golden);
    assert_eq!(n, valid_count(1920, FULL, 3));
}

#[test]
fn big_real_32_sharpen_full_size_matches_the_golden_model() {
    let (xs, out) = full_size("big_real_32_sharpen.seq", |i| 5 * i, 1);
    let golden = sharpen_gen(1920, &some(&xs), M32);
    let n = check_px("big_real_32_sharpen", &out[0], &golden);
    assert_eq!(n, valid_count(1920, FULL, 2));
}

#[test]
fn demosaic_full_size_matches_the_golden_model() {
    let (xs, out) = full_size("demosaic.seq", |i| (i * i) & M32, 3);
    let n = check_full_rgb("demosaic", &out, &demosaic_gen(1920, &xs));
    assert_eq!(n, 3 * valid_count(1920, FULL, 2));
}

#[test]
fn camera_full_size_matches_the_golden_model() {
    let (xs, out) = full_size("camera.seq", |i| (i * i) & M32, 3);
    let n = check_full_rgb("camera", &out, &camera_gen(1920, &xs));
    assert_eq!(n, 3 * valid_count(1920, FULL, 4));
}
