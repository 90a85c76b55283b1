//! Lowering of the allocated machine IR to x86-64 machine code, encoded by
//! the `iced-x86` code assembler.
//!
//! Input: an [`MFunction`] of ssa-ra (Pereira's SSA-based allocation and
//! Pereira and Palsberg's spill-free SSA elimination, "SSA Elimination after
//! Register Allocation", CC 2009) or of out-of-ssa (a conventional allocator).
//! Every MIR register is one of the `K` allocatable x86-64 registers (the
//! first `K` of rax, rcx, rdx, rbx, rbp, rsi, rdi, r8 ... r15), and the
//! lowering must not use any other register: there is no scratch register
//! (the paper's point: SSA elimination after allocation needs none, swaps
//! are `xchg`). `x86_check.rs` checks the encoded bytes for this.
//!
//! # The machine model ([`layout`])
//!
//! * Code at [`layout::CODE_BASE`]; execution starts at the first byte
//!   (block `b0`) and ends when it reaches [`X86Code::exit`].
//! * Spill slot `s` is the quadword at `[rsp + 8*s]`. The harness sets rsp
//!   so that `slot_count` slots fit above it and the pushes below it.
//! * `mem` is 4096 quadwords at [`layout::MEM_BASE`]; word `i` is at
//!   `MEM_BASE + 8*i`, reached with an absolute 32-bit displacement and an
//!   index register scaled by 8.
//! * The trace is a word count at [`layout::TRACE_COUNT`] and the words at
//!   [`layout::TRACE_BASE`]; at most [`layout::TRACE_CAPACITY`] words.
//! * A return stores the value at [`layout::RESULT`] and
//!   [`layout::STATUS_RETURNED`] at [`layout::STATUS`]; a full trace stores
//!   [`layout::STATUS_TRACE_FULL`] instead. Both then jump to the exit.
//! * The budget: every block starts with `sub qword [FUEL], 1; jb stop`,
//!   which touches no register (flags are never live across a block
//!   boundary: a branch tests its condition right before jumping). A run
//!   that enters more blocks than [`layout::FUEL`] held stores
//!   [`layout::STATUS_OUT_OF_FUEL`] and exits. Every loop goes through a
//!   block start, so every run ends. The budget is in the code rather than
//!   in Unicorn's instruction count because counting instructions makes
//!   Unicorn instrument every instruction, which makes a run several times
//!   slower (`ssaref bench-emulator` measures runs of new code).
//!
//! # Instruction selection without a spare register
//!
//! * Two-address operations `dst = a op b`: `mov dst, a; op dst, b`, or
//!   `op dst, b` when `dst` is `a`. When `dst` is `b` (and not `a`), a
//!   commutative operation becomes `op dst, a`, and subtraction becomes
//!   `neg dst; add dst, a` (`-b + a` wraps exactly as `a - b`).
//! * Shifts use BMI2 `shlx`/`sarx`, three-operand forms whose count may be
//!   in any register (the count is taken modulo 64, as the language says),
//!   so rcx is no constraint. The emulator runs a Haswell model.
//! * Comparisons: `cmp a, b; setcc dst8; movzx dst, dst8`; `!x` is
//!   `test x, x; sete; movzx`.
//! * `/` and `%` need the dividend in rdx:rax and leave the quotient in rax
//!   and the remainder in rdx. The allocator only *prefers* to keep other
//!   values out of rax and rdx around a division (see `coloring.rs`), so
//!   the lowering saves them on the stack: push rax (and rdx when it is
//!   allocatable, `K >= 3`), push the divisor, `mov rax, a; cqo;
//!   idiv qword [rsp]`, put the result in the divisor's stack word, restore
//!   rax and rdx, and load the result into `dst`. When `K = 2`, rdx holds
//!   no value, so it is not saved, and the only instruction that names it
//!   explicitly is the one that reads the remainder `idiv` left there.
//!   `idiv` raises #DE exactly when the language traps: a zero divisor, or
//!   `i64::MIN / -1`.
//! * `FixedDiv` (out-of-ssa, when the allocation met the renaming constraints
//!   of §III-D of Boissinot et al.: dividend in rax, divisor not in rdx,
//!   nothing live in the destroyed register) is just `cqo; idiv divisor`.
//! * `mem[addr & 4095] = src` needs the masked address in a register.
//!   It uses a register `r` other than `src` (there are at least two):
//!   `push r; mov r, addr; and r, 4095; mov [MEM_BASE + 8*r], src; pop r`.
//!   `out` likewise borrows a register other than its operand for the trace
//!   index. Borrowing with push and pop is not a scratch register: the
//!   borrowed register keeps its value.
//! * Swaps are `xchg`, spills and reloads are `mov` to and from `[rsp+8s]`.
//! * Branches: `test c, c; jne then; jmp else`, dropping the jump to the
//!   next block.

use crate::analysis::calling_convention::CallingConvention;
use crate::ir::{BinOp, Block, UnOp};
use crate::mir::{Loc, MFunction, MInst, MInstA, MTerm, Reg, MAX_REGS, MIN_REGS, RAX, RCX, RDX};
use iced_x86::code_asm::registers::gpr64::*;
use iced_x86::code_asm::registers::gpr8::*;
use iced_x86::code_asm::{qword_ptr, AsmRegister64, AsmRegister8, CodeAssembler, CodeLabel};
use iced_x86::{BlockEncoderOptions, Decoder, DecoderOptions, Formatter, IntelFormatter};

/// Fixed addresses of the machine model. All are below 2^31, so that code
/// can name them as sign-extended 32-bit displacements.
pub mod layout {
    /// Where the code starts.
    pub const CODE_BASE: u64 = 0x0010_0000;
    /// Word `i` of `mem` is at `MEM_BASE + 8*i`.
    pub const MEM_BASE: u64 = 0x0800_0000;
    /// The returned value.
    pub const RESULT: u64 = 0x0801_0000;
    /// How the run ended ([`STATUS_RETURNED`], [`STATUS_TRACE_FULL`]); 0
    /// until then.
    pub const STATUS: u64 = 0x0801_0008;
    /// The number of words in the trace.
    pub const TRACE_COUNT: u64 = 0x0801_0010;
    /// Block entries left before the run is stopped (the budget).
    pub const FUEL: u64 = 0x0801_0018;
    /// Activations a module with calls may still enter: decremented at
    /// each function's entry, incremented again at its return
    /// (`x86_frames.rs`). The harness stores `ast::MAX_CALL_DEPTH` there.
    pub const CALL_DEPTH: u64 = 0x0801_0020;
    /// Bytes of the control words (`RESULT` to `CALL_DEPTH`).
    pub const CONTROL_BYTES: usize = 40;
    /// The page that holds `RESULT`, `STATUS` and `TRACE_COUNT`.
    pub const CONTROL_PAGE: u64 = 0x0801_0000;
    /// Trace word `i` is at `TRACE_BASE + 8*i`.
    pub const TRACE_BASE: u64 = 0x0900_0000;
    /// How many words the trace holds.
    pub const TRACE_CAPACITY: u64 = 1 << 21;
    /// The stack is mapped just below this address.
    pub const STACK_TOP: u64 = 0x4000_0000;
    /// The program returned.
    pub const STATUS_RETURNED: u64 = 1;
    /// An `out` found the trace full.
    pub const STATUS_TRACE_FULL: u64 = 2;
    /// A block was entered with no fuel left.
    pub const STATUS_OUT_OF_FUEL: u64 = 3;
    /// A function was entered with [`CALL_DEPTH`] at 0: the call passed
    /// the bound on call depth.
    pub const STATUS_CALL_DEPTH_EXCEEDED: u64 = 4;
    /// Bytes the lowering may push below rsp at once (a division pushes 3
    /// words).
    pub const PUSH_RESERVE: u64 = 64;
}

/// One line of the annotated listing: where an instruction group starts
/// and what it implements.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ListingNote {
    /// Offset of the group's first byte from the start of the code.
    pub offset: u32,
    /// Set on the first group of a block.
    pub block: Option<Block>,
    /// The MIR instruction or terminator, with its SSA annotation.
    pub text: String,
}

/// Encoded machine code for one function, and what the harness needs to
/// run it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct X86Code {
    pub name: String,
    /// The number of allocatable registers.
    pub k: usize,
    pub slot_count: u32,
    /// Where each argument goes (register or slot), as in the MIR.
    pub params: Vec<Loc>,
    /// The encoded code, to be placed at [`layout::CODE_BASE`].
    pub bytes: Vec<u8>,
    /// The address at which execution ends.
    pub exit: u64,
    /// Offsets of the block starts, indexed by block number.
    pub block_offsets: Vec<u32>,
    /// Notes for the listing, in code order.
    pub notes: Vec<ListingNote>,
    /// For a module with calls, what the harness needs beyond the above
    /// (`x86_frames.rs`); `None` for code lowered by [`lower_function`].
    pub harness: Option<CallHarness>,
}

const R64: [AsmRegister64; MAX_REGS] = [rax, rcx, rdx, rbx, rbp, rsi, rdi, r8, r9, r10, r11, r12, r13, r14, r15];
const R8: [AsmRegister8; MAX_REGS] = [al, cl, dl, bl, bpl, sil, dil, r8b, r9b, r10b, r11b, r12b, r13b, r14b, r15b];

pub(super) struct Lowerer {
    pub(super) a: CodeAssembler,
    pub(super) k: usize,
    pub(super) labels: Vec<CodeLabel>,
    pub(super) exit: CodeLabel,
    pub(super) trace_full: CodeLabel,
    pub(super) out_of_fuel: CodeLabel,
    /// In a module with calls, the frame of the function being lowered,
    /// the functions' labels and the call-depth exit (`x86_frames.rs`).
    pub(super) frames: Option<ModuleState>,
    /// `(instruction index in the assembler, block, text)` per group,
    /// recorded only when the listing is asked for.
    pub(super) groups: Vec<(usize, Option<Block>, String)>,
    pub(super) listing: bool,
}

pub(super) type LResult<T> = Result<T, LowerError>;

pub use crate::error::machine_errors::LowerError;

/// What the harness needs to run a module with calls.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CallHarness {
    /// The convention's callee-saved registers, which the harness poisons
    /// before the entry stub and checks after it.
    pub callee_saved: Vec<Reg>,
    /// The argument registers: `main`'s argument `i` goes in `arg_regs[i]`,
    /// and the others on the stack at the stub's `[rsp + 8j]`.
    pub arg_regs: Vec<Reg>,
    /// The stack the deepest run may use below the stub's rsp: the call
    /// depth bound times the largest activation, and the return address of
    /// the call that passes the bound.
    pub stack_bytes: u64,
}

/// The frame of one function.
#[derive(Clone, Debug)]
pub(super) struct Frame {
    /// The callee-saved registers the function writes, in push order.
    pub(super) saved: Vec<Reg>,
    /// The bytes `sub rsp` reserves: the slots and the alignment padding.
    pub(super) frame_bytes: u32,
    pub(super) slot_count: u32,
}

/// The state of a module's lowering (`x86_frames.rs`) that the instructions of a function
/// need: the convention, the functions' labels and arities, the call-depth
/// exit, and the frame of the function being lowered.
pub(super) struct ModuleState {
    pub(super) convention: CallingConvention,
    pub(super) functions: std::collections::HashMap<String, (CodeLabel, usize)>,
    pub(super) depth_exceeded: CodeLabel,
    pub(super) frame: Frame,
}

pub(super) fn asm_err(e: iced_x86::IcedError) -> LowerError {
    LowerError::Assembler(crate::error::Foreign(e))
}

impl Lowerer {
    /// Records the listing's note for the group starting at instruction
    /// `start`, when the listing is asked for (the text is made only then).
    pub(super) fn note(&mut self, start: usize, block: Option<Block>, text: impl FnOnce() -> String) {
        if self.listing {
            self.groups.push((start, block, text()));
        }
    }

    pub(super) fn r64(&self, r: Reg) -> LResult<AsmRegister64> {
        if usize::from(r.0) >= self.k {
            return Err(LowerError::RegisterOutOfRange { reg: r, k: self.k });
        }
        Ok(R64[usize::from(r.0)])
    }

    fn r8(&self, r: Reg) -> LResult<AsmRegister8> {
        self.r64(r)?;
        Ok(R8[usize::from(r.0)])
    }

    /// An allocatable register other than `not`.
    fn other_than(&self, not: Reg) -> Reg {
        if not == RAX {
            RCX
        } else {
            RAX
        }
    }

    pub(super) fn slot_operand(slot: u32) -> LResult<iced_x86::code_asm::AsmMemoryOperand> {
        let disp = i32::try_from(u64::from(slot) * 8).map_err(|_| LowerError::SlotTooFar(slot))?;
        Ok(qword_ptr(rsp + disp))
    }

    fn inst(&mut self, i: &MInstA) -> LResult<()> {
        match i.inst {
            MInst::Const { dst, imm } => {
                let d = self.r64(dst)?;
                self.a.mov(d, imm).map_err(asm_err)?;
            }
            MInst::Unary { op, dst, src } => self.unary(op, dst, src)?,
            MInst::Binary { op, dst, a: x, b: y } => self.binary(op, dst, x, y)?,
            MInst::FixedDiv { op, divisor } => self.fixed_division(op, divisor)?,
            MInst::Call(ref call) => match self.frames.is_some() {
                true => self.call(call)?,
                false => return Err(LowerError::Call { callee: call.callee.clone() }),
            },
            MInst::Load { dst, addr } => {
                let (d, s) = (self.r64(dst)?, self.r64(addr)?);
                if dst != addr {
                    self.a.mov(d, s).map_err(asm_err)?;
                }
                self.a.and(d, 4095).map_err(asm_err)?;
                self.a.mov(d, qword_ptr(d * 8 + layout::MEM_BASE as i32)).map_err(asm_err)?;
            }
            MInst::Store { addr, src } => {
                let s = self.r64(src)?;
                let ad = self.r64(addr)?;
                let r = if addr != src { addr } else { self.other_than(src) };
                let t = self.r64(r)?;
                self.a.push(t).map_err(asm_err)?;
                if r != addr {
                    self.a.mov(t, ad).map_err(asm_err)?;
                }
                self.a.and(t, 4095).map_err(asm_err)?;
                self.a.mov(qword_ptr(t * 8 + layout::MEM_BASE as i32), s).map_err(asm_err)?;
                self.a.pop(t).map_err(asm_err)?;
            }
            MInst::Out { src } => {
                let s = self.r64(src)?;
                let t = self.r64(self.other_than(src))?;
                let full = self.trace_full;
                self.a.cmp(qword_ptr(layout::TRACE_COUNT as i32), layout::TRACE_CAPACITY as i32).map_err(asm_err)?;
                self.a.jae(full).map_err(asm_err)?;
                self.a.push(t).map_err(asm_err)?;
                self.a.mov(t, qword_ptr(layout::TRACE_COUNT as i32)).map_err(asm_err)?;
                self.a.mov(qword_ptr(t * 8 + layout::TRACE_BASE as i32), s).map_err(asm_err)?;
                self.a.inc(qword_ptr(layout::TRACE_COUNT as i32)).map_err(asm_err)?;
                self.a.pop(t).map_err(asm_err)?;
            }
            MInst::Move { dst, src } => {
                let (d, s) = (self.r64(dst)?, self.r64(src)?);
                if dst != src {
                    self.a.mov(d, s).map_err(asm_err)?;
                }
            }
            MInst::Swap { a: x, b: y } => {
                let (p, q) = (self.r64(x)?, self.r64(y)?);
                if x != y {
                    self.a.xchg(p, q).map_err(asm_err)?;
                }
            }
            MInst::Spill { slot, src } => {
                let s = self.r64(src)?;
                let m = Self::slot_operand(slot.0)?;
                self.a.mov(m, s).map_err(asm_err)?;
            }
            MInst::Reload { dst, slot } => {
                let d = self.r64(dst)?;
                let m = Self::slot_operand(slot.0)?;
                self.a.mov(d, m).map_err(asm_err)?;
            }
        }
        Ok(())
    }

    fn unary(&mut self, op: UnOp, dst: Reg, src: Reg) -> LResult<()> {
        let (d, s) = (self.r64(dst)?, self.r64(src)?);
        match op {
            UnOp::Neg | UnOp::BitNot => {
                if dst != src {
                    self.a.mov(d, s).map_err(asm_err)?;
                }
                if op == UnOp::Neg {
                    self.a.neg(d).map_err(asm_err)?;
                } else {
                    self.a.not(d).map_err(asm_err)?;
                }
            }
            UnOp::Not => {
                let d8 = self.r8(dst)?;
                self.a.test(s, s).map_err(asm_err)?;
                self.a.sete(d8).map_err(asm_err)?;
                self.a.movzx(d, d8).map_err(asm_err)?;
            }
        }
        Ok(())
    }

    /// x86's own division, whose operands the allocation put where `idiv`
    /// wants them (out-of-ssa's renaming constraints): nothing to save.
    fn fixed_division(&mut self, op: BinOp, divisor: Reg) -> LResult<()> {
        if !matches!(op, BinOp::Div | BinOp::Rem) {
            return Err(LowerError::FixedDivisionOp(op));
        }
        if divisor == RDX {
            return Err(LowerError::DivisorInRdx);
        }
        if op == BinOp::Rem && self.k <= usize::from(RDX.0) {
            return Err(LowerError::RemainderNeedsRdx { k: self.k });
        }
        let q = self.r64(divisor)?;
        self.a.cqo().map_err(asm_err)?;
        self.a.idiv(q).map_err(asm_err)?;
        Ok(())
    }

    fn binary(&mut self, op: BinOp, dst: Reg, x: Reg, y: Reg) -> LResult<()> {
        let (d, p, q) = (self.r64(dst)?, self.r64(x)?, self.r64(y)?);
        let a = &mut self.a;
        match op {
            BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor => {
                // Commutative: `dst = x op y` with dst holding one operand.
                let other = if dst == x {
                    q
                } else if dst == y {
                    p
                } else {
                    a.mov(d, p).map_err(asm_err)?;
                    q
                };
                match op {
                    BinOp::Add => a.add(d, other),
                    BinOp::Mul => a.imul_2(d, other),
                    BinOp::And => a.and(d, other),
                    BinOp::Or => a.or(d, other),
                    _ => a.xor(d, other),
                }
                .map_err(asm_err)?;
            }
            BinOp::Sub => {
                if dst == x {
                    a.sub(d, q).map_err(asm_err)?;
                } else if dst == y {
                    a.neg(d).map_err(asm_err)?;
                    a.add(d, p).map_err(asm_err)?;
                } else {
                    a.mov(d, p).map_err(asm_err)?;
                    a.sub(d, q).map_err(asm_err)?;
                }
            }
            BinOp::Shl => a.shlx(d, p, q).map_err(asm_err)?,
            BinOp::Shr => a.sarx(d, p, q).map_err(asm_err)?,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let d8 = R8[usize::from(dst.0)];
                a.cmp(p, q).map_err(asm_err)?;
                match op {
                    BinOp::Eq => a.sete(d8),
                    BinOp::Ne => a.setne(d8),
                    BinOp::Lt => a.setl(d8),
                    BinOp::Le => a.setle(d8),
                    BinOp::Gt => a.setg(d8),
                    _ => a.setge(d8),
                }
                .map_err(asm_err)?;
                a.movzx(d, d8).map_err(asm_err)?;
            }
            BinOp::Div | BinOp::Rem => {
                // Stack, from rsp up: [divisor, then result], [saved rdx], [saved rax].
                let save_rdx = self.k > usize::from(RDX.0);
                a.push(rax).map_err(asm_err)?;
                if save_rdx {
                    a.push(rdx).map_err(asm_err)?;
                }
                a.push(q).map_err(asm_err)?;
                if x != RAX {
                    a.mov(rax, p).map_err(asm_err)?;
                }
                a.cqo().map_err(asm_err)?;
                a.idiv(qword_ptr(rsp)).map_err(asm_err)?;
                a.mov(qword_ptr(rsp), if op == BinOp::Div { rax } else { rdx }).map_err(asm_err)?;
                let rax_at = if save_rdx {
                    a.mov(rdx, qword_ptr(rsp + 8)).map_err(asm_err)?;
                    16
                } else {
                    8
                };
                a.mov(rax, qword_ptr(rsp + rax_at)).map_err(asm_err)?;
                a.mov(d, qword_ptr(rsp)).map_err(asm_err)?;
                a.lea(rsp, qword_ptr(rsp + (rax_at + 8))).map_err(asm_err)?;
            }
        }
        Ok(())
    }

    fn term(&mut self, t: &MTerm, next: Option<Block>) -> LResult<()> {
        match *t {
            MTerm::Jump(b) => {
                if Some(b) != next {
                    let l = self.label(b)?;
                    self.a.jmp(l).map_err(asm_err)?;
                }
            }
            MTerm::Branch { cond, then_dest, else_dest } => {
                let c = self.r64(cond)?;
                let (lt, le) = (self.label(then_dest)?, self.label(else_dest)?);
                self.a.test(c, c).map_err(asm_err)?;
                if Some(then_dest) == next {
                    self.a.je(le).map_err(asm_err)?;
                } else {
                    self.a.jne(lt).map_err(asm_err)?;
                    if Some(else_dest) != next {
                        self.a.jmp(le).map_err(asm_err)?;
                    }
                }
            }
            MTerm::Return(r) if self.frames.is_some() => self.epilogue(r)?,
            MTerm::Return(r) => {
                let s = self.r64(r)?;
                self.a.mov(qword_ptr(layout::RESULT as i32), s).map_err(asm_err)?;
                self.a.mov(qword_ptr(layout::STATUS as i32), layout::STATUS_RETURNED as i32).map_err(asm_err)?;
                let exit = self.exit;
                self.a.jmp(exit).map_err(asm_err)?;
            }
        }
        Ok(())
    }

    pub(super) fn label(&self, b: Block) -> LResult<CodeLabel> {
        self.labels.get(b.0 as usize).copied().ok_or(LowerError::MissingBlock(b))
    }
}

/// Lowers an allocated function to x86-64 machine code, without the notes
/// of the listing (`X86Code::notes` is empty: formatting a note per
/// instruction costs more than encoding it; [`lower_function_listed`]
/// makes them).
///
/// Fails (never panics) on malformed MIR: a register count outside
/// `MIN_REGS..=MAX_REGS`, a register numbered `k` or above, a branch to a
/// missing block, a slot too far from rsp.
pub fn lower_function(f: &MFunction) -> Result<X86Code, LowerError> {
    lower(f, false)
}

/// [`lower_function`], with the notes of the listing (the MIR instruction
/// each group of machine instructions implements), for [`listing`].
pub fn lower_function_listed(f: &MFunction) -> Result<X86Code, LowerError> {
    lower(f, true)
}

fn lower(f: &MFunction, listing: bool) -> Result<X86Code, LowerError> {
    let mut lw = Lowerer::new(f.k, listing)?;
    lw.blocks(f)?;
    lw.exits()?;
    let labels = std::mem::take(&mut lw.labels);
    lw.finish(f, &labels, None)
}

impl Lowerer {
    /// A lowerer for code with `k` registers, with the labels of the exits.
    pub(super) fn new(k: usize, listing: bool) -> LResult<Lowerer> {
        if !(MIN_REGS..=MAX_REGS).contains(&k) {
            return Err(LowerError::RegisterCount { k });
        }
        let mut a = CodeAssembler::new(64).map_err(asm_err)?;
        let exit = a.create_label();
        let trace_full = a.create_label();
        let out_of_fuel = a.create_label();
        let labels = Vec::new();
        Ok(Lowerer { a, k, labels, exit, trace_full, out_of_fuel, frames: None, groups: Vec::new(), listing })
    }

    /// Emits the blocks of `f` in order, each under a fresh label
    /// (`self.labels`) and starting with its budget check.
    pub(super) fn blocks(&mut self, f: &MFunction) -> LResult<()> {
        if f.k != self.k {
            return Err(LowerError::RegisterCount { k: f.k });
        }
        self.labels = (0..f.blocks.len()).map(|_| self.a.create_label()).collect();
        for (b, data) in f.blocks.iter() {
            let mut label = self.labels[b.0 as usize];
            self.a.set_label(&mut label).map_err(asm_err)?;
            self.labels[b.0 as usize] = label;
            let start = self.a.instructions().len();
            self.a.sub(qword_ptr(layout::FUEL as i32), 1).map_err(asm_err)?;
            self.a.jb(self.out_of_fuel).map_err(asm_err)?;
            self.note(start, Some(b), || "block budget".into());
            for i in &data.insts {
                let start = self.a.instructions().len();
                self.inst(i)?;
                self.note(start, None, || format!("{}{}", i.inst, annot_suffix(i)));
            }
            let start = self.a.instructions().len();
            let next = Block(b.0 + 1);
            let next = (usize::try_from(next.0).is_ok_and(|n| n < f.blocks.len())).then_some(next);
            // A fall-through encodes nothing; the next block's label stands on
            // its budget check.
            self.term(&data.term, next)?;
            self.note(start, None, || {
                let tr = data.term_reads.map(|v| format!("  ; <- {v}")).unwrap_or_default();
                format!("{}{tr}", data.term)
            });
        }
        Ok(())
    }

    /// Encodes the code at [`layout::CODE_BASE`]: `main` is the function
    /// whose parameters the harness fills and whose blocks start at
    /// `labels`.
    pub(super) fn finish(
        self,
        main: &MFunction,
        labels: &[CodeLabel],
        harness: Option<CallHarness>,
    ) -> LResult<X86Code> {
        let mut lw = self;
        let result =
            lw.a.assemble_options(layout::CODE_BASE, BlockEncoderOptions::RETURN_NEW_INSTRUCTION_OFFSETS)
                .map_err(asm_err)?;
        let offsets = &result.inner.new_instruction_offsets;
        let offset_of = |idx: usize| -> u32 {
            // A group that encoded nothing (a fall-through, a self-move) starts
            // where the next encoded instruction (or the end) does.
            offsets[idx..].iter().copied().find(|&o| o != u32::MAX).unwrap_or(result.inner.code_buffer.len() as u32)
        };
        let block_offsets = labels.iter().map(|l| result.label_ip(l).map(|ip| (ip - layout::CODE_BASE) as u32));
        let block_offsets = block_offsets.collect::<Result<Vec<u32>, _>>().map_err(asm_err)?;
        let exit_ip = result.label_ip(&lw.exit).map_err(asm_err)?;
        let notes = lw.groups.iter().map(|(idx, block, text)| ListingNote {
            offset: offset_of(*idx),
            block: *block,
            text: text.clone(),
        });
        let notes = notes.collect();
        Ok(X86Code {
            name: main.name.clone(),
            k: main.k,
            slot_count: main.slot_count,
            params: main.params.iter().map(|(l, _)| *l).collect(),
            bytes: result.inner.code_buffer,
            exit: exit_ip,
            block_offsets,
            notes,
            harness,
        })
    }
}

impl Lowerer {
    /// The trace-full and out-of-fuel exits (and in a module with calls the
    /// call-depth exit), then the exit itself: a `hlt`
    /// that is never executed, because the emulator stops when it reaches
    /// its address.
    pub(super) fn exits(&mut self) -> LResult<()> {
        let start = self.a.instructions().len();
        let mut tf = self.trace_full;
        self.a.set_label(&mut tf).map_err(asm_err)?;
        self.a.mov(qword_ptr(layout::STATUS as i32), layout::STATUS_TRACE_FULL as i32).map_err(asm_err)?;
        let exit = self.exit;
        self.a.jmp(exit).map_err(asm_err)?;
        self.note(start, None, || "trace full".into());
        let start = self.a.instructions().len();
        let mut oof = self.out_of_fuel;
        self.a.set_label(&mut oof).map_err(asm_err)?;
        self.a.mov(qword_ptr(layout::STATUS as i32), layout::STATUS_OUT_OF_FUEL as i32).map_err(asm_err)?;
        self.note(start, None, || "out of fuel".into());
        if self.frames.is_some() {
            self.depth_exceeded_exit()?;
        }
        let start = self.a.instructions().len();
        let mut ex = self.exit;
        self.a.set_label(&mut ex).map_err(asm_err)?;
        self.a.hlt().map_err(asm_err)?;
        self.exit = ex;
        self.note(start, None, || "exit".into());
        Ok(())
    }
}

pub(super) fn annot_suffix(i: &MInstA) -> String {
    let reads: Vec<String> = i.annot.reads.iter().map(|v| v.to_string()).collect();
    match (&i.annot.defines, reads.is_empty()) {
        (Some(d), true) => format!("  ; {d}"),
        (Some(d), false) => format!("  ; {d} <- {}", reads.join(", ")),
        (None, false) => format!("  ; <- {}", reads.join(", ")),
        (None, true) => String::new(),
    }
}

/// The annotated disassembly: block labels, and before each group of
/// machine instructions the MIR instruction it implements, with the SSA
/// values that instruction defines and reads (code lowered by
/// [`lower_function_listed`]; without its notes, the bare disassembly).
pub fn listing(code: &X86Code) -> String {
    let mut out = String::new();
    // Writing into a `String` cannot fail.
    let _ = write_listing(code, &mut out);
    out
}

/// [`listing`], written into `out` as it is made (the listing of a large
/// function is hundreds of bytes per statement: `ssaref emit` writes it to
/// its output without holding it).
pub fn write_listing(code: &X86Code, out: &mut impl std::fmt::Write) -> std::fmt::Result {
    use std::fmt::Write;
    writeln!(
        out,
        "; {}: {} bytes at {:#x}, K = {}, {} slot(s), exit at {:#x}",
        code.name,
        code.bytes.len(),
        layout::CODE_BASE,
        code.k,
        code.slot_count,
        code.exit
    )?;
    let params: Vec<String> = code.params.iter().enumerate().map(|(i, l)| format!("arg{i} in {l}")).collect();
    if !params.is_empty() {
        writeln!(out, "; {}", params.join(", "))?;
    }
    let mut decoder = Decoder::with_ip(64, &code.bytes, layout::CODE_BASE, DecoderOptions::NONE);
    let mut formatter = IntelFormatter::new();
    formatter.options_mut().set_first_operand_char_index(8);
    let mut text = String::new();
    let mut hex = String::new();
    let mut notes = code.notes.iter().peekable();
    while decoder.can_decode() {
        let pos = decoder.position() as u32;
        while let Some(n) = notes.peek() {
            if n.offset > pos {
                break;
            }
            if let Some(b) = n.block {
                writeln!(out, "{b}:")?;
            }
            writeln!(out, "                                    ; {}", n.text)?;
            notes.next();
        }
        let ins = decoder.decode();
        text.clear();
        formatter.format(&ins, &mut text);
        let bytes = &code.bytes[pos as usize..pos as usize + ins.len()];
        hex.clear();
        for b in bytes {
            write!(hex, "{b:02x}")?;
        }
        writeln!(out, "  {:08x}  {:<24} {}", ins.ip(), hex, text)?;
    }
    for n in notes {
        writeln!(out, "                                    ; {}", n.text)?;
    }
    Ok(())
}
