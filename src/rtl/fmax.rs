//! Fmax measured by place-and-route: the top module wrapped in a register harness,
//! `synth_ice40`, `nextpnr-ice40` on the iCE40 HX8K (`/work/shared/data/README.md` describes
//! the harness, so our numbers compare with Aetherling's measured ones).
//!
//! The harness has four ports (`clk`, `si`, `ld`, `so`): a shift register fed by `si` drives
//! every input port of the design (`valid_in` included), every output is captured into
//! registers each clock, and a second shift register, loaded from those when `ld` is 1,
//! drives `so`. Every path is register → design → register and nothing is optimized away,
//! whatever the design's port count (the HX8K has 256 I/O sites).

use super::netlist::Dir;
use super::tools::{run, run_within, Run};
use super::Rtl;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

/// The device and flow options of a measurement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FmaxOptions {
    /// nextpnr's placer seed (`--seed`); seeds move Fmax by about ±10%.
    pub seed: u64,
    /// How long one place-and-route may take: nextpnr-ice40 0.4's router can fail to
    /// converge on a placement (it then runs without end), so a run past this limit is
    /// stopped and the next seed tried, up to [`FmaxOptions::seeds`] seeds in all.
    pub limit: Duration,
    /// Seeds tried in all (`seed`, `seed + 1`, ...).
    pub seeds: u64,
}

impl Default for FmaxOptions {
    fn default() -> FmaxOptions {
        FmaxOptions {
            seed: 1,
            limit: Duration::from_secs(60),
            seeds: 3,
        }
    }
}

/// How the error of a design too large for the device begins: the one error of [`measure`]
/// that every run gives again (a router stopped by the time limit may converge on a quieter
/// machine).
pub const DOES_NOT_FIT: &str = "the design does not fit the iCE40 HX8K";

/// What place-and-route measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FmaxReport {
    /// The clock nextpnr achieved, in MHz.
    pub fmax_mhz: f64,
    /// Logic cells used (`ICESTORM_LC`), the harness included.
    pub logic_cells: u64,
    /// Logic cells of the device.
    pub logic_cells_available: u64,
    /// Block RAMs used (`ICESTORM_RAM`).
    pub rams: u64,
    /// Flip-flops the harness itself adds (input bits + 2 × output bits).
    pub harness_ffs: u64,
    /// The placer seed of this result (a later one when an earlier seed's routing did not
    /// converge in time).
    pub seed: u64,
    /// The critical path: the design's signals it passes, from start to end
    /// (`module instance path.signal`, with the node's operator where it is a node).
    pub critical_path: Vec<String>,
    /// Wall time of synthesis and place-and-route.
    #[serde(skip)]
    pub time: Duration,
}

/// The register harness around the top module of `rtl` (module `tessera_harness`).
pub fn harness(rtl: &Rtl) -> String {
    let ins: Vec<(&str, u32)> = rtl
        .ports
        .iter()
        .filter(|(d, n, _)| *d == Dir::In && n != "clk")
        .map(|(_, n, w)| (n.as_str(), *w))
        .collect();
    let outs: Vec<(&str, u32)> = rtl
        .ports
        .iter()
        .filter(|(d, _, _)| *d == Dir::Out)
        .map(|(_, n, w)| (n.as_str(), *w))
        .collect();
    let iw: u32 = ins.iter().map(|p| p.1).sum();
    let ow: u32 = outs.iter().map(|p| p.1).sum();
    let mut v = String::new();
    v.push_str(&rtl.verilog);
    let _ = writeln!(
        v,
        "\n// register harness: every input from a shift register, every output captured\n\
         module tessera_harness (input wire clk, input wire si, input wire ld, output wire so);"
    );
    let _ = writeln!(v, "  reg [{}:0] sin;", iw - 1);
    if iw == 1 {
        let _ = writeln!(v, "  always @(posedge clk) sin <= si;");
    } else {
        let _ = writeln!(
            v,
            "  always @(posedge clk) sin <= {{sin[{}:0], si}};",
            iw - 2
        );
    }
    let _ = writeln!(v, "  wire [{}:0] dout;", ow - 1);
    let mut conns = vec![".clk(clk)".to_string()];
    let mut lo = 0;
    for (n, w) in &ins {
        conns.push(format!(".{n}(sin[{}:{lo}])", lo + w - 1));
        lo += w;
    }
    lo = 0;
    for (n, w) in &outs {
        conns.push(format!(".{n}(dout[{}:{lo}])", lo + w - 1));
        lo += w;
    }
    let _ = writeln!(v, "  {} dut ({});", rtl.top, conns.join(", "));
    let _ = writeln!(v, "  reg [{}:0] cap;", ow - 1);
    let _ = writeln!(v, "  always @(posedge clk) cap <= dout;");
    let _ = writeln!(v, "  reg [{}:0] sout;", ow - 1);
    if ow == 1 {
        let _ = writeln!(v, "  always @(posedge clk) sout <= ld ? cap : 1'b0;");
    } else {
        let _ = writeln!(
            v,
            "  always @(posedge clk) sout <= ld ? cap : {{sout[{}:0], 1'b0}};",
            ow - 2
        );
    }
    let _ = writeln!(v, "  assign so = sout[{}];\nendmodule", ow - 1);
    v
}

/// Synthesizes `rtl` in its harness for the iCE40 HX8K and places and routes it in `dir`.
/// A design that does not fit says so (with the cells it needs when nextpnr tells).
pub fn measure(rtl: &Rtl, dir: &Path, opts: &FmaxOptions) -> Result<FmaxReport, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    std::fs::write(dir.join("harness.v"), harness(rtl))
        .map_err(|e| format!("cannot write harness.v: {e}"))?;
    let _ = std::fs::remove_file(dir.join("report.json"));
    let synth = run(
        "yosys",
        &[
            "-q",
            "-l",
            "synth_ice40.log",
            "-p",
            "read_verilog harness.v; synth_ice40 -top tessera_harness -json harness.json",
        ],
        dir,
        &[],
    )?
    .check()?;
    let mut stalled = Vec::new();
    for seed in opts.seed..opts.seed + opts.seeds.max(1) {
        match place_and_route(dir, seed, opts.limit)? {
            Some(pnr) => {
                let mut rep = read_report(dir, &pnr, rtl)?;
                rep.seed = seed;
                rep.time = synth.time + pnr.time;
                return Ok(rep);
            }
            None => stalled.push(seed.to_string()),
        }
    }
    Err(format!(
        "nextpnr-ice40 did not finish within {} s with seeds {} (its router did not converge)",
        opts.limit.as_secs(),
        stalled.join(", ")
    ))
}

/// One nextpnr run with `seed`: `None` if it did not finish within `limit`.
fn place_and_route(dir: &Path, seed: u64, limit: Duration) -> Result<Option<Run>, String> {
    let seed = seed.to_string();
    run_within(
        "nextpnr-ice40",
        &[
            "--hx8k",
            "--package",
            "ct256",
            "--json",
            "harness.json",
            "--freq",
            "12",
            "--timing-allow-fail",
            "--pcf-allow-unconstrained",
            "--seed",
            &seed,
            "--report",
            "report.json",
            "--log",
            "nextpnr.log",
            "-q",
        ],
        dir,
        limit,
    )
}

/// The report of a finished nextpnr run, or why it failed.
fn read_report(dir: &Path, pnr: &Run, rtl: &Rtl) -> Result<FmaxReport, String> {
    if !pnr.ok {
        let log = std::fs::read_to_string(dir.join("nextpnr.log")).unwrap_or_default();
        if let Some(line) = log.lines().chain(pnr.stderr.lines()).find(|l| {
            l.contains("Design too large")
                || l.contains("not enough")
                || l.contains("no BELs remaining")
                || l.contains("Failed to expand region")
        }) {
            return Err(format!(
                "{DOES_NOT_FIT} (7680 logic cells, 32 RAMs): {}",
                line.trim()
            ));
        }
        return Err(pnr.clone().check().unwrap_err());
    }
    let text = std::fs::read_to_string(dir.join("report.json"))
        .map_err(|e| format!("nextpnr wrote no report.json: {e}"))?;
    parse_report(&text, rtl)
}

/// Reads nextpnr's `--report` JSON.
fn parse_report(text: &str, rtl: &Rtl) -> Result<FmaxReport, String> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("cannot parse nextpnr's report: {e}"))?;
    let util = |bel: &str, key: &str| {
        v.get("utilization")
            .and_then(|u| u.get(bel))
            .and_then(|b| b.get(key))
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0)
    };
    let fmax_mhz = v
        .get("fmax")
        .and_then(|f| f.as_object())
        .and_then(|f| f.values().next())
        .and_then(|c| c.get("achieved"))
        .and_then(serde_json::Value::as_f64)
        .ok_or("nextpnr's report has no achieved clock (is the design free of registers?)")?;
    let bits = |d: Dir| -> u64 {
        rtl.ports
            .iter()
            .filter(|(pd, n, _)| *pd == d && n != "clk")
            .map(|(_, _, w)| u64::from(*w))
            .sum()
    };
    let mut critical_path = Vec::new();
    if let Some(path) = v
        .get("critical_paths")
        .and_then(|c| c.as_array())
        .and_then(|c| c.first())
        .and_then(|c| c.get("path"))
        .and_then(|p| p.as_array())
    {
        for seg in path {
            if let Some(net) = seg.get("net").and_then(|n| n.as_str()) {
                let name = signal_name(net);
                if critical_path.last() != Some(&name) {
                    critical_path.push(name);
                }
            }
        }
    }
    let critical_path = critical_path
        .into_iter()
        .map(|s| annotate(&s, rtl))
        .collect();
    Ok(FmaxReport {
        fmax_mhz,
        logic_cells: util("ICESTORM_LC", "used"),
        logic_cells_available: util("ICESTORM_LC", "available"),
        rams: util("ICESTORM_RAM", "used"),
        harness_ffs: bits(Dir::In) + 2 * bits(Dir::Out),
        seed: 0,
        critical_path,
        time: Duration::ZERO,
    })
}

/// A net's name without the bit index, the `dut.` harness prefix and the suffixes
/// `synth_ice40` appends to the signals it splits (`_SB_LUT4_O_I1`, `_SB_CARRY_CO`, ...).
fn signal_name(net: &str) -> String {
    let base = net.split('[').next().unwrap_or(net).trim();
    let base = base.strip_prefix("dut.").unwrap_or(base);
    base.split("_SB_").next().unwrap_or(base).to_string()
}

/// `path.n<id>` with the operator of node `<id>` of the module the path ends in, when the
/// signal is a node of a known module.
fn annotate(signal: &str, rtl: &Rtl) -> String {
    let last = signal.rsplit('.').next().unwrap_or(signal);
    let Some(id) = last
        .strip_prefix('n')
        .and_then(|d| d.split('_').next())
        .and_then(|d| d.parse::<usize>().ok())
    else {
        return signal.to_string();
    };
    let module = if signal.contains('.') {
        // instance path: the module of the innermost instance is not in the net name; say
        // only the operator when every module agrees on it
        None
    } else {
        Some(rtl.top.as_str())
    };
    let ops: Vec<&str> = rtl
        .nodes
        .iter()
        .filter(|n| n.node.index() == id && module.is_none_or(|m| n.module == m))
        .map(|n| n.op.as_str())
        .collect();
    match ops.first() {
        Some(op) if ops.iter().all(|o| o == op) => format!("{signal} ({op})"),
        _ => signal.to_string(),
    }
}
