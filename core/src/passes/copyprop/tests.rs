//! The tricky cases of copy propagation, each on a small hand-written program whose answer is
//! worked out in its comment.

use super::*;
use crate::cfg::Cfg;
use crate::interp::{bril, RunConfig};
use crate::ir::{BlockId, Module};
use crate::print::{print_function, Naming};

fn parse(text: &str) -> Module {
    crate::parse_module(Lang::Bril, "t.bril", text).unwrap_or_else(|d| panic!("{d:?}\n{text}"))
}

/// Runs the pass on `@main` and checks what every run must satisfy: the replay gives the
/// output, the trace survives JSON, the last round's table is the fixpoint, behaviour and
/// the dynamic count do not get worse. Returns the output and the printed result.
fn cp(text: &str) -> (Function, CopyPropOutput, String) {
    let m = parse(text);
    let f = m.functions[0].clone();
    let out = run(&f, &Cfg::new(&f)).unwrap_or_else(|e| panic!("{e}"));
    let replayed = try_replay_to(&f, &out.trace, usize::MAX).unwrap();
    assert_eq!(replayed, *out.function, "replay differs");
    let back: Trace = serde_json::from_str(&trace_json(&out.trace)).unwrap();
    assert_eq!(back, *out.trace);
    let last = out.trace.avail_at_round(usize::MAX);
    for &b in &f.layout {
        assert_eq!(last.ins[b.0 as usize], out.avail.facts.ins[b], "in-set of {b} from the trace");
        assert_eq!(last.outs[b.0 as usize], out.avail.facts.outs[b], "out-set of {b} from the trace");
    }
    for s in step_texts(&f, &out) {
        assert!(!s.contains('\n'), "{s}");
    }
    let mut after = m.clone();
    after.functions[0] = (*out.function).clone();
    let cfg = RunConfig::with_args(bril::args_from_source(text));
    let (rb, ra) = (bril::run(&m, &cfg), bril::run(&after, &cfg));
    assert_eq!(rb.stdout, ra.stdout);
    assert_eq!(rb.error.map(|e| e.kind), ra.error.map(|e| e.kind));
    assert!(ra.dyn_inst <= rb.dyn_inst);
    let printed = print_function(&out.function, Naming::User);
    (f, out, printed)
}

fn block(f: &Function, name: &str) -> BlockId {
    f.block_by_name(name).unwrap()
}

/// The texts of the copies available at the start of block `name`.
fn avail_in(f: &Function, out: &CopyPropOutput, name: &str) -> Vec<String> {
    out.avail.facts.ins[block(f, name)].iter().map(|c| out.avail.copy_text(f, c)).collect()
}

#[test]
fn a_chain_resolves_to_its_root_and_all_copies_die() {
    let (f, out, text) = cp("@main {\n  a: int = const 4;\n  b: int = id a;\n  c: int = id b;\n  print c;\n}\n");
    assert!(text.contains("print a;"), "{text}");
    assert!(!text.contains("id"), "{text}");
    assert_eq!(out.stats.rewrites, 2, "c = id b becomes c = id a; print c becomes print a");
    assert_eq!(out.stats.deleted, 2);
    let steps = step_texts(&f, &out);
    assert!(steps.iter().any(|s| s == "Rewrite `c` to `a` in `print c;` (.b0): copies `c = id b` and `b = id a` reach it on every path"), "{steps:#?}");
}

#[test]
fn redefining_the_destination_kills_the_copy() {
    // After `x = const 1`, x is no longer y: print x must stay.
    let (_, out, text) = cp("@main {\n  y: int = const 2;\n  x: int = id y;\n  print x;\n  x: int = const 1;\n  print x;\n}\n");
    assert!(text.contains("print y;\n  x: int = const 1;\n  print x;"), "{text}");
    assert_eq!(out.stats.rewrites, 1);
    assert_eq!(out.stats.deleted, 1, "the copy is dead once its one use reads y");
}

#[test]
fn redefining_the_source_kills_the_copy() {
    // After `y = const 1`, x still holds the old y: print x must stay, and so must the copy.
    let (_, out, text) = cp("@main {\n  y: int = const 2;\n  x: int = id y;\n  y: int = const 1;\n  print x;\n  print y;\n}\n");
    assert_eq!(out.stats.rewrites, 0);
    assert_eq!(out.stats.deleted, 0);
    assert!(text.contains("x: int = id y;"), "{text}");
}

#[test]
fn a_copy_on_one_arm_is_not_available_at_the_join() {
    let src = "# ARGS: true\n@main(p: bool) {\n  y: int = const 1;\n  x: int = const 0;\n  br p .l .r;\n.l:\n  x: int = id y;\n  jmp .j;\n.r:\n  jmp .j;\n.j:\n  print x;\n}\n";
    let (f, out, text) = cp(src);
    assert!(avail_in(&f, &out, "j").is_empty());
    assert!(text.contains("print x;"), "{text}");
    assert_eq!(out.stats.rewrites, 0);
}

#[test]
fn the_same_copy_on_both_arms_is_available_at_the_join() {
    // Keyed by the pair (x, y), the copy of both arms is one fact and survives the meet; keyed
    // by instruction it would be two facts, each missing on the other arm.
    let src = "# ARGS: false\n@main(p: bool) {\n  y: int = const 1;\n  br p .l .r;\n.l:\n  x: int = id y;\n  jmp .j;\n.r:\n  x: int = id y;\n  jmp .j;\n.j:\n  print x;\n}\n";
    let (f, out, text) = cp(src);
    assert_eq!(avail_in(&f, &out, "j"), ["x = id y"]);
    assert_eq!(out.stats.copies, 1);
    assert!(text.contains("print y;"), "{text}");
    assert_eq!(out.stats.deleted, 2, "both copies are dead");
    let Event::Rewrite { via, .. } = &out.trace.events[0] else { panic!() };
    assert_eq!(via[0].insts.len(), 2, "both arms' copies justify the rewrite");
}

#[test]
fn different_copies_on_the_two_arms_are_not_available() {
    let src = "# ARGS: false\n@main(p: bool) {\n  y: int = const 1;\n  z: int = const 2;\n  br p .l .r;\n.l:\n  x: int = id y;\n  jmp .j;\n.r:\n  x: int = id z;\n  jmp .j;\n.j:\n  print x;\n}\n";
    let (f, out, _) = cp(src);
    assert!(avail_in(&f, &out, "j").is_empty());
    assert_eq!(out.stats.rewrites, 0);
}

#[test]
fn a_copy_killed_in_the_loop_body_is_not_available_in_the_loop() {
    // x = id y before the loop; the body assigns y, so at the loop head x == y only on the
    // first entry: the use in the head must keep x. After the loop x is not y either.
    let src = "@main {\n  y: int = const 0;\n  n: int = const 3;\n  x: int = id y;\n.head:\n  print x;\n  one: int = const 1;\n  y: int = add y one;\n  c: bool = lt y n;\n  br c .head .done;\n.done:\n  print x;\n}\n";
    let (f, out, text) = cp(src);
    assert!(avail_in(&f, &out, "head").is_empty());
    assert!(avail_in(&f, &out, "done").is_empty());
    assert_eq!(out.stats.rewrites, 0, "{text}");
    // The fixpoint needs more than the proving round: ⊤ at the head must be lowered.
    assert!(out.trace.rounds.len() >= 2);
}

#[test]
fn a_copy_not_killed_in_the_loop_is_available_in_it() {
    let src = "@main {\n  y: int = const 0;\n  i: int = const 0;\n  n: int = const 3;\n  x: int = id y;\n.head:\n  print x;\n  one: int = const 1;\n  i: int = add i one;\n  c: bool = lt i n;\n  br c .head .done;\n.done:\n  print x;\n}\n";
    let (f, out, text) = cp(src);
    assert_eq!(avail_in(&f, &out, "head"), ["x = id y"]);
    assert_eq!(out.stats.rewrites, 2, "{text}");
    assert!(!text.contains("id"), "{text}");
}

#[test]
fn self_copies_are_left_alone() {
    let (_, out, text) = cp("@main {\n  x: int = const 1;\n  x: int = id x;\n  print x;\n}\n");
    assert_eq!(out.stats.copies, 0);
    assert!(text.contains("x: int = id x;"), "{text}");
}

#[test]
fn a_copy_and_its_reverse_kill_each_other() {
    // `y = id x` kills `x ← y` (it assigns y); then `x ← y` no longer resolves and no
    // rewrite loops between x and y.
    let src = "@main {\n  y: int = const 1;\n  x: int = id y;\n  y: int = id x;\n  print x;\n  print y;\n}\n";
    // `y = id x` reads x where x ← y holds, so it becomes the self-copy `y = id y`, which the
    // deletion drops; after it only y ← x holds, so `print y` reads x and `print x` stays.
    let (_, out, text) = cp(src);
    assert!(text.contains("x: int = id y;\n  print x;\n  print x;"), "{text}");
    assert_eq!(out.stats.rewrites, 2);
}

#[test]
fn unreachable_blocks_are_not_rewritten_and_do_not_weaken_a_join() {
    // .dead is unreachable and assigns y; its edge into .j must not kill x ← y there.
    let src = "@main {\n  y: int = const 1;\n  x: int = id y;\n  jmp .j;\n.dead:\n  y: int = const 5;\n  z: int = id x;\n  print z;\n  jmp .j;\n.j:\n  print x;\n}\n";
    let (f, out, text) = cp(src);
    assert_eq!(avail_in(&f, &out, "j"), ["x = id y"]);
    assert!(text.contains(".j:\n  print y;"), "{text}");
    assert!(text.contains("print z;"), "nothing is rewritten in .dead: {text}");
    for e in &out.trace.events {
        if let Event::Rewrite { block, .. } = e {
            assert_ne!(*block, block_of(&f, "dead"));
        }
    }
}

fn block_of(f: &Function, name: &str) -> BlockId {
    block(f, name)
}

#[test]
fn fall_through_blocks_and_operands_of_every_kind_are_handled() {
    // A block without terminator falls through; br conditions, call arguments, ret and print
    // are all operands.
    let src = "@inc(a: int): int {\n  one: int = const 1;\n  r: int = add a one;\n  ret r;\n}\n@main {\n  t: bool = const true;\n  c: bool = id t;\n  v: int = const 3;\n  w: int = id v;\n.next:\n  r: int = call @inc w;\n  br c .yes .no;\n.yes:\n  print w;\n.no:\n  print r;\n}\n";
    let m = parse(src);
    let (out_m, outs) = run_module(&m).unwrap();
    let text = print_function(&out_m.functions[1], Naming::User);
    assert!(text.contains("call @inc v;"), "{text}");
    assert!(text.contains("br t .yes .no;"), "{text}");
    assert!(text.contains("print v;"), "{text}");
    assert_eq!(outs[1].stats.deleted, 2);
    let (rb, ra) = (bril::run(&m, &RunConfig::default()), bril::run(&out_m, &RunConfig::default()));
    assert_eq!(rb.stdout, ra.stdout);
    assert!(ra.dyn_inst < rb.dyn_inst);
}

#[test]
fn a_dead_copy_chain_across_blocks_takes_several_rounds() {
    // `b = id a` is only read by `c = id b` in the next block: once the rewrite makes c read a
    // directly, b is dead; c is dead after print reads a. Copies read by nothing else.
    let src = "@main {\n  a: int = const 1;\n  b: int = id a;\n  jmp .n;\n.n:\n  c: int = id b;\n  print c;\n}\n";
    let (_, out, text) = cp(src);
    assert!(!text.contains("id"), "{text}");
    assert_eq!(out.stats.deleted, 2);
}

#[test]
fn a_copy_still_used_after_its_source_changes_is_kept() {
    let src = "@main {\n  a: int = const 1;\n  b: int = id a;\n  print b;\n  a: int = const 2;\n  print b;\n  print a;\n}\n";
    let (_, out, text) = cp(src);
    assert!(text.contains("b: int = id a;\n  print a;\n  a: int = const 2;\n  print b;"), "{text}");
    assert_eq!(out.stats.deleted, 0);
}

#[test]
fn sil_is_refused_with_the_reason() {
    let m = crate::parse_module(
        Lang::Sil,
        "t.sil",
        "sil_stage canonical\n\nsil @f : $@convention(thin) () -> () {\nbb0:\n  %0 = tuple ()\n  return %0 : $()\n}\n",
    )
    .unwrap();
    let e = run_module(&m).unwrap_err();
    assert!(matches!(e, CopyPropError::NotBril { .. }));
    let msg = e.to_string();
    assert!(msg.contains("SSA") && msg.contains("AddressLowering"), "{msg}");
    let f = &m.functions[0];
    assert!(matches!(run(f, &Cfg::new(f)), Err(CopyPropError::NotBril { .. })));
}

#[test]
fn malformed_functions_and_wrong_graphs_are_errors_not_panics() {
    let m = parse("@main {\n  x: int = const 1;\n  y: int = id x;\n  print y;\n}\n");
    let mut f = m.functions[0].clone();
    f.layout.push(BlockId(99));
    assert!(matches!(run(&f, &Cfg::new(&f)), Err(CopyPropError::Malformed { .. })));
    let good = m.functions[0].clone();
    let other = parse("@main {\n.a:\n  jmp .b;\n.b:\n  ret;\n}\n");
    let e = run(&good, &Cfg::new(&other.functions[0])).unwrap_err();
    assert!(matches!(e, CopyPropError::Internal { .. }), "{e}");
    // An `id` with no operand is not a copy (and not a crash).
    let mut g = good.clone();
    let i = g.blocks[g.layout[0]].insts[1];
    g.insts[i].args.clear();
    let _ = run(&g, &Cfg::new(&g));
}

#[test]
fn step_texts_name_rounds_rewrites_and_deletions() {
    let src = "@main {\n  t: int = const 1;\n  x: int = id t;\n  jmp .j;\n.j:\n  y: int = add x t;\n  print y;\n}\n";
    let (f, out, _) = cp(src);
    let steps = step_texts(&f, &out);
    assert_eq!(steps[0], "Before copy propagation: @main has 1 copy in 1 instruction: `x = id t`");
    let n = out.trace.rounds.len();
    assert!(steps[n].ends_with("nothing changed — the fixpoint is reached"), "{steps:#?}");
    assert_eq!(steps[n + 1], "Rewrite `x` to `t` in `y: int = add x t;` (.j): copy `x = id t` reaches it on every path");
    assert_eq!(steps[n + 2], "Delete `x: int = id t;` (.b0): x is not used afterwards");
    assert_eq!(steps.len(), 1 + n + out.trace.events.len());
    assert_eq!(out.trace.events_at_step(n + 2), 2);
}

#[test]
fn a_self_copy_the_rewrite_made_goes_one_already_there_stays() {
    // `x = id y` after `y = id x` becomes `x = id x` (y ← x reaches it): deleted in round 0.
    // `z = id z` was in the input: if z were undefined it would fail, so it stays.
    let src = "@main {\n  x: int = const 4;\n  y: int = id x;\n  x: int = id y;\n  z: int = const 1;\n  z: int = id z;\n  print x;\n  print z;\n}\n";
    let (f, out, printed) = cp(src);
    assert!(!printed.contains("x: int = id x;"), "{printed}");
    assert!(printed.contains("z: int = id z;"), "{printed}");
    let steps = step_texts(&f, &out);
    assert!(
        steps.iter().any(|s| s == "Delete `x: int = id x;` (.b0): the rewrite made it copy x to itself, which does nothing"),
        "{steps:#?}"
    );
}

// Rematerialisation (`remat.rs`).

/// `(name, text)` of `m` after the pipeline `list` on `@main`.
fn after_pipeline(m: &Module, list: &str) -> Module {
    let p = crate::passes::pipeline::Pipeline::parse(list).unwrap();
    p.run_module(m, &crate::passes::Options::default()).0
}

/// The loop of `float/exponentiation-by-squaring` as LCM leaves it: `t = div n two` in the
/// body and again on the odd path after `n` changed; the body's `half = id t` goes by
/// propagation, but `n = id t` at `.cont` stays (`n` is live around the loop and has other
/// definitions). `t` holds `div n two` on both paths into `.cont`, so the copy becomes
/// `n = div n two`, and DCE then deletes the division on the odd path: the loop runs what it
/// ran before LCM.
const EXP_LOOP: &str = "# ARGS: 13\n@main(n: int) {\n  two: int = const 2;\n  one: int = const 1;\n.while:\n  guard: bool = gt n one;\n  br guard .body .end;\n.body:\n  t: int = div n two;\n  half: int = id t;\n  d: int = mul half two;\n  even: bool = eq d n;\n  br even .cont .odd;\n.odd:\n  n: int = sub n one;\n  t: int = div n two;\n.cont:\n  n: int = id t;\n  jmp .while;\n.end:\n  print n;\n}\n";

#[test]
fn a_copy_that_stays_is_recomputed_from_the_expression_its_source_holds() {
    let (f, out, text) = cp(EXP_LOOP);
    assert!(text.contains(".cont:\n  n: int = div n two;\n  jmp .while;"), "{text}");
    assert!(text.contains("d: int = mul t two;"), "half = id t is propagated, not recomputed: {text}");
    assert_eq!(out.stats.rematerialized, 1);
    let Some(Event::Rematerialize { via, .. }) = out.trace.events.last() else { panic!("{:?}", out.trace.events) };
    assert_eq!(via.len(), 2, "the body's and the odd path's t = div n two both reach .cont");
    let held: Vec<&str> = out.trace.held.iter().map(|h| h.text.as_str()).collect();
    assert_eq!(held, ["guard = gt n one", "t = div n two", "d = mul t two", "even = eq d n"], "every computation, once");
    let steps = step_texts(&f, &out);
    let want = "Recompute `n: int = div n two;` instead of copying `t` (.cont): `t` holds `div n two` on every path here (computed in .body and .odd) and neither `n` nor `two` has changed since; the cost is the same, and the computation of `t` is left for dead code elimination if nothing else reads it";
    assert!(steps.iter().any(|s| s == want), "{steps:#?}");

    // Then DCE: the odd path's division is dead, and the loop costs what the original did.
    let m = parse(EXP_LOOP);
    let both = after_pipeline(&m, "copyprop,dce");
    let printed = print_function(&both.functions[0], Naming::User);
    assert!(printed.contains(".odd:\n  n: int = sub n one;\n.cont:"), "{printed}");
    let original = parse("# ARGS: 13\n@main(n: int) {\n  two: int = const 2;\n  one: int = const 1;\n.while:\n  guard: bool = gt n one;\n  br guard .body .end;\n.body:\n  half: int = div n two;\n  d: int = mul half two;\n  even: bool = eq d n;\n  br even .cont .odd;\n.odd:\n  n: int = sub n one;\n.cont:\n  n: int = div n two;\n  jmp .while;\n.end:\n  print n;\n}\n");
    let cfg = RunConfig::with_args(["13"]);
    let (a, b) = (bril::run(&original, &cfg), bril::run(&both, &cfg));
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(a.dyn_inst, b.dyn_inst, "the loop before LCM and after copy propagation and DCE");
}

/// `t = add a b` on the left arm, the copy `v = id t` after it; `v` is read at the join,
/// where the copy is not available, so the copy stays. With `a` assigned in between, `t` no
/// longer holds `add a b`: nothing is recomputed. Without that assignment it is.
#[test]
fn a_copy_whose_operand_changed_since_is_not_recomputed() {
    let src = |between: &str| {
        format!("# ARGS: true\n@main(p: bool) {{\n  a: int = const 1;\n  b: int = const 2;\n  v: int = const 0;\n  br p .l .j;\n.l:\n  t: int = add a b;\n{between}  v: int = id t;\n  jmp .j;\n.j:\n  print v;\n  print t;\n}}\n")
    };
    let (_, out, text) = cp(&src("  a: int = const 7;\n"));
    assert_eq!(out.stats.rematerialized, 0);
    assert!(text.contains("v: int = id t;"), "{text}");
    let (_, out, text) = cp(&src(""));
    assert_eq!(out.stats.rematerialized, 1, "the control: with `a` unchanged the copy is recomputed");
    assert!(text.contains("v: int = add a b;"), "{text}");
}

/// `t` is `add a b` on one arm and `mul a b` on the other: at the join it holds neither on
/// every path, so `v = id t` there stays a copy. With `add a b` on both arms (two
/// instructions, one held expression) it is recomputed.
#[test]
fn a_copy_whose_source_holds_different_expressions_on_two_paths_is_not_recomputed() {
    let src = |right: &str| {
        format!("# ARGS: false\n@main(p: bool) {{\n  a: int = const 3;\n  b: int = const 4;\n  br p .l .r;\n.l:\n  t: int = add a b;\n  jmp .m;\n.r:\n  t: int = {right} a b;\n  jmp .m;\n.m:\n  v: int = id t;\n  br p .n .j;\n.n:\n  v: int = const 9;\n.j:\n  print v;\n}}\n")
    };
    let (f, out, text) = cp(&src("mul"));
    assert_eq!(out.stats.rematerialized, 0);
    assert!(text.contains(".m:\n  v: int = id t;"), "{text}");
    assert!(out.held.facts.ins[block(&f, "m")].is_empty());
    let (_, out, text) = cp(&src("add"));
    assert_eq!(out.stats.rematerialized, 1);
    assert!(text.contains(".m:\n  v: int = add a b;"), "{text}");
    let Some(Event::Rematerialize { via, .. }) = out.trace.events.last() else { panic!() };
    assert_eq!(via.len(), 2, "both arms' computations justify it");
}

/// A division that traps: `t = div one z` ran on every path to the copy with the same
/// operands, so recomputing it cannot fail where the original did not. With `z = 0` both
/// programs fail at the first division, printing nothing (`cp` compares output and error);
/// with `z = 1` both print 1. After DCE the first division is gone and the recomputed one
/// fails instead, before any output, as the original did.
#[test]
fn a_trapping_division_is_recomputed_only_where_it_already_ran() {
    let src = |z: &str| {
        format!("# ARGS: {z}\n@main(z: int) {{\n  one: int = const 1;\n  v: int = const 0;\n  p: bool = eq z one;\n  t: int = div one z;\n  v: int = id t;\n  br p .x .j;\n.x:\n  v: int = const 5;\n.j:\n  print v;\n}}\n")
    };
    for z in ["0", "1"] {
        let (_, out, text) = cp(&src(z));
        assert_eq!(out.stats.rematerialized, 1, "{text}");
        assert!(text.contains("t: int = div one z;\n  v: int = div one z;"), "{text}");
    }
    let m = parse(&src("0"));
    let both = after_pipeline(&m, "copyprop,dce");
    let cfg = RunConfig::with_args(["0"]);
    let (a, b) = (bril::run(&m, &cfg), bril::run(&both, &cfg));
    assert!(a.error.is_some());
    assert_eq!(a.error.map(|e| e.kind), b.error.map(|e| e.kind));
    assert_eq!(a.stdout, b.stdout);

    // Guarded: the division runs on one arm only, so the copy at the join is not recomputed
    // (that would divide by zero on the other arm).
    let guarded = "# ARGS: 0\n@main(z: int) {\n  one: int = const 1;\n  zero: int = const 0;\n  t: int = const 0;\n  nz: bool = eq z zero;\n  br nz .j .d;\n.d:\n  t: int = div one z;\n.j:\n  v: int = id t;\n  br nz .x .y;\n.x:\n  v: int = const 5;\n.y:\n  print v;\n}\n";
    let (_, out, text) = cp(guarded);
    assert_eq!(out.stats.rematerialized, 0);
    assert!(text.contains("v: int = id t;"), "{text}");
}

#[test]
fn a_long_chain_records_its_first_links_and_counts_the_rest() {
    // v20 ← v19 ← … ← v0: the use of v20 reads v0 through 20 copies.
    let mut src = String::from("@main {\n  v0: int = const 7;\n");
    for i in 1..=20 {
        src.push_str(&format!("  v{i}: int = id v{};\n", i - 1));
    }
    src.push_str("  print v20;\n}\n");
    let (f, out, text) = cp(&src);
    assert!(text.contains("print v0;"), "{text}");
    let print = out.trace.events.iter().find_map(|e| match e {
        Event::Rewrite { via, more, from, .. } if f.value_name(*from) == "v20" => Some((via.len(), *more)),
        _ => None,
    });
    assert_eq!(print, Some((VIA_SHOWN, 20 - VIA_SHOWN as u32)), "the first {VIA_SHOWN} links, then a count");
    let steps = step_texts(&f, &out);
    let want = format!("and {} more reach it on every path", 20 - VIA_SHOWN);
    assert!(steps.iter().any(|s| s.starts_with("Rewrite `v20` to `v0` in `print v20;`") && s.ends_with(&want)), "{steps:#?}");
    // A short chain records every link and no count.
    assert!(out.trace.events.iter().all(|e| !matches!(e, Event::Rewrite { via, more, .. } if via.len() < VIA_SHOWN && *more > 0)));
}

#[test]
fn delete_reasons_follow_the_round() {
    assert_eq!(delete_reason("x", 0), "the rewrite made it copy x to itself, which does nothing");
    assert_eq!(delete_reason("x", 1), "x is not used afterwards");
    assert!(delete_reason("x", 2).contains("now that the copies reading it are gone"));
}

#[test]
fn lists_read_as_english() {
    assert_eq!(list(&[]), "");
    assert_eq!(list(&["a".into()]), "a");
    assert_eq!(list(&["a".into(), "b".into(), "c".into()]), "a, b and c");
}

/// The sparse live-out sets the deletion uses are the least fixpoint of [`Liveness`] on the
/// dataflow framework, on generated programs (loops, branches, unreachable code after LCM).
#[test]
fn sparse_live_outs_equal_the_dataflow_liveness() {
    use crate::testgen::{generate, GenConfig};
    for seed in 0..300u64 {
        let g = generate(seed, &GenConfig::default());
        for f in &g.module.functions {
            let cfg = Cfg::new(f);
            let facts = crate::dataflow::run(&Liveness, f, &cfg);
            let sparse = dead::live_outs(f, &cfg);
            for &b in &f.layout {
                let dense: Vec<_> = facts.outs[b].iter().collect();
                assert_eq!(sparse[b], dense, "seed {seed}, @{} {b}", f.name);
            }
        }
    }
}
