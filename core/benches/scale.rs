//! The scaling benchmark of issue 17: every stage on generated functions of 10^3, 10^4 and
//! 10^5 blocks (Bril and SIL, generated as text by `testgen::scale`, then parsed), with the
//! time and the peak memory of each stage and the growth exponent fitted from them (the
//! slope of log(cost) against log(blocks) from the smallest to the largest size). It checks
//! nothing: BENCHMARKS.md ("Scaling") records the table and the goals.
//!
//! Each stage runs in a child process of its own (this binary, re-run with `--stage`), so a
//! stage that runs out of memory or time is reported as such and the others still run. A
//! counting global allocator measures memory: the peak of live heap bytes during the stage,
//! above what was live when it started; it refuses allocations past a cap (default 4 GiB),
//! which aborts the child instead of the machine.
//!
//! The LCM reference: `lcm-bare` computes the same predicates as `lcm-predicates` (steps
//! 3–6) with plain `Vec<u64>` bit vectors, in the same visit orders and with the same number
//! of rounds per fixpoint as LCM needed, and says whether its answers equal LCM's. The ratio
//! of the two is the overhead of the engine, the recording and the entity types.
//!
//! The SIL passes on ownership SSA (`types`, `ownership`, `address-lowering`, `copy-elim`)
//! run on a generated opaque-values function ([`ossa_program`]): generic `$T` values moved
//! through copies, aggregates, enums, borrows, stack round trips, calls, diamonds with an
//! owned phi and loops, about the same number of blocks as the other stages; `lcm-sil` is
//! LCM on the SIL function of `testgen::scale` (builtins recomputed in many blocks).
//!
//! A stage's time is the best of at least 3 runs, and of up to 50 in 200 ms (a stage of
//! 10^5 blocks ran once or twice before, and this VM's page faults moved a single run by
//! ±40%). Repeated runs keep a small function's data in the caches (1 MiB of L2 per core,
//! 32 MiB of L3 here) while a large one streams from memory, so the warm times of 10^3
//! blocks flatter them against 10^5, and the exponent mixes the algorithm's growth with the
//! memory hierarchy's. `--cold` writes 64 MiB
//! before every run, so each one starts with its data out of the caches, as a one-shot run
//! of the CLI or the page does; BENCHMARKS.md reports both.
//!
//! The allocator is the CLI's, mimalloc; `--features system-alloc` measures the same stages
//! on the system's (glibc's malloc), as a library user who keeps it would run them.
//!
//! Run: `cargo bench -p optlab-core --bench scale` (all sizes), or with arguments after
//! `--`: `--sizes 1000,10000`, `--stages dce-bril,lcm`, `--cap-gib 4`, `--timeout 120`,
//! `--cold`; `--print-bril N`, `--print-sil N` and `--print-ossa N` print the generated
//! programs of N blocks (to run the CLI on them).

use optlab_core::cfg::Cfg;
use optlab_core::dom::{self, ControlDeps, DomTree};
use optlab_core::interp::{bril, sil, RunConfig};
use optlab_core::ir::{Function, Lang, Module};
use optlab_core::passes::lcm::{self, ExprId, Fixpoint, Pred, Predicates};
use optlab_core::passes::pipeline::Pipeline;
use optlab_core::passes::{self, copyprop, dce, Analyses, Options, Outcome, PassRun};
use optlab_core::print::{print_module, Naming};
use optlab_core::sil::{ownership, types};
use optlab_core::testgen::{scale, Rng};
use std::fmt::Write as _;
use std::alloc::{GlobalAlloc, Layout};
use std::hint::black_box;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

struct Counting;

/// What `Counting` allocates with: the CLI's allocator (mimalloc), or with the `system-alloc`
/// feature the system's (glibc's malloc), which BENCHMARKS.md reports beside it.
#[cfg(not(feature = "system-alloc"))]
static INNER: mimalloc::MiMalloc = mimalloc::MiMalloc;
#[cfg(feature = "system-alloc")]
static INNER: std::alloc::System = std::alloc::System;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static CAP: AtomicUsize = AtomicUsize::new(usize::MAX);
static COLD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Twice this machine's last-level cache (32 MiB): writing it evicts the stage's data.
const EVICT_BYTES: usize = 64 << 20;

/// The counters are read and written with plain loads and stores, not read-modify-write
/// atomics: a stage runs on one thread of its own process, and a locked add and a
/// compare-and-swap loop on every allocation cost more than the allocation-heavy stages'
/// own work at 10^3 blocks (LCM's predicates: 0.46 → 0.35 ms), which is overhead of the
/// measuring, not of the stage.
fn grow(by: usize) -> bool {
    let now = LIVE.load(Ordering::Relaxed) + by;
    if now > CAP.load(Ordering::Relaxed) {
        return false;
    }
    LIVE.store(now, Ordering::Relaxed);
    if now > PEAK.load(Ordering::Relaxed) {
        PEAK.store(now, Ordering::Relaxed);
    }
    true
}

fn shrink(by: usize) {
    LIVE.store(LIVE.load(Ordering::Relaxed).saturating_sub(by), Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !grow(layout.size()) {
            return std::ptr::null_mut();
        }
        INNER.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrink(layout.size());
        INNER.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old {
            if !grow(new_size - old) {
                return std::ptr::null_mut();
            }
        } else {
            shrink(old - new_size);
        }
        INNER.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The stages, in table order.
const STAGES: &[&str] = &[
    "parse-bril",
    "parse-sil",
    "print-bril",
    "print-sil",
    "cfg",
    "dominators",
    "post-dominators",
    "frontier",
    "cdg",
    "analyses",
    "dce-bril",
    "dce-sil",
    "lcm",
    "lcm-predicates",
    "lcm-bare",
    "copyprop",
    "copyprop-lcm",
    "dce-lcm",
    "pipeline",
    "interp-bril",
    "interp-sil",
    "lcm-sil",
    "types",
    "ownership",
    "address-lowering",
    "copy-elim",
];

const SEED: u64 = 17;

fn parse(lang: Lang, text: &str) -> Module {
    optlab_core::parse_module(lang, "scale", text).unwrap_or_else(|d| panic!("generated program does not parse: {d:?}"))
}

fn main_fn(m: &Module) -> Option<&Function> {
    m.functions.iter().max_by_key(|f| f.blocks.len())
}

/// An opaque-values OSSA module of about `blocks` blocks in one generic function `@big`:
/// one owned `$T` value at a time (`cur`) goes through copies, `struct`/`tuple` and their
/// destructuring, a borrowed field projection, `enum`/`unchecked_enum_data`, `switch_enum`,
/// a store/load round trip through an `alloc_stack`, a call of a generic function (`@in`,
/// `@in_guaranteed`, `@out`), a removable copy (`copy_value %x` consumed before `destroy_value %x`), diamonds that join
/// at an owned phi, and loops whose header takes the value as an owned phi. Linear in the
/// output; every value's lifetime ends in the block or the phi that receives it.
fn ossa_program(blocks: usize, seed: u64) -> String {
    // The callee's type as a call site writes it, and as its definition does.
    const GTY: &str = "$@convention(thin) <τ_0_0> (@in_guaranteed τ_0_0, Builtin.Int1) -> @out τ_0_0";
    const FTY: &str = "$@convention(thin) <T> (@in_guaranteed T, Builtin.Int1) -> @out T";
    const BIG: &str = "$@convention(thin) <T> (@in T, @in T, Builtin.Int1) -> @out T";
    struct G {
        out: String,
        rng: Rng,
        n: usize,
        blocks: usize,
        cur: String,
    }
    impl G {
        fn v(&mut self) -> String {
            self.n += 1;
            format!("%v{}", self.n)
        }
        fn label(&mut self) -> String {
            self.blocks += 1;
            format!("bb{}", self.blocks)
        }
        fn line(&mut self, l: &str) {
            self.out.push_str("  ");
            self.out.push_str(l);
            self.out.push('\n');
        }
        /// A few instructions on `cur`, leaving one owned `$T` in `cur`.
        fn op(&mut self) {
            let x = self.cur.clone();
            match self.rng.below(8) {
                0 => {
                    let (c, p, u, w) = (self.v(), self.v(), self.v(), self.v());
                    self.line(&format!("{c} = copy_value {x} : $T"));
                    self.line(&format!("{p} = struct $Pair<T> ({x} : $T, {c} : $T)"));
                    self.line(&format!("({u}, {w}) = destructure_struct {p} : $Pair<T>"));
                    self.line(&format!("destroy_value {w} : $T"));
                    self.cur = u;
                }
                1 => {
                    let (c, p, b, e, d) = (self.v(), self.v(), self.v(), self.v(), self.v());
                    self.line(&format!("{c} = copy_value {x} : $T"));
                    self.line(&format!("{p} = struct $Pair<T> ({x} : $T, {c} : $T)"));
                    self.line(&format!("{b} = begin_borrow {p} : $Pair<T>"));
                    self.line(&format!("{e} = struct_extract {b} : $Pair<T>, #Pair.y"));
                    self.line(&format!("{d} = copy_value {e} : $T"));
                    self.line(&format!("end_borrow {b} : $Pair<T>"));
                    self.line(&format!("destroy_value {p} : $Pair<T>"));
                    self.cur = d;
                }
                2 => {
                    let (c, t, u, w) = (self.v(), self.v(), self.v(), self.v());
                    self.line(&format!("{c} = copy_value {x} : $T"));
                    self.line(&format!("{t} = tuple ({x} : $T, {c} : $T)"));
                    self.line(&format!("({u}, {w}) = destructure_tuple {t} : $(T, T)"));
                    self.line(&format!("destroy_value {u} : $T"));
                    self.cur = w;
                }
                3 => {
                    let (o, d) = (self.v(), self.v());
                    self.line(&format!("{o} = enum $Optional<T>, #Optional.some!enumelt, {x} : $T"));
                    self.line(&format!("{d} = unchecked_enum_data {o} : $Optional<T>, #Optional.some!enumelt"));
                    self.cur = d;
                }
                4 => {
                    let (s, l) = (self.v(), self.v());
                    self.line(&format!("{s} = alloc_stack $T"));
                    self.line(&format!("store {x} to [init] {s} : $*T"));
                    self.line(&format!("{l} = load [take] {s} : $*T"));
                    self.line(&format!("dealloc_stack {s} : $*T"));
                    self.cur = l;
                }
                5 => {
                    let (f, r) = (self.v(), self.v());
                    self.line(&format!("{f} = function_ref @copy : {GTY}"));
                    self.line(&format!("{r} = apply {f}<T>({x}, %flag) : {GTY}"));
                    self.line(&format!("destroy_value {x} : $T"));
                    self.cur = r;
                }
                6 => {
                    // A copy that copy elimination removes: its source ends at a destroy
                    // after the copy's consumer.
                    let (c, o, d) = (self.v(), self.v(), self.v());
                    self.line(&format!("{c} = copy_value {x} : $T"));
                    self.line(&format!("{o} = enum $Optional<T>, #Optional.some!enumelt, {c} : $T"));
                    self.line(&format!("destroy_value {x} : $T"));
                    self.line(&format!("{d} = unchecked_enum_data {o} : $Optional<T>, #Optional.some!enumelt"));
                    self.cur = d;
                }
                _ => {
                    let o = self.v();
                    let (some, none) = (self.label(), self.label());
                    let p = self.v();
                    self.line(&format!("{o} = enum $Optional<T>, #Optional.some!enumelt, {x} : $T"));
                    self.line(&format!("switch_enum {o} : $Optional<T>, case #Optional.some!enumelt: {some}, case #Optional.none!enumelt: {none}"));
                    let _ = write!(self.out, "{none}:\n  unreachable\n{some}({p} : @owned $T):\n");
                    self.cur = p;
                }
            }
        }
        fn body(&mut self) {
            for _ in 0..1 + self.rng.below(2) {
                self.op();
            }
        }
        fn segment(&mut self, depth: u32) {
            match self.rng.below(if depth < 2 { 6 } else { 4 }) {
                0..=2 => {
                    let l = self.label();
                    self.line(&format!("br {l}"));
                    let _ = writeln!(self.out, "{l}:");
                    self.body();
                }
                3 => {
                    // A diamond joining at an owned phi.
                    let (lt, le, lj) = (self.label(), self.label(), self.label());
                    let j = self.v();
                    self.line(&format!("cond_br %flag, {lt}, {le}"));
                    let x = self.cur.clone();
                    let _ = writeln!(self.out, "{lt}:");
                    self.body();
                    let y = self.cur.clone();
                    self.line(&format!("br {lj}({y} : $T)"));
                    let _ = writeln!(self.out, "{le}:");
                    self.cur = x;
                    self.body();
                    let z = self.cur.clone();
                    self.line(&format!("br {lj}({z} : $T)"));
                    let _ = writeln!(self.out, "{lj}({j} : @owned $T):");
                    self.cur = j;
                }
                _ => {
                    // A loop: the header takes the value as an owned phi.
                    let (lh, lb, lx) = (self.label(), self.label(), self.label());
                    let i = self.v();
                    let x = self.cur.clone();
                    self.line(&format!("br {lh}({x} : $T)"));
                    let _ = writeln!(self.out, "{lh}({i} : @owned $T):");
                    self.line(&format!("cond_br %flag, {lb}, {lx}"));
                    let _ = writeln!(self.out, "{lb}:");
                    self.cur = i.clone();
                    self.body();
                    for _ in 0..self.rng.below(3) {
                        self.segment(depth + 1);
                    }
                    let y = self.cur.clone();
                    self.line(&format!("br {lh}({y} : $T)"));
                    let _ = writeln!(self.out, "{lx}:");
                    self.cur = i;
                }
            }
        }
    }
    let mut g = G { out: String::with_capacity(blocks * 300), rng: Rng::new(seed), n: 0, blocks: 0, cur: "%a".into() };
    g.out.push_str("// RUN: -enable-sil-opaque-values\nsil_stage raw\n\nimport Builtin\n\n");
    g.out.push_str("struct Pair<T> { var x: T; var y: T }\n\nenum Optional<T> {\n  case none\n  case some(T)\n}\n\n");
    let _ = write!(
        g.out,
        "sil [ossa] @copy : {FTY} {{\nbb0(%a : @guaranteed $T, %flag : $Builtin.Int1):\n  %c = copy_value %a : $T\n  return %c : $T\n}}\n\n"
    );
    let _ = write!(g.out, "sil [ossa] @big : {BIG} {{\nbb0(%a : @owned $T, %b : @owned $T, %flag : $Builtin.Int1):\n  destroy_value %b : $T\n");
    while g.blocks + 1 < blocks {
        g.segment(0);
    }
    let x = g.cur.clone();
    g.line(&format!("return {x} : $T"));
    g.out.push_str("}\n");
    g.out
}

/// Times `f` (at least 3 times, and until 0.2 s have passed, at most 50 times, the fastest
/// run kept) and measures the peak of live heap bytes above the start during the first run.
fn measure<R>(mut f: impl FnMut() -> R) -> (Duration, usize) {
    let mut junk = COLD.load(Ordering::Relaxed).then(|| vec![0u64; EVICT_BYTES / 8]);
    let mut evict = || {
        if let Some(j) = junk.as_mut() {
            for (i, w) in j.iter_mut().enumerate().step_by(8) {
                *w = w.wrapping_add(i as u64);
            }
            black_box(&j);
        }
    };
    evict();
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let t = Instant::now();
    let r = f();
    let mut best = t.elapsed();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    drop(black_box(r));
    let start = Instant::now();
    let mut runs = 1;
    while (runs < 3 || start.elapsed() < Duration::from_millis(200)) && runs < 50 {
        evict();
        let t = Instant::now();
        drop(black_box(f()));
        best = best.min(t.elapsed());
        runs += 1;
    }
    (best, peak)
}

/// The child: runs one stage at one size and prints `RESULT secs peak_bytes note`.
fn run_stage(stage: &str, n: usize) {
    let bril_text = scale::bril_program(n, SEED);
    let bm = parse(Lang::Bril, &bril_text);
    let bf = main_fn(&bm).expect("a Bril function");
    // SIL only where needed: parsing it is the slow part of some versions.
    let sil = stage.contains("sil");
    let sil_text = if sil { scale::sil_program(n, SEED) } else { String::new() };
    let sm_opt = sil.then(|| parse(Lang::Sil, &sil_text));
    let sm = || sm_opt.as_ref().expect("SIL parsed for a SIL stage");
    // The opaque-values module for the OSSA stages, its type environment and `@big`'s
    // analyses with its types classified (the passes read them; `types` measures them).
    let ossa = matches!(stage, "types" | "ownership" | "address-lowering" | "copy-elim");
    let om = ossa.then(|| parse(Lang::Sil, &ossa_program(n, SEED)));
    let ossa_fn = || om.as_ref().and_then(|m| m.functions.iter().find(|f| f.name == "big")).expect("@big");
    let env = om.as_ref().map(types::env_of);
    let cfg = Cfg::new(bf);
    let opts = Options::default();
    let mut note = String::new();
    let mb = |len: usize, d: Duration| format!("{:.1} MB/s ({:.1} MB)", len as f64 / 1e6 / d.as_secs_f64(), len as f64 / 1e6);
    let (time, peak) = match stage {
        "parse-bril" => {
            let r = measure(|| parse(Lang::Bril, &bril_text));
            note = mb(bril_text.len(), r.0);
            r
        }
        "parse-sil" => {
            let r = measure(|| parse(Lang::Sil, &sil_text));
            note = mb(sil_text.len(), r.0);
            r
        }
        "print-bril" => measure(|| print_module(&bm, Naming::User)),
        "print-sil" => measure(|| print_module(sm(), Naming::User)),
        "cfg" => measure(|| Cfg::new(bf)),
        "dominators" => measure(|| DomTree::dominators(bf, &cfg)),
        "post-dominators" => measure(|| DomTree::post_dominators(bf, &cfg)),
        "frontier" => {
            let dt = DomTree::dominators(bf, &cfg);
            measure(|| dom::frontier(&cfg, &dt))
        }
        "cdg" => {
            let pdt = DomTree::post_dominators(bf, &cfg);
            measure(|| ControlDeps::new(bf, &cfg, &pdt))
        }
        "analyses" => measure(|| Analyses::new(bf)),
        "dce-bril" => {
            // Fresh analyses per run: reaching definitions are computed lazily, inside DCE.
            let r = measure(|| {
                let a = Analyses::new(bf);
                dce::run_with(bf, Some(&a))
            });
            let out = dce::run_with(bf, Some(&Analyses::new(bf)));
            note = format!("{} events, {} -> {} insts", out.trace.events.len(), out.stats.insts_before, out.stats.insts_after);
            r
        }
        "dce-sil" => {
            let sf = main_fn(sm()).expect("a SIL function");
            let a = Analyses::new(sf);
            let r = measure(|| dce::run_with(sf, Some(&a)));
            let out = dce::run_with(sf, Some(&a));
            note = format!("{} events, {} -> {} insts", out.trace.events.len(), out.stats.insts_before, out.stats.insts_after);
            r
        }
        "lcm" => {
            let r = measure(|| lcm::run_function(bf, &lcm::Options::default()).expect("LCM runs"));
            let out = lcm::run_function(bf, &lcm::Options::default()).expect("LCM runs");
            note = format!("{} expressions, {} moved", out.exprs.len(), out.moved().len());
            r
        }
        "lcm-predicates" | "lcm-bare" => {
            let p = lcm::prepare(bf, &lcm::Options::default());
            let (preds, fps) = lcm::global_predicates(&p);
            let rounds = fps.each_ref().map(|fp: &Fixpoint| fp.rounds.len());
            if stage == "lcm-predicates" {
                note = format!("{} expressions, {} blocks, rounds {rounds:?}", p.n_exprs, p.graph.num_blocks());
                measure(|| lcm::global_predicates(&p))
            } else {
                let bare = Bare::new(&p);
                let r = measure(|| bare.sweep(rounds));
                let same = bare.sweep(rounds).same_as(&preds, &p);
                note = format!("same answers as LCM: {}", if same { "yes" } else { "NO" });
                r
            }
        }
        "copyprop" => measure(|| copyprop::run(bf, &cfg).expect("copy propagation runs")),
        // The pipeline's second and third stages on their real inputs: LCM leaves a copy per
        // computation it removes, and copy propagation's output is what DCE sees.
        "copyprop-lcm" | "dce-lcm" => {
            let lf = lcm::run_function(bf, &lcm::Options::default()).expect("LCM runs").result;
            let lcfg = Cfg::new(&lf);
            if stage == "copyprop-lcm" {
                let out = copyprop::run(&lf, &lcfg).expect("copy propagation runs");
                // The available-copies table's size (listed in- and out-set entries): what
                // the pass's time follows (see BENCHMARKS.md on this stage's exponent).
                let listed = |s: &copyprop::FactSet<copyprop::CopyId>| if let copyprop::FactSet::Listed(v) = s { v.len() } else { 0 };
                let entries: usize = out.avail.facts.ins.values().chain(out.avail.facts.outs.values()).map(listed).sum();
                note = format!(
                    "{} copies, {} rewrites, {} deleted, {entries} table entries",
                    out.stats.copies, out.stats.rewrites, out.stats.deleted
                );
                drop(out);
                measure(|| copyprop::run(&lf, &lcfg).expect("copy propagation runs"))
            } else {
                let cf = copyprop::run(&lf, &lcfg).expect("copy propagation runs").function;
                measure(|| {
                    let a = Analyses::new(&cf);
                    dce::run_with(&cf, Some(&a))
                })
            }
        }
        "pipeline" => {
            let a = Analyses::new(bf);
            let p = Pipeline::default_pipeline();
            measure(|| p.run(bf, &a, &opts))
        }
        "interp-bril" => {
            let r = measure(|| bril::run(&bm, &RunConfig::default()));
            let out = bril::run(&bm, &RunConfig::default());
            note = format!("{} instructions executed{}", out.dyn_inst, if out.error.is_some() { ", FAILED" } else { "" });
            r
        }
        "interp-sil" => {
            let r = measure(|| sil::run(sm(), "big", &RunConfig::default()));
            let out = sil::run(sm(), "big", &RunConfig::default());
            note = format!("{} instructions executed{}", out.dyn_inst, if out.error.is_some() { ", FAILED" } else { "" });
            r
        }
        "lcm-sil" => {
            let sf = main_fn(sm()).expect("a SIL function");
            let out = lcm::run_function(sf, &lcm::Options::default()).expect("LCM runs on SIL");
            note = format!("{} expressions, {} moved", out.exprs.len(), out.moved().len());
            drop(out);
            measure(|| lcm::run_function(sf, &lcm::Options::default()).expect("LCM runs on SIL"))
        }
        "types" => {
            let (f, env) = (ossa_fn(), env.clone().expect("an environment"));
            note = format!("{} blocks, {} instructions", f.blocks.len(), f.insts.len());
            measure(|| types::FunctionTypes::new(f, env.clone()))
        }
        "ownership" => {
            let f = ossa_fn();
            let ft = types::FunctionTypes::new(f, env.clone().expect("an environment"));
            let v = ownership::verify(f, &ownership::analyze(f, &ft));
            note = format!("{} findings{}", v.findings.len(), v.findings.first().map(|f| format!(", first: {f:?}")).unwrap_or_default());
            measure(|| {
                let fo = ownership::analyze(f, &ft);
                let v = ownership::verify(f, &fo);
                (fo, v)
            })
        }
        "address-lowering" | "copy-elim" => {
            let f = ossa_fn();
            let a = Analyses::with_types(f, env.clone().expect("an environment"));
            a.types(f);
            let pass = passes::by_slug(stage).expect("a registered pass");
            let r: PassRun = passes::run(pass, f, &a, &opts);
            note = match &r.outcome {
                Outcome::Ran => r.summary(),
                o => format!("NOT RUN: {o:?}"),
            };
            drop(r);
            measure(|| passes::run(pass, f, &a, &opts))
        }
        other => panic!("unknown stage {other}"),
    };
    println!("RESULT {} {} {}", time.as_secs_f64(), peak, note);
}

/// LCM's steps 3–6 with nothing but `Vec<u64>`: the reference for the predicates' cost.
struct Bare {
    w: usize,
    nb: usize,
    entry: Option<usize>,
    succs: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
    rpo: Vec<usize>,
    reaches_exit: Vec<bool>,
    ncomp: Vec<u64>,
    xcomp: Vec<u64>,
    transp: Vec<u64>,
    full: Vec<u64>,
}

/// The predicates the bare sweep computes, `nb * w` words each.
struct BareOut {
    sets: Vec<(Pred, Vec<u64>)>,
}

impl Bare {
    fn new(p: &lcm::Prepared) -> Bare {
        let g = &p.graph;
        let nb = g.num_blocks();
        let w = p.n_exprs.div_ceil(64).max(1);
        let flat = |sets: &optlab_core::entity::EntityVec<optlab_core::BlockId, optlab_core::entity::EntitySet<ExprId>>| {
            let mut v = vec![0u64; nb * w];
            for (b, s) in sets.iter() {
                for e in s.iter() {
                    let e = e.0 as usize;
                    v[b.0 as usize * w + e / 64] |= 1 << (e % 64);
                }
            }
            v
        };
        let mut full = vec![!0u64; w];
        if p.n_exprs % 64 != 0 {
            full[w - 1] = (1u64 << (p.n_exprs % 64)) - 1;
        }
        if p.n_exprs == 0 {
            full[0] = 0;
        }
        Bare {
            w,
            nb,
            entry: g.entry.map(|b| b.0 as usize),
            succs: g.succs.values().map(|s| s.iter().map(|b| b.0 as usize).collect()).collect(),
            preds: g.preds.values().map(|s| s.iter().map(|b| b.0 as usize).collect()).collect(),
            rpo: g.rpo.iter().map(|b| b.0 as usize).collect(),
            reaches_exit: (0..nb).map(|b| g.reaches_exit.contains(optlab_core::BlockId(b as u32))).collect(),
            ncomp: flat(&p.local.ncomp),
            xcomp: flat(&p.local.xcomp),
            transp: flat(&p.local.transp),
            full,
        }
    }

    fn sweep(&self, rounds: [usize; 3]) -> BareOut {
        let (w, nb) = (self.w, self.nb);
        let zero = || vec![0u64; nb * w];
        let start = |v: &mut Vec<u64>| {
            for &b in &self.rpo {
                v[b * w..b * w + w].copy_from_slice(&self.full);
            }
        };
        let (mut nd, mut xd, mut nu, mut xu) = (zero(), zero(), zero(), zero());
        for v in [&mut nd, &mut xd, &mut nu, &mut xu] {
            start(v);
        }
        let (nc, xc, tr) = (&self.ncomp, &self.xcomp, &self.transp);
        // Down-safety, postorder.
        for _ in 0..rounds[0] {
            for &b in self.rpo.iter().rev() {
                for k in 0..w {
                    let i = b * w + k;
                    let mut through = 0;
                    if self.reaches_exit[b] && !self.succs[b].is_empty() {
                        through = !0;
                        for &s in &self.succs[b] {
                            through &= nd[s * w + k];
                        }
                    }
                    xd[i] = xc[i] | through;
                    nd[i] = nc[i] | (tr[i] & xd[i]);
                }
            }
        }
        // Up-safety, reverse postorder.
        for _ in 0..rounds[1] {
            for &b in &self.rpo {
                for k in 0..w {
                    let i = b * w + k;
                    let n = if Some(b) == self.entry {
                        0
                    } else if self.preds[b].is_empty() {
                        self.full[k]
                    } else {
                        self.preds[b].iter().fold(!0, |acc, &p| acc & xu[p * w + k])
                    };
                    nu[i] = n;
                    xu[i] = xc[i] | (tr[i] & (nc[i] | n));
                }
            }
        }
        // Earliest.
        let (mut ne, mut xe) = (zero(), zero());
        for &b in &self.rpo {
            for k in 0..w {
                let i = b * w + k;
                let from_pred = if Some(b) == self.entry {
                    self.full[k]
                } else {
                    self.preds[b].iter().fold(0, |acc, &p| acc | !(xu[p * w + k] | xd[p * w + k]))
                };
                ne[i] = nd[i] & from_pred & self.full[k];
                xe[i] = xd[i] & ((!tr[i] | (!nd[i] & !nu[i])) & self.full[k]);
            }
        }
        // Delayed, reverse postorder.
        let (mut ndl, mut xdl) = (zero(), zero());
        start(&mut ndl);
        start(&mut xdl);
        for _ in 0..rounds[2] {
            for &b in &self.rpo {
                for k in 0..w {
                    let i = b * w + k;
                    let via = if Some(b) == self.entry {
                        0
                    } else if self.preds[b].is_empty() {
                        self.full[k]
                    } else {
                        self.preds[b].iter().fold(!0, |acc, &p| acc & xdl[p * w + k] & !xc[p * w + k])
                    };
                    ndl[i] = ne[i] | (via & self.full[k]);
                    xdl[i] = xe[i] | (ndl[i] & !nc[i]);
                }
            }
        }
        // Latest.
        let (mut nl, mut xl) = (zero(), zero());
        for &b in &self.rpo {
            for k in 0..w {
                let i = b * w + k;
                nl[i] = ndl[i] & (nc[i] | !xdl[i]);
                let stop = self.succs[b].iter().fold(xc[i], |acc, &s| acc | !ndl[s * w + k]);
                xl[i] = xdl[i] & stop & self.full[k];
            }
        }
        use Pred::*;
        BareOut {
            sets: vec![
                (NdSafe, nd),
                (XdSafe, xd),
                (NuSafe, nu),
                (XuSafe, xu),
                (NEarliest, ne),
                (XEarliest, xe),
                (NDelayed, ndl),
                (XDelayed, xdl),
                (NLatest, nl),
                (XLatest, xl),
            ],
        }
    }
}

impl BareOut {
    fn same_as(&self, preds: &Predicates, p: &lcm::Prepared) -> bool {
        let w = p.n_exprs.div_ceil(64).max(1);
        self.sets.iter().all(|(pred, words)| {
            preds.get(*pred).iter().all(|(b, set)| {
                (0..p.n_exprs).all(|e| {
                    let bit = words[b.0 as usize * w + e / 64] >> (e % 64) & 1 == 1;
                    bit == set.contains(ExprId(e as u32))
                })
            })
        })
    }
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).and_then(|k| args.get(k + 1).cloned())
}

fn human_bytes(b: usize) -> String {
    let b = b as f64;
    if b >= 1024.0 * 1024.0 * 1024.0 {
        format!("{:.2} GiB", b / 1024.0 / 1024.0 / 1024.0)
    } else if b >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", b / 1024.0 / 1024.0)
    } else {
        format!("{:.0} KiB", b / 1024.0)
    }
}

fn human_time(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.0} µs", s * 1e6)
    }
}

enum Cell {
    Done { secs: f64, bytes: usize, note: String },
    Failed(String),
}

fn slope(xs: &[(usize, f64)]) -> Option<f64> {
    let (first, last) = (xs.first()?, xs.last()?);
    if xs.len() < 2 || first.1 <= 0.0 || last.1 <= 0.0 {
        return None;
    }
    Some((last.1 / first.1).ln() / (last.0 as f64 / first.0 as f64).ln())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(cap) = arg(&args, "--cap-gib").and_then(|c| c.parse::<f64>().ok()) {
        CAP.store((cap * 1024.0 * 1024.0 * 1024.0) as usize, Ordering::Relaxed);
    } else {
        CAP.store(4 << 30, Ordering::Relaxed);
    }
    COLD.store(args.iter().any(|a| a == "--cold"), Ordering::Relaxed);
    // The generated programs, to run the CLI on what the stages measure.
    for (flag, program) in [
        ("--print-ossa", ossa_program as fn(usize, u64) -> String),
        ("--print-bril", scale::bril_program),
        ("--print-sil", scale::sil_program),
    ] {
        if let Some(n) = arg(&args, flag) {
            print!("{}", program(n.parse().unwrap_or_else(|_| panic!("{flag} N")), SEED));
            return;
        }
    }
    if let (Some(stage), Some(n)) = (arg(&args, "--stage"), arg(&args, "--size")) {
        run_stage(&stage, n.parse().expect("--size N"));
        return;
    }
    let sizes: Vec<usize> = arg(&args, "--sizes")
        .map(|s| s.split(',').map(|x| x.trim().parse().expect("--sizes N,N,…")).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    let stages: Vec<String> = arg(&args, "--stages")
        .map(|s| s.split(',').map(str::to_string).collect())
        .unwrap_or_else(|| STAGES.iter().map(|s| s.to_string()).collect());
    let timeout = Duration::from_secs(arg(&args, "--timeout").and_then(|t| t.parse().ok()).unwrap_or(120));
    let cap = arg(&args, "--cap-gib").unwrap_or_else(|| "4".into());
    let exe = std::env::current_exe().expect("own path");

    let caches = if COLD.load(Ordering::Relaxed) { "caches evicted before each run" } else { "warm caches" };
    println!("scaling benchmark: sizes {sizes:?} blocks, seed {SEED}, cap {cap} GiB, timeout {} s, {caches}", timeout.as_secs());
    let mut rows = Vec::new();
    for stage in &stages {
        let mut cells = Vec::new();
        for &n in &sizes {
            let mut child = Command::new(&exe)
                .args(["--stage", stage, "--size", &n.to_string(), "--cap-gib", &cap])
                .args(COLD.load(Ordering::Relaxed).then_some("--cold"))
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("re-run self");
            let start = Instant::now();
            let status = loop {
                if let Some(s) = child.try_wait().expect("wait") {
                    break Some(s);
                }
                if start.elapsed() > timeout {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                std::thread::sleep(Duration::from_millis(20));
            };
            let out = child.wait_with_output().map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
            let cell = match (status, out.lines().find_map(|l| l.strip_prefix("RESULT "))) {
                (None, _) => Cell::Failed(format!("> {} s", timeout.as_secs())),
                (Some(s), Some(line)) if s.success() => {
                    let mut it = line.splitn(3, ' ');
                    let secs = it.next().and_then(|x| x.parse().ok()).unwrap_or(f64::NAN);
                    let bytes = it.next().and_then(|x| x.parse().ok()).unwrap_or(0);
                    Cell::Done { secs, bytes, note: it.next().unwrap_or("").to_string() }
                }
                (Some(_), _) => Cell::Failed(format!("aborted (out of memory at the {cap} GiB cap, or a panic)")),
            };
            match &cell {
                Cell::Done { secs, bytes, note } => {
                    println!("  {stage:<16} {n:>7} blocks: {:>9} {:>10}  {note}", human_time(*secs), human_bytes(*bytes))
                }
                Cell::Failed(why) => println!("  {stage:<16} {n:>7} blocks: {why}"),
            }
            cells.push((n, cell));
        }
        rows.push((stage.clone(), cells));
    }

    println!();
    print!("| stage |");
    for n in &sizes {
        print!(" {n} blocks |");
    }
    println!(" time exponent | memory exponent |");
    print!("|---|");
    for _ in &sizes {
        print!("---:|");
    }
    println!("---:|---:|");
    // Issue 17's goals, checked on this table (the reference sweep is not a stage).
    let mut over = Vec::new();
    let (mut slowest, mut largest) = ((String::new(), 0.0f64), (String::new(), 0usize));
    let biggest = sizes.iter().copied().max().unwrap_or(0);
    for (stage, cells) in &rows {
        print!("| {stage} |");
        let mut ts = Vec::new();
        let mut ms = Vec::new();
        for (n, c) in cells {
            match c {
                Cell::Done { secs, bytes, .. } => {
                    print!(" {} / {} |", human_time(*secs), human_bytes(*bytes));
                    ts.push((*n, *secs));
                    ms.push((*n, *bytes as f64));
                }
                Cell::Failed(why) => print!(" {why} |"),
            }
        }
        let all = ts.len() == cells.len();
        let fmt = |s: Option<f64>| s.filter(|_| all).map_or("—".to_string(), |s| format!("{s:.2}"));
        println!(" {} | {} |", fmt(slope(&ts)), fmt(slope(&ms)));
        if stage != "lcm-bare" {
            match slope(&ts).filter(|_| all) {
                Some(e) if e > 1.2 => over.push(format!("{stage} {e:.2}")),
                None if !all => over.push(format!("{stage} (not measured)")),
                _ => {}
            }
            for (n, c) in cells {
                if let (true, Cell::Done { secs, bytes, .. }) = (*n == biggest, c) {
                    if *secs > slowest.1 {
                        slowest = (stage.clone(), *secs);
                    }
                    if *bytes > largest.1 {
                        largest = (stage.clone(), *bytes);
                    }
                }
            }
        }
    }
    println!(
        "goals: time exponents over 1.2: {}; at {biggest} blocks the slowest stage is {} ({}), the largest {} ({})",
        if over.is_empty() { "none".to_string() } else { over.join(", ") },
        slowest.0,
        human_time(slowest.1),
        largest.0,
        human_bytes(largest.1)
    );
    // LCM predicates against the bare sweep.
    let time_of = |name: &str, n: usize| {
        rows.iter().find(|(s, _)| s == name).and_then(|(_, cells)| {
            cells.iter().find(|(m, _)| *m == n).and_then(|(_, c)| match c {
                Cell::Done { secs, .. } => Some(*secs),
                Cell::Failed(_) => None,
            })
        })
    };
    for &n in &sizes {
        if let (Some(p), Some(b)) = (time_of("lcm-predicates", n), time_of("lcm-bare", n)) {
            println!("LCM predicates / bare sweep at {n} blocks: {:.1}×", p / b);
        }
    }
}
