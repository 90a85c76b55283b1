//! Spill decisions made during the coloring walk, after Pereira, "The
//! Design and Implementation of a SSA-based Register Allocator", §4.5 ("The
//! Spilling Heuristics": "If, at any point in the dominance tree, the
//! number of live ranges is larger than the number of available physical
//! registers, then some virtual must be spilled. [...] We decide which
//! variables should be spilled during the coloring phase"), with the weights
//! of Fig. 6 (`ComputeWeight`) and their change during the walk: "The weight
//! of a variable can change during the color assignment phase. As we show
//! in Section 4.6, it is beneficial to deduct from the weight of a variable
//! defined by a ϕ-function the contribution of the parameters that have
//! been already spilled." Spill code as in §4.7 (one store after the
//! definition, a reload before each use, reloads recycled inside a block),
//! and load lowering of Pereira and Palsberg §6.2.
//!
//! Input and output as for `spill.rs`, whose model (register demand,
//! [`block_points`], reloads, frugal slots) this pass shares: a CSSA
//! function without critical edges in, the same function with spilled
//! values and reloads out, with a register demand of at most K at every
//! point. ssa-ra takes it when `RegallocOptions::spill_during_coloring` is
//! set (`regalloc.rs`); `spill.rs` is the other strategy, a separate pass
//! before coloring, which decides in rounds over the whole function, in
//! block order, with the weights of Fig. 6 fixed.
//!
//! # The walk
//!
//! The blocks are visited in the order of the coloring (`coloring.rs`):
//! dominator-tree pre-order, each block's points in order. At a point whose
//! register demand exceeds K, the values that hold a register there are
//! exactly the register-resident values live at it; one of those live
//! *through* the point (not its operand or result, not a reload) with the
//! least current weight is spilled, an operand that stays live after the
//! point only if nothing else can go (its reload dies at the point, so
//! spilling it does not lower the demand just before it). Spilling a value
//! decides it everywhere: it is stored after its definition and reloaded
//! before every use (`spill_code.rs`), in the blocks already visited
//! as in those to come. Neither raises the demand anywhere: a reload takes
//! the place of the value it reloads, at a point where that value was
//! live.
//!
//! **The §4.6 deduction.** Each value's weight is Fig. 6's sum over its
//! definition and uses of `1 + 10^depth` (a phi argument at the depth of
//! its predecessor), divided by the size of its live range (the points it
//! is live after), computed once (`spill::weights`). When a value `a` is
//! spilled, every phi `v = φ(..., a : B, ...)` with `v ≠ a` has the term
//! `1 + 10^depth(B)` that `a` contributed deducted from `v`'s sum: with `a`
//! in memory, keeping `v` in a register costs a load on that edge, while
//! spilling `v` too costs nothing there (one slot per phi-congruence class,
//! the "m ← m: do nothing" row of §4.6's table of safe copies). So a phi
//! result whose parameters are in memory is spilled more readily.
//!
//! # Cost
//!
//! One liveness analysis: spilling keeps the live-in and live-out sets of
//! every block (a reload is defined and used in one block, and a spilled
//! value is still read in the same blocks), so they are never recomputed,
//! unlike `spill.rs`'s rounds. The live-range sizes of Fig. 6 come from one
//! walk per block (`block_demand.rs`), in `O(|B| + |live_out|)`, not from
//! the values live at each point.
//!
//! Inside a block, the decisions are made in rounds (a round decides every
//! overloaded point of the block that the values chosen earlier in the
//! round do not relieve; see Departures). The block's *through* values
//! (live out, mentioned nowhere in it, so live at every point) are set
//! apart once, in an ordered set by weight that the rounds share; a round
//! walks the block once in program order (`block_demand.rs`), keeping the
//! other values live after the current point in a second ordered set, so
//! that a point's least-weight value is found in `O(log live)`, and a
//! §4.6 deduction re-keys the phi results it changes. A block costs
//! `O((|B| + |live_out|) · log live)` for its first round and
//! `O(|B| · log live)` for each further one; the rounds of a block number
//! at most one more than the values it spills, and far fewer when the
//! block has many overloaded points. The reloads are numbered when their
//! value is spilled and placed block by block, each block rebuilt once
//! when the walk reaches it (`spill_code.rs`). The whole pass is thus
//! linear in the function's size and in `Σ_B |live_in| + |live_out|` (up
//! to the logarithm), never in the sum over the points of the values live
//! there, which is quadratic when many values are live through a long
//! block (`ssaref gen --shape params`).
//!
//! # Departures from the paper
//!
//! - The registers themselves are chosen by `coloring.rs` after this walk,
//!   in a second walk in the same order, not in this one. The decisions do
//!   not depend on which register a value holds, only on which values hold
//!   one (the register-resident values live at the point), so they are the
//!   decisions a single walk would make; keeping one assignment pass keeps
//!   the coalescing heuristics (`ComputePreference`) and the chordal
//!   optimality argument (`proofs-notes/register-assignment.md`) in one
//!   place.
//! - Inside a block, the decisions at its overloaded points are made in
//!   rounds: a point already relieved by a value chosen earlier
//!   in the round takes no further value, as if the walk had reached it
//!   after that spill, but the points are recounted only between rounds.
//! - A value chosen at a point is spilled entirely, from its definition on
//!   (the paper's spill: "each use of v is replaced by a fresh virtual v'"),
//!   not split at the point.
//! - Only phi results get the deduction, as the paper says; a phi argument
//!   whose phi result is already spilled keeps its full weight.
//! - Load lowering (Pereira and Palsberg §6.2) runs after the walk, on the
//!   phis whose result is still in a register, as in `spill.rs`.
//! - Fig. 6's `10^L` is capped at `L = 8` (as in `spill.rs`), so that the
//!   weights of deep loops stay finite and comparable.

use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::{compute_liveness, compute_liveness_dataflow, Liveness};
use crate::analysis::loops::loop_depth;
use crate::entity::{EntityRef, EntitySet, EntityVec, SparseSet};
use crate::ir::{Block, Function, Value};
use crate::pass_manager::self_checks;
use crate::ssa_ra::block_demand::{BlockDemand, Candidate, Frame, PointSite};
use crate::ssa_ra::block_demand_check::check_block_demand;
use crate::ssa_ra::spill::{
    block_points, lowering_candidates, recycle_reloads, sampled_round, weights, SpillError, SpillResult,
};
use crate::ssa_ra::spill_code::SpillCode;
use rustc_hash::FxHashSet;
use std::cmp::Ordering;
use std::collections::BTreeSet;

/// What the pass may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpillDuringColoringOptions {
    /// Number of registers.
    pub k: usize,
    /// Load lowering (Pereira and Palsberg §6.2), after the walk.
    pub load_lowering: bool,
    /// Recycle reloads inside a block (§4.7).
    pub recycle_reloads: bool,
    /// Deduct the spilled parameters' terms from a phi result's weight
    /// (§4.5, §4.6). Always on in ssa-ra; off only to show what it changes.
    pub phi_weight_deduction: bool,
}

impl SpillDuringColoringOptions {
    /// Everything on, with `k` registers.
    pub fn with_k(k: usize) -> Self {
        SpillDuringColoringOptions { k, load_lowering: true, recycle_reloads: true, phi_weight_deduction: true }
    }
}

/// Fig. 6's term for one definition or use at loop depth `depth`: `1 +
/// 10^depth`, capped as in `spill::weights`.
fn term(depth: u32) -> f64 {
    1.0 + 10f64.powi(depth.min(8) as i32)
}

/// The weights of Fig. 6 and how spills change them.
#[derive(Clone)]
struct Weights {
    /// `ComputeWeight` of every value of the input, before any spill.
    initial: Vec<f64>,
    /// The size of each value's live range (points it is live after).
    sizes: Vec<usize>,
    /// The terms deducted so far from each value's sum (§4.6).
    deducted: Vec<f64>,
    /// For each value, the phis it is a parameter of: (phi result, the
    /// term of that parameter).
    phi_uses: Vec<Vec<(Value, f64)>>,
}

impl Weights {
    fn compute(f: &Function, depth: &EntityVec<Block, u32>, live: &Liveness, k: usize) -> Weights {
        let n = f.value_count as usize;
        let none = EntitySet::with_capacity(n);
        let mut sizes = vec![0usize; n];
        for (i, b) in f.blocks.keys().enumerate() {
            let walk = BlockDemand::compute(f, b, &live.live_out[b], &none, k);
            if self_checks::in_checked_pass() && sampled_round(i as u64 + 1) {
                check_block_demand(&walk, f, b, &live.live_out[b], &none, &FxHashSet::default(), k);
            }
            for (v, _, len) in walk.runs() {
                sizes[v.index()] += len;
            }
        }
        let mut phi_uses = vec![Vec::new(); n];
        for data in f.blocks.values() {
            for phi in &data.phis {
                for (i, &a) in phi.args.iter().enumerate() {
                    if a != phi.dest {
                        phi_uses[a.index()].push((phi.dest, term(depth[data.preds[i]])));
                    }
                }
            }
        }
        Weights { initial: weights(f, depth, &sizes), sizes, deducted: vec![0.0; n], phi_uses }
    }

    /// The weight of `v` now (a value of the input).
    fn current(&self, v: Value) -> f64 {
        let i = v.index();
        self.initial[i] - self.deducted[i] / self.sizes[i].max(1) as f64
    }

    /// `a` was spilled: deduct its terms from the phis it feeds. `rekey`
    /// is told each phi result before its weight changes and after.
    fn spilled(&mut self, a: Value, mut rekey: impl FnMut(Value, &Weights, bool)) {
        for k in 0..self.phi_uses.get(a.index()).map_or(0, |l| l.len()) {
            let (v, t) = self.phi_uses[a.index()][k];
            rekey(v, self, false);
            self.deducted[v.index()] += t;
            rekey(v, self, true);
        }
    }
}

/// What the walk decided, for tests: the values spilled, in the order they
/// were chosen, each with the block where the walk chose it.
pub type Decisions = Vec<(Value, Block)>;

/// Spills during the coloring walk until the register demand is at most
/// `opts.k` everywhere (see the module documentation).
pub fn spill_during_coloring(f: &mut Function, opts: &SpillDuringColoringOptions) -> Result<SpillResult, SpillError> {
    walk_with_memory(f, opts, &[]).map(|(r, _)| r)
}

/// [`spill_during_coloring`], with the values of `memory` in memory from
/// the start (`spill::spill_with_memory`).
pub fn spill_during_coloring_with_memory(
    f: &mut Function,
    opts: &SpillDuringColoringOptions,
    memory: &[Value],
) -> Result<SpillResult, SpillError> {
    walk_with_memory(f, opts, memory).map(|(r, _)| r)
}

/// [`spill_during_coloring`], also returning the walk's decisions in order.
pub fn spill_during_coloring_with_decisions(
    f: &mut Function,
    opts: &SpillDuringColoringOptions,
) -> Result<(SpillResult, Decisions), SpillError> {
    walk_with_memory(f, opts, &[])
}

/// [`spill_during_coloring_with_memory`], also returning the walk's
/// decisions in order.
fn walk_with_memory(
    f: &mut Function,
    opts: &SpillDuringColoringOptions,
    memory: &[Value],
) -> Result<(SpillResult, Decisions), SpillError> {
    if opts.k < 2 {
        return Err(SpillError::TooFewRegisters { k: opts.k });
    }
    let depth = loop_depth(f);
    // Valid for the whole walk: spilling keeps every block's live-in and
    // live-out sets (see the module documentation).
    let live = compute_liveness(f);
    let mut st = WalkState::start(f, &depth, &live, opts, memory);
    let dom = DomTree::compute(f);
    let mut code = SpillCode::new(f);
    let mut decisions: Decisions = Vec::new();
    for (n, &b) in dom.preorder.iter().enumerate() {
        // The reloads of the values spilled in the blocks before, which
        // the demand of `b` counts.
        code.flush_block(f, b);
        let mut through = Through::new(f, b, &live.live_out[b], &st);
        loop {
            // The state before the round, for the self-check of its
            // decisions (sampled as the walk's own check).
            let before = (self_checks::in_checked_pass() && sampled_round(st.walks + 1)).then(|| st.clone());
            let chosen = decide_block(f, b, &live.live_out[b], &mut through, &mut st, opts)?;
            if let Some(before) = before {
                check_decisions(f, b, &live.live_out[b], before, &st, &chosen, opts);
            }
            if chosen.is_empty() {
                break;
            }
            code.spill(f, &chosen, &mut st.spilled, &mut st.reloads);
            code.flush_block(f, b);
            through.count -= chosen.iter().filter(|v| through.frame.through.contains(v)).count();
            decisions.extend(chosen.iter().map(|&v| (v, b)));
        }
        if self_checks::in_checked_pass() && (cfg!(test) || n < 8 || (n + 1).is_power_of_two()) {
            check_deductions(f, &depth, &st, opts);
        }
    }
    code.flush_all(f);
    if self_checks::in_checked_pass() {
        check_liveness_kept(f, &live);
    }
    let WalkState { mut spilled, mut reloads, .. } = st;
    let mut lowered = Vec::new();
    if opts.load_lowering {
        let candidates = lowering_candidates(f, &spilled);
        code.spill(f, &candidates, &mut spilled, &mut reloads);
        code.flush_all(f);
        lowered.extend(candidates);
    }
    if opts.recycle_reloads {
        // The liveness `recycle_reloads` reads, of the function as spilled.
        let live = compute_liveness(f);
        recycle_reloads(f, &live, &spilled, &mut reloads, opts.k);
    }
    let live = compute_liveness(f);
    let mut max_demand = 0;
    for (i, b) in f.blocks.keys().enumerate() {
        let walk = BlockDemand::compute(f, b, &live.live_out[b], &spilled, opts.k);
        if self_checks::in_checked_pass() && sampled_round(i as u64 + 1) {
            check_block_demand(&walk, f, b, &live.live_out[b], &spilled, &FxHashSet::default(), opts.k);
        }
        max_demand = max_demand.max(walk.max_demand());
    }
    if max_demand > opts.k {
        return Err(SpillError::DemandAboveKDuringColoring { demand: max_demand, k: opts.k });
    }
    Ok((SpillResult { spilled, reloads, lowered, max_demand }, decisions))
}

impl WalkState {
    /// The state before the walk, with the values of `memory` spilled
    /// (they feed their phis as spilled values, for the §4.6 deduction).
    fn start(
        f: &Function,
        depth: &EntityVec<Block, u32>,
        live: &Liveness,
        opts: &SpillDuringColoringOptions,
        memory: &[Value],
    ) -> WalkState {
        let original = f.value_count as usize;
        let mut st = WalkState {
            weights: Weights::compute(f, depth, live, opts.k),
            spilled: EntitySet::with_capacity(original),
            reloads: EntitySet::with_capacity(original),
            original,
            walks: 0,
        };
        for &v in memory {
            st.spilled.insert(v);
            if opts.phi_weight_deduction {
                st.weights.spilled(v, |_, _, _| {});
            }
        }
        st
    }
}

/// The walk's state: the weights, what is spilled, the reloads inserted.
#[derive(Clone)]
struct WalkState {
    weights: Weights,
    spilled: EntitySet<Value>,
    reloads: EntitySet<Value>,
    /// Values numbered from here on are reloads.
    original: usize,
    /// The blocks walked so far, for the sampling of the self-checks.
    walks: u64,
}

impl WalkState {
    /// Whether `v` may be chosen: a value of the input, not a reload, not
    /// spilled.
    fn eligible(&self, v: Value) -> bool {
        v.index() < self.original && !self.reloads.contains(v) && !self.spilled.contains(v)
    }

    /// The key of `v` among the candidates of a point.
    fn key(&self, v: Value) -> Candidate {
        Candidate(self.weights.current(v), v)
    }
}

/// The values live through the block being decided and mentioned nowhere
/// in it, kept from one round of decisions to the next: they are live at
/// every point, so a round needs only their number and the one of least
/// weight, and a spill removes one for good (module documentation, Cost).
struct Through {
    frame: Frame,
    /// How many of them are register-resident.
    count: usize,
    /// Those that may be chosen, by current weight.
    open: BTreeSet<Candidate>,
}

impl Through {
    fn new(f: &Function, b: Block, live_out: &SparseSet<Value>, st: &WalkState) -> Through {
        let frame = Frame::split(f, b, live_out, &st.spilled);
        let count = frame.through.len();
        let open = frame.through.iter().filter(|&&v| st.eligible(v)).map(|&v| st.key(v)).collect();
        Through { frame, count, open }
    }
}

/// One round of decisions in block `b`: for each point whose demand exceeds
/// K, in order, unless a value chosen earlier in the round is live through
/// it, the resident value live through it of least current weight (see the
/// module documentation). The weights are updated as values are chosen.
///
/// One walk in program order over the block's [`BlockDemand`]: the values
/// live after the current point are kept in a set, and those that may be
/// chosen, in an ordered set by current weight (re-keyed when a deduction
/// changes a weight), so that a point's choice costs `O(log live)`
/// instead of a scan of everything live through it.
fn decide_block(
    f: &Function,
    b: Block,
    live_out: &SparseSet<Value>,
    through: &mut Through,
    st: &mut WalkState,
    opts: &SpillDuringColoringOptions,
) -> Result<Vec<Value>, SpillError> {
    let k = opts.k;
    let data = &f.blocks[b];
    let walk = BlockDemand::compute_in(f, b, &through.frame, through.count, &st.spilled, k);
    st.walks += 1;
    if self_checks::in_checked_pass() && sampled_round(st.walks) {
        check_block_demand(&walk, f, b, live_out, &st.spilled, &through.frame.through, k);
    }
    if walk.max_demand() <= k {
        return Ok(Vec::new());
    }
    let mut round = Round::start(&walk, st);
    for p in 0..walk.points() {
        round.step(&walk, p, st);
        // "If, at any point in the dominance tree, the number of live
        // ranges is larger than the number of available physical
        // registers, then some virtual must be spilled" (§4.5), unless a
        // value chosen earlier in the round relieves the point.
        if walk.demand[p] <= k {
            continue;
        }
        let site = PointSite::of(data, p, &st.spilled);
        let excluded = site.chosen_not_through(|v| round.chosen_set.contains(v), &round.after);
        let relieved = round.chosen_live - excluded;
        if walk.demand[p].saturating_sub(relieved) <= k {
            continue;
        }
        match round.candidate(&site, through, st) {
            Some(v) => round.choose(v, through, st, opts.phi_weight_deduction),
            None if round.chosen.is_empty() => {
                return Err(block_points(f, b, live_out, &st.spilled, opts.k)[p].nothing_to_spill(b, k));
            }
            // Values chosen earlier in the round may relieve it; the next
            // round will tell.
            None => {}
        }
    }
    Ok(round.chosen)
}

/// The state of one round of [`decide_block`] at the current point.
struct Round {
    /// The values chosen in the round, in order, and the same as a set,
    /// for membership tests in constant time.
    chosen: Vec<Value>,
    chosen_set: FxHashSet<Value>,
    /// The values live after the current point; how many of them are
    /// chosen; those that may still be chosen, by weight (the through
    /// values are in [`Through::open`] instead).
    after: FxHashSet<Value>,
    chosen_live: usize,
    open: BTreeSet<Candidate>,
}

impl Round {
    fn start(walk: &BlockDemand, st: &WalkState) -> Round {
        Round {
            chosen: Vec::new(),
            chosen_set: FxHashSet::default(),
            after: walk.start_after.iter().copied().collect(),
            chosen_live: 0,
            open: walk.start_after.iter().filter(|&&v| st.eligible(v)).map(|&v| st.key(v)).collect(),
        }
    }

    /// Moves past point `p`: the values that die there leave, its result
    /// enters.
    fn step(&mut self, walk: &BlockDemand, p: usize, st: &WalkState) {
        for &v in walk.leaves(p) {
            self.after.remove(&v);
            if self.chosen_set.contains(&v) {
                self.chosen_live -= 1;
            } else if st.eligible(v) {
                self.open.remove(&st.key(v));
            }
        }
        if let Some(v) = walk.enters(p) {
            self.after.insert(v);
            if self.chosen_set.contains(&v) {
                self.chosen_live += 1;
            } else if st.eligible(v) {
                self.open.insert(st.key(v));
            }
        }
    }

    /// The value to spill at `site`: the least weight among the values
    /// live through the point that are not operands; else among the
    /// operands that stay live after it (spilling one does not lower the
    /// demand just before it). The through values are never operands or
    /// results.
    fn candidate(&self, site: &PointSite, through: &Through, st: &WalkState) -> Option<Value> {
        let local = self.open.iter().find(|c| site.passes_through(c.1));
        let candidate = match (local, through.open.first()) {
            (Some(a), Some(t)) => Some(a.min(t).1),
            (a, t) => a.or(t).map(|c| c.1),
        };
        candidate.or_else(|| {
            site.operand_to_spill(&self.after, |v| st.eligible(v) && !self.chosen_set.contains(&v), |v| st.key(v))
        })
    }

    /// Chooses `v`, and with `phi_weight_deduction` applies the §4.6
    /// deduction to the phi results it feeds, re-keying those that may
    /// still be chosen.
    fn choose(&mut self, v: Value, through: &mut Through, st: &mut WalkState, phi_weight_deduction: bool) {
        if !self.open.remove(&st.key(v)) {
            through.open.remove(&st.key(v));
        }
        self.chosen.push(v);
        self.chosen_set.insert(v);
        self.chosen_live += 1;
        if !phi_weight_deduction {
            return;
        }
        let WalkState { weights, spilled, reloads, original, .. } = st;
        let Round { after, chosen_set, open, .. } = self;
        // `u` is in one of the ordered sets exactly when it is live after
        // the point (the through values always are) and may be chosen.
        let may_go = |u: Value, in_through: bool| {
            (in_through || after.contains(&u))
                && u.index() < *original
                && !reloads.contains(u)
                && !spilled.contains(u)
                && !chosen_set.contains(&u)
        };
        let Through { frame, open: through_open, .. } = through;
        weights.spilled(v, |u, w, now| {
            let in_through = frame.through.contains(&u);
            let set = if in_through { &mut *through_open } else { &mut *open };
            if may_go(u, in_through) {
                let key = Candidate(w.current(u), u);
                if now {
                    set.insert(key);
                } else {
                    set.remove(&key);
                }
            }
        });
    }
}

/// The self-check of [`decide_block`]: the round decided again from the
/// state `before` it by a scan of every overloaded point's live-through
/// values, materialized by `block_points`, must choose the same values and
/// leave the same weights. Panics on a difference.
fn check_decisions(
    f: &Function,
    b: Block,
    live_out: &SparseSet<Value>,
    mut before: WalkState,
    after: &WalkState,
    chosen: &[Value],
    opts: &SpillDuringColoringOptions,
) {
    self_checks::count();
    let st = &mut before;
    let data = &f.blocks[b];
    let mut again: Vec<Value> = Vec::new();
    let mut again_set: FxHashSet<Value> = FxHashSet::default();
    for point in block_points(f, b, live_out, &st.spilled, opts.k) {
        if point.demand <= opts.k {
            continue;
        }
        let (operands, defined, through) = point.candidates(data);
        let relieved = through.iter().filter(|v| again_set.contains(v) && !operands.contains(v)).count();
        if point.demand.saturating_sub(relieved) <= opts.k {
            continue;
        }
        let candidate = through
            .into_iter()
            .filter(|&v| Some(v) != defined && st.eligible(v) && !again_set.contains(&v))
            .min_by(|a, c| {
                (operands.contains(a), st.weights.current(*a))
                    .partial_cmp(&(operands.contains(c), st.weights.current(*c)))
                    .unwrap_or(Ordering::Equal)
                    .then(a.cmp(c))
            });
        if let Some(v) = candidate {
            again.push(v);
            again_set.insert(v);
            if opts.phi_weight_deduction {
                st.weights.spilled(v, |_, _, _| {});
            }
        }
    }
    assert!(
        again == chosen && st.weights.deducted == after.weights.deducted,
        "self-check of spilling during coloring: in {b} the walk chose {chosen:?}, the scan of the points {again:?}"
    );
}

/// The self-check of the §4.6 deductions, kept up to date spill by spill:
/// each phi result's deducted sum recomputed from the phis as they are,
/// the term of every parameter other than the result itself that is
/// spilled now (none without the deduction). Panics on a difference beyond
/// rounding.
fn check_deductions(f: &Function, depth: &EntityVec<Block, u32>, st: &WalkState, opts: &SpillDuringColoringOptions) {
    self_checks::count();
    let mut expected = vec![0.0f64; st.weights.deducted.len()];
    if opts.phi_weight_deduction {
        for data in f.blocks.values() {
            for phi in &data.phis {
                for (i, &a) in phi.args.iter().enumerate() {
                    if a != phi.dest && a.index() < st.original && st.spilled.contains(a) {
                        expected[phi.dest.index()] += term(depth[data.preds[i]]);
                    }
                }
            }
        }
    }
    for (i, (&held, &want)) in st.weights.deducted.iter().zip(&expected).enumerate() {
        assert!(
            (held - want).abs() <= 1e-9 * want.abs().max(1.0),
            "self-check of spilling during coloring: v{i} has {held} deducted from its weight, but its spilled parameters make {want}"
        );
    }
}

/// The self-check of the liveness the walk computed once: the live-in and
/// live-out sets of the function after the walk, by the iterative data
/// flow (not the per-value walk that computed `live`), must be those kept.
fn check_liveness_kept(f: &Function, live: &Liveness) {
    self_checks::count();
    let now = compute_liveness_dataflow(f);
    for b in f.blocks.keys() {
        assert!(
            now.live_in[b] == live.live_in[b] && now.live_out[b] == live.live_out[b],
            "self-check of spilling during coloring: the liveness computed before the walk is stale at {b}"
        );
    }
}
