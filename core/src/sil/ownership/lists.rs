//! Many short lists (a value's uses, a block's predecessors) kept in two flat tables.
//!
//! Why: one `Vec` per value or block is one allocation each — half a million at 10^5
//! blocks — and allocating, walking and freeing them dominated the ownership analysis on
//! large functions, growing faster than the function (issue 17). Here every list is a slice
//! of one table, found through a table of start offsets (compressed sparse rows).

use std::ops::Index;

/// `n` lists of `T`, list `k` being `items[starts[k]..starts[k + 1]]`.
#[derive(Clone, Debug)]
pub(crate) struct Lists<T> {
    starts: Vec<u32>,
    items: Vec<T>,
}

impl<T> Default for Lists<T> {
    fn default() -> Self {
        Lists { starts: vec![0], items: Vec::new() }
    }
}

impl<T: Copy> Lists<T> {
    /// `n` lists from `(list, item)` pairs: each list holds its items in the order of
    /// `pairs` (a stable counting sort). Pairs naming a list `>= n` are left out.
    pub(crate) fn from_pairs(n: usize, pairs: &[(u32, T)]) -> Lists<T> {
        let mut starts = vec![0u32; n + 1];
        for &(k, _) in pairs {
            if (k as usize) < n {
                starts[k as usize + 1] += 1;
            }
        }
        for k in 0..n {
            starts[k + 1] += starts[k];
        }
        let Some(&(_, first)) = pairs.first() else { return Lists { starts, items: Vec::new() } };
        let mut items = vec![first; starts[n] as usize];
        let mut next: Vec<u32> = starts[..n].to_vec();
        for &(k, x) in pairs {
            if let Some(at) = next.get_mut(k as usize) {
                items[*at as usize] = x;
                *at += 1;
            }
        }
        Lists { starts, items }
    }

    /// Reverses each list in place.
    pub(crate) fn reverse_each(&mut self) {
        for w in self.starts.windows(2) {
            self.items[w[0] as usize..w[1] as usize].reverse();
        }
    }
}

impl<T> Lists<T> {
    /// List `k`; `None` past the last list.
    pub(crate) fn get(&self, k: usize) -> Option<&[T]> {
        let (&a, &b) = (self.starts.get(k)?, self.starts.get(k + 1)?);
        Some(&self.items[a as usize..b as usize])
    }

    /// List `k`, empty past the last list.
    pub(crate) fn of(&self, k: usize) -> &[T] {
        self.get(k).unwrap_or(&[])
    }
}

/// List `k`, empty past the last list (as a table of `Vec`s read with `get` would be).
impl<T> Index<usize> for Lists<T> {
    type Output = [T];
    fn index(&self, k: usize) -> &[T] {
        self.get(k).unwrap_or(&[])
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
    }
}
