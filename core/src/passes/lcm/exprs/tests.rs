//! Step 2's matcher against the one it replaced: expressions keyed by an owned
//! `(opcode, shape, names)` tuple in a `HashMap`, built in layout order, an expression whose
//! occurrences declare different types left out; and the SIL texts against the joined form.

use super::*;
use std::collections::HashMap as StdMap;

/// The expressions (`op`, names, values, type, trap) and each instruction's expression
/// index, as the former `collect` made them.
#[allow(clippy::type_complexity)]
fn by_owned_keys<'f>(f: &'f Function, opts: &Options) -> (Vec<(Op, Vec<ValueId>, Vec<ValueId>, Type, bool, Option<String>)>, Vec<(InstId, Option<usize>)>) {
    let names = Names::new(f);
    let mut trivial = Trivial { by_type: HashMap::new(), by_value: vec![0; f.values.len()] };
    let no_trapping = f.lang == Lang::Sil && placed_insts(f).any(|(_, i)| f.insts.get(i).is_some_and(effectful_terminator));
    static NOP: Op = Op::Bril(BrilOp::Nop);
    let mut scratch = Cand::new(&NOP);
    let mut index: StdMap<(Op, String, Vec<ValueId>), usize> = StdMap::new();
    let mut keys: Vec<(Cand<'f>, &'f Inst, bool)> = Vec::new();
    let mut occ: Vec<(InstId, usize)> = Vec::new();
    for (_, i) in placed_insts(f) {
        let Some(inst) = f.insts.get(i) else { continue };
        if !candidate_key(f, inst, opts, &names, &mut trivial, &mut scratch) || (no_trapping && scratch.trap.is_some()) {
            continue;
        }
        let c = scratch.keep();
        let key = (c.op.clone(), c.shape.clone(), c.names.clone());
        let k = *index.entry(key).or_insert_with(|| {
            keys.push((c.keep(), inst, false));
            keys.len() - 1
        });
        if keys[k].0.ty != c.ty {
            keys[k].2 = true;
        }
        occ.push((i, k));
    }
    let mut id = vec![None; keys.len()];
    let mut list = Vec::new();
    for (k, (c, inst, conflicting)) in keys.iter().enumerate() {
        if !conflicting {
            id[k] = Some(list.len());
            let ty = c.ty.expect("a candidate has a type");
            let text = if f.lang == Lang::Sil { sil_text_by_join(f, inst, ty) } else { None };
            list.push((c.op.clone(), c.names.clone(), c.values.clone(), ty.clone(), c.trap.is_some(), text));
        }
    }
    (list, occ.into_iter().map(|(i, k)| (i, id[k])).collect())
}

fn modules() -> Vec<(String, crate::ir::Module)> {
    let mut out = Vec::new();
    for (n, seed) in [(40, 1), (150, 2), (400, 3)] {
        for (lang, text) in [(Lang::Bril, crate::testgen::scale::bril_program(n, seed)), (Lang::Sil, crate::testgen::scale::sil_program(n, seed))] {
            out.push((format!("scale {lang:?} {n}"), crate::parse_module(lang, "t", &text).expect("parses")));
        }
    }
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let mut paths: Vec<(Lang, std::path::PathBuf)> = Vec::new();
    for e in std::fs::read_dir(root.join("swift")).expect("the shared corpus (../shared/corpus) is present").flatten() {
        if e.path().extension().is_some_and(|x| x == "sil") {
            paths.push((Lang::Sil, e.path()));
        }
    }
    for e in std::fs::read_dir(root.join("bril/benchmarks/core")).into_iter().flatten().flatten() {
        if e.path().extension().is_some_and(|x| x == "bril") {
            paths.push((Lang::Bril, e.path()));
        }
    }
    paths.sort_by(|a, b| a.1.cmp(&b.1));
    for (lang, p) in paths {
        if let Ok(m) = crate::parse_module(lang, "t", &std::fs::read_to_string(&p).unwrap_or_default()) {
            out.push((p.display().to_string(), m));
        }
    }
    out
}

#[test]
fn the_matcher_finds_the_expressions_owned_keys_find() {
    let (mut functions, mut exprs) = (0, 0);
    for (what, m) in modules() {
        for f in m.bodies() {
            for commute in [false, true] {
                let opts = Options { commute };
                let ex = Exprs::collect(f, &opts);
                let (want, occ) = by_owned_keys(f, &opts);
                let got: Vec<_> = ex.list.values().map(|e| (e.op.clone(), e.arg_values.clone(), e.ty.clone(), e.traps, e.sil_text.clone())).collect();
                let want_list: Vec<_> = want.iter().map(|(op, _, values, ty, traps, text)| (op.clone(), values.clone(), ty.clone(), *traps, text.clone())).collect();
                assert_eq!(got, want_list, "{what} @{} commute {commute}", f.name);
                for (e, (_, names, ..)) in ex.list.values().zip(&want) {
                    let spelled: Vec<String> = names.iter().map(|&v| f.values.get(v).map_or_else(String::new, |d| d.name.to_string())).collect();
                    assert_eq!(e.args, spelled, "{what} @{}", f.name);
                }
                for &(i, e) in &occ {
                    assert_eq!(ex.computes[i].map(|x| x.index()), e, "{what} @{} {i:?}", f.name);
                }
                let placed = occ.iter().filter(|o| o.1.is_some()).count();
                assert_eq!(ex.occurrences.values().map(Vec::len).sum::<usize>(), placed, "{what} @{}", f.name);
                exprs += got.len();
            }
            functions += 1;
        }
    }
    assert!(functions > 100 && exprs > 1000, "{functions} functions, {exprs} expressions");
}

/// The SIL texts, written into one string, are the joined ones on every instruction with a
/// SIL result type (candidates or not), undefined operands included.
#[test]
fn sil_texts_are_the_joined_ones() {
    let mut n = 0;
    for (what, m) in modules() {
        for f in m.bodies().filter(|f| f.lang == Lang::Sil) {
            for (_, i) in placed_insts(f) {
                let inst = &f.insts[i];
                let Some(&r) = inst.results.first() else { continue };
                let Some(ty) = sil_type(f, r) else { continue };
                assert_eq!(sil_text_of(f, inst, ty), sil_text_by_join(f, inst, ty), "{what} @{} {i:?}", f.name);
                n += 1;
            }
        }
    }
    let text = "sil_stage canonical\nimport Builtin\nsil @f : $@convention(thin) (Builtin.Int64) -> Builtin.Int64 {\nbb0(%0 : $Builtin.Int64):\n  %1 = builtin \"add_Int64\"(%0 : $Builtin.Int64, undef : $Builtin.Int64) : $Builtin.Int64\n  return %1 : $Builtin.Int64\n}\n";
    let m = crate::parse_module(Lang::Sil, "t", text).expect("parses");
    let f = m.bodies().next().expect("a body");
    let (_, i) = placed_insts(f).next().expect("an instruction");
    let ty = sil_type(f, f.insts[i].results[0]).expect("typed");
    let got = sil_text_of(f, &f.insts[i], ty).expect("a text");
    assert!(got.contains("undef"), "{got}");
    assert_eq!(Some(got), sil_text_by_join(f, &f.insts[i], ty));
    assert!(n > 1000, "{n} instructions");
}
