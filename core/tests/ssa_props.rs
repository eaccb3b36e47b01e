//! Properties of SSA construction and of the translation out of SSA, on random programs:
//!
//! 1. **Same behaviour**: into SSA (both forms) and the round trip print, return and fail as
//!    the input on every input (`testgen`'s structured programs, and arbitrary graphs: loops
//!    into the entry, unreachable blocks, fall-through, variables undefined on some paths).
//! 2. **The φs are the definition's**: the φ set equals an independent recomputation — the
//!    dominance frontier from its definition over dominators found by path search, iterated
//!    to a fixpoint over whole sets, intersected with liveness from the dense dataflow
//!    problem.
//! 3. **SSA**: every variable is assigned once and every use is dominated by its assignment
//!    (a φ's argument at the end of its predecessor).
//! 4. **Replay**: replaying either trace on its input gives the pass's output, and every
//!    prefix verifies.

mod common;

use optlab_core::cfg::Cfg;
use optlab_core::dataflow;
use optlab_core::dom::DomTree;
use optlab_core::entity::EntitySet;
use optlab_core::interp::RunConfig;
use optlab_core::ir::{check_ssa_form, verify, BlockId, BrilOp, Function, Module, Op, ValueDef, ValueId};
use optlab_core::passes::copyprop::Liveness;
use optlab_core::passes::{out_of_ssa, ssa};
use optlab_core::print::{print_module, Naming};
use optlab_core::testgen::{self, build_module, GenConfig};
use std::collections::{BTreeSet, HashMap};

fn each(m: &Module, f: impl Fn(&Function) -> Function) -> Module {
    let mut out = m.clone();
    for g in out.functions.iter_mut().filter(|g| !g.is_declaration()) {
        *g = f(g);
    }
    out
}

fn into(m: &Module, form: ssa::Form) -> Module {
    each(m, |f| (*ssa::into_ssa(f, form).unwrap_or_else(|e| panic!("{e}")).function).clone())
}

fn back(m: &Module) -> Module {
    each(m, |f| (*out_of_ssa::out_of_ssa(f).unwrap_or_else(|e| panic!("{e}")).function).clone())
}

#[test]
fn generated_programs_keep_behaviour_into_ssa_and_back() {
    let mut phis = 0;
    let (mut before, mut after) = (0u64, 0u64);
    for (seeds, cfg) in [
        (0..800u64, GenConfig::default()),
        (60_000..60_200, GenConfig { statements: 30, max_depth: 4, int_vars: 3, ..GenConfig::default() }),
    ] {
        for form in [ssa::Form::SetGet, ssa::Form::Phi] {
            testgen::check_pass_with(&cfg, seeds.clone(), |m| {
                let s = into(m, form);
                for f in &s.functions {
                    check_ssa_form(f).unwrap_or_else(|d| panic!("not SSA: {d:?}\n{}", print_module(&s, Naming::User)));
                    phis += f.placed_insts().filter(|&(_, i)| matches!(f.insts[i].op, Op::Bril(BrilOp::Get | BrilOp::Phi))).count();
                }
                s
            })
            .unwrap_or_else(|fail| panic!("into SSA: {fail}"));
            let stats = testgen::check_pass_with(&cfg, seeds.clone(), |m| back(&into(m, form))).unwrap_or_else(|fail| panic!("round trip: {fail}"));
            before += stats.dyn_before;
            after += stats.dyn_after;
        }
    }
    eprintln!("{phis} φs; dynamic instructions: original {before}, round trip {after}");
    assert!(phis > 1000, "only {phis} φs: the generator barely exercises the construction");
}

#[test]
fn arbitrary_graphs_keep_behaviour_into_ssa_and_back() {
    let cfg = RunConfig { step_limit: 5_000, ..RunConfig::default() };
    for seed in 0..2500u64 {
        let spec = common::copy_graph(seed, seed % 3 != 0);
        let (text, m) = build_module(&format!("cfg-{seed}.bril"), std::slice::from_ref(&spec));
        let inputs: Vec<Vec<String>> = vec![vec!["0".into()], vec!["7".into()]];
        for form in [ssa::Form::SetGet, ssa::Form::Phi] {
            let s = into(&m, form);
            let rt = back(&s);
            for (what, out) in [("into SSA", &s), ("round trip", &rt)] {
                for input in &inputs {
                    let rc = RunConfig { args: input.clone(), ..cfg.clone() };
                    let (b, a) = (optlab_core::interp::bril::run(&m, &rc), optlab_core::interp::bril::run(out, &rc));
                    let show = || format!("seed {seed}, {what} ({form:?}), input {input:?}\n--- original\n{text}\n--- after\n{}", print_module(out, Naming::User));
                    let limited = b.error.as_ref().is_some_and(|e| e.kind.is_limit()) || a.error.as_ref().is_some_and(|e| e.kind.is_limit());
                    // Reading an unassigned variable is an error of the program: in SSA form a
                    // φ may carry `undef` there instead (see `passes::ssa`). Up to the error, the
                    // two print the same.
                    if b.error.as_ref().is_some_and(|e| matches!(e.kind, optlab_core::interp::ErrorKind::UndefinedVariable(_))) {
                        assert!(a.stdout.starts_with(&b.stdout), "before the undefined read: {}", show());
                        continue;
                    }
                    if limited {
                        assert!(b.stdout.starts_with(&a.stdout) || a.stdout.starts_with(&b.stdout), "endless runs differ: {}", show());
                        continue;
                    }
                    assert_eq!(a.stdout, b.stdout, "{}", show());
                    assert_eq!(a.returned, b.returned, "{}", show());
                    assert_eq!(a.error.is_some(), b.error.is_some(), "{}: {:?} vs {:?}", show(), b.error, a.error);
                }
            }
        }
    }
}

/// Dominance by definition: `a` dominates `b` when `b` cannot be reached from the entry
/// without passing `a`.
fn dominators_by_search(f: &Function, cfg: &Cfg) -> HashMap<BlockId, BTreeSet<BlockId>> {
    let reach_avoiding = |avoid: Option<BlockId>| {
        let mut seen = EntitySet::<BlockId>::new_empty(f.blocks.len());
        let mut work: Vec<BlockId> = cfg.entry().into_iter().filter(|&e| Some(e) != avoid).collect();
        while let Some(b) = work.pop() {
            if seen.insert(b) {
                work.extend(cfg.succs(b).iter().copied().filter(|&s| Some(s) != avoid));
            }
        }
        seen
    };
    let all = reach_avoiding(None);
    let mut dom: HashMap<BlockId, BTreeSet<BlockId>> = HashMap::new();
    for &a in &f.layout {
        if !all.contains(a) {
            continue;
        }
        let without = reach_avoiding(Some(a));
        for &b in &f.layout {
            if all.contains(b) && !without.contains(b) {
                dom.entry(b).or_default().insert(a);
            }
        }
    }
    dom
}

#[test]
fn the_phis_are_the_pruned_iterated_frontier_by_definition() {
    let mut compared = 0;
    for seed in 0..1500u64 {
        let spec = common::copy_graph(seed, seed % 2 == 0);
        let (text, m) = build_module(&format!("cfg-{seed}.bril"), std::slice::from_ref(&spec));
        let f = &m.functions[0];
        let out = ssa::into_ssa(f, ssa::Form::SetGet).unwrap();
        let g = &*out.start;
        let cfg = Cfg::new(g);
        let dom = dominators_by_search(g, &cfg);
        let sdom = |a: BlockId, b: BlockId| a != b && dom.get(&b).is_some_and(|d| d.contains(&a));
        // DF(x) = { y : x dominates a predecessor of y and does not strictly dominate y }.
        let df = |x: BlockId| -> BTreeSet<BlockId> {
            g.layout
                .iter()
                .copied()
                .filter(|&y| cfg.preds(y).iter().any(|&p| dom.get(&p).is_some_and(|d| d.contains(&x))) && !sdom(x, y))
                .collect()
        };
        let live = dataflow::run(&Liveness, g, &cfg);
        let mut want: BTreeSet<(ValueId, BlockId)> = BTreeSet::new();
        for (v, data) in g.values.iter() {
            if data.def != ValueDef::Var {
                continue;
            }
            let mut defs: BTreeSet<BlockId> =
                g.layout.iter().copied().filter(|&b| g.blocks[b].all_insts().any(|i| g.insts[i].results.contains(&v))).collect();
            if g.params.contains(&v) {
                defs.extend(g.entry());
            }
            // The iterated frontier as a fixpoint over whole sets: DF+(S) = DF(S ∪ DF+(S)).
            let mut idf: BTreeSet<BlockId> = BTreeSet::new();
            loop {
                let next: BTreeSet<BlockId> = defs.iter().chain(&idf).flat_map(|&x| df(x)).collect();
                if next == idf {
                    break;
                }
                idf = next;
            }
            want.extend(idf.into_iter().filter(|&y| live.ins[y].contains(v)).map(|y| (v, y)));
        }
        let got: BTreeSet<(ValueId, BlockId)> = out.trace.phis.iter().map(|p| (p.var, p.block)).collect();
        assert_eq!(got, want, "seed {seed}\n{text}");
        compared += got.len();
    }
    assert!(compared > 500, "only {compared} φs compared");
}

/// Every use of a variable assigned once is dominated by its assignment: after it in its
/// block, or in a block its block dominates; a `set`'s value and a `phi`'s argument are used
/// at the end of the predecessor. Variables assigned nowhere are reads no assignment reaches.
fn check_dominance(f: &Function) -> Result<(), String> {
    let cfg = Cfg::new(f);
    let dom = DomTree::dominators(f, &cfg);
    let mut def: HashMap<ValueId, (BlockId, usize)> = HashMap::new();
    for &p in &f.params {
        def.insert(p, (f.layout[0], 0));
    }
    for &b in &f.layout {
        for (k, i) in f.blocks[b].all_insts().enumerate() {
            for &r in &f.insts[i].results {
                def.insert(r, (b, k + 1));
            }
        }
    }
    let dominated = |v: ValueId, b: BlockId, k: usize| match def.get(&v) {
        None => true,
        Some(&(db, dk)) => !dom.contains(b) || if db == b { dk <= k } else { dom.dominates(db, b) },
    };
    for &b in &f.layout {
        let n = f.blocks[b].all_insts().count();
        for (k, i) in f.blocks[b].all_insts().enumerate() {
            let inst = &f.insts[i];
            match inst.op {
                Op::Bril(BrilOp::Set) => {
                    if !dominated(inst.args[1], b, k) {
                        return Err(format!("`set` in {b} reads {} before its assignment", f.value_in_code(inst.args[1])));
                    }
                }
                Op::Bril(BrilOp::Phi) => {
                    for (&a, s) in inst.args.iter().zip(&inst.succs) {
                        if !dominated(a, s.block, f.blocks[s.block].all_insts().count()) {
                            return Err(format!("a φ argument {} is not assigned on its edge", f.value_in_code(a)));
                        }
                    }
                }
                _ => {
                    for &a in &inst.args {
                        if !dominated(a, b, k) {
                            return Err(format!("{} is read in {b} where its assignment does not dominate", f.value_in_code(a)));
                        }
                    }
                }
            }
            let _ = n;
        }
    }
    Ok(())
}

#[test]
fn after_renaming_every_use_is_dominated_and_the_replays_are_the_outputs() {
    for seed in 0..1200u64 {
        let spec = common::copy_graph(seed, seed % 2 == 0);
        let (text, m) = build_module(&format!("cfg-{seed}.bril"), std::slice::from_ref(&spec));
        let f = &m.functions[0];
        for form in [ssa::Form::SetGet, ssa::Form::Phi] {
            let out = ssa::into_ssa(f, form).unwrap();
            check_dominance(&out.function).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
            let t = &out.trace;
            for k in 0..=t.events.len() {
                let h = ssa::replay_to(&out.start, t, k).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
                verify(&h).unwrap_or_else(|d| panic!("seed {seed}, step {k}: {d:?}"));
                if k == t.events.len() {
                    assert_eq!(h.without_spans(), out.function.without_spans(), "seed {seed}: the replay is not the output");
                }
            }
            assert_eq!(ssa::step_texts(&out.start, &out.function, t).len(), t.events.len() + 1);

            let o = out_of_ssa::out_of_ssa(&out.function).unwrap();
            for k in 0..=o.trace.events.len() {
                let h = out_of_ssa::replay_to(&out.function, &o.trace, k).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
                verify(&h).unwrap_or_else(|d| panic!("seed {seed}, out of SSA step {k}: {d:?}"));
                if k == o.trace.events.len() {
                    assert_eq!(h.without_spans(), o.function.without_spans(), "seed {seed}: the replay is not the output");
                }
            }
        }
    }
}
