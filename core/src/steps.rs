//! The step list a stepped view shows: one sentence per step of a run, step 0 being the
//! state before anything happened.
//!
//! Every pass and analysis the lab steps through (Lengauer–Tarjan, DCE, LCM) builds one of
//! these from its trace in core, so the web app and the CLI only print the sentences; how many
//! steps there are and what each one says is decided here, next to the algorithm. This module
//! depends on nothing else in the crate, so `dom` and `passes` can both use it.

use serde::Serialize;

/// Step 0 is the state before anything; step `k` the state after the `k`-th event.
///
/// Never empty: [`Steps::new`] keeps at least step 0, so a view always has a sentence to show.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Steps {
    texts: Vec<String>,
}

impl Steps {
    /// The steps with these descriptions, step 0 first. An empty list becomes one empty step,
    /// so that [`Steps::len`] is at least 1 and every cursor has a step to clamp to.
    pub fn new(texts: Vec<String>) -> Steps {
        let texts = if texts.is_empty() { vec![String::new()] } else { texts };
        Steps { texts }
    }

    /// How many steps there are, step 0 included (at least 1).
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Always false (there is always step 0); here because `len` is.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The one-line description of step `k`, clamped to the last step: a cursor that outlived
    /// an edit still reads something sensible.
    pub fn describe(&self, k: usize) -> &str {
        self.texts.get(k.min(self.texts.len().saturating_sub(1))).map_or("", String::as_str)
    }

    /// The description of step `k` without what it found: the text before the first `": "`
    /// (`Step 3 (down-safety), round 2 of 3`). Exercise mode shows this, since the rest would
    /// give the answer away.
    pub fn headline(&self, k: usize) -> &str {
        headline(self.describe(k))
    }

    /// All descriptions, step 0 first.
    pub fn texts(&self) -> &[String] {
        &self.texts
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

    #[test]
    fn there_is_always_a_step_zero() {
        let s = Steps::new(Vec::new());
        assert_eq!(s.len(), 1);
        assert_eq!(s.describe(0), "");
        assert_eq!(s.headline(5), "");
    }
}
