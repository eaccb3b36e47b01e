//! Why: what copy propagation did to one instruction and the copies that allowed it, read
//! off the trace's events. A rewrite names the chain of copies available just before the
//! instruction and, for each, the instructions making it that reach the use (one per arm at
//! a join); a deletion says why the copy was dead; a copy also lists the rewrites it
//! justified elsewhere.

use super::step::step_of_event;
use optlab_core::passes::copyprop::{delete_reason, list, Event, Trace};
use optlab_core::passes::dce::inst_text;
use optlab_core::{BlockId, Function, InstId};
use std::collections::HashMap;

/// An instruction and its block, for a link that selects it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub inst: InstId,
    /// `.name`.
    pub block: String,
}

/// One copy of a rewrite's chain and the instructions of it that reach the use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// `x = id y`, the trace's text.
    pub copy: String,
    pub made_by: Vec<Place>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum What {
    /// The operand read `from` and reads `to`, because the copies of `links` reach it (and
    /// `more` further links of a long chain, which the trace counts without recording).
    Rewrite { from: String, to: String, links: Vec<Link>, more: u32 },
    /// The copy was deleted; `reason` completes "deleted: …".
    Delete { reason: String },
    /// This copy is one link of the rewrite of `target` (`code`: its text before).
    Justifies { target: Place, code: String, from: String, to: String },
    /// The copy of `from` stayed, so it computes `expr` again: `from` held it on every path,
    /// computed at `made_by`.
    Recompute { from: String, expr: String, made_by: Vec<Place> },
}

/// One thing the trace says about the instruction, at its step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub step: usize,
    pub what: What,
    /// After the current step (shown dimmed, outside exercise mode).
    pub later: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Why {
    pub inst: InstId,
    /// The instruction's text in the input and its block.
    pub code: String,
    pub block: String,
    pub items: Vec<Item>,
    /// Exercise mode: the current step is about this instruction and is not shown yet.
    pub hidden: bool,
    /// When no item is left: why the pass left the instruction alone.
    pub untouched: Option<String>,
}

fn value(f: &Function, v: optlab_core::ValueId) -> String {
    f.value_name(v).to_string()
}

/// What the trace says about `inst` as of step `k`. `original` is the function the pass ran
/// on. In `exercise` mode, steps after `k` are left out and step `k` itself is hidden unless
/// `revealed`.
pub fn why(original: &Function, trace: &Trace, inst: InstId, k: usize, exercise: bool, revealed: bool) -> Why {
    let block_of: HashMap<InstId, BlockId> = original.placed_insts().map(|(b, i)| (i, b)).collect();
    let place = |i: InstId| Place { inst: i, block: block_of.get(&i).map_or_else(|| "?".to_string(), |&b| original.block_in_code(b)) };
    let copy_text = |c: optlab_core::passes::copyprop::CopyId| trace.copies.get(c.0 as usize).map_or_else(|| c.to_string(), |x| x.text.clone());
    let mut items = Vec::new();
    let mut hidden = false;
    for (n, e) in trace.events.iter().enumerate() {
        let step = step_of_event(trace, n);
        let what = match e {
            Event::Rewrite { inst: i, from, to, via, more, .. } if *i == inst => What::Rewrite {
                from: value(original, *from),
                to: value(original, *to),
                links: via.iter().map(|v| Link { copy: copy_text(v.copy), made_by: v.insts.iter().map(|&m| place(m)).collect() }).collect(),
                more: *more,
            },
            Event::Rewrite { inst: i, from, to, via, .. } if via.iter().any(|v| v.insts.contains(&inst)) => What::Justifies {
                target: place(*i),
                code: inst_text(original, *i),
                from: value(original, *from),
                to: value(original, *to),
            },
            Event::Delete { inst: i, round, .. } if *i == inst => {
                let dest = original.insts.get(inst).and_then(|x| x.results.first()).map_or_else(|| "?".to_string(), |&d| value(original, d));
                What::Delete { reason: delete_reason(&dest, *round) }
            }
            Event::Rematerialize { inst: i, from, op, args, via, .. } if *i == inst => {
                let operands: Vec<String> = args.iter().map(|&a| value(original, a)).collect();
                What::Recompute {
                    from: value(original, *from),
                    expr: format!("{op} {}", operands.join(" ")),
                    made_by: via.iter().map(|&m| place(m)).collect(),
                }
            }
            _ => continue,
        };
        if exercise && step > k {
            continue;
        }
        if exercise && step == k && !revealed {
            hidden = true;
            continue;
        }
        items.push(Item { step, what, later: step > k });
    }
    let untouched = (items.is_empty() && !hidden).then(|| untouched(original, trace, inst, &block_of, exercise));
    let b = place(inst).block;
    Why { inst, code: inst_text(original, inst), block: b, items, hidden, untouched }
}

fn untouched(original: &Function, trace: &Trace, inst: InstId, block_of: &HashMap<InstId, BlockId>, exercise: bool) -> String {
    let reachable = block_of.get(&inst).is_none_or(|b| trace.blocks.iter().any(|&(x, r)| x == *b && r));
    if exercise {
        return "Nothing so far.".to_string();
    }
    if !reachable {
        return "Left as it is: its block is unreachable from the entry, so no copy is known to hold there.".to_string();
    }
    let Some(i) = original.insts.get(inst) else { return "Left as it is.".to_string() };
    if trace.copies.iter().any(|c| c.insts.contains(&inst)) {
        let dest = i.results.first().map_or("?", |&d| original.value_name(d));
        return format!("Left as it is: this copy stays because {dest} is still used after it.");
    }
    if i.args.is_empty() {
        "Left as it is: it reads no variable.".to_string()
    } else {
        "Left as it is: no copy of any of its operands is available just before it on every path.".to_string()
    }
}

impl Item {
    /// The item as one plain sentence (the component renders the same words with links).
    pub fn sentence(&self) -> String {
        let places = |ps: &[Place]| ps.iter().map(|p| p.block.clone()).collect::<Vec<_>>().join(", ");
        match &self.what {
            What::Rewrite { from, to, links, more } => {
                let mut copies: Vec<String> = links.iter().map(|l| format!("`{}` ({})", l.copy, places(&l.made_by))).collect();
                if *more > 0 {
                    copies.push(format!("{more} more"));
                }
                let (noun, verb) = if copies.len() == 1 { ("copy", "reaches") } else { ("copies", "reach") };
                format!("`{from}` → `{to}`: because {noun} {} {verb} it on every path", list(&copies))
            }
            What::Delete { reason } => format!("deleted: {reason}"),
            What::Justifies { target, code, from, to } => {
                format!("makes `{from}` → `{to}` possible in `{code}` ({})", target.block)
            }
            What::Recompute { from, expr, made_by } => format!(
                "recomputes `{expr}` instead of copying `{from}`, which holds it on every path ({}): the copy could not go, and a recomputation costs the same",
                places(made_by)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::copyprop::fixture::{fixture, TEACH};

    fn inst_of(f: &Function, text: &str) -> InstId {
        f.placed_insts().map(|(_, i)| i).find(|&i| inst_text(f, i) == text).unwrap_or_else(|| panic!("no `{text}`"))
    }

    fn last_step(fx: &crate::views::copyprop::fixture::Fixture) -> usize {
        fx.run.steps.len() - 1
    }

    #[test]
    fn a_chain_names_both_copies_and_the_deletion() {
        let fx = fixture(TEACH);
        let f = &fx.original;
        let w = why(f, &fx.out().trace, inst_of(f, "print c;"), last_step(&fx), false, false);
        let s: Vec<String> = w.items.iter().map(Item::sentence).collect();
        assert_eq!(s, ["`c` → `a`: because copies `c = id b` (.b0) and `b = id a` (.b0) reach it on every path"]);
        let c = why(f, &fx.out().trace, inst_of(f, "c: int = id b;"), last_step(&fx), false, false);
        let s: Vec<String> = c.items.iter().map(Item::sentence).collect();
        assert_eq!(s[0], "`b` → `a`: because copy `b = id a` (.b0) reaches it on every path");
        assert!(s.iter().any(|x| x == "deleted: c is not used afterwards"), "{s:#?}");
        assert!(s.iter().any(|x| x.starts_with("makes `c` → `a` possible in `print c;`")), "{s:#?}");
        assert!(c.untouched.is_none());
    }

    #[test]
    fn at_a_join_each_arm_s_copy_is_named() {
        let fx = fixture(TEACH);
        let f = &fx.original;
        let w = why(f, &fx.out().trace, inst_of(f, "print x;"), last_step(&fx), false, false);
        let What::Rewrite { links, .. } = &w.items[0].what else { panic!("{w:#?}") };
        let blocks: Vec<&str> = links[0].made_by.iter().map(|p| p.block.as_str()).collect();
        assert_eq!(blocks, [".l", ".r"]);
        assert_eq!(w.items[0].sentence(), "`x` → `a`: because copy `x = id a` (.l, .r) reaches it on every path");
        assert_eq!(w.block, ".j");
    }

    #[test]
    fn the_copy_the_loop_kills_is_left_alone_with_a_reason() {
        let fx = fixture(TEACH);
        let f = &fx.original;
        let w = why(f, &fx.out().trace, inst_of(f, "last: int = id i;"), last_step(&fx), false, false);
        assert!(w.items.is_empty());
        assert_eq!(w.untouched.as_deref(), Some("Left as it is: this copy stays because last is still used after it."));
        let p = why(f, &fx.out().trace, inst_of(f, "go: bool = lt i n;"), last_step(&fx), false, false);
        assert!(p.untouched.unwrap().contains("no copy of any of its operands"));
    }

    #[test]
    fn later_steps_are_flagged_and_exercise_mode_hides_the_current_one() {
        let fx = fixture(TEACH);
        let f = &fx.original;
        let t = &fx.out().trace;
        let i = inst_of(f, "print c;");
        let step = t.events.iter().position(|e| matches!(e, Event::Rewrite { inst, .. } if *inst == i)).map(|n| step_of_event(t, n)).unwrap();
        let early = why(f, t, i, 0, false, false);
        assert!(early.items.iter().all(|x| x.later));
        assert_eq!(early.items[0].step, step);
        let asked = why(f, t, i, step, true, false);
        assert!(asked.hidden && asked.items.is_empty() && asked.untouched.is_none());
        let shown = why(f, t, i, step, true, true);
        assert!(!shown.hidden && shown.items.len() == 1 && !shown.items[0].later);
        let before = why(f, t, i, step - 1, true, true);
        assert!(before.items.is_empty() && !before.hidden, "the future stays out of exercise mode");
        assert_eq!(before.untouched.as_deref(), Some("Nothing so far."));
    }

    #[test]
    fn a_recomputed_copy_names_the_expression_and_where_its_source_got_it() {
        // LCM's output on an exponentiation-by-squaring loop: `n = id t` cannot go, so it
        // computes `div n two` again.
        let text = "@main(n: int) {\n  two: int = const 2;\n  one: int = const 1;\n.while:\n  guard: bool = gt n one;\n  br guard .body .end;\n.body:\n  t: int = div n two;\n  half: int = id t;\n  d: int = mul half two;\n  even: bool = eq d n;\n  br even .cont .odd;\n.odd:\n  n: int = sub n one;\n  t: int = div n two;\n.cont:\n  n: int = id t;\n  jmp .while;\n.end:\n  print n;\n}\n";
        let fx = fixture(text);
        let f = &fx.original;
        let w = why(f, &fx.out().trace, inst_of(f, "n: int = id t;"), last_step(&fx), false, false);
        let s: Vec<String> = w.items.iter().map(Item::sentence).collect();
        assert_eq!(
            s,
            ["recomputes `div n two` instead of copying `t`, which holds it on every path (.body, .odd): the copy could not go, and a recomputation costs the same"]
        );
    }

    #[test]
    fn a_long_chain_names_its_first_links_and_counts_the_rest() {
        let mut text = String::from("@main {\n  v0: int = const 7;\n");
        for i in 1..=20 {
            text.push_str(&format!("  v{i}: int = id v{};\n", i - 1));
        }
        text.push_str("  print v20;\n}\n");
        let fx = fixture(&text);
        let f = &fx.original;
        let w = why(f, &fx.out().trace, inst_of(f, "print v20;"), last_step(&fx), false, false);
        let s = w.items[0].sentence();
        let shown = optlab_core::passes::copyprop::VIA_SHOWN;
        assert!(s.starts_with("`v20` → `v0`: because copies `v20 = id v19` (.b0)"), "{s}");
        assert!(s.ends_with(&format!("and {} more reach it on every path", 20 - shown)), "{s}");
    }
}
