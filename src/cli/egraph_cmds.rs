//! `tessera rules`, `tessera prove` and `tessera saturate`: the e-graph layer's commands.

use super::CliResult;
use crate::egraph::conditions::FactorPolicy;
use crate::egraph::prove::{program_factors, prove};
use crate::egraph::rules::RuleSet;
use crate::egraph::saturate::{saturate_program, Limits, SatConfig};
use crate::egraph::soundness::{check_rules, CheckConfig};
use crate::seq::load_program;
use std::path::{Path, PathBuf};

/// Options shared by the commands that saturate.
#[derive(Clone, Debug, Default)]
pub struct SatOptions {
    /// `--rules DIR`.
    pub rules: Option<PathBuf>,
    /// `--factors LIST|all`.
    pub factors: Option<String>,
    /// `--sets LIST`.
    pub sets: Option<String>,
    /// `--iter-limit N`.
    pub iter_limit: Option<usize>,
    /// `--node-limit N`.
    pub node_limit: Option<usize>,
    /// `--time-limit SECONDS`.
    pub time_limit: Option<f64>,
}

fn load_rules(dir: Option<&Path>) -> Result<RuleSet, Box<dyn std::error::Error>> {
    Ok(match dir {
        Some(d) => RuleSet::load_dir(d)?,
        None => RuleSet::defaults(),
    })
}

fn parse_factors(text: &str) -> Result<FactorPolicy, String> {
    if text == "all" {
        return Ok(FactorPolicy::all());
    }
    let nums: Result<Vec<u64>, _> = text.split(',').map(|s| s.trim().parse::<u64>()).collect();
    match nums {
        Ok(v) if !v.is_empty() && v.iter().all(|n| *n >= 2) => Ok(FactorPolicy::inner(v)),
        _ => Err(format!(
            "--factors: expected `all` or a comma-separated list of inner factors of at least 2 (like 2,4), found `{text}`"
        )),
    }
}

/// The configuration the options ask for, with `d`'s limits where they give none.
fn config(
    o: &SatOptions,
    rules: &RuleSet,
    d: Limits,
    base: SatConfig,
) -> Result<(SatConfig, bool), String> {
    let mut cfg = SatConfig {
        limits: Limits {
            iterations: o.iter_limit.unwrap_or(d.iterations),
            nodes: o.node_limit.unwrap_or(d.nodes),
            time: o
                .time_limit
                .map(|s| super::args::seconds("--time-limit", s))
                .transpose()?,
        },
        ..base
    };
    let explicit = o.factors.is_some();
    if let Some(f) = &o.factors {
        cfg.factors = parse_factors(f)?;
    }
    if let Some(s) = &o.sets {
        let sets: Vec<String> = s.split(',').map(|x| x.trim().to_string()).collect();
        let known = rules.set_names();
        if let Some(bad) = sets.iter().find(|x| !known.contains(x)) {
            return Err(format!(
                "--sets: no rule is in set `{bad}` (sets present: {})",
                known.join(", ")
            ));
        }
        cfg.sets = sets;
    }
    Ok((cfg, explicit))
}

/// `tessera rules [--check] [--json] [--rules DIR] [--seed N]`.
pub fn rules(dir: Option<&Path>, check: bool, json: bool, seed: u64) -> CliResult {
    let rules = load_rules(dir)?;
    let checks = check.then(|| {
        check_rules(
            &rules,
            &CheckConfig {
                seed,
                ..CheckConfig::default()
            },
        )
    });
    let failed = checks.as_ref().is_some_and(|c| c.iter().any(|r| !r.ok()));
    if json {
        let list: Vec<serde_json::Value> = rules
            .rules
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let mut o = serde_json::json!({
                    "name": r.name,
                    "sets": r.sets,
                    "file": r.file,
                    "lhs": r.lhs_text(),
                    "rhs": r.rhs_text(),
                    "where": r.where_text(),
                    "split": r.split_group,
                    "seed": r.seed,
                    "doc": r.doc,
                });
                if let Some(c) = checks.as_ref().map(|c| &c[k]) {
                    o["check"] = serde_json::json!({
                        "ok": c.ok(),
                        "instances": c.instances,
                        "runs": c.evaluations,
                        "failure": c.failure,
                    });
                }
                o
            })
            .collect();
        let doc = serde_json::json!({ "origin": rules.origin, "rules": list });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else if let Some(checks) = &checks {
        for c in checks {
            println!("{}", c.line());
        }
        let bad = checks.iter().filter(|c| !c.ok()).count();
        println!(
            "{} rule(s) checked, {} failed (seed {seed}; rules: {})",
            checks.len(),
            bad,
            rules.origin
        );
    } else {
        print!("{}", rules.listing());
    }
    Ok(if failed { 1 } else { 0 })
}

/// `tessera rules --lower [--json]`: the lowering rules.
pub fn lower_rules(json: bool) -> CliResult {
    let rules = crate::schedule::lower::rules();
    if json {
        let list: Vec<serde_json::Value> = rules
            .rules
            .iter()
            .map(|r| {
                serde_json::json!({
                    "name": r.name,
                    "op": r.head.name(),
                    "file": r.file,
                    "doc": r.doc,
                    "clauses": r.text,
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "rules": list }))?
        );
    } else {
        print!("{}", rules.listing());
    }
    Ok(0)
}

/// `tessera prove A.seq B.seq [--explain] [--json] [--stats] ...`.
pub fn prove_cmd(
    a: &Path,
    b: &Path,
    explain: bool,
    json: bool,
    stats: bool,
    o: &SatOptions,
) -> CliResult {
    let pa = load_program(a)?;
    let pb = load_program(b)?;
    let rules = load_rules(o.rules.as_deref())?;
    // A proof needs room to meet: prove keeps the runner's own, larger defaults.
    let (mut cfg, explicit) = config(o, &rules, Limits::default(), SatConfig::for_proof())?;
    if explicit {
        let lengths = crate::egraph::prove::sequence_lengths(&[&pa, &pb]);
        cfg.factors = cfg.factors.with_lengths(lengths);
    } else {
        cfg.factors = program_factors(&[&pa, &pb]);
    }
    let out = prove(&pa, &pb, &rules, &cfg, explain)
        .map_err(|e| format!("{} and {}: {e}", a.display(), b.display()))?;
    if json {
        let mut doc = serde_json::json!({
            "lhs": a.display().to_string(),
            "rhs": b.display().to_string(),
            "proven": out.proven,
            "stats": out.report.json(),
        });
        if let Some(d) = &out.derivation {
            doc["derivation"] = d.json();
        }
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        if out.proven {
            println!("proven: {} = {}", a.display(), b.display());
        } else {
            println!(
                "not proven: {} and {} are not equal under the rules ({})",
                a.display(),
                b.display(),
                out.report.stop
            );
        }
        if stats {
            print!("{}", out.report.text());
        }
        if let Some(d) = &out.derivation {
            println!("derivation ({} steps):", d.steps.len() - 1);
            print!("{}", d.text(100));
        }
    }
    Ok(if out.proven { 0 } else { 1 })
}

/// `tessera saturate FILE.seq [--stats] [--json] ...`.
pub fn saturate_cmd(file: &Path, json: bool, stats: bool, o: &SatOptions) -> CliResult {
    let p = load_program(file)?;
    let rules = load_rules(o.rules.as_deref())?;
    // The scheduler's phase-1 limits by default, so `saturate` shows the e-graph the
    // scheduler works on.
    let phase1 = crate::schedule::egraph::Options::default().phase1;
    let (cfg, _) = config(o, &rules, phase1.clone(), SatConfig::default())?;
    let sat = saturate_program(&p, &rules, &cfg);
    let r = &sat.report;
    let l = &cfg.limits;
    let scheduler =
        l.iterations == phase1.iterations && l.nodes == phase1.nodes && l.time.is_none();
    let limits = format!(
        "limits: {} iterations, {} e-nodes, {}{}",
        l.iterations,
        l.nodes,
        l.time.map_or("no time limit".to_string(), |t| format!(
            "{} s",
            t.as_secs_f64()
        )),
        if scheduler {
            ", the scheduler's phase 1"
        } else {
            ""
        }
    );
    if json {
        let mut doc = r.json();
        doc["limits"] = serde_json::json!({
            "iterations": l.iterations,
            "enodes": l.nodes,
            "seconds": l.time.map(|t| t.as_secs_f64()),
            "scheduler_phase1": scheduler,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else if stats {
        print!("{}", r.text());
        println!("{limits}");
    } else {
        println!(
            "{}: {} after {} iterations: {} e-nodes, {} e-classes ({limits})",
            file.display(),
            r.stop,
            r.iterations,
            r.nodes,
            r.classes
        );
    }
    Ok(if r.stop.is_limit() { 1 } else { 0 })
}
