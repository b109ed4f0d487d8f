//! `tessera report`: the quality-of-results report ([`crate::report`]).

use super::CliResult;
use crate::report::paper::PaperTable;
use crate::report::{self, App, ReportOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The options of `tessera report`.
#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// Report every .seq file in DIR (may be repeated). Without --apps and --app: the
    /// paper's small apps, examples/{map,conv2d,conv2d_b2b,conv2d_b2b_3x3_repeat,sharpen}.seq.
    #[arg(long, value_name = "DIR")]
    apps: Vec<PathBuf>,
    /// Report this program (may be repeated; added after the --apps files).
    #[arg(long, value_name = "FILE.seq")]
    app: Vec<PathBuf>,
    /// Comma-separated slowdowns for every app, instead of the paper's (apps the paper does
    /// not have get every divisor of their fully sequential clock count).
    #[arg(long, value_name = "LIST")]
    slowdowns: Option<String>,
    /// Also synthesize both schedulers' designs with Yosys (synth_xilinx, xc7), print
    /// LUT/FF/BRAM/DSP and the rank correlation between the area model and synthesis.
    #[arg(long)]
    yosys: bool,
    /// Print as JSON.
    #[arg(long, conflicts_with = "md")]
    pub json: bool,
    /// Print as markdown: the columns explained, one table per app, a summary.
    #[arg(long)]
    md: bool,
    /// Write one SVG plot per app (area against throughput) into DIR. The markdown links
    /// them as <last component of DIR>/<app>.svg, so write it beside DIR.
    #[arg(long, value_name = "DIR")]
    svg_dir: Option<PathBuf>,
    /// The paper's results (CSV). Default: ../shared/data/aetherling_results.csv from the
    /// source tree; if that file is missing the paper columns stay empty, with a note.
    #[arg(long, value_name = "CSV")]
    paper: Option<PathBuf>,
    /// Stop Aetherling's baseline on one app and slowdown after SECS seconds (checked at
    /// every node it lowers); the row then has no baseline and a note says how many
    /// candidate output layouts it costed. Default: no limit (camera at 1/4 pixel per clock takes more than ten minutes).
    #[arg(long, value_name = "SECS")]
    baseline_budget: Option<f64>,
    /// Also place and route every design on the iCE40 HX8K (synth_ice40, nextpnr-ice40, in
    /// a register harness): measured Fmax, logic cells and pixels per second beside the
    /// modelled clock, Aetherling's own RTL measured the same way, and the delay model's
    /// calibration (rank correlation and median error).
    #[arg(long)]
    fmax: bool,
    /// Aetherling's RTL measured with our flow (CSV). Default:
    /// ../shared/data/aetherling_rtl_measured.csv from the source tree, if present.
    #[arg(long, value_name = "CSV")]
    aetherling_rtl: Option<PathBuf>,
    /// Also schedule every app for several clock targets (comma-separated MHz; `--clocks`
    /// alone: 150,200,225) and print the area front: each e-graph design's model area and
    /// flip-flop bits per clock (with --fmax also its measured clock and logic cells), and
    /// the check that no design for a lower clock has more register bits or more model area
    /// than the design for a higher one (docs/timing.md).
    #[arg(long, value_name = "LIST", num_args = 0..=1, default_missing_value = report::clocks::DEFAULT_CLOCKS)]
    clocks: Option<String>,
    /// Keep every Yosys and nextpnr result in DIR (created if missing) and reuse the ones
    /// already there: a design whose Verilog, tools and measuring code are unchanged is not
    /// synthesized or placed again, so a stopped report resumes where it was. A note of the
    /// report says how many results were reused.
    #[arg(long, value_name = "DIR")]
    measure_cache: Option<PathBuf>,
    #[command(flatten)]
    clock: super::ClockArgs,
}

impl ReportArgs {
    /// Every file and directory named on the command line.
    pub fn files(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self.apps.iter().chain(&self.app).cloned().collect();
        out.extend(
            self.paper
                .iter()
                .chain(&self.svg_dir)
                .chain(&self.aetherling_rtl)
                .cloned(),
        );
        out
    }
}

/// `tessera report`: schedules every app at its slowdowns with both schedulers and prints
/// the comparison.
pub fn report(a: &ReportArgs, progress: crate::util::progress::Reporter) -> CliResult {
    let slowdowns = a.slowdowns.as_deref().map(parse_slowdowns).transpose()?;
    let mut files = Vec::new();
    for dir in &a.apps {
        files.extend(report::app_files_in(dir)?);
    }
    files.extend(a.app.iter().cloned());
    if files.is_empty() {
        files = report::default_app_files();
    }
    let apps = files
        .iter()
        .map(|f| App::load(f, slowdowns.as_deref()))
        .collect::<Result<Vec<_>, _>>()?;
    let (paper, note) = load_paper(a.paper.as_deref())?;
    let baseline_budget = a
        .baseline_budget
        .map(|x| super::args::seconds("--baseline-budget", x))
        .transpose()?;
    let aetherling_rtl = match &a.aetherling_rtl {
        Some(p) => Some(report::timing::AetherlingRtlTable::load(p)?),
        None => {
            let p = report::timing::default_csv();
            p.exists()
                .then(|| report::timing::AetherlingRtlTable::load(&p))
                .transpose()?
        }
    };
    let clocks = a
        .clocks
        .as_deref()
        .map(report::clocks::parse_clocks)
        .transpose()?
        .unwrap_or_default();
    let measure_cache = a
        .measure_cache
        .as_deref()
        .map(report::cache::MeasureCache::open)
        .transpose()?
        .map(std::sync::Arc::new);
    let o = ReportOptions {
        measure_cache: measure_cache.clone(),
        clocks,
        yosys: a.yosys,
        paper,
        progress,
        baseline_budget,
        fmax: a.fmax,
        aetherling_rtl,
        schedule: crate::schedule::egraph::Options {
            clock: a.clock.clock()?,
            ..crate::schedule::egraph::Options::default()
        },
    };
    let mut r = report::run(&apps, &o)?;
    r.notes.extend(note);
    if let Some(c) = measure_cache.filter(|c| c.reused() + c.measured() > 0) {
        r.notes.push(format!(
            "{} of the {} Yosys and nextpnr-ice40 results were read from the measurement cache {} \
             (measured by an earlier run of the same Verilog with the same tools and measuring \
             code); {} were measured by this run",
            c.reused(),
            c.reused() + c.measured(),
            c.dir().display(),
            c.measured()
        ));
    }
    if let Some(dir) = &a.svg_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
        for app in &r.apps {
            let path = dir.join(format!("{}.svg", app.name));
            std::fs::write(&path, report::svg::plot(app))
                .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            eprintln!("report: wrote {}", path.display());
        }
    }
    let text = if a.json {
        report::format::json(&r) + "\n"
    } else if a.md {
        let plots = a
            .svg_dir
            .as_ref()
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned());
        report::format::markdown(&r, plots.as_deref())
    } else {
        report::format::text(&r)
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write the report: {e}").into())
        }
        _ => Ok(0),
    }
}

/// `1,2,4` as slowdowns.
fn parse_slowdowns(text: &str) -> Result<Vec<u64>, String> {
    let out = text
        .split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(|x| match x.parse::<u64>() {
            Ok(s) if s > 0 => Ok(s),
            _ => Err(format!(
                "--slowdowns: `{x}` is not a whole number of at least 1"
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if out.is_empty() {
        return Err("--slowdowns: the list is empty".into());
    }
    Ok(out)
}

/// The paper's table: `--paper` must be readable; the default may be missing (a note).
fn load_paper(path: Option<&Path>) -> Result<(Option<PaperTable>, Option<String>), String> {
    if let Some(p) = path {
        return Ok((Some(PaperTable::load(p)?), None));
    }
    let default = report::default_paper_csv();
    if !default.exists() {
        return Ok((
            None,
            Some(format!(
                "{} not found: the paper columns are empty (pass --paper CSV)",
                default.display()
            )),
        ));
    }
    let mut t = PaperTable::load(&default)?;
    t.source = PathBuf::from("../shared/data/aetherling_results.csv");
    Ok((Some(t), None))
}
