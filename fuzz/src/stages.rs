//! Every stage of optlab-core on one input, through the public API only — what the CLI and
//! the web app call: both parsers, error rendering, printing (both namings) and re-parsing,
//! verification, the shared analyses (CFG, dominators, post-dominators, frontiers, CDG, with
//! their step lists), every registered pass through `passes::run`, the default pipeline and
//! the interpreter with a step limit; on SIL also the file's declarations, the type
//! classification of every function (with a what-if on its generic parameters) and the
//! ownership analysis and verifier.

use crate::alloc::STAGE;
use optlab_core::dom::{lt_steps, DomKind};
use optlab_core::interp::{self, RunConfig};
use optlab_core::passes::pipeline::Pipeline;
use optlab_core::passes::{self, Analyses, Options, Outcome};
use optlab_core::print::{print_module, Naming};
use optlab_core::{parse_module, Lang, Module, SourceFile};
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// Stage names, for reports (the allocator's message indexes into this).
pub const STAGES: &[&str] = &[
    "idle",
    "parse",
    "render diagnostics",
    "print",
    "re-parse printed",
    "verify",
    "analyses",
    "dominator steps",
    "pass",
    "pipeline",
    "interpreter",
    "types",
    "ownership",
];

/// What one input did, apart from panicking or aborting.
#[derive(Default)]
pub struct Outcomes {
    /// The slowest stage and its time.
    pub slowest: (Duration, &'static str),
    /// `Outcome::Failed` of a pass (an internal error the pass caught itself): a bug, but
    /// not a crash.
    pub pass_failures: Vec<String>,
    /// Functions that parsed and verified, so reached the analyses and passes.
    pub analysed: usize,
}

struct Clock {
    out: Outcomes,
    t: Instant,
    stage: usize,
}

impl Clock {
    fn enter(&mut self, stage: usize) {
        self.leave();
        self.stage = stage;
        STAGE.store(stage, Relaxed);
        self.t = Instant::now();
    }
    fn leave(&mut self) {
        let d = self.t.elapsed();
        if d > self.out.slowest.0 {
            self.out.slowest = (d, STAGES[self.stage]);
        }
        self.t = Instant::now();
    }
}

/// Steps the interpreter may run per entry: enough for every corpus benchmark's opening,
/// small enough that an endless loop costs milliseconds.
pub const STEP_LIMIT: u64 = 200_000;
/// At most this many SIL functions are interpreted per input (each run is cheap, but a
/// mutated file can hold thousands).
const MAX_SIL_RUNS: usize = 16;

pub fn run_all(text: &str) -> Outcomes {
    selftest(text);
    let mut c = Clock { out: Outcomes::default(), t: Instant::now(), stage: 0 };
    for lang in [Lang::Bril, Lang::Sil] {
        c.enter(1);
        match parse_module(lang, "fuzz", text) {
            Err(d) => {
                c.enter(2);
                let file = SourceFile::new("fuzz", text);
                // What the web app does with them: markers at line:col, then the list.
                for e in d.iter() {
                    std::hint::black_box(file.line_col(e.span.lo));
                }
                std::hint::black_box(d.render(&file));
            }
            Ok(m) => module(&mut c, &m, text),
        }
    }
    c.enter(0);
    c.out
}

fn module(c: &mut Clock, m: &Module, text: &str) {
    for naming in [Naming::User, Naming::Renumber] {
        c.enter(3);
        let printed = print_module(m, naming);
        c.enter(4);
        // Printing must give back text that reads as the same program: a failure here is a
        // bug in a parser or printer, reported like a crash.
        if let Err(d) = parse_module(m.lang, "printed", &printed) {
            let first = d.iter().next().map_or(String::new(), |e| e.message.clone());
            panic!("printed text ({naming:?}) does not parse: {first}");
        }
    }
    let opts = Options::default();
    let env = optlab_core::sil::types::env_of(m);
    for f in m.bodies() {
        c.enter(5);
        if optlab_core::ir::verify(f).is_err() {
            continue;
        }
        c.out.analysed += 1;
        c.enter(6);
        let a = Analyses::with_types(f, env.clone());
        c.enter(11);
        let types = a.types(f);
        std::hint::black_box(optlab_core::sil::types::report::text(&m.source, std::slice::from_ref(types)));
        if let Some(sig) = optlab_core::sil::types::function::signature(f) {
            // The what-if the Types view offers: every generic parameter := Any.
            let mut assume = env.assume.clone();
            for g in &sig.generics {
                assume.subst.insert(g.name.clone(), "Any".into());
            }
            let what_if = std::sync::Arc::new(optlab_core::sil::types::TypeEnv { decls: env.decls.clone(), assume });
            std::hint::black_box(optlab_core::sil::types::FunctionTypes::new(f, what_if).rows.len());
        }
        if m.lang == Lang::Sil {
            c.enter(12);
            let own = optlab_core::sil::ownership::analyze(f, types);
            std::hint::black_box(optlab_core::sil::ownership::verify(f, &own).findings.len());
        }
        c.enter(7);
        std::hint::black_box(lt_steps(f, &a.dom_events, DomKind::Dominators));
        std::hint::black_box(lt_steps(f, &a.pdom_events, DomKind::PostDominators));
        for p in passes::REGISTRY {
            c.enter(8);
            let r = passes::run(*p, f, &a, &opts);
            if let Outcome::Failed(msg) = &r.outcome {
                c.out.pass_failures.push(format!("{}: {msg}", p.info().slug));
            }
            std::hint::black_box(r.steps.len());
        }
        c.enter(9);
        let run = Pipeline::default_pipeline().run(f, &a, &opts);
        std::hint::black_box(run.num_stages());
    }
    c.enter(10);
    let cfg = |args: Vec<String>| RunConfig { args, step_limit: STEP_LIMIT, ..RunConfig::default() };
    match m.lang {
        Lang::Bril => {
            std::hint::black_box(interp::bril::run(m, &cfg(interp::bril::args_from_source(text))));
        }
        Lang::Sil => {
            for f in m.bodies().take(MAX_SIL_RUNS) {
                std::hint::black_box(interp::sil::run(m, &f.name, &cfg(Vec::new())));
            }
        }
    }
}

/// With `OPTLAB_FUZZ_SELFTEST` set, markers in the input make the worker fail on purpose, so
/// `optlab-fuzz --selftest` can check that each kind of failure is caught and counted.
fn selftest(text: &str) {
    if std::env::var_os("OPTLAB_FUZZ_SELFTEST").is_none() {
        return;
    }
    if text.contains("FUZZ-PANIC") {
        panic!("self-test panic");
    }
    if text.contains("FUZZ-OOM") {
        let v: Vec<u8> = vec![1; 8 << 30];
        std::hint::black_box(v);
    }
    if text.contains("FUZZ-STACK") {
        fn deep(n: u64) -> u64 {
            let pad = std::hint::black_box([n; 64]);
            if n == 0 { 0 } else { deep(n - 1) + pad[3] }
        }
        std::hint::black_box(deep(u64::MAX));
    }
    if text.contains("FUZZ-SLOW") {
        std::thread::sleep(std::time::Duration::from_millis(1500));
    }
}
