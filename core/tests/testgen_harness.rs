//! The safety net tested on itself: random programs terminate, the identity transformation
//! passes the differential harness, and wrong transformations are caught.

use optlab_core::interp::{bril, ErrorKind, RunConfig};
use optlab_core::ir::{BrilOp, Module, Op};
use optlab_core::testgen::{self, generate, GenConfig};
use optlab_core::{parse_module, Lang};
use std::time::Instant;

const PROGRAMS: u64 = 10_000;

#[test]
fn ten_thousand_programs_terminate_and_the_identity_passes() {
    let cfg = GenConfig::default();
    let start = Instant::now();
    let (mut insts, mut runs, mut dyn_total, mut div_errors, mut max_dyn) = (0usize, 0usize, 0u64, 0usize, 0u64);
    for seed in 0..PROGRAMS {
        let g = generate(seed, &cfg);
        insts += g.module.functions.iter().map(|f| f.placed_insts().count()).sum::<usize>();
        for input in &g.inputs {
            let r = bril::run(&g.module, &RunConfig::with_args(input.iter().cloned()));
            runs += 1;
            dyn_total += r.dyn_inst;
            max_dyn = max_dyn.max(r.dyn_inst);
            match r.error.as_ref().map(|e| &e.kind) {
                None => {}
                // Unguarded divisions may trap; that is by design.
                Some(ErrorKind::DivisionByZero) => div_errors += 1,
                Some(other) => panic!("seed {seed}, input {input:?}: {other}\n{}", g.text),
            }
        }
        if let Err(m) = testgen::differential(&g.module, &g.module.clone(), &g.inputs) {
            panic!("seed {seed}: the identity transformation was rejected: {m}\n{}", g.text);
        }
    }
    println!(
        "testgen: {PROGRAMS} programs ({:.0} instructions each on average), {runs} runs, {:.0} dynamic \
         instructions per run on average (max {max_dyn}), {div_errors} runs ended in division by zero; {:.2}s",
        insts as f64 / PROGRAMS as f64,
        dyn_total as f64 / runs as f64,
        start.elapsed().as_secs_f64()
    );
    assert!(div_errors > 0 && div_errors < runs / 10, "{div_errors} division errors in {runs} runs");
}

#[test]
fn check_pass_accepts_the_identity_and_counts_work() {
    let stats = testgen::check_pass(0..300, |m| m.clone()).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(stats.programs, 300);
    assert_eq!(stats.dyn_before, stats.dyn_after);
    assert!(stats.never_grew());
}

/// Replaces the first `add` of `main` (or every one) by `sub`.
fn add_to_sub(m: &Module, every: bool) -> Module {
    let mut m = m.clone();
    let f = &mut m.functions[0];
    let adds: Vec<_> = f.placed_insts().map(|(_, i)| i).filter(|&i| f.insts[i].op == Op::Bril(BrilOp::Add)).collect();
    for i in adds.into_iter().take(if every { usize::MAX } else { 1 }) {
        f.insts[i].op = Op::Bril(BrilOp::Sub);
    }
    m
}

#[test]
fn a_wrong_transformation_is_caught_with_its_seed_and_program() {
    let fail = testgen::check_pass(0..500, |m| add_to_sub(m, false)).expect_err("swapping add for sub must be caught");
    let msg = fail.to_string();
    assert!(msg.starts_with(&format!("seed {}:", fail.seed)), "{msg}");
    assert!(msg.contains(&fail.text), "the message shows the original program");
    assert!(fail.text.contains("add"));

    // Per program: the first `add` is often dead by design (a temporary never read, a branch
    // not taken, a loop that runs zero times), so only swapping every `add` is nearly always
    // observable.
    let (mut with_add, mut first, mut every) = (0, 0, 0);
    for seed in 0..500 {
        let g = generate(seed, &GenConfig::default());
        if !g.text.contains(" add ") {
            continue;
        }
        with_add += 1;
        first += usize::from(testgen::differential(&g.module, &add_to_sub(&g.module, false), &g.inputs).is_err());
        every += usize::from(testgen::differential(&g.module, &add_to_sub(&g.module, true), &g.inputs).is_err());
    }
    println!("add→sub caught in {first} (first add) and {every} (every add) of {with_add} programs");
    assert!(first * 3 > with_add, "first add: only {first} of {with_add} caught");
    assert!(every * 10 > with_add * 8, "every add: only {every} of {with_add} caught");
}

#[test]
fn dropping_a_print_or_making_a_loop_longer_is_caught() {
    let drop_print = |m: &Module| {
        let mut m = m.clone();
        let f = &mut m.functions[0];
        let b = *f.layout.last().expect("main has blocks");
        let block = &mut f.blocks[b];
        if let Some(pos) = block.insts.iter().rposition(|&i| f.insts[i].op == Op::Bril(BrilOp::Print)) {
            block.insts.remove(pos);
        }
        m
    };
    assert!(testgen::check_pass(0..50, drop_print).is_err());

    // A nop inserted at the entry changes no output, but the count grows by one per run.
    let add_nop = |m: &Module| {
        let mut m = m.clone();
        let f = &mut m.functions[0];
        let nop = f.add_inst(optlab_core::Inst::new(Op::Bril(BrilOp::Nop)));
        let entry = f.layout[0];
        f.blocks[entry].insts.insert(0, nop);
        m
    };
    let stats = testgen::check_pass(0..50, add_nop).unwrap_or_else(|f| panic!("{f}"));
    assert!(!stats.never_grew());
    assert_eq!(stats.dyn_after, stats.dyn_before + stats.runs as u64);
}

#[test]
fn generation_is_deterministic() {
    for seed in [0, 1, 42, 9999] {
        let (a, b) = (generate(seed, &GenConfig::default()), generate(seed, &GenConfig::default()));
        assert_eq!(a.text, b.text);
        assert_eq!(a.inputs, b.inputs);
        assert_eq!(a.module, b.module);
    }
    assert_ne!(generate(1, &GenConfig::default()).text, generate(2, &GenConfig::default()).text);
}

/// The text of a generated program parses (with the real parser) to a program that behaves
/// identically to the module built directly.
#[test]
fn generated_text_parses_to_an_equivalent_program() {
    let mut structurally_equal = 0;
    for seed in 0..300 {
        let g = generate(seed, &GenConfig::default());
        let parsed = match parse_module(Lang::Bril, "gen.bril", &g.text) {
            Ok(m) => m,
            Err(d) => panic!("seed {seed}: generated text does not parse:\n{}\n{}", d.render(&g.module.source), g.text),
        };
        if parsed == g.module {
            structurally_equal += 1;
        }
        if let Err(m) = testgen::differential(&g.module, &parsed, &g.inputs) {
            panic!("seed {seed}: parsed text behaves differently: {m}\n{}", g.text);
        }
    }
    println!("{structurally_equal}/300 parsed programs are structurally equal to the built ones");
}
