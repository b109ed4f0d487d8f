//! Unpartition case 7 (reference §4.5.8): with no direct lowering, try every two-layer
//! layout of the producer with the output's clocks and keep the one whose producer plus
//! reshape is smallest.
//!
//! The candidates are many at a large slowdown (every way to spread the idle clocks over
//! two layers), and each costs a lowering of the producer's whole cone, itself full of
//! searches. Two exact shortcuts keep that from growing with the slowdown's divisors:
//!
//! - where a search may be keyed ([`SearchMemo`](super::lower::SearchMemo): nothing the
//!   producer reaches is lowered yet), a candidate's producer is lowered into a detached
//!   state holding only the program inputs it reaches, not a copy of the whole design, and
//!   its area is kept per producer forms: the searches of one producer for different output
//!   layouts share every candidate's lowering and pay only for their own reshapes
//!   (the area of a sub-design is the sum over its nodes, so producer plus reshape is the
//!   producer's area plus the reshape's own);
//! - a candidate of zero area ends the search: no later one can be strictly smaller, and
//!   ties go to the first (inside a function body every candidate costs zero, as its
//!   sub-design reads parameters and cannot be a design on its own).

use super::super::slowdown::{aetherling_forms, build_layout, LayerForm};
use super::lower::{Forms, Lowerer, ProducerCost, ProducerKey, SearchKey};
use super::tables::join;
use crate::seq::types::{ScalarType, SeqType};
use crate::seq::NodeId as SeqId;
use crate::st::area::{area, own_area, Area, Weights};
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

/// The own area of a reshape from `from` to `to` (none if they are equal), or why it
/// cannot be built: what [`Lowerer::reshape`] adds after a producer laid out as `from`.
fn reshape_area(from: &Layout, to: &Layout) -> Result<Area, String> {
    if from == to {
        return Ok(Area::default());
    }
    let mut d = Design::new("reshape");
    let x = d.add_input("x", from.clone())?;
    let r = d.add(
        StOp::Reshape {
            from: from.clone(),
            to: to.clone(),
        },
        &[x],
    )?;
    Ok(own_area(&d, r))
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
        let key = self.search_key(x, no, ni, ty, forms);
        let winner = match &key {
            Some(k) => {
                let known = self.search.borrow().winners.get(k).cloned();
                match known {
                    Some(cand) => cand,
                    None => self.keyed_search(k, ty, forms, x, no, ni, r, rest)?,
                }
            }
            None => return self.full_search(ty, forms, x, no, ni, r, rest),
        };
        if let Some(k) = key {
            self.search.borrow_mut().winners.insert(k, winner.clone());
        }
        // Lowering the winner here builds what its trial built (see `SearchMemo`).
        let xs = self.lower(x, &join(winner, rest))?;
        self.reshape(xs, build_layout(ty, forms))
    }

    /// The winning candidate of a keyed search: each candidate's producer is lowered once
    /// per [`ProducerKey`] in a detached state, and costed with its reshape to the output.
    #[allow(clippy::too_many_arguments)]
    fn keyed_search(
        &mut self,
        key: &SearchKey,
        ty: &SeqType,
        forms: &[LayerForm],
        x: SeqId,
        no: u64,
        ni: u64,
        r: &LayerForm,
        rest: &[LayerForm],
    ) -> Result<Forms, String> {
        let out = build_layout(ty, forms);
        let weights = Weights::default();
        let mut best: Option<(f64, Forms)> = None;
        let mut last_err = String::from("no candidate layout");
        for cand in candidates(r, no, ni) {
            let producer_forms = join(cand.clone(), rest);
            let pkey: ProducerKey = (x, producer_forms, key.5.clone());
            let known = self.search.borrow().producers.get(&pkey).cloned();
            let producer = match known {
                Some(got) => got,
                None => {
                    let got = self.cost_producer(x, &pkey.1);
                    self.search.borrow_mut().producers.insert(pkey, got.clone());
                    got
                }
            };
            let attempt = producer.and_then(|(a, from)| {
                let r = reshape_area(&from, &out)?;
                Ok(a.map(|a| a + r))
            });
            match attempt {
                Ok(a) => {
                    // No area: the sub-design reads a parameter (as `subdesign_area`).
                    let cost = a.map_or(0.0, |a| a.scalar(&weights));
                    if best.as_ref().is_none_or(|(c, _)| cost < *c) {
                        best = Some((cost, cand));
                    }
                    if cost == 0.0 {
                        break;
                    }
                }
                Err(e) => last_err = e,
            }
        }
        best.map(|(_, cand)| cand)
            .ok_or_else(|| format!("unpartition {no} {ni}: {last_err}"))
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

    /// A search whose result may depend on the whole state: every candidate is lowered in
    /// a copy of it, and the winner's copy is kept.
    #[allow(clippy::too_many_arguments)]
    fn full_search(
        &mut self,
        ty: &SeqType,
        forms: &[LayerForm],
        x: SeqId,
        no: u64,
        ni: u64,
        r: &LayerForm,
        rest: &[LayerForm],
    ) -> Result<StId, String> {
        let weights = Weights::default();
        let mut best: Option<(f64, Self, StId)> = None;
        let mut last_err = String::from("no candidate layout");
        for cand in candidates(r, no, ni) {
            let mut trial = self.clone();
            let attempt = (|| {
                let xs = trial.lower(x, &join(cand, rest))?;
                trial.reshape(xs, build_layout(ty, forms))
            })();
            match attempt {
                Ok(node) => {
                    let cost = trial.subdesign_area(node, &weights);
                    if best.as_ref().is_none_or(|(c, _, _)| cost < *c) {
                        best = Some((cost, trial, node));
                    }
                    if cost == 0.0 {
                        break;
                    }
                }
                Err(e) => last_err = e,
            }
        }
        let (_, state, node) = best.ok_or_else(|| format!("unpartition {no} {ni}: {last_err}"))?;
        *self = state;
        Ok(node)
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
