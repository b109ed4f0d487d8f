//! Constant lanes: which lanes of a node carry the same known atom on every valid clock.
//!
//! The scheduler puts a convolution's weights in a `const` generator and zips them with the
//! pixels through `map2_s` bodies, so the multiply that uses a weight sits in another body
//! than the constant. Knowledge of constant lanes flows through wiring, tuples, data
//! movement and into body instances (a body instantiated with known parameter lanes is
//! built and costed as its own variant), so the RTL (`rtl::atoms`) writes every constant
//! multiply or shift as shifts and adds or wiring, whatever the module hierarchy, and the
//! area model ([`super::area`]) charges what it writes.

use super::design::{Design, NodeId};
use super::op::StOp;
use super::perm::{Perm, Src};
use super::stream::{flatten, steady_lanes, Lane, Steady};
use super::Layout;
use crate::seq::value::Value;

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
    let in_lane = perm.input.atom_lanes();
    let mut out: Vec<Option<Known>> = vec![None; perm.output.lanes() as usize];
    for (o, k) in perm.output.atom_lanes().into_iter().enumerate() {
        let v = match perm.src(o as u64) {
            Src::In(e) => input[in_lane[e as usize] as usize].clone(),
            Src::Fill(Lane::Val(v)) => Known::of(&v),
            Src::Fill(Lane::Poison) => Known::Unknown,
        };
        let k = k as usize;
        out[k] = Some(match out[k].take() {
            None => v,
            Some(prev) if prev == v => prev,
            Some(_) => Known::Unknown,
        });
    }
    out.into_iter()
        .map(|k| k.unwrap_or(Known::Unknown))
        .collect()
}

/// The most atoms of a generator whose lanes [`node_lanes`] lists: a kernel's weights are
/// a few; a larger generator is taken as a table (nothing known of its lanes).
pub const GENERATOR_ATOMS: u64 = 4096;

/// What is known of the lanes of node `id` of `d`, an operator without a body, from what is
/// known of its arguments' lanes (`args[k]`): a generator's steady lanes, a tuple's parts,
/// the lanes data movement reads. Nothing is known of an atom operator's result: an
/// operator of constants is folded by synthesis, and neither the RTL nor the area model
/// follows its value. `None` for inputs, parameters and operators with bodies, whose lanes
/// their callers know.
pub fn node_lanes(d: &Design, id: NodeId, args: &[&[Known]]) -> Option<Vec<Known>> {
    let node = d.node(id);
    let layout = d.layout(id);
    let unknown = || vec![Known::Unknown; layout.lanes() as usize];
    Some(match &node.op {
        StOp::Input(_) | StOp::Arg(..) => return None,
        op if op.body().is_some() => return None,
        // wholly don't-care (the stand-in for a body the scheduler measures apart): nothing
        // known, without listing a frame of don't-cares
        StOp::Const {
            value: Value::Undef,
            ..
        } => return None,
        // a generator of a frame's atoms (a pattern over the image) is taken as a table:
        // listing its atoms to find a steady lane would cost every area of the design a
        // frame
        StOp::Const { layout, .. } if layout.atoms() > GENERATOR_ATOMS => unknown(),
        StOp::Const { value, layout, .. } => {
            generator_lanes(layout, &flatten(value, &layout.to_seq()))
        }
        // a counter lane is steady only if it carries one atom (every atom a lane)
        StOp::Counter { layout, incr, .. }
            if layout.atoms() == layout.lanes() && layout.atoms() <= GENERATOR_ATOMS =>
        {
            let mask = match layout.atom() {
                Layout::Scalar(s) => s.mask(),
                _ => u64::MAX,
            };
            (0..layout.atoms())
                .map(|e| Known::Value(Value::Scalar(e.wrapping_mul(*incr) & mask)))
                .collect()
        }
        StOp::Counter { .. } => unknown(),
        StOp::Atom(_) => unknown(),
        StOp::ATuple => vec![Known::pair(&args[0][0], &args[1][0])],
        StOp::STuple | StOp::STupleAppend => args[0].iter().chain(args[1]).cloned().collect(),
        op => match Perm::of(op, d.layout(node.args[0]), layout) {
            Some(p) if args[0].iter().any(|k| !k.is_unknown()) => movement_lanes(&p, args[0]),
            _ => unknown(),
        },
    })
}
