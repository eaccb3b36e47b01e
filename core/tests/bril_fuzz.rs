//! Property tests for the Bril parser and printer: on any input the parser returns (never
//! panics) with diagnostics inside the text, and whatever it accepts verifies and survives
//! print → parse unchanged. Inputs: arbitrary strings and bytes, soup of Bril's tokens,
//! randomly generated programs (mostly valid, with awkward label names), and corpus files
//! mutated by deleting, duplicating and inserting bytes, tokens and lines.

mod common;

use optlab_core::ir::{verify, Imm, Module};
use optlab_core::parse::bril::parse;
use optlab_core::print::bril::print_module;
use optlab_core::SourceFile;
use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::test_runner::TestCaseError;
use std::sync::OnceLock;

const VOCAB: &[&str] = &[
    "@main",
    "@f",
    "@g",
    "(",
    ")",
    "{",
    "}",
    ":",
    ";",
    "=",
    ",",
    "<",
    ">",
    "int",
    "bool",
    "float",
    "char",
    "ptr",
    "x",
    "y",
    "v0.1",
    "b0",
    "b1",
    "true",
    "false",
    "nan",
    "inf",
    ".L",
    ".b1",
    ".b0",
    ".while.cond",
    "const",
    "id",
    "add",
    "mul",
    "div",
    "eq",
    "lt",
    "not",
    "and",
    "fadd",
    "feq",
    "ceq",
    "char2int",
    "int2char",
    "alloc",
    "load",
    "store",
    "free",
    "ptradd",
    "call",
    "print",
    "jmp",
    "br",
    "ret",
    "nop",
    "speculate",
    "5",
    "-3",
    "+7",
    "0",
    "1.5",
    "-0.25",
    "1e-5",
    ".5",
    "-inf",
    "'a'",
    "'\\n'",
    "'\\'",
    "'''",
    "'ab'",
    "99999999999999999999",
    "9223372036854775807",
    "#c\n",
    "\n",
    "$",
    "@",
    ".",
    "é",
    "\r\n",
    "\t",
];

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// Module equality, except that a NaN constant (unequal to itself) compares by its text.
fn same(a: &Module, b: &Module) -> bool {
    let has_nan =
        |m: &Module| m.functions.iter().any(|f| f.insts.values().any(|i| matches!(i.imm, Imm::Float(x) if x.is_nan())));
    a == b || (has_nan(a) && print_module(a) == print_module(b))
}

fn check(text: &str) -> Result<(), TestCaseError> {
    let m = match parse("fuzz.bril", text) {
        Ok(m) => m,
        Err(d) => {
            prop_assert!(d.has_errors(), "Err without an error");
            for e in d.iter() {
                prop_assert!(e.span.lo <= e.span.hi && e.span.hi as usize <= text.len(), "span {:?} outside", e.span);
                prop_assert!(text.is_char_boundary(e.span.lo as usize) && text.is_char_boundary(e.span.hi as usize));
            }
            let _ = d.render(&SourceFile::new("fuzz.bril", text));
            return Ok(());
        }
    };
    for f in &m.functions {
        prop_assert!(verify(f).is_ok(), "`@{}` does not verify: {:?}", f.name, verify(f));
    }
    let printed = print_module(&m);
    let again = match parse("printed.bril", &printed) {
        Ok(again) => again,
        Err(d) => {
            return Err(TestCaseError::fail(format!(
                "printed text does not parse:\n{}\n--- printed ---\n{printed}",
                d.render(&SourceFile::new("printed.bril", &printed))
            )))
        }
    };
    prop_assert!(same(&m, &again), "print → parse changed the module\n--- printed ---\n{}", printed);
    prop_assert_eq!(print_module(&again), printed);
    Ok(())
}

fn token_soup() -> impl Strategy<Value = String> {
    let piece = (select(VOCAB), select(&[" ", " ", "", "\n"][..]));
    prop::collection::vec(piece, 0..120).prop_map(|v| v.into_iter().flat_map(|(t, s)| [t, s]).collect())
}

/// Programs built from Bril's statement forms with random names and operands, every label
/// they branch to defined, so most parse and the round trip is exercised on unusual but valid
/// shapes: labels named like `b1`, empty blocks, code after terminators, variables assigned
/// with several types, operands that are keywords elsewhere.
fn program() -> impl Strategy<Value = String> {
    const LABELS: &[&str] = &["b0", "b1", "b2", "b1_1", "L", "while.cond"];
    let var = select(&["a", "b", "x.1", "true", "const", "_t", "%v"][..]);
    let vars3 = prop::collection::vec(var.clone(), 3);
    let label = select(LABELS);
    let ty = select(&["int", "bool", "float", "char", "ptr<int>", "ptr<ptr<float>>"][..]);
    let typed_lit = select(
        &[
            ("int", "0"),
            ("int", "-1"),
            ("bool", "true"),
            ("bool", "false"),
            ("float", "2.5"),
            ("float", "1e300"),
            ("float", "1e999"),
            ("float", "-0.0"),
            ("float", "7"),
            ("char", "'x'"),
            ("char", "'\\0'"),
            ("char", "'''"),
            ("char", "'\\n'"),
            ("float", "nan"),
            ("float", "-inf"),
        ][..],
    );
    let op = select(
        &[("add", 2), ("id", 1), ("not", 1), ("call @f", 3), ("load", 1), ("ptradd", 2), ("frob", 2), ("call @g", 0)][..],
    );
    let stmt = prop_oneof![
        (var.clone(), ty, op, vars3.clone())
            .prop_map(|(d, t, (o, n), a)| format!("  {d}: {t} = {o} {};", a[..n].join(" "))),
        (var.clone(), typed_lit).prop_map(|(d, (t, l))| format!("  {d}: {t} = const {l};")),
        label.clone().prop_map(|l| format!(".{l}:")),
        label.clone().prop_map(|l| format!("  jmp .{l};")),
        (var.clone(), label.clone(), label).prop_map(|(v, l1, l2)| format!("  br {v} .{l2} .{l1};")),
        prop::option::of(var).prop_map(|v| format!("  ret {};", v.unwrap_or(""))),
        (0..3usize, vars3).prop_map(|(n, a)| format!("  print {};", a[..n].join(" "))),
        Just("  nop;".to_string()),
        Just("  # a comment".to_string()),
    ];
    let body = prop::collection::vec(stmt, 0..14).prop_map(|stmts| {
        // Keep each label's first definition and define the others at the end.
        let mut defined: Vec<String> = Vec::new();
        let mut out = Vec::new();
        for s in stmts {
            if let Some(l) = s.strip_prefix('.').and_then(|l| l.strip_suffix(':')) {
                if defined.iter().any(|d| d == l) {
                    continue;
                }
                defined.push(l.to_string());
            }
            out.push(s);
        }
        out.extend(LABELS.iter().filter(|l| !defined.iter().any(|d| d == *l)).map(|l| format!(".{l}:")));
        out.join("\n")
    });
    prop::collection::vec(body, 1..4).prop_map(|bodies| {
        let names = ["main", "f", "g"];
        bodies.iter().zip(names).map(|(body, name)| format!("@{name}(a: int, b: bool): int {{\n{body}\n}}\n")).collect()
    })
}

fn corpus() -> &'static [String] {
    static FILES: OnceLock<Vec<String>> = OnceLock::new();
    FILES.get_or_init(|| {
        let from_shared = common::shared_dir().map(|d| {
            common::files_with_ext(&d.join("corpus/bril"), "bril")
                .iter()
                .filter_map(|p| std::fs::read_to_string(p).ok())
                .collect::<Vec<_>>()
        });
        match from_shared {
            Some(files) if !files.is_empty() => files,
            _ => vec![
                "@main(n: int) {\n  one: int = const 1;\n.loop:\n  c: bool = lt one n;\n  br c .body .done;\n.body:\n  one: int = add one one;\n  jmp .loop;\n.done:\n  print one;\n}\n".into(),
                "@main {\n  a: int = const 4;\n  jmp .end;\n  print a;\n.end:\n  p: ptr<int> = alloc a;\n  free p;\n}\n".into(),
            ],
        }
    })
}

#[derive(Clone, Debug)]
enum Mutation {
    DeleteByte(usize),
    DeleteRange(usize, usize),
    DuplicateRange(usize, usize),
    DeleteLine(usize),
    /// Copies line `.0` to before line `.1`.
    DuplicateLine(usize, usize),
    SwapLines(usize, usize),
    InsertByte(usize, u8),
    InsertToken(usize, &'static str),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::DeleteByte),
        (any::<usize>(), 1..40usize).prop_map(|(a, n)| Mutation::DeleteRange(a, n)),
        (any::<usize>(), 1..40usize).prop_map(|(a, n)| Mutation::DuplicateRange(a, n)),
        any::<usize>().prop_map(Mutation::DeleteLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::DuplicateLine(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Mutation::InsertByte(a, b)),
        (any::<usize>(), select(VOCAB)).prop_map(|(a, t)| Mutation::InsertToken(a, t)),
    ]
}

/// Applies `m` to the bytes of a file; byte edits may split a UTF-8 sequence, which the
/// lossy conversion turns into U+FFFD like any editor would.
fn apply(text: &[u8], m: &Mutation) -> Vec<u8> {
    let mut b = text.to_vec();
    let len = b.len().max(1);
    let mut lines: Vec<Vec<u8>> = b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
    let nl = lines.len();
    match *m {
        Mutation::DeleteByte(i) if !b.is_empty() => {
            b.remove(i % len);
        }
        Mutation::DeleteRange(i, n) if !b.is_empty() => {
            let lo = i % len;
            b.drain(lo..(lo + n).min(b.len()));
        }
        Mutation::DuplicateRange(i, n) if !b.is_empty() => {
            let lo = i % len;
            let copy = b[lo..(lo + n).min(b.len())].to_vec();
            b.splice(lo..lo, copy);
        }
        Mutation::DeleteLine(i) => {
            lines.remove(i % nl);
            b = lines.join(&b'\n');
        }
        Mutation::DuplicateLine(i, j) => {
            let l = lines[i % nl].clone();
            lines.insert(j % (nl + 1), l);
            b = lines.join(&b'\n');
        }
        Mutation::SwapLines(i, j) => {
            lines.swap(i % nl, j % nl);
            b = lines.join(&b'\n');
        }
        Mutation::InsertByte(i, c) => b.insert(i % (b.len() + 1), c),
        Mutation::InsertToken(i, t) => {
            let at = i % (b.len() + 1);
            b.splice(at..at, format!(" {t} ").into_bytes());
        }
        _ => {}
    }
    b
}

proptest! {
    #![proptest_config(config(3000))]
    #[test]
    fn arbitrary_strings(s in any::<String>()) {
        check(&s)?;
    }
}

proptest! {
    #![proptest_config(config(1000))]
    #[test]
    fn arbitrary_bytes(b in prop::collection::vec(any::<u8>(), 0..300)) {
        check(&String::from_utf8_lossy(&b))?;
    }
}

proptest! {
    #![proptest_config(config(3000))]
    #[test]
    fn token_soup_never_breaks_the_parser(s in token_soup()) {
        check(&s)?;
    }
}

proptest! {
    #![proptest_config(config(1500))]
    #[test]
    fn generated_programs_round_trip(s in program()) {
        check(&s)?;
    }
}

proptest! {
    #![proptest_config(config(1500))]
    #[test]
    fn mutated_corpus_files(text in mutated_file()) {
        check(&text)?;
    }
}

/// How many of `n` deterministic samples of `strategy` parse.
fn accepted(strategy: impl Strategy<Value = String>, n: usize) -> usize {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    (0..n)
        .filter(|_| {
            let text = strategy.new_tree(&mut runner).map(|t| t.current()).unwrap_or_default();
            parse("sample.bril", &text).is_ok()
        })
        .count()
}

fn mutated_file() -> impl Strategy<Value = String> {
    (any::<Index>(), prop::collection::vec(mutation(), 1..4)).prop_map(|(file, muts)| {
        let files = corpus();
        let mut bytes = files[file.index(files.len())].as_bytes().to_vec();
        for m in &muts {
            bytes = apply(&bytes, m);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// The round-trip half of each property is only exercised by inputs that parse; guard against
/// a generator or parser change quietly turning it into a test of error paths alone.
#[test]
fn enough_samples_parse_to_exercise_the_round_trip() {
    let gen = accepted(program(), 200);
    let mutated = accepted(mutated_file(), 200);
    let soup = accepted(token_soup(), 200);
    eprintln!("accepted of 200: generated {gen}, mutated corpus {mutated}, token soup {soup}");
    assert!(gen >= 180, "only {gen}/200 generated programs parse");
    // The fallback corpus (when ../shared is absent) is too small for this bound to be meaningful.
    if common::shared_dir().is_some() {
        assert!(mutated >= 40, "only {mutated}/200 mutated corpus files parse");
    }
}
