//! Constant lanes: which lanes of a node carry the same known atom on every valid clock.
//!
//! The scheduler puts a convolution's weights in a `const` generator and zips them with the
//! pixels through `map2_s` bodies, so the multiply that uses a weight sits in another body
//! than the constant. Knowledge of constant lanes flows through wiring, tuples, data
//! movement and into body instances (a body instantiated with known parameter lanes gets its
//! own module variant), so [`super::atoms`] can write every constant multiply as shifts and
//! adds, whatever the module hierarchy.

use crate::seq::value::Value;
use crate::st::perm::{Perm, Src};
use crate::st::stream::{steady_lanes, Lane, Steady};
use crate::st::Layout;

/// What is known about one lane.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Known {
    /// Anything.
    Unknown,
    /// This atom on every valid clock (no don't-care parts).
    Value(Value),
    /// An atom tuple whose parts are known separately.
    Pair(Box<Known>, Box<Known>),
}

impl Known {
    /// Knowledge of a value: known unless it has don't-care parts.
    pub fn of(v: &Value) -> Known {
        if v.has_undef() {
            Known::Unknown
        } else {
            Known::Value(v.clone())
        }
    }

    /// The tuple of two lanes.
    pub fn pair(a: &Known, b: &Known) -> Known {
        match (a, b) {
            (Known::Value(x), Known::Value(y)) => Known::Value(Value::pair(x.clone(), y.clone())),
            (Known::Unknown, Known::Unknown) => Known::Unknown,
            _ => Known::Pair(Box::new(a.clone()), Box::new(b.clone())),
        }
    }

    /// True if nothing is known.
    pub fn is_unknown(&self) -> bool {
        *self == Known::Unknown
    }

    /// The raw scalar, if this lane is a known scalar.
    pub fn scalar(&self) -> Option<u64> {
        match self {
            Known::Value(Value::Scalar(v)) => Some(*v),
            _ => None,
        }
    }

    /// The two parts of a tuple lane (unknown parts if nothing is known).
    pub fn parts(&self) -> (Known, Known) {
        match self {
            Known::Pair(a, b) => ((**a).clone(), (**b).clone()),
            Known::Value(Value::Pair(p)) => (Known::of(&p.0), Known::of(&p.1)),
            _ => (Known::Unknown, Known::Unknown),
        }
    }
}

/// Per lane of a generator: the atom if it is the same on every valid clock.
pub fn generator_lanes(l: &Layout, atoms: &[Value]) -> Vec<Known> {
    steady_lanes(l, atoms)
        .into_iter()
        .map(|k| match k {
            Steady::One(v) => Known::of(v),
            Steady::Idle | Steady::Many => Known::Unknown,
        })
        .collect()
}

/// Per output lane of a data-movement operator: known if every atom it carries comes from
/// input lanes (or fills) known to hold one and the same atom.
pub fn movement_lanes(perm: &Perm, input: &[Known]) -> Vec<Known> {
    let in_lane: Vec<u64> = perm.input.atom_positions().iter().map(|p| p.1).collect();
    let mut out: Vec<Option<Known>> = vec![None; perm.output.lanes() as usize];
    for c in 0..perm.output.clocks() {
        let Some(idx) = perm.output.lane_atoms(c) else {
            continue;
        };
        for (k, o) in idx.iter().enumerate() {
            let v = match perm.src(*o) {
                Src::In(e) => input[in_lane[e as usize] as usize].clone(),
                Src::Fill(Lane::Val(v)) => Known::of(&v),
                Src::Fill(Lane::Poison) => Known::Unknown,
            };
            out[k] = Some(match out[k].take() {
                None => v,
                Some(prev) if prev == v => prev,
                Some(_) => Known::Unknown,
            });
        }
    }
    out.into_iter()
        .map(|k| k.unwrap_or(Known::Unknown))
        .collect()
}
