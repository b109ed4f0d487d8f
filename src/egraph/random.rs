//! Random instances of a rule's left side, for the soundness test.
//!
//! The left-side pattern is elaborated like a program: numbers get random small values,
//! each data variable becomes a program input of a type its position accepts (element
//! types drawn from a small pool), each function variable a random closed body of the right
//! parameter types, each function list a list of such bodies, each literal a random init,
//! each cast target a random integer or bit type. Random bodies sometimes compute at another
//! width and cast back, so every rule is also tested on bodies holding casts.
//! Instances that do not type-check are simply rejected; the caller tries again.

use super::pattern::{Pat, Role};
use super::rules::Rule;
use crate::seq::build;
use crate::seq::op::{AtomOp, Op};
use crate::seq::program::{NodeId, Program};
use crate::seq::types::{ScalarType, SeqType};
use crate::seq::value::{random_value, Value};
use crate::util::rng::Rng;
use egg::{ENodeOrVar, Id, Var};
use std::collections::HashMap;

use super::lang::SeqLang;

/// Numbers drawn for numeric variables.
const NUMS: [u64; 8] = [1, 2, 2, 3, 4, 4, 6, 8];

/// The integer types.
const INTS: [ScalarType; 6] = [
    ScalarType::Int8,
    ScalarType::UInt8,
    ScalarType::Int16,
    ScalarType::UInt16,
    ScalarType::Int32,
    ScalarType::UInt32,
];

#[derive(Clone, Debug)]
enum Built {
    Num(u64),
    Ty(SeqType),
    Lit(Value),
    Node(NodeId),
    Fns(Vec<NodeId>),
}

/// What a position expects of a variable.
#[derive(Clone, Debug)]
enum Expect {
    Nothing,
    Data(SeqType),
    Body {
        params: Vec<SeqType>,
        ret: Option<SeqType>,
        reducer: bool,
    },
    Fns {
        len: u64,
        param: SeqType,
    },
    Lit(SeqType),
    /// The value of a constant of this type: never don't-care, and for a scalar half the
    /// time at most its width + 1, so shift amounts below the width (the ones that keep
    /// bits) are drawn often.
    ConstLit(SeqType),
    /// The target type of a cast.
    CastTarget,
}

struct Gen<'a> {
    pat: &'a Pat,
    roles: HashMap<Var, Role>,
    p: Program,
    rng: &'a mut Rng,
    binds: HashMap<Var, Built>,
}

/// A random program whose output is an instance of `rule`'s left side, or `None` if the
/// random choices did not type-check.
pub fn random_lhs(rule: &Rule, rng: &mut Rng) -> Option<Program> {
    let mut g = Gen {
        pat: &rule.lhs,
        roles: rule.lhs_roles.iter().cloned().collect(),
        p: Program::new(rule.name.clone()),
        rng,
        binds: HashMap::new(),
    };
    for (v, r) in &rule.lhs_roles {
        if *r == Role::Num {
            let n = *g.rng.pick(&NUMS);
            g.binds.insert(*v, Built::Num(n));
        }
    }
    let root = Id::from(rule.lhs.as_ref().len() - 1);
    match g.build(root, None, Expect::Nothing)? {
        Built::Node(n) => {
            let mut p = g.p;
            p.set_output(n);
            Some(p)
        }
        _ => None,
    }
}

fn elem_pool(rng: &mut Rng) -> SeqType {
    match rng.range(0, 5) {
        0 | 1 => ScalarType::UInt8.into(),
        2 => ScalarType::Int8.into(),
        _ => SeqType::seq(*rng.pick(&[1, 2, 2, 3, 4]), ScalarType::UInt8.into()),
    }
}

impl Gen<'_> {
    fn num(&mut self, id: Id) -> Option<u64> {
        match self.build(id, None, Expect::Nothing)? {
            Built::Num(n) => Some(n),
            _ => None,
        }
    }

    fn node(&mut self, id: Id, ctx: Option<&[SeqType]>, e: Expect) -> Option<NodeId> {
        match self.build(id, ctx, e)? {
            Built::Node(n) => Some(n),
            _ => None,
        }
    }

    fn build(&mut self, id: Id, ctx: Option<&[SeqType]>, e: Expect) -> Option<Built> {
        match &self.pat[id] {
            ENodeOrVar::Var(v) => self.var(*v, e),
            ENodeOrVar::ENode(n) => {
                let n = n.clone();
                self.enode(&n, ctx, e)
            }
        }
    }

    fn var(&mut self, v: Var, e: Expect) -> Option<Built> {
        if let Some(b) = self.binds.get(&v) {
            return Some(b.clone());
        }
        let built = match (self.roles.get(&v).copied(), e) {
            (_, Expect::Data(t)) => {
                let name = format!("in{}", self.p.inputs.len());
                Built::Node(self.p.add_input(name, t))
            }
            (
                _,
                Expect::Body {
                    params,
                    ret,
                    reducer,
                },
            ) => Built::Node(random_body(
                &mut self.p,
                self.rng,
                &params,
                ret.as_ref(),
                reducer,
            )?),
            (_, Expect::Fns { len, param }) => {
                let mut fs = Vec::new();
                for _ in 0..len {
                    let t = param.clone();
                    fs.push(random_body(
                        &mut self.p,
                        self.rng,
                        std::slice::from_ref(&t),
                        Some(&t),
                        false,
                    )?);
                }
                Built::Fns(fs)
            }
            (_, Expect::Lit(t)) => Built::Lit(if self.rng.coin() {
                Value::Undef
            } else {
                random_value(&t, self.rng)
            }),
            (_, Expect::ConstLit(t)) => Built::Lit(match &t {
                SeqType::Scalar(sc) if self.rng.coin() => {
                    Value::Scalar(self.rng.range(0, u64::from(sc.width()) + 1) & sc.mask())
                }
                _ => random_value(&t, self.rng),
            }),
            (_, Expect::CastTarget) => {
                Built::Ty(SeqType::Scalar(*self.rng.pick(&AtomOp::CAST_TARGETS)))
            }
            _ => return None,
        };
        self.binds.insert(v, built.clone());
        Some(built)
    }

    fn enode(&mut self, n: &SeqLang, ctx: Option<&[SeqType]>, e: Expect) -> Option<Built> {
        let p_seq = |rng: &mut Rng, n: u64| SeqType::seq(n, elem_pool(rng));
        let out = match n {
            SeqLang::Num(k) => return Some(Built::Num(*k)),
            SeqLang::Scalar(s) => return Some(Built::Ty(SeqType::Scalar(s.0))),
            SeqLang::Lit(l) => return Some(Built::Lit(l.0.clone())),
            SeqLang::Arg([i, t]) => {
                let i = self.num(*i)?;
                let want = ctx?.get(i as usize)?.clone();
                match &self.pat[*t] {
                    ENodeOrVar::Var(v) => match self.binds.get(v) {
                        Some(Built::Ty(b)) if *b != want => return None,
                        _ => {
                            self.binds.insert(*v, Built::Ty(want.clone()));
                        }
                    },
                    ENodeOrVar::ENode(_) => match self.build(*t, ctx, Expect::Nothing)? {
                        Built::Ty(b) if b == want => {}
                        _ => return None,
                    },
                }
                build::arg(&mut self.p, u8::try_from(i).ok()?, want)
            }
            SeqLang::Map([len_id, f, x])
            | SeqLang::Reduce([len_id, f, x])
            | SeqLang::HMap([len_id, f, x]) => {
                let len = self.num(*len_id)?;
                let t = match self.body_hint(*f) {
                    Some(e) => SeqType::seq(len, e),
                    None => p_seq(self.rng, len),
                };
                let x = self.node(*x, ctx, Expect::Data(t))?;
                let e = self.p.ty(x).as_seq()?.1.clone();
                match n {
                    SeqLang::Map(_) => {
                        let body = Expect::Body {
                            params: vec![e.clone()],
                            ret: None,
                            reducer: false,
                        };
                        let f = self.node(*f, Some(&[e]), body)?;
                        build::map(&mut self.p, len, f, x).ok()?
                    }
                    SeqLang::Reduce(_) => {
                        let pair = e.zipped_pair();
                        let body = Expect::Body {
                            params: vec![pair.clone()],
                            ret: Some(e),
                            reducer: true,
                        };
                        let f = self.node(*f, Some(&[pair]), body)?;
                        build::reduce(&mut self.p, len, f, x).ok()?
                    }
                    _ => {
                        let fs = match self.build(
                            *f,
                            Some(std::slice::from_ref(&e)),
                            Expect::Fns {
                                len,
                                param: e.clone(),
                            },
                        )? {
                            Built::Fns(fs) => fs,
                            _ => return None,
                        };
                        build::hmap(&mut self.p, len, &fs, x).ok()?
                    }
                }
            }
            SeqLang::Map2([n, f, x, y]) => {
                let len = self.num(*n)?;
                let (tx, ty) = (p_seq(self.rng, len), p_seq(self.rng, len));
                let x = self.node(*x, ctx, Expect::Data(tx))?;
                let y = self.node(*y, ctx, Expect::Data(ty))?;
                let ex = self.p.ty(x).as_seq()?.1.clone();
                let ey = self.p.ty(y).as_seq()?.1.clone();
                let body = Expect::Body {
                    params: vec![ex.clone(), ey.clone()],
                    ret: None,
                    reducer: false,
                };
                let f = self.node(*f, Some(&[ex, ey]), body)?;
                build::map2(&mut self.p, len, f, x, y).ok()?
            }
            SeqLang::ListToSeq(fs) => {
                let param = ctx?.first()?.clone();
                let mut out = Vec::new();
                for f in fs.iter() {
                    let body = Expect::Body {
                        params: vec![param.clone()],
                        ret: Some(param.clone()),
                        reducer: false,
                    };
                    out.push(self.node(*f, Some(std::slice::from_ref(&param)), body)?);
                }
                return Some(Built::Fns(out));
            }
            _ => return self.first_order(n, ctx, e),
        };
        Some(Built::Node(out))
    }

    /// The parameter type a body pattern of the form `(op .. (arg 0))` needs, if its
    /// operator says.
    fn body_hint(&mut self, body: Id) -> Option<SeqType> {
        let ENodeOrVar::ENode(n) = &self.pat[body] else {
            return None;
        };
        let n = n.clone();
        let data = n.data_children();
        if data.len() != 1 || !matches!(&self.pat[data[0]], ENodeOrVar::ENode(SeqLang::Arg(_))) {
            return None;
        }
        let e = elem_pool(self.rng);
        Some(match n {
            SeqLang::STupleToSeq([k, _]) => SeqType::seq(1, SeqType::stuple(self.num(k)?, e)),
            SeqLang::SeqToSTuple([k, _]) => SeqType::seq(self.num(k)?, e),
            SeqLang::Partition([a, b, _]) => SeqType::seq(self.num(a)? * self.num(b)?, e),
            SeqLang::Unpartition([a, b, _]) | SeqLang::Transpose([a, b, _]) => {
                SeqType::seq(self.num(a)?, SeqType::seq(self.num(b)?, e))
            }
            SeqLang::Map([a, _, _]) | SeqLang::Down([a, _, _]) | SeqLang::Shift([a, _, _, _]) => {
                SeqType::seq(self.num(a)?, e)
            }
            SeqLang::Up(_) => SeqType::seq(1, e),
            _ => return None,
        })
    }

    /// A first-order operator; `want` is what its position expects, which an atom operator
    /// follows where it can (an `add` under a cast to uint16 adds uint16s).
    fn first_order(&mut self, n: &SeqLang, ctx: Option<&[SeqType]>, want: Expect) -> Option<Built> {
        let u8t: SeqType = ScalarType::UInt8.into();
        let want = match want {
            Expect::Data(t) => Some(t),
            _ => None,
        };
        let e = elem_pool(self.rng);
        let (op, data): (Op, Vec<(Id, SeqType)>) = match n {
            SeqLang::Up([a, x]) => (Op::Up { n: self.num(*a)? }, vec![(*x, SeqType::seq(1, e))]),
            SeqLang::Down([a, i, x]) => {
                let (a, i) = (self.num(*a)?, self.num(*i)?);
                (Op::Down { n: a, idx: i }, vec![(*x, SeqType::seq(a, e))])
            }
            SeqLang::Partition([a, b, x]) => {
                let (a, b) = (self.num(*a)?, self.num(*b)?);
                (
                    Op::Partition { no: a, ni: b },
                    vec![(*x, SeqType::seq(a * b, e))],
                )
            }
            SeqLang::Unpartition([a, b, x]) | SeqLang::Transpose([a, b, x]) => {
                let (a, b) = (self.num(*a)?, self.num(*b)?);
                let op = if matches!(n, SeqLang::Transpose(_)) {
                    Op::Transpose { no: a, ni: b }
                } else {
                    Op::Unpartition { no: a, ni: b }
                };
                (op, vec![(*x, SeqType::seq(a, SeqType::seq(b, e)))])
            }
            SeqLang::STupleToSeq([a, x]) => {
                let a = self.num(*a)?;
                (
                    Op::STupleToSeq { n: a },
                    vec![(*x, SeqType::seq(1, SeqType::stuple(a, e)))],
                )
            }
            SeqLang::SeqToSTuple([a, x]) => {
                let a = self.num(*a)?;
                (Op::SeqToSTuple { n: a }, vec![(*x, SeqType::seq(a, e))])
            }
            SeqLang::Shift([a, s, init, x]) => {
                let (a, s) = (self.num(*a)?, self.num(*s)?);
                let xn = self.node(*x, ctx, Expect::Data(SeqType::seq(a, e)))?;
                let elem = self.p.ty(xn).as_seq()?.1.clone();
                let init = match self.build(*init, ctx, Expect::Lit(elem))? {
                    Built::Lit(Value::Undef) => None,
                    Built::Lit(v) => Some(v),
                    _ => return None,
                };
                let op = Op::Shift {
                    n: a,
                    amount: s,
                    init,
                };
                return build::apply(&mut self.p, op, &[xn]).ok().map(Built::Node);
            }
            SeqLang::Atom(a, [x]) => {
                let out = want.as_ref().and_then(SeqType::as_scalar);
                (Op::Atom(a.0), vec![(*x, atom_input(a.0, out))])
            }
            SeqLang::Const([lit, t]) => {
                // A constant takes the type its position expects (uint8 where none is).
                let ty = want.unwrap_or(u8t);
                match &self.pat[*t] {
                    ENodeOrVar::Var(v) => match self.binds.get(v) {
                        Some(Built::Ty(b)) if *b != ty => return None,
                        Some(Built::Ty(_)) => {}
                        Some(_) => return None,
                        None => {
                            self.binds.insert(*v, Built::Ty(ty.clone()));
                        }
                    },
                    ENodeOrVar::ENode(_) => match self.build(*t, ctx, Expect::Nothing)? {
                        Built::Ty(b) if b == ty => {}
                        _ => return None,
                    },
                }
                let v = match self.build(*lit, ctx, Expect::ConstLit(ty.clone()))? {
                    Built::Lit(v) => v,
                    _ => return None,
                };
                return build::constant(&mut self.p, v, ty).ok().map(Built::Node);
            }
            SeqLang::Cast([t, x]) => {
                let to = match self.build(*t, ctx, Expect::CastTarget)? {
                    Built::Ty(SeqType::Scalar(s)) => s,
                    _ => return None,
                };
                let from = *self.rng.pick(&AtomOp::CAST_TARGETS);
                (Op::Atom(AtomOp::Cast(to)), vec![(*x, from.into())])
            }
            SeqLang::ATuple([a, b]) => match want {
                Some(SeqType::ATuple(x, y)) => (Op::ATuple, vec![(*a, *x), (*b, *y)]),
                _ => (Op::ATuple, vec![(*a, u8t.clone()), (*b, u8t)]),
            },
            SeqLang::STuple([a, b]) => (Op::STuple, vec![(*a, e.clone()), (*b, e)]),
            SeqLang::STupleAppend([a, b]) => (
                Op::STupleAppend,
                vec![(*a, SeqType::stuple(2, e.clone())), (*b, e)],
            ),
            _ => return None,
        };
        let mut args = Vec::new();
        for (id, t) in data {
            args.push(self.node(id, ctx, Expect::Data(t))?);
        }
        build::apply(&mut self.p, op, &args).ok().map(Built::Node)
    }
}

/// The input type of atom operator `op`, whose result should be `out` if it can.
fn atom_input(op: AtomOp, out: Option<ScalarType>) -> SeqType {
    let s = |t: ScalarType| SeqType::Scalar(t);
    let pair = |a: SeqType, b: SeqType| SeqType::atuple(a, b);
    let int = out.filter(|t| t.is_int());
    match op {
        AtomOp::Abs => s(int.unwrap_or(ScalarType::Int8)),
        AtomOp::Not => s(ScalarType::Bit),
        AtomOp::And | AtomOp::Or => pair(s(ScalarType::Bit), s(ScalarType::Bit)),
        AtomOp::Div => pair(s(int.unwrap_or(ScalarType::UInt8)), s(ScalarType::FixP1_7)),
        AtomOp::If => {
            let t = s(out.unwrap_or(ScalarType::UInt8));
            pair(s(ScalarType::Bit), pair(t.clone(), t))
        }
        AtomOp::Lsl | AtomOp::Lsr => {
            pair(s(int.unwrap_or(ScalarType::UInt8)), s(ScalarType::UInt8))
        }
        AtomOp::Add | AtomOp::Sub | AtomOp::Mul => {
            let t = s(int.unwrap_or(ScalarType::UInt8));
            pair(t.clone(), t)
        }
        AtomOp::Cast(_) => s(ScalarType::UInt8),
        _ => pair(s(ScalarType::UInt8), s(ScalarType::UInt8)),
    }
}

/// A random closed function body of the given parameter types. With `ret`, it must return
/// that type; a `reducer` is associative and commutative (reduce's requirement).
pub fn random_body(
    p: &mut Program,
    rng: &mut Rng,
    params: &[SeqType],
    ret: Option<&SeqType>,
    reducer: bool,
) -> Option<NodeId> {
    let args: Vec<NodeId> = params
        .iter()
        .enumerate()
        .map(|(i, t)| build::arg(p, i as u8, t.clone()))
        .collect();
    let body = if reducer {
        reducer_body(p, rng, args[0], &params[0])?
    } else if params.len() == 2 {
        binary_body(p, rng, args[0], args[1])?
    } else {
        let steps = rng.range(1, 2);
        let mut x = args[0];
        for _ in 0..steps {
            x = unary_step(p, rng, x)?;
        }
        x
    };
    match ret {
        Some(r) if p.ty(body) != r => None,
        _ => Some(body),
    }
}

fn konst(p: &mut Program, t: ScalarType, v: u64) -> Option<NodeId> {
    build::constant(p, Value::Scalar(v & t.mask()), t.into()).ok()
}

/// One type-preserving random operation on `x`.
fn unary_step(p: &mut Program, rng: &mut Rng, x: NodeId) -> Option<NodeId> {
    let t = p.ty(x).clone();
    match &t {
        SeqType::Scalar(s) if s.is_int() => {
            // Sometimes at another width: cast there, compute, cast back.
            let (x, u) = if rng.range(0, 3) == 0 {
                let u = *rng.pick(&INTS);
                (build::apply(p, Op::Atom(AtomOp::Cast(u)), &[x]).ok()?, u)
            } else {
                (x, *s)
            };
            let c = konst(p, u, rng.range(1, 9))?;
            let op = *rng.pick(&[AtomOp::Add, AtomOp::Mul, AtomOp::Sub]);
            let (a, b) = if op == AtomOp::Sub && rng.coin() {
                (c, x)
            } else {
                (x, c)
            };
            let pair = build::apply(p, Op::ATuple, &[a, b]).ok()?;
            let y = build::apply(p, Op::Atom(op), &[pair]).ok()?;
            if u == *s {
                Some(y)
            } else {
                build::apply(p, Op::Atom(AtomOp::Cast(*s)), &[y]).ok()
            }
        }
        SeqType::Scalar(ScalarType::Bit) => build::apply(p, Op::Atom(AtomOp::Not), &[x]).ok(),
        SeqType::Seq(n, e) => {
            if matches!(**e, SeqType::Seq(..)) && rng.range(0, 2) == 0 {
                // A sequence of rows combined row by row with a constant (a stencil
                // kernel's weights): the form the row split of `stencil-rows` takes apart.
                if rng.coin() {
                    if let Some(y) = weighted_rows(p, rng, x) {
                        return Some(y);
                    }
                }
                let c = build::constant(p, random_value(&t, rng), t.clone()).ok()?;
                let params = [e.as_ref().clone(), e.as_ref().clone()];
                let inner = random_body(p, rng, &params, Some(e), false)?;
                build::map2(p, *n, inner, x, c).ok()
            } else if rng.coin() {
                let inner = random_body(p, rng, &[e.as_ref().clone()], Some(e), false)?;
                build::map(p, *n, inner, x).ok()
            } else {
                let init = if rng.coin() {
                    Some(random_value(e, rng))
                } else {
                    None
                };
                let op = Op::Shift {
                    n: *n,
                    amount: rng.range(0, (*n).min(2)),
                    init,
                };
                build::apply(p, op, &[x]).ok()
            }
        }
        SeqType::ATuple(..) => {
            let a = build::apply(p, Op::Atom(AtomOp::Fst), &[x]).ok()?;
            let b = build::apply(p, Op::Atom(AtomOp::Snd), &[x]).ok()?;
            if p.ty(a) == p.ty(b) {
                build::apply(p, Op::ATuple, &[b, a]).ok()
            } else {
                Some(x)
            }
        }
        _ => Some(x),
    }
}

/// Each row of `x` (a `(seq n (seq m u))` of integers) as a weighted sum, written as the
/// Aetherling kernels write it: `map n (reduce m add) (map n (map m op) (map2 n (map2 m
/// atuple) x c))` with `op` `lsl` (small shift amounts) or `mul` (small weights, the rows
/// often multiples of one row, as a separable kernel's are, so that the common weight
/// `row-split` takes out is exercised). Not type-preserving: a row becomes `(seq 1 u)`.
fn weighted_rows(p: &mut Program, rng: &mut Rng, x: NodeId) -> Option<NodeId> {
    let xt = p.ty(x).clone();
    let (n, row) = xt.as_seq()?;
    let (m, u) = row.as_seq()?;
    let u = u.as_scalar()?;
    if !u.is_int() {
        return None;
    }
    let op = if rng.coin() { AtomOp::Lsl } else { AtomOp::Mul };
    let base: Vec<u64> = (0..m).map(|_| rng.range(0, 4)).collect();
    let amounts = Value::List(
        (0..n)
            .map(|_| {
                let row: Vec<u64> = match op {
                    AtomOp::Mul if rng.coin() => {
                        let factor = rng.range(1, 5);
                        base.iter().map(|w| w * factor).collect()
                    }
                    _ => (0..m).map(|_| rng.range(0, 4)).collect(),
                };
                Value::List(
                    row.into_iter()
                        .map(|w| Value::Scalar(w & u.mask()))
                        .collect(),
                )
            })
            .collect(),
    );
    let c = build::constant(p, amounts, xt.clone()).ok()?;
    let ut: SeqType = u.into();
    let pt = SeqType::ATuple(Box::new(ut.clone()), Box::new(ut.clone()));
    // map2 m atuple, the zip of a row with its amounts
    let (a, b) = (build::arg(p, 0, ut.clone()), build::arg(p, 1, ut.clone()));
    let pair = build::apply(p, Op::ATuple, &[a, b]).ok()?;
    let (ra, rb) = (build::arg(p, 0, row.clone()), build::arg(p, 1, row.clone()));
    let zip = build::map2(p, m, pair, ra, rb).ok()?;
    let pairs = build::map2(p, n, zip, x, c).ok()?;
    // map m op over each row
    let sa = build::arg(p, 0, pt.clone());
    let shl = build::apply(p, Op::Atom(op), &[sa]).ok()?;
    let prow = build::arg(p, 0, SeqType::seq(m, pt.clone()));
    let shl_row = build::map(p, m, shl, prow).ok()?;
    let shifted = build::map(p, n, shl_row, pairs).ok()?;
    // reduce m add of each row
    let sum_arg = build::arg(p, 0, pt);
    let add = build::apply(p, Op::Atom(AtomOp::Add), &[sum_arg]).ok()?;
    let srow = build::arg(p, 0, row.clone());
    let sum = build::reduce(p, m, add, srow).ok()?;
    build::map(p, n, sum, shifted).ok()
}

fn binary_body(p: &mut Program, rng: &mut Rng, a: NodeId, b: NodeId) -> Option<NodeId> {
    let (ta, tb) = (p.ty(a).clone(), p.ty(b).clone());
    match (&ta, &tb) {
        (SeqType::Scalar(x), SeqType::Scalar(y)) if x == y && x.is_int() => {
            let pair = build::apply(p, Op::ATuple, &[a, b]).ok()?;
            let op = *rng.pick(&[AtomOp::Add, AtomOp::Sub, AtomOp::Mul]);
            build::apply(p, Op::Atom(op), &[pair]).ok()
        }
        (SeqType::Seq(n, x), SeqType::Seq(m, y)) if n == m => {
            let inner = random_body(
                p,
                rng,
                &[x.as_ref().clone(), y.as_ref().clone()],
                None,
                false,
            )?;
            build::map2(p, *n, inner, a, b).ok()
        }
        _ if ta.is_atom() && tb.is_atom() => build::apply(p, Op::ATuple, &[a, b]).ok(),
        _ if ta == tb => build::apply(p, Op::STuple, &[a, b]).ok(),
        _ => Some(a),
    }
}

fn reducer_body(
    p: &mut Program,
    rng: &mut Rng,
    pair: NodeId,
    elem_pair: &SeqType,
) -> Option<NodeId> {
    match elem_pair {
        SeqType::ATuple(a, _) => {
            let op = match a.as_scalar()? {
                ScalarType::Bit => *rng.pick(&[AtomOp::And, AtomOp::Or]),
                s if s.is_int() => *rng.pick(&[AtomOp::Add, AtomOp::Mul]),
                _ => return None,
            };
            build::apply(p, Op::Atom(op), &[pair]).ok()
        }
        SeqType::Seq(n, e) => {
            let arg = build::arg(p, 0, e.as_ref().clone());
            let inner = reducer_body(p, rng, arg, e)?;
            build::map(p, *n, inner, pair).ok()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random bodies sometimes hold casts, so every rule's soundness test meets them.
    #[test]
    fn random_bodies_hold_casts() {
        let mut rng = Rng::new(5);
        let t: SeqType = ScalarType::UInt8.into();
        let mut with_cast = 0;
        for _ in 0..60 {
            let mut p = Program::new("body");
            let Some(b) = random_body(&mut p, &mut rng, std::slice::from_ref(&t), Some(&t), false)
            else {
                continue;
            };
            let cast = p
                .scope(b)
                .iter()
                .any(|id| matches!(p.node(*id).op, Op::Atom(AtomOp::Cast(_))));
            with_cast += usize::from(cast);
        }
        assert!(with_cast >= 10, "{with_cast} of 60 bodies hold a cast");
    }
}
