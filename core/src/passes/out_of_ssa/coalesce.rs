//! Coalescing the copies the isolation made, then naming each class and deleting the copies
//! that became `x = id x`.

use super::interfere;
use super::isolate::Made;
use super::trace::{apply_event, Conflict, Event, Trace};
use crate::cfg::Cfg;
use crate::dom::{DomTree, LoopForest};
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BrilOp, Function, Name, Op, ValueId};
use std::collections::HashMap;

pub struct Coalesced {
    /// Copies deleted.
    pub deleted: usize,
}

/// What a name would be without the versions SSA construction and isolation give it:
/// `i.2` → `i`, `x.in` → `x`.
fn base_name(name: &str) -> &str {
    let mut s = name;
    loop {
        let Some((head, tail)) = s.rsplit_once('.') else { return s };
        if head.is_empty() || !(tail == "in" || (!tail.is_empty() && tail.bytes().all(|c| c.is_ascii_digit()))) {
            return s;
        }
        s = head;
    }
}

/// `cfg` and `dom` are those of `g` (of the input: isolation adds no edge).
pub fn coalesce(g: &mut Function, cfg: &Cfg, dom: &DomTree, made: &[Made], trace: &mut Trace) -> Coalesced {
    if made.is_empty() {
        return Coalesced { deleted: 0 };
    }
    let n = g.values.len();
    let mut vars: Vec<ValueId> = Vec::new();
    let mut seen = EntitySet::<ValueId>::new_empty(n);
    for m in made {
        for v in [m.dest, m.src] {
            if v.index() < n && seen.insert(v) {
                vars.push(v);
            }
        }
    }
    let edges = interfere::graph(g, cfg, &vars);

    // Innermost loops first: a copy there runs most often. Then program order.
    let depth = LoopForest::new(g, cfg, dom).depth;
    let mut order: Vec<usize> = (0..made.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(depth.get(made[k].block).copied().unwrap_or(0)));

    // Union-find over values, with each root's members.
    let mut parent: EntityVec<ValueId, ValueId> = EntityVec::filled(n, ValueId(0));
    for v in parent.keys() {
        parent[v] = v;
    }
    let mut members: HashMap<ValueId, Vec<ValueId>> = HashMap::new();
    fn find(parent: &mut EntityVec<ValueId, ValueId>, mut v: ValueId) -> ValueId {
        while parent[v] != v {
            let up = parent[parent[v]];
            parent[v] = up;
            v = up;
        }
        v
    }
    // Each variable's interference neighbours, so that a merge is checked from the smaller
    // class's edges (not every pair of members): merging by size, the whole coalescing costs
    // about the interference graph's size, where pairs of members were quadratic in a class
    // that many φs of one variable build up.
    let mut adj: HashMap<ValueId, Vec<(ValueId, interfere::Witness)>> = HashMap::new();
    for (&(x, y), &w) in &edges {
        adj.entry(x).or_default().push((y, w));
        adj.entry(y).or_default().push((x, w));
    }
    // The graph is a hash map: sorted, the conflict a step reports does not vary from run to run.
    for list in adj.values_mut() {
        list.sort_by_key(|&(y, _)| y);
    }
    // Parameters per class root.
    let mut param_of: HashMap<ValueId, ValueId> = g.params.iter().map(|&p| (p, p)).collect();
    for k in order {
        let m = made[k];
        if m.dest.index() >= n || m.src.index() >= n {
            continue;
        }
        let (a, b) = (find(&mut parent, m.dest), find(&mut parent, m.src));
        if a == b {
            trace.events.push(Event::Coalesce { copy: m.inst, dest: m.dest, src: m.src, conflict: None, merged: false });
            continue;
        }
        let size = |r: ValueId, members: &HashMap<ValueId, Vec<ValueId>>| members.get(&r).map_or(1, Vec::len);
        let (small, large) = if size(a, &members) <= size(b, &members) { (a, b) } else { (b, a) };
        let mut conflict = None;
        if let (Some(&x), Some(&y)) = (param_of.get(&a), param_of.get(&b)) {
            conflict = Some(Conflict::TwoParams { a: x, b: y });
        }
        if conflict.is_none() {
            let small_members = members.get(&small).cloned().unwrap_or_else(|| vec![small]);
            'edges: for x in small_members {
                for &(y, (defined, live, at)) in adj.get(&x).map_or(&[][..], Vec::as_slice) {
                    if find(&mut parent, y) == large {
                        conflict = Some(Conflict::Interfere { defined, live, at });
                        break 'edges;
                    }
                }
            }
        }
        let merged = conflict.is_none();
        if merged {
            parent[small] = large;
            let moved = members.remove(&small).unwrap_or_else(|| vec![small]);
            members.entry(large).or_insert_with(|| vec![large]).extend(moved);
            if let Some(p) = param_of.remove(&small) {
                param_of.insert(large, p);
            }
        }
        trace.events.push(Event::Coalesce { copy: m.inst, dest: m.dest, src: m.src, conflict, merged });
    }

    // Names: a class may take a name no value outside it has and no earlier class took.
    let mut classes: Vec<Vec<ValueId>> = members.into_values().filter(|c| c.len() > 1).collect();
    for c in &mut classes {
        c.sort();
    }
    classes.sort();
    let mut owner: HashMap<Name, Option<usize>> = HashMap::new();
    let mut in_class: EntityVec<ValueId, u32> = EntityVec::filled(n, u32::MAX);
    for (k, c) in classes.iter().enumerate() {
        for &v in c {
            in_class[v] = k as u32;
        }
    }
    // The names the program shows: values no placed instruction or parameter mentions (a
    // variable SSA construction renamed away) do not hold on to theirs.
    let mut shown = EntitySet::<ValueId>::new_empty(n);
    for &p in &g.params {
        if p.index() < n {
            shown.insert(p);
        }
    }
    for (_, i) in g.placed_insts() {
        for v in g.insts[i].uses().chain(g.insts[i].results.iter().copied()) {
            if v.index() < n {
                shown.insert(v);
            }
        }
    }
    for (v, d) in g.values.iter() {
        if !shown.contains(v) {
            continue;
        }
        let o = (in_class[v] != u32::MAX).then_some(in_class[v] as usize);
        owner.entry(d.name.clone()).and_modify(|x| *x = if *x == o { o } else { None }).or_insert(o);
    }
    let mut map = Vec::new();
    let mut names = Vec::new();
    for (k, c) in classes.iter().enumerate() {
        let free = |name: &str, owner: &HashMap<Name, Option<usize>>| match owner.get(name) {
            None => true,
            Some(o) => *o == Some(k),
        };
        let mut candidates: Vec<Name> = Vec::new();
        if let Some(p) = c.iter().copied().find(|v| g.params.contains(v)) {
            candidates.push(g.values[p].name.clone());
        } else {
            let mut bases: Vec<(usize, Name)> = Vec::new();
            for &v in c {
                let b: Name = base_name(&g.values[v].name).into();
                match bases.iter_mut().find(|(_, x)| *x == b) {
                    Some(e) => e.0 += 1,
                    None => bases.push((1, b)),
                }
            }
            bases.sort_by_key(|b| std::cmp::Reverse(b.0));
            candidates.extend(bases.into_iter().map(|(_, b)| b));
            let mut own: Vec<Name> = c.iter().map(|&v| g.values[v].name.clone()).collect();
            own.sort_by_key(|s| (s.len(), s.clone()));
            candidates.extend(own);
        }
        let name = candidates.iter().find(|s| free(s, &owner)).cloned().unwrap_or_else(|| g.values[c[0]].name.clone());
        owner.insert(name.clone(), Some(k));
        let rep = c.iter().copied().find(|&v| g.values[v].name == name).unwrap_or(c[0]);
        for &v in c {
            if v != rep {
                map.push((v, rep));
            }
        }
        if g.values[rep].name != name {
            names.push((rep, name));
        }
    }
    if !map.is_empty() || !names.is_empty() {
        let e = Event::Rename { map, names };
        let _ = apply_event(g, &e);
        trace.events.push(e);
    }
    let dead: Vec<_> = made
        .iter()
        .map(|m| m.inst)
        .filter(|&i| {
            let inst = &g.insts[i];
            inst.op == Op::Bril(BrilOp::Id) && inst.args.len() == 1 && inst.results.first() == inst.args.first()
        })
        .collect();
    let deleted = dead.len();
    if !dead.is_empty() {
        let e = Event::Delete { insts: dead };
        let _ = apply_event(g, &e);
        trace.events.push(e);
    }
    Coalesced { deleted }
}
