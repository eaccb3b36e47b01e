//! Type lowering's first question, asked of SIL text: is a type trivial, loadable
//! (non-trivial) or address-only — and why.
//!
//! The rules are Swift's (`docs/SIL/Types.md`, `lib/SIL/IR/TypeLowering.cpp`, as the
//! rule table of `sil-semantics.md` §(a) distils them; seed 002 gives the test vectors):
//! an aggregate is address-only if any stored member is, trivial if all are, loadable
//! otherwise; class fields never matter; `Optional` is looked through; generic parameters are
//! address-only unless a constraint makes them a class or gives them a size; non-class
//! existentials and `@sil_weak` are address-only; functions are trivial only without a
//! context; metatypes are trivial; boxes are references; packs are address-only.
//!
//! A fourth answer, **unknown**, is given when the text cannot decide (an undeclared name, a
//! declaration that did not read, a constraint naming an undeclared protocol) — never a guess.
//! Each verdict carries its why-chain: one step per rule applied, each with where its fact
//! comes from (a declaration's position, the standard-library table, a rule, an assumption
//! the user switched on, a what-if substitution).

use super::decl::{Decls, Found, Kind, Nominal};
use super::stdlib::{self, Std};
use super::ty::{self, GenericParam, Req, RefStorage, Ty};
use crate::diag::Span;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

/// How a type lowers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Loadable, and copies and destroys are no-ops (bit copies).
    Trivial,
    /// Lives in SSA values, but a copy retains and a destroy releases.
    Loadable,
    /// Must live in memory: runtime-sized, or its address matters.
    AddressOnly,
    /// The text does not decide it.
    Unknown,
}

impl Class {
    pub fn word(self) -> &'static str {
        match self {
            Class::Trivial => "trivial",
            Class::Loadable => "loadable",
            Class::AddressOnly => "address-only",
            Class::Unknown => "unknown",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// Where a step's fact comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// A rule of type lowering.
    Rule,
    /// A declaration in this file (the step's `at` points to it).
    Declared,
    /// The built-in table of standard-library types.
    Stdlib,
    /// An assumption the user switched on (a type marked resilient).
    Assumption,
    /// A what-if substitution (`T := Int`).
    WhatIf,
}

/// One link of a why-chain.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    pub text: String,
    /// The declaration this step rests on, when it is in the file.
    pub at: Option<Span>,
    pub source: Source,
}

/// A type's class and the reasons for it, outermost first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    pub class: Class,
    pub why: Vec<Step>,
    /// Move-only (`~Copyable`): never trivial, whatever its members.
    pub move_only: bool,
    /// For an undeclared name: a declaration to add (`struct Foo {}`), for the user to edit.
    pub stub: Option<String>,
}

impl Verdict {
    fn leaf(class: Class, source: Source, at: Option<Span>, text: String) -> Verdict {
        Verdict { class, why: vec![Step { text, at, source }], move_only: false, stub: None }
    }
    fn rule(class: Class, text: String) -> Verdict {
        Verdict::leaf(class, Source::Rule, None, text)
    }
    fn unknown(text: String, stub: Option<String>) -> Verdict {
        Verdict { stub, ..Verdict::rule(Class::Unknown, text) }
    }
    fn then(mut self, step: Step) -> Verdict {
        self.why.insert(0, step);
        self
    }
    /// The why-chain as one line: `A → B → C`.
    pub fn chain(&self) -> String {
        self.why.iter().map(|s| s.text.as_str()).collect::<Vec<_>>().join(" → ")
    }
}

/// The switches a user can set: what the text cannot tell.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Assumptions {
    /// Declared types to treat as resilient (library evolution, used from another module).
    pub resilient: BTreeSet<String>,
    /// What-if substitutions of the function's generic parameters (`T` → `Int`).
    pub subst: BTreeMap<String, String>,
    /// Opaque-values SIL (address-only object values allowed): `None` = as the file says.
    pub opaque_values: Option<bool>,
}

/// The declarations of a module plus the user's assumptions: what classification reads.
#[derive(Clone, Debug, Default)]
pub struct TypeEnv {
    pub decls: Decls,
    pub assume: Assumptions,
}

impl TypeEnv {
    pub fn new(decls: Decls) -> TypeEnv {
        TypeEnv { decls, assume: Assumptions::default() }
    }
    pub fn opaque_values(&self) -> bool {
        self.assume.opaque_values.unwrap_or(self.decls.opaque_values)
    }
}

/// Deeper nominal expansion than this is reported as unknown (a generic type whose
/// expansion keeps growing, `struct S<T> { var x: S<(T, T)> }`, never ends).
const MAX_EXPANSION: usize = 64;

/// Generic arguments bigger than this many nodes are not expanded further (a type that
/// doubles as it expands reaches it in a few levels).
const MAX_ARG_SIZE: usize = 2048;

/// Classifies types in one generic context (a function's signature), memoised.
pub struct Classifier<'e> {
    env: &'e TypeEnv,
    /// The context's generic parameters with every constraint on them.
    params: Vec<(String, Vec<Ty>)>,
    /// Same-type requirements and what-ifs: parameter → type.
    bound: HashMap<String, (Ty, Source)>,
    memo: RefCell<HashMap<Ty, Verdict>>,
    stack: RefCell<Vec<Ty>>,
}

fn code(t: &impl fmt::Display) -> String {
    format!("`{t}`")
}

impl<'e> Classifier<'e> {
    /// A classifier for types written inside a function with these generic parameters.
    pub fn new(env: &'e TypeEnv, generics: &[GenericParam], reqs: &[Req]) -> Classifier<'e> {
        let mut params: Vec<(String, Vec<Ty>)> =
            generics.iter().map(|g| (g.name.clone(), g.bounds.clone())).collect();
        let mut bound = HashMap::new();
        for r in reqs {
            match r {
                Req::Conforms(lhs, b) => {
                    if let Some(n) = lhs.as_simple_name() {
                        if let Some(p) = params.iter_mut().find(|p| p.0 == n) {
                            p.1.push(b.clone());
                        }
                    }
                }
                Req::Same(lhs, rhs) => {
                    if let Some(n) = lhs.as_simple_name() {
                        bound.insert(n.to_string(), (rhs.clone(), Source::Rule));
                    }
                }
            }
        }
        for (k, v) in &env.assume.subst {
            if let Ok(t) = ty::parse(v) {
                bound.insert(k.clone(), (t, Source::WhatIf));
            }
        }
        Classifier { env, params, bound, memo: RefCell::new(HashMap::new()), stack: RefCell::new(Vec::new()) }
    }

    pub fn classify(&self, t: &Ty) -> Verdict {
        self.go(t, 0)
    }

    fn is_param(&self, n: &str) -> bool {
        self.params.iter().any(|p| p.0 == n) || is_canonical_param(n) || n == "Self"
    }

    fn go(&self, t: &Ty, depth: usize) -> Verdict {
        if let Some(v) = self.memo.borrow().get(t) {
            return v.clone();
        }
        let v = self.compute(t, depth);
        // A verdict reached inside a containment cycle depends on where the cycle was
        // entered; keep only those computed with nothing open.
        if self.stack.borrow().is_empty() || !v.why.iter().any(|s| s.text.contains("contains itself")) {
            self.memo.borrow_mut().insert(t.clone(), v.clone());
        }
        v
    }

    fn compute(&self, t: &Ty, depth: usize) -> Verdict {
        match t {
            Ty::Address(inner) => {
                let v = self.go(inner, depth);
                v.then(Step {
                    text: format!("{} is an address of {}: the address itself has no ownership; its class is its target's", code(t), code(inner)),
                    at: None,
                    source: Source::Rule,
                })
            }
            Ty::Tuple(es) => {
                if es.is_empty() {
                    return Verdict::rule(Class::Trivial, "`()` is the empty tuple: no bits to copy".into());
                }
                if es.iter().any(|e| matches!(e.ty, Ty::PackElement(_))) {
                    return Verdict::rule(Class::AddressOnly, format!("{} has a pack expansion: its size is known only at run time (packs are always address-only)", code(t)));
                }
                let members: Vec<(String, &Ty, Option<Span>)> = es
                    .iter()
                    .enumerate()
                    .map(|(k, e)| (e.label.clone().map_or(format!("element {k}: {}", e.ty), |l| format!("element `{l}: {}`", e.ty)), &e.ty, None))
                    .collect();
                self.members(format!("{} is a tuple: its class is its elements'", code(t)), None, Source::Rule, members, depth)
            }
            Ty::Function(f) => function_verdict(t, f),
            Ty::Metatype { repr, .. } => Verdict::rule(
                Class::Trivial,
                format!(
                    "{} is a metatype{}: a pointer to type metadata (or nothing, when thin), never reference-counted",
                    code(t),
                    repr.as_ref().map_or(String::new(), |r| format!(" (`@{r}`)"))
                ),
            ),
            Ty::Existential(parts) => self.existential(t, parts),
            Ty::Storage(RefStorage::Weak, _) => Verdict::rule(
                Class::AddressOnly,
                format!("{} is a weak reference: the runtime registers the address of every weak reference, so it must stay in memory", code(t)),
            ),
            Ty::Storage(RefStorage::Unmanaged, _) => Verdict::rule(
                Class::Trivial,
                format!("{} is an unmanaged reference: copied bit for bit, never retained", code(t)),
            ),
            Ty::Storage(RefStorage::Unowned, inner) => match self.native_class(inner) {
                Some(true) => Verdict::rule(
                    Class::Loadable,
                    format!("{} is an unowned reference to a native Swift class: it can live in a register, copies adjust the unowned count", code(t)),
                ),
                _ => Verdict::rule(
                    Class::AddressOnly,
                    format!("{} is an unowned reference to {}, which may be an Objective-C class: such references must stay in memory", code(t), code(inner)),
                ),
            },
            Ty::Box { .. } => Verdict::rule(
                Class::Loadable,
                format!("{} is a heap box: a single reference-counted pointer, whatever it holds", code(t)),
            ),
            Ty::Pack(_) | Ty::PackElement(_) => {
                Verdict::rule(Class::AddressOnly, format!("{} is a pack: packs are always address-only", code(t)))
            }
            Ty::Opened { proto: p, .. } | Ty::Opaque(p) => {
                let what = if matches!(t, Ty::Opened { .. }) { "an archetype opened from an existential" } else { "an opaque type" };
                match self.class_bound(p) {
                    Some(true) => Verdict::rule(Class::Loadable, format!("{} is {what} bound to a class: a single reference", code(t))),
                    _ => Verdict::rule(Class::AddressOnly, format!("{} is {what}: its concrete type, and so its size, is known only at run time", code(t))),
                }
            }
            Ty::MoveOnly(inner) => {
                let v = self.go(inner, depth);
                move_only(v, code(t))
            }
            Ty::Attributed(_, inner) => self.go(inner, depth),
            Ty::Named(segs) => self.named(t, segs, depth),
        }
    }

    /// The member rule over stored properties, tuple elements or enum payloads.
    fn members(&self, head: String, at: Option<Span>, source: Source, members: Vec<(String, &Ty, Option<Span>)>, depth: usize) -> Verdict {
        let vs: Vec<(String, Verdict, Option<Span>)> =
            members.into_iter().map(|(label, t, sp)| (label, self.go(t, depth + 1), sp)).collect();
        let move_only = vs.iter().any(|(_, v, _)| v.move_only);
        let pick = |c: Class| vs.iter().find(|(_, v, _)| v.class == c);
        for (c, word) in [(Class::AddressOnly, "address-only"), (Class::Unknown, "unknown"), (Class::Loadable, "loadable")] {
            if let Some((label, v, sp)) = pick(c) {
                let mut why = vec![
                    Step { text: format!("{head}: {word} because one member is"), at, source },
                    Step { text: label.clone(), at: *sp, source: if sp.is_some() { Source::Declared } else { Source::Rule } },
                ];
                why.extend(v.why.iter().cloned());
                return Verdict { class: c, why, move_only, stub: v.stub.clone() };
            }
        }
        let list: Vec<String> = vs.iter().take(6).map(|(l, _, _)| l.clone()).collect();
        let more = if vs.len() > 6 { format!(" and {} more", vs.len() - 6) } else { String::new() };
        let text = if vs.is_empty() {
            format!("{head}: trivial — it has no stored members")
        } else {
            format!("{head}: trivial — every member is ({}{more})", list.join("; "))
        };
        let mut why = vec![Step { text, at, source }];
        if let [(_, only, _)] = vs.as_slice() {
            why.extend(only.why.iter().cloned());
        }
        Verdict { class: Class::Trivial, why, move_only, stub: None }
    }

    fn named(&self, t: &Ty, segs: &[ty::Seg], depth: usize) -> Verdict {
        let first = &segs[0];
        if first.name == "Builtin" && segs.len() == 2 {
            return match stdlib::builtin(&segs[1].name) {
                Some((c, why)) => Verdict::rule(c, format!("{} is {why}", code(t))),
                None => Verdict::unknown(format!("{} is not a builtin type Swift has", code(t)), None),
            };
        }
        if first.args.is_empty() && self.is_param(&first.name) {
            if let Some((b, src)) = self.bound.get(&first.name) {
                let b = b.clone();
                let src = *src;
                let rest = if segs.len() > 1 { Ty::Named(std::iter::once(ty::Seg { name: b.to_string(), args: Vec::new() }).chain(segs[1..].iter().cloned()).collect()) } else { b.clone() };
                if segs.len() > 1 {
                    return Verdict::unknown(format!("{}: an associated type of `{}`, which is not modelled", code(t), b), None);
                }
                let how = if src == Source::WhatIf { "what-if" } else { "same-type requirement" };
                return self.go(&rest, depth).then(Step { text: format!("`{} := {b}` ({how})", first.name), at: None, source: src });
            }
            if segs.len() > 1 {
                return Verdict::rule(
                    Class::AddressOnly,
                    format!("{} is an associated type of generic parameter `{}`: its size is known only at run time", code(t), first.name),
                );
            }
            return self.archetype(&first.name);
        }
        // Declared in the file: by the full name, then by its last component.
        let full: String = segs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(".");
        let last = segs.last().map_or(full.as_str(), |s| s.name.as_str());
        let args = &segs.last().map_or(&[][..], |s| &s.args[..]);
        let found = self.env.decls.lookup(&full).or_else(|| {
            let unqualified = full.strip_prefix("Swift.").unwrap_or(&full);
            self.env.decls.lookup(unqualified).or_else(|| if segs.len() > 1 { self.env.decls.lookup(last) } else { None })
        });
        match found {
            Some(Found::Alias(a)) => {
                if a.params.len() != args.len() {
                    return Verdict::unknown(format!("{}: `typealias {}` takes {} generic arguments, written with {}", code(t), a.name, a.params.len(), args.len()), None);
                }
                let map = bind(&a.params, args);
                let target = a.ty.subst(&|n| map.get(n).cloned());
                let step = Step { text: format!("{} is `typealias {} = {}`", code(t), a.name, a.ty), at: Some(a.span), source: Source::Declared };
                if self.enter(t) {
                    let v = self.go(&target, depth + 1);
                    self.leave();
                    return v.then(step);
                }
                return Verdict::rule(Class::Unknown, format!("{}: the typealias refers to itself", code(t))).then(step);
            }
            Some(Found::Nominal(n)) => return self.nominal(t, n, args, depth),
            Some(Found::Broken(e)) => {
                return Verdict::unknown(format!("{}: its declaration did not read ({})", code(t), e.message), None);
            }
            None => {}
        }
        let std_name = (segs.len() == 1 || segs.len() == 2 && first.name == "Swift").then_some(last);
        if let Some(e) = std_name.and_then(stdlib::lookup) {
            return self.stdlib(t, e, args, depth);
        }
        let stub = format!("struct {last} {{}}");
        Verdict::unknown(
            format!("{} is not declared in this file and not in the standard-library table: declare it (as a struct, class, enum or typealias)", code(t)),
            Some(stub),
        )
    }

    fn stdlib(&self, t: &Ty, e: &stdlib::Entry, args: &[Ty], depth: usize) -> Verdict {
        match &e.std {
            Std::Leaf { class, why } => Verdict::leaf(*class, Source::Stdlib, None, format!("{} is {why} ({})", code(t), e.source)),
            Std::ObjcClass => Verdict::leaf(Class::Loadable, Source::Stdlib, None, format!("{} is a class: a single strong reference ({})", code(t), e.source)),
            Std::Protocol { .. } => self.existential(t, std::slice::from_ref(t)),
            Std::Optional => match args {
                [payload] => self.go(payload, depth + 1).then(Step {
                    text: format!("{} lowers like its payload {}: type lowering looks through `Optional`", code(t), code(payload)),
                    at: None,
                    source: Source::Stdlib,
                }),
                _ => Verdict::unknown(format!("{}: `Optional` takes one generic argument", code(t)), None),
            },
            Std::Struct { params, fields } => {
                if params.len() != args.len() {
                    return Verdict::unknown(format!("{}: `{}` takes {} generic arguments, written with {}", code(t), e.name, params.len(), args.len()), None);
                }
                let map: HashMap<&str, &Ty> = params.iter().copied().zip(args.iter()).collect();
                let parsed: Vec<(String, Ty)> = fields
                    .iter()
                    .filter_map(|(n, tt)| ty::parse(tt).ok().map(|ft| (format!("stored property `{n}: {tt}`"), ft.subst(&|x| map.get(x).map(|t| (*t).clone())))))
                    .collect();
                let members = parsed.iter().map(|(l, t)| (l.clone(), t, None)).collect();
                self.members(format!("{} ({})", code(t), e.source), None, Source::Stdlib, members, depth)
            }
        }
    }

    fn nominal(&self, t: &Ty, n: &Nominal, args: &[Ty], depth: usize) -> Verdict {
        let at = Some(n.span);
        match n.kind {
            Kind::Class => {
                return Verdict::leaf(
                    Class::Loadable,
                    Source::Declared,
                    at,
                    format!("{} is a class: a value is a single strong reference; its stored properties do not matter", code(t)),
                )
            }
            Kind::Protocol => return self.existential(t, std::slice::from_ref(t)),
            Kind::Struct | Kind::Enum => {}
        }
        if self.env.assume.resilient.contains(&n.name) {
            return Verdict::leaf(
                Class::AddressOnly,
                Source::Assumption,
                at,
                format!("{} is assumed resilient (switched on): a library-evolution type used from another module has a layout known only at run time", code(t)),
            );
        }
        if n.params.len() != args.len() {
            return Verdict::unknown(
                format!("{}: {} `{}` takes {} generic arguments, written with {}", code(t), n.kind.word(), n.name, n.params.len(), args.len()),
                None,
            );
        }
        if depth > MAX_EXPANSION || args.iter().map(|a| a.size_up_to(MAX_ARG_SIZE)).sum::<usize>() >= MAX_ARG_SIZE {
            return Verdict::unknown(format!("{}: expanding it went {MAX_EXPANSION} levels deep without reaching its members (does it grow as it expands?)", code(t)), None);
        }
        if !self.enter(t) {
            return Verdict::leaf(
                Class::AddressOnly,
                Source::Declared,
                at,
                format!("{} contains itself without indirection: an infinite type", code(t)),
            );
        }
        let map = bind(&n.params, args);
        let sub = |x: &Ty| x.subst(&|name| map.get(name).cloned());
        let subst_note = if n.params.is_empty() {
            String::new()
        } else {
            let pairs: Vec<String> =
                n.params.iter().zip(args).filter(|(p, a)| a.as_simple_name() != Some(p.name.as_str())).map(|(p, a)| format!("{} := {a}", p.name)).collect();
            if pairs.is_empty() {
                String::new()
            } else {
                format!(" with {}", pairs.join(", "))
            }
        };
        let generic_name = if n.params.is_empty() {
            n.name.clone()
        } else {
            format!("{}<{}>", n.name, n.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "))
        };
        let v = match n.kind {
            Kind::Struct => {
                let fields: Vec<(String, Ty, Span)> =
                    n.fields.iter().map(|f| (stored_label(f, &sub), sub(&f.ty), f.span)).collect();
                let members = fields.iter().map(|(l, t, s)| (l.clone(), t, Some(*s))).collect();
                let ignored = if n.computed.is_empty() { String::new() } else { format!("; {} computed propert{} ignored", n.computed.len(), if n.computed.len() == 1 { "y" } else { "ies" }) };
                self.members(format!("{} is struct `{generic_name}`{subst_note}{ignored}", code(t)), at, Source::Declared, members, depth)
            }
            _ => {
                let indirect_all = n.is_indirect();
                let payloads: Vec<&super::decl::Case> = n.cases.iter().filter(|c| c.payload.is_some()).collect();
                if payloads.is_empty() {
                    Verdict::leaf(Class::Trivial, Source::Declared, at, format!("{} is enum `{generic_name}` whose cases carry no payload: just a tag", code(t)))
                } else if let Some(c) = payloads.iter().find(|c| c.indirect || indirect_all) {
                    // An indirect payload lives in a box; the others still count.
                    let direct: Vec<(String, Ty, Span)> = payloads
                        .iter()
                        .filter(|c| !(c.indirect || indirect_all))
                        .filter_map(|c| c.payload.as_ref().map(|p| (format!("case `{}({})`", c.name, sub(p)), sub(p), c.span)))
                        .collect();
                    let members = direct.iter().map(|(l, t, s)| (l.clone(), t, Some(*s))).collect();
                    let rest = self.members(format!("the direct cases of {}", code(t)), at, Source::Declared, members, depth);
                    if rest.class == Class::AddressOnly || rest.class == Class::Unknown {
                        rest
                    } else {
                        Verdict {
                            class: Class::Loadable,
                            why: vec![
                                Step { text: format!("{} is enum `{generic_name}`{subst_note}: loadable because case `{}` is indirect", code(t), c.name), at, source: Source::Declared },
                                Step { text: "an indirect payload lives in a heap box: a single reference".into(), at: Some(c.span), source: Source::Rule },
                            ],
                            move_only: rest.move_only,
                            stub: None,
                        }
                    }
                } else {
                    let cases: Vec<(String, Ty, Span)> = payloads
                        .iter()
                        .filter_map(|c| c.payload.as_ref().map(|p| (format!("case `{}({})`", c.name, sub(p)), sub(p), c.span)))
                        .collect();
                    let members = cases.iter().map(|(l, t, s)| (l.clone(), t, Some(*s))).collect();
                    self.members(format!("{} is enum `{generic_name}`{subst_note}; cases without payload do not count", code(t)), at, Source::Declared, members, depth)
                }
            }
        };
        self.leave();
        if n.is_move_only() {
            move_only(v, format!("`{}` is declared move-only (`~Copyable`)", n.name))
        } else {
            v
        }
    }

    fn enter(&self, t: &Ty) -> bool {
        let mut s = self.stack.borrow_mut();
        if s.contains(t) {
            return false;
        }
        s.push(t.clone());
        true
    }

    fn leave(&self) {
        self.stack.borrow_mut().pop();
    }

    /// A generic parameter of the context, by its constraints.
    fn archetype(&self, name: &str) -> Verdict {
        let bounds: Vec<Ty> = self.params.iter().filter(|p| p.0 == name).flat_map(|p| p.1.iter().cloned()).collect();
        let mut unknown: Option<String> = None;
        let mut trivial_unsized: Option<String> = None;
        let mut is_move_only = false;
        for b in &bounds {
            let text = b.to_string();
            if let Some(layout) = text.strip_prefix("_Trivial") {
                if layout.starts_with('(') || text.starts_with("_TrivialAtMost") {
                    return Verdict::rule(Class::Trivial, format!("`{name}: {text}`: a trivial generic parameter of known size"));
                }
                trivial_unsized = Some(text);
                continue;
            }
            if text == "~Copyable" {
                is_move_only = true;
                continue;
            }
            if matches!(text.as_str(), "_Class" | "_NativeClass" | "_RefCountedObject" | "_NativeRefCountedObject" | "_BridgeObject") {
                return Verdict::rule(Class::Loadable, format!("`{name}: {text}`: a class-constrained generic parameter is a single reference"));
            }
            match self.class_bound(b) {
                Some(true) => {
                    return Verdict::rule(Class::Loadable, format!("`{name}: {text}`: a class-constrained generic parameter is a single reference"))
                }
                Some(false) => {}
                None => unknown = unknown.or(Some(text)),
            }
        }
        if let Some(text) = trivial_unsized {
            return Verdict::rule(
                Class::AddressOnly,
                format!("`{name}: {text}`: copies are bit copies, but its size is known only at run time — trivial and address-only"),
            );
        }
        if let Some(u) = unknown {
            return Verdict::unknown(
                format!("generic parameter `{name}` is constrained to `{u}`, which is not declared: if it is class-bound, `{name}` is a reference"),
                Some(format!("protocol {u} {{}}")),
            );
        }
        let v = Verdict::rule(
            Class::AddressOnly,
            format!("`{name}` is a generic parameter: no constraint makes it a class or gives it a size, so its size is known only at run time"),
        );
        if is_move_only {
            Verdict { move_only: true, ..v }
        } else {
            v
        }
    }

    /// Whether a constraint type is bound to classes: `Some(true)` for `AnyObject`, a class,
    /// a class-bound protocol; `None` when the text does not say.
    fn class_bound(&self, t: &Ty) -> Option<bool> {
        self.class_bound_depth(t, 0)
    }

    fn class_bound_depth(&self, t: &Ty, depth: usize) -> Option<bool> {
        if depth > 32 {
            return None;
        }
        match t {
            Ty::Existential(ps) => self.any_class_bound(ps, depth),
            Ty::Named(segs) => {
                let full: String = segs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(".");
                let name = full.strip_prefix("Swift.").unwrap_or(&full);
                if name == "AnyObject" || name == "Builtin.AnyObject" || name == "class" {
                    return Some(true);
                }
                match self.env.decls.lookup(name) {
                    Some(Found::Nominal(n)) => match n.kind {
                        Kind::Class => Some(true),
                        Kind::Protocol => {
                            if n.attrs.iter().any(|a| a == "objc") {
                                return Some(true);
                            }
                            self.any_class_bound(&n.inherits, depth)
                        }
                        _ => Some(false),
                    },
                    Some(Found::Alias(a)) => self.class_bound_depth(&a.ty.clone(), depth + 1),
                    Some(Found::Broken(_)) => None,
                    None => match stdlib::lookup(name) {
                        Some(e) => match e.std {
                            Std::Protocol { class_bound } => Some(class_bound),
                            Std::ObjcClass => Some(true),
                            Std::Leaf { class: Class::Loadable, .. } if e.name == "AnyObject" => Some(true),
                            _ => Some(false),
                        },
                        None => None,
                    },
                }
            }
            Ty::Attributed(_, t) => self.class_bound_depth(t, depth + 1),
            _ => Some(false),
        }
    }

    /// Class-bound if any of `ts` is; unknown if none is and some is unknown.
    fn any_class_bound(&self, ts: &[Ty], depth: usize) -> Option<bool> {
        let mut any_unknown = false;
        for t in ts {
            match self.class_bound_depth(t, depth + 1) {
                Some(true) => return Some(true),
                None => any_unknown = true,
                Some(false) => {}
            }
        }
        (!any_unknown).then_some(false)
    }

    /// `Some(true)` for a native Swift class (unowned references to it are loadable).
    fn native_class(&self, t: &Ty) -> Option<bool> {
        let t = match t {
            Ty::Named(segs) if segs.len() == 1 && segs[0].name == "Optional" && segs[0].args.len() == 1 => &segs[0].args[0],
            t => t,
        };
        let name = t.to_string();
        if name == "Builtin.NativeObject" {
            return Some(true);
        }
        let mut cur = name.split('<').next().unwrap_or("").to_string();
        for _ in 0..32 {
            let n = self.env.decls.nominal(&cur)?;
            if n.kind != Kind::Class || n.attrs.iter().any(|a| a == "objc") {
                return Some(false);
            }
            match n.inherits.first().and_then(|s| s.as_simple_name().map(str::to_string).or_else(|| match s {
                Ty::Named(segs) => segs.last().map(|x| x.name.clone()),
                _ => None,
            })) {
                Some(sup) if self.env.decls.nominal(&sup).is_some_and(|s| s.kind == Kind::Class) => cur = sup,
                Some(sup) if sup == "NSObject" => return Some(false),
                _ => return Some(true),
            }
        }
        None
    }

    fn existential(&self, t: &Ty, parts: &[Ty]) -> Verdict {
        let names: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
        if names.len() == 1 && (names[0] == "Error" || names[0] == "Swift.Error") {
            return Verdict::rule(Class::Loadable, format!("{} is the error existential: boxed, a single reference to a heap box", code(t)));
        }
        if names.len() == 1 && (names[0] == "Any" || names[0] == "Swift.Any") {
            return Verdict::leaf(
                Class::AddressOnly,
                Source::Stdlib,
                None,
                format!("{} is a non-class existential: an inline buffer whose contents can be any type, of any size", code(t)),
            );
        }
        match self.class_bound(&Ty::Existential(parts.to_vec())) {
            Some(true) => Verdict::rule(
                Class::Loadable,
                format!("{} is a class existential: a single reference plus witness tables", code(t)),
            ),
            Some(false) => Verdict::rule(
                Class::AddressOnly,
                format!("{} is a non-class existential: a conforming value may have any size, or hold a weak reference, so it lives in an inline buffer in memory", code(t)),
            ),
            None => {
                let undeclared = names.iter().find(|n| self.class_bound(&ty::parse(n).unwrap_or(Ty::name(n))).is_none()).cloned().unwrap_or_default();
                Verdict::unknown(
                    format!("{}: `{undeclared}` is not declared, so whether the existential is class-bound (a reference) or not (address-only) is unknown", code(t)),
                    Some(format!("protocol {undeclared} {{}}")),
                )
            }
        }
    }
}

fn stored_label(f: &super::decl::Field, sub: &dyn Fn(&Ty) -> Ty) -> String {
    let s = sub(&f.ty);
    if s == f.ty {
        format!("stored property `{}: {}`", f.name, f.ty)
    } else {
        format!("stored property `{}: {}` = `{s}`", f.name, f.ty)
    }
}

fn bind(params: &[GenericParam], args: &[Ty]) -> HashMap<String, Ty> {
    params.iter().map(|p| p.name.clone()).zip(args.iter().cloned()).collect()
}

/// `τ_0_0`: Swift's canonical generic parameter names.
fn is_canonical_param(n: &str) -> bool {
    n.strip_prefix("τ_").is_some_and(|r| {
        let mut it = r.split('_');
        matches!((it.next(), it.next(), it.next()), (Some(a), Some(b), None) if !a.is_empty() && !b.is_empty() && a.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit()))
    })
}

fn move_only(v: Verdict, what: String) -> Verdict {
    if v.class == Class::Trivial {
        let mut why = vec![Step { text: format!("{what}: never trivial (a copy is not allowed, a destroy runs its deinit), so loadable"), at: None, source: Source::Rule }];
        why.extend(v.why);
        Verdict { class: Class::Loadable, why, move_only: true, stub: None }
    } else {
        Verdict { move_only: true, ..v }
    }
}

fn function_verdict(t: &Ty, f: &ty::FnTy) -> Verdict {
    let conv = f.attrs.iter().find_map(|a| a.strip_prefix("convention(").and_then(|r| r.strip_suffix(')'))).map(|c| c.split(':').next().unwrap_or(c).trim().to_string());
    let noescape = f.attrs.iter().any(|a| a == "noescape");
    match conv.as_deref() {
        Some(c @ ("thin" | "c" | "method" | "witness_method" | "objc_method")) => Verdict::rule(
            Class::Trivial,
            format!("{} has `@convention({c})`: a bare function pointer with no context", code(t)),
        ),
        Some("block") => Verdict::rule(Class::Loadable, format!("{} is an Objective-C block: a reference-counted object", code(t))),
        _ => {
            let callee = f.attrs.iter().find(|a| a.starts_with("callee_")).map(|a| format!("`@{a}` ")).unwrap_or_default();
            let esc = if noescape { " (`@noescape` closures are lowered as references too)" } else { "" };
            let how = if conv.is_some() || !callee.is_empty() {
                format!("a {callee}thick function")
            } else {
                "a Swift function value, which lowers to a thick function".to_string()
            };
            Verdict::rule(
                Class::Loadable,
                format!("{} is {how}: a function pointer plus a strong reference to its context{esc}", code(t)),
            )
        }
    }
}
