//! Large structured control-flow graphs for benchmarks and scale tests.

use super::Rng;
use crate::ir::{Block, BlockId, BrilOp, Function, Inst, Lang, Op, Succ, Type, ValueDef, ValueId};

/// A deterministic Bril function of about `target` blocks: sequences, if/else, one-armed if,
/// while and do-while loops nested up to depth 6, and early returns. Blocks hold only their
/// terminators (branching on the parameter `c`), so it stresses graph analyses, not the
/// interpreter; benchmarks, the large-function tests and the gallery's stress example use it.
pub fn structured_function(target: usize, seed: u64) -> Function {
    struct G {
        f: Function,
        rng: Rng,
        c: ValueId,
        target: usize,
    }
    impl G {
        fn block(&mut self) -> BlockId {
            let i = self.f.blocks.len();
            self.f.add_block(Block::new(format!("b{i}")))
        }
        fn term(&mut self, b: BlockId, op: BrilOp, to: &[BlockId]) {
            let is_br = op == BrilOp::Br;
            let mut inst = Inst::new(Op::Bril(op));
            if is_br {
                inst.args.push(self.c);
            }
            inst.succs = to.iter().map(|&t| Succ::to(t)).collect();
            let i = self.f.add_inst(inst);
            self.f.blocks[b].term = Some(i);
        }
        fn stmts(&mut self, mut cur: BlockId, depth: u32) -> BlockId {
            for _ in 0..1 + self.rng.below(3) {
                cur = self.stmt(cur, depth);
            }
            cur
        }
        fn stmt(&mut self, cur: BlockId, depth: u32) -> BlockId {
            let full = self.f.blocks.len() >= self.target;
            let kind = if full || depth >= 6 { 0 } else { self.rng.below(6) };
            match kind {
                1 => {
                    let (t, e, j) = (self.block(), self.block(), self.block());
                    self.term(cur, BrilOp::Br, &[t, e]);
                    let te = self.stmts(t, depth + 1);
                    let ee = self.stmts(e, depth + 1);
                    self.term(te, BrilOp::Jmp, &[j]);
                    self.term(ee, BrilOp::Jmp, &[j]);
                    j
                }
                2 => {
                    let (t, j) = (self.block(), self.block());
                    self.term(cur, BrilOp::Br, &[t, j]);
                    let te = self.stmts(t, depth + 1);
                    self.term(te, BrilOp::Jmp, &[j]);
                    j
                }
                3 => {
                    let (h, body, exit) = (self.block(), self.block(), self.block());
                    self.term(cur, BrilOp::Jmp, &[h]);
                    self.term(h, BrilOp::Br, &[body, exit]);
                    let be = self.stmts(body, depth + 1);
                    self.term(be, BrilOp::Jmp, &[h]);
                    exit
                }
                4 => {
                    let body = self.block();
                    self.term(cur, BrilOp::Jmp, &[body]);
                    let be = self.stmts(body, depth + 1);
                    let after = self.block();
                    self.term(be, BrilOp::Br, &[body, after]);
                    after
                }
                5 if depth > 0 && self.rng.below(100) < 30 => {
                    let (r, j) = (self.block(), self.block());
                    self.term(cur, BrilOp::Br, &[r, j]);
                    self.term(r, BrilOp::Ret, &[]);
                    j
                }
                _ => {
                    let nb = self.block();
                    self.term(cur, BrilOp::Jmp, &[nb]);
                    nb
                }
            }
        }
    }
    let mut f = Function::new("big", Lang::Bril);
    let c = f.add_value("c", Some(Type::Bool), ValueDef::Var);
    f.params.push(c);
    let mut g = G { f, rng: Rng::new(seed), c, target };
    let mut cur = g.block();
    while g.f.blocks.len() < target {
        cur = g.stmt(cur, 0);
    }
    g.term(cur, BrilOp::Ret, &[]);
    g.f
}

#[cfg(test)]
mod tests {
    #[test]
    fn structured_functions_verify_and_reach_their_size() {
        for (n, seed) in [(1, 1), (50, 2), (1000, 3)] {
            let f = super::structured_function(n, seed);
            crate::ir::verify(&f).unwrap();
            assert!(f.blocks.len() >= n);
            assert!(f.blocks.len() < n + 20, "{}", f.blocks.len());
        }
    }
}
