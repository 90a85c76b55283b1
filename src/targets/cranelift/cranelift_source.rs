//! A function of a source program in Cranelift IR, built by `cranelift-frontend`
//! straight from the AST, so that Cranelift's own SSA construction (Braun
//! et al.'s algorithm: `declare_var`, `def_var`, `use_var`, `seal_block`)
//! is what builds the SSA.
//!
//! One `Variable` per source variable, all defined at entry (0, or the
//! argument for a parameter). Blocks are sealed as late as the control flow
//! requires and no later: the arms of an `if` and a loop body at once
//! (one predecessor each), a join, loop header or loop exit when all its
//! edges are emitted, and a label's block when it has been placed and
//! every `goto` to it emitted. Statements after a `goto`, `break`,
//! `continue` or `return` go into a fresh block without predecessors
//! (sealed at once), so unreachable code, unreachable cycles and
//! irreducible loops all reach the builder as written.
//!
//! The function takes the context block's address, then its parameters,
//! and returns the return value; a call is a Cranelift `call` of the
//! callee's own translation (`cranelift_ops.rs`).

use super::cranelift_ops::{self as ops, Plant};
use crate::ast::{walk_stmts, Block as AstBlock, Expr, Function as AstFunction, Stmt};
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{Block, FuncRef, Function, InstBuilder, Value};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use std::collections::HashMap;

/// A label's block, how many of its `goto`s are still to be emitted, and
/// whether the label statement has been reached.
struct Label {
    block: Block,
    pending_gotos: usize,
    placed: bool,
}

struct Lowering<'a, 'f> {
    b: FunctionBuilder<'f>,
    ctx: Value,
    vars: HashMap<&'a str, Variable>,
    labels: HashMap<&'a str, Label>,
    /// (header, exit) of the enclosing `while`s, innermost last.
    loops: Vec<(Block, Block)>,
    /// Whether the current block still takes instructions (no terminator).
    open: bool,
    plant: Option<Plant>,
    /// The functions this one calls, by name.
    callees: HashMap<String, FuncRef>,
}

/// Translates `func` into the Cranelift function `clif` (whose signature
/// must be `cranelift_ops::signature(func.params.len())`). Its calls name
/// the callees by their names (`ExternalName::testcase`); the program's
/// parser has checked that each exists and takes as many arguments.
pub fn lower_source(func: &AstFunction, clif: &mut Function, plant: Option<Plant>) {
    let mut fb_ctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(clif, &mut fb_ctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let params = b.block_params(entry).to_vec();
    let ctx = params[0];

    // Every variable, parameters first, in order of first mention.
    let mut names: Vec<&str> = func.params.iter().map(String::as_str).collect();
    let mut gotos: HashMap<&str, usize> = HashMap::new();
    walk_stmts(&func.body, |stmt, _| {
        let mut mentioned: Vec<&str> = Vec::new();
        match stmt {
            Stmt::Var(x, e) | Stmt::Assign(x, e) => {
                mentioned.push(x);
                e.for_each_var(&mut |v| mentioned.push(v));
            }
            Stmt::Store(a, v) => {
                a.for_each_var(&mut |x| mentioned.push(x));
                v.for_each_var(&mut |x| mentioned.push(x));
            }
            Stmt::If(c, _, _) | Stmt::While(c, _) | Stmt::Out(c) | Stmt::Return(c) => {
                c.for_each_var(&mut |x| mentioned.push(x));
            }
            Stmt::Call(_, args) => args.iter().for_each(|a| a.for_each_var(&mut |x| mentioned.push(x))),
            Stmt::Goto(l) => *gotos.entry(l).or_default() += 1,
            _ => {}
        }
        for v in mentioned {
            if !names.contains(&v) {
                names.push(v);
            }
        }
    });
    let mut vars = HashMap::new();
    for (i, name) in names.iter().enumerate() {
        let var = b.declare_var(I64);
        let init = match params.get(i + 1) {
            Some(&p) if i < func.params.len() => p,
            _ => b.ins().iconst(I64, 0),
        };
        b.def_var(var, init);
        vars.insert(*name, var);
    }
    let mut labels = HashMap::new();
    walk_stmts(&func.body, |stmt, _| {
        if let Stmt::Label(l) = stmt {
            let block = b.create_block();
            let pending_gotos = gotos.get(l.as_str()).copied().unwrap_or(0);
            labels.insert(l.as_str(), Label { block, pending_gotos, placed: false });
        }
    });

    let mut l = Lowering { b, ctx, vars, labels, loops: Vec::new(), open: true, plant, callees: HashMap::new() };
    l.block(&func.body);
    if l.open {
        let zero = l.b.ins().iconst(I64, 0);
        l.b.ins().return_(&[zero]);
    }
    // Every block is sealed by now unless a label is never reached by the
    // walk, which a valid program does not have; sealing again is a no-op.
    l.b.seal_all_blocks();
    l.b.finalize(ops::frontend_config());
}

impl<'a> Lowering<'a, '_> {
    /// Makes sure there is a block to emit into: after a terminator, a
    /// fresh block without predecessors (unreachable code).
    fn ensure_open(&mut self) {
        if !self.open {
            let dead = self.b.create_block();
            self.b.switch_to_block(dead);
            self.b.seal_block(dead);
            self.open = true;
        }
    }

    /// Ends the current block with a jump to `target`, if it is open.
    fn fall_into(&mut self, target: Block) {
        if self.open {
            self.b.ins().jump(target, &[]);
        }
    }

    fn block(&mut self, block: &'a AstBlock) {
        for stmt in &block.stmts {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::Label(name) = stmt {
            return self.label(name);
        }
        self.ensure_open();
        match stmt {
            Stmt::Var(x, e) | Stmt::Assign(x, e) => {
                let v = self.expr(e);
                let var = self.vars[x.as_str()];
                self.b.def_var(var, v);
            }
            Stmt::Store(a, v) => {
                let a = self.expr(a);
                let v = self.expr(v);
                ops::store(&mut self.b, self.ctx, a, v);
            }
            Stmt::If(c, then_block, else_block) => {
                let c = self.expr(c);
                let then_dest = self.b.create_block();
                let join = self.b.create_block();
                let else_dest = if else_block.is_some() { self.b.create_block() } else { join };
                self.b.ins().brif(c, then_dest, &[], else_dest, &[]);
                self.b.seal_block(then_dest);
                self.b.switch_to_block(then_dest);
                self.block(then_block);
                self.fall_into(join);
                if let Some(else_block) = else_block {
                    self.b.seal_block(else_dest);
                    self.b.switch_to_block(else_dest);
                    self.open = true;
                    self.block(else_block);
                    self.fall_into(join);
                }
                self.b.seal_block(join);
                self.b.switch_to_block(join);
                self.open = true;
            }
            Stmt::While(c, body) => {
                let header = self.b.create_block();
                let body_block = self.b.create_block();
                let exit = self.b.create_block();
                self.b.ins().jump(header, &[]);
                self.b.switch_to_block(header);
                ops::burn_fuel(&mut self.b, self.ctx);
                let c = self.expr(c);
                self.b.ins().brif(c, body_block, &[], exit, &[]);
                self.b.seal_block(body_block);
                self.b.switch_to_block(body_block);
                self.loops.push((header, exit));
                self.block(body);
                self.loops.pop();
                self.fall_into(header);
                self.b.seal_block(header);
                self.b.seal_block(exit);
                self.b.switch_to_block(exit);
                self.open = true;
            }
            Stmt::Break | Stmt::Continue => {
                if let Some(&(header, exit)) = self.loops.last() {
                    let target = if matches!(stmt, Stmt::Break) { exit } else { header };
                    self.b.ins().jump(target, &[]);
                    self.open = false;
                }
            }
            Stmt::Goto(name) => {
                if let Some(label) = self.labels.get_mut(name.as_str()) {
                    let block = label.block;
                    label.pending_gotos = label.pending_gotos.saturating_sub(1);
                    let seal = label.placed && label.pending_gotos == 0;
                    self.b.ins().jump(block, &[]);
                    if seal {
                        self.b.seal_block(block);
                    }
                    self.open = false;
                }
            }
            Stmt::Out(e) => {
                let v = self.expr(e);
                ops::out(&mut self.b, self.ctx, v);
            }
            Stmt::Return(e) => {
                let v = self.expr(e);
                self.b.ins().return_(&[v]);
                self.open = false;
            }
            Stmt::Block(inner) => self.block(inner),
            Stmt::Label(_) => {}
            Stmt::Call(name, args) => {
                self.call(name, args);
            }
        }
    }

    /// `name:`: the fall-through edge into the label's block, then the
    /// block itself, sealed if no `goto` to it is still to come.
    fn label(&mut self, name: &str) {
        let Some(label) = self.labels.get_mut(name) else { return };
        label.placed = true;
        let (block, seal) = (label.block, label.pending_gotos == 0);
        self.fall_into(block);
        self.b.switch_to_block(block);
        if seal {
            self.b.seal_block(block);
        }
        self.open = true;
        ops::burn_fuel(&mut self.b, self.ctx);
    }

    fn expr(&mut self, e: &Expr) -> Value {
        match e {
            Expr::Lit(v) => self.b.ins().iconst(I64, *v),
            Expr::Var(x) => {
                let var = self.vars[x.as_str()];
                self.b.use_var(var)
            }
            Expr::Load(a) => {
                let a = self.expr(a);
                ops::load(&mut self.b, self.ctx, a)
            }
            Expr::Unary(op, a) => {
                let a = self.expr(a);
                ops::unary(&mut self.b, *op, a)
            }
            Expr::Binary(op, a, c) => {
                let a = self.expr(a);
                let c = self.expr(c);
                ops::binary(&mut self.b, self.plant, *op, a, c)
            }
            Expr::LogicalAnd(a, c) | Expr::LogicalOr(a, c) => {
                // The left operand decides; the right one runs in its own
                // block, and the join takes the 0 or 1 as a parameter.
                let is_and = matches!(e, Expr::LogicalAnd(..));
                let a = self.expr(a);
                let rhs = self.b.create_block();
                let join = self.b.create_block();
                let result = self.b.append_block_param(join, I64);
                let short = self.b.ins().iconst(I64, i64::from(!is_and));
                if is_and {
                    self.b.ins().brif(a, rhs, &[], join, &[short.into()]);
                } else {
                    self.b.ins().brif(a, join, &[short.into()], rhs, &[]);
                }
                self.b.seal_block(rhs);
                self.b.switch_to_block(rhs);
                let c = self.expr(c);
                let t = ops::truth(&mut self.b, c);
                self.b.ins().jump(join, &[t.into()]);
                self.b.seal_block(join);
                self.b.switch_to_block(join);
                result
            }
            Expr::Call(name, args) => self.call(name, args),
        }
    }

    /// `name(args)`: the arguments left to right, then the call.
    fn call(&mut self, name: &str, args: &[Expr]) -> Value {
        let values: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        ops::call(&mut self.b, &mut self.callees, self.plant, name, self.ctx, &values)
    }
}
