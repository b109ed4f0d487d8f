//! A small hand-written SVG plot of one app: model area against throughput (log scale), the
//! e-graph scheduler's designs as a line with points (filled on the Pareto front, hollow
//! off it) and the baseline's as a dashed line with square markers, drawn first and a little
//! larger, so that where both schedulers give the same area the square shows round the dot.
//!
//! Output is deterministic byte for byte: coordinates are printed with two decimals and
//! everything is laid out from the report's numbers alone.

use super::AppReport;
use std::fmt::Write;

const W: f64 = 640.0;
const H: f64 = 400.0;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 64.0;
const EGRAPH: &str = "#1f77b4";
const BASELINE: &str = "#d62728";

/// A plotted point: x = throughput (atoms per clock), y = model area.
struct Pt {
    x: f64,
    y: f64,
    label: String,
    filled: bool,
}

/// The smallest of 1, 2, 5 times a power of ten that is at least `x` (`x > 0`).
fn nice_step(x: f64) -> f64 {
    let p = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= x * (1.0 - 1e-12))
        .unwrap_or(10.0 * p)
}

/// A number with at most `d` decimals, trailing zeros dropped.
fn num(v: f64, d: usize) -> String {
    let s = format!("{v:.d$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The plot of `app`.
pub fn plot(app: &AppReport) -> String {
    let atoms = app.atoms as f64;
    let series = |egraph: bool| -> Vec<Pt> {
        let mut pts: Vec<Pt> = app
            .rows
            .iter()
            .filter_map(|r| {
                let d = if egraph { &r.egraph } else { &r.baseline };
                d.as_ref().map(|d| Pt {
                    x: atoms / r.slowdown as f64,
                    y: d.area,
                    label: r.throughput.clone(),
                    filled: !egraph || r.pareto,
                })
            })
            .collect();
        pts.sort_by(|a, b| a.x.total_cmp(&b.x));
        pts
    };
    let (eg, base) = (series(true), series(false));
    let all: Vec<&Pt> = eg.iter().chain(&base).collect();
    let (mut lo, mut hi) = all.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
        (lo.min(p.x.log10()), hi.max(p.x.log10()))
    });
    if all.is_empty() {
        (lo, hi) = (0.0, 1.0);
    }
    let pad = ((hi - lo) * 0.06).max(0.25);
    let (lo, hi) = (lo - pad, hi + pad);
    let ymax_data = all.iter().map(|p| p.y).fold(0.0, f64::max);
    let step = nice_step((ymax_data / 5.0).max(1.0));
    let ymax = ((ymax_data / step).ceil() * step).max(step);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let sx = |x: f64| LEFT + (x.log10() - lo) / (hi - lo) * pw;
    let sy = |y: f64| TOP + ph - y / ymax * ph;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="14">{}: model area against throughput</text>"#,
        W / 2.0,
        escape(&app.name)
    );
    // Axes and grid.
    let (x0, x1, y0, y1) = (LEFT, LEFT + pw, TOP + ph, TOP);
    let _ = writeln!(
        s,
        r#"<path d="M{x0:.2},{y1:.2} V{y0:.2} H{x1:.2}" fill="none" stroke="black"/>"#
    );
    let mut k = 0.0;
    while k <= ymax + 1e-9 {
        let y = sy(k);
        let _ = writeln!(
            s,
            r##"<line x1="{x0:.2}" y1="{y:.2}" x2="{x1:.2}" y2="{y:.2}" stroke="#dddddd"/><text x="{:.2}" y="{:.2}" text-anchor="end">{}</text>"##,
            x0 - 6.0,
            y + 4.0,
            num(k, 2)
        );
        k += step;
    }
    let mut ticks: Vec<(f64, &str)> = all.iter().map(|p| (p.x, p.label.as_str())).collect();
    ticks.sort_by(|a, b| a.0.total_cmp(&b.0));
    ticks.dedup_by(|a, b| a.1 == b.1);
    for (x, label) in ticks {
        let px = sx(x);
        let _ = writeln!(
            s,
            r#"<line x1="{px:.2}" y1="{y0:.2}" x2="{px:.2}" y2="{:.2}" stroke="black"/><text x="{px:.2}" y="{:.2}" text-anchor="middle">{}</text>"#,
            y0 + 5.0,
            y0 + 18.0,
            escape(label)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.2}" y="{:.2}" text-anchor="middle">throughput (output atoms per clock, log scale)</text>"#,
        LEFT + pw / 2.0,
        H - 20.0
    );
    let _ = writeln!(
        s,
        r#"<text x="18" y="{:.2}" text-anchor="middle" transform="rotate(-90 18 {:.2})">model area (LUT equivalents)</text>"#,
        TOP + ph / 2.0,
        TOP + ph / 2.0
    );
    // Series: the baseline under the e-graph's line.
    let line = |pts: &[Pt], class: &str, color: &str, dash: &str| {
        let coords: Vec<String> = pts
            .iter()
            .map(|p| format!("{:.2},{:.2}", sx(p.x), sy(p.y)))
            .collect();
        format!(
            r#"<polyline class="{class}" points="{}" fill="none" stroke="{color}" stroke-width="2"{dash}/>"#,
            coords.join(" ")
        )
    };
    let _ = writeln!(
        s,
        "{}",
        line(&base, "baseline", BASELINE, r#" stroke-dasharray="5 4""#)
    );
    for p in &base {
        let _ = writeln!(
            s,
            r#"<rect class="baseline-point" x="{:.2}" y="{:.2}" width="10" height="10" fill="{BASELINE}"/>"#,
            sx(p.x) - 5.0,
            sy(p.y) - 5.0
        );
    }
    let _ = writeln!(s, "{}", line(&eg, "egraph", EGRAPH, ""));
    for p in &eg {
        let fill = if p.filled { EGRAPH } else { "white" };
        let _ = writeln!(
            s,
            r#"<circle class="egraph-point" cx="{:.2}" cy="{:.2}" r="4" fill="{fill}" stroke="{EGRAPH}" stroke-width="1.5"/>"#,
            sx(p.x),
            sy(p.y)
        );
    }
    // Legend.
    // Top left: slow designs are small, so the data keep clear of it.
    let lx = x0 + 14.0;
    let _ = writeln!(
        s,
        r#"<line x1="{lx:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="{EGRAPH}" stroke-width="2"/><circle cx="{:.2}" cy="{:.2}" r="4" fill="{EGRAPH}"/><text x="{:.2}" y="{:.2}">e-graph (hollow: off the front)</text>"#,
        TOP + 8.0,
        lx + 24.0,
        TOP + 8.0,
        lx + 12.0,
        TOP + 8.0,
        lx + 30.0,
        TOP + 12.0
    );
    let _ = writeln!(
        s,
        r#"<line x1="{lx:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="{BASELINE}" stroke-width="2" stroke-dasharray="5 4"/><rect x="{:.2}" y="{:.2}" width="8" height="8" fill="{BASELINE}"/><text x="{:.2}" y="{:.2}">Aetherling baseline</text>"#,
        TOP + 26.0,
        lx + 24.0,
        TOP + 26.0,
        lx + 8.0,
        TOP + 22.0,
        lx + 30.0,
        TOP + 30.0
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(1.0), 1.0);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(717.0), 1000.0);
        assert_eq!(nice_step(120.0), 200.0);
        assert_eq!(num(2.50, 2), "2.5");
        assert_eq!(num(3.0, 2), "3");
    }
}
