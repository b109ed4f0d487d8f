//! `tessera schedule`: a program and a slowdown to a space-time design.

use super::CliResult;
use crate::schedule::slowdown::{default_slowdowns, max_slowdown};
use crate::schedule::{aetherling, egraph};
use crate::seq::{load_program, Program};
use crate::st::area::{area, Weights};
use crate::st::latency::design_latency;
use crate::st::pipeline::{baseline_at, Clock};
use crate::st::text::parse_layout;
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
    /// the first consumer of a shared value fixes its layout, reshapes where types
    /// disagree; at a clock, a register after every operator, as its RTL has.
    Aetherling,
}

/// The design `strategy` chooses for `p` at slowdown `s`, latency-matched.
pub fn design_for(
    p: &Program,
    s: u64,
    strategy: Strategy,
    clock: Option<&Clock>,
) -> Result<Design, String> {
    match strategy {
        Strategy::Aetherling => {
            aetherling::schedule(p, s).and_then(|g| baseline_at(g.design, clock))
        }
        Strategy::Egraph => egraph::schedule(
            p,
            s,
            &egraph::Options {
                clock: clock.cloned(),
                ..egraph::Options::default()
            },
        )
        .map(|g| g.design),
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
    explanation: Option<egraph::explain::Explanation>,
    burst: Option<egraph::Burst>,
    slowdown: u64,
    name: &'static str,
    summary: String,
    json: serde_json::Value,
}

/// What `tessera schedule` is asked for.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    /// The least-area design at this slowdown.
    Slowdown(u64),
    /// The fastest design (least slowdown among the default slowdowns) whose model area
    /// is at most this.
    MaxArea(f64),
    /// The default slowdown whose least-area design minimizes the objective.
    Objective(Objective),
}

/// An objective that weighs area against slowdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Objective {
    /// Model area times slowdown (area x clocks per frame: the hardware-time one frame
    /// occupies); ties go to the faster design.
    AreaTime,
    /// Model area per pixel per second: area x slowdown / the design's modelled clock (the
    /// clock counts, so a design that runs faster per clock but at a slower clock can
    /// lose); ties go to the faster design.
    AreaPerThroughput,
}

/// The options of `tessera schedule`.
#[derive(Clone, Debug)]
pub struct ScheduleArgs<'a> {
    /// What to schedule for.
    pub target: Target,
    /// Which scheduler.
    pub strategy: Strategy,
    /// Write the design here instead of printing it.
    pub out: Option<&'a Path>,
    /// Exact extraction (ILP).
    pub exact: bool,
    /// CBC's time limit per candidate output layout.
    pub exact_seconds: f64,
    /// JSON output.
    pub json: bool,
    /// Add the derivation from the program to the design.
    pub explain: bool,
    /// Pin the output layout (text, as in .st files).
    pub output_layout: Option<&'a str>,
    /// Try faster designs run in bursts.
    pub burst: bool,
    /// The clock to pipeline for.
    pub clock: Option<Clock>,
    /// Where the scheduler's phases are reported.
    pub progress: crate::util::progress::Reporter,
}

fn got_egraph(g: egraph::Scheduled, s: u64) -> Got {
    let burst = g
        .burst
        .map_or(String::new(), |b| format!("; {}", b.describe()));
    Got {
        summary: format!(
            "e-graph {} e-nodes / {} e-classes, stream graph {} nodes / {} classes{}, {} of {} roots built{burst}",
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
            "burst": g.burst,
        }),
        design: g.design,
        explanation: g.explanation,
        burst: g.burst,
        slowdown: s,
        name: "egraph",
    }
}

fn got_baseline(b: aetherling::BaselineDesign, s: u64) -> Got {
    Got {
        summary: format!(
            "{} of {} output layouts scheduled",
            b.candidates_ok, b.candidates_tried
        ),
        json: serde_json::json!({"tried": b.candidates_tried, "scheduled": b.candidates_ok}),
        design: b.design,
        explanation: None,
        burst: None,
        slowdown: s,
        name: "aetherling",
    }
}

/// Every default slowdown's design with its model area, for `--max-area` and `--objective`.
fn all_designs(p: &Program, a: &ScheduleArgs, o: &egraph::Options) -> Vec<(u64, f64, Got)> {
    let slowdowns = default_slowdowns(p);
    match a.strategy {
        Strategy::Egraph => egraph::explore_designs(p, &slowdowns, o)
            .into_iter()
            .filter_map(|(s, r)| r.ok().map(|g| (s, g.area, got_egraph(g, s))))
            .collect(),
        Strategy::Aetherling => {
            crate::util::par::par_map(&slowdowns, |s| aetherling::schedule(p, *s).ok())
                .into_iter()
                .zip(&slowdowns)
                .filter_map(|(b, s)| b.map(|b| (*s, b.area, got_baseline(b, *s))))
                .collect()
        }
    }
}

/// Picks the design `target` asks for among `all` (ascending slowdown).
fn pick(all: Vec<(u64, f64, Got)>, target: Target, clock: Option<&Clock>) -> Result<Got, String> {
    let smallest = all
        .iter()
        .min_by(|x, y| x.1.total_cmp(&y.1))
        .map(|(s, a, _)| (*s, *a));
    let chosen = match target {
        Target::Slowdown(_) => unreachable!("a slowdown is scheduled directly"),
        Target::MaxArea(max) => all.into_iter().find(|(_, a, _)| *a <= max + 1e-9),
        Target::Objective(Objective::AreaTime) => all.into_iter().min_by(|x, y| {
            (x.1 * x.0 as f64)
                .total_cmp(&(y.1 * y.0 as f64))
                .then(x.0.cmp(&y.0))
        }),
        Target::Objective(Objective::AreaPerThroughput) => {
            // each design's modelled clock once, on the clock target's device
            let t = Clock::device(clock);
            let per_throughput: Vec<f64> = all
                .iter()
                .map(|(s, a, g)| {
                    let mhz = crate::st::pipeline::critical_path(&g.design, &t)
                        .map_or(f64::MIN_POSITIVE, |c| c.mhz);
                    a * *s as f64 / mhz
                })
                .collect();
            all.into_iter()
                .zip(per_throughput)
                .min_by(|(x, px), (y, py)| px.total_cmp(py).then(x.0.cmp(&y.0)))
                .map(|(x, _)| x)
        }
    };
    chosen
        .map(|(_, _, g)| g)
        .ok_or_else(|| match (target, smallest) {
            (Target::MaxArea(max), Some((s, a))) => {
                format!("no design fits area {max}: the smallest has area {a:.1} (slowdown {s})")
            }
            _ => "no default slowdown can be scheduled".to_string(),
        })
}

/// `tessera schedule FILE.seq (--slowdown S | --max-area A | --objective O) [..]`.
pub fn schedule(file: &Path, a: &ScheduleArgs) -> CliResult {
    super::args::seconds("--exact-seconds", a.exact_seconds)?;
    let p = load_program(file)?;
    if a.exact && a.strategy != Strategy::Egraph {
        return Err("--exact applies to the egraph strategy only".into());
    }
    if a.output_layout.is_some() && a.strategy != Strategy::Egraph {
        return Err("--output-layout applies to the egraph strategy only".into());
    }
    if a.explain && a.strategy != Strategy::Egraph {
        return Err("--explain applies to the egraph strategy only".into());
    }
    if !a.burst && a.strategy != Strategy::Egraph {
        return Err("--no-burst applies to the egraph strategy only".into());
    }
    let output = match a.output_layout {
        Some(text) => Some(parse_layout("--output-layout", text)?),
        None => None,
    };
    let o = egraph::Options {
        exact: a.exact,
        exact_seconds: a.exact_seconds,
        burst: a.burst,
        explain: a.explain,
        output,
        clock: a.clock.clone(),
        progress: a.progress.clone(),
        ..egraph::Options::default()
    };
    let got = match a.target {
        Target::Slowdown(0) => return Err("the slowdown is a number of clocks: at least 1".into()),
        Target::Slowdown(slowdown) => {
            a.progress.begin(&format!("schedule {} at slowdown {slowdown}", p.name), 0);
            let got = match a.strategy {
                Strategy::Aetherling => aetherling::schedule(&p, slowdown).and_then(|b| {
                    let mut got = got_baseline(b, slowdown);
                    got.design = baseline_at(got.design, a.clock.as_ref())?;
                    Ok(got)
                }),
                Strategy::Egraph => {
                    egraph::schedule(&p, slowdown, &o).map(|g| got_egraph(g, slowdown))
                }
            };
            a.progress.end();
            got
        }
        .map_err(|e| {
            if o.output.is_some() {
                return format!("{}: {e}", file.display());
            }
            if e.contains(crate::st::pipeline::TOO_SLOW) {
                return format!(
                    "{}: {e}\nask for a clock the operators allow with --clock-mhz (without it, an operator slower than the default clock limits the clock instead)",
                    file.display()
                );
            }
            if a.strategy == Strategy::Egraph && aetherling::schedule(&p, slowdown).is_ok() {
                return format!(
                    "{}: {e}\nAetherling's algorithm meets slowdown {slowdown} \
                     (`--strategy aetherling`)",
                    file.display()
                );
            }
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
            format!("{}: {e}{hint}", file.display())
        })?,
        Target::MaxArea(max) if !(max >= 0.0 && max.is_finite()) => {
            return Err(format!("--max-area must be a non-negative number, not {max}").into())
        }
        target => {
            pick(all_designs(&p, a, &o), target, a.clock.as_ref()).map_err(|e| format!("{}: {e}", file.display()))?
        }
    };
    let (slowdown, json, out) = (got.slowdown, a.json, a.out);
    let explained = match &got.explanation {
        Some(e) if a.explain => Some(Explained::new(&p, e, got.burst)),
        _ => None,
    };
    let d = &got.design;
    let report = area(d);
    let latency = design_latency(d)?;
    let target = Clock::device(a.clock.as_ref());
    let timing = crate::st::pipeline::critical_path(d, &target)?;
    let design_text = d.to_text();
    let mut text = design_text.clone();
    if let Some(e) = &explained {
        // `;` comments: the file with its explanation still reads back as a design.
        text.push_str(&e.text());
    }
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
            "clock": {
                "target": target.name,
                "asked_mhz": a.clock.as_ref().map(|c| c.mhz),
                "model_mhz": timing.mhz,
                "critical_path": timing.ops,
            },
            "area": {
                "logic": report.total.logic,
                "ff_bits": report.total.ff_bits,
                "ram_bits": report.total.ram_bits,
                "dsp": report.total.dsp,
                "scalar": report.total.scalar(&Weights::default()),
            },
            "candidates": got.json,
            "design": if out.is_some() { serde_json::Value::Null } else { design_text.into() },
            "explanation": explained.as_ref().map(Explained::json),
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(0);
    }
    if out.is_none() {
        print!("{text}");
    }
    let clock = &a.clock;
    let a = &report.total;
    eprintln!(
        "; {} at slowdown {slowdown} ({} strategy): output {}, latency {latency}, clock {:.1} MHz modelled on {}{}, area {:.1} (logic {}, ff {} bits, ram {} bits, dsp {}); {}",
        p.name,
        got.name,
        d.output_layout(),
        timing.mhz,
        target.name,
        match clock {
            // one operator ("add alone"), or the path of several that no register splits
            Some(c) if timing.mhz < c.mhz - 1e-6 => match timing.ops.as_slice() {
                [] => format!(" (below the {} MHz target)", c.mhz),
                [op] => format!(" (below the {} MHz target: {op} alone allows no more)", c.mhz),
                ops => format!(
                    " (below the {} MHz target: the path {} allows no more)",
                    c.mhz,
                    ops.join(" -> ")
                ),
            },
            Some(c) => format!(" (target {} MHz)", c.mhz),
            None => " (not pipelined)".to_string(),
        },
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
/// looking among the divisors of the fully sequential slowdown and a few neighbours of `s`;
/// for a slowdown beyond the largest a design may take, the largest multiple of the fully
/// sequential slowdown within it. Candidates are tried with Aetherling's scheduler, which
/// refuses an unusable slowdown at once, so this costs the same for any `s`.
fn nearest_feasible(p: &Program, s: u64) -> Vec<u64> {
    let most = crate::st::layout::MAX_SIZE;
    let m = max_slowdown(p);
    if s > most && m <= most && aetherling::schedule(p, m).is_ok() {
        // The fully sequential design run in bursts meets every multiple of its clocks;
        // scheduling the largest one to prove it would cost as much as any huge slowdown.
        return vec![most / m * m];
    }
    let mut candidates = default_slowdowns(p);
    candidates.extend((s.saturating_sub(8).max(1)..=s.saturating_add(8)).filter(|c| *c <= most));
    candidates.push(m);
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

/// `tessera explore FILE.seq [--slowdowns LIST | --max-slowdown N] [--json]`; `baseline`:
/// the baseline column, with its step budget (`None` in it: no limit).
pub fn explore(
    file: &Path,
    list: Option<&str>,
    max: Option<u64>,
    baseline: Option<Option<u64>>,
    json: bool,
    clock: Option<Clock>,
    progress: crate::util::progress::Reporter,
) -> CliResult {
    let p = load_program(file)?;
    if list.is_some_and(|l| l.split(',').all(|x| x.trim().is_empty())) {
        return Err("--slowdowns: give at least one slowdown, e.g. --slowdowns 4,8,16".into());
    }
    let mut slowdowns = slowdown_list(&p, None, list, list.is_none())?;
    if let Some(m) = max {
        // the list is sorted and not empty
        let least = slowdowns[0];
        slowdowns.retain(|s| *s <= m);
        if slowdowns.is_empty() {
            return Err(format!(
                "--max-slowdown {m} leaves no slowdown to explore: the least is {least}"
            )
            .into());
        }
    }
    let o = egraph::Options {
        baseline: baseline.is_some(),
        baseline_steps: baseline.flatten(),
        clock,
        progress,
        ..egraph::Options::default()
    };
    let rows = egraph::explore(&p, &slowdowns, &o);
    if json {
        let doc = serde_json::json!({"program": p.name, "rows": rows});
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(0);
    }
    println!(
        "{:>9} {:>10} {:>10} {:>16} {:>7} {:>7} {:>8} {:>10} {:>14}  {:<8} input -> output",
        "slowdown",
        "throughput",
        "area",
        "baseline",
        "pareto",
        "MHz",
        "Mpx/s",
        "e-graph",
        "stream graph",
        "vector"
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
            "{:>9} {:>10.3} {:>10} {:>16} {:>7} {:>7} {:>8} {:>10} {:>14}  {:<8} {} -> {}{}",
            r.slowdown,
            r.throughput,
            fmt(r.area),
            baseline_cell(r),
            if r.pareto { "*" } else { "" },
            fmt(r.clock_mhz),
            r.mpx_per_s.map_or("-".to_string(), |a| format!("{a:.2}")),
            format!("{}n/{}c", r.seq_nodes, r.seq_classes),
            format!("{}n/{}c", r.egraph_nodes, r.egraph_classes),
            vector,
            r.inputs.join(", "),
            r.output,
            match (&r.error, r.burst) {
                (Some(e), _) => format!("  ({})", one_line(e)),
                (None, Some(b)) => format!("  ({})", b.describe()),
                (None, None) => String::new(),
            } + if r.truncated && r.error.is_none() {
                "  (search truncated)"
            } else {
                ""
            },
        );
    }
    print!("{EXPLORE_LEGEND}");
    Ok(0)
}

/// The baseline's area, with its modelled clock when that is below the e-graph design's
/// (one of its operators caps it): its area is then not at the same clock.
fn baseline_cell(r: &egraph::Row) -> String {
    match (r.baseline, r.baseline_clock_mhz, r.clock_mhz) {
        (None, ..) if r.baseline_over_budget => "over budget".to_string(),
        (None, ..) => "-".to_string(),
        (Some(a), Some(b), Some(c)) if b < c - 0.05 => format!("{a:.1} @{b:.0}MHz"),
        (Some(a), ..) => format!("{a:.1}"),
    }
}

/// What explore's columns mean, printed under the table (`--json` has the same fields by
/// name).
const EXPLORE_LEGEND: &str = "
slowdown      clocks per frame; throughput = output atoms per clock
area          model area of the e-graph scheduler's design (docs/area-model.md), pipelined
              for the clock; baseline = Aetherling's algorithm, a register after every operator,
              with its modelled clock (@) where that is below the e-graph design's, or
              \"over budget\" where it lowered more nodes than --baseline-steps allows
pareto        * where no other row is at least as fast and at most as large (one strictly)
MHz, Mpx/s    the design's modelled clock on the target device (docs/timing.md) and output
              atoms (pixels) per microsecond at that clock
e-graph       the saturated program's e-nodes (n) / e-classes (c)
stream graph  nodes (n) / classes (c) of the graph of layouts the extraction chose from
vector        the area's parts: l LUT-equivalent logic, ff flip-flop bits, ram RAM bits,
              dsp multipliers
input/output  the layouts of the design's ports (tseq: over clocks, sseq: lanes in space)
truncated     the stream graph reached its node bound before every class was lowered: a
              smaller design may exist outside the part searched (JSON: \"truncated\")
";

/// The `--explain` part of `tessera schedule`: the derivation and the lowering.
struct Explained {
    derivation: Result<crate::egraph::prove::Derivation, String>,
    term: String,
    lowering: Vec<String>,
    burst: Option<egraph::Burst>,
}

impl Explained {
    fn new(p: &Program, e: &egraph::explain::Explanation, burst: Option<egraph::Burst>) -> Self {
        Explained {
            derivation: egraph::derivation(p, &e.term),
            term: e.term.pretty(90),
            lowering: e.lowering.clone(),
            burst,
        }
    }

    /// As `;` comment lines, so the printed design stays a valid .st file.
    fn text(&self) -> String {
        let mut s =
            String::from(";\n; Explanation\n;\n; The design implements the sequence term\n");
        for l in self.term.lines() {
            s.push_str(&format!(";   {l}\n"));
        }
        match &self.derivation {
            Ok(d) => {
                s.push_str(&format!(
                    ";\n; Derivation from the program ({} rewrite steps):\n",
                    d.steps.len().saturating_sub(1)
                ));
                for l in d.text(90).lines() {
                    s.push_str(&format!(";   {l}\n"));
                }
            }
            Err(e) => s.push_str(&format!(";\n; Derivation: {e}\n")),
        }
        s.push_str(";\n; Lowering (term in layout <- space-time operator), outermost first:\n");
        for l in &self.lowering {
            s.push_str(&format!(";   {l}\n"));
        }
        if let Some(b) = self.burst.filter(|b| b.stalled_to.is_some()) {
            s.push_str(&format!(
                ";\n; Then {}: held {} of every {} clocks by a clock enable (the same hardware plus its counter).\n",
                b.describe(),
                b.stalled_to.unwrap_or(b.from) - b.from,
                b.stalled_to.unwrap_or(b.from),
            ));
        } else if let Some(b) = self.burst {
            s.push_str(&format!(
                ";\n; Then run in bursts: the design of slowdown {} mapped by map_t 1 {} (the same hardware, idle {} of every {} periods).\n",
                b.from,
                b.factor - 1,
                b.factor - 1,
                b.factor
            ));
        }
        s
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "term": self.term,
            "derivation": match &self.derivation {
                Ok(d) => d.json(),
                Err(e) => serde_json::json!({"error": e}),
            },
            "lowering": self.lowering,
            "burst": self.burst,
        })
    }
}

/// A multi-line scheduler error on one table row: the first line, the first per-layout
/// reason and the notes (lines in parentheses); `tessera schedule` prints them all.
fn one_line(e: &str) -> String {
    let mut lines = e.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("").trim_end_matches(':');
    let (notes, reasons): (Vec<&str>, Vec<&str>) =
        lines.partition(|l| l.starts_with('(') && l.ends_with(')'));
    let mut parts = Vec::new();
    if let Some(r) = reasons.first() {
        parts.push(r.to_string());
    }
    if reasons.len() > 1 {
        parts.push(format!("{} more layouts", reasons.len() - 1));
    }
    parts.extend(notes.iter().map(|n| n.to_string()));
    if parts.is_empty() {
        first.to_string()
    } else {
        format!("{first}: {}", parts.join("; "))
    }
}
