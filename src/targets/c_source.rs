//! ssaref's programs as C, for the C compilers (`gcc.rs`).
//!
//! A source program is translated from its AST, statement for statement:
//! `while`, `if`, `break`, `continue`, labels and `goto` are C's own (C
//! allows a `goto` into a loop or an `if`, as the source language does);
//! every variable is an `int64_t` declared at the top of the function and
//! initialised to 0 (variables are function-scoped and start at 0).
//! An IR-level program is translated from its SSA form: one `int64_t` per
//! value, one label per block, and each edge's parallel copy of the phis
//! implemented with per-edge temporaries (`t0 = a; t1 = b; x = t0; y = t1;`),
//! so a swap stays a swap.
//!
//! The operations are made total and deterministic as the oracle defines
//! them, never leaning on C's undefined behaviour:
//! - `+`, `-`, `*` and unary `-` are computed on `uint64_t` and converted
//!   back (GCC and Clang define the conversion as modulo 2^64);
//! - `/` and `%` call `ssaref_div`/`ssaref_rem`, which call the harness's
//!   `ssaref_trap` for a zero divisor and for `INT64_MIN / -1`;
//! - shift counts are masked with 63; `<<` shifts a `uint64_t`, `>>` is
//!   the compilers' arithmetic shift of an `int64_t`;
//! - comparisons, `!`, `&&` and `||` give `int`s 0 or 1, widened;
//! - `mem[a]` is `ssaref_mem[a & 4095]`.
//!
//! C leaves the order of evaluation of operands unspecified; that is
//! harmless here, as expressions have no effect but a trap and every trap
//! is the same `divide-error`.
//!
//! The text is indented by nesting, up to `ast_print::MAX_INDENT_LEVELS` levels.

use crate::ast::{self, Expr, Stmt};
use crate::ir::{BinOp, Function, Op, Terminator, UnOp};
use crate::targets::native::c_literal;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// A deliberate mistake of the translation, for the tests that show a
/// campaign finds and reduces an adapter bug. Never used otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CPlant {
    /// Division and remainder are C's `/` and `%`, unguarded.
    NoDivisionGuard,
}

/// The helpers every file of programs starts with (after
/// `native::C_PRELUDE`).
pub fn helpers(plant: Option<CPlant>) -> String {
    let guard = if plant == Some(CPlant::NoDivisionGuard) {
        ""
    } else {
        "    if (b == 0 || (a == INT64_MIN && b == -1)) ssaref_trap();\n"
    };
    format!(
        "static inline int64_t ssaref_div(int64_t a, int64_t b) {{\n{guard}    return a / b;\n}}\n\
         static inline int64_t ssaref_rem(int64_t a, int64_t b) {{\n{guard}    return a % b;\n}}\n"
    )
}

/// A binary operation on two C expressions.
fn binary(op: BinOp, a: &str, b: &str) -> String {
    let wrap = |sym: &str| format!("(int64_t)((uint64_t)({a}) {sym} (uint64_t)({b}))");
    let cmp = |sym: &str| format!("(int64_t)(({a}) {sym} ({b}))");
    match op {
        BinOp::Add => wrap("+"),
        BinOp::Sub => wrap("-"),
        BinOp::Mul => wrap("*"),
        BinOp::Div => format!("ssaref_div({a}, {b})"),
        BinOp::Rem => format!("ssaref_rem({a}, {b})"),
        BinOp::Shl => format!("(int64_t)((uint64_t)({a}) << (({b}) & 63))"),
        BinOp::Shr => format!("(({a}) >> (({b}) & 63))"),
        BinOp::And => format!("(({a}) & ({b}))"),
        BinOp::Or => format!("(({a}) | ({b}))"),
        BinOp::Xor => format!("(({a}) ^ ({b}))"),
        BinOp::Eq => cmp("=="),
        BinOp::Ne => cmp("!="),
        BinOp::Lt => cmp("<"),
        BinOp::Le => cmp("<="),
        BinOp::Gt => cmp(">"),
        BinOp::Ge => cmp(">="),
    }
}

fn unary(op: UnOp, a: &str) -> String {
    match op {
        UnOp::Neg => format!("(int64_t)(0 - (uint64_t)({a}))"),
        UnOp::Not => format!("(int64_t)(({a}) == 0)"),
        UnOp::BitNot => format!("(~({a}))"),
    }
}

fn expr(e: &Expr) -> String {
    match e {
        Expr::Lit(v) => c_literal(*v),
        Expr::Var(x) => format!("v_{x}"),
        Expr::Load(a) => format!("ssaref_mem[({}) & 4095]", expr(a)),
        Expr::Unary(op, a) => unary(*op, &expr(a)),
        Expr::Binary(op, a, b) => binary(*op, &expr(a), &expr(b)),
        Expr::LogicalAnd(a, b) => format!("(int64_t)(({}) != 0 && ({}) != 0)", expr(a), expr(b)),
        Expr::LogicalOr(a, b) => format!("(int64_t)(({}) != 0 || ({}) != 0)", expr(a), expr(b)),
        Expr::Call(name, args) => c_call(name, args.iter().map(expr)),
    }
}

/// The C call of the program's function `name`, as `ssaref_fn_NAME`. C
/// leaves the evaluation order of arguments unspecified, unlike the
/// language; the targets refuse programs with calls before translating them
/// (`target::run_against_oracle`), until they name their arguments first.
fn c_call(name: &str, args: impl Iterator<Item = String>) -> String {
    format!("ssaref_fn_{name}({})", args.collect::<Vec<_>>().join(", "))
}

/// The variables an expression reads, into `vars`.
fn read(e: &Expr, vars: &mut BTreeSet<String>) {
    match e {
        Expr::Lit(_) => {}
        Expr::Var(x) => {
            vars.insert(x.clone());
        }
        Expr::Load(a) | Expr::Unary(_, a) => read(a, vars),
        Expr::Binary(_, a, b) | Expr::LogicalAnd(a, b) | Expr::LogicalOr(a, b) => {
            read(a, vars);
            read(b, vars);
        }
        Expr::Call(_, args) => args.iter().for_each(|a| read(a, vars)),
    }
}

/// The variables a block assigns or reads, into `vars` (a variable read
/// before any assignment is 0, so it needs a declaration too).
fn variables(block: &ast::Block, vars: &mut BTreeSet<String>) {
    for s in &block.stmts {
        match s {
            Stmt::Var(x, e) | Stmt::Assign(x, e) => {
                vars.insert(x.clone());
                read(e, vars);
            }
            Stmt::Store(a, v) => {
                read(a, vars);
                read(v, vars);
            }
            Stmt::If(c, t, e) => {
                read(c, vars);
                variables(t, vars);
                if let Some(e) = e {
                    variables(e, vars);
                }
            }
            Stmt::While(c, b) => {
                read(c, vars);
                variables(b, vars);
            }
            Stmt::Block(b) => variables(b, vars),
            Stmt::Out(e) | Stmt::Return(e) => read(e, vars),
            Stmt::Call(_, args) => args.iter().for_each(|a| read(a, vars)),
            Stmt::Break | Stmt::Continue | Stmt::Goto(_) | Stmt::Label(_) => {}
        }
    }
}

/// The statements of `block`, nested `depth` levels deep, as C.
fn stmts(block: &ast::Block, depth: usize, out: &mut String) {
    // Indented as the source text is (`ast_print`), at most
    // `MAX_INDENT_LEVELS` deep, so the text grows linearly with the
    // program however deep its nesting.
    let pad = "    ".repeat(depth.min(crate::frontend::ast_print::MAX_INDENT_LEVELS));
    for s in &block.stmts {
        match s {
            Stmt::Var(x, e) | Stmt::Assign(x, e) => {
                let _ = writeln!(out, "{pad}v_{x} = {};", expr(e));
            }
            Stmt::Store(a, v) => {
                let _ = writeln!(out, "{pad}ssaref_mem[({}) & 4095] = {};", expr(a), expr(v));
            }
            Stmt::If(c, t, e) => {
                let _ = writeln!(out, "{pad}if (({}) != 0) {{", expr(c));
                stmts(t, depth + 1, out);
                if let Some(e) = e {
                    let _ = writeln!(out, "{pad}}} else {{");
                    stmts(e, depth + 1, out);
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::While(c, b) => {
                let _ = writeln!(out, "{pad}while (({}) != 0) {{", expr(c));
                stmts(b, depth + 1, out);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Break => {
                let _ = writeln!(out, "{pad}break;");
            }
            Stmt::Continue => {
                let _ = writeln!(out, "{pad}continue;");
            }
            Stmt::Goto(l) => {
                let _ = writeln!(out, "{pad}goto L_{l};");
            }
            Stmt::Label(l) => {
                let _ = writeln!(out, "{pad}L_{l}: ;");
            }
            Stmt::Out(e) => {
                let _ = writeln!(out, "{pad}ssaref_out({});", expr(e));
            }
            Stmt::Return(e) => {
                let _ = writeln!(out, "{pad}return {};", expr(e));
            }
            Stmt::Block(b) => {
                let _ = writeln!(out, "{pad}{{");
                stmts(b, depth + 1, out);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Call(name, args) => {
                let _ = writeln!(out, "{pad}{};", c_call(name, args.iter().map(expr)));
            }
        }
    }
}

/// A source function as a C function named `name`.
pub fn source_function(f: &ast::Function, name: &str) -> String {
    let params: Vec<String> = f.params.iter().map(|p| format!("int64_t v_{p}")).collect();
    let mut out = format!("int64_t {name}({}) {{\n", if params.is_empty() { "void".into() } else { params.join(", ") });
    let mut vars = BTreeSet::new();
    variables(&f.body, &mut vars);
    for p in &f.params {
        vars.remove(p);
    }
    for v in &vars {
        let _ = writeln!(out, "    int64_t v_{v} = 0;");
    }
    stmts(&f.body, 1, &mut out);
    out.push_str("    return 0;\n}\n");
    out
}

/// An SSA function as a C function named `name`.
pub fn ssa_function(f: &Function, name: &str) -> String {
    let params: Vec<String> = f.params.iter().map(|p| format!("int64_t {p}")).collect();
    let mut out = format!("int64_t {name}({}) {{\n", if params.is_empty() { "void".into() } else { params.join(", ") });
    let mut defined = BTreeSet::new();
    for data in f.blocks.values() {
        defined.extend(data.phis.iter().map(|p| p.dest));
        defined.extend(data.insts.iter().filter_map(|i| i.dest));
    }
    for v in &defined {
        if !f.params.contains(v) {
            let _ = writeln!(out, "    int64_t {v} = 0;");
        }
    }
    let temps = f.blocks.values().map(|b| b.phis.len()).max().unwrap_or(0);
    for t in 0..temps {
        let _ = writeln!(out, "    int64_t t{t} = 0;");
    }
    for (b, data) in f.blocks.iter() {
        let _ = writeln!(out, "{b}: ;");
        for inst in &data.insts {
            let rhs = match inst.op {
                Op::Const(c) => c_literal(c),
                Op::Undef => "0".into(),
                Op::Copy(a) => a.to_string(),
                Op::Unary(op, a) => unary(op, &a.to_string()),
                Op::Binary(op, a, c) => binary(op, &a.to_string(), &c.to_string()),
                Op::Load(a) => format!("ssaref_mem[{a} & 4095]"),
                Op::Store { addr, value } => {
                    let _ = writeln!(out, "    ssaref_mem[{addr} & 4095] = {value};");
                    continue;
                }
                Op::Out(a) => {
                    let _ = writeln!(out, "    ssaref_out({a});");
                    continue;
                }
                Op::Call(ref call) => c_call(&call.callee, call.args.iter().map(|a| a.to_string())),
            };
            if let Some(d) = inst.dest {
                let _ = writeln!(out, "    {d} = {rhs};");
            }
        }
        // The parallel copy of the edge from `b` to `to` (its `nth`
        // occurrence in `to`'s predecessors), then the jump.
        let edge = |to: crate::ir::Block, nth: usize| -> String {
            let target = &f.blocks[to];
            let Some(index) = target.preds.iter().enumerate().filter(|(_, &p)| p == b).map(|(i, _)| i).nth(nth) else {
                return format!("goto {to};");
            };
            let mut s = String::new();
            for (t, phi) in target.phis.iter().enumerate() {
                let _ = write!(s, "t{t} = {}; ", phi.args[index]);
            }
            for (t, phi) in target.phis.iter().enumerate() {
                let _ = write!(s, "{} = t{t}; ", phi.dest);
            }
            s.push_str(&format!("goto {to};"));
            s
        };
        match data.term {
            Terminator::Jump(t) => {
                let _ = writeln!(out, "    {}", edge(t, 0));
            }
            Terminator::Return(v) => {
                let _ = writeln!(out, "    return {v};");
            }
            Terminator::Branch { cond, then_dest, else_dest } => {
                let second = usize::from(then_dest == else_dest);
                let _ = writeln!(
                    out,
                    "    if ({cond} != 0) {{ {} }} else {{ {} }}",
                    edge(then_dest, 0),
                    edge(else_dest, second)
                );
            }
        }
    }
    out.push_str("}\n");
    out
}
