use super::*;

const TWO_FUNCS: &str = "@main {\n  x: int = const 1;\n  call @f x;\n}\n@f(a: int) {\n.entry:\n  c: bool = const true;\n  br c .l .r;\n.l:\n  print a;\n  jmp .r;\n.r:\n  ret;\n}\n";

fn bril(text: &str) -> State {
    State::new(Doc::new(text, Lang::Bril, "t.bril"))
}

#[test]
fn the_first_example_is_analysed_at_start() {
    let s = State::default();
    let a = s.analysis.as_ref().expect("the first example analyses");
    assert_eq!(a.function.name, "main");
    assert!(s.marks.is_empty());
    assert!(!s.is_stale());
    assert!(s.step_count(Tab::pass("dce")) > 1, "DCE has steps");
    assert!(s.step_count(Tab::DOM) > 1, "Lengauer–Tarjan has steps");
    assert_eq!(s.step_count(Tab::CFG), 1);
}

#[test]
fn a_parse_error_keeps_the_last_good_program_and_marks_line_and_column() {
    let s = bril(TWO_FUNCS);
    let good = s.analysis.clone().expect("parses");
    let t = s.apply(Action::Edit("@main {\n  x: int = const;\n}\n".into()));
    assert!(t.is_stale());
    assert_eq!(t.marks.len(), 1, "{:?}", t.marks);
    assert_eq!(t.marks[0].line, 2);
    assert!(t.marks[0].col > 1);
    assert!(t.error_text.as_deref().is_some_and(|e| e.contains("t.bril:2:")), "{:?}", t.error_text);
    assert!(Rc::ptr_eq(t.analysis.as_ref().expect("kept"), &good), "the views keep the old analysis");
    let u = t.apply(Action::Edit("@main {\n  x: int = const 2;\n  print x;\n}\n".into()));
    assert!(!u.is_stale());
    assert!(u.marks.is_empty() && u.error_text.is_none());
    assert_eq!(u.analysis.as_ref().expect("parses").function.insts.len(), 2);
}

#[test]
fn steps_move_within_their_view_and_clamp() {
    let s = State::default().apply(Action::SelectTab(Tab::pass("dce")));
    let n = s.step_count(Tab::pass("dce"));
    assert_eq!(s.step(Tab::pass("dce")), 0);
    let s = s.apply(Action::Step(StepCmd::Next)).apply(Action::Step(StepCmd::Next));
    assert_eq!(s.step(Tab::pass("dce")), 2.min(n - 1));
    let s = s.apply(Action::Step(StepCmd::Last));
    assert_eq!(s.step(Tab::pass("dce")), n - 1);
    assert_eq!(s.apply(Action::Step(StepCmd::Next)).step(Tab::pass("dce")), n - 1);
    assert_eq!(s.apply(Action::Step(StepCmd::To(usize::MAX))).step(Tab::pass("dce")), n - 1);
    let first = s.apply(Action::Step(StepCmd::First));
    assert_eq!(first.step(Tab::pass("dce")), 0);
    assert_eq!(first.apply(Action::Step(StepCmd::Prev)).step(Tab::pass("dce")), 0);
    // Other views keep their own cursor.
    let d = s.apply(Action::SelectTab(Tab::DOM));
    assert_eq!(d.step(Tab::DOM), 0);
    assert_eq!(d.apply(Action::SelectTab(Tab::pass("dce"))).step(Tab::pass("dce")), n - 1);
    assert!(!s.step_text().is_empty());
    // Views without steps ignore stepping.
    let c = State::default().apply(Action::Step(StepCmd::Next));
    assert_eq!(c.step(Tab::CFG), 0);
}

#[test]
fn functions_are_picked_by_name_and_survive_edits() {
    let s = bril(TWO_FUNCS);
    assert_eq!(s.function.as_deref(), Some("main"));
    let t = s.apply(Action::SelectFunction("f".into()));
    assert_eq!(t.analysis.as_ref().expect("f").function.name, "f");
    let edited = TWO_FUNCS.replace("print a;", "print a;\n  print a;");
    let u = t.apply(Action::Edit(edited));
    assert_eq!(u.function.as_deref(), Some("f"), "an edit keeps the chosen function");
    let gone = u.apply(Action::Edit("@main {\n  ret;\n}\n".into()));
    assert_eq!(gone.function.as_deref(), Some("main"), "a vanished function falls back to the first");
}

#[test]
fn examples_load_by_id_and_unknown_ids_are_reported() {
    let s = bril(TWO_FUNCS);
    let id = EXAMPLES[1].id;
    let t = s.apply(Action::LoadExample(id.into()));
    assert_eq!(t.doc.example, Some(id));
    assert_eq!(t.doc.source.as_str(), EXAMPLES[1].text());
    assert_eq!(t.stash.as_ref().map(|d| d.source.as_str()), Some(TWO_FUNCS), "the user's text is kept");
    let back = t.apply(Action::RestoreStash);
    assert_eq!(back.doc.source.as_str(), TWO_FUNCS);
    assert!(back.stash.is_none());
    let bad = s.apply(Action::LoadExample("no-such".into()));
    assert!(bad.notice.as_ref().is_some_and(|n| n.error && n.text.contains("no-such")));
    assert_eq!(bad.doc, s.doc);
}

#[test]
fn opening_a_document_stashes_the_users_text() {
    let s = bril(TWO_FUNCS);
    let t = s.apply(Action::OpenDoc(Doc::new("@main {\n  ret;\n}\n", Lang::Bril, "link.bril")));
    assert_eq!(t.doc.file, "link.bril");
    assert_eq!(t.stash.as_ref().map(|d| d.source.as_str()), Some(TWO_FUNCS));
    assert_eq!(t.apply(Action::RestoreStash).doc.source.as_str(), TWO_FUNCS);
}

#[test]
fn a_huge_text_is_refused_with_a_message_not_analysed() {
    let s = bril(TWO_FUNCS);
    let huge = "#".repeat(crate::program::MAX_SOURCE_BYTES + 1);
    let t = s.apply(Action::Edit(huge));
    assert_eq!(t.marks.len(), 1);
    assert!(t.marks[0].message.contains("KiB"), "{}", t.marks[0].message);
    assert!(t.analysis.is_ok(), "the last good program stays");
    assert!(t.is_stale() && t.program.as_ref().is_some_and(|p| p.source == TWO_FUNCS));
    assert_eq!(t.doc.source.len(), crate::program::MAX_SOURCE_BYTES + 1, "the text stays in the editor");
    // The language is not guessed from such a text (nothing reads it).
    let sil_ish = "sil @f : $() -> () {\n".repeat(crate::program::MAX_SOURCE_BYTES / 20 + 1);
    assert_eq!(s.apply(Action::Edit(sil_ish)).doc.lang, Lang::Bril);
}

#[test]
fn the_file_name_follows_the_text() {
    let s = State::default().apply(Action::LoadExample("loop".into()));
    assert_eq!(s.doc.file, "loop.bril");
    // An edit keeps the name.
    let edited = s.doc.source.replacen("\n", "\n# a comment\n", 1);
    assert_eq!(s.apply(Action::Edit(edited)).doc.file, "loop.bril");
    // A SIL program pasted over it is an untitled SIL file, in the errors too.
    let sil = "sil_stage canonical\n\nsil @f : $@convention(thin) () -> () {\nbb0:\n  %0 = tuple ()\n  return %0 : $()\n  bogus\n}\n";
    let t = s.apply(Action::Edit(sil.into()));
    assert_eq!((t.doc.lang, t.doc.file.as_str()), (Lang::Sil, "untitled.sil"));
    assert!(t.error_text.as_deref().is_some_and(|e| e.starts_with("untitled.sil:")), "{:?}", t.error_text);
    // Another Bril program pasted over it is untitled too.
    let t = s.apply(Action::Edit(TWO_FUNCS.into()));
    assert_eq!((t.doc.lang, t.doc.file.as_str()), (Lang::Bril, "untitled.bril"));
}

#[test]
fn a_text_without_functions_says_so() {
    let s = bril("# nothing here\n");
    assert!(matches!(&s.analysis, Err(m) if m.contains("no function")), "{:?}", s.analysis);
    assert_eq!(s.step_count(Tab::pass("dce")), 1);
    assert_eq!(s.step_text(), "");
}

#[test]
fn sil_programs_analyse_and_lcm_runs_on_them() {
    let sil = "sil_stage canonical\n\nimport Builtin\n\nsil @f : $@convention(thin) (Builtin.Int1) -> () {\nbb0(%0 : $Builtin.Int1):\n  cond_br %0, bb1, bb2\nbb1:\n  br bb2\nbb2:\n  %1 = tuple ()\n  return %1 : $()\n}\n";
    let s = State::new(Doc::new(sil, Lang::Sil, "t.sil"));
    let a = s.analysis.as_ref().expect("SIL analyses");
    assert!(crate::views::lcm::output(a).is_ok_and(|o| o.exprs.is_empty()));
    assert!(s.step_count(Tab::pass("lcm")) > 1);
    assert!(s.step_count(Tab::PDOM) > 1);
}

#[test]
fn the_pipeline_is_edited_by_actions_and_rerun_once_per_change() {
    let s = State::default().apply(Action::LoadExample("partial".into()));
    assert_eq!(s.pipeline, Pipeline::default_pipeline());
    let staged = s.staged.clone().expect("a pipeline run");
    assert_eq!(staged.num_stages(), s.pipeline.len() + 1);
    assert_eq!(s.compared_stages(), (0, s.pipeline.len()));
    // Stepping and selecting do not run the pipeline again.
    let t = s.apply(Action::Step(StepCmd::Next)).apply(Action::SelectTab(Tab::DIFF));
    assert!(Rc::ptr_eq(t.staged.as_ref().unwrap(), &staged));

    let t = s.apply(Action::RemovePass(0));
    assert_eq!(t.pipeline.to_string(), "copyprop,dce");
    assert!(!Rc::ptr_eq(t.staged.as_ref().unwrap(), &staged));
    let t = t.apply(Action::AddPass("lcm".into())).apply(Action::SelectStages(3, 1));
    assert_eq!(t.pipeline.to_string(), "copyprop,dce,lcm");
    assert_eq!(t.compared_stages(), (1, 3), "ordered");
    assert_eq!(t.apply(Action::SelectStages(0, 99)).compared_stages(), (0, 3), "clamped");
    // An unknown pass is a notice, not a change.
    let u = t.apply(Action::AddPass("gvn".into()));
    assert_eq!(u.pipeline, t.pipeline);
    assert!(u.notice.as_ref().is_some_and(|n| n.error && n.text.contains("no pass `gvn`")));
    // Out of range: nothing happens.
    assert_eq!(t.apply(Action::RemovePass(7)).pipeline, t.pipeline);
    // A new pipeline compares its own input and output again.
    let v = t.apply(Action::SetPipeline(Pipeline::parse("dce").unwrap()));
    assert_eq!(v.compared_stages(), (0, 1));
}

#[test]
fn every_registered_pass_steps_in_its_own_tab_with_core_texts() {
    let s = State::default().apply(Action::LoadExample("partial".into()));
    let a = s.analysis.clone().unwrap();
    for p in optlab_core::passes::REGISTRY {
        let tab = Tab::pass(p.info().slug);
        let run = a.run(p.info().slug).expect("every pass ran");
        assert_eq!(s.step_count(tab), run.steps.len(), "{}", p.info().slug);
        let t = s.apply(Action::SelectTab(tab)).apply(Action::Step(StepCmd::Last));
        assert_eq!(t.step_text(), run.steps.describe(run.steps.len() - 1));
        // Exercise mode keeps what the step found to itself.
        let e = t.apply(Action::SetExercise(true));
        assert_eq!(e.step_text(), run.steps.headline(run.steps.len() - 1));
    }
}

/// A pasted line of 100,000 stray tokens: the editor gets at most core's cap of markers and
/// the error list ends with the count of the rest, so the page stays small (issue 17).
#[test]
fn a_flood_of_errors_is_capped_in_the_markers_and_the_list() {
    let s = bril(TWO_FUNCS);
    let t = s.apply(Action::Edit(format!("@main {{\n  {}\n}}\n", "1a ".repeat(100_000))));
    assert_eq!(t.marks.len(), optlab_core::Diagnostics::MAX);
    let text = t.error_text.as_deref().expect("an error list");
    assert!(text.ends_with("and 99900 more errors"), "{}", &text[text.len().saturating_sub(200)..]);
    assert!(text.len() < 100 * 400, "{} bytes", text.len());
}

/// The Types view's state on the type-lowering example: the classes the core computes, the
/// what-if substitution, resilience and the stub insertion, all through the reducer.
mod types {
    use super::*;
    use optlab_core::sil::types::Class;

    fn example(function: &str) -> State {
        State::default()
            .apply(Action::LoadExample("type-lowering".into()))
            .apply(Action::SelectFunction(function.into()))
            .apply(Action::SelectTab(Tab::TYPES))
    }

    fn class(s: &State, ty: &str) -> Class {
        let a = s.analysis.as_ref().expect("analysed");
        let ft = a.types(&a.function);
        ft.row(ty).unwrap_or_else(|| panic!("no row {ty}: {:?}", ft.rows.iter().map(|r| &r.text).collect::<Vec<_>>())).verdict.class
    }

    #[test]
    fn the_seed_vectors_classify_as_swift_lowers_them() {
        let s = example("instances");
        assert_eq!(class(&s, "Box<Int>"), Class::Trivial);
        assert_eq!(class(&s, "Box<NSObject>"), Class::Loadable);
        assert_eq!(class(&s, "*Box<Any>"), Class::AddressOnly);
        assert_eq!(class(&s, "Transform<Any>"), Class::Loadable);
        assert_eq!(class(&s, "*Phantom<() -> ()>"), Class::Trivial);
        assert_eq!(class(&s, "*Phantom<NSObject>"), Class::Trivial);
    }

    #[test]
    fn a_what_if_reclassifies_and_is_undone() {
        let s = example("boxes");
        assert_eq!(class(&s, "*Box<T>"), Class::AddressOnly, "T alone is runtime-sized");
        let any = s.apply(Action::SetWhatIf { param: "T".into(), ty: Some("Any".into()) });
        assert_eq!(class(&any, "*Box<T>"), Class::AddressOnly);
        let int = any.apply(Action::SetWhatIf { param: "T".into(), ty: Some(" $Int ".into()) });
        assert_eq!(int.types.assume.subst.get("T").map(String::as_str), Some("Int"), "trimmed, `$` dropped");
        assert_eq!(class(&int, "*Box<T>"), Class::Trivial);
        let obj = int.apply(Action::SetWhatIf { param: "T".into(), ty: Some("NSObject".into()) });
        assert_eq!(class(&obj, "*Box<T>"), Class::Loadable);
        assert_eq!(class(&obj, "Phantom<T>"), Class::Trivial, "Phantom never depends on T");
        let back = obj.apply(Action::SetWhatIf { param: "T".into(), ty: Some("".into()) });
        assert!(back.types.assume.subst.is_empty());
        assert_eq!(class(&back, "*Box<T>"), Class::AddressOnly);
        // Another function's `T` is another parameter: the what-if does not follow.
        let other = obj.apply(Action::SelectFunction("instances".into()));
        assert!(other.types.assume.subst.is_empty());
    }

    #[test]
    fn resilience_is_an_assumption_the_user_switches() {
        let s = example("instances");
        let r = s.apply(Action::SetResilient { name: "Box".into(), on: true });
        assert_eq!(class(&r, "Box<Int>"), Class::AddressOnly);
        let a = r.analysis.as_ref().unwrap();
        let why = &a.types(&a.function).row("Box<Int>").unwrap().verdict.why;
        assert!(why.iter().any(|st| st.source == optlab_core::sil::types::Source::Assumption), "{why:?}");
        let off = r.apply(Action::SetResilient { name: "Box".into(), on: false });
        assert_eq!(class(&off, "Box<Int>"), Class::Trivial);
        let ov = s.apply(Action::SetOpaqueValues(Some(true)));
        assert_eq!(ov.types.assume.opaque_values, Some(true));
    }

    #[test]
    fn selecting_revealing_and_inserting_a_stub() {
        let s = example("instances").apply(Action::SelectType(Some("Box<Any>".into())));
        assert_eq!(s.types.row.as_deref(), Some("Box<Any>"));
        let span = optlab_core::Span::new(3, 9);
        let r1 = s.apply(Action::Reveal(span));
        let r2 = r1.apply(Action::Reveal(span));
        assert_eq!(r1.reveal.map(|r| r.span), Some(span));
        assert_ne!(r1.reveal, r2.reveal, "asking twice selects twice");
        let edited = r2.apply(Action::Edit(format!("{}\n", r2.doc.source)));
        assert_eq!(edited.reveal, None, "an edit forgets a span of the old text");
        let t = s.apply(Action::InsertDecl("struct Foo {}".into()));
        assert!(t.doc.source.contains("import Swift\n\nstruct Foo {}\n"), "{}", t.doc.source);
        assert!(t.doc.example.is_none() && t.program.is_some() && !t.is_stale());
        // A new example starts with no assumptions.
        let fresh = s.apply(Action::SetResilient { name: "Box".into(), on: true }).apply(Action::LoadExample("loop".into()));
        assert_eq!(fresh.types, TypesUi::default());
    }

    #[test]
    fn bril_functions_have_trivial_rows_and_no_error() {
        let s = bril(TWO_FUNCS).apply(Action::SelectTab(Tab::TYPES));
        let a = s.analysis.as_ref().expect("analysed");
        let ft = a.types(&a.function);
        assert!(!ft.rows.is_empty());
        assert!(ft.rows.iter().all(|r| r.verdict.class == Class::Trivial));
    }
}

mod ownership {
    use super::*;
    use crate::permalink::{decode, encode};

    fn example(func: &str) -> State {
        State::default()
            .apply(Action::LoadExample("ownership".into()))
            .apply(Action::SelectFunction(func.into()))
            .apply(Action::SelectTab(Tab::OWNERSHIP))
    }

    fn messages(s: &State) -> Vec<&'static str> {
        let o = s.analysis.as_ref().unwrap().ownership.as_ref().unwrap();
        o.verdict.findings.iter().map(|f| f.message).collect()
    }

    #[test]
    fn deleting_a_destroy_leaks_the_copy_and_undoes_as_an_edit() {
        let s = example("copy_diamond").apply(Action::SelectValue(Some("%2".into())));
        assert!(messages(&s).is_empty());
        assert!(s.broken(Break::MoveEndBorrowUp).is_none(), "%2 is no borrow");
        let t = s.apply(Action::BreakIt(Break::DeleteDestroy));
        assert_eq!(t.doc.example, None, "an ordinary edit of the text");
        assert!(!t.doc.source.contains("destroy_value %2"));
        assert_eq!(t.doc.source.lines().count() + 1, s.doc.source.lines().count());
        assert_eq!(messages(&t), ["Error! Found a leak due to a consuming post-dominance failure!"]);
        assert_eq!(t.value.as_deref(), Some("%2"), "the selection survives the edit");
        // An argument's destroy: the owned parameter is then never consumed.
        let a = example("borrow_scope").apply(Action::SelectValue(Some("%0".into()))).apply(Action::BreakIt(Break::DeleteDestroy));
        assert_eq!(messages(&a), ["Owned function parameter without life ending uses!"]);
    }

    #[test]
    fn moving_an_end_borrow_up_puts_the_call_outside_the_scope() {
        let s = example("borrow_scope").apply(Action::SelectValue(Some("%1".into())));
        assert!(s.broken(Break::DeleteDestroy).is_none(), "a borrow is not destroyed");
        let t = s.apply(Action::BreakIt(Break::MoveEndBorrowUp));
        let src = t.doc.source.as_str();
        assert!(src.find("end_borrow %1").unwrap() < src.find("%3 = apply %2(%1)").unwrap(), "{src}");
        assert_eq!(messages(&t), ["Found outside of lifetime use?!"]);
        // While the text has errors nothing is offered (the spans index the old program).
        let stale = t.apply(Action::Edit(format!("{src}\n%%%")));
        assert!(stale.is_stale());
        assert!(stale.broken(Break::DeleteDestroy).is_none());
    }

    #[test]
    fn the_selected_value_survives_a_link_and_resets_with_a_new_function() {
        let s = example("reborrow_phi").apply(Action::SelectValue(Some("%1".into()))).apply(Action::Step(StepCmd::Next));
        let snap = decode(&encode(&s.snapshot()).expect("encodes")).expect("decodes");
        assert_eq!(snap.val.as_deref(), Some("%1"));
        let t = State::default().apply(Action::Restore(Box::new(snap)));
        assert_eq!(t.tab, Tab::OWNERSHIP);
        assert_eq!(t.value.as_deref(), Some("%1"));
        assert_eq!(t.function.as_deref(), Some("reborrow_phi"));
        assert_eq!(t.step(Tab::OWNERSHIP), 1);
        assert_eq!(t.snapshot(), s.snapshot());
        let u = t.apply(Action::SelectFunction("over_consume".into()));
        assert_eq!(u.value, None);
        assert_eq!(u.ownership_value().and_then(|v| u.analysis.as_ref().unwrap().ownership.as_ref().unwrap().fo.value(v).map(|i| i.name.clone())).as_deref(), Some("%1"), "the value of the first finding");
    }
}

/// LCM on SIL in the page: the article's SIL example steps through LCM in its tab, exercise
/// mode hides what each step found, and the export is the table `optlab lcm` prints.
#[test]
fn lcm_on_the_sil_article_steps_hides_results_in_exercise_mode_and_exports() {
    let s = State::default().apply(Action::LoadExample("lcm-article-sil".into()));
    let a = s.analysis.clone().expect("analysed");
    let tab = Tab::pass("lcm");
    let run = a.run("lcm").expect("LCM ran on SIL");
    assert!(matches!(run.outcome, optlab_core::passes::Outcome::Ran), "{:?}", run.outcome);
    assert!(s.step_count(tab) > 7, "every round and step: {}", s.step_count(tab));
    let t = s.apply(Action::SelectTab(tab)).apply(Action::Step(StepCmd::Last));
    assert_eq!(t.step_text(), run.steps.describe(run.steps.len() - 1));
    let e = t.apply(Action::SetExercise(true));
    assert_eq!(e.step_text(), run.steps.headline(run.steps.len() - 1));
    let optlab_core::passes::Detail::Lcm { out, .. } = &run.detail else { panic!("LCM's detail") };
    let expr = out.exprs.iter().next().map(|(_, x)| x.text()).expect("a candidate");
    let md = optlab_core::passes::lcm::report::table(std::slice::from_ref(&**out), optlab_core::passes::lcm::report::TableFormat::Markdown, Some(&expr))
        .expect("a Markdown table");
    assert!(md.contains("| NComp |") && md.contains("sdiv_Int64"), "{md}");
}

/// Runs the job in progress to its end, one [`Action::Advance`] at a time; the number of steps.
fn finish_job(mut s: State) -> (State, usize) {
    let mut n = 0;
    while let Some(id) = s.jobs.current.as_ref().map(|j| j.id) {
        s = s.apply(Action::Advance(id));
        n += 1;
        assert!(n < 10, "a job ends");
    }
    (s, n)
}

#[test]
fn a_sliced_edit_shows_the_last_good_program_until_its_last_step_then_what_an_edit_at_once_shows() {
    let s = State { sliced: true, ..bril(TWO_FUNCS) }.apply(Action::SelectTab(Tab::pass("dce")));
    let good = s.analysis.clone().expect("parses");
    let text = "@main {\n  x: int = const 2;\n  y: int = add x x;\n  print x;\n}\n";
    let t = s.apply(Action::Edit(text.into()));
    assert_eq!(t.doc.source.as_str(), text, "the editor has the text at once");
    assert!(Rc::ptr_eq(t.analysis.as_ref().unwrap(), &good), "not analysed yet");
    let (done, steps) = finish_job(t.clone());
    assert_eq!(steps, 3, "parse, analyse, show");
    let at_once = State { sliced: false, ..s.clone() }.apply(Action::Edit(text.into()));
    let (a, b) = (done.analysis.as_ref().unwrap(), at_once.analysis.as_ref().unwrap());
    assert_eq!(a.function.insts.len(), 3);
    assert_eq!(a.run("dce").unwrap().summary(), b.run("dce").unwrap().summary());
    assert_eq!(done.step_count(done.tab), at_once.step_count(at_once.tab));
    assert_eq!(done.staged.as_ref().unwrap().stages.len(), at_once.staged.as_ref().unwrap().stages.len());

    // A parse error: one step, its marks, the last good program kept.
    let (e, steps) = finish_job(s.apply(Action::Edit("@main {\n  x: int = const;\n}\n".into())));
    assert_eq!(steps, 1);
    assert!(e.is_stale() && e.marks.len() == 1);
    assert!(Rc::ptr_eq(e.analysis.as_ref().unwrap(), &good));
}

#[test]
fn a_newer_edit_cancels_the_older_ones_job() {
    let s = State { sliced: true, ..bril(TWO_FUNCS) };
    let t = s.apply(Action::Edit("@main {\n  print;\n}\n".into()));
    let old = t.jobs.current.as_ref().unwrap().id;
    let t = t.apply(Action::Advance(old)); // parsed: at the analysis step
    let u = t.apply(Action::Edit("@main {\n  x: int = const 5;\n  print x;\n}\n".into()));
    assert_ne!(u.jobs.current.as_ref().unwrap().id, old);
    // The old job's next step does nothing.
    let v = u.apply(Action::Advance(old));
    assert_eq!(v.jobs.current.as_ref().map(|j| (j.id, j.step.index())), u.jobs.current.as_ref().map(|j| (j.id, j.step.index())));
    let (w, _) = finish_job(v);
    assert_eq!(w.analysis.as_ref().unwrap().function.insts.len(), 2);
}

#[test]
fn passes_run_on_first_use_and_each_once() {
    let s = bril(TWO_FUNCS);
    let a = s.analysis.as_ref().unwrap();
    let first: *const _ = a.run("dce").unwrap();
    let mut n = 0;
    while a.run_next_pass() {
        n += 1;
    }
    assert_eq!(n, optlab_core::passes::REGISTRY.len() - 1, "every pass but DCE, which had run");
    assert!(std::ptr::eq(first, a.run("dce").unwrap()), "not run again");
}

#[test]
fn the_pipeline_run_a_stage_at_a_time_is_the_pipeline_run_at_once() {
    let s = bril(TWO_FUNCS).apply(Action::SelectFunction("f".into()));
    let a = s.analysis.as_ref().unwrap();
    let pipeline = Pipeline::default_pipeline();
    let staged = crate::program::Staged::new(a.clone(), pipeline.clone());
    let mut n = 0;
    while staged.run_stage() {
        n += 1;
    }
    assert_eq!(n, pipeline.len());
    let at_once = a.run_pipeline(&pipeline);
    let print = |f: &optlab_core::Function| optlab_core::print::print_function(f, optlab_core::print::Naming::default());
    assert_eq!(staged.run_now().stages.len(), at_once.stages.len());
    for (x, y) in staged.stages.iter().zip(&at_once.stages) {
        assert_eq!(print(&x.function), print(&y.function));
    }
}
