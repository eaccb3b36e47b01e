//! "Run both": the program before and after the pass in optlab-core's interpreters, with a
//! low step limit so a long or endless program answers within a moment on the page.

use optlab_core::diag::Span;
use optlab_core::interp::{self, RunConfig, RunResult};
use optlab_core::ir::Type;
use super::compare::with_function;
use optlab_core::passes::pipeline::PipelineRun;
use optlab_core::{Lang, Module, SourceFile};

/// Executed instructions allowed per run: the default (250 M) would freeze the page for
/// many seconds on a runaway loop; 5 M finishes in well under a second.
pub const STEP_LIMIT: u64 = 5_000_000;
/// Printed bytes kept per run (the page shows them in a box).
pub const OUTPUT_LIMIT: usize = 256 << 10;

/// One run, ready to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub dyn_inst: u64,
    /// The entry function's return value (SIL), formatted.
    pub returned: Option<String>,
    /// The error, as `file:line:col: error: …` with the line when it has a place.
    pub error: Option<String>,
    /// The run was cut by a limit: it says nothing about the program.
    pub limited: bool,
    /// The error without its place (what two runs of different texts can share).
    pub failure: Option<String>,
}

/// Both runs and whether they agree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Runs {
    pub before: Outcome,
    pub after: Outcome,
}

impl Runs {
    /// Same output, same return value, and the same success or failure.
    pub fn agree(&self) -> bool {
        let (b, a) = (&self.before, &self.after);
        b.stdout == a.stdout && b.returned == a.returned && b.error.is_some() == a.error.is_some()
    }

    /// The comparison in words, and its kind (`same`, `differ`, `unknown`, `unknown fail`: CSS classes
    /// of the verdict). Two runs that fail are never "the same behaviour": they are said to fail, and
    /// how.
    pub fn verdict(&self) -> (&'static str, String) {
        let (b, a) = (&self.before, &self.after);
        if b.limited || a.limited {
            return ("unknown", "A run hit a limit: nothing to compare".to_string());
        }
        if !self.agree() {
            return ("differ", "The two runs differ!".to_string());
        }
        match (&b.failure, &a.failure) {
            (Some(x), Some(y)) if x == y => ("unknown fail", format!("Both runs fail with the same error: {x}")),
            (Some(x), Some(y)) => ("unknown fail", format!("Both runs fail, with different errors: before, {x}; after, {y}")),
            _ => {
                let (nb, na) = (b.dyn_inst, a.dyn_inst);
                let saved = if nb > 0 && na <= nb {
                    format!(" · {:.0}% fewer instructions", 100.0 * (nb - na) as f64 / nb as f64)
                } else if na > nb {
                    format!(" · {} more instruction{}", na - nb, if na - nb == 1 { "" } else { "s" })
                } else {
                    String::new()
                };
                ("same", format!("Same behaviour{saved}"))
            }
        }
    }
}

fn outcome(r: RunResult, file: &SourceFile) -> Outcome {
    let limited = r.error.as_ref().is_some_and(|e| e.kind.is_limit());
    let error = r.error.as_ref().map(|e| {
        if e.span == Span::DUMMY {
            format!("error: {}", e.kind)
        } else {
            r.render_error(file).unwrap_or_else(|| format!("error: {}", e.kind))
        }
    });
    let failure = r.error.as_ref().map(|e| e.kind.to_string());
    Outcome { stdout: r.stdout, dyn_inst: r.dyn_inst, returned: r.returned, error, limited, failure }
}

/// Runs one module: Bril from `@main`, SIL the function `function`, with `args`.
fn run_one(m: &Module, function: &str, args: &[String]) -> RunResult {
    let cfg = RunConfig { step_limit: STEP_LIMIT, output_limit: OUTPUT_LIMIT, ..RunConfig::with_args(args.to_vec()) };
    match m.lang {
        Lang::Bril => interp::bril::run(m, &cfg),
        Lang::Sil => interp::sil::run(m, function, &cfg),
    }
}

/// Runs `before` and `after` the same way. Errors point into `file` (the editor's text,
/// whose spans both modules share: the passes keep the spans of what they keep).
pub fn run_both(before: &Module, after: &Module, function: &str, args: &[String], file: &SourceFile) -> Runs {
    Runs { before: outcome(run_one(before, function, args), file), after: outcome(run_one(after, function, args), file) }
}

/// `m` with every function but `function` (which is already at its stage) through
/// `passes` too: a run calls other functions, and a pass that changes how values are passed
/// (AddressLowering: `@in`/`@out` become addresses) must have changed callers and callees
/// alike for the run to mean anything. A function a pass refuses stays as it was.
pub fn whole_program(m: &Module, function: &str, passes: &[&str]) -> Module {
    if passes.is_empty() {
        return m.clone();
    }
    let env = optlab_core::sil::types::env_of(m);
    let opts = optlab_core::passes::Options::default();
    let mut out = m.clone();
    for g in out.functions.iter_mut().filter(|g| g.name != function && !g.is_declaration()) {
        for slug in passes {
            let Some(pass) = optlab_core::passes::by_slug(slug) else { continue };
            let a = optlab_core::passes::Analyses::with_types(g, env.clone());
            let r = optlab_core::passes::run(pass, g, &a, &opts);
            *g = std::sync::Arc::unwrap_or_clone(r.function);
        }
    }
    out
}

/// One row of "Run every stage": a stage's run, and whether it behaves as the input did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageRun {
    pub name: String,
    pub outcome: Outcome,
    pub agrees: bool,
}

/// Runs the program at every stage of `staged` (the module `program` with the function at
/// that stage) the same way: the table that shows which pass paid and which cost, e.g. LCM's
/// copies before copy propagation removes them.
pub fn run_stages(program: &Module, staged: &PipelineRun, args: &[String], file: &SourceFile) -> Vec<StageRun> {
    let name = &staged.input.name;
    let outcomes: Vec<Outcome> = (0..staged.num_stages())
        .map(|k| {
            let passes: Vec<&str> = staged.stages[..k].iter().map(|r| r.pass.slug).collect();
            let m = whole_program(&with_function(program, name, staged.function_at(k)), name, &passes);
            outcome(run_one(&m, name, args), file)
        })
        .collect();
    outcomes
        .iter()
        .enumerate()
        .map(|(k, o)| {
            let agrees = Runs { before: outcomes[0].clone(), after: o.clone() }.agree();
            StageRun { name: staged.stage_name(k), outcome: o.clone(), agrees }
        })
        .collect()
}

/// The arguments field's text: the words, as a shell would split them.
pub fn parse_args(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

/// What the arguments field starts with: Bril's `# ARGS:` line; for SIL one sample value per
/// parameter of the function (so "Run both" works at once, and shows what to type).
pub fn default_args(m: &Module, source: &str, function: &str) -> String {
    match m.lang {
        Lang::Bril => interp::bril::args_from_source(source).join(" "),
        Lang::Sil => {
            let Some(f) = m.function(function) else { return String::new() };
            let params = f.entry().and_then(|b| f.blocks.get(b)).map_or(&[][..], |b| &b.params[..]);
            // A `// ARGS:` line names the function's arguments, as Bril's `# ARGS:` does
            // (the gallery's SIL examples have one for @main).
            if function == "main" {
                if let Some(line) = source.lines().find_map(|l| l.trim().strip_prefix("// ARGS:")) {
                    if line.split_whitespace().count() == params.len() {
                        return line.split_whitespace().collect::<Vec<_>>().join(" ");
                    }
                }
            }
            params
                .iter()
                .map(|&p| match f.values.get(p).and_then(|v| v.ty.as_ref()) {
                    Some(Type::Sil(t)) if t == "Bool" || t == "Builtin.Int1" => "true",
                    _ => "1",
                })
                .collect::<Vec<_>>()
                .join(" ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{analyse, Program};
    use crate::views::diff::compare::compare;
    use optlab_core::passes::pipeline::Pipeline;

    fn both(lang: Lang, file: &str, text: &str, pipeline: &str, args: Option<&str>) -> Runs {
        let p = Program::parse(lang, file, text).unwrap_or_else(|e| panic!("{}", e.text));
        let name = p.function_names()[0].clone();
        let a = analyse(&p, &name, &Default::default()).unwrap();
        let staged = a.run_pipeline(&Pipeline::parse(pipeline).unwrap());
        let c = compare(&p, &staged, 0, usize::MAX);
        let args = args.map_or_else(|| default_args(&p.module, &p.source, &name), str::to_string);
        let (before, after) = (whole_program(&c.before_module, &name, &c.before_passes), whole_program(&c.after_module, &name, &c.after_passes));
        run_both(&before, &after, &name, &parse_args(&args), &SourceFile::new(file, text))
    }

    #[test]
    fn address_lowering_runs_a_generic_program_before_and_after_with_the_same_result() {
        // `main` is concrete; the generic functions it calls are lowered with it.
        let text = "sil_stage raw\n\nimport Builtin\n\n\
sil [ossa] @main : $@convention(thin) (Builtin.Int64) -> Builtin.Int64 {\n\
bb0(%0 : $Builtin.Int64):\n  \
%f = function_ref @twice : $@convention(thin) <T> (@in T) -> (@out T, @out T)\n  \
%r = apply %f<Builtin.Int64>(%0) : $@convention(thin) <T> (@in T) -> (@out T, @out T)\n  \
(%a, %b) = destructure_tuple %r : $(Builtin.Int64, Builtin.Int64)\n  \
%s = builtin \"add_Int64\"(%a : $Builtin.Int64, %b : $Builtin.Int64) : $Builtin.Int64\n  \
return %s : $Builtin.Int64\n}\n\n\
sil [ossa] @twice : $@convention(thin) <T> (@in T) -> (@out T, @out T) {\n\
bb0(%0 : @owned $T):\n  %1 = copy_value %0 : $T\n  %2 = tuple (%0 : $T, %1 : $T)\n  return %2 : $(T, T)\n}\n";
        let r = both(Lang::Sil, "twice.sil", text, "address-lowering", Some("21"));
        assert_eq!(r.before.error, None);
        assert_eq!(r.after.error, None, "{:?}", r.after);
        assert_eq!(r.before.returned.as_deref(), Some("42"));
        assert!(r.agree(), "{r:?}");
    }

    #[test]
    fn dce_on_a_bril_program_prints_the_same_with_fewer_instructions() {
        let text = include_str!("../../../../static/examples/loop.bril");
        let r = both(Lang::Bril, "loop.bril", text, "dce", None);
        assert!(r.before.error.is_none(), "{:?}", r.before.error);
        assert!(!r.before.stdout.is_empty());
        assert!(r.agree());
        assert!(r.after.dyn_inst <= r.before.dyn_inst);
    }

    #[test]
    fn lcm_on_the_sil_article_runs_both_with_its_args_line_and_agrees() {
        let text = include_str!("../../../../static/examples/lcm_article.sil");
        let r = both(Lang::Sil, "lcm_article.sil", text, "lcm", None);
        assert_eq!(r.before.error, None);
        assert_eq!(r.before.returned.as_deref().map(|s| s.contains("16")), Some(true), "{:?}", r.before);
        assert!(r.agree());
        assert!(r.after.dyn_inst <= r.before.dyn_inst, "LCM never adds work to a path");
    }

    #[test]
    fn dead1_returns_its_first_argument_before_and_after() {
        let text = include_str!("../../../../core/tests/golden/dce/seed_dead1.sil");
        let r = both(Lang::Sil, "dead1.sil", text, "dce", Some("40 2"));
        assert_eq!(r.before.error, None);
        assert_eq!(r.before.returned.as_deref().map(|s| s.contains("40")), Some(true), "{:?}", r.before);
        assert_eq!(r.before.returned, r.after.returned);
        // Seven instructions run before, one after.
        assert_eq!((r.before.dyn_inst, r.after.dyn_inst), (7, 1));
        assert!(r.agree());
    }

    #[test]
    fn errors_are_clear_and_limits_are_flagged() {
        let text = include_str!("../../../../core/tests/golden/dce/seed_dead1.sil");
        let r = both(Lang::Sil, "dead1.sil", text, "dce", Some("1"));
        let e = r.before.error.as_deref().unwrap();
        assert!(e.contains("expects 2 argument(s), got 1"), "{e}");
        assert!(!r.before.limited);

        let spin = "@main {\n.top:\n  jmp .top;\n}\n";
        let r = both(Lang::Bril, "spin.bril", spin, "dce", None);
        assert!(r.before.limited && r.after.limited);
        assert!(r.before.error.as_deref().unwrap().contains("step limit"), "{:?}", r.before.error);
        assert!(r.before.dyn_inst <= STEP_LIMIT + 1);

        let div = "@main {\n  a: int = const 1;\n  z: int = const 0;\n  q: int = div a z;\n  print q;\n}\n";
        let r = both(Lang::Bril, "div.bril", div, "dce", None);
        let e = r.before.error.as_deref().unwrap();
        assert!(e.starts_with("div.bril:4:"), "the error points at the line: {e}");
        assert!(e.contains("division by zero"));
        // Both fail the same way: said so, never "Same behaviour".
        let (kind, text) = r.verdict();
        assert_eq!(kind, "unknown fail");
        assert!(text.starts_with("Both runs fail with the same error: ") && text.contains("division by zero"), "{text}");
        let r = both(Lang::Sil, "dead1.sil", include_str!("../../../../core/tests/golden/dce/seed_dead1.sil"), "dce", Some("1"));
        assert!(r.verdict().1.starts_with("Both runs fail"), "{:?}", r.verdict());
        let r = both(Lang::Bril, "loop.bril", include_str!("../../../../static/examples/loop.bril"), "dce", None);
        assert!(r.verdict().1.starts_with("Same behaviour"), "{:?}", r.verdict());
    }

    #[test]
    fn default_args_come_from_the_program() {
        let p = Program::parse(Lang::Sil, "d.sil", include_str!("../../../../core/tests/golden/dce/seed_dead1.sil")).unwrap();
        assert_eq!(default_args(&p.module, &p.source, "dead1"), "1 1");
        let b = Program::parse(Lang::Bril, "f.bril", "# ARGS: 4 5\n@main(a: int, b: int) {\n  print a;\n}\n").unwrap();
        assert_eq!(default_args(&b.module, &b.source, "main"), "4 5");
        assert_eq!(parse_args("  1\t2 \n 3 "), ["1", "2", "3"]);
    }

    #[test]
    fn every_stage_runs_and_lcm_s_copies_show_before_copy_propagation_removes_them() {
        let text = include_str!("../../../../static/examples/partial.bril");
        let p = Program::parse(Lang::Bril, "partial.bril", text).unwrap_or_else(|e| panic!("{}", e.text));
        let a = analyse(&p, "main", &Default::default()).unwrap();
        let staged = a.run_pipeline(&Pipeline::parse("lcm,copyprop,dce").unwrap());
        let rows = run_stages(&p.module, &staged, &parse_args("false 2 3"), &SourceFile::new("partial.bril", text));
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["input", "after LCM", "after Copy propagation", "after DCE"]);
        assert!(rows.iter().all(|r| r.agrees && r.outcome.error.is_none()), "{rows:#?}");
        let counts: Vec<u64> = rows.iter().map(|r| r.outcome.dyn_inst).collect();
        // The right arm: LCM inserts the add there and leaves copies; copy propagation removes them.
        assert!(counts[1] > counts[0], "{counts:?}");
        assert!(counts[2] < counts[1] && counts[3] <= counts[0], "{counts:?}");
    }
}
