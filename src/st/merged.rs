//! Pipeline registers that hold a value another register of the design already holds.
//!
//! Synthesis merges flip-flops with the same input (Yosys's `opt_merge`), so a pipeline
//! register whose input is a word a line buffer (or another pipeline register) already
//! registers costs nothing: a delayed window row read one clock late is the previous clock's
//! pixels, which the line buffer's first stage holds (docs/timing.md §3). The area model
//! counts every `fifo` bit ([`super::area`]); [`merged_register_bits`] finds the bits among
//! the pipeline registers (`fifo`s and the delayed elements of pipelined `reduce_s` chains)
//! that repeat such a register, so that [`super::area::area`] counts them once.
//!
//! The design is followed word by word (each scalar of each lane of each hardware instance)
//! as the RTL builds it ([`crate::rtl`]): wiring passes a word through, a delay line's
//! register holds "word `x`, `k` clocks ago", and everything that computes makes a new word.
//! Two registers are the same when they hold the same word the same number of clocks ago.
//! An atom operator applied to the same words is the same word, as synthesis merges cells
//! of one kind with the same inputs before their registers (`opt_merge` again): a `map_s`
//! over the copies of one word (after an `up_1d_s`) computes one word in every lane.
//! Nothing else is merged: a word that went through other logic is new even where
//! synthesis might find it equal to another, and lines that shift on valid clocks only
//! (with an enable), memories and permutation buffers hold nothing that merges.

use super::area::{BUFFER_MAX_BITS, REGISTER_CHAIN_MAX};
use super::design::{Design, NodeId};
use super::layout::Layout;
use super::op::StOp;
use super::perm::{Perm, Src};
use super::stream::{flatten, Lane};
use crate::seq::op::AtomOp;
use crate::seq::value::Value;
use crate::util::fxhash::FxBuild;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

/// The largest movement operator (clocks per period times lanes) followed lane by lane;
/// beyond it (frame-sized reshapes) its outputs are taken as new words, which merges less.
const MAX_TABLE: u64 = 1 << 16;

/// The most lanes (summed over the nodes of every hardware instance) a design may have for
/// its words to be followed; a wider design's pipeline registers are all counted (merging
/// less, as movement operators beyond [`MAX_TABLE`]). Following every lane costs what the
/// hardware has, and the baseline's search asks for the area of hundreds of subdesigns: at
/// s = 1 to 10 of a 1920x1080 app (200,000 to 2,000,000 lanes a node) that took minutes
/// and gigabytes per slowdown.
const MAX_WORDS: u64 = 1 << 20;

/// The lanes of the nodes of scope `root` and of their bodies' hardware instances, each
/// instance `mult` times, saturating.
fn lane_words(d: &Design, root: NodeId, mult: u64) -> u64 {
    let mut sum = 0u64;
    for id in d.scope(root) {
        sum = sum.saturating_add(d.layout(id).lanes().saturating_mul(mult));
        let inner = match &d.node(id).op {
            StOp::MapS { n, body } | StOp::Map2S { n, body } | StOp::ReduceS { n, body, .. } => {
                Some((*body, mult.saturating_mul(*n)))
            }
            StOp::MapT { body, .. }
            | StOp::Map2T { body, .. }
            | StOp::ReduceT { body, .. }
            | StOp::Stall { body, .. } => Some((*body, mult)),
            _ => None,
        };
        if let Some((body, m)) = inner {
            sum = sum.saturating_add(lane_words(d, d.body(body).root, m));
        }
        if sum > MAX_WORDS {
            break;
        }
    }
    sum
}

/// A word of the design: a scalar computed somewhere, a constant, a word shifted by a
/// constant (wiring: its register's bits are the word's), or one delayed by a clock.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    New(u32),
    /// Value, width.
    Const(u64, u32),
    /// Word, left shift (negative: right).
    Shifted(u32, i32),
    Delayed(u32),
    /// An atom operator on the words of its operand (at most three; `u32::MAX` pads), whose
    /// atom layout is interned: a constant's word does not say its type.
    Logic(AtomOp, u32, [u32; 3]),
}

/// How many scalars an atom operator's operand may have for its result to be a word of
/// [`Key::Logic`] (`if` has three: the bit and the pair).
const LOGIC_OPERANDS: usize = 3;

/// The words of one lane: one per scalar of its atom (an atom tuple has several).
type Wire = Vec<u32>;

/// Pipeline register bits that repeat a register the design already holds, by where the
/// area model counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// Bits of short `fifo`s.
    pub fifo: u64,
    /// Bits of the elements pipelined `reduce_s` chains delay.
    pub reduce_s: u64,
}

impl Merged {
    /// All of them.
    pub fn total(&self) -> u64 {
        self.fifo + self.reduce_s
    }
}

/// Pipeline register bits of `d` that another register of `d` already holds, once
/// synthesis merges flip-flops with the same input: the area model counts them once.
pub fn merged_register_bits(d: &Design) -> Merged {
    let has_pipeline = d.ids().any(|id| match &d.node(id).op {
        StOp::Fifo { delay, .. } => *delay <= REGISTER_CHAIN_MAX,
        StOp::ReduceS { regs, .. } => !regs.is_empty(),
        _ => false,
    });
    if !has_pipeline || lane_words(d, d.output(), 1) > MAX_WORDS {
        return Merged::default();
    }
    let mut w = Words::new(d);
    let inputs: Vec<Vec<Wire>> = d.inputs.iter().map(|i| w.fresh_lanes(&i.layout)).collect();
    w.scope(d.output(), &inputs, &[]);
    // every register word is counted by the model; the pipeline's that a line buffer holds,
    // or that another pipeline register holds, are counted once
    let mut seen = HashSet::new();
    let mut merged = Merged::default();
    for &(k, fifo) in &w.pipeline {
        // a shifted word's register holds the word's bits (and constant zeros)
        let whole = match w.key[k as usize] {
            Key::Shifted(x, _) => w.held.contains(&x),
            _ => false,
        };
        if whole || w.held.contains(&k) || !seen.insert(k) {
            let bits = u64::from(w.width[k as usize]);
            if fifo {
                merged.fifo += bits;
            } else {
                merged.reduce_s += bits;
            }
        }
    }
    merged
}

struct Words<'d> {
    d: &'d Design,
    ids: HashMap<Key, u32, FxBuild>,
    key: Vec<Key>,
    width: Vec<u32>,
    /// Words held by registers that are not pipeline registers (line buffers).
    held: HashSet<u32, FxBuild>,
    /// Words held by pipeline registers, once per register, and whether a `fifo` holds it.
    pipeline: Vec<(u32, bool)>,
    /// The nodes of each scope walked, in order: a body is walked once per lane instance.
    scopes: HashMap<NodeId, Rc<Vec<NodeId>>, FxBuild>,
    /// The atom layouts of [`Key::Logic`]'s operands, numbered.
    operand_types: HashMap<Layout, u32, FxBuild>,
}

impl<'d> Words<'d> {
    fn new(d: &'d Design) -> Words<'d> {
        Words {
            d,
            ids: HashMap::default(),
            key: Vec::new(),
            width: Vec::new(),
            held: HashSet::default(),
            pipeline: Vec::new(),
            scopes: HashMap::default(),
            operand_types: HashMap::default(),
        }
    }

    /// The number of an operand's atom layout in [`Key::Logic`].
    fn operand_type(&mut self, operand: &Layout) -> u32 {
        let next = self.operand_types.len() as u32;
        if let Some(&ty) = self.operand_types.get(operand) {
            return ty;
        }
        self.operand_types.insert(operand.clone(), next);
        next
    }

    /// The word atom operator `op` computes from the operand `wire` (of the atom layout
    /// numbered `ty`), a single scalar of `width` bits: the same word wherever the same
    /// operator reads the same words.
    fn logic(&mut self, op: AtomOp, ty: u32, wire: &[u32], width: u32) -> u32 {
        if wire.len() > LOGIC_OPERANDS {
            return self.fresh(width);
        }
        let mut args = [u32::MAX; LOGIC_OPERANDS];
        args[..wire.len()].copy_from_slice(wire);
        self.intern(Key::Logic(op, ty, args), width)
    }

    fn intern(&mut self, k: Key, width: u32) -> u32 {
        let next = self.width.len() as u32;
        let id = *self.ids.entry(k).or_insert(next);
        if id == next {
            self.key.push(k);
            self.width.push(width);
        }
        id
    }

    fn fresh(&mut self, width: u32) -> u32 {
        let n = self.width.len() as u32;
        self.intern(Key::New(n), width)
    }

    /// Word `x`, one clock later (a shift is wiring after the register as before it).
    fn delayed(&mut self, x: u32) -> u32 {
        let w = self.width[x as usize];
        match self.key[x as usize] {
            Key::Const(..) => x,
            Key::Shifted(y, s) => {
                let y = self.delayed(y);
                self.intern(Key::Shifted(y, s), w)
            }
            _ => self.intern(Key::Delayed(x), w),
        }
    }

    /// Word `x` shifted left by `s` bits (right when negative), `None` when that leaves no
    /// bit of it.
    fn shifted(&mut self, x: u32, s: i32) -> Option<u32> {
        let w = self.width[x as usize];
        let (x, s) = match self.key[x as usize] {
            Key::Shifted(y, t) if t.signum() == s.signum() => (y, s + t),
            Key::Shifted(..) | Key::Const(..) => return None,
            _ => (x, s),
        };
        if s == 0 {
            return Some(x);
        }
        (s.unsigned_abs() < w).then(|| self.intern(Key::Shifted(x, s), w))
    }

    /// The constant word `v` of `width` bits.
    fn constant(&mut self, v: u64, width: u32) -> u32 {
        self.intern(Key::Const(v, width), width)
    }

    fn fresh_wire(&mut self, atom: &Layout) -> Wire {
        let mut widths = Vec::new();
        scalar_widths(atom, &mut widths);
        widths.into_iter().map(|w| self.fresh(w)).collect()
    }

    fn fresh_lanes(&mut self, l: &Layout) -> Vec<Wire> {
        (0..l.lanes()).map(|_| self.fresh_wire(l.atom())).collect()
    }

    /// The lanes of scope `root`'s result, its inputs and parameters given.
    fn scope(&mut self, root: NodeId, inputs: &[Vec<Wire>], params: &[Vec<Wire>]) -> Vec<Wire> {
        let d = self.d;
        let ids = self
            .scopes
            .entry(root)
            .or_insert_with(|| Rc::new(d.scope(root)))
            .clone();
        let mut env: HashMap<NodeId, Vec<Wire>, FxBuild> = HashMap::default();
        for &id in ids.iter() {
            let v = self.node(id, &env, inputs, params);
            env.insert(id, v);
        }
        env.remove(&root).unwrap_or_default()
    }

    fn node(
        &mut self,
        id: NodeId,
        env: &HashMap<NodeId, Vec<Wire>, FxBuild>,
        inputs: &[Vec<Wire>],
        params: &[Vec<Wire>],
    ) -> Vec<Wire> {
        let d = self.d;
        let node = d.node(id);
        let out = d.layout(id);
        let arg = |k: usize| &env[&node.args[k]];
        match &node.op {
            StOp::Input(k) => inputs[*k].clone(),
            StOp::Arg(k, _) => params[usize::from(*k)].clone(),
            StOp::ATuple => {
                let (a, b) = (arg(0), arg(1));
                a.iter()
                    .zip(b)
                    .map(|(x, y)| x.iter().chain(y).copied().collect())
                    .collect()
            }
            StOp::STuple | StOp::STupleAppend => arg(0).iter().chain(arg(1)).cloned().collect(),
            StOp::Const { value, layout, .. } if layout.clocks() == 1 => {
                let atoms = flatten(value, &layout.to_seq());
                let Some(order) = layout.lane_atoms(0) else {
                    return self.fresh_lanes(out);
                };
                let mut widths = Vec::new();
                scalar_widths(layout.atom(), &mut widths);
                order
                    .iter()
                    .map(|&a| {
                        let mut raw = Vec::new();
                        scalars(&atoms[a as usize], &mut raw);
                        if raw.len() != widths.len() {
                            return self.fresh_wire(layout.atom());
                        }
                        raw.iter()
                            .zip(&widths)
                            .map(|(v, w)| match v {
                                Some(v) => self.constant(*v, *w),
                                None => self.fresh(*w),
                            })
                            .collect()
                    })
                    .collect()
            }
            StOp::Atom(a @ (AtomOp::Lsl | AtomOp::Lsr)) => {
                let left = matches!(a, AtomOp::Lsl);
                let x = arg(0).clone();
                x.iter()
                    .map(|wire| {
                        let by = match wire.as_slice() {
                            [v, c] => match self.key[*c as usize] {
                                Key::Const(k, _) if k < 64 => Some((*v, k as i32)),
                                _ => None,
                            },
                            _ => None,
                        };
                        let s = by.and_then(|(v, k)| self.shifted(v, if left { k } else { -k }));
                        match s {
                            Some(s) => vec![s],
                            None => self.fresh_wire(out.atom()),
                        }
                    })
                    .collect()
            }
            StOp::Atom(AtomOp::Fst | AtomOp::Snd) => {
                let first = matches!(node.op, StOp::Atom(AtomOp::Fst));
                let Layout::ATuple(a, _) = d.layout(node.args[0]).atom() else {
                    return self.fresh_lanes(out);
                };
                let mut widths = Vec::new();
                scalar_widths(a, &mut widths);
                let k = widths.len();
                arg(0)
                    .iter()
                    .map(|x| {
                        if first {
                            x[..k].to_vec()
                        } else {
                            x[k..].to_vec()
                        }
                    })
                    .collect()
            }
            StOp::Atom(op) => {
                let mut widths = Vec::new();
                scalar_widths(out.atom(), &mut widths);
                let ([width], Some(a)) = (widths.as_slice(), node.args.first()) else {
                    return self.fresh_lanes(out);
                };
                let ty = self.operand_type(d.layout(*a).atom());
                arg(0)
                    .iter()
                    .map(|wire| vec![self.logic(*op, ty, wire, *width)])
                    .collect()
            }
            StOp::MapS { n, body } | StOp::Map2S { n, body } => {
                let n = *n as usize;
                let root = d.body(*body).root;
                let mut lanes = Vec::with_capacity(out.lanes() as usize);
                for j in 0..n {
                    let slices: Vec<Vec<Wire>> = (0..node.args.len())
                        .map(|k| {
                            let a = arg(k);
                            let l = a.len() / n;
                            a[j * l..(j + 1) * l].to_vec()
                        })
                        .collect();
                    lanes.extend(self.scope(root, &[], &slices));
                }
                lanes
            }
            StOp::Stall { body, .. } => {
                // the body holds on the stall's idle clocks: its registers merge among
                // themselves, not with the scope's, and its result is new words
                let b = d.body(*body);
                let params: Vec<Vec<Wire>> = b
                    .params
                    .clone()
                    .iter()
                    .map(|p| self.fresh_lanes(p))
                    .collect();
                self.scope(b.root, &[], &params);
                self.fresh_lanes(out)
            }
            StOp::MapT { body, .. } | StOp::Map2T { body, .. } => {
                let all: Vec<Vec<Wire>> = (0..node.args.len()).map(|k| arg(k).clone()).collect();
                self.scope(d.body(*body).root, &[], &all)
            }
            StOp::ReduceS { n, regs, .. } if !regs.is_empty() => {
                // the elements entering later links are delayed by the registers before them
                // (`rtl::gen`); the accumulators are sums, new words
                let x = arg(0).clone();
                let lanes = x.len() / *n as usize;
                let mut passed = 0;
                for j in 1..*n {
                    if regs.contains(&(j - 1)) {
                        passed += 1;
                    }
                    let j = j as usize;
                    for wire in &x[j * lanes..(j + 1) * lanes] {
                        for &s in wire {
                            let mut v = s;
                            for _ in 0..passed {
                                v = self.delayed(v);
                                self.pipeline.push((v, false));
                            }
                        }
                    }
                }
                self.fresh_lanes(out)
            }
            op if op.is_data_movement() => {
                let input = d.layout(node.args[0]);
                let x = arg(0).clone();
                self.movement(op, input, out, &x)
                    .unwrap_or_else(|| self.fresh_lanes(out))
            }
            _ => self.fresh_lanes(out),
        }
    }

    /// The output lanes of data-movement operator `op` on lanes `x`, with the registers of
    /// its delay lines, as `rtl::movement` builds it; `None` (new words, nothing held) when it
    /// is too large to follow or not built as ungated register lines.
    fn movement(
        &mut self,
        op: &StOp,
        input: &Layout,
        out: &Layout,
        x: &[Wire],
    ) -> Option<Vec<Wire>> {
        let p = input.clocks();
        let out_lanes = out.lanes();
        if p.saturating_mul(out_lanes.max(input.lanes())) > MAX_TABLE {
            return None;
        }
        let perm = Perm::of(op, input, out)?;
        let lat = perm.latency;
        let in_pos = input.atom_positions();
        // per output lane: the one (input lane, delay) it reads, or none when it selects
        let mut src: Vec<Option<Option<(u64, u64)>>> = vec![None; out_lanes as usize];
        let mut delays: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
        let mut elems: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
        let mut pre = vec![0u64];
        for c in 0..p {
            pre.push(pre[c as usize] + u64::from(input.is_valid_clock(c)));
        }
        let valid = pre[p as usize];
        let valid_before = |t: u64| (t / p) * valid + pre[(t % p) as usize];
        for c in 0..p {
            let Some(idx) = out.lane_atoms(c) else {
                continue;
            };
            for (k, o) in idx.iter().enumerate() {
                let here = match perm.src(*o) {
                    Src::In(e) => {
                        let (ci, lane) = in_pos[e as usize];
                        let delay = c + lat - ci;
                        if delay > 0 {
                            delays.entry(lane).or_default().insert(delay);
                            let e = valid_before(c + lat) - valid_before(ci);
                            elems.entry(lane).or_default().insert(e);
                        }
                        Some((lane, delay))
                    }
                    Src::Fill(Lane::Val(v)) if !v.has_undef() => None,
                    // don't care: any source will do
                    Src::Fill(_) => continue,
                };
                src[k] = match src[k] {
                    None => Some(here),
                    Some(prev) if prev == here => Some(prev),
                    Some(_) => Some(None),
                };
            }
        }
        let w = input.atom_bits();
        let bits = |ds: &BTreeMap<u64, BTreeSet<u64>>| -> u64 {
            ds.values()
                .map(|s| s.iter().max().copied().unwrap_or(0) * w)
                .sum()
        };
        let gated = valid < p && bits(&elems) < bits(&delays);
        let live = perm.max_live_atoms() * w;
        let buffer = live < bits(&delays) && live <= BUFFER_MAX_BITS;
        if gated || buffer {
            return None;
        }
        // the delay lines: a chain per input lane up to its deepest delay, registers when
        // no deeper than REGISTER_CHAIN_MAX (deeper ones are memories read into a register)
        let pipeline = matches!(op, StOp::Fifo { .. });
        for (&lane, ds) in &delays {
            let deepest = ds.last().copied().unwrap_or(0);
            if deepest > REGISTER_CHAIN_MAX {
                continue;
            }
            for &s in &x[lane as usize] {
                let mut v = s;
                for _ in 0..deepest {
                    v = self.delayed(v);
                    if pipeline {
                        self.pipeline.push((v, true));
                    } else {
                        self.held.insert(v);
                    }
                }
            }
        }
        let atom = out.atom().clone();
        Some(
            src.into_iter()
                .map(|s| match s {
                    Some(Some((lane, delay))) if delay <= REGISTER_CHAIN_MAX => {
                        let mut wire = x[lane as usize].clone();
                        for _ in 0..delay {
                            for v in &mut wire {
                                *v = self.delayed(*v);
                            }
                        }
                        wire
                    }
                    _ => self.fresh_wire(&atom),
                })
                .collect(),
        )
    }
}

/// The raw scalars of an atom value, in the order of [`scalar_widths`] (`None`: not a
/// defined scalar).
fn scalars(v: &Value, out: &mut Vec<Option<u64>>) {
    match v {
        Value::Scalar(x) => out.push(Some(*x)),
        Value::Pair(p) => {
            scalars(&p.0, out);
            scalars(&p.1, out);
        }
        _ => out.push(None),
    }
}

/// The widths of the scalars of an atom, in the order the RTL concatenates them.
fn scalar_widths(atom: &Layout, out: &mut Vec<u32>) {
    match atom {
        Layout::Scalar(s) => out.push(s.width()),
        Layout::ATuple(a, b) => {
            scalar_widths(a, out);
            scalar_widths(b, out);
        }
        l => scalar_widths(l.atom(), out),
    }
}
