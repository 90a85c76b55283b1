//! Values of variables and value-based interference: Boissinot et al.,
//! "Revisiting Out-of-SSA Translation for Correctness, Code Quality, and
//! Efficiency" (CGO 2009), §III-A.
//!
//! Needs: the dominator tree (`dominance.rs`) and the liveness
//! (`liveness.rs`) of a strict SSA function (one that passes the verifier).
//!
//! The value of a variable is computed by one traversal of the dominator
//! tree in pre-order: a copy `b = copy a` gives `b` the value of `a` (already
//! known, because in strict SSA the definition of `a` dominates the copy and
//! is visited first), and every other definition (parameter, phi, any other
//! operation) gives a new value. A value is named by the variable that
//! created it. Two variables with the same value hold the same bits wherever
//! both are defined: `b` is a copy of a copy ... of `a`, and SSA variables
//! never change.
//!
//! Two variables *intersect* when one is live at the definition of the
//! other. In strict SSA the definition of a variable dominates every point
//! where it is live, so only the variable whose definition dominates the
//! other's can be live there: [`intersect`] checks just that one (both, when
//! the two definitions are at the same point, like two phis of one block).
//! Two variables *interfere by value* ([`value_interfere`]) when they
//! intersect and have different values: where both are live they hold the
//! same bits, so they can share a name. `proofs-notes/out-of-ssa.md` argues
//! both claims.
//!
//! Definitions in unreachable blocks have no place in the dominator tree;
//! for them [`intersect`] falls back to the plain test of `liveness.rs`
//! (either one live at the other's definition), and each gets its own value.

use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::{def_points, DefPoint, Interference, Liveness};
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{Block, Function, Op, Value};
use crate::out_of_ssa::copy_insertion::{InsertedCopy, ParallelCopyPlace};
use crate::out_of_ssa::liveness_check::LivenessCheck;

/// The value of every variable (§III-A), named by the variable that
/// created it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Values {
    value: EntityVec<Value, Value>,
}

impl Values {
    /// The value of `v`: `v` itself unless `v` is defined by a copy (of a
    /// copy ...) of another variable.
    pub fn value_of(&self, v: Value) -> Value {
        self.value.get(v).copied().unwrap_or(v)
    }
}

/// Computes the value of every variable by one pre-order traversal of the
/// dominator tree (see the module documentation).
pub fn compute_values(f: &Function, dom: &DomTree) -> Values {
    let mut n = f.value_count as usize;
    f.for_each_value_mention(|v| n = n.max(v.index() + 1));
    // Every variable starts as its own value; copies are resolved in
    // dominance order, so the source of a copy is resolved before the copy.
    let mut value: EntityVec<Value, Value> = (0..n).map(Value::new).collect();
    for &b in &dom.preorder {
        for inst in &f.blocks[b].insts {
            if let (Some(d), Op::Copy(src)) = (inst.dest, &inst.op) {
                value[d] = value[*src];
            }
        }
    }
    Values { value }
}

/// Where the liveness answers of a [`ValueInterference`] come from: the
/// dataflow sets of `liveness.rs`, or the fast liveness check of
/// `liveness_check.rs` (Boissinot et al. §IV-A). Both give the same answers
/// (`tests/suite/liveness_check.rs`).
#[derive(Clone, Copy, Debug)]
pub enum LivenessSource<'a> {
    Sets(&'a Liveness),
    Check(&'a LivenessCheck),
}

/// The liveness queries, answered from one source or the other.
#[derive(Clone, Debug)]
enum LiveQuery<'a> {
    Sets(Interference<'a>),
    Check(&'a LivenessCheck),
}

/// The parallel copies of a function: runs of consecutive copy
/// instructions that execute as one parallel copy (all sources read, then
/// all destinations written). Every destination of a run is defined at the
/// end of the run, and every source is read at its start, so a source that
/// dies at the run does not intersect its destinations (§II-B: "with
/// sequential copies, some additional interferences ... appear").
#[derive(Clone, Debug, Default)]
pub struct CopyGroups {
    /// For each block, the instruction ranges `start..end` that are
    /// parallel copies.
    ranges: EntityVec<Block, Vec<(u32, u32)>>,
}

impl CopyGroups {
    /// No parallel copies: every instruction stands alone.
    pub fn none() -> Self {
        CopyGroups::default()
    }

    /// The parallel copies placed by `copy_insertion::insert_copies` (the
    /// copies after the phis at the start of a block, and those at its end).
    pub fn from_inserted(f: &Function, copies: &[InsertedCopy]) -> Self {
        let mut at_start: EntityVec<Block, u32> = EntityVec::from_elem(0, f.blocks.len());
        let mut at_end: EntityVec<Block, u32> = EntityVec::from_elem(0, f.blocks.len());
        for c in copies {
            match c.place {
                ParallelCopyPlace::AfterPhis(b) => at_start[b] += 1,
                ParallelCopyPlace::End(b) => at_end[b] += 1,
            }
        }
        let mut ranges: EntityVec<Block, Vec<(u32, u32)>> = EntityVec::from_elem(Vec::new(), f.blocks.len());
        for (b, data) in f.blocks.iter() {
            let len = data.insts.len() as u32;
            if at_start[b] > 0 {
                ranges[b].push((0, at_start[b]));
            }
            if at_end[b] > 0 {
                ranges[b].push((len - at_end[b], len));
            }
        }
        CopyGroups { ranges }
    }

    /// The parallel copies of `b`, as instruction ranges.
    pub fn ranges(&self, b: Block) -> &[(u32, u32)] {
        self.ranges.get(b).map(|r| r.as_slice()).unwrap_or(&[])
    }

    /// Every parallel copy of `f` as a `(block, start, end)` range, the form
    /// `checkers/class_interference_check.rs` takes them in.
    pub fn all_ranges(&self, f: &Function) -> Vec<(Block, usize, usize)> {
        f.blocks.keys().flat_map(|b| self.ranges(b).iter().map(move |&(s, e)| (b, s as usize, e as usize))).collect()
    }

    /// The index of the last instruction of the parallel copy holding the
    /// `i`-th instruction of `b` (`i` itself when it is in none).
    pub fn group_end(&self, b: Block, i: usize) -> usize {
        let i32_ = i as u32;
        self.ranges(b).iter().find(|&&(s, e)| s <= i32_ && i32_ < e).map_or(i, |&(_, e)| e as usize - 1)
    }
}

/// The definition order and the intersection test of a function: the
/// dominator tree, the liveness (sets or check), the definition points
/// (parallel copies defining all their destinations at their end), and the
/// values.
#[derive(Clone, Debug)]
pub struct ValueInterference<'a> {
    dom: &'a DomTree,
    live: LiveQuery<'a>,
    defs: EntityVec<Value, Option<DefPoint>>,
    values: Values,
    /// For each reachable block, the largest dominator-tree pre-order
    /// number in its subtree: the blocks it dominates are those numbered
    /// from its own number to this one.
    subtree_end: EntityVec<Block, u32>,
}

impl<'a> ValueInterference<'a> {
    /// Precomputes the live sets at every definition and the values of `f`
    /// (every copy a sequential instruction).
    pub fn new(f: &Function, dom: &'a DomTree, live: &'a Liveness) -> Self {
        Self::with_source(f, dom, LivenessSource::Sets(live), &CopyGroups::none())
    }

    /// Like [`ValueInterference::new`], with the liveness from `source` and
    /// the parallel copies `groups`.
    pub fn with_source(f: &Function, dom: &'a DomTree, source: LivenessSource<'a>, groups: &CopyGroups) -> Self {
        let live = match source {
            LivenessSource::Sets(l) => LiveQuery::Sets(Interference::new(f, l)),
            LivenessSource::Check(c) => LiveQuery::Check(c),
        };
        let mut defs = def_points(f);
        for d in defs.values_mut() {
            if let Some(DefPoint::Inst(b, i)) = *d {
                *d = Some(DefPoint::Inst(b, groups.group_end(b, i)));
            }
        }
        let mut subtree_end = EntityVec::from_elem(0, f.blocks.len());
        for &b in dom.preorder.iter().rev() {
            subtree_end[b] = subtree_end[b].max(dom.preorder_number(b));
            if let Some(d) = dom.idom[b] {
                subtree_end[d] = subtree_end[d].max(subtree_end[b]);
            }
        }
        ValueInterference { dom, live, defs, values: compute_values(f, dom), subtree_end }
    }

    /// The dominator tree.
    pub fn dom(&self) -> &DomTree {
        self.dom
    }

    /// The block of the definition of `v`, if it is defined.
    pub fn def_block(&self, v: Value) -> Option<Block> {
        self.def_point(v).map(|p| match p {
            DefPoint::BlockStart(b) | DefPoint::Inst(b, _) => b,
        })
    }

    /// The largest pre-order number of the blocks that the reachable block
    /// `b` dominates: in [`def_order`](Self::def_order), the definitions
    /// that the definition of a variable of `b` dominates are the later
    /// ones numbered up to this.
    pub fn subtree_end(&self, b: Block) -> u32 {
        self.subtree_end[b]
    }

    /// Gives `v` the value `value`: a deliberately wrong numbering, for the
    /// tests that show the checker after coalescing does not trust this one
    /// (`tests/suite/independent_checkers.rs`). No pass calls it.
    pub fn plant_wrong_value(&mut self, v: Value, value: Value) {
        self.values.value[v] = value;
    }

    /// The values of the function.
    pub fn values(&self) -> &Values {
        &self.values
    }

    /// The value of `v`.
    pub fn value_of(&self, v: Value) -> Value {
        self.values.value_of(v)
    }

    /// Where `v` is defined (a parallel copy's destinations at its end).
    pub fn def_point(&self, v: Value) -> Option<DefPoint> {
        self.defs.get(v).copied().flatten()
    }

    /// The number of values of the function (defined or not): its size,
    /// for the sampling of the self-checks (`pass_manager/sampling.rs`).
    pub fn value_count(&self) -> usize {
        self.defs.len()
    }

    /// The place of the definition of `v` in the dominance pre-DFS order:
    /// the pre-order number of its block in the dominator tree, then its
    /// position in the block (0 for parameters and phis, `i + 1` for the
    /// `i`-th instruction). `None` when `v` is not defined or is defined in
    /// an unreachable block.
    pub fn def_order(&self, v: Value) -> Option<(u32, u32)> {
        let (b, pos) = match self.def_point(v)? {
            DefPoint::BlockStart(b) => (b, 0),
            DefPoint::Inst(b, i) => (b, i as u32 + 1),
        };
        self.dom.is_reachable(b).then(|| (self.dom.preorder_number(b), pos))
    }

    /// True when the definition of `a` dominates the definition of `b`
    /// (reflexive: two definitions at the same point, such as two phis of
    /// one block, dominate each other). False when either is not defined
    /// or unreachable.
    pub fn def_dominates(&self, a: Value, b: Value) -> bool {
        let (Some(pa), Some(pb)) = (self.def_point(a), self.def_point(b)) else {
            return false;
        };
        let split = |p: DefPoint| match p {
            DefPoint::BlockStart(blk) => (blk, 0),
            DefPoint::Inst(blk, i) => (blk, i + 1),
        };
        let ((ba, ia), (bb, ib)) = (split(pa), split(pb));
        if ba == bb {
            self.dom.is_reachable(ba) && ia <= ib
        } else {
            self.dom.strictly_dominates(ba, bb)
        }
    }

    /// True when `v` is live at the definition of `w` (the live set right
    /// after `w`'s instruction, or at the start of its block for a phi or a
    /// parameter).
    pub fn live_at_def(&self, v: Value, w: Value) -> bool {
        if v == w {
            return false;
        }
        match self.def_point(w) {
            None => false,
            Some(DefPoint::BlockStart(b)) => match &self.live {
                LiveQuery::Sets(i) => i.live_in(v, b),
                LiveQuery::Check(c) => c.live_in(v, b),
            },
            Some(DefPoint::Inst(b, i)) => self.live_after_inst(v, b, i),
        }
    }

    /// True when `v` is live right after the `i`-th instruction of `b`.
    pub fn live_after_inst(&self, v: Value, b: Block, i: usize) -> bool {
        match &self.live {
            LiveQuery::Sets(x) => x.live_after_inst(v, b, i),
            LiveQuery::Check(c) => c.live_after_inst(v, b, i),
        }
    }

    /// True when `v` is live right before the `i`-th instruction of `b`
    /// (live-in at `b` for the first one).
    pub fn live_before_inst(&self, v: Value, b: Block, i: usize) -> bool {
        match i.checked_sub(1) {
            Some(j) => self.live_after_inst(v, b, j),
            None => self.live_in(v, b),
        }
    }

    /// True when `v` is live-in at `b` (`liveness.rs` conventions: the phi
    /// destinations of `b` always are).
    pub fn live_in(&self, v: Value, b: Block) -> bool {
        match &self.live {
            LiveQuery::Sets(x) => x.live_in(v, b),
            LiveQuery::Check(c) => c.live_in(v, b),
        }
    }

    /// True when `v` is live-out of `b` (`liveness.rs` conventions: the phi
    /// arguments on the edges leaving `b` are).
    pub fn live_out(&self, v: Value, b: Block) -> bool {
        match &self.live {
            LiveQuery::Sets(x) => x.live_out(v, b),
            LiveQuery::Check(c) => c.live_out(v, b),
        }
    }

    /// True when one of `a`, `b` is live at the definition of the other
    /// (the plain test, without dominance).
    fn plain_interfere(&self, a: Value, b: Value) -> bool {
        a != b && (self.live_at_def(a, b) || self.live_at_def(b, a))
    }
}

/// True when `a` and `b` intersect: they differ and one is live at the
/// definition of the other. Only the variable whose definition dominates
/// the other's is tested (both, when each dominates the other); see the
/// module documentation.
pub fn intersect(ctx: &ValueInterference<'_>, a: Value, b: Value) -> bool {
    if a == b {
        return false;
    }
    if ctx.def_order(a).is_none() || ctx.def_order(b).is_none() {
        return ctx.plain_interfere(a, b);
    }
    (ctx.def_dominates(a, b) && ctx.live_at_def(a, b)) || (ctx.def_dominates(b, a) && ctx.live_at_def(b, a))
}

/// True when `a` and `b` interfere by value (§III-A): they intersect and
/// have different values.
pub fn value_interfere(ctx: &ValueInterference<'_>, a: Value, b: Value) -> bool {
    ctx.value_of(a) != ctx.value_of(b) && intersect(ctx, a, b)
}
