//! ssaref's SSA form as LLVM IR (`.ll`, the typed-pointer syntax of LLVM
//! 14), so that LLVM's back end (`llc`) compiles exactly the SSA that
//! ssaref built or generated.
//!
//! Each block `bN` becomes a block `bN`; phis become phis; every value
//! `vN` becomes `%vN`, an `i64`. The operations are made total and
//! deterministic as the oracle defines them (`interp/src/semantics.rs`),
//! never leaning on LLVM's undefined behaviour:
//! - `add`, `sub`, `mul`, `neg` wrap: LLVM's instructions without `nsw`;
//! - `div` and `rem` are guarded: a zero divisor, or `i64::MIN` divided by
//!   -1, branches to a block that calls `ssaref_trap` (the harness's trap,
//!   `native.rs`) and is `unreachable`; so a block with a division is
//!   split after the guard, and a phi's incoming label is the last piece
//!   of its predecessor;
//! - shift counts are masked with 63 (`ashr` for `>>`);
//! - comparisons and `!` are `icmp` then `zext` to `i64`;
//! - `mem[a]` is element `a & 4095` of the harness's `@ssaref_mem`;
//! - `out v` calls `@ssaref_out`;
//! - `const`, `copy` and `undef` (never executed on a path that uses it)
//!   are `add` of their operand (or 0) and 0.
//!
//! - `call f(args)` is a `call` of the program's function `f`, named as
//!   `native::program_function_name` says, with LLVM's C calling
//!   convention (System V on x86-64), so `llc` lowers it.
//!
//! LLVM's phis name predecessor blocks, not edges, and must agree on the
//! value of one predecessor listed twice; ssaref's `br c, B, B` has two
//! edges into `B` that may carry different values. Its else-edge goes
//! through a block of its own (`bN.else`), which is then the predecessor
//! of that edge.

use crate::ir::{BinOp, Block, Function, Op, Terminator, UnOp, Value};
use crate::targets::native;
use std::fmt::Write as _;

/// A deliberate mistake of the translation, for the tests that show a
/// campaign finds and reduces an adapter bug. Never used otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LlvmPlant {
    /// On the last incoming edge of the first block with two phis or
    /// more, the first two phis' operands are swapped.
    SwapPhiOperands,
}

/// The module header: the memory and the harness's functions.
pub const MODULE_HEADER: &str = "@ssaref_mem = external global [4096 x i64]\n\
declare void @ssaref_out(i64)\n\
declare void @ssaref_trap() noreturn nounwind\n";

/// `function` as an LLVM function of the program whose `main` is
/// `prefix` (`native::program_function_name` names it and its callees).
pub fn function(function: &Function, prefix: &str, plant: Option<LlvmPlant>) -> String {
    let name = native::program_function_name(prefix, &function.name);
    let mut e = Emitter { out: String::new(), temp: 0, piece: 0, trap_used: false, prefix };
    let params: Vec<String> = function.params.iter().map(|p| format!("i64 %{p}")).collect();
    let _ = writeln!(e.out, "define i64 @{name}({}) {{", params.join(", "));
    // The label each block's terminator ends up in, known after the
    // block is emitted; phis refer to labels of blocks emitted later, so
    // the pieces are computed first.
    let exits: Vec<String> = function.blocks.iter().map(|(b, data)| exit_label(b, data)).collect();
    let swap_block = plant.and_then(|_| function.blocks.iter().find(|(_, d)| d.phis.len() >= 2).map(|(b, _)| b));
    for (b, data) in function.blocks.iter() {
        let _ = writeln!(e.out, "{b}:");
        let mut seen: Vec<Block> = Vec::new();
        let labels: Vec<String> = data
            .preds
            .iter()
            .map(|&p| {
                let second = seen.contains(&p);
                seen.push(p);
                if second {
                    format!("{p}.else")
                } else {
                    exits[p.0 as usize].clone()
                }
            })
            .collect();
        for (pi, phi) in data.phis.iter().enumerate() {
            let entries: Vec<String> = phi
                .args
                .iter()
                .zip(&labels)
                .enumerate()
                .map(|(i, (&a, l))| {
                    let mut a = a;
                    if swap_block == Some(b) && i + 1 == phi.args.len() && pi < 2 {
                        a = data.phis[1 - pi].args[i];
                    }
                    format!("[ %{a}, %{l} ]")
                })
                .collect();
            let _ = writeln!(e.out, "  %{} = phi i64 {}", phi.dest, entries.join(", "));
        }
        e.piece = 0;
        for inst in &data.insts {
            e.inst(b, inst.dest, &inst.op);
        }
        e.terminator(b, &data.term);
    }
    if e.trap_used {
        e.out.push_str("trap:\n  call void @ssaref_trap()\n  unreachable\n");
    }
    e.out.push_str("}\n");
    e.out
}

/// The label of the piece of block `b` that holds its terminator.
fn exit_label(b: Block, data: &crate::ir::BlockData) -> String {
    let divisions = data.insts.iter().filter(|i| matches!(i.op, Op::Binary(BinOp::Div | BinOp::Rem, _, _))).count();
    if divisions == 0 {
        b.to_string()
    } else {
        format!("{b}.{divisions}")
    }
}

struct Emitter<'a> {
    out: String,
    /// The program's prefix, for the names of callees.
    prefix: &'a str,
    temp: u32,
    /// Pieces of the current block so far (one per guarded division).
    piece: u32,
    trap_used: bool,
}

impl Emitter<'_> {
    fn temp(&mut self) -> String {
        self.temp += 1;
        format!("%t{}", self.temp)
    }

    fn line(&mut self, s: &str) {
        self.out.push_str("  ");
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// `%dest`, or a temporary for an operation whose result is unnamed.
    fn dest(&mut self, dest: Option<Value>) -> String {
        match dest {
            Some(v) => format!("%{v}"),
            None => self.temp(),
        }
    }

    fn inst(&mut self, b: Block, dest: Option<Value>, op: &Op) {
        match *op {
            Op::Const(c) => {
                let d = self.dest(dest);
                self.line(&format!("{d} = add i64 0, {c}"));
            }
            Op::Undef => {
                let d = self.dest(dest);
                self.line(&format!("{d} = add i64 0, 0"));
            }
            Op::Copy(a) => {
                let d = self.dest(dest);
                self.line(&format!("{d} = add i64 %{a}, 0"));
            }
            Op::Unary(op, a) => {
                let d = self.dest(dest);
                match op {
                    UnOp::Neg => self.line(&format!("{d} = sub i64 0, %{a}")),
                    UnOp::BitNot => self.line(&format!("{d} = xor i64 %{a}, -1")),
                    UnOp::Not => {
                        let t = self.temp();
                        self.line(&format!("{t} = icmp eq i64 %{a}, 0"));
                        self.line(&format!("{d} = zext i1 {t} to i64"));
                    }
                }
            }
            Op::Binary(op, a, c) => self.binary(b, dest, op, a, c),
            Op::Load(a) => {
                let (i, p) = (self.temp(), self.temp());
                let d = self.dest(dest);
                self.line(&format!("{i} = and i64 %{a}, 4095"));
                self.line(&format!(
                    "{p} = getelementptr inbounds [4096 x i64], [4096 x i64]* @ssaref_mem, i64 0, i64 {i}"
                ));
                self.line(&format!("{d} = load i64, i64* {p}"));
            }
            Op::Store { addr, value } => {
                let (i, p) = (self.temp(), self.temp());
                self.line(&format!("{i} = and i64 %{addr}, 4095"));
                self.line(&format!(
                    "{p} = getelementptr inbounds [4096 x i64], [4096 x i64]* @ssaref_mem, i64 0, i64 {i}"
                ));
                self.line(&format!("store i64 %{value}, i64* {p}"));
            }
            Op::Out(a) => self.line(&format!("call void @ssaref_out(i64 %{a})")),
            Op::Call(ref call) => {
                let d = self.dest(dest);
                let args: Vec<String> = call.args.iter().map(|a| format!("i64 %{a}")).collect();
                let callee = native::program_function_name(self.prefix, &call.callee);
                self.line(&format!("{d} = call i64 @{callee}({})", args.join(", ")));
            }
        }
    }

    fn binary(&mut self, b: Block, dest: Option<Value>, op: BinOp, a: Value, c: Value) {
        let simple = |name: &str| format!("{name} i64 %{a}, %{c}");
        let text = match op {
            BinOp::Add => simple("add"),
            BinOp::Sub => simple("sub"),
            BinOp::Mul => simple("mul"),
            BinOp::And => simple("and"),
            BinOp::Or => simple("or"),
            BinOp::Xor => simple("xor"),
            BinOp::Shl | BinOp::Shr => {
                let m = self.temp();
                self.line(&format!("{m} = and i64 %{c}, 63"));
                let name = if op == BinOp::Shl { "shl" } else { "ashr" };
                format!("{name} i64 %{a}, {m}")
            }
            BinOp::Div | BinOp::Rem => {
                let (zero, min, minus1, both, bad) = (self.temp(), self.temp(), self.temp(), self.temp(), self.temp());
                self.line(&format!("{zero} = icmp eq i64 %{c}, 0"));
                self.line(&format!("{min} = icmp eq i64 %{a}, {}", i64::MIN));
                self.line(&format!("{minus1} = icmp eq i64 %{c}, -1"));
                self.line(&format!("{both} = and i1 {min}, {minus1}"));
                self.line(&format!("{bad} = or i1 {zero}, {both}"));
                self.piece += 1;
                let next = format!("{b}.{}", self.piece);
                self.line(&format!("br i1 {bad}, label %trap, label %{next}"));
                self.trap_used = true;
                let _ = writeln!(self.out, "{next}:");
                simple(if op == BinOp::Div { "sdiv" } else { "srem" })
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let pred = match op {
                    BinOp::Eq => "eq",
                    BinOp::Ne => "ne",
                    BinOp::Lt => "slt",
                    BinOp::Le => "sle",
                    BinOp::Gt => "sgt",
                    _ => "sge",
                };
                let t = self.temp();
                self.line(&format!("{t} = icmp {pred} i64 %{a}, %{c}"));
                let d = self.dest(dest);
                self.line(&format!("{d} = zext i1 {t} to i64"));
                return;
            }
        };
        let d = self.dest(dest);
        self.line(&format!("{d} = {text}"));
    }

    fn terminator(&mut self, b: Block, term: &Terminator) {
        match *term {
            Terminator::Jump(t) => self.line(&format!("br label %{t}")),
            Terminator::Return(v) => self.line(&format!("ret i64 %{v}")),
            Terminator::Branch { cond, then_dest, else_dest } => {
                let t = self.temp();
                self.line(&format!("{t} = icmp ne i64 %{cond}, 0"));
                if then_dest == else_dest {
                    self.line(&format!("br i1 {t}, label %{then_dest}, label %{b}.else"));
                    let _ = writeln!(self.out, "{b}.else:");
                    self.line(&format!("br label %{else_dest}"));
                } else {
                    self.line(&format!("br i1 {t}, label %{then_dest}, label %{else_dest}"));
                }
            }
        }
    }
}
