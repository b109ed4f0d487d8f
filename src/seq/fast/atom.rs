//! Atom operators over whole columns.
//!
//! The arithmetic is the reference interpreter's ([`interp::scalar_atom`]), called once per
//! scalar with the operator fixed per loop so the compiler specialises each loop; only the
//! structural operators (`fst`, `snd`, `if`, `eq` on atom tuples) are written here.
//! Don't-care follows the reference: any don't-care scalar of the operand atom makes the
//! result don't care, except that `fst`/`snd` project and `if` with a known condition
//! takes its branch as it is.

use super::col::Col;
use crate::seq::flat::atom_slots;
use crate::seq::interp;
use crate::seq::op::AtomOp;
use crate::seq::types::{ScalarType, SeqType};

/// Scalars per block: small enough that a block's operands and result stay in cache.
const BLOCK: usize = 1024;

/// Applies `op` to a batch of atoms of type `t`, given as one column per slot of `t`.
pub(super) fn apply(op: AtomOp, t: &SeqType, cols: &[Col]) -> Vec<Col> {
    let left = || match t {
        SeqType::ATuple(a, _) => {
            let mut s = Vec::new();
            atom_slots(a, &mut s);
            s.len()
        }
        // The checker only lets atom tuples through; the reference projects a non-pair to
        // itself.
        _ => cols.len(),
    };
    match op {
        AtomOp::Fst => cols[..left()].to_vec(),
        AtomOp::Snd => {
            let l = left();
            if l == cols.len() {
                cols.to_vec()
            } else {
                cols[l..].to_vec()
            }
        }
        AtomOp::If => {
            let k = (cols.len() - 1) / 2;
            (0..k)
                .map(|j| select(&cols[0], &cols[1 + j], &cols[1 + k + j]))
                .collect()
        }
        AtomOp::Eq => {
            let k = cols.len() / 2;
            let same = |j: usize| binary(&cols[j], &cols[k + j], |x, y| u32::from(x == y));
            let all = (1..k).fold(same(0), |acc, j| binary(&acc, &same(j), |x, y| x & y));
            vec![all]
        }
        // Every other operator works on scalars: the one operand of a unary operator, or
        // the two sides of an atom tuple of scalars.
        _ => {
            let (s, rs, b) = match t {
                SeqType::ATuple(a, b) => (scalar(a), scalar(b), Some(&cols[1])),
                _ => (scalar(t), scalar(t), None),
            };
            vec![scalar_op(op, s, rs, &cols[0], b)]
        }
    }
}

fn scalar(t: &SeqType) -> ScalarType {
    t.as_scalar().unwrap_or(ScalarType::Bit)
}

/// A scalar-level operator over one or two columns.
fn scalar_op(op: AtomOp, s: ScalarType, rs: ScalarType, a: &Col, b: Option<&Col>) -> Col {
    macro_rules! run {
        ($op:expr) => {{
            let f = move |x: u32, y: u32| {
                interp::scalar_atom($op, u64::from(x), u64::from(y), s, rs) as u32
            };
            match b {
                Some(b) => binary(a, b, f),
                None => unary(a, move |x| f(x, x)),
            }
        }};
    }
    // The hot operators get a loop each with the operator a constant; any other (a new
    // operator included) runs through the same code with the operator a variable.
    match op {
        AtomOp::Add => run!(AtomOp::Add),
        AtomOp::Sub => run!(AtomOp::Sub),
        AtomOp::Mul => run!(AtomOp::Mul),
        AtomOp::Div => run!(AtomOp::Div),
        AtomOp::Lsr => run!(AtomOp::Lsr),
        AtomOp::Lsl => run!(AtomOp::Lsl),
        AtomOp::Lt => run!(AtomOp::Lt),
        AtomOp::And => run!(AtomOp::And),
        AtomOp::Or => run!(AtomOp::Or),
        AtomOp::Not => run!(AtomOp::Not),
        other => run!(other),
    }
}

/// Operand blocks: borrowed from the column when they lie in one plain run, else copied.
#[derive(Default)]
struct Scratch {
    d: Vec<u32>,
    u: Vec<bool>,
}

impl Scratch {
    fn fetch<'a>(
        &'a mut self,
        c: &'a Col,
        start: usize,
        n: usize,
    ) -> (&'a [u32], Option<&'a [bool]>) {
        if let Some(x) = c.contig(start, n) {
            return x;
        }
        self.d.resize(n, 0);
        if c.has_undef() {
            self.u.resize(n, false);
            c.read(start, &mut self.d[..n], Some(&mut self.u[..n]));
            (&self.d[..n], Some(&self.u[..n]))
        } else {
            c.read(start, &mut self.d[..n], None);
            (&self.d[..n], None)
        }
    }
}

/// If every column repeats with a period and the common period is short, the period
/// (operations on constants are computed once, not once per instance).
fn common_period(cols: &[&Col]) -> Option<usize> {
    let len = cols[0].len();
    let mut p = 1usize;
    for c in cols {
        let q = c.period()?;
        p = p / super::gcd(p, q) * q;
        if p > len / 2 {
            return None;
        }
    }
    Some(p)
}

fn or_marks(out: &mut [bool], marks: &[Option<&[bool]>]) {
    for m in marks.iter().flatten() {
        for (o, x) in out.iter_mut().zip(*m) {
            *o |= *x;
        }
    }
}

fn unary(a: &Col, f: impl Fn(u32) -> u32 + Copy) -> Col {
    let len = a.len();
    if let Some(p) = common_period(&[a]) {
        return Col::repeat(&unary(&a.slice(0, p), f), len);
    }
    let mut out = vec![0u32; len];
    let undef = a.has_undef();
    let mut out_u = if undef { vec![false; len] } else { Vec::new() };
    let mut sa = Scratch::default();
    for start in (0..len).step_by(BLOCK) {
        let n = BLOCK.min(len - start);
        let (da, ua) = sa.fetch(a, start, n);
        for (o, x) in out[start..start + n].iter_mut().zip(da) {
            *o = f(*x);
        }
        if undef {
            or_marks(&mut out_u[start..start + n], &[ua]);
        }
    }
    Col::dense(out, undef.then_some(out_u))
}

fn binary(a: &Col, b: &Col, f: impl Fn(u32, u32) -> u32 + Copy) -> Col {
    let len = a.len();
    if let Some(p) = common_period(&[a, b]) {
        return Col::repeat(&binary(&a.slice(0, p), &b.slice(0, p), f), len);
    }
    let mut out = vec![0u32; len];
    let undef = a.has_undef() || b.has_undef();
    let mut out_u = if undef { vec![false; len] } else { Vec::new() };
    let (mut sa, mut sb) = (Scratch::default(), Scratch::default());
    for start in (0..len).step_by(BLOCK) {
        let n = BLOCK.min(len - start);
        let (da, ua) = sa.fetch(a, start, n);
        let (db, ub) = sb.fetch(b, start, n);
        for ((o, x), y) in out[start..start + n].iter_mut().zip(da).zip(db) {
            *o = f(*x, *y);
        }
        if undef {
            or_marks(&mut out_u[start..start + n], &[ua, ub]);
        }
    }
    Col::dense(out, undef.then_some(out_u))
}

/// One slot of `if`: `x` where the condition is 1, else `y`; don't care where the
/// condition is, else as the chosen side.
fn select(c: &Col, x: &Col, y: &Col) -> Col {
    let len = c.len();
    if let Some(p) = common_period(&[c, x, y]) {
        return Col::repeat(&select(&c.slice(0, p), &x.slice(0, p), &y.slice(0, p)), len);
    }
    let mut out = vec![0u32; len];
    let undef = c.has_undef() || x.has_undef() || y.has_undef();
    let mut out_u = if undef { vec![false; len] } else { Vec::new() };
    let (mut sc, mut sx, mut sy) = (Scratch::default(), Scratch::default(), Scratch::default());
    for start in (0..len).step_by(BLOCK) {
        let n = BLOCK.min(len - start);
        let (dc, uc) = sc.fetch(c, start, n);
        let (dx, ux) = sx.fetch(x, start, n);
        let (dy, uy) = sy.fetch(y, start, n);
        for (i, o) in out[start..start + n].iter_mut().enumerate() {
            *o = if dc[i] == 1 { dx[i] } else { dy[i] };
        }
        if undef {
            for (i, o) in out_u[start..start + n].iter_mut().enumerate() {
                let chosen = if dc[i] == 1 { ux } else { uy };
                *o = uc.is_some_and(|u| u[i]) || chosen.is_some_and(|u| u[i]);
            }
        }
    }
    Col::dense(out, undef.then_some(out_u))
}
