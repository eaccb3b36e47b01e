//! Each rule with a program it accepts and a twin it refuses, at the line:col Bril's checker
//! gives (the start of the instruction, or of the function for rules about a function).

use crate::diag::SourceFile;
use crate::parse::bril::parse;

/// The errors of parsing `text`, as `(line, col, message)`.
fn errors(text: &str) -> Vec<(u32, u32, String)> {
    let file = SourceFile::new("t.bril", text);
    match parse("t.bril", text) {
        Ok(_) => Vec::new(),
        Err(d) => d
            .iter()
            .map(|e| {
                let at = file.line_col(e.span.lo);
                (at.line, at.col, e.message.clone())
            })
            .collect(),
    }
}

#[track_caller]
fn accepts(text: &str) {
    let errs = errors(text);
    assert!(errs.is_empty(), "refused a valid program: {errs:?}\n{text}");
}

/// `text` is refused with exactly one error, at `line:col`, whose message is `message`.
#[track_caller]
fn refuses(text: &str, line: u32, col: u32, message: &str) {
    let errs = errors(text);
    assert_eq!(errs, vec![(line, col, message.to_string())], "\n{text}");
}

#[test]
fn int_operations_take_ints() {
    accepts("@main(a: int, b: int) {\n  c: int = add a b;\n  d: int = div c a;\n}\n");
    refuses(
        "@main(a: int, b: bool) {\n  c: int = add a b;\n}\n",
        2,
        3,
        "`b` is bool, but argument 2 of `add` must be int",
    );
}

#[test]
fn float_operations_take_floats() {
    accepts("@main(x: float) {\n  y: float = fmul x x;\n  b: bool = fle x y;\n}\n");
    refuses(
        "@main(x: float, n: int) {\n  y: float = fadd n x;\n}\n",
        2,
        3,
        "`n` is int, but argument 1 of `fadd` must be float",
    );
}

#[test]
fn char_operations_take_chars() {
    accepts("@main {\n  c: char = const 'a';\n  b: bool = clt c c;\n  n: int = char2int c;\n  d: char = int2char n;\n}\n");
    refuses(
        "@main {\n  c: char = const 'a';\n  b: bool = ceq c c;\n  e: bool = clt c b;\n}\n",
        4,
        3,
        "`b` is bool, but argument 2 of `clt` must be char",
    );
    refuses(
        "@main {\n  c: char = const 'a';\n  d: char = int2char c;\n}\n",
        3,
        3,
        "`c` is char, but argument 1 of `int2char` must be int",
    );
    refuses(
        "@main {\n  c: char = const 'a';\n  n: char = char2int c;\n}\n",
        3,
        3,
        "`char2int` produces int, but `n` is declared char",
    );
}

#[test]
fn logic_takes_bools() {
    accepts("@main(p: bool, q: bool) {\n  r: bool = and p q;\n  s: bool = not r;\n}\n");
    refuses(
        "@main(p: bool, n: int) {\n  r: bool = or p n;\n}\n",
        2,
        3,
        "`n` is int, but argument 2 of `or` must be bool",
    );
}

#[test]
fn conditions_are_bools() {
    accepts("@main(p: bool) {\n  br p .a .b;\n.a:\n  speculate;\n  guard p .b;\n  commit;\n.b:\n}\n");
    refuses(
        "@main(n: int) {\n  br n .a .b;\n.a:\n.b:\n}\n",
        2,
        3,
        "`n` is int, but argument 1 of `br` must be bool",
    );
    refuses(
        "@main(n: int) {\n  speculate;\n  guard n .b;\n  commit;\n.b:\n}\n",
        3,
        3,
        "`n` is int, but argument 1 of `guard` must be bool",
    );
}

#[test]
fn comparisons_give_bools() {
    accepts("@main(a: int) {\n  b: bool = lt a a;\n}\n");
    refuses("@main(a: int) {\n  b: int = lt a a;\n}\n", 2, 3, "`lt` produces bool, but `b` is declared int");
}

#[test]
fn id_gives_the_type_it_takes() {
    accepts("@main(a: int, p: ptr<int>) {\n  b: int = id a;\n  q: ptr<int> = id p;\n}\n");
    refuses(
        "@main(a: int) {\n  b: bool = id a;\n}\n",
        2,
        3,
        "`a` is int, but argument 1 of `id` must be bool, since the result `b` is bool",
    );
    refuses(
        "@main(a: ptr<int>) {\n  c: ptr<float> = id a;\n}\n",
        2,
        3,
        "`a` is ptr<int>, but argument 1 of `id` must be ptr<float>, since the result `c` is ptr<float>",
    );
}

#[test]
fn print_takes_anything() {
    accepts(
        "@main(a: int, b: bool, f: float, p: ptr<int>) {\n  c: char = const 'x';\n  print a b f c p;\n  print;\n}\n",
    );
    refuses(
        "@main {\n  print a;\n}\n",
        2,
        3,
        "`a` is used by `print` but never defined in `@main`: no instruction assigns it and no parameter has that name",
    );
}

#[test]
fn alloc_takes_a_count_and_gives_a_pointer() {
    accepts("@main(n: int) {\n  p: ptr<float> = alloc n;\n  free p;\n}\n");
    refuses(
        "@main(f: float) {\n  p: ptr<int> = alloc f;\n  free p;\n}\n",
        2,
        3,
        "`f` is float, but argument 1 of `alloc` must be int",
    );
    refuses(
        "@main(n: int) {\n  p: int = alloc n;\n}\n",
        2,
        3,
        "`alloc` produces a pointer (`ptr<…>`), but `p` is declared int",
    );
}

#[test]
fn load_gives_what_the_pointer_points_to() {
    accepts("@main(n: int) {\n  p: ptr<int> = alloc n;\n  x: int = load p;\n  free p;\n}\n");
    refuses(
        "@main(n: int) {\n  p: ptr<int> = alloc n;\n  x: float = load p;\n  free p;\n}\n",
        3,
        3,
        "`p` is ptr<int>, but argument 1 of `load` must be ptr<float>, since the result `x` is float",
    );
    refuses(
        "@main(n: int) {\n  x: int = load n;\n}\n",
        2,
        3,
        "`n` is int, but argument 1 of `load` must be ptr<int>, since the result `x` is int",
    );
}

#[test]
fn store_puts_a_value_of_the_pointee_type() {
    accepts("@main(n: int) {\n  p: ptr<int> = alloc n;\n  store p n;\n  free p;\n}\n");
    refuses(
        "@main(n: int, f: float) {\n  p: ptr<int> = alloc n;\n  store p f;\n  free p;\n}\n",
        3,
        3,
        "`f` is float, but argument 2 of `store` must be int, since `p` is ptr<int>",
    );
    refuses(
        "@main(n: int) {\n  p: ptr<int> = alloc n;\n  store n p;\n  free p;\n}\n",
        3,
        3,
        "`n` is int, but argument 1 of `store` must be a pointer",
    );
}

#[test]
fn ptradd_takes_a_pointer_and_an_int() {
    accepts("@main(n: int) {\n  p: ptr<bool> = alloc n;\n  q: ptr<bool> = ptradd p n;\n  free p;\n}\n");
    let errs = errors("@main(n: int) {\n  p: ptr<int> = alloc n;\n  q: ptr<int> = ptradd n p;\n  free p;\n}\n");
    assert_eq!(
        errs,
        vec![
            (3, 3, "`n` is int, but argument 1 of `ptradd` must be ptr<int>, since the result `q` is ptr<int>".into()),
            (3, 3, "`p` is ptr<int>, but argument 2 of `ptradd` must be int".into()),
        ]
    );
}

#[test]
fn free_takes_a_pointer() {
    refuses("@main(n: int) {\n  free n;\n}\n", 2, 3, "`n` is int, but argument 1 of `free` must be a pointer");
}

#[test]
fn a_variable_has_one_type() {
    // Reassigning with the same type is ordinary Bril.
    accepts("@main {\n  a: int = const 1;\n  a: int = const 2;\n  print a;\n}\n");
    refuses(
        "@main {\n  a: bool = const true;\n  a: int = const 4;\n}\n",
        3,
        3,
        "`a` is declared int here but bool on line 2: a variable keeps one type in a function",
    );
    refuses(
        "@f(a: int) {\n  a: float = const 1.5;\n}\n@main {\n}\n",
        2,
        3,
        "`a` is declared float here but int as a parameter of `@f`: a variable keeps one type in a function",
    );
    // `any` is a type of its own here: the declarations must agree as written.
    refuses(
        "@main {\n  a: any = const 1;\n  a: int = const 4;\n}\n",
        3,
        3,
        "`a` is declared int here but any on line 2: a variable keeps one type in a function",
    );
}

#[test]
fn a_use_needs_a_definition_somewhere_in_the_function() {
    // Defined later in the text (reached around a loop): that is the interpreter's business.
    accepts("@main {\n  jmp .def;\n.use:\n  print x;\n  ret;\n.def:\n  x: int = const 1;\n  jmp .use;\n}\n");
    refuses(
        "@main {\n  b: int = add a b;\n}\n",
        2,
        3,
        "`a` is used by `add` but never defined in `@main`: no instruction assigns it and no parameter has that name",
    );
    // A variable of another function is not one of this one.
    refuses(
        "@f {\n  x: int = const 1;\n}\n@main {\n  print x;\n}\n",
        5,
        3,
        "`x` is used by `print` but never defined in `@main`: no instruction assigns it and no parameter has that name",
    );
}

const CALLEES: &str = "@nothing {\n}\n@retint(): int {\n  x: int = const 5;\n  ret x;\n}\n@argint(x: int) {\n}\n";

/// `CALLEES` followed by a `@main` with `body`: the body's first line is line 10.
fn with_callees(body: &str) -> String {
    format!("{CALLEES}@main {{\n{body}}}\n")
}

#[test]
fn calls_match_the_callee() {
    accepts(&with_callees("  call @nothing;\n  a: int = call @retint;\n  call @argint a;\n"));
    refuses(&with_callees("  call @foo;\n"), 10, 3, "`@foo` is not a function of this program");
    refuses(&with_callees("  a: int = call @nothing;\n"), 10, 3, "`@nothing` returns no value to assign to `a`");
    refuses(&with_callees("  call @retint;\n"), 10, 3, "`@retint` returns int: assign it, as in `x: int = …`");
    refuses(&with_callees("  b: bool = call @retint;\n"), 10, 3, "`@retint` returns int, but `b` is declared bool");
    refuses(
        &with_callees("  b: bool = const true;\n  call @argint b;\n"),
        11,
        3,
        "`b` is bool, but argument 1 of `@argint` must be int",
    );
    refuses(&with_callees("  call @argint;\n"), 10, 3, "`@argint` takes 1 argument, but none is given");
    refuses(
        &with_callees("  a: int = const 1;\n  call @argint a a;\n"),
        11,
        3,
        "`@argint` takes 1 argument, but 2 are given",
    );
}

#[test]
fn returns_match_the_return_type() {
    accepts("@f(x: int): int {\n  ret x;\n}\n@g {\n  ret;\n}\n@main {\n  ret;\n}\n");
    refuses(
        "@f {\n  x: int = const 5;\n  ret x;\n}\n@main {\n}\n",
        3,
        3,
        "`@f` declares no return type, so its `ret` cannot return a value",
    );
    refuses("@f(): int {\n  ret;\n}\n@main {\n}\n", 2, 3, "`@f` returns int: `ret` needs a value");
    refuses("@f(b: bool): int {\n  ret b;\n}\n@main {\n}\n", 2, 3, "`b` is bool, but `@f` returns int");
}

#[test]
fn a_function_with_a_return_type_returns_somewhere() {
    refuses("@noret(): int {\n  x: int = const 5;\n}\n@main {\n}\n", 1, 1, "`@noret` returns int but has no `ret`");
}

#[test]
fn main_returns_nothing() {
    refuses(
        "@main(x: int): int {\n  ret x;\n}\n",
        1,
        1,
        "`@main` cannot have a return type (it declares int): the program's entry returns nothing",
    );
}

#[test]
fn any_is_checked_at_run_time() {
    // An `any` argument goes anywhere, an `any` destination takes anything.
    accepts(
        "@main {\n  v: any = const 4;\n  b: bool = and v v;\n  w: any = add v v;\n  f: float = fadd v w;\n  print v w;\n}\n",
    );
    // `ptr<any>` holds values of every type (the dynamic extension's example).
    accepts(concat!(
        "@main {\n  v: int = const 2;\n  o1: int = const 1;\n  bp: ptr<any> = alloc v;\n",
        "  bp2: ptr<any> = ptradd bp o1;\n  b: bool = const true;\n  i: int = const 0;\n",
        "  store bp b;\n  store bp2 i;\n  b: bool = load bp;\n  i: int = load bp2;\n  print b i;\n  free bp;\n}\n",
    ));
    // An `any` value used as a pointer, and `any` parameters and results of functions.
    accepts(concat!(
        "@get(p: any): any {\n  x: int = load p;\n  ret x;\n}\n",
        "@main {\n  n: int = const 1;\n  p: ptr<int> = alloc n;\n  store p n;\n",
        "  y: int = call @get p;\n  a: any = call @get p;\n  free p;\n}\n",
    ));
}

#[test]
fn main_parameters_are_not_any() {
    accepts("@main(x: int, f: float, b: bool) {\n  print x f b;\n}\n");
    refuses(
        "@main(x: int, y: any) {\n  print x y;\n}\n",
        1,
        15,
        "parameter `y` of `@main` cannot be `any`: its type says how to read the command-line argument",
    );
}

#[test]
fn ssa_set_and_get_move_one_type() {
    accepts(concat!(
        "@main(cond: bool) {\n  a: int = const 5;\n  set c a;\n  br cond .here .there;\n",
        ".here:\n  b: int = const 7;\n  set c b;\n.there:\n  c: int = get;\n  u: float = undef;\n  print c;\n}\n",
    ));
    refuses(
        "@main {\n  b: int = const 1;\n  d: float = const 3.14;\n  set b d;\n}\n",
        4,
        3,
        "`d` is float, but argument 2 of `set` must be int, since `b` is int",
    );
    // Arity and destinations are the builder's rules, as for every operation.
    refuses("@main {\n  set;\n}\n", 2, 3, "`set` takes two arguments (the shadow variable and the value)");
    refuses(
        "@main {\n  b: int = const 1;\n  a: int = set b b;\n}\n",
        3,
        3,
        "`set` does not produce a value",
    );
    refuses(
        "@main {\n  x: int = const 4;\n  z: int = get x;\n}\n",
        3,
        12,
        "`get` takes no arguments",
    );
    refuses("@main {\n  get;\n}\n", 2, 3, "`get` produces a value: write `dest: type = get …`");
    // The shadow variable is the one a `get` assigns: without one it is never defined.
    refuses(
        "@main {\n  a: int = const 1;\n  set s a;\n}\n",
        3,
        3,
        "`s` is used by `set` but never defined in `@main`: no instruction assigns it and no parameter has that name",
    );
}

#[test]
fn bit_casts_convert_between_int_and_float() {
    accepts("@main(f: float) {\n  i: int = float2bits f;\n  g: float = bits2float i;\n}\n");
    refuses("@main(i: int) {\n  j: int = float2bits i;\n}\n", 2, 3, "`i` is int, but argument 1 of `float2bits` must be float");
}

#[test]
fn unknown_operations_have_no_type_rules() {
    accepts("@main(a: int) {\n  x: bool = frobnicate a q;\n}\n");
}

#[test]
fn structural_errors_come_alone() {
    // A malformed instruction is the builder's to report; the type rules would only add a
    // second error about the same mistake (and here about another line).
    let errs = errors("@main(a: int, b: bool) {\n  c: int = add a;\n  d: int = add a b;\n}\n");
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!((errs[0].0, errs[0].2.as_str()), (2, "`add` takes two arguments"));
}

#[test]
fn a_program_with_every_feature_is_accepted() {
    accepts(concat!(
        "# calls, pointers, floats, chars, bools, speculation and SSA together\n",
        "@sum(p: ptr<float>, n: int): float {\n",
        "  zero: int = const 0;\n  one: int = const 1;\n  acc: float = const 0.0;\n  i: int = id zero;\n",
        ".loop:\n  more: bool = lt i n;\n  br more .body .done;\n",
        ".body:\n  q: ptr<float> = ptradd p i;\n  x: float = load q;\n  acc: float = fadd acc x;\n",
        "  i: int = add i one;\n  jmp .loop;\n",
        ".done:\n  ret acc;\n}\n",
        "@shout(c: char): char {\n  n: int = char2int c;\n  k: int = const 32;\n  m: int = sub n k;\n",
        "  up: char = int2char m;\n  ret up;\n}\n",
        "@main(n: int) {\n",
        "  p: ptr<float> = alloc n;\n  half: float = const 0.5;\n  store p half;\n",
        "  s: float = call @sum p n;\n  big: bool = fgt s half;\n",
        "  c: char = const 'a';\n  u: char = call @shout c;\n  same: bool = ceq c u;\n",
        "  speculate;\n  guard big .slow;\n  commit;\n",
        ".slow:\n  set r s;\n  r: float = get;\n  bits: int = float2bits r;\n",
        "  ok: bool = or big same;\n  print s u ok bits;\n  free p;\n  nop;\n}\n",
    ));
}
