//! Reading `rules/lower/*.rules`. Errors name the file, the position, the rule and what
//! was expected; a rule that loads has every variable bound before it is used.

use super::pattern::{Expr, LayPat};
use super::{Cond, LowerRule, Need, Role, SeqHead, TArg, Term};
use crate::util::diag::Diagnostic;
use crate::util::sexp::{parse_file as read_sexps, Sexp};
use std::collections::BTreeSet;

/// The static signature of each space-time operator a rule may build, as written in
/// `.st` designs: `n` a number, `N` a list of numbers, `L` a layout, `I` the shift's
/// init, `F` a function, `X` a producer.
const OPS: &[(&str, &str)] = &[
    ("map_s", "nFX"),
    ("map2_s", "nFXX"),
    ("map_t", "nnFX"),
    ("map2_t", "nnFXX"),
    ("reduce_s", "nFX"),
    ("reduce_t", "nnFX"),
    ("down_1d_s", "nnLX"),
    ("down_1d_t", "nnnLX"),
    ("up_1d_s", "nLX"),
    ("up_1d_t", "nnLX"),
    ("shift_s", "nnLIX"),
    ("shift_t", "nnnLIX"),
    ("shift_ts", "nnnnLIX"),
    ("shift_tn", "nnNNnLIX"),
    ("transpose", "nnLLX"),
];

/// The signature of a space-time operator name.
pub(super) fn signature(op: &str) -> Option<&'static str> {
    OPS.iter().find(|(n, _)| *n == op).map(|(_, s)| *s)
}

struct Reader<'a> {
    file: &'a str,
    rule: String,
    vars: Vec<String>,
}

type R<T> = Result<T, Diagnostic>;

impl Reader<'_> {
    fn err(&self, at: &Sexp, msg: impl std::fmt::Display) -> Diagnostic {
        Diagnostic::at(
            self.file,
            at.pos,
            format!("lowering rule `{}`: {msg}", self.rule),
        )
    }

    fn var(&mut self, s: &Sexp) -> R<usize> {
        match s.atom() {
            Some(a) if a.starts_with('?') && a.len() > 1 => {
                Ok(match self.vars.iter().position(|v| v == a) {
                    Some(i) => i,
                    None => {
                        self.vars.push(a.to_string());
                        self.vars.len() - 1
                    }
                })
            }
            _ => Err(self.err(
                s,
                format!(
                    "expected a variable such as `?n`, found `{}`",
                    s.excerpt(40)
                ),
            )),
        }
    }

    /// A variable the rule text does not name (`name` has a space, which no variable has).
    fn fresh(&mut self, name: String) -> usize {
        self.vars.push(name);
        self.vars.len() - 1
    }

    fn expr(&mut self, s: &Sexp) -> R<Expr> {
        if let Some(a) = s.atom() {
            if a.starts_with('?') {
                return Ok(Expr::Var(self.var(s)?));
            }
            return a
                .parse()
                .map(Expr::Lit)
                .map_err(|_| self.err(s, format!("expected a number or a variable, found `{a}`")));
        }
        let xs = s.list().unwrap_or_default();
        match (s.head(), xs.len()) {
            (Some(op @ ("+" | "-" | "*" | "/" | "%")), 3) => {
                let c = op.chars().next().unwrap_or('+');
                Ok(Expr::Bin(
                    c,
                    Box::new(self.expr(&xs[1])?),
                    Box::new(self.expr(&xs[2])?),
                ))
            }
            _ => Err(self.err(
                s,
                format!(
                    "expected a number: a literal, a variable or `(+|-|*|/|% a b)`, found `{}`",
                    s.excerpt(40)
                ),
            )),
        }
    }

    fn layout(&mut self, s: &Sexp) -> R<LayPat> {
        if s.atom().is_some() {
            return Ok(LayPat::Var(self.var(s)?));
        }
        let xs = s.list().unwrap_or_default();
        match (s.head(), xs.len()) {
            (Some("sseq"), 3) => Ok(LayPat::SSeq(self.expr(&xs[1])?, Box::new(self.layout(&xs[2])?))),
            (Some("tseq"), 4) => Ok(LayPat::TSeq(
                self.expr(&xs[1])?,
                self.expr(&xs[2])?,
                Box::new(self.layout(&xs[3])?),
            )),
            (Some("zipped"), 2) => Ok(LayPat::Zipped(Box::new(self.layout(&xs[1])?))),
            _ => Err(self.err(
                s,
                format!("expected a layout: a variable, `(sseq N L)`, `(tseq N I L)` or `(zipped L)`, found `{}`", s.excerpt(40)),
            )),
        }
    }

    fn cond(&mut self, s: &Sexp) -> R<Cond> {
        let xs = s.list().unwrap_or_default();
        Ok(match (s.head(), xs.len()) {
            (Some(op @ ("=" | "!=" | "<" | "<=" | ">" | ">=")), 3) => {
                Cond::Cmp(op.to_string(), self.expr(&xs[1])?, self.expr(&xs[2])?)
            }
            (Some("let"), 3) => Cond::Let(self.var(&xs[1])?, self.expr(&xs[2])?),
            (Some("largest-divisor"), 4) => {
                Cond::LargestDivisor(self.var(&xs[1])?, self.expr(&xs[2])?, self.expr(&xs[3])?)
            }
            (Some("divisor-split"), 6) => Cond::DivisorSplit(
                self.var(&xs[1])?,
                self.var(&xs[2])?,
                self.expr(&xs[3])?,
                self.expr(&xs[4])?,
                self.expr(&xs[5])?,
            ),
            (Some("layout"), 3) => Cond::Layout(self.var(&xs[1])?, self.layout(&xs[2])?),
            _ => {
                return Err(self.err(
                    s,
                    format!(
                        "expected a condition: a comparison `(>= a b)`, `(let ?v a)`, `(largest-divisor ?d n limit)`, `(divisor-split ?a ?b n la lb)` or `(layout ?l L)`, found `{}`",
                        s.excerpt(50)
                    ),
                ))
            }
        })
    }

    fn term(&mut self, s: &Sexp, body: Option<usize>) -> R<Term> {
        if s.atom().is_some() {
            return Ok(Term::Var(self.var(s)?));
        }
        let xs = s.list().unwrap_or_default();
        let Some(op) = s.head() else {
            return Err(self.err(
                s,
                "expected a space-time operator such as `(map_s ?n ?f ?x)`",
            ));
        };
        let Some(sig) = signature(op) else {
            let known: Vec<&str> = OPS.iter().map(|(n, _)| *n).collect();
            return Err(self.err(
                s,
                format!(
                    "unknown space-time operator `{op}` (known: {})",
                    known.join(", ")
                ),
            ));
        };
        if xs.len() != sig.len() + 1 {
            return Err(self.err(
                s,
                format!(
                    "`{op}` takes {} arguments, found {}",
                    sig.len(),
                    xs.len() - 1
                ),
            ));
        }
        let mut args = Vec::new();
        for (k, a) in sig.chars().zip(&xs[1..]) {
            args.push(match k {
                'n' => TArg::Num(self.expr(a)?),
                'N' => {
                    let items = a.list().ok_or_else(|| {
                        self.err(a, "expected a list of numbers such as `(?n1 ?n2)`")
                    })?;
                    TArg::Nums(items.iter().map(|e| self.expr(e)).collect::<R<_>>()?)
                }
                'L' => TArg::Lay(self.layout(a)?),
                'I' => match (a.head(), a.list()) {
                    (Some("wrap"), Some([_, v])) => TArg::Init {
                        var: self.var(v)?,
                        wrap: true,
                    },
                    _ => TArg::Init {
                        var: self.var(a)?,
                        wrap: false,
                    },
                },
                'F' => match (a.head(), a.list()) {
                    (Some("fn"), Some([_, ps, t])) => {
                        let ps = ps.list().ok_or_else(|| {
                            self.err(ps, "expected the function's parameters `(?a ...)`")
                        })?;
                        let ps = ps.iter().map(|p| self.var(p)).collect::<R<Vec<_>>>()?;
                        TArg::Fn(ps, Box::new(self.term(t, body)?))
                    }
                    _ => {
                        let v = self.var(a)?;
                        if Some(v) != body {
                            return Err(self
                                .err(a, "expected the rule's body variable or `(fn (?a) TERM)`"));
                        }
                        TArg::Body
                    }
                },
                _ => TArg::Input(Box::new(self.term(a, body)?)),
            });
        }
        Ok(Term::Op(op.to_string(), args))
    }
}

/// Reads one file of lowering rules.
pub(super) fn parse_file(file: &str, text: &str) -> Result<Vec<LowerRule>, Diagnostic> {
    let mut out = Vec::new();
    for item in read_sexps(file, text)? {
        let xs = item.list().unwrap_or_default();
        let (Some("lower"), Some(name)) = (item.head(), xs.get(1).and_then(Sexp::atom)) else {
            return Err(Diagnostic::at(
                file,
                item.pos,
                "expected `(lower NAME (seq ...) (out ...) ... (st ...))`",
            ));
        };
        out.push(parse_rule(file, name, &item, &xs[2..])?);
    }
    Ok(out)
}

fn parse_rule(file: &str, name: &str, item: &Sexp, clauses: &[Sexp]) -> R<LowerRule> {
    let mut rd = Reader {
        file,
        rule: name.to_string(),
        vars: Vec::new(),
    };
    let mut doc = String::new();
    let mut seq: Option<(SeqHead, Vec<usize>)> = None;
    let (mut out, mut st) = (None, None);
    let mut conds = Vec::new();
    let mut needs = Vec::new();
    let mut same_wires = None;
    for c in clauses {
        let xs = c.list().unwrap_or_default();
        match c.head() {
            Some("doc") => doc = xs[1..].iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" "),
            Some("seq") => {
                let Some(s) = xs.get(1).filter(|_| xs.len() == 2) else {
                    return Err(rd.err(c, "expected `(seq (OP ?args ...))`"));
                };
                let Some(head) = s.head().and_then(SeqHead::from_name) else {
                    let names: Vec<&str> = SeqHead::ALL.iter().map(|h| h.name()).collect();
                    return Err(rd.err(s, format!("expected one of {}", names.join(", "))));
                };
                let args = s.list().unwrap_or_default();
                if args.len() != head.roles().len() + 1 {
                    return Err(rd.err(s, format!("`{}` takes {} arguments", head.name(), head.roles().len())));
                }
                let vars = args[1..].iter().map(|a| rd.var(a)).collect::<R<Vec<_>>>()?;
                seq = Some((head, vars));
            }
            Some("out") if xs.len() == 2 => out = Some(rd.layout(&xs[1])?),
            Some("where") => {
                for w in &xs[1..] {
                    conds.push(rd.cond(w)?);
                }
            }
            Some("in") if xs.len() == 3 && xs[2].head() == Some("same-wires") => {
                let v = rd.var(&xs[1])?;
                let ys = xs[2].list().unwrap_or_default();
                let Some(l) = ys.get(1).filter(|_| ys.len() == 2) else {
                    return Err(rd.err(&xs[2], "expected `(same-wires ?l)`"));
                };
                let l = rd.var(l)?;
                let w = rd.fresh(format!("{} wires", rd.vars[v]));
                same_wires = Some((c, w, l));
                needs.push((c, v, vec![LayPat::Var(w)], None));
            }
            Some("in") if xs.len() == 3 => {
                let v = rd.var(&xs[1])?;
                needs.push((c, v, vec![rd.layout(&xs[2])?], None));
            }
            Some("body") if xs.len() == 4 => {
                let v = rd.var(&xs[1])?;
                let ps = xs[2]
                    .list()
                    .ok_or_else(|| rd.err(&xs[2], "expected the parameter layouts `(L ...)`"))?;
                let params = ps.iter().map(|p| rd.layout(p)).collect::<R<Vec<_>>>()?;
                needs.push((c, v, params, Some(rd.layout(&xs[3])?)));
            }
            Some("st") if xs.len() == 2 => st = Some(xs[1].clone()),
            _ => {
                return Err(rd.err(
                    c,
                    "expected `(doc ...)`, `(seq ...)`, `(out L)`, `(where ...)`, `(in ?x L)`, `(body ?f (L ...) L)` or `(st TERM)`",
                ))
            }
        }
    }
    let Some((head, seq_vars)) = seq else {
        return Err(rd.err(item, "missing `(seq ...)`"));
    };
    let Some(out) = out else {
        return Err(rd.err(item, "missing `(out L)`"));
    };
    if head.whole_layout() && !matches!(out, LayPat::Var(_)) {
        return Err(rd.err(
            item,
            format!(
                "`{}` keeps its atoms in flat order; its rules match the whole output layout, `(out ?l)`",
                head.name()
            ),
        ));
    }
    let body_var = head
        .roles()
        .iter()
        .zip(&seq_vars)
        .find(|(r, _)| **r == Role::Body)
        .map(|(_, v)| *v);
    let inputs: Vec<usize> = head
        .roles()
        .iter()
        .zip(&seq_vars)
        .filter(|(r, _)| **r == Role::Input)
        .map(|(_, v)| *v)
        .collect();
    let Some(st_sexp) = st else {
        return Err(rd.err(item, "missing `(st TERM)`"));
    };
    let st = rd.term(&st_sexp, body_var)?;

    // What the output, the operator and the conditions bind.
    let mut bound: BTreeSet<usize> = head
        .roles()
        .iter()
        .zip(&seq_vars)
        .filter(|(r, _)| matches!(r, Role::Num | Role::Init))
        .map(|(_, v)| *v)
        .collect();
    bind_out(&out, &mut bound);
    if same_wires.is_some() != head.whole_layout() {
        return Err(rd.err(
            item,
            "`(in ?x (same-wires ?l))` is how the flat-order operators (partition, unpartition, stuple_to_seq, seq_to_stuple) take their producer, and only they",
        ));
    }
    if let Some((c, w, l)) = same_wires {
        if !bound.contains(&l) {
            return Err(rd.err(
                c,
                format!(
                    "`{}` in `(same-wires ...)` is not bound by `out`",
                    rd.vars[l]
                ),
            ));
        }
        if needs.len() != 1 {
            return Err(rd.err(c, "`(same-wires ?l)` must be the rule's only requirement"));
        }
        bound.insert(w);
    }
    for c in &conds {
        let (uses, binds): (Vec<&Expr>, Vec<usize>) = match c {
            Cond::Cmp(_, a, b) => (vec![a, b], vec![]),
            Cond::Let(v, e) => (vec![e], vec![*v]),
            Cond::LargestDivisor(v, a, b) => (vec![a, b], vec![*v]),
            Cond::DivisorSplit(x, y, a, b, d) => (vec![a, b, d], vec![*x, *y]),
            Cond::Layout(v, p) => {
                if !bound.contains(v) {
                    return Err(rd.err(
                        item,
                        format!(
                            "`{}` is used in `(layout ...)` before it is bound",
                            rd.vars[*v]
                        ),
                    ));
                }
                bind_out(p, &mut bound);
                continue;
            }
        };
        for e in uses {
            check_expr(&rd, item, e, &bound)?;
        }
        bound.extend(binds);
    }
    // Needs: each input once, the body once; layout variables left unbound are choices.
    let mut choices = Vec::new();
    let mut seen_inputs = Vec::new();
    let mut seen_body = false;
    let mut out_needs = Vec::new();
    // Each clause read above: its form, its variable, its layouts (an `in` clause's one,
    // a body's parameters) and a body's result layout.
    for (c, v, mut layouts, body_out) in needs {
        match body_out {
            None => {
                let layout = layouts.remove(0);
                let Some(k) = inputs.iter().position(|x| *x == v) else {
                    return Err(rd.err(
                        c,
                        format!("`{}` is not an input of `{}`", rd.vars[v], head.name()),
                    ));
                };
                if seen_inputs.contains(&k) {
                    return Err(rd.err(c, format!("input `{}` is listed twice", rd.vars[v])));
                }
                seen_inputs.push(k);
                let mut lv = Vec::new();
                layout.vars(&mut lv);
                for x in lv {
                    if !bound.contains(&x) {
                        choices.push((x, k));
                        bound.insert(x);
                    }
                }
                check_layout(&rd, c, &layout, &bound)?;
                out_needs.push(Need::In { input: k, layout });
            }
            Some(out) => {
                if Some(v) != body_var || seen_body {
                    return Err(rd.err(
                        c,
                        format!(
                            "`{}` is not the body of `{}` (or is listed twice)",
                            rd.vars[v],
                            head.name()
                        ),
                    ));
                }
                seen_body = true;
                out_needs.push(Need::Body {
                    params: layouts,
                    out,
                });
            }
        }
    }
    for n in &out_needs {
        if let Need::Body { params, out } = n {
            for p in params.iter().chain([out]) {
                check_layout(&rd, item, p, &bound)?;
            }
        }
    }
    if seen_inputs.len() != inputs.len() {
        return Err(rd.err(item, "every input of the operator needs an `(in ?x L)`"));
    }
    if body_var.is_some() != seen_body {
        return Err(rd.err(
            item,
            "a higher-order operator needs exactly one `(body ?f (L ...) L)`",
        ));
    }
    if !choices.is_empty() && !seen_body {
        return Err(rd.err(
            item,
            "input layout variables not fixed by `out` are chosen per body; this rule has no body",
        ));
    }
    let mut scope: BTreeSet<usize> = bound.clone();
    scope.extend(inputs.iter().copied());
    check_term(&rd, &st_sexp, &st, &scope)?;
    Ok(LowerRule {
        name: name.to_string(),
        doc,
        file: file.to_string(),
        head,
        seq_vars,
        inputs,
        body: body_var,
        out,
        conds,
        needs: out_needs,
        st,
        choices,
        vars: rd.vars,
        text: clauses
            .iter()
            .filter(|c| c.head() != Some("doc"))
            .map(|c| c.to_string())
            .collect(),
        shape: 0,
        same_wires: same_wires.map(|(_, w, l)| (w, l)),
    })
}

fn bind_out(p: &LayPat, bound: &mut BTreeSet<usize>) {
    match p {
        LayPat::Var(v) => {
            bound.insert(*v);
        }
        LayPat::SSeq(n, q) => {
            bind_expr(n, bound);
            bind_out(q, bound);
        }
        LayPat::TSeq(n, i, q) => {
            bind_expr(n, bound);
            bind_expr(i, bound);
            bind_out(q, bound);
        }
        LayPat::Zipped(q) => bind_out(q, bound),
    }
}

fn bind_expr(e: &Expr, bound: &mut BTreeSet<usize>) {
    if let Expr::Var(v) = e {
        bound.insert(*v);
    }
}

fn check_expr(rd: &Reader, at: &Sexp, e: &Expr, bound: &BTreeSet<usize>) -> R<()> {
    match e {
        Expr::Lit(_) => Ok(()),
        Expr::Var(v) if bound.contains(v) => Ok(()),
        Expr::Var(v) => Err(rd.err(at, format!("`{}` is used before it is bound", rd.vars[*v]))),
        Expr::Bin(_, a, b) => {
            check_expr(rd, at, a, bound)?;
            check_expr(rd, at, b, bound)
        }
    }
}

fn check_layout(rd: &Reader, at: &Sexp, p: &LayPat, bound: &BTreeSet<usize>) -> R<()> {
    match p {
        LayPat::Var(v) if bound.contains(v) => Ok(()),
        LayPat::Var(v) => Err(rd.err(at, format!("`{}` is used before it is bound", rd.vars[*v]))),
        LayPat::SSeq(n, q) => {
            check_expr(rd, at, n, bound)?;
            check_layout(rd, at, q, bound)
        }
        LayPat::TSeq(n, i, q) => {
            check_expr(rd, at, n, bound)?;
            check_expr(rd, at, i, bound)?;
            check_layout(rd, at, q, bound)
        }
        LayPat::Zipped(q) => check_layout(rd, at, q, bound),
    }
}

fn check_term(rd: &Reader, at: &Sexp, t: &Term, scope: &BTreeSet<usize>) -> R<()> {
    match t {
        Term::Var(v) if scope.contains(v) => Ok(()),
        Term::Var(v) => Err(rd.err(at, format!("`{}` is not a producer here", rd.vars[*v]))),
        Term::Op(_, args) => {
            for a in args {
                match a {
                    TArg::Num(e) => check_expr(rd, at, e, scope)?,
                    TArg::Nums(es) => {
                        for e in es {
                            check_expr(rd, at, e, scope)?;
                        }
                    }
                    TArg::Lay(p) => check_layout(rd, at, p, scope)?,
                    TArg::Init { var, .. } if !scope.contains(var) => {
                        return Err(rd.err(
                            at,
                            format!("`{}` is not the operator's init", rd.vars[*var]),
                        ))
                    }
                    TArg::Init { .. } | TArg::Body => {}
                    TArg::Fn(ps, body) => {
                        let mut inner = scope.clone();
                        inner.extend(ps.iter().copied());
                        check_term(rd, at, body, &inner)?;
                    }
                    TArg::Input(t) => check_term(rd, at, t, scope)?,
                }
            }
            Ok(())
        }
    }
}
