//! CFG, dominators, post-dominators, dominance frontier and control dependence on
//!
//! * a generated, structured 10,000-block Bril function (nested loops, diamonds, early
//!   returns; deterministic), with and without recording the Lengauer–Tarjan trace;
//! * the largest Bril benchmark of the corpus (`../shared/corpus/bril/benchmarks`, or
//!   `$OPTLAB_SHARED`), parse included, when the corpus is present.
//!
//! Run with `cargo bench -p optlab-core --bench analyses`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use optlab_core::cfg::Cfg;
use optlab_core::dom::{self, ControlDeps, DomKind, DomTree};
use optlab_core::ir::{Function, Lang};
use optlab_core::testgen;
use std::hint::black_box;
use std::path::PathBuf;

/// Everything the ADCE view needs, in order.
fn all_analyses(f: &Function) -> usize {
    let cfg = Cfg::new(f);
    let dt = DomTree::dominators(f, &cfg);
    let pdt = DomTree::post_dominators(f, &cfg);
    let df = dom::frontier(&cfg, &dt);
    let cd = ControlDeps::new(f, &cfg, &pdt);
    df.values().map(Vec::len).sum::<usize>() + cd.edges().count()
}

fn bench_structured(c: &mut Criterion) {
    let f = testgen::structured_function(10_000, 42);
    let cfg = Cfg::new(&f);
    let dt = DomTree::dominators(&f, &cfg);
    let pdt = DomTree::post_dominators(&f, &cfg);
    let mut g = c.benchmark_group("structured_10k");
    g.throughput(Throughput::Elements(f.blocks.len() as u64));
    g.bench_function("cfg", |b| b.iter(|| Cfg::new(black_box(&f))));
    g.bench_function("dominators", |b| b.iter(|| DomTree::dominators(black_box(&f), &cfg)));
    g.bench_function("post_dominators", |b| b.iter(|| DomTree::post_dominators(black_box(&f), &cfg)));
    g.bench_function("frontier", |b| b.iter(|| dom::frontier(&cfg, black_box(&dt))));
    g.bench_function("control_deps", |b| b.iter(|| ControlDeps::new(&f, &cfg, black_box(&pdt))));
    g.bench_function("all", |b| b.iter(|| all_analyses(black_box(&f))));
    // The same function as source text: what the editor hands the core on every keystroke.
    let text = optlab_core::print::print_function(&f, optlab_core::print::Naming::User);
    g.bench_function("parse_cfg_both_trees", |b| {
        b.iter(|| {
            let m = optlab_core::parse_module(Lang::Bril, "big.bril", black_box(&text)).unwrap();
            let f = &m.functions[0];
            let cfg = Cfg::new(f);
            DomTree::dominators(f, &cfg).preorder().len() + DomTree::post_dominators(f, &cfg).preorder().len()
        })
    });
    g.bench_function("both_trees_traced", |b| {
        b.iter(|| {
            let (_, e1) = DomTree::build_traced(black_box(&f), &cfg, DomKind::Dominators);
            let (_, e2) = DomTree::build_traced(black_box(&f), &cfg, DomKind::PostDominators);
            e1.len() + e2.len()
        })
    });
    g.finish();
}

fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("OPTLAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    dir.join("corpus").is_dir().then_some(dir)
}

/// The biggest `.bril` file under the corpus's benchmarks.
fn largest_bril_benchmark() -> Option<PathBuf> {
    let mut stack = vec![shared_dir()?.join("corpus/bril/benchmarks")];
    let mut best: Option<(u64, PathBuf)> = None;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "bril") {
                let len = e.metadata().map_or(0, |m| m.len());
                if best.as_ref().is_none_or(|(l, bp)| (len, &p) > (*l, bp)) {
                    best = Some((len, p));
                }
            }
        }
    }
    best.map(|(_, p)| p)
}

fn bench_corpus(c: &mut Criterion) {
    let Some(path) = largest_bril_benchmark() else {
        eprintln!("NOTICE: corpus not found; skipping the Bril benchmark");
        return;
    };
    let text = std::fs::read_to_string(&path).expect("readable benchmark");
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    if let Err(e) = optlab_core::parse_module(Lang::Bril, &name, &text) {
        eprintln!("NOTICE: {name} does not parse ({e}); skipping the Bril benchmark");
        return;
    }
    let mut g = c.benchmark_group(format!("bril_{}", name.trim_end_matches(".bril")));
    g.bench_function("parse_and_all", |b| {
        b.iter(|| {
            let m = optlab_core::parse_module(Lang::Bril, &name, black_box(&text)).unwrap();
            m.bodies().map(all_analyses).sum::<usize>()
        })
    });
    let m = optlab_core::parse_module(Lang::Bril, &name, &text).unwrap();
    g.bench_function("all", |b| b.iter(|| black_box(&m).bodies().map(all_analyses).sum::<usize>()));
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench_structured, bench_corpus
}
criterion_main!(benches);
