//! Two stages of the pipeline as texts the user can read, diff, run and save.
//!
//! A stage is the program with the selected function replaced by that stage's function
//! (stage 0 is the input; the views analyse one function at a time, the others are
//! unchanged). Both sides are printed by optlab-core's printer with the user's names, so the
//! diff shows only what the passes did, never formatting.

use super::lines::{diff_rows, Counts, Row};
use crate::program::Program;
use optlab_core::passes::pipeline::PipelineRun;
use optlab_core::interp::bril::args_from_source;
use optlab_core::print::{print_module, Naming};
use optlab_core::{Function, Lang, Module};

/// Everything the before/after view shows for two stages.
#[derive(Debug)]
pub struct Compare {
    /// The stages compared, `from <= to`, and their names (`input`, `after LCM`).
    pub from: usize,
    pub to: usize,
    pub from_name: String,
    pub to_name: String,
    pub function: String,
    pub before: String,
    pub after: String,
    pub rows: Vec<Row>,
    pub counts: Counts,
    pub before_module: Module,
    pub after_module: Module,
    /// The summary line of every pass between the two stages, and whether it refused or
    /// failed (LCM on SIL, a bug).
    pub passes: Vec<(String, bool)>,
    /// The file name's part for a saved after-code: `lcm-copyprop-dce`.
    pub slug: String,
    /// The passes that made each side (from the input), for running the whole program.
    pub before_passes: Vec<&'static str>,
    pub after_passes: Vec<&'static str>,
}

impl PartialEq for Compare {
    /// Derived from the program and the stages: compared by identity.
    fn eq(&self, other: &Compare) -> bool {
        std::ptr::eq(self, other)
    }
}

/// `module` with the function named `name` replaced by `f`.
pub(super) fn with_function(module: &Module, name: &str, f: &Function) -> Module {
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

/// Compares stages `from` and `to` (clamped and ordered) of `staged`.
pub fn compare(program: &Program, staged: &PipelineRun, from: usize, to: usize) -> Compare {
    let last = staged.stages.len();
    let (from, to) = (from.min(to).min(last), from.max(to).min(last));
    let name = staged.input.name.clone();
    let before_module = with_function(&program.module, &name, staged.function_at(from));
    let after_module = with_function(&program.module, &name, staged.function_at(to));
    let before = print(program, &before_module);
    let after = print(program, &after_module);
    let rows = diff_rows(&before, &after);
    let counts = Counts::of(&rows);
    let between = &staged.stages[from..to];
    let passes = between.iter().map(|r| (r.summary(), r.problem().is_some())).collect();
    let slug = between.iter().map(|r| r.pass.slug).collect::<Vec<_>>().join("-");
    Compare {
        from,
        to,
        from_name: staged.stage_name(from),
        to_name: staged.stage_name(to),
        function: name,
        before,
        after,
        rows,
        counts,
        before_module,
        after_module,
        passes,
        slug,
        before_passes: staged.stages[..from].iter().map(|r| r.pass.slug).collect(),
        after_passes: staged.stages[..to].iter().map(|r| r.pass.slug).collect(),
    }
}

/// The download name of the after-code: `loop.bril` → `loop.dce.bril` (`loop.lcm-dce.bril`
/// after two passes; `loop.bril` itself when no pass lies between the stages).
pub fn export_name(file: &str, slug: &str) -> String {
    let base = file.rsplit(['/', '\\']).next().filter(|b| !b.is_empty()).unwrap_or("program");
    if slug.is_empty() {
        return base.to_string();
    }
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
    use optlab_core::passes::pipeline::Pipeline;

    fn program(lang: Lang, file: &str, text: &str) -> Program {
        Program::parse(lang, file, text).unwrap_or_else(|e| panic!("{}", e.text))
    }

    fn staged(p: &Program, pipeline: &str) -> PipelineRun {
        let a = analyse(p, &p.function_names()[0], &Default::default()).expect("analysed");
        a.run_pipeline(&Pipeline::parse(pipeline).unwrap())
    }

    #[test]
    fn dce_on_dead1_deletes_the_sum_and_keeps_names() {
        let p = program(Lang::Sil, "dead1.sil", include_str!("../../../../core/tests/golden/dce/seed_dead1.sil"));
        let c = compare(&p, &staged(&p, "dce"), 0, 1);
        let after = &c.after;
        assert!(after.contains("bb0(%0 : $Int32, %1 : $Int32):\n  return %0 : $Int32\n"), "{after}");
        assert!(!after.contains("struct_extract"));
        assert!(after.contains("import Swift"), "the rest of the module stays");
        assert_eq!(c.counts.deleted, 6);
        assert_eq!((c.counts.inserted, c.counts.rewritten), (0, 0));
        let deleted: Vec<&str> = c.rows.iter().filter(|r| r.change == Change::Deleted).map(|r| r.before.as_ref().unwrap().text.trim()).collect();
        assert_eq!(deleted[0], "%3 = struct_extract %0 : $Int32, #Int32._value");
        assert_eq!(c.passes.len(), 1);
        assert!(!c.passes[0].1, "DCE ran");
        assert_eq!((c.from_name.as_str(), c.to_name.as_str()), ("input", "after DCE"));
    }

    #[test]
    fn lcm_on_a_bril_example_keeps_its_args_and_runs_on_sil() {
        let p = program(Lang::Bril, "partial.bril", include_str!("../../../../static/examples/partial.bril"));
        let c = compare(&p, &staged(&p, "lcm"), 0, 1);
        let args = args_from_source(&p.source);
        if !args.is_empty() {
            assert!(c.after.starts_with("# ARGS: ") && c.before.starts_with("# ARGS: "));
        }
        assert!(c.counts.inserted + c.counts.rewritten > 0, "LCM changes the partially redundant add:\n{}", c.after);
        assert!(Program::parse(Lang::Bril, "after.bril", &c.after).is_ok(), "the after-code parses");

        // On SIL, LCM runs: the article's example gets a new block argument at bb12.
        let sil = program(Lang::Sil, "lcm_article.sil", include_str!("../../../../static/examples/lcm_article.sil"));
        let a = analyse(&sil, "main", &Default::default()).expect("analysed");
        let c = compare(&sil, &a.run_pipeline(&Pipeline::parse("lcm").unwrap()), 0, 1);
        assert!(c.counts.inserted > 0 && c.counts.deleted > 0, "{}", c.after);
        assert!(c.after.contains("bb12(%t12 : $Builtin.Int64, %2 : $Builtin.Int64):"), "{}", c.after);
        assert!(Program::parse(Lang::Sil, "after.sil", &c.after).is_ok(), "the after-code parses");
    }

    #[test]
    fn a_middle_stage_compares_with_any_other_and_the_order_does_not_matter() {
        let p = program(Lang::Bril, "partial.bril", include_str!("../../../../static/examples/partial.bril"));
        let s = staged(&p, "lcm,copyprop,dce");
        let c = compare(&p, &s, 3, 1);
        assert_eq!((c.from, c.to), (1, 3));
        assert_eq!((c.from_name.as_str(), c.to_name.as_str()), ("after LCM", "after DCE"));
        assert_eq!(c.passes.len(), 2);
        assert_eq!(c.slug, "copyprop-dce");
        // LCM's copies are gone after copy propagation.
        assert!(c.before.contains("= id "), "{}", c.before);
        assert!(!c.after.contains("= id "), "{}", c.after);
        let same = compare(&p, &s, 9, 9);
        assert_eq!((same.from, same.to), (3, 3));
        assert!(same.passes.is_empty());
    }

    #[test]
    fn export_names() {
        assert_eq!(export_name("loop.bril", "dce"), "loop.dce.bril");
        assert_eq!(export_name("dir/x.y.sil", "lcm"), "x.y.lcm.sil");
        assert_eq!(export_name("untitled", "dce"), "untitled.dce");
        assert_eq!(export_name("", "dce"), "program.dce");
        assert_eq!(export_name(".hidden", "dce"), ".hidden.dce");
        assert_eq!(export_name("loop.bril", "lcm-copyprop-dce"), "loop.lcm-copyprop-dce.bril");
        assert_eq!(export_name("loop.bril", ""), "loop.bril");
    }
}
