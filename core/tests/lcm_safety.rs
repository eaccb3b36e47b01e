//! LCM and operations that can trap: a division may be removed where it is redundant, but it
//! must never be evaluated on a path that did not evaluate it, nor before output that the
//! original program printed before dividing by zero. Each program here runs before and after
//! LCM on inputs that make the division trap.

use optlab_core::interp::{bril, RunConfig};
use optlab_core::passes::lcm::{run_module, Options};
use optlab_core::print::{print_module, Naming};
use optlab_core::{parse_module, Lang};

/// Runs `text` before and after LCM on each input; both must print the same and fail the
/// same way. Returns the transformed text.
fn same_behaviour(text: &str, inputs: &[&[&str]]) -> String {
    let m = parse_module(Lang::Bril, "t.bril", text).unwrap();
    let (out, _) = run_module(&m, &Options::default()).unwrap();
    let printed = print_module(&out, Naming::User);
    for args in inputs {
        let cfg = RunConfig::with_args(args.iter().copied());
        let (b, a) = (bril::run(&m, &cfg), bril::run(&out, &cfg));
        assert_eq!(b.stdout, a.stdout, "output differs on {args:?}\n{printed}");
        assert_eq!(b.error.map(|e| e.kind), a.error.map(|e| e.kind), "error differs on {args:?}\n{printed}");
    }
    printed
}

#[test]
fn a_division_after_a_print_at_a_join_stays_after_the_print() {
    // Moving `div a b` to the end of `right` (as for `add`) would trap before `print a`.
    let out = same_behaviour(
        "@main(a: int, b: int, p: bool) {
  br p .left .right;
.left:
  x: int = div a b;
  jmp .join;
.right:
  jmp .join;
.join:
  print a;
  y: int = div a b;
  print y;
}
",
        &[&["1", "0", "false"], &["1", "0", "true"], &["6", "3", "false"]],
    );
    assert!(!out.contains("div.a.b"), "{out}");
}

#[test]
fn a_loop_invariant_division_is_not_hoisted_above_a_print_in_the_loop() {
    let out = same_behaviour(
        "@main(a: int, b: int, n: int) {
  i: int = const 0;
  one: int = const 1;
.body:
  print i;
  q: int = div a b;
  i: int = add i one;
  c: bool = lt i n;
  br c .body .done;
.done:
  print q;
}
",
        &[&["5", "0", "3"], &["5", "2", "3"]],
    );
    assert!(!out.contains("div.a.b"), "{out}");
}

#[test]
fn a_loop_invariant_division_without_output_in_between_is_hoisted() {
    // Nothing observable separates the preheader from the body's division: LCM may hoist it
    // (the trap happens at the same point of the output), and the body keeps only a copy.
    let out = same_behaviour(
        "@main(a: int, b: int, n: int) {
  i: int = const 0;
  one: int = const 1;
  s: int = const 0;
.body:
  q: int = div a b;
  s: int = add s q;
  i: int = add i one;
  c: bool = lt i n;
  br c .body .done;
.done:
  print s;
}
",
        &[&["5", "0", "3"], &["6", "2", "3"]],
    );
    assert!(out.contains("div.a.b: int = div a b;\n.body:"), "{out}");
    assert!(out.contains("q: int = id div.a.b;"), "{out}");
}

#[test]
fn a_division_on_one_arm_is_never_added_to_the_other() {
    // Partially redundant at the join, but the join does not divide on every path from the
    // branch: no insertion may make the `false` path divide.
    let out = same_behaviour(
        "@main(a: int, b: int, p: bool) {
  br p .left .right;
.left:
  x: int = div a b;
  print x;
  jmp .join;
.right:
  jmp .join;
.join:
  br p .again .out;
.again:
  y: int = div a b;
  print y;
.out:
  ret;
}
",
        &[&["1", "0", "false"], &["4", "2", "true"], &["4", "2", "false"]],
    );
    let right = out.find(".right:").unwrap();
    let join = out.find(".join:").unwrap();
    assert!(!out[right..join].contains("div"), "{out}");
}

#[test]
fn a_division_is_not_moved_before_a_call() {
    // The callee prints; dividing first would lose its output when b = 0.
    same_behaviour(
        "@say(x: int) {
  print x;
}
@main(a: int, b: int, p: bool) {
  br p .left .right;
.left:
  x: int = div a b;
  jmp .join;
.right:
  jmp .join;
.join:
  call @say a;
  y: int = div a b;
  print y;
}
",
        &[&["3", "0", "false"], &["3", "0", "true"]],
    );
}
