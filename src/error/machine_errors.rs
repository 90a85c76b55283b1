//! The error of the x86-64 lowering (`machine/x86_lower.rs`): malformed
//! machine IR, or a failure of the iced-x86 assembler.

use crate::error::foreign::Foreign;
use crate::ir::{BinOp, Block};
use crate::mir::{Loc, Reg, MAX_REGS, MIN_REGS};

/// Why `lower_function` cannot lower a function: malformed MIR, or an
/// error of the assembler.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LowerError {
    /// The register count is outside `MIN_REGS..=MAX_REGS`.
    RegisterCount { k: usize },
    /// A register numbered `k` or above.
    RegisterOutOfRange { reg: Reg, k: usize },
    /// A slot too far from rsp for a 32-bit displacement.
    SlotTooFar(u32),
    /// A fixed division whose operation is neither `/` nor `%`.
    FixedDivisionOp(BinOp),
    /// A fixed division whose divisor is in rdx, which `cqo` overwrites.
    DivisorInRdx,
    /// A fixed `%` with a register count that leaves rdx out.
    RemainderNeedsRdx { k: usize },
    /// The module has no `main` to lower.
    NoMain,
    /// A branch to a block that does not exist.
    MissingBlock(Block),
    /// A call of this function, which the lowering does not handle yet.
    Call { callee: String },
    /// A function of a module with calls whose K is not `main`'s.
    MixedRegisterCounts { function: String, k: usize, main: usize },
    /// A spill slot at or beyond its function's slot count, which in a
    /// frame would overwrite a saved register or the return address.
    SlotOutOfRange { function: String, slot: u32, slot_count: u32 },
    /// A call of a function the module does not have.
    UnknownCallee { callee: String },
    /// A call with a number of arguments other than the callee's.
    CallArity { callee: String, args: usize, params: usize },
    /// A call argument that the convention puts in register `reg` is in `loc`.
    ArgumentLocation { callee: String, index: usize, loc: Loc, reg: Reg },
    /// A parameter that the convention puts in register `reg` is in `loc`.
    ParameterLocation { function: String, index: usize, loc: Loc, reg: Reg },
    /// iced-x86's assembler fails.
    Assembler(Foreign<iced_x86::IcedError>),
}

impl std::fmt::Display for LowerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LowerError::RegisterCount { k } => write!(f, "register count {k} is outside {MIN_REGS}..={MAX_REGS}"),
            LowerError::RegisterOutOfRange { reg, k } => {
                write!(f, "register {reg} is outside the {k} allocatable ones")
            }
            LowerError::SlotTooFar(slot) => write!(f, "slot {slot} is too far from rsp"),
            LowerError::FixedDivisionOp(op) => write!(f, "a fixed division by `{}`", op.mnemonic()),
            LowerError::DivisorInRdx => f.write_str("a fixed division's divisor in rdx, which `cqo` overwrites"),
            LowerError::RemainderNeedsRdx { k } => write!(f, "a fixed `%` needs rdx, which K = {k} does not allocate"),
            LowerError::NoMain => f.write_str("the program has no `main`"),
            LowerError::Call { callee } => {
                write!(f, "a call of `{callee}`: the x86-64 lowering does not handle calls yet")
            }
            LowerError::MixedRegisterCounts { function, k, main } => {
                write!(f, "`{function}` has K = {k} and `main` K = {main}")
            }
            LowerError::SlotOutOfRange { function, slot, slot_count } => {
                write!(f, "`{function}` names slot {slot} but has {slot_count} slot(s)")
            }
            LowerError::UnknownCallee { callee } => write!(f, "a call of `{callee}`, which the module does not have"),
            LowerError::CallArity { callee, args, params } => {
                write!(f, "a call of `{callee}` with {args} argument(s); it takes {params}")
            }
            LowerError::ArgumentLocation { callee, index, loc, reg } => {
                write!(f, "argument {index} of a call of `{callee}` is in {loc}, not in {reg} as the convention says")
            }
            LowerError::ParameterLocation { function, index, loc, reg } => {
                write!(f, "parameter {index} of `{function}` is in {loc}, not in {reg} as the convention says")
            }
            LowerError::MissingBlock(b) => write!(f, "branch to missing block {b}"),
            LowerError::Assembler(e) => write!(f, "x86 assembler: {}", e.0),
        }
    }
}

impl std::error::Error for LowerError {}
