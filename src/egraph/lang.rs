//! The egg language of the sequence algebra.
//!
//! The encoding follows DESIGN.md §3:
//! - **applicative**: every operator takes its producers as children; there is no composition
//!   operator;
//! - **integers are leaf e-nodes** ([`SeqLang::Num`]), so rules bind them (`?n`) and the
//!   analysis reads them;
//! - **types are terms** (`uint8`, `(seq 4 uint8)`, `(stuple_type 3 t)`, `(atuple_type a b)`),
//!   so a function body's placeholder `(arg 0 T)` carries its type and every e-class has one
//!   type, whatever context a shared body is used in;
//! - **function bodies are closed sub-terms** over `(arg I T)` leaves, as in Aetherling's
//!   sub-DAGs; identical bodies share one e-class;
//! - `hmap` takes its functions as one `(list_to_seq F0 .. Fn-1)` child of kind function list.
//!
//! Space-time operators and layouts (`(at L v)`, reshapes) are meant to be added as further
//! variants, with new [`super::analysis::Kind`]s (layout, stream); nothing here assumes the
//! set of operators is closed except the exhaustive matches of the analysis and conversion.

use crate::seq::op::AtomOp;
use crate::seq::types::ScalarType;
use crate::seq::value::Value;
use egg::{define_language, Id};
use std::fmt;
use std::str::FromStr;

define_language! {
    /// One e-node of the sequence algebra. Children are listed in the order they print.
    ///
    /// - `"seq"`: Type term `(seq N T)`.
    /// - `"stuple_type"`: Type term `(stuple_type N T)`.
    /// - `"atuple_type"`: Type term `(atuple_type A B)`.
    /// - `"arg"`: `(arg I T)`: argument I, of type T, of the enclosing function body.
    /// - `"const"`: `(const LIT T)`: a constant.
    /// - `"counter"`: `(counter N INCR T)`.
    /// - `"cast"`: `(cast T x)`: the atom operator `cast_T` (a width conversion to the
    ///   scalar type T). The target is a type child, not part of the operator, so one rule
    ///   pattern `(cast ?t ?x)` covers every target and conditions can read it.
    /// - `"atuple"`: `(atuple a b)`.
    /// - `"map"`: `(map N F x)`.
    /// - `"map2"`: `(map2 N F x y)`.
    /// - `"reduce"`: `(reduce N F x)`.
    /// - `"hmap"`: `(hmap N FS x)` with FS a function list.
    /// - `"list_to_seq"`: `(list_to_seq F0 .. Fn-1)`: the function list of an `hmap`.
    /// - `"up_1d"`: `(up_1d N x)`.
    /// - `"down_1d"`: `(down_1d N I x)`.
    /// - `"shift"`: `(shift N S INIT x)`; INIT is `_` for don't-care.
    /// - `"partition"`: `(partition NO NI x)`.
    /// - `"unpartition"`: `(unpartition NO NI x)`.
    /// - `"transpose"`: `(transpose NO NI x)`.
    /// - `"stuple"`: `(stuple a b)`.
    /// - `"stuple_append"`: `(stuple_append tup x)`.
    /// - `"stuple_to_seq"`: `(stuple_to_seq N x)`.
    /// - `"seq_to_stuple"`: `(seq_to_stuple N x)`.
    /// - `Num`: An integer parameter.
    /// - `Scalar`: A scalar type term.
    /// - `Lit`: A literal value (constants, shift init values).
    /// - `Atom`: An atom operator applied to one atom.
    /// - `Input`: A program input.
    pub enum SeqLang {
        "seq" = TSeq([Id; 2]),
        "stuple_type" = TSTuple([Id; 2]),
        "atuple_type" = TATuple([Id; 2]),
        "arg" = Arg([Id; 2]),
        "const" = Const([Id; 2]),
        "counter" = Counter([Id; 3]),
        "cast" = Cast([Id; 2]),
        "atuple" = ATuple([Id; 2]),
        "map" = Map([Id; 3]),
        "map2" = Map2([Id; 4]),
        "reduce" = Reduce([Id; 3]),
        "hmap" = HMap([Id; 3]),
        "list_to_seq" = ListToSeq(Box<[Id]>),
        "up_1d" = Up([Id; 2]),
        "down_1d" = Down([Id; 3]),
        "shift" = Shift([Id; 4]),
        "partition" = Partition([Id; 3]),
        "unpartition" = Unpartition([Id; 3]),
        "transpose" = Transpose([Id; 3]),
        "stuple" = STuple([Id; 2]),
        "stuple_append" = STupleAppend([Id; 2]),
        "stuple_to_seq" = STupleToSeq([Id; 2]),
        "seq_to_stuple" = SeqToSTuple([Id; 2]),
        Num(u64),
        Scalar(ScalarName),
        Lit(Literal),
        Atom(AtomName, [Id; 1]),
        Input(InputRef),
    }
}

impl SeqLang {
    /// The positions of this node's *data* children: the producers it reads. Integer, type,
    /// literal and function-body children are not data children. Substitution and scope
    /// traversal follow only these.
    pub fn data_children(&self) -> &[Id] {
        match self {
            SeqLang::Atom(_, c) => c,
            SeqLang::Cast(c) => &c[1..],
            SeqLang::ATuple(c) | SeqLang::STuple(c) | SeqLang::STupleAppend(c) => c,
            SeqLang::Map(c) | SeqLang::Reduce(c) | SeqLang::HMap(c) => &c[2..],
            SeqLang::Map2(c) => &c[2..],
            SeqLang::Up(c) | SeqLang::STupleToSeq(c) | SeqLang::SeqToSTuple(c) => &c[1..],
            SeqLang::Down(c)
            | SeqLang::Partition(c)
            | SeqLang::Unpartition(c)
            | SeqLang::Transpose(c) => &c[2..],
            SeqLang::Shift(c) => &c[3..],
            _ => &[],
        }
    }

    /// The operator's keyword as printed.
    pub fn op_name(&self) -> String {
        match self {
            SeqLang::Num(n) => n.to_string(),
            SeqLang::Scalar(s) => s.to_string(),
            SeqLang::Lit(l) => l.to_string(),
            SeqLang::Atom(a, _) => a.to_string(),
            SeqLang::Input(i) => i.to_string(),
            other => {
                // Variants with a fixed keyword print it.
                let mut s = other.to_string();
                if let Some(k) = s.find(' ') {
                    s.truncate(k);
                }
                s
            }
        }
    }
}

/// A scalar type as a leaf (`uint8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScalarName(pub ScalarType);

impl fmt::Display for ScalarName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name())
    }
}

impl FromStr for ScalarName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        // Only the exact keyword: leaves must print and parse back identically.
        ScalarType::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .map(ScalarName)
            .ok_or_else(|| format!("not a scalar type: {s}"))
    }
}

/// An atom operator as the head of an [`SeqLang::Atom`] node (`add`). Casts are not atom
/// nodes: they are [`SeqLang::Cast`] nodes with their target type as a child.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AtomName(pub AtomOp);

impl fmt::Display for AtomName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name())
    }
}

impl FromStr for AtomName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        AtomOp::ALL
            .into_iter()
            .filter(|a| !matches!(a, AtomOp::Cast(_)))
            .find(|a| a.name() == s)
            .map(AtomName)
            .ok_or_else(|| format!("not an atom operator: {s}"))
    }
}

/// A program input leaf. Identity is the input's position; the name is only for printing
/// (the prover gives both programs the first program's names).
#[derive(Clone, Debug)]
pub struct InputRef {
    /// Position among the program's inputs.
    pub index: u32,
    /// The name it prints as.
    pub name: String,
}

impl PartialEq for InputRef {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl Eq for InputRef {}
impl std::hash::Hash for InputRef {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state);
    }
}
impl PartialOrd for InputRef {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for InputRef {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.index.cmp(&other.index)
    }
}

impl fmt::Display for InputRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl FromStr for InputRef {
    type Err = String;
    /// Inputs are never parsed from text (they come from programs), so this always fails.
    fn from_str(s: &str) -> Result<Self, String> {
        Err(format!("inputs are not parsed: {s}"))
    }
}

/// A literal value leaf: `_` (don't-care), raw scalar bits `5`, pairs `{a,b}`, lists
/// `[a,b,c]`. Printed without spaces so it stays one token.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Literal(pub Value);

impl Literal {
    /// The don't-care literal `_`.
    pub fn undef() -> Literal {
        Literal(Value::Undef)
    }
}

impl PartialOrd for Literal {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Literal {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // The printed form is injective, so this is a total order consistent with Eq.
        self.to_string().cmp(&other.to_string())
    }
}

fn write_lit(v: &Value, out: &mut String) {
    match v {
        Value::Undef => out.push('_'),
        Value::Scalar(raw) => out.push_str(&raw.to_string()),
        Value::Pair(p) => {
            out.push('{');
            write_lit(&p.0, out);
            out.push(',');
            write_lit(&p.1, out);
            out.push('}');
        }
        Value::List(xs) => {
            out.push('[');
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_lit(x, out);
            }
            out.push(']');
        }
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        write_lit(&self.0, &mut s);
        f.write_str(&s)
    }
}

impl FromStr for Literal {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bytes = s.as_bytes();
        let mut pos = 0;
        let v = parse_lit(bytes, &mut pos)?;
        if pos != bytes.len() {
            return Err(format!("trailing text in literal `{s}`"));
        }
        Ok(Literal(v))
    }
}

fn parse_lit(b: &[u8], pos: &mut usize) -> Result<Value, String> {
    let bad = || "malformed literal".to_string();
    match b.get(*pos) {
        Some(b'_') => {
            *pos += 1;
            Ok(Value::Undef)
        }
        Some(b'[') => {
            *pos += 1;
            let mut xs = Vec::new();
            if b.get(*pos) == Some(&b']') {
                *pos += 1;
                return Ok(Value::List(xs));
            }
            loop {
                xs.push(parse_lit(b, pos)?);
                match b.get(*pos) {
                    Some(b',') => *pos += 1,
                    Some(b']') => {
                        *pos += 1;
                        return Ok(Value::List(xs));
                    }
                    _ => return Err(bad()),
                }
            }
        }
        Some(b'{') => {
            *pos += 1;
            let a = parse_lit(b, pos)?;
            if b.get(*pos) != Some(&b',') {
                return Err(bad());
            }
            *pos += 1;
            let c = parse_lit(b, pos)?;
            if b.get(*pos) != Some(&b'}') {
                return Err(bad());
            }
            *pos += 1;
            Ok(Value::pair(a, c))
        }
        Some(c) if c.is_ascii_digit() => {
            let start = *pos;
            while b.get(*pos).is_some_and(u8::is_ascii_digit) {
                *pos += 1;
            }
            std::str::from_utf8(&b[start..*pos])
                .ok()
                .and_then(|t| t.parse().ok())
                .map(Value::Scalar)
                .ok_or_else(bad)
        }
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_round_trip() {
        let v = Value::List(vec![
            Value::Scalar(3),
            Value::Undef,
            Value::pair(Value::Scalar(1), Value::List(vec![])),
        ]);
        let l = Literal(v);
        let text = l.to_string();
        assert_eq!(text, "[3,_,{1,[]}]");
        assert_eq!(text.parse::<Literal>(), Ok(l));
        assert!("[1,".parse::<Literal>().is_err());
    }

    #[test]
    fn data_children_skip_parameters() {
        let ids: Vec<Id> = (0..4).map(Id::from).collect();
        let shift = SeqLang::Shift([ids[0], ids[1], ids[2], ids[3]]);
        assert_eq!(shift.data_children(), &[ids[3]]);
        let map = SeqLang::Map([ids[0], ids[1], ids[2]]);
        assert_eq!(map.data_children(), &[ids[2]]);
        assert_eq!(map.op_name(), "map");
    }
}
