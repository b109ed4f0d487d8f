//! The e-graph scheduler against the Aetherling baseline on random well-typed programs
//! (issue 16): at three default slowdowns of each program generated from seeds
//! `0..PROGRAMS` (`tessera::fuzz::typed`), the e-graph's design (default options, default
//! clock) simulates equal to the interpreter and is no worse than the baseline's
//! (registered, as `explore`'s baseline column) as the scheduler compares designs: by model
//! area, or, where a design misses the clock, by area per clock rate
//! (`egraph::at_clock::better_at`).
//!
//! Where the e-graph still loses, the point is listed in `tests/data/search/random_known_losses.txt`
//! (seed, slowdown, e-graph area, baseline area; minimised programs and their causes in
//! `tests/data/search/random_loss_*.seq` and docs/scheduling.md). The test compares the
//! losses with the list exactly: a new loss fails it, and so does a listed point that no
//! longer loses, so the list can only shrink. `scripts/search_random.sh` runs more programs
//! and prints the counts (the ignored test [`more_programs`]).

use std::collections::BTreeMap;
use std::path::Path;
use tessera::fuzz::typed::Generated;
use tessera::fuzz::versus::{compare_seed, minimise, parse, point, Tally};
use tessera::schedule::egraph;
use tessera::st::pipeline::Clock;

/// Programs of the bounded run (about 40 s in the test profile on the 2-core machine).
const PROGRAMS: u64 = 200;

/// The known losses: (seed, slowdown) -> (e-graph area, baseline area).
fn known_losses() -> BTreeMap<(u64, u64), (f64, f64)> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/search/random_known_losses.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<f64> = l
                .split_whitespace()
                .map(|x| x.parse().unwrap_or_else(|_| panic!("bad line `{l}`")))
                .collect();
            assert_eq!(f.len(), 4, "bad line `{l}`");
            ((f[0] as u64, f[1] as u64), (f[2], f[3]))
        })
        .collect()
}

/// Runs seeds `seeds`, printing each point.
fn run(seeds: std::ops::Range<u64>) -> Tally {
    let mut t = Tally::default();
    for seed in seeds {
        let c = compare_seed(seed).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let pts: Vec<String> = c
            .points
            .iter()
            .map(|p| {
                format!(
                    "s={} {:?} {:?} vs {:?}",
                    p.slowdown,
                    p.verdict(),
                    p.egraph.as_ref().ok(),
                    p.baseline.as_ref().ok()
                )
            })
            .collect();
        eprintln!(
            "seed {seed} ({} ops): {}",
            c.program.operators(),
            pts.join("; ")
        );
        t.add(&c);
    }
    t
}

#[test]
fn generated_programs_type_check_and_have_3_to_12_operators() {
    for seed in 0..1000 {
        let g = Generated::random(seed);
        parse(&g).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(
            (3..=12).contains(&g.operators()),
            "seed {seed}: {}",
            g.text()
        );
        assert_eq!(g, Generated::random(seed), "seed {seed}: not deterministic");
    }
}

/// The whole language is drawn: every operator appears in some program of the run.
#[test]
fn generated_programs_cover_the_language() {
    let texts: Vec<String> = (0..PROGRAMS).map(|s| Generated::random(s).text()).collect();
    for op in [
        "(map ",
        "(map2 ",
        "(reduce ",
        "(shift ",
        "(stencil_1d ",
        "(down_1d ",
        "(up_1d ",
        "(partition ",
        "(unpartition ",
        "(transpose ",
        "atuple",
        "(const (seq",
        "(counter ",
    ] {
        assert!(texts.iter().any(|t| t.contains(op)), "no program has {op}");
    }
    // Fork-joins: a join reading an earlier value than the one just made.
    let forks = (0..PROGRAMS)
        .filter(|&s| {
            let g = Generated::random(s);
            g.bindings.iter().enumerate().any(|(i, b)| {
                b.args.len() == 2 && i >= 1 && b.args.iter().any(|a| *a != g.bindings[i - 1].name)
            })
        })
        .count();
    assert!(forks >= 20, "only {forks} programs fork and join");
}

#[test]
fn egraph_no_larger_than_baseline_on_random_programs() {
    let t = run(0..PROGRAMS);
    eprintln!("{}", t.summary());
    assert!(
        t.mismatched.is_empty(),
        "designs differ from the interpreter: {:#?}",
        t.mismatched
    );
    assert!(
        t.failed.is_empty(),
        "the e-graph found no design: {:#?}",
        t.failed
    );
    let known = known_losses();
    let got: BTreeMap<(u64, u64), (f64, f64)> = t
        .larger
        .iter()
        .map(|&(seed, s, e, b)| ((seed, s), (e, b)))
        .collect();
    let new: Vec<_> = got.iter().filter(|(k, _)| !known.contains_key(k)).collect();
    let gone: Vec<_> = known
        .iter()
        .filter(|(k, _)| k.0 < PROGRAMS && !got.contains_key(k))
        .collect();
    // A listed loss whose areas moved is a change too: the list gives them exactly.
    let moved: Vec<_> = got
        .iter()
        .filter(|(k, v)| known.get(k).is_some_and(|w| w != *v))
        .collect();
    assert!(
        new.is_empty() && gone.is_empty() && moved.is_empty(),
        "the losses changed.\n  new losses (seed, slowdown) -> (e-graph, baseline): {new:?}\n  \
         listed losses that no longer lose (remove them from the list): {gone:?}\n  \
         listed losses whose areas changed (correct them in the list): {moved:?}"
    );
}

/// The files of `tests/data/search` whose names start with `prefix`, sorted.
fn search_files(prefix: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/search");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .collect();
    files.sort();
    files
}

/// The slowdown and the two areas of each header line `PREFIX S: e-graph E, baseline B`
/// (at least one).
fn header_points(f: &Path, text: &str, prefix: &str) -> Vec<(u64, f64, f64)> {
    let points: Vec<(u64, f64, f64)> = text
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .map(|line| {
            let nums: Vec<f64> = line
                .split(|c: char| !(c.is_ascii_digit() || c == '.'))
                .filter_map(|x| x.trim_end_matches('.').parse().ok())
                .collect();
            (nums[0] as u64, nums[1], nums[2])
        })
        .collect();
    assert!(!points.is_empty(), "{}: no `{prefix}` line", f.display());
    points
}

/// The first of [`header_points`].
fn header_point(f: &Path, text: &str, prefix: &str) -> (u64, f64, f64) {
    header_points(f, text, prefix)[0]
}

/// Asserts that `p` at slowdown `s` simulates equal to the interpreter and that the
/// e-graph's and the baseline's areas are `areas`.
fn assert_point(p: &tessera::seq::Program, s: u64, areas: (f64, f64), what: &str) {
    let pt = point(p, s);
    assert_eq!(pt.mismatch, None, "{what}");
    assert_eq!(
        (pt.egraph.clone().ok(), pt.baseline.clone().ok()),
        (Some(areas.0), Some(areas.1)),
        "{what}"
    );
}

/// The minimised programs of the random programs' losses price as their headers say: a
/// `; loses at slowdown S: e-graph E, baseline B` file still loses by exactly those areas
/// (when one stops losing, its file and known losses change), and a `; prices at` file of a
/// fixed loss keeps the e-graph at most the baseline. Each design computes what the
/// interpreter does. The fixed ones: `reduce_streamed_rows*.seq` (seeds 165 and 216: a
/// reduce, an up and a down carry rows in their streaming layout), `pinned_root_*.seq`
/// (seeds 87 and 229: a small graph's output layouts are each scheduled in a graph of
/// their own; in a larger graph, as seed 229's at s = 12, the root that lost by its FIFOs
/// and registers), `down_before_map2.seq` (seed 189: the rule `down-map2`) and
/// `refined_lanes_shift_down.seq` (seed 17: a selection refined by built area, which its
/// FIFOs made larger after `down-map2`) and `streaming_retry_*.seq` (the retry of a
/// truncated graph with four times the bound takes the output's streaming layout too), and
/// `reranked_sequential_root.seq` (seed 281: the roots ranked by their improved selections,
/// the one with the inputs streaming included) and `merged_equal_lanes.seq` (seed 674: the
/// registers after one operator on the copies of one word counted once). Still losing:
/// `truncated_loss_*.seq`, whose stream graph the node bound cuts before the baseline's
/// design, and `slow_root_max_window.seq`, pipelined for a clock its control does not let
/// it reach. The `streaming_retry_`, `truncated_loss_` and `slow_root_` programs were
/// written as a user would, not drawn at random.
#[test]
fn minimised_programs_price_as_their_headers_say() {
    let files: Vec<_> = [
        "random_loss_",
        "reduce_streamed_rows",
        "pinned_root_",
        "down_before_map2",
        "refined_lanes_",
        "truncated_loss_",
        "streaming_retry_",
        "reranked_",
        "merged_",
        "slow_root_",
    ]
    .iter()
    .flat_map(|p| search_files(p))
    .collect();
    assert!(files.len() >= 6, "{files:?}");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let p = tessera::seq::parse_program(&f.to_string_lossy(), "loss", &text).unwrap();
        let (prefix, losing) = if text.contains("; loses at slowdown ") {
            ("; loses at slowdown ", true)
        } else {
            ("; prices at slowdown ", false)
        };
        for (s, e, b) in header_points(&f, &text, prefix) {
            assert_eq!(e > b, losing, "{} at {s}: header", f.display());
            assert_point(
                &p,
                s,
                (e, b),
                &format!(
                    "{} at {s}: the areas changed (correct the header)",
                    f.display()
                ),
            );
        }
    }
}

/// Atom operators with a literal operand are priced with it: each `constant_operand_*.seq`
/// lost to the baseline while the stream graph measured `lsr v 1` as a shifter and
/// `mul v 4` as a multiplier. Its header gives the areas now, the e-graph's at most the
/// baseline's, and the design computes what the interpreter does.
#[test]
fn constant_operands_are_priced_as_the_design_builds_them() {
    let files = search_files("constant_operand_");
    assert_eq!(files.len(), 4);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let p = tessera::seq::parse_program(&f.to_string_lossy(), "priced", &text).unwrap();
        let (s, e, b) = header_point(&f, &text, "; prices at slowdown ");
        assert!(e <= b, "{}: header", f.display());
        assert_point(&p, s, (e, b), &f.display().to_string());
    }
}

/// Designs made for a clock are chosen with their pipeline registers in view: a reduce whose
/// cheapest selection without registers needs many at 225 MHz
/// (`registered_reduce_accumulator.seq`: 40 against the baseline's 35 at s = 3 until the
/// registered selection) gets the accumulator design, no larger than the baseline's,
/// computing what the interpreter does. Not at the price of the clock: the uint16
/// accumulator of `examples/derivations/reduce_nesting_lhs.seq` reaches only 215.5 MHz, so
/// at s = 3 the design that meets 225 MHz (80) stays, against the baseline's 67 that misses it.
#[test]
fn designs_for_a_clock_are_chosen_with_their_registers() {
    let mut files = search_files("registered_");
    assert_eq!(files.len(), 1);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    files.push(root.join("examples/derivations/reduce_nesting_lhs.seq"));
    let want = [(3, 35.0, 35.0), (3, 80.0, 67.0)];
    for (f, (s, e, b)) in files.iter().zip(want) {
        let text = std::fs::read_to_string(f).unwrap();
        let p = tessera::seq::parse_program(&f.to_string_lossy(), "registered", &text).unwrap();
        if let Some(line) = text
            .lines()
            .find(|l| l.starts_with("; prices at slowdown "))
        {
            assert_eq!(header_point(f, line, "; prices at slowdown "), (s, e, b));
        }
        assert_point(&p, s, (e, b), &f.display().to_string());
    }
}

/// A generator that reaches a join through data movement is delayed by its start, as one
/// that reaches it directly is, not by a FIFO after the movement
/// (`generator_through_reshape.seq`, from the random program of seed 136: a counter reshaped
/// into the output's layout lost 640 against 576 by a FIFO of 128 flip-flop bits).
#[test]
fn a_generator_reached_through_data_movement_starts_later_instead_of_a_fifo() {
    let f = search_files("generator_through_reshape");
    assert_eq!(f.len(), 1);
    let text = std::fs::read_to_string(&f[0]).unwrap();
    let p = tessera::seq::parse_program(&f[0].to_string_lossy(), "generator", &text).unwrap();
    let (s, e, b) = header_point(&f[0], &text, "; prices at slowdown ");
    assert_eq!((s, e, b), (1, 576.0, 576.0));
    assert_point(&p, s, (e, b), &f[0].display().to_string());
    let o = egraph::Options {
        clock: Some(Clock::default_target()),
        ..egraph::Options::default()
    };
    let d = egraph::schedule(&p, s, &o).unwrap().design;
    assert!(
        !d.to_text().contains("(fifo (sseq 4 (sseq 4 uint8))"),
        "{}",
        d.to_text()
    );
}

/// A map body that only relabels its element takes the parameter layout with the wires of
/// its result (`(tseq 2 2 (sseq 4 uint8))` under an outer `sseq`), as the baseline
/// propagates it: no reshape of the input, the baseline's area, the same values.
#[test]
fn map_bodies_take_their_results_wires() {
    let f =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/search/map_body_result_wires.seq");
    let p = tessera::seq::load_program(&f).unwrap();
    let pt = point(&p, 4);
    assert_eq!(pt.mismatch, None);
    assert_eq!((pt.egraph, pt.baseline), (Ok(0.0), Ok(0.0)));
}

/// More programs: `SEARCH_RANDOM_PROGRAMS` (default 200) from `SEARCH_RANDOM_FIRST`
/// (default 0), printing every point and the counts; `SEARCH_RANDOM_MINIMISE=1` also
/// minimises each loss. Run by `scripts/search_random.sh`.
#[test]
#[ignore]
fn more_programs() {
    let var = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let (first, n) = (
        var("SEARCH_RANDOM_FIRST", 0),
        var("SEARCH_RANDOM_PROGRAMS", 200),
    );
    let start = std::time::Instant::now();
    let t = run(first..first + n);
    eprintln!("{}", t.summary());
    eprintln!("took {:.1} s", start.elapsed().as_secs_f64());
    for (seed, s, e, b) in &t.larger {
        eprintln!("larger: seed {seed} slowdown {s}: e-graph {e}, baseline {b}");
    }
    for (seed, s, m) in &t.mismatched {
        eprintln!("MISMATCH: seed {seed} slowdown {s}: {m}");
    }
    for (seed, s, m) in &t.failed {
        eprintln!("e-graph failed: seed {seed} slowdown {s}: {m}");
    }
    if var("SEARCH_RANDOM_MINIMISE", 0) == 1 {
        for &(seed, s, _, _) in &t.larger {
            let m = minimise(&Generated::random(seed), s);
            let pt = point(&parse(&m).unwrap(), s);
            eprintln!(
                "minimised seed {seed} at {s}: e-graph {:?}, baseline {:?}\n{}",
                pt.egraph,
                pt.baseline,
                m.text()
            );
        }
    }
}
