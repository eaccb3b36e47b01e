//! Malformed SIL → the exact messages a user sees (`FILE:LINE:COL: error: …`, the line, a
//! caret under the culprit). The parser recovers, so one file can report several errors.

use optlab_core::parse::sil::parse;
use optlab_core::SourceFile;

fn errors(text: &str) -> String {
    match parse("t.sil", text) {
        Ok(m) => panic!("expected errors, parsed {} function(s)", m.functions.len()),
        Err(d) => d.render(&SourceFile::new("t.sil", text)),
    }
}

#[test]
fn use_of_undefined_value() {
    let text = "sil @f : $@convention(thin) (Int32) -> Int32 {\nbb0(%0 : $Int32):\n  return %9 : $Int32\n}\n";
    assert_eq!(errors(text), "t.sil:3:10: error: use of undefined value `%9`\n  return %9 : $Int32\n         ^^");
}

#[test]
fn unknown_block() {
    let text = "sil @f : $() -> () {\nbb0:\n  cond_br undef, bb1, bb7\nbb1:\n  unreachable\n}\n";
    assert_eq!(
        errors(text),
        "t.sil:3:23: error: unknown block `bb7`\n  cond_br undef, bb1, bb7\n                      ^^^"
    );
}

#[test]
fn missing_colon_after_function_name() {
    assert_eq!(
        errors("sil [ossa] @f $() -> ()\n"),
        "t.sil:1:15: error: expected `:` after function name, found `$() -> ()`\nsil [ossa] @f $() -> ()\n              ^^^^^^^^^"
    );
}

/// Swift's parser rejects a use whose type disagrees with the value's; AddressLowering took
/// a `destructure_tuple`'s result types from such an annotation (a fuzzer's find).
#[test]
fn use_with_another_type() {
    let text = "sil [ossa] @f : $@convention(thin) <T> (@in_guaranteed T, @owned (T, Int)) -> () {\n\
                bb0(%0 : $*T, %1 : @owned $(T, Int)):\n\
                \x20 (%2, %3) = destructure_tuple %1 : $(T, %4)\n\
                \x20 unreachable\n}\n";
    assert_eq!(
        errors(text),
        "t.sil:3:32: error: `%1` is used as `$(T, %4)`, but its type is `$(T, Int)`\n  \
         (%2, %3) = destructure_tuple %1 : $(T, %4)\n                               ^^"
    );
    let addr = "sil @g : $@convention(thin) (@in Int) -> () {\nbb0(%0 : $*Int):\n  %1 = load %0 : $Int\n  unreachable\n}\n";
    assert_eq!(errors(addr), "t.sil:3:13: error: `%0` is used as `$Int`, but its type is `$*Int`\n  %1 = load %0 : $Int\n            ^^");
}

#[test]
fn branch_argument_of_another_type() {
    let text = "sil @f : $@convention(thin) (Int, Builtin.Int1) -> () {\n\
                bb0(%0 : $Int, %1 : $Builtin.Int1):\n\
                \x20 cond_br %1, bb1(%0 : $Int), bb2(%1 : $Builtin.Int1)\n\
                bb1(%2 : $Int):\n  unreachable\n\
                bb2(%3 : $Int):\n  unreachable\n}\n";
    assert_eq!(
        errors(text),
        "t.sil:3:35: error: `bb2` takes `$Int` as its argument 0, but `%1` is `$Builtin.Int1`\n  \
         cond_br %1, bb1(%0 : $Int), bb2(%1 : $Builtin.Int1)\n                                  ^^"
    );
    let used = text.replace("bb1(%0 : $Int)", "bb1(%0 : $Int32)").replace("bb2(%1 : $Builtin.Int1)", "bb2(%0 : $Int)");
    assert_eq!(
        errors(&used),
        "t.sil:3:19: error: `%0` is used as `$Int32`, but its type is `$Int`\n  \
         cond_br %1, bb1(%0 : $Int32), bb2(%0 : $Int)\n                  ^^"
    );
}

/// An `apply` states its callee's type after the arguments; a callee whose `function_ref`
/// gave it another type is an error at the callee (a fuzzer's find: AddressLowering typed
/// the call's result from the `apply`'s text, then could not read its own output back).
/// Generic parameters may be named differently, one to one, as Swift's own tests write them.
#[test]
fn apply_with_another_callee_type() {
    let text = "sil [ossa] @f : $@convention(thin) <T where T : Collection> (@in T) -> @out T.Index {\n\
                bb0(%0 : $*T.Index, %1 : $*T):\n\
                \x20 %2 = function_ref @g : $@convention(thin) <T where T : Collection> (@in T) -> @out T.Index\n\
                \x20 %3 = apply %2<T>(%0, %1) : $@convention(thin) <τ_0_0 where τ_0_0 : Collection> (@in τ_0_0) -> @out τ_0_0.Index\n\
                \x20 %4 = tuple ()\n\
                \x20 return %4 : $()\n}\n";
    let m = parse("t.sil", text).expect("a renamed generic parameter is the same type");
    assert_eq!(m.functions.len(), 1);
    let wrong = text.replace("-> @out τ_0_0.Index", "-> @out end_access");
    assert_eq!(
        errors(&wrong),
        "t.sil:4:14: error: `%2` is used as `$@convention(thin) <τ_0_0 where τ_0_0 : Collection> (@in τ_0_0) -> @out end_access`, \
         but its type is `$@convention(thin) <T where T : Collection> (@in T) -> @out T.Index`\n  \
         %3 = apply %2<T>(%0, %1) : $@convention(thin) <τ_0_0 where τ_0_0 : Collection>…\n             ^^"
    );
    let swapped = text.replace("(@in τ_0_0) -> @out τ_0_0.Index", "(@in T) -> @out τ_0_0.Index");
    assert!(errors(&swapped).contains("`%2` is used as"), "a parameter renamed only in part is another type");
}

/// `P` and `any P` are one type (Swift prints either, by version), and spacing is free.
#[test]
fn any_and_spacing_do_not_make_another_type() {
    let text = "sil @f : $@convention(thin) (@in_guaranteed any P, (Int,Int)) -> () {\n\
                bb0(%0 : $*any P, %1 : $(Int,Int)):\n\
                \x20 %2 = open_existential_addr immutable_access %0 : $*P to $*@opened(\"01234567-89AB-CDEF-0123-000000000000\", any P) Self\n\
                \x20 %3 = tuple_extract %1 : $(Int, Int), 0\n\
                \x20 unreachable\n}\n";
    let m = parse("t.sil", text).expect("parses");
    assert_eq!(m.functions.len(), 1);
}

#[test]
fn value_defined_twice() {
    let text = "sil @f : $() -> () {\nbb0:\n  %0 = tuple ()\n  %0 = tuple ()\n  return %0 : $()\n}\n";
    assert_eq!(errors(text), "t.sil:4:3: error: value `%0` defined twice\n  %0 = tuple ()\n  ^^");
    let text = "sil @f : $(Int) -> () {\nbb0(%0 : $Int, %0 : $Int):\n  unreachable\n}\n";
    assert_eq!(
        errors(text),
        "t.sil:2:16: error: value `%0` defined twice\nbb0(%0 : $Int, %0 : $Int):\n               ^^"
    );
}

#[test]
fn unterminated_function_body() {
    // At the end of the file …
    let text = "sil @f : $() -> () {\nbb0:\n  %0 = tuple ()\n";
    assert_eq!(
        errors(text),
        "t.sil:1:20: error: unterminated function body: expected `}`\nsil @f : $() -> () {\n                   ^"
    );
    // … and when the next function starts: that one is still read (here, its error too).
    let text = "sil @f : $() -> () {\nbb0:\n  unreachable\n\nsil @g : $() -> () {\nbb0:\n  br bb9\n}\n";
    assert_eq!(
        errors(text),
        "t.sil:1:20: error: unterminated function body: expected `}`\nsil @f : $() -> () {\n                   ^\n\
         t.sil:7:6: error: unknown block `bb9`\n  br bb9\n     ^^^"
    );
}

#[test]
fn a_missing_brace_before_a_swift_declaration_ends_the_body() {
    let text = "sil @f : $() -> () {\nbb0:\n  unreachable\n\nstruct S {\n  var x: Int\n}\n\nsil @g : $() -> () {\nbb0:\n  br bb9\n}\n";
    assert_eq!(
        errors(text),
        "t.sil:1:20: error: unterminated function body: expected `}`\nsil @f : $() -> () {\n                   ^\n\
         t.sil:11:6: error: unknown block `bb9`\n  br bb9\n     ^^^"
    );
}

#[test]
fn branch_argument_count_must_match_the_target() {
    let text =
        "sil @f : $() -> () {\nbb0:\n  %0 = integer_literal $Builtin.Int32, 0\n  br bb1(%0 : $Builtin.Int32)\n\n\
                bb1(%1 : $Builtin.Int32, %2 : $Builtin.Int32):\n  unreachable\n}\n";
    assert_eq!(
        errors(text),
        "t.sil:4:6: error: branch to `bb1` passes 1 argument(s); the block takes 2\n  br bb1(%0 : $Builtin.Int32)\n     ^^^"
    );
}

#[test]
fn block_structure_errors() {
    let text = "sil @f : $() -> () {\nbb0:\n  %0 = tuple ()\n  return %0 : $()\n  %1 = tuple ()\n}\n";
    assert_eq!(
        errors(text),
        "t.sil:5:3: error: instruction after the terminator `return` of block `bb0`; start a new block with a label\n  %1 = tuple ()\n  ^^^^^^^^^^^^^"
    );
    let text = "sil @f : $() -> () {\nbb0:\n  %0 = tuple ()\n}\n";
    assert_eq!(
        errors(text),
        "t.sil:2:1: error: block `bb0` does not end with a terminator (`tuple` is not one)\nbb0:\n^^^"
    );
    let text = "sil @f : $() -> () {\nbb0:\n  br bb1\nbb1:\n  br bb0\nbb1:\n  unreachable\n}\n";
    assert_eq!(errors(text), "t.sil:6:1: error: block `bb1` defined twice\nbb1:\n^^^");
    let text = "sil @f : $() -> () {\n}\n";
    assert_eq!(
        errors(text),
        "t.sil:1:20: error: function `@f` has an empty body\nsil @f : $() -> () {\n                   ^"
    );
    let text = "sil @f : $() -> () {\nbb0:\n  br bb1\nbb1\n  unreachable\n}\n";
    assert_eq!(errors(text), "t.sil:4:1: error: expected `:` after block label `bb1`\nbb1\n^^^");
}

#[test]
fn lexical_errors() {
    assert_eq!(
        errors("sil @f : $(Int, -> () {\nbb0:\n  unreachable\n}\n"),
        "t.sil:1:11: error: unterminated `(` in type\nsil @f : $(Int, -> () {\n          ^"
    );
    assert_eq!(
        errors("sil @f : $() -> () {\nbb0:\n  %0 = string_literal utf8 \"abc\n  unreachable\n}\n"),
        "t.sil:3:28: error: unterminated string literal\n  %0 = string_literal utf8 \"abc\n                           ^"
    );
    assert_eq!(
        errors("sil @f : $() -> () {\nbb0:\n  %0 = tuple $(Int] (%1)\n  unreachable\n}\n"),
        "t.sil:3:19: error: mismatched `]` in type (expected `)`)\n  %0 = tuple $(Int] (%1)\n                  ^"
    );
    assert_eq!(
        errors("sil @f : $() -> () {\nbb0:\n  return % : $()\n}\n"),
        "t.sil:3:10: error: expected a value name after `%`\n  return % : $()\n         ^"
    );
}

#[test]
fn top_level_errors() {
    assert_eq!(
        errors("%0 = tuple ()\nsil @f : $() -> ()\n"),
        "t.sil:1:1: error: expected `sil`, `sil_stage`, `import` or a declaration, found `%0`\n%0 = tuple ()\n^^"
    );
    assert_eq!(
        errors("sil @f : $() -> ()\nsil @f : $() -> ()\n"),
        "t.sil:2:5: error: function `@f` is defined twice (first on line 1)\nsil @f : $() -> ()\n    ^^"
    );
    assert_eq!(
        errors("sil weird @p : $() -> ()\n"),
        "t.sil:1:5: error: unknown linkage or attribute `weird` in function header\nsil weird @p : $() -> ()\n    ^^^^^"
    );
    assert_eq!(
        errors("sil [ossa @p : $() -> ()\n"),
        "t.sil:1:5: error: unterminated `[` in function attributes\nsil [ossa @p : $() -> ()\n    ^"
    );
    assert_eq!(
        errors("struct S {\n  var x: Int\n"),
        "t.sil:1:1: error: unterminated `{` in declaration\nstruct S {\n^^^^^^"
    );
}

#[test]
fn malformed_instructions_each_report_once() {
    let text = "\
sil @f : $() -> () {
bb0:
  %0 = integer_literal $Builtin.Int8, 999999999999999999999999999999999999999999
  %1 = struct_extract %0 : $Int, 3
  %2 = tuple_extract %0 : $(Int, Int), #x
  %3 = builtin \"add_Int8\"(%0 : $Builtin.Int8)
  %4 = apply %f() : $() -> (), normal bb1
  %5 = function_ref foo : $() -> ()
  store %0 into %1 : $*Int
  %6 = enum $E, %0
  %7 = load [take %0 : $*Int
  %8 = tuple (%0 : $Int, %1 : $Int
  (%9, %10 = destructure_tuple undef : $(Int, Int)
  (%11, 12) = destructure_tuple undef : $(Int, Int)
  %13 =
  switch_enum %0 : $E, case #E.a: bb0, bogus bb0
}
";
    assert_eq!(
        errors(text),
        "\
t.sil:3:39: error: integer literal `999999999999999999999999999999999999999999` is not a number that fits in 128 bits
  %0 = integer_literal $Builtin.Int8, 999999999999999999999999999999999999999999
                                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
t.sil:4:34: error: expected a field such as `#S.field`, found `3`
  %1 = struct_extract %0 : $Int, 3
                                 ^
t.sil:5:40: error: expected an element index, found `#x`
  %2 = tuple_extract %0 : $(Int, Int), #x
                                       ^^
t.sil:6:46: error: expected `:` and the result type after the builtin's operands, found end of line
  %3 = builtin \"add_Int8\"(%0 : $Builtin.Int8)
                                             ^
t.sil:7:30: error: unexpected `,` after `apply`
  %4 = apply %f() : $() -> (), normal bb1
                             ^
t.sil:8:21: error: expected a function name `@f`, found `foo`
  %5 = function_ref foo : $() -> ()
                    ^^^
t.sil:9:12: error: expected `to` between source and destination in `store`, found `into`
  store %0 into %1 : $*Int
           ^^^^
t.sil:10:17: error: expected an enum case such as `#E.a!enumelt`, found `%0`
  %6 = enum $E, %0
                ^^
t.sil:11:13: error: unterminated `[` attribute
  %7 = load [take %0 : $*Int
            ^
t.sil:12:35: error: expected `,` or `)` in the operand list, found end of line
  %8 = tuple (%0 : $Int, %1 : $Int
                                  ^
t.sil:13:12: error: expected `)` before `=` to close the result list
  (%9, %10 = destructure_tuple undef : $(Int, Int)
           ^
t.sil:14:9: error: expected a result name `%name`, found `12`
  (%11, 12) = destructure_tuple undef : $(Int, Int)
        ^^
t.sil:15:8: error: expected an instruction name after `=`
  %13 =
       ^
t.sil:16:40: error: expected `case`, `default` or `forwarding:`, found `bogus`
  switch_enum %0 : $E, case #E.a: bb0, bogus bb0
                                       ^^^^^"
    );
}

/// One file with mistakes in several functions and between them: each is reported once,
/// in source order, and the good function between them does not hide the later ones.
#[test]
fn several_errors_in_one_file() {
    let text = "\
sil_stage canonical

import Swift

sil @a : $@convention(thin) (Int32) -> Int32 {
bb0(%0 : $Int32):
  %1 = struct_extract %0 : $Int32, #Int32._value
  br bb7(%9 : $Int32)
}

sil @ok : $() -> () {
bb0:
  %0 = tuple ()
  return %0 : $()
}

sil @b $() -> () {
bb0:
  unreachable
}

this is not sil

sil @c : $() -> () {
bb0:
  %0 = integer_literal $Builtin.Int32, 1
  %0 = integer_literal $Builtin.Int32, 2
  cond_br %0, bb1
bb1:
  %3 = frobnicate %0 : $Int, %undefined
  return %3 : $()
}

sil @d : $() -> () {
bb0(%x : $Int):
  br bb0(%x : $Int, %x : $Int)
";
    assert_eq!(
        errors(text),
        "\
t.sil:8:6: error: unknown block `bb7`
  br bb7(%9 : $Int32)
     ^^^
t.sil:17:8: error: expected `:` after function name, found `$() -> ()`
sil @b $() -> () {
       ^^^^^^^^^
t.sil:22:1: error: expected `sil`, `sil_stage`, `import` or a declaration, found `this`
this is not sil
^^^^
t.sil:27:3: error: value `%0` defined twice
  %0 = integer_literal $Builtin.Int32, 2
  ^^
t.sil:28:18: error: expected `,` between the successors of `cond_br`, found end of line
  cond_br %0, bb1
                 ^
t.sil:30:19: error: `%0` is used as `$Int`, but its type is `$Builtin.Int32`
  %3 = frobnicate %0 : $Int, %undefined
                  ^^
t.sil:30:30: error: use of undefined value `%undefined`
  %3 = frobnicate %0 : $Int, %undefined
                             ^^^^^^^^^^
t.sil:34:20: error: unterminated function body: expected `}`
sil @d : $() -> () {
                   ^"
    );
}

#[test]
fn labels_with_bad_arguments_do_not_cascade() {
    let text = "sil @f : $() -> () {\nbb0(%0 : $Int, %1):\n  br bb1(%0 : $Int)\nbb1(%2 $Int):\n  return %2 : $Int\n}\n";
    assert_eq!(
        errors(text),
        "t.sil:2:18: error: expected `:` and a type after the argument in the arguments of block `bb0`, found `)`\nbb0(%0 : $Int, %1):\n                 ^\n\
         t.sil:4:8: error: expected `:` and a type after the argument in the arguments of block `bb1`, found `$Int`\nbb1(%2 $Int):\n       ^^^^"
    );
}

/// A line of a million stray `%`: the parser keeps a bounded number of messages and counts
/// the rest, and the report is the capped list plus "and N more errors".
#[test]
fn a_flood_of_lexical_errors_is_counted_not_kept() {
    let text = format!("sil @f : $() -> () {{\nbb0:\n  {}\n  unreachable\n}}\n", "% ".repeat(200_000));
    let Err(d) = optlab_core::parse::sil::parse("t.sil", &text) else { panic!("parsed") };
    assert_eq!(d.iter().count(), optlab_core::Diagnostics::MAX);
    assert_eq!(d.total(), 200_000);
    let r = d.render(&SourceFile::new("t.sil", text.as_str()));
    assert_eq!(r.lines().last(), Some("t.sil: and 199900 more errors"));
    assert!(r.len() < 100 * 400, "{} bytes", r.len());
}

/// A declaration whose `{` comes after many blank lines is still one item, and reading it
/// does not look past every blank line again (it was quadratic: 10^5 blank lines took 4 s).
#[test]
fn a_declaration_brace_after_many_blank_lines_is_one_item() {
    let text = format!("class C\n{}{{\n  var x: Int\n}}\n\nsil @f : $() -> () {{\nbb0:\n  unreachable\n}}\n", "\n".repeat(50_000));
    let m = optlab_core::parse::sil::parse("t.sil", &text).unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(m.items.len(), 2);
    match &m.items[0] {
        // Blank lines are kept verbatim, as in any raw item.
        optlab_core::ir::Item::Raw { text, .. } => {
            assert!(text.starts_with("class C\n\n") && text.ends_with("\n{\n  var x: Int\n}"), "{}", text.len())
        }
        _ => panic!("not a raw item"),
    }
}
