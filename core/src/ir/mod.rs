//! One IR for SIL and Bril.
//!
//! A [`Function`] owns three arenas — blocks, instructions, values — and a `layout` giving the
//! block order. A block holds the order of its instructions and, separately, its terminator.
//! Deleting an instruction or a block removes it from an order, never from an arena, so every
//! id recorded in a trace stays valid for the whole life of the function.
//!
//! SIL values (`%n`) are defined exactly once (an instruction result or a block parameter);
//! Bril variables are named and may be assigned by many instructions (`ValueDef::Var`).
//! Bril blocks may end without a terminator and fall through to the next block in layout.

mod branch;
mod names;
mod op;
mod pieces;
mod ssa_form;
mod text;
mod verify;

pub use branch::{branch_pieces, ArgTypes};
pub use names::{NewNames, NumberedNames};
pub use op::{BrilOp, Effect, Op, SilOp};
pub use pieces::Pieces;
pub use text::{Interner, Text};
pub use ssa_form::check_ssa_form;
pub use verify::verify;

use crate::diag::{SourceFile, Span};
use crate::entity::EntityVec;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use std::fmt;
use std::sync::Arc;

crate::entity_id!(
    /// A basic block. Displays as `bb3` (its arena index, as `sil-opt` numbers blocks).
    BlockId,
    "bb"
);
crate::entity_id!(
    /// An instruction in a function's arena. Displays as `i7`.
    InstId,
    "i"
);
crate::entity_id!(
    /// A value: a SIL SSA value or a Bril variable. Displays as `%5`.
    ValueId,
    "%"
);

/// The source language of a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Bril,
    Sil,
}

impl Lang {
    /// The language a file name implies (`.bril`, `.sil`).
    pub fn from_path(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.')?.1;
        match ext {
            "bril" => Some(Lang::Bril),
            "sil" => Some(Lang::Sil),
            _ => None,
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Lang::Bril => "bril",
            Lang::Sil => "sil",
        })
    }
}

/// A type: Bril's are structured; a SIL type is kept as its text after the `$`
/// (`Builtin.Int32`, `*Container`, `@convention(thin) () -> ()`).
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Type {
    Int,
    Bool,
    Float,
    Char,
    /// The dynamic extension's `any`: checked at run time, not statically.
    Any,
    Ptr(Box<Type>),
    /// Shared text: see [`Text`].
    Sil(Text),
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Int => f.write_str("int"),
            Type::Bool => f.write_str("bool"),
            Type::Float => f.write_str("float"),
            Type::Char => f.write_str("char"),
            Type::Any => f.write_str("any"),
            Type::Ptr(t) => write!(f, "ptr<{t}>"),
            Type::Sil(t) => write!(f, "${t}"),
        }
    }
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// An immediate operand: a literal or a name the instruction carries besides its values.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub enum Imm {
    #[default]
    None,
    /// Bril int constants (64-bit) and SIL `integer_literal` (up to 128 bits here).
    Int(i128),
    Bool(bool),
    Float(f64),
    Char(char),
    /// A name: SIL builtin name, field (`#Int32._value`), enum case, string literal text
    /// (shared text: see [`Text`]).
    Name(Text),
    /// A SIL tuple element index.
    Index(u32),
}

impl PartialEq for Imm {
    /// Floats compare by bit pattern, so a `nan` constant equals itself and a parse → print →
    /// parse round trip of any literal is an identity.
    fn eq(&self, other: &Imm) -> bool {
        match (self, other) {
            (Imm::None, Imm::None) => true,
            (Imm::Int(a), Imm::Int(b)) => a == b,
            (Imm::Bool(a), Imm::Bool(b)) => a == b,
            (Imm::Float(a), Imm::Float(b)) => a.to_bits() == b.to_bits(),
            (Imm::Char(a), Imm::Char(b)) => a == b,
            (Imm::Name(a), Imm::Name(b)) => a == b,
            (Imm::Index(a), Imm::Index(b)) => a == b,
            _ => false,
        }
    }
}

/// One piece of a SIL instruction's printed form after `=`. Operands and successors are
/// holes filled from the instruction's current `args`/`succs`, so renaming, renumbering and
/// replacing an operand by `undef` all print correctly without re-deriving syntax.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Piece {
    Text(String),
    /// `args[i]`
    Arg(u32),
    /// the label of `succs[i]`
    Succ(u32),
    /// `succs[i].args[j]`
    SuccArg(u32, u32),
}

/// The name of a value or a block: kept inline up to 23 bytes (`3`, `x`, `bb12`, `loop`), so
/// a function of 10^5 blocks holds no heap block per name and a clone of it copies names
/// without allocating (they were most of a clone's allocations once operands were inline:
/// issue 17). It derefs to `str`, compares with `str`/`String`, and converts with `.into()`.
pub type Name = smol_str::SmolStr;

/// A short list of values: an instruction's results or operands, a successor's arguments.
/// Up to four are kept inline (the list is as big as a `Vec`), so nearly every instruction
/// owns no heap block for them: cloning or dropping a function of 10^5 blocks was mostly
/// allocating, copying and freeing such small vectors (issue 17). It derefs to a slice and
/// has `push`, `extend`, `insert`, `retain`, … like a `Vec`; build one from a `Vec` or an
/// iterator with `.into()` / `collect()`.
pub type ValueList = SmallVec<[ValueId; 4]>;

/// A control-flow edge out of a terminator, with SIL block arguments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Succ {
    pub block: BlockId,
    pub args: ValueList,
}

impl Succ {
    pub fn to(block: BlockId) -> Succ {
        Succ { block, args: ValueList::new() }
    }
}

/// An instruction. Operands, results and successors are explicit so analyses need not know
/// the syntax; `sil` says how to print a SIL instruction (the generic path for any opcode).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Inst {
    pub op: Op,
    /// Defined values: SIL results; the Bril destination variable (at most one).
    pub results: ValueList,
    /// Value operands, in source order (for SIL `apply`, the callee first).
    pub args: ValueList,
    /// Successor blocks (terminators only).
    pub succs: Vec<Succ>,
    pub imm: Imm,
    /// Called functions: Bril `call @f`; SIL `function_ref @f`.
    pub funcs: Vec<String>,
    /// Bril: the destination's declared type. SIL: the type literal of the instruction where
    /// it has one (`integer_literal $Builtin.Int32`, `alloc_stack $T`).
    pub ty: Option<Type>,
    /// SIL bracketed attributes in order (`[trivial]`, `[modify]`, `[dynamic]` → names).
    pub attrs: Vec<String>,
    /// SIL: the printed form of everything after `=` (or the whole instruction when it has no
    /// results). Empty for Bril.
    pub sil: Pieces,
    pub span: Span,
}

impl Inst {
    /// A new instruction with no operands; fill the fields you need.
    pub fn new(op: Op) -> Inst {
        Inst {
            op,
            results: ValueList::new(),
            args: ValueList::new(),
            succs: Vec::new(),
            imm: Imm::None,
            funcs: Vec::new(),
            ty: None,
            attrs: Vec::new(),
            sil: Pieces::default(),
            span: Span::DUMMY,
        }
    }

    pub fn effect(&self) -> Effect {
        if self.is_terminator() {
            return Effect::Terminator;
        }
        let builtin = match &self.imm {
            Imm::Name(n) => Some(n.as_str()),
            _ => None,
        };
        self.op.effect(builtin)
    }

    /// A terminator opcode, or a SIL instruction the instruction table does not know that
    /// names successor blocks (the parser's generic path gives it `succs` only then): an
    /// unknown terminator such as `await_detached_continuation … resume bb1, error bb2` ends
    /// its block.
    pub fn is_terminator(&self) -> bool {
        self.op.is_terminator() || (self.op.is_unknown_sil() && !self.succs.is_empty())
    }

    /// The successors its text names: all of them, except a Bril `guard`'s first, which is
    /// the block after it (where control goes on when the guard holds).
    pub fn written_succs(&self) -> &[Succ] {
        match self.op {
            Op::Bril(BrilOp::Guard) => self.succs.get(1..).unwrap_or(&[]),
            _ => &self.succs,
        }
    }

    /// Every value this instruction reads: operands, then successor arguments.
    pub fn uses(&self) -> impl Iterator<Item = ValueId> + '_ {
        self.args.iter().copied().chain(self.succs.iter().flat_map(|s| s.args.iter().copied()))
    }
}

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValueDef {
    /// The `index`-th parameter of `block` (SIL block argument; function arguments are the
    /// entry block's parameters).
    Param { block: BlockId, index: u32 },
    /// The `index`-th result of `inst`.
    Result { inst: InstId, index: u32 },
    /// A Bril variable: assigned by any number of instructions and, if it is a function
    /// parameter, on entry.
    Var,
    /// A SIL `undef` operand (each occurrence is its own value).
    Undef,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValueData {
    /// The user's name without sigil (`x`, `3`, `instance_1`); see [`Name`].
    pub name: Name,
    pub ty: Option<Type>,
    pub def: ValueDef,
    /// SIL ownership annotation of a block argument (`owned`, `guaranteed`, …).
    pub ownership: Option<String>,
    /// The declaration a SIL function argument stands for, when a pass made the argument
    /// (AddressLowering's `@out` arguments are `$return_value`): `sil-opt` prints it as
    /// `// %0 "$return_value"` above the entry block, and so does the renumbered printing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decl: Option<String>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Block {
    /// The label without sigil (`bb1`, `bbTrampoline1`, `loop`); Bril's unlabeled blocks get
    /// `b<index>` as Bril's own tools name them. See [`Name`].
    pub name: Name,
    /// False for a Bril block that had no label in the source (printed without one).
    pub labeled: bool,
    pub params: Vec<ValueId>,
    /// Non-terminator instructions in order.
    pub insts: Vec<InstId>,
    /// The terminator; `None` only for a Bril block that falls through.
    pub term: Option<InstId>,
    pub span: Span,
}

impl Block {
    pub fn new(name: impl Into<Name>) -> Block {
        Block {
            name: name.into(),
            labeled: true,
            params: Vec::new(),
            insts: Vec::new(),
            term: None,
            span: Span::DUMMY,
        }
    }

    /// The instructions in execution order, terminator last.
    pub fn all_insts(&self) -> impl DoubleEndedIterator<Item = InstId> + '_ {
        self.insts.iter().copied().chain(self.term)
    }
}

/// A Bril function parameter or the Bril return type are kept here; SIL's signature is text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SilHeader {
    /// `public`, `hidden`, `shared`, … when present.
    pub linkage: Option<String>,
    /// Bracketed function attributes (`ossa`, `thunk`, `readnone`, `_semantics "x"`).
    pub attrs: Vec<String>,
    /// The function type text after `:`, including `$` and any generic signature.
    pub ty: String,
    /// Anything between the type and `{` we keep verbatim (rare).
    pub extra: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Function {
    /// Without sigil (`main`, `dead1`, `$s4main3fooyyF`).
    pub name: String,
    pub lang: Lang,
    /// Bril parameters (variables defined on entry). SIL function arguments are the entry
    /// block's parameters instead.
    pub params: Vec<ValueId>,
    /// Bril return type.
    pub ret: Option<Type>,
    /// SIL header; `None` for Bril.
    pub sil: Option<SilHeader>,
    pub blocks: EntityVec<BlockId, Block>,
    /// Block order; the first block is the entry. Blocks not listed are deleted.
    pub layout: Vec<BlockId>,
    pub insts: EntityVec<InstId, Inst>,
    pub values: EntityVec<ValueId, ValueData>,
    pub span: Span,
}

impl Function {
    pub fn new(name: impl Into<String>, lang: Lang) -> Function {
        Function {
            name: name.into(),
            lang,
            params: Vec::new(),
            ret: None,
            sil: None,
            blocks: EntityVec::new(),
            layout: Vec::new(),
            insts: EntityVec::new(),
            values: EntityVec::new(),
            span: Span::DUMMY,
        }
    }

    /// A SIL declaration without a body (`sil @f : $() -> ()`).
    pub fn is_declaration(&self) -> bool {
        self.layout.is_empty()
    }

    pub fn entry(&self) -> Option<BlockId> {
        self.layout.first().copied()
    }

    pub fn add_block(&mut self, block: Block) -> BlockId {
        let b = self.blocks.push(block);
        self.layout.push(b);
        b
    }

    pub fn add_value(&mut self, name: impl Into<Name>, ty: Option<Type>, def: ValueDef) -> ValueId {
        self.values.push(ValueData { name: name.into(), ty, def, ownership: None, decl: None, span: Span::DUMMY })
    }

    /// A fresh SIL `undef` of the given type.
    pub fn add_undef(&mut self, ty: Option<Type>) -> ValueId {
        self.add_value("undef", ty, ValueDef::Undef)
    }

    /// Adds `inst` to the arena and records its results' definitions. Does not place it.
    pub fn add_inst(&mut self, inst: Inst) -> InstId {
        let id = self.insts.push(inst);
        // By index: a copy of the results to iterate was an allocation per instruction
        // (every parsed instruction comes through here).
        if self.lang == Lang::Sil {
            for i in 0..self.insts[id].results.len() {
                let v = self.insts[id].results[i];
                self.values[v].def = ValueDef::Result { inst: id, index: i as u32 };
            }
        }
        id
    }

    /// The block's successors, following Bril fall-through to the next block in layout.
    pub fn successors(&self, b: BlockId) -> Vec<BlockId> {
        match self.blocks[b].term {
            Some(t) => self.insts[t].succs.iter().map(|s| s.block).collect(),
            None => self.fallthrough(b).into_iter().collect(),
        }
    }

    /// Whether the function uses Bril's speculation (`speculate`, `commit`, `guard`): passes
    /// whose analyses do not model a failing guard's rollback leave such a function alone.
    pub fn speculates(&self) -> bool {
        self.placed_insts().any(|(_, i)| {
            matches!(self.insts.get(i).map(|x| &x.op), Some(Op::Bril(BrilOp::Speculate | BrilOp::Commit | BrilOp::Guard)))
        })
    }

    /// Whether the function uses Bril's deprecated classic SSA form (`phi`): its labels name
    /// predecessors, so a pass that changes the CFG's edges must leave such a function alone.
    pub fn has_phis(&self) -> bool {
        // Tolerant of a layout naming missing blocks: callers ask before verifying.
        (self.layout.iter().filter_map(|&b| self.blocks.get(b)))
            .flat_map(|b| b.all_insts())
            .any(|i| matches!(self.insts.get(i).map(|x| &x.op), Some(Op::Bril(BrilOp::Phi))))
    }

    /// The block after `b` in layout, where a Bril block without terminator continues.
    pub fn fallthrough(&self, b: BlockId) -> Option<BlockId> {
        if self.blocks[b].term.is_some() {
            return None;
        }
        let pos = self.layout.iter().position(|&x| x == b)?;
        self.layout.get(pos + 1).copied()
    }

    /// Whether control can leave the function from the end of `b` (a return-like
    /// terminator, or a Bril block that falls off the end of the function).
    pub fn is_exit_block(&self, b: BlockId) -> bool {
        match self.blocks[b].term {
            Some(t) => self.insts[t].op.is_function_exit(),
            None => self.layout.last() == Some(&b),
        }
    }

    /// The placed block labelled `name` (`None` for names the function does not have, such
    /// as the virtual exit's, and for layout entries outside the arena).
    pub fn block_by_name(&self, name: &str) -> Option<BlockId> {
        self.layout.iter().copied().find(|&b| self.blocks.get(b).is_some_and(|blk| blk.name == name))
    }

    /// The block's label without sigil (`loop`, `bb3`): how drawings, tables and step texts
    /// name it. An id outside the arena is printed as the id, so a stale id in a trace or a
    /// selection still reads as something instead of panicking.
    pub fn block_name(&self, b: BlockId) -> String {
        self.blocks.get(b).map_or_else(|| b.to_string(), |blk| blk.name.to_string())
    }

    /// The block as the code refers to it: Bril `.loop`, SIL `bb3` (sentences that quote the
    /// program use this). Tolerant of bad ids like [`Function::block_name`].
    pub fn block_in_code(&self, b: BlockId) -> String {
        match self.blocks.get(b) {
            Some(blk) if self.lang == Lang::Bril => format!(".{}", blk.name),
            Some(blk) => blk.name.to_string(),
            None => b.to_string(),
        }
    }

    /// The value as the code writes it: SIL `%6`, Bril `x`, or `undef`. Tolerant of bad ids.
    pub fn value_in_code(&self, v: ValueId) -> String {
        match self.values.get(v) {
            Some(d) if d.def == ValueDef::Undef => "undef".into(),
            Some(d) if self.lang == Lang::Sil => format!("%{}", d.name),
            Some(d) => d.name.to_string(),
            None => v.to_string(),
        }
    }

    /// The block an instruction is placed in (linear scan; analyses build their own maps).
    pub fn block_of(&self, inst: InstId) -> Option<BlockId> {
        self.layout.iter().copied().find(|&b| self.blocks[b].all_insts().any(|i| i == inst))
    }

    /// Instruction ids of all placed instructions in layout order.
    pub fn placed_insts(&self) -> impl Iterator<Item = (BlockId, InstId)> + '_ {
        self.layout.iter().flat_map(move |&b| self.blocks[b].all_insts().map(move |i| (b, i)))
    }

    pub fn value_name(&self, v: ValueId) -> &str {
        &self.values[v].name
    }
}

/// A top-level item of a module, in source order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Item {
    /// Index into `Module::functions`.
    Function(usize),
    /// A SIL item we keep verbatim (`sil_stage`, `import`, type declarations, `sil_global`,
    /// vtables, witness tables, scopes, …).
    Raw { text: String, span: Span },
}

#[derive(Clone, Debug)]
pub struct Module {
    pub lang: Lang,
    pub functions: Vec<Function>,
    pub items: Vec<Item>,
    /// The text this module was parsed from (spans point into it).
    pub source: Arc<SourceFile>,
}

impl Module {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// Functions that have a body.
    pub fn bodies(&self) -> impl Iterator<Item = &Function> {
        self.functions.iter().filter(|f| !f.is_declaration())
    }

    /// The source text an instruction was parsed from, if it was parsed.
    pub fn text_of(&self, span: Span) -> Option<&str> {
        if span == Span::DUMMY {
            return None;
        }
        self.source.text.get(span.lo as usize..span.hi as usize)
    }
}

impl PartialEq for Module {
    /// Structural equality ignoring where things came from (spans and source text): what a
    /// parse → print → parse round trip must preserve.
    fn eq(&self, other: &Module) -> bool {
        self.lang == other.lang
            && self.items.len() == other.items.len()
            && self.items.iter().zip(&other.items).all(|(a, b)| match (a, b) {
                (Item::Function(x), Item::Function(y)) => x == y,
                (Item::Raw { text: x, .. }, Item::Raw { text: y, .. }) => x.trim() == y.trim(),
                _ => false,
            })
            && self.functions.len() == other.functions.len()
            && self.functions.iter().zip(&other.functions).all(|(a, b)| a.without_spans() == b.without_spans())
    }
}

impl Function {
    /// A copy whose instruction and value arenas already have room for `insts` and `values`
    /// more entries, for a pass that knows how many it will add: a plain clone is exactly
    /// full, so the first instruction a pass adds reallocated (and moved) the whole arena of
    /// a 10^5-block function, and left it half empty (issue 17).
    pub fn clone_with_room(&self, insts: usize, values: usize) -> Function {
        let mut out_insts = EntityVec::with_capacity(self.insts.len() + insts);
        for inst in self.insts.values() {
            out_insts.push(inst.clone());
        }
        let mut out_values = EntityVec::with_capacity(self.values.len() + values);
        for v in self.values.values() {
            out_values.push(v.clone());
        }
        Function {
            name: self.name.clone(),
            lang: self.lang,
            params: self.params.clone(),
            ret: self.ret.clone(),
            sil: self.sil.clone(),
            blocks: self.blocks.clone(),
            layout: self.layout.clone(),
            insts: out_insts,
            values: out_values,
            span: self.span,
        }
    }

    /// A copy with every span zeroed, for structural comparison.
    pub fn without_spans(&self) -> Function {
        let mut f = self.clone();
        f.span = Span::DUMMY;
        f.blocks.values_mut().for_each(|b| b.span = Span::DUMMY);
        f.insts.values_mut().for_each(|i| i.span = Span::DUMMY);
        f.values.values_mut().for_each(|v| v.span = Span::DUMMY);
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `clone_with_room` is a clone: equal to `clone` on parsed functions of both languages,
    /// and what is pushed afterwards gets the same ids as on a plain clone.
    #[test]
    fn clone_with_room_equals_clone() {
        for (lang, text) in [
            (Lang::Sil, crate::testgen::scale::sil_program(40, 3)),
            (Lang::Bril, crate::testgen::scale::bril_program(40, 3)),
        ] {
            let m = crate::parse_module(lang, "t", &text).expect("generated programs parse");
            for f in m.functions.iter().filter(|f| !f.insts.is_empty()) {
                let mut a = f.clone_with_room(5, 7);
                let mut b = f.clone();
                assert_eq!(a, b);
                let (ia, ib) = (a.add_inst(Inst::new(f.insts[InstId(0)].op.clone())), b.add_inst(Inst::new(f.insts[InstId(0)].op.clone())));
                assert_eq!((ia, a.add_undef(None)), (ib, b.add_undef(None)));
                assert_eq!(a, b);
            }
        }
    }
}
