//! The closed forms of an identity map's latency and storage (`st::perm::closed`) equal
//! the per-atom definitions on random pairs of layouts of one type: every layer in space,
//! in time with idle clocks, or split between the two either way round (lanes outside
//! time too, where flat order is not clock order), with outer idle clocks evening the
//! periods, as Aetherling's Unpartition search builds them. Where a closed form declines
//! (`None`), `Perm` walks the atoms; it must then be for a stated reason.

use proptest::prelude::*;
use tessera::seq::types::ScalarType;
use tessera::st::perm::closed::{identity_latency, identity_max_live};
use tessera::st::perm::{clock_of_atoms, Perm};
use tessera::st::{Layout, StOp};

/// `max(0, max_o tin(o) - tout(o))`, atom by atom.
fn walked_latency(input: &Layout, output: &Layout) -> u64 {
    let (tin, tout) = (clock_of_atoms(input), clock_of_atoms(output));
    tin.iter()
        .zip(&tout)
        .map(|(i, o)| i.saturating_sub(*o))
        .max()
        .unwrap_or(0)
}

/// The most atoms held at once, periods back to back: atom `o` is held on the clocks
/// `tin(o)+1 ..= tout(o)+latency`, folded onto one period (a difference per clock).
fn walked_max_live(input: &Layout, output: &Layout, latency: u64) -> u64 {
    let p = input.clocks();
    let (tin, tout) = (clock_of_atoms(input), clock_of_atoms(output));
    let (mut diff, mut everywhere) = (vec![0i64; p as usize + 1], 0i64);
    for (i, o) in tin.iter().zip(&tout) {
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
        .prop_map(|(lens, ha, hb)| {
            let (a, b) = (build(&lens, &ha), build(&lens, &hb));
            let (ca, cb) = (a.clocks(), b.clocks());
            let lcm = ca / gcd(ca, cb) * cb;
            (padded(a, lcm), padded(b, lcm))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

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

    /// The closed storage is the walked one at the least latency and later ones; it
    /// declines below the least latency, and `Perm` (which uses it) agrees with the walk.
    #[test]
    fn closed_storage_equals_the_walk((a, b) in pair(), extra in 0u64..5) {
        prop_assume!(a.clocks() <= 20_000);
        let Some(lat) = identity_latency(&a, &b) else {
            return Ok(());
        };
        for l in [lat, lat + extra] {
            let got = identity_max_live(&a, &b, l, usize::MAX);
            prop_assert_eq!(got, Some(walked_max_live(&a, &b, l)), "{} -> {} at {}", a, b, l);
        }
        if lat > 0 {
            prop_assert_eq!(identity_max_live(&a, &b, lat - 1, usize::MAX), None);
        }
        let op = StOp::Reshape { from: a.clone(), to: b.clone() };
        let p = Perm::of(&op, &a, &b).expect("a reshape moves data");
        prop_assert_eq!(p.latency, lat);
        prop_assert_eq!(p.max_live_atoms(), walked_max_live(&a, &b, lat));
    }
}

/// A frame-sized case of Aetherling's search at s = 64800 (camera): a reshape between a
/// layout with idle clocks in every row and a fully streamed one, 64800 atoms, takes its
/// closed forms (1081 runs against one) and they equal the walk.
#[test]
fn a_frame_sized_reshape_takes_the_closed_forms() {
    let int = || Layout::Scalar(ScalarType::Int8);
    let a = Layout::tseq(540, 900, Layout::tseq(40, 5, Layout::sseq(3, int())));
    let b = Layout::tseq(64800, 0, int());
    let lat = identity_latency(&a, &b).expect("nested digits");
    assert_eq!(lat, walked_latency(&a, &b));
    let live = identity_max_live(&a, &b, lat, 2000).expect("1081 runs");
    assert_eq!(live, walked_max_live(&a, &b, lat));
    assert!(live > 0);
    // fewer runs allowed than the input has: the caller walks instead
    assert_eq!(identity_max_live(&a, &b, lat, 1000), None);
}
