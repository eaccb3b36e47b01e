//! The browser side of the graph layer: layouts in a Web Worker (with the main thread as a
//! fallback), and downloading a drawing as SVG or PNG.
//!
//! The worker is the `optlab-layout` binary (src/bin/optlab-layout.rs), which trunk builds
//! next to the app (`<link data-trunk rel="rust" data-type="worker" data-bin="optlab-layout"
//! data-loader-shim>` in index.html). If it cannot start (no such file, as in
//! wasm-bindgen-test, or it never says it is ready), layouts run on the main thread, one per
//! timer tick, so the page can at least paint "laying out…" first.

use super::layout::fallback_layout;
use super::protocol::{answer, Reply, Request};
use super::service::{Scheduler, Start, Ticket};
use super::{export, layout, Graph, Layout, Style};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::js_sys;
use yew::Callback;

/// Where trunk puts the worker's loader script, relative to the page.
pub const DEFAULT_WORKER_URL: &str = "./optlab-layout_loader.js";
/// A worker that has not said "ready" by then is given up.
const READY_TIMEOUT: Duration = Duration::from_secs(10);
/// How many layouts are remembered (a few views × a few programs).
const CACHE_SIZE: usize = 24;

struct WorkerHandle {
    worker: web_sys::Worker,
    _onmessage: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _onerror: Closure<dyn FnMut(web_sys::Event)>,
}

enum Backend {
    /// Nothing started yet: the first request that needs one starts the worker.
    Idle,
    Starting(WorkerHandle),
    Ready(WorkerHandle),
    /// No worker: jobs run on the main thread.
    MainThread,
}

struct Service {
    sched: Scheduler<Callback<Rc<Layout>>>,
    backend: Backend,
    /// `None`: never use a worker.
    worker_url: Option<String>,
    /// Workers that died on a job; after [`MAX_CRASHES`] the main thread takes over.
    crashes: u32,
}

const MAX_CRASHES: u32 = 3;

thread_local! {
    static SERVICE: RefCell<Service> = RefCell::new(Service {
        sched: Scheduler::new(CACHE_SIZE),
        backend: Backend::Idle,
        worker_url: Some(DEFAULT_WORKER_URL.to_string()),
        crashes: 0,
    });
}

fn with_service<R>(f: impl FnOnce(&mut Service) -> R) -> Option<R> {
    SERVICE.try_with(|s| s.try_borrow_mut().ok().map(|mut s| f(&mut s))).ok().flatten()
}

/// Which worker script to use (`None`: lay out on the main thread). A worker already running
/// is stopped; its job, if any, goes to the new one.
pub fn set_worker_url(url: Option<String>) {
    let old = with_service(|s| {
        s.worker_url = url;
        s.crashes = 0;
        s.sched.requeue();
        std::mem::replace(&mut s.backend, Backend::Idle)
    });
    if let Some(Backend::Starting(h) | Backend::Ready(h)) = old {
        h.worker.terminate();
    }
    pump();
}

/// Whether layouts currently go to a worker that answered (for tests and diagnostics).
pub fn worker_ready() -> bool {
    with_service(|s| matches!(s.backend, Backend::Ready(_))).unwrap_or(false)
}

/// The remembered layout of `graph`, if any.
pub fn cached_layout(graph: &Rc<Graph>, style: &Style) -> Option<Rc<Layout>> {
    with_service(|s| s.sched.lookup(graph, style)).flatten()
}

/// The layout of `graph`, computed here and now if not remembered (for small graphs).
pub fn layout_now(graph: &Rc<Graph>, style: &Style) -> Rc<Layout> {
    if let Some(l) = cached_layout(graph, style) {
        return l;
    }
    let l = Rc::new(layout(graph, style));
    with_service(|s| s.sched.insert(graph.clone(), l.clone()));
    l
}

/// A pending layout request; dropping it says the layout is no longer wanted.
pub struct LayoutTicket(Option<Ticket>);

impl Drop for LayoutTicket {
    fn drop(&mut self) {
        if let Some(t) = self.0.take() {
            with_service(|s| s.sched.cancel(t));
        }
    }
}

/// Lays `graph` out off the main thread and calls `done` with the result (later, never from
/// inside this call). Keep the ticket as long as the answer is wanted.
pub fn request_layout(graph: Rc<Graph>, style: &Style, done: Callback<Rc<Layout>>) -> LayoutTicket {
    let ticket = with_service(|s| s.sched.request(graph, style, done));
    pump();
    LayoutTicket(ticket)
}

/// Lays `graph` out in the worker once it has nothing else to do, for a view not open yet
/// (see [`super::service`]). Not without a worker: on the main thread it would be a long task
/// the user did not ask for.
pub fn prefetch_layout(graph: Rc<Graph>, style: &Style) {
    let queued = with_service(|s| !matches!(s.backend, Backend::MainThread) && s.sched.prefetch(graph, style));
    if queued == Some(true) {
        pump();
    }
}

/// How many layouts are queued or running, prefetches included: `0` when the worker is idle
/// (views are built ahead of time only then: web/src/views/mod.rs).
pub fn layouts_pending() -> usize {
    with_service(|s| s.sched.pending()).unwrap_or(0)
}

/// The program changed: the prefetches are of the old one. Drops them; one the worker is
/// laying out is abandoned with its worker (a new one starts at once), so that the new
/// program's layout does not wait for it.
pub fn cancel_prefetch() {
    let old = with_service(|s| {
        let busy = s.sched.cancel_prefetch();
        if !busy || !matches!(s.backend, Backend::Ready(_)) {
            return None;
        }
        s.sched.abandon();
        Some(std::mem::replace(&mut s.backend, Backend::Idle))
    })
    .flatten();
    if let Some(Backend::Starting(h) | Backend::Ready(h)) = old {
        h.worker.terminate();
        yew::platform::spawn_local(async move { drop(h) });
        pump();
    }
}

/// Starts the next job if the backend is free.
fn pump() {
    let start = with_service(|s| {
        if matches!(s.backend, Backend::Idle) {
            // The first-visit build lays out on the main thread (no worker code in it).
            s.backend = match s.worker_url.clone().filter(|_| cfg!(feature = "full")) {
                Some(url) => match spawn_worker(&url) {
                    Ok(h) => Backend::Starting(h),
                    Err(_) => Backend::MainThread,
                },
                None => Backend::MainThread,
            };
        }
        match &s.backend {
            Backend::Ready(h) => {
                let start = s.sched.next_start()?;
                let msg = serde_json::to_string(&Request {
                    id: start.job,
                    graph: (*start.graph).clone(),
                    style: start.style.clone(),
                })
                .ok()?;
                if h.worker.post_message(&JsValue::from_str(&msg)).is_err() {
                    return Some(Err(()));
                }
                None
            }
            Backend::MainThread => s.sched.next_start().map(Ok),
            Backend::Idle | Backend::Starting(_) => None,
        }
    })
    .flatten();
    match start {
        Some(Ok(start)) => run_on_main_thread(start),
        Some(Err(())) => give_up_worker(),
        None => {}
    }
}

/// Runs one job after a short pause, so the "laying out…" state is painted before the main
/// thread is busy.
fn run_on_main_thread(start: Start) {
    yew::platform::spawn_local(async move {
        yew::platform::time::sleep(Duration::from_millis(20)).await;
        let l = layout(&start.graph, &start.style);
        finish(start.job, l);
    });
}

fn finish(job: u64, l: Layout) {
    let Some((l, waiters, idle)) = with_service(|s| {
        let (l, waiters) = s.sched.finish(job, l);
        (l, waiters, s.sched.pending() == 0)
    }) else {
        return;
    };
    for w in waiters {
        w.emit(l.clone());
    }
    pump();
    // For the browser tests: every layout asked for, prefetches included, is cached.
    #[cfg(all(feature = "full", target_arch = "wasm32"))]
    if idle {
        performance_mark("optlab layouts idle");
    }
    #[cfg(not(all(feature = "full", target_arch = "wasm32")))]
    let _ = idle;
}

#[cfg(all(feature = "full", target_arch = "wasm32"))]
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = mark)]
    fn performance_mark(name: &str);
}

/// The worker failed. One that never started (no such script, as in wasm-bindgen-test) hands
/// over to the main thread. One that died on a job (a panic aborts a worker) gets replaced,
/// and that job gets [`fallback_layout`]: laying it out again on the main thread could take
/// the page down with it.
fn give_up_worker() {
    let (old, crashed) = with_service(|s| {
        let started = matches!(s.backend, Backend::Ready(_));
        let crashed = if started { s.sched.running() } else { None };
        if crashed.is_some() {
            s.crashes += 1;
        }
        let next = if started && s.crashes < MAX_CRASHES { Backend::Idle } else { Backend::MainThread };
        (std::mem::replace(&mut s.backend, next), crashed)
    })
    .unwrap_or((Backend::MainThread, None));
    if let Backend::Starting(h) | Backend::Ready(h) = old {
        h.worker.terminate();
        // Its closures may be the ones running right now: drop them on a later tick.
        yew::platform::spawn_local(async move { drop(h) });
    }
    match crashed {
        Some(start) => finish(start.job, fallback_layout(&start.graph, &start.style)),
        None => match with_service(|s| s.sched.running()).flatten() {
            // A job was handed to a worker that never became ready: run it here.
            Some(start) => run_on_main_thread(start),
            None => pump(),
        },
    }
}

fn spawn_worker(url: &str) -> Result<WorkerHandle, JsValue> {
    let worker = web_sys::Worker::new(url)?;
    let onmessage = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|e: web_sys::MessageEvent| {
        let reply = e.data().as_string().and_then(|s| serde_json::from_str::<Reply>(&s).ok());
        match reply {
            Some(Reply::Ready) => {
                with_service(|s| {
                    if let Backend::Starting(h) = std::mem::replace(&mut s.backend, Backend::Idle) {
                        s.backend = Backend::Ready(h);
                    }
                });
                pump();
            }
            Some(Reply::Done { id, layout }) => finish(id, layout),
            Some(Reply::Failed { .. }) | None => give_up_worker(),
        }
    });
    let onerror = Closure::<dyn FnMut(web_sys::Event)>::new(|_e: web_sys::Event| give_up_worker());
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    yew::platform::spawn_local(async {
        yew::platform::time::sleep(READY_TIMEOUT).await;
        if with_service(|s| matches!(s.backend, Backend::Starting(_))).unwrap_or(false) {
            give_up_worker();
        }
    });
    Ok(WorkerHandle { worker, _onmessage: onmessage, _onerror: onerror })
}

/// The worker's side: answers layout requests until the page goes away. Called by the
/// `optlab-layout` binary's `main`.
pub fn run_worker() {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply_to = scope.clone();
    let onmessage = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        let reply = match e.data().as_string() {
            Some(text) => answer(&text),
            None => Reply::Failed { id: None, error: "layout request is not a string".into() },
        };
        let _ = reply_to.post_message(&JsValue::from_str(&reply.to_json()));
    });
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    onmessage.forget();
    let _ = scope.post_message(&JsValue::from_str(&Reply::Ready.to_json()));
}

/// The theme's colours for the drawing's CSS variables, as computed on `el`.
pub fn theme_colours(el: &web_sys::Element) -> Vec<(String, String)> {
    let Some(style) = web_sys::window().and_then(|w| w.get_computed_style(el).ok().flatten()) else {
        return Vec::new();
    };
    export::css_variables()
        .into_iter()
        .filter_map(|name| {
            let v = style.get_property_value(name).ok()?;
            (!v.trim().is_empty()).then(|| (name.to_string(), v.trim().to_string()))
        })
        .collect()
}

/// `svg` as a standalone file coloured as it looks inside `el`.
pub fn standalone_svg_for(svg: &str, el: &web_sys::Element) -> String {
    export::standalone_svg(svg, &theme_colours(el))
}

fn blob(parts: &JsValue, mime: &str) -> Result<web_sys::Blob, JsValue> {
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    web_sys::Blob::new_with_str_sequence_and_options(parts, &opts)
}

/// Saves `blob` as a file called `name` (a temporary link, clicked).
pub fn download_blob(blob: &web_sys::Blob, name: &str) -> Result<(), JsValue> {
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let url = web_sys::Url::create_object_url_with_blob(blob)?;
    let a: web_sys::HtmlAnchorElement = doc.create_element("a")?.unchecked_into();
    a.set_href(&url);
    a.set_download(name);
    a.click();
    // The download has started; the URL can go after this task.
    yew::platform::spawn_local(async move {
        yew::platform::time::sleep(Duration::from_secs(1)).await;
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    Ok(())
}

/// Downloads the drawing `svg` (shown inside `el`) as `<title>.svg`.
pub fn download_svg(svg: &str, el: &web_sys::Element, title: &str) -> Result<(), JsValue> {
    let text = standalone_svg_for(svg, el);
    let parts = js_sys::Array::of1(&JsValue::from_str(&text));
    download_blob(&blob(&parts, "image/svg+xml")?, &export::file_name(title, "svg"))
}

/// The largest scale (≤ `wanted`) at which a `w` × `h` drawing fits a canvas browsers accept.
pub fn png_scale(w: f64, h: f64, wanted: f64) -> f64 {
    let side = 16_000.0 / w.max(h).max(1.0);
    let area = (64_000_000.0 / (w * h).max(1.0)).sqrt();
    wanted.min(side).min(area).max(0.01)
}

/// Renders the drawing `svg` (shown inside `el`) to a PNG blob at `scale` (2: sharp on
/// high-density screens), through an `<img>` and a canvas.
pub async fn png_blob(svg: &str, el: &web_sys::Element, scale: f64) -> Result<web_sys::Blob, String> {
    use yew::platform::pinned::oneshot;
    let err = |e: JsValue| e.as_string().unwrap_or_else(|| format!("{e:?}"));
    let text = standalone_svg_for(svg, el);
    let parts = js_sys::Array::of1(&JsValue::from_str(&text));
    let url = web_sys::Url::create_object_url_with_blob(&blob(&parts, "image/svg+xml").map_err(err)?).map_err(err)?;
    let img = web_sys::HtmlImageElement::new().map_err(err)?;
    let (tx, rx) = oneshot::channel::<bool>();
    let tx = Rc::new(RefCell::new(Some(tx)));
    let (t1, t2) = (tx.clone(), tx);
    let onload = Closure::once(move || {
        if let Some(t) = t1.borrow_mut().take() {
            let _ = t.send(true);
        }
    });
    let onerror = Closure::once(move || {
        if let Some(t) = t2.borrow_mut().take() {
            let _ = t.send(false);
        }
    });
    img.set_onload(Some(onload.as_ref().unchecked_ref()));
    img.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    img.set_src(&url);
    let loaded = rx.await.unwrap_or(false);
    let _ = web_sys::Url::revoke_object_url(&url);
    if !loaded {
        return Err("the drawing could not be loaded as an image".into());
    }
    let (w, h) = (img.natural_width() as f64, img.natural_height() as f64);
    let k = png_scale(w, h, scale);
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas").map_err(err)?.unchecked_into();
    canvas.set_width((w * k).ceil() as u32);
    canvas.set_height((h * k).ceil() as u32);
    let ctx: web_sys::CanvasRenderingContext2d =
        canvas.get_context("2d").map_err(err)?.ok_or("no 2d canvas")?.unchecked_into();
    ctx.scale(k, k).map_err(err)?;
    ctx.draw_image_with_html_image_element(&img, 0.0, 0.0).map_err(err)?;
    let (tx, rx) = oneshot::channel::<Option<web_sys::Blob>>();
    let on_blob = Closure::once(move |b: JsValue| {
        let _ = tx.send(b.dyn_into::<web_sys::Blob>().ok());
    });
    canvas.to_blob(on_blob.as_ref().unchecked_ref()).map_err(err)?;
    rx.await.ok().flatten().ok_or_else(|| "the canvas gave no PNG".to_string())
}

/// Downloads the drawing `svg` (shown inside `el`) as `<title>.png`, drawn at twice its size.
pub fn download_png(svg: String, el: web_sys::Element, title: String) {
    yew::platform::spawn_local(async move {
        let result = match png_blob(&svg, &el, 2.0).await {
            Ok(b) => download_blob(&b, &export::file_name(&title, "png")).map_err(|e| format!("{e:?}")),
            Err(e) => Err(e),
        };
        if let Err(e) = result {
            gloo::console::error!(format!("PNG export failed: {e}"));
        }
    });
}
