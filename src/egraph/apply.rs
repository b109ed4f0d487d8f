//! Applying a rule: run its `where` clauses, build the right side, type it, union it.
//!
//! The right side is built as a concrete pattern: generator fragments are spliced in, and
//! every `(arg I)` whose type was left open gets the type its enclosing function receives
//! (elaboration, like the front end's). The result is typed with the analysis's own rules
//! before anything is added: an instance whose type differs from the matched class is
//! skipped and counted in [`SeqAnalysis`]'s report (it means the rule is unsound), never
//! added. The union goes through `union_instantiations` under the instance's name, such as
//! `map-nest[2x4]`, so explanations name rules, never source lines.

use super::analysis::{node_sort, SeqAnalysis, SeqEGraph, Sort};
use super::conditions::{run, Bindings, Bound, Ctx, FactorPolicy};
use super::lang::SeqLang;
use super::pattern::{is_infer, Pat};
use super::rules::{Rule, ShowItem};
use crate::seq::types::SeqType;
use egg::{Applier, ENodeOrVar, Id, Language, PatternAst, Subst, Symbol, Var};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One instance of a rule's right side, ready to be unioned with the matched class.
#[derive(Clone, Debug)]
pub struct Instance {
    /// The instance's name: the rule name with its parameters, e.g. `map-nest[2x4]`.
    pub name: String,
    /// The right side; its variables are all bound in `subst`.
    pub rhs: Pat,
    /// Bindings of the right side's variables to classes.
    pub subst: Subst,
}

/// Instances of `rule` for a match of its left side at `eclass` with `subst`. Errors are
/// instances that do not type-check (an unsound rule): they are reported, not added.
pub fn instantiate(
    ctx: &Ctx<'_>,
    rule: &Rule,
    eclass: Id,
    subst: &Subst,
) -> Vec<Result<Instance, String>> {
    let eg = ctx.egraph;
    if let Some(bit) = rule.split_bit {
        if eg[eclass].data.marks & (1 << bit) != 0 {
            return Vec::new();
        }
    }
    let mut start = Bindings::new();
    for v in &rule.lhs_vars {
        if let Some(id) = subst.get(*v) {
            start.insert(*v, Bound::Class(*id));
        }
    }
    let mut all = vec![start];
    for clause in &rule.clauses {
        all = all
            .iter()
            .flat_map(|b| run(ctx, &clause.name, &clause.args, b))
            .collect();
        if all.is_empty() {
            return Vec::new();
        }
    }
    let want = &eg[eclass].data.sort;
    all.into_iter()
        .map(|b| {
            let name = instance_name(ctx, rule, &b);
            let spliced = splice_bindings(&rule.rhs, &b)?;
            let (rhs, sort) = elaborate(eg, &spliced, &b)
                .map_err(|m| format!("{name}: the right side does not type-check: {m}"))?;
            if !same_type(&sort, want) {
                return Err(format!(
                    "{name}: the right side has {} but the left side has {} (unsound rule)",
                    show_sort(&sort),
                    show_sort(want)
                ));
            }
            let mut s = Subst::default();
            for (v, x) in &b {
                if let Bound::Class(id) = x {
                    s.insert(*v, *id);
                }
            }
            Ok(Instance {
                name,
                rhs,
                subst: s,
            })
        })
        .collect()
}

fn same_type(a: &Sort, b: &Sort) -> bool {
    match (a, b) {
        (Sort::Value { ty: x, .. }, Sort::Value { ty: y, .. }) => x == y,
        _ => a == b,
    }
}

fn show_sort(s: &Sort) -> String {
    match s {
        Sort::Value { ty, .. } => format!("type {ty}"),
        other => format!("{other:?}"),
    }
}

/// `rule[p1xp2]` from the rule's `(show ...)` items.
fn instance_name(ctx: &Ctx<'_>, rule: &Rule, b: &Bindings) -> String {
    if rule.show.is_empty() {
        return rule.name.clone();
    }
    let mut s = String::new();
    for item in &rule.show {
        match item {
            ShowItem::Text(t) => s.push_str(t),
            ShowItem::Var(v) => match super::conditions::num_of(ctx, b, *v) {
                Some(n) => s.push_str(&n.to_string()),
                None => s.push('?'),
            },
        }
    }
    format!("{}[{s}]", rule.name)
}

/// The right side with every fragment-bound variable replaced by its fragment.
fn splice_bindings(rhs: &Pat, b: &Bindings) -> Result<Pat, String> {
    fn go(src: &Pat, b: &Bindings, out: &mut Pat, depth: usize) -> Result<Id, String> {
        if depth > 32 {
            return Err("fragments nest too deeply".into());
        }
        let mut map: Vec<Id> = Vec::with_capacity(src.as_ref().len());
        for n in src.as_ref() {
            let id = match n {
                ENodeOrVar::Var(v) => match b.get(v) {
                    Some(Bound::Term(frag)) => go(frag, b, out, depth + 1)?,
                    _ => out.add(ENodeOrVar::Var(*v)),
                },
                ENodeOrVar::ENode(e) => out.add(ENodeOrVar::ENode(
                    e.clone().map_children(|c| map[usize::from(c)]),
                )),
            };
            map.push(id);
        }
        Ok(*map.last().expect("patterns are never empty"))
    }
    let mut out = Pat::default();
    go(rhs, b, &mut out, 0)?;
    Ok(out)
}

/// Types a spliced right side, filling inferred `arg` types from the enclosing function's
/// parameters. Returns the concrete pattern and the sort of its root.
pub fn elaborate(eg: &SeqEGraph, pat: &Pat, b: &Bindings) -> Result<(Pat, Sort), String> {
    let mut e = Elab {
        eg,
        src: pat,
        b,
        out: Pat::default(),
        sorts: Vec::new(),
        memo: HashMap::new(),
    };
    let root = Id::from(pat.as_ref().len() - 1);
    let id = e.go(root, None)?;
    let sort = e.sorts[usize::from(id)].clone();
    Ok((e.out, sort))
}

struct Elab<'a> {
    eg: &'a SeqEGraph,
    src: &'a Pat,
    b: &'a Bindings,
    out: Pat,
    sorts: Vec<Sort>,
    memo: HashMap<(Id, Option<Vec<SeqType>>), Id>,
}

impl Elab<'_> {
    fn push(&mut self, n: ENodeOrVar<SeqLang>, s: Sort) -> Id {
        self.sorts.push(s);
        self.out.add(n)
    }

    fn sort(&self, id: Id) -> &Sort {
        &self.sorts[usize::from(id)]
    }

    fn ty_term(&mut self, t: &SeqType) -> Id {
        let node = match t {
            SeqType::Scalar(s) => SeqLang::Scalar(super::lang::ScalarName(*s)),
            SeqType::Seq(n, e) | SeqType::STuple(n, e) => {
                let n2 = self.push(ENodeOrVar::ENode(SeqLang::Num(*n)), Sort::Num(*n));
                let e2 = self.ty_term(e);
                if matches!(t, SeqType::Seq(..)) {
                    SeqLang::TSeq([n2, e2])
                } else {
                    SeqLang::TSTuple([n2, e2])
                }
            }
            SeqType::ATuple(a, c) => {
                let a2 = self.ty_term(a);
                let c2 = self.ty_term(c);
                SeqLang::TATuple([a2, c2])
            }
        };
        self.push(ENodeOrVar::ENode(node), Sort::Type(t.clone()))
    }

    fn value_ty(&self, id: Id) -> Result<SeqType, String> {
        self.sort(id)
            .value_type()
            .cloned()
            .ok_or_else(|| format!("expected a value, found {:?}", self.sort(id)))
    }

    fn go(&mut self, id: Id, ctx: Option<&[SeqType]>) -> Result<Id, String> {
        let key = (id, ctx.map(<[SeqType]>::to_vec));
        if let Some(done) = self.memo.get(&key) {
            return Ok(*done);
        }
        let out = match &self.src[id] {
            ENodeOrVar::Var(v) => match self.b.get(v) {
                Some(Bound::Class(c)) => {
                    let s = self.eg[*c].data.sort.clone();
                    self.push(ENodeOrVar::Var(*v), s)
                }
                _ => return Err(format!("variable {v} is not bound")),
            },
            ENodeOrVar::ENode(node) => {
                let node = node.clone();
                self.node(&node, ctx)?
            }
        };
        self.memo.insert(key, out);
        Ok(out)
    }

    fn node(&mut self, node: &SeqLang, ctx: Option<&[SeqType]>) -> Result<Id, String> {
        let kids = node.children();
        let mut new_kids: Vec<Id> = vec![Id::from(0usize); kids.len()];
        match node {
            SeqLang::Arg([i, t]) => {
                let i2 = self.go(*i, ctx)?;
                let t2 = match &self.src[*t] {
                    ENodeOrVar::Var(v) if is_infer(*v) => {
                        let k = self.sort(i2).num().ok_or("an arg index must be a number")?;
                        let ty = ctx
                            .and_then(|c| c.get(k as usize))
                            .cloned()
                            .ok_or_else(|| {
                                format!("cannot infer the type of (arg {k}): it is not inside a function of that many arguments")
                            })?;
                        self.ty_term(&ty)
                    }
                    _ => self.go(*t, ctx)?,
                };
                new_kids = vec![i2, t2];
            }
            SeqLang::Map(c) | SeqLang::Reduce(c) | SeqLang::HMap(c) => {
                new_kids[0] = self.go(c[0], ctx)?;
                new_kids[2] = self.go(c[2], ctx)?;
                let xt = self.value_ty(new_kids[2])?;
                let e = match xt.as_seq() {
                    Some((_, e)) => e.clone(),
                    None => {
                        return Err(format!(
                            "{}: expected a sequence input, found {xt}",
                            node.op_name()
                        ))
                    }
                };
                let param = if matches!(node, SeqLang::Reduce(_)) {
                    e.zipped_pair()
                } else {
                    e
                };
                new_kids[1] = self.go(c[1], Some(&[param]))?;
            }
            SeqLang::Map2(c) => {
                new_kids[0] = self.go(c[0], ctx)?;
                new_kids[2] = self.go(c[2], ctx)?;
                new_kids[3] = self.go(c[3], ctx)?;
                let elem = |t: SeqType| t.as_seq().map(|(_, e)| e.clone());
                let ex = elem(self.value_ty(new_kids[2])?).ok_or("map2: expected sequences")?;
                let ey = elem(self.value_ty(new_kids[3])?).ok_or("map2: expected sequences")?;
                new_kids[1] = self.go(c[1], Some(&[ex, ey]))?;
            }
            _ => {
                for (k, c) in kids.iter().enumerate() {
                    new_kids[k] = self.go(*c, ctx)?;
                }
            }
        }
        let mut it = new_kids.into_iter();
        let new = node
            .clone()
            .map_children(|_| it.next().expect("same arity"));
        let sort = node_sort(
            &new,
            |c| &self.sorts[usize::from(c)],
            &self.eg.analysis.inputs,
        );
        if let Sort::Invalid(m) = &sort {
            return Err(m.clone());
        }
        Ok(self.push(ENodeOrVar::ENode(new), sort))
    }
}

/// Instances skipped because they did not type-check, by message (shared with the report).
pub type Notes = Arc<Mutex<std::collections::BTreeMap<String, usize>>>;

/// The egg applier of one loaded rule.
pub struct RuleApplier {
    /// The rule.
    pub rule: Arc<Rule>,
    /// The factor pairs `factor` may yield.
    pub factors: Arc<FactorPolicy>,
    /// Where skipped instances are counted.
    pub notes: Notes,
}

impl Applier<SeqLang, SeqAnalysis> for RuleApplier {
    fn apply_one(
        &self,
        egraph: &mut SeqEGraph,
        eclass: Id,
        subst: &Subst,
        _searcher_ast: Option<&PatternAst<SeqLang>>,
        _rule_name: Symbol,
    ) -> Vec<Id> {
        let instances = {
            let ctx = Ctx {
                egraph,
                factors: &self.factors,
            };
            instantiate(&ctx, &self.rule, eclass, subst)
        };
        let mut changed = Vec::new();
        for inst in instances {
            match inst {
                Ok(inst) => {
                    let (id, did) = egraph.union_instantiations(
                        &self.rule.lhs,
                        &inst.rhs,
                        &inst.subst,
                        inst.name.as_str(),
                    );
                    if did {
                        changed.push(id);
                    }
                    if let Some(bit) = self.rule.split_bit {
                        mark_products(egraph, &self.rule, &inst, bit);
                    }
                }
                Err(m) => {
                    if let Ok(mut n) = self.notes.lock() {
                        *n.entry(m).or_default() += 1;
                    }
                }
            }
        }
        changed
    }

    fn vars(&self) -> Vec<Var> {
        Vec::new()
    }
}

/// Marks the classes of the right side's nodes that have the left side's root operator,
/// so this split rule does not split its own results again.
fn mark_products(egraph: &mut SeqEGraph, rule: &Rule, inst: &Instance, bit: u32) {
    let Some(ENodeOrVar::ENode(root)) = rule.lhs.as_ref().last() else {
        return;
    };
    let disc = std::mem::discriminant(root);
    let nodes = inst.rhs.as_ref();
    let mut ids: Vec<Option<Id>> = Vec::with_capacity(nodes.len());
    for n in nodes {
        let id = match n {
            ENodeOrVar::Var(v) => inst.subst.get(*v).map(|i| egraph.find(*i)),
            ENodeOrVar::ENode(e) => {
                let kids: Option<Vec<Id>> =
                    e.children().iter().map(|c| ids[usize::from(*c)]).collect();
                kids.and_then(|k| {
                    let mut it = k.into_iter();
                    egraph.lookup(e.clone().map_children(|_| it.next().expect("arity")))
                })
            }
        };
        ids.push(id);
    }
    for (k, n) in nodes.iter().enumerate().take(nodes.len().saturating_sub(1)) {
        if let (ENodeOrVar::ENode(e), Some(id)) = (n, ids[k]) {
            if std::mem::discriminant(e) == disc {
                egraph[id].data.marks |= 1 << bit;
            }
        }
    }
}
