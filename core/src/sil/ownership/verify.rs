//! The ownership verifier: Swift's `SILOwnershipVerifier` and its `LinearLifetimeChecker`,
//! reporting what they report with their wording.
//!
//! For every value with ownership the verifier gathers its uses — an owned value's direct
//! uses plus the ends of the borrow scopes opened on it; a borrow's uses through every value
//! forwarded or projected from it — checks each use's constraint ("incompatible ownership"),
//! and then checks the lifetime on the CFG:
//!
//! 1. no two lifetime-ending uses in one block (over consume);
//! 2. in a block that ends the lifetime, no other use after the end (outside of lifetime use);
//! 3. walking backwards from the ending blocks to the definition, no block that ends the
//!    lifetime is passed again (over consume, e.g. a consume inside a loop), and every successor
//!    of a block the walk covered is covered too, unless it is a dead end (leak: the ending
//!    uses do not post-dominate the definition);
//! 4. every other use is in a covered block (outside of lifetime use).
//!
//! Values the lab cannot classify for certain (an unmodelled instruction defines or uses them)
//! are skipped and the step list says so: a teaching tool must not invent errors.

use super::analysis::{is_forwarded_guaranteed, FunctionOwnership, Gathered, Source};
use super::names::Names;
use super::rules::{Constraint, Kind};
use crate::diag::Span;
use crate::ir::{BlockId, Function, InstId, ValueDef, ValueId};
use serde::Serialize;

/// Swift's error categories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    OverConsume,
    LeakNeverConsumed,
    LeakPostDominance,
    /// A use after a lifetime-ending use in the same block.
    OutsideOfLifetimeUse,
    /// A use in a block the lifetime does not reach.
    OutsideOfLifetimeBlock,
    /// A use before the definition in its block.
    UseBeforeDef,
    /// A value consumed in its own block with a use in another block.
    NonConsumingUseOutsideLifetime,
    IncompatibleOwnership,
    OwnedParameterWithoutLifetimeEnd,
    GuaranteedParameterWithLifetimeEnd,
    InvalidEndBorrow,
    NoLifetimeEndingUse,
}

impl Category {
    /// The verifier's headline, verbatim.
    pub fn message(self) -> &'static str {
        match self {
            Category::OverConsume => "Found over consume?!",
            Category::LeakNeverConsumed => "Error! Found a leaked owned value that was never consumed.",
            Category::LeakPostDominance => "Error! Found a leak due to a consuming post-dominance failure!",
            Category::OutsideOfLifetimeUse => "Found outside of lifetime use?!",
            Category::OutsideOfLifetimeBlock => "Found outside of lifetime use!",
            Category::UseBeforeDef => "Found use outside of lifetime?!",
            Category::NonConsumingUseOutsideLifetime => "Found non consuming use outside of the lifetime being verified.",
            Category::IncompatibleOwnership => "Have operand with incompatible ownership?!",
            Category::OwnedParameterWithoutLifetimeEnd => "Owned function parameter without life ending uses!",
            Category::GuaranteedParameterWithLifetimeEnd => "Guaranteed function parameter with life ending uses!",
            Category::InvalidEndBorrow => "Invalid End Borrow!",
            Category::NoLifetimeEndingUse => {
                "Non trivial values, non address values, and non guaranteed function args must have at least one lifetime ending use?!"
            }
        }
    }

    /// The same in plain words, for the lab's own diagnostics.
    pub fn explain(self) -> &'static str {
        match self {
            Category::OverConsume => "the value is consumed more than once on some path",
            Category::LeakNeverConsumed => "the owned value is never consumed (add a `destroy_value`)",
            Category::LeakPostDominance => "on some path the value is never consumed",
            Category::OutsideOfLifetimeUse => "a use comes after the lifetime ended in the same block",
            Category::OutsideOfLifetimeBlock => "a use is in a block the value's lifetime does not reach",
            Category::UseBeforeDef => "a use comes before the definition",
            Category::NonConsumingUseOutsideLifetime => "the value is consumed in its own block but used in another",
            Category::IncompatibleOwnership => "the operand does not accept a value of this ownership",
            Category::OwnedParameterWithoutLifetimeEnd => "an `@owned` argument must be consumed",
            Category::GuaranteedParameterWithLifetimeEnd => "a `@guaranteed` argument is borrowed for the whole call: it cannot be ended",
            Category::InvalidEndBorrow => "`end_borrow` of a value forwarded from a borrow, not of the borrow itself",
            Category::NoLifetimeEndingUse => "the borrow scope is never ended",
        }
    }
}

/// One error, with the value, the user and the block as Swift reports them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub category: Category,
    /// Swift's headline.
    pub message: &'static str,
    pub value: ValueId,
    /// The user (the consuming user for an outside-of-lifetime use).
    pub user: Option<InstId>,
    /// The non-consuming user of an outside-of-lifetime use.
    pub other_user: Option<InstId>,
    pub block: Option<BlockId>,
    /// Post-dominance failure blocks of a leak.
    pub blocks: Vec<BlockId>,
    pub operand: Option<u32>,
    /// The value's kind, for incompatible ownership (Swift's `Conv:`).
    pub conv: Option<Kind>,
    pub constraint: Option<Constraint>,
    /// Where to point: the user instruction, else the definition.
    pub span: Span,
}

impl Finding {
    /// The report as Swift's textual error dumper prints it (headline, `Value:`, `User:`, …).
    pub fn lines(&self, f: &Function, n: &Names) -> Vec<String> {
        let mut out = vec![self.message.to_string(), format!("Value:   {}", n.def(f, self.value))];
        let user = |i: Option<InstId>| i.map(|i| n.inst(f, i)).unwrap_or_default();
        match self.category {
            Category::OutsideOfLifetimeUse => {
                out.push(format!("Consuming User:   {}", user(self.user)));
                out.push(format!("Non Consuming User:   {}", user(self.other_user)));
            }
            Category::LeakPostDominance => {
                out.push("Post Dominating Failure Blocks:".into());
                let bs: Vec<String> = self.blocks.iter().map(|&b| n.block(f, b)).collect();
                out.push(format!(" {}", bs.join(" ")));
            }
            _ => {
                if self.user.is_some() {
                    out.push(format!("User:   {}", user(self.user)));
                }
            }
        }
        if let Some(k) = self.operand {
            out.push(format!("Operand Number: {k}"));
        }
        if let Some(c) = self.conv {
            out.push(format!("Conv: {c}"));
        }
        if let Some(c) = self.constraint {
            out.push("Constraint:".into());
            out.push(c.swift_text());
        }
        if let Some(b) = self.block {
            out.push(format!("Block: {}", n.block(f, b)));
        }
        out
    }
}

/// The verifier's answer for one function.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    pub function: String,
    /// False for functions without ownership (not `[ossa]`) and declarations.
    pub checked: bool,
    /// Why the function was not checked.
    pub note: Option<String>,
    pub findings: Vec<Finding>,
    /// What the verifier walked, one sentence a step: a step per value checked, and a step per
    /// finding (for a steppable view).
    pub steps: Vec<String>,
}

/// Runs the ownership verifier on `f`, whose ownership `fo` is.
pub fn verify(f: &Function, fo: &FunctionOwnership) -> Verdict {
    let mut v = Verdict { function: f.name.clone(), checked: false, note: None, findings: Vec::new(), steps: Vec::new() };
    if f.is_declaration() {
        v.note = Some("a declaration: no body to check".into());
        return v;
    }
    if !fo.ossa {
        v.note = Some("not an OSSA function (`sil [ossa]`): ownership is not checked".into());
        v.steps.push(format!("@{} is not `[ossa]`: its values have no ownership, nothing to check", f.name));
        return v;
    }
    v.checked = true;
    let names = Names::user(f);
    let mut scratch = Scratch::new(f.blocks.len());
    for vi in &fo.values {
        if vi.kind == Kind::None {
            continue;
        }
        let before = v.findings.len();
        // Incompatible operands of this value (Swift reports them while gathering uses).
        for &o in fo.index.uses.of(vi.value.0 as usize).iter().rev() {
            let op = &fo.operands[o];
            if op.compatible {
                continue;
            }
            let number = match op.slot {
                super::Slot::Arg(k) => k,
                super::Slot::SuccArg(s, j) => {
                    let inst = f.insts.get(op.inst);
                    let before: usize = inst.map_or(0, |i| i.args.len() + i.succs.iter().take(s as usize).map(|x| x.args.len()).sum::<usize>());
                    before as u32 + j
                }
            };
            v.findings.push(Finding {
                category: Category::IncompatibleOwnership,
                message: Category::IncompatibleOwnership.message(),
                value: vi.value,
                user: Some(op.inst),
                other_user: None,
                block: None,
                blocks: Vec::new(),
                operand: Some(number),
                conv: Some(vi.kind),
                constraint: Some(op.constraint),
                span: f.insts.get(op.inst).map_or(Span::DUMMY, |i| i.span),
            });
        }
        if vi.kind == Kind::Unowned || is_forwarded_guaranteed(vi) {
            if v.findings.len() == before {
                let what = if vi.kind == Kind::Unowned { "unowned: only its operands are checked" } else { "a borrowed value forwarded from a borrow scope: checked with that scope" };
                v.steps.push(format!("{} ({}): {what}", names.value(f, vi.value), vi.kind));
            }
        } else if vi.assumed {
            v.steps.push(format!("{}: defined by an unmodelled instruction; not checked", names.value(f, vi.value)));
        } else if let Some(g) = fo.index.gathered_of(vi.value) {
            check_value(f, fo, vi, g, &names, &mut scratch, &mut v);
        }
        for fd in &v.findings[before..] {
            let text = fd.lines(f, &names).join(" / ");
            v.steps.push(format!("{}: {text}", names.value(f, vi.value)));
        }
    }
    v
}

fn def_span(f: &Function, v: ValueId) -> Span {
    match f.values.get(v).map(|d| d.def) {
        Some(ValueDef::Result { inst, .. }) => f.insts.get(inst).map_or(Span::DUMMY, |i| i.span),
        _ => f.values.get(v).map_or(Span::DUMMY, |d| d.span),
    }
}

fn finding(f: &Function, cat: Category, value: ValueId, user: Option<InstId>) -> Finding {
    let span = user.and_then(|i| f.insts.get(i)).map_or_else(|| def_span(f, value), |i| i.span);
    Finding {
        category: cat,
        message: cat.message(),
        value,
        user,
        other_user: None,
        block: None,
        blocks: Vec::new(),
        operand: None,
        conv: None,
        constraint: None,
        span,
    }
}

/// One value's checks: uses without ownership problems first, then the linear lifetime.
fn check_value(f: &Function, fo: &FunctionOwnership, vi: &super::ValueInfo, g: &Gathered, names: &Names, scratch: &mut Scratch, out: &mut Verdict) {
    let v = vi.value;
    let name = names.value(f, v);
    if g.unmodelled {
        out.steps.push(format!("{name} ({}): an unmodelled instruction uses it; its lifetime is not checked", vi.kind));
        return;
    }
    for &o in &g.invalid_end_borrows {
        let mut fd = finding(f, Category::InvalidEndBorrow, v, Some(fo.operands[o].inst));
        fd.span = f.insts.get(fo.operands[o].inst).map_or(fd.span, |i| i.span);
        out.findings.push(fd);
    }
    if g.incompatible || !g.invalid_end_borrows.is_empty() {
        return;
    }
    let blocks_of = |ops: &[usize]| -> String {
        let mut bs: Vec<String> = ops.iter().map(|&o| names.block(f, fo.operands[o].block)).collect();
        bs.dedup();
        bs.join(", ")
    };
    out.steps.push(format!(
        "{name} ({}, {}): {} lifetime-ending use(s){}, {} other use(s)",
        vi.kind,
        vi.why,
        g.ending.len(),
        if g.ending.is_empty() { String::new() } else { format!(" in {}", blocks_of(&g.ending)) },
        g.regular.len()
    ));
    let def_block = vi.block;
    let entry_arg = vi.source == Source::Argument;
    if g.ending.is_empty() {
        // Swift's checkValueWithoutLifetimeEndingUses.
        if entry_arg {
            if vi.kind == Kind::Owned && !def_block.is_some_and(|b| fo.is_dead_end(b)) {
                out.findings.push(finding(f, Category::OwnedParameterWithoutLifetimeEnd, v, None));
            }
            return;
        }
        if def_block.is_some_and(|b| fo.is_dead_end(b)) {
            return;
        }
        let cat = if vi.kind == Kind::Owned { Category::LeakNeverConsumed } else { Category::NoLifetimeEndingUse };
        out.findings.push(finding(f, cat, v, None));
        return;
    }
    if entry_arg && vi.kind == Kind::Guaranteed {
        out.findings.push(finding(f, Category::GuaranteedParameterWithLifetimeEnd, v, Some(fo.operands[g.ending[0]].inst)));
        return;
    }
    let Some(def_block) = def_block else { return };
    linear_lifetime(f, fo, v, def_block, g, scratch, out);
}

/// Swift's LinearLifetimeChecker on block granularity with instruction order inside blocks.
fn linear_lifetime(f: &Function, fo: &FunctionOwnership, v: ValueId, def: BlockId, g: &Gathered, scratch: &mut Scratch, out: &mut Verdict) {
    let (ending, regular) = (&g.ending[..], &g.regular[..]);
    let pos = |i: InstId| fo.index.inst_pos.get(i.0 as usize).copied().unwrap_or(0);
    let def_pos: Option<u32> = match f.values.get(v).map(|d| d.def) {
        Some(ValueDef::Result { inst, .. }) => Some(pos(inst)),
        _ => None,
    };
    let op = |o: usize| &fo.operands[o];
    let dead = |b: BlockId| fo.is_dead_end(b);

    let Scratch { nonconsuming, consuming_blocks, visited, must_set } = scratch;
    for set in [&mut *consuming_blocks, &mut *visited, &mut *must_set] {
        set.clear();
    }
    nonconsuming.clear();
    // Non-consuming uses by block (a use before the definition is an error of its own).
    let mut nc_order: Vec<BlockId> = Vec::new();
    for &o in regular {
        let u = op(o);
        if u.block == def && def_pos.is_some_and(|d| pos(u.inst) <= d) {
            let mut fd = finding(f, Category::UseBeforeDef, v, Some(u.inst));
            fd.block = Some(u.block);
            out.findings.push(fd);
            continue;
        }
        if nonconsuming.push(u.block, o) {
            nc_order.push(u.block);
        }
    }

    // Consuming uses: one per block, and nothing after it in its block.
    let mut preds_to_add: Vec<(usize, BlockId)> = Vec::new();
    for &c in ending {
        let cu = op(c);
        let b = cu.block;
        if !consuming_blocks.insert(b) {
            let mut fd = finding(f, Category::OverConsume, v, Some(cu.inst));
            fd.block = Some(b);
            out.findings.push(fd);
        }
        if let Some(ncs) = nonconsuming.remove(b) {
            for &n in &ncs {
                let nu = op(n);
                let after = if nu.inst != cu.inst {
                    pos(nu.inst) >= pos(cu.inst)
                } else {
                    !matches!(nu.constraint.role, super::Role::Reborrow | super::Role::GuaranteedForwarding)
                };
                if after {
                    let mut fd = finding(f, Category::OutsideOfLifetimeUse, v, Some(cu.inst));
                    fd.other_user = Some(nu.inst);
                    fd.block = Some(b);
                    fd.span = f.insts.get(nu.inst).map_or(fd.span, |i| i.span);
                    out.findings.push(fd);
                }
            }
        }
        if b == def {
            continue;
        }
        for &p in &fo.index.preds[b.0 as usize] {
            preds_to_add.push((c, p));
        }
    }

    // A single consume in the defining block: every other use must be in that block.
    if ending.len() == 1 && op(ending[0]).block == def {
        for &o in regular {
            let u = op(o);
            if u.block != def && !dead(u.block) {
                out.findings.push(finding(f, Category::NonConsumingUseOutsideLifetime, v, Some(u.inst)));
            }
        }
        return;
    }

    for &c in ending {
        visited.insert(op(c).block);
    }
    let mut must_visit: Vec<BlockId> = Vec::new();
    let add_must = |b: BlockId, must_visit: &mut Vec<BlockId>, must_set: &mut Marks| {
        if must_set.insert(b) {
            must_visit.push(b);
        }
    };
    let mut work: Vec<BlockId> = Vec::new();
    for (c, p) in preds_to_add {
        if consuming_blocks.contains(p) {
            for &s in &fo.index.succs[p.0 as usize] {
                if !visited.contains(s) {
                    add_must(s, &mut must_visit, must_set);
                }
            }
            let mut fd = finding(f, Category::OverConsume, v, Some(op(c).inst));
            fd.block = Some(p);
            out.findings.push(fd);
        }
        if visited.insert(p) {
            work.push(p);
        }
    }
    while let Some(b) = work.pop() {
        must_set.remove(b);
        nonconsuming.remove(b);
        for &s in &fo.index.succs[b.0 as usize] {
            if visited.contains(s) || dead(s) {
                continue;
            }
            add_must(s, &mut must_visit, must_set);
        }
        if b == def {
            continue;
        }
        for &p in &fo.index.preds[b.0 as usize] {
            if consuming_blocks.contains(p) {
                for &s in &fo.index.succs[p.0 as usize] {
                    if !visited.contains(s) {
                        add_must(s, &mut must_visit, must_set);
                    }
                }
                let mut fd = finding(f, Category::OverConsume, v, None);
                fd.block = Some(p);
                out.findings.push(fd);
            }
            if visited.insert(p) {
                work.push(p);
            }
        }
    }
    let failing: Vec<BlockId> = must_visit.into_iter().filter(|b| must_set.contains(*b)).collect();
    if !failing.is_empty() {
        let mut fd = finding(f, Category::LeakPostDominance, v, None);
        fd.blocks = failing;
        out.findings.push(fd);
    }
    for b in nc_order {
        let Some(ncs) = nonconsuming.get(b) else { continue };
        if dead(b) {
            continue;
        }
        for &n in ncs {
            let mut fd = finding(f, Category::OutsideOfLifetimeBlock, v, Some(op(n).inst));
            fd.block = Some(b);
            out.findings.push(fd);
        }
    }
}

/// Blocks marked for the value being checked: a generation stamp per block, so starting the
/// next value clears nothing (a set per value was an allocation per value).
struct Marks {
    stamp: Vec<u32>,
    gen: u32,
}

impl Marks {
    fn new(n: usize) -> Marks {
        Marks { stamp: vec![0; n], gen: 1 }
    }

    fn clear(&mut self) {
        self.gen += 1;
    }

    /// True if `b` was not marked.
    fn insert(&mut self, b: BlockId) -> bool {
        match self.stamp.get_mut(b.0 as usize) {
            Some(s) if *s != self.gen => {
                *s = self.gen;
                true
            }
            _ => false,
        }
    }

    fn contains(&self, b: BlockId) -> bool {
        self.stamp.get(b.0 as usize) == Some(&self.gen)
    }

    fn remove(&mut self, b: BlockId) {
        if let Some(s) = self.stamp.get_mut(b.0 as usize) {
            *s = 0;
        }
    }
}

/// The non-consuming uses of the value being checked, by block.
struct UsesByBlock {
    marks: Marks,
    /// Per block, its row in `rows` (valid while the block is marked).
    slot: Vec<u32>,
    rows: Vec<Vec<usize>>,
}

impl UsesByBlock {
    fn clear(&mut self) {
        self.marks.clear();
        self.rows.clear();
    }

    /// Adds a use in `b`; true if it is the block's first.
    fn push(&mut self, b: BlockId, o: usize) -> bool {
        let Some(slot) = self.slot.get_mut(b.0 as usize) else { return false };
        let first = self.marks.insert(b);
        if first {
            *slot = self.rows.len() as u32;
            self.rows.push(Vec::new());
        }
        self.rows[*slot as usize].push(o);
        first
    }

    fn get(&self, b: BlockId) -> Option<&Vec<usize>> {
        self.marks.contains(b).then(|| &self.rows[self.slot[b.0 as usize] as usize])
    }

    fn remove(&mut self, b: BlockId) -> Option<Vec<usize>> {
        if !self.marks.contains(b) {
            return None;
        }
        self.marks.remove(b);
        Some(std::mem::take(&mut self.rows[self.slot[b.0 as usize] as usize]))
    }
}

/// The verifier's per-value tables, sized once per function.
struct Scratch {
    nonconsuming: UsesByBlock,
    consuming_blocks: Marks,
    visited: Marks,
    must_set: Marks,
}

impl Scratch {
    fn new(blocks: usize) -> Scratch {
        Scratch {
            nonconsuming: UsesByBlock { marks: Marks::new(blocks), slot: vec![0; blocks], rows: Vec::new() },
            consuming_blocks: Marks::new(blocks),
            visited: Marks::new(blocks),
            must_set: Marks::new(blocks),
        }
    }
}
