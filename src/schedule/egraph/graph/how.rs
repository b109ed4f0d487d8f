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
    /// One space-time operator without a body.
    Op(StOp),
    /// An instance of a lowering rule (`rules/lower/`).
    Lower(Instance),
}

impl How {
    /// True for a relabel: a rule instance that builds nothing (its term is its producer,
    /// in a layout with the same wires), so it has no area of its own.
    pub fn is_relabel(&self) -> bool {
        matches!(self, How::Lower(inst) if inst.is_relabel())
    }
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
        How::Op(op) => d.add(op.clone(), kids),
        How::Lower(inst) => inst.emit(d, kids, body),
    }
}
