//! ADCE never panics and always leaves a well-formed function: every function of the whole
//! corpus (all Bril benchmarks and examples, the Swift test files) is optimized, verified
//! (structure, and SSA dominance for SIL), replayed from its trace, and its trace survives a
//! JSON round trip; malformed functions are returned unchanged.

use optlab_core::cfg::Cfg;
use optlab_core::dom::{verify_ssa, DomTree};
use optlab_core::ir::{Block, Function, Inst, InstId, Lang, Op, SilOp, Succ, ValueId};
use optlab_core::passes::dce;
use std::path::PathBuf;

mod common;

fn shared() -> Option<PathBuf> {
    common::shared_dir()
}

fn check_function(name: &str, f: &Function) {
    let r = dce::run(f);
    assert!(r.trace.skipped.is_none(), "{name}/{}: skipped: {:?}", f.name, r.trace.skipped);
    optlab_core::ir::verify(&r.function).unwrap_or_else(|e| panic!("{name}/{}: {e:?}", f.name));
    if f.lang == Lang::Sil && !f.is_declaration() {
        let cfg = Cfg::new(&r.function);
        let dt = DomTree::dominators(&r.function, &cfg);
        // Only if the input was in SSA form to begin with.
        let cfg0 = Cfg::new(f);
        if verify_ssa(f, &cfg0, &DomTree::dominators(f, &cfg0)).is_ok() {
            verify_ssa(&r.function, &cfg, &dt).unwrap_or_else(|e| panic!("{name}/{}: SSA broken: {e:?}", f.name));
        }
    }
    let replayed = dce::try_replay(f, &r.trace).unwrap_or_else(|e| panic!("{name}/{}: {e}", f.name));
    assert_eq!(replayed.without_spans(), r.function.without_spans(), "{name}/{}: replay differs", f.name);
    let back: dce::Trace = serde_json::from_str(&dce::trace_json(&r.trace)).expect("trace JSON");
    assert_eq!(back, r.trace);
    assert!(r.stats.insts_after <= r.stats.insts_before + r.stats.branches_rewritten + 64);
    // Running the pass again changes nothing more. (In OSSA a dead owned argument's
    // `destroy_value` is deleted and re-inserted at the top of its block, as Swift does, so
    // the check is on counts.)
    let again = dce::run(&r.function);
    assert!(
        again.stats.insts_after == again.stats.insts_before && again.stats.branches_rewritten == 0,
        "{name}/{}: a second run still changes the function:\n{}",
        f.name,
        dce::summarize(&r.function, &again.trace)
    );
    for (_, i) in f.placed_insts() {
        let _ = dce::explain(f, &r.trace, i);
    }
}

#[test]
fn every_corpus_function_is_optimized_verified_and_replayed() {
    let Some(shared) = shared() else { return };
    let files = common::corpus::files(&shared);
    assert!(files.len() > 50, "corpus looks incomplete: {} files", files.len());
    let mut functions = 0;
    for file in &files {
        let name = file.rel.clone();
        // Files our parsers reject are the parsers' business (every valid file the lab reads
        // parses: the corpus expectations say which); DCE needs a module.
        let Ok(m) = optlab_core::parse_module(file.lang, &name, &file.program_text()) else {
            assert!(!file.is_read_valid(), "{name}: a valid file does not parse");
            continue;
        };
        for f in &m.functions {
            check_function(&name, f);
            functions += 1;
        }
    }
    eprintln!("{functions} functions of {} files", files.len());
}

#[test]
fn malformed_functions_are_returned_unchanged() {
    let mut f = Function::new("bad", Lang::Sil);
    let b = f.add_block(Block::new("bb0"));
    // A use of a value that does not exist, and a branch to a block that does not exist.
    let mut ret = Inst::new(Op::Sil(SilOp::Return));
    ret.args.push(ValueId(99));
    let t = f.add_inst(ret);
    f.blocks[b].term = Some(t);
    let r = dce::run(&f);
    assert!(r.trace.skipped.is_some());
    assert_eq!(*r.function, f);

    let mut g = Function::new("bad2", Lang::Sil);
    let b = g.add_block(Block::new("bb0"));
    let mut br = Inst::new(Op::Sil(SilOp::Br));
    br.succs.push(Succ::to(optlab_core::ir::BlockId(7)));
    let t = g.add_inst(br);
    g.blocks[b].term = Some(t);
    g.layout.push(optlab_core::ir::BlockId(42));
    let r = dce::run(&g);
    assert!(r.trace.skipped.is_some());

    // Explaining an instruction that does not exist is an answer, not a panic.
    assert_eq!(dce::explain(&g, &r.trace, InstId(1000)).len(), 1);
    assert_eq!(dce::locate(&g, "nope:0"), None);
    assert_eq!(dce::locate(&g, "bb0:x"), None);
}

#[test]
fn an_empty_function_and_a_declaration_are_fine() {
    let f = Function::new("decl", Lang::Sil);
    let r = dce::run(&f);
    assert_eq!(*r.function, f);
    let g = Function::new("empty", Lang::Bril);
    let _ = dce::run(&g);
}

/// A forwarding chain `depth` deep, each level an aggregate using the level below twice
/// (tuples of structs of tuples … of an owned argument), as Swift's own tests build to guard
/// against exponential ownership inference. Its ownership is evaluated once per value: an
/// exponential inference would not finish at depth 40 (2^40 visits).
#[test]
fn dce_on_a_deep_owned_forwarding_chain_repairs_the_argument() {
    let depth = 40;
    let mut text = String::from("class Klass {}\n");
    let mut ty = "Klass".to_string();
    let mut body = String::new();
    for k in 1..=depth {
        let p = k - 1;
        if k % 2 == 1 {
            body.push_str(&format!("  %{k} = tuple (%{p} : ${ty}, %{p} : ${ty})\n"));
            ty = format!("({ty}, {ty})");
        } else {
            text.push_str(&format!("struct S{k} {{ var a: {ty}; var b: {ty} }}\n"));
            body.push_str(&format!("  %{k} = struct $S{k} (%{p} : ${ty}, %{p} : ${ty})\n"));
            ty = format!("S{k}");
        }
    }
    text.push_str("sil [ossa] @deep : $@convention(thin) (@owned Klass) -> () {\nbb0(%0 : @owned $Klass):\n");
    text.push_str(&body);
    text.push_str("  %r = tuple ()\n  return %r : $()\n}\n");
    let m = optlab_core::parse_module(Lang::Sil, "deep.sil", &text).unwrap_or_else(|d| panic!("{d:?}"));
    let r = dce::run_module(&m);
    let out = optlab_core::print::print_function(&r.module.functions[0], optlab_core::print::Naming::User);
    // The whole chain is dead; deleting its first link would leak %0, so a destroy takes its
    // place — which needs %0 known to be owned.
    assert!(!out.contains("tuple (%0"), "{out}");
    assert!(out.contains("destroy_value %0 : $Klass"), "{out}");
}
