//! Pipelining to a clock: the modelled critical path of a design ([`critical_path`]) and the
//! same design with pipeline registers where the clock needs them ([`pipeline`]).
//!
//! Both walk the design once, bottom-up, with the arrival time of every signal (the
//! combinational delay since the last register, [`super::delay`]). A register is a
//! `(fifo L 1 x)` node, visible in `.st` files like any operator; a `reduce_s` chain gets
//! registers between its links (`(regs ...)`). When an operator's output would arrive later
//! than the clock allows, its late inputs are registered; the joins this misaligns are then
//! aligned by [`super::latency::insert_fifos`], so the simulator, latency matching and RTL
//! all see the same stages. A design that already meets the clock is returned unchanged.
//! Where one adder fills a stage, a sum of row sums is pipelined with its later rows read
//! late ([`super::late_rows`]) when that measured smaller after synthesis.

use super::area::{area, Weights, BUFFER_MAX_BITS, REGISTER_CHAIN_MAX};
use super::delay::{atom_delay, select_ns, Known, Target};
use super::design::{set_body, BodyId, Design, NodeId};
use super::late_rows::late_rows;
use super::latency::insert_fifos;
use super::layout::Layout;
use super::op::StOp;
use super::perm::Perm;
use std::collections::HashMap;
use std::rc::Rc;

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
        let first = pipeline_with(d, &self.target, self.mhz, self.strict)?;
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
        let relaxed = pipeline_with(d, &self.target, reach, false)?;
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
}

/// `d` with pipeline registers so that every register-to-register path of the model fits a
/// clock of `mhz` on target `t`. Errs, naming the operator, when one operator alone is
/// slower than the clock, with the clock it can reach.
pub fn pipeline(d: &Design, t: &Target, mhz: f64) -> Result<Pipelined, String> {
    pipeline_with(d, t, mhz, true)
}

/// [`pipeline`], or with `strict` false, an operator slower than the clock alone is
/// isolated between registers instead of an error.
fn pipeline_with(d: &Design, t: &Target, mhz: f64, strict: bool) -> Result<Pipelined, String> {
    if !(mhz.is_finite() && mhz > 0.0) {
        return Err(format!(
            "the clock must be a positive number of MHz, not {mhz}"
        ));
    }
    let budget = t.budget_ns(mhz);
    if budget <= 0.0 {
        return Err(format!(
            "a clock of {mhz} MHz leaves no time for logic on {} (a register alone takes {:.2} ns: at most {:.0} MHz)",
            t.name,
            t.register_ns,
            1000.0 / t.register_ns
        ));
    }
    let chain = pipeline_as_written(d, t, budget, strict)?;
    if chain.registers == 0 {
        return Ok(chain);
    }
    let chain = every_operator_if_smaller(d, t, chain)?;
    // at one adder per stage, sums of row sums read their later rows late (st::late_rows):
    // more register bits in the model, fewer after synthesis, which shares the delayed
    // windows with the line buffer and between neighbouring lanes. Measured (docs/timing.md
    // §3): fewer logic cells and LUT+FF with several clocks per frame and several lanes; with
    // one clock per frame (no line buffer) or one lane, not, so those keep their chains.
    if d.clocks() <= 1 || d.output_layout().lanes() <= 1 {
        return Ok(chain);
    }
    // exactly one adder a stage: where one alone overruns the stage (the 1920x1080 apps'
    // 32-bit sums at 225 MHz) every add is isolated anyway, and this was not measured
    let one_per_stage = |atom: &Layout| {
        let add = t.carry_ns(atom.atom_bits());
        add <= budget + 1e-9 && 2.0 * add > budget + 1e-9
    };
    let Some(late) = late_rows(d, &one_per_stage)? else {
        return Ok(chain);
    };
    let mut late = pipeline_as_written(&late, t, budget, strict)?;
    if late.registers == 0 {
        // the late rows' joins are aligned only by latency matching
        late.design = insert_fifos(&late.design)?;
    }
    // Data paths only: the start control's floor grows with the model's flip-flop bits,
    // which late rows add and synthesis merges (above).
    let data = t.without_control();
    let clock = |p: &Pipelined| critical_path(&p.design, &data).map(|c| c.mhz);
    let same_logic = area(&late.design).total.logic <= area(&chain.design).total.logic;
    if same_logic && clock(&late)? >= clock(&chain)? - 1e-9 {
        Ok(late)
    } else {
        Ok(chain)
    }
}

/// `d` pipelined with its operators as they are (`budget`: the logic delay a stage allows).
fn pipeline_as_written(
    d: &Design,
    t: &Target,
    budget: f64,
    strict: bool,
) -> Result<Pipelined, String> {
    let mut w = Walk::new(d, t, Some(budget));
    w.lenient = !strict;
    w.run()?;
    finished(d, &w)
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
    Ok(Pipelined { design, registers })
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
    let mut w = Walk::new(d, &t, Some(0.0));
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
) -> Result<Pipelined, String> {
    smaller_as_fast(placed, every_operator_registered(d)?, &t.without_control())
}

/// `other` if its critical path on `data` is as fast as `kept`'s and its model area is
/// smaller, else `kept`.
fn smaller_as_fast(kept: Pipelined, other: Pipelined, data: &Target) -> Result<Pipelined, String> {
    let scalar = |p: &Pipelined| area(&p.design).total.scalar(&Weights::default());
    let as_fast =
        critical_path(&other.design, data)?.mhz >= critical_path(&kept.design, data)?.mhz - 1e-6;
    Ok(if as_fast && scalar(&other) < scalar(&kept) - 1e-9 {
        other
    } else {
        kept
    })
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
}

/// A body rebuilt for given parameter arrivals: its id and its result's timing.
type BodyKey = (BodyId, Vec<u64>, Vec<Known>, bool);

struct Walk<'d> {
    src: &'d Design,
    t: &'d Target,
    budget: Option<f64>,
    out: Design,
    bodies: HashMap<BodyKey, (BodyId, Signal)>,
    registers: u64,
    worst: (f64, Option<Rc<Trail>>),
    /// Register every computed signal before its next use, whatever the clock.
    every: bool,
    /// An operator slower than the clock alone gets registered inputs, not an error.
    lenient: bool,
}

impl<'d> Walk<'d> {
    fn new(src: &'d Design, t: &'d Target, budget: Option<f64>) -> Walk<'d> {
        Walk {
            src,
            t,
            budget,
            out: Design::new(src.name.clone()),
            bodies: HashMap::new(),
            registers: 0,
            worst: (0.0, None),
            every: false,
            lenient: false,
        }
    }

    fn run(&mut self) -> Result<(), String> {
        let mut env = HashMap::new();
        for i in &self.src.inputs {
            let n = self.out.add_input(i.name.clone(), i.layout.clone())?;
            env.insert(
                i.node,
                Signal {
                    node: n,
                    ns: 0.0,
                    known: Known::Unknown,
                    trail: Some(Rc::new(Trail {
                        op: format!("input {}", i.name),
                        prev: None,
                    })),
                },
            );
        }
        let root = self.scope(self.src.output(), &mut env, &[], true)?;
        // a design with latency counts its clocks up to it and starts its nodes from the
        // count: a comparison whose result fans out to every node's enable
        if self.budget.is_none() && super::latency::design_latency(self.src)? > 0 {
            let ns = self.t.design_control_ns(self.src);
            if ns > self.worst.0 {
                self.worst = (ns, self.step("start control (age counter)".into(), &None));
            }
        }
        self.out.set_output(root.node)
    }

    fn critical(&self) -> CriticalPath {
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

    /// `s` through a register.
    fn register(&mut self, s: &Signal) -> Result<Signal, String> {
        let layout = self.out.layout(s.node).clone();
        let node = self.out.add(StOp::Fifo { layout, delay: 1 }, &[s.node])?;
        self.registers += 1;
        Ok(Signal {
            node,
            ns: 0.0,
            known: s.known.clone(),
            trail: self.step("pipeline register".into(), &None),
        })
    }

    /// The inputs of an operator of delay `d`, registered where the clock needs it.
    fn fit(
        &mut self,
        op: &StOp,
        mut args: Vec<Signal>,
        d: f64,
        may_register: bool,
    ) -> Result<Vec<Signal>, String> {
        let Some(b) = self.budget else {
            return Ok(args);
        };
        if d > b + 1e-9 && !self.every && !self.lenient {
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
                combine(self, args, d, Known::of_value(value, w))
            }
            StOp::Counter { .. } => combine(self, args, t.lut_ns, Known::Unknown),
            StOp::Atom(a) => {
                let input = self.src.layout(node.args[0]);
                let (d, k) = atom_delay(t, *a, input, &args[0].known);
                combine(self, args, d, k)
            }
            StOp::ATuple => {
                let k = Known::Pair(
                    Box::new(args[0].known.clone()),
                    Box::new(args[1].known.clone()),
                );
                combine(self, args, 0.0, k)
            }
            StOp::STuple | StOp::STupleAppend => {
                let k = args[0].known.meet(&args[1].known);
                combine(self, args, 0.0, k)
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
                let known = args[0].known.clone();
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
                // what the stored atoms leave: registers, or a RAM's read port when the
                // storage is deep and too large for registers (as `st::area` charges it)
                let lanes = input.lanes().max(layout.lanes());
                let in_ram = live.div_ceil(lanes) > REGISTER_CHAIN_MAX
                    && live * input.atom_bits() > BUFFER_MAX_BITS;
                let stored = if in_ram { t.ram_ns } else { 0.0 } + select;
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
            let cut_here = match self.budget {
                Some(b) if may_register => j > 1 && cur + link > b + 1e-9,
                _ => regs.contains(&(j - 1)),
            };
            if cut_here {
                cuts.push(j - 1);
                cur = 0.0;
            }
            cur += link;
        }
        if self.budget.is_some() && may_register {
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
