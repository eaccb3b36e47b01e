//! Available copies checked against their definition, not against another bit-vector
//! fixpoint: a copy `x ← y` is available at a point when *every* path from the entry to it
//! ends with an `x = id y` after which neither `x` nor `y` is assigned.
//!
//! The oracle explores paths. Per copy pair it searches the graph of states
//! `(block, available?)` from `(entry, false)`: a block's entry can be reached with the copy
//! available, without it, or both. The copy is available at a reachable block's entry exactly
//! when no path reaches it in the state "not available". The same states pushed through each
//! block's instructions give the answer before every instruction, compared with
//! `AvailCopies::walk`. Everything here works on names and layout positions, sharing no code
//! with the pass beyond the IR.

mod common;

use optlab_core::cfg::Cfg;
use optlab_core::ir::{BrilOp, Function, Op};
use optlab_core::passes::{copyprop, lcm};
use optlab_core::print::{print_function, Naming};
use optlab_core::testgen::{self, build_module, GenConfig};
use std::collections::{BTreeSet, VecDeque};

/// What an instruction does to the pair `(x, y)`: `Some(true)` makes it, `Some(false)` kills
/// it, `None` leaves it alone.
fn effect_on(f: &Function, i: optlab_core::InstId, x: &str, y: &str) -> Option<bool> {
    let inst = &f.insts[i];
    let dest = inst.results.first().map(|&d| f.value_name(d))?;
    if dest != x && dest != y {
        return None;
    }
    let makes = inst.op == Op::Bril(BrilOp::Id) && inst.args.len() == 1 && dest == x && f.value_name(inst.args[0]) == y;
    Some(makes)
}

/// Successor layout positions of each layout position (terminator targets, or fall-through).
fn successors(f: &Function) -> Vec<Vec<usize>> {
    let pos = |b| f.layout.iter().position(|&x| x == b).unwrap();
    f.layout
        .iter()
        .enumerate()
        .map(|(k, &b)| match f.blocks[b].term {
            Some(t) => f.insts[t].succs.iter().map(|s| pos(s.block)).collect(),
            None if k + 1 < f.layout.len() => vec![k + 1],
            None => vec![],
        })
        .collect()
}

/// For the pair `(x, y)`: per layout position, which availabilities reach the block's entry
/// (`[can be false, can be true]`; both false for an unreachable block).
fn explore(f: &Function, succ: &[Vec<usize>], x: &str, y: &str) -> Vec<[bool; 2]> {
    let n = f.layout.len();
    let mut seen = vec![[false; 2]; n];
    let mut queue = VecDeque::new();
    if n > 0 {
        seen[0][0] = true;
        queue.push_back((0usize, false));
    }
    while let Some((k, mut avail)) = queue.pop_front() {
        for i in f.blocks[f.layout[k]].all_insts() {
            if let Some(a) = effect_on(f, i, x, y) {
                avail = a;
            }
        }
        for &s in &succ[k] {
            if !seen[s][avail as usize] {
                seen[s][avail as usize] = true;
                queue.push_back((s, avail));
            }
        }
    }
    seen
}

/// Checks the pass's analysis of `f` against the oracle; a description on disagreement.
fn agrees(f: &Function) -> Result<usize, String> {
    let out = copyprop::run(f, &Cfg::new(f)).map_err(|e| e.to_string())?;
    let a = &out.avail;
    // The pairs, found independently.
    let mut pairs = BTreeSet::new();
    for &b in &f.layout {
        for i in f.blocks[b].all_insts() {
            let inst = &f.insts[i];
            if inst.op == Op::Bril(BrilOp::Id) && inst.results.len() == 1 && inst.args.len() == 1 {
                let (d, s) = (f.value_name(inst.results[0]), f.value_name(inst.args[0]));
                if d != s {
                    pairs.insert((d.to_string(), s.to_string()));
                }
            }
        }
    }
    let ids: BTreeSet<(String, String)> =
        a.table.values().map(|c| (f.value_name(c.dest).to_string(), f.value_name(c.src).to_string())).collect();
    if ids != pairs {
        return Err(format!("copy pairs {ids:?}, expected {pairs:?}"));
    }
    let succ = successors(f);
    let mut checked = 0;
    for (c, copy) in a.table.iter() {
        let (x, y) = (f.value_name(copy.dest), f.value_name(copy.src));
        let seen = explore(f, &succ, x, y);
        for (k, &b) in f.layout.iter().enumerate() {
            let reachable = seen[k][0] || seen[k][1];
            if !reachable {
                continue;
            }
            let want = !seen[k][0];
            let got = a.facts.ins[b].contains(c);
            if want != got {
                return Err(format!("`{x} = id {y}` at the start of .{}: analysis {got}, paths {want}", f.blocks[b].name));
            }
            // Before each instruction: the states of the entry pushed through the block.
            let mut states = seen[k];
            let mut before = Vec::new();
            for i in f.blocks[b].all_insts() {
                before.push(!states[0]);
                if let Some(v) = effect_on(f, i, x, y) {
                    states = [!v, v];
                }
            }
            let mut got = Vec::new();
            a.walk(f, b, |_, s| got.push(s.contains(c)));
            if got != before {
                return Err(format!("`{x} = id {y}` inside .{}: walk {got:?}, paths {before:?}", f.blocks[b].name));
            }
            checked += 1;
        }
    }
    Ok(checked)
}


#[test]
fn available_copies_match_the_paths_on_arbitrary_graphs() {
    let (mut checked, mut available_somewhere) = (0, 0);
    for seed in 0..3000u64 {
        let spec = common::copy_graph(seed, false);
        let (text, m) = build_module(&format!("cfg-{seed}.bril"), std::slice::from_ref(&spec));
        let f = &m.functions[0];
        match agrees(f) {
            Ok(n) => checked += n,
            Err(e) => panic!("seed {seed}: {e}\n{text}"),
        }
        let out = copyprop::run(f, &Cfg::new(f)).unwrap();
        available_somewhere += usize::from(f.layout.iter().skip(1).any(|&b| !out.avail.facts.ins[b].is_empty() && out.avail.reachable.contains(b)));
    }
    // The generator must exercise the interesting case, not only empty sets.
    assert!(checked > 5000, "only {checked} (copy, block) pairs checked");
    assert!(available_somewhere > 300, "a copy reached another block's entry in only {available_somewhere} graphs");
}

#[test]
fn available_copies_match_the_paths_on_generated_programs_and_their_lcm_output() {
    let mut checked = 0;
    for seed in 0..600u64 {
        let g = testgen::generate(seed, &GenConfig::default());
        let (after_lcm, _) = lcm::run_module(&g.module, &lcm::Options::default()).unwrap();
        for m in [&g.module, &after_lcm] {
            for f in &m.functions {
                match agrees(f) {
                    Ok(n) => checked += n,
                    Err(e) => panic!("seed {seed}, @{}: {e}\n{}", f.name, print_function(f, Naming::User)),
                }
            }
        }
    }
    assert!(checked > 2000, "only {checked} (copy, block) pairs checked");
}
