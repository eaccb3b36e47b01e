//! What each step of the AddressLowering view shows, as plain data: the phase of a step, the
//! rows of step 1's table, step 2's storage tree and the `alloc_stack`s on the lowered CFG,
//! step 3's side-by-side rows. No DOM here; the view renders these.

use crate::cfg_graph::CfgGraph;
use crate::graph::{Badge, Decor};
use optlab_core::passes::address_lowering::{rewrite_at_step, step_of_rewrite};
use crate::program::Analysis;
use optlab_core::sil::lowering::{lower, Lowering, Storage};
use optlab_core::{Function, InstId, ValueId};
use std::collections::{BTreeMap, BTreeSet};

/// The phase a step of the step bar is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Step 1: which values are opaque, in reverse postorder.
    Assignment,
    /// Step 2: where each one lives.
    Allocation,
    /// Step 3: rewrite `k` of `Lowering::rewrites` (a changed line).
    Rewrite(usize),
}

impl Phase {
    /// The phase of step `k` (a step past the last one shows the last rewrite).
    pub fn of(l: &Lowering, k: usize) -> Phase {
        match k {
            0 => Phase::Assignment,
            1 => Phase::Allocation,
            _ => match rewrite_at_step(l, k).or_else(|| last_rewrite(l)) {
                Some(r) => Phase::Rewrite(r),
                None => Phase::Allocation,
            },
        }
    }

    /// 1, 2 or 3: the pass's own numbering of its steps.
    pub fn number(self) -> usize {
        match self {
            Phase::Assignment => 1,
            Phase::Allocation => 2,
            Phase::Rewrite(_) => 3,
        }
    }
}

fn last_rewrite(l: &Lowering) -> Option<usize> {
    (0..l.rewrites.len()).rev().find(|&k| step_of_rewrite(l, k).is_some())
}

/// The instruction that stopped AddressLowering on the analysed function, if it was refused
/// at one. The pass contract keeps only the message; core's refusal names the instruction, so
/// the view asks core again (a refused function stops early: this is cheap).
pub fn refused_at(a: &Analysis) -> Option<InstId> {
    if super::result(a).is_some() {
        return None;
    }
    lower(&a.function, a.types(&a.function), &a.type_env.decls).err()?.inst
}

/// The CSS class of a storage kind (the colour of its chip; the legend names each).
pub fn kind_class(s: &Storage) -> &'static str {
    match s {
        Storage::Argument => "arg",
        Storage::Result { .. } => "out",
        Storage::Stack { .. } => "stack",
        Storage::Same { .. } | Storage::Cast { .. } | Storage::Address { .. } | Storage::EnumData { .. } => "reuse",
        Storage::Element { .. } => "def-proj",
        Storage::Into { .. } | Storage::IntoEnum { .. } | Storage::IntoExistential { .. } | Storage::IntoStore { .. } => {
            "use-proj"
        }
        Storage::Split => "split",
    }
}

/// The legend of the storage kinds: class, words, what it means.
pub const LEGEND: [(&str, &str, &str); 8] = [
    ("arg", "indirect argument", "an @in argument: the caller's address is the storage"),
    ("out", "@out argument", "a returned value: built in the caller's result address"),
    ("stack", "alloc_stack", "a root of its own: a new stack slot"),
    ("reuse", "reused", "the same storage as its operand (a borrow, a move, an enum payload)"),
    ("def-proj", "def-projection", "a part of its operand's storage (a field, an element)"),
    ("use-proj", "use-projection", "built directly inside its user's storage"),
    ("split", "no storage", "a tuple of results: its elements have storage"),
    ("addr", "address", "an address the function already had"),
];

/// Where the storage is, in words, naming the other value or slot (`f` names values).
pub fn storage_detail(f: &Function, l: &Lowering, s: &Storage) -> String {
    let v = |v: &ValueId| f.value_in_code(*v);
    let part = |index: &u32, field: &Option<String>| match field {
        Some(name) => format!("field `{name}`"),
        None => format!("element {index}"),
    };
    match s {
        Storage::Argument => "the caller's address".into(),
        Storage::Result { index } => format!("@out result {index}: a new leading argument"),
        Storage::Stack { index } => match l.stacks.get(*index) {
            Some(slot) => format!("`{} = alloc_stack{} ${}`", slot.name, if slot.lexical { " [lexical]" } else { "" }, slot.ty),
            None => format!("alloc_stack {index}"),
        },
        Storage::Same { of } => format!("the storage of {}", v(of)),
        Storage::Cast { of } => format!("the storage of {}, seen as this type (unchecked_addr_cast)", v(of)),
        Storage::Address { of } => format!("the address {} it was loaded from", v(of)),
        Storage::EnumData { of, case } => format!("the payload ({case}) of {}", v(of)),
        Storage::Element { of, index, field } => format!("{} of {}", part(index, field), v(of)),
        Storage::Into { user, index, field } => format!("{} of its user {}", part(index, field), v(user)),
        Storage::IntoEnum { user, case } => format!("the payload ({case}) of its user {}", v(user)),
        Storage::IntoExistential { user, concrete } => format!("the existential box of {} (as `{concrete}`)", v(user)),
        Storage::IntoStore { dest, assign } => {
            format!("the address {} it is stored to{}", v(dest), if *assign { " (an assignment)" } else { "" })
        }
        Storage::Split => "none: its elements have storage".into(),
    }
}

/// One row of step 1's table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// 1-based position in reverse postorder.
    pub order: usize,
    pub name: String,
    pub ty: String,
    pub def: String,
    pub kind: &'static str,
    pub class: &'static str,
    pub detail: String,
    pub why: String,
}

pub fn rows(f: &Function, l: &Lowering) -> Vec<Row> {
    l.values
        .iter()
        .enumerate()
        .map(|(k, v)| Row {
            order: k + 1,
            name: v.name.clone(),
            ty: v.ty.clone(),
            def: v.def.clone(),
            kind: v.storage.kind(),
            class: kind_class(&v.storage),
            detail: storage_detail(f, l, &v.storage),
            why: v.why.clone(),
        })
        .collect()
}

/// A node of the storage tree: a value and the values whose storage is part of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeNode {
    pub name: String,
    pub kind: &'static str,
    pub class: &'static str,
    pub detail: String,
    pub children: Vec<TreeNode>,
}

impl TreeNode {
    /// Every name in the subtree, depth first (for tests and labels).
    pub fn names(&self) -> Vec<String> {
        std::iter::once(self.name.clone()).chain(self.children.iter().flat_map(TreeNode::names)).collect()
    }
}

/// Step 2's storage tree. Roots: the arguments, the @out results and the alloc_stacks (and
/// addresses the function already had, when a value is stored to one); children: the values
/// built in, projected from or reusing their parent's storage. Roots in that order, children
/// in reverse postorder.
pub fn storage_tree(f: &Function, l: &Lowering) -> Vec<TreeNode> {
    let index: BTreeMap<ValueId, usize> = l.values.iter().enumerate().map(|(k, v)| (v.value, k)).collect();
    let mut children: BTreeMap<ValueId, Vec<usize>> = BTreeMap::new();
    let mut roots: Vec<(u8, usize, Option<ValueId>)> = Vec::new();
    let mut outside: BTreeSet<ValueId> = BTreeSet::new();
    for (k, v) in l.values.iter().enumerate() {
        match v.storage.parent() {
            Some(p) if p != v.value => {
                children.entry(p).or_default().push(k);
                if !index.contains_key(&p) && outside.insert(p) {
                    roots.push((4, k, Some(p)));
                }
            }
            _ => {
                let rank = match v.storage {
                    Storage::Argument => 0,
                    Storage::Result { .. } => 1,
                    Storage::Stack { .. } => 2,
                    _ => 3,
                };
                roots.push((rank, k, None));
            }
        }
    }
    roots.sort();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (_, k, addr) in roots {
        let node = match addr {
            Some(p) => TreeNode {
                name: f.value_in_code(p),
                kind: "address",
                class: "addr",
                detail: "an address the function already had".into(),
                children: kids(f, l, p, &children, &mut seen),
            },
            None => node(f, l, k, &children, &mut seen),
        };
        out.push(node);
    }
    // A value whose parent chain loops (it should not happen) is still listed, as a root.
    for k in 0..l.values.len() {
        if !seen.contains(&l.values[k].value) {
            out.push(node(f, l, k, &children, &mut seen));
        }
    }
    out
}

fn node(f: &Function, l: &Lowering, k: usize, children: &BTreeMap<ValueId, Vec<usize>>, seen: &mut BTreeSet<ValueId>) -> TreeNode {
    let v = &l.values[k];
    seen.insert(v.value);
    TreeNode {
        name: v.name.clone(),
        kind: v.storage.kind(),
        class: kind_class(&v.storage),
        detail: storage_detail(f, l, &v.storage),
        children: kids(f, l, v.value, children, seen),
    }
}

fn kids(f: &Function, l: &Lowering, of: ValueId, children: &BTreeMap<ValueId, Vec<usize>>, seen: &mut BTreeSet<ValueId>) -> Vec<TreeNode> {
    let mut out = Vec::new();
    for &c in children.get(&of).map_or(&[][..], Vec::as_slice) {
        if !seen.contains(&l.values[c].value) {
            out.push(node(f, l, c, children, seen));
        }
    }
    out
}

/// One row of step 3's side-by-side listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RewriteRow {
    /// Index into `Lowering::rewrites`.
    pub index: usize,
    pub block: String,
    pub before: String,
    pub after: Vec<String>,
    pub why: String,
    /// The step that shows it (`None`: the line is unchanged).
    pub step: Option<usize>,
    /// A block's argument line (no instruction).
    pub label: bool,
    pub current: bool,
}

pub fn rewrite_rows(l: &Lowering, current: Option<usize>) -> Vec<RewriteRow> {
    l.rewrites
        .iter()
        .enumerate()
        .map(|(k, r)| RewriteRow {
            index: k,
            block: r.block.clone(),
            before: r.before.clone(),
            after: r.after.clone(),
            why: r.why.clone(),
            step: step_of_rewrite(l, k),
            label: r.inst.is_none(),
            current: current == Some(k),
        })
        .collect()
}

/// The stack slot an `alloc_stack` or `dealloc_stack` line of the lowered function names.
fn slot_of(line: &str) -> Option<(&str, bool)> {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix("dealloc_stack ") {
        return Some((rest.split_whitespace().next()?, false));
    }
    let (name, rhs) = line.split_once(" = ")?;
    rhs.starts_with("alloc_stack ").then_some((name.trim(), true))
}

/// The `alloc_stack`s on the CFG of the lowered function: their lines and the ones that free
/// them coloured, and a badge per slot where it is allocated (above the block) and freed
/// (below it), naming the values that live in it. Slots are numbered in allocation order, so
/// the nesting reads off the badges: a slot is freed before the slots allocated before it.
pub fn stack_decor(lowered: &CfgGraph, l: &Lowering) -> Decor {
    let mut d = Decor::new();
    let holds = |name: &str| {
        l.stacks.iter().find(|s| s.name == name).map_or_else(String::new, |s| {
            if s.values.is_empty() {
                String::new()
            } else {
                format!(": holds {}", s.values.join(", "))
            }
        })
    };
    for (n, node) in lowered.graph.nodes.iter().enumerate() {
        for (k, line) in node.lines.iter().enumerate() {
            let Some((name, alloc)) = slot_of(line) else { continue };
            let depth = l.stacks.iter().position(|s| s.name == name).map_or(0, |p| p + 1);
            if alloc {
                d.line_class(n, k, "lw-alloc");
                d.entry_badge(
                    n,
                    Badge::new(format!("alloc_stack {name}"), "lw-alloc-badge")
                        .with_title(format!("stack slot {depth}{}", holds(name))),
                );
            } else {
                d.line_class(n, k, "lw-dealloc");
                d.exit_badge(
                    n,
                    Badge::new(format!("dealloc_stack {name}"), "lw-dealloc-badge")
                        .with_title(format!("stack slot {depth} freed (the last allocated is freed first)")),
                );
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg_graph::cfg_graph;
    use crate::views::lowering::fixture::state;
    use crate::views::lowering::result;

    #[test]
    fn identity_assigns_the_argument_and_the_out_result() {
        let s = state("identity", "identity_opaque");
        let a = s.analysis.as_ref().unwrap();
        let l = result(a).expect("identity_opaque is lowered");
        let rows = rows(&a.function, l);
        let got: Vec<(&str, &str, &str)> = rows.iter().map(|r| (r.name.as_str(), r.def.as_str(), r.kind)).collect();
        assert_eq!(got, [("%0", "function argument", "indirect argument"), ("%1", "copy_value", "@out argument")]);
        assert_eq!(rows[1].class, "out");
        let tree = storage_tree(&a.function, l);
        assert_eq!(tree.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["%0", "%1"], "two roots");
        assert!(tree.iter().all(|t| t.children.is_empty()));
    }

    #[test]
    fn steps_are_assignment_allocation_then_each_changed_line() {
        let s = state("identity", "identity_opaque");
        let a = s.analysis.as_ref().unwrap();
        let l = result(a).unwrap();
        let run = a.run("address-lowering").unwrap();
        assert_eq!(Phase::of(l, 0), Phase::Assignment);
        assert_eq!(Phase::of(l, 1), Phase::Allocation);
        let n = run.steps.len();
        assert!(n > 2);
        for k in 2..n {
            let Phase::Rewrite(r) = Phase::of(l, k) else { panic!("step {k}") };
            let rows = rewrite_rows(l, Some(r));
            assert_eq!(rows.iter().filter(|x| x.current).count(), 1);
            assert_eq!(rows[r].step, Some(k));
            assert!(run.steps.describe(k).contains(&rows[r].before));
        }
        assert_eq!(Phase::of(l, n + 5), Phase::of(l, n - 1), "clamped to the last rewrite");
        let first = rewrite_rows(l, None);
        let copy = first.iter().find(|r| r.before.contains("copy_value")).unwrap();
        assert_eq!(copy.after, ["copy_addr %0 to [init] %out0 : $*T"]);
        assert!(first[0].label, "the block's argument line comes first");
    }

    #[test]
    fn a_redundant_copy_gets_a_stack_slot_marked_on_the_lowered_cfg() {
        let s = state("redundant-copy", "redundant_copy");
        let a = s.analysis.as_ref().unwrap();
        let l = result(a).unwrap();
        assert_eq!(l.stacks.len(), 1);
        let rows = rows(&a.function, l);
        let copy = rows.iter().find(|r| r.name == "%copy").unwrap();
        assert_eq!((copy.kind, copy.class), ("alloc_stack", "stack"));
        assert!(copy.detail.contains("alloc_stack $T"), "{}", copy.detail);
        let run = a.run("address-lowering").unwrap();
        let g = cfg_graph(&run.function);
        let d = stack_decor(&g, l);
        let n = d.nodes.get(&0).expect("bb0 is decorated");
        assert_eq!(n.entry.iter().map(|b| b.text.as_str()).collect::<Vec<_>>(), [format!("alloc_stack {}", l.stacks[0].name)]);
        assert_eq!(n.exit.len(), 1);
        assert!(n.entry[0].title.contains("holds %copy"), "{}", n.entry[0].title);
        assert_eq!(n.lines.values().filter(|c| c.contains("lw-alloc")).count(), 1);
        assert_eq!(n.lines.values().filter(|c| c.contains("lw-dealloc")).count(), 1);
    }

    #[test]
    fn a_refusal_names_its_instruction() {
        let text = "sil_stage raw\n\nimport Builtin\n\n\
sil [ossa] @cast : $@convention(thin) <T> (@in T) -> @out T {\n\
bb0(%0 : @owned $T):\n\
  %1 = unchecked_value_cast %0 : $T to $T\n\
  %2 = copy_value %1 : $T\n\
  destroy_value %0 : $T\n\
  return %2 : $T\n\
}\n";
        let s = crate::state::State::default().apply(crate::state::Action::Edit(text.into()));
        let a = s.analysis.as_ref().unwrap();
        assert!(result(a).is_none());
        let problem = a.run("address-lowering").unwrap().problem().unwrap().to_string();
        assert!(problem.contains("unchecked_value_cast"), "{problem}");
        let i = refused_at(a).expect("the cast stopped it");
        assert!(optlab_core::passes::dce::inst_text(&a.function, i).starts_with("%1 = unchecked_value_cast"));
        let ok = state("identity", "identity_opaque");
        assert_eq!(refused_at(ok.analysis.as_ref().unwrap()), None);
        let already = state("identity", "identity");
        assert_eq!(refused_at(already.analysis.as_ref().unwrap()), None, "refused, but not at an instruction");
    }

    #[test]
    fn projections_hang_under_their_parent() {
        // A struct built in place in the @out result: its operands are use-projections of it.
        let text = "sil_stage raw\n\nimport Builtin\n\nstruct Pair<T> {\n  var a: T\n  var b: T\n}\n\n\
sil [ossa] @mk : $@convention(thin) <T> (@in T, @in T) -> @out Pair<T> {\n\
bb0(%0 : @owned $T, %1 : @owned $T):\n\
  %2 = copy_value %0 : $T\n\
  %3 = copy_value %1 : $T\n\
  destroy_value %0 : $T\n\
  destroy_value %1 : $T\n\
  %4 = struct $Pair<T> (%2 : $T, %3 : $T)\n\
  return %4 : $Pair<T>\n\
}\n";
        let s = crate::state::State::default().apply(crate::state::Action::Edit(text.into()));
        let a = s.analysis.as_ref().unwrap();
        let Some(l) = result(a) else { panic!("{}", a.run("address-lowering").unwrap().summary()) };
        let tree = storage_tree(&a.function, l);
        let all: Vec<String> = tree.iter().flat_map(TreeNode::names).collect();
        assert_eq!(all.len(), l.values.len(), "every value once: {tree:?}");
        let pair = tree.iter().find(|t| t.name == "%4").expect("the struct is a root");
        assert_eq!(pair.class, "out");
        assert!(pair.children.iter().all(|c| c.class == "use-proj"), "{pair:?}");
    }
}
