//! The step list every stepping view shows: step 0 is the state before anything, step `k` the
//! state after the `k`-th event of a trace, each with one line of text for the step bar.
//!
//! It lives at the bottom of the crate (it depends on nothing) because both analyses
//! (Lengauer–Tarjan in `dom`) and passes produce step lists, and `dom` must not depend on
//! `passes`.

use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Steps {
    texts: Vec<String>,
}

impl Steps {
    pub fn new(texts: Vec<String>) -> Steps {
        Steps { texts }
    }

    /// At least 1: a view without events still has its "before" step.
    pub fn len(&self) -> usize {
        self.texts.len().max(1)
    }

    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The one-line description of step `k`, clamped to the last step.
    pub fn describe(&self, k: usize) -> &str {
        self.texts.get(k.min(self.texts.len().saturating_sub(1))).map_or("", String::as_str)
    }

    /// The description without what the step found (the text before the first `: `): what
    /// the step bar says in exercise mode, where the rest would give the answer away.
    pub fn headline(&self, k: usize) -> &str {
        let t = self.describe(k);
        t.split_once(": ").map_or(t, |(head, _)| head)
    }

    pub fn texts(&self) -> &[String] {
        &self.texts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamps_and_cuts_the_headline() {
        let s = Steps::new(vec!["Before: nothing".into(), "Round 1 of 2: a changed".into()]);
        assert_eq!(s.len(), 2);
        assert_eq!(s.describe(7), "Round 1 of 2: a changed");
        assert_eq!(s.headline(1), "Round 1 of 2");
        assert_eq!(Steps::default().len(), 1);
        assert_eq!(Steps::default().describe(3), "");
    }
}
