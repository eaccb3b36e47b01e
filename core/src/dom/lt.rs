//! Lengauer–Tarjan, the "simple" version with path compression: Lengauer & Tarjan, "A Fast
//! Algorithm for Finding Dominators in a Flowgraph", TOPLAS 1(1), 1979, §3 (procedures DFS,
//! LINK, EVAL, COMPRESS), O(m log n). It is the algorithm the ADCE article (seed 000) names
//! for the post-dominator tree; here it runs on whichever [`Graph`] it is given, so forward
//! dominators and post-dominators share one implementation.
//!
//! Everything after the DFS works on DFS numbers (`0` = the root), as in the paper; results
//! are converted back to graph nodes at the end. The implementation is iterative throughout
//! (DFS with cursors, COMPRESS with an explicit path) so a 10,000-block chain cannot overflow
//! the stack, and the buckets are intrusive linked lists, so the run allocates only flat
//! `u32` tables.

use super::trace::DomEvent;
use super::DomNode;
use crate::cfg::Cfg;
use crate::entity::EntityRef;
use crate::ir::BlockId;

/// "No node / no number" in the `u32` tables.
pub(crate) const NONE: u32 = u32::MAX;

/// A flowgraph over node ids `0..=nblocks`: node `i < nblocks` is block `i` of the arena and
/// node `nblocks` is the virtual exit (isolated in the forward graph). Adjacency is stored
/// compressed (CSR) in both directions because step 2 walks predecessors.
pub(crate) struct Graph {
    nblocks: usize,
    pub root: u32,
    succ_start: Vec<u32>,
    succ: Vec<u32>,
    pred_start: Vec<u32>,
    pred: Vec<u32>,
}

impl Graph {
    /// The CFG itself, rooted at the entry.
    pub fn forward(cfg: &Cfg) -> Graph {
        let nb = cfg.num_blocks();
        let root = cfg.entry().map_or(NONE, |e| e.index() as u32);
        let block = |v: u32| (v as usize) < nb;
        let (succ_start, succ) = csr(nb + 1, |v, out| {
            if block(v) {
                out.extend(cfg.succs(BlockId(v)).iter().map(|b| b.0));
            }
        });
        let (pred_start, pred) = csr(nb + 1, |v, out| {
            if block(v) {
                out.extend(cfg.preds(BlockId(v)).iter().map(|b| b.0));
            }
        });
        Graph { nblocks: nb, root, succ_start, succ, pred_start, pred }
    }

    /// The reverse CFG, rooted at the virtual exit, whose successors are `roots` (in order).
    /// A node's successors here are its CFG predecessors and vice versa.
    pub fn reverse(cfg: &Cfg, roots: &[BlockId]) -> Graph {
        let nb = cfg.num_blocks();
        let vx = nb as u32;
        let mut joined = vec![false; nb];
        for r in roots {
            joined[r.index()] = true;
        }
        let (succ_start, succ) = csr(nb + 1, |v, out| {
            if v == vx {
                out.extend(roots.iter().map(|b| b.0));
            } else {
                out.extend(cfg.preds(BlockId(v)).iter().map(|b| b.0));
            }
        });
        let (pred_start, pred) = csr(nb + 1, |v, out| {
            if v != vx {
                out.extend(cfg.succs(BlockId(v)).iter().map(|b| b.0));
                if joined[v as usize] {
                    out.push(vx);
                }
            }
        });
        // A function without blocks has no tree at all, not a lone virtual exit.
        let root = if cfg.blocks().is_empty() { NONE } else { vx };
        Graph { nblocks: nb, root, succ_start, succ, pred_start, pred }
    }

    pub fn len(&self) -> usize {
        self.nblocks + 1
    }

    pub fn succs(&self, v: u32) -> &[u32] {
        &self.succ[self.succ_start[v as usize] as usize..self.succ_start[v as usize + 1] as usize]
    }

    pub fn preds(&self, v: u32) -> &[u32] {
        &self.pred[self.pred_start[v as usize] as usize..self.pred_start[v as usize + 1] as usize]
    }

    pub fn node(&self, v: u32) -> DomNode {
        if (v as usize) < self.nblocks {
            DomNode::Block(BlockId(v))
        } else {
            DomNode::VirtualExit
        }
    }
}

/// Builds a CSR table from a per-node adjacency callback.
fn csr(n: usize, mut adj: impl FnMut(u32, &mut Vec<u32>)) -> (Vec<u32>, Vec<u32>) {
    let mut start = Vec::with_capacity(n + 1);
    let mut list = Vec::new();
    start.push(0);
    for v in 0..n as u32 {
        adj(v, &mut list);
        start.push(list.len() as u32);
    }
    (start, list)
}

/// The result of a run, indexed by graph node (`NONE` where a node was not reached).
pub(crate) struct LtResult {
    /// Nodes in DFS preorder (`order[0]` is the root).
    pub order: Vec<u32>,
    /// Immediate dominator of each node; `NONE` for the root and unreached nodes.
    pub idom: Vec<u32>,
    /// Semidominator of each node; `NONE` for the root and unreached nodes.
    pub semi: Vec<u32>,
}

/// Where events go; a no-op when the caller does not want a trace (the closure building an
/// event is then never called).
struct Sink<'a>(Option<&'a mut Vec<DomEvent>>);

impl Sink<'_> {
    #[inline]
    fn emit(&mut self, e: impl FnOnce() -> DomEvent) {
        if let Some(t) = self.0.as_deref_mut() {
            t.push(e());
        }
    }
}

/// Runs Lengauer–Tarjan on `g` from `g.root`, recording events into `trace` if given.
pub(crate) fn run(g: &Graph, trace: Option<&mut Vec<DomEvent>>) -> LtResult {
    let mut sink = Sink(trace);
    let n = g.len();
    let mut num = vec![NONE; n];
    // By DFS number: the node, and the DFS-tree parent's number.
    let mut vertex: Vec<u32> = Vec::new();
    let mut parent: Vec<u32> = Vec::new();

    // Step 1: number the nodes in DFS preorder, trying successors in order (a stack of
    // cursors reproduces the recursive visit order exactly).
    if (g.root as usize) < n {
        num[g.root as usize] = 0;
        vertex.push(g.root);
        parent.push(NONE);
        sink.emit(|| DomEvent::Dfs { node: g.node(g.root), num: 0, parent: None });
        let mut stack: Vec<(u32, usize)> = vec![(g.root, 0)];
        while let Some(top) = stack.last_mut() {
            let (v, i) = *top;
            let Some(&w) = g.succs(v).get(i) else {
                stack.pop();
                continue;
            };
            top.1 += 1;
            if num[w as usize] == NONE {
                let k = vertex.len() as u32;
                num[w as usize] = k;
                parent.push(num[v as usize]);
                vertex.push(w);
                sink.emit(|| DomEvent::Dfs { node: g.node(w), num: k, parent: Some(g.node(v)) });
                stack.push((w, 0));
            }
        }
    }

    let m = vertex.len();
    let mut semi: Vec<u32> = (0..m as u32).collect();
    let mut label: Vec<u32> = (0..m as u32).collect();
    let mut ancestor = vec![NONE; m];
    let mut idom = vec![NONE; m];
    let mut bucket_head = vec![NONE; m];
    let mut bucket_next = vec![NONE; m];
    let mut path = Vec::new();

    // Steps 2 and 3, in decreasing DFS number.
    for w in (1..m).rev() {
        let wn = vertex[w];
        // sdom(w) = min over predecessors v of sdom(EVAL(v)) — for v numbered below w that is
        // v itself (not yet linked), for v above w the smallest semidominator on its forest
        // path. The DFS parent is a predecessor, so something is always found.
        let mut via: Option<(u32, u32)> = None;
        for &v in g.preds(wn) {
            let vn = num[v as usize];
            if vn == NONE {
                continue; // unreachable from the root: not part of this flowgraph
            }
            let u = eval(vn, &mut ancestor, &mut label, &semi, &mut path);
            if semi[u as usize] < semi[w] {
                semi[w] = semi[u as usize];
                via = Some((v, u));
            }
        }
        let (pred, from) = via.unwrap_or((vertex[parent[w] as usize], parent[w]));
        sink.emit(|| DomEvent::Semi {
            node: g.node(wn),
            sdom: g.node(vertex[semi[w] as usize]),
            pred: g.node(pred),
            from: g.node(vertex[from as usize]),
        });
        let s = semi[w] as usize;
        bucket_next[w] = bucket_head[s];
        bucket_head[s] = w as u32;

        let p = parent[w];
        ancestor[w] = p; // LINK(parent(w), w)

        // Step 3: every v whose semidominator is parent(w) now has its idom defined.
        let mut v = std::mem::replace(&mut bucket_head[p as usize], NONE);
        while v != NONE {
            let next = bucket_next[v as usize];
            let u = eval(v, &mut ancestor, &mut label, &semi, &mut path);
            let vnode = g.node(vertex[v as usize]);
            if semi[u as usize] < semi[v as usize] {
                idom[v as usize] = u;
                sink.emit(|| DomEvent::IdomDeferred { node: vnode, same_as: g.node(vertex[u as usize]) });
            } else {
                idom[v as usize] = p;
                sink.emit(|| DomEvent::IdomIsSdom { node: vnode, idom: g.node(vertex[p as usize]) });
            }
            v = next;
        }
    }

    // Step 4: resolve the deferred ones in increasing DFS number.
    for w in 1..m {
        if idom[w] != semi[w] {
            idom[w] = idom[idom[w] as usize];
        }
        sink.emit(|| DomEvent::Idom { node: g.node(vertex[w]), idom: g.node(vertex[idom[w] as usize]) });
    }

    let mut res = LtResult { order: vertex.clone(), idom: vec![NONE; n], semi: vec![NONE; n] };
    for w in 1..m {
        res.idom[vertex[w] as usize] = vertex[idom[w] as usize];
        res.semi[vertex[w] as usize] = vertex[semi[w] as usize];
    }
    res
}

/// EVAL(v): `v` itself if it is a forest root, otherwise the vertex with the smallest
/// semidominator on the forest path above it (root excluded), compressing that path.
#[inline]
fn eval(v: u32, ancestor: &mut [u32], label: &mut [u32], semi: &[u32], path: &mut Vec<u32>) -> u32 {
    if ancestor[v as usize] == NONE {
        return v;
    }
    compress(v, ancestor, label, semi, path);
    label[v as usize]
}

/// COMPRESS(v) without recursion: collect the path up to the node just below the forest
/// root, then fix labels and ancestors from the top down, as the recursive version's
/// returns would.
fn compress(v: u32, ancestor: &mut [u32], label: &mut [u32], semi: &[u32], path: &mut Vec<u32>) {
    path.clear();
    let mut x = v;
    while ancestor[ancestor[x as usize] as usize] != NONE {
        path.push(x);
        x = ancestor[x as usize];
    }
    while let Some(y) = path.pop() {
        let a = ancestor[y as usize] as usize;
        if semi[label[a] as usize] < semi[label[y as usize] as usize] {
            label[y as usize] = label[a];
        }
        ancestor[y as usize] = ancestor[a];
    }
}
