//! The deferred table (`lazy.rs`) against the table the pass used to make while it ran: the
//! whole analysis solved at once ([`AvailCopies::new`]) and the trace's lists and rounds
//! copied out of it, on generated Bril (before and after LCM), the scale generator's programs
//! (which LCM fills with copies available to the end of the function) and every Bril file of
//! the corpus.

use super::rewrite;
use super::*;
use crate::ir::{BlockId, Lang};

/// The trace's fixpoint and rounds as the pass made them before they were deferred.
fn materialised(a: &AvailCopies) -> (BlockLists, Vec<AvailRound>) {
    let list = |s: &FactSet<CopyId>| match s {
        FactSet::Listed(v) => v.clone(),
        FactSet::All(_) => Vec::new(),
    };
    let fixpoint = BlockLists { ins: a.facts.ins.values().map(list).collect(), outs: a.facts.outs.values().map(list).collect() };
    let changes = |cs: &[(BlockId, Vec<CopyId>)]| cs.iter().map(|(b, r)| SetChange { block: *b, removed: r.clone() }).collect();
    let rounds = a.facts.rounds.iter().map(|r| AvailRound { ins: changes(&r.ins), outs: changes(&r.outs) }).collect();
    (fixpoint, rounds)
}

fn functions() -> Vec<Function> {
    let mut fs: Vec<Function> = Vec::new();
    let lcm = |f: &Function| crate::passes::lcm::run_function(f, &crate::passes::lcm::Options::default()).ok().map(|o| (*o.result).clone());
    for seed in 0..120u64 {
        for f in crate::testgen::generate(seed, &crate::testgen::GenConfig::default()).module.bodies() {
            fs.push(f.clone());
            fs.extend(lcm(f));
        }
    }
    for (n, seed) in [(30, 1), (100, 2), (400, 3)] {
        let m = crate::parse_module(Lang::Bril, "t", &crate::testgen::scale::bril_program(n, seed)).expect("parses");
        for f in m.bodies() {
            fs.push(f.clone());
            fs.push(lcm(f).expect("LCM runs"));
        }
    }
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/bril");
    let mut paths: Vec<_> = crate::testgen::files_under(&dir).into_iter().filter(|p| p.extension().is_some_and(|x| x == "bril")).collect();
    paths.sort();
    for path in paths {
        if let Ok(m) = crate::parse_module(Lang::Bril, "b.bril", &std::fs::read_to_string(&path).unwrap_or_default()) {
            for f in m.bodies() {
                fs.push(f.clone());
                fs.extend(lcm(f));
            }
        }
    }
    fs
}

#[test]
fn the_deferred_table_equals_the_one_made_at_once() {
    let (mut ran, mut entries, mut left_out) = (0, 0, 0);
    for (k, f) in functions().iter().enumerate() {
        if verify(f).is_err() {
            continue;
        }
        let cfg = Cfg::new(f);
        let Ok(out) = run(f, &cfg) else { continue };
        ran += 1;
        let what = format!("function {k} (@{})", f.name);
        // The pass itself solves only what the rewrite reads.
        assert!(!out.avail.is_solved(), "{what}: the pass solved every copy");
        assert!(!out.trace.fixpoint.is_made() && !out.trace.rounds.is_made(), "{what}: the pass listed the table");
        // The rewrite on the part equals the rewrite on the whole table, event for event.
        let whole = AvailCopies::new(f, &cfg);
        let (part, _) = avail_read(f, &cfg);
        let mut g = f.clone();
        let want = rewrite::rewrite(f, &cfg, &whole, &mut g).expect("the rewrite applies");
        let mut h = f.clone();
        let got = rewrite::rewrite(f, &cfg, &part, &mut h).expect("the rewrite applies");
        assert_eq!(got, want, "{what}: rewrite events");
        assert_eq!(h, g, "{what}: rewritten function");
        let count = |a: &AvailCopies| a.facts.ins.values().chain(a.facts.outs.values()).map(|s| if let FactSet::Listed(v) = s { v.len() } else { 0 }).sum::<usize>();
        left_out += count(&whole) - count(&part);
        // Solved when read: the same sets, rounds and trace as made at once.
        let (fixpoint, rounds) = materialised(&whole);
        assert_eq!(*out.trace.fixpoint, fixpoint, "{what}: fixpoint");
        assert_eq!(*out.trace.rounds, rounds, "{what}: rounds");
        assert_eq!(out.avail.table, whole.table, "{what}: copy table");
        assert_eq!(out.avail.facts, whole.facts, "{what}: sets and rounds");
        entries += count(&whole);
        let back: Trace = serde_json::from_str(&trace_json(&out.trace)).expect("the trace reads back");
        assert_eq!(back, *out.trace, "{what}: JSON round trip");
        let eager = Trace { fixpoint: Deferred::ready(fixpoint), rounds: Deferred::ready(rounds), ..(*out.trace).clone() };
        assert_eq!(trace_json(&eager), trace_json(&out.trace), "{what}: JSON");
    }
    assert!(ran > 300 && entries > 10_000 && left_out > 1_000, "{ran} functions, {entries} entries, {left_out} left out of the pass");
}

/// A deferred value is made once, by its maker, on first read; a ready one never calls one.
#[test]
fn a_deferred_value_is_made_once() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let d: Deferred<Vec<u32>> = Deferred::new(move || {
        c.fetch_add(1, Ordering::SeqCst);
        vec![1, 2]
    });
    assert!(!d.is_made());
    let e = d.clone();
    assert_eq!(*d, vec![1, 2]);
    assert_eq!(d.len(), 2);
    assert!(d.is_made());
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    // A clone made before the first read makes its own, from the same maker.
    assert_eq!(e, Deferred::ready(vec![1, 2]));
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(serde_json::to_string(&d).unwrap(), "[1,2]");
}
