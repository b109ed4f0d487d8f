//! Rules as data: the rule file format, the loader and the built-in rule set.
//!
//! A rule file (`*.rules`, s-expressions, `;` comments) holds `(rule ...)` forms:
//!
//! ```text
//! (rule map-nest
//!   (doc N-Map: a map over no*ni elements is an outer map of inner maps)
//!   (seed Map Nesting)
//!   (lhs (map ?n ?f ?x))
//!   (where (factor ?n ?no ?ni))
//!   (rhs (unpartition ?no ?ni (map ?no (map ?ni ?f (arg 0)) (partition ?no ?ni ?x))))
//!   (show ?no x ?ni)
//!   (split))
//! ```
//!
//! `lhs` and `rhs` are patterns (see [`super::pattern`]); `where` lists conditions and
//! generators by name (see [`super::conditions::GENERATORS`]); `show` says how an instance
//! is named (`map-nest[2x4]`); `split` marks a nesting rule whose results it must not split
//! again. `doc` and `seed` (the name the Stencil seed gives the step) are free words. The
//! full format and every rule are documented in `docs/rules.md`.
//!
//! The files under `rules/` are compiled in as the defaults; `--rules DIR` replaces them.
//! Loading rejects unknown conditions, unbound variables and malformed patterns with the
//! file, the position, the rule's name and the reason.

use super::analysis::SeqAnalysis;
use super::apply::{Notes, RuleApplier};
use super::conditions::{lookup, FactorPolicy, Mode};
use super::lang::SeqLang;
use super::pattern::{is_infer, parse_pattern, pattern_vars, show_pattern, var_roles, Pat, Role};
use crate::util::diag::Diagnostic;
use crate::util::sexp::{parse_file, Sexp};
use egg::{ENodeOrVar, Pattern, Rewrite, Var};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The built-in rule files, compiled in from `rules/`.
pub const DEFAULT_RULE_FILES: &[(&str, &str)] = &[
    (
        "rules/seq/nesting.rules",
        include_str!("../../rules/seq/nesting.rules"),
    ),
    (
        "rules/seq/shift.rules",
        include_str!("../../rules/seq/shift.rules"),
    ),
    (
        "rules/seq/stencil.rules",
        include_str!("../../rules/seq/stencil.rules"),
    ),
    (
        "rules/seq/partition.rules",
        include_str!("../../rules/seq/partition.rules"),
    ),
    (
        "rules/seq/iso.rules",
        include_str!("../../rules/seq/iso.rules"),
    ),
    (
        "rules/seq/functor.rules",
        include_str!("../../rules/seq/functor.rules"),
    ),
    (
        "rules/seq/hmap.rules",
        include_str!("../../rules/seq/hmap.rules"),
    ),
    (
        "rules/seq/cast.rules",
        include_str!("../../rules/seq/cast.rules"),
    ),
    (
        "rules/seq/down.rules",
        include_str!("../../rules/seq/down.rules"),
    ),
    (
        "rules/seq/arith.rules",
        include_str!("../../rules/seq/arith.rules"),
    ),
    (
        "rules/seq/commute.rules",
        include_str!("../../rules/seq/commute.rules"),
    ),
];

/// A `where` clause: a condition or generator applied to variables.
#[derive(Clone, Debug)]
pub struct Clause {
    /// The generator's name.
    pub name: String,
    /// Its arguments.
    pub args: Vec<Var>,
}

/// One item of a rule's `(show ...)`.
#[derive(Clone, Debug)]
pub enum ShowItem {
    /// Literal text.
    Text(String),
    /// A numeric variable's value.
    Var(Var),
}

/// A loaded, checked rule.
#[derive(Clone, Debug)]
pub struct Rule {
    /// Its name (unique in a rule set).
    pub name: String,
    /// What it says, in words.
    pub doc: String,
    /// The name the Stencil seed's derivation gives this kind of step, if any.
    pub seed: Option<String>,
    /// The left side.
    pub lhs: Pat,
    /// The right side.
    pub rhs: Pat,
    /// Variables of the left side.
    pub lhs_vars: Vec<Var>,
    /// What each left-side variable stands for.
    pub lhs_roles: Vec<(Var, Role)>,
    /// Conditions and generators, run in order.
    pub clauses: Vec<Clause>,
    /// How instances are named.
    pub show: Vec<ShowItem>,
    /// For split rules: the split group (rules of one group do not split each other's
    /// products; by default the group is the rule itself).
    pub split_group: Option<String>,
    /// For split rules: the bit that marks the group's products.
    pub split_bit: Option<u32>,
    /// The rule sets it belongs to (`core` unless the file says `(set NAME ...)`);
    /// saturation uses only the sets it is asked for (see
    /// [`super::saturate::SatConfig::sets`]). A rule in several sets runs in each phase
    /// that uses one of them (a `simplify` rule that is also `core` runs in both).
    pub sets: Vec<String>,
    /// The file the rule came from.
    pub file: String,
}

impl Rule {
    /// The left side as written (without inferred types).
    pub fn lhs_text(&self) -> String {
        show_pattern(&self.lhs)
    }

    /// The right side as written.
    pub fn rhs_text(&self) -> String {
        show_pattern(&self.rhs)
    }

    /// The `where` clauses as written.
    pub fn where_text(&self) -> String {
        self.clauses
            .iter()
            .map(|c| {
                let args: Vec<String> = c.args.iter().map(Var::to_string).collect();
                format!("({} {})", c.name, args.join(" "))
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A loaded set of rules.
#[derive(Clone, Debug)]
pub struct RuleSet {
    /// The rules, in file order.
    pub rules: Vec<Arc<Rule>>,
    /// Where they came from (`built-in` or a directory).
    pub origin: String,
}

impl RuleSet {
    /// The built-in rules.
    ///
    /// # Panics
    /// If a built-in file does not load; a test checks that they all do.
    pub fn defaults() -> RuleSet {
        let files: Vec<(String, String)> = DEFAULT_RULE_FILES
            .iter()
            .map(|(f, t)| (f.to_string(), t.to_string()))
            .collect();
        RuleSet::from_texts(&files, "built-in").expect("the built-in rules load")
    }

    /// Loads every `*.rules` file under `dir` (recursively, in path order).
    pub fn load_dir(dir: &Path) -> Result<RuleSet, Diagnostic> {
        let shown = dir.display().to_string();
        let mut paths = Vec::new();
        collect(dir, &mut paths).map_err(|e| {
            Diagnostic::file(&shown, format!("cannot read the rule directory: {e}"))
        })?;
        paths.sort();
        if paths.is_empty() {
            return Err(Diagnostic::file(
                &shown,
                "no *.rules file in this directory",
            ));
        }
        let mut files = Vec::new();
        for p in paths {
            let f = p.display().to_string();
            let text = std::fs::read_to_string(&p)
                .map_err(|e| Diagnostic::file(&f, format!("cannot read the file: {e}")))?;
            files.push((f, text));
        }
        RuleSet::from_texts(&files, &shown)
    }

    /// Loads rules from `(file name, text)` pairs.
    pub fn from_texts(files: &[(String, String)], origin: &str) -> Result<RuleSet, Diagnostic> {
        let mut rules: Vec<Arc<Rule>> = Vec::new();
        let mut groups: Vec<String> = Vec::new();
        for (file, text) in files {
            for form in parse_file(file, text)? {
                let mut rule = parse_rule(file, &form)?;
                if let Some(prev) = rules.iter().find(|r| r.name == rule.name) {
                    return Err(Diagnostic::at(
                        file,
                        form.pos,
                        format!(
                            "rule `{}` is defined twice (also in {})",
                            rule.name, prev.file
                        ),
                    ));
                }
                if let Some(g) = &rule.split_group {
                    let bit = match groups.iter().position(|x| x == g) {
                        Some(k) => k,
                        None => {
                            groups.push(g.clone());
                            groups.len() - 1
                        }
                    };
                    if bit >= 64 {
                        return Err(Diagnostic::at(file, form.pos, "at most 64 split groups"));
                    }
                    rule.split_bit = Some(bit as u32);
                }
                rules.push(Arc::new(rule));
            }
        }
        Ok(RuleSet {
            rules,
            origin: origin.to_string(),
        })
    }

    /// The rule of this name.
    pub fn get(&self, name: &str) -> Option<&Arc<Rule>> {
        self.rules.iter().find(|r| r.name == name)
    }

    /// The seed's name for the rule an instance name (`map-nest[2x4]`) belongs to.
    pub fn seed_name(&self, instance: &str) -> Option<&str> {
        let base = instance.split('[').next().unwrap_or(instance);
        self.get(base).and_then(|r| r.seed.as_deref())
    }

    /// The rules as readable text: name, set, split group, file, doc, sides, conditions;
    /// then the known conditions and generators.
    pub fn listing(&self) -> String {
        let mut s = format!("{} rules ({})\n", self.rules.len(), self.origin);
        for r in &self.rules {
            let split = r
                .split_group
                .as_ref()
                .map(|g| format!(", split group {g}"))
                .unwrap_or_default();
            s.push_str(&format!(
                "\n{}  [set {}{split}]  {}\n",
                r.name,
                r.sets.join(","),
                r.file
            ));
            if !r.doc.is_empty() {
                s.push_str(&format!("  {}\n", r.doc));
            }
            s.push_str(&format!("  {}\n  => {}\n", r.lhs_text(), r.rhs_text()));
            if !r.clauses.is_empty() {
                s.push_str(&format!("  where {}\n", r.where_text()));
            }
        }
        s.push_str("\nconditions and generators:\n");
        for g in super::conditions::GENERATORS {
            s.push_str(&format!("  {}\n", g.doc));
        }
        s
    }

    /// The names of the rule sets present, in order of first appearance.
    pub fn set_names(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for set in self.rules.iter().flat_map(|r| &r.sets) {
            if !out.contains(set) {
                out.push(set.clone());
            }
        }
        out
    }

    /// The egg rewrites of the rules in the given sets.
    pub fn rewrites(
        &self,
        sets: &[String],
        factors: &Arc<FactorPolicy>,
        notes: &Notes,
    ) -> Vec<Rewrite<SeqLang, SeqAnalysis>> {
        self.rules
            .iter()
            .filter(|r| r.sets.iter().any(|s| sets.contains(s)))
            .map(|r| {
                let applier = RuleApplier {
                    rule: r.clone(),
                    factors: factors.clone(),
                    notes: notes.clone(),
                };
                Rewrite::new(r.name.clone(), Pattern::new(r.lhs.clone()), applier)
                    .expect("the loader checked the variables")
            })
            .collect()
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let p = entry?.path();
        if p.is_dir() {
            collect(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "rules") {
            out.push(p);
        }
    }
    Ok(())
}

fn words(items: &[Sexp]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parses and checks one `(rule ...)` form.
pub fn parse_rule(file: &str, form: &Sexp) -> Result<Rule, Diagnostic> {
    let at = |pos, m: String| Diagnostic::at(file, pos, m);
    let items = form
        .list()
        .filter(|_| form.head() == Some("rule"))
        .ok_or_else(|| {
            at(
                form.pos,
                if form.head() == Some("lower") {
                    "this is a lowering rule (rules/lower/, listed by `tessera rules --lower`), not a rewrite rule; --rules DIR reads rewrite rules only (the built-in ones are in rules/seq)".to_string()
                } else {
                    format!("expected `(rule NAME ...)`, found `{}`", form.excerpt(40))
                },
            )
        })?;
    let name = items
        .get(1)
        .and_then(Sexp::atom)
        .filter(|n| {
            !n.is_empty()
                && n.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        })
        .ok_or_else(|| {
            at(
                form.pos,
                "a rule needs a name of lower-case letters, digits and `-`: `(rule NAME ...)`"
                    .into(),
            )
        })?
        .to_string();
    let rerr = |pos, m: String| at(pos, format!("rule `{name}`: {m}"));
    let (mut doc, mut seed, mut lhs, mut rhs, mut clauses_sx, mut show_sx, mut split) =
        (String::new(), None, None, None, None, None, None);
    let mut set = vec!["core".to_string()];
    for part in &items[2..] {
        let Some(key) = part.head() else {
            return Err(rerr(
                part.pos,
                format!(
                    "expected a section such as `(lhs ...)`, found `{}`",
                    part.excerpt(40)
                ),
            ));
        };
        let body = &part.list().expect("has a head")[1..];
        let one = || -> Result<&Sexp, Diagnostic> {
            match body {
                [x] => Ok(x),
                _ => Err(rerr(
                    part.pos,
                    format!("`({key} ...)` takes exactly one pattern"),
                )),
            }
        };
        match key {
            "doc" => doc = words(body),
            "seed" => seed = Some(words(body)),
            "lhs" => lhs = Some(one()?),
            "rhs" => rhs = Some(one()?),
            "where" => clauses_sx = Some(body),
            "show" => show_sx = Some(body),
            "set" => {
                set = match body {
                    [] => return Err(rerr(part.pos, "expected `(set NAME ...)`".into())),
                    names if names.iter().all(|g| g.atom().is_some()) => {
                        names.iter().map(|g| g.to_string()).collect()
                    }
                    _ => return Err(rerr(part.pos, "expected `(set NAME ...)`".into())),
                }
            }
            "split" => {
                split = match body {
                    [] => Some(name.clone()),
                    [g] if g.atom().is_some() => Some(g.to_string()),
                    _ => return Err(rerr(part.pos, "expected `(split)` or `(split GROUP)`".into())),
                }
            }
            _ => return Err(rerr(part.pos, format!("unknown section `({key} ...)`: expected doc, seed, lhs, rhs, where, show, split or set"))),
        }
    }
    let lhs_sx = lhs.ok_or_else(|| rerr(form.pos, "missing `(lhs PATTERN)`".into()))?;
    let rhs_sx = rhs.ok_or_else(|| rerr(form.pos, "missing `(rhs PATTERN)`".into()))?;
    let lhs =
        parse_pattern(file, lhs_sx).map_err(|d| rerr(d.pos.unwrap_or(lhs_sx.pos), d.message))?;
    let rhs =
        parse_pattern(file, rhs_sx).map_err(|d| rerr(d.pos.unwrap_or(rhs_sx.pos), d.message))?;
    if !matches!(lhs.as_ref().last(), Some(ENodeOrVar::ENode(n)) if !egg::Language::is_leaf(n)) {
        return Err(rerr(
            lhs_sx.pos,
            "the left side must be an operator form, not a bare variable or leaf".into(),
        ));
    }
    let roles = var_roles(&lhs, Role::Data).map_err(|m| rerr(lhs_sx.pos, m))?;
    var_roles(&rhs, Role::Data).map_err(|m| rerr(rhs_sx.pos, m))?;
    let lhs_vars = pattern_vars(&lhs);
    let mut bound: Vec<Var> = lhs_vars.clone();
    let mut clauses = Vec::new();
    for c in clauses_sx.unwrap_or(&[]) {
        let cname = c.head().ok_or_else(|| {
            rerr(
                c.pos,
                format!(
                    "expected a condition `(NAME ?x ...)`, found `{}`",
                    c.excerpt(40)
                ),
            )
        })?;
        let spec = lookup(cname).ok_or_else(|| {
            let known: Vec<&str> = super::conditions::GENERATORS
                .iter()
                .map(|g| g.name)
                .collect();
            rerr(
                c.pos,
                format!("unknown condition `{cname}` (known: {})", known.join(", ")),
            )
        })?;
        let args_sx = &c.list().expect("has a head")[1..];
        if args_sx.len() != spec.modes.len() {
            return Err(rerr(
                c.pos,
                format!(
                    "`{cname}` takes {} variables, found {} ({})",
                    spec.modes.len(),
                    args_sx.len(),
                    spec.doc
                ),
            ));
        }
        let mut args = Vec::new();
        for (a, mode) in args_sx.iter().zip(spec.modes) {
            let v: Var = a
                .atom()
                .filter(|s| s.starts_with('?') && s.len() > 1)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| {
                    rerr(
                        a.pos,
                        format!("`{cname}` takes variables `?x`, found `{a}`"),
                    )
                })?;
            match mode {
                Mode::In if !bound.contains(&v) => {
                    return Err(rerr(a.pos, format!("unbound variable {v}: `{cname}` needs it bound by the left side or an earlier condition")))
                }
                Mode::Out if bound.contains(&v) => {
                    return Err(rerr(a.pos, format!("variable {v} is already bound; `{cname}` binds it")))
                }
                _ => {}
            }
            if !bound.contains(&v) {
                bound.push(v);
            }
            args.push(v);
        }
        clauses.push(Clause {
            name: cname.to_string(),
            args,
        });
    }
    for v in pattern_vars(&rhs) {
        if !is_infer(v) && !bound.contains(&v) {
            return Err(rerr(
                rhs_sx.pos,
                format!("unbound variable {v} in the right side"),
            ));
        }
    }
    let mut show = Vec::new();
    for item in show_sx.unwrap_or(&[]) {
        match item.atom() {
            Some(a) if a.starts_with('?') => {
                let v: Var = a
                    .parse()
                    .map_err(|_| rerr(item.pos, format!("bad variable `{a}`")))?;
                if !bound.contains(&v) {
                    return Err(rerr(
                        item.pos,
                        format!("unbound variable {v} in `(show ...)`"),
                    ));
                }
                show.push(ShowItem::Var(v));
            }
            Some(a) => show.push(ShowItem::Text(a.to_string())),
            None => {
                return Err(rerr(
                    item.pos,
                    "`(show ...)` takes variables and words".into(),
                ))
            }
        }
    }
    Ok(Rule {
        name,
        doc,
        seed,
        lhs,
        rhs,
        lhs_vars,
        lhs_roles: roles.into_iter().collect(),
        clauses,
        show,
        split_group: split,
        split_bit: None,
        sets: set,
        file: file.to_string(),
    })
}
