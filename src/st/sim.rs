//! The cycle-accurate simulator.
//!
//! The design is elaborated into instances (a `map_s n` gets `n` instances of its body, a
//! `reduce_s n` gets `n-1`, each with its own state) and stepped one clock at a time. Every
//! signal carries, per clock, one [`Lane`] per wire and a *started* flag: Aetherling's sticky
//! `valid` (reference §6.1). An instance starts when all its inputs have started, and from
//! then on counts its own position in the period, exactly as hardware counters enabled by
//! `valid_up` would. Nothing here reads the latency model: if two inputs of a join start at
//! different clocks, the join pairs the wrong elements and the comparison fails.
//!
//! Invalid clocks of the inputs carry [`Lane::Poison`]; every instance also poisons its own
//! output on clocks its layout says are invalid. Poison that reaches a valid output position
//! where the interpreter has a defined value is a mismatch.
//!
//! Inputs are driven frame after frame with no gap (a streaming accelerator runs
//! continuously); after the last frame the inputs carry poison.

use super::design::{Design, NodeId};
use super::latency;
use super::layout::Layout;
use super::op::StOp;
use super::perm::{Perm, Src};
use super::stream::Lane;
use crate::seq::interp;
use crate::seq::op::AtomOp;
use crate::seq::types::SeqType;
use crate::seq::value::Value;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

/// One signal during one clock.
#[derive(Clone, Debug)]
struct Sig {
    started: bool,
    lanes: Vec<Lane>,
}

impl Sig {
    fn idle(lanes: usize) -> Sig {
        Sig {
            started: false,
            lanes: vec![Lane::Poison; lanes],
        }
    }
}

/// What a simulation measured, besides the output frames.
#[derive(Clone, Debug)]
pub struct SimStats {
    /// Clocks per period (the design's slowdown).
    pub clocks: u64,
    /// Measured latency: the clock at which the output started.
    pub latency: u64,
    /// The latency model's prediction ([`latency::analyze`]).
    pub model_latency: u64,
    /// Clocks simulated.
    pub clocks_run: u64,
    /// Reads of data that had not arrived yet (a latency rule that is too small); empty for
    /// a correct simulator.
    pub violations: Vec<String>,
    /// Evaluations of `if` with a known condition and a branch with don't-care parts (both
    /// branches wholly don't-care excepted): where none happened, which atoms are
    /// don't-care does not depend on the input data (every other operator gives don't-care
    /// exactly when an operand is), so one run shows it for all inputs (`rtl::dont_care`).
    pub undef_by_data: u64,
}

/// What a clock's evaluation records besides the signals.
#[derive(Default)]
struct Notes {
    /// See [`SimStats::violations`].
    violations: Vec<String>,
    /// See [`SimStats::undef_by_data`].
    undef_by_data: u64,
}

/// The result of simulating some frames.
#[derive(Clone, Debug)]
pub struct SimResult {
    /// What the simulation measured.
    pub stats: SimStats,
    /// For every frame, the output's atoms in flat order, read on the output's valid clocks.
    pub frames: Vec<Vec<Lane>>,
}

/// Simulates `frames` back-to-back periods. `frames[f][k]` is the flattened atoms of input
/// `k` in frame `f` (see [`super::stream::flatten`]).
///
/// A design with misaligned joins is simulated as it is (its joins start when their later
/// input does and pair wrong elements), so the comparison shows the damage; run
/// [`latency::insert_fifos`] first to fix it.
pub fn simulate(d: &Design, frames: &[Vec<Vec<Value>>]) -> Result<SimResult, String> {
    let mut out = Vec::with_capacity(frames.len());
    let stats = simulate_stream(
        d,
        frames.len(),
        |f| Ok(frames[f].clone()),
        |_, lanes| {
            out.push(lanes);
            Ok(())
        },
    )?;
    Ok(SimResult { stats, frames: out })
}

/// [`simulate`] with the frames streamed: `input(f)` gives frame `f`'s flattened inputs when
/// the first clock of frame `f` is driven (frames in order, each once), and `output(f,
/// atoms)` takes frame `f`'s output atoms once its period has passed (frames in order,
/// each once). Only the frame being driven and the frame being read are held, so memory
/// does not grow with the number of frames.
pub fn simulate_stream(
    d: &Design,
    nframes: usize,
    mut input: impl FnMut(usize) -> Result<Vec<Vec<Value>>, String>,
    mut output: impl FnMut(usize, Vec<Lane>) -> Result<(), String>,
) -> Result<SimStats, String> {
    super::check::check_design(d)?;
    let lat = latency::analyze(d)?.output;
    let p = d.clocks();
    let mut el = Elaborator::default();
    let mut top = el.scope(d, d.output(), true);
    let placements: Vec<Vec<Option<Vec<u64>>>> =
        d.inputs.iter().map(|i| i.layout.placement()).collect();
    let nframes = nframes as u64;
    let cap = lat + (nframes + 2) * p + 16;
    let out_layout = d.output_layout().clone();
    let out_place = out_layout.placement();
    let natoms = out_layout.atoms() as usize;
    let mut notes = Notes::default();
    let mut out_start: Option<u64> = None;
    // the frame being driven, and the frame being read with its number
    let mut driven: Option<(u64, Vec<Vec<Value>>)> = None;
    let mut read: (u64, Vec<Lane>) = (0, vec![Lane::Poison; natoms]);
    let mut t = 0;
    while t < cap {
        let (f, c) = (t / p, t % p);
        if f < nframes && driven.as_ref().is_none_or(|(g, _)| *g != f) {
            let fr = input(f as usize)?;
            check_frame(d, f, &fr)?;
            driven = Some((f, fr));
        } else if f >= nframes {
            driven = None;
        }
        let ins: Vec<Sig> = d
            .inputs
            .iter()
            .enumerate()
            .map(|(k, decl)| {
                let lanes = match (&driven, &placements[k][c as usize]) {
                    (Some((_, fr)), Some(idx)) => idx
                        .iter()
                        .map(|a| Lane::Val(fr[k][*a as usize].clone()))
                        .collect(),
                    _ => vec![Lane::Poison; decl.layout.lanes() as usize],
                };
                Sig {
                    started: true,
                    lanes,
                }
            })
            .collect();
        let out = top.step(t, true, &ins, &mut notes);
        if out.started && out_start.is_none() {
            out_start = Some(t);
        }
        if let Some(s) = out_start {
            let tau = t - s;
            let (f, c) = (tau / p, tau % p);
            if let Some(idx) = &out_place[c as usize] {
                if f < nframes {
                    for (a, l) in idx.iter().zip(out.lanes) {
                        read.1[*a as usize] = l;
                    }
                }
            }
            if c + 1 == p && f < nframes {
                let done = std::mem::replace(&mut read.1, vec![Lane::Poison; natoms]);
                output(f as usize, done)?;
                read.0 = f + 1;
            }
            if tau + 1 >= nframes * p {
                t += 1;
                break;
            }
        }
        t += 1;
    }
    let Some(start) = out_start else {
        return Err(format!("the output never started within {cap} clocks"));
    };
    // frames cut off by the clock cap read as poison, as if never driven
    while read.0 < nframes {
        let done = std::mem::replace(&mut read.1, vec![Lane::Poison; natoms]);
        output(read.0 as usize, done)?;
        read.0 += 1;
    }
    Ok(SimStats {
        clocks: p,
        latency: start,
        model_latency: lat,
        clocks_run: t,
        violations: notes.violations,
        undef_by_data: notes.undef_by_data,
    })
}

/// Checks that frame `f` has one input per design input, each of its layout's atom count.
fn check_frame(d: &Design, f: u64, fr: &[Vec<Value>]) -> Result<(), String> {
    if fr.len() != d.inputs.len() {
        return Err(format!(
            "frame {f}: {} input value(s) for {} input(s)",
            fr.len(),
            d.inputs.len()
        ));
    }
    for (i, atoms) in d.inputs.iter().zip(fr) {
        if atoms.len() as u64 != i.layout.atoms() {
            return Err(format!(
                "frame {f}: input `{}` needs {} atoms, found {}",
                i.name,
                i.layout.atoms(),
                atoms.len()
            ));
        }
    }
    Ok(())
}

/// Builds instances, sharing the static tables of data-movement nodes.
#[derive(Default)]
struct Elaborator {
    movers: HashMap<NodeId, Rc<MoverTable>>,
}

/// The static part of a data-movement instance.
struct MoverTable {
    perm: Perm,
    period: u64,
    in_place: Vec<Option<Vec<u64>>>,
    out_place: Vec<Option<Vec<u64>>>,
}

impl Elaborator {
    fn scope(&mut self, d: &Design, root: NodeId, top: bool) -> ScopeInst {
        let ids = d.scope(root);
        let local: HashMap<NodeId, usize> =
            ids.iter().enumerate().map(|(k, id)| (*id, k)).collect();
        let mut insts = Vec::with_capacity(ids.len());
        for id in &ids {
            let node = d.node(*id);
            let args = node.args.iter().map(|a| local[a]).collect();
            let kind = self.kind(d, *id);
            let layout = d.layout(*id).clone();
            insts.push(Inst {
                kind,
                args,
                lanes: layout.lanes() as usize,
                layout,
                out_start: None,
            });
        }
        let _ = top;
        ScopeInst {
            insts,
            vals: Vec::new(),
            start: None,
        }
    }

    fn kind(&mut self, d: &Design, id: NodeId) -> Kind {
        let node = d.node(id);
        let layout = d.layout(id);
        match &node.op {
            StOp::Input(k) => Kind::Input(*k),
            StOp::Arg(k, _) => Kind::Arg(usize::from(*k)),
            StOp::Const {
                value,
                layout,
                delay,
            } => {
                let t = layout.to_seq();
                let atoms = super::stream::flatten(value, &t);
                Kind::Gen {
                    clocks: gen_clocks(layout, &atoms),
                    delay: *delay,
                }
            }
            StOp::Counter {
                layout,
                incr,
                delay,
            } => {
                let mask = match layout.atom() {
                    Layout::Scalar(s) => s.mask(),
                    _ => u64::MAX,
                };
                let atoms: Vec<Value> = (0..layout.atoms())
                    .map(|e| Value::Scalar(e.wrapping_mul(*incr) & mask))
                    .collect();
                Kind::Gen {
                    clocks: gen_clocks(layout, &atoms),
                    delay: *delay,
                }
            }
            StOp::Atom(a) => Kind::Atom(*a, d.layout(node.args[0]).to_seq()),
            StOp::ATuple => Kind::ATuple,
            StOp::STuple | StOp::STupleAppend => Kind::Concat,
            StOp::MapS { n, body } | StOp::Map2S { n, body } => {
                let b = d.body(*body);
                let widths = b.params.iter().map(|p| p.lanes() as usize).collect();
                let bodies = (0..*n).map(|_| self.scope(d, b.root, false)).collect();
                Kind::MapS { bodies, widths }
            }
            StOp::Stall { idle, body, .. } => Kind::Stall(Stalled {
                body: Box::new(self.scope(d, d.body(*body).root, false)),
                clocks: d.layout(d.body(*body).root).clocks(),
                idle: *idle,
                start: None,
                enabled_clocks: 0,
                out_started: false,
            }),
            StOp::MapT { body, .. } | StOp::Map2T { body, .. } => {
                Kind::MapT(Box::new(self.scope(d, d.body(*body).root, false)))
            }
            StOp::ReduceS { n, body, regs } => {
                let b = d.body(*body);
                let bodies = (1..*n).map(|_| self.scope(d, b.root, false)).collect();
                Kind::ReduceS {
                    bodies,
                    width: d.layout(b.root).lanes() as usize,
                    pipe: (0..regs.len()).map(|_| None).collect(),
                }
            }
            StOp::ReduceT { n, i, body } => {
                let b = d.body(*body);
                let elem = d.layout(b.root);
                let t = elem.clocks();
                Kind::ReduceT {
                    body: Box::new(self.scope(d, b.root, false)),
                    n: *n,
                    elem_clocks: t,
                    period: (n + i) * t,
                    acc: vec![None; t as usize],
                    start: None,
                }
            }
            op => {
                let table = self
                    .movers
                    .entry(id)
                    .or_insert_with(|| {
                        let input = d.layout(node.args[0]);
                        let perm = Perm::of(op, input, layout).expect("a data-movement operator");
                        Rc::new(MoverTable {
                            period: input.clocks(),
                            in_place: input.placement(),
                            out_place: layout.placement(),
                            perm,
                        })
                    })
                    .clone();
                Kind::Move(Mover {
                    table,
                    frames: VecDeque::new(),
                    first_frame: 0,
                    start: None,
                })
            }
        }
    }
}

/// A generator's lanes for each clock of its period (poison on invalid clocks).
fn gen_clocks(layout: &Layout, atoms: &[Value]) -> Vec<Vec<Lane>> {
    (0..layout.clocks())
        .map(|c| match layout.lane_atoms(c) {
            Some(idx) => idx
                .iter()
                .map(|a| Lane::Val(atoms[*a as usize].clone()))
                .collect(),
            None => vec![Lane::Poison; layout.lanes() as usize],
        })
        .collect()
}

/// An instantiated scope: the design's top level or one instance of a body.
struct ScopeInst {
    insts: Vec<Inst>,
    vals: Vec<Sig>,
    start: Option<u64>,
}

struct Inst {
    kind: Kind,
    args: Vec<usize>,
    layout: Layout,
    lanes: usize,
    out_start: Option<u64>,
}

enum Kind {
    Input(usize),
    Arg(usize),
    Gen {
        clocks: Vec<Vec<Lane>>,
        delay: u64,
    },
    Atom(AtomOp, SeqType),
    ATuple,
    Concat,
    MapS {
        bodies: Vec<ScopeInst>,
        widths: Vec<usize>,
    },
    MapT(Box<ScopeInst>),
    Stall(Stalled),
    ReduceS {
        bodies: Vec<ScopeInst>,
        width: usize,
        /// The pipeline registers: a chain with registers computes, `regs.len()` clocks
        /// later, what the chain without them computes now (the elements entering later
        /// links are delayed to match), so it is simulated as that delay line.
        pipe: VecDeque<Option<Sig>>,
    },
    ReduceT {
        body: Box<ScopeInst>,
        n: u64,
        elem_clocks: u64,
        period: u64,
        acc: Vec<Option<Vec<Lane>>>,
        start: Option<u64>,
    },
    Move(Mover),
}

/// A running `stall`: its body lives on its own clock, which ticks only on the enabled
/// clocks, so the body sees exactly its own schedule.
struct Stalled {
    body: Box<ScopeInst>,
    /// The body's clocks per period.
    clocks: u64,
    idle: u64,
    /// The clock the stall's inputs started.
    start: Option<u64>,
    /// The body's clocks so far: its time.
    enabled_clocks: u64,
    out_started: bool,
}

impl Stalled {
    fn step(&mut self, t: u64, started: bool, args: &[Sig], viol: &mut Notes) -> Sig {
        if started && self.start.is_none() {
            self.start = Some(t);
        }
        let on = match self.start {
            Some(s) => super::stall::enabled(t - s, self.clocks, self.idle),
            None => true,
        };
        if !on {
            let lanes = self.body.vals.last().map_or(0, |v| v.lanes.len());
            return Sig {
                started: self.out_started,
                lanes: vec![Lane::Poison; lanes],
            };
        }
        let v = self.enabled_clocks;
        self.enabled_clocks += 1;
        let out = self.body.step(v, started, args, viol);
        self.out_started = out.started;
        out
    }
}

impl ScopeInst {
    /// One clock: `started` says whether the scope has started (the top scope from clock
    /// 0; a body when its operator's inputs have); `args` are the scope's inputs (design
    /// inputs, or body parameters). Returns the root's signal.
    fn step(&mut self, t: u64, started: bool, args: &[Sig], viol: &mut Notes) -> Sig {
        if started && self.start.is_none() {
            self.start = Some(t);
        }
        let scope_start = self.start;
        let mut vals: Vec<Sig> = std::mem::take(&mut self.vals);
        vals.clear();
        for k in 0..self.insts.len() {
            let inst = &mut self.insts[k];
            let ins: Vec<&Sig> = inst.args.iter().map(|a| &vals[*a]).collect();
            let mut out = inst.kind.step(t, scope_start, &ins, args, inst.lanes, viol);
            // Every instance poisons its own invalid output clocks.
            if out.started {
                let s = *inst.out_start.get_or_insert(t);
                let c = (t - s) % inst.layout.clocks();
                if !inst.layout.is_valid_clock(c) {
                    out.lanes.iter_mut().for_each(|l| *l = Lane::Poison);
                }
            } else {
                out.lanes.iter_mut().for_each(|l| *l = Lane::Poison);
            }
            vals.push(out);
        }
        let root = vals.last().cloned().expect("a scope has a root");
        self.vals = vals;
        root
    }
}

/// Whether which parts of `if` on the atom `v` (condition, (then, else)) are don't-care may
/// depend on its condition's value: a known condition and a branch with don't-care parts,
/// unless both branches are wholly don't-care.
fn undef_by_data(v: &Value) -> bool {
    let Value::Pair(p) = v else { return false };
    if p.0.has_undef() {
        return false;
    }
    match &p.1 {
        Value::Pair(ab) => {
            (ab.0.has_undef() || ab.1.has_undef())
                && !(ab.0 == Value::Undef && ab.1 == Value::Undef)
        }
        _ => p.1.has_undef(),
    }
}

fn zip_lanes(a: &[Lane], b: &[Lane]) -> Vec<Lane> {
    a.iter()
        .zip(b)
        .map(|(x, y)| match (x, y) {
            (Lane::Val(x), Lane::Val(y)) => Lane::Val(Value::pair(x.clone(), y.clone())),
            _ => Lane::Poison,
        })
        .collect()
}

impl Kind {
    fn step(
        &mut self,
        t: u64,
        scope_start: Option<u64>,
        ins: &[&Sig],
        scope_args: &[Sig],
        lanes: usize,
        viol: &mut Notes,
    ) -> Sig {
        let all_started = ins.iter().all(|s| s.started);
        match self {
            Kind::Input(k) | Kind::Arg(k) => {
                scope_args.get(*k).cloned().unwrap_or(Sig::idle(lanes))
            }
            Kind::Gen { clocks, delay } => match scope_start {
                Some(s) if t >= s + *delay => {
                    let c = (t - s - *delay) % clocks.len() as u64;
                    Sig {
                        started: true,
                        lanes: clocks[c as usize].clone(),
                    }
                }
                _ => Sig::idle(lanes),
            },
            Kind::Atom(op, ty) => {
                let lane = match &ins[0].lanes[0] {
                    Lane::Val(v) => {
                        if *op == AtomOp::If && undef_by_data(v) {
                            viol.undef_by_data += 1;
                        }
                        Lane::Val(interp::atom(*op, ty, v))
                    }
                    Lane::Poison => Lane::Poison,
                };
                Sig {
                    started: all_started,
                    lanes: vec![lane],
                }
            }
            Kind::ATuple => Sig {
                started: all_started,
                lanes: zip_lanes(&ins[0].lanes, &ins[1].lanes),
            },
            Kind::Concat => Sig {
                started: all_started,
                lanes: ins.iter().flat_map(|s| s.lanes.iter().cloned()).collect(),
            },
            Kind::MapS { bodies, widths } => {
                let mut out = Vec::with_capacity(lanes);
                let mut started = all_started;
                for (j, b) in bodies.iter_mut().enumerate() {
                    let args: Vec<Sig> = ins
                        .iter()
                        .zip(widths.iter())
                        .map(|(s, w)| Sig {
                            started: s.started,
                            lanes: s.lanes[j * w..(j + 1) * w].to_vec(),
                        })
                        .collect();
                    let r = b.step(t, all_started, &args, viol);
                    started = r.started;
                    out.extend(r.lanes);
                }
                Sig {
                    started,
                    lanes: out,
                }
            }
            Kind::MapT(body) => {
                let args: Vec<Sig> = ins.iter().map(|s| (*s).clone()).collect();
                body.step(t, all_started, &args, viol)
            }
            Kind::Stall(st) => {
                let args: Vec<Sig> = ins.iter().map(|s| (*s).clone()).collect();
                let mut out = st.step(t, all_started, &args, viol);
                out.lanes.resize(lanes, Lane::Poison);
                out
            }
            Kind::ReduceS {
                bodies,
                width,
                pipe,
            } => {
                let x = &ins[0].lanes;
                let mut acc: Vec<Lane> = x[..*width].to_vec();
                for (j, b) in bodies.iter_mut().enumerate() {
                    let e = &x[(j + 1) * *width..(j + 2) * *width];
                    let arg = Sig {
                        started: all_started,
                        lanes: zip_lanes(&acc, e),
                    };
                    acc = b.step(t, all_started, &[arg], viol).lanes;
                }
                let now = Sig {
                    started: all_started,
                    lanes: acc,
                };
                if pipe.is_empty() {
                    now
                } else {
                    pipe.push_back(Some(now));
                    pipe.pop_front()
                        .flatten()
                        .unwrap_or_else(|| Sig::idle(lanes))
                }
            }
            Kind::ReduceT {
                body,
                n,
                elem_clocks,
                period,
                acc,
                start,
            } => {
                if !all_started {
                    return Sig::idle(lanes);
                }
                let s = *start.get_or_insert(t);
                let tau = t - s;
                let phase = tau % *period;
                let (k, r) = (phase / *elem_clocks, (phase % *elem_clocks) as usize);
                let x = &ins[0].lanes;
                let prev = acc[r]
                    .clone()
                    .unwrap_or_else(|| vec![Lane::Poison; x.len()]);
                let arg = Sig {
                    started: true,
                    lanes: zip_lanes(&prev, x),
                };
                let combined = body.step(t, true, &[arg], viol).lanes;
                let new = if k == 0 { x.clone() } else { combined };
                acc[r] = Some(new.clone());
                Sig {
                    started: tau >= (*n - 1) * *elem_clocks,
                    lanes: new,
                }
            }
            Kind::Move(m) => m.step(t, ins[0], lanes, viol),
        }
    }
}

/// A running data-movement instance: it stores the atoms of every period still being
/// read, and emits each output atom from its source.
struct Mover {
    table: Rc<MoverTable>,
    /// Atoms of periods `first_frame ..`, as they arrive.
    frames: VecDeque<Vec<Option<Lane>>>,
    first_frame: u64,
    start: Option<u64>,
}

impl Mover {
    fn step(&mut self, t: u64, input: &Sig, lanes: usize, viol: &mut Notes) -> Sig {
        if !input.started {
            return Sig::idle(lanes);
        }
        let tab = self.table.clone();
        let p = tab.period;
        let s = *self.start.get_or_insert(t);
        let tau = t - s;
        let (f, c) = (tau / p, tau % p);
        let natoms = tab.perm.input.atoms() as usize;
        if let Some(idx) = &tab.in_place[c as usize] {
            while self.first_frame + (self.frames.len() as u64) <= f {
                self.frames.push_back(vec![None; natoms]);
            }
            if f >= self.first_frame {
                let fr = &mut self.frames[(f - self.first_frame) as usize];
                for (a, l) in idx.iter().zip(&input.lanes) {
                    fr[*a as usize] = Some(l.clone());
                }
            }
        }
        let l = tab.perm.latency;
        if tau < l {
            return Sig::idle(lanes);
        }
        let (of, oc) = ((tau - l) / p, (tau - l) % p);
        // Periods before the one being emitted are never read again.
        while self.first_frame < of && !self.frames.is_empty() {
            self.frames.pop_front();
            self.first_frame += 1;
        }
        let out = match &tab.out_place[oc as usize] {
            Some(idx) => idx
                .iter()
                .map(|o| match tab.perm.src(*o) {
                    Src::Fill(v) => v,
                    Src::In(e) => {
                        let got = (of >= self.first_frame)
                            .then(|| self.frames.get((of - self.first_frame) as usize))
                            .flatten()
                            .and_then(|fr| fr[e as usize].clone());
                        got.unwrap_or_else(|| {
                            if viol.violations.len() < 16 {
                                viol.violations.push(format!(
                                    "clock {t}: output atom {o} of period {of} reads input atom {e} before it arrived"
                                ));
                            }
                            Lane::Poison
                        })
                    }
                })
                .collect(),
            None => vec![Lane::Poison; lanes],
        };
        Sig {
            started: true,
            lanes: out,
        }
    }
}
