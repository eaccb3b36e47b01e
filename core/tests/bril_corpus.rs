//! The Bril parser and printer against the shared corpus: every valid program the lab reads
//! (`common::corpus` says which: benchmarks, examples, interpreter tests) parses,
//! verifies, and survives print → parse unchanged; the printer reproduces `bril2txt` output
//! byte for byte; blocks get the names Bril's own tools give them.

mod common;

use optlab_core::ir::{verify, Function, Imm, Module};
use optlab_core::parse::bril::parse;
use optlab_core::print::bril::{print_function, print_module};
use std::path::Path;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn parse_ok(name: &str, text: &str) -> Module {
    match parse(name, text) {
        Ok(m) => m,
        Err(d) => panic!("{name} does not parse:\n{}", d.render(&optlab_core::SourceFile::new(name, text))),
    }
}

fn block_names(f: &Function) -> Vec<(String, bool)> {
    f.layout.iter().map(|&b| (f.blocks[b].name.to_string(), f.blocks[b].labeled)).collect()
}

#[test]
fn every_corpus_program_round_trips() {
    let Some(shared) = common::shared_dir() else { return };
    let files = common::corpus::read_valid(&shared, optlab_core::Lang::Bril);
    let benchmarks = files.iter().filter(|f| f.rel.starts_with("bril/benchmarks/")).count();
    let (mut functions, mut insts) = (0, 0);
    for file in &files {
        let name = file.rel.clone();
        let text = file.program_text();
        let m = parse_ok(&name, &text);
        assert!(!m.functions.is_empty(), "{name}: no functions");
        for f in &m.functions {
            if let Err(d) = verify(f) {
                panic!("{name}: `@{}` does not verify:\n{}", f.name, d.render(&m.source));
            }
            functions += 1;
            insts += f.placed_insts().count();
        }
        let printed = print_module(&m);
        let again = parse_ok(&format!("{name} (printed)"), &printed);
        assert!(m == again, "{name}: print → parse changed the module\n{printed}");
        assert_eq!(print_module(&again), printed, "{name}: printing is not a fixpoint");
        // The per-function printer is the module printer's building block.
        let joined: Vec<String> = m.functions.iter().map(print_function).collect();
        assert_eq!(joined.join("\n"), printed, "{name}");
    }
    eprintln!(
        "bril corpus: {} files ({benchmarks} benchmarks), {functions} functions, {insts} instructions round-trip",
        files.len()
    );
    assert!(benchmarks >= 127, "expected at least 127 benchmark files, found {benchmarks}");
    assert!(files.len() >= 140, "expected at least 140 corpus files, found {}", files.len());
}

/// The `.out` files are `bril2txt` output, so the printer must reproduce them exactly.
#[test]
fn printer_matches_bril2txt_on_tdce_outputs() {
    let Some(shared) = common::shared_dir() else { return };
    let outs = common::files_with_ext(&shared.join("corpus/bril/examples-test/tdce"), "out");
    assert!(outs.len() >= 8, "expected the tdce .out files, found {}", outs.len());
    for path in &outs {
        let text = read(path);
        let m = parse_ok(&path.display().to_string(), &text);
        assert_eq!(print_module(&m), text, "{}", path.display());
    }
}

#[test]
fn blocks_are_named_as_bril_names_them() {
    let Some(shared) = common::shared_dir() else { return };
    let ex = shared.join("corpus/bril/examples-test");
    let cases: &[(&str, &[(&str, bool)])] = &[
        ("tdce/skipped.bril", &[("b0", false), ("b1", false), ("end", true)]),
        ("tdce/simple.bril", &[("b0", false)]),
        (
            "dom/loopcond.bril",
            &[("entry", true), ("loop", true), ("body", true), ("then", true), ("endif", true), ("exit", true)],
        ),
        ("df/fact.bril", &[("b0", false), ("header", true), ("body", true), ("end", true)]),
    ];
    for (file, want) in cases {
        let m = parse_ok(file, &read(&ex.join(file)));
        let got = block_names(&m.functions[0]);
        let want: Vec<(String, bool)> = want.iter().map(|(n, l)| (n.to_string(), *l)).collect();
        assert_eq!(got, want, "{file}");
    }

    // `loopcond`: fall-through from `endif`'s last instruction is a `jmp`, `exit` ends the function.
    let m = parse_ok("loopcond", &read(&ex.join("dom/loopcond.bril")));
    let f = &m.functions[0];
    let succ = |name: &str| -> Vec<String> {
        let b = f.block_by_name(name).unwrap();
        f.successors(b).iter().map(|&s| f.blocks[s].name.to_string()).collect()
    };
    assert_eq!(succ("entry"), ["loop"]);
    assert_eq!(succ("loop"), ["body", "exit"]);
    assert_eq!(succ("body"), ["then", "endif"]);
    assert_eq!(succ("endif"), ["loop"]);
    assert!(succ("exit").is_empty());
}

#[test]
fn variables_are_shared_and_typed_by_their_declaration() {
    // `later` is used before the instruction that assigns it: its value is made at the use
    // and takes its type from the declaration that comes after.
    let text = "@f(n: int): int {\n  x: int = const 1;\n  y: int = add x n;\n  x: int = const 7;\n  print later;\n  later: bool = const true;\n  ret y;\n}\n";
    let m = parse_ok("vars.bril", text);
    let f = &m.functions[0];
    let names: Vec<&str> = f.values.values().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["n", "x", "y", "later"]);
    assert_eq!(f.params.len(), 1);
    assert_eq!(f.ret.as_ref().map(|t| t.to_string()).as_deref(), Some("int"));
    let x = f.values.keys().nth(1).unwrap();
    assert_eq!(f.values[x].ty.as_ref().map(|t| t.to_string()).as_deref(), Some("int"));
    let later = f.values.keys().nth(3).unwrap();
    assert_eq!(f.values[later].ty.as_ref().map(|t| t.to_string()).as_deref(), Some("bool"));
    let b0 = f.entry().unwrap();
    let insts = &f.blocks[b0].insts;
    assert_eq!(insts.len(), 5);
    assert_eq!(f.insts[insts[0]].results, f.insts[insts[2]].results, "both assign the same `x`");
    assert_eq!(f.insts[insts[2]].imm, Imm::Int(7));
    assert!(f.blocks[b0].term.is_some(), "`ret` is the block's terminator, not one of its insts");
    assert_eq!(m.text_of(f.insts[insts[1]].span), Some("y: int = add x n;"));
    // Bril's type rules hold a variable to one type and a use to a definition somewhere.
    assert!(parse("vars.bril", &text.replace("x: int = const 7", "x: bool = const true")).is_err());
    assert!(parse("vars.bril", &text.replace("later: bool", "other: bool")).is_err());
}

#[test]
fn literals_parse_and_print_canonically() {
    let text = "@main {\n  a: int = const -9223372036854775808;\n  b: float = const 0;\n  c: float = const .5;\n  d: float = const 1e-5;\n  e: float = const -2.5E3;\n  f: char = const 'a';\n  g: char = const '\\n';\n  h: char = const '\\';\n  i: char = const ''';\n  j: bool = const false;\n  k: float = const -inf;\n  l: int = const +7;\n  m: ptr<ptr<float>> = alloc a;\n}\n";
    let m = parse_ok("lits.bril", text);
    let printed = print_module(&m);
    let want = "@main {\n  a: int = const -9223372036854775808;\n  b: float = const 0.0;\n  c: float = const 0.5;\n  d: float = const 1e-5;\n  e: float = const -2500.0;\n  f: char = const 'a';\n  g: char = const '\\n';\n  h: char = const '\\';\n  i: char = const ''';\n  j: bool = const false;\n  k: float = const -inf;\n  l: int = const 7;\n  m: ptr<ptr<float>> = alloc a;\n}\n";
    assert_eq!(printed, want);
    assert!(parse_ok("again", &printed) == m);
    let f = &m.functions[0];
    let imms: Vec<&Imm> = f.blocks[f.layout[0]].insts.iter().map(|&i| &f.insts[i].imm).collect();
    assert_eq!(imms[1], &Imm::Float(0.0), "an integer literal of a float constant is a float");
    assert_eq!(imms[6], &Imm::Char('\n'));
    assert_eq!(imms[7], &Imm::Char('\\'));
    assert_eq!(imms[8], &Imm::Char('\''));
}

#[test]
fn operands_in_any_order_print_in_canonical_order() {
    let text = "@f(a: int): int {\n  ret a;\n}\n@main {\n  x: int = const 1;\n  y: int = call x @f;\n  c: bool = lt x y;\n  br .yes c .no;\n.yes:\n  guard: int = myop x;\n.no:\n  nop;\n  ret;\n}\n";
    let m = parse_ok("order.bril", text);
    let want = "@f(a: int): int {\n  ret a;\n}\n\n@main {\n  x: int = const 1;\n  y: int = call @f x;\n  c: bool = lt x y;\n  br c .yes .no;\n.yes:\n  guard: int = myop x;\n.no:\n  nop;\n  ret;\n}\n";
    assert_eq!(print_module(&m), want);
    assert!(parse_ok("again", want) == m);
}

#[test]
fn empty_function_gets_one_unlabeled_block_and_collisions_get_fresh_names() {
    let m = parse_ok("empty.bril", "@main {\n}\n@g { # only a comment\n}");
    assert_eq!(block_names(&m.functions[0]), [("b0".to_string(), false)]);
    assert_eq!(print_module(&m), "@main {\n}\n\n@g {\n}\n");

    let text = "@main {\n  jmp .b1;\n  print;\n.b1:\n  ret;\n  nop;\n}\n";
    let m = parse_ok("collide.bril", text);
    let names = block_names(&m.functions[0]);
    let want = [("b0", false), ("b1_1", false), ("b1", true), ("b3", false)];
    assert_eq!(names, want.map(|(n, l)| (n.to_string(), l)));
    assert_eq!(print_module(&m), text);
    assert!(parse_ok("again", text) == m);
}
