//! optlab in the browser: a Yew app on top of optlab-core's public API.
//!
//! - [`state`]: the app state and the pure reducer (all UI logic; tested natively).
//! - [`program`]: the parsed program and the analyses of one function, computed once per edit.
//! - [`session`]: where the state comes from and goes (permalinks, autosave, theme).
//! - [`app`], [`views`], [`editor`]: components that render the state and dispatch actions.
//! - [`graph`], [`graph_view`], [`cfg_graph`]: graphs of code boxes, laid out by layout-rs in a
//!   worker, painted to SVG, decorated per step.
//! - [`permalink`], [`storage`], [`offline`], [`download`]: links, local storage, the service
//!   worker, file downloads.
//! - [`examples`]: the example gallery (`static/examples/`), [`highlight`]: syntax colouring.
//! - [`handoff`]: the first visit's small build (without the `full` feature), which draws the
//!   first graph, then loads the full app and hands it the page.

// The first-visit build leaves out what its first view does not need; what only the rest
// of the app calls is then unused there (and only there).
#![cfg_attr(not(feature = "full"), allow(dead_code, unused_imports, unused_variables, unused_mut))]

pub mod app;
pub mod build;
pub mod cfg_graph;
#[cfg(feature = "full")]
pub mod download;
pub mod editor;
pub mod examples;
pub mod graph;
pub mod graph_view;
pub mod handoff;
pub mod highlight;
pub mod offline;
pub mod permalink;
pub mod program;
pub mod session;
pub mod state;
pub mod storage;
pub mod tabs;
#[cfg(feature = "full")]
pub mod type_tips;
pub mod views;

pub use app::App;

/// Starts the page (browser only): the first-visit build mounts itself and loads the full
/// app in the background; the full app waits for the page to be handed over (or, opened on
/// its own, mounts at once). See [`handoff`].
#[cfg(target_arch = "wasm32")]
pub fn start() {
    handoff::start();
}
