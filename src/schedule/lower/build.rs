//! Building a rule instance's space-time term into a design, and printing it.

use super::pattern::{Bound, Env};
use super::{Instance, Need, TArg, Term};
use crate::seq::value::{format_value, Value};
use crate::st::design::BodyId;
use crate::st::{Design, Layout, NodeId, StOp};

/// Producers in scope while a term is built: variable and node.
type Scope = Vec<(usize, NodeId)>;

impl Instance {
    /// Builds the instance into `d`: `kids` are the producers in the order of the rule's
    /// `in` clauses, `body` the function body (for higher-order operators).
    pub fn emit(
        &self,
        d: &mut Design,
        kids: &[NodeId],
        body: Option<BodyId>,
    ) -> Result<NodeId, String> {
        let r = self.rule();
        let mut scope: Scope = Vec::new();
        let mut k = 0;
        for n in &r.needs {
            if let Need::In { input, .. } = n {
                let var = r.inputs[*input];
                let node = *kids
                    .get(k)
                    .ok_or_else(|| format!("lowering `{}`: too few producers", r.name))?;
                scope.push((var, node));
                k += 1;
            }
        }
        build(d, &r.st, &self.env, body, &scope).map_err(|e| format!("lowering `{}`: {e}", r.name))
    }

    /// The instance's term with its numbers and layouts filled in, e.g.
    /// `(map_t 4 0 (fn (?a) (map_s 2 ?f ?a)) ?x)`.
    pub fn show(&self) -> String {
        let r = self.rule();
        let body = r.body.map_or("", |v| r.vars[v].as_str());
        show_term(&r.st, &self.env, &r.vars, body)
    }
}

/// The values the term of `rule` takes under `env`, in term order (numbers, layouts and
/// inits): two rules of one [`super::LowerRule::shape`] build the same term exactly when
/// these are equal. `None` if a number or layout of the term is undefined under `env`.
pub(super) fn term_leaves(rule: &super::LowerRule, env: &Env) -> Option<Vec<Bound>> {
    fn walk(t: &Term, env: &Env, out: &mut Vec<Bound>) -> Option<()> {
        if let Term::Op(_, args) = t {
            for a in args {
                match a {
                    TArg::Num(e) => out.push(Bound::Num(e.eval(env)?)),
                    TArg::Nums(es) => {
                        for e in es {
                            out.push(Bound::Num(e.eval(env)?));
                        }
                    }
                    TArg::Lay(p) => out.push(Bound::Lay(p.build(env).ok()?)),
                    TArg::Init { var, wrap } => out.push(Bound::Init(init(*var, *wrap, env).ok()?)),
                    TArg::Body => {}
                    TArg::Fn(_, inner) => walk(inner, env, out)?,
                    TArg::Input(x) => walk(x, env, out)?,
                }
            }
        }
        Some(())
    }
    let mut out = Vec::new();
    walk(&rule.st, env, &mut out)?;
    Some(out)
}

/// The term as written with its variables renamed by first occurrence and its producers
/// by input position: rules with the same symbolic term have the same
/// [`super::LowerRule::shape`].
pub(super) fn symbolic_term(rule: &super::LowerRule) -> String {
    fn name(v: usize, seen: &mut Vec<usize>) -> String {
        let k = seen.iter().position(|x| *x == v).unwrap_or_else(|| {
            seen.push(v);
            seen.len() - 1
        });
        format!("v{k}")
    }
    fn expr(e: &super::Expr, seen: &mut Vec<usize>) -> String {
        match e {
            super::Expr::Lit(n) => n.to_string(),
            super::Expr::Var(v) => name(*v, seen),
            super::Expr::Bin(op, a, b) => format!("({op} {} {})", expr(a, seen), expr(b, seen)),
        }
    }
    fn lay(p: &super::LayPat, seen: &mut Vec<usize>) -> String {
        match p {
            super::LayPat::Var(v) => name(*v, seen),
            super::LayPat::SSeq(n, q) => format!("(sseq {} {})", expr(n, seen), lay(q, seen)),
            super::LayPat::TSeq(n, i, q) => {
                format!(
                    "(tseq {} {} {})",
                    expr(n, seen),
                    expr(i, seen),
                    lay(q, seen)
                )
            }
            super::LayPat::Zipped(q) => format!("(zipped {})", lay(q, seen)),
        }
    }
    fn term(t: &Term, inputs: &[usize], seen: &mut Vec<usize>) -> String {
        match t {
            Term::Var(v) => match inputs.iter().position(|x| x == v) {
                Some(k) => format!("x{k}"),
                None => name(*v, seen),
            },
            Term::Op(op, args) => {
                let mut parts = vec![op.clone()];
                for a in args {
                    parts.push(match a {
                        TArg::Num(e) => expr(e, seen),
                        TArg::Nums(es) => format!(
                            "({})",
                            es.iter()
                                .map(|e| expr(e, seen))
                                .collect::<Vec<_>>()
                                .join(" ")
                        ),
                        TArg::Lay(p) => lay(p, seen),
                        TArg::Init { var, wrap } => format!("(init {} {wrap})", name(*var, seen)),
                        TArg::Body => "f".into(),
                        TArg::Fn(ps, inner) => {
                            let ps: Vec<String> = ps.iter().map(|p| name(*p, seen)).collect();
                            format!("(fn ({}) {})", ps.join(" "), term(inner, inputs, seen))
                        }
                        TArg::Input(x) => term(x, inputs, seen),
                    });
                }
                format!("({})", parts.join(" "))
            }
        }
    }
    term(&rule.st, &rule.inputs, &mut Vec::new())
}

fn num(e: &super::Expr, env: &Env) -> Result<u64, String> {
    e.eval(env)
        .ok_or_else(|| format!("the number {e:?} is undefined"))
}

fn init(var: usize, wrap: bool, env: &Env) -> Result<Option<Value>, String> {
    match env.get(var) {
        Some(Bound::Init(v)) => Ok(if wrap {
            v.clone().map(|v| Value::List(vec![v]))
        } else {
            v.clone()
        }),
        _ => Err("the init is unbound".into()),
    }
}

/// The element layout below the top layer of a producer's layout: what a map's body
/// takes.
fn elem_of(l: &Layout) -> Result<Layout, String> {
    match l {
        Layout::SSeq(_, t) | Layout::TSeq(_, _, t) => Ok((**t).clone()),
        other => Err(format!("a map over {other}, which is not a sequence")),
    }
}

fn build(
    d: &mut Design,
    t: &Term,
    env: &Env,
    body: Option<BodyId>,
    scope: &Scope,
) -> Result<NodeId, String> {
    let (op, args) = match t {
        Term::Var(v) => {
            return scope
                .iter()
                .rev()
                .find(|(x, _)| x == v)
                .map(|(_, n)| *n)
                .ok_or_else(|| "a producer is not in scope".to_string())
        }
        Term::Op(op, args) => (op.as_str(), args),
    };
    // Producers first, then function bodies, then the operator: the order Aetherling's
    // composites were always built in, so designs are numbered the same way.
    let mut inputs = Vec::new();
    for a in args {
        if let TArg::Input(x) = a {
            inputs.push(build(d, x, env, body, scope)?);
        }
    }
    let mut nums = Vec::new();
    let mut lists = Vec::new();
    let mut lays = Vec::new();
    let mut ini = None;
    let mut fun = None;
    for a in args {
        match a {
            TArg::Num(e) => nums.push(num(e, env)?),
            TArg::Nums(es) => lists.push(
                es.iter()
                    .map(|e| num(e, env))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            TArg::Lay(p) => lays.push(p.build(env)?),
            TArg::Init { var, wrap } => ini = Some(init(*var, *wrap, env)?),
            TArg::Body => fun = Some(body.ok_or("a higher-order node without its body")?),
            TArg::Fn(ps, inner) => {
                let params: Vec<Layout> = if op.starts_with("reduce") {
                    vec![elem_of(d.layout(inputs[0]))?.zipped_pair()]
                } else {
                    inputs
                        .iter()
                        .map(|x| elem_of(d.layout(*x)))
                        .collect::<Result<_, _>>()?
                };
                if params.len() != ps.len() {
                    return Err(format!(
                        "`{op}`'s function takes {} parameters",
                        params.len()
                    ));
                }
                fun = Some(d.body_with(params, |d, xs| {
                    let mut inner_scope = scope.clone();
                    inner_scope.extend(ps.iter().copied().zip(xs.iter().copied()));
                    build(d, inner, env, body, &inner_scope)
                })?);
            }
            TArg::Input(_) => {}
        }
    }
    let n = |k: usize| nums[k];
    let lay = |k: usize| lays.get(k).cloned().ok_or("missing layout");
    let elem = || lay(0);
    let init = || ini.clone().ok_or("missing init");
    let f = || fun.ok_or("missing function");
    let st = match op {
        "map_s" => StOp::MapS {
            n: n(0),
            body: f()?,
        },
        "map2_s" => StOp::Map2S {
            n: n(0),
            body: f()?,
        },
        "map_t" => StOp::MapT {
            n: n(0),
            i: n(1),
            body: f()?,
        },
        "map2_t" => StOp::Map2T {
            n: n(0),
            i: n(1),
            body: f()?,
        },
        "reduce_s" => StOp::ReduceS {
            n: n(0),
            body: f()?,
            regs: Vec::new(),
        },
        "reduce_t" => StOp::ReduceT {
            n: n(0),
            i: n(1),
            body: f()?,
        },
        "down_1d_s" => StOp::DownS {
            n: n(0),
            idx: n(1),
            elem: elem()?,
        },
        "down_1d_t" => StOp::DownT {
            n: n(0),
            i: n(1),
            idx: n(2),
            elem: elem()?,
        },
        "up_1d_s" => StOp::UpS {
            n: n(0),
            elem: elem()?,
        },
        "up_1d_t" => StOp::UpT {
            n: n(0),
            i: n(1),
            elem: elem()?,
        },
        "shift_s" => StOp::ShiftS {
            n: n(0),
            amount: n(1),
            elem: elem()?,
            init: init()?,
        },
        "shift_t" => StOp::ShiftT {
            n: n(0),
            i: n(1),
            amount: n(2),
            elem: elem()?,
            init: init()?,
        },
        "shift_ts" => StOp::ShiftTS {
            no: n(0),
            io: n(1),
            ni: n(2),
            amount: n(3),
            elem: elem()?,
            init: init()?,
        },
        "shift_tn" => StOp::ShiftTN {
            no: n(0),
            io: n(1),
            nis: lists[0].clone(),
            iis: lists[1].clone(),
            amount: n(2),
            elem: elem()?,
            init: init()?,
        },
        "transpose" => StOp::Transpose {
            no: n(0),
            ni: n(1),
            from: lay(0)?,
            to: lay(1)?,
        },
        other => return Err(format!("unknown space-time operator `{other}`")),
    };
    d.add(st, &inputs)
}

fn show_term(t: &Term, env: &Env, vars: &[String], body: &str) -> String {
    match t {
        Term::Var(v) => vars[*v].clone(),
        Term::Op(op, args) => {
            let elem_ty = args.iter().find_map(|a| match a {
                TArg::Lay(p) => p.build(env).ok().map(|l| l.to_seq()),
                _ => None,
            });
            let mut parts = vec![op.clone()];
            for a in args {
                parts.push(match a {
                    TArg::Num(e) => e.eval(env).map_or_else(|| "?".into(), |x| x.to_string()),
                    TArg::Nums(es) => format!(
                        "({})",
                        es.iter()
                            .map(|e| e.eval(env).map_or_else(|| "?".into(), |x| x.to_string()))
                            .collect::<Vec<_>>()
                            .join(" ")
                    ),
                    TArg::Lay(p) => p.build(env).map_or_else(|_| "?".into(), |l| l.to_string()),
                    TArg::Init { var, wrap } => match init(*var, *wrap, env) {
                        Ok(Some(v)) => match &elem_ty {
                            Some(t) => format!("(init {})", format_value(&v, t)),
                            None => "(init ?)".into(),
                        },
                        _ => "_".into(),
                    },
                    TArg::Body => body.to_string(),
                    TArg::Fn(ps, inner) => format!(
                        "(fn ({}) {})",
                        ps.iter()
                            .map(|p| vars[*p].clone())
                            .collect::<Vec<_>>()
                            .join(" "),
                        show_term(inner, env, vars, body)
                    ),
                    TArg::Input(x) => show_term(x, env, vars, body),
                });
            }
            format!("({})", parts.join(" "))
        }
    }
}
