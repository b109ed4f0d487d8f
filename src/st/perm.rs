//! Data-movement operators as atom maps.
//!
//! Up/Down, the shifts, partitions, (de)serialization, tuple/sseq conversions, Reshape and
//! FIFO compute nothing: each output atom is some input atom (of the same period), or a
//! fill value (what a shift moves in). [`Perm`] records that map together with both
//! layouts, which fixes everything else:
//!
//! - **latency**: an output atom may leave no earlier than the clock its source arrives (a
//!   same-clock bypass is allowed, so layout-preserving moves are wires). The minimal
//!   latency is `max(0, max_o (tin(src o) - tout(o)))`; a FIFO adds its fixed delay instead.
//!   This generalizes Aetherling's `Down_1d_t` (`idx * clocks(t)`) and Reshape causality
//!   models (reference §5.3) to every movement operator.
//! - **storage**: an input atom is held from the clock after it arrives until its last
//!   read; the most atoms held at once in steady state (frames back to back) is the buffer
//!   the hardware needs (Koehn–Athanas minimum for this schedule).
//! - **simulation** ([`super::sim`]) follows the map clock by clock.

use super::check::layout_elem_of_shift;
use super::layout::Layout;
use super::op::StOp;
use super::stream::{flatten, Lane};
use crate::seq::value::Value;

/// Where an output atom comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Src {
    /// Input atom at this flat index, of the same period.
    In(u64),
    /// A fixed value: a shift's init atom, or don't-care.
    Fill(Lane),
}

/// A data-movement operator's atom map and timing.
#[derive(Clone, Debug)]
pub struct Perm {
    /// Input layout.
    pub input: Layout,
    /// Output layout.
    pub output: Layout,
    /// For every output atom, its source.
    pub src: Vec<Src>,
    /// Clocks from the input's first clock to the output's first clock.
    pub latency: u64,
}

impl Perm {
    /// The map of a data-movement operator ([`StOp::is_data_movement`]) between its checked
    /// input and output layouts; `None` for other operators.
    pub fn of(op: &StOp, input: &Layout, output: &Layout) -> Option<Perm> {
        let out_atoms = output.atoms();
        let identity = || (0..out_atoms).map(Src::In).collect::<Vec<_>>();
        let src: Vec<Src> = match op {
            StOp::UpS { elem, .. } | StOp::UpT { elem, .. } => {
                let a = elem.atoms();
                (0..out_atoms).map(|o| Src::In(o % a)).collect()
            }
            StOp::DownS { idx, elem, .. } | StOp::DownT { idx, elem, .. } => {
                let a = elem.atoms();
                (0..out_atoms).map(|o| Src::In(idx * a + o)).collect()
            }
            StOp::ShiftS { .. }
            | StOp::ShiftT { .. }
            | StOp::ShiftTS { .. }
            | StOp::ShiftTT { .. }
            | StOp::ShiftTN { .. } => {
                let (_, _, amount, init) = op.shift_info()?;
                let elem = layout_elem_of_shift(op);
                let a = elem.atoms();
                let fill: Vec<Lane> = match init {
                    Some(v) => flatten(v, &elem.to_seq())
                        .into_iter()
                        .map(Lane::Val)
                        .collect(),
                    None => vec![Lane::Val(Value::Undef); a as usize],
                };
                (0..out_atoms)
                    .map(|o| {
                        let (j, r) = (o / a, o % a);
                        if j >= amount {
                            Src::In((j - amount) * a + r)
                        } else {
                            Src::Fill(fill[r as usize].clone())
                        }
                    })
                    .collect()
            }
            StOp::PartitionSS { .. }
            | StOp::UnpartitionSS { .. }
            | StOp::PartitionTT { .. }
            | StOp::UnpartitionTT { .. }
            | StOp::Serialize { .. }
            | StOp::Deserialize { .. }
            | StOp::STupleToSSeq { .. }
            | StOp::SSeqToSTuple { .. }
            | StOp::Reshape { .. }
            | StOp::Fifo { .. } => identity(),
            _ => return None,
        };
        let mut p = Perm {
            input: input.clone(),
            output: output.clone(),
            src,
            latency: 0,
        };
        p.latency = match op {
            StOp::Fifo { delay, .. } => *delay,
            _ => p.min_latency(),
        };
        Some(p)
    }

    /// The least latency at which every output atom's source has arrived (same-clock
    /// bypass allowed).
    pub fn min_latency(&self) -> u64 {
        let tin = clock_of_atoms(&self.input);
        let tout = clock_of_atoms(&self.output);
        self.src
            .iter()
            .enumerate()
            .filter_map(|(o, s)| match s {
                Src::In(e) => Some(tin[*e as usize].saturating_sub(tout[o])),
                Src::Fill(_) => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// True if no atom is ever held: every read happens on the clock its source arrives, so
    /// the operator is wiring (and lane selection).
    pub fn is_wiring(&self) -> bool {
        self.max_live_atoms() == 0
    }

    /// The most input atoms held at once in steady state (periods back to back).
    pub fn max_live_atoms(&self) -> u64 {
        let p = self.input.clocks();
        let tin = clock_of_atoms(&self.input);
        let tout = clock_of_atoms(&self.output);
        // last read of every input atom, relative to the start of its period
        let mut last: Vec<Option<u64>> = vec![None; tin.len()];
        for (o, s) in self.src.iter().enumerate() {
            if let Src::In(e) = s {
                let r = tout[o] + self.latency;
                let slot = &mut last[*e as usize];
                *slot = Some(slot.map_or(r, |x: u64| x.max(r)));
            }
        }
        // held during clocks tin+1 ..= last; fold the intervals of all periods onto one.
        let mut occ = vec![0i64; p as usize];
        for (e, l) in last.iter().enumerate() {
            let Some(l) = *l else { continue };
            let a = tin[e] + 1;
            if l < a {
                continue;
            }
            let len = l - a + 1;
            let full = len / p;
            for x in occ.iter_mut().take(p as usize) {
                *x += full as i64;
            }
            let rem = len % p;
            let start = (a % p) as usize;
            // add 1 to the circular range start .. start+rem
            let end = start + rem as usize;
            if end <= p as usize {
                for x in &mut occ[start..end] {
                    *x += 1;
                }
            } else {
                for x in &mut occ[start..p as usize] {
                    *x += 1;
                }
                for x in &mut occ[..end - p as usize] {
                    *x += 1;
                }
            }
        }
        occ.into_iter().max().unwrap_or(0).max(0) as u64
    }
}

/// The clock of every flat atom of a layout.
pub fn clock_of_atoms(l: &Layout) -> Vec<u64> {
    l.atom_positions().into_iter().map(|(c, _)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::types::ScalarType;

    fn int() -> Layout {
        ScalarType::Int8.into()
    }

    #[test]
    fn down_t_waits_for_its_element() {
        let e = Layout::tseq(2, 1, int());
        let op = StOp::DownT {
            n: 3,
            i: 1,
            idx: 2,
            elem: e.clone(),
        };
        let p = Perm::of(&op, &Layout::tseq(3, 1, e.clone()), &Layout::tseq(1, 3, e)).unwrap();
        assert_eq!(p.latency, 6);
        assert!(p.is_wiring());
    }

    #[test]
    fn up_t_holds_one_element_and_shift_t_holds_amount() {
        let op = StOp::UpT {
            n: 4,
            i: 0,
            elem: int(),
        };
        let p = Perm::of(&op, &Layout::tseq(1, 3, int()), &Layout::tseq(4, 0, int())).unwrap();
        assert_eq!((p.latency, p.max_live_atoms()), (0, 1));
        let op = StOp::ShiftT {
            n: 6,
            i: 2,
            amount: 2,
            elem: int(),
            init: None,
        };
        let l = Layout::tseq(6, 2, int());
        let p = Perm::of(&op, &l, &l).unwrap();
        assert_eq!((p.latency, p.max_live_atoms()), (0, 2));
    }

    #[test]
    fn transpose_reshape_buffers() {
        // TSeq 2 0 (SSeq 2) -> SSeq 2 (TSeq 2 0): element 1 (clock 0, lane 1) leaves at clock 1.
        let a = Layout::tseq(2, 0, Layout::sseq(2, int()));
        let b = Layout::sseq(2, Layout::tseq(2, 0, int()));
        let op = StOp::Reshape {
            from: a.clone(),
            to: b.clone(),
        };
        let p = Perm::of(&op, &a, &b).unwrap();
        // atom 2 arrives at clock 1 but lane 1 of clock 0 needs it: latency 1.
        assert_eq!(p.latency, 1);
        assert!(p.max_live_atoms() > 0);
    }
}
