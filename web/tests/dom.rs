//! The dominator views rendered in headless Chromium (wasm-bindgen-test; see scripts/test.sh):
//! both Lengauer–Tarjan tabs and the control-dependence tab, on the example loaded at start
//! (static/examples/loop.bril).
#![cfg(target_arch = "wasm32")]

use optlab_web::state::{Action, State, StepCmd, Tab};
use optlab_core::dom::VIRTUAL_EXIT_NAME as VIRTUAL_EXIT;
use optlab_web::views::dom::DomView;
use optlab_web::views::ViewProps;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;
use yew::Callback;

wasm_bindgen_test_configure!(run_in_browser);

fn mount() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let root = doc.create_element("div").unwrap();
    root.set_attribute("style", "width: 900px; height: 700px; display: flex; flex-direction: column").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    root
}

/// Renders the view for `state` into a fresh element and gives it time to paint.
async fn render(state: State) -> Element {
    let root = mount();
    let props = ViewProps { state: Rc::new(state), dispatch: Callback::noop() };
    yew::Renderer::<DomView>::with_root_and_props(root.clone(), props).render();
    yew::platform::time::sleep(Duration::from_millis(100)).await;
    root
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length()).map(|i| list.item(i).unwrap().dyn_into().unwrap()).collect()
}

fn text(el: &Element, selector: &str) -> String {
    el.query_selector(selector).unwrap().map(|e| e.text_content().unwrap_or_default()).unwrap_or_default()
}

/// `(vertex, idom cell)` for every row of the table.
fn idoms(root: &Element) -> Vec<(String, String)> {
    all(root, ".lt-steps tbody tr")
        .iter()
        .map(|r| (r.get_attribute("data-block").unwrap(), text(r, "td.idom")))
        .collect()
}

fn at(tab: Tab, step: StepCmd) -> State {
    State::default().apply(Action::SelectTab(tab)).apply(Action::Step(step))
}

#[wasm_bindgen_test]
async fn the_dominator_tab_shows_both_panes_and_the_table_at_its_step() {
    let root = render(at(Tab::DOM, StepCmd::First)).await;
    assert_eq!(all(&root, ".dom-search svg g.node").len(), 6);
    assert_eq!(all(&root, ".dom-tree svg g.node").len(), 6);
    assert!(idoms(&root).iter().all(|(_, idom)| idom.is_empty()), "{:?}", idoms(&root));
    assert!(all(&root, ".lt-steps td.dfs").iter().all(|c| c.text_content().unwrap_or_default().is_empty()));

    let root = render(at(Tab::DOM, StepCmd::Last)).await;
    let got = idoms(&root);
    let want: Vec<(String, String)> = [("entry", ""), ("loop", "entry"), ("body", "loop"), ("odd", "body"), ("next", "body"), ("done", "loop")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, want);
    assert_eq!(all(&root, ".dom-tree svg path.edge:not(.lt-hidden)").len(), 5);
    // The DFS spanning tree is drawn on the CFG: one edge into every vertex but the root.
    assert_eq!(all(&root, ".dom-search svg path.edge.lt-tree").len(), 5);
}

#[wasm_bindgen_test]
async fn the_post_dominator_tab_draws_the_virtual_exit() {
    let root = render(at(Tab::PDOM, StepCmd::Last)).await;
    let exit = format!(r#"svg g.node[data-id="{VIRTUAL_EXIT}"]"#);
    let search = all(&root, &format!(".dom-search {exit}"));
    let tree = all(&root, &format!(".dom-tree {exit}"));
    assert_eq!((search.len(), tree.len()), (1, 1));
    assert!(tree[0].get_attribute("class").unwrap_or_default().split_whitespace().any(|c| c == "virtual"));
    let rows = idoms(&root);
    assert_eq!(rows[0], (VIRTUAL_EXIT.to_string(), String::new()));
    assert!(rows.contains(&("done".to_string(), VIRTUAL_EXIT.to_string())), "{rows:?}");
    // The edge from the virtual exit to done (the block that returns) is drawn.
    let edge = format!(r#".dom-search svg path.edge[data-from="{VIRTUAL_EXIT}"][data-to="done"]"#);
    assert_eq!(all(&root, &edge).len(), 1);
    assert!(text(&root, ".frontier-note").starts_with("Click a block"));
}

#[wasm_bindgen_test]
async fn the_selected_block_shows_its_frontier() {
    let state = at(Tab::DOM, StepCmd::Last).apply(Action::SelectBlock(Some("odd".into())));
    let root = render(state).await;
    assert!(text(&root, ".frontier-note").starts_with("DF(odd) = {next}"), "{}", text(&root, ".frontier-note"));
    let marked: Vec<String> =
        all(&root, ".dom-tree svg g.node.frontier").iter().map(|g| g.get_attribute("data-id").unwrap()).collect();
    assert_eq!(marked, ["next"]);
    assert_eq!(all(&root, r#".lt-steps tr.selected[data-block="odd"]"#).len(), 1);
}

#[wasm_bindgen_test]
async fn the_cdg_tab_draws_one_edge_per_dependence() {
    let root = render(at(Tab::CDG, StepCmd::First)).await;
    let mut edges: Vec<String> = all(&root, ".dom-cdg svg path.edge")
        .iter()
        .map(|e| format!("{}→{}", e.get_attribute("data-from").unwrap(), e.get_attribute("data-to").unwrap()))
        .collect();
    edges.sort();
    assert_eq!(edges, ["body→odd", "loop→body", "loop→loop", "loop→next"]);
    assert_eq!(all(&root, "#cdg-table tbody tr").len(), 6);
}
