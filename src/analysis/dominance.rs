//! Reachability, reverse post-order and the dominator tree.
//!
//! Dominators by Lengauer and Tarjan, "A Fast Algorithm for Finding
//! Dominators in a Flowgraph" (TOPLAS 1979), the simple version (path
//! compression, no balancing: O(E log N)), as production compilers use it
//! or its Semi-NCA variant. Cooper, Harvey and Kennedy's iteration ("A
//! Simple, Fast Dominance Algorithm", 2001), which this file used before,
//! walks the dominator chain of every predecessor at a join: quadratic when
//! a join has many predecessors whose dominators form a long chain (a
//! cascade of `if`s that all jump to one label). The tree is unique, so
//! both give the same. Every walk here uses an explicit stack, so long
//! block chains cannot overflow the call stack.
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
        let mut idom = lengauer_tarjan(n, entry, &succs, &preds);
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

/// The number of a block the depth-first search has not reached, and of
/// the parent of the root.
const NONE: u32 = u32::MAX;

/// Depth-first pre-order numbers from `entry` (`dfnum`, [`NONE`] for a
/// block not reached), the blocks by number (`vertex`) and the DFS tree's
/// parent, by number.
fn depth_first_numbers(
    n: usize,
    entry: Block,
    succs: &impl Fn(Block) -> Vec<Block>,
) -> (Vec<u32>, Vec<Block>, Vec<u32>) {
    let mut dfnum = vec![NONE; n];
    let mut vertex: Vec<Block> = Vec::with_capacity(n);
    let mut parent: Vec<u32> = Vec::with_capacity(n);
    let mut stack: Vec<(Block, u32)> = vec![(entry, NONE)];
    while let Some((b, from)) = stack.pop() {
        if dfnum[b.index()] != NONE {
            continue;
        }
        dfnum[b.index()] = vertex.len() as u32;
        vertex.push(b);
        parent.push(from);
        let me = dfnum[b.index()];
        // Reversed, so that the first successor is numbered first.
        for s in succs(b).into_iter().rev() {
            if dfnum[s.index()] == NONE {
                stack.push((s, me));
            }
        }
    }
    (dfnum, vertex, parent)
}

/// Lengauer and Tarjan's EVAL with path compression, iterative: the path
/// from `v` up to the child of its forest root is compressed from the top
/// down (`path` is scratch space).
fn eval(v: u32, ancestor: &mut [u32], label: &mut [u32], semi: &[u32], path: &mut Vec<u32>) -> u32 {
    if ancestor[v as usize] == NONE {
        return v;
    }
    path.clear();
    let mut x = v;
    while ancestor[ancestor[x as usize] as usize] != NONE {
        path.push(x);
        x = ancestor[x as usize];
    }
    // `x` is the topmost node below the root: its label is final.
    for &y in path.iter().rev() {
        let a = ancestor[y as usize];
        if semi[label[a as usize] as usize] < semi[label[y as usize] as usize] {
            label[y as usize] = label[a as usize];
        }
        ancestor[y as usize] = ancestor[a as usize];
    }
    label[v as usize]
}

/// Immediate dominators by Lengauer and Tarjan's simple algorithm: `Some`
/// for every block reachable from `entry` (the entry's own is itself, as
/// the caller expects before it clears it), `None` elsewhere.
fn lengauer_tarjan(
    n: usize,
    entry: Block,
    succs: &impl Fn(Block) -> Vec<Block>,
    preds: &impl Fn(Block) -> Vec<Block>,
) -> EntityVec<Block, Option<Block>> {
    let (dfnum, vertex, parent) = depth_first_numbers(n, entry, succs);
    let m = vertex.len();
    // By DFS number: semidominator, the forest's ancestor and the label
    // (the vertex of least semidominator on the compressed path).
    let mut semi: Vec<u32> = (0..m as u32).collect();
    let mut ancestor = vec![NONE; m];
    let mut label: Vec<u32> = (0..m as u32).collect();
    let mut idom_num = vec![NONE; m];
    let mut bucket: Vec<Vec<u32>> = vec![Vec::new(); m];
    let mut path: Vec<u32> = Vec::new();
    for w in (1..m as u32).rev() {
        let wb = vertex[w as usize];
        for p in preds(wb) {
            let v = dfnum[p.index()];
            if v == NONE {
                continue;
            }
            let u = eval(v, &mut ancestor, &mut label, &semi, &mut path);
            if semi[u as usize] < semi[w as usize] {
                semi[w as usize] = semi[u as usize];
            }
        }
        bucket[semi[w as usize] as usize].push(w);
        let pw = parent[w as usize];
        ancestor[w as usize] = pw;
        for v in std::mem::take(&mut bucket[pw as usize]) {
            let u = eval(v, &mut ancestor, &mut label, &semi, &mut path);
            idom_num[v as usize] = if semi[u as usize] < semi[v as usize] { u } else { pw };
        }
    }
    for w in 1..m {
        if idom_num[w] != semi[w] {
            idom_num[w] = idom_num[idom_num[w] as usize];
        }
    }
    let mut idom: EntityVec<Block, Option<Block>> = EntityVec::from_elem(None, n);
    idom[entry] = Some(entry);
    for w in 1..m {
        idom[vertex[w]] = Some(vertex[idom_num[w] as usize]);
    }
    idom
}
