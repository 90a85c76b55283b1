//! The calling convention as the oracle knows it: its own statement of
//! docs/calling-convention.md, sharing no code with the library's
//! `analysis/calling_convention.rs`, so that a mistake there shows up as a
//! disagreement instead of being copied into the oracle.
//!
//! At K = 15 it is System V AMD64's: arguments in `rdi, rsi, rdx, rcx, r8,
//! r9`, the result in `rax`, `rbx, rbp, r12`-`r15` callee-saved and the
//! other allocatable registers caller-saved. At a smaller K, the
//! allocatable registers are the first K of `mir::REGISTER_NAMES`, each
//! keeps its System V role, and an argument whose register is not
//! allocatable goes on the stack.

use ssaref_types::mir::Reg;

/// The argument registers of System V, in argument order, by name.
const ARGUMENT_REGISTERS: [&str; 6] = ["rdi", "rsi", "rdx", "rcx", "r8", "r9"];

/// The callee-saved registers of System V, by name (`rsp` is never
/// allocatable).
const CALLEE_SAVED: [&str; 6] = ["rbx", "rbp", "r12", "r13", "r14", "r15"];

/// The argument registers among the first `k` registers, in argument order.
pub(crate) fn argument_registers(k: usize) -> Vec<Reg> {
    ARGUMENT_REGISTERS.iter().filter_map(|name| (0..k).map(|i| Reg(i as u8)).find(|r| r.name() == Some(name))).collect()
}

/// True when a callee must give `r` back as it found it.
pub(crate) fn is_callee_saved(r: Reg) -> bool {
    r.name().is_some_and(|name| CALLEE_SAVED.contains(&name))
}
