//! How well the area model ranks designs the way synthesis does (issue 7, part 3): Spearman
//! rank correlations over every synthesized design of a report (both schedulers), and how
//! the model orders the two schedulers' designs of each app and slowdown. The same figures
//! are computed for [`ALTERNATIVE_WEIGHTS`] on the same designs, so every regenerated report
//! re-checks the choice of the default weights (`docs/area-model.md`, Calibration).

use super::stats::{spearman, PairAgreement};
use super::Report;
use crate::rtl::synth::SynthReport;
use crate::st::area::{Area, Weights};
use serde::Serialize;

/// Weight sets the calibration compares with the defaults, each with why it is a
/// candidate. The last one's ratios are the medians measured on the small apps' designs
/// (Yosys LUTs = 0.25 x model logic, Yosys FFs = 0.625 x model flip-flop bits, 64 model RAM
/// bits = 8 LUTRAM LUTs), in units of model logic.
pub const ALTERNATIVE_WEIGHTS: [(&str, Weights); 3] = [
    (
        "a flip-flop weighs a LUT, as LUT+FF counts them",
        Weights {
            logic: 1.0,
            ff_bit: 1.0,
            ram_bit: 1.0 / 64.0,
            dsp: 64.0,
        },
    ),
    (
        "RAM at the measured LUTRAM cost of shallow memories (8 bits per LUT)",
        Weights {
            logic: 1.0,
            ff_bit: 0.5,
            ram_bit: 1.0 / 8.0,
            dsp: 64.0,
        },
    ),
    (
        "the measured median ratios to Yosys (ff 2.5, ram 0.5 per logic unit)",
        Weights {
            logic: 1.0,
            ff_bit: 2.5,
            ram_bit: 0.5,
            dsp: 64.0,
        },
    ),
];

/// One synthesized design.
#[derive(Clone, Debug)]
pub struct Point {
    /// The model's area vector.
    pub model: Area,
    /// Synthesis.
    pub yosys: SynthReport,
}

/// How one weight set ranks the report's designs.
#[derive(Clone, Debug, Serialize)]
pub struct WeightsFit {
    /// What the weights stand for.
    pub name: String,
    /// The weights.
    pub weights: Weights,
    /// Spearman: model scalar against Yosys LUT+FF over every design.
    pub scalar_lut_ff: Option<f64>,
    /// Per app and slowdown, the e-graph design against the baseline's: how the model
    /// scalar orders them against Yosys LUT+FF.
    pub pairs: PairAgreement,
}

/// The rank correlations of a report's designs.
#[derive(Clone, Debug, Serialize)]
pub struct Calibration {
    /// Designs synthesized (both schedulers; a design both chose counts twice).
    pub designs: usize,
    /// The report's weights (those the designs were chosen with).
    pub fit: WeightsFit,
    /// Spearman: model `ram_bits` against the capacity of the LUTRAM, SRL and block RAM
    /// Yosys used ([`SynthReport::ram_bits`]).
    pub ram: Option<f64>,
    /// Spearman: model `logic` against Yosys LUTs ([`SynthReport::luts`]).
    pub logic_lut: Option<f64>,
    /// Spearman: model `ff_bits` against Yosys flip-flops.
    pub ff_ff: Option<f64>,
    /// The same ranking under each of [`ALTERNATIVE_WEIGHTS`], on the same designs.
    pub alternatives: Vec<WeightsFit>,
}

/// Every synthesized design of the report, e-graph then baseline per row.
pub fn points(r: &Report) -> Vec<Point> {
    let mut out = Vec::new();
    for app in &r.apps {
        for row in &app.rows {
            for d in [&row.egraph, &row.baseline].into_iter().flatten() {
                if let Some(y) = &d.yosys {
                    out.push(Point {
                        model: d.area_vec,
                        yosys: y.clone(),
                    });
                }
            }
        }
    }
    out
}

/// Spearman's correlation between the model scalar under `w` and Yosys LUT+FF.
pub fn scalar_correlation(points: &[Point], w: &Weights) -> Option<f64> {
    let m: Vec<f64> = points.iter().map(|p| p.model.scalar(w)).collect();
    let y: Vec<f64> = points.iter().map(|p| p.yosys.lut_ff() as f64).collect();
    spearman(&m, &y)
}

fn component(
    points: &[Point],
    model: fn(&Area) -> u64,
    yosys: fn(&SynthReport) -> u64,
) -> Option<f64> {
    let m: Vec<f64> = points.iter().map(|p| model(&p.model) as f64).collect();
    let y: Vec<f64> = points.iter().map(|p| yosys(&p.yosys) as f64).collect();
    spearman(&m, &y)
}

/// How the model under `w` orders each row's two designs, against Yosys LUT+FF.
pub fn pair_agreement(r: &Report, w: &Weights) -> PairAgreement {
    let mut a = PairAgreement::default();
    for row in r.apps.iter().flat_map(|app| &app.rows) {
        let (Some(g), Some(b)) = (&row.egraph, &row.baseline) else {
            continue;
        };
        let (Some(gy), Some(by)) = (&g.yosys, &b.yosys) else {
            continue;
        };
        a.add(
            (g.area_vec.scalar(w), b.area_vec.scalar(w)),
            (gy.lut_ff() as f64, by.lut_ff() as f64),
        );
    }
    a
}

fn fit(r: &Report, pts: &[Point], name: &str, w: &Weights) -> WeightsFit {
    WeightsFit {
        name: name.to_string(),
        weights: *w,
        scalar_lut_ff: scalar_correlation(pts, w),
        pairs: pair_agreement(r, w),
    }
}

/// The calibration figures of a report (its designs must have been synthesized).
pub fn calibrate(r: &Report) -> Calibration {
    let pts = points(r);
    Calibration {
        designs: pts.len(),
        fit: fit(r, &pts, "the report's weights", &r.weights),
        ram: component(&pts, |a| a.ram_bits, SynthReport::ram_bits),
        logic_lut: component(&pts, |a| a.logic, SynthReport::luts),
        ff_ff: component(&pts, |a| a.ff_bits, |y| y.ff),
        alternatives: ALTERNATIVE_WEIGHTS
            .iter()
            .map(|(name, w)| fit(r, &pts, name, w))
            .collect(),
    }
}
