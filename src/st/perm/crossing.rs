//! An identity map's least latency and lane sources where the two layouts' flat-index
//! digits cross, in time that follows the crossings' extent, not the atom count.
//!
//! [`super::closed`] needs a common refinement of the two digit systems: every boundary of
//! one divides or is divided by every boundary of the other. Aetherling's reshapes at
//! frame-scale slowdowns often have none (`(tseq 540 484 (tseq 192 33 (sseq 20 ..)))` into
//! `(tseq 230400 0 (sseq 9 ..))`: 20 lanes against 9), yet their digits cross only inside
//! a small stretch of the index. This module cuts the flat index at the **common cuts**: a
//! value `M` (dividing the atom count) is a cut of a layout when it falls between two of
//! its boundaries that it divides and is divided by (`b_j | M | b_{j+1}`), so that a
//! digit splits there into a part below `M` and one above. Between two consecutive common
//! cuts `c | M` lies a **block**, whose digits `e < M/c` are independent of the others':
//!
//! - **nested**: both layouts have one digit there (`M` divides both next boundaries):
//!   the index's time in each is a clock step times `e`, as in the common refinement;
//! - **crossing**: the two layouts' boundaries inside do not nest; its `M/c` settings are
//!   tabulated (input lane, output lane, `tout - tin`), which costs `M/c`, a few thousand
//!   where the whole index is millions (demosaic at s = 230400: 11520 of 2073600).
//!
//! The next common cut after `c` is found without listing divisors: the valid cuts of one
//! layout that are multiples of `x` are exactly the multiples of the least of them,
//! `lcm(x, b_j)` for the first `j` where that divides `b_{j+1}`; alternating the two
//! layouts from a next boundary reaches the least common cut above it.
//!
//! Over the blocks, `tout - tin` is a sum of independent parts, so the least latency is the
//! sum of the parts' largest `tin - tout`. An output lane fixes its lane digits; the
//! (input lane, delay) pairs it reads are, for each setting of the crossing blocks' input
//! lanes, a set `D` of the crossing part's delays plus the nested time digits' sums `T`:
//! `|D + T|` is counted over `D`'s residues when `T` is a progression (intervals per
//! residue, merged), then grown by terms that clear everything below them (disjoint
//! copies); other shapes decline (`None`) and the caller walks the atoms.

use super::sumset::distinct_sums;
use crate::st::layout::Layout;
use std::collections::BTreeMap;

/// A layout's flat-index digits, innermost first, as spans of the index: (place value,
/// place value of the next digit, clocks per step; 0 for lanes). Lengths of one dropped.
fn spans(l: &Layout) -> Vec<(u64, u64, u64)> {
    let mut out = Vec::new();
    let mut place = 1u64;
    for (n, step) in super::closed::digits(l) {
        out.push((place, place * n, step));
        place *= n;
    }
    out
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The least cut of a layout that is a multiple of `x` (`x` divides the atom count): every
/// other is a multiple of it (module comment).
fn up(spans: &[(u64, u64, u64)], x: u64) -> u64 {
    for &(lo, hi, _) in spans {
        if let Some(l) = (x / gcd(x, lo)).checked_mul(lo) {
            if hi.is_multiple_of(l) {
                return l;
            }
        }
    }
    x
}

/// The span of `spans` in which the cut `c` lies, below its upper end.
fn at(spans: &[(u64, u64, u64)], c: u64) -> (u64, u64, u64) {
    *spans
        .iter()
        .find(|s| s.0 <= c && c < s.1)
        .expect("a cut below the atom count lies in a digit")
}

/// One block of the flat index between two consecutive common cuts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// One digit of both layouts: (length, clocks per step in the input, in the output).
    Nested(u64, u64, u64),
    /// Digits that cross: each layout's digits within, innermost first, as (length, clocks
    /// per step; 0 for lanes).
    Crossing(Vec<(u64, u64)>, Vec<(u64, u64)>),
}

/// The blocks of the two layouts' flat index, innermost first; `None` when the atom counts
/// differ or the crossing blocks span more than `cap` settings together.
pub fn blocks(input: &Layout, output: &Layout, cap: u64) -> Option<Vec<Block>> {
    let n = input.atoms();
    if output.atoms() != n {
        return None;
    }
    let (a, b) = (spans(input), spans(output));
    let fix = |mut x: u64| loop {
        let y = up(&b, up(&a, x));
        if y == x {
            return x;
        }
        x = y;
    };
    let within = |s: &[(u64, u64, u64)], c: u64, m: u64| -> Vec<(u64, u64)> {
        s.iter()
            .filter_map(|&(lo, hi, step)| {
                let (l, h) = (lo.max(c), hi.min(m));
                (l < h).then(|| (h / l, step * (l / lo)))
            })
            .collect()
    };
    let (mut out, mut c, mut tabled) = (Vec::new(), 1u64, 1u64);
    while c < n {
        let (la, ha, sa) = at(&a, c);
        let (lb, hb, sb) = at(&b, c);
        let g = gcd(ha, hb) / c;
        if g > 1 {
            out.push(Block::Nested(g, sa * (c / la), sb * (c / lb)));
            c *= g;
        } else {
            let m = fix(ha).min(fix(hb));
            tabled = tabled.saturating_mul(m / c);
            if tabled > cap {
                return None;
            }
            out.push(Block::Crossing(within(&a, c, m), within(&b, c, m)));
            c = m;
        }
    }
    Some(out)
}

/// Calls `f(lane, clock)` for every setting of `digits` (innermost first), in flat order:
/// the lane numbered mixed-radix over the lane digits, the clock the time digits' sum.
fn settings(digits: &[(u64, u64)], mut f: impl FnMut(u64, u64)) {
    let total: u64 = digits.iter().map(|d| d.0).product();
    let lane_step: Vec<u64> = digits
        .iter()
        .scan(1u64, |l, &(n, step)| {
            let s = if step == 0 { *l } else { 0 };
            if step == 0 {
                *l *= n;
            }
            Some(s)
        })
        .collect();
    let mut e = vec![0u64; digits.len()];
    let (mut lane, mut clock) = (0u64, 0u64);
    for _ in 0..total {
        f(lane, clock);
        for (j, &(n, step)) in digits.iter().enumerate() {
            e[j] += 1;
            lane += lane_step[j];
            clock += step;
            if e[j] < n {
                break;
            }
            e[j] = 0;
            lane -= n * lane_step[j];
            clock -= n * step;
        }
    }
}

/// The number of lanes of `digits` (the product of the lane digits' lengths).
fn lanes(digits: &[(u64, u64)]) -> u64 {
    digits.iter().filter(|d| d.1 == 0).map(|d| d.0).product()
}

/// A crossing block's settings: (input lane, output lane, `tout - tin`), in flat order.
fn table(input: &[(u64, u64)], output: &[(u64, u64)]) -> Vec<(u64, u64, i64)> {
    let mut t = Vec::new();
    settings(input, |lane, clock| t.push((lane, 0, -(clock as i64))));
    let mut k = 0;
    settings(output, |lane, clock| {
        t[k].1 = lane;
        t[k].2 += clock as i64;
        k += 1;
    });
    t
}

/// The least latency of the identity map from `input` to `output`, `max_o tin(o) -
/// tout(o)` (at least 0), over the blocks; `None` as [`blocks`].
pub fn crossing_latency(input: &Layout, output: &Layout, cap: u64) -> Option<u64> {
    let mut lat = 0u64;
    for block in blocks(input, output, cap)? {
        lat += match block {
            Block::Nested(f, a, b) => (f - 1) * a.saturating_sub(b),
            Block::Crossing(i, o) => {
                let (mut tin, mut most) = (Vec::new(), 0u64);
                settings(&i, |_, clock| tin.push(clock));
                let mut k = 0;
                settings(&o, |_, clock| {
                    most = most.max(tin[k].saturating_sub(clock));
                    k += 1;
                });
                most
            }
        };
    }
    Some(lat)
}

/// The sources of the identity map from `input` to `output` at `latency` (at least its
/// least latency): the number of distinct (input lane, delay `tout(o) + latency - tin(o)`)
/// pairs an output lane reads -> the number of output lanes reading that many, and the sum
/// over input lanes of the largest delay each is read at. `None` as [`blocks`], below the
/// least latency, or where a count takes no closed form here (module comment).
pub fn crossing_sources(
    input: &Layout,
    output: &Layout,
    latency: u64,
    cap: u64,
) -> Option<(BTreeMap<u64, u64>, u64)> {
    if latency < crossing_latency(input, output, cap)? {
        return None;
    }
    let blocks = blocks(input, output, cap)?;
    // the crossing blocks as one: their settings' product, lanes mixed-radix
    let mut x: Vec<(u64, u64, i64)> = vec![(0, 0, 0)];
    let (mut lanes_in_x, mut lanes_out_x) = (1u64, 1u64);
    // nested digits: delay terms, lanes read, lanes written, largest time part, lane sums
    // (an input lane digit read into output time, `read`, multiplies the pairs)
    let (mut terms, mut read, mut written) = (Vec::new(), 1u64, 1u64);
    let (mut time, mut lane_digits) = (0u128, Vec::new());
    for block in &blocks {
        match *block {
            Block::Nested(f, a, b) => {
                if a != 0 && b != 0 {
                    terms.push((a.abs_diff(b), f));
                }
                if a == 0 {
                    if b != 0 {
                        read *= f;
                    }
                    lane_digits.push((f, b));
                } else {
                    time += u128::from((f - 1) * b.saturating_sub(a));
                }
                if b == 0 {
                    written *= f;
                }
            }
            Block::Crossing(ref i, ref o) => {
                let t = table(i, o);
                let (li, lo) = (lanes(i), lanes(o));
                x = x
                    .iter()
                    .flat_map(|&(a, b, d)| {
                        t.iter().map(move |&(ta, tb, td)| {
                            (a + lanes_in_x * ta, b + lanes_out_x * tb, d + td)
                        })
                    })
                    .collect();
                lanes_in_x *= li;
                lanes_out_x *= lo;
            }
        }
    }
    let nested_in: u64 = lane_digits.iter().map(|d| d.0).product();
    // the largest part per crossing input lane
    let mut most = vec![i64::MIN; lanes_in_x as usize];
    for &(l, _, d) in &x {
        most[l as usize] = most[l as usize].max(d);
    }
    // one output lane's groups together, each input lane's delays sorted and distinct
    x.sort_unstable_by_key(|&(l, v, d)| (v, l, d));
    x.dedup();
    let mut counts = BTreeMap::new();
    let mut per_lane: BTreeMap<u64, u64> = BTreeMap::new();
    let mut k = 0;
    while k < x.len() {
        let (l, v) = (x[k].0, x[k].1);
        let mut e = k;
        while e < x.len() && x[e].0 == l && x[e].1 == v {
            e += 1;
        }
        let delays: Vec<i64> = x[k..e].iter().map(|t| t.2).collect();
        let n = sumset_count(&delays, &terms)?;
        *per_lane.entry(v).or_default() += n;
        k = e;
    }
    for (_, n) in per_lane {
        *counts.entry(n.saturating_mul(read)).or_default() += written;
    }
    // Σ over input lanes of L + time + the crossing part's largest + Σ b·e of the nested
    // lane digits
    let lanes_all = u128::from(lanes_in_x) * u128::from(nested_in);
    let crossing_most: i128 = most.iter().map(|&m| i128::from(m)).sum();
    let lane_sum: u128 = lane_digits
        .iter()
        .map(|&(f, b)| u128::from(b) * u128::from(nested_in / f) * u128::from(f * (f - 1) / 2))
        .sum();
    let taps = (lanes_all * (u128::from(latency) + time)) as i128
        + i128::from(nested_in) * crossing_most
        + (u128::from(lanes_in_x) * lane_sum) as i128;
    Some((counts, u64::try_from(taps).ok()?))
}

/// `|D + T|` for distinct sorted `delays` `D` and `T` the sums `Σ c·e` (`e < f`) of
/// `terms`, or `None` where the module comment's two shapes do not cover it.
fn sumset_count(delays: &[i64], terms: &[(u64, u64)]) -> Option<u64> {
    if delays.len() == 1 {
        return distinct_sums(terms);
    }
    let mut terms: Vec<(i128, i128)> = terms
        .iter()
        .filter(|&&(c, f)| c > 0 && f > 1)
        .map(|&(c, f)| (i128::from(c), i128::from(f)))
        .collect();
    terms.sort_unstable();
    let width = i128::from(delays[delays.len() - 1] - delays[0]);
    let Some(&(step, f0)) = terms.first() else {
        return Some(delays.len() as u64);
    };
    // the longest prefix of terms whose sums are one progression {step·i : i < n}
    let mut n = f0;
    let mut rest = 1;
    while let Some(&(c, f)) = terms.get(rest) {
        if c % step == 0 && c / step <= n {
            n += c / step * (f - 1);
            rest += 1;
        } else {
            break;
        }
    }
    // per residue modulo the step, the union of intervals [q, q + n - 1] of quotients
    let mut keys: Vec<(i128, i128)> = delays
        .iter()
        .map(|&d| {
            (
                i128::from(d).rem_euclid(step),
                i128::from(d).div_euclid(step),
            )
        })
        .collect();
    keys.sort_unstable();
    let mut count = 0i128;
    // (residue, last quotient covered) of the intervals so far
    let mut cover: Option<(i128, i128)> = None;
    for (r, q) in keys {
        let hi = q + n - 1;
        count += match cover {
            Some((cr, end)) if cr == r => (hi - q.max(end + 1) + 1).max(0),
            _ => n,
        };
        cover = Some((r, hi));
    }
    let mut reach = width + step * (n - 1);
    for &(c, f) in &terms[rest..] {
        if c <= reach {
            return None;
        }
        count *= f;
        reach += c * (f - 1);
    }
    u64::try_from(count).ok()
}
