//! The abstract syntax tree of the source language (`*.src`).
//!
//! The grammar and the semantics are in docs/source-language.md.
//! The tree carries no source positions: every error that needs a position is
//! found by the parser (`parser.rs`), and an AST made by a generator is
//! checked by [`Program::validate`]. So two programs are equal exactly when
//! their trees are equal, which is what the print/parse round trip tests.
//!
//! Architecture invariant: dropping a tree never recurses once per nesting
//! level (see the `Drop` impl of [`Block`]), so a program with 10,000 nested
//! `if`s can be dropped on a small thread stack. `Clone`, `PartialEq` and
//! `Debug` are derived and do recurse; use them on generated-size programs.

pub use crate::op::{BinOp, UnOp};
use std::collections::{HashMap, HashSet};

/// The reserved words of the source language.
pub const KEYWORDS: [&str; 11] =
    ["fn", "var", "mem", "if", "else", "while", "break", "continue", "goto", "out", "return"];

/// True when `s` is a reserved word.
pub fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// A whole program: one or more functions. The one named `main` is run.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Program {
    pub functions: Vec<Function>,
}

/// `fn name(params) { body }`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Function {
    pub name: String,
    pub params: Vec<String>,
    pub body: Block,
}

/// A braced list of statements.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
}

/// A statement.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Stmt {
    /// `var x = e;` (an assignment; `var` is only a marker kept for printing).
    Var(String, Expr),
    /// `x = e;`
    Assign(String, Expr),
    /// `mem[addr] = value;`
    Store(Expr, Expr),
    /// `if (c) {..} else {..}`. An `else if` is an else block holding one `If`.
    If(Expr, Block, Option<Block>),
    /// `while (c) {..}`
    While(Expr, Block),
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `goto L;`
    Goto(String),
    /// `L:`
    Label(String),
    /// `out e;`
    Out(Expr),
    /// `return e;`
    Return(Expr),
    /// A nested `{ .. }`.
    Block(Block),
    /// `f(args);`: a call whose result is unused.
    Call(String, Vec<Expr>),
}

/// An expression.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Expr {
    /// A decimal literal. Always in `0..=i64::MAX`: `-5` is `Unary(Neg, Lit(5))`.
    Lit(i64),
    /// A variable or parameter.
    Var(String),
    /// `mem[e]`
    Load(Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a && b`: 0 or 1, `b` evaluated only when `a` is not 0.
    LogicalAnd(Box<Expr>, Box<Expr>),
    /// `a || b`: 0 or 1, `b` evaluated only when `a` is 0.
    LogicalOr(Box<Expr>, Box<Expr>),
    /// `f(args)`: calls the function `f` of the program with the arguments
    /// evaluated left to right, and is its return value.
    Call(String, Vec<Expr>),
}

/// The deepest expression tree the parser accepts and [`Program::validate`]
/// allows. Expression walks recurse, so this bounds their stack use.
pub const MAX_EXPR_DEPTH: usize = 256;

/// The deepest nesting of statements the parser accepts: a block, a
/// `while` body and each branch of an `if` is one level (an `else if`
/// chain of n `if`s is n levels deep). The parser and the interpreters
/// do not recurse on statements, but the tree's derived `Clone` and
/// `PartialEq` (the reducer) and the exports to production compilers do:
/// the command line runs on a thread whose stack holds this many levels
/// of each of them.
pub const MAX_NESTING: usize = 100_000;

/// Number of words of `mem`.
pub const MEM_WORDS: usize = 4096;

/// The deepest call stack a run may have, `main` counting as depth 1. A
/// call that would go deeper ends the run inconclusively
/// ([`crate::outcome::End::CallDepthExceeded`]), like running out of fuel.
pub const MAX_CALL_DEPTH: usize = 1000;

impl Drop for Block {
    fn drop(&mut self) {
        // Move the children of nested blocks onto a heap stack before they
        // drop, so that each nested `Block` is empty when its own `drop` runs.
        let mut stack: Vec<Stmt> = std::mem::take(&mut self.stmts);
        while let Some(mut stmt) = stack.pop() {
            match &mut stmt {
                Stmt::If(_, t, e) => {
                    stack.append(&mut t.stmts);
                    if let Some(e) = e {
                        stack.append(&mut e.stmts);
                    }
                }
                Stmt::While(_, b) | Stmt::Block(b) => stack.append(&mut b.stmts),
                _ => {}
            }
        }
    }
}

impl Block {
    /// A block of the given statements.
    pub fn new(stmts: Vec<Stmt>) -> Self {
        Block { stmts }
    }
}

impl Expr {
    /// Height of the tree: 1 for a leaf.
    pub fn depth(&self) -> usize {
        match self {
            Expr::Lit(_) | Expr::Var(_) => 1,
            Expr::Load(e) | Expr::Unary(_, e) => 1 + e.depth(),
            Expr::Binary(_, a, b) | Expr::LogicalAnd(a, b) | Expr::LogicalOr(a, b) => 1 + a.depth().max(b.depth()),
            Expr::Call(_, args) => 1 + args.iter().map(Expr::depth).max().unwrap_or(0),
        }
    }

    /// Calls `f` on every variable name read by the expression.
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        match self {
            Expr::Lit(_) => {}
            Expr::Var(v) => f(v),
            Expr::Load(e) | Expr::Unary(_, e) => e.for_each_var(f),
            Expr::Binary(_, a, b) | Expr::LogicalAnd(a, b) | Expr::LogicalOr(a, b) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }

    /// Calls `f` on the callee and argument count of every call in the
    /// expression, outermost first.
    pub fn for_each_call<'a>(&'a self, f: &mut impl FnMut(&'a str, usize)) {
        match self {
            Expr::Lit(_) | Expr::Var(_) => {}
            Expr::Load(e) | Expr::Unary(_, e) => e.for_each_call(f),
            Expr::Binary(_, a, b) | Expr::LogicalAnd(a, b) | Expr::LogicalOr(a, b) => {
                a.for_each_call(f);
                b.for_each_call(f);
            }
            Expr::Call(name, args) => {
                f(name, args.len());
                args.iter().for_each(|a| a.for_each_call(f));
            }
        }
    }

    /// True when the expression contains a call.
    pub fn has_call(&self) -> bool {
        let mut found = false;
        self.for_each_call(&mut |_, _| found = true);
        found
    }
}

/// Why a tree is not a valid program.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ValidationError(pub String);

impl std::fmt::Display for ValidationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ValidationError {}

/// Pre-order visit of every statement of a block, without recursion.
/// `f` gets the statement and its loop depth (number of enclosing `while`s).
pub fn walk_stmts<'a>(block: &'a Block, mut f: impl FnMut(&'a Stmt, usize)) {
    let mut stack: Vec<(std::slice::Iter<'a, Stmt>, usize)> = vec![(block.stmts.iter(), 0)];
    while let Some((iter, depth)) = stack.last_mut() {
        let depth = *depth;
        let Some(stmt) = iter.next() else {
            stack.pop();
            continue;
        };
        f(stmt, depth);
        match stmt {
            Stmt::If(_, t, e) => {
                if let Some(e) = e {
                    stack.push((e.stmts.iter(), depth));
                }
                stack.push((t.stmts.iter(), depth));
            }
            Stmt::While(_, b) => stack.push((b.stmts.iter(), depth + 1)),
            Stmt::Block(b) => stack.push((b.stmts.iter(), depth)),
            _ => {}
        }
    }
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !is_keyword(s)
}

impl Program {
    /// The function named `main`.
    pub fn main(&self) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == "main")
    }

    /// True when some function of the program contains a call.
    pub fn has_calls(&self) -> bool {
        self.functions.iter().any(|func| {
            let mut found = false;
            walk_stmts(&func.body, |stmt, _| {
                found |= match stmt {
                    Stmt::Call(..) => true,
                    Stmt::Var(_, e) | Stmt::Assign(_, e) | Stmt::Out(e) | Stmt::Return(e) => e.has_call(),
                    Stmt::If(e, _, _) | Stmt::While(e, _) => e.has_call(),
                    Stmt::Store(a, v) => a.has_call() || v.has_call(),
                    Stmt::Break | Stmt::Continue | Stmt::Goto(_) | Stmt::Label(_) | Stmt::Block(_) => false,
                }
            });
            found
        })
    }

    /// Checks what the parser checks, for trees made some other way
    /// (generators, reducers): a `main` exists, names are identifiers and not
    /// keywords, function names and parameters are distinct, labels are
    /// unique per function and every `goto` names one, `break`/`continue`
    /// are inside a loop, literals are non-negative, no expression is
    /// deeper than [`MAX_EXPR_DEPTH`], and every call names a function of
    /// the program and passes it as many arguments as it has parameters.
    pub fn validate(&self) -> Result<(), ValidationError> {
        let err = |m: String| Err(ValidationError(m));
        if self.main().is_none() {
            return err("no function named `main`".into());
        }
        let arity: HashMap<&str, usize> = self.functions.iter().map(|f| (f.name.as_str(), f.params.len())).collect();
        let mut names = HashSet::new();
        for func in &self.functions {
            if !is_ident(&func.name) {
                return err(format!("bad function name `{}`", func.name));
            }
            if !names.insert(func.name.as_str()) {
                return err(format!("duplicate function `{}`", func.name));
            }
            let mut params = HashSet::new();
            for p in &func.params {
                if !is_ident(p) || !params.insert(p.as_str()) {
                    return err(format!("bad or duplicate parameter `{p}` in `{}`", func.name));
                }
            }
            let mut labels = HashMap::new();
            let mut gotos = Vec::new();
            let mut problem: Option<String> = None;
            walk_stmts(&func.body, |stmt, loop_depth| {
                if problem.is_some() {
                    return;
                }
                let mut check_expr = |e: &Expr| {
                    if e.depth() > MAX_EXPR_DEPTH {
                        problem = Some(format!("expression deeper than {MAX_EXPR_DEPTH}"));
                        return;
                    }
                    let mut bad = None;
                    check_expr_leaves(e, &mut bad);
                    e.for_each_call(&mut |name, argc| {
                        if bad.is_none() {
                            bad = check_call(&arity, name, argc);
                        }
                    });
                    if let Some(b) = bad {
                        problem = Some(b);
                    }
                };
                match stmt {
                    Stmt::Var(x, e) | Stmt::Assign(x, e) => {
                        if !is_ident(x) {
                            problem = Some(format!("bad variable name `{x}`"));
                        } else {
                            check_expr(e);
                        }
                    }
                    Stmt::Store(a, v) => {
                        check_expr(a);
                        check_expr(v);
                    }
                    Stmt::If(c, _, _) | Stmt::While(c, _) => check_expr(c),
                    Stmt::Out(e) | Stmt::Return(e) => check_expr(e),
                    Stmt::Break | Stmt::Continue => {
                        if loop_depth == 0 {
                            problem = Some("`break` or `continue` outside a loop".into());
                        }
                    }
                    Stmt::Goto(l) => gotos.push(l.clone()),
                    Stmt::Label(l) => {
                        if !is_ident(l) {
                            problem = Some(format!("bad label `{l}`"));
                        } else if labels.insert(l.clone(), ()).is_some() {
                            problem = Some(format!("duplicate label `{l}`"));
                        }
                    }
                    Stmt::Call(name, args) => {
                        if let Some(bad) = check_call(&arity, name, args.len()) {
                            problem = Some(bad);
                        } else {
                            args.iter().for_each(&mut check_expr);
                        }
                    }
                    Stmt::Block(_) => {}
                }
            });
            if let Some(p) = problem {
                return err(format!("in `{}`: {p}", func.name));
            }
            for g in gotos {
                if !labels.contains_key(&g) {
                    return err(format!("in `{}`: unknown label `{g}`", func.name));
                }
            }
        }
        Ok(())
    }
}

/// Why a call of `name` with `argc` arguments is wrong, if it is: the
/// callee must be a function of the program and take `argc` parameters.
pub fn check_call(arity: &HashMap<&str, usize>, name: &str, argc: usize) -> Option<String> {
    match arity.get(name) {
        None => Some(format!("call of unknown function `{name}`")),
        Some(&n) if n != argc => Some(format!("`{name}` takes {n} argument(s) but the call passes {argc}")),
        Some(_) => None,
    }
}

fn check_expr_leaves(e: &Expr, bad: &mut Option<String>) {
    match e {
        Expr::Lit(v) => {
            if *v < 0 {
                *bad = Some(format!("negative literal {v}"));
            }
        }
        Expr::Var(v) => {
            if !is_ident(v) {
                *bad = Some(format!("bad variable name `{v}`"));
            }
        }
        Expr::Load(e) | Expr::Unary(_, e) => check_expr_leaves(e, bad),
        Expr::Binary(_, a, b) | Expr::LogicalAnd(a, b) | Expr::LogicalOr(a, b) => {
            check_expr_leaves(a, bad);
            check_expr_leaves(b, bad);
        }
        Expr::Call(_, args) => args.iter().for_each(|a| check_expr_leaves(a, bad)),
    }
}
