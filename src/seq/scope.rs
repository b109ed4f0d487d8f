//! A scope of a program (its top level or a function body) in evaluation order: what both
//! evaluators ([`super::interp`], [`super::fast`]) walk.

use super::program::{NodeId, Program};
use std::collections::HashMap;

/// The nodes of one scope in evaluation order, each node's inputs as positions in that
/// order, and the number of uses of each position (to drop values after their last use).
pub(crate) struct Scope {
    pub ids: Vec<NodeId>,
    pub args: Vec<Vec<usize>>,
    pub uses: Vec<usize>,
}

impl Scope {
    /// The scope whose result is `root`.
    pub fn new(p: &Program, root: NodeId) -> Scope {
        let ids = p.scope(root);
        let local: HashMap<NodeId, usize> =
            ids.iter().enumerate().map(|(k, id)| (*id, k)).collect();
        let args: Vec<Vec<usize>> = ids
            .iter()
            .map(|id| p.node(*id).args.iter().map(|a| local[a]).collect())
            .collect();
        let mut uses = vec![0; ids.len()];
        for a in args.iter().flatten() {
            uses[*a] += 1;
        }
        Scope { ids, args, uses }
    }

    /// Evaluates every node in order with `eval(node, its input values)` and returns the
    /// root's value, dropping each value after its last use: a frame's intermediate
    /// sequences do not all live at once.
    pub fn run<V>(&self, mut eval: impl FnMut(NodeId, &[&V]) -> V) -> V {
        let mut remaining = self.uses.clone();
        let mut vals: Vec<Option<V>> = (0..self.ids.len()).map(|_| None).collect();
        for (k, &id) in self.ids.iter().enumerate() {
            let v = {
                let args: Vec<&V> = self.args[k]
                    .iter()
                    .map(|&a| vals[a].as_ref().expect("value dropped before its last use"))
                    .collect();
                eval(id, &args)
            };
            vals[k] = Some(v);
            for &a in &self.args[k] {
                remaining[a] -= 1;
                if remaining[a] == 0 {
                    vals[a] = None;
                }
            }
        }
        vals.pop()
            .flatten()
            .expect("the root is the last node of its scope")
    }
}
