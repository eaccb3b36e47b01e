//! The program before and after a pass, as texts the user can read, diff, run and save.
//!
//! "After" is the program with the selected function replaced by the pass's output (the
//! views analyse one function at a time; the others are unchanged). Both sides are printed
//! by optlab-core's printer with the user's names, so the diff shows only what the pass did,
//! never formatting.

use super::lines::{diff_rows, Counts, Row};
use crate::program::{Analysis, Program};
use crate::state::Pass;
use optlab_core::interp::bril::args_from_source;
use optlab_core::print::{print_module, Naming};
use optlab_core::{Function, Lang, Module};

/// Everything the before/after view shows for one pass.
#[derive(Debug)]
pub struct Compare {
    pub pass: Pass,
    pub function: String,
    pub before: String,
    /// The program after the pass, or why there is none (LCM on SIL).
    pub after: Result<String, String>,
    pub rows: Vec<Row>,
    pub counts: Counts,
    pub before_module: Module,
    pub after_module: Option<Module>,
    /// Something to say above the diff (the pass did not run on malformed input, …).
    pub note: Option<String>,
}

impl PartialEq for Compare {
    /// Derived from the program and the pass: compared by identity.
    fn eq(&self, other: &Compare) -> bool {
        std::ptr::eq(self, other)
    }
}

pub fn pass_name(p: Pass) -> &'static str {
    match p {
        Pass::Dce => "DCE",
        Pass::Lcm => "LCM",
    }
}

/// `module` with the function named `name` replaced by `f`.
fn with_function(module: &Module, name: &str, f: &Function) -> Module {
    let mut m = module.clone();
    for g in m.functions.iter_mut().filter(|g| g.name == name) {
        *g = f.clone();
    }
    m
}

/// Printed with the user's names; a Bril program keeps its `# ARGS:` line, so a saved file
/// runs with the same arguments.
fn print(program: &Program, m: &Module) -> String {
    let text = print_module(m, Naming::User);
    let args = args_from_source(&program.source);
    if m.lang == Lang::Bril && !args.is_empty() {
        format!("# ARGS: {}\n{text}", args.join(" "))
    } else {
        text
    }
}

pub fn compare(program: &Program, a: &Analysis, pass: Pass) -> Compare {
    let name = a.function.name.clone();
    let before_module = program.module.clone();
    let before = print(program, &before_module);
    let (after_fn, note): (Result<&Function, String>, Option<String>) = match pass {
        Pass::Dce => match &a.dce.trace.skipped {
            Some(why) => (Ok(&a.dce.function), Some(format!("DCE did not run on @{name}: {why}"))),
            None => (Ok(&a.dce.function), None),
        },
        Pass::Lcm => (a.lcm.as_ref().map(|o| &o.result).map_err(Clone::clone), None),
    };
    let after_module = after_fn.ok().map(|f| with_function(&before_module, &name, f));
    let after = match (&after_module, &a.lcm) {
        (Some(m), _) => Ok(print(program, m)),
        (None, Err(why)) => Err(why.clone()),
        (None, Ok(_)) => Err("the pass produced nothing".to_string()),
    };
    let rows = after.as_ref().map_or_else(|_| Vec::new(), |t| diff_rows(&before, t));
    let counts = Counts::of(&rows);
    Compare { pass, function: name, before, after, rows, counts, before_module, after_module, note }
}

/// The download name of the after-code: `loop.bril` → `loop.dce.bril`.
pub fn export_name(file: &str, pass: Pass) -> String {
    let slug = pass.slug();
    let base = file.rsplit(['/', '\\']).next().filter(|b| !b.is_empty()).unwrap_or("program");
    match base.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => format!("{stem}.{slug}.{ext}"),
        _ => format!("{base}.{slug}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::analyse;
    use crate::views::diff::lines::Change;

    fn program(lang: Lang, file: &str, text: &str) -> Program {
        Program::parse(lang, file, text).unwrap_or_else(|e| panic!("{}", e.text))
    }

    fn compared(p: &Program, pass: Pass) -> Compare {
        let a = analyse(p, &p.function_names()[0]).expect("analysed");
        compare(p, &a, pass)
    }

    #[test]
    fn dce_on_dead1_deletes_the_sum_and_keeps_names() {
        let p = program(Lang::Sil, "dead1.sil", include_str!("../../../../core/tests/golden/dce/seed_dead1.sil"));
        let c = compared(&p, Pass::Dce);
        let after = c.after.as_ref().unwrap();
        assert!(after.contains("bb0(%0 : $Int32, %1 : $Int32):\n  return %0 : $Int32\n"), "{after}");
        assert!(!after.contains("struct_extract"));
        assert!(after.contains("import Swift"), "the rest of the module stays");
        assert_eq!(c.counts.deleted, 6);
        assert_eq!((c.counts.inserted, c.counts.rewritten), (0, 0));
        let deleted: Vec<&str> = c.rows.iter().filter(|r| r.change == Change::Deleted).map(|r| r.before.as_ref().unwrap().text.trim()).collect();
        assert_eq!(deleted[0], "%3 = struct_extract %0 : $Int32, #Int32._value");
        assert!(c.note.is_none());
    }

    #[test]
    fn lcm_on_a_bril_example_keeps_its_args_and_says_no_on_sil() {
        let p = program(Lang::Bril, "partial.bril", include_str!("../../../../static/examples/partial.bril"));
        let c = compared(&p, Pass::Lcm);
        let after = c.after.as_ref().unwrap();
        let args = args_from_source(&p.source);
        if !args.is_empty() {
            assert!(after.starts_with("# ARGS: ") && c.before.starts_with("# ARGS: "));
        }
        assert!(c.counts.inserted + c.counts.rewritten > 0, "LCM changes the partially redundant add:\n{after}");
        assert!(Program::parse(Lang::Bril, "after.bril", after).is_ok(), "the after-code parses");

        let sil = program(Lang::Sil, "dead1.sil", include_str!("../../../../core/tests/golden/dce/seed_dead1.sil"));
        let c = compared(&sil, Pass::Lcm);
        assert!(c.after.is_err() && c.rows.is_empty() && c.after_module.is_none());
    }

    #[test]
    fn export_names() {
        assert_eq!(export_name("loop.bril", Pass::Dce), "loop.dce.bril");
        assert_eq!(export_name("dir/x.y.sil", Pass::Lcm), "x.y.lcm.sil");
        assert_eq!(export_name("untitled", Pass::Dce), "untitled.dce");
        assert_eq!(export_name("", Pass::Dce), "program.dce");
        assert_eq!(export_name(".hidden", Pass::Dce), ".hidden.dce");
    }
}
