//! Which views stay on the page after the user leaves them, so that coming back is a matter of
//! showing them again rather than building them again.
//!
//! Building a view of a 1,000-block function costs about half a second: Yew renders it, the
//! page parses its drawings (10,000 SVG elements or more) and computes their style and layout.
//! A view that was left keeps its elements in the page under `content-visibility: hidden`,
//! which keeps their computed style and layout too: showing it again costs tens of ms
//! (measured in headless Chromium; taking the elements out of the page or `display: none`
//! throw that state away and cost as much as building them; `visibility: hidden` costs
//! 160–430 ms to show again). One price, measured: while such an element is laid out,
//! Chromium's `setRangeText` on the editor takes seconds, so the editor's long-paste path takes
//! the kept views out of the layout for that call (`[data-pasting]` in static/style.css).
//!
//! The page has a fixed number of slots, each holding one view; a slot never moves in the page
//! (moving an element throws its state away as taking it out does). A view left is frozen with
//! the state it last showed, so it does no work while hidden (typing does not re-render it).
//! Any views can be kept together: no two views give an element the same id (the two
//! dominator views, which share one component, prefix theirs with their tab's slug).

use crate::state::Tab;

/// One view in a slot: its tab, what it was last shown with, and a generation (a new one
/// builds the view afresh instead of updating it: see [`Slots::show`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Slot<T> {
    pub tab: Tab,
    pub frozen: T,
    pub generation: u64,
    used: u64,
}

/// The slots; `T` is what a view is rendered from (the state and the dispatcher in the app).
#[derive(Debug)]
pub struct Slots<T> {
    slots: Vec<Option<Slot<T>>>,
    clock: u64,
}

impl<T> Slots<T> {
    /// `n` slots: the view shown and `n - 1` kept views.
    pub fn new(n: usize) -> Slots<T> {
        Slots { slots: (0..n.max(1)).map(|_| None).collect(), clock: 0 }
    }

    /// Shows `tab` with `live` and returns its slot. A tab already in a slot is shown there; its
    /// view is updated unless `same(frozen, live)` says it shows another program than the one
    /// it was frozen with, in which case it is built afresh (a new generation), so it never
    /// shows a drawing of an older program while the new one is laid out. A tab not in a slot
    /// takes an empty one, else the least recently shown.
    pub fn show(&mut self, tab: Tab, live: T, same: impl Fn(&T, &T) -> bool) -> usize {
        self.clock += 1;
        let clock = self.clock;
        if let Some(i) = self.position(tab) {
            let slot = self.slots[i].as_mut().expect("a slot with the tab");
            if slot.used + 1 != clock && !same(&slot.frozen, &live) {
                slot.generation += 1;
            }
            slot.frozen = live;
            slot.used = clock;
            return i;
        }
        let i = self
            .slots
            .iter()
            .position(Option::is_none)
            .unwrap_or_else(|| {
                (0..self.slots.len()).min_by_key(|&i| self.slots[i].as_ref().map_or(0, |s| s.used)).unwrap_or(0)
            });
        let generation = self.slots[i].as_ref().map_or(0, |s| s.generation + 1);
        self.slots[i] = Some(Slot { tab, frozen: live, generation, used: clock });
        i
    }

    /// Builds `tab`'s view with `live` ahead of time, hidden, so that its first showing finds
    /// it built (see `views::ViewPane`). Never at the cost of a current view (one the user left
    /// or one built ahead): it takes an empty slot, else the least recently shown slot (not
    /// the one shown) whose view `fresh` says is of an older program; none if there is no
    /// such slot or `tab` already has a current view. A view built ahead counts as never
    /// shown, so it is the first to go when the user opens another.
    pub fn prebuild(&mut self, tab: Tab, live: T, fresh: impl Fn(&T) -> bool) -> Option<usize> {
        if let Some(i) = self.position(tab) {
            let slot = self.slots[i].as_mut()?;
            if fresh(&slot.frozen) {
                return None;
            }
            // Its own view of an older program: built afresh in place.
            slot.generation += 1;
            slot.frozen = live;
            slot.used = 0;
            return Some(i);
        }
        let newest = self.slots.iter().flatten().map(|s| s.used).max().unwrap_or(0);
        let i = self.slots.iter().position(Option::is_none).or_else(|| {
            (0..self.slots.len())
                .filter(|&i| {
                    self.slots[i].as_ref().is_some_and(|s| (s.used != newest || newest == 0) && !fresh(&s.frozen))
                })
                .min_by_key(|&i| self.slots[i].as_ref().map_or(0, |s| s.used))
        })?;
        let generation = self.slots[i].as_ref().map_or(0, |s| s.generation + 1);
        self.slots[i] = Some(Slot { tab, frozen: live, generation, used: 0 });
        Some(i)
    }

    /// Whether `tab` has a view in a slot that `fresh` says is current.
    pub fn has(&self, tab: Tab, fresh: impl Fn(&T) -> bool) -> bool {
        self.position(tab).and_then(|i| self.slots[i].as_ref()).is_some_and(|s| fresh(&s.frozen))
    }

    fn position(&self, tab: Tab) -> Option<usize> {
        self.slots.iter().position(|s| s.as_ref().is_some_and(|s| s.tab == tab))
    }

    /// The slots in page order.
    pub fn iter(&self) -> impl Iterator<Item = Option<&Slot<T>>> {
        self.slots.iter().map(Option::as_ref)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tabs(s: &Slots<u32>) -> Vec<Option<&'static str>> {
        s.iter().map(|x| x.map(|x| x.tab.slug())).collect()
    }

    const SAME: fn(&u32, &u32) -> bool = |a, b| a == b;

    #[test]
    fn a_view_left_keeps_its_slot_and_its_frozen_state() {
        let mut s = Slots::new(3);
        assert_eq!(s.show(Tab::CFG, 1, SAME), 0);
        assert_eq!(s.show(Tab::DOM, 1, SAME), 1);
        assert_eq!(s.show(Tab::pass("dce"), 1, SAME), 2);
        // Back to the CFG: the same slot, the same generation (updated, not rebuilt).
        assert_eq!(s.show(Tab::CFG, 1, SAME), 0);
        assert_eq!(tabs(&s), [Some("cfg"), Some("dom"), Some("dce")]);
        assert!(s.iter().all(|x| x.unwrap().generation == 0));
        // While the CFG is shown, the program changes; the hidden views keep what they showed.
        s.show(Tab::CFG, 2, SAME);
        assert_eq!(s.iter().map(|x| x.unwrap().frozen).collect::<Vec<_>>(), [2, 1, 1]);
    }

    #[test]
    fn a_view_frozen_with_another_program_is_built_afresh_when_shown() {
        let mut s = Slots::new(2);
        s.show(Tab::CFG, 1, SAME);
        s.show(Tab::DOM, 1, SAME);
        s.show(Tab::CFG, 1, SAME);
        s.show(Tab::CFG, 2, SAME); // an edit while the CFG is shown: updated in place
        assert_eq!(s.iter().next().unwrap().unwrap().generation, 0);
        let i = s.show(Tab::DOM, 2, SAME);
        assert_eq!(s.iter().nth(i).unwrap().unwrap().generation, 1);
        // The same program again: updated, not rebuilt.
        s.show(Tab::CFG, 2, SAME);
        s.show(Tab::DOM, 2, SAME);
        assert_eq!(s.iter().nth(i).unwrap().unwrap().generation, 1);
    }

    #[test]
    fn a_new_view_takes_an_empty_slot_else_the_least_recently_shown() {
        let mut s = Slots::new(3);
        s.show(Tab::CFG, 0, SAME);
        s.show(Tab::DOM, 0, SAME);
        // Post-dominators are kept beside Dominators (their ids differ).
        assert_eq!(s.show(Tab::PDOM, 0, SAME), 2);
        assert_eq!(tabs(&s), [Some("cfg"), Some("dom"), Some("pdom")]);
        // Back and forth between the two trees: both stay, neither is rebuilt.
        assert_eq!(s.show(Tab::DOM, 0, SAME), 1);
        assert_eq!(s.show(Tab::PDOM, 0, SAME), 2);
        assert!(s.iter().all(|x| x.unwrap().generation == 0));
        // Control dependence replaces the least recently shown: the CFG.
        assert_eq!(s.show(Tab::CDG, 0, SAME), 0);
        assert_eq!(s.iter().next().unwrap().unwrap().generation, 1, "a new view is built afresh");
        s.show(Tab::DOM, 0, SAME);
        // Ownership replaces the least recently shown, Post-dominators.
        assert_eq!(s.show(Tab::OWNERSHIP, 0, SAME), 2);
        assert_eq!(tabs(&s), [Some("cdg"), Some("dom"), Some("ownership")]);
    }

    #[test]
    fn views_built_ahead_take_free_or_stale_slots_and_never_the_shown_or_a_current_one() {
        let fresh = |v: &u32| *v == 2;
        let mut s = Slots::new(4);
        s.show(Tab::CFG, 1, SAME);
        s.show(Tab::DOM, 1, SAME);
        s.show(Tab::CFG, 1, SAME);
        // A new program (2) while the CFG is shown: the CFG is updated, Dominators is stale.
        s.show(Tab::CFG, 2, SAME);
        // Free slots first.
        assert_eq!(s.prebuild(Tab::PDOM, 2, fresh), Some(2));
        assert_eq!(s.prebuild(Tab::CDG, 2, fresh), Some(3));
        // Then the stale view: Dominators of program 1, replaced by its own new view.
        assert_eq!(s.prebuild(Tab::DOM, 2, fresh), Some(1));
        assert_eq!(s.iter().nth(1).unwrap().unwrap().generation, 1, "rebuilt for the new program");
        // Nothing left to take: the CFG is shown, the others are current.
        assert_eq!(s.prebuild(Tab::pass("dce"), 2, fresh), None);
        assert_eq!(s.prebuild(Tab::PDOM, 2, fresh), None, "already built");
        assert!(s.has(Tab::PDOM, fresh) && !s.has(Tab::pass("dce"), fresh));
        // Showing a view built ahead keeps it (same generation, nothing rebuilt).
        let g = s.iter().nth(2).unwrap().unwrap().generation;
        assert_eq!(s.show(Tab::PDOM, 2, SAME), 2);
        assert_eq!(s.iter().nth(2).unwrap().unwrap().generation, g);
        // A view opened next replaces a view built ahead and never shown (CDG's or DOM's),
        // not the CFG the user left.
        let i = s.show(Tab::pass("dce"), 2, SAME);
        assert!(i == 1 || i == 3, "slot {i}");
        assert_eq!(tabs(&s)[0], Some("cfg"));
    }

    #[test]
    fn one_slot_holds_only_the_view_shown() {
        let mut s = Slots::new(0);
        assert_eq!(s.show(Tab::CFG, 0, SAME), 0);
        assert_eq!(s.show(Tab::DOM, 0, SAME), 0);
        assert_eq!(tabs(&s), [Some("dom")]);
    }
}
