//! Every type that appears in one function — its signature, block arguments, instruction
//! results, type operands and operand annotations — classified in the function's generic
//! context, with where each appears.

use super::check::{self, Warning};
use super::classify::{Class, Classifier, Source, Step, TypeEnv, Verdict};
use super::ty::{self, GenericParam, Req, Ty};
use crate::diag::Span;
use crate::ir::{Function, Lang, Piece, Type};
use crate::parse::sil::scan::type_end;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

/// Object or address (`$T` or `$*T`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Object,
    Address,
}

/// Where a type appears.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Use {
    pub span: Span,
    /// `%3 (argument of bb0)`, `alloc_stack`, `parameter 1 (@in)`.
    pub what: String,
}

/// One distinct type of the function.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// As written (whitespace collapsed), without `$`.
    pub text: String,
    pub category: Category,
    pub verdict: Verdict,
    pub uses: Vec<Use>,
}

/// The types of one function.
#[derive(Clone, Debug, Serialize)]
pub struct FunctionTypes {
    pub function: String,
    /// The function's generic parameters with their constraints (`T: AnyObject`).
    pub generics: Vec<String>,
    pub rows: Vec<Row>,
    pub warnings: Vec<Warning>,
    #[serde(skip)]
    env: Arc<TypeEnv>,
    #[serde(skip)]
    params: Vec<GenericParam>,
    #[serde(skip)]
    reqs: Vec<Req>,
    #[serde(skip)]
    index: HashMap<String, usize>,
}

/// Collapses runs of whitespace, so `$(Int,  Int)` and `$(Int, Int)` are one row.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for w in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// [`normalize`] without a copy when the text already is normalized (the common case).
fn normalized(text: &str) -> Cow<'_, str> {
    // On ASCII text a byte is whitespace exactly when `split_whitespace` says so.
    let ws = |c: &u8| (*c as char).is_whitespace();
    let b = text.as_bytes();
    let clean = text.is_ascii()
        && !b.first().is_some_and(ws)
        && !b.last().is_some_and(ws)
        && !b.windows(2).any(|w| ws(&w[0]) && ws(&w[1]))
        && !b.iter().any(|c| ws(c) && *c != b' ');
    if clean {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(normalize(text))
    }
}

/// The generic signature of a SIL function (from its `$@convention(…) <T …> (…) -> …` type).
pub fn signature(f: &Function) -> Option<ty::FnTy> {
    let text = f.sil.as_ref()?.ty.trim();
    let text = text.strip_prefix('$').unwrap_or(text);
    match ty::parse(text).ok()? {
        Ty::Function(fty) => Some(*fty),
        _ => None,
    }
}

impl FunctionTypes {
    pub fn new(f: &Function, env: Arc<TypeEnv>) -> FunctionTypes {
        let sig = signature(f);
        let (params, reqs) = sig.as_ref().map(|s| (s.generics.clone(), s.reqs.clone())).unwrap_or_default();
        let generics = params
            .iter()
            .map(|p| {
                let mut bounds: Vec<String> = p.bounds.iter().map(|b| b.to_string()).collect();
                for r in &reqs {
                    if let Req::Conforms(l, b) = r {
                        if l.as_simple_name() == Some(p.name.as_str()) {
                            bounds.push(b.to_string());
                        }
                    }
                }
                if bounds.is_empty() {
                    p.name.clone()
                } else {
                    format!("{}: {}", p.name, bounds.join(" & "))
                }
            })
            .collect();
        let mut ft = FunctionTypes {
            function: f.name.clone(),
            generics,
            rows: Vec::new(),
            warnings: Vec::new(),
            env,
            params,
            reqs,
            index: HashMap::new(),
        };
        let env = ft.env.clone();
        let c = Classifier::new(&env, &ft.params, &ft.reqs);
        if f.lang == Lang::Bril {
            ft.bril(f);
            return ft;
        }
        let head = Span::new(f.span.lo as usize, f.span.lo as usize + 3);
        if let Some(s) = &sig {
            for (k, p) in s.params.iter().enumerate() {
                let conv = p.conv.as_ref().map_or(String::new(), |c| format!(" (@{c})"));
                ft.add_parsed(&c, &p.ty, head, format!("parameter {}{conv}", k + 1));
            }
            for r in &s.results {
                let conv = r.conv.as_ref().map_or(String::new(), |c| format!(" (@{c})"));
                ft.add_parsed(&c, &r.ty, head, format!("result{conv}"));
            }
        }
        for b in &f.layout {
            for &p in &f.blocks[*b].params {
                let d = &f.values[p];
                if let Some(Type::Sil(t)) = &d.ty {
                    ft.add(&c, t, d.span, || format!("%{} (argument of {})", d.name, f.block_name(*b)));
                }
            }
            for &i in f.blocks[*b].insts.iter().chain(f.blocks[*b].term.iter()) {
                let inst = &f.insts[i];
                let op = inst.op.name();
                for &r in &inst.results {
                    let d = &f.values[r];
                    if let Some(Type::Sil(t)) = &d.ty {
                        ft.add(&c, t, d.span, || format!("%{} ({op})", d.name));
                    }
                }
                if let Some(Type::Sil(t)) = &inst.ty {
                    ft.add(&c, t, inst.span, || format!("`{op}` type operand"));
                }
                for p in &inst.sil {
                    if let Piece::Text(text) = p {
                        for r in dollar_type_spans(text) {
                            let t = text[r].trim();
                            if !t.is_empty() {
                                ft.add(&c, t, inst.span, || format!("`{op}` operand"));
                            }
                        }
                    }
                }
            }
        }
        ft.warnings = check::warnings(f, &|t| ft.class_of(t), ft.env.opaque_values());
        ft
    }

    fn bril(&mut self, f: &Function) {
        let mut seen: Vec<String> = Vec::new();
        for (_, v) in f.values.iter() {
            if let Some(t) = &v.ty {
                let text = t.to_string();
                if seen.contains(&text) {
                    if let Some(r) = self.rows.iter_mut().find(|r| r.text == text) {
                        r.uses.push(Use { span: v.span, what: v.name.to_string() });
                    }
                    continue;
                }
                seen.push(text.clone());
                let why = match t {
                    Type::Ptr(_) => "a Bril pointer: an address into manually managed memory, copied bit for bit",
                    _ => "a Bril value: a machine scalar, copied bit for bit",
                };
                self.index.insert(text.clone(), self.rows.len());
                self.rows.push(Row {
                    text,
                    category: Category::Object,
                    verdict: Verdict { class: Class::Trivial, why: vec![Step { text: why.into(), at: None, source: Source::Rule }], move_only: false, stub: None },
                    uses: vec![Use { span: v.span, what: v.name.to_string() }],
                });
            }
        }
    }

    /// A type from the signature, already parsed (its printed form may drop what the text
    /// had, so it is classified as parsed, not re-read).
    fn add_parsed(&mut self, c: &Classifier<'_>, t: &Ty, span: Span, what: String) {
        let key = normalize(&t.to_string());
        if !self.use_existing(&key, span, &what) {
            let category = if matches!(t, Ty::Address(_)) { Category::Address } else { Category::Object };
            self.index.insert(key.clone(), self.rows.len());
            self.rows.push(Row { text: key, category, verdict: c.classify(t), uses: vec![Use { span, what }] });
        }
    }

    /// Records a use of an existing row; false if there is none.
    fn use_existing(&mut self, key: &str, span: Span, what: &str) -> bool {
        let Some(&k) = self.index.get(key) else { return false };
        let uses = &mut self.rows[k].uses;
        if uses.len() < 64 && !uses.iter().any(|u| u.span == span && u.what == what) {
            uses.push(Use { span, what: what.to_string() });
        }
        true
    }

    /// A type seen at `span`; `what` says where, and is only written when the use is kept
    /// (a row keeps its first 64 uses): a function of 10^5 blocks mentions its few types
    /// hundreds of thousands of times.
    fn add(&mut self, c: &Classifier<'_>, text: &str, span: Span, what: impl FnOnce() -> String) {
        let key = normalized(text);
        if let Some(&k) = self.index.get(key.as_ref()) {
            let uses = &mut self.rows[k].uses;
            if uses.len() < 64 {
                let what = what();
                if !uses.iter().any(|u| u.span == span && u.what == what) {
                    uses.push(Use { span, what });
                }
            }
            return;
        }
        let key = key.into_owned();
        let (category, verdict) = classify_text(c, &key);
        self.index.insert(key.clone(), self.rows.len());
        self.rows.push(Row { text: key, category, verdict, uses: vec![Use { span, what: what() }] });
    }

    /// The row of a type text (without `$`), if it appears in the function.
    pub fn row(&self, text: &str) -> Option<&Row> {
        let key = normalize(text.trim().strip_prefix('$').unwrap_or(text.trim()));
        self.index.get(&key).map(|&k| &self.rows[k])
    }

    /// The class of any type text in this function's context (classified now if it does not
    /// appear in the function).
    pub fn class_of(&self, text: &str) -> Class {
        match self.row(text) {
            Some(r) => r.verdict.class,
            None => self.classify(text).1.class,
        }
    }

    /// Classifies a type text in this function's generic context.
    pub fn classify(&self, text: &str) -> (Category, Verdict) {
        let c = Classifier::new(&self.env, &self.params, &self.reqs);
        classify_text(&c, &normalize(text.trim().strip_prefix('$').unwrap_or(text.trim())))
    }

    /// Whether a type is trivial *for certain* (unknown is not): what DCE asks before it
    /// deletes a `fix_lifetime` or leaves a value without a destroy.
    pub fn is_trivial(&self, text: &str) -> bool {
        let text = text.trim();
        !text.starts_with('*') && self.class_of(text) == Class::Trivial
    }

    pub fn env(&self) -> &TypeEnv {
        &self.env
    }

    /// Counts per class (for summaries).
    pub fn counts(&self) -> [(Class, usize); 4] {
        let n = |c: Class| self.rows.iter().filter(|r| r.verdict.class == c).count();
        [Class::Trivial, Class::Loadable, Class::AddressOnly, Class::Unknown].map(|c| (c, n(c)))
    }
}

fn classify_text(c: &Classifier<'_>, key: &str) -> (Category, Verdict) {
    match ty::parse(key) {
        Ok(t) => {
            let cat = if matches!(t, Ty::Address(_)) { Category::Address } else { Category::Object };
            (cat, c.classify(&t))
        }
        Err(e) => (
            if key.starts_with('*') { Category::Address } else { Category::Object },
            Verdict {
                class: Class::Unknown,
                why: vec![Step { text: format!("`{key}` is a type this lab cannot read: {}", e.message), at: None, source: Source::Rule }],
                move_only: false,
                stub: None,
            },
        ),
    }
}

/// The `$T` type texts in a printed instruction fragment (outside string literals).
pub fn dollar_types(text: &str) -> Vec<String> {
    dollar_type_spans(text).into_iter().map(|r| text[r].trim().to_string()).filter(|t| !t.is_empty()).collect()
}

/// Where each type after a `$` is in `text` (byte ranges, without the `$`, up to where the
/// type ends): outside string literals, and not the `$` of a mangled symbol (`@$s4main…`).
pub fn dollar_type_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut in_str = false;
    let mut i = 0;
    let b = text.as_bytes();
    while i < b.len() {
        match b[i] {
            b'"' => in_str = !in_str,
            b'$' if !in_str && (i == 0 || b[i - 1] != b'@') => {
                let end = type_end(text, i + 1).max(i + 1);
                out.push(i + 1..end);
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}


#[cfg(test)]
mod tests {
    use super::{normalize, normalized};
    use std::borrow::Cow;

    /// `normalized` is `normalize` (the oracle), and borrows exactly when nothing changes: on
    /// every string of up to four characters over an alphabet with each kind of whitespace.
    #[test]
    fn normalized_agrees_with_normalize_and_copies_only_what_changes() {
        let alphabet = ['T', ' ', '\t', '\n', '\u{b}', '\u{a0}', '*', '<'];
        let mut texts = vec![String::new()];
        let (mut borrowed, mut owned) = (0, 0);
        for _ in 0..4 {
            texts = texts.iter().flat_map(|t| alphabet.iter().map(move |&c| format!("{t}{c}"))).collect();
            for t in &texts {
                let n = normalized(t);
                assert_eq!(n, normalize(t), "{t:?}");
                match n {
                    Cow::Borrowed(_) => borrowed += 1,
                    Cow::Owned(_) => {
                        owned += 1;
                        assert!(normalize(t) != *t || !t.is_ascii(), "{t:?} copied though already normal");
                    }
                }
            }
        }
        assert!(borrowed > 100 && owned > 100, "{borrowed} borrowed, {owned} copied");
    }
}
