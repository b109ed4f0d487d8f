//! The fuzzer (`tessera::fuzz`, docs/fuzzing.md): a seeded, bounded run drawn by proptest,
//! which shrinks a failing case's mutation list before reporting it, and the replay of every
//! input the fuzzer ever failed on (`tests/data/fuzz/crashes`) and of its corpus
//! (`tests/data/fuzz/corpus`).
//!
//! `long_run` is the same run at any length, for `scripts/fuzz.sh` (ignored by default):
//! `FUZZ_CASES` cases from `FUZZ_SEED`, with the share of generated programs that are
//! scheduled (`FUZZ_SCHEDULE`, default 0.05) and of those whose Verilog is simulated
//! (`FUZZ_RTL`, default 0.02). A failure's minimal input is written to `FUZZ_CRASHES`, the
//! running input to `FUZZ_CURRENT` (a directory) for a crash of the process itself, and
//! generated programs that reach the simulator with a new set of operators to `FUZZ_CORPUS`.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tessera::fuzz::mutate::{Mutation, KINDS};
use tessera::fuzz::oracle::Stage;
use tessera::fuzz::watchdog::{Bounds, Watchdog};
use tessera::fuzz::{replay, Case, Failure, Fuzzer, Stats};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Half the mutations are any kind, half change a number or a word (kinds 3, 11 and 4),
/// which more often leave a text that still reads, with odd sizes or operators.
fn mutation() -> impl Strategy<Value = Mutation> {
    let kind = prop_oneof![0..KINDS, prop::sample::select(vec![3u8, 11, 11, 4])];
    (kind, any::<u64>(), any::<u64>()).prop_map(|(kind, at, pick)| Mutation { kind, at, pick })
}

/// Six in ten cases mutate a program text, two a design text, two are generated programs;
/// `schedule` and `rtl` are the shares of generated programs scheduled and of those whose
/// Verilog is simulated.
fn case(schedule: f64, rtl: f64) -> impl Strategy<Value = Case> {
    prop_oneof![
        6 => (any::<u64>(), prop::collection::vec(mutation(), 1..3))
            .prop_map(|(base, muts)| Case::Program { base, muts }),
        2 => (any::<u64>(), prop::collection::vec(mutation(), 1..3))
            .prop_map(|(base, muts)| Case::Design { base, muts }),
        2 => (any::<u64>().no_shrink(), prop::bool::weighted(schedule), prop::bool::weighted(rtl))
            .prop_map(|(seed, schedule, rtl_sim)| Case::Generated { seed, schedule, rtl_sim }),
    ]
}

struct Run {
    seed: u64,
    cases: u32,
    schedule: f64,
    rtl: f64,
    bounds: Bounds,
    crashes: Option<PathBuf>,
    corpus: Option<PathBuf>,
}

/// Writes a failing input as `DIR/fuzz_SEED.EXT` (and its program beside it).
fn keep(dir: &Path, seed: u64, f: &Failure) -> PathBuf {
    std::fs::create_dir_all(dir).expect("create the crash directory");
    let path = dir.join(format!("fuzz_{seed}.{}", f.input.ext));
    std::fs::write(&path, &f.input.text).expect("write the crash");
    if let Some(p) = &f.input.program {
        std::fs::write(path.with_extension("program.seq"), p).expect("write the crash");
    }
    path
}

/// Writes a generated program that went through every stage to `dir` as `gen_SEED.seq`
/// if no earlier one used the same set of operators.
fn add_to_corpus(dir: &Path, seed: u64, text: &str, seen: &mut std::collections::BTreeSet<String>) {
    let Ok(p) = tessera::seq::parse_program("gen.seq", "gen", text) else {
        return;
    };
    let ops: Vec<&str> = p.op_counts().into_iter().map(|(k, _)| k).collect();
    if seen.insert(ops.join(" ")) {
        std::fs::create_dir_all(dir).expect("create the corpus directory");
        std::fs::write(dir.join(format!("gen_{seed}.seq")), text).expect("write the corpus");
    }
}

/// Runs `r.cases` cases; panics with the minimal failing input if one fails.
fn run(r: &Run) -> Stats {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz_{}", r.seed));
    let fuzzer = RefCell::new(Fuzzer::new(&root(), &work));
    let watchdog = Watchdog::new(r.bounds.clone());
    let config = Config {
        cases: r.cases,
        failure_persistence: None,
        max_shrink_iters: 2000,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes(r.seed));
    let mut runner = TestRunner::new_with_rng(config, rng);
    let seen = RefCell::new(std::collections::BTreeSet::new());
    let got = runner.run(&case(r.schedule, r.rtl), |c| {
        let mut f = fuzzer.borrow_mut();
        match f.run(&c, Some(&watchdog)) {
            Ok(stage) => {
                if let (Some(dir), Case::Generated { seed, .. }) = (&r.corpus, &c) {
                    if stage >= Stage::Simulated {
                        add_to_corpus(dir, *seed, &f.input(&c).text, &mut seen.borrow_mut());
                    }
                }
                Ok(())
            }
            Err(f) => Err(TestCaseError::fail(f.message)),
        }
    });
    let mut f = fuzzer.into_inner();
    match got {
        Ok(()) => f.stats,
        Err(TestError::Fail(_, minimal)) => {
            let failure = match f.run(&minimal, None) {
                Err(failure) => failure,
                Ok(_) => Failure {
                    input: f.input(&minimal),
                    message: "failed during the run, passes alone (the design pool changed)".into(),
                },
            };
            let kept = r.crashes.as_ref().map(|d| keep(d, r.seed, &failure));
            panic!(
                "fuzz seed {}: {}\n--- case: {minimal:?}\n--- input (.{}){}:\n{}{}",
                r.seed,
                failure.message,
                failure.input.ext,
                kept.map(|p| format!(", kept in {}", p.display()))
                    .unwrap_or_default(),
                failure.input.text,
                failure
                    .input
                    .program
                    .map(|p| format!("\n--- its program:\n{p}"))
                    .unwrap_or_default()
            )
        }
        Err(e) => panic!("fuzz seed {}: {e}", r.seed),
    }
}

fn seed_bytes(seed: u64) -> [u8; 32] {
    let mut b = [0u8; 32];
    b[..8].copy_from_slice(&seed.to_le_bytes());
    b
}

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The bounded run of the test command: fixed seed, 4000 cases, about 40 scheduled and
/// simulated, a few through Icarus when it is installed.
#[test]
fn a_seeded_bounded_run_finds_nothing() {
    let t0 = Instant::now();
    let icarus = tessera::rtl::tools::require_tool(
        &["iverilog", "vvp", "verilator"],
        "the fuzzer's RTL simulations",
    );
    let stats = run(&Run {
        seed: 1,
        cases: 20_000,
        schedule: 0.1,
        rtl: if icarus { 0.01 } else { 0.0 },
        bounds: Bounds {
            time: Duration::from_secs(60),
            memory: 3 << 30,
            current: None,
        },
        crashes: None,
        corpus: None,
    });
    eprintln!("fuzz: {} in {:.1?}", stats.summary(), t0.elapsed());
    assert_eq!(stats.total(), 20_000);
    // The run reaches every stage: mutants the reader refuses, programs the evaluators
    // agree on, designs simulated against the interpreter.
    assert!(stats.reached(Stage::Checked) >= 500, "{}", stats.summary());
    assert!(
        stats.reached(Stage::Evaluated) >= 500,
        "{}",
        stats.summary()
    );
    assert!(stats.reached(Stage::Simulated) >= 10, "{}", stats.summary());
    assert!(
        stats.total() - stats.reached(Stage::Checked) >= 1000,
        "{}",
        stats.summary()
    );
    if icarus {
        assert!(
            stats.reached(Stage::RtlSimulated) >= 1,
            "{}",
            stats.summary()
        );
    }
}

/// `scripts/fuzz.sh`'s unit of work (see the module documentation).
#[test]
#[ignore = "long: run by scripts/fuzz.sh"]
fn long_run() {
    let t0 = Instant::now();
    let seed = env("FUZZ_SEED", 1u64);
    let stats = run(&Run {
        seed,
        cases: env("FUZZ_CASES", 10_000u32),
        schedule: env("FUZZ_SCHEDULE", 0.05f64),
        rtl: env("FUZZ_RTL", 0.02f64),
        bounds: Bounds {
            time: Duration::from_secs(env("FUZZ_TIME", 20u64)),
            memory: env("FUZZ_MEMORY_MB", 4096u64) << 20,
            current: std::env::var_os("FUZZ_CURRENT").map(PathBuf::from),
        },
        crashes: std::env::var_os("FUZZ_CRASHES").map(PathBuf::from),
        corpus: std::env::var_os("FUZZ_CORPUS").map(PathBuf::from),
    });
    let s = stats.summary();
    if std::env::var_os("FUZZ_VERBOSE").is_some() {
        eprintln!("{:?}", stats.counts);
    }
    println!(
        "fuzz: seed {seed}: {s} in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

fn kept_inputs(dir: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| {
        let name = p.to_string_lossy();
        (name.ends_with(".seq") || name.ends_with(".st")) && !name.ends_with(".program.seq")
    });
    out.sort();
    out
}

/// Every input a fuzz run reported passes now, each well within the time bound.
#[test]
fn every_kept_crash_passes() {
    let files = kept_inputs("tests/data/fuzz/crashes");
    assert!(!files.is_empty());
    for f in &files {
        let t0 = Instant::now();
        if let Err(e) = replay(f) {
            panic!("{}: {e}", f.display());
        }
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "{}: {:?}",
            f.display(),
            t0.elapsed()
        );
    }
}

/// The corpus programs go through every stage.
#[test]
fn the_corpus_passes() {
    let files = kept_inputs("tests/data/fuzz/corpus");
    assert!(!files.is_empty());
    for f in &files {
        match replay(f) {
            Ok(stage) => assert!(stage >= Stage::Evaluated, "{}: only {stage:?}", f.display()),
            Err(e) => panic!("{}: {e}", f.display()),
        }
    }
}

/// The generated pipelines once gave an `hmap` lane the constant `(const uint8 256)` (lane
/// constants grew with the lane number); the generator now wraps them. Generated programs
/// must check, so this seed failed the bounded run.
#[test]
fn generated_hmap_lane_constants_fit_uint8() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz_hmap");
    let mut f = Fuzzer::new(&root(), &work);
    let case = Case::Generated {
        seed: 6549533451117070061,
        schedule: true,
        rtl_sim: false,
    };
    assert!(f.input(&case).text.contains("(hmap 18 "));
    match f.run(&case, None) {
        Ok(stage) => assert!(stage >= Stage::Evaluated, "{stage:?}"),
        Err(e) => panic!("{}", e.message),
    }
}

/// A design the fuzzer found (`tests/data/fuzz/crashes/`, docs/fuzzing.md) whose FIFO is
/// 2^28 deep: it checks, and simulating it would take 2^28 clocks. The fuzzer checks such a
/// design but does not simulate it, so a run goes on past it; `tessera sim` refuses it up
/// front with its estimate (`tests/memory_bounds.rs`).
#[test]
fn a_design_of_huge_latency_is_checked_not_simulated() {
    let t0 = Instant::now();
    let f = root().join("tests/data/fuzz/crashes/diamond_s2_fifo_2e28.st");
    assert_eq!(replay(&f), Ok(Stage::Checked));
    assert!(t0.elapsed() < Duration::from_secs(30));
}

/// A slow case the fuzzer found (`tests/data/fuzz/crashes/transpose_pair_96.seq`): a
/// transpose undone by another, whose output is its input, so the input takes the layouts
/// of all 2,147 output candidates at s = 96. The reshapes between every two of them were
/// 362,070 nodes (403,671 in the graph); those of an input with that many views now come
/// from its first few views only, within the node bound, and the area-0 design ends the
/// search untruncated.
#[test]
fn an_input_with_many_layouts_keeps_its_reshapes_within_the_node_bound() {
    let f = root().join("tests/data/fuzz/crashes/transpose_pair_96.seq");
    let p = tessera::seq::load_program(&f).unwrap();
    let o = tessera::schedule::egraph::Options::default();
    let got = tessera::schedule::egraph::schedule(&p, 96, &o).unwrap();
    assert_eq!(got.area, 0.0);
    assert!(!got.truncated);
    assert!(
        got.egraph_nodes <= o.bounds.max_nodes,
        "{} stream-graph nodes",
        got.egraph_nodes
    );
}

/// Every example program is written back as text (`seq::program_text`) that reads back with
/// the same types and, where it is small enough to evaluate, the same values.
#[test]
fn every_example_program_reads_back_from_its_written_text() {
    let mut paths = Vec::new();
    let mut dirs = vec![root().join("examples")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "seq") {
                paths.push(p);
            }
        }
    }
    paths.sort();
    let mut evaluated = 0;
    for f in &paths {
        let p = tessera::seq::load_program(f).unwrap_or_else(|e| panic!("{e}"));
        let mut rng = tessera::util::rng::Rng::new(3);
        match tessera::fuzz::oracle::program(&p, &mut rng, &Default::default()) {
            Ok(o) => evaluated += usize::from(o.stage >= Stage::Evaluated),
            Err(e) => panic!("{}: {e}", f.display()),
        }
    }
    assert!(
        evaluated >= 30,
        "only {evaluated} of {} evaluated",
        paths.len()
    );
}
