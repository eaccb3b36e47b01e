//! Dense `u32` entity ids and the tables keyed by them.
//!
//! After Cranelift's `ir/entities.rs`: every kind of thing (block, instruction, value) gets its
//! own newtype so a `BlockId` can never index an instruction table, and per-id data lives in a
//! dense vector instead of a hash map. `Display` of an id is its text form (`bb3`, `i7`, `%5`),
//! which is also how the renumbering printer and the traces spell them.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A dense index usable as a key of [`EntityVec`] and [`EntitySet`].
pub trait EntityRef: Copy + Eq + Ord + std::hash::Hash + fmt::Debug {
    fn new(index: usize) -> Self;
    fn index(self) -> usize;
}

/// Declares a `u32` id newtype with a text prefix for `Display`.
#[macro_export]
macro_rules! entity_id {
    ($(#[$meta:meta])* $name:ident, $prefix:expr) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $crate::entity::EntityRef for $name {
            #[inline]
            fn new(index: usize) -> Self {
                $name(u32::try_from(index).expect("entity index overflows u32"))
            }
            #[inline]
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(self, f)
            }
        }
    };
}

/// A vector indexed by an entity id; ids are handed out by `push`.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EntityVec<K, V> {
    items: Vec<V>,
    #[serde(skip)]
    _key: PhantomData<K>,
}

impl<K: EntityRef, V> EntityVec<K, V> {
    pub fn new() -> Self {
        Self { items: Vec::new(), _key: PhantomData }
    }
    pub fn with_capacity(n: usize) -> Self {
        Self { items: Vec::with_capacity(n), _key: PhantomData }
    }
    /// A table with `n` copies of `value`, for per-id analysis results.
    pub fn filled(n: usize, value: V) -> Self
    where
        V: Clone,
    {
        Self { items: vec![value; n], _key: PhantomData }
    }
    pub fn push(&mut self, value: V) -> K {
        let k = K::new(self.items.len());
        self.items.push(value);
        k
    }
    /// The id the next `push` will return.
    pub fn next_key(&self) -> K {
        K::new(self.items.len())
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn get(&self, k: K) -> Option<&V> {
        self.items.get(k.index())
    }
    pub fn get_mut(&mut self, k: K) -> Option<&mut V> {
        self.items.get_mut(k.index())
    }
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator + use<K, V> {
        (0..self.items.len()).map(K::new)
    }
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> + ExactSizeIterator {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (K, &mut V)> {
        self.items.iter_mut().enumerate().map(|(i, v)| (K::new(i), v))
    }
    pub fn values(&self) -> std::slice::Iter<'_, V> {
        self.items.iter()
    }
    pub fn values_mut(&mut self) -> std::slice::IterMut<'_, V> {
        self.items.iter_mut()
    }
    pub fn as_slice(&self) -> &[V] {
        &self.items
    }
    /// The values in id order, moved out.
    pub fn into_values(self) -> std::vec::IntoIter<V> {
        self.items.into_iter()
    }
    /// Frees the room a push past the capacity left (an arena of 10^5 instructions cloned,
    /// then given one more, holds room for twice as many).
    pub fn shrink_to_fit(&mut self) {
        self.items.shrink_to_fit();
    }
}

impl<K: EntityRef, V> Default for EntityVec<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V: fmt::Debug> fmt::Debug for EntityVec<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: EntityRef, V> Index<K> for EntityVec<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, k: K) -> &V {
        &self.items[k.index()]
    }
}

impl<K: EntityRef, V> IndexMut<K> for EntityVec<K, V> {
    #[inline]
    fn index_mut(&mut self, k: K) -> &mut V {
        &mut self.items[k.index()]
    }
}

impl<K: EntityRef, V> FromIterator<V> for EntityVec<K, V> {
    fn from_iter<I: IntoIterator<Item = V>>(iter: I) -> Self {
        Self { items: iter.into_iter().collect(), _key: PhantomData }
    }
}

/// A fixed-capacity bit set of entity ids; the per-block bit vectors of the dataflow
/// framework and of LCM are these.
///
/// Invariant: `words.len() == len.div_ceil(64)` and the bits of the last word past `len` are
/// zero, so two sets of one capacity are equal exactly when their words are.
#[derive(Eq, Serialize, Deserialize)]
pub struct EntitySet<K> {
    words: Vec<u64>,
    len: usize,
    #[serde(skip)]
    _key: PhantomData<K>,
}

/// By hand rather than derived: the derived `==` compares the words with a call to `memcmp`,
/// which for the few words of a typical set (LCM's: 4–5) costs more than the comparison; an
/// or of the words' differences is branch-free and inlined (the generic fixpoint engine
/// compares every visited block's new value with its old one).
impl<K> PartialEq for EntitySet<K> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.words.len() == other.words.len() && differ(&self.words, &other.words) == 0
    }
}

/// Consistent with `==` (the same fields, hashed as the derived impl hashed them).
impl<K> std::hash::Hash for EntitySet<K> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.words.hash(state);
        self.len.hash(state);
    }
}

/// The or of `a[i] ^ b[i]` over equal-length word slices: zero exactly when they are equal.
/// A straight loop over two slices of one length, which the compiler vectorises.
#[inline]
fn differ(a: &[u64], b: &[u64]) -> u64 {
    let b = &b[..a.len()];
    a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x ^ y))
}

/// By hand for `clone_from`, which reuses the words already allocated: the dataflow engine
/// and LCM overwrite scratch sets on every visit, and the derived `clone_from` allocates.
impl<K> Clone for EntitySet<K> {
    fn clone(&self) -> Self {
        Self { words: self.words.clone(), len: self.len, _key: PhantomData }
    }
    fn clone_from(&mut self, source: &Self) {
        self.words.clone_from(&source.words);
        self.len = source.len;
    }
}

impl<K: EntityRef> EntitySet<K> {
    /// An empty set that can hold ids `0..len`.
    pub fn new_empty(len: usize) -> Self {
        Self { words: vec![0; len.div_ceil(64)], len, _key: PhantomData }
    }
    /// The full set `0..len`.
    pub fn new_full(len: usize) -> Self {
        let mut s = Self::new_empty(len);
        s.insert_all();
        s
    }
    pub fn capacity(&self) -> usize {
        self.len
    }
    pub fn contains(&self, k: K) -> bool {
        let i = k.index();
        i < self.len && self.words[i / 64] & (1 << (i % 64)) != 0
    }
    /// Inserts `k`; returns whether the set changed.
    pub fn insert(&mut self, k: K) -> bool {
        let i = k.index();
        assert!(i < self.len, "entity {i} outside set of capacity {}", self.len);
        let w = &mut self.words[i / 64];
        let old = *w;
        *w |= 1 << (i % 64);
        old != *w
    }
    /// Removes `k`; returns whether the set changed.
    pub fn remove(&mut self, k: K) -> bool {
        let i = k.index();
        if i >= self.len {
            return false;
        }
        let w = &mut self.words[i / 64];
        let old = *w;
        *w &= !(1 << (i % 64));
        old != *w
    }
    /// Flips `k` (a recorded diff is applied this way).
    pub fn toggle(&mut self, k: K) {
        let i = k.index();
        assert!(i < self.len, "entity {i} outside set of capacity {}", self.len);
        self.words[i / 64] ^= 1 << (i % 64);
    }
    /// The ids in exactly one of `self` and `other` (the bits that differ), in increasing
    /// order, without building a set.
    pub fn symmetric_difference<'a>(&'a self, other: &'a Self) -> impl Iterator<Item = K> + 'a {
        assert_eq!(self.len, other.len, "bit sets of different capacity");
        self.words.iter().zip(&other.words).enumerate().flat_map(|(wi, (&a, &b))| {
            let mut bits = a ^ b;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let tz = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(K::new(wi * 64 + tz))
            })
        })
    }
    pub fn set(&mut self, k: K, value: bool) -> bool {
        if value {
            self.insert(k)
        } else {
            self.remove(k)
        }
    }
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }
    pub fn insert_all(&mut self) {
        self.words.iter_mut().for_each(|w| *w = !0);
        self.trim();
    }
    fn trim(&mut self) {
        let extra = self.words.len() * 64 - self.len;
        if extra > 0 {
            if let Some(last) = self.words.last_mut() {
                *last &= !0u64 >> extra;
            }
        }
    }
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }
    /// `self ∪= other`; returns whether `self` changed.
    pub fn union_with(&mut self, other: &Self) -> bool {
        self.zip_with(other, |a, b| a | b)
    }
    /// `self ∩= other`; returns whether `self` changed.
    pub fn intersect_with(&mut self, other: &Self) -> bool {
        self.zip_with(other, |a, b| a & b)
    }
    /// `self -= other`; returns whether `self` changed.
    pub fn subtract(&mut self, other: &Self) -> bool {
        self.zip_with(other, |a, b| a & !b)
    }
    /// `self[i] = f(self[i], other[i])` for every word; returns whether a word changed.
    ///
    /// Why this shape: the change is the or of the words' differences (no branch per word)
    /// and both slices are cut to one length before the loop, so it has no bounds check and
    /// the compiler vectorises it; `f` must map words of zeros to zero (and, or, and-not do),
    /// so the bits past the capacity stay clear.
    #[inline]
    fn zip_with(&mut self, other: &Self, f: impl Fn(u64, u64) -> u64) -> bool {
        assert_eq!(self.len, other.len, "bit sets of different capacity");
        let a = &mut self.words[..];
        let b = &other.words[..a.len()];
        let mut diff = 0;
        for (x, &y) in a.iter_mut().zip(b) {
            let n = f(*x, y);
            diff |= n ^ *x;
            *x = n;
        }
        diff != 0
    }
    /// The words, `capacity().div_ceil(64)` of them, bit `i % 64` of word `i / 64` standing
    /// for id `i` (the bits past the capacity are zero): for code that works on rows of
    /// words (LCM's fixpoints) and reads sets as operands.
    pub fn words(&self) -> &[u64] {
        &self.words
    }
    /// The set of capacity `len` whose words are `words` (`len.div_ceil(64)` of them; the
    /// bits past `len` are cleared).
    pub fn from_words(len: usize, words: &[u64]) -> Self {
        assert_eq!(words.len(), len.div_ceil(64), "{} words for a set of capacity {len}", words.len());
        let mut s = Self { words: words.to_vec(), len, _key: PhantomData };
        s.trim();
        s
    }
    /// The set of capacity `len` of the bits that differ between two rows of words (`None`
    /// when none does): a recorded change, built from the rows' xor.
    pub fn from_xor(len: usize, old: &[u64], new: &[u64]) -> Option<Self> {
        assert!(old.len() == new.len() && old.len() == len.div_ceil(64), "rows of the wrong width");
        if differ(old, new) == 0 {
            return None;
        }
        let words = old.iter().zip(new).map(|(a, b)| a ^ b).collect();
        let mut s = Self { words, len, _key: PhantomData };
        s.trim();
        Some(s)
    }
    /// The set of the ids in exactly one of `self` and `other` (`None` when they are equal),
    /// built from the words' xor: a recorded change is this, and computing it bit by bit
    /// (an iterator of ids, each inserted) cost more than the fixpoint's own work.
    pub fn xor_of(&self, other: &Self) -> Option<Self> {
        assert_eq!(self.len, other.len, "bit sets of different capacity");
        Self::from_xor(self.len, &self.words, &other.words)
    }
    /// Complement within `0..capacity`.
    pub fn negate(&mut self) {
        self.words.iter_mut().for_each(|w| *w = !*w);
        self.trim();
    }
    pub fn iter(&self) -> impl Iterator<Item = K> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut bits = w;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let tz = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(K::new(wi * 64 + tz))
            })
        })
    }
}

impl<K: EntityRef> fmt::Debug for EntitySet<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Items grouped by key into compressed rows, each row in the order the items came (a
/// counting sort): row `k` of `n` is `items[start[k]..start[k + 1]]`. One flat list instead
/// of a `Vec` per key, for the per-block and per-value tables of 10^5-block functions.
/// `pairs` is walked twice; keys must be below `n`.
pub fn group_rows<T: Copy>(n: usize, pairs: impl Iterator<Item = (usize, T)> + Clone) -> (Vec<u32>, Vec<T>) {
    let mut start = vec![0u32; n + 1];
    for (k, _) in pairs.clone() {
        start[k + 1] += 1;
    }
    for k in 0..n {
        start[k + 1] += start[k];
    }
    let Some((_, first)) = pairs.clone().next() else { return (start, Vec::new()) };
    let mut items = vec![first; start[n] as usize];
    let mut fill = start.clone();
    for (k, t) in pairs {
        items[fill[k] as usize] = t;
        fill[k] += 1;
    }
    (start, items)
}

/// A list per entity in compressed rows: row `k` is `items[start[k]..start[k + 1]]`. What a
/// `EntityVec<K, Vec<T>>` holds, in two allocations instead of one per key: the graphs of
/// 10^5-block functions are walked in every round of every fixpoint, and a `Vec` per block
/// is a pointer to follow (and a cache line to miss) per visit.
#[derive(Clone, PartialEq, Eq)]
pub struct Rows<K, T> {
    start: Vec<u32>,
    items: Vec<T>,
    _key: PhantomData<K>,
}

impl<K: EntityRef, T: Copy> Rows<K, T> {
    /// Row `k` is the `k`-th list of `rows`.
    pub fn from_rows<R: IntoIterator<Item = T>>(rows: impl IntoIterator<Item = R>) -> Self {
        let rows = rows.into_iter();
        let mut out = Rows::with_capacity(rows.size_hint().0, 0);
        for row in rows {
            out.extend_row(row);
            out.end_row();
        }
        out
    }

    /// No rows yet, with room for `rows` rows of `items` items in all: to be filled row by
    /// row with [`extend_row`](Self::extend_row) and [`end_row`](Self::end_row).
    pub fn with_capacity(rows: usize, items: usize) -> Self {
        let mut start = Vec::with_capacity(rows + 1);
        start.push(0);
        Rows { start, items: Vec::with_capacity(items), _key: PhantomData }
    }

    /// Appends `items` to the row being filled (the row of key [`len`](Self::len)).
    pub fn extend_row(&mut self, items: impl IntoIterator<Item = T>) {
        self.items.extend(items);
    }

    /// Ends the row being filled; the next items go to the next key.
    pub fn end_row(&mut self) {
        self.start.push(u32::try_from(self.items.len()).expect("row items overflow u32"));
    }

    /// `n` rows of the items of `pairs` grouped by key, in arrival order (see [`group_rows`]).
    pub fn grouped(n: usize, pairs: impl Iterator<Item = (K, T)> + Clone) -> Self {
        let (start, items) = group_rows(n, pairs.map(|(k, t)| (k.index(), t)));
        Rows { start, items, _key: PhantomData }
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `k`, empty past the last row (as a table of `Vec`s read with `get` would be).
    #[inline]
    pub fn of(&self, k: K) -> &[T] {
        self.get(k).unwrap_or(&[])
    }

    /// Row `k`, or `None` past the last row.
    #[inline]
    pub fn get(&self, k: K) -> Option<&[T]> {
        let (lo, hi) = (*self.start.get(k.index())?, *self.start.get(k.index() + 1)?);
        Some(&self.items[lo as usize..hi as usize])
    }

    /// Every row in key order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &[T]> + '_ {
        self.start.windows(2).map(|w| &self.items[w[0] as usize..w[1] as usize])
    }

    /// All rows' items, row after row.
    pub fn flat(&self) -> &[T] {
        &self.items
    }

    /// Where row `k` starts in [`flat`](Self::flat), or `None` past the last row: for tables
    /// parallel to the items (one entry per item, in the same order).
    pub fn offset(&self, k: K) -> Option<usize> {
        (k.index() < self.len()).then(|| self.start[k.index()] as usize)
    }

    /// Reverses every row in place.
    pub fn reverse_each(&mut self) {
        for w in self.start.windows(2) {
            self.items[w[0] as usize..w[1] as usize].reverse();
        }
    }
}

/// Plain indices as keys, for rows keyed by a position rather than an entity (a value's
/// uses by value index, a dependence's edges by its place in a flat list).
impl EntityRef for usize {
    fn new(index: usize) -> Self {
        index
    }
    fn index(self) -> usize {
        self
    }
}

impl<K: EntityRef, T> Index<K> for Rows<K, T> {
    type Output = [T];
    #[inline]
    fn index(&self, k: K) -> &[T] {
        &self.items[self.start[k.index()] as usize..self.start[k.index() + 1] as usize]
    }
}

impl<K: EntityRef, T: fmt::Debug> fmt::Debug for Rows<K, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.start.windows(2).enumerate().map(|(k, w)| (K::new(k), &self.items[w[0] as usize..w[1] as usize]))).finish()
    }
}

#[cfg(test)]
mod tests {
    /// Rows against a `Vec` per key: every item once, in its row, rows in arrival order.
    #[test]
    fn grouped_rows_are_a_vec_per_key() {
        let pairs = [(2, 'a'), (0, 'b'), (2, 'c'), (3, 'd'), (0, 'e')];
        let (start, items) = group_rows(5, pairs.iter().copied());
        let mut want: Vec<Vec<char>> = vec![Vec::new(); 5];
        for (k, t) in pairs {
            want[k].push(t);
        }
        let got: Vec<Vec<char>> = (0..5).map(|k| items[start[k] as usize..start[k + 1] as usize].to_vec()).collect();
        assert_eq!(got, want);
        assert_eq!(group_rows::<char>(3, std::iter::empty()), (vec![0; 4], Vec::new()));
    }

    use super::*;
    crate::entity_id!(Thing, "t");

    /// `Rows` against a `Vec` per key, built both ways.
    #[test]
    fn rows_are_a_vec_per_key() {
        let want: Vec<Vec<u8>> = vec![vec![3, 1], vec![], vec![7], vec![], vec![2, 2, 9]];
        let rows = Rows::<Thing, u8>::from_rows(want.iter().map(|r| r.iter().copied()));
        let pairs = want.iter().enumerate().flat_map(|(k, r)| r.iter().map(move |&t| (Thing::new(k), t)));
        assert_eq!(Rows::<Thing, u8>::grouped(want.len(), pairs), rows);
        assert_eq!(rows.len(), 5);
        assert_eq!(rows.values().map(<[u8]>::to_vec).collect::<Vec<_>>(), want);
        for (k, r) in want.iter().enumerate() {
            assert_eq!(&rows[Thing::new(k)], &r[..]);
            assert_eq!(rows.get(Thing::new(k)), Some(&r[..]));
        }
        assert_eq!(rows.get(Thing::new(5)), None);
        assert_eq!(rows.of(Thing::new(4)), &[2, 2, 9]);
        assert_eq!(rows.of(Thing::new(5)), &[] as &[u8]);
        assert_eq!(rows.flat(), &[3, 1, 7, 2, 2, 9]);
        let offsets: Vec<Option<usize>> = (0..6).map(|k| rows.offset(Thing::new(k))).collect();
        assert_eq!(offsets, [Some(0), Some(2), Some(2), Some(3), Some(3), None]);
        let mut reversed = rows.clone();
        reversed.reverse_each();
        let want_reversed: Vec<Vec<u8>> = want.iter().map(|r| r.iter().rev().copied().collect()).collect();
        assert_eq!(reversed.values().map(<[u8]>::to_vec).collect::<Vec<_>>(), want_reversed);
        assert!(Rows::<Thing, u8>::from_rows(Vec::<Vec<u8>>::new()).is_empty());
    }

    #[test]
    fn set_ops_match_a_plain_vector_model() {
        for len in [0usize, 1, 63, 64, 65, 130] {
            let mut a = EntitySet::<Thing>::new_empty(len);
            let mut model = vec![false; len];
            for i in (0..len).step_by(3) {
                assert!(a.insert(Thing::new(i)));
                assert!(!a.insert(Thing::new(i)));
                model[i] = true;
            }
            let mut full = EntitySet::<Thing>::new_full(len);
            assert_eq!(full.count(), len);
            full.subtract(&a);
            assert_eq!(full.count(), len - model.iter().filter(|b| **b).count());
            let mut neg = a.clone();
            neg.negate();
            assert_eq!(neg, full);
            let got: Vec<usize> = a.iter().map(|t| t.index()).collect();
            let want: Vec<usize> = (0..len).filter(|i| model[*i]).collect();
            assert_eq!(got, want);
            // The difference of a set and its complement is everything; toggling it back
            // turns one into the other.
            let diff: Vec<Thing> = a.symmetric_difference(&neg).collect();
            assert_eq!(diff.len(), len);
            let mut b = a.clone();
            for &k in &diff {
                b.toggle(k);
            }
            assert_eq!(b, neg);
            let mut c = EntitySet::<Thing>::new_full(len);
            c.clone_from(&a);
            assert_eq!(c, a);
        }
    }

    /// The word-level operations against a model that is a vector of booleans (the old
    /// operations were bit by bit: `==` via the derived impl, a change via
    /// `symmetric_difference`, a change flag per word): equality, the change flags of the
    /// in-place operations, and sets built from words and from a xor.
    #[test]
    fn word_operations_match_a_plain_vector_model() {
        let mut rng = crate::testgen::Rng::new(17);
        for len in [0usize, 1, 5, 63, 64, 65, 127, 128, 200, 260] {
            for _ in 0..40 {
                let model_a: Vec<bool> = (0..len).map(|_| rng.chance(50)).collect();
                let mut model_b = model_a.clone();
                for _ in 0..rng.below(3) {
                    if len > 0 {
                        let i = rng.below(len);
                        model_b[i] = !model_b[i];
                    }
                }
                let set = |m: &[bool]| {
                    let mut s = EntitySet::<Thing>::new_empty(len);
                    for (i, _) in m.iter().enumerate().filter(|(_, b)| **b) {
                        s.insert(Thing::new(i));
                    }
                    s
                };
                let (a, b) = (set(&model_a), set(&model_b));
                assert_eq!(a == b, model_a == model_b, "len {len}");
                let hash = |s: &EntitySet<Thing>| {
                    use std::hash::{Hash, Hasher};
                    let mut h = std::collections::hash_map::DefaultHasher::new();
                    s.hash(&mut h);
                    h.finish()
                };
                if a == b {
                    assert_eq!(hash(&a), hash(&b));
                }
                // The xor is the bits that differ, as the model says, and None when none does.
                let flips: Vec<usize> = (0..len).filter(|&i| model_a[i] != model_b[i]).collect();
                let x = a.xor_of(&b);
                assert_eq!(x.is_none(), flips.is_empty());
                if let Some(x) = &x {
                    assert_eq!(x.iter().map(|t| t.index()).collect::<Vec<_>>(), flips);
                    assert_eq!(x.capacity(), len);
                    assert_eq!(Some(x), EntitySet::from_xor(len, a.words(), b.words()).as_ref());
                }
                // From the words back to the same set; stray bits past the capacity are cleared.
                assert_eq!(EntitySet::<Thing>::from_words(len, a.words()), a);
                let mut w = a.words().to_vec();
                if let (Some(last), true) = (w.last_mut(), len % 64 != 0) {
                    *last |= !0u64 << (len % 64);
                }
                assert_eq!(EntitySet::<Thing>::from_words(len, &w), a);
                // Change flags: union/intersection/subtraction report a change exactly when
                // the model's result differs from where it started.
                type SetOp = fn(&mut EntitySet<Thing>, &EntitySet<Thing>) -> bool;
                type BitOp = fn(bool, bool) -> bool;
                let cases: [(SetOp, BitOp); 3] = [
                    (|s, o| s.union_with(o), |p, q| p | q),
                    (|s, o| s.intersect_with(o), |p, q| p & q),
                    (|s, o| s.subtract(o), |p, q| p & !q),
                ];
                for (op, f) in cases {
                    let mut got = a.clone();
                    let changed = op(&mut got, &b);
                    let want: Vec<bool> = model_a.iter().zip(&model_b).map(|(&p, &q)| f(p, q)).collect();
                    assert_eq!(got, set(&want));
                    assert_eq!(changed, want != model_a);
                }
            }
        }
    }

    #[test]
    fn ids_display_with_their_prefix() {
        let mut v: EntityVec<Thing, &str> = EntityVec::new();
        let k = v.push("x");
        assert_eq!(k.to_string(), "t0");
        assert_eq!(v[k], "x");
    }
}
