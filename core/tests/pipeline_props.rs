//! Properties of pipelines of registered passes on random programs (`testgen::generate`:
//! loops, branches, guarded and unguarded divisions, helpers), checked with `testgen`'s
//! differential harness (same output, same return value, same error on every input):
//!
//! 1. **Any pipeline keeps behaviour**: proptest draws sequences of 1–5 registered passes,
//!    repeats allowed, and the programs they run on. A pass that refuses or fails on a valid
//!    Bril program is a failure too. Programs come without unguarded divisions for the strict
//!    harness: DCE removes a dead division that would trap (as Swift's and LLVM's DCE do),
//!    which turns a failing run into one that goes on. Programs with unguarded divisions are
//!    checked by the rule that allows exactly that: a run that did not fail runs the same,
//!    and a run that failed prints at least what it printed before failing.
//! 2. **Passes that only delete never add work**: DCE and copy propagation alone never raise
//!    the dynamic instruction count, so neither does any pipeline made of them only. LCM
//!    alone may: it leaves a copy `d = id t` for each computation it removes.
//! 3. **The default pipeline never adds work**: `lcm,copyprop,dce` executes no more
//!    instructions than the original on any input.

use optlab_core::interp::{bril, RunConfig};
use optlab_core::ir::Module;
use optlab_core::passes::pipeline::{self, Pipeline};
use optlab_core::passes::{Options, Outcome, REGISTRY};
use optlab_core::print::{print_module, Naming};
use optlab_core::testgen::{self, GenConfig, PassStats};
use proptest::prelude::*;
use proptest::sample::select;

/// The passes that never raise the dynamic count on their own (checked below, pass by pass).
const NEVER_ADD: &[&str] = &["dce", "copyprop"];

/// Runs `p` on `m`; a refusal or a failure on a generated (valid Bril) program is a bug.
fn apply(p: &Pipeline, opts: &Options, m: &Module) -> Module {
    let (out, runs) = p.run_module(m, opts);
    for r in &runs {
        for s in &r.stages {
            if s.outcome != Outcome::Ran {
                panic!("{p}: {} on @{}: {:?}\n{}", s.pass.title, r.input.name, s.outcome, print_module(m, Naming::User));
            }
        }
    }
    out
}

fn check(p: &Pipeline, opts: &Options, cfg: &GenConfig, seeds: std::ops::Range<u64>) -> PassStats {
    testgen::check_pass_with(cfg, seeds, |m| apply(p, opts, m)).unwrap_or_else(|fail| panic!("pipeline {p}: {fail}"))
}

/// Programs without unguarded divisions: the strict harness applies.
fn no_traps() -> GenConfig {
    GenConfig { unguarded_div_percent: 0, ..GenConfig::default() }
}

/// Programs where three divisions in ten may trap, checked by the dead-trap rule (module
/// comment): a run that ended normally must stay the same, and one that trapped must keep
/// what it printed, with the harness's budget so a pipeline cannot make a run spin.
fn check_dead_traps(p: &Pipeline, opts: &Options, seeds: std::ops::Range<u64>) -> Result<(), String> {
    let cfg = GenConfig { unguarded_div_percent: 30, ..GenConfig::default() };
    for seed in seeds {
        let g = testgen::generate(seed, &cfg);
        let out = apply(p, opts, &g.module);
        for input in &g.inputs {
            let rc = RunConfig::with_args(input.clone());
            let before = bril::run(&g.module, &rc);
            if before.error.as_ref().is_some_and(|e| e.kind.is_limit()) {
                continue;
            }
            let budget = before.dyn_inst.saturating_mul(4).saturating_add(100_000);
            let after = bril::run(&out, &RunConfig { step_limit: budget, ..rc });
            let same = match &before.error {
                None => after.error.is_none() && after.stdout == before.stdout && after.returned == before.returned,
                Some(_) => after.stdout.starts_with(&before.stdout) && !after.error.as_ref().is_some_and(|e| e.kind.is_limit()),
            };
            if !same {
                return Err(format!(
                    "pipeline {p}, seed {seed}, input {input:?}: before {:?} printing {:?}; after {:?} printing {:?}\n{}\n--- after:\n{}",
                    before.error,
                    before.stdout,
                    after.error,
                    after.stdout,
                    g.text,
                    print_module(&out, Naming::User)
                ));
            }
        }
    }
    Ok(())
}

fn slugs() -> Vec<&'static str> {
    REGISTRY.iter().map(|p| p.info().slug).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_pipelines_keep_behaviour(
        passes in prop::collection::vec(select(slugs()), 1..=5),
        first_seed in 0u64..1_000_000,
        commute in any::<bool>(),
    ) {
        let p = Pipeline::parse(&passes.join(",")).map_err(TestCaseError::fail)?;
        let opts = Options { commute };
        let stats = check(&p, &opts, &no_traps(), first_seed..first_seed + 6);
        prop_assert_eq!(stats.programs, 6);
        check_dead_traps(&p, &opts, first_seed..first_seed + 3).map_err(TestCaseError::fail)?;
        if passes.iter().all(|s| NEVER_ADD.contains(s)) {
            prop_assert!(stats.never_grew(), "pipeline {} raised the count: (seed, input, before, after) = {:?}", p, stats.worst_growth);
        }
    }
}

#[test]
fn dce_and_copyprop_alone_never_raise_the_count() {
    for slug in NEVER_ADD {
        let p = Pipeline::parse(slug).unwrap_or_else(|e| panic!("{e}"));
        let stats = check(&p, &Options::default(), &no_traps(), 0..600);
        assert!(stats.never_grew(), "{slug} raised the count: (seed, input, before, after) = {:?}", stats.worst_growth);
        assert!(stats.dyn_after < stats.dyn_before, "{slug} removed nothing on 600 programs");
    }
}

#[test]
fn the_default_pipeline_never_raises_the_count() {
    let p = Pipeline::default_pipeline();
    assert_eq!(p.to_string(), pipeline::DEFAULT);
    let configs = [
        (0..800u64, no_traps()),
        (70_000..70_150, GenConfig { statements: 30, max_depth: 4, int_vars: 3, ..no_traps() }),
    ];
    // Every program on which it grew, so a failure shows how common it is, not only one.
    let mut grew = Vec::new();
    let (mut runs, mut before, mut after) = (0, 0, 0);
    for (seeds, cfg) in configs {
        for seed in seeds {
            let stats = check(&p, &Options::default(), &cfg, seed..seed + 1);
            if let Some((seed, input, b, a)) = stats.worst_growth {
                grew.push(format!("seed {seed} (statements {}), input {input}: {b} → {a}", cfg.statements));
            }
            runs += stats.runs;
            before += stats.dyn_before;
            after += stats.dyn_after;
        }
    }
    eprintln!("default pipeline: {before} → {after} dynamic instructions over {runs} runs");
    assert!(grew.is_empty(), "the default pipeline raised the count on {} programs:\n{}", grew.len(), grew.join("\n"));
}

