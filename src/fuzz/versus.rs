//! The e-graph scheduler against the Aetherling baseline on random programs (issue 16):
//! at each point (program, slowdown) both schedule the program as the commands do (default
//! strategy options, default clock; the baseline with a register after every operator, as
//! `explore`'s baseline column), their designs are compared as the scheduler compares its
//! own (model area at the clock: [`egraph::at_clock::better_at`]), and the e-graph's design
//! is simulated against the interpreter.
//!
//! The programs come from [`super::typed`]; each is tried at three of its default slowdowns
//! ([`slowdowns`]). A losing program is shrunk by [`minimise`].

use super::typed::Generated;
use crate::schedule::slowdown::default_slowdowns;
use crate::schedule::{aetherling, egraph};
use crate::seq::{parse_program, Program};
use crate::st::area::{area, Weights};
use crate::st::pipeline::{baseline_at, critical_path, Clock};
use crate::st::verify::{random_frames, verify};
use crate::st::Design;

/// Model areas closer than this are equal (areas are sums of halves and small fractions).
const EPS: f64 = 1e-9;

/// What one point gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// The slowdown.
    pub slowdown: u64,
    /// The e-graph design's model area, or why it has none.
    pub egraph: Result<f64, String>,
    /// Its modelled clock (MHz).
    pub egraph_mhz: Option<f64>,
    /// True if the e-graph's stream graph hit its node bound.
    pub truncated: bool,
    /// The baseline design's model area, or why it has none (it refuses some programs).
    pub baseline: Result<f64, String>,
    /// Its modelled clock (MHz).
    pub baseline_mhz: Option<f64>,
    /// `None` if the e-graph's design simulated equal to the interpreter, else what differed.
    pub mismatch: Option<String>,
}

/// How a point compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// The e-graph's design is better at the clock and not larger.
    Smaller,
    /// Neither is better: the same model area (at clocks that both reach the target, or
    /// the same clock).
    Equal,
    /// The e-graph's design is larger, but better at the clock: less area per clock rate
    /// ([`egraph::at_clock::better_at`]), its clock nearer the target than the baseline's.
    Faster,
    /// The baseline's design is better at the clock: a loss.
    Larger,
    /// The baseline has no design: no comparison.
    BaselineRefused,
    /// The e-graph has no design (a failure of the search).
    EgraphFailed,
}

impl Point {
    /// The comparison of the two designs at the default clock.
    pub fn verdict(&self) -> Verdict {
        let clock = Clock::default_target();
        let target = Some(&clock);
        match (&self.egraph, &self.baseline) {
            (Err(_), _) => Verdict::EgraphFailed,
            (Ok(_), Err(_)) => Verdict::BaselineRefused,
            (Ok(e), Ok(b)) => {
                let (e, b) = ((*e, self.egraph_mhz), (*b, self.baseline_mhz));
                if egraph::at_clock::better_at(b, e, target) {
                    Verdict::Larger
                } else if !egraph::at_clock::better_at(e, b, target) {
                    Verdict::Equal
                } else if e.0 > b.0 + EPS {
                    Verdict::Faster
                } else {
                    Verdict::Smaller
                }
            }
        }
    }
}

/// Three of `p`'s default slowdowns: the least (1), the middle one and the largest (fewer
/// if it has fewer).
pub fn slowdowns(p: &Program) -> Vec<u64> {
    let all = default_slowdowns(p);
    let mut pick = vec![all[0], all[all.len() / 2], all[all.len() - 1]];
    pick.dedup();
    pick
}

/// Schedules `p` at `s` with both schedulers at the default clock, compares the areas and
/// simulates the e-graph's design on two random frames.
pub fn point(p: &Program, s: u64) -> Point {
    let clock = Clock::default_target();
    let o = egraph::Options {
        clock: Some(clock.clone()),
        ..egraph::Options::default()
    };
    let weights = Weights::default();
    let device = Clock::device(Some(&clock));
    let mhz = |d: &Design| critical_path(d, &device).ok().map(|c| c.mhz);
    let (baseline, baseline_mhz) =
        match aetherling::schedule(p, s).and_then(|b| baseline_at(b.design, Some(&clock))) {
            Ok(d) => (Ok(area(&d).total.scalar(&weights)), mhz(&d)),
            Err(e) => (Err(e), None),
        };
    let (egraph, egraph_mhz, truncated, mismatch) = match egraph::schedule(p, s, &o) {
        Err(e) => (Err(e), None, false, None),
        Ok(got) => {
            let mismatch = match verify(&got.design, p, &random_frames(p, 7 + s, 2)) {
                Err(e) => Some(format!("the simulation failed: {e}")),
                Ok(v) if v.passed() => None,
                Ok(v) => Some(format!(
                    "{} mismatching atoms (first {:?}), violations {:?}, latency {} (model {})",
                    v.mismatch_count,
                    v.mismatches.first(),
                    v.sim.violations,
                    v.sim.latency,
                    v.sim.model_latency
                )),
            };
            (Ok(got.area), mhz(&got.design), got.truncated, mismatch)
        }
    };
    Point {
        slowdown: s,
        egraph,
        egraph_mhz,
        baseline_mhz,
        truncated,
        baseline,
        mismatch,
    }
}

/// A generated program's points.
#[derive(Clone, Debug)]
pub struct Compared {
    /// The program.
    pub program: Generated,
    /// One point per slowdown of [`slowdowns`].
    pub points: Vec<Point>,
}

/// Parses a generated program (the generator makes only well-typed ones: a failure here is
/// a bug of the generator, reported as the error).
pub fn parse(g: &Generated) -> Result<Program, String> {
    parse_program(&format!("random_{}.seq", g.seed), "random", &g.text())
        .map_err(|e| format!("{e}\n--- program:\n{}", g.text()))
}

/// Generates program `seed` and compares the schedulers at its [`slowdowns`].
pub fn compare_seed(seed: u64) -> Result<Compared, String> {
    let g = Generated::random(seed);
    let p = parse(&g)?;
    let points = slowdowns(&p).into_iter().map(|s| point(&p, s)).collect();
    Ok(Compared { program: g, points })
}

/// Counts of points by verdict, and the points that lost or mismatched.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Programs compared.
    pub programs: usize,
    /// Points where the e-graph was smaller.
    pub smaller: usize,
    /// Points where neither design is better.
    pub equal: usize,
    /// Points where the e-graph's design is larger but better at the clock.
    pub faster: usize,
    /// Points where the e-graph was larger: (seed, slowdown, e-graph area, baseline area).
    pub larger: Vec<(u64, u64, f64, f64)>,
    /// Points the baseline refused: (seed, slowdown).
    pub refused: Vec<(u64, u64)>,
    /// Points the e-graph failed: (seed, slowdown, its message).
    pub failed: Vec<(u64, u64, String)>,
    /// Points whose e-graph design did not simulate equal: (seed, slowdown, what differed).
    pub mismatched: Vec<(u64, u64, String)>,
    /// Points whose stream graph hit its node bound.
    pub truncated: usize,
}

impl Tally {
    /// Adds one program's points.
    pub fn add(&mut self, c: &Compared) {
        self.programs += 1;
        let seed = c.program.seed;
        for pt in &c.points {
            let s = pt.slowdown;
            if let Some(m) = &pt.mismatch {
                self.mismatched.push((seed, s, m.clone()));
            }
            self.truncated += usize::from(pt.truncated);
            match (pt.verdict(), &pt.egraph, &pt.baseline) {
                (Verdict::Smaller, ..) => self.smaller += 1,
                (Verdict::Equal, ..) => self.equal += 1,
                (Verdict::Faster, ..) => self.faster += 1,
                (Verdict::Larger, Ok(e), Ok(b)) => self.larger.push((seed, s, *e, *b)),
                (Verdict::BaselineRefused, ..) => self.refused.push((seed, s)),
                (_, Err(e), _) => self.failed.push((seed, s, e.clone())),
                _ => unreachable!("a larger verdict has both areas"),
            }
        }
    }

    /// Points compared in all.
    pub fn points(&self) -> usize {
        self.smaller
            + self.equal
            + self.faster
            + self.larger.len()
            + self.refused.len()
            + self.failed.len()
    }

    /// The counts, one line.
    pub fn summary(&self) -> String {
        format!(
            "{} programs, {} points: e-graph smaller {}, equal {}, larger but faster {}, \
             larger {}; baseline refused {}; e-graph failed {}; simulation mismatches {}; \
             stream graph truncated {}",
            self.programs,
            self.points(),
            self.smaller,
            self.equal,
            self.faster,
            self.larger.len(),
            self.refused.len(),
            self.failed.len(),
            self.mismatched.len(),
            self.truncated
        )
    }
}

/// True if the baseline's design of `g` at `s` is better at the clock than the e-graph's.
fn loses(g: &Generated, s: u64) -> bool {
    parse(g).is_ok_and(|p| {
        default_slowdowns(&p).contains(&s) && point(&p, s).verdict() == Verdict::Larger
    })
}

/// `g` with bindings dropped (each read through in its readers, [`Generated::without`])
/// while the e-graph still loses at `s`: greedily, first binding first, until no single
/// drop keeps the loss.
pub fn minimise(g: &Generated, s: u64) -> Generated {
    let mut best = g.clone();
    loop {
        let mut shrunk = false;
        'drops: for i in 0..best.bindings.len() {
            for arg in 0..best.bindings[i].args.len() {
                if let Some(smaller) = best.without(i, arg) {
                    if loses(&smaller, s) {
                        best = smaller;
                        shrunk = true;
                        break 'drops;
                    }
                }
            }
        }
        if !shrunk {
            return best;
        }
    }
}
