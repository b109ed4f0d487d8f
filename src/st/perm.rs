//! Data-movement operators as atom maps.
//!
//! Up/Down, the shifts, partitions, (de)serialization, tuple/sseq conversions, Reshape and
//! FIFO compute nothing: each output atom is some input atom (of the same period), or a
//! fill value (what a shift moves in). [`Perm`] records that map ([`AtomMap`]) together with
//! both layouts, which fixes everything else:
//!
//! - **latency**: an output atom may leave no earlier than the clock its source arrives (a
//!   same-clock bypass is allowed, so layout-preserving moves are wires). The minimal
//!   latency is `max(0, max_o (tin(src o) - tout(o)))`; a FIFO adds its fixed delay instead.
//!   This generalizes Aetherling's `Down_1d_t` (`idx * clocks(t)`) and Reshape causality
//!   models (reference §5.3) to every movement operator.
//! - **storage**: an input atom is held from the clock after it arrives until its last
//!   read; the most atoms held at once in steady state (frames back to back) is the buffer
//!   the hardware needs (Koehn–Athanas minimum for this schedule).
//! - **simulation** ([`super::sim`]) follows the map clock by clock.
//!
//! The map is a formula, not a table, and latency and storage are computed on the
//! periodic structure of the layouts ([`reduce`]): a 1920x1080 frame's reshape or line
//! buffer costs as much to analyse as a few of its periods. The per-atom definitions above
//! are what the results equal exactly (`tests/st_perm_periodic.rs` compares them on
//! thousands of random layouts).

pub mod reduce;

use super::check::layout_elem_of_shift;
use super::layout::Layout;
use super::op::StOp;
use super::stream::{flatten, Lane};
use crate::seq::value::Value;
use reduce::{reduced_for_latency, reduced_for_storage, Kind, Shape};

/// Where an output atom comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Src {
    /// Input atom at this flat index, of the same period.
    In(u64),
    /// A fixed value: a shift's init atom, or don't-care.
    Fill(Lane),
}

/// How flat output atoms map to flat input atoms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AtomMap {
    /// Output atom `o` is input atom `o` (partitions, conversions, reshape, FIFO).
    Identity,
    /// Output atom `o` is input atom `o mod a`: an element of `a` atoms repeated (up).
    Repeat {
        /// Atoms of the repeated element.
        a: u64,
    },
    /// Output atom `o` is input atom `o + off`: one element selected (down).
    Offset {
        /// The selected element's first atom.
        off: u64,
    },
    /// Output atom `o` is input atom `o - by` for `o >= by`, else `fill[o % fill.len()]`
    /// (a shift by `by / fill.len()` elements of `fill.len()` atoms).
    Shift {
        /// Atoms shifted.
        by: u64,
        /// One element's fill atoms.
        fill: Vec<Lane>,
    },
}

/// A data-movement operator's atom map and timing.
#[derive(Clone, Debug)]
pub struct Perm {
    /// Input layout.
    pub input: Layout,
    /// Output layout.
    pub output: Layout,
    /// Where every output atom comes from ([`Perm::src`]).
    pub map: AtomMap,
    /// Clocks from the input's first clock to the output's first clock.
    pub latency: u64,
}

impl Perm {
    /// The map of a data-movement operator ([`StOp::is_data_movement`]) between its checked
    /// input and output layouts; `None` for other operators.
    pub fn of(op: &StOp, input: &Layout, output: &Layout) -> Option<Perm> {
        let map = match op {
            StOp::UpS { elem, .. } | StOp::UpT { elem, .. } => AtomMap::Repeat { a: elem.atoms() },
            StOp::DownS { idx, elem, .. } | StOp::DownT { idx, elem, .. } => AtomMap::Offset {
                off: idx * elem.atoms(),
            },
            StOp::ShiftS { .. }
            | StOp::ShiftT { .. }
            | StOp::ShiftTS { .. }
            | StOp::ShiftTT { .. }
            | StOp::ShiftTN { .. } => {
                let (_, _, amount, init) = op.shift_info()?;
                let elem = layout_elem_of_shift(op);
                let a = elem.atoms();
                let fill: Vec<Lane> = match init {
                    Some(v) => flatten(v, &elem.to_seq())
                        .into_iter()
                        .map(Lane::Val)
                        .collect(),
                    None => vec![Lane::Val(Value::Undef); a as usize],
                };
                AtomMap::Shift {
                    by: amount * a,
                    fill,
                }
            }
            StOp::PartitionSS { .. }
            | StOp::UnpartitionSS { .. }
            | StOp::PartitionTT { .. }
            | StOp::UnpartitionTT { .. }
            | StOp::Serialize { .. }
            | StOp::Deserialize { .. }
            | StOp::STupleToSSeq { .. }
            | StOp::SSeqToSTuple { .. }
            | StOp::Reshape { .. }
            | StOp::Fifo { .. } => AtomMap::Identity,
            _ => return None,
        };
        let mut p = Perm {
            input: input.clone(),
            output: output.clone(),
            map,
            latency: 0,
        };
        p.latency = match op {
            StOp::Fifo { delay, .. } => *delay,
            _ => p.min_latency(),
        };
        Some(p)
    }

    /// The source of output atom `o` (`o < output.atoms()`).
    pub fn src(&self, o: u64) -> Src {
        match &self.map {
            AtomMap::Identity => Src::In(o),
            AtomMap::Repeat { a } => Src::In(o % a),
            AtomMap::Offset { off } => Src::In(off + o),
            AtomMap::Shift { by, fill } => {
                if o >= *by {
                    Src::In(o - by)
                } else {
                    Src::Fill(fill[(o % fill.len() as u64) as usize].clone())
                }
            }
        }
    }

    fn shape(&self) -> Shape {
        Shape {
            input: self.input.clone(),
            output: self.output.clone(),
            kind: match &self.map {
                AtomMap::Identity => Kind::Identity,
                AtomMap::Repeat { a } => Kind::Repeat(*a),
                AtomMap::Offset { off } => Kind::Offset(*off),
                AtomMap::Shift { by, .. } => Kind::Shift(*by),
            },
        }
    }

    /// The least latency at which every output atom's source has arrived (same-clock
    /// bypass allowed): `max(0, max_o (tin(src o) - tout(o)))`, computed on a few periods
    /// of the layouts' common structure ([`reduce`]).
    pub fn min_latency(&self) -> u64 {
        atom_latency(&reduced_for_latency(self.shape()))
    }

    /// Atoms the latency analysis of a reshape from `input` to `output` walks after the
    /// periodic reductions ([`reduce`]): what it costs to analyse, which callers bound on
    /// frame-sized layouts whose periods do not line up.
    pub fn reshape_analysis_atoms(input: &Layout, output: &Layout) -> u64 {
        let shape = Shape {
            input: input.clone(),
            output: output.clone(),
            kind: Kind::Identity,
        };
        reduced_for_latency(shape).input.atoms()
    }

    /// True if no atom is ever held: every read happens on the clock its source arrives, so
    /// the operator is wiring (and lane selection).
    pub fn is_wiring(&self) -> bool {
        self.max_live_atoms() == 0
    }

    /// The most input atoms held at once in steady state (periods back to back), each held
    /// from the clock after it arrives to its last read at `tout + latency`; computed on a
    /// few periods of the layouts' common structure ([`reduce`]).
    pub fn max_live_atoms(&self) -> u64 {
        let (shape, mult) = reduced_for_storage(self.shape(), self.latency);
        mult * atom_max_live(&shape, self.latency)
    }
}

/// The clock of every flat atom of a layout.
pub fn clock_of_atoms(l: &Layout) -> Vec<u64> {
    let mut out = Vec::with_capacity(l.atoms() as usize);
    push_clocks(l, 0, &mut out);
    out
}

fn push_clocks(l: &Layout, base: u64, out: &mut Vec<u64>) {
    match l {
        Layout::Scalar(_) | Layout::ATuple(..) => out.push(base),
        Layout::STuple(n, t) | Layout::SSeq(n, t) => {
            if t.is_atom() {
                out.extend(std::iter::repeat_n(base, *n as usize));
            } else {
                for _ in 0..*n {
                    push_clocks(t, base, out);
                }
            }
        }
        Layout::TSeq(n, _, t) => {
            let c = t.clocks();
            for j in 0..*n {
                push_clocks(t, base + j * c, out);
            }
        }
    }
}

/// The clocks of a layout's flat atoms in flat order, one at a time (an odometer over the
/// layers of its normal form).
struct AtomClocks {
    /// Per layer, innermost last: length and clocks per step (0 for lanes).
    layers: Vec<(u64, u64)>,
    digits: Vec<u64>,
    clock: u64,
}

impl AtomClocks {
    fn new(l: &Layout) -> AtomClocks {
        let mut layers = Vec::new();
        let mut cur = l.normalize();
        loop {
            match cur {
                Layout::SSeq(k, t) | Layout::STuple(k, t) => {
                    layers.push((k, 0));
                    cur = *t;
                }
                Layout::TSeq(n, _, t) => {
                    layers.push((n, t.clocks()));
                    cur = *t;
                }
                _ => break,
            }
        }
        layers.retain(|(n, _)| *n > 1);
        AtomClocks {
            digits: vec![0; layers.len()],
            layers,
            clock: 0,
        }
    }

    /// Skips `k` atoms.
    fn skip(&mut self, k: u64) {
        for _ in 0..k {
            self.next();
        }
    }

    /// The next atom's clock.
    fn next(&mut self) -> u64 {
        let c = self.clock;
        for d in (0..self.layers.len()).rev() {
            let (n, step) = self.layers[d];
            self.digits[d] += 1;
            self.clock += step;
            if self.digits[d] < n {
                break;
            }
            self.digits[d] = 0;
            self.clock -= n * step;
        }
        c
    }
}

/// Calls `f(tin(src o), tout(o))` for every output atom `o` that reads an input atom, for
/// maps that read every input atom at most once (all but [`Kind::Repeat`]).
fn for_each_read(s: &Shape, mut f: impl FnMut(u64, u64)) {
    let mut tin = AtomClocks::new(&s.input);
    let mut tout = AtomClocks::new(&s.output);
    let n = s.output.atoms();
    let reads = match s.kind {
        Kind::Identity | Kind::Repeat(_) => n,
        Kind::Offset(off) => {
            tin.skip(off);
            n
        }
        Kind::Shift(by) => {
            tout.skip(by);
            n - by.min(n)
        }
    };
    for _ in 0..reads {
        let (i, o) = (tin.next(), tout.next());
        f(i, o);
    }
}

/// [`Perm::min_latency`] by its definition, atom by atom.
pub(crate) fn atom_latency(s: &Shape) -> u64 {
    let mut lat = 0;
    if let Kind::Repeat(_) = s.kind {
        let tin = clock_of_atoms(&s.input);
        let tout = clock_of_atoms(&s.output);
        for (o, t) in tout.iter().enumerate() {
            if let Some(e) = s.kind.src(o as u64) {
                lat = lat.max(tin[e as usize].saturating_sub(*t));
            }
        }
    } else {
        for_each_read(s, |i, o| lat = lat.max(i.saturating_sub(o)));
    }
    lat
}

/// Adds the interval `a ..= l` (clocks, folded modulo `p`) to an occupancy profile: `diff`
/// holds differences over one period, `everywhere` what every clock holds.
fn hold(diff: &mut [i64], everywhere: &mut i64, a: u64, l: u64) {
    if l < a {
        return;
    }
    let p = (diff.len() - 1) as u64;
    let len = l - a + 1;
    *everywhere += (len / p) as i64;
    let rem = (len % p) as usize;
    let start = (a % p) as usize;
    let end = start + rem;
    let p = p as usize;
    if end <= p {
        diff[start] += 1;
        diff[end] -= 1;
    } else {
        diff[start] += 1;
        diff[p] -= 1;
        diff[0] += 1;
        diff[end - p] -= 1;
    }
}

/// [`Perm::max_live_atoms`] by its definition, atom by atom: each read input atom is held
/// during clocks `tin+1 ..= last read`, the intervals of all periods folded onto one.
pub(crate) fn atom_max_live(s: &Shape, latency: u64) -> u64 {
    let p = s.input.clocks();
    let mut diff = vec![0i64; p as usize + 1];
    let mut everywhere = 0i64;
    if let Kind::Repeat(_) = s.kind {
        // an input atom is read several times: its last read ends its interval
        let tin = clock_of_atoms(&s.input);
        let tout = clock_of_atoms(&s.output);
        const NONE: u64 = u64::MAX;
        let mut last = vec![NONE; tin.len()];
        for (o, t) in tout.iter().enumerate() {
            if let Some(e) = s.kind.src(o as u64) {
                let r = t + latency;
                let slot = &mut last[e as usize];
                *slot = if *slot == NONE { r } else { (*slot).max(r) };
            }
        }
        for (e, l) in last.into_iter().enumerate() {
            if l != NONE {
                hold(&mut diff, &mut everywhere, tin[e] + 1, l);
            }
        }
    } else {
        for_each_read(s, |i, o| {
            hold(&mut diff, &mut everywhere, i + 1, o + latency)
        });
    }
    let mut acc = everywhere;
    let mut best = 0i64;
    for d in &diff[..p as usize] {
        acc += d;
        best = best.max(acc);
    }
    best as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::types::ScalarType;

    fn int() -> Layout {
        ScalarType::Int8.into()
    }

    #[test]
    fn down_t_waits_for_its_element() {
        let e = Layout::tseq(2, 1, int());
        let op = StOp::DownT {
            n: 3,
            i: 1,
            idx: 2,
            elem: e.clone(),
        };
        let p = Perm::of(&op, &Layout::tseq(3, 1, e.clone()), &Layout::tseq(1, 3, e)).unwrap();
        assert_eq!(p.latency, 6);
        assert!(p.is_wiring());
    }

    #[test]
    fn up_t_holds_one_element_and_shift_t_holds_amount() {
        let op = StOp::UpT {
            n: 4,
            i: 0,
            elem: int(),
        };
        let p = Perm::of(&op, &Layout::tseq(1, 3, int()), &Layout::tseq(4, 0, int())).unwrap();
        assert_eq!((p.latency, p.max_live_atoms()), (0, 1));
        let op = StOp::ShiftT {
            n: 6,
            i: 2,
            amount: 2,
            elem: int(),
            init: None,
        };
        let l = Layout::tseq(6, 2, int());
        let p = Perm::of(&op, &l, &l).unwrap();
        assert_eq!((p.latency, p.max_live_atoms()), (0, 2));
    }

    #[test]
    fn transpose_reshape_buffers() {
        // TSeq 2 0 (SSeq 2) -> SSeq 2 (TSeq 2 0): element 1 (clock 0, lane 1) leaves at clock 1.
        let a = Layout::tseq(2, 0, Layout::sseq(2, int()));
        let b = Layout::sseq(2, Layout::tseq(2, 0, int()));
        let op = StOp::Reshape {
            from: a.clone(),
            to: b.clone(),
        };
        let p = Perm::of(&op, &a, &b).unwrap();
        // atom 2 arrives at clock 1 but lane 1 of clock 0 needs it: latency 1.
        assert_eq!(p.latency, 1);
        assert!(p.max_live_atoms() > 0);
    }

    #[test]
    fn a_frame_sized_line_buffer_is_analysed_on_a_few_periods() {
        // shift by one 1920-pixel row of a 1920x1080 frame at 16 pixels per clock
        let l = Layout::tseq(129_600, 0, Layout::sseq(16, ScalarType::UInt32.into()));
        let op = StOp::ShiftTS {
            no: 129_600,
            io: 0,
            ni: 16,
            amount: 1920,
            elem: ScalarType::UInt32.into(),
            init: None,
        };
        let p = Perm::of(&op, &l, &l).unwrap();
        assert_eq!((p.latency, p.max_live_atoms()), (0, 1920));
    }
}
