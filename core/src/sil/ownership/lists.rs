//! Many short lists (a value's uses, a block's predecessors) kept in two flat tables.
//!
//! Why: one `Vec` per value or block is one allocation each — half a million at 10^5
//! blocks — and allocating, walking and freeing them dominated the ownership analysis on
//! large functions, growing faster than the function (issue 17). Here every list is a slice
//! of one table, found through a table of start offsets (compressed sparse rows).

use crate::entity::Rows;
use std::ops::Index;

/// `n` lists of `T` in compressed rows ([`Rows`] keyed by index).
#[derive(Clone, Debug)]
pub(crate) struct Lists<T>(Rows<usize, T>);

impl<T: Copy> Default for Lists<T> {
    fn default() -> Self {
        Lists(Rows::with_capacity(0, 0))
    }
}

impl<T: Copy> Lists<T> {
    /// `n` lists from `(list, item)` pairs: each list holds its items in the order of
    /// `pairs` (a stable counting sort). Pairs naming a list `>= n` are left out.
    pub(crate) fn from_pairs(n: usize, pairs: &[(u32, T)]) -> Lists<T> {
        Lists(Rows::grouped(n, pairs.iter().filter(|&&(k, _)| (k as usize) < n).map(|&(k, x)| (k as usize, x))))
    }

    /// Reverses each list in place.
    pub(crate) fn reverse_each(&mut self) {
        self.0.reverse_each();
    }

    /// List `k`; `None` past the last list.
    pub(crate) fn get(&self, k: usize) -> Option<&[T]> {
        self.0.get(k)
    }

    /// List `k`, empty past the last list.
    pub(crate) fn of(&self, k: usize) -> &[T] {
        self.0.of(k)
    }
}

/// [`Lists`] that a few lists of are edited after they are built: an edited list is copied
/// out of the flat table into a `Vec` of its own on its first edit (copy on write).
///
/// Why: copy elimination keeps each value's uses current while it removes copies, and a
/// `Vec` per value for that — two allocations per value at 10^5 blocks — cost more than the
/// few thousand lists its removals actually change.
#[derive(Clone, Debug)]
pub(crate) struct EditLists<T> {
    base: Lists<T>,
    /// Edited lists by index, replacing theirs in `base` (foldhash: only `get` and `entry`).
    edited: foldhash::HashMap<u32, Vec<T>>,
}

impl<T: Copy> EditLists<T> {
    pub(crate) fn new(base: Lists<T>) -> EditLists<T> {
        EditLists { base, edited: Default::default() }
    }

    /// List `k` as it is now, empty past the last list.
    pub(crate) fn of(&self, k: usize) -> &[T] {
        if !self.edited.is_empty() {
            if let Some(v) = u32::try_from(k).ok().and_then(|k| self.edited.get(&k)) {
                return v;
            }
        }
        self.base.of(k)
    }

    /// List `k` to edit (`None` past the last list, which has nothing to edit).
    pub(crate) fn edit(&mut self, k: usize) -> Option<&mut Vec<T>> {
        let base = self.base.get(k)?;
        let key = u32::try_from(k).ok()?;
        Some(self.edited.entry(key).or_insert_with(|| base.to_vec()))
    }
}

/// List `k`, empty past the last list (as a table of `Vec`s read with `get` would be).
impl<T: Copy> Index<usize> for Lists<T> {
    type Output = [T];
    fn index(&self, k: usize) -> &[T] {
        self.0.of(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against the tables they replace: a `Vec` per list, pushed to in order.
        #[test]
        fn lists_hold_what_one_vec_per_list_would(n in 0usize..40, pairs in proptest::collection::vec((0u32..48, any::<u16>()), 0..300), rev in any::<bool>()) {
            let mut oracle: Vec<Vec<u16>> = vec![Vec::new(); n];
            for &(k, x) in &pairs {
                if let Some(l) = oracle.get_mut(k as usize) {
                    l.push(x);
                }
            }
            let mut lists = Lists::from_pairs(n, &pairs);
            if rev {
                lists.reverse_each();
                oracle.iter_mut().for_each(|l| l.reverse());
            }
            for k in 0..n + 5 {
                let want = oracle.get(k).map(|l| &l[..]);
                prop_assert_eq!(lists.get(k), want);
                prop_assert_eq!(&lists[k], want.unwrap_or(&[]));
            }
        }

        /// Edited lists against a `Vec` per list edited the same way: a list not edited reads
        /// the flat table, an edited one its copy, and an edit past the last list is refused.
        #[test]
        fn edited_lists_hold_what_edited_vecs_would(
            n in 0usize..20,
            pairs in proptest::collection::vec((0u32..24, any::<u8>()), 0..120),
            edits in proptest::collection::vec((0usize..24, any::<u8>(), 0u8..3), 0..40),
        ) {
            let mut oracle: Vec<Vec<u8>> = vec![Vec::new(); n];
            for &(k, x) in &pairs {
                if let Some(l) = oracle.get_mut(k as usize) {
                    l.push(x);
                }
            }
            let mut lists = EditLists::new(Lists::from_pairs(n, &pairs));
            for &(k, x, how) in &edits {
                let (got, want) = (lists.edit(k), oracle.get_mut(k));
                prop_assert_eq!(got.is_some(), want.is_some());
                let (Some(got), Some(want)) = (got, want) else { continue };
                match how {
                    0 => {
                        got.push(x);
                        want.push(x);
                    }
                    1 => {
                        got.retain(|&y| y != x);
                        want.retain(|&y| y != x);
                    }
                    _ => {
                        got.insert(0, x);
                        want.insert(0, x);
                    }
                }
                for j in 0..n + 5 {
                    prop_assert_eq!(lists.of(j), oracle.get(j).map_or(&[][..], |l| &l[..]));
                }
            }
        }
    }
}
