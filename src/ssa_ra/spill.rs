//! Spilling for SSA-based register allocation, after Pereira, "The Design
//! and Implementation of a SSA-based Register Allocator": the spilling
//! heuristics and spill weights of §4.5 (Fig. 6, `ComputeWeight`) and the
//! spill code placement of §4.7; plus load lowering of Pereira and Palsberg
//! (CC 2009) §6.2 as a spill decision.
//!
//! Input: a function in CSSA form without critical edges (after PhiLifting
//! and PhiMemCoalesce). Output: the same function with a set of *spilled*
//! values and explicit reloads, such that the register demand is at most K
//! at every program point. Register assignment (`coloring.rs`) then needs no
//! further spill, because an SSA program's interference graph is chordal and
//! greedy coloring in dominance order uses exactly the maximum demand.
//!
//! The model, shared with `coloring.rs` and `ssa_elimination.rs`:
//! - A spilled value lives in the stack slot of its phi-congruence class
//!   (frugal allocation). If an instruction defines it, it occupies a
//!   register only at that instruction: the value is stored right after its
//!   definition (one store per spilled value, §4.7). A spilled phi result or
//!   parameter arrives in memory and never occupies a register.
//! - Every use of a spilled value other than a phi argument reads a *reload*:
//!   a fresh value `r = copy v` placed right before the use (§4.7: "each use
//!   of v is replaced by a fresh virtual v', mapped to the same memory
//!   location"). A `copy v` that the program already had becomes the reload
//!   itself. Reloads of one value inside one block are recycled (one reload
//!   serves several uses) when the demand between the uses allows it.
//! - Phi arguments of spilled values stay in memory: SSA elimination moves
//!   them with the parallel copies of the edges.
//! - The register demand at an instruction is the larger of the number of
//!   register-resident values live just before it and the number live just
//!   after it, plus one if it defines a value that is not live after it (a
//!   spilled or unused result still needs a register to be written to).
//!   At a block's start it is the number of register-resident values live in
//!   (its phi results included).
//!
//! The spiller repeatedly finds the first point whose demand exceeds K and
//! spills the value of least weight among those live *through* that point
//! (not an operand or result of the instruction there, and not a reload).
//! With K ≥ 2 it always succeeds: once everything live through a point is
//! spilled, an instruction needs at most its two operands before and its
//! result after.
//!
//! # Liveness
//!
//! Block liveness is computed once, before the first round, and serves
//! every round, load lowering, reload recycling and the final demand (the
//! largest of each block's, kept as the blocks are refreshed; recounted
//! over the whole function only when checks are on):
//! spilling never changes a block's live-in or live-out set. A spilled
//! value is still read where it was (by its reloads, placed right before
//! the uses they replace, in the same block), phi arguments are not
//! touched, and a reload is defined and used in one block, so it is live
//! in no block's live-in or live-out set (recycling merges two reloads of
//! one block). Values created by spilling lie beyond the capacity of the
//! sets, which then read as absent, as they should. Recomputing liveness
//! each round would make spilling quadratic in the function's size.
//!
//! # Cost
//!
//! A round walks each overloaded block once (`block_demand.rs`), choosing
//! from an ordered set by weight, and refreshes only the blocks its spills
//! change: `O((|B| + |live_out|) log live)` per block walked, never the sum
//! over the points of the values live there.

use crate::analysis::liveness::{compute_liveness, compute_liveness_dataflow, Liveness};
use crate::analysis::loops::loop_depth;
use crate::entity::{EntityRef, EntitySet, EntityVec, SparseSet};
use crate::ir::{Block, BlockData, Function, Value};
use crate::pass_manager::self_checks;
use crate::ssa_ra::block_demand::{BlockDemand, Candidate, PointSite};
use crate::ssa_ra::block_demand_check::check_block_demand;
use crate::ssa_ra::call_constraints::pinned_clobber;
pub(crate) use crate::ssa_ra::reload_recycling::recycle_reloads;
use crate::ssa_ra::spill_code::SpillCode;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeSet;

/// What the spiller may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpillOptions {
    /// Number of registers.
    pub k: usize,
    /// Load lowering (Pereira and Palsberg §6.2): spill a phi result whose
    /// arguments would need more loads on the incoming edges than the result
    /// has uses, so that it is reloaded at its uses instead.
    pub load_lowering: bool,
    /// Recycle reloads inside a block (§4.7).
    pub recycle_reloads: bool,
}

/// What the spiller did.
#[derive(Clone, Debug)]
pub struct SpillResult {
    /// The values that live in memory.
    pub spilled: EntitySet<Value>,
    /// Reload values the spiller created (a subset of the `copy`s).
    pub reloads: EntitySet<Value>,
    /// Phi results spilled by load lowering.
    pub lowered: Vec<Value>,
    /// The largest register demand left (≤ K).
    pub max_demand: usize,
}

pub use crate::error::ssa_ra_errors::SpillError;

/// A program point of a block, with its register demand.
#[derive(Clone, Debug)]
pub struct Point {
    /// `None` for the block start (phis), `Some(i)` for instruction `i`,
    /// `Some(insts.len())` for the terminator.
    pub inst: Option<usize>,
    pub demand: usize,
    /// Register-resident values live before and after the point.
    pub before: Vec<Value>,
    pub after: Vec<Value>,
}

impl Point {
    /// The error when no value can be spilled at this point of `b`.
    pub(crate) fn nothing_to_spill(&self, b: Block, k: usize) -> SpillError {
        SpillError::NothingToSpill { block: b, point: self.inst, demand: self.demand, k, live: self.before.clone() }
    }

    /// What a spill decision at this point of `data` (its block) looks at:
    /// the values the instruction or terminator reads, the value it
    /// defines, and the resident values that may be spilled to relieve it.
    /// At the block start every resident value can go (phi results
    /// included); at an instruction, only the values live through it.
    /// Shared by the separate pass and `spill_during_coloring.rs`.
    pub(crate) fn candidates(&self, data: &BlockData) -> (Vec<Value>, Option<Value>, Vec<Value>) {
        let mut operands: Vec<Value> = Vec::new();
        let mut defined = None;
        match self.inst {
            Some(i) if i < data.insts.len() => {
                data.insts[i].op.for_each_arg(|a| operands.push(a));
                defined = data.insts[i].dest;
            }
            Some(_) => operands.extend(data.term.arg()),
            None => {}
        }
        // `before` is `after` without the defined value, plus the values
        // read (`block_points`): the values of `after` missing from
        // `before` can only be the defined one. Testing that one alone keeps
        // this linear in the live set, where a search of `before` for each
        // value of `after` would be quadratic.
        let through = match self.inst {
            None => self.after.clone(),
            Some(_) => {
                let gone = defined.filter(|d| !self.before.contains(d));
                self.after.iter().copied().filter(|&v| Some(v) != gone).collect()
            }
        };
        (operands, defined, through)
    }
}

/// The register demand at every point of block `b`, given which values are
/// spilled, with `k` registers. `live_out` is the block's live-out set.
pub fn block_points(
    f: &Function,
    b: Block,
    live_out: &SparseSet<Value>,
    spilled: &EntitySet<Value>,
    k: usize,
) -> Vec<Point> {
    let data = &f.blocks[b];
    let resident = |v: &Value| !spilled.contains(*v);
    // `live` in the order the walk keeps it, and the position of each of
    // its values: membership and removal in constant time, where a search
    // of the list would be quadratic in the values live through the block (and
    // the spiller computes the points of a block once per round).
    let mut live: Vec<Value> = live_out.iter().filter(resident).collect();
    let mut pos: FxHashMap<Value, usize> = live.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let mut points = Vec::with_capacity(data.insts.len() + 2);
    // The terminator reads its operand at the block end.
    let after_term = live.clone();
    if let Some(a) = data.term.arg() {
        if resident(&a) && !pos.contains_key(&a) {
            pos.insert(a, live.len());
            live.push(a);
        }
    }
    points.push(Point {
        inst: Some(data.insts.len()),
        demand: live.len().max(after_term.len()),
        before: live.clone(),
        after: after_term,
    });
    for (i, inst) in data.insts.iter().enumerate().rev() {
        let after = live.clone();
        let mut extra = 0;
        if let Some(d) = inst.dest {
            if let Some(p) = pos.remove(&d) {
                live.swap_remove(p);
                if let Some(&moved) = live.get(p) {
                    pos.insert(moved, p);
                }
            } else {
                extra = 1;
            }
        }
        inst.op.for_each_arg(|a| {
            if resident(&a) && !pos.contains_key(&a) {
                pos.insert(a, live.len());
                live.push(a);
            }
        });
        let demand = live.len().max(after.len() + extra) + pinned_clobber(inst, k);
        points.push(Point { inst: Some(i), demand, before: live.clone(), after });
    }
    // Phi results (and, in the entry, parameters) are defined at the block
    // start, in parallel; one that nothing reads still needs a register for
    // the edge code or the caller to write.
    let mut starters: Vec<Value> = data.phis.iter().map(|p| p.dest).collect();
    if b == Function::ENTRY {
        starters.extend(f.params.iter().copied());
    }
    let starter_set: FxHashSet<Value> = starters.iter().copied().collect();
    let mut start_after = live.clone();
    let mut added: FxHashSet<Value> = FxHashSet::default();
    for &d in &starters {
        if resident(&d) && !pos.contains_key(&d) && added.insert(d) {
            start_after.push(d);
        }
    }
    live.retain(|v| !starter_set.contains(v));
    points.push(Point { inst: None, demand: start_after.len(), before: live, after: start_after });
    points.reverse();
    points
}

/// Pereira's `ComputeWeight` (Fig. 6): each definition and use counts
/// 1 + 10^loop-depth (phi arguments at the depth of their predecessor), and
/// the sum is divided by the size of the live range ([`Rounds::weight`]).
/// Low weight spills first. The sums are computed once: spilling a value
/// changes no definition or use of another (its uses become reloads, which
/// are never spilled).
fn weight_sums(f: &Function, depth: &EntityVec<Block, u32>) -> Vec<f64> {
    let mut w = vec![0.0f64; f.value_count as usize];
    let cost = |d: u32| 1.0 + 10f64.powi(d.min(8) as i32);
    for (b, data) in f.blocks.iter() {
        for phi in &data.phis {
            for (i, &a) in phi.args.iter().enumerate() {
                if a != phi.dest {
                    let c = cost(depth[data.preds[i]]);
                    w[phi.dest.index()] += c;
                    w[a.index()] += c;
                }
            }
        }
        for inst in &data.insts {
            if let Some(d) = inst.dest {
                w[d.index()] += cost(depth[b]);
            }
            inst.op.for_each_arg(|a| w[a.index()] += cost(depth[b]));
        }
        if let Some(a) = data.term.arg() {
            w[a.index()] += cost(depth[b]);
        }
    }
    w
}

/// The weights of Fig. 6 with the live-range sizes `sizes` (points after
/// which the value is in a register): [`weight_sums`] divided by the size,
/// for `spill_during_coloring.rs`, which sizes live ranges itself.
pub(crate) fn weights(f: &Function, depth: &EntityVec<Block, u32>, sizes: &[usize]) -> Vec<f64> {
    let mut w = weight_sums(f, depth);
    for (i, x) in w.iter_mut().enumerate() {
        *x /= sizes.get(i).copied().unwrap_or(0).max(1) as f64;
    }
    w
}

/// What the rounds of [`find_overloads`] share: the weight sums, the size
/// of each live range (the number of points after which the value is in a
/// register) and each block's overloaded points, kept up to date block by
/// block. A spill changes only the blocks where its value is live or
/// mentioned (`blocks_of`), so a round recomputes those, not the whole
/// function (which would make spilling quadratic).
struct Rounds {
    sums: Vec<f64>,
    sizes: Vec<usize>,
    /// Each block's share of `sizes`.
    share: EntityVec<Block, Vec<(Value, usize)>>,
    /// The walk of each block with an overloaded point (`block_demand.rs`).
    overloaded: EntityVec<Block, Option<BlockDemand>>,
    /// The largest demand at a point of each block, as of its last refresh.
    block_max: EntityVec<Block, usize>,
    /// For each value of the input, the blocks where it is live in, live
    /// out or mentioned, in block order.
    blocks_of: Vec<Vec<Block>>,
    /// The reloads of the values spilled (`spill_code.rs`).
    code: SpillCode,
    /// The calls of [`Rounds::spill_all`] so far, for the sampling of the
    /// self-checks.
    updates: u64,
}

impl Rounds {
    fn new(f: &Function, live: &Liveness, depth: &EntityVec<Block, u32>, spilled: &EntitySet<Value>, k: usize) -> Self {
        let n = f.value_count as usize;
        let mut blocks_of: Vec<Vec<Block>> = vec![Vec::new(); n];
        for (b, data) in f.blocks.iter() {
            let note = |v: Value, list: &mut Vec<Vec<Block>>| {
                if let Some(l) = list.get_mut(v.index()) {
                    if l.last() != Some(&b) {
                        l.push(b);
                    }
                }
            };
            for v in live.live_in[b].iter().chain(live.live_out[b].iter()) {
                note(v, &mut blocks_of);
            }
            for phi in &data.phis {
                note(phi.dest, &mut blocks_of);
                phi.args.iter().for_each(|&a| note(a, &mut blocks_of));
            }
            for inst in &data.insts {
                inst.op.for_each_arg(|a| note(a, &mut blocks_of));
                if let Some(d) = inst.dest {
                    note(d, &mut blocks_of);
                }
            }
            if let Some(a) = data.term.arg() {
                note(a, &mut blocks_of);
            }
        }
        let nb = f.blocks.len();
        let mut rounds = Rounds {
            sums: weight_sums(f, depth),
            sizes: vec![0; n],
            share: EntityVec::from_elem(Vec::new(), nb),
            overloaded: EntityVec::from_elem(None, nb),
            block_max: EntityVec::from_elem(0, nb),
            blocks_of,
            code: SpillCode::new(f),
            updates: 0,
        };
        for b in f.blocks.keys() {
            rounds.refresh(f, b, live, spilled, k);
        }
        rounds
    }

    /// Recomputes the demand of `b` and its share of the live-range sizes,
    /// by one walk of the block (not a set per point).
    fn refresh(&mut self, f: &Function, b: Block, live: &Liveness, spilled: &EntitySet<Value>, k: usize) {
        for &(v, c) in &self.share[b] {
            self.sizes[v.index()] -= c;
        }
        let walk = BlockDemand::compute(f, b, &live.live_out[b], spilled, k);
        let mut share: Vec<(Value, usize)> = walk.runs().into_iter().map(|(v, _, len)| (v, len)).collect();
        let max = walk.max_demand();
        let over = (max > k).then_some(walk);
        share.sort_unstable();
        share.dedup_by(|later, first| {
            let same = later.0 == first.0;
            if same {
                first.1 += later.1;
            }
            same
        });
        if self.sizes.len() < f.value_count as usize {
            self.sizes.resize(f.value_count as usize, 0);
        }
        for &(v, c) in &share {
            self.sizes[v.index()] += c;
        }
        self.share[b] = share;
        self.overloaded[b] = over;
        self.block_max[b] = max;
    }

    /// Spills `values` (values of the input) and refreshes the blocks they
    /// change.
    fn spill_all(
        &mut self,
        f: &mut Function,
        values: &[Value],
        live: &Liveness,
        spilled: &mut EntitySet<Value>,
        reloads: &mut EntitySet<Value>,
        k: usize,
    ) {
        let mut dirty: Vec<Block> = Vec::new();
        self.code.spill(f, values, spilled, reloads);
        self.code.flush_all(f);
        for &v in values {
            dirty.extend(&self.blocks_of[v.index()]);
        }
        dirty.sort_unstable();
        dirty.dedup();
        for b in dirty {
            self.refresh(f, b, live, spilled, k);
        }
        self.updates += 1;
        if self_checks::in_checked_pass() && sampled_round(self.updates) {
            self.check_against_recomputation(f, live, spilled, k);
            check_liveness_unchanged(f, live);
        }
    }

    fn weight(&self, v: Value) -> f64 {
        self.sums.get(v.index()).copied().unwrap_or(0.0) / self.sizes.get(v.index()).copied().unwrap_or(0).max(1) as f64
    }
}

/// Spills until the register demand is at most `opts.k` everywhere.
pub fn spill(f: &mut Function, opts: &SpillOptions) -> Result<SpillResult, SpillError> {
    spill_with_memory(f, opts, &[])
}

/// [`spill`], with the values of `memory` in memory from the start: the
/// stack arguments of calls and stack parameters (`call_constraints.rs`), each a
/// phi result or parameter read only where memory serves (by its call),
/// so that they get no reload.
pub fn spill_with_memory(f: &mut Function, opts: &SpillOptions, memory: &[Value]) -> Result<SpillResult, SpillError> {
    assert!(opts.k >= 2, "the machine model has at least 2 registers");
    let depth = loop_depth(f);
    let mut spilled: EntitySet<Value> = EntitySet::with_capacity(f.value_count as usize);
    for &v in memory {
        spilled.insert(v);
    }
    let mut reloads: EntitySet<Value> = EntitySet::with_capacity(f.value_count as usize);
    let mut lowered = Vec::new();
    // Bounded: each round spills one more value, and there are finitely many.
    let mut lowering_done = false;
    // Computed once: spilling never changes a block's live-in or live-out
    // set (module documentation, "Liveness").
    let live = compute_liveness(f);
    let mut rounds = Rounds::new(f, &live, &depth, &spilled, opts.k);
    loop {
        let decided = find_overloads(f, &rounds, &live, &spilled, &reloads, opts.k);
        if self_checks::in_checked_pass() && sampled_round(rounds.updates + 1) {
            let again = find_overloads_by_points(f, &rounds, &live, &spilled, &reloads, opts.k);
            assert!(
                again == decided,
                "self-check of the spiller: round {} chose {decided:?} by the walk, {again:?} by the points",
                rounds.updates + 1
            );
        }
        match decided {
            Ok(chosen) if !chosen.is_empty() => {
                rounds.spill_all(f, &chosen, &live, &mut spilled, &mut reloads, opts.k);
                continue;
            }
            Ok(_) => {}
            Err(e) => return Err(e),
        }
        if opts.load_lowering && !lowering_done {
            lowering_done = true;
            let before = lowered.len();
            let candidates = lowering_candidates(f, &spilled);
            rounds.spill_all(f, &candidates, &live, &mut spilled, &mut reloads, opts.k);
            lowered.extend(candidates);
            if lowered.len() > before {
                continue;
            }
        }
        break;
    }
    if opts.recycle_reloads {
        // Recycling changes only the blocks where it merged reloads.
        for b in recycle_reloads(f, &live, &spilled, &mut reloads, opts.k) {
            rounds.refresh(f, b, &live, &spilled, opts.k);
        }
    }
    // Every block was refreshed after its last change, so the largest
    // demand is the largest of the blocks'.
    let max_demand = rounds.block_max.values().copied().max().unwrap_or(0);
    if crate::pass_manager::self_checks::in_checked_pass() {
        // The same demand, recounted over the whole function.
        let recount = f
            .blocks
            .keys()
            .flat_map(|b| block_points(f, b, &live.live_out[b], &spilled, opts.k))
            .map(|p| p.demand)
            .max()
            .unwrap_or(0);
        if recount != max_demand {
            return Err(SpillError::RecountDiffers { recount, incremental: max_demand });
        }
    }
    if self_checks::in_checked_pass() {
        check_liveness_unchanged(f, &live);
    }
    if max_demand > opts.k {
        return Err(SpillError::DemandAboveK { demand: max_demand, k: opts.k });
    }
    Ok(SpillResult { spilled, reloads, lowered, max_demand })
}

/// One round of spill decisions: for each overloaded point, in order, the
/// least-weight value live through it, unless a value chosen earlier in the
/// round is already live through it (spilling that one lowers the demand
/// there too).
///
/// Each block with an overloaded point is walked once in program order
/// (`block_demand.rs`), with the values live after the current point that
/// may be chosen in an ordered set by weight, so that a point's choice
/// costs `O(log live)`, not a scan of everything live through it.
fn find_overloads(
    f: &Function,
    rounds: &Rounds,
    live: &Liveness,
    spilled: &EntitySet<Value>,
    reloads: &EntitySet<Value>,
    k: usize,
) -> Result<Vec<Value>, SpillError> {
    let mut chosen: Vec<Value> = Vec::new();
    let mut is_chosen: FxHashSet<Value> = FxHashSet::default();
    let eligible = |v: Value| !reloads.contains(v) && !spilled.contains(v);
    let key = |v: Value| Candidate(rounds.weight(v), v);
    for b in f.blocks.keys() {
        let Some(walk) = &rounds.overloaded[b] else { continue };
        let data = &f.blocks[b];
        let mut after: FxHashSet<Value> = walk.start_after.iter().copied().collect();
        let mut chosen_live = walk.start_after.iter().filter(|v| is_chosen.contains(v)).count();
        let mut open: BTreeSet<Candidate> =
            walk.start_after.iter().filter(|&&v| eligible(v) && !is_chosen.contains(&v)).map(|&v| key(v)).collect();
        for p in 0..walk.points() {
            for &v in walk.leaves(p) {
                after.remove(&v);
                if is_chosen.contains(&v) {
                    chosen_live -= 1;
                } else if eligible(v) {
                    open.remove(&key(v));
                }
            }
            if let Some(v) = walk.enters(p) {
                after.insert(v);
                if is_chosen.contains(&v) {
                    chosen_live += 1;
                } else if eligible(v) {
                    open.insert(key(v));
                }
            }
            if walk.demand[p] <= k {
                continue;
            }
            // Live through the point: live after it, except its operands
            // and its result unless that is also live before it.
            let site = PointSite::of(data, p, spilled);
            let excluded = site.chosen_not_through(|v| is_chosen.contains(v), &after);
            if walk.demand[p].saturating_sub(chosen_live - excluded) <= k {
                continue;
            }
            // An operand that stays live after the instruction may go too:
            // its reload dies at the instruction. Other values are
            // preferred, since spilling an operand does not lower the demand
            // just before it.
            let candidate = open
                .iter()
                .map(|c| c.1)
                .find(|&v| site.passes_through(v))
                .or_else(|| site.operand_to_spill(&after, |v| eligible(v) && !is_chosen.contains(&v), key));
            match candidate {
                Some(v) => {
                    open.remove(&key(v));
                    chosen.push(v);
                    is_chosen.insert(v);
                    chosen_live += 1;
                }
                None if chosen.is_empty() => {
                    return Err(block_points(f, b, &live.live_out[b], spilled, k)[p].nothing_to_spill(b, k));
                }
                // Values chosen earlier in the round may relieve it; the
                // next round will tell.
                None => {}
            }
        }
    }
    Ok(chosen)
}

/// The self-check of [`find_overloads`]: the same round decided by a scan
/// of the live-through values of every overloaded point, as `block_points`
/// materializes them.
fn find_overloads_by_points(
    f: &Function,
    rounds: &Rounds,
    live: &Liveness,
    spilled: &EntitySet<Value>,
    reloads: &EntitySet<Value>,
    k: usize,
) -> Result<Vec<Value>, SpillError> {
    self_checks::count();
    let points: Vec<(Block, Point)> = f
        .blocks
        .keys()
        .flat_map(|b| block_points(f, b, &live.live_out[b], spilled, k).into_iter().map(move |p| (b, p)))
        .filter(|(_, p)| p.demand > k)
        .collect();
    let overloaded = points.iter().map(|(b, p)| (*b, p));
    let mut chosen: Vec<Value> = Vec::new();
    let mut is_chosen: EntitySet<Value> = EntitySet::with_capacity(f.value_count as usize);
    for (b, point) in overloaded {
        let data = &f.blocks[b];
        let (operands, defined, through) = point.candidates(data);
        let relieved = through.iter().filter(|v| is_chosen.contains(**v) && !operands.contains(v)).count();
        if point.demand.saturating_sub(relieved) <= k {
            continue;
        }
        // An operand that stays live after the instruction may go too: its
        // reload dies at the instruction. Other values are preferred, since
        // spilling an operand does not lower the demand just before it.
        let candidate = through
            .into_iter()
            .filter(|v| {
                Some(*v) != defined && !reloads.contains(*v) && !spilled.contains(*v) && !is_chosen.contains(*v)
            })
            .min_by(|a, b| {
                (operands.contains(a), rounds.weight(*a))
                    .partial_cmp(&(operands.contains(b), rounds.weight(*b)))
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(a.cmp(b))
            });
        match candidate {
            Some(v) => {
                chosen.push(v);
                is_chosen.insert(v);
            }
            None if chosen.is_empty() => return Err(point.nothing_to_spill(b, k)),
            // Values chosen earlier in the round may relieve it; the next
            // round will tell.
            None => {}
        }
    }
    Ok(chosen)
}

/// Load lowering (§6.2): phi results, not spilled, that would need more
/// loads on their incoming edges (arguments in memory) than they have uses.
pub(crate) fn lowering_candidates(f: &Function, spilled: &EntitySet<Value>) -> Vec<Value> {
    let mut uses = vec![0usize; f.value_count as usize];
    for data in f.blocks.values() {
        for inst in &data.insts {
            inst.op.for_each_arg(|a| uses[a.index()] += 1);
        }
        if let Some(a) = data.term.arg() {
            uses[a.index()] += 1;
        }
    }
    let mut out = Vec::new();
    for data in f.blocks.values() {
        for phi in &data.phis {
            if spilled.contains(phi.dest) {
                continue;
            }
            let loads = phi.args.iter().filter(|a| spilled.contains(**a)).count();
            if loads > uses[phi.dest.index()] {
                out.push(phi.dest);
            }
        }
    }
    out
}

/// Whether the self-checks of [`Rounds`] run after its `n`-th update (from
/// 1): the first eight, then the powers of two (every one in the library's
/// unit tests). A state that goes stale stays stale until its block is
/// refreshed again, so the sampled checks still see most stale entries,
/// and a spill of `r` rounds pays for about `8 + log r` recomputations.
pub(crate) fn sampled_round(n: u64) -> bool {
    cfg!(test) || n <= 8 || n.is_power_of_two()
}

impl Rounds {
    /// The self-check of the state kept up to date block by block: every
    /// block's points recomputed, its share of the live-range sizes and its
    /// overloaded points compared with those kept, and the sizes with the
    /// sums of the recomputed shares. Panics on the first difference.
    fn check_against_recomputation(&self, f: &Function, live: &Liveness, spilled: &EntitySet<Value>, k: usize) {
        self_checks::count();
        let mut sizes: Vec<usize> = vec![0; self.sizes.len().max(f.value_count as usize)];
        for b in f.blocks.keys() {
            let points = block_points(f, b, &live.live_out[b], spilled, k);
            let mut share: Vec<(Value, usize)> = Vec::new();
            for p in &points {
                for &v in &p.after {
                    match share.iter_mut().find(|(w, _)| *w == v) {
                        Some(e) => e.1 += 1,
                        None => share.push((v, 1)),
                    }
                    sizes[v.index()] += 1;
                }
            }
            share.sort_unstable();
            assert!(
                share == self.share[b],
                "self-check of the spiller: the live-range shares of {b} are stale after round {}",
                self.updates
            );
            // The walk kept for a block with an overloaded point, none for
            // the others.
            let max = points.iter().map(|p| p.demand).max().unwrap_or(0);
            match &self.overloaded[b] {
                Some(walk) => check_block_demand(walk, f, b, &live.live_out[b], spilled, &FxHashSet::default(), k),
                None => assert!(
                    max <= k,
                    "self-check of the spiller: {b} has demand {max} > K but no walk kept after round {}",
                    self.updates
                ),
            }
            assert!(
                self.block_max[b] == max,
                "self-check of the spiller: the largest demand of {b} is held as {} but is {max} after round {}",
                self.block_max[b],
                self.updates
            );
        }
        for (i, &n) in sizes.iter().enumerate() {
            let held = self.sizes.get(i).copied().unwrap_or(0);
            assert!(
                held == n,
                "self-check of the spiller: the live range of v{i} is held as {held} points but has {n} after round {}",
                self.updates
            );
        }
    }
}

/// The self-check of the liveness the spiller computed once and kept
/// ("Liveness" in the module documentation): the live-in and live-out sets
/// of the function as it is now, by the iterative data flow (not the
/// per-value walk that computed `live`), must be those kept. Panics on the
/// first difference.
fn check_liveness_unchanged(f: &Function, live: &Liveness) {
    self_checks::count();
    let now = compute_liveness_dataflow(f);
    for b in f.blocks.keys() {
        assert!(
            now.live_in[b] == live.live_in[b] && now.live_out[b] == live.live_out[b],
            "self-check of the spiller: the liveness computed before spilling is stale at {b}"
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::backend::ssa_ra::allocate_function;
    use crate::construction::braun::{construct_program, BraunOptions};
    use crate::generate::source::{GenConfig, TestCase};
    use crate::pass_manager::flags::Flags;
    use crate::pass_manager::runner::Unobserved;
    use crate::pass_manager::self_checks;
    use crate::ssa_ra::regalloc::RegallocOptions;

    /// The spiller's rounds one at a time, as ssa-ra runs them on generated
    /// functions at small K, with either spilling strategy: after every round (unit tests check each one,
    /// see `sampled_round`), the weights, live-range sizes and overloaded
    /// points kept block by block are compared with their recomputation,
    /// and the liveness computed before spilling with the liveness of the
    /// function as it is then.
    #[test]
    fn spill_state_matches_its_recomputation_after_every_round() {
        let before = self_checks::invocations();
        self_checks::with_flags(Flags::checked(), || {
            for seed in 0..25u64 {
                let tc = TestCase::from_seed(seed, &GenConfig::default());
                let module = construct_program(&tc.program, &BraunOptions::all_on());
                for f in &module.functions {
                    for k in [2, 3, 5] {
                        // The separate spilling pass (its rounds) and spilling
                        // during coloring (its deductions).
                        for spill_during_coloring in [false, true] {
                            let opts = RegallocOptions { spill_during_coloring, ..RegallocOptions::with_k(k) };
                            allocate_function(f, &opts, Flags::checked(), &mut Unobserved).expect("ssa-ra allocates");
                        }
                    }
                }
            }
        });
        let checks = self_checks::invocations() - before;
        assert!(checks >= 500, "{checks} checks ran");
    }

    /// The summaries of `check_block_demand` are those of `block_points`'
    /// sets at every point of generated functions, with and without spilled
    /// values; a walk with one value too few after the block start is
    /// rejected.
    #[test]
    fn point_summaries_are_block_points_and_a_wrong_walk_is_rejected() {
        use super::{block_points, BlockDemand};
        use crate::analysis::liveness::compute_liveness;
        use crate::analysis::set_fingerprint::SetSummary;
        use crate::entity::{EntityRef, EntitySet};
        use crate::ir::Value;
        use crate::ssa_ra::block_demand_check::{check_block_demand, point_summaries};
        use rustc_hash::FxHashSet;
        let mut rejected = 0;
        for seed in 0..20u64 {
            let tc = TestCase::from_seed(seed, &GenConfig::default());
            let module = construct_program(&tc.program, &BraunOptions::all_on());
            for f in &module.functions {
                let live = compute_liveness(f);
                let mut spilled = EntitySet::with_capacity(f.value_count as usize);
                for v in (0..f.value_count as usize).step_by(3) {
                    spilled.insert(Value::new(v));
                }
                for none in [true, false] {
                    let spilled = if none { EntitySet::with_capacity(f.value_count as usize) } else { spilled.clone() };
                    for b in f.blocks.keys() {
                        // K = 6 makes the divisions fixed, so their clobber counts.
                        let k = 6;
                        let (out, reference) =
                            (&live.live_out[b], point_summaries(f, b, &live.live_out[b], &spilled, k));
                        let points = block_points(f, b, out, &spilled, k);
                        let want: Vec<_> =
                            points.iter().map(|p| (p.demand, SetSummary::of(p.after.iter().copied()))).collect();
                        assert_eq!(reference, want, "{b} of seed {seed}");
                        let mut walk = BlockDemand::compute(f, b, out, &spilled, k);
                        check_block_demand(&walk, f, b, out, &spilled, &FxHashSet::default(), k);
                        if walk.start_after.pop().is_some() {
                            let wrong = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                check_block_demand(&walk, f, b, out, &spilled, &FxHashSet::default(), k)
                            }));
                            assert!(wrong.is_err(), "a walk missing a value at the start of {b} passes");
                            rejected += 1;
                        }
                    }
                }
            }
        }
        assert!(rejected >= 20, "{rejected} wrong walks tried");
    }
}
