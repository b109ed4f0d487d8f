//! The Aetherling baseline scheduler: every example at every slowdown of the paper's lists
//! gives a design that type-checks, meets the slowdown exactly, and computes what the
//! program computes in the cycle simulator.

use std::path::Path;
use tessera::schedule::aetherling;
use tessera::seq::load_program;
use tessera::st::verify::{random_frames, verify};

fn check(file: &str, slowdowns: &[u64]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let p = load_program(&path).unwrap_or_else(|e| panic!("{e}"));
    for &s in slowdowns {
        let got =
            aetherling::schedule(&p, s).unwrap_or_else(|e| panic!("{file} at slowdown {s}: {e}"));
        assert_eq!(got.design.clocks(), s, "{file} at {s}: wrong slowdown");
        let frames = random_frames(&p, 7 + s, 2);
        let v = verify(&got.design, &p, &frames).unwrap_or_else(|e| panic!("{file} at {s}: {e}"));
        assert!(
            v.passed(),
            "{file} at slowdown {s}: the design differs from the interpreter: {:?}\n{}",
            v.mismatches.first(),
            got.design.to_text()
        );
    }
}

#[test]
fn seed_examples() {
    for file in [
        "examples/seed/map4abs.seq",
        "examples/seed/map4abs_twice.seq",
        "examples/seed/select4.seq",
    ] {
        check(file, &[1, 2, 4]);
    }
    check("examples/seed/select_map.seq", &[1, 2, 4]);
    check("examples/seed/diamond.seq", &[1, 2, 4]);
}

#[test]
fn map_app() {
    check("examples/map.seq", &[1, 5, 10, 20, 25, 40, 50, 100, 200]);
}

#[test]
fn conv2d_app() {
    check("examples/conv2d.seq", &[1, 2, 4, 8, 16, 48, 144]);
}

#[test]
fn conv2d_b2b_apps() {
    let paper = [1, 2, 4, 8, 16, 48, 144];
    check("examples/conv2d_b2b.seq", &paper);
    check("examples/conv2d_b2b_3x3_repeat.seq", &paper);
}

#[test]
fn sharpen_app() {
    check("examples/sharpen.seq", &[1, 2, 4, 8, 16, 48, 144]);
}

#[test]
fn box5x5_u16_app() {
    check("examples/box5x5_u16.seq", &[1, 4, 16, 64]);
}

#[test]
fn stencil_underutil() {
    check("examples/seed/stencil_underutil.seq", &[1, 2, 3, 6, 12]);
}

/// A time or step budget stops the baseline between candidate output layouts with an error
/// that says how far it got; a generous one changes nothing.
#[test]
fn a_budget_stops_the_baseline_without_a_partial_answer() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/conv2d.seq");
    let p = load_program(&path).unwrap();
    let full = aetherling::schedule(&p, 16).unwrap();
    for (budget, within) in [(Some(std::time::Duration::ZERO), None), (None, Some(1))] {
        let tight = aetherling::Budget {
            time: budget,
            steps: within,
        };
        let Err(e) = aetherling::schedule_within(&p, 16, tight) else {
            panic!("a budget of no time or one step stops it");
        };
        assert!(
            e.contains(aetherling::OVER_BUDGET)
                && e.contains("at slowdown 16")
                && e.contains("output layouts costed"),
            "{e}"
        );
        let generous = aetherling::Budget {
            time: budget.map(|_| std::time::Duration::from_secs(3600)),
            steps: within.map(|_| 1_000_000),
        };
        let got = aetherling::schedule_within(&p, 16, generous).unwrap();
        assert_eq!(full.area, got.area);
        assert_eq!(full.design.to_text(), got.design.to_text());
    }
}

/// Above a 16x8 frame's 128 clocks every layout has idle clocks, and the lowering runs
/// Unpartition searches (reference §4.5.8), nested three deep in the demosaic, over many
/// candidate layouts; the searches reuse producer lowerings and skip candidates whose
/// reshape alone costs more than the best found. The designs are still the full search's:
/// the files are what the search that lowered every candidate in a copy of the whole
/// state gave (`tessera schedule FILE --slowdown 288 --strategy aetherling --clock-mhz 0`
/// before the shortcuts), and they compute what the programs compute.
#[test]
fn large_slowdowns_give_the_full_searchs_designs() {
    for name in ["demosaic_16x8", "camera_16x8"] {
        let file = format!("examples/small/{name}.seq");
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(&file);
        let p = load_program(&path).unwrap_or_else(|e| panic!("{e}"));
        let got = aetherling::schedule(&p, 288).unwrap_or_else(|e| panic!("{file}: {e}"));
        let want_path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/data/aetherling/{name}_s288.st"));
        let want = std::fs::read_to_string(&want_path).unwrap();
        assert_eq!(got.design.to_text(), want, "{file} at slowdown 288");
        check(&file, &[288]);
    }
}
