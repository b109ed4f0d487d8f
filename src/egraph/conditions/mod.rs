//! The named side conditions and generators a rule file may use in `(where ...)`.
//!
//! A clause `(NAME ?a ?b ...)` reads the variables bound so far (by the left side or by
//! earlier clauses) and either rejects the match (a condition), or binds new variables, once
//! or several times (a generator: `factor` yields one binding per factor pair). A new
//! variable is bound either to an existing e-class or to a *term fragment* (a pattern built
//! here, e.g. the number 4, or a composed function body) that the right side splices in.
//! Every generator only reads the e-graph; the rule applier adds the right side.

use super::analysis::{SeqEGraph, Sort};
use super::extract::{hole_var, scope_term};
use super::lang::{Literal, SeqLang};
use super::pattern::{infer_var, Pat};
use crate::seq::value::Value;
use egg::{ENodeOrVar, Id, Var};
use indexmap::IndexMap;
use lanes::{hmap_lanes, seed_shift_lanes, shift_lanes};
use std::collections::BTreeSet;

mod lanes;
mod rows;
mod strict;
mod types;

/// What a variable is bound to.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    /// An existing e-class.
    Class(Id),
    /// A fragment to splice into the right side (its variables are bound too).
    Term(Pat),
}

/// Variable bindings of one rule instance, in binding order.
pub type Bindings = IndexMap<Var, Bound>;

/// Which factor pairs `n = no * ni` the `factor` generator yields: the bound on nesting.
///
/// A pair is allowed when `no, ni >= 2`, `ni` is an allowed inner factor, and `n` is one of
/// the sequence lengths the nesting may split (the lengths of the program's own sequence
/// layers: a split's outer length `no` is then not split again by another rule's products).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FactorPolicy {
    /// Allowed inner factors `ni`; `None` allows every divisor.
    pub inner: Option<BTreeSet<u64>>,
    /// Lengths that may be split; `None` allows every length.
    pub lengths: Option<BTreeSet<u64>>,
}

impl FactorPolicy {
    /// Every pair of every length (the soundness test uses it on small numbers).
    pub fn all() -> FactorPolicy {
        FactorPolicy::default()
    }

    /// Inner factors from `inner`, any length.
    pub fn inner(inner: impl IntoIterator<Item = u64>) -> FactorPolicy {
        FactorPolicy {
            inner: Some(inner.into_iter().collect()),
            lengths: None,
        }
    }

    /// The default for saturating a program: inner factors 2, 3 and 4.
    pub fn default_inner() -> FactorPolicy {
        FactorPolicy::inner([2, 3, 4])
    }

    /// The same policy, splitting only the given lengths.
    pub fn with_lengths(mut self, lengths: impl IntoIterator<Item = u64>) -> FactorPolicy {
        self.lengths = Some(lengths.into_iter().collect());
        self
    }

    /// The allowed pairs `(no, ni)` for `n`, by increasing `ni`.
    pub fn pairs(&self, n: u64) -> Vec<(u64, u64)> {
        if self.lengths.as_ref().is_some_and(|l| !l.contains(&n)) {
            return Vec::new();
        }
        let candidates: Vec<u64> = match &self.inner {
            Some(set) => set.iter().copied().filter(|ni| *ni >= 2).collect(),
            None => (2..=n / 2).collect(),
        };
        candidates
            .into_iter()
            .filter(|ni| *ni <= n / 2 && n.is_multiple_of(*ni))
            .map(|ni| (n / ni, ni))
            .collect()
    }

    /// Prints the policy: `inner 2,3,4; lengths 8,16`.
    pub fn describe(&self) -> String {
        let list = |s: &Option<BTreeSet<u64>>| match s {
            None => "any".to_string(),
            Some(s) => s.iter().map(u64::to_string).collect::<Vec<_>>().join(","),
        };
        format!(
            "inner {}; lengths {}",
            list(&self.inner),
            list(&self.lengths)
        )
    }
}

/// What generators may read.
pub struct Ctx<'a> {
    /// The e-graph being rewritten.
    pub egraph: &'a SeqEGraph,
    /// The factor pairs `factor` may yield.
    pub factors: &'a FactorPolicy,
}

/// How a generator uses one argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Must be bound before the clause.
    In,
    /// Bound by the clause (must not be bound before).
    Out,
    /// Checked if bound, else bound by the clause.
    InOut,
}

/// A generator's signature and documentation.
#[derive(Debug)]
pub struct GenSpec {
    /// The name used in rule files.
    pub name: &'static str,
    /// One mode per argument.
    pub modes: &'static [Mode],
    /// What it does (printed by `tessera rules` and in docs/rules.md).
    pub doc: &'static str,
}

use Mode::{In, InOut, Out};

/// Every condition and generator rule files may use.
pub const GENERATORS: &[GenSpec] = &[
    GenSpec { name: "factor", modes: &[In, Out, Out], doc: "(factor ?n ?no ?ni): one binding per factor pair n = no*ni allowed by the factor policy (no, ni >= 2)" },
    GenSpec { name: "mul", modes: &[In, In, InOut], doc: "(mul ?a ?b ?c): c = a*b" },
    GenSpec { name: "sub", modes: &[In, In, Out], doc: "(sub ?a ?b ?c): c = a - b; rejects when b > a" },
    GenSpec { name: "groups-back", modes: &[In, In, In, In, Out, Out], doc: "(groups-back ?no ?ni ?i ?s ?q ?j): element i of a group of ni (of no groups), shifted by s > i, comes from element j of the group q groups earlier: q = ceil((s-i)/ni), j = q*ni - (s-i); rejects q >= no" },
    GenSpec { name: "divmod", modes: &[In, In, Out, Out], doc: "(divmod ?a ?b ?q ?r): q = a div b, r = a mod b (b > 0)" },
    GenSpec { name: "eq", modes: &[In, In], doc: "(eq ?a ?b): the numbers are equal" },
    GenSpec { name: "ne", modes: &[In, In], doc: "(ne ?a ?b): the numbers differ" },
    GenSpec { name: "lt", modes: &[In, In], doc: "(lt ?a ?b): a < b" },
    GenSpec { name: "all-same", modes: &[In, Out], doc: "(all-same ?fs ?f): the function list holds one function f n times" },
    GenSpec { name: "compose", modes: &[In, In, Out], doc: "(compose ?f ?g ?h): h = f . g, i.e. f's body with (arg 0) replaced by g's" },
    GenSpec { name: "compose-arg1", modes: &[In, In, Out], doc: "(compose-arg1 ?f ?g ?h): h = f with (arg 1) replaced by g applied to (arg 1)" },
    GenSpec { name: "compose-each", modes: &[In, In, Out], doc: "(compose-each ?f ?gs ?hs): hs_i = f . gs_i" },
    GenSpec { name: "each-compose", modes: &[In, In, Out], doc: "(each-compose ?fs ?g ?hs): hs_i = fs_i . g" },
    GenSpec { name: "compose-lists", modes: &[In, In, Out], doc: "(compose-lists ?fs ?gs ?hs): hs_i = fs_i . gs_i" },
    GenSpec { name: "peel", modes: &[In, Out, Out], doc: "(peel ?f ?outer ?inner): one binding per way to write f = outer . inner with outer a single operator over (arg 0)" },
    GenSpec { name: "seed-shift-lanes", modes: &[In, In, In, Out], doc: "(seed-shift-lanes ?no ?ni ?init ?fs): the Stencil seed's HMap functions of Shift nesting: [Map 1 (Shift no init) . Select_1d ni (ni-1), Select_1d ni 0, .., Select_1d ni (ni-2)]" },
    GenSpec { name: "hmap-lanes", modes: &[In, In, In, Out], doc: "(hmap-lanes ?n ?fs ?x ?lanes): the lanes of HMap n [f_0 .. f_n-1] x (n >= 2): lane k is Map 1 f_k (Select_1d n k x), the lanes zipped into (seq 1 (stuple n u))" },
    GenSpec { name: "lsl-sum", modes: &[In, In, Out], doc: "(lsl-sum ?a ?b ?c): a and b are scalar literals (shift amounts) and c is the literal min(a + b, 255): shifting left by a then by b is shifting by c, as an amount of at least the width gives 0" },
    GenSpec { name: "row-split", modes: &[In, In, In, In, Out, Out, Out, Out, Out], doc: "(row-split ?k ?n ?c ?x ?p ?kr ?d0 ?d1 ?d2): w is the 3-wide windows of the stream x of length n as stencil_1d writes them (found in the e-graph), the kernel k over 3-row windows (seq 3 (seq _ _)) uses its window only through a per-row part p (maps over the rows, of the window or of a map2 of it with a constant of one element per row), kr is k with p replaced by (stuple_to_seq 3 (arg 0)): it reads the zipped rows' element (seq 1 (stuple 3 r)), and d_r is row r's stream delayed by the rows after it: p's function of row r mapped over w, then shifted 2 - r times by (shift n c _); for a row that is a weighted sum (reduce add of lsl or mul by constant weights) with a common weight (the least shift amount d > 0, or the weights' greatest common divisor g > 1), g_r uses the weights less it and q_r (a left shift by d, a multiply by g) is mapped over the delayed stream, so that rows in proportion share one delayed stream" },
    GenSpec { name: "lsl-common", modes: &[In, In, Out, Out, Out], doc: "(lsl-common ?c ?t ?d ?u ?c2): c is a literal list (of type t = (seq _ u)) of shift amounts whose least element d is positive, and c2 is c with d taken from every element: a wrapping sum of x_i << c_i is (the sum of x_i << c2_i) << d" },
    GenSpec { name: "strict", modes: &[In], doc: "(strict ?f): the body f (of one or two arguments) gives an entirely don't-care value from entirely don't-care arguments: no constant, counter or shift init reaches its result" },
    GenSpec { name: "type-is", modes: &[In, In], doc: "(type-is ?x ?t): the value x has the type t" },
    GenSpec { name: "integer", modes: &[In], doc: "(integer ?t): t (a type, or a value's type) is an integer scalar: not bit, not fixp1_7" },
    GenSpec { name: "width-le", modes: &[In, In], doc: "(width-le ?a ?b): a and b (types, or values' types) are scalars and a is at most as wide as b" },
    GenSpec { name: "holds", modes: &[In, In], doc: "(holds ?t ?x): every value of x's scalar type is a value of the scalar type t (a cast from one to the other changes no number)" },
    GenSpec { name: "shift-lanes", modes: &[In, In, In, In, In, Out], doc: "(shift-lanes ?no ?ni ?s ?init ?x ?lanes): the lane form of Shift (no*ni) s over x (reference 3.3 N-Shift): lane k is lane (k-s) mod ni of (partition no ni x), shifted by (ni-1-k+s) div ni rows, zipped into (seq no (seq 1 (stuple ni t)))" },
];

/// The generator of this name.
pub fn lookup(name: &str) -> Option<&'static GenSpec> {
    GENERATORS.iter().find(|g| g.name == name)
}

/// The number a variable is bound to, if it is one.
pub fn num_of(ctx: &Ctx<'_>, b: &Bindings, v: Var) -> Option<u64> {
    match b.get(&v)? {
        Bound::Class(id) => ctx.egraph[*id].data.sort.num(),
        Bound::Term(p) => match p.as_ref().last()? {
            ENodeOrVar::ENode(SeqLang::Num(n)) => Some(*n),
            _ => None,
        },
    }
}

/// The value of a variable bound to a scalar literal (a constant's value), if it is one.
fn lit_of(ctx: &Ctx<'_>, b: &Bindings, v: Var) -> Option<u64> {
    match lit_value(ctx, b, v)? {
        Value::Scalar(n) => Some(n),
        _ => None,
    }
}

/// The literal value bound to `v` (a class of literal sort, or a literal term).
fn lit_value(ctx: &Ctx<'_>, b: &Bindings, v: Var) -> Option<Value> {
    match b.get(&v)? {
        Bound::Class(id) => match &ctx.egraph[*id].data.sort {
            Sort::Lit(v) => Some(v.clone()),
            _ => None,
        },
        Bound::Term(p) => match p.as_ref().last()? {
            ENodeOrVar::ENode(SeqLang::Lit(l)) => Some(l.0.clone()),
            _ => None,
        },
    }
}

/// A one-node fragment holding a scalar literal.
fn lit_frag(n: u64) -> Pat {
    let mut p = Pat::default();
    p.add(ENodeOrVar::ENode(SeqLang::Lit(Literal(Value::Scalar(n)))));
    p
}

/// A one-node fragment holding a number.
pub fn num_frag(n: u64) -> Pat {
    let mut p = Pat::default();
    p.add(ENodeOrVar::ENode(SeqLang::Num(n)));
    p
}

fn with(b: &Bindings, pairs: Vec<(Var, Bound)>) -> Bindings {
    let mut out = b.clone();
    for (v, x) in pairs {
        out.insert(v, x);
    }
    out
}

/// Runs clause `name` with arguments `args` on bindings `b`; returns the extended bindings
/// (none if the clause rejects). The loader has checked the name and the modes.
pub fn run(ctx: &Ctx<'_>, name: &str, args: &[Var], b: &Bindings) -> Vec<Bindings> {
    if let Some(ok) = types::check(ctx, name, args, b) {
        return if ok { vec![b.clone()] } else { vec![] };
    }
    let n = |k: usize| num_of(ctx, b, args[k]);
    let bound = |k: usize| b.contains_key(&args[k]);
    let class = |k: usize| match b.get(&args[k]) {
        Some(Bound::Class(id)) => Some(ctx.egraph.find(*id)),
        _ => None,
    };
    match name {
        "factor" => {
            let Some(v) = n(0) else { return vec![] };
            ctx.factors
                .pairs(v)
                .into_iter()
                .map(|(no, ni)| {
                    with(
                        b,
                        vec![
                            (args[1], Bound::Term(num_frag(no))),
                            (args[2], Bound::Term(num_frag(ni))),
                        ],
                    )
                })
                .collect()
        }
        "mul" => match (n(0), n(1)) {
            (Some(x), Some(y)) => match x.checked_mul(y) {
                Some(c) if bound(2) => {
                    if n(2) == Some(c) {
                        vec![b.clone()]
                    } else {
                        vec![]
                    }
                }
                Some(c) => vec![with(b, vec![(args[2], Bound::Term(num_frag(c)))])],
                None => vec![],
            },
            _ => vec![],
        },
        "sub" => match (n(0), n(1)) {
            (Some(x), Some(y)) if y <= x => {
                vec![with(b, vec![(args[2], Bound::Term(num_frag(x - y)))])]
            }
            _ => vec![],
        },
        "groups-back" => match (n(0), n(1), n(2), n(3)) {
            (Some(no), Some(ni), Some(i), Some(s)) if ni > 0 && i < s => {
                let back = s - i;
                let q = back.div_ceil(ni);
                if q >= no {
                    return vec![];
                }
                vec![with(
                    b,
                    vec![
                        (args[4], Bound::Term(num_frag(q))),
                        (args[5], Bound::Term(num_frag(q * ni - back))),
                    ],
                )]
            }
            _ => vec![],
        },
        "divmod" => match (n(0), n(1)) {
            (Some(x), Some(y)) if y > 0 => vec![with(
                b,
                vec![
                    (args[2], Bound::Term(num_frag(x / y))),
                    (args[3], Bound::Term(num_frag(x % y))),
                ],
            )],
            _ => vec![],
        },
        "eq" | "ne" | "lt" => {
            let ok = match (n(0), n(1)) {
                (Some(x), Some(y)) => match name {
                    "eq" => x == y,
                    "ne" => x != y,
                    _ => x < y,
                },
                _ => false,
            };
            if ok {
                vec![b.clone()]
            } else {
                vec![]
            }
        }
        "all-same" => {
            let Some(fs) = class(0) else { return vec![] };
            for node in &ctx.egraph[fs].nodes {
                if let SeqLang::ListToSeq(items) = node {
                    let first = ctx.egraph.find(items[0]);
                    if items.iter().all(|i| ctx.egraph.find(*i) == first) {
                        return vec![with(b, vec![(args[1], Bound::Class(first))])];
                    }
                }
            }
            vec![]
        }
        "compose" | "compose-arg1" => {
            let (Some(f), Some(g)) = (class(0), class(1)) else {
                return vec![];
            };
            let mut holes = IndexMap::new();
            let h = if name == "compose" {
                compose(ctx, f, 0, &class_frag(g, &mut holes), &mut holes)
            } else {
                let g1 = rename_arg0_to_1(ctx, g, &mut holes);
                compose(ctx, f, 1, &g1, &mut holes)
            };
            match h {
                Some(h) => vec![bind_with_holes(b, holes, args[2], h)],
                None => vec![],
            }
        }
        "compose-each" | "each-compose" | "compose-lists" => {
            let (Some(x), Some(y)) = (class(0), class(1)) else {
                return vec![];
            };
            let mut holes = IndexMap::new();
            let pairs: Vec<(Id, Id)> = match name {
                "compose-each" => match list_items(ctx, y) {
                    Some(gs) => gs.into_iter().map(|g| (x, g)).collect(),
                    None => return vec![],
                },
                "each-compose" => match list_items(ctx, x) {
                    Some(fs) => fs.into_iter().map(|f| (f, y)).collect(),
                    None => return vec![],
                },
                _ => match (list_items(ctx, x), list_items(ctx, y)) {
                    (Some(fs), Some(gs)) if fs.len() == gs.len() => {
                        fs.into_iter().zip(gs).collect()
                    }
                    _ => return vec![],
                },
            };
            let mut list = Pat::default();
            let mut items = Vec::new();
            for (f, g) in pairs {
                let gf = class_frag(g, &mut holes);
                let Some(h) = compose(ctx, f, 0, &gf, &mut holes) else {
                    return vec![];
                };
                items.push(super::extract::splice(&mut list, &h));
            }
            list.add(ENodeOrVar::ENode(SeqLang::ListToSeq(
                items.into_boxed_slice(),
            )));
            vec![bind_with_holes(b, holes, args[2], list)]
        }
        "lsl-sum" => match (lit_of(ctx, b, args[0]), lit_of(ctx, b, args[1])) {
            (Some(x), Some(y)) => {
                // 255 is at least every scalar width, so it shifts everything out as a
                // larger sum would; it also keeps the amount a uint8.
                let c = x.saturating_add(y).min(255);
                vec![with(b, vec![(args[2], Bound::Term(lit_frag(c)))])]
            }
            _ => vec![],
        },
        "row-split" => {
            let (Some(k), Some(len), Some(amount), Some(x)) =
                (class(0), class(1), class(2), class(3))
            else {
                return vec![];
            };
            let Some(w) = n(1).and_then(|l| rows::stencil_1d_of(ctx.egraph, l, x)) else {
                return vec![];
            };
            let rows = args.len() as u64 - 6;
            match rows::row_split(ctx.egraph, k, rows, len, amount, w) {
                Some(split) => {
                    let mut out = bind_with_holes(b, split.holes, args[5], split.rest);
                    out.insert(args[4], Bound::Class(split.part));
                    for (r, s) in split.rows.into_iter().enumerate() {
                        out.insert(args[6 + r], Bound::Term(s));
                    }
                    vec![out]
                }
                None => vec![],
            }
        }
        "lsl-common" => {
            let Some(c) = lit_value(ctx, b, args[0]) else {
                return vec![];
            };
            let Some(elem) = class(1).and_then(|t| rows::seq_elem(ctx.egraph, t)) else {
                return vec![];
            };
            match rows::lsl_common(&c) {
                Some((d, rest)) => {
                    let mut frag = Pat::default();
                    frag.add(ENodeOrVar::ENode(SeqLang::Lit(Literal(rest))));
                    vec![with(
                        b,
                        vec![
                            (args[2], Bound::Term(lit_frag(d))),
                            (args[3], Bound::Class(elem)),
                            (args[4], Bound::Term(frag)),
                        ],
                    )]
                }
                None => vec![],
            }
        }
        "strict" => match class(0) {
            Some(f) if strict::strict(ctx.egraph, f) => vec![b.clone()],
            _ => vec![],
        },
        "peel" => {
            let Some(f) = class(0) else { return vec![] };
            peel(ctx, f)
                .into_iter()
                .map(|(outer, inner, holes)| {
                    let mut out = bind_with_holes(b, holes, args[1], outer);
                    out.insert(args[2], Bound::Class(inner));
                    out
                })
                .collect()
        }
        "hmap-lanes" => {
            let (Some(len), Some(fs)) = (n(0), class(1)) else {
                return vec![];
            };
            match list_items(ctx, fs) {
                Some(items) if len >= 2 && items.len() as u64 == len => {
                    let mut holes = IndexMap::new();
                    let lanes = hmap_lanes(args[0], args[2], &items, &mut holes);
                    vec![bind_with_holes(b, holes, args[3], lanes)]
                }
                _ => vec![],
            }
        }
        "seed-shift-lanes" => match n(1) {
            Some(ni) if ni >= 1 => {
                let fs = seed_shift_lanes(args[0], args[1], args[2], ni);
                vec![with(b, vec![(args[3], Bound::Term(fs))])]
            }
            _ => vec![],
        },
        "shift-lanes" => {
            let (Some(no), Some(ni), Some(s)) = (n(0), n(1), n(2)) else {
                return vec![];
            };
            let Some(init) = lit_value(ctx, b, args[3]) else {
                return vec![];
            };
            if ni < 2 || s > no * ni {
                return vec![];
            }
            let lanes = shift_lanes(args[0], args[1], s, &init, args[4], ni);
            vec![with(b, vec![(args[5], Bound::Term(lanes))])]
        }
        _ => vec![],
    }
}

fn bind_with_holes(b: &Bindings, holes: IndexMap<Var, Id>, v: Var, frag: Pat) -> Bindings {
    let mut out = b.clone();
    for (hv, id) in holes {
        out.insert(hv, Bound::Class(id));
    }
    out.insert(v, Bound::Term(frag));
    out
}

/// A fragment that is just a reference to class `id`.
fn class_frag(id: Id, holes: &mut IndexMap<Var, Id>) -> Pat {
    let v = hole_var(id);
    holes.insert(v, id);
    let mut p = Pat::default();
    p.add(ENodeOrVar::Var(v));
    p
}

/// `f` (a closed body) with `(arg index)` replaced by `g`.
fn compose(ctx: &Ctx<'_>, f: Id, index: u8, g: &Pat, holes: &mut IndexMap<Var, Id>) -> Option<Pat> {
    if !ctx.egraph[f].data.sort.is_body(2) {
        return None;
    }
    let subst = |i: u8| (i == index).then(|| g.clone());
    Some(scope_term(ctx.egraph, f, &subst, holes))
}

/// `g` (a one-argument body) as a body over argument 1 instead of 0.
fn rename_arg0_to_1(ctx: &Ctx<'_>, g: Id, holes: &mut IndexMap<Var, Id>) -> Pat {
    let a1 = {
        let mut p = Pat::default();
        let i = p.add(ENodeOrVar::ENode(SeqLang::Num(1)));
        let t = p.add(ENodeOrVar::Var(infer_var()));
        p.add(ENodeOrVar::ENode(SeqLang::Arg([i, t])));
        p
    };
    let subst = |i: u8| (i == 0).then(|| a1.clone());
    scope_term(ctx.egraph, g, &subst, holes)
}

/// The functions of the first `list_to_seq` node of a function-list class.
fn list_items(ctx: &Ctx<'_>, fs: Id) -> Option<Vec<Id>> {
    ctx.egraph[fs].nodes.iter().find_map(|n| match n {
        SeqLang::ListToSeq(items) => Some(items.iter().map(|i| ctx.egraph.find(*i)).collect()),
        _ => None,
    })
}

/// Every way to split body `f` into one outer operator over `(arg 0)` and the inner body
/// feeding it.
fn peel(ctx: &Ctx<'_>, f: Id) -> Vec<(Pat, Id, IndexMap<Var, Id>)> {
    let eg = ctx.egraph;
    let mut out = Vec::new();
    for node in &eg[f].nodes {
        let data = node.data_children();
        if data.len() != 1 || matches!(node, SeqLang::Arg(_)) {
            continue;
        }
        let inner = eg.find(data[0]);
        let is_arg = eg[inner].nodes.iter().any(|n| matches!(n, SeqLang::Arg(_)));
        let one_arg = matches!(&eg[inner].data.sort,
            Sort::Value { args, input: false, .. } if args.len() == 1 && args.contains_key(&0));
        if is_arg || !one_arg {
            continue;
        }
        let mut holes = IndexMap::new();
        let mut p = Pat::default();
        let new = egg::Language::map_children(node.clone(), |c| {
            let c = eg.find(c);
            if c == inner {
                let i = p.add(ENodeOrVar::ENode(SeqLang::Num(0)));
                let t = p.add(ENodeOrVar::Var(infer_var()));
                p.add(ENodeOrVar::ENode(SeqLang::Arg([i, t])))
            } else {
                let v = hole_var(c);
                holes.insert(v, c);
                p.add(ENodeOrVar::Var(v))
            }
        });
        p.add(ENodeOrVar::ENode(new));
        out.push((p, inner, holes));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factor_pairs_follow_the_policy() {
        assert_eq!(
            FactorPolicy::all().pairs(12),
            vec![(6, 2), (4, 3), (3, 4), (2, 6)]
        );
        let p = FactorPolicy::inner([2, 4]);
        assert_eq!(p.pairs(12), vec![(6, 2), (3, 4)]);
        assert_eq!(p.pairs(2), vec![]);
        assert_eq!(p.pairs(2_073_600), vec![(1_036_800, 2), (518_400, 4)]);
        let q = p.with_lengths([12]);
        assert_eq!(q.pairs(12), vec![(6, 2), (3, 4)]);
        assert_eq!(q.pairs(6), vec![]);
    }

    #[test]
    fn every_generator_is_documented_once() {
        let mut names: Vec<_> = GENERATORS.iter().map(|g| g.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), GENERATORS.len());
        assert!(GENERATORS
            .iter()
            .all(|g| g.doc.starts_with(&format!("({}", g.name))));
    }
}
