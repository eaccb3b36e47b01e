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
pub mod keep;
#[cfg(feature = "full")]
pub mod lcm;
#[cfg(feature = "full")]
pub mod lowering;
#[cfg(feature = "full")]
pub mod lvn;
#[cfg(feature = "full")]
pub mod ownership;
#[cfg(feature = "full")]
pub mod pass;
#[cfg(feature = "full")]
pub mod prefetch;
#[cfg(feature = "full")]
pub mod rows;
#[cfg(feature = "full")]
pub mod ssa;
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
    ("ssa", |p| html! { <ssa::SsaView ..p.clone() /> }),
    ("out-of-ssa", |p| html! { <ssa::OutOfSsaView ..p.clone() /> }),
    ("lvn", |p| html! { <lvn::LvnView ..p.clone() /> }),
];

/// The view of `props.state.tab` (with the stale-program notice): what a slot of the page holds.
fn body(props: &ViewProps) -> Html {
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
    html! { <>{ for stale }{ body }</> }
}

/// The first-visit build shows one view at a time (it has only the CFG's).
#[cfg(not(feature = "full"))]
#[function_component(ViewPane)]
pub fn view_pane(props: &ViewProps) -> Html {
    html! {
        <div class={classes!("view", format!("view-{}", props.state.tab.slug()))}>{ body(props) }</div>
    }
}

/// How many views the page holds: the one shown and three others, left or built ahead (see
/// [`keep`]).
#[cfg(feature = "full")]
const SLOTS: usize = 4;

/// Other views are built ahead of time only for a function of more than this many blocks:
/// a smaller one's view is built in well under 100 ms when opened.
#[cfg(feature = "full")]
pub const AHEAD_BLOCKS: usize = 250;

/// A view is built ahead only after this many ticks of [`TICK_MS`] without an edit, an
/// analysis or a layout under way.
#[cfg(feature = "full")]
const QUIET_TICKS: u32 = 10;
#[cfg(feature = "full")]
const TICK_MS: u64 = 100;

/// Whether building `tab`'s view ahead of time is worth a slot: its drawings or tables grow
/// with the function (the CFG's is always built; Types, Ownership and copy elimination list
/// only what the function declares or refuse Bril, in a few ms).
#[cfg(feature = "full")]
fn worth_ahead(tab: Tab) -> bool {
    ![Tab::CFG, Tab::TYPES, Tab::OWNERSHIP, Tab::pass("copy-elim")].contains(&tab)
}

#[cfg(feature = "full")]
thread_local! {
    /// The view pane's hook for [`analysis_idle`], while a pane is mounted.
    static IDLE: std::cell::RefCell<Option<Callback<()>>> = const { std::cell::RefCell::new(None) };
}

/// Called by the app once an analysis's passes, pipeline and layout prefetches are done: the
/// view pane may build other views ahead of time now.
#[cfg(feature = "full")]
pub fn analysis_idle() {
    if let Some(cb) = IDLE.with(|c| c.borrow().clone()) {
        cb.emit(());
    }
}

/// A view frozen in a slot: it renders again only when given another state (compared by
/// pointer: a hidden view keeps the very `Rc` it was last shown with) or dispatcher.
#[cfg(feature = "full")]
#[derive(Properties, Clone)]
struct SlotProps {
    state: Rc<State>,
    dispatch: Callback<Action>,
}

#[cfg(feature = "full")]
impl PartialEq for SlotProps {
    fn eq(&self, other: &SlotProps) -> bool {
        Rc::ptr_eq(&self.state, &other.state) && self.dispatch == other.dispatch
    }
}

#[cfg(feature = "full")]
#[function_component(SlotView)]
fn slot_view(props: &SlotProps) -> Html {
    body(&ViewProps { state: props.state.clone(), dispatch: props.dispatch.clone() })
}

/// Whether two states show the same analysis (a view frozen with one is current for the other).
#[cfg(feature = "full")]
fn same_analysis(a: &State, b: &State) -> bool {
    match (&a.analysis, &b.analysis) {
        (Ok(x), Ok(y)) => Rc::ptr_eq(x, y),
        _ => false,
    }
}

/// The view shown, and the views left recently, hidden ([`keep`]): switching back to one of
/// them shows it again instead of building it again. The shown view is `.view.view-<slug>`; a
/// hidden one is `.view-kept` (so no selector of the shown view matches it) under
/// `content-visibility: hidden` (not rendered, not focusable, not in the accessibility tree).
///
/// Views are also built ahead of time, hidden, once an analysis of a large function is done
/// and the page is idle ([`analysis_idle`], then a second without typing): the views nearest
/// the one shown whose building grows with the function, one per task, in the slots that are
/// free or hold a view of an older program. Building a view of a 1,000-block function costs 150–300 ms (Yew, parsing
/// its drawings, style and layout, which a hidden view's drawings get when they measure
/// themselves); its first opening then only shows it, as for a view left.
#[cfg(feature = "full")]
#[function_component(ViewPane)]
pub fn view_pane(props: &ViewProps) -> Html {
    let slots = use_mut_ref(|| keep::Slots::new(SLOTS));
    let same = |a: &SlotProps, b: &SlotProps| same_analysis(&a.state, &b.state);
    let tab = props.state.tab;
    let live = SlotProps { state: props.state.clone(), dispatch: props.dispatch.clone() };
    slots.borrow_mut().show(tab, live.clone(), same);
    use_ahead(slots.clone(), live);
    let slots = slots.borrow();
    let html = slots.iter().map(|slot| match slot {
        None => html! { <div class="view-empty" /> },
        Some(slot) => {
            let shown = slot.tab == tab;
            let class = if shown { classes!("view", format!("view-{}", tab.slug())) } else { classes!("view-kept") };
            let key = format!("{}-{}", slot.tab.slug(), slot.generation);
            // A kept view is hidden behind the shown one: inert, so neither the keyboard nor a
            // screen reader lands in it.
            html! {
                <div {class} data-tab={slot.tab.slug()} inert={!shown}>
                    <SlotView {key} ..slot.frozen.clone() />
                </div>
            }
        }
    });
    html.collect::<Html>()
}

/// Builds views ahead of time when the app says an analysis is idle (see [`ViewPane`]).
#[cfg(feature = "full")]
#[hook]
fn use_ahead(slots: Rc<std::cell::RefCell<keep::Slots<SlotProps>>>, live: SlotProps) {
    let latest = use_mut_ref(|| live.clone());
    *latest.borrow_mut() = live;
    let redraw = use_force_update();
    use_effect_with((), move |_| {
        // Each idle signal starts a new round; an older round stops at its next step.
        let round = Rc::new(std::cell::Cell::new(0u64));
        let cb = Callback::from(move |()| {
            let this = round.get() + 1;
            round.set(this);
            let (round, latest, slots, redraw) = (round.clone(), latest.clone(), slots.clone(), redraw.clone());
            yew::platform::spawn_local(async move {
                let start = latest.borrow().clone();
                let Ok(a) = start.state.analysis.clone() else { return };
                if a.function.blocks.len() <= AHEAD_BLOCKS {
                    return;
                }
                for tab in prefetch::order(start.state.tab).into_iter().filter(|&t| worth_ahead(t)) {
                    // Only once the user has not typed for a while and the worker's layouts are
                    // done (a view built now finds its graphs laid out), each view in a task of
                    // its own; never for a program no longer shown. Building one is a long
                    // task: a keystroke in the middle of it would wait for it.
                    let mut quiet = 0;
                    let mut text = latest.borrow().state.doc.source.clone();
                    while quiet < QUIET_TICKS {
                        yew::platform::time::sleep(std::time::Duration::from_millis(TICK_MS)).await;
                        let now = latest.borrow();
                        if round.get() != this || !same_analysis(&now.state, &start.state) {
                            return;
                        }
                        let idle = now.state.jobs.current.is_none() && crate::graph::web::layouts_pending() == 0;
                        quiet = if idle && now.state.doc.source == text { quiet + 1 } else { 0 };
                        text = now.state.doc.source.clone();
                    }
                    let now = latest.borrow().clone();
                    if round.get() != this || !same_analysis(&now.state, &start.state) {
                        return;
                    }
                    if now.state.tab == tab {
                        continue;
                    }
                    let ahead = SlotProps { state: Rc::new(State { tab, ..(*now.state).clone() }), dispatch: now.dispatch };
                    let fresh = |f: &SlotProps| same_analysis(&f.state, &start.state);
                    if slots.borrow_mut().prebuild(tab, ahead, fresh).is_some() {
                        redraw.force_update();
                    }
                }
            });
        });
        IDLE.with(|c| *c.borrow_mut() = Some(cb));
        || IDLE.with(|c| *c.borrow_mut() = None)
    });
}
