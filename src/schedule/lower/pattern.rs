//! Numbers and layouts in lowering rules: expressions, layout patterns, bindings, and the
//! side conditions that compute numbers.

use super::Cond;
use crate::schedule::slowdown::divisors;
use crate::seq::value::Value;
use crate::st::Layout;

/// A variable's value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    /// A number.
    Num(u64),
    /// A layout.
    Lay(Layout),
    /// A shift's initial element (`None`: don't care).
    Init(Option<Value>),
}

/// The values of a rule's variables, indexed by variable number.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Env(Vec<Option<Bound>>);

impl Env {
    /// No variable bound.
    pub fn new(vars: usize) -> Env {
        Env(vec![None; vars])
    }

    /// The value of variable `v`.
    pub fn get(&self, v: usize) -> Option<&Bound> {
        self.0.get(v).and_then(Option::as_ref)
    }

    /// Binds variable `v`.
    pub fn set(&mut self, v: usize, b: Bound) {
        if v >= self.0.len() {
            self.0.resize(v + 1, None);
        }
        self.0[v] = Some(b);
    }

    fn num(&self, v: usize) -> Option<u64> {
        match self.get(v) {
            Some(Bound::Num(n)) => Some(*n),
            _ => None,
        }
    }
}

/// A number in a rule: a literal, a variable, or arithmetic on them (`+ - * / %`; a
/// subtraction below zero or a division by zero fails the match).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// A literal.
    Lit(u64),
    /// A variable.
    Var(usize),
    /// An operator and its two operands.
    Bin(char, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// The value under `env`, if every variable is bound and the arithmetic is defined.
    pub fn eval(&self, env: &Env) -> Option<u64> {
        match self {
            Expr::Lit(n) => Some(*n),
            Expr::Var(v) => env.num(*v),
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval(env)?, b.eval(env)?);
                match op {
                    '+' => a.checked_add(b),
                    '-' => a.checked_sub(b),
                    '*' => a.checked_mul(b),
                    '/' => a.checked_div(b),
                    '%' => a.checked_rem(b),
                    _ => None,
                }
            }
        }
    }

    /// Matches the number `k`: an unbound variable is bound to it, anything else must
    /// evaluate to it.
    fn match_num(&self, k: u64, env: &mut Env) -> Option<()> {
        if let Expr::Var(v) = self {
            if env.get(*v).is_none() {
                env.set(*v, Bound::Num(k));
                return Some(());
            }
        }
        (self.eval(env)? == k).then_some(())
    }
}

/// A layout in a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayPat {
    /// A layout variable.
    Var(usize),
    /// `(sseq N L)`.
    SSeq(Expr, Box<LayPat>),
    /// `(tseq N I L)`.
    TSeq(Expr, Expr, Box<LayPat>),
    /// `(zipped L)`: the pair layout a reducer combines (every atom doubled).
    Zipped(Box<LayPat>),
}

impl LayPat {
    /// Matches an output layout against this pattern of its top layer: binds the
    /// pattern's variables and returns the product of the matched layer lengths and the
    /// element layout (the innermost variable's value).
    pub(super) fn match_layer(&self, l: &Layout, env: &mut Env) -> Option<(u64, Layout)> {
        match (self, l) {
            (LayPat::Var(v), l) => {
                match env.get(*v) {
                    Some(Bound::Lay(b)) if b != l => return None,
                    Some(Bound::Lay(_)) => {}
                    Some(_) => return None,
                    None => env.set(*v, Bound::Lay(l.clone())),
                }
                Some((1, l.clone()))
            }
            (LayPat::SSeq(n, p), Layout::SSeq(k, t)) => {
                n.match_num(*k, env)?;
                let (len, e) = p.match_layer(t, env)?;
                Some((len.checked_mul(*k)?, e))
            }
            (LayPat::TSeq(n, i, p), Layout::TSeq(k, j, t)) => {
                n.match_num(*k, env)?;
                i.match_num(*j, env)?;
                let (len, e) = p.match_layer(t, env)?;
                Some((len.checked_mul(*k)?, e))
            }
            _ => None,
        }
    }

    /// The layout under `env`.
    pub fn build(&self, env: &Env) -> Result<Layout, String> {
        let num = |e: &Expr| {
            e.eval(env)
                .ok_or_else(|| format!("a lowering rule's number {e:?} is undefined"))
        };
        Ok(match self {
            LayPat::Var(v) => match env.get(*v) {
                Some(Bound::Lay(l)) => l.clone(),
                _ => return Err(format!("a lowering rule's layout variable {v} is unbound")),
            },
            LayPat::SSeq(n, p) => Layout::sseq(num(n)?, p.build(env)?),
            LayPat::TSeq(n, i, p) => Layout::tseq(num(n)?, num(i)?, p.build(env)?),
            LayPat::Zipped(p) => p.build(env)?.zipped_pair(),
        })
    }

    /// The layout variables that occur in the pattern, in order.
    pub fn vars(&self, out: &mut Vec<usize>) {
        match self {
            LayPat::Var(v) => out.push(*v),
            LayPat::SSeq(_, p) | LayPat::TSeq(_, _, p) | LayPat::Zipped(p) => p.vars(out),
        }
    }
}

/// Runs one side condition: `None` if it fails.
pub(super) fn run_cond(c: &Cond, env: &mut Env) -> Option<()> {
    match c {
        Cond::Cmp(op, a, b) => {
            let (a, b) = (a.eval(env)?, b.eval(env)?);
            let ok = match op.as_str() {
                "=" => a == b,
                "!=" => a != b,
                "<" => a < b,
                "<=" => a <= b,
                ">" => a > b,
                ">=" => a >= b,
                _ => false,
            };
            ok.then_some(())
        }
        Cond::Let(v, e) => {
            let x = e.eval(env)?;
            env.set(*v, Bound::Num(x));
            Some(())
        }
        Cond::LargestDivisor(v, n, limit) => {
            let (n, limit) = (n.eval(env)?, limit.eval(env)?);
            let d = divisors(n)
                .into_iter()
                .filter(|d| *d <= limit)
                .max()
                .unwrap_or(1);
            env.set(*v, Bound::Num(d));
            Some(())
        }
        Cond::DivisorSplit(a, b, n, la, lb) => {
            let (n, la, lb) = (n.eval(env)?, la.eval(env)?, lb.eval(env)?);
            let d = divisors(n)
                .into_iter()
                .filter(|d| *d <= la && n / d <= lb)
                .max()?;
            env.set(*a, Bound::Num(d));
            env.set(*b, Bound::Num(n / d));
            Some(())
        }
        Cond::Layout(v, p) => {
            let Some(Bound::Lay(l)) = env.get(*v) else {
                return None;
            };
            let l = l.clone();
            p.match_layer(&l, env).map(|_| ())
        }
    }
}
