//! Values as one flat column of scalars: the exchange form of the fast evaluator
//! ([`super::fast`]) and of image I/O.
//!
//! A [`Value`] is a tree, which costs one allocation per element; a 1920x1080 frame of
//! pixels is two million of them. A [`FlatValue`] stores the same information as two flat
//! vectors, in the order the tree would be printed.

use super::types::{ScalarType, SeqType};
use super::value::{format_scalar, scalar_to_int, Value};
use crate::util::rng::Rng;
use std::fmt::{self, Write};

/// A value as one flat column of scalars: every scalar in order (sequence and seq-tuple
/// elements in order, an atom tuple's left part before its right part), each with a
/// don't-care mark.
///
/// `scalars[i]` is meaningless (and 0 when this module builds the value) where `undef[i]`
/// is true.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatValue {
    /// The value's type.
    pub ty: SeqType,
    /// The raw bits of every scalar (two's complement for signed types, as in [`Value`]).
    pub scalars: Vec<u32>,
    /// True where the scalar is don't care.
    pub undef: Vec<bool>,
}

/// The scalar types of one atom of `t`'s element type, left to right, and how many atoms a
/// value of `t` holds: a value of `t` is `atoms` repetitions of `slots.len()` scalars.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub slots: Vec<ScalarType>,
    pub atoms: usize,
}

impl Shape {
    pub fn of(t: &SeqType) -> Shape {
        let mut slots = Vec::new();
        let mut atoms = 1usize;
        let mut t = t;
        while let SeqType::Seq(n, e) | SeqType::STuple(n, e) = t {
            atoms = atoms.saturating_mul(*n as usize);
            t = e;
        }
        atom_slots(t, &mut slots);
        Shape { slots, atoms }
    }

    /// Scalars in one value.
    pub fn scalars(&self) -> usize {
        self.atoms.saturating_mul(self.slots.len())
    }
}

/// The scalar types of an atom type, left to right.
pub(crate) fn atom_slots(t: &SeqType, out: &mut Vec<ScalarType>) {
    match t {
        SeqType::Scalar(s) => out.push(*s),
        SeqType::ATuple(a, b) => {
            atom_slots(a, out);
            atom_slots(b, out);
        }
        SeqType::Seq(..) | SeqType::STuple(..) => {
            unreachable!("an atom type holds no sequence")
        }
    }
}

impl FlatValue {
    /// The flat form of `v`, a value of type `ty`. A don't-care anywhere (also one standing
    /// for a whole atom tuple or sequence) marks all its scalars.
    ///
    /// # Panics
    /// If `v` does not have the shape of `ty` (see [`super::value::check_value`]).
    pub fn from_value(v: &Value, ty: &SeqType) -> FlatValue {
        let n = Shape::of(ty).scalars();
        let mut f = FlatValue {
            ty: ty.clone(),
            scalars: Vec::with_capacity(n),
            undef: Vec::with_capacity(n),
        };
        f.push_value(v, ty);
        f
    }

    fn push_value(&mut self, v: &Value, t: &SeqType) {
        match (v, t) {
            (Value::Undef, _) => {
                let n = Shape::of(t).scalars();
                self.scalars.extend(std::iter::repeat_n(0, n));
                self.undef.extend(std::iter::repeat_n(true, n));
            }
            (Value::Scalar(x), SeqType::Scalar(_)) => {
                self.scalars.push(*x as u32);
                self.undef.push(false);
            }
            (Value::Pair(p), SeqType::ATuple(a, b)) => {
                self.push_value(&p.0, a);
                self.push_value(&p.1, b);
            }
            (Value::List(xs), SeqType::Seq(n, e) | SeqType::STuple(n, e))
                if xs.len() as u64 == *n =>
            {
                for x in xs {
                    self.push_value(x, e);
                }
            }
            (v, t) => panic!("FlatValue::from_value: {v:?} does not have type {t}"),
        }
    }

    /// The tree form. A don't-care scalar becomes [`Value::Undef`]; atom tuples and
    /// sequences are always built as pairs and lists, so the result equals the reference
    /// interpreter's after [`super::interp::expand_undef`] (which may return a bare
    /// `Undef` for a whole atom tuple).
    pub fn to_value(&self) -> Value {
        let mut k = 0;
        self.build(&self.ty, &mut k)
    }

    fn build(&self, t: &SeqType, k: &mut usize) -> Value {
        match t {
            SeqType::Scalar(_) => {
                let v = match self.get(*k) {
                    Some(x) => Value::Scalar(u64::from(x)),
                    None => Value::Undef,
                };
                *k += 1;
                v
            }
            SeqType::ATuple(a, b) => {
                let x = self.build(a, k);
                Value::pair(x, self.build(b, k))
            }
            SeqType::Seq(n, e) | SeqType::STuple(n, e) => {
                Value::List((0..*n).map(|_| self.build(e, k)).collect())
            }
        }
    }

    /// Scalar `i` (in the order of the type's printed form), `None` if it is don't care.
    pub fn get(&self, i: usize) -> Option<u32> {
        (!self.undef[i]).then(|| self.scalars[i])
    }

    /// Number of scalars.
    pub fn len(&self) -> usize {
        self.scalars.len()
    }

    /// True for a value without scalars (no type has one; for completeness).
    pub fn is_empty(&self) -> bool {
        self.scalars.is_empty()
    }

    /// Checks the vectors against the type: the number of scalars, and each scalar within
    /// its type's width.
    pub fn check(&self) -> Result<(), String> {
        let shape = Shape::of(&self.ty);
        let n = shape.scalars();
        if self.scalars.len() != n || self.undef.len() != n {
            return Err(format!(
                "a value of type {} has {n} scalars, found {} (and {} don't-care marks)",
                self.ty,
                self.scalars.len(),
                self.undef.len()
            ));
        }
        let k = shape.slots.len();
        for (i, (&x, &u)) in self.scalars.iter().zip(&self.undef).enumerate() {
            let s = shape.slots[i % k];
            if !u && u64::from(x) & !s.mask() != 0 {
                return Err(format!("scalar {i} ({x}) does not fit {s}"));
            }
        }
        Ok(())
    }

    /// A uniformly random value of type `ty`: the very value
    /// [`super::value::random_value`] draws from the same generator state.
    pub fn random(ty: &SeqType, rng: &mut Rng) -> FlatValue {
        let shape = Shape::of(ty);
        let scalars: Vec<u32> = (0..shape.scalars())
            .map(|i| (rng.next_u64() & shape.slots[i % shape.slots.len()].mask()) as u32)
            .collect();
        let undef = vec![false; scalars.len()];
        FlatValue {
            ty: ty.clone(),
            scalars,
            undef,
        }
    }

    /// The JSON text, equal to [`super::value::to_json`] of [`FlatValue::to_value`] printed
    /// compactly, written without building a JSON tree (e.g. `println!("{}", v.json())`).
    pub fn json(&self) -> FlatJson<'_> {
        FlatJson(self)
    }

    fn write_text(&self, out: &mut impl Write, t: &SeqType, k: &mut usize) -> fmt::Result {
        match t {
            SeqType::Scalar(s) => {
                let i = *k;
                *k += 1;
                match self.get(i) {
                    None => out.write_char('_'),
                    Some(x) if *s == ScalarType::FixP1_7 => {
                        out.write_str(&format_scalar(u64::from(x), *s))
                    }
                    // Scalars are at most 32 bits: an i64 prints faster than format_scalar's
                    // i128, with the same digits.
                    Some(x) => write!(out, "{}", scalar_to_int(u64::from(x), *s) as i64),
                }
            }
            SeqType::ATuple(a, b) => {
                out.write_char('(')?;
                self.write_text(out, a, k)?;
                out.write_str(", ")?;
                self.write_text(out, b, k)?;
                out.write_char(')')
            }
            SeqType::Seq(n, e) | SeqType::STuple(n, e) => {
                let (open, close) = if matches!(t, SeqType::Seq(..)) {
                    ('[', ']')
                } else {
                    ('<', '>')
                };
                out.write_char(open)?;
                for i in 0..*n {
                    if i > 0 {
                        out.write_str(", ")?;
                    }
                    self.write_text(out, e, k)?;
                }
                out.write_char(close)
            }
        }
    }

    fn write_json(&self, out: &mut impl Write, t: &SeqType, k: &mut usize) -> fmt::Result {
        match t {
            SeqType::Scalar(s) => {
                let i = *k;
                *k += 1;
                match self.get(i) {
                    None => out.write_str("null"),
                    Some(x) if *s == ScalarType::FixP1_7 => {
                        match serde_json::Number::from_f64(f64::from(x) / 128.0) {
                            Some(n) => write!(out, "{n}"),
                            None => out.write_str("null"),
                        }
                    }
                    Some(x) => write!(out, "{}", scalar_to_int(u64::from(x), *s) as i64),
                }
            }
            SeqType::ATuple(a, b) => {
                out.write_char('[')?;
                self.write_json(out, a, k)?;
                out.write_char(',')?;
                self.write_json(out, b, k)?;
                out.write_char(']')
            }
            SeqType::Seq(n, e) | SeqType::STuple(n, e) => {
                out.write_char('[')?;
                for i in 0..*n {
                    if i > 0 {
                        out.write_char(',')?;
                    }
                    self.write_json(out, e, k)?;
                }
                out.write_char(']')
            }
        }
    }
}

/// The text form, equal to [`super::value::format_value`] of [`FlatValue::to_value`]
/// (written piece by piece, so printing a frame needs no string of its size).
impl fmt::Display for FlatValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_text(f, &self.ty, &mut 0)
    }
}

/// The JSON form of a [`FlatValue`]: see [`FlatValue::json`].
pub struct FlatJson<'a>(&'a FlatValue);

impl fmt::Display for FlatJson<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write_json(f, &self.0.ty, &mut 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::value::{format_value, random_value, to_json};

    fn s(t: ScalarType) -> SeqType {
        SeqType::Scalar(t)
    }

    #[test]
    fn round_trip_with_dont_cares() {
        let inner = SeqType::atuple(s(ScalarType::Int8), s(ScalarType::FixP1_7));
        let ty = SeqType::seq(2, SeqType::atuple(s(ScalarType::UInt8), inner));
        let v = Value::List(vec![
            Value::pair(
                Value::Scalar(3),
                Value::pair(Value::Undef, Value::Scalar(8)),
            ),
            Value::Undef,
        ]);
        let f = FlatValue::from_value(&v, &ty);
        assert_eq!(f.len(), 6);
        assert_eq!(f.get(0), Some(3));
        assert_eq!(f.get(1), None);
        assert_eq!(f.get(2), Some(8));
        assert!(f.undef[3..].iter().all(|u| *u));
        let back = f.to_value();
        assert_eq!(back, crate::seq::interp::expand_undef(&v, &ty));
        assert_eq!(f.to_string(), format_value(&back, &ty));
        assert_eq!(f.json().to_string(), to_json(&back, &ty).to_string());
        f.check().unwrap();
    }

    #[test]
    fn random_draws_like_the_tree_form() {
        let atom = SeqType::atuple(s(ScalarType::Int16), s(ScalarType::Bit));
        let ty = SeqType::seq(3, SeqType::stuple(2, atom));
        let f = FlatValue::random(&ty, &mut Rng::new(7));
        let v = random_value(&ty, &mut Rng::new(7));
        assert_eq!(f, FlatValue::from_value(&v, &ty));
        assert_eq!(f.to_string(), format_value(&v, &ty));
    }

    #[test]
    fn check_rejects_wrong_lengths_and_wide_scalars() {
        let mut f = FlatValue::from_value(&Value::Scalar(1), &s(ScalarType::UInt8));
        f.scalars[0] = 256;
        assert!(f.check().unwrap_err().contains("does not fit uint8"));
        f.scalars.push(0);
        assert!(f.check().unwrap_err().contains("has 1 scalars"));
    }
}
