//! Stalled designs (`st::stall`, `schedule::stall`): the design of slowdown `s` serving a
//! slower `s'` that it does not divide, held by a clock enable. Each one simulates equal to
//! the interpreter, costs exactly its source's area plus the stall's control, reads back
//! from its `.st` text and runs in Icarus; `schedule` tries them, so the front explore
//! gives is monotone along multiples and never above a stalled faster design, and
//! `schedule --slowdown S` gives the design explore lists for S.

use std::path::{Path, PathBuf};
use std::process::Command;
use tessera::rtl::emit;
use tessera::rtl::tools::require_tool;
use tessera::rtl::verify::{verify_rtl, VerifyOptions};
use tessera::schedule::egraph;
use tessera::schedule::slowdown::default_slowdowns;
use tessera::schedule::stall::{stall, stall_target, stall_to};
use tessera::seq::{load_program, Program};
use tessera::st::area::area;
use tessera::st::stall::control_area;
use tessera::st::verify::{random_frames, verify};
use tessera::st::{Design, StOp};

fn program(file: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    load_program(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn direct() -> egraph::Options {
    egraph::Options {
        burst: false,
        ..egraph::Options::default()
    }
}

fn simulates(d: &Design, p: &Program, what: &str) {
    let v =
        verify(d, p, &random_frames(p, d.clocks(), 3)).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(v.passed(), "{what}: {:?}", v.mismatches.first());
}

/// The small paper apps conv2d and sharpen at their default slowdowns (the divisors of
/// 144: 2 and 3, 8 and 12 ... do not divide each other), map at its paper slowdowns, and
/// seed examples at their default slowdowns.
fn apps() -> Vec<(&'static str, Vec<u64>)> {
    let mut v = vec![("examples/map.seq", vec![1, 5, 10, 20, 25, 40, 50, 100, 200])];
    for file in [
        "examples/conv2d.seq",
        "examples/sharpen.seq",
        "examples/seed/blur3x1.seq",
        "examples/seed/sum3x1.seq",
        "examples/seed/stencil_underutil.seq",
        "examples/seed/diamond.seq",
    ] {
        v.push((file, default_slowdowns(&program(file))));
    }
    v
}

/// Every direct design stalled to every listed slowdown it does not divide (where its
/// layouts have an outer `tseq` to pad) simulates equal to the interpreter and costs its
/// source's area plus the control of [`stall_target`].
#[test]
fn stalled_designs_simulate_and_cost_their_control() {
    for (file, list) in apps() {
        if file.ends_with("stencil_underutil.seq") {
            // its output is laid out in space outermost at every slowdown: no tseq to pad
            continue;
        }
        let p = program(file);
        let mut stalled = 0;
        for &s in &list {
            let d = egraph::schedule(&p, s, &direct()).unwrap().design;
            let base = area(&d).total;
            // the nearest slower slowdown it does not divide is enough per source: the
            // others differ only in the idle clocks
            let Some(&to) = list.iter().find(|t| **t > s && **t % s != 0) else {
                continue;
            };
            let Ok((x, e)) = stall_to(&d, to, "stalled") else {
                continue;
            };
            assert_eq!(e, stall_target(s, to));
            assert_eq!(x.clocks(), to);
            assert_eq!(
                area(&x).total,
                base + control_area(s, e - s),
                "{file} {s} -> {to}"
            );
            simulates(&x, &p, &format!("{file} {s} -> {to}"));
            stalled += 1;
        }
        eprintln!("{file}: {stalled} designs stalled");
        let apart = list
            .iter()
            .any(|s| list.iter().any(|t| t > s && t % s != 0));
        assert!(stalled > 0 || !apart, "{file}: no design stalled");
    }
}

/// seed/blur3x1 at s = 3, pipelined for the default clock as `schedule` does: the s = 2
/// design stalled to 3 (1169) is smaller than the direct s = 3 design (1177, whose
/// operators have three phases where the s = 2 design's have two), so `schedule` returns
/// it. (sharpen was the example until its threshold tests shared a stage with its
/// subtractions: its direct s = 3 design is now the smaller.)
#[test]
fn a_stalled_design_wins_where_counters_grow() {
    let p = program("examples/seed/blur3x1.seq");
    let o = egraph::Options {
        clock: Some(tessera::st::pipeline::Clock::default_target()),
        ..egraph::Options::default()
    };
    let no = egraph::Options {
        burst: false,
        ..o.clone()
    };
    let d2 = egraph::schedule(&p, 2, &no).unwrap();
    let d3 = egraph::schedule(&p, 3, &no).unwrap();
    let got = egraph::schedule(&p, 3, &o).unwrap();
    let b = got.burst.expect("a stalled design");
    assert_eq!((b.from, b.stalled_to, b.factor), (2, Some(3), 1));
    let ctrl = control_area(2, 1).scalar(&o.weights);
    assert!(
        (got.area - (d2.area + ctrl)).abs() < 1e-9,
        "{} vs {}",
        got.area,
        d2.area
    );
    assert!(got.area < d3.area, "{} vs {}", got.area, d3.area);
    assert!(
        got.area > d2.area,
        "the front stays non-monotone by the control"
    );
    simulates(&got.design, &p, "blur3x1 at 3");
}

/// The explored front: along multiples the area never grows (bursts), and every row is at
/// most the direct design of any faster listed slowdown plus the control a stall to it
/// costs. Every row's design simulates.
#[test]
fn the_front_is_monotone_along_multiples_and_bounded_by_stalls() {
    let mut stalls = 0;
    for (file, list) in apps() {
        let p = program(file);
        let rows = egraph::explore_designs(&p, &list, &egraph::Options::default());
        let got: Vec<(u64, egraph::Scheduled)> = rows
            .into_iter()
            .map(|(s, r)| (s, r.unwrap_or_else(|e| panic!("{file} at {s}: {e}"))))
            .collect();
        for (s, g) in &got {
            assert_eq!(g.design.clocks(), *s);
            simulates(&g.design, &p, &format!("{file} at {s}"));
            if g.burst.is_some_and(|b| b.stalled_to.is_some()) {
                stalls += 1;
            }
        }
        for (s, g) in &got {
            let own = egraph::schedule(&p, *s, &direct()).unwrap();
            for (s2, g2) in &got {
                if s2 <= s {
                    continue;
                }
                if s2 % s == 0 {
                    assert!(g2.area <= g.area + 1e-9, "{file}: {s2} above {s}");
                } else if let Ok((x, _)) = stall_to(&own.design, *s2, "x") {
                    let bound = area(&x).total.scalar(&Default::default());
                    assert!(
                        g2.area <= bound + 1e-9,
                        "{file}: {} at {s2} above the stalled s={s} design's {bound}",
                        g2.area
                    );
                }
            }
        }
    }
    eprintln!("rows served by a stalled design: {stalls}");
}

/// `schedule --slowdown S` (the library call behind it) gives, at every listed slowdown,
/// exactly the design explore lists for S: same area, same `.st` text.
#[test]
fn schedule_and_explore_give_the_same_design() {
    for (file, list) in apps() {
        let p = program(file);
        let o = egraph::Options::default();
        let rows = egraph::explore_designs(&p, &list, &o);
        // `Memo::schedule` gives `egraph::schedule`'s designs, scheduling each faster
        // slowdown once for the whole list; the first (fastest) row, whose bursts start
        // from few slowdowns, also goes through `egraph::schedule` itself
        let mut memo = egraph::Memo::new();
        for (i, (s, row)) in rows.into_iter().enumerate() {
            let row = row.unwrap();
            let alone = memo.schedule(&p, s, &o).unwrap();
            if i == 0 {
                let fresh = egraph::schedule(&p, s, &o).unwrap();
                assert_eq!(
                    fresh.design.to_text(),
                    alone.design.to_text(),
                    "{file} at {s}"
                );
            }
            assert_eq!(alone.area, row.area, "{file} at {s}");
            assert_eq!(
                alone.design.to_text(),
                row.design.to_text(),
                "{file} at {s}"
            );
        }
    }
}

fn tessera(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(args: &[&str]) -> serde_json::Value {
    let (code, out, err) = tessera(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// The commands agree too: `tessera schedule --slowdown 3` (pipelined for the default
/// clock) gives blur3x1 the stalled s = 2 design, of the area explore's row for 3 lists.
#[test]
fn the_commands_agree_on_a_stalled_design() {
    let file = "examples/seed/blur3x1.seq";
    let alone = json(&["schedule", file, "--slowdown", "3", "--json"]);
    let rows = json(&[
        "explore",
        file,
        "--slowdowns",
        "2,3",
        "--no-baseline",
        "--json",
    ]);
    let row = &rows["rows"][1];
    assert_eq!(row["slowdown"], 3);
    assert_eq!(row["burst"]["stalled_to"], 3, "{row}");
    assert_eq!(row["area"], alone["area"]["scalar"]);
    let (code, _, err) = tessera(&["schedule", file, "--slowdown", "3"]);
    assert_eq!(code, 0);
    assert!(err.contains("the s=2 design stalled to 3"), "{err}");
}

fn work(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("schedule_stall")
        .join(name)
}

/// The Verilog of a stalled design holds its body with a clock enable, not a gated
/// clock: every register is clocked by `clk` on its rising edge (no falling edge, no
/// derived clock), the body's registers are guarded by `if (ce)`, and its instance gets
/// the stall's enable as `ce`.
fn one_clock_with_enable(v: &str) {
    assert!(!v.contains("negedge"), "{v}");
    let registers: Vec<&str> = v
        .lines()
        .filter(|l| l.contains("always @(posedge"))
        .collect();
    assert!(!registers.is_empty(), "{v}");
    for l in &registers {
        assert!(l.trim_start().starts_with("always @(posedge clk)"), "{l}");
    }
    assert!(
        registers
            .iter()
            .any(|l| l.trim_start().starts_with("always @(posedge clk) if (ce)")),
        "{v}"
    );
    let lines = || v.lines().map(str::trim);
    assert!(lines().any(|l| l == "input  wire ce,"), "{v}");
    for l in lines().filter(|l| l.starts_with(".clk(")) {
        assert_eq!(l, ".clk(clk),", "every instance runs on the one clock");
    }
    assert!(
        lines().any(|l| l.starts_with(".ce(n") && l.ends_with("_en),")),
        "the stall's enable drives its body: {v}"
    );
}

/// blur3x1's s = 2 design stalled to 3: the `.st` text shows the `stall` and reads back
/// to the same design, `tessera check` and `tessera sim` accept the written file, and the
/// Verilog (lint-clean in Verilator) runs in Icarus equal to the interpreter.
#[test]
fn a_stalled_design_round_trips_and_runs_in_icarus() {
    let file = "examples/seed/blur3x1.seq";
    let p = program(file);
    let d = egraph::schedule(&p, 2, &direct()).unwrap().design;
    let x = stall(&d, 3, "blur3x1_s3").unwrap();
    let text = x.to_text();
    assert!(text.contains("(output (stall 1"), "{text}");
    let back = tessera::st::parse_design("blur3x1_s3.st", &text).unwrap();
    assert_eq!(back.canonical(), x.canonical());
    assert_eq!(back.to_text(), text);
    let dir = work("blur3x1_s3");
    std::fs::create_dir_all(&dir).unwrap();
    let st = dir.join("blur3x1_s3.st");
    std::fs::write(&st, &text).unwrap();
    let st = st.to_str().unwrap();
    let (code, out, err) = tessera(&["check", st]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = tessera(&["sim", st, "--program", file, "--frames", "4"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        x.ids()
            .any(|id| matches!(x.node(id).op, StOp::Stall { .. })),
        "{text}"
    );
    one_clock_with_enable(&emit(&x).unwrap().verilog);
    if !require_tool(
        &["iverilog", "vvp", "verilator"],
        "a stalled design in Icarus",
    ) {
        return;
    }
    for seed in 0..2 {
        let opts = VerifyOptions {
            seed,
            frames: 3,
            ..VerifyOptions::default()
        };
        let v = verify_rtl(&x, &p, &work(&format!("rtl_{seed}")), &opts).unwrap();
        assert!(v.passed(), "{:?} {:#?}", v.lint, v.mismatches);
        assert!(v.lint.as_ref().is_some_and(|l| l.is_ok()), "{:?}", v.lint);
        assert!(v.atoms_checked > 0);
    }
}

/// A stall inside a stall (blur3x1's s = 2 design stalled to 3, then to 5): the inner
/// body holds whenever either enable is low, so its instance's enable is the outer body's
/// `ce` and the inner stall's own; the design simulates and runs in Icarus equal to the
/// interpreter.
#[test]
fn a_stall_inside_a_stall_runs_in_icarus() {
    let file = "examples/seed/blur3x1.seq";
    let p = program(file);
    let d = egraph::schedule(&p, 2, &direct()).unwrap().design;
    let x = stall(&stall(&d, 3, "blur3x1_s3").unwrap(), 5, "blur3x1_s5").unwrap();
    simulates(&x, &p, "blur3x1 stalled to 3 and 5");
    let v = emit(&x).unwrap().verilog;
    one_clock_with_enable(&v);
    assert!(
        v.lines()
            .any(|l| l.trim().starts_with(".ce((ce & n") && l.trim().ends_with("_en)),")),
        "{v}"
    );
    if !require_tool(
        &["iverilog", "vvp", "verilator"],
        "a nested stall in Icarus",
    ) {
        return;
    }
    let opts = VerifyOptions {
        frames: 3,
        ..VerifyOptions::default()
    };
    let v = verify_rtl(&x, &p, &work("rtl_nested"), &opts).unwrap();
    assert!(v.passed(), "{:?} {:#?}", v.lint, v.mismatches);
    assert!(v.lint.as_ref().is_some_and(|l| l.is_ok()), "{:?}", v.lint);
    assert!(v.atoms_checked > 0);
}
