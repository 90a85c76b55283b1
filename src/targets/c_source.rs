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
//! harmless for an expression without calls, whose only effect is a trap
//! (every trap is the same `divide-error`). An expression with a call is
//! written with GNU C statement expressions (GCC and Clang both take them)
//! that give each operand and argument a temporary in the language's order,
//! left to right: `({ int64_t s1 = A; int64_t s2 = f(s1); s1 + s2; })`.
//!
//! Every function of a program is a C function: `main` of program `i` is
//! `ssaref_pI` (the harness calls it), any other function `f` is
//! `ssaref_pI_f` ([`native::program_function_name`]), declared before the
//! first definition so that a call may come before its callee.
//!
//! The text is indented by nesting, up to `ast_print::MAX_INDENT_LEVELS` levels.

use crate::ast::{self, Expr, Stmt};
use crate::ir::{BinOp, Function, Op, Terminator, UnOp};
use crate::targets::native::{self, c_literal};
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

/// Writes a source function's expressions and statements: the program's
/// prefix names the callees, and `temps` numbers the temporaries of
/// sequenced expressions.
struct SourceWriter<'a> {
    prefix: &'a str,
    temps: u32,
}

impl SourceWriter<'_> {
    fn expr(&mut self, e: &Expr) -> String {
        match e {
            Expr::Lit(v) => c_literal(*v),
            Expr::Var(x) => format!("v_{x}"),
            Expr::Load(a) => format!("ssaref_mem[({}) & 4095]", self.expr(a)),
            Expr::Unary(op, a) => unary(*op, &self.expr(a)),
            // Either operand's call may write `mem` or the trace, or run
            // after a trap of the other: the operands are sequenced.
            Expr::Binary(op, a, b) if a.has_call() || b.has_call() => {
                let (ta, tb) = (self.temp(), self.temp());
                let (ca, cb) = (self.expr(a), self.expr(b));
                format!("({{ int64_t {ta} = {ca}; int64_t {tb} = {cb}; {}; }})", binary(*op, &ta, &tb))
            }
            Expr::Binary(op, a, b) => binary(*op, &self.expr(a), &self.expr(b)),
            Expr::LogicalAnd(a, b) => format!("(int64_t)(({}) != 0 && ({}) != 0)", self.expr(a), self.expr(b)),
            Expr::LogicalOr(a, b) => format!("(int64_t)(({}) != 0 || ({}) != 0)", self.expr(a), self.expr(b)),
            Expr::Call(name, args) => self.call(name, args),
        }
    }

    /// A call whose arguments are evaluated left to right into
    /// temporaries, then passed.
    fn call(&mut self, name: &str, args: &[Expr]) -> String {
        let mut s = String::from("({ ");
        let mut names = Vec::new();
        for a in args {
            let t = self.temp();
            let _ = write!(s, "int64_t {t} = {}; ", self.expr(a));
            names.push(t);
        }
        let _ = write!(s, "{}; }})", c_call(self.prefix, name, names.into_iter()));
        s
    }

    fn temp(&mut self) -> String {
        self.temps += 1;
        format!("s{}", self.temps)
    }
}

/// The C call of the program's function `name` with the arguments `args`,
/// which are evaluated already (temporaries or SSA values), so C's
/// unspecified order of arguments cannot show.
fn c_call(prefix: &str, name: &str, args: impl Iterator<Item = String>) -> String {
    format!("{}({})", native::program_function_name(prefix, name), args.collect::<Vec<_>>().join(", "))
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
fn stmts(w: &mut SourceWriter, block: &ast::Block, depth: usize, out: &mut String) {
    // Indented as the source text is (`ast_print`), at most
    // `MAX_INDENT_LEVELS` deep, so the text grows linearly with the
    // program however deep its nesting.
    let pad = "    ".repeat(depth.min(crate::frontend::ast_print::MAX_INDENT_LEVELS));
    for s in &block.stmts {
        match s {
            Stmt::Var(x, e) | Stmt::Assign(x, e) => {
                let _ = writeln!(out, "{pad}v_{x} = {};", w.expr(e));
            }
            Stmt::Store(a, v) if a.has_call() || v.has_call() => {
                let (ta, tv) = (w.temp(), w.temp());
                let (ca, cv) = (w.expr(a), w.expr(v));
                let _ = writeln!(
                    out,
                    "{pad}{{ int64_t {ta} = {ca}; int64_t {tv} = {cv}; ssaref_mem[{ta} & 4095] = {tv}; }}"
                );
            }
            Stmt::Store(a, v) => {
                let _ = writeln!(out, "{pad}ssaref_mem[({}) & 4095] = {};", w.expr(a), w.expr(v));
            }
            Stmt::If(c, t, e) => {
                let _ = writeln!(out, "{pad}if (({}) != 0) {{", w.expr(c));
                stmts(w, t, depth + 1, out);
                if let Some(e) = e {
                    let _ = writeln!(out, "{pad}}} else {{");
                    stmts(w, e, depth + 1, out);
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::While(c, b) => {
                let _ = writeln!(out, "{pad}while (({}) != 0) {{", w.expr(c));
                stmts(w, b, depth + 1, out);
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
                let _ = writeln!(out, "{pad}ssaref_out({});", w.expr(e));
            }
            Stmt::Return(e) => {
                let _ = writeln!(out, "{pad}return {};", w.expr(e));
            }
            Stmt::Block(b) => {
                let _ = writeln!(out, "{pad}{{");
                stmts(w, b, depth + 1, out);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Call(name, args) => {
                let _ = writeln!(out, "{pad}{};", w.call(name, args));
            }
        }
    }
}

/// Every function of a source program as C, `main` named `prefix`.
pub fn source_program(p: &ast::Program, prefix: &str) -> String {
    let mut out = prototypes(p.functions.iter().map(|f| (f.name.as_str(), f.params.len())), prefix);
    for f in &p.functions {
        out.push_str(&source_function(f, prefix));
    }
    out
}

/// Every function of an SSA module as C, `main` named `prefix`.
pub fn ssa_program(m: &crate::ir::Module, prefix: &str) -> String {
    let mut out = prototypes(m.functions.iter().map(|f| (f.name.as_str(), f.params.len())), prefix);
    for f in &m.functions {
        out.push_str(&ssa_function(f, prefix));
    }
    out
}

/// The declarations of functions given by name and parameter count.
fn prototypes<'a>(functions: impl Iterator<Item = (&'a str, usize)>, prefix: &str) -> String {
    let mut out = String::new();
    for (name, params) in functions {
        let list = if params == 0 { "void".to_string() } else { vec!["int64_t"; params].join(", ") };
        let _ = writeln!(out, "int64_t {}({list});", native::program_function_name(prefix, name));
    }
    out
}

/// A source function as a C function, in the program of `prefix`.
fn source_function(f: &ast::Function, prefix: &str) -> String {
    let name = native::program_function_name(prefix, &f.name);
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
    stmts(&mut SourceWriter { prefix, temps: 0 }, &f.body, 1, &mut out);
    out.push_str("    return 0;\n}\n");
    out
}

/// An SSA function as a C function, in the program of `prefix`.
fn ssa_function(f: &Function, prefix: &str) -> String {
    let name = native::program_function_name(prefix, &f.name);
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
                Op::Call(ref call) => c_call(prefix, &call.callee, call.args.iter().map(|a| a.to_string())),
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
