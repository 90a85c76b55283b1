//! Step 5 of out-of-ssa's out-of-SSA translation (Boissinot et al., CGO 2009,
//! §III-C): every variable renamed to its congruence class, phis dropped,
//! each parallel copy sequentialized by Algorithm 1 (`sequentialize.rs`).
//! Used by `out_of_ssa.rs` and by the virtualized Sreedhar III
//! (`virtualization.rs`).

use crate::analysis::verifier::verify_conventional;
use crate::entity::EntityVec;
use crate::error::{PassError, TranslateError};
use crate::ir::{Block, Function, Inst, Op, Value};
use crate::out_of_ssa::coalescing::{depth_weight, Coalescing};
use crate::out_of_ssa::renaming_constraints::Pins;
use crate::out_of_ssa::sequentialize::sequentialize_parallel_copy;
use crate::out_of_ssa::translate_options::{count_copies, fail, OutOfSsaReport};
use crate::out_of_ssa::values::CopyGroups;

/// Step 5 (see the module documentation): every variable of `g` renamed to
/// its class in `result`, phis dropped, each parallel copy of `groups`
/// renamed and sequentialized; counts the copies left into `report`.
/// Returns the function and its `pins` renamed. `f` is the input, for
/// error messages.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rename_and_sequentialize(
    f: &Function,
    g: &Function,
    groups: &CopyGroups,
    result: &Coalescing,
    pins: &Pins,
    depth: &EntityVec<Block, u32>,
    check: bool,
    report: &mut OutOfSsaReport,
) -> Result<(Function, Pins), PassError> {
    let mut h = g.clone();
    let rename = |v: Value| result.class(v);
    h.params = h.params.iter().map(|&p| rename(p)).collect();
    let mut spare: Option<Value> = None;
    for b in g.blocks.keys() {
        let data = &g.blocks[b];
        let ranges = groups.ranges(b);
        let mut insts: Vec<Inst> = Vec::with_capacity(data.insts.len());
        let mut i = 0;
        while i < data.insts.len() {
            if let Some(&(_, end)) = ranges.iter().find(|&&(s, _)| s as usize == i) {
                // A parallel copy: renamed, without self-copies, shared
                // copies and duplicate destinations, then sequentialized.
                let mut moves: Vec<(Value, Value)> = Vec::new();
                for inst in &data.insts[i..end as usize] {
                    let (Some(d), Op::Copy(s)) = (inst.dest, &inst.op) else {
                        return Err(fail(f, "parallel copy", TranslateError::NonCopyInParallelCopy(b)));
                    };
                    if result.shared.contains(&d) {
                        continue;
                    }
                    let (d, s) = (rename(d), rename(*s));
                    if d != s && !moves.iter().any(|&(x, _)| x == d) {
                        moves.push((d, s));
                    }
                }
                let spare_v = *spare.get_or_insert_with(|| h.new_value());
                let seq = sequentialize_parallel_copy(&moves, spare_v);
                report.cycle_copies += seq.len() - moves.len();
                insts.extend(seq.into_iter().map(|(d, s)| Inst { dest: Some(d), op: Op::Copy(s) }));
                i = end as usize;
                continue;
            }
            let inst = &data.insts[i];
            i += 1;
            if let (Some(d), Op::Copy(s)) = (inst.dest, &inst.op) {
                if result.shared.contains(&d) || rename(d) == rename(*s) {
                    continue;
                }
            }
            let mut op = inst.op.clone();
            op.map_args(rename);
            insts.push(Inst { dest: inst.dest.map(rename), op });
        }
        let hb = &mut h.blocks[b];
        hb.phis.clear();
        hb.insts = insts;
        hb.term.map_arg(rename);
    }
    report.remaining_copies = count_copies(&h);
    report.weighted_copies = h
        .blocks
        .iter()
        .map(|(b, d)| {
            let n = d.insts.iter().filter(|i| matches!(i.op, Op::Copy(_))).count() as u64;
            n.saturating_mul(depth_weight(depth.get(b).copied().unwrap_or(0)))
        })
        .fold(0u64, |a, x| a.saturating_add(x));
    let pins = pins.renamed(rename);
    if check {
        verify_conventional(&h).map_err(|e| fail(f, "conventional form", e))?;
    }
    Ok((h, pins))
}
