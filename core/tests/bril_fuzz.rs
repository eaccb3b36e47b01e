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

/// The generated programs' variables, each with the one type Bril's type rules allow it in a
/// function; the names are awkward on purpose (keywords elsewhere, dots, sigils).
const GEN_VARS: &[(&str, &str)] = &[
    ("a", "int"),
    ("b", "bool"),
    ("x.1", "int"),
    ("true", "bool"),
    ("const", "float"),
    ("_t", "char"),
    ("%v", "ptr<int>"),
    ("q", "ptr<float>"),
    ("pp", "ptr<ptr<float>>"),
];

/// A variable of type `ty`: the `pick`-th of those there are.
fn gen_var(ty: &str, pick: Index) -> &'static str {
    let of: Vec<&str> = GEN_VARS.iter().filter(|(_, t)| *t == ty).map(|(v, _)| *v).collect();
    of[pick.index(of.len())]
}

/// Operation, result type (`None`: the type of its argument, as for `id`; `Some("?")`: any,
/// for an operation the lab does not model) and argument types (`"?"`: any).
type GenOp = (&'static str, Option<&'static str>, &'static [&'static str]);

const GEN_OPS: &[GenOp] = &[
    ("add", Some("int"), &["int", "int"]),
    ("id", None, &["?"]),
    ("not", Some("bool"), &["bool"]),
    ("call @f", Some("int"), &["int", "bool"]),
    ("load", Some("int"), &["ptr<int>"]),
    ("load", Some("ptr<float>"), &["ptr<ptr<float>>"]),
    ("ptradd", Some("ptr<int>"), &["ptr<int>", "int"]),
    ("frob", Some("?"), &["?", "?"]),
    ("call @g", Some("int"), &["int", "bool"]),
];

/// Programs built from Bril's statement forms with random names and operands, every label
/// they branch to defined, so most parse and the round trip is exercised on unusual but valid
/// shapes: labels named like `b1`, empty blocks, code after terminators, uses before (in the
/// text) the assignment, operands that are keywords elsewhere. They obey Bril's type rules:
/// each variable keeps one type, each is assigned somewhere in every function (at its end,
/// after the labels), and a function with a return type has a `ret`.
fn program() -> impl Strategy<Value = String> {
    const LABELS: &[&str] = &["b0", "b1", "b2", "b1_1", "L", "while.cond"];
    let any_var = select(GEN_VARS).prop_map(|(v, _)| v);
    let label = select(LABELS);
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
    let picks = prop::collection::vec((select(GEN_VARS), any::<Index>()), 2);
    let op_stmt = (select(GEN_OPS), select(GEN_VARS), picks).prop_map(|((op, dest_ty, arg_tys), dest, picks)| {
        // The destination: of the operation's type, or any variable where that is open.
        let (d, d_ty) = match dest_ty {
            Some("?") | None => dest,
            Some(t) => (gen_var(t, picks[0].1), t),
        };
        let args: Vec<&str> = (arg_tys.iter().zip(&picks))
            .map(|(t, ((any, _), pick))| match *t {
                "?" if dest_ty.is_none() => gen_var(d_ty, *pick),
                "?" => any,
                t => gen_var(t, *pick),
            })
            .collect();
        format!("  {d}: {d_ty} = {op} {};", args.join(" "))
    });
    let stmt = prop_oneof![
        op_stmt,
        (typed_lit, any::<Index>()).prop_map(|((t, l), pick)| format!("  {}: {t} = const {l};", gen_var(t, pick))),
        label.clone().prop_map(|l| format!(".{l}:")),
        label.clone().prop_map(|l| format!("  jmp .{l};")),
        (any::<Index>(), label.clone(), label).prop_map(|(v, l1, l2)| format!("  br {} .{l2} .{l1};", gen_var("bool", v))),
        // An int for `@f` and `@g`; `@main` returns nothing, so its `ret`s lose the value.
        any::<Index>().prop_map(|v| format!("  ret {};", gen_var("int", v))),
        (0..3usize, prop::collection::vec(any_var, 3)).prop_map(|(n, a)| format!("  print {};", a[..n].join(" "))),
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
        out
    });
    // `@f` and `@g` are always there, for the calls; a body is generated for the first one,
    // two or all three functions.
    prop::collection::vec(body, 1..4).prop_map(|bodies| {
        let headers = ["@main(a: int, b: bool)", "@f(a: int, b: bool): int", "@g(a: int, b: bool): int"];
        let mut out = String::new();
        for (k, header) in headers.iter().enumerate() {
            let mut lines: Vec<String> = bodies.get(k).cloned().unwrap_or_default();
            if k == 0 {
                for l in lines.iter_mut().filter(|l| l.starts_with("  ret ")) {
                    *l = "  ret;".to_string();
                }
            }
            // Every variable assigned somewhere in the function (a use may come first in the
            // text, as around a loop), and a `ret` where the function returns a value.
            lines.extend(
                [
                    "  x.1: int = const 1;",
                    "  true: bool = const false;",
                    "  const: float = const 0.5;",
                    "  _t: char = const 'c';",
                    "  %v: ptr<int> = alloc a;",
                    "  q: ptr<float> = alloc a;",
                    "  pp: ptr<ptr<float>> = alloc a;",
                ]
                .map(String::from),
            );
            if k > 0 {
                lines.push("  ret a;".to_string());
            }
            out.push_str(&format!("{header} {{\n{}\n}}\n", lines.join("\n")));
        }
        out
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
    // Bril's type rules refuse, as Bril's checker does, a mutation that deletes a variable's
    // only assignment or cuts its name: about a quarter of those the parser reads otherwise.
    if common::shared_dir().is_some() {
        assert!(mutated >= 30, "only {mutated}/200 mutated corpus files parse");
    }
}
