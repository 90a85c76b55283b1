//! Copy insertion into CSSA: Method I of Sreedhar et al. with parallel
//! copies, as described by Boissinot et al., "Revisiting Out-of-SSA
//! Translation for Correctness, Code Quality, and Efficiency" (CGO 2009),
//! §II-A and §III.
//!
//! Needs: the predecessors of each block with phis are distinct blocks
//! (asserted in debug builds); Lemma 1 of the paper places the copies of
//! different edges in "disjoint blocks". Only a block whose conditional
//! branch names the same successor twice breaks this, and
//! `critical_edges::split_critical_edges` removes such edges. Other critical
//! edges need not be split: a copy `a'i = ai` at the end of `Bi` also runs
//! when `Bi` leaves by its other edge, but it defines a fresh value that
//! nothing reads there, so it changes nothing (the lost-copy problem of
//! Fig. 4 is solved by the copy `a0 = a'0`, not by splitting).
//!
//! For every phi `a0 = φ(a1:B1, ..., an:Bn)` of a block `B0` the pass creates
//! fresh values `a'0, ..., a'n` and
//!
//! - places `a'i = copy ai` at the end of `Bi`, after every instruction of
//!   `Bi` and just before its terminator;
//! - rewrites the phi as `a'0 = φ(a'1:B1, ..., a'n:Bn)`;
//! - places `a0 = copy a'0` right after the phis of `B0`.
//!
//! # The branch-use subtlety (Fig. 1 of the paper)
//!
//! The paper places the copies "at the end of `Bi`", but the end of a block
//! is its terminator, which may read a value: in Fig. 1, `br u, B3, B4`
//! reads `u`. The copies go just before the terminator, so they execute
//! before the branch reads its operand. This is correct because every copy
//! defines a fresh value: the branch still reads the `u` it read before.
//! It is also why the interference of a copy inserted there must be judged
//! with the values live just before the terminator (the live-out set plus
//! the terminator's operand), not with the live-out set alone: in Fig. 1(b)
//! `u` and `v' = v` interfere although `u` is not live out of `B2`. Method I
//! copies every argument, so it needs no such judgement, and the CSSA check
//! sees the interference (`liveness.rs` counts a terminator's operand as
//! used at the end of its block). `tests/suite/out_of_ssa.rs`,
//! `branch_use_copy_goes_before_the_branch_and_yields_cssa`, checks both.
//!
//! # Parallel copies
//!
//! All copies placed at the end of one predecessor form one parallel copy,
//! and so do all copies placed after the phis of one block (the paper,
//! §II-A: "several copies introduced at the same place ... should be viewed
//! as parallel copies"). When a block leads to two blocks with phis (a
//! critical edge left unsplit), the copies for both edges are in its one
//! parallel copy at its end. In a parallel copy at the end of a block every
//! destination is a fresh `a'i`, which no source names; in a parallel copy
//! after the phis every source is a fresh `a'0`, which no destination
//! names. So no copy overwrites the source of another copy of its parallel
//! copy, and emitting them as consecutive `Op::Copy` instructions, in phi
//! order, is equivalent to executing them in parallel (the paper: "copies
//! can be sequentialized in any order, as they concern different
//! variables"). The list returned by
//! [`insert_copies`] records which parallel copy each copy belongs to.

use crate::entity::EntityVec;
use crate::ir::{Block, Function, Inst, Op, Value};

/// Where a parallel copy inserted by [`insert_copies`] sits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ParallelCopyPlace {
    /// At the end of `block`, before its terminator: the copies `a'i = ai`
    /// of the phi arguments on its outgoing edges.
    End(Block),
    /// At the start of `block`, right after its phis: the copies
    /// `a0 = a'0` of its phi destinations.
    AfterPhis(Block),
}

/// One copy inserted by [`insert_copies`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct InsertedCopy {
    /// The parallel copy the copy belongs to.
    pub place: ParallelCopyPlace,
    /// The value the copy defines.
    pub dest: Value,
    /// The value the copy reads.
    pub source: Value,
    /// The block holding the phi the copy was made for.
    pub phi_block: Block,
    /// The new destination `a'0` of that phi.
    pub phi_dest: Value,
}

/// Method I with parallel copies (see the module documentation). Returns
/// the inserted copies, grouped by parallel copy: first the copies at the
/// end of each predecessor in block order, then the copies after the phis
/// of each block, in block order; within a parallel copy, in phi order.
pub fn insert_copies(f: &mut Function) -> Vec<InsertedCopy> {
    debug_assert!(
        f.blocks
            .values()
            .all(|d| d.phis.is_empty() || d.preds.iter().all(|p| d.preds.iter().filter(|&q| q == p).count() == 1)),
        "copy insertion needs distinct predecessors for blocks with phis"
    );
    // For each block, the copies to append at its end and those to insert
    // after its phis, in phi order.
    let mut at_end: EntityVec<Block, Vec<InsertedCopy>> = EntityVec::from_elem(Vec::new(), f.blocks.len());
    let mut after_phis: EntityVec<Block, Vec<InsertedCopy>> = EntityVec::from_elem(Vec::new(), f.blocks.len());
    for b in f.blocks.keys() {
        let preds = f.blocks[b].preds.clone();
        for k in 0..f.blocks[b].phis.len() {
            let new_dest = f.new_value();
            let old_dest = f.blocks[b].phis[k].dest;
            for (i, &p) in preds.iter().enumerate() {
                let fresh = f.new_value();
                let source = std::mem::replace(&mut f.blocks[b].phis[k].args[i], fresh);
                at_end[p].push(InsertedCopy {
                    place: ParallelCopyPlace::End(p),
                    dest: fresh,
                    source,
                    phi_block: b,
                    phi_dest: new_dest,
                });
            }
            f.blocks[b].phis[k].dest = new_dest;
            after_phis[b].push(InsertedCopy {
                place: ParallelCopyPlace::AfterPhis(b),
                dest: old_dest,
                source: new_dest,
                phi_block: b,
                phi_dest: new_dest,
            });
        }
    }
    let mut inserted = Vec::new();
    for (b, copies) in at_end.iter() {
        let insts = &mut f.blocks[b].insts;
        insts.extend(copies.iter().map(|c| Inst { dest: Some(c.dest), op: Op::Copy(c.source) }));
        inserted.extend_from_slice(copies);
    }
    for (b, copies) in after_phis.iter() {
        let insts = &mut f.blocks[b].insts;
        insts.splice(0..0, copies.iter().map(|c| Inst { dest: Some(c.dest), op: Op::Copy(c.source) }));
        inserted.extend_from_slice(copies);
    }
    inserted
}
