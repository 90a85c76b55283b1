//! The calling convention of ssaref's machine code at each K, as data:
//! where arguments and the result go, and which registers a call may
//! clobber. docs/calling-convention.md explains the choices.
//!
//! At K = 15 it is the System V AMD64 ABI's convention for integer
//! arguments ("System V Application Binary Interface, AMD64 Architecture
//! Processor Supplement", §3.2.3 "Parameter Passing" and Figure 3.4
//! "Register Usage"): arguments in `rdi, rsi, rdx, rcx, r8, r9`, then on the
//! stack; the result in `rax`; `rbx, rbp, r12`-`r15` callee-saved, the
//! others caller-saved; `rsp` 16-byte aligned at every call. At a smaller
//! K the allocatable registers are the first K of `mir::REGISTER_NAMES`, and the
//! convention is System V's restricted to them: a register keeps its role
//! (argument number, caller- or callee-saved) at every K where it is
//! allocatable, and the arguments that lose their register go on the
//! stack. So two back ends tested against each other at the same K agree on
//! every location, and a function compiled at K = 15 can call C.
//!
//! It lives in `analysis/` because everything above shares it: the
//! regalloc2 back end's operand constraints, the allocation checker and the
//! x86-64 lowering. The oracle has its own statement of it
//! (`interp/src/convention.rs`).

use crate::mir::{Reg, MAX_REGS, MIN_REGS};

/// System V's integer argument registers, in argument order, as indexes of
/// `mir::REGISTER_NAMES`: `rdi, rsi, rdx, rcx, r8, r9`.
const SYSTEM_V_ARGUMENTS: [u8; 6] = [6, 5, 2, 1, 7, 8];

/// System V's callee-saved registers among `mir::REGISTER_NAMES`: `rbx, rbp,
/// r12, r13, r14, r15` (`rsp` is never allocatable).
const SYSTEM_V_CALLEE_SAVED: [u8; 6] = [3, 4, 11, 12, 13, 14];

/// The stack alignment at a call instruction, in bytes.
pub const STACK_ALIGNMENT: u32 = 16;

/// Where one argument is when the callee starts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ArgLocation {
    /// In a register.
    Reg(Reg),
    /// On the stack at `[rsp + offset]` at the callee's first instruction
    /// (above the return address, which is at `[rsp]`).
    Stack { offset: u32 },
}

/// The convention for K allocatable registers.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CallingConvention {
    /// The number of allocatable registers, `MIN_REGS..=MAX_REGS`.
    pub k: usize,
    /// The registers of the first arguments, in argument order.
    pub arg_regs: Vec<Reg>,
    /// The register of the result.
    pub result: Reg,
    /// The allocatable registers a call may overwrite, in register order.
    pub caller_saved: Vec<Reg>,
    /// The allocatable registers a callee must give back as it found them,
    /// in register order.
    pub callee_saved: Vec<Reg>,
}

impl CallingConvention {
    /// The convention at K, or `None` outside `MIN_REGS..=MAX_REGS`.
    pub fn for_k(k: usize) -> Option<CallingConvention> {
        if !(MIN_REGS..=MAX_REGS).contains(&k) {
            return None;
        }
        let allocatable = |r: &u8| usize::from(*r) < k;
        let arg_regs = SYSTEM_V_ARGUMENTS.iter().filter(|r| allocatable(r)).map(|&r| Reg(r)).collect();
        let (callee_saved, caller_saved): (Vec<Reg>, Vec<Reg>) =
            (0..k as u8).map(Reg).partition(|r| SYSTEM_V_CALLEE_SAVED.contains(&r.0));
        Some(CallingConvention { k, arg_regs, result: crate::mir::RAX, caller_saved, callee_saved })
    }

    /// The System V convention, which is the one at K = 15.
    pub fn system_v() -> CallingConvention {
        CallingConvention::for_k(MAX_REGS).expect("MAX_REGS is a valid K")
    }

    /// Where argument `index` (from 0) is at the callee's entry: the
    /// argument registers first, then 8-byte stack slots in argument order
    /// from `[rsp + 8]` (the caller pushes them right to left).
    pub fn arg_location(&self, index: usize) -> ArgLocation {
        match self.arg_regs.get(index) {
            Some(&r) => ArgLocation::Reg(r),
            None => {
                let slot = (index - self.arg_regs.len()) as u32;
                ArgLocation::Stack { offset: 8 + 8 * slot }
            }
        }
    }

    /// The bytes of stack arguments a call with `argc` arguments pushes,
    /// rounded up so that `rsp` stays 16-byte aligned at the call.
    pub fn stack_argument_bytes(&self, argc: usize) -> u32 {
        let bytes = 8 * argc.saturating_sub(self.arg_regs.len()) as u32;
        bytes.next_multiple_of(STACK_ALIGNMENT)
    }

    /// True when a callee must give `r` back as it found it.
    pub fn is_callee_saved(&self, r: Reg) -> bool {
        self.callee_saved.contains(&r)
    }
}
