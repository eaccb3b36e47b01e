//! Rows grouped into chunks of about [`CHUNK`] rows, each a `<div>` of known height.
//!
//! With 6,000 rows directly in one container, the browser walks all of them to lay out
//! after any change (≈10 ms a keystroke) and lays all of them out on load; grouped, a change
//! lays out one chunk, and chunks out of view are skipped (`content-visibility: auto`, exact
//! because each chunk's height is set from its row count). This module plans the chunk-level
//! operations for a splice of rows; `dom.rs` performs them.

use std::ops::Range;

/// Rows per chunk when the rows are (re)grouped.
pub const CHUNK: usize = 64;
/// A chunk that grows past this (a large paste) is split into chunks of [`CHUNK`] rows.
pub const MAX_CHUNK: usize = 4 * CHUNK;

/// One step on the chunked rows; indices are those at the moment the step runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkOp {
    /// Remove `count` rows of `chunk`, starting at row `offset` of it.
    Remove { chunk: usize, offset: usize, count: usize },
    /// Insert the splice's new rows `rows` before row `offset` of `chunk` (at its end if
    /// `offset` is its size).
    Insert { chunk: usize, offset: usize, rows: Range<usize> },
    /// Cut `chunk` into consecutive chunks of these sizes (the first stays `chunk`).
    Split { chunk: usize, sizes: Vec<usize> },
    /// Delete the (empty) `chunk`.
    Drop { chunk: usize },
}

/// The number of rows in each chunk (never empty: an empty list is one empty chunk).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunks {
    sizes: Vec<usize>,
}

impl Chunks {
    /// `rows` rows grouped evenly.
    pub fn even(rows: usize) -> Chunks {
        let mut sizes: Vec<usize> = (0..rows / CHUNK).map(|_| CHUNK).collect();
        if rows % CHUNK != 0 || sizes.is_empty() {
            sizes.push(rows % CHUNK);
        }
        Chunks { sizes }
    }

    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    pub fn rows(&self) -> usize {
        self.sizes.iter().sum()
    }

    /// The chunk of `row` and its offset there.
    pub fn locate(&self, row: usize) -> Option<(usize, usize)> {
        let mut start = 0;
        for (c, &n) in self.sizes.iter().enumerate() {
            if row < start + n {
                return Some((c, row - start));
            }
            start += n;
        }
        None
    }

    /// Plans replacing rows `at..at + remove` with `insert` new rows (clamped to the rows
    /// there are) and updates the sizes accordingly.
    pub fn splice(&mut self, at: usize, remove: usize, insert: usize) -> Vec<ChunkOp> {
        let total = self.rows();
        let at = at.min(total);
        let remove = remove.min(total - at);
        let mut ops = Vec::new();

        let mut start = 0;
        for (c, size) in self.sizes.iter_mut().enumerate() {
            let (lo, hi) = (at.max(start), (at + remove).min(start + *size));
            let chunk_start = start;
            start += *size;
            if lo < hi {
                ops.push(ChunkOp::Remove { chunk: c, offset: lo - chunk_start, count: hi - lo });
                *size -= hi - lo;
            }
        }

        if insert > 0 {
            let (chunk, offset) = self.locate(at).unwrap_or_else(|| {
                let last = self.sizes.len() - 1;
                (last, self.sizes[last])
            });
            ops.push(ChunkOp::Insert { chunk, offset, rows: 0..insert });
            self.sizes[chunk] += insert;
            if self.sizes[chunk] > MAX_CHUNK {
                let n = self.sizes[chunk];
                let sizes: Vec<usize> = (0..n.div_ceil(CHUNK)).map(|k| CHUNK.min(n - k * CHUNK)).collect();
                self.sizes.splice(chunk..=chunk, sizes.iter().copied());
                ops.push(ChunkOp::Split { chunk, sizes });
            }
        }

        for c in (0..self.sizes.len()).rev() {
            if self.sizes[c] == 0 && self.sizes.len() > 1 {
                self.sizes.remove(c);
                ops.push(ChunkOp::Drop { chunk: c });
            }
        }
        ops
    }
}

/// Performs `ops` on chunks held as vectors (the tests' stand-in for the DOM).
pub fn apply_to_vecs<T: Clone>(chunks: &mut Vec<Vec<T>>, ops: &[ChunkOp], new_rows: &[T]) {
    for op in ops {
        match op {
            ChunkOp::Remove { chunk, offset, count } => {
                chunks[*chunk].drain(*offset..offset + count);
            }
            ChunkOp::Insert { chunk, offset, rows } => {
                let rows = new_rows[rows.clone()].iter().cloned();
                chunks[*chunk].splice(*offset..*offset, rows);
            }
            ChunkOp::Split { chunk, sizes } => {
                let mut rest = std::mem::take(&mut chunks[*chunk]);
                let mut pieces = Vec::new();
                for &n in sizes {
                    let tail = rest.split_off(n.min(rest.len()));
                    pieces.push(rest);
                    rest = tail;
                }
                chunks.splice(*chunk..=*chunk, pieces);
            }
            ChunkOp::Drop { chunk } => {
                chunks.remove(*chunk);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(rows: usize) -> (Chunks, Vec<Vec<usize>>) {
        let chunks = Chunks::even(rows);
        let mut next = 0;
        let vecs = chunks
            .sizes()
            .iter()
            .map(|&n| {
                let v: Vec<usize> = (next..next + n).collect();
                next += n;
                v
            })
            .collect();
        (chunks, vecs)
    }

    #[test]
    fn even_grouping() {
        assert_eq!(Chunks::even(0).sizes(), [0]);
        assert_eq!(Chunks::even(64).sizes(), [64]);
        assert_eq!(Chunks::even(130).sizes(), [64, 64, 2]);
        assert_eq!(Chunks::even(130).locate(129), Some((2, 1)));
        assert_eq!(Chunks::even(130).locate(130), None);
    }

    /// Random splices, small and large, anywhere: the chunked rows always flatten to the
    /// expected rows, the sizes match, no chunk is empty (unless it is the only one) or
    /// larger than MAX_CHUNK.
    #[test]
    fn any_splice_keeps_rows_and_bounds() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n.max(1) as u64) as usize
        };
        for start_rows in [0, 1, 63, 64, 65, 300, 1000] {
            let (mut chunks, mut vecs) = build(start_rows);
            let mut flat: Vec<usize> = (0..start_rows).collect();
            let mut fresh = 1_000_000;
            for step in 0..300 {
                let total = flat.len();
                let at = next(total + 1);
                let remove = if step % 17 == 0 { next(total + 1) } else { next(3) };
                let insert = if step % 23 == 0 { next(900) } else { next(3) };
                let new_rows: Vec<usize> = (fresh..fresh + insert).collect();
                fresh += insert;
                let ops = chunks.splice(at, remove, insert);
                apply_to_vecs(&mut vecs, &ops, &new_rows);
                let end = (at + remove).min(total);
                flat.splice(at.min(total)..end, new_rows);
                assert_eq!(vecs.concat(), flat, "step {step}: {ops:?}");
                assert_eq!(vecs.iter().map(Vec::len).collect::<Vec<_>>(), chunks.sizes());
                assert!(chunks.sizes().iter().all(|&n| n <= MAX_CHUNK), "{:?}", chunks.sizes());
                assert!(chunks.sizes().len() == 1 || chunks.sizes().iter().all(|&n| n > 0));
            }
        }
    }

    #[test]
    fn a_keystroke_is_one_remove_and_one_insert_in_one_chunk() {
        let mut chunks = Chunks::even(6000);
        let ops = chunks.splice(3000, 1, 1);
        assert_eq!(
            ops,
            [
                ChunkOp::Remove { chunk: 46, offset: 56, count: 1 },
                ChunkOp::Insert { chunk: 46, offset: 56, rows: 0..1 }
            ]
        );
    }
}
