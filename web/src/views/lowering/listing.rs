//! A function's printed SIL (core's [`function_lines`], user names), coloured by the editor's
//! highlighter, with a class on the lines of chosen instructions: the before/after panes of
//! the AddressLowering view and the input and output of the copy elimination view.

use crate::highlight::line_html;
use optlab_core::print::{function_lines, Naming};
use optlab_core::{Function, InstId};
use std::collections::BTreeMap;
use yew::prelude::*;

/// One printed line: its text, the instruction it shows, the class it gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub inst: Option<InstId>,
    /// The block the line is in, by name (`None`: the signature and the closing line).
    pub block: Option<String>,
    pub class: String,
}

/// Marks the lines of block `block` whose text (without indentation) is one of `texts`: the
/// lines a rewrite produced, found in the printed lowered function.
pub fn mark_texts(lines: &mut [Line], block: &str, texts: &[String], class: &str) {
    for l in lines.iter_mut().filter(|l| l.block.as_deref() == Some(block)) {
        if texts.iter().any(|t| t.trim() == l.text.trim()) {
            if !l.class.is_empty() {
                l.class.push(' ');
            }
            l.class.push_str(class);
        }
    }
}

/// The lines of `f`, with `marks` (instruction → classes) applied.
pub fn lines(f: &Function, marks: &BTreeMap<InstId, String>) -> Vec<Line> {
    let printed = function_lines(f, Naming::User);
    let plain = |text: &String| Line { text: text.clone(), inst: None, block: None, class: String::new() };
    let mut out: Vec<Line> = printed.head.iter().map(plain).collect();
    for b in &printed.blocks {
        let name = f.block_name(b.block);
        for l in &b.lines {
            let inst = l.inst();
            let class = inst.and_then(|i| marks.get(&i)).cloned().unwrap_or_default();
            out.push(Line { text: l.text.clone(), inst, block: Some(name.clone()), class });
        }
    }
    out.extend(printed.tail.iter().map(plain));
    out
}

/// The listing as a labelled `<pre>`; marked lines carry `data-inst` and their classes.
pub fn listing_html(lines: &[Line], label: &str, class: &'static str) -> Html {
    let body = lines.iter().map(|l| {
        let code = Html::from_html_unchecked(AttrValue::from(line_html(optlab_core::Lang::Sil, &l.text, &[])));
        html! {
            <span class={classes!("lw-line", (!l.class.is_empty()).then(|| l.class.clone()))}
                data-inst={l.inst.map(|i| i.to_string())}>{ code }{ "\n" }</span>
        }
    });
    html! {
        <pre class={classes!("lw-listing", class)} aria-label={label.to_string()} tabindex="0"><code>{ for body }</code></pre>
    }
}

/// Text with `code` spans between backticks, as core's sentences write instructions.
pub fn rich(text: &str) -> Html {
    html! {
        { for text.split('`').enumerate().map(|(k, part)| {
            if k % 2 == 1 { html! { <code>{ part.to_string() }</code> } } else { html! { { part.to_string() } } }
        }) }
    }
}

/// The block holding instruction `i` in `f`'s layout, by name.
pub fn block_of(f: &Function, i: InstId) -> Option<String> {
    f.layout.iter().find(|&&b| f.blocks[b].all_insts().any(|x| x == i)).map(|&b| f.block_name(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::lowering::fixture::state;

    #[test]
    fn a_rewrites_new_lines_are_found_in_the_lowered_function() {
        let s = state("identity", "identity_opaque");
        let a = s.analysis.as_ref().unwrap();
        let out = &a.run("address-lowering").unwrap().function;
        let mut ls = lines(out, &BTreeMap::new());
        assert_eq!(ls.iter().map(|l| l.text.clone() + "\n").collect::<String>(), optlab_core::print::print_function(out, Naming::User));
        let copy = vec!["copy_addr %0 to [init] %out0 : $*T".to_string()];
        mark_texts(&mut ls, "bb1", &copy, "x");
        assert!(ls.iter().all(|l| l.class.is_empty()), "another block: nothing marked");
        mark_texts(&mut ls, "bb0", &copy, "x");
        let marked: Vec<&str> = ls.iter().filter(|l| l.class == "x").map(|l| l.text.trim()).collect();
        assert_eq!(marked, ["copy_addr %0 to [init] %out0 : $*T"]);
    }
}
