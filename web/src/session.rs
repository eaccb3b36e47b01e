//! Where the page's state comes from and where it goes: the URL fragment (permalinks), the
//! autosave, the theme. The decisions are pure functions over a [`Store`] (tested natively on
//! memory); the browser hooks at the bottom only connect them to `location` and events.
//!
//! The rule that matters: nothing a link does — good, broken or hostile — overwrites the
//! user's own text. A link's program is opened with the user's text kept aside (and offered
//! back); a broken link only shows a message.

use crate::permalink::{self, Snapshot};
use crate::state::{Action, Doc, Notice, State};
use crate::storage::{Backend, Saved, Store};
use optlab_core::Lang;

/// The document a saved autosave describes.
pub fn doc_from_saved(saved: &Saved) -> Doc {
    let lang = if saved.lang == "sil" { Lang::Sil } else { Lang::Bril };
    let file = saved.file.clone().unwrap_or_else(|| format!("untitled.{}", saved.lang));
    Doc { from_link: saved.from_link, ..Doc::new(&saved.src, lang, &file) }
}

/// What the autosave keeps of the program the views show while the editor's text has
/// errors (`None` when the text parses: the autosave itself is that program).
pub fn last_good(state: &State) -> Option<Saved> {
    let p = state.program.as_ref().filter(|_| state.is_stale())?;
    Some(Saved::new(p.source.clone(), p.lang.to_string(), Some(p.file.clone())))
}

/// What the autosave keeps of a document.
pub fn saved_from_doc(doc: &Doc) -> Saved {
    Saved {
        src: doc.source.to_string(),
        // Core's name of the language (`bril`, `sil`: its file extension).
        lang: doc.lang.to_string(),
        file: Some(doc.file.to_string()),
        from_link: doc.from_link,
    }
}

/// The state a page opens with, given its URL fragment: the link's screen if it has one,
/// else the autosaved text, else the first example; a broken link leaves the saved text and
/// says what is wrong. An embedded view (`#embed…`) is the author's page in someone else's:
/// it never shows the visitor's autosave (without a program in the link, the first example).
pub fn start<B: Backend>(fragment: &str, store: &Store<B>) -> State {
    let embed = permalink::parse(fragment).is_ok_and(|f| f.flags.embed || f.state.as_ref().is_some_and(|s| s.embed));
    let (saved, good) = if embed { (None, None) } else { (store.load(), store.load_last_good()) };
    let mut base = match (saved, good) {
        (Some(saved), Some(good)) if !saved.src.trim().is_empty() => {
            State::resumed(doc_from_saved(&saved), doc_from_saved(&good))
        }
        (Some(saved), None) if !saved.src.trim().is_empty() => State::new(doc_from_saved(&saved)),
        _ => State::default(),
    };
    base.theme = store.load_theme();
    open_fragment(base, fragment, store)
}

/// `state` after the page's fragment changed to `fragment` (a link pasted into the address
/// bar of an open page, or the page starting).
pub fn open_fragment<B: Backend>(state: State, fragment: &str, store: &Store<B>) -> State {
    match permalink::parse(fragment) {
        Ok(f) => match f.state {
            Some(snap) => open_link(state, snap, store),
            None => state.apply(Action::SetFlags(f.flags)),
        },
        Err(e) => state.apply(Action::Notify(Notice {
            error: true,
            text: format!("{e} Your own text is unchanged.").into(),
        })),
    }
}

fn open_link<B: Backend>(state: State, snap: Snapshot, store: &Store<B>) -> State {
    if snap.embed || state.embed {
        // An embed never touches the visitor's own text, so there is nothing to keep aside.
        return state.apply(Action::Restore(Box::new(snap)));
    }
    let link_doc = Saved { from_link: true, ..Saved::new(snap.src.clone(), snap.lang.clone(), snap.file.clone()) };
    // Without storage the text before the link still lives in memory (State::stash).
    let waiting = store.remember_before_link(&link_doc).unwrap_or(false);
    let mut s = state.apply(Action::Restore(Box::new(snap)));
    if waiting {
        s.stash = store.before_link().map(|b| doc_from_saved(&b));
    }
    if s.stash.is_some() {
        s.notice = Some(Notice {
            error: false,
            text: "You opened a shared link. Your own program is kept: you can go back to it.".into(),
        });
    }
    s
}

/// A link to what `state` shows, on the page at `base` (its own fragment replaced).
pub fn link_to(state: &State, base: &str) -> Result<String, String> {
    permalink::link(base, &state.snapshot()).map_err(|e| e.to_string())
}

#[cfg(target_arch = "wasm32")]
pub use browser::*;

#[cfg(target_arch = "wasm32")]
mod browser {
    use super::*;
    use crate::storage;

    fn location() -> Option<web_sys::Location> {
        web_sys::window().map(|w| w.location())
    }

    /// The page's current fragment (`""` when none).
    pub fn fragment() -> String {
        location().and_then(|l| l.hash().ok()).unwrap_or_default()
    }

    /// The state the page opens with (reads the URL and local storage).
    pub fn initial_state() -> State {
        let s = start(&fragment(), &storage::browser_store());
        storage::apply_theme(s.theme);
        s
    }

    /// Saves the document and, while it has errors, the program the views show (errors
    /// become a notice's text).
    pub fn autosave(doc: &Doc, last_good: Option<&Saved>) -> Result<(), String> {
        storage::save_with_last_good(&saved_from_doc(doc), last_good).map_err(|e| match e {
            storage::StorageError::Full if doc.source.len() > crate::program::MAX_SOURCE_BYTES / 2 => format!(
                "Your text ({} KiB) is more than the browser lets this page save: it stays in this tab, \
                 and a reload brings back the last text that was saved.",
                doc.source.len() >> 10
            ),
            e => e.to_string(),
        })
    }

    /// Makes a link to the current screen, shows it in the address bar without reloading, and
    /// copies it to the clipboard when the browser allows. Returns the link.
    pub fn copy_link(state: &State) -> Result<String, String> {
        let loc = location().ok_or("no page location")?;
        let href = loc.href().map_err(|e| format!("{e:?}"))?;
        let url = link_to(state, &href)?;
        if let Some(w) = web_sys::window() {
            if let Ok(h) = w.history() {
                let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
            }
            // Clipboard access needs permission or a secure context; the link is shown anyway.
            let _ = w.navigator().clipboard().write_text(&url);
        }
        Ok(url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::EXAMPLES;
    use crate::state::Tab;
    use crate::storage::Memory;

    const MINE: &str = "@main {\n  x: int = const 7;\n  print x;\n}\n";

    fn store_with(text: &str) -> Store<Memory> {
        let store = Store::new(Memory::default());
        store.save(&Saved::new(text, "bril", Some("mine.bril".into()))).expect("memory saves");
        store
    }

    fn shared_link() -> String {
        let s = State::default().apply(Action::SelectTab(Tab::pass("dce")));
        link_to(&s, "https://example.org/optlab/").expect("links")
    }

    #[test]
    fn a_page_without_a_link_opens_the_autosave_or_the_first_example() {
        let empty = Store::new(Memory::default());
        assert_eq!(start("", &empty).doc.source.as_str(), EXAMPLES[0].text());
        let s = start("", &store_with(MINE));
        assert_eq!(s.doc.source.as_str(), MINE);
        assert_eq!(s.doc.file, "mine.bril");
        assert!(s.notice.is_none() && s.stash.is_none());
    }

    #[test]
    fn a_link_opens_its_screen_and_keeps_the_users_text_aside() {
        let store = store_with(MINE);
        let url = shared_link();
        let frag = &url[url.find('#').expect("has a fragment")..];
        let s = start(frag, &store);
        assert_eq!(s.doc.source.as_str(), EXAMPLES[0].text());
        assert_eq!(s.tab, Tab::pass("dce"));
        assert!(s.doc.from_link);
        assert_eq!(s.stash.as_ref().map(|d| d.source.as_str()), Some(MINE));
        assert!(s.notice.as_ref().is_some_and(|n| !n.error));
        assert_eq!(store.before_link().map(|b| b.src), Some(MINE.to_string()), "kept across reloads");
        let back = s.apply(Action::RestoreStash);
        assert_eq!(back.doc.source.as_str(), MINE);
    }

    #[test]
    fn broken_and_hostile_links_leave_the_saved_text_and_say_why() {
        let store = store_with(MINE);
        let url = shared_link();
        let frag = &url[url.find('#').expect("has a fragment")..];
        let truncated = &frag[..frag.len() / 2];
        let huge = format!("#s={}", "A".repeat(permalink::MAX_FRAGMENT + 10));
        for bad in [truncated, "#s=%%%not-lz%%%", "#s=", huge.as_str(), "#s=abc&s=def"] {
            let s = start(bad, &store);
            assert_eq!(s.doc.source.as_str(), MINE, "{bad:.40}");
            let n = s.notice.as_ref().unwrap_or_else(|| panic!("no notice for {bad:.40}"));
            assert!(n.error && n.text.contains("Your own text is unchanged"), "{}", n.text);
            assert_eq!(store.load().map(|l| l.src), Some(MINE.to_string()));
        }
    }

    #[test]
    fn flags_alone_switch_modes_on_the_saved_text() {
        let s = start("#lecture", &store_with(MINE));
        assert!(s.lecture && !s.embed);
        assert_eq!(s.doc.source.as_str(), MINE);
    }

    #[test]
    fn an_embed_never_reads_or_keeps_the_visitors_autosave() {
        let store = store_with(MINE);
        let s = start("#lecture&embed=lcm", &store);
        assert!(s.lecture && s.embed);
        assert_eq!(s.tab, Tab::pass("lcm"));
        assert_eq!(s.doc.source.as_str(), EXAMPLES[0].text(), "the default example, not the visitor's text");
        // An embed link with a program shows it, with nothing stashed or remembered.
        let url = shared_link();
        let frag = format!("{}&embed=dce", &url[url.find('#').expect("has a fragment")..]);
        let s = start(&frag, &store);
        assert!(s.embed && s.stash.is_none() && s.notice.is_none());
        assert_eq!(s.tab, Tab::pass("dce"));
        assert_eq!(store.before_link(), None);
        assert_eq!(store.load().map(|l| l.src), Some(MINE.to_string()));
    }

    #[test]
    fn a_reload_on_text_with_errors_shows_the_last_good_program() {
        let store = Store::new(Memory::default());
        let good = State::new(doc_from_saved(&Saved::new(MINE, "bril", Some("mine.bril".into()))));
        let broken = good.apply(Action::Edit("@main {\n  x: int = const;\n}\n".into()));
        let kept = last_good(&broken);
        assert_eq!(kept.as_ref().map(|k| k.src.as_str()), Some(MINE));
        store.save_with_last_good(&saved_from_doc(&broken.doc), kept.as_ref()).expect("memory saves");
        let s = start("", &store);
        assert!(s.is_stale() && s.analysis.is_ok(), "{:?}", s.analysis);
        assert_eq!(s.doc.source, broken.doc.source);
        assert!(s.error_text.is_some());
        // Fixed and saved again: the last good program is forgotten.
        let fixed = broken.apply(Action::Edit(MINE.into()));
        assert!(last_good(&fixed).is_none());
        store.save_with_last_good(&saved_from_doc(&fixed.doc), None).expect("memory saves");
        assert!(store.load_last_good().is_none());
        assert!(!start("", &store).is_stale());
    }

    #[test]
    fn the_autosave_round_trips_a_document() {
        let s = State::default();
        let saved = saved_from_doc(&s.doc);
        assert_eq!(doc_from_saved(&saved).source, s.doc.source);
        assert_eq!(doc_from_saved(&saved).lang, s.doc.lang);
    }
}
