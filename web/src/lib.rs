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

pub mod app;
pub mod cfg_graph;
pub mod download;
pub mod editor;
pub mod examples;
pub mod graph;
pub mod graph_view;
pub mod highlight;
pub mod offline;
pub mod permalink;
pub mod program;
pub mod session;
pub mod state;
pub mod storage;
pub mod tabs;
pub mod type_tips;
pub mod views;

pub use app::App;

/// Mounts the app on `<body>` (browser only).
#[cfg(target_arch = "wasm32")]
pub fn start() {
    yew::Renderer::<App>::new().render();
}
