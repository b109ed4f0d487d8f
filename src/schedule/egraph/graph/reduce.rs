//! Lowering of `reduce`, `down_1d` and `up_1d`: the length-changing operators, with
//! Aetherling's input layer forms.

use super::super::super::slowdown::{divisors, LayerForm};
use super::how::How;
use super::layout::split_top;
use super::StreamGraph;
use crate::egraph::lang::SeqLang;
use crate::seq::types::SeqType;
use crate::st::{Layout, StOp};

/// The input layer form of a `reduce`/`down_1d` over `n` elements whose length-1 output
/// layer has form `r` (Aetherling's rule, reference §4.5.5).
fn shrink_input(r: &LayerForm, n: u64) -> Option<LayerForm> {
    let largest = |limit: u64| {
        divisors(n)
            .into_iter()
            .filter(|d| *d <= limit)
            .max()
            .unwrap_or(1)
    };
    match r {
        LayerForm::Space => Some(LayerForm::Space),
        LayerForm::Time { i: d } if d + 1 >= n => Some(LayerForm::Time { i: d + 1 - n }),
        LayerForm::Time { i: d }
        | LayerForm::TimeSpace {
            no: 1,
            io: d,
            ni: 1,
        } => {
            let no = if d + 1 >= n { n } else { largest(d + 1) };
            Some(LayerForm::TimeSpace {
                no,
                io: d + 1 - no,
                ni: n / no,
            })
        }
        LayerForm::Nested(levels) if levels.len() == 2 && levels[0].0 == 1 && levels[1].0 == 1 => {
            let (d0, d1) = (levels[0].1, levels[1].1);
            let no = divisors(n)
                .into_iter()
                .filter(|no| *no <= d0 + 1 && n / no <= d1 + 1)
                .max()?;
            let ni = n / no;
            Some(LayerForm::Nested(vec![
                (no, d0 + 1 - no),
                (ni, d1 + 1 - ni),
            ]))
        }
        _ => None,
    }
}

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
