//! Sharing in a real browser (wasm-bindgen-test in headless Chromium, see scripts/test.sh):
//! autosave through `localStorage` (round trip, corrupt values, a full quota), the text kept
//! before a link, the theme attribute, the permalink codec compiled to wasm, and the service
//! worker registration not failing the page.
#![cfg(target_arch = "wasm32")]

use optlab_web::permalink::{self, LinkError, Snapshot};
use optlab_web::storage::{self, Saved, StorageError, Theme, AUTOSAVE_KEY, BEFORE_LINK_KEY, THEME_KEY};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn local() -> web_sys::Storage {
    web_sys::window().unwrap().local_storage().unwrap().unwrap()
}

fn clear() {
    for key in [AUTOSAVE_KEY, BEFORE_LINK_KEY, THEME_KEY] {
        local().remove_item(key).unwrap();
    }
}

fn doc(src: &str) -> Saved {
    Saved::new(src, "bril", Some("x.bril".into()))
}

#[wasm_bindgen_test]
fn autosave_round_trips_through_local_storage() {
    clear();
    assert_eq!(storage::load(), None);
    storage::save(&doc("@main { print x; }")).unwrap();
    assert_eq!(storage::load(), Some(doc("@main { print x; }")));
    // It is really in localStorage, under the versioned key, as JSON.
    let raw = local().get_item(AUTOSAVE_KEY).unwrap().unwrap();
    assert!(raw.contains("print x;"), "{raw}");
    clear();
}

#[wasm_bindgen_test]
fn a_corrupt_value_loads_as_nothing() {
    clear();
    for junk in ["{", "not json", "[1,2]", r#"{"src":"x","lang":"fortran"}"#] {
        local().set_item(AUTOSAVE_KEY, junk).unwrap();
        assert_eq!(storage::load(), None, "{junk}");
    }
    local().set_item(THEME_KEY, "sepia").unwrap();
    assert_eq!(storage::load_theme(), None);
    clear();
}

#[wasm_bindgen_test]
fn a_full_quota_is_reported_and_keeps_the_last_save() {
    clear();
    storage::save(&doc("small")).unwrap();
    // Far beyond any browser's localStorage quota (Chromium: 10 MB per origin).
    let huge = doc(&"x".repeat(12 * 1024 * 1024));
    assert_eq!(storage::save(&huge), Err(StorageError::Full));
    assert_eq!(storage::load(), Some(doc("small")));
    clear();
}

#[wasm_bindgen_test]
fn the_users_text_is_kept_before_a_link() {
    clear();
    storage::save(&doc("mine")).unwrap();
    assert!(storage::remember_before_link(&doc("linked")).unwrap());
    assert_eq!(storage::before_link(), Some(doc("mine")));
    storage::clear_before_link().unwrap();
    assert_eq!(storage::before_link(), None);
    clear();
}

#[wasm_bindgen_test]
fn the_theme_is_saved_and_shown_on_the_root_element() {
    clear();
    let html = web_sys::window().unwrap().document().unwrap().document_element().unwrap();
    storage::save_theme(Some(Theme::Dark)).unwrap();
    assert_eq!(storage::load_theme(), Some(Theme::Dark));
    storage::apply_theme(Some(Theme::Dark));
    assert_eq!(html.get_attribute("data-theme").as_deref(), Some("dark"));
    storage::apply_theme(Some(Theme::Light));
    assert_eq!(html.get_attribute("data-theme").as_deref(), Some("light"));
    storage::apply_theme(None);
    assert_eq!(html.get_attribute("data-theme"), None);
    storage::save_theme(None).unwrap();
    assert_eq!(storage::load_theme(), None);
    // The system preference can be read (its value depends on the browser's settings).
    let _ = storage::system_prefers_dark();
    clear();
}

#[wasm_bindgen_test]
fn permalinks_work_in_wasm() {
    let s = Snapshot { view: Some("cfg".into()), lecture: true, ..Snapshot::new("sil @f : $() {\nbb0:\n  unreachable\n}\n", "sil") };
    let frag = permalink::encode(&s).unwrap();
    assert_eq!(permalink::decode(&frag).unwrap(), s);
    assert_eq!(permalink::decode("#s=%%%"), Err(LinkError::BadCharacter { ch: '%' }));
    // A state longer than the cap, made by hand, is refused while unpacking.
    let big = serde_json::json!({ "v": 1, "src": "a".repeat(permalink::MAX_JSON_UNITS), "lang": "bril" }).to_string();
    let frag = format!("#s={}", lz_str::compress_to_encoded_uri_component(big.as_str()));
    assert_eq!(permalink::decode(&frag), Err(LinkError::TooLarge { max: permalink::MAX_JSON_UNITS }));
}

#[wasm_bindgen_test]
fn registering_the_service_worker_never_fails_the_page() {
    // The test page has no sw.js: registration starts, and its failure is only a warning.
    match optlab_web::offline::register() {
        Ok(()) | Err(optlab_web::offline::OfflineError::Unsupported) => {}
        Err(e) => panic!("{e}"),
    }
}
