//! Sharing a 3x3 stencil's row sums (docs/rules.md section 8): the hand-written row-sum
//! forms of conv2d and sharpen (`tests/data/egraph/rowsum/`) compute what the examples
//! compute, and the examples, as written, schedule to designs as small (the search finds
//! the sharing); map and shift commute (`map-shift`, set `extra`) only for a function that
//! keeps don't-care.

use std::path::Path;
use std::process::Command;
use tessera::schedule::egraph;
use tessera::seq::{interp, load_program, Program};
use tessera::st::verify::{random_frames, verify};

fn load(path: &str) -> Program {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    load_program(&full).unwrap_or_else(|e| panic!("{e}"))
}

const FORMS: [(&str, &str); 2] = [
    (
        "examples/conv2d.seq",
        "tests/data/egraph/rowsum/conv2d_rowsum.seq",
    ),
    (
        "examples/sharpen.seq",
        "tests/data/egraph/rowsum/sharpen_rowsum.seq",
    ),
];

#[test]
fn row_sum_forms_equal_the_examples_in_the_interpreter() {
    for (app, form) in FORMS {
        let (a, b) = (load(app), load(form));
        for frame in random_frames(&a, 11, 6) {
            let want = interp::eval(&a, &frame).unwrap();
            assert_eq!(interp::eval(&b, &frame).unwrap(), want, "{form}");
        }
    }
}

/// The e-graph scheduler's extraction counts a shared value once: the row-sum form's
/// horizontal sums feed three consumers (this row, and the two row delays), and the
/// example as written schedules to a design as small at every fast paper slowdown, its
/// row sums shared by `stencil-rows`. (The model once had the forms 7-13% smaller: the
/// example's designs kept 16 more shifts by a weight, priced as barrel shifters where the
/// RTL writes wires; Yosys gives both conv2d designs at s = 1 369 LUTs and 541 FFs.)
#[test]
fn the_examples_schedule_as_small_as_their_row_sum_forms() {
    let o = egraph::Options::default();
    for (app, form) in FORMS {
        let (a, b) = (load(app), load(form));
        for s in [1, 2, 4] {
            let da = egraph::schedule(&a, s, &o).unwrap();
            let db = egraph::schedule(&b, s, &o).unwrap();
            assert!(
                da.area <= db.area + 1e-9,
                "{app} at s = {s}: {} against the row-sum form's {}",
                da.area,
                db.area
            );
        }
    }
}

fn prove_with_extra(a: &str, b: &str) -> (Option<i32>, String) {
    prove(a, b, &["--sets", "program,simplify,fusion,core,extra"])
}

/// `tessera prove` on two files of `tests/data/egraph/rowsum/`: exit code and output.
fn prove(a: &str, b: &str, more: &[&str]) -> (Option<i32>, String) {
    let dir = "tests/data/egraph/rowsum";
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["prove", &format!("{dir}/{a}"), &format!("{dir}/{b}")])
        .args(more)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn map_and_shift_commute_for_a_strict_function_only() {
    let (code, text) = prove_with_extra("map_shift.seq", "shift_map.seq");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.starts_with("proven:"), "{text}");
    let (code, text) = prove_with_extra("map_shift_not_strict.seq", "shift_map_not_strict.seq");
    assert_eq!(code, Some(1), "{text}");
    assert!(text.starts_with("not proven:"), "{text}");
}

/// The stream half of the derivation: the horizontal windows of the image shifted by a row
/// are the image's horizontal windows shifted by a row (`shift-shift`, `shift-map2`,
/// `shift-partition`, `shift-map`), and so a row sum applied to a window row moves before
/// the row shifts. Both need the `extra` set.
#[test]
fn row_sums_move_before_the_row_shifts_with_the_extra_rules() {
    for (a, b) in [
        ("window_of_shifted_row.seq", "shifted_window_row.seq"),
        ("conv2d_rows.seq", "conv2d_rowsum_two.seq"),
    ] {
        let (code, text) = prove_with_extra(a, b);
        assert_eq!(code, Some(0), "{a}: {text}");
        assert!(text.starts_with("proven:"), "{text}");
        let (code, text) = prove(a, b, &[]);
        assert_eq!(code, Some(1), "{a} without extra: {text}");
    }
}

/// The arithmetic half of sharing the middle row (docs/rules.md section 8, step 2): in uint8
/// wrapping arithmetic `(x0 << 1) + (x1 << 2) + (x2 << 1)` is `(x0 + (x1 << 1) + x2) << 1`,
/// by `add-lsl`, `lsl-add` and `lsl-lsl` (set `extra`); the default sets do not know it.
#[test]
fn the_middle_row_sum_is_the_outer_row_sum_doubled_with_the_extra_rules() {
    let (a, b) = ("middle_row_sum.seq", "outer_row_sum_doubled.seq");
    let (code, text) = prove_with_extra(a, b);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.starts_with("proven:"), "{text}");
    let (code, text) = prove(a, b, &[]);
    assert_eq!(code, Some(1), "without extra: {text}");
    assert!(text.starts_with("not proven:"), "{text}");
}

/// The two forms also agree in the interpreter on random frames (a check of the test
/// programs themselves, independent of the rules).
#[test]
fn the_doubled_outer_row_sum_equals_the_middle_row_sum_in_the_interpreter() {
    let a = load("tests/data/egraph/rowsum/middle_row_sum.seq");
    let b = load("tests/data/egraph/rowsum/outer_row_sum_doubled.seq");
    for frame in random_frames(&a, 5, 20) {
        assert_eq!(
            interp::eval(&b, &frame).unwrap(),
            interp::eval(&a, &frame).unwrap()
        );
    }
}

/// `stencil-rows` (the default rules, rules/seq/stencil.rules) takes conv2d's kernel apart
/// by rows, with the middle row's common shift taken out: the program equals the shared
/// row-sum form under the scheduler's own rule sets.
#[test]
fn the_default_rules_reach_the_shared_row_sum_form() {
    let (code, text) = prove(
        "../../../../examples/conv2d.seq",
        "conv2d_rowsum_shared.seq",
        &["--sets", "program,simplify,core"],
    );
    assert_eq!(code, Some(0), "{text}");
    assert!(text.starts_with("proven:"), "{text}");
    // Two sums per pixel to one: `row-lsl-common` (set `extra`) does for a row sum already
    // written as a map what the row split does inside stencil-rows.
    let (code, text) = prove_with_extra("conv2d_rowsum_two.seq", "conv2d_rowsum_shared.seq");
    assert_eq!(code, Some(0), "{text}");
    let (code, text) = prove(
        "conv2d_rowsum_two.seq",
        "conv2d_rowsum_shared.seq",
        &["--sets", "program,simplify,core"],
    );
    assert_eq!(code, Some(1), "without extra: {text}");
}

/// The scheduler extracts the shared form from the example: its conv2d designs are no
/// larger than the ones of the shared form written out, and smaller than the designs of
/// the same kernel with three row sums per window (`conv2d_rows.seq`, to which the rule
/// does not apply).
#[test]
fn the_scheduler_extracts_the_shared_row_sums_from_conv2d() {
    let o = egraph::Options::default();
    let app = load("examples/conv2d.seq");
    let shared = load("tests/data/egraph/rowsum/conv2d_rowsum_shared.seq");
    let rows = load("tests/data/egraph/rowsum/conv2d_rows.seq");
    for frame in random_frames(&app, 7, 4) {
        assert_eq!(
            interp::eval(&shared, &frame).unwrap(),
            interp::eval(&app, &frame).unwrap()
        );
    }
    for s in [1, 2, 4] {
        let a = egraph::schedule(&app, s, &o).unwrap().area;
        let b = egraph::schedule(&shared, s, &o).unwrap().area;
        let c = egraph::schedule(&rows, s, &o).unwrap().area;
        assert!(a <= b, "s = {s}: conv2d {a} against the shared form's {b}");
        assert!(a < c, "s = {s}: conv2d {a} against conv2d_rows {c}");
    }
}

/// The rule matches a 3x3 stencil_2d only: programs without one (a map, a 1-D stencil, the
/// 2x2 stencil of conv2d_b2b's second kernel) saturate exactly as without it.
#[test]
fn stencil_rows_applies_only_to_three_row_stencils() {
    for (file, times) in [
        ("examples/map.seq", 0),
        ("examples/conv2d.seq", 1),
        ("examples/conv2d_b2b.seq", 1),
        ("examples/conv2d_b2b_3x3_repeat.seq", 2),
        ("tests/data/egraph/rowsum/conv2d_rows.seq", 0),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["saturate", file, "--json"])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let n = v["applied"]["stencil-rows"].as_u64().unwrap_or(0);
        assert_eq!(n, times, "{file}: {v}");
    }
}

/// Rows in proportion share one row computation and its delays, for multiplied weights as
/// for shifted ones: the 1920x1080 apps' kernel, `mul` by (1 2 1) (2 4 2) (1 2 1), on the
/// 16x8 image at one and two pixels per clock keeps two rows of row sums (two line buffers
/// of 16 uint32 words: 1024 RAM bits), where doubling the middle row before delaying it
/// kept a third (1536), and its design computes what the program computes.
#[test]
fn multiplied_rows_in_proportion_share_their_row_delays() {
    let app = load("examples/small/big_real_32_conv2d_16x8.seq");
    let frames = random_frames(&app, 3, 2);
    for s in [128, 64] {
        let got = egraph::schedule(&app, s, &egraph::Options::default()).unwrap();
        assert_eq!(got.area_vec.ram_bits, 2 * 16 * 32, "s = {s}");
        let v = verify(&got.design, &app, &frames).unwrap();
        assert!(v.passed(), "s = {s}: {v:?}");
    }
}
