//! `tessera schedule`: a program and a slowdown to a space-time design.

use super::CliResult;
use crate::schedule::aetherling;
use crate::schedule::slowdown::{default_slowdowns, max_slowdown};
use crate::seq::{load_program, Program};
use crate::st::area::{area, Weights};
use crate::st::latency::design_latency;
use crate::st::Design;
use std::path::Path;

/// Which scheduler builds the design.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Strategy {
    /// Aetherling's algorithm (PLDI 2020): enumerate output layouts, lower back to front,
    /// the first consumer of a shared value fixes its layout, reshapes where types disagree.
    Aetherling,
}

/// The design `strategy` chooses for `p` at slowdown `s`, latency-matched.
pub fn design_for(p: &Program, s: u64, strategy: Strategy) -> Result<Design, String> {
    match strategy {
        Strategy::Aetherling => aetherling::schedule(p, s).map(|g| g.design),
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

/// `tessera schedule FILE.seq --slowdown S [--strategy ..] [-o DESIGN.st] [--json]`.
pub fn schedule(
    file: &Path,
    slowdown: u64,
    strategy: Strategy,
    out: Option<&Path>,
    json: bool,
) -> CliResult {
    let p = load_program(file)?;
    if slowdown == 0 {
        return Err("the slowdown is a number of clocks: at least 1".into());
    }
    let Strategy::Aetherling = strategy;
    let got = match aetherling::schedule(&p, slowdown) {
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
            "strategy": "aetherling",
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
            "candidates": {"tried": got.candidates_tried, "scheduled": got.candidates_ok},
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
        "; {} at slowdown {slowdown} (aetherling strategy): output {}, latency {latency}, area {:.1} (logic {}, ff {} bits, ram {} bits, dsp {}); {} of {} output layouts scheduled",
        p.name,
        d.output_layout(),
        a.scalar(&Weights::default()),
        a.logic,
        a.ff_bits,
        a.ram_bits,
        a.dsp,
        got.candidates_ok,
        got.candidates_tried
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
