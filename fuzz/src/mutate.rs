//! Mutations of corpus files: what hostile or mangled input looks like — byte flips, token
//! deletion and duplication, line shuffles, truncation, very long lines, deep nesting, huge
//! numbers, random Unicode, and splices of another corpus file. Every input is a pure
//! function of (seed, index), so `--only INDEX` regenerates it.

/// SplitMix64: a seedable generator in a few lines; statistical quality is not the point.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`0` when `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// Pieces that mean something to one of the two grammars, for insertion and long lines.
const TOKENS: &[&str] = &[
    "+", "-", "@", ".", "$", "%", "#", "(", ")", "[", "]", "{", "}", "<", ">", ":", ";", ",", "=", "'",
    "\"", "//", "bb1", "bb0", "%0", "%1", "undef", "br", "jmp", ".L", "@main", "$Builtin.Int64", "ret",
    "return", "cond_br %0, bb1, bb2", "x: int = add a b;", "1a", "-inf", "0x", "sil", "{ var τ_0_0 }",
    "$<τ_0_0> { var τ_0_0 } <Builtin.Int32>", "[global: ]", "transform {", "\\", "\t", "\r", "\n",
];

const NUMBERS: &[&str] = &[
    "99999999999999999999999999999999999999999999",
    "-9223372036854775809",
    "9223372036854775808",
    "340282366920938463463374607431768211456",
    "1e999999",
    "-0x8000000000000000000000000000000000",
    "0.000000000000000000000000000000000000000000000000001",
    "18446744073709551616",
];

const UNICODE: &[char] = &[
    'é', 'τ', '€', '𝄞', '\u{0}', '\u{200B}', '\u{202E}', '\u{301}', '\u{FEFF}', '\u{FFFD}', '😀', '\u{1F3F3}',
    'ß', 'ﬀ', '\u{7F}', '\u{85}', '\u{2028}',
];

/// One input: `base` (a corpus text) with 1–4 mutations, `other` for splices. Half the
/// inputs get one gentle mutation instead (a line moved, dropped or repeated, a word replaced
/// by another word of the same file), which keeps many of them parseable, so the analyses,
/// passes and the interpreter see unusual programs, not only the parsers.
pub fn mutate(rng: &mut Rng, base: &str, other: &str) -> String {
    let mut s = if rng.chance(50) {
        let kind = *rng.pick(&[3, 3, 11, 12, 12, 12]);
        one(rng, kind, base.to_string(), other)
    } else {
        let mut s = base.to_string();
        for _ in 0..1 + rng.below(4) {
            let kind = rng.below(13);
            s = one(rng, kind, s, other);
        }
        s
    };
    // Stacked mutations multiply (a long line copied 3,000 times is 300 MB): cut at the
    // largest program the web app accepts, so the caps measure the stages, not the size.
    if s.len() > MAX_INPUT {
        let mut at = MAX_INPUT;
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        s.truncate(at);
    }
    s
}

/// The web app's limit (`MAX_SOURCE_BYTES` in web/src/program.rs).
pub const MAX_INPUT: usize = 4 << 20;

fn char_pos(rng: &mut Rng, s: &str) -> usize {
    let mut at = rng.below(s.len() + 1);
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Byte offsets of whitespace-separated tokens.
fn tokens(s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(a)) => {
                out.push((a, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(a) = start {
        out.push((a, s.len()));
    }
    out
}

fn one(rng: &mut Rng, kind: usize, s: String, other: &str) -> String {
    match kind {
        // Byte flips: the text is then read as UTF-8 with replacement, as a browser would.
        0 => {
            let mut b = s.into_bytes();
            for _ in 0..1 + rng.below(8) {
                if !b.is_empty() {
                    let i = rng.below(b.len());
                    b[i] ^= 1 << rng.below(8);
                }
            }
            String::from_utf8_lossy(&b).into_owned()
        }
        1 | 2 => {
            let toks = tokens(&s);
            if toks.is_empty() {
                return s;
            }
            let (a, b) = toks[rng.below(toks.len())];
            if rng.chance(50) {
                format!("{}{}", &s[..a], &s[b..])
            } else {
                let copies = if rng.chance(80) { 1 } else { 1 + rng.below(50) };
                let dup = format!("{} ", &s[a..b]).repeat(copies);
                let (c, _) = toks[rng.below(toks.len())];
                format!("{}{}{}", &s[..c], dup, &s[c..])
            }
        }
        3 => {
            let mut lines: Vec<&str> = s.lines().collect();
            if lines.len() < 2 {
                return s;
            }
            match rng.below(3) {
                0 => {
                    let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
                    lines.swap(i, j);
                }
                1 => {
                    let i = rng.below(lines.len());
                    let l = lines.remove(i);
                    let j = rng.below(lines.len() + 1);
                    lines.insert(j, l);
                }
                _ => {
                    let i = rng.below(lines.len());
                    lines.remove(i);
                }
            }
            lines.join("\n")
        }
        4 => {
            let at = char_pos(rng, &s);
            s[..at].to_string()
        }
        // A very long line of one piece (what issue 17 found exhausting memory).
        5 => {
            let piece = *rng.pick(TOKENS);
            let n = [1_000, 10_000, 100_000][rng.below(3)] / piece.len().max(1);
            let sep = if rng.chance(50) { "" } else { " " };
            let line = format!("{piece}{sep}").repeat(n);
            let at = char_pos(rng, &s);
            format!("{}\n{}\n{}", &s[..at], line, &s[at..])
        }
        // Deep nesting of brackets, generic types or blocks.
        6 => {
            let (open, close) = *rng.pick(&[("(", ")"), ("<", ">"), ("[", "]"), ("{", "}"), ("ptr<", ">"), ("$(", ")")]);
            let depth = [100, 1_000, 20_000][rng.below(3)];
            let inner = if rng.chance(50) { "Int" } else { "" };
            let closed = rng.chance(70);
            let nest = format!("{}{inner}{}", open.repeat(depth), if closed { close.repeat(depth) } else { String::new() });
            let at = char_pos(rng, &s);
            format!("{}{}{}", &s[..at], nest, &s[at..])
        }
        // Huge numbers in place of a number.
        7 => {
            let toks = tokens(&s);
            let nums: Vec<&(usize, usize)> =
                toks.iter().filter(|(a, _)| s[*a..].starts_with(|c: char| c.is_ascii_digit() || c == '-')).collect();
            let n = *rng.pick(NUMBERS);
            match nums.is_empty() {
                true => {
                    let at = char_pos(rng, &s);
                    format!("{}{n}{}", &s[..at], &s[at..])
                }
                false => {
                    let &&(a, b) = rng.pick(&nums);
                    format!("{}{n}{}", &s[..a], &s[b..])
                }
            }
        }
        8 => {
            let mut out = s;
            for _ in 0..1 + rng.below(6) {
                let at = char_pos(rng, &out);
                let c = if rng.chance(70) {
                    *rng.pick(UNICODE)
                } else {
                    char::from_u32(rng.below(0x11_0000) as u32).unwrap_or('\u{FFFD}')
                };
                out.insert(at, c);
            }
            out
        }
        // A token of either grammar at a random place.
        9 => {
            let at = char_pos(rng, &s);
            format!("{}{}{}", &s[..at], rng.pick(TOKENS), &s[at..])
        }
        // Splice: lines of another corpus file (often the other language).
        10 => {
            let lines: Vec<&str> = other.lines().collect();
            if lines.is_empty() {
                return s;
            }
            let a = rng.below(lines.len());
            let b = (a + 1 + rng.below(20)).min(lines.len());
            let at = char_pos(rng, &s);
            format!("{}\n{}\n{}", &s[..at], lines[a..b].join("\n"), &s[at..])
        }
        // A word replaced by another word of the same text (a variable, label, opcode or
        // type where another was).
        12 => {
            let toks = tokens(&s);
            if toks.is_empty() {
                return s;
            }
            let (a, b) = toks[rng.below(toks.len())];
            let (c, d) = toks[rng.below(toks.len())];
            let word = s[c..d].trim_matches(|ch: char| ",;:()".contains(ch));
            let keep = |ch: char| !",;:()".contains(ch);
            let trimmed_lo = a + s[a..b].find(keep).unwrap_or(0);
            let trimmed_hi =
                a + s[a..b].char_indices().rev().find(|&(_, ch)| keep(ch)).map_or(b - a, |(i, ch)| i + ch.len_utf8());
            let (lo, hi) = if trimmed_lo < trimmed_hi { (trimmed_lo, trimmed_hi) } else { (a, b) };
            format!("{}{}{}", &s[..lo], word, &s[hi..])
        }
        // Many copies of a line (a long function).
        _ => {
            let lines: Vec<&str> = s.lines().collect();
            if lines.is_empty() {
                return s;
            }
            let i = rng.below(lines.len());
            let n = [10, 300, 3_000][rng.below(3)];
            let mut out: Vec<&str> = lines[..i].to_vec();
            out.extend(std::iter::repeat_n(lines[i], n));
            out.extend(&lines[i..]);
            out.join("\n")
        }
    }
}
