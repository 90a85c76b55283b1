//! The pre-colored registers of ssa-ra's assignment (Pereira, "The Design
//! and Implementation of a SSA-based Register Allocator", §4.5, "Handling
//! Pre-colored Virtual Registers": never give a register r to a virtual
//! whose live range overlaps one pre-colored with r). Each constraint
//! comes from a pinned site, a fixed division or a call, or from the
//! parameters of a function in a module with calls:
//!
//! | where | required | forbidden |
//! |---|---|---|
//! | fixed division `q = x / y` (`%`) | `x` in rax, `q` in rax (rdx) | `y` and every value live across: rax and rdx |
//! | call `q = f(a1, ...)` | register argument `i` in argument register `i`, `q` in rax | every value live across: every caller-saved register |
//! | entry, module with calls | register parameter `i` in argument register `i` | |
//!
//! The splits (`division_splits.rs`) and the entry split (`call_constraints.rs`)
//! make every constrained value start at its block's start (or be a reload
//! just before its site), where the coloring meets them together.

use crate::analysis::calling_convention::CallingConvention;
use crate::analysis::liveness::compute_liveness;
use crate::ir::{BinOp, Function, Op, Value};
use crate::mir::{Reg, RAX, RDX};
use crate::ssa_ra::call_constraints::{is_pinned_site, parameter_registers};
use crate::ssa_ra::division_splits::is_fixed_division;
use crate::ssa_ra::spill::{block_points, SpillResult};
use std::collections::HashMap;

/// The registers of the pre-colored values and the registers other values
/// may not take (module documentation).
#[derive(Clone, Debug, Default)]
pub struct Precolors {
    pub required: HashMap<Value, Reg>,
    /// For each value with registers it may not take, those registers as a
    /// bit mask over register numbers.
    pub forbidden: HashMap<Value, u32>,
}

/// The bit mask of `regs`.
fn mask(regs: &[Reg]) -> u32 {
    regs.iter().fold(0, |m, r| m | 1 << r.0)
}

impl Precolors {
    /// The constraints of `f` at K registers, after spilling (`spill`);
    /// `convention_params` when `f` belongs to a module with calls.
    pub fn of(f: &Function, spill: &SpillResult, k: usize, convention_params: bool) -> Precolors {
        let mut out = Precolors::default();
        if convention_params {
            for (p, r) in parameter_registers(f, k) {
                if !spill.spilled.contains(p) {
                    out.required.insert(p, r);
                }
            }
        }
        let Some(cc) = CallingConvention::for_k(k) else { return out };
        let live = compute_liveness(f);
        for b in f.blocks.keys() {
            if !f.blocks[b].insts.iter().any(|i| is_pinned_site(i, k)) {
                continue;
            }
            for p in &block_points(f, b, &live.live_out[b], &spill.spilled, k) {
                let Some(inst) = p.inst.and_then(|i| f.blocks[b].insts.get(i)) else { continue };
                let across_mask = match &inst.op {
                    Op::Binary(op, a, d) if is_fixed_division(&inst.op, k) => {
                        out.required.insert(*a, RAX);
                        if let Some(q) = inst.dest {
                            out.required.insert(q, if *op == BinOp::Rem { RDX } else { RAX });
                        }
                        *out.forbidden.entry(*d).or_default() |= mask(&[RAX, RDX]);
                        mask(&[RAX, RDX])
                    }
                    Op::Call(call) => {
                        for (&a, &r) in call.args.iter().zip(&cc.arg_regs) {
                            out.required.insert(a, r);
                        }
                        if let Some(q) = inst.dest {
                            out.required.insert(q, RAX);
                        }
                        mask(&cc.caller_saved)
                    }
                    _ => continue,
                };
                for &v in p.after.iter().filter(|v| p.before.contains(v) && Some(**v) != inst.dest) {
                    *out.forbidden.entry(v).or_default() |= across_mask;
                }
            }
        }
        out
    }

    /// True when `v` may be given `r`.
    pub fn allows(&self, v: Value, r: Reg) -> bool {
        match self.required.get(&v) {
            Some(&want) => want == r,
            None => self.forbidden.get(&v).is_none_or(|m| m & (1 << r.0) == 0),
        }
    }
}
