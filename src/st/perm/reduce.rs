//! Latency and storage of a data-movement operator from a few periods of its layouts.
//!
//! Both quantities are defined atom by atom ([`super::Perm`]), but the layouts are
//! periodic, so three exact reductions shrink the problem before the atoms are counted:
//!
//! 1. **Common inner lanes.** If both normal forms end in `sseq k1` and `sseq k2` over the
//!    atom, the `g = gcd(k1, k2)` lowest lanes of every clock are the same `g` consecutive
//!    flat atoms in both layouts, moved together (when the map's offset is a multiple of
//!    `g`). Every interval is repeated `g` times: storage is `g` times that of the layouts
//!    with `sseq k/g`, latency is unchanged.
//! 2. **Common outer lanes** (identity maps): likewise for a common factor of the outermost
//!    `sseq` layers, whose digit is the top digit of both flat indices.
//! 3. **Common outer periods** (identity and shift maps): if both normal forms start with
//!    `tseq N1 I1 X1` and `tseq N2 I2 X2` whose valid parts span the same clocks
//!    (`N1·clocks(X1) = N2·clocks(X2)`), both are `M` blocks of `Cb` clocks and `Ab` atoms
//!    followed by `J` idle blocks, for `M = gcd(N1, N2)` when `J` is whole. An atom of block
//!    `j` is read in block `j + u` with `u` depending only on its place in the block, so its
//!    interval is block 0's moved by `j·Cb`. The latency needs only the blocks `0..=u_max`.
//!    For storage, every block starts on a multiple of `Cb` (also across frames, as the
//!    period is `(M + J)·Cb`), so the occupancy at clock `τ` is at most
//!    `F(τ mod Cb) = Σ_z occupancy of block 0's intervals at τ mod Cb + z·Cb`, with equality
//!    where every block that can reach `τ` exists; with `M ≥ 2·u_max + 2 + ceil(lat/Cb)`
//!    such clocks exist for every residue, so the maximum is `max F`, whatever `M` and `J`
//!    are. The layouts are cut to that many blocks (and at most one idle block).
//!
//! `tests/st_perm_periodic.rs` checks the results against the per-atom definitions on
//! thousands of random layouts.

use crate::st::layout::{Layout, Sub};

/// The map of a [`Shape`]: [`super::AtomMap`] without the fill values (fills are never
/// held, so latency and storage do not depend on them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `o -> o`.
    Identity,
    /// `o -> o mod a`.
    Repeat(u64),
    /// `o -> o + off`.
    Offset(u64),
    /// `o -> o - by` for `o >= by` (else a fill).
    Shift(u64),
    /// The transpose of `no` rows of `ni` elements of `a` atoms ([`super::transposed`]).
    Transpose {
        /// Rows of the input.
        no: u64,
        /// Elements per input row.
        ni: u64,
        /// Atoms per element.
        a: u64,
    },
}

impl Kind {
    /// The input atom output atom `o` reads, if any.
    pub fn src(self, o: u64) -> Option<u64> {
        match self {
            Kind::Identity => Some(o),
            Kind::Repeat(a) => Some(o % a),
            Kind::Offset(off) => Some(o + off),
            Kind::Shift(by) => o.checked_sub(by),
            Kind::Transpose { no, ni, a } => Some(super::transposed(no, ni, a, o)),
        }
    }

    /// The map on groups of `g` consecutive atoms, if it moves such groups whole.
    fn grouped(self, g: u64) -> Option<Kind> {
        match self {
            Kind::Identity => Some(Kind::Identity),
            Kind::Repeat(a) if a % g == 0 => Some(Kind::Repeat(a / g)),
            Kind::Offset(off) if off % g == 0 => Some(Kind::Offset(off / g)),
            Kind::Shift(by) if by % g == 0 => Some(Kind::Shift(by / g)),
            Kind::Transpose { no, ni, a } if a % g == 0 => {
                Some(Kind::Transpose { no, ni, a: a / g })
            }
            _ => None,
        }
    }
}

/// Two layouts and the map between them: what latency and storage depend on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Input layout.
    pub input: Layout,
    /// Output layout.
    pub output: Layout,
    /// Output atom to input atom.
    pub kind: Kind,
}

/// One layer of a normal form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dim {
    S(u64),
    T(u64, u64),
}

/// The layers of `l`'s normal form, outermost first, and its atom.
fn dims(l: &Layout) -> (Vec<Dim>, Layout) {
    let mut out = Vec::with_capacity(8);
    let mut cur = l.normalize();
    loop {
        match cur {
            Layout::SSeq(k, t) | Layout::STuple(k, t) => {
                out.push(Dim::S(k));
                cur = Sub::unwrap_or_clone(t);
            }
            Layout::TSeq(n, i, t) => {
                out.push(Dim::T(n, i));
                cur = Sub::unwrap_or_clone(t);
            }
            atom => return (out, atom),
        }
    }
}

fn build(dims: &[Dim], atom: &Layout) -> Layout {
    dims.iter()
        .rev()
        .fold(atom.clone(), |acc, d| match *d {
            Dim::S(1) => acc,
            Dim::S(k) => Layout::sseq(k, acc),
            Dim::T(n, i) => Layout::tseq(n, i, acc),
        })
        .normalize()
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Reductions 1 and 2: the shape on groups of atoms that always travel together, and the
/// group size (the storage multiplier).
fn group_lanes(mut s: Shape) -> (Shape, u64) {
    let mut mult = 1;
    loop {
        let (mut di, atom) = dims(&s.input);
        let (mut dout, _) = dims(&s.output);
        let mut changed = false;
        if let (Some(Dim::S(k1)), Some(Dim::S(k2))) = (di.last(), dout.last()) {
            let g = gcd(*k1, *k2);
            if let Some(kind) = (g > 1).then(|| s.kind.grouped(g)).flatten() {
                let (li, lo) = (di.len() - 1, dout.len() - 1);
                di[li] = Dim::S(k1 / g);
                dout[lo] = Dim::S(k2 / g);
                s.kind = kind;
                mult *= g;
                changed = true;
            }
        }
        if s.kind == Kind::Identity {
            if let (Some(Dim::S(k1)), Some(Dim::S(k2))) = (di.first(), dout.first()) {
                let g = gcd(*k1, *k2);
                if g > 1 {
                    di[0] = Dim::S(k1 / g);
                    dout[0] = Dim::S(k2 / g);
                    mult *= g;
                    changed = true;
                }
            }
        }
        s.input = build(&di, &atom);
        s.output = build(&dout, &atom);
        if !changed {
            return (s, mult);
        }
    }
}

/// The common outer periods of reduction 3: `(M, J, block of the input, block of the
/// output, Cb, Ab)`.
struct Blocks {
    m: u64,
    j: u64,
    bin: Layout,
    bout: Layout,
    cb: u64,
    ab: u64,
}

fn blocks(s: &Shape) -> Option<Blocks> {
    if !matches!(s.kind, Kind::Identity | Kind::Shift(_)) {
        return None;
    }
    let (di, atom) = dims(&s.input);
    let (dout, _) = dims(&s.output);
    let (Some(Dim::T(n1, i1)), Some(Dim::T(n2, i2))) = (di.first(), dout.first()) else {
        return None;
    };
    let (x1, x2) = (build(&di[1..], &atom), build(&dout[1..], &atom));
    if n1 * x1.clocks() != n2 * x2.clocks() {
        return None;
    }
    let m = gcd(*n1, *n2);
    let (q1, q2) = (n1 / m, n2 / m);
    if i1 % q1 != 0 || i2 % q2 != 0 || i1 / q1 != i2 / q2 {
        return None;
    }
    Some(Blocks {
        m,
        j: i1 / q1,
        cb: q1 * x1.clocks(),
        ab: q1 * x1.atoms(),
        bin: Layout::tseq(q1, 0, x1),
        bout: Layout::tseq(q2, 0, x2),
    })
}

/// Blocks an atom's reader can be ahead of it (`u_max`).
fn reach(kind: Kind, ab: u64) -> u64 {
    match kind {
        Kind::Shift(by) => by.div_ceil(ab),
        _ => 0,
    }
}

/// The shape cut to `keep` blocks (when that is fewer than it has).
fn cut(s: Shape, b: &Blocks, keep: u64) -> Shape {
    if keep >= b.m {
        return s;
    }
    let j = b.j.min(1);
    Shape {
        input: Layout::tseq(keep, j, b.bin.clone()).normalize(),
        output: Layout::tseq(keep, j, b.bout.clone()).normalize(),
        kind: s.kind,
    }
}

fn same_wires(s: &Shape) -> bool {
    s.kind == Kind::Identity && s.input.normalize() == s.output.normalize()
}

/// A shape with the same minimal latency as `s`, a few periods long.
pub fn reduced_for_latency(s: Shape) -> Shape {
    if same_wires(&s) {
        // every atom on the same clock in both: latency 0, and so for any shape
        return Shape {
            input: s.input.atom().clone(),
            output: s.output.atom().clone(),
            kind: Kind::Identity,
        };
    }
    let (s, _) = group_lanes(s);
    match blocks(&s) {
        Some(b) => {
            let keep = reach(s.kind, b.ab) + 1;
            cut(s, &b, keep)
        }
        None => s,
    }
}

/// A shape and a multiplier such that, at the given latency, the multiplier times the
/// shape's storage (most atoms held at once) equals `s`'s.
pub fn reduced_for_storage(s: Shape, latency: u64) -> (Shape, u64) {
    if latency == 0 && same_wires(&s) {
        // nothing is ever held
        let a = s.input.atom().clone();
        let shape = Shape {
            input: a.clone(),
            output: a,
            kind: Kind::Identity,
        };
        return (shape, 1);
    }
    let (s, mult) = group_lanes(s);
    match blocks(&s) {
        Some(b) => {
            let u = reach(s.kind, b.ab);
            let keep = 2 * u + 2 + latency.div_ceil(b.cb);
            (cut(s, &b, keep), mult)
        }
        None => (s, mult),
    }
}

/// A shape and a multiplier such that every output lane of the shape reads, over a period,
/// as many distinct sources (input lane and delay, or fill) as each of the `multiplier`
/// lanes of `s` it stands for, and the shape's input lanes' largest delays, times the
/// multiplier, sum to `s`'s. Reductions 1 and 2 move lanes in groups at equal delays;
/// reduction 3 keeps the blocks `0..=u_max`, where every output place has read both its
/// fills and its steady-state source (an output place reads the same input lane at the same
/// delay in every block past its fills).
pub fn reduced_for_sources(s: Shape) -> (Shape, u64) {
    if same_wires(&s) {
        // every lane reads its own lane at delay 0
        let lanes = s.output.lanes();
        let a = s.input.atom().clone();
        let shape = Shape {
            input: a.clone(),
            output: a,
            kind: Kind::Identity,
        };
        return (shape, lanes);
    }
    let (s, mult) = group_lanes(s);
    match blocks(&s) {
        Some(b) => {
            let keep = reach(s.kind, b.ab) + 1;
            (cut(s, &b, keep), mult)
        }
        None => (s, mult),
    }
}
