//! The full lab as a second wasm: the first-visit build (`optlab-web` without the `full`
//! feature) loads it after its first graph and hands it the page (see
//! `optlab_web::handoff`). trunk builds it with no-modules glue (`data-type="worker"` in
//! index.html), so nothing loads it but the first app.

fn main() {
    #[cfg(target_arch = "wasm32")]
    optlab_web::start();
}
