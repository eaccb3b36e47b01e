//! SIL printers.
//!
//! Instructions print from their templates (`Inst::sil`): the user's own syntax with the
//! operands and successors filled in from the current `args`/`succs`, so a pass that swaps an
//! operand for `undef` or retargets a branch changes exactly that hole. An instruction a pass
//! built from scratch (empty template), or whose template no longer matches its operands,
//! prints from its structured fields instead.
//!
//! With [`Naming::Renumber`] blocks and values are numbered the way `sil-opt` prints them, so
//! the output can be checked against Swift's own FileCheck lines.

use crate::sil::insts::Results;
use super::{FunctionLines, LineKind, LinesSink, Naming, Sink, TextSink};
use crate::ir::{BlockId, Function, Imm, Inst, InstId, Item, Module, Op, Piece, SilOp, Succ, Type, ValueDef, ValueId};
use crate::parse::sil::lexer::{global_ref, is_plain_name};
use std::collections::HashMap;
use std::fmt::Write;

/// The whole module: items in source order, a blank line between them (consecutive
/// one-line `import`s stay together, as `sil-opt` prints them).
pub fn print_module(m: &Module, naming: Naming) -> String {
    // Sized from the text the module was read from, which the printing is about as long as
    // (a sixteenth more for edits and renumbering): growing by doubling reallocated and copied
    // a 20 MB string several times at 10^5 blocks, a tenth of the printing (issue 17).
    let src = m.source.text.len();
    let mut out = String::with_capacity(src + src / 16);
    let mut prev_import = false;
    for item in &m.items {
        // A function is written into `out` directly, not printed apart and copied.
        let (raw, is_import) = match item {
            Item::Raw { text, .. } => {
                let t = text.trim();
                (Some(t), t.starts_with("import ") && !t.contains('\n'))
            }
            Item::Function(i) if m.functions.get(*i).is_some() => (None, false),
            Item::Function(_) => continue,
        };
        if !out.is_empty() && (!prev_import || !is_import) {
            out.push('\n');
        }
        match (raw, item) {
            (Some(t), _) => {
                out.push_str(t);
                out.push('\n');
            }
            (None, Item::Function(i)) => {
                if let Some(f) = m.functions.get(*i) {
                    write_function(f, naming, &mut TextSink(&mut out));
                }
            }
            (None, Item::Raw { .. }) => {}
        }
        prev_import = is_import;
    }
    out
}

/// One function, ending with `} // end sil function 'name'` (or the header alone for a
/// declaration).
pub fn print_function(f: &Function, naming: Naming) -> String {
    let mut out = String::new();
    write_function(f, naming, &mut TextSink(&mut out));
    out
}

/// One function as tagged lines: the header, per block a blank line (between blocks), its
/// label (with parameters, if any; none for an implicit entry) and one line per instruction,
/// and the closing comment line.
pub fn function_lines(f: &Function, naming: Naming) -> FunctionLines {
    let mut s = LinesSink::default();
    write_function(f, naming, &mut s);
    s.finish()
}

/// One instruction's line with the user's names, trimmed: the text [`function_lines`] gives
/// it. A pass that rewrites one instruction at a time asks for that line alone instead of
/// printing the whole function again.
pub fn inst_line(f: &Function, i: InstId) -> String {
    let Some(inst) = f.insts.get(i) else { return String::new() };
    let mut line = String::new();
    write_inst(&mut line, inst, &Names::new(f, Naming::User));
    line.trim().to_string()
}

fn write_function(f: &Function, naming: Naming, sink: &mut impl Sink) {
    let names = Names::new(f, naming);
    let mut head = String::from("sil ");
    let default_header = Default::default();
    let h = f.sil.as_ref().unwrap_or(&default_header);
    if let Some(l) = &h.linkage {
        let _ = write!(head, "{l} ");
    }
    for a in &h.attrs {
        let _ = write!(head, "[{a}] ");
    }
    let ty = if h.ty.is_empty() { "$() -> ()" } else { h.ty.as_str() };
    let _ = write!(head, "{} : {ty}", global_ref(&f.name));
    if !h.extra.is_empty() {
        let _ = write!(head, " {}", h.extra);
    }
    if f.is_declaration() {
        sink.head(&head);
        return;
    }
    head.push_str(" {");
    sink.head(&head);
    // One buffer for every instruction line.
    let mut line = String::new();
    let opened = if naming == Naming::Renumber { opened_archetypes(f, &names) } else { Vec::new() };
    for (k, &b) in f.layout.iter().enumerate() {
        let Some(blk) = f.blocks.get(b) else { continue };
        sink.block(b);
        if k > 0 {
            sink.line("", LineKind::Blank);
        }
        let implicit = naming == Naming::User && k == 0 && !blk.labeled && blk.params.is_empty();
        if naming == Naming::Renumber && k == 0 {
            // sil-opt names the arguments that stand for a declaration above the entry.
            for &p in &blk.params {
                if let Some(d) = f.values.get(p).and_then(|d| d.decl.as_ref()) {
                    sink.line(&format!("// {} \"{d}\"", names.value(p)), LineKind::Comment);
                }
            }
        }
        if !implicit {
            let mut label = names.block(b);
            let kind = if blk.params.is_empty() {
                LineKind::Label
            } else {
                let params: Vec<String> = blk.params.iter().map(|&p| names.param(p)).collect();
                let _ = write!(label, "({})", params.join(", "));
                LineKind::Params
            };
            label.push(':');
            sink.line(&label, kind);
        }
        for i in blk.all_insts() {
            if let Some(inst) = f.insts.get(i) {
                line.clear();
                line.push_str("  ");
                write_inst(&mut line, inst, &names);
                if naming == Naming::Renumber {
                    // sil-opt's comments: the function a `function_ref` names, and the id of
                    // an instruction without results.
                    if let (Op::Sil(SilOp::FunctionRef), [callee]) = (&inst.op, &inst.funcs[..]) {
                        sink.line(&format!("  // function_ref {callee}"), LineKind::Comment);
                    }
                    let defs = type_defs(inst, &line, &opened);
                    match (defs, names.ids.get(&i)) {
                        (Some(d), Some(id)) => {
                            let _ = write!(line, " // type-defs: {d}; id: %{id}");
                        }
                        (Some(d), None) => {
                            let _ = write!(line, " // type-defs: {d};");
                        }
                        (None, Some(id)) => {
                            let _ = write!(line, " // id: %{id}");
                        }
                        (None, None) => {}
                    }
                }
                sink.line(&line, LineKind::Inst(i));
            }
        }
    }
    sink.tail(&format!("}} // end sil function '{}'", f.name));
}

/// Each archetype opened from an existential (its `@opened("id"` text) and the value of
/// the instruction that opens it, as printed.
fn opened_archetypes(f: &Function, names: &Names) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for &b in &f.layout {
        let Some(blk) = f.blocks.get(b) else { continue };
        for i in blk.all_insts() {
            let Some(inst) = f.insts.get(i) else { continue };
            let (Some(&r), true) = (inst.results.first(), inst.op.name().starts_with("open_existential")) else { continue };
            let mut text = String::new();
            write_inst(&mut text, inst, names);
            let Some(to) = text.rfind(" to $") else { continue };
            let Some(at) = text[to..].find("@opened(\"") else { continue };
            let id: String = text[to + at..].chars().take_while(|&c| c != ',' && c != ')').collect();
            out.push((id, names.value(r)));
        }
    }
    out
}

/// sil-opt's `type-defs` comment: the instructions that open the archetypes an instruction
/// names in a type of its own (an `alloc_stack`, a `witness_method`, a call's
/// substitutions), as `%3`.
fn type_defs(inst: &Inst, line: &str, opened: &[(String, String)]) -> Option<String> {
    const TYPED: &[&str] = &[
        "alloc_stack", "alloc_box", "metatype", "witness_method", "apply", "try_apply", "begin_apply", "partial_apply",
        "init_existential_addr", "init_existential_value", "unchecked_addr_cast", "unchecked_bitwise_cast",
        "unconditional_checked_cast", "unconditional_checked_cast_addr", "checked_cast_br", "checked_cast_addr_br",
    ];
    if opened.is_empty() || !TYPED.contains(&inst.op.name()) {
        return None;
    }
    let defs: Vec<&str> = opened.iter().filter(|(id, _)| line.contains(id.as_str())).map(|(_, v)| v.as_str()).collect();
    (!defs.is_empty()).then(|| defs.join(", "))
}

/// How blocks and values are spelled in one printing.
struct Names<'f> {
    f: &'f Function,
    blocks: HashMap<BlockId, usize>,
    values: HashMap<ValueId, usize>,
    /// Renumbered: the id of each instruction without results.
    ids: HashMap<InstId, usize>,
}

impl<'f> Names<'f> {
    fn new(f: &'f Function, naming: Naming) -> Names<'f> {
        let mut blocks = HashMap::new();
        let mut values = HashMap::new();
        let mut ids = HashMap::new();
        if naming == Naming::Renumber {
            // sil-opt numbers every instruction: a value per result, and an id for an
            // instruction without results (printed as `// id: %N`), from one counter.
            let mut next = 0usize;
            for (k, &b) in f.layout.iter().enumerate() {
                blocks.insert(b, k);
                let Some(blk) = f.blocks.get(b) else { continue };
                for &p in &blk.params {
                    values.entry(p).or_insert_with(|| {
                        next += 1;
                        next - 1
                    });
                }
                for i in blk.all_insts() {
                    let Some(inst) = f.insts.get(i) else { continue };
                    if inst.results.is_empty() {
                        ids.insert(i, next);
                        next += 1;
                    }
                    for &r in &inst.results {
                        values.entry(r).or_insert_with(|| {
                            next += 1;
                            next - 1
                        });
                    }
                }
            }
        }
        Names { f, blocks, values, ids }
    }

    fn block(&self, b: BlockId) -> String {
        if let Some(n) = self.blocks.get(&b) {
            return format!("bb{n}");
        }
        self.f.blocks.get(b).map_or_else(|| b.to_string(), |blk| blk.name.to_string())
    }

    /// [`Names::value`] appended to `out` (the printer's common case, without a string per
    /// operand).
    fn write_value(&self, out: &mut String, v: ValueId) {
        match self.f.values.get(v) {
            Some(data) if data.def != ValueDef::Undef && !self.values.contains_key(&v) && is_plain_name(&data.name) => {
                out.push('%');
                out.push_str(&data.name);
            }
            _ => out.push_str(&self.value(v)),
        }
    }

    /// [`Names::block`] appended to `out`.
    fn write_block(&self, out: &mut String, b: BlockId) {
        match self.f.blocks.get(b) {
            Some(blk) if !self.blocks.contains_key(&b) => out.push_str(&blk.name),
            _ => out.push_str(&self.block(b)),
        }
    }

    fn value(&self, v: ValueId) -> String {
        let Some(data) = self.f.values.get(v) else { return format!("%<missing {v}>") };
        if data.def == ValueDef::Undef {
            return "undef".to_string();
        }
        if let Some(n) = self.values.get(&v) {
            return format!("%{n}");
        }
        if is_plain_name(&data.name) {
            format!("%{}", data.name)
        } else {
            // A name no SIL parser would read back: fall back to the arena index.
            format!("%v{}", v.0)
        }
    }

    /// `%0 : @owned $Klass` in a block header.
    fn param(&self, p: ValueId) -> String {
        let mut s = self.value(p);
        if let Some(data) = self.f.values.get(p).filter(|d| d.ty.is_some() || d.ownership.is_some()) {
            s.push_str(" :");
            if let Some(o) = &data.ownership {
                let _ = write!(s, " @{o}");
            }
            if let Some(t) = &data.ty {
                let _ = write!(s, " {t}");
            }
        }
        s
    }

    /// `%3 : $T` using `ty`, else the value's own type, else just `%3`.
    fn typed(&self, v: ValueId, ty: Option<&Type>) -> String {
        let ty = ty.or_else(|| self.f.values.get(v).and_then(|d| d.ty.as_ref()));
        match ty {
            Some(t) => format!("{} : {t}", self.value(v)),
            None => self.value(v),
        }
    }

    /// `bb3(%1 : $T, undef : $U)`, typed by the target block's parameters.
    fn succ(&self, s: &Succ) -> String {
        let mut out = self.block(s.block);
        if !s.args.is_empty() {
            let params = self.f.blocks.get(s.block).map_or(&[][..], |b| &b.params[..]);
            let args: Vec<String> = s
                .args
                .iter()
                .enumerate()
                .map(|(j, &a)| {
                    let pty = params.get(j).and_then(|&p| self.f.values.get(p)).and_then(|d| d.ty.as_ref());
                    self.typed(a, pty)
                })
                .collect();
            let _ = write!(out, "({})", args.join(", "));
        }
        out
    }
}

fn write_inst(out: &mut String, inst: &Inst, names: &Names) {
    if inst.results.len() > 1 || is_multi_value(&inst.op) {
        let rs: Vec<String> = inst.results.iter().map(|&r| names.value(r)).collect();
        let _ = write!(out, "({}) = ", rs.join(", "));
    } else if let Some(&r) = inst.results.first() {
        names.write_value(out, r);
        out.push_str(" = ");
    }
    if template_fits(inst) {
        for p in &inst.sil {
            match *p {
                Piece::Text(ref t) => out.push_str(t),
                Piece::Arg(i) => names.write_value(out, inst.args[i as usize]),
                Piece::Succ(i) => names.write_block(out, inst.succs[i as usize].block),
                Piece::SuccArg(i, j) => names.write_value(out, inst.succs[i as usize].args[j as usize]),
            }
        }
    } else {
        out.push_str(&derived(inst, names));
    }
}

/// Instructions that define a list of results, which `sil-opt` always parenthesizes
/// (`(%1) = destructure_struct %0 : $S`).
fn is_multi_value(op: &Op) -> bool {
    op.sil_info().is_some_and(|e| match e.results {
        Results::Variadic(_) => true,
        Results::Fixed(r) => r.len() > 1,
    })
}

/// Whether the template's holes match the instruction's operands and successors one to one.
/// Successors of `switch_enum`, `try_apply`, … may have arguments without holes: the
/// terminator provides them and they are not written.
///
/// Asked for every printed instruction, so its tables live on the stack when they are small
/// (nearly always): two heap tables per instruction were a third of SIL printing's time.
fn template_fits(inst: &Inst) -> bool {
    if inst.sil.is_empty() {
        return false;
    }
    const HOLES: usize = 64;
    const SUCCS: usize = 16;
    let ns = inst.succs.len();
    let n = inst.args.len() + ns + inst.succs.iter().map(|s| s.args.len()).sum::<usize>();
    if n <= HOLES && ns < SUCCS {
        let (mut starts, mut counts) = ([0usize; SUCCS + 1], [0u8; HOLES]);
        holes_fit(inst, &mut starts[..ns + 1], &mut counts[..n])
    } else {
        holes_fit(inst, &mut vec![0; ns + 1], &mut vec![0; n])
    }
}

/// [`template_fits`] with its tables: `starts` has a slot per successor and one more,
/// `counts` one per hole (operands, then successors, then each successor's arguments), all 0.
fn holes_fit(inst: &Inst, starts: &mut [usize], counts: &mut [u8]) -> bool {
    // `starts[i]` is where successor `i`'s arguments begin in `counts`.
    let (na, ns) = (inst.args.len(), inst.succs.len());
    let mut n = na + ns;
    for (k, s) in inst.succs.iter().enumerate() {
        starts[k] = n;
        n += s.args.len();
    }
    starts[ns] = n;
    for p in inst.sil.iter() {
        let k = match *p {
            Piece::Text(_) => continue,
            Piece::Arg(i) if (i as usize) < na => i as usize,
            Piece::Succ(i) if (i as usize) < ns => na + i as usize,
            Piece::SuccArg(i, j) if (i as usize) < ns && (j as usize) < inst.succs[i as usize].args.len() => starts[i as usize] + j as usize,
            _ => return false,
        };
        counts[k] = counts[k].saturating_add(1);
    }
    let explicit_only = matches!(inst.op, Op::Sil(SilOp::Br | SilOp::CondBr));
    counts[..na + ns].iter().all(|&c| c == 1)
        && (0..ns).all(|i| {
            let v = &counts[starts[i]..starts[i + 1]];
            v.iter().all(|&c| c == 1) || (!explicit_only && v.iter().all(|&c| c == 0))
        })
}

/// The text of an instruction from its structured fields, for instructions without a usable
/// template (those a pass created).
fn derived(inst: &Inst, names: &Names) -> String {
    let arg = |k: usize| inst.args.get(k).map_or_else(|| "<missing operand>".to_string(), |&a| names.value(a));
    let typed = |k: usize| inst.args.get(k).map_or_else(|| "<missing operand>".to_string(), |&a| names.typed(a, None));
    let all_typed = || inst.args.iter().map(|&a| names.typed(a, None)).collect::<Vec<_>>().join(", ");
    let succ = |k: usize| inst.succs.get(k).map_or_else(|| "<missing block>".to_string(), |s| names.succ(s));
    let ty = inst.ty.as_ref().map_or_else(String::new, |t| t.to_string());
    let imm = match &inst.imm {
        Imm::None => String::new(),
        Imm::Int(v) => v.to_string(),
        Imm::Bool(b) => b.to_string(),
        Imm::Float(x) => format!("{x:?}"),
        Imm::Char(c) => c.to_string(),
        Imm::Name(n) => n.to_string(),
        Imm::Index(i) => i.to_string(),
    };
    let name = inst.op.name();
    let Op::Sil(op) = &inst.op else { return name.to_string() };
    match op {
        SilOp::Br => format!("br {}", succ(0)),
        SilOp::CondBr => format!("cond_br {}, {}, {}", arg(0), succ(0), succ(1)),
        SilOp::Return | SilOp::Throw => format!("{name} {}", typed(0)),
        SilOp::Unreachable => name.to_string(),
        SilOp::IntegerLiteral => format!("integer_literal {ty}, {imm}"),
        SilOp::FloatLiteral => match (&inst.imm, inst.ty.as_ref()) {
            (Imm::Float(x), Some(Type::Sil(t))) if t.ends_with("FPIEEE32") => {
                format!("float_literal {ty}, 0x{:X}", (*x as f32).to_bits())
            }
            (Imm::Float(x), _) => format!("float_literal {ty}, 0x{:X}", x.to_bits()),
            _ => format!("float_literal {ty}, {imm}"),
        },
        SilOp::StringLiteral => {
            format!("string_literal {} \"{imm}\"", inst.attrs.first().map_or("utf8", String::as_str))
        }
        SilOp::Tuple if inst.ty.is_some() => {
            let plain: Vec<String> = inst.args.iter().map(|&a| names.value(a)).collect();
            format!("tuple {ty} ({})", plain.join(", "))
        }
        SilOp::Tuple => format!("tuple ({})", all_typed()),
        SilOp::Struct => format!("struct {ty} ({})", all_typed()),
        SilOp::StructExtract | SilOp::StructElementAddr | SilOp::TupleExtract | SilOp::TupleElementAddr => {
            format!("{name} {}, {imm}", typed(0))
        }
        SilOp::Enum if inst.args.is_empty() => format!("enum {ty}, {imm}"),
        SilOp::Enum => format!("enum {ty}, {imm}, {}", typed(0)),
        SilOp::FunctionRef => format!(
            "function_ref {} : {ty}",
            inst.funcs.first().map_or_else(|| "@<missing>".to_string(), |n| global_ref(n))
        ),
        SilOp::Builtin => format!("builtin \"{imm}\"({}) : {ty}", all_typed()),
        _ => {
            let mut s = name.to_string();
            for a in &inst.attrs {
                let _ = write!(s, " [{a}]");
            }
            if !ty.is_empty() {
                let _ = write!(s, " {ty}");
            }
            let mut parts: Vec<String> = inst.args.iter().map(|&a| names.typed(a, None)).collect();
            parts.extend(inst.succs.iter().map(|s| names.succ(s)));
            if !parts.is_empty() {
                let _ = write!(s, " {}", parts.join(", "));
            }
            s
        }
    }
}

#[cfg(test)]
mod template_tests {
    use super::*;
    use crate::testgen::Rng;

    /// The check as it was, with its tables on the heap: the oracle for [`template_fits`].
    fn template_fits_heap(inst: &Inst) -> bool {
        if inst.sil.is_empty() {
            return false;
        }
        let (na, ns) = (inst.args.len(), inst.succs.len());
        let mut starts = Vec::with_capacity(ns + 1);
        let mut n = na + ns;
        for s in &inst.succs {
            starts.push(n);
            n += s.args.len();
        }
        starts.push(n);
        let mut counts = vec![0u32; n];
        for p in inst.sil.iter() {
            let k = match *p {
                Piece::Text(_) => continue,
                Piece::Arg(i) if (i as usize) < na => i as usize,
                Piece::Succ(i) if (i as usize) < ns => na + i as usize,
                Piece::SuccArg(i, j) if (i as usize) < ns && (j as usize) < inst.succs[i as usize].args.len() => starts[i as usize] + j as usize,
                _ => return false,
            };
            counts[k] += 1;
        }
        let explicit_only = matches!(inst.op, Op::Sil(SilOp::Br | SilOp::CondBr));
        counts[..na + ns].iter().all(|&c| c == 1)
            && (0..ns).all(|i| {
                let v = &counts[starts[i]..starts[i + 1]];
                v.iter().all(|&c| c == 1) || (!explicit_only && v.iter().all(|&c| c == 0))
            })
    }

    /// Random instructions (small and past the stack tables, templates that fit, miss a
    /// hole, repeat one or name one that does not exist) give the oracle's answer.
    #[test]
    fn template_fits_agrees_with_the_heap_version() {
        let mut rng = Rng::new(17);
        let (mut fits, mut total) = (0, 0);
        for round in 0..20_000 {
            let big = round % 10 == 0;
            let op = [SilOp::Br, SilOp::CondBr, SilOp::SwitchEnum, SilOp::Apply][rng.below(4)].clone();
            let mut inst = Inst::new(Op::Sil(op));
            let na = rng.below(if big { 70 } else { 4 });
            inst.args = (0..na as u32).map(ValueId).collect();
            let ns = rng.below(if big { 20 } else { 3 });
            for _ in 0..ns {
                let k = rng.below(if big { 8 } else { 3 });
                inst.succs.push(Succ { block: BlockId(0), args: (0..k as u32).map(ValueId).collect() });
            }
            // Start from the template that fits exactly, then damage it sometimes.
            let mut pieces = vec![Piece::Text("op ".into())];
            pieces.extend((0..na as u32).map(Piece::Arg));
            for (i, s) in inst.succs.iter().enumerate() {
                pieces.push(Piece::Succ(i as u32));
                if rng.below(4) != 0 {
                    pieces.extend((0..s.args.len() as u32).map(|j| Piece::SuccArg(i as u32, j)));
                }
            }
            for _ in 0..rng.below(3) {
                let damage = match rng.below(5) {
                    0 => Piece::Arg(rng.below(na + 2) as u32),
                    1 => Piece::Succ(rng.below(ns + 2) as u32),
                    2 => Piece::SuccArg(rng.below(ns + 1) as u32, rng.below(4) as u32),
                    _ => Piece::Text(",".into()),
                };
                if rng.below(2) == 0 && pieces.len() > 1 {
                    let at = 1 + rng.below(pieces.len() - 1);
                    pieces[at] = damage;
                } else {
                    pieces.push(damage);
                }
            }
            inst.sil = pieces.into();
            let want = template_fits_heap(&inst);
            assert_eq!(template_fits(&inst), want, "round {round}: {inst:?}");
            fits += usize::from(want);
            total += 1;
        }
        // Both answers occur often, so the comparison tests something.
        assert!(fits > total / 10 && fits < total * 9 / 10, "{fits} of {total} fit");
    }
}
