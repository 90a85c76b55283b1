//! The self-check of ssa-ra's block-demand walk (`block_demand.rs`): the
//! walk replayed in program order against its own backward reference walk
//! over the block, which keeps each point's live set as a size and a
//! fingerprint (`analysis/set_fingerprint.rs`).

use crate::analysis::set_fingerprint::{SetSummary, SummarizedSet};
use crate::entity::{EntitySet, SparseSet};
use crate::ir::{Block, Function, Value};
use crate::pass_manager::self_checks;
use crate::ssa_ra::block_demand::BlockDemand;
use crate::ssa_ra::call_constraints::pinned_clobber;
use rustc_hash::FxHashSet;

/// The self-check of a [`BlockDemand`] walk of `b`: the walk replayed in
/// program order, with the resident values of `through` (those its frame
/// left out) at every point, must give `spill::block_points`' demand and values
/// live after each point. The reference is [`point_summaries`], which
/// walks the block backward as `block_points` defines it but keeps each
/// point's set as its size and fingerprint (`set_fingerprint.rs`): the sets
/// themselves add up to a quadratic total when many values are live
/// through a long block. They are built only to report a difference.
/// Panics on the first difference.
pub(crate) fn check_block_demand(
    walk: &BlockDemand,
    f: &Function,
    b: Block,
    live_out: &SparseSet<Value>,
    spilled: &EntitySet<Value>,
    through: &FxHashSet<Value>,
    k: usize,
) {
    self_checks::count();
    let reference = point_summaries(f, b, live_out, spilled, k);
    assert!(
        reference.len() == walk.points(),
        "self-check of the block demand walk: {b} has {} points, the walk {}",
        reference.len(),
        walk.points()
    );
    let mut after = SummarizedSet::default();
    for &v in walk.start_after.iter().chain(through.iter().filter(|&&v| !spilled.contains(v))) {
        after.insert(v);
    }
    for (p, &(demand, want)) in reference.iter().enumerate() {
        for &v in walk.leaves(p) {
            after.remove(v);
        }
        if let Some(v) = walk.enters(p) {
            after.insert(v);
        }
        if demand != walk.demand[p] || want != after.summary() {
            panic!(
                "self-check of the block demand walk: point {p} of {b} has demand {demand} and {} values live after \
                 it, the walk {} and {:?}",
                want.len,
                walk.demand[p],
                after.sorted()
            );
        }
    }
}

/// For each point of `b` in the order of `spill::block_points`, its demand and
/// the summary of the resident values live after it, as `block_points`
/// defines them, from one backward walk with one set: linear in the block's
/// length and its live-out set.
pub(crate) fn point_summaries(
    f: &Function,
    b: Block,
    live_out: &SparseSet<Value>,
    spilled: &EntitySet<Value>,
    k: usize,
) -> Vec<(usize, SetSummary)> {
    let data = &f.blocks[b];
    let resident = |v: Value| !spilled.contains(v);
    let mut live = SummarizedSet::default();
    for v in live_out.iter().filter(|&v| resident(v)) {
        live.insert(v);
    }
    let mut points = Vec::with_capacity(data.insts.len() + 2);
    // The terminator reads its operand at the block end.
    let after_term = live.summary();
    if let Some(a) = data.term.arg().filter(|&a| resident(a)) {
        live.insert(a);
    }
    points.push((live.len().max(after_term.len), after_term));
    for inst in data.insts.iter().rev() {
        let after = live.summary();
        let unread = inst.dest.is_some_and(|d| !live.remove(d));
        inst.op.for_each_arg(|a| {
            if resident(a) {
                live.insert(a);
            }
        });
        let demand = live.len().max(after.len + usize::from(unread)) + pinned_clobber(inst, k);
        points.push((demand, after));
    }
    // Phi results and, in the entry, parameters are defined at the start.
    let mut start = live.summary();
    let entry_params = if b == Function::ENTRY { &f.params[..] } else { &[] };
    let mut added: FxHashSet<Value> = FxHashSet::default();
    for d in data.phis.iter().map(|p| p.dest).chain(entry_params.iter().copied()) {
        if resident(d) && !live.contains(d) && added.insert(d) {
            start = start.with(d);
        }
    }
    points.push((start.len, start));
    points.reverse();
    points
}
