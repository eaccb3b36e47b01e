//! Properties of copy propagation on random programs:
//!
//! 1. **Same behaviour, no more work**: the output prints, returns and fails exactly as the
//!    input on every input, and executes no more instructions (`testgen::check_pass`).
//! 2. **After LCM**: LCM then copy propagation also keeps behaviour, and never executes more
//!    instructions than LCM alone.
//! 3. **Replay**: replaying the trace on the input gives the output, at every prefix the
//!    function verifies, and the trace's last round is the analysis' fixpoint.
//!
//! Arbitrary graphs (loops into the entry, unreachable blocks, fall-through, endless loops)
//! come from a small generator here and run under a step limit.

mod common;

use optlab_core::cfg::Cfg;
use optlab_core::interp::RunConfig;
use optlab_core::ir::{verify, Module};
use optlab_core::passes::{copyprop, lcm};
use optlab_core::print::{print_module, Naming};
use optlab_core::testgen::{self, build_module, GenConfig};

fn cp(m: &Module) -> Module {
    copyprop::run_module(m)
        .unwrap_or_else(|e| panic!("copy propagation failed: {e}\n{}", print_module(m, Naming::User)))
        .0
}

fn lcm_only(m: &Module) -> Module {
    lcm::run_module(m, &lcm::Options::default()).unwrap_or_else(|e| panic!("LCM failed: {e}")).0
}

#[test]
fn generated_programs_keep_behaviour_and_never_execute_more() {
    let configs = [
        (0..1500u64, GenConfig::default()),
        (50_000..50_300, GenConfig { statements: 30, max_depth: 4, int_vars: 3, ..GenConfig::default() }),
    ];
    let mut rewrites = 0;
    for (seeds, cfg) in configs {
        let stats = testgen::check_pass_with(&cfg, seeds.clone(), |m| {
            let (out, outputs) = copyprop::run_module(m).unwrap_or_else(|e| panic!("{e}"));
            rewrites += outputs.iter().map(|o| o.stats.rewrites).sum::<usize>();
            out
        })
        .unwrap_or_else(|fail| panic!("{fail}"));
        assert_eq!(stats.programs, seeds.count());
        assert!(stats.never_grew(), "the count grew: {:?}", stats.worst_growth);
        assert!(stats.dyn_after <= stats.dyn_before);
    }
    assert!(rewrites > 500, "only {rewrites} rewrites: the generator barely exercises the pass");
}

#[test]
fn lcm_then_copyprop_keeps_behaviour_and_never_exceeds_lcm_alone() {
    let (mut lcm_total, mut both_total, mut orig_total) = (0u64, 0u64, 0u64);
    for seed in 0..1500u64 {
        let g = testgen::generate(seed, &GenConfig::default());
        let after_lcm = lcm_only(&g.module);
        let both = cp(&after_lcm);
        let show = || {
            format!(
                "--- original\n{}\n--- LCM\n{}\n--- LCM + copy propagation\n{}",
                g.text,
                print_module(&after_lcm, Naming::User),
                print_module(&both, Naming::User)
            )
        };
        let c_lcm = testgen::differential(&g.module, &after_lcm, &g.inputs).unwrap_or_else(|m| panic!("seed {seed}: LCM: {m}\n{}", show()));
        let c_both = testgen::differential(&g.module, &both, &g.inputs).unwrap_or_else(|m| panic!("seed {seed}: {m}\n{}", show()));
        for (k, (a, b)) in c_lcm.iter().zip(&c_both).enumerate() {
            if a.inconclusive {
                continue;
            }
            assert!(b.after <= a.after, "seed {seed}, input {k}: LCM {} → LCM + copy propagation {}\n{}", a.after, b.after, show());
            lcm_total += a.after;
            both_total += b.after;
            orig_total += a.before;
        }
    }
    eprintln!("dynamic instructions: original {orig_total}, LCM {lcm_total}, LCM + copy propagation {both_total}");
    assert!(both_total < lcm_total, "copy propagation removed nothing LCM left");
}

#[test]
fn replay_and_trace_agree_with_the_pass_at_every_step() {
    for seed in 0..400u64 {
        let g = testgen::generate(seed, &GenConfig::default());
        let after_lcm = lcm_only(&g.module);
        for m in [&g.module, &after_lcm] {
            for f in &m.functions {
                let out = copyprop::run(f, &Cfg::new(f)).unwrap();
                let t: &copyprop::Trace = &out.trace;
                for k in 0..=t.events.len() {
                    let h = copyprop::try_replay_to(f, t, k).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
                    verify(&h).unwrap_or_else(|d| panic!("seed {seed}, step {k}: {d:?}"));
                    if k == t.events.len() {
                        assert_eq!(h, *out.function, "seed {seed}: the replay is not the output");
                    }
                }
                let fix = t.avail_at_round(t.rounds.len());
                for &b in &f.layout {
                    assert_eq!(fix.ins[b.0 as usize], out.avail.facts.ins[b], "seed {seed}");
                }
                let steps = copyprop::step_texts(f, &out);
                assert_eq!(steps.len(), 1 + t.rounds.len() + t.events.len());
                assert!(steps.iter().all(|s| !s.contains('\n')));
                let json = copyprop::trace_json(t);
                assert_eq!(&serde_json::from_str::<copyprop::Trace>(&json).unwrap(), t);
            }
        }
    }
}


#[test]
fn arbitrary_graphs_keep_behaviour() {
    let cfg = RunConfig { step_limit: 5_000, ..RunConfig::default() };
    let mut changed = 0;
    for seed in 0..3000u64 {
        let spec = common::copy_graph(seed, true);
        let (text, m) = build_module(&format!("cfg-{seed}.bril"), std::slice::from_ref(&spec));
        let (out, outputs) = copyprop::run_module(&m).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        changed += usize::from(outputs[0].stats.rewrites > 0);
        let inputs: Vec<Vec<String>> = vec![vec!["0".into()], vec!["7".into()]];
        let counts = testgen::differential_entry(&m, &out, "main", &inputs, &cfg)
            .unwrap_or_else(|mm| panic!("seed {seed}: {mm}\n--- original\n{text}\n--- after\n{}", print_module(&out, Naming::User)));
        for c in counts.iter().filter(|c| !c.inconclusive) {
            assert!(c.after <= c.before, "seed {seed}: {} → {}\n{text}", c.before, c.after);
        }
        // Endless runs print the same prefix: compare what they printed up to the limit.
        for input in &inputs {
            let rc = RunConfig { args: input.clone(), ..cfg.clone() };
            let (b, a) = (optlab_core::interp::bril::run(&m, &rc), optlab_core::interp::bril::run(&out, &rc));
            if b.error.as_ref().is_some_and(|e| e.kind.is_limit()) {
                assert!(b.stdout.starts_with(&a.stdout) || a.stdout.starts_with(&b.stdout), "seed {seed}: endless runs differ\n{text}");
            }
        }
    }
    assert!(changed > 1000, "only {changed} graphs had a rewrite");
}
