//! Text arithmetic for the editor: which lines an edit touched, and line:col ↔ the UTF-16
//! offsets a `<textarea>` counts in.

/// An edit seen line by line: old lines `first..first + removed` (0-based) became new lines
/// `first..first + inserted`; lines before are untouched and lines after only moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineChange {
    pub first: usize,
    pub removed: usize,
    pub inserted: usize,
}

impl LineChange {
    /// Where 1-based line `line` of the old text is in the new one; `None` if it was replaced.
    pub fn shift(&self, line: u32) -> Option<u32> {
        let i = line.checked_sub(1)? as usize;
        if i < self.first {
            Some(line)
        } else if i < self.first + self.removed {
            None
        } else {
            let moved = i + self.inserted - self.removed;
            u32::try_from(moved + 1).ok()
        }
    }
}

/// The lines `new` differs from `old` in (`None` if the texts are equal). Works on bytes: a
/// `\n` byte is never part of a multi-byte character, so counting them needs no char care.
pub fn line_change(old: &str, new: &str) -> Option<LineChange> {
    if old == new {
        return None;
    }
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - prefix;
    let suffix = a.iter().rev().zip(b.iter().rev()).take(room).take_while(|(x, y)| x == y).count();
    let newlines = |s: &[u8]| s.iter().filter(|&&c| c == b'\n').count();
    let first = newlines(&a[..prefix]);
    let old_last = newlines(&a[..a.len() - suffix]);
    let new_last = newlines(&b[..b.len() - suffix]);
    Some(LineChange { first, removed: old_last - first + 1, inserted: new_last - first + 1 })
}

/// The UTF-16 offset (what `selectionStart` counts) of 1-based `line`:`col` in `text`, where
/// `col` counts characters as diagnostics do. Positions past a line's end or past the text are
/// clamped to the end of that line or of the text.
pub fn utf16_offset(text: &str, line: u32, col: u32) -> u32 {
    let mut offset = 0usize;
    let mut lines = text.split('\n');
    for _ in 1..line.max(1) {
        match lines.next() {
            Some(l) => offset += l.encode_utf16().count() + 1,
            None => break,
        }
    }
    let here: usize = lines.next().map_or(0, |l| l.chars().take(col.max(1) as usize - 1).map(char::len_utf16).sum());
    u32::try_from(offset + here).unwrap_or(u32::MAX).min(text.encode_utf16().count() as u32)
}

/// The byte offsets where each line of `text` starts (always at least one line).
pub fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect()
}

/// The byte offset of UTF-16 offset `at` (what a textarea's selection counts) in `text`,
/// clamped to the text and to a character boundary.
pub fn utf16_to_byte(text: &str, at: u32) -> usize {
    let mut units = 0u32;
    for (i, c) in text.char_indices() {
        if units >= at {
            return i;
        }
        units += c.len_utf16() as u32;
    }
    text.len()
}

/// What the editor shows of a text too long to hold in its textarea: the first lines (at
/// most `max_lines` and about `max_bytes`), then how much is not shown.
pub fn preview(text: &str, max_lines: usize, max_bytes: usize) -> String {
    let mut end = text.match_indices('\n').nth(max_lines.saturating_sub(1)).map_or(text.len(), |(i, _)| i + 1);
    end = end.min(max_bytes).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let shown = &text[..end];
    let rest = text[end..].matches('\n').count() + usize::from(!text[end..].is_empty() && !text.ends_with('\n'));
    if end == text.len() {
        return shown.to_string();
    }
    let mut out = shown.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("… and {rest} more line{} ({} KiB in all), not shown\n", if rest == 1 { "" } else { "s" }, text.len() >> 10));
    out
}

/// The UTF-16 offset (what a textarea counts) of byte offset `at` of `text` (clamped).
pub fn byte_to_utf16(text: &str, at: u32) -> u32 {
    let mut at = (at as usize).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    text[..at].encode_utf16().count() as u32
}

/// The byte offset of 0-based `line`, 0-based character `col` in `text`, if that character
/// exists (a position past the line's end is no character).
pub fn byte_at(text: &str, line: usize, col: usize) -> Option<u32> {
    let mut offset = 0usize;
    for (k, l) in text.split('\n').enumerate() {
        if k == line {
            let (i, _) = l.char_indices().nth(col)?;
            return u32::try_from(offset + i).ok();
        }
        offset += l.len() + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_offsets_become_textarea_offsets_and_positions_become_bytes() {
        let text = "é%0\n  %1 = x\n";
        assert_eq!(byte_to_utf16(text, 0), 0);
        assert_eq!(byte_to_utf16(text, 2), 1, "é is two bytes, one UTF-16 unit");
        assert_eq!(byte_to_utf16(text, 1), 0, "inside a character: its start");
        assert_eq!(byte_to_utf16(text, 999), text.encode_utf16().count() as u32);
        assert_eq!(byte_at(text, 0, 1), Some(2));
        assert_eq!(byte_at(text, 1, 2), Some(7));
        assert_eq!(byte_at(text, 1, 40), None, "past the line's end");
        assert_eq!(byte_at(text, 9, 0), None);
    }

    fn lines(s: &str) -> Vec<&str> {
        s.split('\n').collect()
    }

    /// All strings over `alphabet` of length up to `n`.
    fn all_strings(alphabet: &[char], n: usize) -> Vec<String> {
        let mut out = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..n {
            frontier = frontier.iter().flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}"))).collect();
            out.extend(frontier.iter().cloned());
        }
        out
    }

    /// Splicing the new lines into the old at the reported place gives the new text, and a
    /// line outside the change keeps its text under its shifted number.
    #[test]
    fn every_small_edit_is_described_exactly() {
        let texts = all_strings(&['a', 'é', '\n'], 4);
        for old in &texts {
            for new in &texts {
                let Some(ch) = line_change(old, new) else {
                    assert_eq!(old, new);
                    continue;
                };
                let (o, n) = (lines(old), lines(new));
                assert!(ch.first + ch.removed <= o.len() && ch.first + ch.inserted <= n.len(), "{old:?}→{new:?}");
                let mut spliced = o.clone();
                spliced.splice(ch.first..ch.first + ch.removed, n[ch.first..ch.first + ch.inserted].iter().copied());
                assert_eq!(spliced, n, "{old:?} → {new:?}: {ch:?}");
                for (i, text) in o.iter().enumerate() {
                    if let Some(j) = ch.shift(i as u32 + 1) {
                        assert_eq!(n[j as usize - 1], *text, "{old:?} → {new:?}: line {}", i + 1);
                    }
                }
            }
        }
    }

    #[test]
    fn a_keystroke_touches_one_line() {
        let old = "a\nbc\nd\n";
        assert_eq!(line_change(old, "a\nbXc\nd\n"), Some(LineChange { first: 1, removed: 1, inserted: 1 }));
        assert_eq!(line_change(old, "a\nb\nc\nd\n"), Some(LineChange { first: 1, removed: 1, inserted: 2 }));
        assert_eq!(line_change(old, old), None);
    }

    #[test]
    fn offsets_count_utf16_units() {
        let text = "ab\n漢🙂x\n\nlast";
        assert_eq!(utf16_offset(text, 1, 1), 0);
        assert_eq!(utf16_offset(text, 1, 3), 2);
        assert_eq!(utf16_offset(text, 2, 1), 3);
        // 漢 is one unit, 🙂 two.
        assert_eq!(utf16_offset(text, 2, 2), 4);
        assert_eq!(utf16_offset(text, 2, 3), 6);
        assert_eq!(utf16_offset(text, 2, 4), 7);
        assert_eq!(utf16_offset(text, 3, 1), 8);
        assert_eq!(utf16_offset(text, 4, 2), 10);
        // Clamped: past a line's end, past the last line, and line/col 0.
        assert_eq!(utf16_offset(text, 1, 99), 2);
        assert_eq!(utf16_offset(text, 99, 1), 13);
        assert_eq!(utf16_offset(text, 0, 0), 0);
        assert_eq!(utf16_offset("", 5, 5), 0);
    }

    #[test]
    fn a_preview_shows_the_first_lines_and_counts_the_rest() {
        let text = "a\nb\nc\nd\n";
        assert_eq!(preview(text, 2, 100), "a\nb\n… and 2 more lines (0 KiB in all), not shown\n");
        assert_eq!(preview(text, 10, 100), text);
        assert_eq!(preview("ab漢字", 1, 4), "ab\n… and 1 more line (0 KiB in all), not shown\n");
        assert_eq!(utf16_to_byte("ab漢🙂x", 3), 5);
        assert_eq!(utf16_to_byte("ab漢🙂x", 5), 9);
        assert_eq!(utf16_to_byte("ab", 9), 2);
    }

    #[test]
    fn line_starts_include_an_empty_last_line() {
        assert_eq!(line_starts(""), [0]);
        assert_eq!(line_starts("a\nbc\n"), [0, 2, 5]);
    }
}
