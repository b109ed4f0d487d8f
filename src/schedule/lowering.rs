//! Lowering pieces both schedulers share: nesting maps over the layers of a layout form,
//! and the space-time shift operator of each form (reference §4.5.2–§4.5.3).

use super::slowdown::LayerForm;
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
