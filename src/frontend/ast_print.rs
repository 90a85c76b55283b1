//! The printer of the source language: [`Program`] to canonical text.
//!
//! The output has one statement per line, 4 spaces of indentation per open
//! block, `} else {` and `} else if (..) {` on the closing line of the
//! then-block, and the fewest parentheses that keep the tree: an operand is
//! parenthesized only when its operator binds more loosely than its parent
//! allows (the right operand of a left-associative operator must bind
//! strictly tighter). Nested minus signs are separated, as in `- -x`.
//!
//! Invariant: for every program `p` with `p.validate().is_ok()`,
//! `parse_program(&print_program(&p)) == Ok(p)`.
//!
//! Statements are printed without recursion (an explicit stack of blocks),
//! so any nesting depth fits a small thread stack. Expressions are printed
//! recursively; valid expressions are at most [`crate::ast::MAX_EXPR_DEPTH`]
//! deep. Indentation stops growing after [`MAX_INDENT_LEVELS`] levels, so the text
//! of a deeply nested program stays linear in its size.

use crate::ast::{Block, Expr, Function, Program, Stmt, UnOp};
use std::fmt::Write as _;

/// Blocks nested deeper than this are indented like this deep. This keeps
/// the text of 10,000 nested `if`s at a few megabytes instead of hundreds.
pub const MAX_INDENT_LEVELS: usize = 64;

/// Binding strength of `||`; `&&` is one more and the [`crate::ast::BinOp`]s
/// follow.
const PREC_LOGICAL_OR: u8 = 1;
const PREC_LOGICAL_AND: u8 = 2;
/// Binding strength of prefix operators: tighter than every binary operator.
const PREC_UNARY: u8 = 20;
/// Binding strength of literals, variables, `mem[..]`.
const PREC_PRIMARY: u8 = 21;

/// The canonical text of a program. Functions are separated by a blank line.
pub fn print_program(p: &Program) -> String {
    let mut out = String::new();
    for (i, func) in p.functions.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        print_function(&mut out, func);
    }
    out
}

/// The canonical text of an expression.
pub fn print_expr(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, e, 0);
    out
}

/// Appends `fn name(params) { .. }` and a newline.
fn print_function(out: &mut String, func: &Function) {
    let _ = write!(out, "fn {}({}) {{", func.name, func.params.join(", "));
    out.push('\n');
    BlockPrinter { out }.print(&func.body, 1);
    out.push_str("}\n");
}

/// What remains to print of an open block.
enum Task<'a> {
    /// The statements still to print, at this indentation.
    Stmts(std::slice::Iter<'a, Stmt>, usize),
    /// The `}` that ends a block (and maybe an else part), at this
    /// indentation.
    Close(Option<&'a Block>, usize),
}

/// Prints statements with an explicit stack of open blocks.
struct BlockPrinter<'o> {
    out: &'o mut String,
}

impl BlockPrinter<'_> {
    /// Prints the statements of `body` at `indent` (not its braces).
    fn print(&mut self, body: &Block, indent: usize) {
        let mut stack = vec![Task::Stmts(body.stmts.iter(), indent)];
        while let Some(task) = stack.last_mut() {
            match task {
                Task::Stmts(iter, indent) => {
                    let indent = *indent;
                    let Some(stmt) = iter.next() else {
                        stack.pop();
                        continue;
                    };
                    self.indent(indent);
                    match stmt {
                        Stmt::If(cond, then, els) => {
                            self.head("if", cond);
                            stack.push(Task::Close(els.as_ref(), indent));
                            stack.push(Task::Stmts(then.stmts.iter(), indent + 1));
                        }
                        Stmt::While(cond, body) => {
                            self.head("while", cond);
                            stack.push(Task::Close(None, indent));
                            stack.push(Task::Stmts(body.stmts.iter(), indent + 1));
                        }
                        Stmt::Block(block) => {
                            self.out.push_str("{\n");
                            stack.push(Task::Close(None, indent));
                            stack.push(Task::Stmts(block.stmts.iter(), indent + 1));
                        }
                        Stmt::Var(x, e) => {
                            let _ = write!(self.out, "var {x} = ");
                            self.expr_line(e);
                        }
                        Stmt::Assign(x, e) => {
                            let _ = write!(self.out, "{x} = ");
                            self.expr_line(e);
                        }
                        Stmt::Store(addr, value) => {
                            self.out.push_str("mem[");
                            write_expr(self.out, addr, 0);
                            self.out.push_str("] = ");
                            self.expr_line(value);
                        }
                        Stmt::Break => self.out.push_str("break;\n"),
                        Stmt::Continue => self.out.push_str("continue;\n"),
                        Stmt::Goto(label) => {
                            let _ = writeln!(self.out, "goto {label};");
                        }
                        Stmt::Label(label) => {
                            let _ = writeln!(self.out, "{label}:");
                        }
                        Stmt::Out(e) => {
                            self.out.push_str("out ");
                            self.expr_line(e);
                        }
                        Stmt::Return(e) => {
                            self.out.push_str("return ");
                            self.expr_line(e);
                        }
                        Stmt::Call(name, args) => {
                            write_call(self.out, name, args);
                            self.out.push_str(";\n");
                        }
                    }
                }
                Task::Close(els, indent) => {
                    let (els, indent) = (*els, *indent);
                    stack.pop();
                    self.indent(indent);
                    match els {
                        None => self.out.push_str("}\n"),
                        Some(block) => match block.stmts.as_slice() {
                            [Stmt::If(cond, then, els)] => {
                                self.out.push_str("} else ");
                                self.head("if", cond);
                                stack.push(Task::Close(els.as_ref(), indent));
                                stack.push(Task::Stmts(then.stmts.iter(), indent + 1));
                            }
                            stmts => {
                                self.out.push_str("} else {\n");
                                stack.push(Task::Close(None, indent));
                                stack.push(Task::Stmts(stmts.iter(), indent + 1));
                            }
                        },
                    }
                }
            }
        }
    }

    /// Appends the indentation of `level` open blocks.
    fn indent(&mut self, level: usize) {
        for _ in 0..level.min(MAX_INDENT_LEVELS) {
            self.out.push_str("    ");
        }
    }

    /// Appends `keyword (cond) {` and a newline.
    fn head(&mut self, keyword: &str, cond: &Expr) {
        self.out.push_str(keyword);
        self.out.push_str(" (");
        write_expr(self.out, cond, 0);
        self.out.push_str(") {\n");
    }

    /// Appends `e;` and a newline.
    fn expr_line(&mut self, e: &Expr) {
        write_expr(self.out, e, 0);
        self.out.push_str(";\n");
    }
}

/// Binding strength of the operator at the root of `e`.
fn precedence(e: &Expr) -> u8 {
    match e {
        Expr::Lit(v) if *v < 0 => PREC_UNARY,
        Expr::Lit(_) | Expr::Var(_) | Expr::Load(_) | Expr::Call(..) => PREC_PRIMARY,
        Expr::Unary(..) => PREC_UNARY,
        Expr::Binary(op, ..) => op.precedence(),
        Expr::LogicalAnd(..) => PREC_LOGICAL_AND,
        Expr::LogicalOr(..) => PREC_LOGICAL_OR,
    }
}

/// Appends `e`, in parentheses when its operator binds more loosely than
/// `min_prec`.
fn write_expr(out: &mut String, e: &Expr, min_prec: u8) {
    let parens = precedence(e) < min_prec;
    if parens {
        out.push('(');
    }
    match e {
        Expr::Lit(v) => {
            let _ = write!(out, "{v}");
        }
        Expr::Var(x) => out.push_str(x),
        Expr::Load(addr) => {
            out.push_str("mem[");
            write_expr(out, addr, 0);
            out.push(']');
        }
        Expr::Unary(op, operand) => {
            out.push_str(op.symbol());
            if *op == UnOp::Neg && starts_with_minus(operand) {
                out.push(' ');
            }
            write_expr(out, operand, PREC_UNARY);
        }
        Expr::Binary(op, lhs, rhs) => write_infix(out, op.symbol(), op.precedence(), lhs, rhs),
        Expr::LogicalAnd(lhs, rhs) => write_infix(out, "&&", PREC_LOGICAL_AND, lhs, rhs),
        Expr::LogicalOr(lhs, rhs) => write_infix(out, "||", PREC_LOGICAL_OR, lhs, rhs),
        Expr::Call(name, args) => write_call(out, name, args),
    }
    if parens {
        out.push(')');
    }
}

/// Appends `name(arg, arg, ...)`.
fn write_call(out: &mut String, name: &str, args: &[Expr]) {
    out.push_str(name);
    out.push('(');
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_expr(out, arg, 0);
    }
    out.push(')');
}

/// Appends `lhs op rhs` for a left-associative operator of strength `prec`.
fn write_infix(out: &mut String, symbol: &str, prec: u8, lhs: &Expr, rhs: &Expr) {
    write_expr(out, lhs, prec);
    out.push(' ');
    out.push_str(symbol);
    out.push(' ');
    write_expr(out, rhs, prec + 1);
}

/// True when the printed `e` begins with `-` (a negation, or a negative
/// literal, which only a tree not made by the parser holds).
fn starts_with_minus(e: &Expr) -> bool {
    matches!(e, Expr::Unary(UnOp::Neg, _)) || matches!(e, Expr::Lit(v) if *v < 0)
}
