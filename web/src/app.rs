//! Components: they render a [`State`] and dispatch [`Action`]s, nothing else.

use crate::examples::EXAMPLES;
use crate::state::{Action, State, View};
use web_sys::{HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(State::default);

    let oninput = {
        let dispatch = state.dispatcher();
        Callback::from(move |e: InputEvent| {
            let area: HtmlTextAreaElement = e.target_unchecked_into();
            dispatch.dispatch(Action::Edit(area.value()));
        })
    };
    let onchange = {
        let dispatch = state.dispatcher();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Ok(i) = select.value().parse::<usize>() {
                dispatch.dispatch(Action::LoadExample(i));
            }
        })
    };

    html! {
        <div class="app">
            <header class="bar">
                <h1>{ "optlab" }</h1>
                <label>
                    { "Example " }
                    <select id="example" {onchange}>
                        { for EXAMPLES.iter().enumerate().map(|(i, ex)| html! {
                            <option value={i.to_string()} selected={state.example == Some(i)}>{ ex.title }</option>
                        }) }
                    </select>
                </label>
            </header>
            <main class="panes">
                <section class="pane editor">
                    <h2>{ state.file.clone() }</h2>
                    <textarea id="source" spellcheck="false" autocomplete="off"
                        value={state.source.clone()} {oninput} />
                </section>
                <section class="pane graph">
                    <ViewPane view={state.view.clone()} />
                </section>
            </main>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct ViewPaneProps {
    pub view: View,
}

#[function_component(ViewPane)]
pub fn view_pane(props: &ViewPaneProps) -> Html {
    match &props.view {
        View::Cfg { function, blocks, svg } => html! {
            <>
                <h2>
                    { format!("CFG of @{function} · {blocks} blocks · branch edges: ") }
                    <span class="legend-true">{ "true" }</span>{ " / " }<span class="legend-false">{ "false" }</span>
                </h2>
                <SvgView svg={svg.clone()} />
            </>
        },
        View::Error(msg) => html! {
            <>
                <h2>{ "Error" }</h2>
                <pre id="errors" class="errors">{ msg.clone() }</pre>
            </>
        },
        View::Empty(msg) => html! { <p class="empty">{ msg.clone() }</p> },
    }
}

#[derive(Properties, PartialEq)]
pub struct SvgViewProps {
    /// A standalone `<svg>` element from [`crate::graph_svg::render_svg`].
    pub svg: AttrValue,
}

/// Shows an SVG string made by [`crate::graph_svg`] (its text is escaped there).
#[function_component(SvgView)]
pub fn svg_view(props: &SvgViewProps) -> Html {
    html! { <div class="svg-view">{ Html::from_html_unchecked(props.svg.clone()) }</div> }
}
