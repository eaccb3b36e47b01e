//! Bril's own dominator goldens (`examples/test/dom` in the Bril repository, copied to
//! `../shared/corpus/bril/examples-test/dom/`): for each `X.bril`,
//!
//! * `X.dom.json`   — each block's dominators, itself included, sorted by name;
//! * `X.front.json` — each block's dominance frontier, sorted;
//! * `X.tree.json`  — each block's children in the dominator tree, sorted;
//!
//! one JSON object per function, as Bril's `dom.py` prints them. Bril first normalizes the
//! entry (`cfg::with_fresh_entry`: a loop-header entry gets a fresh empty `entry1` in front),
//! so we do too. A second test runs every analysis on every Bril program in the corpus and
//! checks the results against the definitions.

mod common;

use optlab_core::cfg::{self, Cfg};
use optlab_core::dom::{self, ControlDeps, DomKind, DomNode, DomTree};
use optlab_core::entity::EntityRef;
use optlab_core::ir::{BlockId, Function};
use optlab_core::{parse_module, Lang};
use std::collections::BTreeMap;
use std::path::Path;

type Golden = BTreeMap<String, Vec<String>>;

fn read_goldens(path: &Path) -> Vec<Golden> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::Deserializer::from_str(&text)
        .into_iter::<Golden>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn parse_file(path: &Path) -> optlab_core::Module {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    parse_module(Lang::Bril, &name, &text).unwrap_or_else(|e| {
        let src = optlab_core::SourceFile::new(name.clone(), text.clone());
        panic!("{name} does not parse:\n{}", e.render(&src))
    })
}

/// Our three answers for one (normalized) function, in the goldens' shape.
fn ours(f: &Function) -> [Golden; 3] {
    let cfg = Cfg::new(f);
    let dt = DomTree::dominators(f, &cfg);
    let df = dom::frontier(&cfg, &dt);
    let name = |b: BlockId| f.blocks[b].name.to_string();
    let sorted = |v: Vec<String>| {
        let mut v = v;
        v.sort();
        v
    };
    let (mut doms, mut front, mut tree) = (Golden::new(), Golden::new(), Golden::new());
    for &b in cfg.blocks() {
        assert!(
            cfg.is_reachable(b),
            "{}: block `{}` is unreachable; Bril's dom.py gives such blocks every reachable block as dominator — extend this test before adding such a golden",
            f.name,
            name(b)
        );
        doms.insert(name(b), sorted(dt.ancestors(b).map(name).collect()));
        front.insert(name(b), sorted(df[b].iter().map(|&x| name(x)).collect()));
        tree.insert(name(b), sorted(dt.children(DomNode::Block(b)).iter().map(|&x| name(x)).collect()));
    }
    [doms, front, tree]
}

#[test]
fn bril_dom_goldens_match() {
    let Some(shared) = common::shared_dir() else { return };
    let dir = shared.join("corpus/bril/examples-test/dom");
    let inputs = common::files_with_ext(&dir, "bril");
    assert!(!inputs.is_empty(), "no .bril files in {}", dir.display());
    let mut checked = 0;
    for input in &inputs {
        let module = parse_file(input);
        let answers: Vec<[Golden; 3]> = module.bodies().map(|f| ours(&cfg::with_fresh_entry(f))).collect();
        for (k, ext) in ["dom.json", "front.json", "tree.json"].iter().enumerate() {
            let golden_path = input.with_extension(ext);
            if !golden_path.exists() {
                continue;
            }
            let goldens = read_goldens(&golden_path);
            assert_eq!(goldens.len(), answers.len(), "{}: one object per function", golden_path.display());
            for (want, got) in goldens.iter().zip(&answers) {
                assert_eq!(
                    &got[k],
                    want,
                    "{}\nours:\n{}\ngolden:\n{}",
                    golden_path.display(),
                    serde_json::to_string_pretty(&got[k]).unwrap(),
                    serde_json::to_string_pretty(want).unwrap()
                );
                checked += 1;
            }
        }
    }
    eprintln!("{checked} Bril dominator goldens matched");
    assert!(checked >= 6, "expected the dom, front and tree goldens of loopcond and while");
}

/// Every analysis on one real function, checked against the definitions (the virtual exit
/// is node `n`; the rule's extra edges are taken from the tree and checked for coverage).
fn check_against_definitions(f: &Function, what: &str) {
    let n = f.blocks.len();
    let cfg = Cfg::new(f);
    let dt = DomTree::dominators(f, &cfg);
    let pdt = DomTree::post_dominators(f, &cfg);
    let df = dom::frontier(&cfg, &dt);
    let cd = ControlDeps::new(f, &cfg, &pdt);
    let b = |i: usize| BlockId(i as u32);
    let placed: Vec<usize> = cfg.blocks().iter().map(|x| x.index()).collect();
    let mut succ: Vec<Vec<usize>> = (0..n).map(|i| cfg.succs(b(i)).iter().map(|x| x.index()).collect()).collect();
    succ.push(Vec::new());
    let mut pred_aug: Vec<Vec<usize>> = (0..n).map(|i| cfg.preds(b(i)).iter().map(|x| x.index()).collect()).collect();
    pred_aug.push(pdt.virtual_exit_edges().iter().map(|e| e.block.index()).collect());
    let entry = cfg.entry().unwrap().index();
    let reachable = common::reach_avoiding(&succ, &[entry], None);
    assert!(placed.iter().all(|&i| common::reach_avoiding(&pred_aug, &[n], None)[i]), "{what}: every block reaches the virtual exit");
    for &a in &placed {
        let without = common::reach_avoiding(&succ, &[entry], Some(a));
        let to_exit = common::reach_avoiding(&pred_aug, &[n], Some(a));
        for &y in &placed {
            let dom_ay = reachable[a] && reachable[y] && (a == y || !without[y]);
            assert_eq!(dt.dominates(b(a), b(y)), dom_ay, "{what}: {} dom {}", f.blocks[b(a)].name, f.blocks[b(y)].name);
            assert_eq!(pdt.dominates(b(a), b(y)), a == y || !to_exit[y], "{what}: pdom");
        }
        let want_df: Vec<BlockId> = placed
            .iter()
            .copied()
            .filter(|&y| {
                reachable[y]
                    && cfg.preds(b(y)).iter().any(|&p| dt.dominates(b(a), p))
                    && !dt.strictly_dominates(b(a), b(y))
            })
            .map(b)
            .collect();
        assert_eq!(df[b(a)], want_df, "{what}: DF({})", f.blocks[b(a)].name);
        let want_cd: Vec<BlockId> = placed
            .iter()
            .copied()
            .filter(|&x| {
                cfg.succs(b(x)).iter().any(|&s| pdt.dominates(b(a), s)) && !pdt.strictly_dominates(b(a), b(x))
            })
            .map(b)
            .collect();
        assert_eq!(cd.deps(b(a)), want_cd.as_slice(), "{what}: CD({})", f.blocks[b(a)].name);
    }
    for kind in [DomKind::Dominators, DomKind::PostDominators] {
        let (t, ev) = DomTree::build_traced(f, &cfg, kind);
        let replay = dom::trace::replay_idoms(&ev);
        assert!(replay.iter().all(|&(v, d)| t.parent_of(v) == Some(d)), "{what}: trace replay");
    }
}

#[test]
fn every_bril_program_in_the_corpus_meets_the_definitions() {
    let Some(shared) = common::shared_dir() else { return };
    let files = common::corpus::read_valid(&shared, Lang::Bril);
    let mut functions = 0;
    for file in &files {
        let module = file.module();
        for f in module.bodies() {
            let what = format!("{}:@{}", file.rel, f.name);
            check_against_definitions(f, &what);
            check_against_definitions(&cfg::with_fresh_entry(f), &what);
            functions += 1;
        }
    }
    eprintln!("{} Bril files, {functions} functions checked against the definitions", files.len());
    assert!(functions > 0);
}
