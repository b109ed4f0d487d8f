//! Shared helpers for the space-time tests: random layouts, paired builders that make a
//! space-time design and the sequence program it must implement, and the check that runs
//! both (simulation against interpretation, text round trip).
#![allow(dead_code)]

use tessera::seq::build;
use tessera::seq::op::{AtomOp, Op};
use tessera::seq::types::{ScalarType, SeqType};
use tessera::seq::value::Value;
use tessera::seq::{NodeId as PNode, Program};
use tessera::st::latency::{analyze, insert_fifos};
use tessera::st::verify::{random_frames, verify};
use tessera::st::{parse_design, Design, Layout, NodeId, StOp};
use tessera::util::rng::Rng;

/// A random element layout: up to `depth` sseq/tseq layers (small lengths, invalid counts
/// up to 2, so inner layers often have interleaved invalid clocks) over `s`.
pub fn rand_layout(rng: &mut Rng, depth: u32, s: ScalarType) -> Layout {
    let mut l = Layout::Scalar(s);
    for _ in 0..rng.range(0, u64::from(depth)) {
        let n = rng.range(1, 3);
        l = if rng.coin() {
            Layout::sseq(n, l)
        } else {
            Layout::tseq(n, rng.range(0, 2), l)
        };
    }
    l
}

/// A program and a design built side by side.
pub struct Pair {
    pub p: Program,
    pub d: Design,
}

impl Pair {
    pub fn new(name: &str) -> Pair {
        Pair {
            p: Program::new(name),
            d: Design::new(name),
        }
    }

    /// One input: the design gets `l`, the program `l`'s sequence type.
    pub fn input(&mut self, name: &str, l: &Layout) -> (PNode, NodeId) {
        (
            self.p.add_input(name, l.to_seq()),
            self.d.add_input(name, l.clone()).unwrap(),
        )
    }

    pub fn finish(mut self, po: PNode, dout: NodeId) -> (Program, Design) {
        self.p.set_output(po);
        self.d.set_output(dout).unwrap();
        (self.p, self.d)
    }
}

/// Two random layouts of one size and clock count from [`layout_pool`]'s groups.
pub fn same_size_pair(rng: &mut Rng, pool: &[Vec<Layout>]) -> (Layout, Layout) {
    let g = rng.pick(pool);
    (rng.pick(g).clone(), rng.pick(g).clone())
}

/// A random transpose from layout `a` to layout `b` (one size and clock count) beside its
/// program: the atoms split at random into `no` rows of `ni` elements, the program's input
/// typed `(seq no (seq ni elem))` (which `a` lays out flat-order-wise).
pub fn transpose_pair(rng: &mut Rng, a: &Layout, b: &Layout) -> (Program, Design) {
    let atoms = a.atoms();
    let divisors = |n: u64| {
        (1..=n)
            .filter(|d| n.is_multiple_of(*d))
            .collect::<Vec<u64>>()
    };
    let no = *rng.pick(&divisors(atoms));
    let ni = *rng.pick(&divisors(atoms / no));
    let elem = match atoms / (no * ni) {
        1 => a.atom().to_seq(),
        k => SeqType::seq(k, a.atom().to_seq()),
    };
    let mut p = Program::new("transpose");
    let x = p.add_input("I", SeqType::seq(no, SeqType::seq(ni, elem)));
    let y = build::apply(&mut p, Op::Transpose { no, ni }, &[x]).unwrap();
    p.set_output(y);
    let mut d = Design::new("transpose");
    let di = d.add_input("I", a.clone()).unwrap();
    let op = StOp::Transpose {
        no,
        ni,
        from: a.clone(),
        to: b.clone(),
    };
    let out = d.add(op, &[di]).unwrap();
    d.set_output(out).unwrap();
    (p, d)
}

/// Leaf functions, applied at the atoms by the deep maps below.
#[derive(Clone, Copy, Debug)]
pub enum Leaf {
    Abs,
    /// `x + c` with a constant (a generator inside a body).
    AddConst(u64),
    /// `x * c`.
    MulConst(u64),
}

fn scalar_of(l: &Layout) -> ScalarType {
    match l.atom() {
        Layout::Scalar(s) => *s,
        _ => ScalarType::Int8,
    }
}

pub fn seq_leaf(p: &mut Program, f: Leaf, x: PNode) -> PNode {
    let ty = p.ty(x).clone();
    match f {
        Leaf::Abs => build::apply(p, Op::Atom(AtomOp::Abs), &[x]).unwrap(),
        Leaf::AddConst(c) | Leaf::MulConst(c) => {
            let s = ty.as_scalar().unwrap();
            let k = build::constant(p, Value::Scalar(c & s.mask()), ty).unwrap();
            let t = build::apply(p, Op::ATuple, &[x, k]).unwrap();
            let op = if matches!(f, Leaf::Abs | Leaf::AddConst(_)) {
                AtomOp::Add
            } else {
                AtomOp::Mul
            };
            build::apply(p, Op::Atom(op), &[t]).unwrap()
        }
    }
}

pub fn st_leaf(d: &mut Design, f: Leaf, x: NodeId) -> NodeId {
    let l = d.layout(x).clone();
    match f {
        Leaf::Abs => d.add(StOp::Atom(AtomOp::Abs), &[x]).unwrap(),
        Leaf::AddConst(c) | Leaf::MulConst(c) => {
            let s = scalar_of(&l);
            let k = d
                .add(
                    StOp::Const {
                        value: Value::Scalar(c & s.mask()),
                        layout: l,
                        delay: 0,
                    },
                    &[],
                )
                .unwrap();
            let t = d.add(StOp::ATuple, &[x, k]).unwrap();
            let op = if matches!(f, Leaf::AddConst(_)) {
                AtomOp::Add
            } else {
                AtomOp::Mul
            };
            d.add(StOp::Atom(op), &[t]).unwrap()
        }
    }
}

/// Seq: `f` applied at every atom of `x` through nested maps.
pub fn seq_deep(p: &mut Program, x: PNode, f: &dyn Fn(&mut Program, PNode) -> PNode) -> PNode {
    match p.ty(x).clone() {
        SeqType::Seq(n, e) => {
            let a = build::arg(p, 0, (*e).clone());
            let b = seq_deep(p, a, f);
            build::map(p, n, b, x).unwrap()
        }
        _ => f(p, x),
    }
}

/// St: `f` applied at every atom of `x` through `map_s`/`map_t` following its layout.
pub fn st_deep(d: &mut Design, x: NodeId, f: &dyn Fn(&mut Design, NodeId) -> NodeId) -> NodeId {
    let l = d.layout(x).clone();
    match &l {
        Layout::SSeq(n, e) | Layout::TSeq(n, _, e) => {
            let body = d
                .body_with(vec![(**e).clone()], |d, a| Ok(st_deep(d, a[0], f)))
                .unwrap();
            let op = match l {
                Layout::SSeq(..) => StOp::MapS { n: *n, body },
                Layout::TSeq(_, i, _) => StOp::MapT { n: *n, i, body },
                _ => unreachable!(),
            };
            d.add(op, &[x]).unwrap()
        }
        _ => f(d, x),
    }
}

/// Seq: `f(x, y)` at every pair of atoms, through nested `map2`.
pub fn seq_deep2(
    p: &mut Program,
    x: PNode,
    y: PNode,
    f: &dyn Fn(&mut Program, PNode, PNode) -> PNode,
) -> PNode {
    match (p.ty(x).clone(), p.ty(y).clone()) {
        (SeqType::Seq(n, e), SeqType::Seq(_, g)) => {
            let a = build::arg(p, 0, (*e).clone());
            let b = build::arg(p, 1, (*g).clone());
            let body = seq_deep2(p, a, b, f);
            build::map2(p, n, body, x, y).unwrap()
        }
        _ => f(p, x, y),
    }
}

/// St: `f(x, y)` at every pair of atoms, through `map2_s`/`map2_t`.
pub fn st_deep2(
    d: &mut Design,
    x: NodeId,
    y: NodeId,
    f: &dyn Fn(&mut Design, NodeId, NodeId) -> NodeId,
) -> NodeId {
    let (lx, ly) = (d.layout(x).clone(), d.layout(y).clone());
    match (&lx, &ly) {
        (Layout::SSeq(n, e), Layout::SSeq(_, g))
        | (Layout::TSeq(n, _, e), Layout::TSeq(_, _, g)) => {
            let body = d
                .body_with(vec![(**e).clone(), (**g).clone()], |d, a| {
                    Ok(st_deep2(d, a[0], a[1], f))
                })
                .unwrap();
            let op = match lx {
                Layout::SSeq(..) => StOp::Map2S { n: *n, body },
                Layout::TSeq(_, i, _) => StOp::Map2T { n: *n, i, body },
                _ => unreachable!(),
            };
            d.add(op, &[x, y]).unwrap()
        }
        _ => f(d, x, y),
    }
}

pub fn seq_add(p: &mut Program, x: PNode, y: PNode) -> PNode {
    let t = build::apply(p, Op::ATuple, &[x, y]).unwrap();
    build::apply(p, Op::Atom(AtomOp::Add), &[t]).unwrap()
}

pub fn st_add(d: &mut Design, x: NodeId, y: NodeId) -> NodeId {
    let t = d.add(StOp::ATuple, &[x, y]).unwrap();
    d.add(StOp::Atom(AtomOp::Add), &[t]).unwrap()
}

/// Seq: flattens the outer `levels` sequence layers of `x` into one.
pub fn seq_flatten(p: &mut Program, x: PNode, levels: usize) -> PNode {
    if levels <= 1 {
        return x;
    }
    // flatten the inner levels-1 layers of every element first
    let (n, e) = match p.ty(x).clone() {
        SeqType::Seq(n, e) => (n, *e),
        _ => panic!("not a sequence"),
    };
    let inner = if levels > 2 {
        let a = build::arg(p, 0, e);
        let b = seq_flatten(p, a, levels - 1);
        build::map(p, n, b, x).unwrap()
    } else {
        x
    };
    let (n, m) = match p.ty(inner) {
        SeqType::Seq(n, e) => (*n, e.as_seq().unwrap().0),
        _ => unreachable!(),
    };
    build::apply(p, Op::Unpartition { no: n, ni: m }, &[inner]).unwrap()
}

/// Simulates `d` against `p` on `frames` random frames; if the design has misaligned
/// joins, FIFOs are inserted first. Also checks the text round trip. Panics with a report
/// on any disagreement.
pub fn check_pair(p: &Program, d: &Design, seed: u64, frames: usize) {
    let d = if analyze(d).unwrap().misaligned.is_empty() {
        d.clone()
    } else {
        insert_fifos(d).unwrap()
    };
    let inputs = random_frames(p, seed, frames);
    let v = verify(&d, p, &inputs).unwrap_or_else(|e| panic!("{e}\n{}", d.to_text()));
    assert!(
        v.passed(),
        "design disagrees with the interpreter (seed {seed}): {} mismatches, first {:?}; latency {} (model {}); violations {:?}\n{}",
        v.mismatch_count,
        v.mismatches.first(),
        v.sim.latency,
        v.sim.model_latency,
        v.sim.violations,
        d.to_text()
    );
    assert!(v.checked > 0 || v.skipped > 0);
    round_trip(&d);
}

/// `parse(to_text(d))` is `d` (canonically), and printing again gives the same text.
pub fn round_trip(d: &Design) {
    let t = d.to_text();
    let d2 = parse_design("round_trip.st", &t).unwrap_or_else(|e| panic!("{e}\n{t}"));
    assert_eq!(
        d2.canonical(),
        d.canonical(),
        "round trip changed the design:\n{t}"
    );
    assert_eq!(d2.to_text(), t);
}

/// Every small layout of depth up to 3 over int8, grouped by (atoms, clocks).
pub fn layout_pool() -> Vec<Vec<Layout>> {
    let mut all = vec![Layout::Scalar(ScalarType::Int8)];
    let mut frontier = all.clone();
    for _ in 0..3 {
        let mut next = Vec::new();
        for l in &frontier {
            for n in 1..=3 {
                next.push(Layout::sseq(n, l.clone()));
                for i in 0..=2 {
                    next.push(Layout::tseq(n, i, l.clone()));
                }
            }
        }
        all.extend(next.iter().cloned());
        frontier = next;
    }
    let mut groups: std::collections::BTreeMap<(u64, u64), Vec<Layout>> = Default::default();
    for l in all {
        groups.entry((l.atoms(), l.clocks())).or_default().push(l);
    }
    groups.into_values().filter(|g| g.len() > 1).collect()
}

/// The number of `seq` layers of `t`.
pub fn depth_of(t: &SeqType) -> usize {
    match t {
        SeqType::Seq(_, e) => 1 + depth_of(e),
        _ => 0,
    }
}

/// A random integer scalar type for test data.
pub fn scalar(rng: &mut Rng) -> ScalarType {
    *rng.pick(&[ScalarType::Int8, ScalarType::UInt8, ScalarType::Int16])
}

/// A random shift case: the operator form (`kind` 0..=4: `shift_s`, `shift_t`, `shift_ts`,
/// `shift_tt`, `shift_tn`), the outer length and invalid count, the inner layers and the
/// element layout.
pub struct ShiftShape {
    pub kind: u64,
    pub no: u64,
    pub io: u64,
    pub inner: Vec<(u64, u64)>,
    pub elem: Layout,
}

impl ShiftShape {
    /// The layout the shift works on, its number of `seq` levels and the shifted length.
    pub fn layout(&self) -> (Layout, usize, u64) {
        let (no, io, inner, elem) = (self.no, self.io, &self.inner, &self.elem);
        match self.kind {
            0 => (Layout::sseq(no, elem.clone()), 1, no),
            1 => (Layout::tseq(no, io, elem.clone()), 1, no),
            2 => (
                Layout::tseq(no, io, Layout::sseq(inner[0].0, elem.clone())),
                2,
                no * inner[0].0,
            ),
            3 => (
                Layout::tseq(no, io, Layout::tseq(inner[0].0, inner[0].1, elem.clone())),
                2,
                no * inner[0].0,
            ),
            _ => {
                let mut l = elem.clone();
                for (n, i) in inner.iter().rev() {
                    l = Layout::tseq(*n, *i, l);
                }
                let c = no * inner.iter().map(|x| x.0).product::<u64>();
                (Layout::tseq(no, io, l), inner.len() + 1, c)
            }
        }
    }

    /// The shift operator of this form.
    pub fn op(&self, amount: u64, init: Option<Value>) -> StOp {
        let (no, io, inner, elem) = (self.no, self.io, &self.inner, self.elem.clone());
        let (ni, ii) = inner[0];
        match self.kind {
            0 => StOp::ShiftS {
                n: no,
                amount,
                elem,
                init,
            },
            1 => StOp::ShiftT {
                n: no,
                i: io,
                amount,
                elem,
                init,
            },
            2 => StOp::ShiftTS {
                no,
                io,
                ni,
                amount,
                elem,
                init,
            },
            3 => StOp::ShiftTT {
                no,
                ni,
                io,
                ii,
                amount,
                elem,
                init,
            },
            _ => StOp::ShiftTN {
                no,
                io,
                nis: inner.iter().map(|x| x.0).collect(),
                iis: inner.iter().map(|x| x.1).collect(),
                amount,
                elem,
                init,
            },
        }
    }

    /// The design of the shift and the program it must implement: the sequence shift of
    /// the flattened value.
    pub fn pair(&self, amount: u64, init: Option<Value>) -> (Program, Design) {
        let (layout, levels, count) = self.layout();
        let mut pr = Pair::new("shift");
        let (pi, di) = pr.input("I", &layout);
        let flat = seq_flatten(&mut pr.p, pi, levels);
        let shift = Op::Shift {
            n: count,
            amount,
            init: init.clone(),
        };
        let po = build::apply(&mut pr.p, shift, &[flat]).unwrap();
        let dout = pr.d.add(self.op(amount, init), &[di]).unwrap();
        pr.finish(po, dout)
    }
}
