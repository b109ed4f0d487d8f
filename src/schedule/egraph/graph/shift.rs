//! Lowering of `shift`: one shift operator per layer form of the output.

use super::how::How;
use super::layout::split_top;
use super::StreamGraph;
use crate::egraph::analysis::Sort;
use crate::egraph::lang::SeqLang;
use crate::schedule::lowering::shift_op;
use crate::seq::types::SeqType;
use crate::seq::value::Value;
use crate::st::Layout;

impl StreamGraph<'_> {
    /// Lowers a `shift`.
    pub(super) fn lower_shift(
        &mut self,
        idx: usize,
        ctx: usize,
        ty: &SeqType,
        l: &Layout,
        enode: &SeqLang,
    ) {
        let elem_of = |t: &SeqType| t.as_seq().map(|(_, e)| e.clone());
        let SeqLang::Shift([n, amount, init, x]) = enode else {
            return;
        };
        let (Some(n), Some(amount), Some(e)) = (self.num(*n), self.num(*amount), elem_of(ty))
        else {
            return;
        };
        let init = match &self.eg[*init].data.sort {
            Sort::Lit(Value::Undef) => None,
            Sort::Lit(v) => Some(v.clone()),
            _ => return,
        };
        for (r, le) in split_top(l, n, &e) {
            let init = init.clone();
            // Mixed layouts have no shift operator: no node for this view.
            let Ok(op) = shift_op(&r, n, amount, le, init) else {
                continue;
            };
            if let Some(kx) = self.request(ctx, *x, l) {
                self.add_node(idx, How::Op(op), vec![(kx, l.clone())], None);
            }
        }
    }
}
