//! Critical-edge splitting.
//!
//! A critical edge goes from a block with several successors to a block with
//! several predecessors (Pereira, "The Design and Implementation of a
//! SSA-based Register Allocator", §4.2, footnote 4, after Briggs et al.).
//! PhiLifting (`phi_lifting.rs`) places the copies of a phi's arguments at
//! the end of the predecessors, which is only right when each predecessor
//! leads to the phi's block alone; Theorem 1 of Pereira (PhiLifting does not
//! raise the register pressure) assumes the same.
//!
//! Needs: `preds` consistent with the terminators (the SSA verifier's check
//! 2). Each critical edge `B → S` gets a new block `N`, appended at the end
//! of `blocks`, that holds only `jump S`; `B`'s terminator now names `N`,
//! and `N` replaces `B` in `S.preds` at the same index, so the phi arguments
//! keep their order and their meaning. The `k`-th edge from `B` to `S` is
//! the `k`-th occurrence of `B` in `S.preds` (the convention of `ir.rs`), so
//! both edges of `br c, S, S` get their own block when `S` has several
//! predecessors.

use crate::analysis::liveness::pred_index;
use crate::ir::{Block, BlockData, Function, Terminator};

/// True when the edge from `from` (a block with two successors) to `to` is
/// critical, i.e. `to` has at least two predecessors.
fn is_critical(f: &Function, from: Block, to: Block) -> bool {
    f.succs(from).len() >= 2 && f.blocks[to].preds.len() >= 2
}

/// True when `f` has a critical edge.
pub fn has_critical_edges(f: &Function) -> bool {
    f.blocks.keys().any(|b| f.succs(b).into_iter().any(|s| is_critical(f, b, s)))
}

/// Splits every critical edge of `f` (see the module documentation) and
/// returns the number of blocks inserted.
pub fn split_critical_edges(f: &mut Function) -> usize {
    let mut inserted = 0;
    let original = f.blocks.len();
    for b in f.blocks.keys().take(original) {
        let succs = f.succs(b);
        if succs.len() < 2 {
            continue;
        }
        // The position in `S.preds` of each edge, computed before any edge of
        // `b` is redirected (redirection replaces entries in place, so the
        // positions stay valid).
        let mut targets = Vec::with_capacity(succs.len());
        for (k, &s) in succs.iter().enumerate() {
            let occurrence = succs[..k].iter().filter(|&&t| t == s).count();
            let index = pred_index(f, b, s, occurrence).expect("preds agree with the terminators (verifier check 2)");
            targets.push((s, index, is_critical(f, b, s)));
        }
        let mut new_succs = succs.clone();
        for (k, &(s, index, critical)) in targets.iter().enumerate() {
            if !critical {
                continue;
            }
            let n = f.blocks.push(BlockData {
                preds: vec![b],
                phis: Vec::new(),
                insts: Vec::new(),
                term: Terminator::Jump(s),
            });
            f.blocks[s].preds[index] = n;
            new_succs[k] = n;
            inserted += 1;
        }
        let mut next = new_succs.into_iter();
        f.blocks[b].term.map_successors(|_| next.next().expect("same number of successors"));
    }
    inserted
}
