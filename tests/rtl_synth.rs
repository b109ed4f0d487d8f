//! Yosys area of generated designs (`synth_xilinx -family xc7`, out of context): a few
//! designs (each run costs about 4-6 s) asserting properties of the generators: deep line
//! buffers map to RAM or shift-register LUTs rather than flip-flops, a constant multiply
//! costs no DSP while a variable one does.

#[path = "st_common/mod.rs"]
mod common;

use common::*;
use std::path::{Path, PathBuf};
use tessera::rtl::synth::{synth_design, SynthReport};
use tessera::rtl::tools::require_tool;
use tessera::rtl::{emit, RtlOptions};
use tessera::seq::op::AtomOp;
use tessera::seq::types::ScalarType;
use tessera::st::{Design, Layout, StOp};

fn work(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("rtl_synth")
        .join(name)
}

fn synth(d: &Design, name: &str) -> SynthReport {
    let r = synth_design(d, &work(name), &RtlOptions::default()).unwrap();
    eprintln!(
        "{name}: LUT {} LUTRAM {} SRL {} FF {} RAMB18 {} RAMB36 {} DSP {} CARRY4 {} ({:.1} s)",
        r.lut,
        r.lutram,
        r.srl,
        r.ff,
        r.ramb18,
        r.ramb36,
        r.dsp,
        r.carry,
        r.time.as_secs_f64()
    );
    r
}

/// `x + s x + s (s x)` with `s` a one-row shift, rows of `w` uint8 pixels.
fn rows3(w: u64) -> Design {
    let n = 4 * w;
    let l = Layout::tseq(n, 0, ScalarType::UInt8.into());
    let mut d = Design::new("rows3");
    let x = d.add_input("I", l).unwrap();
    let shift = StOp::ShiftT {
        n,
        i: 0,
        amount: w,
        elem: ScalarType::UInt8.into(),
        init: None,
    };
    let s1 = d.add(shift.clone(), &[x]).unwrap();
    let s2 = d.add(shift, &[s1]).unwrap();
    let a = st_deep2(&mut d, x, s1, &st_add);
    let o = st_deep2(&mut d, a, s2, &st_add);
    d.set_output(o).unwrap();
    d
}

#[test]
fn deep_line_buffers_use_ram_not_flip_flops() {
    if !require_tool(&["yosys"], "Yosys line buffer") {
        return;
    }
    let d = rows3(640);
    let bits = emit(&d).unwrap().storage();
    // two 640-pixel rows of 8 bits: 10,240 bits of storage
    assert_eq!(bits.total(), 2 * 640 * 8);
    let r = synth(&d, "rows3_640");
    assert!(
        r.ff < 200,
        "{} flip-flops for {} storage bits",
        r.ff,
        bits.total()
    );
    assert!(
        r.bram36() > 0.0 || r.lutram > 0 || r.srl > 0,
        "no RAM: {:?}",
        r.cells
    );
    assert!(r.lut > 0);
}

fn map_mul(konst: bool) -> Design {
    let l = Layout::tseq(16, 0, Layout::sseq(4, ScalarType::UInt16.into()));
    let mut d = Design::new(if konst { "mulc" } else { "mulv" });
    let x = d.add_input("X", l.clone()).unwrap();
    let o = if konst {
        st_deep(&mut d, x, &|d, a| st_leaf(d, Leaf::MulConst(1234), a))
    } else {
        let y = d.add_input("Y", l).unwrap();
        st_deep2(&mut d, x, y, &|d, a, b| {
            let t = d.add(StOp::ATuple, &[a, b]).unwrap();
            d.add(StOp::Atom(AtomOp::Mul), &[t]).unwrap()
        })
    };
    d.set_output(o).unwrap();
    d
}

#[test]
fn constant_multiplies_use_no_dsp_but_variable_ones_do() {
    if !require_tool(&["yosys"], "Yosys multiplies") {
        return;
    }
    let c = synth(&map_mul(true), "mulc");
    assert_eq!(c.dsp, 0, "a constant multiply took DSPs: {:?}", c.cells);
    assert!(c.lut > 0 && c.carry > 0, "{:?}", c.cells);
    let v = synth(&map_mul(false), "mulv");
    assert!(
        v.dsp >= 4,
        "four 16x16 multiplies but {} DSPs: {:?}",
        v.dsp,
        v.cells
    );
}

#[test]
fn a_transposing_reshape_synthesizes_to_its_buffer() {
    if !require_tool(&["yosys"], "Yosys reshape") {
        return;
    }
    let a = Layout::tseq(3, 1, Layout::sseq(3, ScalarType::UInt8.into()));
    let b = Layout::sseq(3, Layout::tseq(3, 1, ScalarType::UInt8.into()));
    let mut d = Design::new("transpose");
    let i = d.add_input("I", a.clone()).unwrap();
    let o = d.add(StOp::Reshape { from: a, to: b }, &[i]).unwrap();
    d.set_output(o).unwrap();
    let rtl = emit(&d).unwrap();
    let info = rtl
        .nodes
        .iter()
        .find(|n| n.op.starts_with("reshape"))
        .unwrap();
    assert_eq!(info.generator, "perm-buffer");
    let r = synth(&d, "transpose");
    // the buffer's registers survive synthesis (every slot is read), plus a little control
    assert!(
        r.ff >= info.storage.ff_bits,
        "{} FF for a {}-bit buffer",
        r.ff,
        info.storage.ff_bits
    );
    assert!(
        r.ff <= info.storage.ff_bits + 16,
        "{} FF for a {}-bit buffer",
        r.ff,
        info.storage.ff_bits
    );
}

/// `tessera area --yosys` keeps the model's per-operator table (issue 18) and adds the
/// synthesized totals, in text and in JSON.
#[test]
fn area_yosys_keeps_the_per_operator_table() {
    if !require_tool(&["yosys"], "area --yosys") {
        return;
    }
    let design = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/designs/diamond_s2.st");
    let run = |extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
            .arg("area")
            .arg(&design)
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let model = run(&[]);
    let with = run(&["--yosys"]);
    // every line of the model's report, table rows and total included, in order
    assert!(
        with.starts_with(&model),
        "model:\n{model}\nwith yosys:\n{with}"
    );
    assert!(model.lines().count() > 4, "{model}");
    assert!(with[model.len()..].contains("  yosys: LUT "), "{with}");

    let model: serde_json::Value = serde_json::from_str(&run(&["--json"])).unwrap();
    let with: serde_json::Value = serde_json::from_str(&run(&["--json", "--yosys"])).unwrap();
    assert_eq!(model["by_operator"], with["by_operator"]);
    assert_eq!(model["total"], with["total"]);
    assert!(with["yosys"]["lut"].as_u64().is_some(), "{with}");
}
