//! The view tabs, built from core's pass registry: the views of the analyses (CFG, both
//! dominator trees, control dependence, SIL types, ownership), one tab per registered pass, and the before/after
//! view. A tab is its slug (its name in links), so adding a pass to
//! `optlab_core::passes::REGISTRY` adds its tab here without an edit.

use optlab_core::passes::Pass;
#[cfg(feature = "full")]
use optlab_core::passes::{by_slug, REGISTRY};

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

/// The registered passes' tabs (slug, title), for the first-visit build, which draws every
/// tab but links no pass (naming [`optlab_core::passes::REGISTRY`] would link them all); a
/// test checks this list against the registry.
pub const PASS_TABS: [(&str, &str); 9] = [
    ("dce", "DCE"),
    ("lcm", "LCM"),
    ("copyprop", "Copy propagation"),
    ("address-lowering", "AddressLowering"),
    ("copy-elim", "Copy elimination"),
    ("ssa", "Into SSA"),
    ("out-of-ssa", "Out of SSA"),
    ("mem2reg", "Mem2Reg"),
    ("lvn", "LVN"),
];

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
        #[cfg(feature = "full")]
        let passes = REGISTRY.iter().map(|p| Tab(p.info().slug));
        #[cfg(not(feature = "full"))]
        let passes = PASS_TABS.iter().map(|(slug, _)| Tab(slug));
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
            .or_else(|| PASS_TABS.iter().find(|(slug, _)| *slug == self.0).map(|(_, title)| *title))
            .unwrap_or(self.0)
    }

    /// The pass this tab shows, if it is a pass's tab.
    #[cfg(feature = "full")]
    pub fn as_pass(self) -> Option<&'static dyn Pass> {
        by_slug(self.0)
    }

    /// The first-visit build links no pass.
    #[cfg(not(feature = "full"))]
    pub fn as_pass(self) -> Option<&'static dyn Pass> {
        None
    }
}

impl Default for Tab {
    fn default() -> Tab {
        Tab::CFG
    }
}

#[cfg(all(test, feature = "full"))]
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
        let registered: Vec<(&str, &str)> = REGISTRY.iter().map(|p| (p.info().slug, p.info().title)).collect();
        assert_eq!(registered, PASS_TABS, "the first-visit build's tabs are the registry's");
        assert_eq!(Tab::from_slug("pdom").map(Tab::title), Some("Post-dominators"));
        assert_eq!(Tab::from_slug("nope"), None);
        let mut slugs: Vec<&str> = all.iter().map(|t| t.slug()).collect();
        slugs.sort_unstable();
        slugs.dedup();
        assert_eq!(slugs.len(), all.len(), "slugs are unique");
    }
}
