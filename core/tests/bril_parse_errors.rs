//! Malformed Bril → the exact diagnostics a user sees (`FILE:LINE:COL: error: …`, the line,
//! carets), including files with several independent mistakes, all of which are reported.

use optlab_core::parse::bril::parse;
use optlab_core::SourceFile;

/// The rendered diagnostics for `text`, which must fail to parse.
fn errors(text: &str) -> String {
    match parse("t.bril", text) {
        Ok(m) => panic!("expected errors, but it parsed:\n{}", optlab_core::print::bril::print_module(&m)),
        Err(d) => d.render(&SourceFile::new("t.bril", text)),
    }
}

#[track_caller]
fn check(text: &str, want: &str) {
    let got = errors(text);
    assert_eq!(got, want.trim_end_matches('\n'), "\n--- got ---\n{got}\n");
}

#[test]
fn three_independent_errors_are_all_reported() {
    check(
        "@main {\n  x: int = const 99999999999999999999;\n  y: int = add x;\n  jmp .nowhere;\n}\n",
        "\
t.bril:2:18: error: integer literal out of range for int
  x: int = const 99999999999999999999;
                 ^^^^^^^^^^^^^^^^^^^^
t.bril:3:12: error: `add` takes two arguments
  y: int = add x;
           ^^^
t.bril:4:7: error: unknown label `.nowhere`
  jmp .nowhere;
      ^^^^^^^^
",
    );
}

#[test]
fn missing_semicolon_duplicate_label_and_duplicate_function() {
    check(
        "@main {\n.loop:\n  x: int = const 1\n  y: int = const 2;\n.loop:\n  print x\n}\n@main {}\n",
        "\
t.bril:3:19: error: expected `;` after instruction
  x: int = const 1
                  ^
t.bril:5:1: error: duplicate label `.loop`
.loop:
^^^^^
t.bril:6:10: error: expected `;` after instruction
  print x
         ^
t.bril:8:1: error: duplicate function `@main`
@main {}
^^^^^
",
    );
}

#[test]
fn branch_arity_and_labels() {
    check(
        "@f(c: bool) {\n  br c .a;\n  jmp .a .b;\n  jmp;\n  br c .a .a .a;\n.a:\n  ret c c;\n}\n",
        "\
t.bril:2:3: error: `br` takes one argument and two labels
  br c .a;
  ^^
t.bril:3:3: error: `jmp` takes one label and no arguments
  jmp .a .b;
  ^^^
t.bril:3:10: error: unknown label `.b`
  jmp .a .b;
         ^^
t.bril:4:3: error: `jmp` takes one label and no arguments
  jmp;
  ^^^
t.bril:5:3: error: `br` takes one argument and two labels
  br c .a .a .a;
  ^^
t.bril:7:3: error: `ret` takes at most one argument
  ret c c;
  ^^^
",
    );
}

#[test]
fn header_and_type_syntax_errors() {
    check(
        "@main(a int, b: ptr<foo>): ptr {\n  v: pointer = id a;\n  z = id a;\n  w: int = const;\n  q: bool = const 5;\n}\n",
        "\
t.bril:1:9: error: expected `:` and a type after parameter `a`, found `int`
@main(a int, b: ptr<foo>): ptr {
        ^^^
t.bril:1:21: error: unknown type `foo`
@main(a int, b: ptr<foo>): ptr {
                    ^^^
t.bril:1:32: error: expected `<` after `ptr`, found `{`
@main(a int, b: ptr<foo>): ptr {
                               ^
t.bril:2:6: error: unknown type `pointer`
  v: pointer = id a;
     ^^^^^^^
t.bril:3:5: error: expected `:` and a type before `=` (`z: type = …`)
  z = id a;
    ^
t.bril:4:12: error: expected a literal after `const`
  w: int = const;
           ^^^^^
t.bril:5:19: error: `5` is not a valid `bool` constant
  q: bool = const 5;
                  ^
",
    );
    check(
        "@f(x: int, x: int): ptr<int {\n}\n",
        "\
t.bril:1:12: error: duplicate parameter `x`
@f(x: int, x: int): ptr<int {
           ^
t.bril:1:29: error: expected `>` to close `ptr<`, found `{`
@f(x: int, x: int): ptr<int {
                            ^
",
    );
}

#[test]
fn unterminated_function() {
    check(
        "@main {\n  x: int = const 1;\n",
        "\
t.bril:1:1: error: unterminated function `@main`: expected `}`
@main {
^^^^^
",
    );
    // A new function where a statement should be: the first one was never closed.
    check(
        "@main {\n  x: int = const 1;\n@g {\n}\n",
        "\
t.bril:1:1: error: unterminated function `@main`: expected `}`
@main {
^^^^^
",
    );
}

#[test]
fn lexical_errors_are_reported_once() {
    check(
        "garbage here\n@main {\n  x: int = add a $ b;\n  c: char = const 'ab';\n  d: int = const 12ab;\n  e: float = const 1.5.2;\n}\n",
        "\
t.bril:1:1: error: expected a function definition (`@name`), found `garbage`
garbage here
^^^^^^^
t.bril:3:18: error: unexpected character `$`
  x: int = add a $ b;
                 ^
t.bril:4:19: error: invalid character literal: expected one character or an escape such as `'\\n'`
  c: char = const 'ab';
                  ^^^^
t.bril:5:18: error: invalid number `12ab`
  d: int = const 12ab;
                 ^^^^
t.bril:6:20: error: invalid number `1.5.2`
  e: float = const 1.5.2;
                   ^^^^^
",
    );
    // Columns count characters, and a stray non-ASCII character at the start of a statement
    // gives one error, not a cascade.
    check(
        "@main {\n  é: int = const 1;\n  print x;\n  x: int = id @;\n}\n",
        "\
t.bril:2:3: error: unexpected character `é`
  é: int = const 1;
  ^
t.bril:4:15: error: expected a function name after `@`
  x: int = id @;
              ^
",
    );
}

#[test]
fn operand_misuse() {
    check(
        "@main {\n  print @f x;\n  add x y;\n  print x .a;\n  y: int = print x;\n  z: int = call x;\n  .lonely\n  w: int = id 5;\n  v: bool = not x .a;\n  c: int = const 1 2;\n  t: int = const foo;\n  const 1;\n  k: int = const 1.5;\n}\n",
        "\
t.bril:2:9: error: `print` takes no function name; only `call` does
  print @f x;
        ^^
t.bril:3:3: error: `add` produces a value: write `dest: type = add …`
  add x y;
  ^^^
t.bril:4:11: error: `print` takes no labels
  print x .a;
          ^^
t.bril:5:3: error: `print` does not produce a value
  y: int = print x;
  ^
t.bril:6:12: error: `call` takes one function name (`@f`)
  z: int = call x;
           ^^^^
t.bril:7:10: error: expected `:` after label `.lonely`
  .lonely
         ^
t.bril:8:15: error: only `const` takes a literal; `5` is not a variable
  w: int = id 5;
              ^
t.bril:9:19: error: `not` takes no labels
  v: bool = not x .a;
                  ^^
t.bril:10:20: error: `const` takes one literal
  c: int = const 1 2;
                   ^
t.bril:11:18: error: expected a literal after `const`, found `foo`
  t: int = const foo;
                 ^^^
t.bril:12:3: error: `const` produces a value: write `dest: type = const …`
  const 1;
  ^^^^^
t.bril:13:18: error: `1.5` is not a valid `int` constant
  k: int = const 1.5;
                 ^^^
",
    );
}

#[test]
fn integer_range_is_that_of_i64() {
    let ok = "@main {\n  a: int = const 9223372036854775807;\n  b: int = const -9223372036854775808;\n}\n";
    assert!(parse("t.bril", ok).is_ok());
    check(
        "@main {\n  a: int = const 9223372036854775808;\n  b: int = const -9223372036854775809;\n}\n",
        "\
t.bril:2:18: error: integer literal out of range for int
  a: int = const 9223372036854775808;
                 ^^^^^^^^^^^^^^^^^^^
t.bril:3:18: error: integer literal out of range for int
  b: int = const -9223372036854775809;
                 ^^^^^^^^^^^^^^^^^^^^
",
    );
}

#[test]
fn crlf_lines_render_without_carriage_returns() {
    check(
        "@main {\r\n  x: int = add y;\r\n}\r\n",
        "\
t.bril:2:12: error: `add` takes two arguments
  x: int = add y;
           ^^^
",
    );
}

#[test]
fn diagnostics_carry_precise_spans() {
    let text = "@main {\n  jmp .missing;\n}\n";
    let d = parse("t.bril", text).unwrap_err();
    assert_eq!(d.0.len(), 1);
    let span = d.0[0].span;
    assert_eq!(&text[span.lo as usize..span.hi as usize], ".missing");
}

#[test]
fn deeply_nested_types_are_an_error_not_a_stack_overflow() {
    let depth = 200_000;
    let text =
        format!("@main {{\n  x: {}int{} = id y;\n  z: int = add y;\n}}\n", "ptr<".repeat(depth), ">".repeat(depth));
    let d = parse("t.bril", &text).unwrap_err();
    let msgs: Vec<&str> = d.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(msgs, ["type nested more than 64 levels deep", "`add` takes two arguments"]);
    let lc = SourceFile::new("t.bril", text.as_str()).line_col(d.0[0].span.lo);
    assert_eq!((lc.line, lc.col), (2, 6 + 64 * 4));

    let deepest = format!("{}int{}", "ptr<".repeat(64), ">".repeat(64));
    let ok = format!("@f(y: {deepest}) {{\n  x: {deepest} = id y;\n}}\n");
    assert!(parse("t.bril", &ok).is_ok());
}

#[test]
fn function_name_inside_a_body_is_not_taken_for_a_new_function() {
    check(
        "@main {\n  @f;\n  x: int = const 1;\n}\n",
        "\
t.bril:2:3: error: expected an instruction or a label, found `@f`
  @f;
  ^^
",
    );
}

/// A line of 100,000 stray characters is one error, not 100,000, and its rendering is a
/// window of the line, not the line: issue 17 measured 20 GB for this file before.
#[test]
fn a_line_of_stray_characters_is_one_error_with_a_short_rendering() {
    for stray in ["+", "@", "$", "-", "."] {
        let text = format!("@main {{\n  {}\n}}\n", stray.repeat(100_000));
        let Err(d) = parse("t.bril", &text) else { panic!("{stray}: parsed") };
        assert_eq!(d.total(), 1, "{stray}: {:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>());
        let r = d.render(&SourceFile::new("t.bril", text.as_str()));
        assert!(r.len() < 400, "{stray}: {} bytes rendered", r.len());
        assert!(r.starts_with("t.bril:2:3: error: "), "{r}");
    }
}

/// Many independent bad tokens on one line: the list stops at the cap and says how many
/// more there were; the whole rendering stays small.
#[test]
fn errors_past_the_cap_are_counted_not_kept() {
    let text = format!("@main {{\n  {}\n}}\n", "1a ".repeat(100_000));
    let Err(d) = parse("t.bril", &text) else { panic!("parsed") };
    assert_eq!(d.iter().count(), optlab_core::Diagnostics::MAX);
    assert_eq!(d.total(), 100_000);
    let r = d.render(&SourceFile::new("t.bril", text.as_str()));
    assert_eq!(r.lines().last(), Some("t.bril: and 99900 more errors"));
    assert!(r.len() < 100 * 400, "{} bytes rendered", r.len());
    // The first error is quoted at its column, inside a window of the long line.
    assert!(r.starts_with("t.bril:2:3: error: invalid number `1a`\n  1a 1a"), "{}", &r[..200]);
}

/// A huge token is quoted shortened in its message.
#[test]
fn a_huge_bad_token_is_quoted_short() {
    let text = format!("@main {{\n  x: int = const {}z;\n}}\n", "9".repeat(50_000));
    let Err(d) = parse("t.bril", &text) else { panic!("parsed") };
    let r = d.render(&SourceFile::new("t.bril", text.as_str()));
    assert!(r.len() < 1000, "{} bytes rendered:\n{}", r.len(), &r[..300]);
}

/// Imports and programs of several files: each mistake at its line:col, told in the file it
/// is in (a `// file:` line starts a file and its line numbers).
#[test]
fn import_mistakes() {
    let text = "from lib.bril import @f;\nfrom \"lib.bril\" @f;\nfrom \"lib.bril\" import f;\nfrom \"lib.bril\" import @f as g;\nfrom \"nope.bril\" import @f;\nfrom \"lib.bril\" import @h, @g as @main;\n@main {\n  x: int = const 1;\n}\n// file:\n// file: lib.bril\n@f {\n}\n@g {\n  y: int = add y;\n}\n";
    let d = optlab_core::parse::bril::parse("main.bril", text).expect_err("mistakes");
    let file = optlab_core::parse::source_file(optlab_core::Lang::Bril, "main.bril", text);
    let got: Vec<String> = d
        .iter()
        .map(|e| {
            let (name, at) = file.locate(e.span.lo);
            format!("{name}:{}:{}: {}", at.line, at.col, e.message)
        })
        .collect();
    let want = [
        "main.bril:1:6: expected the path of the file to import from, in quotes, found `lib.bril`",
        "main.bril:2:17: expected `import` after the path, found `@f`",
        "main.bril:3:24: expected the name of a function to import (`@f`), found `f`",
        "main.bril:4:30: expected the local name after `as` (`@g`), found `g`",
        "main.bril:5:6: `nope.bril` is not a file of this program",
        "main.bril:6:24: `lib.bril` defines no function `@h`",
        "main.bril:6:34: `@main` is already a function of `main.bril`",
        "main.bril:10:1: a `// file:` line needs the file's name after it",
        "lib.bril:4:12: `add` takes two arguments",
    ];
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, w) in got.iter().zip(want) {
        assert!(g.starts_with(w), "got `{g}`, want `{w}…`");
    }
}

/// Files given together become one program: the file no other imports first, then each
/// imported file, transitively, as the lookup finds it (a missing one is left to the parser).
#[test]
fn files_join_into_one_program_with_what_they_import() {
    use optlab_core::parse::bril::{join_program, with_imported};
    let lib = ("lib.bril".to_string(), "@twice(a: int): int {\n  b: int = add a a;\n  ret b;\n}\n".to_string());
    let main = ("main.bril".to_string(), "from \"lib.bril\" import @twice;\n@main {\n  x: int = const 2;\n  y: int = call @twice x;\n  print y;\n}\n".to_string());
    let joined = join_program(vec![lib.clone(), main.clone()]);
    assert!(joined.starts_with("from \"lib.bril\"") && joined.contains("\n// file: lib.bril\n@twice"), "{joined}");
    optlab_core::parse::bril::parse("main.bril", &joined).expect("the joined program parses");

    let mut asked = Vec::new();
    let files = with_imported(vec![main.clone()], |imp, importer| {
        asked.push((imp.to_string(), importer.to_string()));
        Ok::<_, ()>((imp == "lib.bril").then(|| lib.clone()))
    })
    .unwrap();
    assert_eq!(files, vec![main, lib]);
    assert_eq!(asked, [("lib.bril".to_string(), "main.bril".to_string())]);
}
