//! The Swift declarations a SIL file carries (`struct`, `class`, `enum`, `protocol`,
//! `typealias`, `import`), read for what type lowering needs: generic parameters and their
//! constraints, stored properties (computed ones have no storage and are ignored), enum
//! payloads and `indirect`, class-bound protocols, superclasses, move-only markers.
//!
//! The SIL parser keeps these items verbatim ([`crate::ir::Item::Raw`]); this reads the
//! original source at their spans, so every declaration keeps its exact position. Anything a
//! declaration holds that lowering does not need (functions, initialisers, operators,
//! precedence groups, accessor bodies) is skipped by bracket balance. A declaration that does
//! not read is recorded as an error with its position; the types it would have declared are
//! then reported as unknown with that reason rather than guessed.

use super::ty::{self, GenericParam, Req, Ty};
use crate::diag::Span;
use crate::ir::{Item, Module};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Struct,
    Class,
    Enum,
    Protocol,
}

impl Kind {
    pub fn word(self) -> &'static str {
        match self {
            Kind::Struct => "struct",
            Kind::Class => "class",
            Kind::Enum => "enum",
            Kind::Protocol => "protocol",
        }
    }
}

/// A `struct`, `class`, `enum` or `protocol` (actors count as classes).
#[derive(Clone, Debug)]
pub struct Nominal {
    pub kind: Kind,
    /// Qualified for nested declarations (`Outer.Inner`).
    pub name: String,
    /// The name where it is declared.
    pub span: Span,
    pub params: Vec<GenericParam>,
    pub reqs: Vec<Req>,
    /// The inheritance clause: superclass, protocols, `AnyObject`, `~Copyable`.
    pub inherits: Vec<Ty>,
    /// Attributes without `@` (`objc`, `frozen`, `_moveOnly`).
    pub attrs: Vec<String>,
    /// Modifiers (`public`, `final`, `indirect`).
    pub modifiers: Vec<String>,
    /// Stored instance properties, in order.
    pub fields: Vec<Field>,
    /// Computed properties, listed so a why-chain can say they were ignored.
    pub computed: Vec<Field>,
    pub cases: Vec<Case>,
}

impl Nominal {
    pub fn is_move_only(&self) -> bool {
        self.attrs.iter().any(|a| a == "_moveOnly" || a == "moveOnly")
            || self.inherits.iter().any(|t| t.as_simple_name() == Some("~Copyable"))
    }
    pub fn is_indirect(&self) -> bool {
        self.modifiers.iter().any(|m| m == "indirect")
    }
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub ty: Ty,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub payload: Option<Ty>,
    pub indirect: bool,
    pub span: Span,
}

/// `typealias Name<Params> = Type`.
#[derive(Clone, Debug)]
pub struct Alias {
    pub name: String,
    pub params: Vec<GenericParam>,
    pub ty: Ty,
    pub span: Span,
}

/// A declaration that did not read.
#[derive(Clone, Debug)]
pub struct DeclError {
    /// The declared name, when it was read before the error.
    pub name: Option<String>,
    pub span: Span,
    pub message: String,
}

/// Everything the file declares.
#[derive(Clone, Debug, Default)]
pub struct Decls {
    pub nominals: Vec<Nominal>,
    pub aliases: Vec<Alias>,
    pub imports: Vec<String>,
    pub errors: Vec<DeclError>,
    /// The file says (in a RUN line or a comment) it is opaque-values SIL
    /// (`-enable-sil-opaque-values`): address-only object values are expected there.
    pub opaque_values: bool,
    index: HashMap<String, Entry>,
}

#[derive(Clone, Copy, Debug)]
enum Entry {
    Nominal(usize),
    Alias(usize),
    Error(usize),
}

/// What a name resolves to among the file's declarations.
#[derive(Clone, Copy, Debug)]
pub enum Found<'a> {
    Nominal(&'a Nominal),
    Alias(&'a Alias),
    Broken(&'a DeclError),
}

impl Decls {
    /// Reads the declarations of a SIL module (nothing for Bril).
    pub fn of_module(m: &Module) -> Decls {
        let text = &m.source.text;
        let mut d = Decls { opaque_values: text.contains("enable-sil-opaque-values"), ..Decls::default() };
        for item in &m.items {
            if let Item::Raw { span, .. } = item {
                let (lo, hi) = (span.lo as usize, (span.hi as usize).min(text.len()));
                if lo < hi && text.is_char_boundary(lo) && text.is_char_boundary(hi) {
                    Reader { s: text, i: lo, end: hi, out: &mut d }.items("");
                }
            }
        }
        d.reindex();
        d
    }

    /// Reads declarations from a text of Swift declarations alone (tests, what-ifs).
    pub fn parse(text: &str) -> Decls {
        let mut d = Decls { opaque_values: text.contains("enable-sil-opaque-values"), ..Decls::default() };
        Reader { s: text, i: 0, end: text.len(), out: &mut d }.items("");
        d.reindex();
        d
    }

    fn reindex(&mut self) {
        self.index.clear();
        // Later declarations do not replace earlier ones (Swift would reject a redefinition;
        // the first is the one the reader sees first in the file). Qualified names first,
        // then the last component of nested names, where it is unambiguous.
        for (k, e) in self.errors.iter().enumerate() {
            if let Some(n) = &e.name {
                self.index.entry(n.clone()).or_insert(Entry::Error(k));
            }
        }
        for (k, a) in self.aliases.iter().enumerate() {
            self.index.insert(a.name.clone(), Entry::Alias(k));
        }
        for (k, n) in self.nominals.iter().enumerate() {
            self.index.insert(n.name.clone(), Entry::Nominal(k));
        }
        for (k, n) in self.nominals.iter().enumerate() {
            if let Some((_, last)) = n.name.rsplit_once('.') {
                self.index.entry(last.to_string()).or_insert(Entry::Nominal(k));
            }
        }
    }

    pub fn lookup(&self, name: &str) -> Option<Found<'_>> {
        Some(match *self.index.get(name)? {
            Entry::Nominal(k) => Found::Nominal(&self.nominals[k]),
            Entry::Alias(k) => Found::Alias(&self.aliases[k]),
            Entry::Error(k) => Found::Broken(&self.errors[k]),
        })
    }

    pub fn nominal(&self, name: &str) -> Option<&Nominal> {
        match self.lookup(name)? {
            Found::Nominal(n) => Some(n),
            _ => None,
        }
    }
}

const MODIFIERS: &[&str] = &[
    "public", "internal", "private", "fileprivate", "open", "final", "package", "indirect", "static", "class",
    "mutating", "nonmutating", "override", "required", "convenience", "lazy", "weak", "unowned", "optional",
    "dynamic", "nonisolated", "distributed", "consuming", "borrowing", "__consuming", "isolated",
];

struct Reader<'a, 'd> {
    s: &'a str,
    i: usize,
    end: usize,
    out: &'d mut Decls,
}

/// Where a member declaration ended up.
enum Member {
    Field(Field, bool),
    Cases(Vec<Case>),
    Nested,
    Other,
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl<'a, 'd> Reader<'a, 'd> {
    fn rest(&self) -> &'a str {
        &self.s[self.i..self.end]
    }

    /// Skips blanks; with `newlines`, also line breaks and comments.
    fn skip(&mut self, newlines: bool) {
        loop {
            let r = self.rest();
            let t = if newlines { r.trim_start() } else { r.trim_start_matches([' ', '\t', '\r']) };
            self.i += r.len() - t.len();
            if t.starts_with("//") {
                self.i += t.find('\n').unwrap_or(t.len());
            } else if t.starts_with("/*") {
                self.i += t.find("*/").map_or(t.len(), |k| k + 2);
            } else {
                return;
            }
        }
    }

    fn word(&mut self) -> Option<&'a str> {
        self.skip(true);
        let r = self.rest();
        let n: usize = r.chars().take_while(|&c| is_ident_char(c)).map(char::len_utf8).sum();
        (n > 0).then(|| &r[..n])
    }

    fn eat_word(&mut self, w: &str) -> bool {
        if self.word() == Some(w) {
            self.i += w.len();
            true
        } else {
            false
        }
    }

    fn eat(&mut self, p: &str) -> bool {
        self.skip(true);
        if self.rest().starts_with(p) {
            self.i += p.len();
            true
        } else {
            false
        }
    }

    fn error(&mut self, name: Option<String>, at: usize, message: impl Into<String>) {
        let hi = (at + 1).min(self.end).max(at);
        self.out.errors.push(DeclError { name, span: Span::new(at, hi), message: message.into() });
    }

    /// Skips the rest of a declaration: to the end of the line, or through the `{ … }` it
    /// opens (strings and comments respected).
    fn skip_decl(&mut self) {
        let mut depth = 0usize;
        let mut in_str = false;
        let mut esc = false;
        while let Some(c) = self.rest().chars().next() {
            if in_str {
                if esc {
                    esc = false;
                } else if c == '\\' {
                    esc = true;
                } else if c == '"' {
                    in_str = false;
                }
                self.i += c.len_utf8();
                continue;
            }
            match c {
                '"' => in_str = true,
                '/' if self.rest().starts_with("//") => {
                    self.i += self.rest().find('\n').unwrap_or(self.rest().len());
                    continue;
                }
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' => {
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                    if depth == 0 && c == '}' {
                        self.i += 1;
                        return;
                    }
                }
                '\n' | ';' if depth == 0 => {
                    self.i += 1;
                    // A `{` on the next line still belongs to this declaration.
                    let save = self.i;
                    self.skip(true);
                    if !self.rest().starts_with('{') {
                        self.i = save;
                        return;
                    }
                    continue;
                }
                _ => {}
            }
            self.i += c.len_utf8();
        }
    }

    /// Skips a balanced `{ … }` at the cursor; returns its inside.
    fn braces(&mut self) -> Option<(usize, usize)> {
        self.skip(true);
        if !self.rest().starts_with('{') {
            return None;
        }
        let open = self.i;
        let mut depth = 0usize;
        let mut in_str = false;
        for (k, c) in self.rest().char_indices() {
            match c {
                '"' => in_str = !in_str,
                '{' if !in_str => depth += 1,
                '}' if !in_str => {
                    depth -= 1;
                    if depth == 0 {
                        self.i = open + k + 1;
                        return Some((open + 1, open + k));
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// `@attr` and `@attr(…)` at the cursor.
    fn attrs(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            self.skip(true);
            if !self.rest().starts_with('@') {
                return out;
            }
            self.i += 1;
            let Some(w) = self.word() else { return out };
            self.i += w.len();
            if self.rest().starts_with('(') {
                let mut depth = 0usize;
                for (k, c) in self.rest().char_indices() {
                    match c {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += k + 1;
                                break;
                            }
                        }
                        '\n' => break,
                        _ => {}
                    }
                }
            }
            out.push(w.to_string());
        }
    }

    /// A type at the cursor (through the type grammar); errors become `None` with a record.
    fn ty(&mut self, owner: &str) -> Option<Ty> {
        self.skip(false);
        match ty::parse_prefix(self.rest()) {
            Ok((t, n)) => {
                self.i += n;
                Some(t)
            }
            Err(e) => {
                self.error(Some(owner.to_string()), self.i + e.at, format!("in the declaration of `{owner}`: {}", e.message));
                None
            }
        }
    }

    /// Top-level items (or a nominal's members when `prefix` names it) up to `end`.
    fn items(&mut self, prefix: &str) -> Vec<Member> {
        let mut members = Vec::new();
        loop {
            self.skip(true);
            if self.i >= self.end {
                return members;
            }
            let before = self.i;
            let m = self.item(prefix);
            members.push(m);
            if self.i == before {
                // Never loop on something we cannot read.
                let c = self.rest().chars().next().map_or(1, char::len_utf8);
                self.i += c;
            }
        }
    }

    fn item(&mut self, prefix: &str) -> Member {
        let attrs = self.attrs();
        let mut modifiers = Vec::new();
        let mut storage: Option<ty::RefStorage> = None;
        while let Some(w) = self.word() {
            // `class` is a modifier only before `var`/`func`.
            if w == "class" {
                let save = self.i;
                self.i += w.len();
                let next = self.word();
                if matches!(next, Some("var" | "let" | "func" | "subscript")) {
                    modifiers.push("static".to_string());
                    continue;
                }
                self.i = save;
                break;
            }
            if !MODIFIERS.contains(&w) {
                break;
            }
            self.i += w.len();
            if w == "weak" {
                storage = Some(ty::RefStorage::Weak);
            } else if w == "unowned" {
                storage = Some(ty::RefStorage::Unowned);
                if self.rest().starts_with("(unsafe)") {
                    self.i += "(unsafe)".len();
                    storage = Some(ty::RefStorage::Unmanaged);
                } else if self.rest().starts_with("(safe)") {
                    self.i += "(safe)".len();
                }
            }
            if self.rest().starts_with("(set)") {
                self.i += "(set)".len();
            }
            modifiers.push(w.to_string());
        }
        let Some(kw) = self.word() else {
            self.skip_decl();
            return Member::Other;
        };
        match kw {
            "struct" | "class" | "enum" | "protocol" | "actor" => {
                self.i += kw.len();
                let kind = match kw {
                    "struct" => Kind::Struct,
                    "enum" => Kind::Enum,
                    "protocol" => Kind::Protocol,
                    _ => Kind::Class,
                };
                self.nominal(kind, prefix, attrs, modifiers);
                Member::Nested
            }
            "typealias" => {
                self.i += kw.len();
                self.alias(prefix);
                Member::Nested
            }
            "import" => {
                self.i += kw.len();
                self.skip(false);
                let r = self.rest();
                let line = r.split('\n').next().unwrap_or("").trim();
                if let Some(last) = line.split_whitespace().last() {
                    self.out.imports.push(last.to_string());
                }
                self.skip_decl();
                Member::Other
            }
            "var" | "let" => {
                self.i += kw.len();
                self.property(prefix, &attrs, &modifiers, storage)
            }
            "case" => {
                self.i += kw.len();
                Member::Cases(self.cases(prefix, modifiers.iter().any(|m| m == "indirect")))
            }
            _ => {
                self.skip_decl();
                Member::Other
            }
        }
    }

    fn nominal(&mut self, kind: Kind, prefix: &str, attrs: Vec<String>, modifiers: Vec<String>) {
        let Some(name) = self.word() else {
            let at = self.i;
            self.error(None, at, format!("expected a name after `{}`", kind.word()));
            self.skip_decl();
            return;
        };
        let span = Span::new(self.i, self.i + name.len());
        self.i += name.len();
        let qualified = if prefix.is_empty() { name.to_string() } else { format!("{prefix}.{name}") };
        let mut n = Nominal {
            kind,
            name: qualified.clone(),
            span,
            params: Vec::new(),
            reqs: Vec::new(),
            inherits: Vec::new(),
            attrs,
            modifiers,
            fields: Vec::new(),
            computed: Vec::new(),
            cases: Vec::new(),
        };
        if self.rest().starts_with('<') {
            match ty::parse_generic_params(self.rest()) {
                Ok((p, r, k)) => {
                    n.params = p;
                    n.reqs = r;
                    self.i += k;
                }
                Err(e) => {
                    self.error(Some(qualified), self.i + e.at, format!("in the generic parameters of `{name}`: {}", e.message));
                    self.skip_decl();
                    return;
                }
            }
        }
        if self.eat(":") {
            loop {
                self.skip(true);
                match ty::parse_bound(self.rest()) {
                    Ok((t, k)) => {
                        self.i += k;
                        n.inherits.push(t);
                    }
                    Err(e) => {
                        self.error(Some(qualified), self.i + e.at, format!("in what `{name}` inherits: {}", e.message));
                        self.skip_decl();
                        return;
                    }
                }
                if !self.eat(",") {
                    break;
                }
            }
        }
        if self.eat_word("where") {
            self.skip(true);
            match ty::parse_where(self.rest()) {
                Ok((r, k)) => {
                    n.reqs.extend(r);
                    self.i += k;
                }
                Err(e) => {
                    self.error(Some(qualified), self.i + e.at, format!("in the `where` clause of `{name}`: {}", e.message));
                    self.skip_decl();
                    return;
                }
            }
        }
        let Some((lo, hi)) = self.braces() else {
            let at = self.i;
            self.error(Some(qualified), at, format!("expected `{{` to open the body of {} `{name}`", kind.word()));
            self.skip_decl();
            return;
        };
        // Swift writes a `;` after a body now and then (`};` in address_lowering.sil).
        let after = self.i;
        let mut body = Reader { s: self.s, i: lo, end: hi, out: &mut *self.out };
        let members = body.items(&qualified);
        for m in members {
            match m {
                Member::Field(f, true) => n.fields.push(f),
                Member::Field(f, false) => n.computed.push(f),
                Member::Cases(cs) => n.cases.extend(cs),
                Member::Nested | Member::Other => {}
            }
        }
        self.i = after;
        if self.rest().trim_start_matches([' ', '\t']).starts_with(';') {
            self.eat(";");
        }
        self.out.nominals.push(n);
    }

    fn alias(&mut self, prefix: &str) {
        let Some(name) = self.word() else {
            let at = self.i;
            self.error(None, at, "expected a name after `typealias`");
            self.skip_decl();
            return;
        };
        let span = Span::new(self.i, self.i + name.len());
        self.i += name.len();
        let qualified = if prefix.is_empty() { name.to_string() } else { format!("{prefix}.{name}") };
        let mut params = Vec::new();
        if self.rest().starts_with('<') {
            match ty::parse_generic_params(self.rest()) {
                Ok((p, _, k)) => {
                    params = p;
                    self.i += k;
                }
                Err(e) => {
                    self.error(Some(qualified), self.i + e.at, e.message);
                    self.skip_decl();
                    return;
                }
            }
        }
        if !self.eat("=") {
            let at = self.i;
            self.error(Some(qualified), at, format!("expected `=` after `typealias {name}`"));
            self.skip_decl();
            return;
        }
        match self.ty(&qualified) {
            // The declaration ends with its type: the next line is the next declaration.
            Some(t) => {
                self.out.aliases.push(Alias { name: qualified, params, ty: t, span });
                self.skip_decl_tail();
            }
            None => self.skip_decl(),
        }
    }

    /// `var name: Type [= value] [{ accessors }]` — stored unless it has accessors that
    /// compute it (`{ get }`, `{ get set }` without `@_hasStorage`), or is static.
    fn property(&mut self, owner: &str, attrs: &[String], modifiers: &[String], storage: Option<ty::RefStorage>) -> Member {
        let Some(name) = self.word() else {
            self.skip_decl();
            return Member::Other;
        };
        let span = Span::new(self.i, self.i + name.len());
        self.i += name.len();
        if !self.eat(":") {
            // `var x = 1`: no written type; we cannot read the type of an expression.
            let at = span.lo as usize;
            if !owner.is_empty() && !modifiers.iter().any(|m| m == "static") {
                self.error(Some(owner.to_string()), at, format!("stored property `{name}` of `{owner}` has no written type"));
            }
            self.skip_decl();
            return Member::Other;
        }
        let Some(mut t) = self.ty(owner) else {
            self.skip_decl();
            return Member::Other;
        };
        if let Some(k) = storage {
            t = Ty::Storage(k, Box::new(t));
        }
        let has_storage_attr = attrs.iter().any(|a| a == "_hasStorage");
        let mut computed = false;
        self.skip(false);
        if self.rest().starts_with('=') {
            // An initial value: stored. Skip the expression to the end of the line.
            let nl = self.rest().find('\n').unwrap_or(self.rest().len());
            let brace = self.rest()[..nl].find('{');
            self.i += brace.unwrap_or(nl);
        }
        self.skip(false);
        if let Some((lo, hi)) = self.braces() {
            let body = &self.s[lo..hi];
            let observers_only = body.contains("willSet") || body.contains("didSet");
            computed = !observers_only;
        }
        let stored = !modifiers.iter().any(|m| m == "static") && (has_storage_attr || !computed);
        self.skip_decl_tail();
        Member::Field(Field { name: name.to_string(), ty: t, span }, stored)
    }

    /// After a member: the rest of its line (`;`, a trailing comment).
    fn skip_decl_tail(&mut self) {
        self.skip(false);
        if self.rest().starts_with(';') {
            self.i += 1;
        }
    }

    /// `case a, b(Int), c(x: T, y: U)`.
    fn cases(&mut self, owner: &str, indirect: bool) -> Vec<Case> {
        let mut out = Vec::new();
        while let Some(name) = self.word() {
            let span = Span::new(self.i, self.i + name.len());
            self.i += name.len();
            let mut payload = None;
            if self.rest().starts_with('(') {
                match ty::parse_prefix(self.rest()) {
                    Ok((t, k)) => {
                        self.i += k;
                        payload = Some(t);
                    }
                    Err(e) => {
                        self.error(Some(owner.to_string()), self.i + e.at, format!("in case `{name}` of `{owner}`: {}", e.message));
                        self.skip_decl();
                        return out;
                    }
                }
            }
            // A raw value (`case a = 1`) does not change the layout.
            self.skip(false);
            if self.rest().starts_with('=') {
                let nl = self.rest().find([',', '\n']).unwrap_or(self.rest().len());
                self.i += nl;
            }
            out.push(Case { name: name.to_string(), payload, indirect, span });
            self.skip(false);
            if !self.rest().starts_with(',') {
                break;
            }
            self.i += 1;
        }
        self.skip_decl_tail();
        out
    }
}
