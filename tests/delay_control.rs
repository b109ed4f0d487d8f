//! The start control's floor on a design's clock (`st::delay::Target::control_floor_ns`,
//! docs/timing.md §2): the formula, its monotonicity in the fan-out and the counter width,
//! and what it gives on real designs.

use std::path::Path;
use tessera::schedule::egraph;
use tessera::seq::load_program;
use tessera::st::area::area;
use tessera::st::delay::Target;
use tessera::st::pipeline::{critical_path, Clock};
use tessera::st::Design;

fn conv2d(s: u64) -> Design {
    let p =
        load_program(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/conv2d.seq")).unwrap();
    let o = egraph::Options {
        clock: Some(Clock::ice40(225.0)),
        ..egraph::Options::default()
    };
    egraph::schedule(&p, s, &o).unwrap().design
}

/// The default iCE40 floor grows with its fan-out and its counters (docs/timing.md §2): its
/// figures were fitted with the start and phase comparisons registered.
#[test]
fn the_default_floor_grows_with_the_fan_out_and_the_counters() {
    let t = Target::ice40_hx8k();
    assert!(t.control_fanout_ns > 0.0 && t.counter_bit_ns > 0.0);
    assert!(t.control_floor_ns(1 << 12, 1) > t.control_floor_ns(1 << 6, 1));
    assert!(t.control_floor_ns(1 << 6, 144) > t.control_floor_ns(1 << 6, 16));
}

#[test]
fn the_floor_is_the_comparison_its_fan_out_and_the_phase_counters() {
    let t = Target {
        control_ns: 0.2,
        ..Target::ice40_hx8k()
    };
    // one flip-flop bit and one clock per period: the comparison alone
    assert_eq!(t.control_floor_ns(1, 1), t.control_ns);
    let at = t.control_floor_ns(256, 16);
    let by_hand = t.control_ns + 8.0 * t.control_fanout_ns + 4.0 * t.counter_bit_ns;
    assert!((at - by_hand).abs() < 1e-12, "{at} vs {by_hand}");
    // a period of 17 clocks needs a 5-bit counter, 16 a 4-bit one
    let wider = t.control_floor_ns(256, 17) - at;
    assert!((wider - t.counter_bit_ns).abs() < 1e-12);
    // more flip-flops or more clocks per period never make it faster
    let mut last = 0.0;
    for k in 0..16 {
        let f = t.control_floor_ns(1 << k, 1 << k);
        assert!(f > last, "{k}: {f} <= {last}");
        last = f;
    }
}

#[test]
fn on_real_designs_the_floor_follows_their_size() {
    let t = Target::ice40_hx8k();
    let small = conv2d(4);
    let ff = area(&small).total.ff_bits;
    assert_eq!(small.clocks(), 4);
    assert_eq!(t.design_control_ns(&small), t.control_floor_ns(ff, 4));
    // pipelined for 225 MHz, its data paths are one adder: the start control is the
    // critical path
    let cp = critical_path(&small, &t).unwrap();
    assert_eq!(
        cp.ops,
        vec!["start control (its fan-out and phase counters)".to_string()]
    );
    assert!((cp.ns - t.design_control_ns(&small)).abs() < 1e-12);
    // the fully parallel design has more flip-flops and so a lower modelled clock
    // (measured at seed 1: 272.6 MHz against 303.2 MHz at s = 4, docs/timing.md §2)
    let big = conv2d(1);
    assert!(area(&big).total.ff_bits > ff);
    assert!(critical_path(&big, &t).unwrap().mhz < cp.mhz);
}
