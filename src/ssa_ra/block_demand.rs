//! The register demand of one block, walked once, for the spillers of
//! Pereira, "The Design and Implementation of a SSA-based Register
//! Allocator" (§4.5, "The Spilling Heuristics"; the live-range sizes of
//! Fig. 6's `ComputeWeight`).
//!
//! The demand model is `spill.rs`'s (module documentation there):
//! [`spill::block_points`](crate::ssa_ra::spill::block_points) gives, for
//! every point of a block, its demand and the register-resident values live
//! before and after it, each as a list of its own. Their total size is the
//! sum over the points of the values live there: quadratic in a block where
//! many values are live through many instructions (a function reading its
//! parameters one after another). `BlockDemand` keeps what a walk in
//! program order needs instead: the demand at each point, the values live
//! after the block start, and for each later point the values that stop
//! being live there (a last use, a result nothing reads) and the one that
//! starts (the instruction's result, when something reads it). A walk then
//! holds one live set and updates it at each point, as a production
//! allocator's spiller does (Braun and Hack's per-block walk, regalloc2's
//! and LLVM's live sets per block).
//!
//! `PointSite` is what both spillers' walks need at an overloaded point:
//! its operands and result, which values pass through it, and the operand
//! to spill when none of those can go (`spill.rs`'s rounds and
//! `spill_during_coloring.rs`'s walk).
//!
//! # Cost
//!
//! One backward walk of the block with one hash set, in set operations
//! linear in the block's length, its live-out set and the values defined
//! at its start (phi results, parameters), and as much memory. The replay
//! in program order (`BlockDemand::runs`, `spill_during_coloring.rs`)
//! costs the same plus its own work per change.
//!
//! # Self-check
//!
//! `block_demand_check::check_block_demand` replays the walk into a set per point and
//! compares each with `block_points` (a separate computation: it builds the
//! sets backward with its own bookkeeping); its callers sample it (the
//! first eight blocks walked, then the powers of two), so that the checks
//! stay affordable on large inputs.

use crate::entity::{EntitySet, SparseSet};
use crate::ir::{Block, BlockData, Function, Value};
use crate::ssa_ra::call_constraints::pinned_clobber;
use rustc_hash::{FxHashMap, FxHashSet};
use std::cmp::Ordering;

/// The register demand of a block and how its live set changes from point
/// to point (see the module documentation). Points are numbered as
/// `block_points` orders them: 0 is the block start, `i + 1` instruction
/// `i`, the last one the terminator.
#[derive(Clone, Debug)]
pub(crate) struct BlockDemand {
    /// The demand at each point.
    pub demand: Vec<usize>,
    /// The register-resident values live after the block start (its phi
    /// results and, in the entry, its parameters included, read or not).
    pub start_after: Vec<Value>,
    /// The values that are live after point `p - 1` but not after point
    /// `p`: `leaves[leave_end[p - 1]..leave_end[p]]`, with `leave_end[0] =
    /// 0`.
    leaves: Vec<Value>,
    leave_end: Vec<usize>,
    /// For each point, the value live after it but not after the point
    /// before: the result of the instruction there, when it is read later.
    enters: Vec<Option<Value>>,
}

/// What a walk of a block starts from: the block's live-out values and the
/// values defined at its start (phi results; parameters, in the entry),
/// less the values left out of the walk, *through* values: live out of
/// the block and mentioned nowhere in it, so that they are live at every
/// point, and only their number matters to the demand. A spiller that
/// walks one block in many rounds splits them off once
/// ([`Frame::split`]), so that a round costs the block's length, not the
/// number of values live through it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Frame {
    live_out: Vec<Value>,
    starters: Vec<Value>,
    /// The values left out.
    pub through: FxHashSet<Value>,
}

impl Frame {
    /// The frame of `b` with nothing left out.
    pub fn whole(f: &Function, b: Block, live_out: &SparseSet<Value>) -> Frame {
        let data = &f.blocks[b];
        let mut starters: Vec<Value> = data.phis.iter().map(|p| p.dest).collect();
        if b == Function::ENTRY {
            starters.extend(f.params.iter().copied());
        }
        Frame { live_out: live_out.iter().collect(), starters, through: FxHashSet::default() }
    }

    /// The frame of `b` with its register-resident through values left
    /// out.
    pub fn split(f: &Function, b: Block, live_out: &SparseSet<Value>, spilled: &EntitySet<Value>) -> Frame {
        let data = &f.blocks[b];
        let mut mentioned: FxHashSet<Value> = FxHashSet::default();
        for inst in &data.insts {
            inst.op.for_each_arg(|a| {
                mentioned.insert(a);
            });
            mentioned.extend(inst.dest);
        }
        mentioned.extend(data.term.arg());
        let whole = Frame::whole(f, b, live_out);
        let (live_out, through): (Vec<Value>, Vec<Value>) =
            whole.live_out.into_iter().partition(|&v| spilled.contains(v) || mentioned.contains(&v));
        let through: FxHashSet<Value> = through.into_iter().collect();
        let starters = whole.starters.into_iter().filter(|v| !through.contains(v)).collect();
        Frame { live_out, starters, through }
    }
}

impl BlockDemand {
    /// Walks block `b` backward from `live_out` (its live-out set), with
    /// the values of `spilled` in memory.
    pub fn compute(
        f: &Function,
        b: Block,
        live_out: &SparseSet<Value>,
        spilled: &EntitySet<Value>,
        k: usize,
    ) -> BlockDemand {
        BlockDemand::compute_in(f, b, &Frame::whole(f, b, live_out), 0, spilled, k)
    }

    /// Walks block `b` backward from `frame`, with the values of `spilled`
    /// in memory and `through` register-resident values left out of the
    /// frame: they count in every point's demand but appear in no list.
    pub fn compute_in(
        f: &Function,
        b: Block,
        frame: &Frame,
        through: usize,
        spilled: &EntitySet<Value>,
        k: usize,
    ) -> BlockDemand {
        let data = &f.blocks[b];
        let n = data.insts.len();
        let resident = |v: Value| !spilled.contains(v);
        let mut live: FxHashSet<Value> = frame.live_out.iter().copied().filter(|&v| resident(v)).collect();
        let mut demand = vec![0usize; n + 2];
        let mut enters: Vec<Option<Value>> = vec![None; n + 2];
        // The values leaving at each point, gathered backward: `dies[p]`.
        let mut dies: Vec<Vec<Value>> = vec![Vec::new(); n + 2];
        // The terminator reads its operand at the block end.
        let after = live.len();
        if let Some(a) = data.term.arg() {
            if resident(a) && live.insert(a) {
                dies[n + 1].push(a);
            }
        }
        demand[n + 1] = through + live.len().max(after);
        for (i, inst) in data.insts.iter().enumerate().rev() {
            let after = live.len();
            let mut extra = 0;
            if let Some(d) = inst.dest {
                if live.remove(&d) {
                    enters[i + 1] = Some(d);
                } else {
                    // Spilled or never read: it still needs a register to
                    // be written to.
                    extra = 1;
                }
            }
            inst.op.for_each_arg(|a| {
                if resident(a) && live.insert(a) {
                    dies[i + 1].push(a);
                }
            });
            demand[i + 1] = through + live.len().max(after + extra) + pinned_clobber(inst, k);
        }
        // Phi results and parameters are defined at the block start; one
        // that nothing reads occupies a register there only.
        let mut start_after: Vec<Value> = live.iter().copied().collect();
        for &d in &frame.starters {
            if resident(d) && live.insert(d) {
                start_after.push(d);
                dies[1].push(d);
            }
        }
        demand[0] = through + start_after.len();
        let mut leaves = Vec::new();
        let mut leave_end = Vec::with_capacity(n + 2);
        for d in dies {
            leaves.extend(d);
            leave_end.push(leaves.len());
        }
        BlockDemand { demand, start_after, leaves, leave_end, enters }
    }

    /// The number of points.
    pub fn points(&self) -> usize {
        self.demand.len()
    }

    /// The largest demand at a point of the block.
    pub fn max_demand(&self) -> usize {
        self.demand.iter().copied().max().unwrap_or(0)
    }

    /// The values live after point `p - 1` and not after point `p` (none
    /// for the start).
    pub fn leaves(&self, p: usize) -> &[Value] {
        match p {
            0 => &[],
            _ => &self.leaves[self.leave_end[p - 1]..self.leave_end[p]],
        }
    }

    /// The value live after point `p` and not after point `p - 1`.
    pub fn enters(&self, p: usize) -> Option<Value> {
        self.enters[p]
    }

    /// Each value's runs of consecutive points it is live after, as
    /// `(value, first point, number of points)`: the block's share of the
    /// live-range sizes of Fig. 6.
    pub fn runs(&self) -> Vec<(Value, usize, usize)> {
        let mut open: FxHashMap<Value, usize> = self.start_after.iter().map(|&v| (v, 0)).collect();
        let mut runs = Vec::new();
        for p in 1..self.points() {
            for &v in self.leaves(p) {
                if let Some(first) = open.remove(&v) {
                    runs.push((v, first, p - first));
                }
            }
            if let Some(v) = self.enters(p) {
                open.insert(v, p);
            }
        }
        let end = self.points();
        runs.extend(open.into_iter().map(|(v, first)| (v, first, end - first)));
        runs
    }
}

/// A value live through a point, ordered as the walk chooses: least weight
/// first, ties broken by the smaller value. Weights are finite (Fig. 6's
/// terms are capped and divided by a size of at least 1), so this order is
/// total.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate(pub f64, pub Value);

impl PartialEq for Candidate {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Candidate {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.partial_cmp(&o.0).unwrap_or(Ordering::Equal).then(self.1.cmp(&o.1))
    }
}

/// What point `p` of a block (numbered as in [`BlockDemand`]) reads and
/// writes, for the choice there: the operands of its instruction or of the
/// terminator, its result, and that result when it is not live through the
/// point (spilled, or not also an operand), as `Point::candidates` decides.
pub(crate) struct PointSite {
    pub operands: Vec<Value>,
    pub defined: Option<Value>,
    pub gone: Option<Value>,
}

impl PointSite {
    pub fn of(data: &BlockData, p: usize, spilled: &EntitySet<Value>) -> PointSite {
        let n = data.insts.len();
        let mut operands: Vec<Value> = Vec::with_capacity(3);
        let mut defined = None;
        if p == n + 1 {
            operands.extend(data.term.arg());
        } else if p > 0 {
            data.insts[p - 1].op.for_each_arg(|a| operands.push(a));
            defined = data.insts[p - 1].dest;
        }
        let gone = defined.filter(|d| spilled.contains(*d) || !operands.contains(d));
        PointSite { operands, defined, gone }
    }

    /// Whether `v`, live after the point, is live through it: not its
    /// operand, nor its result.
    pub fn passes_through(&self, v: Value) -> bool {
        !self.operands.contains(&v) && Some(v) != self.defined && Some(v) != self.gone
    }

    /// The choice when no value live through the point can go: among its
    /// operands that stay live after it (`after`), other than its result,
    /// and that `may_go`, the least by `key` (spilling one does not lower
    /// the demand just before the point, but its reload dies there).
    pub fn operand_to_spill(
        &self,
        after: &FxHashSet<Value>,
        may_go: impl Fn(Value) -> bool,
        key: impl Fn(Value) -> Candidate,
    ) -> Option<Value> {
        self.operands
            .iter()
            .copied()
            .filter(|&v| after.contains(&v) && Some(v) != self.gone && Some(v) != self.defined && may_go(v))
            .min_by_key(|&v| key(v))
    }

    /// How many values live after the point (`after`) and chosen
    /// (`is_chosen`) are not live through it: its operands and a result
    /// that is gone, each counted once. The chosen values live through the
    /// point are the chosen ones live after it less these.
    pub fn chosen_not_through(&self, is_chosen: impl Fn(&Value) -> bool, after: &FxHashSet<Value>) -> usize {
        let mut not_through: Vec<Value> = self.operands.iter().copied().chain(self.gone).collect();
        not_through.sort_unstable();
        not_through.dedup();
        not_through.iter().filter(|v| is_chosen(v) && after.contains(v)).count()
    }
}
