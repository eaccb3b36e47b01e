//! Unit tests of the LCM pass on small Bril programs (golden tables and random-program
//! properties live in `core/tests/lcm_*.rs`).

use super::*;
use crate::entity::EntitySet;
use crate::print::{print_function, Naming};
use crate::{parse_module, Lang};

fn run_text(text: &str, opts: Options) -> LcmOutput {
    let m = parse_module(Lang::Bril, "t.bril", text).unwrap_or_else(|d| panic!("parse: {d:?}"));
    run_function(&m.functions[0], &opts).unwrap_or_else(|e| panic!("lcm: {e}"))
}

fn lcm(text: &str) -> LcmOutput {
    run_text(text, Options::default())
}

/// The names of the blocks where predicate `p` holds for expression `text`.
fn blocks_where(o: &LcmOutput, p: Pred, text: &str) -> Vec<String> {
    let e = o.expr_by_text(text).unwrap_or_else(|| panic!("no expression {text}"));
    o.blocks().iter().filter(|&&b| o.preds.holds(p, b, e)).map(|&b| o.split.blocks[b].name.to_string()).collect()
}

fn printed(o: &LcmOutput) -> String {
    print_function(&o.result, Naming::User)
}

const DIAMOND: &str = "@main(a: int, b: int, p: bool) {
  br p .left .right;
.left:
  x: int = add a b;
  print x;
  jmp .join;
.right:
  jmp .join;
.join:
  y: int = add a b;
  print y;
}
";

#[test]
fn partially_redundant_diamond_inserts_on_the_other_arm() {
    let o = lcm(DIAMOND);
    assert_eq!(blocks_where(&o, Pred::NComp, "add a b"), ["left", "join"]);
    assert_eq!(blocks_where(&o, Pred::XLatest, "add a b"), ["right"]);
    assert_eq!(blocks_where(&o, Pred::NLatest, "add a b"), ["left"]);
    assert_eq!(
        printed(&o),
        "@main(a: int, b: int, p: bool) {
  br p .left .right;
.left:
  add.a.b: int = add a b;
  x: int = id add.a.b;
  print x;
  jmp .join;
.right:
  add.a.b: int = add a b;
  jmp .join;
.join:
  y: int = id add.a.b;
  print y;
}
"
    );
}

#[test]
fn do_while_invariant_is_hoisted_and_the_unused_split_block_removed() {
    let text = "@main(a: int, b: int, n: int) {
  i: int = const 0;
  one: int = const 1;
.body:
  x: int = mul a b;
  print x;
  i: int = add i one;
  c: bool = lt i n;
  br c .body .done;
.done:
  ret;
}
";
    let o = lcm(text);
    // The back edge body → body is critical and gets a block named after it.
    let names: Vec<&str> = o.blocks().iter().map(|&b| o.split.blocks[b].name.as_str()).collect();
    assert_eq!(names, ["b0", "body", "body_body", "done"]);
    assert_eq!(blocks_where(&o, Pred::XLatest, "mul a b"), ["b0"]);
    // `add i one` computes then modifies `i`: an entry computation, not transparent.
    assert_eq!(blocks_where(&o, Pred::NComp, "add i one"), ["body"]);
    assert!(!blocks_where(&o, Pred::Transp, "add i one").contains(&"body".to_string()));
    // `lt i n` follows the last modification of `i`: an exit computation.
    assert_eq!(blocks_where(&o, Pred::XComp, "lt i n"), ["body"]);
    assert_eq!(
        printed(&o),
        "@main(a: int, b: int, n: int) {
  i: int = const 0;
  one: int = const 1;
  mul.a.b: int = mul a b;
.body:
  x: int = id mul.a.b;
  print x;
  i: int = add i one;
  c: bool = lt i n;
  br c .body .done;
.done:
  ret;
}
"
    );
    // Nothing moved but `mul a b`.
    assert_eq!(o.moved().len(), 1);
}

#[test]
fn an_insertion_on_a_critical_edge_keeps_its_block() {
    let text = "@main(a: int, b: int, p: bool) {
  br p .left .join;
.left:
  x: int = add a b;
  jmp .join;
.join:
  y: int = add a b;
  print y;
}
";
    let o = lcm(text);
    assert_eq!(o.trace.blocks.iter().filter(|b| b.new).count(), 1);
    assert_eq!(blocks_where(&o, Pred::XLatest, "add a b"), ["b0_join"]);
    assert_eq!(
        printed(&o),
        "@main(a: int, b: int, p: bool) {
  br p .left .b0_join;
.left:
  add.a.b: int = add a b;
  x: int = id add.a.b;
  jmp .join;
.b0_join:
  add.a.b: int = add a b;
.join:
  y: int = id add.a.b;
  print y;
}
"
    );
}

#[test]
fn a_division_in_a_while_loop_is_not_hoisted() {
    // Hoisting `div a b` above the loop test would divide on the path that skips the loop.
    let text = "@main(a: int, b: int, n: int) {
  i: int = const 0;
  one: int = const 1;
.head:
  c: bool = lt i n;
  br c .body .done;
.body:
  q: int = div a b;
  i: int = add i one;
  jmp .head;
.done:
  print i;
}
";
    let o = lcm(text);
    assert!(o.moved().is_empty());
    assert_eq!(
        printed(&o),
        crate::print::print_function(&parse_module(Lang::Bril, "t", text).unwrap().functions[0], Naming::User)
    );
}

#[test]
fn a_trapping_expression_does_not_cross_a_print() {
    // Without the barrier, `div a b` would be hoisted to the end of b0 — above `print p`
    // on the right arm — and a division by zero would lose that output.
    let text = "@main(a: int, b: int, p: bool) {
  br p .left .right;
.left:
  x: int = div a b;
  jmp .join;
.right:
  print p;
  jmp .join;
.join:
  y: int = div a b;
  print y;
}
";
    let o = lcm(text);
    // `print p` and `print y` are barriers for the division.
    assert_eq!(blocks_where(&o, Pred::Transp, "div a b"), ["b0", "left"]);
    assert_eq!(blocks_where(&o, Pred::XLatest, "div a b"), ["right"]);
    let out = printed(&o);
    let right = out.find(".right:").unwrap();
    let print_p = out[right..].find("print p").unwrap();
    let insert = out[right..].find("div.a.b: int = div a b").unwrap();
    assert!(print_p < insert, "{out}");
    // The same program with `add` moves the computation freely.
    let o = lcm(&text.replace("div", "add"));
    assert_eq!(blocks_where(&o, Pred::Transp, "add a b").len(), 4);
}

#[test]
fn untouched_programs_print_exactly_as_they_came() {
    let text = "@main(a: int, b: int) {
.top:
  x: int = add a b;
  a: int = add x b;
  c: bool = lt a b;
  br c .top .out;
.out:
  y: int = mul a b;
  print y;
}
";
    let o = lcm(text);
    assert!(o.moved().is_empty(), "{:?}", o.moved());
    let original = parse_module(Lang::Bril, "t", text).unwrap();
    assert_eq!(printed(&o), print_function(&original.functions[0], Naming::User));
    // The entry was a loop header: step 1 added a fresh entry, step 7 removed it again.
    assert!(o.trace.blocks[0].new);
    assert!(o.trace.steps.iter().any(|s| matches!(s, Step::Transform { edits, .. }
        if edits.iter().any(|e| matches!(e, Edit::RemoveEntry { .. })))));
}

#[test]
fn commute_merges_swapped_operands_only_when_asked() {
    let text = "@main(a: int, b: int) {
  x: int = add a b;
  y: int = add b a;
  print x y;
}
";
    assert_eq!(lcm(text).exprs.len(), 2);
    let o = run_text(text, Options { commute: true });
    assert_eq!(o.exprs.len(), 1);
    assert_eq!(o.exprs[ExprId(0)].text(), "add a b");
}

#[test]
fn an_infinite_loop_gets_no_insertions() {
    // No path reaches an exit, so down-safety must not hold vacuously.
    let text = "@main(a: int, b: int, p: bool) {
.l:
  br p .x .y;
.x:
  q: int = div a b;
  print q;
  jmp .l;
.y:
  jmp .l;
}
";
    let o = lcm(text);
    assert!(o.moved().is_empty());
    assert_eq!(blocks_where(&o, Pred::NdSafe, "div a b"), ["x"]);
}

#[test]
fn unreachable_blocks_take_no_part() {
    let text = "@main(a: int, b: int, p: bool) {
  br p .l .r;
.l:
  x: int = add a b;
  jmp .j;
.r:
  jmp .j;
.j:
  ret;
.dead:
  y: int = add a b;
  jmp .j;
}
";
    let o = lcm(text);
    let e = o.expr_by_text("add a b").unwrap();
    let dead = o.split.block_by_name("dead").unwrap();
    assert!(!o.graph.reachable.contains(dead));
    assert!(o.preds.holds(Pred::NComp, dead, e));
    for p in &Pred::ALL[3..] {
        assert!(!o.preds.holds(*p, dead, e), "{p}");
    }
    assert!(o.moved().is_empty());
}

const SIL_DIAMOND: &str = "sil_stage canonical

import Builtin

sil @f : $@convention(thin) (Builtin.Int64, Builtin.Int64, Builtin.Int1) -> Builtin.Int64 {
bb0(%0 : $Builtin.Int64, %1 : $Builtin.Int64, %2 : $Builtin.Int1):
  cond_br %2, bb1, bb2

bb1:
  %3 = builtin \"add_Int64\"(%0 : $Builtin.Int64, %1 : $Builtin.Int64) : $Builtin.Int64
  br bb3

bb2:
  br bb3

bb3:
  %4 = builtin \"add_Int64\"(%0 : $Builtin.Int64, %1 : $Builtin.Int64) : $Builtin.Int64
  return %4 : $Builtin.Int64
}
";

fn run_sil(text: &str) -> LcmOutput {
    let m = parse_module(Lang::Sil, "t.sil", text).unwrap_or_else(|d| panic!("parse: {d:?}"));
    run_function(&m.functions[0], &Options::default()).unwrap_or_else(|e| panic!("lcm: {e}"))
}

#[test]
fn sil_partial_redundancy_gets_a_block_argument() {
    let o = run_sil(SIL_DIAMOND);
    assert_eq!(o.trace.exprs, vec![r#"builtin "add_Int64"(%0, %1)"#.to_string()]);
    assert_eq!(blocks_where(&o, Pred::XLatest, r#"builtin "add_Int64"(%0, %1)"#), ["bb2"]);
    let text = printed(&o);
    assert!(text.contains("bb2:\n  %5 = builtin \"add_Int64\"(%0 : $Builtin.Int64, %1 : $Builtin.Int64) : $Builtin.Int64\n  br bb3(%5 : $Builtin.Int64)"), "{text}");
    assert!(text.contains("br bb3(%3 : $Builtin.Int64)"), "{text}");
    assert!(text.contains("bb3(%6 : $Builtin.Int64):\n  return %6 : $Builtin.Int64"), "{text}");
    let edits = o.trace.steps.iter().find_map(|s| match s {
        Step::Transform { edits, .. } => Some(edits.clone()),
        _ => None,
    });
    let edits = edits.unwrap();
    assert!(edits.iter().any(|e| matches!(e, Edit::Phi { .. })));
    assert!(edits.iter().any(|e| matches!(e, Edit::Replace { .. })));
}

#[test]
fn sil_entry_arguments_are_not_modifications_but_other_definitions_are() {
    let o = run_sil(SIL_DIAMOND);
    let e = o.expr_by_text(r#"builtin "add_Int64"(%0, %1)"#).unwrap();
    for &b in o.blocks() {
        assert!(o.preds.holds(Pred::Transp, b, e), "{}", o.split.blocks[b].name);
    }
}

#[test]
fn fixpoint_rounds_are_recorded_and_end_quiet() {
    let o = lcm(DIAMOND);
    for s in &o.trace.steps {
        if let Step::DownSafety { fixpoint, .. } | Step::UpSafety { fixpoint, .. } | Step::Delayed { fixpoint, .. } = s
        {
            assert!(fixpoint.rounds.len() >= 2, "{}", s.title());
            assert!(fixpoint.rounds.last().unwrap().is_empty());
            assert!(fixpoint.rounds.iter().flatten().all(|c| !c.flipped.is_empty()));
        }
    }
    // The trace is data: it survives a JSON round trip.
    let json = serde_json::to_string(&o.trace).unwrap();
    let back: Trace = serde_json::from_str(&json).unwrap();
    assert_eq!(back, o.trace);
}

#[test]
fn report_formats_agree() {
    let o = lcm(DIAMOND);
    let outs = [o];
    let md = report::table(&outs, report::TableFormat::Markdown, Some("add  a b")).unwrap();
    assert!(md.starts_with("### `@main`: `add a b`\n"), "{md}");
    assert_eq!(md.lines().filter(|l| l.starts_with("| ")).count(), 1 + outs[0].blocks().len());
    let csv = report::table(&outs, report::TableFormat::Csv, None).unwrap();
    assert!(csv.starts_with("function,expr,block,NComp,XComp,Transp,NdSafe,XdSafe,NuSafe,XuSafe,NEarliest,XEarliest,NDelayed,XDelayed,NLatest,XLatest\n"));
    assert!(csv.contains("\nmain,add a b,right,F,F,T,T,T,F,F,F,F,T,T,F,T\n"), "{csv}");
    let tex = report::table(&outs, report::TableFormat::Latex, Some("add a b")).unwrap();
    assert!(tex.contains("right & F & F & T & T & T & F & F & F & F & T & T & F & T \\\\"), "{tex}");
    let err = report::table(&outs, report::TableFormat::Csv, Some("sub a b")).unwrap_err();
    assert!(err.to_string().contains("add a b"), "{err}");
    let json = report::json(&outs, false);
    assert!(json.starts_with(r#"{"functions":[{"name":"main","blocks":["b0","left","right","join"],"expressions":[{"expr":"add a b","blocks":[{"label":"b0","NComp":false,"XComp":false,"Transp":true,"NdSafe":true"#), "{json}");
}

#[test]
fn bit_vectors_hold_only_expression_ids() {
    let o = lcm(DIAMOND);
    for set in &o.preds.sets {
        for s in set.values() {
            assert_eq!(s.capacity(), o.exprs.len());
        }
    }
    let _: EntitySet<ExprId> = EntitySet::new_empty(0);
}

#[test]
fn a_loop_at_the_entry_gets_a_fresh_entry_that_receives_the_hoisted_computation() {
    let text = "@main(a: int, b: int, n: int) {
.top:
  x: int = mul a b;
  n: int = sub n x;
  c: bool = lt n x;
  br c .out .top;
.out:
  print n;
}
";
    let o = lcm(text);
    assert_eq!(blocks_where(&o, Pred::XLatest, "mul a b"), ["entry"]);
    assert_eq!(
        printed(&o),
        "@main(a: int, b: int, n: int) {
.entry:
  mul.a.b: int = mul a b;
.top:
  x: int = id mul.a.b;
  n: int = sub n x;
  c: bool = lt n x;
  br c .out .top;
.out:
  print n;
}
"
    );
}

#[test]
fn functions_without_blocks_or_expressions_are_fine() {
    let mut empty = Function::new("f", Lang::Bril);
    let o = run_function(&empty, &Options::default()).unwrap();
    assert!(o.blocks().is_empty() && o.exprs.is_empty());
    assert_eq!(report::json(&[o], false), r#"{"functions":[{"name":"f","blocks":[],"expressions":[]}]}"#);
    empty.add_block(crate::ir::Block::new("only"));
    let o = run_function(&empty, &Options::default()).unwrap();
    assert_eq!(o.blocks().len(), 1);
    let o = lcm("@main {\n  print;\n}\n");
    assert!(o.exprs.is_empty() && o.moved().is_empty());
}

#[test]
fn temporaries_never_clash_with_user_variables() {
    let text = "@main(a: int, b: int, p: bool) {
  add.a.b: int = const 1;
  br p .left .right;
.left:
  x: int = add a b;
  jmp .join;
.right:
  jmp .join;
.join:
  y: int = add a b;
  print y add.a.b;
}
";
    let o = lcm(text);
    let out = printed(&o);
    assert!(out.contains("add.a.b.2: int = add a b;"), "{out}");
    assert!(out.contains("print y add.a.b;"), "{out}");
}

#[test]
fn occurrences_honour_commute() {
    let text = "@main(a: int, b: int) {\n  x: int = add a b;\n  y: int = add b a;\n  z: int = sub b a;\n  print x y z;\n}\n";
    let o = run_text(text, Options { commute: true });
    let e = o.expr_by_text("add a b").expect("add a b");
    assert_eq!(o.expr_by_text("add b a"), None, "one expression under commute");
    let block = &o.split.blocks[o.split.layout[0]];
    assert_eq!(o.occurrences(e), &block.insts[0..2], "add a b and add b a, in layout order");
    let sub = o.expr_by_text("sub b a").expect("sub b a");
    assert_eq!(o.occurrences(sub), &block.insts[2..3], "sub does not commute");
    assert_eq!(o.occurrence_counts()[e.0 as usize], 2);
    assert_eq!(o.occurrence_counts().len(), o.exprs.len());
    assert!(o.occurrences(ExprId(99)).is_empty());
    // Without commute they are two expressions of one occurrence each.
    let plain = run_text(text, Options::default());
    assert_eq!(plain.occurrence_counts(), [1, 1, 1]);
}

#[test]
fn initial_values_are_the_seeds() {
    // The seed: fixpoint predicates start true, the others are false except Transp.
    let starts_true: Vec<&str> = Pred::ALL.into_iter().filter(|&p| p.initial()).map(Pred::name).collect();
    assert_eq!(starts_true, ["Transp", "NdSafe", "XdSafe", "NuSafe", "XuSafe", "NDelayed", "XDelayed"]);
}

#[test]
fn sil_critical_edge_out_of_switch_enum_is_refused_with_the_reason() {
    let text = "sil_stage canonical

import Builtin
import Swift

sil @f : $@convention(thin) (Optional<Builtin.Int64>, Builtin.Int64) -> Builtin.Int64 {
bb0(%0 : $Optional<Builtin.Int64>, %1 : $Builtin.Int64):
  switch_enum %0 : $Optional<Builtin.Int64>, case #Optional.some!enumelt: bb1, case #Optional.none!enumelt: bb2

bb1(%2 : $Builtin.Int64):
  %3 = builtin \"add_Int64\"(%1 : $Builtin.Int64, %1 : $Builtin.Int64) : $Builtin.Int64
  br bb2

bb2:
  %4 = builtin \"add_Int64\"(%1 : $Builtin.Int64, %1 : $Builtin.Int64) : $Builtin.Int64
  return %4 : $Builtin.Int64
}
";
    let m = parse_module(Lang::Sil, "t.sil", text).unwrap_or_else(|d| panic!("parse: {d:?}"));
    let err = run_function(&m.functions[0], &Options::default()).unwrap_err();
    assert!(matches!(err, LcmError::Unsupported { .. }), "{err}");
    assert!(err.to_string().contains("bb0 → bb2 leaves a `switch_enum`"), "{err}");
}

/// A SIL function whose value is used where its definition does not dominate (the fuzzer
/// made one by moving a line) is refused with the reason, not transformed into a function the
/// SSA check then rejects as an internal error.
#[test]
fn sil_not_in_ssa_form_is_refused_with_the_reason() {
    let text = "sil @f : $@convention(thin) (Builtin.Int64) -> Builtin.Int64 {
bb0(%0 : $Builtin.Int64):
  br bb1(%2 : $Builtin.Int64)
bb1(%1 : $Builtin.Int64):
  %3 = builtin \"add_Int64\"(%0 : $Builtin.Int64, %1 : $Builtin.Int64) : $Builtin.Int64
  br bb2
bb2:
  %2 = builtin \"add_Int64\"(%0 : $Builtin.Int64, %0 : $Builtin.Int64) : $Builtin.Int64
  return %3 : $Builtin.Int64
}
";
    let m = parse_module(Lang::Sil, "f.sil", text).unwrap_or_else(|d| panic!("{d:?}"));
    match run_function(&m.functions[0], &Options::default()) {
        Err(LcmError::Unsupported { reason, .. }) => assert!(reason.contains("not in SSA form"), "{reason}"),
        other => panic!("expected a refusal, got {:?}", other.map(|o| o.name)),
    }
}

/// Round 1 of each fixpoint, rebuilt from the fixpoint and the later rounds
/// (`Fixpoint::round`), equals the changes the engine makes in round 1 when it records them,
/// change for change and in order; the later rounds are the same either way.
#[test]
fn the_implied_first_round_is_the_recorded_one() {
    use super::predicates::RECORD_FIRST_ROUND;
    for seed in 1..=6 {
        let text = crate::testgen::scale::bril_program(40 * seed as usize, seed);
        let m = parse_module(Lang::Bril, "t.bril", &text).unwrap_or_else(|d| panic!("parse: {d:?}"));
        let f = m.bodies().max_by_key(|f| f.blocks.len()).expect("a function");
        let implied = run_function(f, &Options::default()).unwrap_or_else(|e| panic!("lcm: {e}"));
        RECORD_FIRST_ROUND.with(|c| c.set(true));
        let recorded = run_function(f, &Options::default());
        RECORD_FIRST_ROUND.with(|c| c.set(false));
        let recorded = recorded.unwrap_or_else(|e| panic!("lcm: {e}"));
        let mut checked = 0;
        for (a, b) in implied.trace.steps.iter().zip(&recorded.trace.steps) {
            let (Some(fa), Some(fb)) = (steps::fixpoint(a), steps::fixpoint(b)) else { continue };
            assert!(fa.first_round_implied && !fb.first_round_implied);
            assert!(fa.rounds[0].is_empty() && !fb.rounds[0].is_empty(), "seed {seed}: {}", a.title());
            assert_eq!(fa.rounds.len(), fb.rounds.len());
            for r in 0..fa.rounds.len() {
                assert_eq!(fa.round(r, a.values()), fb.round(r, b.values()), "seed {seed}: {} round {r}", a.title());
                // What the step sentences name, without the bits: the recorded round is the oracle.
                let named: Vec<_> = fb.round(r, b.values()).iter().map(|c| (c.block, c.pred)).collect();
                assert_eq!(fa.changed_blocks(r, a.values()), named, "seed {seed}: {} round {r} blocks", a.title());
                assert_eq!(fb.changed_blocks(r, b.values()), named, "seed {seed}: {} round {r} blocks", a.title());
            }
            checked += 1;
        }
        assert_eq!(checked, 3, "seed {seed}: three fixpoints");
    }
}
