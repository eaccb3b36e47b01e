//! Unit tests on hand-built programs (independent of the text parser).

use super::*;
use crate::interp::{ErrorKind, RunConfig};
use crate::ir::{BlockId, BrilOp as B, Imm, Type};
use crate::testgen::build::{build_module, BrilInst as I, FuncSpec};

fn int(d: &str, v: i128) -> I {
    I::constant(d, Type::Int, Imm::Int(v))
}
fn op(o: B, d: &str, ty: Type, args: &[&str]) -> I {
    I::value(o, d, ty, args)
}
fn print(args: &[&str]) -> I {
    I::effect(B::Print, args)
}
fn main_of(body: Vec<I>) -> FuncSpec {
    let mut f = FuncSpec::new("main");
    for i in body {
        f.inst(i);
    }
    f
}
fn run_funcs(funcs: &[FuncSpec], args: &[&str]) -> RunResult {
    let (_, m) = build_module("t.bril", funcs);
    run(&m, &RunConfig::with_args(args.iter().copied()))
}

#[test]
fn arithmetic_wraps_and_prints() {
    let f = main_of(vec![
        int("a", i64::MAX as i128),
        int("one", 1),
        op(B::Add, "b", Type::Int, &["a", "one"]),
        int("m", -7),
        int("two", 2),
        op(B::Div, "q", Type::Int, &["m", "two"]),
        op(B::Mul, "p", Type::Int, &["a", "a"]),
        op(B::Lt, "c", Type::Bool, &["m", "two"]),
        op(B::Not, "n", Type::Bool, &["c"]),
        print(&["b", "q", "p", "c", "n"]),
        print(&[]),
    ]);
    let r = run_funcs(&[f], &[]);
    assert_eq!(r.error, None);
    assert_eq!(r.stdout, "-9223372036854775808 -3 1 true false\n\n");
    assert_eq!(r.dyn_inst, 11);
}

#[test]
fn floats_chars_and_profile_count_terminators_but_not_labels() {
    let mut f = FuncSpec::new("main");
    f.inst(I::constant("x", Type::Float, Imm::Float(0.5)))
        .inst(I::constant("y", Type::Float, Imm::Int(3)))
        .inst(op(B::Fdiv, "z", Type::Float, &["x", "y"]))
        .inst(op(B::Fgt, "g", Type::Bool, &["z", "x"]))
        .inst(I::constant("c", Type::Char, Imm::Char('h')))
        .inst(op(B::Char2Int, "ci", Type::Int, &["c"]))
        .inst(int("k", 105))
        .inst(op(B::Int2Char, "i", Type::Char, &["k"]))
        .inst(op(B::Clt, "lt", Type::Bool, &["c", "i"]))
        .inst(I::jmp("end"))
        .label("dead")
        .inst(print(&["x"]))
        .label("end")
        .inst(print(&["z", "g", "c", "ci", "i", "lt"]))
        .inst(I::effect(B::Nop, &[]));
    let r = run_funcs(&[f], &[]);
    assert_eq!(r.error, None);
    assert_eq!(r.stdout, "0.16666666666666666 false h 104 i true\n");
    assert_eq!(r.dyn_inst, 12);
}

#[test]
fn calls_recursion_and_arguments_from_the_command_line() {
    // fact(n) = n <= 1 ? 1 : n * fact(n - 1)
    let mut fact = FuncSpec::new("fact");
    fact.params.push(("n".into(), Type::Int));
    fact.ret = Some(Type::Int);
    fact.inst(int("one", 1))
        .inst(op(B::Le, "base", Type::Bool, &["n", "one"]))
        .inst(I::br("base", "done", "rec"))
        .label("done")
        .inst(I::ret(Some("one")))
        .label("rec")
        .inst(op(B::Sub, "m", Type::Int, &["n", "one"]))
        .inst(I::call(Some(("r", Type::Int)), "fact", &["m"]))
        .inst(op(B::Mul, "p", Type::Int, &["n", "r"]))
        .inst(I::ret(Some("p")));
    let mut main = FuncSpec::new("main");
    main.params = vec![("n".into(), Type::Int), ("flag".into(), Type::Bool), ("c".into(), Type::Char)];
    main.inst(I::call(Some(("f", Type::Int)), "fact", &["n"])).inst(print(&["f", "flag", "c"]));
    let r = run_funcs(&[main.clone(), fact.clone()], &["20", "true", "z"]);
    assert_eq!(r.error, None, "{}", r.stdout);
    assert_eq!(r.stdout, "2432902008176640000 true z\n");

    let r = run_funcs(&[main.clone(), fact.clone()], &["5"]);
    assert!(matches!(r.error.unwrap().kind, ErrorKind::ArgCount { expected: 3, got: 1, .. }));
    let r = run_funcs(&[main.clone(), fact.clone()], &["5", "yes", "z"]);
    assert!(matches!(r.error.unwrap().kind, ErrorKind::BadArgument(_)));

    // Bounded recursion: an explicit frame stack, a clear error, no native overflow.
    let cfg = RunConfig { depth_limit: 50, ..RunConfig::with_args(["100", "false", "a"]) };
    let (_, m) = build_module("t.bril", &[main, fact]);
    let r = run(&m, &cfg);
    assert_eq!(r.error.unwrap().kind, ErrorKind::DepthLimit(50));
}

#[test]
fn deep_recursion_does_not_touch_the_native_stack() {
    let mut down = FuncSpec::new("down");
    down.params.push(("n".into(), Type::Int));
    down.inst(int("zero", 0))
        .inst(op(B::Eq, "z", Type::Bool, &["n", "zero"]))
        .inst(I::br("z", "out", "more"))
        .label("more")
        .inst(int("one", 1))
        .inst(op(B::Sub, "m", Type::Int, &["n", "one"]))
        .inst(I::call(None, "down", &["m"]))
        .label("out");
    let mut main = FuncSpec::new("main");
    main.inst(int("n", 90_000)).inst(I::call(None, "down", &["n"])).inst(print(&["n"]));
    let r = run_funcs(&[main, down], &[]);
    assert_eq!(r.error, None);
    assert_eq!(r.stdout, "90000\n");
}

#[test]
fn errors_carry_the_instruction_span_and_keep_earlier_output() {
    let f = main_of(vec![
        int("a", 1),
        int("z", 0),
        print(&["a"]),
        op(B::Div, "q", Type::Int, &["a", "z"]),
        print(&["q"]),
    ]);
    let (text, m) = build_module("t.bril", &[f]);
    let r = run(&m, &RunConfig::default());
    assert_eq!(r.stdout, "1\n");
    let e = r.error.clone().unwrap();
    assert_eq!(e.kind, ErrorKind::DivisionByZero);
    assert_eq!(&text[e.span.lo as usize..e.span.hi as usize], "q: int = div a z");
    assert!(r.render_error(&m.source).unwrap().starts_with("t.bril:5:3: error: division by zero"));
    assert_eq!(r.dyn_inst, 4);
}

#[test]
fn undefined_variables_missing_functions_and_bad_types_are_errors() {
    let r = run_funcs(&[main_of(vec![print(&["ghost"])])], &[]);
    assert_eq!(r.error.unwrap().kind, ErrorKind::UndefinedVariable("ghost".into()));

    let r = run_funcs(&[main_of(vec![I::call(None, "nowhere", &[])])], &[]);
    assert_eq!(r.error.unwrap().kind, ErrorKind::UnknownFunction("nowhere".into()));

    let r = run_funcs(
        &[main_of(vec![I::constant("b", Type::Bool, Imm::Bool(true)), op(B::Add, "x", Type::Int, &["b", "b"])])],
        &[],
    );
    assert!(matches!(r.error.unwrap().kind, ErrorKind::TypeMismatch { .. }));

    let mut g = FuncSpec::new("g");
    g.params.push(("x".into(), Type::Int));
    let r = run_funcs(&[main_of(vec![int("a", 1), I::call(None, "g", &["a", "a"])]), g], &[]);
    assert_eq!(r.error.unwrap().kind, ErrorKind::ArgCount { func: "g".into(), expected: 1, got: 2 });

    let r = run_funcs(&[FuncSpec::new("notmain")], &[]);
    assert_eq!(r.error.unwrap().kind, ErrorKind::NoMain);
}

#[test]
fn memory_errors_and_leaks() {
    let ptr = Type::Ptr(Box::new(Type::Int));
    let alloc = |n: &str| op(B::Alloc, "p", ptr.clone(), &[n]);
    let base = || vec![int("n", 2), int("one", 1), int("v", 42), alloc("n")];

    let mut ok = base();
    ok.extend([
        op(B::PtrAdd, "q", ptr.clone(), &["p", "one"]),
        I::effect(B::Store, &["q", "v"]),
        op(B::Load, "x", Type::Int, &["q"]),
        print(&["x"]),
        I::effect(B::Free, &["p"]),
    ]);
    let r = run_funcs(&[main_of(ok)], &[]);
    assert_eq!((r.stdout.as_str(), r.error), ("42\n", None));

    let mut leak = base();
    leak.push(print(&["v"]));
    let r = run_funcs(&[main_of(leak)], &[]);
    assert_eq!(r.stdout, "42\n");
    let e = r.error.unwrap();
    assert_eq!(e.kind, ErrorKind::Leak { allocations: 1 });
    assert_eq!(e.kind.to_string(), "Some memory locations have not been freed by end of execution.");

    let mut oob = base();
    oob.extend([op(B::PtrAdd, "q", ptr.clone(), &["p", "n"]), I::effect(B::Store, &["q", "v"])]);
    let r = run_funcs(&[main_of(oob)], &[]);
    assert_eq!(r.error.unwrap().kind, ErrorKind::OutOfBounds { offset: 2, size: 2 });

    let mut uaf = base();
    uaf.extend([I::effect(B::Free, &["p"]), op(B::Load, "x", Type::Int, &["p"])]);
    let r = run_funcs(&[main_of(uaf)], &[]);
    assert_eq!(r.error.unwrap().kind, ErrorKind::UseAfterFree);

    let mut df = base();
    df.extend([I::effect(B::Free, &["p"]), I::effect(B::Free, &["p"])]);
    let r = run_funcs(&[main_of(df)], &[]);
    assert_eq!(r.error.unwrap().kind, ErrorKind::DoubleFree);

    let mut uninit = base();
    uninit.push(op(B::Load, "x", Type::Int, &["p"]));
    let r = run_funcs(&[main_of(uninit)], &[]);
    assert_eq!(r.error.unwrap().kind, ErrorKind::Uninitialized);

    let r = run_funcs(&[main_of(vec![int("n", 1 << 40), alloc("n")])], &[]);
    assert!(matches!(r.error.unwrap().kind, ErrorKind::OutOfMemory { .. }));
    let r = run_funcs(&[main_of(vec![int("n", 0), alloc("n")])], &[]);
    assert_eq!(r.error.unwrap().kind, ErrorKind::AllocSize(0));
}

#[test]
fn step_limit_stops_an_infinite_loop() {
    let mut f = FuncSpec::new("main");
    f.label("top").inst(I::jmp("top"));
    let (_, m) = build_module("t.bril", &[f]);
    let r = run(&m, &RunConfig { step_limit: 1000, ..RunConfig::default() });
    assert_eq!(r.error.unwrap().kind, ErrorKind::StepLimit(1000));
    assert_eq!(r.dyn_inst, 1000);
}

#[test]
fn fall_through_and_implicit_return() {
    let mut f = FuncSpec::new("main");
    f.inst(int("a", 1)).label("next").inst(print(&["a"])).label("last");
    let r = run_funcs(&[f], &[]);
    assert_eq!((r.stdout.as_str(), r.dyn_inst, r.error), ("1\n", 2, None));
}

#[test]
fn malformed_ir_is_an_error_not_a_panic() {
    let f = main_of(vec![int("a", 1), print(&["a"])]);
    let (_, mut m) = build_module("t.bril", &[f]);
    let func = &mut m.functions[0];
    // An operand id past the value arena, a jump to a missing block, a missing instruction.
    let first = func.blocks[func.layout[0]].insts[1];
    func.insts[first].args.push(crate::ir::ValueId(999));
    let r = run(&m, &RunConfig::default());
    assert!(matches!(r.error.unwrap().kind, ErrorKind::Malformed(_)));

    let func = &mut m.functions[0];
    let b = func.layout[0];
    func.blocks[b].insts.push(crate::ir::InstId(12345));
    func.layout.push(BlockId(77));
    let r = run(&m, &RunConfig::default());
    assert!(matches!(r.error.unwrap().kind, ErrorKind::Malformed(_)));

    let mut g = FuncSpec::new("main");
    g.inst(I::jmp("nowhere"));
    let r = run_funcs(&[g], &[]);
    assert!(matches!(r.error.unwrap().kind, ErrorKind::Malformed(_)));

    // A parameter id past the value arena, on the entry function and on a callee.
    let mut callee = FuncSpec::new("g");
    callee.params.push(("x".into(), Type::Int));
    let (_, mut m) = build_module("t.bril", &[main_of(vec![int("a", 1), I::call(None, "g", &["a"])]), callee]);
    m.functions[1].params[0] = crate::ir::ValueId(999);
    let r = run(&m, &RunConfig::default());
    assert!(matches!(r.error.unwrap().kind, ErrorKind::Malformed(_)));
    m.functions[0].params.push(crate::ir::ValueId(999));
    let r = run(&m, &RunConfig::with_args(["1"]));
    assert!(matches!(r.error.unwrap().kind, ErrorKind::Malformed(_)));
}

#[test]
fn call_return_checks_follow_brili() {
    let mut f = FuncSpec::new("f");
    f.ret = Some(Type::Int);
    f.inst(int("x", 3)).inst(I::ret(Some("x")));
    let r = run_funcs(&[main_of(vec![I::call(None, "f", &[])]), f.clone()], &[]);
    assert!(matches!(r.error.unwrap().kind, ErrorKind::BadReturn { .. }));
    let r = run_funcs(&[main_of(vec![I::call(Some(("y", Type::Bool)), "f", &[])]), f.clone()], &[]);
    assert!(matches!(r.error.unwrap().kind, ErrorKind::BadReturn { .. }));
    let r = run_funcs(&[main_of(vec![I::call(Some(("y", Type::Int)), "f", &[]), print(&["y"])]), f], &[]);
    assert_eq!((r.stdout.as_str(), r.error), ("3\n", None));
}

#[test]
fn args_come_from_the_args_comment() {
    assert_eq!(args_from_source("# ARGS: 1 2 -3\n@main {}"), vec!["1", "2", "-3"]);
    assert_eq!(args_from_source("#ARGS: 64 24 \n"), vec!["64", "24"]);
    assert!(args_from_source("@main {}\n").is_empty());
    assert_eq!(parse_int_arg("012349420"), Some(12_349_420));
    assert_eq!(parse_int_arg("834783272583879352"), Some(834_783_272_583_879_352));
    assert_eq!(parse_int_arg("1e3"), Some(1000));
    assert_eq!(parse_int_arg("2.5"), None);
    assert_eq!(parse_int_arg("abc"), None);
    assert_eq!(parse_float_arg("-Infinity"), Some(f64::NEG_INFINITY));
    assert_eq!(parse_float_arg("NaN"), None);
}
