//! The two evaluators: the reference interpreter against the fast evaluator on the small
//! apps and the 16x8 variants of the 1920x1080 apps, and the fast evaluator on one full
//! 1920x1080 frame of `big_real_32_conv2d` (the reference takes about 20 s there).
//!
//! Run with `cargo bench --bench interp`; the ratio of a program's two `interp/NAME/...`
//! times is the fast evaluator's speed-up.

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;
use tessera::seq::value::random_value;
use tessera::seq::{fast, interp, load_program, FlatValue, Program, Value};
use tessera::util::rng::Rng;

fn program(rel: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(rel);
    load_program(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn inputs(p: &Program) -> Vec<Value> {
    let mut rng = Rng::new(1);
    p.inputs
        .iter()
        .map(|d| random_value(&d.ty, &mut rng))
        .collect()
}

fn small_apps(c: &mut Criterion) {
    let mut group = c.benchmark_group("interp");
    for rel in [
        "map.seq",
        "conv2d.seq",
        "conv2d_b2b.seq",
        "sharpen.seq",
        "small/big_real_32_conv2d_16x8.seq",
        "small/big_real_32_conv2d_b2b_16x8.seq",
        "small/big_real_32_sharpen_16x8.seq",
        "small/demosaic_16x8.seq",
        "small/camera_16x8.seq",
    ] {
        let p = program(rel);
        let ins = inputs(&p);
        let name = &p.name;
        group.bench_function(format!("{name}/reference"), |b| {
            b.iter(|| interp::eval(&p, &ins).unwrap())
        });
        group.bench_function(format!("{name}/fast"), |b| {
            b.iter(|| fast::eval(&p, &ins).unwrap())
        });
    }
    group.finish();
}

fn full_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("interp_full_frame");
    group.sample_size(10);
    let p = program("big_real_32_conv2d.seq");
    let mut rng = Rng::new(1);
    let ins: Vec<FlatValue> = p
        .inputs
        .iter()
        .map(|d| FlatValue::random(&d.ty, &mut rng))
        .collect();
    group.bench_function("big_real_32_conv2d/fast", |b| {
        b.iter(|| fast::eval_flat(&p, &ins).unwrap())
    });
    group.finish();
}

criterion_group!(benches, small_apps, full_frame);
criterion_main!(benches);
