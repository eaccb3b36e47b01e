//! The program editor: a transparent `<textarea>` (the browser's own editing, caret, selection,
//! undo and IME) over a layer that shows the same text coloured, with a line-number gutter,
//! parse errors underlined at their column and listed below, and highlighted lines.
//!
//! Typing never re-renders the component: the textarea is never given a `value` by Yew (so a
//! re-render cannot reset what the user is typing), the coloured layer and gutter are patched
//! line by line from [`model::Doc`], and the text is handed on through `onedit` only
//! [`DEBOUNCE_MS`] after the last keystroke or when the editor loses focus.

pub mod chunks;
mod dom;
pub mod model;
pub mod text;

use gloo::timers::callback::Timeout;
use crate::program::MAX_SOURCE_BYTES;
use model::{Doc, Patch};
use optlab_core::Lang;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::{Element, HtmlElement, HtmlTextAreaElement};
use yew::prelude::*;

/// How long the text must rest before it is handed on (and re-analysed).
pub const DEBOUNCE_MS: u32 = 150;

/// A message at a place in the text (a parse error): 1-based line, 1-based column in
/// characters. The program's parse errors are exactly these.
pub use crate::program::ErrorMark as Mark;

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    /// The program. When it changes to a text other than the one the editor last emitted
    /// (example loaded, permalink opened), the editor replaces its content; otherwise it keeps
    /// the user's text and cursor untouched.
    pub text: AttrValue,
    pub lang: Lang,
    /// Parse errors of the current text.
    pub marks: Rc<Vec<Mark>>,
    /// 1-based source lines to highlight (e.g. the instruction selected in a view).
    pub active_lines: Rc<Vec<u32>>,
    /// Called with the full text, debounced ([`DEBOUNCE_MS`] after the last keystroke) and
    /// immediately on blur.
    pub onedit: Callback<String>,
    #[prop_or_default]
    pub readonly: bool,
    /// A span to select, as byte offsets into `text`, with a sequence number: each new number
    /// selects (and scrolls to) the span again.
    #[prop_or_default]
    pub select: Option<(u32, u32, u32)>,
    /// Tooltips over parts of the text: byte spans of `text` and what to show when the mouse
    /// rests on them (a value's type and class).
    #[prop_or_default]
    pub tips: Rc<Vec<(u32, u32, String)>>,
    /// `text` is an edit the app made to the previous text (a teaching edit, an inserted
    /// declaration): only the changed part is replaced, through the textarea's undo history,
    /// so Ctrl+Z takes it back.
    #[prop_or_default]
    pub splice: bool,
}

/// Replaces the part of the textarea's text that differs from `text` by typing it
/// (`execCommand("insertText")`), which the undo history records. False if the browser
/// would not (the caller then sets the value).
fn splice_into(el: &HtmlTextAreaElement, text: &str) -> bool {
    let old: Vec<u16> = el.value().encode_utf16().collect();
    let new: Vec<u16> = text.encode_utf16().collect();
    let pre = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let max_suf = old.len().min(new.len()) - pre;
    let suf = old.iter().rev().zip(new.iter().rev()).take(max_suf).take_while(|(a, b)| a == b).count();
    let Ok(middle) = String::from_utf16(&new[pre..new.len() - suf]) else { return false };
    let _ = el.focus();
    if el.set_selection_range(pre as u32, (old.len() - suf) as u32).is_err() {
        return false;
    }
    let command = if middle.is_empty() { exec_command("delete", false, "") } else { exec_command("insertText", false, &middle) };
    matches!(command, Ok(true)) && el.value() == text
}


/// What the editor remembers between events (never rendered by Yew).
struct Inner {
    doc: Doc,
    /// The rows of the coloured layer and of the gutter, as drawn.
    code_rows: dom::RowList,
    gutter_rows: dom::RowList,
    /// The text last handed on through `onedit` or last received as `text`: a `text` prop
    /// equal to it is our own edit coming back, not a new program.
    emitted: Option<String>,
}

#[wasm_bindgen]
extern "C" {
    /// `document.execCommand`: the one way to insert text that the textarea's undo history
    /// records (deprecated, but without replacement).
    #[wasm_bindgen(catch, js_namespace = document, js_name = execCommand)]
    fn exec_command(command: &str, show_ui: bool, value: &str) -> Result<bool, JsValue>;

    /// A `paste` event (`ClipboardEvent`), for its `clipboardData`.
    type PasteEvent;
    #[wasm_bindgen(method, getter, js_name = clipboardData)]
    fn clipboard_data(this: &PasteEvent) -> Option<PastedData>;
    /// The event's `DataTransfer`.
    type PastedData;
    #[wasm_bindgen(method, catch, js_name = getData)]
    fn get_data(this: &PastedData, format: &str) -> Result<String, JsValue>;
}

/// Pastes longer than this many bytes are put in by the editor instead of the
/// browser: Chromium's own paste into a textarea takes about 2 s per megabyte in one task (a
/// 5 MB paste froze the tab for a minute), `setRangeText` a few milliseconds. The price is
/// that Ctrl+Z does not take such a paste back.
const NATIVE_PASTE_MAX: usize = 64 * 1024;

/// What the editor did with a paste.
enum Pasted {
    /// Nothing: the browser pastes.
    Native,
    /// Put into the textarea by hand.
    Inserted,
    /// The text with the paste in it, too long to hold in the textarea (see [`hold`]).
    TooLong(String),
}

/// Puts a long paste into the textarea by hand (see [`NATIVE_PASTE_MAX`]), or, when the text
/// with the paste would be longer than the lab analyses, leaves the textarea alone and returns
/// that text. `current` is the editor's text (what the textarea holds unless it is held).
fn paste_by_hand(e: &Event, el: &HtmlTextAreaElement, current: &str) -> Pasted {
    let Some(data) = e.unchecked_ref::<PasteEvent>().clipboard_data() else { return Pasted::Native };
    let Ok(text) = data.get_data("text/plain") else { return Pasted::Native };
    if text.len() <= NATIVE_PASTE_MAX {
        return Pasted::Native;
    }
    // What the browser's paste would do to line breaks.
    let text = if text.contains('\r') { text.replace("\r\n", "\n").replace('\r', "\n") } else { text };
    let start = el.selection_start().ok().flatten().unwrap_or(0);
    let end = el.selection_end().ok().flatten().unwrap_or(start).max(start);
    let (lo, hi) = (text::utf16_to_byte(current, start), text::utf16_to_byte(current, end));
    e.prevent_default();
    if current.len() - (hi - lo) + text.len() > MAX_SOURCE_BYTES {
        let mut whole = String::with_capacity(current.len() - (hi - lo) + text.len());
        whole.push_str(&current[..lo]);
        whole.push_str(&text);
        whole.push_str(&current[hi..]);
        return Pasted::TooLong(whole);
    }
    // Views kept hidden (views::keep) make setRangeText take seconds (about 2.5 s instead of
    // 0.1 s for 86 KB, measured): they go from the layout for it, and are laid out again only
    // when shown.
    let root = el.owner_document().and_then(|d| d.document_element());
    if let Some(r) = &root {
        let _ = r.set_attribute("data-pasting", "");
    }
    let put = el.set_range_text(&text);
    if let Some(r) = &root {
        let _ = r.remove_attribute("data-pasting");
    }
    if put.is_err() {
        return Pasted::Native;
    }
    let end = start + text.encode_utf16().count() as u32;
    let _ = el.set_selection_range(end, end);
    Pasted::Inserted
}

/// Lines of a held text the textarea shows (see [`hold`]).
const PREVIEW_LINES: usize = 200;

/// Holds `text`, longer than the lab analyses, outside the textarea: Chromium lays out a
/// textarea's whole text on every change (about a second per megabyte, in one task), so the
/// textarea shows only its first lines, read-only, and the editor keeps the text itself.
fn hold(refs: &Refs, inner: &mut Inner, el: &HtmlTextAreaElement, text: &str) {
    let lang = inner.doc.lang();
    let patch = inner.doc.reset(text, lang);
    refs.apply(inner, &patch);
    el.set_value(&text::preview(text, PREVIEW_LINES, 64 * 1024));
    el.set_scroll_top(0);
    el.set_scroll_left(0);
    refs.size(&inner.doc);
}

/// The padding of the textarea and the layer (static/css/editor.css `--ce-pad`).
const PAD_PX: i32 = 8;

/// The elements the editor draws into by hand.
#[derive(Clone, Default)]
struct Refs {
    area: NodeRef,
    /// The coloured layer: one row per line.
    layer: NodeRef,
    /// The gutter's box (its width) and its rows (line numbers).
    gutter: NodeRef,
    numbers: NodeRef,
    /// The textarea's scroll position when last read.
    scroll: Cell<(i32, i32)>,
}

fn set_style(el: Option<Element>, style: &str) {
    if let Some(el) = el {
        if el.get_attribute("style").as_deref() != Some(style) {
            let _ = el.set_attribute("style", style);
        }
    }
}

impl Refs {
    fn textarea(&self) -> Option<HtmlTextAreaElement> {
        self.area.cast::<HtmlTextAreaElement>()
    }

    fn apply(&self, inner: &mut Inner, patch: &Patch) {
        if let Some(el) = self.layer.cast::<Element>() {
            inner.code_rows.apply(&el, &patch.code);
        }
        if let Some(el) = self.numbers.cast::<Element>() {
            inner.gutter_rows.apply(&el, &patch.gutter);
        }
    }

    /// Moves the layer and the gutter with the textarea's scroll position, and sizes them.
    fn sync(&self, doc: &Doc) {
        let Some(area) = self.area.cast::<Element>() else { return };
        let (x, y) = (area.scroll_left(), area.scroll_top());
        self.scroll.set((x, y));
        set_style(self.numbers.cast(), &format!("transform: translateY({}px)", -y));
        self.size(doc);
    }

    /// Sets the layer's and the gutter's widths for `doc` (explicit widths: measuring 6,000
    /// rows' content on every change is what would make typing slow). Reads no layout.
    fn size(&self, doc: &Doc) {
        let (x, y) = self.scroll.get();
        set_style(
            self.layer.cast(),
            &format!("transform: translate({}px, {}px); width: calc({}ch + {}px)", -x, -y, doc.widest(), 2 * PAD_PX),
        );
        let digits = doc.line_count().to_string().len();
        set_style(self.gutter.cast(), &format!("width: calc({digits}ch + 25px)"));
        // A text too long to colour is shown by the textarea itself (it is transparent over
        // the coloured layer otherwise).
        set_style(self.area.cast(), if doc.is_plain() { "color: var(--code-fg, #1f2933)" } else { "" });
    }
}

/// Hands the current text on, unless it is what was handed on last.
fn emit(inner: &RefCell<Inner>, onedit: &Callback<String>) {
    let text = {
        let mut inner = inner.borrow_mut();
        if inner.emitted.as_deref() == Some(inner.doc.text()) {
            return;
        }
        let text = inner.doc.text().to_string();
        inner.emitted = Some(text.clone());
        text
    };
    // No borrow is held here: the parent may re-render (and run our effects) synchronously.
    onedit.emit(text);
}

/// The message of the gutter marker under the mouse, where it shows (in `.ce-body` pixels).
#[derive(Clone, PartialEq)]
struct Tip {
    text: String,
    top: i32,
    left: i32,
}

/// The tip for the marker at or around `target`, if it is one, placed from its line number
/// (rows have a fixed height). Drawn outside the gutter's rows because those are painted in
/// clipped chunks.
fn tip_for(target: &Element, scroll_y: i32) -> Option<Tip> {
    let marker: HtmlElement = target.closest(".ce-num-err").ok()??.dyn_into().ok()?;
    let line: i32 = marker.text_content()?.trim().parse().ok()?;
    let row = marker.offset_height();
    let top = PAD_PX + line * row - scroll_y + 2;
    let left = marker.offset_width() + 6;
    Some(Tip { text: marker.get_attribute("data-msg")?, top, left })
}

/// Scrolls the textarea so that 1-based `line` shows, at a third of the height, if it is out
/// of view.
fn scroll_to_line(refs: &Refs, el: &HtmlTextAreaElement, line: u32) {
    let line_px = line_height(refs);
    let top = (line.max(1) as i32 - 1) * line_px;
    if top < el.scroll_top() || top + line_px > el.scroll_top() + el.client_height() {
        el.set_scroll_top((top - el.client_height() / 3).max(0));
    }
}

/// The height of a row of the coloured layer, in pixels.
fn line_height(refs: &Refs) -> i32 {
    let row = refs.layer.cast::<Element>().and_then(|c| c.query_selector(".ce-line").ok().flatten());
    row.and_then(|r| r.dyn_into::<HtmlElement>().ok()).map_or(20, |r| r.offset_height().max(1))
}

/// Emits now if an edit is waiting for its debounce (and cancels the debounce).
fn flush(inner: &RefCell<Inner>, timer: &RefCell<Option<Timeout>>, pending: &RefCell<bool>, onedit: &Callback<String>) {
    if std::mem::replace(&mut *pending.borrow_mut(), false) {
        timer.borrow_mut().take();
        emit(inner, onedit);
    }
}

#[function_component(Editor)]
pub fn editor(props: &EditorProps) -> Html {
    let refs = use_memo((), |_| Refs::default());
    let inner = use_mut_ref(|| Inner {
        doc: Doc::new(props.lang),
        code_rows: Default::default(),
        gutter_rows: Default::default(),
        emitted: None,
    });
    // The pending debounce (dropping it cancels it) and whether it has yet to fire.
    let timer = use_mut_ref(|| None::<Timeout>);
    let pending = use_mut_ref(|| false);
    // The last key was Escape: the next Tab moves the focus instead of indenting.
    let escaped = use_mut_ref(|| false);
    // The length of a text held outside the textarea (see `hold`), and the text before the
    // paste that brought it (what "Undo the paste" puts back).
    let held = use_state_eq(|| None::<usize>);
    let before_paste = use_mut_ref(|| None::<String>);

    // A new program from outside replaces the text; our own edit coming back changes nothing.
    {
        let (refs, inner, timer, pending) = (refs.clone(), inner.clone(), timer.clone(), pending.clone());
        let splice = props.splice;
        let held = held.clone();
        use_effect_with((props.text.clone(), props.lang), move |(text, lang)| {
            let Some(el) = refs.textarea() else { return };
            // Before borrowing: the input event the splice fires patches the layers itself.
            if splice && inner.borrow().emitted.as_deref() != Some(text.as_str()) && el.value() != text.as_str() {
                splice_into(&el, text);
            }
            let mut inner = inner.borrow_mut();
            let patch = if inner.emitted.as_deref() == Some(text.as_str()) {
                if inner.doc.lang() == *lang {
                    return;
                }
                let current = inner.doc.text().to_string();
                inner.doc.reset(&current, *lang)
            } else {
                timer.borrow_mut().take();
                *pending.borrow_mut() = false;
                if text.len() > MAX_SOURCE_BYTES {
                    inner.emitted = Some(text.to_string());
                    // The language first (the layers follow every patch, this one too).
                    let patch = inner.doc.reset("", *lang);
                    refs.apply(&mut inner, &patch);
                    hold(&refs, &mut inner, &el, text);
                    held.set(Some(text.len()));
                    return;
                }
                held.set(None);
                if el.value() != text.as_str() {
                    el.set_value(text);
                    el.set_scroll_top(0);
                    el.set_scroll_left(0);
                }
                inner.emitted = Some(text.to_string());
                // The textarea normalises line breaks; show exactly what it holds.
                inner.doc.reset(&el.value(), *lang)
            };
            refs.apply(&mut inner, &patch);
            refs.sync(&inner.doc);
        });
    }

    // Marks and highlighted lines (after the text effect above, which may have reset the doc).
    // The text is a dependency too: an edit drops the marks of the lines it touched, and the
    // re-analysed text may bring back the very same marks.
    {
        let (refs, inner) = (refs.clone(), inner.clone());
        let deps = (props.marks.clone(), props.active_lines.clone(), props.text.clone());
        use_effect_with(deps, move |(marks, active, _)| {
            let mut inner = inner.borrow_mut();
            let a = inner.doc.set_marks(marks);
            let b = inner.doc.set_active(active);
            refs.apply(&mut inner, &a);
            refs.apply(&mut inner, &b);
        });
    }

    // A span asked for from outside (a declaration, a use): selected and scrolled to.
    {
        let (refs, inner) = (refs.clone(), inner.clone());
        use_effect_with(props.select, move |select| {
            let Some((lo, hi, _)) = *select else { return };
            let Some(el) = refs.textarea() else { return };
            let Ok(inner) = inner.try_borrow() else { return };
            let text = inner.doc.text();
            let (a, b) = (text::byte_to_utf16(text, lo), text::byte_to_utf16(text, hi.max(lo)));
            let _ = el.focus();
            let _ = el.set_selection_range(a, b);
            let line = text[..(lo as usize).min(text.len())].matches('\n').count() as u32 + 1;
            scroll_to_line(&refs, &el, line);
            refs.sync(&inner.doc);
        });
    }

    // Reads the textarea after any change of its text and patches the layers.
    let on_changed: Rc<dyn Fn()> = {
        let (refs, inner, timer, pending) = (refs.clone(), inner.clone(), timer.clone(), pending.clone());
        let (held, before_paste) = (held.clone(), before_paste.clone());
        let onedit = props.onedit.clone();
        Rc::new(move || {
            let Some(el) = refs.textarea() else { return };
            {
                let value = el.value();
                let mut inner = inner.borrow_mut();
                if value.len() > MAX_SOURCE_BYTES {
                    // Dropped or typed in some way other than a paste: held from now on too.
                    *before_paste.borrow_mut() = Some(inner.doc.text().to_string());
                    hold(&refs, &mut inner, &el, &value);
                    held.set(Some(value.len()));
                } else {
                    let patch = inner.doc.edit(&value);
                    refs.apply(&mut inner, &patch);
                    // The scroll position is left alone: reading it here would force a layout
                    // in the middle of the keystroke; if the caret scrolled, a scroll event
                    // follows.
                    refs.size(&inner.doc);
                }
            }
            *pending.borrow_mut() = true;
            let (inner, onedit, pending) = (inner.clone(), onedit.clone(), pending.clone());
            let fire = Timeout::new(DEBOUNCE_MS, move || {
                *pending.borrow_mut() = false;
                emit(&inner, &onedit);
            });
            // Replacing the previous timeout drops (cancels) it.
            *timer.borrow_mut() = Some(fire);
        })
    };

    // Removing the editor (another layout) must not lose the last keystrokes.
    {
        let (inner, timer, pending) = (inner.clone(), timer.clone(), pending.clone());
        let onedit = props.onedit.clone();
        use_effect_with((), move |_| move || flush(&inner, &timer, &pending, &onedit));
    }

    let oninput = {
        let on_changed = on_changed.clone();
        Callback::from(move |_: InputEvent| on_changed())
    };

    // Files dropped on the editor replace its text: one file as it is, several as one
    // program, each after a `// file: NAME` line (Bril's imports name them), the file no other
    // imports first. The browser would otherwise open a dropped file in place of the lab.
    let ondragover = Callback::from(|e: DragEvent| {
        if e.data_transfer().is_some_and(|d| d.types().includes(&JsValue::from_str("Files"), 0)) {
            e.prevent_default();
        }
    });
    let ondrop = {
        let (refs, on_changed) = (refs.clone(), on_changed.clone());
        let readonly = props.readonly || held.is_some();
        Callback::from(move |e: DragEvent| {
            let Some(list) = e.data_transfer().and_then(|d| d.files()).filter(|l| l.length() > 0) else { return };
            e.prevent_default();
            // The first-visit build only keeps the page; the full app, a moment later, reads
            // the files (its size budget has no room for the file API).
            if readonly || cfg!(not(feature = "full")) {
                return;
            }
            #[cfg(feature = "full")]
            read_dropped(&list, refs.clone(), on_changed.clone());
        })
    };
    let onpaste = {
        let (refs, inner, on_changed) = (refs.clone(), inner.clone(), on_changed.clone());
        let (timer, pending, held, before_paste) = (timer.clone(), pending.clone(), held.clone(), before_paste.clone());
        let onedit = props.onedit.clone();
        let readonly = props.readonly || held.is_some();
        Callback::from(move |e: Event| {
            let Some(el) = refs.textarea() else { return };
            if readonly {
                return;
            }
            let pasted = match inner.try_borrow() {
                Ok(i) => paste_by_hand(&e, &el, i.doc.text()),
                Err(_) => return,
            };
            match pasted {
                Pasted::Native => {}
                Pasted::Inserted => on_changed(),
                Pasted::TooLong(whole) => {
                    {
                        let mut i = inner.borrow_mut();
                        *before_paste.borrow_mut() = Some(i.doc.text().to_string());
                        hold(&refs, &mut i, &el, &whole);
                    }
                    held.set(Some(whole.len()));
                    // Handed on after the page has shown the preview.
                    *pending.borrow_mut() = true;
                    let (inner, onedit, pending) = (inner.clone(), onedit.clone(), pending.clone());
                    *timer.borrow_mut() = Some(Timeout::new(DEBOUNCE_MS, move || {
                        *pending.borrow_mut() = false;
                        emit(&inner, &onedit);
                    }));
                }
            }
        })
    };

    // Puts back the text a too-long paste replaced.
    let undo_paste = {
        let (refs, on_changed, held, before_paste) = (refs.clone(), on_changed.clone(), held.clone(), before_paste.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(el) = refs.textarea() else { return };
            let Some(old) = before_paste.borrow_mut().take() else { return };
            el.set_value(&old);
            held.set(None);
            on_changed();
        })
    };

    let onblur = {
        let (inner, timer, pending) = (inner.clone(), timer.clone(), pending.clone());
        let onedit = props.onedit.clone();
        Callback::from(move |_: FocusEvent| flush(&inner, &timer, &pending, &onedit))
    };

    let onscroll = {
        let (refs, inner) = (refs.clone(), inner.clone());
        Callback::from(move |_: Event| {
            if let Ok(inner) = inner.try_borrow() {
                refs.sync(&inner.doc);
            }
        })
    };

    let onkeydown = {
        let (refs, escaped) = (refs.clone(), escaped.clone());
        // A held text's preview is never edited (it is not the text).
        let readonly = props.readonly || held.is_some();
        Callback::from(move |e: KeyboardEvent| {
            let key = e.key();
            let after_escape = std::mem::replace(&mut *escaped.borrow_mut(), key == "Escape");
            let plain = !(e.shift_key() || e.ctrl_key() || e.alt_key() || e.meta_key());
            if key != "Tab" || !plain || after_escape || readonly {
                return;
            }
            e.prevent_default();
            let Some(el) = refs.textarea() else { return };
            if !matches!(exec_command("insertText", false, "  "), Ok(true)) {
                // Without execCommand: splice by hand (the undo history misses this step).
                let at = el.selection_start().ok().flatten().unwrap_or(0);
                if el.set_range_text("  ").is_ok() {
                    let _ = el.set_selection_range(at + 2, at + 2);
                    on_changed();
                }
            }
        })
    };

    let goto = {
        let (refs, inner) = (refs.clone(), inner.clone());
        Rc::new(move |line: u32, col: u32| {
            let Some(el) = refs.textarea() else { return };
            let _ = el.focus();
            let Ok(inner) = inner.try_borrow() else { return };
            let at = text::utf16_offset(inner.doc.text(), line, col);
            let _ = el.set_selection_range(at, at);
            scroll_to_line(&refs, &el, line);
            refs.sync(&inner.doc);
        })
    };

    let tip = use_state_eq(|| None::<Tip>);
    let onmouseover = {
        let (tip, refs) = (tip.clone(), refs.clone());
        Callback::from(move |e: MouseEvent| {
            let target = e.target_dyn_into::<Element>();
            tip.set(target.and_then(|t| tip_for(&t, refs.scroll.get().1)));
        })
    };
    let onmouseleave = {
        let tip = tip.clone();
        Callback::from(move |_: MouseEvent| tip.set(None))
    };

    // The tooltip of the text under the mouse (a value's type), placed under the pointer.
    let hover = use_state_eq(|| None::<Tip>);
    let measure = use_node_ref();
    let onmousemove = {
        let (hover, refs, inner, measure) = (hover.clone(), refs.clone(), inner.clone(), measure.clone());
        let tips = props.tips.clone();
        Callback::from(move |e: MouseEvent| {
            if tips.is_empty() {
                hover.set(None);
                return;
            }
            let (Some(el), Some(m)) = (refs.textarea(), measure.cast::<HtmlElement>()) else { return };
            let Ok(inner) = inner.try_borrow() else { return };
            let rect = el.get_bounding_client_rect();
            let ch = f64::from(m.offset_width()) / 10.0;
            let lh = f64::from(line_height(&refs));
            let x = f64::from(e.client_x()) - rect.left() + f64::from(el.scroll_left()) - f64::from(PAD_PX);
            let y = f64::from(e.client_y()) - rect.top() + f64::from(el.scroll_top()) - f64::from(PAD_PX);
            let found = (x >= 0.0 && y >= 0.0 && ch > 0.0)
                .then(|| text::byte_at(inner.doc.text(), (y / lh) as usize, (x / ch) as usize))
                .flatten()
                .and_then(|at| tips.iter().find(|t| t.0 <= at && at < t.1));
            let body = el.parent_element().and_then(|c| c.parent_element()).map(|b| b.get_bounding_client_rect());
            hover.set(found.zip(body).map(|(t, b)| Tip {
                text: t.2.clone(),
                top: (f64::from(e.client_y()) - b.top() + 16.0) as i32,
                left: (f64::from(e.client_x()) - b.left() + 8.0) as i32,
            }));
        })
    };
    let onmouseout = {
        let hover = hover.clone();
        Callback::from(move |_: MouseEvent| hover.set(None))
    };

    let lang = match props.lang {
        Lang::Bril => "bril",
        Lang::Sil => "sil",
    };
    html! {
        <div class="code-editor" data-lang={lang} {ondragover} {ondrop}>
            if let Some(bytes) = *held {
                <p class="ce-held" role="status">
                    { format!(
                        "This text is {} KiB: too long to edit or analyse here (the lab takes up to {} KiB). \
                         It is kept as it is; its first lines are shown. ",
                        bytes >> 10,
                        MAX_SOURCE_BYTES >> 10
                    ) }
                    if before_paste.borrow().is_some() {
                        <button type="button" id="undo-paste" onclick={undo_paste}>{ "Undo the paste" }</button>
                    }
                </p>
            }
            <div class="ce-body">
                <div class="ce-gutter" ref={refs.gutter.clone()} aria-hidden="true" {onmouseover} {onmouseleave}>
                    <div class="ce-gutter-rows" ref={refs.numbers.clone()}></div>
                </div>
                <div class="ce-code">
                    <span class="ce-measure" ref={measure} aria-hidden="true">{ "0000000000" }</span>
                    <div class="ce-layer" ref={refs.layer.clone()} aria-hidden="true"></div>
                    <textarea id="source" class="ce-input" ref={refs.area.clone()}
                        spellcheck="false" autocomplete="off" autocapitalize="off" wrap="off"
                        aria-label="Program text" readonly={props.readonly || held.is_some()}
                        {oninput} {onpaste} {onblur} {onscroll} {onkeydown} {onmousemove} {onmouseout} />
                </div>
                if let Some(t) = &*tip {
                    <div class="ce-tip" role="tooltip" style={format!("top: {}px; left: {}px", t.top, t.left)}>
                        { t.text.clone() }
                    </div>
                }
                if let Some(t) = &*hover {
                    <div class="ce-tip ce-hover-tip" role="tooltip" style={format!("top: {}px; left: {}px", t.top, t.left)}>
                        { t.text.clone() }
                    </div>
                }
            </div>
            if !props.marks.is_empty() {
                <ul class="editor-errors" aria-label="Errors">
                    { for props.marks.iter().map(|m| {
                        let goto = goto.clone();
                        let (line, col) = (m.line, m.col);
                        let onclick = Callback::from(move |_: MouseEvent| goto(line, col));
                        html! {
                            <li class="editor-error">
                                <button type="button" {onclick}>
                                    <span class="ce-loc">{ format!("{}:{}", m.line, m.col) }</span>
                                    { " " }{ m.message.clone() }
                                </button>
                            </li>
                        }
                    }) }
                </ul>
            }
        </div>
    }
}

/// Reads the dropped files and puts them in the editor as one text (see `ondrop`).
#[cfg(feature = "full")]
fn read_dropped(list: &web_sys::FileList, refs: Rc<Refs>, on_changed: Rc<dyn Fn()>) {
    let files: Vec<web_sys::File> = (0..list.length()).filter_map(|k| list.get(k)).collect();
    wasm_bindgen_futures::spawn_local(async move {
        let mut read = Vec::with_capacity(files.len());
        for f in files {
            let text = wasm_bindgen_futures::JsFuture::from(f.text()).await.ok().and_then(|v| v.as_string());
            read.push((f.name(), text.unwrap_or_default()));
        }
        let text = match read.len() {
            1 => read.pop().map(|(_, t)| t).unwrap_or_default(),
            _ => optlab_core::parse::bril::join_program(read),
        };
        if let Some(el) = refs.textarea() {
            el.set_value(&text);
            on_changed();
        }
    });
}
