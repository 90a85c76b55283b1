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
//! before every use (`spill::spill_value`), in the blocks already visited
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
//! unlike `spill.rs`'s rounds. Each block's points are computed once per
//! round of decisions in that block (a round decides every overloaded
//! point of the block that the values chosen earlier in the round do not
//! relieve), so the pass costs `O(Σ_B rounds_B · |B| · live)` plus the
//! reload insertions, which visit only the blocks that use a spilled value
//! (`spill::use_blocks`, made once for the whole walk; made again for each
//! round's values, it would scan the whole function per round, quadratic
//! in the function's size): never more than the separate pass.
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
//!   rounds (see Cost): a point already relieved by a value chosen earlier
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
use crate::analysis::self_checks;
use crate::entity::{EntityRef, EntitySet, EntityVec, SparseSet};
use crate::ir::{Block, Function, Value};
use crate::ssa_ra::spill::{
    block_points, lowering_candidates, recycle_reloads, spill_value, use_blocks, weights, SpillError, SpillResult,
};
use rustc_hash::FxHashSet;

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
    fn compute(f: &Function, depth: &EntityVec<Block, u32>, live: &Liveness) -> Weights {
        let n = f.value_count as usize;
        let none = EntitySet::with_capacity(n);
        let mut sizes = vec![0usize; n];
        for b in f.blocks.keys() {
            for p in block_points(f, b, &live.live_out[b], &none) {
                for &v in &p.after {
                    sizes[v.index()] += 1;
                }
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

    /// `a` was spilled: deduct its terms from the phis it feeds.
    fn spilled(&mut self, a: Value) {
        for k in 0..self.phi_uses.get(a.index()).map_or(0, |l| l.len()) {
            let (v, t) = self.phi_uses[a.index()][k];
            self.deducted[v.index()] += t;
        }
    }
}

/// What the walk decided, for tests: the values spilled, in the order they
/// were chosen, each with the block where the walk chose it.
pub type Decisions = Vec<(Value, Block)>;

/// Spills during the coloring walk until the register demand is at most
/// `opts.k` everywhere (see the module documentation).
pub fn spill_during_coloring(f: &mut Function, opts: &SpillDuringColoringOptions) -> Result<SpillResult, SpillError> {
    spill_during_coloring_with_decisions(f, opts).map(|(r, _)| r)
}

/// [`spill_during_coloring`], also returning the walk's decisions in order.
pub fn spill_during_coloring_with_decisions(
    f: &mut Function,
    opts: &SpillDuringColoringOptions,
) -> Result<(SpillResult, Decisions), SpillError> {
    if opts.k < 2 {
        return Err(SpillError(format!("K = {} is below the machine model's 2 registers", opts.k)));
    }
    let depth = loop_depth(f);
    // Valid for the whole walk: spilling keeps every block's live-in and
    // live-out sets (see the module documentation).
    let live = compute_liveness(f);
    let original = f.value_count as usize;
    let mut st = WalkState {
        weights: Weights::compute(f, &depth, &live),
        spilled: EntitySet::with_capacity(original),
        reloads: EntitySet::with_capacity(original),
        original,
    };
    let dom = DomTree::compute(f);
    // Made once (see `spill::use_blocks`).
    let uses_in = use_blocks(f);
    let mut decisions: Decisions = Vec::new();
    for (n, &b) in dom.preorder.iter().enumerate() {
        loop {
            let chosen = decide_block(f, b, &live.live_out[b], &mut st, opts)?;
            if chosen.is_empty() {
                break;
            }
            for v in chosen {
                spill_value(f, v, &uses_in[v.index()], &mut st.spilled, &mut st.reloads);
                decisions.push((v, b));
            }
        }
        if self_checks::enabled() && (cfg!(test) || n < 8 || (n + 1).is_power_of_two()) {
            check_deductions(f, &depth, &st, opts);
        }
    }
    if self_checks::enabled() {
        check_liveness_kept(f, &live);
    }
    let WalkState { mut spilled, mut reloads, .. } = st;
    let mut lowered = Vec::new();
    if opts.load_lowering {
        let candidates = lowering_candidates(f, &spilled);
        for v in candidates {
            lowered.push(v);
            spill_value(f, v, &uses_in[v.index()], &mut spilled, &mut reloads);
        }
    }
    if opts.recycle_reloads {
        // The liveness `recycle_reloads` reads, of the function as spilled.
        let live = compute_liveness(f);
        recycle_reloads(f, &live, &spilled, &mut reloads, opts.k);
    }
    let live = compute_liveness(f);
    let max_demand = f
        .blocks
        .keys()
        .flat_map(|b| block_points(f, b, &live.live_out[b], &spilled))
        .map(|p| p.demand)
        .max()
        .unwrap_or(0);
    if max_demand > opts.k {
        return Err(SpillError(format!("demand {max_demand} > K = {} after spilling during coloring", opts.k)));
    }
    Ok((SpillResult { spilled, reloads, lowered, max_demand }, decisions))
}

/// The walk's state: the weights, what is spilled, the reloads inserted.
struct WalkState {
    weights: Weights,
    spilled: EntitySet<Value>,
    reloads: EntitySet<Value>,
    /// Values numbered from here on are reloads.
    original: usize,
}

/// One round of decisions in block `b`: for each point whose demand exceeds
/// K, in order, unless a value chosen earlier in the round is live through
/// it, the resident value live through it of least current weight (see the
/// module documentation). The weights are updated as values are chosen.
fn decide_block(
    f: &Function,
    b: Block,
    live_out: &SparseSet<Value>,
    st: &mut WalkState,
    opts: &SpillDuringColoringOptions,
) -> Result<Vec<Value>, SpillError> {
    let k = opts.k;
    let data = &f.blocks[b];
    let mut chosen: Vec<Value> = Vec::new();
    // The same values as `chosen`, for membership tests in constant time
    // (a search of the list at every live value of every point was cubic
    // in the values live through a block).
    let mut chosen_set: FxHashSet<Value> = FxHashSet::default();
    for point in block_points(f, b, live_out, &st.spilled) {
        if point.demand <= k {
            continue;
        }
        let (operands, defined, through) = point.candidates(data);
        let relieved = through.iter().filter(|v| chosen_set.contains(v) && !operands.contains(v)).count();
        if point.demand.saturating_sub(relieved) <= k {
            continue;
        }
        let candidate = through
            .into_iter()
            .filter(|v| {
                v.index() < st.original
                    && Some(*v) != defined
                    && !st.reloads.contains(*v)
                    && !st.spilled.contains(*v)
                    && !chosen_set.contains(v)
            })
            .min_by(|a, c| {
                (operands.contains(a), st.weights.current(*a))
                    .partial_cmp(&(operands.contains(c), st.weights.current(*c)))
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(a.cmp(c))
            });
        match candidate {
            Some(v) => {
                chosen.push(v);
                chosen_set.insert(v);
                if opts.phi_weight_deduction {
                    st.weights.spilled(v);
                }
            }
            None if chosen.is_empty() => return Err(point.nothing_to_spill(b, k)),
            // Values chosen earlier in the round may relieve it; the next
            // round will tell.
            None => {}
        }
    }
    Ok(chosen)
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
