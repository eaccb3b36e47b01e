//! The LCM view rendered in headless Chromium (wasm-bindgen-test; see scripts/test.sh), on the
//! gallery's copy of seed 004's 13-node example. Expected values are the seed's sets for a+b.
#![cfg(target_arch = "wasm32")]

use optlab_core::passes::lcm::Pred;
use optlab_web::state::{Action, State, StepCmd, Tab};
use optlab_web::views::lcm::LcmView;
use optlab_web::views::ViewProps;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};
use yew::Callback;

wasm_bindgen_test_configure!(run_in_browser);

/// The seed's sets (node K is block nK).
const ND_SAFE: [u32; 6] = [6, 7, 9, 10, 11, 12];
const X_D_SAFE: [u32; 6] = [2, 5, 6, 9, 10, 11];
const N_LATEST: [u32; 1] = [11];

fn mount() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let root = doc.create_element("div").unwrap();
    root.set_attribute("style", "width: 1000px; height: 700px; display: flex; flex-direction: column").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    root
}

async fn render(state: State) -> Element {
    let root = mount();
    let props = ViewProps { state: Rc::new(state), dispatch: Callback::noop() };
    yew::Renderer::<LcmView>::with_root_and_props(root.clone(), props).render();
    yew::platform::time::sleep(Duration::from_millis(100)).await;
    root
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length()).map(|i| list.item(i).unwrap().dyn_into().unwrap()).collect()
}

fn cell(root: &Element, block: &str, p: Pred) -> Element {
    let sel = format!(r#"#lcm-table tr[data-block="{block}"] td[data-pred="{}"]"#, p.name());
    root.query_selector(&sel).unwrap().unwrap_or_else(|| panic!("no cell {sel}"))
}

fn has_class(el: &Element, class: &str) -> bool {
    el.get_attribute("class").unwrap_or_default().split_whitespace().any(|c| c == class)
}

fn text(el: &Element) -> String {
    el.text_content().unwrap_or_default()
}

/// The article's example at the last step of trace step `stage` (2: down-safety, 6: latest).
fn article_at(stage: usize, exercise: bool) -> State {
    let s = State::default().apply(Action::LoadExample("lcm-article".into())).apply(Action::SelectTab(Tab::pass("lcm")));
    let out = optlab_web::views::lcm::output(s.analysis.as_ref().unwrap()).unwrap();
    let k = out.steps().last_of(stage).unwrap();
    s.apply(Action::Step(StepCmd::To(k))).apply(Action::SetExercise(exercise))
}

fn bit(set: &[u32], n: u32) -> &'static str {
    if set.contains(&n) {
        "1"
    } else {
        "0"
    }
}

#[wasm_bindgen_test]
async fn the_table_and_the_graph_show_down_safety_as_the_seed_prints_it() {
    let root = render(article_at(2, false)).await;
    let blocks: Vec<String> =
        all(&root, "#lcm-table tbody tr").iter().map(|r| r.get_attribute("data-block").unwrap()).collect();
    let mut expected = vec!["s".to_string()];
    expected.extend((1..=13).map(|n| format!("n{n}")));
    assert_eq!(blocks, expected);
    for n in 1..=13 {
        let b = format!("n{n}");
        assert_eq!(text(&cell(&root, &b, Pred::NdSafe)), bit(&ND_SAFE, n), "NdSafe({b})");
        assert_eq!(text(&cell(&root, &b, Pred::XdSafe)), bit(&X_D_SAFE, n), "XdSafe({b})");
        assert_eq!(text(&cell(&root, &b, Pred::NuSafe)), "", "up-safety comes later");
    }
    // The graph: one NdSafe badge above and one XdSafe badge below every block.
    let badges: Vec<String> = all(&root, ".lcm-graph svg g.badges.entry g.badge text").iter().map(text).collect();
    assert_eq!(badges.len(), 14);
    assert_eq!(badges.iter().filter(|t| *t == "NdSafe 1").count(), ND_SAFE.len());
    assert_eq!(all(&root, ".lcm-graph svg g.badges.exit g.badge.on").len(), X_D_SAFE.len());
    // Column headers explain their equation on hover; this step's columns are marked.
    let head = root.query_selector(r#"#lcm-table th[data-pred="XdSafe"]"#).unwrap().unwrap();
    assert!(head.get_attribute("title").unwrap().contains("∀S ∈ succ(B): NdSafe(S)"));
    assert!(has_class(&head, "current"));
    let stages = all(&root, ".lcm-stage");
    assert_eq!(stages.len(), 8);
    assert!(has_class(&stages[2], "active") && has_class(&stages[1], "done"));
    assert_eq!(
        root.query_selector("#lcm-expr").unwrap().unwrap().dyn_into::<web_sys::HtmlSelectElement>().unwrap().value(),
        "add a b"
    );
}

#[wasm_bindgen_test]
async fn latest_is_the_seeds_and_a_picked_expression_is_shown() {
    let root = render(article_at(6, false)).await;
    for n in 1..=13 {
        assert_eq!(text(&cell(&root, &format!("n{n}"), Pred::NLatest)), bit(&N_LATEST, n), "NLatest(n{n})");
    }
    // Another expression: the loop's `lt i n`, computed only in n7, is never delayed out of it.
    let s = article_at(6, false).apply(Action::SelectExpr(Some("lt i n".into())));
    let root = render(s).await;
    assert_eq!(text(&cell(&root, "n7", Pred::NComp)), "1");
    assert_eq!(text(&cell(&root, "n11", Pred::NComp)), "0");
}

#[wasm_bindgen_test]
async fn exercise_mode_hides_the_step_and_grades_clicks() {
    let root = render(article_at(2, true)).await;
    assert_eq!(all(&root, "#lcm-table td.hidden").len(), 2 * 14);
    assert_eq!(text(&cell(&root, "n7", Pred::NComp)), "1", "earlier steps stay visible");
    cell(&root, "n6", Pred::NdSafe).dyn_into::<HtmlElement>().unwrap().click();
    cell(&root, "n4", Pred::NdSafe).dyn_into::<HtmlElement>().unwrap().click();
    yew::platform::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(text(&cell(&root, "n6", Pred::NdSafe)), "1");
    root.query_selector("#reveal").unwrap().expect("a reveal button").dyn_into::<HtmlElement>().unwrap().click();
    yew::platform::time::sleep(Duration::from_millis(50)).await;
    assert!(has_class(&cell(&root, "n6", Pred::NdSafe), "guess-right"));
    assert!(has_class(&cell(&root, "n4", Pred::NdSafe), "guess-wrong"));
    assert!(has_class(&cell(&root, "n9", Pred::XdSafe), "missed"));
    assert_eq!(all(&root, "#lcm-table td.missed").len(), ND_SAFE.len() + X_D_SAFE.len() - 1);
    assert_eq!(all(&root, "#lcm-table td.hidden").len(), 0);
}

#[wasm_bindgen_test]
async fn lcm_runs_on_the_sil_article_example() {
    let s = State::default().apply(Action::LoadExample("lcm-article-sil".into())).apply(Action::SelectTab(Tab::pass("lcm")));
    let root = render(s).await;
    assert!(root.query_selector(".lcm-refused").unwrap().is_none(), "LCM refused the SIL example");
    assert!(root.query_selector("#lcm-table").unwrap().is_some(), "no predicate table for SIL");
}
