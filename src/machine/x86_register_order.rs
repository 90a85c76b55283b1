//! The machine-code checkers' own table of the allocatable registers in
//! allocation order, as iced-x86 names them: the checkers read register
//! numbers of the machine IR through it, never through the lowering's
//! table, so that a wrong register in the lowering is seen.

use crate::mir::MAX_REGS;
use iced_x86::Register;

/// The allocatable registers in allocation order (`mir::REGISTER_NAMES`).
pub const ALLOCATION_ORDER: [Register; MAX_REGS] = [
    Register::RAX,
    Register::RCX,
    Register::RDX,
    Register::RBX,
    Register::RBP,
    Register::RSI,
    Register::RDI,
    Register::R8,
    Register::R9,
    Register::R10,
    Register::R11,
    Register::R12,
    Register::R13,
    Register::R14,
    Register::R15,
];
