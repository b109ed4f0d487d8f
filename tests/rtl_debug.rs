//! Seeing a design: `tessera dot` draws it with the names its Verilog gives its nets, and
//! `verify` writes a waveform (VCD) on request and for every failing run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .output()
        .expect("tessera runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn work_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-debug-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn dot_draws_every_operator_with_its_verilog_net_name() {
    let dir = work_dir("dot");
    let (dot, v) = (dir.join("c.dot"), dir.join("c.v"));
    for args in [
        vec![
            "dot",
            "examples/conv2d.seq",
            "--slowdown",
            "4",
            "-o",
            s(&dot),
        ],
        vec!["rtl", "examples/conv2d.seq", "--slowdown", "4", "-o", s(&v)],
    ] {
        let o = tessera(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o));
    }
    let graph = std::fs::read_to_string(&dot).unwrap();
    let verilog = std::fs::read_to_string(&v).unwrap();
    assert!(graph.starts_with("digraph") && graph.trim_end().ends_with('}'));
    // Every operator box `nK: op ...` is the net the Verilog comments as `nK = op ...`;
    // constants may instead be folded into the body variants that read them.
    let boxes: Vec<&str> = graph
        .lines()
        .filter_map(|l| l.split("label=\"").nth(1))
        .filter(|l| !l.contains(": const "))
        .filter_map(|l| l.split(':').next())
        .filter(|n| n.starts_with('n') && n[1..].chars().all(|c| c.is_ascii_digit()))
        .collect();
    assert!(boxes.len() > 10, "{graph}");
    for b in &boxes {
        assert!(
            verilog.contains(&format!("// {b} = ")),
            "{b} is not a net of the Verilog"
        );
    }
    // Every edge carries a layout.
    assert!(graph
        .lines()
        .filter(|l| l.contains(" -> "))
        .all(|l| l.contains("label=")));
    // Graphviz reads it, where it is installed (apt-get install graphviz).
    if let Ok(out) = Command::new("dot").arg("-Tsvg").arg(&dot).output() {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("<svg"));
    }
    let o = tessera(&["dot", "examples/conv2d.seq"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "a program needs a slowdown: {}",
        text(&o)
    );
    let o = tessera(&["dot", "examples/designs/map4abs_s2.st", "--slowdown", "2"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "a design is drawn as written: {}",
        text(&o)
    );
}

#[test]
fn verify_writes_a_waveform_on_request_and_for_a_failure() {
    let dir = work_dir("vcd");
    let wave = dir.join("pass.vcd");
    let o = tessera(&[
        "verify",
        "examples/seed/map4abs.seq",
        "--slowdown",
        "2",
        "--vcd",
        s(&wave),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let vcd = std::fs::read_to_string(&wave).unwrap();
    assert!(vcd.contains("$scope module dut"), "{vcd}");
    assert!(vcd.contains("$var") && vcd.contains(" valid_out "), "{vcd}");
    // A failing run keeps its work directory with the waveform of the same stimulus.
    let work = dir.join("fail");
    let o = tessera(&[
        "verify",
        "examples/designs/map4abs_s2.st",
        "--program",
        "tests/data/debug/map4abs_plus1.seq",
        "--work",
        s(&work),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("MISMATCH") && t.contains("waveform:"), "{t}");
    let vcd = std::fs::read_to_string(work.join("wave.vcd")).unwrap();
    assert!(vcd.contains("$scope module dut"), "{vcd}");
    let o = tessera(&[
        "verify",
        "examples/seed/map4abs.seq",
        "--slowdowns",
        "1,2",
        "--vcd",
        s(&wave),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}
