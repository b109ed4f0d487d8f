//! The primitive operators of the sequence language (reference §1.2, plus `transpose`).
//!
//! Derived forms (`stencil_1d`, `stencil_2d`, the binary sugar of atom operators) are
//! expanded by the front end, so every later layer sees only these.

use super::program::NodeId;
use super::types::{ScalarType, SeqType};
use super::value::Value;
use std::fmt;

/// Operators on atoms. Binary operators take one atom tuple, as in Aetherling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AtomOp {
    /// `t -> t`, absolute value (wrapping: the minimum stays the minimum; identity if unsigned).
    Abs,
    /// `bit -> bit`.
    Not,
    /// `(atuple bit bit) -> bit`.
    And,
    /// `(atuple bit bit) -> bit`.
    Or,
    /// `(atuple t t) -> t`, wrapping.
    Add,
    /// `(atuple t t) -> t`, first minus second, wrapping.
    Sub,
    /// `(atuple t t) -> t`, wrapping.
    Mul,
    /// `(atuple t fixp1_7) -> t`: floor(x * c), i.e. divide by the reciprocal c.
    Div,
    /// `(atuple t uint8) -> t`: logical shift right.
    Lsr,
    /// `(atuple t uint8) -> t`: shift left, wrapping.
    Lsl,
    /// `(atuple t t) -> bit`: first < second (signed for signed types).
    Lt,
    /// `(atuple t t) -> bit`: equality of any atoms.
    Eq,
    /// `(atuple bit (atuple t t)) -> t`: the first of the pair if the bit is 1.
    If,
    /// `(atuple a b) -> a`.
    Fst,
    /// `(atuple a b) -> b`.
    Snd,
    /// `s -> t` for integer or bit types `s` and `t`: a width conversion. Wider: sign-extends
    /// a signed source, zero-extends an unsigned one; narrower: keeps the low bits; same
    /// width: the same bits, read as `t`. Written `(cast t x)`; one token `cast_t` where an
    /// operator is a single word (`.st` files, rule files).
    Cast(ScalarType),
}

impl AtomOp {
    /// Every atom operator, in a fixed order: the 15 fixed operators, then the casts to
    /// each of [`AtomOp::CAST_TARGETS`].
    pub const ALL: [AtomOp; 22] = [
        AtomOp::Abs,
        AtomOp::Not,
        AtomOp::And,
        AtomOp::Or,
        AtomOp::Add,
        AtomOp::Sub,
        AtomOp::Mul,
        AtomOp::Div,
        AtomOp::Lsr,
        AtomOp::Lsl,
        AtomOp::Lt,
        AtomOp::Eq,
        AtomOp::If,
        AtomOp::Fst,
        AtomOp::Snd,
        AtomOp::Cast(ScalarType::Bit),
        AtomOp::Cast(ScalarType::Int8),
        AtomOp::Cast(ScalarType::UInt8),
        AtomOp::Cast(ScalarType::Int16),
        AtomOp::Cast(ScalarType::UInt16),
        AtomOp::Cast(ScalarType::Int32),
        AtomOp::Cast(ScalarType::UInt32),
    ];

    /// The types a cast converts between: the integers and `bit` (`fixp1_7` is a fraction,
    /// whose bits a width conversion would not preserve as a number).
    pub const CAST_TARGETS: [ScalarType; 7] = [
        ScalarType::Bit,
        ScalarType::Int8,
        ScalarType::UInt8,
        ScalarType::Int16,
        ScalarType::UInt16,
        ScalarType::Int32,
        ScalarType::UInt32,
    ];

    /// True if `t` may be the source or the target of a cast.
    pub fn castable(t: ScalarType) -> bool {
        t != ScalarType::FixP1_7
    }

    /// The keyword used in `.seq` files; a cast is the one word `cast_T` (the surface form
    /// `(cast T x)` is read by the front end).
    pub fn name(self) -> &'static str {
        match self {
            AtomOp::Abs => "abs",
            AtomOp::Not => "not",
            AtomOp::And => "and",
            AtomOp::Or => "or",
            AtomOp::Add => "add",
            AtomOp::Sub => "sub",
            AtomOp::Mul => "mul",
            AtomOp::Div => "div",
            AtomOp::Lsr => "lsr",
            AtomOp::Lsl => "lsl",
            AtomOp::Lt => "lt",
            AtomOp::Eq => "eq",
            AtomOp::If => "if",
            AtomOp::Fst => "fst",
            AtomOp::Snd => "snd",
            AtomOp::Cast(t) => match t {
                ScalarType::Bit => "cast_bit",
                ScalarType::Int8 => "cast_int8",
                ScalarType::UInt8 => "cast_uint8",
                ScalarType::Int16 => "cast_int16",
                ScalarType::UInt16 => "cast_uint16",
                ScalarType::Int32 => "cast_int32",
                ScalarType::UInt32 => "cast_uint32",
                ScalarType::FixP1_7 => "cast_fixp1_7",
            },
        }
    }

    /// How many operands the surface sugar `(add x y)` takes: the atom tuple is built from
    /// them. Unary operators take their one operand as it is.
    pub fn sugar_arity(self) -> usize {
        match self {
            AtomOp::Abs | AtomOp::Not | AtomOp::Fst | AtomOp::Snd | AtomOp::Cast(_) => 1,
            AtomOp::If => 3,
            _ => 2,
        }
    }
}

/// A primitive operator with its static parameters. Data inputs are the node's `args`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Program input number `index` (into [`super::program::Program::inputs`]).
    Input(usize),
    /// Argument `index` of the enclosing function body, of type `ty`.
    Arg(u8, SeqType),
    /// `Const_Gen`: a constant of any type.
    Const(Value, SeqType),
    /// `Counter n incr`: `(seq n t)` holding `0, incr, 2*incr, ...` (wrapping).
    Counter { n: u64, incr: u64, ty: ScalarType },
    /// An atom operator applied to one atom.
    Atom(AtomOp),
    /// `ATuple`: two atoms to an atom tuple.
    ATuple,
    /// `Map n f`.
    Map { n: u64, body: NodeId },
    /// `Map2 n f`.
    Map2 { n: u64, body: NodeId },
    /// `Reduce n f`: `(seq n t) -> (seq 1 t)`; `f` takes `t`'s zipped pair.
    Reduce { n: u64, body: NodeId },
    /// `HMap n [f_0 .. f_n-1]` (the Stencil seed's heterogeneous map): element `i` of
    /// `(seq n a)` goes through `f_i : a -> b`. Written `(hmap n (list_to_seq f_0 ..) x)`.
    HMap { n: u64, bodies: Vec<NodeId> },
    /// `Up_1d n`: `(seq 1 t) -> (seq n t)`.
    Up { n: u64 },
    /// `Down_1d n idx` (also `Select_1d`): `(seq n t) -> (seq 1 t)`.
    Down { n: u64, idx: u64 },
    /// `Shift n amount`: `out[j] = in[j - amount]`; the first `amount` elements are `init`,
    /// or don't-care when there is none.
    Shift {
        n: u64,
        amount: u64,
        init: Option<Value>,
    },
    /// `Partition no ni`: `(seq no*ni t) -> (seq no (seq ni t))`, row-major.
    Partition { no: u64, ni: u64 },
    /// `Unpartition no ni`: the inverse of `Partition no ni`.
    Unpartition { no: u64, ni: u64 },
    /// `Transpose no ni`: `(seq no (seq ni t)) -> (seq ni (seq no t))`.
    Transpose { no: u64, ni: u64 },
    /// `STuple`: `t -> t -> (stuple 2 t)`.
    STuple,
    /// `STupleAppend`: `(stuple n-1 t) -> t -> (stuple n t)`.
    STupleAppend,
    /// `STupleToSeq n`: `(seq 1 (stuple n t)) -> (seq n t)`.
    STupleToSeq { n: u64 },
    /// `SeqToSTuple n`: `(seq n t) -> (seq 1 (stuple n t))`.
    SeqToSTuple { n: u64 },
}

impl Op {
    /// The number of data inputs.
    pub fn arity(&self) -> usize {
        match self {
            Op::Input(_) | Op::Arg(..) | Op::Const(..) | Op::Counter { .. } => 0,
            Op::Map2 { .. } | Op::ATuple | Op::STuple | Op::STupleAppend => 2,
            _ => 1,
        }
    }

    /// Every function body of a higher-order operator (`hmap` has one per element).
    pub fn bodies(&self) -> Vec<NodeId> {
        match self {
            Op::HMap { bodies, .. } => bodies.clone(),
            _ => self.body().into_iter().collect(),
        }
    }

    /// The function body of `map`, `map2` or `reduce` (`None` for `hmap`, which has
    /// several: see [`Op::bodies`]).
    pub fn body(&self) -> Option<NodeId> {
        match self {
            Op::Map { body, .. } | Op::Map2 { body, .. } | Op::Reduce { body, .. } => Some(*body),
            _ => None,
        }
    }

    /// The operator's name as written in `.seq` files.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Input(_) => "input",
            Op::Arg(..) => "arg",
            Op::Const(..) => "const",
            Op::Counter { .. } => "counter",
            Op::Atom(a) => a.name(),
            Op::ATuple => "atuple",
            Op::Map { .. } => "map",
            Op::Map2 { .. } => "map2",
            Op::Reduce { .. } => "reduce",
            Op::HMap { .. } => "hmap",
            Op::Up { .. } => "up_1d",
            Op::Down { .. } => "down_1d",
            Op::Shift { .. } => "shift",
            Op::Partition { .. } => "partition",
            Op::Unpartition { .. } => "unpartition",
            Op::Transpose { .. } => "transpose",
            Op::STuple => "stuple",
            Op::STupleAppend => "stuple_append",
            Op::STupleToSeq { .. } => "stuple_to_seq",
            Op::SeqToSTuple { .. } => "seq_to_stuple",
        }
    }
}

impl fmt::Display for Op {
    /// The operator head with its static parameters, e.g. `partition 4 4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name();
        match self {
            Op::Input(i) => write!(f, "{name} {i}"),
            Op::Arg(i, t) => write!(f, "{name} {i} {t}"),
            Op::Const(_, t) => write!(f, "{name} {t}"),
            Op::Counter { n, incr, ty } => write!(f, "{name} {n} {incr} {ty}"),
            Op::Map { n, .. }
            | Op::Map2 { n, .. }
            | Op::Reduce { n, .. }
            | Op::HMap { n, .. }
            | Op::Up { n } => {
                write!(f, "{name} {n}")
            }
            Op::Down { n, idx } => write!(f, "{name} {n} {idx}"),
            Op::Shift { n, amount, .. } => write!(f, "{name} {n} {amount}"),
            Op::Partition { no, ni } | Op::Unpartition { no, ni } | Op::Transpose { no, ni } => {
                write!(f, "{name} {no} {ni}")
            }
            Op::STupleToSeq { n } | Op::SeqToSTuple { n } => write!(f, "{name} {n}"),
            _ => f.write_str(name),
        }
    }
}
