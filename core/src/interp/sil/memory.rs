//! Memory, enums and addresses: what lowered SIL needs (`alloc_stack`, `copy_addr`,
//! `load`/`store`, element and enum-payload addresses, `switch_enum_addr`) and the enum
//! values of opaque-values SIL (`enum`, `unchecked_enum_data`, `switch_enum`), so a generic
//! function runs before and after AddressLowering and the two runs can be compared.
//!
//! A cell holds one value; an address is a cell and a path into it (element indices, and
//! [`PAYLOAD`] for an enum's payload). Moving out of memory (`[take]`, `destroy_addr`)
//! leaves [`SilValue::Uninit`], and reading that is an error: a lowering that used a value
//! after moving it fails its run instead of reading a stale copy.

use super::{malformed, read, Frame, Machine, SilValue};
use crate::interp::ErrorKind;
use crate::ir::{Function, Imm, Inst, Piece, SilOp, Succ};
use std::sync::Arc;

/// The path step that selects an enum's payload.
pub const PAYLOAD: u32 = u32::MAX;

/// More cells than this is a runaway program (each `alloc_stack` executed takes one).
const MAX_CELLS: usize = 1 << 20;

#[derive(Default)]
pub struct Memory {
    cells: Vec<SilValue>,
}

impl Memory {
    fn alloc(&mut self) -> Result<SilValue, ErrorKind> {
        if self.cells.len() >= MAX_CELLS {
            return Err(ErrorKind::Trap(format!("more than {MAX_CELLS} stack allocations")));
        }
        self.cells.push(SilValue::Uninit);
        Ok(SilValue::Addr { cell: (self.cells.len() - 1) as u32, path: Vec::new() })
    }

    fn place(&mut self, addr: &SilValue) -> Result<&mut SilValue, ErrorKind> {
        let SilValue::Addr { cell, path } = addr else { return Err(malformed("an address operand that is not an address")) };
        let mut cur = self.cells.get_mut(*cell as usize).ok_or_else(|| malformed("an address outside memory"))?;
        for &k in path {
            // Writing into a part of uninitialized memory builds the aggregate around it.
            if matches!(cur, SilValue::Uninit) {
                *cur = if k == PAYLOAD { SilValue::Enum { case: "".into(), payload: None } } else { SilValue::Tuple(Vec::new()) };
            }
            cur = match cur {
                SilValue::Enum { payload, .. } if k == PAYLOAD => payload.get_or_insert_with(|| Box::new(SilValue::Uninit)),
                SilValue::Tuple(es) | SilValue::Struct { fields: es, .. } => {
                    let k = k as usize;
                    if k > 1 << 16 {
                        return Err(malformed("an element index out of range"));
                    }
                    if es.len() <= k {
                        es.resize(k + 1, SilValue::Uninit);
                    }
                    &mut es[k]
                }
                _ => return Err(malformed("an element address into a value without elements")),
            };
        }
        Ok(cur)
    }

    fn load(&mut self, addr: &SilValue, take: bool) -> Result<SilValue, ErrorKind> {
        let p = self.place(addr)?;
        if contains_uninit(p) {
            return Err(ErrorKind::Trap("read of uninitialized memory (a value used after it was moved or destroyed)".into()));
        }
        Ok(if take { std::mem::replace(p, SilValue::Uninit) } else { p.clone() })
    }

    fn store(&mut self, addr: &SilValue, v: SilValue) -> Result<(), ErrorKind> {
        *self.place(addr)? = v;
        Ok(())
    }
}

fn contains_uninit(v: &SilValue) -> bool {
    match v {
        SilValue::Uninit => true,
        SilValue::Tuple(es) | SilValue::Struct { fields: es, .. } => es.iter().any(contains_uninit),
        SilValue::Enum { payload: Some(p), .. } => contains_uninit(p),
        _ => false,
    }
}

/// `#Optional.some!enumelt` → `some`.
fn case_name(text: &str) -> &str {
    let t = text.trim().trim_start_matches('#');
    let t = t.split('!').next().unwrap_or(t);
    t.rsplit('.').next().unwrap_or(t)
}

fn project(addr: SilValue, k: u32) -> Result<SilValue, ErrorKind> {
    match addr {
        SilValue::Addr { cell, mut path } => {
            if path.len() > 256 {
                return Err(malformed("addresses nested too deep"));
            }
            path.push(k);
            Ok(SilValue::Addr { cell, path })
        }
        _ => Err(malformed("a projection of a value that is not an address")),
    }
}

/// The case each successor of a `switch_enum`/`switch_enum_addr` stands for (`None`: default).
fn switch_cases(inst: &Inst) -> Vec<Option<String>> {
    let mut out = vec![None; inst.succs.len()];
    let mut text = String::new();
    for p in &inst.sil {
        match p {
            Piece::Text(t) => text.push_str(t),
            Piece::Succ(k) => {
                let seg = text.rsplit(',').next().unwrap_or("").trim();
                if let Some(c) = seg.strip_prefix("case ") {
                    if let Some(slot) = out.get_mut(*k as usize) {
                        *slot = Some(case_name(c.trim_end_matches(':').trim()).to_string());
                    }
                }
                text.clear();
            }
            _ => text.push('_'),
        }
    }
    out
}

impl Machine<'_> {
    /// The instructions of this module; `None` when it branched.
    pub(super) fn memory_step(&mut self, f: &Function, frame: &mut Frame, inst: &Inst, op: &SilOp) -> Result<Option<Vec<SilValue>>, ErrorKind> {
        let arg = |k: usize| -> Result<SilValue, ErrorKind> {
            let v = *inst.args.get(k).ok_or_else(|| malformed(format!("`{op}` is missing operand {k}")))?;
            read(f, frame, v)
        };
        let has = |a: &str| inst.attrs.iter().any(|x| x == a);
        let name_imm = || match &inst.imm {
            Imm::Name(n) => Some(n.to_string()),
            _ => None,
        };
        let text: String = inst.sil.iter().filter_map(|p| if let Piece::Text(t) = p { Some(t.as_str()) } else { None }).collect();
        let case_in_text = || -> String {
            name_imm().filter(|n| n.starts_with('#')).unwrap_or_else(|| text.split(", ").find(|p| p.trim_start().starts_with('#')).unwrap_or("").trim().to_string())
        };
        let vals = match op.name() {
            "alloc_stack" => vec![self.mem.alloc()?],
            "dealloc_stack" | "end_access" | "end_apply" => Vec::new(),
            "begin_access" => vec![arg(0)?],
            "store_borrow" => {
                let (v, a) = (arg(0)?, arg(1)?);
                self.mem.store(&a, v)?;
                vec![a]
            }
            "copy_addr" => {
                let (src, dst) = (arg(0)?, arg(1)?);
                let v = self.mem.load(&src, has("take"))?;
                self.mem.store(&dst, v)?;
                Vec::new()
            }
            "destroy_addr" => {
                let a = arg(0)?;
                self.mem.load(&a, true)?;
                Vec::new()
            }
            "load" => {
                let a = arg(0)?;
                vec![self.mem.load(&a, has("take"))?]
            }
            "load_borrow" => vec![self.mem.load(&arg(0)?, false)?],
            "store" => {
                let (v, a) = (arg(0)?, arg(1)?);
                self.mem.store(&a, v)?;
                Vec::new()
            }
            "tuple_element_addr" => {
                let k = match inst.imm {
                    Imm::Index(k) => k,
                    _ => text.rsplit(',').next().and_then(|t| t.trim().parse().ok()).ok_or_else(|| malformed("tuple_element_addr without an index"))?,
                };
                vec![project(arg(0)?, k)?]
            }
            "struct_element_addr" => {
                let field = name_imm().unwrap_or_else(|| text.rsplit(',').next().unwrap_or("").trim().to_string());
                let fname = field.trim_start_matches('#').rsplit('.').next().unwrap_or("").to_string();
                let ty = text.split("$*").nth(1).unwrap_or("").split([',', '<']).next().unwrap_or("").trim().to_string();
                let k = self
                    .struct_fields
                    .get(&ty)
                    .and_then(|fs| fs.iter().position(|x| *x == fname))
                    .ok_or_else(|| ErrorKind::NotModelled(format!("field `{field}` of struct `{ty}`")))?;
                vec![project(arg(0)?, k as u32)?]
            }
            "init_enum_data_addr" | "unchecked_take_enum_data_addr" => {
                let a = arg(0)?;
                if op.name() == "init_enum_data_addr" {
                    // The payload's address: the enum becomes that case; a payload already
                    // written there (the address taken again in another block) stays.
                    let case: Arc<str> = case_name(&case_in_text()).into();
                    let p = self.mem.place(&a)?;
                    match p {
                        SilValue::Enum { case: c, .. } if *c == case => {}
                        other => *other = SilValue::Enum { case, payload: None },
                    }
                }
                vec![project(a, super::memory::PAYLOAD)?]
            }
            "inject_enum_addr" => {
                let a = arg(0)?;
                let case: Arc<str> = case_name(&case_in_text()).into();
                let p = self.mem.place(&a)?;
                match p {
                    SilValue::Enum { case: c, .. } => *c = case,
                    other => *other = SilValue::Enum { case, payload: None },
                }
                Vec::new()
            }
            "init_existential_addr" | "open_existential_addr" => vec![arg(0)?],
            "init_existential_value" | "open_existential_value" => vec![arg(0)?],
            "enum" => {
                let case: Arc<str> = case_name(&case_in_text()).into();
                let payload = if inst.args.is_empty() { None } else { Some(Box::new(arg(0)?)) };
                vec![SilValue::Enum { case, payload }]
            }
            "unchecked_enum_data" => match arg(0)? {
                SilValue::Enum { payload: Some(p), .. } => vec![*p],
                _ => return Err(ErrorKind::Trap("unchecked_enum_data of a case without payload".into())),
            },
            "switch_enum" | "switch_enum_addr" => {
                let addr = op.name() == "switch_enum_addr";
                let v = if addr { self.mem.load(&arg(0)?, false)? } else { arg(0)? };
                let SilValue::Enum { case, payload } = v else { return Err(malformed(format!("`{op}` of a value that is not an enum"))) };
                let cases = switch_cases(inst);
                let k = cases
                    .iter()
                    .position(|c| c.as_deref() == Some(&*case))
                    .or_else(|| cases.iter().position(|c| c.is_none()))
                    .ok_or_else(|| ErrorKind::Trap(format!("switch on case `{case}`, which no successor handles")))?;
                let succ: &Succ = &inst.succs[k];
                let target = &f.blocks[succ.block];
                let mut succ = succ.clone();
                // The parser may record the payload as an `undef` successor argument.
                let implicit = succ.args.iter().all(|&a| f.values.get(a).is_some_and(|d| d.def == crate::ir::ValueDef::Undef));
                if !addr && target.params.len() == 1 && implicit {
                    // The payload arrives as the case block's argument.
                    let p = payload.map(|p| *p).ok_or_else(|| malformed("a payload block for a case without payload"))?;
                    self.bind_payload(f, frame, &succ, p)?;
                    succ.args.clear();
                    frame.block = succ.block;
                    frame.pos = 0;
                    return Ok(None);
                }
                self.jump(f, frame, &succ)?;
                return Ok(None);
            }
            other => return Err(ErrorKind::NotModelled(other.to_string())),
        };
        Ok(Some(vals))
    }

    fn bind_payload(&self, f: &Function, frame: &mut Frame, succ: &Succ, p: SilValue) -> Result<(), ErrorKind> {
        if !self.placed.get(frame.func).is_some_and(|pl| pl.contains(succ.block)) {
            return Err(malformed(format!("branch to {}, which is not in the layout", succ.block)));
        }
        super::bind_params(f, frame, succ.block, vec![Some(p)])
    }
}
