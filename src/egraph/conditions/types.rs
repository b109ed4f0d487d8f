//! Conditions on scalar types, for the cast rules (`rules/seq/cast.rules`).
//!
//! Each argument is a variable bound to a type class (`?t` in `(cast ?t ?x)`) or to a value
//! class, which stands for its type. Only scalars satisfy these conditions: a rule about
//! bit widths says nothing about tuples or sequences.

use super::{Bindings, Bound, Ctx};
use crate::egraph::analysis::Sort;
use crate::seq::types::ScalarType;
use egg::Var;

/// The scalar type of a variable bound to a type or a value class.
fn scalar_of(ctx: &Ctx<'_>, b: &Bindings, v: Var) -> Option<ScalarType> {
    let Some(Bound::Class(id)) = b.get(&v) else {
        return None;
    };
    match &ctx.egraph[*id].data.sort {
        Sort::Type(t) => t.as_scalar(),
        Sort::Value { ty, .. } => ty.as_scalar(),
        _ => None,
    }
}

/// True if every value of `from` is a value of `to`: casting from `from` to `to` changes
/// no number.
pub fn holds(to: ScalarType, from: ScalarType) -> bool {
    let (wt, wf) = (to.width(), from.width());
    match (to.is_signed(), from.is_signed()) {
        (false, false) | (true, true) => wt >= wf,
        // the top bit of `to` is its sign: one more bit is needed
        (true, false) => wt > wf,
        (false, true) => false,
    }
}

/// Runs one type condition (the loader checked the name and the arguments); `None` if
/// `name` is not one.
pub(super) fn check(ctx: &Ctx<'_>, name: &str, args: &[Var], b: &Bindings) -> Option<bool> {
    let s = |k: usize| scalar_of(ctx, b, args[k]);
    Some(match name {
        "type-is" => match (b.get(&args[0]), s(0), s(1)) {
            (Some(Bound::Class(x)), Some(a), Some(t)) => {
                matches!(ctx.egraph[*x].data.sort, Sort::Value { .. }) && a == t
            }
            _ => false,
        },
        "integer" => s(0).is_some_and(ScalarType::is_int),
        "width-le" => match (s(0), s(1)) {
            (Some(a), Some(c)) => a.width() <= c.width(),
            _ => false,
        },
        "holds" => match (s(0), s(1)) {
            (Some(t), Some(x)) => holds(t, x),
            _ => false,
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::op::AtomOp;
    use crate::seq::value::scalar_to_int;

    /// `holds` agrees with a check of every value (of the types up to 16 bits).
    #[test]
    fn holds_means_no_value_changes() {
        let small = AtomOp::CAST_TARGETS.into_iter().filter(|t| t.width() <= 16);
        for from in small.clone() {
            for to in small.clone() {
                let exact = (0..=from.mask()).all(|raw| {
                    let v = scalar_to_int(raw, from);
                    let back = scalar_to_int((v as u64) & to.mask(), to);
                    back == v
                });
                assert_eq!(holds(to, from), exact, "{from} -> {to}");
            }
        }
        assert!(holds(ScalarType::Int32, ScalarType::UInt16));
        assert!(!holds(ScalarType::UInt32, ScalarType::Int8));
    }
}
