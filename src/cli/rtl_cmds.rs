//! `tessera rtl`, `tessera verify` and `tessera area --yosys` on space-time designs.

use super::schedule_cmds::{design_for, Strategy};
use super::CliResult;
use crate::rtl::sim::Simulator;
use crate::rtl::synth::synth_design;
use crate::rtl::tb::testbench;
use crate::rtl::verify::{verify_rtl, verify_rtl_on, RtlVerification, VerifyOptions};
use crate::rtl::{emit_with, RtlOptions};
use crate::seq::load_program;
use crate::seq::types::SeqType;
use crate::seq::value::random_value;
use crate::seq::Value;
use crate::st::stream::flatten;
use crate::st::{load_design, Design};
use crate::util::budget::Budget;
use crate::util::rng::Rng;
use std::path::{Path, PathBuf};

/// Where a design comes from: a `.st` file, or a program scheduled at a slowdown.
pub struct DesignSource<'a> {
    /// A design (.st) or a program (.seq).
    pub file: &'a Path,
    /// For a program: the slowdown to schedule it at.
    pub slowdown: Option<u64>,
    /// For a program: the scheduler.
    pub strategy: Strategy,
    /// For a program: the clock its design is pipelined for.
    pub clock: Option<crate::st::pipeline::Clock>,
}

impl DesignSource<'_> {
    fn is_program(&self) -> bool {
        self.file.extension().is_some_and(|e| e == "seq")
    }

    /// The design: read from the file, or scheduled from the program.
    pub fn design(&self) -> Result<Design, Box<dyn std::error::Error>> {
        if !self.is_program() {
            return Ok(load_design(self.file)?);
        }
        let p = load_program(self.file)?;
        let s = self
            .slowdown
            .ok_or("a program (.seq) needs --slowdown S to be scheduled first")?;
        Ok(design_for(&p, s, self.strategy, self.clock.as_ref())
            .map_err(|e| format!("{}: {e}", self.file.display()))?)
    }
}

/// `tessera rtl (DESIGN.st | FILE.seq --slowdown S) -o OUT.v [--testbench] [--random SEED]
/// [--frames N]`.
///
/// With `--testbench`, writes `tb.v`, `in.bin` (random inputs in the design's input
/// layouts), `clkgen.v` (Icarus) and `main.cpp` (Verilator) beside `OUT.v`.
pub fn rtl(
    src: &DesignSource,
    out: &Path,
    (tb, seed, frames): (bool, u64, usize),
    opts: &RtlOptions,
    budget: Budget,
) -> CliResult {
    let d = src.design()?;
    let estimate = if tb {
        let lat = crate::st::latency::analyze(&d)?.output;
        crate::rtl::estimate::verify_bytes(&d, lat, frames as u64)
    } else {
        crate::rtl::estimate::emit_bytes(&d)
    };
    budget.check(src.file, "writing the Verilog", estimate)?;
    let r = emit_with(&d, opts)?;
    write(out, &r.verilog)?;
    let mut wrote = vec![out.display().to_string()];
    if tb {
        if frames == 0 {
            return Err("--frames must be at least 1".into());
        }
        let dir = out
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let inputs = random_inputs(&r.design, seed, frames);
        let t = testbench(&r, &inputs, true, seed, false);
        for (name, text) in [
            ("tb.v", &t.tb),
            ("in.bin", &t.stimulus),
            ("clkgen.v", &t.clkgen),
            ("main.cpp", &t.main_cpp),
        ] {
            let p = dir.join(name);
            write(&p, text)?;
            wrote.push(p.display().to_string());
        }
    }
    println!(
        "design {}: top module {}, period {} clocks, latency {} clocks{}",
        d.name,
        r.top,
        r.clocks,
        r.latency,
        if r.fifos_inserted {
            ", latency-matching FIFOs inserted"
        } else {
            ""
        }
    );
    for w in wrote {
        println!("  wrote {w}");
    }
    Ok(0)
}

/// Random values of the design's input layouts, flattened per frame and input.
fn random_inputs(d: &Design, seed: u64, frames: usize) -> Vec<Vec<Vec<crate::seq::Value>>> {
    let mut rng = Rng::new(seed);
    (0..frames)
        .map(|_| {
            d.inputs
                .iter()
                .map(|i| {
                    let t = i.layout.to_seq();
                    flatten(&random_value(&t, &mut rng), &t)
                })
                .collect()
        })
        .collect()
}

fn write(p: &Path, text: &str) -> Result<(), String> {
    std::fs::write(p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
}

/// The options of `tessera verify`.
pub struct VerifyArgs<'a> {
    /// A design (.st) or a program (.seq).
    pub file: &'a Path,
    /// For a design: its program.
    pub program: Option<&'a Path>,
    /// For a program: the slowdowns to schedule and verify.
    pub slowdowns: Vec<u64>,
    /// For a program: the scheduler.
    pub strategy: Strategy,
    /// For a program: the clock its designs are pipelined for.
    pub clock: Option<crate::st::pipeline::Clock>,
    /// `icarus` or `verilator`.
    pub sim: &'a str,
    /// Random seed.
    pub seed: u64,
    /// Frames back to back.
    pub frames: usize,
    /// Work directory (kept), or a fresh one under the system's temp dir.
    pub work: Option<&'a Path>,
    /// Input images instead of random frames, and the output image.
    pub image: &'a super::image_cmds::ImageArgs,
    /// Write the waveform (VCD) here.
    pub vcd: Option<&'a Path>,
    /// The RTL generator's options.
    pub rtl: RtlOptions,
    /// JSON output.
    pub json: bool,
    /// Where each slowdown scheduled and verified is reported.
    pub progress: crate::util::progress::Reporter,
    /// The memory budget.
    pub budget: Budget,
}

/// `tessera verify (DESIGN.st --program FILE.seq | FILE.seq SLOWDOWNS) [--sim S]
/// [--random SEED] [--json]`: (schedule,) emit, lint, simulate, compare. Prints one line per
/// design; exits 0 only if all pass.
pub fn verify(a: &VerifyArgs) -> CliResult {
    a.image.check()?;
    let is_program = a.file.extension().is_some_and(|e| e == "seq");
    // Everything the user gave is checked before any scheduling, which can take minutes:
    // a wrong image or option is reported at once.
    let (p, designs, images) = if is_program {
        let p = load_program(a.file)?;
        if a.slowdowns.is_empty() {
            return Err("say which slowdowns: --slowdown S, --slowdowns LIST or --all".into());
        }
        one_design_for_one_file(a, a.slowdowns.len())?;
        let images = super::image_cmds::read_inputs(&p, &a.image.images)?;
        // Each slowdown is scheduled, then verified: two steps of the bar.
        a.progress
            .begin(&format!("verify {}", p.name), 2 * a.slowdowns.len() as u64);
        let designs = a
            .slowdowns
            .iter()
            .map(|&s| {
                a.progress.phase(|| format!("s={s}: scheduling"));
                let d = design_for(&p, s, a.strategy, a.clock.as_ref())
                    .map_err(|e| format!("{}: slowdown {s}: {e}", a.file.display()));
                a.progress.advance(|| format!("s={s}: scheduled"));
                d
            })
            .collect::<Result<Vec<_>, _>>()
            .inspect_err(|_| a.progress.end())?;
        (p, designs, images)
    } else {
        let program = a
            .program
            .ok_or("a design (.st) needs --program FILE.seq to be compared with")?;
        let (p, d) = (load_program(program)?, load_design(a.file)?);
        super::design_cmds::mismatch(a.file, program, crate::st::verify::check_compatible(&d, &p))?;
        let images = super::image_cmds::read_inputs(&p, &a.image.images)?;
        (p, vec![d], images)
    };
    let mut all_passed = true;
    let mut reports = Vec::new();
    if !is_program {
        a.progress.begin(&format!("verify {}", p.name), 1);
    }
    for d in &designs {
        a.progress.phase(|| format!("{}: simulating", d.name));
        let verified = verify_one(a, d, &p, images.as_ref());
        a.progress.advance(|| format!("{}: verified", d.name));
        let (passed, report) = verified.inspect_err(|_| a.progress.end())?;
        all_passed &= passed;
        reports.push(report);
    }
    a.progress.end();
    if a.json {
        let doc = if is_program {
            serde_json::Value::Array(reports)
        } else {
            reports.remove(0)
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    }
    Ok(if all_passed { 0 } else { 1 })
}

/// `-o` and `--vcd` write one file: refused when `count` designs would be verified.
fn one_design_for_one_file(a: &VerifyArgs, count: usize) -> Result<(), String> {
    if (a.image.output.is_some() || a.vcd.is_some()) && count > 1 {
        return Err(format!(
            "-o and --vcd write one file, and {count} designs would be verified: give one slowdown"
        ));
    }
    Ok(())
}

/// Verifies one design; prints its line unless JSON was asked for.
fn verify_one(
    a: &VerifyArgs,
    d: &Design,
    p: &crate::seq::Program,
    images: Option<&super::image_cmds::InputImages>,
) -> Result<(bool, serde_json::Value), Box<dyn std::error::Error>> {
    let lat = crate::st::latency::analyze(d)?.output;
    a.budget.check(
        a.file,
        &format!("verifying design {} on {} frame(s)", d.name, a.frames),
        crate::rtl::estimate::verify_bytes(d, lat, a.frames as u64),
    )?;
    let sim = Simulator::parse(a.sim)?;
    for t in sim.tools().iter().chain(&["verilator"]) {
        if crate::rtl::tools::find_tool(t).is_none() {
            return Err(format!(
                "{t} not found on PATH; install it with apt-get install -y {}",
                crate::rtl::tools::apt_package(t)
            )
            .into());
        }
    }
    if a.frames < 1 {
        return Err("--frames must be at least 1".into());
    }
    let per_design = a.file.extension().is_some_and(|e| e == "seq");
    let dir = match a.work {
        Some(w) if per_design => w.join(crate::rtl::netlist::ident(&d.name)),
        Some(w) => w.to_path_buf(),
        None => std::env::temp_dir().join(format!(
            "tessera-verify-{}-{}",
            crate::rtl::netlist::ident(&d.name),
            std::process::id()
        )),
    };
    let opts = VerifyOptions {
        sim,
        seed: a.seed,
        frames: a.frames,
        lint: true,
        rtl: a.rtl.clone(),
        vcd: a.vcd.is_some(),
    };
    let v = match images {
        // The same image in every frame: back-to-back frames still test the design's
        // behaviour across frame boundaries.
        Some(im) => {
            let frame: Vec<_> = (0..p.inputs.len())
                .map(|k| im.flat(k, &p.inputs[k].ty).to_value())
                .collect();
            verify_rtl_on(d, p, &dir, &opts, &vec![frame; a.frames])?
        }
        None => verify_rtl(d, p, &dir, &opts)?,
    };
    let passed = v.passed();
    let mut report = verify_json(&v, &dir);
    let image_line = match &a.image.output {
        Some(path) => {
            let defaults = images.map_or((None, None), |im| im.defaults());
            let width = a.image.width.or(defaults.0);
            let depth = a.image.depth.or(defaults.1);
            let atom = crate::st::verify::atom_type(p.output_type());
            let atom_scalars = flat_scalars(&v.first_frame, atom);
            let line = super::image_cmds::write_output(
                path,
                |i| atom_scalars[i],
                p.output_type(),
                (width, depth),
            )?;
            report["output_image"] = serde_json::json!(path.display().to_string());
            Some(format!("{line} (the RTL's first frame)"))
        }
        None => None,
    };
    let waveform = match (a.vcd, &v.vcd) {
        (Some(dst), Some(src)) => {
            std::fs::copy(src, dst).map_err(|e| format!("cannot write {}: {e}", dst.display()))?;
            Some(dst.to_path_buf())
        }
        (Some(_), None) => return Err("the simulator wrote no waveform".into()),
        (None, src) => src.clone(),
    };
    if let Some(w) = &waveform {
        report["vcd"] = serde_json::json!(w.display().to_string());
    }
    if !a.json {
        println!("{}", verify_line(&v));
        if let Some(line) = image_line {
            println!("  {line}");
        }
        if let Some(w) = &waveform {
            println!(
                "  waveform: {} (nets named nK as in `tessera dot`)",
                w.display()
            );
        }
        if let Some(Err(e)) = &v.lint {
            println!("  {}", e.trim_end().replace('\n', "\n  "));
        }
        for m in &v.mismatches {
            println!("  MISMATCH {m}");
        }
        if !passed {
            println!("  work dir kept: {}", dir.display());
        }
    }
    if passed && a.work.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok((passed, report))
}

/// The scalars of a frame's atoms (each of type `atom`) in order, `None` for don't care.
fn flat_scalars(atoms: &[Value], atom: &SeqType) -> Vec<Option<u32>> {
    fn push(v: &Value, t: &SeqType, out: &mut Vec<Option<u32>>) {
        match (t, v) {
            (SeqType::ATuple(a, b), Value::Pair(p)) => {
                push(&p.0, a, out);
                push(&p.1, b, out);
            }
            (SeqType::ATuple(a, b), _) => {
                push(&Value::Undef, a, out);
                push(&Value::Undef, b, out);
            }
            // Scalars are at most 32 bits wide.
            (_, Value::Scalar(x)) => out.push(Some(*x as u32)),
            _ => out.push(None),
        }
    }
    let mut out = Vec::new();
    for v in atoms {
        push(v, atom, &mut out);
    }
    out
}

fn verify_line(v: &RtlVerification) -> String {
    format!(
        "{} {} [{}]: lint {}, latency {}, period {}, {} frames, {} valid output clocks, {} atoms checked, {} don't-care, {} mismatches",
        if v.passed() { "PASS" } else { "FAIL" },
        v.rtl.design.name,
        v.sim.name(),
        match &v.lint {
            None => "skipped",
            Some(Ok(())) => "clean",
            Some(Err(_)) => "FAILED",
        },
        v.rtl.latency,
        v.rtl.clocks,
        v.frames,
        v.valid_clocks,
        v.atoms_checked,
        v.atoms_dont_care,
        v.mismatch_count
    )
}

fn verify_json(v: &RtlVerification, dir: &Path) -> serde_json::Value {
    serde_json::json!({
        "design": v.rtl.design.name,
        "top": v.rtl.top,
        "simulator": v.sim.name(),
        "lint": match &v.lint {
            None => serde_json::Value::Null,
            Some(Ok(())) => "clean".into(),
            Some(Err(e)) => e.clone().into(),
        },
        "latency": v.rtl.latency,
        "clocks": v.rtl.clocks,
        "fifos_inserted": v.rtl.fifos_inserted,
        "frames": v.frames,
        "clocks_simulated": v.clocks_simulated,
        "valid_output_clocks": v.valid_clocks,
        "atoms_checked": v.atoms_checked,
        "atoms_dont_care": v.atoms_dont_care,
        "mismatches": v.mismatch_count,
        "first_mismatches": v.mismatches,
        "work_dir": dir.display().to_string(),
        "seconds": {
            "lint": v.times.0.as_secs_f64(),
            "build": v.times.1.as_secs_f64(),
            "run": v.times.2.as_secs_f64(),
        },
        "passed": v.passed(),
    })
}

/// `tessera area DESIGN.st --yosys [--json]`: Yosys `synth_xilinx` cell counts beside the
/// model area.
pub fn area_yosys(
    d: &Design,
    json: bool,
    opts: &RtlOptions,
    progress: &crate::util::progress::Reporter,
) -> CliResult {
    if crate::rtl::tools::find_tool("yosys").is_none() {
        return Err("yosys not found on PATH; install it with apt-get install -y yosys".into());
    }
    let dir = std::env::temp_dir().join(format!(
        "tessera-area-{}-{}",
        crate::rtl::netlist::ident(&d.name),
        std::process::id()
    ));
    progress.begin(&format!("area {}", d.name), 0);
    progress.phase(|| "yosys synth_xilinx".into());
    let s = synth_design(d, &dir, opts);
    progress.end();
    let _ = std::fs::remove_dir_all(&dir);
    let s = s?;
    if json {
        // The model's document (total and by operator) with the synthesis beside it.
        let mut doc = super::design_cmds::area_doc(d);
        doc["yosys"] = serde_json::json!({
            "target": SYNTH_TARGET,
            "lut": s.lut,
            "lutram": s.lutram,
            "srl": s.srl,
            "ff": s.ff,
            "ramb18": s.ramb18,
            "ramb36": s.ramb36,
            "bram36": s.bram36(),
            "dsp": s.dsp,
            "carry4": s.carry,
            "muxf": s.muxf,
            "cells": s.cells,
            "seconds": s.time.as_secs_f64(),
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", super::design_cmds::area_table(d));
        println!(
            "  yosys: LUT {}, LUTRAM {}, SRL {}, FF {}, BRAM {} (RAMB18 {}, RAMB36 {}), DSP {}, CARRY4 {}, MUXF {}",
            s.lut,
            s.lutram,
            s.srl,
            s.ff,
            s.bram36(),
            s.ramb18,
            s.ramb36,
            s.dsp,
            s.carry,
            s.muxf
        );
        // Operators are inlined into the top module (only function bodies are modules of
        // their own), and synthesis flattens and optimizes across them: its numbers are
        // the whole design's.
        println!(
            "  (yosys: the whole design, {SYNTH_TARGET}, {:.1} s; operators are inlined and optimized together, so synthesis has no per-operator split)",
            s.time.as_secs_f64()
        );
    }
    Ok(0)
}

/// How `area --yosys` synthesizes ([`synth_design`]).
const SYNTH_TARGET: &str = "synth_xilinx -family xc7 -flatten -noiopad -noclkbuf";

/// `tessera fmax`: the design in its register harness, placed and routed on the iCE40 HX8K.
pub fn fmax(
    d: &Design,
    seed: u64,
    work: Option<&Path>,
    json: bool,
    opts: &RtlOptions,
    progress: &crate::util::progress::Reporter,
) -> CliResult {
    for tool in ["yosys", "nextpnr-ice40"] {
        if crate::rtl::tools::find_tool(tool).is_none() {
            return Err(format!(
                "{tool} not found on PATH; install it with apt-get install -y {tool}"
            )
            .into());
        }
    }
    let dir = work.map_or_else(
        || {
            std::env::temp_dir().join(format!(
                "tessera-fmax-{}-{}",
                crate::rtl::netlist::ident(&d.name),
                std::process::id()
            ))
        },
        Path::to_path_buf,
    );
    let r = emit_with(d, opts)?;
    let model = crate::st::pipeline::critical_path(d, &crate::st::delay::Target::ice40_hx8k())?;
    progress.begin(&format!("fmax {}", d.name), 0);
    progress.phase(|| "yosys synth_ice40, nextpnr-ice40 place and route".into());
    let res = crate::rtl::fmax::measure(
        &r,
        &dir,
        &crate::rtl::fmax::FmaxOptions {
            seed,
            ..crate::rtl::fmax::FmaxOptions::default()
        },
    );
    progress.end();
    if work.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let rep = match res {
        Ok(rep) => rep,
        Err(e) if e.contains("does not fit") => {
            eprintln!("{}: {e}", d.name);
            return Ok(1);
        }
        Err(e) => return Err(e.into()),
    };
    if json {
        let doc = serde_json::json!({
            "design": d.name,
            "target": "iCE40 HX8K (ct256), synth_ice40 + nextpnr-ice40, register harness",
            "seed": rep.seed,
            "latency": r.latency,
            "fmax_mhz": rep.fmax_mhz,
            "model_mhz": model.mhz,
            "model_critical_path": model.ops,
            "logic_cells": rep.logic_cells,
            "logic_cells_available": rep.logic_cells_available,
            "rams": rep.rams,
            "harness_ffs": rep.harness_ffs,
            "critical_path": rep.critical_path,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        println!(
            "design {}: Fmax {:.2} MHz on the iCE40 HX8K (seed {}), {} logic cells of {} ({} of them the harness's flip-flops), {} RAMs, latency {} clocks",
            d.name, rep.fmax_mhz, rep.seed, rep.logic_cells, rep.logic_cells_available, rep.harness_ffs, rep.rams, r.latency
        );
        println!(
            "  the delay model predicts {:.1} MHz ({})",
            model.mhz,
            super::design_cmds::logic_path(model.ns, &model.ops)
        );
        println!("  critical path:");
        for s in &rep.critical_path {
            println!("    {s}");
        }
    }
    Ok(0)
}
