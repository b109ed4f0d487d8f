//! Sequence-language types: scalars, atom tuples, seq-tuples and nested sequences.
//!
//! Types print and parse in the s-expression form used by `.seq` files:
//! `uint8`, `(atuple uint8 bit)`, `(stuple 3 uint8)`, `(seq 16 (seq 3 uint8))`.

use std::fmt;

/// A scalar type: one wire bundle of fixed width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    /// One bit, printed as 0 or 1.
    Bit,
    /// Signed 8-bit two's complement.
    Int8,
    /// Unsigned 8-bit.
    UInt8,
    /// Signed 16-bit.
    Int16,
    /// Unsigned 16-bit.
    UInt16,
    /// Signed 32-bit.
    Int32,
    /// Unsigned 32-bit.
    UInt32,
    /// Unsigned fixed point with 1 integer and 7 fraction bits (the divisor type of `div`).
    FixP1_7,
}

impl ScalarType {
    /// Every scalar type, in a fixed order (used by random tests and error messages).
    pub const ALL: [ScalarType; 8] = [
        ScalarType::Bit,
        ScalarType::Int8,
        ScalarType::UInt8,
        ScalarType::Int16,
        ScalarType::UInt16,
        ScalarType::Int32,
        ScalarType::UInt32,
        ScalarType::FixP1_7,
    ];

    /// Width in bits.
    pub fn width(self) -> u32 {
        match self {
            ScalarType::Bit => 1,
            ScalarType::Int8 | ScalarType::UInt8 | ScalarType::FixP1_7 => 8,
            ScalarType::Int16 | ScalarType::UInt16 => 16,
            ScalarType::Int32 | ScalarType::UInt32 => 32,
        }
    }

    /// True for the two's complement types.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            ScalarType::Int8 | ScalarType::Int16 | ScalarType::Int32
        )
    }

    /// True for the integer types (the operand types of arithmetic).
    pub fn is_int(self) -> bool {
        !matches!(self, ScalarType::Bit | ScalarType::FixP1_7)
    }

    /// All-ones mask of the type's width.
    pub fn mask(self) -> u64 {
        (1u64 << self.width()) - 1
    }

    /// The keyword used in `.seq` files.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bit => "bit",
            ScalarType::Int8 => "int8",
            ScalarType::UInt8 => "uint8",
            ScalarType::Int16 => "int16",
            ScalarType::UInt16 => "uint16",
            ScalarType::Int32 => "int32",
            ScalarType::UInt32 => "uint32",
            ScalarType::FixP1_7 => "fixp1_7",
        }
    }

    /// Parses a keyword; case and `_`/`-` are ignored (`UInt8`, `uint8`, `FixP1_7`).
    pub fn from_name(name: &str) -> Option<ScalarType> {
        let key = normalize_name(name);
        ScalarType::ALL
            .into_iter()
            .find(|t| normalize_name(t.name()) == key)
    }
}

/// Lower-cases a name and drops `_` and `-`, so `Up_1d`, `up-1d` and `up1d` are one name.
pub fn normalize_name(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// A sequence-language type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SeqType {
    /// A scalar.
    Scalar(ScalarType),
    /// An atom tuple `(atuple a b)`: a pair of atoms, itself an atom.
    ATuple(Box<SeqType>, Box<SeqType>),
    /// A seq-tuple `(stuple n t)`: n values of type t (t may be a sequence).
    STuple(u64, Box<SeqType>),
    /// A sequence `(seq n t)` of n elements of type t.
    Seq(u64, Box<SeqType>),
}

impl SeqType {
    /// `(seq n t)`.
    pub fn seq(n: u64, t: SeqType) -> SeqType {
        SeqType::Seq(n, Box::new(t))
    }

    /// `(stuple n t)`.
    pub fn stuple(n: u64, t: SeqType) -> SeqType {
        SeqType::STuple(n, Box::new(t))
    }

    /// `(atuple a b)`.
    pub fn atuple(a: SeqType, b: SeqType) -> SeqType {
        SeqType::ATuple(Box::new(a), Box::new(b))
    }

    /// An atom is a scalar or an atom tuple: what atom operators accept.
    pub fn is_atom(&self) -> bool {
        match self {
            SeqType::Scalar(_) => true,
            SeqType::ATuple(a, b) => a.is_atom() && b.is_atom(),
            _ => false,
        }
    }

    /// The scalar, if this is one.
    pub fn as_scalar(&self) -> Option<ScalarType> {
        match self {
            SeqType::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// `(n, element)` if this is a `seq`.
    pub fn as_seq(&self) -> Option<(u64, &SeqType)> {
        match self {
            SeqType::Seq(n, t) => Some((*n, t)),
            _ => None,
        }
    }

    /// `(n, element)` if this is an `stuple`.
    pub fn as_stuple(&self) -> Option<(u64, &SeqType)> {
        match self {
            SeqType::STuple(n, t) => Some((*n, t)),
            _ => None,
        }
    }

    /// `(a, b)` if this is an `atuple`.
    pub fn as_atuple(&self) -> Option<(&SeqType, &SeqType)> {
        match self {
            SeqType::ATuple(a, b) => Some((a, b)),
            _ => None,
        }
    }

    /// Bits of one value of this type (sequences count every element; saturates).
    pub fn bits(&self) -> u64 {
        match self {
            SeqType::Scalar(s) => u64::from(s.width()),
            SeqType::ATuple(a, b) => a.bits() + b.bits(),
            SeqType::STuple(n, t) | SeqType::Seq(n, t) => n.saturating_mul(t.bits()),
        }
    }

    /// Number of atoms in one value (an atom tuple counts as one atom; saturates).
    pub fn atoms(&self) -> u64 {
        match self {
            SeqType::Scalar(_) | SeqType::ATuple(..) => 1,
            SeqType::STuple(n, t) | SeqType::Seq(n, t) => n.saturating_mul(t.atoms()),
        }
    }

    /// The type a `reduce` function takes when it combines two values of this type:
    /// the pairing is pushed inside every sequence and seq-tuple layer down to the atoms
    /// (`uint8` -> `(atuple uint8 uint8)`, `(seq 1 uint8)` -> `(seq 1 (atuple uint8 uint8))`).
    /// This is Aetherling's `reduceC''` convention, which lets `(reduce 3 (map 1 add))` nest.
    pub fn zipped_pair(&self) -> SeqType {
        match self {
            SeqType::Scalar(_) | SeqType::ATuple(..) => SeqType::atuple(self.clone(), self.clone()),
            SeqType::STuple(n, t) => SeqType::stuple(*n, t.zipped_pair()),
            SeqType::Seq(n, t) => SeqType::seq(*n, t.zipped_pair()),
        }
    }
}

impl From<ScalarType> for SeqType {
    fn from(s: ScalarType) -> SeqType {
        SeqType::Scalar(s)
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for SeqType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeqType::Scalar(s) => write!(f, "{s}"),
            SeqType::ATuple(a, b) => write!(f, "(atuple {a} {b})"),
            SeqType::STuple(n, t) => write!(f, "(stuple {n} {t})"),
            SeqType::Seq(n, t) => write!(f, "(seq {n} {t})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_ignore_case() {
        for t in ScalarType::ALL {
            assert_eq!(ScalarType::from_name(t.name()), Some(t));
        }
        assert_eq!(ScalarType::from_name("UInt8"), Some(ScalarType::UInt8));
        assert_eq!(ScalarType::from_name("FixP1_7"), Some(ScalarType::FixP1_7));
        assert_eq!(ScalarType::from_name("int9"), None);
    }

    #[test]
    fn zipped_pair_pushes_the_pair_to_the_atoms() {
        let t = SeqType::seq(1, ScalarType::UInt8.into());
        assert_eq!(t.zipped_pair().to_string(), "(seq 1 (atuple uint8 uint8))");
    }

    #[test]
    fn measures() {
        let t = SeqType::seq(4, SeqType::stuple(3, ScalarType::Int16.into()));
        assert_eq!(t.bits(), 4 * 3 * 16);
        assert_eq!(t.atoms(), 12);
        assert!(!t.is_atom());
        assert!(SeqType::atuple(ScalarType::Bit.into(), ScalarType::UInt8.into()).is_atom());
    }
}
