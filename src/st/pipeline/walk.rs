//! The walk behind [`super::critical_path`] and [`super::pipeline`]: one pass over a design,
//! bottom-up, with the arrival time of every signal (the combinational delay since the last
//! register, [`crate::st::delay`]), rebuilding it with a `(fifo L 1 x)` register in front of
//! an operator whose output would arrive later than a stage allows, and registers between
//! the links of a `reduce_s` chain (`(regs ...)`) where one link after another overruns it.
//! Without a stage budget it only measures: the rebuilt design is the same and the worst
//! arrival is the modelled critical path.

use super::{CriticalPath, TOO_SLOW};
use crate::seq::value::Value;
use crate::st::area::{movement_in_ram, REGISTER_CHAIN_MAX};
use crate::st::delay::{atom_delay, select_ns, Known, Stage, Target};
use crate::st::design::{set_body, BodyId, Design, NodeId};
use crate::st::layout::Layout;
use crate::st::op::StOp;
use crate::st::perm::{Perm, Src};
use crate::st::stream::{flatten, steady_lanes, Lane, Steady};
use std::collections::HashMap;
use std::rc::Rc;

mod lut;
mod stages;

use lut::Cone;

/// One step of a timing path.
struct Trail {
    op: String,
    prev: Option<Rc<Trail>>,
}

/// A signal of the rebuilt design: its node, arrival, what is known of it, how it got there.
#[derive(Clone)]
struct Signal {
    node: NodeId,
    ns: f64,
    known: Known,
    trail: Option<Rc<Trail>>,
    /// Set when each bit of the signal is one LUT over few inputs ([`Cone`]).
    cone: Option<Cone>,
}

/// A body rebuilt for given parameter arrivals: its id and its result's timing.
type BodyKey = (BodyId, Vec<u64>, Vec<Known>, Vec<Option<(u64, u8)>>, bool);

/// One pass over a design: its rebuilt copy, the registers added and the worst arrival.
pub(super) struct Walk<'d> {
    src: &'d Design,
    t: &'d Target,
    /// What a stage may hold; `None` measures without registering.
    stage: Option<Stage>,
    /// The rebuilt design.
    pub(super) out: Design,
    bodies: HashMap<BodyKey, (BodyId, Signal)>,
    /// The fields of every tuple built (by its node in `out`), so that registering a tuple
    /// registers its fields one by one.
    fields: HashMap<NodeId, Vec<Signal>>,
    /// The register of every signal registered so far (by its node in `out`): every use
    /// of a signal shares one register, as the hardware would.
    registered: HashMap<NodeId, Signal>,
    /// The latency of the nodes of `out` asked for so far, in clocks from their scope's
    /// start, as latency matching computes it ([`own_latency`]).
    stages: HashMap<NodeId, u64>,
    /// The latency of the bodies of `out` asked for so far.
    body_stages: HashMap<BodyId, u64>,
    /// Pipeline registers added (registers and `reduce_s` chain stages, per use).
    pub(super) registers: u64,
    worst: (f64, Option<Rc<Trail>>),
    /// Register every computed signal before its next use, whatever the clock.
    pub(super) every: bool,
    /// An operator slower than the clock alone gets registered inputs, not an error.
    pub(super) lenient: bool,
}

impl<'d> Walk<'d> {
    pub(super) fn new(src: &'d Design, t: &'d Target, stage: Option<Stage>) -> Walk<'d> {
        Walk {
            src,
            t,
            stage,
            out: Design::new(src.name.clone()),
            bodies: HashMap::new(),
            fields: HashMap::new(),
            registered: HashMap::new(),
            stages: HashMap::new(),
            body_stages: HashMap::new(),
            registers: 0,
            worst: (0.0, None),
            every: false,
            lenient: false,
        }
    }

    pub(super) fn run(&mut self) -> Result<(), String> {
        let mut env = HashMap::new();
        for i in &self.src.inputs {
            let n = self.out.add_input(i.name.clone(), i.layout.clone())?;
            env.insert(
                i.node,
                Signal {
                    node: n,
                    ns: 0.0,
                    known: Known::Unknown,
                    cone: None,
                    trail: Some(Rc::new(Trail {
                        op: format!("input {}", i.name),
                        prev: None,
                    })),
                },
            );
        }
        let root = self.scope(self.src.output(), &mut env, &[], true)?;
        // a design with latency counts its clocks up to it and starts its nodes from the
        // count: start wires that fan out to every node's enable, and phase counters
        if self.stage.is_none() && crate::st::latency::design_latency(self.src)? > 0 {
            let ns = self.t.design_control_ns(self.src);
            if ns > self.worst.0 {
                let op = "start control (its fan-out and phase counters)";
                self.worst = (ns, self.step(op.into(), &None));
            }
        }
        self.out.set_output(root.node)
    }

    pub(super) fn critical(&self) -> CriticalPath {
        let mut ops = Vec::new();
        let mut at = self.worst.1.clone();
        while let Some(tr) = at {
            ops.push(tr.op.clone());
            at = tr.prev.clone();
        }
        ops.reverse();
        CriticalPath {
            ns: self.worst.0,
            mhz: self.t.mhz_of(self.worst.0),
            ops,
        }
    }

    fn note(&mut self, s: &Signal) {
        if s.ns > self.worst.0 {
            self.worst = (s.ns, s.trail.clone());
        }
    }

    /// Rebuilds the scope of `root`; `params` are the body's parameters (none at the top).
    /// `may_register` is false inside reducers, which must combine on the clock.
    fn scope(
        &mut self,
        root: NodeId,
        env: &mut HashMap<NodeId, Signal>,
        params: &[Signal],
        may_register: bool,
    ) -> Result<Signal, String> {
        for id in self.src.scope(root) {
            if env.contains_key(&id) {
                continue;
            }
            let s = self.node(id, env, params, may_register)?;
            // in scope order, so that every latency asked later is one step from known ones
            self.stage(s.node)?;
            self.note(&s);
            env.insert(id, s);
        }
        Ok(env[&root].clone())
    }

    fn step(&self, op: String, prev: &Option<Rc<Trail>>) -> Option<Rc<Trail>> {
        Some(Rc::new(Trail {
            op,
            prev: prev.clone(),
        }))
    }

    /// The inputs of an operator of delay `d`, registered where the clock needs it.
    fn fit(
        &mut self,
        op: &StOp,
        mut args: Vec<Signal>,
        d: f64,
        may_register: bool,
    ) -> Result<Vec<Signal>, String> {
        let Some(stage) = self.stage else {
            return Ok(args);
        };
        let b = stage.budget_ns;
        if d > stage.limit_ns + 1e-9 && !self.every && !self.lenient {
            return Err(format!(
                "`{op}` {TOO_SLOW} {d:.2} ns of logic on {}: the clock can reach at most {:.1} MHz",
                self.t.name,
                self.t.mhz_of(d)
            ));
        }
        let late = args.iter().map(|a| a.ns).fold(0.0, f64::max);
        let needed = if self.every {
            d > 0.0 && late > 0.0
        } else {
            late + d > b + 1e-9
        };
        if needed && may_register {
            for a in &mut args {
                if a.ns > 0.0 {
                    *a = self.register(a)?;
                }
            }
        }
        Ok(args)
    }

    fn node(
        &mut self,
        id: NodeId,
        env: &mut HashMap<NodeId, Signal>,
        params: &[Signal],
        may_register: bool,
    ) -> Result<Signal, String> {
        let node = self.src.node(id).clone();
        let layout = self.src.layout(id).clone();
        let args: Vec<Signal> = node.args.iter().map(|a| env[a].clone()).collect();
        let args = self.aligned(args)?;
        let name = node.op.to_string();
        let t = self.t;
        let combine = |w: &mut Walk, args: Vec<Signal>, d: f64, known: Known| {
            let args = w.fit(&node.op, args, d, may_register)?;
            let ids: Vec<NodeId> = args.iter().map(|a| a.node).collect();
            let n = w.out.add(node.op.clone(), &ids)?;
            let from = args
                .iter()
                .max_by(|a, b| a.ns.total_cmp(&b.ns))
                .and_then(|a| a.trail.clone());
            let ns = args.iter().map(|a| a.ns).fold(0.0, f64::max) + d;
            Ok::<Signal, String>(Signal {
                node: n,
                ns,
                known,
                cone: None,
                trail: if d > 0.0 {
                    w.step(name.clone(), &from)
                } else {
                    from
                },
            })
        };
        match &node.op {
            StOp::Input(_) => Err("internal error: an input outside the top scope".into()),
            StOp::Arg(k, l) => {
                let n = self.out.add_arg(*k, l.clone())?;
                let p = &params[usize::from(*k)];
                Ok(Signal {
                    node: n,
                    ..p.clone()
                })
            }
            StOp::Const { value, .. } => {
                let w = layout.atom_bits() as u32;
                let d = if layout.clocks() > 1 { t.lut_ns } else { 0.0 };
                let known = if lanes_hold_one_atom(&layout, value) {
                    Known::of_value(value, w)
                } else {
                    Known::table_of_value(value)
                };
                combine(self, args, d, known)
            }
            StOp::Counter { .. } => combine(self, args, t.lut_ns, Known::Unknown),
            StOp::Atom(a) => {
                let input = self.src.layout(node.args[0]);
                let (d, k) = atom_delay(t, *a, input, &args[0].known);
                // registered after every operator (the baseline), logic is not packed
                match self.bitwise_operands(*a, &args[0]) {
                    Some(ops) if d > 0.0 && !self.every => {
                        self.lut(&node.op, args, &ops, k, name, may_register)
                    }
                    _ => combine(self, args, d, k),
                }
            }
            StOp::ATuple => {
                let k = Known::Pair(
                    Box::new(args[0].known.clone()),
                    Box::new(args[1].known.clone()),
                );
                self.tuple(args, |w, args| combine(w, args, 0.0, k))
            }
            StOp::STuple | StOp::STupleAppend => {
                let k = args[0].known.meet(&args[1].known);
                self.tuple(args, |w, args| combine(w, args, 0.0, k))
            }
            StOp::MapS { body, .. }
            | StOp::MapT { body, .. }
            | StOp::Map2S { body, .. }
            | StOp::Map2T { body, .. } => {
                let (nb, res) = self.body(*body, &args, may_register)?;
                let mut op = node.op.clone();
                set_body(&mut op, nb);
                let ids: Vec<NodeId> = args.iter().map(|a| a.node).collect();
                let n = self.out.add(op, &ids)?;
                Ok(Signal { node: n, ..res })
            }
            StOp::Stall { body, .. } => {
                // no registers inside: they would move the body's output within its
                // period, which a stall must keep (`st::stall`); the body comes pipelined
                let (nb, res) = self.body(*body, &args, false)?;
                let mut op = node.op.clone();
                set_body(&mut op, nb);
                let ids: Vec<NodeId> = args.iter().map(|a| a.node).collect();
                let n = self.out.add(op, &ids)?;
                Ok(Signal { node: n, ..res })
            }
            StOp::ReduceS { n, body, regs } => self.reduce_s(*n, *body, regs, args, may_register),
            StOp::ReduceT { body, .. } => {
                let pair = self.pair_param(&args[0]);
                let (nb, res) = self.body(*body, &[pair], false)?;
                // the accumulator loop: the reducer and the choice of the first element
                let d = res.ns + t.lut_ns;
                let args = self.fit(&node.op, args, d, may_register)?;
                let mut op = node.op.clone();
                set_body(&mut op, nb);
                let n = self.out.add(op, &[args[0].node])?;
                let from = args[0].trail.clone();
                Ok(Signal {
                    node: n,
                    ns: args[0].ns + d,
                    known: Known::Unknown,
                    cone: None,
                    trail: self.step(name, &from),
                })
            }
            StOp::Fifo { delay, .. } => {
                let known = args[0].known.clone();
                let s = combine(self, args, 0.0, known)?;
                Ok(Signal {
                    // a deep FIFO is a memory read into a register (`rtl::scope`)
                    ns: if *delay > REGISTER_CHAIN_MAX {
                        t.ram_ns
                    } else {
                        0.0
                    },
                    trail: self.step(name, &None),
                    ..s
                })
            }
            op => {
                let input = self.src.layout(node.args[0]);
                let p = Perm::of(op, input, &layout)
                    .ok_or_else(|| format!("internal error: no atom map for {op}"))?;
                let known = if args[0].known.is_const() && !lanes_from_one_source(&p) {
                    Known::Unknown
                } else {
                    args[0].known.clone()
                };
                let live = p.max_live_atoms();
                if live == 0 && input.normalize() == layout.normalize() {
                    // a relabel: every atom keeps its lane and clock
                    return combine(self, args, 0.0, known);
                }
                // the phase multiplexer in front of each output lane
                let sources = p
                    .lane_sources(Some(8), None)
                    .counts
                    .keys()
                    .max()
                    .copied()
                    .unwrap_or(1);
                let select = select_ns(t, sources);
                // what the stored atoms leave: registers, or a RAM's read port where the
                // storage is a memory (as `st::area` charges it and the RTL builds it)
                let stored = if movement_in_ram(&p, live) {
                    t.ram_ns
                } else {
                    0.0
                } + select;
                let only_stored = live > 0
                    && matches!(
                        op,
                        StOp::ShiftT { .. } | StOp::ShiftTT { .. } | StOp::ShiftTN { .. }
                    );
                let s = combine(self, args, if only_stored { 0.0 } else { select }, known)?;
                if only_stored {
                    // every element is read clocks after it arrives: the output path
                    // starts at the storage
                    Ok(Signal {
                        ns: stored,
                        trail: self.step(name, &None),
                        ..s
                    })
                } else if live > 0 && stored > s.ns {
                    Ok(Signal {
                        ns: stored,
                        trail: self.step(name, &None),
                        ..s
                    })
                } else {
                    Ok(s)
                }
            }
        }
    }

    /// The zipped pair a reducer takes, from its input's signal.
    fn pair_param(&self, x: &Signal) -> Signal {
        Signal {
            node: x.node,
            ns: 0.0,
            known: Known::Pair(Box::new(Known::Unknown), Box::new(x.known.clone())),
            cone: None,
            trail: x.trail.clone(),
        }
    }

    /// A `reduce_s` chain, with registers between links where the clock needs them.
    fn reduce_s(
        &mut self,
        n: u64,
        body: BodyId,
        regs: &[u64],
        args: Vec<Signal>,
        may_register: bool,
    ) -> Result<Signal, String> {
        let pair = self.pair_param(&args[0]);
        let (nb, res) = self.body(body, &[pair], false)?;
        let link = res.ns;
        let op = StOp::ReduceS {
            n,
            body,
            regs: regs.to_vec(),
        };
        let args = self.fit(&op, args, link, may_register)?;
        let mut cur = args[0].ns;
        let mut cuts = Vec::new();
        for j in 1..n {
            let cut_here = match self.stage {
                Some(st) if may_register => j > 1 && cur + link > st.budget_ns + 1e-9,
                _ => regs.contains(&(j - 1)),
            };
            if cut_here {
                cuts.push(j - 1);
                cur = 0.0;
            }
            cur += link;
        }
        if self.stage.is_some() && may_register {
            self.registers += cuts.len() as u64;
        }
        let from = if cuts.is_empty() {
            args[0].trail.clone()
        } else {
            self.step("pipeline register".into(), &None)
        };
        let node = self.out.add(
            StOp::ReduceS {
                n,
                body: nb,
                regs: cuts,
            },
            &[args[0].node],
        )?;
        Ok(Signal {
            node,
            ns: cur,
            known: Known::Unknown,
            cone: None,
            trail: self.step(format!("reduce_s {n} chain"), &from),
        })
    }

    /// Body `b` rebuilt for parameters arriving as `args`, and its result's signal.
    fn body(
        &mut self,
        b: BodyId,
        args: &[Signal],
        may_register: bool,
    ) -> Result<(BodyId, Signal), String> {
        let key = (
            b,
            args.iter()
                .map(|a| (a.ns * 1000.0).round() as u64)
                .collect(),
            args.iter().map(|a| a.known.clone()).collect(),
            args.iter()
                .map(|a| a.cone.map(|c| ((c.at * 1000.0).round() as u64, c.inputs)))
                .collect(),
            may_register,
        );
        if let Some((nb, s)) = self.bodies.get(&key) {
            return Ok((*nb, s.clone()));
        }
        let body = self.src.body(b).clone();
        let mut env = HashMap::new();
        let res = self.scope(body.root, &mut env, args, may_register)?;
        let nb = self.out.add_body(body.params, res.node)?;
        self.bodies.insert(key, (nb, res.clone()));
        Ok((nb, res))
    }
}

/// True when every lane of a generator of layout `l` and value `value` carries one atom on
/// every clock: the RTL writes such a lane as a constant (`st::known`), and a multiply or
/// shift by it as wiring and adders. A lane whose atom changes with the clock is a table
/// read, and what uses it is general logic (a multiplier, a barrel shifter).
fn lanes_hold_one_atom(l: &Layout, value: &Value) -> bool {
    l.clocks() <= 1 || !steady_lanes(l, &flatten(value, &l.to_seq())).contains(&Steady::Many)
}

/// True when every output lane of `p` takes its atoms from one input lane (or one shift's
/// init; don't-care fills aside): a lane that takes turns between input lanes changes with the clock, so what was
/// known of the input's constants does not hold for it (as `st::known` decides).
fn lanes_from_one_source(p: &Perm) -> bool {
    let in_lane: Vec<u64> = p.input.atom_positions().iter().map(|a| a.1).collect();
    let mut lane: Vec<Option<u64>> = vec![None; p.output.lanes() as usize];
    for c in 0..p.output.clocks() {
        let Some(idx) = p.output.lane_atoms(c) else {
            continue;
        };
        for (k, o) in idx.iter().enumerate() {
            let from = match p.src(*o) {
                Src::In(e) => in_lane[e as usize],
                // a shift's init: another source than any input lane
                Src::Fill(Lane::Val(_)) => u64::MAX,
                Src::Fill(Lane::Poison) => continue,
            };
            match lane[k] {
                None => lane[k] = Some(from),
                Some(prev) if prev == from => {}
                Some(_) => return false,
            }
        }
    }
    true
}
