//! Checking a design against its sequence program: simulate, flatten the valid outputs,
//! compare with the interpreter atom by atom (don't-care positions skipped).
//!
//! A design implements a program when their inputs and output agree up to the L_seq
//! isomorphism (reference §2.4): the same number of atoms of the same atom type. So
//! `(tseq 2 0 (sseq 2 int8))` implements `(seq 4 int8)`.

use super::design::Design;
use super::layout::Layout;
use super::sim::{simulate_stream, SimStats};
use super::stream::{atom_matches, flatten, Lane};
use crate::seq::fast;
use crate::seq::types::SeqType;
use crate::seq::value::{random_value, Value};
use crate::seq::Program;
use crate::util::rng::Rng;
use std::cell::RefCell;
use std::collections::VecDeque;

/// One output atom where the design disagrees with the interpreter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Frame number, from 0.
    pub frame: usize,
    /// Flat index of the atom in the output.
    pub atom: usize,
    /// The interpreter's value.
    pub expected: Value,
    /// The simulated lane.
    pub got: Lane,
}

/// The outcome of [`verify`].
#[derive(Clone, Debug)]
pub struct Verification {
    /// The simulation.
    pub sim: SimStats,
    /// Disagreeing atoms (at most 64 are kept).
    pub mismatches: Vec<Mismatch>,
    /// Number of mismatching atoms in total.
    pub mismatch_count: usize,
    /// Atoms compared.
    pub checked: usize,
    /// Atoms skipped because the interpreter says don't-care.
    pub skipped: usize,
}

impl Verification {
    /// True if every atom agrees, no read preceded its data, and the simulated latency is the
    /// model's.
    pub fn passed(&self) -> bool {
        self.mismatch_count == 0
            && self.sim.violations.is_empty()
            && self.sim.latency == self.sim.model_latency
    }
}

/// The atom type at the bottom of a sequence type.
pub fn atom_type(t: &SeqType) -> &SeqType {
    match t {
        SeqType::Seq(_, e) | SeqType::STuple(_, e) => atom_type(e),
        _ => t,
    }
}

/// Whether a layout carries values of `t` up to flattening: equal atom counts and types.
pub fn implements(l: &Layout, t: &SeqType) -> bool {
    l.atoms() == t.atoms() && l.atom().to_seq() == *atom_type(t)
}

/// Checks that the design's inputs (by position) and output carry the program's types up to
/// flattening.
pub fn check_compatible(d: &Design, p: &Program) -> Result<(), String> {
    if d.inputs.len() != p.inputs.len() {
        return Err(format!(
            "the design has {} input(s), the program {}",
            d.inputs.len(),
            p.inputs.len()
        ));
    }
    for (di, pi) in d.inputs.iter().zip(&p.inputs) {
        if !implements(&di.layout, &pi.ty) {
            return Err(format!(
                "design input `{}` has layout {} ({} atoms of {}), which does not carry the program input `{}` of type {}",
                di.name,
                di.layout,
                di.layout.atoms(),
                di.layout.atom(),
                pi.name,
                pi.ty
            ));
        }
    }
    if !implements(d.output_layout(), p.output_type()) {
        return Err(format!(
            "the design's output layout {} does not carry the program's output type {}",
            d.output_layout(),
            p.output_type()
        ));
    }
    Ok(())
}

/// Random inputs for `frames` frames, the same for the same seed everywhere.
pub fn random_frames(p: &Program, seed: u64, frames: usize) -> Vec<Vec<Value>> {
    let mut rng = Rng::new(seed);
    (0..frames)
        .map(|_| {
            p.inputs
                .iter()
                .map(|i| random_value(&i.ty, &mut rng))
                .collect()
        })
        .collect()
}

/// Simulates `d` on `frames` (program-typed input values per frame, back to back) and
/// compares every frame's output with the interpreter's (the fast evaluator's for a frame
/// larger than [`fast::LARGE_FRAME`] input atoms: see [`fast::expected`]).
pub fn verify(d: &Design, p: &Program, frames: &[Vec<Value>]) -> Result<Verification, String> {
    verify_stream(d, p, frames.len(), |f| Ok(frames[f].clone()))
}

/// [`verify`] on `frames` random frames from `seed`, the frames of [`random_frames`], made
/// one at a time: memory holds the frames in flight, not all of them.
pub fn verify_random(
    d: &Design,
    p: &Program,
    seed: u64,
    frames: usize,
) -> Result<Verification, String> {
    let mut rng = Rng::new(seed);
    verify_stream(d, p, frames, |_| {
        Ok(p.inputs
            .iter()
            .map(|i| random_value(&i.ty, &mut rng))
            .collect())
    })
}

/// [`verify`] with frame `f`'s inputs given by `frame(f)` when the simulation drives it
/// (in order, each once): a frame's expected output is computed then, and compared and
/// dropped when the design has put it out.
pub fn verify_stream(
    d: &Design,
    p: &Program,
    frames: usize,
    mut frame: impl FnMut(usize) -> Result<Vec<Value>, String>,
) -> Result<Verification, String> {
    check_compatible(d, p)?;
    // expected outputs of the frames driven and not yet read
    let pending: RefCell<VecDeque<Vec<Value>>> = RefCell::new(VecDeque::new());
    let mut mismatches = Vec::new();
    let (mut count, mut checked, mut skipped) = (0, 0, 0);
    let input = |f: usize| -> Result<Vec<Vec<Value>>, String> {
        let fr = frame(f)?;
        let expected = fast::expected(p, &fr)?;
        pending
            .borrow_mut()
            .push_back(flatten(&expected, p.output_type()));
        Ok(fr
            .iter()
            .zip(&p.inputs)
            .map(|(v, i)| flatten(v, &i.ty))
            .collect())
    };
    let output = |f: usize, got: Vec<Lane>| -> Result<(), String> {
        let expected = pending
            .borrow_mut()
            .pop_front()
            .ok_or_else(|| format!("frame {f} was read before it was driven"))?;
        for (a, (e, g)) in expected.iter().zip(&got).enumerate() {
            if e.is_all_undef() {
                skipped += 1;
                continue;
            }
            checked += 1;
            if !atom_matches(e, g) {
                count += 1;
                if mismatches.len() < 64 {
                    mismatches.push(Mismatch {
                        frame: f,
                        atom: a,
                        expected: e.clone(),
                        got: g.clone(),
                    });
                }
            }
        }
        Ok(())
    };
    let sim = simulate_stream(d, frames, input, output)?;
    Ok(Verification {
        sim,
        mismatches,
        mismatch_count: count,
        checked,
        skipped,
    })
}
