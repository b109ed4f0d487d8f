//! Types, counts and literals as written in `.seq` files.

use super::{Front, MAX_ATOMS};
use crate::seq::types::{normalize_name, ScalarType, SeqType};
use crate::seq::value::{parse_literal, Value};
use crate::util::diag::Diagnostic;
use crate::util::sexp::Sexp;

impl Front<'_> {
    /// Parses a type.
    pub(super) fn ty(&self, sx: &Sexp) -> Result<SeqType, Diagnostic> {
        let t = self.ty_inner(sx)?;
        if t.atoms() > MAX_ATOMS {
            return Err(self.err(
                sx.pos,
                format!(
                    "type {t} holds {} atoms; the limit is {MAX_ATOMS}",
                    t.atoms()
                ),
            ));
        }
        Ok(t)
    }

    pub(super) fn ty_inner(&self, sx: &Sexp) -> Result<SeqType, Diagnostic> {
        if let Some(word) = sx.atom() {
            return ScalarType::from_name(word).map(SeqType::Scalar).ok_or_else(|| {
                self.err(
                    sx.pos,
                    format!("unknown type `{word}`: expected bit, int8, uint8, int16, uint16, int32, uint32, fixp1_7 or a (seq ..), (stuple ..), (atuple ..) form"),
                )
            });
        }
        let items = sx.list().unwrap_or_default();
        let head = sx.head().map(normalize_name).unwrap_or_default();
        match (head.as_str(), items) {
            ("seq" | "stuple", [_, n, t]) => {
                let n = self.count(n, "length")?;
                let t = self.ty_inner(t)?;
                if n.checked_mul(t.atoms()).is_none_or(|a| a > MAX_ATOMS) {
                    return Err(self.err(sx.pos, format!("this type holds more than {MAX_ATOMS} atoms")));
                }
                Ok(if head == "seq" { SeqType::seq(n, t) } else { SeqType::stuple(n, t) })
            }
            ("atuple", [_, a, b]) => {
                let (a, b) = (self.ty_inner(a)?, self.ty_inner(b)?);
                for (t, s) in [(&a, &items[1]), (&b, &items[2])] {
                    if !t.is_atom() {
                        return Err(self.err(s.pos, format!("an atuple holds atoms, found {t}")));
                    }
                }
                Ok(SeqType::atuple(a, b))
            }
            _ => Err(self.err(
                sx.pos,
                format!("expected a type such as uint8, (seq N T), (stuple N T) or (atuple A B), found `{}`", sx.excerpt(40)),
            )),
        }
    }

    /// A positive count (sequence lengths, partition factors).
    pub(super) fn count(&self, sx: &Sexp, what: &str) -> Result<u64, Diagnostic> {
        let n = self.natural(sx, what)?;
        if n == 0 {
            return Err(self.err(
                sx.pos,
                format!("{what} must be at least 1: zero-length sequences are not allowed"),
            ));
        }
        Ok(n)
    }

    pub(super) fn natural(&self, sx: &Sexp, what: &str) -> Result<u64, Diagnostic> {
        sx.natural(what, MAX_ATOMS).map_err(|e| self.err(sx.pos, e))
    }

    /// Parses a literal of type `t` ([`crate::seq::value::parse_literal`]).
    pub(super) fn literal(&self, sx: &Sexp, t: &SeqType) -> Result<Value, Diagnostic> {
        parse_literal(self.file, sx, t)
    }
}
