//! The fast evaluator's peak memory on one frame, estimated from the program's types before
//! it runs (the budget of `tessera eval`, [`crate::util::budget`]).
//!
//! Every scalar costs [`SCALAR_BYTES`] (a `u32` and a don't-care flag) wherever it is held:
//! in the inputs' and the output's flat values, which live for the whole run, and in the
//! columns of the top scope's values, which live from the node that computes them to their
//! last use, as the evaluator drops them ([`super::super::scope::Scope::run`]). The
//! estimate is the flat values plus the largest set of values alive at once in evaluation
//! order. It is an upper bound where values share storage (`shift`, `partition` and
//! seq-tuples re-slice their input's columns) or repeat (constants are stored once);
//! bodies of `map` run in chunks of a few thousand elements and are not counted.

use super::super::flat::Shape;
use super::super::program::Program;
use super::super::scope::Scope;
use super::super::types::SeqType;

/// Bytes per scalar held: a `u32` and a don't-care flag.
pub const SCALAR_BYTES: u64 = 5;
/// Bytes per scalar of the reference interpreter's values (a tree node per atom).
pub const TREE_BYTES: u64 = 64;

/// Scalars in one value of `t`.
pub fn scalars(t: &SeqType) -> u64 {
    Shape::of(t).scalars() as u64
}

/// The most scalars the top scope of `p` holds at once in evaluation order.
pub fn peak_live_scalars(p: &Program) -> u64 {
    let scope = Scope::new(p, p.output);
    let size: Vec<u64> = scope.ids.iter().map(|id| scalars(p.ty(*id))).collect();
    let mut remaining = scope.uses.clone();
    let (mut live, mut peak) = (0u64, 0u64);
    for (k, args) in scope.args.iter().enumerate() {
        live = live.saturating_add(size[k]);
        peak = peak.max(live);
        for &a in args {
            remaining[a] -= 1;
            if remaining[a] == 0 {
                live -= size[a];
            }
        }
    }
    peak
}

/// The estimated peak bytes of evaluating `p` on one frame with the fast evaluator
/// (`reference`: with the reference interpreter, whose trees cost [`TREE_BYTES`] a scalar).
pub fn memory_estimate(p: &Program, reference: bool) -> u64 {
    let edges: u64 =
        p.inputs.iter().map(|i| scalars(&i.ty)).sum::<u64>() + scalars(p.output_type());
    let per = if reference { TREE_BYTES } else { SCALAR_BYTES };
    edges
        .saturating_add(peak_live_scalars(p))
        .saturating_mul(per)
}
