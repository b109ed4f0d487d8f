//! The minimal permutation buffer: a slot schedule for a data-movement operator that holds
//! exactly as many atoms as the operator must ([`Perm::max_live_atoms`]).
//!
//! Every input atom that is read after the clock it arrives takes a slot from the clock it
//! arrives until its last read. Slots are given out greedily (lowest free slot) while the
//! stream runs frame after frame; since a slot is freed on its atom's last read and taken
//! only by an arriving atom, the slots in use at any clock are exactly the atoms live then,
//! so the greedy never needs more than the steady-state maximum. The greedy's state at frame
//! boundaries (which slot holds which atom of which relative frame) is eventually periodic;
//! the hardware runs that cycle of `periods` frames from the first clock (slots that would
//! hold atoms of frames before the first are read only for outputs before the output
//! starts, which are invalid).

use crate::seq::value::Value;
use crate::st::perm::{clock_of_atoms, Perm, Src};
use crate::st::stream::Lane;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What an output lane carries on one clock of the schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Read {
    /// Input lane `k` on the same clock (bypass).
    Lane(u64),
    /// Slot `s`.
    Slot(u64),
    /// A fixed value (a shift's init).
    Fill(Value),
    /// Anything (an invalid clock, or a don't-care fill).
    DontCare,
}

/// A periodic slot schedule, indexed by the phase `0 .. periods*P` counted from the input's
/// first clock.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// Frames in one cycle of the schedule.
    pub periods: u64,
    /// Slots used.
    pub slots: u64,
    /// Per phase: `(slot, input lane)` written at the end of that clock.
    pub writes: Vec<Vec<(u64, u64)>>,
    /// Per phase: what each output lane carries.
    pub reads: Vec<Vec<Read>>,
}

/// The schedule of `perm`, or `None` if the greedy does not become periodic within
/// `max_frames` frames or an atom is read from nowhere (which a causal map never does).
pub fn schedule(perm: &Perm, max_frames: u64) -> Option<Schedule> {
    let p = perm.input.clocks();
    let lat = perm.latency;
    let in_pos = perm.input.atom_positions();
    let tin = clock_of_atoms(&perm.input);
    let out_lanes = perm.output.lanes() as usize;
    // reads by their clock relative to the frame's first input clock
    let mut reads_at: BTreeMap<u64, Vec<(usize, Src)>> = BTreeMap::new();
    let mut last: Vec<Option<u64>> = vec![None; tin.len()];
    for c in 0..p {
        if let Some(idx) = perm.output.lane_atoms(c) {
            let r = c + lat;
            for (k, o) in idx.iter().enumerate() {
                let s = perm.src(*o);
                if let Src::In(e) = s {
                    let l = &mut last[e as usize];
                    *l = Some(l.map_or(r, |x| x.max(r)));
                }
                reads_at.entry(r).or_default().push((k, s));
            }
        }
    }
    let mut arrivals: Vec<Vec<u64>> = vec![Vec::new(); p as usize];
    for (e, (c, _)) in in_pos.iter().enumerate() {
        if last[e].is_some_and(|l| l > *c) {
            arrivals[*c as usize].push(e as u64);
        }
    }
    let mut slot_of: HashMap<(u64, u64), u64> = HashMap::new();
    let mut holder: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    let mut free: BTreeSet<u64> = BTreeSet::new();
    let mut next_slot = 0u64;
    let mut releases: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
    let mut seen: HashMap<Vec<(u64, u64, u64)>, u64> = HashMap::new();
    let mut writes: Vec<Vec<(u64, u64)>> = Vec::new();
    let mut reads: Vec<Vec<Read>> = Vec::new();
    for f in 0..=max_frames {
        // the state at this frame boundary, frames relative to f
        let key: Vec<(u64, u64, u64)> = holder.iter().map(|(s, (g, e))| (*s, f - g, *e)).collect();
        if let Some(&f1) = seen.get(&key) {
            let (a, b) = ((f1 * p) as usize, (f * p) as usize);
            let used: u64 = writes[a..b]
                .iter()
                .flatten()
                .map(|w| w.0 + 1)
                .max()
                .unwrap_or(0);
            return Some(Schedule {
                periods: f - f1,
                slots: used,
                writes: writes[a..b].to_vec(),
                reads: reads[a..b].to_vec(),
            });
        }
        seen.insert(key, f);
        for c in 0..p {
            let tau = f * p + c;
            // reads during this clock
            let mut row = vec![Read::DontCare; out_lanes];
            let read = (tau >= lat).then(|| (tau - lat) % p + lat);
            if let Some((r, list)) = read.and_then(|r| reads_at.get(&r).map(|l| (r, l))) {
                let g = (tau - r) / p;
                for (k, s) in list {
                    row[*k] = match s {
                        Src::Fill(Lane::Val(v)) if !v.has_undef() => Read::Fill(v.clone()),
                        Src::Fill(_) => Read::DontCare,
                        Src::In(e) => {
                            if tin[*e as usize] == r {
                                Read::Lane(in_pos[*e as usize].1)
                            } else {
                                Read::Slot(*slot_of.get(&(g, *e))?)
                            }
                        }
                    };
                }
            }
            reads.push(row);
            // atoms read for the last time free their slots
            for (g, e) in releases.remove(&tau).unwrap_or_default() {
                let s = slot_of.remove(&(g, e)).expect("allocated");
                holder.remove(&s);
                free.insert(s);
            }
            // arrivals that are read later take the lowest free slots
            let mut row = Vec::new();
            for e in &arrivals[c as usize] {
                let s = match free.pop_first() {
                    Some(s) => s,
                    None => {
                        next_slot += 1;
                        next_slot - 1
                    }
                };
                slot_of.insert((f, *e), s);
                holder.insert(s, (f, *e));
                let l = last[*e as usize].expect("read later");
                releases.entry(f * p + l).or_default().push((f, *e));
                row.push((s, in_pos[*e as usize].1));
            }
            writes.push(row);
        }
    }
    None
}
