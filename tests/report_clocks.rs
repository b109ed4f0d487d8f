//! `tessera report --clocks` (docs/timing.md, section 5): at a lower clock target the same
//! apps get no more register bits and no more model area; the check names a violation when
//! there is one; the section is deterministic; a bad list is a clear error.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use tessera::report::clocks::{self, ClockFront};
use tessera::report::{self, App};
use tessera::schedule::egraph;
use tessera::st::delay::Target;
use tessera::st::pipeline::critical_path;
use tessera::st::Design;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn paper_apps(names: &[&str]) -> Vec<App> {
    names
        .iter()
        .map(|a| {
            App::load(
                &root().join(format!("examples/{a}.seq")),
                report::paper_slowdowns(a),
            )
            .unwrap()
        })
        .collect()
}

/// The critical path of a design limited by its start control.
const CONTROL: &str = "start control (its fan-out and phase counters)";

/// The front of the small paper apps `names` at their paper slowdowns, and its designs by
/// (app, slowdown, clock index).
fn paper_front(names: &[&str]) -> (ClockFront, HashMap<(String, u64, usize), Design>) {
    let clocks = clocks::parse_clocks(clocks::DEFAULT_CLOCKS).unwrap();
    let (f, designs) = clocks::front(
        &paper_apps(names),
        &clocks,
        &egraph::Options::default(),
        &Default::default(),
    );
    let points: usize = f
        .apps
        .iter()
        .flat_map(|a| &a.rows)
        .map(|r| r.points.len())
        .sum();
    assert_eq!(designs.len(), points, "every point has a design to measure");
    let designs = designs
        .into_iter()
        .map(|((ai, ri, ci), d)| {
            let a = &f.apps[ai];
            ((a.name.clone(), a.rows[ri].slowdown, ci), d)
        })
        .collect();
    (f, designs)
}

/// At a lower clock target `app` gets no more register bits and no more model area at each
/// of its paper slowdowns; returns at how many it gets fewer register bits at 150 MHz than
/// at 225 MHz.
fn a_lower_clock_gets_no_more_registers_and_no_more_area(app: &str) -> usize {
    let (f, designs) = paper_front(&[app]);
    let t = Target::ice40_hx8k();
    assert_eq!(f.clocks, vec![150.0, 200.0, 225.0]);
    assert_eq!(f.apps.len(), 1);
    let mut fewer_registers = 0;
    for app in &f.apps {
        let slowdowns: Vec<u64> = app.rows.iter().map(|r| r.slowdown).collect();
        assert_eq!(slowdowns, report::paper_slowdowns(&app.name).unwrap());
        for row in &app.rows {
            let at = |i: usize| {
                let p = &row.points[i];
                assert_eq!(p.clock_mhz, f.clocks[i]);
                p.design
                    .as_ref()
                    .unwrap_or_else(|| panic!("{} s={}: {:?}", app.name, row.slowdown, p.error))
            };
            for i in 0..f.clocks.len() {
                // each design is pipelined for its own clock: its data paths meet it (the
                // start control's floor may not, docs/timing.md §2)
                let cp = critical_path(&designs[&(app.name.clone(), row.slowdown, i)], &t).unwrap();
                assert_eq!(at(i).model_mhz, Some(cp.mhz));
                assert!(
                    cp.mhz >= f.clocks[i] - 1e-6 || cp.ops == [CONTROL],
                    "{} s={} at {} MHz models {:.1} MHz: {:?}",
                    app.name,
                    row.slowdown,
                    f.clocks[i],
                    cp.mhz,
                    cp.ops
                );
            }
            for i in 1..f.clocks.len() {
                let (lo, hi) = (at(i - 1), at(i));
                let what = format!(
                    "{} s={} {} vs {} MHz",
                    app.name,
                    row.slowdown,
                    f.clocks[i - 1],
                    f.clocks[i]
                );
                assert!(
                    lo.area_vec.ff_bits <= hi.area_vec.ff_bits,
                    "{what}: register bits"
                );
                assert!(lo.area <= hi.area + 1e-9, "{what}: model area");
            }
            if at(0).area_vec.ff_bits < at(2).area_vec.ff_bits {
                fewer_registers += 1;
            }
        }
    }
    assert!(f.violations.is_empty(), "{:?}", f.violations);
    fewer_registers
}

// One test per app, so that they run in parallel. The clock target matters: every pipelined
// app has fewer register bits at 150 MHz than at 225 MHz at each of its 7 paper slowdowns;
// map, whose adders fit any of these clocks, at none.

#[test]
fn a_lower_clock_gets_map_no_more_registers_and_no_more_area() {
    assert_eq!(
        a_lower_clock_gets_no_more_registers_and_no_more_area("map"),
        0
    );
}

#[test]
fn a_lower_clock_gets_conv2d_fewer_registers_and_no_more_area() {
    assert_eq!(
        a_lower_clock_gets_no_more_registers_and_no_more_area("conv2d"),
        7
    );
}

#[test]
fn a_lower_clock_gets_conv2d_b2b_fewer_registers_and_no_more_area() {
    assert_eq!(
        a_lower_clock_gets_no_more_registers_and_no_more_area("conv2d_b2b"),
        7
    );
}

#[test]
fn a_lower_clock_gets_conv2d_b2b_3x3_repeat_fewer_registers_and_no_more_area() {
    assert_eq!(
        a_lower_clock_gets_no_more_registers_and_no_more_area("conv2d_b2b_3x3_repeat"),
        7
    );
}

#[test]
fn a_lower_clock_gets_sharpen_fewer_registers_and_no_more_area() {
    assert_eq!(
        a_lower_clock_gets_no_more_registers_and_no_more_area("sharpen"),
        7
    );
}

#[test]
fn the_check_names_a_violation() {
    let apps = vec![App::load(&root().join("examples/conv2d.seq"), Some(&[1, 16])).unwrap()];
    let (mut f, _) = clocks::front(
        &apps,
        &[150.0, 225.0],
        &egraph::Options::default(),
        &Default::default(),
    );
    assert!(f.violations.is_empty());
    // the designs of s = 1 exchanged: the 150 MHz one is now the larger
    f.apps[0].rows[0].points.swap(0, 1);
    f.apps[0].rows[0].points[0].clock_mhz = 150.0;
    f.apps[0].rows[0].points[1].clock_mhz = 225.0;
    let v = clocks::violations(&f);
    let measures: Vec<(&str, u64, f64, f64)> = v
        .iter()
        .map(|v| (v.measure.as_str(), v.slowdown, v.lower_mhz, v.higher_mhz))
        .collect();
    assert_eq!(
        measures,
        vec![
            ("register bits", 1, 150.0, 225.0),
            ("model area", 1, 150.0, 225.0)
        ]
    );
    f.violations = v;
    let text = clocks::text(&f, false);
    assert!(text.contains("VIOLATED at 2 points"), "{text}");
    assert!(
        text.contains("violation: conv2d at s=1: register bits 832 at 150 MHz > 320 at 225 MHz"),
        "{text}"
    );
}

fn tessera(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The section of the text report: from its title to the check line.
fn section(text: &str) -> String {
    let start = text
        .find("area front at several clock targets")
        .unwrap_or_else(|| panic!("no section in:\n{text}"));
    let rest = &text[start..];
    let end = rest.find("check: ").unwrap();
    let line_end = rest[end..].find('\n').unwrap();
    rest[..end + line_end].to_string()
}

#[test]
fn the_section_is_deterministic_in_text_and_json() {
    let args = [
        "report",
        "--quiet",
        "--app",
        "examples/conv2d.seq",
        "--slowdowns",
        "4,16",
        "--clocks",
    ];
    let (code, a, err) = tessera(&args);
    assert_eq!(code, 0, "{err}");
    let (_, b, _) = tessera(&args);
    assert_eq!(section(&a), section(&b));
    let s = section(&a);
    assert!(s.contains("150 MHz: area"), "{s}");
    assert!(s.contains("check: at every app and slowdown"), "{s}");
    let mut json = args.to_vec();
    json.push("--json");
    let (code, a, err) = tessera(&json);
    assert_eq!(code, 0, "{err}");
    let (_, b, _) = tessera(&json);
    let front = |t: &str| {
        let v: serde_json::Value = serde_json::from_str(t).unwrap();
        v["clock_front"].clone()
    };
    assert_eq!(front(&a), front(&b));
    let f = front(&a);
    assert_eq!(f["clocks"], serde_json::json!([150.0, 200.0, 225.0]));
    assert_eq!(f["violations"], serde_json::json!([]));
    assert_eq!(f["apps"][0]["rows"][0]["slowdown"], 4);
}

#[test]
fn a_bad_clock_list_is_a_clear_error() {
    let (code, _, err) = tessera(&[
        "report",
        "--app",
        "examples/map.seq",
        "--clocks",
        "150,fast",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--clocks: `fast` is not a clock in MHz"),
        "{err}"
    );
    let (code, _, err) = tessera(&["report", "--app", "examples/map.seq", "--clocks", "150"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--clocks: give at least two clock targets"),
        "{err}"
    );
}

/// `--clocks` with `--fmax`: every design of the front is placed and routed (a design equal
/// to one of the rows' once), its measured clock and cells are in the section, and the delay
/// model's calibration covers every point.
#[test]
fn with_fmax_every_point_is_measured() {
    if !tessera::rtl::tools::require_tool(&["yosys", "nextpnr-ice40"], "tessera report --fmax") {
        return;
    }
    let apps = vec![App::load(&root().join("examples/conv2d.seq"), Some(&[16])).unwrap()];
    let o = report::ReportOptions {
        fmax: true,
        clocks: vec![150.0, 225.0],
        schedule: egraph::Options {
            clock: Some(tessera::st::pipeline::Clock::default_target()),
            ..egraph::Options::default()
        },
        ..report::ReportOptions::default()
    };
    let r = report::run(&apps, &o).unwrap();
    let f = r.clock_front.as_ref().expect("--clocks gives the section");
    let points = &f.apps[0].rows[0].points;
    assert_eq!(points.len(), 2);
    for p in points {
        let d = p.design.as_ref().unwrap();
        let m = d
            .fmax
            .as_ref()
            .unwrap_or_else(|| panic!("{:?}", d.fmax_error));
        assert!(m.fmax_mhz > 0.0 && m.logic_cells > m.harness_ffs);
    }
    // the 225 MHz design is the report's own row (default clock): measured the same
    let row = r.apps[0].rows[0].egraph.as_ref().unwrap();
    let at225 = points[1].design.as_ref().unwrap();
    assert_eq!(at225.area, row.area);
    assert_eq!(
        at225.fmax.as_ref().unwrap().fmax_mhz,
        row.fmax.as_ref().unwrap().fmax_mhz
    );
    assert_eq!(f.timing.as_ref().unwrap().designs, 2);
    let text = tessera::report::format::text(&r);
    assert!(text.contains("MHz model/measured"), "{text}");
    assert!(
        text.contains("delay model vs nextpnr-ice40 over 2 designs"),
        "{text}"
    );
}
