//! "Variable `v` holds X": the one analysis behind available copies (`avail.rs`, X = the
//! value of `w`) and held expressions (`remat.rs`, X = `OP a b`). Both are the forward *must*
//! problem of the dragon book's available expressions (§9.2.6) with facts keyed by content:
//! a fact holds at a point when on every path from the entry some instruction generated it
//! and no variable it mentions was assigned since.
//!
//! - *Gen*: the instruction assigning `v` makes the fact ([`Holding::of`]).
//! - *Kill*: an assignment to any variable the fact mentions — its holder or a variable X
//!   reads — ends it, whatever the instruction is (one that re-makes the fact then gens it
//!   again, after the kill).
//! - *Keyed by content, not by instruction*: the same fact made on both arms of a diamond is
//!   one fact, so the intersection at the join keeps it (with one id per instruction each
//!   would be killed on the other arm's path). Each instruction still kills a fact, generates
//!   it or leaves it alone, so the problem is gen/kill, hence distributive, and the
//!   round-robin fixpoint from ⊤ is the meet over all paths — what the oracle test
//!   (`tests/copyprop_oracle.rs`) checks by exploring paths.
//!
//! [`Holds`] is that analysis for any fact type: the fact table (deduplicated per holder), the
//! kill and gen indices and the per-block facts; the two analyses are type aliases of it with
//! their own lookups.

use super::solve::{self, FactTable, SparseFacts};
use crate::cfg::Cfg;
#[cfg(test)]
use crate::dataflow::{Analysis, Direction};
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BlockId, Function, Inst, InstId, ValueId};
use std::hash::{BuildHasher, Hasher};

/// A kind of fact "variable `holder` holds X", made by single instructions.
pub trait Holding: Sized {
    /// The dense id of a fact of this kind (one per distinct fact, not per instruction).
    type Id: EntityRef;

    /// The fact `inst` makes, with no instructions recorded yet, if it makes one.
    fn of(inst: &Inst) -> Option<Self>;
    /// The variable holding X: the one the instruction assigns.
    fn holder(&self) -> ValueId;
    /// The variables X is computed from. Assigning one of them, or the holder, kills the
    /// fact. May repeat a variable.
    fn reads(&self) -> &[ValueId];
    /// Whether two facts of the same holder are one fact (the instructions aside).
    fn same(&self, other: &Self) -> bool;
    /// Feeds what [`same`](Holding::same) compares to `h`: facts that are the same hash alike.
    fn hash_key<H: std::hash::Hasher>(&self, h: &mut H);
    /// The instructions that make the fact, in layout order.
    fn insts_mut(&mut self) -> &mut Vec<InstId>;
    /// [`Holding::insts_mut`], read-only.
    fn insts(&self) -> &[InstId];
}

/// The analysis of one function for facts of kind `F`: the fact table and the per-block facts.
#[derive(Clone, Debug)]
pub struct Holds<F: Holding> {
    /// Every distinct fact some placed instruction makes, in order of first appearance.
    pub table: EntityVec<F::Id, F>,
    /// The facts each variable takes part in (as holder or read): what assigning it kills.
    mentions: EntityVec<ValueId, Vec<F::Id>>,
    /// The facts held in each variable. At a reachable point at most one of them holds: on
    /// every path the last assignment of the variable decides it.
    by_holder: EntityVec<ValueId, Vec<F::Id>>,
    /// The fact each instruction generates.
    made_by: EntityVec<InstId, Option<F::Id>>,
    /// Blocks reachable from the entry; the facts of the others are ⊤ and mean nothing.
    pub reachable: EntitySet<BlockId>,
    /// `ins[b]`: facts holding at the start of `b`; `outs[b]`: at its end; and the rounds
    /// (solved sparsely, `solve.rs`).
    pub facts: SparseFacts<F::Id>,
}

/// The problem on the dataflow framework with dense sets: the definition the sparse solver
/// (`solve.rs`) is tested against.
#[cfg(test)]
pub(crate) struct Problem<'a, F: Holding> {
    pub(crate) h: &'a Holds<F>,
}

#[cfg(test)]
impl<F: Holding> Analysis for Problem<'_, F> {
    type Fact = EntitySet<F::Id>;

    fn direction(&self) -> Direction {
        Direction::Forward
    }
    /// ⊤: every fact. A must-analysis starts optimistic and the fixpoint removes what some
    /// path does not establish; starting from ∅ would find no fact around any loop.
    fn init(&self, _f: &Function) -> Self::Fact {
        EntitySet::new_full(self.h.table.len())
    }
    /// Nothing holds on entry: parameters are assigned there, by no instruction.
    fn boundary(&self, _f: &Function) -> Self::Fact {
        EntitySet::new_empty(self.h.table.len())
    }
    fn meet(&self, into: &mut Self::Fact, other: &Self::Fact) {
        into.intersect_with(other);
    }
    /// Kill then gen, instruction by instruction. An unreachable block yields ⊤, the identity
    /// of the meet, so an edge no execution takes cannot weaken the fact of a reachable join.
    fn transfer(&self, f: &Function, block: BlockId, input: &Self::Fact) -> Self::Fact {
        if !self.h.reachable.contains(block) {
            return self.init(f);
        }
        let mut s = input.clone();
        for i in f.blocks[block].all_insts() {
            for &r in &f.insts[i].results {
                for &id in &self.h.mentions[r] {
                    s.remove(id);
                }
            }
            if let Some(id) = self.h.made_by[i] {
                s.insert(id);
            }
        }
        s
    }
}

impl<F: Holding> FactTable<F::Id> for Holds<F> {
    fn len(&self) -> usize {
        self.table.len()
    }
    fn vars(&self, c: F::Id) -> impl Iterator<Item = ValueId> {
        let x = &self.table[c];
        std::iter::once(x.holder()).chain(x.reads().iter().copied())
    }
    fn makers(&self, c: F::Id) -> &[InstId] {
        self.table[c].insts()
    }
    fn made_by(&self, i: InstId) -> Option<F::Id> {
        self.made_by.get(i).copied().flatten()
    }
}

/// The facts holding at one point of a walk through a block ([`Holds::walk_with`]): a list
/// with a position per fact, so that a step costs what it changes and a lookup what holds
/// there, not the number of facts. Made once per pass ([`Holds::point`]) and reused.
#[derive(Clone, Debug)]
pub struct Point<K: EntityRef> {
    members: Vec<K>,
    /// One more than the fact's position in `members`; 0: it does not hold.
    at: EntityVec<K, u32>,
}

impl<K: EntityRef> Point<K> {
    fn new(n: usize) -> Point<K> {
        Point { members: Vec::new(), at: EntityVec::filled(n, 0) }
    }
    pub fn contains(&self, k: K) -> bool {
        self.at.get(k).is_some_and(|&p| p != 0)
    }
    /// The facts holding, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = K> + '_ {
        self.members.iter().copied()
    }
    fn insert(&mut self, k: K) {
        if !self.contains(k) {
            self.members.push(k);
            self.at[k] = self.members.len() as u32;
        }
    }
    fn remove(&mut self, k: K) {
        let Some(&p) = self.at.get(k) else { return };
        if p == 0 {
            return;
        }
        let idx = p as usize - 1;
        self.members.swap_remove(idx);
        self.at[k] = 0;
        if let Some(&moved) = self.members.get(idx) {
            self.at[moved] = p;
        }
    }
    fn retain(&mut self, keep: impl Fn(K) -> bool) {
        for &k in &self.members {
            self.at[k] = 0;
        }
        self.members.retain(|&k| keep(k));
        for (n, &k) in self.members.iter().enumerate() {
            self.at[k] = n as u32 + 1;
        }
    }
    fn clear(&mut self) {
        for &k in &self.members {
            self.at[k] = 0;
        }
        self.members.clear();
    }
}

impl<F: Holding> Holds<F> {
    /// Collects the facts of `f` and solves the problem. `f` must be a Bril function that
    /// passed [`crate::ir::verify`] and `cfg` its graph (all ids are then in range).
    pub fn new(f: &Function, cfg: &Cfg) -> Holds<F> {
        Holds::new_filtered(f, cfg, |_| true)
    }

    /// [`Holds::new`] on the facts `keep` accepts only; the others are neither in the table
    /// nor generated. Facts do not interact (each is killed and generated by its own
    /// variables), so every kept fact holds exactly where it holds in the whole analysis —
    /// and the per-block sets are over the kept facts only: held expressions need the
    /// variables copies read, not the tens of thousands of temporaries a large program
    /// computes (issue 17: blocks × facts bits per table, out of memory at 10^5 blocks).
    pub fn new_filtered(f: &Function, cfg: &Cfg, keep: impl Fn(&F) -> bool) -> Holds<F> {
        let mut h = Holds::collect(f, cfg, keep);
        h.facts = solve::solve(f, cfg, &h.reachable, &h);
        h
    }

    /// The table and the indices of the facts `keep` accepts, without solving (`facts` is
    /// empty).
    pub(crate) fn collect(f: &Function, cfg: &Cfg, keep: impl Fn(&F) -> bool) -> Holds<F> {
        let mut table: EntityVec<F::Id, F> = EntityVec::new();
        let mut mentions: EntityVec<ValueId, Vec<F::Id>> = EntityVec::filled(f.values.len(), Vec::new());
        let mut by_holder: EntityVec<ValueId, Vec<F::Id>> = EntityVec::filled(f.values.len(), Vec::new());
        let mut made_by: EntityVec<InstId, Option<F::Id>> = EntityVec::filled(f.insts.len(), None);
        // Each fact's first id by the hash of its content. Searching the holder's facts
        // instead was quadratic in how many distinct facts a variable holds: after LCM on a
        // 10^5-block function, 12.5 million comparisons for 78,246 copies, and 10 million for
        // 34,000 held expressions (a variable of the program's pool holds hundreds). Two facts
        // with one hash (all but never) fall back to that search.
        let hasher = foldhash::fast::FixedState::with_seed(0);
        let mut first: foldhash::HashMap<u64, F::Id> = foldhash::HashMap::default();
        for (_, i) in f.placed_insts() {
            let Some(fact) = F::of(&f.insts[i]).filter(|x| keep(x)) else { continue };
            let v = fact.holder();
            let key = {
                let mut h = hasher.build_hasher();
                fact.hash_key(&mut h);
                h.finish()
            };
            let found = match first.get(&key) {
                Some(&id) if table[id].same(&fact) => Some(id),
                Some(_) => by_holder[v].iter().copied().find(|&id| table[id].same(&fact)),
                None => None,
            };
            let id = match found {
                Some(id) => id,
                None => {
                    let id = table.push(fact);
                    // The fact is new, so it can only repeat in a list it was just pushed
                    // to (a variable it names twice): checking the whole list made this
                    // quadratic, a variable such as a loop counter being read by a fact per
                    // block.
                    for &m in std::iter::once(&v).chain(table[id].reads()) {
                        if mentions[m].last() != Some(&id) {
                            mentions[m].push(id);
                        }
                    }
                    by_holder[v].push(id);
                    first.entry(key).or_insert(id);
                    id
                }
            };
            table[id].insts_mut().push(i);
            made_by[i] = Some(id);
        }
        let mut reachable = EntitySet::new_empty(f.blocks.len());
        for &b in &f.layout {
            if cfg.is_reachable(b) {
                reachable.insert(b);
            }
        }
        Holds { table, mentions, by_holder, made_by, reachable, facts: SparseFacts::empty() }
    }

    /// [`Holds::new_filtered`] from the table of every fact (`self`, from
    /// [`Holds::collect`] accepting all): the facts `keep` accepts, in the same order, with
    /// their instructions, then solved. The same table as collecting with `keep` (facts are
    /// numbered in order of first appearance either way, and a kept fact's instructions are
    /// the same), without a second scan of the program: rematerialisation needs both tables,
    /// and the scan, which compares each computation with those its variable held before,
    /// was a tenth of copy propagation at 10^5 blocks.
    pub(crate) fn restricted(&self, f: &Function, cfg: &Cfg, keep: impl Fn(&F) -> bool) -> Holds<F>
    where
        F: Clone,
    {
        let mut table: EntityVec<F::Id, F> = EntityVec::new();
        let mut mentions: EntityVec<ValueId, Vec<F::Id>> = EntityVec::filled(self.mentions.len(), Vec::new());
        let mut by_holder: EntityVec<ValueId, Vec<F::Id>> = EntityVec::filled(self.by_holder.len(), Vec::new());
        let mut made_by: EntityVec<InstId, Option<F::Id>> = EntityVec::filled(self.made_by.len(), None);
        for fact in self.table.values().filter(|x| keep(x)) {
            let id = table.push(fact.clone());
            let v = fact.holder();
            for &m in std::iter::once(&v).chain(fact.reads()) {
                if mentions[m].last() != Some(&id) {
                    mentions[m].push(id);
                }
            }
            by_holder[v].push(id);
            for &i in fact.insts() {
                made_by[i] = Some(id);
            }
        }
        let mut h = Holds { table, mentions, by_holder, made_by, reachable: self.reachable.clone(), facts: SparseFacts::empty() };
        h.facts = solve::solve(f, cfg, &h.reachable, &h);
        h
    }

    /// A walk state for [`Holds::walk_with`] (sized by the fact table, so made once).
    pub fn point(&self) -> Point<F::Id> {
        Point::new(self.table.len())
    }

    /// Whether fact `id` mentions variable `v` (as holder or read).
    fn mentions_var(&self, id: F::Id, v: ValueId) -> bool {
        let x = &self.table[id];
        x.holder() == v || x.reads().contains(&v)
    }

    /// The effect of one instruction: every variable it assigns kills the facts that mention
    /// that variable; the instruction then makes its own fact, if any. A kill looks at the
    /// facts holding or at the facts the variable takes part in, whichever are fewer (a loop
    /// counter can take part in a fact per block).
    pub fn step(&self, f: &Function, s: &mut Point<F::Id>, i: InstId) {
        for &r in &f.insts[i].results {
            match self.mentions.get(r) {
                Some(ms) if ms.len() <= s.members.len() => {
                    for &id in ms {
                        s.remove(id);
                    }
                }
                Some(_) => s.retain(|id| !self.mentions_var(id, r)),
                None => {}
            }
        }
        if let Some(id) = self.made_by(i) {
            s.insert(id);
        }
    }

    /// Calls `visit(inst, holding)` for each instruction of `block` in order (terminator
    /// last) with the facts holding just before it.
    pub fn walk(&self, f: &Function, block: BlockId, visit: impl FnMut(InstId, &Point<F::Id>)) {
        self.walk_with(&mut self.point(), f, block, visit);
    }

    /// [`Holds::walk`] in the state `s` (from [`Holds::point`]), reused across blocks: the
    /// pass walks every block, and a fresh state per block would cost blocks × facts.
    pub fn walk_with(&self, s: &mut Point<F::Id>, f: &Function, block: BlockId, mut visit: impl FnMut(InstId, &Point<F::Id>)) {
        s.clear();
        for id in self.facts.ins[block].iter() {
            s.insert(id);
        }
        for i in f.blocks[block].all_insts() {
            visit(i, s);
            self.step(f, s, i);
        }
    }

    /// The fact held in `v` in `s`, if any (at a reachable point at most one is; else the
    /// first in table order).
    pub fn held_in(&self, s: &Point<F::Id>, v: ValueId) -> Option<F::Id> {
        let held = self.by_holder.get(v)?;
        if held.len() <= s.members.len() {
            held.iter().copied().find(|&id| s.contains(id))
        } else {
            s.iter().filter(|&id| self.table[id].holder() == v).min()
        }
    }

    /// The fact instruction `i` makes, if any.
    pub fn made_by(&self, i: InstId) -> Option<F::Id> {
        self.made_by.get(i).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::super::remat::Held;
    use super::*;
    use crate::ir::Lang;

    /// The functions of generated Bril programs `0..seeds`, each followed by LCM's output on
    /// it (where LCM runs): copies and held expressions of both kinds.
    fn generated_before_and_after_lcm(seeds: u64) -> Vec<Function> {
        let mut fs = Vec::new();
        for seed in 0..seeds {
            for f in crate::testgen::generate(seed, &crate::testgen::GenConfig::default()).module.bodies() {
                fs.push(f.clone());
                if let Ok(out) = crate::passes::lcm::run_function(f, &crate::passes::lcm::Options::default()) {
                    fs.push((*out.result).clone());
                }
            }
        }
        fs
    }

    /// A held expression whose hash is the same for every fact: `collect` must then find
    /// each fact by its fallback search alone.
    #[derive(Clone, Debug, PartialEq)]
    struct Colliding(Held);

    impl Holding for Colliding {
        type Id = crate::passes::copyprop::HeldId;
        fn of(inst: &Inst) -> Option<Self> {
            Held::of(inst).map(Colliding)
        }
        fn holder(&self) -> ValueId {
            self.0.holder()
        }
        fn reads(&self) -> &[ValueId] {
            self.0.reads()
        }
        fn same(&self, other: &Self) -> bool {
            self.0.same(&other.0)
        }
        fn hash_key<H: Hasher>(&self, h: &mut H) {
            h.write_u8(0);
        }
        fn insts_mut(&mut self) -> &mut Vec<InstId> {
            self.0.insts_mut()
        }
        fn insts(&self) -> &[InstId] {
            self.0.insts()
        }
    }

    /// `collect`'s table against the definition — one fact per class of `same` facts, in
    /// order of first appearance, each listing its instructions — found by comparing every
    /// fact with every earlier one; and the same table when every hash collides.
    #[test]
    fn collected_facts_are_the_classes_of_same_facts() {
        let mut fs = generated_before_and_after_lcm(40);
        let m = crate::parse_module(Lang::Bril, "t", &crate::testgen::scale::bril_program(300, 3)).expect("parses");
        for f in m.bodies() {
            fs.push((*crate::passes::lcm::run_function(f, &crate::passes::lcm::Options::default()).expect("LCM runs").result).clone());
        }
        let mut shared = 0;
        for (k, f) in fs.iter().enumerate() {
            let cfg = Cfg::new(f);
            let mut want: Vec<Held> = Vec::new();
            for (_, i) in f.placed_insts() {
                let Some(fact) = Held::of(&f.insts[i]) else { continue };
                match want.iter_mut().find(|h| h.same(&fact)) {
                    Some(h) => h.insts.push(i),
                    None => want.push(Held { insts: vec![i], ..fact }),
                }
            }
            let got: Holds<Held> = Holds::collect(f, &cfg, |_| true);
            assert_eq!(got.table.values().cloned().collect::<Vec<_>>(), want, "function {k}");
            let colliding: Holds<Colliding> = Holds::collect(f, &cfg, |_| true);
            assert_eq!(colliding.table.values().map(|c| c.0.clone()).collect::<Vec<_>>(), want, "function {k}, colliding");
            shared += want.iter().filter(|h| h.insts.len() > 1).count();
        }
        assert!(shared > 50, "only {shared} facts made by more than one instruction");
    }

    /// The restricted table is the one a second scan with the filter makes, and so are its
    /// indices and its solution: on generated Bril (before and after LCM), the scale
    /// generator's programs and the Bril benchmarks, keeping the facts held in every other
    /// variable and in the variables copies read (rematerialisation's filter).
    #[test]
    fn restricting_the_whole_table_equals_collecting_with_the_filter() {
        let mut fs = generated_before_and_after_lcm(60);
        for (n, seed) in [(50, 1), (200, 2)] {
            let m = crate::parse_module(Lang::Bril, "t", &crate::testgen::scale::bril_program(n, seed)).expect("parses");
            for f in m.bodies() {
                fs.push(f.clone());
                fs.push((*crate::passes::lcm::run_function(f, &crate::passes::lcm::Options::default()).expect("LCM runs").result).clone());
            }
        }
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/bril/benchmarks/core");
        let mut paths: Vec<_> = crate::testgen::files_under(&dir).into_iter().filter(|p| p.extension().is_some_and(|x| x == "bril")).collect();
        paths.sort();
        for path in paths.into_iter().take(60) {
            if let Ok(m) = crate::parse_module(Lang::Bril, "b.bril", &std::fs::read_to_string(&path).unwrap_or_default()) {
                fs.extend(m.bodies().cloned());
            }
        }
        let mut kept = 0;
        for (k, f) in fs.iter().enumerate() {
            let cfg = Cfg::new(f);
            let all: Holds<Held> = Holds::collect(f, &cfg, |_| true);
            let mut read_by_copy: EntitySet<ValueId> = EntitySet::new_empty(f.values.len());
            for (_, i) in f.placed_insts() {
                if let Some((_, t)) = super::super::as_copy(&f.insts[i]) {
                    read_by_copy.insert(t);
                }
            }
            let filters: [&dyn Fn(&Held) -> bool; 3] = [&|h| h.var.0 % 2 == 0, &|h| read_by_copy.contains(h.var), &|_| true];
            for (j, keep) in filters.iter().enumerate() {
                let want = Holds::new_filtered(f, &cfg, keep);
                let got = all.restricted(f, &cfg, keep);
                let what = format!("function {k} filter {j}");
                assert_eq!(got.table, want.table, "{what}");
                assert_eq!(got.mentions, want.mentions, "{what}");
                assert_eq!(got.by_holder, want.by_holder, "{what}");
                assert_eq!(got.made_by, want.made_by, "{what}");
                assert_eq!(got.reachable, want.reachable, "{what}");
                assert_eq!(got.facts, want.facts, "{what}");
                kept += got.table.len();
            }
        }
        assert!(fs.len() > 100 && kept > 1000, "{} functions, {kept} facts kept", fs.len());
    }
}
