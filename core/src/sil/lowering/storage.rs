//! Steps 1 and 2 of AddressLowering: which values are opaque, and where each one lives.

use super::FastMap;
use super::canon::Canon;
use super::sig::{parse_subs, ParamConv, Sig};
use super::Refusal;
use crate::cfg::Cfg;
use crate::dom::DomTree;
use crate::entity::EntityVec;
use crate::ir::{BlockId, Function, Imm, InstId, Op, SilOp, Type, ValueDef, ValueId};
use crate::print::{function_lines, Naming};
use crate::sil::types::{Class, Decls, FunctionTypes};
use serde::Serialize;
use std::borrow::Cow;
use std::collections::HashMap;

/// A value's name as code writes it: `%x`, `undef`, or the id of a value the function does
/// not have (see [`Cx::name`]).
#[derive(Clone, Copy, Debug)]
pub enum ValueName<'a> {
    Named(&'a str),
    Undef,
    Id(ValueId),
}

impl std::fmt::Display for ValueName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueName::Named(n) => write!(f, "%{n}"),
            ValueName::Undef => f.write_str("undef"),
            ValueName::Id(v) => write!(f, "{v}"),
        }
    }
}

/// Where an opaque value lives after lowering.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Storage {
    /// An indirect function argument: the argument's address is the storage.
    Argument,
    /// The `index`-th `@out` result: a new leading function argument.
    Result { index: usize },
    /// Its own `alloc_stack` (the `index`-th the pass creates).
    Stack { index: usize },
    /// The same storage as another value: its operand's (`begin_borrow`, `move_value`), or
    /// the phi it flows into (phi storage coalescing).
    Same { of: ValueId },
    /// The address it was loaded from (`load_borrow`).
    Address { of: ValueId },
    /// Reused storage: the payload of an enum, taken in place
    /// (`unchecked_enum_data`, a `switch_enum` payload).
    EnumData { of: ValueId, case: String },
    /// Def-projection: an element or field of its operand's storage.
    Element { of: ValueId, index: u32, field: Option<String> },
    /// Reused storage seen as another type (`unchecked_bitwise_cast` → `unchecked_addr_cast`,
    /// `open_existential_value` → `open_existential_addr`).
    Cast { of: ValueId },
    /// Use-projection: built directly inside element `index` of its user's storage.
    Into { user: ValueId, index: u32, field: Option<String> },
    /// Use-projection: built directly as the payload of its user `enum`.
    IntoEnum { user: ValueId, case: String },
    /// Use-projection: built directly in the existential box of its user.
    IntoExistential { user: ValueId, concrete: String },
    /// Use-projection: built directly at the address it is stored to.
    IntoStore { dest: ValueId, assign: bool },
    /// No storage of its own: the tuple a multi-result function returns, or the tuple of
    /// a call's results — its elements have storage.
    Split,
}

impl Storage {
    /// The kind, in a few words (the table's middle column).
    pub fn kind(&self) -> &'static str {
        match self {
            Storage::Argument => "indirect argument",
            Storage::Result { .. } => "@out argument",
            Storage::Stack { .. } => "alloc_stack",
            Storage::Same { .. } => "reused (same value)",
            Storage::Cast { .. } => "reused (cast)",
            Storage::Address { .. } => "reused (borrowed address)",
            Storage::EnumData { .. } => "reused (enum payload)",
            Storage::Element { .. } => "def-projection",
            Storage::Into { .. } | Storage::IntoEnum { .. } | Storage::IntoExistential { .. } | Storage::IntoStore { .. } => "use-projection",
            Storage::Split => "no storage (its elements have)",
        }
    }

    /// The value whose storage this one is part of, for the storage tree.
    pub fn parent(&self) -> Option<ValueId> {
        match self {
            Storage::Same { of } | Storage::Cast { of } | Storage::Address { of } | Storage::EnumData { of, .. } | Storage::Element { of, .. } => {
                Some(*of)
            }
            Storage::Into { user, .. } | Storage::IntoEnum { user, .. } | Storage::IntoExistential { user, .. } => Some(*user),
            Storage::IntoStore { dest, .. } => Some(*dest),
            _ => None,
        }
    }
}

/// Step 1's row, with step 2's answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpaqueValue {
    pub value: ValueId,
    /// `%copy0`
    pub name: String,
    pub ty: String,
    /// What defines it: `function argument`, `copy_value`, `bb2 argument`.
    pub def: String,
    pub storage: Storage,
    /// Why this storage, in one sentence.
    pub why: String,
}

/// A use: the instruction and the operand's position in [`crate::ir::Inst::uses`].
pub(super) type Use = (InstId, usize);

/// What the three steps share about the input function.
pub(super) struct Cx<'a> {
    pub f: &'a Function,
    pub ft: &'a FunctionTypes,
    pub decls: &'a Decls,
    pub canon: Canon<'a>,
    pub sig: Sig,
    /// Borrowed from the caller's analyses when it has them (a second CFG of the input was
    /// 0.04 s at 10^5 blocks).
    pub cfg: Cow<'a, Cfg>,
    pub dom: DomTree,
    pub rpo: Vec<BlockId>,
    /// Object type text of every value that has one. (This and the tables below are dense
    /// per id: as hash maps they were a tenth of the pass at 10^5 blocks, issue 17.)
    /// Borrowed from the function where it says the type (a copy of every value's type
    /// was an allocation per value); owned where the pass works it out.
    vty: EntityVec<ValueId, Option<Cow<'a, str>>>,
    /// Every value's uses, one after the other: value `v`'s are
    /// `use_list[use_start[v]..use_start[v + 1]]` (a vector per value was an allocation
    /// per value).
    use_start: Vec<u32>,
    use_list: Vec<Use>,
    /// [`Cx::call`]'s answers for the calls.
    /// (Boxed: a table of every instruction's room for a call was 100 MB at 10^5 blocks.)
    calls: EntityVec<InstId, Option<Box<Call>>>,
    /// [`Cx::is_trivial`]'s answers, by type text.
    trivial: std::cell::RefCell<FastMap<String, bool>>,
    /// Block and position of each placed instruction.
    pos: EntityVec<InstId, Option<(BlockId, usize)>>,
    /// Each placed instruction's line as the user wrote it (printed with user names).
    lines: EntityVec<InstId, Option<String>>,
    /// Every opaque value in reverse postorder (step 1).
    pub order: Vec<ValueId>,
    /// Per value, whether it is opaque (1) or not (0), once the types are known; `UNKNOWN`
    /// before.
    opaque: EntityVec<ValueId, u8>,
}

const UNKNOWN: u8 = 2;

impl<'a> Cx<'a> {
    /// The context of `f`, whose CFG `cfg` is (the pass builds it once, for its input check
    /// too).
    pub fn with_cfg(f: &'a Function, ft: &'a FunctionTypes, decls: &'a Decls, cfg: Cow<'a, Cfg>) -> Result<Cx<'a>, Refusal> {
        let h = f.sil.as_ref().ok_or_else(|| Refusal::new("not a SIL function"))?;
        let sig = Sig::of_text(&h.ty, &[]).ok_or_else(|| Refusal::new(format!("@{}'s type `{}` does not read as a function type", f.name, h.ty)))?;
        // A coroutine's yields of opaque values must be by address (`@yields @in_guaranteed`).
        if sig.yields && super::sig::yields_indirect(&h.ty).is_none_or(|ys| ys.iter().any(|i| !i)) {
            return Err(Refusal::new("a coroutine that yields by value (`@yields` without `@in…`) is not lowered here"));
        }
        // An address-only result leaves through an `@out` address; one written with another
        // convention (a fuzzed `@in`) has no address to go to, and its value would be left
        // returned by name after its definition became an address.
        if let Some((_, t)) = sig.results.iter().find(|(indirect, t)| !indirect && ft.class_of(&t.to_string()) == Class::AddressOnly) {
            return Err(Refusal::new(format!("@{} returns `{t}` directly, but it is address-only: an address-only result is `@out`", f.name)));
        }
        if let Some(entry) = f.entry() {
            let n = f.blocks[entry].params.len();
            if n != sig.params.len() && n == sig.params.len() + sig.indirect_results() {
                return Err(Refusal::new(format!(
                    "@{} is already lowered: its arguments include its @out results, so its address-only values are addresses",
                    f.name
                )));
            }
        }
        let dom = DomTree::dominators(f, &cfg);
        let rpo: Vec<BlockId> = cfg.reverse_postorder().collect();
        let mut lines: EntityVec<InstId, Option<String>> = EntityVec::filled(f.insts.len(), None);
        for bl in function_lines(f, Naming::User).blocks {
            for l in bl.lines {
                if let Some(i) = l.inst() {
                    // Trimmed in place: a second string per line was an allocation each.
                    let mut t = l.text;
                    t.truncate(t.trim_end().len());
                    let lead = t.len() - t.trim_start().len();
                    t.drain(..lead);
                    lines[i] = Some(t);
                }
            }
        }
        let mut cx = Cx {
            f,
            ft,
            decls,
            canon: Canon::new(decls),
            sig,
            cfg,
            dom,
            rpo,
            vty: EntityVec::filled(f.values.len(), None),
            use_start: Vec::new(),
            use_list: Vec::new(),
            calls: EntityVec::filled(f.insts.len(), None),
            trivial: Default::default(),
            pos: EntityVec::filled(f.insts.len(), None),
            lines,
            order: Vec::new(),
            opaque: EntityVec::filled(f.values.len(), UNKNOWN),
        };
        cx.index()?;
        cx.check_returns()?;
        Ok(cx)
    }

    /// Before lowering, `return` hands back every formal result, `@out` ones included (they
    /// are values until the pass gives them addresses). A return of another type than
    /// the function's (a signature edited by hand or by a fuzzer) is refused: its value may
    /// be lowered to an address the signature has no `@out` for, and the output would then
    /// return a name it no longer defines.
    fn check_returns(&self) -> Result<(), Refusal> {
        use crate::sil::types::ty;
        let formal: Vec<String> = self.sig.results.iter().map(|r| r.1.to_string()).collect();
        let want = match formal.as_slice() {
            [one] => one.clone(),
            all => format!("({})", all.join(", ")),
        };
        // Compared as the output prints them ([`Canon`]: typealiases looked through, a
        // protocol as its existential), so only types that differ after that are refused;
        // a text that does not read as a type is left alone.
        let canonical = |t: &str| ty::parse(t).is_ok().then(|| self.canon.text(t));
        let Some(want) = canonical(&want) else { return Ok(()) };
        for &b in &self.f.layout {
            let Some(t) = self.f.blocks[b].term else { continue };
            let inst = &self.f.insts[t];
            if !matches!(inst.op, Op::Sil(SilOp::Return)) {
                continue;
            }
            let Some(given) = inst.args.first().and_then(|&v| self.ty(v)) else { continue };
            if canonical(given).is_some_and(|g| g != want) {
                return Err(Refusal::at(
                    t,
                    format!("`return` in {} returns `${given}`, but @{}'s type returns `${want}`", self.f.block_name(b), self.f.name),
                ));
            }
        }
        Ok(())
    }

    fn index(&mut self) -> Result<(), Refusal> {
        let f = self.f;
        for (v, d) in f.values.iter() {
            if let Some(Type::Sil(t)) = &d.ty {
                self.vty[v] = Some(Cow::Borrowed(t.trim()));
            }
        }
        // The uses, counted, then placed in program order.
        let mut start = vec![0u32; f.values.len() + 1];
        for &b in &f.layout {
            for i in f.blocks[b].all_insts() {
                for v in f.insts[i].uses() {
                    if let Some(c) = start.get_mut(v.0 as usize + 1) {
                        *c += 1;
                    }
                }
            }
        }
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut next = start.clone();
        self.use_list = vec![(InstId(0), 0); start.last().copied().unwrap_or(0) as usize];
        for &b in &f.layout {
            for i in f.blocks[b].all_insts() {
                for (n, v) in f.insts[i].uses().enumerate() {
                    if let Some(at) = next.get_mut(v.0 as usize) {
                        self.use_list[*at as usize] = (i, n);
                        *at += 1;
                    }
                }
            }
        }
        self.use_start = start;
        let mut sigs = SigCache::default();
        for &b in &f.layout {
            for (k, i) in f.blocks[b].all_insts().enumerate() {
                self.pos[i] = Some((b, k));
                let inst = &f.insts[i];
                if matches!(inst.op, Op::Sil(SilOp::Apply | SilOp::TryApply)) {
                    self.calls[i] = self.line(i).and_then(|l| split_call_in(l, &mut sigs)).map(Box::new);
                }
                if matches!(inst.op, Op::Sil(SilOp::Apply)) {
                    if let Some(call) = self.calls[i].as_ref() {
                        if let Some(&r) = inst.results.first() {
                            let all: Vec<String> = call.sig.results.iter().map(|r| r.1.to_string()).collect();
                            let t = if all.len() == 1 { all[0].clone() } else { format!("({})", all.join(", ")) };
                            self.vty[r] = Some(Cow::Owned(t));
                        }
                    }
                }
            }
        }
        self.infer_types();
        // The types are final: each value's answer is kept.
        // One classification per distinct type text (a function of 10^5 blocks has a few
        // dozen types and hundreds of thousands of values; each classification normalizes
        // its text into a new string).
        let known: Vec<u8> = {
            let mut memo: FastMap<&str, bool> = FastMap::default();
            f.values
                .keys()
                .map(|v| {
                    u8::from(match self.ty(v) {
                        Some(t) if !t.starts_with('*') => *memo.entry(t).or_insert_with(|| self.ft.class_of(t) == Class::AddressOnly),
                        _ => false,
                    })
                })
                .collect()
        };
        self.opaque = known.into_iter().collect();
        self.check_supported()?;
        // Step 1: the opaque values, in reverse postorder.
        for &b in &self.rpo.clone() {
            let blk = &f.blocks[b];
            for &p in &blk.params {
                if self.is_opaque(p) {
                    self.order.push(p);
                }
            }
            for i in blk.all_insts() {
                for &r in &f.insts[i].results {
                    if self.is_opaque(r) {
                        self.order.push(r);
                    }
                }
            }
        }
        Ok(())
    }

    /// Refuses, before any work, an instruction on an opaque value that step 3 cannot
    /// rewrite: the message names it, and nothing half-lowered is ever shown.
    fn check_supported(&self) -> Result<(), Refusal> {
        let f = self.f;
        for &b in &f.layout {
            for i in f.blocks[b].all_insts() {
                let inst = &f.insts[i];
                let touches = inst.uses().any(|v| self.is_opaque(v)) || inst.results.iter().any(|&v| self.is_opaque(v));
                if !touches {
                    continue;
                }
                let ok = match &inst.op {
                    Op::Sil(o) => matches!(
                        o,
                        SilOp::CopyValue
                            | SilOp::DestroyValue
                            | SilOp::BeginBorrow
                            | SilOp::EndBorrow
                            | SilOp::MoveValue
                            | SilOp::LoadBorrow
                            | SilOp::Load
                            | SilOp::Store
                            | SilOp::Tuple
                            | SilOp::Struct
                            | SilOp::Enum
                            | SilOp::StructExtract
                            | SilOp::TupleExtract
                            | SilOp::DestructureStruct
                            | SilOp::DestructureTuple
                            | SilOp::DebugValue
                            | SilOp::FixLifetime
                            | SilOp::Br
                            | SilOp::SwitchEnum
                            | SilOp::UncheckedEnumData
                            | SilOp::UncheckedBitwiseCast
                            | SilOp::UnconditionalCheckedCast
                            | SilOp::CheckedCastBr
                            | SilOp::Apply
                            | SilOp::TryApply
                            | SilOp::Return
                            | SilOp::Throw
                            | SilOp::SelectEnum
                            | SilOp::Yield
                    ) || matches!(o, SilOp::InitExistentialValue | SilOp::OpenExistentialValue | SilOp::WitnessMethod | SilOp::BeginApply),
                    _ => false,
                };
                if !ok {
                    return Err(Refusal::at(i, format!("`{}` on an address-only value is not lowered here yet", inst.op)));
                }
            }
        }
        Ok(())
    }

    /// Result types the parser leaves open, from the declarations: the fields of a
    /// destructured struct, an enum's payload, the type an instruction names last.
    fn infer_types(&mut self) {
        let f = self.f;
        for &b in &f.layout {
            for i in f.blocks[b].all_insts() {
                let inst = &f.insts[i];
                let Some(&r0) = inst.results.first() else { continue };
                if matches!(&inst.op, Op::Sil(SilOp::BeginApply)) {
                    // The yielded values' types, from the callee's type and the substitutions.
                    let line = self.line(i).unwrap_or("");
                    let tys = yield_types(line).unwrap_or_default();
                    for (&r, t) in inst.results.iter().zip(tys) {
                        self.vty[r] = Some(Cow::Owned(t));
                    }
                    continue;
                }
                if self.vty[r0].is_some() && inst.results.iter().all(|&r| self.vty[r].is_some()) {
                    continue;
                }
                let agg = inst.args.first().and_then(|&a| self.vty[a].clone());
                let line = self.line(i).unwrap_or("");
                let found: Vec<Option<String>> = match &inst.op {
                    Op::Sil(SilOp::DestructureStruct) => match agg.as_deref().and_then(|t| self.members(t)) {
                        Some(ms) => ms.into_iter().map(|(_, t)| Some(t)).collect(),
                        None => continue,
                    },
                    Op::Sil(SilOp::StructExtract) => {
                        let field = line.rsplit(", ").next().unwrap_or("").trim().to_string();
                        vec![agg.as_deref().and_then(|t| self.members(t)).and_then(|ms| ms.into_iter().find(|(n, _)| *n == field).map(|(_, t)| t))]
                    }
                    Op::Sil(SilOp::UncheckedEnumData) => {
                        let case = line.rsplit(", ").next().unwrap_or("").trim().to_string();
                        vec![agg.as_deref().and_then(|t| self.payload(t, &case))]
                    }
                    // Instructions whose result type is the last type they write.
                    Op::Sil(
                        SilOp::UncheckedBitwiseCast
                        | SilOp::UnconditionalCheckedCast
                        | SilOp::InitExistentialValue
                        | SilOp::OpenExistentialValue
                        | SilOp::WitnessMethod
                        | SilOp::BeginApply
                        | SilOp::ReturnBorrow
                        | SilOp::Other(_),
                    ) => {
                        vec![crate::sil::types::function::dollar_types(line).last().cloned()]
                    }
                    _ => continue,
                };
                for (&r, t) in inst.results.iter().zip(found) {
                    if let Some(t) = t {
                        self.vty[r].get_or_insert(Cow::Owned(t));
                    }
                }
            }
        }
    }

    /// The stored properties of a struct type with its generic arguments substituted:
    /// `(#S.field, type)`.
    pub fn members(&self, ty_text: &str) -> Option<Vec<(String, String)>> {
        let (n, args) = self.nominal_of(ty_text)?;
        let map: HashMap<&str, &crate::sil::types::Ty> = n.params.iter().map(|p| p.name.as_str()).zip(args.iter()).collect();
        Some(n.fields.iter().map(|fl| (format!("#{}.{}", n.name, fl.name), fl.ty.subst(&|x| map.get(x).map(|t| (*t).clone())).to_string())).collect())
    }

    /// The payload type of `#E.case!enumelt` of an enum type.
    pub fn payload(&self, ty_text: &str, case: &str) -> Option<String> {
        let (n, args) = self.nominal_of(ty_text)?;
        let map: HashMap<&str, &crate::sil::types::Ty> = n.params.iter().map(|p| p.name.as_str()).zip(args.iter()).collect();
        let cname = case.trim_start_matches('#').split('!').next()?.rsplit('.').next()?;
        let c = n.cases.iter().find(|c| c.name == cname)?;
        Some(c.payload.as_ref()?.subst(&|x| map.get(x).map(|t| (*t).clone())).to_string())
    }

    fn nominal_of(&self, ty_text: &str) -> Option<(&crate::sil::types::decl::Nominal, Vec<crate::sil::types::Ty>)> {
        let t = crate::sil::types::ty::parse(ty_text.trim()).ok()?;
        let crate::sil::types::Ty::Named(segs) = &t else { return None };
        let last = segs.last()?;
        Some((self.decls.nominal(&last.name)?, last.args.clone()))
    }

    /// The one case a `switch_enum`'s `default` stands for (the enum's cases not listed), as
    /// `#E.c`, when the enum is declared and exactly one is left.
    pub fn default_case(&self, e: ValueId, line: &str) -> Option<String> {
        let (n, _) = self.nominal_of(self.ty(e)?)?;
        let listed: Vec<&str> = line
            .split(", ")
            .filter_map(|p| p.trim().strip_prefix("case "))
            .filter_map(|c| c.split(':').next())
            .map(|c| c.trim().trim_start_matches('#').split('!').next().unwrap_or("").rsplit('.').next().unwrap_or(""))
            .collect();
        let rest: Vec<&str> = n.cases.iter().map(|c| c.name.as_str()).filter(|c| !listed.contains(c)).collect();
        match rest[..] {
            [one] => Some(format!("#{}.{one}", n.name)),
            _ => None,
        }
    }

    /// How many blocks branch to `b`.
    pub fn cfg_preds(&self, b: BlockId) -> usize {
        // Blocks, not edges (a predecessor's edges are listed together).
        let mut ps = self.cfg.preds(b).to_vec();
        ps.dedup();
        ps.len()
    }

    pub fn ty(&self, v: ValueId) -> Option<&str> {
        self.vty.get(v).and_then(|s| s.as_deref())
    }

    /// An object value of an address-only type.
    pub fn is_opaque(&self, v: ValueId) -> bool {
        match self.opaque.get(v) {
            Some(&known) if known != UNKNOWN => known == 1,
            _ => self.classify_opaque(v),
        }
    }

    /// [`is_opaque`](Self::is_opaque) from the type text: a lookup by text in the type
    /// table, which every step asked again for every operand before the answers were kept.
    fn classify_opaque(&self, v: ValueId) -> bool {
        match self.ty(v) {
            Some(t) if !t.starts_with('*') => self.ft.class_of(t) == Class::AddressOnly,
            _ => false,
        }
    }

    /// Whether a type is trivial for certain, asked once per type text (the rewrite asks
    /// for nearly every load and store it writes).
    pub fn is_trivial(&self, t: &str) -> bool {
        if let Some(&b) = self.trivial.borrow().get(t) {
            return b;
        }
        let b = self.ft.is_trivial(t);
        self.trivial.borrow_mut().insert(t.to_string(), b);
        b
    }

    /// The value as the code writes it (`%x`, `undef`), as [`Function::value_in_code`]
    /// gives it but without a string of its own: nearly every line the pass writes, and
    /// every reason it gives, names a value.
    pub fn name(&self, v: ValueId) -> ValueName<'a> {
        match self.f.values.get(v) {
            Some(d) if d.def == ValueDef::Undef => ValueName::Undef,
            Some(d) => ValueName::Named(d.name.as_str()),
            None => ValueName::Id(v),
        }
    }

    pub fn def_inst(&self, v: ValueId) -> Option<InstId> {
        match self.f.values[v].def {
            ValueDef::Result { inst, .. } => Some(inst),
            _ => None,
        }
    }

    /// Uses that are not `debug_value`s (they do not decide where a value lives).
    pub fn real_uses(&self, v: ValueId) -> Vec<Use> {
        self.uses_of(v).iter().copied().filter(|(i, _)| !matches!(self.f.insts[*i].op, Op::Sil(SilOp::DebugValue))).collect()
    }

    /// Every use of `v`, in program order of the layout.
    pub fn uses_of(&self, v: ValueId) -> &[Use] {
        let k = v.0 as usize;
        match (self.use_start.get(k), self.use_start.get(k + 1)) {
            (Some(&a), Some(&b)) => &self.use_list[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The block and position of a placed instruction.
    pub fn pos(&self, i: InstId) -> Option<(BlockId, usize)> {
        self.pos.get(i).copied().flatten()
    }

    /// The input's lines by instruction, for the rewrites' `before` once the rest of the
    /// context is freed.
    pub fn into_lines(self) -> EntityVec<InstId, Option<String>> {
        self.lines
    }

    /// A placed instruction's line as the user wrote it.
    pub fn line(&self, i: InstId) -> Option<&str> {
        self.lines.get(i).and_then(|l| l.as_deref())
    }

    /// Whether the definition of `a` dominates the definition of `b` (an entry argument
    /// dominates everything).
    pub fn def_dominates(&self, a: ValueId, b: ValueId) -> bool {
        let at = |v: ValueId| -> Option<(BlockId, isize)> {
            match self.f.values[v].def {
                ValueDef::Param { block, .. } => Some((block, -1)),
                ValueDef::Result { inst, .. } => self.pos(inst).map(|(bl, k)| (bl, k as isize)),
                _ => None,
            }
        };
        match (at(a), at(b)) {
            (Some((ba, ka)), Some((bb, kb))) if ba == bb => ka < kb || (ka == -1 && kb == -1),
            (Some((ba, _)), Some((bb, _))) => self.dom.strictly_dominates(ba, bb),
            _ => false,
        }
    }

    /// The callee's signature at a call site, substituted, and the pieces of its text.
    /// A call taken apart: each `apply` and `try_apply` once, when the context is built
    /// (every step asks again about the same calls, and each answer reads the callee's type).
    pub fn call(&self, i: InstId) -> Option<Cow<'_, Call>> {
        match self.calls.get(i) {
            Some(Some(c)) => Some(Cow::Borrowed(&**c)),
            _ => split_call(self.line(i)?).map(Cow::Owned),
        }
    }

    /// The stored property names of a struct type, in order (`#S.f`).
    pub fn fields(&self, struct_ty: &str) -> Option<Vec<String>> {
        Some(self.members(struct_ty)?.into_iter().map(|(name, _)| name).collect())
    }

    /// The function argument that entry parameter `k` binds, with its convention (the
    /// `@out` results come first in the lowered signature, not in the input).
    pub fn param_conv(&self, k: usize) -> ParamConv {
        self.sig.params.get(k).map_or(ParamConv::Direct, |p| p.0)
    }
}

/// An `apply`/`try_apply` line taken apart.
#[derive(Clone, Debug)]
pub(super) struct Call {
    /// `apply [nothrow]` up to the callee.
    pub head: String,
    pub callee: String,
    /// `<T>` with the brackets, or empty.
    pub subs_text: String,
    /// After the argument list's `)` up to ` : $` (for try_apply: `normal bb1, error bb2`).
    pub between: String,
    /// The callee's type text (after `$`).
    pub fn_ty: String,
    pub sig: Sig,
}

pub(super) fn split_call(line: &str) -> Option<Call> {
    split_call_in(line, &mut SigCache::default())
}

/// Signatures already read, by callee type and substitutions (a 10^5-block function
/// calls through a few distinct types tens of thousands of times; reading and substituting
/// the type at each call was a third of [`split_call`]).
pub(super) type SigCache = FastMap<(String, String), Option<Sig>>;

/// [`split_call`], with the signatures it has read kept in `cache`.
pub(super) fn split_call_in(line: &str, cache: &mut SigCache) -> Option<Call> {
    let body = line.split_once(" = ").map_or(line, |(_, r)| r).trim();
    // The callee: a value, or `undef`.
    let pct = match (body.find('%'), body.find(" undef")) {
        (Some(p), Some(u)) if u < p => u + 1,
        (None, Some(u)) => u + 1,
        (p, _) => p?,
    };
    let head = body[..pct].trim_end().to_string();
    let rest = &body[pct..];
    let skip = if rest.starts_with('%') { 1 } else { 0 };
    let end = rest[skip..].find(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(rest.len(), |e| e + skip);
    let callee = rest[..end].to_string();
    let mut rest = &rest[end..];
    let mut subs_text = String::new();
    if rest.starts_with('<') {
        let close = balanced(rest, '<', '>')?;
        subs_text = rest[..=close].to_string();
        rest = &rest[close + 1..];
    }
    if !rest.starts_with('(') {
        return None;
    }
    let close = balanced(rest, '(', ')')?;
    rest = &rest[close + 1..];
    let colon = rest.find(" : $")?;
    let between = rest[..colon].trim().to_string();
    let ty_start = colon + 4;
    let ty_end = crate::parse::sil::scan::type_end(rest, ty_start).max(ty_start);
    let fn_ty = rest[ty_start..ty_end].trim().to_string();
    let after = rest[ty_end..].trim().trim_start_matches(',').trim().to_string();
    let between = if after.is_empty() { between } else { after };
    let key = (fn_ty, subs_text);
    let sig = match cache.get(&key) {
        Some(sig) => sig.clone()?,
        None => {
            let subs = parse_subs(key.1.trim_start_matches('<').strip_suffix('>').unwrap_or(""));
            let sig = subs.and_then(|subs| Sig::of_text(&key.0, &subs));
            cache.entry(key.clone()).or_insert(sig).clone()?
        }
    };
    let (fn_ty, subs_text) = key;
    Some(Call { head, callee, subs_text, between, fn_ty, sig })
}

/// The types of the values a `begin_apply` yields (`(%3, %4) = begin_apply %2<T>(%0) : $…
/// -> @yields @in_guaranteed τ_0_0` yields a `T`), substituted.
fn yield_types(line: &str) -> Option<Vec<String>> {
    use crate::sil::types::ty::{self, Ty};
    let c = split_call(line)?;
    let Ok(Ty::Function(f)) = ty::parse(c.fn_ty.trim()) else { return None };
    let subs = parse_subs(c.subs_text.trim_start_matches('<').strip_suffix('>').unwrap_or(""))?;
    let map: HashMap<&str, &Ty> = f.generics.iter().map(|g| g.name.as_str()).zip(subs.iter()).collect();
    let yields = f.results.iter().filter(|r| r.conv.as_deref() == Some("yields"));
    Some(
        yields
            .map(|r| {
                // `@in_guaranteed τ_0_0`: the convention is not part of the type.
                let t = match &r.ty {
                    Ty::Attributed(_, t) => (**t).clone(),
                    t => t.clone(),
                };
                t.subst(&|n| map.get(n).map(|t| (*t).clone())).to_string()
            })
            .collect(),
    )
}

fn balanced(s: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// Step 2: storage for every opaque value, users before definitions.
/// The storage decided so far, by value (a dense table: a hash map of every opaque value
/// was a tenth of this step at 10^5 blocks).
struct Done(EntityVec<ValueId, Option<(Storage, String)>>);

impl Done {
    fn get(&self, v: &ValueId) -> Option<&(Storage, String)> {
        self.0.get(*v).and_then(Option::as_ref)
    }
}

pub(super) fn allocate(cx: &Cx) -> Result<Vec<OpaqueValue>, Refusal> {
    let f = cx.f;
    let mut storage = Done(EntityVec::filled(f.values.len(), None));
    let mut stacks = 0usize;
    for &v in cx.order.iter().rev() {
        let s = decide(cx, v, &storage, &mut stacks)?;
        storage.0[v] = Some(s);
    }
    // Stack slots are numbered in program order (the order the `alloc_stack`s print).
    let mut renumber = FastMap::default();
    for &v in &cx.order {
        if let Some((Storage::Stack { index }, _)) = storage.get(&v) {
            let n = renumber.len();
            renumber.insert(*index, n);
        }
    }
    let mut out = Vec::new();
    for &v in &cx.order {
        let Some((mut s, why)) = storage.0.get_mut(v).and_then(Option::take) else {
            return Err(Refusal::new(format!("internal error: no storage decided for `{}`", cx.name(v))));
        };
        if let Storage::Stack { index } = &mut s {
            *index = renumber[index];
        }
        let def = match f.values[v].def {
            ValueDef::Param { block, .. } if Some(block) == f.entry() => "function argument".to_string(),
            ValueDef::Param { block, .. } => format!("{} argument", f.block_name(block)),
            ValueDef::Result { inst, .. } => f.insts[inst].op.to_string(),
            _ => "value".to_string(),
        };
        out.push(OpaqueValue { value: v, name: cx.name(v).to_string(), ty: cx.ty(v).unwrap_or("").to_string(), def, storage: s, why });
    }
    Ok(out)
}

fn case_name(imm: &Imm, line: &str) -> String {
    if let Imm::Name(n) = imm {
        if n.starts_with('#') {
            return n.to_string();
        }
    }
    line.split(", ").find(|p| p.trim_start().starts_with('#')).map(|p| p.trim().to_string()).unwrap_or_default()
}

fn decide(cx: &Cx, v: ValueId, done: &Done, stacks: &mut usize) -> Result<(Storage, String), Refusal> {
    let f = cx.f;
    let name = cx.name(v);
    match f.values[v].def {
        ValueDef::Param { block, index } if Some(block) == f.entry() => {
            let conv = cx.param_conv(index as usize);
            let why = match conv {
                ParamConv::In => format!("`{name}` is an @in argument: the caller's address becomes its storage"),
                ParamConv::InGuaranteed => format!("`{name}` is an @in_guaranteed argument: it is read in place"),
                _ => format!("`{name}` is a function argument of an address-only type: passed by address"),
            };
            return Ok((Storage::Argument, why));
        }
        ValueDef::Param { block, index } => {
            // A switch_enum payload is the enum's own payload, taken in place. (The block's
            // predecessors, not every block: a scan per block argument was quadratic.)
            for &p in cx.cfg.preds(block) {
                let Some(t) = f.blocks[p].term else { continue };
                let ti = &f.insts[t];
                if ti.succs.iter().any(|s| s.block == block) && matches!(ti.op, Op::Sil(SilOp::SwitchEnum)) {
                    let e = ti.args[0];
                    if cx.is_opaque(e) && index == 0 {
                        let line = cx.line(t).unwrap_or("").to_string();
                        let case = switch_case(&line, &f.block_name(block)).or_else(|| cx.default_case(e, &line)).unwrap_or_default();
                        return Ok((
                            Storage::EnumData { of: e, case: case.clone() },
                            format!("the payload of `{}` in case {case}: reuses the enum's storage (unchecked_take_enum_data_addr)", cx.name(e)),
                        ));
                    }
                    return Err(Refusal::at(t, "a switch_enum payload of an address-only type whose enum is loadable"));
                }
                if matches!(ti.op, Op::Sil(SilOp::CheckedCastBr)) && ti.succs.iter().any(|s| s.block == block) {
                    let src = ti.args[0];
                    if ti.succs.get(1).is_some_and(|s| s.block == block) {
                        // The cast failed: the source is still where it was.
                        return if cx.is_opaque(src) {
                            Ok((Storage::Same { of: src }, format!("the cast failed: `{name}` is `{}`, still in its storage", cx.name(src))))
                        } else {
                            Err(Refusal::at(t, "internal error: an address-only failure value of a loadable cast source"))
                        };
                    }
                    return Ok(use_projection(cx, v, done).unwrap_or_else(|| {
                        let k = *stacks;
                        *stacks += 1;
                        (Storage::Stack { index: k }, format!("`{name}`, the cast's result, gets its own alloc_stack"))
                    }));
                }
                if ti.succs.first().is_some_and(|s| s.block == block) && matches!(ti.op, Op::Sil(SilOp::TryApply)) {
                    if cx.call(t).is_some_and(|c| c.sig.results.len() > 1) {
                        return Ok((Storage::Split, format!("`{name}` is the tuple of the call's results: each result gets its own storage")));
                    }
                    return Ok(use_projection(cx, v, done).unwrap_or_else(|| {
                        let k = *stacks;
                        *stacks += 1;
                        (Storage::Stack { index: k }, format!("`{name}`, the call's result, gets its own alloc_stack"))
                    }));
                }
                if ti.succs.iter().any(|s| s.block == block) && !matches!(ti.op, Op::Sil(SilOp::Br | SilOp::CondBr)) {
                    return Err(Refusal::at(t, format!("`{}` with an address-only block argument is not lowered here", ti.op)));
                }
            }
            // A phi is allocated like any value: in its user's storage if it can be.
            return Ok(use_projection(cx, v, done).unwrap_or_else(|| {
                let k = *stacks;
                *stacks += 1;
                (Storage::Stack { index: k }, format!("`{name}` is a phi: it gets its own alloc_stack and each incoming value is moved into it"))
            }));
        }
        ValueDef::Result { inst, index } => {
            let i = &f.insts[inst];
            let op0 = i.args.first().copied();
            let opaque0 = op0.is_some_and(|a| cx.is_opaque(a));
            // A projection or forward of an address-only value reads its operand in place, so
            // the operand must have storage too. One that is not address-only here has a type
            // the type table could not classify (an undeclared `P` opening to an address-only
            // archetype): lowering it would leave the result's slot never written (found by
            // the fuzzer), so the function is refused with the type to declare.
            let in_place = matches!(&i.op, Op::Sil(SilOp::BeginBorrow | SilOp::MoveValue | SilOp::CopyValue | SilOp::UncheckedEnumData | SilOp::StructExtract | SilOp::TupleExtract | SilOp::DestructureStruct | SilOp::DestructureTuple))
                || matches!(&i.op, Op::Sil(SilOp::OpenExistentialValue));
            if let (true, false, Some(a)) = (in_place, opaque0, op0) {
                let why = cx.ty(a).map_or("whose type is not written".to_string(), |t| format!("whose type `${t}` is not known to be address-only: declare that type"));
                return Err(Refusal::at(inst, format!("cannot lower `{name}`: it is address-only, and `{}` reads it in place from `{}`, {why}", i.op, cx.name(a))));
            }
            match &i.op {
                Op::Sil(SilOp::BeginBorrow | SilOp::MoveValue) if opaque0 => {
                    let a = op0.unwrap();
                    return Ok((Storage::Same { of: a }, format!("`{name}` = {} of `{}`: the same storage", i.op, cx.name(a))));
                }
                Op::Sil(SilOp::UncheckedBitwiseCast) if opaque0 => {
                    let a = op0.unwrap();
                    return Ok((Storage::Cast { of: a }, format!("reused storage: `{}`'s memory seen as `{name}`'s type", cx.name(a))));
                }
                Op::Sil(SilOp::OpenExistentialValue) if opaque0 => {
                    let a = op0.unwrap();
                    return Ok((
                        Storage::Cast { of: a },
                        format!("reused storage: the value in `{}`'s existential box, opened in place (open_existential_addr)", cx.name(a)),
                    ));
                }
                Op::Sil(SilOp::BeginApply) => {
                    // A yielded value: by address if the coroutine yields it so, and that
                    // address is its storage, as an indirect argument's is.
                    let line = cx.line(inst).unwrap_or("");
                    let fn_ty = line.rsplit_once(" : $").map_or("", |(_, t)| t);
                    let by_address = super::sig::yields_indirect(fn_ty).and_then(|ys| ys.get(index as usize).copied()).unwrap_or(false);
                    if !by_address {
                        return Err(Refusal::at(inst, "a coroutine call that yields an address-only value by value is not lowered here"));
                    }
                    return Ok((Storage::Argument, format!("`{name}` is yielded by address: the coroutine's address is its storage")));
                }
                Op::Sil(SilOp::LoadBorrow) => {
                    let a = op0.unwrap();
                    return Ok((Storage::Address { of: a }, format!("`{name}` borrows the value at `{}` in place", cx.name(a))));
                }
                Op::Sil(SilOp::UncheckedEnumData) if opaque0 => {
                    let a = op0.unwrap();
                    let case = case_name(&i.imm, cx.line(inst).unwrap_or(""));
                    return Ok((
                        Storage::EnumData { of: a, case: case.clone() },
                        format!("reused storage: the payload {case} of `{}`, taken in place", cx.name(a)),
                    ));
                }
                Op::Sil(SilOp::StructExtract | SilOp::TupleExtract | SilOp::DestructureStruct | SilOp::DestructureTuple)
                    if opaque0 && !is_call_results(cx, op0.unwrap()) =>
                {
                    let a = op0.unwrap();
                    let (idx, field) = element_of(cx, inst, index, a).ok_or_else(|| Refusal::at(inst, "cannot find the element this projection reads"))?;
                    let what = field.clone().unwrap_or_else(|| format!("element {idx}"));
                    return Ok((
                        Storage::Element { of: a, index: idx, field },
                        format!("def-projection: {what} of `{}`'s storage", cx.name(a)),
                    ));
                }
                Op::Sil(SilOp::Apply) if is_call_results(cx, v) => {
                    return Ok((Storage::Split, format!("`{name}` is the tuple of the call's results: each result gets its own storage")));
                }
                Op::Sil(SilOp::Tuple) if is_return_tuple(cx, v) => {
                    return Ok((Storage::Split, format!("`{name}` is what the function returns: its elements go to the results")));
                }
                _ => {}
            }
        }
        _ => {}
    }
    if let Some(s) = use_projection(cx, v, done) {
        return Ok(s);
    }
    let k = *stacks;
    *stacks += 1;
    let n = cx.real_uses(v).len();
    let why = match n {
        0 => format!("`{name}` is never used: it still needs storage to be written to"),
        1 => format!("`{name}`'s one use cannot hold it: a new alloc_stack"),
        _ => format!("`{name}` has {n} uses: a new alloc_stack"),
    };
    Ok((Storage::Stack { index: k }, why))
}

/// `switch_enum %0 : $E, case #E.a!enumelt: bb1, …`: the case that leads to `label`.
pub(super) fn switch_case(line: &str, label: &str) -> Option<String> {
    for part in line.split(", ") {
        let p = part.trim();
        if let Some(rest) = p.strip_prefix("case ") {
            let (case, target) = rest.rsplit_once(": ")?;
            if target.trim() == label {
                return Some(case.trim().to_string());
            }
        }
    }
    None
}

/// The element a projection reads: its index, and the field (`#S.f`) for a struct; `None`
/// when the text or the declarations do not say.
pub(super) fn element_of(cx: &Cx, inst: InstId, result: u32, agg: ValueId) -> Option<(u32, Option<String>)> {
    let i = &cx.f.insts[inst];
    let line = cx.line(inst).unwrap_or("");
    match &i.op {
        Op::Sil(SilOp::TupleExtract) => match i.imm {
            Imm::Index(k) => Some((k, None)),
            _ => line.rsplit(", ").next()?.trim().parse().ok().map(|k| (k, None)),
        },
        Op::Sil(SilOp::StructExtract) => {
            let field = match &i.imm {
                Imm::Name(n) => n.to_string(),
                _ => line.rsplit(", ").next()?.trim().to_string(),
            };
            let idx = cx.fields(cx.ty(agg)?)?.iter().position(|x| *x == field)? as u32;
            Some((idx, Some(field)))
        }
        Op::Sil(SilOp::DestructureStruct) => {
            let field = cx.fields(cx.ty(agg)?)?.get(result as usize)?.clone();
            Some((result, Some(field)))
        }
        _ => Some((result, None)),
    }
}

/// The value of a call with several formal results: a tuple of them, split at the call.
pub(super) fn is_call_results(cx: &Cx, v: ValueId) -> bool {
    if let ValueDef::Param { block, index: 0 } = cx.f.values[v].def {
        return cx.cfg.preds(block).iter().any(|&p| {
            cx.f.blocks[p].term.is_some_and(|t| {
                let ti = &cx.f.insts[t];
                matches!(ti.op, Op::Sil(SilOp::TryApply))
                    && ti.succs.first().is_some_and(|s| s.block == block)
                    && cx.call(t).is_some_and(|c| c.sig.results.len() > 1)
            })
        });
    }
    cx.def_inst(v).is_some_and(|d| matches!(cx.f.insts[d].op, Op::Sil(SilOp::Apply)) && cx.call(d).is_some_and(|c| c.sig.results.len() > 1))
}

/// The tuple a multi-result function returns (its only use is the `return`).
pub(super) fn is_return_tuple(cx: &Cx, v: ValueId) -> bool {
    let Some(d) = cx.def_inst(v) else { return false };
    if !matches!(cx.f.insts[d].op, Op::Sil(SilOp::Tuple)) || cx.sig.results.len() < 2 {
        return false;
    }
    let us = cx.real_uses(v);
    us.len() == 1 && matches!(cx.f.insts[us[0].0].op, Op::Sil(SilOp::Return))
}

/// Whether a value stored in `s` may be built before its user is defined: the storage's
/// root must already exist where `v` is defined.
fn root_ready(cx: &Cx, s: &Storage, v: ValueId, done: &Done, depth: usize) -> bool {
    if depth > 64 {
        return false;
    }
    match s {
        Storage::Stack { .. } | Storage::Result { .. } => true,
        Storage::Into { user, .. } | Storage::IntoEnum { user, .. } | Storage::IntoExistential { user, .. } => {
            done.get(user).is_some_and(|(p, _)| root_ready(cx, p, v, done, depth + 1))
        }
        Storage::IntoStore { dest, .. } => cx.def_dominates(*dest, v),
        _ => false,
    }
}

/// Uses that only read a value in place (they do not decide where it lives: the value
/// stays where its consuming use puts it, and they read it there first).
fn reads_in_place(op: &Op) -> bool {
    matches!(op, Op::Sil(SilOp::CopyValue | SilOp::BeginBorrow | SilOp::DebugValue | SilOp::FixLifetime | SilOp::EndBorrow | SilOp::SelectEnum))
}

fn use_projection(cx: &Cx, v: ValueId, done: &Done) -> Option<(Storage, String)> {
    let f = cx.f;
    let all = cx.real_uses(v);
    let us: Vec<Use> = all.iter().copied().filter(|(i, _)| !reads_in_place(&f.insts[*i].op)).collect();
    let [(u, k)] = us[..] else { return None };
    if us.len() != all.len() && !matches!(f.insts[u].op, Op::Sil(SilOp::Tuple | SilOp::Struct | SilOp::Enum)) {
        return None;
    }
    let ui = &f.insts[u];
    let name = cx.name(v);
    match &ui.op {
        Op::Sil(SilOp::Return) if cx.sig.results.len() == 1 && cx.sig.results[0].0 => {
            if matches!(f.values[v].def, ValueDef::Param { block, .. } if Some(block) == f.entry()) {
                return None;
            }
            Some((Storage::Result { index: 0 }, format!("`{name}` is returned @out: it is built in the result's address")))
        }
        Op::Sil(SilOp::Tuple | SilOp::Struct) => {
            let a = *ui.results.first()?;
            if is_return_tuple(cx, a) {
                let (indirect, _) = cx.sig.results.get(k)?;
                if !indirect {
                    return None;
                }
                let index = cx.sig.results[..k].iter().filter(|r| r.0).count();
                return Some((Storage::Result { index }, format!("`{name}` is returned as @out result {index}: built in that address")));
            }
            let (ps, _) = done.get(&a)?;
            if !root_ready(cx, ps, v, done, 0) {
                return None;
            }
            let field = if matches!(ui.op, Op::Sil(SilOp::Struct)) {
                cx.ty(a).and_then(|t| cx.fields(t)).and_then(|fs| fs.get(k).cloned())
            } else {
                None
            };
            let what = field.clone().unwrap_or_else(|| format!("element {k}"));
            Some((
                Storage::Into { user: a, index: k as u32, field },
                format!("use-projection: built directly as {what} of `{}`", cx.name(a)),
            ))
        }
        Op::Sil(SilOp::Enum) => {
            let a = *ui.results.first()?;
            let (ps, _) = done.get(&a)?;
            if !root_ready(cx, ps, v, done, 0) {
                return None;
            }
            let case = case_name(&ui.imm, cx.line(u).unwrap_or(""));
            Some((Storage::IntoEnum { user: a, case: case.clone() }, format!("use-projection: built directly as the {case} payload of `{}`", cx.name(a))))
        }
        Op::Sil(SilOp::InitExistentialValue) => {
            let a = *ui.results.first()?;
            let (ps, _) = done.get(&a)?;
            if !root_ready(cx, ps, v, done, 0) {
                return None;
            }
            let concrete = cx.ty(v)?.to_string();
            Some((Storage::IntoExistential { user: a, concrete }, format!("use-projection: built directly in the existential box of `{}`", cx.name(a))))
        }
        Op::Sil(SilOp::Br) => {
            // A phi's storage is shared with an incoming value that cannot interfere with
            // what else it holds: one defined in the branching block itself (the phi's
            // other incoming values live in other blocks), where the phi is not live (its
            // block does not dominate this one: no loop brings it back here).
            let phi = *f.blocks[ui.succs.first()?.block].params.get(k)?;
            let (ps, _) = done.get(&phi)?;
            let (pred, _) = cx.pos(u)?;
            let d = cx.def_inst(v)?;
            if cx.pos(d)?.0 != pred || cx.dom.dominates(ui.succs[0].block, pred) || !root_ready(cx, ps, v, done, 0) {
                return None;
            }
            Some((Storage::Same { of: phi }, format!("coalesced with the phi `{}`: built directly in its storage", cx.name(phi))))
        }
        Op::Sil(SilOp::Store) if k == 0 => {
            if matches!(f.values[v].def, ValueDef::Param { block, .. } if Some(block) == f.entry()) {
                return None;
            }
            let dest = *ui.args.get(1)?;
            let d = cx.def_inst(v)?;
            if matches!(f.insts[d].op, Op::Sil(SilOp::CopyValue)) {
                // The copy is made at the store, straight into the destination: its source
                // must still be there, untouched, when the store comes.
                let src = *f.insts[d].args.first()?;
                if !source_quiet_between(cx, v, u, src) {
                    return None;
                }
            } else if !cx.def_dominates(dest, v) || !quiet_between(cx, v, u, dest) {
                return None;
            }
            let assign = ui.attrs.iter().any(|a| a == "assign");
            Some((
                Storage::IntoStore { dest, assign },
                format!("use-projection: built directly at `{}`, where it is stored", cx.name(dest)),
            ))
        }
        _ => None,
    }
}

/// The copy `v` of `src`, made late at the store `u`, reads what `v` read: nothing between
/// may consume or change `src` nor any value whose storage `src` is part of or reuses (a
/// field extracted from a borrow reads the aggregate's memory, so a `destructure_struct` of
/// the aggregate in between moves the field away before the late copy reads it).
fn source_quiet_between(cx: &Cx, v: ValueId, u: InstId, src: ValueId) -> bool {
    let mut family = vec![src];
    while family.len() <= 64 {
        let Some(d) = cx.def_inst(*family.last().expect("not empty")) else { break };
        let i = &cx.f.insts[d];
        let reads_operand = matches!(
            i.op,
            Op::Sil(
                SilOp::StructExtract
                    | SilOp::TupleExtract
                    | SilOp::BeginBorrow
                    | SilOp::UncheckedEnumData
                    | SilOp::DestructureStruct
                    | SilOp::DestructureTuple
            )
        );
        match i.args.first() {
            Some(&a) if reads_operand && !family.contains(&a) => family.push(a),
            _ => break,
        }
    }
    // Uses that leave the value where it is: its last reader may be any of them.
    let leaves = |op: &Op| {
        matches!(
            op,
            Op::Sil(SilOp::EndBorrow | SilOp::DebugValue | SilOp::CopyValue | SilOp::BeginBorrow | SilOp::StructExtract | SilOp::TupleExtract | SilOp::FixLifetime)
        )
    };
    insts_between(cx, v, u).is_some_and(|between| {
        between.iter().all(|&i| {
            let inst = &cx.f.insts[i];
            !inst.uses().any(|x| x == src) && (leaves(&inst.op) || !inst.uses().any(|x| family.contains(&x)))
        })
    })
}

/// Nothing touches `dest` between the definition of `v` and the store `u` (same block only).
fn quiet_between(cx: &Cx, v: ValueId, u: InstId, dest: ValueId) -> bool {
    insts_between(cx, v, u).is_some_and(|between| between.iter().all(|&i| !cx.f.insts[i].uses().any(|x| x == dest)))
}

/// The instructions strictly between the definition of `v` and `u`, when both are in one
/// block with the definition first (`None` otherwise: the late placement is not tried).
fn insts_between(cx: &Cx, v: ValueId, u: InstId) -> Option<Vec<InstId>> {
    let d = cx.def_inst(v)?;
    let ((bd, kd), (bu, ku)) = (cx.pos(d)?, cx.pos(u)?);
    if bd != bu || kd > ku {
        return None;
    }
    Some(cx.f.blocks[bd].all_insts().skip(kd + 1).take(ku.saturating_sub(kd + 1)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every call line of the Swift corpus (and its apply shapes mutated: other
    /// substitutions, other callee types), taken apart with one signature cache shared by
    /// all of them, is what [`split_call`] makes of it alone (read from scratch).
    #[test]
    fn cached_signatures_are_read_ones() {
        let mut lines: Vec<String> = Vec::new();
        for (_, text) in super::super::corpus_sil() {
            lines.extend(text.lines().map(str::trim).filter(|l| l.contains("apply ")).map(str::to_string));
        }
        let extra: Vec<String> = lines.iter().flat_map(|l| [l.replacen("<T>", "<Int>", 1), l.replacen("τ_0_0", "Int", 1)]).collect();
        lines.extend(extra);
        assert!(lines.len() > 100, "only {} call lines", lines.len());
        let mut cache = SigCache::default();
        let mut read = 0;
        for l in lines.iter().chain(lines.iter()) {
            let cached = split_call_in(l, &mut cache);
            let alone = split_call(l);
            assert_eq!(format!("{cached:?}"), format!("{alone:?}"), "{l}");
            read += usize::from(alone.is_some());
        }
        assert!(read > 100 && cache.len() > 10 && cache.len() < read, "{read} read, {} in the cache", cache.len());
    }
}
