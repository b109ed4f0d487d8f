//! Stream-node recipes ([`How`]) and their emission into a [`Design`].

use crate::schedule::lower::Instance;
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
    /// An instance of a lowering rule (`rules/lower/`).
    Lower(Instance),
}

/// Emits the node `how` into `d` over the children `kids` (and body `body`).
pub fn emit(
    d: &mut Design,
    how: &How,
    kids: &[StId],
    body: Option<BodyId>,
) -> Result<StId, String> {
    match how {
        How::Input(_) | How::Arg(..) => Err("inputs and parameters are not emitted".into()),
        How::Relabel => kids
            .first()
            .copied()
            .ok_or_else(|| "relabel of nothing".into()),
        How::Op(op) => d.add(op.clone(), kids),
        How::Lower(inst) => inst.emit(d, kids, body),
    }
}
