//! Permalinks: the whole UI state in the URL fragment, so a link needs no server.
//!
//! The state travels as JSON compressed in lz-string's `compressToEncodedURIComponent` format
//! (the TypeScript Playground's choice): its 64-character alphabet needs no escaping in a
//! fragment, and sites that ban URL shorteners keep such links intact.
//!
//! # Fragment grammar
//!
//! ```text
//! fragment = ["#"] part *("&" part)
//! part     = "s=" STATE          ; the state: lz-string(JSON of a Snapshot), at most once
//!          | "lecture" ["=" on]  ; lecture mode
//!          | "exercise" ["=" on] ; exercise mode
//!          | "embed" ["=" VIEW]  ; embed mode; with a value, also the view to show
//!          | anything else       ; ignored (a stray anchor must not break the page)
//! on       = anything but "0" / "false" / "off"
//! ```
//!
//! The flags are plain parts rather than hidden in the state so that a lecturer can add
//! `&lecture` or `&embed=lcm` to any link by hand; [`encode`] writes them that way too. A
//! fragment with flags and no state (`#lecture`) turns a mode on over the saved text.
//!
//! Decoding is the page's first contact with a stranger's data, so every limit is explicit:
//! the fragment is capped at [`MAX_FRAGMENT`] characters before anything is decoded, and the
//! decompressed JSON at [`MAX_JSON_UNITS`] UTF-16 units while it is decoded (see [`lz`]: an
//! lz-string stream can grow quadratically in its length). Every failure is a [`LinkError`]
//! whose message can be shown to the user as it is.

mod lz;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

/// The snapshot format this build writes and reads.
pub const VERSION: u32 = 1;
/// Longest fragment decoded, in characters.
pub const MAX_FRAGMENT: usize = 256 * 1024;
/// Longest decompressed state, in UTF-16 code units (the editor's text is most of it).
pub const MAX_JSON_UNITS: usize = 1024 * 1024;
/// The part that carries the state.
const STATE_KEY: &str = "s";

/// The UI state in plain data, independent of the app's enums (which may change without
/// breaking old links). Names are the ones the UI shows: `lang` is `"sil"` or `"bril"`;
/// `view` a tab's slug (`"cfg"`, `"dom"`, `"pdom"`, `"cdg"`, a pass's slug such as `"dce"`,
/// `"diff"`, `"types"`); `pipe` the before/after view's pipeline as it is written (`"lcm,copyprop,dce"`)
/// and `stages` the two stages it compares; `pass` is what links written before pipelines
/// said instead (one pass, compared with the input); `theme` `"light"` or `"dark"`. Values the app does not know (a link
/// from a newer build of the same format) should be treated as absent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub v: u32,
    pub src: String,
    pub lang: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Function name (without `@`).
    #[serde(rename = "fn", default, skip_serializing_if = "Option::is_none")]
    pub func: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipe: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stages: Option<[u32; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    /// Expression text as the LCM view names it, e.g. `add a b`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expr: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inst: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub lecture: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub embed: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub exercise: bool,
    /// The Types view's selected type, as its row shows it without `$` (`Box<Any>`).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
    /// What-if substitutions of the function's generic parameters: `{"T": "Int"}`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub whatif: BTreeMap<String, String>,
    /// Declared types the user marked resilient.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resilient: Vec<String>,
    /// Opaque-values SIL switched on or off (absent: as the file says).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opaque: Option<bool>,
    /// The Ownership view's selected value, by name (`%3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub val: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Snapshot {
    /// A snapshot of just a program (everything else at its default).
    pub fn new(src: impl Into<String>, lang: impl Into<String>) -> Snapshot {
        Snapshot { v: VERSION, src: src.into(), lang: lang.into(), ..Snapshot::default() }
    }
}

/// The modes a fragment can switch on besides (or without) a state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    pub lecture: bool,
    pub exercise: bool,
    pub embed: bool,
    /// The view named by `embed=VIEW`.
    pub view: Option<String>,
}

/// A parsed fragment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fragment {
    /// The state, with the fragment's flags already applied to it.
    pub state: Option<Snapshot>,
    pub flags: Flags,
}

/// Why a link cannot be opened. The messages are for the user.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LinkError {
    #[error("This link is too long to open ({} characters; the limit is {}).", grouped(*len), grouped(*max))]
    TooLong { len: usize, max: usize },
    #[error("This link contains no program.")]
    NoState,
    #[error("This link names its program twice; it was probably pasted together from two links.")]
    TwoStates,
    #[error("This link is damaged: it contains {ch:?}, which no optlab link has.")]
    BadCharacter { ch: char },
    #[error("This link is incomplete: it was probably cut off when it was copied.")]
    Truncated,
    #[error("This link is damaged: its data does not unpack.")]
    Corrupt,
    #[error("This link unpacks to more than {} characters; optlab does not open it.", grouped(*max))]
    TooLarge { max: usize },
    #[error("This link's data is not valid text.")]
    NotText,
    #[error("This link's data is not an optlab state ({0}).")]
    BadJson(String),
    #[error("This link was made by a newer optlab (format {found}; this page reads format {VERSION}).")]
    NewerVersion { found: u32 },
    #[error("This link has an unknown format version ({found}).")]
    BadVersion { found: u32 },
    #[error("This link's program is in an unknown language {0:?} (expected sil or bril).")]
    BadLang(String),
}

/// `1048576` → `1,048,576`, for messages.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl From<lz::LzError> for LinkError {
    fn from(e: lz::LzError) -> LinkError {
        match e {
            lz::LzError::Empty => LinkError::NoState,
            lz::LzError::BadChar { ch, .. } => LinkError::BadCharacter { ch },
            lz::LzError::Truncated => LinkError::Truncated,
            lz::LzError::BadCode => LinkError::Corrupt,
            lz::LzError::TooLarge => LinkError::TooLarge { max: MAX_JSON_UNITS },
        }
    }
}

/// The fragment (starting with `#`) for `s`: the state, then its flags as plain parts.
/// Fails only if the link would be longer than [`decode`] accepts (a huge program).
pub fn encode(s: &Snapshot) -> Result<String, LinkError> {
    // Decided from the length alone when it can be (a character is at most three bytes per
    // UTF-16 unit): a multi-megabyte program is not copied and serialized to be refused.
    if s.src.len() > 3 * MAX_JSON_UNITS {
        return Err(LinkError::TooLarge { max: MAX_JSON_UNITS });
    }
    let state = Snapshot { v: VERSION, lecture: false, embed: false, exercise: false, ..s.clone() };
    let json = serde_json::to_string(&state).map_err(|e| LinkError::BadJson(e.to_string()))?;
    let units = json.encode_utf16().count();
    if units > MAX_JSON_UNITS {
        return Err(LinkError::TooLarge { max: MAX_JSON_UNITS });
    }
    let mut out = format!("#{STATE_KEY}={}", lz_str::compress_to_encoded_uri_component(json.as_str()));
    for (on, name) in [(s.lecture, "lecture"), (s.embed, "embed"), (s.exercise, "exercise")] {
        if on {
            out.push('&');
            out.push_str(name);
        }
    }
    if out.len() > MAX_FRAGMENT {
        return Err(LinkError::TooLong { len: out.len(), max: MAX_FRAGMENT });
    }
    Ok(out)
}

/// `base` (any URL; its own fragment is dropped) with the fragment for `s`.
pub fn link(base: &str, s: &Snapshot) -> Result<String, LinkError> {
    let base = base.split_once('#').map_or(base, |(b, _)| b);
    Ok(format!("{base}{}", encode(s)?))
}

/// Reads a fragment (with or without its `#`). An empty fragment or one without a state is
/// fine: `state` is then `None`.
pub fn parse(fragment: &str) -> Result<Fragment, LinkError> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    let len = f.chars().count();
    if len > MAX_FRAGMENT {
        return Err(LinkError::TooLong { len, max: MAX_FRAGMENT });
    }
    let mut flags = Flags::default();
    let mut packed = None;
    for part in f.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = match part.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (part, None),
        };
        let on = !matches!(value, Some("0" | "false" | "off"));
        match key {
            STATE_KEY if packed.is_some() => return Err(LinkError::TwoStates),
            STATE_KEY => packed = Some(value.unwrap_or("")),
            "lecture" => flags.lecture = on,
            "exercise" => flags.exercise = on,
            "embed" => {
                flags.embed = true;
                flags.view = value.filter(|v| !v.is_empty()).map(str::to_string);
            }
            _ => {}
        }
    }
    let state = match packed {
        Some(p) => Some(unpack(p)?),
        None => None,
    }
    .map(|mut s| {
        s.lecture |= flags.lecture;
        s.exercise |= flags.exercise;
        s.embed |= flags.embed;
        if let Some(v) = &flags.view {
            s.view = Some(v.clone());
        }
        s
    });
    Ok(Fragment { state, flags })
}

/// The state of a link's fragment; a fragment without one is an error here.
pub fn decode(fragment: &str) -> Result<Snapshot, LinkError> {
    parse(fragment)?.state.ok_or(LinkError::NoState)
}

/// The compressed state → a checked [`Snapshot`].
fn unpack(packed: &str) -> Result<Snapshot, LinkError> {
    let units = lz::decompress_uri(&unescape(packed), MAX_JSON_UNITS)?;
    let json = String::from_utf16(&units).map_err(|_| LinkError::NotText)?;
    // The version first: a newer format's other fields may not parse here.
    #[derive(Deserialize)]
    struct Version {
        v: Option<serde_json::Value>,
    }
    let version: Version = serde_json::from_str(&json).map_err(|e| LinkError::BadJson(e.to_string()))?;
    match version.v.as_ref().and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(VERSION) => {}
        Some(v) if v > u64::from(VERSION) => {
            return Err(LinkError::NewerVersion { found: u32::try_from(v).unwrap_or(u32::MAX) })
        }
        Some(v) => return Err(LinkError::BadVersion { found: v as u32 }),
        None => return Err(LinkError::BadJson("no format version".into())),
    }
    let s: Snapshot = serde_json::from_str(&json).map_err(|e| LinkError::BadJson(e.to_string()))?;
    if s.lang != "sil" && s.lang != "bril" {
        return Err(LinkError::BadLang(s.lang));
    }
    Ok(s)
}

/// Undoes the percent-escapes some chat and mail programs put on `$`, `+` and `-`.
fn unescape(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('%') {
        return s.into();
    }
    let mut out = s.to_string();
    for (esc, ch) in [("%24", "$"), ("%2B", "+"), ("%2b", "+"), ("%2D", "-"), ("%2d", "-")] {
        out = out.replace(esc, ch);
    }
    out.into()
}

// Native only: proptest and the reference codec run natively; tests/sharing.rs covers wasm.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
