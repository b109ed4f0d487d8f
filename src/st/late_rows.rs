//! Sums of sums with their later rows computed late, so that pipelining delays inputs that
//! are already stored rather than partial sums that are not.
//!
//! A 3x3 stencil sums each window row (`map_s 3 (reduce_s 3 add)`) and then the row sums
//! (`reduce_s 3 add`). Pipelined at one adder per stage, the outer chain adds row 2 one stage
//! after rows 0 and 1, so row 2's sum is delayed a clock: one register word per output pixel
//! that nothing else holds. Computing row 2 a clock later instead, from its window delayed a
//! clock, costs more register bits counted one by one, but the delayed window is the
//! previous clock's pixels, which the line buffer already holds and neighbouring pixels
//! share: synthesis merges those registers with the line buffer's (Yosys merges flip-flops
//! with the same input), and the delayed sum disappears (measured: docs/timing.md §3); the
//! area model counts them once too ([`super::merged`]). `add` wraps,
//! so the chain's order is kept and the result is bit for bit the same.
//!
//! [`late_rows`] rebuilds a design with such sums as explicit chains of `add`s, row `j`
//! (from 2 on) reading its window `j - 1` clocks late; [`super::pipeline`] uses it when one
//! adder fills a stage and the model's area is smaller.

use super::design::{set_body, BodyId, Design, NodeId};
use super::layout::Layout;
use super::op::StOp;
use crate::seq::op::AtomOp;
use std::collections::HashMap;

/// `d` with every sum of at least three row sums (`reduce_s n add` over `map_s n
/// (reduce_s m add)`, the row sums read nowhere else) as an explicit chain of `add`s whose
/// row `j` reads its row `j - 1` clocks late, or `None` when `d` has none. Only unpipelined
/// chains (no `regs`) are rewritten, and only sums whose atom layout `one_per_stage` accepts:
/// where each link of the chain takes its own pipeline stage, so that row `j` is added
/// `j - 1` stages after the first two. The late rows' joins are left to latency matching
/// ([`super::latency::insert_fifos`]), which the pipeliner runs after placing its registers:
/// aligned before, the rows would be delayed twice.
pub fn late_rows(
    d: &Design,
    one_per_stage: &dyn Fn(&Layout) -> bool,
) -> Result<Option<Design>, String> {
    // readers of each node: nodes, body results and the output (nodes are shared between
    // scopes, so a node read twice anywhere is not folded into one chain)
    let mut uses = vec![0u32; d.len()];
    for id in d.ids() {
        for a in &d.node(id).args {
            uses[a.index()] += 1;
        }
    }
    for b in d.body_ids() {
        uses[d.body(b).root.index()] += 1;
    }
    uses[d.output().index()] += 1;
    let mut r = Rebuild {
        src: d,
        uses,
        out: Design::new(d.name.clone()),
        one_per_stage,
        bodies: HashMap::new(),
        changed: false,
    };
    let mut env = HashMap::new();
    for i in &d.inputs {
        let n = r.out.add_input(i.name.clone(), i.layout.clone())?;
        env.insert(i.node, n);
    }
    let root = r.scope(d.output(), &mut env)?;
    r.out.set_output(root)?;
    Ok(r.changed.then_some(r.out))
}

/// True when reducer `body` is `add` on its zipped pair ([`Design::reducer_atom`]).
fn sum_reducer(d: &Design, body: BodyId) -> bool {
    d.reducer_atom(body) == Some(&AtomOp::Add)
}

/// The atom layout of the elements of a `(sseq n e)` layout, when `e` is one atom.
fn element_atom(l: &Layout) -> Option<(u64, Layout, Layout)> {
    match l {
        Layout::SSeq(n, e) => {
            let a = e.normalize();
            a.is_atom().then(|| (*n, (**e).clone(), a))
        }
        _ => None,
    }
}

struct Rebuild<'d> {
    src: &'d Design,
    /// How many nodes read each node (nodes are shared between scopes).
    uses: Vec<u32>,
    out: Design,
    one_per_stage: &'d dyn Fn(&Layout) -> bool,
    bodies: HashMap<BodyId, BodyId>,
    changed: bool,
}

impl<'d> Rebuild<'d> {
    fn scope(&mut self, root: NodeId, env: &mut HashMap<NodeId, NodeId>) -> Result<NodeId, String> {
        for id in self.src.scope(root) {
            if env.contains_key(&id) {
                continue;
            }
            let n = self.node(id, env)?;
            env.insert(id, n);
        }
        Ok(env[&root])
    }

    fn body(&mut self, b: BodyId) -> Result<BodyId, String> {
        if let Some(nb) = self.bodies.get(&b) {
            return Ok(*nb);
        }
        let body = self.src.body(b).clone();
        let mut env = HashMap::new();
        let root = self.scope(body.root, &mut env)?;
        let nb = self.out.add_body(body.params, root)?;
        self.bodies.insert(b, nb);
        Ok(nb)
    }

    fn node(&mut self, id: NodeId, env: &HashMap<NodeId, NodeId>) -> Result<NodeId, String> {
        let node = self.src.node(id).clone();
        match &node.op {
            StOp::Input(_) => Err("internal error: an input outside the top scope".into()),
            StOp::Arg(k, l) => self.out.add_arg(*k, l.clone()),
            StOp::ReduceS { body, regs, .. } if regs.is_empty() && sum_reducer(self.src, *body) => {
                match self.late_sum(id, env)? {
                    Some(n) => {
                        self.changed = true;
                        Ok(n)
                    }
                    None => self.copy(&node.op, &node.args, env),
                }
            }
            op => self.copy(op, &node.args, env),
        }
    }

    /// `op` on the rebuilt `args`, its body rebuilt.
    fn copy(
        &mut self,
        op: &StOp,
        args: &[NodeId],
        env: &HashMap<NodeId, NodeId>,
    ) -> Result<NodeId, String> {
        let mut op = op.clone();
        if let Some(b) = op.body() {
            let nb = self.body(b)?;
            set_body(&mut op, nb);
        }
        let ids: Vec<NodeId> = args.iter().map(|a| env[a]).collect();
        self.out.add(op, &ids)
    }

    /// The sum `reduce_s` node `id` computes, as a chain of `add`s with late rows, or `None`
    /// when it is not a sum of at least three row sums of atoms.
    fn late_sum(
        &mut self,
        id: NodeId,
        env: &HashMap<NodeId, NodeId>,
    ) -> Result<Option<NodeId>, String> {
        let x = self.src.node(id).args[0];
        let Some((_, _, atom)) = element_atom(self.src.layout(x)) else {
            return Ok(None);
        };
        let Some(y) = self.inner_sums(x) else {
            return Ok(None);
        };
        let yl = self.src.layout(y).clone();
        let Layout::SSeq(n, row) = &yl else {
            return Ok(None);
        };
        let Some((m, inner, inner_atom)) = element_atom(row) else {
            return Ok(None);
        };
        if inner_atom != atom || *n < 3 || !(self.one_per_stage)(&atom) {
            return Ok(None);
        }
        let mut total = None;
        for j in 0..*n {
            let mut r = self.element(env[&y], *n, j, row, row)?;
            if j >= 2 {
                r = self.out.add(
                    StOp::Fifo {
                        layout: (**row).clone(),
                        delay: j - 1,
                    },
                    &[r],
                )?;
            }
            let mut sum = None;
            for k in 0..m {
                let leaf = self.element(r, m, k, &inner, &atom)?;
                sum = Some(self.add(sum, leaf)?);
            }
            let sum = sum.expect("a row has at least one element");
            total = Some(self.add(total, sum)?);
        }
        let to = self.src.layout(id).clone();
        let total = total.expect("at least three rows");
        Ok(Some(
            self.out.add(StOp::Reshape { from: atom, to }, &[total])?,
        ))
    }

    /// `acc + x`, or `x` first.
    fn add(&mut self, acc: Option<NodeId>, x: NodeId) -> Result<NodeId, String> {
        match acc {
            None => Ok(x),
            Some(a) => {
                let t = self.out.add(StOp::ATuple, &[a, x])?;
                self.out.add(StOp::Atom(AtomOp::Add), &[t])
            }
        }
    }

    /// When `x` is `map_s n (fn (e) (reduce_s m add e)) y` and only the reduction reads it:
    /// `y`.
    fn inner_sums(&self, x: NodeId) -> Option<NodeId> {
        let node = self.src.node(x);
        let StOp::MapS { body, .. } = &node.op else {
            return None;
        };
        if self.uses[x.index()] != 1 {
            return None;
        }
        let root = self.src.node(self.src.body(*body).root);
        let StOp::ReduceS { body: f, regs, .. } = &root.op else {
            return None;
        };
        let on_param = matches!(self.src.node(root.args[0]).op, StOp::Arg(0, _));
        (regs.is_empty() && on_param && sum_reducer(self.src, *f)).then_some(node.args[0])
    }

    /// Element `j` of the rebuilt `(sseq n e)` value `v`, laid out as `to` (`e`'s normal
    /// form or `e` itself).
    fn element(
        &mut self,
        v: NodeId,
        n: u64,
        j: u64,
        e: &Layout,
        to: &Layout,
    ) -> Result<NodeId, String> {
        let one = self.out.add(
            StOp::DownS {
                n,
                idx: j,
                elem: e.clone(),
            },
            &[v],
        )?;
        self.out.add(
            StOp::Reshape {
                from: Layout::sseq(1, e.clone()),
                to: to.clone(),
            },
            &[one],
        )
    }
}
