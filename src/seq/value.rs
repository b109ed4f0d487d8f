//! Runtime values of the sequence language, and their text, JSON and random forms.
//!
//! A value does not carry its type: the program's types say how to read it. Scalars are raw
//! bit patterns masked to the type's width, so wrapping arithmetic is exact and signedness is
//! only a matter of reading the bits.

use super::types::{ScalarType, SeqType};
use crate::util::diag::Diagnostic;
use crate::util::rng::Rng;
use crate::util::sexp::{Sexp, SexpKind};
use std::fmt::Write;

/// A value of some [`SeqType`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// Don't care: what an unset `shift` moves in, and everything computed from it.
    Undef,
    /// A scalar's raw bits (two's complement for signed types, raw for `fixp1_7`).
    Scalar(u64),
    /// An atom tuple.
    Pair(Box<(Value, Value)>),
    /// A sequence or a seq-tuple.
    List(Vec<Value>),
}

impl Value {
    /// A pair value.
    pub fn pair(a: Value, b: Value) -> Value {
        Value::Pair(Box::new((a, b)))
    }

    /// A scalar from a signed or unsigned integer, wrapped to the type's width.
    pub fn from_int(v: i128, t: ScalarType) -> Value {
        Value::Scalar((v as u64) & t.mask())
    }

    /// True if this value or any part of it is [`Value::Undef`].
    pub fn has_undef(&self) -> bool {
        match self {
            Value::Undef => true,
            Value::Scalar(_) => false,
            Value::Pair(p) => p.0.has_undef() || p.1.has_undef(),
            Value::List(xs) => xs.iter().any(Value::has_undef),
        }
    }

    /// True if every part of this value is [`Value::Undef`]: don't care as a whole. An atom
    /// tuple shifted in by a `shift` without init is `(_, _)` in the interpreter and one
    /// `_` word in the simulator and the RTL; both mean the same.
    pub fn is_all_undef(&self) -> bool {
        match self {
            Value::Undef => true,
            Value::Scalar(_) => false,
            Value::Pair(p) => p.0.is_all_undef() && p.1.is_all_undef(),
            Value::List(xs) => xs.iter().all(Value::is_all_undef),
        }
    }

    /// The elements of a sequence or seq-tuple.
    ///
    /// # Panics
    /// If the value is not a list; the type checker rules that out for checked programs.
    pub fn list(&self) -> &[Value] {
        match self {
            Value::List(xs) => xs,
            other => panic!("internal error: expected a sequence value, found {other:?}"),
        }
    }
}

/// Reads raw bits as the signed or unsigned integer they denote.
pub fn scalar_to_int(raw: u64, t: ScalarType) -> i128 {
    let w = t.width();
    if t.is_signed() && (raw >> (w - 1)) & 1 == 1 {
        i128::from(raw) - (1i128 << w)
    } else {
        i128::from(raw)
    }
}

/// Formats a scalar for people: integers in decimal with their sign, fixed point as an exact
/// decimal fraction (`0.0625`), bits as 0/1.
pub fn format_scalar(raw: u64, t: ScalarType) -> String {
    match t {
        ScalarType::FixP1_7 => format_fixp(raw),
        _ => scalar_to_int(raw, t).to_string(),
    }
}

fn format_fixp(raw: u64) -> String {
    // raw / 128 always has a finite decimal expansion of at most 7 fraction digits.
    let int = raw / 128;
    let mut frac = raw % 128;
    if frac == 0 {
        return int.to_string();
    }
    let mut s = format!("{int}.");
    while frac != 0 {
        frac *= 10;
        s.push(char::from(b'0' + (frac / 128) as u8));
        frac %= 128;
    }
    s
}

/// Parses a scalar literal of type `t`: a decimal integer (negative for signed types), `0`/`1`
/// or `true`/`false` for bits, and for `fixp1_7` a fraction `1/16` or a decimal `0.0625`
/// that is an exact multiple of 1/128 in [0, 2).
pub fn parse_scalar(text: &str, t: ScalarType) -> Result<u64, String> {
    match t {
        ScalarType::Bit => match text {
            "0" | "false" => Ok(0),
            "1" | "true" => Ok(1),
            _ => Err(format!("expected a bit (0 or 1), found `{text}`")),
        },
        ScalarType::FixP1_7 => parse_fixp(text),
        _ => {
            let v: i128 = text
                .parse()
                .map_err(|_| format!("expected an integer of type {t}, found `{text}`"))?;
            let (lo, hi) = int_range(t);
            if v < lo || v > hi {
                return Err(format!("{v} does not fit {t} (range {lo}..={hi})"));
            }
            Ok((v as u64) & t.mask())
        }
    }
}

/// The inclusive range of an integer type.
pub fn int_range(t: ScalarType) -> (i128, i128) {
    let w = t.width();
    if t.is_signed() {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    }
}

fn parse_fixp(text: &str) -> Result<u64, String> {
    let bad = || {
        format!(
            "expected a fixp1_7 value (a multiple of 1/128 in [0, 2), written like 1/16 or 0.25), found `{text}`"
        )
    };
    // Exact rational arithmetic: num/den * 128 must be an integer.
    let (num, den): (u128, u128) = if let Some((n, d)) = text.split_once('/') {
        let n: u128 = n.parse().map_err(|_| bad())?;
        let d: u128 = d.parse().map_err(|_| bad())?;
        if d == 0 {
            return Err(bad());
        }
        (n, d)
    } else if let Some((i, f)) = text.split_once('.') {
        if f.is_empty() || f.len() > 12 || !f.chars().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        let i: u128 = i.parse().map_err(|_| bad())?;
        let fv: u128 = f.parse().map_err(|_| bad())?;
        let d = 10u128.pow(f.len() as u32);
        let num = i.checked_mul(d).and_then(|x| x.checked_add(fv));
        (num.ok_or_else(bad)?, d)
    } else {
        (text.parse().map_err(|_| bad())?, 1)
    };
    let scaled = num.checked_mul(128).ok_or_else(bad)?;
    if scaled % den != 0 || scaled / den > 255 {
        return Err(bad());
    }
    Ok((scaled / den) as u64)
}

/// Reads a literal of type `t` as written in `.seq` and `.st` files: scalars per
/// [`parse_scalar`], `(A B)` for an atom tuple, `(X1 .. XN)` for a sequence or seq-tuple,
/// `_` for don't-care. Errors carry `file` and the position of the offending part.
pub fn parse_literal(file: &str, sx: &Sexp, t: &SeqType) -> Result<Value, Diagnostic> {
    let err = |m: String| Diagnostic::at(file, sx.pos, m);
    match (t, &sx.kind) {
        (_, SexpKind::Atom(a)) if a == "_" => Ok(Value::Undef),
        (SeqType::Scalar(s), SexpKind::Atom(text)) => {
            parse_scalar(text, *s).map(Value::Scalar).map_err(err)
        }
        (SeqType::ATuple(a, b), SexpKind::List(xs)) if xs.len() == 2 => Ok(Value::pair(
            parse_literal(file, &xs[0], a)?,
            parse_literal(file, &xs[1], b)?,
        )),
        (SeqType::Seq(n, e) | SeqType::STuple(n, e), SexpKind::List(xs))
            if xs.len() as u64 == *n =>
        {
            xs.iter()
                .map(|x| parse_literal(file, x, e))
                .collect::<Result<_, _>>()
                .map(Value::List)
        }
        // a literal is the value itself, where a program's value is written `(const T v)`
        (_, SexpKind::List(xs)) if xs.len() == 3 && sx.head() == Some("const") => {
            Err(err(format!(
                "expected a literal of type {t}, found `{}`: a literal is written without \
                 `const`, as `{}`",
                sx.excerpt(40),
                xs[2].excerpt(40)
            )))
        }
        _ => Err(err(format!(
            "expected a literal of type {t}, found `{}`",
            sx.excerpt(40)
        ))),
    }
}

/// Formats a value of type `t` as text: sequences `[a, b]`, seq-tuples `<a, b>`,
/// atom tuples `(a, b)`, don't-care `_`.
pub fn format_value(v: &Value, t: &SeqType) -> String {
    let mut s = String::new();
    write_value(&mut s, v, t);
    s
}

fn write_value(out: &mut String, v: &Value, t: &SeqType) {
    match (v, t) {
        (Value::Undef, _) => out.push('_'),
        (Value::Scalar(raw), SeqType::Scalar(s)) => out.push_str(&format_scalar(*raw, *s)),
        (Value::Pair(p), SeqType::ATuple(a, b)) => {
            out.push('(');
            write_value(out, &p.0, a);
            out.push_str(", ");
            write_value(out, &p.1, b);
            out.push(')');
        }
        (Value::List(xs), SeqType::Seq(_, e) | SeqType::STuple(_, e)) => {
            let (open, close) = if matches!(t, SeqType::Seq(..)) {
                ('[', ']')
            } else {
                ('<', '>')
            };
            out.push(open);
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, x, e);
            }
            out.push(close);
        }
        (v, t) => {
            let _ = write!(out, "<ill-typed {v:?} : {t}>");
        }
    }
}

/// Converts a value of type `t` to JSON: arrays for every layer and tuple, numbers for
/// scalars (fixed point as its exact decimal), `null` for don't-care.
pub fn to_json(v: &Value, t: &SeqType) -> serde_json::Value {
    use serde_json::Value as J;
    match (v, t) {
        (Value::Undef, _) => J::Null,
        (Value::Scalar(raw), SeqType::Scalar(ScalarType::FixP1_7)) => {
            serde_json::Number::from_f64(*raw as f64 / 128.0).map_or(J::Null, J::Number)
        }
        (Value::Scalar(raw), SeqType::Scalar(s)) => {
            let i = scalar_to_int(*raw, *s);
            J::Number(serde_json::Number::from(i as i64))
        }
        (Value::Pair(p), SeqType::ATuple(a, b)) => {
            J::Array(vec![to_json(&p.0, a), to_json(&p.1, b)])
        }
        (Value::List(xs), SeqType::Seq(_, e) | SeqType::STuple(_, e)) => {
            J::Array(xs.iter().map(|x| to_json(x, e)).collect())
        }
        _ => J::Null,
    }
}

/// Reads a value of type `t` from JSON (the form [`to_json`] writes). `path` names the place
/// in the document for error messages, e.g. `I[3][1]`.
pub fn from_json(j: &serde_json::Value, t: &SeqType, path: &str) -> Result<Value, String> {
    use serde_json::Value as J;
    match (j, t) {
        (J::Null, _) => Ok(Value::Undef),
        (J::Number(n), SeqType::Scalar(s)) => {
            let text = n.to_string();
            parse_scalar(&text, *s)
                .map(Value::Scalar)
                .map_err(|e| format!("{path}: {e}"))
        }
        (J::Bool(b), SeqType::Scalar(ScalarType::Bit)) => Ok(Value::Scalar(u64::from(*b))),
        (J::String(text), SeqType::Scalar(s)) => parse_scalar(text, *s)
            .map(Value::Scalar)
            .map_err(|e| format!("{path}: {e}")),
        (J::Array(xs), SeqType::ATuple(a, b)) if xs.len() == 2 => Ok(Value::pair(
            from_json(&xs[0], a, &format!("{path}[0]"))?,
            from_json(&xs[1], b, &format!("{path}[1]"))?,
        )),
        (J::Array(xs), SeqType::Seq(n, e) | SeqType::STuple(n, e)) if xs.len() as u64 == *n => xs
            .iter()
            .enumerate()
            .map(|(i, x)| from_json(x, e, &format!("{path}[{i}]")))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::List),
        (J::Array(xs), _) => Err(format!(
            "{path}: expected a value of type {t}, found an array of {} elements",
            xs.len()
        )),
        (other, _) => Err(format!(
            "{path}: expected a value of type {t}, found `{other}`"
        )),
    }
}

/// Checks that `v` has the shape of type `t` (don't-care fits anywhere).
pub fn check_value(v: &Value, t: &SeqType) -> Result<(), String> {
    match (v, t) {
        (Value::Undef, _) => Ok(()),
        (Value::Scalar(raw), SeqType::Scalar(s)) if raw & !s.mask() == 0 => Ok(()),
        (Value::Pair(p), SeqType::ATuple(a, b)) => {
            check_value(&p.0, a)?;
            check_value(&p.1, b)
        }
        (Value::List(xs), SeqType::Seq(n, e) | SeqType::STuple(n, e)) if xs.len() as u64 == *n => {
            xs.iter().try_for_each(|x| check_value(x, e))
        }
        _ => Err(format!("the value does not have type {t}")),
    }
}

/// A uniformly random value of type `t` (every bit pattern equally likely).
pub fn random_value(t: &SeqType, rng: &mut Rng) -> Value {
    match t {
        SeqType::Scalar(s) => Value::Scalar(rng.next_u64() & s.mask()),
        SeqType::ATuple(a, b) => Value::pair(random_value(a, rng), random_value(b, rng)),
        SeqType::STuple(n, e) | SeqType::Seq(n, e) => {
            Value::List((0..*n).map(|_| random_value(e, rng)).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_literals() {
        assert_eq!(parse_scalar("255", ScalarType::UInt8), Ok(255));
        assert!(parse_scalar("256", ScalarType::UInt8).is_err());
        assert_eq!(parse_scalar("-1", ScalarType::Int8), Ok(0xff));
        assert!(parse_scalar("-129", ScalarType::Int8).is_err());
        assert_eq!(parse_scalar("1/16", ScalarType::FixP1_7), Ok(8));
        assert_eq!(parse_scalar("0.25", ScalarType::FixP1_7), Ok(32));
        assert_eq!(parse_scalar("1.5", ScalarType::FixP1_7), Ok(192));
        assert!(parse_scalar("1/3", ScalarType::FixP1_7).is_err());
        assert!(parse_scalar("2", ScalarType::FixP1_7).is_err());
        assert!(parse_scalar("2", ScalarType::Bit).is_err());
    }

    #[test]
    fn fixp_prints_exactly() {
        assert_eq!(format_scalar(8, ScalarType::FixP1_7), "0.0625");
        assert_eq!(format_scalar(1, ScalarType::FixP1_7), "0.0078125");
        assert_eq!(format_scalar(128, ScalarType::FixP1_7), "1");
    }

    #[test]
    fn json_round_trip() {
        let t = SeqType::seq(
            2,
            SeqType::atuple(ScalarType::Int8.into(), ScalarType::FixP1_7.into()),
        );
        let v = Value::List(vec![
            Value::pair(Value::Scalar(0xff), Value::Scalar(8)),
            Value::Undef,
        ]);
        let j = to_json(&v, &t);
        assert_eq!(j.to_string(), "[[-1,0.0625],null]");
        assert_eq!(from_json(&j, &t, "I"), Ok(v));
        let err = from_json(&serde_json::json!([1]), &t, "I").unwrap_err();
        assert!(err.contains("I: expected a value of type"), "{err}");
    }
}
