//! `tessera report` (issue 7): the rows are what the schedulers give, the paper columns are
//! the CSV's, the markdown has one table per app, the plots are well formed, the rank
//! correlation is right, bad input is a clear error, and the output is deterministic apart
//! from its timing columns.

use std::path::{Path, PathBuf};
use std::process::Command;
use tessera::report::stats::{ranks, spearman};
use tessera::report::{self, format, svg, App, ReportOptions};
use tessera::schedule::{aetherling, egraph};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn app(name: &str, slowdowns: &[u64]) -> App {
    App::load(
        &root().join(format!("examples/{name}.seq")),
        Some(slowdowns),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The CSV's aetherling row for `app` at `s`, read without the report's parser:
/// (luts, ffs, bram36, bram18, dsp).
fn csv_row(app: &str, s: u64) -> Option<[u64; 5]> {
    let text = std::fs::read_to_string(report::default_paper_csv()).ok()?;
    text.lines().skip(1).find_map(|l| {
        let c: Vec<&str> = l.split(',').collect();
        (c[0] == "aetherling" && c[1] == app && c[2] == s.to_string())
            .then(|| [3, 4, 5, 6, 7].map(|k| c[k].parse().unwrap()))
    })
}

fn paper_options() -> ReportOptions {
    let csv = report::default_paper_csv();
    ReportOptions {
        paper: csv
            .exists()
            .then(|| report::paper::PaperTable::load(&csv).unwrap()),
        ..ReportOptions::default()
    }
}

#[test]
fn rows_match_the_schedulers_and_the_paper() {
    let apps = [app("map", &[25, 200]), app("conv2d", &[8, 16])];
    let o = paper_options();
    let r = report::run(&apps, &o).unwrap();
    assert_eq!(r.apps.len(), 2);
    for (a, got) in apps.iter().zip(&r.apps) {
        assert_eq!(got.name, a.program.name);
        assert_eq!(got.rows.len(), 2);
        // The report's e-graph column is explore's front: bursts from the listed slowdowns.
        let front = egraph::explore_designs(&a.program, &a.slowdowns, &egraph::Options::default());
        for (row, (fs, eg)) in got.rows.iter().zip(front) {
            let s = row.slowdown;
            assert_eq!(s, fs);
            let eg = eg.unwrap();
            let base = aetherling::schedule(&a.program, s).unwrap();
            let g = row.egraph.as_ref().expect("an e-graph design");
            let b = row.baseline.as_ref().expect("a baseline design");
            assert_eq!(g.area, eg.area, "{} s={s}", got.name);
            assert_eq!(g.area_vec, eg.area_vec, "{} s={s}", got.name);
            assert_eq!(b.area, base.area, "{} s={s}", got.name);
            assert_eq!(
                (row.seq_nodes, row.stream_nodes, row.stream_classes),
                (eg.seq_nodes, eg.egraph_nodes, eg.egraph_classes)
            );
            assert!(g.yosys.is_none() && r.calibration.is_none());
        }
    }
    assert_eq!(r.apps[1].rows[1].throughput, "1");
    assert_eq!(r.apps[0].rows[0].throughput, "8");
    if o.paper.is_none() {
        eprintln!(
            "SKIPPED: paper columns ({} missing)",
            report::default_paper_csv().display()
        );
        return;
    }
    // The 4x4 conv2d is not in the paper's CSV (benchmarks.md §6): empty, with a note.
    assert_eq!(csv_row("conv2d", 16), None);
    assert!(r.apps[1].rows.iter().all(|row| row.paper.is_none()));
    assert!(r.apps[1]
        .notes
        .iter()
        .any(|n| n.contains("no aetherling row")));
    // map is: s = 25 and 200 are the CSV's rows.
    for row in &r.apps[0].rows {
        let want = csv_row("map", row.slowdown).expect("map is in the CSV");
        let p = row.paper.expect("paper columns filled");
        assert_eq!([p.luts, p.ffs, p.bram36, p.bram18, p.dsp], want);
    }
}

/// The markdown without its timing columns (the last two of every table).
fn without_timings(md: &str) -> String {
    md.lines()
        .map(|l| {
            if l.starts_with('|') {
                let cells: Vec<&str> = l.trim_matches('|').split('|').collect();
                cells[..cells.len() - 2].join("|")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The number of `x,y` pairs in the `points` of the polyline of `class`.
fn polyline_points(svg: &str, class: &str) -> usize {
    let start = svg
        .find(&format!("<polyline class=\"{class}\" points=\""))
        .unwrap_or_else(|| panic!("no {class} polyline"));
    let rest = &svg[start..];
    let points = rest.split("points=\"").nth(1).unwrap();
    let points = &points[..points.find('"').unwrap()];
    points
        .split_whitespace()
        .filter(|p| p.contains(','))
        .count()
}

#[test]
fn markdown_and_svg_are_well_formed() {
    // Every seed example at its default slowdowns, and map at three.
    let mut apps: Vec<App> = report::app_files_in(&root().join("examples/seed"))
        .unwrap()
        .iter()
        .map(|f| App::load(f, None).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    apps.push(app("map", &[1, 25, 200]));
    let o = paper_options();
    let r = report::run(&apps, &o).unwrap();
    let md = format::markdown(&r, Some("plots"));
    let tables = md
        .lines()
        .filter(|l| l.starts_with("| s | px/clk |"))
        .count();
    assert_eq!(tables, apps.len(), "one table per app");
    for a in &r.apps {
        assert!(md.contains(&format!("\n## {}\n", a.name)), "{}", a.name);
        assert!(md.contains(&format!("![{0}](plots/{0}.svg)", a.name)));
        let plot = svg::plot(a);
        assert!(plot.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(plot.ends_with("</svg>\n"));
        assert_eq!(plot.matches("<svg").count(), 1);
        assert_eq!(
            plot.matches("<text").count(),
            plot.matches("</text>").count()
        );
        assert_eq!(plot.matches('"').count() % 2, 0);
        assert_eq!(plot.matches("<polyline").count(), 2, "one line per series");
        let eg = a.rows.iter().filter(|r| r.egraph.is_some()).count();
        let base = a.rows.iter().filter(|r| r.baseline.is_some()).count();
        assert!(eg > 0 && base > 0, "{}", a.name);
        assert_eq!(plot.matches("class=\"egraph-point\"").count(), eg);
        assert_eq!(plot.matches("class=\"baseline-point\"").count(), base);
        assert_eq!(polyline_points(&plot, "egraph"), eg);
        assert_eq!(polyline_points(&plot, "baseline"), base);
        assert_eq!(plot, svg::plot(a), "deterministic");
    }
    // The text table has a line per row too, and a second run differs only in timings.
    let text = format::text(&r);
    assert!(text.contains("summary\n"));
    let again = report::run(&apps, &o).unwrap();
    assert_eq!(
        without_timings(&format::markdown(&again, Some("plots"))),
        without_timings(&md)
    );
    let json: serde_json::Value = serde_json::from_str(&format::json(&r)).unwrap();
    assert_eq!(json["apps"].as_array().unwrap().len(), apps.len());
}

#[test]
fn spearman_hand_computed() {
    // No ties: d = (-1, 1, -1, 1, 0), rho = 1 - 6*4/(5*24) = 0.8.
    let rho = spearman(&[10.0, 20.0, 30.0, 40.0, 50.0], &[2.0, 1.0, 4.0, 3.0, 5.0]).unwrap();
    assert!((rho - 0.8).abs() < 1e-12, "{rho}");
    // Ties: x ranks (1, 2.5, 2.5, 4), y ranks (1, 3, 2, 4); rho = 4.5 / sqrt(4.5 * 5).
    let rho = spearman(&[1.0, 2.0, 2.0, 3.0], &[1.0, 3.0, 2.0, 4.0]).unwrap();
    assert!((rho - 3.0 / 10f64.sqrt()).abs() < 1e-12, "{rho}");
    assert_eq!(ranks(&[7.0, 7.0, 1.0, 7.0]), vec![3.0, 3.0, 1.0, 3.0]);
    // Reversed order, monotone but not linear, constant, too short.
    assert_eq!(spearman(&[1.0, 2.0, 3.0], &[9.0, 4.0, 1.0]), Some(-1.0));
    assert_eq!(
        spearman(&[1.0, 2.0, 3.0, 4.0], &[1.0, 8.0, 27.0, 64.0]),
        Some(1.0)
    );
    assert_eq!(spearman(&[1.0, 2.0, 3.0], &[5.0, 5.0, 5.0]), None);
    assert_eq!(spearman(&[1.0], &[2.0]), None);
}

fn tessera(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_input_is_a_clear_error() {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-empty-dir");
    std::fs::create_dir_all(&tmp).unwrap();
    let t = tmp.to_str().unwrap();
    let (code, _, err) = tessera(&["report", "--apps", t]);
    assert_eq!(code, 2);
    assert!(err.contains("no .seq files"), "{err}");
    let (code, _, err) = tessera(&["report", "--apps", &format!("{t}/missing")]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot list"), "{err}");
    let (code, _, err) = tessera(&["report", "--paper", &format!("{t}/none.csv")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("none.csv") && err.contains("cannot read"),
        "{err}"
    );
    let (code, _, err) = tessera(&["report", "--slowdowns", "4,x"]);
    assert_eq!(code, 2);
    assert!(err.contains("`x`"), "{err}");
    let (code, _, _) = tessera(&["report", "--json", "--md"]);
    assert_eq!(code, 2);
    let (code, _, err) = tessera(&["report", "--app", &format!("{t}/nope.seq")]);
    assert_eq!(code, 2);
    assert!(err.contains("nope.seq"), "{err}");
}

#[test]
fn yosys_columns_and_calibration() {
    if !tessera::rtl::tools::require_tool(&["yosys"], "tessera report --yosys") {
        return;
    }
    let apps = [app("map", &[100, 200])];
    let o = ReportOptions {
        yosys: true,
        ..ReportOptions::default()
    };
    let r = report::run(&apps, &o).unwrap();
    for row in &r.apps[0].rows {
        for d in [&row.egraph, &row.baseline] {
            let d = d.as_ref().unwrap();
            assert!(d.yosys.is_some(), "{:?}", d.yosys_error);
        }
    }
    let c = r.calibration.as_ref().expect("calibration with --yosys");
    assert_eq!(c.designs, 4);
    let md = format::markdown(&r, None);
    assert!(md.contains("e-graph LUT/FF/BRAM/DSP") && md.contains("## Calibration"));
}

/// `--fmax`: every design is placed and routed, Aetherling's measured RTL stands beside it
/// (read from the CSV), the timing calibration covers every measured design, and the
/// baseline at a clock has a register after every operator.
#[test]
fn fmax_columns_and_timing_calibration() {
    if !tessera::rtl::tools::require_tool(&["yosys", "nextpnr-ice40"], "tessera report --fmax") {
        return;
    }
    let table = report::timing::AetherlingRtlTable::load(&report::timing::default_csv()).ok();
    let apps = [app("conv2d", &[16, 144])];
    let o = ReportOptions {
        fmax: true,
        aetherling_rtl: table.clone(),
        schedule: egraph::Options {
            clock: Some(tessera::st::pipeline::Clock::default_target()),
            ..egraph::Options::default()
        },
        ..ReportOptions::default()
    };
    let r = report::run(&apps, &o).unwrap();
    for row in &r.apps[0].rows {
        for d in [&row.egraph, &row.baseline] {
            let d = d.as_ref().unwrap();
            let f = d
                .fmax
                .as_ref()
                .unwrap_or_else(|| panic!("{:?}", d.fmax_error));
            assert!(f.fmax_mhz > 0.0 && f.logic_cells > f.harness_ffs);
            assert!(d.model_mhz.is_some());
        }
        // the baseline's registers are in its area
        let plain = aetherling::schedule(&apps[0].program, row.slowdown).unwrap();
        assert!(
            row.baseline.as_ref().unwrap().area > plain.area,
            "s={}",
            row.slowdown
        );
        if let Some(t) = &table {
            let want = t.get("conv2d", row.slowdown).expect("conv2d is measured");
            assert_eq!(row.aetherling_rtl, Some(want));
        }
    }
    let t = r.timing.as_ref().expect("timing calibration with --fmax");
    assert_eq!(t.designs, 4);
    let md = format::markdown(&r, None);
    assert!(md.contains("MHz model/measured") && md.contains("## Timing calibration"));
}
