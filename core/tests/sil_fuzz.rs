//! The SIL parser never panics, and whatever it accepts prints back to text that parses to
//! the same module (and verifies). Inputs: arbitrary strings, soups of SIL tokens, and the
//! corpus files with bytes and lines deleted, duplicated and inserted.

mod common;

use optlab_core::ir;
use optlab_core::parse::sil::parse;
use optlab_core::print::sil::print_module;
use optlab_core::print::Naming;
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::sync::OnceLock;

/// Parse; if accepted, check verification and both printers' round trips.
fn check(text: &str) -> Result<(), TestCaseError> {
    let Ok(m) = parse("fuzz.sil", text) else { return Ok(()) };
    for f in &m.functions {
        prop_assert!(ir::verify(f).is_ok(), "accepted function `{}` does not verify:\n{text}", f.name);
    }
    let user = print_module(&m, Naming::User);
    match parse("printed.sil", &user) {
        Ok(again) => {
            prop_assert!(again == m, "User printing changed the module.\ninput:\n{text}\nprinted:\n{user}");
            prop_assert_eq!(print_module(&again, Naming::User), user);
        }
        Err(d) => {
            let src = optlab_core::SourceFile::new("printed.sil", user.as_str());
            prop_assert!(false, "printed text does not parse: {}\ninput:\n{text}\nprinted:\n{user}", d.render(&src));
        }
    }
    let renumbered = print_module(&m, Naming::Renumber);
    match parse("renumbered.sil", &renumbered) {
        Ok(again) => prop_assert_eq!(print_module(&again, Naming::Renumber), renumbered),
        Err(_) => prop_assert!(false, "renumbered text does not parse:\n{renumbered}\ninput:\n{text}"),
    }
    Ok(())
}

/// A small file used when `../shared` is absent, so the mutation tests still run.
const FALLBACK: &str = r#"sil_stage canonical

import Builtin

struct S { var x: Int }

sil @f : $@convention(thin) (Int32, @owned C) -> Int32 {
bb0(%0 : $Int32, %c : @owned $C):
  %1 = struct_extract %0 : $Int32, #Int32._value
  %2 = integer_literal $Builtin.Int1, -1
  %3 = builtin "sadd_with_overflow_Int32"(%1 : $Builtin.Int32, %1 : $Builtin.Int32, %2 : $Builtin.Int1) : $(Builtin.Int32, Builtin.Int1)
  (%4, %5) = destructure_tuple %3 : $(Builtin.Int32, Builtin.Int1)
  cond_br %5, bb1, bb2(%4 : $Builtin.Int32)
bb1:
  %t = tuple $(Int32, Int32) (%0, %0)
  destroy_value %c : $C
  br bb3
bb2(%6 : $Builtin.Int32):
  destroy_value %c : $C
  try_apply undef() : $@convention(thin) () -> @error any Error, normal bb3, error bb4
bb3:
  return %0 : $Int32
bb4(%e : @owned $any Error):
  throw %e : $any Error
}

sil @g : $() -> ()
"#;

fn corpus() -> &'static [String] {
    static CORPUS: OnceLock<Vec<String>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let mut out = vec![FALLBACK.to_string()];
        if let Some(dir) = common::shared_dir() {
            for p in common::files_with_ext(&dir.join("corpus/swift"), "sil") {
                out.push(std::fs::read_to_string(p).expect("corpus file"));
            }
        }
        out
    })
}

const TOKENS: &[&str] = &[
    "sil",
    "sil_stage canonical",
    "import Swift",
    "struct S {",
    "}",
    "{",
    "@f",
    "@g",
    "@\"q n\"",
    "[ossa]",
    "hidden",
    ":",
    "$",
    "$Int",
    "$Int32",
    "$(Int, Int)",
    "$*Int",
    "$@convention(thin) () -> ()",
    "$<T> (@in T) -> @out T",
    "$Builtin.Int1",
    "bb0",
    "bb1",
    "bb2",
    "entry",
    "(",
    ")",
    "%0",
    "%1",
    "%x",
    "=",
    ",",
    "br",
    "cond_br",
    "return",
    "throw",
    "unreachable",
    "tuple",
    "struct",
    "integer_literal",
    "struct_extract",
    "tuple_extract",
    "#Int32._value",
    "builtin",
    "\"cmp_slt_Int32\"",
    "apply",
    "try_apply",
    "normal",
    "error",
    "function_ref",
    "switch_enum",
    "case",
    "#E.a!enumelt",
    "default",
    "undef",
    "load",
    "[take]",
    "store",
    "to",
    "[init]",
    "on",
    "mark_dependence",
    "copy_addr",
    "-1",
    "0",
    "0x10",
    "1.5",
    "<",
    ">",
    "->",
    "@owned",
    "@guaranteed",
    "debug_value",
    "let",
    "name",
    "\"s\"",
    "forwarding",
    "destructure_tuple",
    "checked_cast_br",
    "switch_value",
    "yield",
    "mystery",
    "//c\n",
    ", loc \"f.swift\":1:2",
    ", scope 3",
    "τ_0_0",
    "é",
    "\"",
    "[",
    "]",
    "#",
    "%",
    "@",
    "*",
    "!",
    "?",
];

fn soup() -> impl Strategy<Value = String> {
    let tok = prop::sample::select(TOKENS);
    let sep = prop::sample::select(&[" ", " ", "", "\n", "\n  ", "\t"][..]);
    prop::collection::vec((tok, sep), 0..80).prop_map(|v| v.into_iter().flat_map(|(t, s)| [t, s]).collect())
}

/// A token soup shaped like a function, so that most cases get past the header.
fn function_soup() -> impl Strategy<Value = String> {
    let line = prop::collection::vec(prop::sample::select(TOKENS), 0..10).prop_map(|v| v.join(" "));
    prop::collection::vec(line, 0..12)
        .prop_map(|lines| format!("sil @f : $() -> () {{\nbb0:\n  {}\n  unreachable\n}}\n", lines.join("\n  ")))
}

#[derive(Clone, Debug)]
enum Mutation {
    DeleteBytes(usize, usize),
    DuplicateBytes(usize, usize),
    InsertBytes(usize, Vec<u8>),
    InsertToken(usize, &'static str),
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..12usize).prop_map(|(a, n)| Mutation::DeleteBytes(a, n)),
        (any::<usize>(), 1..40usize).prop_map(|(a, n)| Mutation::DuplicateBytes(a, n)),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..4)).prop_map(|(a, b)| Mutation::InsertBytes(a, b)),
        (any::<usize>(), prop::sample::select(TOKENS)).prop_map(|(a, t)| Mutation::InsertToken(a, t)),
        any::<usize>().prop_map(Mutation::DeleteLine),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
    ]
}

fn apply(text: &str, muts: &[Mutation]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for m in muts {
        let len = bytes.len().max(1);
        match m {
            Mutation::DeleteBytes(a, n) => {
                let a = a % len;
                let b = (a + n).min(bytes.len());
                if a < b {
                    bytes.drain(a..b);
                }
            }
            Mutation::DuplicateBytes(a, n) => {
                let a = a % len;
                let b = (a + n).min(bytes.len());
                if a < b {
                    let chunk = bytes[a..b].to_vec();
                    bytes.splice(b..b, chunk);
                }
            }
            Mutation::InsertBytes(a, ins) => {
                let a = a % (bytes.len() + 1);
                bytes.splice(a..a, ins.iter().copied());
            }
            Mutation::InsertToken(a, t) => {
                let a = a % (bytes.len() + 1);
                bytes.splice(a..a, t.bytes());
            }
            Mutation::DeleteLine(k) | Mutation::DuplicateLine(k) | Mutation::SwapLines(k, _) => {
                let s = String::from_utf8_lossy(&bytes).into_owned();
                let mut lines: Vec<&str> = s.split('\n').collect();
                let i = k % lines.len();
                match m {
                    Mutation::DeleteLine(_) => {
                        lines.remove(i);
                    }
                    Mutation::DuplicateLine(_) => lines.insert(i, lines[i]),
                    Mutation::SwapLines(_, j) => {
                        let j = j % lines.len();
                        lines.swap(i, j);
                    }
                    _ => unreachable!(),
                }
                bytes = lines.join("\n").into_bytes();
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `SIL_FUZZ_CASES` overrides the case counts for a long local run.
fn config(cases: u32) -> Config {
    let cases = std::env::var("SIL_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(cases);
    Config { cases, failure_persistence: None, ..Config::default() }
}

proptest! {
    #![proptest_config(config(600))]

    #[test]
    fn arbitrary_strings_never_panic(s in "\\PC{0,200}") {
        check(&s)?;
    }

    #[test]
    fn arbitrary_chars_never_panic(v in prop::collection::vec(any::<char>(), 0..120)) {
        check(&v.into_iter().collect::<String>())?;
    }

    #[test]
    fn token_soup_never_panics(s in soup()) {
        check(&s)?;
    }

    #[test]
    fn function_shaped_soup_round_trips_when_accepted(s in function_soup()) {
        check(&s)?;
    }
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn mutated_corpus_never_panics_and_round_trips(
        which in any::<usize>(),
        muts in prop::collection::vec(mutation(), 1..6),
    ) {
        let files = corpus();
        let text = apply(&files[which % files.len()], &muts);
        check(&text)?;
    }
}

/// The unmutated valid inputs themselves are accepted (otherwise the mutation test would only
/// exercise error paths). Which corpus files are valid and read is the corpus expectations'
/// answer; the invalid ones and the known gaps seed the mutations all the same.
#[test]
fn fuzz_inputs_parse_unmutated() {
    assert!(parse("c.sil", FALLBACK).is_ok());
    check(FALLBACK).unwrap();
    let Some(shared) = common::shared_dir() else { return };
    for f in common::corpus::read_valid(&shared, optlab_core::Lang::Sil) {
        let text = f.text();
        assert!(parse(&f.rel, &text).is_ok(), "{}", f.rel);
        check(&text).unwrap_or_else(|e| panic!("{}: {e:?}", f.rel));
    }
}

/// Inputs the fuzzer once found to break the round trip.
#[test]
fn past_fuzz_findings_round_trip() {
    let cases = [
        // A label-like statement whose tail (`, loc …`) is dropped.
        "sil @f : $() -> () {\nbb0:\n  bb0 , loc \"f.swift\":1:2\n  unreachable\n}\n",
        "sil @f : $() -> () {\nbb0:\n  let , , loc \"f.swift\":1:2\n  unreachable\n}\n",
        // A label followed by more tokens on its line, which themselves look like a label.
        "sil @f : $() -> () {\nbb0:\n  unreachable\nbb4(%e : $E):e : @owned $any Error)\n  unreachable\n}\n",
        // A `{` that stripping the location left last on its line, which then opened a
        // region when printed.
        "sil @f : $() -> () {\nbb0:\n  normal struct S { , loc \"f.swift\":1:2\n  unreachable\n}\n",
        // A vertical tab inside a header whose type lacks `$`.
        "sil @f :0\u{b}a $@convention(thin) () -> ()\n",
        "sil @f : $() -> () {\nbb0:\n  %0 = tuple\u{b}(\u{b})\n  return\u{c}%0 : $()\n}\n",
        // Multi-byte characters where recovery skips lines.
        "sil @f é {\nbb0:\n}\nsil @g : $() -> ()\n",
        "sil @f : $() -> () {\nbb0:\n  bb0 (\n  unreachable\n}\n",
        // A `sil` keyword after a label on the same line (on a line of its own it ends the
        // body, so printed on its own line it did).
        "sil @f : $() -> () {\nbb0:sil_stage canonical\n  unreachable\n}\n",
        "sil @f : $() -> () {\nbb0: sil \n  unreachable\n}\n",
    ];
    for text in cases {
        check(text).unwrap();
    }
    assert!(parse("t.sil", cases[3]).is_ok());
    let d = parse("t.sil", cases[cases.len() - 1]).expect_err("`sil` after a label is refused");
    assert!(d.iter().any(|d| d.message.contains("after the block label")), "{d:?}");
}
