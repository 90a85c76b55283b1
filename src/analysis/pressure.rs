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
use crate::ir::{Block, Function};

/// The pressure at each program point of each block: index 0 is the start,
/// index `i + 1` the point right after instruction `i`, and the last index
/// the end.
pub fn pressure_profile(f: &Function, live: &Liveness) -> EntityVec<Block, Vec<usize>> {
    f.blocks.keys().map(|b| occupied_at_points(f, b, live).iter().map(|s| s.len()).collect()).collect()
}

/// The maximum number of values live at once at any program point of `f`
/// (0 for a function without values).
pub fn max_pressure(f: &Function, live: &Liveness) -> usize {
    pressure_profile(f, live).values().flat_map(|p| p.iter().copied()).max().unwrap_or(0)
}
