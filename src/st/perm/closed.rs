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

use super::staircase::Staircase;
use super::sumset::distinct_sums;
use crate::st::layout::Layout;

/// The layers of `l`'s flat index, innermost first: (length, clocks per step), lengths
/// above one.
pub(super) fn digits(l: &Layout) -> Vec<(u64, u64)> {
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

/// A common refinement of the two layouts' flat-index digits, innermost first: (length,
/// clocks per step in `input`, in `output`); `None` when the digits cross (or the atom
/// counts differ).
fn refinement(input: &Layout, output: &Layout) -> Option<Vec<(u64, u64, u64)>> {
    if input.atoms() != output.atoms() {
        return None;
    }
    let (a, b) = (digits(input), digits(output));
    let (mut ia, mut ib) = (a.into_iter(), b.into_iter());
    let (mut ha, mut hb) = (ia.next(), ib.next());
    let mut out = Vec::new();
    loop {
        match (ha, hb) {
            (None, None) => return Some(out),
            (Some((sa, ta)), Some((sb, tb))) => {
                // the inner of the two digits is a factor of the outer one, or the two
                // split the index at places that do not nest
                let f = sa.min(sb);
                if !sa.max(sb).is_multiple_of(f) {
                    return None;
                }
                out.push((f, ta, tb));
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

/// The least latency of the identity map from `input` to `output`:
/// `max(0, max_o tin(o) - tout(o))`, or `None` when the two layouts' flat-index digits
/// have no common refinement (or their atom counts differ).
pub fn identity_latency(input: &Layout, output: &Layout) -> Option<u64> {
    let digits = refinement(input, output)?;
    Some(
        digits
            .iter()
            .map(|&(f, a, b)| (f - 1) * a.saturating_sub(b))
            .sum(),
    )
}

/// The sources of an identity map at `latency` (at least its least latency): the number
/// of distinct (input lane, delay `tout(o) + latency - tin(o)`) pairs each output lane
/// reads (the same for every output lane), and the sum over input lanes of the largest
/// delay each is read at. `None` when the digits cross or the delays' time-digit
/// coefficients are not counted in closed form ([`distinct_sums`]).
///
/// The delay is `latency + Σ (b_j - a_j)·e_j` over the common refinement's digits
/// `e_j < f_j`. An output lane fixes the digits without an output clock step (`b_j = 0`);
/// of the others, those without an input clock step (`a_j = 0`) are input lane digits, a
/// mixed radix, so a pair is one setting of them and a delay of the rest, whose
/// coefficients' sizes (`e -> f - 1 - e` turns a negative one positive) give the number
/// of distinct delays. A lane's largest delay adds `b_j·e_j` of its lane digits to the
/// others' largest, summed over the input lanes.
pub fn identity_sources(input: &Layout, output: &Layout, latency: u64) -> Option<(u64, u64)> {
    let digits = refinement(input, output)?;
    let terms: Vec<(u64, u64)> = digits
        .iter()
        .filter(|&&(_, a, b)| a != 0 && b != 0)
        .map(|&(f, a, b)| (a.abs_diff(b), f))
        .collect();
    let read_lanes: u64 = digits
        .iter()
        .filter(|d| d.1 == 0 && d.2 != 0)
        .map(|d| d.0)
        .product();
    let count = distinct_sums(&terms)?.saturating_mul(read_lanes);
    let lanes: u64 = digits.iter().filter(|d| d.1 == 0).map(|d| d.0).product();
    let time: u64 = digits
        .iter()
        .filter(|d| d.1 != 0)
        .map(|&(f, a, b)| (f - 1) * b.saturating_sub(a))
        .sum();
    // Σ over all lane settings of b_j·e_j: each value of e_j in lanes / f_j settings
    let lane_sum: u64 = digits
        .iter()
        .filter(|d| d.1 == 0)
        .map(|&(f, _, b)| b * (lanes / f) * (f * (f - 1) / 2))
        .sum();
    Some((count, lanes * (latency + time) + lane_sum))
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

/// The runs of `l` (as [`runs`]) as maximal clock ranges: (first clock, last clock, atoms
/// before the range, atoms per clock).
fn spans(runs: &[(u64, u64)]) -> impl Iterator<Item = (u64, u64, u64, u64)> + '_ {
    runs.iter().scan((0u64, 0u64), |(clock, atoms), &(len, k)| {
        let span = (*clock, *clock + len - 1, *atoms, k);
        *clock += len;
        *atoms += len * k;
        Some(span)
    })
}

/// An upper bound on the runs of `l` ([`runs`] before merging), without listing them.
fn runs_bound(l: &Layout) -> u64 {
    match l {
        Layout::Scalar(_) | Layout::ATuple(..) => 1,
        Layout::SSeq(_, t) | Layout::STuple(_, t) => runs_bound(t),
        Layout::TSeq(n, i, t) => {
            let inner = runs_bound(t);
            let valid = if inner == 1 {
                1
            } else {
                n.saturating_mul(inner)
            };
            valid.saturating_add(u64::from(*i > 0))
        }
    }
}

/// The layers of `l` from the outside in: every sub-layout, `l` first.
fn chain(l: &Layout) -> Vec<&Layout> {
    let mut out = vec![l];
    while let Some(t) = out[out.len() - 1].elem() {
        out.push(t);
    }
    out
}

/// `l` with its sub-layout `depth` layers in replaced by `atom` (lanes of a seq-tuple as
/// those of an `sseq`: only clocks and counts matter here).
fn replaced(l: &Layout, depth: usize, atom: &Layout) -> Layout {
    if depth == 0 {
        return atom.clone();
    }
    match l {
        Layout::SSeq(n, t) | Layout::STuple(n, t) => Layout::sseq(*n, replaced(t, depth - 1, atom)),
        Layout::TSeq(n, i, t) => Layout::tseq(*n, *i, replaced(t, depth - 1, atom)),
        Layout::Scalar(_) | Layout::ATuple(..) => l.clone(),
    }
}

/// The largest sub-layout `E` of more than one clock that both layouts end with (the same
/// innermost layers: `E`'s atoms are the innermost digits of both flat indices and take
/// the same clocks within `E`), and the two layouts with `E` as one atom: `(coarse input,
/// coarse output, clocks of E, atoms of E)`.
///
/// An identity map whose latency `L` is a multiple of `E`'s clocks `c` (its least latency
/// is: `tin - tout` is `c` times the elements' difference) holds `atoms(E)` times what the
/// coarse map holds at `L / c`: on the `r`-th clock of a coarse clock `U`, the count held
/// is the count at the end of `U - 1` plus `N_E(r)·(elements arriving at U - elements
/// leaving at U)`, `0 <= N_E(r) <= atoms(E)`, which lies between the counts at the ends of
/// `U - 1` and of `U`. Aetherling's slowdowns below the pixel (`tseq 1 2` around every
/// atom, in both layouts) are what this removes: a run per clock on both sides.
pub fn common_element(input: &Layout, output: &Layout) -> Option<(Layout, Layout, u64, u64)> {
    let (a, b) = (chain(input), chain(output));
    let common = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let e = a[a.len() - common];
    if common == 0 || e.clocks() < 2 {
        return None;
    }
    let atom = e.atom();
    Some((
        replaced(input, a.len() - common, atom),
        replaced(output, b.len() - common, atom),
        e.clocks(),
        e.atoms(),
    ))
}

/// The most atoms an identity map from `input` to `output` holds at once at `latency`
/// (frames back to back), or `None` when the closed form does not apply: periods or atom
/// counts differ, `latency` is below [`identity_latency`] (or that has no closed form), or
/// both layouts have more than `cap` runs.
pub fn identity_max_live(input: &Layout, output: &Layout, latency: u64, cap: usize) -> Option<u64> {
    if input.clocks() != output.clocks() || latency < identity_latency(input, output)? {
        return None;
    }
    identity_storage(input, output, latency, cap)
}

/// [`bijection_max_live`] of an identity map, on the coarse layouts of their
/// [`common_element`] where its clocks divide `latency`.
pub fn identity_storage(input: &Layout, output: &Layout, latency: u64, cap: usize) -> Option<u64> {
    match common_element(input, output) {
        Some((a, b, c, n)) if latency.is_multiple_of(c) => {
            Some(n * bijection_max_live(&a, &b, latency / c, cap)?)
        }
        _ => bijection_max_live(input, output, latency, cap),
    }
}

/// The most atoms held at once at `latency` (frames back to back) by a map that reads
/// every input atom exactly once (identity, transpose), when `latency` is at least the
/// map's least latency (the caller's to know: below it an atom would leave before it
/// arrives, which the count below does not see); `None` when the periods or atom counts
/// differ or both layouts have more than `cap` runs.
///
/// At clock `u` the atoms held are `held(u) = A(u) - B'(u)`: those arrived by `u - 1` less
/// those read by `u - 1` (the module comment's `N_in(τ-1) - N_out(τ-1-L)`, one period
/// `0 <= u < P` on the input's clock, the output's count `B'` taken `L` earlier with the
/// whole frames it has read). On each run of one layout (the one with fewer) its count is
/// a line `k·u + c`, so the largest `held` there is a range extreme of the other layout's
/// count less that line ([`Staircase`]): the cost is the fewer runs, not the atoms.
pub fn bijection_max_live(
    input: &Layout,
    output: &Layout,
    latency: u64,
    cap: usize,
) -> Option<u64> {
    let p = input.clocks();
    if output.clocks() != p || input.atoms() != output.atoms() {
        return None;
    }
    // u - latency = u - lr - lq·p: one period back more when u < lr
    let (lq, lr) = (i128::from(latency / p), latency % p);
    let atoms = i128::from(output.atoms());
    let (p_, lr_) = (i128::from(p), i128::from(lr));
    let mut best = 0i128;
    if runs_bound(output) <= runs_bound(input) {
        // along the output's runs: output clock v is input clock v + lr, or v + lr - p
        // (then one more frame back)
        let a = Staircase::new(input);
        for (c, e, before, k) in spans(&runs(output, cap)?) {
            let (k, before) = (i128::from(k), i128::from(before));
            let split = (p - lr).clamp(c, e + 1);
            let pieces = [(c, split, lr_, -lq), (split, e + 1, lr_ - p_, -lq - 1)];
            for (v0, v1, shift, q) in pieces {
                if v0 < v1 {
                    // B'(u) = q·atoms + before + (u - shift - c + 1)·k = k·u + rest
                    let rest = q * atoms + before + (1 - shift - i128::from(c)) * k;
                    let (u0, u1) = (
                        (i128::from(v0) + shift) as u64,
                        (i128::from(v1 - 1) + shift) as u64,
                    );
                    best = best.max(a.extremes(1, k, u0, u1).1 - rest);
                }
            }
        }
    } else {
        // along the input's runs: A(u) = k·u + rest, less the least B'(u) - k·u
        let b = Staircase::new(output);
        for (c, e, before, k) in spans(&runs(input, cap)?) {
            let (k, before) = (i128::from(k), i128::from(before));
            let rest = before + (1 - i128::from(c)) * k;
            // u >= lr reads output clock u - lr of frame -lq; u < lr, u + p - lr of -lq - 1
            let split = lr.clamp(c, e + 1);
            let pieces = [(c, split, p_ - lr_, -lq - 1), (split, e + 1, -lr_, -lq)];
            for (u0, u1, shift, q) in pieces {
                if u0 < u1 {
                    // B'(u) - k·u = q·atoms + B(v) - k·v + k·shift, v = u + shift
                    let (v0, v1) = (
                        (i128::from(u0) + shift) as u64,
                        (i128::from(u1 - 1) + shift) as u64,
                    );
                    let least = q * atoms + k * shift + b.extremes(1, k, v0, v1).0;
                    best = best.max(rest - least);
                }
            }
        }
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
