//! Loop nesting depth of every block, for the spill weights of Pereira, "The
//! Design and Implementation of a SSA-based Register Allocator" (UCLA tech.
//! report), Fig. 6 (`L(I)`, "the loop nesting depth of the basic block that
//! contains instruction I").
//!
//! Needs: nothing but the CFG.
//!
//! # Definition
//!
//! The loops are those of Steensgaard's loop nesting forest (Ramalingam,
//! "On Loops, Dominators, and Dominance Frontiers", TOPLAS 2002, §2): the
//! outermost loops are the strongly connected components of the reachable
//! CFG that contain a cycle; the *entries* of a loop are its blocks with a
//! predecessor outside it; removing the edges from the loop's blocks to its
//! entries and taking the strongly connected components again gives the
//! loops nested in it, and so on. A block's depth is the number of loops that
//! contain it.
//!
//! On a reducible CFG every loop has one entry, its header, which dominates
//! it, and the edges removed are exactly the back edges to the header; the
//! forest is then the natural-loop nest with the natural loops of one header
//! merged, so the depth is the usual natural-loop nesting depth.
//! `tests/suite/cssa_passes.rs` compares it with a direct natural-loop computation
//! on every reducible function of the corpus.
//!
//! On irreducible control flow an irreducible region (a cycle that can be
//! entered at several blocks) counts as one loop, whose entries are all the
//! blocks where it can be entered, and the loops inside it are found the
//! same way. This is a sound approximation for spill weights: every block
//! on a cycle has depth at least 1, and a block on a cycle nested inside
//! another cycle counts both. Unreachable blocks have depth 0.
//!
//! Nothing recurses: the nest is processed with a worklist of regions, and
//! the components are found by the iterative Tarjan of `scc.rs`.

use crate::analysis::dominance::DomTree;
use crate::analysis::scc::tarjan_sccs;
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{Block, Function};

/// The loop nesting depth of every block of `f` (see the module
/// documentation).
pub fn loop_depth(f: &Function) -> EntityVec<Block, u32> {
    let n = f.blocks.len();
    let mut depth = EntityVec::from_elem(0u32, n);
    if n == 0 {
        return depth;
    }
    let dom = DomTree::compute(f);
    let reachable: Vec<Block> = f.blocks.keys().filter(|&b| dom.is_reachable(b)).collect();
    // Each region is a set of blocks and the set of edges inside it that
    // have been removed (edges into an entry of an enclosing loop).
    let mut removed = vec![false; 0];
    let mut edge_index: EntityVec<Block, usize> = EntityVec::from_elem(0, n);
    {
        // Number the edges so that removed edges can be marked: edge `k` of
        // block `b` has number `edge_index[b] + k`.
        let mut next = 0;
        for b in f.blocks.keys() {
            edge_index[b] = next;
            next += f.succs(b).len();
        }
        removed.resize(next, false);
    }
    // `in_region[b]` and `in_loop[b]` hold the number of the region or loop
    // that `b` was last put in, so that no table is cleared between regions;
    // `local[b]` is `b`'s index in the region being processed.
    let mut in_region = vec![u32::MAX; n];
    let mut in_loop = vec![u32::MAX; n];
    let mut is_entry = vec![u32::MAX; n];
    let mut local = vec![usize::MAX; n];
    let mut regions: Vec<Vec<Block>> = vec![reachable];
    let (mut region_id, mut loop_id) = (0u32, 0u32);
    while let Some(region) = regions.pop() {
        region_id += 1;
        for (i, &b) in region.iter().enumerate() {
            in_region[b.index()] = region_id;
            local[b.index()] = i;
        }
        // The subgraph induced by the region, without the removed edges.
        let succs: Vec<Vec<usize>> = region
            .iter()
            .map(|&b| {
                f.succs(b)
                    .into_iter()
                    .enumerate()
                    .filter(|&(k, s)| in_region[s.index()] == region_id && !removed[edge_index[b] + k])
                    .map(|(_, s)| local[s.index()])
                    .collect()
            })
            .collect();
        for comp in tarjan_sccs(&succs) {
            let is_loop = comp.len() > 1 || succs[comp[0]].contains(&comp[0]);
            if !is_loop {
                continue;
            }
            loop_id += 1;
            let blocks: Vec<Block> = comp.iter().map(|&i| region[i]).collect();
            for &b in &blocks {
                in_loop[b.index()] = loop_id;
                depth[b] += 1;
            }
            // The entries: blocks of the loop with a predecessor outside it.
            // (The function's entry has no predecessor, so it is on no cycle.)
            for &b in &blocks {
                if f.blocks[b].preds.iter().any(|p| in_loop[p.index()] != loop_id) {
                    is_entry[b.index()] = loop_id;
                }
            }
            // Remove the edges from the loop to its entries; what remains
            // holds the nested loops.
            for &b in &blocks {
                for (k, s) in f.succs(b).into_iter().enumerate() {
                    if in_loop[s.index()] == loop_id && is_entry[s.index()] == loop_id {
                        removed[edge_index[b] + k] = true;
                    }
                }
            }
            regions.push(blocks);
        }
    }
    depth
}
