//! `cfg`, `dom`, `cdg` and `loops`: the graph analyses of every function with a body, as JSON (a fixed
//! shape other tools read), DOT (for Graphviz and slides) or indented text.
//!
//! Block names are printed without Bril's leading dot. Lists are sorted by block name and
//! JSON objects are keyed by block name (serde_json's map keeps keys sorted), so output is
//! stable across runs and diffs well.

use crate::input::Failure;
use crate::GraphFormat;
use optlab_core::cfg::Cfg;
use optlab_core::dom::{frontier, ControlDeps, DomKind, DomNode, DomTree, LoopForest, VIRTUAL_EXIT_NAME};
use optlab_core::ir::{BlockId, Function, Module};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write;

/// `optlab dom --format json`, one entry per function; field order is the documented shape.
#[derive(Serialize)]
struct DomJson<'a> {
    name: &'a str,
    idom: BTreeMap<String, Option<String>>,
    frontier: BTreeMap<String, Vec<String>>,
}

/// `optlab cdg --format json`, one entry per function.
#[derive(Serialize)]
struct CdgJson<'a> {
    name: &'a str,
    deps: BTreeMap<String, Vec<String>>,
}

#[derive(Serialize)]
struct Functions<T> {
    functions: Vec<T>,
}

fn functions_json<T: Serialize>(functions: Vec<T>) -> String {
    let mut s = serde_json::to_string_pretty(&Functions { functions }).unwrap_or_default();
    s.push('\n');
    s
}

fn name(f: &Function, b: BlockId) -> String {
    f.block_name(b)
}

fn sorted_names(f: &Function, blocks: &[BlockId]) -> Vec<String> {
    let mut v: Vec<String> = blocks.iter().map(|&b| name(f, b)).collect();
    v.sort();
    v.dedup();
    v
}

fn to_json(v: Value) -> String {
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// DOT string literal.
fn q(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

pub fn cfg(m: &Module, format: GraphFormat) -> Result<String, Failure> {
    match format {
        GraphFormat::Json => {
            let funcs: Vec<Value> = m
                .bodies()
                .map(|f| {
                    let cfg = Cfg::new(f);
                    let blocks: Vec<Value> = f
                        .layout
                        .iter()
                        .map(|&b| {
                            json!({
                                "name": name(f, b),
                                "succs": cfg.succs(b).iter().map(|&s| name(f, s)).collect::<Vec<_>>(),
                                "preds": cfg.preds(b).iter().map(|&p| name(f, p)).collect::<Vec<_>>(),
                                "reachable": cfg.is_reachable(b),
                                "exit": f.is_exit_block(b),
                            })
                        })
                        .collect();
                    json!({
                        "name": f.name,
                        "entry": f.entry().map(|b| name(f, b)),
                        "blocks": blocks,
                        "rpo": cfg.reverse_postorder().map(|b| name(f, b)).collect::<Vec<_>>(),
                        "unreachable": cfg.unreachable_blocks().iter().map(|&b| name(f, b)).collect::<Vec<_>>(),
                    })
                })
                .collect();
            Ok(to_json(json!({ "functions": funcs })))
        }
        GraphFormat::Dot => {
            let mut out = String::new();
            for f in m.bodies() {
                let cfg = Cfg::new(f);
                let _ = writeln!(out, "digraph {} {{", q(&f.name));
                let _ = writeln!(out, "  node [shape=box, fontname=\"monospace\"];");
                for &b in &f.layout {
                    let style = if cfg.is_reachable(b) { "" } else { ", style=dashed" };
                    let _ = writeln!(out, "  {} [label={}{style}];", q(&name(f, b)), q(&name(f, b)));
                }
                for (a, b) in cfg.edges() {
                    let _ = writeln!(out, "  {} -> {};", q(&name(f, a)), q(&name(f, b)));
                }
                out.push_str("}\n");
            }
            Ok(out)
        }
        GraphFormat::Text => {
            let mut out = String::new();
            for f in m.bodies() {
                let cfg = Cfg::new(f);
                let _ = writeln!(out, "{}:", f.name);
                for &b in &f.layout {
                    let succs: Vec<String> = cfg.succs(b).iter().map(|&s| name(f, s)).collect();
                    let mark = if cfg.is_reachable(b) { "" } else { "  (unreachable)" };
                    let _ = writeln!(out, "  {} -> [{}]{mark}", name(f, b), succs.join(", "));
                }
            }
            Ok(out)
        }
    }
}

pub fn dom(m: &Module, post: bool, format: GraphFormat) -> Result<String, Failure> {
    let kind = if post { DomKind::PostDominators } else { DomKind::Dominators };
    let trees: Vec<(&Function, Cfg, DomTree)> = m
        .bodies()
        .map(|f| {
            let cfg = Cfg::new(f);
            let t = DomTree::build(f, &cfg, kind);
            (f, cfg, t)
        })
        .collect();
    match format {
        GraphFormat::Json => {
            let funcs: Vec<DomJson> = trees
                .iter()
                .map(|(f, cfg, t)| {
                    let df = frontier(cfg, t);
                    DomJson {
                        name: &f.name,
                        idom: f.layout.iter().map(|&b| (name(f, b), t.idom(b).map(|p| name(f, p)))).collect(),
                        frontier: f.layout.iter().map(|&b| (name(f, b), sorted_names(f, &df[b]))).collect(),
                    }
                })
                .collect();
            Ok(functions_json(funcs))
        }
        GraphFormat::Dot => {
            let mut out = String::new();
            for (f, _, t) in &trees {
                let title = if post { format!("{} post-dominators", f.name) } else { format!("{} dominators", f.name) };
                let _ = writeln!(out, "digraph {} {{", q(&title));
                let _ = writeln!(out, "  node [shape=box, fontname=\"monospace\"];");
                if post {
                    let _ = writeln!(out, "  {} [shape=ellipse, style=dashed];", q(VIRTUAL_EXIT_NAME));
                }
                for n in t.preorder() {
                    if let DomNode::Block(b) = n {
                        if let Some(p) = t.parent(b) {
                            let _ = writeln!(out, "  {} -> {};", q(&p.name(f)), q(&name(f, b)));
                        } else {
                            let _ = writeln!(out, "  {};", q(&name(f, b)));
                        }
                    }
                }
                out.push_str("}\n");
            }
            Ok(out)
        }
        GraphFormat::Text => {
            let mut out = String::new();
            for (f, _, t) in &trees {
                let what = if post { "post-dominator tree" } else { "dominator tree" };
                let _ = writeln!(out, "{} ({what}):", f.name);
                if let Some(root) = t.root() {
                    let mut stack = vec![(root, 1usize)];
                    while let Some((n, depth)) = stack.pop() {
                        let _ = writeln!(out, "{}{}", "  ".repeat(depth), n.name(f));
                        for &c in t.children(n).iter().rev() {
                            stack.push((DomNode::Block(c), depth + 1));
                        }
                    }
                }
                let outside: Vec<String> = f.layout.iter().filter(|&&b| !t.contains(b)).map(|&b| name(f, b)).collect();
                if !outside.is_empty() {
                    let _ = writeln!(out, "  not in the tree (unreachable): {}", outside.join(", "));
                }
            }
            Ok(out)
        }
    }
}

pub fn cdg(m: &Module, format: GraphFormat) -> Result<String, Failure> {
    let graphs: Vec<(&Function, ControlDeps)> = m
        .bodies()
        .map(|f| {
            let cfg = Cfg::new(f);
            let pdt = DomTree::post_dominators(f, &cfg);
            let cd = ControlDeps::new(f, &cfg, &pdt);
            (f, cd)
        })
        .collect();
    match format {
        GraphFormat::Json => {
            let funcs: Vec<CdgJson> = graphs
                .iter()
                .map(|(f, cd)| CdgJson {
                    name: &f.name,
                    deps: f.layout.iter().map(|&b| (name(f, b), sorted_names(f, cd.deps(b)))).collect(),
                })
                .collect();
            Ok(functions_json(funcs))
        }
        GraphFormat::Dot => {
            let mut out = String::new();
            for (f, cd) in &graphs {
                let _ = writeln!(out, "digraph {} {{", q(&format!("{} control dependence", f.name)));
                let _ = writeln!(out, "  node [shape=box, fontname=\"monospace\"];");
                for &b in &f.layout {
                    let _ = writeln!(out, "  {};", q(&name(f, b)));
                }
                for (x, y) in cd.edges() {
                    let _ = writeln!(out, "  {} -> {};", q(&name(f, x)), q(&name(f, y)));
                }
                out.push_str("}\n");
            }
            Ok(out)
        }
        GraphFormat::Text => {
            let mut out = String::new();
            for (f, cd) in &graphs {
                let _ = writeln!(out, "{} (control dependence):", f.name);
                for &b in &f.layout {
                    let d = sorted_names(f, cd.deps(b));
                    let text = if d.is_empty() { "always runs once entered".to_string() } else { d.join(", ") };
                    let _ = writeln!(out, "  {} <- {text}", name(f, b));
                }
            }
            Ok(out)
        }
    }
}

/// `optlab loops`: each function's natural loops (header, latches, body, depth, the loop it
/// is nested in) and the edges where its graph is irreducible. DOT draws the CFG with each
/// block shaded by its loop depth and back edges bold.
pub fn loops(m: &Module, format: GraphFormat) -> Result<String, Failure> {
    let forests: Vec<(&Function, Cfg, LoopForest)> = m
        .bodies()
        .map(|f| {
            let cfg = Cfg::new(f);
            let dom = DomTree::dominators(f, &cfg);
            let forest = LoopForest::new(f, &cfg, &dom);
            (f, cfg, forest)
        })
        .collect();
    let names = |f: &Function, bs: &[BlockId]| bs.iter().map(|&b| name(f, b)).collect::<Vec<_>>();
    match format {
        GraphFormat::Json => {
            let funcs: Vec<Value> = forests
                .iter()
                .map(|(f, _, l)| {
                    json!({
                        "name": f.name,
                        "loops": l.loops.iter().map(|lp| json!({
                            "header": name(f, lp.header),
                            "latches": names(f, &lp.latches),
                            "body": names(f, &lp.body),
                            "depth": lp.depth,
                            "parent": lp.parent.map(|p| name(f, l.loops[p].header)),
                        })).collect::<Vec<_>>(),
                        "irreducible": l.irreducible.iter().map(|&(t, h)| json!([name(f, t), name(f, h)])).collect::<Vec<_>>(),
                    })
                })
                .collect();
            Ok(to_json(json!({ "functions": funcs })))
        }
        GraphFormat::Text => {
            let mut out = String::new();
            for (f, _, l) in &forests {
                let n = l.loops.len();
                let _ = writeln!(out, "{}: {n} natural loop{}", f.name, if n == 1 { "" } else { "s" });
                // Depth-first through the forest, children indented under their parent.
                let mut stack: Vec<usize> = (0..n).filter(|&k| l.loops[k].parent.is_none()).rev().collect();
                while let Some(k) = stack.pop() {
                    let lp = &l.loops[k];
                    let _ = writeln!(
                        out,
                        "{}loop {} (depth {}): back edges from {}; body {}",
                        "  ".repeat(lp.depth as usize),
                        name(f, lp.header),
                        lp.depth,
                        names(f, &lp.latches).join(", "),
                        names(f, &lp.body).join(" ")
                    );
                    stack.extend((0..n).filter(|&c| l.loops[c].parent == Some(k)).rev());
                }
                for &(t, h) in &l.irreducible {
                    let _ = writeln!(out, "  irreducible: {} → {} enters a cycle its target does not dominate", name(f, t), name(f, h));
                }
            }
            Ok(out)
        }
        GraphFormat::Dot => {
            let mut out = String::new();
            for (f, cfg, l) in &forests {
                let _ = writeln!(out, "digraph {} {{", q(&format!("{} loops", f.name)));
                let _ = writeln!(out, "  node [shape=box, fontname=\"monospace\", style=filled];");
                for &b in cfg.blocks() {
                    // Deeper blocks darker: greys from white.
                    let d = l.depth_of(b).min(4);
                    let grey = 100 - 12 * d;
                    let _ = writeln!(out, "  {} [fillcolor=\"grey{grey}\"];", q(&name(f, b)));
                }
                for (t, h) in cfg.edges() {
                    let back = l.loops.iter().any(|lp| lp.header == h && lp.latches.contains(&t));
                    let attrs = if back { " [style=bold, label=\"back\"]" } else { "" };
                    let _ = writeln!(out, "  {} -> {}{attrs};", q(&name(f, t)), q(&name(f, h)));
                }
                let _ = writeln!(out, "}}");
            }
            Ok(out)
        }
    }
}
