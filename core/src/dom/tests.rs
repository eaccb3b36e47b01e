//! Unit tests on the article's and Swift's small CFGs; the random-graph properties live in
//! `tests/dom_props.rs`.

use super::*;
use crate::ir::{Block, Inst, Lang, Op, SilOp, Succ, ValueDef};

/// A SIL function whose block `i` branches to `succs[i]`: no successor → `return`, one →
/// `br`, more → `cond_br` on an `undef` condition.
fn sil(succs: &[&[u32]]) -> Function {
    let mut f = Function::new("t", Lang::Sil);
    let ids: Vec<BlockId> = (0..succs.len()).map(|i| f.add_block(Block::new(format!("bb{i}")))).collect();
    for (i, ss) in succs.iter().enumerate() {
        let mut inst = Inst::new(Op::Sil(match ss.len() {
            0 => SilOp::Return,
            1 => SilOp::Br,
            _ => SilOp::CondBr,
        }));
        if ss.len() > 1 {
            let c = f.add_undef(None);
            inst.args.push(c);
        }
        inst.succs = ss.iter().map(|&s| Succ::to(BlockId(s))).collect();
        let t = f.add_inst(inst);
        f.blocks[ids[i]].term = Some(t);
    }
    f
}

struct All {
    cfg: Cfg,
    dt: DomTree,
    pdt: DomTree,
    cd: ControlDeps,
}

fn analyse(f: &Function) -> All {
    let cfg = Cfg::new(f);
    let dt = DomTree::dominators(f, &cfg);
    let pdt = DomTree::post_dominators(f, &cfg);
    let cd = ControlDeps::new(f, &cfg, &pdt);
    All { cfg, dt, pdt, cd }
}

const fn bb(i: u32) -> BlockId {
    BlockId(i)
}
const X: DomNode = DomNode::VirtualExit;
fn n(i: u32) -> DomNode {
    DomNode::Block(BlockId(i))
}

#[test]
fn hogehoge_loop_from_the_article() {
    // bb0 → bb1; bb1 → bb2 | bb3; bb2 → bb1; bb3: return
    let f = sil(&[&[1], &[2, 3], &[1], &[]]);
    let a = analyse(&f);
    assert_eq!(a.dt.root(), Some(n(0)));
    assert_eq!([0, 1, 2, 3].map(|i| a.dt.idom(bb(i))), [None, Some(bb(0)), Some(bb(1)), Some(bb(1))]);
    assert_eq!(a.dt.children(n(1)), &[bb(2), bb(3)]);
    assert!(a.dt.dominates(bb(1), bb(3)) && !a.dt.dominates(bb(2), bb(3)));

    assert_eq!(a.pdt.root(), Some(X));
    assert_eq!([0, 1, 2, 3].map(|i| a.pdt.parent(bb(i))), [Some(n(1)), Some(n(3)), Some(n(1)), Some(X)]);
    assert_eq!(a.pdt.idom(bb(3)), None, "a child of the virtual exit has no block idom");
    assert_eq!(a.pdt.children(X), &[bb(3)]);
    assert_eq!(a.pdt.depth(bb(0)), Some(3));
    assert_eq!(a.pdt.virtual_exit_edges(), &[VirtualEdge { block: bb(3), kind: ExitKind::Exit }]);

    assert_eq!(a.cd.deps(bb(0)), &[] as &[BlockId]);
    assert_eq!(a.cd.deps(bb(1)), &[bb(1)], "the loop header depends on the loop's own branch");
    assert_eq!(a.cd.deps(bb(2)), &[bb(1)]);
    assert_eq!(a.cd.deps(bb(3)), &[] as &[BlockId]);
    assert_eq!(a.cd.dependents(bb(1)), &[bb(1), bb(2)]);
}

#[test]
fn control_dependent_diamond_from_the_article() {
    // bb0: cond_br → bb1 | bb2; both → bb3: return
    let f = sil(&[&[1, 2], &[3], &[3], &[]]);
    let a = analyse(&f);
    assert_eq!(a.cd.deps(bb(1)), &[bb(0)]);
    assert_eq!(a.cd.deps(bb(2)), &[bb(0)]);
    assert!(a.cd.deps(bb(0)).is_empty() && a.cd.deps(bb(3)).is_empty());
    assert_eq!(a.cd.edges().collect::<Vec<_>>(), vec![(bb(0), bb(1)), (bb(0), bb(2))]);
    assert_eq!(a.dt.children(n(0)), &[bb(1), bb(2), bb(3)]);
    assert_eq!(a.pdt.idom(bb(0)), Some(bb(3)));
    let df = frontier(&a.cfg, &a.dt);
    assert_eq!(df[bb(1)], vec![bb(3)]);
    assert_eq!(df[bb(2)], vec![bb(3)]);
    assert!(df[bb(0)].is_empty() && df[bb(3)].is_empty());
    assert_eq!(a.pdt.nearest_common_dominator(bb(1), bb(2)), Some(n(3)));
    assert_eq!(a.dt.nearest_common_dominator(bb(1), bb(2)), Some(n(0)));
}

#[test]
fn simple_infinite_loop_is_joined_at_its_block() {
    // bb0 → bb1; bb1 → bb1 (no exit)
    let f = sil(&[&[1], &[1]]);
    let a = analyse(&f);
    assert_eq!(a.pdt.virtual_exit_edges(), &[VirtualEdge { block: bb(1), kind: ExitKind::NoExitPath }]);
    assert_eq!(a.pdt.parent(bb(1)), Some(X));
    assert_eq!(a.pdt.idom(bb(0)), Some(bb(1)));
    assert_eq!(a.cd.deps(bb(1)), &[bb(1)]);
    assert!(a.cd.deps(bb(0)).is_empty());
}

#[test]
fn deal_with_infinite_loop_joins_the_block_visited_last() {
    // bb0 → bb1; bb1 → bb2 | bb3; bb2 → bb1; bb3 → bb1 (no exit). The forward DFS from bb0
    // visits bb0, bb1, bb2, bb3: bb3 is joined to the virtual exit.
    let f = sil(&[&[1], &[2, 3], &[1], &[1]]);
    let a = analyse(&f);
    assert_eq!(a.pdt.virtual_exit_edges(), &[VirtualEdge { block: bb(3), kind: ExitKind::NoExitPath }]);
    assert_eq!([0, 1, 2, 3].map(|i| a.pdt.parent(bb(i))), [Some(n(1)), Some(n(3)), Some(n(1)), Some(X)]);
    assert_eq!(a.cd.deps(bb(0)), &[] as &[BlockId]);
    assert_eq!(a.cd.deps(bb(1)), &[bb(1), bb(3)]);
    assert_eq!(a.cd.deps(bb(2)), &[bb(1)]);
    assert_eq!(a.cd.deps(bb(3)), &[bb(3)]);
    // The forward tree is unaffected by the missing exit.
    assert_eq!([1, 2, 3].map(|i| a.dt.idom(bb(i))), [Some(bb(0)), Some(bb(1)), Some(bb(1))]);
}

#[test]
fn a_candidate_that_leads_into_another_loop_is_dropped() {
    // bb0 → bb1 | bb2; bb1 → bb1; bb2 → bb1. The DFS from bb0 visits bb0, bb1, bb2: bb2 is
    // the first candidate; bb1 is not marked by it and becomes the second; bb2 reaches bb1,
    // so only bb1 stays joined to the virtual exit.
    let f = sil(&[&[1, 2], &[1], &[1]]);
    let a = analyse(&f);
    assert_eq!(a.pdt.virtual_exit_edges(), &[VirtualEdge { block: bb(1), kind: ExitKind::NoExitPath }]);
    assert_eq!([0, 1, 2].map(|i| a.pdt.parent(bb(i))), [Some(n(1)), Some(X), Some(n(1))]);
}

#[test]
fn exits_and_unreachable_blocks() {
    // bb0 → bb1 | bb2; bb1: return; bb2: return; bb3 → bb2 is unreachable.
    let f = sil(&[&[1, 2], &[], &[], &[2]]);
    let a = analyse(&f);
    assert!(!a.dt.contains(bb(3)) && a.dt.idom(bb(3)).is_none() && a.dt.parent(bb(3)).is_none());
    assert!(!a.dt.dominates(bb(0), bb(3)));
    assert!(a.pdt.contains(bb(3)), "post-dominator trees hold every placed block");
    assert_eq!(a.pdt.idom(bb(3)), Some(bb(2)));
    assert_eq!(a.pdt.children(X), &[bb(0), bb(1), bb(2)], "two exits: bb0 is post-dominated only by the virtual exit");
    assert_eq!(a.cd.deps(bb(1)), &[bb(0)]);
    assert_eq!(a.cd.deps(bb(2)), &[bb(0)], "unreachable bb3 post-dominated by bb2 adds nothing");
    assert!(frontier(&a.cfg, &a.dt)[bb(3)].is_empty());
}

#[test]
fn an_entry_that_is_its_own_predecessor_is_in_its_own_frontier() {
    let f = sil(&[&[0, 1], &[]]);
    let a = analyse(&f);
    let df = frontier(&a.cfg, &a.dt);
    assert_eq!(df[bb(0)], vec![bb(0)]);
    assert!(df[bb(1)].is_empty());
}

#[test]
fn duplicate_edges_are_harmless() {
    let f = sil(&[&[1, 1], &[2, 2], &[]]);
    let a = analyse(&f);
    assert_eq!(a.cfg.preds(bb(1)), &[bb(0), bb(0)]);
    assert_eq!(a.dt.idom(bb(2)), Some(bb(1)));
    assert!(a.cd.edges().next().is_none(), "a branch with both edges to one block decides nothing");
}

#[test]
fn empty_function_gives_empty_trees() {
    let f = Function::new("decl", Lang::Sil);
    let a = analyse(&f);
    assert_eq!(a.dt.root(), None);
    assert_eq!(a.pdt.root(), None);
    assert!(a.pdt.children(X).is_empty());
    let (_, ev) = DomTree::build_traced(&f, &a.cfg, DomKind::Dominators);
    assert!(ev.is_empty());
}

#[test]
fn trace_round_trips_through_json_and_replays_to_the_tree() {
    let f = sil(&[&[1], &[2, 3], &[1], &[4, 5], &[3], &[]]);
    let cfg = Cfg::new(&f);
    for kind in [DomKind::Dominators, DomKind::PostDominators] {
        let (t, ev) = DomTree::build_traced(&f, &cfg, kind);
        let json = serde_json::to_string(&ev).unwrap();
        let back: Vec<DomEvent> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ev);
        let replay = trace::replay_idoms(&ev);
        let expect: Vec<(DomNode, DomNode)> =
            t.dfs_order().iter().skip(1).map(|&v| (v, t.parent_of(v).unwrap())).collect();
        assert_eq!(replay, expect, "{kind:?}");
        let finals: Vec<(DomNode, DomNode)> = ev
            .iter()
            .filter_map(|e| match *e {
                DomEvent::Idom { node, idom } => Some((node, idom)),
                _ => None,
            })
            .collect();
        assert_eq!(finals, expect);
        if kind == DomKind::PostDominators {
            assert!(json.contains(r#"{"e":"virtual_edge","block":5,"kind":"exit"}"#), "{json}");
            assert!(json.contains(r#""parent":"exit""#), "{json}");
        }
    }
    assert_eq!(serde_json::to_string(&DomNode::VirtualExit).unwrap(), r#""exit""#);
    assert!(serde_json::from_str::<DomNode>(r#""nope""#).is_err());
}

#[test]
fn semidominators_are_recorded_and_can_differ_from_idoms() {
    // bb0 → bb1 | bb2; bb1 → bb2 | bb3; bb2 → bb3; bb3: return. DFS numbers bb0..bb3 in
    // order; sdom(bb3) = bb1 (via the edge bb1 → bb3), but bb0 → bb2 → bb3 avoids bb1, so
    // idom(bb3) = bb0, found by deferring to idom(bb2).
    let f = sil(&[&[1, 2], &[2, 3], &[3], &[]]);
    let cfg = Cfg::new(&f);
    let (dt, ev) = DomTree::build_traced(&f, &cfg, DomKind::Dominators);
    assert_eq!(dt.dfs_order(), &[n(0), n(1), n(2), n(3)]);
    assert_eq!(dt.semidominator(bb(3)), Some(n(1)));
    assert_eq!(dt.idom(bb(3)), Some(bb(0)));
    assert_eq!(dt.semidominator(bb(2)), Some(n(0)));
    assert_eq!(dt.idom(bb(2)), Some(bb(0)));
    assert_eq!(dt.semidominator(bb(0)), None);
    assert!(ev.contains(&DomEvent::IdomDeferred { node: n(3), same_as: n(2) }), "{ev:?}");
    assert!(ev.contains(&DomEvent::Semi { node: n(3), sdom: n(1), pred: n(1), from: n(1) }), "{ev:?}");
}

#[test]
fn verify_ssa_checks_that_definitions_dominate_uses() {
    // bb0: cond_br → bb1 | bb2; bb1: %v = integer_literal; br bb3; bb2: br bb3; bb3: return %v
    let mut f = sil(&[&[1, 2], &[3], &[3], &[]]);
    let v = f.add_value("v", None, ValueDef::Undef);
    let mut lit = Inst::new(Op::Sil(SilOp::IntegerLiteral));
    lit.results.push(v);
    let lit = f.add_inst(lit);
    f.blocks[bb(1)].insts.push(lit);
    let ret = f.blocks[bb(3)].term.unwrap();
    f.insts[ret].args.push(v);
    let cfg = Cfg::new(&f);
    let dt = DomTree::dominators(&f, &cfg);
    let errs = verify_ssa(&f, &cfg, &dt).unwrap_err();
    assert_eq!(errs.0.len(), 1);
    assert!(errs.0[0].message.contains("`%v` is used in `bb3`"), "{}", errs.0[0].message);

    // Passing it along the edge from bb1 as a block argument is fine: the use is in bb1.
    f.insts[ret].args.clear();
    let p = f.add_value("p", None, ValueDef::Param { block: bb(3), index: 0 });
    f.blocks[bb(3)].params.push(p);
    f.insts[ret].args.push(p);
    let br1 = f.blocks[bb(1)].term.unwrap();
    f.insts[br1].succs[0].args.push(v);
    let br2 = f.blocks[bb(2)].term.unwrap();
    let u = f.add_undef(None);
    f.insts[br2].succs[0].args.push(u);
    crate::ir::verify(&f).unwrap();
    verify_ssa(&f, &cfg, &dt).unwrap();

    // A use before the definition in the same block is reported.
    let mut use_first = Inst::new(Op::Sil(SilOp::DebugValue));
    use_first.args.push(v);
    let use_first = f.add_inst(use_first);
    f.blocks[bb(1)].insts.insert(0, use_first);
    assert!(verify_ssa(&f, &cfg, &dt).is_err());
}

#[test]
fn bril_fall_through_and_fresh_entry() {
    // while.bril's shape: the first block is a loop header.
    let f = crate::cfg::tests::bril(&[("while.cond", "br while.finish while.body"), ("while.body", "jmp while.cond"), ("while.finish", "")]);
    let g = crate::cfg::with_fresh_entry(&f);
    let cfg = Cfg::new(&g);
    let dt = DomTree::dominators(&g, &cfg);
    let entry = g.entry().unwrap();
    assert_eq!(g.blocks[entry].name, "entry1");
    assert_eq!(dt.root(), Some(DomNode::Block(entry)));
    assert_eq!(dt.children(DomNode::Block(entry)), &[bb(0)]);
    assert_eq!(dt.children(n(0)), &[bb(1), bb(2)]);
    let df = frontier(&cfg, &dt);
    assert_eq!(df[bb(1)], vec![bb(0)]);
    assert_eq!(df[bb(0)], vec![bb(0)]);
    let pdt = DomTree::post_dominators(&g, &cfg);
    assert_eq!(pdt.virtual_exit_edges(), &[VirtualEdge { block: bb(2), kind: ExitKind::Exit }]);
    assert_eq!(pdt.idom(entry), Some(bb(0)));
}

#[test]
fn deciding_edges_name_the_successors_that_commit_to_the_dependent() {
    // bb0 → bb1 | bb3; bb1 → bb2; bb2 → bb3 | bb1 (a loop); bb3: return
    let f = sil(&[&[1, 3], &[2], &[3, 1], &[]]);
    let a = analyse(&f);
    assert_eq!(a.cd.deps(bb(2)), &[bb(0), bb(2)]);
    // bb2 post-dominates bb1, so bb0's edge to bb1 (its first, "true" side) decides.
    assert_eq!(a.cd.deciding_edges(bb(0), bb(2)), &[bb(1)]);
    assert_eq!(a.cd.deciding_edges(bb(0), bb(1)), &[bb(1)], "the edge to y itself counts");
    // The loop's own branch decides whether bb1 and bb2 run again, through its back edge.
    assert_eq!(a.cd.deciding_edges(bb(2), bb(2)), &[bb(1)]);
    assert!(a.cd.deciding_edges(bb(0), bb(3)).is_empty(), "bb3 depends on nothing");
    assert!(a.cd.deciding_edges(bb(9), bb(0)).is_empty(), "unknown block");
    // Against the definition, for every dependence.
    for (x, y) in a.cd.edges() {
        let want: Vec<BlockId> = a.cfg.succs(x).iter().copied().filter(|&s| s == y || a.pdt.dominates(y, s)).collect();
        assert!(!want.is_empty(), "{x} → {y}");
        assert_eq!(a.cd.deciding_edges(x, y), want.as_slice(), "{x} → {y}");
    }
}

#[test]
fn frontiers_hold_both_relations_and_feed_control_dependence() {
    // The diamond: DF(bb1) = DF(bb2) = {bb3}; PDF(bb1) = PDF(bb2) = {bb0}.
    let f = sil(&[&[1, 2], &[3], &[3], &[]]);
    let a = analyse(&f);
    let fr = Frontiers::new(&a.cfg, &a.dt, &a.pdt);
    assert_eq!(fr.of(DomKind::Dominators), &frontier(&a.cfg, &a.dt));
    assert_eq!(fr.of(DomKind::PostDominators), &frontier(&a.cfg, &a.pdt));
    assert_eq!(fr.get(DomKind::Dominators, bb(1)), &[bb(3)]);
    assert_eq!(fr.get(DomKind::PostDominators, bb(2)), &[bb(0)]);
    assert!(fr.get(DomKind::Dominators, bb(9)).is_empty());
    let cd = ControlDeps::from_frontiers(&a.cfg, &a.pdt, &fr);
    assert_eq!(cd.edges().collect::<Vec<_>>(), a.cd.edges().collect::<Vec<_>>());
    for &b in a.cfg.blocks() {
        assert_eq!(cd.deps(b), fr.get(DomKind::PostDominators, b), "CDG = PDF");
    }
}
