//! PhiLifting: Pereira, "The Design and Implementation of a SSA-based
//! Register Allocator" (UCLA tech. report), §4.2 and Fig. 4.
//!
//! Needs: every predecessor of a block with phis has one successor
//! (asserted in debug builds): no critical edges (`critical_edges.rs`) and
//! no one-argument phis (`one_argument_phis.rs`), since a block with one
//! predecessor may sit below a `br` without the edge being critical.
//!
//! For every phi `a_i = φ(a_i1 : B_1, ..., a_im : B_m)` of a block `B`, the
//! pass creates a new value `v_i` and, for each edge `j`, a new value `v_ij`,
//! and rewrites the phi as `v_i = φ(v_i1 : B_1, ..., v_im : B_m)`, with the
//! copies
//!
//! - `v_ij := a_ij` at the end of `B_j` (the last instructions before its
//!   terminator, in phi order), recorded as [`LiftKind::Arg`];
//! - `a_i := v_i` at the start of `B`, right after the phis, in phi order,
//!   recorded as [`LiftKind::Dest`].
//!
//! Every `v_ij` lives only from its copy to the end of `B_j`, and `v_i` only
//! from the start of `B` to its copy. Since the predecessors of `B` are
//! distinct blocks and the copies sit on opposite sides of the edge, no two
//! values of `{v_i, v_i1, ..., v_im}` interfere: each phi with its lifted
//! values forms its own phi-congruence class, every other value is alone in
//! its class, and the program is in CSSA form (§4.2, "the transformed
//! control flow graph contains one ϕ-related equivalence class for each
//! ϕ-function"). Theorem 1 of §4.2 (proved in the appendix through Lemma 2)
//! says the pass does not raise the register pressure when there are no
//! critical edges; `proofs-notes/phi-lifting.md` gives both arguments and
//! names the tests that check them (`tests/suite/cssa_passes.rs`).
//!
//! Departure from the text: §3 says Pereira splits the live range of a phi's
//! destination "only ... if v is also used by some ϕ-function", but Fig. 4
//! lifts every destination, and so does this pass; PhiMemCoalesce
//! (`phi_mem_coalesce.rs`) removes the destination copies that are not
//! needed.

use crate::ir::{Block, Function, Inst, Op, Value};

/// Which side of a phi a lifted copy is on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LiftKind {
    /// `v_ij := a_ij` at the end of the predecessor `B_j`: the copy of the
    /// argument on edge `edge` (the index into `phi_block`'s `preds`) of the
    /// phi of `phi_block` whose destination, after lifting, is `phi_dest`
    /// (the new value `v_i`).
    Arg { phi_block: Block, phi_dest: Value, edge: usize },
    /// `a_i := v_i` at the start of the phi's block, after the phis.
    Dest { phi_block: Block },
}

/// A copy instruction inserted by [`phi_lifting`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct LiftedCopy {
    /// The block that holds the copy.
    pub block: Block,
    /// The value the copy defines (`v_ij` for an argument copy, the phi's
    /// original destination `a_i` for a destination copy).
    pub copy: Value,
    /// The value the copy reads (`a_ij`, or `v_i`).
    pub source: Value,
    pub kind: LiftKind,
}

/// Lifts every phi of `f` (see the module documentation) and returns the
/// copies inserted: for each block with phis, in block order, for each phi in
/// order, its argument copies in edge order, then its destination copy.
pub fn phi_lifting(f: &mut Function) -> Vec<LiftedCopy> {
    if crate::pass_manager::self_checks::in_checked_pass() {
        debug_assert!(
            f.blocks.values().all(|d| d.phis.is_empty() || d.preds.iter().all(|&p| f.succs(p).len() == 1)),
            "PhiLifting needs every predecessor of a block with phis to have one successor \
             (no critical edges, no one-argument phis)"
        );
    }
    let mut lifted = Vec::new();
    // Argument copies go at the end of each predecessor, in the order they
    // are created; they are collected first and appended at the end, so that
    // a predecessor that feeds several phis gets them in phi order.
    let mut arg_copies: Vec<(Block, Inst)> = Vec::new();
    for b in f.blocks.keys() {
        if f.blocks[b].phis.is_empty() {
            continue;
        }
        let preds = f.blocks[b].preds.clone();
        let mut dest_copies = Vec::with_capacity(f.blocks[b].phis.len());
        for p in 0..f.blocks[b].phis.len() {
            let new_dest = f.new_value();
            let old_dest = f.blocks[b].phis[p].dest;
            for (edge, &pred) in preds.iter().enumerate() {
                let source = f.blocks[b].phis[p].args[edge];
                let copy = f.new_value();
                f.blocks[b].phis[p].args[edge] = copy;
                arg_copies.push((pred, Inst { dest: Some(copy), op: Op::Copy(source) }));
                lifted.push(LiftedCopy {
                    block: pred,
                    copy,
                    source,
                    kind: LiftKind::Arg { phi_block: b, phi_dest: new_dest, edge },
                });
            }
            f.blocks[b].phis[p].dest = new_dest;
            dest_copies.push(Inst { dest: Some(old_dest), op: Op::Copy(new_dest) });
            lifted.push(LiftedCopy {
                block: b,
                copy: old_dest,
                source: new_dest,
                kind: LiftKind::Dest { phi_block: b },
            });
        }
        f.blocks[b].insts.splice(0..0, dest_copies);
    }
    for (pred, inst) in arg_copies {
        f.blocks[pred].insts.push(inst);
    }
    lifted
}
