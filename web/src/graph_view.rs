//! `GraphView`: a graph drawing with pan, zoom, selection and export. Views hand it a
//! [`Graph`] and a [`Decor`]; it lays the graph out (small graphs at once, large ones in the
//! layout worker, cached by content) and repaints when the decor changes.
//!
//! Pan and zoom are the component's own state (not the app's): they are not part of what a
//! step or a permalink means. They reset to a fitting view when the graph's layout changes,
//! and refit when the container is resized (a ResizeObserver) unless the user zoomed or
//! panned, in which case the scale is kept and the view stays centred on the same spot.
//! How large a first view may be depends on the page's mode ([`GraphMode`], a context the app
//! provides): code at least [`LECTURE_CODE_PX`] on screen in lecture mode, the whole drawing
//! in its frame in embed mode. In both, a step that highlights blocks off screen pans to them.
//!
//! Keyboard: the nodes (and their code lines) are one roving tab stop. Arrow keys move between
//! nodes by their position on screen (down and up also walk a node's code lines), Enter or
//! Space selects what has the focus (as a click does), `+`/`-` zoom and `0` fits.

use crate::graph::dom::Drawing;
use crate::graph::viewport::{Fit, Viewport};
use crate::graph::web::{self as gweb, LayoutTicket};
use crate::graph::{paint, Decor, Graph, Layout, Style};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::Element;
use yew::prelude::*;

/// Graphs up to this many nodes are laid out during render (a few ms): instant feedback.
pub const SYNC_LIMIT: usize = 60;
/// Pointer travel (px) after which a press is a drag, not a click.
const DRAG_THRESHOLD: f64 = 4.0;
/// In lecture mode, code in a node is never smaller than this on screen (CSS px): readable from
/// the back of a lecture hall at 1024×768.
pub const LECTURE_CODE_PX: f64 = 18.0;

/// How the page shows its graphs (provided by the app as a context; without one, the normal
/// page).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GraphMode {
    pub lecture: bool,
    pub embed: bool,
}

impl GraphMode {
    /// The first-view policy for a drawing whose code is `style.font_size` px.
    pub fn fit(self, style: &Style) -> Fit {
        if self.lecture {
            Fit::lecture(LECTURE_CODE_PX, style.font_size)
        } else if self.embed {
            Fit::EMBED
        } else {
            Fit::NORMAL
        }
    }

    /// Whether stepping pans the view to the blocks the step highlights.
    fn follows_steps(self) -> bool {
        self.lecture || self.embed
    }
}

#[derive(Properties, PartialEq)]
pub struct GraphViewProps {
    pub graph: Rc<Graph>,
    #[prop_or_default]
    pub decor: Rc<Decor>,
    #[prop_or_default]
    pub style: Style,
    /// A node was clicked: its `data-id`. Comes first when a code line was clicked too.
    #[prop_or_default]
    pub onselect: Callback<String>,
    /// A code line was clicked: the node's `data-id` and the line's index.
    #[prop_or_default]
    pub onselectline: Callback<(String, usize)>,
    #[prop_or_default]
    pub class: Classes,
    /// Names exported files (`<title>.svg`).
    #[prop_or(AttrValue::Static("graph"))]
    pub title: AttrValue,
}

/// The layout of `graph`, or `None` while it is being computed (the component re-renders
/// when it arrives). Small graphs and remembered layouts are answered at once.
#[hook]
pub fn use_layout(graph: Rc<Graph>, style: Style) -> Option<Rc<Layout>> {
    let arrived = use_state(|| None::<Rc<Layout>>);
    let key = *use_memo((graph.clone(), style.clone()), |(g, s)| g.layout_key(s));
    let current = match &*arrived {
        Some(l) if l.key == key => Some(l.clone()),
        _ => gweb::cached_layout(&graph, &style),
    }
    .or_else(|| (graph.nodes.len() <= SYNC_LIMIT).then(|| gweb::layout_now(&graph, &style)));
    let ticket = use_mut_ref(|| None::<LayoutTicket>);
    let need = current.is_none();
    let setter = arrived.setter();
    use_effect_with((key, need), move |&(_, need)| {
        // Replacing the ticket cancels the request for the previous graph.
        *ticket.borrow_mut() =
            need.then(|| gweb::request_layout(graph, &style, Callback::from(move |l| setter.set(Some(l)))));
        || ()
    });
    current
}

/// The drawing on the page and the decor it shows.
struct Applied {
    svg: AttrValue,
    drawing: Drawing,
    decor: Rc<Decor>,
}

/// What a press on the canvas has done so far.
#[derive(Clone, Copy)]
struct Drag {
    pointer: i32,
    x0: f64,
    y0: f64,
    start: Viewport,
    moved: bool,
}

fn element_size(el: &Element) -> (f64, f64) {
    (el.client_width() as f64, el.client_height() as f64)
}

/// The drawing's natural size, from the `<svg>` in `stage`.
fn svg_size(stage: &Element) -> Option<(f64, f64)> {
    let svg = stage.query_selector("svg").ok()??;
    let num = |a: &str| svg.get_attribute(a)?.parse::<f64>().ok();
    Some((num("width")?, num("height")?))
}

/// How far across the drawing (px from its left edge) the centre of node 0 is.
fn entry_x(stage: &Element) -> Option<f64> {
    let svg = stage.query_selector("svg").ok()??;
    let left: f64 = svg.get_attribute("viewBox")?.split_whitespace().next()?.parse().ok()?;
    let rect = svg.query_selector(r#"g.node[data-index="0"] rect.box"#).ok()??;
    let num = |a: &str| rect.get_attribute(a)?.parse::<f64>().ok();
    Some(num("x")? + num("width")? / 2.0 - left)
}

/// The node id and the line index (if a code line) under a click (found from the target up,
/// so one listener on the canvas serves every node).
fn hit(target: Option<web_sys::EventTarget>) -> Option<(String, Option<usize>)> {
    let el: Element = target?.dyn_into().ok()?;
    // A badge selects the node it belongs to.
    let node = el.closest("g.node, g.badges").ok()??;
    let id = node.get_attribute("data-id")?;
    let line = el.closest("[data-line]").ok().flatten().and_then(|l| l.get_attribute("data-line")?.parse().ok());
    Some((id, line))
}

/// The drawing's viewBox origin (drawing px = layout coordinates minus this).
fn view_origin(stage: &Element) -> Option<(f64, f64)> {
    let svg = stage.query_selector("svg").ok()??;
    let vb = svg.get_attribute("viewBox")?;
    let mut it = vb.split_whitespace().map(|v| v.parse::<f64>().ok());
    Some((it.next()??, it.next()??))
}

/// Node `i`'s box in drawing px (x, y, w, h), with its badge bands.
fn node_rect(lay: &Layout, style: &Style, origin: (f64, f64), i: usize) -> Option<(f64, f64, f64, f64)> {
    let r = lay.nodes.get(i).copied().flatten()?;
    let band = style.badge_band.max(0.0);
    Some((r.x - origin.0, r.y - origin.1 - band, r.w, r.h + 2.0 * band))
}

/// A rectangle in drawing px: x, y, w, h.
type Area = (f64, f64, f64, f64);

/// The blocks the current step highlights (current, changed, selected) with their badges, in
/// drawing px, measured on the page (so badges sticking out count too): all of them together,
/// and the first (topmost) one alone.
fn focus_rect(stage: &Element) -> Option<(Area, Area)> {
    let size = svg_size(stage)?;
    let sr = stage.get_bounding_client_rect();
    let k = sr.width() / size.0.max(1.0);
    if !(k.is_finite() && k > 0.0) {
        return None;
    }
    let sel = "g.node.current, g.node:has(.line-bg.current), g.badges:has(.badge.changed), g.node.selected";
    let list = stage.query_selector_all(sel).ok()?;
    let mut indices: Vec<String> = Vec::new();
    for j in 0..list.length() {
        let Some(el) = list.item(j).and_then(|n| n.dyn_into::<Element>().ok()) else { continue };
        if let Some(i) = el.get_attribute("data-index").filter(|i| !indices.contains(i)) {
            indices.push(i);
        }
    }
    let union = |acc: Option<(f64, f64, f64, f64)>, (x0, y0, x1, y1): (f64, f64, f64, f64)| {
        Some(match acc {
            None => (x0, y0, x1, y1),
            Some((a, b, c, d)) => (a.min(x0), b.min(y0), c.max(x1), d.max(y1)),
        })
    };
    let mut all: Option<(f64, f64, f64, f64)> = None;
    let mut first: Option<(f64, f64, f64, f64)> = None;
    for i in &indices {
        let Ok(parts) = stage.query_selector_all(&format!(r#"g.node[data-index="{i}"], g.badges[data-index="{i}"]"#)) else {
            continue;
        };
        let mut acc = None;
        for j in 0..parts.length() {
            let Some(el) = parts.item(j).and_then(|n| n.dyn_into::<Element>().ok()) else { continue };
            let r = el.get_bounding_client_rect();
            if r.width() <= 0.0 && r.height() <= 0.0 {
                continue;
            }
            let (x0, y0) = ((r.left() - sr.left()) / k, (r.top() - sr.top()) / k);
            let (x1, y1) = ((r.right() - sr.left()) / k, (r.bottom() - sr.top()) / k);
            acc = union(acc, (x0, y0, x1, y1));
        }
        let Some(node) = acc else { continue };
        all = union(all, node);
        if first.is_none_or(|f| node.1 < f.1) {
            first = Some(node);
        }
    }
    let area = |(a, b, c, d): (f64, f64, f64, f64)| (a, b, c - a, d - b);
    Some((area(all?), area(first?)))
}

/// The view panned to what a step highlights, if it is off screen: all of it in the middle if
/// it fits, else its first block (where a reader starts).
fn follow(v: Viewport, (all, first): (Area, Area), room: (f64, f64)) -> Option<Viewport> {
    if v.shows(all, room) {
        return None;
    }
    let fits = v.centre_on(all, room).shows(all, room);
    match (fits, v.shows(first, room)) {
        (true, _) => Some(v.centre_on(all, room)),
        (false, false) => Some(v.centre_on(first, room)),
        (false, true) => None,
    }
}

/// The first view of the drawing in `stage` inside a container of `room`: fitted under the
/// policy, from the entry at the top; when `follow`ing the steps, panned to the highlighted
/// blocks if they are off screen.
fn first_view(stage: &Element, room: (f64, f64), fit: Fit, follow: bool) -> Option<Viewport> {
    let size = svg_size(stage)?;
    let entry = (entry_x(stage).unwrap_or(size.0 / 2.0), 0.0);
    let v = Viewport::fitted(size, room, fit, entry);
    let focus = follow.then(|| focus_rect(stage)).flatten();
    Some(focus.and_then(|f| self::follow(v, f, room)).unwrap_or(v))
}

/// Where the keyboard focus is in a drawing: a node, or one of its code lines.
type Cursor = (usize, Option<usize>);

/// The element of `cursor` in the drawing.
fn cursor_element(stage: &Element, (i, line): Cursor) -> Option<Element> {
    let sel = match line {
        None => format!(r#"g.node[data-index="{i}"] > text.title"#),
        Some(k) => format!(r#"g.node[data-index="{i}"] rect.line-bg[data-line="{k}"]"#),
    };
    stage.query_selector(&sel).ok()?
}

/// The cursor of a focused element of the drawing (its title stands for the node).
fn cursor_of(el: &Element) -> Option<Cursor> {
    let node = el.closest("g.node").ok()??;
    let i = node.get_attribute("data-index")?.parse().ok()?;
    let line = (el.tag_name() == "rect").then(|| el.get_attribute("data-line")?.parse().ok()).flatten();
    Some((i, line))
}

/// The node nearest to node `from` in the direction (dx, dy) (one of them ±1), by the
/// centres of their boxes; moves across the direction count double.
fn nearest(lay: &Layout, from: usize, (dx, dy): (f64, f64)) -> Option<usize> {
    let centre = |i: usize| lay.nodes.get(i).copied().flatten().map(|r| (r.x + r.w / 2.0, r.y + r.h / 2.0));
    let (x0, y0) = centre(from)?;
    (0..lay.nodes.len())
        .filter(|&j| j != from)
        .filter_map(|j| {
            let (x, y) = centre(j)?;
            let (ax, ac) = if dx != 0.0 { ((x - x0) * dx, (y - y0).abs()) } else { ((y - y0) * dy, (x - x0).abs()) };
            // Within about 75° of the direction: a block straight below is not "to the right".
            (ax > 2.0 && ax >= 0.25 * ac).then_some((j, ax + 2.0 * ac))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(j, _)| j)
}

/// Where an arrow key moves the cursor: left and right between nodes, down and up through a
/// node's code lines and on to the next node.
fn step_cursor(g: &Graph, lay: &Layout, (i, line): Cursor, key: &str) -> Option<Cursor> {
    let lines = g.nodes.get(i).map_or(0, |n| n.lines.len());
    let node = |dir| nearest(lay, i, dir).map(|j| (j, None));
    match key {
        "ArrowLeft" => node((-1.0, 0.0)),
        "ArrowRight" => node((1.0, 0.0)),
        "ArrowDown" => match line {
            None if lines > 0 => Some((i, Some(0))),
            Some(k) if k + 1 < lines => Some((i, Some(k + 1))),
            _ => node((0.0, 1.0)),
        },
        "ArrowUp" => match line {
            Some(0) => Some((i, None)),
            Some(k) => Some((i, Some(k - 1))),
            None => node((0.0, -1.0)),
        },
        _ => None,
    }
}

/// Makes the drawing's nodes and code lines keyboard targets: one roving tab stop (`cursor`),
/// the rest reachable with the arrow keys; each says what it is to a screen reader. A node's
/// target is its title (a button named by the block's name), beside its lines' buttons, so no
/// control is nested in another.
fn make_focusable(stage: &Element, g: &Graph, label: &str, cursor: Cursor) {
    let Ok(Some(svg)) = stage.query_selector("svg") else { return };
    let _ = svg.set_attribute("role", "group");
    let _ = svg.set_attribute("aria-label", label);
    let Ok(list) = svg.query_selector_all("g.node[data-index]") else { return };
    for k in 0..list.length() {
        let Some(el) = list.item(k).and_then(|n| n.dyn_into::<Element>().ok()) else { continue };
        let Some(i) = el.get_attribute("data-index").and_then(|v| v.parse::<usize>().ok()) else { continue };
        let Some(node) = g.nodes.get(i) else { continue };
        if let Ok(Some(title)) = el.query_selector(":scope > text.title") {
            let _ = title.set_attribute("role", "button");
            let _ = title.set_attribute("tabindex", if cursor == (i, None) { "0" } else { "-1" });
            let n = node.lines.len();
            let text = match n {
                0 => format!("{} (block)", node.title),
                _ => format!("{} (block, {n} line{})", node.title, if n == 1 { "" } else { "s" }),
            };
            let _ = title.set_attribute("aria-label", &text);
        }
        for (line, code) in node.lines.iter().enumerate() {
            if let Ok(Some(r)) = el.query_selector(&format!(r#"rect.line-bg[data-line="{line}"]"#)) {
                let _ = r.set_attribute("role", "button");
                let _ = r.set_attribute("tabindex", if cursor == (i, Some(line)) { "0" } else { "-1" });
                let _ = r.set_attribute("aria-label", &format!("{}, line {}: {}", node.title, line + 1, code.trim()));
            }
        }
    }
}

/// Moves the roving tab stop to `to` and focuses it (without the browser scrolling the canvas:
/// the viewport does that).
fn move_focus(stage: &Element, from: Option<Cursor>, to: Cursor) {
    if let Some(old) = from.and_then(|c| cursor_element(stage, c)) {
        let _ = old.set_attribute("tabindex", "-1");
    }
    if let Some(el) = cursor_element(stage, to) {
        let _ = el.set_attribute("tabindex", "0");
        let opts = web_sys::FocusOptions::new();
        opts.set_prevent_scroll(true);
        let _ = el.unchecked_ref::<web_sys::SvgElement>().focus_with_options(&opts);
    }
}

/// A press that should not move the focus to what was pressed (a graph node, a view tab), so
/// ←/→ keep stepping after a click; whatever had the focus (the editor, say) loses it all the
/// same, as it would to any click elsewhere.
pub fn press_without_focus(e: &MouseEvent) {
    e.prevent_default();
    let active = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
    let Some(active) = active else { return };
    let target = e.target().and_then(|t| t.dyn_into::<web_sys::Node>().ok());
    // (Yew delegates events: `current_target` is the app's root, not the pressed element.)
    if target.is_some_and(|t| active.contains(Some(&t))) {
        return;
    }
    if let Some(el) = active.dyn_ref::<web_sys::HtmlElement>() {
        let _ = el.blur();
    } else if let Some(el) = active.dyn_ref::<web_sys::SvgElement>() {
        let _ = el.blur();
    }
}

/// Calls `f` with the container's size whenever it changes (and once at the start).
fn observe_size(el: &Element, f: Callback<(f64, f64)>) -> Option<(web_sys::ResizeObserver, Closure<dyn FnMut()>)> {
    let target = el.clone();
    let cb = Closure::<dyn FnMut()>::new(move || f.emit(element_size(&target)));
    let obs = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()).ok()?;
    obs.observe(el);
    Some((obs, cb))
}

#[function_component(GraphView)]
pub fn graph_view(props: &GraphViewProps) -> Html {
    let layout = use_layout(props.graph.clone(), props.style.clone());
    // The drawing without decorations: parsed by the page once per layout. Decorations are
    // applied to it in place (graph::dom) after each render, so a step costs a few attributes.
    let painted = use_memo((layout.clone(), props.graph.clone(), props.style.clone()), |(layout, graph, style)| {
        layout.as_ref().map(|l| AttrValue::from(paint(graph, l, style, &Decor::default())))
    });
    // While a new layout is pending, the last drawing stays up, dimmed.
    let last = use_mut_ref(|| None::<AttrValue>);
    if let Some(svg) = &*painted {
        *last.borrow_mut() = Some(svg.clone());
    }
    let shown = last.borrow().clone();
    let pending = layout.is_none();

    let viewport = use_state(Viewport::default);
    let canvas = use_node_ref();
    let stage = use_node_ref();
    let drag = use_mut_ref(|| None::<Drag>);
    let suppress_click = use_mut_ref(|| false);
    let dragging = use_state(|| false);
    let mode = use_context::<GraphMode>().unwrap_or_default();
    let fit = mode.fit(&props.style);
    // The container's size, kept up to date by a ResizeObserver.
    let room = use_state(|| (0.0, 0.0));
    // The user zoomed or panned: a resize keeps their scale, a step does not move the view.
    let user_view = use_mut_ref(|| false);
    // The keyboard's place in the drawing (the roving tab stop).
    let cursor = use_mut_ref(|| None::<Cursor>);
    // What a screen reader calls the drawing: its export name in words (without a step number,
    // which the drawing outlives), and its size.
    let words: Vec<&str> = props
        .title
        .split(['-', '_'])
        .filter(|w| !(w.len() > 4 && w.starts_with("step") && w[4..].bytes().all(|b| b.is_ascii_digit())))
        .collect();
    let label = AttrValue::from(format!("graph {} ({} blocks)", words.join(" "), props.graph.nodes.len()));

    {
        let (canvas, room) = (canvas.clone(), room.clone());
        use_effect_with((), move |_| {
            let setter = room.setter();
            // A view left (views::keep) is not laid out and measures 0 × 0: its drawing keeps
            // the size it had, so that showing it again keeps its zoom.
            let on_size = Callback::from(move |r: (f64, f64)| {
                if r.0 > 0.0 && r.1 > 0.0 {
                    setter.set(r)
                }
            });
            let observer = canvas.cast::<Element>().and_then(|c| observe_size(&c, on_size));
            move || {
                if let Some((obs, _cb)) = observer {
                    obs.disconnect();
                }
            }
        });
    }

    // Bring the drawing's decorations up to date (not while an old drawing stands in), and
    // the keyboard's targets on a new drawing.
    let applied = use_mut_ref(|| None::<Applied>);
    {
        let (stage, graph, style, decor) =
            (stage.clone(), props.graph.clone(), props.style.clone(), props.decor.clone());
        let (lay, cursor, label) = (layout.clone(), cursor.clone(), label.clone());
        use_effect_with((painted.clone(), props.decor.clone()), move |(painted, _)| {
            if let (Some(svg), Some(lay), Some(el)) = (painted.as_ref(), lay, stage.cast::<Element>()) {
                let mut applied = applied.borrow_mut();
                if applied.as_ref().is_none_or(|a| a.svg != *svg || !a.drawing.is_in(&el)) {
                    *applied =
                        Drawing::find(&el).map(|drawing| Applied { svg: svg.clone(), drawing, decor: Rc::default() });
                    // The keyboard starts on the selected node, else the entry.
                    let selected = decor.nodes.iter().find(|(_, d)| d.class.split_whitespace().any(|c| c == "selected"));
                    let mut c = cursor.borrow_mut();
                    let keep = c.filter(|&(i, line)| {
                        graph.nodes.get(i).is_some_and(|n| line.is_none_or(|k| k < n.lines.len()))
                    });
                    *c = Some(keep.or(selected.map(|(&i, _)| (i, None))).unwrap_or((0, None)));
                    make_focusable(&el, &graph, &label, c.unwrap_or((0, None)));
                }
                if let Some(a) = applied.as_mut() {
                    a.drawing.apply(&graph, &lay, &style, &a.decor, &decor);
                    a.decor = decor;
                }
            }
            || ()
        });
    }

    // The view: a fitting one for a new layout, a new mode or a resized container (the user's
    // scale kept if they chose one); in lecture and embed mode, panned to what a step highlights.
    {
        let (viewport, stage, user_view) = (viewport.clone(), stage.clone(), user_view.clone());
        let seen = use_mut_ref(|| (None::<u64>, (0.0, 0.0), None::<Fit>));
        let follow = mode.follows_steps();
        use_effect_with(
            (layout.as_ref().map(|l| l.key), *room, fit, props.decor.clone()),
            move |(key, room, fit, _decor)| {
                let room = *room;
                let (Some(key), Some(s)) = (*key, stage.cast::<Element>()) else { return };
                if room.0 <= 0.0 || room.1 <= 0.0 {
                    return;
                }
                let mut seen = seen.borrow_mut();
                let (old_key, old_room, old_fit) = *seen;
                *seen = (Some(key), room, Some(*fit));
                let fresh = old_key != Some(key) || old_fit != Some(*fit) || old_room.0 <= 0.0 || old_room.1 <= 0.0;
                if fresh {
                    *user_view.borrow_mut() = false;
                }
                let user = *user_view.borrow();
                let next = if fresh || (old_room != room && !user) {
                    first_view(&s, room, *fit, follow)
                } else if old_room != room {
                    Some(viewport.recentred(old_room, room))
                } else if follow && !user {
                    focus_rect(&s).and_then(|f| self::follow(*viewport, f, room))
                } else {
                    None
                };
                if let Some(v) = next.filter(|v| *v != *viewport) {
                    viewport.set(v);
                }
            },
        );
    }

    let zoom_by = |factor: f64| {
        let (viewport, canvas, user_view) = (viewport.clone(), canvas.clone(), user_view.clone());
        Callback::from(move |_: MouseEvent| {
            let (w, h) = canvas.cast::<Element>().map_or((0.0, 0.0), |c| element_size(&c));
            *user_view.borrow_mut() = true;
            viewport.set(viewport.zoom_at(factor, (w / 2.0, h / 2.0)));
        })
    };
    let on_fit = {
        let (viewport, canvas, stage, user_view) = (viewport.clone(), canvas.clone(), stage.clone(), user_view.clone());
        Callback::from(move |_: MouseEvent| {
            if let (Some(c), Some(s)) = (canvas.cast::<Element>(), stage.cast::<Element>()) {
                if let Some(size) = svg_size(&s) {
                    // The user asked for the whole graph: a resize or a step keeps it whole.
                    *user_view.borrow_mut() = true;
                    viewport.set(Viewport::fit(size, element_size(&c)));
                }
            }
        })
    };
    let onwheel = {
        let (viewport, canvas, user_view) = (viewport.clone(), canvas.clone(), user_view.clone());
        Callback::from(move |e: WheelEvent| {
            *user_view.borrow_mut() = true;
            e.prevent_default();
            let Some(c) = canvas.cast::<Element>() else { return };
            let r = c.get_bounding_client_rect();
            // deltaMode 1 is lines, 2 pages.
            let unit = match e.delta_mode() {
                1 => 16.0,
                2 => 400.0,
                _ => 1.0,
            };
            let at = (e.client_x() as f64 - r.left(), e.client_y() as f64 - r.top());
            viewport.set(viewport.zoom_at(Viewport::wheel_factor(e.delta_y() * unit), at));
        })
    };
    let onpointerdown = {
        let (viewport, drag) = (viewport.clone(), drag.clone());
        Callback::from(move |e: PointerEvent| {
            if e.button() == 0 {
                let (x0, y0) = (e.client_x() as f64, e.client_y() as f64);
                *drag.borrow_mut() = Some(Drag { pointer: e.pointer_id(), x0, y0, start: *viewport, moved: false });
            }
        })
    };
    let onpointermove = {
        let (viewport, drag, canvas, dragging) = (viewport.clone(), drag.clone(), canvas.clone(), dragging.clone());
        let user_view = user_view.clone();
        Callback::from(move |e: PointerEvent| {
            let mut d = drag.borrow_mut();
            let Some(d) = d.as_mut().filter(|d| d.pointer == e.pointer_id()) else { return };
            let (dx, dy) = (e.client_x() as f64 - d.x0, e.client_y() as f64 - d.y0);
            if !d.moved && dx.hypot(dy) > DRAG_THRESHOLD {
                d.moved = true;
                *user_view.borrow_mut() = true;
                // Captured only once it is a drag: a plain click keeps its target node.
                if let Some(c) = canvas.cast::<Element>() {
                    let _ = c.set_pointer_capture(d.pointer);
                }
                dragging.set(true);
            }
            if d.moved {
                viewport.set(d.start.pan(dx, dy));
            }
        })
    };
    let onpointerup = {
        let (drag, suppress_click, dragging) = (drag.clone(), suppress_click.clone(), dragging.clone());
        Callback::from(move |_: PointerEvent| {
            if let Some(d) = drag.borrow_mut().take() {
                *suppress_click.borrow_mut() = d.moved;
                if d.moved {
                    dragging.set(false);
                }
            }
        })
    };
    // A press does not move the focus into the drawing: ←/→ keep stepping after a click. The
    // keyboard's tab stop follows the click, though.
    let onmousedown = Callback::from(|e: MouseEvent| press_without_focus(&e));
    let onclick = {
        let (onselect, onselectline) = (props.onselect.clone(), props.onselectline.clone());
        let (stage, cursor) = (stage.clone(), cursor.clone());
        Callback::from(move |e: MouseEvent| {
            if std::mem::take(&mut *suppress_click.borrow_mut()) {
                return;
            }
            let target: Option<Element> = e.target().and_then(|t| t.dyn_into().ok());
            if let (Some(c), Some(s)) = (target.as_ref().and_then(cursor_of), stage.cast::<Element>()) {
                let old = cursor.borrow_mut().replace((c.0, None));
                if let Some(el) = old.and_then(|o| cursor_element(&s, o)) {
                    let _ = el.set_attribute("tabindex", "-1");
                }
                if let Some(el) = cursor_element(&s, (c.0, None)) {
                    let _ = el.set_attribute("tabindex", "0");
                }
            }
            if let Some((id, line)) = hit(e.target()) {
                onselect.emit(id.clone());
                if let Some(k) = line {
                    onselectline.emit((id, k));
                }
            }
        })
    };
    let onkeydown = {
        let (graph, lay, stage, canvas) = (props.graph.clone(), layout.clone(), stage.clone(), canvas.clone());
        let (onselect, onselectline, cursor) = (props.onselect.clone(), props.onselectline.clone(), cursor.clone());
        let (viewport, user_view, style) = (viewport.clone(), user_view.clone(), props.style.clone());
        Callback::from(move |e: KeyboardEvent| {
            if e.alt_key() || e.ctrl_key() || e.meta_key() {
                return;
            }
            let (Some(s), Some(c)) = (stage.cast::<Element>(), canvas.cast::<Element>()) else { return };
            let room = element_size(&c);
            let key = e.key();
            match key.as_str() {
                "+" | "=" | "-" => {
                    *user_view.borrow_mut() = true;
                    let f = if key == "-" { 0.8 } else { 1.25 };
                    viewport.set(viewport.zoom_at(f, (room.0 / 2.0, room.1 / 2.0)));
                    e.prevent_default();
                    return;
                }
                "0" => {
                    if let Some(size) = svg_size(&s) {
                        *user_view.borrow_mut() = true;
                        viewport.set(Viewport::fit(size, room));
                    }
                    e.prevent_default();
                    return;
                }
                _ => {}
            }
            let focused: Option<Element> = e.target().and_then(|t| t.dyn_into().ok());
            let Some(at) = focused.as_ref().and_then(cursor_of) else { return };
            match key.as_str() {
                "Enter" | " " => {
                    e.prevent_default();
                    if let Some(node) = graph.nodes.get(at.0) {
                        onselect.emit(node.id.clone());
                        if let Some(k) = at.1 {
                            onselectline.emit((node.id.clone(), k));
                        }
                    }
                }
                "ArrowLeft" | "ArrowRight" | "ArrowUp" | "ArrowDown" => {
                    // Arrows here move in the drawing; they do not step the view.
                    e.prevent_default();
                    e.stop_propagation();
                    let Some(lay) = lay.as_ref() else { return };
                    let Some(next) = step_cursor(&graph, lay, at, &key) else { return };
                    *cursor.borrow_mut() = Some(next);
                    move_focus(&s, Some(at), next);
                    if let Some(r) = view_origin(&s).and_then(|o| node_rect(lay, &style, o, next.0)) {
                        if !viewport.shows(r, room) {
                            viewport.set(viewport.reveal(r, room));
                        }
                    }
                }
                _ => {}
            }
        })
    };
    #[cfg(feature = "full")]
    let export = |png: bool| {
        let (canvas, stage, title) = (canvas.clone(), stage.clone(), props.title.to_string());
        Callback::from(move |_: MouseEvent| {
            // The drawing as it is on the page, decorations included.
            let svg =
                stage.cast::<Element>().and_then(|s| s.query_selector("svg").ok().flatten()).map(|s| s.outer_html());
            let (Some(svg), Some(el)) = (svg, canvas.cast::<Element>()) else { return };
            if png {
                gweb::download_png(svg, el, title.clone());
            } else if let Err(e) = gweb::download_svg(&svg, &el, &title) {
                gloo::console::error!(format!("SVG export failed: {e:?}"));
            }
        })
    };

    #[cfg(feature = "full")]
    let (export_svg, export_png) = (export(false), export(true));
    // The first-visit build has no exports; the buttons work once the full app has the page.
    #[cfg(not(feature = "full"))]
    let (export_svg, export_png) = (Callback::noop(), Callback::noop());
    let (zoom_in, zoom_out) = (zoom_by(1.25), zoom_by(0.8));
    let n = props.graph.nodes.len();
    let class =
        classes!("graph-view", props.class.clone(), pending.then_some("pending"), dragging.then_some("dragging"));
    html! {
        <div {class} data-nodes={n.to_string()}>
            <div class="graph-canvas" ref={canvas} data-own-keys="arrows"
                {onwheel} {onpointerdown} {onpointermove} {onmousedown} {onkeydown}
                onpointerup={onpointerup.clone()} onpointercancel={onpointerup} {onclick}>
                <div class="graph-stage" ref={stage} style={viewport.css()}>
                    { shown.map(Html::from_html_unchecked).unwrap_or_default() }
                </div>
            </div>
            <div class="graph-toolbar" role="toolbar" aria-label="graph">
                <button class="zoom-in" title="Zoom in (+)" aria-label="Zoom in" onclick={zoom_in}>{ "+" }</button>
                <button class="zoom-out" title="Zoom out (−)" aria-label="Zoom out" onclick={zoom_out}>{ "−" }</button>
                <button class="zoom-fit" title="Fit the whole graph (0)" onclick={on_fit}>{ "Fit" }</button>
                <span class="sep" />
                <button class="export-svg" title="Download as SVG" onclick={export_svg}>{ "SVG" }</button>
                <button class="export-png" title="Download as PNG" onclick={export_png}>{ "PNG" }</button>
            </div>
            if pending {
                <div class="graph-status" role="status">{ format!("laying out {n} blocks…") }</div>
            }
        </div>
    }
}
