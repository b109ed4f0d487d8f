//! Where the walk's registers go: the clock each signal is on (its latency, as latency
//! matching computes it), the joins aligned as latency matching will align them, and one
//! register per signal, tuples registered field by field.

use super::{Signal, Walk};
use crate::st::area::REGISTER_CHAIN_MAX;
use crate::st::design::{BodyId, NodeId};
use crate::st::latency::{own_latency, starts_later};
use crate::st::op::StOp;

impl Walk<'_> {
    /// `s` through a register. A signal used by several operators is registered once, and a
    /// tuple is registered field by field: two tuples of the same late signals (the operands
    /// of `sub a b` and `sub b a`) share their registers. A field realigned to the tuple's
    /// clock gets its FIFO and one register after it; a field already on that clock and
    /// at a register is left as it is (latency matching delays it with the others).
    pub(super) fn register(&mut self, s: &Signal) -> Result<Signal, String> {
        if let Some(r) = self.registered.get(&s.node) {
            return Ok(r.clone());
        }
        let node = match self.fields.get(&s.node).cloned() {
            Some(fields) => {
                let at = self.stage(s.node)?;
                let mut regd = Vec::with_capacity(fields.len());
                for f in &fields {
                    let from = self.stage(f.node)?;
                    regd.push(if f.ns > 0.0 {
                        self.register(f)?
                    } else if from < at && !starts_later(&self.out, f.node) {
                        // realigned: its FIFO, then the register, both register chains
                        let node = self.fifo(f.node, at - from)?;
                        let node = self.fifo(node, 1)?;
                        self.registers += 1;
                        Signal {
                            node,
                            ns: 0.0,
                            cone: None,
                            ..f.clone()
                        }
                    } else {
                        f.clone()
                    });
                }
                let op = self.out.node(s.node).op.clone();
                let ids: Vec<NodeId> = regd.iter().map(|f| f.node).collect();
                let node = self.out.add(op, &ids)?;
                self.fields.insert(node, regd);
                node
            }
            None => {
                self.registers += 1;
                self.fifo(s.node, 1)?
            }
        };
        let r = Signal {
            node,
            ns: 0.0,
            known: s.known.clone(),
            cone: None,
            trail: self.step("pipeline register".into(), &None),
        };
        self.registered.insert(s.node, r.clone());
        Ok(r)
    }

    /// A tuple of `args` built by `build`, its fields kept for [`Walk::register`].
    pub(super) fn tuple(
        &mut self,
        args: Vec<Signal>,
        build: impl FnOnce(&mut Walk, Vec<Signal>) -> Result<Signal, String>,
    ) -> Result<Signal, String> {
        let s = build(self, args.clone())?;
        // a tuple whose fields were registered on the way in is built of other signals
        if self
            .out
            .node(s.node)
            .args
            .iter()
            .eq(args.iter().map(|a| &a.node))
        {
            self.fields.insert(s.node, args);
        }
        Ok(s)
    }

    /// The latency of node `n` of `out` (memoized; see [`Walk::stages`]).
    pub(super) fn stage(&mut self, n: NodeId) -> Result<u64, String> {
        if let Some(s) = self.stages.get(&n) {
            return Ok(*s);
        }
        let node = self.out.node(n).clone();
        let mut start = 0;
        for a in &node.args {
            start = start.max(self.stage(*a)?);
        }
        let body = match node.op.body() {
            Some(b) => Some(self.body_stage(b)?),
            None => None,
        };
        let s = own_latency(&self.out, n, start, body)?;
        self.stages.insert(n, s);
        Ok(s)
    }

    fn body_stage(&mut self, b: BodyId) -> Result<u64, String> {
        if let Some(s) = self.body_stages.get(&b) {
            return Ok(*s);
        }
        let s = self.stage(self.out.body(b).root)?;
        self.body_stages.insert(b, s);
        Ok(s)
    }

    /// The inputs of a join as they arrive once latency matching has aligned it
    /// (`insert_fifos`): an input from an earlier clock comes through a FIFO, so its path
    /// starts at the FIFO's register; a FIFO too deep for a register chain is a memory,
    /// built here so that a register the join needs goes after its read. A generator
    /// starts later instead and keeps its own delay.
    pub(super) fn aligned(&mut self, mut args: Vec<Signal>) -> Result<Vec<Signal>, String> {
        if args.len() < 2 {
            return Ok(args);
        }
        let mut stages = Vec::with_capacity(args.len());
        for a in &args {
            stages.push(self.stage(a.node)?);
        }
        let last = stages.iter().copied().max().unwrap_or(0);
        for (a, st) in args.iter_mut().zip(stages) {
            if st == last || starts_later(&self.out, a.node) {
                continue;
            }
            let gap = last - st;
            a.ns = 0.0;
            if gap > REGISTER_CHAIN_MAX {
                a.node = self.fifo(a.node, gap)?;
                a.ns = self.t.ram_ns;
            }
            a.cone = None;
            a.trail = self.step("latency-matching FIFO".into(), &None);
        }
        Ok(args)
    }

    /// Node `n` of `out` delayed `delay` clocks.
    fn fifo(&mut self, n: NodeId, delay: u64) -> Result<NodeId, String> {
        let layout = self.out.layout(n).clone();
        self.out.add(StOp::Fifo { layout, delay }, &[n])
    }
}
