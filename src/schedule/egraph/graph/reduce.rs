//! Lowering of `reduce`, `down_1d` and `up_1d`: the length-changing operators, with
//! Aetherling's input layer forms.

use super::super::super::slowdown::LayerForm;
use super::how::How;
use super::layout::split_top;
use super::StreamGraph;
use crate::egraph::lang::SeqLang;
use crate::schedule::lowering::shrink_input;
use crate::seq::types::SeqType;
use crate::st::{Layout, StOp};

impl StreamGraph<'_> {
    /// Lowers a `reduce`, `down_1d` or `up_1d`.
    pub(super) fn lower_resize(
        &mut self,
        idx: usize,
        ctx: usize,
        ty: &SeqType,
        l: &Layout,
        enode: &SeqLang,
    ) {
        let elem_of = |t: &SeqType| t.as_seq().map(|(_, e)| e.clone());
        match enode {
            SeqLang::Reduce([n, f, x]) => {
                let (Some(n), Some(e)) = (self.num(*n), elem_of(ty)) else {
                    return;
                };
                for (r, le) in split_top(l, 1, &e) {
                    let Some(u) = shrink_input(&r, n) else {
                        continue;
                    };
                    let lx = u.apply(n, le.clone());
                    let params = vec![le.zipped_pair()];
                    let bctx = self.ctxs.insert_full(Some(params.clone())).0;
                    let (Some(kx), Some(kb)) =
                        (self.request(ctx, *x, &lx), self.request(bctx, *f, &le))
                    else {
                        continue;
                    };
                    let how = How::Reduce {
                        n,
                        u,
                        le: le.clone(),
                    };
                    self.add_node(idx, how, vec![(kx, lx)], Some((kb, params, le)));
                }
            }
            SeqLang::Down([n, i, x]) => {
                let (Some(n), Some(i), Some(e)) = (self.num(*n), self.num(*i), elem_of(ty)) else {
                    return;
                };
                for (r, le) in split_top(l, 1, &e) {
                    let Some(u) = shrink_input(&r, n) else {
                        continue;
                    };
                    let lx = u.apply(n, le.clone());
                    if let Some(kx) = self.request(ctx, *x, &lx) {
                        let how = How::Down { n, idx: i, u, le };
                        self.add_node(idx, how, vec![(kx, lx)], None);
                    }
                }
            }
            SeqLang::Up([n, x]) => {
                let (Some(n), Some(e)) = (self.num(*n), elem_of(ty)) else {
                    return;
                };
                for (r, le) in split_top(l, n, &e) {
                    let (how, lx) = match r {
                        LayerForm::Space => (
                            How::Op(StOp::UpS {
                                n,
                                elem: le.clone(),
                            }),
                            Layout::sseq(1, le),
                        ),
                        LayerForm::Time { i } => (
                            How::Op(StOp::UpT {
                                n,
                                i,
                                elem: le.clone(),
                            }),
                            Layout::tseq(1, n - 1 + i, le),
                        ),
                        LayerForm::TimeSpace { no, io, ni } => (
                            How::UpTS {
                                no,
                                io,
                                ni,
                                le: le.clone(),
                            },
                            Layout::tseq(1, no + io - 1, Layout::sseq(1, le)),
                        ),
                        _ => continue,
                    };
                    if let Some(kx) = self.request(ctx, *x, &lx) {
                        self.add_node(idx, how, vec![(kx, lx)], None);
                    }
                }
            }
            _ => {}
        }
    }
}
