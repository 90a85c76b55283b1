//! The walk over the AST that drives Braun et al.'s construction ("Simple
//! and Efficient Construction of Static Single Assignment Form", CC 2013):
//! expressions, jumping code for conditions, and statements, which seal
//! blocks as §2.3 describes (Fig. 3 for `while`); copy propagation (§3.1) is
//! done for `x = y` here.

use super::on_the_fly::Operand;
use super::state::{Builder, LoopTargets, Successors};
use crate::ast::{self, Expr, Stmt};
use crate::ir::{BinOp, Block, Call, Inst, Op, Terminator, UnOp, Value};

/// Where an `if` began: its statement number and the block it started in
/// (for `region_assignments.rs`).
#[derive(Clone, Copy)]
struct IfStart {
    stmt: u32,
    block: Block,
}

/// The statement-level work list of [`Builder::build_body`].
enum Task<'a> {
    Stmts(std::slice::Iter<'a, Stmt>),
    AfterThen { join: Block, els: Option<(&'a ast::Block, Block)>, region: IfStart },
    AfterElse { join: Block, region: IfStart },
    AfterLoopBody { targets: LoopTargets },
}

impl Builder {
    // ----- expressions -----

    /// Evaluates an expression in the current block (which it may change,
    /// for `&&` and `||`). Recursion is bounded by `ast::MAX_EXPR_DEPTH`.
    fn expr(&mut self, e: &Expr) -> Operand {
        match e {
            Expr::Lit(c) => {
                if self.opts.fold_constants {
                    Operand::Imm(*c)
                } else {
                    Operand::Val(self.materialize(Operand::Imm(*c)))
                }
            }
            Expr::Var(name) => {
                let var = self.var(name);
                let v = self.read_variable(var, self.cur);
                self.operand_of(v)
            }
            Expr::Load(a) => {
                let a = self.expr(a);
                let a = self.materialize(a);
                Operand::Val(self.emit_value(Op::Load(a)))
            }
            Expr::Unary(op, a) => {
                let a = self.expr(a);
                self.unary(*op, a)
            }
            Expr::Binary(op, a, b) => {
                let a = self.expr(a);
                let b = self.expr(b);
                self.binary(*op, a, b)
            }
            Expr::LogicalAnd(a, b) => self.short_circuit_value(a, b, true),
            Expr::LogicalOr(a, b) => self.short_circuit_value(a, b, false),
            Expr::Call(name, args) => Operand::Val(self.call(name, args)),
        }
    }

    /// A call: the arguments left to right, then the call itself, which is
    /// never folded or value-numbered (it may write `mem` and the trace, and
    /// two calls with equal arguments may return different values).
    fn call(&mut self, name: &str, args: &[Expr]) -> Value {
        let args = args
            .iter()
            .map(|a| {
                let o = self.expr(a);
                self.materialize(o)
            })
            .collect();
        self.emit_value_nocse(Op::Call(Box::new(Call { callee: name.to_string(), args })))
    }

    /// `a && b` (is_and) or `a || b` as a 0/1 value: a hidden variable is
    /// set on both paths and read at the join, so the construction itself
    /// places the phi.
    fn short_circuit_value(&mut self, a: &Expr, b: &Expr, is_and: bool) -> Operand {
        let start = self.cur;
        let va = self.expr(a);
        if let Operand::Imm(x) = va {
            // Folding is on (only then is an operand `Imm`).
            let decided = if is_and { x == 0 } else { x != 0 };
            if decided {
                return Operand::Imm(if is_and { 0 } else { 1 });
            }
            let vb = self.expr(b);
            return self.binary(BinOp::Ne, vb, Operand::Imm(0));
        }
        let va = self.materialize(va);
        let t = self.hidden_var();
        let early = self.materialize(Operand::Imm(if is_and { 0 } else { 1 }));
        self.assign_variable(t, self.cur, early);
        let rhs = self.new_block();
        let join = self.new_block();
        if is_and {
            self.branch(va, rhs, join);
        } else {
            self.branch(va, join, rhs);
        }
        self.seal_block(rhs);
        self.cur = rhs;
        let vb = self.expr(b);
        let nb = self.binary(BinOp::Ne, vb, Operand::Imm(0));
        let nb = self.materialize(nb);
        self.assign_variable(t, self.cur, nb);
        self.jump(join);
        self.expression_region(join, start);
        self.seal_block(join);
        self.cur = join;
        let r = self.read_variable(t, join);
        self.operand_of(r)
    }

    /// Jumping code: evaluates the condition `c` in the current block and
    /// branches to `t` when it is not 0, else to `f`.
    fn cond_jump(&mut self, c: &Expr, t: Block, f: Block) {
        match c {
            Expr::LogicalAnd(a, b) => {
                let mid = self.new_block();
                self.cond_jump(a, mid, f);
                self.seal_block(mid);
                self.cur = mid;
                self.cond_jump(b, t, f);
            }
            Expr::LogicalOr(a, b) => {
                let mid = self.new_block();
                self.cond_jump(a, t, mid);
                self.seal_block(mid);
                self.cur = mid;
                self.cond_jump(b, t, f);
            }
            Expr::Unary(UnOp::Not, a) => self.cond_jump(a, f, t),
            _ => {
                let v = self.expr(c);
                match v {
                    Operand::Imm(x) => self.jump(if x != 0 { t } else { f }),
                    Operand::Val(v) => self.branch(v, t, f),
                }
            }
        }
    }

    // ----- control flow -----

    /// Ends the current block. Edges out of a block known to be unreachable
    /// are not recorded (see `mod.rs`): its successors do not list it.
    fn set_term(&mut self, term: Terminator) {
        let b = self.cur;
        debug_assert!(self.blocks[b].term.is_none(), "{b} terminated twice");
        if !self.is_known_unreachable(b) {
            for &s in Successors::of(Some(&term)).as_ref() {
                debug_assert!(!self.blocks[s].sealed, "edge into sealed block {s}");
                self.blocks[s].preds.push(b);
            }
        }
        self.blocks[b].term = Some(term);
        self.take_filling(b);
        self.mark_filled(b);
    }

    fn jump(&mut self, to: Block) {
        self.set_term(Terminator::Jump(to));
    }

    fn branch(&mut self, cond: Value, then_dest: Block, else_dest: Block) {
        self.set_term(Terminator::Branch { cond, then_dest, else_dest });
    }

    fn label_block(&mut self, label: &str) -> Block {
        if let Some(b) = self.labels[label].block {
            return b;
        }
        let b = self.new_block();
        self.labels.get_mut(label).expect("validated label").block = Some(b);
        b
    }

    /// Jumps from the current block to the label's block, and seals that
    /// block when this was its last predecessor.
    fn jump_to_label(&mut self, label: &str) -> Block {
        let block = self.label_block(label);
        self.jump(block);
        let info = self.labels.get_mut(label).expect("validated label");
        info.added_preds += 1;
        if info.added_preds == info.expected_preds {
            self.seal_block(block);
        }
        block
    }

    // ----- statements -----

    pub(super) fn build_body(&mut self, func: &ast::Function) {
        let mut tasks: Vec<Task> = vec![Task::Stmts(func.body.stmts.iter())];
        while let Some(task) = tasks.last_mut() {
            match task {
                Task::Stmts(iter) => match iter.next() {
                    None => {
                        tasks.pop();
                    }
                    Some(stmt) => {
                        self.stmts_met += 1;
                        self.stmt(stmt, &mut tasks)
                    }
                },
                Task::AfterThen { .. } | Task::AfterElse { .. } | Task::AfterLoopBody { .. } => {
                    let task = tasks.pop().expect("non-empty");
                    self.after(task, &mut tasks);
                }
            }
        }
        let zero = self.materialize(Operand::Imm(0));
        self.set_term(Terminator::Return(zero));
        debug_assert_eq!(self.whiles_met as usize, self.regions.whiles, "both walks meet every while");
        debug_assert_eq!(self.assignments_met, self.assigned_vars_len(), "both walks meet every assignment");
    }

    fn stmt<'a>(&mut self, stmt: &'a Stmt, tasks: &mut Vec<Task<'a>>) {
        match stmt {
            Stmt::Var(_, e) | Stmt::Assign(_, e) => self.assignment(e),
            Stmt::Store(a, v) => {
                let a = self.expr(a);
                let a = self.materialize(a);
                let v = self.expr(v);
                let v = self.materialize(v);
                self.emit_effect(Op::Store { addr: a, value: v });
            }
            Stmt::Out(e) => {
                let v = self.expr(e);
                let v = self.materialize(v);
                self.emit_effect(Op::Out(v));
            }
            Stmt::Call(name, args) => {
                self.call(name, args);
            }
            Stmt::Return(e) => {
                let v = self.expr(e);
                let v = self.materialize(v);
                self.set_term(Terminator::Return(v));
                self.cur = self.new_unreachable_block();
            }
            Stmt::If(c, then, els) => self.if_head(c, then, els.as_ref(), tasks),
            Stmt::While(c, body) => self.while_head(c, body, tasks),
            Stmt::Break => {
                let exit = self.loops.last().expect("validated: break in a loop").exit;
                self.jump(exit);
                self.cur = self.new_unreachable_block();
            }
            Stmt::Continue => {
                let header = self.loops.last().expect("validated: continue in a loop").header;
                self.jump(header);
                self.cur = self.new_unreachable_block();
            }
            Stmt::Goto(label) => {
                self.jump_to_label(label);
                self.cur = self.new_unreachable_block();
            }
            Stmt::Label(label) => {
                self.cur = self.jump_to_label(label);
            }
            Stmt::Block(b) => tasks.push(Task::Stmts(b.stmts.iter())),
        }
    }

    /// `x = e;` or `var x = e;`: binds the next assigned variable (the walk
    /// meets assignments in the order `region_assignments.rs` numbered them).
    fn assignment(&mut self, e: &Expr) {
        let value = match e {
            Expr::Var(src) => {
                // With copy propagation, `x = y` names y's value; without
                // it, it is a real copy.
                let srcv = self.var(src);
                let v = self.read_variable(srcv, self.cur);
                if self.opts.copy_propagation {
                    v
                } else {
                    self.emit_value_nocse(Op::Copy(v))
                }
            }
            _ => {
                let o = self.expr(e);
                self.materialize(o)
            }
        };
        let var = self.next_assigned_var();
        self.assign_variable(var, self.cur, value);
    }

    /// The condition of `if (c) then else els`, and the tasks that walk its
    /// arms and then close it.
    fn if_head<'a>(&mut self, c: &Expr, then: &'a ast::Block, els: Option<&'a ast::Block>, tasks: &mut Vec<Task<'a>>) {
        // `stmts_met` counts this statement already.
        let region = IfStart { stmt: self.stmts_met - 1, block: self.cur };
        let then_b = self.new_block();
        let join = self.new_block();
        let else_b = if els.is_some() { self.new_block() } else { join };
        self.cond_jump(c, then_b, else_b);
        self.expression_region(then_b, region.block);
        self.seal_block(then_b);
        if els.is_some() {
            self.expression_region(else_b, region.block);
            self.seal_block(else_b);
        }
        self.cur = then_b;
        tasks.push(Task::AfterThen { join, els: els.map(|e| (e, else_b)), region });
        tasks.push(Task::Stmts(then.stmts.iter()));
    }

    /// The header and condition of `while (c) body`, and the tasks that walk
    /// the body and then close the loop.
    fn while_head<'a>(&mut self, c: &Expr, body: &'a ast::Block, tasks: &mut Vec<Task<'a>>) {
        // §2.3, Fig. 3: the header stays unsealed until the back edge.
        let header = self.new_block();
        self.jump(header);
        // The header's number and entry edge, for the look-ups that reach
        // it while it is unsealed (`lookup.rs`): the header is new, so the
        // edge just added is its only one, if recorded.
        let k = self.whiles_met;
        self.whiles_met += 1;
        self.blocks[header].region = k;
        self.regions.regions[k as usize].entry = self.blocks[header].preds.first().copied();
        self.open_loops += 1;
        self.cur = header;
        let body_b = self.new_block();
        let exit = self.new_block();
        self.cond_jump(c, body_b, exit);
        // The body is entered only from the condition, which starts in the
        // header; the exit only from the loop.
        self.expression_region(body_b, header);
        self.blocks[exit].region = k;
        self.seal_block(body_b);
        self.cur = body_b;
        let targets = LoopTargets { header, exit };
        self.loops.push(targets);
        tasks.push(Task::AfterLoopBody { targets });
        tasks.push(Task::Stmts(body.stmts.iter()));
    }

    /// Records the region of an `if` whose statements the walk has all met
    /// (`region_assignments.rs`), at its join.
    fn close_if(&mut self, join: Block, start: IfStart) {
        let k = self.regions.push(start.stmt, self.stmts_met, start.block);
        self.blocks[join].region = k;
    }

    /// Gives `block`, which only the blocks of an expression that started
    /// in `entry` branch to, the region of that expression: no statement
    /// is inside an expression, so a source variable has there the value it
    /// has in `entry` (note (h)). Called once `block`'s predecessors are all
    /// in; a block with fewer than two is walked through without its region,
    /// so it gets none.
    fn expression_region(&mut self, block: Block, entry: Block) {
        if self.blocks[block].preds.len() >= 2 {
            let k = self.regions.push(0, 0, entry);
            self.blocks[block].region = k;
        }
    }

    fn emit_value_nocse(&mut self, op: Op) -> Value {
        let v = self.new_value();
        self.push_inst(self.cur, Inst { dest: Some(v), op });
        v
    }

    fn after<'a>(&mut self, task: Task<'a>, tasks: &mut Vec<Task<'a>>) {
        match task {
            Task::AfterThen { join, els, region } => {
                self.jump(join);
                match els {
                    Some((els, else_b)) => {
                        self.cur = else_b;
                        tasks.push(Task::AfterElse { join, region });
                        tasks.push(Task::Stmts(els.stmts.iter()));
                    }
                    None => {
                        self.close_if(join, region);
                        self.seal_block(join);
                        self.cur = join;
                    }
                }
            }
            Task::AfterElse { join, region } => {
                self.jump(join);
                self.close_if(join, region);
                self.seal_block(join);
                self.cur = join;
            }
            Task::AfterLoopBody { targets } => {
                self.jump(targets.header);
                self.open_loops -= 1;
                self.seal_block(targets.header);
                self.seal_block(targets.exit);
                self.loops.pop();
                self.cur = targets.exit;
            }
            Task::Stmts(_) => unreachable!("statement lists are handled by build_body"),
        }
    }
}
