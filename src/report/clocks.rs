//! The area front at several clock targets (`tessera report --clocks`): every app's e-graph
//! designs scheduled for each clock, with their model area and register (flip-flop) bits,
//! and with `--fmax` their measured clock and logic cells; and the check that a design made
//! for a lower clock never has more register bits or more model area than the design of the
//! same app and slowdown made for a higher one (`docs/timing.md`, section 5).
//!
//! Why the property should hold: the scheduler pipelines every candidate design for the
//! clock and keeps the least area, and a slower clock never needs more pipeline registers on
//! the same candidate, so the least area cannot grow when the clock drops. A violation is
//! reported, not hidden: it would mean the pipelining or the choice among candidates is not
//! monotone.

use super::timing::TimingCalibration;
use super::{App, DesignResult};
use crate::schedule::egraph;
use crate::st::pipeline::Clock;
use crate::st::Design;
use serde::Serialize;

/// The clock targets of `--clocks` given without a list (MHz).
pub const DEFAULT_CLOCKS: &str = "150,200,225";

/// Where a design of [`front`] goes: app, row (slowdown) and clock target, as indices.
pub type PointIndex = (usize, usize, usize);

/// One app and slowdown at one clock target.
#[derive(Clone, Debug, Serialize)]
pub struct FrontPoint {
    /// The clock target (MHz).
    pub clock_mhz: f64,
    /// The e-graph scheduler's design for it.
    pub design: Option<DesignResult>,
    /// Why the scheduler found no design.
    pub error: Option<String>,
}

/// One slowdown of an app at every clock target.
#[derive(Clone, Debug, Serialize)]
pub struct FrontRow {
    /// Clocks per whole input.
    pub slowdown: u64,
    /// One point per clock target, in the order of [`ClockFront::clocks`].
    pub points: Vec<FrontPoint>,
}

/// One app's rows.
#[derive(Clone, Debug, Serialize)]
pub struct AppFront {
    /// The app (program) name.
    pub name: String,
    /// One row per slowdown, ascending.
    pub rows: Vec<FrontRow>,
}

/// A design for a lower clock that is larger than the design for a higher one.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Violation {
    /// The app.
    pub app: String,
    /// The slowdown.
    pub slowdown: u64,
    /// The lower clock target (MHz).
    pub lower_mhz: f64,
    /// The higher clock target (MHz).
    pub higher_mhz: f64,
    /// What grew: `register bits` or `model area`.
    pub measure: String,
    /// Its value at the lower clock.
    pub at_lower: f64,
    /// Its value at the higher clock.
    pub at_higher: f64,
}

/// The front at several clock targets.
#[derive(Clone, Debug, Serialize)]
pub struct ClockFront {
    /// The clock targets (MHz), ascending.
    pub clocks: Vec<f64>,
    /// One entry per app, in the report's order.
    pub apps: Vec<AppFront>,
    /// Every pair of clock targets where the lower one's design is larger; empty when the
    /// property holds.
    pub violations: Vec<Violation>,
    /// With `--fmax`: the delay model against place-and-route over every design of the
    /// front.
    pub timing: Option<TimingCalibration>,
}

/// `150,200,225` as ascending, distinct clock targets; errors name `--clocks`.
pub fn parse_clocks(text: &str) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for x in text.split(',').map(str::trim).filter(|x| !x.is_empty()) {
        match x.parse::<f64>() {
            Ok(c) if c.is_finite() && c > 0.0 && c <= 10_000.0 => out.push(c),
            _ => {
                return Err(format!(
                    "--clocks: `{x}` is not a clock in MHz (a number above 0, at most 10000)"
                ))
            }
        }
    }
    if out.len() < 2 {
        return Err("--clocks: give at least two clock targets, e.g. 150,200,225".into());
    }
    out.sort_by(f64::total_cmp);
    out.dedup();
    Ok(out)
}

/// Schedules every app at each of its slowdowns for each clock target (as the report's
/// e-graph column does: bursts from the app's other slowdowns; an operator slower than a
/// clock is isolated between registers, as under the default clock) and checks the front.
/// Returns the front and every design, in the order of the front's points, for measuring.
pub fn front(
    apps: &[App],
    clocks: &[f64],
    o: &egraph::Options,
    progress: &crate::util::progress::Reporter,
) -> (ClockFront, Vec<(PointIndex, Design)>) {
    let w = o.weights;
    let target = Clock::device(o.clock.as_ref());
    let mut designs = Vec::new();
    let total: usize = apps.iter().map(|a| a.slowdowns.len() * clocks.len()).sum();
    progress.begin("report: clock targets", total as u64);
    let mut out = Vec::new();
    for (ai, app) in apps.iter().enumerate() {
        let p = &app.program;
        let mut rows: Vec<FrontRow> = app
            .slowdowns
            .iter()
            .map(|&s| FrontRow {
                slowdown: s,
                points: Vec::new(),
            })
            .collect();
        for (ci, &mhz) in clocks.iter().enumerate() {
            let opts = egraph::Options {
                clock: Some(Clock {
                    target: target.clone(),
                    mhz,
                    strict: false,
                }),
                ..o.clone()
            };
            let mut memo = egraph::Memo::new();
            for (ri, &s) in app.slowdowns.iter().enumerate() {
                progress.phase(|| format!("{} at slowdown {s}, {mhz} MHz", p.name));
                let point = match egraph::schedule_among(p, s, &opts, &app.slowdowns, &mut memo) {
                    Ok(g) => {
                        let d = super::design_result(&g.design, &w);
                        designs.push(((ai, ri, ci), g.design));
                        FrontPoint {
                            clock_mhz: mhz,
                            design: Some(d),
                            error: None,
                        }
                    }
                    Err(e) => FrontPoint {
                        clock_mhz: mhz,
                        design: None,
                        error: Some(e),
                    },
                };
                rows[ri].points.push(point);
                progress.advance(|| format!("{} at slowdown {s}, {mhz} MHz", p.name));
            }
        }
        out.push(AppFront {
            name: p.name.clone(),
            rows,
        });
    }
    progress.end();
    let mut f = ClockFront {
        clocks: clocks.to_vec(),
        apps: out,
        violations: Vec::new(),
        timing: None,
    };
    f.violations = violations(&f);
    (f, designs)
}

/// Every app, slowdown and pair of clock targets where the lower clock's design has more
/// register bits or more model area than the higher clock's.
pub fn violations(f: &ClockFront) -> Vec<Violation> {
    let mut out = Vec::new();
    for app in &f.apps {
        for row in &app.rows {
            let designs: Vec<(f64, &DesignResult)> = row
                .points
                .iter()
                .filter_map(|p| Some((p.clock_mhz, p.design.as_ref()?)))
                .collect();
            for (i, (lo, a)) in designs.iter().enumerate() {
                for (hi, b) in &designs[i + 1..] {
                    let measures = [
                        (
                            "register bits",
                            a.area_vec.ff_bits as f64,
                            b.area_vec.ff_bits as f64,
                        ),
                        ("model area", a.area, b.area),
                    ];
                    for (measure, at_lower, at_higher) in measures {
                        if at_lower > at_higher + 1e-9 {
                            out.push(Violation {
                                app: app.name.clone(),
                                slowdown: row.slowdown,
                                lower_mhz: *lo,
                                higher_mhz: *hi,
                                measure: measure.into(),
                                at_lower,
                                at_higher,
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

/// The calibration of the delay model over every measured design of the front.
pub fn calibrate(f: &ClockFront) -> TimingCalibration {
    let designs = f
        .apps
        .iter()
        .flat_map(|a| &a.rows)
        .flat_map(|r| &r.points)
        .filter_map(|p| p.design.as_ref());
    super::timing::calibrate_designs(designs)
}

/// The table of one app: per slowdown, each clock target's model area and register bits,
/// and with `fmax` its modelled and measured clock and logic cells.
pub fn app_table(f: &ClockFront, app: &AppFront, fmax: bool) -> super::format::Table {
    let mut head = vec!["s".to_string()];
    for c in &f.clocks {
        head.push(format!("{c} MHz: area"));
        head.push("ff bits".into());
        if fmax {
            head.push("MHz model/measured".into());
            head.push("LC".into());
        }
    }
    let rows = app
        .rows
        .iter()
        .map(|r| {
            let mut cells = vec![r.slowdown.to_string()];
            for p in &r.points {
                match &p.design {
                    Some(d) => {
                        cells.push(format!("{:.1}", d.area));
                        cells.push(d.area_vec.ff_bits.to_string());
                        if fmax {
                            cells.push(super::timing::clock_cell(d));
                            cells.push(
                                d.fmax
                                    .as_ref()
                                    .map_or(String::new(), |m| m.logic_cells.to_string()),
                            );
                        }
                    }
                    None => {
                        let n = if fmax { 4 } else { 2 };
                        cells.push("error".into());
                        cells.extend(std::iter::repeat_n(String::new(), n - 1));
                    }
                }
            }
            cells
        })
        .collect();
    super::format::Table { head, rows }
}

/// What the check found, one line.
pub fn check_line(f: &ClockFront) -> String {
    let list = f
        .clocks
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if f.violations.is_empty() {
        format!(
            "at every app and slowdown, no design for a lower clock target ({list} MHz) has more register bits or more model area than the design for a higher one"
        )
    } else {
        format!(
            "VIOLATED at {} points: a design for a lower clock target ({list} MHz) has more register bits or model area than the design for a higher one",
            f.violations.len()
        )
    }
}

/// One line per violation.
pub fn violation_lines(f: &ClockFront) -> Vec<String> {
    f.violations
        .iter()
        .map(|v| {
            format!(
                "{} at s={}: {} {} at {} MHz > {} at {} MHz",
                v.app, v.slowdown, v.measure, v.at_lower, v.lower_mhz, v.at_higher, v.higher_mhz
            )
        })
        .collect()
}

/// The section as plain text.
pub fn text(f: &ClockFront, fmax: bool) -> String {
    let mut out = String::from("area front at several clock targets (e-graph designs)\n");
    for app in &f.apps {
        out.push_str(&format!("{}\n", app.name));
        out.push_str(&app_table(f, app, fmax).text());
        out.push_str(&point_notes(app).join(""));
    }
    out.push_str(&format!("check: {}\n", check_line(f)));
    for l in violation_lines(f) {
        out.push_str(&format!("  violation: {l}\n"));
    }
    if let Some(t) = &f.timing {
        out.push_str(&format!("{}\n", super::timing::calibration_line(t)));
    }
    out
}

/// The section as markdown.
pub fn markdown(f: &ClockFront, fmax: bool) -> String {
    let mut out = String::from("\n## Area at several clock targets\n\n");
    out.push_str(
        "The e-graph scheduler's design of each app and slowdown made for each clock target \
(`--clocks`): model area, model flip-flop bits",
    );
    out.push_str(if fmax {
        ", the modelled and measured clock (nextpnr-ice40) and iCE40 logic cells.\n"
    } else {
        ".\n"
    });
    for app in &f.apps {
        out.push_str(&format!("\n### {}\n\n", app.name));
        out.push_str(&app_table(f, app, fmax).markdown());
        let notes = point_notes(app);
        if !notes.is_empty() {
            out.push('\n');
            for n in notes {
                out.push_str(&format!("- {}", n.trim_start()));
            }
        }
    }
    out.push_str(&format!("\nCheck: {}.\n", check_line(f)));
    for l in violation_lines(f) {
        out.push_str(&format!("- violation: {l}\n"));
    }
    if let Some(t) = &f.timing {
        out.push_str(&format!(
            "\nOver these designs, {}.\n",
            super::timing::calibration_line(t)
        ));
    }
    out
}

/// Scheduler and place-and-route failures of an app's points, one line each.
fn point_notes(app: &AppFront) -> Vec<String> {
    let mut out = Vec::new();
    for r in &app.rows {
        for p in &r.points {
            let first = |e: &String| e.lines().next().unwrap_or("").to_string();
            if let Some(e) = &p.error {
                out.push(format!(
                    "  note: s={} at {} MHz: e-graph scheduler: {}\n",
                    r.slowdown,
                    p.clock_mhz,
                    first(e)
                ));
            }
            if let Some(e) = p.design.as_ref().and_then(|d| d.fmax_error.as_ref()) {
                out.push(format!(
                    "  note: s={} at {} MHz: place-and-route: {}\n",
                    r.slowdown,
                    p.clock_mhz,
                    first(e)
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_parse_sorted_and_reject_bad_values() {
        assert_eq!(
            parse_clocks("225,150, 200").unwrap(),
            vec![150.0, 200.0, 225.0]
        );
        assert!(parse_clocks("150,x").unwrap_err().contains("`x`"));
        assert!(parse_clocks("150,0").unwrap_err().contains("`0`"));
        assert!(parse_clocks("150").unwrap_err().contains("at least two"));
        assert_eq!(
            parse_clocks(DEFAULT_CLOCKS).unwrap(),
            vec![150.0, 200.0, 225.0]
        );
    }
}
