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

use super::graph::{How, StreamGraph};
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
                s.own.push(nd.own.scalar(w));
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
    pub fn len(&self) -> usize {
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
