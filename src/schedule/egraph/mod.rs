//! The e-graph scheduler (issue 5): least-area space-time designs by equality saturation.
//!
//! 1. **Phase 1** saturates the program with the sequence algebra (`rules/seq`), so every
//!    e-class holds the equivalent nestings of its value (bounded by [`Options::phase1`]).
//! 2. **Phase 2** builds the stream graph ([`graph`]): stream classes `(at CTX L v)` keyed by
//!    the normal form of `L`, with one lowering per e-node and view (map/map2 in every
//!    space/time/split form with every candidate body parameter layout, reduce, down, up,
//!    shift, const, counter, atoms, tuples, arguments, inputs), free relabels for the
//!    flat-order-preserving operators, and reshapes between layouts of one value. The roots
//!    are one stream class per candidate output layout of the slowdown (Tessera's layouts
//!    plus the burst forms `tseq no (s-no) (sseq ni)`).
//! 3. **Extraction** ([`extract`]) picks the least model-area node per class, with each
//!    program input constrained to one layout; the selection is built as a DAG, latencies
//!    are matched with FIFOs, and the root of least total area (FIFOs included) wins. In a
//!    small graph each root's selection is refined by the area of the designs it builds
//!    ([`refine`]), its cheapest output layouts are each scheduled again in a graph of
//!    their own, and a truncated graph is retried with other bounds; the least design is
//!    kept.
//!
//! `docs/scheduling.md` describes the method, its bounds and measured sizes.

pub mod at_clock;
pub mod explain;
pub mod extract;
mod fixpoint;
pub mod graph;
#[cfg(feature = "lp")]
pub mod ilp;
pub mod refine;
pub mod registered;

use super::burst::burst;
use super::slowdown::{
    default_slowdowns, divisors, streaming_layout, tessera_layouts, tessera_layouts_first,
};
use crate::egraph::rules::RuleSet;
use crate::egraph::saturate::{saturate_program, Limits, SatConfig};
use crate::seq::types::SeqType;
use crate::seq::Program;
use crate::st::area::{area, Area, AreaReport, Weights};
use crate::st::{Design, Layout};
use crate::util::par::par_map;
use at_clock::{as_fast, model_clock, Rated};
use extract::{improve, used_inputs, Builder, Choice};
use graph::{Bounds, StreamGraph};
use std::collections::BTreeMap;
use std::rc::Rc;

/// Scheduler options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Saturate with the sequence rules first (else lower the program as written).
    pub saturate: bool,
    /// Limits of the phase-1 saturation (no time limit: results stay deterministic).
    pub phase1: Limits,
    /// Bounds of the stream graph.
    pub bounds: Bounds,
    /// Area weights.
    pub weights: Weights,
    /// Build and measure (FIFOs included) at most this many roots, cheapest first.
    pub roots: usize,
    /// Rounds of DAG-aware improvement per root.
    pub improve_passes: usize,
    /// In a small graph, how many switched selections per root are built to refine the
    /// root's selection by built area ([`refine`]); 0 leaves the selections as extracted.
    pub refine_builds: usize,
    /// Extract the top scope exactly by ILP (feature `lp`, CBC) instead of greedily.
    pub exact: bool,
    /// CBC's time limit per candidate output layout, in seconds: a layout whose ILP has
    /// no proven optimum by then gets no design (it fails with a message saying so).
    pub exact_seconds: f64,
    /// Also try the designs of faster slowdowns ([`burst_sources`]) run in bursts
    /// ([`crate::schedule::burst`]) or stalled ([`crate::schedule::stall`]), keeping the
    /// smaller.
    pub burst: bool,
    /// [`explore`] also schedules each slowdown with the Aetherling baseline, for its area.
    pub baseline: bool,
    /// The most nodes the baseline of one slowdown may lower in [`explore`] (its
    /// [`Budget`](crate::schedule::aetherling::Budget) in steps); past it the row says so
    /// instead of an area. `None`: no limit.
    pub baseline_steps: Option<u64>,
    /// Record the explanation of each design ([`explain`]).
    pub explain: bool,
    /// Pin the output layout (else every candidate of the slowdown is tried); bursts are
    /// not tried, since they change the layout.
    pub output: Option<Layout>,
    /// Pipeline each candidate design to this clock ([`crate::st::pipeline`]), so the
    /// candidates are compared by their area with the registers the clock needs; `None`
    /// leaves designs combinational between their storage.
    pub clock: Option<crate::st::pipeline::Clock>,
    /// Where the phases of each schedule (saturation, stream graph, extraction, lowering)
    /// and [`explore`]'s finished slowdowns are reported; nowhere by default.
    pub progress: crate::util::progress::Reporter,
}

/// [`Options::baseline_steps`] by default. Every baseline of the examples and of the paper's
/// apps at their slowdowns lowers fewer than 3,000,000 nodes (demosaic_16x8 at 1152:
/// 2,975,106, 6 s) except demosaic's at 8,294,400 (14,980,611, about 80 s); the baseline's
/// steps take 0.2 to 20 microseconds each.
pub const BASELINE_STEPS: u64 = 4_000_000;

/// How an exact extraction that ran out of time begins its message.
const ILP_TIME_LIMIT: &str = "CBC proved no optimum within";

impl Default for Options {
    fn default() -> Options {
        Options {
            saturate: true,
            phase1: Limits {
                iterations: 6,
                nodes: 3_000,
                time: None,
            },
            bounds: Bounds::default(),
            weights: Weights::default(),
            roots: 6,
            improve_passes: 3,
            refine_builds: refine::BUILDS,
            exact: false,
            exact_seconds: 60.0,
            burst: true,
            baseline: true,
            baseline_steps: Some(BASELINE_STEPS),
            explain: false,
            output: None,
            clock: None,
            progress: crate::util::progress::Reporter::none(),
        }
    }
}

/// A scheduled design.
#[derive(Clone, Debug)]
pub struct Scheduled {
    /// The design, latency-matched, checked.
    pub design: Design,
    /// Its model area (scalar, with the options' weights), FIFOs included.
    pub area: f64,
    /// Its model area vector.
    pub area_vec: Area,
    /// The extraction's DAG cost of the chosen root (before FIFOs and wiring).
    pub extracted_cost: f64,
    /// Phase-1 e-graph size: e-nodes and e-classes.
    pub seq_nodes: usize,
    /// Phase-1 e-classes.
    pub seq_classes: usize,
    /// Stream graph size: nodes.
    pub egraph_nodes: usize,
    /// Stream graph size: classes.
    pub egraph_classes: usize,
    /// True if the stream graph hit its node bound.
    pub truncated: bool,
    /// Candidate output layouts tried, and how many gave a design.
    pub roots_tried: usize,
    /// Roots that gave a design.
    pub roots_ok: usize,
    /// The chosen input layouts, in program order.
    pub input_layouts: Vec<Layout>,
    /// The chosen output layout.
    pub output_layout: Layout,
    /// If the design is a faster slowdown's design run in bursts or stalled: which one.
    pub burst: Option<Burst>,
    /// With [`Options::explain`]: the sequence term and the lowering.
    pub explanation: Option<explain::Explanation>,
}

/// A design of slowdown `from` run once every `factor` periods ([`crate::schedule::burst`]),
/// after being stalled to `stalled_to` clocks per period ([`crate::schedule::stall`]) if
/// `from` does not divide the slowdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Burst {
    /// The slowdown of the design that runs in bursts.
    pub from: u64,
    /// The burst factor: the slowdown is `from * factor`, or `stalled_to * factor`.
    pub factor: u64,
    /// The slowdown the design is stalled to first, if any.
    pub stalled_to: Option<u64>,
}

impl Burst {
    /// How the design is made, for messages: `the s=2 design in bursts of 1 in 3`, `the
    /// s=2 design stalled to 3` (`then in bursts of 1 in 3`).
    pub fn describe(&self) -> String {
        let bursts = format!("in bursts of 1 in {}", self.factor);
        match self.stalled_to {
            None => format!("the s={} design {bursts}", self.from),
            Some(e) if self.factor == 1 => format!("the s={} design stalled to {e}", self.from),
            Some(e) => format!("the s={} design stalled to {e}, then {bursts}", self.from),
        }
    }
}

/// What schedules of one program share: the designs already scheduled directly (without
/// bursts), by slowdown, and the phase-1 e-graph, which does not depend on the slowdown
/// (saturated once, when a first design is needed). Use one `Memo` per program and options.
#[derive(Default)]
pub struct Memo {
    designs: BTreeMap<u64, Result<Scheduled, String>>,
    phase1: Option<Result<Phase1, String>>,
}

impl Memo {
    /// Nothing scheduled yet.
    pub fn new() -> Memo {
        Memo::default()
    }

    /// [`schedule`]'s design of `p` at `s`, reusing what this memo holds: scheduling one
    /// program at several slowdowns schedules each faster slowdown its bursts start from
    /// once, not once per call.
    pub fn schedule(&mut self, p: &Program, s: u64, o: &Options) -> Result<Scheduled, String> {
        schedule_memo(p, s, o, None, self)
    }
}

/// Schedules `p` at slowdown `s`: the least-area design of the stream graph of `s`, or,
/// with [`Options::burst`], a faster slowdown's design run in bursts or stalled if that is smaller
/// (ties keep the direct design).
pub fn schedule(p: &Program, s: u64, o: &Options) -> Result<Scheduled, String> {
    Memo::new().schedule(p, s, o)
}

/// [`schedule`] with the burst sources taken from `listed` (as [`explore`] does, so a
/// report over `listed` is monotone), reusing and filling `memo`.
pub fn schedule_among(
    p: &Program,
    s: u64,
    o: &Options,
    listed: &[u64],
    memo: &mut Memo,
) -> Result<Scheduled, String> {
    schedule_memo(p, s, o, Some(listed), memo)
}

/// The rewrite derivation from the program `p` to a scheduled design's sequence term
/// ([`explain::Explanation::term`]), re-proven with explanations. Errors if the proof does
/// not close within its limits (12 iterations, 20,000 e-nodes).
pub fn derivation(
    p: &Program,
    term: &egg::RecExpr<crate::egraph::lang::SeqLang>,
) -> Result<crate::egraph::prove::Derivation, String> {
    use crate::egraph::convert::{input_sigs, program_to_expr};
    use crate::egraph::prove::{prove_exprs, sequence_lengths};
    let mut cfg = SatConfig {
        limits: Limits {
            iterations: 12,
            nodes: 20_000,
            time: None,
        },
        ..SatConfig::default()
    };
    cfg.factors.lengths = Some(sequence_lengths(&[p]));
    let program = program_to_expr(p, None);
    let out = prove_exprs(
        &program,
        term,
        &input_sigs(p),
        &RuleSet::defaults(),
        &cfg,
        true,
    );
    out.derivation.ok_or_else(|| {
        format!(
            "the scheduled term was not re-proven equal to the program within the limits ({} e-nodes, {} iterations)",
            out.report.nodes, out.report.iterations
        )
    })
}

/// How many of the largest default slowdowns below `s` that divide it, and that do not,
/// [`burst_sources`] takes when there are more than [`ALL_SOURCES`].
const BURST_SOURCES: usize = 4;

/// Up to this many default slowdowns below `s`, [`burst_sources`] takes them all, so that
/// `schedule` at `s` gives the design `explore` lists for `s`.
const ALL_SOURCES: usize = 16;

/// How many of a value's cheapest layouts (per clock count) feed its other layouts through
/// reshapes after the graph is built ([`StreamGraph::connect_views`]).
const VIEW_SOURCES: usize = 2;

/// How many roots, cheapest under its prices first, the registered selection
/// ([`registered`]) is built and pipelined for (each costs as much as a root of the first
/// selection).
const REGISTERED_ROOTS: usize = 2;

/// How many roots, cheapest first, the spread-first retry of a truncated stream graph
/// builds (its graph offers only the spread output layouts).
const SPREAD_ROOTS: usize = 2;

/// A stream graph of at most this many nodes is small enough that the output layouts of its
/// cheapest roots are also scheduled each in a graph of its own ([`schedule_graph`]'s
/// pinned retries).
const PINNED_RETRY_NODES: usize = 2000;

/// A stream graph of at most this many nodes (and not truncated) has each root's selection
/// refined by the area of the designs it builds ([`refine`]).
const REFINE_NODES: usize = 20_000;

/// How many times `Options::roots` of the greedily cheapest roots a small graph ranks again
/// by their improved selections ([`improved_roots`]).
const RERANKED_ROOTS: usize = 4;

/// How many roots, cheapest first, the pinned retries schedule every output layout of.
const PINNED_ROOTS: usize = 6;

/// A stream graph of more nodes than [`PINNED_RETRY_NODES`] and at most this many retries
/// one root in a graph of its own: the root that lost by its FIFOs and registers
/// ([`schedule_graph`]). Above it the retry's graph costs more than it has been seen to win.
const LOST_ROOT_RETRY_NODES: usize = 20_000;

/// The slowdowns whose designs may serve `s` in bursts (those dividing `s`) or stalled
/// ([`crate::schedule::stall`], the others): every default slowdown below `s` if there are
/// at most [`ALL_SOURCES`], else the [`BURST_SOURCES`] largest that divide `s` and as many
/// that do not (each costs one more schedule); with a `listed` set (explore's), also the
/// listed ones below `s`, so the front shown is monotone along multiples and every listed
/// slowdown below `s` is tried. So `schedule` at `s` and explore's row for `s` are the
/// same design whenever the listed slowdowns are default ones and at most
/// [`ALL_SOURCES`] default slowdowns lie below `s`.
pub fn burst_sources(p: &Program, s: u64, listed: Option<&[u64]>) -> Vec<u64> {
    let below: Vec<u64> = default_slowdowns(p)
        .into_iter()
        .filter(|d| *d < s)
        .collect();
    let mut out: Vec<u64> = if below.len() <= ALL_SOURCES {
        below
    } else {
        let (divide, other): (Vec<u64>, Vec<u64>) =
            below.iter().partition(|d| s.is_multiple_of(**d));
        let last = |v: &[u64]| v[v.len().saturating_sub(BURST_SOURCES)..].to_vec();
        let mut v = last(&divide);
        v.extend(last(&other));
        v
    };
    if let Some(list) = listed {
        out.extend(list.iter().copied().filter(|d| *d < s));
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn direct<'m>(
    p: &Program,
    s: u64,
    o: &Options,
    memo: &'m mut Memo,
) -> &'m Result<Scheduled, String> {
    let Memo { designs, phase1 } = memo;
    designs.entry(s).or_insert_with(|| {
        let ph = phase1.get_or_insert_with(|| saturate(p, o));
        schedule_direct(p, s, o, ph)
    })
}

/// Schedules the direct designs of the slowdowns in `wanted` that `memo` lacks, in parallel
/// (the largest first: the longest jobs), over the memo's phase-1 e-graph. Each direct
/// design depends only on its slowdown, so the memo holds what one-by-one calls would give.
fn prefill(p: &Program, wanted: impl Iterator<Item = u64>, o: &Options, memo: &mut Memo) {
    let missing = largest_first(wanted.filter(|s| !memo.designs.contains_key(s)).collect());
    if missing.len() < 2 {
        return;
    }
    let Memo { designs, phase1 } = memo;
    let ph = phase1.get_or_insert_with(|| saturate(p, o));
    let done = par_map(&missing, |s| schedule_direct(p, *s, o, ph));
    designs.extend(missing.into_iter().zip(done));
}

/// The slowdowns `v` once each, largest first: the order parallel direct schedules start
/// in, the longest jobs first.
fn largest_first(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable_by(|a, b| b.cmp(a));
    v.dedup();
    v
}

fn schedule_memo(
    p: &Program,
    s: u64,
    o: &Options,
    listed: Option<&[u64]>,
    memo: &mut Memo,
) -> Result<Scheduled, String> {
    // Before the bursts too: a burst of a faster design would reach the unusable slowdown.
    super::slowdown::check_slowdown(s)?;
    let bursting = o.burst && o.output.is_none();
    let sources = if bursting {
        burst_sources(p, s, listed)
    } else {
        Vec::new()
    };
    // every source's direct design is needed below (its area decides whether to build
    // the burst), so all are scheduled at once, in parallel
    prefill(p, sources.iter().copied().chain([s]), o, memo);
    let mut best = direct(p, s, o, memo).clone();
    // with `--exact`, a slowdown whose own ILP proved no optimum has no design: a faster
    // design run slower is no proof of one (a smaller burst beside a proven design is kept)
    if !bursting || (o.exact && best.is_err()) {
        return best;
    }
    let mut best_rated = best.as_ref().ok().map(|b| Rated::of(&b.design, b.area, o));
    // bursts before stalls: on a tie the burst is kept, it needs no control
    let (bursts, stalls): (Vec<u64>, Vec<u64>) =
        sources.into_iter().partition(|d| s.is_multiple_of(*d));
    for from in bursts.into_iter().chain(stalls) {
        let Ok(base) = direct(p, from, o, memo).clone() else {
            continue;
        };
        // a burst costs its source's area, a stall that plus its control (and a FIFO if
        // it must delay the output): skip what cannot beat the best so far
        let floor = if s.is_multiple_of(from) {
            base.area
        } else {
            let e = super::stall::stall_target(from, s);
            base.area + crate::st::stall::control_area(from, e - from).scalar(&o.weights)
        };
        if best_rated.is_some_and(|b| {
            b.area <= floor + 1e-9 && b.as_fast_as(Rated::of(&base.design, base.area, o), o)
        }) {
            continue;
        }
        let name = format!("{}_s{s}", p.name);
        let made = if s.is_multiple_of(from) {
            burst(&base.design, s / from, &name).map(|d| {
                let b = Burst {
                    from,
                    factor: s / from,
                    stalled_to: None,
                };
                (d, b)
            })
        } else {
            super::stall::stall_to(&base.design, s, &name).map(|(d, e)| {
                let b = Burst {
                    from,
                    factor: s / e,
                    stalled_to: Some(e),
                };
                (d, b)
            })
        };
        let Ok((design, how)) = made else {
            continue;
        };
        let rep = area(&design);
        let a = rep.total.scalar(&o.weights);
        let rated = Rated::of(&design, a, o);
        if best_rated.is_some_and(|b| !rated.better_than(b, o)) {
            continue;
        }
        best_rated = Some(rated);
        let sizes = best.as_ref().unwrap_or(&base);
        best = Ok(Scheduled {
            area: a,
            area_vec: rep.total,
            extracted_cost: base.extracted_cost,
            input_layouts: design.inputs.iter().map(|i| i.layout.clone()).collect(),
            output_layout: design.output_layout().clone(),
            burst: Some(how),
            explanation: base.explanation.clone(),
            design,
            ..sizes.clone()
        });
    }
    best
}

/// The candidate output layouts at slowdown `s`: Tessera's layouts plus, for a sequence
/// output, the burst forms `tseq no (s-no) (sseq n/no ..)` (the design of a smaller
/// slowdown, run slower), so the front is monotone in the slowdown. Layouts wider than
/// `bounds` allow ([`Bounds::max_lanes`]) are left out.
pub fn output_candidates(t: &SeqType, s: u64, bounds: &Bounds) -> Vec<Layout> {
    let max_lanes = bounds.max_lanes(t, s);
    let mut out = tessera_layouts_first(t, s, usize::MAX, max_lanes);
    if let SeqType::Seq(n, e) = t {
        for no in divisors(*n) {
            if no <= s {
                let l = Layout::tseq(no, s - no, Layout::sseq(n / no, Layout::space_of(e)));
                if l.clocks() == s
                    && l.lanes() <= max_lanes
                    && !out.iter().any(|o| o.normalize() == l.normalize())
                {
                    out.push(l);
                }
            }
        }
    }
    out
}

/// The candidate output layouts ([`output_candidates`]) that are spread streaming layouts
/// ([`crate::schedule::spread`]).
fn spread_candidates(p: &Program, s: u64, bounds: &Bounds) -> Vec<Layout> {
    let ty = p.output_type();
    let mut c = output_candidates(ty, s, bounds);
    c.retain(|l| crate::schedule::spread::is_spread_streaming(ty, l));
    c
}

/// The pinned output layout as a layout of the program's output type: as given, or, if it
/// is written with other layers (`(tseq 12 0 int8)` for a `(seq 6 (seq 2 int8))`), the
/// layout of the output type with the same lanes and clocks ([`graph::fit`]).
fn pinned_output(p: &Program, s: u64, l: &Layout) -> Result<Layout, String> {
    let ty = p.output_type();
    let fitted = if l.to_seq() == *ty {
        l.clone()
    } else if let Some(f) = graph::fit(&l.normalize(), ty) {
        f
    } else if crate::st::verify::implements(l, ty) {
        l.clone() // same atoms, other layers: a flattening the design may end with
    } else {
        return Err(format!(
            "the output layout {l} cannot carry the program's output type {ty}"
        ));
    };
    if fitted.clocks() != s {
        return Err(format!(
            "the output layout {l} takes {}, but the slowdown is {s}",
            crate::util::diag::count(fitted.clocks(), "clock")
        ));
    }
    Ok(fitted)
}

/// The saturated phase-1 e-graph of a program: the same for every slowdown, so the
/// slowdowns scheduled together share it.
pub struct Phase1 {
    eg: crate::egraph::analysis::SeqEGraph,
    root: egg::Id,
    nodes: usize,
    classes: usize,
}

/// Phase 1: saturates `p` with the sequence rules (within [`Options::phase1`]).
fn saturate(p: &Program, o: &Options) -> Result<Phase1, String> {
    let rules = RuleSet::defaults();
    let cfg = SatConfig {
        limits: if o.saturate {
            o.phase1.clone()
        } else {
            Limits {
                iterations: 0,
                nodes: usize::MAX,
                time: None,
            }
        },
        ..SatConfig::default()
    };
    o.progress.phase(|| format!("{}: saturation", p.name));
    let sat = saturate_program(p, &rules, &cfg);
    let root = *sat.roots.first().ok_or("saturation returned no root")?;
    Ok(Phase1 {
        eg: sat.runner.egraph,
        root,
        nodes: sat.report.nodes,
        classes: sat.report.classes,
    })
}

/// Schedules `p` at slowdown `s` from the stream graph of `s` alone, over the phase-1
/// e-graph `phase1` ([`saturate`]).
fn schedule_direct(
    p: &Program,
    s: u64,
    o: &Options,
    phase1: &Result<Phase1, String>,
) -> Result<Scheduled, String> {
    schedule_graph(p, s, o, phase1, graph::Caches::default(), true).0
}

/// [`schedule_direct`] with a stream graph that starts from `caches`: the retries with
/// another node bound or order measure no node the first graph measured. With `retry`,
/// a truncated graph is retried (below). Returns the caches for the next graph.
fn schedule_graph(
    p: &Program,
    s: u64,
    o: &Options,
    phase1: &Result<Phase1, String>,
    caches: graph::Caches,
    retry: bool,
) -> (Result<Scheduled, String>, graph::Caches) {
    if let Err(e) = super::slowdown::check_slowdown(s) {
        return (Err(e), caches);
    }
    if o.exact && !cfg!(feature = "lp") {
        return (
            Err(
                "exact extraction needs the `lp` feature (build with --features lp; needs CBC)"
                    .into(),
            ),
            caches,
        );
    }
    let ph = match phase1 {
        Ok(ph) => ph,
        Err(e) => return (Err(e.clone()), caches),
    };
    let eg = &ph.eg;
    let root_class = ph.root;
    o.progress.phase(|| format!("s={s}: stream graph"));
    let mut g = StreamGraph::with_caches(eg, o.bounds.clone(), caches);
    let candidates = match &o.output {
        Some(l) => match pinned_output(p, s, l) {
            Ok(l) => vec![l],
            Err(e) => return (Err(e), g.take_caches()),
        },
        // the spread-first retry (below) is for the spread designs: their roots only
        None if o.bounds.spread_first => spread_candidates(p, s, &o.bounds),
        None => output_candidates(p.output_type(), s, &o.bounds),
    };
    if candidates.is_empty() {
        let e = format!(
            "no layout of the output type {} has {s} clocks",
            p.output_type()
        );
        return (Err(e), g.take_caches());
    }
    let mut roots = Vec::new();
    for l in &candidates {
        if let Some(c) = g.request(0, root_class, l) {
            roots.push((c, l.clone()));
        }
    }
    g.expand();
    // Input declarations may request new views; expand again after connecting them.
    g.connect_inputs();
    g.expand();
    g.connect_inputs();

    // One unconstrained extraction serves every root; the roots are then tried cheapest
    // first (at most `o.roots` of them with a finite cost) with their inputs constrained.
    // A first extraction names each value's cheapest layouts, which then feed the value's
    // other layouts through reshapes (`connect_views`).
    o.progress.phase(|| format!("s={s}: extraction"));
    let first = extract::choose_all(&g, &o.weights);
    g.connect_views(&|i| first.best[i].0, VIEW_SOURCES);
    let more = extract::choose_more(&g, &o.weights, first);
    let free = &more.best;
    // For a clock, a second selection priced with registers ([`registered`]); its designs
    // are built beside the first's, and the smaller kept.
    let reg =
        (o.clock.is_some() && !o.exact).then(|| registered::choose_registered(&g, &o.weights));
    let mut order: Vec<(usize, Layout)> = Vec::new();
    for (root, out) in &roots {
        if !order.iter().any(|(r, _)| r == root) {
            order.push((*root, out.clone()));
        }
    }
    let mut failures = Vec::new();
    for (root, out) in &order {
        if !free[*root].0.is_finite() {
            failures.push(format!("  {out}: no finite-cost lowering"));
        }
    }
    order.retain(|(r, _)| free[*r].0.is_finite());
    order.sort_by(|a, b| free[a.0].0.total_cmp(&free[b.0].0));
    let reranked = improved_roots(p, s, &g, &more, &order, o);
    order.truncate(o.roots.max(1));
    order.extend(reranked);
    // the registered selection is built for the roots it prices cheapest only
    let mut reg_roots: Vec<usize> = order.iter().map(|(r, _)| *r).collect();
    if let Some(r) = &reg {
        reg_roots.sort_by(|a, b| r.best[*a].0.total_cmp(&r.best[*b].0));
    }
    reg_roots.truncate(REGISTERED_ROOTS);
    // the improvement rounds price by area without registers: they would undo its choice
    let unimproved = Options {
        improve_passes: 0,
        ..o.clone()
    };
    o.progress.phase(|| format!("s={s}: lowering"));
    let mut best: Option<(Rated, Scheduled)> = None;
    let mut tried = 0;
    let mut ok = 0;
    // per root built: its output layout, extracted cost and design's area
    let mut built: Vec<(Layout, f64, f64)> = Vec::new();
    for (root, out) in &order {
        tried += 1;
        // a root's selection is refined only towards designs smaller than the least so far
        let beat = best.as_ref().map_or(f64::INFINITY, |(r, _)| r.area);
        let mut made = schedule_root(p, s, &g, &more, *root, out, o, beat);
        if let Some(r) = reg
            .as_ref()
            .filter(|_| reg_roots.contains(root))
            .filter(|r| !registered::same_selection(&g, free, &r.best, *root))
        {
            if let Ok(other) = schedule_root(p, s, &g, r, *root, out, &unimproved, beat) {
                let (new, old) = (&other.built, made.as_ref().map(|m| &m.built));
                let scalar = |b: &Built| b.area.total.scalar(&o.weights);
                if old.map_or(true, |m| {
                    scalar(new) < scalar(m) - 1e-9 && as_fast(&new.design, &m.design, o)
                }) {
                    made = Ok(other);
                }
            }
        }
        match made {
            Ok(RootDesign {
                built: made,
                cost,
                explanation,
            }) => {
                ok += 1;
                let a = made.area.total.scalar(&o.weights);
                built.push((out.clone(), free[*root].0, a));
                let rated = Rated::of(&made.design, a, o);
                if best.as_ref().is_none_or(|(b, _)| rated.better_than(*b, o)) {
                    best = Some((
                        rated,
                        Scheduled {
                            area: a,
                            area_vec: made.area.total,
                            extracted_cost: cost,
                            seq_nodes: ph.nodes,
                            seq_classes: ph.classes,
                            egraph_nodes: g.node_count(),
                            egraph_classes: g.classes.len(),
                            truncated: g.truncated,
                            roots_tried: 0,
                            roots_ok: 0,
                            input_layouts: made.inputs,
                            output_layout: out.clone(),
                            burst: None,
                            explanation,
                            design: made.design,
                        },
                    ));
                }
            }
            Err(e) => failures.push(format!("  {out}: {e}")),
        }
    }
    // No design is smaller than one of area 0 (wiring only, as a transpose undone by
    // another): what the node bound cut could not hold a smaller one, so the retries below
    // are not needed and the search is not reported as truncated.
    let optimal = best.as_ref().is_some_and(|(r, _)| r.area <= 0.0);
    let truncated = g.truncated && !optimal;
    if let Some((_, got)) = best.as_mut() {
        got.truncated = truncated;
    }
    let unlowered = std::mem::take(&mut g.unlowered);
    let (g_truncated, g_nodes) = (g.truncated, g.node_count());
    let small = !g_truncated && g_nodes <= PINNED_RETRY_NODES;
    // every candidate output layout of the cheapest roots (`order` is cheapest first), each
    // view a shared root class holds too
    let cheapest: Vec<usize> = order.iter().take(PINNED_ROOTS).map(|(r, _)| *r).collect();
    let pinned_outputs: Vec<Layout> = roots
        .iter()
        .filter(|(r, _)| cheapest.contains(r))
        .map(|(_, l)| l.clone())
        .collect();
    let mut caches = g.take_caches();
    drop(more);
    drop(g);
    // With many output layouts the stream graph's node bound may be spent before any of
    // them is fully lowered, or before the cheaper ones are: the simplest one alone is also
    // tried with four times the bound (large frames with many divisors, e.g. 1920x1080;
    // first_layer_pyr at s = 32: 901.5 within the bound, 370.5 with the larger one), and
    // the smaller design is kept. At slowdowns well above the pixel count the designs that
    // stream every value at a fraction of its rate are often the least, and the bound cuts
    // them too: the spread roots are also tried in a graph that lowers the spread
    // streaming views first (`Bounds::spread_first`; box5x5_u16 at 1600: 1204.625 in the
    // first graph, 996.5 in that one). The retries reuse this graph's measurements; this graph is
    // dropped first, so the retries reuse its memory.
    let mut retries = Vec::new();
    // In one graph the roots share their values' classes, and the extraction, which prices
    // without the latency-matching FIFOs a root's design gets, may choose below one root
    // what suits another. In a small graph the output layouts of the cheapest roots are
    // each scheduled again in a graph of their own (seed 87 of tests/search_random.rs: 36
    // in the shared graph, 30 pinned). Above that size, one root only: the cheapest by
    // extraction whose design came out larger than the least design while its extracted
    // cost is below it, i.e. a root whose FIFOs and registers, not its operators, lost
    // (`pinned_root_up_stencil.seq` at s = 12: 122 in the shared graph of 4869 nodes, where
    // the root `(tseq 4 8 uint8)` extracted at 96 was built at 138; alone, 112; the full
    // program of seed 229 needs it at 16,792 nodes). The bounds trade time for points won
    // (docs/scheduling.md, cause 5).
    let mid = !g_truncated && !small && g_nodes <= LOST_ROOT_RETRY_NODES;
    let pin: Vec<Layout> = match best.as_ref() {
        _ if !retry || o.output.is_some() || optimal => Vec::new(),
        _ if small && pinned_outputs.len() > 1 => pinned_outputs,
        Some((least, _)) if mid => built
            .iter()
            .filter(|(_, cost, a)| *cost < least.area - 1e-9 && *a > least.area + 1e-9)
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .map(|(out, _, _)| out.clone())
            .into_iter()
            .collect(),
        _ => Vec::new(),
    };
    for out in pin {
        let pinned = Options {
            output: Some(out),
            ..o.clone()
        };
        let (got, back) = schedule_graph(p, s, &pinned, phase1, caches, false);
        retries.extend(got.ok());
        caches = back;
    }
    // A pinned output (`--output-layout`) is retried with the larger bound too, as the
    // unpinned schedule's first candidate is: without it, camera at 8294400 pinned to the
    // very output layout the unpinned schedule chooses had no design within the bound.
    if retry && truncated {
        // only at two or more clocks per output atom, where a spread output holds each atom
        // for several clocks (the measured wins); below, the spread layouts are the mixed
        // forms (lanes on every other clock) and the retry's time is not spent. Not for a
        // pinned output, which the spread graph's roots need not include.
        let spread_worth = s >= 2 * p.output_type().atoms();
        if spread_worth
            && o.output.is_none()
            && !o.bounds.spread_first
            && !spread_candidates(p, s, &o.bounds).is_empty()
        {
            // its cheapest roots only: building a root's design costs as much as its graph
            let spread = Options {
                bounds: Bounds {
                    spread_first: true,
                    ..o.bounds.clone()
                },
                roots: o.roots.min(SPREAD_ROOTS),
                ..o.clone()
            };
            let (got, back) = schedule_graph(p, s, &spread, phase1, caches, false);
            retries.extend(got.ok());
            caches = back;
        }
        let mut bounds = o.bounds.clone();
        bounds.max_nodes = bounds.max_nodes.saturating_mul(4);
        // The first candidate, and the output's streaming layout where that is another
        // candidate: the bound can leave it unlowered behind the others
        // (`streaming_retry_row_upsampling.seq` at s = 32: the first candidate,
        // `(sseq 32 (tseq 1 31 uint8))`, builds 212.5 alone; the streaming
        // `(tseq 32 0 (sseq 1 uint8))`, 88.5, the baseline's).
        let mut retried = vec![candidates[0].clone()];
        if let Some(l) = streaming_layout(p.output_type(), s) {
            let n = l.normalize();
            if n != candidates[0].normalize() && candidates.iter().any(|c| c.normalize() == n) {
                retried.push(l);
            }
        }
        for out in retried {
            let larger = Options {
                output: Some(out),
                bounds: bounds.clone(),
                ..o.clone()
            };
            let (got, back) = schedule_graph(p, s, &larger, phase1, caches, false);
            retries.extend(got.ok());
            caches = back;
        }
    }
    // the least retry; ties keep the earlier
    let retry = retries
        .into_iter()
        .map(|r| (Rated::of(&r.design, r.area, o), r))
        .reduce(|a, b| if b.0.better_than(a.0, o) { b } else { a });
    let out = match (best, retry) {
        (Some((a, _)), Some((r, got))) if r.better_than(a, o) => Ok(got),
        (Some((_, mut got)), _) => {
            got.roots_tried = tried;
            got.roots_ok = ok;
            Ok(got)
        }
        (None, Some((_, got))) => Ok(got),
        (None, None) => {
            // A layout the ILP ran out of time on, or whose design could not meet the
            // clock, had a design; an operator without a lowering is not why it has none.
            let designed = !failures.is_empty()
                && failures.iter().all(|f| {
                    f.contains(ILP_TIME_LIMIT) || f.contains(crate::st::pipeline::TOO_SLOW)
                });
            // In a truncated graph the classes without an operator's lowering may have had
            // equal forms the bound left unlowered: the bound is the reason given.
            for op in unlowered.iter().filter(|_| !designed && !truncated) {
                failures.push(format!(
                    "  (`{op}` has no lowering, and saturation found no equal program without it)"
                ));
            }
            if truncated {
                failures.push(format!(
                    "  (the stream graph reached its bound of {} nodes before every class \
                     was lowered, also with four times that bound for the first layout)",
                    o.bounds.max_nodes
                ));
            }
            Err(format!(
                "the e-graph scheduler finds no design at slowdown {s}:\n{}",
                failures.join("\n")
            ))
        }
    };
    (out, caches)
}

/// In a small graph, the roots (`order`, cheapest first by the greedy extraction) that
/// rank among the `o.roots` cheapest by their improved selections ([`extract::improve`]:
/// the free one, and the one with every input streaming, [`streaming_selection`]) but not
/// by the greedy cost alone, to be built after those. A root's greedy cost can lie far
/// above what its design costs: seed 281 of `tests/search_random.rs` at s = 8 (two `map2`s
/// over a `shift` of the input, `tests/data/search/reranked_sequential_root.seq`): the
/// sequential output layout's greedy selection takes the input in two lanes and reshapes
/// it (51, the 16th root), where with the input streaming it costs 35 and builds 47 at
/// 225 MHz, the least (the six roots built gave 48). These roots come on top of the
/// greedy ones, so no design gets larger.
fn improved_roots(
    p: &Program,
    s: u64,
    g: &StreamGraph,
    chosen: &extract::Chosen,
    order: &[(usize, Layout)],
    o: &Options,
) -> Vec<(usize, Layout)> {
    let n = o.roots.max(1);
    if o.exact || g.truncated || g.node_count() > REFINE_NODES || order.len() <= n {
        return Vec::new();
    }
    let streaming = streaming_norms(p, s);
    let streamed = streaming.as_ref().map(|f| chosen.fixing(g, f));
    let improved = |c: &Choice, root: usize, ok: &dyn Fn(usize, &Layout) -> bool| {
        let mut c = c.clone();
        improve(g, &mut c, root, &o.weights, ok, o.improve_passes)
    };
    let mut ranked: Vec<(f64, usize)> = order
        .iter()
        .take(n * RERANKED_ROOTS)
        .enumerate()
        .map(|(i, (root, _))| {
            let free = improved(&chosen.best, *root, &|_, _| true);
            let stream = match (&streaming, &streamed) {
                (Some(f), Some(c)) if c[*root].0.is_finite() => {
                    improved(c, *root, &|k, norm| extract::input_fixed_to(f, k, norm))
                }
                _ => f64::INFINITY,
            };
            (free.min(stream), i)
        })
        .collect();
    // ties keep the greedy order
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    ranked
        .into_iter()
        .take(n)
        .filter(|(_, i)| *i >= n)
        .map(|(_, i)| order[i].clone())
        .collect()
}

/// A root's design as [`schedule_root`] makes it.
struct RootDesign {
    built: Built,
    /// The selection's extracted cost.
    cost: f64,
    /// Its derivation (`--explain`).
    explanation: Option<explain::Explanation>,
}

/// A design [`build_root`] built: pipelined, checked and measured.
struct Built {
    design: Design,
    /// The layouts of its inputs.
    inputs: Vec<Layout>,
    /// Its model area: measured while it was pipelined, and read, not measured again, by
    /// whoever compares it (an area follows every register word of the design).
    area: AreaReport,
}

/// Extracts and builds the design of one root: each input is constrained to one layout
/// (trying, per input, each layout the unconstrained extraction `chosen` used). In a small
/// graph the selection is then refined by built area ([`refine`]) towards designs smaller
/// than `beat` (the least design of the graph's other roots so far).
#[allow(clippy::too_many_arguments)]
fn schedule_root(
    p: &Program,
    s: u64,
    g: &StreamGraph,
    chosen: &extract::Chosen,
    root: usize,
    out: &Layout,
    o: &Options,
    beat: f64,
) -> Result<RootDesign, String> {
    let w = &o.weights;
    let free = &chosen.best;
    // per input, the normal form of the one layout it is declared in, once chosen
    let mut fixed: Vec<Option<Layout>> = vec![None; p.inputs.len()];
    let mut choice = free.clone();
    if !choice[root].0.is_finite() {
        return Err("no finite-cost lowering".into());
    }
    for k in 0..p.inputs.len() {
        let used = used_inputs(g, &choice, root);
        let options = used.get(&k).cloned().unwrap_or_default();
        if options.len() <= 1 {
            fixed[k] = options.first().map(Layout::normalize);
            continue;
        }
        let mut best: Option<(f64, Layout, Rc<Choice>)> = None;
        for opt in options {
            let norm = opt.normalize();
            let mut f = fixed.clone();
            f[k] = Some(norm.clone());
            let c = chosen.fixing(g, &f);
            if best.as_ref().is_none_or(|(b, _, _)| c[root].0 < *b - 1e-9) {
                best = Some((c[root].0, norm, c));
            }
        }
        if let Some((_, norm, c)) = best {
            fixed[k] = Some(norm);
            choice = (*c).clone();
        }
    }
    let input_ok = |k: usize, norm: &Layout| extract::input_fixed_to(&fixed, k, norm);
    let cost = if o.exact {
        exact_choice(g, w, free, root, &mut choice, o.exact_seconds)?
    } else {
        improve(g, &mut choice, root, w, &input_ok, o.improve_passes)
    };
    let mut built = build_root(p, s, g, &choice, root, out, o)?;
    // a selection the ILP proved optimal is kept as it is
    let small = g.node_count() <= REFINE_NODES && !g.truncated;
    let searched = !o.exact && o.refine_builds > 0 && small;
    // the streamed selection may cost less than this one ([`improved_roots`])
    let streamed = searched
        .then(|| streaming_selection(p, s, g, chosen, root, o, &fixed))
        .flatten();
    let below_beat = |c: f64| c < beat - 1e-9;
    if searched && (below_beat(cost) || streamed.as_ref().is_some_and(|(c, _)| below_beat(*c))) {
        let scalar = |b: &Built| b.area.total.scalar(w);
        // only a design smaller than this root's and than `beat` is worth keeping
        let below = scalar(&built).min(beat);
        // the least design built so far, which `refine` builds towards; a smaller design
        // that misses a clock this root's meets is not taken ([`as_fast`])
        let mut kept: Option<Built> = None;
        let mut build = |c: &Choice| {
            let b = build_root(p, s, g, c, root, out, o).ok()?;
            let a = scalar(&b);
            let (least, than) = kept
                .as_ref()
                .map_or((below, &built.design), |k| (scalar(k), &k.design));
            if a < least - 1e-9 && as_fast(&b.design, than, o) {
                kept = Some(b);
                return Some(a);
            }
            None
        };
        let mut refined = choice.clone();
        let aim = refine::Aim {
            below,
            builds: o.refine_builds,
        };
        refine::refine(g, &mut refined, root, w, aim, &input_ok, &mut build);
        if let Some(k) = kept {
            (choice, built) = (refined, k);
        }
        let streamed =
            streamed.and_then(|(_, c)| Some((build_root(p, s, g, &c, root, out, o).ok()?, c)));
        if let Some((b, c)) = streamed {
            if scalar(&b) < scalar(&built) - 1e-9 && as_fast(&b.design, &built.design, o) {
                (choice, built) = (c, b);
            }
        }
    }
    let explanation = if o.explain {
        Some(explain::explain(g, &choice, root)?)
    } else {
        None
    };
    Ok(RootDesign {
        built,
        cost,
        explanation,
    })
}

/// The selection with every program input in its streaming layout (the one Aetherling's
/// scheduler declares: `tseq` over the slowdown's clocks), every other class chosen again
/// under that constraint and improved: one where several consumers of an input change
/// together, which neither the inputs' one-layout choice (made among the layouts the free
/// selection used) nor `refine`'s one-class switches reach.
/// `tests/data/search/streaming_inputs_two_reduces.seq`: two `reduce 8` of one bit stream,
/// beside a `reduce 8 add` of a byte stream, took the bits in four lanes over two clocks and
/// matched the sum's latency with a FIFO, 42 against the baseline's 38.5 at s = 8
/// unpipelined. With its cost; `None` where the inputs (`fixed`: their normal forms) are
/// already so, or the graph offers no such selection.
fn streaming_selection(
    p: &Program,
    s: u64,
    g: &StreamGraph,
    chosen: &extract::Chosen,
    root: usize,
    o: &Options,
    fixed: &[Option<Layout>],
) -> Option<(f64, Choice)> {
    let streaming = streaming_norms(p, s)?;
    if streaming.as_slice() == fixed {
        return None;
    }
    let c = chosen.fixing(g, &streaming);
    if !c[root].0.is_finite() {
        return None;
    }
    let mut c = (*c).clone();
    let ok = |k: usize, norm: &Layout| extract::input_fixed_to(&streaming, k, norm);
    let cost = improve(g, &mut c, root, &o.weights, &ok, o.improve_passes);
    Some((cost, c))
}

/// The normal form of every program input's streaming layout at slowdown `s`, if each
/// has one.
fn streaming_norms(p: &Program, s: u64) -> Option<Vec<Option<Layout>>> {
    p.inputs
        .iter()
        .map(|i| super::slowdown::streaming_layout(&i.ty, s).map(|l| Some(l.normalize())))
        .collect()
}

/// Builds the design of the selection `choice` rooted at `root` (output layout `out`):
/// every input in the one layout the selection uses (or its first Tessera layout if it
/// uses none), latencies matched with FIFOs, pipelined for the options' clock, checked; with
/// its model area.
fn build_root(
    p: &Program,
    s: u64,
    g: &StreamGraph,
    choice: &Choice,
    root: usize,
    out: &Layout,
    o: &Options,
) -> Result<Built, String> {
    let used = used_inputs(g, choice, root);
    if used.values().any(|v| v.len() > 1) {
        return Err("an input is still used in two layouts".into());
    }
    let inputs: Vec<(String, Layout)> = p
        .inputs
        .iter()
        .enumerate()
        .map(|(k, decl)| {
            let l = used
                .get(&k)
                .and_then(|v| v.first().cloned())
                .or_else(|| tessera_layouts(&decl.ty, s).into_iter().next())
                .unwrap_or_else(|| Layout::space_of(&decl.ty));
            (decl.name.clone(), l)
        })
        .collect();
    let b = Builder::new(g, choice, &format!("{}_s{s}", p.name), &inputs)?;
    let d = b.finish(root, out)?;
    let d = crate::st::latency::insert_fifos(&d)?;
    // pipelining measures the areas of the pipelinings it compares: the one kept is reused
    let (design, area) = match &o.clock {
        Some(c) => c.pipeline(&d)?.into_design_and_area(),
        None => {
            let a = area(&d);
            (d, a)
        }
    };
    crate::st::check::check_design(&design)?;
    if design.clocks() != s {
        return Err(format!(
            "the design takes {} clocks, not {s}",
            design.clocks()
        ));
    }
    let inputs = inputs.into_iter().map(|(_, l)| l).collect();
    Ok(Built {
        design,
        inputs,
        area,
    })
}

/// One row of [`explore`].
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    /// The slowdown.
    pub slowdown: u64,
    /// Atoms of output per clock.
    pub throughput: f64,
    /// The e-graph design's model area (scalar), or `None` if none was found.
    pub area: Option<f64>,
    /// Its area vector.
    pub area_vec: Option<Area>,
    /// The clock its modelled critical path allows on the clock target's device (the
    /// iCE40 HX8K without a target), in MHz.
    pub clock_mhz: Option<f64>,
    /// Output atoms (pixels) per microsecond at that clock: throughput x clock.
    pub mpx_per_s: Option<f64>,
    /// The baseline's area at this slowdown, if it finds a design.
    pub baseline: Option<f64>,
    /// The clock the baseline's design reaches under the same model, in MHz: below the
    /// e-graph design's where one of its operators caps it, so its area is not at the
    /// same clock.
    pub baseline_clock_mhz: Option<f64>,
    /// The baseline stopped at [`Options::baseline_steps`] before it had a design.
    pub baseline_over_budget: bool,
    /// Phase-1 e-graph e-nodes.
    pub seq_nodes: usize,
    /// Phase-1 e-graph e-classes.
    pub seq_classes: usize,
    /// Stream graph nodes.
    pub egraph_nodes: usize,
    /// Stream graph classes.
    pub egraph_classes: usize,
    /// Chosen input layouts (text).
    pub inputs: Vec<String>,
    /// Chosen output layout (text).
    pub output: String,
    /// Set when the row's design is a faster slowdown's design run in bursts or stalled.
    pub burst: Option<Burst>,
    /// The stream graph of the row's design reached its node bound before every class was
    /// lowered: a smaller design may exist outside the part searched.
    pub truncated: bool,
    /// True if no other row is at least as fast (slowdown at most this one's) with at most
    /// this area, one of the two strictly.
    pub pareto: bool,
    /// Why no design was found.
    pub error: Option<String>,
}

/// Schedules `p` at each slowdown, in order: the designs `explore` reports. Every direct
/// schedule is independent, so they run in parallel (the largest slowdown first); bursts
/// may use any of `slowdowns` as a source, so the result is monotone along multiples.
pub fn explore_designs(
    p: &Program,
    slowdowns: &[u64],
    o: &Options,
) -> Vec<(u64, Result<Scheduled, String>)> {
    explore_jobs(p, slowdowns, o, false).0
}

/// Designs by slowdown, as [`explore_designs`] gives them.
type Designs = Vec<(u64, Result<Scheduled, String>)>;

/// One job of [`explore_jobs`].
enum Job {
    /// A direct schedule of the e-graph scheduler.
    Direct(u64),
    /// The Aetherling baseline's area.
    Baseline(u64),
}

/// What a [`Job`] gives.
enum Done {
    Direct(Box<Result<Scheduled, String>>),
    Baseline(BaselineCell),
}

/// The baseline's column of an [`explore`] row.
#[derive(Clone, Copy)]
enum BaselineCell {
    /// Its model area and modelled clock.
    Area(BaselineArea),
    /// It finds no design.
    None,
    /// It stopped at [`Options::baseline_steps`].
    OverBudget,
}

/// The baseline's model area and modelled clock (MHz, if the model has one).
type BaselineArea = (f64, Option<f64>);

/// [`explore_designs`], and with `baseline` the Aetherling baseline's area and modelled
/// clock per slowdown:
/// every direct schedule and baseline is independent, so they run as one parallel job
/// list (the largest slowdowns first), over one phase-1 e-graph.
fn explore_jobs(
    p: &Program,
    slowdowns: &[u64],
    o: &Options,
    baseline: bool,
) -> (Designs, Vec<BaselineCell>) {
    let mut needed: Vec<u64> = slowdowns.to_vec();
    if o.burst {
        for &s in slowdowns {
            needed.extend(burst_sources(p, s, Some(slowdowns)));
        }
    }
    needed.retain(|s| *s > 0);
    let needed = largest_first(needed);
    let mut jobs: Vec<(u64, Job)> = needed.iter().map(|&s| (s, Job::Direct(s))).collect();
    if baseline {
        jobs.extend(slowdowns.iter().map(|&s| (s, Job::Baseline(s))));
    }
    // Largest first; at one slowdown the direct schedule (the larger job) first.
    jobs.sort_by_key(|(s, j)| (std::cmp::Reverse(*s), matches!(j, Job::Baseline(_))));
    o.progress
        .begin(&format!("explore {}", p.name), jobs.len() as u64);
    let phase1 = if needed.is_empty() {
        Err(String::new())
    } else {
        saturate(p, o)
    };
    let done = par_map(&jobs, |(_, j)| {
        let done = match j {
            Job::Direct(s) => Done::Direct(Box::new(schedule_direct(p, *s, o, &phase1))),
            Job::Baseline(s) => {
                let budget = super::aetherling::Budget {
                    time: None,
                    steps: o.baseline_steps,
                };
                Done::Baseline(
                    match super::aetherling::schedule_within(p, *s, budget)
                        .and_then(|b| crate::st::pipeline::baseline_at(b.design, o.clock.as_ref()))
                    {
                        Ok(d) => BaselineCell::Area((
                            area(&d).total.scalar(&o.weights),
                            model_clock(&d, o),
                        )),
                        Err(e) if e.contains(super::aetherling::OVER_BUDGET) => {
                            BaselineCell::OverBudget
                        }
                        Err(_) => BaselineCell::None,
                    },
                )
            }
        };
        o.progress.advance(|| match j {
            Job::Direct(s) => format!("s={s} e-graph"),
            Job::Baseline(s) => format!("s={s} baseline"),
        });
        done
    });
    o.progress.end();
    let mut memo = Memo {
        designs: BTreeMap::new(),
        // Not saturated (no slowdown needed it) is not an error to reuse.
        phase1: (!needed.is_empty()).then_some(phase1),
    };
    let mut areas: BTreeMap<u64, BaselineCell> = BTreeMap::new();
    for ((s, _), d) in jobs.iter().zip(done) {
        match d {
            Done::Direct(r) => {
                memo.designs.insert(*s, *r);
            }
            Done::Baseline(a) => {
                areas.insert(*s, a);
            }
        }
    }
    let designs = slowdowns
        .iter()
        .map(|&s| (s, schedule_memo(p, s, o, Some(slowdowns), &mut memo)))
        .collect();
    let baselines = slowdowns
        .iter()
        .map(|s| areas.get(s).copied().unwrap_or(BaselineCell::None))
        .collect();
    (designs, baselines)
}

/// Schedules `p` at each slowdown and marks the Pareto-optimal rows (area against
/// slowdown), with the Aetherling baseline's area beside each (unless
/// [`Options::baseline`] is off).
pub fn explore(p: &Program, slowdowns: &[u64], o: &Options) -> Vec<Row> {
    let atoms = p.output_type().atoms() as f64;
    let (designs, baselines) = explore_jobs(p, slowdowns, o, o.baseline);
    let mut rows: Vec<Row> = designs
        .into_iter()
        .zip(baselines)
        .map(|((s, got), b)| {
            let (baseline, baseline_clock_mhz) = match b {
                BaselineCell::Area((a, c)) => (Some(a), c),
                _ => (None, None),
            };
            let baseline_over_budget = matches!(b, BaselineCell::OverBudget);
            match got {
                Ok(got) => {
                    let clock_mhz = model_clock(&got.design, o);
                    Row {
                        slowdown: s,
                        throughput: atoms / s as f64,
                        area: Some(got.area),
                        area_vec: Some(got.area_vec),
                        clock_mhz,
                        mpx_per_s: clock_mhz.map(|c| c * atoms / s as f64),
                        baseline,
                        baseline_clock_mhz,
                        baseline_over_budget,
                        seq_nodes: got.seq_nodes,
                        seq_classes: got.seq_classes,
                        egraph_nodes: got.egraph_nodes,
                        egraph_classes: got.egraph_classes,
                        inputs: got.input_layouts.iter().map(|l| l.to_string()).collect(),
                        output: got.output_layout.to_string(),
                        burst: got.burst,
                        truncated: got.truncated,
                        pareto: false,
                        error: None,
                    }
                }
                Err(e) => Row {
                    slowdown: s,
                    throughput: atoms / s as f64,
                    area: None,
                    area_vec: None,
                    clock_mhz: None,
                    mpx_per_s: None,
                    baseline,
                    baseline_clock_mhz,
                    baseline_over_budget,
                    seq_nodes: 0,
                    seq_classes: 0,
                    egraph_nodes: 0,
                    egraph_classes: 0,
                    inputs: Vec::new(),
                    output: String::new(),
                    burst: None,
                    truncated: false,
                    pareto: false,
                    error: Some(e),
                },
            }
        })
        .collect();
    let points: BTreeMap<u64, f64> = rows
        .iter()
        .filter_map(|r| r.area.map(|a| (r.slowdown, a)))
        .collect();
    for r in &mut rows {
        if let Some(a) = r.area {
            r.pareto = !points
                .iter()
                .any(|(s, b)| *s <= r.slowdown && *b <= a && (*s < r.slowdown || *b < a));
        }
    }
    rows
}

#[cfg(feature = "lp")]
fn exact_choice(
    g: &StreamGraph,
    w: &Weights,
    greedy: &Choice,
    root: usize,
    choice: &mut Choice,
    seconds: f64,
) -> Result<f64, String> {
    let (c, cost) = ilp::choose_ilp(g, w, greedy, choice, root, seconds)?;
    *choice = c;
    Ok(cost)
}

#[cfg(not(feature = "lp"))]
fn exact_choice(
    _: &StreamGraph,
    _: &Weights,
    _: &Choice,
    _: usize,
    _: &mut Choice,
    _: f64,
) -> Result<f64, String> {
    Err("exact extraction needs the `lp` feature (build with --features lp; needs CBC)".into())
}
