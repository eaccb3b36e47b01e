//! The DCE trace in words: one sentence per event for the step bar ([`describe_event`], used
//! by [`super::steps`]), and the short reasons the lab's why-live list and graph show
//! ("operand of %8", "controls bb3", "side effect: apply", [`reason_short`]).
//!
//! Everything here reads the trace and the function; nothing decides liveness. Blocks and
//! values are named as the code writes them ([`Function::block_in_code`],
//! [`Function::value_in_code`]), instructions by their text ([`super::inst_text`]).

use super::explain::inst_text;
use super::trace::{Event, Node, Phase, Reason, RootKind, Slot};
use crate::ir::{Function, InstId, Lang};

/// Instruction text in step descriptions is cut to this many characters: the step bar is one
/// line, and a SIL `builtin` with its types can be 150 characters long.
const MAX_CODE: usize = 40;

/// `text` cut to `max` characters (on a character boundary) with an ellipsis.
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// An instruction's code, without Bril's `;`, cut for one-line use.
pub fn code(f: &Function, i: InstId) -> String {
    let text = inst_text(f, i);
    shorten(text.trim_end_matches(';'), MAX_CODE)
}

/// The shortest name a reader recognises an instruction by: a SIL result (`%8`), else its
/// code in backquotes.
pub fn brief(f: &Function, i: InstId) -> String {
    match f.insts.get(i) {
        Some(inst) if f.lang == Lang::Sil && inst.results.len() == 1 => f.value_in_code(inst.results[0]),
        Some(_) => format!("`{}`", shorten(inst_text(f, i).trim_end_matches(';'), 28)),
        None => i.to_string(),
    }
}

fn node_brief(f: &Function, n: Node) -> String {
    match n {
        Node::Inst(i) => brief(f, i),
        Node::Arg(v) => f.value_in_code(v),
    }
}

fn op_name(f: &Function, i: InstId) -> String {
    f.insts.get(i).map_or_else(String::new, |x| x.op.name().to_string())
}

/// Why a root is live by itself, in a few words (`op` is its mnemonic).
fn root_short(root: RootKind, op: &str) -> String {
    match root {
        RootKind::SideEffect => format!("side effect: {op}"),
        RootKind::FunctionExit => format!("function exit: {op}"),
        RootKind::Unknown => format!("not modelled: {op}"),
        RootKind::Lexical => "lexical lifetime".into(),
        RootKind::DebugOfArgument => "debug info of an argument".into(),
        RootKind::FixLifetime => "fix_lifetime of a reference".into(),
        RootKind::AddressEndLifetime => "ends memory's lifetime".into(),
        RootKind::AccessScope => "access scope (no ownership)".into(),
        RootKind::NoLivePostDominator => "loop may never exit".into(),
    }
}

/// The same, as a clause for the step bar.
fn root_long(root: RootKind, op: &str) -> String {
    match root {
        RootKind::SideEffect => match op {
            "print" => "side effect — print writes output".into(),
            "store" | "free" | "alloc" | "store_borrow" | "copy_addr" | "destroy_addr" => {
                format!("side effect — {op} changes memory")
            }
            "cond_fail" => "side effect — cond_fail may trap".into(),
            "call" | "apply" | "try_apply" | "begin_apply" | "builtin" | "partial_apply" => {
                format!("side effect — {op} may write memory or do I/O")
            }
            _ => format!("side effect — {op} may write memory, trap or do I/O"),
        },
        RootKind::FunctionExit => format!("function exit — {op} leaves the function"),
        RootKind::Unknown => format!("the lab does not model {op}, so it may have side effects"),
        RootKind::Lexical => "its result has a lexical lifetime".into(),
        RootKind::DebugOfArgument => "it describes a function argument to the debugger".into(),
        RootKind::FixLifetime => "it keeps a reference alive that DCE cannot see".into(),
        RootKind::AddressEndLifetime => "it ends the lifetime of memory, which DCE does not analyse".into(),
        RootKind::AccessScope => "access scopes stay in functions without ownership".into(),
        RootKind::NoLivePostDominator => {
            "no live block post-dominates this branch (the loop may never exit), so it stays".into()
        }
    }
}

/// Why a node is live, in a few words: the side list and the graph's tooltips.
/// `op` is the marked instruction's mnemonic (for roots).
pub fn reason_short(f: &Function, reason: &Reason, op: &str) -> String {
    match reason {
        Reason::Root { root } => root_short(*root, op),
        Reason::Operand { of } => format!("operand of {}", brief(f, *of)),
        Reason::ReachingDef { use_in, var } => format!("its {} reaches {}", f.value_in_code(*var), brief(f, *use_in)),
        Reason::IncomingValue { arg, block } => {
            format!("passed to {} of {}", f.value_in_code(*arg), f.block_in_code(*block))
        }
        Reason::BranchFeedsLiveArg { arg, block } => {
            format!("passes {} to {}", f.value_in_code(*arg), f.block_in_code(*block))
        }
        Reason::ControlDependence { block, .. } => format!("controls {}", f.block_in_code(*block)),
        Reason::ReverseDependency { on } => format!("belongs to {}", node_brief(f, *on)),
    }
}

/// Why a node is live, as the clause after "Mark … live:" in the step bar.
pub fn reason_long(f: &Function, reason: &Reason, op: &str) -> String {
    match reason {
        Reason::Root { root } => root_long(*root, op),
        Reason::Operand { of } => format!("operand of the live `{}`", code(f, *of)),
        Reason::ReachingDef { use_in, var } => format!(
            "this assignment of {} reaches the live `{}`",
            f.value_in_code(*var),
            code(f, *use_in)
        ),
        Reason::IncomingValue { arg, block } => {
            format!("it is passed for the live argument {} of {}", f.value_in_code(*arg), f.block_in_code(*block))
        }
        Reason::BranchFeedsLiveArg { arg, block } => {
            format!("it passes the live argument {} to {}", f.value_in_code(*arg), f.block_in_code(*block))
        }
        Reason::ControlDependence { block, via } => format!(
            "controls {} — it decides whether {} runs, and {} there is live",
            f.block_in_code(*block),
            f.block_in_code(*block),
            node_brief(f, *via)
        ),
        Reason::ReverseDependency { on } => format!("it belongs to {}, which is live", node_brief(f, *on)),
    }
}

fn phase_text(phase: Phase) -> &'static str {
    match phase {
        Phase::Roots => "Phase 1 — roots: mark what is live by itself (returns, side effects)",
        Phase::Propagate => {
            "Phase 2 — propagate: what live code uses, and the branches live blocks depend on, is live"
        }
        Phase::Sweep => "Phase 3 — sweep: delete what is not marked, turn dead branches into jumps",
    }
}

/// The one-line description of event `e` of a trace recorded on `f`; `after` is the function
/// after the whole trace (instructions the sweep creates are printed from it).
pub fn describe_event(f: &Function, after: &Function, e: &Event) -> String {
    match e {
        Event::Phase { phase } => phase_text(*phase).to_string(),
        Event::Live { inst, block, reason } => format!(
            "Mark `{}` ({}) live: {}",
            code(f, *inst),
            f.block_in_code(*block),
            reason_long(f, reason, &op_name(f, *inst))
        ),
        Event::LiveArg { arg, block, reason } => format!(
            "Mark argument {} of {} live: {}",
            f.value_in_code(*arg),
            f.block_in_code(*block),
            reason_long(f, reason, "")
        ),
        Event::RewriteBranch { block, old, new, target, .. } => format!(
            "Rewrite `{}` ({}) as `{}`: no live code depends on its direction; {} is the nearest live post-dominator",
            code(f, *old),
            f.block_in_code(*block),
            code(after, *new),
            f.block_in_code(*target)
        ),
        Event::EndLifetime { block, new, value, .. } => format!(
            "Insert `{}` in {}: a deleted instruction consumed {}, whose lifetime must still end",
            code(after, *new),
            f.block_in_code(*block),
            f.value_in_code(*value)
        ),
        Event::ErasePhi { block, arg, .. } => {
            format!("Erase the dead argument {} of {} and the values passed for it", f.value_in_code(*arg), f.block_in_code(*block))
        }
        Event::Delete { inst, block } => {
            format!("Delete `{}` ({}): it was never marked live", code(f, *inst), f.block_in_code(*block))
        }
        Event::Undef { inst, slot, old, .. } => {
            let what = match slot {
                Slot::Arg { .. } => "operand",
                Slot::SuccArg { .. } => "branch argument",
            };
            format!(
                "Pass undef for the {what} {} of `{}`: its value is dead",
                f.value_in_code(*old),
                code(f, *inst)
            )
        }
        Event::ExplicitJump { block, new, target } => format!(
            "Add `{}` to {}: it fell through to {}, which no longer follows it",
            code(after, *new),
            f.block_in_code(*block),
            f.block_in_code(*target)
        ),
        Event::RemoveBlock { block } => format!("Remove {}: no path from the entry reaches it any more", f.block_in_code(*block)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_cuts_on_characters_and_marks_the_cut() {
        assert_eq!(shorten("abc", 3), "abc");
        assert_eq!(shorten("abcdef", 4), "abc…");
        assert_eq!(shorten("ααααα", 3), "αα…");
        assert_eq!(shorten("", 0), "");
    }

    #[test]
    fn every_root_kind_has_words() {
        use RootKind::*;
        for r in [SideEffect, FunctionExit, Unknown, Lexical, DebugOfArgument, FixLifetime, AddressEndLifetime, AccessScope, NoLivePostDominator] {
            assert!(!root_short(r, "op").is_empty());
            assert!(root_long(r, "op").len() > 10);
        }
        assert_eq!(root_short(SideEffect, "apply"), "side effect: apply");
        assert!(root_long(SideEffect, "print").contains("writes output"));
    }
}
