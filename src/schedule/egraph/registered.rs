//! A second selection for designs made for a clock: every operator priced with a register
//! after it.
//!
//! The extraction ranks a class's nodes by model area without pipeline registers; only the
//! finished candidates are pipelined for the clock ([`crate::st::pipeline`]) and compared.
//! Where the cheapest selection without registers needs many of them (a tree of adders
//! split by registers in its middle, a reshape after it) and a slightly larger one needs
//! few (an accumulator, whose storage is its own register), the first loses at the clock:
//! `reduce 6 add` at slowdown 3 costs 56 unpipelined and 80 at 225 MHz as the cheapest
//! selection gives it, while the accumulator design Aetherling's algorithm builds costs 59
//! and 67. Pricing each logic operator that holds no storage with a register on its output
//! (as the baseline registers every operator) ranks the second selection first; the
//! scheduler builds and pipelines both selections of a root and keeps the smaller design,
//! so this can only make a design smaller.

use super::extract::{choose_scan, Choice, Chosen, Scan};
use super::graph::{SNode, StreamGraph};
use crate::st::area::Weights;

/// A node's own cost with a register after it: its model area, plus the flip-flops of its
/// output per clock if it is logic (or multipliers) without storage of its own. Wiring
/// needs no register, and storage (FIFOs, reshapes, accumulators) already ends in one.
pub fn registered_cost(nd: &SNode, w: &Weights) -> f64 {
    let own = nd.own.scalar(w);
    let logic = nd.own.logic > 0 || nd.own.dsp > 0;
    let storage = nd.own.ff_bits > 0 || nd.own.ram_bits > 0;
    if logic && !storage {
        own + nd.out.bits_per_clock() as f64 * w.ff_bit
    } else {
        own
    }
}

/// The greedy selection of `g` under [`registered_cost`].
pub fn choose_registered(g: &StreamGraph, w: &Weights) -> Chosen {
    choose_scan(g, Scan::priced(g, &|nd| registered_cost(nd, w)))
}

/// Whether the selections `a` and `b` pick the same node in every class `a`'s selection
/// rooted at `root` reaches (then they denote the same design, built once).
pub fn same_selection(g: &StreamGraph, a: &Choice, b: &Choice, root: usize) -> bool {
    let mut seen = vec![false; g.classes.len()];
    let mut stack = vec![root];
    while let Some(c) = stack.pop() {
        if std::mem::replace(&mut seen[c], true) {
            continue;
        }
        if a[c].1 != b[c].1 {
            return false;
        }
        let Some(ni) = a[c].1 else { continue };
        let nd = &g.classes[c].nodes[ni];
        stack.extend(nd.kids.iter().map(|(k, _)| *k));
        stack.extend(nd.body.as_ref().map(|(b, _, _)| *b));
    }
    true
}
