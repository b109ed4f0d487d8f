//! `tessera prove`: the Stencil seed's derivations, the other nesting rules, and false
//! equalities that must not be proven.

use std::path::Path;
use std::process::Command;
use tessera::egraph::convert::{input_sigs, program_to_expr};
use tessera::egraph::prove::{program_factors, prove};
use tessera::egraph::rules::RuleSet;
use tessera::egraph::saturate::{saturate, SatConfig};
use tessera::seq::{load_program, parse_program};

fn tessera() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
}

fn derivation_rules(pair: &str) -> Vec<String> {
    let a = load_program(Path::new(&format!("examples/derivations/{pair}_lhs.seq"))).unwrap();
    let b = load_program(Path::new(&format!("examples/derivations/{pair}_rhs.seq"))).unwrap();
    let cfg = SatConfig {
        factors: program_factors(&[&a, &b]),
        ..SatConfig::default()
    };
    let out = prove(&a, &b, &RuleSet::defaults(), &cfg, true).unwrap();
    assert!(out.proven, "{pair}: {}", out.report.text());
    let d = out.derivation.unwrap();
    d.rules().into_iter().map(str::to_string).collect()
}

#[test]
fn shift_nesting_is_the_seeds_rule() {
    assert_eq!(derivation_rules("shift_nesting"), vec!["shift-nest[3x2]"]);
}

#[test]
fn nested_stencil_derivation_names_the_seeds_steps() {
    let rules = derivation_rules("stencil1d_nesting");
    let has = |name: &str| rules.iter().any(|r| r.starts_with(name));
    for step in [
        "transpose-nest[3:4x2]",
        "shift-nest[4x2]",
        "partition-unpartition",
        "map-hmap-fusion",
        "hmap-map-fusion",
        "up-map",
        "partition-assoc-rev",
    ] {
        assert!(has(step), "{step} missing from {rules:?}");
    }
    assert!(rules.iter().all(|r| !r.contains(".rs:")), "{rules:?}");
}

#[test]
fn every_derivation_pair_is_proven() {
    let mut pairs: Vec<String> = std::fs::read_dir("examples/derivations")
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix("_lhs.seq").map(str::to_string)
        })
        .collect();
    pairs.sort();
    assert!(pairs.len() >= 11, "{pairs:?}");
    for p in pairs {
        let out = tessera()
            .args(["prove", "--stats"])
            .arg(format!("examples/derivations/{p}_lhs.seq"))
            .arg(format!("examples/derivations/{p}_rhs.seq"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{p}:\n{text}");
        assert!(text.starts_with("proven:"), "{text}");
    }
}

#[test]
fn false_equalities_are_refused() {
    let cases = [
        (
            "tests/data/egraph/false/shift_by_two.seq",
            "examples/derivations/shift_nesting_rhs.seq",
        ),
        (
            "examples/derivations/down_nesting_lhs.seq",
            "tests/data/egraph/false/down_docs_bug.seq",
        ),
        (
            "tests/data/egraph/false/partition_4x2.seq",
            "tests/data/egraph/false/partition_swapped.seq",
        ),
        (
            "tests/data/egraph/false/map_rows.seq",
            "tests/data/egraph/false/map_rows_transposed.seq",
        ),
        (
            "tests/data/egraph/false/cast_of_sum.seq",
            "tests/data/egraph/false/cast_sum_of_casts.seq",
        ),
        (
            "tests/data/egraph/commute/sub_x_1.seq",
            "tests/data/egraph/commute/sub_1_x.seq",
        ),
    ];
    for (a, b) in cases {
        let out = tessera().args(["prove", "--stats", a, b]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{a} = {b} must not be proven:\n{text}"
        );
        assert!(text.starts_with("not proven:"), "{text}");
        assert!(
            text.contains("saturation: saturated"),
            "the refusal must come from saturation, not a limit:\n{text}"
        );
    }
}

#[test]
fn incomparable_programs_are_a_user_error() {
    let out = tessera()
        .args([
            "prove",
            "examples/derivations/shift_nesting_lhs.seq",
            "tests/data/egraph/false/other_type.seq",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("input 0 has type"));
    let out = tessera()
        .args(["prove", "nope.seq", "nope.seq"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn explain_prints_rule_names_and_terms() {
    let out = tessera()
        .args([
            "prove",
            "--explain",
            "examples/derivations/shift_nesting_lhs.seq",
            "examples/derivations/shift_nesting_rhs.seq",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("step 1: => shift-nest[3x2]   (Shift Nesting)"),
        "{text}"
    );
    assert!(text.contains("(shift 6 1 _ x)"), "{text}");
    let json = tessera()
        .args([
            "prove",
            "--explain",
            "--json",
            "examples/derivations/shift_nesting_lhs.seq",
            "examples/derivations/shift_nesting_rhs.seq",
        ])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["proven"], true);
    assert_eq!(doc["derivation"][1]["rule"], "shift-nest[3x2]");
    assert_eq!(doc["stats"]["stop"], "goal reached");
}

/// The seed's Shift nesting and the reference's lane form (N-Shift, amount 1) are the same
/// function: both right sides land in the shift's e-class, and the e-graph explains the
/// equality of the two nested forms through it.
#[test]
fn seed_form_and_lane_form_of_shift_nesting_are_equal() {
    let flat = load_program(Path::new("examples/derivations/shift_nesting_lhs.seq")).unwrap();
    let seed = load_program(Path::new("examples/derivations/shift_nesting_rhs.seq")).unwrap();
    let lanes = parse_program(
        "lanes.seq",
        "lanes",
        "(input x (seq 6 uint8))
         (let rows (partition 3 2 x))
         (let lane0 (shift 3 1 (map 3 (select_1d 2 1) rows)))
         (let lane1 (map 3 (select_1d 2 0) rows))
         (output (unpartition 3 2 (map 3 (stuple_to_seq 2) (map2 3 (map2 1 stuple) lane0 lane1))))",
    )
    .unwrap();
    let names = input_sigs(&flat);
    let exprs: Vec<_> = [&seed, &lanes, &flat]
        .iter()
        .map(|p| program_to_expr(p, Some(&names)))
        .collect();
    let cfg = SatConfig {
        factors: program_factors(&[&flat, &seed, &lanes]),
        explanations: true,
        ..SatConfig::default()
    };
    let mut sat = saturate(&exprs, &names, &RuleSet::defaults(), &cfg, false);
    let eg = &sat.runner.egraph;
    assert_eq!(eg.find(sat.roots[0]), eg.find(sat.roots[2]));
    assert_eq!(eg.find(sat.roots[1]), eg.find(sat.roots[2]));
    let mut e = sat.runner.explain_equivalence(&exprs[0], &exprs[1]);
    let flat_steps = e.get_flat_strings();
    let text = flat_steps.join("\n");
    assert!(
        text.contains("shift-nest[3x2]") && text.contains("shift-lanes[3x2]"),
        "{text}"
    );
}

/// Map fusion is proven by default (the `fusion` set runs in `prove`'s simplify phase);
/// the same maps composed in the other order are still not equal.
#[test]
fn prove_fuses_maps_by_default_and_still_refuses_the_other_order() {
    let run = |b: &str| {
        let out = tessera()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["prove", "tests/data/egraph/fusion/two_maps.seq", b])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, text) = run("tests/data/egraph/fusion/fused.seq");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.starts_with("proven:"), "{text}");
    let (code, text) = run("tests/data/egraph/fusion/fused_other_order.seq");
    assert!(text.starts_with("not proven:"), "{code:?} {text}");
}

/// Programs that differ in the order of a commutative operator's operands are proven equal
/// by default (the `commute` set, `rules/seq/commute.rules`); subtraction's operands swapped
/// are refused above (`false_equalities_are_refused`).
#[test]
fn prove_swaps_commutative_operands_by_default() {
    let out = tessera()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "prove",
            "--explain",
            "tests/data/egraph/commute/add_x_1.seq",
            "tests/data/egraph/commute/add_1_x.seq",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("proven:"), "{text}");
    assert!(text.contains("add-comm"), "{text}");
}
