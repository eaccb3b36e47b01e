//! Constructs of real `swiftc`/`sil-opt` output that used to reject a whole file (issue 17):
//! each parses, has the structure it should, and prints back to text that parses to the same
//! module (and prints the same again).

use optlab_core::ir::{Effect, Op, SilOp};
use optlab_core::print::{print_module, Naming};
use optlab_core::{parse_module, Lang, Module, SourceFile};

fn parse_ok(text: &str) -> Module {
    parse_module(Lang::Sil, "t.sil", text)
        .unwrap_or_else(|d| panic!("does not parse:\n{}", d.render(&SourceFile::new("t.sil", text))))
}

/// Parses, then checks print → parse → print is stable and gives the same module.
#[track_caller]
fn round_trip(text: &str) -> Module {
    let m = parse_ok(text);
    for naming in [Naming::User, Naming::Renumber] {
        let printed = print_module(&m, naming);
        let again = parse_ok(&printed);
        assert_eq!(print_module(&again, naming), printed, "printing is not stable");
        if naming == Naming::User {
            assert!(again == m, "print → parse changed the module:\n{printed}");
        }
    }
    m
}

fn ops(m: &Module) -> Vec<String> {
    let f = &m.functions[0];
    f.placed_insts().map(|(_, i)| f.insts[i].op.name().to_string()).collect()
}

#[test]
fn generic_box_types_are_one_type() {
    let m = round_trip(
        "sil @box : $@convention(thin) () -> () {
bb0:
  %0 = alloc_box $<τ_0_0> { var τ_0_0 } <Builtin.Int32>, var, name \"x\"
  %1 = project_box %0 : $<τ_0_0> { var τ_0_0 } <Builtin.Int32>, 0
  strong_release %0 : $<τ_0_0> { var τ_0_0 } <Builtin.Int32>
  %3 = tuple ()
  return %3 : $()
}
",
    );
    assert_eq!(ops(&m), ["alloc_box", "project_box", "strong_release", "tuple", "return"]);
    let printed = print_module(&m, Naming::User);
    assert!(printed.contains("project_box %0 : $<τ_0_0> { var τ_0_0 } <Builtin.Int32>, 0"), "{printed}");
}

#[test]
fn box_types_in_a_signature_over_several_lines() {
    let m = round_trip(
        "sil @closure : $@convention(thin) (
    @guaranteed <τ_0_0> { var τ_0_0 } <Builtin.Int32>,
    @guaranteed { var Builtin.Int64 }
) -> () {
bb0(%0 : $<τ_0_0> { var τ_0_0 } <Builtin.Int32>, %1 : ${ var Builtin.Int64 }):
  %2 = tuple ()
  return %2 : $()
}
",
    );
    let f = &m.functions[0];
    let ty = &f.sil.as_ref().expect("a SIL header").ty;
    assert!(ty.starts_with("$@convention(thin) (") && ty.ends_with(") -> ()") && !ty.contains('\n'), "{ty}");
    assert_eq!(f.blocks[f.layout[0]].params.len(), 2);
}

#[test]
fn a_signature_left_open_is_still_an_error() {
    let text = "sil @f : $@convention(thin) (\nbb0:\n  unreachable\n}\n";
    let Err(d) = parse_module(Lang::Sil, "t.sil", text) else { panic!("parsed") };
    assert!(d.iter().any(|e| e.message.contains("unterminated `(`")), "{d:?}");
}

#[test]
fn function_effects_before_the_first_block_are_read_and_dropped() {
    let m = round_trip(
        "sil @effects : $@convention(thin) (Builtin.Int64) -> () {
[global: read,write]
[%0: noescape **]
bb0(%0 : $Builtin.Int64):
  %1 = tuple ()
  return %1 : $()
}
",
    );
    assert_eq!(ops(&m), ["tuple", "return"]);
    // After the first block a bracket line is an instruction error as before.
    let late = "sil @f : $() -> () {\nbb0:\n[global: read]\n  unreachable\n}\n";
    assert!(parse_module(Lang::Sil, "t.sil", late).is_err());
}

#[test]
fn an_unknown_terminator_ends_its_block_with_its_successors() {
    let m = round_trip(
        "sil @cont : $@convention(thin) (Builtin.RawUnsafeContinuation) -> () {
bb0(%0 : $Builtin.RawUnsafeContinuation):
  await_detached_continuation %0 : $Builtin.RawUnsafeContinuation, resume bb1, error bb2
bb1:
  %1 = tuple ()
  return %1 : $()
bb2(%2 : $Builtin.Int64):
  unreachable
}
",
    );
    let f = &m.functions[0];
    let t = f.blocks[f.layout[0]].term.expect("bb0 ends with the unknown terminator");
    let inst = &f.insts[t];
    assert_eq!(inst.op, Op::Sil(SilOp::Other("await_detached_continuation".into())));
    assert!(inst.is_terminator());
    assert_eq!(inst.effect(), Effect::Terminator);
    let succs: Vec<&str> = inst.succs.iter().map(|s| f.blocks[s.block].name.as_str()).collect();
    assert_eq!(succs, ["bb1", "bb2"]);
    // bb2's argument comes from the terminator: a stand-in keeps the arity.
    assert_eq!(inst.succs[1].args.len(), 1);
    assert!(optlab_core::ir::verify(f).is_ok());
    let cfg = optlab_core::cfg::Cfg::new(f);
    assert_eq!(cfg.succs(f.layout[0]), &[f.layout[1], f.layout[2]]);
}

#[test]
fn a_label_inside_an_unknown_instruction_mid_block_stays_text() {
    let m = round_trip(
        "sil @mid : $@convention(thin) () -> () {
bb0:
  mystery_op [weird] bb1
  br bb1
bb1:
  %1 = tuple ()
  return %1 : $()
}
",
    );
    let f = &m.functions[0];
    let first = f.blocks[f.layout[0]].insts[0];
    assert!(f.insts[first].succs.is_empty() && !f.insts[first].is_terminator());
}

#[test]
fn debug_value_without_an_operand() {
    let m = round_trip(
        "sil @dv : $@convention(thin) () -> () {
bb0:
  debug_value undef : $Builtin.Int64, let, name \"x\"
  debug_value , let, name \"y\"
  debug_value [poison] , var, name \"z\"
  %1 = tuple ()
  return %1 : $()
}
",
    );
    let f = &m.functions[0];
    let args: Vec<usize> = f.blocks[f.layout[0]].insts.iter().map(|&i| f.insts[i].args.len()).collect();
    assert_eq!(args, [1, 0, 0, 0]);
}

#[test]
fn a_nested_region_is_kept_verbatim_inside_its_instruction() {
    let text = "sil @region : $@convention(thin) (Builtin.Int64) -> () {
bb0(%0 : $Builtin.Int64):
  %1 = frob_region %0 : $Builtin.Int64, transform {
  bb0(%2 : $Builtin.Int64):
    %3 = builtin \"add_Int64\"(%2 : $Builtin.Int64, %2 : $Builtin.Int64) : $Builtin.Int64
    yield_region %3 : $Builtin.Int64
  }
  %4 = tuple ()
  return %4 : $()
}
";
    let m = round_trip(text);
    let f = &m.functions[0];
    assert_eq!(f.layout.len(), 1, "the region's bb0 is not a block of the function");
    assert_eq!(ops(&m), ["frob_region", "tuple", "return"]);
    let region = f.blocks[f.layout[0]].insts[0];
    assert_eq!(f.insts[region].args.len(), 1, "only %0, from outside the region, is an operand");
    let printed = print_module(&m, Naming::User);
    assert!(printed.contains("transform {\n  bb0(%2 : $Builtin.Int64):\n    %3 = builtin"), "{printed}");
    // An unclosed region runs to the end and leaves the body unterminated: an error.
    assert!(parse_module(Lang::Sil, "t.sil", "sil @f : $() -> () {\nbb0:\n  x %0, r {\n").is_err());
}

/// A declaration holding a NUL byte prints back as it was written (found by the long fuzz
/// run: comments were marked with NUL while the item was cleaned, so a NUL in the text was
/// dropped with them and `class\0Name` printed as `className`), and comment-only lines still go.
#[test]
fn a_declaration_with_a_nul_byte_and_comments_prints_back() {
    let text = "class\u{0}Name {\n  // only a comment\n  var x: Int // trailing\n}\n\nsil @f : $@convention(thin) () -> () {\nbb0:\n  %0 = tuple ()\n  return %0 : $()\n}\n";
    let m = round_trip(text);
    let printed = print_module(&m, Naming::User);
    assert!(printed.contains("class\u{0}Name {\n  var x: Int\n}"), "{printed:?}");
}
