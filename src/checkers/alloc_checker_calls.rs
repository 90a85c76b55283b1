//! What the allocation checker (`alloc_checker.rs`) knows of calls: the
//! calling convention of K (`analysis/calling_convention.rs`,
//! docs/calling-convention.md), applied to allocated code.
//!
//! * The structure, in a module with calls ([`check_calls`]): every callee
//!   exists and has as many parameters as the call has arguments and the
//!   same K; the first arguments of every call, and the first parameters
//!   of every function (`main` included), are in the convention's argument
//!   registers, in order. The stack arguments and parameters may be in any
//!   location: the x86-64 lowering pushes and fetches them.
//! * The data flow (`alloc_checker.rs` calls [`read_locations`] and
//!   [`clobbers`]): a call reads each argument from its location, so
//!   each must hold the value its annotation names; after the call, `rax`
//!   holds the result, every other caller-saved register is `Clobbered`,
//!   and the callee-saved registers and the slots keep their states (the
//!   callee's prologue and epilogue, and its own frame, see to that; the
//!   machine-code checker and the x86-64 run check that half).

use crate::analysis::calling_convention::CallingConvention;
use crate::ir::Block;
use crate::mir::{Loc, MFunction, MInst, MModule, Reg, Slot};

/// A call or a parameter list that breaks the convention: the function,
/// the call's block and index (`None` for the parameters), and why.
/// `alloc_checker.rs` turns it into its own error.
pub(super) struct CallProblem {
    pub(super) function: String,
    pub(super) call: Option<(Block, usize)>,
    pub(super) message: String,
}

/// The locations an instruction reads, in annotation order: a call's
/// argument locations, or the registers of `MInst::reg_reads`.
pub(super) fn read_locations(inst: &MInst) -> Vec<Loc> {
    match inst {
        MInst::Call(call) => call.args.clone(),
        other => other.reg_reads().into_iter().map(Loc::Reg).collect(),
    }
}

/// The slots an instruction names: a spill's or a reload's, a call's
/// stack arguments'.
pub(super) fn slots_named(inst: &MInst) -> Vec<Slot> {
    match *inst {
        MInst::Spill { slot, .. } | MInst::Reload { slot, .. } => vec![slot],
        MInst::Call(ref call) => call
            .args
            .iter()
            .filter_map(|l| match *l {
                Loc::Slot(s) => Some(s),
                Loc::Reg(_) => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The registers an instruction leaves without a value at `k`: a call's
/// caller-saved registers but the result's, or `MInst::clobbered`.
pub(super) fn clobbers(inst: &MInst, k: usize) -> Vec<Reg> {
    match (inst, CallingConvention::for_k(k)) {
        (MInst::Call(_), Some(c)) => c.caller_saved.into_iter().filter(|&r| r != c.result).collect(),
        _ => inst.clobbered(k).into_iter().collect(),
    }
}

/// Checks the calls of a module and, when it has any, every function's
/// parameters against the calling convention (the module documentation).
pub(super) fn check_calls(m: &MModule) -> Result<(), CallProblem> {
    let mut has_calls = false;
    for f in &m.functions {
        for (b, data) in f.blocks.iter() {
            for (index, inst) in data.insts.iter().enumerate() {
                let MInst::Call(call) = &inst.inst else { continue };
                has_calls = true;
                let site = Some((b, index));
                let Some(callee) = m.functions.iter().find(|g| g.name == call.callee) else {
                    return Err(malformed(f, site, format!("a call of `{}`, which does not exist", call.callee)));
                };
                if callee.params.len() != call.args.len() || callee.k != f.k {
                    let message = format!(
                        "a call of `{}` with {} argument(s) at K = {}; it has {} parameter(s) at K = {}",
                        callee.name,
                        call.args.len(),
                        f.k,
                        callee.params.len(),
                        callee.k
                    );
                    return Err(malformed(f, site, message));
                }
                in_argument_registers(f, site, "argument", &call.args)?;
            }
        }
    }
    if has_calls {
        for f in &m.functions {
            let params: Vec<Loc> = f.params.iter().map(|&(l, _)| l).collect();
            in_argument_registers(f, None, "parameter", &params)?;
        }
    }
    Ok(())
}

/// Fails unless the first of `locs` (a call's arguments or `f`'s
/// parameters) are the convention's argument registers at `f.k`, in order.
fn in_argument_registers(
    f: &MFunction,
    site: Option<(Block, usize)>,
    what: &str,
    locs: &[Loc],
) -> Result<(), CallProblem> {
    let Some(convention) = CallingConvention::for_k(f.k) else {
        return Err(malformed(f, site, format!("no calling convention has K = {}", f.k)));
    };
    for (i, (&l, &r)) in locs.iter().zip(&convention.arg_regs).enumerate() {
        if l != Loc::Reg(r) {
            let message = format!("{what} {i} is in {l}; the calling convention at K = {} puts it in {r}", f.k);
            return Err(malformed(f, site, message));
        }
    }
    Ok(())
}

fn malformed(f: &MFunction, call: Option<(Block, usize)>, message: String) -> CallProblem {
    CallProblem { function: f.name.clone(), call, message }
}
