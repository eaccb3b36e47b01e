//! Conformance of the parser, the printer and the instruction table with Swift's reference:
//! every table entry has documented forms (`sil_instruction_forms.txt`, written for the lab
//! from the syntax in `docs/SIL/Instructions.md`); each form, inside a minimal function, must
//! parse, print back to text that parses to the same module, and contain an instruction that
//! finds its table entry. Prints `N of M instructions` and the ones that do not pass yet.

use optlab_core::ir::{Op, SilOp};
use optlab_core::print::{print_module, Naming};
use optlab_core::sil::insts;
use optlab_core::{parse_module, Lang, Module, SourceFile};
use std::collections::{BTreeMap, HashSet};

/// The number of instructions that passed when this floor was last raised: it may only rise.
const FLOOR: usize = 241;

struct Form {
    name: String,
    args: String,
    body: Vec<String>,
}

fn forms() -> Vec<Form> {
    let text = include_str!("sil_instruction_forms.txt");
    let mut out: Vec<Form> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("== ") {
            out.push(Form { name: name.trim().to_string(), args: String::new(), body: Vec::new() });
        } else if line.starts_with('#') || line.trim().is_empty() {
            continue;
        } else if let Some(f) = out.last_mut() {
            if f.body.is_empty() && f.args.is_empty() && line.starts_with('(') {
                f.args = line.to_string();
            } else {
                f.body.push(line.to_string());
            }
        }
    }
    out
}

/// The form inside a function: bb0 with the form's arguments, its lines, and a `return` when
/// the form does not end its block itself.
fn function_text(k: usize, form: &Form) -> String {
    let mut s = format!("sil [ossa] @form{k} : $@convention(thin) () -> () {{\nbb0{}:\n", form.args);
    for l in &form.body {
        if l.starts_with("bb") {
            s.push_str(l);
        } else {
            s.push_str("  ");
            s.push_str(l);
        }
        s.push('\n');
    }
    let last_op = form.body.last().map(|l| {
        let inst = l.split_once(" = ").map_or(l.as_str(), |(_, r)| r);
        inst.split_whitespace().next().unwrap_or("").to_string()
    });
    let ends = last_op.is_some_and(|op| insts::lookup(&op).is_some_and(|e| e.is_terminator()));
    if !ends {
        s.push_str("  %ret = tuple ()\n  return %ret : $()\n");
    }
    s.push_str("}\n");
    s
}

fn parse(text: &str) -> Result<Module, String> {
    parse_module(Lang::Sil, "form.sil", text).map_err(|d| d.render(&SourceFile::new("form.sil", text)))
}

/// Why the form does not conform, if it does not.
fn check(k: usize, form: &Form) -> Result<(), String> {
    let text = function_text(k, form);
    let m = parse(&text).map_err(|e| format!("does not parse: {e}"))?;
    let printed = print_module(&m, Naming::User);
    let again = parse(&printed).map_err(|e| format!("its printed form does not parse: {e}\n{printed}"))?;
    if again != m {
        return Err(format!("print → parse changed the module:\n{printed}"));
    }
    if print_module(&again, Naming::User) != printed {
        return Err("printing is not stable".into());
    }
    let f = m.functions.first().ok_or("no function")?;
    let found = f.placed_insts().any(|(_, i)| {
        let op = &f.insts[i].op;
        op.name() == form.name && op.sil_info().is_some_and(|e| e.name == form.name)
    });
    if !found {
        return Err(format!("no `{}` instruction maps to its table entry", form.name));
    }
    Ok(())
}

#[test]
fn every_table_entry_has_forms_that_parse_print_and_map_to_it() {
    let forms = forms();
    let mut by_name: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for (k, form) in forms.iter().enumerate() {
        seen.insert(form.name.as_str());
        let problems = by_name.entry(form.name.as_str()).or_default();
        if let Err(e) = check(k, form) {
            problems.push(e);
        }
    }
    let unknown: Vec<&str> = seen.iter().copied().filter(|n| insts::lookup(n).is_none()).collect();
    assert!(unknown.is_empty(), "forms of instructions the table does not have: {unknown:?}");
    let total = insts::all().len();
    let mut failing = Vec::new();
    for e in insts::all() {
        match by_name.get(e.name) {
            None => failing.push(format!("{}: no documented form written yet", e.name)),
            Some(p) if !p.is_empty() => failing.push(format!("{}: {}", e.name, p[0].lines().take(6).collect::<Vec<_>>().join("\n    "))),
            Some(_) => {}
        }
    }
    let passing = total - failing.len();
    println!("{passing} of {total} instructions: parse, print back equal and map to their table entry");
    for f in &failing {
        println!("  not yet: {f}");
    }
    assert!(passing >= FLOOR, "only {passing} of {total} instructions conform; at least {FLOOR} did");
}

#[test]
fn the_table_has_no_duplicates_and_names_every_modelled_opcode() {
    let mut names = HashSet::new();
    for e in insts::all() {
        assert!(names.insert(e.name), "`{}` has two entries", e.name);
    }
    for n in SilOp::NAMES {
        assert!(names.contains(n), "`{n}` has a SilOp variant but no table entry");
        assert!(Op::Sil(SilOp::from_name(n)).sil_info().is_some());
    }
    let documented = insts::all().iter().filter(|e| e.documented).count();
    println!("{} entries ({documented} from the reference)", insts::all().len());
}
