//! Reload recycling (Pereira, "The Design and Implementation of a
//! SSA-based Register Allocator", §4.7): two reloads of one spilled value
//! in one block become one, the earlier, when the longer-lived reload keeps
//! the block's register demand at most K.
//!
//! Needs: the function after spill code placement (`spill_code.rs`), the
//! liveness of the function as spilled, the spilled values and the
//! reloads.
//!
//! # The rule, and the order it is applied in
//!
//! In each block, the pairs (earlier reload, later reload) of one value,
//! consecutive among that value's reloads, are tried in the order of the
//! later reload; the first pair whose merge keeps the demand at most K is
//! merged, and the search starts again from the first pair
//! ([`recycle_block_by_search`], which recomputes the block's demand for
//! each pair it tries: (pairs tried) × (block)).
//!
//! # One pass, when the reloads' ranges are disjoint
//!
//! Usually each reload of a value is read, and read for the last time
//! before the next reload of that value. In such a block a merge never
//! lowers the demand: the earlier reload stays live from its last read to
//! the later reload's position, one more value at each point of that gap;
//! every other point keeps its number of values, and the point of the
//! removed reload, which counted its result, is preceded by one that now
//! counts the merged value instead. So the largest demand never falls, a
//! pair once refused is refused again after any later merge, and the
//! search merges exactly the pairs that one pass in the same order merges,
//! each tried against the merges before it ([`recycle_block_in_one_pass`]).
//! That pass keeps the demand of each instruction in a segment tree with
//! range increments ([`DemandTree`]): a pair is tried in O(log |block|),
//! and a block costs O(|block| log |block|). A block whose reloads do not
//! all meet this condition takes the search, so the result is the same in
//! every block.

use crate::analysis::liveness::Liveness;
use crate::entity::{EntitySet, SparseSet};
use crate::ir::{Block, Function, Op, Value};
use crate::ssa_ra::block_demand::BlockDemand;
use crate::ssa_ra::call_constraints::pinned_clobber;
use rustc_hash::FxHashMap;

/// Merges consecutive reloads of one spilled value in a block when the
/// longer-lived reload keeps the demand at most K (§4.7); returns the
/// blocks it changed, in order.
pub(crate) fn recycle_reloads(
    f: &mut Function,
    live: &Liveness,
    spilled: &EntitySet<Value>,
    reloads: &mut EntitySet<Value>,
    k: usize,
) -> Vec<Block> {
    let mut changed = Vec::new();
    for b in f.blocks.keys() {
        let pairs = reload_pairs(f, b, reloads);
        if pairs.is_empty() {
            continue;
        }
        let merged = match disjoint_reads(f, b, &live.live_out[b], spilled, &pairs) {
            Some(last_read) => recycle_block_in_one_pass(f, b, &live.live_out[b], spilled, &pairs, &last_read, k),
            None => recycle_block_by_search(f, b, &live.live_out[b], spilled, reloads, k),
        };
        for &d in &merged {
            reloads.remove(d);
        }
        if !merged.is_empty() {
            changed.push(b);
        }
    }
    changed
}

/// The pairs (earlier reload, index of the later reload, later reload) of
/// block `b`, consecutive reloads of one value, in the order of the later
/// one. The last reload of each value so far is kept by value (a list
/// searched at each reload would be quadratic in the values reloaded).
fn reload_pairs(f: &Function, b: Block, reloads: &EntitySet<Value>) -> Vec<(Value, usize, Value)> {
    let mut last: FxHashMap<Value, Value> = FxHashMap::default();
    let mut pairs = Vec::new();
    for (i, inst) in f.blocks[b].insts.iter().enumerate() {
        if let (Some(d), Op::Copy(src)) = (inst.dest, &inst.op) {
            if reloads.contains(d) {
                if let Some(prev) = last.insert(*src, d) {
                    pairs.push((prev, i, d));
                }
            }
        }
    }
    pairs
}

/// The search of the module documentation: tries the pairs in order,
/// merges the first one the demand allows and starts again, until no pair
/// is merged. Returns the reloads merged away.
fn recycle_block_by_search(
    f: &mut Function,
    b: Block,
    live_out: &SparseSet<Value>,
    spilled: &EntitySet<Value>,
    reloads: &EntitySet<Value>,
    k: usize,
) -> Vec<Value> {
    let mut dropped: Vec<Value> = Vec::new();
    loop {
        let mut merged = false;
        for (keep, idx, drop) in reload_pairs(f, b, reloads) {
            let saved = f.blocks[b].clone();
            let removed = f.blocks[b].insts.remove(idx);
            debug_assert_eq!(removed.dest, Some(drop));
            for inst in &mut f.blocks[b].insts {
                inst.op.map_args(|a| if a == drop { keep } else { a });
            }
            f.blocks[b].term.map_arg(|a| if a == drop { keep } else { a });
            if BlockDemand::compute(f, b, live_out, spilled, k).max_demand() <= k {
                dropped.push(drop);
                merged = true;
                break;
            }
            f.blocks[b] = saved;
        }
        if !merged {
            return dropped;
        }
    }
}

/// The last instruction that reads each reload of `pairs`, when every pair
/// meets the condition of the module documentation: both reloads are in
/// registers and read in the block or live out of it, the earlier one is
/// not live out and is last read before the later one, and the reloaded
/// value is spilled (so that a reload reads no register). `None`
/// otherwise.
fn disjoint_reads(
    f: &Function,
    b: Block,
    live_out: &SparseSet<Value>,
    spilled: &EntitySet<Value>,
    pairs: &[(Value, usize, Value)],
) -> Option<FxHashMap<Value, usize>> {
    let data = &f.blocks[b];
    let mut last_read: FxHashMap<Value, usize> = FxHashMap::default();
    for &(keep, _, drop) in pairs {
        last_read.insert(keep, usize::MAX);
        last_read.insert(drop, usize::MAX);
    }
    for (i, inst) in data.insts.iter().enumerate() {
        inst.op.for_each_arg(|a| {
            if let Some(r) = last_read.get_mut(&a) {
                *r = i;
            }
        });
    }
    if let Some(r) = data.term.arg().and_then(|a| last_read.get_mut(&a)) {
        *r = data.insts.len();
    }
    let read_or_out = |v: Value| last_read[&v] != usize::MAX || live_out.contains(v);
    let ok = pairs.iter().all(|&(keep, i, drop)| {
        !spilled.contains(keep)
            && !spilled.contains(drop)
            && read_or_out(drop)
            && !live_out.contains(keep)
            && last_read[&keep] < i
            && matches!(data.insts[i].op, Op::Copy(src) if spilled.contains(src))
    });
    ok.then_some(last_read)
}

/// The pass of the module documentation on a block whose pairs meet the
/// condition of [`disjoint_reads`]; returns the reloads merged away, and
/// rewrites the block once, at the end.
fn recycle_block_in_one_pass(
    f: &mut Function,
    b: Block,
    live_out: &SparseSet<Value>,
    spilled: &EntitySet<Value>,
    pairs: &[(Value, usize, Value)],
    last_read: &FxHashMap<Value, usize>,
    k: usize,
) -> Vec<Value> {
    let demand = BlockDemand::compute(f, b, live_out, spilled, k);
    let n = f.blocks[b].insts.len();
    // The start and the terminator: no merge changes what is live there.
    let ends = demand.demand[0].max(demand.demand[n + 1]) as i64;
    let (before, after) = instruction_demands(f, b, live_out, spilled, k);
    debug_assert!((0..n).all(|i| before[i].max(after[i]) == demand.demand[i + 1] as i64));
    let mut tree = DemandTree::new(before, after);
    // The reload each merged one now reads as: the earliest of its group.
    let mut kept: FxHashMap<Value, Value> = FxHashMap::default();
    let mut dropped = Vec::new();
    for &(prev, i, drop) in pairs {
        let keep = kept.get(&prev).copied().unwrap_or(prev);
        // The earlier reload of the pair was last read at `u`: it now stays
        // live after `u` and through every instruction up to `i`.
        let u = last_read[&prev];
        tree.add_after(u, 1);
        tree.add_range(u + 1, i, 1);
        tree.remove(i);
        if tree.max().max(ends) <= k as i64 {
            kept.insert(drop, keep);
            dropped.push(drop);
        } else {
            tree.restore(i);
            tree.add_range(u + 1, i, -1);
            tree.add_after(u, -1);
        }
    }
    if !dropped.is_empty() {
        let data = &mut f.blocks[b];
        data.insts.retain(|inst| !inst.dest.is_some_and(|d| kept.contains_key(&d)));
        let rename = |a: Value| kept.get(&a).copied().unwrap_or(a);
        for inst in &mut data.insts {
            inst.op.map_args(rename);
        }
        data.term.map_arg(rename);
    }
    dropped
}

/// For each instruction of `b`, the values live right before it and those
/// live right after it (its result counted when nothing reads it, since it
/// is still written to a register), register-resident values only: the
/// two terms of `BlockDemand`'s demand at the instruction, whose larger one
/// it is.
fn instruction_demands(
    f: &Function,
    b: Block,
    live_out: &SparseSet<Value>,
    spilled: &EntitySet<Value>,
    k: usize,
) -> (Vec<i64>, Vec<i64>) {
    let data = &f.blocks[b];
    let resident = |v: Value| !spilled.contains(v);
    let mut live: rustc_hash::FxHashSet<Value> = live_out.iter().filter(|&v| resident(v)).collect();
    live.extend(data.term.arg().filter(|&a| resident(a)));
    let n = data.insts.len();
    let (mut before, mut after) = (vec![0i64; n], vec![0i64; n]);
    for (i, inst) in data.insts.iter().enumerate().rev() {
        let mut out = live.len() as i64;
        if let Some(d) = inst.dest {
            if !live.remove(&d) {
                out += 1;
            }
        }
        inst.op.for_each_arg(|a| {
            if resident(a) {
                live.insert(a);
            }
        });
        // A fixed division's clobbered register counts in both terms.
        let clobber = pinned_clobber(inst, k) as i64;
        before[i] = live.len() as i64 + clobber;
        after[i] = out + clobber;
    }
    (before, after)
}

/// The demand at each instruction of a block, `max(before, after)`, under
/// increments of ranges of instructions (a value live across them, which
/// adds to both terms) and of one instruction's `after` term (a value that
/// stays live after its last read there), and removal of an instruction.
/// A bottom-up segment tree whose nodes keep their own increment, never
/// pushed down: a node's maximum is its increment plus its children's
/// larger maximum, so the root holds the block's largest demand.
struct DemandTree {
    size: usize,
    /// The maximum of each node's leaves, its increments included.
    max: Vec<i64>,
    /// Each node's own increment.
    add: Vec<i64>,
    /// The two terms of each instruction, without the increments of the
    /// ranges; `removed` instructions count as [`REMOVED`].
    before: Vec<i64>,
    after: Vec<i64>,
    removed: Vec<bool>,
}

/// The demand of a removed instruction: below any sum of increments.
const REMOVED: i64 = i64::MIN / 4;

impl DemandTree {
    fn new(before: Vec<i64>, after: Vec<i64>) -> DemandTree {
        let size = before.len().next_power_of_two();
        let mut max = vec![REMOVED; 2 * size];
        for i in 0..before.len() {
            max[size + i] = before[i].max(after[i]);
        }
        for p in (1..size).rev() {
            max[p] = max[2 * p].max(max[2 * p + 1]);
        }
        let removed = vec![false; before.len()];
        DemandTree { size, max, add: vec![0; 2 * size], before, after, removed }
    }

    /// The largest demand of the instructions not removed.
    fn max(&self) -> i64 {
        self.max[1]
    }

    /// Recomputes leaf `i` from its terms, then its ancestors.
    fn refresh(&mut self, i: usize) {
        let mut p = self.size + i;
        let own = if self.removed[i] { REMOVED } else { self.before[i].max(self.after[i]) };
        self.max[p] = own + self.add[p];
        while p > 1 {
            p /= 2;
            self.max[p] = self.max[2 * p].max(self.max[2 * p + 1]) + self.add[p];
        }
    }

    fn add_after(&mut self, i: usize, by: i64) {
        self.after[i] += by;
        self.refresh(i);
    }

    fn remove(&mut self, i: usize) {
        self.removed[i] = true;
        self.refresh(i);
    }

    fn restore(&mut self, i: usize) {
        self.removed[i] = false;
        self.refresh(i);
    }

    /// Adds `by` to both terms of the instructions `from..to`.
    fn add_range(&mut self, from: usize, to: usize, by: i64) {
        if from >= to {
            return;
        }
        let (mut l, mut r) = (from + self.size, to + self.size);
        let (first, last) = (l, r - 1);
        while l < r {
            if l % 2 == 1 {
                self.max[l] += by;
                self.add[l] += by;
                l += 1;
            }
            if r % 2 == 1 {
                r -= 1;
                self.max[r] += by;
                self.add[r] += by;
            }
            l /= 2;
            r /= 2;
        }
        for mut p in [first, last] {
            while p > 1 {
                p /= 2;
                self.max[p] = self.max[2 * p].max(self.max[2 * p + 1]) + self.add[p];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::critical_edges::split_critical_edges;
    use crate::analysis::liveness::compute_liveness;
    use crate::construction::braun::{construct_program, BraunOptions};
    use crate::generate::source::{Shape, TestCase, WorstShape};
    use crate::ssa_ra::one_argument_phis::lower_one_argument_phis;
    use crate::ssa_ra::phi_lifting::phi_lifting;
    use crate::ssa_ra::phi_mem_coalesce::phi_mem_coalesce;
    use crate::ssa_ra::spill_during_coloring::{spill_during_coloring, SpillDuringColoringOptions};

    /// Every block recycled by the search alone, for comparison.
    fn by_search_everywhere(f: &mut Function, spilled: &EntitySet<Value>, reloads: &mut EntitySet<Value>, k: usize) {
        let live = compute_liveness(f);
        for b in f.blocks.keys() {
            for d in recycle_block_by_search(f, b, &live.live_out[b], spilled, reloads, k) {
                reloads.remove(d);
            }
        }
    }

    /// On generated functions spilled at K = 2, 3 and 4 without recycling,
    /// then recycled, the one pass and the search give the same function
    /// and reloads, and the one pass runs on blocks where it merges
    /// reloads.
    #[test]
    fn one_pass_merges_what_the_search_merges() {
        let mut programs: Vec<crate::ast::Program> = (0..60u64)
            .map(|seed| TestCase::from_seed(seed, &Shape::ALL[seed as usize % Shape::ALL.len()].config()).program)
            .collect();
        let shape = WorstShape::ParamsConstants.source(60);
        programs.push(crate::frontend::parser::parse_program(&shape).expect("the shape parses"));
        let (mut one_pass_merges, mut blocks) = (0, 0);
        for program in &programs {
            for f in construct_program(program, &BraunOptions::all_on()).functions {
                for k in [2, 3, 4] {
                    let mut g = f.clone();
                    lower_one_argument_phis(&mut g);
                    split_critical_edges(&mut g);
                    let lifted = phi_lifting(&mut g);
                    phi_mem_coalesce(&mut g, &lifted);
                    let opts =
                        SpillDuringColoringOptions { recycle_reloads: false, ..SpillDuringColoringOptions::with_k(k) };
                    let Ok(spill) = spill_during_coloring(&mut g, &opts) else { continue };
                    let (mut by_search, mut search_reloads) = (g.clone(), spill.reloads.clone());
                    by_search_everywhere(&mut by_search, &spill.spilled, &mut search_reloads, k);
                    let live = compute_liveness(&g);
                    for b in g.blocks.keys() {
                        let pairs = reload_pairs(&g, b, &spill.reloads);
                        if let Some(reads) = disjoint_reads(&g, b, &live.live_out[b], &spill.spilled, &pairs) {
                            let mut h = g.clone();
                            blocks += 1;
                            one_pass_merges += recycle_block_in_one_pass(
                                &mut h,
                                b,
                                &live.live_out[b],
                                &spill.spilled,
                                &pairs,
                                &reads,
                                k,
                            )
                            .len();
                        }
                    }
                    let mut reloads = spill.reloads.clone();
                    recycle_reloads(&mut g, &live, &spill.spilled, &mut reloads, k);
                    assert_eq!(g, by_search, "{} at K = {k}", f.name);
                    assert_eq!(reloads, search_reloads, "{} at K = {k}", f.name);
                }
            }
        }
        assert!(blocks > 50 && one_pass_merges > 20, "{blocks} blocks in one pass, {one_pass_merges} merges");
    }
}
