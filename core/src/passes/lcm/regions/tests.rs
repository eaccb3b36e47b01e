//! The per-region solver against the dense one (`predicates.rs`, the oracle): on generated
//! SIL functions both must give every predicate the same value in every block for every
//! expression, and step 7 must make the same edits and the same function.

use super::super::{run_function, LcmOutput, Options, Pred, Step, FORCE_REGIONS};
use crate::entity::EntityRef;
use super::super::LcmError;
use crate::ir::{BlockId, Function};
use crate::passes::lcm::ExprId;
use crate::print::{print_function, Naming};
use crate::{parse_module, Lang};

fn run_on(f: &Function, per_region: bool) -> Result<LcmOutput, LcmError> {
    FORCE_REGIONS.with(|c| c.set(Some(per_region)));
    let o = run_function(f, &Options::default());
    FORCE_REGIONS.with(|c| c.set(None));
    o
}

fn run(text: &str, per_region: bool) -> LcmOutput {
    let m = parse_module(Lang::Sil, "t.sil", text).unwrap_or_else(|d| panic!("parse: {d:?}\n{text}"));
    let f = m.functions.iter().find(|f| f.name == "big").expect("@big");
    run_on(f, per_region).unwrap_or_else(|e| panic!("lcm: {e}\n{text}"))
}

/// Asserts that both solvers agree on every cell and on step 7; returns the cells compared
/// and the expressions moved.
fn compare(dense: &LcmOutput, regions: &LcmOutput, what: &str) -> (usize, usize) {
    assert!(dense.preds.regional.is_none() && regions.preds.regional.is_some());
    assert_eq!(dense.exprs.len(), regions.exprs.len());
    let mut compared = 0;
    for b in 0..dense.split.blocks.len() + 1 {
        for e in 0..dense.exprs.len() + 1 {
            let (b, e) = (BlockId::new(b), ExprId::new(e));
            for p in Pred::ALL {
                let (want, got) = (dense.preds.holds(p, b, e), regions.preds.holds(p, b, e));
                assert_eq!(
                    want,
                    got,
                    "{what}: {p} in {} for {}",
                    dense.split.block_name(b),
                    dense.trace.exprs.get(e.index()).map_or("?", String::as_str)
                );
                compared += 1;
            }
        }
    }
    assert_eq!(transform(dense), transform(regions), "{what}");
    assert_eq!(print_function(&dense.result, Naming::User), print_function(&regions.result, Naming::User), "{what}");
    (compared, dense.moved().len())
}

fn transform(o: &LcmOutput) -> &Step {
    o.trace.steps.iter().find(|s| matches!(s, Step::Transform { .. })).expect("step 7")
}

/// Variants of the scale program that the solver must also get right: a function argument as
/// an operand (its definition is the start, not a modification), and trapping divisions, which
/// every call modifies, so they are solved on their whole subtree.
fn variants(n: usize, seed: u64) -> Vec<String> {
    let text = crate::testgen::scale::sil_program(n, seed);
    let with_arg = text
        .replace(
            "sil @big : $@convention(thin) () -> () {\nbb0:\n",
            "sil @big : $@convention(thin) (Builtin.Int64) -> () {\nbb0(%1 : $Builtin.Int64):\n",
        )
        .replace("  %1 = integer_literal $Builtin.Int64, 3\n", "");
    let trapping = text.replace("builtin \"xor_Int64\"", "builtin \"sdiv_Int64\"");
    vec![text, with_arg, trapping]
}

#[test]
fn per_region_predicates_and_edits_equal_the_dense_solver() {
    let mut compared = 0usize;
    let mut moved = 0usize;
    for seed in 1..=12u64 {
        for n in [6, 20, 60, 150] {
            for text in variants(n, seed) {
                let (c, m) = compare(&run(&text, false), &run(&text, true), &format!("seed {seed}, {n} blocks\n{text}"));
                compared += c;
                moved += m;
            }
        }
    }
    // The comparison covered real work: many cells and expressions that step 7 moves.
    assert!(compared > 100_000 && moved > 50, "{compared} cells, {moved} moved");
}

#[test]
fn a_per_region_run_replays_its_tables_from_the_solution() {
    let text = crate::testgen::scale::sil_program(40, 3);
    let dense = run(&text, false);
    let regions = run(&text, true);
    let (sd, sr) = (dense.steps(), regions.steps());
    // No rounds are recorded, so one position per stage; each stage's table is the solution.
    assert_eq!(sr.len(), 1 + regions.trace.steps.len());
    let last = |s: &super::super::LcmSteps| s.pos(s.len() - 1);
    for e in 0..dense.exprs.len() {
        let e = ExprId::new(e);
        let (a, b) = (dense.snapshot(last(&sd), e), regions.snapshot(last(&sr), e));
        for row in 0..dense.trace.blocks.len() {
            for p in Pred::ALL {
                assert_eq!(a.cell(row, p).value, b.cell(row, p).value, "{p} row {row}");
            }
        }
    }
    assert!(sr.describe(3).contains("region by region"), "{}", sr.describe(3));
}

/// A critical edge (split by step 1, the insertion lands on it), a loop whose header is the
/// entry (step 1 adds a start node in front) and arguments as operands.
const EDGES: &str = "sil_stage canonical

import Builtin

sil @big : $@convention(thin) (Builtin.Int64, Builtin.Int64, Builtin.Int1) -> Builtin.Int64 {
bb0(%0 : $Builtin.Int64, %1 : $Builtin.Int64, %2 : $Builtin.Int1):
  cond_br %2, bb1, bb2
bb1:
  %3 = builtin \"add_Int64\"(%0 : $Builtin.Int64, %1 : $Builtin.Int64) : $Builtin.Int64
  cond_br %2, bb2, bb3
bb2:
  %4 = builtin \"add_Int64\"(%0 : $Builtin.Int64, %1 : $Builtin.Int64) : $Builtin.Int64
  %5 = builtin \"sdiv_Int64\"(%4 : $Builtin.Int64, %1 : $Builtin.Int64) : $Builtin.Int64
  br bb3
bb3:
  %6 = builtin \"add_Int64\"(%0 : $Builtin.Int64, %1 : $Builtin.Int64) : $Builtin.Int64
  %7 = builtin \"sdiv_Int64\"(%6 : $Builtin.Int64, %1 : $Builtin.Int64) : $Builtin.Int64
  return %7 : $Builtin.Int64
}
";

#[test]
fn per_region_agrees_on_split_edges_and_on_the_swift_corpus() {
    let m = parse_module(Lang::Sil, "edges.sil", EDGES).unwrap_or_else(|d| panic!("{d:?}"));
    let (compared, moved) = compare(&run_on(&m.functions[0], false).unwrap(), &run_on(&m.functions[0], true).unwrap(), "edges");
    assert!(compared > 0 && moved > 0);
    // Every function of the SIL corpus LCM accepts (the others must be refused alike).
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/swift");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("NOTICE: {} not found; only the hand-written function was compared", dir.display());
        return;
    };
    let mut functions = 0;
    for path in entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "sil")) {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let Ok(m) = parse_module(Lang::Sil, "corpus.sil", &text) else { continue };
        for f in m.bodies() {
            match (run_on(f, false), run_on(f, true)) {
                (Ok(a), Ok(b)) => {
                    compare(&a, &b, &format!("{} @{}", path.display(), f.name));
                    functions += 1;
                }
                (Err(a), Err(b)) => assert_eq!(a, b),
                (a, b) => panic!("{} @{}: {:?} vs {:?}", path.display(), f.name, a.err(), b.err()),
            }
        }
    }
    assert!(functions > 0, "no corpus function was compared");
}
