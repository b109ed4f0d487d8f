//! Sums of row sums pipelined at one adder per stage, with several clocks per frame and
//! several lanes, read their later rows late (`st::late_rows::late_rows`): the designs
//! compute the program, meet the clock with the same latency, and no partial sum waits in a
//! register for a later stage; otherwise (two adders fit a stage, no register is needed, one
//! clock per frame, one lane) the chain is kept as it was.

use tessera::seq::op::AtomOp;
use tessera::st::delay::Target;
use tessera::st::late_rows::late_rows;
use tessera::st::latency::{design_latency, insert_fifos};
use tessera::st::pipeline::{critical_path, pipeline, Clock};
use tessera::st::{Design, NodeId, StOp};

mod timing_common;
use timing_common::{program, scheduled, simulates_equal};

/// conv2d with its oldest window row shifted by two rows at once: the same blur, which
/// `stencil-rows` does not match, so its designs keep the kernel's sum of row sums (the examples' 3x3
/// stencils now share their row sums instead, docs/rules.md section 8).
const ONE_SHIFT: &str = "tests/data/timing/conv2d_one_shift.seq";

/// Registers between `n` and the `add` computing it, through wiring; `None` when `n` is
/// not a sum.
fn registers_after_sum(d: &Design, n: NodeId) -> Option<u64> {
    let node = d.node(n);
    match &node.op {
        StOp::Atom(AtomOp::Add) => Some(0),
        StOp::Fifo { delay, .. } => registers_after_sum(d, node.args[0]).map(|r| r + delay),
        StOp::Reshape { .. } | StOp::DownS { .. } => registers_after_sum(d, node.args[0]),
        _ => None,
    }
}

/// Partial sums delayed past the next stage: an `add` operand that left another `add` more
/// than one register earlier, and the sums a pipelined `reduce_s` chain of row sums delays
/// for its later links.
fn delayed_sums(d: &Design) -> usize {
    let mut count = 0;
    for id in d.ids() {
        let node = d.node(id);
        match &node.op {
            StOp::Atom(AtomOp::Add) => {
                let mut pair = node.args[0];
                let mut outer = 0;
                while let StOp::Fifo { delay, .. } = &d.node(pair).op {
                    outer += delay;
                    pair = d.node(pair).args[0];
                }
                if let StOp::ATuple = d.node(pair).op {
                    for &x in &d.node(pair).args {
                        if registers_after_sum(d, x).is_some_and(|r| r + outer > 1) {
                            count += 1;
                        }
                    }
                }
            }
            StOp::ReduceS { n, regs, .. } if !regs.is_empty() => {
                let mut x = node.args[0];
                while let StOp::Fifo { .. } = &d.node(x).op {
                    x = d.node(x).args[0];
                }
                let sums = match &d.node(x).op {
                    StOp::MapS { body, .. } => {
                        matches!(d.node(d.body(*body).root).op, StOp::ReduceS { .. })
                    }
                    _ => false,
                };
                if sums {
                    count += (*n as usize).saturating_sub(2);
                }
            }
            _ => {}
        }
    }
    count
}

/// Windows read a clock or more late: a `fifo` of a row taken out of a window.
fn late_windows(d: &Design) -> usize {
    d.ids()
        .filter(|&id| {
            let node = d.node(id);
            matches!(node.op, StOp::Fifo { .. }) && {
                let row = d.node(node.args[0]);
                matches!(row.op, StOp::Reshape { .. })
                    && matches!(d.node(row.args[0]).op, StOp::DownS { .. })
            }
        })
        .count()
}

#[test]
fn the_default_clock_reads_the_last_row_late_and_delays_no_partial_sum() {
    let t = Target::ice40_hx8k();
    // the latencies the chains had at this clock (docs/timing.md §5): late rows keep them
    // (sharpen and conv2d_b2b, which it covered too, now share their 3x3 row sums)
    for (file, slowdowns, latency) in [(ONE_SHIFT, &[2u64, 4, 8][..], 3)] {
        let p = program(file);
        for &s in slowdowns {
            let plain = scheduled(&p, s, None);
            let d = scheduled(&p, s, Some(Clock::DEFAULT_MHZ));
            simulates_equal(&d, &p, 11);
            assert!(late_windows(&d) > 0, "{file} s={s}: no row read late");
            assert_eq!(delayed_sums(&d), 0, "{file} s={s}: a partial sum waits");
            let refused = late_rows(&plain, &|_| false).unwrap();
            assert!(refused.is_none(), "{file} s={s}: rewritten though refused");
            // the data paths: the start control's floor depends on the design's size, not on
            // where its registers are (docs/timing.md §2)
            let cp = critical_path(&d, &t.without_control()).unwrap();
            assert!(
                cp.mhz >= Clock::DEFAULT_MHZ,
                "{file} s={s}: {:.1} MHz",
                cp.mhz
            );
            assert_eq!(design_latency(&d).unwrap(), latency, "{file} s={s}");
        }
    }
}

#[test]
fn one_clock_per_frame_or_one_lane_keeps_the_chain() {
    // no line buffer to share the late windows with (s = 1), or no neighbouring lane
    // (s = 16, 144): measured larger after synthesis with late rows (docs/timing.md §3)
    let p = program(ONE_SHIFT);
    for s in [1, 16, 144] {
        let d = scheduled(&p, s, Some(Clock::DEFAULT_MHZ));
        simulates_equal(&d, &p, 11);
        assert_eq!(late_windows(&d), 0, "s={s}");
    }
}

#[test]
fn where_two_adders_fit_a_stage_the_chain_is_kept() {
    let p = program(ONE_SHIFT);
    for s in [2, 4] {
        let d = scheduled(&p, s, Some(150.0));
        simulates_equal(&d, &p, 11);
        assert_eq!(late_windows(&d), 0, "s={s}");
        assert!(
            d.ids()
                .any(|id| matches!(&d.node(id).op, StOp::ReduceS { n: 3, .. })),
            "s={s}"
        );
    }
}

#[test]
fn a_design_without_sums_of_sums_or_that_meets_the_clock_is_not_rewritten() {
    let t = Target::ice40_hx8k();
    let map = scheduled(&program("examples/map.seq"), 5, None);
    assert!(late_rows(&map, &|_| true).unwrap().is_none());
    let conv = scheduled(&program(ONE_SHIFT), 4, None);
    let own = critical_path(&conv, &t).unwrap().mhz;
    let same = pipeline(&conv, &t, own * (1.0 - t.uncertainty) * 0.99).unwrap();
    assert_eq!(same.registers, 0);
    assert_eq!(same.design, conv);
    // rewritten without a clock, it computes the program once latency matching aligns it
    let late = late_rows(&conv, &|_| true)
        .unwrap()
        .expect("conv2d sums rows");
    simulates_equal(&insert_fifos(&late).unwrap(), &program(ONE_SHIFT), 11);
}

/// Late rows is chosen by the model's area: the pipeline registers of a window read a clock
/// late repeat the line buffer's (synthesis merges flip-flops with the same input), so the
/// model counts them once, and the chosen design is no larger than the chains of the
/// baseline registered after every operator (the explore rows of docs/timing.md §3).
#[test]
fn the_model_counts_a_late_window_the_line_buffer_holds_once() {
    use tessera::schedule::aetherling;
    use tessera::st::area::{area, Weights};
    use tessera::st::pipeline::baseline_at;
    let clock = Clock::default_target();
    // (conv2d_b2b and sharpen, which it covered too, now share their 3x3 row sums)
    for (file, s) in [(ONE_SHIFT, 2u64), (ONE_SHIFT, 4)] {
        let p = program(file);
        let d = scheduled(&p, s, Some(Clock::DEFAULT_MHZ));
        assert!(late_windows(&d) > 0, "{file} s={s}: no row read late");
        let r = area(&d);
        let counted: u64 = r.by_op.values().map(|(_, a)| a.ff_bits).sum();
        // each late window row: three words a lane, all in the line buffer
        let late_bits = 3 * 8 * d.output_layout().lanes();
        assert!(r.merged_ff_bits >= late_bits, "{file} s={s}: {r:?}");
        assert_eq!(r.total.ff_bits, counted);
        let base = baseline_at(aetherling::schedule(&p, s).unwrap().design, Some(&clock)).unwrap();
        let w = Weights::default();
        assert!(
            r.total.scalar(&w) <= area(&base).total.scalar(&w),
            "{file} s={s}: {} above the baseline's {}",
            r.total.scalar(&w),
            area(&base).total.scalar(&w)
        );
    }
}

/// A 5x5 box of 16-bit sums: its late windows are not all held by the line buffer, and late
/// rows measured no smaller after synthesis (docs/timing.md §3); the model keeps the chains.
#[test]
fn where_the_model_finds_late_rows_larger_the_chain_is_kept() {
    let p = program("examples/box5x5_u16.seq");
    for s in [4, 16] {
        let d = scheduled(&p, s, Some(Clock::DEFAULT_MHZ));
        simulates_equal(&d, &p, 11);
        assert_eq!(late_windows(&d), 0, "s={s}");
    }
}

/// A register on a stream the line buffer already delays by a clock is merged with it; one
/// on a computed sum is not.
#[test]
fn a_register_the_line_buffer_holds_is_merged_and_a_sum_is_not() {
    use tessera::st::area::area;
    use tessera::st::merged::merged_register_bits;
    use tessera::st::parse_design;
    let text = |reg: &str| {
        format!(
            "(design m)
(input I (tseq 4 0 (sseq 4 uint8)))
(let v0 (shift_ts 4 0 4 4 uint8 I))
(output (map2_t 4 0 (fn (x y) (map2_s 4 (fn (a b) (add (atuple a b))) x y)) v0 {reg}))"
        )
    };
    let held = parse_design("m.st", &text("(fifo (tseq 4 0 (sseq 4 uint8)) 1 I)")).unwrap();
    assert_eq!(merged_register_bits(&held).fifo, 32);
    let r = area(&held);
    assert_eq!(r.merged_ff_bits, 32);
    let sum = parse_design("m.st", &text(
        "(fifo (tseq 4 0 (sseq 4 uint8)) 1 (map2_t 4 0 (fn (x y) (map2_s 4 (fn (a b) (add (atuple a b))) x y)) I I))",
    ))
    .unwrap();
    assert_eq!(merged_register_bits(&sum).total(), 0);
}

/// Two pipelined `reduce_s` chains over the same elements (registers after the first link,
/// and after the first two): the elements both delay by a clock are the same words, merged
/// at 2^12 lanes (16 bits a lane). At 2^19 lanes (more than 2^20 over the design's nodes)
/// following every word costs what the hardware has, on every area the baseline's search
/// asks for, so the registers are counted in full.
#[test]
fn a_design_too_wide_to_follow_counts_its_registers_in_full() {
    use tessera::st::merged::merged_register_bits;
    use tessera::st::parse_design;
    let chains = |w: u64| {
        let text = format!(
            "(design m)
(input I (sseq {w} (sseq 4 uint8)))
(let a (map_s {w} (fn (v) (reduce_s 4 (regs 1) add v)) I))
(let b (map_s {w} (fn (v) (reduce_s 4 (regs 1 2) add v)) I))
(output (map2_s {w} (fn (x y) (map2_s 1 (fn (p q) (add (atuple p q))) x y)) a b))"
        );
        parse_design("m.st", &text).unwrap()
    };
    assert_eq!(merged_register_bits(&chains(1 << 12)).reduce_s, 16 << 12);
    assert_eq!(merged_register_bits(&chains(1 << 19)).total(), 0);
}
