//! Simulator drivers: Icarus Verilog (default: negligible start-up cost, four-state, so an
//! `x` reaching a valid output is caught) and Verilator (two-state, for long runs; its C++
//! build costs seconds per design, cut by `ccache` when installed).

use super::tb::Testbench;
use super::tools::{find_tool, run};
use std::path::Path;
use std::time::Duration;

/// A simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simulator {
    /// `iverilog` + `vvp`.
    Icarus,
    /// `verilator --cc --exe --build`.
    Verilator,
}

impl Simulator {
    /// Parses `icarus` or `verilator`.
    pub fn parse(s: &str) -> Result<Simulator, String> {
        match s {
            "icarus" | "iverilog" => Ok(Simulator::Icarus),
            "verilator" => Ok(Simulator::Verilator),
            _ => Err(format!(
                "unknown simulator `{s}` (expected icarus or verilator)"
            )),
        }
    }

    /// The name.
    pub fn name(self) -> &'static str {
        match self {
            Simulator::Icarus => "icarus",
            Simulator::Verilator => "verilator",
        }
    }

    /// The tools it needs.
    pub fn tools(self) -> &'static [&'static str] {
        match self {
            Simulator::Icarus => &["iverilog", "vvp"],
            Simulator::Verilator => &["verilator"],
        }
    }

    /// Whether the simulator has `x` (four-state).
    pub fn four_state(self) -> bool {
        self == Simulator::Icarus
    }
}

/// Writes the testbench files into `dir` (which already holds `design_file`), compiles,
/// runs, and returns the contents of `out.txt` and the wall time (build, run).
pub fn simulate(
    sim: Simulator,
    dir: &Path,
    design_file: &str,
    tb: &Testbench,
) -> Result<(String, Duration, Duration), String> {
    let write = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text)
            .map_err(|e| format!("cannot write {}: {e}", dir.join(name).display()))
    };
    write("tb.v", &tb.tb)?;
    write("in.bin", &tb.stimulus)?;
    let _ = std::fs::remove_file(dir.join("out.txt"));
    let (build, exec) = match sim {
        Simulator::Icarus => {
            write("clkgen.v", &tb.clkgen)?;
            let b = run(
                "iverilog",
                &[
                    "-g2012",
                    "-s",
                    "clkgen",
                    "-o",
                    "sim.vvp",
                    "clkgen.v",
                    "tb.v",
                    design_file,
                ],
                dir,
                &[],
            )?
            .check()?;
            let r = run("vvp", &["-n", "sim.vvp"], dir, &[])?.check()?;
            (b.time, r.time)
        }
        Simulator::Verilator => {
            write("main.cpp", &tb.main_cpp)?;
            let env: Vec<(&str, &str)> = if find_tool("ccache").is_some() {
                vec![("OBJCACHE", "ccache")]
            } else {
                vec![]
            };
            let trace: &[&str] = if tb.vcd { &["--trace"] } else { &[] };
            let b = run(
                "verilator",
                &[
                    trace,
                    &[
                        "--cc",
                        "--exe",
                        "--build",
                        "-j",
                        "2",
                        "-Wno-fatal",
                        "-Wno-lint",
                        "-Wno-style",
                        "-Mdir",
                        "obj",
                        "--top-module",
                        "tb",
                        "-o",
                        "Vtb",
                        "tb.v",
                        design_file,
                        "main.cpp",
                    ],
                ]
                .concat(),
                dir,
                &env,
            )?
            .check()?;
            let exe = dir.join("obj").join("Vtb");
            let exe = exe.to_string_lossy().into_owned();
            let t0 = std::time::Instant::now();
            let out = std::process::Command::new(&exe)
                .current_dir(dir)
                .output()
                .map_err(|e| format!("cannot run {exe}: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "{exe} failed:\n{}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            (b.time, t0.elapsed())
        }
    };
    let text = std::fs::read_to_string(dir.join("out.txt"))
        .map_err(|e| format!("the simulation wrote no out.txt: {e}"))?;
    Ok((text, build, exec))
}
