//! The stream graph: phase 2 of the e-graph scheduler.
//!
//! A *stream class* is `(at CTX L v)`: the value of the phase-1 e-class `v`, delivered in a
//! layout whose normal form ([`Layout::normalize`]) is `L`, in the scope `CTX` (the top level,
//! or a function body whose parameters have the exact layouts of the context). Layouts with
//! equal normal forms put every atom on the same lane and clock, so they are one class; the
//! exact layouts a class is requested in are its *views*, and the lowering generators run
//! once per view.
//!
//! A *stream node* is one way to produce a stream class: a space-time operator (or a small
//! fixed composite of them, as in Aetherling's tables) whose children are stream classes
//! with the exact layouts the operator needs, and, for higher-order operators, a body given
//! as a stream class in the body's context. `partition`, `unpartition`, `stuple_to_seq` and
//! `seq_to_stuple` keep the flat order, so they lower to a free *relabel* of their producer's
//! stream class when a layout of it has the same normal form; a `reshape` between two
//! stream classes of one value is an explicit node with its model area.
//!
//! The graph is built lazily from the requested roots (one per candidate output layout):
//! only requested stream classes are expanded. Every node's own area and body multiplicity
//! are measured by building it in a scratch [`Design`] and asking [`crate::st::area`], so
//! the costs are exactly the area model's.

use super::super::slowdown::{
    aetherling_layer_forms, build_layout, distributions, divisors, seq_layers, LayerForm,
};
use crate::egraph::analysis::{SeqEGraph, Sort};
use crate::egraph::lang::SeqLang;
use crate::seq::types::SeqType;
use crate::seq::value::Value;
use crate::st::area::{area, Area};
use crate::st::design::BodyId;
use crate::st::stream::{flatten, unflatten};
use crate::st::{Design, Layout, NodeId as StId, StOp};
use egg::Id;
use indexmap::IndexSet;
use std::collections::{HashMap, VecDeque};

/// One layer of a nested map: in space (`map_s`) or in time (`map_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wrap {
    /// `map_s n`.
    S(u64),
    /// `map_t n i`.
    T(u64, u64),
}

/// The map layers that implement one layer form of length `n`.
pub fn wraps(form: &LayerForm, n: u64) -> Vec<Wrap> {
    match form {
        LayerForm::Space => vec![Wrap::S(n)],
        LayerForm::Time { i } => vec![Wrap::T(n, *i)],
        LayerForm::TimeSpace { no, io, ni } => vec![Wrap::T(*no, *io), Wrap::S(*ni)],
        LayerForm::Nested(levels) => levels.iter().map(|(k, i)| Wrap::T(*k, *i)).collect(),
        LayerForm::Mixed { no, io, ii, ni } => {
            vec![Wrap::T(*no, *io), Wrap::T(1, *ii), Wrap::S(*ni)]
        }
    }
}

fn apply_wraps(ws: &[Wrap], inner: Layout) -> Layout {
    ws.iter().rev().fold(inner, |acc, w| match w {
        Wrap::S(n) => Layout::sseq(*n, acc),
        Wrap::T(n, i) => Layout::tseq(*n, *i, acc),
    })
}

/// `map` over the layers `ws` of `body` (parameters `params`) applied to `inputs`.
fn nested_map(
    d: &mut Design,
    ws: &[Wrap],
    body: BodyId,
    params: &[Layout],
    inputs: &[StId],
) -> Result<StId, String> {
    let op_body = if ws.len() == 1 {
        body
    } else {
        let inner: Vec<Layout> = params
            .iter()
            .map(|p| apply_wraps(&ws[1..], p.clone()))
            .collect();
        d.body_with(inner, |d, args| nested_map(d, &ws[1..], body, params, args))?
    };
    let op = match (ws[0], inputs.len()) {
        (Wrap::S(n), 1) => StOp::MapS { n, body: op_body },
        (Wrap::S(n), _) => StOp::Map2S { n, body: op_body },
        (Wrap::T(n, i), 1) => StOp::MapT {
            n,
            i,
            body: op_body,
        },
        (Wrap::T(n, i), _) => StOp::Map2T {
            n,
            i,
            body: op_body,
        },
    };
    d.add(op, inputs)
}

/// How a stream node is built from its children's nodes (and its body).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum How {
    /// Program input `k`.
    Input(usize),
    /// Parameter `k` of the enclosing body, with its exact layout.
    Arg(u8, Layout),
    /// The same wires as child 0 (a flat-order-preserving operator).
    Relabel,
    /// One space-time operator without a body.
    Op(StOp),
    /// A (nested) map of the body; one child (`map`) or two (`map2`).
    Map {
        /// The layers, outermost first.
        ws: Vec<Wrap>,
        /// The body's parameter layouts.
        params: Vec<Layout>,
    },
    /// A reduce whose input layer has form `u` (Aetherling's composites for split forms).
    Reduce {
        /// Length reduced.
        n: u64,
        /// The input layer's form.
        u: LayerForm,
        /// The element layout.
        le: Layout,
    },
    /// A `down_1d` whose input layer has form `u`.
    Down {
        /// Length.
        n: u64,
        /// Index kept.
        idx: u64,
        /// The input layer's form.
        u: LayerForm,
        /// The element layout.
        le: Layout,
    },
    /// `up_1d` to `tseq no io (sseq ni le)`: `up_t` of the element then `map_t (up_s)`.
    UpTS {
        /// Outer length.
        no: u64,
        /// Outer invalid periods.
        io: u64,
        /// Lanes.
        ni: u64,
        /// The element layout.
        le: Layout,
    },
}

/// Emits the node `how` into `d` over the children `kids` (and body `body`).
pub fn emit(
    d: &mut Design,
    how: &How,
    kids: &[StId],
    body: Option<BodyId>,
) -> Result<StId, String> {
    let need_body = || body.ok_or_else(|| "a higher-order node without its body".to_string());
    match how {
        How::Input(_) | How::Arg(..) => Err("inputs and parameters are not emitted".into()),
        How::Relabel => kids
            .first()
            .copied()
            .ok_or_else(|| "relabel of nothing".into()),
        How::Op(op) => d.add(op.clone(), kids),
        How::Map { ws, params } => nested_map(d, ws, need_body()?, params, kids),
        How::Reduce { n, u, le } => {
            let (n, b) = (*n, need_body()?);
            match u {
                LayerForm::Space => d.add(StOp::ReduceS { n, body: b }, kids),
                LayerForm::Time { i } => d.add(StOp::ReduceT { n, i: *i, body: b }, kids),
                LayerForm::TimeSpace { no, io, ni } => {
                    let (no, io, ni) = (*no, *io, *ni);
                    let inner = d.body_with(vec![Layout::sseq(ni, le.clone())], |d, a| {
                        d.add(StOp::ReduceS { n: ni, body: b }, a)
                    })?;
                    let partial = d.add(
                        StOp::MapT {
                            n: no,
                            i: io,
                            body: inner,
                        },
                        kids,
                    )?;
                    let combine = d
                        .body_with(vec![Layout::sseq(1, le.zipped_pair())], |d, a| {
                            d.add(StOp::MapS { n: 1, body: b }, a)
                        })?;
                    d.add(
                        StOp::ReduceT {
                            n: no,
                            i: io,
                            body: combine,
                        },
                        &[partial],
                    )
                }
                LayerForm::Nested(levels) if levels.len() == 2 => {
                    let ((no, io), (ni, ii)) = (levels[0], levels[1]);
                    let inner = d.body_with(vec![Layout::tseq(ni, ii, le.clone())], |d, a| {
                        d.add(
                            StOp::ReduceT {
                                n: ni,
                                i: ii,
                                body: b,
                            },
                            a,
                        )
                    })?;
                    let partial = d.add(
                        StOp::MapT {
                            n: no,
                            i: io,
                            body: inner,
                        },
                        kids,
                    )?;
                    let k = ni + ii - 1;
                    let combine =
                        d.body_with(vec![Layout::tseq(1, k, le.zipped_pair())], |d, a| {
                            d.add(
                                StOp::MapT {
                                    n: 1,
                                    i: k,
                                    body: b,
                                },
                                a,
                            )
                        })?;
                    d.add(
                        StOp::ReduceT {
                            n: no,
                            i: io,
                            body: combine,
                        },
                        &[partial],
                    )
                }
                other => Err(format!("reduce: no lowering for the input form {other:?}")),
            }
        }
        How::Down { n, idx, u, le } => {
            let (n, idx) = (*n, *idx);
            match u {
                LayerForm::Space => d.add(
                    StOp::DownS {
                        n,
                        idx,
                        elem: le.clone(),
                    },
                    kids,
                ),
                LayerForm::Time { i } => d.add(
                    StOp::DownT {
                        n,
                        i: *i,
                        idx,
                        elem: le.clone(),
                    },
                    kids,
                ),
                LayerForm::TimeSpace { no, io, ni } => {
                    let (no, io, ni) = (*no, *io, *ni);
                    let picked = d.add(
                        StOp::DownT {
                            n: no,
                            i: io,
                            idx: idx / ni,
                            elem: Layout::sseq(ni, le.clone()),
                        },
                        kids,
                    )?;
                    let inner = d.body_with(vec![Layout::sseq(ni, le.clone())], |d, a| {
                        d.add(
                            StOp::DownS {
                                n: ni,
                                idx: idx % ni,
                                elem: le.clone(),
                            },
                            a,
                        )
                    })?;
                    d.add(
                        StOp::MapT {
                            n: 1,
                            i: no + io - 1,
                            body: inner,
                        },
                        &[picked],
                    )
                }
                LayerForm::Nested(levels) if levels.len() == 2 => {
                    let ((no, io), (ni, ii)) = (levels[0], levels[1]);
                    let picked = d.add(
                        StOp::DownT {
                            n: no,
                            i: io,
                            idx: idx / ni,
                            elem: Layout::tseq(ni, ii, le.clone()),
                        },
                        kids,
                    )?;
                    let inner = d.body_with(vec![Layout::tseq(ni, ii, le.clone())], |d, a| {
                        d.add(
                            StOp::DownT {
                                n: ni,
                                i: ii,
                                idx: idx % ni,
                                elem: le.clone(),
                            },
                            a,
                        )
                    })?;
                    d.add(
                        StOp::MapT {
                            n: 1,
                            i: no + io - 1,
                            body: inner,
                        },
                        &[picked],
                    )
                }
                other => Err(format!("down_1d: no lowering for the input form {other:?}")),
            }
        }
        How::UpTS { no, io, ni, le } => {
            let (no, io, ni) = (*no, *io, *ni);
            let rep = d.add(
                StOp::UpT {
                    n: no,
                    i: io,
                    elem: Layout::sseq(1, le.clone()),
                },
                kids,
            )?;
            let inner = d.body_with(vec![Layout::sseq(1, le.clone())], |d, a| {
                d.add(
                    StOp::UpS {
                        n: ni,
                        elem: le.clone(),
                    },
                    a,
                )
            })?;
            d.add(
                StOp::MapT {
                    n: no,
                    i: io,
                    body: inner,
                },
                &[rep],
            )
        }
    }
}

/// The identity of a stream class.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// Index of the context in [`StreamGraph::ctxs`] (0: the top level).
    pub ctx: usize,
    /// The phase-1 e-class.
    pub class: Id,
    /// The normal form of the layout.
    pub norm: Layout,
}

/// A stream node.
#[derive(Clone, Debug)]
pub struct SNode {
    /// How it is built.
    pub how: How,
    /// Children: stream class and the exact layout this node reads it in.
    pub kids: Vec<(usize, Layout)>,
    /// The body: stream class (in the body's context), parameter layouts, exact result layout.
    pub body: Option<(usize, Vec<Layout>, Layout)>,
    /// The node's own area (its body excluded).
    pub own: Area,
    /// How many copies of the body the node instantiates.
    pub mult: u64,
    /// The exact layout it produces (normalizes to its class's key).
    pub out: Layout,
}

/// A stream class.
#[derive(Clone, Debug)]
pub struct SClass {
    /// Its identity.
    pub key: Key,
    /// The value's sequence type.
    pub ty: SeqType,
    /// The exact layouts it was requested in.
    pub views: Vec<Layout>,
    /// Its nodes.
    pub nodes: Vec<SNode>,
}

/// Bounds on the stream graph.
#[derive(Clone, Debug)]
pub struct Bounds {
    /// Per stream class, how many of its value's simplest candidate layouts may feed it
    /// through a `reshape`.
    pub reshape_sources: usize,
    /// At most this many body parameter layout combinations per map node.
    pub param_combos: usize,
    /// At most this many candidate layouts per (type, clocks).
    pub candidates: usize,
    /// Stop expanding classes beyond this many stream nodes.
    pub max_nodes: usize,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            reshape_sources: 2,
            param_combos: 4,
            candidates: 12,
            max_nodes: 60_000,
        }
    }
}

/// The stream graph over a saturated phase-1 e-graph.
pub struct StreamGraph<'a> {
    eg: &'a SeqEGraph,
    /// Contexts: `None` is the top level, `Some(params)` a body with those parameter layouts.
    pub ctxs: IndexSet<Option<Vec<Layout>>>,
    /// The stream classes.
    pub classes: Vec<SClass>,
    index: HashMap<Key, usize>,
    queue: VecDeque<(usize, Layout)>,
    cands: HashMap<(SeqType, u64), Vec<Layout>>,
    costs: HashMap<String, Option<(Area, u64, Layout)>>,
    bounds: Bounds,
    nodes: usize,
    /// True if [`Bounds::max_nodes`] stopped the expansion.
    pub truncated: bool,
}

fn zero_value(t: &SeqType) -> Value {
    match t {
        SeqType::Scalar(_) => Value::Scalar(0),
        SeqType::ATuple(a, b) => Value::pair(zero_value(a), zero_value(b)),
        SeqType::STuple(n, e) | SeqType::Seq(n, e) => {
            Value::List((0..*n).map(|_| zero_value(e)).collect())
        }
    }
}

/// A value of type `t` restructured to the nesting of `layout` (same atoms in flat order).
fn relay(v: &Value, t: &SeqType, layout: &Layout) -> Value {
    unflatten(&flatten(v, t), &layout.to_seq())
}

/// The ways the top `seq n e` layer of a layout `l` of type `(seq n e)` is laid out: the
/// layer form and the element layout.
pub fn split_top(l: &Layout, n: u64, e: &SeqType) -> Vec<(LayerForm, Layout)> {
    let mut out = Vec::new();
    let is_e = |x: &Layout| x.to_seq() == *e;
    match l {
        Layout::SSeq(m, le) if *m == n && is_e(le) => out.push((LayerForm::Space, (**le).clone())),
        Layout::TSeq(m, i, inner) => {
            if *m == n && is_e(inner) {
                out.push((LayerForm::Time { i: *i }, (**inner).clone()));
            }
            match &**inner {
                Layout::SSeq(ni, le) if m * ni == n && is_e(le) => out.push((
                    LayerForm::TimeSpace {
                        no: *m,
                        io: *i,
                        ni: *ni,
                    },
                    (**le).clone(),
                )),
                Layout::TSeq(m2, i2, le) => {
                    if m * m2 == n && is_e(le) {
                        out.push((
                            LayerForm::Nested(vec![(*m, *i), (*m2, *i2)]),
                            (**le).clone(),
                        ));
                    }
                    match &**le {
                        Layout::TSeq(m3, i3, le3) if m * m2 * m3 == n && is_e(le3) => out.push((
                            LayerForm::Nested(vec![(*m, *i), (*m2, *i2), (*m3, *i3)]),
                            (**le3).clone(),
                        )),
                        Layout::SSeq(ni, le3) if *m2 == 1 && m * ni == n && is_e(le3) => {
                            out.push((
                                LayerForm::Mixed {
                                    no: *m,
                                    io: *i,
                                    ii: *i2,
                                    ni: *ni,
                                },
                                (**le3).clone(),
                            ))
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
    out
}

/// One layer of a normalized layout.
#[derive(Clone, Copy, Debug)]
enum Dim {
    S(u64),
    T(u64, u64),
}

/// A layout of type `ty` whose normal form is `norm` (the normalized layers cut at the
/// type's layer boundaries, splitting a layer where a boundary falls inside it), if any.
/// Each `seq` layer of the type becomes the (possibly split) layers it covers.
pub fn fit(norm: &Layout, ty: &SeqType) -> Option<Layout> {
    let mut dims = Vec::new();
    let mut cur = norm;
    loop {
        match cur {
            Layout::SSeq(k, t) | Layout::STuple(k, t) => {
                dims.push(Dim::S(*k));
                cur = t;
            }
            Layout::TSeq(k, i, t) => {
                dims.push(Dim::T(*k, *i));
                cur = t;
            }
            atom => break fit_rec(&mut dims.into_iter().rev().collect(), ty, atom),
        }
    }
}

/// `dims` is reversed (next layer last).
fn fit_rec(dims: &mut Vec<Dim>, ty: &SeqType, atom: &Layout) -> Option<Layout> {
    let (n, e, tuple) = match ty {
        SeqType::Seq(n, e) => (*n, &**e, false),
        SeqType::STuple(n, e) => (*n, &**e, true),
        _ => {
            return (dims.is_empty() && atom.to_seq() == *ty).then(|| atom.clone());
        }
    };
    let mut pieces = Vec::new();
    let mut r = n;
    while r > 1 {
        let d = dims.pop()?;
        match d {
            Dim::S(k) if r % k == 0 => {
                pieces.push(Dim::S(k));
                r /= k;
            }
            Dim::S(k) if k % r == 0 => {
                pieces.push(Dim::S(r));
                dims.push(Dim::S(k / r));
                r = 1;
            }
            Dim::T(k, i) if r % k == 0 => {
                pieces.push(Dim::T(k, i));
                r /= k;
            }
            Dim::T(k, i) if k % r == 0 && i % (k / r) == 0 => {
                pieces.push(Dim::T(r, i / (k / r)));
                dims.push(Dim::T(k / r, 0));
                r = 1;
            }
            _ => return None,
        }
    }
    let inner = fit_rec(dims, e, atom)?;
    if tuple {
        if pieces.iter().any(|p| matches!(p, Dim::T(..))) {
            return None;
        }
        return Some(Layout::stuple(n, inner));
    }
    if pieces.is_empty() {
        return Some(Layout::sseq(1, inner));
    }
    Some(pieces.iter().rev().fold(inner, |acc, p| match p {
        Dim::S(k) => Layout::sseq(*k, acc),
        Dim::T(k, i) => Layout::tseq(*k, *i, acc),
    }))
}

/// The layouts of [`super::super::slowdown::tessera_layouts`] (Aetherling's per-layer forms
/// plus the mixed forms), simplest first, at most `cap` of them. Deduplicates by hashing,
/// so large slowdowns with many layer splits stay cheap.
pub fn candidates(t: &SeqType, s: u64, cap: usize) -> Vec<Layout> {
    fn depth(f: &LayerForm) -> usize {
        match f {
            LayerForm::Space | LayerForm::Time { .. } => 1,
            LayerForm::TimeSpace { .. } => 2,
            LayerForm::Nested(levels) => levels.len(),
            LayerForm::Mixed { .. } => 3,
        }
    }
    fn layer_forms(n: u64, s_l: u64) -> Vec<LayerForm> {
        let mut forms = aetherling_layer_forms(n, s_l);
        for ni in divisors(n) {
            let no = n / ni;
            if ni > 1 && no < s_l && s_l.is_multiple_of(no) {
                forms.push(LayerForm::Mixed {
                    no,
                    io: 0,
                    ii: s_l / no - 1,
                    ni,
                });
            }
        }
        forms
    }
    let layers = seq_layers(t);
    let mut found: IndexSet<Layout> = IndexSet::new();
    let mut depths: Vec<usize> = Vec::new();
    for split in distributions(s, layers.len()) {
        let options: Vec<Vec<LayerForm>> = layers
            .iter()
            .zip(&split)
            .map(|(n, s_l)| layer_forms(*n, *s_l))
            .collect();
        let mut combos: Vec<Vec<LayerForm>> = vec![Vec::new()];
        for opts in &options {
            combos = combos
                .iter()
                .flat_map(|p| {
                    opts.iter().map(move |o| {
                        let mut v = p.clone();
                        v.push(o.clone());
                        v
                    })
                })
                .collect();
        }
        for combo in combos {
            let l = build_layout(t, &combo);
            if l.clocks() == s && found.insert(l) {
                depths.push(combo.iter().map(depth).sum());
            }
        }
    }
    let mut v: Vec<(usize, Layout)> = depths.into_iter().zip(found).collect();
    v.sort_by_key(|(d, _)| *d); // stable: enumeration order within a depth
    v.into_iter().take(cap).map(|(_, l)| l).collect()
}

/// The input layer form of a `reduce`/`down_1d` over `n` elements whose length-1 output
/// layer has form `r` (Aetherling's rule, reference §4.5.5).
fn shrink_input(r: &LayerForm, n: u64) -> Option<LayerForm> {
    let largest = |limit: u64| {
        divisors(n)
            .into_iter()
            .filter(|d| *d <= limit)
            .max()
            .unwrap_or(1)
    };
    match r {
        LayerForm::Space => Some(LayerForm::Space),
        LayerForm::Time { i: d } if d + 1 >= n => Some(LayerForm::Time { i: d + 1 - n }),
        LayerForm::Time { i: d }
        | LayerForm::TimeSpace {
            no: 1,
            io: d,
            ni: 1,
        } => {
            let no = if d + 1 >= n { n } else { largest(d + 1) };
            Some(LayerForm::TimeSpace {
                no,
                io: d + 1 - no,
                ni: n / no,
            })
        }
        LayerForm::Nested(levels) if levels.len() == 2 && levels[0].0 == 1 && levels[1].0 == 1 => {
            let (d0, d1) = (levels[0].1, levels[1].1);
            let no = divisors(n)
                .into_iter()
                .filter(|no| *no <= d0 + 1 && n / no <= d1 + 1)
                .max()?;
            let ni = n / no;
            Some(LayerForm::Nested(vec![
                (no, d0 + 1 - no),
                (ni, d1 + 1 - ni),
            ]))
        }
        _ => None,
    }
}

impl<'a> StreamGraph<'a> {
    /// An empty stream graph over the phase-1 e-graph `eg`.
    pub fn new(eg: &'a SeqEGraph, bounds: Bounds) -> StreamGraph<'a> {
        let mut ctxs = IndexSet::new();
        ctxs.insert(None);
        StreamGraph {
            eg,
            ctxs,
            classes: Vec::new(),
            index: HashMap::new(),
            queue: VecDeque::new(),
            cands: HashMap::new(),
            costs: HashMap::new(),
            bounds,
            nodes: 0,
            truncated: false,
        }
    }

    /// Total stream nodes.
    pub fn node_count(&self) -> usize {
        self.nodes
    }

    /// The candidate layouts of type `t` spanning `clocks` clocks (simplest first).
    pub fn cands(&mut self, t: &SeqType, clocks: u64) -> Vec<Layout> {
        let cap = self.bounds.candidates;
        self.cands
            .entry((t.clone(), clocks))
            .or_insert_with(|| candidates(t, clocks, cap))
            .clone()
    }

    fn value_type(&self, class: Id) -> Option<SeqType> {
        match &self.eg[class].data.sort {
            Sort::Value { ty, .. } => Some(ty.clone()),
            _ => None,
        }
    }

    /// The stream class of `class` in `layout` within context `ctx`, created (and its view
    /// queued for lowering) if new.
    pub fn request(&mut self, ctx: usize, class: Id, layout: &Layout) -> Option<usize> {
        let class = self.eg.find(class);
        let ty = self.value_type(class)?;
        if !crate::st::verify::implements(layout, &ty) || layout.validate().is_err() {
            return None;
        }
        let key = Key {
            ctx,
            class,
            norm: layout.normalize(),
        };
        let idx = match self.index.get(&key) {
            Some(i) => *i,
            None => {
                let i = self.classes.len();
                self.classes.push(SClass {
                    key: key.clone(),
                    ty,
                    views: Vec::new(),
                    nodes: Vec::new(),
                });
                self.index.insert(key, i);
                i
            }
        };
        if !self.classes[idx].views.contains(layout) {
            self.classes[idx].views.push(layout.clone());
            self.queue.push_back((idx, layout.clone()));
        }
        Some(idx)
    }

    /// The class of a key, if it exists.
    pub fn lookup(&self, ctx: usize, class: Id, layout: &Layout) -> Option<usize> {
        let key = Key {
            ctx,
            class: self.eg.find(class),
            norm: layout.normalize(),
        };
        self.index.get(&key).copied()
    }

    /// Lowers every queued view, until none is left or the node bound is hit.
    pub fn expand(&mut self) {
        while let Some((idx, layout)) = self.queue.pop_front() {
            if self.nodes >= self.bounds.max_nodes {
                self.truncated = true;
                self.queue.clear();
                return;
            }
            self.lower_view(idx, &layout);
        }
    }

    /// Measures a node in a scratch design: own area, body multiplicity, output layout.
    fn measure(
        &mut self,
        how: &How,
        kids: &[Layout],
        body: Option<(&[Layout], &Layout)>,
    ) -> Option<(Area, u64, Layout)> {
        let key = format!("{how:?}|{kids:?}|{body:?}");
        if let Some(c) = self.costs.get(&key) {
            return c.clone();
        }
        let got = (|| -> Result<(Area, u64, Layout), String> {
            let mut d = Design::new("scratch");
            let mut ids = Vec::new();
            for (k, l) in kids.iter().enumerate() {
                ids.push(d.add_input(format!("k{k}"), l.clone())?);
            }
            let b = match body {
                Some((params, root)) => Some(d.body_with(params.to_vec(), |d, _| {
                    d.add(
                        StOp::Const {
                            value: zero_value(&root.to_seq()),
                            layout: root.clone(),
                            delay: 0,
                        },
                        &[],
                    )
                })?),
                None => None,
            };
            let id = emit(&mut d, how, &ids, b)?;
            let out = d.layout(id).clone();
            if matches!(how, How::Relabel) {
                return Ok((Area::default(), 0, out));
            }
            d.set_output(id)?;
            let rep = area(&d);
            let (mult, own) = if body.is_some() {
                let (m, placeholder) = rep.by_op.get("const").copied().unwrap_or_default();
                let t = rep.total;
                let own = Area {
                    logic: t.logic.saturating_sub(placeholder.logic),
                    ff_bits: t.ff_bits.saturating_sub(placeholder.ff_bits),
                    ram_bits: t.ram_bits.saturating_sub(placeholder.ram_bits),
                    dsp: t.dsp.saturating_sub(placeholder.dsp),
                };
                (m, own)
            } else {
                (0, rep.total)
            };
            Ok((own, mult, out))
        })()
        .ok();
        self.costs.insert(key, got.clone());
        got
    }

    /// Adds a node to class `idx` if it builds and type-checks.
    fn add_node(
        &mut self,
        idx: usize,
        how: How,
        kids: Vec<(usize, Layout)>,
        body: Option<(usize, Vec<Layout>, Layout)>,
    ) {
        let kid_layouts: Vec<Layout> = kids.iter().map(|(_, l)| l.clone()).collect();
        let measured = match &how {
            How::Input(_) => Some((Area::default(), 0, self.classes[idx].views[0].clone())),
            How::Arg(_, l) => Some((Area::default(), 0, l.clone())),
            _ => self.measure(
                &how,
                &kid_layouts,
                body.as_ref().map(|(_, p, r)| (p.as_slice(), r)),
            ),
        };
        let Some((own, mult, out)) = measured else {
            return;
        };
        if out.normalize() != self.classes[idx].key.norm {
            return;
        }
        let node = SNode {
            how,
            kids,
            body,
            own,
            mult,
            out,
        };
        let nodes = &mut self.classes[idx].nodes;
        if nodes
            .iter()
            .any(|n| n.how == node.how && n.kids == node.kids && n.body == node.body)
        {
            return;
        }
        nodes.push(node);
        self.nodes += 1;
    }

    /// Adds a reshape from `class` in layout `from` into stream class `idx` (exact `to`).
    fn add_reshape(&mut self, idx: usize, ctx: usize, class: Id, from: &Layout, to: &Layout) {
        if from.normalize() == to.normalize() {
            return;
        }
        if let Some(k) = self.request(ctx, class, from) {
            let op = StOp::Reshape {
                from: from.clone(),
                to: to.clone(),
            };
            self.add_node(idx, How::Op(op), vec![(k, from.clone())], None);
        }
    }

    /// Adds, between every two top-level stream classes of one program input, a reshape
    /// node (so extraction can fix each input to one layout and reshape it elsewhere).
    pub fn connect_inputs(&mut self) {
        let mut by_class: HashMap<Id, Vec<usize>> = HashMap::new();
        for (i, c) in self.classes.iter().enumerate() {
            if c.key.ctx == 0 && c.nodes.iter().any(|n| matches!(n.how, How::Input(_))) {
                by_class.entry(c.key.class).or_default().push(i);
            }
        }
        let mut groups: Vec<(Id, Vec<usize>)> = by_class.into_iter().collect();
        groups.sort();
        for (class, members) in groups {
            for &a in &members {
                for &b in &members {
                    if a != b {
                        let from = self.classes[b].views[0].clone();
                        let to = self.classes[a].views[0].clone();
                        if from.clocks() == to.clocks() {
                            self.add_reshape(a, 0, class, &from, &to);
                        }
                    }
                }
            }
        }
    }

    fn lower_view(&mut self, idx: usize, l: &Layout) {
        let key = self.classes[idx].key.clone();
        let ty = self.classes[idx].ty.clone();
        let (ctx, class) = (key.ctx, key.class);
        let clocks = l.clocks();
        let enodes = self.eg[class].nodes.clone();
        for enode in &enodes {
            self.lower_enode(idx, ctx, &ty, l, enode);
        }
        // Reshapes from the value's simplest candidate layouts (first view only: the other
        // views of the class are the same wires).
        if self.classes[idx].views.len() == 1 {
            let sources = self.cands(&ty, clocks);
            for from in sources.iter().take(self.bounds.reshape_sources) {
                self.add_reshape(idx, ctx, class, from, l);
            }
        }
    }

    fn num(&self, id: Id) -> Option<u64> {
        match self.eg[id].data.sort {
            Sort::Num(n) => Some(n),
            _ => None,
        }
    }

    fn lower_enode(&mut self, idx: usize, ctx: usize, ty: &SeqType, l: &Layout, enode: &SeqLang) {
        let elem_of = |t: &SeqType| t.as_seq().map(|(_, e)| e.clone());
        match enode {
            SeqLang::Input(r) if ctx == 0 => {
                self.add_node(idx, How::Input(r.index as usize), vec![], None);
            }
            SeqLang::Arg([i, _]) => {
                let Some(i) = self.num(*i) else { return };
                let Some(Some(params)) = self.ctxs.get_index(ctx).cloned() else {
                    return;
                };
                let Some(p) = params.get(i as usize).cloned() else {
                    return;
                };
                if p.normalize() == l.normalize() {
                    self.add_node(idx, How::Arg(i as u8, p), vec![], None);
                } else if p.clocks() == l.clocks() {
                    let class = self.classes[idx].key.class;
                    self.add_reshape(idx, ctx, class, &p, l);
                }
            }
            SeqLang::Const([lit, t]) => {
                let (Sort::Lit(v), Sort::Type(t)) =
                    (&self.eg[*lit].data.sort, &self.eg[*t].data.sort)
                else {
                    return;
                };
                let value = relay(v, t, l);
                let op = StOp::Const {
                    value,
                    layout: l.clone(),
                    delay: 0,
                };
                self.add_node(idx, How::Op(op), vec![], None);
            }
            SeqLang::Counter([_, incr, _]) => {
                let Some(incr) = self.num(*incr) else { return };
                let op = StOp::Counter {
                    layout: l.clone(),
                    incr,
                    delay: 0,
                };
                self.add_node(idx, How::Op(op), vec![], None);
            }
            SeqLang::Atom(a, [x]) => {
                let Some(xt) = self.value_type(*x) else {
                    return;
                };
                let Some(lx) = Layout::from_atom_type(&xt) else {
                    return;
                };
                if let Some(k) = self.request(ctx, *x, &lx) {
                    self.add_node(idx, How::Op(StOp::Atom(a.0)), vec![(k, lx)], None);
                }
            }
            SeqLang::ATuple([a, b]) => {
                let (Some(ta), Some(tb)) = (self.value_type(*a), self.value_type(*b)) else {
                    return;
                };
                let (Some(la), Some(lb)) =
                    (Layout::from_atom_type(&ta), Layout::from_atom_type(&tb))
                else {
                    return;
                };
                if let (Some(ka), Some(kb)) =
                    (self.request(ctx, *a, &la), self.request(ctx, *b, &lb))
                {
                    self.add_node(idx, How::Op(StOp::ATuple), vec![(ka, la), (kb, lb)], None);
                }
            }
            SeqLang::STuple([a, b]) => {
                let Layout::STuple(2, x) = l else { return };
                let x = (**x).clone();
                if let (Some(ka), Some(kb)) = (self.request(ctx, *a, &x), self.request(ctx, *b, &x))
                {
                    self.add_node(
                        idx,
                        How::Op(StOp::STuple),
                        vec![(ka, x.clone()), (kb, x)],
                        None,
                    );
                }
            }
            SeqLang::STupleAppend([a, b]) => {
                let Layout::STuple(k, x) = l else { return };
                if *k < 2 {
                    return;
                }
                let x = (**x).clone();
                let la = Layout::stuple(k - 1, x.clone());
                if let (Some(ka), Some(kb)) =
                    (self.request(ctx, *a, &la), self.request(ctx, *b, &x))
                {
                    self.add_node(
                        idx,
                        How::Op(StOp::STupleAppend),
                        vec![(ka, la), (kb, x)],
                        None,
                    );
                }
            }
            SeqLang::Map([n, f, x]) => self.lower_map(idx, ctx, ty, l, *n, *f, &[*x]),
            SeqLang::Map2([n, f, x, y]) => self.lower_map(idx, ctx, ty, l, *n, *f, &[*x, *y]),
            SeqLang::Reduce([n, f, x]) => {
                let (Some(n), Some(e)) = (self.num(*n), elem_of(ty)) else {
                    return;
                };
                for (r, le) in split_top(l, 1, &e) {
                    let Some(u) = shrink_input(&r, n) else {
                        continue;
                    };
                    let lx = u.apply(n, le.clone());
                    let params = vec![le.zipped_pair()];
                    let bctx = self.ctxs.insert_full(Some(params.clone())).0;
                    let (Some(kx), Some(kb)) =
                        (self.request(ctx, *x, &lx), self.request(bctx, *f, &le))
                    else {
                        continue;
                    };
                    let how = How::Reduce {
                        n,
                        u,
                        le: le.clone(),
                    };
                    self.add_node(idx, how, vec![(kx, lx)], Some((kb, params, le)));
                }
            }
            SeqLang::Down([n, i, x]) => {
                let (Some(n), Some(i), Some(e)) = (self.num(*n), self.num(*i), elem_of(ty)) else {
                    return;
                };
                for (r, le) in split_top(l, 1, &e) {
                    let Some(u) = shrink_input(&r, n) else {
                        continue;
                    };
                    let lx = u.apply(n, le.clone());
                    if let Some(kx) = self.request(ctx, *x, &lx) {
                        let how = How::Down { n, idx: i, u, le };
                        self.add_node(idx, how, vec![(kx, lx)], None);
                    }
                }
            }
            SeqLang::Up([n, x]) => {
                let (Some(n), Some(e)) = (self.num(*n), elem_of(ty)) else {
                    return;
                };
                for (r, le) in split_top(l, n, &e) {
                    let (how, lx) = match r {
                        LayerForm::Space => (
                            How::Op(StOp::UpS {
                                n,
                                elem: le.clone(),
                            }),
                            Layout::sseq(1, le),
                        ),
                        LayerForm::Time { i } => (
                            How::Op(StOp::UpT {
                                n,
                                i,
                                elem: le.clone(),
                            }),
                            Layout::tseq(1, n - 1 + i, le),
                        ),
                        LayerForm::TimeSpace { no, io, ni } => (
                            How::UpTS {
                                no,
                                io,
                                ni,
                                le: le.clone(),
                            },
                            Layout::tseq(1, no + io - 1, Layout::sseq(1, le)),
                        ),
                        _ => continue,
                    };
                    if let Some(kx) = self.request(ctx, *x, &lx) {
                        self.add_node(idx, how, vec![(kx, lx)], None);
                    }
                }
            }
            SeqLang::Shift([n, amount, init, x]) => {
                let (Some(n), Some(amount), Some(e)) =
                    (self.num(*n), self.num(*amount), elem_of(ty))
                else {
                    return;
                };
                let init = match &self.eg[*init].data.sort {
                    Sort::Lit(Value::Undef) => None,
                    Sort::Lit(v) => Some(v.clone()),
                    _ => return,
                };
                for (r, le) in split_top(l, n, &e) {
                    let init = init.clone();
                    let op = match r {
                        LayerForm::Space => StOp::ShiftS {
                            n,
                            amount,
                            elem: le,
                            init,
                        },
                        LayerForm::Time { i } => StOp::ShiftT {
                            n,
                            i,
                            amount,
                            elem: le,
                            init,
                        },
                        LayerForm::TimeSpace { no, io, ni: 1 } => StOp::ShiftT {
                            n: no,
                            i: io,
                            amount,
                            elem: Layout::sseq(1, le),
                            init: init.map(|v| Value::List(vec![v])),
                        },
                        LayerForm::TimeSpace { no, io, ni } => StOp::ShiftTS {
                            no,
                            io,
                            ni,
                            amount,
                            elem: le,
                            init,
                        },
                        LayerForm::Nested(levels) => StOp::ShiftTN {
                            no: levels[0].0,
                            io: levels[0].1,
                            nis: levels[1..].iter().map(|v| v.0).collect(),
                            iis: levels[1..].iter().map(|v| v.1).collect(),
                            amount,
                            elem: le,
                            init,
                        },
                        LayerForm::Mixed { .. } => continue,
                    };
                    if let Some(kx) = self.request(ctx, *x, l) {
                        self.add_node(idx, How::Op(op), vec![(kx, l.clone())], None);
                    }
                }
            }
            SeqLang::Partition([_, _, x])
            | SeqLang::Unpartition([_, _, x])
            | SeqLang::STupleToSeq([_, x])
            | SeqLang::SeqToSTuple([_, x]) => {
                let Some(xt) = self.value_type(*x) else {
                    return;
                };
                let cands = self.cands(&xt, l.clocks());
                let norm = l.normalize();
                let mut same: Vec<Layout> = cands
                    .iter()
                    .filter(|c| c.normalize() == norm)
                    .cloned()
                    .collect();
                if let Some(f) = fit(&norm, &xt) {
                    if f.normalize() == norm && !same.contains(&f) {
                        same.push(f);
                    }
                }
                // The producer's class may already hold a view with these wires.
                if let Some(k) = self.lookup(ctx, *x, l) {
                    for v in &self.classes[k].views {
                        if !same.contains(v) && crate::st::verify::implements(v, &xt) {
                            same.push(v.clone());
                        }
                    }
                }
                if same.is_empty() {
                    for from in cands.iter().take(self.bounds.reshape_sources) {
                        self.add_reshape(idx, ctx, *x, from, l);
                    }
                }
                for lx in same {
                    if let Some(kx) = self.request(ctx, *x, &lx) {
                        self.add_node(idx, How::Relabel, vec![(kx, lx)], None);
                    }
                }
            }
            // No lowering (yet): transpose, hmap, function lists, type terms, leaves.
            _ => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn lower_map(
        &mut self,
        idx: usize,
        ctx: usize,
        ty: &SeqType,
        l: &Layout,
        n: Id,
        f: Id,
        xs: &[Id],
    ) {
        let Some(n) = self.num(n) else { return };
        let Some((_, e)) = ty.as_seq() else { return };
        let e = e.clone();
        let mut elem_types = Vec::new();
        for x in xs {
            match self.value_type(*x).as_ref().and_then(|t| t.as_seq()) {
                Some((_, et)) => elem_types.push(et.clone()),
                None => return,
            }
        }
        for (form, le) in split_top(l, n, &e) {
            let ws = wraps(&form, n);
            let c = le.clocks();
            let options: Vec<Vec<Layout>> = elem_types.iter().map(|t| self.cands(t, c)).collect();
            let mut combos: Vec<Vec<Layout>> = vec![Vec::new()];
            for opts in &options {
                combos = combos
                    .iter()
                    .flat_map(|p| {
                        opts.iter().map(move |o| {
                            let mut v = p.clone();
                            v.push(o.clone());
                            v
                        })
                    })
                    .collect();
            }
            combos.truncate(self.bounds.param_combos);
            for params in combos {
                let bctx = self.ctxs.insert_full(Some(params.clone())).0;
                let Some(kb) = self.request(bctx, f, &le) else {
                    continue;
                };
                let mut kids = Vec::new();
                for (x, p) in xs.iter().zip(&params) {
                    let lx = form.apply(n, p.clone());
                    match self.request(ctx, *x, &lx) {
                        Some(k) => kids.push((k, lx)),
                        None => break,
                    }
                }
                if kids.len() != xs.len() {
                    continue;
                }
                let how = How::Map {
                    ws: ws.clone(),
                    params: params.clone(),
                };
                self.add_node(idx, how, kids, Some((kb, params, le.clone())));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::slowdown::tessera_layouts;
    use crate::seq::types::ScalarType;

    fn u8t() -> SeqType {
        SeqType::Scalar(ScalarType::ALL[0])
    }

    #[test]
    fn candidates_match_tessera_layouts() {
        let t = SeqType::seq(16, SeqType::seq(3, u8t()));
        for s in [1, 2, 4, 8, 16, 48] {
            let all = tessera_layouts(&t, s);
            assert_eq!(candidates(&t, s, usize::MAX), all, "slowdown {s}");
            assert_eq!(
                candidates(&t, s, 3),
                all.into_iter().take(3).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn fit_cuts_normal_forms_at_type_layers() {
        let a = Layout::Scalar(ScalarType::ALL[0]);
        // (tseq 4 0 (sseq 2 a)) seen as (seq 2 (seq 4 a)): each row spans two clocks.
        let norm = Layout::tseq(4, 0, Layout::sseq(2, a.clone()));
        let t = SeqType::seq(2, SeqType::seq(4, u8t()));
        let l = fit(&norm, &t).expect("a fit");
        assert_eq!(l.normalize(), norm);
        assert!(crate::st::verify::implements(&l, &t));
        // A length-1 layer becomes (sseq 1 _).
        let t1 = SeqType::seq(1, SeqType::seq(8, u8t()));
        let l1 = fit(&norm, &t1).expect("a fit");
        assert_eq!(l1.normalize(), norm);
        // An invalid-period split that does not divide has no fit.
        let bad = Layout::tseq(4, 1, a);
        assert!(fit(&bad, &SeqType::seq(2, SeqType::seq(2, u8t()))).is_none());
    }

    #[test]
    fn split_top_finds_every_form() {
        let a = Layout::Scalar(ScalarType::ALL[0]);
        let e = u8t();
        let ts = Layout::tseq(2, 1, Layout::sseq(4, a.clone()));
        assert_eq!(
            split_top(&ts, 8, &e),
            vec![(
                LayerForm::TimeSpace {
                    no: 2,
                    io: 1,
                    ni: 4
                },
                a.clone()
            )]
        );
        let t = Layout::tseq(8, 0, a.clone());
        assert_eq!(
            split_top(&t, 8, &e),
            vec![(LayerForm::Time { i: 0 }, a.clone())]
        );
        assert!(split_top(&t, 4, &e).is_empty());
    }
}
