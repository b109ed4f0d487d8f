//! Data-movement operators (up/down, shifts, partitions, (de)serialize, tuple/sseq
//! conversions, reshape, FIFO) from their atom maps ([`crate::st::perm::Perm`]).
//!
//! Each output atom is some input atom of the same period, read `d` clocks after it
//! arrived (`d` = output clock + latency - input clock), or a fill value. Two generators:
//!
//! - **taps** (default): every input lane feeds delay lines for the distinct delays its
//!   atoms need, chained (a lane needing delays 3 and 5 gets a line of 3 then one of 2, so
//!   it stores its largest delay once); lanes with the same delays share one wide line;
//!   each output lane selects, by phase, one tap, an input lane (`d = 0`, wiring) or a fill
//!   constant. Delay lines are circular memories (RAM/SRL inference). Wiring-only operators
//!   (down, partitions, tuple conversions, reshapes between equivalent layouts) get no
//!   storage at all; shifts and FIFOs get one line per lane group.
//! - **buffer**: the minimal permutation buffer of [`super::buffer`], in registers, holding
//!   exactly [`Perm::max_live_atoms`] atoms. Chosen when it stores strictly fewer bits than
//!   the taps and at most [`RtlOptions::buffer_max_bits`], e.g. reshapes that transpose
//!   space and time, `up_1d_t`, (de)serializers.

use super::buffer::{schedule, Read};
use super::encode::atom_lit;
use super::netlist::{Expr, Sig};
use super::scope::Scope;
use super::RtlOptions;
use crate::st::perm::{Perm, Src};
use crate::st::stream::Lane;
use crate::st::{Layout, StOp};
use std::collections::{BTreeMap, BTreeSet};

/// The generator chosen for a data-movement node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveKind {
    /// Wires and phase multiplexers only.
    Wiring,
    /// Delay lines per lane group.
    Taps,
    /// The minimal register buffer.
    Buffer,
}

impl MoveKind {
    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            MoveKind::Wiring => "wiring",
            MoveKind::Taps => "delay-taps",
            MoveKind::Buffer => "perm-buffer",
        }
    }
}

/// Where one output lane reads from on one clock (taps view).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tap {
    /// Input lane `lane`, `delay` clocks ago, which is `elems` valid input clocks ago.
    Lane {
        lane: u64,
        delay: u64,
        elems: u64,
    },
    Fill(Expr),
}

/// Generates the node `name` for movement operator `op` on input vector `x`, whose node
/// starts `in_lat` clocks after the scope. Returns the output vector and the generator used.
#[allow(clippy::too_many_arguments)]
pub fn gen_move(
    sc: &mut Scope,
    name: &str,
    op: &StOp,
    input: &Layout,
    output: &Layout,
    x: &Sig,
    in_lat: u64,
    opts: &RtlOptions,
) -> Result<(Sig, MoveKind), String> {
    let perm = Perm::of(op, input, output)
        .ok_or_else(|| format!("internal error: {op} is not a data-movement operator"))?;
    let w = input.atom_bits();
    let atom = input.atom().clone();
    let p = input.clocks();
    let lat = perm.latency;
    let in_pos = input.atom_positions();
    // taps[c_in_phase][out lane]
    let out_lanes = output.lanes() as usize;
    let mut taps: Vec<Vec<Option<Tap>>> = vec![vec![None; out_lanes]; p as usize];
    let mut delays: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
    // the same in valid input clocks: a delay line that shifts only on valid clocks
    let mut elems: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
    let mut pre = Vec::with_capacity(p as usize + 1);
    pre.push(0u64);
    for c in 0..p {
        let v = pre[c as usize] + u64::from(input.is_valid_clock(c));
        pre.push(v);
    }
    let valid_per_period = pre[p as usize];
    let valid_before = |t: u64| (t / p) * valid_per_period + pre[(t % p) as usize];
    for c in 0..p {
        let Some(idx) = output.lane_atoms(c) else {
            continue;
        };
        let tau = ((c + lat) % p) as usize;
        for (k, o) in idx.iter().enumerate() {
            taps[tau][k] = match perm.src(*o) {
                Src::In(e) => {
                    let (ci, lane) = in_pos[e as usize];
                    let delay = c + lat - ci;
                    let e = valid_before(c + lat) - valid_before(ci);
                    if delay > 0 {
                        delays.entry(lane).or_default().insert(delay);
                        elems.entry(lane).or_default().insert(e);
                    }
                    Some(Tap::Lane {
                        lane,
                        delay,
                        elems: e,
                    })
                }
                Src::Fill(Lane::Val(v)) if !v.has_undef() => Some(Tap::Fill(atom_lit(&v, &atom))),
                Src::Fill(_) => None,
            };
        }
    }
    let bits = |ds: &BTreeMap<u64, BTreeSet<u64>>| -> u64 {
        ds.values()
            .map(|s| s.iter().max().copied().unwrap_or(0) * w)
            .sum()
    };
    // Delay lines count clocks, invalid ones included; on a layout with invalid clocks,
    // lines that shift only on valid clocks hold only the valid atoms in flight (a line
    // buffer of `(tseq n 0 (tseq 1 2 t))` holds one row, not three rows of clocks).
    let gated = valid_per_period < p && bits(&elems) < bits(&delays);
    let taps_bits = if gated { bits(&elems) } else { bits(&delays) };
    let buffer_bits = perm.max_live_atoms() * w;
    let table = |periods: u64| periods * p * (input.lanes() + output.lanes());
    if buffer_bits < taps_bits && buffer_bits <= opts.buffer_max_bits && table(1) <= opts.max_table
    {
        if let Some(s) = schedule(&perm, opts.buffer_max_frames) {
            if table(s.periods) <= opts.max_table {
                let out = emit_buffer(sc, name, x, &s, w as u32, &atom, in_lat, out_lanes);
                return Ok((out, MoveKind::Buffer));
            }
        }
    }
    let kind = if delays.is_empty() {
        MoveKind::Wiring
    } else {
        MoveKind::Taps
    };
    let out = if gated {
        let pattern = sc.valid_phase(&format!("{name}_valid"), in_lat, input);
        let en = sc.enable(in_lat, pattern);
        emit_taps(sc, name, x, &taps, &elems, w as u32, in_lat, Some(&en))
    } else {
        emit_taps(sc, name, x, &taps, &delays, w as u32, in_lat, None)
    };
    Ok((out, kind))
}

fn lane_of(x: &Sig, lane: u64, w: u32) -> Expr {
    x.bits(lane as u32 * w, w)
}

/// The taps' delay lines and output selection. `delays` are per input lane the delays the
/// taps need: in clocks, or with `gate`, in clocks on which `gate` is high (the taps'
/// `elems`).
#[allow(clippy::too_many_arguments)]
fn emit_taps(
    sc: &mut Scope,
    name: &str,
    x: &Sig,
    taps: &[Vec<Option<Tap>>],
    delays: &BTreeMap<u64, BTreeSet<u64>>,
    w: u32,
    in_lat: u64,
    gate: Option<&Sig>,
) -> Sig {
    let lanes_in = x.width / w;
    // lanes needing the same delays share one line over their concatenation
    let mut groups: BTreeMap<Vec<u64>, Vec<u64>> = BTreeMap::new();
    for (lane, ds) in delays {
        groups
            .entry(ds.iter().copied().collect())
            .or_default()
            .push(*lane);
    }
    let mut tap_sig: BTreeMap<(u64, u64), Expr> = BTreeMap::new();
    for (g, (ds, lanes)) in groups.iter().enumerate() {
        let whole = lanes.len() as u32 == lanes_in;
        let word = if whole {
            x.clone()
        } else {
            let parts: Vec<Expr> = lanes.iter().rev().map(|l| lane_of(x, *l, w)).collect();
            let nm = sc.fresh(&format!("{name}_g{g}"));
            sc.m.wire_eq(nm, Expr::concat(&parts))
        };
        let mut prev = word;
        let mut prev_d = 0;
        let deepest = ds.last().copied().unwrap_or(0);
        for d in ds {
            let line = sc.delay_segment(&prev, d - prev_d, gate, deepest);
            for (j, l) in lanes.iter().enumerate() {
                tap_sig.insert((*l, *d), line.bits(j as u32 * w, w));
            }
            prev = line;
            prev_d = *d;
        }
    }
    let out_lanes = taps.first().map_or(0, Vec::len);
    let mut parts = Vec::with_capacity(out_lanes);
    for k in 0..out_lanes {
        let entries: Vec<Option<Expr>> = taps
            .iter()
            .map(|row| {
                row[k].as_ref().map(|t| match t {
                    Tap::Lane { lane, delay: 0, .. } => lane_of(x, *lane, w),
                    Tap::Lane { lane, delay, elems } => {
                        let d = if gate.is_some() { elems } else { delay };
                        tap_sig[&(*lane, *d)].clone()
                    }
                    Tap::Fill(e) => e.clone(),
                })
            })
            .collect();
        parts.push(sc.by_phase(&format!("{name}_l{k}"), in_lat, &entries, w));
    }
    parts.reverse();
    let nm = sc.fresh(name);
    sc.m.wire_eq(nm, Expr::concat(&parts))
}

#[allow(clippy::too_many_arguments)]
fn emit_buffer(
    sc: &mut Scope,
    name: &str,
    x: &Sig,
    s: &super::buffer::Schedule,
    w: u32,
    atom: &Layout,
    in_lat: u64,
    out_lanes: usize,
) -> Sig {
    let phases = s.writes.len() as u64;
    sc.m.comment(format!(
        "{name}: permutation buffer, {} slots of {w} bits, schedule of {} frame(s)",
        s.slots, s.periods
    ));
    let ph = sc.phase(in_lat, phases);
    let mut slots = Vec::new();
    for j in 0..s.slots {
        let nm = sc.fresh(&format!("{name}_s{j}"));
        slots.push(sc.m.reg(nm, w));
    }
    for (j, slot) in slots.iter().enumerate() {
        // phases writing this slot, grouped by input lane
        let mut by_lane: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for (c, row) in s.writes.iter().enumerate() {
            for (sl, lane) in row {
                if *sl == j as u64 {
                    by_lane.entry(*lane).or_default().push(c as u64);
                }
            }
        }
        let text = match &ph {
            Some(ph) if by_lane.values().map(Vec::len).sum::<usize>() < phases as usize => {
                let mut t = format!("\n  case ({})\n", ph.name);
                for (lane, cs) in &by_lane {
                    let labels: Vec<String> = cs
                        .iter()
                        .map(|c| Expr::lit(*c, ph.width).to_string())
                        .collect();
                    t.push_str(&format!(
                        "    {}: {} <= {};\n",
                        labels.join(", "),
                        slot.name,
                        lane_of(x, *lane, w)
                    ));
                }
                t.push_str("    default: ;\n  endcase");
                t
            }
            _ if by_lane.len() == 1 => {
                let lane = by_lane.keys().next().expect("one lane");
                format!(" {} <= {};", slot.name, lane_of(x, *lane, w))
            }
            Some(ph) => {
                let mut t = format!("\n  case ({})\n", ph.name);
                let mut it = by_lane.iter().peekable();
                while let Some((lane, cs)) = it.next() {
                    let labels: Vec<String> = cs
                        .iter()
                        .map(|c| Expr::lit(*c, ph.width).to_string())
                        .collect();
                    let head = if it.peek().is_none() {
                        "default".to_string()
                    } else {
                        labels.join(", ")
                    };
                    t.push_str(&format!(
                        "    {head}: {} <= {};\n",
                        slot.name,
                        lane_of(x, *lane, w)
                    ));
                }
                t.push_str("  endcase");
                t
            }
            None => unreachable!("one phase writes each slot from one lane"),
        };
        sc.m.on_clock(text);
    }
    sc.storage.ff_bits += s.slots * u64::from(w);
    let mut parts = Vec::with_capacity(out_lanes);
    for k in 0..out_lanes {
        let entries: Vec<Option<Expr>> = s
            .reads
            .iter()
            .map(|row| match &row[k] {
                Read::Lane(l) => Some(lane_of(x, *l, w)),
                Read::Slot(j) => Some(slots[*j as usize].e()),
                Read::Fill(v) => Some(atom_lit(v, atom)),
                Read::DontCare => None,
            })
            .collect();
        parts.push(sc.by_phase(&format!("{name}_l{k}"), in_lat, &entries, w));
    }
    parts.reverse();
    let nm = sc.fresh(name);
    sc.m.wire_eq(nm, Expr::concat(&parts))
}
