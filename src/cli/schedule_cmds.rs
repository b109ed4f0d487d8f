//! `tessera schedule`: a program and a slowdown to a space-time design.

use super::CliResult;
use crate::schedule::slowdown::{default_slowdowns, max_slowdown};
use crate::schedule::{aetherling, egraph};
use crate::seq::{load_program, Program};
use crate::st::area::{area, Weights};
use crate::st::latency::design_latency;
use crate::st::Design;
use std::path::Path;

/// Which scheduler builds the design.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Strategy {
    /// Tessera's e-graph scheduler: saturate with the sequence algebra, lower every e-class
    /// in every candidate layout into a stream graph, extract the least model area (DAG-aware,
    /// each input in one layout; output layouts compared with their FIFOs).
    Egraph,
    /// Aetherling's algorithm (PLDI 2020): enumerate output layouts, lower back to front,
    /// the first consumer of a shared value fixes its layout, reshapes where types disagree.
    Aetherling,
}

/// The design `strategy` chooses for `p` at slowdown `s`, latency-matched.
pub fn design_for(p: &Program, s: u64, strategy: Strategy) -> Result<Design, String> {
    match strategy {
        Strategy::Aetherling => aetherling::schedule(p, s).map(|g| g.design),
        Strategy::Egraph => egraph::schedule(p, s, &egraph::Options::default()).map(|g| g.design),
    }
}

/// The slowdowns a command should cover: one, a list, or every default slowdown.
pub fn slowdown_list(
    p: &Program,
    one: Option<u64>,
    list: Option<&str>,
    all: bool,
) -> Result<Vec<u64>, String> {
    let mut out = Vec::new();
    if let Some(s) = one {
        out.push(s);
    }
    if let Some(text) = list {
        for part in text.split(',').map(str::trim).filter(|x| !x.is_empty()) {
            let s: u64 = part
                .parse()
                .map_err(|_| format!("--slowdowns: `{part}` is not a whole number"))?;
            out.push(s);
        }
    }
    if all {
        out.extend(default_slowdowns(p));
    }
    if out.is_empty() {
        return Err("say which slowdowns: --slowdown S, --slowdowns LIST or --all".into());
    }
    if out.contains(&0) {
        return Err("a slowdown is a number of clocks: at least 1".into());
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// What a strategy returns, for printing.
struct Got {
    design: crate::st::Design,
    name: &'static str,
    summary: String,
    json: serde_json::Value,
}

/// `tessera schedule FILE.seq --slowdown S [--strategy ..] [--exact] [-o DESIGN.st] [--json]`.
pub fn schedule(
    file: &Path,
    slowdown: u64,
    strategy: Strategy,
    out: Option<&Path>,
    exact: bool,
    json: bool,
) -> CliResult {
    let p = load_program(file)?;
    if exact && strategy != Strategy::Egraph {
        return Err("--exact applies to the egraph strategy only".into());
    }
    if slowdown == 0 {
        return Err("the slowdown is a number of clocks: at least 1".into());
    }
    let got = match strategy {
        Strategy::Aetherling => aetherling::schedule(&p, slowdown).map(|b| Got {
            design: b.design,
            name: "aetherling",
            summary: format!(
                "{} of {} output layouts scheduled",
                b.candidates_ok, b.candidates_tried
            ),
            json: serde_json::json!({"tried": b.candidates_tried, "scheduled": b.candidates_ok}),
        }),
        Strategy::Egraph => egraph::schedule(
            &p,
            slowdown,
            &egraph::Options {
                exact,
                ..egraph::Options::default()
            },
        ).map(|g| {
            Got {
                summary: format!(
                    "e-graph {} e-nodes / {} e-classes, stream graph {} nodes / {} classes{}, {} of {} roots built",
                    g.seq_nodes,
                    g.seq_classes,
                    g.egraph_nodes,
                    g.egraph_classes,
                    if g.truncated { " (truncated)" } else { "" },
                    g.roots_ok,
                    g.roots_tried
                ),
                json: serde_json::json!({
                    "tried": g.roots_tried,
                    "scheduled": g.roots_ok,
                    "egraph": {"nodes": g.seq_nodes, "classes": g.seq_classes},
                    "stream_graph": {"nodes": g.egraph_nodes, "classes": g.egraph_classes, "truncated": g.truncated},
                }),
                design: g.design,
                name: "egraph",
            }
        }),
    };
    let got = match got {
        Ok(got) => got,
        Err(e) => {
            let near = nearest_feasible(&p, slowdown);
            let hint = if near.is_empty() {
                String::new()
            } else {
                format!(
                    "\nslowdowns near {slowdown} that can be met: {}",
                    near.iter()
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            return Err(format!("{}: {e}{hint}", file.display()).into());
        }
    };
    let d = &got.design;
    let report = area(d);
    let latency = design_latency(d)?;
    let text = d.to_text();
    if let Some(path) = out {
        std::fs::write(path, &text)
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    if json {
        let inputs: serde_json::Map<String, serde_json::Value> = d
            .inputs
            .iter()
            .map(|i| (i.name.clone(), i.layout.to_string().into()))
            .collect();
        let doc = serde_json::json!({
            "program": p.name,
            "strategy": got.name,
            "slowdown": slowdown,
            "inputs": inputs,
            "output": d.output_layout().to_string(),
            "latency": latency,
            "area": {
                "logic": report.total.logic,
                "ff_bits": report.total.ff_bits,
                "ram_bits": report.total.ram_bits,
                "dsp": report.total.dsp,
                "scalar": report.total.scalar(&Weights::default()),
            },
            "candidates": got.json,
            "design": if out.is_some() { serde_json::Value::Null } else { text.clone().into() },
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(0);
    }
    if out.is_none() {
        print!("{text}");
    }
    let a = &report.total;
    eprintln!(
        "; {} at slowdown {slowdown} ({} strategy): output {}, latency {latency}, area {:.1} (logic {}, ff {} bits, ram {} bits, dsp {}); {}",
        p.name,
        got.name,
        d.output_layout(),
        a.scalar(&Weights::default()),
        a.logic,
        a.ff_bits,
        a.ram_bits,
        a.dsp,
        got.summary
    );
    Ok(0)
}

/// Up to one slowdown below and one above `s` that the scheduler can meet, nearest first,
/// looking among the divisors of the fully sequential slowdown and a few neighbours of `s`.
fn nearest_feasible(p: &Program, s: u64) -> Vec<u64> {
    let mut candidates = default_slowdowns(p);
    candidates.extend(s.saturating_sub(8).max(1)..=s + 8);
    candidates.push(max_slowdown(p));
    candidates.sort_by_key(|c| (c.abs_diff(s), *c));
    candidates.dedup();
    let (mut below, mut above) = (None, None);
    for c in candidates {
        if c == s || (c < s && below.is_some()) || (c > s && above.is_some()) {
            continue;
        }
        if aetherling::schedule(p, c).is_ok() {
            if c < s {
                below = Some(c);
            } else {
                above = Some(c);
            }
        }
        if below.is_some() && above.is_some() {
            break;
        }
    }
    below.into_iter().chain(above).collect()
}

/// `tessera explore FILE.seq [--slowdowns LIST | --max-slowdown N] [--json]`.
pub fn explore(file: &Path, list: Option<&str>, max: Option<u64>, json: bool) -> CliResult {
    let p = load_program(file)?;
    let mut slowdowns = slowdown_list(&p, None, list, list.is_none())?;
    if let Some(m) = max {
        slowdowns.retain(|s| *s <= m);
    }
    let rows = egraph::explore(&p, &slowdowns, &egraph::Options::default());
    if json {
        let doc = serde_json::json!({"program": p.name, "rows": rows});
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(0);
    }
    println!(
        "{:>9} {:>10} {:>10} {:>10} {:>7} {:>14}  {:<8} input -> output",
        "slowdown", "throughput", "area", "baseline", "pareto", "stream graph", "vector"
    );
    for r in &rows {
        let fmt = |a: Option<f64>| a.map_or("-".to_string(), |a| format!("{a:.1}"));
        let vector = r.area_vec.map_or("-".to_string(), |a| {
            format!(
                "l{}/ff{}/ram{}/dsp{}",
                a.logic, a.ff_bits, a.ram_bits, a.dsp
            )
        });
        println!(
            "{:>9} {:>10.3} {:>10} {:>10} {:>7} {:>14}  {:<8} {} -> {}{}",
            r.slowdown,
            r.throughput,
            fmt(r.area),
            fmt(r.baseline),
            if r.pareto { "*" } else { "" },
            format!("{}n/{}c", r.egraph_nodes, r.egraph_classes),
            vector,
            r.inputs.join(", "),
            r.output,
            r.error.as_ref().map_or(String::new(), |e| format!(
                "  ({})",
                e.lines().next().unwrap_or("")
            )),
        );
    }
    Ok(0)
}
