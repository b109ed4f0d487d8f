//! Unpartition case 7 (reference §4.5.8): with no direct lowering, try every two-layer
//! layout of the producer with the output's clocks and keep the one whose producer plus
//! reshape is smallest.
//!
//! The candidates are many at a large slowdown (every way to spread the idle clocks over
//! two layers), and each costs a lowering of the producer's whole cone, itself full of
//! searches. Three exact shortcuts cut that work (it still grows with the slowdown, less
//! steeply: `docs/scheduling.md`):
//!
//! - where a search may be keyed ([`SearchMemo`](super::lower::SearchMemo): nothing the
//!   producer reaches is lowered yet), a candidate's producer is lowered into a detached
//!   state holding only the program inputs it reaches, not a copy of the whole design, and
//!   its area is kept per producer forms: the searches of one producer for different output
//!   layouts share every candidate's lowering and pay only for their own reshapes
//!   (the area of a sub-design is the sum over its nodes, so producer plus reshape is the
//!   producer's area plus the reshape's own);
//! - at the top-level scope a candidate costs at least its reshape's area, which needs no
//!   lowering: candidates are taken in increasing order of a cheap bound on it (the
//!   reshape's storage), refined to the reshape's area, and once the bound passes the
//!   least cost found the rest cannot win ([`pick`]);
//! - inside a function body every candidate costs zero (its sub-design reads parameters
//!   and cannot be a design on its own), so the first one that lowers wins.
//!
//! All three give the candidate the full search keeps: the least cost, ties to the first in
//! Aetherling's order, and when none lowers, the last one's error.

use super::super::slowdown::{aetherling_forms, build_layout, LayerForm};
use super::lower::{Forms, Lowerer, ProducerCost, ProducerKey};
use super::tables::join;
use crate::seq::types::{ScalarType, SeqType};
use crate::seq::NodeId as SeqId;
use crate::st::area::{area, own_area, own_area_bound, Area, Weights};
use crate::st::{Design, Layout, NodeId as StId, StOp};
use LayerForm::{Space, Time, TimeSpace};

/// A layer is parallel if it puts more than one element on the wires at once.
fn parallel(f: &LayerForm, n: u64) -> bool {
    match f {
        Space => n > 1,
        TimeSpace { ni, .. } => *ni > 1,
        _ => false,
    }
}

/// The candidate producer forms (outer two layers) of a search: the two-layer layouts of
/// `no` x `ni` with the output layer's clocks, without parallel layers if the output layer
/// `r` is sequential.
fn candidates(r: &LayerForm, no: u64, ni: u64) -> Vec<Forms> {
    let periods = r.periods(no * ni);
    let shape = SeqType::seq(no, SeqType::seq(ni, ScalarType::Int8.into()));
    let sequential = matches!(r, Time { .. });
    aetherling_forms(&shape, periods)
        .into_iter()
        .map(|(cand, _)| cand)
        .filter(|cand| !(sequential && cand.iter().zip([no, ni]).any(|(f, n)| parallel(f, n))))
        .collect()
}

/// The reshape [`Lowerer::reshape`] adds after a producer laid out as `from` (none if
/// `from` is `to`), alone in a design, or why it cannot be built.
fn reshape_alone(from: &Layout, to: &Layout) -> Result<Option<(Design, StId)>, String> {
    if from == to {
        return Ok(None);
    }
    let mut d = Design::new("reshape");
    let x = d.add_input("x", from.clone())?;
    let op = StOp::Reshape {
        from: from.clone(),
        to: to.clone(),
    };
    let r = d.add(op, &[x])?;
    Ok(Some((d, r)))
}

/// The own area of that reshape.
fn reshape_area(from: &Layout, to: &Layout) -> Result<Area, String> {
    Ok(reshape_alone(from, to)?.map_or_else(Area::default, |(d, r)| own_area(&d, r)))
}

/// A lower bound on that area (its storage: see [`own_area_bound`]), or `None` if the
/// reshape cannot be built.
fn reshape_bound(from: &Layout, to: &Layout) -> Option<Area> {
    let Some((d, r)) = reshape_alone(from, to).ok()? else {
        return Some(Area::default());
    };
    Some(own_area_bound(&d, r))
}

impl Lowerer<'_> {
    /// Unpartition case 7 for producer `x` of `unpartition no ni` with output forms
    /// `r : rest` (the whole list is `forms`, of type `ty`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn unpartition_search(
        &mut self,
        ty: &SeqType,
        forms: &[LayerForm],
        x: SeqId,
        no: u64,
        ni: u64,
        r: &LayerForm,
        rest: &[LayerForm],
    ) -> Result<StId, String> {
        let out = build_layout(ty, forms);
        // listed only for a search that runs: a known winner needs none (listing them was a
        // tenth of demosaic's baseline at 4147200)
        let cands = || candidates(r, no, ni);
        let fail = |e: String| format!("unpartition {no} {ni}: {e}");
        let key = self.search_key(x, no, ni, ty, forms);
        let winner = match &key {
            Some(k) => {
                let known = self.search.borrow().winners.get(k).cloned();
                match known {
                    Some(cand) => cand,
                    None => {
                        let cands = cands();
                        let bounds = self.bounds(x, &cands, rest, &out);
                        let refine = |i: usize| self.reshape_cost(x, &cands[i], rest, &out);
                        let (i, ()) = pick(&bounds, refine, |i| {
                            let (a, from) =
                                self.producer(x, &join(cands[i].clone(), rest), &k.5)?;
                            let r = reshape_area(&from, &out)?;
                            Ok((a.map_or(0.0, |a| (a + r).scalar(&Weights::default())), ()))
                        })
                        .map_err(fail)?;
                        cands[i].clone()
                    }
                }
            }
            None => {
                // In a body a candidate's cost is zero (see `subdesign_area`).
                let in_body = self.in_body();
                let cands = cands();
                let bounds = match in_body {
                    true => vec![Some(0.0); cands.len()],
                    false => self.bounds(x, &cands, rest, &out),
                };
                let refine = |i: usize| match in_body {
                    true => Some(0.0),
                    false => self.reshape_cost(x, &cands[i], rest, &out),
                };
                let (_, (state, node)) = pick(&bounds, refine, |i| {
                    let mut trial = self.clone();
                    let xs = trial.lower(x, &join(cands[i].clone(), rest))?;
                    let node = trial.reshape(xs, out.clone())?;
                    let cost = trial.subdesign_area(node, &Weights::default());
                    Ok((cost, (trial, node)))
                })
                .map_err(fail)?;
                *self = state;
                return Ok(node);
            }
        };
        if let Some(k) = key {
            self.search.borrow_mut().winners.insert(k, winner.clone());
        }
        // Lowering the winner here builds what its trial built (see `SearchMemo`).
        let xs = self.lower(x, &join(winner, rest))?;
        self.reshape(xs, out)
    }

    /// Per candidate, a cheap lower bound on its cost: a bound on the own area of the
    /// reshape from the producer's layout (the lowering keeps the forms asked for) to `out`
    /// (`None`: that reshape cannot be built, so the candidate fails).
    fn bounds(
        &self,
        x: SeqId,
        cands: &[Forms],
        rest: &[LayerForm],
        out: &Layout,
    ) -> Vec<Option<f64>> {
        let w = Weights::default();
        cands
            .iter()
            .map(|c| {
                let from = self.layout(x, &join(c.clone(), rest));
                reshape_bound(&from, out).map(|a| a.scalar(&w))
            })
            .collect()
    }

    /// The own area of the reshape from candidate `cand`'s producer layout to `out`: a
    /// lower bound on its cost, tighter than [`Lowerer::bounds`] (`None`: it fails).
    fn reshape_cost(
        &self,
        x: SeqId,
        cand: &Forms,
        rest: &[LayerForm],
        out: &Layout,
    ) -> Option<f64> {
        let from = self.layout(x, &join(cand.clone(), rest));
        let a = reshape_area(&from, out).ok()?;
        Some(a.scalar(&Weights::default()))
    }

    /// The producer `x` lowered in `forms` on its own (see [`ProducerCost`]), once per
    /// [`ProducerKey`].
    fn producer(&self, x: SeqId, forms: &[LayerForm], inputs: &[Option<Forms>]) -> ProducerCost {
        let key: ProducerKey = (x, forms.to_vec(), inputs.to_vec());
        if let Some(got) = self.search.borrow().producers.get(&key) {
            return got.clone();
        }
        let got = self.cost_producer(x, forms);
        self.search.borrow_mut().producers.insert(key, got.clone());
        got
    }

    /// Lowers `x` in `forms` in a detached state: the area of what it builds (none if it
    /// reads a function parameter), and the layout it ends in.
    fn cost_producer(&self, x: SeqId, forms: &[LayerForm]) -> ProducerCost {
        let mut trial = self.detached()?;
        let xs = trial.lower(x, forms)?;
        let mut d = trial.into_design();
        let from = d.layout(xs).clone();
        let a = d.set_output(xs).ok().map(|()| area(&d).total);
        Ok((a, from))
    }

    /// Model area of everything `node` depends on (zero if `node` is inside a function
    /// body, where it cannot be a design output).
    fn subdesign_area(&self, node: StId, weights: &Weights) -> f64 {
        let mut d = self.d.clone();
        match d.set_output(node) {
            Ok(()) => area(&d).total.scalar(weights),
            Err(_) => 0.0,
        }
    }
}

/// The candidate of least cost, ties to the first: what costing every candidate in order
/// and keeping the first of least cost gives, and when none succeeds the last one's error.
///
/// Each candidate has a cheap lower bound on its cost (`None`: it fails), which `refine`
/// tightens (`None`: it fails). Candidates are taken in increasing order of (bound,
/// position): a cheap bound is refined and the candidate put back, a refined one is costed;
/// it stops once the next cannot beat the best found (its bound is above that cost, or
/// equal with a later position). A candidate of least cost has bounds at most that cost, so
/// the first of them is always costed.
fn pick<T>(
    bounds: &[Option<f64>],
    mut refine: impl FnMut(usize) -> Option<f64>,
    mut cost: impl FnMut(usize) -> Result<(f64, T), String>,
) -> Result<(usize, T), String> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    /// A bound ordered as a number (bounds are finite).
    #[derive(PartialEq)]
    struct Bound(f64);
    impl Eq for Bound {}
    impl PartialOrd for Bound {
        fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(o))
        }
    }
    impl Ord for Bound {
        fn cmp(&self, o: &Self) -> std::cmp::Ordering {
            self.0.total_cmp(&o.0)
        }
    }
    let mut queue: BinaryHeap<Reverse<(Bound, usize, bool)>> = (0..bounds.len())
        .filter_map(|i| bounds[i].map(|b| Reverse((Bound(b), i, false))))
        .collect();
    let mut best: Option<(f64, usize, T)> = None;
    let mut failed = vec![None; bounds.len()];
    let better = |c: f64, i: usize, best: &Option<(f64, usize, T)>| {
        best.as_ref()
            .is_none_or(|(bc, bi, _)| c < *bc || (c == *bc && i < *bi))
    };
    while let Some(Reverse((Bound(bound), i, refined))) = queue.pop() {
        if !better(bound, i, &best) {
            break;
        }
        if !refined {
            if let Some(r) = refine(i) {
                queue.push(Reverse((Bound(r.max(bound)), i, true)));
            }
            continue;
        }
        match cost(i) {
            Ok((c, t)) if better(c, i, &best) => best = Some((c, i, t)),
            Ok(_) => {}
            Err(e) => failed[i] = Some(e),
        }
    }
    if best.is_none() {
        // Every candidate with bounds failed; cost the others in order for the last error
        // (they fail too, the reshape after them being impossible).
        let mut last = String::from("no candidate layout");
        for (i, seen) in failed.into_iter().enumerate() {
            match seen.map_or_else(|| cost(i), Err) {
                Ok((c, t)) if better(c, i, &best) => best = Some((c, i, t)),
                Ok(_) => {}
                Err(e) => last = e,
            }
        }
        if best.is_none() {
            return Err(last);
        }
    }
    Ok(best.map(|(_, i, t)| (i, t)).expect("checked above"))
}

#[cfg(test)]
mod tests {
    use super::pick;
    use proptest::prelude::*;

    /// Costing every candidate in order and keeping the first of least cost, as
    /// Aetherling's search does; the error is the last candidate's.
    fn every(costs: &[Result<u32, u32>]) -> Result<usize, String> {
        let mut best: Option<(u32, usize)> = None;
        let mut last = String::from("no candidate layout");
        for (i, c) in costs.iter().enumerate() {
            match c {
                Ok(c) if best.is_none_or(|(b, _)| *c < b) => best = Some((*c, i)),
                Ok(_) => {}
                Err(e) => last = format!("error {e}"),
            }
        }
        best.map(|(_, i)| i).ok_or(last)
    }

    proptest! {
        /// With any lower bounds (a candidate without one fails), `pick` chooses what the
        /// full search chooses, and costs no candidate twice.
        #[test]
        fn pick_agrees_with_costing_every_candidate(
            cands in proptest::collection::vec((0u32..6, 0u32..4, any::<bool>(), any::<bool>()), 0..12)
        ) {
            // (cost, slack under the cost for the bound, fails, no bound (then it fails))
            let costs: Vec<Result<u32, u32>> = cands
                .iter()
                .enumerate()
                .map(|(i, &(c, _, fails, unbounded))| {
                    if fails || unbounded { Err(i as u32) } else { Ok(c) }
                })
                .collect();
            let bounds: Vec<Option<f64>> = cands
                .iter()
                .map(|&(c, slack, _, unbounded)| {
                    (!unbounded).then(|| f64::from(c.saturating_sub(slack)))
                })
                .collect();
            // A refined bound between the cheap one and the cost.
            let refined: Vec<Option<f64>> = cands
                .iter()
                .map(|&(c, slack, _, unbounded)| {
                    (!unbounded).then(|| f64::from(c.saturating_sub(slack / 2)))
                })
                .collect();
            let mut costed = vec![0; cands.len()];
            let got = pick(&bounds, |i| refined[i], |i| {
                costed[i] += 1;
                costs[i].map(|c| (f64::from(c), ())).map_err(|e| format!("error {e}"))
            })
            .map(|(i, ())| i);
            prop_assert_eq!(got, every(&costs));
            prop_assert!(costed.iter().all(|&n| n <= 1));
        }
    }

    /// The bound prunes: once a candidate of cost 1 is found, those bounded above 1 are
    /// never costed.
    #[test]
    fn candidates_bounded_above_the_best_are_not_costed() {
        let bounds = [Some(5.0), Some(1.0), Some(0.0), Some(7.0)];
        let costs = [5.0, 1.0, 3.0, 7.0];
        let mut costed = Vec::new();
        let got = pick(
            &bounds,
            |i| bounds[i],
            |i| {
                costed.push(i);
                Ok((costs[i], ()))
            },
        );
        assert_eq!(got, Ok((1, ())));
        assert_eq!(costed, vec![2, 1]);
    }
}
