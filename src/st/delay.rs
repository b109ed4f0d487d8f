//! The delay model: the combinational delay of each space-time operator, by width, for a
//! named target device, beside the area model ([`super::area`]).
//!
//! Delays are in nanoseconds and include the routing into the operator's first cell, so a
//! register-to-register path is the sum of its operators' delays plus the register's
//! overhead ([`Target::register_ns`]: clock-to-output and setup). The numbers of the default
//! target, the iCE40 HX8K, were calibrated against `nextpnr-ice40` on our own generated
//! designs (`docs/timing.md` has the calibration and the command that measures it).
//!
//! What each operator costs follows what `rtl` emits for it: adders, subtractors and
//! comparators are carry chains; a shift or multiply by a constant is wiring or a chain of
//! shift-and-add adders over the constant's canonical signed digits; data movement is
//! wiring, or a selection multiplexer in front of registers and RAM reads.

use super::compare::NarrowLt;
use super::design::Design;
use super::layout::Layout;
use crate::seq::op::AtomOp;
use crate::seq::value::Value;

/// A device's timing figures, in nanoseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// The target's name (`ice40-hx8k`, `xc7-estimate`).
    pub name: &'static str,
    /// What the figures are: measured calibration or an estimate.
    pub about: &'static str,
    /// One logic level: a LUT and the routing into it.
    pub lut_ns: f64,
    /// The inputs of a LUT: bitwise logic over at most this many input bits is one level.
    pub lut_inputs: u8,
    /// A carry chain's fixed part (into the chain and out through the last LUT).
    pub carry_base_ns: f64,
    /// A carry chain's delay per bit.
    pub carry_bit_ns: f64,
    /// What a subtraction (`sub`, and `lt`, which subtracts) adds to its carry chain: the
    /// carry-in of one that enters the chain.
    pub borrow_ns: f64,
    /// What a comparison (`lt` on a carry chain) adds beyond the subtraction: its result is
    /// the chain's carry-out, which leaves the chain through one more cell.
    pub compare_out_ns: f64,
    /// A register's clock-to-output plus the setup of the next one, and one route.
    pub register_ns: f64,
    /// The share of the clock period pipelining leaves unused ([`Target::stage`]), as
    /// static timing analysis sets a clock uncertainty: place-and-route gives the same
    /// path a different delay in a different design or placement.
    pub uncertainty: f64,
    /// The start control of a design with latency: the age counter's comparison, before
    /// its fan-out ([`Target::control_floor_ns`]).
    pub control_ns: f64,
    /// What the start control's fan-out adds per doubling of the flip-flop bits it enables
    /// (the routing of one net to every register of the design).
    pub control_fanout_ns: f64,
    /// What the phase counters add per bit of the widest one (a count of the clocks per
    /// period: its increment and wrap-around comparison feed the selections and the
    /// `valid` output).
    pub counter_bit_ns: f64,
    /// A block RAM's read (clock to data out) and the route from the RAM column.
    pub ram_ns: f64,
    /// A level of a general (not constant) multiply's adder tree, which sums one partial
    /// product per bit of the narrower operand before the result's carry chain.
    pub mul_level_ns: f64,
    /// The tree's levels that cost nothing beyond the carry chain (part of the first folds
    /// into the LUTs in front of it); at least one level is always paid.
    pub mul_free_levels: f64,
}

impl Target {
    /// The iCE40 HX8K (`nextpnr-ice40 --hx8k`), the device this machine can place and route.
    pub fn ice40_hx8k() -> Target {
        Target {
            name: "ice40-hx8k",
            about: "calibrated against nextpnr-ice40 (docs/timing.md)",
            lut_ns: 1.2,
            lut_inputs: 4,
            // 0.15 ns per bit: single adders, subtractors and comparators of 8, 16 and 32
            // bits between registers measure it at every width (docs/timing.md §2); the
            // fixed part keeps the 8-bit chain the calibration fitted (2.02 ns).
            carry_base_ns: 0.82,
            carry_bit_ns: 0.15,
            // Measured on single operators between registers (docs/timing.md §2, widths):
            // `sub` is 0.875 ns slower than `add` at 8, 16 and 32 bits, `lt` 1.30 ns (the
            // fastest of seeds 1-3 at every width); sharpen's `sub` into its threshold test
            // missed 225 MHz while the adder's figure was all it got.
            borrow_ns: 0.875,
            compare_out_ns: 0.425,
            register_ns: 0.9,
            // Designs pipelined for 200 MHz whose modelled paths filled the period to within
            // 1.5% (two 8-bit adders, 4.04 of 4.1 ns) measured 152.6-276.2 MHz, 14 of 36
            // below the clock; with 7% left (150 MHz) every one met it, and the same
            // design's clock varies by 3.7% between placement seeds at the median
            // (docs/timing.md §3, "Subtraction and the clock's uncertainty").
            uncertainty: 0.05,
            // The start control's floor grows with its fan-out (0.35 ns per doubling of the
            // flip-flop bits its enables reach) and the phase counters' width (0.075 ns per
            // bit), with no fixed part: fitted on map, conv2d and conv2d_b2b with the start
            // and phase comparisons registered (docs/timing.md §2, "Calibration"), it ranks
            // the two apps it did not see at Spearman 0.919 with 6.7% median error, where
            // the constant 3.4 ns floor of the control compared in the same clock gave
            // 0.816 and 8.6%.
            control_ns: 0.0,
            control_fanout_ns: 0.35,
            counter_bit_ns: 0.075,
            ram_ns: 2.5,
            // fitted on general multiplies between registers, 8 to 32 bits wide by 4 to 32
            // bits (docs/timing.md §2)
            mul_level_ns: 2.2,
            mul_free_levels: 0.75,
        }
    }

    /// A Xilinx 7-series estimate (not calibrated: no open place-and-route exists for it).
    pub fn xc7_estimate() -> Target {
        Target {
            name: "xc7-estimate",
            about: "an estimate from 7-series data sheets, not measured",
            lut_ns: 0.55,
            lut_inputs: 6,
            carry_base_ns: 0.75,
            carry_bit_ns: 0.03,
            // the 7-series chain takes its carry-in at the chain's start (CYINIT) and its
            // carry-out as an output of the chain's last cell: nothing to add
            borrow_ns: 0.0,
            compare_out_ns: 0.0,
            register_ns: 0.6,
            // not measured: no open place-and-route exists for it
            uncertainty: 0.0,
            control_ns: 1.0,
            // not estimated: the 7-series has no measured data here
            control_fanout_ns: 0.0,
            counter_bit_ns: 0.0,
            ram_ns: 1.5,
            // a DSP48 multiply, up to 25 x 18 bits, about 3 ns
            mul_level_ns: 0.6,
            mul_free_levels: 0.0,
        }
    }

    /// The targets by name.
    pub fn named(name: &str) -> Option<Target> {
        match name {
            "ice40-hx8k" | "ice40" => Some(Target::ice40_hx8k()),
            "xc7-estimate" | "xc7" => Some(Target::xc7_estimate()),
            _ => None,
        }
    }

    /// The names [`Target::named`] knows.
    pub const NAMES: [&'static str; 2] = ["ice40-hx8k", "xc7-estimate"];

    /// A carry chain of `w` bits: an adder (a subtractor adds [`Target::borrow_ns`], a
    /// comparison [`Target::compare_ns`]).
    pub fn carry_ns(&self, w: u64) -> f64 {
        self.carry_base_ns + self.carry_bit_ns * w as f64
    }

    /// A comparison on a carry chain of `w` bits: a subtraction whose carry-out is the
    /// result.
    pub fn compare_ns(&self, w: u64) -> f64 {
        self.carry_ns(w) + self.borrow_ns + self.compare_out_ns
    }

    /// A general multiply with a `w`-bit result and a narrower operand of `k` significant
    /// bits: an adder tree over `k` partial products, then a carry chain of `w` bits.
    pub fn mul_ns(&self, w: u64, k: u64) -> f64 {
        // at least one level: a table of one-bit weights still selects before the chain
        let levels = ((k.max(1) as f64).log2() - self.mul_free_levels).max(1.0);
        self.carry_ns(w) + self.mul_level_ns * levels
    }

    /// `levels` levels of LUTs.
    pub fn luts_ns(&self, levels: u64) -> f64 {
        self.lut_ns * levels as f64
    }

    /// The floor a design's start control puts on its clock (a design with latency):
    /// the comparison ([`Target::control_ns`]), its fan-out to `ff_bits` flip-flop bits
    /// (logarithmic, as a fan-out tree's depth), and the phase counters of a period of
    /// `clocks` clocks (linear in their width, as a carry chain).
    pub fn control_floor_ns(&self, ff_bits: u64, clocks: u64) -> f64 {
        let fanout = (ff_bits.max(1) as f64).log2();
        let width = u64::BITS - clocks.saturating_sub(1).leading_zeros();
        self.control_ns + self.control_fanout_ns * fanout + self.counter_bit_ns * f64::from(width)
    }

    /// [`Target::control_floor_ns`] of design `d`: its model flip-flop bits and clocks per
    /// period.
    pub fn design_control_ns(&self, d: &Design) -> f64 {
        // The flip-flop bits take a whole area computation (every register word followed,
        // `super::merged`), which a floor without a fan-out term does not need: every
        // critical path asks for the floor, so this is on the scheduler's hot path (with
        // the iCE40's fan-out term, explore took 0.98-1.00x the time without it).
        let ff_bits = if self.control_fanout_ns == 0.0 {
            0
        } else {
            super::area::area(d).total.ff_bits
        };
        self.control_floor_ns(ff_bits, d.clocks())
    }

    /// The same device without its start control: a design's critical path on it is its
    /// longest data path (how the control's figures are fitted, `docs/timing.md`).
    pub fn without_control(&self) -> Target {
        Target {
            control_ns: 0.0,
            control_fanout_ns: 0.0,
            counter_bit_ns: 0.0,
            ..self.clone()
        }
    }

    /// The same device with no clock uncertainty: pipelining fills the whole period.
    pub fn without_uncertainty(&self) -> Target {
        Target {
            uncertainty: 0.0,
            ..self.clone()
        }
    }

    /// What one pipeline stage may hold at a clock of `mhz`.
    pub fn stage(&self, mhz: f64) -> Stage {
        let period = 1000.0 / mhz;
        Stage {
            budget_ns: period * (1.0 - self.uncertainty) - self.register_ns,
            limit_ns: period - self.register_ns,
        }
    }

    /// The clock in MHz of a register-to-register path of `ns` combinational delay.
    pub fn mhz_of(&self, ns: f64) -> f64 {
        1000.0 / (ns + self.register_ns)
    }
}

/// The combinational delay one pipeline stage may hold between two registers at a clock
/// ([`Target::stage`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stage {
    /// What pipelining fills a stage to: the period less its uncertainty and the register.
    pub budget_ns: f64,
    /// What one operator alone may take and still meet the clock: the period less the
    /// register. An operator between the budget and this gets a stage of its own.
    pub limit_ns: f64,
}

/// What is known about the atoms of a signal, the same on every lane: used to see shifts
/// and multiplies by constants, which the RTL emits as wiring and shift-and-add chains.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Known {
    /// Anything.
    Unknown,
    /// A constant on every lane; the most nonzero canonical signed digits of any of them.
    Const(u32),
    /// The same constant on every lane: its value and its nonzero canonical signed digits
    /// (what a comparison against it reads, [`crate::st::compare`]).
    Exact(u64, u32),
    /// A lane that takes its atoms in turn from a table of constants (a generator whose
    /// lane changes with the clock): the most significant bits of any of them.
    Table(u32),
    /// An atom tuple whose parts are known separately.
    Pair(Box<Known>, Box<Known>),
}

impl Known {
    /// What a constant value's atoms give (`w` bits each).
    pub fn of_value(v: &Value, w: u32) -> Known {
        fn go(v: &Value, w: u32) -> Option<Known> {
            match v {
                Value::Undef => None,
                Value::Scalar(x) => {
                    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
                    Some(Known::Exact(*x & mask, csd_digits(*x, w)))
                }
                Value::Pair(p) => Some(Known::Pair(
                    Box::new(go(&p.0, w).unwrap_or(Known::Unknown)),
                    Box::new(go(&p.1, w).unwrap_or(Known::Unknown)),
                )),
                Value::List(xs) => {
                    let mut all: Option<Known> = None;
                    for x in xs {
                        let k = go(x, w)?;
                        all = Some(match all {
                            None => k,
                            Some(a) => a.meet(&k),
                        });
                    }
                    Some(all.unwrap_or(Known::Const(0)))
                }
            }
        }
        go(v, w).unwrap_or(Known::Unknown)
    }

    /// What a constant value's atoms give when each lane takes them in turn.
    pub fn table_of_value(v: &Value) -> Known {
        fn go(v: &Value) -> Option<Known> {
            match v {
                Value::Undef => None,
                Value::Scalar(x) => Some(Known::Table(u64::BITS - x.leading_zeros())),
                Value::Pair(p) => Some(Known::Pair(
                    Box::new(go(&p.0).unwrap_or(Known::Unknown)),
                    Box::new(go(&p.1).unwrap_or(Known::Unknown)),
                )),
                Value::List(xs) => xs
                    .iter()
                    .map(go)
                    .try_fold(Known::Table(0), |acc, k| Some(acc.meet(&k?))),
            }
        }
        go(v).unwrap_or(Known::Unknown)
    }

    /// What holds on both of two signals' lanes.
    pub fn meet(&self, other: &Known) -> Known {
        match (self, other) {
            (Known::Exact(a, d), Known::Exact(b, _)) if a == b => Known::Exact(*a, *d),
            (Known::Const(a) | Known::Exact(_, a), Known::Const(b) | Known::Exact(_, b)) => {
                Known::Const(*a.max(b))
            }
            (Known::Table(a), Known::Table(b)) => Known::Table(*a.max(b)),
            (Known::Pair(a, b), Known::Pair(c, d)) => {
                Known::Pair(Box::new(a.meet(c)), Box::new(b.meet(d)))
            }
            _ => Known::Unknown,
        }
    }

    /// The parts of an atom tuple.
    pub fn parts(&self) -> (Known, Known) {
        match self {
            Known::Pair(a, b) => ((**a).clone(), (**b).clone()),
            Known::Const(_) | Known::Exact(..) => (self.clone(), self.clone()),
            Known::Table(b) => (Known::Table(*b), Known::Table(*b)),
            Known::Unknown => (Known::Unknown, Known::Unknown),
        }
    }

    /// The nonzero canonical signed digits of a constant.
    pub fn digits(&self) -> Option<u32> {
        match self {
            Known::Const(d) | Known::Exact(_, d) => Some(*d),
            _ => None,
        }
    }

    /// The value of a constant the same on every lane.
    pub fn value(&self) -> Option<u64> {
        match self {
            Known::Exact(v, _) => Some(*v),
            _ => None,
        }
    }

    /// True when every part is a constant.
    pub fn is_const(&self) -> bool {
        match self {
            Known::Const(_) | Known::Exact(..) => true,
            Known::Pair(a, b) => a.is_const() && b.is_const(),
            Known::Table(_) | Known::Unknown => false,
        }
    }
}

/// Nonzero digits of `c` (mod 2^w) in canonical signed-digit form: the terms of the
/// shift-and-add chain the RTL writes for a multiply by `c`.
pub fn csd_digits(c: u64, w: u32) -> u32 {
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let mut x = u128::from(c & mask);
    let mut digits = 0;
    while x != 0 {
        if x & 1 == 1 {
            digits += 1;
            // a run of ones ending here becomes one negative digit and a carry
            if x & 2 == 2 {
                x += 1;
            } else {
                x -= 1;
            }
        }
        x >>= 1;
    }
    digits
}

/// The delay of atom operator `op` on an input of layout `input` (an atom or an atom tuple)
/// whose known parts are `known`, and what is known of its result.
pub fn atom_delay(t: &Target, op: AtomOp, input: &Layout, known: &Known) -> (f64, Known) {
    let (lw, rw) = match input {
        Layout::ATuple(a, b) => (a.atom_bits(), b.atom_bits()),
        _ => (input.atom_bits(), 0),
    };
    if known.is_const() && !matches!(op, AtomOp::Fst | AtomOp::Snd) {
        // folded by synthesis
        return (0.0, Known::Const(lw.div_ceil(2) as u32));
    }
    let (kl, kr) = known.parts();
    let levels_for = |bits: u64| -> u64 {
        // a tree of 4-input LUTs over `bits` inputs
        let mut n = bits.max(1);
        let mut l = 0;
        while n > 1 {
            n = n.div_ceil(4);
            l += 1;
        }
        l.max(1)
    };
    let const_mul = |digits: u32, w: u64| -> f64 {
        // a chain of digits-1 adders (a single digit is a shift: wiring)
        f64::from(digits.saturating_sub(1)) * t.carry_ns(w)
    };
    let d = match op {
        AtomOp::Fst => return (0.0, kl),
        AtomOp::Snd => return (0.0, kr),
        // Wiring; what was known of the source's digits says nothing of the result's.
        AtomOp::Cast(_) => return (0.0, Known::Unknown),
        AtomOp::Not | AtomOp::And | AtomOp::Or | AtomOp::If => t.lut_ns,
        AtomOp::Abs => {
            let signed = matches!(input, Layout::Scalar(s) if s.is_signed());
            if signed {
                t.carry_ns(lw) + t.lut_ns
            } else {
                0.0
            }
        }
        AtomOp::Add => t.carry_ns(lw),
        AtomOp::Sub => t.carry_ns(lw) + t.borrow_ns,
        AtomOp::Lt => match NarrowLt::of_lt(input, (kl.value(), kr.value())) {
            None => t.compare_ns(lw),
            Some(NarrowLt::Always(_)) => 0.0,
            // logic on the bits that decide, which ABC maps into a tree: a comparison with
            // 1001 and with 100001 measured 2.72 and 3.75 ns (`tests/data/timing/ltc_u16`,
            // `ltc_u32`; docs/timing.md section 2)
            Some(
                NarrowLt::AnyAbove { lo }
                | NarrowLt::NoneAbove { lo }
                | NarrowLt::Shifted { lo, .. },
            ) => t.luts_ns(levels_for(lw - u64::from(lo))),
        },
        AtomOp::Eq => t.luts_ns(levels_for(2 * lw.max(rw)) + 1),
        AtomOp::Lsl | AtomOp::Lsr => match kr.digits() {
            Some(_) => 0.0,
            None => t.luts_ns(levels_for(lw) + 1),
        },
        AtomOp::Mul => match (kl.digits(), kr.digits(), &kl, &kr) {
            (_, Some(d), ..) | (Some(d), ..) => const_mul(d, lw),
            (.., Known::Table(k)) | (_, _, Known::Table(k), _) => t.mul_ns(lw, u64::from(*k)),
            _ => t.mul_ns(lw, lw.min(rw)),
        },
        AtomOp::Div => match kr.digits() {
            Some(d) => const_mul(d, lw + 8),
            None => t.mul_ns(lw + 8, lw + 8),
        },
    };
    (d, Known::Unknown)
}

/// The delay of a selection among `sources` inputs by phase (a multiplexer and the
/// decoding of the phase): 0 for a plain wire.
pub fn select_ns(t: &Target, sources: u64) -> f64 {
    if sources <= 1 {
        return 0.0;
    }
    // a 4-input LUT selects among 2 inputs with 2 select bits spare; 2:1 per level
    let mut n = sources;
    let mut l: u64 = 0;
    while n > 1 {
        n = n.div_ceil(2);
        l += 1;
    }
    t.luts_ns(l.div_ceil(2) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csd_digits_count_the_shift_and_add_terms() {
        assert_eq!(csd_digits(0, 8), 0);
        assert_eq!(csd_digits(1, 8), 1);
        assert_eq!(csd_digits(2, 8), 1);
        assert_eq!(csd_digits(3, 8), 2); // 4 - 1
        assert_eq!(csd_digits(7, 8), 2); // 8 - 1
        assert_eq!(csd_digits(5, 8), 2); // 4 + 1
        assert_eq!(csd_digits(0b1011_0111, 8), 4);
    }

    #[test]
    fn a_wider_adder_is_slower_and_a_constant_shift_is_wiring() {
        let t = Target::ice40_hx8k();
        let u8p = Layout::atuple(
            Layout::Scalar(crate::seq::types::ScalarType::UInt8),
            Layout::Scalar(crate::seq::types::ScalarType::UInt8),
        );
        let u16p = Layout::atuple(
            Layout::Scalar(crate::seq::types::ScalarType::UInt16),
            Layout::Scalar(crate::seq::types::ScalarType::UInt16),
        );
        let (a8, _) = atom_delay(&t, AtomOp::Add, &u8p, &Known::Unknown);
        let (a16, _) = atom_delay(&t, AtomOp::Add, &u16p, &Known::Unknown);
        assert!(a16 > a8 && a8 > 0.0);
        let by_const = Known::Pair(Box::new(Known::Unknown), Box::new(Known::Const(1)));
        assert_eq!(atom_delay(&t, AtomOp::Lsl, &u8p, &by_const).0, 0.0);
        assert!(atom_delay(&t, AtomOp::Lsl, &u8p, &Known::Unknown).0 > 0.0);
    }
}
