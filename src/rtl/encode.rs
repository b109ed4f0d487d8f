//! How atoms travel on wires: a scalar is its raw bits (two's complement for signed types);
//! an atom tuple `(atuple a b)` is `{a, b}`, `a` in the high bits. A lane vector of a node
//! holds lane 0 in its lowest bits.

use super::netlist::Expr;
use crate::seq::value::Value;
use crate::st::Layout;

/// The bits of atom `v` of atom layout `atom`, most significant first; `None` marks a
/// don't-care bit (an [`Value::Undef`] part).
pub fn atom_bits(v: &Value, atom: &Layout) -> Vec<Option<bool>> {
    let mut out = Vec::with_capacity(atom.atom_bits() as usize);
    push_bits(v, atom, &mut out);
    out
}

fn push_bits(v: &Value, atom: &Layout, out: &mut Vec<Option<bool>>) {
    match (atom, v) {
        (Layout::ATuple(a, b), Value::Pair(p)) => {
            push_bits(&p.0, a, out);
            push_bits(&p.1, b, out);
        }
        (Layout::Scalar(s), Value::Scalar(x)) => {
            for k in (0..s.width()).rev() {
                out.push(Some((x >> k) & 1 == 1));
            }
        }
        _ => out.extend(std::iter::repeat_n(None, atom.atom_bits() as usize)),
    }
}

/// The atom whose bits (most significant first, as [`atom_bits`] gives them) are `bits`:
/// a part with a bit other than `0`/`1` (an `x` or `z` of the simulator) is
/// [`Value::Undef`].
pub fn atom_from_bits(bits: &[char], atom: &Layout) -> Value {
    match atom {
        Layout::ATuple(a, b) => {
            let wa = a.atom_bits() as usize;
            Value::pair(
                atom_from_bits(&bits[..wa], a),
                atom_from_bits(&bits[wa..], b),
            )
        }
        _ => bits
            .iter()
            .try_fold(0u64, |acc, c| match c {
                '0' => Some(acc << 1),
                '1' => Some(acc << 1 | 1),
                _ => None,
            })
            .map_or(Value::Undef, Value::Scalar),
    }
}

/// The atom as a sized literal; don't-care bits become 0 (synthesizable constants).
pub fn atom_lit(v: &Value, atom: &Layout) -> Expr {
    match (atom, v) {
        (Layout::ATuple(a, b), Value::Pair(p)) => {
            Expr::concat(&[atom_lit(&p.0, a), atom_lit(&p.1, b)])
        }
        (Layout::ATuple(a, b), _) => Expr::concat(&[atom_lit(v, a), atom_lit(v, b)]),
        (Layout::Scalar(s), Value::Scalar(x)) => Expr::lit(*x, s.width()),
        _ => Expr::zero(atom.atom_bits() as u32),
    }
}

/// Bit text of an atom for vector files: `0`/`1`, and `x` for don't-care bits when
/// `x_ok` (Icarus), else `0`.
pub fn bits_text(bits: &[Option<bool>], x_ok: bool) -> String {
    bits.iter()
        .map(|b| match b {
            Some(true) => '1',
            Some(false) => '0',
            None if x_ok => 'x',
            None => '0',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::types::ScalarType;

    #[test]
    fn tuples_put_the_first_part_high() {
        let l = Layout::atuple(ScalarType::Bit.into(), ScalarType::Int8.into());
        let v = Value::pair(Value::Scalar(1), Value::Scalar(0x81));
        assert_eq!(bits_text(&atom_bits(&v, &l), true), "110000001");
        assert_eq!(atom_lit(&v, &l).to_string(), "{1'h1, 8'h81}");
        let u = Value::pair(Value::Undef, Value::Scalar(2));
        assert_eq!(bits_text(&atom_bits(&u, &l), true), "x00000010");
    }

    #[test]
    fn bits_read_back_as_the_atom() {
        let l = Layout::atuple(ScalarType::Bit.into(), ScalarType::Int8.into());
        let v = Value::pair(Value::Scalar(1), Value::Scalar(0x81));
        let bits: Vec<char> = bits_text(&atom_bits(&v, &l), true).chars().collect();
        assert_eq!(atom_from_bits(&bits, &l), v);
        let u = Value::pair(Value::Undef, Value::Scalar(2));
        let bits: Vec<char> = bits_text(&atom_bits(&u, &l), true).chars().collect();
        assert_eq!(atom_from_bits(&bits, &l), u);
    }
}
