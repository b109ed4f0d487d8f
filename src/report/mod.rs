//! The quality-of-results report (`tessera report`, issue 7): for every app and slowdown,
//! the e-graph scheduler's design against Aetherling's, in model area, synthesis area
//! (Yosys `synth_xilinx`, optional), compile time and graph sizes, beside the paper's
//! published Vivado figures; and the rank correlation between the area model and synthesis
//! over every design of the report ([`calibration`]).
//!
//! [`run`] measures; [`format`] prints text, markdown or JSON; [`svg`] plots area against
//! throughput. Everything but the timing columns is deterministic.

pub mod cache;
pub mod calibration;
pub mod clocks;
pub mod format;
pub mod paper;
pub mod stats;
pub mod svg;
pub mod timing;

use crate::rtl::emit_with;
use crate::rtl::synth::{synth_rtl, SynthReport};
use crate::rtl::RtlOptions;
use crate::schedule::aetherling;
use crate::schedule::egraph::{self, Burst};
use crate::schedule::slowdown::default_slowdowns;
use crate::seq::{load_program, Program};
use crate::st::area::{area, Area, Weights};
use crate::st::Design;
use crate::util::par::par_map;
use paper::{PaperRow, PaperTable};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Slowdowns of the 4x4 apps: 16, 8, 4, 2, 1, 1/3 and 1/9 pixels per clock.
const SMALL: &[u64] = &[1, 2, 4, 8, 16, 48, 144];
/// Slowdowns of the 1920x1080 apps: 16, 8, 4, 2, 1 and 1/3 pixels per clock.
const BIG: &[u64] = &[129_600, 259_200, 518_400, 1_036_800, 2_073_600, 6_220_800];
/// Slowdowns of camera and demosaic: 16, 8, 4, 2, 1 and 1/4 pixels per clock.
const CAMERA: &[u64] = &[129_600, 259_200, 518_400, 1_036_800, 2_073_600, 8_294_400];

/// The paper's slowdowns (clocks per whole input) of each app
/// (`../shared/reference/benchmarks.md` §2, §3 and §8).
pub const PAPER_SLOWDOWNS: &[(&str, &[u64])] = &[
    ("map", &[1, 5, 10, 20, 25, 40, 50, 100, 200]),
    ("conv2d", SMALL),
    ("conv2d_b2b", SMALL),
    ("conv2d_b2b_3x3_repeat", SMALL),
    ("sharpen", SMALL),
    ("big_real_32_conv2d", BIG),
    ("big_real_32_conv2d_b2b", BIG),
    ("big_real_32_sharpen", BIG),
    ("big_32_conv2d", BIG),
    ("big_32_conv2d_b2b", BIG),
    ("big_32_sharpen", BIG),
    ("camera", CAMERA),
    ("demosaic", CAMERA),
];

/// The apps `tessera report` covers by default: the paper's small apps, in `examples/`.
pub const SMALL_APPS: [&str; 5] = [
    "map",
    "conv2d",
    "conv2d_b2b",
    "conv2d_b2b_3x3_repeat",
    "sharpen",
];

/// The paper's slowdowns of `app`, if it is one of the paper's apps.
pub fn paper_slowdowns(app: &str) -> Option<&'static [u64]> {
    PAPER_SLOWDOWNS
        .iter()
        .find(|(a, _)| *a == app)
        .map(|(_, s)| *s)
}

/// The source tree's root (where `Cargo.toml` is).
pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The default `--paper` file: `../shared/data/aetherling_results.csv` from the repo root.
pub fn default_paper_csv() -> PathBuf {
    repo_root().join("../shared/data/aetherling_results.csv")
}

/// The files of [`SMALL_APPS`].
pub fn default_app_files() -> Vec<PathBuf> {
    SMALL_APPS
        .iter()
        .map(|a| repo_root().join("examples").join(format!("{a}.seq")))
        .collect()
}

/// Every `.seq` file directly in `dir`, sorted by name; an error if there is none.
pub fn app_files_in(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("{}: cannot list: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "seq"))
        .collect();
    if files.is_empty() {
        return Err(format!(
            "{}: no .seq files in this directory",
            dir.display()
        ));
    }
    files.sort();
    Ok(files)
}

/// One app of the report: a program and the slowdowns to schedule it at.
#[derive(Clone, Debug)]
pub struct App {
    /// The program (its name is the app's name).
    pub program: Program,
    /// The file, relative to the repo root when it is inside it.
    pub file: String,
    /// Slowdowns, ascending.
    pub slowdowns: Vec<u64>,
}

impl App {
    /// Loads the program at `path`; `slowdowns` overrides the paper's (or, for apps not in
    /// [`PAPER_SLOWDOWNS`], [`default_slowdowns`]).
    pub fn load(path: &Path, slowdowns: Option<&[u64]>) -> Result<App, String> {
        let program = load_program(path).map_err(|e| e.to_string())?;
        let mut s: Vec<u64> = match slowdowns {
            Some(s) => s.to_vec(),
            None => paper_slowdowns(&program.name)
                .map(<[u64]>::to_vec)
                .unwrap_or_else(|| default_slowdowns(&program)),
        };
        s.sort_unstable();
        s.dedup();
        if s.is_empty() || s[0] == 0 {
            return Err("slowdowns must be whole numbers of at least 1".into());
        }
        let file = path
            .canonicalize()
            .ok()
            .and_then(|p| {
                let root = repo_root().canonicalize().ok()?;
                p.strip_prefix(root).ok().map(Path::to_path_buf)
            })
            .unwrap_or_else(|| path.to_path_buf());
        Ok(App {
            program,
            file: file.display().to_string(),
            slowdowns: s,
        })
    }
}

/// What [`run`] measures and with what.
#[derive(Clone, Debug, Default)]
pub struct ReportOptions {
    /// Synthesize every design with Yosys.
    pub yosys: bool,
    /// The e-graph scheduler's options (its weights are the report's).
    pub schedule: egraph::Options,
    /// The paper's figures, if read.
    pub paper: Option<PaperTable>,
    /// Where each app and slowdown scheduled, and each design synthesized or placed and
    /// routed, is reported; nowhere by default.
    pub progress: crate::util::progress::Reporter,
    /// Stop the baseline of one app and slowdown after this long (its row then says so);
    /// `None`: no limit.
    pub baseline_budget: Option<std::time::Duration>,
    /// Place and route every design (nextpnr-ice40) for its measured clock.
    pub fmax: bool,
    /// Aetherling's own RTL measured with the same flow, if read.
    pub aetherling_rtl: Option<timing::AetherlingRtlTable>,
    /// Clock targets (MHz, ascending) of the area front at several clocks
    /// ([`clocks`]); empty: no such section.
    pub clocks: Vec<f64>,
    /// Where earlier Yosys and nextpnr results are kept and reused; `None`: measure every
    /// design.
    pub measure_cache: Option<std::sync::Arc<cache::MeasureCache>>,
}

/// One design of a row: its model area and, with `--yosys`, its synthesis area.
#[derive(Clone, Debug, Serialize)]
pub struct DesignResult {
    /// Model area (scalar, the report's weights).
    pub area: f64,
    /// Model area vector.
    pub area_vec: Area,
    /// Synthesis area.
    pub yosys: Option<SynthReport>,
    /// Why synthesis failed.
    pub yosys_error: Option<String>,
    /// The clock its modelled critical path allows on the iCE40 HX8K (MHz).
    pub model_mhz: Option<f64>,
    /// Place-and-route, with `--fmax`.
    pub fmax: Option<crate::rtl::fmax::FmaxReport>,
    /// Why place-and-route failed.
    pub fmax_error: Option<String>,
}

impl DesignResult {
    /// Records a place-and-route result.
    fn set_fmax(&mut self, r: Result<crate::rtl::fmax::FmaxReport, String>) {
        match r {
            Ok(f) => self.fmax = Some(f),
            Err(e) => self.fmax_error = Some(e),
        }
    }
}

/// One slowdown of an app.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// Clocks per whole input.
    pub slowdown: u64,
    /// Output atoms per clock, as a reduced fraction (`16`, `1/3`).
    pub throughput: String,
    /// The e-graph scheduler's design.
    pub egraph: Option<DesignResult>,
    /// Why the e-graph scheduler found no design.
    pub egraph_error: Option<String>,
    /// Aetherling's (the baseline's) design.
    pub baseline: Option<DesignResult>,
    /// Why the baseline found no design.
    pub baseline_error: Option<String>,
    /// Phase-1 e-graph e-nodes.
    pub seq_nodes: usize,
    /// Phase-1 e-graph e-classes.
    pub seq_classes: usize,
    /// Stream-graph nodes.
    pub stream_nodes: usize,
    /// Stream-graph classes.
    pub stream_classes: usize,
    /// Set when the e-graph design is a faster slowdown's design run in bursts.
    pub burst: Option<Burst>,
    /// True if no other e-graph row of the app is at least as fast and as small.
    pub pareto: bool,
    /// The paper's Vivado figures for Aetherling at this slowdown.
    pub paper: Option<PaperRow>,
    /// Aetherling's own RTL at this slowdown, measured with our flow.
    pub aetherling_rtl: Option<timing::AetherlingRtl>,
    /// Wall-clock time of the e-graph scheduler, ms (measured: not deterministic).
    pub egraph_ms: f64,
    /// Wall-clock time of the baseline scheduler, ms (measured: not deterministic).
    pub baseline_ms: f64,
}

/// Every row of one app.
#[derive(Clone, Debug, Serialize)]
pub struct AppReport {
    /// The app (program) name.
    pub name: String,
    /// Its file.
    pub file: String,
    /// Output atoms per whole input.
    pub atoms: u64,
    /// One row per slowdown, ascending.
    pub rows: Vec<Row>,
    /// Remarks (e.g. no published figures).
    pub notes: Vec<String>,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// One entry per app, in the order given.
    pub apps: Vec<AppReport>,
    /// The weights of the model areas.
    pub weights: Weights,
    /// The paper's CSV, if read.
    pub paper_source: Option<String>,
    /// With synthesis: the rank correlations between model and synthesis.
    pub calibration: Option<calibration::Calibration>,
    /// With place-and-route: how well the delay model predicts the measured clock.
    pub timing: Option<timing::TimingCalibration>,
    /// The clock the designs were pipelined for (MHz), if any.
    pub clock_mhz: Option<f64>,
    /// With `--clocks`: the e-graph designs at several clock targets.
    pub clock_front: Option<clocks::ClockFront>,
    /// Remarks on the whole report.
    pub notes: Vec<String>,
}

/// `num/den` reduced, or a whole number.
pub fn fraction(num: u64, den: u64) -> String {
    let g = gcd(num, den).max(1);
    let (n, d) = (num / g, den / g);
    if d == 1 {
        n.to_string()
    } else {
        format!("{n}/{d}")
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn design_result(d: &Design, w: &Weights) -> DesignResult {
    let a = area(d).total;
    let t = crate::st::delay::Target::ice40_hx8k();
    DesignResult {
        area: a.scalar(w),
        area_vec: a,
        yosys: None,
        yosys_error: None,
        model_mhz: crate::st::pipeline::critical_path(d, &t)
            .ok()
            .map(|c| c.mhz),
        fmax: None,
        fmax_error: None,
    }
}

/// Schedules every app at each of its slowdowns with both schedulers, synthesizes the
/// designs with `--yosys`, and puts the paper's figures beside them. Errors only when
/// synthesis was asked for and Yosys is missing; a scheduler or synthesis failure is
/// recorded in its row.
pub fn run(apps: &[App], o: &ReportOptions) -> Result<Report, String> {
    if (o.yosys || o.fmax) && crate::rtl::tools::find_tool("yosys").is_none() {
        return Err("yosys not found on PATH; install it with apt-get install -y yosys".into());
    }
    if o.fmax && crate::rtl::tools::find_tool("nextpnr-ice40").is_none() {
        return Err(
            "nextpnr-ice40 not found on PATH; install it with apt-get install -y nextpnr-ice40"
                .into(),
        );
    }
    let w = o.schedule.weights;
    let mut reports = Vec::new();
    // Designs to synthesize: (app, row, true for the e-graph's) and the design.
    let mut jobs: Vec<((usize, usize, bool), Design)> = Vec::new();
    let rows_total: usize = apps.iter().map(|a| a.slowdowns.len()).sum();
    o.progress.begin("report: scheduling", rows_total as u64);
    for (ai, app) in apps.iter().enumerate() {
        let p = &app.program;
        let atoms = p.output_type().atoms();
        let mut rows = Vec::new();
        let mut memo = egraph::Memo::new();
        for (ri, &s) in app.slowdowns.iter().enumerate() {
            o.progress.phase(|| format!("{} at slowdown {s}", p.name));
            let t = Instant::now();
            // Bursts come from the app's other slowdowns, as in `explore`; those are
            // faster, so already scheduled (and their time counted in their own rows).
            let eg = egraph::schedule_among(p, s, &o.schedule, &app.slowdowns, &mut memo);
            let egraph_ms = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            let budget = aetherling::Budget {
                time: o.baseline_budget,
                steps: None,
            };
            let base = aetherling::schedule_within(p, s, budget);
            let baseline_ms = t.elapsed().as_secs_f64() * 1e3;
            let mut row = Row {
                slowdown: s,
                throughput: fraction(atoms, s),
                egraph: None,
                egraph_error: None,
                baseline: None,
                baseline_error: None,
                seq_nodes: 0,
                seq_classes: 0,
                stream_nodes: 0,
                stream_classes: 0,
                burst: None,
                pareto: false,
                paper: o
                    .paper
                    .as_ref()
                    .and_then(|t| t.get(paper::SYSTEM, &p.name, s)),
                aetherling_rtl: o.aetherling_rtl.as_ref().and_then(|t| t.get(&p.name, s)),
                egraph_ms,
                baseline_ms,
            };
            match eg {
                Ok(g) => {
                    row.egraph = Some(design_result(&g.design, &w));
                    (row.seq_nodes, row.seq_classes) = (g.seq_nodes, g.seq_classes);
                    (row.stream_nodes, row.stream_classes) = (g.egraph_nodes, g.egraph_classes);
                    row.burst = g.burst;
                    jobs.push(((ai, ri, true), g.design));
                }
                Err(e) => row.egraph_error = Some(e),
            }
            let base = base.and_then(|b| {
                crate::st::pipeline::baseline_at(b.design, o.schedule.clock.as_ref())
            });
            match base {
                Ok(b) => {
                    row.baseline = Some(design_result(&b, &w));
                    jobs.push(((ai, ri, false), b));
                }
                Err(e) => row.baseline_error = Some(e),
            }
            rows.push(row);
            o.progress.advance(|| format!("{} at slowdown {s}", p.name));
        }
        mark_pareto(&mut rows);
        reports.push(AppReport {
            name: p.name.clone(),
            file: app.file.clone(),
            atoms,
            notes: app_notes(&p.name, o.paper.as_ref()),
            rows,
        });
    }
    o.progress.end();
    let (mut front, front_jobs) = if o.clocks.is_empty() {
        (None, Vec::new())
    } else {
        let (f, d) = clocks::front(apps, &o.clocks, &o.schedule, &o.progress);
        (Some(f), d)
    };
    if o.fmax {
        // One pass over both sets: a design of the front equal to one of the rows' is
        // placed and routed once.
        let designs: Vec<&Design> = jobs
            .iter()
            .map(|(_, d)| d)
            .chain(front_jobs.iter().map(|(_, d)| d))
            .collect();
        let cache = o.measure_cache.as_deref();
        let mut results = timing::measure_all(&designs, &o.progress, cache).into_iter();
        for (((ai, ri, is_egraph), _), res) in jobs.iter().zip(results.by_ref()) {
            if let Some(slot) = slot(&mut reports, *ai, *ri, *is_egraph) {
                slot.set_fmax(res);
            }
        }
        if let Some(f) = front.as_mut() {
            for (((ai, ri, ci), _), res) in front_jobs.iter().zip(results) {
                if let Some(d) = f.apps[*ai].rows[*ri].points[*ci].design.as_mut() {
                    d.set_fmax(res);
                }
            }
            f.timing = Some(clocks::calibrate(f));
        }
    }
    if o.yosys {
        synthesize(&mut reports, jobs, &o.progress, o.measure_cache.as_deref());
    }
    let mut report = Report {
        apps: reports,
        weights: w,
        paper_source: o.paper.as_ref().map(|t| t.source.display().to_string()),
        calibration: None,
        timing: None,
        clock_mhz: o.schedule.clock.as_ref().map(|c| c.mhz),
        clock_front: front,
        notes: Vec::new(),
    };
    if o.yosys {
        report.calibration = Some(calibration::calibrate(&report));
    }
    if o.fmax {
        report.timing = Some(timing::calibrate(&report));
    }
    Ok(report)
}

fn app_notes(app: &str, paper: Option<&PaperTable>) -> Vec<String> {
    match paper {
        Some(t) if !t.has_app(paper::SYSTEM, app) => vec![format!(
            "the paper's CSV has no {} row for `{app}`, so its columns are empty",
            paper::SYSTEM
        )],
        _ => Vec::new(),
    }
}

/// Marks the rows whose e-graph design no other row beats in both slowdown and area.
fn mark_pareto(rows: &mut [Row]) {
    let points: Vec<(u64, f64)> = rows
        .iter()
        .filter_map(|r| r.egraph.as_ref().map(|g| (r.slowdown, g.area)))
        .collect();
    for r in rows.iter_mut() {
        if let Some(a) = r.egraph.as_ref().map(|g| g.area) {
            r.pareto = !points
                .iter()
                .any(|&(s, b)| s <= r.slowdown && b <= a && (s < r.slowdown || b < a));
        }
    }
}

/// The design result of one job: app `ai`, row `ri`, the e-graph's or the baseline's.
fn slot(
    reports: &mut [AppReport],
    ai: usize,
    ri: usize,
    is_egraph: bool,
) -> Option<&mut DesignResult> {
    let row = &mut reports[ai].rows[ri];
    if is_egraph {
        row.egraph.as_mut()
    } else {
        row.baseline.as_mut()
    }
}

/// Runs `tool` (`yosys`, `nextpnr-ice40`: a name for the progress reports) on every design
/// of `designs`, equal designs once and one design per core, each in a scratch directory of its
/// own, and returns each job's result.
pub(crate) fn per_design<R: Clone + Send>(
    designs: &[&Design],
    tool: &str,
    progress: &crate::util::progress::Reporter,
    f: impl Fn(&Design, &Path) -> Result<R, String> + Sync,
) -> Vec<Result<R, String>> {
    let mut unique: BTreeMap<String, usize> = BTreeMap::new();
    let mut distinct: Vec<&Design> = Vec::new();
    let which: Vec<usize> = designs
        .iter()
        .map(|d| {
            *unique.entry(d.to_text()).or_insert_with(|| {
                distinct.push(d);
                distinct.len() - 1
            })
        })
        .collect();
    let base = std::env::temp_dir().join(format!("tessera-report-{tool}-{}", std::process::id()));
    let numbered: Vec<(usize, &Design)> = distinct.into_iter().enumerate().collect();
    let total = numbered.len();
    progress.begin(&format!("report: {tool}"), total as u64);
    let results = par_map(&numbered, |(k, d)| {
        let dir = base.join(format!("{k}_{}", crate::rtl::netlist::ident(&d.name)));
        let r = f(d, &dir);
        let _ = std::fs::remove_dir_all(&dir);
        progress.advance(|| format!("{tool} {}", d.name));
        r
    });
    progress.end();
    let _ = std::fs::remove_dir_all(&base);
    which.into_iter().map(|k| results[k].clone()).collect()
}

/// Synthesizes every design (equal designs once, one Yosys per core) and stores the results
/// in their rows.
fn synthesize(
    reports: &mut [AppReport],
    jobs: Vec<((usize, usize, bool), Design)>,
    progress: &crate::util::progress::Reporter,
    cache: Option<&cache::MeasureCache>,
) {
    let designs: Vec<&Design> = jobs.iter().map(|(_, d)| d).collect();
    let results = per_design(&designs, "yosys", progress, |d, dir| {
        let rtl = emit_with(d, &RtlOptions::default())?;
        // The cell map is not in the report's JSON, so it is stored beside it.
        let (cells, mut rep) = cache::measure_through(
            cache,
            &["yosys"],
            &[&rtl.top, &rtl.verilog],
            |_| false,
            || synth_rtl(&rtl, dir).map(|r| (r.cells.clone(), r)),
        )?;
        rep.cells = cells;
        Ok(rep)
    });
    for (((ai, ri, is_egraph), _), r) in jobs.iter().zip(results) {
        if let Some(slot) = slot(reports, *ai, *ri, *is_egraph) {
            match r {
                Ok(y) => slot.yosys = Some(y),
                Err(e) => slot.yosys_error = Some(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_reduce() {
        assert_eq!(fraction(16, 48), "1/3");
        assert_eq!(fraction(16, 1), "16");
        assert_eq!(fraction(200, 25), "8");
        assert_eq!(fraction(2073600, 6220800), "1/3");
    }

    #[test]
    fn paper_table_is_ascending() {
        for (app, s) in PAPER_SLOWDOWNS {
            assert!(s.windows(2).all(|w| w[0] < w[1]), "{app}");
        }
        assert_eq!(paper_slowdowns("conv2d"), Some(SMALL));
        assert_eq!(paper_slowdowns("nope"), None);
    }
}
