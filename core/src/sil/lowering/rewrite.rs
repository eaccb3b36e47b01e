//! Step 3 of AddressLowering: every instruction into its address form.
//!
//! The output is built as text, line by line, in Swift's own spelling (`copy_addr [take] %1
//! to [init] %0 : $*T`), and each input instruction's replacement is recorded as a
//! [`Rewrite`] for the step-by-step view.

use super::sig::ParamConv;
use super::storage::{is_return_tuple, Cx, Storage};
use super::{OpaqueValue, Refusal, Rewrite, StackSlot};
use crate::entity::EntityVec;
use crate::ir::{BlockId, InstId, Op, SilOp, ValueDef, ValueId};
use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::Rc;
use super::{FastMap, FastSet};
use std::collections::HashMap;

pub(super) struct Out {
    pub text: String,
    pub stacks: Vec<StackSlot>,
    /// The rewrites without their text: their lines are where the text has them, and
    /// [`Out::rewrites`] copies them out once the text has been read back. Holding a copy of
    /// every line, and of every input line, while the parser reads the text made that the
    /// pass's peak of memory (over 1 GiB at 10^5 blocks, issue 17).
    deferred: Vec<Deferred>,
    /// Every line a rewrite wrote: its bytes in its block's text (`Deferred::lines` indexes
    /// this).
    spans: Vec<(usize, usize)>,
    /// Where each block's text starts in `text`.
    block_at: EntityVec<BlockId, usize>,
}

/// A [`Rewrite`] whose lines are still in the text.
struct Deferred {
    inst: Option<InstId>,
    block: BlockId,
    /// The block label line before (a block's rewrite); an instruction's is its input line.
    before: Option<String>,
    /// Its lines: `spans[lines]`.
    lines: std::ops::Range<usize>,
    why: String,
}

impl Out {
    /// The rewrites in program order, with `lines` the input's lines by instruction (the
    /// context's, see [`Cx::into_lines`]; each is moved into its rewrite). Leaves the text
    /// alone and everything else empty.
    pub fn take_rewrites(&mut self, f: &crate::ir::Function, mut lines: EntityVec<InstId, Option<String>>) -> Vec<Rewrite> {
        let mut labels: EntityVec<BlockId, Option<String>> = EntityVec::filled(f.blocks.len(), None);
        let spans = std::mem::take(&mut self.spans);
        let (text, block_at) = (&self.text, &self.block_at);
        std::mem::take(&mut self.deferred)
            .into_iter()
            .map(|d| {
                let at = block_at.get(d.block).copied().unwrap_or(0);
                let after = spans[d.lines].iter().map(|&(a, b)| text[at + a..at + b].to_string()).collect();
                let before = match (d.before, d.inst) {
                    (Some(b), _) => b,
                    // An instruction has one rewrite: its line is moved, not copied.
                    (None, Some(i)) => lines.get_mut(i).and_then(Option::take).unwrap_or_default(),
                    (None, None) => String::new(),
                };
                let label = labels[d.block].get_or_insert_with(|| f.block_name(d.block)).clone();
                Rewrite { inst: d.inst, block: label, before, after, why: d.why }
            })
            .collect()
    }
}

/// Lines in one buffer: where each ends in it. The rewrite writes about a million lines at
/// 10^5 blocks; a string of its own for each, copied into the text and freed, was an
/// allocation and a free per line (malloc was the largest part of the pass, issue 17).
#[derive(Default)]
struct Lines {
    buf: String,
    ends: Vec<usize>,
}

impl Lines {
    fn push(&mut self, line: &str) {
        self.buf.push_str(line);
        self.end_line();
    }

    fn push_fmt(&mut self, line: std::fmt::Arguments) {
        let _ = self.buf.write_fmt(line);
        self.end_line();
    }

    /// Ends the line written into `buf` since the last one.
    fn end_line(&mut self) {
        self.ends.push(self.buf.len());
    }

    fn clear(&mut self) {
        self.buf.clear();
        self.ends.clear();
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        let mut start = 0;
        self.ends.iter().map(move |&e| {
            let l = &self.buf[start..e];
            start = e;
            l
        })
    }

    /// `other`'s lines inserted before the last line (at the end if there is none).
    fn insert_before_last(&mut self, other: &Lines) {
        if other.ends.is_empty() {
            return;
        }
        let Some(last_end) = self.ends.pop() else {
            for l in other.iter() {
                self.push(l);
            }
            return;
        };
        let start = self.ends.last().copied().unwrap_or(0);
        let last = self.buf[start..last_end].to_string();
        self.buf.truncate(start);
        for l in other.iter() {
            self.push(l);
        }
        self.push(&last);
    }
}

struct W<'c, 'a> {
    cx: &'c Cx<'a>,
    /// Each opaque value's storage (step 2's answer, borrowed), by value id.
    st: EntityVec<ValueId, Option<&'c Storage>>,
    /// [`W::ty`]'s answers, by value.
    tys: RefCell<EntityVec<ValueId, Option<Rc<str>>>>,
    /// [`W::ty`]'s answers by the input's type text: a function has a few dozen types and
    /// hundreds of thousands of values, and a canonical text and an `Rc` of it per value
    /// were two allocations each (and their frees).
    ty_by_text: RefCell<FastMap<&'c str, Rc<str>>>,
    /// Addresses already materialized, and the block where.
    memo: EntityVec<ValueId, Option<(Rc<str>, BlockId)>>,
    names: Fresh<'a>,
    cur: BlockId,
    /// The lines of the instruction being rewritten.
    after: Lines,
    out_names: Vec<String>,
    /// The function's stack slots, in allocation order.
    stacks: Vec<StackSlot>,
    /// Instructions a rewrite of an earlier one already took care of, with why.
    folded: FastMap<InstId, String>,
    /// `end_borrow`s to emit after an instruction.
    pending: FastMap<InstId, Vec<String>>,
    /// Lines to emit at the start of a block (a `try_apply`'s cleanups in its successors).
    block_start: FastMap<BlockId, Vec<String>>,
    /// New parameter lists (a `try_apply`'s normal block receives only the direct results).
    block_params: FastMap<BlockId, Vec<String>>,
    /// The stack slot a loadable source of an `unconditional_checked_cast` goes through.
    cast_slots: FastMap<InstId, String>,
    /// Slots of a type opened from an existential: allocated right after the instruction
    /// that opens it (the type exists only from there), freed where that block's
    /// dominance ends. Slot index → the opening instruction and its block.
    late: FastMap<usize, (InstId, BlockId)>,
    /// The late slots' indexes, ascending: the walks over them at every branch and exit
    /// must not visit every slot (that was quadratic: a lowered function has a slot per
    /// few blocks).
    late_order: Vec<usize>,
    /// The input's `dealloc_stack`s moved after a late slot's, to keep the stack nested
    /// (what Swift's StackNesting does after the pass): per slot, the lines.
    deferred: FastMap<usize, Vec<String>>,
    deferred_insts: FastSet<InstId>,
}

fn trim_pct(s: &str) -> &str {
    s.trim_start_matches('%')
}

/// A name in use: the input's borrowed, a new one inline (new names are short: a string
/// of its own for each, allocated and later freed, was a tenth of the rewrite at 10^5
/// blocks). Hashed and compared as its text, so the set is searched by `&str`.
#[derive(Debug)]
enum Taken<'a> {
    Input(&'a str),
    New(smol_str::SmolStr),
}

impl Taken<'_> {
    fn as_str(&self) -> &str {
        match self {
            Taken::Input(s) => s,
            Taken::New(s) => s,
        }
    }
}

impl PartialEq for Taken<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Taken<'_> {}

impl std::hash::Hash for Taken<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_str().hash(h);
    }
}

impl std::borrow::Borrow<str> for Taken<'_> {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

/// New value names: `%base`, else the first free `%base_k` (k = 1, 2, …).
struct Fresh<'a> {
    /// The names in use, without their `%`: the input's borrowed from it (a copy of every
    /// value's name was a tenth of the rewrite at 10^4 blocks), the new ones owned.
    taken: FastSet<Taken<'a>>,
    /// Per base, the k below which every `%base_k` is taken: names are only ever added, so
    /// the search resumes there (from 1 each time, n calls with one base — `%result` for
    /// each unused call result — were quadratic).
    next: FastMap<String, usize>,
    /// The base being named.
    scratch: String,
}

impl<'a> Fresh<'a> {
    /// `taken`: the names in use, as values store them (without the `%` they print with);
    /// with room for `more` new names past those (a set grown name by name rehashed
    /// hundreds of thousands of names at 10^5 blocks).
    fn with_room(taken: impl IntoIterator<Item = Cow<'a, str>>, more: usize) -> Fresh<'a> {
        let taken = taken.into_iter();
        let mut set = FastSet::with_capacity_and_hasher(taken.size_hint().0 + more, Default::default());
        set.extend(taken.map(|n| match n {
            Cow::Borrowed(b) => Taken::Input(b),
            Cow::Owned(o) => Taken::New(o.into()),
        }));
        Fresh { taken: set, next: FastMap::default(), scratch: String::new() }
    }

    fn fresh(&mut self, base: &str) -> String {
        self.scratch.clear();
        self.scratch.push_str(base);
        self.name_scratch()
    }

    /// [`Fresh::fresh`] of a base written with `format_args!` (no string of its own).
    fn fresh_fmt(&mut self, base: std::fmt::Arguments) -> String {
        self.scratch.clear();
        let _ = self.scratch.write_fmt(base);
        self.name_scratch()
    }

    /// The name for the base in `scratch`: built in the string it is returned in, with one
    /// copy (without its `%`) kept as taken.
    fn name_scratch(&mut self) -> String {
        let mut out = String::with_capacity(self.scratch.len() + 4);
        out.push('%');
        out.extend(trim_pct(&self.scratch).chars().map(|c| if c.is_alphanumeric() || c == '_' { c } else { '_' }));
        if self.taken.contains(&out[1..]) {
            let blen = out.len();
            let mut k = self.next.get(&out[1..blen]).copied().unwrap_or(1);
            loop {
                out.truncate(blen);
                let _ = write!(out, "_{k}");
                k += 1;
                if !self.taken.contains(&out[1..]) {
                    break;
                }
            }
            match self.next.get_mut(&out[1..blen]) {
                Some(e) => *e = k,
                None => {
                    self.next.insert(out[1..blen].to_string(), k);
                }
            }
        }
        self.taken.insert(Taken::New(smol_str::SmolStr::new(&out[1..])));
        out
    }
}

impl<'c, 'a> W<'c, 'a> {
    fn fresh(&mut self, base: &str) -> String {
        self.names.fresh(base)
    }

    fn fresh_fmt(&mut self, base: std::fmt::Arguments) -> String {
        self.names.fresh_fmt(base)
    }

    fn emit(&mut self, line: &str) {
        self.after.push(line);
    }

    /// A line written straight into the instruction's buffer (no string of its own).
    fn emitf(&mut self, line: std::fmt::Arguments) {
        self.after.push_fmt(line);
    }

    /// An input line with its types canonical ([`super::Canon::fragment`]), as a line.
    fn emit_fragment(&mut self, text: &str) {
        let cx = self.cx;
        cx.canon.fragment_to(text, &mut self.after.buf);
        self.after.end_line();
    }

    fn name(&self, v: ValueId) -> super::storage::ValueName<'a> {
        self.cx.name(v)
    }

    /// A value's name without its `%` (a base for new names).
    fn bare(&self, v: ValueId) -> Cow<'a, str> {
        match self.name(v) {
            super::storage::ValueName::Named(n) => Cow::Borrowed(trim_pct(n)),
            other => Cow::Owned(other.to_string()),
        }
    }

    /// A value's type as the output prints it, asked once per value (nearly every line
    /// the rewrite writes has one; a lookup by text and a copy each time added up).
    fn ty(&self, v: ValueId) -> Rc<str> {
        if let Some(Some(t)) = self.tys.borrow().get(v) {
            return t.clone();
        }
        let raw = self.cx.ty(v).unwrap_or("()");
        let t = self.ty_by_text.borrow_mut().entry(raw).or_insert_with(|| self.cx.canon.text(raw).into()).clone();
        if let Some(slot) = self.tys.borrow_mut().get_mut(v) {
            *slot = Some(t.clone());
        }
        t
    }

    fn opaque(&self, v: ValueId) -> bool {
        self.cx.is_opaque(v)
    }

    fn storage(&self, v: ValueId) -> Option<&'c Storage> {
        self.st.get(v).copied().flatten()
    }

    /// `[trivial]` or `[init]`/`[take]`… for a loadable type.
    fn qual(&self, ty: &str, nontrivial: &'static str) -> &'static str {
        if self.cx.is_trivial(ty) {
            "[trivial]"
        } else {
            nontrivial
        }
    }

    /// The address of an opaque value here, emitting projections as needed.
    fn addr(&mut self, v: ValueId) -> Result<Rc<str>, Refusal> {
        self.addr_depth(v, 0)
    }

    fn addr_depth(&mut self, v: ValueId, depth: usize) -> Result<Rc<str>, Refusal> {
        if depth > 64 {
            return Err(Refusal::new("internal error: storage projections nest too deeply"));
        }
        if let Some((n, b)) = self.memo.get(v).and_then(Option::as_ref) {
            if *b == self.cur || self.cx.dom.dominates(*b, self.cur) {
                return Ok(n.clone());
            }
        }
        let Some(s) = self.storage(v) else {
            let def = match self.cx.def_inst(v) {
                Some(d) => format!("`{}`", self.cx.f.insts[d].op),
                None => "a block argument".to_string(),
            };
            return Err(Refusal::new(format!("`{}`, defined by {def}, is used as an address-only value: that is not lowered here yet", self.cx.name(v))));
        };
        let name = match *s {
            Storage::Argument => return Ok(self.name(v).to_string().into()),
            Storage::Result { index } => return Ok(self.out_names[index].as_str().into()),
            Storage::Stack { index } => return Ok(self.stacks[index].name.as_str().into()),
            Storage::Same { of } => return self.addr_depth(of, depth + 1),
            Storage::Address { of } | Storage::IntoStore { dest: of, .. } => return Ok(self.name(of).to_string().into()),
            Storage::Split => return Err(Refusal::new(format!("internal error: `{}` has no storage of its own", self.cx.name(v)))),
            Storage::EnumData { of, ref case } => {
                let p = self.addr_depth(of, depth + 1)?;
                let n = self.fresh_fmt(format_args!("{}_addr", self.cx.name(v)));
                let t = self.ty(of);
                self.emitf(format_args!("{n} = unchecked_take_enum_data_addr {p} : $*{t}, {}", enumelt(case)));
                n
            }
            // A def-projection (a part of its operand) and a use-projection (a part of its
            // user) are the same address: an element of the other value's storage.
            Storage::Element { of: whole, index, ref field } | Storage::Into { user: whole, index, ref field } => {
                let p = self.addr_depth(whole, depth + 1)?;
                let n = self.fresh_fmt(format_args!("{}_addr", self.cx.name(v)));
                self.emit_projection(&n, &p, whole, index, field.as_deref());
                n
            }
            Storage::IntoEnum { user, ref case } => {
                let p = self.addr_depth(user, depth + 1)?;
                let n = self.fresh_fmt(format_args!("{}_addr", self.cx.name(v)));
                let t = self.ty(user);
                self.emitf(format_args!("{n} = init_enum_data_addr {p} : $*{t}, {}", enumelt(case)));
                n
            }
            Storage::Cast { of } => {
                let p = self.addr_depth(of, depth + 1)?;
                let n = self.fresh_fmt(format_args!("{}_addr", self.cx.name(v)));
                let (tf, tv) = (self.ty(of), self.ty(v));
                let opens = self.cx.def_inst(v).is_some_and(|d| matches!(&self.cx.f.insts[d].op, Op::Sil(SilOp::OpenExistentialValue)));
                if opens {
                    self.emitf(format_args!("{n} = open_existential_addr immutable_access {p} : $*{tf} to $*{tv}"));
                } else {
                    self.emitf(format_args!("{n} = unchecked_addr_cast {p} : $*{tf} to $*{tv}"));
                }
                n
            }
            Storage::IntoExistential { user, ref concrete } => {
                let p = self.addr_depth(user, depth + 1)?;
                let n = self.fresh_fmt(format_args!("{}_addr", self.cx.name(v)));
                let t = self.ty(user);
                let c = self.cx.canon.text(concrete);
                self.emitf(format_args!("{n} = init_existential_addr {p} : $*{t}, ${c}"));
                n
            }
        };
        let name: Rc<str> = name.into();
        self.memo[v] = Some((name.clone(), self.cur));
        Ok(name)
    }

    /// `%n = tuple_element_addr %p : $*(T, T), 1` or `struct_element_addr … #S.f`.
    fn emit_projection(&mut self, n: &str, parent: &str, agg: ValueId, index: u32, field: Option<&str>) {
        let t = self.ty(agg);
        match field {
            Some(fl) => self.emitf(format_args!("{n} = struct_element_addr {parent} : $*{t}, {fl}")),
            None => self.emitf(format_args!("{n} = tuple_element_addr {parent} : $*{t}, {index}")),
        }
    }

    /// A fresh projection (not remembered) of element `k` of an aggregate.
    fn element_addr(&mut self, agg: ValueId, parent: &str, k: usize, is_struct: bool) -> Result<String, Refusal> {
        let field = if is_struct {
            let fs = self.cx.ty(agg).and_then(|t| self.cx.fields(t)).ok_or_else(|| {
                Refusal::new(format!("the fields of `{}` are not declared in the file", self.cx.ty(agg).unwrap_or("?")))
            })?;
            Some(fs.get(k).cloned().ok_or_else(|| Refusal::new("a struct with more operands than declared fields"))?)
        } else {
            None
        };
        let n = self.fresh_fmt(format_args!("{}_{k}", trim_pct(parent)));
        self.emit_projection(&n, parent, agg, k as u32, field.as_deref());
        Ok(n)
    }

    /// Puts value `x` into the (uninitialized) address `dst`: a move for an opaque value, a
    /// store for a loadable one.
    fn put(&mut self, x: ValueId, dst: &str) -> Result<(), Refusal> {
        if self.opaque(x) {
            let src = self.addr(x)?;
            let t = self.ty(x);
            self.emitf(format_args!("copy_addr [take] {src} to [init] {dst} : $*{t}"));
        } else {
            let t = self.ty(x);
            let q = self.qual(self.cx.ty(x).unwrap_or(""), "[init]");
            let xn = self.name(x);
            self.emitf(format_args!("store {xn} to {q} {dst} : $*{t}"));
        }
        Ok(())
    }

    /// Frees the stack slots at a function exit: the late ones allocated on the way here
    /// (with the input's deallocations deferred after them), then the entry's.
    fn deallocs(&mut self) {
        for j in (0..self.late_order.len()).rev() {
            let k = self.late_order[j];
            if self.cx.dom.dominates(self.late[&k].1, self.cur) {
                self.dealloc_late(k);
            }
        }
        for k in (0..self.stacks.len()).rev() {
            if !self.late.contains_key(&k) {
                self.after.push_fmt(format_args!("dealloc_stack {} : $*{}", self.stacks[k].name, self.stacks[k].ty));
            }
        }
    }

    fn dealloc_late(&mut self, k: usize) {
        self.after.push_fmt(format_args!("dealloc_stack {} : $*{}", self.stacks[k].name, self.stacks[k].ty));
        if let Some(ls) = self.deferred.get(&k) {
            for l in ls {
                self.after.push(l);
            }
        }
    }

    /// The late slots whose region a branch from the current block leaves: freed before
    /// the branch. A branch that leaves on one edge and stays on another is refused.
    fn leave_regions(&mut self, term: InstId) -> Result<Lines, Refusal> {
        let f = self.cx.f;
        let saved = std::mem::take(&mut self.after);
        let succs: Vec<BlockId> = f.insts[term].succs.iter().map(|s| s.block).collect();
        for j in (0..self.late_order.len()).rev() {
            let k = self.late_order[j];
            let a = self.late[&k].1;
            if !self.cx.dom.dominates(a, self.cur) {
                continue;
            }
            let inside = succs.iter().filter(|&&s| self.cx.dom.strictly_dominates(a, s)).count();
            if inside == succs.len() {
                continue;
            }
            if inside > 0 {
                return Err(Refusal::at(term, "a branch that leaves the block of an opened existential's stack slot on one edge only"));
            }
            self.dealloc_late(k);
        }
        Ok(std::mem::replace(&mut self.after, saved))
    }

    /// The input line (borrowed from the context: every instruction reads its own, and a
    /// copy each time was an allocation per line).
    fn line(&self, i: InstId) -> &'c str {
        let cx: &'c Cx<'a> = self.cx;
        cx.line(i).unwrap_or("")
    }

    /// Rewrites one instruction into `self.after`; returns why.
    fn inst(&mut self, id: InstId) -> Result<String, Refusal> {
        let cx = self.cx;
        let f = cx.f;
        let i = &f.insts[id];
        if let Some(why) = self.folded.get(&id) {
            return Ok(why.clone());
        }
        let line = self.line(id);
        let op = match &i.op {
            Op::Sil(o) => o.clone(),
            _ => return Err(Refusal::at(id, "not SIL")),
        };
        let any_opaque = i.uses().any(|v| self.opaque(v)) || i.results.iter().any(|&v| self.opaque(v));
        let is_call = matches!(op, SilOp::Apply | SilOp::TryApply);
        if is_call {
            return self.call(id);
        }
        if matches!(op, SilOp::Return) {
            return self.ret(id);
        }
        if matches!(op, SilOp::Throw | SilOp::Unwind) {
            self.deallocs();
            self.emit_fragment(line);
            return Ok("unchanged (stack slots deallocated first)".into());
        }
        if self.deferred_insts.contains(&id) {
            return Ok("moved after the opened existential's stack slot is freed (stack nesting)".into());
        }
        if !any_opaque {
            self.emit_fragment(line);
            return Ok("unchanged".into());
        }
        let a0 = i.args.first().copied();
        let v0 = i.results.first().copied();
        match op {
            SilOp::CopyValue => {
                let (x, v) = (a0.unwrap(), v0.unwrap());
                let src = self.addr(x)?;
                let t = self.ty(x);
                match self.storage(v).cloned() {
                    Some(Storage::IntoStore { .. }) => {
                        return Ok("the copy is made at its store, straight into the destination".into());
                    }
                    _ => {
                        let d = self.addr(v)?;
                        self.emitf(format_args!("copy_addr {src} to [init] {d} : $*{t}"));
                    }
                }
                Ok("copy_value → copy_addr (a copy the input made)".into())
            }
            SilOp::DestroyValue => {
                let x = a0.unwrap();
                let a = self.addr(x)?;
                let t = self.ty(x);
                self.emitf(format_args!("destroy_addr {a} : $*{t}"));
                Ok("destroy_value → destroy_addr".into())
            }
            SilOp::BeginBorrow | SilOp::MoveValue => Ok(format!("{op} of an opaque value: it keeps its storage; nothing to emit")),
            SilOp::EndBorrow => Ok("the borrowed opaque value was read in place: nothing to end".into()),
            SilOp::LoadBorrow => Ok("load_borrow of an opaque value: read in place".into()),
            SilOp::Load => {
                let (a, v) = (a0.unwrap(), v0.unwrap());
                let take = i.attrs.iter().any(|x| x == "take");
                let src = self.name(a);
                let t = self.ty(v);
                let (d, init) = match self.storage(v).cloned() {
                    Some(Storage::IntoStore { dest, assign }) => (self.name(dest).to_string(), !assign),
                    _ => (self.addr(v)?.to_string(), true),
                };
                let tk = if take { "[take] " } else { "" };
                let ini = if init { "[init] " } else { "" };
                self.emitf(format_args!("copy_addr {tk}{src} to {ini}{d} : $*{t}"));
                Ok(format!("load [{}] → copy_addr{}", if take { "take" } else { "copy" }, if take { " [take] (a move)" } else { " (a copy the input made)" }))
            }
            SilOp::Store => {
                let (x, a) = (a0.unwrap(), i.args[1]);
                if let Some(Storage::IntoStore { dest, assign }) = self.storage(x).cloned() {
                    if dest == a {
                        let Some(d) = cx.def_inst(x).filter(|&d| matches!(cx.f.insts[d].op, Op::Sil(SilOp::CopyValue))) else {
                            return Ok("the stored value was built at this address: nothing to store".into());
                        };
                        let src = self.addr(cx.f.insts[d].args[0])?;
                        let t = self.ty(x);
                        let dn = self.name(dest);
                        let init = if assign { "" } else { "[init] " };
                        self.emitf(format_args!("copy_addr {src} to {init}{dn} : $*{t}"));
                        return Ok(format!("store of a copy → copy_addr{} straight into the destination", if assign { "" } else { " [init]" }));
                    }
                }
                let src = self.addr(x)?;
                let t = self.ty(x);
                let d = self.name(a);
                let init = if i.attrs.iter().any(|x| x == "assign") { "" } else { "[init] " };
                self.emitf(format_args!("copy_addr [take] {src} to {init}{d} : $*{t}"));
                Ok("store → copy_addr [take] (a move into the address)".into())
            }
            SilOp::Tuple | SilOp::Struct => {
                let a = v0.unwrap();
                if matches!(self.storage(a), Some(Storage::Split)) {
                    return Ok("the returned tuple: its elements go to the results at the return".into());
                }
                if !self.opaque(a) {
                    return Err(Refusal::at(id, "a loadable aggregate of address-only values"));
                }
                let is_struct = matches!(op, SilOp::Struct);
                let mut moved = 0;
                let args = i.args.clone();
                for (k, &x) in args.iter().enumerate() {
                    if let Some(Storage::Into { user, index, .. }) = self.storage(x) {
                        if *user == a && *index as usize == k {
                            continue;
                        }
                    }
                    let p = self.addr(a)?;
                    let e = self.element_addr(a, &p, k, is_struct)?;
                    self.put(x, &e)?;
                    moved += 1;
                }
                Ok(if moved == 0 {
                    format!("{op}: every operand was built in place")
                } else {
                    format!("{op}: {moved} operand{} moved or stored into place", if moved == 1 { "" } else { "s" })
                })
            }
            SilOp::Enum => {
                let a = v0.unwrap();
                let case = enum_case(line);
                let p = self.addr(a)?;
                let t = self.ty(a);
                if let Some(x) = a0 {
                    let built = matches!(self.storage(x), Some(Storage::IntoEnum { user, .. }) if *user == a);
                    if !built {
                        let d = self.fresh_fmt(format_args!("{}_data", trim_pct(&p)));
                        self.emitf(format_args!("{d} = init_enum_data_addr {p} : $*{t}, {case}"));
                        self.put(x, &d)?;
                    }
                }
                self.emitf(format_args!("inject_enum_addr {p} : $*{t}, {case}"));
                Ok("enum → init_enum_data_addr + inject_enum_addr".into())
            }
            SilOp::StructExtract | SilOp::TupleExtract | SilOp::DestructureStruct | SilOp::DestructureTuple => self.extract(id),
            SilOp::DebugValue => {
                let x = a0.unwrap();
                let a = self.addr(x)?;
                let t = self.ty(x);
                let rest = debug_rest(line);
                let expr = if rest.contains("expr op_deref") { "" } else { ", expr op_deref" };
                self.emitf(format_args!("debug_value {a} : $*{t}{rest}{expr}"));
                Ok("debug_value of the value → of its address".into())
            }
            SilOp::FixLifetime => {
                let x = a0.unwrap();
                let a = self.addr(x)?;
                let t = self.ty(x);
                self.emitf(format_args!("fix_lifetime {a} : $*{t}"));
                Ok("fix_lifetime of the address".into())
            }
            SilOp::Br => self.br(id),
            SilOp::SwitchEnum => {
                let x = a0.unwrap();
                let a = self.addr(x)?;
                let t = self.ty(x);
                let rest = line.split_once(", ").map_or("", |(_, r)| r);
                // A loadable payload is taken out of the enum's storage and loaded at the
                // start of its case block.
                let succs: Vec<BlockId> = i.succs.iter().map(|s| s.block).collect();
                for &b in &succs {
                    let Some(&p) = cx.f.blocks[b].params.first() else { continue };
                    if self.opaque(p) {
                        continue;
                    }
                    if cx.cfg_preds(b) > 1 {
                        return Err(Refusal::at(id, "a switch_enum case block with other predecessors"));
                    }
                    let case = super::storage::switch_case(line, &cx.f.block_name(b))
                        .or_else(|| cx.default_case(x, line))
                        .ok_or_else(|| Refusal::at(id, "a default case whose payload case the declarations do not tell"))?;
                    let pa = self.fresh_fmt(format_args!("{}_addr", self.bare(p)));
                    let pt = self.ty(p);
                    let q = self.qual(cx.ty(p).unwrap_or(""), "[take]");
                    let pn = self.name(p);
                    self.block_start.entry(b).or_default().extend([
                        format!("{pa} = unchecked_take_enum_data_addr {a} : $*{t}, {}", enumelt(&case)),
                        format!("{pn} = load {q} {pa} : $*{pt}"),
                    ]);
                    self.block_params.insert(b, Vec::new());
                }
                self.emitf(format_args!("switch_enum_addr {a} : $*{t}, {}", enumelt_cases(rest)));
                Ok("switch_enum → switch_enum_addr; payloads are taken in place in each case".into())
            }
            SilOp::UncheckedBitwiseCast => self.bitwise_cast(id),
            SilOp::CheckedCastBr => self.cast_br(id),
            SilOp::UnconditionalCheckedCast => self.checked_cast(id),
            SilOp::UncheckedEnumData => {
                self.addr(v0.unwrap())?;
                Ok("unchecked_enum_data → unchecked_take_enum_data_addr (reused storage)".into())
            }
            SilOp::BeginApply => {
                // The yielded values are addresses now; the arguments must be loadable.
                if i.args.iter().any(|&x| self.opaque(x)) {
                    return Err(Refusal::at(id, "a coroutine call with address-only arguments is not lowered here"));
                }
                self.emit_fragment(line);
                Ok("begin_apply: the values it yields by address are their own storage".into())
            }
            SilOp::Yield => {
                let text = self.by_address(id)?;
                self.emit_fragment(&text);
                Ok("yield of an opaque value → yield of its address".into())
            }
            SilOp::SelectEnum => {
                // Reads the enum's case in place: `select_enum_addr` of its storage.
                let x = a0.unwrap();
                let a = self.addr(x)?;
                let t = self.ty(x);
                let operand = format!("select_enum {} : ${}", self.name(x), cx.ty(x).unwrap_or(""));
                let text = line.replacen(&operand, &format!("select_enum_addr {a} : $*{t}"), 1);
                if text == line {
                    return Err(Refusal::at(id, "a select_enum whose operand is not written `%x : $T`"));
                }
                self.emit_fragment(&text);
                Ok("select_enum → select_enum_addr (reads the case in place)".into())
            }
            SilOp::OpenExistentialValue => {
                self.addr(v0.unwrap())?;
                Ok("open_existential_value → open_existential_addr (reused storage)".into())
            }
            SilOp::WitnessMethod => self.witness_method(id),
            SilOp::InitExistentialValue => {
                let a = v0.unwrap();
                let x = a0.unwrap();
                let built = matches!(self.storage(x), Some(Storage::IntoExistential { user, .. }) if *user == a);
                if !built {
                    let p = self.addr(a)?;
                    let t = self.ty(a);
                    let c = self.ty(x);
                    let d = self.fresh_fmt(format_args!("{}_box", trim_pct(&p)));
                    self.emitf(format_args!("{d} = init_existential_addr {p} : $*{t}, ${c}"));
                    self.put(x, &d)?;
                }
                Ok("init_existential_value → init_existential_addr".into())
            }
            other => Err(Refusal::at(id, format!("`{other}` on an address-only value is not lowered here"))),
        }
    }

    /// `witness_method $@opened(…) Self, #P.m, %x : $@opened(…) Self : $…`: the opened
    /// value's operand becomes its address, and the member's formal type is written out as
    /// sil-opt prints it (`#P.m : <Self where Self : P> (Self) -> () -> ()`).
    fn witness_method(&mut self, id: InstId) -> Result<String, Refusal> {
        let cx = self.cx;
        let mut text = self.by_address(id)?;
        // `#P.m,` without its formal type: derived from the witness's function type.
        if let Some(h) = text.find(" #") {
            let end = text[h + 1..].find([',', ' ']).map_or(text.len(), |e| h + 1 + e);
            if text[end..].starts_with(',') {
                let fn_ty = text.rsplit_once(" : $").map(|(_, t)| t.to_string()).unwrap_or_default();
                if let Some(formal) = member_formal_type(&fn_ty) {
                    text.insert_str(end, &format!(" : {}", cx.canon.text(&formal)));
                }
            }
        }
        self.emit_fragment(&text);
        Ok("witness_method: the opened value is passed by its address".into())
    }

    /// The input line with each opaque operand (`%x : $T`) replaced by its address
    /// (`%x_addr : $*T`).
    fn by_address(&mut self, id: InstId) -> Result<String, Refusal> {
        let cx = self.cx;
        let mut text = self.line(id).to_string();
        for &x in &cx.f.insts[id].args {
            if !self.opaque(x) {
                continue;
            }
            let operand = format!("{} : ${}", self.name(x), cx.ty(x).unwrap_or(""));
            let a = self.addr(x)?;
            let at = text.find(&operand).ok_or_else(|| Refusal::at(id, format!("`{}`'s operand is not written `%x : $T`", cx.f.insts[id].op)))?;
            text.replace_range(at..at + operand.len(), &format!("{a} : $*{}", cx.ty(x).unwrap_or("")));
        }
        Ok(text)
    }

    fn extract(&mut self, id: InstId) -> Result<String, Refusal> {
        let cx = self.cx;
        let i = &cx.f.insts[id];
        let agg = i.args[0];
        if matches!(self.storage(agg), Some(Storage::Split)) {
            return Ok("the call's results were bound at the call".into());
        }
        if !self.opaque(agg) {
            return Err(Refusal::at(id, "a projection of a loadable aggregate yielding an address-only value"));
        }
        let results = i.results.clone();
        let owned = matches!(i.op, Op::Sil(SilOp::DestructureStruct | SilOp::DestructureTuple));
        for (k, &r) in results.iter().enumerate() {
            if self.opaque(r) {
                self.addr(r)?;
                continue;
            }
            let (idx, field) = super::storage::element_of(cx, id, k as u32, agg)
                .ok_or_else(|| Refusal::at(id, "cannot find the element this projection reads"))?;
            let p = self.addr(agg)?;
            let e = self.fresh_fmt(format_args!("{}_addr", self.bare(r)));
            self.emit_projection(&e, &p, agg, idx, field.as_deref());
            self.read_loadable(id, r, &e, owned)?;
        }
        Ok(format!("{} of an opaque aggregate → element addresses", cx.f.insts[id].op))
    }

    /// A loadable value `r` that the input read out of an opaque one (a field, a cast) and
    /// that now lives at address `e`: an owned one is loaded with `[take]`; a borrowed one
    /// whose only use is a copy becomes `load [copy]`, any other a `load_borrow` ended after
    /// its last use.
    fn read_loadable(&mut self, id: InstId, r: ValueId, e: &str, owned: bool) -> Result<(), Refusal> {
        let cx = self.cx;
        let t = self.ty(r);
        let rn = self.name(r);
        let raw_t = cx.ty(r).unwrap_or("").to_string();
        if owned {
            let q = self.qual(&raw_t, "[take]");
            self.emitf(format_args!("{rn} = load {q} {e} : $*{t}"));
            return Ok(());
        }
        if cx.is_trivial(&raw_t) {
            self.emitf(format_args!("{rn} = load [trivial] {e} : $*{t}"));
            return Ok(());
        }
        let us = cx.real_uses(r);
        if let [(u, _)] = us[..] {
            if matches!(cx.f.insts[u].op, Op::Sil(SilOp::CopyValue)) {
                let c = cx.f.insts[u].results[0];
                let cn = self.name(c);
                self.emitf(format_args!("{cn} = load [copy] {e} : $*{t}"));
                self.folded.insert(u, "folded into a load [copy] of the address".into());
                return Ok(());
            }
        }
        self.emitf(format_args!("{rn} = load_borrow {e} : $*{t}"));
        // The borrow ends after its last use in this block.
        let Some((b, _)) = cx.pos(id) else { return Err(Refusal::at(id, "internal error: an instruction outside the layout")) };
        if us.iter().any(|&(u, _)| cx.pos(u).is_some_and(|p| p.0 != b)) {
            return Err(Refusal::at(id, "a borrowed value used outside its block"));
        }
        let last = us.iter().filter_map(|&(u, _)| cx.pos(u).filter(|p| p.0 == b).map(|p| (u, p.1))).max_by_key(|&(_, k)| k);
        let at = last.map_or(id, |(u, _)| u);
        self.pending.entry(at).or_default().push(format!("end_borrow {rn} : ${t}"));
        Ok(())
    }

    /// `unchecked_bitwise_cast %x : $T to $U` of an opaque value: the same memory seen as a
    /// `U` (`unchecked_addr_cast`).
    fn bitwise_cast(&mut self, id: InstId) -> Result<String, Refusal> {
        let cx = self.cx;
        let i = &cx.f.insts[id];
        let (x, v) = (i.args[0], i.results[0]);
        if !self.opaque(x) {
            return Err(Refusal::at(id, "unchecked_bitwise_cast of a loadable value to an address-only type"));
        }
        if self.opaque(v) {
            self.addr(v)?;
        } else {
            let a = self.addr(x)?;
            let (tx, tv) = (self.ty(x), self.ty(v));
            let c = self.fresh_fmt(format_args!("{}_addr", self.bare(v)));
            self.emitf(format_args!("{c} = unchecked_addr_cast {a} : $*{tx} to $*{tv}"));
            self.read_loadable(id, v, &c, false)?;
        }
        Ok("unchecked_bitwise_cast → unchecked_addr_cast of the storage".into())
    }

    /// `unconditional_checked_cast %x : $A to B` → `unconditional_checked_cast_addr A in src
    /// to B in dst`, through a stack slot on the loadable side.
    fn checked_cast(&mut self, id: InstId) -> Result<String, Refusal> {
        let cx = self.cx;
        let i = &cx.f.insts[id];
        let (x, v) = (i.args[0], i.results[0]);
        let (tx, tv) = (self.ty(x), self.ty(v));
        let slot = self.cast_slots.get(&id).cloned();
        let src = if self.opaque(x) {
            self.addr(x)?.to_string()
        } else {
            let s = slot.clone().ok_or_else(|| Refusal::at(id, "internal error: no slot for the cast's source"))?;
            let q = self.qual(cx.ty(x).unwrap_or(""), "[init]");
            let xn = self.name(x);
            self.emitf(format_args!("store {xn} to {q} {s} : $*{tx}"));
            s
        };
        if self.opaque(v) {
            let dst = self.addr(v)?;
            self.emitf(format_args!("unconditional_checked_cast_addr {tx} in {src} : $*{tx} to {tv} in {dst} : $*{tv}"));
        } else {
            // A loadable result comes back through a temporary of its own, freed at once.
            let dst = self.fresh_fmt(format_args!("{}_cast", self.bare(v)));
            self.emitf(format_args!("{dst} = alloc_stack ${tv}"));
            self.emitf(format_args!("unconditional_checked_cast_addr {tx} in {src} : $*{tx} to {tv} in {dst} : $*{tv}"));
            let q = self.qual(cx.ty(v).unwrap_or(""), "[take]");
            let vn = self.name(v);
            self.emitf(format_args!("{vn} = load {q} {dst} : $*{tv}"));
            self.emitf(format_args!("dealloc_stack {dst} : $*{tv}"));
        }
        Ok("unconditional_checked_cast → unconditional_checked_cast_addr".into())
    }

    /// `checked_cast_br %x : $A to B, bbS, bbF` → `checked_cast_addr_br take_on_success A in
    /// src to B in dst, bbS, bbF`: a loadable side goes through a stack temporary that each
    /// successor loads from (or frees); on failure the source is still in its storage.
    fn cast_br(&mut self, id: InstId) -> Result<String, Refusal> {
        let cx = self.cx;
        let f = cx.f;
        let i = &f.insts[id];
        let x = i.args[0];
        let (Some(ok), Some(fail)) = (i.succs.first().map(|s| s.block), i.succs.get(1).map(|s| s.block)) else {
            return Err(Refusal::at(id, "checked_cast_br without two successors"));
        };
        if cx.cfg_preds(ok) > 1 || cx.cfg_preds(fail) > 1 {
            return Err(Refusal::at(id, "a checked_cast_br successor with other predecessors"));
        }
        let line = self.line(id);
        let target = line.split(" to ").nth(1).and_then(|t| t.split(',').next()).unwrap_or("").trim().to_string();
        let tb = cx.canon.text(&target);
        let ta = self.ty(x);
        let (mut on_ok, mut on_fail) = (Vec::new(), Vec::new());
        let src = if self.opaque(x) {
            self.addr(x)?.to_string()
        } else {
            let tmp = self.fresh_fmt(format_args!("{}_src", self.bare(x)));
            self.emitf(format_args!("{tmp} = alloc_stack ${ta}"));
            let q = self.qual(cx.ty(x).unwrap_or(""), "[init]");
            let xn = self.name(x);
            self.emitf(format_args!("store {xn} to {q} {tmp} : $*{ta}"));
            if let Some(&p) = f.blocks[fail].params.first() {
                let pn = self.name(p);
                let q = self.qual(cx.ty(x).unwrap_or(""), "[take]");
                on_fail.push(format!("{pn} = load {q} {tmp} : $*{ta}"));
            }
            on_fail.push(format!("dealloc_stack {tmp} : $*{ta}"));
            on_ok.push(format!("dealloc_stack {tmp} : $*{ta}"));
            tmp
        };
        let result = f.blocks[ok].params.first().copied();
        let dst = match result {
            Some(p) if self.opaque(p) => {
                let saved = self.cur;
                self.cur = ok;
                let d = self.addr(p);
                self.cur = saved;
                d?.to_string()
            }
            _ => {
                let tmp = self.fresh_fmt(format_args!("{}_dst", result.map_or("cast".to_string(), |p| self.bare(p).to_string())));
                self.emitf(format_args!("{tmp} = alloc_stack ${tb}"));
                if let Some(p) = result {
                    let pn = self.name(p);
                    let q = self.qual(cx.ty(p).unwrap_or(""), "[take]");
                    on_ok.insert(0, format!("{pn} = load {q} {tmp} : $*{tb}"));
                    on_ok.insert(1, format!("dealloc_stack {tmp} : $*{tb}"));
                } else {
                    on_ok.insert(0, format!("dealloc_stack {tmp} : $*{tb}"));
                }
                on_fail.insert(0, format!("dealloc_stack {tmp} : $*{tb}"));
                tmp
            }
        };
        let (lo, lf) = (f.block_name(ok), f.block_name(fail));
        self.emitf(format_args!("checked_cast_addr_br take_on_success {ta} in {src} : $*{ta} to {tb} in {dst} : $*{tb}, {lo}, {lf}"));
        self.block_params.insert(ok, Vec::new());
        self.block_params.insert(fail, Vec::new());
        self.block_start.entry(ok).or_default().extend(on_ok);
        self.block_start.entry(fail).or_default().extend(on_fail);
        Ok("checked_cast_br → checked_cast_addr_br take_on_success".into())
    }

    fn br(&mut self, id: InstId) -> Result<String, Refusal> {
        let cx = self.cx;
        let i = &cx.f.insts[id];
        let s = i.succs[0].clone();
        let params = cx.f.blocks[s.block].params.clone();
        let mut keep = Vec::new();
        let mut moved = 0;
        for (k, &x) in s.args.iter().enumerate() {
            let p = params[k];
            if self.opaque(p) {
                if self.storage(x) == Some(&Storage::Same { of: p }) {
                    // Built in the phi's storage already.
                    continue;
                }
                let d = self.addr(p)?;
                let src = self.addr(x)?;
                let t = self.ty(x);
                self.emitf(format_args!("copy_addr [take] {src} to [init] {d} : $*{t}"));
                moved += 1;
            } else {
                keep.push(format!("{} : ${}", self.name(x), self.ty(x)));
            }
        }
        let label = cx.f.block_name(s.block);
        if keep.is_empty() {
            self.emitf(format_args!("br {label}"));
        } else {
            self.emitf(format_args!("br {label}({})", keep.join(", ")));
        }
        Ok(format!("{moved} opaque phi operand{} moved into the phi's storage", if moved == 1 { "" } else { "s" }))
    }

    fn call(&mut self, id: InstId) -> Result<String, Refusal> {
        let cx = self.cx;
        let f = cx.f;
        let i = &f.insts[id];
        let line = self.line(id);
        let c = cx.call(id).ok_or_else(|| Refusal::at(id, "a call whose callee type or substitutions do not read (or do not bind each generic parameter once)"))?;
        let try_apply = matches!(i.op, Op::Sil(SilOp::TryApply));
        let indirect_params = c.sig.params.iter().any(|p| matches!(p.0, ParamConv::In | ParamConv::InGuaranteed));
        // Unchanged only when no argument is an opaque value either: one passed to a direct
        // parameter is refused below, not copied out under a name that no longer exists.
        let passes_opaque = i.args.iter().skip(1).any(|&x| self.opaque(x));
        if !indirect_params && c.sig.indirect_results() == 0 && !passes_opaque {
            self.emit_fragment(line);
            return Ok("no indirect arguments or results: unchanged".into());
        }
        // The value of each formal result: the apply's result, or a try_apply's normal
        // block argument.
        let normal = try_apply.then(|| i.succs.first().map(|s| s.block)).flatten();
        let r = match normal {
            Some(nb) => f.blocks[nb].params.first().copied(),
            None => i.results.first().copied(),
        };
        let nres = c.sig.results.len();
        let mut values: Vec<Option<ValueId>> = vec![None; nres];
        if nres == 1 {
            values[0] = r.filter(|&r| !cx.real_uses(r).is_empty());
        } else if let Some(r) = r {
            let us = cx.real_uses(r);
            match us[..] {
                [] => {}
                [(d, _)] if matches!(f.insts[d].op, Op::Sil(SilOp::DestructureTuple)) => {
                    for (k, &x) in f.insts[d].results.iter().enumerate().take(nres) {
                        values[k] = Some(x);
                    }
                    self.folded.insert(d, "the call's results are bound at the call".into());
                }
                _ => return Err(Refusal::at(id, "the tuple of a call's results is used other than by destructure_tuple")),
            }
        }
        let mut cleanups: Vec<Vec<String>> = Vec::new();
        // Arguments first: their temporaries are allocated before the results'.
        let mut params_text = Vec::new();
        for (k, (conv, pty)) in c.sig.params.iter().enumerate() {
            let x = *i.args.get(k + 1).ok_or_else(|| Refusal::at(id, "fewer arguments than the callee's parameters"))?;
            match conv {
                ParamConv::In | ParamConv::InGuaranteed if self.opaque(x) => params_text.push(self.addr(x)?.to_string()),
                ParamConv::In | ParamConv::InGuaranteed => {
                    let t = self.ty(x);
                    let raw = cx.ty(x).unwrap_or("").to_string();
                    let _ = pty;
                    let tmp = self.fresh_fmt(format_args!("{}_tmp", self.bare(x)));
                    self.emitf(format_args!("{tmp} = alloc_stack ${t}"));
                    let xn = self.name(x);
                    if *conv == ParamConv::In || cx.is_trivial(&raw) {
                        let q = self.qual(&raw, "[init]");
                        self.emitf(format_args!("store {xn} to {q} {tmp} : $*{t}"));
                        params_text.push(tmp.clone());
                        cleanups.push(vec![format!("dealloc_stack {tmp} : $*{t}")]);
                    } else {
                        let b = self.fresh_fmt(format_args!("{}_borrow", self.bare(x)));
                        let sb = self.fresh_fmt(format_args!("{}_in", self.bare(x)));
                        self.emitf(format_args!("{b} = begin_borrow {xn} : ${t}"));
                        self.emitf(format_args!("{sb} = store_borrow {b} to {tmp} : $*{t}"));
                        params_text.push(sb.clone());
                        cleanups.push(vec![format!("end_borrow {sb} : $*{t}"), format!("end_borrow {b} : ${t}"), format!("dealloc_stack {tmp} : $*{t}")]);
                    }
                }
                // A parameter whose convention is not one of the indirect ones (a direct one,
                // or one this pass does not know, such as a misspelt `@in_guaranteed`) cannot
                // take an address-only value: after lowering the value has no object form, and
                // passing its old name would leave the call reading an undefined value.
                _ if self.opaque(x) => {
                    return Err(Refusal::at(
                        id,
                        format!(
                            "the call passes the address-only value `{}` as parameter {}, which the callee's type does not pass by address (its convention is none of @in, @in_guaranteed, @in_constant, @inout)",
                            cx.name(x),
                            k + 1
                        ),
                    ))
                }
                _ => params_text.push(self.name(x).to_string()),
            }
        }
        let mut outs = Vec::new();
        let mut direct_names = Vec::new();
        let mut direct_tys = Vec::new();
        for (k, (indirect, rty)) in c.sig.results.iter().enumerate() {
            let v = values[k];
            let rt = cx.canon.text(&rty.to_string());
            if !indirect {
                let n = match v {
                    Some(v) => self.name(v).to_string(),
                    None => self.fresh("result"),
                };
                direct_names.push(n);
                direct_tys.push(rt);
                continue;
            }
            match v {
                Some(v) if self.opaque(v) => outs.push(self.addr(v)?.to_string()),
                Some(v) => {
                    let tmp = self.fresh_fmt(format_args!("{}_out", self.bare(v)));
                    self.emitf(format_args!("{tmp} = alloc_stack ${rt}"));
                    let raw = cx.ty(v).unwrap_or("").to_string();
                    let q = self.qual(&raw, "[take]");
                    let vn = self.name(v);
                    cleanups.push(vec![format!("{vn} = load {q} {tmp} : $*{rt}"), format!("dealloc_stack {tmp} : $*{rt}")]);
                    outs.push(tmp);
                }
                None => {
                    let tmp = self.fresh("unused_result");
                    self.emitf(format_args!("{tmp} = alloc_stack ${rt}"));
                    let mut cl = Vec::new();
                    if !cx.is_trivial(&rty.to_string()) {
                        cl.push(format!("destroy_addr {tmp} : $*{rt}"));
                    }
                    cl.push(format!("dealloc_stack {tmp} : $*{rt}"));
                    cleanups.push(cl);
                    outs.push(tmp);
                }
            }
        }
        let res = match direct_names.len() {
            0 => match r {
                // No formal results: the call's `()` keeps its name.
                Some(r) if nres == 0 => self.name(r).to_string(),
                _ => self.fresh(&r.map_or("call".to_string(), |r| self.cx.name(r).to_string())),
            },
            1 => direct_names[0].clone(),
            _ => self.fresh("results"),
        };
        let mut all = outs;
        all.extend(params_text);
        if let Some(nb) = normal {
            return self.finish_try_apply(id, &c, nb, all, cleanups, direct_names, direct_tys);
        }
        let subs = self.subs_text(&c);
        let ft = cx.canon.inst_text(&c.fn_ty);
        self.emitf(format_args!("{res} = {} {}{subs}({}) : ${ft}", c.head, c.callee, all.join(", ")));
        for cl in cleanups.into_iter().rev() {
            for l in cl {
                self.emit(&l);
            }
        }
        if direct_names.len() > 1 {
            self.emitf(format_args!("({}) = destructure_tuple {res} : $({})", direct_names.join(", "), direct_tys.join(", ")));
        }
        Ok(format!(
            "apply through addresses: {} @out address{}, indirect arguments by address",
            c.sig.indirect_results(),
            if c.sig.indirect_results() == 1 { "" } else { "es" }
        ))
    }

    /// A `try_apply`'s results arrive in its normal block: the block receives the direct
    /// results only; the temporaries are loaded and freed there, and freed (not loaded) in
    /// the error block.
    #[allow(clippy::too_many_arguments)]
    fn finish_try_apply(
        &mut self,
        id: InstId,
        c: &super::storage::Call,
        normal: BlockId,
        args: Vec<String>,
        cleanups: Vec<Vec<String>>,
        direct_names: Vec<String>,
        direct_tys: Vec<String>,
    ) -> Result<String, Refusal> {
        let cx = self.cx;
        let f = cx.f;
        let i = &f.insts[id];
        let error = i.succs.get(1).map(|s| s.block).ok_or_else(|| Refusal::at(id, "try_apply without an error block"))?;
        if f.blocks[normal].params.len() > 1 || cx.cfg_preds(normal) > 1 {
            return Err(Refusal::at(id, "a try_apply whose normal block has other predecessors"));
        }
        let subs = self.subs_text(c);
        let ft = cx.canon.inst_text(&c.fn_ty);
        let tail = cx.canon.fragment(&c.between);
        self.emitf(format_args!("try_apply {}{subs}({}) : ${ft}, {tail}", c.callee, args.join(", ")));
        let (param, mut start) = match direct_names.len() {
            0 => (format!("{} : $()", self.fresh("none")), Vec::new()),
            1 => (format!("{} : ${}", direct_names[0], direct_tys[0]), Vec::new()),
            _ => {
                let t = self.fresh("results");
                let ty = format!("({})", direct_tys.join(", "));
                (format!("{t} : ${ty}"), vec![format!("({}) = destructure_tuple {t} : ${ty}", direct_names.join(", "))])
            }
        };
        let mut on_error = Vec::new();
        for cl in cleanups.into_iter().rev() {
            on_error.extend(cl.iter().filter(|l| !l.contains(" = load ") && !l.starts_with("destroy_addr") && !l.starts_with("end_borrow")).cloned());
            start.extend(cl);
        }
        self.block_params.insert(normal, vec![param]);
        self.block_start.entry(normal).or_default().extend(start);
        self.block_start.entry(error).or_default().extend(on_error);
        Ok("try_apply through addresses; the normal block receives the direct results".into())
    }

    fn subs_text(&self, c: &super::storage::Call) -> String {
        if c.subs_text.is_empty() {
            return String::new();
        }
        let inner = c.subs_text.trim_start_matches('<').strip_suffix('>').unwrap_or("");
        let parts: Vec<String> = super::sig::parse_subs(inner).unwrap_or_default().iter().map(|t| self.cx.canon.text(&t.to_string())).collect();
        format!("<{}>", parts.join(", "))
    }

    fn ret(&mut self, id: InstId) -> Result<String, Refusal> {
        let cx = self.cx;
        let f = cx.f;
        let i = &f.insts[id];
        let line = self.line(id);
        let results = cx.sig.results.clone();
        if results.iter().all(|r| !r.0) && !i.args.first().is_some_and(|&r| self.opaque(r)) {
            self.deallocs();
            self.emit_fragment(line);
            return Ok("unchanged (stack slots deallocated first)".into());
        }
        let r = i.args[0];
        enum El {
            Value(ValueId),
            Addr(String, String),
        }
        let mut els: Vec<El> = Vec::new();
        if results.len() == 1 {
            els.push(El::Value(r));
        } else if is_return_tuple(cx, r) {
            let d = cx.def_inst(r).unwrap();
            els.extend(f.insts[d].args.iter().map(|&x| El::Value(x)));
        } else if self.opaque(r) {
            let p = self.addr(r)?;
            for (k, (_, t)) in results.iter().enumerate() {
                let e = self.element_addr(r, &p, k, false)?;
                els.push(El::Addr(e, cx.canon.text(&t.to_string())));
            }
        } else {
            let names: Vec<String> = (0..results.len()).map(|k| self.fresh_fmt(format_args!("ret{k}"))).collect();
            let t = self.ty(r);
            let rn = self.name(r);
            self.emitf(format_args!("({}) = destructure_tuple {rn} : ${t}", names.join(", ")));
            for (k, n) in names.into_iter().enumerate() {
                let _ = k;
                els.push(El::Addr(n, String::new()));
            }
            return Err(Refusal::at(id, "returning a loadable tuple value with @out results is not lowered here"));
        }
        let mut direct = Vec::new();
        for (k, (indirect, t)) in results.iter().enumerate() {
            if *indirect {
                continue;
            }
            let tt = cx.canon.text(&t.to_string());
            match &els[k] {
                El::Value(x) => direct.push((self.name(*x).to_string(), tt)),
                El::Addr(p, _) => {
                    let n = self.fresh_fmt(format_args!("ret{k}"));
                    let q = self.qual(&t.to_string(), "[take]");
                    self.emitf(format_args!("{n} = load {q} {p} : $*{tt}"));
                    direct.push((n, tt));
                }
            }
        }
        let mut j = 0;
        for (k, (indirect, t)) in results.iter().enumerate() {
            if !*indirect {
                continue;
            }
            let out = self.out_names[j].clone();
            match &els[k] {
                El::Value(x) => {
                    let x = *x;
                    if self.opaque(x) {
                        if self.storage(x) != Some(&Storage::Result { index: j }) {
                            let src = self.addr(x)?;
                            let tt = self.ty(x);
                            self.emitf(format_args!("copy_addr [take] {src} to [init] {out} : $*{tt}"));
                        }
                    } else {
                        self.put(x, &out)?;
                    }
                }
                El::Addr(p, tt) => {
                    let _ = t;
                    self.emitf(format_args!("copy_addr [take] {p} to [init] {out} : $*{tt}"));
                }
            }
            j += 1;
        }
        let (rv, rt) = match direct.len() {
            0 => {
                let n = self.fresh("unit");
                self.emitf(format_args!("{n} = tuple ()"));
                (n, "()".to_string())
            }
            1 => direct[0].clone(),
            _ => {
                let n = self.fresh("ret");
                let parts: Vec<String> = direct.iter().map(|(v, t)| format!("{v} : ${t}")).collect();
                let tys: Vec<String> = direct.iter().map(|(_, t)| t.clone()).collect();
                self.emitf(format_args!("{n} = tuple ({})", parts.join(", ")));
                (n, format!("({})", tys.join(", ")))
            }
        };
        self.deallocs();
        self.emitf(format_args!("return {rv} : ${rt}"));
        Ok("return: @out results are written to their addresses; the direct ones are returned".into())
    }
}

fn enum_case(line: &str) -> String {
    line.split(", ").find(|p| p.trim_start().starts_with('#')).map(|p| enumelt(p.trim())).unwrap_or_default()
}

/// `#Optional.some` → `#Optional.some!enumelt`, as SIL prints enum element references.
pub(super) fn enumelt(case: &str) -> String {
    if case.starts_with('#') && !case.contains('!') {
        format!("{case}!enumelt")
    } else {
        case.to_string()
    }
}

/// Every `case #E.c: bbN` of a `switch_enum` tail with its element reference spelled out.
fn enumelt_cases(rest: &str) -> String {
    rest.split(", ")
        .map(|p| match p.strip_prefix("case ").and_then(|r| r.rsplit_once(": ")) {
            Some((c, t)) => format!("case {}: {t}", enumelt(c.trim())),
            None => p.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `debug_value %2 : $T, let, name "x", argno 3` → `, let, name "x", argno 3`.
fn debug_rest(line: &str) -> String {
    let Some(d) = line.find(": $") else { return String::new() };
    let end = crate::parse::sil::scan::type_end(line, d + 3);
    line[end..].trim_end().to_string()
}

pub(super) fn rewrite(cx: &Cx, values: &[OpaqueValue]) -> Result<Out, Refusal> {
    let f = cx.f;
    let mut w = W {
        cx,
        st: {
            let mut st = EntityVec::filled(f.values.len(), None);
            for v in values {
                if let Some(s) = st.get_mut(v.value) {
                    *s = Some(&v.storage);
                }
            }
            st
        },
        memo: EntityVec::filled(f.values.len(), None),
        tys: RefCell::new(EntityVec::filled(f.values.len(), None)),
        ty_by_text: RefCell::new(FastMap::default()),
        // The names the input's values print with (`undef` is no `%` name).
        // The input's names, and about one new name per opaque value (its address or slot).
        names: Fresh::with_room(f.values.values().filter(|d| d.def != ValueDef::Undef).map(|d| Cow::Borrowed(d.name.as_str())), 2 * f.values.len()),
        cur: f.entry().unwrap(),
        after: Lines::default(),
        out_names: Vec::new(),
        stacks: Vec::new(),
        folded: FastMap::default(),
        pending: FastMap::default(),
        block_start: FastMap::default(),
        block_params: FastMap::default(),
        cast_slots: FastMap::default(),
        late: FastMap::default(),
        late_order: Vec::new(),
        deferred: FastMap::default(),
        deferred_insts: FastSet::default(),
    };
    let n_out = cx.sig.indirect_results();
    for k in 0..n_out {
        let n = w.fresh_fmt(format_args!("out{k}"));
        w.out_names.push(n);
    }
    // Stack slots, in the order step 2 numbered them.
    let mut slots: Vec<(usize, ValueId)> =
        values.iter().filter_map(|v| if let Storage::Stack { index } = v.storage { Some((index, v.value)) } else { None }).collect();
    slots.sort();
    // A slot holding a value with a lexical borrow scope is itself lexical.
    let lexical: Vec<ValueId> = f
        .layout
        .iter()
        .flat_map(|&b| f.blocks[b].all_insts())
        .filter(|&i| matches!(f.insts[i].op, Op::Sil(SilOp::BeginBorrow)) && f.insts[i].attrs.iter().any(|a| a == "lexical"))
        .filter_map(|i| f.insts[i].args.first().copied())
        .collect();
    // Each value's slot, found by one walk per value (asking every value about every slot
    // was quadratic: 27 s at 10^4 blocks).
    let mut members: FastMap<ValueId, Vec<String>> = FastMap::default();
    for o in values {
        if let Some(r) = root_of(&w.st, o.value) {
            members.entry(r).or_default().push(o.name.clone());
        }
    }
    let lexical: FastSet<ValueId> = lexical.iter().flat_map(|&x| [Some(x), root_of(&w.st, x)]).flatten().collect();
    for &(_, v) in &slots {
        let n = w.fresh_fmt(format_args!("{}_addr", cx.name(v)));
        let t = w.ty(v);
        let values = std::iter::once(cx.name(v).to_string()).chain(members.remove(&v).unwrap_or_default()).collect();
        w.stacks.push(StackSlot { name: n, ty: t.to_string(), values, lexical: lexical.contains(&v) });
    }
    // A checked cast from a loadable value goes through memory: one more slot, after the
    // values' own.
    for &b in &f.layout {
        for i in f.blocks[b].all_insts() {
            let inst = &f.insts[i];
            if !matches!(inst.op, Op::Sil(SilOp::UnconditionalCheckedCast)) {
                continue;
            }
            // Only the source side: a loadable result has a temporary of its own.
            let Some(&loadable) = inst.args.first() else { continue };
            if w.opaque(loadable) {
                continue;
            }
            let n = w.fresh_fmt(format_args!("{}_cast", cx.name(loadable)));
            let t = w.ty(loadable);
            w.stacks.push(StackSlot { name: n.clone(), ty: t.to_string(), values: vec![cx.name(loadable).to_string()], lexical: false });
            w.cast_slots.insert(i, n);
        }
    }
    // Slots of an opened existential's type come after the instruction that opens it.
    // Each opened id's first opener in program order (one lookup per slot, not a search).
    let mut openers: HashMap<&str, InstId> = HashMap::new();
    for i in f.layout.iter().flat_map(|&b| f.blocks[b].all_insts()) {
        if !f.insts[i].op.sil_info().is_some_and(|e| e.opens_archetype()) {
            continue;
        }
        if let Some(id) = f.insts[i].results.first().and_then(|&r| cx.ty(r)).and_then(opened_id) {
            openers.entry(id).or_insert(i);
        }
    }
    for k in 0..w.stacks.len() {
        let Some(id) = opened_id(&w.stacks[k].ty) else { continue };
        let Some(&o) = openers.get(id) else { continue };
        let Some((ob, _)) = cx.pos(o) else { continue };
        w.late.insert(k, (o, ob));
        w.late_order.push(k);
    }
    // The late slots allocated after each instruction, in slot order.
    let mut late_after: FastMap<InstId, Vec<usize>> = FastMap::default();
    for &k in &w.late_order {
        late_after.entry(w.late[&k].0).or_default().push(k);
    }
    let late: Vec<(usize, InstId)> = w.late_order.iter().map(|&k| (k, w.late[&k].0)).collect();
    // The input's own `dealloc_stack`s of slots allocated before a late slot, inside its
    // region: moved after the late slot's — the outermost such slot's (the first in slot
    // order), since every late slot after it is freed before it.
    let before = |a: InstId, b: InstId| -> bool {
        match (cx.pos(a), cx.pos(b)) {
            (Some((ba, ka)), Some((bb, kb))) if ba == bb => ka < kb,
            (Some((ba, _)), Some((bb, _))) => cx.dom.strictly_dominates(ba, bb),
            _ => false,
        }
    };
    for &b in &f.layout {
        for d in f.blocks[b].all_insts() {
            if !matches!(f.insts[d].op, Op::Sil(SilOp::DeallocStack)) {
                continue;
            }
            let Some(alloc) = f.insts[d].args.first().and_then(|&x| cx.def_inst(x)) else { continue };
            if let Some(&(k, _)) = late.iter().find(|&&(_, o)| before(alloc, o) && before(o, d)) {
                let line = cx.canon.fragment(w.line(d));
                w.deferred.entry(k).or_default().push(line);
                w.deferred_insts.insert(d);
            }
        }
    }
    let h = f.sil.as_ref().unwrap();
    let mut head = String::from("sil ");
    if let Some(l) = &h.linkage {
        head.push_str(l);
        head.push(' ');
    }
    for a in &h.attrs {
        head.push_str(&format!("[{a}] "));
    }
    head.push_str(&format!("{} : ${}", crate::parse::sil::lexer::global_ref(&f.name), cx.canon.text(h.ty.trim().trim_start_matches('$'))));
    // Every block's text, one after the other in layout order, and where each one is: one
    // buffer, not a string per block (growing a string per block past a kilobyte made glibc
    // consolidate its free lists again and again, issue 17).
    let mut all = String::new();
    let mut ranges: EntityVec<BlockId, Option<(usize, usize)>> = EntityVec::filled(f.blocks.len(), None);
    // One rewrite per block and per instruction, sized at once (doubling a vector of 10^5
    // rewrites copied and held twice its size).
    let mut rewrites: Vec<Deferred> = Vec::with_capacity(f.layout.iter().map(|&b| 1 + f.blocks[b].all_insts().count()).sum());
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut plist = String::new();
    for &b in f.layout.iter() {
        let base = all.len();
        let text = &mut all;
        w.cur = b;
        let blk = &f.blocks[b];
        let entry = Some(b) == f.entry();
        // The new parameter list, written into one reused string (a string per parameter,
        // then per list and per label, was most of the allocations per block).
        let pl = &mut plist;
        pl.clear();
        let sep = |pl: &mut String| {
            if !pl.is_empty() {
                pl.push_str(", ");
            }
        };
        let mut pre = Vec::new();
        if entry {
            for (k, n) in w.out_names.iter().enumerate() {
                let t = cx.sig.results.iter().filter(|r| r.0).nth(k).map(|r| cx.canon.text(&r.1.to_string())).unwrap_or_default();
                sep(pl);
                let _ = write!(pl, "{n} : $*{t}");
            }
        }
        for (k, &p) in blk.params.iter().enumerate() {
            let name = cx.name(p);
            let t = w.ty(p);
            let own = Own(f.values[p].ownership.as_deref());
            if entry {
                let conv = cx.param_conv(k);
                if w.opaque(p) || conv == ParamConv::Inout || cx.ty(p).is_some_and(|t| t.starts_with('*')) {
                    sep(pl);
                    let _ = write!(pl, "{name} : $*{}", t.trim_start_matches('*'));
                } else if conv.is_indirect() {
                    let a = w.fresh_fmt(format_args!("{}_addr", w.bare(p)));
                    sep(pl);
                    let _ = write!(pl, "{a} : $*{t}");
                    let raw = cx.ty(p).unwrap_or("").to_string();
                    if conv == ParamConv::In || cx.is_trivial(&raw) {
                        let q = w.qual(&raw, "[take]");
                        pre.push(format!("{name} = load {q} {a} : $*{t}"));
                    } else {
                        pre.push(format!("{name} = load_borrow {a} : $*{t}"));
                    }
                } else {
                    sep(pl);
                    let _ = write!(pl, "{name} : {own}${t}");
                }
            } else if !w.opaque(p) {
                sep(pl);
                let _ = write!(pl, "{name} : {own}${t}");
            }
        }
        let label = f.block_name(b);
        let mut before_label = String::with_capacity(label.len() + 2 + 24 * blk.params.len());
        before_label.push_str(&label);
        if !blk.params.is_empty() {
            before_label.push('(');
            for (j, &p) in blk.params.iter().enumerate() {
                if j > 0 {
                    before_label.push_str(", ");
                }
                let own = Own(f.values[p].ownership.as_deref());
                let _ = write!(before_label, "{} : {own}${}", cx.name(p), cx.ty(p).unwrap_or(""));
            }
            before_label.push(')');
        }
        before_label.push(':');
        if let Some(ps) = w.block_params.get(&b) {
            pl.clear();
            pl.push_str(&ps.join(", "));
        }
        let label_span = spans.len();
        text.push_str(&label);
        if !pl.is_empty() {
            text.push('(');
            text.push_str(pl);
            text.push(')');
        }
        text.push(':');
        spans.push((0, text.len() - base));
        text.push('\n');
        // Block start: stack slots (entry), loads of loadable indirect arguments, payloads.
        w.after.clear();
        if entry {
            for k in 0..w.stacks.len() {
                if w.late.contains_key(&k) {
                    continue;
                }
                let slot = &w.stacks[k];
                w.after.push_fmt(format_args!("{} = alloc_stack {}${}", slot.name, if slot.lexical { "[lexical] " } else { "" }, slot.ty));
            }
        }
        for l in pre {
            w.emit(&l);
        }
        if let Some(ls) = w.block_start.remove(&b) {
            for l in ls {
                w.emit(&l);
            }
        }
        for &p in &blk.params {
            if let Some(Storage::EnumData { .. }) = w.storage(p) {
                w.addr(p)?;
            }
        }
        for l in w.after.iter() {
            push_line(text, base, &mut spans, l);
        }
        rewrites.push(Deferred {
            inst: None,
            block: b,
            before: Some(before_label),
            lines: label_span..spans.len(),
            why: if entry { "arguments: @out results first, opaque arguments become addresses; stack slots allocated".into() } else { "block arguments".into() },
        });
        for id in blk.all_insts() {
            w.after.clear();
            let why = w.inst(id)?;
            if let Some(extra) = w.pending.remove(&id) {
                for l in extra {
                    w.emit(&l);
                }
            }
            for k in late_after.remove(&id).unwrap_or_default() {
                w.after.push_fmt(format_args!("{} = alloc_stack ${}", w.stacks[k].name, w.stacks[k].ty));
            }
            if Some(id) == blk.term && !matches!(f.insts[id].op, Op::Sil(SilOp::Return | SilOp::Throw | SilOp::Unreachable)) {
                let frees = w.leave_regions(id)?;
                w.after.insert_before_last(&frees);
            }
            let first = spans.len();
            for l in w.after.iter() {
                push_line(text, base, &mut spans, l);
            }
            rewrites.push(Deferred { inst: Some(id), block: b, before: None, lines: first..spans.len(), why });
        }
        ranges[b] = Some((base, all.len()));
    }
    // The blocks are rewritten in the input's order (a block's rewrite reads what its
    // predecessors left for it) but written out in reverse postorder, then the unreachable
    // ones: the layout `sil-opt -emit-sorted-sil` prints and [`super::lower`] wants, so the
    // text read back needs no second printing. (Rewriting keeps every terminator's
    // successors in order, so the output's reverse postorder is the input's.)
    let len = all.len() + f.layout.len();
    let order: Vec<BlockId> = cx.rpo.iter().copied().chain(cx.cfg.unreachable_blocks()).chain(f.layout.iter().copied()).collect();
    let mut text = String::with_capacity(head.len() + len + f.name.len() + 40);
    text.push_str(&head);
    text.push_str(" {\n");
    let mut first = true;
    let mut block_at = EntityVec::filled(f.blocks.len(), 0);
    for b in order {
        let Some((start, end)) = ranges.get_mut(b).and_then(Option::take) else { continue };
        let body = &all[start..end];
        if !first {
            text.push('\n');
        }
        first = false;
        block_at[b] = text.len();
        text.push_str(body);
    }
    text.push_str(&format!("}} // end sil function '{}'\n", f.name));
    Ok(Out { text, stacks: w.stacks, deferred: rewrites, spans, block_at })
}

/// A block argument's ownership as written before its type (`@owned `), or nothing.
struct Own<'a>(Option<&'a str>);

impl std::fmt::Display for Own<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(o) => write!(f, "@{o} "),
            None => Ok(()),
        }
    }
}

/// Appends one indented line (without a string of its own per line) and where it is in its
/// block's text, which starts at `base`.
fn push_line(text: &mut String, base: usize, spans: &mut Vec<(usize, usize)>, line: &str) {
    text.push_str("  ");
    spans.push((text.len() - base, text.len() - base + line.len()));
    text.push_str(line);
    text.push('\n');
}

/// The value whose storage `v`'s storage is (a projection of): the last of its parents, the
/// root of its storage tree; `None` for a root itself.
fn root_of(st: &EntityVec<ValueId, Option<&Storage>>, v: ValueId) -> Option<ValueId> {
    let mut cur = v;
    let mut last = None;
    for _ in 0..64 {
        match st.get(cur).copied().flatten().and_then(Storage::parent) {
            Some(p) => {
                last = Some(p);
                cur = p;
            }
            None => return last,
        }
    }
    None
}

/// The formal type of a protocol requirement from its witness's SIL function type:
/// `@convention(witness_method: P) <τ_0_0 where τ_0_0 : P> (@in_guaranteed τ_0_0) -> ()` is
/// `<Self where Self : P> (Self) -> () -> ()` (the last parameter is `self`). `None` for a
/// generic requirement or a type that does not read.
pub(super) fn member_formal_type(fn_ty: &str) -> Option<String> {
    use crate::sil::types::ty::{self, Ty};
    let Ok(Ty::Function(f)) = ty::parse(fn_ty.trim()) else { return None };
    let [g] = &f.generics[..] else { return None };
    let to_self = |t: &Ty| t.subst(&|n| (n == g.name).then(|| Ty::name("Self")));
    let formal = |e: &ty::Elem| {
        let t = to_self(&e.ty);
        if e.conv.as_deref().is_some_and(|c| c.starts_with("inout")) {
            format!("inout {t}")
        } else {
            t.to_string()
        }
    };
    let (self_param, params) = f.params.split_last()?;
    let reqs: Vec<String> = f.reqs.iter().map(|r| match r {
        ty::Req::Conforms(a, b) => format!("{} : {b}", to_self(a)),
        ty::Req::Same(a, b) => format!("{} == {}", to_self(a), to_self(b)),
    }).collect();
    let sig = if reqs.is_empty() { "<Self>".to_string() } else { format!("<Self where {}>", reqs.join(", ")) };
    let results: Vec<String> = f.results.iter().filter(|r| !r.conv.as_deref().is_some_and(|c| c.starts_with("error"))).map(|r| to_self(&r.ty).to_string()).collect();
    let throws = if f.results.iter().any(|r| r.conv.as_deref().is_some_and(|c| c.starts_with("error"))) { " throws" } else { "" };
    let result = match &results[..] {
        [one] => one.clone(),
        rs => format!("({})", rs.join(", ")),
    };
    let ps: Vec<String> = params.iter().map(formal).collect();
    Some(format!("{sig} ({}) -> ({}){throws} -> {result}", formal(self_param), ps.join(", ")))
}

/// The id of the first archetype opened from an existential in a type text
/// (`Optional<@opened("EF75…", P) Self>` → `EF75…`).
fn opened_id(ty: &str) -> Option<&str> {
    let at = ty.find("@opened(\"")? + "@opened(\"".len();
    let len = ty[at..].find('"')?;
    Some(&ty[at..at + len])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::gen::Rng;
    use std::collections::HashSet;

    /// The first version: a search from `_1` on every call. Obviously right, quadratic.
    fn fresh_by_search(taken: &mut HashSet<String>, base: &str) -> String {
        let base: String = trim_pct(base).chars().map(|c| if c.is_alphanumeric() || c == '_' { c } else { '_' }).collect();
        let mut n = format!("%{base}");
        let mut k = 1;
        while taken.contains(&n) {
            n = format!("%{base}_{k}");
            k += 1;
        }
        taken.insert(n.clone());
        n
    }

    /// Random requests over a few bases, some of which are other bases' numbered names
    /// (`a_1`, `a_1_1`) or taken from the start: the remembered search picks the same names.
    #[test]
    fn fresh_names_are_those_of_the_full_search() {
        let bases = ["a", "a_1", "a_2", "a_1_1", "%b", "b.c", "b_c", "result"];
        for seed in 0..200 {
            let mut rng = Rng::new(seed);
            let start: Vec<String> = (0..rng.below(6)).map(|_| format!("%{}", rng.pick(&["a", "a_1", "a_3", "b", "result_2"]))).collect();
            let mut fast = Fresh::with_room(start.iter().map(|n| Cow::Borrowed(trim_pct(n))), 0);
            let mut slow: HashSet<String> = start.iter().cloned().collect();
            for _ in 0..60 {
                let b = *rng.pick(&bases);
                assert_eq!(fast.fresh(b), fresh_by_search(&mut slow, b), "seed {seed}, base {b}");
            }
        }
    }
}
