//! The fuzzer (issue 18): random inputs through the whole pipeline, looking for a panic, an
//! abort, a disagreement with the reference interpreter, or an input past its time or
//! memory bound.
//!
//! A [`Case`] is plain data: a corpus text (or a generated program's text) with a list of
//! [`mutate::Mutation`]s, a scheduled design's text with mutations, or the seed of a
//! generated well-typed program (a random instance of a rewrite rule's left side,
//! [`crate::egraph::random`], a random atom expression or a random operator pipeline,
//! [`pipelines`]). [`Fuzzer::run`] makes its input ([`Fuzzer::input`]) and checks it with
//! [`oracle`]. The test `tests/fuzz.rs` draws cases with proptest (which shrinks a failing
//! mutation list) for a seeded, bounded run; `scripts/fuzz.sh` runs the same for longer;
//! `docs/fuzzing.md` says how to use both.
//!
//! [`typed`] and [`versus`] serve another search: random well-typed programs over the whole
//! language on which the e-graph scheduler is compared with the Aetherling baseline
//! (`tests/search_random.rs`, docs/scheduling.md).
//!
//! Panics are caught per case and returned as failures. A case that runs past its time
//! bound, or a process past its memory bound, is reported by a [`watchdog`] thread, which
//! writes the input and aborts (nothing else can stop a thread stuck in a loop).

pub mod mutate;
pub mod oracle;
pub mod pipelines;
pub mod typed;
pub mod versus;
pub mod watchdog;

use crate::egraph::random::{random_body, random_lhs};
use crate::egraph::rules::RuleSet;
use crate::seq::build;
use crate::seq::types::SeqType;
use crate::seq::{load_program, parse_program, program_text, Program};
use crate::util::rng::Rng;
use mutate::Mutation;
use oracle::{Depth, Stage};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// One fuzz input, as data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Case {
    /// A program text with mutations: corpus program `base` (modulo the corpus size), or
    /// past the corpus, the text of generated program `base`.
    Program {
        /// Which text.
        base: u64,
        /// The edits.
        muts: Vec<Mutation>,
    },
    /// A design text with mutations: corpus design `base` (modulo the designs the corpus and
    /// this run's schedules gave).
    Design {
        /// Which text.
        base: u64,
        /// The edits.
        muts: Vec<Mutation>,
    },
    /// Generated well-typed program `seed`, evaluated, and scheduled and simulated if
    /// `schedule`, its Verilog simulated by Icarus if `rtl_sim` (and `schedule`).
    Generated {
        /// The generator's seed.
        seed: u64,
        /// Schedule and simulate it.
        schedule: bool,
        /// Also simulate its Verilog.
        rtl_sim: bool,
    },
}

/// The concrete input of a case: what a regression file keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// `seq` or `st`.
    pub ext: &'static str,
    /// The text.
    pub text: String,
    /// For a design, the text of the program it was scheduled from (if known).
    pub program: Option<String>,
}

/// A failing case: its input and what went wrong.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The input.
    pub input: Input,
    /// The panic message or the disagreement.
    pub message: String,
}

/// Inputs run, by kind and by the stage they reached.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Count per (kind, stage): kinds are `malformed .seq`, `malformed .st` (mutated texts,
    /// most of which no longer parse), and `generated`.
    pub counts: BTreeMap<(&'static str, Stage), u64>,
}

impl Stats {
    /// Inputs of every kind.
    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }

    /// Inputs of one kind.
    pub fn of_kind(&self, kind: &str) -> u64 {
        self.counts
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .map(|(_, n)| n)
            .sum()
    }

    /// Inputs that reached at least `stage`.
    pub fn reached(&self, stage: Stage) -> u64 {
        self.counts
            .iter()
            .filter(|((_, s), _)| *s >= stage)
            .map(|(_, n)| n)
            .sum()
    }

    /// Adds another run's counts.
    pub fn add(&mut self, other: &Stats) {
        for (k, n) in &other.counts {
            *self.counts.entry(*k).or_default() += n;
        }
    }

    /// One line: the total, then each kind's count and the stages reached.
    pub fn summary(&self) -> String {
        let kinds = ["malformed .seq", "malformed .st", "generated"];
        let per: Vec<String> = kinds
            .iter()
            .map(|k| format!("{} {k}", self.of_kind(k)))
            .collect();
        format!(
            "{} inputs ({}); {} rejected with a diagnostic, {} checked, {} evaluated, {} scheduled, {} simulated, {} RTL-simulated",
            self.total(),
            per.join(", "),
            self.counts.iter().filter(|((_, s), _)| *s == Stage::Rejected).map(|(_, n)| n).sum::<u64>(),
            self.reached(Stage::Checked),
            self.reached(Stage::Evaluated),
            self.reached(Stage::Scheduled),
            self.reached(Stage::Simulated),
            self.reached(Stage::RtlSimulated),
        )
    }
}

/// Programs of the corpus with more input atoms than this are not mutated (their mutants
/// would only be checked, slowly).
const CORPUS_ATOMS: u64 = 1 << 16;

/// How many scheduled designs are kept for mutation.
const POOL: usize = 256;

/// The fuzzer: its corpus, the rules it draws programs from, the designs it scheduled.
pub struct Fuzzer {
    programs: Vec<(String, String)>,
    designs: Vec<(String, String, Option<String>)>,
    pool: Vec<(String, String)>,
    pool_next: usize,
    vocabulary: Vec<String>,
    rules: RuleSet,
    work: PathBuf,
    /// What this fuzzer ran.
    pub stats: Stats,
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

/// The program a corpus design was scheduled from: `NAME.program.seq` beside it, else the
/// example `examples/**/STEM.seq` for a design named `STEM_sN.st`.
fn design_program(path: &Path, examples: &[(String, String)]) -> Option<String> {
    let beside = path.with_extension("program.seq");
    if let Ok(t) = std::fs::read_to_string(&beside) {
        return Some(t);
    }
    let stem = path.file_stem()?.to_str()?;
    let base = stem.rsplit_once("_s").map_or(stem, |(b, _)| b);
    examples
        .iter()
        .find(|(f, _)| Path::new(f).file_stem().is_some_and(|s| s == base))
        .map(|(_, t)| t.clone())
}

impl Fuzzer {
    /// A fuzzer whose corpus is the repository's examples (`examples/**/*.seq` and `.st`,
    /// `tests/data/st`, `tests/data/rtl`) and the fuzz corpus and crashes
    /// (`tests/data/fuzz/**`), read from `root`; RTL simulations run under `work`.
    pub fn new(root: &Path, work: &Path) -> Fuzzer {
        let mut seq_paths = Vec::new();
        let mut st_paths = Vec::new();
        for dir in [
            "examples",
            "tests/data/fuzz",
            "tests/data/st",
            "tests/data/rtl",
        ] {
            files(&root.join(dir), "seq", &mut seq_paths);
            files(&root.join(dir), "st", &mut st_paths);
        }
        seq_paths.sort();
        st_paths.sort();
        let mut programs = Vec::new();
        for p in &seq_paths {
            let name = p.strip_prefix(root).unwrap_or(p).display().to_string();
            if name.ends_with(".program.seq") {
                continue;
            }
            let small = load_program(p).map_or(true, |prog| {
                prog.inputs.iter().map(|i| i.ty.atoms()).sum::<u64>() <= CORPUS_ATOMS
            });
            if let (true, Ok(text)) = (small, std::fs::read_to_string(p)) {
                programs.push((name, text));
            }
        }
        let designs: Vec<(String, String, Option<String>)> = st_paths
            .iter()
            .filter_map(|p| {
                let text = std::fs::read_to_string(p).ok()?;
                let name = p.strip_prefix(root).unwrap_or(p).display().to_string();
                Some((name, text, design_program(p, &programs)))
            })
            .collect();
        let vocabulary = mutate::vocabulary(
            programs
                .iter()
                .map(|(_, t)| t.as_str())
                .chain(designs.iter().map(|(_, t, _)| t.as_str())),
        );
        Fuzzer {
            programs,
            designs,
            pool: Vec::new(),
            pool_next: 0,
            vocabulary,
            rules: RuleSet::defaults(),
            work: work.to_path_buf(),
            stats: Stats::default(),
        }
    }

    /// How many corpus programs and designs there are.
    pub fn corpus_size(&self) -> (usize, usize) {
        (self.programs.len(), self.designs.len())
    }

    /// Generated well-typed program `seed`: a program, or the text of one.
    fn generate(&self, seed: u64) -> Generated {
        let mut rng = Rng::new(seed);
        match seed % 4 {
            0 => Generated::Text(pipelines::atom_program(&mut rng).0),
            1 => Generated::Text(pipelines::structural_program(&mut rng)),
            _ => {
                for _ in 0..40 {
                    let rule = rng.pick(&self.rules.rules).clone();
                    if let Some(mut p) = random_lhs(&rule, &mut rng) {
                        for _ in 0..rng.range(0, 2) {
                            extend(&mut p, &mut rng);
                        }
                        return Generated::Program(p);
                    }
                }
                Generated::Text(pipelines::structural_program(&mut rng))
            }
        }
    }

    fn generated_text(&self, seed: u64) -> String {
        match self.generate(seed) {
            Generated::Program(p) => program_text(&p),
            Generated::Text(t) => t,
        }
    }

    /// The input a case stands for.
    pub fn input(&self, case: &Case) -> Input {
        match case {
            Case::Program { base, muts } => {
                let n = self.programs.len() as u64;
                let text = if *base % 4 != 0 && n > 0 {
                    self.programs[(*base % n) as usize].1.clone()
                } else {
                    self.generated_text(*base)
                };
                Input {
                    ext: "seq",
                    text: mutate::apply(&text, muts, &self.vocabulary),
                    program: None,
                }
            }
            Case::Design { base, muts } => {
                let n = (self.designs.len() + self.pool.len()) as u64;
                let (text, program) = match (*base % n.max(1)) as usize {
                    _ if n == 0 => (String::new(), None),
                    k if k < self.designs.len() => {
                        let (_, t, p) = &self.designs[k];
                        (t.clone(), p.clone())
                    }
                    k => {
                        let (t, p) = &self.pool[k - self.designs.len()];
                        (t.clone(), Some(p.clone()))
                    }
                };
                Input {
                    ext: "st",
                    text: mutate::apply(&text, muts, &self.vocabulary),
                    program,
                }
            }
            Case::Generated { seed, .. } => Input {
                ext: "seq",
                text: self.generated_text(*seed),
                program: None,
            },
        }
    }

    /// Runs one case; a panic, a disagreement or a generated program the checker refuses
    /// is a failure. Inputs are announced to `watch` (if any) while they run.
    pub fn run(
        &mut self,
        case: &Case,
        watch: Option<&watchdog::Watchdog>,
    ) -> Result<Stage, Failure> {
        let input = self.input(case);
        if let Some(w) = watch {
            w.start(&input);
        }
        let got = catching(|| self.check(case, &input));
        if let Some(w) = watch {
            w.finish();
        }
        let fail = |message: String| Failure {
            input: input.clone(),
            message,
        };
        let (kind, outcome) = got.map_err(&fail)?.map_err(&fail)?;
        if let Some(d) = outcome.design {
            let entry = (d, input.text.clone());
            if self.pool.len() < POOL {
                self.pool.push(entry);
            } else {
                self.pool[self.pool_next % POOL] = entry;
                self.pool_next += 1;
            }
        }
        *self.stats.counts.entry((kind, outcome.stage)).or_default() += 1;
        Ok(outcome.stage)
    }

    fn check(&self, case: &Case, input: &Input) -> Result<(&'static str, oracle::Outcome), String> {
        match case {
            Case::Program { base, .. } => {
                let mut rng = Rng::new(*base);
                // One in 32 mutants that still check is also scheduled.
                let depth = Depth {
                    schedule: (base >> 8) % 32 == 0,
                    rtl_sim: None,
                };
                let out = oracle::program_source("fuzz.seq", &input.text, &mut rng, &depth)?;
                Ok(("malformed .seq", out))
            }
            Case::Design { base, .. } => {
                let program = match &input.program {
                    Some(t) => parse_program("program.seq", "fuzz", t).ok(),
                    None => None,
                };
                let out = oracle::design_source("fuzz.st", &input.text, program.as_ref(), *base)?;
                Ok(("malformed .st", out))
            }
            Case::Generated {
                seed,
                schedule,
                rtl_sim,
            } => {
                let depth = Depth {
                    schedule: *schedule,
                    rtl_sim: (*schedule && *rtl_sim).then(|| self.work.join(format!("rtl_{seed}"))),
                };
                let mut rng = Rng::new(seed.wrapping_add(1));
                let out = match self.generate(*seed) {
                    Generated::Program(p) => oracle::program(&p, &mut rng, &depth)
                        .map_err(|e| format!("{e}\n--- program:\n{}", program_text(&p)))?,
                    Generated::Text(t) => {
                        let p = parse_program("generated.seq", "fuzz", &t)
                            .map_err(|e| format!("a generated program does not check: {e}"))?;
                        oracle::program(&p, &mut rng, &depth)?
                    }
                };
                if let Some(dir) = depth.rtl_sim {
                    // The work directory only helps while a failure is looked at.
                    let _ = std::fs::remove_dir_all(dir);
                }
                Ok(("generated", out))
            }
        }
    }
}

/// Maps a random type-preserving function over the output of `p`, if it is a sequence, so
/// rule instances also meet the operators that follow them in real programs.
fn extend(p: &mut Program, rng: &mut Rng) {
    let SeqType::Seq(n, e) = p.output_type().clone() else {
        return;
    };
    let e = *e;
    if let Some(body) = random_body(p, rng, std::slice::from_ref(&e), Some(&e), false) {
        if let Ok(out) = build::map(p, n, body, p.output) {
            p.set_output(out);
        }
    }
}

enum Generated {
    Program(Program),
    Text(String),
}

/// Checks a kept input (a regression file): a `.seq` program through every stage (it is
/// scheduled at a slowdown drawn from seed 0), or a `.st` design with the program of the
/// same name beside it (`NAME.program.seq`) if there is one.
pub fn replay(path: &Path) -> Result<Stage, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = path.display().to_string();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let got = catching(|| match ext {
        "st" => {
            let program = std::fs::read_to_string(path.with_extension("program.seq"))
                .ok()
                .and_then(|t| parse_program("program.seq", "fuzz", &t).ok());
            oracle::design_source(&file, &text, program.as_ref(), 0)
        }
        _ => {
            let depth = Depth {
                schedule: true,
                rtl_sim: None,
            };
            oracle::program_source(&file, &text, &mut Rng::new(0), &depth)
        }
    });
    Ok(got??.stage)
}

thread_local! {
    /// Set while [`catching`] runs: the panic hook keeps the message here instead of
    /// printing it.
    static CAUGHT: RefCell<Option<Option<String>>> = const { RefCell::new(None) };
}

/// Runs `f`, turning a panic into an error with its message and location.
fn catching<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let kept = CAUGHT.with(|c| match c.borrow_mut().as_mut() {
                Some(slot) => {
                    *slot = Some(info.to_string());
                    true
                }
                None => false,
            });
            if !kept {
                previous(info);
            }
        }));
    });
    CAUGHT.with(|c| *c.borrow_mut() = Some(None));
    let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let message = CAUGHT.with(|c| c.borrow_mut().take().flatten());
    got.map_err(|_| {
        format!(
            "panic: {}",
            message.unwrap_or_else(|| "(no message)".into())
        )
    })
}
