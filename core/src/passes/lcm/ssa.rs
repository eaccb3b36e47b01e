//! LCM's two SSA checks on SIL (the input is in SSA form; so is the result), answered with
//! the dominator tree of the function after step 1 instead of a control-flow graph and a
//! dominator tree built for each of the two functions.
//!
//! Why that tree answers for both. Splitting an edge `b → t` puts a block `s` with the one
//! predecessor `b` and the one successor `t` on it, and moves the edge's branch arguments
//! into `s`'s `br`. Every path of the old graph is a path of the new one with `s` inserted,
//! so for the blocks both graphs have, `x` dominates `y` in one exactly when it does in the
//! other, and reachability is the same. A use that moved into `s` is dominated by its
//! definition exactly when the use in `b`'s terminator was: `s`'s dominators are `s` and
//! `b`'s (only `cond_br` edges are split, and `cond_br` defines nothing). Step 7 adds
//! instructions and block arguments but no edges, and removes split blocks that received
//! nothing (undoing their split), so the same tree answers for the result's blocks.
//! `crate::dom::verify_ssa` with each function's own tree is the reference (the tests compare
//! the two on generated and corpus functions, unchanged and broken); building those trees was
//! a third of LCM's time on a 10^5-block SIL function.

use crate::diag::Diagnostics;
use crate::dom::DomTree;
use crate::ir::Function;

/// Whether every use in a block of `f` that `tree` reaches is dominated by its definition,
/// with `tree` the dominator tree of `f` or of a function whose graph differs from `f`'s only
/// by blocks on split edges (module comment): `crate::dom::verify_ssa`'s test and messages.
pub(super) fn check(f: &Function, tree: &DomTree) -> Result<(), Diagnostics> {
    crate::dom::verify_ssa_on_tree(f, tree)
}

#[cfg(test)]
mod tests {
    use super::check;
    use crate::cfg::Cfg;
    use crate::dom::{verify_ssa, DomTree};
    use crate::ir::{Function, InstId, Lang, ValueDef};
    use crate::passes::lcm::{regions::Dominance, run_function, split, Options};
    use crate::{parse_module, testgen::Rng};

    /// The reference: `verify_ssa` with `f`'s own graph and tree, its messages.
    fn reference(f: &Function) -> Result<(), Vec<String>> {
        let cfg = Cfg::new(f);
        let dt = DomTree::dominators(f, &cfg);
        verify_ssa(f, &cfg, &dt).map_err(|d| d.iter().map(|d| d.message.clone()).collect())
    }

    fn split_tree(f: &Function) -> (Function, DomTree) {
        let mut g = f.clone();
        split::split_critical_edges(&mut g);
        let dom = Dominance::new(&g, &Cfg::new(&g));
        (g, dom.tree)
    }

    /// `f` with one operand replaced by a value of another instruction (later in the layout
    /// half of the time): most such functions are no longer in SSA form, some still are.
    fn broken(f: &Function, rng: &mut Rng) -> Option<Function> {
        let mut g = f.clone();
        let placed: Vec<InstId> = g.placed_insts().map(|(_, i)| i).collect();
        let users: Vec<InstId> = placed.iter().copied().filter(|&i| !g.insts[i].args.is_empty()).collect();
        let results: Vec<_> = g.values.iter().filter(|(_, d)| matches!(d.def, ValueDef::Result { .. } | ValueDef::Param { .. })).map(|(v, _)| v).collect();
        if users.is_empty() || results.is_empty() {
            return None;
        }
        let i = users[rng.below(users.len())];
        let k = rng.below(g.insts[i].args.len());
        g.insts[i].args[k] = results[rng.below(results.len())];
        Some(g)
    }

    /// Checks one function and its LCM result both ways; returns how many were not in SSA.
    fn compare(f: &Function, what: &str) -> usize {
        let want = reference(f);
        let (g, tree) = split_tree(f);
        // The input check: the split graph's tree answers as `f`'s does (the messages may
        // name a split block, where a moved branch argument now is; `run_function` asks the
        // reference for its message).
        assert_eq!(check(&g, &tree).is_ok(), want.is_ok(), "{what}: input check");
        if want.is_err() {
            assert!(matches!(run_function(f, &Options::default()), Err(crate::passes::lcm::LcmError::Unsupported { .. })));
            return 1;
        }
        // The result check: the same messages as the reference on the result's own tree.
        if let Ok(out) = run_function(f, &Options::default()) {
            let got = check(&out.result, &tree).map_err(|e| e.iter().map(|e| e.message.clone()).collect::<Vec<_>>());
            assert_eq!(got, reference(&out.result), "{what}: result check");
        }
        0
    }

    fn sil_functions() -> Vec<(String, crate::ir::Module)> {
        let mut out = Vec::new();
        for (n, seed) in [(20, 1), (60, 2), (150, 3), (400, 4)] {
            let text = crate::testgen::scale::sil_program(n, seed);
            out.push((format!("scale {n}/{seed}"), parse_module(Lang::Sil, "t.sil", &text).unwrap_or_else(|d| panic!("{d:?}"))));
        }
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/swift");
        for path in std::fs::read_dir(&dir).into_iter().flatten().flatten().map(|e| e.path()) {
            if path.extension().is_some_and(|x| x == "sil") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                if let Ok(m) = parse_module(Lang::Sil, "corpus.sil", &text) {
                    out.push((path.display().to_string(), m));
                }
            }
        }
        out
    }

    /// The split graph's tree gives `verify_ssa`'s answers on the input and on the result,
    /// on SIL functions in SSA form and on broken copies of them (a use made to read another
    /// value), including the result check's messages.
    #[test]
    fn the_split_tree_answers_as_each_functions_own_tree() {
        let mut rng = Rng::new(17);
        let (mut functions, mut not_ssa) = (0, 0);
        for (what, m) in sil_functions() {
            for f in m.bodies().filter(|f| f.lang == Lang::Sil && crate::ir::verify(f).is_ok()) {
                not_ssa += compare(f, &format!("{what} @{}", f.name));
                functions += 1;
                for k in 0..6 {
                    if let Some(g) = broken(f, &mut rng).filter(|g| crate::ir::verify(g).is_ok()) {
                        not_ssa += compare(&g, &format!("{what} @{} broken {k}", f.name));
                    }
                }
            }
        }
        assert!(functions > 20 && not_ssa > 20, "{functions} functions, {not_ssa} not in SSA form");
    }

    /// The result check fails where it must: a use moved above its definition in a result.
    #[test]
    fn a_broken_result_is_caught_with_the_references_messages() {
        let text = crate::testgen::scale::sil_program(60, 5);
        let m = parse_module(Lang::Sil, "t.sil", &text).unwrap_or_else(|d| panic!("{d:?}"));
        let f = m.bodies().max_by_key(|f| f.blocks.len()).expect("a function");
        let (_, tree) = split_tree(f);
        let out = run_function(f, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
        let mut rng = Rng::new(3);
        let mut caught = 0;
        for _ in 0..40 {
            let Some(g) = broken(&out.result, &mut rng) else { continue };
            let got = check(&g, &tree).map_err(|e| e.iter().map(|e| e.message.clone()).collect::<Vec<_>>());
            let want = reference(&g);
            assert_eq!(got, want);
            caught += usize::from(want.is_err());
        }
        assert!(caught > 5, "{caught}");
    }
}
