//! The LCM step list: step 0 is the function before LCM, then one step per step of Lazy Code
//! Motion (Knoop, Rüthing, Steffen) as [`super::Step`] records them — except the three
//! greatest fixpoints (down-safety, up-safety, delayed), which take one step per round, the
//! last round being the one that changed nothing. Each step has a one-line description and a
//! position in the trace ([`Pos`]); [`super::replay`] turns a position into the predicate
//! table of that moment.

use super::predicates::{Fixpoint, Pred};
use super::trace::{Edit, Step};
use super::{ExprId, LcmOutput, Snapshot};
use crate::entity::{EntityRef, EntityVec};
use crate::ir::BlockId;
use crate::steps::Steps;
use serde::Serialize;
use std::sync::Arc;

/// Where a step is in the trace: before anything, or at stage `stage` (an index into
/// `trace.steps`), and for a fixpoint stage at round `round` (`None`: the stage's result, for
/// fixpoints only when there was no round at all). The table and the drawings replay to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Pos {
    Start,
    Stage { stage: usize, round: Option<usize> },
}

impl Pos {
    /// The stage (index into `trace.steps`), `None` before anything.
    pub fn stage(self) -> Option<usize> {
        match self {
            Pos::Start => None,
            Pos::Stage { stage, .. } => Some(stage),
        }
    }
}

/// How the lab names one step of the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageInfo {
    /// The seed's number (the seed calls both safety steps "Step 3"; up-safety is 3′ here).
    pub number: &'static str,
    pub name: &'static str,
    /// The predicates the step computes, in table order.
    pub preds: &'static [Pred],
    /// The visiting order of a fixpoint.
    pub order: Option<&'static str>,
}

/// The seed's number and name for `step`, the predicates it computes (the table highlights
/// them, exercise mode hides them) and, for a fixpoint, its visiting order.
pub fn stage_info(step: &Step) -> StageInfo {
    use Pred::*;
    let (number, name, preds, order): (_, _, &'static [Pred], _) = match step {
        Step::SplitEdges { .. } => ("1", "critical edges", &[], None),
        Step::Local { .. } => ("2", "local information", &[NComp, XComp, Transp], None),
        Step::DownSafety { .. } => ("3", "down-safety", &[NdSafe, XdSafe], Some("postorder")),
        Step::UpSafety { .. } => ("3′", "up-safety", &[NuSafe, XuSafe], Some("reverse postorder")),
        Step::Earliest { .. } => ("4", "earliest", &[NEarliest, XEarliest], None),
        Step::Delayed { .. } => ("5", "delayed", &[NDelayed, XDelayed], Some("reverse postorder")),
        Step::Latest { .. } => ("6", "latest", &[NLatest, XLatest], None),
        Step::Transform { .. } => ("7", "transformation", &[], None),
    };
    StageInfo { number, name, preds, order }
}

/// The rounds of a fixpoint step.
pub fn fixpoint(step: &Step) -> Option<&Fixpoint> {
    match step {
        Step::DownSafety { fixpoint, .. } | Step::UpSafety { fixpoint, .. } | Step::Delayed { fixpoint, .. } => {
            Some(fixpoint)
        }
        _ => None,
    }
}

/// At most this many block names in a one-line description; the rest are counted.
const NAMES_SHOWN: usize = 8;

/// `a, b, c` or `a, b, … and 12 more`.
pub fn name_list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    counted_list(names.iter().copied(), names.len())
}

/// [`name_list`] of a list of `total` names of which only the first ones are at hand (at
/// least [`NAMES_SHOWN`] of them when there are that many): a caller naming the first few of
/// 10^5 blocks need not make a string for each.
fn counted_list<'a>(first: impl IntoIterator<Item = &'a str>, total: usize) -> String {
    let mut s = first.into_iter().take(NAMES_SHOWN).collect::<Vec<_>>().join(", ");
    if total > NAMES_SHOWN {
        s.push_str(&format!(" and {} more", total - NAMES_SHOWN));
    }
    s
}

/// The changed cells of `snap` (the table of one expression at one step), by predicate in
/// table order, each with the value the cells now hold and their rows in table order: what
/// the table highlights and [`LcmSteps::describe_for`] names. The cells of one predicate
/// that a step changes all hold the same value (a fixpoint only clears bits; a one-shot
/// step marks the cells that differ from the predicate's initial value).
pub fn marked(out: &LcmOutput, snap: &Snapshot) -> Vec<(Pred, bool, Vec<usize>)> {
    snap.current
        .iter()
        .filter_map(|&p| {
            let rows: Vec<usize> = (0..out.trace.blocks.len()).filter(|&r| snap.cell(r, p).changed).collect();
            let value = rows.first().and_then(|&r| snap.cell(r, p).value)?;
            Some((p, value, rows))
        })
        .collect()
}

/// Where each step is, without its text: [`LcmSteps::build`]'s positions (a test compares
/// the two).
fn positions(t: &super::trace::Trace) -> Vec<Pos> {
    let mut positions = vec![Pos::Start];
    for (i, step) in t.steps.iter().enumerate() {
        match fixpoint(step) {
            Some(fp) if !fp.rounds.is_empty() => positions.extend((0..fp.rounds.len()).map(|r| Pos::Stage { stage: i, round: Some(r) })),
            _ => positions.push(Pos::Stage { stage: i, round: None }),
        }
    }
    positions
}

/// The LCM step list: one description per step ([`Steps`]) and where each step is in the
/// trace ([`Pos`]), which [`LcmOutput::snapshot`] and the drawings replay to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LcmSteps {
    texts: Steps,
    positions: Vec<Pos>,
}

impl LcmSteps {
    /// The steps of `out`'s trace: step 0 before LCM, one step per stage of the seven, and
    /// one per round for the three greatest fixpoints.
    pub fn new(out: &LcmOutput) -> LcmSteps {
        let (texts, positions) = LcmSteps::build(out);
        LcmSteps { texts: Steps::new(texts), positions }
    }

    /// [`LcmSteps::new`] with the texts written when first asked for ([`Steps::lazy`]): a
    /// pipeline's LCM stage is seldom stepped through, and on a 10^5-block function its
    /// sentences cost a tenth of the pass. The positions, which the view's replay needs
    /// before any text, are made now.
    pub fn deferred(out: &Arc<LcmOutput>) -> LcmSteps {
        let o = out.clone();
        LcmSteps { texts: Steps::lazy(move || LcmSteps::build(&o).0), positions: positions(&out.trace) }
    }

    /// The texts and the positions of every step.
    fn build(out: &LcmOutput) -> (Vec<String>, Vec<Pos>) {
        let t = &out.trace;
        // Dense tables by block id: a round's sentence sorts its blocks by rank (a hash
        // lookup per comparison was most of a 10^5-block pipeline's LCM steps).
        let ids = t.blocks.iter().map(|b| b.id.index() + 1).max().unwrap_or(0);
        let mut rank: EntityVec<BlockId, u32> = EntityVec::filled(ids, u32::MAX);
        let mut names: EntityVec<BlockId, Option<&str>> = EntityVec::filled(ids, None);
        for (i, b) in t.blocks.iter().enumerate() {
            rank[b.id] = i as u32;
            names[b.id] = Some(b.name.as_str());
        }
        let name = |b: BlockId| names.get(b).copied().flatten().map_or_else(|| b.to_string(), str::to_string);
        let moved = out.moved().len();
        let mut positions = vec![Pos::Start];
        let mut texts = vec![format!(
            "Before LCM: @{} has {} candidate expression{} ({moved} will move); step 1 begins the seven steps of Lazy Code Motion",
            t.function,
            t.exprs.len(),
            plural(t.exprs.len())
        )];
        for (i, step) in t.steps.iter().enumerate() {
            let info = stage_info(step);
            let head = format!("Step {} ({})", info.number, info.name);
            match fixpoint(step) {
                Some(fp) if !fp.rounds.is_empty() => {
                    for r in 0..fp.rounds.len() {
                        positions.push(Pos::Stage { stage: i, round: Some(r) });
                        texts.push(round_text(&head, &info, step, r, &name, &rank, t.exprs.len()));
                    }
                }
                Some(fp) if fp.per_region => {
                    positions.push(Pos::Stage { stage: i, round: None });
                    texts.push(format!(
                        "{head}: solved region by region of the dominator tree ({} expressions × {} blocks are too many to record each round)",
                        t.exprs.len(),
                        t.blocks.len()
                    ));
                }
                Some(_) => {
                    positions.push(Pos::Stage { stage: i, round: None });
                    texts.push(format!("{head}: no reachable block to iterate over"));
                }
                None => {
                    positions.push(Pos::Stage { stage: i, round: None });
                    texts.push(stage_text(&head, out, step, &name));
                }
            }
        }
        (texts, positions)
    }

    /// The descriptions, step 0 first.
    pub fn texts(&self) -> &Steps {
        &self.texts
    }

    /// Where each step is in the trace, step 0 first (as many as [`LcmSteps::len`]).
    pub fn positions(&self) -> &[Pos] {
        &self.positions
    }

    pub fn len(&self) -> usize {
        self.texts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The one-line description of step `k` (clamped).
    pub fn describe(&self, k: usize) -> &str {
        self.texts.describe(k)
    }

    /// The description of step `k` for expression `e` alone: what the predicate table of
    /// `e` ([`LcmOutput::snapshot`]) shows at that step. The blocks it names are exactly the
    /// cells that table marks changed ([`marked`]), from the same snapshot; steps without
    /// predicates (1 and 7) and step 0 are described as for every expression.
    pub fn describe_for(&self, out: &LcmOutput, k: usize, e: ExprId) -> String {
        let k = k.min(self.len().saturating_sub(1));
        let pos = self.pos(k);
        let Pos::Stage { stage, round } = pos else { return self.describe(k).to_string() };
        let Some(step) = out.trace.steps.get(stage) else { return self.describe(k).to_string() };
        let info = stage_info(step);
        if info.preds.is_empty() {
            return self.describe(k).to_string();
        }
        let expr = out.trace.exprs.get(e.0 as usize).map_or("", String::as_str);
        let snap = out.snapshot(pos, e);
        let parts = marked(out, &snap)
            .into_iter()
            .map(|(p, value, rows)| {
                let names = name_list(rows.iter().map(|&r| out.trace.blocks[r].name.as_str()));
                match (round.is_some(), value) {
                    // A greatest fixpoint only clears bits.
                    (true, false) => format!("{p} drops to 0 in {names}"),
                    _ => format!("{p} is {} in {names}", u8::from(value)),
                }
            })
            .collect::<Vec<_>>()
            .join("; ");
        let head = format!("Step {} ({})", info.number, info.name);
        match (fixpoint(step), round) {
            (Some(fp), Some(r)) => {
                let n = fp.rounds.len();
                let start = if r == 0 { format!(", from all 1 in {}", info.order.unwrap_or("order")) } else { String::new() };
                let head = format!("{head}, round {} of {n}{start}", r + 1);
                if fp.changed_blocks(r, step.values()).is_empty() {
                    format!("{head}: nothing changed — the fixpoint is reached")
                } else if parts.is_empty() {
                    format!("{head}: no bit of {expr} changed (other expressions' bits did)")
                } else {
                    format!("{head}: for {expr}, {parts}")
                }
            }
            _ => {
                let from = match step {
                    Step::Local { .. } => ", from each block's own instructions",
                    Step::Earliest { .. } => ", from the safety bits",
                    Step::Latest { .. } => ", from the delay bits",
                    _ => "",
                };
                let head = format!("{head}{from}");
                let computed = info.preds.iter().map(|p| p.name()).collect::<Vec<_>>().join(" and ");
                if parts.is_empty() {
                    format!("{head}: for {expr}, {computed} keep their initial values in every block")
                } else {
                    format!("{head}: for {expr}, {parts}")
                }
            }
        }
    }

    /// The description of step `k` without what it found (`Step 3 (down-safety), round 2
    /// of 3`): what the step bar says in exercise mode, where the rest gives answers away.
    pub fn headline(&self, k: usize) -> &str {
        self.texts.headline(k)
    }

    /// Where step `k` (clamped) is in the trace.
    pub fn pos(&self, k: usize) -> Pos {
        self.positions.get(k.min(self.positions.len().saturating_sub(1))).copied().unwrap_or(Pos::Start)
    }

    /// The first step of trace step `stage` (what clicking a stage jumps to).
    pub fn first_of(&self, stage: usize) -> Option<usize> {
        self.positions.iter().position(|p| p.stage() == Some(stage))
    }

    /// The last step of trace step `stage` (a fixpoint's quiet round).
    pub fn last_of(&self, stage: usize) -> Option<usize> {
        self.positions.iter().rposition(|p| p.stage() == Some(stage))
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// "round 2 of 3: NdSafe changed in n4, n7; XdSafe in n5".
/// Blocks are listed in layout order (the table's row order), not in visiting order.
fn round_text(
    head: &str,
    info: &StageInfo,
    step: &Step,
    r: usize,
    name: &dyn Fn(BlockId) -> String,
    rank: &EntityVec<BlockId, u32>,
    exprs: usize,
) -> String {
    // This text covers every expression; the view of one expression says what changed for
    // it ([`LcmSteps::describe_for`]).
    let all = if exprs > 1 { format!(" (over all {exprs} expressions)") } else { String::new() };
    let Some(fp) = fixpoint(step) else { return head.to_string() };
    let n = fp.rounds.len();
    let changes = fp.changed_blocks(r, step.values());
    let start = if r == 0 { format!(", from all true in {}", info.order.unwrap_or("order")) } else { String::new() };
    if changes.is_empty() {
        return format!("{head}, round {} of {n}{start}: nothing changed — the fixpoint is reached", r + 1);
    }
    let mut parts = Vec::new();
    let rank_of = |b: BlockId| rank.get(b).copied().unwrap_or(u32::MAX);
    for &p in info.preds {
        let mut blocks: Vec<(u32, BlockId)> = changes.iter().filter(|c| c.1 == p).map(|c| (rank_of(c.0), c.0)).collect();
        if blocks.is_empty() {
            continue;
        }
        // Only the first few are named: select them, then sort just those.
        let total = blocks.len();
        if total > NAMES_SHOWN {
            blocks.select_nth_unstable(NAMES_SHOWN - 1);
            blocks.truncate(NAMES_SHOWN);
        }
        blocks.sort_unstable();
        let shown: Vec<String> = blocks.into_iter().map(|(_, b)| name(b)).collect();
        let verb = if parts.is_empty() { "changed in " } else { "in " };
        parts.push(format!("{p} {verb}{}", counted_list(shown.iter().map(String::as_str), total)));
    }
    format!("{head}, round {} of {n}{start}: {}{all}", r + 1, parts.join("; "))
}

fn stage_text(head: &str, out: &LcmOutput, step: &Step, name: &dyn Fn(BlockId) -> String) -> String {
    match step {
        Step::SplitEdges { splits } => {
            let mut added: Vec<String> = splits
                .edges
                .iter()
                .map(|e| format!("{} on {} → {}", name(e.block), name(e.from), name(e.to)))
                .collect();
            if let Some(b) = splits.new_entry {
                added.insert(0, format!("a fresh start block {} (the first block is a branch target)", name(b)));
            }
            if added.is_empty() {
                format!("{head}: no edge runs from a branch to a join, so nothing is split")
            } else {
                format!(
                    "{head}: new empty block{} {}",
                    plural(added.len()),
                    name_list(added.iter().map(String::as_str))
                )
            }
        }
        Step::Local { .. } => format!("{head}: NComp, XComp and Transp of every block, from its own instructions"),
        Step::Earliest { .. } => format!("{head}: NEarliest and XEarliest from the safety bits, without iterating"),
        Step::Latest { .. } => format!("{head}: NLatest and XLatest from the delay bits, without iterating"),
        Step::Transform { moved, edits, .. } => {
            if moved.is_empty() {
                return format!("{head}: no computation can move; the program stays as it is");
            }
            let exprs: Vec<&str> =
                moved.iter().filter_map(|e| out.trace.exprs.get(e.0 as usize)).map(String::as_str).collect();
            let count = |f: fn(&Edit) -> bool| edits.iter().filter(|e| f(e)).count();
            let inserted = count(|e| matches!(e, Edit::Insert { .. }));
            let deleted = count(|e| matches!(e, Edit::Delete { .. }));
            let unsplit = count(|e| matches!(e, Edit::Unsplit { .. } | Edit::RemoveEntry { .. }));
            let mut s = format!(
                "{head}: {} moves — {inserted} computation{} inserted, {deleted} deleted",
                name_list(exprs),
                plural(inserted)
            );
            let phis = count(|e| matches!(e, Edit::Phi { .. }));
            if phis > 0 {
                s.push_str(&format!("; {phis} new block argument{} where moved values meet", plural(phis)));
            }
            if unsplit > 0 {
                s.push_str(&format!("; {unsplit} unused new block{} removed again", plural(unsplit)));
            }
            s
        }
        // Fixpoints are described per round.
        _ => head.to_string(),
    }
}

#[cfg(test)]
mod tests;
