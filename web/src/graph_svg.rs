//! A directed graph of code boxes → SVG, laid out by layout-rs.
//!
//! Every graph view (CFG, dominator trees, CDG) builds a [`Graph`] of plain data and calls
//! [`render_svg`]. layout-rs only places things here: its own SVG writer draws centred Times
//! text in boxes it does not size, so we size each box from its text (monospace, about
//! [`Style::char_width`] × font size per character), take the positions and edge curves it
//! computes through a recording [`RenderBackend`], and write the SVG ourselves: left-aligned
//! monospace code under a bold title, cropped to what was drawn.
//!
//! Two things keep layout-rs fast (see docs/toolchain.md): its exponential DAG validation is
//! switched off, and edges are added in reverse postorder from node 0, so a back edge is
//! always seen after the path it closes and is simply reversed.

use layout::core::base::Orientation;
use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::StyleAttr;
use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
use layout::topo::layout::VisualGraph;
use std::fmt::Write as _;

/// One box: a title line (block name) and the code lines under it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Node {
    /// Written to `data-id`; stable across re-renders (e.g. the block name).
    pub id: String,
    pub title: String,
    pub lines: Vec<String>,
    /// Extra CSS classes for the node's `<g>` (e.g. `unreachable`, `live`).
    pub class: String,
}

impl Node {
    pub fn new(id: impl Into<String>, title: impl Into<String>, lines: Vec<String>) -> Node {
        Node { id: id.into(), title: title.into(), lines, class: String::new() }
    }
}

/// How an edge is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EdgeKind {
    #[default]
    Normal,
    /// The taken side of a two-way branch.
    True,
    /// The not-taken side of a two-way branch.
    False,
    Dashed,
}

#[derive(Clone, Debug, Default, PartialEq)]
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
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

/// Sizes and colours of the drawing.
#[derive(Clone, Debug, PartialEq)]
pub struct Style {
    /// Code font size in px.
    pub font_size: f64,
    /// Width of one monospace character as a fraction of the font size.
    pub char_width: f64,
    /// Line height as a fraction of the font size.
    pub line_height: f64,
    /// Padding inside a box, px.
    pub padding: f64,
    /// Margin around the cropped drawing, px.
    pub margin: f64,
    /// Prefix for ids inside the SVG (arrow markers), so several SVGs can share a page.
    pub id_prefix: String,
}

impl Default for Style {
    fn default() -> Style {
        Style {
            font_size: 13.0,
            char_width: 0.62,
            line_height: 1.3,
            padding: 6.0,
            margin: 6.0,
            id_prefix: "g".to_string(),
        }
    }
}

impl Style {
    /// Font size of edge labels, px (a whole number: layout-rs sizes label boxes by it).
    pub fn label_font_size(&self) -> f64 {
        (self.font_size * 0.85).round()
    }

    /// The box size for a node's text.
    pub fn box_size(&self, node: &Node) -> (f64, f64) {
        let chars = node
            .lines
            .iter()
            .map(|l| l.chars().count())
            .chain(std::iter::once(node.title.chars().count()))
            .max()
            .unwrap_or(0)
            .max(2);
        let rows = 1 + node.lines.len();
        let w = chars as f64 * self.char_width * self.font_size + 2.0 * self.padding;
        let h = rows as f64 * self.line_height * self.font_size + 2.0 * self.padding;
        (w.ceil(), h.ceil())
    }
}

const NODE_TAG: &str = "n";
const EDGE_TAG: &str = "e";

/// An edge as layout-rs routed it. A back edge comes out reversed: drawn from its target,
/// with the arrow head at the start.
struct Route {
    edge: usize,
    /// layout-rs's curve: the first pair is (start, exit control point), every later pair
    /// (entry control point, point).
    path: Vec<(Point, Point)>,
    head_at_start: bool,
    head_at_end: bool,
}

/// Everything layout-rs drew, in its coordinates.
#[derive(Default)]
struct Recorder {
    /// (node index, top-left, size)
    boxes: Vec<(usize, Point, Point)>,
    arrows: Vec<Route>,
    /// Edge labels: (centre, text)
    labels: Vec<(Point, String)>,
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
            self.labels.push((xy, text.to_string()));
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
            self.arrows.push(Route { edge: i, path: path.to_vec(), head_at_start: head.0, head_at_end: head.1 });
        }
    }
    fn create_clip(&mut self, _: Point, _: Point, _: usize) -> ClipHandle {
        0
    }
}

/// Reverse postorder of the nodes: the tree of a DFS from node 0 first, then the trees of
/// DFSs from the nodes it did not reach, in index order.
fn reverse_postorder(g: &Graph) -> Vec<usize> {
    let n = g.nodes.len();
    let mut succ = vec![Vec::new(); n];
    for e in &g.edges {
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

/// Lays out `g` and returns a standalone `<svg>` element (no XML prolog), cropped to its
/// content. Nodes are `<g class="node …" data-id="…">`, edges `<path class="edge …">`.
pub fn render_svg(g: &Graph, style: &Style) -> String {
    if g.nodes.is_empty() {
        return r#"<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="0" height="0"></svg>"#.to_string();
    }
    let mut vg = VisualGraph::new(Orientation::TopToBottom);
    vg.dag.set_validate(false);
    let look = StyleAttr::simple();
    let handles: Vec<_> = g
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            let (w, h) = style.box_size(node);
            let el = Element::create_with_properties(
                ShapeKind::Box(String::new()),
                look.clone(),
                Orientation::TopToBottom,
                Point::new(w, h),
                format!("{NODE_TAG}{i}"),
            );
            vg.add_node(el)
        })
        .collect();

    let mut rank = vec![0usize; g.nodes.len()];
    for (pos, v) in reverse_postorder(g).into_iter().enumerate() {
        rank[v] = pos;
    }
    let mut order: Vec<usize> = (0..g.edges.len()).collect();
    order.sort_by_key(|&i| (rank[g.edges[i].from], i));
    let mut label_look = StyleAttr::simple();
    label_look.font_size = style.label_font_size() as usize;
    for i in order {
        let e = &g.edges[i];
        let mut arrow = Arrow::simple_with_properties(&e.label, format!("{EDGE_TAG}{i}"));
        arrow.look = label_look.clone();
        vg.add_edge(arrow, handles[e.from], handles[e.to]);
    }

    let mut rec = Recorder::default();
    vg.do_it(false, false, false, &mut rec);
    write_svg(g, style, &rec)
}

/// Bounding box accumulator.
struct BBox {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl BBox {
    fn new() -> BBox {
        BBox { x0: f64::INFINITY, y0: f64::INFINITY, x1: f64::NEG_INFINITY, y1: f64::NEG_INFINITY }
    }
    fn add(&mut self, x: f64, y: f64) {
        self.x0 = self.x0.min(x);
        self.y0 = self.y0.min(y);
        self.x1 = self.x1.max(x);
        self.y1 = self.y1.max(y);
    }
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
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
    out
}

/// A coordinate with one decimal, without a trailing `.0`.
fn num(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

fn edge_colour(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::Normal | EdgeKind::Dashed => "#444",
        EdgeKind::True => "#1a7f37",
        EdgeKind::False => "#cf222e",
    }
}

fn edge_class(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::Normal => "edge",
        EdgeKind::True => "edge edge-true",
        EdgeKind::False => "edge edge-false",
        EdgeKind::Dashed => "edge edge-dashed",
    }
}

fn write_svg(g: &Graph, style: &Style, rec: &Recorder) -> String {
    let fs = style.font_size;
    let lh = style.line_height * fs;
    let label_fs = style.label_font_size();
    let mut bb = BBox::new();
    for (_, xy, size) in &rec.boxes {
        bb.add(xy.x, xy.y);
        bb.add(xy.x + size.x, xy.y + size.y);
    }
    for route in &rec.arrows {
        for (a, b) in &route.path {
            bb.add(a.x, a.y);
            bb.add(b.x, b.y);
        }
    }
    for (p, text) in &rec.labels {
        let half = text.chars().count() as f64 * style.char_width * label_fs / 2.0;
        bb.add(p.x - half, p.y - label_fs);
        bb.add(p.x + half, p.y + label_fs);
    }
    let m = style.margin;
    let (x0, y0) = (bb.x0 - m, bb.y0 - m);
    let (w, h) = (bb.x1 - bb.x0 + 2.0 * m, bb.y1 - bb.y0 + 2.0 * m);
    let p = &style.id_prefix;

    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="{}" height="{}" viewBox="{} {} {} {}" font-family="ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace" font-size="{}">"#,
        num(w),
        num(h),
        num(x0),
        num(y0),
        num(w),
        num(h),
        num(fs)
    );
    s.push_str("<defs>");
    for kind in [EdgeKind::Normal, EdgeKind::True, EdgeKind::False] {
        let c = edge_colour(kind);
        let id = marker_id(p, kind);
        let _ = write!(
            s,
            r#"<marker id="{id}-end" markerWidth="10" markerHeight="7" refX="10" refY="3.5" orient="auto"><polygon points="0 0, 10 3.5, 0 7" fill="{c}"/></marker><marker id="{id}-start" markerWidth="10" markerHeight="7" refX="0" refY="3.5" orient="auto"><polygon points="10 0, 10 7, 0 3.5" fill="{c}"/></marker>"#
        );
    }
    s.push_str("</defs>");

    s.push_str(r#"<g class="edges" fill="none">"#);
    for route in &rec.arrows {
        let (e, path) = (&g.edges[route.edge], &route.path);
        let mut d = String::new();
        if path.len() >= 2 {
            let _ = write!(
                d,
                "M{} {} C{} {} {} {} {} {}",
                num(path[0].0.x),
                num(path[0].0.y),
                num(path[0].1.x),
                num(path[0].1.y),
                num(path[1].0.x),
                num(path[1].0.y),
                num(path[1].1.x),
                num(path[1].1.y)
            );
            for q in &path[2..] {
                let _ = write!(d, " S{} {} {} {}", num(q.0.x), num(q.0.y), num(q.1.x), num(q.1.y));
            }
        }
        let id = marker_id(p, e.kind);
        let _ = write!(
            s,
            r#"<path class="{}" data-from="{}" data-to="{}" d="{d}" stroke="{}" stroke-width="1.5"{}{}{}/>"#,
            edge_class(e.kind),
            escape(&g.nodes[e.from].id),
            escape(&g.nodes[e.to].id),
            edge_colour(e.kind),
            if e.kind == EdgeKind::Dashed { r#" stroke-dasharray="5,4""# } else { "" },
            if route.head_at_start { format!(r#" marker-start="url(#{id}-start)""#) } else { String::new() },
            if route.head_at_end { format!(r#" marker-end="url(#{id}-end)""#) } else { String::new() },
        );
    }
    s.push_str("</g>");

    s.push_str(r#"<g class="nodes">"#);
    for (i, xy, size) in &rec.boxes {
        let node = &g.nodes[*i];
        let class = if node.class.is_empty() { "node".to_string() } else { format!("node {}", escape(&node.class)) };
        let _ = write!(
            s,
            r##"<g class="{class}" data-id="{}"><rect x="{}" y="{}" width="{}" height="{}" rx="3" fill="#fff" stroke="#333" stroke-width="1.2"/>"##,
            escape(&node.id),
            num(xy.x),
            num(xy.y),
            num(size.x),
            num(size.y)
        );
        let left = xy.x + style.padding;
        // Baseline of the first row: padding plus the ascent (~0.8 em) plus half the leading.
        let first = xy.y + style.padding + 0.8 * fs + (lh - fs) / 2.0;
        if node.lines.is_empty() {
            let _ = write!(
                s,
                r#"<text class="title" x="{}" y="{}" text-anchor="middle" font-weight="bold">{}</text>"#,
                num(xy.x + size.x / 2.0),
                num(first),
                escape(&node.title)
            );
        } else {
            let _ = write!(
                s,
                r#"<text class="title" x="{}" y="{}" font-weight="bold">{}</text>"#,
                num(left),
                num(first),
                escape(&node.title)
            );
            s.push_str(r#"<text class="code" xml:space="preserve">"#);
            for (k, line) in node.lines.iter().enumerate() {
                let _ = write!(
                    s,
                    r#"<tspan x="{}" y="{}">{}</tspan>"#,
                    num(left),
                    num(first + (k + 1) as f64 * lh),
                    escape(line)
                );
            }
            s.push_str("</text>");
        }
        s.push_str("</g>");
    }
    s.push_str("</g>");

    if !rec.labels.is_empty() {
        let _ = write!(s, r##"<g class="edge-labels" font-size="{}" text-anchor="middle" fill="#333">"##, num(label_fs));
        for (p, text) in &rec.labels {
            let _ = write!(
                s,
                r#"<text x="{}" y="{}" dominant-baseline="middle">{}</text>"#,
                num(p.x),
                num(p.y),
                escape(text)
            );
        }
        s.push_str("</g>");
    }
    s.push_str("</svg>");
    s
}

fn marker_id(prefix: &str, kind: EdgeKind) -> String {
    let k = match kind {
        EdgeKind::True => "t",
        EdgeKind::False => "f",
        EdgeKind::Normal | EdgeKind::Dashed => "n",
    };
    format!("{prefix}-arrow-{k}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diamond() -> Graph {
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

    /// The numbers of an attribute on every element that has it.
    fn attr(svg: &str, name: &str) -> Vec<f64> {
        let key = format!(" {name}=\"");
        svg.match_indices(&key)
            .map(|(i, _)| {
                let rest = &svg[i + key.len()..];
                rest[..rest.find('"').unwrap()].parse().unwrap()
            })
            .collect()
    }

    #[test]
    fn draws_every_node_with_its_code_and_every_edge() {
        let svg = render_svg(&diamond(), &Style::default());
        assert!(svg.starts_with("<svg"), "{svg}");
        for name in ["entry", "left", "right", "end"] {
            assert!(svg.contains(&format!(r#"data-id="{name}""#)), "{name} missing");
            assert!(svg.contains(&format!(">{name}</text>")), "title {name} missing");
        }
        assert!(svg.contains(">br c .left .right;</tspan>"));
        assert_eq!(svg.matches("<path class=\"edge").count(), 4);
        assert_eq!(svg.matches("edge-true").count(), 1);
        assert_eq!(svg.matches("edge-false").count(), 1);
    }

    #[test]
    fn entry_is_on_top_and_the_svg_is_cropped_to_the_boxes() {
        let style = Style::default();
        let svg = render_svg(&diamond(), &style);
        let ys = attr(&svg, "y");
        let rect_ys: Vec<f64> = svg
            .match_indices("<rect ")
            .map(|(i, _)| attr(&svg[i..i + 80], "y")[0])
            .collect();
        assert_eq!(rect_ys.len(), 4);
        assert!(rect_ys[0] < rect_ys[1] && rect_ys[0] < rect_ys[2] && rect_ys[1] < rect_ys[3]);
        // viewBox starts one margin before the topmost box and is not much taller than the
        // boxes: layout-rs's own SVG leaves a large empty area below.
        let vb = &svg[svg.find("viewBox=\"").unwrap() + 9..];
        let vb: Vec<f64> = vb[..vb.find('"').unwrap()].split(' ').map(|x| x.parse().unwrap()).collect();
        let top = rect_ys.iter().cloned().fold(f64::INFINITY, f64::min);
        assert!((vb[1] - (top - style.margin)).abs() < 0.2, "{vb:?} vs {top}");
        let bottom = ys.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        assert!(vb[1] + vb[3] < bottom + 60.0, "{vb:?} vs {bottom}");
    }

    #[test]
    fn boxes_fit_their_longest_line() {
        let style = Style::default();
        let n = Node::new("b", "b", vec!["x".repeat(40)]);
        let (w, h) = style.box_size(&n);
        assert!(w >= 40.0 * 0.6 * style.font_size, "{w}");
        assert!(h >= 2.0 * style.font_size, "{h}");
    }

    #[test]
    fn text_is_escaped() {
        let g = Graph { nodes: vec![Node::new("a&b", "<a>", vec!["x < \"y\"".into()])], edges: vec![] };
        let svg = render_svg(&g, &Style::default());
        assert!(svg.contains("&lt;a&gt;") && svg.contains("x &lt; &quot;y&quot;") && svg.contains("a&amp;b"));
        assert!(!svg.contains("<a>"));
    }

    #[test]
    fn loops_self_loops_labels_and_unreachable_nodes() {
        let mut g = diamond();
        g.edges.push(Edge::new(3, 0)); // back edge
        g.edges.push(Edge::new(1, 1)); // self loop
        g.edges.push(Edge { label: "T".into(), ..Edge::new(2, 1) });
        g.nodes.push(Node::new("dead", "dead", vec![]));
        let svg = render_svg(&g, &Style::default());
        assert_eq!(svg.matches("<rect ").count(), 5);
        assert_eq!(svg.matches("<path class=\"edge").count(), 7);
        assert!(svg.contains(">T</text>"));
        assert!(render_svg(&Graph::default(), &Style::default()).starts_with("<svg"));
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
            let svg = render_svg(&g, &Style::default());
            assert_eq!(svg.matches("<rect ").count(), n, "{edges:?}");
            assert_eq!(svg.matches("<path class=\"edge").count(), edges.len(), "{edges:?}");
        }
    }

    #[test]
    fn a_long_chain_with_back_edges_lays_out_quickly() {
        let n = 200;
        let mut g = Graph::default();
        for i in 0..n {
            g.nodes.push(Node::new(format!("b{i}"), format!("b{i}"), vec![format!("v{i}: int = add a b;")]));
        }
        for i in 0..n - 1 {
            g.edges.push(Edge::new(i, i + 1));
            if i % 5 == 4 {
                g.edges.push(Edge::new(i, i - 3));
            }
        }
        let t = std::time::Instant::now();
        let svg = render_svg(&g, &Style::default());
        assert_eq!(svg.matches("<rect ").count(), n);
        assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
    }
}
