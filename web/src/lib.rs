//! optlab in the browser: a Yew app on top of optlab-core's public API.
//!
//! - [`state`]: the app state and a pure reducer (all UI logic; tested natively).
//! - [`app`]: components that render the state and dispatch actions.
//! - [`graph_svg`]: any graph of code boxes → SVG via layout-rs (CFG, dominator trees, CDG).
//! - [`cfg_graph`]: a function's CFG as such a graph.
//! - [`examples`]: the built-in example programs (`static/examples/`).

pub mod app;
pub mod cfg_graph;
pub mod editor;
pub mod download;
pub mod examples;
pub mod graph;
pub mod graph_svg;
pub mod graph_view;
pub mod highlight;
pub mod offline;
pub mod permalink;
pub mod program;
pub mod session;
pub mod state;
pub mod storage;
pub mod views;

pub use app::App;
pub use views::{SvgView, SvgViewProps};

/// Mounts the app on `<body>` (browser only).
#[cfg(target_arch = "wasm32")]
pub fn start() {
    yew::Renderer::<App>::new().render();
}
