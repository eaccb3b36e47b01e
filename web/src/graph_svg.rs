//! The old one-call API, kept while views move to [`crate::graph`] and
//! [`crate::graph_view::GraphView`]: everything here is re-exported from there.

pub use crate::graph::{layout, paint, Badge, Decor, Edge, EdgeKind, Graph, Layout, Node, Style};

/// Lays `g` out and paints it without decorations (no caching, no worker: prefer GraphView).
pub fn render_svg(g: &Graph, style: &Style) -> String {
    paint(g, &layout(g, style), style, &Decor::default())
}
