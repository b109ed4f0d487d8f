//! Lowering pieces both schedulers share: nesting maps over the layers of a layout form,
//! and the space-time shift operator of each form (reference §4.5.2–§4.5.3).

use super::slowdown::{divisors, LayerForm};
use crate::seq::value::Value;
use crate::st::design::BodyId;
use crate::st::{Design, Layout, NodeId as StId, StOp};

/// One layer of a nested map: in space (`map_s`) or in time (`map_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wrap {
    S(u64),
    T(u64, u64),
}

/// The map layers that implement one layer form of length `n`.
pub fn wraps(form: &LayerForm, n: u64) -> Vec<Wrap> {
    match form {
        LayerForm::Space => vec![Wrap::S(n)],
        LayerForm::Time { i } => vec![Wrap::T(n, *i)],
        LayerForm::TimeSpace { no, io, ni } => vec![Wrap::T(*no, *io), Wrap::S(*ni)],
        LayerForm::Nested(levels) => levels.iter().map(|(k, i)| Wrap::T(*k, *i)).collect(),
        LayerForm::Mixed { no, io, ii, ni } => {
            vec![Wrap::T(*no, *io), Wrap::T(1, *ii), Wrap::S(*ni)]
        }
    }
}

/// Wraps `inner` in the layers `ws` (outermost first).
pub fn apply_wraps(ws: &[Wrap], inner: Layout) -> Layout {
    ws.iter().rev().fold(inner, |acc, w| match w {
        Wrap::S(n) => Layout::sseq(*n, acc),
        Wrap::T(n, i) => Layout::tseq(*n, *i, acc),
    })
}

/// `map` over the layers `ws` (outermost first) of `body`, whose parameters have layouts
/// `params`; `inputs` are the producers (one, or two for `map2`).
pub fn nested_map(
    d: &mut Design,
    ws: &[Wrap],
    body: BodyId,
    params: &[Layout],
    inputs: &[StId],
) -> Result<StId, String> {
    let op_body = if ws.len() == 1 {
        body
    } else {
        let inner: Vec<Layout> = params
            .iter()
            .map(|p| apply_wraps(&ws[1..], p.clone()))
            .collect();
        d.body_with(inner, |d, args| nested_map(d, &ws[1..], body, params, args))?
    };
    let op = match (ws[0], inputs.len()) {
        (Wrap::S(n), 1) => StOp::MapS { n, body: op_body },
        (Wrap::S(n), _) => StOp::Map2S { n, body: op_body },
        (Wrap::T(n, i), 1) => StOp::MapT {
            n,
            i,
            body: op_body,
        },
        (Wrap::T(n, i), _) => StOp::Map2T {
            n,
            i,
            body: op_body,
        },
    };
    d.add(op, inputs)
}

/// The shift operator that shifts a `seq n` laid out in form `r` over elements `le`, with
/// the optional `init` value of one element. Mixed layouts have no shift operator.
pub fn shift_op(
    r: &LayerForm,
    n: u64,
    amount: u64,
    le: Layout,
    init: Option<Value>,
) -> Result<StOp, String> {
    Ok(match r.clone() {
        LayerForm::Space => StOp::ShiftS {
            n,
            amount,
            elem: le,
            init,
        },
        LayerForm::Time { i } => StOp::ShiftT {
            n,
            i,
            amount,
            elem: le,
            init,
        },
        LayerForm::TimeSpace { no, io, ni: 1 } => {
            let elem = Layout::sseq(1, le);
            let init = init.map(|v| Value::List(vec![v]));
            StOp::ShiftT {
                n: no,
                i: io,
                amount,
                elem,
                init,
            }
        }
        LayerForm::TimeSpace { no, io, ni } => StOp::ShiftTS {
            no,
            io,
            ni,
            amount,
            elem: le,
            init,
        },
        LayerForm::Nested(levels) => StOp::ShiftTN {
            no: levels[0].0,
            io: levels[0].1,
            nis: levels[1..].iter().map(|l| l.0).collect(),
            iis: levels[1..].iter().map(|l| l.1).collect(),
            amount,
            elem: le,
            init,
        },
        LayerForm::Mixed { .. } => return Err("shift: no lowering for mixed layouts".into()),
    })
}

/// `reduce n` whose input layer has form `u` (elements `le`), with reducer `body`, applied
/// to `kids`: `reduce_s`/`reduce_t`, or Aetherling's composites for split forms
/// (reference §4.5.6; the nested form uses the inner invalid count).
pub fn reduce_in(
    d: &mut Design,
    n: u64,
    u: &LayerForm,
    le: &Layout,
    body: BodyId,
    kids: &[StId],
) -> Result<StId, String> {
    let b = body;
    match u {
        LayerForm::Space => d.add(
            StOp::ReduceS {
                n,
                body: b,
                regs: Vec::new(),
            },
            kids,
        ),
        LayerForm::Time { i } => d.add(StOp::ReduceT { n, i: *i, body: b }, kids),
        LayerForm::TimeSpace { no, io, ni } => {
            let (no, io, ni) = (*no, *io, *ni);
            let inner = d.body_with(vec![Layout::sseq(ni, le.clone())], |d, a| {
                d.add(
                    StOp::ReduceS {
                        n: ni,
                        body: b,
                        regs: Vec::new(),
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
            let combine = d.body_with(vec![Layout::sseq(1, le.zipped_pair())], |d, a| {
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
            let combine = d.body_with(vec![Layout::tseq(1, k, le.zipped_pair())], |d, a| {
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

/// `down_1d n idx` whose input layer has form `u` (elements `le`), applied to `kids`
/// (reference §4.5.5).
pub fn down_in(
    d: &mut Design,
    n: u64,
    idx: u64,
    u: &LayerForm,
    le: &Layout,
    kids: &[StId],
) -> Result<StId, String> {
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

/// `up_1d` to `tseq no io (sseq ni le)`: `up_t` of the element, then `map_t (up_s ni)`.
pub fn up_split(
    d: &mut Design,
    (no, io, ni): (u64, u64, u64),
    le: &Layout,
    kids: &[StId],
) -> Result<StId, String> {
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

/// The input layer form of a `reduce`/`down_1d` over `n` elements whose length-1 output
/// layer has form `r` (Aetherling's rule, reference §4.5.5).
pub fn shrink_input(r: &LayerForm, n: u64) -> Option<LayerForm> {
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
