//! The dominator views (tabs Dominators, Post-dominators and Control dependence): the trees
//! drawn as Lengauer–Tarjan builds them, step by step, on the CFG or the reverse CFG, and the
//! control-dependence graph with the post-dominance frontier that defines it.
//!
//! - [`steps`]: the step texts; [`replay`]: what is known at step `k` (replays the core's trace).
//! - [`graphs`]: the drawings (searched graph, tree, CDG), laid out once per program;
//!   [`decor`]: what a step adds to them; [`table`]: the `#lt-table` rows.
//! - [`lt_view`], [`cdg_view`]: the components; [`names`]: how vertices are named.

pub mod cdg_view;
pub mod decor;
pub mod graphs;
pub mod lt_view;
pub mod names;
pub mod replay;
pub mod steps;
pub mod table;

pub use steps::Steps;

/// The three tabs' view: Lengauer–Tarjan for Dominators and Post-dominators, the CDG for
/// Control dependence.
#[yew::function_component(DomView)]
pub fn view(props: &super::ViewProps) -> yew::Html {
    match props.state.tab {
        crate::state::Tab::Cdg => yew::html! { <cdg_view::CdgView ..props.clone() /> },
        _ => yew::html! { <lt_view::LtView ..props.clone() /> },
    }
}

#[cfg(test)]
mod tests;
