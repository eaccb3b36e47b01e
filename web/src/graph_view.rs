//! `GraphView`: a graph drawing with pan, zoom, selection and export. Views hand it a
//! [`Graph`] and a [`Decor`]; it lays the graph out (small graphs at once, large ones in the
//! layout worker, cached by content) and repaints when the decor changes.
//!
//! Pan and zoom are the component's own state (not the app's): they are not part of what a
//! step or a permalink means. They reset to a fitting view when the graph's layout changes.

use crate::graph::dom::Drawing;
use crate::graph::viewport::Viewport;
use crate::graph::web::{self as gweb, LayoutTicket};
use crate::graph::{paint, Decor, Graph, Layout, Style};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::Element;
use yew::prelude::*;

/// Graphs up to this many nodes are laid out during render (a few ms): instant feedback.
pub const SYNC_LIMIT: usize = 60;
/// Pointer travel (px) after which a press is a drag, not a click.
const DRAG_THRESHOLD: f64 = 4.0;

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

    // Bring the drawing's decorations up to date (not while an old drawing stands in).
    let applied = use_mut_ref(|| None::<Applied>);
    {
        let (stage, graph, style, decor) =
            (stage.clone(), props.graph.clone(), props.style.clone(), props.decor.clone());
        let lay = layout.clone();
        use_effect_with((painted.clone(), props.decor.clone()), move |(painted, _)| {
            if let (Some(svg), Some(lay), Some(el)) = (painted.as_ref(), lay, stage.cast::<Element>()) {
                let mut applied = applied.borrow_mut();
                if applied.as_ref().is_none_or(|a| a.svg != *svg) {
                    *applied =
                        Drawing::find(&el).map(|drawing| Applied { svg: svg.clone(), drawing, decor: Rc::default() });
                }
                if let Some(a) = applied.as_mut() {
                    a.drawing.apply(&graph, &lay, &style, &a.decor, &decor);
                    a.decor = decor;
                }
            }
            || ()
        });
    }

    // A new layout on screen: start from a fitting view.
    {
        let (viewport, canvas, stage) = (viewport.clone(), canvas.clone(), stage.clone());
        use_effect_with(layout.as_ref().map(|l| l.key), move |key| {
            if key.is_some() {
                if let (Some(c), Some(s)) = (canvas.cast::<Element>(), stage.cast::<Element>()) {
                    let room = element_size(&c);
                    if let (Some(size), true) = (svg_size(&s), room.0 > 0.0 && room.1 > 0.0) {
                        viewport.set(Viewport::initial(size, room, entry_x(&s).unwrap_or(size.0 / 2.0)));
                    }
                }
            }
            || ()
        });
    }

    let zoom_by = |factor: f64| {
        let (viewport, canvas) = (viewport.clone(), canvas.clone());
        Callback::from(move |_: MouseEvent| {
            let (w, h) = canvas.cast::<Element>().map_or((0.0, 0.0), |c| element_size(&c));
            viewport.set(viewport.zoom_at(factor, (w / 2.0, h / 2.0)));
        })
    };
    let on_fit = {
        let (viewport, canvas, stage) = (viewport.clone(), canvas.clone(), stage.clone());
        Callback::from(move |_: MouseEvent| {
            if let (Some(c), Some(s)) = (canvas.cast::<Element>(), stage.cast::<Element>()) {
                if let Some(size) = svg_size(&s) {
                    viewport.set(Viewport::fit(size, element_size(&c)));
                }
            }
        })
    };
    let onwheel = {
        let (viewport, canvas) = (viewport.clone(), canvas.clone());
        Callback::from(move |e: WheelEvent| {
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
        Callback::from(move |e: PointerEvent| {
            let mut d = drag.borrow_mut();
            let Some(d) = d.as_mut().filter(|d| d.pointer == e.pointer_id()) else { return };
            let (dx, dy) = (e.client_x() as f64 - d.x0, e.client_y() as f64 - d.y0);
            if !d.moved && dx.hypot(dy) > DRAG_THRESHOLD {
                d.moved = true;
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
    let onclick = {
        let (onselect, onselectline) = (props.onselect.clone(), props.onselectline.clone());
        Callback::from(move |e: MouseEvent| {
            if std::mem::take(&mut *suppress_click.borrow_mut()) {
                return;
            }
            if let Some((id, line)) = hit(e.target()) {
                onselect.emit(id.clone());
                if let Some(k) = line {
                    onselectline.emit((id, k));
                }
            }
        })
    };
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

    let (zoom_in, zoom_out, export_svg, export_png) = (zoom_by(1.25), zoom_by(0.8), export(false), export(true));
    let n = props.graph.nodes.len();
    let class =
        classes!("graph-view", props.class.clone(), pending.then_some("pending"), dragging.then_some("dragging"));
    html! {
        <div {class} data-nodes={n.to_string()}>
            <div class="graph-canvas" ref={canvas}
                {onwheel} {onpointerdown} {onpointermove}
                onpointerup={onpointerup.clone()} onpointercancel={onpointerup} {onclick}>
                <div class="graph-stage" ref={stage} style={viewport.css()}>
                    { shown.map(Html::from_html_unchecked).unwrap_or_default() }
                </div>
            </div>
            <div class="graph-toolbar">
                <button class="zoom-in" title="Zoom in" onclick={zoom_in}>{ "+" }</button>
                <button class="zoom-out" title="Zoom out" onclick={zoom_out}>{ "−" }</button>
                <button class="zoom-fit" title="Fit the whole graph" onclick={on_fit}>{ "Fit" }</button>
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
