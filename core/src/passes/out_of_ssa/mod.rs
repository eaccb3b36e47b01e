//! Out of SSA form, on Bril: Sreedhar, Ju, Gillies, Santhanam, "Translating Out of Static
//! Single Assignment Form" (SAS 1999), Method I, followed by coalescing of the copies it
//! makes where the variables do not interfere (Chaitin's rule, as Budimlić et al. and
//! Boissinot et al. 2009 apply it to SSA).
//!
//! 1. *Isolation* (`isolate`): every φ gets a variable of its own, `x.in`, that only its
//!    copies touch. In Bril's `set`/`get` form that is the shadow variable itself, made
//!    ordinary: `set x v` becomes `x.in = id v` where it stands, `x = get` becomes
//!    `x = id x.in`. A `phi`'s argument from `.p` becomes `x.in = id a` at the end of `.p`,
//!    and the `phi` becomes `x = id x.in`. The result runs like the input — `x.in` is written
//!    only where the shadow was — so the lost-copy problem (a φ's value overwritten on an
//!    edge where it is still live) and the swap problem (φs reading each other) cannot arise,
//!    and no edge needs splitting: the copies at a predecessor's end write variables no other
//!    successor reads.
//! 2. *Coalescing* (`coalesce`): each copy the isolation made is tried, innermost loops first;
//!    its two variables' classes merge unless some variable of one is assigned where a
//!    variable of the other is live (the copy itself excepted: after `a = id b` the two hold
//!    the same value), or both hold a parameter. Liveness is computed for the variables the
//!    copies touch only (`interfere`).
//! 3. Every class takes one name — its parameter's, else the original variable's name its
//!    members share (`i` for `i.1`, `i.2`), else a member's — and the copies that became
//!    `x = id x` go. A copy that stays is one the program needs: in the swap problem, exactly
//!    one of the pair, the temporary a parallel copy's cycle needs.

mod coalesce;
mod interfere;
mod isolate;
mod pass;
mod steps;
mod trace;

#[cfg(test)]
mod tests;

pub use pass::{OutOfSsa, OUT_OF_SSA_PASS};
pub use steps::step_texts;
pub use trace::{apply_event, base, classes_at, replay_to, Conflict, Event, NewValue, ReplayError, Trace};

use crate::cfg::Cfg;
use crate::dom::DomTree;
use crate::ir::{Function, Lang};
use crate::passes::Analyses;
use serde::Serialize;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OutOfSsaError {
    #[error("`{function}` is SIL: its φs are block arguments, which the lab does not translate out of SSA")]
    NotBril { function: String },
    #[error("`{function}` is not translated out of SSA: {reason}")]
    Unsupported { function: String, reason: String },
    #[error("internal error in the translation out of SSA on `{function}`: {message}")]
    Internal { function: String, message: String },
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub insts_before: usize,
    pub insts_after: usize,
    /// φs made into copies (`get`s and `phi`s).
    pub phis: usize,
    /// Copies the isolation made.
    pub copies: usize,
    /// Of them, the ones coalesced away.
    pub coalesced: usize,
}

#[derive(Clone, Debug)]
pub struct OutOfSsaOutput {
    pub function: Arc<Function>,
    pub trace: Trace,
    pub stats: Stats,
}

/// Translates `f` out of SSA form. `f` must verify. A function without `set`, `get` or `phi`
/// comes back unchanged.
pub fn out_of_ssa(f: &Function) -> Result<OutOfSsaOutput, OutOfSsaError> {
    out_of_ssa_with(f, None)
}

/// [`out_of_ssa`] reading the CFG and the dominator tree from `a`, the analyses of `f` (the
/// pass contract has built them): the translation adds copies inside blocks, never an edge, so
/// they stay right for its result.
pub(crate) fn out_of_ssa_with(f: &Function, a: Option<&Analyses>) -> Result<OutOfSsaOutput, OutOfSsaError> {
    if f.lang != Lang::Bril {
        return Err(OutOfSsaError::NotBril { function: f.name.clone() });
    }
    if f.speculates() {
        return Err(OutOfSsaError::Unsupported {
            function: f.name.clone(),
            reason: "it speculates, and a failing `guard` restores shadow variables with the rest, which copies would not follow".into(),
        });
    }
    let mut trace = Trace::default();
    let built;
    let (cfg, dom) = match a {
        Some(a) => (&a.cfg, &a.dom),
        None => {
            let cfg = Cfg::new(f);
            let dom = DomTree::dominators(f, &cfg);
            built = (cfg, dom);
            (&built.0, &built.1)
        }
    };
    let (mut g, copies, phis) = isolate::isolate(f, cfg, &mut trace);
    let classes = coalesce::coalesce(&mut g, cfg, dom, &copies, &mut trace);
    let coalesced = classes.deleted;
    crate::passes::shrink(&mut g);
    if let Err(d) = crate::ir::verify(&g) {
        let message = format!("the result does not verify ({})", crate::passes::first_message(&d));
        return Err(OutOfSsaError::Internal { function: f.name.clone(), message });
    }
    let count = |f: &Function| f.placed_insts().count();
    let stats = Stats { insts_before: count(f), insts_after: count(&g), phis, copies: copies.len(), coalesced };
    Ok(OutOfSsaOutput { function: Arc::new(g), trace, stats })
}
