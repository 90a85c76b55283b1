//! Interval analysis: Pereira, "The Design and Implementation of a SSA-based
//! Register Allocator" (UCLA tech. report), §4.1.
//!
//! Needs: the liveness of `liveness.rs`.
//!
//! The function is linearized and each value's live range becomes a sorted
//! list of disjoint closed integer intervals of program points, so that the
//! overlap of two values, or of two sets of values, is found by a linear
//! merge ([`union_intersects`]); PhiMemCoalesce (§4.4) relies on it.
//!
//! # Program points
//!
//! Blocks are laid out in dominator-tree pre-order (the order in which
//! Pereira's allocator visits them, §4.5), followed by the unreachable blocks
//! in index order. A block with `n` instructions gets `n + 2` consecutive
//! points:
//!
//! - its *start* ([`Intervals::block_start`]), where its phis (and, in the
//!   entry, the parameters) have just been defined: the values of
//!   `live_in`, phi destinations included (§4.1: "all the virtuals in the
//!   vector V are marked as alive in the beginning of the basic block");
//! - one point *after* each instruction `i` ([`Intervals::inst_point`]): the
//!   values live right after it, plus its destination even when that is
//!   never used (a dead result still occupies a location where it is
//!   written);
//! - its *end* ([`Intervals::block_end`]), at the terminator: `live_out`
//!   plus the terminator's operand. Phi arguments of the outgoing edges are
//!   live here "but not beyond" (§4.1).
//!
//! The values live right before instruction `i` are those of the point just
//! before it (the previous instruction's, or the start), so a value whose
//! last use is instruction `i` is not at `i`'s point, while `i`'s
//! destination is: a value that dies at the instruction defining another
//! does not overlap it. Two values overlap at some point exactly when they
//! interfere in the sense of `liveness::interfere` (Lemma 1 of Pereira);
//! `tests/suite/cssa_passes.rs` checks this equivalence on every pair of values of
//! the corpus.

use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::{live_after_each_inst, live_at_end, Liveness};
use crate::analysis::set_fingerprint::{mix, SetSummary, SummarizedSet};
use crate::entity::{EntityVec, SparseSet};
use crate::ir::{Block, Function, Value};
use crate::pass_manager::self_checks;
use rustc_hash::{FxHashMap, FxHashSet};

/// The sets of values occupying each program point of `b`, in order: the
/// start, the point after each instruction, the end (see the module
/// documentation). There are `insts.len() + 2` of them.
pub fn occupied_at_points(f: &Function, b: Block, live: &Liveness) -> Vec<SparseSet<Value>> {
    let data = &f.blocks[b];
    let mut sets = Vec::with_capacity(data.insts.len() + 2);
    sets.push(live.live_in[b].clone());
    let after = live_after_each_inst(f, b, live);
    for (inst, mut set) in data.insts.iter().zip(after) {
        if let Some(d) = inst.dest {
            set.insert(d);
        }
        sets.push(set);
    }
    let mut end = live.live_out[b].clone();
    if let Some(a) = data.term.arg() {
        end.insert(a);
    }
    sets.push(end);
    sets
}

/// Blocks in the layout order of the interval analysis: dominator-tree
/// pre-order, then the unreachable blocks in index order.
pub fn layout_order(f: &Function) -> Vec<Block> {
    let dom = DomTree::compute(f);
    let mut order = dom.preorder.clone();
    order.extend(f.blocks.keys().filter(|&b| !dom.is_reachable(b)));
    order
}

/// The live ranges of every value as sorted disjoint closed intervals of
/// program points.
#[derive(Clone, Debug)]
pub struct Intervals {
    /// The blocks in layout order.
    pub order: Vec<Block>,
    /// The first point (the start) of each block.
    start: EntityVec<Block, u32>,
    /// The live range of each value number below `value_count`.
    ranges: EntityVec<Value, Vec<(u32, u32)>>,
    /// One more than the last point.
    point_count: u32,
}

impl Intervals {
    /// The live range of `v`: sorted, disjoint, non-adjacent closed intervals
    /// `(first, last)`. Empty for a value that is not defined.
    pub fn ranges(&self, v: Value) -> &[(u32, u32)] {
        self.ranges.get(v).map_or(&[], |r| r.as_slice())
    }

    /// The start point of `b` (after its phis).
    pub fn block_start(&self, b: Block) -> u32 {
        self.start[b]
    }

    /// The point right after instruction `i` of `b`.
    pub fn inst_point(&self, b: Block, i: usize) -> u32 {
        self.start[b] + 1 + u32::try_from(i).expect("instruction index fits u32")
    }

    /// The end point of `b` (at its terminator); needs the function to know
    /// how many instructions `b` has.
    pub fn block_end(&self, f: &Function, b: Block) -> u32 {
        self.inst_point(b, f.blocks[b].insts.len())
    }

    /// The number of program points.
    pub fn point_count(&self) -> u32 {
        self.point_count
    }

    /// True when `v` occupies point `p`.
    pub fn is_live_at(&self, v: Value, p: u32) -> bool {
        let r = self.ranges(v);
        let i = r.partition_point(|&(_, last)| last < p);
        i < r.len() && r[i].0 <= p
    }

    /// True when the live ranges of `a` and `b` share a point.
    pub fn overlap(&self, a: Value, b: Value) -> bool {
        union_intersects(self.ranges(a), self.ranges(b))
    }
}

/// Computes the live range of every value of `f` (see the module
/// documentation for the points and what occupies them).
///
/// One backward walk per block keeps the set of values live at the walk's
/// position and, for each value occupying the current point, where its
/// current run of points began; a run is closed when the walk reaches a
/// point the value does not occupy. Only the values an instruction mentions
/// can enter or leave at it, so a block costs `O(|B| + |live_in| +
/// |live_out|)` set operations. Building the set of every point
/// ([`occupied_at_points`]) instead costs the sum of their sizes, quadratic
/// when many values are live through a long block; the self-checks compare
/// the two on sampled blocks.
pub fn compute_intervals(f: &Function, live: &Liveness) -> Intervals {
    let order = layout_order(f);
    let mut start = EntityVec::from_elem(u32::MAX, f.blocks.len());
    let mut ranges: EntityVec<Value, Vec<(u32, u32)>> = EntityVec::from_elem(Vec::new(), f.value_count as usize);
    let mut point = 0u32;
    let check = self_checks::in_checked_pass();
    for (n, &b) in order.iter().enumerate() {
        start[b] = point;
        let runs = block_runs(f, b, live);
        if check && (cfg!(test) || n < 8 || (n + 1).is_power_of_two()) {
            check_block_runs(f, b, live, &runs);
        }
        // `runs` is in decreasing order of first point: reversed, each
        // value's runs come in increasing order.
        for &(v, first, last) in runs.iter().rev() {
            ranges.ensure(v, Vec::new());
            let r = &mut ranges[v];
            let (first, last) = (point + first, point + last);
            match r.last_mut() {
                Some(prev) if prev.1 + 1 == first => prev.1 = last,
                _ => r.push((first, last)),
            }
        }
        let points = u32::try_from(f.blocks[b].insts.len() + 2).expect("program points fit u32");
        point = point.checked_add(points).expect("program points fit u32");
    }
    Intervals { order, start, ranges, point_count: point }
}

/// The maximal runs of consecutive points of `b` (numbered from 0, the
/// start) that each value occupies, as `(value, first, last)`, in
/// decreasing order of `first` (see [`compute_intervals`]).
fn block_runs(f: &Function, b: Block, live: &Liveness) -> Vec<(Value, u32, u32)> {
    let data = &f.blocks[b];
    let n = u32::try_from(data.insts.len()).expect("program points fit u32");
    let mut runs: Vec<(Value, u32, u32)> = Vec::new();
    // The values live after the instruction the walk is at.
    let mut cur: FxHashSet<Value> = live_at_end(f, b, live).iter().collect();
    // The values occupying the point the walk is at, each with the last
    // point of its current run.
    let mut open: FxHashMap<Value, u32> = cur.iter().map(|&v| (v, n + 1)).collect();
    // Point `p` of a value that occupied point `p + 1`, or not.
    let mut step = |v: Value, occupies: bool, p: u32, open: &mut FxHashMap<Value, u32>| match (open.get(&v), occupies) {
        (None, true) => {
            open.insert(v, p);
        }
        (Some(&last), false) => {
            runs.push((v, p + 1, last));
            open.remove(&v);
        }
        _ => {}
    };
    for i in (0..data.insts.len()).rev() {
        let p = 1 + i as u32;
        let dest = data.insts[i].dest;
        // The values live after instruction `i`, from those after `i + 1`.
        let next = data.insts.get(i + 1);
        if let Some(next) = next {
            if let Some(d) = next.dest {
                cur.remove(&d);
            }
            next.op.for_each_arg(|a| {
                cur.insert(a);
            });
        }
        // Only the values instruction `i + 1` mentions, and `i`'s
        // destination, can change between point `p + 1` and point `p`.
        let mut changed: Vec<Value> = Vec::with_capacity(4);
        if let Some(next) = next {
            changed.extend(next.dest);
            next.op.for_each_arg(|a| changed.push(a));
        }
        changed.extend(dest);
        for v in changed {
            let occupies = cur.contains(&v) || Some(v) == dest;
            step(v, occupies, p, &mut open);
        }
    }
    // The start: the values live in. Those open at point 1 that are not
    // live in end there; the others, and the values live in that do not
    // occupy point 1, run from the start.
    let ends_at_one: Vec<Value> = open.keys().copied().filter(|&v| !live.live_in[b].contains(v)).collect();
    for v in ends_at_one {
        step(v, false, 0, &mut open);
    }
    for v in live.live_in[b].iter() {
        let last = open.remove(&v).unwrap_or(0);
        runs.push((v, 0, last));
    }
    runs
}

/// The self-check of [`block_runs`]: the values occupying each point of
/// `b`, walked backward from the end one instruction at a time with the
/// definition of [`occupied_at_points`], must be those the runs cover, and
/// each value's runs must be disjoint and not adjacent (maximal), so that
/// the runs are the ones the point sets give. Each point is compared by its
/// size and fingerprint (`set_fingerprint.rs`), not by building its set:
/// the sets' sizes add up to a quadratic total when many values are live
/// through a long block. Panics on a difference.
fn check_block_runs(f: &Function, b: Block, live: &Liveness, runs: &[(Value, u32, u32)]) {
    self_checks::count();
    let data = &f.blocks[b];
    let points = data.insts.len() + 2;
    let mut sorted = runs.to_vec();
    sorted.sort_unstable();
    let well_formed = sorted.iter().all(|&(_, first, last)| first <= last && (last as usize) < points)
        && sorted.windows(2).all(|w| w[0].0 != w[1].0 || w[0].2 + 1 < w[1].1);
    assert!(well_formed, "self-check of the interval analysis: the runs of {b} overlap, touch or leave the block");
    // What the runs cover, point by point: a difference array of sizes
    // and fingerprints.
    let mut step = vec![(0i64, 0u64); points + 1];
    for &(v, first, last) in runs {
        let (first, after) = (first as usize, last as usize + 1);
        step[first] = (step[first].0 + 1, step[first].1.wrapping_add(mix(v)));
        step[after] = (step[after].0 - 1, step[after].1.wrapping_sub(mix(v)));
    }
    let mut covered = Vec::with_capacity(points);
    let mut running = (0i64, 0u64);
    for &(n, sum) in &step[..points] {
        running = (running.0 + n, running.1.wrapping_add(sum));
        covered.push(SetSummary { len: running.0 as usize, fingerprint: running.1 });
    }
    // The occupied sets, from the end backward.
    let mut expected = vec![SetSummary::default(); points];
    let mut cur = SummarizedSet::default();
    for v in live_at_end(f, b, live).iter() {
        cur.insert(v);
    }
    expected[points - 1] = cur.summary();
    for (i, inst) in data.insts.iter().enumerate().rev() {
        expected[i + 1] = match inst.dest {
            Some(d) if !cur.contains(d) => cur.summary().with(d),
            _ => cur.summary(),
        };
        if let Some(d) = inst.dest {
            cur.remove(d);
        }
        inst.op.for_each_arg(|a| {
            cur.insert(a);
        });
    }
    expected[0] = SetSummary::of(live.live_in[b].iter());
    let first = (0..points).find(|&p| covered[p] != expected[p]);
    assert!(
        first.is_none(),
        "self-check of the interval analysis: the runs of {b} walked incrementally differ from the occupied \
         values at point {}",
        first.unwrap_or(0)
    );
}

/// True when two sorted lists of disjoint closed intervals share a point;
/// linear in their lengths.
pub fn union_intersects(a: &[(u32, u32)], b: &[(u32, u32)]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x.0 <= y.1 && y.0 <= x.1 {
            return true;
        }
        // The interval that ends first cannot meet anything later in the
        // other list.
        if x.1 < y.1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    false
}

/// The union of two sorted lists of disjoint closed intervals, as a sorted
/// list of disjoint, non-adjacent closed intervals (overlapping or adjacent
/// intervals are joined); linear in their lengths.
pub fn merge(a: &[(u32, u32)], b: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = if j >= b.len() || (i < a.len() && a[i].0 <= b[j].0) {
            i += 1;
            a[i - 1]
        } else {
            j += 1;
            b[j - 1]
        };
        match out.last_mut() {
            Some(last) if next.0 <= last.1.saturating_add(1) => last.1 = last.1.max(next.1),
            _ => out.push(next),
        }
    }
    out
}

/// The union of closed intervals given in any order, as a sorted list of
/// disjoint, non-adjacent closed intervals (overlapping or adjacent ones
/// are joined); O(n log n) for the sort.
pub fn normalize(mut raw: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    raw.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(raw.len());
    for (from, to) in raw {
        match out.last_mut() {
            Some(last) if from <= last.1.saturating_add(1) => last.1 = last.1.max(to),
            _ => out.push((from, to)),
        }
    }
    out
}

/// Checks that `r` is a well-formed range list: each interval has
/// `first <= last`, and each starts after the previous one ends. Used by
/// tests and debug assertions.
pub fn is_well_formed(r: &[(u32, u32)]) -> bool {
    r.iter().all(|&(a, b)| a <= b) && r.windows(2).all(|w| w[0].1 < w[1].0)
}

#[cfg(test)]
mod tests {
    use super::{block_runs, check_block_runs};
    use crate::analysis::liveness::compute_liveness;
    use crate::construction::braun::{construct_program, BraunOptions};
    use crate::entity::EntityRef;
    use crate::generate::source::{GenConfig, TestCase};
    use crate::ir::Value;

    /// The runs of every block of generated functions pass the self-check;
    /// runs with one run cut short by a point, or a run given to a value the
    /// block does not have, are rejected.
    #[test]
    fn block_runs_pass_their_check_and_wrong_runs_do_not() {
        let mut rejected = 0;
        for seed in 0..20u64 {
            let tc = TestCase::from_seed(seed, &GenConfig::default());
            let module = construct_program(&tc.program, &BraunOptions::all_on());
            for f in &module.functions {
                let live = compute_liveness(f);
                for b in f.blocks.keys() {
                    let runs = block_runs(f, b, &live);
                    check_block_runs(f, b, &live, &runs);
                    let mut wrongs = Vec::new();
                    if let Some(i) = runs.iter().position(|r| r.2 > r.1) {
                        let mut cut = runs.clone();
                        cut[i].2 -= 1;
                        wrongs.push(cut);
                    }
                    if !runs.is_empty() {
                        let mut renamed = runs.clone();
                        renamed[0].0 = Value::new(f.value_count as usize);
                        wrongs.push(renamed);
                    }
                    for wrong in wrongs {
                        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            check_block_runs(f, b, &live, &wrong)
                        }));
                        assert!(caught.is_err(), "wrong runs of {b} pass: {wrong:?}");
                        rejected += 1;
                    }
                }
            }
        }
        assert!(rejected >= 20, "{rejected} wrong runs tried");
    }
}
