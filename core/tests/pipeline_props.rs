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
//! 3. **The default pipeline lowers the total**: over all generated programs and inputs,
//!    `lcm,copyprop,dce` executes fewer instructions than the originals, and every program on
//!    which it executes more owes it to one of the two costs of LCM that are no evaluations
//!    (see [`the_default_pipeline_lowers_the_total_and_grows_only_by_lcms_known_costs`]). On
//!    the Bril benchmarks it never raises any program's count (`tests/quality_report.rs`).

use optlab_core::interp::{bril, RunConfig};
use optlab_core::ir::{BrilOp, Module, Op};
use optlab_core::passes::pipeline::{self, Pipeline};
use optlab_core::passes::copyprop;
use optlab_core::passes::lcm::{Edit, Step};
use optlab_core::passes::{Detail, Options, Outcome, REGISTRY};
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

/// The registered passes that run on Bril (the programs here are Bril).
fn slugs() -> Vec<&'static str> {
    REGISTRY.iter().filter(|p| p.info().accepts(optlab_core::ir::Lang::Bril)).map(|p| p.info().slug).collect()
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
        let opts = Options { commute, ..Options::default() };
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

/// Why the default pipeline ran more instructions on one generated program: what LCM left in
/// the result that is not an evaluation of a moved expression.
fn growth_reasons(runs: &[pipeline::PipelineRun]) -> Vec<String> {
    let (mut split_blocks, mut copies, mut beside) = (0, 0, 0);
    for r in runs {
        let Some(Detail::Lcm { out: o, .. }) = r.stages.first().map(|s| &s.detail) else { continue };
        let out = r.function_at(usize::MAX);
        // Temporaries some of whose copies were recomputed, yet still computed at the end.
        if let Some(Detail::CopyProp(c)) = r.stages.get(1).map(|s| &s.detail) {
            let mut temps: Vec<&str> = Vec::new();
            for e in &c.trace.events {
                if let copyprop::Event::Rematerialize { from, .. } = e {
                    let t = c.function.value_name(*from);
                    if !temps.contains(&t) && o.trace.steps.iter().any(|s| matches!(s, Step::Transform { temps, .. } if temps.iter().any(|x| x.name == t))) {
                        temps.push(t);
                    }
                }
            }
            let assigned = |t: &str| out.placed_insts().any(|(_, i)| out.insts[i].results.iter().any(|&v| out.value_name(v) == t));
            beside += temps.into_iter().filter(|t| assigned(t)).count();
        }
        for step in &o.trace.steps {
            match step {
                Step::SplitEdges { splits } => {
                    let unsplit = |b| {
                        o.trace.steps.iter().any(|s| matches!(s, Step::Transform { edits, .. } if edits.iter().any(|e| matches!(e, Edit::Unsplit { block, .. } if *block == b))))
                    };
                    let names = splits.edges.iter().filter(|e| !unsplit(e.block)).map(|e| o.split.blocks[e.block].name.as_str());
                    split_blocks += names.filter(|n| out.block_by_name(n).is_some()).count();
                }
                Step::Transform { temps, .. } => {
                    for (_, i) in out.placed_insts() {
                        let inst = &out.insts[i];
                        let reads_temp = inst.args.first().is_some_and(|&a| temps.iter().any(|t| t.name == out.value_name(a)));
                        if inst.op == Op::Bril(BrilOp::Id) && inst.args.len() == 1 && reads_temp {
                            copies += 1;
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut reasons = Vec::new();
    if split_blocks > 0 {
        reasons.push(format!("{split_blocks} block(s) LCM put on a critical edge, each with its jmp"));
    }
    if beside > 0 {
        reasons.push(format!("{beside} LCM temporary(ies) still computed beside the copies recomputed from them, because copy propagation made other uses read the temporary"));
    }
    if copies > 0 {
        reasons.push(format!("{copies} copy(ies) of an LCM temporary that copy propagation could neither remove nor recompute"));
    }
    reasons
}

/// What can be promised about the default pipeline on arbitrary programs, and is checked:
/// behaviour is kept (by `check`), copy propagation and DCE alone never raise the count
/// ([`dce_and_copyprop_alone_never_raise_the_count`]), and the pipeline's total over all
/// generated programs and inputs is below the originals'.
///
/// Not promised, so only printed: that no single program runs more instructions. Lazy Code
/// Motion (Knoop, Rüthing, Steffen) is optimal in *evaluations*: on no path does a moved
/// expression run more often. Its transformation adds two kinds of instructions that are no
/// evaluations, and their cost depends on which paths run:
///
/// - **the jump of a block on a split critical edge.** When the latest placement of `t = e`
///   is on an edge from a branch to a join, the block created there keeps its `jmp`. A path
///   through that edge evaluates `e` there instead of at the occurrence LCM deleted further
///   down, and also runs the `jmp`: one instruction more on that path, repaid only by the
///   evaluations saved on the paths where `e` was redundant. Whether the program gains or
///   loses is a question of how often each path runs, which no placement decided from the
///   program text alone can settle (that takes edge profiles: speculative PRE with
///   frequencies, e.g. Cai and Xue's min-cut formulation).
/// - **a copy `d = id t` that stays.** Copy propagation removes it where `d` can read `t`,
///   and otherwise rematerialises it as `d = e` where `t` holds `e` on every path; where
///   neither applies (`t` holds different expressions on different paths, or an operand of
///   `e` is read through another copy), the copy runs in place of the deleted evaluation
///   and costs what the evaluation saved elsewhere. Where the copy was rematerialised but
///   copy propagation had already made later uses of `d` read `t`, `t` stays live and both
///   `t = e` and `d = e` run: the same cost as the copy, the same loss. (Making those uses
///   read `d` again would let DCE delete `t = e`; copy propagation does not do it yet.)
///
/// The test lists every program that grows with these reasons, and fails if one grows for
/// any other reason: then the growth is not LCM's known trade-off but a bug.
#[test]
fn the_default_pipeline_lowers_the_total_and_grows_only_by_lcms_known_costs() {
    let p = Pipeline::default_pipeline();
    assert_eq!(p.to_string(), pipeline::DEFAULT);
    let configs = [
        (0..800u64, no_traps()),
        (70_000..70_150, GenConfig { statements: 30, max_depth: 4, int_vars: 3, ..no_traps() }),
    ];
    let (mut grew, mut unexplained) = (Vec::new(), Vec::new());
    let (mut programs, mut runs, mut before, mut after) = (0, 0, 0, 0);
    for (seeds, cfg) in configs {
        for seed in seeds {
            let stats = check(&p, &Options::default(), &cfg, seed..seed + 1);
            if let Some((seed, input, b, a)) = stats.worst_growth {
                let g = testgen::generate(seed, &cfg);
                let (_, r) = p.run_module(&g.module, &Options::default());
                let reasons = growth_reasons(&r);
                let line = format!("generated program {seed} (statements {}), input {input}: {b} → {a}; {}", cfg.statements, reasons.join("; "));
                if reasons.is_empty() {
                    unexplained.push(format!("{line}\n{}", g.text));
                }
                grew.push(line);
            }
            programs += stats.programs;
            runs += stats.runs;
            before += stats.dyn_before;
            after += stats.dyn_after;
        }
    }
    eprintln!("default pipeline: {before} → {after} dynamic instructions over {runs} runs of {programs} programs");
    eprintln!("{} programs run more instructions:\n{}", grew.len(), grew.join("\n"));
    assert!(after < before, "the default pipeline did not lower the total: {before} → {after}");
    assert!(unexplained.is_empty(), "the default pipeline raised the count for no known reason on {} programs:\n{}", unexplained.len(), unexplained.join("\n"));
}
