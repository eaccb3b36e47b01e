//! Never lose text: the editor's document, the text a link replaced, and the theme choice, in
//! the browser's `localStorage`.
//!
//! Storage can be missing or refuse to write (private windows, disabled site data, a full
//! quota): every write returns a [`StorageError`] whose message can be shown as it is, every
//! read of an absent or corrupt value is `None`, and nothing here panics. The logic runs on
//! any [`Backend`]; the free functions use the browser's (natively: one in memory per thread,
//! so the app's reducer tests run without a browser).
//!
//! Keys carry a format version (`optlab.v1.…`): a later format reads old values or ignores
//! them, it never misreads them.

use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use thiserror::Error;

pub const AUTOSAVE_KEY: &str = "optlab.v1.autosave";
pub const BEFORE_LINK_KEY: &str = "optlab.v1.before-link";
pub const THEME_KEY: &str = "optlab.v1.theme";
/// The last program that parsed, kept while the autosaved text has errors (or is too long to
/// analyse), so that a reload shows its views rather than "no program yet".
pub const LAST_GOOD_KEY: &str = "optlab.v1.last-good";

/// The editor's document as saved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Saved {
    pub src: String,
    /// `"sil"` or `"bril"`.
    pub lang: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The text came from a link and was not edited since: opening another link must not
    /// treat it as the user's own text (see [`Store::remember_before_link`]).
    #[serde(default, skip_serializing_if = "is_false")]
    pub from_link: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Saved {
    pub fn new(src: impl Into<String>, lang: impl Into<String>, file: Option<String>) -> Saved {
        Saved { src: src.into(), lang: lang.into(), file, from_link: false }
    }

    /// Reads a stored value; anything that is not a well-formed document is `None`.
    pub fn from_json(json: &str) -> Option<Saved> {
        let s: Saved = serde_json::from_str(json).ok()?;
        matches!(s.lang.as_str(), "sil" | "bril").then_some(s)
    }

    pub fn to_json(&self) -> String {
        // A struct of strings and a bool always serializes.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Same text and language (what "the same document" means to the user).
    fn same_text(&self, other: &Saved) -> bool {
        self.src == other.src && self.lang == other.lang
    }
}

/// An explicit theme choice; no choice means "follow the system".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    pub fn parse(s: &str) -> Option<Theme> {
        match s {
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }

    pub fn toggled(self) -> Theme {
        match self {
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Light,
        }
    }

    /// The theme in force: the choice, else the system's.
    pub fn effective(choice: Option<Theme>, system_dark: bool) -> Theme {
        choice.unwrap_or(if system_dark { Theme::Dark } else { Theme::Light })
    }
}

/// Why a value was not stored. The messages are for the user.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum StorageError {
    #[error("This browser does not let the page save (private window or site data blocked): your text lives only as long as this tab.")]
    Unavailable,
    #[error("The browser's storage for this page is full: your latest text was not saved.")]
    Full,
    #[error("Your text could not be saved ({0}).")]
    Failed(String),
}

/// A string key-value store (`localStorage`, or memory).
pub trait Backend {
    fn get(&self, key: &str) -> Result<Option<String>, StorageError>;
    fn set(&self, key: &str, value: &str) -> Result<(), StorageError>;
    fn remove(&self, key: &str) -> Result<(), StorageError>;
}

/// A store in memory: for tests, and natively. Clones share their contents.
#[derive(Clone, Debug, Default)]
pub struct Memory(Rc<RefCell<BTreeMap<String, String>>>);

impl Backend for Memory {
    fn get(&self, key: &str) -> Result<Option<String>, StorageError> {
        Ok(self.0.borrow().get(key).cloned())
    }
    fn set(&self, key: &str, value: &str) -> Result<(), StorageError> {
        self.0.borrow_mut().insert(key.to_string(), value.to_string());
        Ok(())
    }
    fn remove(&self, key: &str) -> Result<(), StorageError> {
        self.0.borrow_mut().remove(key);
        Ok(())
    }
}

/// What the app keeps, on some backend.
#[derive(Debug, Default)]
pub struct Store<B: Backend> {
    pub backend: B,
}

impl<B: Backend> Store<B> {
    pub fn new(backend: B) -> Store<B> {
        Store { backend }
    }

    pub fn save(&self, doc: &Saved) -> Result<(), StorageError> {
        self.backend.set(AUTOSAVE_KEY, &doc.to_json())
    }

    /// Saves `doc` and, if its text does not parse, `last_good` (the program the views show;
    /// `None` forgets it). The program goes first: it is what a reload needs to show views
    /// when `doc` is too large for the browser's storage.
    pub fn save_with_last_good(&self, doc: &Saved, last_good: Option<&Saved>) -> Result<(), StorageError> {
        let kept = match last_good {
            Some(good) => self.backend.set(LAST_GOOD_KEY, &good.to_json()),
            None => self.backend.remove(LAST_GOOD_KEY),
        };
        self.save(doc)?;
        kept
    }

    /// The last program that parsed, if the autosave has errors (see [`LAST_GOOD_KEY`]).
    pub fn load_last_good(&self) -> Option<Saved> {
        self.read(LAST_GOOD_KEY)
    }

    fn read(&self, key: &str) -> Option<Saved> {
        Saved::from_json(&self.backend.get(key).ok()??)
    }

    pub fn load(&self) -> Option<Saved> {
        self.read(AUTOSAVE_KEY)
    }

    /// Call when a link is about to replace the editor's text with `link`'s: keeps the
    /// current autosave as "your text before the link" if it is the user's own (not the
    /// unedited text of an earlier link) and differs from the link's. Returns whether a
    /// text is now waiting to be offered back.
    pub fn remember_before_link(&self, link: &Saved) -> Result<bool, StorageError> {
        if let Some(current) = self.load() {
            if !current.from_link && !current.src.trim().is_empty() && !current.same_text(link) {
                self.backend.set(BEFORE_LINK_KEY, &current.to_json())?;
            }
        }
        Ok(self.before_link().is_some_and(|b| !b.same_text(link)))
    }

    /// The user's text that a link replaced, if any.
    pub fn before_link(&self) -> Option<Saved> {
        self.read(BEFORE_LINK_KEY)
    }

    /// Forgets it (after going back, or when the user dismisses the offer).
    pub fn clear_before_link(&self) -> Result<(), StorageError> {
        self.backend.remove(BEFORE_LINK_KEY)
    }

    /// `None` forgets the choice (follow the system again).
    pub fn save_theme(&self, theme: Option<Theme>) -> Result<(), StorageError> {
        match theme {
            Some(t) => self.backend.set(THEME_KEY, t.as_str()),
            None => self.backend.remove(THEME_KEY),
        }
    }

    pub fn load_theme(&self) -> Option<Theme> {
        Theme::parse(&self.backend.get(THEME_KEY).ok()??)
    }
}

#[cfg(target_arch = "wasm32")]
mod browser {
    use super::{Backend, StorageError};
    use web_sys::js_sys::Reflect;
    use web_sys::wasm_bindgen::JsValue;

    /// `window.localStorage`, looked up on each use (it can be blocked at any time).
    pub struct Local;

    fn storage() -> Result<web_sys::Storage, StorageError> {
        // Throws (SecurityError) when site data is blocked; `None` in some embedded views.
        web_sys::window().and_then(|w| w.local_storage().ok().flatten()).ok_or(StorageError::Unavailable)
    }

    fn error(e: JsValue) -> StorageError {
        let name = Reflect::get(&e, &JsValue::from_str("name")).ok().and_then(|n| n.as_string()).unwrap_or_default();
        match name.as_str() {
            "QuotaExceededError" | "NS_ERROR_DOM_QUOTA_REACHED" => StorageError::Full,
            "SecurityError" => StorageError::Unavailable,
            _ => StorageError::Failed(if name.is_empty() { "unknown error".into() } else { name }),
        }
    }

    impl Backend for Local {
        fn get(&self, key: &str) -> Result<Option<String>, StorageError> {
            storage()?.get_item(key).map_err(error)
        }
        fn set(&self, key: &str, value: &str) -> Result<(), StorageError> {
            storage()?.set_item(key, value).map_err(error)
        }
        fn remove(&self, key: &str) -> Result<(), StorageError> {
            storage()?.remove_item(key).map_err(error)
        }
    }

    pub fn store() -> super::Store<Local> {
        super::Store::new(Local)
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod browser {
    thread_local! {
        static MEMORY: super::Memory = super::Memory::default();
    }

    pub fn store() -> super::Store<super::Memory> {
        super::Store::new(MEMORY.with(|m| m.clone()))
    }
}

#[cfg(target_arch = "wasm32")]
pub use browser::Local;
/// The backend of [`browser_store`]: `localStorage` in the browser, else [`Memory`].
#[cfg(target_arch = "wasm32")]
pub type BrowserBackend = Local;
#[cfg(not(target_arch = "wasm32"))]
pub type BrowserBackend = Memory;

/// The browser's store (`localStorage`); natively, one in memory per thread.
pub fn browser_store() -> Store<BrowserBackend> {
    browser::store()
}

/// Autosaves the editor's document.
pub fn save(doc: &Saved) -> Result<(), StorageError> {
    browser_store().save(doc)
}

/// See [`Store::save_with_last_good`].
pub fn save_with_last_good(doc: &Saved, last_good: Option<&Saved>) -> Result<(), StorageError> {
    browser_store().save_with_last_good(doc, last_good)
}

/// The autosaved document, if there is a readable one.
pub fn load() -> Option<Saved> {
    browser_store().load()
}

/// See [`Store::remember_before_link`].
pub fn remember_before_link(link: &Saved) -> Result<bool, StorageError> {
    browser_store().remember_before_link(link)
}

/// See [`Store::before_link`].
pub fn before_link() -> Option<Saved> {
    browser_store().before_link()
}

pub fn clear_before_link() -> Result<(), StorageError> {
    browser_store().clear_before_link()
}

pub fn save_theme(theme: Option<Theme>) -> Result<(), StorageError> {
    browser_store().save_theme(theme)
}

pub fn load_theme() -> Option<Theme> {
    browser_store().load_theme()
}

/// Shows `theme` (`None`: follow the system) by setting `data-theme` on `<html>`, which
/// `theme.css` reads. Does nothing outside a browser.
pub fn apply_theme(theme: Option<Theme>) {
    #[cfg(target_arch = "wasm32")]
    if let Some(html) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        // Setting an attribute on <html> cannot fail for these fixed names and values.
        let _ = match theme {
            Some(t) => html.set_attribute("data-theme", t.as_str()),
            None => html.remove_attribute("data-theme"),
        };
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = theme;
}

/// Whether the system asks for dark colours (`prefers-color-scheme: dark`); `false` outside a
/// browser or when the browser cannot tell.
pub fn system_prefers_dark() -> bool {
    #[cfg(target_arch = "wasm32")]
    {
        web_sys::window()
            .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
            .is_some_and(|m| m.matches())
    }
    #[cfg(not(target_arch = "wasm32"))]
    false
}

// Native only (memory backend); web/tests/sharing.rs tests the real localStorage.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn doc(src: &str) -> Saved {
        Saved::new(src, "bril", Some("x.bril".into()))
    }

    #[test]
    fn a_document_is_saved_and_loaded() {
        let st = Store::new(Memory::default());
        assert_eq!(st.load(), None);
        st.save(&doc("@main {}")).unwrap();
        assert_eq!(st.load(), Some(doc("@main {}")));
        st.save(&doc("@f {}")).unwrap();
        assert_eq!(st.load(), Some(doc("@f {}")));
    }

    #[test]
    fn corrupt_values_read_as_nothing() {
        let st = Store::new(Memory::default());
        for junk in ["", "{", "null", "[]", "42", r#"{"src":1,"lang":"bril"}"#, r#"{"src":"x","lang":"cobol"}"#, r#"{"lang":"sil"}"#] {
            st.backend.set(AUTOSAVE_KEY, junk).unwrap();
            assert_eq!(st.load(), None, "{junk:?}");
            st.backend.set(BEFORE_LINK_KEY, junk).unwrap();
            assert_eq!(st.before_link(), None, "{junk:?}");
        }
        st.backend.set(AUTOSAVE_KEY, r#"{"src":"x","lang":"sil","later":1}"#).unwrap();
        assert_eq!(st.load(), Some(Saved::new("x", "sil", None)), "unknown fields are ignored");
        st.backend.set(THEME_KEY, "purple").unwrap();
        assert_eq!(st.load_theme(), None);
    }

    #[test]
    fn a_link_keeps_the_users_text_once() {
        let st = Store::new(Memory::default());
        let mine = doc("my program");
        st.save(&mine).unwrap();
        let link1 = doc("program of link 1");
        assert!(st.remember_before_link(&link1).unwrap());
        assert_eq!(st.before_link(), Some(mine.clone()));
        // The app autosaves the link's (unedited) text; a second link must not replace mine.
        st.save(&Saved { from_link: true, ..link1.clone() }).unwrap();
        assert!(st.remember_before_link(&doc("program of link 2")).unwrap());
        assert_eq!(st.before_link(), Some(mine.clone()));
        // A link to my own text offers nothing to go back to.
        assert!(!st.remember_before_link(&mine).unwrap());
        st.clear_before_link().unwrap();
        assert_eq!(st.before_link(), None);
    }

    #[test]
    fn nothing_to_keep_before_a_link() {
        let st = Store::new(Memory::default());
        assert!(!st.remember_before_link(&doc("link")).unwrap(), "no autosave");
        st.save(&doc("  \n")).unwrap();
        assert!(!st.remember_before_link(&doc("link")).unwrap(), "blank text is not worth offering");
        st.save(&doc("link")).unwrap();
        assert!(!st.remember_before_link(&doc("link")).unwrap(), "same text");
        assert_eq!(st.before_link(), None);
    }

    #[test]
    fn the_theme_choice_is_kept_or_forgotten() {
        let st = Store::new(Memory::default());
        assert_eq!(st.load_theme(), None);
        st.save_theme(Some(Theme::Dark)).unwrap();
        assert_eq!(st.load_theme(), Some(Theme::Dark));
        st.save_theme(None).unwrap();
        assert_eq!(st.load_theme(), None);
        assert_eq!(Theme::effective(None, true), Theme::Dark);
        assert_eq!(Theme::effective(Some(Theme::Light), true), Theme::Light);
        assert_eq!(Theme::Dark.toggled(), Theme::Light);
        for t in [Theme::Light, Theme::Dark] {
            assert_eq!(Theme::parse(t.as_str()), Some(t));
        }
    }

    /// The `--name: value;` declarations of the first block that starts with `selector`.
    fn declarations(css: &str, selector: &str) -> Vec<(String, String)> {
        let start = css.find(selector).unwrap_or_else(|| panic!("no {selector}"));
        let body = &css[start + selector.len()..];
        let body = &body[..body.find('}').unwrap()];
        body.lines()
            .filter_map(|l| l.split("/*").next()?.trim().strip_prefix("--")?.split_once(':'))
            .map(|(k, v)| (k.trim().to_string(), v.trim().trim_end_matches(';').to_string()))
            .collect()
    }

    #[test]
    fn theme_css_gives_every_colour_a_dark_value_and_writes_dark_once() {
        let css = include_str!("../../static/css/theme.css");
        let light = declarations(css, ":root {");
        let dark = declarations(css, ":root[data-theme=\"dark\"] {");
        let system = declarations(css, ":root:not([data-theme=\"light\"]) {");
        assert_eq!(dark, system, "the explicit and the system dark themes differ");
        let dark_names: Vec<&str> = dark.iter().map(|(k, _)| k.as_str()).collect();
        for (name, value) in &light {
            // Aliases (var(…)) follow their target; everything else needs a dark value.
            assert!(value.starts_with("var(") || dark_names.contains(&name.as_str()), "--{name} has no dark value");
        }
        for name in ["bg", "pane", "fg", "muted", "border", "error", "syn-keyword", "syn-comment", "graph-edge-true", "badge-true"] {
            assert!(dark_names.contains(&name), "--{name}");
        }
    }

    #[test]
    fn the_native_free_functions_use_one_store_per_thread() {
        save(&doc("a")).unwrap();
        assert_eq!(load(), Some(doc("a")));
        save_theme(Some(Theme::Light)).unwrap();
        assert_eq!(load_theme(), Some(Theme::Light));
        assert!(std::thread::spawn(load).join().unwrap().is_none());
    }
}
