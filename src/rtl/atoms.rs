//! Atom operators as combinational expressions, with the exact wrapping semantics of the
//! interpreter (`seq::interp::atom`).
//!
//! Multiplying by a constant (a `const` generator feeding the tuple) is written as shifts
//! and adds over the canonical signed-digit form of the constant, so synthesis never spends
//! a DSP on it; the same holds for `div` by a constant reciprocal and for shifts by a
//! constant amount.

use super::netlist::{Expr, Sig};
use super::scope::Scope;
use crate::seq::op::AtomOp;
use crate::st::compare::NarrowLt;
use crate::st::Layout;

/// Known constant operands of a binary atom operator: `(left, right)` raw values.
pub type Consts = (Option<u64>, Option<u64>);

/// The output expression of atom operator `op` on the atom in `x`, laid out as `input`.
pub fn atom_expr(
    sc: &mut Scope,
    op: AtomOp,
    input: &Layout,
    x: &Sig,
    konst: Consts,
    name: &str,
) -> Result<Expr, String> {
    let (lw, rw) = match input {
        Layout::ATuple(a, b) => (a.atom_bits() as u32, b.atom_bits() as u32),
        _ => (x.width, 0),
    };
    let left = || x.bits(rw, lw);
    let right = || x.bits(0, rw);
    let lsigned = match input {
        Layout::ATuple(a, _) => matches!(**a, Layout::Scalar(s) if s.is_signed()),
        Layout::Scalar(s) => s.is_signed(),
        _ => false,
    };
    let binary = || -> Result<(), String> {
        if rw == 0 {
            Err(format!(
                "{}: expects an atom tuple, found {input}",
                op.name()
            ))
        } else {
            Ok(())
        }
    };
    Ok(match op {
        AtomOp::Abs => {
            if lsigned {
                let neg = Expr::add(&Expr::not(&x.e()), &Expr::lit(1, x.width));
                Expr::mux(&x.bits(x.width - 1, 1), &neg, &x.e())
            } else {
                x.e()
            }
        }
        AtomOp::Not => Expr::not(&x.e()),
        AtomOp::And => {
            binary()?;
            Expr::and(&left(), &right())
        }
        AtomOp::Or => {
            binary()?;
            Expr::or(&left(), &right())
        }
        AtomOp::Add => {
            binary()?;
            Expr::add(&left(), &right())
        }
        AtomOp::Sub => {
            binary()?;
            Expr::sub(&left(), &right())
        }
        AtomOp::Mul => {
            binary()?;
            match konst {
                (_, Some(c)) => const_mul(x, rw, lw, c),
                (Some(c), _) => const_mul(x, 0, rw, c),
                _ => Expr::mul(&left(), &right()),
            }
        }
        AtomOp::Div => {
            binary()?;
            // floor(a * b / 128) for b in fixp1_7: the product of a (sign- or zero-extended)
            // and b fits lw+8 bits; its bits 7 .. lw+6 are the result.
            let ew = lw + 8;
            let ext = if lsigned {
                Expr::concat(&[Expr::repl(8, &x.bits(rw + lw - 1, 1)), left()])
            } else {
                left().zext(ew)
            };
            let nm = sc.fresh(&format!("{name}_ext"));
            let a = sc.m.wire_eq(nm, ext);
            let prod = match konst.1 {
                Some(c) => const_mul(&a, 0, ew, c),
                None => Expr::mul(&a.e(), &right().zext(ew)),
            };
            let nm = sc.fresh(&format!("{name}_prod"));
            let p = sc.m.wire_eq(nm, prod);
            p.bits(7, lw)
        }
        AtomOp::Lsr | AtomOp::Lsl => {
            binary()?;
            match konst.1 {
                Some(k) => {
                    if k >= u64::from(lw) {
                        Expr::zero(lw)
                    } else if k == 0 {
                        left()
                    } else if op == AtomOp::Lsl {
                        shl_bits(x, rw, lw, k as u32)
                    } else {
                        let k = k as u32;
                        Expr::concat(&[Expr::zero(k), x.bits(rw + k, lw - k)])
                    }
                }
                None if op == AtomOp::Lsl => Expr::shl(&left(), &right()),
                None => Expr::shr(&left(), &right()),
            }
        }
        AtomOp::Lt => {
            binary()?;
            let narrow = NarrowLt::of_lt(input, konst);
            // the variable operand's bits from `lo` up (both operands are one type)
            let var_above = |lo: u32| {
                let at = if konst.0.is_some() { 0 } else { rw };
                x.bits(at + lo, lw - lo)
            };
            match narrow {
                None if lsigned => Expr::slt(&left(), &right()),
                None => Expr::lt(&left(), &right()),
                Some(NarrowLt::Always(b)) => Expr::lit(u64::from(b), 1),
                Some(NarrowLt::AnyAbove { lo }) => Expr::ne(&var_above(lo), &Expr::zero(lw - lo)),
                Some(NarrowLt::NoneAbove { lo }) => Expr::eq(&var_above(lo), &Expr::zero(lw - lo)),
                Some(NarrowLt::Shifted { lo, m, const_left }) => {
                    let at = if konst.0.is_some() { 0 } else { rw };
                    let bit = |i: u32| x.bits(at + lo + i, 1);
                    if const_left {
                        // m < y  <=>  !(y < m + 1)
                        Expr::not(&Expr::lt_const(bit, lw - lo, m + 1))
                    } else {
                        Expr::lt_const(bit, lw - lo, m)
                    }
                }
            }
        }
        AtomOp::Eq => {
            binary()?;
            Expr::eq(&left(), &right())
        }
        AtomOp::If => {
            binary()?;
            // (atuple bit (atuple t t)): x = {c, a, b}
            let tw = rw / 2;
            // As a mask, not `c ? a : b`: where a register follows and one branch is a
            // constant, synthesis makes a `?:` the register's synchronous set/reset, whose
            // net into the logic block is far slower than a LUT (docs/timing.md, "A
            // selection with a constant"); the mask packs into LUTs as the delay model
            // prices it.
            let c = x.bits(rw, 1);
            Expr::or(
                &Expr::and(&Expr::repl(tw, &c), &x.bits(tw, tw)),
                &Expr::and(&Expr::repl(tw, &Expr::not(&c)), &x.bits(0, tw)),
            )
        }
        AtomOp::Fst => {
            binary()?;
            left()
        }
        AtomOp::Snd => {
            binary()?;
            right()
        }
        AtomOp::Cast(to) => {
            // Wiring: the low bits, or the source under copies of its sign bit (signed) or
            // zeros (unsigned).
            let tw = to.width();
            if tw <= x.width {
                x.bits(0, tw)
            } else if lsigned {
                x.sext(tw)
            } else {
                x.e().zext(tw)
            }
        }
    })
}

/// Bits `lo .. lo+w` of `x` shifted left by `k < w` (zeros in).
fn shl_bits(x: &Sig, lo: u32, w: u32, k: u32) -> Expr {
    if k == 0 {
        return x.bits(lo, w);
    }
    Expr::concat(&[x.bits(lo, w - k), Expr::zero(k)])
}

/// The canonical signed-digit form of `c` modulo `2^w`: `(shift, negative)` terms.
pub fn csd(c: u64, w: u32) -> Vec<(u32, bool)> {
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let mut v = u128::from(c & mask);
    let mut out = Vec::new();
    let mut k = 0u32;
    while v != 0 && k < w {
        if v & 1 == 1 {
            // digit +1 if v = 1 mod 4, -1 if v = 3 mod 4
            if v & 3 == 3 {
                out.push((k, true));
                v += 1;
            } else {
                out.push((k, false));
                v -= 1;
            }
        }
        v >>= 1;
        k += 1;
    }
    out
}

/// Bits `lo .. lo+w` of `x` times the constant `c`, wrapping to `w` bits, as shifts and
/// adds.
fn const_mul(x: &Sig, lo: u32, w: u32, c: u64) -> Expr {
    let terms = csd(c, w);
    let mut acc: Option<Expr> = None;
    // positive terms first, so the sum rarely starts with a negation
    let mut sorted = terms.clone();
    sorted.sort_by_key(|t| t.1);
    for (k, neg) in sorted {
        let t = shl_bits(x, lo, w, k);
        acc = Some(match (acc, neg) {
            (None, false) => t,
            (None, true) => Expr::sub(&Expr::zero(w), &t),
            (Some(a), false) => Expr::add(&a, &t),
            (Some(a), true) => Expr::sub(&a, &t),
        });
    }
    acc.unwrap_or_else(|| Expr::zero(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(terms: &[(u32, bool)], x: i128) -> i128 {
        terms
            .iter()
            .map(|(k, n)| if *n { -(x << k) } else { x << k })
            .sum()
    }

    #[test]
    fn csd_represents_the_constant() {
        for w in [8u32, 16] {
            for c in 0..(1u64 << w.min(10)) {
                let t = csd(c, w);
                let m = 1i128 << w;
                assert_eq!(eval(&t, 1).rem_euclid(m), i128::from(c), "c={c} w={w}");
                // no two adjacent non-zero digits
                for p in t.windows(2) {
                    assert!(p[1].0 > p[0].0 + 1, "{c}: {t:?}");
                }
            }
        }
        assert_eq!(csd(7, 8), vec![(0, true), (3, false)]);
    }
}
