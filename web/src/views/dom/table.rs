//! The Lengauer–Tarjan table (`#lt-table`): one row per vertex — DFS number, DFS parent,
//! semidominator, immediate dominator — as known at the current step, the cell this step
//! filled marked.
//!
//! Rows are computed as plain data ([`rows`], tested natively) and each is its own component,
//! so a step re-renders only the rows it changed: a thousand-block function steps without
//! rebuilding a thousand rows.

use super::decor::Selection;
use optlab_core::dom::replay::{Column, Idom, LtState};
use optlab_core::dom::DomNode;
use optlab_core::Function;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// One row, as shown.
#[derive(Clone, Debug, Default, PartialEq, Properties)]
pub struct Row {
    pub vertex: AttrValue,
    /// The DFS number, `unreachable` once the search is over without reaching the vertex.
    pub dfs: AttrValue,
    pub parent: AttrValue,
    pub sdom: AttrValue,
    /// Where step 2 found the semidominator (the cell's tooltip).
    pub sdom_via: AttrValue,
    /// The final idom, or `= idom(u)` while step 3 has deferred it.
    pub idom: AttrValue,
    pub deferred: bool,
    /// The cell the current step filled.
    pub changed: Option<Column>,
    pub current: bool,
    pub unreached: bool,
    pub selected: bool,
    pub frontier: bool,
}

/// The rows for `order` at the state `st`.
pub fn rows(f: &Function, order: &[DomNode], st: &LtState, sel: &Selection) -> Vec<Row> {
    let name = |n: DomNode| AttrValue::from(n.name(f));
    let changed = st.changed();
    order
        .iter()
        .map(|&v| {
            let facts = st.facts(v);
            let unreached = facts.dfs.is_none() && st.dfs_done();
            let dfs = match facts.dfs {
                Some(k) => AttrValue::from(k.to_string()),
                None if unreached => AttrValue::Static("unreachable"),
                None => AttrValue::default(),
            };
            let (sdom, sdom_via) = match facts.semi {
                Some(s) => (
                    name(s.sdom),
                    AttrValue::from(format!(
                        "found through predecessor {}, EVAL gives {}",
                        s.pred.name(f),
                        s.from.name(f)
                    )),
                ),
                None => Default::default(),
            };
            let (idom, deferred) = match facts.idom {
                Idom::Unknown => (AttrValue::default(), false),
                Idom::SameAs(u) => (AttrValue::from(format!("= idom({})", u.name(f))), true),
                Idom::Final(p) => (name(p), false),
            };
            Row {
                vertex: name(v),
                dfs,
                parent: facts.parent.map(name).unwrap_or_default(),
                sdom,
                sdom_via,
                idom,
                deferred,
                changed: changed.filter(|&(n, _)| n == v).map(|(_, c)| c),
                current: st.current() == Some(v),
                unreached,
                selected: sel.block == Some(v),
                frontier: sel.frontier.contains(&v),
            }
        })
        .collect()
}

#[function_component(LtRow)]
fn lt_row(r: &Row) -> Html {
    let mark = |c: Column| (r.changed == Some(c)).then_some("changed");
    let class = classes!(
        r.current.then_some("current"),
        r.unreached.then_some("unreached"),
        r.selected.then_some("selected"),
        r.frontier.then_some("frontier"),
    );
    html! {
        <tr {class} data-block={r.vertex.clone()}>
            <th scope="row">{ r.vertex.clone() }</th>
            <td class={classes!("dfs", mark(Column::Dfs))}>{ r.dfs.clone() }</td>
            <td class={classes!("parent", mark(Column::Dfs))}>{ r.parent.clone() }</td>
            <td class={classes!("sdom", mark(Column::Sdom))} title={r.sdom_via.clone()}>{ r.sdom.clone() }</td>
            <td class={classes!("idom", r.deferred.then_some("deferred"), mark(Column::Idom))}>{ r.idom.clone() }</td>
        </tr>
    }
}

/// The `data-block` of the row under a click, if any.
pub fn clicked_row(e: &MouseEvent) -> Option<String> {
    let el: web_sys::Element = e.target()?.dyn_into().ok()?;
    el.closest("tr[data-block]").ok()??.get_attribute("data-block")
}

#[derive(Properties, PartialEq)]
pub struct LtTableProps {
    pub rows: Vec<Row>,
    /// A row was clicked: its vertex's name.
    pub onselect: Callback<String>,
}

#[function_component(LtTable)]
pub fn lt_table(props: &LtTableProps) -> Html {
    // One listener for the whole body: the rows stay equal (and are skipped) between steps.
    let onclick = {
        let onselect = props.onselect.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some(id) = clicked_row(&e) {
                onselect.emit(id);
            }
        })
    };
    html! {
        <table id="lt-table" class="lt-table">
            <thead>
                <tr><th scope="col">{ "vertex" }</th><th scope="col">{ "dfs" }</th><th scope="col">{ "parent" }</th>
                    <th scope="col">{ "sdom" }</th><th scope="col">{ "idom" }</th></tr>
            </thead>
            <tbody {onclick}>
                { for props.rows.iter().map(|r| html! { <LtRow key={r.vertex.as_str()} ..r.clone() /> }) }
            </tbody>
        </table>
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{bril, LOOPY};
    use super::*;
    use optlab_core::cfg::Cfg;
    use optlab_core::dom::{DomKind, DomTree};

    fn order(f: &Function, kind: DomKind) -> Vec<DomNode> {
        let exit = (kind == DomKind::PostDominators).then_some(DomNode::VirtualExit);
        exit.into_iter().chain(f.layout.iter().map(|&b| DomNode::Block(b))).collect()
    }

    #[test]
    fn at_step_zero_the_table_is_empty_and_at_the_end_it_is_the_tree() {
        let f = bril(LOOPY);
        let cfg = Cfg::new(&f);
        for kind in [DomKind::Dominators, DomKind::PostDominators] {
            let (tree, events) = DomTree::build_traced(&f, &cfg, kind);
            let order = order(&f, kind);
            let start = rows(&f, &order, &LtState::at(f.blocks.len(), &events, 0), &Selection::default());
            assert_eq!(start.len(), order.len());
            for r in &start {
                assert_eq!((r.dfs.as_str(), r.parent.as_str(), r.sdom.as_str(), r.idom.as_str()), ("", "", "", ""));
                assert!(!r.current && r.changed.is_none());
            }
            let end = rows(&f, &order, &LtState::at(f.blocks.len(), &events, events.len()), &Selection::default());
            for (r, &v) in end.iter().zip(&order) {
                let want = v.block().and_then(|b| tree.parent(b)).map(|p| p.name(&f)).unwrap_or_default();
                assert_eq!(r.idom.as_str(), want, "{kind:?} {}", r.vertex);
                let sdom = v.block().and_then(|b| tree.semidominator(b)).map(|p| p.name(&f)).unwrap_or_default();
                assert_eq!(r.sdom.as_str(), sdom, "{kind:?} {}", r.vertex);
            }
            // The root is numbered 0 and has no parent.
            assert_eq!((end[0].dfs.as_str(), end[0].parent.as_str()), ("0", ""));
        }
    }

    #[test]
    fn the_step_marks_its_row_and_cell_and_unreachable_blocks_say_so() {
        let f = bril(LOOPY);
        let cfg = Cfg::new(&f);
        let (_, events) = DomTree::build_traced(&f, &cfg, DomKind::Dominators);
        let order = order(&f, DomKind::Dominators);
        let k = events.iter().position(|e| matches!(e, optlab_core::dom::DomEvent::Semi { .. })).unwrap() + 1;
        let st = LtState::at(f.blocks.len(), &events, k);
        let sel = Selection { block: Some(order[2]), frontier: vec![order[1]] };
        let rs = rows(&f, &order, &st, &sel);
        let marked: Vec<&Row> = rs.iter().filter(|r| r.changed.is_some()).collect();
        assert_eq!(marked.len(), 1);
        assert_eq!(marked[0].changed, Some(Column::Sdom));
        assert!(marked[0].current && !marked[0].sdom_via.is_empty());
        assert!(rs[2].selected && rs[1].frontier && !rs[0].selected);
        let dead = rs.iter().find(|r| r.vertex == "dead").unwrap();
        assert_eq!(dead.dfs.as_str(), "unreachable");
        assert!(dead.unreached);
    }
}
