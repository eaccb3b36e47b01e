//! The SIL parser and printers against Swift's own DCE tests and the seed articles' examples:
//! everything parses and verifies, prints back to text that parses to the same module, and
//! the renumbered output is what `sil-opt` would print.

mod common;

use optlab_core::ir::{self, Imm, Inst, Item, Module, Op, Piece, SilOp, Succ, Type, ValueDef};
use optlab_core::parse::sil::parse;
use optlab_core::print::sil::{print_function, print_module};
use optlab_core::print::Naming;
use optlab_core::{Function, SourceFile};

fn parse_ok(name: &str, text: &str) -> Module {
    match parse(name, text) {
        Ok(m) => m,
        Err(d) => panic!("{name} failed to parse:\n{}", d.render(&SourceFile::new(name, text))),
    }
}

/// Every function verifies; printing with `naming` and parsing again is stable.
fn check_round_trips(name: &str, m: &Module) {
    for f in &m.functions {
        if let Err(e) = ir::verify(f) {
            panic!("{name}: `{}` does not verify: {:?}", f.name, e);
        }
    }
    let user = print_module(m, Naming::User);
    let again = parse_ok(&format!("{name} (printed)"), &user);
    assert!(again == *m, "{name}: User printing does not parse back to the same module:\n{user}");
    assert_eq!(print_module(&again, Naming::User), user, "{name}: User printing is not a fixpoint");

    let renumbered = print_module(m, Naming::Renumber);
    let again = parse_ok(&format!("{name} (renumbered)"), &renumbered);
    assert_eq!(print_module(&again, Naming::Renumber), renumbered, "{name}: Renumber printing is not a fixpoint");
    // Renumbered names are the user's names of the re-parsed module.
    assert_eq!(print_module(&again, Naming::User), without_sil_opt_comments(&renumbered), "{name}: renumbered text names differ");
    for f in &again.functions {
        ir::verify(f).unwrap();
    }
    // The file's own comments never leak into the output; sil-opt's (`// id: %N`,
    // `// function_ref f`) are printed when renumbering, and nowhere else.
    for out in [&user, &without_sil_opt_comments(&renumbered)] {
        assert!(!out.contains("CHECK"), "{name}: comments leaked into the output");
        for line in out.lines().filter(|l| l.contains("//")) {
            assert!(line.starts_with("} // end sil function '"), "{name}: stray comment `{line}`");
        }
    }
}

fn func<'m>(m: &'m Module, name: &str) -> &'m Function {
    m.function(name).unwrap_or_else(|| panic!("no function `{name}`"))
}

/// The first placed instruction with opcode `op`.
fn first_inst<'f>(f: &'f Function, op: &str) -> &'f Inst {
    f.placed_insts()
        .map(|(_, i)| &f.insts[i])
        .find(|i| i.op.name() == op)
        .unwrap_or_else(|| panic!("`{}` has no `{op}`", f.name))
}

fn load_corpus(file: &str) -> Option<(String, Module)> {
    let dir = common::shared_dir()?;
    let path = dir.join("corpus/swift").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let m = parse_ok(file, &text);
    Some((text, m))
}

/// (file, functions, of which declarations, raw items) — counted by reading the files.
const CORPUS: &[(&str, usize, usize, usize)] = &[
    ("dead_code_elimination.sil", 11, 1, 5),
    ("dead_code_elimination_ossa.sil", 24, 6, 11),
    ("dead_code_elimination_nontrivial_ossa.sil", 48, 5, 8),
];

#[test]
fn every_corpus_function_parses_verifies_and_round_trips() {
    for &(file, funcs, decls, raws) in CORPUS {
        let Some((_, m)) = load_corpus(file) else { return };
        assert_eq!(m.functions.len(), funcs, "{file}: functions");
        assert_eq!(m.functions.iter().filter(|f| f.is_declaration()).count(), decls, "{file}: declarations");
        let raw = m.items.iter().filter(|i| matches!(i, Item::Raw { .. })).count();
        assert_eq!(raw, raws, "{file}: raw items");
        assert_eq!(m.items.len(), funcs + raws, "{file}: items");
        check_round_trips(file, &m);
    }
}

#[test]
fn corpus_function_names_and_headers() {
    let Some((_, m)) = load_corpus("dead_code_elimination.sil") else { return };
    let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "dead1",
            "dead2",
            "dead3",
            "test_dce_bbargs",
            "take_int32",
            "remove_fix_lifetime",
            "dont_remove_fix_lifetime",
            "dont_remove_addr_fix_lifetime",
            "deal_with_infinite_loop",
            "dead_access",
            "dead_unconditional_checked_cast"
        ]
    );
    let h = func(&m, "test_dce_bbargs").sil.as_ref().unwrap();
    assert_eq!(h.linkage.as_deref(), Some("hidden"));
    assert_eq!(h.ty, "$@convention(thin) () -> ()");
    assert_eq!(
        print_function(func(&m, "take_int32"), Naming::User),
        "sil @take_int32 : $@convention(thin) (Int32) -> ()\n"
    );
    let raws: Vec<&str> = m
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Raw { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        raws,
        [
            "sil_stage canonical",
            "import Builtin",
            "import Swift",
            "struct Container {\n\tvar i: Int32\n}",
            "class B {}"
        ]
    );

    let Some((_, m)) = load_corpus("dead_code_elimination_nontrivial_ossa.sil") else { return };
    let f = func(&m, "$testtryapplyklassgen");
    assert!(f.is_declaration());
    assert_eq!(f.sil.as_ref().unwrap().attrs, ["ossa"]);
    let Some((_, m)) = load_corpus("dead_code_elimination_ossa.sil") else { return };
    assert_eq!(func(&m, "finalC").sil.as_ref().unwrap().attrs, ["readnone"]);
    let h = func(&m, "testDropDeinit").sil.as_ref().unwrap();
    assert_eq!((h.linkage.as_deref(), &h.attrs[..]), (Some("hidden"), &["ossa".to_string()][..]));
}

#[test]
fn test_dce_bbargs_has_trampolines_and_two_way_branches() {
    let Some((_, m)) = load_corpus("dead_code_elimination.sil") else { return };
    let f = func(&m, "test_dce_bbargs");
    let tramp = f.block_by_name("bbTrampoline1").expect("bbTrampoline1");
    assert!(f.block_by_name("bbTrampoline2").is_some());
    assert_eq!(f.layout.len(), 13);
    let bb4 = f.block_by_name("bb4").unwrap();
    let t = &f.insts[f.blocks[bb4].term.unwrap()];
    assert_eq!(t.op, Op::Sil(SilOp::CondBr));
    assert_eq!(t.succs.len(), 2);
    assert_eq!(t.succs[0].block, f.block_by_name("bb5").unwrap());
    assert_eq!(t.succs[1].block, tramp);
    assert_eq!(f.value_name(t.args[0]), "44");
    // `bbTrampoline1: br bb6(%28 : $Int32)` passes a value defined in another block.
    let tb = &f.insts[f.blocks[tramp].term.unwrap()];
    assert_eq!(tb.succs[0].block, f.block_by_name("bb6").unwrap());
    assert_eq!(f.value_name(tb.succs[0].args[0]), "28");
    assert!(matches!(f.values[tb.succs[0].args[0]].def, ValueDef::Param { index: 0, .. }));
    assert_eq!(
        *tb.sil,
        [
            Piece::Text("br ".into()),
            Piece::Succ(0),
            Piece::Text("(".into()),
            Piece::SuccArg(0, 0),
            Piece::Text(" : $Int32)".into())
        ]
    );
    let bb1 = f.block_by_name("bb1").unwrap();
    let p = f.blocks[bb1].params[2];
    assert_eq!((f.value_name(p), f.values[p].ty.clone()), ("15", Some(Type::Sil("Int32".into()))));
    // The apply's callee is its first operand.
    let apply = first_inst(f, "apply");
    assert_eq!(f.value_name(apply.args[0]), "tif");
    assert_eq!(f.value_name(apply.args[1]), "78");
    assert_eq!(first_inst(f, "function_ref").funcs, ["take_int32"]);
    assert_eq!(first_inst(f, "integer_literal").imm, Imm::Int(0));
    assert_eq!(first_inst(f, "struct_extract").imm, Imm::Name("#Int32._value".into()));
    let b = first_inst(f, "builtin");
    assert_eq!(b.imm, Imm::Name("cmp_slt_Int32".into()));
    assert_eq!(b.ty, Some(Type::Sil("Builtin.Int1".into())));
    assert_eq!(first_inst(f, "cond_fail").args.len(), 1);
}

#[test]
fn modelled_instructions_fill_their_fields() {
    let Some((_, m)) = load_corpus("dead_code_elimination.sil") else { return };
    let f = func(&m, "dead1");
    let lit = first_inst(f, "integer_literal");
    assert_eq!((lit.imm.clone(), lit.ty.clone()), (Imm::Int(-1), Some(Type::Sil("Builtin.Int1".into()))));
    let te = first_inst(f, "tuple_extract");
    assert_eq!(te.imm, Imm::Index(0));
    assert_eq!(f.values[te.results[0]].ty, Some(Type::Sil("Builtin.Int32".into())));
    let s = first_inst(f, "struct");
    assert_eq!(s.ty, Some(Type::Sil("Int32".into())));
    assert_eq!(s.args.len(), 1);
    let f = func(&m, "dead_access");
    assert_eq!(first_inst(f, "begin_access").attrs, ["modify", "dynamic"]);
    let f = func(&m, "deal_with_infinite_loop");
    let cb = first_inst(f, "cond_br");
    assert_eq!(f.values[cb.args[0]].def, ValueDef::Undef);
    let f = func(&m, "dead_unconditional_checked_cast");
    let cast = first_inst(f, "unconditional_checked_cast");
    assert_eq!(cast.ty, Some(Type::Sil("Builtin.NativeObject".into())));
    let apply = first_inst(f, "apply");
    assert_eq!(apply.args.len(), 1);
    assert_eq!(f.values[apply.args[0]].def, ValueDef::Undef);
    assert!(apply.results.is_empty());
    let f = func(&m, "dont_remove_addr_fix_lifetime");
    assert_eq!(first_inst(f, "struct_element_addr").imm, Imm::Name("#Container.i".into()));

    let Some((_, m)) = load_corpus("dead_code_elimination_ossa.sil") else { return };
    let f = func(&m, "nested_destructure_tuple");
    let entry = f.entry().unwrap();
    let first = &f.insts[f.blocks[entry].insts[0]];
    assert_eq!(first.op, Op::Sil(SilOp::DestructureTuple));
    assert_eq!(first.results.len(), 2);
    assert_eq!(f.values[first.results[1]].ty, Some(Type::Sil("(Int, Int, String)".into())));
    assert_eq!(f.values[f.blocks[entry].params[0]].ownership.as_deref(), Some("owned"));

    let f = func(&m, "keep_new_destroy_addr");
    let tries: Vec<&Inst> =
        f.placed_insts().map(|(_, i)| &f.insts[i]).filter(|i| i.op == Op::Sil(SilOp::TryApply)).collect();
    assert_eq!(tries.len(), 2);
    for t in &tries {
        assert_eq!(t.succs.len(), 2);
        assert!(t.is_terminator());
    }
    // `normal bb1` feeds bb1's parameter from the call's result: a stand-in undef, not printed.
    assert_eq!(tries[0].succs[0].block, f.block_by_name("bb1").unwrap());
    assert_eq!(tries[0].succs[0].args.len(), 1);
    assert_eq!(f.values[tries[0].succs[0].args[0]].def, ValueDef::Undef);
    assert_eq!(f.value_name(tries[1].args[1]), "err");
    assert_eq!(tries[1].succs[1].args.len(), 0);
    assert_eq!(first_inst(f, "load").attrs, ["take"]);

    let f = func(&m, "dont_delete_move_value_lexical");
    let entry = f.entry().unwrap();
    assert_eq!((f.blocks[entry].name.as_str(), f.blocks[entry].labeled), ("bb0", false));
    assert_eq!(first_inst(f, "move_value").attrs, ["lexical"]);
    assert!(print_function(f, Naming::User).contains(" {\n  %getC = function_ref @getC"));
    assert!(print_function(f, Naming::Renumber).contains(" {\nbb0:\n  // function_ref getC\n  %0 = function_ref @getC"));

    let f = func(&m, "dce_destroy_of_live_copy");
    let entry = f.entry().unwrap();
    assert_eq!(f.blocks[entry].name, "entry");
    assert_eq!(f.value_name(f.blocks[entry].params[0]), "condition");
    assert_eq!(first_inst(f, "cond_br").succs.len(), 2);

    let f = func(&m, "dont_remove_lifetime_end_of_escaping_value");
    assert_eq!(first_inst(f, "store").attrs, ["trivial"]);
    let pta = first_inst(f, "pointer_to_address");
    assert_eq!((pta.attrs.clone(), pta.ty.clone()), (vec!["strict".to_string()], Some(Type::Sil("*Bool".into()))));
    assert_eq!(first_inst(f, "mark_dependence").args.len(), 2);
    assert_eq!(*first_inst(f, "return").sil, [Piece::Text("return ".into()), Piece::Arg(0)]);

    let f = func(&m, "testDCEFixLifetime");
    assert_eq!(first_inst(f, "debug_value").args.len(), 1);
    assert_eq!(first_inst(f, "store_borrow").args.len(), 2);
    assert_eq!(f.values[first_inst(f, "alloc_stack").results[0]].ty, Some(Type::Sil("*S".into())));

    let Some((_, m)) = load_corpus("dead_code_elimination_nontrivial_ossa.sil") else { return };
    let f = func(&m, "borrow_none");
    let sw = first_inst(f, "switch_enum");
    assert_eq!(sw.succs.len(), 2);
    assert_eq!(sw.succs[0].block, f.block_by_name("work").unwrap());
    assert_eq!(sw.succs[0].args.len(), 1);
    assert!(print_function(f, Naming::User).contains(
        "switch_enum %outer_lifetime_1 : $FakeOptional<Klass>, case #FakeOptional.some!enumelt: work, case #FakeOptional.none!enumelt: to_exit, forwarding: @guaranteed\n"
    ));
    let f = func(&m, "dce_destructure1");
    let d = first_inst(f, "destructure_struct");
    assert_eq!(d.results.len(), 1);
    assert!(print_function(f, Naming::Renumber).contains("  (%1) = destructure_struct %0 : $NonTrivialStruct\n"));
    let f = func(&m, "dce_deadendlifetime1");
    let br = first_inst(f, "br");
    assert_eq!(f.values[br.succs[0].args[0]].def, ValueDef::Undef);
    assert_eq!(f.values[br.succs[0].args[0]].ty, Some(Type::Sil("Klass".into())));
}

/// Renumbered text without sil-opt's comments (`// id: %N`, `// function_ref f`), for
/// comparisons with the user's own printing, which has none.
fn without_sil_opt_comments(text: &str) -> String {
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with("// function_ref ") {
            continue;
        }
        match line.find(" // id: %") {
            Some(k) => {
                out.push_str(&line[..k]);
                if line.ends_with('\n') {
                    out.push('\n');
                }
            }
            None => out.push_str(line),
        }
    }
    out
}

const DEAD1_RENUMBERED: &str = "\
sil [ossa] @dead1 : $@convention(thin) (Int32, Int32) -> Int32 {
bb0(%0 : $Int32, %1 : $Int32):
  %2 = struct_extract %0 : $Int32, #Int32._value
  %3 = struct_extract %1 : $Int32, #Int32._value
  %4 = integer_literal $Builtin.Int1, -1
  %5 = builtin \"sadd_with_overflow_Int32\"(%2 : $Builtin.Int32, %3 : $Builtin.Int32, %4 : $Builtin.Int1) : $(Builtin.Int32, Builtin.Int1)
  %6 = tuple_extract %5 : $(Builtin.Int32, Builtin.Int1), 0
  %7 = struct $Int32 (%6 : $Builtin.Int32)
  return %0 : $Int32 // id: %8
} // end sil function 'dead1'
";

const DEAD2_RENUMBERED_TAIL: &str = "\
bb3:
  %16 = tuple ()
  return %16 : $() // id: %17
} // end sil function 'dead2'
";

#[test]
fn renumbered_output_is_what_sil_opt_prints() {
    let Some((_, m)) = load_corpus("dead_code_elimination_ossa.sil") else { return };
    assert_eq!(print_function(func(&m, "dead1"), Naming::Renumber), DEAD1_RENUMBERED);
    let dead2 = print_function(func(&m, "dead2"), Naming::Renumber);
    assert!(dead2.ends_with(DEAD2_RENUMBERED_TAIL), "{dead2}");
    // As in the file itself: `br` took %2, so bb1's arguments are %3 and %4.
    assert!(dead2.contains("\nbb1(%3 : $Builtin.Int32, %4 : $Builtin.Int32):\n"), "{dead2}");
    assert!(dead2.contains("  cond_br %6, bb2, bb3 // id: %7\n"), "{dead2}");

    let f = func(&m, "dce_destroy_of_live_copy");
    let text = print_function(f, Naming::Renumber);
    assert!(text.starts_with(
        "sil [ossa] @dce_destroy_of_live_copy : $@convention(thin) (Int1) -> () {\nbb0(%0 : $Int1):\n  %1 = apply undef() : $@convention(thin) () -> (@owned C)\n"
    ), "{text}");
    assert!(text.contains("  cond_br %0, bb1, bb2 // id: %10\n\nbb1:\n  destroy_value %4 : $CAndBit // id: %11\n  br bb3 // id: %12\n"), "{text}");

    let Some((_, m)) = load_corpus("dead_code_elimination_nontrivial_ossa.sil") else { return };
    let text = print_function(func(&m, "dce_borrowlifetime1"), Naming::Renumber);
    assert!(text.contains("bb1(%4 : @owned $NonTrivialStruct, %5 : @guaranteed $NonTrivialStruct):\n"), "{text}");
    let module = print_module(&m, Naming::Renumber);
    assert!(module.starts_with("sil_stage canonical\n\nimport Builtin\nimport Swift\n\nclass Klass {\n\n}\n\nenum EitherNoneOrAnyObject {\n"), "{module}");
}

#[test]
fn printing_follows_edits_and_falls_back_to_structure() {
    let Some((_, m)) = load_corpus("dead_code_elimination.sil") else { return };
    let mut f = func(&m, "test_dce_bbargs").clone();
    // Replace two branch arguments by undef, as DCE does for dead block arguments.
    let bb8 = f.block_by_name("bb8").unwrap();
    let t = f.blocks[bb8].term.unwrap();
    for j in 0..2 {
        let ty = f.values[f.insts[t].succs[0].args[j]].ty.clone();
        let u = f.add_undef(ty);
        f.insts[t].succs[0].args[j] = u;
    }
    let text = without_sil_opt_comments(&print_function(&f, Naming::Renumber));
    assert!(text.contains("  br bb3(undef : $Int32, undef : $Int32, %72 : $Int32, %64 : $Int32)\n"), "{text}");
    // Retarget and rebuild a branch from scratch (empty template).
    let bb4 = f.block_by_name("bb4").unwrap();
    let bb5 = f.block_by_name("bb5").unwrap();
    let mut br = Inst::new(Op::Sil(SilOp::Br));
    br.succs.push(Succ::to(bb5));
    let nb = f.add_inst(br);
    f.blocks[bb4].term = Some(nb);
    let bb6 = f.block_by_name("bb6").unwrap();
    let tramp = f.block_by_name("bbTrampoline1").unwrap();
    let t1 = f.blocks[tramp].term.unwrap();
    let u = f.add_undef(None);
    f.insts[t1].succs[0].args[0] = u;
    ir::verify(&f).unwrap();
    let text = without_sil_opt_comments(&print_function(&f, Naming::Renumber));
    assert!(text.contains("  %41 = struct_extract %40 : $Bool, #Bool._value\n  br bb5\n"), "{text}");
    assert!(text.contains("\nbb11:\n  br bb6(undef : $Int32)\n"), "{text}");
    // A fresh `br` with arguments takes its types from the target's parameters.
    let mut br = Inst::new(Op::Sil(SilOp::Br));
    let u = f.add_undef(None);
    br.succs.push(Succ { block: bb6, args: vec![u].into() });
    let nb = f.add_inst(br);
    f.blocks[tramp].term = Some(nb);
    let text = print_function(&f, Naming::User);
    assert!(text.contains("bbTrampoline1:\n  br bb6(undef : $Int32)\n"), "{text}");
    assert!(text.contains("bb4:\n  %39 = integer_literal"), "{text}");
    // The edited function still prints text that parses and verifies.
    let reparsed = parse_ok("edited", &print_function(&f, Naming::User));
    ir::verify(&reparsed.functions[0]).unwrap();

    // Fresh instructions of the other derivable kinds.
    let mut g = func(&m, "dead1").clone();
    let entry = g.entry().unwrap();
    let p0 = g.blocks[entry].params[0];
    let mut lit = Inst::new(Op::Sil(SilOp::IntegerLiteral));
    lit.ty = Some(Type::Sil("Builtin.Int64".into()));
    lit.imm = Imm::Int(-42);
    let r = g.add_value("lit", Some(Type::Sil("Builtin.Int64".into())), ValueDef::Undef);
    lit.results.push(r);
    let lit = g.add_inst(lit);
    let mut tup = Inst::new(Op::Sil(SilOp::Tuple));
    tup.args = vec![p0, r].into();
    let tr = g.add_value("t", None, ValueDef::Undef);
    tup.results.push(tr);
    let tup = g.add_inst(tup);
    let mut st = Inst::new(Op::Sil(SilOp::Struct));
    st.ty = Some(Type::Sil("Pair".into()));
    st.args = vec![p0].into();
    let sr = g.add_value("s", None, ValueDef::Undef);
    st.results.push(sr);
    let st = g.add_inst(st);
    g.blocks[entry].insts = vec![lit, tup, st];
    let mut ret = Inst::new(Op::Sil(SilOp::Return));
    ret.args.push(p0);
    let ret = g.add_inst(ret);
    g.blocks[entry].term = Some(ret);
    ir::verify(&g).unwrap();
    assert_eq!(
        without_sil_opt_comments(&print_function(&g, Naming::Renumber)),
        "sil @dead1 : $@convention(thin) (Int32, Int32) -> Int32 {\n\
         bb0(%0 : $Int32, %1 : $Int32):\n\
         \x20 %2 = integer_literal $Builtin.Int64, -42\n\
         \x20 %3 = tuple (%0 : $Int32, %2 : $Builtin.Int64)\n\
         \x20 %4 = struct $Pair (%0 : $Int32)\n\
         \x20 return %0 : $Int32\n\
         } // end sil function 'dead1'\n"
    );
}

// ---- the seed articles' examples (facts from the spec) ----

/// 000: DCE article, `dead1` before optimization.
const SEED_DEAD1: &str = r#"
sil @dead1 : $@convention(thin) (Int32, Int32) -> Int32 {
bb0(%0 : $Int32, %1 : $Int32):
  %3 = struct_extract %0 : $Int32, #Int32._value
  %4 = struct_extract %1 : $Int32, #Int32._value
  %5 = integer_literal $Builtin.Int1, -1
  %6 = builtin "sadd_with_overflow_Int32"(%3 : $Builtin.Int32, %4 : $Builtin.Int32, %5 : $Builtin.Int1) : $(Builtin.Int32, Builtin.Int1)
  %7 = tuple_extract %6 : $(Builtin.Int32, Builtin.Int1), 0
  %8 = struct $Int32 (%7 : $Builtin.Int32)
  return %0 : $Int32
}
"#;

/// 000: `dead1` after DCE.
const SEED_DEAD1_AFTER: &str = r#"
sil @dead1 : $@convention(thin) (Int32, Int32) -> Int32 {
bb0(%0 : $Int32, %1 : $Int32):
  return %0 : $Int32
}
"#;

/// 000: the control-dependence example, with the article's comments.
const SEED_CONTROL_DEPENDENT: &str = "
sil @control_dependent : $() {
bb0:
  %0 = integer_literal $Int1, 1 // 当然ここも
  cond_br %0, bb1, bb2 // ④ bb0はbb1, bb2の制御依存なのでここもlive
bb1:
  %2 = integer_literal $Int, 3 // ここも③よりlive
  br bb3(%2 : $Int) // ③ ここでbb3にジャンプしているのでlive
bb2:
  %4 = integer_literal $Int, 3 // ここも③よりlive
  br bb3(%4 : $Int) // ③ ここでbb3にジャンプしているのでlive。
bb3(%6 : $Int):     // ② %6は引数。bb3にジャンプしてくるBBを探す
  return %6 : $Int  // ① 1でここがliveになる
}    
";

/// 000: the CFG illustration; it uses `%0` and `%1` without defining them, so it is the one
/// snippet that must be rejected, with those two errors.
const SEED_HOGEHOGE: &str = "
sil @hogehoge : $@convention(thin) () -> () {
bb0:
  br bb1
bb1:
  cond_br %0, bb2, bb3
bb2:
  br bb1
bb3:
  return %1
}
";

/// 001: generic identity after address lowering.
const SEED_IDENTITY_ADDR: &str = "
sil @identity : $<T> (@in T) -> @out T {
bb0(%0 : $*T, %1 : $*T):
copy_addr %1 to [initialization] %0 : $*T
destroy_addr %1 : $*T
%4 = tuple ()
return %4 : $()
}
";

/// 001: the specialization for `Int`.
const SEED_IDENTITY_INT: &str = "
// generic specialization <Swift.Int> of identity <T> (T) -> T
sil @identity : $(Int) -> Int {
bb0(%0 : $Int):
return %0 : $Int
}
";

/// 001: opaque-values identity, written without `$` before the type.
const SEED_IDENTITY_OPAQUE: &str = "
sil @identity : <T> (@in T) -> @out T {
bb0(%0 : $T):
%2 = copy_value %0 : $T
destroy_value %0 : $T
return %2 : $T
}
";

const SEED_FOO: &str = "
sil @foo : $@convention(method) (Int, S) -> Int {
bb0(%0 : $Int, %1 : $S):
return %0 : $Int
}
";

/// 001: the witness thunk, header split over two lines.
const SEED_THUNK: &str = "
// protocol witness for P.foo (A.T) -> A.T in conformance S : P
sil [thunk] @_TTWV1t1SS_1PS_FS1_3foofwx1TwxS2_
: $@convention(witness_method) (@in Int, @in_guaranteed S) -> @out Int {
bb0(%0 : $*Int, %1 : $*Int, %2 : $*S):
%3 = load [trivial] %1 : $*Int
%4 = load [trivial] %2 : $*S
%5 = function_ref @foo : $@convention(method) (Int, S) -> Int
%6 = apply %5(%3, %4) : $@convention(method) (Int, S) -> Int
store %6 to [trivial] %0 : $*Int
%8 = tuple ()
return %8 : $()
}
";

const SEED_THUNK_OPAQUE: &str = "
// protocol witness for P.foo (A.T) -> A.T in conformance S : P
sil [thunk] @_TTWV1t1SS_1PS_FS1_3foofwx1TwxS2_
: $@convention(witness_method) (@in Int, @in_guaranteed S) -> @out Int {
bb0(%0 : $Int, %1 : $*S):
%2 = function_ref @foo : $@convention(method) (Int, S) -> Int
%3 = apply %2(%0, %1) : $@convention(method) (Int, S) -> Int
return %3 : $Int
}
";

#[test]
fn seed_examples_parse_verify_and_round_trip() {
    let seeds = [
        ("dead1", SEED_DEAD1),
        ("dead1 after", SEED_DEAD1_AFTER),
        ("control_dependent", SEED_CONTROL_DEPENDENT),
        ("identity (address)", SEED_IDENTITY_ADDR),
        ("identity (Int)", SEED_IDENTITY_INT),
        ("identity (opaque)", SEED_IDENTITY_OPAQUE),
        ("foo", SEED_FOO),
        ("thunk", SEED_THUNK),
        ("thunk (opaque)", SEED_THUNK_OPAQUE),
    ];
    for (name, text) in seeds {
        let m = parse_ok(name, text);
        assert_eq!(m.functions.len(), 1, "{name}");
        assert!(!m.functions[0].is_declaration(), "{name}");
        check_round_trips(name, &m);
    }
    // All of them in one file, as the lab loads a pasted article.
    let all: String = [SEED_DEAD1, SEED_CONTROL_DEPENDENT, SEED_IDENTITY_ADDR, SEED_FOO, SEED_THUNK].concat();
    let m = parse_ok("seeds", &all);
    assert_eq!(m.functions.len(), 5);
    check_round_trips("seeds", &m);

    let m = parse_ok("identity", SEED_IDENTITY_OPAQUE);
    assert_eq!(m.functions[0].sil.as_ref().unwrap().ty, "<T> (@in T) -> @out T");
    assert!(print_module(&m, Naming::User).starts_with("sil @identity : <T> (@in T) -> @out T {\nbb0(%0 : $T):\n"));
    let m = parse_ok("identity", SEED_IDENTITY_ADDR);
    assert_eq!(first_inst(&m.functions[0], "copy_addr").attrs, ["initialization"]);
    let m = parse_ok("thunk", SEED_THUNK);
    let f = &m.functions[0];
    assert_eq!(f.name, "_TTWV1t1SS_1PS_FS1_3foofwx1TwxS2_");
    assert_eq!(f.sil.as_ref().unwrap().attrs, ["thunk"]);
    assert_eq!(first_inst(f, "store").attrs, ["trivial"]);
    let m = parse_ok("control_dependent", SEED_CONTROL_DEPENDENT);
    assert_eq!(m.functions[0].layout.len(), 4);
    assert_eq!(
        print_module(&m, Naming::Renumber),
        "sil @control_dependent : $() {\nbb0:\n  %0 = integer_literal $Int1, 1\n  cond_br %0, bb1, bb2 // id: %1\n\n\
         bb1:\n  %2 = integer_literal $Int, 3\n  br bb3(%2 : $Int) // id: %3\n\n\
         bb2:\n  %4 = integer_literal $Int, 3\n  br bb3(%4 : $Int) // id: %5\n\n\
         bb3(%6 : $Int):\n  return %6 : $Int // id: %7\n} // end sil function 'control_dependent'\n"
    );

    let err = parse("hogehoge.sil", SEED_HOGEHOGE).unwrap_err();
    assert_eq!(
        err.render(&SourceFile::new("hogehoge.sil", SEED_HOGEHOGE)),
        "hogehoge.sil:6:11: error: use of undefined value `%0`\n  cond_br %0, bb2, bb3\n          ^^\n\
         hogehoge.sil:10:10: error: use of undefined value `%1`\n  return %1\n         ^^"
    );
}

#[test]
fn unknown_instructions_take_the_generic_path() {
    let text = r#"
sil_stage raw

sil [ossa] @generic : $@convention(thin) (@owned C, Int) -> () {
bb0(%0 : @owned $C, %1 : $Int):
  %2 = ref_element_addr %0 : $C, #C.x
  %f = function_ref @callee : $@convention(thin) (Int, Int) -> ()
  %3 = partial_apply [callee_guaranteed] [on_stack] %f<Int>(%1, undef : $Int) : $@convention(thin) (Int, Int) -> ()
  %4 = dynamic_function_ref @dyn : $@convention(thin) () -> ()
  mystery_op %2, undef : $Builtin.Int1, [weird] bb1 // not a terminator: bb1 stays text
  checked_cast_br C in %0 : $C to D, bb1, bb2

bb1(%5 : @owned $D):
  switch_value %1 : $Int, case %6: bb3, default bb4

bb2(%7 : @owned $C):
  unreachable

bb3:
  %6 = integer_literal $Int, 1
  yield (%1 : $Int), resume bb4, unwind bb5

bb4:
  %r = tuple ()
  return %r : $()

bb5:
  unwind
}
"#;
    let m = parse_ok("generic.sil", text);
    check_round_trips("generic.sil", &m);
    let f = &m.functions[0];
    // Modelled as a pure projection, but parsed by the same generic operand scan.
    let rea = first_inst(f, "ref_element_addr");
    assert_eq!(rea.op, Op::Sil(SilOp::RefElementAddr));
    assert_eq!(rea.imm, Imm::Name("#C.x".into()));
    let pa = first_inst(f, "partial_apply");
    assert_eq!(pa.op, Op::Sil(SilOp::Other("partial_apply".into())));
    assert_eq!(pa.attrs, ["callee_guaranteed", "on_stack"]);
    assert_eq!(pa.args.len(), 3);
    assert_eq!(f.value_name(pa.args[0]), "f");
    assert_eq!(f.values[pa.args[2]].ty, Some(Type::Sil("Int".into())));
    assert_eq!(first_inst(f, "dynamic_function_ref").funcs, ["dyn"]);
    let my = first_inst(f, "mystery_op");
    assert_eq!((my.args.len(), my.succs.len(), my.attrs.clone()), (2, 0, vec!["weird".to_string()]));
    let cc = first_inst(f, "checked_cast_br");
    assert!(cc.is_terminator());
    assert_eq!(cc.succs.len(), 2);
    assert_eq!(cc.succs[0].args.len(), 1, "the cast result feeds bb1's parameter");
    let sv = first_inst(f, "switch_value");
    assert_eq!(sv.args.len(), 2);
    assert_eq!(f.value_name(sv.args[1]), "6");
    assert_eq!(sv.succs.len(), 2);
    let y = first_inst(f, "yield");
    assert_eq!((y.args.len(), y.succs.len()), (1, 2));
    let text = without_sil_opt_comments(&print_function(f, Naming::Renumber));
    assert!(text.contains("  %4 = partial_apply [callee_guaranteed] [on_stack] %3<Int>(%1, undef : $Int) : $@convention(thin) (Int, Int) -> ()\n"), "{text}");
    assert!(text.contains("  mystery_op %2, undef : $Builtin.Int1, [weird] bb1\n"), "{text}");
    assert!(text.contains("  checked_cast_br C in %0 : $C to D, bb1, bb2\n"), "{text}");
    assert!(text.contains("  switch_value %1 : $Int, case %12: bb3, default bb4\n"), "{text}");
    assert!(text.contains("  yield (%1 : $Int), resume bb4, unwind bb5\n"), "{text}");
}

#[test]
fn raw_items_are_kept_verbatim_without_comments() {
    let text = "// RUN: sil-opt %s\nsil_stage canonical // trailing\n\nimport Builtin\n\n\
                struct S {\n  // CHECK: nothing\n  var x: Int // field\n  struct Inner { var y: Int }\n}\n\
                sil_global hidden @g : $Int\n\
                sil_vtable C {\n  #C.foo: @c_foo\t// C.foo()\n}\n\
                class D\n{\n}\n\
                sil @f : $() -> ()\n";
    let m = parse_ok("raw.sil", text);
    let raws: Vec<&str> = m
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Raw { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        raws,
        [
            "sil_stage canonical",
            "import Builtin",
            "struct S {\n  var x: Int\n  struct Inner { var y: Int }\n}",
            "sil_global hidden @g : $Int",
            "sil_vtable C {\n  #C.foo: @c_foo\n}",
            "class D\n{\n}",
        ]
    );
    assert_eq!(m.functions.len(), 1);
    check_round_trips("raw.sil", &m);
    assert!(print_module(&m, Naming::User).ends_with("}\n\nsil @f : $() -> ()\n"));
}

#[test]
fn forward_references_debug_info_and_same_line_labels() {
    // `%1` is used (in bb1) before the line that defines it (in bb2): legal SIL.
    let text = "sil @fwd : $() -> () {\nbb0:\n  br bb2\nbb1:\n  return %1 : $()\nbb2:\n  %1 = tuple ()\n  br bb1\n}\n";
    let m = parse_ok("fwd.sil", text);
    check_round_trips("fwd.sil", &m);
    let f = &m.functions[0];
    let ret = first_inst(f, "return");
    assert!(matches!(f.values[ret.args[0]].def, ValueDef::Result { .. }));
    // sil-opt's numbering: `br bb2` is %0, `return` %1, so the tuple is %2.
    assert!(print_function(f, Naming::Renumber).contains("bb1:\n  return %2 : $() // id: %1\n\nbb2:\n  %2 = tuple ()\n"));

    // Debug locations and scopes are accepted and dropped; labels may share a line.
    let text = "sil @loc : $() -> () {\nbb0: %0 = integer_literal $Builtin.Int32, 7, loc \"f.swift\":3:5, scope 2\n  \
                %1 = tuple (), loc * \"<compiler-generated>\":0:0\n  return %1 : $() // done\n}\n";
    let m = parse_ok("loc.sil", text);
    check_round_trips("loc.sil", &m);
    assert_eq!(
        print_module(&m, Naming::User),
        "sil @loc : $() -> () {\nbb0:\n  %0 = integer_literal $Builtin.Int32, 7\n  %1 = tuple ()\n  return %1 : $()\n} // end sil function 'loc'\n"
    );

    // Quoted and `$`-mangled function names, attributes with arguments, a second body
    // after a declaration, and blank lines everywhere.
    let text = "sil [serialized] [_semantics \"array.count\"] shared @\"weird name\" : $@convention(thin) () -> ()\n\n\
                sil hidden [thunk] [ossa] @$s4main1fyyF : $@convention(thin) () -> () {\n\nbb0:\n\n  %0 = function_ref @\"weird name\" : $@convention(thin) () -> ()\n  \
                %1 = apply %0() : $@convention(thin) () -> ()\n  return %1 : $()\n}\n";
    let m = parse_ok("names.sil", text);
    check_round_trips("names.sil", &m);
    assert_eq!(m.functions[0].name, "weird name");
    let h = m.functions[0].sil.as_ref().unwrap();
    assert_eq!(
        (h.linkage.as_deref(), h.attrs.clone()),
        (Some("shared"), vec!["serialized".to_string(), "_semantics \"array.count\"".to_string()])
    );
    assert_eq!(m.functions[1].name, "$s4main1fyyF");
    assert_eq!(first_inst(&m.functions[1], "function_ref").funcs, ["weird name"]);
    let out = print_module(&m, Naming::User);
    assert!(out.starts_with("sil shared [serialized] [_semantics \"array.count\"] @\"weird name\" : $@convention(thin) () -> ()\n\nsil hidden [thunk] [ossa] @$s4main1fyyF"), "{out}");
    assert!(out.contains("  %0 = function_ref @\"weird name\" : $@convention(thin) () -> ()\n"), "{out}");
    assert!(out.ends_with("} // end sil function '$s4main1fyyF'\n"), "{out}");
}
