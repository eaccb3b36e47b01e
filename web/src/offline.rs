//! Offline: registers the service worker (`static/sw.js`) that keeps the site working without
//! a network after the first visit.
//!
//! The worker's URL is relative (`sw.js`), so it resolves against the page and its scope is
//! the page's folder: the site works from any sub-path of any static file server. Browsers
//! allow service workers only in secure contexts (https, or http on localhost/127.0.0.1);
//! elsewhere the site still works, only not offline, and [`register`] says so.

/// The worker script, relative to the page (trunk copies it next to `index.html`).
pub const WORKER_URL: &str = "sw.js";

/// Why offline use is not set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OfflineError {
    #[error("this browser has no service workers (or not on this http page): optlab works only online here")]
    Unsupported,
    #[error("the offline copy could not be set up: {0}")]
    Failed(String),
}

/// Starts registering the service worker. Returns at once; a failure later (e.g. the
/// worker script cannot be fetched) is written to the console as a warning, since the page
/// works without it.
#[cfg(target_arch = "wasm32")]
pub fn register() -> Result<(), OfflineError> {
    use web_sys::wasm_bindgen::{closure::Closure, JsCast, JsValue};

    let window = web_sys::window().ok_or(OfflineError::Unsupported)?;
    if !window.is_secure_context() {
        return Err(OfflineError::Unsupported);
    }
    // `navigator.serviceWorker` is undefined where unsupported; check before calling into it.
    let nav: JsValue = window.navigator().into();
    let sw = web_sys::js_sys::Reflect::get(&nav, &JsValue::from_str("serviceWorker")).map_err(|_| OfflineError::Unsupported)?;
    if sw.is_undefined() || sw.is_null() {
        return Err(OfflineError::Unsupported);
    }
    let container: web_sys::ServiceWorkerContainer = sw.unchecked_into();
    let warn = Closure::<dyn FnMut(JsValue)>::new(|e: JsValue| {
        let why = e.as_string().or_else(|| {
            web_sys::js_sys::Reflect::get(&e, &JsValue::from_str("message")).ok().and_then(|m| m.as_string())
        });
        gloo::console::warn!(format!("optlab: offline copy not set up: {}", why.unwrap_or_else(|| "unknown error".into())));
    });
    let _ = container.register(WORKER_URL).catch(&warn);
    // Called once per page: the one small closure lives as long as the page.
    warn.forget();
    Ok(())
}

/// Outside a browser there is nothing to register.
#[cfg(not(target_arch = "wasm32"))]
pub fn register() -> Result<(), OfflineError> {
    Err(OfflineError::Unsupported)
}
