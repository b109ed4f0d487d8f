//! Typing rules of the primitive operators.
//!
//! [`result_type`] gives the output type of a first-order operator from its input types, or
//! says what it expected and what it found. Higher-order operators (`map`, `map2`, `reduce`)
//! are typed by the front end, which needs the element types to type the function body
//! (see [`map_input`], [`reduce_input`]).

use super::op::{AtomOp, Op};
use super::program::{NodeId, Program};
use super::types::{ScalarType, SeqType};

/// The output type of a first-order operator applied to inputs of types `args`.
///
/// The caller has checked the number of inputs against [`Op::arity`].
pub fn result_type(op: &Op, args: &[&SeqType]) -> Result<SeqType, String> {
    match op {
        Op::Atom(a) => atom_result(*a, args[0]),
        Op::ATuple => {
            for (i, t) in args.iter().enumerate() {
                if !t.is_atom() {
                    return Err(format!(
                        "atuple: input {} must be an atom (a scalar or atom tuple), found {t}",
                        i + 1
                    ));
                }
            }
            Ok(SeqType::atuple(args[0].clone(), args[1].clone()))
        }
        Op::Up { n } => {
            let e = expect_seq(op, args[0], Some(1))?;
            Ok(SeqType::seq(*n, e.clone()))
        }
        Op::Down { n, idx } => {
            let e = expect_seq(op, args[0], Some(*n))?;
            if idx >= n {
                return Err(format!("down_1d {n} {idx}: index {idx} is out of range 0..{n}"));
            }
            Ok(SeqType::seq(1, e.clone()))
        }
        Op::Shift { n, amount, init } => {
            let e = expect_seq(op, args[0], Some(*n))?;
            if amount > n {
                return Err(format!(
                    "shift {n} {amount}: a shift by {amount} empties a sequence of {n}"
                ));
            }
            if let Some(v) = init {
                super::value::check_value(v, e).map_err(|m| format!("shift init: {m}"))?;
            }
            Ok(args[0].clone())
        }
        Op::Partition { no, ni } => {
            let total = no.checked_mul(*ni).ok_or("partition: size overflows")?;
            let e = expect_seq(op, args[0], Some(total))?;
            Ok(SeqType::seq(*no, SeqType::seq(*ni, e.clone())))
        }
        Op::Unpartition { no, ni } | Op::Transpose { no, ni } => {
            let inner = expect_seq(op, args[0], Some(*no))?;
            let e = expect_seq(op, inner, Some(*ni)).map_err(|_| {
                format!("{op}: expected input of type (seq {no} (seq {ni} _)), found {}", args[0])
            })?;
            if matches!(op, Op::Transpose { .. }) {
                Ok(SeqType::seq(*ni, SeqType::seq(*no, e.clone())))
            } else {
                let total = no.checked_mul(*ni).ok_or("unpartition: size overflows")?;
                Ok(SeqType::seq(total, e.clone()))
            }
        }
        Op::STuple => {
            if args[0] != args[1] {
                return Err(format!(
                    "stuple: both inputs must have one type, found {} and {}",
                    args[0], args[1]
                ));
            }
            Ok(SeqType::stuple(2, args[0].clone()))
        }
        Op::STupleAppend => match args[0] {
            SeqType::STuple(n, e) if **e == *args[1] => Ok(SeqType::stuple(n + 1, e.as_ref().clone())),
            SeqType::STuple(n, e) => Err(format!(
                "stuple_append: the appended value must have the tuple's element type {e} (tuple of {n}), found {}",
                args[1]
            )),
            other => Err(format!(
                "stuple_append: the first input must be an stuple, found {other}"
            )),
        },
        Op::STupleToSeq { n } => {
            let e = expect_seq(op, args[0], Some(1))?;
            match e {
                SeqType::STuple(m, t) if m == n => Ok(SeqType::seq(*n, t.as_ref().clone())),
                _ => Err(format!(
                    "stuple_to_seq {n}: expected input of type (seq 1 (stuple {n} _)), found {}",
                    args[0]
                )),
            }
        }
        Op::SeqToSTuple { n } => {
            let e = expect_seq(op, args[0], Some(*n))?;
            Ok(SeqType::seq(1, SeqType::stuple(*n, e.clone())))
        }
        Op::Input(_) | Op::Arg(..) | Op::Const(..) | Op::Counter { .. } => {
            Err(format!("{op}: has no inputs"))
        }
        Op::Map { .. } | Op::Map2 { .. } | Op::Reduce { .. } | Op::HMap { .. } => {
            Err(format!("{op}: a higher-order operator is typed with its body"))
        }
    }
}

/// The element type a `map n` or `map2 n` function receives from an input of type `t`;
/// `what` names the operator in the error.
pub fn map_input<'t>(what: &str, t: &'t SeqType, n: u64) -> Result<&'t SeqType, String> {
    expect_seq(&what, t, Some(n))
}

/// For `reduce n` over an input of type `t`: the element type and the type of the pair the
/// function combines.
pub fn reduce_input(t: &SeqType, n: u64) -> Result<(SeqType, SeqType), String> {
    let e = expect_seq(&format!("reduce {n}"), t, Some(n))?;
    Ok((e.clone(), e.zipped_pair()))
}

/// `t` must be `(seq n e)` (any n if `None`); returns `e`.
fn expect_seq<'t>(
    op: &dyn std::fmt::Display,
    t: &'t SeqType,
    n: Option<u64>,
) -> Result<&'t SeqType, String> {
    match (t, n) {
        (SeqType::Seq(m, e), Some(n)) if *m == n => Ok(e),
        (SeqType::Seq(_, e), None) => Ok(e),
        (_, Some(n)) => Err(format!(
            "{op}: expected input of type (seq {n} _), found {t}"
        )),
        (_, None) => Err(format!("{op}: expected a sequence, found {t}")),
    }
}

fn atom_result(op: AtomOp, t: &SeqType) -> Result<SeqType, String> {
    if let AtomOp::Cast(to) = op {
        return cast_result(to, t);
    }
    let name = op.name();
    if !t.is_atom() {
        return Err(format!(
            "{name}: needs an atom (scalar or atom tuple), found {t}"
        ));
    }
    let pair = t.as_atuple();
    let int = |t: &SeqType| t.as_scalar().filter(|s| s.is_int());
    let bit = SeqType::Scalar(ScalarType::Bit);
    let uint8 = SeqType::Scalar(ScalarType::UInt8);
    let fixp = SeqType::Scalar(ScalarType::FixP1_7);
    match op {
        AtomOp::Abs => match int(t) {
            Some(_) => Ok(t.clone()),
            None => Err(format!("abs: expected an integer type, found {t}")),
        },
        AtomOp::Not => {
            if *t == bit {
                Ok(bit)
            } else {
                Err(format!("not: expected bit, found {t}"))
            }
        }
        AtomOp::And | AtomOp::Or => match pair {
            Some((a, b)) if *a == bit && *b == bit => Ok(bit),
            _ => Err(format!("{name}: expected (atuple bit bit), found {t}")),
        },
        AtomOp::Add | AtomOp::Sub | AtomOp::Mul => match pair {
            Some((a, b)) if a == b && int(a).is_some() => Ok(a.clone()),
            _ => Err(format!(
                "{name}: expected (atuple t t) with t an integer type, found {t}"
            )),
        },
        AtomOp::Div => match pair {
            Some((a, b)) if int(a).is_some() && *b == fixp => Ok(a.clone()),
            _ => Err(format!(
                "div: expected (atuple t fixp1_7) with t an integer type (the divisor is a reciprocal), found {t}"
            )),
        },
        AtomOp::Lsl | AtomOp::Lsr => match pair {
            Some((a, b)) if int(a).is_some() && *b == uint8 => Ok(a.clone()),
            _ => Err(format!(
                "{name}: expected (atuple t uint8) with t an integer type, found {t}"
            )),
        },
        AtomOp::Lt => match pair {
            Some((a, b)) if a == b && a.as_scalar().is_some() => Ok(bit),
            _ => Err(format!("lt: expected (atuple t t) with t a scalar type, found {t}")),
        },
        AtomOp::Eq => match pair {
            Some((a, b)) if a == b => Ok(bit),
            _ => Err(format!("eq: expected (atuple t t), found {t}")),
        },
        AtomOp::If => match pair {
            Some((c, ab)) if *c == bit => match ab.as_atuple() {
                Some((a, b)) if a == b => Ok(a.clone()),
                _ => Err(format!(
                    "if: expected (atuple bit (atuple t t)), found {t}"
                )),
            },
            _ => Err(format!("if: expected (atuple bit (atuple t t)), found {t}")),
        },
        AtomOp::Fst | AtomOp::Snd => match pair {
            Some((a, b)) => Ok(if op == AtomOp::Fst { a.clone() } else { b.clone() }),
            None => Err(format!("{name}: expected an atom tuple, found {t}")),
        },
        AtomOp::Cast(to) => cast_result(to, t),
    }
}

/// A cast to `to` of a value of type `t`: both must be bit or integer scalars.
fn cast_result(to: ScalarType, t: &SeqType) -> Result<SeqType, String> {
    let kinds = "bit or an integer type (int8, uint8, int16, uint16, int32, uint32)";
    if !AtomOp::castable(to) {
        return Err(format!("cast {to}: a cast converts to {kinds}, not {to}"));
    }
    match t.as_scalar() {
        Some(s) if AtomOp::castable(s) => Ok(SeqType::Scalar(to)),
        _ => Err(format!(
            "cast {to}: expected a scalar of {kinds}, found {t}"
        )),
    }
}

/// What `reduce` accepts as its function, for the error that refuses another.
pub const REDUCERS: &str = "add; mul; and, or, eq on bit; min or max written \
`(if (lt a b) a b)` or `(if (lt a b) b a)` with a, b the pair's `fst` and `snd` in either order; \
and `(map n f)` of one of these";

/// Errors unless `body`, the function of a reduce whose zipped pair has type `pair`, is one
/// of [`REDUCERS`]: a function shown associative and commutative by its form. The
/// interpreter folds left to right but the hardware reduces as a tree, so only such a
/// function gives the same result in both.
pub fn associative_commutative(p: &Program, body: NodeId, pair: &SeqType) -> Result<(), String> {
    let arg = |id: NodeId| matches!(&p.node(id).op, Op::Arg(0, t) if t == pair);
    match pair {
        SeqType::Seq(n, e) => match &p.node(body).op {
            Op::Map { n: m, body: inner } if m == n && arg(p.node(body).args[0]) => {
                associative_commutative(p, *inner, e)
            }
            op => Err(format!(
                "found `{}` where a `(map {n} f)` was expected",
                op.name()
            )),
        },
        SeqType::ATuple(a, b) if a == b => {
            let s = a
                .as_scalar()
                .ok_or_else(|| format!("the pair holds atom tuples {a}"))?;
            atom_reducer(p, body, s, &arg)
        }
        t => Err(format!("no reducer is accepted on pairs of type {t}")),
    }
}

/// [`associative_commutative`] on a pair of scalars `s`.
fn atom_reducer(
    p: &Program,
    body: NodeId,
    s: ScalarType,
    arg: &dyn Fn(NodeId) -> bool,
) -> Result<(), String> {
    let node = p.node(body);
    let atom = |id: NodeId| match &p.node(id).op {
        Op::Atom(a) => Some((*a, p.node(id).args[0])),
        _ => None,
    };
    let tuple = |id: NodeId| match &p.node(id).op {
        Op::ATuple => Some((p.node(id).args[0], p.node(id).args[1])),
        _ => None,
    };
    // `fst` of the argument is 0, `snd` is 1.
    let side = |id: NodeId| match atom(id) {
        Some((AtomOp::Fst, x)) if arg(x) => Some(0),
        Some((AtomOp::Snd, x)) if arg(x) => Some(1),
        _ => None,
    };
    // The pair itself, or rebuilt from its two sides in either order.
    let both = |id: NodeId| {
        arg(id)
            || tuple(id)
                .is_some_and(|(a, b)| matches!((side(a), side(b)), (Some(x), Some(y)) if x != y))
    };
    let Op::Atom(op) = &node.op else {
        return Err(format!("found `{}`", node.op.name()));
    };
    let x = node.args[0];
    let bit = s == ScalarType::Bit;
    let ok = match op {
        // the typing has kept them to integers, on which wrapping keeps them exact
        AtomOp::Add | AtomOp::Mul => both(x),
        AtomOp::And | AtomOp::Or | AtomOp::Eq => both(x) && bit,
        AtomOp::If => tuple(x).is_some_and(|(c, uv)| {
            let Some((AtomOp::Lt, ab)) = atom(c) else {
                return false;
            };
            let (Some((a, b)), Some((u, v))) = (tuple(ab), tuple(uv)) else {
                return false;
            };
            let sides = [side(a), side(b), side(u), side(v)];
            let [Some(a), Some(b), Some(u), Some(v)] = sides else {
                return false;
            };
            // min (u, v) = (a, b) or max (u, v) = (b, a), over both sides
            a != b && ((u, v) == (a, b) || (u, v) == (b, a))
        }),
        _ => false,
    };
    let name = op.name();
    match op {
        _ if ok => Ok(()),
        AtomOp::If => Err(format!(
            "found an `if` on {s} that is not the min or max of the pair's `fst` and `snd`"
        )),
        AtomOp::Add | AtomOp::Mul | AtomOp::And | AtomOp::Or | AtomOp::Eq if both(x) => {
            Err(format!("found `{name}` on {s}"))
        }
        AtomOp::Add | AtomOp::Mul | AtomOp::And | AtomOp::Or | AtomOp::Eq => Err(format!(
            "found `{name}` of other operands than the pair's `fst` and `snd`"
        )),
        _ => Err(format!("found `{name}` on {s}")),
    }
}
