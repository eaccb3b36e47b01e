//! The views on the right of the editor, one per [`Tab`]. Each renders the shared
//! [`crate::program::Analysis`] at its own step and dispatches [`Action`]s; none computes an
//! analysis.
//!
//! A registered pass's tab shows the view [`PASS_VIEWS`] lists for its slug, or, until it has
//! one, [`pass::PassView`]: its summary, its steps and its output.
//!
//! The first-visit build (without the `full` feature, see [`crate::handoff`]) has the CFG view
//! only; every other tab says "loading…" until the full app takes the page over.

pub mod cfg;
#[cfg(feature = "full")]
pub mod copyelim;
#[cfg(feature = "full")]
pub mod copyprop;
#[cfg(feature = "full")]
pub mod dce;
#[cfg(feature = "full")]
pub mod diff;
#[cfg(feature = "full")]
pub mod dom;
#[cfg(feature = "full")]
pub mod lcm;
#[cfg(feature = "full")]
pub mod lowering;
#[cfg(feature = "full")]
pub mod ownership;
#[cfg(feature = "full")]
pub mod pass;
#[cfg(feature = "full")]
pub mod types;

use crate::state::{Action, State, Tab};
use std::rc::Rc;
use yew::prelude::*;

/// What every view gets: the whole state (cheap to share) and the dispatcher.
#[derive(Properties, PartialEq, Clone)]
pub struct ViewProps {
    pub state: Rc<State>,
    pub dispatch: Callback<Action>,
}

/// Draws a view.
pub type Render = fn(&ViewProps) -> Html;

/// Each pass's own view, by the pass's slug.
#[cfg(feature = "full")]
pub const PASS_VIEWS: &[(&str, Render)] = &[
    ("dce", |p| html! { <dce::DceView ..p.clone() /> }),
    ("lcm", |p| html! { <lcm::LcmView ..p.clone() /> }),
    ("copyprop", |p| html! { <copyprop::CopyPropView ..p.clone() /> }),
    ("address-lowering", |p| html! { <lowering::LoweringView ..p.clone() /> }),
    ("copy-elim", |p| html! { <copyelim::CopyElimView ..p.clone() /> }),
];

#[function_component(ViewPane)]
pub fn view_pane(props: &ViewProps) -> Html {
    let s = &props.state;
    let stale = s.is_stale().then(|| {
        html! { <p class="stale" role="status">{ "The text has errors: showing the last program that parsed." }</p> }
    });
    let body = match &s.analysis {
        #[cfg(not(feature = "full"))]
        Err(why) if why == crate::build::SIL_LOADING => html! { <crate::handoff::Loading /> },
        Err(why) => html! { <p class="empty">{ why.clone() }</p> },
        Ok(_) => match s.tab {
            Tab::CFG => html! { <cfg::CfgView ..props.clone() /> },
            #[cfg(not(feature = "full"))]
            _ => html! { <crate::handoff::Loading /> },
            #[cfg(feature = "full")]
            Tab::DOM | Tab::PDOM | Tab::CDG => html! { <dom::DomView ..props.clone() /> },
            #[cfg(feature = "full")]
            Tab::DIFF => html! { <diff::DiffView ..props.clone() /> },
            #[cfg(feature = "full")]
            Tab::TYPES => html! { <types::TypesView ..props.clone() /> },
            #[cfg(feature = "full")]
            Tab::OWNERSHIP => html! { <ownership::OwnershipView ..props.clone() /> },
            #[cfg(feature = "full")]
            tab => match PASS_VIEWS.iter().find(|(slug, _)| *slug == tab.slug()) {
                Some((_, view)) => view(props),
                None => html! { <pass::PassView ..props.clone() /> },
            },
        },
    };
    html! {
        <div class={classes!("view", format!("view-{}", s.tab.slug()))}>
            { for stale }
            { body }
        </div>
    }
}
