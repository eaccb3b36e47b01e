//! The DCE view and the before/after view rendered in headless Chromium (wasm-bindgen-test;
//! see scripts/test.sh), on the seed's first example `dead1` (seed 000).
#![cfg(target_arch = "wasm32")]

use optlab_core::Lang;
use optlab_core::passes::pipeline::Pipeline;
use optlab_web::state::{Action, Doc, State, StepCmd, Tab};
use optlab_web::views::dce::DceView;
use optlab_web::views::diff::DiffView;
use optlab_web::views::ViewProps;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;
use yew::platform::time::sleep;
use yew::Callback;

wasm_bindgen_test_configure!(run_in_browser);

const DEAD1: &str = include_str!("../../core/tests/golden/dce/seed_dead1.sil");

fn dead1(tab: Tab) -> State {
    State::new(Doc::new(DEAD1, Lang::Sil, "dead1.sil")).apply(Action::SelectTab(tab))
}

fn mount() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let root = doc.create_element("div").unwrap();
    root.set_attribute("style", "width: 1100px; height: 700px; display: flex; flex-direction: column").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    root
}

/// Renders `V` for `state`; the returned log collects every dispatched action.
async fn render<V>(state: State) -> (Element, Rc<RefCell<Vec<Action>>>)
where
    V: yew::BaseComponent<Properties = ViewProps>,
{
    let root = mount();
    let log = Rc::new(RefCell::new(Vec::new()));
    let sink = log.clone();
    let props = ViewProps { state: Rc::new(state), dispatch: Callback::from(move |a| sink.borrow_mut().push(a)) };
    yew::Renderer::<V>::with_root_and_props(root.clone(), props).render();
    sleep(Duration::from_millis(100)).await;
    (root, log)
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length()).map(|i| list.item(i).unwrap().dyn_into().unwrap()).collect()
}

fn one(root: &Element, selector: &str) -> Element {
    root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("no {selector}"))
}

fn text(el: &Element) -> String {
    el.text_content().unwrap_or_default()
}

fn click(el: &Element) {
    let init = web_sys::MouseEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    let ev = web_sys::MouseEvent::new_with_mouse_event_init_dict("click", &init).unwrap();
    el.dispatch_event(&ev).unwrap();
}

/// The code line `k` of block bb0 (line 0 is the header `bb0(%0 : $Int32, %1 : $Int32):`).
fn line(root: &Element, k: usize) -> Element {
    one(root, &format!(r#"g.node[data-id="bb0"] tspan[data-line="{k}"]"#))
}

fn classes(el: &Element) -> Vec<String> {
    el.get_attribute("class").unwrap_or_default().split_whitespace().map(str::to_string).collect()
}

#[wasm_bindgen_test]
async fn marking_lights_up_the_return_and_the_sweep_strikes_out_the_sum() {
    // Step 2: the return was just marked live, as a root.
    let (root, _) = render::<DceView>(dead1(Tab::pass("dce")).apply(Action::Step(StepCmd::To(2)))).await;
    assert_eq!(all(&root, "svg g.node").len(), 1);
    assert_eq!(text(&line(&root, 7)), "  return %0 : $Int32");
    assert_eq!(classes(&line(&root, 7)), ["live", "current"]);
    assert!(classes(&line(&root, 1)).is_empty(), "the sum is not marked");
    let marked = all(&root, ".marked-list li");
    assert_eq!(marked.len(), 1);
    assert!(text(&marked[0]).contains("function exit: return"), "{}", text(&marked[0]));

    // The end: six lines struck out, the return still live, the argument in the list.
    let (root, _) = render::<DceView>(dead1(Tab::pass("dce")).apply(Action::Step(StepCmd::Last))).await;
    for k in 1..=6 {
        assert!(classes(&line(&root, k)).contains(&"deleted".to_string()), "line {k}: {:?}", classes(&line(&root, k)));
    }
    assert_eq!(classes(&line(&root, 7)), ["live"]);
    let list: Vec<String> = all(&root, ".marked-list li code").iter().map(text).collect();
    assert_eq!(list, ["argument %0", "return %0 : $Int32"]);
}

#[wasm_bindgen_test]
async fn clicking_a_line_selects_its_instruction_and_the_chain_explains_it() {
    let (root, log) = render::<DceView>(dead1(Tab::pass("dce")).apply(Action::Step(StepCmd::Last))).await;
    click(&one(&root, r#"g.node[data-id="bb0"] rect.line-bg[data-line="7"]"#));
    let got = log.borrow().clone();
    let inst = got.iter().find_map(|a| if let Action::SelectInst(i) = a { *i } else { None }).expect("an instruction selected");
    assert!(got.contains(&Action::SelectBlock(Some("bb0".into()))), "{got:?}");

    let state = dead1(Tab::pass("dce")).apply(Action::Step(StepCmd::Last)).apply(Action::SelectInst(Some(inst)));
    let (root, _) = render::<DceView>(state).await;
    let why = text(&one(&root, "#dce-why"));
    assert!(why.contains("`return %0 : $Int32` (bb0) is live: it is a root — control leaves the function here"), "{why}");
    assert!(classes(&line(&root, 7)).contains(&"selected".to_string()));
}

#[wasm_bindgen_test]
async fn exercise_mode_grades_a_prediction_of_the_roots() {
    let (root, _) = render::<DceView>(dead1(Tab::pass("dce")).apply(Action::SetExercise(true))).await;
    let prompt = text(&one(&root, ".dce-exercise .prompt"));
    assert!(prompt.contains("live by themselves"), "{prompt}");
    // Guess the return (right) and the builtin (wrong).
    click(&one(&root, r#"g.node[data-id="bb0"] rect.line-bg[data-line="7"]"#));
    click(&one(&root, r#"g.node[data-id="bb0"] rect.line-bg[data-line="4"]"#));
    sleep(Duration::from_millis(50)).await;
    assert!(classes(&line(&root, 4)).contains(&"guess".to_string()));
    click(&one(&root, "#dce-reveal"));
    sleep(Duration::from_millis(50)).await;
    assert_eq!(text(&one(&root, ".dce-exercise .verdict")), "1 right · 1 wrong · 0 missed");
    assert!(classes(&line(&root, 7)).contains(&"right".to_string()));
    assert!(classes(&line(&root, 4)).contains(&"wrong".to_string()));
    assert!(root.query_selector(".dce-exercise .continue").unwrap().is_some());
}

#[wasm_bindgen_test]
async fn the_diff_view_shows_the_after_code_and_runs_both() {
    let state = dead1(Tab::DIFF).apply(Action::SetPipeline(Pipeline::parse("dce").unwrap()));
    let (root, log) = render::<DiffView>(state).await;
    let after: Vec<String> = all(&root, "#after-code .dl:not(.gap) .code").iter().map(text).collect();
    assert!(after.contains(&"  return %0 : $Int32".to_string()), "{after:?}");
    assert!(!after.iter().any(|l| l.contains("struct_extract")));
    assert_eq!(all(&root, "#before-code .dl.deleted").len(), 6);
    // Arguments for the two Int32 parameters, then both runs.
    let input: web_sys::HtmlInputElement = one(&root, "#run-args").dyn_into().unwrap();
    assert_eq!(input.value(), "1 1");
    click(&one(&root, "#run-both"));
    sleep(Duration::from_millis(50)).await;
    assert!(text(&one(&root, "#run-before")).contains("7 instructions executed"), "{}", text(&one(&root, "#run-before")));
    assert!(text(&one(&root, "#run-after")).contains("1 instruction executed"));
    assert!(text(&one(&root, ".verdict")).starts_with("Same behaviour"));
    click(&one(&root, "#pass-lcm"));
    assert_eq!(log.borrow().last(), Some(&Action::SetPipeline(Pipeline::parse("lcm").unwrap())));
}

/// The view a registered pass gets before it has its own: rendered here for DCE, which any
/// pass's run could stand in for (the view reads only what the pass contract gives).
#[wasm_bindgen_test]
async fn the_generic_pass_view_lists_every_step_and_the_output() {
    let state = dead1(Tab::pass("dce")).apply(Action::Step(StepCmd::To(2)));
    let run = state.analysis.as_ref().unwrap().run("dce").unwrap().clone();
    let (root, log) = render::<optlab_web::views::pass::PassView>(state).await;
    assert_eq!(text(&one(&root, ".pass-summary")), run.summary());
    let steps = all(&root, ".pass-steps li");
    assert_eq!(steps.len(), run.steps.len());
    assert!(classes(&steps[2]).contains(&"current".to_string()));
    assert_eq!(text(&steps[1]), run.steps.describe(1));
    assert!(text(&one(&root, ".pass-output")).contains("return %0 : $Int32"));
    click(&one(&root, ".pass-steps li:nth-child(4) .step-link"));
    assert_eq!(log.borrow().last(), Some(&Action::Step(StepCmd::To(3))));
}
