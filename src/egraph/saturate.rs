//! Saturation: running the rules with node, iteration and time limits, and the report.
//!
//! A run stops when nothing new is learnt (`saturated`), when an optional goal is reached
//! (two roots in one class, for proofs), or at a limit. Hitting a limit is reported in the
//! stop reason, never silent. The time limit is off by default: it makes results depend on
//! the machine, so snapshots rely on node and iteration limits only.

use super::analysis::{SeqAnalysis, SeqEGraph};
use super::apply::Notes;
use super::conditions::FactorPolicy;
use super::convert::{program_to_expr, InputSig};
use super::lang::SeqLang;
use super::rules::RuleSet;
use crate::seq::program::Program;
use egg::{BackoffScheduler, Id, RecExpr, Runner, StopReason};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Limits of one saturation.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// At most this many iterations.
    pub iterations: usize,
    /// Stop when the e-graph holds more e-nodes than this.
    pub nodes: usize,
    /// Stop after this long (`None`: no time limit).
    pub time: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            iterations: 40,
            nodes: 100_000,
            time: None,
        }
    }
}

/// How to saturate.
#[derive(Clone, Debug)]
pub struct SatConfig {
    /// The limits.
    pub limits: Limits,
    /// Which factor pairs nesting rules try.
    pub factors: FactorPolicy,
    /// Record explanations (needed for derivations; costs memory).
    pub explanations: bool,
    /// The rule sets to use (rules declare theirs with `(set NAME ...)`; default `program`,
    /// `simplify` and `core`). Rules of [`PROGRAM_SET`] rewrite the program as written,
    /// once; then rules of [`SIMPLIFY_SET`] and [`FUSION_SET`] run to a fixpoint; then the
    /// others saturate.
    pub sets: Vec<String>,
}

/// The rule set applied once, to the program as written, before saturation: rewrites that
/// make a program schedulable (the lane form of an `hmap`) but that would only grow the
/// e-graph if applied to every term saturation creates (`shift-nest` makes an `hmap` per
/// shift, and none of them needs its lane form).
pub const PROGRAM_SET: &str = "program";

/// The rule set run to a fixpoint after [`PROGRAM_SET`] and before saturation: rewrites
/// that remove work (a strided selection moved before the operators whose results it drops,
/// and the commutations that carry it there). Its chains are long (one step per operator
/// the selection passes), and each step only adds the cheaper form, so it runs alone, with
/// [`SIMPLIFY_LIMITS`]; what it adds counts in the saturation's e-node limit (measured on
/// `examples/first_layer_pyr.seq`: not counting it let saturation grow the e-graph from
/// 3228 to 3581 e-nodes, and at s = 64 the larger stream graph gave no direct design
/// within its bound, 655 in bursts against 370.5). A program it does not change saturates
/// exactly as without it.
pub const SIMPLIFY_SET: &str = "simplify";

/// Map fusion (`map f . map g = map (f . g)` and its map2 forms), run to a fixpoint with
/// [`SIMPLIFY_SET`] where asked for. `tessera prove` uses it by default, so that two
/// programs that differ by fusion are proven equal; the scheduler does not: measured on the
/// examples, it found no smaller design and grew the stream graphs by up to 37%
/// (docs/rules.md).
pub const FUSION_SET: &str = "fusion";

/// The commutative atom operators' operand swaps (`rules/seq/commute.rules`). `tessera
/// prove` uses them by default, so that programs that differ in the order of an operator's
/// operands are proven equal; the scheduler does not (a design is the same hardware either
/// way; docs/rules.md).
pub const COMMUTE_SET: &str = "commute";

/// The bounds of the [`SIMPLIFY_SET`] phase: iterations, and e-nodes it may add.
pub const SIMPLIFY_LIMITS: Limits = Limits {
    iterations: 40,
    nodes: 20_000,
    time: None,
};

impl SatConfig {
    /// The default configuration of a proof: the default sets, [`FUSION_SET`] and
    /// [`COMMUTE_SET`].
    pub fn for_proof() -> SatConfig {
        let mut cfg = SatConfig::default();
        cfg.sets.push(FUSION_SET.to_string());
        cfg.sets.push(COMMUTE_SET.to_string());
        cfg
    }
}

impl Default for SatConfig {
    fn default() -> SatConfig {
        SatConfig {
            limits: Limits::default(),
            factors: FactorPolicy::default_inner(),
            explanations: false,
            sets: vec![
                PROGRAM_SET.to_string(),
                SIMPLIFY_SET.to_string(),
                "core".to_string(),
            ],
        }
    }
}

/// Why saturation stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    /// No rule added anything: the e-graph is saturated.
    Saturated,
    /// The goal was reached (the two programs of a proof met in one class).
    Goal,
    /// The iteration limit was hit.
    IterationLimit(usize),
    /// The e-node limit was hit.
    NodeLimit(usize),
    /// The time limit was hit (seconds).
    TimeLimit(f64),
    /// Something else stopped the run.
    Other(String),
}

impl Stop {
    /// True if a limit stopped the run before saturation or the goal.
    pub fn is_limit(&self) -> bool {
        !matches!(self, Stop::Saturated | Stop::Goal)
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Saturated => f.write_str("saturated"),
            Stop::Goal => f.write_str("goal reached"),
            Stop::IterationLimit(n) => write!(f, "iteration limit ({n}) hit"),
            Stop::NodeLimit(n) => write!(f, "e-node limit ({n}) hit"),
            Stop::TimeLimit(s) => write!(f, "time limit ({s} s) hit"),
            Stop::Other(m) => write!(f, "stopped: {m}"),
        }
    }
}

/// What a saturation did. Everything here is deterministic (no timings).
#[derive(Clone, Debug, PartialEq)]
pub struct SatReport {
    /// Iterations run.
    pub iterations: usize,
    /// E-nodes at the end.
    pub nodes: usize,
    /// E-classes at the end.
    pub classes: usize,
    /// Why it stopped.
    pub stop: Stop,
    /// How many times each rule added something, by rule name.
    pub applied: BTreeMap<String, usize>,
    /// Right sides skipped because they did not type-check, by message (an unsound rule).
    pub skipped: BTreeMap<String, usize>,
    /// The factor policy used.
    pub factors: String,
    /// The rule sets used.
    pub sets: Vec<String>,
}

impl SatReport {
    /// The report as text, one item per line.
    pub fn text(&self) -> String {
        let mut s = format!(
            "saturation: {}\n  iterations: {}\n  e-nodes: {}\n  e-classes: {}\n  factors: {}\n  rule sets: {}\n",
            self.stop,
            self.iterations,
            self.nodes,
            self.classes,
            self.factors,
            self.sets.join(",")
        );
        if !self.applied.is_empty() {
            s.push_str("  rules applied:\n");
            for (r, n) in &self.applied {
                s.push_str(&format!("    {r}: {n}\n"));
            }
        }
        for (m, n) in &self.skipped {
            s.push_str(&format!("  skipped {n} ill-typed instance(s): {m}\n"));
        }
        s
    }

    /// The report as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "stop": self.stop.to_string(),
            "limit_hit": self.stop.is_limit(),
            "iterations": self.iterations,
            "enodes": self.nodes,
            "eclasses": self.classes,
            "factors": self.factors,
            "rule_sets": self.sets,
            "applied": self.applied,
            "skipped": self.skipped,
        })
    }
}

/// A finished saturation: the runner (with its e-graph), the roots and the report.
pub struct Saturation {
    /// The egg runner after the run.
    pub runner: Runner<SeqLang, SeqAnalysis>,
    /// The classes of the terms given, in order.
    pub roots: Vec<Id>,
    /// The report.
    pub report: SatReport,
}

impl Saturation {
    /// The e-graph.
    pub fn egraph(&self) -> &SeqEGraph {
        &self.runner.egraph
    }
}

/// Saturates the terms `exprs` (over inputs `inputs`) with `rules`. With `goal`, the run
/// stops as soon as the first two terms are in one class.
pub fn saturate(
    exprs: &[RecExpr<SeqLang>],
    inputs: &[InputSig],
    rules: &RuleSet,
    cfg: &SatConfig,
    goal: bool,
) -> Saturation {
    let analysis = SeqAnalysis::new(inputs.iter().map(|i| i.ty.clone()).collect());
    let notes: Notes = Arc::new(Mutex::new(BTreeMap::new()));
    let factors = Arc::new(cfg.factors.clone());
    let (pre_sets, rest): (Vec<String>, Vec<String>) =
        cfg.sets.iter().cloned().partition(|s| s == PROGRAM_SET);
    let (simplify_sets, main_sets): (Vec<String>, Vec<String>) = rest
        .into_iter()
        .partition(|s| s == SIMPLIFY_SET || s == FUSION_SET);
    let pre = rules.rewrites(&pre_sets, &factors, &notes);
    let simplify = rules.rewrites(&simplify_sets, &factors, &notes);
    let limited = |r: Runner<SeqLang, SeqAnalysis>| {
        r.with_iter_limit(cfg.limits.iterations)
            .with_node_limit(cfg.limits.nodes)
            .with_time_limit(
                cfg.limits
                    .time
                    .unwrap_or(Duration::from_secs(365 * 24 * 3600)),
            )
            .with_scheduler(BackoffScheduler::default())
    };
    let mut runner = limited(Runner::new(analysis));
    if cfg.explanations {
        runner = runner.with_explanations_enabled();
    }
    for e in exprs {
        runner = runner.with_expr(e);
    }
    // One iteration of the program rules on the program alone, then saturation from there.
    let mut pre_iterations = Vec::new();
    if !pre.is_empty() {
        let roots = runner.roots.clone();
        let first = runner.with_iter_limit(1).run(&pre);
        // Counted (in the report's iterations) only where it rewrote something.
        pre_iterations = first.iterations;
        pre_iterations.retain(|it| !it.applied.is_empty());
        runner = limited(Runner::new(first.egraph.analysis.clone()).with_egraph(first.egraph));
        runner.roots = roots;
    }
    // The simplify rules alone, to their fixpoint.
    if !simplify.is_empty() {
        let roots = runner.roots.clone();
        let before = runner.egraph.total_number_of_nodes();
        let done = runner
            .with_iter_limit(SIMPLIFY_LIMITS.iterations)
            .with_node_limit(before + SIMPLIFY_LIMITS.nodes)
            .run(&simplify);
        let mut its = done.iterations;
        its.retain(|it| !it.applied.is_empty());
        pre_iterations.extend(its);
        runner = limited(Runner::new(done.egraph.analysis.clone()).with_egraph(done.egraph));
        runner.roots = roots;
    }
    if goal {
        runner = runner.with_hook(|r| {
            if r.roots.len() >= 2 && r.egraph.find(r.roots[0]) == r.egraph.find(r.roots[1]) {
                Err("goal".into())
            } else {
                Ok(())
            }
        });
    }
    let rewrites = rules.rewrites(&main_sets, &factors, &notes);
    let runner = runner.run(&rewrites);
    let roots = runner.roots.clone();
    let met =
        goal && roots.len() >= 2 && runner.egraph.find(roots[0]) == runner.egraph.find(roots[1]);
    let stop = match &runner.stop_reason {
        _ if met => Stop::Goal,
        Some(StopReason::Saturated) | None => Stop::Saturated,
        Some(StopReason::IterationLimit(n)) => Stop::IterationLimit(*n),
        Some(StopReason::NodeLimit(n)) => Stop::NodeLimit(*n),
        Some(StopReason::TimeLimit(s)) => Stop::TimeLimit(*s),
        Some(StopReason::Other(m)) => Stop::Other(m.clone()),
    };
    let mut applied: BTreeMap<String, usize> = BTreeMap::new();
    for it in pre_iterations.iter().chain(&runner.iterations) {
        for (r, n) in &it.applied {
            *applied.entry(r.to_string()).or_default() += n;
        }
    }
    let skipped = notes.lock().map(|n| n.clone()).unwrap_or_default();
    let report = SatReport {
        iterations: pre_iterations.len() + runner.iterations.len(),
        nodes: runner.egraph.total_number_of_nodes(),
        classes: runner.egraph.number_of_classes(),
        stop,
        applied,
        skipped,
        factors: cfg.factors.describe(),
        sets: cfg.sets.clone(),
    };
    Saturation {
        runner,
        roots,
        report,
    }
}

/// Saturates one program. The factor policy is restricted to the program's own sequence
/// lengths unless it already names lengths.
pub fn saturate_program(p: &Program, rules: &RuleSet, cfg: &SatConfig) -> Saturation {
    let mut cfg = cfg.clone();
    if cfg.factors.lengths.is_none() {
        cfg.factors.lengths = Some(super::prove::sequence_lengths(&[p]));
    }
    let cfg = &cfg;
    let expr = program_to_expr(p, None);
    saturate(&[expr], &super::convert::input_sigs(p), rules, cfg, false)
}
