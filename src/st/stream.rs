//! Conversions between sequence values and their per-clock streams in a layout.
//!
//! A value's *atoms* are its row-major flattening (seq-tuple components count, an atom
//! tuple is one atom). A layout puts each atom on one clock and lane
//! ([`Layout::lane_atoms`]); a stream is one lane vector per clock, `None` on invalid clocks.
//! The RTL testbench drives and checks ports with exactly these vectors.

use super::layout::Layout;
use crate::seq::interp::expand_undef;
use crate::seq::types::SeqType;
use crate::seq::value::Value;

/// What one lane carries during one clock in simulation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Lane {
    /// Data from an invalid clock, or computed from one. Poison must never reach a valid
    /// output position: the simulator reports it as a mismatch wherever the interpreter has a
    /// defined value.
    Poison,
    /// An atom value (it may be or contain [`Value::Undef`], the language's don't-care).
    Val(Value),
}

impl Lane {
    /// The value, unless poisoned.
    pub fn value(&self) -> Option<&Value> {
        match self {
            Lane::Poison => None,
            Lane::Val(v) => Some(v),
        }
    }
}

/// What one lane of a layout carries over a period: nothing, the same atom on every clock
/// it is valid, or several atoms in turn ([`steady_lanes`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Steady<'a> {
    /// The lane is valid on no clock.
    Idle,
    /// This atom on every clock the lane is valid.
    One(&'a Value),
    /// Different atoms on different clocks.
    Many,
}

/// Per lane of layout `l` carrying `atoms` (flat order): whether it holds one atom over the
/// period. A generator's steady lane is a constant to the RTL, the area model (`st::known`)
/// and the delay model; a lane that takes several in turn is a table read by phase.
pub fn steady_lanes<'a>(l: &Layout, atoms: &'a [Value]) -> Vec<Steady<'a>> {
    let mut out = vec![Steady::Idle; l.lanes() as usize];
    for (v, k) in atoms.iter().zip(l.atom_lanes()) {
        let k = k as usize;
        out[k] = match out[k] {
            Steady::Idle => Steady::One(v),
            Steady::One(prev) if prev == v => Steady::One(prev),
            _ => Steady::Many,
        };
    }
    out
}

/// The atoms of `v : t` in flat order; a structured don't-care becomes don't-care atoms.
pub fn flatten(v: &Value, t: &SeqType) -> Vec<Value> {
    let mut out = Vec::with_capacity(t.atoms() as usize);
    push_atoms(&expand_undef(v, t), t, &mut out);
    out
}

fn push_atoms(v: &Value, t: &SeqType, out: &mut Vec<Value>) {
    match (v, t) {
        (Value::List(xs), SeqType::Seq(_, e) | SeqType::STuple(_, e)) => {
            for x in xs {
                push_atoms(x, e, out);
            }
        }
        _ => out.push(v.clone()),
    }
}

/// Rebuilds a value of type `t` from its atoms (the inverse of [`flatten`]).
///
/// # Panics
/// If `atoms` is shorter than `t.atoms()`.
pub fn unflatten(atoms: &[Value], t: &SeqType) -> Value {
    let mut it = atoms.iter();
    build(&mut it, t)
}

fn build<'a>(it: &mut impl Iterator<Item = &'a Value>, t: &SeqType) -> Value {
    match t {
        SeqType::Seq(n, e) | SeqType::STuple(n, e) => {
            Value::List((0..*n).map(|_| build(it, e)).collect())
        }
        _ => it.next().expect("enough atoms").clone(),
    }
}

/// The stream of `v` in layout `l`: for every clock, the value on each lane, or `None` on an
/// invalid clock. `v` must have type `l.to_seq()`.
pub fn to_clocks(v: &Value, l: &Layout) -> Result<Vec<Option<Vec<Value>>>, String> {
    let t = l.to_seq();
    crate::seq::value::check_value(v, &t)?;
    let atoms = flatten(v, &t);
    Ok((0..l.clocks())
        .map(|c| {
            l.lane_atoms(c)
                .map(|lanes| lanes.iter().map(|a| atoms[*a as usize].clone()).collect())
        })
        .collect())
}

/// The value carried by a stream in layout `l` (the inverse of [`to_clocks`]); invalid
/// clocks are ignored.
pub fn from_clocks(clocks: &[Option<Vec<Value>>], l: &Layout) -> Result<Value, String> {
    if clocks.len() as u64 != l.clocks() {
        return Err(format!(
            "layout {l} takes {} clocks, the stream has {}",
            l.clocks(),
            clocks.len()
        ));
    }
    let mut atoms = vec![Value::Undef; l.atoms() as usize];
    for (c, lanes) in clocks.iter().enumerate() {
        let (Some(idx), Some(vals)) = (l.lane_atoms(c as u64), lanes) else {
            continue;
        };
        if idx.len() != vals.len() {
            return Err(format!(
                "clock {c}: layout {l} has {} lanes, the stream has {}",
                idx.len(),
                vals.len()
            ));
        }
        for (a, v) in idx.iter().zip(vals) {
            atoms[*a as usize] = v.clone();
        }
    }
    Ok(unflatten(&atoms, &l.to_seq()))
}

/// The simulator's view of [`to_clocks`]: invalid clocks carry poison on every lane.
pub fn to_lanes(v: &Value, l: &Layout) -> Result<Vec<Vec<Lane>>, String> {
    let lanes = l.lanes() as usize;
    Ok(to_clocks(v, l)?
        .into_iter()
        .map(|c| match c {
            Some(vals) => vals.into_iter().map(Lane::Val).collect(),
            None => vec![Lane::Poison; lanes],
        })
        .collect())
}

/// Whether a simulated atom agrees with the interpreter's: don't-care expectations accept
/// anything, poison matches nothing else, atom tuples compare part by part.
pub fn atom_matches(expected: &Value, got: &Lane) -> bool {
    match got {
        Lane::Poison => expected.is_all_undef(),
        Lane::Val(v) => value_matches(expected, v),
    }
}

fn value_matches(expected: &Value, got: &Value) -> bool {
    match (expected, got) {
        (e, _) if e.is_all_undef() => true,
        (Value::Pair(e), Value::Pair(g)) => value_matches(&e.0, &g.0) && value_matches(&e.1, &g.1),
        (e, g) => e == g,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::types::ScalarType;

    #[test]
    fn round_trip_through_a_nested_layout() {
        let l = Layout::tseq(
            2,
            1,
            Layout::sseq(2, Layout::tseq(2, 1, ScalarType::UInt8.into())),
        );
        let t = l.to_seq();
        let v = Value::List(
            (0..2)
                .map(|a| {
                    Value::List(
                        (0..2)
                            .map(|b| {
                                Value::List(
                                    (0..2).map(|c| Value::Scalar(a * 4 + b * 2 + c)).collect(),
                                )
                            })
                            .collect(),
                    )
                })
                .collect(),
        );
        let s = to_clocks(&v, &l).unwrap();
        assert_eq!(s.len(), 9);
        // clock 1: outer element 0, inner clock 1 of both lanes: atoms 1 and 3.
        assert_eq!(s[1], Some(vec![Value::Scalar(1), Value::Scalar(3)]));
        assert_eq!(s[2], None);
        assert_eq!(from_clocks(&s, &l).unwrap(), v);
        assert_eq!(unflatten(&flatten(&v, &t), &t), v);
    }
}
