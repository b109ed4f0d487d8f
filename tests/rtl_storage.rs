//! Storage of the generated data movement: the general Reshape buffers no more than it
//! must (its storage bits equal the computed minimum, `Perm::max_live_atoms` times the atom
//! width), and deep shifts become RAM delay lines, checked by simulation.

#[path = "st_common/mod.rs"]
mod common;

use common::*;
use std::path::{Path, PathBuf};
use tessera::rtl::buffer::schedule;
use tessera::rtl::sim::Simulator;
use tessera::rtl::tools::require_tool;
use tessera::rtl::verify::{verify_rtl, VerifyOptions};
use tessera::rtl::{emit, RtlOptions};
use tessera::seq::build;
use tessera::seq::op::Op;
use tessera::seq::types::ScalarType;
use tessera::seq::Program;
use tessera::st::perm::Perm;
use tessera::st::{Design, Layout, StOp};

fn work(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("rtl_storage")
        .join(name)
}

fn int8() -> Layout {
    Layout::Scalar(ScalarType::Int8)
}

/// No tools needed: for every pair of small layouts of equal clocks and atoms, the slot
/// schedule of the permutation buffer uses exactly the minimum number of slots, and every
/// atom is written before it is read (the schedule is built from the reads).
#[test]
fn buffer_schedules_use_the_minimum_slots_for_every_small_reshape() {
    let mut pairs = 0;
    let mut max_periods = 0;
    for g in layout_pool() {
        for a in &g {
            for b in &g {
                let op = StOp::Reshape {
                    from: a.clone(),
                    to: b.clone(),
                };
                let perm = Perm::of(&op, a, b).unwrap();
                let live = perm.max_live_atoms();
                let s = schedule(&perm, 64)
                    .unwrap_or_else(|| panic!("no periodic schedule for {a} -> {b}"));
                assert_eq!(
                    s.slots, live,
                    "{a} -> {b}: {} slots, minimum {live}",
                    s.slots
                );
                assert_eq!(s.writes.len() as u64, s.periods * a.clocks());
                max_periods = max_periods.max(s.periods);
                pairs += 1;
            }
        }
    }
    assert!(pairs > 1000, "only {pairs} pairs");
    eprintln!("{pairs} reshapes scheduled, longest schedule {max_periods} frames");
}

/// No tools needed: the generated storage of every small reshape equals the minimum
/// (whichever generator is chosen: the buffer when it is smaller than delay lines, else
/// delay lines, which are then no larger than the buffer).
#[test]
fn every_small_reshape_stores_exactly_the_minimum() {
    let mut n = 0;
    let mut buffers = 0;
    for g in layout_pool() {
        for a in &g {
            for b in &g {
                let mut d = tessera::st::Design::new("r");
                let i = d.add_input("I", a.clone()).unwrap();
                let op = StOp::Reshape {
                    from: a.clone(),
                    to: b.clone(),
                };
                let o = d.add(op.clone(), &[i]).unwrap();
                d.set_output(o).unwrap();
                let rtl = emit(&d).unwrap();
                let info = rtl
                    .nodes
                    .iter()
                    .find(|n| n.op.starts_with("reshape"))
                    .unwrap();
                let minimum = Perm::of(&op, a, b).unwrap().max_live_atoms() * 8;
                assert_eq!(
                    info.storage.total(),
                    minimum,
                    "{a} -> {b} ({})",
                    info.generator
                );
                buffers += usize::from(info.generator == "perm-buffer");
                n += 1;
            }
        }
    }
    assert!(
        buffers > 100,
        "only {buffers} of {n} reshapes used the buffer"
    );
    eprintln!("{n} reshapes, {buffers} with a permutation buffer");
}

/// Reshapes whose buffer is built: the generated storage equals the minimum, and the
/// Verilog simulates equal to the interpreter.
#[test]
fn reshape_storage_equals_the_minimum_and_simulates() {
    let have_tools = require_tool(&["iverilog", "vvp", "verilator"], "reshape simulation");
    let cases = [
        // transpose space and time
        (
            Layout::tseq(4, 0, Layout::sseq(2, int8())),
            Layout::sseq(2, Layout::tseq(4, 0, int8())),
        ),
        (
            Layout::tseq(3, 1, Layout::sseq(3, int8())),
            Layout::sseq(3, Layout::tseq(3, 1, int8())),
        ),
        // space-time transpose the other way
        (
            Layout::sseq(2, Layout::tseq(3, 0, int8())),
            Layout::tseq(3, 0, Layout::sseq(2, int8())),
        ),
        // move invalid clocks from the end to between elements
        (
            Layout::tseq(4, 4, int8()),
            Layout::tseq(4, 0, Layout::tseq(1, 1, int8())),
        ),
        // serialize-like: all lanes in one clock to one lane over time
        (
            Layout::tseq(1, 5, Layout::sseq(6, int8())),
            Layout::tseq(6, 0, int8()),
        ),
        (
            Layout::tseq(2, 1, Layout::sseq(3, int8())),
            Layout::tseq(3, 0, Layout::sseq(2, int8())),
        ),
    ];
    for (k, (a, b)) in cases.iter().enumerate() {
        let mut pr = Pair::new("reshape");
        let (pi, di) = pr.input("I", a);
        let dout =
            pr.d.add(
                StOp::Reshape {
                    from: a.clone(),
                    to: b.clone(),
                },
                &[di],
            )
            .unwrap();
        let (p, d) = pr.finish(pi, dout);
        let rtl = emit(&d).unwrap();
        let perm = Perm::of(
            &StOp::Reshape {
                from: a.clone(),
                to: b.clone(),
            },
            a,
            b,
        )
        .unwrap();
        let minimum = perm.max_live_atoms() * 8;
        let info = rtl
            .nodes
            .iter()
            .find(|n| n.op.starts_with("reshape"))
            .unwrap();
        assert!(minimum > 0, "case {k}: {a} -> {b} needs no storage");
        assert_eq!(
            info.storage.total(),
            minimum,
            "case {k}: {a} -> {b}: {:?}",
            info.storage
        );
        assert_eq!(rtl.storage().total(), minimum);
        if have_tools {
            for seed in 0..2 {
                let opts = VerifyOptions {
                    seed,
                    frames: 3,
                    ..VerifyOptions::default()
                };
                let v = verify_rtl(&d, &p, &work(&format!("reshape_{k}_{seed}")), &opts).unwrap();
                assert!(
                    v.passed(),
                    "case {k}: {a} -> {b}: {:?} {:#?}",
                    v.lint,
                    v.mismatches
                );
            }
        }
    }
}

/// A 3-row vertical sum over rows of 64 pixels: `x + s x + s (s x)`, `s = shift 64`, at one
/// pixel per clock. The two row delays are RAM delay lines (storage = the delays, no
/// per-pixel registers); the RTL matches the interpreter in Icarus and in Verilator.
#[test]
fn line_buffers_are_ram_delay_lines_and_simulate_in_both_simulators() {
    let (p, d) = line_buffer_design(64, 4);
    let rtl = emit(&d).unwrap();
    // a delay of 64 clocks of 8 bits
    assert_one_row_delay_lines(&rtl);
    assert!(
        rtl.verilog.contains("reg [7:0] n0_mem64 [0:62];"),
        "{}",
        rtl.verilog
    );
    assert!(
        rtl.verilog.contains("reg [7:0] n1_mem64 [0:62];"),
        "{}",
        rtl.verilog
    );
    // the first two rows of each frame are don't-care (shifted-in), the rest is compared
    verify_in_both_simulators(&d, &p, "linebuf", 5, 2 * (256 - 128));
}

/// `x + shift w x + shift w (shift w x)` over `rows` rows of `w` uint8 pixels, one per clock.
pub fn line_buffer_design(w: u64, rows: u64) -> (Program, Design) {
    let n = w * rows;
    let px: Layout = ScalarType::UInt8.into();
    let shift = |amount| StOp::ShiftT {
        n,
        i: 0,
        amount,
        elem: px.clone(),
        init: None,
    };
    vertical_sum("rows3", Layout::tseq(n, 0, px.clone()), w, &shift)
}

/// The vertical sum `x + shift w x + shift w (shift w x)` of an input laid out as `l`, the
/// design's shifts made by `shift` (given the amount).
fn vertical_sum(name: &str, l: Layout, w: u64, shift: &dyn Fn(u64) -> StOp) -> (Program, Design) {
    let n = l.atoms();
    let mut pr = Pair::new(name);
    let (pi, di) = pr.input("I", &l);
    let seq_shift = |p: &mut Program, x| {
        let op = Op::Shift {
            n,
            amount: w,
            init: None,
        };
        build::apply(p, op, &[x]).unwrap()
    };
    let p1 = seq_shift(&mut pr.p, pi);
    let p2 = seq_shift(&mut pr.p, p1);
    let s = seq_deep2(&mut pr.p, pi, p1, &seq_add);
    let po = seq_deep2(&mut pr.p, s, p2, &seq_add);
    let d1 = pr.d.add(shift(w), &[di]).unwrap();
    let d2 = pr.d.add(shift(w), &[d1]).unwrap();
    let s = st_deep2(&mut pr.d, di, d1, &st_add);
    let dout = st_deep2(&mut pr.d, s, d2, &st_add);
    pr.finish(po, dout)
}

/// The two row delays of a vertical sum over 64-pixel rows are delay taps storing one row
/// of bytes each: 63 words of memory plus the read register.
fn assert_one_row_delay_lines(rtl: &tessera::rtl::Rtl) {
    let shifts: Vec<_> = rtl
        .nodes
        .iter()
        .filter(|n| n.op.starts_with("shift_t"))
        .collect();
    assert_eq!(shifts.len(), 2);
    for s in &shifts {
        assert_eq!(s.generator, "delay-taps");
        assert_eq!(s.storage.ram_bits, 63 * 8, "{s:?}");
        assert_eq!(s.storage.ff_bits, 8, "{s:?}");
    }
}

/// The line buffers of the same vertical sum at 1/3 pixel per clock, `(tseq n 0 (tseq 1 2
/// uint8))`: a row is 64 pixels but 192 clocks. The delay lines shift on valid clocks only,
/// so each stores one row of pixels (63 words of memory plus the read register), not 192
/// clocks; the RTL matches the interpreter in Icarus and in Verilator.
#[test]
fn line_buffers_on_sparse_layouts_store_valid_atoms_only() {
    let (p, d) = line_buffer_design_gap(64, 4, 2);
    let rtl = emit(&d).unwrap();
    // a delay of 64 valid clocks (192 clocks) of 8 bits
    assert_one_row_delay_lines(&rtl);
    assert!(
        rtl.verilog.contains("reg [7:0] n0_gmem64 [0:62];"),
        "{}",
        rtl.verilog
    );
    verify_in_both_simulators(&d, &p, "linebuf_gap", 7, 2 * (256 - 128));
}

/// Simulates `d` in Icarus and in Verilator on two frames against `p` (skipped without the
/// tools): every compared atom must match, and `checked` atoms are compared.
fn verify_in_both_simulators(d: &Design, p: &Program, name: &str, seed: u64, checked: u64) {
    if !require_tool(&["iverilog", "vvp", "verilator"], "line buffer simulation") {
        return;
    }
    for sim in [Simulator::Icarus, Simulator::Verilator] {
        let opts = VerifyOptions {
            sim,
            seed,
            frames: 2,
            ..VerifyOptions::default()
        };
        let v = verify_rtl(d, p, &work(&format!("{name}_{}", sim.name())), &opts).unwrap();
        assert!(
            v.passed(),
            "{}: {:?} {:#?}",
            sim.name(),
            v.lint,
            v.mismatches
        );
        assert_eq!(v.atoms_checked, checked, "{}", v.atoms_checked);
    }
}

/// [`line_buffer_design`] with `gap` invalid clocks after every pixel.
pub fn line_buffer_design_gap(w: u64, rows: u64, gap: u64) -> (Program, Design) {
    let n = w * rows;
    let px: Layout = ScalarType::UInt8.into();
    let shift = |amount| StOp::ShiftTN {
        no: n,
        io: 0,
        nis: vec![1],
        iis: vec![gap],
        amount,
        elem: px.clone(),
        init: None,
    };
    let l = Layout::tseq(n, 0, Layout::tseq(1, gap, px.clone()));
    vertical_sum("rows3_gap", l, w, &shift)
}

#[test]
fn larger_buffers_fall_back_to_ram_delay_lines() {
    // a space-time transpose whose buffer is above the register limit
    let a = Layout::tseq(32, 0, Layout::sseq(4, int8()));
    let b = Layout::sseq(4, Layout::tseq(32, 0, int8()));
    let mut d = tessera::st::Design::new("tr");
    let i = d.add_input("I", a.clone()).unwrap();
    let o = d
        .add(
            StOp::Reshape {
                from: a.clone(),
                to: b.clone(),
            },
            &[i],
        )
        .unwrap();
    d.set_output(o).unwrap();
    let small = RtlOptions {
        buffer_max_bits: 8,
        ..RtlOptions::default()
    };
    let rtl = tessera::rtl::emit_with(&d, &small).unwrap();
    let info = rtl
        .nodes
        .iter()
        .find(|n| n.op.starts_with("reshape"))
        .unwrap();
    assert_eq!(info.generator, "delay-taps");
    assert!(info.storage.ram_bits > 0, "{info:?}");
}
