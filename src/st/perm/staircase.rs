//! A layout's count of placed atoms as a function of the clock, and its extremes less a
//! line over a range of clocks, in time that follows the layout's layers, not its clocks.
//!
//! `N(t)`, the atoms a layout places at clocks `..= t` of one period, is a staircase built
//! by its layers: lanes multiply it, and a `tseq n i` of an element of `c` clocks and `a`
//! atoms repeats the element's staircase `n` times, each block `a` higher, then stays flat
//! for its idle clocks. So `m·N(t) - k·t` on block `j` is `j·(m·a - k·c)` plus the element's
//! own `m·N'(u) - k·u`: over a range of whole blocks its extremes are at the first or last
//! block (a line in `j`), and only the two partial blocks at the range's ends look inside.
//! A range query is then a few paths down the layers, as in a segment tree.
//!
//! [`super::closed`] uses it to take an identity map's storage over the runs of one layout
//! only, reading the other layout's staircase here.

use crate::st::layout::Layout;

/// One layer, outermost first.
#[derive(Clone, Copy, Debug)]
enum Level {
    /// Lanes: the count is multiplied by this.
    Lanes(u64),
    /// `tseq n idle` of an element of `c` clocks and `a` atoms.
    Time { n: u64, idle: u64, c: u64, a: u64 },
}

/// A layout's staircase `N(t)`, its layers flattened once for the queries.
#[derive(Clone, Debug)]
pub struct Staircase {
    levels: Vec<Level>,
    clocks: u64,
}

/// Least and greatest of a function over a range.
type Extremes = (i128, i128);

fn join(a: Option<Extremes>, b: Extremes) -> Option<Extremes> {
    Some(match a {
        None => b,
        Some((lo, hi)) => (lo.min(b.0), hi.max(b.1)),
    })
}

impl Staircase {
    /// The staircase of `l`.
    pub fn new(l: &Layout) -> Staircase {
        let mut levels = Vec::new();
        let mut cur = l;
        loop {
            match cur {
                Layout::SSeq(n, t) | Layout::STuple(n, t) => {
                    levels.push(Level::Lanes(*n));
                    cur = t;
                }
                Layout::TSeq(n, i, t) => {
                    levels.push(Level::Time {
                        n: *n,
                        idle: *i,
                        c: t.clocks(),
                        a: t.atoms(),
                    });
                    cur = t;
                }
                Layout::Scalar(_) | Layout::ATuple(..) => break,
            }
        }
        Staircase {
            levels,
            clocks: l.clocks(),
        }
    }

    /// Least and greatest of `m·N(t) - k·t` over `t` in `s ..= e` (`s <= e < clocks`).
    pub fn extremes(&self, m: i128, k: i128, s: u64, e: u64) -> (i128, i128) {
        debug_assert!(s <= e && e < self.clocks);
        self.at(0, m, k, s, e)
    }

    /// The extremes on the layers from `d` in, the clocks `s ..= e` relative to the start
    /// of one value of layer `d`.
    fn at(&self, d: usize, m: i128, k: i128, s: u64, e: u64) -> Extremes {
        let Some(&level) = self.levels.get(d) else {
            // an atom: one clock, one atom
            return (m, m);
        };
        let (n, idle, c, a) = match level {
            Level::Lanes(n) => return self.at(d + 1, m * i128::from(n), k, s, e),
            Level::Time { n, idle, c, a } => (n, idle, c, a),
        };
        let valid = n * c;
        let mut out = None;
        if s < valid {
            let e1 = e.min(valid - 1);
            let (j0, u0, j1, u1) = (s / c, s % c, e1 / c, e1 % c);
            // block j adds j·(m·a - k·c) to the element's function
            let step = m * i128::from(a) - k * i128::from(c);
            let shifted = |(lo, hi): Extremes, j: u64| {
                let add = step * i128::from(j);
                (lo + add, hi + add)
            };
            if j0 == j1 {
                out = join(out, shifted(self.at(d + 1, m, k, u0, u1), j0));
            } else {
                // whole blocks: the first and last whole one hold the extremes of the line
                let first = if u0 == 0 { j0 } else { j0 + 1 };
                let last = if u1 == c - 1 { j1 } else { j1 - 1 };
                if u0 != 0 {
                    out = join(out, shifted(self.at(d + 1, m, k, u0, c - 1), j0));
                }
                if u1 != c - 1 {
                    out = join(out, shifted(self.at(d + 1, m, k, 0, u1), j1));
                }
                if first <= last {
                    let whole = self.at(d + 1, m, k, 0, c - 1);
                    out = join(out, shifted(whole, first));
                    out = join(out, shifted(whole, last));
                }
            }
        }
        if e >= valid {
            // idle clocks: all atoms placed, the line alone moves
            debug_assert!(e < valid + idle * c);
            let top = m * i128::from(n * a);
            let (t0, t1) = (i128::from(s.max(valid)), i128::from(e));
            let (v0, v1) = (top - k * t0, top - k * t1);
            out = join(out, (v0.min(v1), v0.max(v1)));
        }
        out.expect("a non-empty range")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::st::perm::clock_of_atoms;

    /// The staircase by its definition: atoms at clocks up to each clock.
    fn counted(l: &Layout) -> Vec<i128> {
        let mut n = vec![0i128; l.clocks() as usize];
        for t in clock_of_atoms(l) {
            n[t as usize] += 1;
        }
        let mut acc = 0;
        n.iter()
            .map(|x| {
                acc += x;
                acc
            })
            .collect()
    }

    #[test]
    fn extremes_equal_the_counted_staircase_on_every_range() {
        let int = || Layout::Scalar(crate::seq::types::ScalarType::Int8);
        let layouts = [
            Layout::tseq(3, 2, Layout::sseq(2, Layout::tseq(2, 1, int()))),
            Layout::sseq(3, Layout::tseq(4, 0, Layout::tseq(1, 2, int()))),
            Layout::tseq(5, 0, int()),
        ];
        for l in &layouts {
            let st = Staircase::new(l);
            let n = counted(l);
            for (m, k) in [(1, 0), (1, 1), (2, 3), (1, 5)] {
                for s in 0..n.len() {
                    for e in s..n.len() {
                        let vals = (s..=e).map(|t| m * n[t] - k * t as i128);
                        let want = (vals.clone().min().unwrap(), vals.max().unwrap());
                        assert_eq!(st.extremes(m, k, s as u64, e as u64), want, "{l} {s}..={e}");
                    }
                }
            }
        }
    }
}
