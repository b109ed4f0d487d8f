//! E-graph saturation of the paper's apps with the default (core) rules.
//!
//! Each case prints the e-graph's size (e-nodes, e-classes, iterations) beside its timing,
//! so a slower run can be told apart from a bigger graph. Run with
//! `cargo bench --bench saturate`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;
use tessera::egraph::rules::RuleSet;
use tessera::egraph::saturate::{saturate_program, SatConfig};
use tessera::seq::load_program;

const APPS: [&str; 6] = [
    "examples/map.seq",
    "examples/conv2d.seq",
    "examples/conv2d_b2b.seq",
    "examples/sharpen.seq",
    "examples/conv2d_b2b_3x3_repeat.seq",
    "examples/big_real_32_conv2d.seq",
];

fn saturation(c: &mut Criterion) {
    let rules = RuleSet::defaults();
    let cfg = SatConfig::default();
    let mut group = c.benchmark_group("saturate");
    group.sample_size(10);
    for file in APPS {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let program = load_program(&path).unwrap_or_else(|e| panic!("{e}"));
        let report = saturate_program(&program, &rules, &cfg).report;
        println!(
            "{}: {} e-nodes, {} e-classes, {} iterations ({})",
            program.name, report.nodes, report.classes, report.iterations, report.stop
        );
        group.bench_function(&program.name, |b| {
            b.iter(|| saturate_program(&program, &rules, &cfg).report.nodes)
        });
    }
    group.finish();
}

criterion_group!(benches, saturation);
criterion_main!(benches);
