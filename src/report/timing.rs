//! The report's timing columns (`tessera report --fmax`): every design's modelled clock,
//! its clock measured by place-and-route ([`crate::rtl::fmax`]), its throughput in pixels
//! per second, Aetherling's own RTL measured the same way
//! (`../shared/data/aetherling_rtl_measured.csv`), and how well the delay model predicts
//! the measured clock.

use super::stats::spearman;
use super::{AppReport, Report};
use crate::rtl::fmax::{harness, measure, FmaxOptions, FmaxReport, DOES_NOT_FIT};
use crate::rtl::{emit_with, RtlOptions};
use crate::st::Design;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Aetherling's generated Verilog of one app and slowdown, measured with our flow.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AetherlingRtl {
    /// Yosys xc7 LUTs and flip-flops, when measured.
    pub xc7_lut_ff: Option<u64>,
    /// nextpnr-ice40 Fmax (MHz).
    pub fmax_mhz: f64,
    /// iCE40 logic cells, the harness included.
    pub logic_cells: u64,
}

/// `aetherling_rtl_measured.csv`, by (app, slowdown).
#[derive(Clone, Debug, Default)]
pub struct AetherlingRtlTable {
    /// The file read.
    pub source: PathBuf,
    rows: BTreeMap<(String, u64), AetherlingRtl>,
}

/// The default measured-RTL file, beside the paper's.
pub fn default_csv() -> PathBuf {
    super::repo_root().join("../shared/data/aetherling_rtl_measured.csv")
}

impl AetherlingRtlTable {
    /// Reads `app,slowdown,xc7_lut,xc7_ff,ice40_fmax_mhz,ice40_lc` rows (the header names
    /// the columns; rows without an iCE40 measurement are skipped).
    pub fn load(path: &Path) -> Result<AetherlingRtlTable, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let mut lines = text.lines();
        let head: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
        let col = |name: &str| {
            head.iter()
                .position(|h| h.trim() == name)
                .ok_or_else(|| format!("{}: no column `{name}`", path.display()))
        };
        let (app, s, lut, ff, fmax, lc) = (
            col("app")?,
            col("slowdown")?,
            col("xc7_lut")?,
            col("xc7_ff")?,
            col("ice40_fmax_mhz")?,
            col("ice40_lc")?,
        );
        let mut rows = BTreeMap::new();
        for (k, line) in lines.enumerate() {
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            let get = |i: usize| f.get(i).copied().unwrap_or("");
            let bad = || format!("{}:{}: cannot read `{line}`", path.display(), k + 2);
            let slowdown: u64 = get(s).parse().map_err(|_| bad())?;
            let (Ok(fmax_mhz), Ok(logic_cells)) = (get(fmax).parse::<f64>(), get(lc).parse())
            else {
                continue;
            };
            let xc7 = match (get(lut).parse::<u64>(), get(ff).parse::<u64>()) {
                (Ok(l), Ok(f)) => Some(l + f),
                _ => None,
            };
            rows.insert(
                (get(app).to_string(), slowdown),
                AetherlingRtl {
                    xc7_lut_ff: xc7,
                    fmax_mhz,
                    logic_cells,
                },
            );
        }
        Ok(AetherlingRtlTable {
            source: path.to_path_buf(),
            rows,
        })
    }

    /// The measurement of `app` at slowdown `s`.
    pub fn get(&self, app: &str, s: u64) -> Option<AetherlingRtl> {
        self.rows.get(&(app.to_string(), s)).copied()
    }
}

/// Places and routes every design (equal designs once, one nextpnr per core) and returns
/// each design's result.
pub fn measure_all(
    designs: &[&Design],
    progress: &crate::util::progress::Reporter,
    cache: Option<&super::cache::MeasureCache>,
) -> Vec<Result<FmaxReport, String>> {
    super::per_design(designs, "nextpnr-ice40", progress, |d, dir| {
        let rtl = emit_with(d, &RtlOptions::default())?;
        let opts = FmaxOptions::default();
        super::cache::measure_through(
            cache,
            // synth_ice40 runs first.
            &["yosys", "nextpnr-ice40"],
            &[&harness(&rtl), &format!("{opts:?}")],
            |e| e.starts_with(DOES_NOT_FIT),
            || measure(&rtl, dir, &opts),
        )
    })
}

/// How well the delay model predicts place-and-route.
#[derive(Clone, Debug, Serialize)]
pub struct TimingCalibration {
    /// Designs with both a modelled and a measured clock.
    pub designs: usize,
    /// Spearman rank correlation of modelled against measured Fmax.
    pub spearman: Option<f64>,
    /// Median of |model - measured| / measured.
    pub median_error: Option<f64>,
    /// The largest such error.
    pub max_error: Option<f64>,
}

/// The calibration over every design of the report that was placed and routed.
pub fn calibrate(r: &Report) -> TimingCalibration {
    calibrate_designs(
        r.apps
            .iter()
            .flat_map(|a| &a.rows)
            .flat_map(|row| [&row.egraph, &row.baseline])
            .flatten(),
    )
}

/// The calibration over those of `designs` with both a modelled and a measured clock.
pub fn calibrate_designs<'a>(
    designs: impl IntoIterator<Item = &'a super::DesignResult>,
) -> TimingCalibration {
    let mut model = Vec::new();
    let mut measured = Vec::new();
    for d in designs {
        if let (Some(m), Some(f)) = (d.model_mhz, d.fmax.as_ref()) {
            model.push(m);
            measured.push(f.fmax_mhz);
        }
    }
    let mut errors: Vec<f64> = model
        .iter()
        .zip(&measured)
        .map(|(m, f)| (m - f).abs() / f)
        .collect();
    errors.sort_by(f64::total_cmp);
    TimingCalibration {
        designs: model.len(),
        spearman: spearman(&model, &measured),
        median_error: (!errors.is_empty()).then(|| errors[errors.len() / 2]),
        max_error: errors.last().copied(),
    }
}

/// A design's modelled and measured clock, `model/measured` (`error` when place-and-route
/// failed, `-` when not run).
pub fn clock_cell(d: &super::DesignResult) -> String {
    let model = d.model_mhz.map_or("-".into(), |m| format!("{m:.0}"));
    let meas = match (&d.fmax, &d.fmax_error) {
        (Some(f), _) => format!("{:.1}", f.fmax_mhz),
        (None, Some(_)) => "error".into(),
        _ => "-".into(),
    };
    format!("{model}/{meas}")
}

/// The timing table of one app: per slowdown, each scheduler's modelled and measured clock,
/// logic cells and throughput, and Aetherling's measured RTL.
pub fn app_table(app: &AppReport) -> super::format::Table {
    let head = [
        "s",
        "px/clk",
        "e-graph MHz model/measured",
        "e-graph LC",
        "e-graph Mpx/s",
        "baseline MHz model/measured",
        "baseline LC",
        "Aetherling RTL MHz",
        "Aetherling RTL LC",
        "clock vs Aetherling",
        "LC vs Aetherling",
        "xc7 LUT+FF vs Aetherling",
    ]
    .map(String::from)
    .to_vec();
    let rows = app
        .rows
        .iter()
        .map(|r| {
            let px_per_clock = app.atoms as f64 / r.slowdown as f64;
            let clocks =
                |d: &Option<super::DesignResult>| d.as_ref().map_or(String::new(), clock_cell);
            let lc = |d: &Option<super::DesignResult>| {
                d.as_ref()
                    .and_then(|d| d.fmax.as_ref())
                    .map_or(String::new(), |f| f.logic_cells.to_string())
            };
            let ours = r.egraph.as_ref().and_then(|d| d.fmax.as_ref());
            let a = r.aetherling_rtl;
            vec![
                r.slowdown.to_string(),
                r.throughput.clone(),
                clocks(&r.egraph),
                lc(&r.egraph),
                ours.map_or(String::new(), |f| {
                    format!("{:.1}", f.fmax_mhz * px_per_clock)
                }),
                clocks(&r.baseline),
                lc(&r.baseline),
                a.map_or(String::new(), |a| format!("{:.1}", a.fmax_mhz)),
                a.map_or(String::new(), |a| a.logic_cells.to_string()),
                match (ours, a) {
                    (Some(f), Some(a)) => format!("{:.2}x", f.fmax_mhz / a.fmax_mhz),
                    _ => String::new(),
                },
                match (ours, a) {
                    (Some(f), Some(a)) => {
                        format!("{:.2}x", f.logic_cells as f64 / a.logic_cells as f64)
                    }
                    _ => String::new(),
                },
                match (
                    r.egraph.as_ref().and_then(|d| d.yosys.as_ref()),
                    a.and_then(|a| a.xc7_lut_ff),
                ) {
                    (Some(y), Some(theirs)) => {
                        // counted as the CSV counts Aetherling's (logic + LUTRAM + SRL and
                        // flip-flops), without the INV cells, shown beside
                        let inv = match y.inv {
                            0 => String::new(),
                            n => format!(" (+{n} INV)"),
                        };
                        format!(
                            "{}{inv} / {theirs} = {:.2}x",
                            y.lut_ff() - y.inv,
                            (y.lut_ff() - y.inv) as f64 / theirs as f64
                        )
                    }
                    _ => String::new(),
                },
            ]
        })
        .collect();
    super::format::Table { head, rows }
}

/// The calibration as one line.
pub fn calibration_line(c: &TimingCalibration) -> String {
    let pct = |x: Option<f64>| x.map_or("undefined".into(), |v| format!("{:.1}%", v * 100.0));
    format!(
        "delay model vs nextpnr-ice40 over {} designs: Spearman {}, median error {}, largest {}",
        c.designs,
        c.spearman.map_or("undefined".into(), |v| format!("{v:.3}")),
        pct(c.median_error),
        pct(c.max_error)
    )
}
