//! Calls for Pereira's allocator: the pre-colored arguments, result and
//! clobbers of a call, and the parameters of a function in a module with
//! calls, after Pereira, "The Design and Implementation of a SSA-based
//! Register Allocator", §4.5 ("Handling Pre-colored Virtual Registers"):
//! never give a register r to a virtual whose live range overlaps one
//! pre-colored with r, and treat a clobber as a pre-colored definition that
//! overlaps every value live at the instruction.
//!
//! The convention is that of `analysis/calling_convention.rs` at K
//! (docs/calling-convention.md). ssa-ra applies it in four places:
//! - **The split before each call** (`division_splits.rs`, the same
//!   parallel copy as at a fixed division): the call is the first
//!   instruction of its block, each of its operands is a fresh one-argument
//!   phi of that block, and every value live across it is renamed there.
//!   So the values constrained at a call are all defined together at its
//!   block's start, where the coloring meets them first.
//! - **The demand** ([`pinned_clobber`]): at a call, the caller-saved
//!   registers are all taken (the register arguments and the result hold
//!   some of them, the clobbers the others), and each value live across
//!   takes a register of its own outside them, so the demand is
//!   `|L| + |caller-saved|`. The spillers bound it by K, so `L` fits into
//!   the callee-saved registers; where there are none (K = 2 and 3), every
//!   value live across a call is spilled.
//! - **The stack arguments** ([`memory_pinned`]): an argument beyond the
//!   argument registers is read by the call from wherever it is, and the
//!   x86-64 lowering pushes it. ssa-ra keeps the phi of each such argument
//!   in its spill slot from the start (a spilled phi, §4.7), so it needs no
//!   register at the call; SSA elimination stores its argument there with
//!   the parallel copy before the call. In a module with calls, the stack
//!   parameters arrive in memory the same way.
//! - **The parameters** ([`split_entry`]): in a module with calls,
//!   parameter `i` arrives in argument register `i`, and the parameters
//!   beyond them in memory. The entry block is cut from the rest, which
//!   starts with a one-argument phi of each parameter that is read, so a
//!   parameter's own live range is the empty entry block: a register
//!   parameter is never spilled there (fewer than K registers take
//!   arguments, and the stack parameters are in memory), a stack parameter
//!   is read only by its phi, and the phis are ordinary values below.
//!
//! `proofs-notes/precolored-calls.md` proves that `demand ≤ K` leaves a
//! register for every value at every call.

use crate::analysis::calling_convention::CallingConvention;
use crate::ir::{BlockData, Function, Inst, Op, Phi, Terminator, Value};
use crate::ssa_ra::division_splits::fixed_division_clobber;

/// True when `op` is a call, which ssa-ra pins at every K.
pub fn is_call(op: &Op) -> bool {
    matches!(op, Op::Call(_))
}

/// True when ssa-ra cuts its block before `inst` at K registers: a call or
/// a fixed division.
pub fn is_pinned_site(inst: &Inst, k: usize) -> bool {
    is_call(&inst.op) || crate::ssa_ra::division_splits::is_fixed_division(&inst.op, k)
}

/// What `inst` adds to the register demand at its point with `k` registers,
/// beyond the larger of the values live before it and after it (`spill.rs`,
/// `block_points`). A fixed division adds the register it overwrites
/// (`fixed_division_clobber`). A call adds the caller-saved registers that
/// neither its register arguments nor its result hold: before it, `L` and
/// its `m` register arguments are live; after it, `L` and its result; it
/// needs `L` and every caller-saved register, so it adds `|caller-saved| -
/// max(m, 1)`. Its stack arguments are in memory ([`memory_pinned`]) and
/// count for nothing. 0 for every other instruction.
pub fn pinned_clobber(inst: &Inst, k: usize) -> usize {
    match &inst.op {
        Op::Call(call) => match CallingConvention::for_k(k) {
            Some(cc) => {
                let in_registers = call.args.len().min(cc.arg_regs.len());
                cc.caller_saved.len().saturating_sub(in_registers.max(1))
            }
            None => 0,
        },
        _ => fixed_division_clobber(inst, k),
    }
}

/// The values ssa-ra keeps in memory from the start at `k` registers: the
/// stack arguments of every call (after the split, each a one-argument phi
/// read by its call alone) and, when `convention_params` (a module with
/// calls), the parameters beyond the argument registers (after the entry
/// split, each read by its phi alone).
pub fn memory_pinned(f: &Function, k: usize, convention_params: bool) -> Vec<Value> {
    let Some(cc) = CallingConvention::for_k(k) else { return Vec::new() };
    let n = cc.arg_regs.len();
    let mut out = Vec::new();
    if convention_params {
        out.extend(f.params.iter().skip(n).copied());
    }
    for data in f.blocks.values() {
        for inst in &data.insts {
            if let Op::Call(call) = &inst.op {
                out.extend(call.args.iter().skip(n).copied());
            }
        }
    }
    out
}

/// The register each parameter of `f` arrives in at `k` registers in a
/// module with calls, in parameter order (the argument registers; the
/// parameters beyond them arrive in memory).
pub fn parameter_registers(f: &Function, k: usize) -> Vec<(Value, crate::mir::Reg)> {
    let Some(cc) = CallingConvention::for_k(k) else { return Vec::new() };
    f.params.iter().copied().zip(cc.arg_regs.iter().copied()).collect()
}

/// Cuts the entry block of `f` from the rest (module documentation): the
/// entry keeps no instruction and jumps to a new block, which holds what
/// the entry held and starts with a one-argument phi of each parameter
/// that is read; every read of a parameter reads its phi.
/// Returns the number of parameters renamed. Keeps CSSA and the absence of
/// critical edges: the entry's only successor is the new block, and each
/// parameter and its phi are one class whose members do not overlap.
pub fn split_entry(f: &mut Function, k: usize) -> usize {
    if CallingConvention::for_k(k).is_none() {
        return 0;
    }
    let params = f.params.clone();
    let read = f.read_values();
    let renamed: Vec<(Value, Value)> =
        params.into_iter().filter(|&p| read.contains(p)).map(|p| (p, f.new_value())).collect();
    if renamed.is_empty() {
        return 0;
    }
    let empty =
        BlockData { preds: Vec::new(), phis: Vec::new(), insts: Vec::new(), term: Terminator::Return(Value(0)) };
    let mut body = std::mem::replace(&mut f.blocks[Function::ENTRY], empty);
    body.preds = vec![Function::ENTRY];
    let rename = |a: Value| renamed.iter().find(|(p, _)| *p == a).map_or(a, |&(_, w)| w);
    for inst in &mut body.insts {
        inst.op.map_args(rename);
    }
    body.term.map_arg(rename);
    let successors = body.term.successors();
    let new = f.blocks.push(body);
    f.blocks[Function::ENTRY].term = Terminator::Jump(new);
    for (b, data) in f.blocks.iter_mut() {
        if b == new {
            continue;
        }
        for phi in &mut data.phis {
            phi.args.iter_mut().for_each(|a| *a = rename(*a));
        }
        for inst in &mut data.insts {
            inst.op.map_args(rename);
        }
        data.term.map_arg(rename);
    }
    for s in successors {
        for p in f.blocks[s].preds.iter_mut().filter(|p| **p == Function::ENTRY) {
            *p = new;
        }
    }
    f.blocks[new].phis = renamed.iter().map(|&(p, w)| Phi { dest: w, args: vec![p] }).collect();
    renamed.len()
}
