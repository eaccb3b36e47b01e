//! Interpreter speed on corpus benchmarks (Bril's `benchmarks/`, beside the repository in
//! `../shared`) and on the random programs of the differential harness.
//!
//! `cargo bench -p optlab-core --bench interp`. Without `../shared` only the generated
//! programs are measured.

use criterion::{criterion_group, criterion_main, Criterion};
use optlab_core::interp::{bril, RunConfig};
use optlab_core::testgen::{generate, GenConfig};
use optlab_core::{parse_module, Lang};
use std::hint::black_box;
use std::path::PathBuf;

/// Mid-sized benchmarks of different flavours: integer recursion, memory, floats.
const BENCHMARKS: &[&str] = &["core/ackermann.bril", "mem/fnv1-hash.bril", "float/mandelbrot.bril"];

fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("OPTLAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    dir.join("corpus").is_dir().then_some(dir)
}

fn corpus(c: &mut Criterion) {
    let Some(shared) = shared_dir() else {
        eprintln!("NOTICE: ../shared not found; skipping the corpus benchmarks");
        return;
    };
    for name in BENCHMARKS {
        let path = shared.join("corpus/bril/benchmarks").join(name);
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let Ok(module) = parse_module(Lang::Bril, name, &text) else { continue };
        let cfg = RunConfig::with_args(bril::args_from_source(&text));
        let steps = bril::run(&module, &cfg).dyn_inst;
        c.bench_function(&format!("bril {name} ({steps} instructions)"), |b| {
            b.iter(|| bril::run(black_box(&module), black_box(&cfg)))
        });
    }
}

fn generated(c: &mut Criterion) {
    let programs: Vec<_> = (0..100).map(|s| generate(s, &GenConfig::default())).collect();
    c.bench_function("generate 100 random programs", |b| {
        b.iter(|| (0..100).map(|s| generate(black_box(s), &GenConfig::default()).module.functions.len()).sum::<usize>())
    });
    c.bench_function("run 100 random programs × 3 inputs", |b| {
        b.iter(|| {
            let mut steps = 0;
            for g in &programs {
                for input in &g.inputs {
                    steps += bril::run(&g.module, &RunConfig::with_args(input.iter().cloned())).dyn_inst;
                }
            }
            steps
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = corpus, generated
}
criterion_main!(benches);
