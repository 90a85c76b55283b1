//! Programs of several functions that call each other ([`GenConfig::calls`],
//! `ssaref gen --calls`, `ssaref fuzz --calls`).
//!
//! A program gets one to four helpers `f0`, `f1`, ... besides `main`,
//! each made by the generator core like `main` (its own swarm subset,
//! budget, shapes and traps), with zero to seven parameters after a hidden
//! first one, the depth `d`. Any function may call any helper, itself and
//! the helpers that call it included, so the call graph has self-recursion
//! and mutual recursion; what bounds it is the depth argument:
//! - every helper starts with `if (d < 1) { return e; }`, before any call;
//! - every call from a helper passes `d - 1` as the callee's depth, and
//!   every call from `main` a depth from 0 to [`MAX_DEPTH`];
//!
//! so every chain of calls is at most `MAX_DEPTH + 1` activations deep and
//! every run ends without the oracle's depth bound. Its length is bounded
//! too: a helper's loops have a budget of at most [`HELPER_BUDGET`] trips,
//! so the call tree is small, and most runs end far below the fuel.
//!
//! The situations made on purpose, each counted by [`CallFeatures`] and
//! reported by `ssaref gen --stats --calls` (docs/testing.md):
//! - calls as expression nodes, inside loops and inside the branches of
//!   `if`s, where their results meet other values in phis;
//! - calls as statements, their results unused;
//! - argument permutations: the caller's own parameters passed in another
//!   order (`f(d - 1, p1, p0)`);
//! - up to eight arguments, more than the six argument registers of K = 15
//!   (and than the fewer of smaller K);
//! - many values live across a call: eight or more values defined before
//!   a call and all used after it.

use super::builders::{bin, lit, var};
use super::entropy::Entropy;
use super::generator::{Callee, Generator};
use super::source_config::GenConfig;
use crate::ast::{walk_stmts, BinOp, Block, Expr, Function, Program, Stmt};
use std::collections::{BTreeSet, HashMap};

/// The hidden depth parameter of every helper.
pub const DEPTH_PARAM: &str = "d";

/// The largest depth `main` passes.
pub const MAX_DEPTH: u64 = 4;

/// The most loop trips a helper's run may take.
pub const HELPER_BUDGET: u64 = 3;

/// The most parameters of a helper, the depth included.
pub const MAX_ARITY: usize = 8;

/// Weight of a call among the inner expression nodes (a binary operator
/// has 20).
pub(super) const CALL_EXPR_WEIGHT: u32 = 5;
/// Weight of a call statement (result unused) among the statement kinds
/// (an assignment has 30).
pub(super) const CALL_STMT_WEIGHT: u32 = 4;
/// Weight of the shape of many values live across a call.
pub(super) const CALL_PRESSURE_WEIGHT: u32 = 2;

/// A program with helpers and `main`, and `main`'s arguments.
pub(super) fn program_with_calls<E: Entropy>(e: &mut E, cfg: &GenConfig) -> (Program, Vec<i64>) {
    let n = e.range(1, 4) as usize;
    let callees: Vec<Callee> = (0..n)
        .map(|i| {
            // A quarter of the helpers take more arguments than K = 15
            // has argument registers.
            let arity = if e.chance(25) { e.range(7, MAX_ARITY as u64) } else { e.range(1, 6) };
            Callee { name: format!("f{i}"), arity: arity as usize }
        })
        .collect();
    let helper_cfg = GenConfig {
        size: (cfg.size / 3).max(4),
        max_nesting: cfg.max_nesting.min(3),
        budget: HELPER_BUDGET,
        pressure_values: cfg.pressure_values.min(12),
        ..cfg.clone()
    };
    let mut functions = Vec::new();
    for callee in &callees {
        let mut g = Generator::new(e, &helper_cfg);
        g.in_helper = true;
        g.params = (1..callee.arity).map(|i| format!("p{}", i - 1)).collect();
        // The base case calls nothing.
        let base = g.expr(2);
        g.callees = callees.clone();
        let mut body =
            vec![Stmt::If(bin(BinOp::Lt, var(DEPTH_PARAM), Expr::Lit(1)), Block::new(vec![Stmt::Return(base)]), None)];
        body.extend(g.body());
        let mut params = vec![DEPTH_PARAM.to_string()];
        params.extend(g.params.iter().cloned());
        functions.push(Function { name: callee.name.clone(), params, body: Block::new(body) });
    }
    // `main`'s loops run its calls many times: its budget is sized as if
    // each statement cost as much as a small call tree.
    let main_cfg = GenConfig { step_target: cfg.step_target / 40, ..cfg.clone() };
    let mut g = Generator::new(e, &main_cfg);
    g.callees = callees;
    let (main, args) = g.program();
    functions.insert(0, main.functions.into_iter().next().expect("main"));
    (Program { functions }, args)
}

impl<E: Entropy> Generator<'_, E> {
    /// The depth argument of a call from the function being generated.
    fn depth_arg(&mut self) -> Expr {
        if self.in_helper {
            bin(BinOp::Sub, var(DEPTH_PARAM), Expr::Lit(1))
        } else if self.e.chance(50) {
            lit(self.e.range(0, MAX_DEPTH) as i64)
        } else {
            // A depth the construction cannot fold: 1 to MAX_DEPTH.
            let x = self.nonconst();
            bin(BinOp::Add, bin(BinOp::And, x, Expr::Lit(MAX_DEPTH as i64 - 1)), Expr::Lit(1))
        }
    }

    /// The arguments of a call of `callee` at expression level `depth`:
    /// the depth, then either the caller's parameters in another order
    /// (when it has two or more) or fresh expressions.
    fn call_args(&mut self, callee: &Callee, depth: usize) -> Vec<Expr> {
        let mut args = vec![self.depth_arg()];
        let rest = callee.arity - 1;
        if rest >= 2 && self.params.len() >= 2 && self.e.chance(30) {
            let mut order: Vec<usize> = (0..self.params.len()).collect();
            // A rotation by one or a reversal: never the identity.
            if self.e.chance(50) {
                order.rotate_left(1);
            } else {
                order.reverse();
            }
            for i in 0..rest {
                args.push(var(&self.params[order[i % order.len()]]));
            }
        } else {
            for _ in 0..rest {
                args.push(self.expr(depth + 1));
            }
        }
        args
    }

    fn pick_callee(&mut self) -> Callee {
        let i = self.e.below(self.callees.len() as u64) as usize;
        self.callees[i].clone()
    }

    /// A call as an expression node at level `depth`.
    pub(super) fn call_expr(&mut self, depth: usize) -> Expr {
        let callee = self.pick_callee();
        let args = self.call_args(&callee, depth);
        Expr::Call(callee.name, args)
    }

    /// A call whose result is unused.
    pub(super) fn call_stmt(&mut self) -> Stmt {
        let callee = self.pick_callee();
        let args = self.call_args(&callee, 1);
        Stmt::Call(callee.name, args)
    }

    /// Eight or more values defined before a call and all used after it,
    /// with the call's result: at small K most of them must be in
    /// callee-saved registers or spilled across the call.
    pub(super) fn call_pressure(&mut self) -> Vec<Stmt> {
        let (vars, mut out) = self.values_for_pressure(8);
        let r = self.fresh_var();
        let call = self.call_expr(1);
        out.push(Stmt::Assign(r.clone(), call));
        let mut sum = var(&r);
        for v in &vars {
            sum = bin(if self.e.chance(50) { BinOp::Add } else { BinOp::Xor }, sum, var(v));
        }
        out.push(self.use_value(sum));
        out
    }
}

/// Which call situations a program has (`ssaref gen --stats --calls`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallFeatures {
    /// Some call.
    pub calls: bool,
    /// A function that calls itself.
    pub self_recursion: bool,
    /// Two or more functions that call each other (a cycle of the call
    /// graph through two functions or more).
    pub mutual_recursion: bool,
    /// A call inside a `while`.
    pub in_loop: bool,
    /// A call inside a branch of an `if`, whose result meets other values
    /// at the join.
    pub in_branch: bool,
    /// A call passing two or more of the caller's parameters in another
    /// order than theirs.
    pub permuted_args: bool,
    /// A call with more than six arguments.
    pub many_args: bool,
    /// Eight or more variables assigned before a call and read after it,
    /// in one block.
    pub pressure_across_call: bool,
    /// A call statement (result unused).
    pub result_unused: bool,
}

impl CallFeatures {
    /// The names of the situations, in the order of [`CallFeatures::flags`].
    pub const NAMES: [&'static str; 9] = [
        "calls",
        "self-recursion",
        "mutual-recursion",
        "call-in-loop",
        "call-in-branch",
        "permuted-arguments",
        "more-than-6-arguments",
        "8-values-live-across-a-call",
        "result-unused",
    ];

    /// The situations as flags, in the order of [`CallFeatures::NAMES`].
    pub fn flags(&self) -> [bool; 9] {
        [
            self.calls,
            self.self_recursion,
            self.mutual_recursion,
            self.in_loop,
            self.in_branch,
            self.permuted_args,
            self.many_args,
            self.pressure_across_call,
            self.result_unused,
        ]
    }

    /// The situations of a program.
    pub fn of(program: &Program) -> CallFeatures {
        let mut f = CallFeatures::default();
        let mut graph: HashMap<&str, BTreeSet<&str>> = HashMap::new();
        for func in &program.functions {
            let callees = graph.entry(func.name.as_str()).or_default();
            walk_calls(&func.body, &mut |name, args, loops, branch| {
                callees.insert(name);
                f.calls = true;
                f.in_loop |= loops > 0;
                f.in_branch |= branch;
                f.many_args |= args.len() > 6;
                let positions: Vec<usize> = args
                    .iter()
                    .filter_map(|a| match a {
                        Expr::Var(v) => func.params.iter().position(|p| p == v),
                        _ => None,
                    })
                    .collect();
                f.permuted_args |= positions.len() >= 2 && positions.windows(2).any(|w| w[0] > w[1]);
            });
            f.pressure_across_call |= pressure_across_call(&func.body);
            walk_stmts(&func.body, |s, _| f.result_unused |= matches!(s, Stmt::Call(..)));
        }
        f.self_recursion = graph.iter().any(|(name, callees)| callees.contains(name));
        f.mutual_recursion =
            graph.iter().any(|(name, callees)| callees.iter().any(|c| c != name && reaches(&graph, c, name)));
        f
    }
}

/// Whether `from` reaches `to` in the call graph.
fn reaches(graph: &HashMap<&str, BTreeSet<&str>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from];
    while let Some(n) = stack.pop() {
        if n == to {
            return true;
        }
        if seen.insert(n) {
            stack.extend(graph.get(n).into_iter().flatten().copied());
        }
    }
    false
}

/// Calls `f` on every call of a block with its callee, arguments, loop
/// depth and whether it is inside a branch of an `if`.
fn walk_calls<'a>(block: &'a Block, f: &mut impl FnMut(&'a str, &'a [Expr], usize, bool)) {
    let mut stack: Vec<(&Block, usize, bool)> = vec![(block, 0, false)];
    while let Some((b, loops, branch)) = stack.pop() {
        for s in &b.stmts {
            let mut g = |name: &'a str, args: &'a [Expr]| f(name, args, loops, branch);
            match s {
                Stmt::Var(_, e) | Stmt::Assign(_, e) | Stmt::Out(e) | Stmt::Return(e) => each_call(e, &mut g),
                Stmt::Store(a, v) => {
                    each_call(a, &mut g);
                    each_call(v, &mut g);
                }
                Stmt::Call(name, args) => {
                    g(name, args);
                    args.iter().for_each(|a| each_call(a, &mut g));
                }
                Stmt::If(c, t, e) => {
                    each_call(c, &mut g);
                    stack.push((t, loops, true));
                    if let Some(e) = e {
                        stack.push((e, loops, true));
                    }
                }
                Stmt::While(c, body) => {
                    each_call(c, &mut g);
                    stack.push((body, loops + 1, branch));
                }
                Stmt::Block(inner) => stack.push((inner, loops, branch)),
                Stmt::Break | Stmt::Continue | Stmt::Goto(_) | Stmt::Label(_) => {}
            }
        }
    }
}

/// Calls `f` on every call inside an expression, with its arguments.
fn each_call<'a>(e: &'a Expr, f: &mut impl FnMut(&'a str, &'a [Expr])) {
    match e {
        Expr::Lit(_) | Expr::Var(_) => {}
        Expr::Load(a) | Expr::Unary(_, a) => each_call(a, f),
        Expr::Binary(_, a, b) | Expr::LogicalAnd(a, b) | Expr::LogicalOr(a, b) => {
            each_call(a, f);
            each_call(b, f);
        }
        Expr::Call(name, args) => {
            f(name, args);
            args.iter().for_each(|a| each_call(a, f));
        }
    }
}

/// Whether some block has a statement with a call such that eight or more
/// variables assigned by the statements before it (at that level) are read
/// after it.
fn pressure_across_call(block: &Block) -> bool {
    let mut found = false;
    let mut blocks = vec![block];
    walk_stmts(block, |s, _| match s {
        Stmt::If(_, t, e) => {
            blocks.push(t);
            blocks.extend(e.iter());
        }
        Stmt::While(_, b) | Stmt::Block(b) => blocks.push(b),
        _ => {}
    });
    for b in blocks {
        for (i, s) in b.stmts.iter().enumerate() {
            let has_call = match s {
                Stmt::Assign(_, e) | Stmt::Var(_, e) => e.has_call(),
                Stmt::Call(..) => true,
                _ => false,
            };
            if !has_call {
                continue;
            }
            let before: BTreeSet<&str> = b.stmts[..i]
                .iter()
                .filter_map(|s| match s {
                    Stmt::Assign(x, _) | Stmt::Var(x, _) => Some(x.as_str()),
                    _ => None,
                })
                .collect();
            let mut after = BTreeSet::new();
            let tail = Block::new(b.stmts[i + 1..].to_vec());
            walk_stmts(&tail, |s, _| {
                let mut read = |e: &Expr| {
                    e.for_each_var(&mut |v| {
                        after.insert(v.to_string());
                    })
                };
                match s {
                    Stmt::Var(_, e) | Stmt::Assign(_, e) | Stmt::Out(e) | Stmt::Return(e) => read(e),
                    Stmt::Store(a, v) => {
                        read(a);
                        read(v);
                    }
                    Stmt::If(c, ..) | Stmt::While(c, _) => read(c),
                    Stmt::Call(_, args) => args.iter().for_each(&mut read),
                    _ => {}
                }
            });
            found |= before.iter().filter(|v| after.contains(**v)).count() >= 8;
        }
    }
    found
}
