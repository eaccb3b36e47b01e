//! Natural loops on random graphs (loops into the entry, unreachable blocks, fall-through and,
//! from some seeds, irreducible cycles) against their definitions:
//!
//! - back edges: `t → h` with `h` dominating `t`, dominance found by path search;
//! - a loop's body: `h` and every block that reaches one of its back edges' sources without
//!   passing `h`;
//! - nesting: a loop's parent is the smallest other loop whose body holds its header, and the
//!   parent's body holds the whole child; a block's depth is the number of bodies holding it;
//! - irreducibility: the forest reports an irreducible edge exactly when the reachable graph
//!   without its back edges still has a cycle.

mod common;

use optlab_core::cfg::Cfg;
use optlab_core::dom::{DomTree, LoopForest};
use optlab_core::entity::EntitySet;
use optlab_core::ir::{BlockId, Function};
use optlab_core::testgen::build_module;
use std::collections::{BTreeMap, BTreeSet};

fn reach_avoiding(f: &Function, cfg: &Cfg, from: BlockId, avoid: Option<BlockId>) -> EntitySet<BlockId> {
    let mut seen = EntitySet::<BlockId>::new_empty(f.blocks.len());
    let mut work = vec![from];
    while let Some(b) = work.pop() {
        if Some(b) == avoid || !seen.insert(b) {
            continue;
        }
        work.extend(cfg.succs(b).iter().copied());
    }
    seen
}

#[test]
fn loop_forests_match_their_definitions_on_random_graphs() {
    let (mut loops_seen, mut nested, mut irreducible) = (0, 0, 0);
    for seed in 0..3000u64 {
        let spec = common::copy_graph(seed, seed % 2 == 0);
        let (text, m) = build_module(&format!("cfg-{seed}.bril"), std::slice::from_ref(&spec));
        let f = &m.functions[0];
        let cfg = Cfg::new(f);
        let Some(entry) = cfg.entry() else { continue };
        let forest = LoopForest::new(f, &cfg, &DomTree::dominators(f, &cfg));
        let reachable = reach_avoiding(f, &cfg, entry, None);
        let dominates = |a: BlockId, b: BlockId| a == b || !reach_avoiding(f, &cfg, entry, Some(a)).contains(b);

        let mut latches: BTreeMap<BlockId, BTreeSet<BlockId>> = BTreeMap::new();
        for &t in cfg.blocks() {
            for &h in cfg.succs(t) {
                if reachable.contains(t) && dominates(h, t) {
                    latches.entry(h).or_default().insert(t);
                }
            }
        }
        let got: BTreeMap<BlockId, (BTreeSet<BlockId>, BTreeSet<BlockId>)> = forest
            .loops
            .iter()
            .map(|l| (l.header, (l.latches.iter().copied().collect(), l.body.iter().copied().collect())))
            .collect();
        assert_eq!(got.keys().collect::<Vec<_>>(), latches.keys().collect::<Vec<_>>(), "seed {seed}: headers\n{text}");
        for (h, ts) in &latches {
            // Backwards from the latches without passing h: b is in the body when some latch is
            // reachable from b along a path that avoids h.
            let body: BTreeSet<BlockId> = std::iter::once(*h)
                .chain(cfg.blocks().iter().copied().filter(|&b| {
                    reachable.contains(b) && b != *h && ts.iter().any(|&t| reach_avoiding(f, &cfg, b, Some(*h)).contains(t))
                }))
                .collect();
            assert_eq!(got[h].0, *ts, "seed {seed}: latches of {h}\n{text}");
            assert_eq!(got[h].1, body, "seed {seed}: body of {h}\n{text}");
        }
        for (k, l) in forest.loops.iter().enumerate() {
            let holding: Vec<usize> =
                (0..forest.loops.len()).filter(|&o| o != k && forest.loops[o].body.contains(&l.header)).collect();
            let smallest = holding.iter().copied().min_by_key(|&o| forest.loops[o].body.len());
            assert_eq!(l.parent, smallest, "seed {seed}: parent of loop {k}\n{text}");
            if let Some(p) = l.parent {
                nested += 1;
                assert!(l.body.iter().all(|b| forest.loops[p].body.contains(b)), "seed {seed}: a child outside its parent\n{text}");
            }
            loops_seen += 1;
        }
        for &b in cfg.blocks() {
            let inside = forest.loops.iter().filter(|l| l.body.contains(&b)).count() as u32;
            assert_eq!(forest.depth_of(b), inside, "seed {seed}: depth of {b}\n{text}");
        }
        // Without back edges, the reachable graph is acyclic exactly when it is reducible.
        let back: BTreeSet<(BlockId, BlockId)> = latches.iter().flat_map(|(h, ts)| ts.iter().map(move |t| (*t, *h))).collect();
        let mut state: BTreeMap<BlockId, u8> = BTreeMap::new();
        fn cyclic(b: BlockId, cfg: &Cfg, back: &BTreeSet<(BlockId, BlockId)>, state: &mut BTreeMap<BlockId, u8>) -> bool {
            state.insert(b, 1);
            for &s in cfg.succs(b) {
                if back.contains(&(b, s)) {
                    continue;
                }
                match state.get(&s) {
                    Some(1) => return true,
                    Some(_) => {}
                    None => {
                        if cyclic(s, cfg, back, state) {
                            return true;
                        }
                    }
                }
            }
            state.insert(b, 2);
            false
        }
        let has_cycle = cyclic(entry, &cfg, &back, &mut state);
        assert_eq!(!forest.irreducible.is_empty(), has_cycle, "seed {seed}: irreducible edges {:?}\n{text}", forest.irreducible);
        irreducible += usize::from(has_cycle);
    }
    eprintln!("{loops_seen} loops, {nested} nested, {irreducible} irreducible graphs");
    assert!(loops_seen > 1000 && nested > 50 && irreducible > 20, "{loops_seen} loops, {nested} nested, {irreducible} irreducible");
}
