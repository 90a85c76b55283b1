//! What out-of-ssa's conventional allocators (`linear_scan.rs`,
//! `spill_everything.rs`) need of the calling convention
//! (`analysis/calling_convention.rs`, docs/calling-convention.md).
//!
//! A function is allocated *under the convention* when it has calls or
//! its module has: then its first parameters arrive in the convention's
//! argument registers, as the allocation checker and the oracle expect of
//! every function of a module with calls.
//!
//! Linear scan gives every operand the convention fixes a short pinned
//! variable of its own, as Boissinot et al. §III-D do (CGO 2009, "Handling
//! register renaming constraints"): [`split_for_convention`] splits every
//! call that the translation did not pin already
//! (`renaming_constraints::split_calls`, the translation's own splitting,
//! which skips the calls it pinned) and every register parameter, `p =
//! copy p'` at the start of the entry block with `p'` pinned to its
//! argument role. The copies are coalesced like the translation's when
//! the intervals allow it.

use crate::analysis::calling_convention::CallingConvention;
use crate::ir::{Function, Inst, Op};
use crate::out_of_ssa::renaming_constraints::{split_calls, FixedReg, Pins, PINNED_CALL_ARGUMENTS};

/// True when `f` has a call.
pub fn has_calls(f: &Function) -> bool {
    f.blocks.values().any(|b| b.insts.iter().any(|i| i.op.is_call()))
}

/// The convention `f` is allocated under with `k` registers: `None` when
/// neither `f` nor its module (`module_has_calls`) has a call, or when `k`
/// has no convention (the allocators reject such a `k` first).
pub fn convention_for(f: &Function, module_has_calls: bool, k: usize) -> Option<CallingConvention> {
    if module_has_calls || has_calls(f) {
        CallingConvention::for_k(k)
    } else {
        None
    }
}

/// `f` with its calls and its register parameters split and pinned (module
/// documentation), and `pins` with the new variables; `None` when `f` is
/// not allocated under a convention, so that a program without calls is
/// allocated exactly as before. The new pins name roles, which the
/// allocator resolves at its K (`FixedReg::reg_at`).
pub fn split_for_convention(f: &Function, pins: &Pins, module_has_calls: bool) -> Option<(Function, Pins)> {
    if !module_has_calls && !has_calls(f) {
        return None;
    }
    let mut g = f.clone();
    let mut pins = pins.clone();
    split_calls(&mut g, &mut pins);
    let count = g.params.len().min(PINNED_CALL_ARGUMENTS);
    let mut copies = Vec::with_capacity(count);
    for i in 0..count {
        let p = g.params[i];
        let fresh = g.new_value();
        g.params[i] = fresh;
        pins.pin(fresh, FixedReg::Arg(i as u8));
        copies.push(Inst { dest: Some(p), op: Op::Copy(fresh) });
    }
    let entry = &mut g.blocks[Function::ENTRY].insts;
    copies.append(entry);
    *entry = copies;
    Some((g, pins))
}
