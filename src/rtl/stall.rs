//! The clock of a `stall`'s body (`st::stall`): the scope's clock, let through on the
//! first `s` clocks of every `s + idle` from the stall's start.
//!
//! Gating the clock, rather than adding an enable to every register of the body, keeps
//! the body's module exactly the module it is unstalled: every generator of the body runs
//! unchanged on its own time. The enable is computed from a phase counter and sampled on
//! the falling edge, so it is stable while the clock is high and the gated clock has no
//! glitch (the latch-free form of a clock-gating cell; on an FPGA, a `BUFGCE`).

use super::netlist::{Expr, Sig};
use super::scope::Scope;

/// The gated clock of a stall node named `name` whose inputs start `lat` clocks after
/// the scope, whose body has `clocks` clocks per period and idles `idle` of every
/// `clocks + idle`.
pub fn gated_clock(sc: &mut Scope, name: &str, lat: u64, clocks: u64, idle: u64) -> Expr {
    let ph = sc
        .phase(lat, clocks + idle)
        .expect("a stall's period is at least 2 clocks");
    let en = sc.m.wire_eq(
        format!("{name}_en"),
        Expr::lt(&ph.e(), &Expr::lit(clocks, ph.width)),
    );
    let held: Sig = sc.m.reg(format!("{name}_en_n"), 1);
    sc.m.comment(format!(
        "the body runs on the first {clocks} of every {} clocks; the enable changes only while clk is low",
        clocks + idle
    ));
    sc.m.raw(format!(
        "always @(negedge clk) {} <= {};",
        held.name, en.name
    ));
    let g = sc.m.wire_eq(
        format!("{name}_clk"),
        Expr::and(&Expr::raw("clk", 1), &held.e()),
    );
    g.e()
}
