//! A fast hasher for the pass's name tables.
//!
//! The pass looks up about a million value names at 10^5 blocks (the names in use, when
//! it makes new ones; every operand, when it reads its output back), and std's SipHash was
//! a tenth of that work. This is the multiply-rotate hash of `rustc`'s FxHash, seeded per
//! table from std's random state so that names chosen to collide in one run need not
//! collide in another.

use std::hash::{BuildHasher, Hasher};

const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

#[derive(Clone, Copy)]
pub(super) struct Fx(u64);

impl Fx {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 56));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    /// Mixed once more at the end (MurmurHash3's finalizer): the multiply leaves a word's
    /// low bits depending on its inputs' low bits only, and the table picks buckets by the
    /// low bits — names that differ only past their first bytes (`bb12345`, `bb12346`)
    /// all fell into a few buckets.
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// Builds [`Fx`] hashers from one random seed.
#[derive(Clone, Copy)]
pub(super) struct FxBuild(u64);

impl Default for FxBuild {
    fn default() -> FxBuild {
        FxBuild(std::collections::hash_map::RandomState::new().hash_one(0x0a11_0ca7u64))
    }
}

impl BuildHasher for FxBuild {
    type Hasher = Fx;
    fn build_hasher(&self) -> Fx {
        Fx(self.0)
    }
}

pub(super) type FxMap<K, V> = std::collections::HashMap<K, V, FxBuild>;
pub(super) type FxSet<K> = std::collections::HashSet<K, FxBuild>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal keys hash equally (one table's seed), and names that differ only in their last
    /// characters spread over the low bits (the bucket index) and the top bits (the tag)
    /// alike: the tables stay usable as maps.
    #[test]
    fn equal_names_hash_equally_and_names_spread() {
        let b = FxBuild::default();
        let names: Vec<String> = (0..4096).map(|k| format!("bb{}", 10_000 + k)).collect();
        for n in &names {
            assert_eq!(b.hash_one(n.as_str()), b.hash_one(n.clone()));
        }
        for (what, bits) in [("low", 0u32), ("top", 52)] {
            let buckets: std::collections::HashSet<u64> = names.iter().map(|n| (b.hash_one(n) >> bits) & 0xfff).collect();
            assert!(buckets.len() > 2048, "{} of 4096 {what} 12-bit buckets used", buckets.len());
        }
        let mut m: FxMap<&str, usize> = FxMap::default();
        for (k, n) in names.iter().enumerate() {
            m.insert(n, k);
        }
        assert!(names.iter().enumerate().all(|(k, n)| m[n.as_str()] == k));
    }
}
