//! The e-class analysis: what every class *is* — its kind and its sequence type.
//!
//! Every e-node's [`Sort`] is computed from its children's sorts by [`node_sort`], which
//! applies the sequence language's typing rules ([`crate::seq::check`]). Rule appliers use
//! the same function to type a right-hand side before adding it, so an ill-typed instance
//! is never added. Two classes of different sorts meeting in a union means a rule is
//! unsound: [`SeqAnalysis::merge`] fails loudly in debug builds.
//!
//! Later phases (issue 5) add kinds for layouts and streams (`(at L v)`), with the exact
//! layout and clock count of each stream class; [`Kind`] is the extension point.

use super::lang::SeqLang;
use crate::seq::check::result_type;
use crate::seq::op::{AtomOp, Op};
use crate::seq::types::SeqType;
use crate::seq::value::{check_value, Value};
use egg::{Analysis, DidMerge, EGraph, Id};
use std::collections::BTreeMap;

/// The kind of an e-class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// An integer parameter.
    Num,
    /// A type term.
    Type,
    /// A literal value (constant data, shift init).
    Lit,
    /// A sequence-language value (a program term, or a function body over `arg` leaves).
    Value,
    /// The function list of an `hmap`.
    FnList,
    /// A term that does not type-check (never added by rules; see [`Sort::Invalid`]).
    Invalid,
}

/// Free argument placeholders of a term: index -> type.
pub type Args = BTreeMap<u8, SeqType>;

/// What an e-class denotes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sort {
    /// An integer.
    Num(u64),
    /// A type.
    Type(SeqType),
    /// A literal value.
    Lit(Value),
    /// A value of type `ty`, depending on the free argument placeholders `args` and, if
    /// `input`, on program inputs. A function body is a value with no inputs whose `args`
    /// are its parameters.
    Value {
        /// The value's type (a body's result type).
        ty: SeqType,
        /// Free `arg` placeholders with their types.
        args: Args,
        /// True if the term reads a program input.
        input: bool,
    },
    /// `len` functions, all taking `arg` (if they use it) and returning `ret`.
    FnList {
        /// Number of functions.
        len: u64,
        /// The parameter type, if some function uses its parameter.
        arg: Option<SeqType>,
        /// The common result type.
        ret: SeqType,
    },
    /// Not well typed; the message says why.
    Invalid(String),
}

impl Sort {
    /// The kind of this sort.
    pub fn kind(&self) -> Kind {
        match self {
            Sort::Num(_) => Kind::Num,
            Sort::Type(_) => Kind::Type,
            Sort::Lit(_) => Kind::Lit,
            Sort::Value { .. } => Kind::Value,
            Sort::FnList { .. } => Kind::FnList,
            Sort::Invalid(_) => Kind::Invalid,
        }
    }

    /// The integer, if this is one.
    pub fn num(&self) -> Option<u64> {
        match self {
            Sort::Num(n) => Some(*n),
            _ => None,
        }
    }

    /// The value type of a value (a body's result type).
    pub fn value_type(&self) -> Option<&SeqType> {
        match self {
            Sort::Value { ty, .. } => Some(ty),
            _ => None,
        }
    }

    /// True for a value that is a closed function body of at most `arity` parameters:
    /// no program input, and only `arg` placeholders below `arity`.
    pub fn is_body(&self, arity: u8) -> bool {
        match self {
            Sort::Value { args, input, .. } => !input && args.keys().all(|i| *i < arity),
            _ => false,
        }
    }

    fn describe(&self) -> String {
        match self {
            Sort::Num(n) => format!("the number {n}"),
            Sort::Type(t) => format!("the type {t}"),
            Sort::Lit(_) => "a literal".into(),
            Sort::Value { ty, .. } => format!("a value of type {ty}"),
            Sort::FnList { len, ret, .. } => format!("a list of {len} functions returning {ret}"),
            Sort::Invalid(m) => format!("an ill-typed term ({m})"),
        }
    }
}

/// Per-class data: the sort and the split marks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Data {
    /// What the class denotes.
    pub sort: Sort,
    /// Bit `k` set: the class was produced by split rule number `k`, which therefore does not
    /// split it again (see `rules.rs`, `(split)`).
    pub marks: u64,
}

/// The analysis: the program inputs' types (so `(input ...)` leaves have a type).
#[derive(Clone, Debug, Default)]
pub struct SeqAnalysis {
    /// Types of the inputs, by position.
    pub inputs: Vec<SeqType>,
}

impl SeqAnalysis {
    /// An analysis for programs with these input types.
    pub fn new(inputs: Vec<SeqType>) -> SeqAnalysis {
        SeqAnalysis { inputs }
    }
}

/// The e-graph type of this layer.
pub type SeqEGraph = EGraph<SeqLang, SeqAnalysis>;

/// The sort of `node`, given the sorts of its children (`child`) and the input types.
pub fn node_sort<'a>(node: &SeqLang, child: impl Fn(Id) -> &'a Sort, inputs: &[SeqType]) -> Sort {
    match try_sort(node, &child, inputs) {
        Ok(s) => s,
        Err(m) => Sort::Invalid(m),
    }
}

fn num<'a>(child: &impl Fn(Id) -> &'a Sort, id: Id) -> Result<u64, String> {
    match child(id) {
        Sort::Num(n) => Ok(*n),
        other => Err(format!("expected a number, found {}", other.describe())),
    }
}

fn ty<'a>(child: &impl Fn(Id) -> &'a Sort, id: Id) -> Result<SeqType, String> {
    match child(id) {
        Sort::Type(t) => Ok(t.clone()),
        other => Err(format!("expected a type, found {}", other.describe())),
    }
}

fn lit<'a>(child: &impl Fn(Id) -> &'a Sort, id: Id) -> Result<Value, String> {
    match child(id) {
        Sort::Lit(v) => Ok(v.clone()),
        other => Err(format!("expected a literal, found {}", other.describe())),
    }
}

/// A value child: (type, args, input).
fn val<'a>(
    child: &impl Fn(Id) -> &'a Sort,
    id: Id,
) -> Result<(&'a SeqType, &'a Args, bool), String> {
    match child(id) {
        Sort::Value { ty, args, input } => Ok((ty, args, *input)),
        other => Err(format!("expected a value, found {}", other.describe())),
    }
}

/// Joins argument maps; the same placeholder with two types is an error.
pub fn join_args(a: &Args, b: &Args) -> Result<Args, String> {
    let mut out = a.clone();
    for (i, t) in b {
        match out.get(i) {
            Some(u) if u != t => {
                return Err(format!("argument {i} is used with types {u} and {t}"));
            }
            _ => {
                out.insert(*i, t.clone());
            }
        }
    }
    Ok(out)
}

/// Checks that `body` is a closed function of the given parameter types.
fn check_body(what: &str, body: &Sort, params: &[&SeqType]) -> Result<SeqType, String> {
    match body {
        Sort::Value { ty, args, input } => {
            if *input {
                return Err(format!("{what}: the function reads a program input"));
            }
            for (i, t) in args {
                match params.get(usize::from(*i)) {
                    Some(p) if *p == t => {}
                    Some(p) => {
                        return Err(format!(
                            "{what}: the function's argument {i} has type {t}, but receives {p}"
                        ))
                    }
                    None => return Err(format!("{what}: the function uses argument {i}")),
                }
            }
            Ok(ty.clone())
        }
        other => Err(format!(
            "{what}: expected a function, found {}",
            other.describe()
        )),
    }
}

fn seq_elem<'t>(what: &str, t: &'t SeqType, n: u64) -> Result<&'t SeqType, String> {
    match t {
        SeqType::Seq(m, e) if *m == n => Ok(e),
        _ => Err(format!(
            "{what}: expected input of type (seq {n} _), found {t}"
        )),
    }
}

fn try_sort<'a>(
    node: &SeqLang,
    child: &impl Fn(Id) -> &'a Sort,
    inputs: &[SeqType],
) -> Result<Sort, String> {
    let value = |ty: SeqType, args: Args, input: bool| Sort::Value { ty, args, input };
    // First-order operators: build the seq-level Op and use the checker.
    let first_order = |op: Op, data: &[Id]| -> Result<Sort, String> {
        let mut tys = Vec::new();
        let mut args = Args::new();
        let mut input = false;
        for d in data {
            let (t, a, i) = val(child, *d)?;
            tys.push(t);
            args = join_args(&args, a)?;
            input |= i;
        }
        Ok(value(result_type(&op, &tys)?, args, input))
    };
    match node {
        SeqLang::Num(n) => Ok(Sort::Num(*n)),
        SeqLang::Scalar(s) => Ok(Sort::Type(SeqType::Scalar(s.0))),
        SeqLang::TSeq([n, t]) => Ok(Sort::Type(SeqType::seq(num(child, *n)?, ty(child, *t)?))),
        SeqLang::TSTuple([n, t]) => {
            Ok(Sort::Type(SeqType::stuple(num(child, *n)?, ty(child, *t)?)))
        }
        SeqLang::TATuple([a, b]) => {
            let (a, b) = (ty(child, *a)?, ty(child, *b)?);
            if !a.is_atom() || !b.is_atom() {
                return Err("an atuple type holds atoms".into());
            }
            Ok(Sort::Type(SeqType::atuple(a, b)))
        }
        SeqLang::Lit(l) => Ok(Sort::Lit(l.0.clone())),
        SeqLang::Input(r) => match inputs.get(r.index as usize) {
            Some(t) => Ok(value(t.clone(), Args::new(), true)),
            None => Err(format!("input {} is not declared", r.index)),
        },
        SeqLang::Arg([i, t]) => {
            let i = num(child, *i)?;
            let i = u8::try_from(i).map_err(|_| format!("argument index {i} is too large"))?;
            let t = ty(child, *t)?;
            Ok(value(t.clone(), Args::from([(i, t)]), false))
        }
        SeqLang::Const([l, t]) => {
            let (v, t) = (lit(child, *l)?, ty(child, *t)?);
            check_value(&v, &t)?;
            Ok(value(t, Args::new(), false))
        }
        SeqLang::Counter([n, incr, t]) => {
            let (n, _incr, t) = (num(child, *n)?, num(child, *incr)?, ty(child, *t)?);
            match t.as_scalar() {
                Some(s) if s.is_int() => Ok(value(SeqType::seq(n, t), Args::new(), false)),
                _ => Err(format!("a counter counts in an integer type, found {t}")),
            }
        }
        SeqLang::Atom(a, [x]) => first_order(Op::Atom(a.0), &[*x]),
        SeqLang::Cast([t, x]) => match ty(child, *t)? {
            SeqType::Scalar(to) => first_order(Op::Atom(AtomOp::Cast(to)), &[*x]),
            other => Err(format!("a cast converts to a scalar type, found {other}")),
        },
        SeqLang::ATuple(c) => first_order(Op::ATuple, c),
        SeqLang::STuple(c) => first_order(Op::STuple, c),
        SeqLang::STupleAppend(c) => first_order(Op::STupleAppend, c),
        SeqLang::Up([n, x]) => first_order(Op::Up { n: num(child, *n)? }, &[*x]),
        SeqLang::Down([n, i, x]) => first_order(
            Op::Down {
                n: num(child, *n)?,
                idx: num(child, *i)?,
            },
            &[*x],
        ),
        SeqLang::Shift([n, s, init, x]) => {
            let init = match lit(child, *init)? {
                Value::Undef => None,
                v => Some(v),
            };
            first_order(
                Op::Shift {
                    n: num(child, *n)?,
                    amount: num(child, *s)?,
                    init,
                },
                &[*x],
            )
        }
        SeqLang::Partition([a, b, x]) => first_order(
            Op::Partition {
                no: num(child, *a)?,
                ni: num(child, *b)?,
            },
            &[*x],
        ),
        SeqLang::Unpartition([a, b, x]) => first_order(
            Op::Unpartition {
                no: num(child, *a)?,
                ni: num(child, *b)?,
            },
            &[*x],
        ),
        SeqLang::Transpose([a, b, x]) => first_order(
            Op::Transpose {
                no: num(child, *a)?,
                ni: num(child, *b)?,
            },
            &[*x],
        ),
        SeqLang::STupleToSeq([n, x]) => first_order(Op::STupleToSeq { n: num(child, *n)? }, &[*x]),
        SeqLang::SeqToSTuple([n, x]) => first_order(Op::SeqToSTuple { n: num(child, *n)? }, &[*x]),
        SeqLang::Map([n, f, x]) => {
            let n = num(child, *n)?;
            let (xt, args, input) = val(child, *x)?;
            let e = seq_elem(&format!("map {n}"), xt, n)?;
            let r = check_body(&format!("map {n}"), child(*f), &[e])?;
            Ok(value(SeqType::seq(n, r), args.clone(), input))
        }
        SeqLang::Map2([n, f, x, y]) => {
            let n = num(child, *n)?;
            let what = format!("map2 {n}");
            let (xt, xa, xi) = val(child, *x)?;
            let (yt, ya, yi) = val(child, *y)?;
            let ex = seq_elem(&what, xt, n)?;
            let ey = seq_elem(&what, yt, n)?;
            let r = check_body(&what, child(*f), &[ex, ey])?;
            Ok(value(SeqType::seq(n, r), join_args(xa, ya)?, xi || yi))
        }
        SeqLang::Reduce([n, f, x]) => {
            let n = num(child, *n)?;
            let what = format!("reduce {n}");
            let (xt, args, input) = val(child, *x)?;
            let e = seq_elem(&what, xt, n)?;
            let r = check_body(&what, child(*f), &[&e.zipped_pair()])?;
            if r != *e {
                return Err(format!(
                    "{what}: the function must return the element type {e}, but returns {r}"
                ));
            }
            Ok(value(SeqType::seq(1, r), args.clone(), input))
        }
        SeqLang::HMap([n, fs, x]) => {
            let n = num(child, *n)?;
            let what = format!("hmap {n}");
            let (xt, args, input) = val(child, *x)?;
            let e = seq_elem(&what, xt, n)?;
            match child(*fs) {
                Sort::FnList { len, arg, ret } if *len == n => {
                    if let Some(a) = arg {
                        if a != e {
                            return Err(format!(
                                "{what}: the functions take {a}, but the elements are {e}"
                            ));
                        }
                    }
                    Ok(value(SeqType::seq(n, ret.clone()), args.clone(), input))
                }
                other => Err(format!(
                    "{what}: expected a list of {n} functions, found {}",
                    other.describe()
                )),
            }
        }
        SeqLang::ListToSeq(fs) => {
            let mut arg: Option<SeqType> = None;
            let mut ret: Option<SeqType> = None;
            if fs.is_empty() {
                return Err("list_to_seq: an empty function list".into());
            }
            for f in fs.iter() {
                let (t, a, input) = val(child, *f)?;
                if input || a.keys().any(|i| *i > 0) {
                    return Err("list_to_seq: each function must be closed, of one argument".into());
                }
                if let Some(t0) = a.get(&0) {
                    if arg.as_ref().is_some_and(|x| x != t0) {
                        return Err("list_to_seq: the functions take different types".into());
                    }
                    arg = Some(t0.clone());
                }
                if ret.as_ref().is_some_and(|r| r != t) {
                    return Err("list_to_seq: the functions return different types".into());
                }
                ret = Some(t.clone());
            }
            Ok(Sort::FnList {
                len: fs.len() as u64,
                arg,
                ret: ret.expect("non-empty"),
            })
        }
    }
}

impl Analysis<SeqLang> for SeqAnalysis {
    type Data = Data;

    fn make(egraph: &mut SeqEGraph, enode: &SeqLang, _id: Id) -> Data {
        let sort = node_sort(enode, |c| &egraph[c].data.sort, &egraph.analysis.inputs);
        debug_assert!(
            !matches!(sort, Sort::Invalid(_)),
            "an ill-typed e-node was added: {enode:?}: {sort:?}"
        );
        Data { sort, marks: 0 }
    }

    fn merge(&mut self, a: &mut Data, b: Data) -> DidMerge {
        let mut changed_a = false;
        let mut changed_b = false;
        match (&mut a.sort, &b.sort) {
            (
                Sort::Value {
                    ty: ta,
                    args: aa,
                    input: ia,
                },
                Sort::Value {
                    ty: tb,
                    args: ab,
                    input: ib,
                },
            ) => {
                debug_assert_eq!(ta, tb, "merged e-classes of different types");
                if let Ok(joined) = join_args(aa, ab) {
                    changed_a |= joined != *aa;
                    changed_b |= joined != *ab;
                    *aa = joined;
                }
                changed_b |= *ia && !*ib;
                changed_a |= *ib && !*ia;
                *ia |= *ib;
            }
            (x, y) => {
                debug_assert_eq!(
                    x, y,
                    "merged e-classes of different sorts (an unsound rule?)"
                );
            }
        }
        // Marks only guide rule application; no parent's data depends on them.
        a.marks |= b.marks;
        DidMerge(changed_a, changed_b)
    }
}
