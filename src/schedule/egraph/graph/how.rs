//! Stream-node recipes ([`How`]) and their emission into a [`Design`]: nested maps and
//! Aetherling's reduce / `down_1d` / `up_1d` composites for split layer forms.

use super::super::super::slowdown::LayerForm;
use crate::schedule::lowering::{down_in, nested_map, reduce_in, up_split};
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
        How::Reduce { n, u, le } => reduce_in(d, *n, u, le, need_body()?, kids),
        How::Down { n, idx, u, le } => down_in(d, *n, *idx, u, le, kids),
        How::UpTS { no, io, ni, le } => up_split(d, (*no, *io, *ni), le, kids),
    }
}
