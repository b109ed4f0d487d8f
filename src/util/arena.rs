//! Walks over the arenas of the IRs (`seq::Program`, `st::Design`), whose nodes are
//! numbered so that every child comes before its parents.

/// The indices below `len` reachable from `roots`, where `children(i, out)` pushes the
/// children of node `i` onto `out`; ascending, which is a topological order because
/// children always have smaller indices than their parents.
pub fn reachable(
    len: usize,
    roots: &[usize],
    children: impl Fn(usize, &mut Vec<usize>),
) -> Vec<usize> {
    let mut seen = vec![false; len];
    let mut stack = roots.to_vec();
    while let Some(i) = stack.pop() {
        if !std::mem::replace(&mut seen[i], true) {
            children(i, &mut stack);
        }
    }
    (0..len).filter(|i| seen[*i]).collect()
}

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
}
