//! The dominator views (tabs Dominators, Post-dominators and Control dependence): the trees
//! drawn as Lengauer–Tarjan builds them, step by step, on the CFG or the reverse CFG, and the
//! control-dependence graph with the post-dominance frontier that defines it.
//!
//! The step texts and what is known at step `k` come from core
//! ([`optlab_core::dom::lt_steps`], [`optlab_core::dom::replay`]); vertices are named by
//! [`optlab_core::dom::DomNode::name`].
//!
//! - [`graphs`]: the drawings (searched graph, tree, CDG), laid out once per program;
//!   [`decor`]: what a step adds to them; [`table`]: the Lengauer–Tarjan table's rows.
//! - [`lt_view`], [`cdg_view`]: the components.

pub mod cdg_view;
pub mod decor;
pub mod graphs;
pub mod lt_view;
pub mod table;

/// The three tabs' view: Lengauer–Tarjan for Dominators and Post-dominators, the CDG for
/// Control dependence.
#[yew::function_component(DomView)]
pub fn view(props: &super::ViewProps) -> yew::Html {
    match props.state.tab {
        crate::state::Tab::CDG => yew::html! { <cdg_view::CdgView ..props.clone() /> },
        _ => yew::html! { <lt_view::LtView ..props.clone() /> },
    }
}

/// The program the view's unit tests step through.
#[cfg(test)]
pub(crate) mod fixtures {
    use optlab_core::{parse_module, Function, Lang};

    /// The first function of a Bril text.
    pub(crate) fn bril(text: &str) -> Function {
        let m = parse_module(Lang::Bril, "t.bril", text).expect("parses");
        let f = m.bodies().next().expect("a body").clone();
        f
    }

    /// A loop with a branch inside, an unreachable block, and an infinite loop after `done`
    /// (the same program core's Lengauer–Tarjan replay tests use).
    pub(crate) const LOOPY: &str = "@main {\n.entry:\n  n: int = const 4;\n  jmp .head;\n.head:\n  c: bool = lt n n;\n  br c .body .done;\n.body:\n  br c .a .b;\n.a:\n  jmp .latch;\n.b:\n  jmp .latch;\n.latch:\n  jmp .head;\n.dead:\n  jmp .done;\n.done:\n  br c .spin .out;\n.spin:\n  jmp .spin;\n.out:\n  ret;\n}\n";
}

#[cfg(test)]
mod tests;
