//! Pipelining to a clock: the modelled critical path of a design ([`critical_path`]) and the
//! same design with pipeline registers where the clock needs them ([`pipeline`]).
//!
//! Both walk the design once, bottom-up, with the arrival time of every signal (the
//! combinational delay since the last register, [`super::delay`]). A register is a
//! `(fifo L 1 x)` node, visible in `.st` files like any operator; a `reduce_s` chain gets
//! registers between its links (`(regs ...)`). When an operator's output would arrive later
//! than the clock allows, its late inputs are registered; the joins this misaligns are then
//! aligned by [`super::latency::insert_fifos`], so the simulator, latency matching and RTL
//! all see the same stages (the walk is the private module `walk`; this module chooses
//! between its pipelinings). A design that already meets the clock is returned unchanged.
//! Where one adder fills a stage, a sum of row sums is pipelined with its later rows read
//! late ([`super::late_rows`]) when the model finds that smaller: its delayed windows repeat
//! the line buffer's registers, which the model counts once ([`super::merged`]). A
//! reduction whose links are several operators each (a min or a max) is written out as
//! applications of its function ([`super::unroll`]) where its links overrun a stage.

use super::area::{area, AreaReport, Weights};
use super::delay::{Stage, Target};
use super::design::Design;
use super::late_rows::late_rows;
use super::latency::insert_fifos;
use super::layout::Layout;
use super::unroll::{has_reducers_to_unroll, unroll_reducers};
use std::cell::OnceCell;

mod walk;
use walk::Walk;

/// What the error of an operator too slow for the clock says (after its name).
pub const TOO_SLOW: &str = "alone takes";

/// A clock target: a device's delay model and a frequency.
#[derive(Clone, Debug, PartialEq)]
pub struct Clock {
    /// The device.
    pub target: Target,
    /// The clock, in MHz.
    pub mhz: f64,
    /// True when the clock was asked for: an operator slower than the clock alone is then
    /// an error. Otherwise (the default clock) that operator gets registers on both sides
    /// and limits the design's clock, which `tessera check` reports.
    pub strict: bool,
}

impl Clock {
    /// The default clock target of the commands that make designs: 225 MHz on the iCE40
    /// HX8K, which every paper app meets (docs/timing.md).
    pub const DEFAULT_MHZ: f64 = 225.0;

    /// The default clock target: [`Clock::DEFAULT_MHZ`] on the iCE40 HX8K, not strict.
    pub fn default_target() -> Clock {
        Clock {
            strict: false,
            ..Clock::ice40(Clock::DEFAULT_MHZ)
        }
    }

    /// `mhz` on the iCE40 HX8K, asked for (strict).
    pub fn ice40(mhz: f64) -> Clock {
        Clock {
            target: Target::ice40_hx8k(),
            mhz,
            strict: true,
        }
    }

    /// The device of `clock`, or the iCE40 HX8K without one: the device a design's clock is
    /// modelled on.
    pub fn device(clock: Option<&Clock>) -> Target {
        clock.map_or_else(Target::ice40_hx8k, |c| c.target.clone())
    }

    /// The design `d` pipelined for this clock ([`pipeline`]). Under a clock not asked for,
    /// an operator slower than the clock caps the design's clock anyway: the design is then
    /// also pipelined for the clock it reaches, whose other paths need fewer registers, and
    /// the smaller of the two is kept if it reaches the same clock.
    pub fn pipeline(&self, d: &Design) -> Result<Pipelined, String> {
        // `d` with a register after every operator is the same for both pipelinings
        let every = OnceCell::new();
        let first = pipeline_with(d, &self.target, self.mhz, self.strict, &every)?;
        if self.strict || first.registers == 0 {
            return Ok(first);
        }
        // Data paths only: the start control's floor is not an operator, and pipelining
        // for it would put two adders in a stage where the hardware measures faster than
        // the floor says (docs/timing.md §2).
        let data = self.target.without_control();
        let reach = critical_path(&first.design, &data)?.mhz;
        if reach >= self.mhz - 1e-6 {
            return Ok(first);
        }
        // Without the clock's uncertainty: the operator that caps the clock is measured at
        // the model's figure too, so the other paths only need to be no longer than it;
        // leaving 5% of its period would add registers for a clock it does not reach
        // (box5x5_u16 at s = 160: 2151 -> 2311 at the same 122.6 MHz).
        let relaxed = pipeline_with(d, &self.target.without_uncertainty(), reach, false, &every)?;
        smaller_as_fast(first, relaxed, &data)
    }
}

/// The modelled critical path of a design.
#[derive(Clone, Debug, PartialEq)]
pub struct CriticalPath {
    /// Its combinational delay, registers excluded.
    pub ns: f64,
    /// The clock it allows, registers included.
    pub mhz: f64,
    /// The operators along it, from a register (or input) to a register (or output).
    pub ops: Vec<String>,
}

/// The modelled critical path of `d` on target `t`.
pub fn critical_path(d: &Design, t: &Target) -> Result<CriticalPath, String> {
    let mut w = Walk::new(d, t, None);
    w.run()?;
    Ok(w.critical())
}

/// A design pipelined to a clock ([`critical_path`] gives its modelled clock).
#[derive(Clone, Debug)]
pub struct Pipelined {
    /// The design with its pipeline registers and the FIFOs that realign its joins.
    pub design: Design,
    /// Pipeline registers added (registers and `reduce_s` chain stages, per use).
    pub registers: u64,
    /// The design's model area, once asked for: the comparisons of candidate pipelinings
    /// ([`smaller_as_fast`]) and the scheduler that compares the designs of its candidate
    /// output layouts ask for the same design's again, and an area follows every register
    /// word of the design ([`super::merged`]).
    area: OnceCell<AreaReport>,
}

impl Pipelined {
    fn new(design: Design, registers: u64) -> Pipelined {
        Pipelined {
            design,
            registers,
            area: OnceCell::new(),
        }
    }

    /// The design's model area ([`area`]).
    pub fn area(&self) -> &AreaReport {
        self.area.get_or_init(|| area(&self.design))
    }

    /// The design and its model area.
    pub fn into_design_and_area(self) -> (Design, AreaReport) {
        let rep = self.area.into_inner().unwrap_or_else(|| area(&self.design));
        (self.design, rep)
    }

    /// The design's model area with the default weights.
    fn model_area(&self) -> f64 {
        self.area().total.scalar(&Weights::default())
    }
}

/// `d` with pipeline registers so that every register-to-register path of the model fits a
/// clock of `mhz` on target `t`. Errs, naming the operator, when one operator alone is
/// slower than the clock, with the clock it can reach.
pub fn pipeline(d: &Design, t: &Target, mhz: f64) -> Result<Pipelined, String> {
    pipeline_with(d, t, mhz, true, &OnceCell::new())
}

/// [`pipeline`], or with `strict` false, an operator slower than the clock alone is
/// isolated between registers instead of an error. `every` holds `d` with a register after
/// every operator once it is made, which depends on `d` alone.
fn pipeline_with(
    d: &Design,
    t: &Target,
    mhz: f64,
    strict: bool,
    every: &OnceCell<Pipelined>,
) -> Result<Pipelined, String> {
    if !(mhz.is_finite() && mhz > 0.0) {
        return Err(format!(
            "the clock must be a positive number of MHz, not {mhz}"
        ));
    }
    if t.stage(mhz).budget_ns <= 0.0 {
        return Err(format!(
            "a clock of {mhz} MHz leaves no time for logic on {} (a register alone takes {:.2} ns and {:.0}% of the period is left for the clock's uncertainty: at most {:.0} MHz)",
            t.name,
            t.register_ns,
            t.uncertainty * 100.0,
            1000.0 * (1.0 - t.uncertainty) / t.register_ns
        ));
    }
    let chain = match pipeline_as_written(d, t, mhz, strict) {
        // the operator too slow may be a reduction's link of several operators, which
        // written out takes registers inside (else the error names what remains too slow)
        Err(e) if e.contains(TOO_SLOW) => {
            return match unroll_reducers(d)? {
                Some(u) => pipeline_with(&u, t, mhz, strict, &OnceCell::new()),
                None => Err(e),
            }
        }
        chain => chain?,
    };
    if chain.registers == 0 {
        return Ok(chain);
    }
    let chain = unrolled_if_faster(d, t, mhz, strict, chain)?;
    let chain = every_operator_if_smaller(d, t, chain, every)?;
    late_rows_if_smaller(d, t, mhz, strict, chain)
}

/// `chain` (`d` pipelined), or, where `chain` misses the clock on its data paths, `d` with
/// its reductions of several operators written out ([`unroll_reducers`]) and pipelined, if
/// that is faster on the data paths (or as fast and smaller in the model): a min or max
/// filter's links (`lt`, then `if`) overrun a stage at 225 MHz, which registers between the
/// links of a chain cannot split.
fn unrolled_if_faster(
    d: &Design,
    t: &Target,
    mhz: f64,
    strict: bool,
    chain: Pipelined,
) -> Result<Pipelined, String> {
    if !has_reducers_to_unroll(d) {
        return Ok(chain);
    }
    let data = t.without_control();
    let reach = critical_path(&chain.design, &data)?.mhz;
    if reach >= mhz - 1e-6 {
        return Ok(chain);
    }
    let Some(unrolled) = unroll_reducers(d)? else {
        return Ok(chain);
    };
    let unrolled = pipeline_as_written(&unrolled, t, mhz, strict)?;
    if critical_path(&unrolled.design, &data)?.mhz > reach + 1e-6 {
        Ok(unrolled)
    } else {
        smaller_as_fast(chain, unrolled, &data)
    }
}

/// `chain` (`d` pipelined), or `d` with its sums of row sums reading their later rows late
/// ([`late_rows`]) and pipelined, if that is as fast on the data paths and smaller in the
/// model, which counts a delayed window once where the line buffer already holds it
/// ([`super::merged`]). Only where exactly one adder fits a stage: that is the stage
/// structure late rows follows (where one alone overruns the stage, every add is isolated
/// anyway; where two fit, the chain's links already share stages).
fn late_rows_if_smaller(
    d: &Design,
    t: &Target,
    mhz: f64,
    strict: bool,
    chain: Pipelined,
) -> Result<Pipelined, String> {
    let budget = t.stage(mhz).budget_ns;
    // With one clock per frame (no line buffer) and at one lane, late rows measured larger
    // or mixed after synthesis (docs/timing.md §3) for what the model does not follow: the
    // chain's row sums are the same logic for two lanes at s = 1, which synthesis shares and
    // late rows breaks; the model counts every instance's logic.
    if d.clocks() <= 1 || d.output_layout().lanes() <= 1 {
        return Ok(chain);
    }
    let one_per_stage = |atom: &Layout| {
        let add = t.carry_ns(atom.atom_bits());
        add <= budget + 1e-9 && 2.0 * add > budget + 1e-9
    };
    let Some(late) = late_rows(d, &one_per_stage)? else {
        return Ok(chain);
    };
    let mut late = pipeline_as_written(&late, t, mhz, strict)?;
    if late.registers == 0 {
        // the late rows' joins are aligned only by latency matching
        late.design = insert_fifos(&late.design)?;
    }
    smaller_as_fast(chain, late, &t.without_control())
}

/// `d` pipelined with its operators as they are for a clock of `mhz`.
fn pipeline_as_written(
    d: &Design,
    t: &Target,
    mhz: f64,
    strict: bool,
) -> Result<Pipelined, String> {
    let stage = t.stage(mhz);
    let mut w = Walk::new(d, t, Some(stage));
    w.lenient = !strict;
    w.run()?;
    let mut piped = finished(d, &w)?;
    // Realigning the joins can deepen a FIFO past a register chain into a memory, whose
    // read starts a path the walk did not see (a 32-bit `sub` after a latency-matching
    // FIFO of 5: big_real_32_sharpen_16x8 at s = 64), so the realigned design is walked
    // again until no register is missing (twice more at most: each walk only adds).
    for _ in 0..2 {
        if piped.registers == 0 {
            break;
        }
        let mut again = Walk::new(&piped.design, t, Some(stage));
        again.lenient = !strict;
        again.run()?;
        if again.registers == 0 {
            break;
        }
        let realigned = finished(&piped.design, &again)?;
        piped = Pipelined::new(realigned.design, piped.registers + again.registers);
    }
    Ok(piped)
}

/// The design a finished walk over `d` built: `d` itself if it added no register, else its
/// output with the joins realigned.
fn finished(d: &Design, w: &Walk) -> Result<Pipelined, String> {
    let registers = w.registers;
    let design = if registers == 0 {
        d.clone()
    } else {
        insert_fifos(&w.out)?
    };
    Ok(Pipelined::new(design, registers))
}

/// `d` with a register after every operator that computes (atom operators, the links of
/// `reduce_s` chains, generators and data movement that is not wiring), as Aetherling's
/// generated RTL has: the baseline's designs are compared at a clock like with like.
pub fn register_every_operator(d: &Design) -> Result<Design, String> {
    Ok(every_operator_registered(d)?.design)
}

/// [`register_every_operator`], with the count of registers it added.
fn every_operator_registered(d: &Design) -> Result<Pipelined, String> {
    let t = Target::ice40_hx8k();
    let every = Stage {
        budget_ns: 0.0,
        limit_ns: 0.0,
    };
    let mut w = Walk::new(d, &t, Some(every));
    w.every = true;
    w.run()?;
    finished(d, &w)
}

/// `placed` (registers where the clock needs them), or `d` with a register after every
/// operator if that is smaller and its data paths are as fast. Registering late inputs can
/// cost more than registering outputs where every operator fills a stage alone (32-bit
/// adders at 225 MHz: big_real_32_conv2d_16x8 at s = 64 took 976 flip-flop bits against
/// 896), and the baseline, registered after every operator, must not win by that.
fn every_operator_if_smaller(
    d: &Design,
    t: &Target,
    placed: Pipelined,
    every: &OnceCell<Pipelined>,
) -> Result<Pipelined, String> {
    let every = match every.get() {
        Some(e) => e,
        None => {
            let e = every_operator_registered(d)?;
            every.get_or_init(|| e)
        }
    };
    // the shared design's area is measured once, in its cell, for both pipelinings
    Ok(if replaces(&placed, every, &t.without_control())? {
        every.clone()
    } else {
        placed
    })
}

/// `other` if its critical path on `data` is as fast as `kept`'s and its model area is
/// smaller, else `kept`.
fn smaller_as_fast(kept: Pipelined, other: Pipelined, data: &Target) -> Result<Pipelined, String> {
    Ok(if replaces(&kept, &other, data)? {
        other
    } else {
        kept
    })
}

/// Whether `other` is smaller than `kept` in the model and as fast on target `data`.
fn replaces(kept: &Pipelined, other: &Pipelined, data: &Target) -> Result<bool, String> {
    let as_fast =
        critical_path(&other.design, data)?.mhz >= critical_path(&kept.design, data)?.mhz - 1e-6;
    Ok(as_fast && other.model_area() < kept.model_area() - 1e-9)
}

/// Aetherling's design `d` as it is compared with ours: with a register after every
/// operator when designs are made for a clock ([`register_every_operator`]), as made
/// otherwise. The commands, `explore`'s baseline column and the report all use this.
pub fn baseline_at(d: Design, clock: Option<&Clock>) -> Result<Design, String> {
    match clock {
        Some(_) => register_every_operator(&d),
        None => Ok(d),
    }
}
