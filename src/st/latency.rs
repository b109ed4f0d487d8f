//! Latency model and latency-matching FIFO insertion (reference §4.9.2, §5.3).
//!
//! A node's latency is the number of clocks from its scope's start to its output's first
//! clock. The top scope starts when the inputs do (clock 0); a body's scope starts when its
//! parameters do, so bodies are timed once, relative to their own start, wherever they are
//! used. Generators start `delay` clocks after their scope.
//!
//! Own latencies (they are what [`super::sim`] does clock by clock; the simulator checks the
//! sums on every run):
//! - atom operators, tuples: 0 (combinational);
//! - `map_*`/`map2_*`: the body's latency; `reduce_s`: 0 (the body must have latency 0);
//! - `reduce_t n i f` on elements of `T` clocks: `(n-1)*T` (the result leaves with the last
//!   element);
//! - data-movement operators: the minimal causal latency of their atom map
//!   ([`super::perm::Perm::min_latency`]), e.g. `down_1d_t n i idx t`: `idx*clocks(t)`;
//!   `fifo t d`: `d`.
//!
//! Joins (`map2_*`, `atuple`, `stuple`, `stuple_append`) need equal input latencies;
//! [`insert_fifos`] delays the earlier input with a FIFO, or, for a generator (also one
//! seen through data movement), by raising its start delay (Aetherling's
//! `Merge_Const_FIFOs`).

use super::design::{set_body, BodyId, Design, NodeId};
use super::op::StOp;
use super::perm::Perm;
use std::collections::HashMap;

/// A join whose inputs arrive at different clocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Misalignment {
    /// The join node.
    pub node: NodeId,
    /// Its operator, for messages.
    pub op: String,
    /// The latency of each input.
    pub inputs: Vec<u64>,
}

/// Latencies of every node reachable from the output (bodies included, relative to their
/// own scope), the output's latency, and the misaligned joins.
#[derive(Clone, Debug)]
pub struct LatencyReport {
    /// Per node, `None` if not reachable.
    pub node: Vec<Option<u64>>,
    /// Per body: the latency of its result relative to its start.
    pub body: Vec<Option<u64>>,
    /// The output's latency.
    pub output: u64,
    /// Joins whose inputs are not aligned (empty for a latency-matched design).
    pub misaligned: Vec<Misalignment>,
}

/// Computes every latency. Errors only on reducers whose body has a non-zero latency.
pub fn analyze(d: &Design) -> Result<LatencyReport, String> {
    let mut a = Analyzer {
        d,
        node: vec![None; d.len()],
        body: vec![None; d.body_count()],
        misaligned: Vec::new(),
    };
    for i in &d.inputs {
        a.latency(i.node)?;
    }
    let output = a.latency(d.output())?;
    Ok(LatencyReport {
        node: a.node,
        body: a.body,
        output,
        misaligned: a.misaligned,
    })
}

/// The design's latency: clocks from the first input clock to the first output clock.
/// Errors if some join is misaligned (run [`insert_fifos`] first).
pub fn design_latency(d: &Design) -> Result<u64, String> {
    let r = analyze(d)?;
    if let Some(m) = r.misaligned.first() {
        return Err(format!(
            "{} (node {}) joins inputs arriving after {} clocks; insert FIFOs to align them",
            m.op,
            m.node,
            m.inputs
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" and ")
        ));
    }
    Ok(r.output)
}

struct Analyzer<'d> {
    d: &'d Design,
    node: Vec<Option<u64>>,
    body: Vec<Option<u64>>,
    misaligned: Vec<Misalignment>,
}

impl Analyzer<'_> {
    fn body_latency(&mut self, b: BodyId) -> Result<u64, String> {
        if let Some(l) = self.body[b.index()] {
            return Ok(l);
        }
        let l = self.latency(self.d.body(b).root)?;
        self.body[b.index()] = Some(l);
        Ok(l)
    }

    fn latency(&mut self, id: NodeId) -> Result<u64, String> {
        if let Some(l) = self.node[id.index()] {
            return Ok(l);
        }
        // Children first, iteratively in id order, so deep chains do not recurse deeply.
        for c in self.d.scope(id) {
            if self.node[c.index()].is_none() {
                let l = self.own(c)?;
                self.node[c.index()] = Some(l);
            }
        }
        Ok(self.node[id.index()].expect("computed"))
    }

    /// The latency of `id` given its arguments' latencies (already computed).
    fn own(&mut self, id: NodeId) -> Result<u64, String> {
        let d = self.d;
        let node = d.node(id);
        let ins: Vec<u64> = node
            .args
            .iter()
            .map(|a| self.node[a.index()].expect("arguments first"))
            .collect();
        if ins.len() > 1 && ins.iter().any(|l| *l != ins[0]) {
            self.misaligned.push(Misalignment {
                node: id,
                op: node.op.to_string(),
                inputs: ins.clone(),
            });
        }
        let start = ins.iter().copied().max().unwrap_or(0);
        let bl = match node.op.body() {
            Some(b) => Some(self.body_latency(b)?),
            None => None,
        };
        own_latency(d, id, start, bl)
    }
}

/// The same design with every join aligned: the earlier input of each misaligned join is
/// delayed by a FIFO of the difference (or, for a generator, by a later start), inside
/// bodies too. The result passes [`design_latency`].
pub fn insert_fifos(d: &Design) -> Result<Design, String> {
    let mut r = Rebuild {
        src: d,
        out: Design::new(d.name.clone()),
        map: HashMap::new(),
        bmap: HashMap::new(),
    };
    for i in &d.inputs {
        let n = r.out.add_input(i.name.clone(), i.layout.clone())?;
        r.map.insert(i.node, (n, 0));
    }
    let (o, _) = r.copy(d.output())?;
    r.out.set_output(o)?;
    Ok(r.out)
}

struct Rebuild<'d> {
    src: &'d Design,
    out: Design,
    map: HashMap<NodeId, (NodeId, u64)>,
    bmap: HashMap<BodyId, (BodyId, u64)>,
}

impl Rebuild<'_> {
    fn copy(&mut self, id: NodeId) -> Result<(NodeId, u64), String> {
        for c in self.src.scope(id) {
            if !self.map.contains_key(&c) {
                let r = self.copy_one(c)?;
                self.map.insert(c, r);
            }
        }
        Ok(self.map[&id])
    }

    fn copy_body(&mut self, b: BodyId) -> Result<(BodyId, u64), String> {
        if let Some(r) = self.bmap.get(&b) {
            return Ok(*r);
        }
        let body = self.src.body(b).clone();
        let (root, l) = self.copy(body.root)?;
        let nb = self.out.add_body(body.params, root)?;
        self.bmap.insert(b, (nb, l));
        Ok((nb, l))
    }

    fn copy_one(&mut self, id: NodeId) -> Result<(NodeId, u64), String> {
        let node = self.src.node(id).clone();
        let mut args: Vec<(NodeId, u64)> = node.args.iter().map(|a| self.map[a]).collect();
        let target = args.iter().map(|a| a.1).max().unwrap_or(0);
        if args.len() > 1 {
            for (k, (a, l)) in args.clone().into_iter().enumerate() {
                if l < target {
                    args[k] = (self.delay(a, target - l)?, target);
                }
            }
        }
        let mut op = node.op.clone();
        if let Some(b) = op.body() {
            let (nb, _) = self.copy_body(b)?;
            set_body(&mut op, nb);
        }
        let ids: Vec<NodeId> = args.iter().map(|a| a.0).collect();
        let n = match &op {
            StOp::Arg(k, l) => self.out.add_arg(*k, l.clone())?,
            _ => self.out.add(op, &ids)?,
        };
        // The new node's latency, from the rebuilt design's own rules.
        let bl = match node.op.body() {
            Some(b) => Some(self.bmap[&b].1),
            None => None,
        };
        let lat = own_latency(&self.out, n, target, bl)?;
        Ok((n, lat))
    }

    /// `a` delayed by `by` clocks.
    fn delay(&mut self, a: NodeId, by: u64) -> Result<NodeId, String> {
        let op = self.out.node(a).op.clone();
        match op {
            StOp::Const {
                value,
                layout,
                delay,
            } => self.out.add(
                StOp::Const {
                    value,
                    layout,
                    delay: delay + by,
                },
                &[],
            ),
            StOp::Counter {
                layout,
                incr,
                delay,
            } => self.out.add(
                StOp::Counter {
                    layout,
                    incr,
                    delay: delay + by,
                },
                &[],
            ),
            // Wiring over generators only (a counter reshaped into the consumer's layout):
            // the same wiring over generators that start later holds no word a FIFO would.
            ref movement if starts_later(&self.out, a) => {
                let src = self.out.node(a).args[0];
                let later = self.delay(src, by)?;
                self.out.add(movement.clone(), &[later])
            }
            _ => {
                let layout = self.out.layout(a).clone();
                self.out.add(StOp::Fifo { layout, delay: by }, &[a])
            }
        }
    }
}

/// True when node `a` of `d` is a generator, or data movement that is only wiring (it
/// holds no atom) over one: latency matching delays it by starting the generator later,
/// with no FIFO ([`insert_fifos`]).
pub fn starts_later(d: &Design, mut a: NodeId) -> bool {
    loop {
        let node = d.node(a);
        match &node.op {
            StOp::Const { .. } | StOp::Counter { .. } => return true,
            op if op.is_data_movement() && node.args.len() == 1 => {
                let wiring = Perm::of(op, d.layout(node.args[0]), d.layout(a))
                    .is_some_and(|p| p.is_wiring());
                if !wiring {
                    return false;
                }
                a = node.args[0];
            }
            _ => return false,
        }
    }
}

/// The latency of node `id` whose inputs all arrive at `start`, given its body's latency.
pub fn own_latency(d: &Design, id: NodeId, start: u64, body: Option<u64>) -> Result<u64, String> {
    let node = d.node(id);
    let bl = body.unwrap_or(0);
    Ok(match &node.op {
        StOp::Input(_) | StOp::Arg(..) => 0,
        StOp::Const { delay, .. } | StOp::Counter { delay, .. } => *delay,
        StOp::Atom(_) | StOp::ATuple | StOp::STuple | StOp::STupleAppend => start,
        StOp::MapS { .. } | StOp::MapT { .. } | StOp::Map2S { .. } | StOp::Map2T { .. } => {
            start + bl
        }
        StOp::Stall { idle, body, .. } => {
            let out = d.layout(d.body(*body).root);
            start
                + super::stall::latency(bl, out, *idle).map_err(|e| format!("{}: {e}", node.op))?
        }
        StOp::ReduceS { body, .. } | StOp::ReduceT { body, .. } => {
            if bl != 0 {
                return Err(format!(
                    "{}: the reducer has latency {bl}; a reducer must combine on the clock its inputs arrive (latency 0)",
                    node.op
                ));
            }
            match &node.op {
                StOp::ReduceT { n, .. } => start + (n - 1) * d.layout(d.body(*body).root).clocks(),
                StOp::ReduceS { regs, .. } => start + regs.len() as u64,
                _ => start,
            }
        }
        op => {
            let p = Perm::of(op, d.layout(node.args[0]), d.layout(id))
                .ok_or_else(|| format!("internal error: no latency rule for {op}"))?;
            start + p.latency
        }
    })
}
