//! Space-time layouts (reference §2.1): how a sequence value is spread over wires (`sseq`)
//! and clocks (`tseq n i`: `n` valid periods first, then `i` invalid ones).
//!
//! Text form: `int8`, `(atuple int8 bit)`, `(stuple 3 int8)`, `(sseq 4 int8)`,
//! `(tseq 2 1 (sseq 2 uint8))`. Equality is syntactic, as in Aetherling: `(sseq 1 t)` is not
//! `t`; [`Layout::normalize`] gives the form under which such wrappers coincide.

use crate::seq::types::{ScalarType, SeqType};
use std::fmt;

/// The largest number of atoms, and of clocks, one layout may span. Far above the
/// 1920x1080 applications, low enough that arithmetic on measures never overflows.
pub const MAX_SIZE: u64 = 1 << 28;

/// A layout's sub-layout. Shared, not owned: the schedulers clone layouts far more often
/// than they build them (a clone of a boxed tree was a tenth of `explore`'s instructions),
/// and layouts are never mutated in place.
pub type Sub = std::sync::Arc<Layout>;

/// A space-time layout.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layout {
    /// A scalar: one lane for one clock.
    Scalar(ScalarType),
    /// An atom tuple of two atoms; itself an atom (one lane).
    ATuple(Sub, Sub),
    /// A seq-tuple: `n` components side by side on wires, like `sseq`.
    STuple(u64, Sub),
    /// `n` elements in parallel, during the same clocks.
    SSeq(u64, Sub),
    /// `n` valid periods, one element each, then `i` invalid periods.
    TSeq(u64, u64, Sub),
}

impl Layout {
    /// `(sseq n t)`.
    pub fn sseq(n: u64, t: Layout) -> Layout {
        Layout::SSeq(n, Sub::new(t))
    }

    /// `(tseq n i t)`.
    pub fn tseq(n: u64, i: u64, t: Layout) -> Layout {
        Layout::TSeq(n, i, Sub::new(t))
    }

    /// `(stuple n t)`.
    pub fn stuple(n: u64, t: Layout) -> Layout {
        Layout::STuple(n, Sub::new(t))
    }

    /// `(atuple a b)`.
    pub fn atuple(a: Layout, b: Layout) -> Layout {
        Layout::ATuple(Sub::new(a), Sub::new(b))
    }

    /// True for scalars and atom tuples: what atom operators take; one lane, one clock.
    pub fn is_atom(&self) -> bool {
        matches!(self, Layout::Scalar(_) | Layout::ATuple(..))
    }

    /// The sequence type this layout carries, forgetting space and time
    /// (`sseq`/`tseq` become `seq`).
    pub fn to_seq(&self) -> SeqType {
        match self {
            Layout::Scalar(s) => SeqType::Scalar(*s),
            Layout::ATuple(a, b) => SeqType::atuple(a.to_seq(), b.to_seq()),
            Layout::STuple(n, t) => SeqType::stuple(*n, t.to_seq()),
            Layout::SSeq(n, t) | Layout::TSeq(n, _, t) => SeqType::seq(*n, t.to_seq()),
        }
    }

    /// The atom layout of an atom sequence type (scalars and atom tuples only).
    pub fn from_atom_type(t: &SeqType) -> Option<Layout> {
        match t {
            SeqType::Scalar(s) => Some(Layout::Scalar(*s)),
            SeqType::ATuple(a, b) => Some(Layout::atuple(
                Layout::from_atom_type(a)?,
                Layout::from_atom_type(b)?,
            )),
            _ => None,
        }
    }

    /// The fully parallel layout of a sequence type: every `seq` becomes `sseq`.
    pub fn space_of(t: &SeqType) -> Layout {
        match t {
            SeqType::Scalar(s) => Layout::Scalar(*s),
            SeqType::ATuple(a, b) => Layout::atuple(Layout::space_of(a), Layout::space_of(b)),
            SeqType::STuple(n, e) => Layout::stuple(*n, Layout::space_of(e)),
            SeqType::Seq(n, e) => Layout::sseq(*n, Layout::space_of(e)),
        }
    }

    /// The innermost atom layout (every layout holds atoms of one type).
    pub fn atom(&self) -> &Layout {
        match self {
            Layout::Scalar(_) | Layout::ATuple(..) => self,
            Layout::STuple(_, t) | Layout::SSeq(_, t) | Layout::TSeq(_, _, t) => t.atom(),
        }
    }

    /// The element layout of an `sseq`, `tseq` or `stuple`.
    pub fn elem(&self) -> Option<&Layout> {
        match self {
            Layout::STuple(_, t) | Layout::SSeq(_, t) | Layout::TSeq(_, _, t) => Some(t),
            _ => None,
        }
    }

    /// Clocks one value occupies, invalid ones included (Aetherling's `clocks_t`).
    pub fn clocks(&self) -> u64 {
        match self {
            Layout::Scalar(_) | Layout::ATuple(..) => 1,
            Layout::STuple(_, t) | Layout::SSeq(_, t) => t.clocks(),
            Layout::TSeq(n, i, t) => (n + i) * t.clocks(),
        }
    }

    /// Clocks that carry data (`valid_clocks_t`).
    pub fn valid_clocks(&self) -> u64 {
        match self {
            Layout::Scalar(_) | Layout::ATuple(..) => 1,
            Layout::STuple(_, t) | Layout::SSeq(_, t) => t.valid_clocks(),
            Layout::TSeq(n, _, t) => n * t.valid_clocks(),
        }
    }

    /// Atoms in one value; a seq-tuple counts all its components and an atom tuple is one
    /// atom (`num_atoms_stuple_total_t`). This is the length of the flattened value.
    pub fn atoms(&self) -> u64 {
        match self {
            Layout::Scalar(_) | Layout::ATuple(..) => 1,
            Layout::STuple(n, t) | Layout::SSeq(n, t) | Layout::TSeq(n, _, t) => n * t.atoms(),
        }
    }

    /// Lanes: atoms on the wires during one clock.
    pub fn lanes(&self) -> u64 {
        match self {
            Layout::Scalar(_) | Layout::ATuple(..) => 1,
            Layout::STuple(n, t) | Layout::SSeq(n, t) => n * t.lanes(),
            Layout::TSeq(_, _, t) => t.lanes(),
        }
    }

    /// Bits of one atom.
    pub fn atom_bits(&self) -> u64 {
        match self {
            Layout::Scalar(s) => u64::from(s.width()),
            Layout::ATuple(a, b) => a.atom_bits() + b.atom_bits(),
            Layout::STuple(_, t) | Layout::SSeq(_, t) | Layout::TSeq(_, _, t) => t.atom_bits(),
        }
    }

    /// Bits on the wires per clock (`size_t`).
    pub fn bits_per_clock(&self) -> u64 {
        self.lanes() * self.atom_bits()
    }

    /// Bits of valid data over all clocks (`size_all_clocks_t`).
    pub fn total_bits(&self) -> u64 {
        self.atoms() * self.atom_bits()
    }

    /// Whether clock `c` (0-based, `c < clocks()`) carries data: valid periods come first
    /// in every `tseq` layer, recursively.
    pub fn is_valid_clock(&self, c: u64) -> bool {
        match self {
            Layout::Scalar(_) | Layout::ATuple(..) => c == 0,
            Layout::STuple(_, t) | Layout::SSeq(_, t) => t.is_valid_clock(c),
            Layout::TSeq(n, _, t) => {
                let tc = t.clocks();
                c / tc < *n && t.is_valid_clock(c % tc)
            }
        }
    }

    /// The valid clocks of one period as runs `(first clock, valid)`, adjacent runs
    /// differing, computed from the layers without visiting every clock; `None` when there
    /// are more than `max` runs.
    pub fn valid_runs(&self, max: usize) -> Option<Vec<(u64, bool)>> {
        match self {
            Layout::Scalar(_) | Layout::ATuple(..) => Some(vec![(0, true)]),
            Layout::STuple(_, t) | Layout::SSeq(_, t) => t.valid_runs(max),
            Layout::TSeq(n, i, t) => {
                let inner = t.valid_runs(max)?;
                let tc = t.clocks();
                let mut out: Vec<(u64, bool)> = Vec::new();
                let push = |c: u64, v: bool, out: &mut Vec<(u64, bool)>| {
                    if out.last().is_none_or(|r| r.1 != v) {
                        out.push((c, v));
                    }
                    out.len() <= max
                };
                if inner.len() == 1 {
                    // all valid: one run, whatever n
                    push(0, true, &mut out);
                } else {
                    for k in 0..*n {
                        for (c, v) in &inner {
                            if !push(k * tc + c, *v, &mut out) {
                                return None;
                            }
                        }
                    }
                }
                if *i > 0 && !push(n * tc, false, &mut out) {
                    return None;
                }
                Some(out)
            }
        }
    }

    /// A period of the valid-clock pattern that divides [`Layout::clocks`]: the pattern of
    /// `(tseq n 0 t)` is `t`'s repeated, so outer layers without invalid clocks drop.
    pub fn valid_period(&self) -> u64 {
        match self {
            Layout::STuple(_, t) | Layout::SSeq(_, t) | Layout::TSeq(_, 0, t) => t.valid_period(),
            _ => self.clocks(),
        }
    }

    /// The flat atom index on each lane at clock `c`, or `None` on an invalid clock.
    ///
    /// The flat order is the row-major flattening of every layer (the L_seq isomorphism of
    /// reference §2.4): lane `k` of clock `c` carries atom `lane_atoms(c)[k]` of the
    /// flattened value.
    pub fn lane_atoms(&self, c: u64) -> Option<Vec<u64>> {
        let mut out = Vec::with_capacity(self.lanes() as usize);
        if self.push_lane_atoms(c, 0, &mut out) {
            Some(out)
        } else {
            None
        }
    }

    fn push_lane_atoms(&self, c: u64, base: u64, out: &mut Vec<u64>) -> bool {
        match self {
            Layout::Scalar(_) | Layout::ATuple(..) => {
                out.push(base);
                c == 0
            }
            Layout::STuple(n, t) | Layout::SSeq(n, t) => {
                let a = t.atoms();
                for j in 0..*n {
                    if !t.push_lane_atoms(c, base + j * a, out) {
                        return false;
                    }
                }
                true
            }
            Layout::TSeq(n, _, t) => {
                let tc = t.clocks();
                let k = c / tc;
                k < *n && t.push_lane_atoms(c % tc, base + k * t.atoms(), out)
            }
        }
    }

    /// Every clock's lane atoms (see [`Layout::lane_atoms`]), computed once.
    pub fn placement(&self) -> Vec<Option<Vec<u64>>> {
        (0..self.clocks()).map(|c| self.lane_atoms(c)).collect()
    }

    /// For every flat atom: its lane. A walk over the atoms, not the clocks, so a layout of
    /// a few atoms over millions of clocks costs as few.
    pub fn atom_lanes(&self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.atoms() as usize);
        self.push_atom_lanes(0, &mut out);
        out
    }

    fn push_atom_lanes(&self, base: u64, out: &mut Vec<u64>) {
        match self {
            Layout::Scalar(_) | Layout::ATuple(..) => out.push(base),
            Layout::STuple(n, t) | Layout::SSeq(n, t) => {
                let l = t.lanes();
                for j in 0..*n {
                    t.push_atom_lanes(base + j * l, out);
                }
            }
            Layout::TSeq(n, _, t) => {
                for _ in 0..*n {
                    t.push_atom_lanes(base, out);
                }
            }
        }
    }

    /// For every flat atom: the clock it is on and its lane.
    pub fn atom_positions(&self) -> Vec<(u64, u64)> {
        let mut pos = vec![(0, 0); self.atoms() as usize];
        for c in 0..self.clocks() {
            if let Some(lanes) = self.lane_atoms(c) {
                for (k, a) in lanes.into_iter().enumerate() {
                    pos[a as usize] = (c, k as u64);
                }
            }
        }
        pos
    }

    /// The layout with seq-tuples as `sseq`, `(sseq 1 _)`, `(stuple 1 _)` and `(tseq 1 0 _)`
    /// layers dropped, and adjacent `sseq`s, and `tseq`s whose inner layer has no invalid
    /// periods, merged. Two layouts with equal normal forms put every atom on the same clock
    /// and lane, so a reshape between them is wiring.
    pub fn normalize(&self) -> Layout {
        match self {
            Layout::Scalar(_) | Layout::ATuple(..) => self.clone(),
            Layout::STuple(n, t) | Layout::SSeq(n, t) => merge_space(*n, normal_sub(t)),
            Layout::TSeq(n, i, t) => merge_time(*n, *i, normal_sub(t)),
        }
    }

    /// The zipped-pair layout a reducer combines: every atom `a` becomes `(atuple a a)`,
    /// keeping every layer (mirrors [`SeqType::zipped_pair`]).
    pub fn zipped_pair(&self) -> Layout {
        match self {
            Layout::Scalar(_) | Layout::ATuple(..) => Layout::atuple(self.clone(), self.clone()),
            Layout::STuple(n, t) => Layout::stuple(*n, t.zipped_pair()),
            Layout::SSeq(n, t) => Layout::sseq(*n, t.zipped_pair()),
            Layout::TSeq(n, i, t) => Layout::tseq(*n, *i, t.zipped_pair()),
        }
    }

    /// Checks that every count is at least 1 (invalid counts may be 0), the tuple parts are
    /// atoms, and the atom and clock counts stay below [`MAX_SIZE`].
    pub fn validate(&self) -> Result<(), String> {
        let (atoms, clocks) = self.checked_size()?;
        if atoms > MAX_SIZE || clocks > MAX_SIZE {
            return Err(format!(
                "layout {self} is too large ({atoms} atoms over {clocks} clocks; the limit is {MAX_SIZE})"
            ));
        }
        Ok(())
    }

    fn checked_size(&self) -> Result<(u64, u64), String> {
        let big = || format!("layout {self} is too large (the limit is {MAX_SIZE})");
        match self {
            Layout::Scalar(_) => Ok((1, 1)),
            Layout::ATuple(a, b) => {
                for p in [a, b] {
                    if !p.is_atom() {
                        return Err(format!("an atuple holds atoms, found {p}"));
                    }
                    p.checked_size()?;
                }
                Ok((1, 1))
            }
            Layout::STuple(n, t) | Layout::SSeq(n, t) | Layout::TSeq(n, _, t) => {
                if *n == 0 {
                    return Err(format!(
                        "in {self}: a length must be at least 1 (zero-length sequences are not allowed)"
                    ));
                }
                let (a, c) = t.checked_size()?;
                let atoms = n
                    .checked_mul(a)
                    .filter(|x| *x <= MAX_SIZE)
                    .ok_or_else(big)?;
                let clocks = match self {
                    Layout::TSeq(n, i, _) => n
                        .checked_add(*i)
                        .and_then(|p| p.checked_mul(c))
                        .filter(|x| *x <= MAX_SIZE)
                        .ok_or_else(big)?,
                    _ => c,
                };
                Ok((atoms, clocks))
            }
        }
    }
}

impl From<ScalarType> for Layout {
    fn from(s: ScalarType) -> Layout {
        Layout::Scalar(s)
    }
}

/// The normal form of a sub-layout, sharing every part that is already normal (most
/// layouts the schedulers normalize are, and a fresh tree per call was a tenth of
/// `explore`'s instructions).
fn normal_sub(s: &Sub) -> Sub {
    match &**s {
        Layout::Scalar(_) | Layout::ATuple(..) => s.clone(),
        Layout::SSeq(n, t) | Layout::STuple(n, t) => {
            let u = normal_sub(t);
            if *n == 1 {
                return u;
            }
            let same = matches!(**s, Layout::SSeq(..)) && Sub::ptr_eq(&u, t);
            if same && !matches!(*u, Layout::SSeq(..)) {
                return s.clone();
            }
            Sub::new(merge_space(*n, u))
        }
        Layout::TSeq(n, i, t) => {
            let u = normal_sub(t);
            if *n == 1 && *i == 0 {
                return u;
            }
            if Sub::ptr_eq(&u, t) && !matches!(*u, Layout::TSeq(_, 0, _)) {
                return s.clone();
            }
            Sub::new(merge_time(*n, *i, u))
        }
    }
}

/// `n` copies side by side of the normal layout `t`, in normal form: a one-lane layer
/// vanishes and two space layers merge.
fn merge_space(n: u64, t: Sub) -> Layout {
    if n == 1 {
        return (*t).clone();
    }
    match &*t {
        Layout::SSeq(m, u) => Layout::SSeq(n * m, u.clone()),
        _ => Layout::SSeq(n, t),
    }
}

/// `n` valid and `i` invalid periods of the normal layout `t`, in normal form: a layer of
/// one valid period vanishes and a time layer over a dense one merges with it.
fn merge_time(n: u64, i: u64, t: Sub) -> Layout {
    if n == 1 && i == 0 {
        return (*t).clone();
    }
    match &*t {
        Layout::TSeq(m, 0, u) => Layout::TSeq(n * m, i * m, u.clone()),
        _ => Layout::TSeq(n, i, t),
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Layout::Scalar(s) => write!(f, "{s}"),
            Layout::ATuple(a, b) => write!(f, "(atuple {a} {b})"),
            Layout::STuple(n, t) => write!(f, "(stuple {n} {t})"),
            Layout::SSeq(n, t) => write!(f, "(sseq {n} {t})"),
            Layout::TSeq(n, i, t) => write!(f, "(tseq {n} {i} {t})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int() -> Layout {
        Layout::Scalar(ScalarType::Int8)
    }

    #[test]
    fn clocks_and_valid_placement_follow_types_md() {
        // TSeq 2 0 (TSeq 3 1 Int) = V V V _ V V V _
        let t = Layout::tseq(2, 0, Layout::tseq(3, 1, int()));
        let pattern: Vec<bool> = (0..t.clocks()).map(|c| t.is_valid_clock(c)).collect();
        assert_eq!(pattern, [true, true, true, false, true, true, true, false]);
        assert_eq!(t.valid_clocks(), 6);
        // TSeq 2 1 (SSeq 2 (TSeq 3 1 Int)) = 12 clocks, 2 ints per valid clock
        let t = Layout::tseq(2, 1, Layout::sseq(2, Layout::tseq(3, 1, int())));
        assert_eq!(t.clocks(), 12);
        assert_eq!(t.lanes(), 2);
        assert_eq!(t.atoms(), 12);
        assert_eq!(t.bits_per_clock(), 16);
    }

    #[test]
    fn atom_lanes_are_the_lanes_of_the_clock_walk() {
        let layouts = [
            Layout::tseq(2, 1, Layout::sseq(2, Layout::tseq(3, 1, int()))),
            Layout::sseq(3, Layout::tseq(2, 0, Layout::sseq(2, int()))),
            Layout::tseq(4, 2, Layout::stuple(3, Layout::tseq(1, 2, int()))),
            Layout::sseq(2, Layout::sseq(3, int())),
            Layout::tseq(1_000_000, 3, int()),
        ];
        for l in layouts {
            let walked: Vec<u64> = l.atom_positions().into_iter().map(|p| p.1).collect();
            assert_eq!(l.atom_lanes(), walked, "{l}");
        }
    }

    #[test]
    fn lanes_follow_row_major_flattening() {
        // SSeq 2 (TSeq 3 0 int): lane j at clock c holds element j*3 + c.
        let t = Layout::sseq(2, Layout::tseq(3, 0, int()));
        assert_eq!(t.lane_atoms(1), Some(vec![1, 4]));
        // TSeq 3 0 (SSeq 2 int): clock c holds elements 2c, 2c+1.
        let t = Layout::tseq(3, 1, Layout::sseq(2, int()));
        assert_eq!(t.lane_atoms(2), Some(vec![4, 5]));
        assert_eq!(t.lane_atoms(3), None);
    }

    #[test]
    fn normalization_merges_and_strips() {
        let a = Layout::tseq(2, 0, Layout::sseq(1, Layout::tseq(3, 0, int())));
        assert_eq!(a.normalize(), Layout::tseq(6, 0, int()));
        let b = Layout::tseq(2, 1, Layout::tseq(3, 0, int()));
        assert_eq!(b.normalize(), Layout::tseq(6, 3, int()));
        let c = Layout::tseq(2, 0, Layout::tseq(3, 1, int()));
        assert_eq!(c.normalize(), c);
        let d = Layout::stuple(2, Layout::sseq(3, int()));
        assert_eq!(d.normalize(), Layout::sseq(6, int()));
    }

    /// Every layout of at most `depth` layers over `int` and `(atuple int int)`.
    fn small_layouts(depth: usize) -> Vec<Layout> {
        let mut out = vec![int(), Layout::atuple(int(), int())];
        if depth == 0 {
            return out;
        }
        for t in small_layouts(depth - 1) {
            for n in 1..=3 {
                out.push(Layout::sseq(n, t.clone()));
                out.push(Layout::tseq(n, 0, t.clone()));
                out.push(Layout::tseq(n, 1, t.clone()));
            }
            if t.is_atom() {
                out.push(Layout::stuple(2, t.clone()));
            }
        }
        out
    }

    /// The normal form built afresh at every layer (what `normalize` computed before it
    /// shared the parts that are already normal).
    fn rebuilt(l: &Layout) -> Layout {
        match l {
            Layout::Scalar(_) | Layout::ATuple(..) => l.clone(),
            Layout::STuple(n, t) | Layout::SSeq(n, t) => match (*n, rebuilt(t)) {
                (1, t) => t,
                (n, Layout::SSeq(m, u)) => Layout::sseq(n * m, (*u).clone()),
                (n, t) => Layout::sseq(n, t),
            },
            Layout::TSeq(n, i, t) => match (*n, *i, rebuilt(t)) {
                (1, 0, t) => t,
                (n, i, Layout::TSeq(m, 0, u)) => Layout::tseq(n * m, i * m, (*u).clone()),
                (n, i, t) => Layout::tseq(n, i, t),
            },
        }
    }

    #[test]
    fn normal_forms_keep_every_atom_on_its_lane_and_clock() {
        let all = small_layouts(4);
        assert!(all.len() > 15_000, "{}", all.len());
        for l in &all {
            let n = l.normalize();
            assert_eq!(n, rebuilt(l), "{l}");
            assert_eq!(n.normalize(), n, "{l}");
            assert_eq!(
                (n.clocks(), n.lanes(), n.atoms()),
                (l.clocks(), l.lanes(), l.atoms())
            );
            for c in 0..l.clocks() {
                assert_eq!(n.lane_atoms(c), l.lane_atoms(c), "{l} at clock {c}");
            }
        }
    }

    #[test]
    fn validation_rejects_zero_and_huge() {
        assert!(Layout::sseq(0, int()).validate().is_err());
        assert!(Layout::tseq(1 << 20, 0, Layout::tseq(1 << 20, 0, int()))
            .validate()
            .is_err());
        assert!(Layout::tseq(2, 0, int()).validate().is_ok());
    }
}
