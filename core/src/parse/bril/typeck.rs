//! Bril's static type rules, the ones Bril's checker `brilck` applies: what each operation
//! takes and produces, one type per variable, uses of variables that are never defined,
//! calls against the callee's signature, and returns against the function's return type.
//!
//! It runs on the built IR once the parser and the builder found nothing wrong: arity,
//! labels and literals are theirs, and a malformed instruction would only produce a second
//! error here that says the same thing less clearly.
//!
//! Types are compared as the dynamic extension asks: `any` (and `ptr<any>` for the pointee)
//! matches every type, because such values are checked when the program runs. The one
//! exception is a variable's own type, which must be written the same way every time: `x: any`
//! and `x: int` in one function are two different declarations of `x`.
//!
//! The float extension's bit casts have no opcode of their own in the IR (`BrilOp::Other`), so
//! they are recognised here by name. Every other unknown operation is left alone: the lab
//! keeps what it does not model.

use crate::diag::{Diagnostics, Span};
use crate::ir::{BrilOp, Function, Inst, Op, Type, ValueId};
use std::collections::HashMap;

const INT: &Type = &Type::Int;
const BOOL: &Type = &Type::Bool;
const FLOAT: &Type = &Type::Float;
const CHAR: &Type = &Type::Char;
const ANY: &Type = &Type::Any;

/// What an operation wants in one place: an argument or its result.
#[derive(Clone, Copy)]
enum Want<'a> {
    /// This type (where `any` on either side matches).
    Is(&'a Type),
    /// The operation's type variable: any type, but the same one in every place it appears.
    T,
    /// A pointer to the type variable's type.
    PtrT,
}

/// The types an operation takes and gives, when they are fixed by the operation (or, for a
/// call, by the callee).
struct Sig<'a> {
    args: Vec<Want<'a>>,
    dest: Option<Want<'a>>,
    /// How messages say what it gives: an operation `produces`, a function `returns`.
    gives: &'static str,
}

/// The signature of an operation checked by its signature alone. `None` for `const` (the
/// builder checks the literal), for `print`, `call` and `ret` (which have rules of their own),
/// and for operations the lab does not model.
fn signature(op: &BrilOp) -> Option<Sig<'static>> {
    use BrilOp::*;
    use Want::{Is, PtrT, T};
    let sig = |args: &[Want<'static>], dest| Some(Sig { args: args.to_vec(), dest, gives: "produces" });
    match op {
        Add | Sub | Mul | Div => sig(&[Is(INT), Is(INT)], Some(Is(INT))),
        Eq | Lt | Gt | Le | Ge => sig(&[Is(INT), Is(INT)], Some(Is(BOOL))),
        Not => sig(&[Is(BOOL)], Some(Is(BOOL))),
        And | Or => sig(&[Is(BOOL), Is(BOOL)], Some(Is(BOOL))),
        Fadd | Fsub | Fmul | Fdiv => sig(&[Is(FLOAT), Is(FLOAT)], Some(Is(FLOAT))),
        Feq | Flt | Fgt | Fle | Fge => sig(&[Is(FLOAT), Is(FLOAT)], Some(Is(BOOL))),
        Ceq | Clt | Cgt | Cle | Cge => sig(&[Is(CHAR), Is(CHAR)], Some(Is(BOOL))),
        Char2Int => sig(&[Is(CHAR)], Some(Is(INT))),
        Int2Char => sig(&[Is(INT)], Some(Is(CHAR))),
        Id => sig(&[T], Some(T)),
        Nop | Jmp | Speculate | Commit => sig(&[], None),
        Br | Guard => sig(&[Is(BOOL)], None),
        Alloc => sig(&[Is(INT)], Some(PtrT)),
        Free => sig(&[PtrT], None),
        Store => sig(&[PtrT, T], None),
        Load => sig(&[PtrT], Some(T)),
        PtrAdd => sig(&[PtrT, Is(INT)], Some(PtrT)),
        // `phi` takes any number of arguments: not checked by signature.
        Const | Print | Call | Ret | Phi => None,
        // `set shadow value`: the shadow variable is the one a later `get` assigns, so both
        // arguments are variables of the same type.
        Set => sig(&[T, T], None),
        Get | Undef => sig(&[], Some(T)),
        Other(name) => match name.as_str() {
            "float2bits" => sig(&[Is(FLOAT)], Some(Is(INT))),
            "bits2float" => sig(&[Is(INT)], Some(Is(FLOAT))),
            _ => None,
        },
    }
}

/// Whether a value of type `have` may go where `want` is expected: `any` on either side
/// defers the check to run time, pointers match when their pointees do.
fn compatible(have: &Type, want: &Type) -> bool {
    match (have, want) {
        (Type::Any, _) | (_, Type::Any) => true,
        (Type::Ptr(a), Type::Ptr(b)) => compatible(a, b),
        _ => have == want,
    }
}

/// `ptr<t>`, to say what a pointer argument should have been.
fn ptr_to(t: &Type) -> Type {
    Type::Ptr(Box::new(t.clone()))
}

/// The type variable of one instruction once something fixed it: its type, and what fixed it
/// (for the message when a later place disagrees).
struct Binding {
    ty: Type,
    /// `` `p` is ptr<int> `` or `` the result `j` is float ``.
    why: String,
}

/// One function's check: the declared type of each of its variables, and where it was
/// declared.
struct FnCheck<'a> {
    text: &'a str,
    f: &'a Function,
    funcs: &'a HashMap<&'a str, &'a Function>,
    types: HashMap<ValueId, (&'a Type, Span)>,
    diags: &'a mut Diagnostics,
}

/// Checks every function of a built Bril module against Bril's type rules, reporting to
/// `diags`. `text` is the source, for the line numbers some messages quote.
pub(super) fn check(text: &str, functions: &[Function], diags: &mut Diagnostics) {
    let funcs: HashMap<&str, &Function> = functions.iter().map(|f| (f.name.as_str(), f)).collect();
    for f in functions {
        let mut c = FnCheck { text, f, funcs: &funcs, types: HashMap::new(), diags };
        c.header();
        c.declarations();
        for (_, inst) in f.insts.iter() {
            if let Op::Bril(op) = &inst.op {
                c.inst(op, inst);
            }
        }
        c.returns();
    }
}

impl<'a> FnCheck<'a> {
    fn name(&self, v: ValueId) -> &'a str {
        self.f.values[v].name.as_str()
    }

    fn line(&self, span: Span) -> usize {
        let before = self.text.get(..span.lo as usize).unwrap_or("");
        before.bytes().filter(|&b| b == b'\n').count() + 1
    }

    /// Where a rule about the whole function is reported: its `@name`.
    fn header_span(&self) -> Span {
        let lo = self.f.span.lo as usize;
        Span::new(lo, (lo + 1 + self.f.name.len()).min(self.f.span.hi as usize))
    }

    /// The rules of `@main`'s header: it returns nothing (its caller is the command line),
    /// and its parameters say how to read the command-line arguments, which `any` cannot.
    fn header(&mut self) {
        if self.f.name != "main" {
            return;
        }
        if let Some(ret) = &self.f.ret {
            let msg = format!("`@main` cannot have a return type (it declares {ret}): the program's entry returns nothing");
            self.diags.error(self.header_span(), msg);
        }
        for &p in &self.f.params {
            if self.f.values[p].ty == Some(Type::Any) {
                let msg = format!(
                    "parameter `{}` of `@main` cannot be `any`: its type says how to read the command-line argument",
                    self.name(p)
                );
                self.diags.error(self.f.values[p].span, msg);
            }
        }
    }

    /// Every variable's type, from the parameters and then every destination in order; a
    /// later declaration with another type is an error at that declaration.
    fn declarations(&mut self) {
        let f = self.f;
        for &p in &f.params {
            if let Some(ty) = &f.values[p].ty {
                self.types.entry(p).or_insert((ty, f.values[p].span));
            }
        }
        for (_, inst) in f.insts.iter() {
            let (Some(&v), Some(ty)) = (inst.results.first(), &inst.ty) else { continue };
            match self.types.get(&v) {
                None => {
                    self.types.insert(v, (ty, inst.span));
                }
                Some(&(old, at)) if old != ty => {
                    // A parameter's type is always the first one recorded.
                    let first = if f.params.contains(&v) {
                        format!("as a parameter of `@{}`", f.name)
                    } else {
                        format!("on line {}", self.line(at))
                    };
                    let msg = format!(
                        "`{}` is declared {ty} here but {old} {first}: a variable keeps one type in a function",
                        self.name(v)
                    );
                    self.diags.error(inst.span, msg);
                }
                Some(_) => {}
            }
        }
    }

    /// The type of argument `v`, or `None` (reported) when nothing defines it.
    fn arg_type(&mut self, v: ValueId, inst: &Inst) -> Option<&'a Type> {
        if let Some(&(ty, _)) = self.types.get(&v) {
            return Some(ty);
        }
        let msg = format!(
            "`{}` is used by `{}` but never defined in `@{}`: no instruction assigns it and no parameter has that name",
            self.name(v),
            inst.op,
            self.f.name
        );
        self.diags.error(inst.span, msg);
        None
    }

    fn inst(&mut self, op: &BrilOp, inst: &Inst) {
        if *op != BrilOp::Call && !inst.funcs.is_empty() && signature(op).is_some() {
            // The builder reports function names on the operations it knows; these are the
            // ones it leaves to us.
            self.diags.error(inst.span, format!("`{op}` takes no function name; only `call` does"));
        }
        match op {
            BrilOp::Print => {
                for &a in &inst.args {
                    self.arg_type(a, inst);
                }
            }
            BrilOp::Call => self.call(inst),
            BrilOp::Ret => self.ret(inst),
            _ => {
                if let Some(sig) = signature(op) {
                    self.against(inst, &format!("`{op}`"), &sig);
                }
            }
        }
    }

    fn call(&mut self, inst: &Inst) {
        let Some(name) = inst.funcs.first() else { return };
        let Some(&callee) = self.funcs.get(name.as_str()) else {
            self.diags.error(inst.span, format!("`@{name}` is not a function of this program"));
            // The arguments are still uses of variables.
            for &a in &inst.args {
                self.arg_type(a, inst);
            }
            return;
        };
        let args = callee.params.iter().map(|&p| callee.values[p].ty.as_ref().map_or(Want::Is(ANY), Want::Is)).collect();
        let sig = Sig { args, dest: callee.ret.as_ref().map(Want::Is), gives: "returns" };
        self.against(inst, &format!("`@{name}`"), &sig);
    }

    fn ret(&mut self, inst: &Inst) {
        let f = self.f;
        match (&f.ret, inst.args.as_slice()) {
            (None, []) => {}
            (None, [..]) => {
                let msg = format!("`@{}` declares no return type, so its `ret` cannot return a value", f.name);
                self.diags.error(inst.span, msg);
            }
            (Some(ty), []) => {
                let msg = format!("`@{}` returns {ty}: `ret` needs a value", f.name);
                self.diags.error(inst.span, msg);
            }
            (Some(want), [v]) => {
                if let Some(have) = self.arg_type(*v, inst) {
                    if !compatible(have, want) {
                        let msg = format!("`{}` is {have}, but `@{}` returns {want}", self.name(*v), f.name);
                        self.diags.error(inst.span, msg);
                    }
                }
            }
            // More than one value is the builder's arity error; it never gets here.
            (Some(_), [..]) => {}
        }
    }

    /// A function with a return type must say what it returns somewhere.
    fn returns(&mut self) {
        let Some(ty) = &self.f.ret else { return };
        if !self.f.insts.values().any(|i| i.op == Op::Bril(BrilOp::Ret)) {
            let msg = format!("`@{}` returns {ty} but has no `ret`", self.f.name);
            self.diags.error(self.header_span(), msg);
        }
    }

    /// Checks `inst`'s destination and then its arguments against `sig`. The destination
    /// comes first because it fixes the type variable where there is one (`j: float = load
    /// p` wants `p: ptr<float>`), as `brilck` reads it.
    fn against(&mut self, inst: &Inst, what: &str, sig: &Sig<'_>) {
        let mut bound: Option<Binding> = None;
        let dest = inst.results.first().copied();
        match (sig.dest, dest, &inst.ty) {
            (Some(want), Some(d), Some(ty)) => {
                if !fits(ty, want, &mut bound, || format!("the result `{}` is {ty}", self.name(d))) {
                    let gives = match want {
                        Want::Is(t) => t.to_string(),
                        Want::PtrT => "a pointer (`ptr<…>`)".to_string(),
                        // A bare type variable takes any type: it never mismatches.
                        Want::T => "a value".to_string(),
                    };
                    let msg = format!("{what} {} {gives}, but `{}` is declared {ty}", sig.gives, self.name(d));
                    self.diags.error(inst.span, msg);
                }
            }
            (Some(want), None, _) => {
                let msg = match want {
                    Want::Is(t) => format!("{what} {} {t}: assign it, as in `x: {t} = …`", sig.gives),
                    _ => format!("{what} {} a value: assign it, as in `x: type = …`", sig.gives),
                };
                self.diags.error(inst.span, msg);
            }
            (None, Some(d), _) => {
                self.diags.error(inst.span, format!("{what} {} no value to assign to `{}`", sig.gives, self.name(d)));
            }
            // A destination without a type was reported by the parser.
            (Some(_), Some(_), None) | (None, None, _) => {}
        }

        if inst.args.len() != sig.args.len() {
            let n = sig.args.len();
            let msg = format!(
                "{what} takes {n} argument{}, but {} given",
                if n == 1 { "" } else { "s" },
                match inst.args.len() {
                    0 => "none is".to_string(),
                    1 => "1 is".to_string(),
                    k => format!("{k} are"),
                }
            );
            self.diags.error(inst.span, msg);
            // The arguments are still uses of variables.
            for &a in &inst.args {
                self.arg_type(a, inst);
            }
            return;
        }
        for (k, (&a, &want)) in inst.args.iter().zip(&sig.args).enumerate() {
            let Some(have) = self.arg_type(a, inst) else { continue };
            if fits(have, want, &mut bound, || format!("`{}` is {have}", self.name(a))) {
                continue;
            }
            let must = match (want, &bound) {
                (Want::Is(t), _) => t.to_string(),
                (Want::PtrT, None) => "a pointer".to_string(),
                (Want::PtrT, Some(b)) => ptr_to(&b.ty).to_string(),
                (Want::T, Some(b)) => b.ty.to_string(),
                (Want::T, None) => "a value".to_string(),
            };
            // Where the type variable decided what is wanted, say what decided it.
            let since = match (want, &bound) {
                (Want::T | Want::PtrT, Some(b)) => format!(", since {}", b.why),
                _ => String::new(),
            };
            let msg = format!("`{}` is {have}, but argument {} of {what} must be {must}{since}", self.name(a), k + 1);
            self.diags.error(inst.span, msg);
        }
    }
}

/// Whether a variable of type `have` fits `want`, fixing the type variable when this is the
/// first place that says what it is (`why` says how, for a later message).
fn fits(have: &Type, want: Want<'_>, bound: &mut Option<Binding>, why: impl FnOnce() -> String) -> bool {
    match (want, bound.as_ref()) {
        (Want::Is(t), _) => compatible(have, t),
        (Want::T, Some(b)) => compatible(have, &b.ty),
        (Want::T, None) => {
            *bound = Some(Binding { ty: have.clone(), why: why() });
            true
        }
        (Want::PtrT, Some(b)) => compatible(have, &ptr_to(&b.ty)),
        (Want::PtrT, None) => match have {
            Type::Ptr(inner) => {
                *bound = Some(Binding { ty: (**inner).clone(), why: why() });
                true
            }
            // Only known at run time; what it points to stays open.
            Type::Any => true,
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests;
