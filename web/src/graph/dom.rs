//! A new decor applied to a drawing already on the page: a few class attributes and the badge
//! layer change, instead of the page parsing a whole new SVG (hundreds of KB for a large CFG)
//! on every step. The result has the same classes and badges as [`super::paint()`] with that
//! decor would give (browser tests compare the two).

use super::paint::{badge_layer, edge_class, frame, line_bg_class, node_class, N};
use super::{Decor, Graph, Layout, Style};
use std::collections::{BTreeSet, HashMap};
use web_sys::Element;

/// The elements of one painted drawing that a decor touches, found once per drawing.
pub struct Drawing {
    svg: Element,
    nodes: HashMap<usize, Element>,
    /// (node, line) → (hit area, text)
    lines: HashMap<(usize, usize), (Option<Element>, Option<Element>)>,
    edges: HashMap<usize, Element>,
    badges: Option<Element>,
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let Ok(list) = root.query_selector_all(selector) else { return Vec::new() };
    (0..list.length()).filter_map(|i| wasm_bindgen::JsCast::dyn_into::<Element>(list.item(i)?).ok()).collect()
}

fn index_attr(el: &Element, name: &str) -> Option<usize> {
    el.get_attribute(name)?.parse().ok()
}

/// The `data-index` of the node group `el` is in.
fn node_of(el: &Element) -> Option<usize> {
    index_attr(&el.closest("g.node").ok()??, "data-index")
}

impl Drawing {
    /// Indexes the `<svg>` painted inside `stage` (None if there is none).
    pub fn find(stage: &Element) -> Option<Drawing> {
        let svg = stage.query_selector("svg.optlab-graph").ok()??;
        let nodes = all(&svg, "g.node[data-index]")
            .into_iter()
            .filter_map(|g| Some((index_attr(&g, "data-index")?, g)))
            .collect();
        let mut lines: HashMap<(usize, usize), (Option<Element>, Option<Element>)> = HashMap::new();
        for rect in all(&svg, "rect.line-bg[data-line]") {
            if let (Some(n), Some(k)) = (node_of(&rect), index_attr(&rect, "data-line")) {
                lines.entry((n, k)).or_default().0 = Some(rect);
            }
        }
        for tspan in all(&svg, "text.code tspan[data-line]") {
            if let (Some(n), Some(k)) = (node_of(&tspan), index_attr(&tspan, "data-line")) {
                lines.entry((n, k)).or_default().1 = Some(tspan);
            }
        }
        let edges = all(&svg, "path.edge[data-edge]")
            .into_iter()
            .filter_map(|p| Some((index_attr(&p, "data-edge")?, p)))
            .collect();
        let badges = svg.query_selector("g.badge-layer").ok().flatten();
        Some(Drawing { svg, nodes, lines, edges, badges })
    }

    /// Whether this drawing is the one `stage` shows. The page can put up a new copy of the
    /// same SVG text (so comparing the text is not enough), and decorations applied to the
    /// copy that left were lost: on a loaded machine, after fast steps through LCM on 200
    /// blocks, the graph kept no bits for good (session 14).
    pub fn is_in(&self, stage: &Element) -> bool {
        stage.contains(Some(&self.svg))
    }

    /// Turns the drawing's decorations from `old` (what it shows now) into `new`.
    pub fn apply(&self, g: &Graph, lay: &Layout, style: &Style, old: &Decor, new: &Decor) {
        let set = |el: &Element, class: &str| {
            let _ = if class.is_empty() { el.remove_attribute("class") } else { el.set_attribute("class", class) };
        };
        let touched: BTreeSet<usize> = old.nodes.keys().chain(new.nodes.keys()).copied().collect();
        for &i in &touched {
            if let Some(el) = self.nodes.get(&i) {
                set(el, &node_class(g, new, i));
            }
            let lines: BTreeSet<usize> =
                [old.node(i), new.node(i)].into_iter().flatten().flat_map(|d| d.lines.keys().copied()).collect();
            for k in lines {
                let Some((rect, tspan)) = self.lines.get(&(i, k)) else { continue };
                if let Some(r) = rect {
                    set(r, &line_bg_class(new, i, k));
                }
                if let Some(t) = tspan {
                    set(t, new.line(i, k).trim());
                }
            }
        }
        for &e in old.edges.keys().chain(new.edges.keys()).collect::<BTreeSet<_>>() {
            if let Some(el) = self.edges.get(&e) {
                set(el, &edge_class(g, new, e));
            }
        }
        let has_badges = |d: &Decor| d.nodes.values().any(|n| !n.entry.is_empty() || !n.exit.is_empty());
        if has_badges(old) || has_badges(new) {
            if let Some(layer) = &self.badges {
                layer.set_inner_html(&badge_layer(g, lay, style, new));
            }
        }
        let f = frame(lay, style, new);
        if f != frame(lay, style, old) {
            let _ = self.svg.set_attribute("width", &N(f[2]).to_string());
            let _ = self.svg.set_attribute("height", &N(f[3]).to_string());
            let _ = self.svg.set_attribute("viewBox", &format!("{} {} {} {}", N(f[0]), N(f[1]), N(f[2]), N(f[3])));
        }
    }
}
