//! The hand-written designs of `examples/designs/` (the Scheduling seed's examples): each
//! type-checks, simulates equal to its program over several frames, and round-trips
//! through the text form; the diamond's FIFO is exactly what latency matching inserts.

#[path = "st_common/mod.rs"]
mod common;

use std::path::Path;
use std::process::Command;
use tessera::seq::load_program;
use tessera::st::latency::{analyze, design_latency, insert_fifos};
use tessera::st::verify::{random_frames, verify};
use tessera::st::{load_design, parse_design, Layout, StOp};

const EXAMPLES: [(&str, &str, &str, &str, u64); 7] = [
    ("map4abs_s1", "map4abs", "(sseq 4 int8)", "(sseq 4 int8)", 1),
    (
        "map4abs_s2",
        "map4abs",
        "(tseq 2 0 (sseq 2 int8))",
        "(tseq 2 0 (sseq 2 int8))",
        2,
    ),
    (
        "map4abs_s4",
        "map4abs",
        "(tseq 4 0 int8)",
        "(tseq 4 0 int8)",
        4,
    ),
    (
        "map4abs_twice_s2",
        "map4abs_twice",
        "(tseq 2 0 (sseq 2 int8))",
        "(tseq 2 0 (sseq 2 int8))",
        2,
    ),
    (
        "select4_s2",
        "select4",
        "(tseq 2 0 (sseq 2 int8))",
        "(tseq 1 1 (sseq 1 int8))",
        2,
    ),
    (
        "select_map_s2",
        "select_map",
        "(sseq 2 (tseq 2 0 int8))",
        "(sseq 1 (tseq 2 0 int8))",
        2,
    ),
    (
        "diamond_s2",
        "diamond",
        "(tseq 1 1 (sseq 1 int8))",
        "(tseq 1 1 (sseq 2 (atuple int8 int8)))",
        2,
    ),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_example_design_checks_and_matches_its_program() {
    for (design, program, input, output, clocks) in EXAMPLES {
        let d = load_design(&root().join(format!("examples/designs/{design}.st"))).unwrap();
        let p = load_program(&root().join(format!("examples/seed/{program}.seq"))).unwrap();
        assert_eq!(d.name, design);
        assert_eq!(d.inputs[0].layout.to_string(), input, "{design}");
        assert_eq!(d.output_layout().to_string(), output, "{design}");
        assert_eq!(d.clocks(), clocks, "{design}");
        assert!(
            analyze(&d).unwrap().misaligned.is_empty(),
            "{design} has a misaligned join"
        );
        for seed in 0..8 {
            let v = verify(&d, &p, &random_frames(&p, seed, 3)).unwrap();
            assert!(
                v.passed(),
                "{design} seed {seed}: {:?}",
                v.mismatches.first()
            );
            assert!(v.checked > 0);
        }
        common::round_trip(&d);
    }
}

#[test]
fn the_diamond_fifo_is_what_latency_matching_inserts() {
    let text = std::fs::read_to_string(root().join("examples/designs/diamond_s2.st")).unwrap();
    let with = parse_design("diamond_s2.st", &text).unwrap();
    let without_text = text.replace("(fifo (tseq 1 1 (sseq 2 int8)) 1 branch2)", "branch2");
    assert_ne!(without_text, text);
    let without = parse_design("diamond_s2.st", &without_text).unwrap();
    let lat = analyze(&without).unwrap();
    assert_eq!(lat.misaligned.len(), 1);
    assert_eq!(lat.misaligned[0].inputs, vec![1, 0]);
    assert!(design_latency(&without).is_err());
    // Simulated as is, the join pairs elements of different clocks and fails.
    let p = load_program(&root().join("examples/seed/diamond.seq")).unwrap();
    let v = verify(&without, &p, &random_frames(&p, 3, 3)).unwrap();
    assert!(!v.passed());
    let fixed = insert_fifos(&without).unwrap();
    assert_eq!(fixed.canonical(), with.canonical());
    assert_eq!(design_latency(&with).unwrap(), 1);
    let fifos: Vec<&Layout> = with
        .ids()
        .filter_map(|k| match &with.node(k).op {
            StOp::Fifo { layout, delay: 1 } => Some(layout),
            _ => None,
        })
        .collect();
    assert_eq!(fifos.len(), 1);
    assert_eq!(fifos[0].to_string(), "(tseq 1 1 (sseq 2 int8))");
}

fn tessera(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_check_sim_and_area_on_designs() {
    for (design, program, ..) in EXAMPLES {
        let f = format!("examples/designs/{design}.st");
        let (code, out, err) = tessera(&["check", &f]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("clocks"), "{out}");
        let (code, out, err) = tessera(&[
            "sim",
            &f,
            "--program",
            &format!("examples/seed/{program}.seq"),
            "--random",
            "5",
        ]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("PASS") && out.contains("latency"), "{out}");
        let (code, out, _) = tessera(&["area", &f, "--json"]);
        assert_eq!(code, 0);
        let j: serde_json::Value = serde_json::from_str(&out).unwrap();
        let total = j["total"]["scalar"].as_f64().unwrap();
        let sum: f64 = j["by_operator"]
            .as_object()
            .unwrap()
            .values()
            .map(|a| a["scalar"].as_f64().unwrap())
            .sum();
        assert!((total - sum).abs() < 1e-9, "{out}");
        // only the selects are pure wiring
        assert_eq!(total == 0.0, design.starts_with("select4"), "{out}");
    }
    // the wrong program: a design implementing Map 4 Abs is not Select_1d 4 0
    let (code, _, err) = tessera(&[
        "sim",
        "examples/designs/map4abs_s2.st",
        "--program",
        "examples/seed/select4.seq",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("does not carry"), "{err}");
    // a design that computes the wrong thing: exit 1
    let (code, out, _) = tessera(&[
        "sim",
        "tests/data/st/wrong_abs.st",
        "--program",
        "examples/seed/map4abs.seq",
        "--json",
    ]);
    assert_eq!(code, 1, "{out}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["passed"], false);
    assert!(j["mismatches"].as_u64().unwrap() > 0);
    // an ill-typed design: exit 2 with the layouts named
    let (code, _, err) = tessera(&["check", "tests/data/st/ill_typed.st"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("(tseq 2 0 (sseq 2 int8))") && err.contains("(tseq 4 0 int8)"),
        "{err}"
    );
    assert!(err.contains("ill_typed.st:4:"), "{err}");
}
