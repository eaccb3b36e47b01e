//! The view tabs, built from core's pass registry: the views of the analyses (CFG, both
//! dominator trees, control dependence, SIL types, ownership), one tab per registered pass, and the before/after
//! view. A tab is its slug (its name in links), so adding a pass to
//! `optlab_core::passes::REGISTRY` adds its tab here without an edit.

use optlab_core::passes::{by_slug, Pass, REGISTRY};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tab(&'static str);

/// The analyses' views before the passes, the before/after view after them.
const BEFORE_PASSES: [(Tab, &str); 6] = [
    (Tab::CFG, "CFG"),
    (Tab::DOM, "Dominators"),
    (Tab::PDOM, "Post-dominators"),
    (Tab::CDG, "Control dependence"),
    (Tab::TYPES, "Types"),
    (Tab::OWNERSHIP, "Ownership"),
];
const AFTER_PASSES: [(Tab, &str); 1] = [(Tab::DIFF, "Before / after")];

impl Tab {
    pub const CFG: Tab = Tab("cfg");
    pub const DOM: Tab = Tab("dom");
    pub const PDOM: Tab = Tab("pdom");
    pub const CDG: Tab = Tab("cdg");
    /// SIL type lowering: every type of the function trivial, loadable or address-only.
    pub const TYPES: Tab = Tab("types");
    /// OSSA ownership: kinds, lifetimes, borrow scopes and Swift's ownership verifier.
    pub const OWNERSHIP: Tab = Tab("ownership");
    pub const DIFF: Tab = Tab("diff");

    /// The tab of the registered pass `slug` (a pass's view names its own tab this way).
    pub const fn pass(slug: &'static str) -> Tab {
        Tab(slug)
    }

    /// Every tab in the order the page shows them.
    pub fn all() -> Vec<Tab> {
        let passes = REGISTRY.iter().map(|p| Tab(p.info().slug));
        BEFORE_PASSES.iter().map(|(t, _)| *t).chain(passes).chain(AFTER_PASSES.iter().map(|(t, _)| *t)).collect()
    }

    pub fn slug(self) -> &'static str {
        self.0
    }

    pub fn from_slug(s: &str) -> Option<Tab> {
        Tab::all().into_iter().find(|t| t.0 == s)
    }

    pub fn title(self) -> &'static str {
        BEFORE_PASSES
            .iter()
            .chain(&AFTER_PASSES)
            .find(|(t, _)| *t == self)
            .map(|(_, title)| *title)
            .or_else(|| self.as_pass().map(|p| p.info().title))
            .unwrap_or(self.0)
    }

    /// The pass this tab shows, if it is a pass's tab.
    pub fn as_pass(self) -> Option<&'static dyn Pass> {
        by_slug(self.0)
    }
}

impl Default for Tab {
    fn default() -> Tab {
        Tab::CFG
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_pass_has_a_tab_between_the_analyses_and_the_diff() {
        let all = Tab::all();
        assert_eq!(all.len(), 7 + REGISTRY.len());
        assert_eq!(all[0], Tab::CFG);
        assert_eq!(*all.last().unwrap(), Tab::DIFF);
        for p in REGISTRY {
            let t = Tab::from_slug(p.info().slug).expect("a tab per pass");
            assert_eq!(t.title(), p.info().title);
            assert!(t.as_pass().is_some());
        }
        assert_eq!(Tab::from_slug("pdom").map(Tab::title), Some("Post-dominators"));
        assert_eq!(Tab::from_slug("nope"), None);
        let mut slugs: Vec<&str> = all.iter().map(|t| t.slug()).collect();
        slugs.sort_unstable();
        slugs.dedup();
        assert_eq!(slugs.len(), all.len(), "slugs are unique");
    }
}
