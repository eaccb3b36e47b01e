//! The interpreter on Bril's extensions, as brili runs them (`docs/lang/`): SSA form's shadow
//! variables (`set`, `get`, `undef`), speculation (rollback of variables and shadows, and
//! brili's refusals), and the dynamic type's checks at run time.

use optlab_core::interp::{bril, ErrorKind, RunConfig, RunResult};
use optlab_core::parse::bril::parse;

fn run(text: &str, args: &[&str]) -> RunResult {
    let m = parse("t.bril", text).unwrap_or_else(|d| panic!("{d:?}\n{text}"));
    bril::run(&m, &RunConfig::with_args(args.iter().copied()))
}

#[test]
fn a_get_reads_what_the_last_set_on_the_path_wrote() {
    let text = "@main(c: bool) {\n  a: int = const 5;\n  set x a;\n  br c .here .there;\n.here:\n  b: int = const 7;\n  set x b;\n.there:\n  x: int = get;\n  print x;\n}\n";
    assert_eq!(run(text, &["true"]).stdout, "7\n");
    assert_eq!(run(text, &["false"]).stdout, "5\n");
    // A shadow no `set` wrote.
    let r = run("@main {\n  x: int = get;\n  print x;\n}\n", &[]);
    assert!(matches!(r.error.map(|e| e.kind), Some(ErrorKind::UnsetShadow(v)) if v == "x"));
    // Shadows belong to a frame: a callee's `get` does not see its caller's `set`.
    let r = run("@f {\n  x: int = get;\n  print x;\n}\n@main {\n  a: int = const 1;\n  set x a;\n  call @f;\n  x: int = get;\n}\n", &[]);
    assert!(matches!(r.error.map(|e| e.kind), Some(ErrorKind::UnsetShadow(_))));
}

#[test]
fn the_undef_value_may_be_copied_and_nothing_else() {
    let ok = "@main {\n  u: int = undef;\n  v: int = id u;\n  set w v;\n  w: int = get;\n  one: int = const 1;\n  print one;\n}\n";
    let r = run(ok, &[]);
    assert_eq!((r.stdout.as_str(), r.error), ("1\n", None));
    for bad in ["  s: int = add u u;\n", "  print u;\n"] {
        let text = format!("@main {{\n  u: int = undef;\n{bad}}}\n");
        let r = run(&text, &[]);
        assert!(matches!(r.error.as_ref().map(|e| &e.kind), Some(ErrorKind::TypeMismatch { .. })), "{bad}: {:?}", r.error);
    }
}

#[test]
fn a_failing_guard_restores_variables_and_shadows_and_misuse_is_refused() {
    let text = "@main {\n  one: int = const 1;\n  two: int = const 2;\n  f: bool = const false;\n  v: int = id one;\n  set x one;\n  speculate;\n  v: int = id two;\n  set x two;\n  guard f .fail;\n  commit;\n.fail:\n  x: int = get;\n  print v x;\n}\n";
    let r = run(text, &[]);
    assert_eq!((r.stdout.as_str(), r.error), ("1 1\n", None));
    let refused = |body: &str| {
        let r = run(&format!("@g {{\n}}\n@main {{\n  t: bool = const true;\n{body}}}\n"), &[]);
        match r.error.map(|e| e.kind) {
            Some(ErrorKind::Speculation(m)) => m,
            other => panic!("{body}: {other:?}"),
        }
    };
    assert!(refused("  commit;\n").contains("outside of speculation"));
    assert!(refused("  speculate;\n  call @g;\n").contains("call is not allowed during speculation"));
    assert!(refused("  speculate;\n  ret;\n").contains("ret is not allowed during speculation"));
    assert!(refused("  speculate;\n").contains("implicit return"));
    assert!(refused("  f: bool = const false;\n  guard f .l;\n.l:\n").contains("outside of speculation"));
}

#[test]
fn values_of_type_any_are_checked_when_used() {
    let r = run("@main {\n  v: any = const 4;\n  b: bool = and v v;\n}\n", &[]);
    assert!(matches!(r.error.map(|e| e.kind), Some(ErrorKind::TypeMismatch { .. })));
    let r = run("@main {\n  v: any = const 4;\n  w: any = const 2.5;\n  s: int = add v v;\n  print s w;\n}\n", &[]);
    assert_eq!((r.stdout.as_str(), r.error), ("8 2.50000000000000000\n", None));
}

/// A callee's shadows start unset even where an earlier call at the same depth, with fewer
/// variables, left some behind (`s` is the second variable of both callees: the same slot).
#[test]
fn shadows_of_an_earlier_callee_do_not_leak_into_the_next() {
    let text = "@small {\n  one: int = const 1;\n  set s one;\n  s: int = get;\n}\n@big {\n  z: int = const 0;\n  s: int = get;\n  a: int = const 0;\n  b: int = const 0;\n  c: int = const 0;\n  print s;\n}\n@main {\n  call @small;\n  call @big;\n}\n";
    let r = run(text, &[]);
    assert!(matches!(r.error.map(|e| e.kind), Some(ErrorKind::UnsetShadow(_))), "printed {:?}", r.stdout);
}
