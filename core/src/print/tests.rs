//! The tagged lines are the printers: joined they are the text, and they place every
//! instruction exactly once, tagged with its id — in both languages and both namings.

use super::*;
use crate::parse_module;
use crate::passes::dce;

const SAMPLES: &[(Lang, &str)] = &[
    (Lang::Bril, include_str!("../../tests/golden/dce/bril_loop.bril")),
    (Lang::Bril, include_str!("../../tests/golden/dce/bril_diamond.bril")),
    (Lang::Sil, include_str!("../../tests/golden/dce/seed_control_dependent.sil")),
    (Lang::Sil, include_str!("../../tests/golden/dce/seed_dead1.sil")),
    (Lang::Sil, include_str!("../../tests/golden/dce/control_dependent_dead.sil")),
    // function_refs: renumbered, each gets sil-opt's comment line of its own.
    (Lang::Sil, include_str!("../../../static/examples/redundant_copy.sil")),
];

/// Every function with a body of every sample, and what DCE makes of it (a pass creates
/// instructions without a template and leaves blocks without labels).
fn functions() -> Vec<Function> {
    let mut out = Vec::new();
    for &(lang, text) in SAMPLES {
        let m = parse_module(lang, "sample", text).unwrap_or_else(|e| panic!("{e:?}"));
        for f in m.bodies() {
            out.push(f.clone());
            out.push(std::sync::Arc::unwrap_or_clone(dce::run(f).function));
        }
    }
    out
}

fn check(f: &Function, naming: Naming) {
    let lines = function_lines(f, naming);
    let printed = print_function(f, naming);
    assert_eq!(lines.text(), printed, "the lines joined are the printed text");
    let blocks: Vec<BlockId> = lines.blocks.iter().map(|b| b.block).collect();
    assert_eq!(blocks, f.layout, "one entry per block, in layout order");
    let tagged: Vec<InstId> = lines.blocks.iter().flat_map(|b| b.lines.iter().filter_map(Line::inst)).collect();
    let placed: Vec<InstId> = f.placed_insts().map(|(_, i)| i).collect();
    assert_eq!(tagged, placed, "every placed instruction once, in order, with its id\n{printed}");
    for b in &lines.blocks {
        for l in &b.lines {
            match l.kind {
                LineKind::Blank => assert!(l.text.is_empty()),
                LineKind::Label => assert!(l.text.ends_with(':') && !l.text.contains('('), "{}", l.text),
                LineKind::Params => assert!(l.text.ends_with("):") && l.text.contains('('), "{}", l.text),
                LineKind::Comment => assert!(l.text.trim_start().starts_with("// "), "{}", l.text),
                LineKind::Inst(i) => {
                    let op = f.insts[i].op.name();
                    assert!(l.text.starts_with("  ") && l.text.contains(op), "{op}: {}", l.text);
                    assert_eq!(is_terminator_line(&l.text), f.insts[i].op.is_terminator(), "{}", l.text);
                }
            }
        }
    }
    // The text still reads back: the lines are no second printer.
    let again = parse_module(f.lang, "again", &printed).unwrap_or_else(|e| panic!("{e:?}\n{printed}"));
    assert_eq!(print_function(&again.functions[0], naming), printed);
}

#[test]
fn lines_are_the_printed_text_in_both_languages_and_namings() {
    let fs = functions();
    assert!(fs.len() >= 2 * SAMPLES.len());
    for f in &fs {
        check(f, Naming::User);
        check(f, Naming::Renumber);
    }
}

#[test]
fn a_sil_block_with_parameters_has_a_params_line_and_blocks_are_separated() {
    let m = parse_module(Lang::Sil, "cd.sil", SAMPLES[2].1).unwrap_or_else(|e| panic!("{e:?}"));
    let f = &m.functions[0];
    let lines = function_lines(f, Naming::User);
    let bb3 = lines.block(f.layout[3]).expect("bb3");
    let kinds: Vec<LineKind> = bb3.lines.iter().map(|l| l.kind).collect();
    let ret = f.blocks[f.layout[3]].term.expect("a return");
    assert_eq!(kinds, [LineKind::Blank, LineKind::Params, LineKind::Inst(ret)]);
    assert_eq!(bb3.lines[1].text, "bb3(%6 : $Int):");
    assert_eq!(lines.head, ["sil @control_dependent : $() {"]);
    assert_eq!(lines.tail, ["} // end sil function 'control_dependent'"]);
    // A Bril block that is neither labelled nor a target has no label line.
    let m = parse_module(Lang::Bril, "l.bril", SAMPLES[0].1).unwrap_or_else(|e| panic!("{e:?}"));
    let lines = function_lines(&m.functions[0], Naming::User);
    assert!(lines.blocks[0].lines.iter().all(|l| l.inst().is_some()));
    assert_eq!(lines.blocks[1].lines[0], Line { text: ".loop:".into(), kind: LineKind::Label });
}

#[test]
fn terminator_lines_follow_op_is_terminator() {
    for t in ["  throw_addr", "throw_addr  // c", "  br bb1", "  jmp .loop;", "ret;", "  ret x;", "  br c .a .b;"] {
        assert!(is_terminator_line(t), "{t}");
    }
    for t in ["  return %1 : $()", "cond_br %0, bb1, bb2", "unreachable", "  switch_enum %0 : $E, case #E.a: bb1"] {
        assert!(is_terminator_line(t), "{t}");
    }
    for t in ["", "  print x;", "  x: int = add a b;", "  %3 = apply %2() : $() -> ()", ".loop:", "bb3(%6 : $Int):"] {
        assert!(!is_terminator_line(t), "{t}");
    }
    assert!(!is_terminator_line("// br bb1"));
    assert!(!is_terminator_line("  strong_release %0 : $C"));
}
