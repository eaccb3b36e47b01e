//! The views on the right of the editor, one per [`Tab`]. Each renders the shared
//! [`crate::program::Analysis`] at its own step and dispatches [`Action`]s; none computes an
//! analysis.

pub mod cfg;
pub mod copyprop;
pub mod dce;
pub mod diff;
pub mod dom;
pub mod lcm;

use crate::state::{Action, State, Tab};
use std::rc::Rc;
use yew::prelude::*;

/// What every view gets: the whole state (cheap to share) and the dispatcher.
#[derive(Properties, PartialEq, Clone)]
pub struct ViewProps {
    pub state: Rc<State>,
    pub dispatch: Callback<Action>,
}

#[function_component(ViewPane)]
pub fn view_pane(props: &ViewProps) -> Html {
    let s = &props.state;
    let stale = s.is_stale().then(|| {
        html! { <p class="stale" role="status">{ "The text has errors: showing the last program that parsed." }</p> }
    });
    let body = match &s.analysis {
        Err(why) => html! { <p class="empty">{ why.clone() }</p> },
        Ok(_) => match s.tab {
            Tab::Cfg => html! { <cfg::CfgView ..props.clone() /> },
            Tab::Dom | Tab::PostDom | Tab::Cdg => html! { <dom::DomView ..props.clone() /> },
            Tab::Dce => html! { <dce::DceView ..props.clone() /> },
            Tab::Lcm => html! { <lcm::LcmView ..props.clone() /> },
            Tab::Diff => html! { <diff::DiffView ..props.clone() /> },
        },
    };
    html! {
        <div class={classes!("view", format!("view-{}", s.tab.slug()))}>
            { for stale }
            { body }
        </div>
    }
}
