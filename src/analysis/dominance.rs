//! Reachability, reverse post-order and the dominator tree.
//!
//! Dominators by Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
//! Algorithm" (2001): iterate `idom(b) = intersect(idom of processed preds)`
//! over reverse post-order until nothing changes. Every walk here uses an
//! explicit stack, so long block chains cannot overflow the call stack.
//! Unreachable blocks have no immediate dominator and dominate nothing.

use crate::entity::{EntityRef, EntityVec};
use crate::ir::{Block, Function};

/// The dominator tree of a function's reachable blocks.
#[derive(Clone, Debug)]
pub struct DomTree {
    /// Reachable blocks in reverse post-order; `rpo[0]` is the entry.
    pub rpo: Vec<Block>,
    /// Position of each block in `rpo`, or `u32::MAX` when unreachable.
    pub rpo_index: EntityVec<Block, u32>,
    /// Immediate dominator; `None` for the entry and unreachable blocks.
    pub idom: EntityVec<Block, Option<Block>>,
    /// Children in the dominator tree, in increasing RPO.
    pub children: EntityVec<Block, Vec<Block>>,
    /// Dominator-tree pre-order and post-order numbers, for O(1) `dominates`.
    pre: EntityVec<Block, u32>,
    post: EntityVec<Block, u32>,
    /// Reachable blocks in dominator-tree pre-order.
    pub preorder: Vec<Block>,
}

/// Reachable blocks of a CFG given by a successor function, in reverse
/// post-order from `entry` (successors visited in order). The successor
/// function may return any slice-like value (a `Vec`, or a fixed-size
/// buffer that spares an allocation per block).
pub fn reverse_postorder<S: AsRef<[Block]>>(n: usize, entry: Block, succs: impl Fn(Block) -> S) -> Vec<Block> {
    let mut visited = vec![false; n];
    let mut post = Vec::with_capacity(n);
    let mut stack: Vec<(Block, S, usize)> = Vec::new();
    visited[entry.index()] = true;
    stack.push((entry, succs(entry), 0));
    while let Some((b, ss, i)) = stack.last_mut() {
        if *i < ss.as_ref().len() {
            let s = ss.as_ref()[*i];
            *i += 1;
            if !visited[s.index()] {
                visited[s.index()] = true;
                let s_succs = succs(s);
                stack.push((s, s_succs, 0));
            }
        } else {
            post.push(*b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

impl DomTree {
    /// Computes the dominator tree of `func` (entry `b0`).
    pub fn compute(func: &Function) -> DomTree {
        let n = func.blocks.len();
        Self::compute_from_edges(n, Function::ENTRY, |b| func.succs(b), |b| func.blocks[b].preds.clone())
    }

    /// Computes the dominator tree of any CFG with `n` blocks.
    pub fn compute_from_edges(
        n: usize,
        entry: Block,
        succs: impl Fn(Block) -> Vec<Block>,
        preds: impl Fn(Block) -> Vec<Block>,
    ) -> DomTree {
        let rpo = reverse_postorder(n, entry, &succs);
        let mut rpo_index = EntityVec::from_elem(u32::MAX, n);
        for (i, &b) in rpo.iter().enumerate() {
            rpo_index[b] = i as u32;
        }
        let mut idom: EntityVec<Block, Option<Block>> = EntityVec::from_elem(None, n);
        idom[entry] = Some(entry);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new_idom: Option<Block> = None;
                for p in preds(b) {
                    if rpo_index[p] == u32::MAX || idom[p].is_none() {
                        continue;
                    }
                    new_idom = Some(match new_idom {
                        None => p,
                        Some(cur) => {
                            let (mut x, mut y) = (cur, p);
                            while x != y {
                                while rpo_index[x] > rpo_index[y] {
                                    x = idom[x].expect("processed block has an idom");
                                }
                                while rpo_index[y] > rpo_index[x] {
                                    y = idom[y].expect("processed block has an idom");
                                }
                            }
                            x
                        }
                    });
                }
                if new_idom.is_some() && idom[b] != new_idom {
                    idom[b] = new_idom;
                    changed = true;
                }
            }
        }
        idom[entry] = None;
        let mut children: EntityVec<Block, Vec<Block>> = EntityVec::from_elem(Vec::new(), n);
        for &b in rpo.iter().skip(1) {
            let d = idom[b].expect("reachable block has an idom");
            children[d].push(b);
        }
        let mut pre = EntityVec::from_elem(u32::MAX, n);
        let mut post = EntityVec::from_elem(u32::MAX, n);
        let mut preorder = Vec::with_capacity(rpo.len());
        let (mut pre_n, mut post_n) = (0u32, 0u32);
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        pre[entry] = pre_n;
        pre_n += 1;
        preorder.push(entry);
        while let Some((b, i)) = stack.last_mut() {
            let b = *b;
            if *i < children[b].len() {
                let c = children[b][*i];
                *i += 1;
                pre[c] = pre_n;
                pre_n += 1;
                preorder.push(c);
                stack.push((c, 0));
            } else {
                post[b] = post_n;
                post_n += 1;
                stack.pop();
            }
        }
        DomTree { rpo, rpo_index, idom, children, pre, post, preorder }
    }

    /// True when `b` is reachable from the entry.
    pub fn is_reachable(&self, b: Block) -> bool {
        self.rpo_index[b] != u32::MAX
    }

    /// True when `a` dominates `b` (reflexive). False if either is unreachable.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        self.is_reachable(a) && self.is_reachable(b) && self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }

    /// True when `a` strictly dominates `b`.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }

    /// Dominator-tree pre-order number of a reachable block.
    pub fn preorder_number(&self, b: Block) -> u32 {
        self.pre[b]
    }
}
