//! The evaluation order of the greedy extraction's fixed point ([`super::extract`]).
//!
//! The fixed point is defined by rounds that scan every stream class from the last to the
//! first, and each class's nodes in order, evaluating a node when one of its children or its
//! body changed since the node was last evaluated. Scanning every node each round (and
//! reading each node's children to see whether it is due) cost more than the evaluations
//! themselves on the larger graphs, which have a few hundred thousand nodes and a few
//! evaluations per node. [`Scan`] numbers the nodes in scan order, keeps what an evaluation
//! reads in flat arrays, and knows each class's readers; [`Due`] holds the nodes due in the
//! current round and in the next one as bit sets, so a round visits only its due nodes, in
//! scan order.

use super::graph::{How, SNode, StreamGraph};
use crate::st::area::Weights;

/// The graph's nodes in scan order (classes last to first, nodes in order), with what an
/// evaluation reads.
pub struct Scan {
    /// Per scan index: the node's class and its index in the class.
    pub at: Vec<(usize, usize)>,
    /// Per scan index: the node's own cost under the weights.
    pub own: Vec<f64>,
    /// Per scan index: the program input it declares, if it is an input declaration.
    pub input: Vec<Option<usize>>,
    /// Per scan index: the body's class and the node's multiplicity.
    pub body: Vec<Option<(usize, u64)>>,
    /// Per scan index: the children's classes (CSR, as the readers).
    kids: Vec<u32>,
    kid_start: Vec<usize>,
    /// Per class: the scan indices of the nodes that read it as a child or body (CSR:
    /// `readers[reader_start[c]..reader_start[c + 1]]`).
    readers: Vec<u32>,
    reader_start: Vec<usize>,
}

impl Scan {
    /// The scan of `g` under the weights `w`.
    pub fn new(g: &StreamGraph, w: &Weights) -> Scan {
        Scan::priced(g, &|nd| nd.own.scalar(w))
    }

    /// The scan of `g` with each node's own cost given by `own(node)` (its body
    /// excluded), for extractions under another cost than the area model's
    /// ([`super::registered`]).
    pub fn priced(g: &StreamGraph, own: &dyn Fn(&SNode) -> f64) -> Scan {
        let total: usize = g.classes.iter().map(|c| c.nodes.len()).sum();
        let n = g.classes.len();
        let mut s = Scan {
            at: Vec::with_capacity(total),
            own: Vec::with_capacity(total),
            input: Vec::with_capacity(total),
            body: Vec::with_capacity(total),
            kids: Vec::new(),
            kid_start: Vec::with_capacity(total + 1),
            readers: Vec::new(),
            reader_start: vec![0; n + 1],
        };
        s.kid_start.push(0);
        for (ci, c) in g.classes.iter().enumerate().rev() {
            for (ni, nd) in c.nodes.iter().enumerate() {
                s.at.push((ci, ni));
                s.kids.extend(nd.kids.iter().map(|(k, _)| *k as u32));
                s.kid_start.push(s.kids.len());
                s.own.push(own(nd));
                s.input.push(match *nd.how {
                    How::Input(k) => Some(k),
                    _ => None,
                });
                s.body.push(nd.body.as_ref().map(|(b, _, _)| (*b, nd.mult)));
                for (k, _) in &nd.kids {
                    s.reader_start[*k + 1] += 1;
                }
                if let Some((b, _, _)) = &nd.body {
                    s.reader_start[*b + 1] += 1;
                }
            }
        }
        for c in 0..n {
            s.reader_start[c + 1] += s.reader_start[c];
        }
        let mut fill = s.reader_start.clone();
        let mut readers = vec![0; s.reader_start[n]];
        for i in 0..s.at.len() {
            let reads = s.kids(i).iter().map(|k| *k as usize);
            for k in reads.chain(s.body[i].map(|(b, _)| b)) {
                readers[fill[k]] = i as u32;
                fill[k] += 1;
            }
        }
        s.readers = readers;
        s
    }

    /// The number of nodes.
    pub fn node_count(&self) -> usize {
        self.at.len()
    }

    /// The children's classes of node `i`, in order.
    pub fn kids(&self, i: usize) -> &[u32] {
        &self.kids[self.kid_start[i]..self.kid_start[i + 1]]
    }

    /// The scan indices of the nodes reading class `c`.
    pub fn readers(&self, c: usize) -> &[u32] {
        &self.readers[self.reader_start[c]..self.reader_start[c + 1]]
    }
}

/// The nodes due in the current round and in the next one.
pub struct Due {
    now: Vec<u64>,
    next: Vec<u64>,
    /// The word of `now` the round has reached.
    word: usize,
}

impl Due {
    /// Nothing due, for `len` nodes.
    pub fn new(len: usize) -> Due {
        let words = len.div_ceil(64);
        Due {
            now: vec![0; words],
            next: vec![0; words],
            word: 0,
        }
    }

    /// Marks node `i` due in the current round.
    pub fn now(&mut self, i: usize) {
        self.now[i / 64] |= 1 << (i % 64);
    }

    /// Marks node `i` due at its next place in the scan after node `from` (being evaluated):
    /// later in this round if it comes after `from`, else in the next round.
    pub fn after(&mut self, i: usize, from: usize) {
        let set = if i > from {
            &mut self.now
        } else {
            &mut self.next
        };
        set[i / 64] |= 1 << (i % 64);
    }

    /// The next node due in this round, in scan order (taking it).
    pub fn pop(&mut self) -> Option<usize> {
        while self.word < self.now.len() {
            let w = self.now[self.word];
            if w != 0 {
                let b = w.trailing_zeros() as usize;
                self.now[self.word] &= !(1 << b);
                return Some(self.word * 64 + b);
            }
            self.word += 1;
        }
        None
    }

    /// Starts the next round; false if nothing is due in it.
    pub fn next_round(&mut self) -> bool {
        std::mem::swap(&mut self.now, &mut self.next);
        self.word = 0;
        self.now.iter().any(|w| *w != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::super::extract::{choose, Choice};
    use super::super::graph::{How, StreamGraph};
    use super::super::{output_candidates, saturate, Options};
    use crate::st::area::Weights;
    use crate::st::Layout;
    use crate::util::fxhash::FxBuild;
    use std::rc::Rc;

    type HashSet<K> = std::collections::HashSet<K, FxBuild>;
    type Set = imbl::GenericHashMap<usize, f64, FxBuild, imbl::shared_ptr::DefaultSharedPtr>;

    /// The fixed point as written before the due sets (27953f9, cold start): rounds that
    /// scan every node of every class and evaluate those whose child or body changed in
    /// this round or the one before.
    fn by_rescans(
        g: &StreamGraph,
        w: &Weights,
        input_ok: &dyn Fn(usize, &Layout) -> bool,
    ) -> Choice {
        let n = g.classes.len();
        let mut best: Choice = vec![(f64::INFINITY, None); n];
        let mut sets: Vec<Option<Rc<Set>>> = vec![None; n];
        let old: Option<Vec<usize>> = None;
        let own: Vec<Vec<f64>> = g
            .classes
            .iter()
            .map(|c| c.nodes.iter().map(|nd| nd.own.scalar(w)).collect())
            .collect();
        let mut stamp: Vec<Option<usize>> = vec![None; n];
        for round in 0..=n.min(200) {
            let mut changed = false;
            let fresh =
                |k: usize, stamp: &[Option<usize>]| stamp[k].is_some_and(|r| r + 1 >= round);
            for (ci, c) in g.classes.iter().enumerate().rev() {
                'nodes: for (ni, nd) in c.nodes.iter().enumerate() {
                    let dirty = (round == 0 && old.as_ref().is_none_or(|o| ni >= o[ci]))
                        || nd.kids.iter().any(|(k, _)| fresh(*k, &stamp))
                        || nd.body.as_ref().is_some_and(|(b, _, _)| fresh(*b, &stamp));
                    if !dirty {
                        continue;
                    }
                    if let How::Input(k) = *nd.how {
                        if !input_ok(k, &c.key.norm) {
                            continue;
                        }
                    }
                    let mut mine = own[ci][ni];
                    if let Some((b, _, _)) = &nd.body {
                        mine += best[*b].0 * nd.mult as f64;
                    }
                    if !mine.is_finite() {
                        continue;
                    }
                    // Union of the children's sets, starting from the largest.
                    let mut kids: Vec<&Rc<Set>> = Vec::with_capacity(nd.kids.len());
                    for (k, _) in &nd.kids {
                        match &sets[*k] {
                            Some(s) => kids.push(s),
                            None => continue 'nodes,
                        }
                    }
                    kids.sort_by_key(|s| std::cmp::Reverse(s.len()));
                    let mut total = mine;
                    // The classes the other children add to the first child's set, in the
                    // order met; the union itself is only built for a node that improves.
                    let mut extra: Vec<(usize, f64)> = Vec::new();
                    if let Some(first) = kids.first() {
                        if first.contains_key(&ci) {
                            continue;
                        }
                        total += best[nd
                            .kids
                            .iter()
                            .map(|(k, _)| *k)
                            .find(|k| sets[*k].as_ref().is_some_and(|s| Rc::ptr_eq(s, first)))
                            .unwrap_or(nd.kids[0].0)]
                        .0;
                        let mut met: HashSet<usize> = HashSet::default();
                        for s in &kids[1..] {
                            for (k, v) in s.iter() {
                                if *k == ci {
                                    continue 'nodes;
                                }
                                if !first.contains_key(k) && met.insert(*k) {
                                    total += v;
                                    extra.push((*k, *v));
                                }
                            }
                        }
                    }
                    if total + 1e-9 < best[ci].0 {
                        let mut u = kids.first().map(|f| (***f).clone()).unwrap_or_default();
                        u.extend(extra);
                        u.insert(ci, mine);
                        best[ci] = (total, Some(ni));
                        sets[ci] = Some(Rc::new(u));
                        stamp[ci] = Some(round);
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        best
    }

    /// The due-set fixed point makes the same choice, node for node and cost for cost, as
    /// the rescanning rounds on the stream graphs of conv2d and first_layer_pyr (cut at its
    /// node bound), without and with an input constraint.
    #[test]
    fn due_sets_choose_what_the_rescans_chose() {
        let o = Options::default();
        let w = &o.weights;
        for (name, s) in [("conv2d", 4), ("conv2d", 16), ("first_layer_pyr", 16)] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("examples/{name}.seq"));
            let p = crate::seq::load_program(&path).expect("example loads");
            let ph = saturate(&p, &o).expect("saturates");
            let mut g = StreamGraph::new(&ph.eg, o.bounds.clone());
            for l in output_candidates(p.output_type(), s, &o.bounds) {
                g.request(0, ph.root, &l);
            }
            g.expand();
            g.connect_inputs();
            g.expand();
            g.connect_inputs();
            let free = choose(&g, w, &|_, _| true);
            assert!(free.iter().any(|c| c.0.is_finite()), "{name} s={s}");
            assert_eq!(free, by_rescans(&g, w, &|_, _| true), "{name} s={s}");
            // Input 0 only in the first normal form it is declared in.
            let first = g
                .classes
                .iter()
                .find(|c| c.nodes.iter().any(|nd| matches!(*nd.how, How::Input(0))))
                .map(|c| (*c.key.norm).clone())
                .expect("input 0 is declared");
            let only = |k: usize, norm: &Layout| k != 0 || *norm == first;
            let constrained = choose(&g, w, &only);
            assert_ne!(
                constrained, free,
                "{name} s={s}: the constraint changes nothing"
            );
            assert_eq!(
                constrained,
                by_rescans(&g, w, &only),
                "{name} s={s} constrained"
            );
        }
    }
}
