//! Don't-care output lanes (`RtlOptions::prune_dont_care`, `--prune-dont-care`): which
//! lanes are found don't-care (those the interpreter leaves undefined on every clock, none
//! where an `if` makes it depend on the data), that pruned designs still equal the
//! interpreter in RTL simulation, and that synthesis then removes the pruned lanes' logic.

use std::path::{Path, PathBuf};
use tessera::rtl::dont_care::dont_care_lanes;
use tessera::rtl::synth::synth_design;
use tessera::rtl::tools::require_tool;
use tessera::rtl::verify::{verify_rtl, VerifyOptions};
use tessera::rtl::{emit_with, RtlOptions};
use tessera::schedule::egraph;
use tessera::seq::front::parse_program;
use tessera::seq::interp::eval;
use tessera::seq::value::{random_value, Value};
use tessera::seq::{load_program, Program};
use tessera::st::pipeline::Clock;
use tessera::st::stream::flatten;
use tessera::st::Design;
use tessera::util::rng::Rng;

fn work(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("rtl_dont_care")
        .join(name)
}

fn app(name: &str) -> Program {
    load_program(&Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}.seq")))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The design the commands make: the e-graph scheduler at the default clock.
fn design(p: &Program, s: u64) -> Design {
    let o = egraph::Options {
        clock: Some(Clock::default_target()),
        ..egraph::Options::default()
    };
    egraph::schedule(p, s, &o).unwrap().design
}

fn pruning() -> RtlOptions {
    RtlOptions {
        prune_dont_care: true,
        ..RtlOptions::default()
    }
}

/// The lanes of `d`'s output that carry only positions the interpreter leaves undefined
/// for `p`'s output on random inputs.
fn interpreter_dont_care(p: &Program, d: &Design) -> Vec<bool> {
    let mut rng = Rng::new(7);
    let ins: Vec<Value> = p
        .inputs
        .iter()
        .map(|i| random_value(&i.ty, &mut rng))
        .collect();
    let out = flatten(&eval(p, &ins).unwrap(), p.output_type());
    let ol = d.output_layout();
    let mut dc = vec![true; ol.lanes() as usize];
    for idx in ol.placement().iter().flatten() {
        for (k, a) in idx.iter().enumerate() {
            dc[k] &= out[*a as usize] == Value::Undef;
        }
    }
    dc
}

#[test]
fn dont_care_lanes_are_the_positions_the_interpreter_leaves_undefined() {
    let p = app("conv2d");
    let d1 = design(&p, 1);
    // a 4x4 3x3 stencil's first ten windows reach before the frame
    let mut expected = vec![true; 10];
    expected.extend([false; 6]);
    assert_eq!(dont_care_lanes(&d1), expected);
    assert_eq!(interpreter_dont_care(&p, &d1), expected);
    for (name, s) in [
        ("conv2d", 2),
        ("conv2d", 4),
        ("sharpen", 2),
        ("conv2d_b2b", 4),
    ] {
        let p = app(name);
        let d = design(&p, s);
        assert_eq!(
            dont_care_lanes(&d),
            interpreter_dont_care(&p, &d),
            "{name} s={s}"
        );
    }
    // at slowdown 2 lanes 0 and 1 carry positions 0, 8 and 1, 9: both undefined
    assert_eq!(
        dont_care_lanes(&design(&app("conv2d"), 2)),
        [true, true, false, false, false, false, false, false]
    );
}

#[test]
fn an_if_that_picks_a_dont_care_branch_by_the_data_prunes_nothing() {
    // position 0 of the output is don't-care exactly when its pixel is below 128
    let p = parse_program(
        "pick.seq",
        "pick",
        "(def pick (a b)
           (let ((small (lt b (const uint8 128))))
             (if small a b)))
         (input I (seq 4 uint8))
         (output (map2 4 pick (shift 4 1 I) I))",
    )
    .unwrap();
    // position 0 really depends on the data, so lane 0 must be computed
    let first = |x: u64| {
        let i = Value::List([x, 1, 2, 3].into_iter().map(Value::Scalar).collect());
        flatten(&eval(&p, &[i]).unwrap(), p.output_type())[0].clone()
    };
    assert_eq!(first(0), Value::Undef);
    assert_eq!(first(200), Value::Scalar(200));
    let d = design(&p, 1);
    assert_eq!(dont_care_lanes(&d), [false; 4]);
    // the same shift without the `if` leaves lane 0 don't-care whatever the data
    let p = parse_program(
        "sum.seq",
        "sum",
        "(def sum (a b) (add (atuple a b)))
         (input I (seq 4 uint8))
         (output (map2 4 sum (shift 4 1 I) I))",
    )
    .unwrap();
    assert_eq!(dont_care_lanes(&design(&p, 1)), [true, false, false, false]);
}

#[test]
fn pruning_is_off_by_default() {
    let d = design(&app("conv2d"), 1);
    let plain = emit_with(&d, &RtlOptions::default()).unwrap().verilog;
    let pruned = emit_with(&d, &pruning()).unwrap().verilog;
    assert!(!plain.contains("assign out_0 = 8'h0;"), "{plain}");
    assert!(pruned.contains("assign out_0 = 8'h0;"), "{pruned}");
    assert!(pruned.contains("assign out_9 = 8'h0;"), "{pruned}");
    assert!(!pruned.contains("assign out_10 = 8'h0;"), "{pruned}");
}

#[test]
fn pruned_designs_equal_the_interpreter_in_rtl_simulation() {
    if !require_tool(&["iverilog", "vvp", "verilator"], "pruned designs in RTL") {
        return;
    }
    let mut failures = Vec::new();
    for (name, s) in [
        ("conv2d", 1),
        ("conv2d", 2),
        ("conv2d_b2b", 4),
        ("sharpen", 1),
        ("sharpen", 2),
    ] {
        let p = app(name);
        let d = design(&p, s);
        let opts = VerifyOptions {
            seed: s,
            frames: 3,
            rtl: pruning(),
            ..VerifyOptions::default()
        };
        match verify_rtl(&d, &p, &work(&format!("{name}_s{s}")), &opts) {
            Ok(v) if v.passed() && v.atoms_checked > 0 => {}
            Ok(v) => failures.push(format!(
                "{name} s={s}: lint {:?}, {} checked, {} mismatches",
                v.lint.as_ref().map(|l| l.is_ok()),
                v.atoms_checked,
                v.mismatch_count
            )),
            Err(e) => failures.push(format!("{name} s={s}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn synthesis_removes_the_logic_of_pruned_lanes() {
    if !require_tool(&["yosys"], "Yosys pruned lanes") {
        return;
    }
    let d = design(&app("conv2d"), 2);
    let plain = synth_design(&d, &work("synth_plain"), &RtlOptions::default()).unwrap();
    let pruned = synth_design(&d, &work("synth_pruned"), &pruning()).unwrap();
    eprintln!(
        "conv2d s=2: LUT+FF {} -> {} (FF {} -> {})",
        plain.lut_ff(),
        pruned.lut_ff(),
        plain.ff,
        pruned.ff
    );
    // Two of the eight windows' kernel totals go. The horizontal row sums stay: since the
    // scheduler shares them between rows (docs/rules.md section 8) the pruned lanes' sums
    // feed the defined lanes of later rows. Measured 559 -> 495 LUT+FF: at least a tenth
    // of the flip-flops and of the LUTs.
    assert!(pruned.ff * 10 <= plain.ff * 9, "{plain:?} {pruned:?}");
    assert!(
        pruned.luts() * 10 <= plain.luts() * 9,
        "{plain:?} {pruned:?}"
    );
}
