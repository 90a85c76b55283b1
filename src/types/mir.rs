//! The allocated machine IR: code over locations (registers and spill
//! slots) instead of SSA values.
//!
//! This is what register allocation and SSA elimination produce (ssa-ra:
//! Pereira's SSA-based allocator, then Pereira and Palsberg's spill-free SSA
//! elimination) and what the x86-64 lowering consumes. The target model:
//! `K` general-purpose registers, `K` in 2..=15, the first `K` of the x86-64
//! order rax, rcx, rdx, rbx, rbp, rsi, rdi, r8 ... r15 (rsp is never
//! allocated), and a stack of spill slots. `mem` (the program's 4096 words)
//! is reached only through `Load`/`Store` of a register address.
//!
//! Architecture invariant: there is no scratch register. Every register an
//! instruction names is one of the `K` allocatable ones, and nothing in this
//! IR can move a value between two spill slots in one instruction: the
//! instruction set is that of Pereira and Palsberg's language Seq (register
//! moves, loads and stores of slots, register swaps) plus the operations.
//!
//! Every instruction carries the SSA values it reads and writes
//! ([`Annot`]), so that `alloc_checker.rs` can check, without trusting the
//! allocator, that each operand location holds the value the SSA program
//! reads there (after regalloc2's checker). The annotations do not affect
//! execution. They name *copy-canonical* values: a value defined by
//! `copy s` is annotated as `s` (recursively), because a copy and its source
//! are the same value, and a coalesced copy leaves no instruction behind.
//! out-of-ssa (`out_of_ssa/conventional/`) allocates code after SSA destruction,
//! whose value numbers are variables defined several times; its annotations
//! name those variables, and each program copy is a transfer with a copy
//! annotation (`alloc_checker.rs`, "out-of-ssa: copy annotations").

use crate::entity::EntityVec;
use crate::ir::{BinOp, Block, UnOp, Value};
use std::fmt;

/// A register: an index into [`REGISTER_NAMES`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Reg(pub u8);

/// A spill slot on the stack.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Slot(pub u32);

/// Where a value lives.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Loc {
    Reg(Reg),
    Slot(Slot),
}

/// The x86-64 general-purpose registers in allocation order (rsp excluded).
pub const REGISTER_NAMES: [&str; 15] =
    ["rax", "rcx", "rdx", "rbx", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"];

/// The smallest and largest number of allocatable registers.
pub const MIN_REGS: usize = 2;
pub const MAX_REGS: usize = 15;

impl Reg {
    /// The register's x86-64 name, or `None` beyond the 15 allocatable ones.
    pub fn name(self) -> Option<&'static str> {
        REGISTER_NAMES.get(self.0 as usize).copied()
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            // Printing must not panic on malformed code: show the index.
            None => write!(f, "r#{}", self.0),
        }
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[s{}]", self.0)
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Loc::Reg(r) => r.fmt(f),
            Loc::Slot(s) => s.fmt(f),
        }
    }
}

/// One machine instruction.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum MInst {
    /// `dst = imm`.
    Const { dst: Reg, imm: i64 },
    /// `dst = op src`.
    Unary { op: UnOp, dst: Reg, src: Reg },
    /// `dst = a op b`; `/` and `%` trap like the source language.
    Binary { op: BinOp, dst: Reg, a: Reg, b: Reg },
    /// `dst = mem[addr & 4095]`.
    Load { dst: Reg, addr: Reg },
    /// `mem[addr & 4095] = src`.
    Store { addr: Reg, src: Reg },
    /// Appends `src` to the output trace.
    Out { src: Reg },
    /// Register to register copy.
    Move { dst: Reg, src: Reg },
    /// Exchanges two registers (x86 `xchg`).
    Swap { a: Reg, b: Reg },
    /// Stores a register into a spill slot.
    Spill { slot: Slot, src: Reg },
    /// Loads a spill slot into a register.
    Reload { dst: Reg, slot: Slot },
    /// x86's own division, for code whose allocation met the renaming
    /// constraints of `idiv` (Boissinot et al. §III-D, out-of-ssa): the
    /// dividend is in [`RAX`], the divisor in `divisor` (any register but
    /// [`RDX`]); the quotient (`/`) lands in [`RAX`], the remainder (`%`)
    /// in [`RDX`]. The other register of the two holds no value afterwards
    /// ([`MInst::clobbered`]). `op` is `/` or `%`; `%` needs `K >= 3`, so
    /// that [`RDX`] is allocatable. Traps like the source language.
    FixedDiv { op: BinOp, divisor: Reg },
    /// A call of another function of the module, following the calling
    /// convention of `K` (`analysis/calling_convention.rs`,
    /// docs/calling-convention.md): the first arguments are in the
    /// convention's argument registers, in order, and the others in any
    /// location of the caller (the lowering pushes them). After the call,
    /// the result is in [`RAX`], every other caller-saved register holds no
    /// value, and the callee-saved registers and the spill slots hold what
    /// they held before.
    Call(Box<MCall>),
}

/// The callee and the argument locations of an [`MInst::Call`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MCall {
    /// The name of the function called, one of the module.
    pub callee: String,
    /// Where each argument is at the call, in argument order.
    pub args: Vec<Loc>,
}

/// The register `idiv` takes the dividend in and leaves the quotient in.
pub const RAX: Reg = Reg(0);
/// The second register of the allocation order, allocatable at every `K`
/// as [`RAX`] is.
pub const RCX: Reg = Reg(1);
/// The register `idiv` leaves the remainder in (and `cqo` overwrites).
pub const RDX: Reg = Reg(2);

/// The SSA meaning of an instruction, for the allocation checker.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Annot {
    /// The SSA values the instruction's register operands must hold, in
    /// operand order (`a`, `b` for `Binary`; `addr`, `src` for `Store`;
    /// the arguments, in registers or slots, for `Call`).
    /// Empty for `Move`, `Swap`, `Spill` and `Reload`, which move whatever
    /// value their source holds, except for a out-of-ssa copy annotation
    /// (`Move`, `Spill` or `Reload` only): `reads: [b]`, `defines: Some(a)`
    /// for the program's `a = copy b`.
    pub reads: Vec<Value>,
    /// The SSA value the instruction defines, for operations. For transfers
    /// (`Move`, `Swap`, `Spill`, `Reload`) this is `None`: the value travels
    /// (except for a copy annotation, see `reads`).
    pub defines: Option<Value>,
}

/// An instruction and its annotation.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MInstA {
    pub inst: MInst,
    pub annot: Annot,
}

/// How a block ends.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum MTerm {
    Jump(Block),
    /// Goes to `then_dest` when `cond` is not 0.
    Branch {
        cond: Reg,
        then_dest: Block,
        else_dest: Block,
    },
    Return(Reg),
}

/// A phi that SSA elimination implemented, kept as an annotation: the value
/// `dest` lives in `loc` on entry to the block, and came along predecessor
/// edge `i` as `args[i]`. The code that moved it there is at the end of
/// each predecessor. A phi that lives in several locations on entry
/// (regalloc2 keeps a block parameter in its register and in its spill
/// slot) has one annotation per location, all with the same `dest` and
/// `args`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PhiAnnot {
    pub dest: Value,
    pub loc: Loc,
    pub args: Vec<Value>,
}

/// An allocated basic block.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MBlock {
    /// Predecessors, in phi-argument order.
    pub preds: Vec<Block>,
    /// Annotations of the phis this block had before SSA elimination.
    pub phis: Vec<PhiAnnot>,
    pub insts: Vec<MInstA>,
    pub term: MTerm,
    /// The SSA value the terminator reads (`cond` or the returned value).
    pub term_reads: Option<Value>,
}

/// An allocated function. Conventions (checked by `alloc_checker.rs` and
/// the oracle): `b0` has no predecessors; `preds` agrees with the
/// terminators as a multiset, the else-edge of `br c, B, B` being the second
/// occurrence of the block in `B.preds`; parameters arrive in distinct
/// locations; in a module with calls, the first parameters arrive in the
/// calling convention's argument registers (docs/calling-convention.md).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MFunction {
    pub name: String,
    /// Number of allocatable registers.
    pub k: usize,
    /// Number of spill slots used.
    pub slot_count: u32,
    /// Where each parameter arrives, and its SSA value.
    pub params: Vec<(Loc, Value)>,
    /// `Block(0)` is the entry.
    pub blocks: EntityVec<Block, MBlock>,
}

/// An allocated program.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct MModule {
    pub functions: Vec<MFunction>,
}

impl MModule {
    /// The function named `main`.
    pub fn main(&self) -> Option<&MFunction> {
        self.functions.iter().find(|f| f.name == "main")
    }

    /// The first function that contains a call, if any.
    pub fn function_with_calls(&self) -> Option<&MFunction> {
        self.functions
            .iter()
            .find(|f| f.blocks.values().any(|b| b.insts.iter().any(|i| matches!(i.inst, MInst::Call(_)))))
    }
}

impl MInst {
    /// The registers the instruction reads, in operand order.
    pub fn reg_reads(&self) -> Vec<Reg> {
        match *self {
            MInst::Const { .. } | MInst::Reload { .. } => vec![],
            MInst::Unary { src, .. } | MInst::Out { src } | MInst::Move { src, .. } | MInst::Spill { src, .. } => {
                vec![src]
            }
            MInst::Binary { a, b, .. } => vec![a, b],
            MInst::FixedDiv { divisor, .. } => vec![RAX, divisor],
            MInst::Load { addr, .. } => vec![addr],
            MInst::Store { addr, src } => vec![addr, src],
            MInst::Swap { a, b } => vec![a, b],
            MInst::Call(ref call) => call
                .args
                .iter()
                .filter_map(|l| match *l {
                    Loc::Reg(r) => Some(r),
                    Loc::Slot(_) => None,
                })
                .collect(),
        }
    }

    /// The registers the instruction writes.
    pub fn reg_writes(&self) -> Vec<Reg> {
        match *self {
            MInst::Const { dst, .. }
            | MInst::Unary { dst, .. }
            | MInst::Binary { dst, .. }
            | MInst::Load { dst, .. }
            | MInst::Move { dst, .. }
            | MInst::Reload { dst, .. } => vec![dst],
            MInst::Swap { a, b } => vec![a, b],
            MInst::FixedDiv { op, .. } => vec![if op == BinOp::Rem { RDX } else { RAX }],
            MInst::Call(_) => vec![RAX],
            MInst::Store { .. } | MInst::Out { .. } | MInst::Spill { .. } => vec![],
        }
    }

    /// The register an instruction leaves without a value, in a function
    /// with `k` registers: for [`MInst::FixedDiv`], [`RDX`] after `/` (when
    /// it is allocatable) and [`RAX`] after `%`. Not among
    /// [`MInst::reg_writes`]. The caller-saved registers a [`MInst::Call`]
    /// leaves without a value depend on the calling convention, which the
    /// checkers and the oracle know; they are not listed here.
    pub fn clobbered(&self, k: usize) -> Option<Reg> {
        match *self {
            MInst::FixedDiv { op: BinOp::Rem, .. } => Some(RAX),
            MInst::FixedDiv { .. } => (k > usize::from(RDX.0)).then_some(RDX),
            _ => None,
        }
    }

    /// True for the instructions that only move values (Pereira and
    /// Palsberg's Seq: moves, swaps, loads and stores of slots).
    pub fn is_transfer(&self) -> bool {
        matches!(self, MInst::Move { .. } | MInst::Swap { .. } | MInst::Spill { .. } | MInst::Reload { .. })
    }
}

impl fmt::Display for MInst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MInst::Const { dst, imm } => write!(f, "{dst} = const {imm}"),
            MInst::Unary { op, dst, src } => write!(f, "{dst} = {} {src}", op.mnemonic()),
            MInst::Binary { op, dst, a, b } => write!(f, "{dst} = {} {a}, {b}", op.mnemonic()),
            MInst::Load { dst, addr } => write!(f, "{dst} = load {addr}"),
            MInst::Store { addr, src } => write!(f, "store {addr}, {src}"),
            MInst::Out { src } => write!(f, "out {src}"),
            MInst::Move { dst, src } => write!(f, "{dst} = move {src}"),
            MInst::Swap { a, b } => write!(f, "swap {a}, {b}"),
            MInst::Spill { slot, src } => write!(f, "{slot} = spill {src}"),
            MInst::Reload { dst, slot } => write!(f, "{dst} = reload {slot}"),
            MInst::FixedDiv { op, divisor } => {
                let (dst, other) = if *op == BinOp::Rem { (RDX, RAX) } else { (RAX, RDX) };
                write!(f, "{dst} = {} {RAX}, {divisor} (fixed, clobbers {other})", op.mnemonic())
            }
            MInst::Call(call) => {
                let args: Vec<String> = call.args.iter().map(|l| l.to_string()).collect();
                write!(f, "{RAX} = call {}({})", call.callee, args.join(", "))
            }
        }
    }
}

impl fmt::Display for MTerm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MTerm::Jump(b) => write!(f, "jump {b}"),
            MTerm::Branch { cond, then_dest, else_dest } => write!(f, "br {cond}, {then_dest}, {else_dest}"),
            MTerm::Return(r) => write!(f, "ret {r}"),
        }
    }
}

fn annot_comment(a: &Annot) -> String {
    let reads: Vec<String> = a.reads.iter().map(|v| v.to_string()).collect();
    match (&a.defines, reads.is_empty()) {
        (Some(d), true) => format!("  ; {d}"),
        (Some(d), false) => format!("  ; {d} <- {}", reads.join(", ")),
        (None, false) => format!("  ; <- {}", reads.join(", ")),
        (None, true) => String::new(),
    }
}

/// Prints a function in the MIR text form: one instruction per line, each
/// followed by a comment naming the SSA values it defines and reads.
pub fn print_function(f: &MFunction) -> String {
    let mut s = String::new();
    let params: Vec<String> = f.params.iter().map(|(l, v)| format!("{v} in {l}")).collect();
    s.push_str(&format!("fn {}({}) regs {} slots {} {{\n", f.name, params.join(", "), f.k, f.slot_count));
    for (b, data) in f.blocks.iter() {
        if data.preds.is_empty() {
            s.push_str(&format!("{b}:\n"));
        } else {
            let preds: Vec<String> = data.preds.iter().map(|p| p.to_string()).collect();
            s.push_str(&format!("{b}({}):\n", preds.join(", ")));
        }
        for phi in &data.phis {
            let args: Vec<String> = phi.args.iter().map(|a| a.to_string()).collect();
            s.push_str(&format!("    ; {} in {} = phi {}\n", phi.dest, phi.loc, args.join(", ")));
        }
        for i in &data.insts {
            s.push_str(&format!("    {}{}\n", i.inst, annot_comment(&i.annot)));
        }
        let tr = data.term_reads.map(|v| format!("  ; <- {v}")).unwrap_or_default();
        s.push_str(&format!("    {}{tr}\n", data.term));
    }
    s.push_str("}\n");
    s
}

/// Prints every function of a module.
pub fn print_module(m: &MModule) -> String {
    m.functions.iter().map(print_function).collect()
}

/// Dynamic counts of one run of allocated code: what the statistics of
/// Pereira and Palsberg §7 (memory accesses, moves, swaps) count at run time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MirProfile {
    /// Instructions and terminators executed.
    pub executed: u64,
    /// Executed `Reload`s (loads of spill slots).
    pub loads: u64,
    /// Executed `Spill`s (stores to spill slots).
    pub stores: u64,
    /// Executed register-to-register `Move`s.
    pub moves: u64,
    /// Executed `Swap`s.
    pub swaps: u64,
}

impl MirProfile {
    /// Counts one executed instruction.
    pub fn count(&mut self, inst: &MInst) {
        self.executed += 1;
        match inst {
            MInst::Reload { .. } => self.loads += 1,
            MInst::Spill { .. } => self.stores += 1,
            MInst::Move { .. } => self.moves += 1,
            MInst::Swap { .. } => self.swaps += 1,
            _ => {}
        }
    }
}
