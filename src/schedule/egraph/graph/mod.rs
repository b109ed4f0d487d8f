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
//! `seq_to_stuple` keep the flat order, so their rules (`rules/lower/relabel.rules`) lower
//! them to a free *relabel* of their producer's stream class when a layout of it has the
//! same normal form; a `reshape` between two
//! stream classes of one value is an explicit node with its model area.
//!
//! The graph is built lazily from the requested roots (one per candidate output layout):
//! only requested stream classes are expanded. Every node's own area and body multiplicity
//! are measured by building it in a scratch [`Design`] and asking [`crate::st::area`], so
//! the costs are exactly the area model's.

mod how;
mod layout;
mod leaf;
mod nodes;
mod reshape;
mod rule;
#[cfg(test)]
mod tests;

pub use how::{emit, How};
pub use layout::{candidates, fit};

use crate::egraph::analysis::{SeqEGraph, Sort};
use crate::egraph::lang::SeqLang;
use crate::seq::types::SeqType;
use crate::st::area::Area;
use crate::st::Layout;
use egg::Id;
use indexmap::IndexSet;
use std::collections::VecDeque;
use std::rc::Rc;

pub use crate::util::fxhash::{Fx, FxBuild};
type HashMap<K, V> = std::collections::HashMap<K, V, FxBuild>;
type HashSet<K> = std::collections::HashSet<K, FxBuild>;

/// A layout interned in its stream graph ([`StreamGraph::intern`]): equal layouts share one
/// allocation, so nodes clone, compare and drop them by pointer.
pub type Lay = Rc<Layout>;

/// The identity of a stream class (the graph finds a class by its normal form's interned
/// address: [`StreamGraph::request`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    /// Index of the context in [`StreamGraph::ctxs`] (0: the top level).
    pub ctx: usize,
    /// The phase-1 e-class.
    pub class: Id,
    /// The normal form of the layout (interned: [`StreamGraph::intern`]).
    pub norm: Lay,
}

/// A stream node.
#[derive(Clone, Debug)]
pub struct SNode {
    /// How it is built (interned).
    pub how: Rc<How>,
    /// Children: stream class and the exact layout this node reads it in.
    pub kids: Vec<(usize, Lay)>,
    /// The body: stream class (in the body's context), parameter layouts, exact result layout.
    pub body: Option<(usize, Rc<Vec<Layout>>, Lay)>,
    /// The node's own area (its body excluded).
    pub own: Area,
    /// How many copies of the body the node instantiates.
    pub mult: u64,
    /// The exact layout it produces (normalizes to its class's key).
    pub out: Lay,
    /// The phase-1 e-node it lowers (`None` for reshapes and input declarations): how
    /// `--explain` recovers the sequence term a design implements.
    pub src: Option<SeqLang>,
}

/// A stream class.
#[derive(Clone, Debug)]
pub struct SClass {
    /// Its identity.
    pub key: Key,
    /// The value's sequence type.
    pub ty: SeqType,
    /// The exact layouts it was requested in.
    pub views: Vec<Lay>,
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
    /// Candidate layouts are at most this many times wider (lanes) than the value needs
    /// (its atoms over its clocks), unless the value is small ([`Bounds::small_value`]).
    pub lane_slack: u64,
    /// A value of at most this many atoms may take any layout, however wide; a larger one
    /// also gets its streaming layout as its first candidate and maps over split elements
    /// (`StreamGraph::split_element_type`).
    pub small_value: u64,
    /// Reshapes whose layouts share too little periodic structure to analyse them in fewer
    /// than this many atoms ([`crate::st::perm::Perm::reshape_analysis_atoms`]) are not
    /// offered, nor other data movement whose sources take more to count
    /// ([`crate::st::perm::Perm::sources_analysis_atoms`]: a buffered transpose of a frame).
    pub reshape_atoms: u64,
    /// Stop expanding classes beyond this many stream nodes.
    pub max_nodes: usize,
    /// Lower the views in a spread streaming layout ([`crate::schedule::spread`]) right
    /// after the streaming ones, before the rest (else in request order with the rest).
    pub spread_first: bool,
}

impl Bounds {
    /// The most lanes a candidate layout of a value of type `t` over `clocks` clocks may
    /// have: a layout much wider than the value needs pays for every lane and buys only
    /// idle clocks, and on a 1920x1080 frame it is a reshape buffering most of the frame.
    pub fn max_lanes(&self, t: &SeqType, clocks: u64) -> u64 {
        if t.atoms() <= self.small_value {
            return u64::MAX;
        }
        let needed = t.atoms().div_ceil(clocks.max(1));
        self.lane_slack.saturating_mul(needed)
    }
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            reshape_sources: 2,
            param_combos: 4,
            candidates: 12,
            lane_slack: 4,
            small_value: 4096,
            reshape_atoms: 1 << 16,
            max_nodes: 60_000,
            spread_first: false,
        }
    }
}

/// What a node's measured cost depends on: its recipe, its children's exact layouts and
/// its body's parameter and result layouts, each interned and so named by its address.
/// A measurement's key: recipe, children's layouts, body (parameters, result) and the
/// constant operand of an atom operator.
type CostKey = (
    usize,
    Vec<usize>,
    Option<(usize, usize)>,
    Option<(usize, u64)>,
);

/// What a stream graph computes that depends neither on its roots nor on its node bound:
/// candidate layouts, node measurements, interned layouts, recipes and parameter lists,
/// normal forms and reshape offers. A graph built again for the same e-graph and bounds
/// (the retry of [`crate::schedule::egraph`] with a larger node bound) starts from them.
#[derive(Default)]
pub struct Caches {
    /// Candidate layouts by type and clock count (nested, so a lookup clones no type).
    cands: HashMap<SeqType, HashMap<u64, Rc<Vec<Layout>>>>,
    /// [`crate::schedule::slowdown::streaming_layout`] by type and clock count: asked for
    /// every view requested and every reshape and body offered.
    streaming: HashMap<SeqType, HashMap<u64, Option<Layout>>>,
    costs: HashMap<CostKey, Option<(Area, u64, Lay)>>,
    /// Interned layouts, recipes and parameter lists.
    layouts: HashSet<Lay>,
    hows: HashSet<Rc<How>>,
    params: HashSet<Rc<Vec<Layout>>>,
    /// Normal forms of interned layouts, by address.
    norms: HashMap<usize, Lay>,
    /// Whether a reshape between two interned layouts is offered, by their addresses.
    reshapes: HashMap<(usize, usize), bool>,
}

impl Caches {
    /// [`crate::schedule::slowdown::streaming_layout`] of type `t` over `clocks` clocks,
    /// computed once per type and clock count.
    fn streaming(&mut self, t: &SeqType, clocks: u64) -> Option<Layout> {
        if let Some(l) = self.streaming.get(t).and_then(|m| m.get(&clocks)) {
            return l.clone();
        }
        let l = crate::schedule::slowdown::streaming_layout(t, clocks);
        self.streaming
            .entry(t.clone())
            .or_default()
            .insert(clocks, l.clone());
        l
    }
}

/// The address of an interned value: equal values have equal addresses.
fn addr<T>(r: &Rc<T>) -> usize {
    Rc::as_ptr(r) as usize
}

/// The stream graph over a saturated phase-1 e-graph.
pub struct StreamGraph<'a> {
    eg: &'a SeqEGraph,
    /// Contexts: `None` is the top level, `Some(params)` a body whose parameters have those
    /// layouts or others with the same normal forms ([`StreamGraph::body_context`]).
    pub ctxs: IndexSet<Option<Vec<Layout>>, FxBuild>,
    /// The stream classes.
    pub classes: Vec<SClass>,
    /// Stream classes by context, e-class and the address of their interned normal form.
    index: HashMap<(usize, Id, usize), usize>,
    queue: VecDeque<(usize, Lay)>,
    /// Views in their type's streaming layout, lowered before [`StreamGraph::queue`]'s.
    streaming_queue: VecDeque<(usize, Lay)>,
    /// With [`Bounds::spread_first`], views in a spread streaming layout
    /// ([`crate::schedule::spread`]), lowered after the streaming ones and before the rest.
    spread_queue: VecDeque<(usize, Lay)>,
    /// What does not depend on the graph's roots or node bound.
    caches: Caches,
    /// [`StreamGraph::request`]'s answers by context, e-class and interned layout.
    requests: HashMap<(usize, Id, usize), Option<usize>>,
    /// Body contexts by the normal forms of their parameter layouts (interned, by address).
    ctx_by_norm: HashMap<Vec<usize>, usize>,
    bounds: Bounds,
    nodes: usize,
    /// True if [`Bounds::max_nodes`] stopped the expansion.
    pub truncated: bool,
    /// The e-node being lowered, recorded in the nodes it adds.
    lowering: Option<SeqLang>,
    /// Operators met that have no lowering (`hmap`): named when no design is found.
    pub unlowered: std::collections::BTreeSet<&'static str>,
}

impl<'a> StreamGraph<'a> {
    /// An empty stream graph over the phase-1 e-graph `eg`.
    pub fn new(eg: &'a SeqEGraph, bounds: Bounds) -> StreamGraph<'a> {
        StreamGraph::with_caches(eg, bounds, Caches::default())
    }

    /// [`StreamGraph::new`] starting from the caches of an earlier graph over the same
    /// e-graph with the same bounds but for [`Bounds::max_nodes`]
    /// ([`StreamGraph::take_caches`]): its measurements and layouts are not computed again.
    pub fn with_caches(eg: &'a SeqEGraph, bounds: Bounds, caches: Caches) -> StreamGraph<'a> {
        let mut ctxs = IndexSet::default();
        ctxs.insert(None);
        StreamGraph {
            eg,
            ctxs,
            classes: Vec::new(),
            index: HashMap::default(),
            queue: VecDeque::new(),
            streaming_queue: VecDeque::new(),
            spread_queue: VecDeque::new(),
            caches,
            requests: HashMap::default(),
            ctx_by_norm: HashMap::default(),
            bounds,
            nodes: 0,
            truncated: false,
            lowering: None,
            unlowered: Default::default(),
        }
    }

    /// Its caches, for a next graph ([`StreamGraph::with_caches`]); this graph keeps none.
    pub fn take_caches(&mut self) -> Caches {
        std::mem::take(&mut self.caches)
    }

    /// The phase-1 e-graph the stream graph lowers.
    pub fn egraph(&self) -> &'a SeqEGraph {
        self.eg
    }

    /// Total stream nodes.
    pub fn node_count(&self) -> usize {
        self.nodes
    }

    /// The candidate layouts of type `t` spanning `clocks` clocks (simplest first).
    pub fn cands(&mut self, t: &SeqType, clocks: u64) -> Rc<Vec<Layout>> {
        if let Some(c) = self.caches.cands.get(t).and_then(|m| m.get(&clocks)) {
            return c.clone();
        }
        let cap = self.bounds.candidates;
        let max_lanes = self.bounds.max_lanes(t, clocks);
        let mut c = candidates(t, clocks, cap, max_lanes);
        // A large value's simplest candidates give the outer layers few clocks and the inner
        // ones many (a 1920x1080 camera's row pair of 3x3 windows at 240 clocks: 256-480
        // lanes, the windows over time), so its streaming layout (rows over time, windows in
        // space: the layout Aetherling propagates into a map body) comes first: map bodies
        // take the first `param_combos` candidates as their parameter layouts.
        if t.atoms() > self.bounds.small_value {
            if let Some(l) = self.caches.streaming(t, clocks) {
                c.retain(|x| *x != l);
                c.insert(0, l);
                c.truncate(cap);
            }
        }
        let c = Rc::new(c);
        self.caches
            .cands
            .entry(t.clone())
            .or_default()
            .insert(clocks, c.clone());
        c
    }

    /// The interned copy of `l`.
    pub fn intern(&mut self, l: &Layout) -> Lay {
        if let Some(r) = self.caches.layouts.get(l) {
            return r.clone();
        }
        let r = Rc::new(l.clone());
        self.caches.layouts.insert(r.clone());
        r
    }

    /// The interned copy of `l` (taking it).
    fn intern_owned(&mut self, l: Layout) -> Lay {
        if let Some(r) = self.caches.layouts.get(&l) {
            return r.clone();
        }
        let r = Rc::new(l);
        self.caches.layouts.insert(r.clone());
        r
    }

    /// The (interned) normal form of an interned layout.
    fn norm(&mut self, l: &Lay) -> Lay {
        if let Some(n) = self.caches.norms.get(&addr(l)) {
            return n.clone();
        }
        let n = self.intern_owned(l.normalize());
        self.caches.norms.insert(addr(l), n.clone());
        n
    }

    fn intern_how(&mut self, h: How) -> Rc<How> {
        if let Some(r) = self.caches.hows.get(&h) {
            return r.clone();
        }
        let r = Rc::new(h);
        self.caches.hows.insert(r.clone());
        r
    }

    fn intern_params(&mut self, p: Vec<Layout>) -> Rc<Vec<Layout>> {
        if let Some(r) = self.caches.params.get(&p) {
            return r.clone();
        }
        let r = Rc::new(p);
        self.caches.params.insert(r.clone());
        r
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
        let lay = self.intern(layout);
        let rkey = (ctx, class, addr(&lay));
        if let Some(got) = self.requests.get(&rkey) {
            return *got;
        }
        let got = self.request_new(ctx, class, lay);
        self.requests.insert(rkey, got);
        got
    }

    /// [`StreamGraph::request`] of a (context, e-class, layout) not requested before.
    fn request_new(&mut self, ctx: usize, class: Id, layout: Lay) -> Option<usize> {
        let ty = self.value_type(class)?;
        if !crate::st::verify::implements(&layout, &ty) || layout.validate().is_err() {
            return None;
        }
        let norm = self.norm(&layout);
        let at = (ctx, class, addr(&norm));
        let idx = match self.index.get(&at) {
            Some(i) => *i,
            None => {
                let i = self.classes.len();
                self.classes.push(SClass {
                    key: Key {
                        ctx,
                        class,
                        norm: norm.clone(),
                    },
                    ty,
                    views: Vec::new(),
                    nodes: Vec::new(),
                });
                self.index.insert(at, i);
                i
            }
        };
        if !self.classes[idx]
            .views
            .iter()
            .any(|v| Rc::ptr_eq(v, &layout))
        {
            self.classes[idx].views.push(layout.clone());
            let ty = &self.classes[idx].ty;
            if self.caches.streaming(ty, layout.clocks()).as_ref() == Some(&*layout) {
                self.streaming_queue.push_back((idx, layout));
            } else if self.bounds.spread_first
                && crate::schedule::spread::is_spread_streaming(ty, &layout)
            {
                self.spread_queue.push_back((idx, layout));
            } else {
                self.queue.push_back((idx, layout));
            }
        }
        Some(idx)
    }

    /// The body context of parameters laid out as `ls`: one per tuple of normal forms.
    /// Parameters whose layouts have equal normal forms put every atom on the same lane
    /// and clock, so their bodies are one sub-problem: a map whose parameters are laid out
    /// otherwise passes them in through wiring ([`super::extract::Builder`] fixes every
    /// port's exact layout), as a class serves all its views. Keyed by exact layouts, the
    /// bodies of first_layer_pyr at s = 16 took 3424 contexts for 890 distinct ones, two
    /// thirds of the graph's nodes.
    pub(super) fn body_context(&mut self, ls: &[Layout]) -> usize {
        let norm: Vec<usize> = ls
            .iter()
            .map(|l| {
                let l = self.intern(l);
                addr(&self.norm(&l))
            })
            .collect();
        if let Some(c) = self.ctx_by_norm.get(&norm) {
            return *c;
        }
        let c = self.ctxs.insert_full(Some(ls.to_vec())).0;
        self.ctx_by_norm.insert(norm, c);
        c
    }

    /// Lowers every queued view, until none is left or the node bound is hit.
    pub fn expand(&mut self) {
        // Streaming views first (then, if asked, spread streaming ones): when the bound
        // cuts the graph, the streaming design (the one Aetherling's scheduler builds,
        // mostly), and the designs running every operator at a fraction of that rate, are
        // then complete, not cut halfway.
        while let Some((idx, layout)) = self
            .streaming_queue
            .pop_front()
            .or_else(|| self.spread_queue.pop_front())
            .or_else(|| self.queue.pop_front())
        {
            if self.nodes >= self.bounds.max_nodes {
                self.truncated = true;
                self.queue.clear();
                self.streaming_queue.clear();
                self.spread_queue.clear();
                return;
            }
            self.lower_view(idx, &layout);
        }
    }

    fn lower_view(&mut self, idx: usize, l: &Layout) {
        let (ctx, class) = (self.classes[idx].key.ctx, self.classes[idx].key.class);
        let ty = self.classes[idx].ty.clone();
        let clocks = l.clocks();
        let enodes = self.eg[class].nodes.clone();
        for enode in &enodes {
            self.lowering = Some(enode.clone());
            self.lower_enode(idx, ctx, &ty, l, enode);
        }
        self.lowering = None;
        // Reshapes from the value's simplest candidate layouts (first view only: the other
        // views of the class are the same wires).
        if self.classes[idx].views.len() == 1 {
            for from in self.reshape_sources(&ty, clocks) {
                self.add_reshape(idx, ctx, class, &from, l);
            }
        }
    }

    /// The layouts a value of type `t` over `clocks` clocks may be reshaped from: its first
    /// [`Bounds::reshape_sources`] candidates and its streaming layout, the one Aetherling's
    /// scheduler propagates ([`crate::schedule::slowdown::streaming_layout`]).
    fn reshape_sources(&mut self, t: &SeqType, clocks: u64) -> Vec<Layout> {
        let cands = self.cands(t, clocks);
        let mut out: Vec<Layout> = cands
            .iter()
            .take(self.bounds.reshape_sources)
            .cloned()
            .collect();
        if let Some(l) = self.caches.streaming(t, clocks) {
            if !out.contains(&l) {
                out.push(l);
            }
        }
        out
    }

    fn num(&self, id: Id) -> Option<u64> {
        match self.eg[id].data.sort {
            Sort::Num(n) => Some(n),
            _ => None,
        }
    }

    /// For a view `tseq n i le` of a large `(seq n e)` whose element layout `le` lays out
    /// `e` with a split layer (`(tseq 540 0 (tseq 240 0 (sseq 16 x)))` for a
    /// `(seq 540 (seq 3840 _))`: each element streams over 240 clocks in 16 lanes), the type
    /// `(seq n T(le))` a map is lowered as, so its time rule matches with the body's result
    /// in `le`. The lowering rules match an element layout of the element type itself, and
    /// no such layout of a `seq 3840` spans 240 clocks.
    fn split_element_type(&self, ty: &SeqType, l: &Layout) -> Option<SeqType> {
        if ty.atoms() <= self.bounds.small_value {
            return None;
        }
        let (n, e) = ty.as_seq()?;
        match l {
            Layout::TSeq(m, _, le) if *m == n && le.to_seq() != *e && layout::lays_out(le, e) => {
                Some(SeqType::seq(n, le.to_seq()))
            }
            _ => None,
        }
    }

    /// Lowers one phase-1 e-node into stream class `idx` in the exact layout `l`.
    fn lower_enode(&mut self, idx: usize, ctx: usize, ty: &SeqType, l: &Layout, enode: &SeqLang) {
        match enode {
            SeqLang::Input(_)
            | SeqLang::Arg(_)
            | SeqLang::Const(_)
            | SeqLang::Counter(_)
            | SeqLang::Atom(..)
            | SeqLang::Cast(_)
            | SeqLang::ATuple(_)
            | SeqLang::STuple(_)
            | SeqLang::STupleAppend(_) => self.lower_leaf(idx, ctx, l, enode),
            SeqLang::Map(_) | SeqLang::Map2(_) => {
                self.lower_by_rules(idx, ctx, ty, l, enode);
                if let Some(vt) = self.split_element_type(ty, l) {
                    self.lower_by_rules(idx, ctx, &vt, l, enode);
                }
            }
            SeqLang::Reduce(_)
            | SeqLang::Down(_)
            | SeqLang::Up(_)
            | SeqLang::Shift(_)
            | SeqLang::Transpose(_)
            | SeqLang::Partition(_)
            | SeqLang::Unpartition(_)
            | SeqLang::STupleToSeq(_)
            | SeqLang::SeqToSTuple(_) => self.lower_by_rules(idx, ctx, ty, l, enode),
            SeqLang::HMap(_) => {
                self.unlowered.insert("hmap");
            }
            // Function lists, numbers and type terms are not values.
            _ => {}
        }
    }
}
