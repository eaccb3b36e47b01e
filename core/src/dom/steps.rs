//! The one-line description of every step of a Lengauer–Tarjan trace: what the step bar of
//! the Dominators and Post-dominators views shows, one sentence per [`DomEvent`].
//!
//! Written while replaying the trace ([`LtState`]), so a sentence can use what was known just
//! before its event: DFS numbers (why a predecessor counts itself in step 2) and
//! semidominators (why step 3 defers an idom).

use super::replay::{Idom, LtState};
use super::{DomEvent, DomKind, DomNode, ExitKind};
use crate::ir::Function;
use crate::steps::Steps;

/// The steps of a Lengauer–Tarjan run on `f`: step 0 introduces the run, step `k` describes
/// the trace's `k`-th event (`events` as [`super::DomTree::build_traced`] recorded them).
pub fn lt_steps(f: &Function, events: &[DomEvent], kind: DomKind) -> Steps {
    let name = |n: DomNode| n.name(f);
    let entry = f.layout.first().map(|&b| name(DomNode::Block(b)));
    let first = match (kind, entry) {
        (_, None) => format!("@{} has no blocks: there is no tree to build", f.name),
        (DomKind::Dominators, Some(e)) => format!(
            "Lengauer–Tarjan builds the dominator tree of @{} on its CFG, searching from its entry block, {e}",
            f.name
        ),
        (DomKind::PostDominators, Some(_)) => format!(
            "Lengauer–Tarjan builds the post-dominator tree of @{} on the reverse CFG, searching from a virtual exit",
            f.name
        ),
    };
    let graph = match kind {
        DomKind::Dominators => "the CFG",
        DomKind::PostDominators => "the reverse CFG",
    };
    let mut texts = Vec::with_capacity(events.len() + 1);
    texts.push(first);
    let mut known = LtState::new(f.blocks.len());
    for e in events {
        let num = |n: DomNode| known.dfs(n).map_or_else(|| "?".to_string(), |k| k.to_string());
        let text = match *e {
            DomEvent::VirtualEdge { block, kind: ExitKind::Exit } => format!(
                "Before the search: {} leaves the function, so the reverse CFG gets the edge {} → {}",
                name(block.into()),
                name(DomNode::VirtualExit),
                name(block.into())
            ),
            DomEvent::VirtualEdge { block, kind: ExitKind::NoExitPath } => format!(
                "Before the search: no exit is reachable from {}, so the infinite-loop rule joins it to the virtual exit",
                name(block.into())
            ),
            DomEvent::Dfs { node, num, parent: None } => {
                format!("Step 1: the DFS of {graph} starts at {} and numbers it {num}", name(node))
            }
            DomEvent::Dfs { node, num, parent: Some(p) } => {
                format!("Step 1: the DFS goes {} → {} and numbers it {num}", name(p), name(node))
            }
            DomEvent::Semi { node, sdom, pred, from } => {
                let below = known.dfs(pred).zip(known.dfs(node)).is_some_and(|(p, w)| p < w);
                if below {
                    format!(
                        "Step 2: sdom({}) = {}, found through predecessor {} (numbered {} < {}, it counts itself)",
                        name(node),
                        name(sdom),
                        name(pred),
                        num(pred),
                        num(node)
                    )
                } else {
                    format!(
                        "Step 2: sdom({}) = {}, found through predecessor {} (EVAL gives {})",
                        name(node),
                        name(sdom),
                        name(pred),
                        name(from)
                    )
                }
            }
            DomEvent::IdomIsSdom { node, idom } => format!(
                "Step 3: idom({}) = sdom({}) = {}: nothing on the tree path between them has a smaller sdom",
                name(node),
                name(node),
                name(idom)
            ),
            DomEvent::IdomDeferred { node, same_as } => {
                let sd = known.facts(same_as).semi.map_or_else(|| "?".to_string(), |s| name(s.sdom));
                format!(
                    "Step 3: EVAL({}) = {} has the smaller sdom {}, so idom({}) = idom({}), settled in step 4",
                    name(node),
                    name(same_as),
                    sd,
                    name(node),
                    name(same_as)
                )
            }
            DomEvent::Idom { node, idom } => match known.facts(node).idom {
                Idom::SameAs(u) => {
                    format!("Step 4: idom({}) = idom({}) = {}", name(node), name(u), name(idom))
                }
                Idom::Final(_) | Idom::Unknown => {
                    format!("Step 4: idom({}) = {}, as step 3 found", name(node), name(idom))
                }
            },
        };
        texts.push(text);
        known.apply(e);
    }
    if texts.len() > 1 {
        if let Some(last) = texts.last_mut() {
            last.push_str(" — the tree is complete");
        }
    }
    Steps::new(texts)
}

#[cfg(test)]
mod tests {
    use super::super::replay::tests::{bril, LOOPY};
    use super::*;
    use crate::cfg::Cfg;
    use crate::dom::DomTree;

    fn steps(text: &str, kind: DomKind) -> (Steps, Vec<DomEvent>, Function) {
        let f = bril(text);
        let (_, events) = DomTree::build_traced(&f, &Cfg::new(&f), kind);
        (lt_steps(&f, &events, kind), events, f)
    }

    #[test]
    fn one_description_per_event_after_the_introduction() {
        for kind in [DomKind::Dominators, DomKind::PostDominators] {
            let (s, events, _) = steps(LOOPY, kind);
            assert_eq!(s.len(), events.len() + 1);
            assert!(s.describe(0).starts_with("Lengauer–Tarjan builds the"), "{}", s.describe(0));
            for (k, e) in events.iter().enumerate() {
                let text = s.describe(k + 1);
                let prefix = match super::super::replay::phase(e) {
                    0 => "Before the search",
                    p => &format!("Step {p}:"),
                };
                assert!(text.starts_with(prefix), "{text}");
                assert!(!text.contains('?'), "everything named is known at its step: {text}");
            }
            assert!(s.describe(usize::MAX).ends_with("the tree is complete"));
        }
    }

    #[test]
    fn the_loop_example_reads_like_the_algorithm() {
        let (s, _, _) = steps(LOOPY, DomKind::Dominators);
        let all: Vec<&str> = (0..s.len()).map(|k| s.describe(k)).collect();
        let has = |t: &str| all.contains(&t);
        assert!(has("Step 1: the DFS of the CFG starts at entry and numbers it 0"), "{all:#?}");
        assert!(has("Step 1: the DFS goes entry → head and numbers it 1"), "{all:#?}");
        // head's semidominator comes from entry, numbered below it...
        assert!(has("Step 2: sdom(head) = entry, found through predecessor entry (numbered 0 < 1, it counts itself)"), "{all:#?}");
        // ...and latch's from one of its two predecessors a/b, through EVAL (numbered above it).
        assert!(all.iter().any(|d| d.starts_with("Step 2: sdom(latch) = body, found through predecessor ")), "{all:#?}");
        assert!(has("Step 4: idom(latch) = body, as step 3 found"), "{all:#?}");
    }

    #[test]
    fn post_dominators_mention_the_virtual_edges_and_the_infinite_loop_rule() {
        let (s, events, _) = steps(LOOPY, DomKind::PostDominators);
        assert!(s.describe(0).contains("virtual exit"));
        assert!(s.describe(1).contains("out leaves the function"), "{}", s.describe(1));
        let rule = events.iter().position(|e| matches!(e, DomEvent::VirtualEdge { kind: ExitKind::NoExitPath, .. }));
        let rule = rule.expect("spin cannot reach an exit");
        assert!(s.describe(rule + 1).contains("infinite-loop rule"), "{}", s.describe(rule + 1));
        assert!(s.describe(rule + 1).contains("spin"));
    }

    #[test]
    fn a_deferred_idom_is_explained_and_resolved() {
        // DFS r, a, b, c: sdom(c) = a, but b, between a and c on the DFS path, has the
        // smaller sdom r (through the edge r → b), so idom(c) = idom(b) = r.
        let text = "@main {\n.r:\n  c: bool = const true;\n  br c .a .b;\n.a:\n  br c .b .c;\n.b:\n  jmp .c;\n.c:\n  ret;\n}\n";
        let f = bril(text);
        let (_, events) = DomTree::build_traced(&f, &Cfg::new(&f), DomKind::Dominators);
        let s = lt_steps(&f, &events, DomKind::Dominators);
        let k = events.iter().position(|e| matches!(e, DomEvent::IdomDeferred { .. })).expect("c is deferred");
        let DomEvent::IdomDeferred { node, same_as } = events[k] else { unreachable!() };
        let (n, u) = (node.name(&f), same_as.name(&f));
        assert_eq!((n.as_str(), u.as_str()), ("c", "b"));
        assert!(s.describe(k + 1).contains("EVAL(c) = b has the smaller sdom r"), "{}", s.describe(k + 1));
        assert!(s.describe(k + 1).contains(&format!("so idom({n}) = idom({u}), settled in step 4")), "{}", s.describe(k + 1));
        let resolved = events.iter().position(|e| matches!(e, DomEvent::Idom { node: m, .. } if *m == node)).unwrap();
        assert!(s.describe(resolved + 1).starts_with(&format!("Step 4: idom({n}) = idom({u}) = ")), "{}", s.describe(resolved + 1));
    }

    #[test]
    fn an_empty_trace_has_only_the_introduction() {
        let f = bril("@main {\n  ret;\n}\n");
        let s = lt_steps(&f, &[], DomKind::Dominators);
        assert_eq!(s.len(), 1);
        assert_eq!(s.describe(3), s.describe(0));
    }

    #[test]
    fn the_virtual_exit_has_one_name_that_no_block_can_have() {
        use crate::dom::{VIRTUAL_EXIT_NAME, VIRTUAL_EXIT_SHORT_NAME};
        use crate::ir::BlockId;
        let f = bril(LOOPY);
        assert_eq!(DomNode::VirtualExit.name(&f), VIRTUAL_EXIT_NAME);
        assert_eq!(DomNode::VirtualExit.short_name(&f), VIRTUAL_EXIT_SHORT_NAME);
        for name in [VIRTUAL_EXIT_NAME, VIRTUAL_EXIT_SHORT_NAME] {
            assert!(f.block_by_name(name).is_none());
            let text = format!("@main {{\n.{name}:\n  ret;\n}}\n");
            if let Ok(m) = crate::parse_module(crate::Lang::Bril, "t.bril", &text) {
                assert!(m.bodies().all(|g| g.block_by_name(name).is_none()), "{name} parses as a label");
            }
        }
        let head = f.block_by_name("head").unwrap();
        assert_eq!(DomNode::Block(head).name(&f), "head");
        assert_eq!(f.block_name(BlockId(99)), BlockId(99).to_string(), "a bad id reads as the id");
        let (s, _, _) = steps(LOOPY, DomKind::PostDominators);
        assert!(s.texts().iter().any(|t| t.contains(&format!("edge {VIRTUAL_EXIT_NAME} → out"))), "{:#?}", s.texts());
    }
}
