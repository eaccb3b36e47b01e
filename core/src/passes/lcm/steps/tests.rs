//! The LCM step list and the table replay on the seed's 13-node example (the golden file the
//! pass's tests check against the seed) and on small programs with the awkward cases: a
//! critical edge, an unreachable block, a loop — plus a few generated programs.

use super::super::*;
use crate::testgen::{generate, GenConfig};
use crate::{parse_module, Lang};

const SEED13: &str = include_str!("../../../../tests/golden/lcm/seed13.bril");
const CRITICAL: &str = include_str!("../../../../tests/golden/lcm/critical.bril");
/// A self-loop (a critical edge onto the loop header), an unreachable block computing the
/// same expression, and an exit.
const UNREACHABLE: &str = "@main(a: int, b: int) {
.entry:
  jmp .loop;
.dead:
  x: int = add a b;
  jmp .loop;
.loop:
  y: int = add a b;
  c: bool = lt y a;
  br c .loop .done;
.done:
  print y;
}
";

fn lcm_of(text: &str) -> LcmOutput {
    let m = parse_module(Lang::Bril, "t.bril", text).unwrap_or_else(|e| panic!("{e:?}"));
    let f = m.bodies().next().expect("a function");
    run_function(f, &Options::default()).expect("LCM runs")
}

/// The hand-written cases and a few generated programs (nested loops and branches over a
/// handful of variables, so expressions recur and get killed).
fn samples() -> Vec<LcmOutput> {
    let mut v: Vec<LcmOutput> = [SEED13, CRITICAL, UNREACHABLE].into_iter().map(lcm_of).collect();
    let cfg = GenConfig { statements: 30, max_depth: 4, ..GenConfig::default() };
    for seed in 1..=4 {
        let g = generate(seed, &cfg);
        let main = g.module.bodies().next().expect("main");
        let o = run_function(main, &Options::default()).expect("LCM runs on generated Bril");
        assert!(!o.exprs.is_empty(), "seed {seed}: the generator writes computations");
        v.push(o);
    }
    v
}

/// The trace step that computes `p`.
fn stage_of(o: &LcmOutput, p: Pred) -> usize {
    o.trace.steps.iter().position(|s| stage_info(s).preds.contains(&p)).expect("every predicate has a step")
}

#[test]
fn the_last_step_of_every_stage_shows_the_final_predicates_and_nothing_later() {
    for o in samples() {
        let steps = o.steps();
        for stage in 0..o.trace.steps.len() {
            let k = steps.last_of(stage).expect("every stage has a step");
            for (e, x) in o.exprs.iter() {
                let snap = o.snapshot(steps.pos(k), e);
                for (r, b) in o.trace.blocks.iter().enumerate() {
                    for p in Pred::ALL {
                        let got = snap.cell(r, p).value;
                        let want = (stage_of(&o, p) <= stage).then(|| o.preds.holds(p, b.id, e));
                        assert_eq!(got, want, "{} at {}: {p} of {} in {}", x.text(), steps.describe(k), b.name, o.name);
                    }
                }
            }
        }
        // Before step 2 nothing is computed.
        let e = o.exprs.keys().next().unwrap();
        for k in 0..steps.first_of(1).unwrap() {
            assert!(o.snapshot(steps.pos(k), e).rows.iter().flatten().all(|c| c.value.is_none()));
        }
    }
}

#[test]
fn fixpoint_rounds_replay_from_all_true_and_highlight_exactly_the_flips() {
    for o in samples() {
        let steps = o.steps();
        for (stage, step) in o.trace.steps.iter().enumerate() {
            let Some(fp) = fixpoint(step) else { continue };
            let pair = stage_info(step).preds;
            let first = steps.first_of(stage).unwrap();
            assert_eq!(steps.last_of(stage).unwrap() - first + 1, fp.rounds.len());
            for e in o.exprs.keys() {
                // Round 0 starts from true on reachable blocks, false on the others.
                let mut prev: Vec<[Option<bool>; 2]> = o.trace.blocks.iter().map(|b| [Some(b.reachable); 2]).collect();
                for r in 0..fp.rounds.len() {
                    let k = first + r;
                    assert_eq!(steps.pos(k), Pos::Stage { stage, round: Some(r) });
                    let snap = o.snapshot(steps.pos(k), e);
                    for (row, b) in o.trace.blocks.iter().enumerate() {
                        for (j, &p) in pair.iter().enumerate() {
                            let c = snap.cell(row, p);
                            assert_eq!(
                                c.changed,
                                c.value != prev[row][j],
                                "{} round {r}: {p} in {}",
                                step.title(),
                                b.name
                            );
                            // A greatest fixpoint only ever clears bits.
                            assert!(!(c.value == Some(true) && prev[row][j] == Some(false)), "{p} in {} rose", b.name);
                            prev[row][j] = c.value;
                        }
                    }
                    if r + 1 == fp.rounds.len() {
                        assert!(snap.rows.iter().flatten().all(|c| !c.changed), "the last round is quiet");
                    }
                }
            }
        }
    }
}

fn words(s: &str) -> Vec<&str> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect()
}

#[test]
fn descriptions_say_what_each_step_did() {
    let o = lcm_of(SEED13);
    let steps = o.steps();
    let rounds: usize = o.trace.steps.iter().map(|s| fixpoint(s).map_or(1, |f| f.rounds.len().max(1))).sum();
    assert_eq!(steps.len(), 1 + rounds);
    assert!(steps.describe(0).contains("@main has 3 candidate expressions (1 will move)"), "{}", steps.describe(0));
    assert!(steps.describe(1).starts_with("Step 1 (critical edges): no edge"), "{}", steps.describe(1));
    assert!(steps.describe(steps.len() + 5).starts_with("Step 7"), "clamped");
    assert_eq!(steps.headline(steps.len() - 1), "Step 7 (transformation)");
    for (stage, step) in o.trace.steps.iter().enumerate() {
        let info = stage_info(step);
        let first = steps.first_of(stage).unwrap();
        assert!(steps.describe(first).starts_with(&format!("Step {} ({})", info.number, info.name)));
        let Some(fp) = fixpoint(step) else { continue };
        let n = fp.rounds.len();
        for r in 0..n {
            let text = steps.describe(first + r);
            assert!(text.contains(&format!("round {} of {n}", r + 1)), "{text}");
            assert_eq!(text.contains("the fixpoint is reached"), r + 1 == n, "{text}");
            let head = steps.headline(first + r);
            assert!(
                head.ends_with(&format!("round {} of {n}", r + 1)) || head.ends_with(info.order.unwrap()),
                "{head}"
            );
            assert!(!head.contains("changed"), "{head}");
            // Every block where some expression's bit flipped is named, and no other.
            let mut flipped: Vec<&str> = Vec::new();
            for e in o.exprs.keys() {
                let snap = o.snapshot(steps.pos(first + r), e);
                for (row, b) in o.trace.blocks.iter().enumerate() {
                    if info.preds.iter().any(|&p| snap.cell(row, p).changed) && !flipped.contains(&b.name.as_str()) {
                        flipped.push(&b.name);
                    }
                }
            }
            let named: Vec<&str> =
                words(text).into_iter().filter(|w| o.trace.blocks.iter().any(|b| b.name == *w)).collect();
            if !text.contains(" more") {
                for b in &flipped {
                    assert!(named.contains(b), "{text} misses {b}");
                }
            }
            for b in &named {
                assert!(flipped.contains(b), "{text} names {b}, which did not change");
            }
        }
    }
    // Step 7, from the seed's sets: insert where XLatest ∧ ¬XComp = {5, 10}, delete where
    // NComp ∧ ¬NLatest = {7, 12}.
    let last = steps.describe(steps.len() - 1);
    assert_eq!(last, "Step 7 (transformation): add a b moves — 2 computations inserted, 2 deleted", "{last}");
}

#[test]
fn split_blocks_and_their_removal_are_described() {
    let o = lcm_of(CRITICAL);
    let steps = o.steps();
    assert_eq!(steps.describe(1), "Step 1 (critical edges): new empty block b0_join on b0 → join");
    let o = lcm_of(UNREACHABLE);
    let steps = o.steps();
    let split = o.trace.blocks.iter().filter(|b| b.new).count();
    assert!(split >= 1 && steps.describe(1).contains("loop → loop"), "{}", steps.describe(1));
    let removed = o.moved().is_empty() || steps.describe(steps.len() - 1).contains("removed again");
    assert!(removed, "{}", steps.describe(steps.len() - 1));
}

/// What a reader takes from a one-expression sentence: each predicate it names with the
/// value it gives, the block names listed, and how many more it counts (`and 3 more`).
fn named_in(text: &str, expr: &str) -> Vec<(String, bool, Vec<String>, usize)> {
    let Some((_, list)) = text.split_once(&format!(": for {expr}, ")) else { return Vec::new() };
    list.split("; ")
        .filter_map(|part| {
            let (pred, rest) = part.split_once(' ')?;
            let (value, names) = if let Some(n) = rest.strip_prefix("drops to 0 in ") {
                (false, n)
            } else {
                let (v, n) = rest.strip_prefix("is ")?.split_once(" in ")?;
                (v == "1", n)
            };
            let (names, more) = match names.rsplit_once(" and ") {
                Some((n, m)) => (n, m.trim_end_matches(" more").parse().ok()?),
                None => (names, 0),
            };
            Some((pred.to_string(), value, names.split(", ").map(str::to_string).collect(), more))
        })
        .collect()
}

/// The sentence of every step of every expression names exactly the cells its table marks
/// changed, with the values the table shows (the seed example, the awkward cases, generated
/// programs).
#[test]
fn each_expressions_sentence_names_exactly_the_cells_its_table_marks() {
    for o in samples() {
        let steps = o.steps();
        for k in 0..steps.len() {
            for e in o.exprs.keys() {
                let text = steps.describe_for(&o, k, e);
                let snap = o.snapshot(steps.pos(k), e);
                let marked = marked(&o, &snap);
                let changed = snap.rows.iter().flatten().filter(|c| c.changed).count();
                assert_eq!(changed, marked.iter().map(|m| m.2.len()).sum::<usize>(), "{text}");
                if snap.current.is_empty() {
                    assert_eq!(changed, 0, "{text}");
                    assert_eq!(text, steps.describe(k));
                    continue;
                }
                let named = named_in(&text, &o.trace.exprs[e.0 as usize]);
                assert_eq!(named.len(), marked.len(), "{text}");
                for ((pred, value, names, more), (p, v, rows)) in named.iter().zip(&marked) {
                    assert_eq!(pred, p.name(), "{text}");
                    assert_eq!(value, v, "{text}");
                    for &r in rows {
                        assert_eq!(snap.cell(r, *p).value, Some(*v), "{text}");
                    }
                    let want: Vec<&str> = rows.iter().map(|&r| o.trace.blocks[r].name.as_str()).collect();
                    assert_eq!(names.len() + more, want.len(), "{text}");
                    assert_eq!(names.iter().map(String::as_str).collect::<Vec<_>>(), want[..names.len()], "{text}");
                }
            }
        }
    }
}

/// The article's example, step 3's first round: the sentence of `add a b` names the blocks
/// the table outlines, not those where another expression's bits changed.
#[test]
fn the_seed_examples_first_down_safety_round_names_the_tables_cells() {
    let o = lcm_of(SEED13);
    let steps = o.steps();
    let e = o.expr_by_text("add a b").expect("the seed's expression");
    let k = steps.first_of(stage_of(&o, Pred::NdSafe)).unwrap();
    let text = steps.describe_for(&o, k, e);
    assert!(text.starts_with("Step 3 (down-safety), round 1 of "), "{text}");
    assert!(text.contains(", from all 1 in postorder: for add a b, NdSafe drops to 0 in "), "{text}");
    let snap = o.snapshot(steps.pos(k), e);
    let marked_nd = (0..o.trace.blocks.len()).filter(|&r| snap.cell(r, Pred::NdSafe).changed).count();
    let named = named_in(&text, "add a b");
    assert_eq!(named[0].2.len() + named[0].3, marked_nd, "{text}");
}

/// The round sentences as they were built before they were made cheap (every changed block
/// named, sorted stably by a hashed rank, from the full [`Fixpoint::round`] changes): the
/// oracle for the dense version on programs where rounds change far more than eight blocks.
fn old_round_text(out: &LcmOutput, step: &Step, r: usize) -> String {
    use std::collections::HashMap;
    let t = &out.trace;
    let info = stage_info(step);
    let head = format!("Step {} ({})", info.number, info.name);
    let names: HashMap<BlockId, &str> = t.blocks.iter().map(|b| (b.id, b.name.as_str())).collect();
    let name = |b: BlockId| names.get(&b).map_or_else(|| b.to_string(), |n| n.to_string());
    let rank: HashMap<BlockId, usize> = t.blocks.iter().enumerate().map(|(i, b)| (b.id, i)).collect();
    let exprs = t.exprs.len();
    let all = if exprs > 1 { format!(" (over all {exprs} expressions)") } else { String::new() };
    let fp = fixpoint(step).expect("a fixpoint");
    let n = fp.rounds.len();
    let changes = fp.round(r, step.values());
    let start = if r == 0 { format!(", from all true in {}", info.order.unwrap_or("order")) } else { String::new() };
    if changes.is_empty() {
        return format!("{head}, round {} of {n}{start}: nothing changed — the fixpoint is reached", r + 1);
    }
    let mut parts = Vec::new();
    for &p in info.preds {
        let mut blocks: Vec<BlockId> = changes.iter().filter(|c| c.pred == p).map(|c| c.block).collect();
        blocks.sort_by_key(|b| rank.get(b).copied().unwrap_or(usize::MAX));
        let blocks: Vec<String> = blocks.into_iter().map(name).collect();
        if !blocks.is_empty() {
            let verb = if parts.is_empty() { "changed in " } else { "in " };
            parts.push(format!("{p} {verb}{}", name_list(blocks.iter().map(String::as_str))));
        }
    }
    format!("{head}, round {} of {n}{start}: {}{all}", r + 1, parts.join("; "))
}

#[test]
fn round_sentences_equal_the_old_full_construction() {
    let mut rounds_over_eight = 0;
    for seed in 1..=4u64 {
        let text = crate::testgen::scale::bril_program(150 * seed as usize, seed);
        let out = lcm_of(&text);
        let steps = out.steps();
        for (k, pos) in steps.positions().iter().enumerate() {
            let Pos::Stage { stage, round: Some(r) } = *pos else { continue };
            let step = &out.trace.steps[stage];
            let want = old_round_text(&out, step, r);
            rounds_over_eight += usize::from(want.contains(" more"));
            assert_eq!(steps.describe(k), want, "seed {seed}, step {k}");
        }
    }
    assert!(rounds_over_eight > 0, "some round names more than eight blocks");
}

/// Deferred steps (what the pass keeps) have the positions and, once asked for, the texts
/// of the steps written at once, on the samples and on generated Bril and SIL.
#[test]
fn deferred_steps_equal_the_ones_written_at_once() {
    let mut outs = samples();
    for seed in 1..=3u64 {
        outs.push(lcm_of(&crate::testgen::scale::bril_program(120 * seed as usize, seed)));
        let m = parse_module(Lang::Sil, "t.sil", &crate::testgen::scale::sil_program(60 * seed as usize, seed)).expect("SIL parses");
        for f in m.bodies() {
            if let Ok(o) = run_function(f, &Options::default()) {
                outs.push(o);
            }
        }
    }
    assert!(outs.len() > 10, "{}", outs.len());
    for o in outs {
        let eager = o.steps();
        let o = std::sync::Arc::new(o);
        let deferred = LcmSteps::deferred(&o);
        assert!(!deferred.texts().is_made(), "@{}: texts made before they were asked for", o.trace.function);
        assert_eq!(deferred.positions(), eager.positions(), "@{}", o.trace.function);
        assert_eq!(deferred.texts().texts(), eager.texts().texts(), "@{}", o.trace.function);
        assert_eq!(deferred, eager);
    }
}
