//! Every design in `examples/designs/` goes emit -> Verilator lint -> Icarus simulation
//! (2+ frames back to back) -> comparison with the interpreter running its program
//! (`examples/seed/<name>.seq`, the design name without its `_s<slowdown>` suffix).

use std::path::{Path, PathBuf};
use tessera::rtl::sim::Simulator;
use tessera::rtl::tools::require_tool;
use tessera::rtl::verify::{verify_rtl, VerifyOptions};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn work(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("rtl_examples")
        .join(name)
}

/// The program of a design: `examples/seed/<stem without _s<N>>.seq`.
fn program_of(design: &Path) -> PathBuf {
    let stem = design.file_stem().unwrap().to_string_lossy().into_owned();
    let base = match stem.rfind("_s") {
        Some(k) if stem[k + 2..].chars().all(|c| c.is_ascii_digit()) => stem[..k].to_string(),
        _ => stem.clone(),
    };
    root().join("examples/seed").join(format!("{base}.seq"))
}

fn designs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("examples/designs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "st"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_example_design_simulates_equal_to_the_interpreter() {
    if !require_tool(
        &["iverilog", "vvp", "verilator"],
        "example designs in Icarus",
    ) {
        return;
    }
    let ds = designs();
    assert!(!ds.is_empty());
    let mut failures = Vec::new();
    for path in &ds {
        let d = tessera::st::load_design(path).unwrap();
        let p = tessera::seq::load_program(&program_of(path)).unwrap();
        for seed in 0..2 {
            let opts = VerifyOptions {
                seed,
                frames: 3,
                ..VerifyOptions::default()
            };
            let dir = work(&format!("{}_{seed}", d.name));
            let v = verify_rtl(&d, &p, &dir, &opts)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if !v.passed() {
                failures.push(format!(
                    "{} (seed {seed}, dir {}): lint {:?}; {} mismatches: {:#?}",
                    d.name,
                    dir.display(),
                    v.lint,
                    v.mismatch_count,
                    v.mismatches
                ));
            }
            assert!(v.atoms_checked > 0, "{}: nothing compared", d.name);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn verilator_agrees_on_an_example() {
    if !require_tool(&["verilator"], "Verilator cross-check") {
        return;
    }
    let path = root().join("examples/designs/diamond_s2.st");
    let d = tessera::st::load_design(&path).unwrap();
    let p = tessera::seq::load_program(&program_of(&path)).unwrap();
    let opts = VerifyOptions {
        sim: Simulator::Verilator,
        seed: 3,
        frames: 3,
        ..VerifyOptions::default()
    };
    let v = verify_rtl(&d, &p, &work("verilator_diamond"), &opts).unwrap();
    assert!(v.passed(), "{:?} {:#?}", v.lint, v.mismatches);
    assert!(v.atoms_checked > 0);
}

/// A scheduled 3x3 convolution (weights in a `const`, zipped with the pixels through
/// `map2_s` bodies): every multiply by a weight becomes shifts and adds, because the
/// weights' lanes are known constants in the body variants that multiply; the design
/// simulates equal to the interpreter.
#[test]
fn scheduled_convolution_multiplies_by_constants_without_multipliers() {
    let path = root().join("tests/data/rtl/conv2d_16x8_s8.st");
    let d = tessera::st::load_design(&path).unwrap();
    let rtl = tessera::rtl::emit(&d).unwrap();
    assert!(
        !rtl.verilog.contains(" * "),
        "a multiplier is left in the Verilog"
    );
    assert!(
        rtl.verilog.contains("_k1 ("),
        "no body variant for constant lanes"
    );
    if !require_tool(&["iverilog", "vvp", "verilator"], "scheduled convolution") {
        return;
    }
    let p = tessera::seq::load_program(&root().join("examples/small/big_real_32_conv2d_16x8.seq"))
        .unwrap();
    let opts = VerifyOptions {
        seed: 1,
        frames: 2,
        ..VerifyOptions::default()
    };
    let v = verify_rtl(&d, &p, &work("conv2d_16x8_s8"), &opts).unwrap();
    assert!(v.passed(), "{:?} {:#?}", v.lint, v.mismatches);
    assert!(v.atoms_checked > 100);
}

/// Programs with `transpose` and `hmap` (the Stencil seed's own `Stencil_1d`), scheduled by
/// the e-graph scheduler at their fastest, a middle and their slowest default slowdown: the
/// Verilog simulates equal to the interpreter.
#[test]
fn scheduled_transposes_and_hmaps_simulate_equal_to_the_interpreter() {
    if !require_tool(&["iverilog", "vvp", "verilator"], "transposes and hmaps") {
        return;
    }
    let o = tessera::schedule::egraph::Options::default();
    for name in [
        "transpose_nesting_lhs",
        "transpose_nesting_rhs",
        "stencil1d_nesting_lhs",
        "shift_nesting_rhs",
    ] {
        let path = root().join(format!("examples/derivations/{name}.seq"));
        let p = tessera::seq::load_program(&path).unwrap();
        let all = tessera::schedule::slowdown::default_slowdowns(&p);
        for s in [all[0], all[all.len() / 2], all[all.len() - 1]] {
            let got = tessera::schedule::egraph::schedule(&p, s, &o)
                .unwrap_or_else(|e| panic!("{name} at {s}: {e}"));
            let opts = VerifyOptions {
                seed: s,
                frames: 2,
                ..VerifyOptions::default()
            };
            let dir = work(&format!("{name}_s{s}"));
            let v = verify_rtl(&got.design, &p, &dir, &opts).unwrap();
            assert!(
                v.passed(),
                "{name} at {s} (dir {}): {:?} {:#?}",
                dir.display(),
                v.lint,
                v.mismatches
            );
        }
    }
}
