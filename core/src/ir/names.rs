//! Names for the values a pass adds, never one the function already has.

use super::{Function, Name};
use std::collections::HashSet;

/// SIL value names: the next number after the largest numeric name (`%9` after `%8`), so the
/// result reads like `sil-opt` output. Every name that reads as a number is at most that
/// largest one, so the names from `next` on are free and no set of the function's names is
/// needed — except at the very end of the range, where the taken names are collected.
pub struct NumberedNames {
    next: u64,
    taken: Option<HashSet<Name>>,
}

impl NumberedNames {
    pub fn new(f: &Function) -> NumberedNames {
        let max = f.values.values().filter_map(|v| v.name.parse::<u64>().ok()).max();
        let taken = (max == Some(u64::MAX)).then(|| f.values.values().map(|v| v.name.clone()).collect());
        NumberedNames { next: max.map_or(0, |m| m.wrapping_add(1)), taken }
    }

    pub fn fresh(&mut self) -> Name {
        loop {
            let name: Name = self.next.to_string().into();
            self.next = self.next.wrapping_add(1);
            if let Some(taken) = &mut self.taken {
                if !taken.insert(name.clone()) {
                    continue;
                }
            }
            return name;
        }
    }
}

/// Bril variable names: the one wanted (`x.1`, `x.in`), or `x.1_1`, `x.1_2`, … when the
/// function (or an earlier claim) has it.
pub struct NewNames {
    taken: HashSet<Name>,
}

impl NewNames {
    pub fn new(f: &Function) -> NewNames {
        NewNames { taken: f.values.values().map(|v| v.name.clone()).collect() }
    }

    pub fn claim(&mut self, want: &str) -> Name {
        let mut name: Name = want.into();
        let mut k = 0;
        while self.taken.contains(&name) {
            k += 1;
            name = format!("{want}_{k}").into();
        }
        self.taken.insert(name.clone());
        name
    }
}
