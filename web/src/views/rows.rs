//! Long tables drawn a window at a time: only the rows in or near the part of the table its
//! scrolling pane shows are in the page, with a spacer row above and below standing in for
//! the others, so the table keeps its full height and its scroll bar.
//!
//! Why: the first opening of a view of a 1,000-block function spent about a third of its time
//! on its table (6,000 cells for the Lengauer–Tarjan table: Yew building them, the page
//! styling and laying them out) although a pane shows some twenty rows. A table of at most
//! [`ALL_ROWS`] rows is drawn whole (every row in the page: find-in-page and the tests that
//! read a whole table of the examples work as before).
//!
//! A screen reader still learns the table's size: the table carries `aria-rowcount` and each
//! row drawn its `aria-rowindex` (the header row is row 1). Scrolling, by wheel, scroll bar or
//! keyboard (the pane is a scroller), brings the rows in: [`use_row_window`] listens to the
//! pane's scrolling and size.

use yew::prelude::*;

/// Tables of at most this many rows are drawn whole (the 200-block example's included).
pub const ALL_ROWS: usize = 400;
/// Rows drawn beyond each edge of what the pane shows, so a scroll of a few rows shows rows
/// already there (the window moves after the scroll event, a frame late at worst).
const OVERSCAN: usize = 40;
/// The window's edges move in steps of this many rows, so a scroll of a few pixels does not
/// re-render the table.
const STEP: usize = 16;
/// Before the pane has been measured: how many pixels of rows the first window covers (more
/// than any screen's height).
const FIRST_PX: f64 = 1400.0;
/// A row's height until one is measured (12.5 px text at line height 1.4, padding, border).
pub const ROW_PX: f64 = 20.5;

/// The rows drawn: `start..end` of `0..n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: usize,
    pub end: usize,
}

impl Window {
    /// Every row.
    pub fn all(n: usize) -> Window {
        Window { start: 0, end: n }
    }

    /// Whether rows are left out (the table needs its spacers and sizes).
    pub fn partial(&self, n: usize) -> bool {
        self.start > 0 || self.end < n
    }
}

/// The rows to draw of a table of `n` rows `row_px` high each, when the pane shows the band
/// `top..bottom` (px from the top of the first row; negative when the table starts below
/// the pane's top): the band's rows, [`OVERSCAN`] more on each side, edges rounded out to
/// [`STEP`]s. A table of at most [`ALL_ROWS`] rows is drawn whole.
pub fn window(n: usize, row_px: f64, top: f64, bottom: f64) -> Window {
    if n <= ALL_ROWS {
        return Window::all(n);
    }
    let h = if row_px.is_finite() && row_px >= 1.0 { row_px } else { ROW_PX };
    let row = |px: f64| if px.is_finite() && px > 0.0 { ((px / h) as usize).min(n) } else { 0 };
    let first = row(top).saturating_sub(OVERSCAN) / STEP * STEP;
    let last = (row(bottom) + 1 + OVERSCAN).div_ceil(STEP) * STEP;
    let end = last.min(n);
    // A band past the end (a pane larger than the table's rest) still draws the last rows.
    let start = first.min(end.saturating_sub(STEP));
    Window { start, end }
}

/// The first window, before the pane is measured: the top of the table.
pub fn first_window(n: usize) -> Window {
    window(n, ROW_PX, 0.0, FIRST_PX)
}

/// A spacer row standing in for `rows` rows left out of a table of `cols` columns.
pub fn spacer(rows: usize, row_px: f64, cols: usize) -> Html {
    if rows == 0 {
        return html! {};
    }
    let style = format!("height: {:.1}px", rows as f64 * row_px);
    html! { <tr class="rows-spacer" aria-hidden="true" {style}><td colspan={cols.to_string()} /></tr> }
}

/// Which rows of an `n`-row table to draw and how high a row is, kept up to date from the
/// scrolling pane around `body` (the table's `<tbody>`): its nearest scrolling ancestor, or
/// the page. Re-renders the caller only when the window moves.
#[hook]
pub fn use_row_window(n: usize, body: NodeRef) -> (Window, f64) {
    let state = use_state_eq(|| (first_window(n), ROW_PX));
    let (win, row_px) = *state;
    // A table that shrank or grew (another program) starts over at the window the pane shows
    // next; until then, its top.
    let win = if n <= ALL_ROWS {
        Window::all(n)
    } else if win.end > n || win.start >= win.end {
        first_window(n)
    } else {
        win
    };
    #[cfg(target_arch = "wasm32")]
    {
        let update = {
            let (state, body) = (state.clone(), body.clone());
            move || {
                if let Some(next) = dom::measure(&body, n) {
                    state.set(next);
                }
            }
        };
        // After each render of a long table: the row height (a theme or lecture mode changes
        // it) and the band, measured in a task of its own, once every effect of the render has
        // changed the page (measuring here would lay the page out twice in a step's frame).
        {
            let (update, pending) = (update.clone(), use_mut_ref(|| None::<gloo::timers::callback::Timeout>));
            use_effect(move || {
                if n > ALL_ROWS {
                    *pending.borrow_mut() = Some(gloo::timers::callback::Timeout::new(0, update));
                }
            });
        }
        use_effect_with((n, body.clone()), move |(n, body)| {
            let listeners = (*n > ALL_ROWS).then(|| dom::listen(body, update));
            move || drop(listeners)
        });
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (body, &state);
    (win, row_px)
}

/// Scrolls the pane around `body` so that row `index` (of the whole table) is in view whenever
/// `index` changes to another row: selecting a block in a drawing (by click or keyboard)
/// brings its row into the table's pane, drawn or not yet.
#[hook]
pub fn use_reveal(index: Option<usize>, row_px: f64, body: NodeRef) {
    #[cfg(target_arch = "wasm32")]
    {
        use_effect_with(index, move |&index| {
            if let Some(i) = index {
                dom::reveal(&body, i, row_px);
            }
        });
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (index, row_px, body);
}

#[cfg(target_arch = "wasm32")]
mod dom {
    use super::{window, Window};
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    use web_sys::Element;
    use yew::NodeRef;

    /// The nearest ancestor of `el` that scrolls vertically.
    fn scroller(el: &Element) -> Option<Element> {
        let w = web_sys::window()?;
        let mut at = el.parent_element();
        while let Some(e) = at {
            if let Ok(Some(style)) = w.get_computed_style(&e) {
                let y = style.get_property_value("overflow-y").unwrap_or_default();
                if y == "auto" || y == "scroll" {
                    return Some(e);
                }
            }
            at = e.parent_element();
        }
        None
    }

    /// The window the pane shows now, and the height of a drawn row.
    pub(super) fn measure(body: &NodeRef, n: usize) -> Option<(Window, f64)> {
        let body = body.cast::<Element>()?;
        let rows = body.query_selector_all("tr[aria-rowindex]").ok()?;
        let first = rows.item(0)?.dyn_into::<Element>().ok()?;
        let last = rows.item(rows.length() - 1)?.dyn_into::<Element>().ok()?;
        let (a, b) = (first.get_bounding_client_rect(), last.get_bounding_client_rect());
        let drawn = rows.length() as f64;
        let row_px = (b.bottom() - a.top()) / drawn;
        if !(row_px.is_finite() && row_px >= 1.0) {
            return None; // not laid out (a hidden view)
        }
        let top = body.get_bounding_client_rect().top();
        let (view_top, view_bottom) = match scroller(&body) {
            Some(pane) => {
                let r = pane.get_bounding_client_rect();
                (r.top(), r.bottom())
            }
            None => (0.0, web_sys::window()?.inner_height().ok()?.as_f64()?),
        };
        // Rounded so that sub-pixel differences between measurements do not re-render.
        let row_px = (row_px * 4.0).round() / 4.0;
        Some((window(n, row_px, view_top - top, view_bottom - top), row_px))
    }

    /// Scrolls the pane around `body` to row `i` if it is out of view (below the sticky
    /// header): to the middle of the pane, so the rows around it show too.
    pub(super) fn reveal(body: &NodeRef, i: usize, row_px: f64) {
        let Some(body) = body.cast::<Element>() else { return };
        let Some(pane) = scroller(&body) else { return };
        let head = body.previous_element_sibling().map_or(0.0, |h| h.get_bounding_client_rect().height());
        let (b, p) = (body.get_bounding_client_rect(), pane.get_bounding_client_rect());
        if p.height() <= 0.0 {
            return; // not laid out (a hidden view)
        }
        let top = b.top() + i as f64 * row_px;
        if top >= p.top() + head && top + row_px <= p.bottom() {
            return;
        }
        let by = top - (p.top() + head + (p.height() - head - row_px) / 2.0);
        pane.set_scroll_top(pane.scroll_top() + by.round() as i32);
    }

    /// Calls `update` when the pane around `body` scrolls or changes size.
    pub(super) fn listen(body: &NodeRef, update: impl Fn() + Clone + 'static) -> Option<Listeners> {
        let pane = scroller(&body.cast::<Element>()?);
        let target: web_sys::EventTarget = match &pane {
            Some(p) => p.clone().into(),
            None => web_sys::window()?.into(),
        };
        let scroll = {
            let update = update.clone();
            gloo::events::EventListener::new(&target, "scroll", move |_| update())
        };
        let resize = pane.and_then(|p| {
            let cb = Closure::<dyn FnMut()>::new(update);
            let obs = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()).ok()?;
            obs.observe(&p);
            Some((obs, cb))
        });
        Some(Listeners { _scroll: scroll, resize })
    }

    pub(super) struct Listeners {
        _scroll: gloo::events::EventListener,
        resize: Option<(web_sys::ResizeObserver, Closure<dyn FnMut()>)>,
    }

    impl Drop for Listeners {
        fn drop(&mut self) {
            if let Some((obs, _)) = &self.resize {
                obs.disconnect();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The oracle: every row any part of which is in the band.
    fn visible(n: usize, h: f64, top: f64, bottom: f64) -> Vec<usize> {
        (0..n).filter(|&i| (i as f64 + 1.0) * h > top && (i as f64) * h < bottom).collect()
    }

    #[test]
    fn small_tables_are_drawn_whole() {
        assert_eq!(window(ALL_ROWS, 20.0, 5000.0, 5300.0), Window::all(ALL_ROWS));
        assert_eq!(first_window(3), Window::all(3));
        assert!(!first_window(ALL_ROWS).partial(ALL_ROWS));
    }

    #[test]
    fn a_window_covers_every_visible_row_and_stays_small() {
        // Bands at every height, from above the table's top to past its end.
        for n in [ALL_ROWS + 1, 1005, 5000] {
            for h in [17.0, 20.5, 31.25] {
                let mut top = -600.0;
                while top < n as f64 * h + 600.0 {
                    for height in [0.0, 300.0, 900.0] {
                        let w = window(n, h, top, top + height);
                        assert!(w.start < w.end && w.end <= n, "{n} {h} {top}: {w:?}");
                        for i in visible(n, h, top, top + height) {
                            assert!(w.start <= i && i < w.end, "row {i} of {n} missing from {w:?} (band {top}+{height})");
                        }
                        let shown = (height / h).ceil() as usize + 1;
                        assert!(w.end - w.start <= shown + 2 * OVERSCAN + 2 * STEP, "{w:?} too wide for {shown} rows");
                    }
                    top += 97.0;
                }
            }
        }
    }

    #[test]
    fn a_scroll_of_a_few_rows_keeps_the_window() {
        let n = 1005;
        // Rows 205..220 shown, then 207..222: both inside the same rounded window.
        let w = window(n, 20.0, 4100.0, 4400.0);
        assert_eq!(window(n, 20.0, 4140.0, 4440.0), w);
        assert!(window(n, 20.0, 8000.0, 8300.0).start > w.end);
    }

    #[test]
    fn bad_measurements_fall_back_to_the_first_rows() {
        let w = window(1005, f64::NAN, f64::NAN, f64::INFINITY);
        assert_eq!(w.start, 0);
        assert!(w.end <= 1005);
        assert_eq!(window(1005, 0.0, -50.0, -10.0).start, 0);
    }

    #[test]
    fn the_first_window_is_the_top_of_the_table() {
        let w = first_window(1005);
        assert_eq!(w.start, 0);
        assert!(w.end as f64 * ROW_PX >= FIRST_PX && w.end < 1005, "{w:?}");
    }
}
