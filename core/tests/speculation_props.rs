//! Bril's speculation under every pass: random programs whose `@main` speculates — regions
//! that assign variables already set before `speculate`, guards that hold for some inputs and
//! fail for others, nested regions, and reads of the rolled-back variables after a failure —
//! run the same (output, value, error) after each registered Bril pass and after the default
//! pipeline. DCE runs on them and must keep what a failing guard restores; LCM and copy
//! propagation leave such functions alone, and say so.

use optlab_core::interp::{bril, RunConfig};
use optlab_core::parse_module;
use optlab_core::passes::pipeline::Pipeline;
use optlab_core::passes::{Options, Outcome, REGISTRY};
use optlab_core::testgen::Rng;
use optlab_core::Lang;

const VARS: [&str; 4] = ["x", "y", "z", "w"];

/// A straight-line statement over the variables: an assignment or a print.
fn stmt(rng: &mut Rng, out: &mut String) {
    let d = rng.pick(&VARS);
    let (a, b) = (rng.pick(&VARS), rng.pick(&VARS));
    match rng.below(6) {
        0 => out.push_str(&format!("  {d}: int = const {};\n", rng.range(-3, 9))),
        1 => out.push_str(&format!("  {d}: int = add {a} {b};\n")),
        2 => out.push_str(&format!("  {d}: int = sub {a} {b};\n")),
        3 => out.push_str(&format!("  {d}: int = mul {a} {b};\n")),
        4 => out.push_str(&format!("  {d}: int = id {a};\n")),
        _ => out.push_str(&format!("  print {a};\n")),
    }
}

/// A speculative region numbered `k`: `speculate`, assignments, a guard on a comparison of
/// the variables, more assignments, `commit`; where the guard fails, the rolled-back
/// variables are read. With `nested`, a second region opens inside the first, and the path
/// where its guard fails is still speculating, so it commits itself.
fn region(rng: &mut Rng, k: usize, nested: bool, out: &mut String) {
    out.push_str("  speculate;\n");
    for _ in 0..1 + rng.below(4) {
        stmt(rng, out);
    }
    if nested {
        out.push_str("  speculate;\n");
        for _ in 0..rng.below(3) {
            stmt(rng, out);
        }
    }
    let (a, b) = (rng.pick(&VARS), rng.pick(&VARS));
    out.push_str(&format!("  c{k}: bool = lt {a} {b};\n  guard c{k} .fail{k};\n"));
    for _ in 0..rng.below(3) {
        stmt(rng, out);
    }
    // Markers in the output tell which way each guard went (the test counts both ways).
    out.push_str(&format!("  commit;\n  h{k}: int = const {};\n  print h{k};\n  jmp .done{k};\n.fail{k}:\n", 8000 + k));
    out.push_str(&format!("  f{k}: int = const {};\n  print f{k};\n", 9000 + k));
    for _ in 0..rng.below(3) {
        stmt(rng, out);
    }
    if nested {
        out.push_str("  commit;\n");
    }
    out.push_str(&format!("  print {};\n.done{k}:\n", rng.pick(&VARS)));
}

/// `@main(a: int, b: int)` with 1–3 regions between plain statements, then every variable
/// printed; and three inputs.
fn program(seed: u64) -> (String, Vec<Vec<String>>) {
    let mut rng = Rng::new(seed);
    let mut out = String::from("@main(a: int, b: int) {\n  x: int = id a;\n  y: int = id b;\n  z: int = const 1;\n  w: int = add a b;\n");
    for k in 0..1 + rng.below(3) {
        for _ in 0..rng.below(4) {
            stmt(&mut rng, &mut out);
        }
        let nested = rng.chance(30);
        region(&mut rng, k, nested, &mut out);
    }
    for _ in 0..rng.below(3) {
        stmt(&mut rng, &mut out);
    }
    out.push_str("  print x y z w;\n}\n");
    let inputs = (0..3).map(|_| vec![rng.range(-5, 6).to_string(), rng.range(-5, 6).to_string()]).collect();
    (out, inputs)
}

fn same_runs(what: &str, text: &str, before: &optlab_core::Module, after: &optlab_core::Module, inputs: &[Vec<String>]) {
    for input in inputs {
        let rc = RunConfig::with_args(input.clone());
        let (b, a) = (bril::run(before, &rc), bril::run(after, &rc));
        assert!(
            b.stdout == a.stdout && b.returned == a.returned && b.error.is_none() == a.error.is_none(),
            "{what}, input {input:?}: printed {:?} ({:?}), now {:?} ({:?})\n{text}\n--- after:\n{}",
            b.stdout,
            b.error,
            a.stdout,
            a.error,
            optlab_core::print::print_module(after, optlab_core::print::Naming::User)
        );
    }
}

fn insts(m: &optlab_core::Module) -> usize {
    m.bodies().map(|f| f.placed_insts().count()).sum()
}

#[test]
fn programs_that_speculate_run_the_same_after_every_pass_and_the_default_pipeline() {
    let (mut held, mut failed, mut dce_removed) = (0, 0, 0);
    for seed in 0..300 {
        let (text, inputs) = program(seed);
        let m = parse_module(Lang::Bril, "spec.bril", &text).unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{text}"));
        for input in &inputs {
            let r = bril::run(&m, &RunConfig::with_args(input.clone()));
            assert!(r.error.is_none(), "seed {seed}: the generated program fails: {:?}\n{text}", r.error);
            held += r.stdout.lines().filter(|l| l.starts_with("800")).count();
            failed += r.stdout.lines().filter(|l| l.starts_with("900")).count();
        }
        for pass in REGISTRY.iter().filter(|p| p.info().accepts(Lang::Bril)) {
            let slug = pass.info().slug;
            let p = Pipeline::parse(slug).expect("a registered slug");
            let (out, runs) = p.run_module(&m, &Options::default());
            for s in runs.iter().flat_map(|r| &r.stages) {
                match &s.outcome {
                    Outcome::Ran => {}
                    Outcome::Refused(msg) if slug != "dce" => {
                        assert!(msg.contains("speculat"), "seed {seed}: {slug} refused for another reason: {msg}")
                    }
                    other => panic!("seed {seed}: {slug}: {other:?}\n{text}"),
                }
            }
            if slug == "dce" {
                dce_removed += insts(&m) - insts(&out);
            }
            same_runs(&format!("seed {seed}, {slug}"), &text, &m, &out, &inputs);
        }
        let (out, _) = Pipeline::default_pipeline().run_module(&m, &Options::default());
        same_runs(&format!("seed {seed}, the default pipeline"), &text, &m, &out, &inputs);
    }
    // Both ways of a guard are taken, and DCE finds dead code to remove around the regions.
    println!("guards held {held} times and failed {failed} times; DCE removed {dce_removed} instructions");
    assert!(held > 100 && failed > 100 && dce_removed > 50, "held {held}, failed {failed}, removed {dce_removed}");
}
