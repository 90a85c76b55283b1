//! The machine environment regalloc2 allocates in: exactly the first `K`
//! registers of ssaref's order (`mir::REGISTER_NAMES`: rax, rcx, rdx, rbx,
//! rbp, rsi, rdi, r8 ... r15), all of one class, and **no scratch
//! register** (`scratch_by_class` all `None`).
//!
//! A regalloc2 `PReg` of class `Int` with hardware encoding `i` is ssaref's
//! `Reg(i)`, so the numbering needs no table. Without a scratch register,
//! regalloc2 finds one itself when a parallel move has a cycle or moves a
//! stack slot to a stack slot: a register free at that point, or else a
//! register it borrows after saving it to an extra spill slot and restores
//! afterwards (`MoveAndScratchResolver` in its `moves.rs`;
//! docs/design-notes.md, "regalloc2 through the adapter", says what the
//! adapter makes of it). Either way it is one of the `K`, which
//! `alloc_checker::check_no_scratch` confirms on the result.

use crate::mir::{Reg, MAX_REGS, MIN_REGS};
use regalloc2::{MachineEnv, PReg, PRegSet, RegClass};

/// The regalloc2 register for ssaref's register `r`.
pub fn preg(r: Reg) -> PReg {
    PReg::new(usize::from(r.0), RegClass::Int)
}

/// ssaref's register for a regalloc2 register, or `None` for a register
/// that is not one of the `k` allocatable ones (or not of class `Int`).
pub fn reg_of(p: PReg, k: usize) -> Option<Reg> {
    (p.class() == RegClass::Int && p.hw_enc() < k).then(|| Reg(p.hw_enc() as u8))
}

/// The machine environment of `k` registers: the first `k` of ssaref's
/// order, all preferred, none reserved, no fixed stack slots.
///
/// # Panics
/// If `k` is outside `MIN_REGS..=MAX_REGS` (the caller checks it).
pub fn machine_env(k: usize) -> MachineEnv {
    assert!((MIN_REGS..=MAX_REGS).contains(&k), "K = {k} is outside {MIN_REGS}..={MAX_REGS}");
    let mut int = PRegSet::empty();
    for i in 0..k {
        int.add(preg(Reg(i as u8)));
    }
    MachineEnv {
        preferred_regs_by_class: [int, PRegSet::empty(), PRegSet::empty()],
        non_preferred_regs_by_class: [PRegSet::empty(), PRegSet::empty(), PRegSet::empty()],
        scratch_by_class: [None, None, None],
        fixed_stack_slots: Vec::new(),
    }
}
