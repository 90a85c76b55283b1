//! Register pressure: the number of values that occupy a location at once.
//!
//! Pereira, "The Design and Implementation of a SSA-based Register
//! Allocator" (UCLA tech. report): in strict SSA form the interference graph
//! is chordal and its chromatic number is the maximum number of values live
//! at one program point (§2 and §3, after Hack et al.), so [`max_pressure`]
//! is the number of registers the program needs without spilling. Theorem 1
//! (§4.2) says PhiLifting does not raise it when there are no critical
//! edges; `tests/suite/cssa_passes.rs` checks that on the corpus and on generated
//! programs (see `proofs-notes/phi-lifting.md`).
//!
//! Needs: the liveness of `liveness.rs`. The program points are those of
//! `intervals.rs`: the start of each block (all its phi destinations counted
//! together, with the values live through), the point right after each
//! instruction (its destination counted even if it is never used), and the
//! end of each block (the values live on the outgoing edges plus the
//! terminator's operand). The values live right before an instruction are
//! those of the previous point, so the points cover "just before" and "just
//! after" every instruction.

use crate::analysis::intervals::occupied_at_points;
use crate::analysis::liveness::Liveness;
use crate::entity::EntityVec;
use crate::ir::{Block, Function, Value};
use rustc_hash::FxHashSet;

/// The pressure at each program point of each block: index 0 is the start,
/// index `i + 1` the point right after instruction `i`, and the last index
/// the end.
///
/// Counted in one backward walk per block with one set of the values live
/// at the walk's position: the same numbers as the sizes of
/// `occupied_at_points`'s sets, without building a set per point, which
/// costs (points) × (values live) and is quadratic when many values are
/// live through a long block.
pub fn pressure_profile(f: &Function, live: &Liveness) -> EntityVec<Block, Vec<usize>> {
    let mut cur: FxHashSet<Value> = FxHashSet::default();
    f.blocks
        .keys()
        .map(|b| {
            let data = &f.blocks[b];
            let mut counts = vec![0usize; data.insts.len() + 2];
            cur.clear();
            cur.extend(live.live_out[b].iter());
            if let Some(a) = data.term.arg() {
                cur.insert(a);
            }
            counts[data.insts.len() + 1] = cur.len();
            for (i, inst) in data.insts.iter().enumerate().rev() {
                // The point after instruction `i`: the values live after it
                // and its destination, used or not.
                counts[i + 1] = cur.len() + usize::from(inst.dest.is_some_and(|d| !cur.contains(&d)));
                if let Some(d) = inst.dest {
                    cur.remove(&d);
                }
                inst.op.for_each_arg(|a| {
                    cur.insert(a);
                });
            }
            counts[0] = live.live_in[b].len();
            counts
        })
        .collect()
}

/// The pressure profile as `occupied_at_points` gives it, one set per
/// point: what [`pressure_profile`] must equal.
pub fn pressure_profile_from_sets(f: &Function, live: &Liveness) -> EntityVec<Block, Vec<usize>> {
    f.blocks.keys().map(|b| occupied_at_points(f, b, live).iter().map(|s| s.len()).collect()).collect()
}

/// The maximum number of values live at once at any program point of `f`
/// (0 for a function without values).
pub fn max_pressure(f: &Function, live: &Liveness) -> usize {
    pressure_profile(f, live).values().flat_map(|p| p.iter().copied()).max().unwrap_or(0)
}
