//! The grammar of SIL type text — what follows `$` in a SIL file, and the Swift types written
//! in the declarations SIL files carry (`var value: T`, `case some(T)`).
//!
//! The IR keeps a SIL type as its text; classification needs its structure: is it an address,
//! a tuple, a function with which convention, a metatype, a box, a pack, a nominal type with
//! which arguments. [`parse`] builds that structure and [`Ty`]'s `Display` prints it back in
//! the form `sil-opt` prints (sugar such as `T?` and `[T]` comes back as `Optional<T>` and
//! `Array<T>`, which is what SIL itself prints).
//!
//! The parser never fails on a type the SIL parser accepted: what it does not model (an
//! unknown `@attribute`, `@substituted … for <…>`) is kept or skipped with the rest intact, and
//! a nesting deeper than [`MAX_DEPTH`] is an error, not a stack overflow.

use std::fmt;

/// Nesting beyond this is refused (a type this deep is hostile input, not Swift).
pub const MAX_DEPTH: usize = 96;

/// A parsed SIL or Swift type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ty {
    /// `*T`: the address of a `T`.
    Address(Box<Ty>),
    /// `Int`, `Swift.Int`, `Box<Any>`, `Outer.Inner`, `T.Element`, `Builtin.Int64`.
    Named(Vec<Seg>),
    /// `(A, B)`, `(x: A, y: B)`, `()`. A one-element unlabelled tuple is just its element.
    Tuple(Vec<Elem>),
    Function(Box<FnTy>),
    /// `@thick T.Type`, `T.Type`, `any P.Type`, `P.Protocol`.
    Metatype { repr: Option<String>, instance: Box<Ty> },
    /// `any P`, `any P & Q`, `P & Q` (a composition), `any P.Type` is a metatype instead.
    Existential(Vec<Ty>),
    /// `@sil_weak T`, `@sil_unowned T`, `@sil_unmanaged T`.
    Storage(RefStorage, Box<Ty>),
    /// `@box T`, `{ var T }`, `<τ_0_0> { var τ_0_0 } <Int>`.
    Box { params: Vec<GenericParam>, fields: Vec<(bool, Ty)>, args: Vec<Ty> },
    /// `Pack{A, B}` (with an optional `@pack_owned`-style attribute kept in `Attributed`).
    Pack(Vec<Ty>),
    /// `repeat each T`, `each T`, `@pack_element("…") T`.
    PackElement(Box<Ty>),
    /// `@opened("…", any P) Self`, `@opened("…") P`: an archetype opened from an existential;
    /// `proto` is the constraint it was opened from, `id` the UUID that names it.
    Opened { id: String, proto: Box<Ty> },
    /// `some P`: an opaque result type.
    Opaque(Box<Ty>),
    /// `@moveOnly T`, `@sil_moveonly T`.
    MoveOnly(Box<Ty>),
    /// Any other attribute in front of a type (`@dynamic_self`, `@block_storage`, …): kept
    /// for printing, transparent to classification.
    Attributed(String, Box<Ty>),
}

/// One `.`-separated component of a nominal type: `Box<Int>` of `Swift.Box<Int>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Seg {
    pub name: String,
    pub args: Vec<Ty>,
}

/// A tuple element or a function parameter/result.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Elem {
    pub label: Option<String>,
    /// Parameter or result convention (`in`, `owned`, `out`, `error`, …) without `@`.
    pub conv: Option<String>,
    pub ty: Ty,
}

/// A function type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FnTy {
    /// Attributes in order, without `@` (`convention(thin)`, `callee_guaranteed`,
    /// `noescape`, `async`, …).
    pub attrs: Vec<String>,
    /// The generic parameters of every group, in order (`<τ_0_0 where τ_0_0 : P><τ_1_0>`
    /// has two groups, one parameter each).
    pub generics: Vec<GenericParam>,
    /// `where` requirements of the signature (`T : AnyObject`, `T == Int`), every group's.
    pub reqs: Vec<Req>,
    /// Where each group after the first starts: its first index into `generics` and into
    /// `reqs` (empty: one group). Printed as written: `<τ_0_0 where …><τ_1_0>`.
    pub groups: Vec<(usize, usize)>,
    pub params: Vec<Elem>,
    pub results: Vec<Elem>,
    /// `throws`, `async` written after the parameters.
    pub effects: Vec<String>,
}

/// A generic parameter with the constraints written inline (`T: AnyObject`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GenericParam {
    pub name: String,
    pub bounds: Vec<Ty>,
}

/// A `where` requirement.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Req {
    /// `T: P`, `T: _Trivial(64)`, `T: ~Copyable`.
    Conforms(Ty, Ty),
    /// `T == Int`.
    Same(Ty, Ty),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RefStorage {
    Weak,
    Unowned,
    Unmanaged,
}

impl Ty {
    /// A plain name (`Int`, `T`).
    pub fn name(n: &str) -> Ty {
        Ty::Named(vec![Seg { name: n.to_string(), args: Vec::new() }])
    }

    /// The number of nodes in the type, counting up to `cap` (so a huge type costs `cap`).
    pub fn size_up_to(&self, cap: usize) -> usize {
        let mut n = 0;
        self.count(&mut n, cap);
        n
    }

    fn count(&self, n: &mut usize, cap: usize) {
        *n += 1;
        if *n >= cap {
            return;
        }
        let kids: Vec<&Ty> = match self {
            Ty::Address(t) | Ty::Storage(_, t) | Ty::PackElement(t) | Ty::Opaque(t) | Ty::MoveOnly(t) | Ty::Attributed(_, t) => vec![t],
            Ty::Opened { proto, .. } => vec![proto],
            Ty::Metatype { instance, .. } => vec![instance],
            Ty::Named(segs) => segs.iter().flat_map(|s| s.args.iter()).collect(),
            Ty::Tuple(es) => es.iter().map(|e| &e.ty).collect(),
            Ty::Function(f) => f.params.iter().chain(&f.results).map(|e| &e.ty).collect(),
            Ty::Existential(ps) | Ty::Pack(ps) => ps.iter().collect(),
            Ty::Box { fields, args, .. } => fields.iter().map(|(_, t)| t).chain(args).collect(),
        };
        for k in kids {
            if *n >= cap {
                return;
            }
            k.count(n, cap);
        }
    }

    /// The single name of a one-segment type without arguments (`T`, `Int`).
    pub fn as_simple_name(&self) -> Option<&str> {
        match self {
            Ty::Named(segs) if segs.len() == 1 && segs[0].args.is_empty() => Some(&segs[0].name),
            _ => None,
        }
    }

    /// Replaces every simple name that `map` binds (generic parameters) by its binding.
    /// Names under a box's own generic parameters are left alone.
    pub fn subst(&self, map: &dyn Fn(&str) -> Option<Ty>) -> Ty {
        let s = |t: &Ty| t.subst(map);
        match self {
            Ty::Named(segs) => {
                if let Some(first) = segs.first() {
                    if first.args.is_empty() {
                        if let Some(b) = map(&first.name) {
                            if segs.len() == 1 {
                                return b;
                            }
                            // `T.Element` with T bound: a member of the binding.
                            let mut out = match b {
                                Ty::Named(bs) => bs,
                                other => return Ty::Named(std::iter::once(seg_of(other)).chain(segs[1..].iter().map(|g| subst_seg(g, map))).collect()),
                            };
                            out.extend(segs[1..].iter().map(|g| subst_seg(g, map)));
                            return Ty::Named(out);
                        }
                    }
                }
                Ty::Named(segs.iter().map(|g| subst_seg(g, map)).collect())
            }
            Ty::Address(t) => Ty::Address(Box::new(s(t))),
            Ty::Tuple(es) => Ty::Tuple(es.iter().map(|e| Elem { ty: s(&e.ty), ..e.clone() }).collect()),
            Ty::Function(f) => {
                let shadow: Vec<&str> = f.generics.iter().map(|g| g.name.as_str()).collect();
                let inner = |n: &str| if shadow.contains(&n) { None } else { map(n) };
                Ty::Function(Box::new(FnTy {
                    params: f.params.iter().map(|e| Elem { ty: e.ty.subst(&inner), ..e.clone() }).collect(),
                    results: f.results.iter().map(|e| Elem { ty: e.ty.subst(&inner), ..e.clone() }).collect(),
                    ..(**f).clone()
                }))
            }
            Ty::Metatype { repr, instance } => Ty::Metatype { repr: repr.clone(), instance: Box::new(s(instance)) },
            Ty::Existential(ps) => Ty::Existential(ps.iter().map(s).collect()),
            Ty::Storage(k, t) => Ty::Storage(*k, Box::new(s(t))),
            Ty::Box { params, fields, args } => Ty::Box {
                params: params.clone(),
                fields: fields.clone(),
                args: args.iter().map(s).collect(),
            },
            Ty::Pack(ts) => Ty::Pack(ts.iter().map(s).collect()),
            Ty::PackElement(t) => Ty::PackElement(Box::new(s(t))),
            Ty::Opened { id, proto } => Ty::Opened { id: id.clone(), proto: Box::new(s(proto)) },
            Ty::Opaque(t) => Ty::Opaque(Box::new(s(t))),
            Ty::MoveOnly(t) => Ty::MoveOnly(Box::new(s(t))),
            Ty::Attributed(a, t) => Ty::Attributed(a.clone(), Box::new(s(t))),
        }
    }
}

fn subst_seg(g: &Seg, map: &dyn Fn(&str) -> Option<Ty>) -> Seg {
    Seg { name: g.name.clone(), args: g.args.iter().map(|a| a.subst(map)).collect() }
}

fn seg_of(t: Ty) -> Seg {
    Seg { name: t.to_string(), args: Vec::new() }
}

// ---- printing ----

fn list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T], sep: &str) -> fmt::Result {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{x}")?;
    }
    Ok(())
}

impl fmt::Display for Seg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if !self.args.is_empty() {
            f.write_str("<")?;
            list(f, &self.args, ", ")?;
            f.write_str(">")?;
        }
        Ok(())
    }
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(l) = &self.label {
            write!(f, "{l}: ")?;
        }
        if let Some(c) = &self.conv {
            write!(f, "@{c} ")?;
        }
        write!(f, "{}", self.ty)
    }
}

impl fmt::Display for GenericParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if !self.bounds.is_empty() {
            f.write_str(": ")?;
            list(f, &self.bounds, " & ")?;
        }
        Ok(())
    }
}

impl fmt::Display for Req {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Req::Conforms(a, b) => write!(f, "{a} : {b}"),
            Req::Same(a, b) => write!(f, "{a} == {b}"),
        }
    }
}

fn generic_sig(f: &mut fmt::Formatter<'_>, params: &[GenericParam], reqs: &[Req]) -> fmt::Result {
    if params.is_empty() {
        return Ok(());
    }
    f.write_str("<")?;
    list(f, params, ", ")?;
    if !reqs.is_empty() {
        f.write_str(" where ")?;
        list(f, reqs, ", ")?;
    }
    f.write_str(">")
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Address(t) => write!(f, "*{t}"),
            Ty::Named(segs) => list(f, segs, "."),
            Ty::Tuple(es) => {
                f.write_str("(")?;
                list(f, es, ", ")?;
                f.write_str(")")
            }
            Ty::Function(func) => {
                for a in &func.attrs {
                    write!(f, "@{a} ")?;
                }
                // Each group with the requirements written in it.
                let (mut p0, mut r0) = (0, 0);
                let (np, nr) = (func.generics.len(), func.reqs.len());
                for &(p1, r1) in func.groups.iter().chain([(np, nr)].iter()) {
                    let (p1, r1) = (p1.clamp(p0, np), r1.clamp(r0, nr));
                    generic_sig(f, &func.generics[p0..p1], &func.reqs[r0..r1])?;
                    (p0, r0) = (p1, r1);
                }
                if !func.generics.is_empty() {
                    f.write_str(" ")?;
                }
                f.write_str("(")?;
                list(f, &func.params, ", ")?;
                f.write_str(")")?;
                for e in &func.effects {
                    write!(f, " {e}")?;
                }
                f.write_str(" -> ")?;
                match func.results.as_slice() {
                    [one] if one.label.is_none() && (one.conv.is_some() || !matches!(one.ty, Ty::Tuple(_))) => write!(f, "{one}"),
                    rs => {
                        f.write_str("(")?;
                        list(f, rs, ", ")?;
                        f.write_str(")")
                    }
                }
            }
            Ty::Metatype { repr, instance } => {
                if let Some(r) = repr {
                    write!(f, "@{r} ")?;
                }
                match **instance {
                    Ty::Existential(ref ps) => {
                        f.write_str("any ")?;
                        list(f, ps, " & ")?;
                        f.write_str(".Type")
                    }
                    ref t @ (Ty::Function(_) | Ty::Tuple(_)) => write!(f, "({t}).Type"),
                    ref t => write!(f, "{t}.Type"),
                }
            }
            Ty::Existential(ps) => {
                f.write_str("any ")?;
                list(f, ps, " & ")
            }
            Ty::Storage(k, t) => {
                let a = match k {
                    RefStorage::Weak => "sil_weak",
                    RefStorage::Unowned => "sil_unowned",
                    RefStorage::Unmanaged => "sil_unmanaged",
                };
                write!(f, "@{a} {t}")
            }
            Ty::Box { params, fields, args } => {
                if !params.is_empty() {
                    generic_sig(f, params, &[])?;
                    f.write_str(" ")?;
                }
                f.write_str("{ ")?;
                for (i, (m, t)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{} {t}", if *m { "var" } else { "let" })?;
                }
                f.write_str(" }")?;
                if !args.is_empty() {
                    f.write_str(" <")?;
                    list(f, args, ", ")?;
                    f.write_str(">")?;
                }
                Ok(())
            }
            Ty::Pack(ts) => {
                f.write_str("Pack{")?;
                list(f, ts, ", ")?;
                f.write_str("}")
            }
            Ty::PackElement(t) => write!(f, "repeat each {t}"),
            Ty::Opened { id, proto } => match **proto {
                Ty::Existential(_) => write!(f, "@opened(\"{id}\", {proto}) Self"),
                _ => write!(f, "@opened(\"{id}\") {proto}"),
            },
            Ty::Opaque(t) => write!(f, "some {t}"),
            Ty::MoveOnly(t) => write!(f, "@moveOnly {t}"),
            Ty::Attributed(a, t) => write!(f, "@{a} {t}"),
        }
    }
}

// ---- parsing ----

/// Why a type text did not parse, with the byte offset in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeError {
    pub at: usize,
    pub message: String,
}

impl fmt::Display for TypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.at)
    }
}

/// Parses a whole type text (after `$`). Trailing text is an error.
pub fn parse(text: &str) -> Result<Ty, TypeError> {
    let (t, end) = parse_prefix(text)?;
    let rest = &text[end..];
    if !rest.trim().is_empty() {
        return Err(TypeError { at: end + (rest.len() - rest.trim_start().len()), message: format!("unexpected `{}` after the type", rest.trim().chars().take(12).collect::<String>()) });
    }
    Ok(t)
}

/// Parses the longest type at the start of `text`; returns it and the byte offset where it
/// ends (declarations use this: `var x: Int { get }` stops before `{`).
pub fn parse_prefix(text: &str) -> Result<(Ty, usize), TypeError> {
    let mut p = P { s: text, i: 0, depth: 0 };
    let t = p.ty()?;
    Ok((t, p.i))
}

struct P<'a> {
    s: &'a str,
    i: usize,
    depth: usize,
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl<'a> P<'a> {
    fn err<T>(&self, msg: impl Into<String>) -> Result<T, TypeError> {
        Err(TypeError { at: self.i, message: msg.into() })
    }

    fn skip_ws(&mut self) {
        loop {
            let rest = &self.s[self.i..];
            let t = rest.trim_start();
            self.i += rest.len() - t.len();
            if t.starts_with("//") {
                self.i += t.find('\n').unwrap_or(t.len());
            } else {
                return;
            }
        }
    }

    fn rest(&self) -> &'a str {
        &self.s[self.i..]
    }

    fn peek_char(&mut self) -> Option<char> {
        self.skip_ws();
        self.rest().chars().next()
    }

    fn eat(&mut self, tok: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(tok) {
            self.i += tok.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, tok: &str) -> Result<(), TypeError> {
        if self.eat(tok) {
            Ok(())
        } else {
            let found: String = self.rest().chars().take(12).collect();
            self.err(if found.is_empty() { format!("expected `{tok}`, found the end") } else { format!("expected `{tok}`, found `{found}`") })
        }
    }

    /// The identifier at the cursor, if any (does not consume).
    fn peek_ident(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let r = self.rest();
        let c = r.chars().next()?;
        if !is_ident_start(c) {
            return None;
        }
        let n: usize = r.chars().take_while(|&c| is_ident_char(c)).map(char::len_utf8).sum();
        Some(&r[..n])
    }

    fn eat_word(&mut self, w: &str) -> bool {
        if self.peek_ident() == Some(w) {
            self.i += w.len();
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Result<String, TypeError> {
        match self.peek_ident() {
            Some(w) => {
                self.i += w.len();
                Ok(w.to_string())
            }
            None => {
                let found: String = self.rest().chars().take(12).collect();
                self.err(if found.is_empty() { "expected a type, found the end".to_string() } else { format!("expected a type, found `{found}`") })
            }
        }
    }

    /// The text of a balanced `( … )` group, the cursor on its `(`; returns the inside.
    fn balanced_parens(&mut self) -> Result<&'a str, TypeError> {
        self.skip_ws();
        let start = self.i;
        let mut depth = 0usize;
        let mut in_str = false;
        for (k, c) in self.rest().char_indices() {
            match c {
                '"' => in_str = !in_str,
                '(' if !in_str => depth += 1,
                ')' if !in_str => {
                    depth -= 1;
                    if depth == 0 {
                        self.i = start + k + 1;
                        return Ok(&self.s[start + 1..start + k]);
                    }
                }
                _ => {}
            }
        }
        self.err("unterminated `(` in attribute")
    }

    /// Types separated by commas up to `close` (the opener already read); empty allowed.
    fn types_until(&mut self, close: &str) -> Result<Vec<Ty>, TypeError> {
        let mut out = Vec::new();
        if self.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(self.ty()?);
            if self.eat(close) {
                return Ok(out);
            }
            self.expect(",")?;
        }
    }

    fn enter(&mut self) -> Result<(), TypeError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err(format!("type nested more than {MAX_DEPTH} levels deep"));
        }
        Ok(())
    }

    fn ty(&mut self) -> Result<Ty, TypeError> {
        self.enter()?;
        let t = self.ty_inner();
        self.depth -= 1;
        t
    }

    fn ty_inner(&mut self) -> Result<Ty, TypeError> {
        let t = self.composition()?;
        // `T -> U` without parentheses (Swift 2 syntax, still accepted by Swift's parser).
        if self.rest().trim_start().starts_with("->") {
            let params = match t {
                Ty::Tuple(ps) => ps,
                t => vec![Elem { label: None, conv: None, ty: t }],
            };
            return self.function_tail(Vec::new(), Vec::new(), Vec::new(), params);
        }
        Ok(t)
    }

    /// `A & B & C` (a protocol composition).
    fn composition(&mut self) -> Result<Ty, TypeError> {
        let first = self.postfix()?;
        if !self.rest().trim_start().starts_with("&") || self.rest().trim_start().starts_with("&&") {
            return Ok(first);
        }
        let mut parts = vec![first];
        while self.eat("&") {
            parts.push(self.postfix()?);
        }
        Ok(Ty::Existential(parts.into_iter().flat_map(|p| match p {
            Ty::Existential(ps) => ps,
            p => vec![p],
        }).collect()))
    }

    /// A primary type followed by `?`, `!`, `.Type`, `.Protocol`.
    fn postfix(&mut self) -> Result<Ty, TypeError> {
        let mut t = self.primary()?;
        loop {
            // No whitespace before a postfix `?`/`!`.
            let r = self.rest();
            if r.starts_with('?') || r.starts_with('!') {
                self.i += 1;
                t = Ty::Named(vec![Seg { name: "Optional".into(), args: vec![t] }]);
                continue;
            }
            let save = self.i;
            if self.eat(".") {
                if self.eat_word("Type") {
                    t = Ty::Metatype { repr: None, instance: Box::new(t) };
                    continue;
                }
                if self.eat_word("Protocol") {
                    t = Ty::Metatype { repr: None, instance: Box::new(t) };
                    continue;
                }
                // A member of a parenthesised type is not a type we model.
                self.i = save;
            }
            return Ok(t);
        }
    }

    fn primary(&mut self) -> Result<Ty, TypeError> {
        match self.peek_char() {
            None => self.err("expected a type, found the end"),
            Some('*') => {
                self.i += 1;
                Ok(Ty::Address(Box::new(self.ty()?)))
            }
            Some('@') => self.attributed(),
            Some('(') => self.paren(Vec::new(), Vec::new(), Vec::new()),
            Some('<') => {
                let (params, reqs) = self.generic_params()?;
                if self.peek_char() == Some('{') {
                    return self.box_body(params);
                }
                let t = self.paren_or_box_after_generics(params, reqs)?;
                Ok(t)
            }
            Some('{') => self.box_body(Vec::new()),
            Some('[') => {
                self.i += 1;
                let k = self.ty()?;
                if self.eat(":") {
                    let v = self.ty()?;
                    self.expect("]")?;
                    return Ok(Ty::Named(vec![Seg { name: "Dictionary".into(), args: vec![k, v] }]));
                }
                self.expect("]")?;
                Ok(Ty::Named(vec![Seg { name: "Array".into(), args: vec![k] }]))
            }
            Some('~') => {
                self.i += 1;
                let n = self.ident()?;
                Ok(Ty::name(&format!("~{n}")))
            }
            Some(_) => self.named_or_keyword(),
        }
    }

    fn paren_or_box_after_generics(&mut self, params: Vec<GenericParam>, reqs: Vec<Req>) -> Result<Ty, TypeError> {
        // `<T> (…) -> …`; several groups (`<τ_0_0><τ_1_0>`) are one list, with where each begins.
        let mut params = params;
        let mut reqs = reqs;
        let mut groups = Vec::new();
        while self.peek_char() == Some('<') {
            let (p, r) = self.generic_params()?;
            groups.push((params.len(), reqs.len()));
            params.extend(p);
            reqs.extend(r);
        }
        if self.peek_char() == Some('{') {
            return self.box_body(params);
        }
        if self.peek_char() != Some('(') {
            return self.err("expected `(` after a generic signature");
        }
        let mut t = self.paren(Vec::new(), params, reqs)?;
        if let Ty::Function(f) = &mut t {
            f.groups = groups;
        }
        Ok(t)
    }

    fn named_or_keyword(&mut self) -> Result<Ty, TypeError> {
        let Some(w) = self.peek_ident() else {
            let found: String = self.rest().chars().take(12).collect();
            return self.err(format!("expected a type, found `{found}`"));
        };
        match w {
            "any" | "some" | "each" | "repeat" => {
                let save = self.i;
                self.i += w.len();
                // `any` alone could be a type named `any`; require something after it.
                if self.peek_char().is_none() || matches!(self.peek_char(), Some(',' | ')' | '>' | ']')) {
                    self.i = save;
                    return self.named();
                }
                match w {
                    "any" => {
                        let inner = self.postfix_no_meta()?;
                        let parts = match inner {
                            Ty::Existential(ps) => ps,
                            t => vec![t],
                        };
                        let mut parts = parts;
                        while self.rest().trim_start().starts_with('&') && !self.rest().trim_start().starts_with("&&") {
                            self.eat("&");
                            parts.push(self.postfix_no_meta()?);
                        }
                        let e = Ty::Existential(parts);
                        // `any P.Type`: the existential metatype.
                        let save = self.i;
                        if self.eat(".") {
                            if self.eat_word("Type") || self.eat_word("Protocol") {
                                return Ok(Ty::Metatype { repr: None, instance: Box::new(e) });
                            }
                            self.i = save;
                        }
                        Ok(e)
                    }
                    "some" => Ok(Ty::Opaque(Box::new(self.postfix()?))),
                    "repeat" => {
                        self.eat_word("each");
                        Ok(Ty::PackElement(Box::new(self.postfix()?)))
                    }
                    _ => Ok(Ty::PackElement(Box::new(self.postfix()?))),
                }
            }
            "Pack" if self.s[self.i + 4..].starts_with('{') => {
                self.i += 4;
                self.expect("{")?;
                Ok(Ty::Pack(self.types_until("}")?))
            }
            _ => self.named(),
        }
    }

    /// A nominal path without the `.Type` postfix (for `any P.Type`).
    fn postfix_no_meta(&mut self) -> Result<Ty, TypeError> {
        let t = self.primary()?;
        Ok(t)
    }

    /// `A.B<C>.D` — stops before `.Type`/`.Protocol` (handled as postfix).
    fn named(&mut self) -> Result<Ty, TypeError> {
        let mut segs = Vec::new();
        loop {
            let name = self.ident()?;
            let mut args = Vec::new();
            // Generic arguments follow immediately (`Box<Int>`), never after a space in SIL
            // except in box types, which `primary` handles.
            if self.rest().starts_with('<') {
                self.i += 1;
                args = self.types_until(">")?;
            }
            segs.push(Seg { name, args });
            let r = self.rest();
            if let Some(after) = r.strip_prefix('.') {
                let w: String = after.chars().take_while(|&c| is_ident_char(c)).collect();
                if !w.is_empty() && w != "Type" && w != "Protocol" && after.chars().next().is_some_and(is_ident_start) {
                    self.i += 1;
                    continue;
                }
            }
            return Ok(Ty::Named(segs));
        }
    }

    /// `@attr … T`.
    fn attributed(&mut self) -> Result<Ty, TypeError> {
        let mut attrs: Vec<String> = Vec::new();
        while self.peek_char() == Some('@') {
            self.i += 1;
            let name = self.ident()?;
            match name.as_str() {
                "opened" | "pack_element" => {
                    // `@opened("UUID", any P) Self` or `@opened("UUID") P`
                    self.skip_ws();
                    let inside = self.balanced_parens()?;
                    let (id, constraint) = match inside.split_once(',') {
                        Some((id, c)) => (id, Some(c.trim())),
                        None => (inside, None),
                    };
                    let id = id.trim().trim_matches('"').to_string();
                    let base = self.postfix()?;
                    if name == "pack_element" {
                        return Ok(Ty::PackElement(Box::new(base)));
                    }
                    let proto = match constraint {
                        Some(c) => parse(c).unwrap_or(base),
                        None => base,
                    };
                    return Ok(wrap(attrs, Ty::Opened { id, proto: Box::new(proto) }));
                }
                "substituted" => {
                    // `@substituted <A> (A) -> () for <Int>`: classify the substituted form.
                    let (params, reqs) = self.generic_params()?;
                    let f = self.paren_or_box_after_generics(params, reqs)?;
                    let mut f = match f {
                        Ty::Function(f) => f,
                        other => return Ok(other),
                    };
                    if self.eat_word("for") {
                        self.expect("<")?;
                        let args = self.types_until(">")?;
                        let names: Vec<String> = f.generics.iter().map(|g| g.name.clone()).collect();
                        let map = |n: &str| names.iter().position(|x| x == n).and_then(|k| args.get(k).cloned());
                        let params = f.params.iter().map(|e| Elem { ty: e.ty.subst(&map), ..e.clone() }).collect();
                        let results = f.results.iter().map(|e| Elem { ty: e.ty.subst(&map), ..e.clone() }).collect();
                        f.params = params;
                        f.results = results;
                        f.generics.clear();
                        f.reqs.clear();
                        f.groups.clear();
                    }
                    f.attrs.splice(0..0, attrs);
                    return Ok(Ty::Function(f));
                }
                _ => {}
            }
            let mut text = name;
            if self.rest().starts_with('(') {
                let inside = self.balanced_parens()?;
                text = format!("{text}({})", inside.trim());
            }
            attrs.push(text);
        }
        let inner = self.ty()?;
        Ok(apply_attrs(attrs, inner))
    }

    /// `<T: P, U where T: Q, U == Int>`; the cursor on `<`.
    fn generic_params(&mut self) -> Result<(Vec<GenericParam>, Vec<Req>), TypeError> {
        self.expect("<")?;
        let mut params = Vec::new();
        let mut reqs = Vec::new();
        if self.eat(">") {
            return Ok((params, reqs));
        }
        loop {
            if self.eat_word("where") {
                break;
            }
            self.eat_word("each");
            let name = self.ident()?;
            let mut bounds = Vec::new();
            if self.eat(":") {
                bounds.push(self.bound()?);
                while self.eat("&") {
                    bounds.push(self.bound()?);
                }
            }
            params.push(GenericParam { name, bounds });
            if self.eat(">") {
                return Ok((params, reqs));
            }
            if self.peek_ident() == Some("where") {
                continue;
            }
            self.expect(",")?;
        }
        loop {
            let lhs = self.ty()?;
            if self.eat("==") {
                reqs.push(Req::Same(lhs, self.ty()?));
            } else {
                self.expect(":")?;
                reqs.push(Req::Conforms(lhs.clone(), self.bound()?));
                while self.eat("&") {
                    reqs.push(Req::Conforms(lhs.clone(), self.bound()?));
                }
            }
            if self.eat(">") {
                return Ok((params, reqs));
            }
            self.expect(",")?;
        }
    }

    /// A constraint: a type, a layout constraint `_Trivial(64)`, `~Copyable`.
    fn bound(&mut self) -> Result<Ty, TypeError> {
        if let Some(w) = self.peek_ident() {
            if w.starts_with('_') && self.s[self.i + w.len()..].starts_with('(') {
                self.i += w.len();
                let inside = self.balanced_parens()?;
                return Ok(Ty::name(&format!("{w}({})", inside.trim())));
            }
        }
        self.postfix()
    }

    /// `{ var T, let U } <Args>`, the cursor on `{`.
    fn box_body(&mut self, params: Vec<GenericParam>) -> Result<Ty, TypeError> {
        self.expect("{")?;
        let mut fields = Vec::new();
        if !self.eat("}") {
            loop {
                let mutable = if self.eat_word("var") {
                    true
                } else if self.eat_word("let") {
                    false
                } else {
                    return self.err("expected `var` or `let` in a box type");
                };
                fields.push((mutable, self.ty()?));
                if self.eat("}") {
                    break;
                }
                self.expect(",")?;
            }
        }
        // The box's generic arguments (`<Int>`), if what follows reads as them.
        let save = self.i;
        let mut args = Vec::new();
        if self.eat("<") {
            match self.types_until(">") {
                Ok(a) => args = a,
                Err(_) => self.i = save,
            }
        }
        Ok(Ty::Box { params, fields, args })
    }

    /// `( … )`: a tuple, or a function's parameters when `->` or an effect follows.
    fn paren(&mut self, attrs: Vec<String>, generics: Vec<GenericParam>, reqs: Vec<Req>) -> Result<Ty, TypeError> {
        self.expect("(")?;
        let mut elems = Vec::new();
        if !self.eat(")") {
            loop {
                elems.push(self.elem()?);
                if self.eat(")") {
                    break;
                }
                self.expect(",")?;
            }
        }
        let mut effects = Vec::new();
        loop {
            let save = self.i;
            match self.peek_ident() {
                Some(w @ ("throws" | "async" | "rethrows" | "reasync")) => {
                    self.i += w.len();
                    let mut e = w.to_string();
                    if self.rest().starts_with('(') {
                        let inside = self.balanced_parens()?;
                        e = format!("{e}({})", inside.trim());
                    }
                    effects.push(e);
                }
                _ => {
                    self.i = save;
                    break;
                }
            }
        }
        if self.rest().trim_start().starts_with("->") {
            return self.function_tail(attrs, generics, reqs, elems).map(|t| match t {
                Ty::Function(mut f) => {
                    f.effects = effects;
                    Ty::Function(f)
                }
                t => t,
            });
        }
        if !generics.is_empty() || !effects.is_empty() {
            return self.err("expected `->` after a function's parameters");
        }
        if elems.len() == 1 && elems[0].label.is_none() && elems[0].conv.is_none() && !matches!(elems[0].ty, Ty::PackElement(_)) {
            return Ok(elems.pop().map(|e| e.ty).unwrap_or(Ty::Tuple(Vec::new())));
        }
        Ok(Ty::Tuple(elems))
    }

    fn function_tail(&mut self, attrs: Vec<String>, generics: Vec<GenericParam>, reqs: Vec<Req>, params: Vec<Elem>) -> Result<Ty, TypeError> {
        self.expect("->")?;
        let results = if self.peek_char() == Some('(') {
            // `-> (@out T, @error any Error)` or `-> ()` or `-> (Int) -> Int`.
            let save = self.i;
            self.expect("(")?;
            let mut elems = Vec::new();
            if !self.eat(")") {
                loop {
                    elems.push(self.elem()?);
                    if self.eat(")") {
                        break;
                    }
                    self.expect(",")?;
                }
            }
            if self.rest().trim_start().starts_with("->") || matches!(self.peek_ident(), Some("throws" | "async")) {
                // The result is itself a function type.
                self.i = save;
                vec![self.elem()?]
            } else {
                elems
            }
        } else {
            vec![self.elem()?]
        };
        Ok(Ty::Function(Box::new(FnTy { attrs, generics, reqs, groups: Vec::new(), params, results, effects: Vec::new() })))
    }

    /// A tuple element or parameter: `label: @conv T`, `@conv T`, `T`, `repeat each T`.
    fn elem(&mut self) -> Result<Elem, TypeError> {
        let mut label = None;
        if let Some(w) = self.peek_ident() {
            let after = &self.s[self.i + w.len()..];
            if after.trim_start().starts_with(':') && !after.trim_start().starts_with("::") {
                self.i += w.len();
                self.expect(":")?;
                label = Some(w.to_string());
            }
        }
        // Leading `@convention` etc. belong to a function type; `@in`-style words are
        // parameter conventions.
        let mut conv = None;
        self.skip_ws();
        if self.rest().starts_with('@') {
            let save = self.i;
            self.i += 1;
            let w = self.ident()?;
            if is_param_convention(&w) {
                conv = Some(w);
            } else {
                self.i = save;
            }
        }
        let ty = self.ty()?;
        Ok(Elem { label, conv, ty })
    }
}

/// Parses a generic parameter list `<T: P, U where …>` at the start of `text`; returns the
/// parameters, the requirements and where it ends.
pub fn parse_generic_params(text: &str) -> Result<(Vec<GenericParam>, Vec<Req>, usize), TypeError> {
    let mut p = P { s: text, i: 0, depth: 0 };
    let (params, reqs) = p.generic_params()?;
    Ok((params, reqs, p.i))
}

/// Parses the requirements of a `where` clause (after the word `where`) up to a `{` or the
/// end; returns them and where they end.
pub fn parse_where(text: &str) -> Result<(Vec<Req>, usize), TypeError> {
    let mut p = P { s: text, i: 0, depth: 0 };
    let mut reqs = Vec::new();
    loop {
        let lhs = p.ty()?;
        if p.eat("==") {
            reqs.push(Req::Same(lhs, p.ty()?));
        } else {
            p.expect(":")?;
            reqs.push(Req::Conforms(lhs.clone(), p.bound()?));
            while p.eat("&") {
                reqs.push(Req::Conforms(lhs.clone(), p.bound()?));
            }
        }
        if !p.eat(",") {
            return Ok((reqs, p.i));
        }
    }
}

/// Parses a constraint (`AnyObject`, `_Trivial(64)`, `~Copyable`, `P & Q`) at the start of
/// `text`.
pub fn parse_bound(text: &str) -> Result<(Ty, usize), TypeError> {
    let mut p = P { s: text, i: 0, depth: 0 };
    let t = p.bound()?;
    Ok((t, p.i))
}

/// Parameter and result conventions SIL writes in front of a function's parameter types.
pub fn is_param_convention(w: &str) -> bool {
    matches!(
        w,
        "in" | "in_guaranteed" | "in_constant" | "in_cxx" | "inout" | "inout_aliasable" | "out" | "owned"
            | "guaranteed" | "unowned" | "unowned_inner_pointer" | "autoreleased" | "error" | "error_indirect"
            | "error_unowned" | "pack_owned" | "pack_guaranteed" | "pack_inout" | "pack_out" | "sil_isolated"
            | "sil_implicit_leading_param" | "sil_sending" | "noDerivative" | "closureCapture" | "yields"
            | "yield_once" | "yield_many" | "in_guaranteed_yield"
    )
}

/// Attributes that make the following function type a SIL function type.
fn is_function_attr(a: &str) -> bool {
    a.starts_with("convention")
        || a.starts_with("callee_")
        || matches!(a, "noescape" | "escaping" | "async" | "Sendable" | "sendable" | "yield_once" | "yield_many" | "yield_once_2" | "pseudogeneric" | "differentiable" | "isolated" | "concurrent" | "unchecked_unsendable")
        || a.starts_with("differentiable")
        || a.starts_with("isolated")
}

fn wrap(attrs: Vec<String>, t: Ty) -> Ty {
    attrs.into_iter().rev().fold(t, |t, a| Ty::Attributed(a, Box::new(t)))
}

/// Folds parsed attributes into the type they qualify.
fn apply_attrs(attrs: Vec<String>, inner: Ty) -> Ty {
    let mut fn_attrs = Vec::new();
    let mut others: Vec<String> = Vec::new();
    let mut t = inner;
    for a in &attrs {
        if is_function_attr(a) {
            fn_attrs.push(a.clone());
        }
    }
    if !fn_attrs.is_empty() {
        if let Ty::Function(mut f) = t {
            let mut all = fn_attrs.clone();
            all.append(&mut f.attrs);
            f.attrs = all;
            t = Ty::Function(f);
        } else {
            // Function attributes on a non-function type: keep them visible.
            others.extend(fn_attrs.iter().cloned());
        }
    }
    for a in attrs.iter().rev() {
        if is_function_attr(a) {
            continue;
        }
        t = match a.as_str() {
            "thin" | "thick" | "objc" => match t {
                Ty::Metatype { instance, .. } => Ty::Metatype { repr: Some(a.clone()), instance },
                other => Ty::Attributed(a.clone(), Box::new(other)),
            },
            "sil_weak" => Ty::Storage(RefStorage::Weak, Box::new(t)),
            "sil_unowned" => Ty::Storage(RefStorage::Unowned, Box::new(t)),
            "sil_unmanaged" => Ty::Storage(RefStorage::Unmanaged, Box::new(t)),
            "box" => Ty::Box { params: Vec::new(), fields: vec![(true, t)], args: Vec::new() },
            "moveOnly" | "sil_moveonly" | "moveonly" => Ty::MoveOnly(Box::new(t)),
            _ => Ty::Attributed(a.clone(), Box::new(t)),
        };
    }
    others.into_iter().rev().fold(t, |t, a| Ty::Attributed(a, Box::new(t)))
}
