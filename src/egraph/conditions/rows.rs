//! The generators of the stencil row-sum rewrite (docs/rules.md section 8): `row-split`
//! takes a 2-D stencil kernel apart into one function per window row and what combines
//! their results, and `lsl-common` factors the common left shift out of a row's weights.
//! Row split factors a row's common weight out the same way, for shift-and-add weights (the
//! least shift) and for multiplied weights (their greatest common divisor), so that rows
//! in proportion, as every separable kernel's are, share one row computation.
//!
//! **Row split.** A kernel `k` over a window `(seq R (seq C t))` is *separable by rows* when
//! its argument is used only through one sub-term `X` that works row by row: a chain of
//! `map R f` over either the argument itself or `map2 R h (arg 0) (const [c_0 .. c_R-1])`
//! (or with the constant first). Row `k` of `X` is then `g_k(row_k)` with
//! `g_k = f_1 . .. . f_j . h(., c_k)`, and `k = k' . X` with `k'` the kernel with `X`
//! replaced by its argument: the rows can each be mapped by their `g_k` before they are
//! zipped into windows, and `k'` applied to the zipped results. Nothing about the combining
//! reduce is assumed: `k'` keeps it as it is.

use super::super::analysis::{SeqEGraph, Sort};
use super::super::extract::{hole_var, scope_term, scope_term_replacing, splice, ArgSubst};
use super::super::lang::{AtomName, Literal, SeqLang};
use super::super::pattern::{infer_var, Pat};
use crate::seq::op::AtomOp;
use crate::seq::types::SeqType;
use crate::seq::value::Value;
use egg::{ENodeOrVar, Id, Var};
use indexmap::IndexMap;
use std::cell::Cell;
use std::collections::BTreeSet;

/// How deep a chain of row maps is followed (a kernel's per-row part is a few operators).
const MAX_CHAIN: usize = 8;

/// What the row maps of `X` start from.
enum Base {
    /// The window itself.
    Window,
    /// `map2 R h` of the window and a constant whose elements (one per row) are `rows`, of
    /// element type class `elem`; `first` if the constant is `h`'s first argument.
    Const {
        h: Id,
        rows: Vec<Value>,
        elem: Id,
        first: bool,
    },
}

/// The per-row part `X` of a kernel: its base and the maps over it, innermost first.
struct RowForm {
    base: Base,
    maps: Vec<Id>,
}

/// A kernel taken apart by rows ([`row_split`]).
pub struct RowSplit {
    /// The class of the kernel's per-row part `X`.
    pub part: Id,
    /// The kernel with `X` replaced by its argument (`k'`), reading it from the zipped row
    /// streams' element: `X` is `stuple_to_seq rows (arg 0)`.
    pub rest: Pat,
    /// Per row `r` (oldest first), the row's part of `X` mapped over the row stream `w` and
    /// delayed by the rows after it: `shift^(R-1-r) (map n g_r w)` (each `shift n c _`), or
    /// `map n q_r (shift^(R-1-r) (map n g_r w))` for a row that is a weighted sum with a
    /// common weight to take out (`q_r` shifts the sum left by the least shift,
    /// [`lsl_common`], or multiplies it by the weights' common divisor, [`mul_common`]). The
    /// common weight is applied after the delay, so rows in proportion share one delayed
    /// stream: conv2d's middle row is the shared row sum delayed once, then doubled, and
    /// the oldest row the same delayed stream delayed again (one line buffer per row delay,
    /// not one per row).
    pub rows: Vec<Pat>,
    /// The classes the fragments' holes stand for.
    pub holes: IndexMap<Var, Id>,
}

/// The row split of kernel `k` over windows of `rows` rows. `None` if `k` is not a
/// one-argument body over `(seq rows (seq _ _))` that uses its argument only through a
/// per-row sub-term with at least one map or constant.
/// `n`, `c` and `w` are the classes of the stream length, of the row shift's amount and of
/// the row stream the rows' functions are mapped over.
pub fn row_split(eg: &SeqEGraph, k: Id, rows: u64, n: Id, c: Id, w: Id) -> Option<RowSplit> {
    let k = eg.find(k);
    let Sort::Value {
        args, input: false, ..
    } = &eg[k].data.sort
    else {
        return None;
    };
    match (args.len(), args.get(&0)) {
        (1, Some(SeqType::Seq(r, row))) if *r == rows && matches!(**row, SeqType::Seq(..)) => {}
        _ => return None,
    }
    for x in scope_classes(eg, k) {
        let Some(form) = row_form(eg, x, rows, MAX_CHAIN) else {
            continue;
        };
        let mut holes = IndexMap::new();
        let stray = Cell::new(false);
        let flag = |i: u8| {
            if i == 0 {
                stray.set(true);
            }
            None
        };
        let kr = scope_term_replacing(eg, k, x, &zipped_rows(rows), &flag, &mut holes);
        if stray.get() {
            // The chosen term of `k` reads its argument outside `x` too.
            continue;
        }
        let weighted = weighted_sum(eg, &form);
        let gs = (0..rows as usize)
            .map(|r| {
                let (post, form_r) = match (&form.base, weighted) {
                    (Base::Const { rows, .. }, Some((op, amount_ty))) => {
                        let common = match op {
                            AtomOp::Lsl => lsl_common(&rows[r]),
                            _ => mul_common(&rows[r]),
                        };
                        match common {
                            Some((d, rest)) => {
                                let mut single = rows.clone();
                                single[r] = rest;
                                (Some((op, d, amount_ty)), Some(single))
                            }
                            None => (None, None),
                        }
                    }
                    _ => (None, None),
                };
                let g = row_fn(eg, &form, form_r.as_deref(), r, &mut holes);
                let q = post.map(|(op, d, u)| scale_post(op, d, u, &mut holes));
                let delays = rows as usize - 1 - r;
                delayed_row(n, c, w, delays, q, &g, &mut holes)
            })
            .collect();
        return Some(RowSplit {
            part: x,
            rest: kr,
            rows: gs,
            holes,
        });
    }
    None
}

/// The classes of `k`'s scope (through data children), the kernel's own class first and
/// every class before the ones under it: the first per-row sub-term found is the largest.
fn scope_classes(eg: &SeqEGraph, k: Id) -> Vec<Id> {
    let mut out = vec![k];
    let mut seen = BTreeSet::from([k]);
    let mut i = 0;
    while i < out.len() {
        let c = out[i];
        i += 1;
        for n in &eg[c].nodes {
            for d in n.data_children() {
                let d = eg.find(*d);
                if seen.insert(d) {
                    out.push(d);
                }
            }
        }
    }
    out
}

fn num(eg: &SeqEGraph, id: Id) -> Option<u64> {
    eg[id].data.sort.num()
}

/// True if class `c` holds `(arg 0 _)`.
fn is_arg0(eg: &SeqEGraph, c: Id) -> bool {
    eg[c]
        .nodes
        .iter()
        .any(|n| matches!(n, SeqLang::Arg([i, _]) if num(eg, *i) == Some(0)))
}

/// The elements and element type class of a constant sequence of `rows` elements in `c`.
fn const_rows(eg: &SeqEGraph, c: Id, rows: u64) -> Option<(Vec<Value>, Id)> {
    eg[c].nodes.iter().find_map(|n| {
        let SeqLang::Const([lit, ty]) = n else {
            return None;
        };
        let Sort::Lit(Value::List(items)) = &eg[*lit].data.sort else {
            return None;
        };
        let elem = eg[*ty].nodes.iter().find_map(|t| match t {
            SeqLang::TSeq([n, e]) if num(eg, *n) == Some(rows) => Some(eg.find(*e)),
            _ => None,
        })?;
        (items.len() as u64 == rows).then(|| (items.clone(), elem))
    })
}

/// The per-row form of class `c`, if it has one.
fn row_form(eg: &SeqEGraph, c: Id, rows: u64, depth: usize) -> Option<RowForm> {
    if depth == 0 {
        return None;
    }
    for n in &eg[c].nodes {
        match n {
            SeqLang::Map([len, f, y]) if num(eg, *len) == Some(rows) => {
                let y = eg.find(*y);
                let inner = if is_arg0(eg, y) {
                    Some(RowForm {
                        base: Base::Window,
                        maps: vec![],
                    })
                } else {
                    row_form(eg, y, rows, depth - 1)
                };
                if let Some(mut form) = inner {
                    form.maps.push(eg.find(*f));
                    return Some(form);
                }
            }
            SeqLang::Map2([len, h, a, b]) if num(eg, *len) == Some(rows) => {
                let (a, b) = (eg.find(*a), eg.find(*b));
                let found = if is_arg0(eg, a) {
                    const_rows(eg, b, rows).map(|c| (c, false))
                } else if is_arg0(eg, b) {
                    const_rows(eg, a, rows).map(|c| (c, true))
                } else {
                    None
                };
                if let Some(((items, elem), first)) = found {
                    return Some(RowForm {
                        base: Base::Const {
                            h: eg.find(*h),
                            rows: items,
                            elem,
                            first,
                        },
                        maps: vec![],
                    });
                }
            }
            _ => {}
        }
    }
    None
}

/// `shift^delays (map n g w)` (each `shift n c _`), or `map n q` of it.
fn delayed_row(
    n: Id,
    c: Id,
    w: Id,
    delays: usize,
    q: Option<Pat>,
    g: &Pat,
    holes: &mut IndexMap<Var, Id>,
) -> Pat {
    let mut p = Pat::default();
    let mut hole = |p: &mut Pat, c: Id| {
        let v = hole_var(c);
        holes.insert(v, c);
        p.add(ENodeOrVar::Var(v))
    };
    let len = hole(&mut p, n);
    let amount = hole(&mut p, c);
    let src = hole(&mut p, w);
    let g = splice(&mut p, g);
    let mut row = p.add(ENodeOrVar::ENode(SeqLang::Map([len, g, src])));
    for _ in 0..delays {
        let undef = p.add(ENodeOrVar::ENode(SeqLang::Lit(Literal::undef())));
        row = p.add(ENodeOrVar::ENode(SeqLang::Shift([len, amount, undef, row])));
    }
    if let Some(q) = q {
        let q = splice(&mut p, &q);
        p.add(ENodeOrVar::ENode(SeqLang::Map([len, q, row])));
    }
    p
}

/// The class of the 3-wide windows of `x` (of length `n`) as `stencil_1d n 3` writes them,
/// if the e-graph holds it: three parents up from `x` (the zip, the partition, the map).
pub fn stencil_1d_of(eg: &SeqEGraph, n: u64, x: Id) -> Option<Id> {
    let parents =
        |c: Id| -> BTreeSet<Id> { eg[eg.find(c)].parents().map(|p| eg.find(p)).collect() };
    for zip in parents(x) {
        for grouped in parents(zip) {
            for w in parents(grouped) {
                if is_stencil_1d(eg, w, n, x) {
                    return Some(w);
                }
            }
        }
    }
    None
}

/// True if class `w` holds the 3-wide windows of `x` (of length `n`) as `stencil_1d n 3`
/// writes them: `map n (stuple_to_seq 3 (arg 0)) (partition n 1 (map2 n
/// (stuple_append (arg 0) (arg 1)) (map2 n (stuple (arg 0) (arg 1)) (shift n 1 _ (shift n
/// 1 _ x)) (shift n 1 _ x)) x))`.
pub fn is_stencil_1d(eg: &SeqEGraph, w: Id, n: u64, x: Id) -> bool {
    let x = eg.find(x);
    let len = |c: Id| num(eg, c) == Some(n);
    let any = |c: Id, f: &dyn Fn(&SeqLang) -> bool| eg[eg.find(c)].nodes.iter().any(f);
    let shift1 = |c: Id, of: Id| {
        any(c, &|m| match m {
            SeqLang::Shift([k, s, init, y]) => {
                len(*k)
                    && num(eg, *s) == Some(1)
                    && matches!(&eg[*init].data.sort, Sort::Lit(Value::Undef))
                    && eg.find(*y) == eg.find(of)
            }
            _ => false,
        })
    };
    let zip = |a: Id, b: Id, y: Id, appending: bool| {
        any(a, &|m| match m {
            SeqLang::Map2([k, f, l, r]) => {
                len(*k)
                    && eg.find(*l) == eg.find(b)
                    && eg.find(*r) == eg.find(y)
                    && any(*f, &|fb| match fb {
                        SeqLang::STupleAppend([p, q]) if appending => {
                            is_arg(eg, *p, 0) && is_arg(eg, *q, 1)
                        }
                        SeqLang::STuple([p, q]) if !appending => {
                            is_arg(eg, *p, 0) && is_arg(eg, *q, 1)
                        }
                        _ => false,
                    })
            }
            _ => false,
        })
    };
    any(w, &|m| {
        let SeqLang::Map([k, f, grouped]) = m else {
            return false;
        };
        let to_seq = any(
            *f,
            &|fb| matches!(fb, SeqLang::STupleToSeq([k3, a]) if num(eg, *k3) == Some(3) && is_arg(eg, *a, 0)),
        );
        len(*k)
            && to_seq
            && any(*grouped, &|g| {
                let SeqLang::Partition([no, ni, z]) = g else {
                    return false;
                };
                len(*no)
                    && num(eg, *ni) == Some(1)
                    && eg[eg.find(*z)].nodes.iter().any(|zn| {
                        let SeqLang::Map2([_, _, pairs, last]) = zn else {
                            return false;
                        };
                        eg.find(*last) == x
                            && zip(*z, *pairs, *last, true)
                            && eg[eg.find(*pairs)].nodes.iter().any(|pn| {
                                let SeqLang::Map2([_, _, s2, s1]) = pn else {
                                    return false;
                                };
                                zip(*pairs, *s2, *s1, false) && shift1(*s1, x) && shift1(*s2, *s1)
                            })
                    })
            })
    })
}

/// `(stuple_to_seq rows (arg 0 ?inferred))`: the kernel's rows from the zipped row streams'
/// element (a `(seq 1 (stuple rows r))`), so that `k'` reads the zip directly.
fn zipped_rows(rows: u64) -> Pat {
    let mut p = arg0();
    let a = Id::from(p.as_ref().len() - 1);
    let n = p.add(ENodeOrVar::ENode(SeqLang::Num(rows)));
    p.add(ENodeOrVar::ENode(SeqLang::STupleToSeq([n, a])));
    p
}

/// `(arg 0 ?inferred)`.
fn arg0() -> Pat {
    let mut p = Pat::default();
    let i = p.add(ENodeOrVar::ENode(SeqLang::Num(0)));
    let t = p.add(ENodeOrVar::Var(infer_var()));
    p.add(ENodeOrVar::ENode(SeqLang::Arg([i, t])));
    p
}

/// The function of row `r`: the maps of `form` over its base, on one row.
fn row_fn(
    eg: &SeqEGraph,
    form: &RowForm,
    consts: Option<&[Value]>,
    r: usize,
    holes: &mut IndexMap<Var, Id>,
) -> Pat {
    let mut term = match &form.base {
        Base::Window => arg0(),
        Base::Const {
            h,
            rows,
            elem,
            first,
        } => {
            let mut c = Pat::default();
            let value = consts.unwrap_or(rows)[r].clone();
            let lit = c.add(ENodeOrVar::ENode(SeqLang::Lit(Literal(value))));
            let v = hole_var(*elem);
            holes.insert(v, *elem);
            let ty = c.add(ENodeOrVar::Var(v));
            c.add(ENodeOrVar::ENode(SeqLang::Const([lit, ty])));
            let (row_at, const_at) = if *first { (1, 0) } else { (0, 1) };
            let subst = |i: u8| {
                if i == row_at {
                    Some(arg0())
                } else if i == const_at {
                    Some(c.clone())
                } else {
                    None
                }
            };
            scope_term(eg, *h, &subst, holes)
        }
    };
    for f in &form.maps {
        let inner = term.clone();
        let subst: ArgSubst<'_> = &|i: u8| (i == 0).then(|| inner.clone());
        term = scope_term(eg, *f, subst, holes);
    }
    term
}

/// If `form` is a weighted sum, `reduce m add (map m op (map2 m atuple row c_r))` with `op`
/// `lsl` (the Aetherling kernels' shift-and-add weights) or `mul` (their multiplied ones),
/// `op` and the class of the weights' scalar type.
fn weighted_sum(eg: &SeqEGraph, form: &RowForm) -> Option<(AtomOp, Id)> {
    let Base::Const {
        h,
        elem,
        first: false,
        ..
    } = &form.base
    else {
        return None;
    };
    let [weights, sum] = form.maps[..] else {
        return None;
    };
    // h = map2 m (atuple (arg 0) (arg 1)) (arg 0) (arg 1)
    let m = eg[*h].nodes.iter().find_map(|n| match n {
        SeqLang::Map2([m, f, a, b])
            if is_arg(eg, *a, 0) && is_arg(eg, *b, 1) && is_pair_of_args(eg, *f) =>
        {
            num(eg, *m)
        }
        _ => None,
    })?;
    let is_map_of = |c: Id, op: AtomOp, reduce: bool| {
        eg[c].nodes.iter().any(|n| match n {
            SeqLang::Map([k, f, y]) if !reduce => {
                num(eg, *k) == Some(m) && is_arg(eg, *y, 0) && is_atom_of_arg(eg, *f, op)
            }
            SeqLang::Reduce([k, f, y]) if reduce => {
                num(eg, *k) == Some(m) && is_arg(eg, *y, 0) && is_atom_of_arg(eg, *f, op)
            }
            _ => false,
        })
    };
    if !is_map_of(sum, AtomOp::Add, true) {
        return None;
    }
    let op = [AtomOp::Lsl, AtomOp::Mul]
        .into_iter()
        .find(|op| is_map_of(weights, *op, false))?;
    // The constant is (seq m u) per row.
    Some((op, seq_elem(eg, *elem)?))
}

/// True if class `c` holds `(arg i _)`.
fn is_arg(eg: &SeqEGraph, c: Id, i: u64) -> bool {
    eg[eg.find(c)]
        .nodes
        .iter()
        .any(|n| matches!(n, SeqLang::Arg([k, _]) if num(eg, *k) == Some(i)))
}

/// True if body `f` is `(atuple (arg 0) (arg 1))`.
fn is_pair_of_args(eg: &SeqEGraph, f: Id) -> bool {
    eg[eg.find(f)]
        .nodes
        .iter()
        .any(|n| matches!(n, SeqLang::ATuple([a, b]) if is_arg(eg, *a, 0) && is_arg(eg, *b, 1)))
}

/// True if body `f` is `(op (arg 0))`.
fn is_atom_of_arg(eg: &SeqEGraph, f: Id, op: AtomOp) -> bool {
    eg[eg.find(f)]
        .nodes
        .iter()
        .any(|n| matches!(n, SeqLang::Atom(a, [x]) if a.0 == op && is_arg(eg, *x, 0)))
}

/// `(map 1 (op (atuple (arg 0) (const d u))) (arg 0))`: a row sum shifted left by `d`
/// (`op` is `lsl`) or multiplied by it (`mul`).
fn scale_post(op: AtomOp, d: u64, u: Id, holes: &mut IndexMap<Var, Id>) -> Pat {
    let mut p = Pat::default();
    let one = p.add(ENodeOrVar::ENode(SeqLang::Num(1)));
    let zero = p.add(ENodeOrVar::ENode(SeqLang::Num(0)));
    let t = p.add(ENodeOrVar::Var(infer_var()));
    let x = p.add(ENodeOrVar::ENode(SeqLang::Arg([zero, t])));
    let lit = p.add(ENodeOrVar::ENode(SeqLang::Lit(Literal(Value::Scalar(d)))));
    let v = hole_var(u);
    holes.insert(v, u);
    let ut = p.add(ENodeOrVar::Var(v));
    let c = p.add(ENodeOrVar::ENode(SeqLang::Const([lit, ut])));
    let pair = p.add(ENodeOrVar::ENode(SeqLang::ATuple([x, c])));
    let scaled = p.add(ENodeOrVar::ENode(SeqLang::Atom(AtomName(op), [pair])));
    let zero2 = p.add(ENodeOrVar::ENode(SeqLang::Num(0)));
    let t2 = p.add(ENodeOrVar::Var(infer_var()));
    let row = p.add(ENodeOrVar::ENode(SeqLang::Arg([zero2, t2])));
    p.add(ENodeOrVar::ENode(SeqLang::Map([one, scaled, row])));
    p
}

/// The element type class of a sequence type class `(seq _ u)`.
pub fn seq_elem(eg: &SeqEGraph, t: Id) -> Option<Id> {
    eg[t].nodes.iter().find_map(|n| match n {
        SeqLang::TSeq([_, e]) => Some(eg.find(*e)),
        _ => None,
    })
}

/// `(lsl-common ?c ?t ?d ?u ?c2)`: the common left shift of a row of shift amounts: `c` a list
/// of scalar literals whose least element `d` is positive, `c2` the list less `d`. A
/// weighted sum `sum x_i << c_i` is `(sum x_i << c2_i) << d` in wrapping arithmetic.
pub fn lsl_common(c: &Value) -> Option<(u64, Value)> {
    let amounts = scalars(c)?;
    let d = *amounts.iter().min()?;
    if d == 0 {
        return None;
    }
    let rest = amounts.iter().map(|a| Value::Scalar(a - d)).collect();
    Some((d, Value::List(rest)))
}

/// The common factor of a row of multiplied weights: `c` a list of scalar literals whose
/// greatest common divisor `g` is above 1, and the list divided by `g`. A weighted sum
/// `sum x_i * c_i` is `(sum x_i * (c_i / g)) * g` in wrapping arithmetic (multiplication
/// distributes over addition modulo 2^w). A row of zeros has none.
pub fn mul_common(c: &Value) -> Option<(u64, Value)> {
    let weights = scalars(c)?;
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let g = weights.iter().fold(0, |g, w| gcd(g, *w));
    if g <= 1 {
        return None;
    }
    let rest = weights.iter().map(|w| Value::Scalar(w / g)).collect();
    Some((g, Value::List(rest)))
}

/// The elements of a list of scalar literals.
fn scalars(c: &Value) -> Option<Vec<u64>> {
    let Value::List(items) = c else {
        return None;
    };
    items
        .iter()
        .map(|v| match v {
            Value::Scalar(n) => Some(*n),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(v: &[u64]) -> Value {
        Value::List(v.iter().map(|x| Value::Scalar(*x)).collect())
    }

    #[test]
    fn mul_common_takes_out_the_greatest_common_divisor() {
        assert_eq!(mul_common(&list(&[2, 4, 2])), Some((2, list(&[1, 2, 1]))));
        assert_eq!(mul_common(&list(&[0, 6, 3])), Some((3, list(&[0, 2, 1]))));
        assert_eq!(mul_common(&list(&[1, 2, 1])), None);
        assert_eq!(mul_common(&list(&[0, 0, 0])), None);
        assert_eq!(mul_common(&Value::Scalar(4)), None);
    }
}
