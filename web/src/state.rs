//! The app's state and every change to it, as a pure reducer (no DOM, testable natively).
//! Components only render a [`State`] and dispatch [`Action`]s.

use crate::cfg_graph::cfg_graph;
use crate::examples::{Example, EXAMPLES};
use crate::graph_svg::{render_svg, Style};
use optlab_core::{parse_module, Lang, SourceFile};
use std::rc::Rc;
use yew::{AttrValue, Reducible};

/// What the graph pane shows.
#[derive(Clone, Debug, PartialEq)]
pub enum View {
    /// The CFG of `function`, as a standalone `<svg>`.
    Cfg { function: AttrValue, blocks: usize, svg: AttrValue },
    /// Parse errors, rendered `file:line:col: error: …` with the line and a caret.
    Error(AttrValue),
    /// Nothing to draw (e.g. no function with a body).
    Empty(AttrValue),
}

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub lang: Lang,
    /// File name used in error messages.
    pub file: AttrValue,
    pub source: AttrValue,
    /// Index into [`EXAMPLES`] of the example last loaded.
    pub example: Option<usize>,
    pub view: View,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// The editor's text changed.
    Edit(String),
    /// Load example `i` of [`EXAMPLES`].
    LoadExample(usize),
}

impl Default for State {
    fn default() -> State {
        State::from_example(0)
    }
}

impl State {
    pub fn from_example(i: usize) -> State {
        let ex: &Example = &EXAMPLES[i];
        State::new(ex.lang, ex.file, ex.text).with_example(Some(i))
    }

    pub fn new(lang: Lang, file: &str, source: &str) -> State {
        State {
            lang,
            file: AttrValue::from(file.to_string()),
            view: view_for(lang, file, source),
            source: AttrValue::from(source.to_string()),
            example: None,
        }
    }

    fn with_example(mut self, example: Option<usize>) -> State {
        self.example = example;
        self
    }

    /// The state after `action`.
    pub fn apply(&self, action: Action) -> State {
        match action {
            Action::Edit(text) => {
                if text == self.source.as_str() {
                    return self.clone();
                }
                State::new(self.lang, &self.file, &text).with_example(self.example)
            }
            Action::LoadExample(i) if i < EXAMPLES.len() => State::from_example(i),
            Action::LoadExample(_) => self.clone(),
        }
    }
}

impl Reducible for State {
    type Action = Action;
    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(self.apply(action))
    }
}

/// Parses `source` and draws the CFG of its first function with a body.
pub fn view_for(lang: Lang, file: &str, source: &str) -> View {
    let module = match parse_module(lang, file, source) {
        Ok(m) => m,
        Err(diags) => {
            let text = diags.render(&SourceFile::new(file, source));
            let text = if text.is_empty() { format!("{file}: could not parse") } else { text };
            return View::Error(text.into());
        }
    };
    let Some(f) = module.bodies().next() else {
        return View::Empty("no function with a body".into());
    };
    let graph = cfg_graph(f);
    let style = Style { id_prefix: "cfg".into(), ..Style::default() };
    View::Cfg { function: f.name.clone().into(), blocks: graph.nodes.len(), svg: render_svg(&graph, &style).into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parse_error_is_shown_as_text() {
        let s = State::new(Lang::Bril, "bad.bril", "@main { x: int = ; ");
        match &s.view {
            View::Error(msg) => assert!(msg.contains("bad.bril"), "{msg}"),
            v => panic!("expected an error, got {v:?}"),
        }
    }

    #[test]
    fn every_example_draws_the_cfg_of_its_first_function() {
        for (i, ex) in EXAMPLES.iter().enumerate() {
            let s = State::from_example(i);
            let View::Cfg { function, blocks, svg } = &s.view else {
                panic!("{}: {:?}", ex.file, s.view);
            };
            assert_eq!(function, "main");
            assert_eq!(svg.matches("<g class=\"node\"").count(), *blocks);
        }
        let View::Cfg { svg, .. } = State::default().view else { unreachable!() };
        for block in ["entry", "loop", "body", "odd", "next", "done"] {
            assert!(svg.contains(&format!(">{block}</text>")), "{block}");
        }
        assert!(svg.contains("br cond .body .done;"));
    }

    #[test]
    fn editing_to_the_same_text_keeps_the_state() {
        let s = State::new(Lang::Bril, "x.bril", "junk");
        assert_eq!(s.apply(Action::Edit("junk".into())), s);
        let t = s.apply(Action::Edit("more junk".into()));
        assert_eq!(t.source, "more junk");
    }

    #[test]
    fn loading_an_example_replaces_the_source() {
        let s = State::new(Lang::Bril, "x.bril", "junk");
        let t = s.apply(Action::LoadExample(0));
        assert_eq!(t.source, EXAMPLES[0].text);
        assert_eq!(t.example, Some(0));
        assert_eq!(t.apply(Action::LoadExample(usize::MAX)), t);
    }
}
