//! AddressLowering: opaque values get storage (seed 001, Swift's `AddressLowering.cpp`).
//!
//! In opaque-values SIL an address-only value (`%0 : @owned $T`) is an SSA value like any
//! other; the pass that ends that stage gives every such value a memory location and
//! rewrites each instruction into its address form. It runs in three steps, each kept as
//! data so the lab can show it:
//!
//! 1. **assignment** ([`storage::assign`]): every opaque value, in reverse postorder;
//! 2. **allocation** ([`storage::allocate`], users before definitions): a value is built
//!    directly inside its user's storage (*use-projection*: an operand of `tuple`, `struct`,
//!    `enum`, `init_existential_value`, `store`, or the `@out` result; a phi too, and an
//!    incoming value defined in the branching block shares the phi's storage), reads its
//!    operand's storage (*reuse*: `begin_borrow`, `unchecked_enum_data`, a `switch_enum`
//!    payload, `open_existential_value`), or is a part of it (*def-projection*:
//!    `struct_extract`, `tuple_extract`, `destructure_*`); what is left is a root: an
//!    indirect argument or a value yielded by address, an `@out` argument, or an
//!    `alloc_stack` (after the instruction that opens its type, for an opened existential);
//! 3. **rewriting** ([`rewrite`]): `copy_value` → `copy_addr`, `destroy_value` →
//!    `destroy_addr`, calls through addresses, `enum` → `init_enum_data_addr` +
//!    `inject_enum_addr`, and so on. Copies appear only where the input copied; moves
//!    (`copy_addr [take]`) only where a value must be moved into storage it was not built in.
//!
//! The rewritten function is printed and read back as the SIL parser reads it (one parse per
//! distinct shape of line, [`readback`]), so the output is SIL
//! the lab can show, run and check like any input (with [`verify_lowered`] on top of the IR
//! verifier); its blocks are laid out in reverse postorder, as `sil-opt -emit-sorted-sil`
//! prints them.

mod canon;
pub mod copyelim;
mod linelex;
mod readback;
mod rewrite;
mod sig;
pub mod storage;
mod verify;

/// The pass's name and id tables: about a million lookups of value names at 10^5 blocks
/// (the names in use when it makes new ones; every operand when it reads its output back),
/// where std's SipHash was a tenth of the work. foldhash is seeded per process, so names
/// chosen to collide in one run need not collide in another.
type FastMap<K, V> = foldhash::HashMap<K, V>;
type FastSet<K> = foldhash::HashSet<K>;

pub use canon::Canon;
pub use sig::{ParamConv, Sig};
pub use storage::{OpaqueValue, Storage};
pub use verify::{signature_types, verify_lowered};
pub(crate) use verify::opaque_objects;

use crate::ir::{Function, InstId, Lang, Module};
use crate::sil::types::{Decls, FunctionTypes};
use serde::Serialize;
use std::sync::Arc;

/// One instruction of the input and what step 3 made of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rewrite {
    /// The input instruction (`None` for a block's arguments and the entry's new ones).
    pub inst: Option<InstId>,
    /// The block, by its label.
    pub block: String,
    /// The input line (or the block label line).
    pub before: String,
    /// The lines that replace it, in order (empty: deleted).
    pub after: Vec<String>,
    /// Why, in a few words (`copy_value → copy_addr`).
    pub why: String,
}

/// An `alloc_stack` the pass created.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StackSlot {
    pub name: String,
    pub ty: String,
    /// The opaque values that live in it (the root first, then its projections).
    pub values: Vec<String>,
    /// `alloc_stack [lexical]`: a value in it has a lexical borrow scope.
    pub lexical: bool,
}

/// The result of lowering one function.
#[derive(Clone, Debug)]
pub struct Lowering {
    /// Step 1: the opaque values in reverse postorder, with their storage (step 2).
    pub values: Vec<OpaqueValue>,
    pub stacks: Vec<StackSlot>,
    /// Step 3, in program order.
    pub rewrites: Vec<Rewrite>,
    /// The lowered function as text (user names), and parsed back (shared: the pass's run
    /// hands the same function on without a copy).
    pub text: String,
    pub function: Arc<Function>,
    /// [`verify::stack_discipline_in`] of `function`, made with the CFG `lower` builds of
    /// it for its layout (a second CFG of a 10^5-block function for this check alone was
    /// 0.05 s).
    pub(crate) stack_problems: Vec<String>,
}

/// What `--trace json` shows: the three steps as data.
#[derive(Serialize)]
pub struct Trace<'a> {
    pub values: &'a [OpaqueValue],
    pub stacks: &'a [StackSlot],
    pub rewrites: &'a [Rewrite],
}

impl Lowering {
    pub fn trace(&self) -> Trace<'_> {
        Trace { values: &self.values, stacks: &self.stacks, rewrites: &self.rewrites }
    }
}

/// Why a function was not lowered (for users).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refusal {
    pub message: String,
    /// The instruction that stopped it, if one did.
    pub inst: Option<InstId>,
}

impl Refusal {
    pub fn new(message: impl Into<String>) -> Refusal {
        Refusal { message: message.into(), inst: None }
    }
    pub fn at(inst: InstId, message: impl Into<String>) -> Refusal {
        Refusal { message: message.into(), inst: Some(inst) }
    }
}

/// Lowers one function of an opaque-values module. `decls` are the module's declarations
/// (field names, typealiases); `ft` classifies its types.
pub fn lower(f: &Function, ft: &FunctionTypes, decls: &Decls) -> Result<Lowering, Refusal> {
    lower_cfg(f, ft, decls, None)
}

/// [`lower`] with `f`'s CFG when the caller has it (the pass's analyses do).
pub fn lower_in(f: &Function, ft: &FunctionTypes, decls: &Decls, cfg: &crate::cfg::Cfg) -> Result<Lowering, Refusal> {
    lower_cfg(f, ft, decls, Some(cfg))
}

fn lower_cfg(f: &Function, ft: &FunctionTypes, decls: &Decls, cfg: Option<&crate::cfg::Cfg>) -> Result<Lowering, Refusal> {
    if f.lang != Lang::Sil {
        return Err(Refusal::new("AddressLowering runs on SIL"));
    }
    if f.is_declaration() {
        return Err(Refusal::new(format!("@{} is a declaration: it has no body to lower", f.name)));
    }
    well_formed(f)?;
    // The pass keeps the input's own stack slots where they are and nests its own inside
    // them: an input whose slots are not nested already cannot come out nested.
    let cfg = match cfg {
        Some(c) => std::borrow::Cow::Borrowed(c),
        None => std::borrow::Cow::Owned(crate::cfg::Cfg::new(f)),
    };
    if let Some(p) = verify::stack_discipline_in(f, &cfg).into_iter().next() {
        return Err(Refusal::new(format!("the input's own alloc_stack and dealloc_stack are not nested: {p}")));
    }
    let cx = storage::Cx::with_cfg(f, ft, decls, cfg)?;
    let values = storage::allocate(&cx)?;
    let mut out = rewrite::rewrite(&cx, &values)?;
    // What the input's tables are still needed for; they are freed before the output is
    // read back (its parse is the pass's peak of memory), all but the input lines, which
    // the rewrites show as their `before`.
    let n_out = cx.sig.indirect_results();
    let lines = cx.into_lines();
    // Read back by shapes of lines (see [`readback`]); the parser reads what that reader
    // does not, and is the reference it is tested against.
    let mut function = match readback::read(&out.text) {
        Some(f) => f,
        None => reparse(&out.text)?,
    };
    // The rewrites' text, copied out now that the parser's memory is free again.
    let rewrites = out.take_rewrites(f, lines);
    // Blocks in reverse postorder (successors tried in operand order), then the unreachable
    // ones: the order `sil-opt -emit-sorted-sil` prints them in.
    let cfg = crate::cfg::Cfg::new(&function);
    let layout: Vec<_> = cfg.reverse_postorder().chain(cfg.unreachable_blocks()).collect();
    // The rewrite writes the blocks in that order already; a function it could not (a
    // changed successor order) is printed again.
    let stack_problems = verify::stack_discipline_in(&function, &cfg);
    drop(cfg);
    let text = if layout != function.layout {
        function.layout = layout;
        crate::print::print_function(&function, crate::print::Naming::User)
    } else {
        out.text
    };
    // The `@out` arguments lead the entry's arguments; Swift's pass declares each one as
    // `$return_value`.
    if let Some(entry) = function.entry() {
        for &p in function.blocks[entry].params.iter().take(n_out) {
            function.values[p].decl = Some("$return_value".to_string());
        }
    }
    Ok(Lowering { values, stacks: out.stacks, rewrites, text, function: Arc::new(function), stack_problems })
}

/// The operands and results an instruction must have for the pass to read it, by name.
fn arity(name: &str) -> (usize, usize) {
    match name {
        "copy_value" | "move_value" | "begin_borrow" | "load" | "load_borrow" | "struct_extract" | "tuple_extract"
        | "unchecked_enum_data" | "unchecked_bitwise_cast" | "unconditional_checked_cast" | "open_existential_value"
        | "init_existential_value" | "select_enum" => (1, 1),
        "tuple" | "struct" | "enum" => (0, 1),
        "destroy_value" | "end_borrow" | "debug_value" | "fix_lifetime" | "switch_enum" | "checked_cast_br" | "return"
        | "destructure_struct" | "destructure_tuple" | "apply" | "try_apply" | "begin_apply" => (1, 0),
        "store" | "store_borrow" | "copy_addr" => (2, 0),
        _ => (0, 0),
    }
}

/// A line without the operands or results its instruction always has (hand-edited or
/// mutated text the generic parser accepted) is refused by name, before any step indexes it.
fn well_formed(f: &Function) -> Result<(), Refusal> {
    for &b in &f.layout {
        for i in f.blocks[b].all_insts() {
            let inst = &f.insts[i];
            let name = inst.op.name();
            let (args, results) = arity(name);
            if inst.args.len() < args || inst.results.len() < results {
                return Err(Refusal::at(
                    i,
                    format!(
                        "`{name}` in {} needs at least {args} operand(s) and {results} result(s); it has {} and {}",
                        f.block_name(b),
                        inst.args.len(),
                        inst.results.len()
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn reparse(text: &str) -> Result<Function, Refusal> {
    let m = crate::parse::sil::parse("lowered.sil", text).map_err(|d| {
        let first = d.iter().next().map_or_else(String::new, |d| d.message.clone());
        Refusal::new(format!("internal error: the lowered function does not read back ({first}):\n{text}"))
    })?;
    m.functions.into_iter().next().ok_or_else(|| Refusal::new("internal error: the lowered text has no function"))
}

/// A function's name and how many opaque values it had, or why it was not lowered.
pub type FunctionReport = (String, Result<usize, Refusal>);

/// A module with every function that has opaque values lowered (the others unchanged),
/// and what happened to each, for `optlab address-lowering` and the FileCheck suite.
pub fn lower_module(m: &Module) -> (Module, Vec<FunctionReport>) {
    let env = crate::sil::types::env_of(m);
    let mut out = m.clone();
    let mut report = Vec::new();
    for (k, f) in m.functions.iter().enumerate() {
        if f.is_declaration() {
            let canon = Canon::new(&env.decls);
            if let Some(h) = out.functions[k].sil.as_mut() {
                h.ty = format!("${}", canon.text(h.ty.trim().trim_start_matches('$')));
            }
            continue;
        }
        let ft = FunctionTypes::new(f, env.clone());
        match lower(f, &ft, &env.decls) {
            Ok(l) => {
                report.push((f.name.clone(), Ok(l.values.len())));
                out.functions[k] = Arc::unwrap_or_clone(l.function);
            }
            Err(r) => report.push((f.name.clone(), Err(r))),
        }
    }
    (out, report)
}

/// The Swift corpus's top-level `.sil` files, sorted, with their texts: what the tests that
/// run the pass over every corpus function read (`../shared` beside the repository).
#[cfg(test)]
pub(super) fn corpus_sil() -> Vec<(std::path::PathBuf, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/swift");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten().map(|e| e.path()).collect();
    files.sort();
    files.into_iter().filter(|p| p.extension().is_some_and(|e| e == "sil")).map(|p| { let t = std::fs::read_to_string(&p).unwrap_or_default(); (p, t) }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::Cfg;

    /// Blocks laid out against reverse postorder: a join before its arms, a loop's exit
    /// before its body, a switch_enum's cases swapped, an unreachable block in the middle.
    const UNSORTED: &str = "\
enum Optional<T> {
  case none
  case some(T)
}

sil [ossa] @f : $@convention(thin) <T> (@in T, Builtin.Int1) -> @out T {
bb0(%0 : @owned $T, %c : $Builtin.Int1):
  br bb5(%0 : $T)
bb3(%j : @owned $T):
  %o = enum $Optional<T>, #Optional.some!enumelt, %j : $T
  switch_enum %o : $Optional<T>, case #Optional.none!enumelt: bb7, case #Optional.some!enumelt: bb6
bb9:
  unreachable
bb1:
  br bb3(%x : $T)
bb6(%p : @owned $T):
  return %p : $T
bb2:
  br bb3(%x : $T)
bb7:
  unreachable
bb5(%x : @owned $T):
  cond_br %c, bb2, bb1
}
";

    /// The rewrite must write [`UNSORTED`]'s blocks in the output's reverse postorder
    /// itself, so that `lower` reads its text back without printing the function a second
    /// time.
    #[test]
    fn the_rewrite_writes_blocks_in_reverse_postorder() {
        let text = UNSORTED;
        let m = crate::parse::sil::parse("t.sil", text).unwrap_or_else(|d| panic!("{d:?}"));
        let f = &m.functions[0];
        let env = crate::sil::types::env_of(&m);
        let ft = FunctionTypes::new(f, env.clone());
        let cx = storage::Cx::with_cfg(f, &ft, &env.decls, std::borrow::Cow::Owned(Cfg::new(f))).unwrap_or_else(|r| panic!("{r:?}"));
        let values = storage::allocate(&cx).unwrap_or_else(|r| panic!("{r:?}"));
        let out = rewrite::rewrite(&cx, &values).unwrap_or_else(|r| panic!("{r:?}"));
        let g = reparse(&out.text).unwrap_or_else(|r| panic!("{r:?}"));
        let cfg = Cfg::new(&g);
        let rpo: Vec<_> = cfg.reverse_postorder().chain(cfg.unreachable_blocks()).collect();
        let names = |bs: &[crate::ir::BlockId]| bs.iter().map(|&b| g.block_name(b)).collect::<Vec<_>>();
        assert_eq!(names(&g.layout), names(&rpo), "{}", out.text);
        let input: Vec<String> = f.layout.iter().map(|&b| f.block_name(b)).collect();
        assert_ne!(input, names(&rpo), "the input must not be in reverse postorder already");
        let l = lower(f, &ft, &env.decls).unwrap_or_else(|r| panic!("{r:?}"));
        assert_eq!(l.text, out.text, "no second printing");
    }

    /// The stack discipline `lower` checks with its own CFG is [`verify::stack_discipline`]
    /// of the result, on every corpus function it lowers — also when the output's blocks
    /// had to be laid out again ([`UNSORTED`]).
    #[test]
    fn the_kept_stack_check_is_the_verifiers() {
        let mut texts: Vec<String> = vec![UNSORTED.to_string()];
        texts.extend(corpus_sil().into_iter().map(|(_, t)| t));
        let mut n = 0;
        for text in &texts {
            let Ok(m) = crate::parse::sil::parse("t.sil", text) else { continue };
            let env = crate::sil::types::env_of(&m);
            for f in m.functions.iter().filter(|f| !f.is_declaration()) {
                let ft = FunctionTypes::new(f, env.clone());
                let Ok(l) = lower(f, &ft, &env.decls) else { continue };
                assert_eq!(l.stack_problems, verify::stack_discipline(&l.function), "@{}", f.name);
                n += 1;
            }
        }
        assert!(n >= 30, "only {n} lowered functions");
    }

    /// The rewrites' lines are copied out of the text after it is read back: put together
    /// block by block (label, then each line indented) they must be the text's blocks, all
    /// of it between the header and the closing line, and each `before` the input's line.
    #[test]
    fn the_rewrites_lines_are_the_text_block_by_block() {
        let m = crate::parse::sil::parse("t.sil", UNSORTED).unwrap_or_else(|d| panic!("{d:?}"));
        let f = &m.functions[0];
        let env = crate::sil::types::env_of(&m);
        let ft = FunctionTypes::new(f, env.clone());
        let l = lower(f, &ft, &env.decls).unwrap_or_else(|r| panic!("{r:?}"));
        let mut blocks: Vec<String> = Vec::new();
        for r in &l.rewrites {
            let mut lines = r.after.iter();
            if r.inst.is_none() {
                let label = lines.next().unwrap_or_else(|| panic!("a block rewrite without its label: {r:?}"));
                assert!(label.starts_with(&r.block), "{r:?}");
                blocks.push(format!("{label}\n"));
            }
            let b = blocks.last_mut().expect("a block's rewrite comes first");
            for x in lines {
                b.push_str(&format!("  {x}\n"));
            }
        }
        assert_eq!(blocks.len(), f.layout.len());
        let mut covered = 0;
        for b in &blocks {
            assert_eq!(l.text.matches(b.as_str()).count(), 1, "block not in the text once:\n{b}\n--- text\n{}", l.text);
            covered += b.len();
        }
        let head = l.text.find(" {\n").map(|k| k + 3).expect("a header");
        let tail = l.text.rfind("} // end sil function").expect("a closing line");
        // The blocks and the blank line between two of them: nothing else.
        assert_eq!(tail - head, covered + blocks.len() - 1, "{}", l.text);
        let input = crate::print::function_lines(f, crate::print::Naming::User);
        let printed: Vec<(InstId, String)> =
            input.blocks.iter().flat_map(|b| b.lines.iter()).filter_map(|x| Some((x.inst()?, x.text.trim().to_string()))).collect();
        for (i, line) in printed {
            let r = l.rewrites.iter().find(|r| r.inst == Some(i)).unwrap_or_else(|| panic!("no rewrite of {line}"));
            assert_eq!(r.before, line);
        }
    }
}
