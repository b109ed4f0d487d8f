//! Front-end speed: parse and check every example, and interpret the small apps.
//!
//! Each case prints the program's node count beside its timing, so a change in speed can be
//! told apart from a change in program size. Run with `cargo bench --bench frontend`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::{Path, PathBuf};
use tessera::seq::{interp, load_program, parse_program};
use tessera::util::rng::Rng;

fn example_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["examples", "examples/seed"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)))
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "seq"))
        .collect();
    files.sort();
    files
}

fn parse_and_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse_and_check");
    for path in example_files() {
        let text = std::fs::read_to_string(&path).expect("readable example");
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let nodes = parse_program("bench", &name, &text)
            .map(|p| p.reachable().len())
            .unwrap_or(0);
        println!("{name}: {nodes} nodes");
        group.bench_function(&name, |b| {
            b.iter(|| parse_program("bench", &name, &text).map(|p| p.len()))
        });
    }
    group.finish();
}

fn interpret_small_apps(c: &mut Criterion) {
    let mut group = c.benchmark_group("interpret");
    for name in ["map", "conv2d", "conv2d_b2b", "sharpen"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}.seq"));
        let Ok(program) = load_program(&path) else {
            continue;
        };
        let mut rng = Rng::new(1);
        let inputs: Vec<_> = program
            .inputs
            .iter()
            .map(|d| tessera::seq::value::random_value(&d.ty, &mut rng))
            .collect();
        group.bench_function(name, |b| b.iter(|| interp::eval(&program, &inputs)));
    }
    group.finish();
}

criterion_group!(benches, parse_and_check, interpret_small_apps);
criterion_main!(benches);
