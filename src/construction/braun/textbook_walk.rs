//! The AST walk that drives the textbook construction (`textbook.rs`):
//! Braun et al., "Simple and Efficient Construction of Static Single
//! Assignment Form" (CC 2013), §2.3. It fills blocks in program order,
//! calls `writeVariable` for each assignment and `readVariable` for each
//! read, and seals each block as soon as all its predecessors are known
//! (Fig. 3 for `while`): a block made for `then`, `else`, a loop body or the
//! right operand of `&&` / `||` once its one edge is in, a join once both
//! arms have jumped to it, a loop header after the back edge, a loop exit
//! after that, a label block once the fall-through edge and every `goto` to
//! it are in.
//!
//! The blocks are made in the same order, with the same edges and the same
//! instructions, as the fast builder makes them with the on-the-fly
//! optimizations off (`ast_walk.rs`), so that the phis of the two can be
//! compared block by block: literals are `const` instructions, `x = y` is a
//! `copy`, a condition is jumping code, and `a && b` evaluated for its value
//! assigns a hidden variable on both paths and reads it at the join. Unlike
//! the fast builder, the walk records every edge, those out of unreachable
//! code included; `Textbook::finish` removes them.
//!
//! The walk recurses once per nested statement and expression (the
//! function's size was checked against the limits of `textbook.rs` first).

use super::textbook::{Textbook, TextbookVar};
use crate::ast::{self, Expr, Stmt};
use crate::entity::EntityRef;
use crate::ir::{BinOp, Block, Call, Inst, Op, Terminator, UnOp, Value};
use std::collections::HashMap;

/// Where `break` and `continue` of the innermost loop jump to.
#[derive(Clone, Copy)]
struct LoopTargets {
    header: Block,
    exit: Block,
}

/// A label's block, made when the label is first named, and the edges it
/// will have: one per `goto`, plus the fall-through into the label.
struct LabelBlock {
    block: Option<Block>,
    expected_preds: usize,
    added_preds: usize,
}

/// The walk's position: the block being filled, the enclosing loops and the
/// labels.
struct Walk {
    current: Block,
    loops: Vec<LoopTargets>,
    labels: HashMap<String, LabelBlock>,
}

impl Textbook {
    /// Fills the function body from the entry block on, and ends it with
    /// `return 0`.
    pub(super) fn build_body(&mut self, body: &ast::Block) {
        let mut labels: HashMap<String, LabelBlock> = HashMap::new();
        ast::walk_stmts(body, |s, _| match s {
            Stmt::Label(l) | Stmt::Goto(l) => {
                let info =
                    labels.entry(l.clone()).or_insert(LabelBlock { block: None, expected_preds: 0, added_preds: 0 });
                info.expected_preds += 1;
            }
            _ => {}
        });
        let mut walk = Walk { current: crate::ir::Function::ENTRY, loops: Vec::new(), labels };
        self.stmts(&mut walk, &body.stmts);
        let zero = self.emit_value(walk.current, Op::Const(0));
        self.terminate(&mut walk, Terminator::Return(zero));
    }

    fn stmts(&mut self, w: &mut Walk, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(w, s);
        }
    }

    fn stmt(&mut self, w: &mut Walk, stmt: &Stmt) {
        match stmt {
            Stmt::Var(x, e) | Stmt::Assign(x, e) => {
                let value = match e {
                    Expr::Var(src) => {
                        let src = self.var(src);
                        let v = self.read_variable(src, w.current);
                        self.emit_value(w.current, Op::Copy(v))
                    }
                    _ => self.expr(w, e),
                };
                let x = self.var(x);
                self.write_variable(x, w.current, value);
            }
            Stmt::Store(a, v) => {
                let addr = self.expr(w, a);
                let value = self.expr(w, v);
                self.emit_effect(w, Op::Store { addr, value });
            }
            Stmt::Out(e) => {
                let v = self.expr(w, e);
                self.emit_effect(w, Op::Out(v));
            }
            Stmt::Call(name, args) => {
                self.call(w, name, args);
            }
            Stmt::Return(e) => {
                let v = self.expr(w, e);
                self.terminate(w, Terminator::Return(v));
                self.continue_unreachable(w);
            }
            Stmt::If(c, then, els) => self.if_stmt(w, c, then, els.as_ref()),
            Stmt::While(c, body) => self.while_stmt(w, c, body),
            Stmt::Break => {
                let exit = w.loops.last().expect("validated: break in a loop").exit;
                self.terminate(w, Terminator::Jump(exit));
                self.continue_unreachable(w);
            }
            Stmt::Continue => {
                let header = w.loops.last().expect("validated: continue in a loop").header;
                self.terminate(w, Terminator::Jump(header));
                self.continue_unreachable(w);
            }
            Stmt::Goto(label) => {
                self.jump_to_label(w, label);
                self.continue_unreachable(w);
            }
            Stmt::Label(label) => w.current = self.jump_to_label(w, label),
            Stmt::Block(b) => self.stmts(w, &b.stmts),
        }
    }

    /// `if (c) then else els`.
    fn if_stmt(&mut self, w: &mut Walk, c: &Expr, then: &ast::Block, els: Option<&ast::Block>) {
        let then_block = self.new_block();
        let join = self.new_block();
        let else_block = if els.is_some() { self.new_block() } else { join };
        self.cond_jump(w, c, then_block, else_block);
        self.seal_block(then_block);
        if els.is_some() {
            self.seal_block(else_block);
        }
        w.current = then_block;
        self.stmts(w, &then.stmts);
        self.terminate(w, Terminator::Jump(join));
        if let Some(els) = els {
            w.current = else_block;
            self.stmts(w, &els.stmts);
            self.terminate(w, Terminator::Jump(join));
        }
        self.seal_block(join);
        w.current = join;
    }

    /// `while (c) body`.
    fn while_stmt(&mut self, w: &mut Walk, c: &Expr, body: &ast::Block) {
        // §2.3, Fig. 3: the header stays unsealed until the back edge is in;
        // the body is sealed at once, the exit last.
        let header = self.new_block();
        self.terminate(w, Terminator::Jump(header));
        w.current = header;
        let body_block = self.new_block();
        let exit = self.new_block();
        self.cond_jump(w, c, body_block, exit);
        self.seal_block(body_block);
        w.current = body_block;
        w.loops.push(LoopTargets { header, exit });
        self.stmts(w, &body.stmts);
        self.terminate(w, Terminator::Jump(header));
        self.seal_block(header);
        self.seal_block(exit);
        w.loops.pop();
        w.current = exit;
    }

    /// A call: the arguments left to right, then the call.
    fn call(&mut self, w: &mut Walk, name: &str, args: &[Expr]) -> Value {
        let args = args.iter().map(|a| self.expr(w, a)).collect();
        self.emit_value(w.current, Op::Call(Box::new(Call { callee: name.to_string(), args })))
    }

    /// Evaluates `e` in the current block (which `&&` and `||` change).
    fn expr(&mut self, w: &mut Walk, e: &Expr) -> Value {
        match e {
            Expr::Lit(c) => self.emit_value(w.current, Op::Const(*c)),
            Expr::Var(name) => {
                let var = self.var(name);
                self.read_variable(var, w.current)
            }
            Expr::Load(a) => {
                let a = self.expr(w, a);
                self.emit_value(w.current, Op::Load(a))
            }
            Expr::Unary(op, a) => {
                let a = self.expr(w, a);
                self.emit_value(w.current, Op::Unary(*op, a))
            }
            Expr::Binary(op, a, b) => {
                let a = self.expr(w, a);
                let b = self.expr(w, b);
                self.emit_value(w.current, Op::Binary(*op, a, b))
            }
            Expr::LogicalAnd(a, b) => self.short_circuit_value(w, a, b, true),
            Expr::LogicalOr(a, b) => self.short_circuit_value(w, a, b, false),
            Expr::Call(name, args) => self.call(w, name, args),
        }
    }

    /// `a && b` (`is_and`) or `a || b` as 0 or 1: a hidden variable gets the
    /// early answer, then `b != 0` on the path that evaluates `b`, and is
    /// read at the join, where the construction places the phi.
    fn short_circuit_value(&mut self, w: &mut Walk, a: &Expr, b: &Expr, is_and: bool) -> Value {
        let va = self.expr(w, a);
        let hidden: TextbookVar = self.hidden_var();
        let early = self.emit_value(w.current, Op::Const(if is_and { 0 } else { 1 }));
        self.write_variable(hidden, w.current, early);
        let rhs = self.new_block();
        let join = self.new_block();
        let (then_dest, else_dest) = if is_and { (rhs, join) } else { (join, rhs) };
        self.terminate(w, Terminator::Branch { cond: va, then_dest, else_dest });
        self.seal_block(rhs);
        w.current = rhs;
        let vb = self.expr(w, b);
        let zero = self.emit_value(w.current, Op::Const(0));
        let truth = self.emit_value(w.current, Op::Binary(BinOp::Ne, vb, zero));
        self.write_variable(hidden, w.current, truth);
        self.terminate(w, Terminator::Jump(join));
        self.seal_block(join);
        w.current = join;
        self.read_variable(hidden, join)
    }

    /// Jumping code: evaluates `c` and goes to `t` when it is not 0, else to
    /// `f`. The block between the operands of `&&` / `||` has one
    /// predecessor and is sealed at once.
    fn cond_jump(&mut self, w: &mut Walk, c: &Expr, t: Block, f: Block) {
        match c {
            Expr::LogicalAnd(a, b) => {
                let mid = self.new_block();
                self.cond_jump(w, a, mid, f);
                self.seal_block(mid);
                w.current = mid;
                self.cond_jump(w, b, t, f);
            }
            Expr::LogicalOr(a, b) => {
                let mid = self.new_block();
                self.cond_jump(w, a, t, mid);
                self.seal_block(mid);
                w.current = mid;
                self.cond_jump(w, b, t, f);
            }
            Expr::Unary(UnOp::Not, a) => self.cond_jump(w, a, f, t),
            _ => {
                let cond = self.expr(w, c);
                self.terminate(w, Terminator::Branch { cond, then_dest: t, else_dest: f });
            }
        }
    }

    fn emit_effect(&mut self, w: &Walk, op: Op) {
        self.blocks[w.current.index()].insts.push(Inst { dest: None, op });
    }

    /// Ends the current block (it is filled) and adds its edges. No edge
    /// may enter a sealed block: that is what sealing promises.
    fn terminate(&mut self, w: &mut Walk, term: Terminator) {
        let from = w.current;
        for s in term.successors() {
            assert!(!self.is_sealed(s), "an edge into the sealed block {s}");
            self.blocks[s.index()].preds.push(from);
        }
        let block = &mut self.blocks[from.index()];
        assert!(block.term.is_none(), "{from} is terminated twice");
        block.term = Some(term);
    }

    /// Goes on after `return`, `break`, `continue` or `goto` in a new block
    /// that nothing jumps to: sealed at once, without predecessors.
    fn continue_unreachable(&mut self, w: &mut Walk) {
        w.current = self.new_block();
        self.seal_block(w.current);
    }

    /// Jumps from the current block to the label's block, and seals that
    /// block once this was the last of its edges.
    fn jump_to_label(&mut self, w: &mut Walk, label: &str) -> Block {
        let block = match w.labels[label].block {
            Some(b) => b,
            None => {
                let b = self.new_block();
                w.labels.get_mut(label).expect("validated label").block = Some(b);
                b
            }
        };
        self.terminate(w, Terminator::Jump(block));
        let info = w.labels.get_mut(label).expect("validated label");
        info.added_preds += 1;
        if info.added_preds == info.expected_preds {
            self.seal_block(block);
        }
        block
    }
}
