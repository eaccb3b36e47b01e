//! The program at a step: core's printed lines ([`function_lines`]) of core's replay
//! ([`replay_to`]) of the events shown, each line tagged with its instruction so that a click
//! selects it. Marks: the instruction of the step's event (`current`), operands that earlier
//! rewrites changed (`rewritten`), and a copy deleted at this step, still shown struck out
//! (`deleted`); from the next step on it is gone.

use super::step::At;
use optlab_core::passes::copyprop::{replay_to, Event, Trace};
use optlab_core::print::{function_lines, Naming};
use optlab_core::{Function, InstId};
use std::collections::BTreeMap;
use yew::prelude::*;

/// A piece of a line: plain text, or an operand a rewrite changed (`was`: what it read
/// before).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    pub text: String,
    pub was: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeLine {
    pub pieces: Vec<Piece>,
    /// The instruction the line shows (`None`: the signature, a label, the closing brace).
    pub inst: Option<InstId>,
    /// The step's event is about this instruction.
    pub current: bool,
    /// This step deletes it.
    pub deleted: bool,
}

impl CodeLine {
    pub fn text(&self) -> String {
        self.pieces.iter().map(|p| p.text.as_str()).collect()
    }

    pub fn rewritten(&self) -> bool {
        self.pieces.iter().any(|p| p.was.is_some())
    }

    fn plain(text: String, inst: Option<InstId>) -> CodeLine {
        CodeLine { pieces: vec![Piece { text, was: None }], inst, current: false, deleted: false }
    }
}

/// The lines at step position `at`. `original` is the function the pass ran on. With
/// `hide_current` (exercise mode before "Show"), the step's own event is not applied yet:
/// the line is marked current, the student predicts what happens to it.
pub fn lines(original: &Function, trace: &Trace, at: At, hide_current: bool) -> Vec<CodeLine> {
    let current = at.event().and_then(|i| trace.events.get(i).map(|e| (i, e)));
    // How many events the printed program has; a deletion is shown before it applies.
    let applied = match current {
        None => 0,
        Some((i, _)) if hide_current => i,
        Some((i, Event::Delete { .. })) => i,
        // A rewrite or a recomputation is shown done, on the line it changed.
        Some((i, Event::Rewrite { .. } | Event::Rematerialize { .. })) => i + 1,
    };
    let g = replay_to(original, trace, applied);
    // (instruction, operand) → the name it read before.
    let mut was: BTreeMap<(InstId, usize), String> = BTreeMap::new();
    for e in trace.events.iter().take(applied) {
        if let Event::Rewrite { inst, operand, from, .. } = e {
            was.entry((*inst, *operand as usize)).or_insert_with(|| original.value_name(*from).to_string());
        }
    }
    let (current_inst, deleting) = match current {
        Some((_, Event::Rewrite { inst, .. } | Event::Rematerialize { inst, .. })) => (Some(*inst), false),
        Some((_, Event::Delete { inst, .. })) => (Some(*inst), !hide_current),
        None => (None, false),
    };

    let printed = function_lines(&g, Naming::User);
    let mut out: Vec<CodeLine> = printed.head.iter().map(|h| CodeLine::plain(h.clone(), None)).collect();
    for line in printed.blocks.iter().flat_map(|b| &b.lines) {
        let inst = line.inst();
        let mut l = match inst {
            Some(i) => CodeLine { pieces: pieces(&g, i, &line.text, &was), inst, current: false, deleted: false },
            None => CodeLine::plain(line.text.clone(), None),
        };
        if inst.is_some() && inst == current_inst {
            l.current = true;
            l.deleted = deleting;
        }
        out.push(l);
    }
    out.extend(printed.tail.iter().map(|t| CodeLine::plain(t.clone(), None)));
    out
}

/// Splits an instruction's printed line so that its rewritten operands are pieces of their
/// own. A Bril line ends `… args .labels;` and names cannot hold blanks, so the operands are
/// the words before the labels; a line that does not read so stays whole.
fn pieces(g: &Function, i: InstId, text: &str, was: &BTreeMap<(InstId, usize), String>) -> Vec<Piece> {
    let whole = || vec![Piece { text: text.to_string(), was: None }];
    let Some(inst) = g.insts.get(i) else { return whole() };
    let marked: Vec<(usize, &String)> = (0..inst.args.len()).filter_map(|k| was.get(&(i, k)).map(|w| (k, w))).collect();
    if marked.is_empty() {
        return whole();
    }
    let body = text.strip_suffix(';').unwrap_or(text);
    // Byte ranges of the words of `body`.
    let mut words: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (p, c) in body.char_indices().chain(std::iter::once((body.len(), ' '))) {
        match (c == ' ', start) {
            (true, Some(s)) => {
                words.push((s, p));
                start = None;
            }
            (false, None) => start = Some(p),
            _ => {}
        }
    }
    let tail = inst.args.len() + inst.succs.len();
    let Some(first_arg) = words.len().checked_sub(tail) else { return whole() };
    let mut out = Vec::new();
    let mut pos = 0;
    for (k, w) in marked {
        let (s, e) = words[first_arg + k];
        if &body[s..e] != g.value_name(inst.args[k]) {
            return whole();
        }
        out.push(Piece { text: text[pos..s].to_string(), was: None });
        out.push(Piece { text: text[s..e].to_string(), was: Some(w.clone()) });
        pos = e;
    }
    out.push(Piece { text: text[pos..].to_string(), was: None });
    out.retain(|p| !p.text.is_empty());
    out
}

/// The listing. Instruction lines are focusable; a click or Enter selects the instruction
/// (`onselect`), again deselects it.
pub fn code_html(lines: &[CodeLine], selected: Option<InstId>, onselect: &Callback<Option<InstId>>) -> Html {
    let items = lines.iter().map(|l| {
        let content = l.pieces.iter().map(|p| match &p.was {
            None => html! { { p.text.clone() } },
            Some(w) => html! { <span class="rewritten" title={format!("was {w}")}>{ p.text.clone() }</span> },
        });
        let content = if l.deleted { html! { <del>{ for content }</del> } } else { html! { { for content } } };
        let Some(i) = l.inst else {
            return html! { <li class="cp-line" role="presentation"><code>{ content }</code></li> };
        };
        let is_selected = selected == Some(i);
        let class = classes!(
            "cp-line",
            "inst",
            l.current.then_some("current"),
            l.deleted.then_some("deleted"),
            l.rewritten().then_some("rewritten"),
            is_selected.then_some("selected")
        );
        let pick = {
            let onselect = onselect.clone();
            move || onselect.emit((!is_selected).then_some(i))
        };
        let onclick = {
            let pick = pick.clone();
            Callback::from(move |_: MouseEvent| pick())
        };
        let onkeydown = Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" || e.key() == " " {
                e.prevent_default();
                pick();
            }
        });
        html! {
            <li {class} tabindex="0" data-inst={i.to_string()} aria-current={l.current.then_some("step")}
                aria-selected={is_selected.to_string()} role="option" {onclick} {onkeydown}>
                <code>{ content }</code>
            </li>
        }
    });
    html! {
        <ol class="cp-code" id="cp-code" role="listbox" aria-label="The program at this step; Enter selects an instruction">
            { for items }
        </ol>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::copyprop::fixture::{first_event_step, fixture, TEACH};
    use optlab_core::print::print_function;

    fn texts(ls: &[CodeLine]) -> String {
        ls.iter().map(|l| l.text() + "\n").collect()
    }

    #[test]
    fn before_the_events_the_program_is_the_original() {
        let fx = fixture(TEACH);
        let t = &fx.out().trace;
        for k in 0..first_event_step(&fx) {
            let ls = lines(&fx.original, t, At::of(t, k), false);
            assert_eq!(texts(&ls), print_function(&fx.original, Naming::User), "step {k}");
            assert!(ls.iter().all(|l| !l.current && !l.deleted && !l.rewritten()));
        }
    }

    #[test]
    fn the_last_step_prints_the_passs_output() {
        let fx = fixture(TEACH);
        let t = &fx.out().trace;
        let last = At::of(t, fx.run.steps.len() - 1);
        let ls = lines(&fx.original, t, last, false);
        let mut text = texts(&ls);
        // The last event may be a deletion, shown struck out at its step.
        if let Some(l) = ls.iter().find(|l| l.deleted) {
            text = text.replace(&(l.text() + "\n"), "");
        }
        assert_eq!(text, print_function(&fx.run.function, Naming::User));
    }

    #[test]
    fn a_rewrite_marks_its_operand_and_keeps_it_marked() {
        let fx = fixture(TEACH);
        let t = &fx.out().trace;
        let s = first_event_step(&fx);
        let Event::Rewrite { inst, .. } = &t.events[0] else { panic!("rewrites come first") };
        let ls = lines(&fx.original, t, At::of(t, s), false);
        let l = ls.iter().find(|l| l.inst == Some(*inst)).unwrap();
        assert!(l.current && l.rewritten() && !l.deleted);
        assert_eq!(l.text(), "  c: int = id a;", "the chain's second copy reads the root");
        let op: Vec<&Piece> = l.pieces.iter().filter(|p| p.was.is_some()).collect();
        assert_eq!((op[0].text.as_str(), op[0].was.as_deref()), ("a", Some("b")));
        let later = lines(&fx.original, t, At::of(t, s + 1), false);
        let l = later.iter().find(|l| l.inst == Some(*inst)).unwrap();
        assert!(!l.current && l.rewritten(), "still marked after its step");
        // Exercise mode before "Show": the line is current but not yet rewritten.
        let hidden = lines(&fx.original, t, At::of(t, s), true);
        let l = hidden.iter().find(|l| l.inst == Some(*inst)).unwrap();
        assert!(l.current && !l.rewritten());
        assert_eq!(l.text(), "  c: int = id b;");
    }

    #[test]
    fn a_deleted_copy_is_struck_out_at_its_step_then_gone() {
        let fx = fixture(TEACH);
        let t = &fx.out().trace;
        let (i, inst) = t
            .events
            .iter()
            .enumerate()
            .find_map(|(i, e)| match e {
                Event::Delete { inst, .. } => Some((i, *inst)),
                _ => None,
            })
            .expect("a deletion");
        let at = At::Event(i);
        let ls = lines(&fx.original, t, at, false);
        let l = ls.iter().find(|l| l.inst == Some(inst)).unwrap();
        assert!(l.current && l.deleted);
        let hidden = lines(&fx.original, t, at, true);
        assert!(hidden.iter().any(|l| l.inst == Some(inst) && l.current && !l.deleted));
        if i + 1 < t.events.len() {
            let next = lines(&fx.original, t, At::Event(i + 1), false);
            assert!(next.iter().all(|l| l.inst != Some(inst)), "gone after its step");
        }
    }

    #[test]
    fn operands_are_found_among_labels_and_calls() {
        // `br c .yes .no` and a call's arguments: the operand is the word before the labels.
        let src = "@main {\n  t: bool = const true;\n  c: bool = id t;\n  br c .yes .no;\n.yes:\n  print c;\n.no:\n  ret;\n}\n";
        let fx = fixture(src);
        let t = &fx.out().trace;
        let ls = lines(&fx.original, t, At::Event(t.events.len() - 1), false);
        let br = ls.iter().find(|l| l.text().contains("br ")).unwrap();
        assert_eq!(br.text(), "  br t .yes .no;");
        let marked: Vec<&str> = br.pieces.iter().filter(|p| p.was.is_some()).map(|p| p.text.as_str()).collect();
        assert_eq!(marked, ["t"]);
        let printed = ls.iter().find(|l| l.text().contains("print")).unwrap();
        assert_eq!(printed.pieces.last().map(|p| p.text.as_str()), Some(";"));
    }
}
