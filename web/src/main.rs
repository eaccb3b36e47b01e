//! The wasm entry point trunk builds; natively it does nothing (the lib is tested instead).

fn main() {
    #[cfg(target_arch = "wasm32")]
    optlab_web::start();
}
