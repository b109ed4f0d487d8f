//! Closed forms of an identity map's latency and storage (reshapes, partitions,
//! (de)serializers), in time that follows the layouts' structure, not their atom count.
//!
//! The periodic reductions ([`super::reduce`]) shrink a shape only where the two layouts'
//! outer periods line up; a frame-sized reshape between two layouts with idle clocks in
//! different places (`tseq 540 900 (tseq 40 5 (sseq 3))` to `tseq 64800 0`, as
//! Aetherling's Unpartition search asks for by the thousand) keeps every atom. These forms
//! need no walk:
//!
//! - **Latency** `max(0, max_o tin(o) - tout(o))`. A layout's flat index is row-major over
//!   its layers, each layer a digit with a clock step (the clocks of what it holds for a
//!   `tseq`, 0 for lanes). When the two digit systems have a common refinement (every
//!   boundary of one divides or is divided by every boundary of the other: they split the
//!   same index at nested places), both times are linear in the same independent digits
//!   `e_j < f_j`, `tin - tout = Σ (a_j - b_j)·e_j`, whose maximum is
//!   `Σ max(0, a_j - b_j)·(f_j - 1)`: one pass over the layers.
//! - **Storage** at latency `L` (frames back to back, period `P`). An atom is held from the
//!   clock after it arrives to its read, so at clock `τ` the atoms held are those arrived
//!   before `τ` less those read before `τ`, whichever atoms they are:
//!   `held(τ) = N_in(τ-1) - N_out(τ-1-L)`, where `N_X(t) = Σ_o floor((t - t_X(o))/P) + A`
//!   counts the atoms of layout `X` placed at clocks up to `t` (over all frames, relative
//!   to one). Each `N` depends on one layout only, through its runs (clocks with the same
//!   number of atoms); between the runs' ends both are affine, so the maximum is at a run's
//!   first or last clock on either side. The cost is the number of runs, which nested
//!   idle clocks keep far below the atom count (a whole valid `tseq` is one run).
//!
//! Both equal the per-atom definitions exactly (`tests/st_perm_closed.rs` compares them
//! on random layouts); where they do not apply (no common refinement, more runs than
//! atoms, periods of different lengths) the caller walks the atoms.

use crate::st::layout::Layout;

/// The layers of `l`'s flat index, innermost first: (length, clocks per step), lengths
/// above one.
fn digits(l: &Layout) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut cur = l;
    loop {
        match cur {
            Layout::SSeq(n, t) | Layout::STuple(n, t) => {
                out.push((*n, 0));
                cur = &**t;
            }
            Layout::TSeq(n, _, t) => {
                out.push((*n, t.clocks()));
                cur = &**t;
            }
            Layout::Scalar(_) | Layout::ATuple(..) => break,
        }
    }
    out.retain(|(n, _)| *n > 1);
    out.reverse();
    out
}

/// The least latency of the identity map from `input` to `output`:
/// `max(0, max_o tin(o) - tout(o))`, or `None` when the two layouts' flat-index digits
/// have no common refinement (or their atom counts differ).
pub fn identity_latency(input: &Layout, output: &Layout) -> Option<u64> {
    if input.atoms() != output.atoms() {
        return None;
    }
    let (a, b) = (digits(input), digits(output));
    let (mut ia, mut ib) = (a.into_iter(), b.into_iter());
    let (mut ha, mut hb) = (ia.next(), ib.next());
    let mut lat = 0u64;
    loop {
        match (ha, hb) {
            (None, None) => return Some(lat),
            (Some((sa, ta)), Some((sb, tb))) => {
                // the inner of the two digits is a factor of the outer one, or the two
                // split the index at places that do not nest
                let f = sa.min(sb);
                if !sa.max(sb).is_multiple_of(f) {
                    return None;
                }
                lat += (f - 1) * ta.saturating_sub(tb);
                ha = if sa == f {
                    ia.next()
                } else {
                    Some((sa / f, ta * f))
                };
                hb = if sb == f {
                    ib.next()
                } else {
                    Some((sb / f, tb * f))
                };
            }
            // equal atom counts end together
            _ => return None,
        }
    }
}

/// A layout's period as runs of clocks with the same number of atoms, in clock order:
/// (clocks, atoms per clock), adjacent runs of equal counts merged; `None` past `cap`
/// runs.
fn runs(l: &Layout, cap: usize) -> Option<Vec<(u64, u64)>> {
    match l {
        Layout::Scalar(_) | Layout::ATuple(..) => Some(vec![(1, 1)]),
        Layout::SSeq(n, t) | Layout::STuple(n, t) => {
            let mut r = runs(t, cap)?;
            for run in &mut r {
                run.1 *= *n;
            }
            Some(r)
        }
        Layout::TSeq(n, i, t) => {
            let inner = runs(t, cap)?;
            let mut r: Vec<(u64, u64)> = Vec::new();
            let push = |r: &mut Vec<(u64, u64)>, (len, k): (u64, u64)| match r.last_mut() {
                Some(last) if last.1 == k => last.0 += len,
                _ => r.push((len, k)),
            };
            if inner.len() == 1 {
                push(&mut r, (inner[0].0 * n, inner[0].1));
            } else {
                if (*n as usize).saturating_mul(inner.len()) > cap {
                    return None;
                }
                for _ in 0..*n {
                    for &run in &inner {
                        push(&mut r, run);
                    }
                }
            }
            if *i > 0 {
                push(&mut r, (i * t.clocks(), 0));
            }
            (r.len() <= cap).then_some(r)
        }
    }
}

/// The count `N_X` of one layout within a period: atoms placed at clocks up to `t`
/// (see the module comment), read in increasing `t` through a cursor.
struct Placed {
    /// Per run: first clock, atoms before it, atoms per clock.
    starts: Vec<(u64, u64, u64)>,
    period: u64,
    atoms: u64,
}

impl Placed {
    fn new(runs: &[(u64, u64)]) -> Placed {
        let (mut clock, mut atoms) = (0, 0);
        let mut starts = Vec::with_capacity(runs.len());
        for &(len, k) in runs {
            starts.push((clock, atoms, k));
            clock += len;
            atoms += len * k;
        }
        Placed {
            starts,
            period: clock,
            atoms,
        }
    }

    /// Atoms at clocks `..= t` of one period (`t < period`), from the run at `*k` on:
    /// the candidates are visited in increasing order (but for one wrap), so the cursor
    /// moves forward and a sweep costs the runs, not a search per candidate.
    fn up_to(&self, t: u64, k: &mut usize) -> u64 {
        if self.starts[*k].0 > t {
            *k = 0;
        }
        while *k + 1 < self.starts.len() && self.starts[*k + 1].0 <= t {
            *k += 1;
        }
        let (c, before, per) = self.starts[*k];
        before + (t - c + 1) * per
    }

    /// The first and last clock of every run.
    fn ends(&self) -> impl Iterator<Item = u64> + '_ {
        let next = self.starts.iter().skip(1).map(|s| s.0).chain([self.period]);
        self.starts.iter().zip(next).flat_map(|(s, e)| [s.0, e - 1])
    }
}

/// The most atoms an identity map from `input` to `output` holds at once at `latency`
/// (frames back to back), or `None` when the closed form does not apply: periods or atom
/// counts differ, `latency` is below [`identity_latency`] (or that has no closed form), or
/// a layout has more than `cap` runs.
pub fn identity_max_live(input: &Layout, output: &Layout, latency: u64, cap: usize) -> Option<u64> {
    let p = input.clocks();
    if output.clocks() != p || latency < identity_latency(input, output)? {
        return None;
    }
    let a = Placed::new(&runs(input, cap)?);
    let b = Placed::new(&runs(output, cap)?);
    // u - latency = u - lr - lq·p: one period back more when u < lr
    let (lq, lr) = (i128::from(latency / p), latency % p);
    let atoms = i128::from(b.atoms);
    let (mut ka, mut kb) = (0, 0);
    let mut held = |u: u64| {
        let (q, r) = match u >= lr {
            true => (-lq, u - lr),
            false => (-lq - 1, u + p - lr),
        };
        i128::from(a.up_to(u, &mut ka)) - (q * atoms + i128::from(b.up_to(r, &mut kb)))
    };
    let mut best = 0i128;
    for u in a.ends() {
        best = best.max(held(u));
    }
    // the output's run ends, `latency` later: one wrap past the period's end
    let shifted: Vec<u64> = b.ends().map(|c| (c + lr) % p).collect();
    let wrap = shifted
        .iter()
        .position(|&u| u < lr)
        .unwrap_or(shifted.len());
    for &u in shifted[wrap..].iter().chain(&shifted[..wrap]) {
        best = best.max(held(u));
    }
    Some(best as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::types::ScalarType;

    fn int() -> Layout {
        ScalarType::Int8.into()
    }

    #[test]
    fn runs_merge_whole_valid_layers() {
        let l = Layout::tseq(540, 900, Layout::tseq(40, 5, Layout::sseq(3, int())));
        let r = runs(&l, 10_000).unwrap();
        assert_eq!(r.len(), 540 * 2);
        assert_eq!(r[0], (40, 3));
        assert_eq!(r.last(), Some(&(5 + 900 * 45, 0)));
        assert_eq!(
            runs(&Layout::tseq(64800, 0, int()), 1),
            Some(vec![(64800, 1)])
        );
        assert_eq!(runs(&l, 100), None);
    }

    #[test]
    fn transposed_digits_have_no_refinement() {
        // index digits 3 x 2 against 2 x 3: the boundaries 2 and 3 do not nest
        let a = Layout::tseq(3, 0, Layout::sseq(2, int()));
        let b = Layout::tseq(2, 0, Layout::sseq(3, int()));
        assert_eq!(identity_latency(&a, &b), None);
        assert_eq!(identity_latency(&a, &a), Some(0));
    }
}
