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
//! buffer costs as much to analyse as a few of its periods. Where those periods do not line
//! up, an identity map's latency and storage have closed forms ([`closed`]) whose cost
//! follows the layouts' structure, not their atoms. The per-atom definitions above are
//! what the results equal exactly (`tests/st_perm_periodic.rs` and
//! `tests/st_perm_closed.rs` compare them on thousands of random layouts).

pub mod closed;
pub mod crossing;
pub mod reduce;
pub mod staircase;
pub mod sumset;

use super::check::layout_elem_of_shift;
use super::layout::{Layout, Sub};
use super::op::StOp;
use super::stream::{flatten, Lane};
use crate::seq::value::Value;
use crate::util::fxhash::FxBuild;
use reduce::{reduced_for_latency, reduced_for_sources, reduced_for_storage, Kind, Shape};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// The input atom that output atom `o` of a transpose of `no` rows of `ni` elements of `a`
/// atoms reads: output element `(i, o')` is input element `(o', i)`.
pub fn transposed(no: u64, ni: u64, a: u64, o: u64) -> u64 {
    let (elem, within) = (o / a, o % a);
    let (i, row) = (elem / no, elem % no);
    (row * ni + i) * a + within
}

/// Where an output atom comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Src {
    /// Input atom at this flat index, of the same period.
    In(u64),
    /// A fixed value: a shift's init atom, or don't-care.
    Fill(Lane),
}

/// How flat output atoms map to flat input atoms.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
    /// The transpose of `no` rows of `ni` elements of `a` atoms: output element `(i, o)`
    /// is input element `(o, i)`.
    Transpose {
        /// Rows of the input.
        no: u64,
        /// Elements per input row.
        ni: u64,
        /// Atoms per element.
        a: u64,
    },
}

/// What the output lanes of a data-movement operator read over one period, in the taps view
/// of its hardware (`rtl::movement`): output lane `k` on the clock of output atom `o` reads
/// input lane `lane` delayed by `d` (`d` = output clock + latency − input clock) when
/// `o`'s source is an input atom, a constant when it is a defined fill, and nothing (a
/// don't-care, or an invalid clock) otherwise.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaneSources {
    /// Number of distinct sources (input lane and delay, or fill value) of a lane → number
    /// of output lanes with that many. A lane with one source is a wire or a register tap;
    /// more need a phase multiplexer.
    pub counts: BTreeMap<u64, u64>,
    /// Over input lanes, the sum of the largest delay each is read at: the atoms a delay
    /// line per lane (the taps generator) holds. Exact, unless the count stopped early
    /// ([`Perm::lane_sources`]).
    pub tap_atoms: u64,
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
        let mut p = Perm::untimed(op, input, output)?;
        p.latency = match op {
            StOp::Fifo { delay, .. } => *delay,
            _ => p.min_latency(),
        };
        Some(p)
    }

    /// [`Perm::sources_analysis_atoms`] of a data-movement operator, without working out
    /// its latency first ([`Perm::of`]): the bound is asked before measuring a node, and on
    /// a frame-sized shift or transpose the latency walk cost as much as the measurement.
    pub fn sources_analysis_atoms_of(op: &StOp, input: &Layout, output: &Layout) -> Option<u64> {
        Perm::untimed(op, input, output).map(|p| p.sources_analysis_atoms())
    }

    /// [`Perm::of`] with latency 0.
    fn untimed(op: &StOp, input: &Layout, output: &Layout) -> Option<Perm> {
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
            StOp::Transpose { no, ni, .. } => AtomMap::Transpose {
                no: *no,
                ni: *ni,
                a: input.atoms() / (no * ni).max(1),
            },
            _ => return None,
        };
        Some(Perm {
            input: input.clone(),
            output: output.clone(),
            map,
            latency: 0,
        })
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
            AtomMap::Transpose { no, ni, a } => Src::In(transposed(*no, *ni, *a, o)),
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
                AtomMap::Transpose { no, ni, a } => Kind::Transpose {
                    no: *no,
                    ni: *ni,
                    a: *a,
                },
            },
        }
    }

    /// The least latency at which every output atom's source has arrived (same-clock
    /// bypass allowed): `max(0, max_o (tin(src o) - tout(o)))`; in closed form for an
    /// identity map whose layouts nest ([`closed`]), else computed on a few periods of the
    /// layouts' common structure ([`reduce`]).
    pub fn min_latency(&self) -> u64 {
        if self.map == AtomMap::Identity && self.input.atoms() >= CLOSED_MIN_ATOMS {
            if let Some(lat) = closed::identity_latency(&self.input, &self.output)
                .or_else(|| crossing::crossing_latency(&self.input, &self.output, CROSSING_CAP))
            {
                return lat;
            }
        }
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

    /// Atoms the count of each lane's sources ([`Perm::lane_sources`]) walks after the
    /// periodic reductions where no closed form applies: what measuring a data-movement
    /// operator's area costs, which callers bound on frame-sized operators whose periods do
    /// not line up (a buffered transpose of a whole frame: two million). An identity map
    /// counts its sources in closed form; its bound is [`Perm::reshape_analysis_atoms`].
    pub fn sources_analysis_atoms(&self) -> u64 {
        if self.map == AtomMap::Identity {
            return Perm::reshape_analysis_atoms(&self.input, &self.output);
        }
        reduced_for_sources(self.shape()).0.input.atoms()
    }

    /// True if no atom is ever held: every read happens on the clock its source arrives, so
    /// the operator is wiring (and lane selection).
    pub fn is_wiring(&self) -> bool {
        self.max_live_atoms() == 0
    }

    /// The distinct sources each output lane reads over a period ([`LaneSources`]),
    /// computed on a few periods of the layouts' common structure ([`reduce`]). A lane's
    /// count stops at `cap` (when given): it is exact up to `cap`, and `cap` means at least
    /// that many. With `stop`, the walk may end as soon as every lane has reached `cap`
    /// and `tap_atoms` exceeds `stop` (nothing more can change a decision on them): then
    /// `tap_atoms` is only known to exceed `stop`; otherwise it is exact.
    pub fn lane_sources(&self, cap: Option<u64>, stop: Option<u64>) -> LaneSources {
        let (shape, mult) = reduced_for_sources(self.shape());
        // a defined fill value's key: the first fill index holding the same value
        let fill_key: Vec<Option<u64>> = match &self.map {
            AtomMap::Shift { fill, .. } => fill
                .iter()
                .map(|f| match f {
                    Lane::Val(v) if !v.has_undef() => {
                        fill.iter().position(|g| g == f).map(|i| i as u64)
                    }
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let fill = |o: u64| {
            let n = fill_key.len() as u64;
            (n > 0).then(|| fill_key[(o % n) as usize]).flatten()
        };
        let cap = cap.unwrap_or(u64::MAX);
        // the early stop is decided on the grouped shape: its taps are `tap_atoms / mult`
        let stop = stop.map(|t| t / mult);
        if shape.kind == Kind::Identity && shape.input.atoms() >= CLOSED_MIN_ATOMS {
            let closed = closed::identity_sources(&shape.input, &shape.output, self.latency);
            if let Some((distinct, most)) = closed {
                // every output lane reads as many, each standing for `mult`
                return LaneSources {
                    counts: BTreeMap::from([(distinct.min(cap), mult * shape.output.lanes())]),
                    tap_atoms: mult * most,
                };
            }
            let (i, o) = (&shape.input, &shape.output);
            if let Some((per, most)) = crossing::crossing_sources(i, o, self.latency, CROSSING_CAP)
            {
                let mut counts = BTreeMap::new();
                for (n, lanes) in per {
                    *counts.entry(n.min(cap)).or_default() += mult * lanes;
                }
                return LaneSources {
                    counts,
                    tap_atoms: mult * most,
                };
            }
        }
        atom_lane_sources(&shape, self.latency, fill, mult, cap, stop)
    }

    /// The most input atoms held at once in steady state (periods back to back), each held
    /// from the clock after it arrives to its last read at `tout + latency`; computed on a
    /// few periods of the layouts' common structure ([`reduce`]), for a map that reads each
    /// input atom once (identity, transpose) over the runs of one of its layouts
    /// ([`closed`]) when they are fewer than its atoms.
    pub fn max_live_atoms(&self) -> u64 {
        let (shape, mult) = reduced_for_storage(self.shape(), self.latency);
        let once = matches!(shape.kind, Kind::Identity | Kind::Transpose { .. });
        if once && shape.input.atoms() >= CLOSED_MIN_ATOMS {
            // the count of atoms held (arrived less read) needs no read before its arrival,
            // which a FIFO's fixed delay does not promise
            let least = match shape.kind {
                Kind::Identity => {
                    closed::identity_latency(&shape.input, &shape.output).or_else(|| {
                        crossing::crossing_latency(&shape.input, &shape.output, CROSSING_CAP)
                    })
                }
                _ => None,
            }
            .unwrap_or_else(|| atom_latency(&reduced_for_latency(shape.clone())));
            // the walk costs the atoms: more runs than that are not worth it
            let cap = shape.input.atoms().max(64) as usize;
            let (i, o, l) = (&shape.input, &shape.output, self.latency);
            let closed = match shape.kind {
                _ if l < least => None,
                Kind::Identity => closed::identity_storage(i, o, l, cap),
                _ => closed::bijection_max_live(i, o, l, cap),
            };
            if let Some(live) = closed {
                return mult * live;
            }
        }
        mult * atom_max_live(&shape, self.latency)
    }
}

/// The fewest atoms for which an identity map's analyses take their closed forms
/// ([`closed`]): below, walking the atoms is cheaper than building the digits and runs
/// (criterion `aetherling_large_slowdown` on the 128-pixel apps ran up to twice as long
/// with the closed forms at every size, on the loaded machine).
const CLOSED_MIN_ATOMS: u64 = 1 << 10;

/// The most settings an identity map's crossing digits ([`crossing`]) are tabulated for
/// before the analyses walk the atoms instead: a table entry costs about what an atom of the
/// walk does, and frame-scale crossings span a few thousand.
const CROSSING_CAP: u64 = 1 << 20;

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

/// The clocks and lanes of a layout's flat atoms in flat order, one at a time (an odometer
/// over the layers of its normal form).
struct AtomClocks {
    /// Per layer, innermost last: length, clocks per step (0 for lanes) and lanes per step
    /// (0 for time).
    layers: Vec<(u64, u64, u64)>,
    digits: Vec<u64>,
    clock: u64,
    lane: u64,
}

impl AtomClocks {
    fn new(l: &Layout) -> AtomClocks {
        let mut layers = Vec::new();
        let mut cur = l.normalize();
        loop {
            match cur {
                Layout::SSeq(k, t) | Layout::STuple(k, t) => {
                    layers.push((k, 0, t.lanes()));
                    cur = Sub::unwrap_or_clone(t);
                }
                Layout::TSeq(n, _, t) => {
                    layers.push((n, t.clocks(), 0));
                    cur = Sub::unwrap_or_clone(t);
                }
                _ => break,
            }
        }
        layers.retain(|(n, _, _)| *n > 1);
        AtomClocks {
            digits: vec![0; layers.len()],
            layers,
            clock: 0,
            lane: 0,
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
        self.next_pos().0
    }

    /// The next atom's clock and lane.
    fn next_pos(&mut self) -> (u64, u64) {
        let pos = (self.clock, self.lane);
        for d in (0..self.layers.len()).rev() {
            let (n, step, lstep) = self.layers[d];
            self.digits[d] += 1;
            self.clock += step;
            self.lane += lstep;
            if self.digits[d] < n {
                break;
            }
            self.digits[d] = 0;
            self.clock -= n * step;
            self.lane -= n * lstep;
        }
        pos
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
        Kind::Transpose { no, ni, a } => {
            // Reads out of input order: the input atoms' clocks are tabled first.
            let tin: Vec<u64> = (0..s.input.atoms()).map(|_| tin.next()).collect();
            for o in 0..n {
                f(tin[transposed(no, ni, a, o) as usize], tout.next());
            }
            return;
        }
    };
    for _ in 0..reads {
        let (i, o) = (tin.next(), tout.next());
        f(i, o);
    }
}

/// [`Perm::lane_sources`] of a shape, atom by atom; each lane of the shape stands for `mult`
/// lanes with the same input sources: lane `k` stands for lanes `k·mult + r` when the map
/// is a shift (only inner lanes are grouped), whose output atom `o` stands for atoms
/// `o·mult + r`. `fill(o)` is the key of the original output atom `o`'s fill value, `None`
/// for a don't-care. Lane counts stop at `cap`.
pub(crate) fn atom_lane_sources(
    s: &Shape,
    latency: u64,
    fill: impl Fn(u64) -> Option<u64>,
    mult: u64,
    cap: u64,
    stop: Option<u64>,
) -> LaneSources {
    let empty = Distinct {
        cap: cap as usize,
        ..Distinct::default()
    };
    let mut lanes: Vec<Distinct> = vec![empty; s.output.lanes() as usize];
    // (lane, sub-lane r, fill key) of the defined fills read
    let mut fills: BTreeSet<(u64, u64, u64)> = BTreeSet::new();
    let mut max_delay = vec![0u64; s.input.lanes() as usize];
    // running Σ max_delay and lanes at their cap, for the early stop
    let (mut taps, mut full) = (0u64, 0usize);
    let n_lanes = lanes.len();
    let mut read = |lanes: &mut [Distinct], (ci, li): (u64, u64), (co, lo): (u64, u64)| {
        let d = co + latency - ci;
        let l = &mut lanes[lo as usize];
        let before = l.len();
        l.insert((li, d));
        if l.len() > before && l.len() == cap {
            full += 1;
        }
        let m = &mut max_delay[li as usize];
        if d > *m {
            taps += d - *m;
            *m = d;
        }
        // true: the walk may stop
        stop.is_some_and(|t| taps > t && full == n_lanes)
    };
    let mut tin = AtomClocks::new(&s.input);
    let mut tout = AtomClocks::new(&s.output);
    let n = s.output.atoms();
    match s.kind {
        Kind::Identity => {
            for _ in 0..n {
                if read(&mut lanes, tin.next_pos(), tout.next_pos()) {
                    break;
                }
            }
        }
        Kind::Offset(off) => {
            tin.skip(off);
            for _ in 0..n {
                if read(&mut lanes, tin.next_pos(), tout.next_pos()) {
                    break;
                }
            }
        }
        Kind::Repeat(a) => {
            for o in 0..n {
                if o % a == 0 {
                    tin = AtomClocks::new(&s.input);
                }
                if read(&mut lanes, tin.next_pos(), tout.next_pos()) {
                    break;
                }
            }
        }
        Kind::Shift(by) => {
            for o in 0..by.min(n) {
                let (_, lo) = tout.next_pos();
                for r in 0..mult {
                    if let Some(k) = fill(o * mult + r) {
                        fills.insert((lo, r, k));
                    }
                }
            }
            for _ in by.min(n)..n {
                if read(&mut lanes, tin.next_pos(), tout.next_pos()) {
                    break;
                }
            }
        }
        Kind::Transpose { no, ni, a } => {
            let tin: Vec<(u64, u64)> = (0..s.input.atoms()).map(|_| tin.next_pos()).collect();
            for o in 0..n {
                let src = tin[transposed(no, ni, a, o) as usize];
                if read(&mut lanes, src, tout.next_pos()) {
                    break;
                }
            }
        }
    }
    let mut counts = BTreeMap::new();
    for (k, l) in lanes.iter().enumerate() {
        if fills.is_empty() {
            *counts.entry(l.len()).or_default() += mult;
        } else {
            for r in 0..mult {
                let f = fills
                    .range((k as u64, r, 0)..=(k as u64, r, u64::MAX))
                    .count();
                *counts.entry((l.len() + f as u64).min(cap)).or_default() += 1;
            }
        }
    }
    LaneSources {
        counts,
        tap_atoms: mult * taps,
    }
}

/// The distinct sources of one output lane, counted up to `cap`: a short list, or a set once
/// it is long (the walk visits every atom, and a lane usually reads the same source run
/// after run).
#[derive(Clone, Default)]
struct Distinct {
    cap: usize,
    last: Option<(u64, u64)>,
    few: Vec<(u64, u64)>,
    // Fx, not SipHash: SipHash would dominate the walk.
    many: HashSet<(u64, u64), FxBuild>,
}

impl Distinct {
    fn insert(&mut self, k: (u64, u64)) {
        if self.last == Some(k) || self.few.len() + self.many.len() >= self.cap {
            return;
        }
        self.last = Some(k);
        if !self.many.is_empty() {
            self.many.insert(k);
        } else if !self.few.contains(&k) {
            self.few.push(k);
            if self.few.len() > 32 {
                self.many.extend(self.few.drain(..));
            }
        }
    }

    fn len(&self) -> u64 {
        (self.few.len() + self.many.len()) as u64
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

/// The occupancy of one period of `p` clocks, built from held intervals folded modulo `p`.
/// Dense (a difference per clock) when the period is short next to the number of
/// intervals; otherwise sparse (one event per interval end), so a slowdown of 10^9 clocks
/// costs what its atoms cost, not a vector of 10^9 entries.
struct Occupancy {
    p: u64,
    /// What every clock holds (intervals longer than a period).
    everywhere: i64,
    dense: Option<Vec<i64>>,
    events: Vec<(u64, i64)>,
}

impl Occupancy {
    fn new(p: u64, intervals: u64) -> Occupancy {
        let dense = (p <= intervals.saturating_mul(4).saturating_add(1024))
            .then(|| vec![0i64; p as usize + 1]);
        Occupancy {
            p,
            everywhere: 0,
            dense,
            events: Vec::new(),
        }
    }

    fn add(&mut self, at: u64, d: i64) {
        match &mut self.dense {
            Some(diff) => diff[at as usize] += d,
            None => self.events.push((at, d)),
        }
    }

    /// Adds the interval `a ..= l` (clocks, folded modulo the period).
    fn hold(&mut self, a: u64, l: u64) {
        if l < a {
            return;
        }
        let p = self.p;
        let len = l - a + 1;
        self.everywhere += (len / p) as i64;
        let rem = len % p;
        let start = a % p;
        let end = start + rem;
        if end <= p {
            self.add(start, 1);
            self.add(end, -1);
        } else {
            self.add(start, 1);
            self.add(p, -1);
            self.add(0, 1);
            self.add(end - p, -1);
        }
    }

    /// The most held at any clock of the period.
    fn max(mut self) -> u64 {
        let mut acc = self.everywhere;
        let mut best = 0i64;
        match self.dense {
            Some(diff) => {
                for d in &diff[..self.p as usize] {
                    acc += d;
                    best = best.max(acc);
                }
            }
            None => {
                // Between two events the count is constant: clock 0, then each event's clock.
                self.events.push((0, 0));
                self.events.sort_unstable();
                let mut k = 0;
                while k < self.events.len() && self.events[k].0 < self.p {
                    let at = self.events[k].0;
                    while k < self.events.len() && self.events[k].0 == at {
                        acc += self.events[k].1;
                        k += 1;
                    }
                    best = best.max(acc);
                }
            }
        }
        best as u64
    }
}

/// [`Perm::max_live_atoms`] by its definition, atom by atom: each read input atom is held
/// during clocks `tin+1 ..= last read`, the intervals of all periods folded onto one.
pub(crate) fn atom_max_live(s: &Shape, latency: u64) -> u64 {
    let mut occ = Occupancy::new(s.input.clocks(), s.input.atoms().max(s.output.atoms()));
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
                occ.hold(tin[e] + 1, l);
            }
        }
    } else {
        for_each_read(s, |i, o| occ.hold(i + 1, o + latency));
    }
    occ.max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::types::ScalarType;

    fn int() -> Layout {
        ScalarType::Int8.into()
    }

    #[test]
    fn sparse_and_dense_occupancy_agree() {
        // The sparse profile serves huge periods; it must count exactly as the dense one.
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for p in [1u64, 2, 3, 7, 16, 50] {
            for _ in 0..50 {
                let mut dense = Occupancy::new(p, 1 << 20);
                let mut sparse = Occupancy::new(p, 0);
                sparse.dense = None;
                for _ in 0..next(6) {
                    let a = next(3 * p);
                    let l = a + next(3 * p) - p.min(a);
                    dense.hold(a, l);
                    sparse.hold(a, l);
                }
                assert_eq!(dense.max(), sparse.max(), "period {p}");
            }
        }
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
