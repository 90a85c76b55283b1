//! What out-of-ssa's two conventional allocators (`spill_everything.rs`,
//! `linear_scan.rs`) share: the validation of their input and their error.
//! `conventional/mod.rs` dispatches to them and checks their output.

use crate::entity::EntityRef;
use crate::error::{AllocInputError, CheckError, InputProblem, PassError};
use crate::ir::{Function, Op};
use crate::mir::{MAX_REGS, MIN_REGS};

/// A failure of out-of-ssa's allocation, as a [`PassError`].
pub fn fail(which: &str, check: &'static str, error: impl Into<CheckError>) -> PassError {
    PassError::new(format!("out-of-ssa/{which}"), check, error)
}

/// Checks what both allocators rely on: `k` in range, at least one block,
/// no phis, no `undef`, every value below `value_count`, every successor and
/// predecessor in range, `preds` agreeing with the terminators as a
/// multiset, an entry without predecessors, every instruction defining a
/// value exactly when its operation has a result, and distinct parameters.
pub(crate) fn validate_input(f: &Function, k: usize, which: &str) -> Result<(), PassError> {
    let bad = |problem| Err(fail(which, "input", AllocInputError { function: f.name.clone(), problem }));
    if !(MIN_REGS..=MAX_REGS).contains(&k) {
        return bad(InputProblem::RegisterCount { k });
    }
    let n = f.blocks.len();
    if n == 0 {
        return bad(InputProblem::NoBlocks);
    }
    let mut out_of_range = None;
    f.for_each_value_mention(|v| {
        if v.0 >= f.value_count && out_of_range.is_none() {
            out_of_range = Some(v);
        }
    });
    if let Some(v) = out_of_range {
        return bad(InputProblem::ValueOutOfRange { value: v, value_count: f.value_count });
    }
    for (i, p) in f.params.iter().enumerate() {
        if f.params[..i].contains(p) {
            return bad(InputProblem::RepeatedParam { index: i, value: *p });
        }
    }
    let mut incoming = vec![Vec::new(); n];
    for (b, data) in f.blocks.iter() {
        if !data.phis.is_empty() {
            return bad(InputProblem::Phis(b));
        }
        for inst in &data.insts {
            if matches!(inst.op, Op::Undef) {
                return bad(InputProblem::Undef(b));
            }
            if inst.dest.is_some() != inst.op.has_result() {
                return bad(InputProblem::Destination(b));
            }
        }
        for s in f.succs(b) {
            if s.index() >= n {
                return bad(InputProblem::MissingSuccessor { block: b, succ: s });
            }
            incoming[s.index()].push(b);
        }
    }
    for (b, data) in f.blocks.iter() {
        let mut listed = data.preds.clone();
        listed.sort();
        let actual = &mut incoming[b.index()];
        actual.sort();
        if listed != *actual {
            return bad(InputProblem::Preds(b));
        }
    }
    if !f.blocks[Function::ENTRY].preds.is_empty() {
        return bad(InputProblem::EntryPreds);
    }
    Ok(())
}
