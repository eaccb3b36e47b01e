//! The graph layer every view draws with: a directed graph of code boxes, laid out once by
//! layout-rs and painted to SVG many times.
//!
//! Layout and painting are separate because they change at different rates: a program edit
//! changes the [`Graph`] (lay out again, maybe in a worker: [`service`]), while stepping through
//! a pass only changes the [`Decor`] (repaint with the same [`Layout`]).
//!
//! - [`layout()`]: `Graph` + [`Style`] → [`Layout`] (positions, sizes, routes; serde, so it
//!   crosses a worker boundary).
//! - [`paint()`]: `Graph` + `Layout` + `Style` + `Decor` → a standalone `<svg>` string.
//! - [`service`]: layouts off the main thread, cached by graph content.
//! - [`export`]: the drawing as a standalone SVG file or PNG.

pub mod decor;
pub mod dom;
pub mod export;
mod layers;
pub mod layout;
pub mod paint;
pub mod protocol;
pub mod service;
pub mod style;
pub mod viewport;
pub mod web;

pub use decor::{Badge, Decor, NodeDecor};
pub use layout::{layout, Layout, Rect, Route};
pub use paint::paint;
pub use style::Style;

use serde::{Deserialize, Serialize};

/// One box: a title line (block name) and the code lines under it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Node {
    /// Written to `data-id`; stable across re-renders (e.g. the block name).
    pub id: String,
    pub title: String,
    pub lines: Vec<String>,
    /// CSS classes that belong to the graph itself (e.g. `virtual` for a post-dominator
    /// tree's exit); per-step classes go in [`Decor`].
    pub class: String,
    /// Per code line, what hovering it shows (an SVG `<title>`; empty for none): the CFG's
    /// SIL lines name their values' types and classes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tips: Vec<String>,
}

impl Node {
    pub fn new(id: impl Into<String>, title: impl Into<String>, lines: Vec<String>) -> Node {
        Node { id: id.into(), title: title.into(), lines, class: String::new(), tips: Vec::new() }
    }

    /// The tooltip of code line `k`, if it has one.
    pub fn tip(&self, k: usize) -> Option<&str> {
        self.tips.get(k).map(String::as_str).filter(|t| !t.is_empty())
    }
}

/// How an edge is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EdgeKind {
    #[default]
    Normal,
    /// The taken side of a two-way branch.
    True,
    /// The not-taken side of a two-way branch.
    False,
    Dashed,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Edge {
    /// Indices into [`Graph::nodes`].
    pub from: usize,
    pub to: usize,
    /// Text drawn on the edge (empty for none; a label adds a small node to the layout).
    pub label: String,
    pub kind: EdgeKind,
}

impl Edge {
    pub fn new(from: usize, to: usize) -> Edge {
        Edge { from, to, ..Edge::default() }
    }
}

/// Nodes and edges. Node 0 is the root (a CFG's entry block) and is drawn at the top.
/// Edges whose ends are not valid node indices are ignored by layout and painting.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Graph {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

impl Graph {
    /// The index of the node whose id is `id`.
    pub fn node_index(&self, id: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.id == id)
    }

    /// The index of the first edge `from → to` (for decorating an edge by its ends).
    pub fn edge_index(&self, from: usize, to: usize) -> Option<usize> {
        self.edges.iter().position(|e| e.from == from && e.to == to)
    }

    /// A hash of everything that affects the layout (not node classes): the cache key.
    pub fn layout_key(&self, style: &Style) -> u64 {
        use std::hash::{Hash, Hasher};
        // DefaultHasher::new() has fixed keys: the same graph hashes the same in every run.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for n in &self.nodes {
            (&n.id, &n.title, &n.lines).hash(&mut h);
        }
        self.edges.hash(&mut h);
        style.layout_bits().hash(&mut h);
        h.finish()
    }
}

/// Text for SVG/HTML content and attribute values.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    escape_into(&mut out, s);
    out
}

pub(crate) fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    /// entry → (left | right) → end, with code in every box.
    pub fn diamond() -> Graph {
        let node = |n: &str, code: &[&str]| Node::new(n, n, code.iter().map(|s| s.to_string()).collect());
        Graph {
            nodes: vec![
                node("entry", &["c: bool = const true;", "br c .left .right;"]),
                node("left", &["a: int = const 1;", "jmp .end;"]),
                node("right", &["a: int = const 2;", "jmp .end;"]),
                node("end", &["print a;"]),
            ],
            edges: vec![
                Edge { kind: EdgeKind::True, ..Edge::new(0, 1) },
                Edge { kind: EdgeKind::False, ..Edge::new(0, 2) },
                Edge::new(1, 3),
                Edge::new(2, 3),
            ],
        }
    }

    /// A chain of `n` one-line boxes with a back edge every fifth node.
    pub fn chain(n: usize) -> Graph {
        let mut g = Graph::default();
        for i in 0..n {
            g.nodes.push(Node::new(format!("b{i}"), format!("b{i}"), vec![format!("v{i}: int = add a b;")]));
        }
        for i in 0..n.saturating_sub(1) {
            g.edges.push(Edge::new(i, i + 1));
            if i % 5 == 4 {
                g.edges.push(Edge::new(i, i - 3));
            }
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_key_ignores_classes_but_not_text_or_style() {
        let g = fixtures::diamond();
        let s = Style::default();
        let mut classed = g.clone();
        classed.nodes[1].class = "virtual".into();
        assert_eq!(g.layout_key(&s), classed.layout_key(&s));
        let mut edited = g.clone();
        edited.nodes[1].lines[0].push('x');
        assert_ne!(g.layout_key(&s), edited.layout_key(&s));
        let bigger = Style { font_size: 16.0, ..Style::default() };
        assert_ne!(g.layout_key(&s), g.layout_key(&bigger));
        let renamed = Style { id_prefix: "other".into(), ..Style::default() };
        assert_eq!(g.layout_key(&s), g.layout_key(&renamed), "the id prefix does not move anything");
    }

    #[test]
    fn lookups() {
        let g = fixtures::diamond();
        assert_eq!(g.node_index("end"), Some(3));
        assert_eq!(g.node_index("nope"), None);
        assert_eq!(g.edge_index(0, 2), Some(1));
        assert_eq!(g.edge_index(3, 0), None);
        assert_eq!(escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    }
}
