//! One-argument phis to copies: the premise of PhiLifting (Pereira, "The
//! Design and Implementation of a SSA-based Register Allocator", §4.2,
//! Theorem 1) that every block with phis has at least two predecessors.
//!
//! Needs: a function that passes the SSA verifier. Runs before
//! critical-edge splitting (`analysis/critical_edges.rs`).
//!
//! PhiLifting places the copy of a phi's argument at the end of the
//! predecessor, and spill-free SSA elimination (Pereira and Palsberg, CC
//! 2009) places the phi column there too; both are right only when that
//! predecessor leads to the phi's block alone. Splitting critical edges
//! (several successors into several predecessors) gives that for every
//! block with two or more predecessors, but not for a block with one: the
//! edge `b0 → b1` of `br c, b1, b2` into a block `b1` with one predecessor
//! is not critical, yet a copy at the end of `b0` also runs on the way to
//! `b2`, where its destination's location may hold a live value (and the
//! copy's value, live across the branch, raises the pressure at the end of
//! `b0`). Braun et al.'s construction never makes such a phi (it is
//! trivial), but the IR-level input may
//! (`tests/cases/ssa_ra_one_argument_phi.ssa`).
//!
//! A phi with one argument is a copy on the block's only incoming edge, and
//! the edge is the only way in, so it is the same copy at the top of the
//! block: [`lower_one_argument_phis`] replaces the phis of every block with
//! one predecessor by copies, in phi order, before its first instruction.
//! Their sequential order does not matter: an argument of such a phi is
//! never a phi of the same block (its definition would have to dominate the
//! end of the only predecessor, which the block itself cannot, since every
//! path to that predecessor from the entry reaches it first), so no copy
//! reads what another one writes. Each argument dominates the end of the
//! predecessor, hence the whole block, so the copies keep the function
//! strict SSA; `proofs-notes/phi-lifting.md` ("One-argument phis") gives
//! the argument.

use crate::ir::{Function, Inst, Op};

/// Replaces the phis of every block with exactly one predecessor by copies
/// at the top of the block (see the module documentation); returns the
/// number of phis replaced. Afterwards every block with phis has at least
/// two predecessors.
pub fn lower_one_argument_phis(f: &mut Function) -> usize {
    let mut lowered = 0;
    for data in f.blocks.values_mut() {
        if data.preds.len() != 1 || data.phis.is_empty() {
            continue;
        }
        let phis = std::mem::take(&mut data.phis);
        debug_assert!(
            phis.iter().all(|p| p.args.len() == 1 && !phis.iter().any(|q| q.dest == p.args[0])),
            "a one-argument phi reads one value that is not a phi of its own block"
        );
        lowered += phis.len();
        let copies = phis.into_iter().map(|p| Inst { dest: Some(p.dest), op: Op::Copy(p.args[0]) });
        data.insts.splice(0..0, copies);
    }
    lowered
}
