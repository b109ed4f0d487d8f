//! The soundness test of rules: random instances, random inputs, both sides interpreted.
//!
//! For each rule: build a random instance of its left side as a program ([`random_lhs`]),
//! put it in a fresh e-graph, match the left side at the root and build every right-side
//! instance with the very code saturation uses ([`instantiate`], every factor pair allowed).
//! Each right side is turned back into a program and both are run by the reference
//! interpreter on random inputs, some of whose atoms are don't-care.
//!
//! **Equality with don't-care.** A rule is an equation, used in both directions, so the two
//! sides must agree exactly: at every position where the left side is defined the right
//! side must be defined and equal, *and vice versa*. A don't-care on one side only is a
//! failure (replacing a defined value by a don't-care loses information in one direction).
//! Values are compared after expanding structured don't-cares to their atoms.

use super::analysis::{SeqAnalysis, SeqEGraph};
use super::apply::instantiate;
use super::conditions::{Ctx, FactorPolicy};
use super::convert::{expr_to_program, input_sigs, program_to_expr, ExprBuilder};
use super::lang::SeqLang;
use super::pattern::Pat;
use super::random::random_lhs;
use super::rules::{Rule, RuleSet};
use crate::seq::interp::{eval, expand_undef};
use crate::seq::program::Program;
use crate::seq::types::SeqType;
use crate::seq::value::{format_value, Value};
use crate::util::rng::Rng;
use egg::{AstSize, ENodeOrVar, Extractor, Id, Language, Pattern, RecExpr, Searcher, Subst};

/// The outcome of testing one rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleCheck {
    /// The rule's name.
    pub rule: String,
    /// Right-side instances compared.
    pub instances: usize,
    /// Interpreter runs compared (instances x inputs).
    pub evaluations: usize,
    /// The first failure, if any: what differed, on which instance and input.
    pub failure: Option<String>,
}

impl RuleCheck {
    /// True if the rule passed.
    pub fn ok(&self) -> bool {
        self.failure.is_none()
    }

    /// One line: `ok   map-nest  (20 instances, 60 runs)` or `FAIL rule: why`.
    pub fn line(&self) -> String {
        match &self.failure {
            None => format!(
                "ok    {}  ({} instances, {} runs)",
                self.rule, self.instances, self.evaluations
            ),
            Some(f) => format!("FAIL  {}: {f}", self.rule),
        }
    }
}

/// How hard to test.
#[derive(Clone, Debug)]
pub struct CheckConfig {
    /// Seed of the random choices (the same seed gives the same test everywhere).
    pub seed: u64,
    /// Right-side instances to compare per rule.
    pub instances: usize,
    /// Random inputs per instance.
    pub inputs: usize,
    /// Left-side instances to try before giving up.
    pub attempts: usize,
}

impl Default for CheckConfig {
    fn default() -> CheckConfig {
        CheckConfig {
            seed: 1,
            instances: 24,
            inputs: 3,
            attempts: 3000,
        }
    }
}

/// Tests every rule of the set (all rule sets).
pub fn check_rules(rules: &RuleSet, cfg: &CheckConfig) -> Vec<RuleCheck> {
    rules.rules.iter().map(|r| check_rule(r, cfg)).collect()
}

/// Tests one rule.
pub fn check_rule(rule: &Rule, cfg: &CheckConfig) -> RuleCheck {
    let seed = cfg.seed ^ name_hash(&rule.name);
    let mut rng = Rng::new(seed);
    let mut out = RuleCheck {
        rule: rule.name.clone(),
        instances: 0,
        evaluations: 0,
        failure: None,
    };
    let factors = FactorPolicy::all();
    // Each cast of the left side draws its target and source types from 7 each, and a cast
    // rule typically fails on a few of those pairs only (a sign extension where the types'
    // widths alone looked fine): test such rules on proportionally more instances.
    let casts = rule
        .lhs
        .as_ref()
        .iter()
        .filter(|n| matches!(n, ENodeOrVar::ENode(SeqLang::Cast(_))))
        .count();
    let wanted = cfg.instances * (1 + 4 * casts);
    for _ in 0..cfg.attempts {
        if out.instances >= wanted {
            break;
        }
        let Some(lhs) = random_lhs(rule, &mut rng) else {
            continue;
        };
        let inputs = input_sigs(&lhs);
        let mut eg = SeqEGraph::new(SeqAnalysis::new(
            inputs.iter().map(|i| i.ty.clone()).collect(),
        ));
        let root = eg.add_expr(&program_to_expr(&lhs, None));
        eg.rebuild();
        let searcher = Pattern::new(rule.lhs.clone());
        let Some(matches) = searcher.search_eclass(&eg, root) else {
            continue;
        };
        let ctx = Ctx {
            egraph: &eg,
            factors: &factors,
        };
        let extractor = Extractor::new(&eg, AstSize);
        for subst in &matches.substs {
            for inst in instantiate(&ctx, rule, root, subst) {
                let inst = match inst {
                    Ok(i) => i,
                    Err(m) => {
                        out.failure = Some(format!("{m}; left side: {}", show_lhs(&lhs)));
                        return out;
                    }
                };
                let rhs_expr = concretize(&extractor, &inst.rhs, &inst.subst);
                let rhs = match expr_to_program(&rhs_expr, &inputs, &rule.name) {
                    Ok(p) => p,
                    Err(m) => {
                        out.failure = Some(format!(
                            "{}: the right side is not a valid program: {m}",
                            inst.name
                        ));
                        return out;
                    }
                };
                out.instances += 1;
                for _ in 0..cfg.inputs {
                    let vals: Vec<Value> = lhs
                        .inputs
                        .iter()
                        .map(|i| random_input(&i.ty, &mut rng))
                        .collect();
                    out.evaluations += 1;
                    if let Err(m) = compare(&lhs, &rhs, &vals) {
                        out.failure = Some(format!(
                            "{}: {m}\n      left side:  {}\n      right side: {}",
                            inst.name,
                            show_lhs(&lhs),
                            rhs_expr
                        ));
                        return out;
                    }
                }
            }
        }
    }
    if out.instances == 0 {
        out.failure = Some(format!(
            "no instance could be built in {} attempts: the rule is untested",
            cfg.attempts
        ));
    }
    out
}

fn name_hash(s: &str) -> u64 {
    // FNV-1a: stable across machines and Rust versions.
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

fn show_lhs(p: &Program) -> String {
    program_to_expr(p, None).to_string()
}

/// A random input: uniformly random atoms, about one in sixteen a don't-care.
pub fn random_input(t: &SeqType, rng: &mut Rng) -> Value {
    match t {
        SeqType::Scalar(s) => {
            if rng.range(0, 15) == 0 {
                Value::Undef
            } else {
                Value::Scalar(rng.next_u64() & s.mask())
            }
        }
        SeqType::ATuple(a, b) => Value::pair(random_input(a, rng), random_input(b, rng)),
        SeqType::Seq(n, e) | SeqType::STuple(n, e) => {
            Value::List((0..*n).map(|_| random_input(e, rng)).collect())
        }
    }
}

/// Runs both programs; they must agree exactly, don't-cares included (module docs).
fn compare(lhs: &Program, rhs: &Program, inputs: &[Value]) -> Result<(), String> {
    let t = lhs.output_type();
    let a = expand_undef(&eval(lhs, inputs)?, t);
    let b = expand_undef(&eval(rhs, inputs)?, t);
    if a == b {
        Ok(())
    } else {
        let shown: Vec<String> = lhs
            .inputs
            .iter()
            .zip(inputs)
            .map(|(d, v)| format!("{} = {}", d.name, format_value(v, &d.ty)))
            .collect();
        Err(format!(
            "the sides differ on input {}: left {} but right {}",
            shown.join(", "),
            format_value(&a, t),
            format_value(&b, t)
        ))
    }
}

/// The right side as a concrete term: each variable becomes the smallest term of its class.
fn concretize(
    ex: &Extractor<'_, AstSize, SeqLang, SeqAnalysis>,
    pat: &Pat,
    subst: &Subst,
) -> RecExpr<SeqLang> {
    let mut b = ExprBuilder::default();
    let mut ids: Vec<Id> = Vec::new();
    for n in pat.as_ref() {
        let id = match n {
            ENodeOrVar::Var(v) => {
                let (_, term) = ex.find_best(subst[*v]);
                let mut map: Vec<Id> = Vec::new();
                for t in term.as_ref() {
                    map.push(b.add(t.clone().map_children(|c| map[usize::from(c)])));
                }
                *map.last().expect("a term is never empty")
            }
            ENodeOrVar::ENode(e) => b.add(e.clone().map_children(|c| ids[usize::from(c)])),
        };
        ids.push(id);
    }
    let root = *ids.last().expect("a pattern is never empty");
    super::convert::reroot(&b.finish(), root)
}
