//! The periodic analysis of data movement (`st::perm`, `st::perm::reduce`) gives exactly
//! the per-atom results: latency, storage (most atoms held at once), every output atom's
//! source and every atom's position equal those of the original per-atom implementation
//! (kept below verbatim as the reference) on thousands of random layouts: every reshape of
//! the small-layout pool, the same reshapes repeated over many outer periods, with common
//! inner and outer lanes, shifts, ups, downs and FIFOs over long outer periods.

#[path = "st_common/mod.rs"]
mod common;

use common::*;
use std::collections::{BTreeMap, BTreeSet};
use tessera::seq::types::ScalarType;
use tessera::seq::value::{random_value, Value};
use tessera::st::perm::reduce::{reduced_for_storage, Kind, Shape};
use tessera::st::perm::{clock_of_atoms, AtomMap, Perm, Src};
use tessera::st::stream::{flatten, Lane};
use tessera::st::{Layout, StOp};
use tessera::util::rng::Rng;

// ---- the reference: the per-atom implementation before the periodic analysis ----------

fn old_atom_positions(l: &Layout) -> Vec<(u64, u64)> {
    let mut pos = vec![(0, 0); l.atoms() as usize];
    for c in 0..l.clocks() {
        if let Some(lanes) = l.lane_atoms(c) {
            for (k, a) in lanes.into_iter().enumerate() {
                pos[a as usize] = (c, k as u64);
            }
        }
    }
    pos
}

fn old_clock_of_atoms(l: &Layout) -> Vec<u64> {
    old_atom_positions(l).into_iter().map(|(c, _)| c).collect()
}

fn shift_elem(op: &StOp) -> &Layout {
    match op {
        StOp::ShiftS { elem, .. }
        | StOp::ShiftT { elem, .. }
        | StOp::ShiftTS { elem, .. }
        | StOp::ShiftTT { elem, .. }
        | StOp::ShiftTN { elem, .. } => elem,
        _ => unreachable!(),
    }
}

fn old_src(op: &StOp, output: &Layout) -> Vec<Src> {
    let out_atoms = output.atoms();
    match op {
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
            let (_, _, amount, init) = op.shift_info().unwrap();
            let elem = shift_elem(op);
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
        StOp::Transpose { no, ni, .. } => {
            // Output element (i, o) is input element (o, i), element by element.
            let a = out_atoms / (no * ni);
            (0..out_atoms)
                .map(|q| {
                    let (el, r) = (q / a, q % a);
                    let (i, o) = (el / no, el % no);
                    Src::In((o * ni + i) * a + r)
                })
                .collect()
        }
        _ => (0..out_atoms).map(Src::In).collect(),
    }
}

fn old_min_latency(input: &Layout, output: &Layout, src: &[Src]) -> u64 {
    let tin = old_clock_of_atoms(input);
    let tout = old_clock_of_atoms(output);
    src.iter()
        .enumerate()
        .filter_map(|(o, s)| match s {
            Src::In(e) => Some(tin[*e as usize].saturating_sub(tout[o])),
            Src::Fill(_) => None,
        })
        .max()
        .unwrap_or(0)
}

fn old_max_live_atoms(input: &Layout, output: &Layout, src: &[Src], latency: u64) -> u64 {
    let p = input.clocks();
    let tin = old_clock_of_atoms(input);
    let tout = old_clock_of_atoms(output);
    let mut last: Vec<Option<u64>> = vec![None; tin.len()];
    for (o, s) in src.iter().enumerate() {
        if let Src::In(e) = s {
            let r = tout[o] + latency;
            let slot = &mut last[*e as usize];
            *slot = Some(slot.map_or(r, |x: u64| x.max(r)));
        }
    }
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

/// `Perm::lane_sources` by its definition: per output lane, the distinct (input lane,
/// delay) pairs and defined fill values it reads over a period; over input lanes, the sum of
/// the largest delays.
fn old_lane_sources(p: &Perm, src: &[Src]) -> (BTreeMap<u64, u64>, u64) {
    let ipos = p.input.atom_positions();
    let opos = p.output.atom_positions();
    let mut sets = vec![BTreeSet::new(); p.output.lanes() as usize];
    let mut maxd = vec![0u64; p.input.lanes() as usize];
    for (o, (co, lo)) in opos.iter().enumerate() {
        match &src[o] {
            Src::In(e) => {
                let (ci, li) = ipos[*e as usize];
                let d = co + p.latency - ci;
                sets[*lo as usize].insert(format!("in {li} {d}"));
                maxd[li as usize] = maxd[li as usize].max(d);
            }
            Src::Fill(Lane::Val(v)) if !v.has_undef() => {
                sets[*lo as usize].insert(format!("fill {v:?}"));
            }
            Src::Fill(_) => {}
        }
    }
    let mut counts = BTreeMap::new();
    for set in sets {
        *counts.entry(set.len() as u64).or_default() += 1;
    }
    (counts, maxd.iter().sum())
}

// ---- the comparison ----------------------------------------------------------------

/// True if the storage analysis of `p` runs on fewer atoms than `p` has.
fn reduced(p: &Perm) -> bool {
    let kind = match &p.map {
        AtomMap::Identity => Kind::Identity,
        AtomMap::Repeat { a } => Kind::Repeat(*a),
        AtomMap::Offset { off } => Kind::Offset(*off),
        AtomMap::Shift { by, .. } => Kind::Shift(*by),
        AtomMap::Transpose { no, ni, a } => Kind::Transpose {
            no: *no,
            ni: *ni,
            a: *a,
        },
    };
    let shape = Shape {
        input: p.input.clone(),
        output: p.output.clone(),
        kind,
    };
    reduced_for_storage(shape, p.latency).0.input.atoms() < p.input.atoms()
}

/// Checks one operator; returns its storage and whether the analysis was reduced.
fn same(op: &StOp, input: &Layout, output: &Layout) -> (u64, bool) {
    let p = Perm::of(op, input, output).unwrap_or_else(|| panic!("{op}: not a movement"));
    let src = old_src(op, output);
    for (o, s) in src.iter().enumerate() {
        assert_eq!(&p.src(o as u64), s, "{op}: source of atom {o}");
    }
    let lat = match op {
        StOp::Fifo { delay, .. } => *delay,
        _ => old_min_latency(input, output, &src),
    };
    assert_eq!(p.latency, lat, "{op}: {input} -> {output} latency");
    assert_eq!(
        p.min_latency(),
        old_min_latency(input, output, &src),
        "{op}"
    );
    let live = old_max_live_atoms(input, output, &src, lat);
    assert_eq!(
        p.max_live_atoms(),
        live,
        "{op}: {input} -> {output} storage at latency {lat}"
    );
    let sources = p.lane_sources(None, None);
    assert_eq!(
        (sources.counts, sources.tap_atoms),
        old_lane_sources(&p, &src),
        "{op}: {input} -> {output} lane sources at latency {lat}"
    );
    (live, reduced(&p))
}

fn reshape(a: &Layout, b: &Layout) -> (u64, bool) {
    let op = StOp::Reshape {
        from: a.clone(),
        to: b.clone(),
    };
    same(&op, a, b)
}

fn int8() -> Layout {
    Layout::Scalar(ScalarType::Int8)
}

/// `l` with its atom replaced by `(sseq k atom)`.
fn lanes_inside(l: &Layout, k: u64) -> Layout {
    match l {
        Layout::SSeq(n, t) => Layout::sseq(*n, lanes_inside(t, k)),
        Layout::STuple(n, t) => Layout::stuple(*n, lanes_inside(t, k)),
        Layout::TSeq(n, i, t) => Layout::tseq(*n, *i, lanes_inside(t, k)),
        atom => Layout::sseq(k, atom.clone()),
    }
}

#[test]
fn positions_match_the_per_clock_placement() {
    let mut n = 0;
    for g in layout_pool() {
        for l in g {
            assert_eq!(l.atom_positions(), old_atom_positions(&l), "{l}");
            assert_eq!(clock_of_atoms(&l), old_clock_of_atoms(&l), "{l}");
            n += 1;
        }
    }
    assert!(n > 1000, "{n}");
}

#[test]
fn every_small_reshape() {
    let mut n = 0;
    for g in layout_pool() {
        for a in &g {
            for b in &g {
                reshape(a, b);
                n += 1;
            }
        }
    }
    assert!(n > 30_000, "{n}");
}

/// Transposes between every two pool layouts of one size, for every way of splitting the
/// atoms into rows and elements: wiring where the layouts put transposed atoms on the same
/// lanes and clocks, buffers elsewhere; inner lanes that move together are grouped.
#[test]
fn every_small_transpose() {
    let mut n = 0;
    let (mut wiring, mut grouped) = (0, 0);
    for g in layout_pool() {
        let atoms = g[0].atoms();
        for no in (1..=atoms).filter(|d| atoms.is_multiple_of(*d)) {
            for ni in (1..=atoms / no).filter(|d| (atoms / no).is_multiple_of(*d)) {
                for a in &g {
                    for b in &g {
                        let op = StOp::Transpose {
                            no,
                            ni,
                            from: a.clone(),
                            to: b.clone(),
                        };
                        let (live, reduced) = same(&op, a, b);
                        wiring += usize::from(live == 0);
                        grouped += usize::from(reduced);
                        n += 1;
                    }
                }
            }
        }
    }
    assert!(
        n > 100_000 && wiring > 1000 && grouped > 1000,
        "{n} {wiring} {grouped}"
    );
}

/// Pool reshapes inside many outer periods, outer periods factored differently on the two
/// sides, and common inner and outer lanes: the cases the reductions apply to.
#[test]
fn reshapes_over_long_outer_periods_and_common_lanes() {
    let pool = layout_pool();
    let mut rng = Rng::new(71);
    let (mut n, mut held, mut cut) = (0, 0, 0);
    for _ in 0..4000 {
        let g = rng.pick(&pool);
        let (mut a, mut b) = (rng.pick(g).clone(), rng.pick(g).clone());
        if rng.range(0, 3) == 0 {
            let k = rng.range(2, 4);
            a = lanes_inside(&a, k);
            b = lanes_inside(&b, k);
        }
        let (q, m, j) = (rng.range(1, 3), rng.range(1, 14), rng.range(0, 2));
        let (big_a, big_b) = match rng.range(0, 3) {
            // the same outer period on both sides
            0 => (
                Layout::tseq(q * m, q * j, a.clone()),
                Layout::tseq(q * m, q * j, b.clone()),
            ),
            // one side's outer layer split into blocks of q
            1 => (
                Layout::tseq(q * m, q * j, a.clone()),
                Layout::tseq(m, j, Layout::tseq(q, 0, b.clone())),
            ),
            // outer lanes
            2 => (
                Layout::sseq(q + 1, Layout::tseq(m, j, a.clone())),
                Layout::sseq(q + 1, Layout::tseq(m, j, b.clone())),
            ),
            _ => (
                Layout::tseq(m, j, Layout::sseq(q + 1, a.clone())),
                Layout::tseq(m, j, Layout::sseq(q + 1, b.clone())),
            ),
        };
        if big_a.clocks() > 600 {
            continue;
        }
        let (live, r) = reshape(&big_a, &big_b);
        held += u64::from(live > 0);
        cut += u64::from(r);
        n += 1;
    }
    assert!(
        n > 2000 && held > 500 && cut > 1000,
        "{n} cases, {held} holding atoms, {cut} reduced"
    );
}

#[test]
fn shifts_over_long_outer_periods() {
    let mut rng = Rng::new(72);
    let (mut n, mut cut) = (0, 0);
    for _ in 0..3000 {
        let elem = if rng.range(0, 2) == 0 {
            int8()
        } else {
            rand_layout(&mut rng, 2, ScalarType::Int8)
        };
        let shape = ShiftShape {
            kind: rng.range(0, 4),
            no: rng.range(1, 40),
            io: rng.range(0, 3),
            inner: (0..rng.range(1, 2))
                .map(|_| (rng.range(1, 4), rng.range(0, 2)))
                .collect(),
            elem,
        };
        let (l, _, count) = shape.layout();
        if l.clocks() > 800 {
            continue;
        }
        let amount = if rng.coin() {
            rng.range(0, count.min(6))
        } else {
            rng.range(0, count)
        };
        let init = rng
            .coin()
            .then(|| random_value(&shape.elem.to_seq(), &mut rng));
        cut += u64::from(same(&shape.op(amount, init), &l, &l).1);
        n += 1;
    }
    assert!(n > 2000 && cut > 500, "{n} cases, {cut} reduced");
}

#[test]
fn ups_downs_and_fifos() {
    let mut rng = Rng::new(73);
    for _ in 0..1500 {
        let elem = rand_layout(&mut rng, 3, ScalarType::Int8);
        let (n, i) = (rng.range(1, 5), rng.range(0, 3));
        let idx = rng.range(0, n - 1);
        let ops = [
            (
                StOp::UpS {
                    n,
                    elem: elem.clone(),
                },
                Layout::sseq(1, elem.clone()),
                Layout::sseq(n, elem.clone()),
            ),
            (
                StOp::UpT {
                    n,
                    i,
                    elem: elem.clone(),
                },
                Layout::tseq(1, n - 1 + i, elem.clone()),
                Layout::tseq(n, i, elem.clone()),
            ),
            (
                StOp::DownS {
                    n,
                    idx,
                    elem: elem.clone(),
                },
                Layout::sseq(n, elem.clone()),
                Layout::sseq(1, elem.clone()),
            ),
            (
                StOp::DownT {
                    n,
                    i,
                    idx,
                    elem: elem.clone(),
                },
                Layout::tseq(n, i, elem.clone()),
                Layout::tseq(1, n - 1 + i, elem.clone()),
            ),
        ];
        for (op, a, b) in &ops {
            same(op, a, b);
        }
        let l = Layout::tseq(rng.range(1, 30), rng.range(0, 2), elem.clone());
        if l.clocks() <= 600 {
            let delay = rng.range(0, 2 * l.clocks());
            let op = StOp::Fifo {
                layout: l.clone(),
                delay,
            };
            same(&op, &l, &l);
        }
    }
}
