//! Fast liveness checking for SSA form: Boissinot, Hack, Grund, Dupont de
//! Dinechin and Rastello, "Fast Liveness Checking for SSA-Form Programs"
//! (CGO 2008), the reference \[16\] of Boissinot et al., "Revisiting
//! Out-of-SSA Translation for Correctness, Code Quality, and Efficiency"
//! (CGO 2009), which summarizes it in §IV-A: "This technique does not
//! require liveness sets but relies on pre-computed data-structures that
//! only depend on the control flow graph."
//!
//! Needs: the dominator tree (computed here) of a strict SSA function (one
//! that passes the verifier); the answers follow the conventions of
//! `liveness.rs` (phi destinations are live-in at their block, phi arguments
//! are used at the end of the predecessor and so are live-out of it, a
//! terminator's operand is used at the end of its block but is not
//! live-out), so that the two methods answer every query identically.
//!
//! # Precomputation (CFG only)
//!
//! A depth-first search from the entry classifies the edges: an edge to a
//! block still on the search stack is a *back edge*, every other edge is a
//! forward edge, and the forward edges form an acyclic graph.
//!
//! - `R_q`, the *reduced reachability* of `q`: the blocks reachable from `q`
//!   by forward edges only (`q` included), computed in post-order of the
//!   search. The paper stores one bit set per block, (blocks)² bits in
//!   all: quadratic in memory. Here each `R_q` is a
//!   sorted list of ranges of post-order numbers (`BlockRanges`): a
//!   forward edge always leads to a block that finishes earlier in the
//!   search, so `R_q` lies below `q`'s number, and in structured code it is
//!   `q`, the rest of its branch and everything after the branch's join: a
//!   few ranges. The sets, and so every answer, are the same.
//! - `T↑_q`: the targets of the back edges whose source is in `R_q` and
//!   which `q` does not reduced-reach itself (back edges that go "up", to the
//!   header of a loop enclosing `q`). A target `t ∈ R_q` adds nothing: `R_t`
//!   and `T↑_t` are then contained in `R_q` and `T↑_q`. Following such a
//!   target in the closure below is even wrong: it lets the closure go
//!   through the definition block and on to loops after it, even on a
//!   reducible CFG (the comparison with the liveness sets in
//!   `tests/suite/liveness_check.rs` finds such queries).
//! - `T_q`: `q` and, transitively, `T↑_t` for every `t` already in `T_q`
//!   (built only at the query of [`LivenessCheck::live_in_with_closure`]
//!   and by the self-checks; the queries read the loop forest or walk).
//!
//! # Query
//!
//! Let `v` be defined in block `d` and let `q` be strictly dominated by `d`
//! (otherwise `v` is live-in at `q` only if `q = d` and `v` is a phi
//! destination or parameter of `d`). Then `v` is live-in at `q` if and only
//! if some `t ∈ T_q` strictly dominated by `d` reduced-reaches a block that
//! uses `v` (a phi argument counts as a use in the predecessor). The
//! argument is in `proofs-notes/out-of-ssa.md`, "The liveness check".
//!
//! # Query on a reducible CFG
//!
//! On a reducible CFG the blocks of `T_q` other than `q` are the headers of
//! the loops around `q`, each strictly dominating the ones inside it and
//! reduced-reaching them, so the `R_t` grow outwards: the query tests only
//! the outermost block of `T_q` strictly dominated by `d`. `T_q` is not
//! materialized (its size is the depth of the loop nest, (blocks)² in all
//! on deep nests): the parent of a block in the loop-nesting forest is the
//! block of its `T↑` deepest in the dominator tree, the ancestors of `q` are
//! `T_q`, and jump pointers find the outermost one strictly dominated by
//! `d`. The argument, and what the self-checks check of it, is in
//! `proofs-notes/out-of-ssa.md`, "The liveness check".
//!
//! On an irreducible CFG the transitive closure `T_q` may pass through `d`
//! itself (a back edge into `d` from a block that `q` reaches, then on to a
//! block that `d` dominates): a path that goes through `d` passes the
//! definition of `v`, so it does not make `v` live. The 2008 paper restricts
//! itself to reducible CFGs for this step (on them, the back-edge targets
//! reached through `d` all dominate `d`); we keep its precomputation and
//! make the query exact on every CFG by walking the `T↑` graph from `q` at
//! query time, entering only blocks strictly dominated by `d`
//! ([`LivenessCheck::live_in`] does this whenever the CFG is irreducible;
//! [`LivenessCheck::live_in_with_closure`] always uses the closure, so that
//! the tests can show where it goes wrong).
//!
//! Live-out is derived from live-in: `v` is live-out of `b` when it is a phi
//! argument on an edge leaving `b`, or live-in, and not a phi destination, at
//! a successor. A point query (live right after an instruction) adds the
//! uses later in the block.
//!
//! # Cost of a query
//!
//! The paper's query tests every use of `v` against `R_t` for each `t`, so
//! its cost grows with the number of uses: a variable with thousands of
//! uses (the source of the copies into thousands of phis), asked about
//! once per copy, makes that quadratic. Here the uses of each variable are
//! kept sorted twice, by block and position (for the uses in one block, by
//! binary search) and by the post-order numbers of their blocks (for
//! `reaches_use`: one binary search per range of `R_t`, or per use when
//! there are fewer uses than ranges). The answers are the same.

use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::OutEdges;
use crate::analysis::work_steps::step;
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{Block, Function, Value};
use crate::pass_manager::self_checks;
use std::cell::Cell;

/// Position of a use that is a phi argument: at the very end of the
/// predecessor, after its terminator.
const PHI_USE: u32 = u32::MAX;

/// The precomputed data of the liveness check (see the module
/// documentation) and the def-use chains the queries read.
#[derive(Clone, Debug)]
pub struct LivenessCheck {
    dom: DomTree,
    /// `R_q` for every block, over the post-order numbers of the search.
    reduced_reach: EntityVec<Block, BlockRanges>,
    /// On a reducible CFG, the loop-nesting forest that stands for `T_q`
    /// (module documentation, "Query on a reducible CFG"); empty on an
    /// irreducible one.
    forest: LoopForest,
    /// `T↑_q` for every block.
    up_targets: EntityVec<Block, Vec<Block>>,
    /// True when no back edge of the search leads outside the blocks its
    /// target dominates (Hecht and Ullman: the CFG is reducible).
    reducible: bool,
    /// Block of the definition of each value and its position: 0 for a
    /// parameter or a phi, `i + 1` for the `i`-th instruction.
    defs: Defs,
    /// Every use of each value: the block and the position (`i` for the
    /// `i`-th instruction, the instruction count for the terminator,
    /// [`PHI_USE`] for a phi argument of an edge leaving the block), sorted.
    uses: Uses,
    /// The post-order numbers of the reached blocks that use each value,
    /// sorted, without repeats.
    use_posts: EntityVec<Value, Vec<u32>>,
    /// The successors of each block, one per edge.
    succs: EntityVec<Block, Vec<Block>>,
    /// Forest queries seen so far, for the sampling of their self-check.
    queries_checked: Cell<u64>,
}

/// With the self-checks on, every forest query from a block at most this
/// deep in the loop forest is compared with the closure `T_q`; deeper ones,
/// whose closure costs their depth, one in [`DEEP_STRIDE`].
const SHALLOW: u32 = 16;
const DEEP_STRIDE: u64 = 64;

impl LivenessCheck {
    /// The CFG precomputation and the def-use chains of `f`.
    pub fn new(f: &Function) -> Self {
        let n = f.blocks.len();
        let dom = DomTree::compute(f);
        let DepthFirstSearch { back, forward, post } = depth_first_search(f);
        let reducible = back.iter().all(|&(s, t)| dom.dominates(t, s));
        let mut post_number: EntityVec<Block, Option<u32>> = EntityVec::from_elem(None, n);
        for (i, &b) in post.iter().enumerate() {
            post_number[b] = Some(i as u32);
        }
        // R_q in post-order: every forward successor comes first.
        let mut reduced_reach: EntityVec<Block, BlockRanges> = EntityVec::from_elem(BlockRanges::default(), n);
        for (i, &b) in post.iter().enumerate() {
            let parts = forward[b].iter().flat_map(|&s| reduced_reach[s].0.iter().copied());
            reduced_reach[b] = BlockRanges::union(parts.chain([(i as u32, i as u32)]).collect());
        }
        // T↑_q: back-edge targets whose source q reduced-reaches, and that q
        // does not reduced-reach. A source in R_q is q itself or in R_s for
        // a forward successor s, so the candidates are the targets of q's
        // own back edges and T↑_s, plus the targets of the back edges from
        // R_s that R_s reaches, which R_q reaches too.
        let mut back_from: EntityVec<Block, Vec<Block>> = EntityVec::from_elem(Vec::new(), n);
        for &(s, t) in &back {
            back_from[s].push(t);
        }
        let mut up_targets: EntityVec<Block, Vec<Block>> = EntityVec::from_elem(Vec::new(), n);
        for &b in &post {
            let candidates = back_from[b].iter().chain(forward[b].iter().flat_map(|&s| up_targets[s].iter()));
            let reach = &reduced_reach[b];
            let mut ts: Vec<Block> =
                candidates.copied().filter(|&t| !post_number[t].is_some_and(|x| reach.contains(x))).collect();
            ts.sort();
            ts.dedup();
            up_targets[b] = ts;
        }
        let forest = if reducible { LoopForest::new(&dom, &up_targets) } else { LoopForest::default() };
        let (defs, uses) = def_use(f);
        let use_posts = uses
            .values()
            .map(|us| {
                let mut posts: Vec<u32> =
                    us.iter().filter_map(|&(u, _)| post_number.get(u).copied().flatten()).collect();
                posts.sort_unstable();
                posts.dedup();
                posts
            })
            .collect();
        let succs = f.blocks.keys().map(|b| f.succs(b).into_iter().filter(|s| s.index() < n).collect()).collect();
        let queries_checked = Cell::new(0);
        let check = LivenessCheck {
            dom,
            reduced_reach,
            forest,
            up_targets,
            reducible,
            defs,
            uses,
            use_posts,
            succs,
            queries_checked,
        };
        if reducible && self_checks::in_checked_pass() {
            check.check_forest(&post_number);
        }
        check
    }

    /// The dominator tree the check computed.
    pub fn dom(&self) -> &DomTree {
        &self.dom
    }

    /// True when the depth-first search found the CFG reducible.
    pub fn is_reducible(&self) -> bool {
        self.reducible
    }

    fn def(&self, v: Value) -> Option<(Block, u32)> {
        self.defs.get(v).copied().flatten()
    }

    fn uses(&self, v: Value) -> &[(Block, u32)] {
        self.uses.get(v).map(|u| u.as_slice()).unwrap_or(&[])
    }

    /// True when some use of `v` is in a block of `R_t`.
    fn reaches_use(&self, t: Block, v: Value) -> bool {
        let reach = &self.reduced_reach[t];
        let posts = self.use_posts.get(v).map(|p| p.as_slice()).unwrap_or(&[]);
        if reach.0.len() < posts.len() {
            reach.0.iter().any(|&(lo, hi)| {
                step(1);
                let i = posts.partition_point(|&x| x < lo);
                posts.get(i).is_some_and(|&x| x <= hi)
            })
        } else {
            posts.iter().any(|&x| {
                step(1);
                reach.contains(x)
            })
        }
    }

    /// True when `v` is live-in at `q` (the phi destinations of `q`, and the
    /// parameters at the entry, always are; see the module documentation).
    pub fn live_in(&self, v: Value, q: Block) -> bool {
        self.live_in_impl(v, q, if self.reducible { Query::Forest } else { Query::Walk })
    }

    /// [`LivenessCheck::live_in`] answered with the 2008 paper's closure
    /// `T_q` (every block of it tested, on any CFG, where on an irreducible
    /// one it may be wrong), built at the query; for the tests, which
    /// compare it with the loop-forest query and with the liveness sets.
    pub fn live_in_with_closure(&self, v: Value, q: Block) -> bool {
        self.live_in_impl(v, q, Query::Closure)
    }

    /// `T_q`: `q` and, transitively, the `T↑` of every block in it.
    fn closure(&self, q: Block) -> Vec<Block> {
        let mut list = vec![q];
        let mut seen: rustc_hash::FxHashSet<Block> = list.iter().copied().collect();
        let mut i = 0;
        while let Some(&x) = list.get(i) {
            i += 1;
            for &t in &self.up_targets[x] {
                if seen.insert(t) {
                    list.push(t);
                }
            }
        }
        list
    }

    fn live_in_impl(&self, v: Value, q: Block, query: Query) -> bool {
        let Some((d, pos)) = self.def(v) else { return false };
        if q.index() >= self.reduced_reach.len() || !self.dom.is_reachable(q) {
            return false;
        }
        if d == q {
            return pos == 0;
        }
        if !self.dom.strictly_dominates(d, q) {
            return false;
        }
        match query {
            Query::Forest => return self.reaches_use(self.outermost_target(q, d), v),
            Query::Closure => {
                return self.closure(q).into_iter().any(|t| {
                    step(1);
                    self.dom.strictly_dominates(d, t) && self.reaches_use(t, v)
                })
            }
            Query::Walk => {}
        }
        // Walk the T↑ graph from q through blocks strictly dominated by d.
        let mut seen = vec![q];
        let mut work = vec![q];
        while let Some(t) = work.pop() {
            step(1);
            if self.reaches_use(t, v) {
                return true;
            }
            for &u in &self.up_targets[t] {
                if self.dom.strictly_dominates(d, u) && !seen.contains(&u) {
                    seen.push(u);
                    work.push(u);
                }
            }
        }
        false
    }

    /// The block of `T_q` to test on a reducible CFG: the outermost one
    /// strictly dominated by `d` (module documentation, "Query on a
    /// reducible CFG"). With the self-checks on, the answer is compared with
    /// the closure `T_q` built at the query.
    fn outermost_target(&self, q: Block, d: Block) -> Block {
        let t = self.forest.outermost_above(q, self.forest.dom_depth[d]);
        let sampled = || {
            let k = self.queries_checked.get();
            self.queries_checked.set(k + 1);
            self.forest.depth[q] <= SHALLOW || k.is_multiple_of(DEEP_STRIDE)
        };
        if self_checks::in_checked_pass() && sampled() {
            self_checks::count();
            let expected = self
                .closure(q)
                .into_iter()
                .filter(|&t| self.dom.strictly_dominates(d, t))
                .min_by_key(|&t| self.forest.dom_depth[t]);
            assert_eq!(Some(t), expected, "liveness check: loop forest's target of {q} below {d}");
        }
        t
    }

    /// With the self-checks on: the loop forest against what the query
    /// needs of it, checked block by block (module documentation, "Query on
    /// a reducible CFG"): the parent `p` of `q` is in `T↑_q`, strictly
    /// dominates `q` and reduced-reaches it, and every block of `T↑_q` is an
    /// ancestor of `p` or `p` itself, so that by induction the ancestors of
    /// `q` are `T_q`; every jump pointer is the ancestor of its depth.
    fn check_forest(&self, post_number: &EntityVec<Block, Option<u32>>) {
        self_checks::count();
        let f = &self.forest;
        // Pre- and post-order numbers of the forest by a search of its own,
        // for an ancestor test that does not use the jump pointers.
        let n = f.parent.len();
        let mut children: EntityVec<Block, Vec<Block>> = EntityVec::from_elem(Vec::new(), n);
        for &b in &self.dom.preorder {
            if let Some(p) = f.parent[b] {
                children[p].push(b);
            }
        }
        let (mut pre, mut post) = (vec![0u32; n], vec![0u32; n]);
        let mut clock = 0u32;
        for &root in self.dom.preorder.iter().filter(|&&b| f.parent[b].is_none()) {
            let mut stack = vec![(root, 0usize)];
            pre[root.index()] = clock;
            clock += 1;
            while let Some((b, k)) = stack.last_mut() {
                let b = *b;
                if let Some(&c) = children[b].get(*k) {
                    *k += 1;
                    pre[c.index()] = clock;
                    clock += 1;
                    stack.push((c, 0));
                } else {
                    post[b.index()] = clock;
                    clock += 1;
                    stack.pop();
                }
            }
        }
        let above = |a: Block, b: Block| pre[a.index()] <= pre[b.index()] && post[b.index()] <= post[a.index()];
        for &q in &self.dom.preorder {
            let ups = &self.up_targets[q];
            let j = f.jump[q];
            assert!(above(j, q), "liveness check: jump pointer {j} of {q} is not its ancestor");
            let Some(p) = f.parent[q] else {
                assert!(ups.is_empty(), "liveness check: {q} has T↑ {ups:?} but no forest parent");
                continue;
            };
            let reaches = post_number[q].is_some_and(|x| self.reduced_reach[p].contains(x));
            assert!(
                ups.contains(&p) && self.dom.strictly_dominates(p, q) && reaches,
                "liveness check: forest parent {p} of {q} is not its innermost loop header (T↑ {ups:?})"
            );
            for &t in ups {
                assert!(above(t, p), "liveness check: {t} in T↑ of {q} is not above its forest parent {p}");
            }
        }
    }

    /// True when `v` is live-out of `b`: a phi argument on an edge leaving
    /// `b`, or live-in and not a phi destination at a successor.
    pub fn live_out(&self, v: Value, b: Block) -> bool {
        if self.uses(v).binary_search(&(b, PHI_USE)).is_ok() {
            return true;
        }
        self.succ_live_in(v, b)
    }

    fn succ_live_in(&self, v: Value, b: Block) -> bool {
        let Some(&(d, pos)) = self.defs.get(v).and_then(|d| d.as_ref()) else { return false };
        self.succs_of(b).iter().any(|&s| !(d == s && pos == 0) && self.live_in(v, s))
    }

    fn succs_of(&self, b: Block) -> &[Block] {
        self.succs.get(b).map(|s| s.as_slice()).unwrap_or(&[])
    }

    /// True when `v` is live right after the `i`-th instruction of `b`
    /// (`i` may be one past the last instruction's index minus one; an
    /// instruction's own destination is live after it only if used later).
    pub fn live_after_inst(&self, v: Value, b: Block, i: usize) -> bool {
        let Some((d, pos)) = self.def(v) else { return false };
        let here = i as u32 + 1;
        if d == b {
            if pos > here {
                return false;
            }
        } else if !self.dom.strictly_dominates(d, b) {
            return false;
        }
        // The first use after `(b, i)` in the sorted list: a later use in
        // `b` if there is one that is not a phi argument (those sort last).
        let uses = self.uses(v);
        let k = uses.partition_point(|&(u, p)| (u, p) <= (b, i as u32));
        if uses.get(k).is_some_and(|&(u, p)| u == b && p != PHI_USE) {
            return true;
        }
        self.live_out(v, b)
    }
}

/// How [`LivenessCheck::live_in_impl`] finds the blocks of `T_q` to test.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Query {
    /// The outermost loop-forest ancestor of `q` strictly dominated by the
    /// definition (reducible CFGs only).
    Forest,
    /// Every block of the closure `T_q`.
    Closure,
    /// The `T↑` graph from `q`, through blocks strictly dominated by the
    /// definition.
    Walk,
}

/// The loop-nesting forest of a reducible CFG as the liveness check reads
/// it (module documentation, "Query on a reducible CFG"): the parent of a
/// block is the innermost loop header strictly around it, the block of its
/// `T↑` deepest in the dominator tree; the ancestors of `q` are `T_q`.
/// Jump pointers (Myers' skew-binary ones: each block keeps its parent and
/// one farther ancestor) find the outermost ancestor strictly dominated by
/// a block in a logarithmic number of steps, in linear space.
#[derive(Clone, Debug, Default)]
struct LoopForest {
    parent: EntityVec<Block, Option<Block>>,
    /// An ancestor (the block itself at a root).
    jump: EntityVec<Block, Block>,
    /// Depth in the forest (0 at a root).
    depth: EntityVec<Block, u32>,
    /// Depth in the dominator tree, which decreases strictly from a block
    /// to its forest parent.
    dom_depth: EntityVec<Block, u32>,
}

impl LoopForest {
    /// The forest from `T↑` of a reducible CFG's reachable blocks.
    fn new(dom: &DomTree, up_targets: &EntityVec<Block, Vec<Block>>) -> Self {
        let n = up_targets.len();
        let mut forest = LoopForest {
            parent: EntityVec::from_elem(None, n),
            jump: (0..n).map(Block::new).collect(),
            depth: EntityVec::from_elem(0, n),
            dom_depth: EntityVec::from_elem(0, n),
        };
        // The dominator-tree pre-order puts every block after the blocks
        // that dominate it, so after its forest parent.
        for &b in &dom.preorder {
            forest.dom_depth[b] = dom.idom[b].map_or(0, |i| forest.dom_depth[i] + 1);
            let parent = up_targets[b].iter().copied().max_by_key(|&t| forest.dom_depth[t]);
            let Some(p) = parent else { continue };
            forest.parent[b] = Some(p);
            forest.depth[b] = forest.depth[p] + 1;
            let (j, jj) = (forest.jump[p], forest.jump[forest.jump[p]]);
            let skew = forest.depth[p] - forest.depth[j] == forest.depth[j] - forest.depth[jj];
            forest.jump[b] = if skew { jj } else { p };
        }
        forest
    }

    /// The outermost ancestor of `q` (`q` itself included) whose dominator
    /// depth exceeds `floor`, given that `q`'s does.
    fn outermost_above(&self, q: Block, floor: u32) -> Block {
        let mut x = q;
        loop {
            step(1);
            let j = self.jump[x];
            if j != x && self.dom_depth[j] > floor {
                x = j;
            } else if let Some(p) = self.parent[x].filter(|&p| self.dom_depth[p] > floor) {
                x = p;
            } else {
                return x;
            }
        }
    }
}

/// A set of post-order numbers as sorted, disjoint, non-adjacent closed
/// ranges (the representation of `R_q`, module documentation).
#[derive(Clone, Debug, Default)]
struct BlockRanges(Vec<(u32, u32)>);

impl BlockRanges {
    /// The union of `ranges`, in any order.
    fn union(ranges: Vec<(u32, u32)>) -> Self {
        BlockRanges(crate::analysis::intervals::normalize(ranges))
    }

    /// True when `x` is in the set.
    fn contains(&self, x: u32) -> bool {
        let i = self.0.partition_point(|r| r.1 < x);
        self.0.get(i).is_some_and(|r| r.0 <= x)
    }
}

/// The depth-first search from the entry that classifies the edges
/// (module documentation, "Precomputation").
struct DepthFirstSearch {
    /// The back edges, as (source, target): edges to a block on the
    /// search stack.
    back: Vec<(Block, Block)>,
    /// The forward successors of each block, one per edge.
    forward: EntityVec<Block, Vec<Block>>,
    /// The blocks the search reaches, in post-order.
    post: Vec<Block>,
}

/// The iterative depth-first search of `f` from its entry: its back edges,
/// its forward edges and its post-order.
fn depth_first_search(f: &Function) -> DepthFirstSearch {
    let n = f.blocks.len();
    let mut on_stack = vec![false; n];
    let mut visited = vec![false; n];
    let mut back: Vec<(Block, Block)> = Vec::new();
    let mut forward: EntityVec<Block, Vec<Block>> = EntityVec::from_elem(Vec::new(), n);
    let mut post: Vec<Block> = Vec::with_capacity(n);
    if n > 0 {
        let mut stack: Vec<(Block, Vec<Block>, usize)> = vec![(Function::ENTRY, f.succs(Function::ENTRY), 0)];
        visited[0] = true;
        on_stack[0] = true;
        while let Some((b, succs, k)) = stack.last_mut() {
            let b = *b;
            if *k < succs.len() {
                let s = succs[*k];
                *k += 1;
                if s.index() >= n {
                    continue;
                }
                if on_stack[s.index()] {
                    back.push((b, s));
                } else {
                    forward[b].push(s);
                    if !visited[s.index()] {
                        visited[s.index()] = true;
                        on_stack[s.index()] = true;
                        let ss = f.succs(s);
                        stack.push((s, ss, 0));
                    }
                }
            } else {
                on_stack[b.index()] = false;
                post.push(b);
                stack.pop();
            }
        }
    }
    DepthFirstSearch { back, forward, post }
}

/// Where each value is defined: its block and position.
type Defs = EntityVec<Value, Option<(Block, u32)>>;
/// Where each value is used: blocks and positions.
type Uses = EntityVec<Value, Vec<(Block, u32)>>;

/// For each value, where it is defined and where it is used.
fn def_use(f: &Function) -> (Defs, Uses) {
    let mut n = f.value_count as usize;
    f.for_each_value_mention(|v| n = n.max(v.index() + 1));
    let mut defs: Defs = EntityVec::from_elem(None, n);
    let mut uses: Uses = EntityVec::from_elem(Vec::new(), n);
    for &p in &f.params {
        defs[p] = Some((Function::ENTRY, 0));
    }
    let edges = OutEdges::new(f);
    for (b, data) in f.blocks.iter() {
        for phi in &data.phis {
            defs[phi.dest] = Some((b, 0));
        }
        for (i, inst) in data.insts.iter().enumerate() {
            inst.op.for_each_arg(|a| uses[a].push((b, i as u32)));
            if let Some(d) = inst.dest {
                defs[d] = Some((b, i as u32 + 1));
            }
        }
        if let Some(a) = data.term.arg() {
            uses[a].push((b, data.insts.len() as u32));
        }
        for &(s, k) in edges.of(b) {
            for phi in &f.blocks[s].phis {
                if let Some(&a) = phi.args.get(k) {
                    uses[a].push((b, PHI_USE));
                }
            }
        }
    }
    for u in uses.values_mut() {
        u.sort_unstable();
        u.dedup();
    }
    (defs, uses)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::work_steps::count_steps;
    use crate::construction::braun::{construct_program, BraunOptions};
    use crate::generate::source::{GenConfig, TestCase};

    /// The cost of a query ("Cost of a query" in the module documentation):
    /// on a reducible CFG, the jumps up the loop forest, at most twice the
    /// logarithm of `q`'s depth there plus two, then the smaller of `R_t`'s
    /// ranges and `v`'s use blocks for the one block `t` found; on an
    /// irreducible one, each block of `T_q` once. Every query of every
    /// value at every block of generated functions of growing size stays
    /// within that; walking the forest one parent at a time, walking the
    /// uses when the ranges are fewer, or a block of `T_q` twice, does not.
    #[test]
    fn a_query_costs_at_most_its_jumps_and_the_smaller_list() {
        let mut queries = 0u64;
        let mut used = 0u64;
        for (seed, size) in [(21u64, 20usize), (22, 60), (23, 200), (24, 500)] {
            let config = GenConfig { size, ..GenConfig::default() };
            let tc = TestCase::from_seed(seed, &config);
            let module = construct_program(&tc.program, &BraunOptions::all_on());
            for f in &module.functions {
                let check = LivenessCheck::new(f);
                for q in f.blocks.keys() {
                    for v in (0..f.value_count).map(Value) {
                        let posts = check.use_posts.get(v).map_or(0, |p| p.len());
                        let list = |t: Block| 1 + check.reduced_reach[t].0.len().min(posts) as u64;
                        let bound: u64 = match check.def(v) {
                            Some((d, _)) if check.dom.strictly_dominates(d, q) => {
                                if check.reducible {
                                    let depth = u64::from(check.forest.depth[q]);
                                    let t = check.forest.outermost_above(q, check.forest.dom_depth[d]);
                                    2 * (u64::BITS - (depth + 1).leading_zeros()) as u64 + 2 + list(t)
                                } else {
                                    check.closure(q).into_iter().map(list).sum()
                                }
                            }
                            _ => 0,
                        };
                        let (_, steps) = count_steps(|| check.live_in(v, q));
                        assert!(steps <= bound, "live_in({v}, {q}) took {steps} steps, bound {bound}");
                        queries += 1;
                        used += steps;
                    }
                }
            }
        }
        assert!(queries > 10_000 && used > 10_000, "{queries} queries, {used} steps");
    }
}
