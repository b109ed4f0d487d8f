//! Snapshots (insta) of the e-graph layer, kept in the top-level `snapshots/` directory:
//! the rule list, the derivations of `examples/derivations/`, and the e-graph size after
//! saturating every example program.
//!
//! Everything snapshotted is deterministic: no timings, no time limit, no hash order.
//! In CI (`CI=true`) a mismatch or a missing snapshot fails. To update after a deliberate
//! change: `INSTA_UPDATE=always cargo test --test egraph_snapshots`, or
//! `cargo insta test --review`, then review the diff.

use std::path::{Path, PathBuf};
use tessera::egraph::prove::{program_factors, prove};
use tessera::egraph::rules::RuleSet;
use tessera::egraph::saturate::{saturate_program, SatConfig, Stop};
use tessera::seq::load_program;

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

fn seq_files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "seq"))
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

#[test]
fn rule_list() {
    settings().bind(|| insta::assert_snapshot!("egraph_rules", RuleSet::defaults().listing()));
}

#[test]
fn derivations() {
    let rules = RuleSet::defaults();
    let pairs: Vec<String> = seq_files("examples/derivations")
        .iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            name.strip_suffix("_lhs.seq").map(str::to_string)
        })
        .collect();
    assert!(!pairs.is_empty());
    for pair in pairs {
        let a = load_program(Path::new(&format!("examples/derivations/{pair}_lhs.seq"))).unwrap();
        let b = load_program(Path::new(&format!("examples/derivations/{pair}_rhs.seq"))).unwrap();
        let cfg = SatConfig {
            factors: program_factors(&[&a, &b]),
            ..SatConfig::default()
        };
        let out = prove(&a, &b, &rules, &cfg, true).unwrap();
        assert!(out.proven, "{pair}");
        let r = &out.report;
        let text = format!(
            "{pair}_lhs.seq = {pair}_rhs.seq\n{} after {} iterations, {} e-nodes, {} e-classes; factors {}\n\n{}",
            r.stop,
            r.iterations,
            r.nodes,
            r.classes,
            r.factors,
            out.derivation.unwrap().text(100)
        );
        settings().bind(|| insta::assert_snapshot!(format!("egraph_derivation_{pair}"), text));
    }
}

#[test]
fn egraph_sizes_of_every_example() {
    let rules = RuleSet::defaults();
    let cfg = SatConfig::default();
    let mut table = format!(
        "e-graph size after saturating each example with the core rules\n(limits: {} iterations, {} e-nodes; default inner factors; only the program's own lengths are split)\n\n",
        cfg.limits.iterations, cfg.limits.nodes
    );
    table.push_str(&format!(
        "{:<50} {:>6} {:>5} {:>8} {:>9}  {}\n",
        "program", "nodes", "iter", "e-nodes", "e-classes", "stop"
    ));
    let mut files = Vec::new();
    for dir in [
        "examples",
        "examples/seed",
        "examples/small",
        "examples/derivations",
    ] {
        files.extend(seq_files(dir));
    }
    for f in files {
        let p = match load_program(&f) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        let sat = saturate_program(&p, &rules, &cfg);
        let r = &sat.report;
        assert_eq!(
            r.stop,
            Stop::Saturated,
            "{} did not saturate: {}",
            f.display(),
            r.text()
        );
        table.push_str(&format!(
            "{:<50} {:>6} {:>5} {:>8} {:>9}  {}\n",
            f.display().to_string(),
            p.reachable().len(),
            r.iterations,
            r.nodes,
            r.classes,
            r.stop
        ));
    }
    settings().bind(|| insta::assert_snapshot!("egraph_sizes", table));
}
