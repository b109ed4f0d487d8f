//! Scheduling speed of the paper's small apps and one 1920x1080 app (issue 7).
//!
//! - `schedule`: saturate and extract one slowdown (`schedule::egraph::schedule`): s = 16
//!   (1 pixel per clock) for the 4x4 apps, s = 25 (8 pixels per clock) for `map`.
//! - `explore`: `schedule::egraph::explore` over the paper's slowdowns of the app
//!   (1, 2, 4, 8, 16, 48, 144 for the 4x4 apps; 1, 5, 10, 20, 25, 40, 50, 100, 200 for
//!   `map`, `../shared/reference/benchmarks.md` §2.1), with the default options: the
//!   Aetherling baseline column included, as `tessera explore` computes it.
//!
//! Each case prints the phase-1 e-graph's size (e-nodes, e-classes) and the stream graph's
//! (nodes, classes; for `explore`, summed over its slowdowns) beside its timing, so a
//! slower run can be told apart from a bigger graph.
//!
//! - `explore_at_clock`: the same with every design pipelined for the default clock
//!   (`Clock::default_target()`, what `tessera explore` does): the timing model's cost is
//!   its time against `explore/`.
//!
//! - `explore_default`: what `tessera explore FILE` runs: every default slowdown
//!   (`schedule::slowdown::default_slowdowns`), pipelined for the default clock, the baseline
//!   column included, for `conv2d`, `sharpen` and `first_layer_pyr` (64 pixels; its stream
//!   graph reaches the 60,000-node bound at every slowdown). Issue 16 wants each under 10 s.
//!
//! - `big/...`: one 1920x1080 app, `big_real_32_conv2d`: `schedule` at its fastest paper
//!   slowdown (s = 129600, 16 pixels per clock; as a lone `schedule` it also schedules its
//!   four largest burst sources, the default slowdowns dividing 129600) and `explore` over
//!   its two fastest paper slowdowns (129600, 259200). Every default slowdown of a 1920x1080
//!   frame (every divisor of its 2,073,600 clocks) is out of reach, and the slower paper
//!   slowdowns take longer (`docs/results.md` gives every paper slowdown's compile time);
//!   ten samples of these two cases already take several minutes
//!   (`cargo bench --bench schedule -- big`); `explore_slowest` explores its slowest paper
//!   slowdown alone (s = 6220800, a pixel every third clock), with its burst sources.
//!
//! - `big_camera/explore_one/camera`: `tessera explore examples/camera.seq --slowdowns
//!   129600` (default clock, baseline column, its eight burst sources).
//!
//! - `aetherling_large_slowdown/...`: Aetherling's baseline (`schedule::aetherling::schedule`)
//!   on `small/camera_16x8` and `small/demosaic_16x8` above their 128 clocks of pixels, at
//!   s = 288 and at four times that (s = 1152): every layout has idle clocks there and the
//!   lowering runs its Unpartition searches over layouts that grow in number with the
//!   slowdown's divisors; and on the 1920x1080 apps, whose reshapes are frame-sized (their
//!   analyses take closed forms, `st::perm::closed`): `camera` at s = 64800 and four times
//!   that (s = 259200), `demosaic` at 57600 and 230400 (reshapes whose lane counts cross,
//!   20 lanes into 9: `st::perm::crossing`), and at frame-scale slowdowns, `camera` at
//!   2073600 and 8294400, `demosaic` and `big_real_32_conv2d` at 1036800 and 4147200 (a
//!   pixel every second or fourth clock). The ratio of a program's two cases is how its cost scales; the set-up
//!   run of each case (timed once, outside criterion) also prints it (`ratio 4x slowdown:
//!   ...`). Every run starts without the movement areas kept by earlier ones
//!   (`st::area::forget_movement_areas`), as a fresh `tessera schedule` does.
//!
//! - `random_programs`: the e-graph's schedules (default options, default clock) of the
//!   random programs of seeds 0..20 (`tessera::fuzz::typed`, as `tests/search_random.rs`
//!   generates them) at their three slowdowns (`fuzz::versus::slowdowns`), all in one
//!   sample: small stream graphs, where each root's selection is refined by built area
//!   (`schedule::egraph::refine`); `seeds_0_20_unrefined` runs the same without it
//!   (`Options::refine_builds` 0), so the ratio of the two is the refinement's cost.
//!
//! Ten samples each, one iteration per sample: `cargo bench --bench schedule` (a case can
//! be picked by name: `cargo bench --bench schedule -- explore/conv2d`).

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};

/// The allocator of the `tessera` binary, so the timings are the command's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::Path;
use std::time::Duration;
use tessera::schedule::aetherling;
use tessera::schedule::egraph::{explore, schedule, Options};
use tessera::schedule::slowdown::default_slowdowns;
use tessera::seq::{load_program, Program};
use tessera::st::area::forget_movement_areas;
use tessera::st::pipeline::Clock;

/// The apps, each with its one-slowdown case and its paper slowdowns.
const APPS: [(&str, u64, &[u64]); 5] = [
    ("map", 25, &[1, 5, 10, 20, 25, 40, 50, 100, 200]),
    ("conv2d", 16, &[1, 2, 4, 8, 16, 48, 144]),
    ("conv2d_b2b", 16, &[1, 2, 4, 8, 16, 48, 144]),
    ("conv2d_b2b_3x3_repeat", 16, &[1, 2, 4, 8, 16, 48, 144]),
    ("sharpen", 16, &[1, 2, 4, 8, 16, 48, 144]),
];

/// criterion's options that take a value (criterion 0.5's command line): the word after one
/// is not the filter.
const VALUE_OPTIONS: [&str; 20] = [
    "-c",
    "--color",
    "--colour",
    "-s",
    "--save-baseline",
    "-b",
    "--baseline",
    "--baseline-lenient",
    "--format",
    "--profile-time",
    "--load-baseline",
    "--sample-size",
    "--warm-up-time",
    "--measurement-time",
    "--nresamples",
    "--noise-threshold",
    "--confidence-level",
    "--significance-level",
    "--plotting-backend",
    "--output-format",
];

/// Whether criterion's filter (its one positional argument) selects one of the benchmark ids
/// `ids`. Each case's set-up (a schedule or explore run to print graph sizes)
/// costs as much as a sample, so a filtered run skips the set-up of cases it will not
/// measure: `cargo bench --bench schedule -- explore_default` no longer builds the
/// 1920x1080 cases. A filter with regex syntax selects everything, as it may match.
fn wanted(ids: &[String]) -> bool {
    let mut args = std::env::args().skip(1);
    let mut filter = None;
    while let Some(a) = args.next() {
        if VALUE_OPTIONS.contains(&a.as_str()) {
            args.next();
        } else if !a.starts_with('-') {
            filter = Some(a);
            break;
        }
    }
    match filter {
        None => true,
        Some(f) if f.contains(|ch: char| "\\.^$*+?()[]{}|".contains(ch)) => true,
        Some(f) => ids.iter().any(|id| id.contains(&f)),
    }
}

fn load(name: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}.seq"));
    load_program(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn configure<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    // The binary's allocator options too (no worker thread runs between groups).
    tessera::util::alloc::keep_freed_memory();
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    group
}

fn schedule_one(c: &mut Criterion) {
    let o = Options::default();
    let mut group = configure(c, "schedule");
    for (name, s, _) in APPS {
        if !wanted(&[format!("schedule/{name}")]) {
            continue;
        }
        let p = load(name);
        let got = schedule(&p, s, &o).unwrap_or_else(|e| panic!("{name} at {s}: {e}"));
        println!(
            "schedule/{name} s={s}: phase 1 {} e-nodes, {} e-classes; stream graph {} nodes, {} classes; area {:.1}",
            got.seq_nodes, got.seq_classes, got.egraph_nodes, got.egraph_classes, got.area
        );
        group.bench_function(name, |b| b.iter(|| schedule(&p, s, &o).map(|g| g.area)));
    }
    group.finish();
}

fn explore_all(c: &mut Criterion) {
    explore_with(c, "explore", &Options::default());
}

/// `explore` with every design pipelined for the default clock (what `tessera explore`
/// does): against `explore/`, the cost of the timing model.
fn explore_at_clock(c: &mut Criterion) {
    let o = Options {
        clock: Some(Clock::default_target()),
        ..Options::default()
    };
    explore_with(c, "explore_at_clock", &o);
}

fn explore_with(c: &mut Criterion, group_name: &str, o: &Options) {
    let mut group = configure(c, group_name);
    for (name, _, slowdowns) in APPS {
        if !wanted(&[format!("{group_name}/{name}")]) {
            continue;
        }
        let p = load(name);
        let rows = explore(&p, slowdowns, o);
        let phase1 = schedule(&p, slowdowns[0], o)
            .map(|g| (g.seq_nodes, g.seq_classes))
            .unwrap_or_default();
        let nodes: usize = rows.iter().map(|r| r.egraph_nodes).sum();
        let classes: usize = rows.iter().map(|r| r.egraph_classes).sum();
        println!(
            "{group_name}/{name} ({} slowdowns): phase 1 {} e-nodes, {} e-classes; stream graphs {nodes} nodes, {classes} classes in all",
            slowdowns.len(),
            phase1.0,
            phase1.1
        );
        group.bench_function(name, |b| b.iter(|| explore(&p, slowdowns, o).len()));
    }
    group.finish();
}

/// The apps of `explore_default`.
const DEFAULT_APPS: [&str; 3] = ["conv2d", "sharpen", "first_layer_pyr"];

/// `tessera explore FILE`: every default slowdown, at the default clock, with the baseline.
fn explore_default(c: &mut Criterion) {
    let o = Options {
        clock: Some(Clock::default_target()),
        ..Options::default()
    };
    let mut group = configure(c, "explore_default");
    for name in DEFAULT_APPS {
        if !wanted(&[format!("explore_default/{name}")]) {
            continue;
        }
        let p = load(name);
        let slowdowns = default_slowdowns(&p);
        let rows = explore(&p, &slowdowns, &o);
        let nodes: usize = rows.iter().map(|r| r.egraph_nodes).sum();
        let classes: usize = rows.iter().map(|r| r.egraph_classes).sum();
        let truncated = rows.iter().filter(|r| r.truncated).count();
        println!(
            "explore_default/{name} ({} slowdowns): stream graphs {nodes} nodes, {classes} classes in all; {truncated} truncated",
            slowdowns.len()
        );
        group.bench_function(name, |b| b.iter(|| explore(&p, &slowdowns, &o).len()));
    }
    group.finish();
}

fn big_app(c: &mut Criterion) {
    let o = Options::default();
    let mut group = c.benchmark_group("big");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    let name = "big_real_32_conv2d";
    if !wanted(&[
        format!("big/schedule/{name}"),
        format!("big/explore/{name}"),
        format!("big/explore_slowest/{name}"),
    ]) {
        return;
    }
    let p = load(name);
    let got = schedule(&p, 129_600, &o).unwrap_or_else(|e| panic!("{name}: {e}"));
    println!(
        "big/schedule/{name} s=129600: phase 1 {} e-nodes, {} e-classes; stream graph {} nodes, {} classes; area {:.1}",
        got.seq_nodes, got.seq_classes, got.egraph_nodes, got.egraph_classes, got.area
    );
    group.bench_function(format!("schedule/{name}"), |b| {
        b.iter(|| schedule(&p, 129_600, &o).map(|g| g.area))
    });
    let slowdowns = [129_600, 259_200];
    let rows = explore(&p, &slowdowns, &o);
    let nodes: usize = rows.iter().map(|r| r.egraph_nodes).sum();
    let classes: usize = rows.iter().map(|r| r.egraph_classes).sum();
    println!(
        "big/explore/{name} (2 slowdowns): stream graphs {nodes} nodes, {classes} classes in all"
    );
    group.bench_function(format!("explore/{name}"), |b| {
        b.iter(|| explore(&p, &slowdowns, &o).len())
    });
    // the slowest paper slowdown: a pixel every third clock, where the stream graph once
    // measured buffered transposes of the whole frame (every atom walked)
    let slowest = [6_220_800];
    let rows = explore(&p, &slowest, &o);
    let nodes: usize = rows.iter().map(|r| r.egraph_nodes).sum();
    println!("big/explore_slowest/{name} (s = 6220800): stream graph {nodes} nodes");
    group.bench_function(format!("explore_slowest/{name}"), |b| {
        b.iter(|| explore(&p, &slowest, &o).len())
    });
    group.finish();
}

/// What `tessera explore examples/camera.seq --slowdowns 129600` runs: the default clock, the
/// baseline column, the four largest burst sources dividing 129600 and the four largest
/// that do not (issue 16 wants one slowdown of a 1920x1080 app under 10 s).
fn big_camera(c: &mut Criterion) {
    let name = "camera";
    if !wanted(&[format!("big_camera/explore_one/{name}")]) {
        return;
    }
    let mut group = configure(c, "big_camera");
    let o = Options {
        clock: Some(Clock::default_target()),
        ..Options::default()
    };
    let p = load(name);
    let one = [129_600];
    let rows = explore(&p, &one, &o);
    println!(
        "big_camera/explore_one/{name} (s = 129600): stream graph {} nodes, area {:?}",
        rows[0].egraph_nodes, rows[0].area
    );
    group.bench_function(format!("explore_one/{name}"), |b| {
        b.iter(|| explore(&p, &one, &o).len())
    });
    group.finish();
}

fn aetherling_large_slowdown(c: &mut Criterion) {
    let mut group = c.benchmark_group("aetherling_large_slowdown");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    let cases: [(&str, [u64; 2]); 7] = [
        ("small/camera_16x8", [288, 1152]),
        ("small/demosaic_16x8", [288, 1152]),
        ("camera", [64800, 259200]),
        ("camera", [2073600, 8294400]),
        ("demosaic", [57600, 230400]),
        ("demosaic", [1036800, 4147200]),
        ("big_real_32_conv2d", [1036800, 4147200]),
    ];
    for (path, slowdowns) in cases {
        let name = path.trim_start_matches("small/");
        let ids = slowdowns.map(|s| format!("aetherling_large_slowdown/{name}/{s}"));
        if !wanted(&ids) {
            continue;
        }
        let p = load(path);
        let mut once = Vec::new();
        for s in slowdowns {
            forget_movement_areas();
            let start = std::time::Instant::now();
            let got = aetherling::schedule(&p, s).unwrap_or_else(|e| panic!("{name}: {e}"));
            once.push(start.elapsed().as_secs_f64());
            println!(
                "aetherling_large_slowdown/{name}/{s}: area {:.1}, {} of {} output layouts",
                got.area, got.candidates_ok, got.candidates_tried
            );
            group.bench_function(format!("{name}/{s}"), |b| {
                b.iter(|| {
                    forget_movement_areas();
                    aetherling::schedule(&p, s).map(|g| g.area)
                })
            });
        }
        println!(
            "aetherling_large_slowdown/{name}/{}: ratio 4x slowdown: {:.2} (one run each: {:.3} s, {:.3} s)",
            slowdowns[0],
            once[1] / once[0],
            once[0],
            once[1]
        );
    }
    group.finish();
}

fn random_programs(c: &mut Criterion) {
    use tessera::fuzz::typed::Generated;
    use tessera::fuzz::versus::{parse, slowdowns};
    let ids = ["seeds_0_20", "seeds_0_20_unrefined"].map(|n| format!("random_programs/{n}"));
    if !wanted(&ids) {
        return;
    }
    let points: Vec<(Program, u64)> = (0..20)
        .flat_map(|seed| {
            let p = parse(&Generated::random(seed)).unwrap_or_else(|e| panic!("{e}"));
            slowdowns(&p).into_iter().map(move |s| (p.clone(), s))
        })
        .collect();
    let refined = Options {
        clock: Some(Clock::default_target()),
        ..Options::default()
    };
    let unrefined = Options {
        refine_builds: 0,
        ..refined.clone()
    };
    let run = |o: &Options| {
        points
            .iter()
            .map(|(p, s)| schedule(p, *s, o).map_or(0, |g| g.egraph_nodes))
            .sum::<usize>()
    };
    let mut group = configure(c, "random_programs");
    for (name, o) in ["seeds_0_20", "seeds_0_20_unrefined"]
        .into_iter()
        .zip([&refined, &unrefined])
    {
        println!(
            "random_programs/{name} ({} points): stream graphs {} nodes in all",
            points.len(),
            run(o)
        );
        group.bench_function(name, |b| b.iter(|| run(o)));
    }
    group.finish();
}

criterion_group!(
    benches,
    schedule_one,
    explore_all,
    explore_at_clock,
    explore_default,
    big_app,
    big_camera,
    aetherling_large_slowdown,
    random_programs
);
criterion_main!(benches);
