//! The Lengauer–Tarjan table (`#dom-lt-table`, `#pdom-lt-table`): one row per vertex — DFS number, DFS parent,
//! semidominator, immediate dominator — as known at the current step, the cell this step
//! filled marked.
//!
//! Rows are computed as plain data ([`rows`], tested natively) and each is its own component,
//! so a step re-renders only the rows it changed: a thousand-block function steps without
//! rebuilding a thousand rows. A table longer than [`crate::views::rows::ALL_ROWS`] is drawn
//! a window at a time (only the rows its pane shows and some around them are in the page).

use super::decor::Selection;
use crate::views::rows::{spacer, use_reveal, use_row_window};
use optlab_core::dom::replay::{Column, Idom, LtState};
use optlab_core::dom::DomNode;
use optlab_core::Function;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// One row, as shown.
#[derive(Clone, Debug, Default, PartialEq)]
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

#[derive(Properties, PartialEq)]
struct LtRowProps {
    row: Row,
    /// `aria-rowindex`: the row's place in the whole table (the header is 1), which a screen
    /// reader needs when only some rows are in the page.
    index: usize,
}

#[function_component(LtRow)]
fn lt_row(props: &LtRowProps) -> Html {
    let r = &props.row;
    let mark = |c: Column| (r.changed == Some(c)).then_some("changed");
    let class = classes!(
        r.current.then_some("current"),
        r.unreached.then_some("unreached"),
        r.selected.then_some("selected"),
        r.frontier.then_some("frontier"),
    );
    html! {
        <tr {class} data-block={r.vertex.clone()} aria-rowindex={props.index.to_string()}>
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
    /// The table's id: `<tab>-lt-table`, one per view, so that the Dominators and
    /// Post-dominators views can both stay in the page (web/src/views/keep.rs).
    pub id: AttrValue,
}

/// The widest text each column can hold at any step, in characters (a cell holds a vertex's
/// name, a DFS number or `unreachable`, or `= idom(name)`): a table drawn a window at a time
/// sets its columns this wide, so they keep their width as it scrolls and steps.
pub fn column_chars(rows: &[Row]) -> [usize; 5] {
    let name = rows.iter().map(|r| r.vertex.chars().count()).max().unwrap_or(0);
    let digits = rows.len().max(1).ilog10() as usize + 1;
    [
        name.max("vertex".len()),
        digits.max("unreachable".len()),
        name.max("parent".len()),
        name.max("sdom".len()),
        (name + "= idom()".len()).max("idom".len()),
    ]
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
    // A long table is drawn a window at a time (crate::views::rows): rows as the pane
    // scrolls to them, spacers for the others.
    let n = props.rows.len();
    let body = use_node_ref();
    let (win, row_px) = use_row_window(n, body.clone());
    let widths = win.partial(n).then(|| column_chars(&props.rows));
    use_reveal(props.rows.iter().position(|r| r.selected), row_px, body.clone());
    let head = |k: usize, name: &'static str| {
        let style = widths.as_ref().map(|w| format!("width: {}ch", w[k]));
        html! { <th scope="col" {style}>{ name }</th> }
    };
    html! {
        <table id={props.id.clone()} class="lt-table lt-steps" aria-rowcount={(n + 1).to_string()}>
            <thead>
                <tr aria-rowindex="1">{ head(0, "vertex") }{ head(1, "dfs") }{ head(2, "parent") }
                    { head(3, "sdom") }{ head(4, "idom") }</tr>
            </thead>
            <tbody {onclick} ref={body}>
                { spacer(win.start, row_px, 5) }
                { for props.rows[win.start..win.end].iter().enumerate().map(|(i, r)| html! {
                    <LtRow key={r.vertex.as_str()} index={win.start + i + 2} row={r.clone()} />
                }) }
                { spacer(n - win.end, row_px, 5) }
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
