//! The cross-check of out-of-ssa's two liveness methods (Boissinot et al.,
//! "Revisiting Out-of-SSA Translation", CGO 2009, §IV-A): the live-in and
//! live-out sets of data-flow analysis (`analysis/liveness.rs`) against the
//! answers of the fast liveness check (`liveness_check.rs`, Boissinot et
//! al. CGO 2008), which needs no sets. The two share no code beyond the IR
//! and the edge convention (`liveness::out_edges`), and
//! `liveness_check.rs` answers with the conventions of `liveness.rs`, so
//! they must agree on every value at every reachable block.
//!
//! Campaigns run it on every program out-of-ssa translates
//! (`OutOfSsaOptions::cross_check`), whichever method the configuration
//! uses: a mistake of either method is then found even where the other
//! method, being the one in use, would have hidden it.
//!
//! # Which queries
//!
//! Asking the check about every value at every block costs (blocks) ×
//! (values) queries, quadratic in the size of the function, where the
//! places a value is live add up to the size of the sets. The cross-check
//! asks only where one of the two methods may say "live", in two parts:
//!
//! 1. *Every member of the sets*: for each reachable block `b` and each
//!    value in `live_in[b]` (in `live_out[b]`), the check must say live-in
//!    at (live-out of) `b`. A value the sets hold where it is not live is
//!    found here, wherever it is.
//! 2. *The check's live range of each value, walked forward from its
//!    definition*: for a value `v` defined in block `d`, a search from `d`
//!    along the CFG edges asks the check about `v` at each block it
//!    enters (live-in and live-out, compared with the sets there), and
//!    enters the successors of a block only when the check or the sets say
//!    `v` is live-out of it. A value the sets miss where it is live is
//!    found here: the blocks where `v` is live-in form, with `d`, a region
//!    that this search covers. If `v` is live-in at a block `c ≠ d`, it is
//!    live-out of every predecessor of `c` (`live_out[p]` contains
//!    `live_in[c]` minus the phi destinations of `c`, and `v` is not one,
//!    since `d ≠ c` defines it), and each predecessor other than `d` has
//!    `v` live-in (it does not define `v`); following predecessors back
//!    along a path from the entry to `c`, which passes `d` because `d`
//!    dominates `c` in strict SSA form, reaches `d` through live blocks
//!    only. The search walks that path forward.
//!
//! The check is asked (sets' members) + (edges leaving the blocks where a
//! value is live-out) + (values) times, and a member is looked up in a
//! sorted set by binary search: O((L + V) log V) with L the size of the
//! live sets, near-linear in the function where the exhaustive comparison
//! is (blocks) × (values), and it needs no sampling at any size. What it
//! does not ask, and the exhaustive comparison would: the check at a block
//! where neither method says the value is live next to its live range. A
//! check that says "live" there while the sets do not, at a block none of
//! whose predecessors it calls live-out, is not seen; the sets cannot be
//! wrong that way unseen, since every one of their members is asked, and
//! every value they miss inside the check's live range is found by part 2.
//!
//! The reported disagreement is the first, in the order of block, then
//! value, then live-in before live-out, among those found: when only the
//! sets are wrong that is the first of all disagreements, the one the
//! exhaustive comparison reports.

use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::Liveness;
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{Block, Function, Value};
use crate::out_of_ssa::liveness_check::LivenessCheck;

pub use crate::error::out_of_ssa_errors::LivenessDisagreement;

/// Compares the sets with the check at every member of the sets and along
/// the check's live range of every value (module documentation); the
/// first disagreement found is the error.
pub fn cross_check_liveness(f: &Function, sets: &Liveness, check: &LivenessCheck) -> Result<(), LivenessDisagreement> {
    crate::pass_manager::self_checks::count();
    let dom: &DomTree = check.dom();
    let reachable: Vec<Block> = f.blocks.keys().filter(|&b| dom.is_reachable(b)).collect();
    if let Some(&b) = reachable.iter().find(|&&b| sets.live_in.get(b).is_none() || sets.live_out.get(b).is_none()) {
        return Err(LivenessDisagreement::MissingBlock(b));
    }
    let mut first = FirstDisagreement::default();
    // Part 1: every member of the sets.
    for &b in &reachable {
        for v in sets.live_in[b].iter() {
            if !check.live_in(v, b) {
                first.offer(LivenessDisagreement::LiveIn { value: v, block: b, by_sets: true });
            }
        }
        for v in sets.live_out[b].iter() {
            if !check.live_out(v, b) {
                first.offer(LivenessDisagreement::LiveOut { value: v, block: b, by_sets: true });
            }
        }
    }
    // Part 2: the check's live range of every value, from its definition.
    let mut search = RangeSearch::new(f);
    for (v, d) in definitions(f).iter().enumerate() {
        if let Some(d) = d.filter(|&d| dom.is_reachable(d)) {
            search.walk(Value::new(v), d, sets, check, &mut first);
        }
    }
    first.0.map_or(Ok(()), Err)
}

/// The block of the definition of every value: the entry for a parameter,
/// the block of its phi or instruction otherwise (the IR read here, not
/// the check's def-use chains).
fn definitions(f: &Function) -> Vec<Option<Block>> {
    let mut n = f.value_count as usize;
    f.for_each_value_mention(|v| n = n.max(v.index() + 1));
    let mut defs = vec![None; n];
    for &p in &f.params {
        defs[p.index()] = Some(Function::ENTRY);
    }
    for (b, data) in f.blocks.iter() {
        for phi in &data.phis {
            defs[phi.dest.index()] = Some(b);
        }
        for d in data.insts.iter().filter_map(|i| i.dest) {
            defs[d.index()] = Some(b);
        }
    }
    defs
}

/// The first disagreement in the order of the exhaustive comparison.
#[derive(Default)]
struct FirstDisagreement(Option<LivenessDisagreement>);

impl FirstDisagreement {
    fn offer(&mut self, e: LivenessDisagreement) {
        let key = |e: &LivenessDisagreement| match *e {
            LivenessDisagreement::MissingBlock(b) => (b.index(), 0, 0),
            LivenessDisagreement::LiveIn { value, block, .. } => (block.index(), value.index(), 0),
            LivenessDisagreement::LiveOut { value, block, .. } => (block.index(), value.index(), 1),
        };
        if self.0.as_ref().is_none_or(|old| key(&e) < key(old)) {
            self.0 = Some(e);
        }
    }
}

/// The forward search of part 2, with its marks kept from one value to the
/// next (a block is marked with the value's index plus one).
struct RangeSearch {
    succs: EntityVec<Block, Vec<Block>>,
    mark: EntityVec<Block, u32>,
    work: Vec<Block>,
}

impl RangeSearch {
    fn new(f: &Function) -> RangeSearch {
        let n = f.blocks.len();
        let succs = f.blocks.keys().map(|b| f.succs(b).into_iter().filter(|s| s.index() < n).collect()).collect();
        RangeSearch { succs, mark: EntityVec::from_elem(0, n), work: Vec::new() }
    }

    /// Walks `v`'s live range from its definition's block `d`, comparing
    /// the two methods at each block entered.
    fn walk(&mut self, v: Value, d: Block, sets: &Liveness, check: &LivenessCheck, first: &mut FirstDisagreement) {
        let stamp = v.index() as u32 + 1;
        self.mark[d] = stamp;
        self.work.push(d);
        while let Some(b) = self.work.pop() {
            let (set_in, check_in) = (sets.live_in[b].contains(v), check.live_in(v, b));
            if set_in != check_in {
                first.offer(LivenessDisagreement::LiveIn { value: v, block: b, by_sets: set_in });
            }
            let (set_out, check_out) = (sets.live_out[b].contains(v), check.live_out(v, b));
            if set_out != check_out {
                first.offer(LivenessDisagreement::LiveOut { value: v, block: b, by_sets: set_out });
            }
            if !(set_out || check_out) {
                continue;
            }
            for &s in &self.succs[b] {
                if self.mark[s] != stamp {
                    self.mark[s] = stamp;
                    self.work.push(s);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::liveness::compute_liveness;
    use crate::analysis::work_steps::count_steps;
    use crate::construction::braun::{construct_program, BraunOptions};
    use crate::generate::source::{Shape, TestCase, WorstShape};

    /// The comparison of every value at every reachable block, in block,
    /// then value order: what the cross-check must answer whenever the
    /// sets are the wrong side.
    fn exhaustive(f: &Function, sets: &Liveness, check: &LivenessCheck) -> Result<(), LivenessDisagreement> {
        for b in f.blocks.keys().filter(|&b| check.dom().is_reachable(b)) {
            let (Some(live_in), Some(live_out)) = (sets.live_in.get(b), sets.live_out.get(b)) else {
                return Err(LivenessDisagreement::MissingBlock(b));
            };
            for v in (0..f.value_count as usize).map(Value::new) {
                let (set_in, check_in) = (live_in.contains(v), check.live_in(v, b));
                if set_in != check_in {
                    return Err(LivenessDisagreement::LiveIn { value: v, block: b, by_sets: set_in });
                }
                let (set_out, check_out) = (live_out.contains(v), check.live_out(v, b));
                if set_out != check_out {
                    return Err(LivenessDisagreement::LiveOut { value: v, block: b, by_sets: set_out });
                }
            }
        }
        Ok(())
    }

    fn functions(shape: &str, seed: u64, size: usize) -> Vec<Function> {
        let config = crate::generate::source::GenConfig { size, ..Shape::from_name(shape).expect("a shape").config() };
        construct_program(&TestCase::from_seed(seed, &config).program, &BraunOptions::all_on()).functions
    }

    /// Planted wrong sets: one value taken out of, or put into, one live-in
    /// or live-out set, at pseudo-random places of generated functions,
    /// structured and with gotos (irreducible loops among them). The
    /// cross-check rejects each with the same disagreement as the
    /// exhaustive comparison, and accepts the right sets.
    #[test]
    fn planted_wrong_sets_get_the_exhaustive_comparisons_verdict() {
        let (mut planted, mut added) = (0, 0);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: usize| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize % m.max(1)
        };
        for (shape, seed) in [3u64, 4, 5, 6, 7, 8]
            .into_iter()
            .flat_map(|seed| [("structured", seed), ("gotos", seed), ("everything", seed)])
        {
            for f in functions(shape, seed, 150) {
                let sets = compute_liveness(&f);
                let check = LivenessCheck::new(&f);
                assert_eq!(cross_check_liveness(&f, &sets, &check), Ok(()));
                let reachable: Vec<Block> = f.blocks.keys().filter(|&b| check.dom().is_reachable(b)).collect();
                for _ in 0..40 {
                    let b = reachable[next(reachable.len())];
                    let mut wrong = sets.clone();
                    let set = if next(2) == 0 { &mut wrong.live_in[b] } else { &mut wrong.live_out[b] };
                    // Half of the time a member, else any value.
                    let members: Vec<Value> = set.iter().collect();
                    let v = match next(2) {
                        0 if !members.is_empty() => members[next(members.len())],
                        _ => Value::new(next(f.value_count as usize)),
                    };
                    if !set.remove(v) {
                        set.insert(v);
                        added += 1;
                    }
                    let expected = exhaustive(&f, &wrong, &check);
                    assert!(expected.is_err(), "{v} at {b}");
                    assert_eq!(cross_check_liveness(&f, &wrong, &check), expected, "{v} at {b}");
                    planted += 1;
                }
            }
        }
        assert!(planted > 400 && added > 100 && planted - added > 100, "{planted} planted, {added} of them added");
    }

    /// The work of the check's queries grows with the live ranges, not with
    /// (blocks) × (values): four times the nesting of `nested-ifs` costs at
    /// most five times the steps (the exhaustive comparison: sixteen).
    #[test]
    fn the_work_grows_near_linearly_on_nested_ifs() {
        let steps = |n: usize| {
            let program = crate::frontend::parser::parse_program(&WorstShape::NestedIfs.source(n)).expect("parses");
            let f = &construct_program(&program, &BraunOptions::all_on()).functions[0];
            let (sets, check) = (compute_liveness(f), LivenessCheck::new(f));
            let (verdict, steps) = count_steps(|| cross_check_liveness(f, &sets, &check));
            assert_eq!(verdict, Ok(()));
            steps
        };
        let (small, large) = (steps(200), steps(800));
        assert!(small > 200 && large <= 5 * small, "{small} steps at 200 levels, {large} at 800");
    }
}
