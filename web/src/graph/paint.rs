//! A laid-out graph and its decorations → a standalone `<svg>` string.
//!
//! Called on every step of a pass, so it only formats: no layout, no measuring. Colours are CSS
//! classes (static/css/graph.css), with presentation attributes as a fallback for a drawing
//! shown without the stylesheet.
//!
//! The shape of the output, which the stylesheet, GraphView's click handling and the tests
//! rely on:
//!
//! ```text
//! svg.optlab-graph
//!   g.edges > path.edge[.edge-true|.edge-false|.edge-dashed][data-edge][data-from][data-to]
//!   g.nodes > g.node[data-id][data-index]
//!     path.stub (badge band) · rect.box · text.title · rect.line-bg[data-line]
//!     · text.code > tspan[data-line]
//!   g.edge-labels > text
//!   g.badge-layer > g.badges.entry|.exit[data-id][data-index] > g.badge > title, rect.pill, text
//! ```
//!
//! The decorations are only classes and the badge layer, so GraphView can also apply a new
//! decor to a drawing already on the page ([`node_class`], [`edge_class`], [`badge_layer`],
//! [`frame`]) instead of parsing a new one: that is what keeps stepping through a
//! 1,000-block function fast.

use super::layout::BBox;
use super::{escape, escape_into, Badge, Decor, EdgeKind, Graph, Layout, Rect, Style};
use std::fmt::{self, Write as _};

/// A coordinate with at most one decimal, without a trailing `.0`.
pub(crate) struct N(pub f64);

impl fmt::Display for N {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = (self.0 * 10.0).round() / 10.0;
        if !r.is_finite() {
            f.write_str("0")
        } else if r == r.trunc() {
            write!(f, "{}", r as i64)
        } else {
            write!(f, "{r:.1}")
        }
    }
}

fn kind_letter(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::True => "t",
        EdgeKind::False => "f",
        EdgeKind::Normal | EdgeKind::Dashed => "n",
    }
}

fn fallback_colour(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::Normal | EdgeKind::Dashed => "#444",
        EdgeKind::True => "#1a7f37",
        EdgeKind::False => "#cf222e",
    }
}

fn kind_class(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::Normal => "edge",
        EdgeKind::True => "edge edge-true",
        EdgeKind::False => "edge edge-false",
        EdgeKind::Dashed => "edge edge-dashed",
    }
}

/// Size of a badge pill, px.
fn pill_size(style: &Style, b: &Badge) -> (f64, f64) {
    let fs = style.badge_font_size();
    (b.text.chars().count() as f64 * style.char_width * fs + fs, (fs * 1.45).round())
}

/// Where a row of badges goes: left edge and top, for the entry (above) or exit (below) side.
/// With a badge band, badges sit in the band right of the stub; without, they hug the box.
fn badge_row_origin(style: &Style, r: &Rect, h: f64, entry: bool) -> (f64, f64) {
    let band = style.badge_band.max(0.0);
    if band > 0.0 {
        let x = r.centre_x() + 5.0;
        let y = if entry { r.y - (band + h) / 2.0 } else { r.bottom() + (band - h) / 2.0 };
        (x, y)
    } else {
        (r.x, if entry { r.y - h - 2.0 } else { r.bottom() + 2.0 })
    }
}

/// The drawing as a standalone `<svg>` element (no XML prolog), cropped to its content.
/// Never panics: nodes or edges missing from `lay` (a layout of another graph) are skipped.
pub fn paint(g: &Graph, lay: &Layout, style: &Style, decor: &Decor) -> String {
    let fs = style.font_size;
    let lh = style.row_height();
    let band = style.badge_band.max(0.0);
    let p = &style.id_prefix;
    let mut s = String::with_capacity(512 + g.nodes.len() * 400 + g.edges.len() * 160);

    let [x0, y0, w, h] = frame(lay, style, decor);
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="optlab-graph" width="{}" height="{}" viewBox="{} {} {} {}" font-family="ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace" font-size="{}">"#,
        N(w),
        N(h),
        N(x0),
        N(y0),
        N(w),
        N(h),
        N(fs)
    );
    s.push_str("<defs>");
    for kind in [EdgeKind::Normal, EdgeKind::True, EdgeKind::False] {
        let (c, k) = (fallback_colour(kind), kind_letter(kind));
        let _ = write!(
            s,
            r#"<marker id="{p}-arrow-{k}-end" markerWidth="10" markerHeight="7" refX="10" refY="3.5" orient="auto"><polygon class="arrow arrow-{k}" points="0 0, 10 3.5, 0 7" fill="{c}"/></marker><marker id="{p}-arrow-{k}-start" markerWidth="10" markerHeight="7" refX="0" refY="3.5" orient="auto"><polygon class="arrow arrow-{k}" points="10 0, 10 7, 0 3.5" fill="{c}"/></marker>"#
        );
    }
    s.push_str("</defs>");

    paint_edges(&mut s, g, lay, decor, p);
    s.push_str(r#"<g class="nodes">"#);
    for (i, node) in g.nodes.iter().enumerate() {
        let Some(r) = lay.nodes.get(i).copied().flatten() else { continue };
        s.push_str(r#"<g class=""#);
        escape_into(&mut s, &node_class(g, decor, i));
        s.push_str(r#"" data-id=""#);
        escape_into(&mut s, &node.id);
        let _ = write!(s, r#"" data-index="{i}">"#);
        if band > 0.0 {
            let cx = N(r.centre_x());
            let _ = write!(
                s,
                r##"<path class="stub" d="M{cx} {} V{} M{cx} {} V{}" stroke="#444" stroke-width="1.5"/>"##,
                N(r.y - band),
                N(r.y),
                N(r.bottom()),
                N(r.bottom() + band)
            );
        }
        let _ = write!(
            s,
            r##"<rect class="box" x="{}" y="{}" width="{}" height="{}" rx="3" fill="#fff" stroke="#333" stroke-width="1.2"/>"##,
            N(r.x),
            N(r.y),
            N(r.w),
            N(r.h)
        );
        let left = r.x + style.padding;
        // Baseline of the first row: padding plus the ascent (~0.8 em) plus half the leading.
        let first = r.y + style.padding + 0.8 * fs + (lh - fs) / 2.0;
        if node.lines.is_empty() {
            let _ = write!(
                s,
                r#"<text class="title" x="{}" y="{}" text-anchor="middle" font-weight="bold">"#,
                N(r.centre_x()),
                N(first)
            );
        } else {
            let _ = write!(s, r#"<text class="title" x="{}" y="{}" font-weight="bold">"#, N(left), N(first));
        }
        escape_into(&mut s, &node.title);
        s.push_str("</text>");
        if !node.lines.is_empty() {
            // One hit area per row, so a click anywhere on a line selects it.
            for k in 0..node.lines.len() {
                let _ = write!(
                    s,
                    r#"<rect class="{}" data-line="{k}" x="{}" y="{}" width="{}" height="{}" fill="transparent""#,
                    escape(&line_bg_class(decor, i, k)),
                    N(r.x + 1.0),
                    N(r.y + style.padding + (k + 1) as f64 * lh),
                    N(r.w - 2.0),
                    N(lh)
                );
                match node.tip(k) {
                    Some(tip) => {
                        s.push_str("><title>");
                        escape_into(&mut s, tip);
                        s.push_str("</title></rect>");
                    }
                    None => s.push_str("/>"),
                }
            }
            s.push_str(r#"<text class="code" xml:space="preserve">"#);
            for (k, line) in node.lines.iter().enumerate() {
                let class = decor.line(i, k).trim();
                let _ = write!(s, r#"<tspan data-line="{k}""#);
                if !class.is_empty() {
                    let _ = write!(s, r#" class="{}""#, escape(class));
                }
                let _ = write!(s, r#" x="{}" y="{}">"#, N(left), N(first + (k + 1) as f64 * lh));
                // The tooltip on the text too: the glyphs lie over the line's hit area.
                if let Some(tip) = node.tip(k) {
                    s.push_str("<title>");
                    escape_into(&mut s, tip);
                    s.push_str("</title>");
                }
                escape_into(&mut s, line);
                s.push_str("</tspan>");
            }
            s.push_str("</text>");
        }
        s.push_str("</g>");
    }
    s.push_str("</g>");

    if !lay.labels.is_empty() {
        let _ = write!(
            s,
            r##"<g class="edge-labels" font-size="{}" text-anchor="middle" fill="#333">"##,
            N(style.label_font_size())
        );
        for l in &lay.labels {
            let _ = write!(s, r#"<text x="{}" y="{}" dominant-baseline="middle">"#, N(l.x), N(l.y));
            escape_into(&mut s, &l.text);
            s.push_str("</text>");
        }
        s.push_str("</g>");
    }
    s.push_str(r#"<g class="badge-layer">"#);
    s.push_str(&badge_layer(g, lay, style, decor));
    s.push_str("</g></svg>");
    s
}

/// The classes of node `i`'s `<g>`: `node`, the graph's own, the decor's.
pub fn node_class(g: &Graph, decor: &Decor, i: usize) -> String {
    let mut c = String::from("node");
    let own = g.nodes.get(i).map_or("", |n| n.class.as_str());
    for extra in [own, decor.node(i).map_or("", |d| d.class.as_str())] {
        if !extra.trim().is_empty() {
            c.push(' ');
            c.push_str(extra.trim());
        }
    }
    c
}

/// The classes of edge `e`'s `<path>`: `edge`, its kind, the decor's.
pub fn edge_class(g: &Graph, decor: &Decor, e: usize) -> String {
    let mut c = String::from(g.edges.get(e).map_or("edge", |edge| kind_class(edge.kind)));
    if let Some(extra) = decor.edges.get(&e).filter(|c| !c.trim().is_empty()) {
        c.push(' ');
        c.push_str(extra.trim());
    }
    c
}

/// The class of line `k`'s hit area in node `i` (`line-bg` and the decor's).
pub fn line_bg_class(decor: &Decor, i: usize, k: usize) -> String {
    let extra = decor.line(i, k).trim();
    if extra.is_empty() {
        "line-bg".to_string()
    } else {
        format!("line-bg {extra}")
    }
}

/// The viewBox `[x, y, w, h]`: the layout's box, grown by badges that stick out of it.
pub fn frame(lay: &Layout, style: &Style, decor: &Decor) -> [f64; 4] {
    let mut bb = BBox::new();
    bb.add(lay.bbox.x, lay.bbox.y);
    bb.add(lay.bbox.right(), lay.bbox.bottom());
    for (&i, nd) in &decor.nodes {
        let Some(r) = lay.nodes.get(i).copied().flatten() else { continue };
        for (badges, entry) in [(&nd.entry, true), (&nd.exit, false)] {
            let Some(first) = badges.first() else { continue };
            let w: f64 = badges.iter().map(|b| pill_size(style, b).0 + 3.0).sum();
            let h = pill_size(style, first).1;
            let (x, y) = badge_row_origin(style, &r, h, entry);
            bb.add(x - style.margin, y - style.margin);
            bb.add(x + w + style.margin, y + h + style.margin);
        }
    }
    if bb.x0.is_finite() {
        [r1(bb.x0), r1(bb.y0), r1(bb.x1 - bb.x0), r1(bb.y1 - bb.y0)]
    } else {
        [0.0; 4]
    }
}

/// Rounded as [`N`] prints it, so a frame compares equal to the attributes written from it.
fn r1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The badges of every decorated node (the content of `g.badge-layer`).
pub fn badge_layer(g: &Graph, lay: &Layout, style: &Style, decor: &Decor) -> String {
    let mut s = String::new();
    for (&i, nd) in &decor.nodes {
        let (Some(node), Some(r)) = (g.nodes.get(i), lay.nodes.get(i).copied().flatten()) else { continue };
        for (badges, entry) in [(&nd.entry, true), (&nd.exit, false)] {
            paint_badges(&mut s, style, &r, &node.id, i, badges, entry);
        }
    }
    s
}

fn paint_edges(s: &mut String, g: &Graph, lay: &Layout, decor: &Decor, p: &str) {
    s.push_str(r#"<g class="edges" fill="none">"#);
    let n = g.nodes.len();
    for (i, e) in g.edges.iter().enumerate() {
        let Some(route) = lay.edges.get(i).and_then(Option::as_ref) else { continue };
        if e.from >= n || e.to >= n || route.path.len() < 2 {
            continue;
        }
        let path = &route.path;
        s.push_str(r#"<path class=""#);
        escape_into(s, &edge_class(g, decor, i));
        let _ = write!(s, r#"" data-edge="{i}" data-from=""#);
        escape_into(s, &g.nodes[e.from].id);
        s.push_str(r#"" data-to=""#);
        escape_into(s, &g.nodes[e.to].id);
        let _ = write!(
            s,
            r#"" d="M{} {} C{} {} {} {} {} {}"#,
            N(path[0][0]),
            N(path[0][1]),
            N(path[0][2]),
            N(path[0][3]),
            N(path[1][0]),
            N(path[1][1]),
            N(path[1][2]),
            N(path[1][3])
        );
        for q in &path[2..] {
            let _ = write!(s, " S{} {} {} {}", N(q[0]), N(q[1]), N(q[2]), N(q[3]));
        }
        let _ = write!(s, r#"" stroke="{}" stroke-width="1.5""#, fallback_colour(e.kind));
        if e.kind == EdgeKind::Dashed {
            s.push_str(r#" stroke-dasharray="5,4""#);
        }
        let k = kind_letter(e.kind);
        if route.head_at_start {
            let _ = write!(s, r#" marker-start="url(#{p}-arrow-{k}-start)""#);
        }
        if route.head_at_end {
            let _ = write!(s, r#" marker-end="url(#{p}-arrow-{k}-end)""#);
        }
        s.push_str("/>");
    }
    s.push_str("</g>");
}

fn paint_badges(s: &mut String, style: &Style, r: &Rect, id: &str, i: usize, badges: &[Badge], entry: bool) {
    let Some(first) = badges.first() else { return };
    let h = pill_size(style, first).1;
    let (mut x, y) = badge_row_origin(style, r, h, entry);
    let fs = style.badge_font_size();
    let _ = write!(s, r#"<g class="badges {}" data-id=""#, if entry { "entry" } else { "exit" });
    escape_into(s, id);
    let _ = write!(s, r#"" data-index="{i}" font-size="{}">"#, N(fs));
    for b in badges {
        let (w, _) = pill_size(style, b);
        s.push_str(r#"<g class="badge"#);
        if !b.class.is_empty() {
            s.push(' ');
            escape_into(s, &b.class);
        }
        s.push_str(r#"">"#);
        if !b.title.is_empty() {
            s.push_str("<title>");
            escape_into(s, &b.title);
            s.push_str("</title>");
        }
        let _ = write!(
            s,
            r##"<rect class="pill" x="{}" y="{}" width="{}" height="{}" rx="{}" fill="#eef2f6" stroke="#8a96a3"/><text x="{}" y="{}" text-anchor="middle" dominant-baseline="central">"##,
            N(x),
            N(y),
            N(w),
            N(h),
            N(h / 2.0),
            N(x + w / 2.0),
            N(y + h / 2.0)
        );
        escape_into(s, &b.text);
        s.push_str("</text></g>");
        x += w + 3.0;
    }
    s.push_str("</g>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::fixtures::{chain, diamond};
    use crate::graph::{layout, Node};

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

    fn view_box(svg: &str) -> Vec<f64> {
        let vb = &svg[svg.find("viewBox=\"").unwrap() + 9..];
        vb[..vb.find('"').unwrap()].split(' ').map(|x| x.parse().unwrap()).collect()
    }

    fn draw(g: &Graph, d: &Decor) -> String {
        let style = Style::default();
        paint(g, &layout(g, &style), &style, d)
    }

    #[test]
    fn draws_every_node_with_its_code_and_every_edge() {
        let svg = draw(&diamond(), &Decor::new());
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"), "{svg}");
        for (i, name) in ["entry", "left", "right", "end"].iter().enumerate() {
            assert!(svg.contains(&format!(r#"<g class="node" data-id="{name}" data-index="{i}">"#)), "{name} missing");
            assert!(svg.contains(&format!(">{name}</text>")), "title {name} missing");
        }
        assert!(svg.contains(r#"<tspan data-line="1" x="#));
        assert!(svg.contains(">br c .left .right;</tspan>"));
        assert_eq!(svg.matches("<path class=\"edge").count(), 4);
        assert_eq!(svg.matches("edge edge-true").count(), 1);
        assert_eq!(svg.matches("edge edge-false").count(), 1);
        assert_eq!(svg.matches(r#"<rect class="line-bg" data-line="#).count(), 7);
        assert!(svg.contains(r#"marker-end="url(#g-arrow-t-end)""#));
    }

    #[test]
    fn the_svg_is_cropped_to_the_boxes() {
        let style = Style::default();
        let g = diamond();
        let lay = layout(&g, &style);
        let svg = paint(&g, &lay, &style, &Decor::new());
        let vb = view_box(&svg);
        let top = lay.nodes.iter().flatten().map(|r| r.y).fold(f64::INFINITY, f64::min);
        assert!((vb[1] - (top - style.margin)).abs() < 0.2, "{vb:?} vs {top}");
        let bottom = attr(&svg, "y").into_iter().fold(f64::NEG_INFINITY, f64::max);
        assert!(vb[1] + vb[3] < bottom + 60.0, "{vb:?} vs {bottom}");
        assert_eq!(attr(&svg, "width")[0], vb[2]);
    }

    #[test]
    fn decorations_land_on_their_node_line_and_edge_only() {
        let g = diamond();
        let mut d = Decor::new();
        d.node_class(1, "selected current")
            .line_class(1, 0, "live")
            .line_class(2, 1, "dead")
            .edge_class(3, "highlight");
        let svg = draw(&g, &d);
        assert!(svg.contains(r#"<g class="node selected current" data-id="left""#));
        assert_eq!(svg.matches("selected").count(), 1);
        assert!(svg.contains(r#"<rect class="line-bg live" data-line="0""#));
        assert!(svg.contains(r#"<tspan data-line="0" class="live""#));
        assert!(svg.contains(r#"<tspan data-line="1" class="dead""#));
        assert_eq!(svg.matches("live").count(), 2);
        assert!(svg.contains(r#"<path class="edge highlight" data-edge="3" data-from="right" data-to="end""#));
        // Out-of-range indices are ignored.
        d.node_class(99, "x").line_class(0, 99, "y").edge_class(99, "z");
        let again = draw(&g, &d);
        assert!(!again.contains("\"x\"") && !again.contains(" y\"") && !again.contains(" z\""));
        assert_eq!(again.len(), svg.len());
    }

    #[test]
    fn graph_classes_and_decor_classes_combine() {
        let mut g = diamond();
        g.nodes[3].class = "virtual".into();
        let mut d = Decor::new();
        d.node_class(3, "split");
        assert!(draw(&g, &d).contains(r#"<g class="node virtual split" data-id="end""#));
    }

    #[test]
    fn badges_sit_above_and_below_their_box_and_grow_the_view_box() {
        let g = diamond();
        for style in [Style::default(), Style::with_badges()] {
            let lay = layout(&g, &style);
            let mut d = Decor::new();
            d.entry_badge(0, Badge::new("NdSafe 1", "on").with_title("needed <and> safe"));
            d.entry_badge(0, Badge::new("NEarliest 0", "off"));
            d.exit_badge(3, Badge::new("XLatest 1", "on changed"));
            let svg = paint(&g, &lay, &style, &d);
            assert_eq!(svg.matches(r#"<rect class="pill""#).count(), 3);
            assert_eq!(svg.matches(r#"<g class="badges entry""#).count(), 1);
            assert!(svg.contains(r#"<g class="badge on changed">"#));
            assert!(svg.contains("<title>needed &lt;and&gt; safe</title>"));
            let pills: Vec<f64> =
                svg.match_indices(r#"<rect class="pill""#).map(|(i, _)| attr(&svg[i..i + 200], "y")[0]).collect();
            let (entry, exit) = (lay.nodes[0].unwrap(), lay.nodes[3].unwrap());
            assert!(pills[0] < entry.y && pills[1] == pills[0], "{pills:?} {entry:?}");
            assert!(pills[2] > exit.bottom(), "{pills:?} {exit:?}");
            let vb = view_box(&svg);
            assert!(vb[1] < pills[0] && vb[1] + vb[3] > pills[2], "{vb:?} {pills:?}");
            let plain = paint(&g, &lay, &style, &Decor::new());
            assert!(view_box(&plain)[3] <= vb[3]);
            assert_eq!(svg.contains("class=\"stub\""), style.badge_band > 0.0);
        }
    }

    #[test]
    fn text_is_escaped() {
        let mut d = Decor::new();
        d.node_class(0, "a\"b").line_class(0, 0, "<c>");
        let g = Graph { nodes: vec![Node::new("a&b", "<a>", vec!["x < \"y\"".into()])], edges: vec![] };
        let svg = draw(&g, &d);
        assert!(svg.contains("&lt;a&gt;") && svg.contains("x &lt; &quot;y&quot;") && svg.contains("a&amp;b"));
        assert!(svg.contains("a&quot;b") && svg.contains("&lt;c&gt;"));
        assert!(!svg.contains("<a>") && !svg.contains("<c>"));
    }

    #[test]
    fn a_layout_of_another_graph_or_none_does_not_panic() {
        let small = diamond();
        let big = chain(9);
        let style = Style::default();
        let svg = paint(&big, &layout(&small, &style), &style, &Decor::new());
        assert_eq!(svg.matches("<g class=\"node\"").count(), 4);
        let empty = paint(&big, &Layout::default(), &style, &Decor::new());
        assert!(empty.starts_with("<svg") && !empty.contains("<g class=\"node\""));
        assert_eq!(paint(&Graph::default(), &Layout::default(), &style, &Decor::new()).matches("<rect").count(), 0);
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(N(3.0).to_string(), "3");
        assert_eq!(N(-2.04).to_string(), "-2");
        assert_eq!(N(1.25).to_string(), "1.3");
        assert_eq!(N(f64::NAN).to_string(), "0");
    }
}
