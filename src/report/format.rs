//! The report as a plain text table, markdown or JSON. Only the columns named `ms` hold
//! measurements that change from run to run; they come last in every table.

use super::calibration::Calibration;
use super::stats::PairAgreement;
use super::{AppReport, DesignResult, Report, Row};
use crate::rtl::synth::SynthReport;
use crate::st::area::Weights;

/// A table of strings: a header and rows, numbers right-aligned.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Column titles.
    pub head: Vec<String>,
    /// Cells, one vector per row, as long as `head`.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Columns padded to their widest cell (the first left-aligned, the others right-aligned),
    /// separated by two spaces.
    pub fn text(&self) -> String {
        let widths: Vec<usize> = (0..self.head.len())
            .map(|c| {
                std::iter::once(&self.head)
                    .chain(&self.rows)
                    .map(|r| r.get(c).map_or(0, |x| x.chars().count()))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for r in std::iter::once(&self.head).chain(&self.rows) {
            let cells: Vec<String> = widths
                .iter()
                .enumerate()
                .map(|(c, w)| {
                    let x = r.get(c).map_or("", String::as_str);
                    if c == 0 {
                        format!("{x:<w$}")
                    } else {
                        format!("{x:>w$}")
                    }
                })
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
        }
        out
    }

    /// A GitHub markdown table: the first column left-aligned, the others right-aligned.
    pub fn markdown(&self) -> String {
        let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
        let mut out = line(&self.head);
        let rest = self.head.len().saturating_sub(1);
        out.push_str(&format!("|---|{}\n", "---:|".repeat(rest)));
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }
}

/// What each column of an app's table means (markdown bullets), for the top of
/// `docs/results.md`.
pub const COLUMNS: &str = "\
- **s**: the slowdown, clocks per whole input (1 = fully parallel); **px/clk**: output atoms per \
clock. The small apps use the paper's slowdowns (`../shared/reference/benchmarks.md` §2, §6).
- **e-graph**: the model area (`st::area`, scalar in LUT equivalents, `docs/area-model.md`) of \
Tessera's e-graph scheduler at the slowdown, with bursts from the app's other slowdowns (the \
design `tessera explore --slowdowns` gives); `*` marks the Pareto rows of the app, `burst F×K` a \
design of slowdown F run once every K periods, `stall F→E×K` a design of slowdown F held to E \
clocks per period by a clock enable, then run once every K periods.
- **vector**: the same design's model vector: logic / flip-flop bits / RAM bits / DSPs.
- **baseline**: the model area of Aetherling's algorithm (`--strategy aetherling`); \
**vs baseline**: e-graph area / baseline area − 1.
- **phase 1**: the saturated sequence e-graph, e-nodes n / e-classes c; **stream graph**: \
the scheduling graph of the slowdown, nodes / classes (`docs/scheduling.md`).
- **… LUT/FF/BRAM/DSP** (with `--yosys`): Yosys `synth_xilinx -family xc7 -flatten` of the \
design's Verilog: LUTs (logic LUTs + inverters + LUTRAM + SRL), flip-flops, block RAM in 36 Kb equivalents, \
DSP48s.
- **paper LUT/FF/BRAM36/BRAM18/DSP**: the published Vivado place-and-route figures of \
Aetherling at the same slowdown (`../shared/data/aetherling_results.csv`, system \
`aetherling`; empty where the paper has no row: the 4x4 apps are not in it).
- **e-graph ms**, **baseline ms**: wall-clock scheduling time of one `schedule` call \
(measured; the only columns that change between runs). The e-graph scheduler's calls of \
one app share their work, as `explore` does: the phase-1 e-graph is saturated in the \
app's first row, and a faster design an earlier row already scheduled is reused.
";

const TIMING_COLUMNS: &str = "
Timing tables (with `--fmax`): **MHz model/measured** is the clock the delay model gives the \
design's critical path (`tessera check`) and the clock nextpnr-ice40 achieved with the design \
in a register harness (`tessera fmax`: `synth_ice40`, `nextpnr-ice40 --hx8k --package ct256 \
--seed 1`); **LC** the iCE40 logic cells used, the harness's flip-flops included; **Mpx/s** \
pixels per clock times the measured clock; **Aetherling RTL** Aetherling's own generated \
Verilog measured with the same flow (`../shared/data/aetherling_rtl_measured.csv`), and our \
e-graph design's clock and cells as a fraction of it; **xc7 LUT+FF** counts both designs as \
that file does, logic LUTs, LUTRAM and SRL plus flip-flops: Yosys's `INV` cells, which the \
Yosys columns above count as LUTs, are left out on both sides, and ours are shown beside \
(`+n INV`).
";

fn area_cell(d: &Option<DesignResult>, err: &Option<String>) -> String {
    match (d, err) {
        (Some(d), _) => format!("{:.1}", d.area),
        (None, Some(_)) => "error".into(),
        _ => String::new(),
    }
}

fn yosys_cell(d: &Option<DesignResult>) -> String {
    match d {
        Some(DesignResult { yosys: Some(y), .. }) => yosys_text(y),
        Some(DesignResult {
            yosys_error: Some(_),
            ..
        }) => "error".into(),
        _ => String::new(),
    }
}

fn yosys_text(y: &SynthReport) -> String {
    format!("{}/{}/{}/{}", y.luts(), y.ff, y.bram36(), y.dsp)
}

fn row_cells(r: &Row, yosys: bool) -> Vec<String> {
    let mut mark = String::new();
    if r.pareto {
        mark.push('*');
    }
    if let Some(b) = r.burst {
        match b.stalled_to {
            None => mark.push_str(&format!(" burst {}×{}", b.from, b.factor)),
            Some(e) => mark.push_str(&format!(" stall {}→{e}×{}", b.from, b.factor)),
        }
    }
    let vs = match (&r.egraph, &r.baseline) {
        (Some(g), Some(b)) if b.area > 0.0 => format!("{:+.1}%", (g.area / b.area - 1.0) * 100.0),
        _ => String::new(),
    };
    let mut cells = vec![
        r.slowdown.to_string(),
        r.throughput.clone(),
        area_cell(&r.egraph, &r.egraph_error),
        mark.trim().to_string(),
        r.egraph.as_ref().map_or(String::new(), |g| {
            let a = g.area_vec;
            format!("{}/{}/{}/{}", a.logic, a.ff_bits, a.ram_bits, a.dsp)
        }),
        area_cell(&r.baseline, &r.baseline_error),
        vs,
        format!("{}n/{}c", r.seq_nodes, r.seq_classes),
        format!("{}n/{}c", r.stream_nodes, r.stream_classes),
    ];
    if yosys {
        cells.push(yosys_cell(&r.egraph));
        cells.push(yosys_cell(&r.baseline));
    }
    cells.push(r.paper.map_or(String::new(), |p| {
        format!("{}/{}/{}/{}/{}", p.luts, p.ffs, p.bram36, p.bram18, p.dsp)
    }));
    cells.push(format!("{:.0}", r.egraph_ms));
    cells.push(format!("{:.0}", r.baseline_ms));
    cells
}

/// The table of one app.
pub fn app_table(app: &AppReport, yosys: bool) -> Table {
    let mut head: Vec<String> = [
        "s",
        "px/clk",
        "e-graph",
        "",
        "vector",
        "baseline",
        "vs baseline",
        "phase 1",
        "stream graph",
    ]
    .map(String::from)
    .to_vec();
    if yosys {
        head.push("e-graph LUT/FF/BRAM/DSP".into());
        head.push("baseline LUT/FF/BRAM/DSP".into());
    }
    head.push("paper LUT/FF/BRAM36/BRAM18/DSP".into());
    head.push("e-graph ms".into());
    head.push("baseline ms".into());
    Table {
        head,
        rows: app.rows.iter().map(|r| row_cells(r, yosys)).collect(),
    }
}

/// Errors and remarks of an app, one line each.
fn app_notes(app: &AppReport) -> Vec<String> {
    let mut notes = app.notes.clone();
    for r in &app.rows {
        let first = |e: &String| e.lines().next().unwrap_or("").to_string();
        for (who, e) in [
            ("e-graph", &r.egraph_error),
            ("baseline", &r.baseline_error),
        ] {
            if let Some(e) = e {
                notes.push(format!("s={}: {who} scheduler: {}", r.slowdown, first(e)));
            }
        }
        for (who, d) in [("e-graph", &r.egraph), ("baseline", &r.baseline)] {
            if let Some(e) = d.as_ref().and_then(|d| d.yosys_error.as_ref()) {
                notes.push(format!(
                    "s={}: yosys on the {who} design: {}",
                    r.slowdown,
                    first(e)
                ));
            }
            if let Some(e) = d.as_ref().and_then(|d| d.fmax_error.as_ref()) {
                notes.push(format!(
                    "s={}: place-and-route of the {who} design: {}",
                    r.slowdown,
                    first(e)
                ));
            }
        }
    }
    notes
}

/// One line per app: how the e-graph scheduler compares with the baseline.
pub fn summary_table(r: &Report, yosys: bool) -> Table {
    let mut head: Vec<String> = ["app", "slowdowns", "e-graph < baseline", "model area sum"]
        .map(String::from)
        .to_vec();
    if yosys {
        head.push("Yosys LUT+FF smaller".into());
        head.push("Yosys LUT+FF sum".into());
    }
    head.push("e-graph ms".into());
    head.push("baseline ms".into());
    let mut rows = Vec::new();
    for app in &r.apps {
        let both: Vec<(&DesignResult, &DesignResult)> = app
            .rows
            .iter()
            .filter_map(|r| Some((r.egraph.as_ref()?, r.baseline.as_ref()?)))
            .collect();
        let better = both.iter().filter(|(g, b)| g.area < b.area - 1e-9).count();
        let (sg, sb) = both
            .iter()
            .fold((0.0, 0.0), |(x, y), (g, b)| (x + g.area, y + b.area));
        let mut cells = vec![
            app.name.clone(),
            app.rows.len().to_string(),
            format!("{better} of {}", both.len()),
            format!("{sg:.1} vs {sb:.1}"),
        ];
        if yosys {
            let synth: Vec<(u64, u64)> = both
                .iter()
                .filter_map(|(g, b)| Some((g.yosys.as_ref()?.lut_ff(), b.yosys.as_ref()?.lut_ff())))
                .collect();
            let smaller = synth.iter().filter(|(g, b)| g < b).count();
            let larger = synth.iter().filter(|(g, b)| g > b).count();
            cells.push(format!("{smaller} of {} ({larger} larger)", synth.len()));
            let (g, b) = synth.iter().fold((0, 0), |(x, y), (g, b)| (x + g, y + b));
            cells.push(format!("{g} vs {b}"));
        }
        let ms = |f: fn(&Row) -> f64| app.rows.iter().map(f).sum::<f64>();
        cells.push(format!("{:.0}", ms(|r| r.egraph_ms)));
        cells.push(format!("{:.0}", ms(|r| r.baseline_ms)));
        rows.push(cells);
    }
    Table { head, rows }
}

fn rho(x: Option<f64>) -> String {
    x.map_or("undefined".into(), |v| format!("{v:.3}"))
}

fn pairs_text(p: &PairAgreement) -> String {
    format!(
        "{} agree, {} disagree, {} tied by the model only, {} tied by Yosys only, {} tied by both",
        p.agree, p.disagree, p.model_ties, p.reference_ties, p.both_tie
    )
}

fn weights_text(w: &Weights) -> String {
    format!(
        "logic {}, ff {}, ram {}, dsp {}",
        w.logic, w.ff_bit, w.ram_bit, w.dsp
    )
}

/// The calibration figures: a few lines, then a table of the weight sets compared.
pub fn calibration_lines(c: &Calibration) -> (Vec<String>, Table) {
    let lines = vec![
        format!(
            "designs synthesized: {} (both schedulers, every app and slowdown)",
            c.designs
        ),
        format!(
            "Spearman, model scalar ({}) vs Yosys LUT+FF: {}",
            weights_text(&c.fit.weights),
            rho(c.fit.scalar_lut_ff)
        ),
        format!(
            "e-graph vs baseline design of each app and slowdown, ordered by the model scalar and by Yosys LUT+FF: {}",
            pairs_text(&c.fit.pairs)
        ),
        format!(
            "Spearman, model ram_bits vs Yosys RAM bits (LUTRAM x64 + SRL x32 + BRAM): {}",
            rho(c.ram)
        ),
        format!(
            "Spearman, model logic vs Yosys LUTs: {}; model ff_bits vs Yosys FFs: {}",
            rho(c.logic_lut),
            rho(c.ff_ff)
        ),
    ];
    let mut t = Table {
        head: [
            "weights",
            "logic/ff/ram/dsp",
            "Spearman vs LUT+FF",
            "pairs agree",
            "disagree",
            "model ties",
            "Yosys ties",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for f in std::iter::once(&c.fit).chain(&c.alternatives) {
        let w = f.weights;
        t.rows.push(vec![
            f.name.clone(),
            format!("{}/{}/{}/{}", w.logic, w.ff_bit, w.ram_bit, w.dsp),
            rho(f.scalar_lut_ff),
            f.pairs.agree.to_string(),
            f.pairs.disagree.to_string(),
            f.pairs.model_ties.to_string(),
            (f.pairs.reference_ties + f.pairs.both_tie).to_string(),
        ]);
    }
    (lines, t)
}

fn yosys_in(r: &Report) -> bool {
    r.calibration.is_some()
}

/// The plain text report.
pub fn text(r: &Report) -> String {
    let y = yosys_in(r);
    let mut out = String::new();
    for app in &r.apps {
        out.push_str(&format!(
            "{} ({}, {} output atoms)\n",
            app.name, app.file, app.atoms
        ));
        out.push_str(&app_table(app, y).text());
        if r.timing.is_some() {
            out.push_str("timing (iCE40 HX8K, nextpnr-ice40, register harness)\n");
            out.push_str(&super::timing::app_table(app).text());
        }
        for n in app_notes(app) {
            out.push_str(&format!("  note: {n}\n"));
        }
        out.push('\n');
    }
    out.push_str("summary\n");
    out.push_str(&summary_table(r, y).text());
    if let Some(t) = &r.timing {
        out.push_str(&format!("\n{}\n", super::timing::calibration_line(t)));
    }
    if let Some(f) = &r.clock_front {
        out.push('\n');
        out.push_str(&super::clocks::text(f, r.timing.is_some()));
    }
    if let Some(c) = &r.calibration {
        out.push_str("\ncalibration\n");
        let (lines, table) = calibration_lines(c);
        for l in lines {
            out.push_str(&format!("  {l}\n"));
        }
        out.push_str(&table.text());
    }
    for n in &r.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    out
}

/// The markdown report: the columns explained, one table per app (with its plot when
/// `plots` names the folder of the SVGs, relative to the markdown file), a summary and the
/// calibration.
pub fn markdown(r: &Report, plots: Option<&str>) -> String {
    let y = yosys_in(r);
    let mut out = String::from("## Columns\n\n");
    out.push_str(COLUMNS);
    out.push_str(&match r.clock_mhz {
        Some(c) => format!("\nDesigns are pipelined for a clock of {c} MHz on the iCE40 HX8K (`--clock-mhz`); the baseline's have a register after every operator, as Aetherling's RTL does.\n"),
        None => "\nDesigns are not pipelined (`--clock-mhz 0`).\n".to_string(),
    });
    if r.timing.is_some() {
        out.push_str(TIMING_COLUMNS);
    }
    if let Some(src) = &r.paper_source {
        out.push_str(&format!("\nPaper figures read from `{src}`.\n"));
    }
    for app in &r.apps {
        out.push_str(&format!(
            "\n## {}\n\n`{}`, {} output atoms per input.\n\n",
            app.name, app.file, app.atoms
        ));
        if let Some(dir) = plots {
            out.push_str(&format!("![{0}]({dir}/{0}.svg)\n\n", app.name));
        }
        out.push_str(&app_table(app, y).markdown());
        if r.timing.is_some() {
            out.push_str("\nTiming on the iCE40 HX8K (nextpnr-ice40, register harness):\n\n");
            out.push_str(&super::timing::app_table(app).markdown());
        }
        let notes = app_notes(app);
        if !notes.is_empty() {
            out.push('\n');
            for n in notes {
                out.push_str(&format!("- {n}\n"));
            }
        }
    }
    out.push_str("\n## Summary\n\n");
    out.push_str(&summary_table(r, y).markdown());
    if let Some(t) = &r.timing {
        out.push_str(&format!(
            "\n## Timing calibration\n\n{}.\n",
            super::timing::calibration_line(t)
        ));
    }
    if let Some(f) = &r.clock_front {
        out.push_str(&super::clocks::markdown(f, r.timing.is_some()));
    }
    if let Some(c) = &r.calibration {
        out.push_str("\n## Calibration\n\n");
        let (lines, table) = calibration_lines(c);
        for l in lines {
            out.push_str(&format!("- {l}\n"));
        }
        out.push_str("\nThe same designs ranked under other weights (`report::calibration::ALTERNATIVE_WEIGHTS`):\n\n");
        out.push_str(&table.markdown());
    }
    if !r.notes.is_empty() {
        out.push('\n');
        for n in &r.notes {
            out.push_str(&format!("- {n}\n"));
        }
    }
    out
}

/// The report as pretty JSON.
pub fn json(r: &Report) -> String {
    serde_json::to_string_pretty(r).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
