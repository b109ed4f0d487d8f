//! The paper's small apps, the seeds' examples and the 16x8 versions of the 1920x1080 apps,
//! scheduled at every slowdown of the paper's lists, emitted as Verilog, linted and
//! simulated in Icarus, and compared with the interpreter on every valid output clock — for
//! both schedulers, without pipeline registers and pipelined for the default clock (the
//! e-graph's designs pipelined where the clock needs it, Aetherling's with a register after
//! every operator).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use tessera::rtl::tools::require_tool;
use tessera::rtl::verify::{verify_rtl, VerifyOptions};
use tessera::schedule::{aetherling, egraph};
use tessera::seq::{load_program, Program};
use tessera::st::pipeline::{register_every_operator, Clock};
use tessera::st::Design;

const PAPER: [u64; 7] = [1, 2, 4, 8, 16, 48, 144];

fn work(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("rtl_apps")
        .join(name)
}

/// A scheduler of one program: the e-graph's keeps a [`egraph::Memo`] across slowdowns, so
/// the faster slowdowns' designs its bursts start from are scheduled once per app, not once
/// per slowdown (the designs are those of `egraph::schedule`).
type Scheduler = Box<dyn FnMut(&Program, u64) -> Result<Design, String>>;

fn by_egraph(o: egraph::Options) -> Scheduler {
    let mut memo = egraph::Memo::new();
    Box::new(move |p, s| memo.schedule(p, s, &o).map(|g| g.design))
}

fn by_aetherling(p: &Program, s: u64) -> Result<Design, String> {
    aetherling::schedule(p, s).map(|g| g.design)
}

fn by_aetherling_registered(p: &Program, s: u64) -> Result<Design, String> {
    aetherling::schedule(p, s).and_then(|g| register_every_operator(&g.design))
}

/// Schedules `file` at each slowdown with each scheduler and verifies the RTL; returns the
/// failures as messages. A design equal to one already verified (the schedulers often agree,
/// and a design that meets the clock unpipelined gets no registers) is not simulated again.
fn verify_app(file: &str, slowdowns: &[u64]) -> Vec<String> {
    let p = load_program(&Path::new(env!("CARGO_MANIFEST_DIR")).join(file))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    let mut verified = HashSet::new();
    let pipelined = egraph::Options {
        clock: Some(Clock::default_target()),
        ..egraph::Options::default()
    };
    let schedulers: [(&str, Scheduler); 4] = [
        ("egraph", by_egraph(egraph::Options::default())),
        ("aetherling", Box::new(by_aetherling)),
        ("egraph-pipelined", by_egraph(pipelined)),
        ("aetherling-registered", Box::new(by_aetherling_registered)),
    ];
    for (name, mut schedule) in schedulers {
        for &s in slowdowns {
            let d = match schedule(&p, s) {
                Ok(d) => d,
                Err(e) => {
                    failures.push(format!("{file} s={s} {name}: not scheduled: {e}"));
                    continue;
                }
            };
            // the text without its first line, `(design NAME)`
            let text = d.to_text();
            if !verified.insert((s, text.split_once('\n').map(|t| t.1.to_string()))) {
                continue;
            }
            let opts = VerifyOptions {
                seed: s,
                frames: 2,
                ..VerifyOptions::default()
            };
            let dir = work(&format!("{}_{name}", d.name));
            match verify_rtl(&d, &p, &dir, &opts) {
                Ok(v) if v.passed() => {}
                Ok(v) => failures.push(format!(
                    "{file} s={s} {name}: lint {:?}, {} mismatches, first {:?}",
                    v.lint.as_ref().map(|l| l.is_ok()),
                    v.mismatch_count,
                    v.mismatches.first().map(ToString::to_string)
                )),
                Err(e) => failures.push(format!("{file} s={s} {name}: {e}")),
            }
        }
    }
    failures
}

fn run(apps: &[(&str, &[u64])]) {
    if !require_tool(&["iverilog", "vvp", "verilator"], "apps in RTL simulation") {
        return;
    }
    let failures: Vec<String> = apps
        .iter()
        .flat_map(|(file, slowdowns)| verify_app(file, slowdowns))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn seed_examples_in_rtl() {
    run(&[
        ("examples/seed/map4abs.seq", &[1, 2, 4]),
        ("examples/seed/map4abs_twice.seq", &[1, 2, 4]),
        ("examples/seed/select4.seq", &[1, 2, 4]),
        ("examples/seed/select_map.seq", &[1, 2, 4]),
        ("examples/seed/diamond.seq", &[1, 2, 4]),
        ("examples/seed/stencil_underutil.seq", &[1, 2, 3, 6, 12]),
        ("examples/seed/sum3x1.seq", &[1, 2, 4, 8]),
        ("examples/seed/blur3x1.seq", &[1, 2, 4, 8]),
    ]);
}

/// The 5x5 blur that sums its uint8 pixels in uint16 (casts in the kernel).
#[test]
fn box5x5_u16_in_rtl() {
    run(&[("examples/box5x5_u16.seq", &[1, 4, 16])]);
}

/// The downsampling examples, whose e-graph designs skip the dropped samples' arithmetic.
#[test]
fn downsampling_examples_in_rtl() {
    run(&[
        ("examples/pyramid_1d.seq", &[1, 3, 9, 27, 81]),
        ("examples/first_layer_pyr.seq", &[1, 4, 16]),
    ]);
}

/// Reductions whose function is two operators (a min, a max filter), written out and
/// pipelined inside their links at the default clock (`st::unroll`).
#[test]
fn reductions_of_several_operators_in_rtl() {
    run(&[
        ("tests/data/timing/min_reduce.seq", &[1, 2, 8]),
        ("tests/data/timing/max3x3.seq", &[1, 4, 16]),
    ]);
}

#[test]
fn map_in_rtl() {
    run(&[("examples/map.seq", &[1, 5, 10, 20, 25, 40, 50, 100, 200])]);
}

#[test]
fn conv2d_in_rtl() {
    run(&[("examples/conv2d.seq", &PAPER)]);
}

#[test]
fn sharpen_in_rtl() {
    run(&[("examples/sharpen.seq", &PAPER)]);
}

#[test]
fn conv2d_b2b_in_rtl() {
    run(&[("examples/conv2d_b2b.seq", &PAPER)]);
}

#[test]
fn conv2d_b2b_3x3_repeat_in_rtl() {
    run(&[("examples/conv2d_b2b_3x3_repeat.seq", &PAPER)]);
}

/// The 1920x1080 apps' programs at 16x8 (`examples/small/`), at the same throughputs as the
/// paper's big slowdowns: 16, 8, 4, 2, 1 and 1/3 pixels per clock (1/4 for camera) are
/// slowdowns 8 ... 384 (512) for 128 pixels. One test per app, so that they run in
/// parallel.
const BIG: [u64; 6] = [8, 16, 32, 64, 128, 384];

#[test]
fn big_conv2d_reduced_in_rtl() {
    run(&[("examples/small/big_real_32_conv2d_16x8.seq", &BIG)]);
}

#[test]
fn big_conv2d_b2b_reduced_in_rtl() {
    run(&[("examples/small/big_real_32_conv2d_b2b_16x8.seq", &BIG)]);
}

#[test]
fn big_sharpen_reduced_in_rtl() {
    run(&[("examples/small/big_real_32_sharpen_16x8.seq", &BIG)]);
}

#[test]
fn camera_reduced_in_rtl() {
    run(&[("examples/small/camera_16x8.seq", &[8, 16, 32, 64, 128, 512])]);
}
