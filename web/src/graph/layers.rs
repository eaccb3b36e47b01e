//! Layers and the order of nodes within each layer: the first two steps of a layered
//! (Sugiyama) drawing, done here because layout-rs's own crossing reduction compares every
//! pair of nodes in a row against the next row, fifty times over — seconds for a 1,000-block
//! CFG. layout-rs then only places what we hand it (coordinates, edge curves).
//!
//! - Edges that go backwards in reverse postorder from node 0 (loop back edges) are turned
//!   around, which leaves a DAG; each node's layer is its longest path from a root.
//! - An edge spanning several layers becomes a chain through dummy nodes, one per layer (the
//!   first one carries the edge's label, if it has one: a labelled edge spans three layers).
//! - Rows start in depth-first order (a branch's true side left of its false side) and are
//!   then reordered by barycentres, sweeping down and up, keeping the order with the fewest
//!   crossings (counted exactly, by inversions).

use super::Graph;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A node of the graph (its index).
    Node(usize),
    /// Where a long edge passes through a layer.
    Dummy,
    /// A dummy showing the label of this edge.
    Label(usize),
}

/// The path of one edge through the layers, top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Chain {
    pub edge: usize,
    pub nodes: Vec<usize>,
    /// The edge points up (a back edge drawn from its target): the arrow head is at the start.
    pub reversed: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Layers {
    pub kind: Vec<Kind>,
    pub down: Vec<Vec<usize>>,
    pub up: Vec<Vec<usize>>,
    /// The nodes of each layer, left to right.
    pub rows: Vec<Vec<usize>>,
    pub chains: Vec<Chain>,
    /// Edges from a node to itself (layout-rs draws these).
    pub self_loops: Vec<usize>,
}

impl Layers {
    /// Layers of the graph's valid edges (both ends in range), rows in depth-first order.
    pub fn build(g: &Graph) -> Layers {
        let n = g.nodes.len();
        let rpo = reverse_postorder(g);
        let mut rank = vec![0usize; n];
        for (i, &v) in rpo.iter().enumerate() {
            rank[v] = i;
        }
        let mut self_loops = Vec::new();
        // (edge, top, bottom, reversed, span) per edge of the DAG, grouped by top node.
        let mut out: Vec<Vec<(usize, usize, bool, usize)>> = vec![Vec::new(); n];
        for (i, e) in g.edges.iter().enumerate() {
            if e.from >= n || e.to >= n {
                continue;
            }
            if e.from == e.to {
                self_loops.push(i);
                continue;
            }
            let reversed = rank[e.to] < rank[e.from];
            let (a, b) = if reversed { (e.to, e.from) } else { (e.from, e.to) };
            // A labelled edge passes two dummies (label, then plain): layout-rs straightens a
            // dummy between two boxes, and straightening a wide label dummy next to a narrow
            // one trips an assertion in its placer.
            out[a].push((i, b, reversed, if e.label.is_empty() { 1 } else { 3 }));
        }
        // Longest path from the roots; reverse postorder is a topological order of the DAG.
        let mut level = vec![0usize; n];
        for &a in &rpo {
            for &(_, b, _, span) in &out[a] {
                level[b] = level[b].max(level[a] + span);
            }
        }
        let mut kind: Vec<Kind> = (0..n).map(Kind::Node).collect();
        let mut down = vec![Vec::new(); n];
        let mut up = vec![Vec::new(); n];
        let mut chains = Vec::new();
        for &a in &rpo {
            for &(edge, b, reversed, _) in &out[a] {
                let mut nodes = vec![a];
                for l in level[a] + 1..level[b] {
                    let d = kind.len();
                    kind.push(if l == level[a] + 1 && !g.edges[edge].label.is_empty() {
                        Kind::Label(edge)
                    } else {
                        Kind::Dummy
                    });
                    level.push(l);
                    down.push(Vec::new());
                    up.push(Vec::new());
                    nodes.push(d);
                }
                nodes.push(b);
                for w in nodes.windows(2) {
                    down[w[0]].push(w[1]);
                    up[w[1]].push(w[0]);
                }
                chains.push(Chain { edge, nodes, reversed });
            }
        }
        let rows = initial_rows(&rpo, &level, &down);
        Layers { kind, down, up, rows, chains, self_loops }
    }

    fn positions(&self) -> Vec<usize> {
        let mut pos = vec![0; self.kind.len()];
        for row in &self.rows {
            for (i, &v) in row.iter().enumerate() {
                pos[v] = i;
            }
        }
        pos
    }

    /// Edge crossings between consecutive layers.
    pub fn crossings(&self) -> usize {
        let pos = self.positions();
        let mut total = 0;
        for l in 0..self.rows.len().saturating_sub(1) {
            let mut ends: Vec<(usize, usize)> = self.rows[l]
                .iter()
                .flat_map(|&u| self.down[u].iter().map(|&w| (pos[u], pos[w])).collect::<Vec<_>>())
                .collect();
            ends.sort_unstable();
            total += inversions(ends.into_iter().map(|(_, b)| b), self.rows[l + 1].len());
        }
        total
    }

    /// Reorders the rows to reduce crossings: `rounds` down-and-up barycentre sweeps; the best
    /// order seen wins.
    pub fn reduce_crossings(&mut self, rounds: usize) {
        let mut best = self.crossings();
        let mut best_rows = self.rows.clone();
        for _ in 0..rounds {
            if best == 0 {
                break;
            }
            for downwards in [true, false] {
                self.sweep(downwards);
                let c = self.crossings();
                if c < best {
                    best = c;
                    best_rows = self.rows.clone();
                }
            }
        }
        self.rows = best_rows;
    }

    /// Sorts each row by the mean position of its neighbours in the row above (down) or below
    /// (up); a node without such neighbours keeps its place.
    fn sweep(&mut self, downwards: bool) {
        let mut pos = self.positions();
        let levels: Vec<usize> = if downwards {
            (1..self.rows.len()).collect()
        } else {
            (0..self.rows.len().saturating_sub(1)).rev().collect()
        };
        for l in levels {
            let adj = if downwards { &self.up } else { &self.down };
            let mut keyed: Vec<(f64, usize)> = self.rows[l]
                .iter()
                .map(|&v| {
                    let ns = &adj[v];
                    let key = if ns.is_empty() {
                        pos[v] as f64
                    } else {
                        ns.iter().map(|&u| pos[u] as f64).sum::<f64>() / ns.len() as f64
                    };
                    (key, v)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
            self.rows[l] = keyed.into_iter().map(|(_, v)| v).collect();
            for (i, &v) in self.rows[l].iter().enumerate() {
                pos[v] = i;
            }
        }
    }
}

/// Rows in depth-first order from the roots (in reverse postorder), successors in edge order.
fn initial_rows(rpo: &[usize], level: &[usize], down: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let height = level.iter().max().map_or(0, |&m| m + 1);
    let mut rows = vec![Vec::new(); height];
    let mut seen = vec![false; level.len()];
    for &root in rpo {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack = vec![root];
        while let Some(v) = stack.pop() {
            rows[level[v]].push(v);
            for &w in down[v].iter().rev() {
                if !seen[w] {
                    seen[w] = true;
                    stack.push(w);
                }
            }
        }
    }
    rows
}

/// Pairs i < j with xs[i] > xs[j], for values below `bound` (a Fenwick tree).
fn inversions(xs: impl Iterator<Item = usize>, bound: usize) -> usize {
    let mut tree = vec![0usize; bound + 1];
    let mut inv = 0;
    for (seen, x) in xs.enumerate() {
        // Values ≤ x seen so far.
        let mut i = x + 1;
        let mut not_greater = 0;
        while i > 0 {
            not_greater += tree[i];
            i &= i - 1;
        }
        inv += seen - not_greater;
        let mut i = x + 1;
        while i <= bound {
            tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    }
    inv
}

/// Reverse postorder of the nodes along valid edges: the tree of a DFS from node 0 first,
/// then the trees of DFSs from the nodes it did not reach, in index order.
pub(crate) fn reverse_postorder(g: &Graph) -> Vec<usize> {
    let n = g.nodes.len();
    let mut succ = vec![Vec::new(); n];
    for e in g.edges.iter().filter(|e| e.from < n && e.to < n) {
        succ[e.from].push(e.to);
    }
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut post = Vec::new();
    for root in 0..n {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack = vec![(root, 0usize)];
        while let Some(top) = stack.last_mut() {
            let (v, i) = *top;
            if let Some(&w) = succ[v].get(i) {
                top.1 += 1;
                if !seen[w] {
                    seen[w] = true;
                    stack.push((w, 0));
                }
            } else {
                post.push(v);
                stack.pop();
            }
        }
        order.extend(post.drain(..).rev());
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::fixtures::{chain, diamond};
    use crate::graph::{Edge, Node};

    fn levels(l: &Layers) -> Vec<usize> {
        let mut level = vec![usize::MAX; l.kind.len()];
        for (i, row) in l.rows.iter().enumerate() {
            for &v in row {
                level[v] = i;
            }
        }
        level
    }

    /// Crossings counted the slow, obvious way: every pair of edges between two layers.
    fn crossings_by_pairs(l: &Layers) -> usize {
        let pos = l.positions();
        let mut total = 0;
        for row in &l.rows {
            let edges: Vec<(usize, usize)> = row.iter().flat_map(|&u| l.down[u].iter().map(move |&w| (u, w))).collect();
            for (i, &(a, b)) in edges.iter().enumerate() {
                for &(c, d) in &edges[i + 1..] {
                    let (pa, pb, pc, pd) = (pos[a], pos[b], pos[c], pos[d]);
                    if (pa < pc && pb > pd) || (pa > pc && pb < pd) {
                        total += 1;
                    }
                }
            }
        }
        total
    }

    #[test]
    fn inversions_are_counted_exactly() {
        assert_eq!(inversions([0, 1, 2].into_iter(), 3), 0);
        assert_eq!(inversions([2, 1, 0].into_iter(), 3), 3);
        assert_eq!(inversions([1, 1, 0].into_iter(), 2), 2);
        assert_eq!(inversions(std::iter::empty(), 0), 0);
    }

    #[test]
    fn layers_follow_edges_and_back_edges_turn_around() {
        let mut g = diamond();
        g.edges.push(Edge::new(3, 0)); // back edge
        g.edges.push(Edge::new(1, 1)); // self loop
        g.edges.push(Edge::new(0, 3)); // long edge: one dummy
        let l = Layers::build(&g);
        let level = levels(&l);
        assert_eq!(&level[..4], &[0, 1, 1, 2]);
        assert_eq!(l.self_loops, [5]);
        let back = l.chains.iter().find(|c| c.edge == 4).unwrap();
        assert!(back.reversed);
        assert_eq!((back.nodes[0], *back.nodes.last().unwrap()), (0, 3));
        let long = l.chains.iter().find(|c| c.edge == 6).unwrap();
        assert_eq!(long.nodes.len(), 3);
        assert_eq!(l.kind[long.nodes[1]], Kind::Dummy);
        // Every chain steps down one layer at a time; every node is in exactly one row.
        for c in &l.chains {
            for w in c.nodes.windows(2) {
                assert_eq!(level[w[1]], level[w[0]] + 1);
            }
        }
        let mut all: Vec<usize> = l.rows.concat();
        all.sort();
        assert_eq!(all, (0..l.kind.len()).collect::<Vec<_>>());
        // The true side (left) starts left of the false side (right).
        let row1 = &l.rows[1];
        assert!(row1.iter().position(|&v| v == 1) < row1.iter().position(|&v| v == 2));
    }

    #[test]
    fn a_labelled_edge_spans_three_layers_through_its_label() {
        let mut g = diamond();
        g.edges[0].label = "T".into();
        let l = Layers::build(&g);
        let c = l.chains.iter().find(|c| c.edge == 0).unwrap();
        assert_eq!(c.nodes.len(), 4);
        assert_eq!((l.kind[c.nodes[1]], l.kind[c.nodes[2]]), (Kind::Label(0), Kind::Dummy));
        assert_eq!(levels(&l)[1], 3);
    }

    #[test]
    fn reducing_crossings_never_makes_them_worse_and_counts_match() {
        let mut g = chain(40);
        // Some criss-crossing forward edges.
        for i in (0..30).step_by(3) {
            g.edges.push(Edge::new(i, i + 7));
            g.edges.push(Edge::new(i + 1, i + 4));
        }
        g.nodes.push(Node::new("island", "island", vec![]));
        let mut l = Layers::build(&g);
        let before = l.crossings();
        assert_eq!(before, crossings_by_pairs(&l));
        l.reduce_crossings(8);
        let after = l.crossings();
        assert_eq!(after, crossings_by_pairs(&l));
        assert!(after <= before, "{after} > {before}");
    }

    #[test]
    fn a_generated_cfg_gets_fewer_crossings() {
        let f = optlab_core::testgen::structured_function(200, 3);
        let g = crate::cfg_graph::cfg_graph(&f);
        let mut l = Layers::build(&g);
        let before = l.crossings();
        l.reduce_crossings(12);
        assert!(l.crossings() < before || before == 0, "{} vs {before}", l.crossings());
    }

    #[test]
    fn reverse_postorder_visits_everything_once_entry_first() {
        let mut g = chain(7);
        g.edges.push(Edge::new(5, 42));
        g.nodes.push(Node::new("island", "island", vec![]));
        let order = reverse_postorder(&g);
        assert_eq!(order[0], 0);
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(sorted, (0..8).collect::<Vec<_>>());
        assert_eq!(*order.last().unwrap(), 7);
    }
}
