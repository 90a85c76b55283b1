//! Sizes of programs: statement counts, expression node counts, and the
//! static cost the generator sizes the loop budget from.

use crate::ast::{self, Expr, Program, Stmt};

/// Number of statements of a program, nested ones included.
pub fn statement_count(p: &Program) -> usize {
    let mut n = 0;
    for f in &p.functions {
        ast::walk_stmts(&f.body, |_, _| n += 1);
    }
    n
}

/// Calls `f` on every statement of `stmts`, nested ones included, without
/// recursion.
fn for_each_stmt<'s>(stmts: &'s [Stmt], mut f: impl FnMut(&'s Stmt)) {
    let mut stack: Vec<&Stmt> = stmts.iter().collect();
    while let Some(s) = stack.pop() {
        f(s);
        match s {
            Stmt::If(_, t, e) => {
                stack.extend(&t.stmts);
                if let Some(e) = e {
                    stack.extend(&e.stmts);
                }
            }
            Stmt::While(_, b) | Stmt::Block(b) => stack.extend(&b.stmts),
            _ => {}
        }
    }
}

/// Number of statements in `stmts`, nested ones included.
pub(super) fn statements_in(stmts: &[Stmt]) -> usize {
    let mut n = 0;
    for_each_stmt(stmts, |_| n += 1);
    n
}

/// Static cost of statements: one per statement and one per expression
/// node, the units the AST interpreter charges.
pub(super) fn static_cost(stmts: &[Stmt]) -> u64 {
    let mut cost = 0u64;
    for_each_stmt(stmts, |s| {
        cost += 1;
        let mut add = |e: &Expr| cost += expr_nodes(e);
        match s {
            Stmt::Var(_, e) | Stmt::Assign(_, e) | Stmt::Out(e) | Stmt::Return(e) => add(e),
            Stmt::If(c, _, _) | Stmt::While(c, _) => add(c),
            Stmt::Store(a, v) => {
                add(a);
                add(v);
            }
            Stmt::Call(_, args) => {
                // The call node; the statement's unit is counted above.
                args.iter().for_each(&mut add);
                cost += 1;
            }
            Stmt::Break | Stmt::Continue | Stmt::Goto(_) | Stmt::Label(_) | Stmt::Block(_) => {}
        }
    });
    cost
}

/// Number of nodes of an expression tree.
pub(crate) fn expr_nodes(e: &Expr) -> u64 {
    match e {
        Expr::Lit(_) | Expr::Var(_) => 1,
        Expr::Load(a) | Expr::Unary(_, a) => 1 + expr_nodes(a),
        Expr::Binary(_, a, b) | Expr::LogicalAnd(a, b) | Expr::LogicalOr(a, b) => 1 + expr_nodes(a) + expr_nodes(b),
        Expr::Call(_, args) => 1 + args.iter().map(expr_nodes).sum::<u64>(),
    }
}
