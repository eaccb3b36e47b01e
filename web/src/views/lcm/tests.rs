//! Native tests of the LCM view's pure parts, on seed 004's 13-node example (the golden file
//! core's tests check against the seed) and on a program with a critical edge. The step list
//! and the table replay are tested in core (`passes::lcm::steps`).

use super::model::{changes_line, pick_expr, sets_line};
use optlab_core::passes::lcm::{self, stage_info, Edit, LcmOutput, Pred, Step};
use optlab_core::{parse_module, Lang};

const SEED13: &str = include_str!("../../../../core/tests/golden/lcm/seed13.bril");
const CRITICAL: &str = include_str!("../../../../core/tests/golden/lcm/critical.bril");

fn lcm_of(text: &str) -> LcmOutput {
    let m = parse_module(Lang::Bril, "t.bril", text).unwrap_or_else(|e| panic!("{e:?}"));
    let f = m.bodies().next().expect("a function");
    lcm::run_function(f, &lcm::Options::default()).expect("LCM runs")
}

fn row(o: &LcmOutput, name: &str) -> usize {
    o.trace.blocks.iter().position(|b| b.name == name).unwrap_or_else(|| panic!("no block {name}"))
}

/// The trace step that computes `p`.
fn stage_of(o: &LcmOutput, p: Pred) -> usize {
    o.trace.steps.iter().position(|s| stage_info(s).preds.contains(&p)).expect("every predicate has a step")
}

/// The sets seed 004 prints for `a+b` (its nodes K are blocks nK here).
const SEED_SETS: [(Pred, &[u32]); 12] = [
    (Pred::NComp, &[7, 11, 12]),
    (Pred::XComp, &[2]),
    (Pred::NdSafe, &[6, 7, 9, 10, 11, 12]),
    (Pred::XdSafe, &[2, 5, 6, 9, 10, 11]),
    (Pred::NuSafe, &[6, 8, 13]),
    (Pred::XuSafe, &[2, 6, 7, 8, 11, 12, 13]),
    (Pred::NEarliest, &[9]),
    (Pred::XEarliest, &[2, 5]),
    (Pred::NDelayed, &[9, 10, 11]),
    (Pred::XDelayed, &[2, 5, 9, 10]),
    (Pred::NLatest, &[11]),
    (Pred::XLatest, &[2, 5, 10]),
];

#[test]
fn the_seed_example_shows_the_seeds_sets_at_the_end_of_each_step() {
    let o = lcm_of(SEED13);
    let steps = o.steps();
    let e = o.expr_by_text("add a b").unwrap();
    assert_eq!(pick_expr(&o, None), Some(e), "the moved expression is shown first");
    for (p, nodes) in SEED_SETS {
        let k = steps.last_of(stage_of(&o, p)).unwrap();
        let snap = o.snapshot(steps.pos(k), e);
        let names: Vec<String> = nodes.iter().map(|n| format!("n{n}")).collect();
        let expected = format!("{p} = {{{}}}", names.join(", "));
        assert!(sets_line(&o, &snap).contains(&expected), "{} vs {expected}", sets_line(&o, &snap));
    }
    // ¬Transp = {2, 5}; s is transparent for a+b too.
    let k = steps.last_of(1).unwrap();
    let snap = o.snapshot(steps.pos(k), e);
    let opaque: Vec<&str> = o
        .trace
        .blocks
        .iter()
        .enumerate()
        .filter(|&(r, _)| snap.cell(r, Pred::Transp).value == Some(false))
        .map(|(_, b)| b.name.as_str())
        .collect();
    assert_eq!(opaque, ["n2", "n5"]);
    // Step 2 marks what differs from the seed's initial values (NComp/XComp false, Transp true).
    assert!(snap.cell(row(&o, "n7"), Pred::NComp).changed && !snap.cell(row(&o, "n6"), Pred::NComp).changed);
    assert!(snap.cell(row(&o, "n5"), Pred::Transp).changed && !snap.cell(row(&o, "n6"), Pred::Transp).changed);
    assert_eq!(changes_line(&o, &snap), "NComp: n7, n11, n12 · XComp: n2 · Transp: n2, n5");
}


#[test]
fn the_picker_counts_computations_and_falls_back_to_a_moved_expression() {
    let o = lcm_of(SEED13);
    // The counts are core's occurrence map, which the picker shows as is.
    let counts = o.occurrence_counts();
    let count = |t: &str| counts[o.expr_by_text(t).unwrap().0 as usize];
    // a+b in n2, n7, n11 and n12; i+1 in the loop; i<n in its header.
    assert_eq!((count("add a b"), count("add i one"), count("lt i n")), (4, 1, 1));
    // Step 7 splits every computation of a moved expression once: an independent count.
    let Some(Step::Transform { edits, moved, .. }) = o.trace.steps.last() else { panic!("no step 7") };
    for &e in moved {
        let splits = edits.iter().filter(|d| matches!(d, Edit::Split { expr, .. } if *expr == e)).count();
        assert_eq!(counts[e.0 as usize], splits, "{}", o.trace.exprs[e.0 as usize]);
    }
    assert_eq!(pick_expr(&o, Some("lt  i n")), o.expr_by_text("lt i n"));
    assert_eq!(pick_expr(&o, Some("mul x y")), o.expr_by_text("add a b"), "unknown text: the moved one");
    let still = lcm_of("@main(a: int, b: int) {\n  x: int = add a b;\n  y: int = mul a b;\n  print x y;\n}\n");
    assert!(still.moved().is_empty());
    assert_eq!(pick_expr(&still, None), still.expr_by_text("add a b"), "nothing moves: the first");
    let none = lcm_of("@main {\n  print;\n}\n");
    assert_eq!(pick_expr(&none, None), None);
    assert!(none.occurrence_counts().is_empty());
}

#[test]
fn step_7_is_summed_up_per_expression_and_drawn_on_the_result() {
    use super::decor::{edited_lines, LcmGraphs, LineEdit};
    use super::model::edits_line;
    let o = lcm_of(SEED13);
    let f = parse_module(Lang::Bril, "t.bril", SEED13).unwrap().bodies().next().unwrap().clone();
    let e = o.expr_by_text("add a b").unwrap();
    // The seed: the loop-invariant a+b of 7 goes to 5, the redundancy of 11/12 is removed.
    assert_eq!(
        edits_line(&o, e),
        "add a b: inserted at n5 (exit), n10 (exit) · deleted from n7, n12 · kept in n2, n11"
    );
    assert_eq!(
        edits_line(&o, o.expr_by_text("lt i n").unwrap()),
        "lt i n does not move: its computations stay where they are"
    );
    let g = LcmGraphs::new(&f, &o);
    let ins = edited_lines(&g, LineEdit::Inserted);
    assert_eq!(ins.keys().collect::<Vec<_>>(), ["n10", "n5"]);
    assert!(ins["n5"].iter().all(|l| l.ends_with("= add a b;")), "{ins:?}");
    let del = edited_lines(&g, LineEdit::Deleted);
    assert_eq!(del.keys().collect::<Vec<_>>(), ["n12", "n7"]);
    // A deleted computation is drawn just above the `d = t` that used to be `d = a + b`.
    for (block, lines) in &del {
        let node = &g.after.nodes[g.after.node_index(block).unwrap()];
        let k = node.lines.iter().position(|l| l == &lines[0]).unwrap();
        assert!(node.lines[k + 1].contains("= id add.a.b;"), "{block}: {:?}", node.lines);
    }
    // Every line of the result is drawn, plus one per deletion.
    let result_lines: usize = o.result.layout.iter().map(|&b| o.result.blocks[b].all_insts().count()).sum();
    let drawn: usize = g.after.nodes.iter().map(|n| n.lines.len()).sum();
    assert_eq!(drawn, result_lines + 2);
    assert_eq!(super::model::export_file_name("main", "add  a b", "md"), "lcm-main-add_a_b.md");
    assert_eq!(super::model::export_file_name("f/../x", "lt i n", "csv"), "lcm-f_.._x-lt_i_n.csv");
}

#[test]
fn the_graph_shows_the_current_bits_split_blocks_and_the_right_function() {
    use super::decor::{decor, DecorInput, LcmGraphs};
    let f = parse_module(Lang::Bril, "t.bril", CRITICAL).unwrap().bodies().next().unwrap().clone();
    let o = lcm_of(CRITICAL);
    let g = LcmGraphs::new(&f, &o);
    let steps = o.steps();
    let e = o.expr_by_text("add a b").unwrap();
    let none = |_: usize, _: Pred| false;
    let at = |k: usize, hidden: &dyn Fn(usize, Pred) -> bool| {
        let snap = o.snapshot(steps.pos(k), e);
        let graph = g.graph_at(&o, steps.pos(k));
        (graph.clone(), decor(&o, &g, steps.pos(k), &snap, &DecorInput { selected: Some("join"), hidden }))
    };
    // Step 0: the function as written (no b0_join), nothing computed.
    let (g0, d0) = at(0, &none);
    assert!(g0.node_index("b0_join").is_none());
    assert!(d0.nodes.values().all(|n| n.entry.is_empty() && n.exit.is_empty()));
    // Step 1: the new block is marked and so are the edges it sits on.
    let (g1, d1) = at(1, &none);
    let nb = g1.node_index("b0_join").unwrap();
    assert!(d1.node(nb).unwrap().class.contains("split"));
    assert_eq!(d1.edges.len(), 2);
    assert!(d1.node(g1.node_index("join").unwrap()).unwrap().class.contains("selected"));
    // The end of down-safety: NdSafe above each box, XdSafe below, as in the table.
    let k = steps.last_of(2).unwrap();
    let (g3, d3) = at(k, &none);
    let snap = o.snapshot(steps.pos(k), e);
    for (row, b) in o.trace.blocks.iter().enumerate() {
        let n = d3.node(g3.node_index(&b.name).unwrap()).unwrap();
        let bit = |p: Pred| u8::from(snap.cell(row, p).value.unwrap());
        assert_eq!(
            n.entry.iter().map(|x| x.text.clone()).collect::<Vec<_>>(),
            [format!("NdSafe {}", bit(Pred::NdSafe))]
        );
        assert_eq!(
            n.exit.iter().map(|x| x.text.clone()).collect::<Vec<_>>(),
            [format!("XdSafe {}", bit(Pred::XdSafe))]
        );
        assert!(n.entry[0].title.contains("NComp(B) ∨"), "hover shows the equation");
    }
    // Exercise mode hides what the step computes.
    let hide_all = |_: usize, p: Pred| p == Pred::NdSafe;
    let (_, dh) = at(k, &hide_all);
    assert!(dh
        .nodes
        .values()
        .filter(|n| !n.entry.is_empty())
        .all(|n| n.entry[0].text == "NdSafe ?" && n.exit[0].text != "XdSafe ?"));
    // Step 7: the result, with b0_join kept (it received the computation) and its insertion marked.
    let last = steps.len() - 1;
    let (g7, d7) = at(last, &none);
    let nb = g7.node_index("b0_join").unwrap();
    assert!(d7.node(nb).unwrap().class.contains("split"));
    assert!(d7.line(nb, 0).contains("inserted"));
    assert_eq!(d7.node(nb).unwrap().exit[0].text, "XLatest 1");
}

/// What a reader takes from a one-expression step sentence: each predicate named with its
/// value, the block names listed, and how many more are counted (`and 3 more`).
fn named_in(text: &str, expr: &str) -> Vec<(String, bool, Vec<String>, usize)> {
    let Some((_, list)) = text.split_once(&format!(": for {expr}, ")) else { return Vec::new() };
    list.split("; ")
        .filter_map(|part| {
            let (pred, rest) = part.split_once(' ')?;
            let (value, names) = match rest.strip_prefix("drops to 0 in ") {
                Some(n) => (false, n),
                None => {
                    let (v, n) = rest.strip_prefix("is ")?.split_once(" in ")?;
                    (v == "1", n)
                }
            };
            let (names, more) = match names.rsplit_once(" and ") {
                Some((n, m)) => (n, m.trim_end_matches(" more").parse().ok()?),
                None => (names, 0),
            };
            Some((pred.to_string(), value, names.split(", ").map(str::to_string).collect(), more))
        })
        .collect()
}

/// Every step of every LCM example of the gallery (Bril and SIL), every expression: the step
/// bar's sentence names exactly the cells the table marks changed, with their values.
#[test]
fn every_gallery_step_sentence_names_the_cells_its_table_marks() {
    use crate::examples::EXAMPLES;
    use crate::state::{Action, State, StepCmd, Tab};
    let mut checked = 0;
    let mut sil = 0;
    for ex in EXAMPLES.iter() {
        let s = State::default().apply(Action::LoadExample(ex.id.into())).apply(Action::SelectTab(Tab::pass("lcm")));
        let functions = s.program.as_ref().map(|p| p.function_names()).unwrap_or_default();
        for f in functions {
            let s = s.apply(Action::SelectFunction(f.clone()));
            let Ok(a) = &s.analysis else { continue };
            let Ok((out, steps)) = super::run(a) else { continue };
            for e in out.exprs.keys() {
                let expr = out.trace.exprs[e.0 as usize].clone();
                let s = s.apply(Action::SelectExpr(Some(expr.clone())));
                for k in 0..steps.len() {
                    let s = s.apply(Action::Step(StepCmd::To(k)));
                    let text = s.step_text();
                    let snap = out.snapshot(steps.pos(k), e);
                    let where_ = format!("{} @{f} {expr} step {k}: {text}", ex.id);
                    let mut marked: Vec<(Pred, Vec<&str>)> = Vec::new();
                    for p in Pred::ALL {
                        let rows: Vec<&str> = out
                            .trace
                            .blocks
                            .iter()
                            .enumerate()
                            .filter(|&(r, _)| snap.cell(r, p).changed)
                            .map(|(_, b)| b.name.as_str())
                            .collect();
                        if !rows.is_empty() {
                            marked.push((p, rows));
                        }
                    }
                    let named = named_in(&text, &expr);
                    assert_eq!(named.len(), marked.len(), "{where_}");
                    for ((pred, value, names, more), (p, rows)) in named.iter().zip(&marked) {
                        assert_eq!(pred, p.name(), "{where_}");
                        assert_eq!(names.len() + more, rows.len(), "{where_}");
                        assert_eq!(names.iter().map(String::as_str).collect::<Vec<_>>(), rows[..names.len()], "{where_}");
                        let r = row(out, rows[0]);
                        assert_eq!(snap.cell(r, *p).value, Some(*value), "{where_}");
                    }
                    checked += 1;
                    sil += usize::from(ex.lang == optlab_core::Lang::Sil);
                }
            }
        }
    }
    assert!(checked > 500 && sil > 100, "{checked} steps checked, {sil} of SIL");
}
