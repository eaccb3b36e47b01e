//! Unit tests on hand-built SIL functions (independent of the text parser).

use super::*;
use crate::diag::SourceFile;
use crate::ir::{Block, Function, Inst, InstId, Item, Lang, Module, Op, SilOp, Succ, Type, ValueDef, ValueId};
use std::collections::HashMap;

/// A tiny assembler: values by name, blocks by name, one instruction per call.
struct Asm {
    f: Function,
    vals: HashMap<String, ValueId>,
    blocks: HashMap<String, BlockId>,
}

impl Asm {
    fn new(name: &str) -> Asm {
        Asm { f: Function::new(name, Lang::Sil), vals: HashMap::new(), blocks: HashMap::new() }
    }
    fn block(&mut self, name: &str, params: &[(&str, &str)]) -> BlockId {
        let b = self.f.add_block(Block::new(name));
        for (k, (p, ty)) in params.iter().enumerate() {
            let v = self.f.add_value(*p, Some(Type::Sil((*ty).into())), ValueDef::Param { block: b, index: k as u32 });
            self.vals.insert(p.to_string(), v);
            self.f.blocks[b].params.push(v);
        }
        self.blocks.insert(name.to_string(), b);
        b
    }
    fn v(&mut self, name: &str) -> ValueId {
        if name == "undef" {
            return self.f.add_undef(None);
        }
        if let Some(&v) = self.vals.get(name) {
            return v;
        }
        let v = self.f.add_value(name, None, ValueDef::Var);
        self.vals.insert(name.to_string(), v);
        v
    }
    fn bb(&mut self, name: &str) -> BlockId {
        match self.blocks.get(name) {
            Some(&b) => b,
            None => {
                let b = self.f.blocks.push(Block::new(name));
                self.blocks.insert(name.to_string(), b);
                b
            }
        }
    }
    /// Adds `results = op args` (with `imm`, `ty`, `funcs`) to block `b`.
    fn i(&mut self, b: BlockId, op: SilOp, results: &[&str], args: &[&str], imm: Imm, ty: Option<&str>) -> InstId {
        let mut inst = Inst::new(Op::Sil(op));
        inst.results = results.iter().map(|r| self.v(r)).collect();
        inst.args = args.iter().map(|a| self.v(a)).collect();
        inst.imm = imm;
        inst.ty = ty.map(|t| Type::Sil(t.into()));
        let id = self.f.add_inst(inst);
        if self.f.insts[id].is_terminator() {
            self.f.blocks[b].term = Some(id);
        } else {
            self.f.blocks[b].insts.push(id);
        }
        id
    }
    fn lit(&mut self, b: BlockId, r: &str, bits: u32, v: i128) {
        self.i(b, SilOp::IntegerLiteral, &[r], &[], Imm::Int(v), Some(&format!("Builtin.Int{bits}")));
    }
    fn builtin(&mut self, b: BlockId, r: &str, name: &str, args: &[&str]) {
        self.i(b, SilOp::Builtin, &[r], args, Imm::Name(name.into()), None);
    }
    fn br(&mut self, b: BlockId, to: &str, args: &[&str]) {
        let id = self.i(b, SilOp::Br, &[], &[], Imm::None, None);
        let target = self.bb(to);
        let args = args.iter().map(|a| self.v(a)).collect();
        self.f.insts[id].succs = vec![Succ { block: target, args }];
    }
    fn cond_br(&mut self, b: BlockId, cond: &str, t: &str, e: &str) {
        let id = self.i(b, SilOp::CondBr, &[], &[cond], Imm::None, None);
        let (t, e) = (self.bb(t), self.bb(e));
        self.f.insts[id].succs = vec![Succ::to(t), Succ::to(e)];
    }
    fn place(&mut self, name: &str, params: &[(&str, &str)]) -> BlockId {
        let b = self.bb(name);
        self.f.layout.push(b);
        for (k, (p, ty)) in params.iter().enumerate() {
            let v = self.f.add_value(*p, Some(Type::Sil((*ty).into())), ValueDef::Param { block: b, index: k as u32 });
            self.vals.insert(p.to_string(), v);
            self.f.blocks[b].params.push(v);
        }
        b
    }
}

fn module(funcs: Vec<Function>, raw: &[&str]) -> Module {
    let mut items: Vec<Item> = raw.iter().map(|t| Item::Raw { text: t.to_string(), span: Span::DUMMY }).collect();
    items.extend((0..funcs.len()).map(Item::Function));
    Module { lang: Lang::Sil, functions: funcs, items, source: Arc::new(SourceFile::new("t.sil", "")) }
}

fn int32(v: i128) -> SilValue {
    SilValue::wrapped("Int32", 32, v)
}

/// seed 000's `dead1`, returning the sum instead of `%0`, with the overflow check.
fn checked_add() -> Function {
    let mut a = Asm::new("add");
    let b0 = a.block("bb0", &[("0", "Int32"), ("1", "Int32")]);
    a.i(b0, SilOp::StructExtract, &["3"], &["0"], Imm::Name("#Int32._value".into()), None);
    a.i(b0, SilOp::StructExtract, &["4"], &["1"], Imm::Name("#Int32._value".into()), None);
    a.lit(b0, "5", 1, -1);
    a.builtin(b0, "6", "sadd_with_overflow_Int32", &["3", "4", "5"]);
    a.i(b0, SilOp::TupleExtract, &["7"], &["6"], Imm::Index(0), None);
    a.i(b0, SilOp::TupleExtract, &["o"], &["6"], Imm::Index(1), None);
    a.i(b0, SilOp::CondFail, &[], &["o"], Imm::None, None);
    a.i(b0, SilOp::Struct, &["8"], &["7"], Imm::None, Some("Int32"));
    a.i(b0, SilOp::Return, &[], &["8"], Imm::None, None);
    a.f
}

#[test]
fn integer_structs_and_overflow_traps() {
    let m = module(vec![checked_add()], &[]);
    let r = run_values(&m, "add", &[int32(2), int32(40)], &RunConfig::default());
    assert_eq!(r.value, Some(int32(42)));
    assert_eq!(r.result.returned.as_deref(), Some("Int32(42)"));
    assert_eq!(r.result.dyn_inst, 9);

    let r = run(&m, "add", &RunConfig::with_args(["2147483647", "1"]));
    assert_eq!(r.error.as_ref().unwrap().kind, ErrorKind::CondFail);
    assert_eq!(r.error.unwrap().kind.to_string(), "cond_fail: overflow/trap");

    let r = run(&m, "add", &RunConfig::with_args(["-5", "-7"]));
    assert_eq!(r.returned.as_deref(), Some("Int32(-12)"));
    let r = run(&m, "add", &RunConfig::with_args(["5"]));
    assert!(matches!(r.error.unwrap().kind, ErrorKind::ArgCount { .. }));
    let r = run(&m, "add", &RunConfig::with_args(["5", "99999999999"]));
    assert!(matches!(r.error.unwrap().kind, ErrorKind::BadArgument(_)));
}

/// seed 000's `dead2` loop with block arguments, returning the counter.
#[test]
fn loops_with_block_arguments() {
    let mut a = Asm::new("count");
    let b0 = a.place("bb0", &[]);
    a.lit(b0, "0", 32, 2);
    a.lit(b0, "1", 32, 0);
    a.br(b0, "bb1", &["0", "1"]);
    let b1 = a.place("bb1", &[("3", "Builtin.Int32"), ("4", "Builtin.Int32")]);
    a.lit(b1, "5", 32, 100);
    a.builtin(b1, "7", "cmp_slt_Int32", &["4", "5"]);
    a.cond_br(b1, "7", "bb2", "bb3");
    let b2 = a.place("bb2", &[]);
    a.lit(b2, "9", 32, 3);
    a.lit(b2, "11", 1, -1);
    a.builtin(b2, "12", "sadd_with_overflow_Int32", &["3", "9", "11"]);
    a.i(b2, SilOp::TupleExtract, &["13"], &["12"], Imm::Index(0), None);
    a.lit(b2, "14", 32, 1);
    a.builtin(b2, "15", "sadd_with_overflow_Int32", &["4", "14", "11"]);
    a.i(b2, SilOp::TupleExtract, &["16"], &["15"], Imm::Index(0), None);
    a.br(b2, "bb1", &["13", "16"]);
    let b3 = a.place("bb3", &[]);
    a.i(b3, SilOp::Tuple, &["r"], &["3", "4"], Imm::None, None);
    a.i(b3, SilOp::Return, &[], &["r"], Imm::None, None);
    let m = module(vec![a.f], &[]);
    let r = run(&m, "count", &RunConfig::default());
    assert_eq!(r.error, None);
    assert_eq!(r.returned.as_deref(), Some("(302, 100)"));
    // Entry, 100 iterations of the loop test and body, the final test and the exit.
    assert_eq!(r.dyn_inst, 3 + 100 * (3 + 8) + 3 + 2);

    let r = run(&m, "count", &RunConfig { step_limit: 50, ..RunConfig::default() });
    assert_eq!(r.error.unwrap().kind, ErrorKind::StepLimit(50));
}

/// Recursion through `function_ref` + `apply`, on an explicit stack.
fn sum_to() -> Function {
    // sum(n) = n == 0 ? 0 : n + sum(n - 1)   over Builtin.Int64
    let mut a = Asm::new("sum");
    let b0 = a.place("bb0", &[("n", "Builtin.Int64")]);
    a.lit(b0, "zero", 64, 0);
    a.builtin(b0, "z", "cmp_eq_Int64", &["n", "zero"]);
    a.cond_br(b0, "z", "base", "rec");
    let base = a.place("base", &[]);
    a.i(base, SilOp::Return, &[], &["zero"], Imm::None, None);
    let rec = a.place("rec", &[]);
    a.lit(rec, "one", 64, 1);
    a.builtin(rec, "m", "sub_Int64", &["n", "one"]);
    let fr = a.i(rec, SilOp::FunctionRef, &["f"], &[], Imm::None, None);
    a.f.insts[fr].funcs = vec!["sum".into()];
    a.i(rec, SilOp::Apply, &["s"], &["f", "m"], Imm::None, Some("@convention(thin) (Builtin.Int64) -> Builtin.Int64"));
    a.builtin(rec, "r", "add_Int64", &["n", "s"]);
    a.i(rec, SilOp::Return, &[], &["r"], Imm::None, None);
    a.f
}

#[test]
fn recursion_is_bounded_and_off_the_native_stack() {
    let m = module(vec![sum_to()], &[]);
    let r = run(&m, "sum", &RunConfig::with_args(["50000"]));
    assert_eq!(r.error, None);
    assert_eq!(r.returned.as_deref(), Some("1250025000"));
    let r = run(&m, "sum", &RunConfig { depth_limit: 100, ..RunConfig::with_args(["500"]) });
    assert_eq!(r.error.unwrap().kind, ErrorKind::DepthLimit(100));
}

#[test]
fn calls_of_bodyless_functions_are_printed() {
    let mut a = Asm::new("main");
    let b0 = a.place("bb0", &[]);
    a.lit(b0, "x", 32, 7);
    a.i(b0, SilOp::Struct, &["s"], &["x"], Imm::None, Some("Int32"));
    let fr = a.i(b0, SilOp::FunctionRef, &["f"], &[], Imm::None, None);
    a.f.insts[fr].funcs = vec!["take_int32".into()];
    a.i(b0, SilOp::Apply, &["r"], &["f", "s"], Imm::None, Some("@convention(thin) (Int32) -> ()"));
    a.i(b0, SilOp::FixLifetime, &[], &["s"], Imm::None, None);
    a.i(b0, SilOp::Tuple, &["u"], &[], Imm::None, None);
    a.i(b0, SilOp::Return, &[], &["u"], Imm::None, None);
    let decl = Function::new("take_int32", Lang::Sil);
    let m = module(vec![a.f, decl], &[]);
    let r = run(&m, "main", &RunConfig::default());
    assert_eq!(r.error, None);
    assert_eq!(r.stdout, "@take_int32(Int32(7))\n");
    assert_eq!(r.returned.as_deref(), Some("()"));
}

#[test]
fn unmodelled_instructions_and_undef_stop_the_run() {
    let mut a = Asm::new("main");
    let b0 = a.place("bb0", &[("p", "*Container")]);
    a.i(b0, SilOp::RefElementAddr, &["q"], &["p"], Imm::Name("#Container.i".into()), None);
    a.i(b0, SilOp::Return, &[], &["q"], Imm::None, None);
    let m = module(vec![a.f], &[]);
    let r = run_values(&m, "main", &[SilValue::unit()], &RunConfig::default());
    assert_eq!(r.result.error.unwrap().kind, ErrorKind::NotModelled("ref_element_addr".into()));

    let mut a = Asm::new("loop");
    let b0 = a.place("bb0", &[]);
    a.cond_br(b0, "undef", "bb0", "bb0");
    let m = module(vec![a.f], &[]);
    let r = run(&m, "loop", &RunConfig::default());
    assert_eq!(r.error.unwrap().kind, ErrorKind::UndefinedVariable("undef".into()));

    let r = run(&m, "nothing", &RunConfig::default());
    assert_eq!(r.error.unwrap().kind, ErrorKind::UnknownFunction("nothing".into()));
}

#[test]
fn multi_field_structs_use_the_declaration_order() {
    let mut a = Asm::new("second");
    let b0 = a.place("bb0", &[]);
    a.lit(b0, "x", 32, 1);
    a.lit(b0, "y", 32, 2);
    a.i(b0, SilOp::Struct, &["p"], &["x", "y"], Imm::None, Some("Point"));
    a.i(b0, SilOp::StructExtract, &["r"], &["p"], Imm::Name("#Point.y".into()), None);
    a.i(b0, SilOp::Return, &[], &["r"], Imm::None, None);
    let m = module(vec![a.f.clone()], &["struct Point {\n  var x: Builtin.Int32\n  var y: Builtin.Int32\n}"]);
    assert_eq!(run(&m, "second", &RunConfig::default()).returned.as_deref(), Some("2"));
    let m = module(vec![a.f], &[]);
    assert!(matches!(run(&m, "second", &RunConfig::default()).error.unwrap().kind, ErrorKind::NotModelled(_)));
}

#[test]
fn malformed_ir_is_an_error_not_a_panic() {
    let mut f = checked_add();
    let b = f.layout[0];
    f.blocks[b].term = None;
    let m = module(vec![f], &[]);
    let r = run_values(&m, "add", &[int32(1), int32(2)], &RunConfig::default());
    assert!(matches!(r.result.error.unwrap().kind, ErrorKind::Malformed(_)));

    let mut f = checked_add();
    let i = f.blocks[f.layout[0]].insts[0];
    f.insts[i].args = vec![ValueId(4242)].into();
    let m = module(vec![f], &[]);
    let r = run_values(&m, "add", &[int32(1), int32(2)], &RunConfig::default());
    assert!(matches!(r.result.error.unwrap().kind, ErrorKind::Malformed(_)));

    let m = module(vec![checked_add()], &[]);
    let r = run_values(&m, "add", &[SilValue::unit(), int32(2)], &RunConfig::default());
    assert!(matches!(r.result.error.unwrap().kind, ErrorKind::Malformed(_)));
}

#[test]
fn builtins_wrap_at_their_width() {
    let i = |bits, v| SilValue::int(bits, v);
    let t = |v: i128, o: bool| SilValue::Tuple(vec![i(8, v), i(1, i128::from(o))]);
    assert_eq!(builtin("sadd_with_overflow_Int8", &[i(8, 127), i(8, 1), i(1, 1)]), Ok(t(-128, true)));
    assert_eq!(builtin("sadd_with_overflow_Int8", &[i(8, 100), i(8, -1), i(1, 1)]), Ok(t(99, false)));
    assert_eq!(builtin("uadd_with_overflow_Int8", &[i(8, 255), i(8, 1), i(1, 1)]), Ok(t(0, true)));
    assert_eq!(builtin("ssub_with_overflow_Int8", &[i(8, -128), i(8, 1), i(1, 1)]), Ok(t(127, true)));
    assert_eq!(builtin("usub_with_overflow_Int8", &[i(8, 0), i(8, 1), i(1, 1)]), Ok(t(-1, true)));
    assert_eq!(builtin("smul_with_overflow_Int8", &[i(8, 16), i(8, 8), i(1, 1)]), Ok(t(-128, true)));
    assert_eq!(builtin("smul_with_overflow_Int8", &[i(8, -16), i(8, 8), i(1, 1)]), Ok(t(-128, false)));
    assert_eq!(builtin("umul_with_overflow_Int8", &[i(8, 16), i(8, 16), i(1, 1)]), Ok(t(0, true)));
    let big = |v| SilValue::int(128, v);
    let t128 = |v, o: bool| SilValue::Tuple(vec![big(v), i(1, i128::from(o))]);
    assert_eq!(builtin("sadd_with_overflow_Int128", &[big(i128::MAX), big(1), i(1, 1)]), Ok(t128(i128::MIN, true)));
    assert_eq!(builtin("cmp_slt_Int8", &[i(8, -1), i(8, 0)]), Ok(i(1, 1)));
    assert_eq!(builtin("cmp_ult_Int8", &[i(8, -1), i(8, 0)]), Ok(i(1, 0)));
    assert_eq!(builtin("cmp_ne_Int32", &[i(32, 3), i(32, 3)]), Ok(i(1, 0)));
    assert_eq!(builtin("shl_Int8", &[i(8, 0x41), i(8, 1)]), Ok(i(8, 0x82)));
    assert_eq!(builtin("ashr_Int8", &[i(8, -128), i(8, 7)]), Ok(i(8, -1)));
    assert_eq!(builtin("lshr_Int8", &[i(8, -128), i(8, 7)]), Ok(i(8, 1)));
    assert!(matches!(builtin("shl_Int8", &[i(8, 1), i(8, 8)]), Err(ErrorKind::Trap(_))));
    assert_eq!(builtin("trunc_Int32_Int8", &[i(32, 0x1ff)]), Ok(i(8, -1)));
    assert_eq!(builtin("sext_Int8_Int32", &[i(8, -2)]), Ok(i(32, -2)));
    assert_eq!(builtin("zext_Int8_Int32", &[i(8, -2)]), Ok(i(32, 254)));
    assert_eq!(builtin("zextOrBitCast_Int1_Int64", &[i(1, 1)]), Ok(i(64, 1)));
    assert_eq!(builtin("sdiv_Int32", &[i(32, -7), i(32, 2)]), Ok(i(32, -3)));
    assert_eq!(builtin("srem_Int32", &[i(32, -7), i(32, 2)]), Ok(i(32, -1)));
    assert_eq!(builtin("sdiv_Int32", &[i(32, 1), i(32, 0)]), Err(ErrorKind::DivisionByZero));
    assert!(matches!(builtin("sdiv_Int8", &[i(8, -128), i(8, -1)]), Err(ErrorKind::Trap(_))));
    assert!(matches!(builtin("once", &[]), Err(ErrorKind::NotModelled(_))));
    assert!(matches!(builtin("fadd_FPIEEE64", &[]), Err(ErrorKind::NotModelled(_))));
    assert!(matches!(builtin("add_Int32", &[i(8, 1), i(8, 1)]), Err(ErrorKind::Malformed(_))));
    assert!(matches!(builtin("int_trap", &[]), Err(ErrorKind::Trap(_))));
}

#[test]
fn arguments_parse_by_type() {
    assert_eq!(parse_arg("Int32", "-5"), Ok(int32(-5)));
    assert_eq!(parse_arg("Int", "5"), Ok(SilValue::wrapped("Int", 64, 5)));
    assert_eq!(parse_arg("UInt8", "255"), Ok(SilValue::wrapped("UInt8", 8, 255)));
    assert!(parse_arg("UInt8", "256").is_err());
    assert!(parse_arg("Int8", "-129").is_err());
    assert_eq!(parse_arg("Bool", "true"), Ok(SilValue::bool(true)));
    assert_eq!(parse_arg("Builtin.Int32", "-1"), Ok(SilValue::int(32, -1)));
    assert_eq!(parse_arg("Builtin.Int1", "true"), Ok(SilValue::int(1, 1)));
    assert!(parse_arg("*Container", "1").is_err());
    assert_eq!(SilValue::bool(false).to_string(), "false");
}
