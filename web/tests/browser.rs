//! GraphView in headless Chromium (wasm-bindgen-test-runner + chromedriver; see
//! scripts/test.sh): drawing, clicks, zoom, decorations, asynchronous layout and export.
//!
//! The test runner serves no layout worker, so large graphs here go through the main-thread
//! fallback; tests/browser/graph.test.mjs checks the real worker in the built site.
#![cfg(target_arch = "wasm32")]

use optlab_web::graph::layout::fallback_layout;
use optlab_web::graph::web::{
    cached_layout, png_blob, set_worker_url, standalone_svg_for, worker_ready, DEFAULT_WORKER_URL,
};
use optlab_web::graph::{layout, paint, Badge, Decor, Edge, EdgeKind, Graph, Node, Style};
use optlab_web::graph_view::{GraphView, GraphViewProps};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{js_sys, Element, HtmlElement};
use yew::platform::time::sleep;
use yew::{AttrValue, Callback};

wasm_bindgen_test_configure!(run_in_browser);

fn small_graph() -> Graph {
    let node = |n: &str, code: &[&str]| Node::new(n, n, code.iter().map(|s| s.to_string()).collect());
    Graph {
        nodes: vec![
            node("entry", &["i: int = const 0;"]),
            node("loop", &["cond: bool = lt i n;", "br cond .body .done;"]),
            node("body", &["i: int = add i one;", "jmp .loop;"]),
            node("done", &["print i;"]),
        ],
        edges: vec![
            Edge::new(0, 1),
            Edge { kind: EdgeKind::True, ..Edge::new(1, 2) },
            Edge { kind: EdgeKind::False, ..Edge::new(1, 3) },
            Edge::new(2, 1),
        ],
    }
}

/// A chain of `n` blocks with a loop back every fifth block: too big to lay out at once.
fn chain(n: usize) -> Graph {
    let mut g = Graph::default();
    for i in 0..n {
        g.nodes.push(Node::new(format!("b{i}"), format!("b{i}"), vec![format!("jmp .b{};", i + 1)]));
    }
    for i in 0..n - 1 {
        g.edges.push(Edge::new(i, i + 1));
        if i % 5 == 4 {
            g.edges.push(Edge::new(i, i - 3));
        }
    }
    g
}

/// A fresh 800 × 600 box on the page, with the graph stylesheet loaded once.
fn mount() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    if doc.get_element_by_id("graph-css").is_none() {
        let style = doc.create_element("style").unwrap();
        style.set_id("graph-css");
        style.set_text_content(Some(include_str!("../../static/css/graph.css")));
        doc.head().unwrap().append_child(&style).unwrap();
    }
    let root = doc.create_element("div").unwrap();
    root.set_attribute("style", "width: 800px; height: 600px; display: flex;").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    root
}

fn props(graph: Graph) -> GraphViewProps {
    GraphViewProps {
        graph: Rc::new(graph),
        decor: Rc::new(Decor::default()),
        style: Style::default(),
        onselect: Callback::noop(),
        onselectline: Callback::noop(),
        class: Default::default(),
        title: AttrValue::Static("test"),
    }
}

fn one(root: &Element, selector: &str) -> Element {
    root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("no {selector}"))
}

fn count(root: &Element, selector: &str) -> u32 {
    root.query_selector_all(selector).unwrap().length()
}

/// Waits until `cond` holds (polling), or fails after `secs`.
async fn until(secs: u64, what: &str, cond: impl Fn() -> bool) {
    let t0 = js_sys::Date::now();
    while !cond() {
        assert!(js_sys::Date::now() - t0 < secs as f64 * 1000.0, "timed out waiting for {what}");
        sleep(Duration::from_millis(20)).await;
    }
}

/// The scale in the stage's `transform: translate(…) scale(k)`.
fn scale(root: &Element) -> f64 {
    let style = one(root, ".graph-stage").get_attribute("style").unwrap();
    let k = style.split("scale(").nth(1).unwrap();
    k[..k.find(')').unwrap()].parse().unwrap()
}

fn has_class(el: &Element, class: &str) -> bool {
    el.get_attribute("class").unwrap_or_default().split_whitespace().any(|c| c == class)
}

fn click(el: &Element) {
    let init = web_sys::MouseEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    let ev = web_sys::MouseEvent::new_with_mouse_event_init_dict("click", &init).unwrap();
    el.dispatch_event(&ev).unwrap();
}

#[wasm_bindgen_test]
async fn shows_every_block_label_and_code_line() {
    let root = mount();
    yew::Renderer::<GraphView>::with_root_and_props(root.clone(), props(small_graph())).render();
    sleep(Duration::from_millis(50)).await;

    assert_eq!(count(&root, "svg g.node"), 4);
    let titles: Vec<String> = (0..4)
        .map(|i| {
            let g: Element = root.query_selector_all("svg g.node").unwrap().item(i).unwrap().dyn_into().unwrap();
            one(&g, "text.title").text_content().unwrap()
        })
        .collect();
    assert_eq!(titles, ["entry", "loop", "body", "done"]);
    assert_eq!(
        one(&root, r#"g.node[data-id="loop"] tspan[data-line="1"]"#).text_content().unwrap(),
        "br cond .body .done;"
    );
    assert_eq!(count(&root, "svg path.edge"), 4);
    assert_eq!(count(&root, "svg path.edge-true"), 1);
    assert!(!has_class(&one(&root, ".graph-view"), "pending"), "a small graph is laid out at once");

    // The browser lays the SVG out at a sensible size, and the code fits in its box
    // (monospace text measured by the real font, not our 0.62 em estimate).
    let r = one(&root, "svg").get_bounding_client_rect();
    assert!(r.width() > 100.0 && r.height() > 100.0, "{} x {}", r.width(), r.height());
    let loop_box = one(&root, r#"g.node[data-id="loop"] rect.box"#).get_bounding_client_rect();
    let code = one(&root, r#"g.node[data-id="loop"] text.code"#).get_bounding_client_rect();
    assert!(code.right() <= loop_box.right() + 0.5, "code {} overflows box {}", code.right(), loop_box.right());
    assert!(code.bottom() <= loop_box.bottom() + 0.5, "code {} overflows box {}", code.bottom(), loop_box.bottom());
    // The theme's colours apply (graph.css): box fill from --g-node-bg, true edges green.
    let win = web_sys::window().unwrap();
    let edge = win.get_computed_style(&one(&root, "path.edge-true")).unwrap().unwrap();
    assert_eq!(edge.get_property_value("stroke").unwrap(), "rgb(26, 127, 55)");
}

#[wasm_bindgen_test]
async fn clicks_select_nodes_and_code_lines() {
    let root = mount();
    let got: Rc<RefCell<Vec<String>>> = Rc::default();
    let mut p = props(small_graph());
    let g1 = got.clone();
    p.onselect = Callback::from(move |id: String| g1.borrow_mut().push(format!("node {id}")));
    let g2 = got.clone();
    p.onselectline = Callback::from(move |(id, k): (String, usize)| g2.borrow_mut().push(format!("line {id}:{k}")));
    let mut decor = Decor::new();
    decor.entry_badge(3, Badge::new("NdSafe 1", "on"));
    p.decor = Rc::new(decor);
    yew::Renderer::<GraphView>::with_root_and_props(root.clone(), p).render();
    sleep(Duration::from_millis(50)).await;

    click(&one(&root, r#"g.node[data-id="body"] text.title"#));
    assert_eq!(*got.borrow(), ["node body"]);
    got.borrow_mut().clear();
    click(&one(&root, r#"g.node[data-id="loop"] rect.line-bg[data-line="1"]"#));
    assert_eq!(*got.borrow(), ["node loop", "line loop:1"]);
    got.borrow_mut().clear();
    click(&one(&root, r#"g.node[data-id="entry"] tspan[data-line="0"]"#));
    assert_eq!(*got.borrow(), ["node entry", "line entry:0"]);
    got.borrow_mut().clear();
    click(&one(&root, r#"g.node[data-id="done"] rect.box"#));
    click(&one(&root, r#".badges[data-id="done"] text"#));
    assert_eq!(*got.borrow(), ["node done", "node done"]);
    got.borrow_mut().clear();
    // Edges and empty space select nothing.
    click(&one(&root, "path.edge"));
    click(&one(&root, ".graph-canvas"));
    assert!(got.borrow().is_empty(), "{:?}", got.borrow());
}

#[wasm_bindgen_test]
async fn zoom_buttons_and_the_wheel_change_the_transform() {
    let root = mount();
    yew::Renderer::<GraphView>::with_root_and_props(root.clone(), props(small_graph())).render();
    sleep(Duration::from_millis(50)).await;
    let button = |c: &str| one(&root, &format!("button.{c}")).dyn_into::<HtmlElement>().unwrap();

    // Each click re-renders in a later task: wait for the new transform (polling) rather than
    // a fixed time, which a loaded machine can miss (a CI run read 1 after 20 ms).
    let r = &root;
    let near = |k: f64| move || (scale(r) - k).abs() < 1e-3;
    assert_eq!(scale(&root), 1.0, "a small graph starts at its natural size");
    button("zoom-in").click();
    until(5, "zoom in to 1.25", near(1.25)).await;
    button("zoom-out").click();
    until(5, "zoom out to 1", near(1.0)).await;
    button("zoom-out").click();
    until(5, "zoom out to 0.8", near(0.8)).await;
    button("zoom-fit").click();
    until(5, "fit, which never enlarges past 1:1", near(1.0)).await;

    let init = web_sys::WheelEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_delta_y(-200.0);
    init.set_client_x(300);
    init.set_client_y(200);
    let wheel = web_sys::WheelEvent::new_with_event_init_dict("wheel", &init).unwrap();
    one(&root, ".graph-canvas").dispatch_event(&wheel).unwrap();
    until(5, "the wheel to zoom in past 1.2", || scale(&root) > 1.2).await;
    assert!(wheel.default_prevented(), "the page must not scroll while zooming");
    assert!(root.query_selector("button.export-svg").unwrap().is_some());
    assert!(root.query_selector("button.export-png").unwrap().is_some());
}

#[wasm_bindgen_test]
async fn a_new_decor_repaints_with_the_same_layout() {
    let root = mount();
    let p = props(small_graph());
    let graph = p.graph.clone();
    let mut app = yew::Renderer::<GraphView>::with_root_and_props(root.clone(), p).render();
    sleep(Duration::from_millis(50)).await;
    let layout_before = cached_layout(&graph, &Style::default()).expect("cached");
    let rect = |id: &str| one(&root, &format!(r#"g.node[data-id="{id}"] rect.box"#)).get_attribute("x").unwrap();
    let body_x = rect("body");
    let body = one(&root, r#"g.node[data-id="body"]"#);

    let mut decor = Decor::new();
    decor.node_class(2, "current").line_class(1, 1, "live").edge_class(1, "highlight");
    decor.entry_badge(2, Badge::new("NdSafe 1", "on"));
    let mut p = props(small_graph());
    p.graph = graph.clone();
    p.decor = Rc::new(decor);
    app.update(p);
    sleep(Duration::from_millis(50)).await;

    assert!(has_class(&body, "current"));
    assert!(body.is_connected(), "the drawing is decorated in place, not parsed again");
    assert!(has_class(&one(&root, r#"g.node[data-id="loop"] tspan[data-line="1"]"#), "live"));
    assert_eq!(count(&root, "path.edge.highlight"), 1);
    assert_eq!(one(&root, r#".badge-layer .badges.entry[data-id="body"] text"#).text_content().unwrap(), "NdSafe 1");
    assert_eq!(rect("body"), body_x);
    let layout_after = cached_layout(&graph, &Style::default()).unwrap();
    assert!(Rc::ptr_eq(&layout_before, &layout_after), "stepping must not lay out again");
}

/// An element as text with its attributes sorted, so two trees built differently (parsed vs
/// patched in place) compare equal when they mean the same. The keyboard and screen-reader
/// attributes GraphView adds to a drawing on the page (roving tab stop, roles, labels) are
/// left out: they are not the paint's.
fn canon(node: &web_sys::Node) -> String {
    let Some(el) = node.dyn_ref::<Element>() else { return node.text_content().unwrap_or_default() };
    let mut attrs: Vec<String> = el
        .get_attribute_names()
        .iter()
        .filter_map(|n| n.as_string())
        .filter(|n| !matches!(n.as_str(), "role" | "aria-label" | "tabindex"))
        .map(|n| format!("{n}={:?}", el.get_attribute(&n).unwrap_or_default()))
        .collect();
    attrs.sort();
    let kids = el.child_nodes();
    let inner: String = (0..kids.length()).filter_map(|i| kids.item(i)).map(|k| canon(&k)).collect();
    format!("<{} {}>{inner}</>", el.tag_name(), attrs.join(" "))
}

#[wasm_bindgen_test]
async fn decorations_applied_in_place_match_a_fresh_paint() {
    let root = mount();
    let graph = Rc::new(small_graph());
    let style = Style::default();
    let mut first = Decor::new();
    first.node_class(0, "selected").line_class(1, 1, "live current").edge_class(2, "highlight");
    first.entry_badge(2, Badge::new("NdSafe 1", "on").with_title("needed & safe"));
    first.exit_badge(3, Badge::new("XLatest 0", "off"));
    let mut second = Decor::new();
    second.node_class(1, "split").line_class(1, 0, "dead").line_class(2, 1, "inserted");
    second.exit_badge(0, Badge::new("a very long badge that sticks out", "changed"));
    let steps = [first.clone(), second, Decor::new(), first];

    let mut p = props(small_graph());
    p.graph = graph.clone();
    let mut app = yew::Renderer::<GraphView>::with_root_and_props(root.clone(), p).render();
    sleep(Duration::from_millis(30)).await;
    let lay = layout(&graph, &style);
    let doc = web_sys::window().unwrap().document().unwrap();
    for (k, decor) in steps.into_iter().enumerate() {
        let expected = doc.create_element("div").unwrap();
        expected.set_inner_html(&paint(&graph, &lay, &style, &decor));
        let mut p = props(small_graph());
        p.graph = graph.clone();
        p.decor = Rc::new(decor);
        app.update(p);
        sleep(Duration::from_millis(30)).await;
        let live = one(&root, "svg");
        assert_eq!(canon(&live), canon(&one(&expected, "svg")), "step {k}");
    }
}

#[wasm_bindgen_test]
async fn a_large_graph_is_laid_out_later_with_a_message_meanwhile() {
    let root = mount();
    let t0 = js_sys::Date::now();
    let mut app = yew::Renderer::<GraphView>::with_root_and_props(root.clone(), props(chain(200))).render();
    sleep(Duration::from_millis(0)).await;
    let first_paint = js_sys::Date::now() - t0;
    // Rendering did not wait for the layout: the message is up, no drawing yet.
    let status = one(&root, ".graph-status").text_content().unwrap();
    assert_eq!(status, "laying out 200 blocks…");
    assert!(has_class(&one(&root, ".graph-view"), "pending"));
    assert_eq!(count(&root, "svg g.node"), 0);
    assert!(first_paint < 150.0, "first render took {first_paint} ms");

    until(30, "200 boxes", || count(&root, "svg g.node") == 200).await;
    assert!(root.query_selector(".graph-status").unwrap().is_none());
    assert!(!has_class(&one(&root, ".graph-view"), "pending"));
    // A large graph starts readable, at its top, not shrunk to fit.
    assert!(scale(&root) >= 0.59, "{}", scale(&root));

    // Another large graph: the old drawing stays up, dimmed, until the new one is ready.
    app.update(props(chain(150)));
    sleep(Duration::from_millis(0)).await;
    assert!(has_class(&one(&root, ".graph-view"), "pending"));
    assert_eq!(count(&root, "svg g.node"), 200, "the previous drawing is kept while pending");
    assert_eq!(one(&root, ".graph-status").text_content().unwrap(), "laying out 150 blocks…");
    until(30, "150 boxes", || count(&root, "svg g.node") == 150).await;

    // Back to the first graph: remembered, so drawn at once.
    app.update(props(chain(200)));
    sleep(Duration::from_millis(0)).await;
    assert_eq!(count(&root, "svg g.node"), 200);
    assert!(!has_class(&one(&root, ".graph-view"), "pending"));
}

#[wasm_bindgen_test]
async fn a_worker_that_crashes_on_a_graph_gets_a_plain_layout_drawn_and_is_replaced() {
    // A stand-in worker: says it is ready, then dies on every request (as a panic would).
    let script = r#"postMessage(JSON.stringify("Ready")); onmessage = () => { throw new Error("layout worker crash (test)"); };"#;
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("text/javascript");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&js_sys::Array::of1(&script.into()), &opts).unwrap();
    let url = web_sys::Url::create_object_url_with_blob(&blob).unwrap();
    set_worker_url(Some(url));

    let root = mount();
    let p = props(chain(120));
    let graph = p.graph.clone();
    yew::Renderer::<GraphView>::with_root_and_props(root.clone(), p).render();
    until(30, "120 boxes", || count(&root, "svg g.node") == 120).await;
    assert!(!has_class(&one(&root, ".graph-view"), "pending"));
    // Not laid out again on the main thread (which a crash could take down): the plain layout.
    let shown = cached_layout(&graph, &Style::default()).unwrap();
    assert_eq!(*shown, fallback_layout(&graph, &Style::default()));
    // A new worker took the dead one's place.
    until(10, "a replacement worker", worker_ready).await;
    set_worker_url(Some(DEFAULT_WORKER_URL.to_string()));
}

#[wasm_bindgen_test]
async fn export_embeds_the_theme_and_renders_a_png() {
    let root = mount();
    yew::Renderer::<GraphView>::with_root_and_props(root.clone(), props(small_graph())).render();
    sleep(Duration::from_millis(50)).await;
    let svg = one(&root, ".graph-stage").inner_html();
    let canvas = one(&root, ".graph-canvas");
    let file = standalone_svg_for(&svg, &canvas);
    assert!(file.starts_with("<?xml"));
    assert!(file.contains("--g-true:#1a7f37;") || file.contains("--g-true:rgb(26, 127, 55);"), "{}", &file[..600]);
    assert!(file.contains("svg.optlab-graph .edge-true { stroke: var(--g-true); }"));

    // A dark theme on the page is what the file gets.
    let html = web_sys::window().unwrap().document().unwrap().document_element().unwrap();
    html.set_attribute("data-theme", "dark").unwrap();
    let dark = standalone_svg_for(&svg, &canvas);
    html.remove_attribute("data-theme").unwrap();
    assert!(dark.contains("--g-node-bg:#1d232a;") || dark.contains("--g-node-bg:rgb(29, 35, 42);"), "{}", &dark[..600]);

    let png = png_blob(&svg, &canvas, 2.0).await.expect("a PNG");
    assert_eq!(png.type_(), "image/png");
    let svg_w: f64 = one(&root, "svg").get_attribute("width").unwrap().parse().unwrap();
    // Drawn at twice the size: a PNG of a few hundred px across is at least a few KB.
    assert!(png.size() > 2000.0, "{} bytes for a {svg_w} px drawing", png.size());
}
