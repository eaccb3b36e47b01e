//! Dominance, post-dominance, frontiers, control dependence and the Lengauer–Tarjan trace,
//! checked on random CFGs against their *definitions* (plain reachability with one block
//! removed), never against another dominator algorithm.
//!
//! The graphs are real IR functions (Bril: `jmp`/`br`/`ret` and fall-through, sizes 1–40)
//! so the whole path `Function → Cfg → DomTree → frontier/ControlDeps` is exercised. The mix
//! covers irreducible graphs, self loops, several exits, regions with no exit at all, blocks
//! unreachable from the entry, duplicate edges, blocks deleted from the layout and layouts
//! that are not in id order. Bit masks (`u64`, up to 63 blocks) keep the oracles cheap.

mod common;

use optlab_core::cfg::Cfg;
use optlab_core::dom::{self, trace::replay_idoms, ControlDeps, DomEvent, DomKind, DomNode, DomTree, ExitKind};
use optlab_core::entity::EntityRef;
use optlab_core::ir::{Block, BlockId, BrilOp, Function, Inst, Lang, Op, Succ, Type, ValueDef};

/// Number of random CFGs checked (each in both directions).
const CASES: u64 = 12_000;

/// SplitMix64: tiny, seedable, good enough to pick graph shapes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Targets anywhere: irreducible loops galore.
    Uniform,
    /// Mostly forward edges: deep trees, few loops.
    Forward,
    /// No `ret` and no falling off the end: every block is in or leads to an infinite loop.
    NoExit,
    /// Many `ret`s.
    ManyExits,
    /// Branches that often name one target twice.
    Duplicates,
    /// Each block leads to the next in layout (plus random edges), so most blocks are
    /// reachable; the other shapes leave many blocks unreachable.
    Chain,
    /// A long `if … else if …` chain whose arms all jump to one join: a deep dominator tree
    /// and a join with a predecessor per arm, where the frontier walks of the arms overlap
    /// (the shape that made the walk quadratic).
    ElseIfChain,
}

fn bril_inst(op: BrilOp) -> Inst {
    Inst::new(Op::Bril(op))
}

/// A random Bril function. Returns it with a description for failure messages.
fn random_function(rng: &mut Rng) -> (Function, String) {
    let n = if rng.chance(70) { 1 + rng.below(12) } else { 13 + rng.below(28) };
    let shape = match rng.below(9) {
        0 => Shape::Uniform,
        1 => Shape::Forward,
        2 => Shape::NoExit,
        3 => Shape::ManyExits,
        4 => Shape::Duplicates,
        5 => Shape::ElseIfChain,
        _ => Shape::Chain,
    };
    let mut f = Function::new("r", Lang::Bril);
    let c = f.add_value("c", Some(Type::Bool), ValueDef::Var);
    if let Shape::ElseIfChain = shape {
        else_if_chain(rng, &mut f, c);
        let desc = describe(&f, shape);
        return (f, desc);
    }
    for i in 0..n {
        f.add_block(Block::new(format!("b{i}")));
    }
    if n > 1 && rng.chance(15) {
        // A layout that is not in id order.
        for i in (1..n).rev() {
            let j = rng.below(i + 1);
            f.layout.swap(i, j);
        }
    }
    let (p_ret, p_fall, p_dup) = match shape {
        Shape::Uniform => (10, 10, 5),
        Shape::Forward => (8, 15, 5),
        Shape::NoExit => (0, 10, 5),
        Shape::ManyExits => (35, 10, 5),
        Shape::Duplicates => (10, 5, 50),
        Shape::Chain | Shape::ElseIfChain => (4, 15, 5),
    };
    let layout = f.layout.clone();
    for (k, &b) in layout.iter().enumerate() {
        let last = k + 1 == n;
        let pick = |rng: &mut Rng| -> BlockId {
            if matches!(shape, Shape::Forward) && !last && rng.chance(80) {
                layout[k + 1 + rng.below(n - k - 1)]
            } else {
                layout[rng.below(n)]
            }
        };
        let roll = rng.below(100) as u64;
        let inst = if roll < p_ret {
            bril_inst(BrilOp::Ret)
        } else if roll < p_ret + p_fall && !(last && matches!(shape, Shape::NoExit)) {
            continue; // no terminator: fall through (or fall off the end, an exit)
        } else if rng.chance(40) {
            let mut j = bril_inst(BrilOp::Jmp);
            let chain = matches!(shape, Shape::Chain) && !last && rng.chance(70);
            j.succs.push(Succ::to(if chain { layout[k + 1] } else { pick(rng) }));
            j
        } else {
            let mut br = bril_inst(BrilOp::Br);
            br.args.push(c);
            let t = pick(rng);
            let e = if rng.chance(p_dup) { t } else { pick(rng) };
            br.succs = vec![Succ::to(t), Succ::to(e)];
            if matches!(shape, Shape::Chain) && !last {
                let slot = rng.below(2);
                br.succs[slot] = Succ::to(layout[k + 1]);
            }
            br
        };
        let i = f.add_inst(inst);
        f.blocks[b].term = Some(i);
    }
    if rng.chance(10) {
        // Blocks deleted from the layout (still in the arena, with edges the CFG must ignore).
        for _ in 0..1 + rng.below(3) {
            let d = f.blocks.push(Block::new("deleted"));
            let mut j = bril_inst(BrilOp::Jmp);
            j.succs.push(Succ::to(layout[rng.below(n)]));
            let i = f.add_inst(j);
            f.blocks[d].term = Some(i);
        }
    }
    let desc = describe(&f, shape);
    (f, desc)
}

/// `c0: br c .a0 .c1; a0: jmp .join; c1: br c .a1 .c2; …; join:` with, now and then, an arm
/// that branches on to the next test too, a join that loops back to a test, and a join that
/// never exits.
fn else_if_chain(rng: &mut Rng, f: &mut Function, c: optlab_core::ValueId) {
    let k = 1 + rng.below(19);
    let tests: Vec<BlockId> = (0..k).map(|i| f.add_block(Block::new(format!("c{i}")))).collect();
    let arms: Vec<BlockId> = (0..k).map(|i| f.add_block(Block::new(format!("a{i}")))).collect();
    let join = f.add_block(Block::new("join"));
    f.layout = tests.iter().zip(&arms).flat_map(|(&t, &a)| [t, a]).chain([join]).collect();
    let br = |f: &mut Function, b: BlockId, t: BlockId, e: BlockId| {
        let mut i = bril_inst(BrilOp::Br);
        i.args.push(c);
        i.succs = vec![Succ::to(t), Succ::to(e)];
        let i = f.add_inst(i);
        f.blocks[b].term = Some(i);
    };
    for i in 0..k {
        let next = if i + 1 < k { tests[i + 1] } else { join };
        br(f, tests[i], arms[i], next);
        if i + 1 < k && rng.chance(20) {
            br(f, arms[i], join, tests[i + 1]);
        } else {
            let mut j = bril_inst(BrilOp::Jmp);
            j.succs.push(Succ::to(join));
            let j = f.add_inst(j);
            f.blocks[arms[i]].term = Some(j);
        }
    }
    let back = tests[rng.below(k)];
    let end = match rng.below(3) {
        0 => {
            let mut j = bril_inst(BrilOp::Jmp);
            j.succs.push(Succ::to(back));
            j
        }
        1 => {
            let mut b = bril_inst(BrilOp::Br);
            b.args.push(c);
            b.succs = vec![Succ::to(back), Succ::to(join)];
            b
        }
        _ => bril_inst(BrilOp::Ret),
    };
    let end = f.add_inst(end);
    f.blocks[join].term = Some(end);
}

fn describe(f: &Function, shape: Shape) -> String {
    let mut s = format!("{shape:?}, layout {:?}:", f.layout);
    for &b in &f.layout {
        let t = if f.is_exit_block(b) { " (exit)" } else { "" };
        s += &format!(" {b}→{:?}{t};", f.successors(b));
    }
    s
}

/// The oracle's view of a function: successor lists straight from `Function::successors`
/// and `Function::is_exit_block`, indexed by arena index, masks over arena indices.
struct Oracle {
    layout: Vec<usize>,
    succ: Vec<Vec<usize>>,
    pred: Vec<Vec<usize>>,
    exits: u64,
}

fn bit(i: usize) -> u64 {
    1u64 << i
}

impl Oracle {
    fn new(f: &Function) -> Oracle {
        let n = f.blocks.len();
        assert!(n < 63);
        let layout: Vec<usize> = f.layout.iter().map(|b| b.index()).collect();
        let mut succ = vec![Vec::new(); n];
        let mut pred = vec![Vec::new(); n];
        let mut exits = 0;
        for &b in &f.layout {
            for s in f.successors(b) {
                succ[b.index()].push(s.index());
                pred[s.index()].push(b.index());
            }
            if f.is_exit_block(b) {
                exits |= bit(b.index());
            }
        }
        Oracle { layout, succ, pred, exits }
    }

    /// Nodes reachable from `from` along `edges`, never entering `avoid`.
    fn reach(edges: &[Vec<usize>], from: u64, avoid: u64) -> u64 {
        let mut seen = from & !avoid;
        let mut stack: Vec<usize> = (0..64).filter(|&i| seen & bit(i) != 0).collect();
        while let Some(v) = stack.pop() {
            for &w in &edges[v] {
                if seen & bit(w) == 0 && avoid & bit(w) == 0 {
                    seen |= bit(w);
                    stack.push(w);
                }
            }
        }
        seen
    }

    fn pos(&self, b: usize) -> usize {
        self.layout.iter().position(|&x| x == b).unwrap()
    }

    fn sorted(&self, mut v: Vec<usize>) -> Vec<BlockId> {
        v.sort_by_key(|&b| self.pos(b));
        v.dedup();
        v.into_iter().map(|b| BlockId(b as u32)).collect()
    }
}

/// A relation "a (post-)dominates b" over arena indices `0..=n` (`n` = virtual exit).
struct Rel {
    dom: Vec<u64>,
}

impl Rel {
    fn has(&self, a: usize, b: usize) -> bool {
        self.dom[a] & bit(b) != 0
    }
    /// The nearest strict dominator: among strict dominators, the one dominated by all
    /// others (the one with the most dominators of its own).
    fn idom(&self, b: usize, all: u64) -> Option<usize> {
        (0..64)
            .filter(|&a| all & bit(a) != 0 && a != b && self.has(a, b))
            .max_by_key(|&a| (0..64).filter(|&x| all & bit(x) != 0 && self.has(x, a)).count())
    }
    fn count_doms(&self, b: usize, all: u64) -> usize {
        (0..64).filter(|&x| all & bit(x) != 0 && self.has(x, b)).count()
    }
}

/// The infinite-loop rule, re-implemented from its specification (see `dom::exit`):
/// returns the blocks joined to the virtual exit besides the exits, in order.
fn rule_roots(o: &Oracle) -> Vec<usize> {
    let mut marked = Oracle::reach(&o.pred, o.exits, 0);
    let mut cands = Vec::new();
    for &i in &o.layout {
        if marked & bit(i) != 0 {
            continue;
        }
        fn dfs(o: &Oracle, v: usize, marked: u64, seen: &mut u64, order: &mut Vec<usize>) {
            *seen |= bit(v);
            order.push(v);
            for &w in &o.succ[v] {
                if marked & bit(w) == 0 && *seen & bit(w) == 0 {
                    dfs(o, w, marked, seen, order);
                }
            }
        }
        let mut order = Vec::new();
        dfs(o, i, marked, &mut 0, &mut order);
        let last = *order.last().unwrap();
        cands.push(last);
        marked |= Oracle::reach(&o.pred, bit(last), 0);
    }
    let all_cands: u64 = cands.iter().map(|&c| bit(c)).sum();
    cands
        .iter()
        .copied()
        .filter(|&c| Oracle::reach(&o.succ, bit(c), 0) & all_cands & !bit(c) == 0)
        .collect()
}

fn node(i: usize, n: usize) -> DomNode {
    if i == n {
        DomNode::VirtualExit
    } else {
        DomNode::Block(BlockId(i as u32))
    }
}

fn ix(v: DomNode, n: usize) -> usize {
    match v {
        DomNode::Block(b) => b.index(),
        DomNode::VirtualExit => n,
    }
}

/// Checks a trace against the tree and against the definition of the semidominator:
/// `sdom(w)` is the lowest-numbered `v` with a path `v → … → w` whose inner nodes are all
/// numbered above `w` (Lengauer & Tarjan's definition, not their theorem).
fn check_trace(t: &DomTree, ev: &[DomEvent], preds: &[Vec<usize>], n: usize, ctx: &str) {
    let mut num = vec![u32::MAX; n + 1];
    let mut order = Vec::new();
    for e in ev {
        if let DomEvent::Dfs { node: v, num: k, parent } = *e {
            assert_eq!(k as usize, order.len(), "{ctx}: DFS numbers are consecutive");
            num[ix(v, n)] = k;
            order.push(v);
            match parent {
                None => assert_eq!(k, 0, "{ctx}"),
                Some(p) => {
                    assert!(num[ix(p, n)] < k, "{ctx}: DFS parent numbered first");
                    assert!(preds[ix(v, n)].contains(&ix(p, n)), "{ctx}: DFS parent {p} → {v} is an edge");
                }
            }
        }
    }
    assert_eq!(order, t.dfs_order(), "{ctx}");
    let mut semis = 0;
    for e in ev {
        if let DomEvent::Semi { node: w, sdom, pred, .. } = *e {
            semis += 1;
            let wi = ix(w, n);
            assert!(preds[wi].contains(&ix(pred, n)), "{ctx}: semi of {w} came from non-predecessor {pred}");
            let nw = num[wi];
            let mut best = u32::MAX;
            let mut seen = vec![false; n + 1];
            let mut stack = vec![wi];
            while let Some(x) = stack.pop() {
                for &p in &preds[x] {
                    if num[p] == u32::MAX {
                        continue;
                    }
                    best = best.min(num[p]);
                    if num[p] > nw && !seen[p] {
                        seen[p] = true;
                        stack.push(p);
                    }
                }
            }
            assert_eq!(sdom, order[best as usize], "{ctx}: semidominator of {w}");
            assert_eq!(w.block().and_then(|b| t.semidominator(b)), Some(sdom), "{ctx}");
        }
    }
    assert_eq!(semis, order.len().saturating_sub(1), "{ctx}: one semidominator per non-root");
    let expect: Vec<(DomNode, DomNode)> = order.iter().skip(1).map(|&v| (v, t.parent_of(v).unwrap())).collect();
    assert_eq!(replay_idoms(ev), expect, "{ctx}: replaying steps 3–4");
    let finals: Vec<(DomNode, DomNode)> = ev
        .iter()
        .filter_map(|e| match *e {
            DomEvent::Idom { node, idom } => Some((node, idom)),
            _ => None,
        })
        .collect();
    assert_eq!(finals, expect, "{ctx}: final idom events");
}

fn check_function(f: &Function, ctx: &str) {
    let o = Oracle::new(f);
    let n = f.blocks.len();
    let cfg = Cfg::new(f);
    let in_layout: u64 = o.layout.iter().map(|&b| bit(b)).sum();

    // CFG.
    for &b in &o.layout {
        let bid = BlockId(b as u32);
        assert_eq!(cfg.succs(bid).iter().map(|x| x.index()).collect::<Vec<_>>(), o.succ[b], "{ctx}");
        // In the documented order: the predecessor's layout position, then operand order.
        assert_eq!(cfg.preds(bid).iter().map(|x| x.index()).collect::<Vec<_>>(), o.pred[b], "{ctx}: preds of {bid}");
        assert_eq!(cfg.exits().contains(&bid), o.exits & bit(b) != 0, "{ctx}: {bid} an exit");
    }
    for b in (0..n).filter(|&b| !o.layout.contains(&b)) {
        let bid = BlockId(b as u32);
        assert!(cfg.succs(bid).is_empty() && cfg.preds(bid).is_empty(), "{ctx}: deleted {bid} has edges");
    }
    assert_eq!(cfg.num_edges(), o.succ.iter().map(Vec::len).sum::<usize>(), "{ctx}");
    assert_eq!(cfg.edges().count(), cfg.num_edges(), "{ctx}");
    let entry = o.layout[0];
    let reach = Oracle::reach(&o.succ, bit(entry), 0);
    let rpo: Vec<usize> = cfg.reverse_postorder().map(|b| b.index()).collect();
    assert_eq!(rpo[0], entry, "{ctx}");
    assert_eq!(rpo.iter().map(|&b| bit(b)).sum::<u64>(), reach, "{ctx}: RPO holds the reachable blocks");
    let unreachable: Vec<usize> = o.layout.iter().copied().filter(|&b| reach & bit(b) == 0).collect();
    assert_eq!(cfg.unreachable_blocks().iter().map(|b| b.index()).collect::<Vec<_>>(), unreachable, "{ctx}");

    // Dominators: a dominates b iff b is unreachable once a is removed.
    let dom = Rel {
        dom: (0..=n)
            .map(|a| if reach & bit(a) == 0 { 0 } else { reach & !Oracle::reach(&o.succ, bit(entry), bit(a)) })
            .collect(),
    };
    let (dt, dev) = DomTree::build_traced(f, &cfg, DomKind::Dominators);
    assert_eq!(dt.root(), Some(node(entry, n)), "{ctx}");
    for &b in &o.layout {
        let bid = BlockId(b as u32);
        assert_eq!(dt.contains(bid), reach & bit(b) != 0, "{ctx}: {bid} in tree");
        for &a in &o.layout {
            assert_eq!(dt.dominates(BlockId(a as u32), bid), dom.has(a, b), "{ctx}: b{a} dom {bid}");
        }
        if reach & bit(b) != 0 {
            let want = dom.idom(b, reach).map(|d| node(d, n));
            assert_eq!(dt.parent(bid), want, "{ctx}: idom of {bid}");
            assert_eq!(dt.depth(bid), Some(dom.count_doms(b, reach) as u32 - 1), "{ctx}");
        }
    }
    check_children(&dt, &o, n, ctx);
    check_trace(&dt, &dev, &o.pred, n, &format!("{ctx} [dom trace]"));

    // Post-dominators on the reverse graph with the virtual exit and the infinite-loop rule.
    let roots = rule_roots(&o);
    let vx = n;
    let mut aug_succ = o.succ.clone();
    aug_succ.push(Vec::new());
    let mut aug_pred = o.pred.clone();
    aug_pred.push(Vec::new());
    let joined: Vec<usize> = o.layout.iter().copied().filter(|&b| o.exits & bit(b) != 0).chain(roots.iter().copied()).collect();
    for &j in &joined {
        aug_succ[j].push(vx);
        aug_pred[vx].push(j);
    }
    let all = in_layout | bit(vx);
    let to_exit = Oracle::reach(&aug_pred, bit(vx), 0);
    assert_eq!(to_exit, all, "{ctx}: the rule connects every block to the virtual exit");
    let pdom = Rel {
        dom: (0..=n)
            .map(|a| if all & bit(a) == 0 { 0 } else { all & !Oracle::reach(&aug_pred, bit(vx), bit(a)) })
            .collect(),
    };
    let (pdt, pev) = DomTree::build_traced(f, &cfg, DomKind::PostDominators);
    let got_edges: Vec<(usize, ExitKind)> = pdt.virtual_exit_edges().iter().map(|e| (e.block.index(), e.kind)).collect();
    let want_edges: Vec<(usize, ExitKind)> = joined
        .iter()
        .map(|&j| (j, if o.exits & bit(j) != 0 { ExitKind::Exit } else { ExitKind::NoExitPath }))
        .collect();
    assert_eq!(got_edges, want_edges, "{ctx}: virtual exit edges");
    assert_eq!(pdt.root(), Some(DomNode::VirtualExit), "{ctx}");
    for &b in &o.layout {
        let bid = BlockId(b as u32);
        assert!(pdt.contains(bid), "{ctx}");
        assert!(pdt.dominates_node(DomNode::VirtualExit, bid.into()), "{ctx}");
        for &a in &o.layout {
            assert_eq!(pdt.dominates(BlockId(a as u32), bid), pdom.has(a, b), "{ctx}: b{a} pdom {bid}");
        }
        let want = pdom.idom(b, all).map(|d| node(d, n));
        assert_eq!(pdt.parent(bid), want, "{ctx}: ipdom of {bid}");
        assert_eq!(pdt.depth(bid), Some(pdom.count_doms(b, all) as u32 - 1), "{ctx}");
    }
    check_children(&pdt, &o, n, ctx);
    // In the reverse graph a node's predecessors are its successors in the augmented CFG.
    check_trace(&pdt, &pev, &aug_succ, n, &format!("{ctx} [post-dom trace]"));
    assert!(pev[..joined.len()].iter().all(|e| matches!(e, DomEvent::VirtualEdge { .. })), "{ctx}");

    // Dominance frontier: DF(a) = {b | a dom some pred p of b, and not a sdom b}.
    let df = dom::frontier(&cfg, &dt);
    for &a in &o.layout {
        let want: Vec<usize> = if reach & bit(a) == 0 {
            Vec::new()
        } else {
            o.layout
                .iter()
                .copied()
                .filter(|&b| {
                    reach & bit(b) != 0
                        && o.pred[b].iter().any(|&p| reach & bit(p) != 0 && dom.has(a, p))
                        && !(a != b && dom.has(a, b))
                })
                .collect()
        };
        assert_eq!(df[BlockId(a as u32)], o.sorted(want), "{ctx}: DF(b{a})");
    }
    // Post-dominance frontier: PDF(a) = {b | a pdom some succ s of b, and not a spdom b}.
    let pdf = dom::frontier(&cfg, &pdt);
    let cd = ControlDeps::new(f, &cfg, &pdt);
    for &y in &o.layout {
        let want: Vec<usize> = o
            .layout
            .iter()
            .copied()
            .filter(|&x| o.succ[x].iter().any(|&s| pdom.has(y, s)) && !(y != x && pdom.has(y, x)))
            .collect();
        let want = o.sorted(want);
        let yb = BlockId(y as u32);
        assert_eq!(pdf[yb], want, "{ctx}: PDF(b{y})");
        assert_eq!(cd.deps(yb), want.as_slice(), "{ctx}: control deps of b{y}");
        for &x in &want {
            assert!(cd.dependents(x).contains(&yb), "{ctx}");
            // The edges out of x that commit to y: its successors y post-dominates, in
            // successor order, a repeated edge once.
            let mut edges: Vec<BlockId> =
                o.succ[x.index()].iter().copied().filter(|&s| pdom.has(y, s)).map(|s| BlockId(s as u32)).collect();
            edges.dedup();
            assert_eq!(cd.deciding_edges(x, yb), edges.as_slice(), "{ctx}: edges of {x} deciding b{y}");
        }
    }
    for &x in &o.layout {
        // Dependents in layout order.
        let xb = BlockId(x as u32);
        let want: Vec<BlockId> = o.layout.iter().map(|&y| BlockId(y as u32)).filter(|&y| cd.deps(y).contains(&xb)).collect();
        assert_eq!(cd.dependents(xb), want.as_slice(), "{ctx}: dependents of {xb}");
    }
    let nedges: usize = o.layout.iter().map(|&x| cd.dependents(BlockId(x as u32)).len()).sum();
    assert_eq!(nedges, cd.edges().count(), "{ctx}");
    assert_eq!(nedges, o.layout.iter().map(|&y| cd.deps(BlockId(y as u32)).len()).sum::<usize>(), "{ctx}");
}

/// Children lists agree with parents and are in layout order.
fn check_children(t: &DomTree, o: &Oracle, n: usize, ctx: &str) {
    let mut nodes: Vec<DomNode> = o.layout.iter().map(|&b| node(b, n)).collect();
    nodes.push(DomNode::VirtualExit);
    for v in nodes {
        let kids = t.children(v);
        for &k in kids {
            assert_eq!(t.parent(k), Some(v), "{ctx}: child {k} of {v}");
        }
        assert!(kids.windows(2).all(|w| o.pos(w[0].index()) < o.pos(w[1].index())), "{ctx}: children of {v} in layout order");
    }
    let total: usize = t.preorder().len();
    let with_parent = o.layout.iter().filter(|&&b| t.parent(BlockId(b as u32)).is_some()).count();
    assert_eq!(total, with_parent + 1, "{ctx}: a tree has one root");
}

#[test]
fn random_cfgs_match_the_definitions() {
    let mut rng = Rng(0x0070_7469_6D6C_6162);
    let mut stats = [0usize; 4]; // [with unreachable blocks, with no-exit regions, irreducible-ish, duplicates]
    for case in 0..CASES {
        let (f, desc) = random_function(&mut rng);
        let ctx = format!("case {case}: {desc}");
        check_function(&f, &ctx);
        let cfg = Cfg::new(&f);
        stats[0] += !cfg.unreachable_blocks().is_empty() as usize;
        let pdt = DomTree::post_dominators(&f, &cfg);
        stats[1] += pdt.virtual_exit_edges().iter().any(|e| e.kind == ExitKind::NoExitPath) as usize;
        let dt = DomTree::dominators(&f, &cfg);
        // A retreating edge whose target does not dominate its source makes the graph
        // irreducible.
        stats[2] += cfg.edges().any(|(u, v)| {
            cfg.is_reachable(u) && cfg.rpo_index(v) <= cfg.rpo_index(u) && !dt.dominates(v, u)
        }) as usize;
        stats[3] += f.layout.iter().any(|&b| {
            let s = cfg.succs(b);
            s.len() == 2 && s[0] == s[1]
        }) as usize;
    }
    eprintln!(
        "{CASES} random CFGs: {} with unreachable blocks, {} with exit-free regions, {} irreducible, {} with duplicate edges",
        stats[0], stats[1], stats[2], stats[3]
    );
    // The mix really contains every kind of graph it claims to.
    assert!(stats.iter().all(|&s| s > CASES as usize / 50), "{stats:?}");
}

// ---------------------------------------------------------------------------------------
// A large structured function: must complete and agree with the definitions on samples.

#[test]
fn ten_thousand_block_function_completes_and_verifies() {
    let f = optlab_core::testgen::structured_function(10_000, 42);
    optlab_core::ir::verify(&f).expect("generated function is well formed");
    let n = f.blocks.len();
    assert!(n >= 10_000);
    let cfg = Cfg::new(&f);
    let (dt, dev) = DomTree::build_traced(&f, &cfg, DomKind::Dominators);
    let (pdt, pev) = DomTree::build_traced(&f, &cfg, DomKind::PostDominators);
    let df = dom::frontier(&cfg, &dt);
    let cd = ControlDeps::new(&f, &cfg, &pdt);
    dom::verify_ssa(&f, &cfg, &dt).unwrap();
    assert_eq!(cfg.unreachable_blocks(), vec![]);
    assert!(pdt.virtual_exit_edges().iter().all(|e| e.kind == ExitKind::Exit));

    // Sampled blocks against the definitions.
    let succ: Vec<Vec<usize>> = (0..n).map(|b| cfg.succs(BlockId(b as u32)).iter().map(|s| s.index()).collect()).collect();
    let mut pred_aug: Vec<Vec<usize>> = (0..n).map(|b| cfg.preds(BlockId(b as u32)).iter().map(|s| s.index()).collect()).collect();
    pred_aug.push(cfg.exits().iter().map(|b| b.index()).collect());
    let mut rng = Rng(7);
    for _ in 0..40 {
        let a = rng.below(n);
        let ab = BlockId(a as u32);
        let without = common::reach_avoiding(&succ, &[0], Some(a));
        let reach_exit = common::reach_avoiding(&pred_aug, &[n], Some(a));
        for b in 0..n {
            let bb = BlockId(b as u32);
            assert_eq!(dt.dominates(ab, bb), a == b || !without[b], "b{a} dom b{b}");
            assert_eq!(pdt.dominates(ab, bb), a == b || !reach_exit[b], "b{a} pdom b{b}");
        }
        let want_df: Vec<BlockId> = (0..n)
            .filter(|&b| {
                cfg.preds(BlockId(b as u32)).iter().any(|&p| dt.dominates(ab, p))
                    && !dt.strictly_dominates(ab, BlockId(b as u32))
            })
            .map(|b| BlockId(b as u32))
            .collect();
        assert_eq!(df[ab], want_df, "DF(b{a})");
        let want_cd: Vec<BlockId> = (0..n)
            .filter(|&x| {
                let xb = BlockId(x as u32);
                cfg.succs(xb).iter().any(|&s| pdt.dominates(ab, s)) && !pdt.strictly_dominates(ab, xb)
            })
            .map(|x| BlockId(x as u32))
            .collect();
        assert_eq!(cd.deps(ab), want_cd.as_slice(), "CD(b{a})");
    }
    assert_eq!(replay_idoms(&dev).len(), n - 1);
    assert_eq!(replay_idoms(&pev).len(), n);
    let bytes = serde_json::to_string(&dev).unwrap().len() + serde_json::to_string(&pev).unwrap().len();
    eprintln!(
        "{n} blocks: {} + {} trace events, {bytes} bytes of JSON; dom depth max {}, post-dom depth max {}",
        dev.len(),
        pev.len(),
        (0..n).filter_map(|b| dt.depth(BlockId(b as u32))).max().unwrap(),
        (0..n).filter_map(|b| pdt.depth(BlockId(b as u32))).max().unwrap(),
    );
    // Compact: a handful of short records per block, in both directions.
    assert!(bytes < 500 * n, "{bytes} bytes for {n} blocks");
}
