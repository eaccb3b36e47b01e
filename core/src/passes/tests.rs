//! The contract's own rules, on every registered pass and on a pass made to misbehave.

use super::pipeline::{Pipeline, DEFAULT};
use super::*;
use crate::ir::{Block, Function, Lang};
use crate::parse_module;

fn bril(text: &str) -> Function {
    parse_module(Lang::Bril, "t.bril", text).unwrap().functions.remove(0)
}

fn sil(text: &str) -> Function {
    parse_module(Lang::Sil, "t.sil", text).unwrap().functions.into_iter().find(|f| !f.is_declaration()).unwrap()
}

/// `add a b` is partially redundant at the join; `d` is dead.
const LOOP: &str = "@main(c: bool, a: int, b: int) {\n  d: int = mul a a;\n  br c .left .right;\n.left:\n  x: int = add a b;\n  print x;\n  jmp .join;\n.right:\n  jmp .join;\n.join:\n  y: int = add a b;\n  print y;\n}\n";

const SIL: &str = "sil_stage canonical\nimport Builtin\nsil @f : $@convention(thin) (Builtin.Int64) -> Builtin.Int64 {\nbb0(%0 : $Builtin.Int64):\n  %1 = integer_literal $Builtin.Int64, 1\n  return %0 : $Builtin.Int64\n}\n";

#[test]
fn slugs_and_titles_are_unique_and_every_pass_names_its_source() {
    let mut seen = std::collections::HashSet::new();
    for p in REGISTRY {
        let i = p.info();
        assert!(seen.insert(i.slug), "slug {} twice", i.slug);
        assert!(by_slug(i.slug).is_some());
        assert!(!i.name.is_empty() && !i.summary.is_empty() && !i.langs.is_empty());
        assert!(i.accepts(Lang::Bril) || i.accepts(Lang::Sil));
        // A pass refusing a language says why.
        assert!(i.langs.len() == 2 || !i.refusal.is_empty(), "{} refuses without a reason", i.slug);
    }
    assert!(Pipeline::parse(DEFAULT).is_ok());
}

#[test]
fn a_language_the_pass_does_not_take_is_refused_with_the_reason() {
    let f = sil(SIL);
    // Copy propagation takes Bril only (LCM takes both since it builds block arguments).
    let cp = by_slug("copyprop").unwrap();
    assert!(by_slug("lcm").unwrap().info().accepts(Lang::Sil));
    let r = run(cp, &f, &Analyses::new(&f), &Options::default());
    let Outcome::Refused(msg) = &r.outcome else { panic!("{:?}", r.outcome) };
    assert!(msg.starts_with(&format!("{} runs on Bril; @f is SIL: ", cp.info().title)), "{msg}");
    assert_eq!(*r.function, f);
    assert_eq!(r.steps.describe(0), msg);
    assert!(r.summary().contains(msg.as_str()));
}

#[test]
fn a_malformed_function_is_refused_not_run() {
    let mut f = bril(LOOP);
    let b = f.add_block(Block::new("h"));
    // Two blocks called `h` and a layout naming one twice.
    f.layout.push(b);
    let r = run(by_slug("dce").unwrap(), &f, &Analyses::new(&bril(LOOP)), &Options::default());
    let Outcome::Refused(msg) = &r.outcome else { panic!("{:?}", r.outcome) };
    assert!(msg.starts_with("@main is malformed: "), "{msg}");
}

/// A pass that deletes a block's terminator but leaves its successors' uses: its output does
/// not verify in SIL (every SIL block needs a terminator).
struct Breaker;
static BREAKER: PassInfo = PassInfo {
    slug: "breaker",
    title: "Breaker",
    name: "a pass that breaks its function",
    summary: "test only",
    langs: &[Lang::Sil],
    refusal: "",
    edits_edges: false,
};
impl Pass for Breaker {
    fn info(&self) -> &'static PassInfo {
        &BREAKER
    }
    fn run(&self, f: &Function, _a: &Analyses, _o: &Options) -> PassRun {
        let mut g = f.clone();
        let entry = g.layout[0];
        g.blocks[entry].term = None;
        PassRun { function: g.into(), outcome: Outcome::Ran, ..PassRun::not_run(&BREAKER, f, Outcome::Ran) }
    }
}

#[test]
fn an_output_that_does_not_verify_is_a_reported_bug_and_the_input_is_kept() {
    let f = sil(SIL);
    let r = run(&Breaker, &f, &Analyses::new(&f), &Options::default());
    let Outcome::Failed(msg) = &r.outcome else { panic!("{:?}", r.outcome) };
    assert!(msg.starts_with("internal error in Breaker: the result does not verify"), "{msg}");
    assert_eq!(*r.function, f);
}

#[test]
fn pipelines_parse_print_and_reject_unknown_names() {
    let p = Pipeline::parse(" lcm , dce ").unwrap();
    assert_eq!(p.to_string(), "lcm,dce");
    assert!(Pipeline::parse("").unwrap().is_empty());
    let e = Pipeline::parse("lcm,gvn").unwrap_err();
    assert!(e.starts_with("no pass `gvn`; the passes are dce, lcm"), "{e}");
    let long = vec!["dce"; pipeline::MAX_PASSES + 1].join(",");
    assert!(Pipeline::parse(&long).is_err());
}

#[test]
fn every_stage_of_a_pipeline_is_the_previous_one_transformed() {
    let f = bril(LOOP);
    let p = Pipeline::parse("lcm,dce,dce").unwrap();
    let r = p.run(&f, &Analyses::new(&f), &Options::default());
    assert_eq!(r.num_stages(), 4);
    assert_eq!(r.function_at(0), &f);
    for k in 1..r.num_stages() {
        let alone = run(p.passes[k - 1], r.function_at(k - 1), &Analyses::new(r.function_at(k - 1)), &Options::default());
        assert_eq!(r.function_at(k), &*alone.function, "stage {k}");
        assert_eq!(r.stages[k - 1].outcome, Outcome::Ran);
    }
    // LCM inserts `add a b` on the right arm; DCE then removes the dead `d`.
    assert_ne!(r.function_at(1), r.function_at(0));
    assert_ne!(r.function_at(2), r.function_at(1));
    assert_eq!(r.function_at(3), r.function_at(2));
    assert_eq!(r.stage_name(0), "input");
    assert_eq!(r.stage_name(1), "after LCM");
    assert_eq!(r.stage_name(3), "after DCE (2)");
    assert_eq!(r.function_at(99), r.output());
}

#[test]
fn a_refused_stage_passes_its_input_on() {
    let f = sil(SIL);
    let p = Pipeline::parse("copyprop,dce").unwrap();
    let r = p.run(&f, &Analyses::new(&f), &Options::default());
    assert!(matches!(r.stages[0].outcome, Outcome::Refused(_)));
    assert_eq!(r.function_at(1), &f);
    assert_eq!(r.stages[1].outcome, Outcome::Ran);
    // DCE removed the dead literal.
    assert!(r.output().placed_insts().count() < f.placed_insts().count());
}

#[test]
fn a_known_first_stage_is_reused_and_equals_a_fresh_run() {
    let f = bril(LOOP);
    let a = Analyses::new(&f);
    let p = Pipeline::parse("lcm,dce").unwrap();
    let alone: Vec<PassRun> = REGISTRY.iter().map(|x| run(*x, &f, &a, &Options::default())).collect();
    let fresh = p.run(&f, &a, &Options::default());
    let reused = p.run_reusing(&f, &a, &Options::default(), &alone);
    for k in 0..fresh.num_stages() {
        assert_eq!(fresh.function_at(k), reused.function_at(k), "stage {k}");
    }
    assert_eq!(reused.stages[0].steps, alone[1].steps);
}
