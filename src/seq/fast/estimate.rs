//! The fast evaluator's peak memory on one frame, estimated from the program's types before
//! it runs (the budget of `tessera eval`, [`crate::util::budget`]).
//!
//! Every scalar of an input or the output is held as a flat value (a `u32` and an
//! undefined flag: 5 bytes) and as a column (4 bytes): 9 bytes. A value of the program's
//! top scope is a column, 5 bytes a scalar with its flags. Counting every top-scope value
//! as alive at once is an upper bound for chains (values are dropped after their last
//! use) and exact for a program whose values all meet at its output; bodies of `map` run
//! in chunks of a few thousand elements and are not counted.

use super::super::flat::Shape;
use super::super::program::Program;
use super::super::types::SeqType;

/// Bytes per scalar of an input or the output.
pub const EDGE_BYTES: u64 = 9;
/// Bytes per scalar of a value computed in the top scope.
pub const VALUE_BYTES: u64 = 5;
/// Bytes per scalar of the reference interpreter's values (a tree node per atom).
pub const TREE_BYTES: u64 = 64;

/// Scalars in one value of `t`.
pub fn scalars(t: &SeqType) -> u64 {
    Shape::of(t).scalars() as u64
}

/// The estimated peak bytes of evaluating `p` on one frame with the fast evaluator
/// (`reference`: with the reference interpreter, whose trees cost [`TREE_BYTES`] a scalar).
pub fn memory_estimate(p: &Program, reference: bool) -> u64 {
    let edges: u64 =
        p.inputs.iter().map(|i| scalars(&i.ty)).sum::<u64>() + scalars(p.output_type());
    let inner: u64 = p
        .scope(p.output)
        .into_iter()
        .filter(|id| *id != p.output && !p.inputs.iter().any(|i| i.node == *id))
        .map(|id| scalars(p.ty(id)))
        .sum();
    if reference {
        (edges + inner).saturating_mul(TREE_BYTES)
    } else {
        edges
            .saturating_mul(EDGE_BYTES)
            .saturating_add(inner.saturating_mul(VALUE_BYTES))
    }
}
