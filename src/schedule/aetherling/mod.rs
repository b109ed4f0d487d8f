//! The baseline: Aetherling's own scheduler (reference §4.3–§4.5), through Tessera's
//! space-time IR, simulator and area model.
//!
//! For a slowdown `s` it tries every output layout of [`aetherling_forms`] (simplest first),
//! lowers the program back to front for each (a node's first consumer fixes its layout, a
//! later consumer that wants another layout gets a `reshape`), matches latencies with FIFOs,
//! and keeps the candidate of least model area (ties: the simpler layout). This is the yard-
//! stick the e-graph scheduler must beat; it is not meant to be clever.
//!
//! Differences from the Haskell original, on purpose:
//! - the `Reduce` under a nested-time layout uses the inner invalid count (reference §4.5.6
//!   flags the original's use of the outer one as a bug);
//! - the Unpartition sub-search of case 6 (two nested-time splits) takes the first split
//!   that fits instead of searching both;
//! - no pipeline registers are added at the inputs and output (reference §4.9.1): Tessera's
//!   timing model has no combinational-path concept, so they would only add area;
//! - FIFOs are inserted by [`crate::st::latency::insert_fifos`], after selection, as in the
//!   original (so their area is not part of the choice — one of the weaknesses Tessera's
//!   e-graph scheduler repairs).

mod lower;
pub use lower::MAX_DEPTH;
mod ops;
mod search;
mod tables;

use super::slowdown::aetherling_forms;
use crate::seq::Program;
use crate::st::area::{area, Weights};
use crate::st::Design;
use lower::Lowerer;

/// A design chosen by the baseline, with what it was compared against.
#[derive(Clone, Debug)]
pub struct BaselineDesign {
    /// The design, latency-matched.
    pub design: Design,
    /// Its model area (scalar, default weights).
    pub area: f64,
    /// How many candidate output layouts lowered successfully.
    pub candidates_ok: usize,
    /// How many were tried.
    pub candidates_tried: usize,
}

/// Schedules `p` at slowdown `s` the way Aetherling does. The error lists why each candidate
/// output layout failed.
pub fn schedule(p: &Program, s: u64) -> Result<BaselineDesign, String> {
    schedule_within(p, s, Budget::default())
}

/// How much work [`schedule_within`] may do before it gives up; unlimited by default.
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget {
    /// Time, checked at every node the lowering visits (differs between machines).
    pub time: Option<std::time::Duration>,
    /// Nodes lowered, over every candidate output layout and every trial of a search: the
    /// same on every machine, so a run within it gives the same answer everywhere.
    pub steps: Option<u64>,
}

/// In the error of a run stopped by its [`Budget`].
pub const OVER_BUDGET: &str = "did not finish within its budget";

/// [`schedule`] within a [`Budget`]: a run past it stops with an error (containing
/// [`OVER_BUDGET`]) that says how many candidate output layouts were costed. There is no
/// partial answer: the baseline's design is the least-area one over all its candidates.
pub fn schedule_within(p: &Program, s: u64, budget: Budget) -> Result<BaselineDesign, String> {
    let start = std::time::Instant::now();
    crate::schedule::slowdown::check_slowdown(s)?;
    let candidates = aetherling_forms(p.output_type(), s);
    if candidates.is_empty() {
        return Err(format!(
            "no layout of the output type {} has {s} clocks",
            p.output_type()
        ));
    }
    let weights = Weights::default();
    let mut best: Option<(f64, Design)> = None;
    let mut failures = Vec::new();
    let tried = candidates.len();
    let memo = lower::Memo::default();
    memo.borrow_mut().deadline = budget.time.map(|b| start + b);
    memo.borrow_mut().max_steps = budget.steps;
    for (k, (forms, layout)) in candidates.into_iter().enumerate() {
        let got = lower_program(p, &forms, s, &memo);
        let over_time = budget.time.filter(|b| start.elapsed() > *b);
        let over_steps = budget.steps.filter(|m| memo.borrow().steps > *m);
        let over = match (over_time, over_steps) {
            (Some(b), _) => Some(format!("{} s", b.as_secs_f64())),
            (None, Some(m)) => Some(format!("{m} lowering steps")),
            (None, None) => None,
        };
        if let Some(within) = over {
            return Err(format!(
                "Aetherling's scheduler {OVER_BUDGET} at slowdown {s} ({within}; {k} of {tried} output layouts costed)"
            ));
        }
        match got {
            Ok(d) => {
                let a = area(&d).total.scalar(&weights);
                if best.as_ref().is_none_or(|(b, _)| a < *b) {
                    best = Some((a, d));
                }
            }
            Err(e) => failures.push(format!("  {layout}: {e}")),
        }
    }
    match best {
        Some((area, design)) => Ok(BaselineDesign {
            design,
            area,
            candidates_ok: tried - failures.len(),
            candidates_tried: tried,
        }),
        None => Err(format!(
            "Aetherling's scheduler finds no design at slowdown {s}:\n{}",
            failures.join("\n")
        )),
    }
}

/// Lowers the whole program with its output in the layout of `out_forms`.
///
/// Two passes: the first finds the layout each program input is first requested in; the
/// second declares the inputs in program order with those layouts and lowers again, so the
/// design's inputs line up with the program's.
fn lower_program(
    p: &Program,
    out_forms: &[super::slowdown::LayerForm],
    s: u64,
    memo: &lower::Memo,
) -> Result<Design, String> {
    let mut first = Lowerer::new(p, s, None, memo.clone())?;
    first.lower(p.output, out_forms)?;
    let input_forms = first.input_forms();
    let mut second = Lowerer::new(p, s, Some(input_forms), memo.clone())?;
    let root = second.lower(p.output, out_forms)?;
    let mut d = second.into_design();
    d.set_output(root)?;
    let d = crate::st::latency::insert_fifos(&d)?;
    crate::st::check::check_design(&d)?;
    Ok(d)
}
