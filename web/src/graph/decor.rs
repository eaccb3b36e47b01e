//! What a view adds to a drawing for one step: CSS classes on nodes, code lines and edges, and
//! badges at a node's entry (above the box) and exit (below it). Changing the decor repaints
//! with the same layout, so stepping never lays out again.
//!
//! Classes the stylesheet (static/css/graph.css) knows: nodes `selected`, `current`,
//! `unreachable`, `split`, `dim`; lines `live`, `dead`, `current`, `inserted`, `deleted`,
//! `selected`; edges `highlight`, `dim`; badges `on`, `off`, `changed`. Any other class is
//! just written out.

use std::collections::BTreeMap;

/// A small pill of text, e.g. a predicate bit (`NdSafe 1`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Badge {
    pub text: String,
    /// CSS classes of the pill.
    pub class: String,
    /// Shown on hover (an SVG `<title>`); empty for none.
    pub title: String,
}

impl Badge {
    pub fn new(text: impl Into<String>, class: impl Into<String>) -> Badge {
        Badge { text: text.into(), class: class.into(), title: String::new() }
    }

    pub fn with_title(mut self, title: impl Into<String>) -> Badge {
        self.title = title.into();
        self
    }
}

/// The decorations of one node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeDecor {
    /// Extra classes of the node's `<g>`.
    pub class: String,
    /// Classes of code lines, by line index.
    pub lines: BTreeMap<usize, String>,
    /// Badges above the box, left to right.
    pub entry: Vec<Badge>,
    /// Badges below the box, left to right.
    pub exit: Vec<Badge>,
}

/// Decorations by node index and edge index (indices into the [`super::Graph`]); entries for
/// indices the graph does not have are ignored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decor {
    pub nodes: BTreeMap<usize, NodeDecor>,
    /// Extra classes of edges.
    pub edges: BTreeMap<usize, String>,
}

fn add_class(to: &mut String, class: &str) {
    let class = class.trim();
    if class.is_empty() || to.split_whitespace().any(|c| c == class) {
        return;
    }
    if !to.is_empty() {
        to.push(' ');
    }
    to.push_str(class);
}

impl Decor {
    pub fn new() -> Decor {
        Decor::default()
    }

    /// The decorations of node `i`, created empty if needed.
    pub fn node_mut(&mut self, i: usize) -> &mut NodeDecor {
        self.nodes.entry(i).or_default()
    }

    pub fn node(&self, i: usize) -> Option<&NodeDecor> {
        self.nodes.get(&i)
    }

    /// Adds a class to node `i` (no duplicates).
    pub fn node_class(&mut self, i: usize, class: &str) -> &mut Decor {
        add_class(&mut self.node_mut(i).class, class);
        self
    }

    /// Adds a class to line `line` of node `i`.
    pub fn line_class(&mut self, i: usize, line: usize, class: &str) -> &mut Decor {
        add_class(self.node_mut(i).lines.entry(line).or_default(), class);
        self
    }

    /// Adds a class to edge `e`.
    pub fn edge_class(&mut self, e: usize, class: &str) -> &mut Decor {
        add_class(self.edges.entry(e).or_default(), class);
        self
    }

    pub fn entry_badge(&mut self, i: usize, badge: Badge) -> &mut Decor {
        self.node_mut(i).entry.push(badge);
        self
    }

    pub fn exit_badge(&mut self, i: usize, badge: Badge) -> &mut Decor {
        self.node_mut(i).exit.push(badge);
        self
    }

    /// The classes of line `line` of node `i` ("" if none).
    pub fn line(&self, i: usize, line: usize) -> &str {
        self.nodes.get(&i).and_then(|n| n.lines.get(&line)).map_or("", String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty() && self.edges.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_accumulate_without_duplicates() {
        let mut d = Decor::new();
        d.node_class(2, "selected").node_class(2, "current").node_class(2, "selected").node_class(2, " ");
        assert_eq!(d.node(2).unwrap().class, "selected current");
        d.line_class(2, 0, "live").line_class(2, 0, "current");
        assert_eq!(d.line(2, 0), "live current");
        assert_eq!(d.line(2, 1), "");
        assert_eq!(d.line(7, 0), "");
        d.edge_class(0, "highlight");
        d.entry_badge(1, Badge::new("NdSafe 1", "on").with_title("needed and safe"));
        d.exit_badge(1, Badge::new("XLatest 0", "off"));
        let n1 = d.node(1).unwrap();
        assert_eq!((n1.entry.len(), n1.exit.len()), (1, 1));
        assert_eq!(n1.entry[0].title, "needed and safe");
        assert!(!d.is_empty() && Decor::new().is_empty());
    }
}
