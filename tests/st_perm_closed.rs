//! The closed forms of an identity map's latency and storage (`st::perm::closed`) equal
//! the per-atom definitions on random pairs of layouts of one type: every layer in space,
//! in time with idle clocks, or split between the two either way round (lanes outside
//! time too, where flat order is not clock order), with outer idle clocks evening the
//! periods, as Aetherling's Unpartition search builds them; and transposes, whose storage
//! takes the same closed form (each input atom is read once). Where a closed form declines
//! (`None`), `Perm` walks the atoms; it must then be for a stated reason.

use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use tessera::seq::types::ScalarType;
use tessera::st::perm::closed::{
    bijection_max_live, identity_latency, identity_max_live, identity_sources,
};
use tessera::st::perm::crossing::{blocks, crossing_latency, crossing_sources, Block};
use tessera::st::perm::sumset::distinct_sums;
use tessera::st::perm::{clock_of_atoms, transposed, Perm};
use tessera::st::{Layout, StOp};

/// `max(0, max_o tin(o) - tout(o))`, atom by atom.
fn walked_latency(input: &Layout, output: &Layout) -> u64 {
    walked_latency_of(input, output, |o| o)
}

/// `max(0, max_o tin(src o) - tout(o))`, atom by atom.
fn walked_latency_of(input: &Layout, output: &Layout, src: impl Fn(u64) -> u64) -> u64 {
    let (tin, tout) = (clock_of_atoms(input), clock_of_atoms(output));
    tout.iter()
        .enumerate()
        .map(|(o, t)| tin[src(o as u64) as usize].saturating_sub(*t))
        .max()
        .unwrap_or(0)
}

/// The most atoms held at once, periods back to back: atom `o` is held on the clocks
/// `tin(o)+1 ..= tout(o)+latency`, folded onto one period (a difference per clock).
fn walked_max_live(input: &Layout, output: &Layout, latency: u64) -> u64 {
    walked_max_live_of(input, output, latency, |o| o)
}

/// [`walked_max_live`] of the map reading input atom `src(o)` for output atom `o`.
fn walked_max_live_of(
    input: &Layout,
    output: &Layout,
    latency: u64,
    src: impl Fn(u64) -> u64,
) -> u64 {
    let p = input.clocks();
    let (tin, tout) = (clock_of_atoms(input), clock_of_atoms(output));
    let (mut diff, mut everywhere) = (vec![0i64; p as usize + 1], 0i64);
    for (o, t) in tout.iter().enumerate() {
        let (i, o) = (&tin[src(o as u64) as usize], t);
        let (first, len) = (i + 1, (o + latency + 1).saturating_sub(i + 1));
        everywhere += (len / p) as i64;
        let (start, end) = (first % p, first % p + len % p);
        diff[start as usize] += 1;
        if end <= p {
            diff[end as usize] -= 1;
        } else {
            diff[p as usize] -= 1;
            diff[0] += 1;
            diff[(end - p) as usize] -= 1;
        }
    }
    let (mut acc, mut best) = (everywhere, 0i64);
    for d in &diff[..p as usize] {
        acc += d;
        best = best.max(acc);
    }
    best as u64
}

/// The input lane of every flat atom of a layout (row-major over its lanes).
fn lane_of_atoms(l: &Layout) -> Vec<u64> {
    fn push(l: &Layout, base: u64, out: &mut Vec<u64>) {
        match l {
            Layout::SSeq(n, t) | Layout::STuple(n, t) => {
                for j in 0..*n {
                    push(t, base + j * t.lanes(), out);
                }
            }
            Layout::TSeq(n, _, t) => {
                for _ in 0..*n {
                    push(t, base, out);
                }
            }
            _ => out.push(base),
        }
    }
    let mut out = Vec::new();
    push(l, 0, &mut out);
    out
}

/// The distinct (input lane, delay `tout(o) + latency - tin(o)`) pairs an identity map's
/// reads make, and the sum over input lanes of each one's largest delay, atom by atom.
fn walked_sources(input: &Layout, output: &Layout, latency: u64) -> (u64, u64) {
    let (tin, tout) = (clock_of_atoms(input), clock_of_atoms(output));
    let lane = lane_of_atoms(input);
    let pairs: BTreeSet<(u64, u64)> = (0..tin.len())
        .map(|o| (lane[o], tout[o] + latency - tin[o]))
        .collect();
    let mut most = BTreeMap::new();
    for &(l, d) in &pairs {
        most.insert(l, d);
    }
    (pairs.len() as u64, most.values().sum())
}

/// `Perm::lane_sources` of an identity map by its definition, atom by atom: the number of
/// distinct (input lane, delay) pairs each output lane reads -> the number of output lanes
/// with that many, and the sum over input lanes of each one's largest delay.
fn walked_lane_sources(input: &Layout, output: &Layout, latency: u64) -> (Vec<(u64, u64)>, u64) {
    let (tin, tout) = (clock_of_atoms(input), clock_of_atoms(output));
    let (lane_in, lane_out) = (lane_of_atoms(input), lane_of_atoms(output));
    let mut per_lane = vec![BTreeSet::new(); output.lanes() as usize];
    let mut most = BTreeMap::new();
    for o in 0..tin.len() {
        let d = tout[o] + latency - tin[o];
        per_lane[lane_out[o] as usize].insert((lane_in[o], d));
        let m = most.entry(lane_in[o]).or_insert(0);
        *m = d.max(*m);
    }
    let mut counts = BTreeMap::new();
    for l in &per_lane {
        *counts.entry(l.len() as u64).or_insert(0u64) += 1;
    }
    (counts.into_iter().collect(), most.values().sum())
}

/// The number of distinct `Σ c·e` (`e < f`) by listing them.
fn counted_sums(terms: &[(u64, u64)]) -> u64 {
    let mut sums = BTreeSet::from([0u64]);
    for &(c, f) in terms {
        sums = sums
            .iter()
            .flat_map(|s| (0..f).map(move |e| s + c * e))
            .collect();
    }
    sums.len() as u64
}

/// One `seq` layer of length `n` laid out by `how`: (form, divisor pick, idle clocks).
fn layer(n: u64, (form, pick, idle): (u8, usize, u64), inner: Layout) -> Layout {
    let divisors: Vec<u64> = (1..=n).filter(|d| n.is_multiple_of(*d)).collect();
    let a = divisors[pick % divisors.len()];
    match form % 4 {
        0 => Layout::sseq(n, inner),
        1 => Layout::tseq(n, idle, inner),
        2 => Layout::tseq(a, idle, Layout::sseq(n / a, inner)),
        _ => Layout::sseq(a, Layout::tseq(n / a, idle, inner)),
    }
}

fn build(lens: &[u64], how: &[(u8, usize, u64)]) -> Layout {
    lens.iter()
        .zip(how)
        .rev()
        .fold(Layout::Scalar(ScalarType::Int8), |acc, (&n, &h)| {
            layer(n, h, acc)
        })
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// `l` with outer idle clocks up to `clocks` (a multiple of its own).
fn padded(l: Layout, clocks: u64) -> Layout {
    let c = l.clocks();
    if c == clocks {
        l
    } else {
        Layout::tseq(1, clocks / c - 1, l)
    }
}

fn layer_how() -> impl Strategy<Value = (u8, usize, u64)> {
    (0u8..4, 0usize..6, 0u64..4)
}

/// Two layouts of one random type, with the same period.
fn pair() -> impl Strategy<Value = (Layout, Layout)> {
    prop::collection::vec(prop::sample::select(vec![1u64, 2, 3, 4, 6, 8, 12]), 1..4)
        .prop_flat_map(|lens| {
            let k = lens.len();
            (
                Just(lens),
                prop::collection::vec(layer_how(), k),
                prop::collection::vec(layer_how(), k),
            )
        })
        .prop_map(|(lens, ha, hb)| even(build(&lens, &ha), build(&lens, &hb)))
}

/// The two layouts with outer idle clocks up to a common period.
fn even(a: Layout, b: Layout) -> (Layout, Layout) {
    let (ca, cb) = (a.clocks(), b.clocks());
    let lcm = ca / gcd(ca, cb) * cb;
    (padded(a, lcm), padded(b, lcm))
}

/// A transpose's layouts, `no` rows of `ni` elements in and `ni` rows of `no` out, with the
/// same period, and `(no, ni)`.
fn transpose_pair() -> impl Strategy<Value = (Layout, Layout, u64, u64)> {
    let lens = prop::sample::select(vec![1u64, 2, 3, 4, 6]);
    (
        lens.clone(),
        lens,
        prop::collection::vec(prop::sample::select(vec![1u64, 2, 3]), 0..2),
    )
        .prop_flat_map(|(no, ni, elem)| {
            let k = elem.len() + 2;
            (
                Just((no, ni, elem)),
                prop::collection::vec(layer_how(), k),
                prop::collection::vec(layer_how(), k),
            )
        })
        .prop_map(|((no, ni, elem), ha, hb)| {
            let lens_in: Vec<u64> = [no, ni].iter().chain(&elem).copied().collect();
            let lens_out: Vec<u64> = [ni, no].iter().chain(&elem).copied().collect();
            let (a, b) = even(build(&lens_in, &ha), build(&lens_out, &hb));
            (a, b, no, ni)
        })
}

/// A layout of a random type against one sequence of as many atoms, `k` lanes (`k` any
/// divisor) streamed over `n / k` clocks with idle ones: lane counts that do not nest in
/// the other layout's boundaries, as Aetherling's frame-sized reshapes into
/// `(tseq 230400 0 (sseq 9 ..))` from 20 lanes.
fn crossing_pair() -> impl Strategy<Value = (Layout, Layout)> {
    prop::collection::vec(
        prop::sample::select(vec![1u64, 2, 3, 4, 5, 6, 9, 10, 12]),
        1..4,
    )
    .prop_flat_map(|lens| {
        let k = lens.len();
        (
            Just(lens),
            prop::collection::vec(layer_how(), k),
            (0u8..3, 0usize..64, 0u64..3, 0u64..3),
        )
    })
    .prop_map(|(lens, ha, (form, pick, idle, gap))| {
        let n: u64 = lens.iter().product();
        let divisors: Vec<u64> = (1..=n).filter(|d| n.is_multiple_of(*d)).collect();
        let k = divisors[pick % divisors.len()];
        let int = Layout::Scalar(ScalarType::Int8);
        let out = match form {
            0 => Layout::tseq(n / k, idle, Layout::sseq(k, int)),
            1 => Layout::tseq(n / k, idle, Layout::tseq(1, gap, Layout::sseq(k, int))),
            _ => Layout::sseq(k, Layout::tseq(n / k, idle, int)),
        };
        even(build(&lens, &ha), out)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Over the blocks between common cuts (`st::perm::crossing`), the least latency and
    /// each output lane's count of (input lane, delay) pairs with the input lanes' largest
    /// delays equal the walk, where the digits nest and where they cross; the latency always
    /// answers, and so do the sources unless nested digits add delays of their own (then
    /// the sums may take no closed form); `Perm` agrees with the walk.
    #[test]
    fn crossing_forms_equal_the_walk(
        (a, b) in prop_oneof![pair(), crossing_pair()],
        extra in 0u64..5,
    ) {
        prop_assume!(a.clocks() <= 20_000);
        let want = walked_latency(&a, &b);
        prop_assert_eq!(crossing_latency(&a, &b, u64::MAX), Some(want), "{} -> {}", a, b);
        let lat = want + extra;
        let walked = walked_lane_sources(&a, &b, lat);
        let blocks = blocks(&a, &b, u64::MAX).expect("one type");
        match crossing_sources(&a, &b, lat, u64::MAX) {
            Some((counts, most)) => {
                prop_assert_eq!((counts.into_iter().collect::<Vec<_>>(), most), walked, "{} -> {} at {}", a, b, lat);
            }
            // only sums of nested time digits' delays decline
            None => prop_assert!(
                blocks.iter().any(|k| matches!(k, Block::Nested(_, x, y) if *x != 0 && *y != 0 && x != y)),
                "{} -> {} at {}", a, b, lat
            ),
        }
        if want > 0 {
            prop_assert_eq!(crossing_sources(&a, &b, want - 1, u64::MAX), None);
        }
        let op = StOp::Reshape { from: a.clone(), to: b.clone() };
        let p = Perm::of(&op, &a, &b).expect("a reshape moves data");
        prop_assert_eq!(p.latency, want);
        let (counts, most) = walked_lane_sources(&a, &b, p.latency);
        let src = p.lane_sources(None, None);
        prop_assert_eq!(src.counts.into_iter().collect::<Vec<_>>(), counts);
        prop_assert_eq!(src.tap_atoms, most);
    }

    /// The closed latency is the walked one wherever it answers; it declines only when
    /// the two flat-index digit systems cross (a boundary of one neither divides nor is a
    /// multiple of a boundary of the other), never for a layout against itself.
    #[test]
    fn closed_latency_equals_the_walk((a, b) in pair()) {
        prop_assume!(a.clocks() <= 20_000);
        match identity_latency(&a, &b) {
            Some(lat) => prop_assert_eq!(lat, walked_latency(&a, &b), "{} -> {}", a, b),
            None => prop_assert!(a != b, "{}", a),
        }
        prop_assert_eq!(identity_latency(&a, &a), Some(0));
    }

    /// The closed storage is the walked one at the least latency and later ones, taken
    /// along either layout's runs (the input's or the output's, whichever are fewer); the
    /// identity form declines below the least latency, and `Perm` (which uses the closed
    /// form, also where the digits cross and the least latency is walked) agrees with the
    /// walk.
    #[test]
    fn closed_storage_equals_the_walk((a, b) in pair(), extra in 0u64..5) {
        prop_assume!(a.clocks() <= 20_000);
        let lat = walked_latency(&a, &b);
        for l in [lat, lat + extra] {
            let want = walked_max_live(&a, &b, l);
            let got = bijection_max_live(&a, &b, l, usize::MAX);
            prop_assert_eq!(got, Some(want), "{} -> {} at {}", a, b, l);
            if identity_latency(&a, &b).is_some() {
                prop_assert_eq!(identity_max_live(&a, &b, l, usize::MAX), Some(want));
            }
        }
        if lat > 0 {
            prop_assert_eq!(identity_max_live(&a, &b, lat - 1, usize::MAX), None);
        }
        let op = StOp::Reshape { from: a.clone(), to: b.clone() };
        let p = Perm::of(&op, &a, &b).expect("a reshape moves data");
        prop_assert_eq!(p.latency, lat);
        prop_assert_eq!(p.max_live_atoms(), walked_max_live(&a, &b, lat));
    }

    /// The closed count of distinct (input lane, delay) pairs each output lane reads and
    /// the sum of the input lanes' largest delays equal the walk's wherever it answers,
    /// into single- and multi-lane layouts alike, and so does `Perm::lane_sources` (which
    /// uses it on large layouts, the walk on small ones); it answers for a layout against
    /// itself.
    #[test]
    fn closed_sources_equal_the_walk((a, b) in pair(), extra in 0u64..5) {
        prop_assume!(a.clocks() <= 20_000);
        let lat = walked_latency(&a, &b) + extra;
        let (counts, most) = walked_lane_sources(&a, &b, lat);
        match identity_sources(&a, &b, lat) {
            Some((n, got_most)) => {
                prop_assert_eq!(vec![(n, b.lanes())], counts, "{} -> {} at {}", a, b, lat);
                prop_assert_eq!(got_most, most, "{} -> {} at {}", a, b, lat);
            }
            None => prop_assert!(a != b),
        }
        let op = StOp::Reshape { from: a.clone(), to: b.clone() };
        let p = Perm::of(&op, &a, &b).expect("a reshape moves data");
        let (counts, most) = walked_lane_sources(&a, &b, p.latency);
        let src = p.lane_sources(None, None);
        prop_assert_eq!(src.counts.into_iter().collect::<Vec<_>>(), counts);
        prop_assert_eq!(src.tap_atoms, most);
    }

    /// The closed count of distinct sums equals the listed one wherever it answers, and it
    /// answers for any two terms (two progressions) and for terms that grow past all the
    /// smaller ones reach.
    #[test]
    fn distinct_sums_equal_the_listed_ones(
        terms in prop::collection::vec((0u64..40, 1u64..30), 0..5),
    ) {
        let got = distinct_sums(&terms);
        if let Some(n) = got {
            prop_assert_eq!(n, counted_sums(&terms), "{:?}", terms);
        }
        let mut sorted: Vec<(u64, u64)> = terms.iter().copied().filter(|t| t.0 > 0 && t.1 > 1).collect();
        sorted.sort_unstable();
        let growing = sorted
            .iter()
            .scan(0u64, |reach, &(c, f)| {
                let past = c > *reach;
                *reach += c * (f - 1);
                Some(past)
            })
            .skip(2)
            .all(|past| past);
        if growing {
            prop_assert!(got.is_some(), "{:?}", terms);
        }
    }

    /// A transpose reads each input atom once, so its storage takes the same closed form:
    /// equal to the walk of the transposed map at its least latency and later ones, and so
    /// is `Perm`'s.
    #[test]
    fn closed_storage_of_a_transpose_equals_the_walk(
        (a, b, no, ni) in transpose_pair(),
        extra in 0u64..5,
    ) {
        prop_assume!(a.clocks() <= 20_000);
        let elem = a.atoms() / (no * ni);
        let src = |o| transposed(no, ni, elem, o);
        let lat = walked_latency_of(&a, &b, src);
        for l in [lat, lat + extra] {
            let got = bijection_max_live(&a, &b, l, usize::MAX);
            let want = walked_max_live_of(&a, &b, l, src);
            prop_assert_eq!(got, Some(want), "{} -> {} at {}", a, b, l);
        }
        let op = StOp::Transpose { no, ni, from: a.clone(), to: b.clone() };
        let p = Perm::of(&op, &a, &b).expect("a transpose moves data");
        prop_assert_eq!(p.latency, lat);
        prop_assert_eq!(p.max_live_atoms(), walked_max_live_of(&a, &b, lat, src));
    }
}

/// A frame-sized case of Aetherling's search at s = 64800 (camera): a reshape between a
/// layout with idle clocks in every row and a fully streamed one, 64800 atoms, takes its
/// closed forms along the output's one run and they equal the walk.
#[test]
fn a_frame_sized_reshape_takes_the_closed_forms() {
    let int = || Layout::Scalar(ScalarType::Int8);
    let a = Layout::tseq(540, 900, Layout::tseq(40, 5, Layout::sseq(3, int())));
    let b = Layout::tseq(64800, 0, int());
    let lat = identity_latency(&a, &b).expect("nested digits");
    assert_eq!(lat, walked_latency(&a, &b));
    let live = identity_max_live(&a, &b, lat, 1).expect("one output run");
    assert_eq!(live, walked_max_live(&a, &b, lat));
    assert!(live > 0);
    // no run allowed: the caller walks instead
    assert_eq!(identity_max_live(&a, &b, lat, 0), None);
}

/// As camera's frame at s = 8294400, a tenth of it: a pixel every fourth clock read out in
/// the first quarter of the next frame. The input has a run per clock, twice its atoms
/// (so the previous closed form walked it); the output's two runs suffice.
#[test]
fn a_reshape_with_a_run_per_clock_takes_the_output_runs() {
    let int = || Layout::Scalar(ScalarType::Int8);
    let a = Layout::tseq(207_360, 0, Layout::tseq(1, 3, int()));
    let b = Layout::tseq(207_360, 622_080, int());
    let lat = identity_latency(&a, &b).expect("nested digits");
    assert_eq!(lat, walked_latency(&a, &b));
    let live = identity_max_live(&a, &b, lat, 2).expect("two output runs");
    assert_eq!(live, walked_max_live(&a, &b, lat));
    assert!(live > 0);
    let op = StOp::Reshape {
        from: a.clone(),
        to: b.clone(),
    };
    assert_eq!(Perm::of(&op, &a, &b).unwrap().max_live_atoms(), live);
}

/// Demosaic's frame at s = 4147200, a tenth of it: a pixel every other clock read out in
/// the first half of the next frame; the closed count of the read delays (one per pixel)
/// and `Perm`'s lane sources equal the walk.
#[test]
fn a_frame_sized_reshape_counts_its_delays_in_closed_form() {
    let int = || Layout::Scalar(ScalarType::Int8);
    let a = Layout::tseq(207_360, 0, Layout::tseq(1, 1, int()));
    let b = Layout::tseq(207_360, 207_360, int());
    let lat = walked_latency(&a, &b);
    let want = walked_sources(&a, &b, lat);
    assert_eq!(want.0, 207_360);
    assert_eq!(identity_sources(&a, &b, lat), Some(want));
    let op = StOp::Reshape {
        from: a.clone(),
        to: b.clone(),
    };
    let src = Perm::of(&op, &a, &b)
        .unwrap()
        .lane_sources(Some(1000), None);
    assert_eq!(src.counts.into_iter().collect::<Vec<_>>(), vec![(1000, 1)]);
    assert_eq!(src.tap_atoms, want.1);
}

/// Demosaic's frame at s = 4147200, a tenth of its rows: two lanes in, every other row
/// slot idle, one lane out; the closed count of (lane, delay) pairs and the lanes' largest
/// delays, and `Perm`'s lane sources, equal the walk.
#[test]
fn a_two_lane_frame_sized_reshape_counts_its_sources_in_closed_form() {
    let int = || Layout::Scalar(ScalarType::Int8);
    let a = Layout::tseq(54, 74, Layout::tseq(192, 132, Layout::sseq(2, int())));
    let b = Layout::tseq(20_736, 20_736, int());
    let lat = walked_latency(&a, &b);
    let want = walked_sources(&a, &b, lat);
    assert_eq!(identity_sources(&a, &b, lat), Some(want));
    let op = StOp::Reshape {
        from: a.clone(),
        to: b.clone(),
    };
    let src = Perm::of(&op, &a, &b).unwrap().lane_sources(None, None);
    assert_eq!(
        src.counts.into_iter().collect::<Vec<_>>(),
        vec![(want.0, 1)]
    );
    assert_eq!(src.tap_atoms, want.1);
}

/// Demosaic's frame at s = 4147200 as Aetherling's Unpartition search costs it: five
/// pixels a clock in rows of 768 clocks with idle clocks after each row, read one pixel a
/// clock in the second half of the period. The delay coefficients (4 per pixel, 210 per
/// row, by size 2 and 105 over their common factor) neither fill a range nor grow as a
/// mixed radix: the two progressions' count, which the walk took 0.1 to 0.5 s for each of
/// about 700 candidates, equals the walk.
#[test]
fn demosaics_frame_counts_its_interleaved_delays_in_closed_form() {
    let int = || Layout::Scalar(ScalarType::Int8);
    let a = Layout::tseq(
        540,
        484,
        Layout::tseq(1, 4, Layout::tseq(768, 42, Layout::sseq(5, int()))),
    );
    let b = Layout::tseq(2_073_600, 2_073_600, int());
    let op = StOp::Reshape {
        from: a.clone(),
        to: b.clone(),
    };
    let p = Perm::of(&op, &a, &b).unwrap();
    let want = walked_sources(&a, &b, p.latency);
    assert_eq!(want.0, 5 * (768 * 540 - (768 - 105) * (540 - 2)));
    assert_eq!(identity_sources(&a, &b, p.latency), Some(want));
    let src = p.lane_sources(None, None);
    assert_eq!(
        src.counts.into_iter().collect::<Vec<_>>(),
        vec![(want.0, 1)]
    );
    assert_eq!(src.tap_atoms, want.1);
}

/// Camera's frame at s = 8294400, a tenth of it: three lanes in and out, a pixel every
/// other clock read out one every fourth; each output lane's count of (input lane, delay)
/// pairs and `Perm`'s lane sources equal the walk.
#[test]
fn a_multi_lane_output_counts_each_lanes_sources_in_closed_form() {
    let int = || Layout::Scalar(ScalarType::Int8);
    let pixel = || Layout::sseq(3, Layout::tseq(1, 1, int()));
    let a = Layout::tseq(207_360, 207_360, pixel());
    let b = Layout::tseq(207_360, 0, Layout::tseq(1, 1, pixel()));
    let op = StOp::Reshape {
        from: a.clone(),
        to: b.clone(),
    };
    let p = Perm::of(&op, &a, &b).unwrap();
    let (counts, most) = walked_lane_sources(&a, &b, p.latency);
    assert_eq!(counts, vec![(207_360, 3)]);
    assert_eq!(identity_sources(&a, &b, p.latency), Some((207_360, most)));
    let src = p.lane_sources(Some(1000), None);
    assert_eq!(src.counts.into_iter().collect::<Vec<_>>(), vec![(1000, 3)]);
    assert_eq!(src.tap_atoms, most);
}

/// Demosaic's frame at s = 230400 as Aetherling's Unpartition search costs it, a tenth of
/// each row's lanes: 2 lanes in rows of 192 clocks with idle ones, into 9 lanes a clock.
/// The digits cross (2 and 384 against 9) only below 1152 of the 207360 atoms: the
/// crossing block's table gives the latency and each output lane's sources, equal to the
/// walk, and `Perm` takes them.
#[test]
fn lanes_that_do_not_nest_count_their_sources_over_the_crossing_block() {
    let int = || Layout::Scalar(ScalarType::Int8);
    let a = Layout::tseq(540, 484, Layout::tseq(192, 33, Layout::sseq(2, int())));
    let b = Layout::tseq(23_040, 207_360, Layout::sseq(9, int()));
    assert_eq!(a.clocks(), b.clocks());
    assert_eq!(identity_latency(&a, &b), None);
    let crossing: Vec<u64> = blocks(&a, &b, u64::MAX)
        .expect("one atom count")
        .iter()
        .filter_map(|k| match k {
            Block::Crossing(i, _) => Some(i.iter().map(|d| d.0).product()),
            Block::Nested(..) => None,
        })
        .collect();
    assert_eq!(crossing, vec![1152]);
    let lat = crossing_latency(&a, &b, 1152).expect("a block of 1152");
    assert_eq!(lat, walked_latency(&a, &b));
    assert_eq!(crossing_latency(&a, &b, 1151), None);
    let want = walked_lane_sources(&a, &b, lat);
    let (counts, most) = crossing_sources(&a, &b, lat, 1152).expect("no nested time sums");
    assert_eq!((counts.into_iter().collect::<Vec<_>>(), most), want);
    let op = StOp::Reshape {
        from: a.clone(),
        to: b.clone(),
    };
    let p = Perm::of(&op, &a, &b).unwrap();
    assert_eq!(p.latency, lat);
    let src = p.lane_sources(None, None);
    assert_eq!(src.counts.into_iter().collect::<Vec<_>>(), want.0);
    assert_eq!(src.tap_atoms, want.1);
}

/// What measuring a movement's area walks, which the stream graph bounds (`reshape_atoms`):
/// a buffered transpose of a whole 1920x1080 frame (rows of three pixels turned into three
/// rows, each over time) walks every atom, where a line buffer's row shift over the same
/// frame reduces to a few periods, and an identity map takes its closed forms.
#[test]
fn a_frame_sized_transpose_is_costly_to_measure_and_a_line_buffer_is_not() {
    let px = || Layout::Scalar(ScalarType::UInt32);
    let a = Layout::tseq(691_200, 0, Layout::tseq(3, 0, px()));
    let b = Layout::tseq(3, 0, Layout::tseq(691_200, 0, px()));
    let op = StOp::Transpose {
        no: 691_200,
        ni: 3,
        from: a.clone(),
        to: b.clone(),
    };
    let transpose = Perm::of(&op, &a, &b).expect("a transpose moves data");
    assert!(transpose.sources_analysis_atoms() > 1 << 16);
    let frame = Layout::tseq(2_073_600, 0, px());
    let shift = StOp::ShiftT {
        n: 2_073_600,
        i: 0,
        amount: 1920,
        elem: px(),
        init: None,
    };
    let row = Perm::of(&shift, &frame, &frame).expect("a shift moves data");
    assert!(
        row.sources_analysis_atoms() <= 1 << 16,
        "{}",
        row.sources_analysis_atoms()
    );
    let c = Layout::tseq(540, 900, Layout::tseq(40, 5, Layout::sseq(3, px())));
    let d = Layout::tseq(64_800, 0, px());
    let reshape = StOp::Reshape {
        from: c.clone(),
        to: d.clone(),
    };
    let identity = Perm::of(&reshape, &c, &d).expect("a reshape moves data");
    assert_eq!(
        identity.sources_analysis_atoms(),
        Perm::reshape_analysis_atoms(&c, &d)
    );
    // asked before a node is measured, without the latency walk `Perm::of` does first
    for (op, from, to, p) in [
        (&op, &a, &b, &transpose),
        (&shift, &frame, &frame, &row),
        (&reshape, &c, &d, &identity),
    ] {
        let got = Perm::sources_analysis_atoms_of(op, from, to);
        assert_eq!(got, Some(p.sources_analysis_atoms()), "{}", op.name());
    }
    assert_eq!(
        Perm::sources_analysis_atoms_of(&StOp::ATuple, &frame, &frame),
        None,
        "an operator that moves no data has no such walk"
    );
}
