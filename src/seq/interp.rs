//! The reference interpreter: the judge every later layer is compared with.
//!
//! Semantics (documented for users in `docs/language.md`):
//! - arithmetic wraps at the type's width; `lt`, `abs` and `div` read signed types as signed;
//! - `div x c` is `floor(x * c)` with `c` a `fixp1_7` reciprocal, computed exactly;
//! - `lsl`/`lsr` by an amount of at least the width give 0; `lsr` is logical;
//! - `cast` sign-extends a signed source, zero-extends an unsigned one and truncates to the
//!   target's width (the same bits at the same width);
//! - don't-care values ([`Value::Undef`]) come only from a `shift` without `init` (or from
//!   inputs); an atom operator with a don't-care operand gives don't-care, except that
//!   `fst`/`snd` project and `if` with a known condition takes its branch;
//! - `reduce` folds left to right; its function must be associative and commutative for the
//!   hardware (which may use a tree) to agree.

use super::op::{AtomOp, Op};
use super::program::{NodeId, Program};
use super::scope::Scope;
use super::types::{ScalarType, SeqType};
use super::value::{check_value, scalar_to_int, Value};
use std::collections::HashMap;

/// Runs `program` on one value per input (in declaration order) and returns its output.
///
/// Inputs are checked against the declared types; a don't-care anywhere in an input is
/// allowed and propagates.
pub fn eval(program: &Program, inputs: &[Value]) -> Result<Value, String> {
    check_inputs(program, inputs)?;
    let normalized: Vec<Value> = program
        .inputs
        .iter()
        .zip(inputs)
        .map(|(decl, v)| expand_undef(v, &decl.ty))
        .collect();
    let interp = Interp::new(program, &normalized);
    Ok(interp.run_top())
}

/// Checks one value per input of `program`, each of its declared type; the error names the
/// input.
pub(crate) fn check_inputs(program: &Program, inputs: &[Value]) -> Result<(), String> {
    if inputs.len() != program.inputs.len() {
        return Err(format!(
            "the program has {} input(s), {} value(s) were given",
            program.inputs.len(),
            inputs.len()
        ));
    }
    for (decl, v) in program.inputs.iter().zip(inputs) {
        check_value(v, &decl.ty).map_err(|m| format!("input `{}`: {m}", decl.name))?;
    }
    Ok(())
}

/// Replaces a don't-care of a structured type by the structure of don't-cares, so that
/// sequence operators never meet a bare [`Value::Undef`] where they expect a list or a pair.
pub fn expand_undef(v: &Value, t: &SeqType) -> Value {
    match (v, t) {
        (Value::Undef, SeqType::Scalar(_)) => Value::Undef,
        (Value::Undef, SeqType::ATuple(a, b)) => Value::pair(
            expand_undef(&Value::Undef, a),
            expand_undef(&Value::Undef, b),
        ),
        (Value::Undef, SeqType::Seq(n, e) | SeqType::STuple(n, e)) => {
            let x = expand_undef(&Value::Undef, e);
            Value::List(vec![x; *n as usize])
        }
        (Value::Pair(p), SeqType::ATuple(a, b)) => {
            Value::pair(expand_undef(&p.0, a), expand_undef(&p.1, b))
        }
        (Value::List(xs), SeqType::Seq(_, e) | SeqType::STuple(_, e)) => {
            Value::List(xs.iter().map(|x| expand_undef(x, e)).collect())
        }
        (v, _) => v.clone(),
    }
}

struct Interp<'p> {
    p: &'p Program,
    inputs: &'p [Value],
    bodies: HashMap<NodeId, Scope>,
}

impl<'p> Interp<'p> {
    fn new(p: &'p Program, inputs: &'p [Value]) -> Interp<'p> {
        let mut bodies = HashMap::new();
        for id in p.reachable() {
            for body in p.node(id).op.bodies() {
                bodies.entry(body).or_insert_with(|| Scope::new(p, body));
            }
        }
        Interp { p, inputs, bodies }
    }

    /// Evaluates the program scope, dropping each value after its last use.
    fn run_top(&self) -> Value {
        Scope::new(self.p, self.p.output).run(|id, args| self.node(id, args, &[]))
    }

    /// Applies a function body to its arguments.
    fn call(&self, body: NodeId, params: &[Value]) -> Value {
        let scope = &self.bodies[&body];
        let mut vals: Vec<Value> = Vec::with_capacity(scope.ids.len());
        for (k, &id) in scope.ids.iter().enumerate() {
            let args: Vec<&Value> = scope.args[k].iter().map(|&a| &vals[a]).collect();
            let v = self.node(id, &args, params);
            vals.push(v);
        }
        vals.pop().expect("a body has a root")
    }

    fn node(&self, id: NodeId, args: &[&Value], params: &[Value]) -> Value {
        let node = self.p.node(id);
        let arg_ty = |k: usize| self.p.ty(node.args[k]);
        match &node.op {
            Op::Input(i) => self.inputs[*i].clone(),
            Op::Arg(i, _) => params[usize::from(*i)].clone(),
            Op::Const(v, t) => expand_undef(v, t),
            Op::Counter { n, incr, ty } => Value::List(
                (0..*n)
                    .map(|k| Value::Scalar(k.wrapping_mul(*incr) & ty.mask()))
                    .collect(),
            ),
            Op::Atom(a) => atom(*a, arg_ty(0), args[0]),
            Op::ATuple => Value::pair(args[0].clone(), args[1].clone()),
            Op::Map { body, .. } => Value::List(
                args[0]
                    .list()
                    .iter()
                    .map(|x| self.call(*body, std::slice::from_ref(x)))
                    .collect(),
            ),
            Op::Map2 { body, .. } => Value::List(
                args[0]
                    .list()
                    .iter()
                    .zip(args[1].list())
                    .map(|(x, y)| self.call(*body, &[x.clone(), y.clone()]))
                    .collect(),
            ),
            Op::HMap { bodies, .. } => Value::List(
                args[0]
                    .list()
                    .iter()
                    .zip(bodies)
                    .map(|(x, body)| self.call(*body, std::slice::from_ref(x)))
                    .collect(),
            ),
            Op::Reduce { body, .. } => {
                let elem = arg_ty(0).as_seq().expect("checked").1;
                let xs = args[0].list();
                let mut acc = xs[0].clone();
                for x in &xs[1..] {
                    let pair = zip_pair(&acc, x, elem);
                    acc = self.call(*body, &[pair]);
                }
                Value::List(vec![acc])
            }
            Op::Up { n } => Value::List(vec![args[0].list()[0].clone(); *n as usize]),
            Op::Down { idx, .. } => Value::List(vec![args[0].list()[*idx as usize].clone()]),
            Op::Shift { n, amount, init } => {
                let elem = arg_ty(0).as_seq().expect("checked").1;
                let fill = expand_undef(init.as_ref().unwrap_or(&Value::Undef), elem);
                let xs = args[0].list();
                let k = *amount as usize;
                let mut out = vec![fill; k.min(*n as usize)];
                out.extend(xs[..xs.len() - out.len()].iter().cloned());
                Value::List(out)
            }
            Op::Partition { ni, .. } => Value::List(
                args[0]
                    .list()
                    .chunks(*ni as usize)
                    .map(|c| Value::List(c.to_vec()))
                    .collect(),
            ),
            Op::Unpartition { .. } => Value::List(
                args[0]
                    .list()
                    .iter()
                    .flat_map(|row| row.list().iter().cloned())
                    .collect(),
            ),
            Op::Transpose { no, ni } => {
                let rows = args[0].list();
                Value::List(
                    (0..*ni as usize)
                        .map(|i| {
                            Value::List(
                                (0..*no as usize)
                                    .map(|o| rows[o].list()[i].clone())
                                    .collect(),
                            )
                        })
                        .collect(),
                )
            }
            Op::STuple => Value::List(vec![args[0].clone(), args[1].clone()]),
            Op::STupleAppend => {
                let mut xs = args[0].list().to_vec();
                xs.push(args[1].clone());
                Value::List(xs)
            }
            Op::STupleToSeq { .. } => Value::List(args[0].list()[0].list().to_vec()),
            Op::SeqToSTuple { .. } => Value::List(vec![args[0].clone()]),
        }
    }
}

/// Pairs two values of type `t` the way `reduce` hands them to its function: the pairing
/// is pushed inside every sequence layer down to the atoms.
fn zip_pair(a: &Value, b: &Value, t: &SeqType) -> Value {
    match t {
        SeqType::Scalar(_) | SeqType::ATuple(..) => Value::pair(a.clone(), b.clone()),
        SeqType::Seq(_, e) | SeqType::STuple(_, e) => Value::List(
            a.list()
                .iter()
                .zip(b.list())
                .map(|(x, y)| zip_pair(x, y, e))
                .collect(),
        ),
    }
}

/// Applies an atom operator to an atom `v` of type `t`.
pub fn atom(op: AtomOp, t: &SeqType, v: &Value) -> Value {
    let (l, r, lt, rt) = match (v, t) {
        (Value::Pair(p), SeqType::ATuple(a, b)) => (&p.0, &p.1, a.as_ref(), b.as_ref()),
        _ => (v, v, t, t),
    };
    match op {
        AtomOp::Fst => return l.clone(),
        AtomOp::Snd => return r.clone(),
        AtomOp::If => {
            return match l {
                Value::Scalar(c) => {
                    let Value::Pair(ab) = r else {
                        return Value::Undef;
                    };
                    if *c == 1 {
                        ab.0.clone()
                    } else {
                        ab.1.clone()
                    }
                }
                _ => Value::Undef,
            }
        }
        _ => {}
    }
    if v.has_undef() {
        return Value::Undef;
    }
    let raw = |x: &Value| match x {
        Value::Scalar(r) => *r,
        _ => 0,
    };
    if op == AtomOp::Eq {
        return Value::Scalar(u64::from(l == r));
    }
    let s = lt.as_scalar().unwrap_or(ScalarType::Bit);
    let rs = rt.as_scalar().unwrap_or(s);
    Value::Scalar(scalar_atom(op, raw(l), raw(r), s, rs))
}

/// A scalar-level atom operator on raw operands: `a` of type `s` and `b` of type `rs` (the
/// two sides of the atom tuple; both the one operand for a unary operator). The result is
/// raw bits of the result type. Shared with the fast evaluator ([`super::fast`]), so an
/// operator's arithmetic is written once; `fst`, `snd`, `if` and `eq` on atom tuples are
/// structural and handled by the callers.
#[inline]
pub(crate) fn scalar_atom(op: AtomOp, a: u64, b: u64, s: ScalarType, rs: ScalarType) -> u64 {
    let mask = s.mask();
    let int = |x: u64, ty: ScalarType| scalar_to_int(x, ty);
    match op {
        AtomOp::Abs => (int(a, s).unsigned_abs() as u64) & mask,
        AtomOp::Not => a ^ 1,
        AtomOp::And => a & b,
        AtomOp::Or => a | b,
        AtomOp::Add => a.wrapping_add(b) & mask,
        AtomOp::Sub => a.wrapping_sub(b) & mask,
        AtomOp::Mul => a.wrapping_mul(b) & mask,
        AtomOp::Div => ((int(a, s) * i128::from(b)).div_euclid(128) as u64) & mask,
        AtomOp::Lsr => {
            if b >= u64::from(s.width()) {
                0
            } else {
                a >> b
            }
        }
        AtomOp::Lsl => {
            if b >= u64::from(s.width()) {
                0
            } else {
                (a << b) & mask
            }
        }
        AtomOp::Lt => u64::from(int(a, s) < int(b, rs)),
        AtomOp::Eq => u64::from(a == b),
        // The source's value (sign-extended if signed) in two's complement, cut to the
        // target's width: extension, truncation and reinterpretation in one.
        AtomOp::Cast(to) => (int(a, s) as u64) & to.mask(),
        AtomOp::Fst => a,
        AtomOp::Snd => b,
        AtomOp::If => unreachable!("`if` is structural: handled by the callers"),
    }
}
