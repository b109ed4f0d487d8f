//! The number of distinct values of `Σ c_j·e_j` over `0 <= e_j < f_j`, in time that follows
//! the number of terms, not the values' range or the `f_j`.
//!
//! An identity map's read delays are such sums ([`super::closed::identity_sources`]: one
//! term per digit of the two layouts' common refinement, `c_j` the difference of its clock
//! steps). Taking the terms by increasing coefficient, the sums so far are kept as one of
//! two shapes:
//!
//! - a **progression** `{d·i : i < n}`. A next term `c` that is a multiple `k·d` of its
//!   step with `k <= n` overlaps or touches its own shifted copies: still a progression, of
//!   `n + k·(f - 1)` values. One that exceeds the largest sum makes `f` disjoint copies.
//!   Otherwise two progressions meet, with `g = gcd(d, c)`, `d' = d/g`, `c' = c/g`:
//!   `d·i + c·e = d·i' + c·e'` exactly when `(i', e') = (i - t·c', e + t·d')`, so the
//!   pairs with the same sum form chains and each chain has one pair whose `i` cannot drop
//!   by `c'` (`i < c'`, or `e + d' >= f`): `n·f - max(0, n - c')·max(0, f - d')` values.
//! - a **spread** of known count below a known largest sum: a next term exceeding that sum
//!   makes `f` disjoint copies; any other declines (`None`), and the caller walks.
//!
//! Demosaic's frame-sized reshapes at s = 4147200 (a lane digit, a pixel digit with a small
//! coefficient and a row digit with a large one that does not divide into it) are the two
//! progressions' case.

/// The sums so far.
#[derive(Clone, Copy, Debug)]
enum Sums {
    /// `{step·i : i < n}`.
    Progression { step: u128, n: u128 },
    /// `count` values, the largest `reach`.
    Spread { count: u128, reach: u128 },
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The number of distinct values of `Σ c·e` over the terms `(c, f)`, each `e` in `0 .. f`
/// (`f >= 1`; a zero coefficient adds nothing), or `None` when a term meets sums that are
/// neither a progression nor below it (the module comment's cases); saturated to
/// `u64::MAX`.
pub fn distinct_sums(terms: &[(u64, u64)]) -> Option<u64> {
    let mut terms: Vec<(u128, u128)> = terms
        .iter()
        .filter(|&&(c, f)| c > 0 && f > 1)
        .map(|&(c, f)| (u128::from(c), u128::from(f)))
        .collect();
    terms.sort_unstable();
    let mut sums = Sums::Progression { step: 1, n: 1 };
    for (c, f) in terms {
        sums = match sums {
            Sums::Progression { n: 1, .. } => Sums::Progression { step: c, n: f },
            Sums::Progression { step, n } => {
                let reach = step * (n - 1);
                if c.is_multiple_of(step) && c / step <= n {
                    Sums::Progression {
                        step,
                        n: n + c / step * (f - 1),
                    }
                } else {
                    let g = gcd(step, c);
                    let (d1, c1) = (step / g, c / g);
                    // disjoint copies are the case where no chain has two pairs (c' >= n)
                    let count = n * f - n.saturating_sub(c1) * f.saturating_sub(d1);
                    Sums::Spread {
                        count,
                        reach: reach + c * (f - 1),
                    }
                }
            }
            Sums::Spread { count, reach } if c > reach => Sums::Spread {
                count: count * f,
                reach: reach + c * (f - 1),
            },
            Sums::Spread { .. } => return None,
        };
    }
    let count = match sums {
        Sums::Progression { n, .. } => n,
        Sums::Spread { count, .. } => count,
    };
    Some(u64::try_from(count).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn counted(terms: &[(u64, u64)]) -> u64 {
        let mut sums = BTreeSet::from([0u64]);
        for &(c, f) in terms {
            sums = sums
                .iter()
                .flat_map(|s| (0..f).map(move |e| s + c * e))
                .collect();
        }
        sums.len() as u64
    }

    #[test]
    fn two_progressions_that_interleave_count_their_chains() {
        // 2·e1 + 105·e2: every even number to 1534 shifted by multiples of 105
        let terms = [(2, 768), (105, 540)];
        assert_eq!(
            distinct_sums(&terms),
            Some(768 * 540 - (768 - 105) * (540 - 2))
        );
        assert_eq!(distinct_sums(&terms), Some(counted(&terms)));
    }

    #[test]
    fn a_term_inside_a_spread_declines() {
        // 1, 2, 3: a progression all along
        assert_eq!(distinct_sums(&[(3, 2), (2, 2), (1, 2)]), Some(7));
        // {0, 3, 4, 7} is a spread, and 5 lies inside it
        assert_eq!(distinct_sums(&[(3, 2), (4, 2)]), Some(4));
        assert_eq!(distinct_sums(&[(3, 2), (5, 2), (4, 2)]), None);
    }
}
