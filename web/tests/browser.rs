//! Runs in headless Chromium (wasm-bindgen-test-runner + chromedriver; see scripts/test.sh).
#![cfg(target_arch = "wasm32")]

use optlab_web::app::{SvgView, SvgViewProps};
use optlab_web::graph_svg::{render_svg, Edge, EdgeKind, Graph, Node, Style};
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;

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

fn mount() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    root
}

#[wasm_bindgen_test]
async fn svg_view_shows_every_block_label_and_code_line() {
    let svg = render_svg(&small_graph(), &Style::default());
    let root = mount();
    yew::Renderer::<SvgView>::with_root_and_props(root.clone(), SvgViewProps { svg: svg.into() }).render();
    yew::platform::time::sleep(Duration::from_millis(50)).await;

    let nodes = root.query_selector_all("svg g.node").unwrap();
    assert_eq!(nodes.length(), 4);
    let titles: Vec<String> = (0..nodes.length())
        .map(|i| {
            let g: Element = nodes.item(i).unwrap().dyn_into().unwrap();
            g.query_selector("text.title").unwrap().unwrap().text_content().unwrap()
        })
        .collect();
    assert_eq!(titles, ["entry", "loop", "body", "done"]);
    let text = root.text_content().unwrap();
    assert!(text.contains("br cond .body .done;"), "{text}");
    assert_eq!(root.query_selector_all("svg path.edge").unwrap().length(), 4);

    // The browser lays the SVG out at a sensible size, and the code fits in its box
    // (monospace text measured by the real font, not our 0.62 em estimate).
    let svg_el = root.query_selector("svg").unwrap().unwrap();
    let r = svg_el.get_bounding_client_rect();
    assert!(r.width() > 100.0 && r.height() > 100.0, "{} x {}", r.width(), r.height());
    let loop_box = root.query_selector(r#"g.node[data-id="loop"] rect"#).unwrap().unwrap().get_bounding_client_rect();
    let code = root.query_selector(r#"g.node[data-id="loop"] text.code"#).unwrap().unwrap().get_bounding_client_rect();
    assert!(code.right() <= loop_box.right() + 0.5, "code {} overflows box {}", code.right(), loop_box.right());
    assert!(code.bottom() <= loop_box.bottom() + 0.5, "code {} overflows box {}", code.bottom(), loop_box.bottom());
}
