//! The clock enable of a `stall`'s body (`st::stall`): high on the first `s` clocks of
//! every `s + idle` from the stall's start.
//!
//! The body runs on the scope's one clock `clk`. Its module is the clock-enabled variant
//! (`rtl::gen`, [`Module::clock_enable`]): every register of it, and of every module it
//! instantiates, is written `always @(posedge clk) if (ce) ...`, so while the enable is
//! low the whole body holds and it sees exactly its own `s`-clock schedule, as in the
//! simulator (`st::sim`). A gated clock would do the same in simulation, but on an FPGA it
//! puts logic on the clock net and a second clock domain the timing tools do not relate to
//! the first; a flip-flop's enable pin costs nothing of that.
//!
//! [`Module::clock_enable`]: super::netlist::Module::clock_enable

use super::netlist::Expr;
use super::scope::Scope;

/// The clock enable of the body of a stall node named `name` whose inputs start `lat`
/// clocks after the scope, whose body has `clocks` clocks per period and idles `idle` of
/// every `clocks + idle`: the register `<name>_en`, equal to `phase < clocks` of a phase
/// counter modulo `clocks + idle` (held at 0, so enabled, until the stall starts).
///
/// It is computed a clock ahead from the phase counter's next value and registered, so the
/// enable leaves a flip-flop: it fans out to every register of the body, and on an iCE40
/// nextpnr routes it on a global net, which a compare in front of it would put on the
/// critical path (`tessera fmax` on sharpen's s = 2 design stalled to 3, seed 1: 210.5 MHz
/// with the compare in front of the enable net, 221.4 MHz with the enable registered).
pub fn body_enable(sc: &mut Scope, name: &str, lat: u64, clocks: u64, idle: u64) -> Expr {
    let period = clocks + idle;
    let ph = sc
        .phase(lat, period)
        .expect("a stall's period is at least 2 clocks");
    let st = sc.started(lat);
    let w = ph.width;
    // the next phase is below `clocks` when this one wraps, or is below `clocks - 1`
    let wraps = Expr::eq(&ph.e(), &Expr::lit(period - 1, w));
    let next = if clocks > 1 {
        Expr::or(&wraps, &ph.lt_lit(clocks - 1))
    } else {
        wraps
    };
    sc.m.comment(format!(
        "the body runs on the first {clocks} of every {period} clocks (its registers' enable, \
         registered: phase < {clocks})"
    ));
    let en = sc.m.reg(format!("{name}_en"), 1);
    sc.m.on_clock(format!(
        "\n  if (!{st}) {en} <= 1'h1;\n  else {en} <= {next};",
        en = en.name
    ));
    en.e()
}
