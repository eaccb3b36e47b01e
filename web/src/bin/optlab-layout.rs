//! The layout worker: a Web Worker that lays graphs out for the page (see
//! `optlab_web::graph::web`). It links only the graph layer and layout-rs; the linker drops
//! the rest of the library (parsers, Yew), which this binary never calls.

fn main() {
    #[cfg(target_arch = "wasm32")]
    optlab_web::graph::web::run_worker();
}
