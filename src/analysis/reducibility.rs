//! Reducibility of a function's control-flow graph.
//!
//! Braun et al. (CC 2013, §4, Definition 3, after Hecht and Ullman, "Characterizations
//! of Reducible Flow Graphs", J. ACM 1974) call a CFG *reducible* when every cycle has
//! a node that dominates all the other nodes of the cycle; equivalently, no cycle can
//! be entered at two different nodes. Their Theorem 1 (no trivial phi implies minimal)
//! holds only for reducible CFGs, so the tests that compare the Braun and Cytron
//! constructions ask [`is_reducible`] first.
//!
//! # The test
//!
//! Run a depth-first search from the entry. An edge `u → h` is *retreating* when `h`
//! is on the search stack when the edge is examined (`h` is an ancestor of `u` in the
//! search tree, or `u` itself). The CFG is reducible if and only if every retreating
//! edge `u → h` has `h` dominating `u`:
//!
//! * (if) In reverse post-order, every edge that is not retreating goes to a later
//!   node (tree, forward and cross edges reach a node that finishes first). Take a
//!   cycle `C` and its node `h` earliest in reverse post-order; the edge `t → h` of `C`
//!   goes back in the order, so it is retreating and `h` dominates `t`. If a path from
//!   the entry reached some node `x` of `C` avoiding `h`, following `C` from `x` to
//!   `t` (which does not meet `h` before the edge `t → h`) would reach `t` avoiding
//!   `h`. So `h` dominates every node of `C`.
//! * (only if) Let `u → h` be retreating. The search-tree path from `h` to `u` and the
//!   edge close a cycle, whose dominating node `d` lies on that tree path. The tree
//!   path from the entry to `h` meets no proper descendant of `h`, so `d`, which
//!   dominates `h`, is `h`; hence `h` dominates `u`.
//!
//! Cycles through blocks unreachable from the entry play no part (dominance is not
//! defined there); functions that pass the SSA verifier have none. The search uses an
//! explicit stack; time O(blocks + edges) plus the dominator tree.

use crate::analysis::dominance::DomTree;
use crate::entity::EntityVec;
use crate::ir::{Block, Function};

/// True when the CFG of `func` (restricted to blocks reachable from the entry) is
/// reducible. Precondition: every successor names a block of `func`.
pub fn is_reducible(func: &Function) -> bool {
    if func.blocks.is_empty() {
        return true;
    }
    is_reducible_cfg(func.blocks.len(), Function::ENTRY, |b| func.succs(b), |b| func.blocks[b].preds.clone())
}

/// [`is_reducible`] for any CFG with `n` blocks given by its edges (the
/// SSA construction asks it of the graph it is building). Time: one
/// depth-first search and the dominator tree (Lengauer and Tarjan,
/// O(E log N)), so near-linear.
pub fn is_reducible_cfg(
    n: usize,
    entry: Block,
    succs: impl Fn(Block) -> Vec<Block>,
    preds: impl Fn(Block) -> Vec<Block>,
) -> bool {
    if n == 0 {
        return true;
    }
    let dom = DomTree::compute_from_edges(n, entry, &succs, preds);

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Visit {
        New,
        OnStack,
        Done,
    }
    let mut visit: EntityVec<Block, Visit> = EntityVec::from_elem(Visit::New, n);
    let mut stack: Vec<(Block, Vec<Block>, usize)> = vec![(entry, succs(entry), 0)];
    visit[entry] = Visit::OnStack;
    while let Some((u, succs_u, next)) = stack.last_mut() {
        let u = *u;
        if let Some(&h) = succs_u.get(*next) {
            *next += 1;
            match visit[h] {
                Visit::New => {
                    visit[h] = Visit::OnStack;
                    stack.push((h, succs(h), 0));
                }
                Visit::OnStack => {
                    if !dom.dominates(h, u) {
                        return false;
                    }
                }
                Visit::Done => {}
            }
        } else {
            visit[u] = Visit::Done;
            stack.pop();
        }
    }
    true
}
