//! The predicate table: one row per block of the split function, one column per predicate in
//! the seed's order, `1`/`0` as of the current step (blank: not computed yet), this step's
//! columns and changed cells highlighted. In exercise mode the step's cells are hidden and
//! clickable until the reveal.

use super::equations::tooltip;
use super::exercise::{Guesses, Key, Verdict};
use crate::program::Analysis;
use optlab_core::passes::lcm::{stage_info, Pred, Snapshot, Step};
use optlab_core::BlockId;
use std::collections::HashMap;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq, Clone)]
pub struct TableProps {
    pub analysis: Rc<Analysis>,
    pub snapshot: Rc<Snapshot>,
    /// The trace step being shown (its column group is highlighted).
    pub stage: Option<usize>,
    /// Exercise mode with something to predict at this step.
    pub exercise: bool,
    pub revealed: bool,
    pub guesses: Guesses,
    pub guess_key: Key,
    pub selected: Option<AttrValue>,
    /// A hidden cell was clicked: (row, predicate).
    pub ontoggle: Callback<(usize, Pred)>,
    /// A block's name was clicked.
    pub onselect: Callback<String>,
}

#[function_component(PredTable)]
pub fn pred_table(props: &TableProps) -> Html {
    let Ok(out) = super::output(&props.analysis) else { return html! {} };
    let snap = &props.snapshot;
    let groups = out.trace.steps.iter().enumerate().filter_map(|(i, step)| {
        let info = stage_info(step);
        (!info.preds.is_empty()).then(|| {
            let class = classes!("group", (props.stage == Some(i)).then_some("current"));
            html! {
                <th colspan={info.preds.len().to_string()} {class} title={step.title()}>{ info.number }</th>
            }
        })
    });
    let heads = Pred::ALL.into_iter().map(|p| {
        let class = classes!("pred", snap.current.contains(&p).then_some("current"));
        html! { <th data-pred={p.name()} {class} title={tooltip(p)} scope="col"><span>{ p.name() }</span></th> }
    });
    let edges: HashMap<BlockId, (BlockId, BlockId)> = match out.trace.steps.first() {
        Some(Step::SplitEdges { splits }) => splits.edges.iter().map(|e| (e.block, (e.from, e.to))).collect(),
        _ => HashMap::new(),
    };
    let name_of: HashMap<BlockId, &str> = out.trace.blocks.iter().map(|b| (b.id, b.name.as_str())).collect();
    let name = |b: BlockId| name_of.get(&b).map_or_else(|| b.to_string(), |n| n.to_string());

    let rows = out.trace.blocks.iter().enumerate().map(|(row, b)| {
        let cells = Pred::ALL.into_iter().map(|p| cell(props, row, p));
        let title = match (b.new, edges.get(&b.id), b.reachable) {
            (_, _, false) => "unreachable from the entry: LCM gives it no predicate".to_string(),
            (true, Some(&(from, to)), _) => {
                format!("step 1 put this empty block on the edge {} → {}", name(from), name(to))
            }
            (true, None, _) => "step 1 added this empty start block".to_string(),
            _ => format!("select {} in the graph", b.name),
        };
        let class = classes!(
            b.new.then_some("split"),
            (!b.reachable).then_some("unreachable"),
            (props.selected.as_deref() == Some(b.name.as_str())).then_some("selected")
        );
        let onclick = {
            let (onselect, id) = (props.onselect.clone(), b.name.clone());
            Callback::from(move |_: MouseEvent| onselect.emit(id.clone()))
        };
        html! {
            <tr data-block={b.name.clone()} {class}>
                <th scope="row" {title} {onclick}>{ b.name.clone() }</th>
                { for cells }
            </tr>
        }
    });

    html! {
        <table id="lcm-table" class="lcm-table">
            <thead>
                <tr class="groups"><th class="corner" rowspan="2">{ "block" }</th>{ for groups }</tr>
                <tr class="preds">{ for heads }</tr>
            </thead>
            <tbody>{ for rows }</tbody>
        </table>
    }
}

fn cell(props: &TableProps, row: usize, p: Pred) -> Html {
    let snap = &props.snapshot;
    let c = snap.cell(row, p);
    let in_play = props.exercise && snap.is_current(row, p);
    let guessed = props.guesses.guessed(props.guess_key, row, p);
    let current = snap.current.contains(&p).then_some("current");
    if in_play && !props.revealed {
        let toggle = {
            let ontoggle = props.ontoggle.clone();
            move || ontoggle.emit((row, p))
        };
        let onclick = {
            let toggle = toggle.clone();
            Callback::from(move |_: MouseEvent| toggle())
        };
        let onkeydown = Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" || e.key() == " " {
                e.prevent_default();
                toggle();
            }
        });
        let class = classes!("hidden", guessed.then_some("guess"), current);
        let label = format!("{p}: predict {}", if guessed { "false" } else { "true" });
        return html! {
            <td data-pred={p.name()} {class} role="button" tabindex="0" aria-label={label} {onclick} {onkeydown}>
                { if guessed { "1" } else { "?" } }
            </td>
        };
    }
    let Some(v) = c.value else {
        return html! { <td data-pred={p.name()} class={classes!("blank", current)} /> };
    };
    let verdict = in_play.then(|| Verdict::of(guessed, v).class());
    let class = classes!(if v { "on" } else { "off" }, c.changed.then_some("changed"), current, verdict);
    html! { <td data-pred={p.name()} {class}>{ if v { "1" } else { "0" } }</td> }
}
