//! `tessera check`, `sim`, `area` and `dot` on space-time designs (`.st`).

use super::CliResult;
use crate::seq::load_program;
use crate::seq::value::format_value;
use crate::st::area::{area, Area, Weights};
use crate::st::latency;
use crate::st::stream::Lane;
use crate::st::verify::verify_random;
use crate::st::{load_design, Design};
use crate::util::budget::Budget;
use std::path::Path;

fn area_json(a: &Area, w: &Weights) -> serde_json::Value {
    serde_json::json!({
        "logic": a.logic,
        "ff_bits": a.ff_bits,
        "ram_bits": a.ram_bits,
        "dsp": a.dsp,
        "scalar": a.scalar(w),
    })
}

fn area_text(a: &Area, w: &Weights) -> String {
    format!(
        "{:.1} (logic {}, ff {} bits, ram {} bits, dsp {})",
        a.scalar(w),
        a.logic,
        a.ff_bits,
        a.ram_bits,
        a.dsp
    )
}

/// `tessera check DESIGN.st`: type-check, print layouts, clocks, latency and area.
pub fn check(file: &Path, json: bool) -> CliResult {
    let d = load_design(file)?;
    let lat = latency::analyze(&d)?;
    let w = Weights::default();
    let a = area(&d).total;
    let target = crate::st::delay::Target::ice40_hx8k();
    let cp = crate::st::pipeline::critical_path(&d, &target)?;
    if json {
        let inputs: serde_json::Map<String, serde_json::Value> = d
            .inputs
            .iter()
            .map(|i| (i.name.clone(), i.layout.to_string().into()))
            .collect();
        let misaligned: Vec<String> = lat.misaligned.iter().map(|m| m.op.clone()).collect();
        let doc = serde_json::json!({
            "design": d.name,
            "inputs": inputs,
            "output": d.output_layout().to_string(),
            "clocks": d.clocks(),
            "latency": lat.output,
            "misaligned_joins": misaligned,
            "nodes": d.top_scope().len(),
            "area": area_json(&a, &w),
            "timing": {
                "target": target.name,
                "critical_path_ns": cp.ns,
                "clock_mhz": cp.mhz,
                "critical_path": cp.ops,
                // the two parts of the model, for fitting it (scripts/timing_calibration.sh)
                "data_path_ns": crate::st::pipeline::critical_path(&d, &target.without_control())?.ns,
                "control_floor_ns": (lat.output > 0).then(|| target.design_control_ns(&d)),
            },
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        println!("design {}", d.name);
        for i in &d.inputs {
            println!("  input  {} : {}", i.name, i.layout);
        }
        println!("  output : {}", d.output_layout());
        println!(
            "  clocks : {} per period ({} valid at the output)",
            d.clocks(),
            d.output_layout().valid_clocks()
        );
        println!("  latency: {}", lat.output);
        for m in &lat.misaligned {
            println!(
                "  warning: {} joins inputs with latencies {:?}; `tessera sim` inserts FIFOs",
                m.op, m.inputs
            );
        }
        println!("  area   : {}", area_text(&a, &w));
        println!(
            "  clock  : {:.1} MHz modelled on {} (critical path: {})",
            cp.mhz,
            target.name,
            logic_path(cp.ns, &cp.ops)
        );
    }
    Ok(0)
}

/// A modelled critical path for messages: its delay and operators, or that it has none (a
/// design of wires only: its clock is the register's alone).
pub(super) fn logic_path(ns: f64, ops: &[String]) -> String {
    if ops.is_empty() {
        return "no logic between registers, wiring only".into();
    }
    format!("{ns:.2} ns of logic: {}", ops.join(" -> "))
}

/// A design that cannot implement its program, as an error naming both files.
pub(super) fn mismatch(design: &Path, program: &Path, r: Result<(), String>) -> Result<(), String> {
    r.map_err(|e| {
        format!(
            "{}: does not implement the program {}: {e}",
            design.display(),
            program.display()
        )
    })
}

/// `tessera sim DESIGN.st --program FILE.seq [--random SEED] [--frames N] [--json]`.
pub fn sim(
    file: &Path,
    program: &Path,
    (seed, frames): (Option<u64>, usize),
    json: bool,
    budget: Budget,
) -> CliResult {
    let d = load_design(file)?;
    let p = load_program(program)?;
    mismatch(file, program, crate::st::verify::check_compatible(&d, &p))?;
    let seed = seed.unwrap_or(0);
    if frames == 0 {
        return Err("--frames must be at least 1".into());
    }
    let aligned: Design;
    let mut lat = latency::analyze(&d)?;
    let inserted = !lat.misaligned.is_empty();
    let design = if inserted {
        aligned = latency::insert_fifos(&d)?;
        lat = latency::analyze(&aligned)?;
        &aligned
    } else {
        &d
    };
    let lat = lat.output;
    budget.check(
        file,
        "simulating the design",
        crate::st::estimate::sim_bytes(design, lat),
    )?;
    let v = verify_random(design, &p, seed, frames)?;
    let passed = v.passed();
    if json {
        let mism: Vec<serde_json::Value> = v
            .mismatches
            .iter()
            .map(|m| {
                serde_json::json!({
                    "frame": m.frame,
                    "atom": m.atom,
                    "expected": format!("{:?}", m.expected),
                    "got": lane_text(&m.got),
                })
            })
            .collect();
        let doc = serde_json::json!({
            "design": d.name,
            "program": p.name,
            "seed": seed,
            "frames": frames,
            "clocks": v.sim.clocks,
            "latency": v.sim.latency,
            "model_latency": v.sim.model_latency,
            "fifos_inserted": inserted,
            "clocks_simulated": v.sim.clocks_run,
            "atoms_checked": v.checked,
            "atoms_dont_care": v.skipped,
            "mismatches": v.mismatch_count,
            "first_mismatches": mism,
            "violations": v.sim.violations,
            "passed": passed,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        println!("design {} against program {} (seed {seed})", d.name, p.name);
        if inserted {
            println!("  latency-matching FIFOs inserted at misaligned joins");
        }
        println!(
            "  clocks : {} per period, {frames} frames back to back, {} clocks simulated",
            v.sim.clocks, v.sim.clocks_run
        );
        println!(
            "  latency: {} (model {})",
            v.sim.latency, v.sim.model_latency
        );
        println!(
            "  checked {} output atoms, {} don't-care skipped",
            v.checked, v.skipped
        );
        let atom = crate::st::verify::atom_type(p.output_type());
        for m in v.mismatches.iter().take(10) {
            let got = match &m.got {
                Lane::Val(g) => format_value(g, atom),
                Lane::Poison => lane_text(&m.got),
            };
            println!(
                "  MISMATCH frame {} atom {}: expected {}, got {got}",
                m.frame,
                m.atom,
                format_value(&m.expected, atom),
            );
        }
        for s in &v.sim.violations {
            println!("  VIOLATION {s}");
        }
        println!("  {}", if passed { "PASS" } else { "FAIL" });
    }
    Ok(if passed { 0 } else { 1 })
}

fn lane_text(l: &Lane) -> String {
    match l {
        Lane::Poison => "poison (data from an invalid clock)".into(),
        Lane::Val(v) => format!("{v:?}"),
    }
}

/// `tessera area DESIGN.st [--json]`: the model area by operator.
pub fn area_cmd(d: &Design, json: bool) -> CliResult {
    if json {
        println!("{}", serde_json::to_string_pretty(&area_doc(d))?);
    } else {
        print!("{}", area_table(d));
    }
    Ok(0)
}

/// The model area of `d` as JSON: design, weights, total, `by_operator` and the pipeline
/// register bits counted once (what `area --json` prints; `area --yosys --json` adds the
/// synthesis beside it).
pub(super) fn area_doc(d: &Design) -> serde_json::Value {
    let w = Weights::default();
    let r = area(d);
    let by_op: serde_json::Map<String, serde_json::Value> = r
        .by_op
        .iter()
        .map(|(k, (n, a))| {
            let mut j = area_json(a, &w);
            j["instances"] = (*n).into();
            (k.to_string(), j)
        })
        .collect();
    serde_json::json!({
        "design": d.name,
        "weights": serde_json::to_value(w).expect("weights serialize"),
        "total": area_json(&r.total, &w),
        "by_operator": by_op,
        "merged_ff_bits": r.merged_ff_bits,
    })
}

/// The model area of `d` as text: one row per operator kind, the total and the weights.
pub(super) fn area_table(d: &Design) -> String {
    use std::fmt::Write;
    let w = Weights::default();
    let r = area(d);
    let mut out = format!("design {}\n", d.name);
    let _ = writeln!(
        out,
        "  {:<18} {:>9} {:>8} {:>8} {:>9} {:>5} {:>9}",
        "operator", "instances", "logic", "ff", "ram", "dsp", "scalar"
    );
    for (k, (n, a)) in &r.by_op {
        let _ = writeln!(
            out,
            "  {:<18} {:>9} {:>8} {:>8} {:>9} {:>5} {:>9.1}",
            k,
            n,
            a.logic,
            a.ff_bits,
            a.ram_bits,
            a.dsp,
            a.scalar(&w)
        );
    }
    if r.merged_ff_bits > 0 {
        let _ = writeln!(
            out,
            "  ({} pipeline register bits repeat registers the design holds: counted once)",
            r.merged_ff_bits
        );
    }
    let _ = writeln!(out, "  total: {}", area_text(&r.total, &w));
    let _ = writeln!(
        out,
        "  weights: logic {}, ff bit {}, ram bit {}, dsp {} (docs/area-model.md)",
        w.logic, w.ff_bit, w.ram_bit, w.dsp
    );
    out
}

/// `tessera dot (DESIGN.st | FILE.seq --slowdown S) [-o FILE]`.
pub fn dot(d: &Design, out: Option<&Path>) -> CliResult {
    let text = crate::st::dot::to_dot(d)?;
    match out {
        Some(path) => {
            std::fs::write(path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            println!("wrote {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(0)
}
