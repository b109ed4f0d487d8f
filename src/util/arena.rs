//! Walks over the arenas of the IRs (`seq::Program`, `st::Design`), whose nodes are
//! numbered so that every child comes before its parents.

use super::fxhash::FxBuild;
use std::collections::HashSet;

/// The indices below `len` reachable from `roots`, where `children(i, out)` pushes the
/// children of node `i` onto `out`; ascending, which is a topological order because
/// children always have smaller indices than their parents.
pub fn reachable(
    len: usize,
    roots: &[usize],
    children: impl Fn(usize, &mut Vec<usize>),
) -> Vec<usize> {
    let mut stack = roots.to_vec();
    if len <= DENSE_LEN {
        let mut seen = vec![false; len];
        while let Some(i) = stack.pop() {
            if !std::mem::replace(&mut seen[i], true) {
                children(i, &mut stack);
            }
        }
        return (0..len).filter(|i| seen[*i]).collect();
    }
    // A function body's scope is a few nodes near the end of a large arena: marking them in
    // a set and sorting costs what the scope has, where a flag per node below the root cost
    // what the arena has, once per body instance the area model walks (a third of the
    // baseline's search time at demosaic's largest slowdown).
    let mut seen: HashSet<usize, FxBuild> = HashSet::default();
    let mut out = Vec::new();
    while let Some(i) = stack.pop() {
        debug_assert!(i < len, "node {i} outside the arena of {len}");
        if seen.insert(i) {
            out.push(i);
            children(i, &mut stack);
        }
    }
    out.sort_unstable();
    out
}

/// Up to this many nodes below the root, [`reachable`] marks them in a flag per node.
const DENSE_LEN: usize = 512;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reachable_is_ascending_and_skips_unreached_nodes() {
        // 0 <- 2 <- 3, 1 unreferenced, 4 -> 1
        let kids: [&[usize]; 5] = [&[], &[], &[0], &[2, 0], &[1]];
        let r = reachable(5, &[3], |i, out| out.extend_from_slice(kids[i]));
        assert_eq!(r, vec![0, 2, 3]);
        let r = reachable(5, &[4, 3], |i, out| out.extend_from_slice(kids[i]));
        assert_eq!(r, vec![0, 1, 2, 3, 4]);
    }

    /// Above `DENSE_LEN` the scope is collected sparsely, in the same ascending order.
    #[test]
    fn a_large_arena_gives_the_same_scope() {
        let len = 3 * DENSE_LEN;
        // node i reads i - 3 and i - 5 (those that exist): from the last node, every third
        // and fifth step back
        let kids = |i: usize, out: &mut Vec<usize>| {
            out.extend([3, 5].iter().filter(|&&k| i >= k).map(|&k| i - k));
        };
        let got = reachable(len, &[len - 1], kids);
        let mut want = vec![false; len];
        let mut stack = vec![len - 1];
        while let Some(i) = stack.pop() {
            if !std::mem::replace(&mut want[i], true) {
                kids(i, &mut stack);
            }
        }
        let want: Vec<usize> = (0..len).filter(|i| want[*i]).collect();
        assert_eq!(got, want);
        assert!(got.windows(2).all(|w| w[0] < w[1]));
    }
}
