//! The fast evaluator: the reference interpreter's semantics ([`super::interp`]) over flat
//! columns of scalars, for full-size frames.
//!
//! Each scope (the program, a function body) is evaluated once for a whole *batch* of
//! instances: a `map n` body runs once on the `n` elements of every instance of its input,
//! as columns, instead of once per element on trees. Data movement (`shift`, `partition`,
//! seq-tuples, `down_1d`, chunking) mostly re-labels or re-slices the columns without
//! copying them. A body that computes over a large batch runs in chunks of a few thousand
//! instances, so its intermediate values stay small and in cache. Constants and counters
//! are cyclic columns (one copy, repeated), and a body whose inputs all repeat runs over one
//! period only. Values are dropped after their last use.
//!
//! The reference interpreter stays the judge: `tests/seq_fast.rs` checks this evaluator
//! against it on every example and on random programs.

mod atom;
mod col;
pub mod estimate;
mod val;

use super::flat::{FlatValue, Shape};
use super::interp::expand_undef;
use super::op::{AtomOp, Op};
use super::program::{NodeId, Program};
use super::scope::Scope;
use super::types::SeqType;
use super::value::Value;
use col::{Buf, Col};
pub use estimate::memory_estimate;
use std::collections::HashMap;
use std::rc::Rc;
use val::FVal;

/// Instances per chunk of a large body evaluation.
const CHUNK: usize = 4096;
/// A body is evaluated in chunks when its batch exceeds this (nested bodies of a chunk are
/// a few times larger and are not cut again).
const CHUNK_ABOVE: usize = 16 * CHUNK;

/// Frames with more input atoms than this are checked against the fast evaluator by
/// [`expected`].
pub const LARGE_FRAME: u64 = 1 << 16;

/// A program's output on one frame, for checking a design against the program: the
/// reference interpreter, the judge, on small frames (every test's); the fast evaluator,
/// tested equal to it, on frames of more than [`LARGE_FRAME`] input atoms (a full image),
/// where the reference takes minutes and gigabytes.
pub fn expected(p: &Program, inputs: &[Value]) -> Result<Value, String> {
    let atoms: u64 = p.inputs.iter().map(|d| d.ty.atoms()).sum();
    if atoms > LARGE_FRAME {
        eval(p, inputs)
    } else {
        super::interp::eval(p, inputs)
    }
}

/// Runs `p` on flat inputs (in declaration order) and returns its flat output.
///
/// Each input must have its declared type and well-formed vectors ([`FlatValue::check`]);
/// the error names the input.
pub fn eval_flat(p: &Program, inputs: &[FlatValue]) -> Result<FlatValue, String> {
    if inputs.len() != p.inputs.len() {
        return Err(format!(
            "the program has {} input(s), {} value(s) were given",
            p.inputs.len(),
            inputs.len()
        ));
    }
    for (decl, f) in p.inputs.iter().zip(inputs) {
        if f.ty != decl.ty {
            return Err(format!(
                "input `{}`: expected a value of type {}, found one of type {}",
                decl.name, decl.ty, f.ty
            ));
        }
        f.check()
            .map_err(|m| format!("input `{}`: {m}", decl.name))?;
    }
    let ev = Evaluator::new(p, inputs.iter().map(from_flat).collect());
    let out = ev.run(p.output, &[], 1);
    Ok(to_flat(out, p.output_type()))
}

/// Runs `p` on tree values, like [`super::interp::eval`] (whose output this equals after
/// [`super::interp::expand_undef`]; see [`FlatValue::to_value`]).
pub fn eval(p: &Program, inputs: &[Value]) -> Result<Value, String> {
    super::interp::check_inputs(p, inputs)?;
    let flat: Vec<FlatValue> = p
        .inputs
        .iter()
        .zip(inputs)
        .map(|(decl, v)| FlatValue::from_value(v, &decl.ty))
        .collect();
    eval_flat(p, &flat).map(|f| f.to_value())
}

/// The columns of a flat value: slot `s` holds scalars `s, s + k, s + 2k, ...`.
fn from_flat(f: &FlatValue) -> FVal {
    let k = Shape::of(&f.ty).slots.len();
    let any_undef = f.undef.iter().any(|u| *u);
    let cols = (0..k)
        .map(|s| {
            let data: Vec<u32> = f.scalars.iter().skip(s).step_by(k).copied().collect();
            let undef = any_undef.then(|| f.undef.iter().skip(s).step_by(k).copied().collect());
            Col::dense(data, undef)
        })
        .collect();
    FVal::Cols(cols)
}

fn to_flat(v: FVal, ty: &SeqType) -> FlatValue {
    let cols = v.into_cols();
    let k = cols.len();
    let n = cols[0].len();
    let (mut scalars, mut undef) = if k == 1 {
        let (d, u) = cols[0].to_vecs();
        (d, u.unwrap_or_else(|| vec![false; n]))
    } else {
        // Slot by slot through a small buffer: no second copy of the frame.
        let mut scalars = vec![0u32; n * k];
        let mut undef = vec![false; n * k];
        let (mut d, mut u) = (vec![0u32; CHUNK], vec![false; CHUNK]);
        for (s, c) in cols.iter().enumerate() {
            for i0 in (0..n).step_by(CHUNK) {
                let m = CHUNK.min(n - i0);
                c.read(i0, &mut d[..m], Some(&mut u[..m]));
                for i in 0..m {
                    scalars[(i0 + i) * k + s] = d[i];
                    undef[(i0 + i) * k + s] = u[i];
                }
            }
        }
        (scalars, undef)
    };
    for (x, u) in scalars.iter_mut().zip(&mut undef) {
        if *u {
            *x = 0;
        }
    }
    FlatValue {
        ty: ty.clone(),
        scalars,
        undef,
    }
}

/// A value of one instance known before evaluation: a constant or a `shift`'s fill.
struct Literal {
    /// One buffer per slot, `atoms` scalars each.
    slots: Vec<Rc<Buf>>,
    atoms: usize,
}

impl Literal {
    fn new(v: &Value, t: &SeqType) -> Literal {
        let f = FlatValue::from_value(&expand_undef(v, t), t);
        let shape = Shape::of(t);
        let k = shape.slots.len();
        let any_undef = f.undef.iter().any(|u| *u);
        let slots = (0..k)
            .map(|s| {
                let d = f.scalars.iter().skip(s).step_by(k).copied().collect();
                let u = any_undef.then(|| f.undef.iter().skip(s).step_by(k).copied().collect());
                Buf::shared(d, u)
            })
            .collect();
        Literal {
            slots,
            atoms: shape.atoms,
        }
    }

    /// The literal for every instance of a batch.
    fn repeat(&self, batch: usize) -> Vec<Col> {
        self.slots
            .iter()
            .map(|b| Col::cycle_buf(b.clone(), 0, batch * self.atoms))
            .collect()
    }
}

struct Evaluator<'p> {
    p: &'p Program,
    inputs: Vec<FVal>,
    scopes: HashMap<NodeId, Scope>,
    /// Whether a body computes (worth chunking) or only moves data (cheapest whole).
    heavy: HashMap<NodeId, bool>,
    literals: HashMap<NodeId, Literal>,
}

impl<'p> Evaluator<'p> {
    fn new(p: &'p Program, inputs: Vec<FVal>) -> Evaluator<'p> {
        let mut ev = Evaluator {
            p,
            inputs,
            scopes: HashMap::new(),
            heavy: HashMap::new(),
            literals: HashMap::new(),
        };
        ev.scopes.insert(p.output, Scope::new(p, p.output));
        for id in p.reachable() {
            let node = p.node(id);
            for body in node.op.bodies() {
                ev.scopes.entry(body).or_insert_with(|| Scope::new(p, body));
            }
            if let Op::Const(v, t) = &node.op {
                ev.literals.insert(id, Literal::new(v, t));
            } else if let Op::Shift { init, .. } = &node.op {
                let e = p.ty(node.args[0]).as_seq().expect("checked").1;
                let init = init.clone().unwrap_or(Value::Undef);
                ev.literals.insert(id, Literal::new(&init, e));
            }
        }
        for id in p.reachable() {
            for body in p.node(id).op.bodies() {
                ev.mark_heavy(body);
            }
        }
        ev
    }

    /// Records whether a body computes or copies data (worth chunking) or only re-labels
    /// it (cheapest whole), nested bodies first.
    fn mark_heavy(&mut self, body: NodeId) -> bool {
        if let Some(h) = self.heavy.get(&body) {
            return *h;
        }
        let mut h = false;
        for n in self.scopes[&body].ids.clone() {
            let op = &self.p.node(n).op;
            h |= match op {
                Op::Atom(a) => !matches!(a, AtomOp::Fst | AtomOp::Snd),
                Op::Map { .. } | Op::Map2 { .. } | Op::HMap { .. } => {
                    op.bodies().into_iter().any(|b| self.mark_heavy(b))
                }
                Op::Const(..)
                | Op::Counter { .. }
                | Op::Reduce { .. }
                | Op::Up { .. }
                | Op::Down { .. }
                | Op::Shift { .. }
                | Op::Transpose { .. } => true,
                Op::Input(_)
                | Op::Arg(..)
                | Op::ATuple
                | Op::Partition { .. }
                | Op::Unpartition { .. }
                | Op::STuple
                | Op::STupleAppend
                | Op::STupleToSeq { .. }
                | Op::SeqToSTuple { .. } => false,
            };
        }
        self.heavy.insert(body, h);
        h
    }

    /// Evaluates the scope of `root` on a batch, dropping each value after its last use.
    fn run(&self, root: NodeId, params: &[FVal], batch: usize) -> FVal {
        self.scopes[&root].run(|id, args| self.node(id, args, params, batch))
    }

    /// Applies a body to a batch of arguments, in chunks if the batch is large.
    fn call(&self, body: NodeId, args: Vec<FVal>, batch: usize) -> FVal {
        if !self.heavy[&body] {
            return self.run(body, &args, batch);
        }
        let atoms: Vec<usize> = args.iter().map(|a| a.len() / batch).collect();
        if let Some(period) = instance_period(&args, &atoms, batch) {
            // Inputs derived from constants and counters: one period computes everything.
            let first: Vec<FVal> = args
                .iter()
                .zip(&atoms)
                .map(|(a, r)| a.slice(*r, 0, period))
                .collect();
            let out = self.run(body, &first, period);
            return out.repeat(period, batch);
        }
        if batch <= CHUNK_ABOVE {
            return self.run(body, &args, batch);
        }
        let chunks = (0..batch)
            .step_by(CHUNK)
            .map(|i0| {
                let n = CHUNK.min(batch - i0);
                let part: Vec<FVal> = args
                    .iter()
                    .zip(&atoms)
                    .map(|(a, r)| a.slice(*r, i0, n))
                    .collect();
                self.run(body, &part, n)
            })
            .collect();
        FVal::concat(chunks)
    }

    /// Atoms in one value of the type of `id`'s element (of a `seq`), or of `id` itself.
    fn elem_atoms(&self, id: NodeId) -> usize {
        let t = self.p.ty(id);
        Shape::of(t.as_seq().map_or(t, |(_, e)| e)).atoms
    }

    /// `map n` / `map2 n`: the body once over all elements of the batch, or once per part
    /// of an input held as parts of its outer dimension.
    fn map(&self, id: NodeId, n: usize, body: NodeId, args: &[&FVal], batch: usize) -> FVal {
        let node = self.p.node(id);
        if args.iter().any(|a| a.is_outer_stack()) {
            let parts: Vec<Vec<FVal>> = args
                .iter()
                .zip(&node.args)
                .map(|(a, x)| (*a).clone().parts(n, self.elem_atoms(*x)))
                .collect();
            let outs = (0..n)
                .map(|j| self.call(body, parts.iter().map(|p| p[j].clone()).collect(), batch))
                .collect();
            return FVal::stack(0, self.elem_atoms(id), outs);
        }
        let peeled = args.iter().map(|a| (*a).clone().peel()).collect();
        self.call(body, peeled, batch * n).insert_dim(0)
    }

    fn node(&self, id: NodeId, args: &[&FVal], params: &[FVal], batch: usize) -> FVal {
        let node = self.p.node(id);
        let elem = |k: usize| self.elem_atoms(node.args[k]);
        let own = |a: &FVal| a.clone();
        match &node.op {
            Op::Input(i) => self.inputs[*i].clone(),
            Op::Arg(i, _) => params[usize::from(*i)].clone(),
            Op::Const(..) => FVal::Cols(self.literals[&id].repeat(batch)),
            Op::Counter { n, incr, ty } => {
                let values = (0..*n)
                    .map(|k| (k.wrapping_mul(*incr) & ty.mask()) as u32)
                    .collect();
                FVal::Cols(vec![Col::cycle(values, None, 0, batch * *n as usize)])
            }
            Op::Atom(a) => {
                let FVal::Cols(cols) = args[0] else {
                    unreachable!("an atom has no dimension to hold as parts")
                };
                FVal::Cols(atom::apply(*a, self.p.ty(node.args[0]), cols))
            }
            Op::ATuple => {
                let mut cols = own(args[0]).into_cols();
                cols.extend(own(args[1]).into_cols());
                FVal::Cols(cols)
            }
            Op::Map { n, body } | Op::Map2 { n, body } => {
                self.map(id, *n as usize, *body, args, batch)
            }
            Op::HMap { n, bodies } => {
                let parts = own(args[0]).parts(*n as usize, elem(0));
                let outs = parts
                    .into_iter()
                    .zip(bodies)
                    .map(|(x, b)| self.call(*b, vec![x], batch))
                    .collect();
                FVal::stack(0, self.elem_atoms(id), outs)
            }
            Op::Reduce { n, body } => {
                let (n, re) = (*n as usize, elem(0));
                let mut acc = args[0].part(n, re, 0);
                for j in 1..n {
                    let pair = FVal::zip(acc, args[0].part(n, re, j));
                    acc = self.call(*body, vec![pair], batch);
                }
                acc.insert_dim(0)
            }
            Op::Up { n } => own(args[0]).up(*n as usize, elem(0)),
            Op::Down { n, idx } => own(args[0]).down(*n as usize, *idx as usize, elem(0)),
            Op::Shift { n, amount, .. } => {
                let fill = self.literals[&id].repeat(1);
                own(args[0]).shift(*n as usize, *amount as usize, elem(0), &fill)
            }
            Op::Partition { .. } => own(args[0]).split_outer(),
            Op::Unpartition { .. } => own(args[0]).join_outer(),
            Op::Transpose { no, ni } => {
                let re = self.elem_atoms(node.args[0]) / *ni as usize;
                own(args[0]).transpose(*no as usize, *ni as usize, re)
            }
            Op::STuple => FVal::stack(
                0,
                elem_of_stuple(self.p.ty(id)),
                vec![own(args[0]), own(args[1])],
            ),
            Op::STupleAppend => {
                let re = elem_of_stuple(self.p.ty(id));
                let k = self.p.ty(node.args[0]).as_stuple().expect("checked").0 as usize;
                let mut parts = own(args[0]).parts(k, re);
                parts.push(own(args[1]));
                FVal::stack(0, re, parts)
            }
            Op::STupleToSeq { .. } => own(args[0]).remove_dim(0),
            Op::SeqToSTuple { .. } => own(args[0]).insert_dim(0),
        }
    }
}

/// If every argument repeats with a period of whole instances and their common period is
/// at most half the batch, that period in instances.
fn instance_period(args: &[FVal], atoms: &[usize], batch: usize) -> Option<usize> {
    let mut p = 1usize;
    for (a, r) in args.iter().zip(atoms) {
        let FVal::Cols(cols) = a else { return None };
        for c in cols {
            let q = c.period()?;
            if !q.is_multiple_of(*r) {
                return None;
            }
            let q = q / r;
            p = p / gcd(p, q) * q;
            if p > batch / 2 {
                return None;
            }
        }
    }
    Some(p)
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Atoms in one element of a seq-tuple type.
fn elem_of_stuple(t: &SeqType) -> usize {
    Shape::of(t.as_stuple().expect("checked").1).atoms
}
