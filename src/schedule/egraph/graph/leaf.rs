//! Lowering of the leaf operators: program inputs, body parameters, constants, counters,
//! atom operators and tuples.

use super::how::How;
use super::StreamGraph;
use crate::egraph::analysis::Sort;
use crate::egraph::lang::SeqLang;
use crate::seq::op::AtomOp;
use crate::seq::types::SeqType;
use crate::seq::value::Value;
use crate::st::stream::{flatten, unflatten};
use crate::st::{Layout, StOp};
use egg::Id;

/// A value of type `t` restructured to the nesting of `layout` (same atoms in flat order).
fn relay(v: &Value, t: &SeqType, layout: &Layout) -> Value {
    unflatten(&flatten(v, t), &layout.to_seq())
}

impl StreamGraph<'_> {
    /// Lowers an input, parameter, constant, counter, atom operator or tuple constructor.
    pub(super) fn lower_leaf(&mut self, idx: usize, ctx: usize, l: &Layout, enode: &SeqLang) {
        match enode {
            SeqLang::Input(r) if ctx == 0 => {
                self.add_node(idx, How::Input(r.index as usize), vec![], None);
            }
            SeqLang::Arg([i, _]) => {
                let Some(i) = self.num(*i) else { return };
                let Some(Some(params)) = self.ctxs.get_index(ctx).cloned() else {
                    return;
                };
                let Some(p) = params.get(i as usize).cloned() else {
                    return;
                };
                if p.normalize() == l.normalize() {
                    self.add_node(idx, How::Arg(i as u8, p), vec![], None);
                } else if p.clocks() == l.clocks() {
                    let class = self.classes[idx].key.class;
                    self.add_reshape(idx, ctx, class, &p, l);
                }
            }
            SeqLang::Const([lit, t]) => {
                let (Sort::Lit(v), Sort::Type(t)) =
                    (&self.eg[*lit].data.sort, &self.eg[*t].data.sort)
                else {
                    return;
                };
                let value = relay(v, t, l);
                let op = StOp::Const {
                    value,
                    layout: l.clone(),
                    delay: 0,
                };
                self.add_node(idx, How::Op(op), vec![], None);
            }
            SeqLang::Counter([_, incr, _]) => {
                let Some(incr) = self.num(*incr) else { return };
                let op = StOp::Counter {
                    layout: l.clone(),
                    incr,
                    delay: 0,
                };
                self.add_node(idx, How::Op(op), vec![], None);
            }
            SeqLang::Atom(a, [x]) => self.lower_atom(idx, ctx, a.0, *x),
            SeqLang::Cast([t, x]) => {
                if let Sort::Type(SeqType::Scalar(to)) = &self.eg[*t].data.sort {
                    self.lower_atom(idx, ctx, AtomOp::Cast(*to), *x);
                }
            }
            SeqLang::ATuple([a, b]) => {
                let (Some(ta), Some(tb)) = (self.value_type(*a), self.value_type(*b)) else {
                    return;
                };
                let (Some(la), Some(lb)) =
                    (Layout::from_atom_type(&ta), Layout::from_atom_type(&tb))
                else {
                    return;
                };
                if let (Some(ka), Some(kb)) =
                    (self.request(ctx, *a, &la), self.request(ctx, *b, &lb))
                {
                    self.add_node(idx, How::Op(StOp::ATuple), vec![(ka, la), (kb, lb)], None);
                }
            }
            SeqLang::STuple([a, b]) => {
                let Layout::STuple(2, x) = l else { return };
                let x = (**x).clone();
                if let (Some(ka), Some(kb)) = (self.request(ctx, *a, &x), self.request(ctx, *b, &x))
                {
                    self.add_node(
                        idx,
                        How::Op(StOp::STuple),
                        vec![(ka, x.clone()), (kb, x)],
                        None,
                    );
                }
            }
            SeqLang::STupleAppend([a, b]) => {
                let Layout::STuple(k, x) = l else { return };
                if *k < 2 {
                    return;
                }
                let x = (**x).clone();
                let la = Layout::stuple(k - 1, x.clone());
                if let (Some(ka), Some(kb)) =
                    (self.request(ctx, *a, &la), self.request(ctx, *b, &x))
                {
                    self.add_node(
                        idx,
                        How::Op(StOp::STupleAppend),
                        vec![(ka, la), (kb, x)],
                        None,
                    );
                }
            }
            _ => {}
        }
    }

    /// Atom operator `op` on the atom `x`, requested in its atom layout.
    fn lower_atom(&mut self, idx: usize, ctx: usize, op: AtomOp, x: Id) {
        let Some(xt) = self.value_type(x) else {
            return;
        };
        let Some(lx) = Layout::from_atom_type(&xt) else {
            return;
        };
        let konst = self.constant_operand(x);
        if let Some(k) = self.request(ctx, x, &lx) {
            self.add_priced_node(idx, How::Op(StOp::Atom(op)), vec![(k, lx)], None, konst);
        }
    }

    /// The constant side of the atom tuple `x`, if one of its tuple e-nodes has a literal
    /// operand: `(1, 5)` for `(atuple v (const uint8 5))`. The area model prices a shift by
    /// a constant as wiring and a multiply by one as shift-and-add, so the node is measured
    /// with that constant in place ([`StreamGraph::add_priced_node`]).
    fn constant_operand(&self, x: Id) -> Option<(usize, u64)> {
        let literal = |c: Id| {
            self.eg[c].nodes.iter().find_map(|n| match n {
                SeqLang::Const([lit, t]) => {
                    match (&self.eg[*lit].data.sort, &self.eg[*t].data.sort) {
                        (Sort::Lit(Value::Scalar(v)), Sort::Type(SeqType::Scalar(_))) => Some(*v),
                        _ => None,
                    }
                }
                _ => None,
            })
        };
        self.eg[x].nodes.iter().find_map(|n| match n {
            SeqLang::ATuple([a, b]) => literal(*b)
                .map(|v| (1, v))
                .or_else(|| literal(*a).map(|v| (0, v))),
            _ => None,
        })
    }
}
