//! Conversion between checked programs ([`Program`]) and e-graph terms ([`RecExpr`]).
//!
//! `Program -> RecExpr` is total (every checked program has a term). `RecExpr -> Program`
//! rebuilds the program through the checked constructors of [`crate::seq::build`], so an
//! extracted term that is ill-typed is reported, never trusted; the result can be run by
//! [`crate::seq::interp::eval`].

use super::lang::{AtomName, InputRef, Literal, ScalarName, SeqLang};
use crate::seq::build;
use crate::seq::op::{AtomOp, Op};
use crate::seq::program::{NodeId, Program};
use crate::seq::types::SeqType;
use crate::seq::value::Value;
use egg::{Id, RecExpr};
use std::collections::HashMap;

/// A program input as the e-graph sees it: position, name and type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputSig {
    /// Name used when printing.
    pub name: String,
    /// Declared type.
    pub ty: SeqType,
}

/// The inputs of a program, in order.
pub fn input_sigs(p: &Program) -> Vec<InputSig> {
    p.inputs
        .iter()
        .map(|i| InputSig {
            name: i.name.clone(),
            ty: i.ty.clone(),
        })
        .collect()
}

/// Builds a hash-consed [`RecExpr`]: equal nodes get one id.
#[derive(Default)]
pub struct ExprBuilder {
    expr: RecExpr<SeqLang>,
    memo: HashMap<SeqLang, Id>,
}

impl ExprBuilder {
    /// Adds a node (children already added), or returns the equal node's id.
    pub fn add(&mut self, node: SeqLang) -> Id {
        if let Some(id) = self.memo.get(&node) {
            return *id;
        }
        let id = self.expr.add(node.clone());
        self.memo.insert(node, id);
        id
    }

    /// Adds a type term.
    pub fn ty(&mut self, t: &SeqType) -> Id {
        match t {
            SeqType::Scalar(s) => self.add(SeqLang::Scalar(ScalarName(*s))),
            SeqType::Seq(n, e) => {
                let n = self.num(*n);
                let e = self.ty(e);
                self.add(SeqLang::TSeq([n, e]))
            }
            SeqType::STuple(n, e) => {
                let n = self.num(*n);
                let e = self.ty(e);
                self.add(SeqLang::TSTuple([n, e]))
            }
            SeqType::ATuple(a, b) => {
                let a = self.ty(a);
                let b = self.ty(b);
                self.add(SeqLang::TATuple([a, b]))
            }
        }
    }

    /// Adds an integer leaf.
    pub fn num(&mut self, n: u64) -> Id {
        self.add(SeqLang::Num(n))
    }

    /// Adds a literal leaf.
    pub fn lit(&mut self, v: &Value) -> Id {
        self.add(SeqLang::Lit(Literal(v.clone())))
    }

    /// The finished expression (its last node is the last one added).
    pub fn finish(self) -> RecExpr<SeqLang> {
        self.expr
    }
}

/// The term of a program's output. Inputs print with the names in `names` (by position)
/// when given, else with the program's own.
pub fn program_to_expr(p: &Program, names: Option<&[InputSig]>) -> RecExpr<SeqLang> {
    let mut b = ExprBuilder::default();
    let root = add_program(&mut b, p, p.output, names);
    // Make the root the last node: RecExpr's root is its last node.
    let mut expr = b.finish();
    if usize::from(root) + 1 != expr.as_ref().len() {
        expr = reroot(&expr, root);
    }
    expr
}

/// Adds the sub-term of `root` (a node of `p`) to `b` and returns its id.
pub fn add_program(
    b: &mut ExprBuilder,
    p: &Program,
    root: NodeId,
    names: Option<&[InputSig]>,
) -> Id {
    let mut ids: HashMap<NodeId, Id> = HashMap::new();
    // Reachable nodes from root, bodies included, in topological (id) order.
    let mut seen = vec![false; root.index() + 1];
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if std::mem::replace(&mut seen[id.index()], true) {
            continue;
        }
        let node = p.node(id);
        stack.extend(node.args.iter().copied());
        stack.extend(node.op.bodies());
    }
    for id in (0..=root.index()).filter(|i| seen[*i]) {
        let nid = p.ids().nth(id).expect("in range");
        let node = p.node(nid);
        let a: Vec<Id> = node.args.iter().map(|x| ids[x]).collect();
        let new = match &node.op {
            Op::Input(i) => {
                let name = names
                    .and_then(|n| n.get(*i))
                    .map(|s| s.name.clone())
                    .unwrap_or_else(|| p.inputs[*i].name.clone());
                b.add(SeqLang::Input(InputRef {
                    index: *i as u32,
                    name,
                }))
            }
            Op::Arg(i, t) => {
                let i = b.num(u64::from(*i));
                let t = b.ty(t);
                b.add(SeqLang::Arg([i, t]))
            }
            Op::Const(v, t) => {
                let l = b.lit(v);
                let t = b.ty(t);
                b.add(SeqLang::Const([l, t]))
            }
            Op::Counter { n, incr, ty } => {
                let n = b.num(*n);
                let incr = b.num(*incr);
                let t = b.ty(&SeqType::Scalar(*ty));
                b.add(SeqLang::Counter([n, incr, t]))
            }
            Op::Atom(AtomOp::Cast(to)) => {
                let t = b.ty(&SeqType::Scalar(*to));
                b.add(SeqLang::Cast([t, a[0]]))
            }
            Op::Atom(op) => b.add(SeqLang::Atom(AtomName(*op), [a[0]])),
            Op::ATuple => b.add(SeqLang::ATuple([a[0], a[1]])),
            Op::Map { n, body } => {
                let n = b.num(*n);
                b.add(SeqLang::Map([n, ids[body], a[0]]))
            }
            Op::Map2 { n, body } => {
                let n = b.num(*n);
                b.add(SeqLang::Map2([n, ids[body], a[0], a[1]]))
            }
            Op::Reduce { n, body } => {
                let n = b.num(*n);
                b.add(SeqLang::Reduce([n, ids[body], a[0]]))
            }
            Op::HMap { n, bodies } => {
                let n = b.num(*n);
                let fs: Vec<Id> = bodies.iter().map(|x| ids[x]).collect();
                let fs = b.add(SeqLang::ListToSeq(fs.into_boxed_slice()));
                b.add(SeqLang::HMap([n, fs, a[0]]))
            }
            Op::Up { n } => {
                let n = b.num(*n);
                b.add(SeqLang::Up([n, a[0]]))
            }
            Op::Down { n, idx } => {
                let n = b.num(*n);
                let i = b.num(*idx);
                b.add(SeqLang::Down([n, i, a[0]]))
            }
            Op::Shift { n, amount, init } => {
                let n = b.num(*n);
                let s = b.num(*amount);
                let l = b.lit(init.as_ref().unwrap_or(&Value::Undef));
                b.add(SeqLang::Shift([n, s, l, a[0]]))
            }
            Op::Partition { no, ni } => {
                let (x, y) = (b.num(*no), b.num(*ni));
                b.add(SeqLang::Partition([x, y, a[0]]))
            }
            Op::Unpartition { no, ni } => {
                let (x, y) = (b.num(*no), b.num(*ni));
                b.add(SeqLang::Unpartition([x, y, a[0]]))
            }
            Op::Transpose { no, ni } => {
                let (x, y) = (b.num(*no), b.num(*ni));
                b.add(SeqLang::Transpose([x, y, a[0]]))
            }
            Op::STuple => b.add(SeqLang::STuple([a[0], a[1]])),
            Op::STupleAppend => b.add(SeqLang::STupleAppend([a[0], a[1]])),
            Op::STupleToSeq { n } => {
                let n = b.num(*n);
                b.add(SeqLang::STupleToSeq([n, a[0]]))
            }
            Op::SeqToSTuple { n } => {
                let n = b.num(*n);
                b.add(SeqLang::SeqToSTuple([n, a[0]]))
            }
        };
        ids.insert(nid, new);
    }
    ids[&root]
}

/// A copy of `expr` holding only what `root` reaches, with `root` last.
pub fn reroot(expr: &RecExpr<SeqLang>, root: Id) -> RecExpr<SeqLang> {
    let nodes = expr.as_ref();
    let mut keep = vec![false; usize::from(root) + 1];
    keep[usize::from(root)] = true;
    for i in (0..=usize::from(root)).rev() {
        if keep[i] {
            for c in egg::Language::children(&nodes[i]) {
                keep[usize::from(*c)] = true;
            }
        }
    }
    let mut map: HashMap<Id, Id> = HashMap::new();
    let mut out = RecExpr::default();
    for (i, node) in nodes.iter().enumerate().take(usize::from(root) + 1) {
        if keep[i] {
            let n = egg::Language::map_children(node.clone(), |c| map[&c]);
            map.insert(Id::from(i), out.add(n));
        }
    }
    out
}

/// What one term node became while rebuilding a program.
#[derive(Clone, Debug)]
enum Conv {
    Num(u64),
    Type(SeqType),
    Lit(Value),
    Node(NodeId),
    Fns(Vec<NodeId>),
}

/// Rebuilds a checked program from a term. `inputs` are the program inputs the term's
/// `(input ...)` leaves refer to (all are declared, in order, used or not).
pub fn expr_to_program(
    expr: &RecExpr<SeqLang>,
    inputs: &[InputSig],
    name: &str,
) -> Result<Program, String> {
    let mut p = Program::new(name);
    let input_nodes: Vec<NodeId> = inputs
        .iter()
        .map(|i| p.add_input(i.name.clone(), i.ty.clone()))
        .collect();
    let mut conv: Vec<Conv> = Vec::with_capacity(expr.as_ref().len());
    for node in expr.as_ref() {
        let c = convert_node(&mut p, node, &conv, &input_nodes)?;
        conv.push(c);
    }
    match conv.last() {
        Some(Conv::Node(root)) => {
            p.set_output(*root);
            Ok(p)
        }
        _ => Err("the term is not a value".into()),
    }
}

fn convert_node(
    p: &mut Program,
    node: &SeqLang,
    conv: &[Conv],
    input_nodes: &[NodeId],
) -> Result<Conv, String> {
    let num = |id: &Id| match &conv[usize::from(*id)] {
        Conv::Num(n) => Ok(*n),
        other => Err(format!("expected a number, found {other:?}")),
    };
    let ty = |id: &Id| match &conv[usize::from(*id)] {
        Conv::Type(t) => Ok(t.clone()),
        other => Err(format!("expected a type, found {other:?}")),
    };
    let lit = |id: &Id| match &conv[usize::from(*id)] {
        Conv::Lit(v) => Ok(v.clone()),
        other => Err(format!("expected a literal, found {other:?}")),
    };
    let nd = |id: &Id| match &conv[usize::from(*id)] {
        Conv::Node(n) => Ok(*n),
        other => Err(format!("expected a value, found {other:?}")),
    };
    let apply =
        |p: &mut Program, op: Op, args: &[NodeId]| build::apply(p, op, args).map(Conv::Node);
    match node {
        SeqLang::Num(n) => Ok(Conv::Num(*n)),
        SeqLang::Scalar(s) => Ok(Conv::Type(SeqType::Scalar(s.0))),
        SeqLang::TSeq([n, t]) => Ok(Conv::Type(SeqType::seq(num(n)?, ty(t)?))),
        SeqLang::TSTuple([n, t]) => Ok(Conv::Type(SeqType::stuple(num(n)?, ty(t)?))),
        SeqLang::TATuple([a, b]) => Ok(Conv::Type(SeqType::atuple(ty(a)?, ty(b)?))),
        SeqLang::Lit(l) => Ok(Conv::Lit(l.0.clone())),
        SeqLang::Input(r) => input_nodes
            .get(r.index as usize)
            .map(|n| Conv::Node(*n))
            .ok_or_else(|| format!("input {} is not declared", r.index)),
        SeqLang::Arg([i, t]) => {
            let i = u8::try_from(num(i)?).map_err(|_| "argument index too large".to_string())?;
            Ok(Conv::Node(build::arg(p, i, ty(t)?)))
        }
        SeqLang::Const([l, t]) => build::constant(p, lit(l)?, ty(t)?).map(Conv::Node),
        SeqLang::Counter([n, incr, t]) => {
            let t = ty(t)?;
            let s = t
                .as_scalar()
                .filter(|s| s.is_int())
                .ok_or_else(|| format!("a counter counts in an integer type, found {t}"))?;
            let n = num(n)?;
            let op = Op::Counter {
                n,
                incr: num(incr)? & s.mask(),
                ty: s,
            };
            Ok(Conv::Node(p.add(op, Vec::new(), SeqType::seq(n, t))))
        }
        SeqLang::Atom(a, [x]) => apply(p, Op::Atom(a.0), &[nd(x)?]),
        SeqLang::Cast([t, x]) => {
            let t = ty(t)?;
            let to = t
                .as_scalar()
                .ok_or_else(|| format!("a cast converts to a scalar type, found {t}"))?;
            apply(p, Op::Atom(AtomOp::Cast(to)), &[nd(x)?])
        }
        SeqLang::ATuple([a, b]) => apply(p, Op::ATuple, &[nd(a)?, nd(b)?]),
        SeqLang::STuple([a, b]) => apply(p, Op::STuple, &[nd(a)?, nd(b)?]),
        SeqLang::STupleAppend([a, b]) => apply(p, Op::STupleAppend, &[nd(a)?, nd(b)?]),
        SeqLang::Map([n, f, x]) => build::map(p, num(n)?, nd(f)?, nd(x)?).map(Conv::Node),
        SeqLang::Map2([n, f, x, y]) => {
            build::map2(p, num(n)?, nd(f)?, nd(x)?, nd(y)?).map(Conv::Node)
        }
        SeqLang::Reduce([n, f, x]) => build::reduce(p, num(n)?, nd(f)?, nd(x)?).map(Conv::Node),
        SeqLang::HMap([n, fs, x]) => match &conv[usize::from(*fs)] {
            Conv::Fns(bodies) => build::hmap(p, num(n)?, bodies, nd(x)?).map(Conv::Node),
            other => Err(format!("hmap: expected a function list, found {other:?}")),
        },
        SeqLang::ListToSeq(fs) => fs
            .iter()
            .map(nd)
            .collect::<Result<Vec<_>, _>>()
            .map(Conv::Fns),
        SeqLang::Up([n, x]) => apply(p, Op::Up { n: num(n)? }, &[nd(x)?]),
        SeqLang::Down([n, i, x]) => apply(
            p,
            Op::Down {
                n: num(n)?,
                idx: num(i)?,
            },
            &[nd(x)?],
        ),
        SeqLang::Shift([n, s, init, x]) => {
            let init = match lit(init)? {
                Value::Undef => None,
                v => Some(v),
            };
            let op = Op::Shift {
                n: num(n)?,
                amount: num(s)?,
                init,
            };
            apply(p, op, &[nd(x)?])
        }
        SeqLang::Partition([a, b, x]) => apply(
            p,
            Op::Partition {
                no: num(a)?,
                ni: num(b)?,
            },
            &[nd(x)?],
        ),
        SeqLang::Unpartition([a, b, x]) => apply(
            p,
            Op::Unpartition {
                no: num(a)?,
                ni: num(b)?,
            },
            &[nd(x)?],
        ),
        SeqLang::Transpose([a, b, x]) => apply(
            p,
            Op::Transpose {
                no: num(a)?,
                ni: num(b)?,
            },
            &[nd(x)?],
        ),
        SeqLang::STupleToSeq([n, x]) => apply(p, Op::STupleToSeq { n: num(n)? }, &[nd(x)?]),
        SeqLang::SeqToSTuple([n, x]) => apply(p, Op::SeqToSTuple { n: num(n)? }, &[nd(x)?]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::{interp, parse_program};

    #[test]
    fn round_trip_preserves_meaning() {
        let text = "(input I (seq 6 uint8))
            (output (unpartition 2 3 (map 2 (fn (r) (map 3 (fn (x) (add x (const uint8 1))) r))
                (partition 2 3 (shift 6 1 (init 7) I)))))";
        let p = parse_program("t.seq", "t", text).unwrap();
        let e = program_to_expr(&p, None);
        let q = expr_to_program(&e, &input_sigs(&p), "t").unwrap();
        let x = Value::List((0..6).map(Value::Scalar).collect());
        assert_eq!(
            interp::eval(&p, std::slice::from_ref(&x)),
            interp::eval(&q, &[x])
        );
        assert_eq!(program_to_expr(&q, None).to_string(), e.to_string());
    }
}
