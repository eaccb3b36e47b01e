//! The step list a stepped view shows: one sentence per step of a run, step 0 being the
//! state before anything happened.
//!
//! Every pass and analysis the lab steps through (Lengauer–Tarjan, DCE, LCM) builds one of
//! these from its trace in core, so the web app and the CLI only print the sentences; how many
//! steps there are and what each one says is decided here, next to the algorithm. This module
//! depends on nothing else in the crate, so `dom` and `passes` can both use it.

use serde::{Serialize, Serializer};
use std::sync::{Arc, OnceLock};

/// What makes the texts of a lazy [`Steps`].
type Maker = Box<dyn Fn() -> Vec<String> + Send + Sync>;

/// Step 0 is the state before anything; step `k` the state after the `k`-th event.
///
/// Never empty: [`Steps::new`] keeps at least step 0, so a view always has a sentence to show.
///
/// The texts may be made on first use ([`Steps::lazy`]): a pipeline runs every stage, but a
/// view, the trace or the CLI reads the steps of few of them, and on a 10^5-block function
/// writing every sentence of every stage was a fifth of the default pipeline. Whoever asks
/// gets the same texts either way. Clones share the texts (made once for all of them): a
/// pass's run and its view's copy of the steps are one list.
#[derive(Clone)]
pub struct Steps {
    inner: Arc<Inner>,
}

struct Inner {
    texts: OnceLock<Vec<String>>,
    make: Option<Maker>,
}

impl Steps {
    /// The steps with these descriptions, step 0 first. An empty list becomes one empty step,
    /// so that [`Steps::len`] is at least 1 and every cursor has a step to clamp to.
    pub fn new(texts: Vec<String>) -> Steps {
        Steps { inner: Arc::new(Inner { texts: OnceLock::from(at_least_one(texts)), make: None }) }
    }

    /// Steps whose texts `make` writes when they are first asked for, once. `make` owns what
    /// it reads — the run's trace and input, behind `Arc`s — so nothing is copied to defer it.
    pub fn lazy(make: impl Fn() -> Vec<String> + Send + Sync + 'static) -> Steps {
        Steps { inner: Arc::new(Inner { texts: OnceLock::new(), make: Some(Box::new(make)) }) }
    }

    /// Every text, made now if they were deferred.
    fn all(&self) -> &Vec<String> {
        let inner = &*self.inner;
        inner.texts.get_or_init(|| at_least_one(inner.make.as_ref().map_or_else(Vec::new, |m| m())))
    }

    /// How many steps there are, step 0 included (at least 1).
    pub fn len(&self) -> usize {
        self.all().len()
    }

    /// Always false (there is always step 0); here because `len` is.
    pub fn is_empty(&self) -> bool {
        self.all().is_empty()
    }

    /// The one-line description of step `k`, clamped to the last step: a cursor that outlived
    /// an edit still reads something sensible.
    pub fn describe(&self, k: usize) -> &str {
        let texts = self.all();
        texts.get(k.min(texts.len().saturating_sub(1))).map_or("", String::as_str)
    }

    /// The description of step `k` without what it found: the text before the first `": "`
    /// (`Step 3 (down-safety), round 2 of 3`). Exercise mode shows this, since the rest would
    /// give the answer away.
    pub fn headline(&self, k: usize) -> &str {
        headline(self.describe(k))
    }

    /// All descriptions, step 0 first.
    pub fn texts(&self) -> &[String] {
        self.all()
    }

    /// Whether the texts have been made (for the tests of laziness).
    pub fn is_made(&self) -> bool {
        self.inner.texts.get().is_some()
    }
}

fn at_least_one(texts: Vec<String>) -> Vec<String> {
    if texts.is_empty() {
        vec![String::new()]
    } else {
        texts
    }
}

impl PartialEq for Steps {
    /// Equal texts, however they were made.
    fn eq(&self, other: &Steps) -> bool {
        self.texts() == other.texts()
    }
}

impl Eq for Steps {}

impl std::fmt::Debug for Steps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.inner.texts.get() {
            Some(texts) => f.debug_struct("Steps").field("texts", texts).finish(),
            None => f.write_str("Steps { texts: <not made yet> }"),
        }
    }
}

impl Serialize for Steps {
    /// As the derived form did: `{"texts": [...]}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Steps", 1)?;
        st.serialize_field("texts", self.texts())?;
        st.end()
    }
}

/// The part of `text` before its first `": "` outside backquoted code (all of it if there is
/// none): step texts quote instructions, and `%1 = struct_extract %0 : $Int32` or
/// `y: int = add x t;` must not be cut in the middle.
pub fn headline(text: &str) -> &str {
    let mut in_code = false;
    for (i, c) in text.char_indices() {
        match c {
            '`' => in_code = !in_code,
            ':' if !in_code && text[i + 1..].starts_with(' ') => return &text[..i],
            _ => {}
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_clamps_and_headline_stops_at_the_first_colon() {
        let s = Steps::new(vec!["Before: nothing".into(), "Step 1: a: b".into(), "Done".into()]);
        assert_eq!(s.len(), 3);
        assert!(!s.is_empty());
        assert_eq!(s.describe(1), "Step 1: a: b");
        assert_eq!(s.describe(99), "Done");
        assert_eq!(s.headline(1), "Step 1");
        assert_eq!(s.headline(2), "Done");
        assert_eq!(s.texts().len(), 3);
    }

    #[test]
    fn headline_does_not_cut_quoted_code() {
        assert_eq!(
            headline("Rewrite `x` to `t` in `y: int = add x t;` (.j): copy `x = id t` reaches it"),
            "Rewrite `x` to `t` in `y: int = add x t;` (.j)"
        );
        assert_eq!(headline("Delete `%3 = struct_extract %0 : $Int32` (bb0): dead"), "Delete `%3 = struct_extract %0 : $Int32` (bb0)");
        assert_eq!(headline("no colon at all"), "no colon at all");
        assert_eq!(headline("`unclosed: code"), "`unclosed: code");
    }

    /// Lazy steps are made once, on first use (clones included), and read, compare and
    /// serialize as the same texts given at once.
    #[test]
    fn lazy_steps_equal_eager_ones_and_are_made_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let texts = || vec!["Before: nothing".to_string(), "Step 1: a: b".to_string()];
        let calls = Arc::new(AtomicUsize::new(0));
        let c = calls.clone();
        let lazy = Steps::lazy(move || {
            c.fetch_add(1, Ordering::Relaxed);
            texts()
        });
        let early_clone = lazy.clone();
        assert!(!lazy.is_made());
        assert_eq!(calls.load(Ordering::Relaxed), 0, "nothing made before it is asked for");
        let eager = Steps::new(texts());
        assert_eq!(lazy.describe(1), "Step 1: a: b");
        assert_eq!(lazy.headline(1), "Step 1");
        assert!(lazy.is_made());
        assert_eq!(lazy.len(), 2);
        assert_eq!(lazy, eager);
        assert_eq!(calls.load(Ordering::Relaxed), 1, "made once");
        assert_eq!(serde_json::to_value(&lazy).unwrap(), serde_json::json!({ "texts": ["Before: nothing", "Step 1: a: b"] }));
        assert_eq!(early_clone, eager);
        assert_eq!(calls.load(Ordering::Relaxed), 1, "a clone made before first use shares the texts");
        assert_eq!(Steps::lazy(Vec::new).len(), 1, "an empty list is one empty step");
    }

    #[test]
    fn there_is_always_a_step_zero() {
        let s = Steps::new(Vec::new());
        assert_eq!(s.len(), 1);
        assert_eq!(s.describe(0), "");
        assert_eq!(s.headline(5), "");
    }
}
