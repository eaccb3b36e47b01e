//! The SSA dominance property: every use of a SIL value is dominated by its definition
//! (Cytron et al., TOPLAS 13(4), 1991, §2 — "each use is reached by exactly one definition,
//! which dominates it"). `ir::verify` checks structure only; this is its dominance half.

use super::{DomKind, DomTree};
use crate::cfg::Cfg;
use crate::diag::{Diagnostic, Diagnostics};
use crate::entity::EntityVec;
use crate::ir::{BlockId, Function, InstId, Lang, ValueDef};

/// Checks that each use of a SIL value is dominated by its definition:
///
/// * a block parameter is available in every block its block dominates;
/// * an instruction result is available after the instruction in its block and in every
///   block its block strictly dominates;
/// * an argument passed along a CFG edge (`br bb2(%x)`) is used at the end of the
///   predecessor, i.e. at its terminator — not in the successor;
/// * `undef` needs no definition; Bril variables are not SSA and are not checked;
/// * uses in blocks unreachable from the entry are exempt (nothing dominates them, and no
///   execution can observe them); undefined or unplaced definitions are `ir::verify`'s
///   business and are skipped here.
///
/// # Panics
/// If `dt` is not the forward dominator tree.
pub fn verify_ssa(f: &Function, cfg: &Cfg, dt: &DomTree) -> Result<(), Diagnostics> {
    verify_ssa_in(f, cfg.blocks(), dt)
}

/// [`verify_ssa`] over `f`'s layout with a tree that need not be built from `f`: one whose
/// graph has the same dominance among `f`'s blocks (LCM's split graph answers for the
/// function before the split and after its rewrite, `passes/lcm/ssa.rs`).
///
/// # Panics
/// If `dt` is not a forward dominator tree.
pub fn verify_ssa_on_tree(f: &Function, dt: &DomTree) -> Result<(), Diagnostics> {
    verify_ssa_in(f, &f.layout, dt)
}

fn verify_ssa_in(f: &Function, blocks: &[BlockId], dt: &DomTree) -> Result<(), Diagnostics> {
    assert_eq!(dt.kind(), DomKind::Dominators, "verify_ssa needs the dominator tree");
    if f.lang != Lang::Sil {
        return Ok(());
    }
    let mut pos: EntityVec<InstId, Option<(BlockId, usize)>> = EntityVec::filled(f.insts.len(), None);
    for &b in blocks {
        for (k, i) in f.blocks[b].all_insts().enumerate() {
            if let Some(p) = pos.get_mut(i) {
                *p = Some((b, k));
            }
        }
    }
    let mut errs = Diagnostics::default();
    for &b in blocks {
        if !dt.contains(b) {
            continue;
        }
        for (k, i) in f.blocks[b].all_insts().enumerate() {
            let Some(inst) = f.insts.get(i) else { continue };
            for v in inst.uses() {
                let Some(data) = f.values.get(v) else { continue };
                let (def_block, ok) = match data.def {
                    ValueDef::Undef | ValueDef::Var => continue,
                    ValueDef::Param { block, .. } => (block, dt.dominates(block, b)),
                    ValueDef::Result { inst: d, .. } => {
                        let Some(Some((db, dk))) = pos.get(d).copied() else { continue };
                        (db, if db == b { dk < k } else { dt.dominates(db, b) })
                    }
                };
                if !ok {
                    let where_ = f.blocks.get(def_block).map_or("?", |blk| blk.name.as_str());
                    errs.push(Diagnostic::error(
                        inst.span,
                        format!(
                            "in function `{}`: `%{}` is used in `{}` by `{}`, but its definition in `{}` does not dominate the use",
                            f.name, data.name, f.blocks[b].name, inst.op, where_
                        ),
                    ));
                }
            }
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}
