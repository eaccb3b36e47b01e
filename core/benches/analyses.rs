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
use optlab_core::ir::{Block, BlockId, BrilOp, Function, Inst, Lang, Op, Succ, Type, ValueDef, ValueId};
use std::hint::black_box;
use std::path::PathBuf;

/// SplitMix64, for a deterministic program shape.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// A structured Bril function of about `target` blocks (same grammar as the one in
/// `tests/dom_props.rs`): sequences, if/else, one-armed if, while, do-while, early return,
/// nested up to depth 6.
fn structured(target: usize, seed: u64) -> Function {
    struct G {
        f: Function,
        rng: Rng,
        c: ValueId,
        target: usize,
    }
    impl G {
        fn block(&mut self) -> BlockId {
            let i = self.f.blocks.len();
            self.f.add_block(Block::new(format!("b{i}")))
        }
        fn term(&mut self, b: BlockId, op: BrilOp, to: &[BlockId]) {
            let is_br = op == BrilOp::Br;
            let mut inst = Inst::new(Op::Bril(op));
            if is_br {
                inst.args.push(self.c);
            }
            inst.succs = to.iter().map(|&t| Succ::to(t)).collect();
            let i = self.f.add_inst(inst);
            self.f.blocks[b].term = Some(i);
        }
        fn stmts(&mut self, mut cur: BlockId, depth: u32) -> BlockId {
            for _ in 0..1 + self.rng.below(3) {
                cur = self.stmt(cur, depth);
            }
            cur
        }
        fn stmt(&mut self, cur: BlockId, depth: u32) -> BlockId {
            let full = self.f.blocks.len() >= self.target;
            let kind = if full || depth >= 6 { 0 } else { self.rng.below(6) };
            match kind {
                1 => {
                    let (t, e, j) = (self.block(), self.block(), self.block());
                    self.term(cur, BrilOp::Br, &[t, e]);
                    let te = self.stmts(t, depth + 1);
                    let ee = self.stmts(e, depth + 1);
                    self.term(te, BrilOp::Jmp, &[j]);
                    self.term(ee, BrilOp::Jmp, &[j]);
                    j
                }
                2 => {
                    let (t, j) = (self.block(), self.block());
                    self.term(cur, BrilOp::Br, &[t, j]);
                    let te = self.stmts(t, depth + 1);
                    self.term(te, BrilOp::Jmp, &[j]);
                    j
                }
                3 => {
                    let (h, body, exit) = (self.block(), self.block(), self.block());
                    self.term(cur, BrilOp::Jmp, &[h]);
                    self.term(h, BrilOp::Br, &[body, exit]);
                    let be = self.stmts(body, depth + 1);
                    self.term(be, BrilOp::Jmp, &[h]);
                    exit
                }
                4 => {
                    let body = self.block();
                    self.term(cur, BrilOp::Jmp, &[body]);
                    let be = self.stmts(body, depth + 1);
                    let after = self.block();
                    self.term(be, BrilOp::Br, &[body, after]);
                    after
                }
                5 if depth > 0 && self.rng.below(100) < 30 => {
                    let (r, j) = (self.block(), self.block());
                    self.term(cur, BrilOp::Br, &[r, j]);
                    self.term(r, BrilOp::Ret, &[]);
                    j
                }
                _ => {
                    let nb = self.block();
                    self.term(cur, BrilOp::Jmp, &[nb]);
                    nb
                }
            }
        }
    }
    let mut f = Function::new("big", Lang::Bril);
    let c = f.add_value("c", Some(Type::Bool), ValueDef::Var);
    let mut g = G { f, rng: Rng(seed), c, target };
    let mut cur = g.block();
    while g.f.blocks.len() < target {
        cur = g.stmt(cur, 0);
    }
    g.term(cur, BrilOp::Ret, &[]);
    g.f
}

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
    let f = structured(10_000, 42);
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
