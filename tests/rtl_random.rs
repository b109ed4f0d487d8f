//! Random space-time designs covering every operator (the instance generators of the st
//! tests, `tests/st_common/mod.rs`, with fewer instances): emit -> Verilator lint -> Icarus
//! simulation of 2-3 frames back to back -> comparison with the interpreter.

#[path = "st_common/mod.rs"]
mod common;

use common::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use tessera::rtl::tools::require_tool;
use tessera::rtl::verify::{verify_rtl, VerifyOptions};
use tessera::rtl::RtlOptions;
use tessera::seq::build;
use tessera::seq::op::{AtomOp, Op};
use tessera::seq::types::{ScalarType, SeqType};
use tessera::seq::value::{random_value, Value};
use tessera::seq::Program;
use tessera::st::{Design, Layout, StOp};
use tessera::util::rng::Rng;

const INSTANCES: u64 = 12;

fn tools() -> bool {
    require_tool(&["iverilog", "vvp", "verilator"], "random RTL designs")
}

fn work(tag: &str, k: u64) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("rtl_random")
        .join(format!("{tag}_{k}"))
}

/// Verifies the RTL of `d` against `p`; returns the generators used (for coverage checks).
fn check_rtl(p: &Program, d: &Design, seed: u64, frames: usize, tag: &str) -> BTreeSet<String> {
    let dir = work(tag, seed);
    let opts = VerifyOptions {
        seed,
        frames,
        ..VerifyOptions::default()
    };
    let v = verify_rtl(d, p, &dir, &opts)
        .unwrap_or_else(|e| panic!("{tag} {seed}: {e}\n{}", d.to_text()));
    assert!(
        v.passed(),
        "{tag} {seed} (work dir {}): lint {:?}; {} mismatches {:#?}\n{}",
        dir.display(),
        v.lint,
        v.mismatch_count,
        v.mismatches,
        d.to_text()
    );
    assert!(v.atoms_checked + v.atoms_dont_care > 0);
    v.rtl
        .nodes
        .iter()
        .map(|n| format!("{} {}", n.op.split(' ').next().unwrap(), n.generator))
        .collect()
}

fn frames(rng: &mut Rng) -> usize {
    rng.range(2, 3) as usize
}

#[test]
fn maps_with_constant_operands() {
    if !tools() {
        return;
    }
    let mut rng = Rng::new(101);
    let mut seen = BTreeSet::new();
    for k in 0..INSTANCES {
        let sc = scalar(&mut rng);
        let l = rand_layout(&mut rng, 4, sc);
        let leaf = match rng.range(0, 2) {
            0 => Leaf::Abs,
            1 => Leaf::AddConst(rng.next_u64()),
            _ => Leaf::MulConst(rng.range(0, 200)),
        };
        let mut pr = Pair::new("map");
        let (pi, di) = pr.input("I", &l);
        let po = seq_deep(&mut pr.p, pi, &|p, x| seq_leaf(p, leaf, x));
        let dout = st_deep(&mut pr.d, di, &|d, x| st_leaf(d, leaf, x));
        let (p, d) = pr.finish(po, dout);
        let f = frames(&mut rng);
        seen.extend(check_rtl(&p, &d, k, f, "map"));
    }
    assert!(
        seen.iter().any(|s| s.starts_with("map_s")) && seen.iter().any(|s| s.starts_with("map_t")),
        "{seen:?}"
    );
}

#[test]
fn map2_joins() {
    if !tools() {
        return;
    }
    let mut rng = Rng::new(102);
    for k in 0..INSTANCES {
        let sc = scalar(&mut rng);
        let l = rand_layout(&mut rng, 4, sc);
        let mut pr = Pair::new("map2");
        let (pa, da) = pr.input("A", &l);
        let (pb, db) = pr.input("B", &l);
        let po = seq_deep2(&mut pr.p, pa, pb, &seq_add);
        let dout = st_deep2(&mut pr.d, da, db, &st_add);
        let (p, d) = pr.finish(po, dout);
        let f = frames(&mut rng);
        check_rtl(&p, &d, k, f, "map2");
    }
}

#[test]
fn reduces_in_space_and_time() {
    if !tools() {
        return;
    }
    let mut rng = Rng::new(103);
    let mut seen = BTreeSet::new();
    for k in 0..INSTANCES {
        let s = scalar(&mut rng);
        let elem = rand_layout(&mut rng, 2, s);
        let n = rng.range(1, 5);
        let timed = k % 2 == 0;
        let i = if timed { rng.range(0, 2) } else { 0 };
        let l = if timed {
            Layout::tseq(n, i, elem.clone())
        } else {
            Layout::sseq(n, elem.clone())
        };
        let mut pr = Pair::new("reduce");
        let (pi, di) = pr.input("I", &l);
        let et = elem.to_seq();
        let pa = build::arg(&mut pr.p, 0, et.zipped_pair());
        let pbody = seq_deep(&mut pr.p, pa, &|p, x| {
            build::apply(p, Op::Atom(AtomOp::Add), &[x]).unwrap()
        });
        let po = build::reduce(&mut pr.p, n, pbody, pi).unwrap();
        let body =
            pr.d.body_with(vec![elem.zipped_pair()], |d, a| {
                Ok(st_deep(d, a[0], &|d, x| {
                    d.add(StOp::Atom(AtomOp::Add), &[x]).unwrap()
                }))
            })
            .unwrap();
        let op = if timed {
            StOp::ReduceT { n, i, body }
        } else {
            // pipeline registers after a random subset of the chain's inner links
            let regs = (1..n.saturating_sub(1)).filter(|_| rng.coin()).collect();
            StOp::ReduceS { n, body, regs }
        };
        let dout = pr.d.add(op, &[di]).unwrap();
        let (p, d) = pr.finish(po, dout);
        let f = frames(&mut rng);
        seen.extend(check_rtl(&p, &d, k, f, "reduce"));
    }
    for want in ["reduce_s reduce-tree", "reduce_t reduce-accumulator"] {
        assert!(seen.contains(want), "{want} not covered: {seen:?}");
    }
}

#[test]
fn up_and_down() {
    if !tools() {
        return;
    }
    let mut rng = Rng::new(104);
    let mut seen = BTreeSet::new();
    for k in 0..INSTANCES {
        let sc = scalar(&mut rng);
        let elem = rand_layout(&mut rng, 3, sc);
        let n = rng.range(1, 4);
        let i = rng.range(0, 2);
        let idx = rng.range(0, n - 1);
        let (lin, op, sop) = match k % 4 {
            0 => (
                Layout::sseq(1, elem.clone()),
                StOp::UpS {
                    n,
                    elem: elem.clone(),
                },
                Op::Up { n },
            ),
            1 => (
                Layout::tseq(1, n - 1 + i, elem.clone()),
                StOp::UpT {
                    n,
                    i,
                    elem: elem.clone(),
                },
                Op::Up { n },
            ),
            2 => (
                Layout::sseq(n, elem.clone()),
                StOp::DownS {
                    n,
                    idx,
                    elem: elem.clone(),
                },
                Op::Down { n, idx },
            ),
            _ => (
                Layout::tseq(n, i, elem.clone()),
                StOp::DownT {
                    n,
                    i,
                    idx,
                    elem: elem.clone(),
                },
                Op::Down { n, idx },
            ),
        };
        let mut pr = Pair::new("updown");
        let (pi, di) = pr.input("I", &lin);
        let po = build::apply(&mut pr.p, sop, &[pi]).unwrap();
        let dout = pr.d.add(op, &[di]).unwrap();
        let (p, d) = pr.finish(po, dout);
        let f = frames(&mut rng);
        seen.extend(check_rtl(&p, &d, k, f, "updown"));
    }
    for want in ["up_1d_s", "up_1d_t", "down_1d_s", "down_1d_t"] {
        assert!(
            seen.iter().any(|s| s.starts_with(want)),
            "{want} not covered: {seen:?}"
        );
    }
}

#[test]
fn shifts_flat_and_nested() {
    if !tools() {
        return;
    }
    let mut rng = Rng::new(105);
    let mut seen = BTreeSet::new();
    for k in 0..(2 * INSTANCES) {
        let s = scalar(&mut rng);
        let elem = rand_layout(&mut rng, 2, s);
        let kind = k % 5;
        let (no, io) = (rng.range(2, 6), rng.range(0, 2));
        let inner: Vec<(u64, u64)> = (0..rng.range(1, 2))
            .map(|_| (rng.range(1, 3), rng.range(0, 2)))
            .collect();
        let shape = ShiftShape {
            kind,
            no,
            io,
            inner,
            elem,
        };
        let (_, _, count) = shape.layout();
        // mostly proper shifts (0 < amount < count), sometimes the extremes
        let amount = if rng.range(0, 4) == 0 {
            rng.range(0, count)
        } else {
            rng.range(1, count - 1)
        };
        let init = if rng.coin() {
            Some(random_value(&shape.elem.to_seq(), &mut rng))
        } else {
            None
        };
        let (p, d) = shape.pair(amount, init);
        let f = frames(&mut rng);
        seen.extend(check_rtl(&p, &d, k, f, "shift"));
    }
    for want in ["shift_s", "shift_t", "shift_ts", "shift_tt", "shift_tn"] {
        assert!(
            seen.iter().any(|s| s.starts_with(&format!("{want} "))),
            "{want} not covered: {seen:?}"
        );
    }
}

#[test]
fn partitions() {
    if !tools() {
        return;
    }
    let mut rng = Rng::new(106);
    let mut seen = BTreeSet::new();
    for k in 0..INSTANCES {
        let sc = scalar(&mut rng);
        let elem = rand_layout(&mut rng, 2, sc);
        let (no, ni, io, ii) = (
            rng.range(1, 3),
            rng.range(1, 3),
            rng.range(0, 2),
            rng.range(0, 2),
        );
        let inv = no * ii + io * (ni + ii);
        let (lin, op, sop) = match k % 4 {
            0 => (
                Layout::sseq(no * ni, elem.clone()),
                StOp::PartitionSS {
                    no,
                    ni,
                    elem: elem.clone(),
                },
                Op::Partition { no, ni },
            ),
            1 => (
                Layout::sseq(no, Layout::sseq(ni, elem.clone())),
                StOp::UnpartitionSS {
                    no,
                    ni,
                    elem: elem.clone(),
                },
                Op::Unpartition { no, ni },
            ),
            2 => (
                Layout::tseq(no * ni, inv, elem.clone()),
                StOp::PartitionTT {
                    no,
                    ni,
                    io,
                    ii,
                    elem: elem.clone(),
                },
                Op::Partition { no, ni },
            ),
            _ => (
                Layout::tseq(no, io, Layout::tseq(ni, ii, elem.clone())),
                StOp::UnpartitionTT {
                    no,
                    ni,
                    io,
                    ii,
                    elem: elem.clone(),
                },
                Op::Unpartition { no, ni },
            ),
        };
        let mut pr = Pair::new("partition");
        let (pi, di) = pr.input("I", &lin);
        let po = build::apply(&mut pr.p, sop, &[pi]).unwrap();
        let dout = pr.d.add(op, &[di]).unwrap();
        let (p, d) = pr.finish(po, dout);
        let f = frames(&mut rng);
        seen.extend(check_rtl(&p, &d, k, f, "partition"));
    }
    for want in [
        "partition_s_ss",
        "unpartition_s_ss",
        "partition_t_tt",
        "unpartition_t_tt",
    ] {
        assert!(
            seen.iter().any(|s| s.starts_with(&format!("{want} "))),
            "{want} not covered: {seen:?}"
        );
    }
}

#[test]
fn serializers_and_tuple_conversions() {
    if !tools() {
        return;
    }
    let mut rng = Rng::new(107);
    let mut seen = BTreeSet::new();
    for k in 0..INSTANCES {
        let sc = scalar(&mut rng);
        let elem = rand_layout(&mut rng, 2, sc);
        let (n, i) = (rng.range(1, 4), rng.range(0, 2));
        let mut pr = Pair::new("tuples");
        let e = elem.clone();
        let (po, dout) = match k % 4 {
            0 => {
                let lin = Layout::tseq(1, n - 1 + i, Layout::stuple(n, e.clone()));
                let (pi, di) = pr.input("I", &lin);
                let po = build::apply(&mut pr.p, Op::STupleToSeq { n }, &[pi]).unwrap();
                (
                    po,
                    pr.d.add(StOp::Serialize { n, i, elem: e }, &[di]).unwrap(),
                )
            }
            1 => {
                let (pi, di) = pr.input("I", &Layout::tseq(n, i, e.clone()));
                let po = build::apply(&mut pr.p, Op::SeqToSTuple { n }, &[pi]).unwrap();
                (
                    po,
                    pr.d.add(StOp::Deserialize { n, i, elem: e }, &[di])
                        .unwrap(),
                )
            }
            2 => {
                let (pi, di) = pr.input("I", &Layout::sseq(1, Layout::stuple(n, e.clone())));
                let po = build::apply(&mut pr.p, Op::STupleToSeq { n }, &[pi]).unwrap();
                let body =
                    pr.d.body_with(vec![Layout::stuple(n, e.clone())], |d, a| {
                        d.add(StOp::STupleToSSeq { n, elem: e.clone() }, &[a[0]])
                    })
                    .unwrap();
                (po, pr.d.add(StOp::MapS { n: 1, body }, &[di]).unwrap())
            }
            _ => {
                let (pi, di) = pr.input("I", &Layout::sseq(1, Layout::sseq(n, e.clone())));
                let flat =
                    build::apply(&mut pr.p, Op::Unpartition { no: 1, ni: n }, &[pi]).unwrap();
                let po = build::apply(&mut pr.p, Op::SeqToSTuple { n }, &[flat]).unwrap();
                let body =
                    pr.d.body_with(vec![Layout::sseq(n, e.clone())], |d, a| {
                        d.add(StOp::SSeqToSTuple { n, elem: e.clone() }, &[a[0]])
                    })
                    .unwrap();
                (po, pr.d.add(StOp::MapS { n: 1, body }, &[di]).unwrap())
            }
        };
        let (p, d) = pr.finish(po, dout);
        let f = frames(&mut rng);
        seen.extend(check_rtl(&p, &d, k, f, "tuples"));
    }
    for want in [
        "serialize",
        "deserialize",
        "stuple_to_sseq",
        "sseq_to_stuple",
    ] {
        assert!(
            seen.iter().any(|s| s.starts_with(&format!("{want} "))),
            "{want} not covered: {seen:?}"
        );
    }
}

/// The identity program beside a design that reshapes its input from `a` to `b`.
fn reshape_pair(name: &str, a: &Layout, b: &Layout) -> (Program, Design) {
    let mut pr = Pair::new(name);
    let (pi, di) = pr.input("I", a);
    let op = StOp::Reshape {
        from: a.clone(),
        to: b.clone(),
    };
    let dout = pr.d.add(op, &[di]).unwrap();
    pr.finish(pi, dout)
}

#[test]
fn reshapes_between_random_layouts() {
    if !tools() {
        return;
    }
    let pool = layout_pool();
    let mut rng = Rng::new(108);
    let mut seen = BTreeSet::new();
    for k in 0..(3 * INSTANCES) {
        let (a, b) = same_size_pair(&mut rng, &pool);
        let (p, d) = reshape_pair("reshape", &a, &b);
        let f = frames(&mut rng);
        seen.extend(check_rtl(&p, &d, k, f, "reshape"));
    }
    for want in ["reshape wiring", "reshape perm-buffer"] {
        assert!(seen.contains(want), "{want} not covered: {seen:?}");
    }
}

#[test]
fn transposes_between_random_layouts() {
    if !tools() {
        return;
    }
    let pool = layout_pool();
    let mut rng = Rng::new(112);
    let mut seen = BTreeSet::new();
    for k in 0..(3 * INSTANCES) {
        let (a, b) = same_size_pair(&mut rng, &pool);
        let (p, d) = transpose_pair(&mut rng, &a, &b);
        let f = frames(&mut rng);
        seen.extend(check_rtl(&p, &d, k, f, "transpose"));
    }
    for want in ["transpose wiring", "transpose perm-buffer"] {
        assert!(seen.contains(want), "{want} not covered: {seen:?}");
    }
}

/// Reshapes from layouts with invalid clocks, forced to delay lines (no register buffer):
/// the lines shift on valid clocks only (`docs/rtl.md`, delay taps) and still simulate equal
/// to the interpreter.
#[test]
fn reshapes_from_sparse_layouts_as_gated_delay_lines() {
    if !tools() {
        return;
    }
    let pool = layout_pool();
    let mut rng = Rng::new(110);
    let mut gated = 0;
    let mut k = 0;
    while k < 3 * INSTANCES {
        let (a, b) = same_size_pair(&mut rng, &pool);
        if (0..a.clocks()).all(|c| a.is_valid_clock(c)) {
            continue;
        }
        let (p, d) = reshape_pair("reshape_gated", &a, &b);
        let dir = work("reshape_gated", k);
        let opts = VerifyOptions {
            seed: k,
            frames: frames(&mut rng),
            rtl: RtlOptions {
                buffer_max_bits: 0,
                ..RtlOptions::default()
            },
            ..VerifyOptions::default()
        };
        let v = verify_rtl(&d, &p, &dir, &opts).unwrap_or_else(|e| panic!("{k}: {e}"));
        assert!(
            v.passed(),
            "{a} -> {b} (work dir {}): lint {:?}; {:#?}",
            dir.display(),
            v.lint,
            v.mismatches
        );
        gated += usize::from(v.rtl.verilog.contains("if (en_"));
        k += 1;
    }
    assert!(gated >= 4, "only {gated} reshapes used gated delay lines");
}

#[test]
fn fifos_counters_and_joins() {
    if !tools() {
        return;
    }
    let mut rng = Rng::new(109);
    for k in 0..INSTANCES {
        let l = rand_layout(&mut rng, 3, ScalarType::UInt8);
        let delay = rng.range(0, 2 * l.clocks() + 4);
        let mut pr = Pair::new("fifo");
        let (pi, di) = pr.input("I", &l);
        let f =
            pr.d.add(
                StOp::Fifo {
                    layout: l.clone(),
                    delay,
                },
                &[di],
            )
            .unwrap();
        let incr = rng.range(0, 5);
        let c =
            pr.d.add(
                StOp::Counter {
                    layout: l.clone(),
                    incr,
                    delay: 0,
                },
                &[],
            )
            .unwrap();
        let dout = st_deep2(&mut pr.d, f, c, &st_add);
        let total = l.atoms();
        let pc = pr.p.add(
            Op::Counter {
                n: total,
                incr,
                ty: ScalarType::UInt8,
            },
            vec![],
            SeqType::seq(total, ScalarType::UInt8.into()),
        );
        let pflat = seq_flatten(&mut pr.p, pi, depth_of(&l.to_seq()));
        let po = match pr.p.ty(pflat).clone() {
            SeqType::Seq(..) => seq_deep2(&mut pr.p, pflat, pc, &seq_add),
            _ => {
                let z =
                    build::constant(&mut pr.p, Value::Scalar(0), ScalarType::UInt8.into()).unwrap();
                seq_add(&mut pr.p, pflat, z)
            }
        };
        let (p, d) = pr.finish(po, dout);
        let fr = frames(&mut rng);
        check_rtl(&p, &d, k, fr, "fifo");
    }
    // x + reshape(reshape(x)): misaligned joins get FIFOs before emission
    let pool = layout_pool();
    let mut delayed = 0;
    for k in 0..INSTANCES {
        let (a, b) = same_size_pair(&mut rng, &pool);
        let mut pr = Pair::new("join");
        let (pi, di) = pr.input("I", &a);
        let r1 =
            pr.d.add(
                StOp::Reshape {
                    from: a.clone(),
                    to: b.clone(),
                },
                &[di],
            )
            .unwrap();
        let r2 =
            pr.d.add(
                StOp::Reshape {
                    from: b.clone(),
                    to: a.clone(),
                },
                &[r1],
            )
            .unwrap();
        let dout = st_deep2(&mut pr.d, r2, di, &st_add);
        let po = match pr.p.ty(pi).clone() {
            SeqType::Seq(..) => seq_deep2(&mut pr.p, pi, pi, &seq_add),
            _ => seq_add(&mut pr.p, pi, pi),
        };
        let (p, d) = pr.finish(po, dout);
        if !tessera::st::latency::analyze(&d)
            .unwrap()
            .misaligned
            .is_empty()
        {
            delayed += 1;
        }
        check_rtl(&p, &d, k, 3, "join");
    }
    assert!(delayed > 0, "no instance needed FIFOs");
}

/// A binary atom operator at every element of two random streams: the program and design.
fn atom_pair(
    rng: &mut Rng,
    op: AtomOp,
    ta: ScalarType,
    tb: ScalarType,
    konst: Option<u64>,
    k: u64,
) -> (Program, Design) {
    let l = rand_layout(rng, 3, ta);
    let lb = relabel(&l, tb);
    let mut pr = Pair::new("atom");
    let (pa, da) = pr.input("A", &l);
    let apply_seq = move |p: &mut Program, x, y| {
        let y = match konst {
            Some(c) => build::constant(p, Value::Scalar(c), tb.into()).unwrap(),
            None => y,
        };
        let t = build::apply(p, Op::ATuple, &[x, y]).unwrap();
        build::apply(p, Op::Atom(op), &[t]).unwrap()
    };
    let apply_st = move |d: &mut Design, x, y| {
        let y = match konst {
            Some(c) => d
                .add(
                    StOp::Const {
                        value: Value::Scalar(c),
                        layout: tb.into(),
                        delay: 0,
                    },
                    &[],
                )
                .unwrap(),
            None => y,
        };
        let t = d.add(StOp::ATuple, &[x, y]).unwrap();
        d.add(StOp::Atom(op), &[t]).unwrap()
    };
    let (po, dout) = if konst.is_some() {
        (
            seq_deep(&mut pr.p, pa, &|p, x| apply_seq(p, x, x)),
            st_deep(&mut pr.d, da, &|d, x| apply_st(d, x, x)),
        )
    } else {
        let (pb, db) = pr.input("B", &lb);
        (
            seq_deep2(&mut pr.p, pa, pb, &apply_seq),
            st_deep2(&mut pr.d, da, db, &apply_st),
        )
    };
    let _ = k;
    pr.finish(po, dout)
}

/// The same layout over another scalar.
fn relabel(l: &Layout, s: ScalarType) -> Layout {
    match l {
        Layout::SSeq(n, e) => Layout::sseq(*n, relabel(e, s)),
        Layout::TSeq(n, i, e) => Layout::tseq(*n, *i, relabel(e, s)),
        _ => Layout::Scalar(s),
    }
}

#[test]
fn every_atom_operator() {
    if !tools() {
        return;
    }
    use ScalarType::*;
    let mut rng = Rng::new(110);
    let ints = [Int8, UInt8, Int16, UInt16, Int32, UInt32];
    let mut k = 0;
    let mut run = |rng: &mut Rng, p: Program, d: Design, tag: &str| {
        k += 1;
        let f = frames(rng);
        check_rtl(&p, &d, k, f, tag);
    };
    for op in [
        AtomOp::Add,
        AtomOp::Sub,
        AtomOp::Mul,
        AtomOp::Lt,
        AtomOp::Eq,
    ] {
        for t in ints {
            let (p, d) = atom_pair(&mut rng, op, t, t, None, 0);
            run(&mut rng, p, d, op.name());
        }
    }
    for (op, tb) in [
        (AtomOp::Div, FixP1_7),
        (AtomOp::Lsr, UInt8),
        (AtomOp::Lsl, UInt8),
    ] {
        for t in ints {
            let (p, d) = atom_pair(&mut rng, op, t, tb, None, 0);
            run(&mut rng, p, d, op.name());
        }
    }
    // constant operands: shift-and-add multiplies and divides, constant shifts
    for t in ints {
        for c in [0u64, 1, 3, 7, 10, 100, 255] {
            let (p, d) = atom_pair(&mut rng, AtomOp::Mul, t, t, Some(c & t.mask()), 0);
            run(&mut rng, p, d, "mulc");
        }
        for c in [0u64, 1, 42, 128, 200, 255] {
            let (p, d) = atom_pair(&mut rng, AtomOp::Div, t, FixP1_7, Some(c), 0);
            run(&mut rng, p, d, "divc");
        }
        for c in [0u64, 3, 9, 40] {
            for op in [AtomOp::Lsl, AtomOp::Lsr] {
                let (p, d) = atom_pair(&mut rng, op, t, UInt8, Some(c), 0);
                run(&mut rng, p, d, "shiftc");
            }
        }
    }
    for op in [AtomOp::And, AtomOp::Or, AtomOp::Eq, AtomOp::Lt] {
        let (p, d) = atom_pair(&mut rng, op, Bit, Bit, None, 0);
        run(&mut rng, p, d, op.name());
    }
    for (op, t) in [
        (AtomOp::Fst, Int16),
        (AtomOp::Snd, UInt8),
        (AtomOp::Lt, FixP1_7),
        (AtomOp::Eq, FixP1_7),
    ] {
        let (p, d) = atom_pair(
            &mut rng,
            op,
            t,
            if op == AtomOp::Snd { Int32 } else { t },
            None,
            0,
        );
        run(&mut rng, p, d, op.name());
    }
    // unary: abs on every integer type, not on bits
    for (op, t) in ints
        .iter()
        .map(|t| (AtomOp::Abs, *t))
        .chain([(AtomOp::Not, Bit)])
    {
        let l = rand_layout(&mut rng, 3, t);
        let mut pr = Pair::new("unary");
        let (pa, da) = pr.input("A", &l);
        let po = seq_deep(&mut pr.p, pa, &|p, x| {
            build::apply(p, Op::Atom(op), &[x]).unwrap()
        });
        let dout = st_deep(&mut pr.d, da, &|d, x| d.add(StOp::Atom(op), &[x]).unwrap());
        let (p, d) = pr.finish(po, dout);
        run(&mut rng, p, d, op.name());
    }
    // if: (atuple bit (atuple t t)) from three streams
    for t in [Int8, UInt16, Int32] {
        let l = rand_layout(&mut rng, 3, t);
        let lc = relabel(&l, Bit);
        let mut pr = Pair::new("if");
        let (pc, dc) = pr.input("C", &lc);
        let (pa, da) = pr.input("A", &l);
        let (pb, db) = pr.input("B", &l);
        let pab = seq_deep2(&mut pr.p, pa, pb, &|p, x, y| {
            build::apply(p, Op::ATuple, &[x, y]).unwrap()
        });
        let po = seq_deep2(&mut pr.p, pc, pab, &|p, c, ab| {
            let t = build::apply(p, Op::ATuple, &[c, ab]).unwrap();
            build::apply(p, Op::Atom(AtomOp::If), &[t]).unwrap()
        });
        let dab = st_deep2(&mut pr.d, da, db, &|d, x, y| {
            d.add(StOp::ATuple, &[x, y]).unwrap()
        });
        let dout = st_deep2(&mut pr.d, dc, dab, &|d, c, ab| {
            let t = d.add(StOp::ATuple, &[c, ab]).unwrap();
            d.add(StOp::Atom(AtomOp::If), &[t]).unwrap()
        });
        let (p, d) = pr.finish(po, dout);
        run(&mut rng, p, d, "if");
    }
}
