//! Area from synthesis: Yosys `synth_xilinx -family xc7 -flatten -noiopad -noclkbuf`
//! (out of context: no I/O or clock buffers) and `stat -json`, summed into Vivado-style
//! columns (`/work/shared/reference/rtl.md` §3.1).

use super::tools::run;
use super::{emit_with, Rtl, RtlOptions};
use crate::st::Design;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// Cell counts of a synthesized design, by Vivado-style column.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SynthReport {
    /// Logic LUTs (LUT1..LUT6).
    pub lut: u64,
    /// Inverters (`INV` cells: a LUT1 each once placed; `synth_xilinx` leaves them apart).
    pub inv: u64,
    /// LUTs used as distributed RAM, weighted by their LUT cost (RAM32M/RAM64M count 4).
    pub lutram: u64,
    /// Shift-register LUTs (SRL16E, SRLC32E).
    pub srl: u64,
    /// Flip-flops (FDRE, FDSE, FDCE, FDPE).
    pub ff: u64,
    /// RAMB18E1 blocks.
    pub ramb18: u64,
    /// RAMB36E1 blocks.
    pub ramb36: u64,
    /// DSP48E1 blocks.
    pub dsp: u64,
    /// CARRY4 cells (not counted in [`SynthReport::luts`]).
    #[serde(rename = "carry4")]
    pub carry: u64,
    /// MUXF7/MUXF8 cells.
    pub muxf: u64,
    /// Every cell type and its count (`tessera synth --json` prints them).
    #[serde(skip)]
    pub cells: BTreeMap<String, u64>,
    /// Yosys wall time.
    #[serde(skip)]
    pub time: Duration,
}

impl SynthReport {
    /// Block RAM in 36 Kb equivalents (RAMB36 + RAMB18 / 2).
    pub fn bram36(&self) -> f64 {
        self.ramb36 as f64 + self.ramb18 as f64 / 2.0
    }

    /// Every LUT used: logic LUTs, inverters, distributed RAM and shift registers.
    pub fn luts(&self) -> u64 {
        self.lut + self.inv + self.lutram + self.srl
    }

    /// LUTs (all sites) plus flip-flops: the synthesis size the model's scalar should rank.
    pub fn lut_ff(&self) -> u64 {
        self.luts() + self.ff
    }

    /// Capacity in bits of the memories used: 64 per LUTRAM LUT, 32 per SRL, 18 Kib per
    /// RAMB18 and 36 Kib per RAMB36 (what the model's `ram_bits` should rank).
    pub fn ram_bits(&self) -> u64 {
        self.lutram * 64 + self.srl * 32 + self.ramb18 * 18 * 1024 + self.ramb36 * 36 * 1024
    }

    /// Sums cell counts into columns.
    pub fn from_cells(cells: BTreeMap<String, u64>) -> SynthReport {
        let mut r = SynthReport::default();
        for (t, n) in &cells {
            let n = *n;
            match t.as_str() {
                "LUT1" | "LUT2" | "LUT3" | "LUT4" | "LUT5" | "LUT6" => r.lut += n,
                "INV" => r.inv += n,
                "RAM32M" | "RAM64M" => r.lutram += 4 * n,
                "RAM32X1S" | "RAM64X1S" | "RAM128X1S" | "RAM256X1S" => r.lutram += n,
                "RAM32X1D" | "RAM64X1D" | "RAM128X1D" => r.lutram += 2 * n,
                "SRL16E" | "SRLC32E" | "SRLC16E" => r.srl += n,
                "FDRE" | "FDSE" | "FDCE" | "FDPE" => r.ff += n,
                "RAMB18E1" => r.ramb18 += n,
                "RAMB36E1" => r.ramb36 += n,
                "DSP48E1" => r.dsp += n,
                "CARRY4" => r.carry += n,
                "MUXF7" | "MUXF8" => r.muxf += n,
                _ => {}
            }
        }
        r.cells = cells;
        r
    }

    /// Parses the output of `stat -json` (the `design` section, after `-flatten`).
    pub fn from_stat_json(text: &str) -> Result<SynthReport, String> {
        // Yosys may print log lines before the JSON object when `tee` captures it.
        let start = text.find('{').ok_or("no JSON object in the stat output")?;
        let v: serde_json::Value = serde_json::from_str(&text[start..])
            .map_err(|e| format!("cannot parse the stat JSON: {e}"))?;
        let by_type = v
            .get("design")
            .and_then(|d| d.get("num_cells_by_type"))
            .and_then(|c| c.as_object())
            .ok_or("the stat JSON has no design.num_cells_by_type")?;
        let cells = by_type
            .iter()
            .map(|(k, n)| (k.clone(), n.as_u64().unwrap_or(0)))
            .collect();
        Ok(SynthReport::from_cells(cells))
    }
}

/// Synthesizes `file` (in `dir`) with `top` as the top module.
pub fn synth_file(dir: &Path, file: &str, top: &str) -> Result<SynthReport, String> {
    let script = format!(
        "read_verilog {file}; synth_xilinx -family xc7 -flatten -noiopad -noclkbuf -top {top}; tee -q -o area.json stat -json"
    );
    let _ = std::fs::remove_file(dir.join("area.json"));
    let r = run("yosys", &["-q", "-l", "synth.log", "-p", &script], dir, &[])?.check()?;
    let text = std::fs::read_to_string(dir.join("area.json"))
        .map_err(|e| format!("yosys wrote no area.json: {e}"))?;
    let mut rep = SynthReport::from_stat_json(&text)?;
    rep.time = r.time;
    Ok(rep)
}

/// Emits `d` into `dir/design.v` and synthesizes it.
pub fn synth_design(d: &Design, dir: &Path, opts: &RtlOptions) -> Result<SynthReport, String> {
    synth_rtl(&emit_with(d, opts)?, dir)
}

/// Writes `rtl` into `dir/design.v` and synthesizes it.
pub fn synth_rtl(rtl: &Rtl, dir: &Path) -> Result<SynthReport, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    std::fs::write(dir.join("design.v"), &rtl.verilog)
        .map_err(|e| format!("cannot write design.v: {e}"))?;
    synth_file(dir, "design.v", &rtl.top)
}
