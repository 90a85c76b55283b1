//! Instructions and the on-the-fly optimizations of Braun et al. ("Simple
//! and Efficient Construction of Static Single Assignment Form", CC 2013,
//! §3.1): constant folding, arithmetic simplification, common subexpression
//! elimination by local value numbering; copy propagation is in
//! `ast_walk.rs`, where assignments are built.

use super::state::Builder;
use crate::ir::{BinOp, Block, Inst, Op, UnOp, Value};

/// An operand while an expression is built: a constant not yet placed in
/// any block, or a value. Constants are placed lazily so that folding leaves
/// no dead `const`s behind.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Operand {
    Imm(i64),
    Val(Value),
}

impl Builder {
    // ----- instructions and on-the-fly optimizations (§3.1) -----

    pub(super) fn materialize_in(&mut self, block: Block, o: Operand) -> Value {
        match o {
            Operand::Val(v) => self.resolve(v),
            Operand::Imm(c) => {
                let op = Op::Const(c);
                if self.opts.cse {
                    if let Some(&v) = self.cse_table(block).get(&op) {
                        return v;
                    }
                }
                let v = self.new_value();
                self.push_inst(block, Inst { dest: Some(v), op: op.clone() });
                if self.opts.fold_constants || self.opts.simplify_arithmetic {
                    // Only folding and simplification ask for constants.
                    self.consts.insert(v, c);
                }
                if self.opts.cse {
                    self.cse_table(block).insert(op, v);
                }
                v
            }
        }
    }

    pub(super) fn materialize(&mut self, o: Operand) -> Value {
        self.materialize_in(self.cur, o)
    }

    /// A value as an operand: a known constant becomes `Imm` when folding.
    pub(super) fn operand_of(&mut self, v: Value) -> Operand {
        let v = self.resolve(v);
        if self.opts.fold_constants {
            if let Some(&c) = self.consts.get(&v) {
                return Operand::Imm(c);
            }
        }
        Operand::Val(v)
    }

    /// Emits a pure value-producing operation in the current block, reusing
    /// an equal one of the block when CSE is on.
    pub(super) fn emit_value(&mut self, op: Op) -> Value {
        if self.opts.cse && !matches!(op, Op::Load(_)) {
            if let Some(&v) = self.cse_table(self.cur).get(&op) {
                return self.resolve(v);
            }
        }
        let v = self.new_value();
        self.push_inst(self.cur, Inst { dest: Some(v), op: op.clone() });
        if self.opts.cse && !matches!(op, Op::Load(_)) {
            self.cse_table(self.cur).insert(op, v);
        }
        v
    }

    pub(super) fn emit_effect(&mut self, op: Op) {
        self.push_inst(self.cur, Inst { dest: None, op });
    }

    pub(super) fn unary(&mut self, op: UnOp, a: Operand) -> Operand {
        if self.opts.fold_constants {
            if let Operand::Imm(x) = a {
                return Operand::Imm(crate::construction::fold::unary(op, x));
            }
        }
        let a = self.materialize(a);
        Operand::Val(self.emit_value(Op::Unary(op, a)))
    }

    pub(super) fn binary(&mut self, op: BinOp, a: Operand, b: Operand) -> Operand {
        if self.opts.fold_constants {
            if let (Operand::Imm(x), Operand::Imm(y)) = (a, b) {
                if let Some(r) = crate::construction::fold::binary(op, x, y) {
                    return Operand::Imm(r);
                }
            }
        }
        if self.opts.simplify_arithmetic {
            if let Some(r) = crate::construction::fold::simplify(op, self.simplify_view(a), self.simplify_view(b)) {
                return match r {
                    crate::construction::fold::Simplified::Left => a,
                    crate::construction::fold::Simplified::Right => b,
                    crate::construction::fold::Simplified::Const(c) => Operand::Imm(c),
                };
            }
        }
        let (mut x, mut y) = (self.materialize(a), self.materialize(b));
        if self.opts.cse && op.is_commutative() && y < x {
            std::mem::swap(&mut x, &mut y);
        }
        Operand::Val(self.emit_value(Op::Binary(op, x, y)))
    }

    fn simplify_view(&mut self, o: Operand) -> crate::construction::fold::Term {
        match o {
            Operand::Imm(c) => crate::construction::fold::Term::Const(c),
            Operand::Val(v) => {
                let v = self.resolve(v);
                match self.consts.get(&v) {
                    Some(&c) => crate::construction::fold::Term::Const(c),
                    None => crate::construction::fold::Term::Value(v.0),
                }
            }
        }
    }
}
