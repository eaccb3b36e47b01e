//! "Why is this instruction still here?" — the chain of reasons in a trace, in words.
//!
//! Each marking event names the node that made it live (the user of its value, the live
//! argument it feeds, the live block it controls, …); following those links from an
//! instruction back to a root gives one line per step, e.g.
//!
//! ```text
//! `%8 = struct $Int32 (%7 : $Builtin.Int32)` (bb0) is live: it defines an operand of `return %8 : $Int32` (bb3)
//! `return %8 : $Int32` (bb3) is live: it is a root — control leaves the function here
//! ```

use super::trace::{Event, Node, Reason, RootKind, Trace};
use crate::ir::{BlockId, Function, Inst, InstId, Lang, Piece, Type};
use std::collections::{HashMap, HashSet};

/// The chain of reasons for `inst`, one sentence per link, ending at a root. A dead
/// instruction gets what the sweep did to it instead.
pub fn explain(f: &Function, trace: &Trace, inst: InstId) -> Vec<String> {
    if f.insts.get(inst).is_none() {
        return vec![format!("there is no instruction {inst} in `{}`", f.name)];
    }
    let mut why: HashMap<Node, (&Reason, BlockId)> = HashMap::new();
    for e in &trace.events {
        match e {
            Event::Live { inst, block, reason } => {
                why.entry(Node::Inst(*inst)).or_insert((reason, *block));
            }
            Event::LiveArg { arg, block, reason } => {
                why.entry(Node::Arg(*arg)).or_insert((reason, *block));
            }
            _ => {}
        }
    }
    let mut lines = Vec::new();
    let mut node = Node::Inst(inst);
    let mut seen = HashSet::new();
    loop {
        if !seen.insert(node) {
            lines.push("(the chain loops back here)".to_string());
            break;
        }
        let Some(&(reason, block)) = why.get(&node) else {
            lines.push(format!("{} is dead: {}", describe(f, node, None), fate(f, trace, node)));
            break;
        };
        let subject = describe(f, node, Some(block));
        let (text, next) = match reason {
            Reason::Root { root } => (format!("it is a root — {}", root_text(*root)), None),
            Reason::Operand { of } => {
                let verb = if matches!(node, Node::Arg(_)) { "is" } else { "defines" };
                (format!("it {verb} an operand of {}", describe_inst(f, trace, *of)), Some(Node::Inst(*of)))
            }
            Reason::ReachingDef { use_in, var } => (
                format!(
                    "it assigns `{}`, and this assignment reaches {}",
                    f.values.get(*var).map_or("?", |v| v.name.as_str()),
                    describe_inst(f, trace, *use_in)
                ),
                Some(Node::Inst(*use_in)),
            ),
            Reason::IncomingValue { arg, block } => (
                format!("it is passed for the live argument {} of {}", f.value_in_code(*arg), f.block_in_code(*block)),
                Some(Node::Arg(*arg)),
            ),
            Reason::BranchFeedsLiveArg { arg, block } => (
                format!("it passes the live argument {} of {}", f.value_in_code(*arg), f.block_in_code(*block)),
                Some(Node::Arg(*arg)),
            ),
            Reason::ControlDependence { block, via } => (
                format!(
                    "it decides whether {} runs, which holds the live {}",
                    f.block_in_code(*block),
                    describe(f, *via, why.get(via).map(|w| w.1))
                ),
                Some(*via),
            ),
            Reason::ReverseDependency { on } => (
                format!("it belongs to {}, which is live", describe(f, *on, why.get(on).map(|w| w.1))),
                Some(*on),
            ),
        };
        lines.push(format!("{subject} is live: {text}"));
        match next {
            Some(n) => node = n,
            None => break,
        }
    }
    lines
}

/// Finds the instruction at `BLOCK:INDEX` (block name as written, with or without Bril's
/// `.`; index 0-based among the block's instructions, terminator last) — the CLI's
/// `--explain` argument.
pub fn locate(f: &Function, spec: &str) -> Option<InstId> {
    let (b, k) = spec.rsplit_once(':')?;
    let b = b.trim().trim_start_matches('.');
    let k: usize = k.trim().parse().ok()?;
    let block = f.layout.iter().filter_map(|&x| f.blocks.get(x)).find(|x| x.name == b)?;
    block.all_insts().nth(k)
}

fn root_text(r: RootKind) -> &'static str {
    match r {
        RootKind::SideEffect => "it may have side effects",
        RootKind::FunctionExit => "control leaves the function here",
        RootKind::Unknown => "an operation the lab does not model, assumed to have side effects",
        RootKind::Lexical => "its result has a lexical lifetime",
        RootKind::DebugOfArgument => "it describes a function argument (or undef) to the debugger",
        RootKind::FixLifetime => "it keeps a non-trivial value or an address alive",
        RootKind::AddressEndLifetime => "it ends the lifetime of memory, which DCE does not analyse",
        RootKind::AccessScope => "access scopes are kept in functions without ownership (Swift's non-OSSA behaviour)",
        RootKind::NoLivePostDominator => {
            "no block with live code post-dominates it (control may never reach an exit), so it is kept"
        }
    }
}

/// What the sweep did with a node that was never marked live.
fn fate(f: &Function, trace: &Trace, node: Node) -> String {
    for e in &trace.events {
        match (e, node) {
            (Event::Delete { inst, .. }, Node::Inst(i)) if *inst == i => return "nothing live needs it, so it was deleted".into(),
            (Event::RewriteBranch { old, target, .. }, Node::Inst(i)) if *old == i => {
                return format!(
                    "no live code depends on which way it goes, so it became a jump to {}",
                    f.block_in_code(*target)
                )
            }
            (Event::RewriteBranch { new, .. }, Node::Inst(i)) if *new == i => {
                return "it was inserted by the sweep in place of a dead branch".into()
            }
            (Event::EndLifetime { new, before, value, .. }, Node::Inst(i)) if *new == i => {
                let how = match before {
                    Some(b) => format!("the dead {} that consumed it was deleted", describe(f, Node::Inst(*b), None)),
                    None => "its consuming use was deleted".to_string(),
                };
                return format!("it was inserted to end the lifetime of {}, because {how}", f.value_in_code(*value));
            }
            (Event::ExplicitJump { new, .. }, Node::Inst(i)) if *new == i => {
                return "it was inserted to keep a fall-through going to the same block".into()
            }
            _ => {}
        }
    }
    let block = match node {
        Node::Inst(i) => block_of(f, i),
        Node::Arg(v) => match f.values.get(v).map(|d| d.def) {
            Some(crate::ir::ValueDef::Param { block, .. }) => Some(block),
            _ => None,
        },
    };
    if let Some(b) = block {
        if trace.events.iter().any(|e| matches!(e, Event::RemoveBlock { block } if *block == b)) {
            return format!("its block {} became unreachable and was removed", f.block_in_code(b));
        }
    }
    match node {
        Node::Arg(_) => "nothing live reads it; the parameter stays, and its incoming values became undef".into(),
        Node::Inst(i) if f.insts.get(i).is_some_and(|x| super::classify::is_jump(&x.op)) => {
            "unconditional branches are never deleted by themselves".into()
        }
        Node::Inst(_) => "nothing live needs it".into(),
    }
}

fn describe(f: &Function, node: Node, block: Option<BlockId>) -> String {
    match node {
        Node::Inst(i) => {
            let b = block.or_else(|| block_of(f, i));
            match b {
                Some(b) => format!("`{}` ({})", inst_text(f, i), f.block_in_code(b)),
                None => format!("`{}`", inst_text(f, i)),
            }
        }
        Node::Arg(v) => match f.values.get(v).map(|d| d.def) {
            Some(crate::ir::ValueDef::Param { block, .. }) => {
                format!("argument {} of {}", f.value_in_code(v), f.block_in_code(block))
            }
            _ => format!("argument {}", f.value_in_code(v)),
        },
    }
}

fn describe_inst(f: &Function, trace: &Trace, i: InstId) -> String {
    let block = trace.events.iter().find_map(|e| match e {
        Event::Live { inst, block, .. } if *inst == i => Some(*block),
        _ => None,
    });
    describe(f, Node::Inst(i), block)
}

/// One instruction as source text with the user's names (for messages only).
pub fn inst_text(f: &Function, i: InstId) -> String {
    let Some(inst) = f.insts.get(i) else { return i.to_string() };
    match f.lang {
        Lang::Sil => sil_text(f, inst),
        Lang::Bril => bril_text(f, inst),
    }
}

fn sil_text(f: &Function, inst: &Inst) -> String {
    let mut s = String::new();
    if !inst.results.is_empty() {
        let rs: Vec<String> = inst.results.iter().map(|&r| f.value_in_code(r)).collect();
        if rs.len() == 1 {
            s.push_str(&rs[0]);
        } else {
            s.push_str(&format!("({})", rs.join(", ")));
        }
        s.push_str(" = ");
    }
    if inst.sil.is_empty() {
        s.push_str(inst.op.name());
        let args: Vec<String> = inst.args.iter().map(|&v| f.value_in_code(v)).collect();
        if !args.is_empty() {
            s.push(' ');
            s.push_str(&args.join(", "));
        }
        return s;
    }
    for p in &inst.sil {
        match p {
            Piece::Text(t) => s.push_str(t),
            Piece::Arg(k) => s.push_str(&inst.args.get(*k as usize).map_or("?".into(), |&v| f.value_in_code(v))),
            Piece::Succ(k) => s.push_str(&inst.succs.get(*k as usize).map_or("?".into(), |x| f.block_in_code(x.block))),
            Piece::SuccArg(k, j) => s.push_str(
                &inst
                    .succs
                    .get(*k as usize)
                    .and_then(|x| x.args.get(*j as usize))
                    .map_or("?".into(), |&v| f.value_in_code(v)),
            ),
        }
    }
    s
}

fn bril_text(f: &Function, inst: &Inst) -> String {
    let mut s = String::new();
    if let Some(&d) = inst.results.first() {
        s.push_str(&f.value_in_code(d));
        if let Some(t) = &inst.ty {
            s.push_str(&format!(": {}", bril_type(t)));
        }
        s.push_str(" = ");
    }
    s.push_str(inst.op.name());
    for name in &inst.funcs {
        s.push_str(&format!(" @{name}"));
    }
    for &v in &inst.args {
        s.push(' ');
        s.push_str(&f.value_in_code(v));
    }
    for x in &inst.succs {
        s.push(' ');
        s.push_str(&f.block_in_code(x.block));
    }
    match &inst.imm {
        crate::ir::Imm::None => {}
        crate::ir::Imm::Int(n) => s.push_str(&format!(" {n}")),
        crate::ir::Imm::Bool(b) => s.push_str(&format!(" {b}")),
        crate::ir::Imm::Float(x) => s.push_str(&format!(" {x}")),
        crate::ir::Imm::Char(c) => s.push_str(&format!(" '{c}'")),
        crate::ir::Imm::Name(n) => s.push_str(&format!(" {n}")),
        crate::ir::Imm::Index(n) => s.push_str(&format!(" {n}")),
    }
    s.push(';');
    s
}

fn bril_type(t: &Type) -> String {
    t.to_string()
}

/// The trace as text, one line per event — the golden files and `optlab dce --trace text`.
/// `f` is the function the trace was recorded on (the original); instructions the sweep
/// created are printed from the replayed function.
pub fn summarize(f: &Function, trace: &Trace) -> String {
    let after = super::trace::replay(f, trace);
    let mut out = String::new();
    if let Some(why) = &trace.skipped {
        out.push_str(&format!("skipped: {why}\n"));
    }
    let node = |n: Node| match n {
        Node::Inst(i) => format!("{i}"),
        Node::Arg(v) => f.value_in_code(v),
    };
    for e in &trace.events {
        let line = match e {
            Event::Phase { phase } => format!("phase {}", serde_json::to_string(phase).unwrap_or_default().trim_matches('"')),
            Event::Live { inst, block, reason } => {
                format!("live {inst} `{}` ({}): {}", inst_text(f, *inst), f.block_in_code(*block), reason_short(f, reason, &node))
            }
            Event::LiveArg { arg, block, reason } => {
                format!("live-arg {} ({}): {}", f.value_in_code(*arg), f.block_in_code(*block), reason_short(f, reason, &node))
            }
            Event::RewriteBranch { block, old, new, target, .. } => format!(
                "rewrite {} {old} `{}` -> {new} `{}` (to {})",
                f.block_in_code(*block),
                inst_text(f, *old),
                inst_text(&after, *new),
                f.block_in_code(*target)
            ),
            Event::EndLifetime { block, new, .. } => {
                format!("insert {new} `{}` ({})", inst_text(&after, *new), f.block_in_code(*block))
            }
            Event::ErasePhi { block, arg, .. } => format!("erase-phi {} ({})", f.value_in_code(*arg), f.block_in_code(*block)),
            Event::Delete { inst, block } => format!("delete {inst} `{}` ({})", inst_text(f, *inst), f.block_in_code(*block)),
            Event::Undef { inst, slot, old, .. } => {
                let at = match slot {
                    super::trace::Slot::Arg { index } => format!("operand {index}"),
                    super::trace::Slot::SuccArg { succ, index } => format!("successor {succ} argument {index}"),
                };
                format!("undef {inst} {at}: {} -> undef", f.value_in_code(*old))
            }
            Event::ExplicitJump { block, new, target } => {
                format!("jump {} {new} (falls through to {})", f.block_in_code(*block), f.block_in_code(*target))
            }
            Event::RemoveBlock { block } => format!("remove-block {}", f.block_in_code(*block)),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn reason_short(f: &Function, r: &Reason, node: &dyn Fn(Node) -> String) -> String {
    match r {
        Reason::Root { root } => format!("root ({})", serde_json::to_string(root).unwrap_or_default().trim_matches('"')),
        Reason::Operand { of } => format!("operand of {of}"),
        Reason::ReachingDef { use_in, var } => format!("reaching def of `{}` used in {use_in}", f.value_in_code(*var)),
        Reason::IncomingValue { arg, block } => format!("incoming value of {} ({})", f.value_in_code(*arg), f.block_in_code(*block)),
        Reason::BranchFeedsLiveArg { arg, block } => {
            format!("passes {} ({})", f.value_in_code(*arg), f.block_in_code(*block))
        }
        Reason::ControlDependence { block, via } => {
            format!("{} is control dependent on it (live {})", f.block_in_code(*block), node(*via))
        }
        Reason::ReverseDependency { on } => format!("reverse dependency on {}", node(*on)),
    }
}

/// The block holding `i`, tolerating a malformed layout (explanations never panic).
fn block_of(f: &Function, i: InstId) -> Option<BlockId> {
    f.layout.iter().copied().find(|&b| f.blocks.get(b).is_some_and(|x| x.all_insts().any(|j| j == i)))
}
