//! Small builders of AST expressions and statements, and the two hidden
//! variables of generated programs: the loop budget [`BUDGET_VAR`] and the
//! accumulator [`ACC_VAR`].

use crate::ast::{BinOp, Block, Expr, Stmt, UnOp};

/// The hidden variable that bounds every loop (see the module comment).
pub const BUDGET_VAR: &str = "budget";

/// The hidden variable that collects values when `out` is left out, so
/// that they stay used.
pub const ACC_VAR: &str = "acc";

/// Builders for expressions and statements.
pub(super) fn lit(v: i64) -> Expr {
    if v >= 0 {
        Expr::Lit(v)
    } else if v == i64::MIN {
        bin(BinOp::Sub, Expr::Unary(UnOp::Neg, Box::new(Expr::Lit(i64::MAX))), Expr::Lit(1))
    } else {
        Expr::Unary(UnOp::Neg, Box::new(Expr::Lit(-v)))
    }
}

pub(super) fn var(name: &str) -> Expr {
    Expr::Var(name.to_string())
}

pub(super) fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

pub(super) fn and(a: Expr, b: Expr) -> Expr {
    Expr::LogicalAnd(Box::new(a), Box::new(b))
}

pub(super) fn assign(name: &str, e: Expr) -> Stmt {
    Stmt::Assign(name.to_string(), e)
}

/// `budget = budget - 1;`
pub(super) fn decrement() -> Stmt {
    assign(BUDGET_VAR, bin(BinOp::Sub, var(BUDGET_VAR), Expr::Lit(1)))
}

/// `budget > 0`
pub(super) fn budget_left() -> Expr {
    bin(BinOp::Gt, var(BUDGET_VAR), Expr::Lit(0))
}

/// `if (budget > 0 [&& extra]) { budget = budget - 1; goto label; }`: a
/// backward `goto` that the budget bounds.
pub(super) fn guarded_goto(label: &str, extra: Option<Expr>) -> Stmt {
    let cond = match extra {
        Some(c) => and(budget_left(), c),
        None => budget_left(),
    };
    Stmt::If(cond, Block::new(vec![decrement(), Stmt::Goto(label.to_string())]), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_never_negative_and_min_is_spelled_as_a_subtraction() {
        assert_eq!(lit(-3), Expr::Unary(UnOp::Neg, Box::new(Expr::Lit(3))));
        assert_eq!(crate::frontend::ast_print::print_expr(&lit(i64::MIN)), "-9223372036854775807 - 1");
    }
}
