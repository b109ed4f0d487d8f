//! Proofs: are two programs equal under the rules? And the derivation that says why.
//!
//! Both programs go into one e-graph, which is saturated until they meet in one class (or a
//! limit, or saturation, stops it). With explanations on, egg's proof is turned into a
//! derivation: a chain of named rule applications (`map-nest[2x4]`), each with the subterm
//! it rewrote and the whole term after it, printed as s-expressions. A step marked `<=`
//! applied its rule from right to left (equality saturation works from both ends).

use super::conditions::FactorPolicy;
use super::convert::{input_sigs, program_to_expr, ExprBuilder, InputSig};
use super::lang::SeqLang;
use super::rules::RuleSet;
use super::saturate::{saturate, SatConfig, SatReport};
use crate::seq::program::Program;
use egg::{FlatTerm, Id, Language, RecExpr};
use std::collections::BTreeSet;

/// One step of a derivation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The rule instance (`map-nest[2x4]`); `None` for the starting term.
    pub rule: Option<String>,
    /// True if the rule was applied from its right side to its left side.
    pub backward: bool,
    /// The Stencil seed's name for this kind of step, if the rule has one.
    pub seed: Option<String>,
    /// The rewritten subterm before the step.
    pub before: String,
    /// The rewritten subterm after the step.
    pub after: String,
    /// The whole term after the step.
    pub term: RecExpr<SeqLang>,
}

/// A derivation: from the first program's term to the second's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Derivation {
    /// Step 0 is the first program; the last step's term is the second program.
    pub steps: Vec<Step>,
}

impl Derivation {
    /// The derivation as text: one block per step, terms pretty-printed to `width`.
    pub fn text(&self, width: usize) -> String {
        let mut s = String::new();
        for (i, st) in self.steps.iter().enumerate() {
            match &st.rule {
                None => s.push_str(&format!("step {i}: start\n")),
                Some(r) => {
                    let dir = if st.backward { "<=" } else { "=>" };
                    let seed = st
                        .seed
                        .as_ref()
                        .map(|x| format!("   ({x})"))
                        .unwrap_or_default();
                    s.push_str(&format!("step {i}: {dir} {r}{seed}\n"));
                    s.push_str(&format!("  rewrites: {}\n", clip(&st.before, 200)));
                    s.push_str(&format!("  into:     {}\n", clip(&st.after, 200)));
                }
            }
            for line in st.term.pretty(width).lines() {
                s.push_str("    ");
                s.push_str(line);
                s.push('\n');
            }
        }
        s
    }

    /// The derivation as JSON: `[{rule, direction, seed, before, after, term}]`.
    pub fn json(&self) -> serde_json::Value {
        serde_json::Value::Array(
            self.steps
                .iter()
                .map(|st| {
                    serde_json::json!({
                        "rule": st.rule,
                        "direction": if st.rule.is_none() { "start" } else if st.backward { "backward" } else { "forward" },
                        "seed": st.seed,
                        "before": st.before,
                        "after": st.after,
                        "term": st.term.to_string(),
                    })
                })
                .collect(),
        )
    }

    /// The rule instances used, in order.
    pub fn rules(&self) -> Vec<&str> {
        self.steps
            .iter()
            .filter_map(|s| s.rule.as_deref())
            .collect()
    }
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let cut: String = s.chars().take(max).collect();
        format!("{cut} ...")
    }
}

/// The result of a proof attempt.
#[derive(Clone, Debug)]
pub struct ProveOutcome {
    /// True if the two programs ended in one e-class.
    pub proven: bool,
    /// The saturation report.
    pub report: SatReport,
    /// The derivation, when proven and asked for.
    pub derivation: Option<Derivation>,
}

/// Checks that two programs can be compared: the same input types in the same order and
/// the same output type. The message is a user error.
pub fn check_comparable(a: &Program, b: &Program) -> Result<(), String> {
    if a.inputs.len() != b.inputs.len() {
        return Err(format!(
            "the programs take different inputs: {} has {} input(s), {} has {}",
            a.name,
            a.inputs.len(),
            b.name,
            b.inputs.len()
        ));
    }
    for (k, (x, y)) in a.inputs.iter().zip(&b.inputs).enumerate() {
        if x.ty != y.ty {
            return Err(format!(
                "input {k} has type {} in {} (`{}`) but {} in {} (`{}`)",
                x.ty, a.name, x.name, y.ty, b.name, y.name
            ));
        }
    }
    if a.output_type() != b.output_type() {
        return Err(format!(
            "the programs have different output types: {} in {}, {} in {}",
            a.output_type(),
            a.name,
            b.output_type(),
            b.name
        ));
    }
    Ok(())
}

/// The factor policy a proof uses unless told otherwise: every number at least 2 that
/// appears in either program (its parameters and types) may be an inner factor, and only
/// the programs' own sequence lengths are split.
pub fn program_factors(programs: &[&Program]) -> FactorPolicy {
    let mut nums: BTreeSet<u64> = BTreeSet::new();
    for p in programs {
        for n in program_to_expr(p, None).as_ref() {
            if let SeqLang::Num(k) = n {
                if *k >= 2 {
                    nums.insert(*k);
                }
            }
        }
    }
    FactorPolicy::inner(nums).with_lengths(sequence_lengths(programs))
}

/// The lengths of every sequence layer in the types of the programs' nodes.
pub fn sequence_lengths(programs: &[&Program]) -> BTreeSet<u64> {
    fn layers(t: &crate::seq::types::SeqType, out: &mut BTreeSet<u64>) {
        use crate::seq::types::SeqType;
        match t {
            SeqType::Seq(n, e) => {
                out.insert(*n);
                layers(e, out);
            }
            SeqType::STuple(_, e) => layers(e, out),
            SeqType::ATuple(a, b) => {
                layers(a, out);
                layers(b, out);
            }
            SeqType::Scalar(_) => {}
        }
    }
    let mut out = BTreeSet::new();
    for p in programs {
        for id in p.reachable() {
            layers(p.ty(id), &mut out);
        }
    }
    out
}

/// Tries to prove `a = b` with the configuration's factor policy (see [`program_factors`]
/// for the usual choice). With `explain`, a
/// proven equality comes with its derivation. Errors are user errors (incomparable
/// programs).
pub fn prove(
    a: &Program,
    b: &Program,
    rules: &RuleSet,
    cfg: &SatConfig,
    explain: bool,
) -> Result<ProveOutcome, String> {
    check_comparable(a, b)?;
    let names: Vec<InputSig> = input_sigs(a);
    let ea = program_to_expr(a, Some(&names));
    let eb = program_to_expr(b, Some(&names));
    Ok(prove_exprs(&ea, &eb, &names, rules, cfg, explain))
}

/// [`prove`] on two terms over the inputs `names` (already known to be comparable).
pub fn prove_exprs(
    ea: &RecExpr<SeqLang>,
    eb: &RecExpr<SeqLang>,
    names: &[InputSig],
    rules: &RuleSet,
    cfg: &SatConfig,
    explain: bool,
) -> ProveOutcome {
    let (ea, eb) = (ea.clone(), eb.clone());
    let mut cfg = cfg.clone();
    cfg.explanations = explain;
    let mut sat = saturate(&[ea.clone(), eb.clone()], names, rules, &cfg, true);
    let proven = sat.runner.egraph.find(sat.roots[0]) == sat.runner.egraph.find(sat.roots[1]);
    let derivation = if proven && explain {
        let mut expl = sat.runner.explain_equivalence(&ea, &eb);
        let flat = expl.make_flat_explanation().clone();
        Some(derivation(&flat, rules))
    } else {
        None
    };
    ProveOutcome {
        proven,
        report: sat.report,
        derivation,
    }
}

/// The expression of a flat term (without parsing: inputs do not parse back).
pub fn flat_expr(t: &FlatTerm<SeqLang>) -> RecExpr<SeqLang> {
    fn go(t: &FlatTerm<SeqLang>, b: &mut ExprBuilder) -> Id {
        let kids: Vec<Id> = t.children.iter().map(|c| go(c, b)).collect();
        let mut it = kids.into_iter();
        let node = t
            .node
            .clone()
            .map_children(|_| it.next().expect("same arity"));
        b.add(node)
    }
    let mut b = ExprBuilder::default();
    let root = go(t, &mut b);
    super::convert::reroot(&b.finish(), root)
}

/// Finds the rewritten subterm of a flat term: its path, rule and direction.
fn find_rewrite(t: &FlatTerm<SeqLang>, path: &mut Vec<usize>) -> Option<(String, bool)> {
    if let Some(r) = &t.forward_rule {
        return Some((r.to_string(), false));
    }
    if let Some(r) = &t.backward_rule {
        return Some((r.to_string(), true));
    }
    for (k, c) in t.children.iter().enumerate() {
        path.push(k);
        if let Some(found) = find_rewrite(c, path) {
            return Some(found);
        }
        path.pop();
    }
    None
}

fn at_path<'a>(t: &'a FlatTerm<SeqLang>, path: &[usize]) -> &'a FlatTerm<SeqLang> {
    path.iter().fold(t, |t, k| &t.children[*k])
}

fn derivation(flat: &[FlatTerm<SeqLang>], rules: &RuleSet) -> Derivation {
    let mut steps = Vec::new();
    for (i, t) in flat.iter().enumerate() {
        let term = flat_expr(t);
        let mut path = Vec::new();
        let found = if i == 0 {
            None
        } else {
            find_rewrite(t, &mut path)
        };
        let step = match found {
            None => Step {
                rule: None,
                backward: false,
                seed: None,
                before: String::new(),
                after: String::new(),
                term,
            },
            Some((rule, backward)) => Step {
                seed: rules.seed_name(&rule).map(str::to_string),
                before: flat_expr(at_path(&flat[i - 1], &path)).to_string(),
                after: flat_expr(at_path(t, &path)).to_string(),
                rule: Some(rule),
                backward,
                term,
            },
        };
        steps.push(step);
    }
    Derivation { steps }
}
