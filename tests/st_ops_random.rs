//! Every space-time operator, simulated clock by clock on random instances (random sizes,
//! nestings, invalid counts and data, several frames back to back) and compared with the
//! interpreter running the sequence program it implements.

#[path = "st_common/mod.rs"]
mod common;

use common::*;
use tessera::seq::build;
use tessera::seq::op::{AtomOp, Op};
use tessera::seq::types::{ScalarType, SeqType};
use tessera::seq::value::{random_value, Value};
use tessera::st::{Layout, StOp};
use tessera::util::rng::Rng;

const INSTANCES: u64 = 40;

fn frames(rng: &mut Rng) -> usize {
    rng.range(2, 4) as usize
}

#[test]
fn map_s_and_map_t_over_nested_layouts() {
    let mut rng = Rng::new(1);
    for k in 0..INSTANCES {
        let l = {
            let s = scalar(&mut rng);
            rand_layout(&mut rng, 4, s)
        };
        let leaf = match rng.range(0, 2) {
            0 => Leaf::Abs,
            1 => Leaf::AddConst(rng.next_u64()),
            _ => Leaf::MulConst(rng.range(0, 9)),
        };
        let mut pr = Pair::new("map");
        let (pi, di) = pr.input("I", &l);
        let po = seq_deep(&mut pr.p, pi, &|p, x| seq_leaf(p, leaf, x));
        let dout = st_deep(&mut pr.d, di, &|d, x| st_leaf(d, leaf, x));
        let (p, d) = pr.finish(po, dout);
        let f = frames(&mut rng);
        check_pair(&p, &d, k, f);
    }
}

#[test]
fn map2_s_and_map2_t_join_two_inputs() {
    let mut rng = Rng::new(2);
    for k in 0..INSTANCES {
        let l = {
            let s = scalar(&mut rng);
            rand_layout(&mut rng, 4, s)
        };
        let mut pr = Pair::new("map2");
        let (pa, da) = pr.input("A", &l);
        let (pb, db) = pr.input("B", &l);
        let po = seq_deep2(&mut pr.p, pa, pb, &seq_add);
        let dout = st_deep2(&mut pr.d, da, db, &st_add);
        let (p, d) = pr.finish(po, dout);
        let f = frames(&mut rng);
        check_pair(&p, &d, k, f);
    }
}

#[test]
fn reduce_s_and_reduce_t_with_nested_elements() {
    let mut rng = Rng::new(3);
    for k in 0..INSTANCES {
        let s = scalar(&mut rng);
        let elem = rand_layout(&mut rng, 2, s);
        let n = rng.range(1, 6);
        let timed = rng.coin();
        let i = if timed { rng.range(0, 3) } else { 0 };
        let l = if timed {
            Layout::tseq(n, i, elem.clone())
        } else {
            Layout::sseq(n, elem.clone())
        };
        let mut pr = Pair::new("reduce");
        let (pi, di) = pr.input("I", &l);
        // seq: reduce n f, f = add at the atoms of the zipped pair
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
        check_pair(&p, &d, k, f);
    }
}

#[test]
fn up_and_down_in_space_and_time() {
    let mut rng = Rng::new(4);
    for k in 0..INSTANCES {
        let elem = {
            let s = scalar(&mut rng);
            rand_layout(&mut rng, 3, s)
        };
        let n = rng.range(1, 4);
        let i = rng.range(0, 3);
        let idx = rng.range(0, n - 1);
        let which = rng.range(0, 3);
        let (lin, op, sop) = match which {
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
        check_pair(&p, &d, k, f);
    }
}

#[test]
fn shifts_over_flat_and_nested_time() {
    let mut rng = Rng::new(5);
    for k in 0..(2 * INSTANCES) {
        let s = scalar(&mut rng);
        let elem = rand_layout(&mut rng, 2, s);
        let kind = rng.range(0, 4);
        let (no, io) = (rng.range(1, 4), rng.range(0, 2));
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
        let amount = rng.range(0, count);
        let init = if rng.coin() {
            Some(random_value(&shape.elem.to_seq(), &mut rng))
        } else {
            None
        };
        let (p, d) = shape.pair(amount, init);
        let f = frames(&mut rng);
        check_pair(&p, &d, k, f);
    }
}

#[test]
fn partitions_in_space_and_time() {
    let mut rng = Rng::new(6);
    for k in 0..INSTANCES {
        let elem = {
            let s = scalar(&mut rng);
            rand_layout(&mut rng, 2, s)
        };
        let (no, ni, io, ii) = (
            rng.range(1, 3),
            rng.range(1, 3),
            rng.range(0, 2),
            rng.range(0, 2),
        );
        let inv = no * ii + io * (ni + ii);
        let (lin, op, sop) = match rng.range(0, 3) {
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
        check_pair(&p, &d, k, f);
    }
}

#[test]
fn serialize_deserialize_and_tuple_conversions() {
    let mut rng = Rng::new(7);
    for k in 0..INSTANCES {
        let elem = {
            let s = scalar(&mut rng);
            rand_layout(&mut rng, 2, s)
        };
        let (n, i) = (rng.range(1, 4), rng.range(0, 2));
        let mut pr = Pair::new("tuples");
        let e = elem.clone();
        let (po, dout) = match rng.range(0, 3) {
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
                // (sseq 1 (stuple n e)) -> map_s 1 (stuple_to_sseq n e)
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
        check_pair(&p, &d, k, f);
    }
}

#[test]
fn reshapes_between_random_layouts_of_equal_clocks() {
    let pool = layout_pool();
    let mut rng = Rng::new(8);
    for k in 0..(2 * INSTANCES) {
        let (a, b) = same_size_pair(&mut rng, &pool);
        let mut pr = Pair::new("reshape");
        let (pi, di) = pr.input("I", &a);
        let dout =
            pr.d.add(
                StOp::Reshape {
                    from: a.clone(),
                    to: b.clone(),
                },
                &[di],
            )
            .unwrap();
        // A reshape keeps the flattened value: the program is the identity.
        let (p, d) = pr.finish(pi, dout);
        let f = frames(&mut rng);
        check_pair(&p, &d, k, f);
    }
}

#[test]
fn transposes_between_random_layouts_of_equal_clocks() {
    let pool = layout_pool();
    let mut rng = Rng::new(9);
    for k in 0..(2 * INSTANCES) {
        let (a, b) = same_size_pair(&mut rng, &pool);
        let (p, d) = transpose_pair(&mut rng, &a, &b);
        let f = frames(&mut rng);
        check_pair(&p, &d, k, f);
    }
}

#[test]
fn fifo_delays_and_generators() {
    let mut rng = Rng::new(9);
    for k in 0..INSTANCES {
        let l = rand_layout(&mut rng, 3, ScalarType::UInt8);
        let delay = rng.range(0, 2 * l.clocks() + 1);
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
        // add a counter laid out like the input (its seq value is a nested counter)
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
            Vec::new(),
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
        check_pair(&p, &d, k, fr);
    }
}

#[test]
fn joins_of_branches_with_different_latency_get_fifos() {
    // x + reshape(reshape(x)): the round trip through another layout delays one branch.
    let pool = layout_pool();
    let mut rng = Rng::new(10);
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
        let lat = tessera::st::latency::analyze(&d).unwrap();
        if !lat.misaligned.is_empty() {
            delayed += 1;
            // Without FIFOs, simulating clock by clock shows the join pairing wrong data.
            let inputs = tessera::st::verify::random_frames(&p, k, 3);
            let v = tessera::st::verify::verify(&d, &p, &inputs).unwrap();
            assert!(
                !v.passed() && v.mismatch_count > 0,
                "a misaligned join went unnoticed:\n{}",
                d.to_text()
            );
        }
        check_pair(&p, &d, k, 3);
    }
    assert!(
        delayed > 5,
        "too few instances exercised FIFO insertion ({delayed})"
    );
}
