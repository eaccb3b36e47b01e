//! Every registered pass, and the default pipeline, on inputs that stress them:
//!
//! * `chain_5k`: 5,000 blocks, each adding a copy to a chain (`v1 = id v0; v2 = id v1; …`),
//!   each copy read once, every other block a branch — copy propagation's worst shape (a use
//!   deep in the chain resolves through thousands of copies; the sets at the bottom hold
//!   them all). It took minutes before the chains were capped in the trace and the
//!   justifying instructions memoised; the web app analyses functions of up to 5,000 blocks
//!   on every edit.
//! * `structured_2k`: a generated structured 2,000-block function (loops, diamonds, early
//!   returns).
//!
//! Run with `cargo bench -p optlab-core --bench passes`.

use criterion::{criterion_group, criterion_main, Criterion};
use optlab_core::ir::{Function, Lang};
use optlab_core::passes::pipeline::Pipeline;
use optlab_core::passes::{run, Analyses, Options, REGISTRY};
use optlab_core::testgen;
use std::hint::black_box;

fn copy_chain(n: usize) -> Function {
    let mut text = String::from("@main(c: bool) {\n  v0: int = const 1;\n  a: int = const 2;\n");
    for i in 1..n {
        text.push_str(&format!(".b{i}:\n  v{i}: int = id v{};\n  w: int = add v{i} a;\n", i - 1));
        if i % 2 == 0 {
            text.push_str(&format!("  br c .b{} .s{i};\n.s{i}:\n  print w;\n", i + 1));
        }
    }
    text.push_str(&format!(".b{n}:\n  print v{};\n}}\n", n - 1));
    optlab_core::parse_module(Lang::Bril, "chain.bril", &text).expect("parses").functions.remove(0)
}

fn bench_on(c: &mut Criterion, name: &str, f: &Function) {
    let a = Analyses::new(f);
    let opts = Options::default();
    let mut g = c.benchmark_group(name);
    for pass in REGISTRY {
        g.bench_function(pass.info().slug, |b| b.iter(|| run(*pass, black_box(f), &a, &opts)));
    }
    let p = Pipeline::default_pipeline();
    g.bench_function("default_pipeline", |b| b.iter(|| p.run(black_box(f), &a, &opts)));
    g.finish();
}

fn bench_passes(c: &mut Criterion) {
    bench_on(c, "chain_5k", &copy_chain(5_000));
    bench_on(c, "structured_2k", &testgen::structured_function(2_000, 7));
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench_passes
}
criterion_main!(benches);
