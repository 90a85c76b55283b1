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
//! # Computation
//!
//! A reducible CFG (every retreating edge of a depth-first search goes to a
//! block that dominates its source) takes the way production compilers
//! build their loop nest (LLVM's `LoopInfo`, Havlak's and Ramalingam's
//! forests): once, from the dominator tree. The headers (targets of back
//! edges) are taken innermost first (deepest in the dominator tree first),
//! and each header's body is found by walking predecessors backwards from
//! its back edges, jumping over an inner loop already found to its header
//! with a union-find, so that every block is added to one loop only, the
//! innermost one, and every inner header once to its parent loop. The cost
//! is about linear in blocks and edges, where taking the components of
//! each body again costs (blocks) × (depth of the nest).
//!
//! Any other CFG takes Steensgaard's definition as written above
//! ([`loop_depth_by_sccs`]), processed with a worklist of regions, the
//! components found by the iterative Tarjan of `scc.rs`; nothing recurses.
//! `tests/suite/intervals_and_loops.rs` compares the two on reducible
//! functions.

use crate::analysis::dominance::DomTree;
use crate::analysis::scc::tarjan_sccs;
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{Block, Function};

/// The loop nesting depth of every block of `f` (see the module
/// documentation): from the dominator tree when the CFG is reducible, by
/// Steensgaard's components otherwise.
pub fn loop_depth(f: &Function) -> EntityVec<Block, u32> {
    if f.blocks.is_empty() {
        return EntityVec::new();
    }
    let dom = DomTree::compute(f);
    natural_loop_depth(f, &dom).unwrap_or_else(|| sccs_loop_depth(f, &dom))
}

/// The loop nesting depth by Steensgaard's definition alone, whatever the
/// CFG: the reference the dominator-tree computation is tested against.
pub fn loop_depth_by_sccs(f: &Function) -> EntityVec<Block, u32> {
    if f.blocks.is_empty() {
        return EntityVec::new();
    }
    sccs_loop_depth(f, &DomTree::compute(f))
}

/// The loop headers of a reducible CFG, as flags by block; `None` when the
/// CFG is irreducible. Reducible: every edge that goes back in reverse
/// post-order (the retreating edges of the search that made it) goes to a
/// dominator of its source. Those edges are then the back edges, and their
/// targets the headers.
fn loop_headers(f: &Function, dom: &DomTree) -> Option<Vec<bool>> {
    let mut is_header = vec![false; f.blocks.len()];
    for &u in &dom.rpo {
        for s in f.succs(u) {
            if dom.rpo_index[s] <= dom.rpo_index[u] {
                if !dom.dominates(s, u) {
                    return None;
                }
                is_header[s.index()] = true;
            }
        }
    }
    Some(is_header)
}

/// The representative of `x` in the union-find forest `rep`, with path
/// halving.
fn find(rep: &mut [u32], mut x: u32) -> u32 {
    while rep[x as usize] != x {
        let next = rep[rep[x as usize] as usize];
        rep[x as usize] = next;
        x = next;
    }
    x
}

/// The natural-loop nest of a reducible CFG, found once from the dominator
/// tree (see "Computation" in the module documentation), or `None` when
/// the CFG is irreducible.
fn natural_loop_depth(f: &Function, dom: &DomTree) -> Option<EntityVec<Block, u32>> {
    let n = f.blocks.len();
    let is_header = loop_headers(f, dom)?;
    // Headers innermost first: an inner header is strictly dominated by the
    // header of every loop around it, so it comes later in dominator-tree
    // pre-order.
    let headers: Vec<Block> = dom.preorder.iter().rev().copied().filter(|b| is_header[b.index()]).collect();
    // `up[b]`: for a block that is not a header, the header of the innermost
    // loop that contains it; for a header, the header of the loop around its
    // own. `find` follows `rep` to the outermost header found so far (path
    // halving), the representative of everything already gathered.
    const NONE: u32 = u32::MAX;
    let mut up = vec![NONE; n];
    let mut rep: Vec<u32> = (0..n as u32).collect();
    let mut stack: Vec<u32> = Vec::new();
    for &h in &headers {
        let hi = h.index() as u32;
        for &p in &f.blocks[h].preds {
            if dom.is_reachable(p) && dom.dominates(h, p) {
                stack.push(p.index() as u32);
            }
        }
        while let Some(x) = stack.pop() {
            // A representative is a block in no loop yet or the header of
            // the outermost loop found so far around it; in a reducible CFG
            // it lies in `h`'s loop, since it reaches a back edge to `h`
            // without passing `h`.
            let r = find(&mut rep, x);
            if r == hi {
                continue;
            }
            up[r as usize] = hi;
            rep[r as usize] = hi;
            for &p in &f.blocks[Block::new(r as usize)].preds {
                if dom.is_reachable(p) {
                    stack.push(p.index() as u32);
                }
            }
        }
    }
    // Depths: a header's loop is one deeper than the loop around it; outer
    // headers first (dominator-tree pre-order) so that each is known before
    // the loops inside it.
    let mut loop_depth = vec![0u32; n];
    for &h in headers.iter().rev() {
        let outer = up[h.index()];
        loop_depth[h.index()] = 1 + if outer == NONE { 0 } else { loop_depth[outer as usize] };
    }
    let mut depth = EntityVec::from_elem(0u32, n);
    for &b in &dom.rpo {
        depth[b] = if is_header[b.index()] {
            loop_depth[b.index()]
        } else if up[b.index()] == NONE {
            0
        } else {
            loop_depth[up[b.index()] as usize]
        };
    }
    Some(depth)
}

/// Steensgaard's loop nest by components of each loop body in turn.
fn sccs_loop_depth(f: &Function, dom: &DomTree) -> EntityVec<Block, u32> {
    let n = f.blocks.len();
    let mut depth = EntityVec::from_elem(0u32, n);
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
