use super::*;
use optlab_core::interp::{bril, RunConfig};
use optlab_core::passes::{dce, lcm};
use optlab_core::{parse_module, Module};
use optlab_core::print::{print_function, Naming};

fn parsed(ex: &Example) -> Module {
    parse_module(ex.lang, ex.file, &ex.text()).unwrap_or_else(|d| panic!("{}: {d:?}", ex.id))
}

fn get(id: &str) -> &'static Example {
    by_id(id).unwrap_or_else(|| panic!("no example {id}"))
}

/// The function `name` of `m`, printed (user names).
fn printed(m: &Module, name: &str) -> String {
    print_function(m.function(name).unwrap_or_else(|| panic!("no @{name}")), Naming::User)
}

fn lcm_of(ex: &Example) -> (Module, Vec<lcm::LcmOutput>) {
    lcm::run_module(&parsed(ex), &lcm::Options::default()).unwrap_or_else(|e| panic!("{}: {e}", ex.id))
}

#[test]
fn ids_titles_and_files_are_unique_and_well_formed() {
    let mut seen = std::collections::BTreeSet::new();
    for ex in EXAMPLES {
        assert!(seen.insert(ex.id), "duplicate id {}", ex.id);
        assert!(seen.insert(ex.title), "duplicate title {}", ex.title);
        assert!(seen.insert(ex.file), "duplicate file {}", ex.file);
        assert!(!ex.id.is_empty() && ex.id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{}", ex.id);
        let ext = match ex.lang {
            Lang::Bril => ".bril",
            Lang::Sil => ".sil",
        };
        assert!(ex.file.ends_with(ext), "{}: {} is not {ext}", ex.id, ex.file);
        assert!(!ex.teaches.is_empty() && !ex.teaches.contains('\n') && ex.teaches.len() <= 140, "{}: {}", ex.id, ex.teaches);
        assert_eq!(by_id(ex.id), Some(ex));
    }
    assert_eq!(by_id("no-such-example"), None);
    assert_eq!(EXAMPLES[0].id, "loop", "the first impression");
}

#[test]
fn every_example_parses_and_both_passes_run() {
    for ex in EXAMPLES {
        let m = parsed(ex);
        assert!(m.bodies().next().is_some(), "{}: no function with a body", ex.id);
        let r = dce::run_module(&m);
        for t in r.results.iter().map(|r| &r.trace) {
            assert_eq!(t.skipped, None, "{}: DCE skipped @{}", ex.id, t.function);
        }
        if ex.lang == Lang::Bril && m.bodies().any(|f| f.speculates()) {
            // LCM leaves a function that speculates alone, and says why.
            let (_, results) = lcm::run_module_lenient(&m, &lcm::Options::default());
            assert!(results.iter().any(|r| matches!(r, Err(lcm::LcmError::Unsupported { reason, .. }) if reason.contains("speculates"))), "{}", ex.id);
        } else if ex.lang == Lang::Bril {
            let (out, _) = lcm_of(ex);
            // The output runs like the input (the examples' `# ARGS:` lines feed @main; one
            // whose @main takes arguments and names none, like partial.bril, is not run).
            let args = bril::args_from_source(&ex.text());
            let main_params = m.function("main").map_or(0, |f| f.params.len());
            if args.len() != main_params {
                assert!(args.is_empty(), "{}: `# ARGS:` does not fit @main", ex.id);
                continue;
            }
            let cfg = RunConfig::with_args(args);
            let (before, after) = (bril::run(&m, &cfg), bril::run(&out, &cfg));
            assert!(before.is_ok(), "{}: {:?}", ex.id, before.error);
            assert_eq!(before.stdout, after.stdout, "{}", ex.id);
        } else {
            // LCM runs on SIL too: every function is transformed, or refused with a reason (a
            // critical edge out of a `switch_enum` …), never for being SIL.
            let (out, results) = lcm::run_module_lenient(&m, &lcm::Options::default());
            for r in &results {
                assert!(matches!(r, Ok(_) | Err(lcm::LcmError::Unsupported { .. })), "{}: {:?}", ex.id, r.as_ref().err());
            }
            if ex.id.starts_with("lcm-") || ex.id.starts_with("loop-invariant") {
                let args: Vec<String> = ex
                    .text()
                    .lines()
                    .find_map(|l| l.strip_prefix("// ARGS: "))
                    .map(|a| a.split(' ').map(str::to_string).collect())
                    .unwrap_or_default();
                let cfg = RunConfig::with_args(args);
                let (before, after) =
                    (optlab_core::interp::sil::run(&m, "main", &cfg), optlab_core::interp::sil::run(&out, "main", &cfg));
                assert!(before.is_ok(), "{}: {:?}", ex.id, before.error);
                assert_eq!((before.stdout, before.returned), (after.stdout, after.returned), "{}", ex.id);
                assert!(results.iter().flatten().any(|o| !o.moved().is_empty()), "{}: LCM moved nothing", ex.id);
            }
        }
    }
}

#[test]
fn the_original_three_examples_keep_their_text() {
    // Other tests (state, e2e) rely on these programs; the gallery must not change them.
    assert!(get("loop").text().starts_with("# Sum of the odd numbers below n.\n@main {\n"));
    assert!(get("diamond").text().contains("br cond .left .right;"));
    assert!(get("partial").text().contains("y: int = add a b;"));
}

#[test]
fn dead1_keeps_only_the_return() {
    let r = dce::run_module(&parsed(get("dead1")));
    let body = printed(&r.module, "dead1");
    assert!(body.contains("return %0"), "{body}");
    assert!(!body.contains("struct_extract") && !body.contains("builtin"), "{body}");
    assert_eq!(r.results[0].stats.insts_removed, 6);
}

#[test]
fn control_dependent_keeps_everything() {
    let r = dce::run_module(&parsed(get("control-dependent")));
    assert_eq!(r.results[0].stats.insts_removed, 0);
    assert_eq!(r.results[0].stats.branches_rewritten, 0);
}

#[test]
fn the_infinite_loop_is_kept() {
    let r = dce::run_module(&parsed(get("infinite-loop")));
    let body = printed(&r.module, "wait_forever");
    assert!(body.contains("bb1:\n  br bb1"), "{body}");
    assert!(body.contains("cond_br %0, bb1, bb2"), "{body}");
    assert!(!body.contains("integer_literal"), "{body}");
}

#[test]
fn dead_block_arguments_receive_undef() {
    let r = dce::run_module(&parsed(get("dead-block-args")));
    let body = printed(&r.module, "first_of_pair");
    assert_eq!(r.results[0].stats.undefs, 2, "{body}");
    assert!(!body.contains("integer_literal"), "{body}");
    assert!(body.contains("cond_br"), "{body}");
    assert!(body.contains("bb3(%6 : $Builtin.Int64, %7 : $Builtin.Int64)"), "the parameter stays: {body}");
}

#[test]
fn sil_seed_programs_have_their_functions() {
    let names = |id| parsed(get(id)).functions.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
    assert_eq!(names("identity"), ["identity", "identity_opaque", "identity_Int"]);
    assert_eq!(names("witness-thunk"), ["foo", "_TTWV1t1SS_1PS_FS1_3foofwx1TwxS2_", "witness_opaque"]);
    // The thunk is all memory traffic and calls: DCE keeps every instruction.
    let r = dce::run_module(&parsed(get("witness-thunk")));
    assert!(r.results.iter().all(|r| r.stats.insts_removed == 0));
}

/// Blocks (of the graph after step 1) where `p` holds for `e`, as the article's node numbers
/// (the start node `s` as 0).
fn nodes(o: &lcm::LcmOutput, p: lcm::Pred, e: &str) -> Vec<u32> {
    let e = o.expr_by_text(e).unwrap();
    o.blocks()
        .iter()
        .filter(|&&b| o.preds.holds(p, b, e))
        .map(|&b| {
            let name = &o.split.blocks[b].name;
            if name == "s" {
                return 0;
            }
            name.strip_prefix('n').and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("block {name}"))
        })
        .collect()
}

#[test]
fn the_article_example_gives_the_articles_sets() {
    use lcm::Pred::*;
    let (out, outputs) = lcm_of(get("lcm-article"));
    let o = &outputs[0];
    let names: Vec<&str> = o.blocks().iter().map(|&b| o.split.blocks[b].name.as_str()).collect();
    let want: Vec<String> = std::iter::once("s".to_string()).chain((1..=13).map(|k| format!("n{k}"))).collect();
    assert_eq!(names, want, "no critical edge to split, nodes in the article's order");
    let e = "add a b";
    let sets = |p| nodes(o, p, e);
    assert_eq!(sets(NComp), [7, 11, 12]);
    assert_eq!(sets(XComp), [2]);
    let transp: Vec<u32> = (0..=13).filter(|n| ![2, 5].contains(n)).collect();
    assert_eq!(sets(Transp), transp, "the start node s is transparent too");
    assert_eq!(sets(NdSafe), [6, 7, 9, 10, 11, 12]);
    assert_eq!(sets(XdSafe), [2, 5, 6, 9, 10, 11]);
    assert_eq!(sets(NuSafe), [6, 8, 13]);
    assert_eq!(sets(XuSafe), [2, 6, 7, 8, 11, 12, 13]);
    assert_eq!(sets(NEarliest), [9]);
    assert_eq!(sets(XEarliest), [2, 5]);
    assert_eq!(sets(NDelayed), [9, 10, 11]);
    assert_eq!(sets(XDelayed), [2, 5, 9, 10]);
    assert_eq!(sets(NLatest), [11]);
    assert_eq!(sets(XLatest), [2, 5, 10]);
    // After: the invariant of the loop {6, 7} sits in 5, 10 computes for 12, 12's copy is gone.
    let body = printed(&out, "main");
    let block = |name: &str| body.split(&format!(".{name}:\n")).nth(1).unwrap().split("\n.").next().unwrap().to_string();
    assert!(block("n5").contains("add a b"), "{body}");
    assert!(block("n10").contains("add a b"), "{body}");
    assert!(!block("n7").contains("add a b"), "{body}");
    assert!(!block("n12").contains("add a b"), "{body}");
    assert!(block("n11").contains("add a b"), "{body}");
}

#[test]
fn the_loop_invariant_bound_moves_before_the_loop() {
    let (out, _) = lcm_of(get("loop-invariant"));
    let body = printed(&out, "main");
    let block = |name: &str| body.split(&format!(".{name}:\n")).nth(1).unwrap().split("\n.").next().unwrap().to_string();
    assert!(block("entry").contains("mul n k"), "{body}");
    assert!(!block("head").contains("mul n k"), "{body}");
}

#[test]
fn the_partial_redundancy_is_removed() {
    let (out, _) = lcm_of(get("partial"));
    let body = printed(&out, "main");
    let block = |name: &str| body.split(&format!(".{name}:\n")).nth(1).unwrap().split("\n.").next().unwrap().to_string();
    assert!(block("right").contains("add a b"), "{body}");
    assert!(!block("join").contains("add a b"), "{body}");
}

#[test]
fn several_functions_run_and_dce_cleans_gcd() {
    let ex = get("functions");
    let m = parsed(ex);
    assert_eq!(m.functions.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["main", "gcd", "multiples"]);
    let run = bril::run(&m, &RunConfig::with_args(bril::args_from_source(&ex.text())));
    // gcd(84, 36) = 12; the multiples of 12 below 84 are 0, 12, …, 72.
    assert_eq!(run.stdout, "12\n7\n");
    let r = dce::run_module(&m);
    assert!(!printed(&r.module, "gcd").contains("square"));
    assert!(printed(&r.module, "multiples").contains("div i k"));
}

#[test]
fn the_stress_example_is_the_generated_function() {
    let ex = get("stress-200");
    let text = ex.text();
    assert_eq!(text, ex.text(), "generated deterministically");
    let m = parsed(ex);
    let f = m.bodies().next().unwrap();
    assert!(f.layout.len() >= STRESS_BLOCKS, "{} blocks", f.layout.len());
    let mut generated = structured_function(STRESS_BLOCKS, STRESS_SEED);
    generated.name = "main".into();
    assert_eq!(print_function(f, Naming::User), print_function(&generated, Naming::User));
}

#[test]
fn every_example_fits_in_a_permalink() {
    use crate::permalink::{decode, encode, Snapshot};
    for ex in EXAMPLES {
        let lang = if ex.lang == Lang::Sil { "sil" } else { "bril" };
        let s = Snapshot::new(ex.text(), lang);
        let link = encode(&s).unwrap_or_else(|e| panic!("{}: {e}", ex.id));
        assert_eq!(decode(&link).unwrap(), s, "{}", ex.id);
    }
}

#[test]
fn an_example_opens_on_a_function_it_has_and_a_tab_that_exists() {
    use crate::state::{Action, State, Tab};
    for ex in EXAMPLES {
        if let Some(name) = ex.opens.function {
            assert!(parsed(ex).function(name).is_some_and(|f| !f.is_declaration()), "{}: no body @{name}", ex.id);
        }
        if let Some(tab) = ex.opens.tab {
            assert!(Tab::from_slug(tab).is_some(), "{}: no tab {tab}", ex.id);
        }
    }
    // The opaque-values examples land where AddressLowering and copy elimination have work.
    let s = State::default().apply(Action::LoadExample("identity".into()));
    assert_eq!((s.function.as_deref(), s.tab), (Some("identity_opaque"), Tab::pass("address-lowering")));
    assert_eq!(s.analysis.as_ref().unwrap().run("address-lowering").unwrap().problem(), None);
    // Loaded again from another of its functions (the same text): back on the opaque one.
    let again = s.apply(Action::SelectFunction("identity".into())).apply(Action::LoadExample("identity".into()));
    assert_eq!(again.function.as_deref(), Some("identity_opaque"));
    assert_eq!(again.analysis.as_ref().unwrap().function.name, "identity_opaque");
    let s = s.apply(Action::LoadExample("redundant-copy".into()));
    assert_eq!((s.function.as_deref(), s.tab), (Some("redundant_copy"), Tab::pass("copy-elim")));
    // An example without a tab of its own keeps the user's.
    let s = s.apply(Action::SelectTab(Tab::DOM)).apply(Action::LoadExample("loop".into()));
    assert_eq!((s.function.as_deref(), s.tab), (Some("main"), Tab::DOM));
}
