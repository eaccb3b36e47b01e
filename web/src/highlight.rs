//! Syntax colouring for the editor: a lexical tokenizer per language that splits source text
//! into classified byte ranges, and their HTML.
//!
//! It is deliberately not the parser: it must colour half-typed, broken text without failing,
//! and it works line by line (no token of either language spans a newline), so the editor can
//! re-colour only the lines an edit touched.

mod bril;
mod scan;
mod sil;

use optlab_core::Lang;
use std::ops::Range;

/// What a piece of source is, for colouring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// Blanks, variables and anything without a colour of its own.
    Plain,
    Comment,
    /// `sil`, `sil_stage`, `import`, linkage words, declarations.
    Keyword,
    /// `@main`, `@foo`: functions and globals.
    Func,
    /// `.label` (Bril), `bb3` (SIL).
    Label,
    /// `%7` (SIL values).
    Value,
    /// A type: after `:` in Bril, after `$` in SIL.
    Type,
    /// The operation of an instruction (`add`, `br`, `struct_extract`).
    Opcode,
    /// Numbers and Bril's `true`/`false`.
    Number,
    /// String and character literals.
    Str,
    /// `[trivial]`, `@owned`, `@_semantics`.
    Attr,
    /// `#Int32._value` (SIL member references).
    Member,
    Punct,
}

impl Class {
    /// The CSS class of the `<span>` that colours it (`None`: no span, the text stays plain).
    pub fn css_class(self) -> Option<&'static str> {
        Some(match self {
            Class::Plain => return None,
            Class::Comment => "hl-comment",
            Class::Keyword => "hl-keyword",
            Class::Func => "hl-func",
            Class::Label => "hl-label",
            Class::Value => "hl-value",
            Class::Type => "hl-type",
            Class::Opcode => "hl-op",
            Class::Number => "hl-num",
            Class::Str => "hl-str",
            Class::Attr => "hl-attr",
            Class::Member => "hl-member",
            Class::Punct => "hl-punct",
        })
    }
}

/// A classified byte range of the text given to [`tokenize`] (always on char boundaries).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub range: Range<usize>,
    pub class: Class,
}

/// The tokens of one line (without its `\n`); they cover the line exactly, in order.
pub fn tokenize_line(lang: Lang, line: &str) -> Vec<Token> {
    match lang {
        Lang::Bril => bril::tokenize_line(line),
        Lang::Sil => sil::tokenize_line(line),
    }
}

/// The tokens of a whole text; they cover it exactly, in order (newlines are `Plain`).
pub fn tokenize(lang: Lang, text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in text.split('\n') {
        out.extend(
            tokenize_line(lang, line)
                .into_iter()
                .map(|t| Token { range: t.range.start + start..t.range.end + start, class: t.class }),
        );
        start += line.len();
        if start < text.len() {
            out.push(Token { range: start..start + 1, class: Class::Plain });
            start += 1;
        }
    }
    out
}

/// Appends `s` escaped for HTML text content.
pub fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
}

fn push_piece(out: &mut String, text: &str, class: Class, error: bool) {
    match (class.css_class(), error) {
        (None, false) => escape_into(out, text),
        (css, _) => {
            out.push_str("<span class=\"");
            if let Some(css) = css {
                out.push_str(css);
                if error {
                    out.push(' ');
                }
            }
            if error {
                out.push_str("hl-err");
            }
            out.push_str("\">");
            escape_into(out, text);
            out.push_str("</span>");
        }
    }
}

/// `text` coloured by `tokens` (from [`tokenize`] or [`tokenize_line`] of the same text).
pub fn to_html(text: &str, tokens: &[Token]) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for t in tokens {
        push_piece(&mut out, text.get(t.range.clone()).unwrap_or(""), t.class, false);
    }
    out
}

/// One line coloured, with an error underline (`hl-err`) from each of `error_cols` (1-based
/// character columns, as diagnostics give them) to the end of the token there; a column past
/// the end of the line gets an empty `hl-err hl-eol` marker after the text.
pub fn line_html(lang: Lang, line: &str, error_cols: &[u32]) -> String {
    let tokens = tokenize_line(lang, line);
    let mut errors: Vec<Range<usize>> = Vec::new();
    let mut at_eol = false;
    for &col in error_cols {
        let idx = col.saturating_sub(1) as usize;
        let Some((lo, c)) = line.char_indices().nth(idx) else {
            at_eol = true;
            continue;
        };
        let hi = match tokens.iter().find(|t| t.range.contains(&lo)) {
            Some(t) if !c.is_whitespace() => t.range.end,
            _ => lo + c.len_utf8(),
        };
        errors.push(lo..hi);
    }
    let in_error = |at: usize| errors.iter().any(|r| r.contains(&at));
    let mut out = String::with_capacity(line.len() * 2);
    for t in &tokens {
        // Cut the token where an error range starts or ends inside it.
        let mut cuts: Vec<usize> =
            errors.iter().flat_map(|r| [r.start, r.end]).filter(|&b| b > t.range.start && b < t.range.end).collect();
        cuts.sort_unstable();
        cuts.dedup();
        let mut lo = t.range.start;
        for hi in cuts.into_iter().chain([t.range.end]) {
            push_piece(&mut out, line.get(lo..hi).unwrap_or(""), t.class, in_error(lo));
            lo = hi;
        }
    }
    if at_eol {
        out.push_str("<span class=\"hl-err hl-eol\"></span>");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn classes(lang: Lang, text: &str) -> Vec<(String, Class)> {
        tokenize(lang, text)
            .into_iter()
            .filter(|t| !text[t.range.clone()].trim().is_empty())
            .map(|t| (text[t.range.clone()].to_string(), t.class))
            .collect()
    }

    fn class_of(lang: Lang, text: &str, piece: &str) -> Class {
        let all = classes(lang, text);
        all.iter().find(|(t, _)| t == piece).map(|(_, c)| *c).unwrap_or_else(|| panic!("no token {piece:?} in {all:?}"))
    }

    /// The invariants the editor relies on: tokens are in order, adjacent, non-empty, on char
    /// boundaries, cover the text exactly, and the HTML's text is the input.
    fn check_cover(lang: Lang, text: &str) {
        let tokens = tokenize(lang, text);
        let mut at = 0;
        for t in &tokens {
            assert_eq!(t.range.start, at, "gap or overlap at byte {at}");
            assert!(t.range.end > t.range.start, "empty token at {at}");
            assert!(text.is_char_boundary(t.range.end));
            at = t.range.end;
        }
        assert_eq!(at, text.len());
        let joined: String = tokens.iter().map(|t| &text[t.range.clone()]).collect();
        assert_eq!(joined, text);
        assert_eq!(unescape(&strip_tags(&to_html(text, &tokens))), text);
    }

    fn strip_tags(html: &str) -> String {
        let mut out = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                _ if !in_tag => out.push(c),
                _ => {}
            }
        }
        out
    }

    fn unescape(s: &str) -> String {
        s.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    }

    #[test]
    fn bril_parts_get_their_classes() {
        let text = "# sum\n@main(n: int): ptr<int> {\n.loop:\n  x: int = const -5;\n  b: bool = const true;\n  \
                    c: char = const 'a';\n  v: int = call @f x;\n  br b .loop .done;\n  print x; # out\n}\n";
        let b = Lang::Bril;
        assert_eq!(class_of(b, text, "# sum"), Class::Comment);
        assert_eq!(class_of(b, text, "@main"), Class::Func);
        assert_eq!(class_of(b, text, ".loop"), Class::Label);
        assert_eq!(class_of(b, text, ".done"), Class::Label);
        assert_eq!(class_of(b, text, "int"), Class::Type);
        assert_eq!(class_of(b, text, "ptr"), Class::Type);
        assert_eq!(class_of(b, text, "const"), Class::Opcode);
        assert_eq!(class_of(b, text, "call"), Class::Opcode);
        assert_eq!(class_of(b, text, "br"), Class::Opcode);
        assert_eq!(class_of(b, text, "print"), Class::Opcode);
        assert_eq!(class_of(b, text, "-5"), Class::Number);
        assert_eq!(class_of(b, text, "true"), Class::Number);
        assert_eq!(class_of(b, text, "'a'"), Class::Str);
        assert_eq!(class_of(b, text, "x"), Class::Plain);
        assert_eq!(class_of(b, text, "# out"), Class::Comment);
        assert_eq!(class_of(b, text, "@f"), Class::Func);
        // After a label's colon comes a statement, not a type.
        assert_eq!(class_of(b, ".a: print x;", "print"), Class::Opcode);
        // Imports and the lines that start another file of the program.
        let text = "from \"lib.bril\" import @f, @g as @h;\n// file: lib.bril\n@f {\n}\n";
        assert_eq!(class_of(b, text, "from"), Class::Keyword);
        assert_eq!(class_of(b, text, "\"lib.bril\""), Class::Str);
        assert_eq!(class_of(b, text, "import"), Class::Keyword);
        assert_eq!(class_of(b, text, "as"), Class::Keyword);
        assert_eq!(class_of(b, text, "@h"), Class::Func);
        assert_eq!(class_of(b, text, "// file: lib.bril"), Class::Keyword);
    }

    #[test]
    fn sil_parts_get_their_classes() {
        let text =
            "sil_stage canonical\nimport Builtin\n// c\nsil hidden [ossa] @f : $@convention(thin) (Int32) -> Int32 {\n\
                    bb0(%0 : @owned $Int32):\n  %3 = struct_extract %0 : $Int32, #Int32._value\n  \
                    %6 = builtin \"sadd\"(%3 : $Builtin.Int32) : $(Builtin.Int32, Builtin.Int1)\n  \
                    %8 = struct $Int32 (%7 : $Builtin.Int32)\n  %9 = integer_literal $Builtin.Int1, -1\n  \
                    store %1 to [init] %2 : $*T\n  cond_br %7, bb2, bb3 // why\n}\n";
        let s = Lang::Sil;
        assert_eq!(class_of(s, text, "sil_stage"), Class::Keyword);
        assert_eq!(class_of(s, text, "canonical"), Class::Keyword);
        assert_eq!(class_of(s, text, "import"), Class::Keyword);
        assert_eq!(class_of(s, text, "sil"), Class::Keyword);
        assert_eq!(class_of(s, text, "hidden"), Class::Keyword);
        assert_eq!(class_of(s, text, "[ossa]"), Class::Attr);
        assert_eq!(class_of(s, text, "[init]"), Class::Attr);
        assert_eq!(class_of(s, text, "@f"), Class::Func);
        assert_eq!(class_of(s, text, "@owned"), Class::Attr);
        assert_eq!(class_of(s, text, "$@convention(thin) (Int32) -> Int32"), Class::Type);
        assert_eq!(class_of(s, text, "$(Builtin.Int32, Builtin.Int1)"), Class::Type);
        assert_eq!(class_of(s, text, "$Int32"), Class::Type);
        assert_eq!(class_of(s, text, "$*T"), Class::Type);
        assert_eq!(class_of(s, text, "bb0"), Class::Label);
        assert_eq!(class_of(s, text, "bb3"), Class::Label);
        assert_eq!(class_of(s, text, "%0"), Class::Value);
        assert_eq!(class_of(s, text, "struct_extract"), Class::Opcode);
        assert_eq!(class_of(s, text, "struct"), Class::Opcode);
        assert_eq!(class_of(s, text, "store"), Class::Opcode);
        assert_eq!(class_of(s, text, "cond_br"), Class::Opcode);
        assert_eq!(class_of(s, text, "#Int32._value"), Class::Member);
        assert_eq!(class_of(s, text, "\"sadd\""), Class::Str);
        assert_eq!(class_of(s, text, "-1"), Class::Number);
        assert_eq!(class_of(s, text, "// why"), Class::Comment);
        assert_eq!(class_of(s, text, "to"), Class::Plain);
        // A type stops before the words that follow it in instructions.
        assert_eq!(class_of(s, "  %1 = unchecked_ref_cast %0 : $B to $C", "$B"), Class::Type);
    }

    #[test]
    fn sil_keywords_and_types_are_the_parsers() {
        // The highlighter's own copy of the lists lacked these; core's lists have them.
        let text = "actor Counter {}\ninfix operator <=> : ComparisonPrecedence\n";
        assert_eq!(class_of(Lang::Sil, text, "actor"), Class::Keyword);
        assert_eq!(class_of(Lang::Sil, text, "operator"), Class::Keyword);
        // Types end where core's scanner says, also while being typed (no closing `)` yet).
        let generic = "$@convention(thin) <τ_0_0 where τ_0_0 : AnyObject> (@guaranteed τ_0_0) -> ()";
        let line = format!("  %1 = function_ref @g : {generic}\n  %2 = load %0 : $*Optional<(Int, String)>\n");
        assert_eq!(class_of(Lang::Sil, &line, generic), Class::Type);
        assert_eq!(class_of(Lang::Sil, &line, "$*Optional<(Int, String)>"), Class::Type);
        assert_eq!(class_of(Lang::Sil, "  %3 = load_weak %2 : $@sil_weak Optional<C>", "$@sil_weak Optional<C>"), Class::Type);
        let open = "  %4 = apply %1(%0) : $@convention(thin) (Int";
        assert_eq!(class_of(Lang::Sil, open, "$@convention(thin) (Int"), Class::Type);
        check_cover(Lang::Sil, open);
    }

    #[test]
    fn html_is_escaped_and_marks_errors() {
        let html = line_html(Lang::Bril, "  x: ptr<int> = const 1; # a<b & c", &[]);
        assert!(html.contains("&lt;"), "{html}");
        assert!(html.contains("&amp;"), "{html}");
        assert!(!html.contains("<b"), "{html}");
        assert_eq!(unescape(&strip_tags(&html)), "  x: ptr<int> = const 1; # a<b & c");

        // Column 12 (1-based) is the `c` of `const`: the whole word is underlined, nothing else.
        let html = line_html(Lang::Bril, "  x: int = const;", &[12]);
        assert!(html.contains("<span class=\"hl-op hl-err\">const</span>"), "{html}");
        assert_eq!(html.matches("hl-err").count(), 1, "{html}");
        // From the middle of a token to its end; the token's colour is kept on both parts.
        let html = line_html(Lang::Bril, "  x: int = const;", &[14]);
        assert!(html.contains("<span class=\"hl-op\">co</span><span class=\"hl-op hl-err\">nst</span>"), "{html}");
        // On a blank: one character. Past the end: an empty end-of-line marker.
        let html = line_html(Lang::Bril, "a  b", &[2]);
        assert!(html.contains("<span class=\"hl-err\"> </span>"), "{html}");
        let html = line_html(Lang::Bril, "@main {", &[99]);
        assert!(html.ends_with("<span class=\"hl-err hl-eol\"></span>"), "{html}");
        // Columns count characters, not bytes.
        let html = line_html(Lang::Sil, "// ééé\n%x", &[]);
        assert!(html.contains("ééé"));
        let html = line_html(Lang::Sil, "  %é = foo", &[8]);
        assert!(html.contains("<span class=\"hl-op hl-err\">foo</span>"), "{html}");
    }

    #[test]
    fn broken_and_odd_text_is_covered() {
        let odd = [
            "",
            "\n",
            "\n\n\r\n",
            "@",
            "%",
            "$",
            "#",
            ".",
            "'",
            "\"",
            "[",
            "-",
            "+",
            "->",
            "$(",
            "$@",
            "$@convention(",
            "$<T where T : P",
            "%0 = builtin \"unterminated",
            "@\"quoted name\" @\"open",
            "x: ptr<int = const",
            "  x: int = const 1e-5; y: float = const -inf;",
            "漢字 %値 = 命令 $型 // 注釈",
            "bb0(%0 : $*T, %1 : $*T):",
            "sil @f : $() -> () {",
            "[[RESULT:%[a-zA-Z0-9]+]] = tuple ()",
            "\t\t%x\t=\tfoo",
            "🙂 .🙂 @🙂 %🙂 $🙂 #🙂 '🙂' \"🙂\"",
        ];
        for text in odd {
            for lang in [Lang::Bril, Lang::Sil] {
                check_cover(lang, text);
                for col in 0..=(text.chars().count() as u32 + 2) {
                    let html = line_html(lang, text.split('\n').next().unwrap_or(""), &[col]);
                    assert!(html.matches("<span").count() == html.matches("</span>").count());
                }
            }
        }
        // Every prefix of a real line: what the user sees while typing it.
        let line = "  %6 = builtin \"sadd\"(%3 : $Builtin.Int32, %5 : $Builtin.Int1) : $(Builtin.Int32, Builtin.Int1)";
        for (i, _) in line.char_indices() {
            check_cover(Lang::Sil, &line[..i]);
            check_cover(Lang::Bril, &line[..i]);
        }
    }

    fn repo_file(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
    }

    #[test]
    fn every_example_is_covered_and_coloured() {
        let dir = repo_file("static/examples");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).expect("static/examples exists").flatten() {
            let path = entry.path();
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let lang = match path.extension().and_then(|e| e.to_str()) {
                Some("bril") => Lang::Bril,
                Some("sil") => Lang::Sil,
                _ => continue,
            };
            check_cover(lang, &text);
            let all = classes(lang, &text);
            for class in [Class::Func, Class::Label, Class::Opcode] {
                assert!(all.iter().any(|(_, c)| *c == class), "{}: no {class:?}", path.display());
            }
            n += 1;
        }
        assert!(n >= 3, "only {n} examples");
    }

    #[test]
    fn the_swift_corpus_is_covered_and_coloured() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/swift");
        let Ok(rd) = std::fs::read_dir(&dir) else {
            eprintln!("NOTICE: {} not found; skipping the SIL highlighting corpus test", dir.display());
            return;
        };
        let mut n = 0;
        for entry in rd.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "sil") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("UTF-8");
            check_cover(Lang::Sil, &text);
            // Every `bbN` label line starts with a Label and every `%x = op` has an Opcode.
            for line in text.lines() {
                let toks = tokenize_line(Lang::Sil, line);
                let first = toks.iter().find(|t| !line[t.range.clone()].trim().is_empty());
                let Some(first) = first else { continue };
                let word = &line[first.range.clone()];
                if word.starts_with("bb") && line.trim_end().ends_with(':') {
                    assert_eq!(first.class, Class::Label, "{line}");
                }
                if word.starts_with('%') && line.contains(" = ") && !line.contains("//") {
                    assert!(toks.iter().any(|t| t.class == Class::Opcode), "{line}");
                }
            }
            n += 1;
        }
        assert!(n >= 1);
    }

    #[test]
    fn the_bril_corpus_is_covered() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/bril");
        if !dir.is_dir() {
            eprintln!("NOTICE: {} not found; skipping the Bril highlighting corpus test", dir.display());
            return;
        }
        let mut stack = vec![dir];
        let mut n = 0;
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "bril") {
                    let text = std::fs::read_to_string(&path).expect("UTF-8");
                    check_cover(Lang::Bril, &text);
                    n += 1;
                }
            }
        }
        assert!(n > 100, "{n}");
    }
}
