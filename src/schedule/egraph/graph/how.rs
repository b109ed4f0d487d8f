//! Stream-node recipes ([`How`]) and their emission into a [`Design`]: nested maps and
//! Aetherling's reduce / `down_1d` / `up_1d` composites for split layer forms.

use super::super::super::slowdown::LayerForm;
use crate::schedule::lowering::nested_map;
pub use crate::schedule::lowering::{wraps, Wrap};
use crate::st::design::BodyId;
use crate::st::{Design, Layout, NodeId as StId, StOp};

/// How a stream node is built from its children's nodes (and its body).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum How {
    /// Program input `k`.
    Input(usize),
    /// Parameter `k` of the enclosing body, with its exact layout.
    Arg(u8, Layout),
    /// The same wires as child 0 (a flat-order-preserving operator).
    Relabel,
    /// One space-time operator without a body.
    Op(StOp),
    /// A (nested) map of the body; one child (`map`) or two (`map2`).
    Map {
        /// The layers, outermost first.
        ws: Vec<Wrap>,
        /// The body's parameter layouts.
        params: Vec<Layout>,
    },
    /// A reduce whose input layer has form `u` (Aetherling's composites for split forms).
    Reduce {
        /// Length reduced.
        n: u64,
        /// The input layer's form.
        u: LayerForm,
        /// The element layout.
        le: Layout,
    },
    /// A `down_1d` whose input layer has form `u`.
    Down {
        /// Length.
        n: u64,
        /// Index kept.
        idx: u64,
        /// The input layer's form.
        u: LayerForm,
        /// The element layout.
        le: Layout,
    },
    /// `up_1d` to `tseq no io (sseq ni le)`: `up_t` of the element then `map_t (up_s)`.
    UpTS {
        /// Outer length.
        no: u64,
        /// Outer invalid periods.
        io: u64,
        /// Lanes.
        ni: u64,
        /// The element layout.
        le: Layout,
    },
}

/// Emits the node `how` into `d` over the children `kids` (and body `body`).
pub fn emit(
    d: &mut Design,
    how: &How,
    kids: &[StId],
    body: Option<BodyId>,
) -> Result<StId, String> {
    let need_body = || body.ok_or_else(|| "a higher-order node without its body".to_string());
    match how {
        How::Input(_) | How::Arg(..) => Err("inputs and parameters are not emitted".into()),
        How::Relabel => kids
            .first()
            .copied()
            .ok_or_else(|| "relabel of nothing".into()),
        How::Op(op) => d.add(op.clone(), kids),
        How::Map { ws, params } => nested_map(d, ws, need_body()?, params, kids),
        How::Reduce { n, u, le } => {
            let (n, b) = (*n, need_body()?);
            match u {
                LayerForm::Space => d.add(StOp::ReduceS { n, body: b }, kids),
                LayerForm::Time { i } => d.add(StOp::ReduceT { n, i: *i, body: b }, kids),
                LayerForm::TimeSpace { no, io, ni } => {
                    let (no, io, ni) = (*no, *io, *ni);
                    let inner = d.body_with(vec![Layout::sseq(ni, le.clone())], |d, a| {
                        d.add(StOp::ReduceS { n: ni, body: b }, a)
                    })?;
                    let partial = d.add(
                        StOp::MapT {
                            n: no,
                            i: io,
                            body: inner,
                        },
                        kids,
                    )?;
                    let combine = d
                        .body_with(vec![Layout::sseq(1, le.zipped_pair())], |d, a| {
                            d.add(StOp::MapS { n: 1, body: b }, a)
                        })?;
                    d.add(
                        StOp::ReduceT {
                            n: no,
                            i: io,
                            body: combine,
                        },
                        &[partial],
                    )
                }
                LayerForm::Nested(levels) if levels.len() == 2 => {
                    let ((no, io), (ni, ii)) = (levels[0], levels[1]);
                    let inner = d.body_with(vec![Layout::tseq(ni, ii, le.clone())], |d, a| {
                        d.add(
                            StOp::ReduceT {
                                n: ni,
                                i: ii,
                                body: b,
                            },
                            a,
                        )
                    })?;
                    let partial = d.add(
                        StOp::MapT {
                            n: no,
                            i: io,
                            body: inner,
                        },
                        kids,
                    )?;
                    let k = ni + ii - 1;
                    let combine =
                        d.body_with(vec![Layout::tseq(1, k, le.zipped_pair())], |d, a| {
                            d.add(
                                StOp::MapT {
                                    n: 1,
                                    i: k,
                                    body: b,
                                },
                                a,
                            )
                        })?;
                    d.add(
                        StOp::ReduceT {
                            n: no,
                            i: io,
                            body: combine,
                        },
                        &[partial],
                    )
                }
                other => Err(format!("reduce: no lowering for the input form {other:?}")),
            }
        }
        How::Down { n, idx, u, le } => {
            let (n, idx) = (*n, *idx);
            match u {
                LayerForm::Space => d.add(
                    StOp::DownS {
                        n,
                        idx,
                        elem: le.clone(),
                    },
                    kids,
                ),
                LayerForm::Time { i } => d.add(
                    StOp::DownT {
                        n,
                        i: *i,
                        idx,
                        elem: le.clone(),
                    },
                    kids,
                ),
                LayerForm::TimeSpace { no, io, ni } => {
                    let (no, io, ni) = (*no, *io, *ni);
                    let picked = d.add(
                        StOp::DownT {
                            n: no,
                            i: io,
                            idx: idx / ni,
                            elem: Layout::sseq(ni, le.clone()),
                        },
                        kids,
                    )?;
                    let inner = d.body_with(vec![Layout::sseq(ni, le.clone())], |d, a| {
                        d.add(
                            StOp::DownS {
                                n: ni,
                                idx: idx % ni,
                                elem: le.clone(),
                            },
                            a,
                        )
                    })?;
                    d.add(
                        StOp::MapT {
                            n: 1,
                            i: no + io - 1,
                            body: inner,
                        },
                        &[picked],
                    )
                }
                LayerForm::Nested(levels) if levels.len() == 2 => {
                    let ((no, io), (ni, ii)) = (levels[0], levels[1]);
                    let picked = d.add(
                        StOp::DownT {
                            n: no,
                            i: io,
                            idx: idx / ni,
                            elem: Layout::tseq(ni, ii, le.clone()),
                        },
                        kids,
                    )?;
                    let inner = d.body_with(vec![Layout::tseq(ni, ii, le.clone())], |d, a| {
                        d.add(
                            StOp::DownT {
                                n: ni,
                                i: ii,
                                idx: idx % ni,
                                elem: le.clone(),
                            },
                            a,
                        )
                    })?;
                    d.add(
                        StOp::MapT {
                            n: 1,
                            i: no + io - 1,
                            body: inner,
                        },
                        &[picked],
                    )
                }
                other => Err(format!("down_1d: no lowering for the input form {other:?}")),
            }
        }
        How::UpTS { no, io, ni, le } => {
            let (no, io, ni) = (*no, *io, *ni);
            let rep = d.add(
                StOp::UpT {
                    n: no,
                    i: io,
                    elem: Layout::sseq(1, le.clone()),
                },
                kids,
            )?;
            let inner = d.body_with(vec![Layout::sseq(1, le.clone())], |d, a| {
                d.add(
                    StOp::UpS {
                        n: ni,
                        elem: le.clone(),
                    },
                    a,
                )
            })?;
            d.add(
                StOp::MapT {
                    n: no,
                    i: io,
                    body: inner,
                },
                &[rep],
            )
        }
    }
}
