//! Guessing the language of a text the user pasted, so the editor can colour it and the app
//! can parse it without asking first.
//!
//! The rule: every line (leading blanks and comment lines skipped) casts at most one vote.
//!
//! - **SIL** when it starts with `sil` or a `sil_…` keyword (`sil_stage`, `sil_global`, …) or
//!   `import` (Swift modules; Bril's imports start with `from`), is a block label `bbN(` /
//!   `bbN:`, or defines values: `%x =`, `(%a, %b) =`.
//! - **Bril** when it is a function header `@name(` / `@name {` (a SIL function header starts
//!   with `sil`), a label `.name:`, a typed destination `x: int =` / `p: ptr<int> =`, or an
//!   effect operation ending in `;` (`print x;`, `jmp .l;`, `br c .a .b;`, `ret;`, …).
//!
//! The language with more votes wins; a tie (including no votes at all, e.g. empty or prose)
//! is `None` and the caller keeps its current language. The scan stops once one language
//! leads by [`DECISIVE_LEAD`] votes, so a 10k-line program costs a few dozen lines.

use crate::ir::Lang;

/// A lead this large cannot be overturned by the odd misleading line.
const DECISIVE_LEAD: i64 = 25;

/// Bril operations with no destination: a line starting with one and ending in `;` is Bril.
const BRIL_EFFECT_OPS: &[&str] =
    &["print", "jmp", "br", "ret", "call", "store", "free", "nop", "speculate", "commit", "guard", "set"];

/// The language `text` is written in, or `None` if it cannot tell (see the module docs).
pub fn detect_lang(text: &str) -> Option<Lang> {
    let mut lead: i64 = 0; // SIL votes minus Bril votes
    for line in text.lines() {
        let line = line.trim_start();
        if line.starts_with("//") || line.starts_with('#') {
            continue;
        }
        match vote(line) {
            Some(Lang::Sil) => lead += 1,
            Some(Lang::Bril) => lead -= 1,
            None => {}
        }
        if lead.abs() >= DECISIVE_LEAD {
            break;
        }
    }
    match lead.signum() {
        1 => Some(Lang::Sil),
        -1 => Some(Lang::Bril),
        _ => None,
    }
}

/// The vote of one line without its leading blanks.
fn vote(line: &str) -> Option<Lang> {
    if is_sil_line(line) {
        Some(Lang::Sil)
    } else if is_bril_line(line) {
        Some(Lang::Bril)
    } else {
        None
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

/// The leading run of name characters of `s` and the rest.
fn split_word(s: &str) -> (&str, &str) {
    let n = s.find(|c: char| !is_word_char(c)).unwrap_or(s.len());
    s.split_at(n)
}

fn is_sil_line(line: &str) -> bool {
    let (word, rest) = split_word(line);
    if word == "sil" || word.starts_with("sil_") || word == "import" {
        return rest.is_empty() || rest.starts_with(char::is_whitespace) || rest.starts_with('[');
    }
    if let Some(num) = word.strip_prefix("bb") {
        if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) {
            return rest.starts_with('(') || rest.trim_start().starts_with(':');
        }
    }
    defines_values(line)
}

/// `%x = …` or `(%a, %b) = …`: SIL results have no type before the `=` (Bril's have one).
fn defines_values(line: &str) -> bool {
    let lhs = if let Some(tuple) = line.strip_prefix("(%") {
        match tuple.find(')') {
            Some(close) => &tuple[close + 1..],
            None => return false,
        }
    } else if let Some(value) = line.strip_prefix('%') {
        let (name, rest) = split_word(value);
        if name.is_empty() {
            return false;
        }
        rest
    } else {
        return false;
    };
    let after = lhs.trim_start();
    after.starts_with('=') && !after.starts_with("==")
}

fn is_bril_line(line: &str) -> bool {
    if let Some(name_rest) = line.strip_prefix('@') {
        let (name, rest) = split_word(name_rest);
        let rest = rest.trim_start();
        return !name.is_empty() && (rest.starts_with('(') || rest.starts_with('{'));
    }
    if let Some(label) = line.strip_prefix('.') {
        let (name, rest) = split_word(label);
        return !name.is_empty() && rest.trim_start().starts_with(':');
    }
    let code = line.split('#').next().unwrap_or("").trim_end();
    let (word, rest) = split_word(code);
    if word.is_empty() {
        return false;
    }
    if let Some(ty) = rest.strip_prefix(':') {
        return typed_destination(ty);
    }
    BRIL_EFFECT_OPS.contains(&word) && code.ends_with(';')
}

/// After `x:` — a Bril type (`int`, `ptr<ptr<float>>`) and then `=`.
fn typed_destination(after_colon: &str) -> bool {
    let s = after_colon.trim_start();
    let (base, mut rest) = split_word(s);
    if base.is_empty() {
        return false;
    }
    if rest.starts_with('<') {
        let Some(close) = rest.rfind('>') else { return false };
        let inner = &rest[1..close];
        if !inner.chars().all(|c| is_word_char(c) || c == '<' || c == '>') {
            return false;
        }
        rest = &rest[close + 1..];
    }
    let rest = rest.trim_start();
    rest.starts_with('=') && !rest.starts_with("==")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    #[test]
    fn each_clue_decides_alone() {
        for sil in [
            "sil_stage canonical",
            "sil @f : $@convention(thin) () -> () {",
            "sil [ossa] @f : $() -> () {",
            "import Builtin",
            "bb0:",
            "bb12(%0 : $Int32):",
            "  %3 = struct_extract %0 : $Int32, #Int32._value",
            "(%1, %2) = destructure_tuple %0 : $(Klass, Klass)",
        ] {
            assert_eq!(detect_lang(sil), Some(Lang::Sil), "{sil}");
        }
        for bril in [
            "@main {",
            "@mod(a: int, b: int): int {",
            ".entry:",
            "  x: int = const 1;",
            "  p: ptr<ptr<float>> = alloc n;",
            "  print x;",
            "  br cond .then .else; # comment",
            "  ret;",
        ] {
            assert_eq!(detect_lang(bril), Some(Lang::Bril), "{bril}");
        }
    }

    #[test]
    fn no_clue_or_a_tie_is_none() {
        for text in [
            "",
            "\n\n   \n",
            "hello world",
            "x = a + b",
            "// just a comment\n# and another",
            "bb0\n%\n@\n.\n",
            "@main {\nbb0:\n",
            "%x == y",
            "z: int == 3",
            "silly words here",
        ] {
            assert_eq!(detect_lang(text), None, "{text:?}");
        }
    }

    #[test]
    fn the_majority_wins_over_a_stray_line() {
        let mostly_sil = "bb0:\n  %0 = integer_literal $Builtin.Int1, 0\n  ret;\n  return %0 : $Builtin.Int1\n";
        assert_eq!(detect_lang(mostly_sil), Some(Lang::Sil));
        let mostly_bril = "@main {\n.a:\n  x: int = const 1;\nbb0:\n  print x;\n}\n";
        assert_eq!(detect_lang(mostly_bril), Some(Lang::Bril));
    }

    #[test]
    fn generated_bril_programs_are_bril() {
        // Every generated Bril program (with and without a helper function) is Bril.
        for seed in 0..50 {
            let g = crate::testgen::generate(seed, &Default::default());
            assert_eq!(detect_lang(&g.text), Some(Lang::Bril), "seed {seed}:\n{}", g.text);
        }
    }

    fn shared_dir() -> Option<PathBuf> {
        let dir = std::env::var_os("OPTLAB_SHARED")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
        if dir.join("corpus").is_dir() {
            Some(dir)
        } else {
            eprintln!("NOTICE: {} not found; skipping the language detection corpus test", dir.display());
            None
        }
    }

    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                files(&p, out);
            } else {
                out.push(p);
            }
        }
    }

    #[test]
    fn every_corpus_program_is_recognised() {
        let Some(shared) = shared_dir() else { return };
        let mut all = Vec::new();
        files(&shared.join("corpus"), &mut all);
        let (mut bril, mut sil) = (0, 0);
        for path in all {
            let want = match path.extension().and_then(|e| e.to_str()) {
                Some("bril") => Lang::Bril,
                Some("sil") => Lang::Sil,
                _ => continue,
            };
            let text = std::fs::read_to_string(&path).expect("corpus files are UTF-8");
            assert_eq!(detect_lang(&text), Some(want), "{}", path.display());
            match want {
                Lang::Bril => bril += 1,
                Lang::Sil => sil += 1,
            }
        }
        assert!(bril > 100 && sil >= 3, "found {bril} Bril and {sil} SIL files");
    }

    /// The seed articles quote SIL functions (from `sil …` to the closing `}`), often with
    /// Japanese comments and elided lines (`...`); each quoted function is recognised.
    #[test]
    fn the_seeds_sil_snippets_are_recognised() {
        let Some(shared) = shared_dir() else { return };
        let mut seeds = Vec::new();
        files(&shared.join("seeds"), &mut seeds);
        let mut snippets = 0;
        for path in seeds {
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let lines: Vec<&str> = text.lines().collect();
            let mut i = 0;
            while i < lines.len() {
                if lines[i].starts_with("sil ") && lines[i].contains('@') {
                    let end = (i..lines.len()).find(|&j| lines[j].trim() == "}").unwrap_or(lines.len() - 1);
                    let snippet = lines[i..=end].join("\n");
                    assert_eq!(detect_lang(&snippet), Some(Lang::Sil), "{}:\n{snippet}", path.display());
                    // The body alone (no `sil` header line) is SIL too.
                    if end > i + 1 {
                        let body = lines[i + 1..end].join("\n");
                        if body.contains("bb") || body.contains('%') {
                            assert_eq!(detect_lang(&body), Some(Lang::Sil), "{}:\n{body}", path.display());
                        }
                    }
                    snippets += 1;
                    i = end;
                }
                i += 1;
            }
        }
        assert!(snippets >= 5, "only {snippets} SIL snippets found in the seeds");
    }
}
