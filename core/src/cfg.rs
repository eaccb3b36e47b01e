//! The control-flow graph of a function: successors, predecessors, orders and reachability.
//!
//! This is step 1 of the ADCE article (seed 000, "Control Flow Graph"): every edge out of a
//! block's terminator, plus Bril's fall-through into the next block in layout. The dominator,
//! post-dominator, frontier and control-dependence analyses in [`crate::dom`] are all built
//! on it, so it fixes the conventions they share:
//!
//! * **One entry per edge.** A `br c .a .a` (or a SIL `cond_br %c, bb1, bb1`) gives `a` two
//!   predecessor entries. Duplicates are kept on purpose: SIL block arguments are per edge,
//!   and the dominance algorithms are indifferent to them.
//! * **Only placed blocks.** Blocks deleted from the layout have no edges and are never
//!   reachable; an edge naming a block that is not in the layout (something `ir::verify`
//!   rejects) is ignored rather than panicking.
//! * **Layout order is the tie-breaker** wherever a result is a list of blocks, so results
//!   are deterministic and read top to bottom like the source.
//!
//! Tables are dense (`EntityVec<BlockId, _>` sized to the block arena), never hash maps.

use crate::entity::{EntityRef, EntitySet, EntityVec, Rows};
use crate::ir::{Block, BlockId, Function, Lang};
use std::borrow::Cow;

/// Marks a block that is not in the layout, or not reachable, in the `u32` position tables.
const NONE: u32 = u32::MAX;

/// The control-flow graph of one function. Built once by [`Cfg::new`]; it does not follow
/// later edits of the function (rebuild it after a pass changes control flow).
#[derive(Clone, Debug)]
pub struct Cfg {
    entry: Option<BlockId>,
    layout: Vec<BlockId>,
    layout_pos: EntityVec<BlockId, u32>,
    /// Edges in compressed rows, a row per block of the arena: two flat arrays per direction
    /// instead of a `Vec` per block — a 10^5-block graph was 2×10^5 small allocations
    /// scattered over the heap, and every analysis that walks the graph paid a cache miss per
    /// block to reach them.
    succs: Rows<BlockId, BlockId>,
    preds: Rows<BlockId, BlockId>,
    postorder: Vec<BlockId>,
    /// Index of each reachable block in `postorder`; `NONE` otherwise.
    po_index: EntityVec<BlockId, u32>,
    reachable: EntitySet<BlockId>,
    exits: Vec<BlockId>,
    num_edges: usize,
}

impl Cfg {
    /// Builds the graph of `f`. Successors are exactly those of [`Function::successors`]
    /// (terminator targets in operand order, or the fall-through block for a Bril block with
    /// no terminator), computed here with a layout-position table so a 10,000-block function
    /// with fall-throughs stays linear.
    pub fn new(f: &Function) -> Cfg {
        let n = f.blocks.len();
        let mut layout_pos: EntityVec<BlockId, u32> = EntityVec::filled(n, NONE);
        let mut layout = Vec::with_capacity(f.layout.len());
        for &b in &f.layout {
            // Skip ids outside the arena and repeated entries (both rejected by `verify`).
            if b.index() < n && layout_pos[b] == NONE {
                layout_pos[b] = layout.len() as u32;
                layout.push(b);
            }
        }
        let placed = |b: BlockId| b.index() < n && layout_pos[b] != NONE;

        // Rows in block-id order; a deleted block's row is empty.
        let mut succs = Rows::with_capacity(n, 2 * layout.len());
        for (b, block) in f.blocks.iter() {
            if let Some(pos) = layout_pos.get(b).filter(|&&p| p != NONE).map(|&p| p as usize) {
                match block.term {
                    Some(t) => {
                        if let Some(inst) = f.insts.get(t) {
                            succs.extend_row(inst.succs.iter().map(|s| s.block).filter(|&s| placed(s)));
                        }
                    }
                    None => succs.extend_row(layout.get(pos + 1).copied()),
                }
            }
            succs.end_row();
        }
        let num_edges = succs.flat().len();
        let exits: Vec<BlockId> =
            layout.iter().enumerate().filter(|&(pos, &b)| is_exit(f, &f.blocks[b], pos + 1 == layout.len())).map(|(_, &b)| b).collect();
        // Predecessors in layout order of their source (then operand order), the order
        // `Rows::grouped` keeps.
        let preds = Rows::grouped(n, layout.iter().flat_map(|&b| succs[b].iter().map(move |&s| (s, b))));

        let entry = layout.first().copied();
        let mut postorder = Vec::with_capacity(layout.len());
        let mut reachable = EntitySet::new_empty(n);
        if let Some(e) = entry {
            // Iterative DFS that visits successors in order, exactly like the recursive
            // formulation (a stack of "next successor to try" cursors).
            let mut stack: Vec<(BlockId, usize)> = vec![(e, 0)];
            reachable.insert(e);
            while let Some(top) = stack.last_mut() {
                let (b, i) = *top;
                if let Some(&s) = succs[b].get(i) {
                    top.1 += 1;
                    if reachable.insert(s) {
                        stack.push((s, 0));
                    }
                } else {
                    postorder.push(b);
                    stack.pop();
                }
            }
        }
        let mut po_index = EntityVec::filled(n, NONE);
        for (i, &b) in postorder.iter().enumerate() {
            po_index[b] = i as u32;
        }

        Cfg { entry, layout, layout_pos, succs, preds, postorder, po_index, reachable, exits, num_edges }
    }

    /// The entry block (first in layout); `None` for a declaration without a body.
    pub fn entry(&self) -> Option<BlockId> {
        self.entry
    }

    /// Size of the block arena the tables are indexed by (deleted blocks included).
    pub fn num_blocks(&self) -> usize {
        self.succs.len()
    }

    /// The placed blocks in layout order.
    pub fn blocks(&self) -> &[BlockId] {
        &self.layout
    }

    /// Whether `b` is placed in the layout.
    pub fn contains(&self, b: BlockId) -> bool {
        self.layout_pos.get(b).is_some_and(|&p| p != NONE)
    }

    /// The position of `b` in the layout; `None` for a deleted block.
    pub fn layout_pos(&self, b: BlockId) -> Option<usize> {
        self.layout_pos.get(b).and_then(|&p| (p != NONE).then_some(p as usize))
    }

    /// The successors of `b`, one entry per edge, in terminator operand order.
    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        self.succs.of(b)
    }

    /// The predecessors of `b`, one entry per edge, ordered by the predecessor's layout
    /// position (then by operand order).
    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        self.preds.of(b)
    }

    /// The number of edges, duplicates included.
    pub fn num_edges(&self) -> usize {
        self.num_edges
    }

    /// All edges `(from, to)` in layout order of `from`, then operand order.
    pub fn edges(&self) -> impl Iterator<Item = (BlockId, BlockId)> + '_ {
        self.layout.iter().flat_map(move |&b| self.succs(b).iter().map(move |&s| (b, s)))
    }

    /// Blocks reachable from the entry in postorder of a depth-first search that tries
    /// successors in operand order.
    pub fn postorder(&self) -> &[BlockId] {
        &self.postorder
    }

    /// Blocks reachable from the entry in reverse postorder (the entry first): the order in
    /// which forward dataflow converges fastest.
    pub fn reverse_postorder(&self) -> impl DoubleEndedIterator<Item = BlockId> + ExactSizeIterator + '_ {
        self.postorder.iter().rev().copied()
    }

    /// The index of `b` in reverse postorder; `None` if `b` is unreachable.
    pub fn rpo_index(&self, b: BlockId) -> Option<usize> {
        let i = *self.po_index.get(b)?;
        (i != NONE).then(|| self.postorder.len() - 1 - i as usize)
    }

    /// Whether `b` is reachable from the entry.
    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.reachable.contains(b)
    }

    /// Placed blocks the entry cannot reach, in layout order (what the UI greys out).
    pub fn unreachable_blocks(&self) -> Vec<BlockId> {
        self.layout.iter().copied().filter(|&b| !self.reachable.contains(b)).collect()
    }

    /// Blocks from whose end control leaves the function ([`Function::is_exit_block`]:
    /// `ret`/`return`/`throw`/`unreachable`, or a Bril block falling off the end), in layout
    /// order. Post-dominance joins each of them to the virtual exit.
    pub fn exits(&self) -> &[BlockId] {
        &self.exits
    }
}

/// [`Function::is_exit_block`] without its linear layout scan (we know the position).
fn is_exit(f: &Function, block: &Block, is_last: bool) -> bool {
    match block.term {
        Some(t) => f.insts.get(t).is_some_and(|i| i.op.is_function_exit()),
        None => is_last,
    }
}

/// What an edge out of a block means, for drawings and their legends: the two sides of a
/// two-way conditional branch (`br`, `cond_br`), the named edges of SIL's multi-way
/// terminators, or nothing to say (`jmp`, `br`, a fall-through).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EdgeRole {
    Plain,
    True,
    False,
    /// The label an edge of `switch_enum` (the case: `.some`, `default`), `switch_value`
    /// (`case %1`, `default`), `checked_cast_br` (`success`, `failure`), `try_apply`
    /// (`normal`, `error`) and the like carries.
    Named(String),
}

impl EdgeRole {
    /// The text drawn on the edge (empty for none; true/false edges are told by colour).
    pub fn label(&self) -> &str {
        match self {
            EdgeRole::Named(s) => s,
            _ => "",
        }
    }
}

/// The role of each edge out of `b`, one per entry of [`Function::successors`], in order.
pub fn edge_roles(f: &Function, b: BlockId) -> Vec<EdgeRole> {
    let n = f.successors(b).len();
    let Some(inst) = f.blocks.get(b).and_then(|blk| blk.term).and_then(|t| f.insts.get(t)) else {
        return vec![EdgeRole::Plain; n];
    };
    let name = inst.op.name();
    // Two-way branches on a condition: the first target is taken when it is true.
    if matches!(name, "br" | "cond_br") && n == 2 {
        return vec![EdgeRole::True, EdgeRole::False];
    }
    let fixed: Option<[&str; 2]> = match name {
        "checked_cast_br" | "checked_cast_addr_br" => Some(["success", "failure"]),
        "try_apply" => Some(["normal", "error"]),
        "dynamic_method_br" => Some(["has method", "no method"]),
        "await_async_continuation" => Some(["resume", "error"]),
        // Bril's speculation: on from the guard when it holds, rolled back when it fails.
        "guard" => Some(["holds", "fails"]),
        _ => None,
    };
    if let Some(names) = fixed.filter(|_| n == 2) {
        return names.iter().map(|s| EdgeRole::Named(s.to_string())).collect();
    }
    if !matches!(name, "switch_enum" | "switch_enum_addr" | "switch_value") {
        return vec![EdgeRole::Plain; n];
    }
    // A case's label is what its printed form says before the successor, back to the comma
    // that starts the case: `case #Optional.some!enumelt:` → `.some`, `case %1:` → `case %1`,
    // `default` → `default`.
    let mut roles = vec![EdgeRole::Plain; n];
    let mut since_comma = String::new();
    for piece in &inst.sil {
        match piece {
            crate::ir::Piece::Text(t) => match t.rfind(',') {
                Some(i) => since_comma = t[i + 1..].to_string(),
                None => since_comma.push_str(t),
            },
            crate::ir::Piece::Arg(i) => {
                if let Some(&v) = inst.args.get(*i as usize) {
                    since_comma.push('%');
                    since_comma.push_str(f.value_name(v));
                }
            }
            crate::ir::Piece::Succ(i) => {
                if let Some(r) = roles.get_mut(*i as usize) {
                    *r = case_label(&since_comma);
                }
                since_comma.clear();
            }
            crate::ir::Piece::SuccArg(..) => {}
        }
    }
    roles
}

/// `case #E.a!enumelt:` → `.a`; `case %1:` → `case %1`; `default` → `default`.
fn case_label(text: &str) -> EdgeRole {
    let t = text.trim().trim_end_matches(':').trim();
    if t == "default" {
        return EdgeRole::Named("default".into());
    }
    let Some(case) = t.strip_prefix("case").map(str::trim) else { return EdgeRole::Plain };
    match case.strip_prefix('#') {
        Some(elt) => {
            let elt = elt.split('!').next().unwrap_or(elt);
            let last = elt.rsplit('.').next().unwrap_or(elt);
            EdgeRole::Named(format!(".{last}"))
        }
        None if !case.is_empty() => EdgeRole::Named(format!("case {case}")),
        None => EdgeRole::Plain,
    }
}

/// Bril's entry normalization, as its `cfg.add_entry` does before computing dominators: if
/// the first block has predecessors (it is a loop header, as in `while.bril`), a new empty
/// block named `entry1` (or `entry2`, … — the first name not taken) is put in front of it
/// and falls through to it.
///
/// Why: the entry must be the root of the dominator tree, and a block with predecessors would
/// make "dominates the entry" depend on paths that re-enter it; Bril's golden outputs
/// (`examples/test/dom`) are computed on the normalized function, so comparing against them
/// needs the same step. The function is borrowed unchanged when nothing is needed, and for
/// SIL, whose entry block may not have predecessors at all.
pub fn with_fresh_entry(f: &Function) -> Cow<'_, Function> {
    let Some(entry) = f.entry() else { return Cow::Borrowed(f) };
    if f.lang != Lang::Bril {
        return Cow::Borrowed(f);
    }
    let has_preds = f
        .layout
        .iter()
        .any(|&b| f.blocks[b].term.is_some_and(|t| f.insts[t].succs.iter().any(|s| s.block == entry)));
    if !has_preds {
        return Cow::Borrowed(f);
    }
    let name = (1..)
        .map(|i| format!("entry{i}"))
        .find(|n| f.layout.iter().all(|&b| f.blocks[b].name != *n))
        .expect("an unused name exists");
    let mut g = f.clone();
    let b = g.blocks.push(Block::new(name));
    g.layout.insert(0, b);
    Cow::Owned(g)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ir::{BrilOp, Inst, Op, Succ, Type, ValueDef};

    /// A Bril function from `(name, terminator)` pairs: `"jmp a"`, `"br a b"`, `"ret"`, or
    /// `""` for fall-through.
    pub(crate) fn bril(blocks: &[(&str, &str)]) -> Function {
        let mut f = Function::new("t", Lang::Bril);
        let c = f.add_value("c", Some(Type::Bool), ValueDef::Var);
        let ids: Vec<BlockId> = blocks.iter().map(|(n, _)| f.add_block(Block::new(*n))).collect();
        for (k, (_, term)) in blocks.iter().enumerate() {
            let mut words = term.split_whitespace();
            let Some(op) = words.next() else { continue };
            let mut inst = Inst::new(Op::Bril(BrilOp::from_name(op)));
            if op == "br" {
                inst.args.push(c);
            }
            for w in words {
                let t = f.block_by_name(w).expect("known label");
                inst.succs.push(Succ::to(t));
            }
            let i = f.add_inst(inst);
            f.blocks[ids[k]].term = Some(i);
        }
        f
    }

    #[test]
    fn successors_match_function_successors_including_fallthrough() {
        let f = bril(&[("a", ""), ("b", "br a c"), ("c", "jmp c"), ("d", "br d d"), ("e", "")]);
        let cfg = Cfg::new(&f);
        for &b in &f.layout {
            assert_eq!(cfg.succs(b), f.successors(b).as_slice(), "{b}");
            assert_eq!(cfg.exits().contains(&b), f.is_exit_block(b));
        }
        let [a, b, c, d, e] = [0, 1, 2, 3, 4].map(BlockId);
        assert_eq!(cfg.preds(a), &[b]);
        assert_eq!(cfg.preds(d), &[d, d], "duplicate edges are kept");
        assert_eq!(cfg.num_edges(), 6);
        assert_eq!(cfg.exits(), &[e]);
        assert_eq!(cfg.unreachable_blocks(), vec![d, e]);
        assert!(cfg.is_reachable(c) && !cfg.is_reachable(d));
        assert_eq!(cfg.reverse_postorder().collect::<Vec<_>>(), vec![a, b, c]);
        assert_eq!(cfg.postorder(), &[c, b, a]);
        assert_eq!(cfg.rpo_index(b), Some(1));
        assert_eq!(cfg.rpo_index(e), None);
    }

    #[test]
    fn deleted_blocks_have_no_edges() {
        let mut f = bril(&[("a", "br b c"), ("b", "ret"), ("c", "ret")]);
        f.layout.retain(|&b| b != BlockId(2));
        let t = f.blocks[BlockId(0)].term.unwrap();
        f.insts[t].succs.truncate(1);
        let cfg = Cfg::new(&f);
        assert!(!cfg.contains(BlockId(2)));
        assert_eq!(cfg.layout_pos(BlockId(2)), None);
        assert!(cfg.preds(BlockId(2)).is_empty());
        assert_eq!(cfg.unreachable_blocks(), vec![]);
        assert_eq!(cfg.exits(), &[BlockId(1)]);
    }

    #[test]
    fn fresh_entry_only_when_the_first_block_has_predecessors() {
        let f = bril(&[("entry1", "br entry1 x"), ("x", "ret")]);
        let g = with_fresh_entry(&f);
        assert!(matches!(g, Cow::Owned(_)));
        let e = g.entry().unwrap();
        assert_eq!(g.blocks[e].name, "entry2", "fresh name skips taken ones");
        assert_eq!(g.successors(e), vec![BlockId(0)]);
        let h = bril(&[("a", "jmp b"), ("b", "jmp b")]);
        assert!(matches!(with_fresh_entry(&h), Cow::Borrowed(_)));
        assert!(matches!(with_fresh_entry(&Function::new("d", Lang::Bril)), Cow::Borrowed(_)));
    }

    #[test]
    fn an_empty_function_has_an_empty_graph() {
        let cfg = Cfg::new(&Function::new("d", Lang::Sil));
        assert_eq!(cfg.entry(), None);
        assert!(cfg.postorder().is_empty() && cfg.exits().is_empty());
    }

    #[test]
    fn multi_way_sil_edges_are_named_by_case_and_outcome() {
        let text = r#"sil_stage canonical

import Builtin
import Swift

enum E { case a, b }
class K {}
class Sub : K {}

sil @f : $@convention(thin) (E, Builtin.Int32, @owned K, @convention(thin) () -> @error any Error) -> () {
bb0(%0 : $E, %1 : $Builtin.Int32, %2 : $K, %3 : $@convention(thin) () -> @error any Error):
  switch_enum %0 : $E, case #E.a!enumelt: bb1, case #E.b!enumelt: bb2
bb1:
  %4 = integer_literal $Builtin.Int32, 1
  switch_value %1 : $Builtin.Int32, case %4: bb3, default bb4
bb2:
  checked_cast_br K in %2 : $K to Sub, bb5, bb6
bb3:
  try_apply %3() : $@convention(thin) () -> @error any Error, normal bb7, error bb8
bb4:
  br bb9
bb5(%5 : $Sub):
  br bb9
bb6(%6 : $K):
  br bb9
bb7(%7 : $()):
  br bb9
bb8(%8 : $any Error):
  br bb9
bb9:
  %9 = tuple ()
  return %9 : $()
}
"#;
        let m = crate::parse_module(Lang::Sil, "t.sil", text).unwrap_or_else(|e| panic!("{e:?}"));
        let f = m.bodies().next().expect("a body");
        let roles = |name: &str| {
            let b = f.layout.iter().copied().find(|&b| f.blocks[b].name == name).expect("block");
            edge_roles(f, b).iter().map(|r| r.label().to_string()).collect::<Vec<_>>()
        };
        assert_eq!(roles("bb0"), [".a", ".b"]);
        assert_eq!(roles("bb1"), ["case %4", "default"]);
        assert_eq!(roles("bb2"), ["success", "failure"]);
        assert_eq!(roles("bb3"), ["normal", "error"]);
        assert_eq!(roles("bb4"), [""]);
        let b = bril(&[("a", "br b c"), ("b", "jmp c"), ("c", "ret")]);
        assert_eq!(edge_roles(&b, BlockId(0)), [EdgeRole::True, EdgeRole::False]);
        assert_eq!(edge_roles(&b, BlockId(1)), [EdgeRole::Plain]);
    }
}
