//! Reshapes: explicit `reshape` nodes between layouts of one value and between the views
//! of program inputs; and the layouts a relabel (a flat-order-preserving operator such as
//! `partition`) may take its producer in.

use super::how::How;
use super::layout::fit;
use super::{addr, StreamGraph};
use crate::st::perm::Perm;
use crate::st::{Layout, StOp};
use egg::Id;
use std::collections::HashMap;
use std::rc::Rc;

/// The most views of one program input that get a reshape between every two of them
/// ([`StreamGraph::connect_inputs`]).
const ALL_PAIRS_VIEWS: usize = 128;

/// How many of a larger input's views feed reshapes into the others.
const INPUT_SOURCES: usize = 16;

impl StreamGraph<'_> {
    /// Adds a reshape from `class` in layout `from` into stream class `idx` (exact `to`).
    pub(super) fn add_reshape(
        &mut self,
        idx: usize,
        ctx: usize,
        class: Id,
        from: &Layout,
        to: &Layout,
    ) {
        let (f, t) = (self.intern(from), self.intern(to));
        let key = (addr(&f), addr(&t));
        let offered = match self.caches.reshapes.get(&key) {
            Some(ok) => *ok,
            None => {
                // Between frame-sized layouts whose periods do not line up, a reshape
                // buffers most of the frame, and measuring it walks every atom; such
                // reshapes are not offered.
                let ok = !Rc::ptr_eq(&self.norm(&f), &self.norm(&t))
                    && Perm::reshape_analysis_atoms(from, to) <= self.bounds.reshape_atoms;
                self.caches.reshapes.insert(key, ok);
                ok
            }
        };
        if !offered {
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

    /// Adds reshapes between the top-level stream classes of each program input (so
    /// extraction can fix each input to one layout and reshape it elsewhere): between every
    /// two of them, or, for an input of more than [`ALL_PAIRS_VIEWS`] views, from its first
    /// [`INPUT_SOURCES`] views (the first requested: the simplest output candidates and the
    /// layouts its first consumers asked for) into every other.
    pub fn connect_inputs(&mut self) {
        // Every pair is quadratic in the views, which are many where the output is the
        // input itself: a transpose undone by another over 96 atoms takes the layouts of all
        // 2,147 output candidates at s = 96, 4.6 million pairs, where the examples have at
        // most 101 views (10,201 pairs). After the first extraction `connect_views` also
        // reshapes every view from the input's cheapest ones. The node bound caps the rest,
        // the graph then marked truncated.
        let start = self.nodes;
        let groups =
            self.top_level_groups(|c| c.nodes.iter().any(|n| matches!(*n.how, How::Input(_))));
        for (class, members) in groups {
            let sources = if members.len() > ALL_PAIRS_VIEWS {
                &members[..INPUT_SOURCES]
            } else {
                &members[..]
            };
            for &a in &members {
                for &b in sources {
                    if self.nodes - start >= self.bounds.max_nodes {
                        self.truncated = true;
                        return;
                    }
                    if a != b {
                        self.reshape_between(class, b, a);
                    }
                }
            }
        }
    }

    /// The top-level stream classes `keep` accepts, grouped by their e-class, in e-class
    /// order (so the reshapes added over them come in one order every run).
    fn top_level_groups(&self, keep: impl Fn(&super::SClass) -> bool) -> Vec<(Id, Vec<usize>)> {
        let mut by_class: HashMap<Id, Vec<usize>> = HashMap::new();
        for (i, c) in self.classes.iter().enumerate() {
            if c.key.ctx == 0 && keep(c) {
                by_class.entry(c.key.class).or_default().push(i);
            }
        }
        let mut groups: Vec<(Id, Vec<usize>)> = by_class.into_iter().collect();
        groups.sort();
        groups
    }

    /// A reshape from top-level stream class `from`'s first view into class `to`, two
    /// layouts of the e-class `class`, when they span the same clocks.
    fn reshape_between(&mut self, class: Id, from: usize, to: usize) {
        let (f, t) = (
            self.classes[from].views[0].clone(),
            self.classes[to].views[0].clone(),
        );
        if f.clocks() == t.clocks() {
            self.add_reshape(to, 0, class, &f, &t);
        }
    }

    /// Adds reshapes into every top-level stream class of a value from its `sources`
    /// cheapest stream classes over the same clocks (`cost`: an extraction's cost per
    /// class), so a value may be produced in the layout its producer lowers best in and
    /// reshaped into the layout a consumer needs. Aetherling's scheduler does this (the
    /// producer keeps its own layout, a reshape meets the consumer's); the reshapes a view
    /// gets when it is lowered come only from the value's simplest candidates, which miss it
    /// where the clocks do not divide the value (the 16x8 camera at s = 9: its demosaic
    /// lowers best in `(tseq 4 5 (sseq 32 _))`, its sharpen in `(tseq 8 1 (sseq 16 _))`).
    /// Only the cheapest sources: reshapes between every two classes cost more to measure
    /// than the rest of the graph (conv2d_b2b: 3.3x the CPU time). Run after
    /// [`StreamGraph::expand`]; it adds nodes to existing classes and requests no new one.
    pub fn connect_views(&mut self, cost: &dyn Fn(usize) -> f64, sources: usize) {
        let groups = self.top_level_groups(|c| !c.views.is_empty());
        for (class, members) in groups.into_iter().filter(|(_, m)| m.len() > 1) {
            let mut cheap: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&b| cost(b).is_finite())
                .collect();
            cheap.sort_by(|&a, &b| cost(a).total_cmp(&cost(b)).then(a.cmp(&b)));
            let mut used: HashMap<u64, usize> = HashMap::new();
            cheap.retain(|&b| {
                let n = used.entry(self.classes[b].views[0].clocks()).or_default();
                *n += 1;
                *n <= sources
            });
            for &b in &cheap {
                for &a in &members {
                    if a != b {
                        self.reshape_between(class, b, a);
                    }
                }
            }
        }
    }

    /// The layouts of `x` (in scope `ctx`) with the wires of `l` the graph knows: its
    /// candidates with `l`'s normal form, the fit of that normal form to `x`'s type, and
    /// the views of `x`'s stream class with these wires. A relabel (`rules/lower/relabel.rules`)
    /// takes its producer in each.
    pub(super) fn same_wires(&mut self, ctx: usize, x: Id, l: &Layout) -> Vec<Layout> {
        let Some(xt) = self.value_type(x) else {
            return Vec::new();
        };
        let cands = self.cands(&xt, l.clocks());
        // normal forms compared as interned ones, each computed once per graph's caches
        let l = self.intern(l);
        let norm = self.norm(&l);
        let mut same: Vec<Layout> = Vec::new();
        for c in cands.iter() {
            let c = self.intern(c);
            if Rc::ptr_eq(&self.norm(&c), &norm) {
                same.push((*c).clone());
            }
        }
        if let Some(f) = fit(&norm, &xt) {
            let f = self.intern_owned(f);
            if Rc::ptr_eq(&self.norm(&f), &norm) && !same.contains(&f) {
                same.push((*f).clone());
            }
        }
        // The producer's class may already hold a view with these wires.
        if let Some(&k) = self.index.get(&(ctx, self.eg.find(x), addr(&norm))) {
            for v in &self.classes[k].views {
                if !same.contains(v) && crate::st::verify::implements(v, &xt) {
                    same.push((**v).clone());
                }
            }
        }
        same
    }
}
