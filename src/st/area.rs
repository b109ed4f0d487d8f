//! The area model: a resource vector per operator and one weighted scalar to rank designs.
//! Formulas and their rationale are in `docs/area-model.md`.
//!
//! Starting point: Aetherling's `Compute_Area` (reference §5.1), repaired where it is blind:
//! counters and phase logic are charged, multiplexers are charged, storage is what the
//! operator really holds (computed from its atom map by [`Perm::max_live_atoms`], so
//! `up_1d_t`, the shifts, reshapes and (de)serializers all pay for their buffers), FIFOs pay
//! for their depth, constant multiplies are shift-and-add (free for powers of two) and a
//! multiply by a non-constant takes DSPs.
//!
//! Accounting is DAG-aware: inside one scope a node is paid once however many consumers it
//! has; a body is paid once per hardware instance (`n` times under `map_s n`, `n-1` times
//! under `reduce_s n`, once under the time operators).

use super::compare::NarrowLt;
use super::design::{Design, NodeId};
use super::known::{node_lanes, Known};
use super::layout::Layout;
use super::op::StOp;
use super::perm::{AtomMap, Perm};
use crate::seq::op::AtomOp;
use crate::seq::value::Value;
use crate::util::fxhash::FxBuild;
use indexmap::IndexMap;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::{Add, AddAssign, Mul};

/// A resource vector.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Area {
    /// LUT-like logic cells (6-input LUT equivalents).
    pub logic: u64,
    /// Flip-flop bits.
    pub ff_bits: u64,
    /// Bits of RAM (distributed or block).
    pub ram_bits: u64,
    /// DSP multiplier blocks.
    pub dsp: u64,
}

impl Add for Area {
    type Output = Area;
    fn add(self, o: Area) -> Area {
        Area {
            logic: self.logic + o.logic,
            ff_bits: self.ff_bits + o.ff_bits,
            ram_bits: self.ram_bits + o.ram_bits,
            dsp: self.dsp + o.dsp,
        }
    }
}

impl AddAssign for Area {
    fn add_assign(&mut self, o: Area) {
        *self = *self + o;
    }
}

impl Mul<u64> for Area {
    type Output = Area;
    fn mul(self, k: u64) -> Area {
        Area {
            logic: self.logic * k,
            ff_bits: self.ff_bits * k,
            ram_bits: self.ram_bits * k,
            dsp: self.dsp * k,
        }
    }
}

/// Weights turning an [`Area`] into one number, in LUT equivalents.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Weights {
    /// Per logic cell.
    pub logic: f64,
    /// Per flip-flop bit: a 7-series slice has 4 LUTs and 8 flip-flops.
    pub ff_bit: f64,
    /// Per RAM bit: a LUT used as RAM holds 64 bits.
    pub ram_bit: f64,
    /// Per DSP: roughly the LUTs of the 8x8 multiplier it replaces.
    pub dsp: f64,
}

impl Default for Weights {
    fn default() -> Weights {
        Weights {
            logic: 1.0,
            ff_bit: 0.5,
            ram_bit: 1.0 / 64.0,
            dsp: 64.0,
        }
    }
}

impl Area {
    /// The weighted scalar used to rank designs.
    pub fn scalar(&self, w: &Weights) -> f64 {
        self.logic as f64 * w.logic
            + self.ff_bits as f64 * w.ff_bit
            + self.ram_bits as f64 * w.ram_bit
            + self.dsp as f64 * w.dsp
    }
}

/// The area of a design, in total and by operator name (instances counted).
#[derive(Clone, Debug, Default)]
pub struct AreaReport {
    /// The sum.
    pub total: Area,
    /// Per operator name: hardware instances and their summed area, in first-seen order.
    pub by_op: IndexMap<&'static str, (u64, Area)>,
    /// Pipeline register bits that repeat a register the design already holds, counted once
    /// ([`super::merged`]): left out of `total` and of their operators' entries in `by_op`.
    pub merged_ff_bits: u64,
}

/// Computes the area of a design.
pub fn area(d: &Design) -> AreaReport {
    let mut r = AreaReport::default();
    scope_area(d, d.output(), 1, &[], &mut r);
    // synthesis keeps one flip-flop of those with the same input
    let m = super::merged::merged_register_bits(d);
    for (op, bits) in [("fifo", m.fifo), ("reduce_s", m.reduce_s)] {
        if let Some(e) = r.by_op.get_mut(op) {
            e.1.ff_bits = e.1.ff_bits.saturating_sub(bits);
        }
    }
    r.merged_ff_bits = m.total();
    r.total.ff_bits = r.total.ff_bits.saturating_sub(r.merged_ff_bits);
    r
}

/// What is known of a node's lanes ([`super::known`]); `None` when nothing is, as in most
/// scopes, which then cost no knowledge at all.
type Lanes = Option<Vec<Known>>;

/// Adds to `r` the area of `mult` hardware copies of the scope computing `root`, whose
/// parameters' lanes are known as `params` (`None`: nothing known), and returns what is
/// known of the root's lanes. A body is costed once per distinct knowledge of its
/// parameters, as the RTL builds one variant per distinct knowledge: a kernel's weights
/// zipped with the pixels reach each lane's multiply as constants, which the RTL writes as
/// shifts and adds.
fn scope_area(d: &Design, root: NodeId, mult: u64, params: &[Lanes], r: &mut AreaReport) -> Lanes {
    let mut know: HashMap<NodeId, Lanes, FxBuild> = HashMap::default();
    for id in d.scope(root) {
        let node = d.node(id);
        let args: Vec<&Lanes> = node.args.iter().map(|a| &know[a]).collect();
        let own = match &node.op {
            StOp::Atom(a) => atom_area(d, *a, node.args[0], args[0].as_ref().map(|k| &k[0])),
            _ => own_area(d, id),
        } * mult;
        // Inputs and parameters are ports, not hardware.
        if !matches!(node.op, StOp::Input(_) | StOp::Arg(..)) {
            let e = r.by_op.entry(node.op.name()).or_default();
            e.0 += mult;
            e.1 += own;
        }
        r.total += own;
        let lanes = match &node.op {
            StOp::Input(_) => None,
            StOp::Arg(k, _) => params.get(usize::from(*k)).cloned().flatten(),
            StOp::MapS { n, body } | StOp::Map2S { n, body } => {
                lanes_area(d, d.body(*body).root, *n, mult, &args, r)
            }
            StOp::ReduceS { n, body, .. } => {
                reduce_area(d, d.layout(id), d.body(*body).root, *n, mult, args[0], r)
            }
            StOp::MapT { body, .. } | StOp::Map2T { body, .. } | StOp::Stall { body, .. } => {
                let all: Vec<Lanes> = args.iter().map(|a| (*a).clone()).collect();
                scope_area(d, d.body(*body).root, mult, &all, r)
            }
            StOp::ReduceT { n, body, .. } => {
                // the accumulator is never known; the element may be
                let elem = args[0]
                    .as_ref()
                    .map(|k| k.iter().map(|k| Known::pair(&Known::Unknown, k)).collect());
                scope_area(d, d.body(*body).root, mult, &[elem], r);
                if *n == 1 {
                    args[0].clone()
                } else {
                    None
                }
            }
            StOp::Const { .. } | StOp::Counter { .. } => node_lanes(d, id, &[]),
            _ if args.iter().all(|a| a.is_none()) => None,
            _ => {
                let full: Vec<Vec<Known>> = node
                    .args
                    .iter()
                    .zip(&args)
                    .map(|(a, k)| known_or_not(k, d.layout(*a)))
                    .collect();
                let refs: Vec<&[Known]> = full.iter().map(Vec::as_slice).collect();
                node_lanes(d, id, &refs)
            }
        };
        know.insert(id, lanes.filter(|k| k.iter().any(|k| !k.is_unknown())));
    }
    know.remove(&root).flatten()
}

/// The lanes of a node of layout `l` known as `k`, every one of them listed.
fn known_or_not(k: &Lanes, l: &Layout) -> Vec<Known> {
    k.clone()
        .unwrap_or_else(|| vec![Known::Unknown; l.lanes() as usize])
}

/// The area of `map_s n` / `map2_s n` instances of the body computing `root` (`mult`
/// copies of the map), its arguments' lanes known as `args`: one costing per distinct
/// knowledge of an instance's parameters, times the instances that have it. Returns what
/// is known of the map's lanes (each instance's, in lane order).
fn lanes_area(
    d: &Design,
    root: NodeId,
    n: u64,
    mult: u64,
    args: &[&Lanes],
    r: &mut AreaReport,
) -> Lanes {
    if args.iter().all(|a| a.is_none()) {
        let out = scope_area(d, root, mult * n, &vec![None; args.len()], r);
        return out.map(|k| (0..n).flat_map(|_| k.iter().cloned()).collect());
    }
    // each instance's parameters: its slice of every argument's lanes
    let instance = |j: usize| -> Vec<Lanes> {
        args.iter()
            .map(|a| {
                a.as_ref().map(|k| {
                    let w = k.len() / n as usize;
                    k[j * w..(j + 1) * w].to_vec()
                })
            })
            .collect()
    };
    let mut groups: IndexMap<Vec<Lanes>, u64, FxBuild> = IndexMap::default();
    for j in 0..n as usize {
        *groups.entry(instance(j)).or_default() += 1;
    }
    let mut outs: HashMap<Vec<Lanes>, Lanes, FxBuild> = HashMap::default();
    for (params, count) in &groups {
        let out = scope_area(d, root, mult * count, params, r);
        outs.insert(params.clone(), out);
    }
    let per: Vec<&Lanes> = (0..n as usize).map(|j| &outs[&instance(j)]).collect();
    if per.iter().all(|o| o.is_none()) {
        return None;
    }
    let w = d.layout(root).lanes();
    let unknown = vec![Known::Unknown; w as usize];
    Some(
        per.into_iter()
            .flat_map(|o| o.as_ref().unwrap_or(&unknown).clone())
            .collect(),
    )
}

/// The area of the `n - 1` links of a `reduce_s n` (`mult` copies) of layout `out`, each
/// an instance of the body computing `root` on the pair (accumulator, next element), its
/// input's lanes known as `input`. Returns what is known of the result's lanes.
fn reduce_area(
    d: &Design,
    out: &Layout,
    root: NodeId,
    n: u64,
    mult: u64,
    input: &Lanes,
    r: &mut AreaReport,
) -> Lanes {
    let Some(k) = input else {
        // one costing for every link (nothing to know), as for n = 1 (no link at all)
        let acc = scope_area(d, root, mult * n.saturating_sub(1), &[None], r);
        return if n == 1 { None } else { acc };
    };
    let lanes = out.lanes() as usize;
    let mut acc: Lanes = Some(k[..lanes].to_vec());
    for j in 1..n as usize {
        let a = known_or_not(&acc, out);
        let zk: Vec<Known> = a
            .iter()
            .zip(&k[j * lanes..(j + 1) * lanes])
            .map(|(a, b)| Known::pair(a, b))
            .collect();
        let zk = Some(zk).filter(|z| z.iter().any(|k| !k.is_unknown()));
        acc = scope_area(d, root, mult, &[zk], r);
    }
    acc
}

/// The words of pipeline registers in a `reduce_s n` chain with registers after the links
/// `regs`: one accumulator per register, and each element entering a later link delayed
/// by the registers before it.
pub fn reduce_pipeline_words(n: u64, regs: &[u64]) -> u64 {
    let delayed: u64 = (2..n)
        .map(|link| regs.iter().filter(|&&c| c < link).count() as u64)
        .sum();
    regs.len() as u64 + delayed
}

/// `ceil(log2(n))`, 0 for `n <= 1`.
pub fn clog2(n: u64) -> u64 {
    if n <= 1 {
        0
    } else {
        u64::from(64 - (n - 1).leading_zeros())
    }
}

/// A counter modulo `p`: a register and an incrementer of `clog2(p)` bits.
pub fn counter(p: u64) -> Area {
    let b = clog2(p);
    Area {
        logic: b,
        ff_bits: b,
        ..Area::default()
    }
}

/// The deepest delay built as a chain of registers; deeper ones are a circular memory read
/// into a register (RAM). A short chain costs fewer cells than a memory and its read
/// multiplexer on devices without distributed RAM (the iCE40), and synthesis packs it into
/// shift-register LUTs where they exist (SRL16 on the 7-series).
pub const REGISTER_CHAIN_MAX: u64 = 4;

/// Storage of `words` words of `width` bits: registers up to [`REGISTER_CHAIN_MAX`] words,
/// RAM beyond.
pub fn storage(words: u64, width: u64) -> Area {
    if words <= REGISTER_CHAIN_MAX {
        Area {
            ff_bits: words * width,
            ..Area::default()
        }
    } else {
        Area {
            ram_bits: words * width,
            logic: 2 * clog2(words),
            ..Area::default()
        }
    }
}

/// A `k`-to-1 multiplexer of `width` bits: a 6-input LUT is a 4-to-1 mux of one bit.
pub fn mux(k: u64, width: u64) -> Area {
    Area {
        logic: if k <= 1 {
            0
        } else {
            width * (k - 1).div_ceil(3)
        },
        ..Area::default()
    }
}

/// The area of one node, excluding its body.
pub fn own_area(d: &Design, id: NodeId) -> Area {
    let node = d.node(id);
    let out = d.layout(id);
    let logic = |logic| Area {
        logic,
        ..Area::default()
    };
    match &node.op {
        StOp::Atom(a) => atom_area(d, *a, node.args[0], None),
        StOp::Const { layout, .. } => {
            let p = layout.clocks();
            if p == 1 {
                Area::default()
            } else {
                logic(layout.bits_per_clock() * p.div_ceil(64)) + counter(p)
            }
        }
        StOp::Counter { layout, .. } => {
            let p = layout.clocks();
            if p == 1 {
                Area::default()
            } else {
                let b = layout.atom_bits();
                Area {
                    logic: b * layout.lanes(),
                    ff_bits: b,
                    ..Area::default()
                } + counter(p)
            }
        }
        StOp::ReduceS { n, regs, .. } => Area {
            ff_bits: reduce_pipeline_words(*n, regs) * out.bits_per_clock(),
            ..Area::default()
        },
        StOp::ReduceT { body, .. } => {
            let elem = d.layout(d.body(*body).root);
            let w = elem.bits_per_clock();
            storage(elem.valid_clocks(), w) + mux(2, w) + counter(out.clocks())
        }
        StOp::Stall { idle, body, .. } => {
            super::stall::control_area(d.layout(d.body(*body).root).clocks(), *idle)
        }
        StOp::Fifo { layout, delay } => {
            let s = storage(*delay, layout.bits_per_clock());
            if *delay > REGISTER_CHAIN_MAX {
                s + counter(*delay)
            } else {
                s
            }
        }
        op if op.is_data_movement() => {
            let input = d.layout(node.args[0]);
            let Some(p) = Perm::of(op, input, out) else {
                return Area::default();
            };
            movement_area(&p)
        }
        _ => Area::default(),
    }
}

/// A lower bound on [`own_area`] that is cheap on frame-sized data movement (see
/// [`movement_area_bound`]); the area itself for every other operator.
pub fn own_area_bound(d: &Design, id: NodeId) -> Area {
    let node = d.node(id);
    if !node.op.is_data_movement() {
        return own_area(d, id);
    }
    let input = d.layout(node.args[0]);
    Perm::of(&node.op, input, d.layout(id)).map_or_else(Area::default, |p| movement_area_bound(&p))
}

/// The default largest register buffer (bits) a data-movement operator is built as; larger
/// ones are RAM delay taps. The RTL's default (`RtlOptions::buffer_max_bits`) is this, so
/// the model charges what the generators build.
pub const BUFFER_MAX_BITS: u64 = 1024;

/// Storage, read multiplexers and phase counter of a data-movement operator; zero when it
/// is wiring.
///
/// Each output lane's multiplexer selects among the distinct sources it reads over a
/// period ([`Perm::lane_sources`]: an input lane at a delay, or a fill constant), as the
/// RTL's delay taps do; a lane with one source is a wire or a register tap, so an operator
/// whose every lane has one source needs no multiplexer and no phase counter. When the RTL
/// would rather build the minimal register buffer (it stores fewer bits than the taps and
/// at most [`BUFFER_MAX_BITS`]), a lane reads at most the `depth` words of its
/// buffer bank or its input directly, and the buffer's writes follow the phase.
pub fn movement_area(p: &Perm) -> Area {
    // The analyses walk every atom of layouts whose periods do not line up (a frame-sized
    // reshape: millions), and the same operator is costed again for every design that
    // contains it (Aetherling's baseline costs each candidate output layout's whole design:
    // camera at s = 8294400 asked 3000 times for 267 distinct ones), so results are kept
    // per thread. Small ones are cheaper to measure than to key (the scheduler's stream
    // graph measures thousands of them and keeps its own costs).
    if p.input.atoms().max(p.output.atoms()) < MEMO_MIN_ATOMS {
        return measure_movement(p);
    }
    let key = (p.map.clone(), p.input.clone(), p.output.clone(), p.latency);
    if let Some(a) = MEMO.with(|m| m.borrow().get(&key).copied()) {
        return a;
    }
    let a = measure_movement(p);
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        // A bound on memory over a long run; clearing only costs recomputation.
        if m.len() >= 1 << 16 {
            m.clear();
        }
        m.insert(key, a);
    });
    a
}

/// The smallest operator (atoms per period) whose movement area [`movement_area`] keeps.
const MEMO_MIN_ATOMS: u64 = 1 << 12;

type Key = (AtomMap, Layout, Layout, u64);

thread_local! {
    /// [`movement_area`]'s results on large operators, per thread.
    static MEMO: RefCell<HashMap<Key, Area, FxBuild>> = RefCell::new(HashMap::default());
}

/// Forgets the movement areas [`movement_area`] keeps on this thread, so that what runs
/// next pays for its analyses as a fresh command does (a benchmark's repeated samples
/// would otherwise measure the kept results, not the analyses).
pub fn forget_movement_areas() {
    MEMO.with(|m| m.borrow_mut().clear());
}

fn measure_movement(p: &Perm) -> Area {
    let live = p.max_live_atoms();
    if live == 0 {
        return Area::default();
    }
    let bits = p.input.atom_bits();
    let lanes = p.input.lanes().max(p.output.lanes());
    let depth = live.div_ceil(lanes);
    // a buffer lane reads at most depth + 1 sources: count no further unless it is taps
    // (and stop once it is known to be a buffer: taps beyond `live` and every lane counted)
    let may_buffer = live * bits <= BUFFER_MAX_BITS;
    let mut src = p.lane_sources(Some(depth + 1), may_buffer.then_some(live));
    let buffer = may_buffer && live < src.tap_atoms;
    if !buffer && src.counts.keys().any(|&k| k > depth) {
        src = p.lane_sources(None, None);
    }
    let mut muxes = Area::default();
    let mut phased = buffer;
    for (&k, &n) in &src.counts {
        let k = if buffer { k.min(depth + 1) } else { k };
        muxes += mux(k, bits) * n;
        phased |= k > 1;
    }
    let control = if phased {
        counter(p.input.clocks())
    } else {
        Area::default()
    };
    movement_store(p, live) + muxes + control
}

/// True when a data-movement operator's storage is RAM, as [`movement_area`] charges it and
/// the RTL builds it: deeper than [`REGISTER_CHAIN_MAX`] words per lane and not the minimal
/// register buffer (delay lines that deep are memories read into a register).
/// `live` is [`Perm::max_live_atoms`], which the caller has.
pub fn movement_in_ram(p: &Perm, live: u64) -> bool {
    if live == 0 {
        return false;
    }
    let lanes = p.input.lanes().max(p.output.lanes());
    if live.div_ceil(lanes) <= REGISTER_CHAIN_MAX {
        return false;
    }
    if live * p.input.atom_bits() > BUFFER_MAX_BITS {
        return true;
    }
    let depth = live.div_ceil(lanes);
    live >= p.lane_sources(Some(depth + 1), Some(live)).tap_atoms
}

/// A lower bound on [`movement_area`]: its storage alone, without the read multiplexers
/// and phase counter, whose count of each lane's sources walks every atom of a frame-sized
/// operator (a search that must rank many candidate reshapes bounds them first).
pub fn movement_area_bound(p: &Perm) -> Area {
    let live = p.max_live_atoms();
    if live == 0 {
        return Area::default();
    }
    movement_store(p, live)
}

/// The storage of a data-movement operator holding `live` atoms at once.
fn movement_store(p: &Perm, live: u64) -> Area {
    let bits = p.input.atom_bits();
    let lanes = p.input.lanes().max(p.output.lanes());
    let depth = live.div_ceil(lanes);
    if depth <= REGISTER_CHAIN_MAX {
        Area {
            ff_bits: live * bits,
            ..Area::default()
        }
    } else {
        Area {
            ram_bits: live * bits,
            logic: 2 * clog2(depth) * lanes.min(live),
            ..Area::default()
        }
    }
}

/// The constant raw value of operand `k` of an atom tuple node, if it is a generator.
fn const_operand(d: &Design, pair: NodeId, k: usize) -> Option<u64> {
    let node = d.node(pair);
    let scalar = |v: &Value| match v {
        Value::Scalar(x) => Some(*x),
        _ => None,
    };
    match &node.op {
        StOp::ATuple => match &d.node(node.args[k]).op {
            StOp::Const { value, .. } => scalar(value),
            _ => None,
        },
        StOp::Const {
            value: Value::Pair(p),
            ..
        } => scalar(if k == 0 { &p.0 } else { &p.1 }),
        _ => None,
    }
}

/// The area of atom operator `op` on node `arg`, whose one lane is known as `known` (what
/// its scope's walk knows), or, without it, from a constant in its own scope.
fn atom_area(d: &Design, op: AtomOp, arg: NodeId, known: Option<&Known>) -> Area {
    let input = d.layout(arg);
    let first = match input {
        Layout::ATuple(a, _) => a.as_ref(),
        l => l,
    };
    let b = first.atom_bits();
    let signed = matches!(first, Layout::Scalar(s) if s.is_signed());
    let logic = |logic| Area {
        logic,
        ..Area::default()
    };
    let operand = |k: usize| match known {
        Some(known) => {
            let (l, r) = known.parts();
            if k == 0 {
                l.scalar()
            } else {
                r.scalar()
            }
        }
        None => const_operand(d, arg, k),
    };
    // an operator of constants is folded by synthesis
    if matches!(known, Some(Known::Value(_))) {
        return Area::default();
    }
    let konst = || operand(1).or_else(|| operand(0));
    match op {
        AtomOp::Abs => logic(if signed { b } else { 0 }),
        AtomOp::Not | AtomOp::And | AtomOp::Or => logic(1),
        AtomOp::Add | AtomOp::Sub => logic(b),
        AtomOp::Lt => {
            match NarrowLt::of_lt(input, (operand(0), operand(1))) {
                None => logic(b),
                Some(NarrowLt::Always(_)) => Area::default(),
                // 4-input LUTs over the bits read, each taking three more (the comparison
                // with a constant as logic: 16 bits against 1000, 5 LUTs in Yosys)
                Some(
                    NarrowLt::AnyAbove { lo }
                    | NarrowLt::NoneAbove { lo }
                    | NarrowLt::Shifted { lo, .. },
                ) => logic((b - u64::from(lo)).saturating_sub(1).div_ceil(3).max(1)),
            }
        }
        AtomOp::Eq => logic(input.atom_bits().div_ceil(2).div_ceil(3).max(1)),
        AtomOp::If => logic(b.div_ceil(2)),
        // Extension repeats a wire (the sign bit or a constant zero); truncation drops wires.
        AtomOp::Fst | AtomOp::Snd | AtomOp::Cast(_) => Area::default(),
        AtomOp::Mul => match konst() {
            Some(c) => logic(shift_add(c) * b),
            None => Area {
                dsp: b.div_ceil(18).pow(2),
                ..Area::default()
            },
        },
        AtomOp::Div => match operand(1) {
            Some(c) => logic(shift_add(c) * (b + 8)),
            None => Area {
                dsp: (b + 8).div_ceil(18).pow(2),
                ..Area::default()
            },
        },
        AtomOp::Lsl | AtomOp::Lsr => match operand(1) {
            Some(_) => Area::default(),
            None => logic(b * clog2(b).div_ceil(2)),
        },
    }
}

/// Adders in a shift-and-add multiply by constant `c`: one fewer than its set bits
/// (0 for zero and powers of two, which are wiring).
fn shift_add(c: u64) -> u64 {
    u64::from(c.count_ones()).saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(clog2(1), 0);
        assert_eq!(clog2(2), 1);
        assert_eq!(clog2(5), 3);
        assert_eq!(shift_add(8), 0);
        assert_eq!(shift_add(10), 1);
        assert_eq!(mux(4, 8).logic, 8);
        assert_eq!(mux(5, 8).logic, 16);
        assert_eq!(storage(5, 8).ram_bits, 40);
        assert_eq!(storage(4, 8).ff_bits, 32);
        assert_eq!(storage(2, 8).ff_bits, 16);
    }

    /// Calibration finding 1 (docs/area-model.md): a shift whose lanes each read one fixed
    /// source is a register and wiring; a defined fill makes lane 0 select by phase.
    #[test]
    fn fixed_source_shift_is_registers() {
        use crate::seq::types::ScalarType;
        let atom: Layout = ScalarType::UInt8.into();
        let l = Layout::tseq(4, 0, Layout::sseq(4, atom.clone()));
        let shift = |init| StOp::ShiftTS {
            no: 4,
            io: 0,
            ni: 4,
            amount: 1,
            elem: atom.clone(),
            init,
        };
        let area_of = |op| movement_area(&Perm::of(&op, &l, &l).unwrap());
        let reg = Area {
            ff_bits: 8,
            ..Area::default()
        };
        assert_eq!(area_of(shift(None)), reg);
        // lane 0: input lane 3 a clock late, or the fill on clock 0: mux(2, 8) + counter(4)
        let filled = reg + mux(2, 8) + counter(4);
        assert_eq!(area_of(shift(Some(Value::Scalar(0)))), filled);
    }
}
