//! Refinement of a root's selection by the area of the design it builds.
//!
//! The extraction prices a selection by its operators' model area (its DAG cost). The
//! design built from it also gets the FIFOs that match latencies where paths join and, for
//! a clock, the pipeline registers, which the extraction cannot price class by class: a
//! selection cheaper by DAG cost can build the larger design. Seed 17 of
//! `tests/search_random.rs` at slowdown 6: keeping element 3 of a shifted stream through
//! its nested lanes (DAG cost below the direct selection's) built a design of 85.5 with
//! two FIFOs on the lanes, against 77 for the direct `down_1d_t` after the shift.
//!
//! So, in a graph small enough, a root's selection is refined against built designs: one
//! class at a time switches to another of its nodes, cheapest switched selection (by DAG
//! cost) first; the switched selection is built only if its DAG cost is below the best
//! built area so far (the operators alone already cost more otherwise), and kept if its
//! design is smaller. The builds are bounded per root ([`BUILDS`] by default), and the
//! refinement can only make a root's design smaller.

use super::extract::{dag_cost, Choice};
use super::graph::{How, StreamGraph};
use crate::st::area::Weights;
use crate::st::Layout;
use std::collections::BTreeSet;

/// By default ([`super::Options::refine_builds`]), at most this many switched selections
/// are built per root. On the random programs of `tests/search_random.rs` nearly every
/// kept switch is among a root's first two builds
/// (seeds 0..200 with 24 builds: 416 of 672 kept switches were the first build, 166 the
/// second); 2, 4, 8 and 24 builds give the same losses on seeds 0..200 (none) and 2 and 8
/// the same on seeds 200..400 (one), at 1.43x and 2.15x the run's time without refinement.
pub const BUILDS: usize = 2;

/// What a refinement aims for and may spend.
#[derive(Clone, Copy, Debug)]
pub struct Aim {
    /// Only designs smaller than this are kept (the root's own design's area, or less).
    pub below: f64,
    /// At most this many switched selections are built.
    pub builds: usize,
}

/// Refines `choice` (a selection rooted at `root`) by built area, towards designs smaller
/// than `aim.below`, building at most `aim.builds` switched selections. `build` builds a
/// selection and keeps its design if it is to be taken: smaller than `aim.below` and than
/// every design it kept before (and, for a clock, as fast); it returns that design's area
/// if it kept it, else `None`. `choice` ends as the selection of the last design kept (or
/// as it was). `input_ok(k, norm)` says whether program input `k` may be declared in a
/// layout of normal form `norm`.
pub fn refine(
    g: &StreamGraph,
    choice: &mut Choice,
    root: usize,
    w: &Weights,
    aim: Aim,
    input_ok: &dyn Fn(usize, &Layout) -> bool,
    build: &mut dyn FnMut(&Choice) -> Option<f64>,
) {
    // the least design's area: only switches whose operators cost less are built
    let mut least = aim.below;
    let mut builds = 0;
    // each switch is built once: after one is kept, switching back is not tried either
    let mut tried = BTreeSet::new();
    while builds < aim.builds {
        let mut improved = false;
        for (_, c, alt) in switches(g, choice, root, w, least, input_ok) {
            if builds == aim.builds {
                break;
            }
            let Some(cur) = choice[c].1 else { continue };
            if !tried.insert((c, alt)) {
                continue;
            }
            builds += 1;
            choice[c].1 = Some(alt);
            if let Some(a) = build(choice) {
                least = a;
                tried.insert((c, cur));
                improved = true;
                break;
            }
            choice[c].1 = Some(cur);
        }
        if !improved {
            break;
        }
    }
}

/// Every switch of one class reachable from `root` to another node whose children have a
/// selection, with the switched selection's DAG cost below `below` and not equal to the
/// current selection's: (that cost, class, node), cheapest first (ties by class and node,
/// so the order is the same every run).
fn switches(
    g: &StreamGraph,
    choice: &mut Choice,
    root: usize,
    w: &Weights,
    below: f64,
    input_ok: &dyn Fn(usize, &Layout) -> bool,
) -> Vec<(f64, usize, usize)> {
    let mut out = Vec::new();
    let now = dag_cost(g, choice, root, w);
    for c in super::extract::reachable(g, choice, root) {
        let Some(cur) = choice[c].1 else { continue };
        for (alt, nd) in g.classes[c].nodes.iter().enumerate() {
            if alt == cur {
                continue;
            }
            if let How::Input(k) = *nd.how {
                if !input_ok(k, &g.classes[c].key.norm) {
                    continue;
                }
            }
            let finite = |k: usize| choice[k].0.is_finite();
            if !nd.kids.iter().all(|(k, _)| finite(*k))
                || !nd.body.as_ref().is_none_or(|(b, _, _)| finite(*b))
            {
                continue;
            }
            choice[c].1 = Some(alt);
            let cost = dag_cost(g, choice, root, w);
            choice[c].1 = Some(cur);
            if cost < below - 1e-9 && (cost - now).abs() > 1e-9 {
                out.push((cost, c, alt));
            }
        }
    }
    // of a class's switches of equal cost, the first only: they are most often one design
    // reached through free relabels
    out.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.total_cmp(&b.0)).then(a.2.cmp(&b.2)));
    out.dedup_by(|b, a| a.1 == b.1 && (a.0 - b.0).abs() <= 1e-9);
    out.sort_by(|a, b| a.0.total_cmp(&b.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    out
}
