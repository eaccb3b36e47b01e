//! Where everything goes, computed by layout-rs; plain serde data, so a worker can compute it.
//!
//! layout-rs only places things here: its own SVG writer draws centred Times text in boxes it
//! does not size, so we size each box from its text ([`Style::box_size`]) and record the
//! positions and edge curves it computes through a recording [`RenderBackend`].
//!
//! What keeps it fast: layers and the order within them come from [`super::layers`] (layout-rs
//! only assigns coordinates and draws self loops), and its exponential DAG validation is
//! switched off.

use super::layers::{Kind, Layers};
use super::{Graph, Style};
use layout::core::base::Orientation;
use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::StyleAttr;
use layout::std_shapes::render::generate_curve_for_elements;
use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
use layout::topo::layout::VisualGraph;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn right(&self) -> f64 {
        self.x + self.w
    }
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
    pub fn centre_x(&self) -> f64 {
        self.x + self.w / 2.0
    }
}

/// An edge as layout-rs routed it: a cubic Bézier spline. `path[0]` is (start, first control
/// point), every later entry (control point, point), each as `[x0, y0, x1, y1]`. A back edge
/// comes out reversed: drawn from its target, with the arrow head at the start.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Route {
    pub path: Vec<[f64; 4]>,
    pub head_at_start: bool,
    pub head_at_end: bool,
}

/// An edge label's centre and text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Label {
    pub x: f64,
    pub y: f64,
    pub text: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    /// [`Graph::layout_key`] of the graph and style this was computed for.
    pub key: u64,
    /// Per node index: its box (without the badge band). `None` only if layout-rs dropped it.
    pub nodes: Vec<Option<Rect>>,
    /// Per edge index: its route (`None` for an edge with an invalid end).
    pub edges: Vec<Option<Route>>,
    pub labels: Vec<Label>,
    /// What was drawn plus the style's margin: the SVG's viewBox before badges.
    pub bbox: Rect,
}

const NODE_TAG: &str = "n";
const EDGE_TAG: &str = "e";

/// Everything layout-rs drew, in its coordinates.
#[derive(Default)]
struct Recorder {
    boxes: Vec<(usize, Point, Point)>,
    routes: Vec<(usize, Route)>,
    labels: Vec<Label>,
}

fn tagged(props: &Option<String>, tag: &str) -> Option<usize> {
    props.as_deref()?.strip_prefix(tag)?.parse().ok()
}

impl RenderBackend for Recorder {
    fn draw_rect(&mut self, xy: Point, size: Point, _: &StyleAttr, props: Option<String>, _: Option<ClipHandle>) {
        if let Some(i) = tagged(&props, NODE_TAG) {
            self.boxes.push((i, xy, size));
        }
    }
    fn draw_line(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}
    fn draw_circle(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}
    fn draw_text(&mut self, xy: Point, text: &str, _: &StyleAttr) {
        // Boxes carry no text of their own; what is left are edge labels.
        if !text.is_empty() {
            self.labels.push(Label { x: xy.x, y: xy.y, text: text.to_string() });
        }
    }
    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        _dashed: bool,
        head: (bool, bool),
        _: &StyleAttr,
        props: Option<String>,
        _text: &str,
    ) {
        if let Some(i) = tagged(&props, EDGE_TAG) {
            let path = path.iter().map(|(a, b)| [a.x, a.y, b.x, b.y]).collect();
            self.routes.push((i, Route { path, head_at_start: head.0, head_at_end: head.1 }));
        }
    }
    fn create_clip(&mut self, _: Point, _: Point, _: usize) -> ClipHandle {
        0
    }
}

/// Barycentre sweeps per layout (each one down and one up): enough to settle structured CFGs.
const ORDER_ROUNDS: usize = 12;

/// Places every node and routes every edge of `g`.
pub fn layout(g: &Graph, style: &Style) -> Layout {
    let key = g.layout_key(style);
    if g.nodes.is_empty() {
        return Layout { key, ..Layout::default() };
    }
    let mut layers = Layers::build(g);
    layers.reduce_crossings(ORDER_ROUNDS);

    let band = style.badge_band.max(0.0);
    let dir = Orientation::TopToBottom;
    let mut vg = VisualGraph::new(dir);
    vg.dag.set_validate(false);
    let look = StyleAttr::simple();
    let mut label_look = StyleAttr::simple();
    label_look.font_size = style.label_font_size() as usize;
    // layout-rs ranks nodes by longest path and keeps them in the order they were added: add
    // them layer by layer, each row in our order, and every edge one layer long.
    let mut handle = vec![None; layers.kind.len()];
    for row in &layers.rows {
        for &v in row {
            let el = match layers.kind[v] {
                Kind::Node(i) => {
                    let (w, h) = style.box_size(&g.nodes[i]);
                    let size = Point::new(w, h + 2.0 * band);
                    Element::create_with_properties(
                        ShapeKind::Box(String::new()),
                        look.clone(),
                        dir,
                        size,
                        format!("{NODE_TAG}{i}"),
                    )
                }
                Kind::Dummy => Element::empty_connector(dir),
                Kind::Label(e) => Element::create_connector(&g.edges[e].label, &label_look, dir),
            };
            handle[v] = Some(vg.add_node(el));
        }
    }
    let h = |v: usize| handle[v].expect("every layered node is in a row");
    // Layer-to-layer links go straight into layout-rs's DAG, not in as arrows: it would draw
    // every arrow, and it cannot draw one that starts at a dummy. We draw the chains below.
    for row in &layers.rows {
        for &u in row {
            for &w in &layers.down[u] {
                vg.dag.add_edge(h(u), h(w));
            }
        }
    }
    for &i in &layers.self_loops {
        let e = &g.edges[i];
        let mut arrow = Arrow::simple_with_properties(&e.label, format!("{EDGE_TAG}{i}"));
        arrow.look = label_look.clone();
        vg.add_edge(arrow, h(e.from), h(e.from));
    }

    let mut rec = Recorder::default();
    // Our order is final: layout-rs's own optimisations stay off.
    vg.do_it(false, true, false, &mut rec);
    for c in &layers.chains {
        let elements: Vec<Element> = c.nodes.iter().map(|&v| vg.element(h(v)).clone()).collect();
        let path = generate_curve_for_elements(&elements, &Arrow::simple(""), 30.0);
        let path = path.iter().map(|(a, b)| [a.x, a.y, b.x, b.y]).collect();
        rec.routes.push((c.edge, Route { path, head_at_start: c.reversed, head_at_end: !c.reversed }));
    }
    collect(g, style, rec, key)
}

/// A plain layout without layout-rs: the same layers and order, boxes side by side in each
/// row, edges straight through their dummies. Used when a layout worker crashed on a graph, so
/// the page shows something instead of retrying (and crashing) on the main thread.
pub fn fallback_layout(g: &Graph, style: &Style) -> Layout {
    let key = g.layout_key(style);
    let mut layers = Layers::build(g);
    layers.reduce_crossings(2);
    let band = style.badge_band.max(0.0);
    let (gap_x, gap_y) = (20.0, 40.0 + 2.0 * band);
    let size = |v: usize| match layers.kind[v] {
        Kind::Node(i) => style.box_size(&g.nodes[i]),
        Kind::Label(e) => (g.edges[e].label.chars().count() as f64 * style.char_width * style.label_font_size(), 10.0),
        Kind::Dummy => (10.0, 10.0),
    };
    let mut centre = vec![(0.0, 0.0); layers.kind.len()];
    let mut rec = Recorder::default();
    let mut y = style.margin + band;
    for row in &layers.rows {
        let height = row.iter().map(|&v| size(v).1).fold(0.0, f64::max);
        let mut x = style.margin;
        for &v in row {
            let (w, h) = size(v);
            centre[v] = (x + w / 2.0, y + height / 2.0);
            match layers.kind[v] {
                Kind::Node(i) => {
                    rec.boxes.push((i, Point::new(x, y + (height - h) / 2.0 - band), Point::new(w, h + 2.0 * band)))
                }
                Kind::Label(e) => {
                    rec.labels.push(Label { x: x + w / 2.0, y: y + height / 2.0, text: g.edges[e].label.clone() })
                }
                Kind::Dummy => {}
            }
            x += w + gap_x;
        }
        y += height + gap_y;
    }
    for c in &layers.chains {
        // From centre to centre (the boxes, painted later, cover the ends); each control point
        // on its point, so every piece is straight.
        let path = c.nodes.iter().map(|&v| [centre[v].0, centre[v].1, centre[v].0, centre[v].1]).collect();
        rec.routes.push((c.edge, Route { path, head_at_start: c.reversed, head_at_end: !c.reversed }));
    }
    for &i in &layers.self_loops {
        let (x, y) = centre[g.edges[i].from];
        let path = vec![[x, y, x + 40.0, y - 20.0], [x + 40.0, y + 20.0, x, y]];
        rec.routes.push((i, Route { path, head_at_start: false, head_at_end: true }));
    }
    collect(g, style, rec, key)
}

/// Rounded to 1/100 px: finer than any screen, shorter in a worker message, and such a
/// number survives a JSON round trip exactly (serde_json's fast float parsing is exact for
/// short decimals), so a worker's layout equals the main thread's.
fn r2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn collect(g: &Graph, style: &Style, mut rec: Recorder, key: u64) -> Layout {
    for (_, xy, size) in &mut rec.boxes {
        *xy = Point::new(r2(xy.x), r2(xy.y));
        *size = Point::new(r2(size.x), r2(size.y));
    }
    for (_, route) in &mut rec.routes {
        for p in &mut route.path {
            p.iter_mut().for_each(|v| *v = r2(*v));
        }
    }
    for l in &mut rec.labels {
        (l.x, l.y) = (r2(l.x), r2(l.y));
    }
    let band = style.badge_band.max(0.0);
    let mut nodes = vec![None; g.nodes.len()];
    let mut bb = BBox::new();
    for (i, xy, size) in rec.boxes {
        bb.add(xy.x, xy.y);
        bb.add(xy.x + size.x, xy.y + size.y);
        if let Some(slot) = nodes.get_mut(i) {
            *slot = Some(Rect { x: xy.x, y: xy.y + band, w: size.x, h: (size.y - 2.0 * band).max(0.0) });
        }
    }
    let mut edges = vec![None; g.edges.len()];
    for (i, route) in rec.routes {
        for p in &route.path {
            bb.add(p[0], p[1]);
            bb.add(p[2], p[3]);
        }
        if let Some(slot) = edges.get_mut(i) {
            *slot = Some(route);
        }
    }
    let label_fs = style.label_font_size();
    for l in &rec.labels {
        let half = l.text.chars().count() as f64 * style.char_width * label_fs / 2.0;
        bb.add(l.x - half, l.y - label_fs);
        bb.add(l.x + half, l.y + label_fs);
    }
    let m = style.margin;
    let bbox = if bb.x0.is_finite() {
        Rect { x: bb.x0 - m, y: bb.y0 - m, w: bb.x1 - bb.x0 + 2.0 * m, h: bb.y1 - bb.y0 + 2.0 * m }
    } else {
        Rect::default()
    };
    Layout { key, nodes, edges, labels: rec.labels, bbox }
}

/// Bounding box accumulator.
pub(crate) struct BBox {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl BBox {
    pub fn new() -> BBox {
        BBox { x0: f64::INFINITY, y0: f64::INFINITY, x1: f64::NEG_INFINITY, y1: f64::NEG_INFINITY }
    }
    pub fn add(&mut self, x: f64, y: f64) {
        self.x0 = self.x0.min(x);
        self.y0 = self.y0.min(y);
        self.x1 = self.x1.max(x);
        self.y1 = self.y1.max(y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::fixtures::{chain, diamond};
    use crate::graph::{paint, Edge, Node};

    fn boxes(l: &Layout) -> Vec<Rect> {
        l.nodes.iter().map(|r| r.expect("every node placed")).collect()
    }

    #[test]
    fn entry_on_top_boxes_sized_from_text_and_inside_the_bbox() {
        let g = diamond();
        let style = Style::default();
        let l = layout(&g, &style);
        let b = boxes(&l);
        assert_eq!(b.len(), 4);
        assert!(b[0].y < b[1].y && b[0].y < b[2].y && b[1].y < b[3].y, "{b:?}");
        assert!((b[1].y - b[2].y).abs() < 0.1, "left and right share a rank: {b:?}");
        for (r, n) in b.iter().zip(&g.nodes) {
            let (w, h) = style.box_size(n);
            assert_eq!((r.w, r.h), (w, h));
            assert!(r.x >= l.bbox.x + style.margin - 0.01 && r.right() <= l.bbox.right() - style.margin + 0.01);
            assert!(r.y >= l.bbox.y && r.bottom() <= l.bbox.bottom());
        }
        // Cropped: layout-rs's own SVG leaves a large empty area below.
        let lowest = b.iter().map(Rect::bottom).fold(f64::MIN, f64::max);
        assert!(l.bbox.bottom() < lowest + 40.0, "{:?} vs {lowest}", l.bbox);
        assert!(l.edges.iter().all(Option::is_some));
        assert_eq!(l.key, g.layout_key(&style));
    }

    #[test]
    fn edges_leave_the_source_and_reach_the_target() {
        let g = diamond();
        let l = layout(&g, &Style::default());
        let b = boxes(&l);
        // On the rectangle's outline, give or take 2 px.
        let on_outline = |x: f64, y: f64, r: Rect| {
            let inside = |m: f64| x > r.x - m && x < r.right() + m && y > r.y - m && y < r.bottom() + m;
            inside(2.0) && !inside(-2.0)
        };
        for (e, r) in g.edges.iter().zip(&l.edges) {
            let r = r.as_ref().unwrap();
            let first = r.path.first().unwrap();
            let last = r.path.last().unwrap();
            let (from, to) = (b[e.from], b[e.to]);
            assert!(on_outline(first[0], first[1], from), "{first:?} {from:?}");
            assert!(on_outline(last[2], last[3], to), "{last:?} {to:?}");
            assert!(r.head_at_end && !r.head_at_start);
        }
    }

    #[test]
    fn a_badge_band_moves_boxes_apart_and_edges_stop_at_the_band() {
        let g = diamond();
        let plain = boxes(&layout(&g, &Style::default()));
        let style = Style::with_badges();
        let l = layout(&g, &style);
        let banded = boxes(&l);
        let gap = |b: &[Rect]| b[1].y - b[0].bottom();
        assert!(gap(&banded) >= gap(&plain) + 2.0 * style.badge_band - 0.5, "{} vs {}", gap(&banded), gap(&plain));
        let route = l.edges[2].as_ref().unwrap();
        let last = route.path.last().unwrap();
        assert!((last[3] - (banded[3].y - style.badge_band)).abs() < 2.0, "{last:?}");
        assert!(l.bbox.y <= banded[0].y - style.badge_band);
    }

    #[test]
    fn loops_self_loops_labels_bad_edges_and_unreachable_nodes() {
        let mut g = diamond();
        g.edges.push(Edge::new(3, 0)); // back edge
        g.edges.push(Edge::new(1, 1)); // self loop
        g.edges.push(Edge { label: "T".into(), ..Edge::new(2, 1) });
        g.edges.push(Edge::new(2, 99)); // invalid: ignored
        g.nodes.push(Node::new("dead", "dead", vec![]));
        let l = layout(&g, &Style::default());
        assert_eq!(l.nodes.iter().flatten().count(), 5);
        assert_eq!(l.edges.len(), 8);
        assert_eq!(l.edges.iter().flatten().count(), 7);
        assert!(l.edges[7].is_none());
        let back = l.edges[4].as_ref().unwrap();
        assert!(back.head_at_start || back.head_at_end);
        assert_eq!(l.labels.len(), 1);
        assert_eq!(l.labels[0].text, "T");
        assert_eq!(layout(&Graph::default(), &Style::default()).nodes.len(), 0);
    }

    #[test]
    fn odd_shapes_do_not_panic() {
        let node = |n: &str| Node::new(n, n, vec![format!("{n}: int = const 1;")]);
        let shapes: Vec<(usize, Vec<(usize, usize)>)> = vec![
            (1, vec![(0, 0)]),                         // the entry loops on itself
            (2, vec![(0, 1), (0, 1)]),                 // br c .a .a
            (2, vec![(0, 1), (1, 0)]),                 // a two-block cycle
            (3, vec![(0, 1), (1, 2), (2, 0), (2, 2)]), // cycle through the entry + self loop
            (3, vec![(1, 2), (2, 1)]),                 // entry disconnected from a cycle
            (4, vec![(0, 3), (0, 1), (1, 2), (2, 3)]), // a long and a short path
        ];
        for (n, edges) in shapes {
            let g = Graph {
                nodes: (0..n).map(|i| node(&format!("b{i}"))).collect(),
                edges: edges.iter().map(|&(a, b)| Edge::new(a, b)).collect(),
            };
            let l = layout(&g, &Style::default());
            assert_eq!(l.nodes.iter().flatten().count(), n, "{edges:?}");
            assert_eq!(l.edges.iter().flatten().count(), edges.len(), "{edges:?}");
        }
    }

    // proptest is a native-only dev-dependency (the wasm test build has none).
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, failure_persistence: None, ..Default::default() })]
        /// Any graph — cycles, self loops, parallel and labelled edges, edges to nowhere — is
        /// laid out without a panic (a panic in the browser kills the page), every node placed
        /// and every valid edge routed.
        #[test]
        fn any_graph_lays_out(n in 1usize..24, raw in proptest::collection::vec((0usize..26, 0usize..26, 0u8..4), 0..48)) {
            let g = Graph {
                nodes: (0..n).map(|i| Node::new(format!("b{i}"), format!("b{i}"), vec!["x".repeat(i % 7)])).collect(),
                edges: raw.iter().map(|&(a, b, k)| Edge { label: if k == 3 { "T".into() } else { String::new() }, ..Edge::new(a, b) }).collect(),
            };
            let l = layout(&g, &Style::default());
            proptest::prop_assert_eq!(l.nodes.iter().flatten().count(), n);
            for (e, r) in g.edges.iter().zip(&l.edges) {
                let valid = e.from < n && e.to < n;
                proptest::prop_assert_eq!(r.is_some(), valid, "{:?}", e);
                if let Some(r) = r {
                    proptest::prop_assert!(r.path.len() >= 2 && (r.head_at_start || r.head_at_end));
                }
            }
        }
    }

    #[test]
    fn regression_two_edges_between_the_same_nodes_one_labelled() {
        let mut g = Graph { nodes: (0..12).map(|i| Node::new(format!("b{i}"), "t", vec![])).collect(), edges: vec![] };
        for (a, b, label) in [(8, 4, ""), (4, 11, "T"), (0, 1, ""), (0, 8, ""), (8, 11, ""), (11, 4, "")] {
            g.edges.push(Edge { label: label.into(), ..Edge::new(a, b) });
        }
        let l = layout(&g, &Style::default());
        assert_eq!(l.nodes.iter().flatten().count(), 12);
    }

    #[test]
    fn the_fallback_layout_places_everything_by_layer() {
        let mut g = diamond();
        g.edges.push(Edge::new(3, 0));
        g.edges.push(Edge::new(2, 2));
        g.edges.push(Edge { label: "T".into(), ..Edge::new(0, 3) });
        let style = Style::with_badges();
        let l = fallback_layout(&g, &style);
        let b = boxes(&l);
        assert!(b[0].bottom() < b[1].y && b[1].bottom() < b[3].y, "{b:?}");
        assert!((b[1].y - b[2].y).abs() < 20.0 && (b[1].right() <= b[2].x || b[2].right() <= b[1].x), "{b:?}");
        assert!(l.edges.iter().all(Option::is_some));
        assert_eq!(l.labels.len(), 1);
        assert_eq!(l.key, g.layout_key(&style));
        for r in &b {
            assert!(r.y - style.badge_band >= l.bbox.y && r.bottom() <= l.bbox.bottom());
        }
        let svg = paint(&g, &l, &style, &crate::graph::Decor::new());
        assert_eq!(svg.matches("<g class=\"node\"").count(), 4);
    }

    #[test]
    fn a_layout_survives_json() {
        let l = layout(&chain(12), &Style::default());
        let back: Layout = serde_json::from_str(&serde_json::to_string(&l).unwrap()).unwrap();
        assert_eq!(back, l);
    }
}
