//! The congruence classes of out-of-ssa's coalescer (Boissinot et al., CGO
//! 2009, §IV-B): each class's members in dominance pre-DFS order, the
//! `equal_anc_in` of every member, and the merge of two classes.
//!
//! Needs: the [`ValueInterference`] of the function being coalesced.
//!
//! A class with more than one member is an ordered set (`ClassSet`): a
//! merge inserts the members of the smaller class into the larger one
//! (the paper merges the two lists in linear time; with classes that grow
//! one variable at a time that is quadratic). The
//! `equal_anc_in` of every member lives in one map ([`AncestorMap`]; the
//! classes are disjoint). It is computed from scratch for a class the first
//! time a value-based linear test needs it, and kept up to date on a merge
//! that such a test has just allowed: §IV-B, "the equal intersecting
//! ancestor equal_anc_in(a) for the combined set is updated to the maximum
//! (following the pre-DFS order) of equal_anc_in(a) and equal_anc_out(a)";
//! the test returns the members whose `equal_anc_out` is not `⊥`, the only
//! ones that change. The parent of each member in its class's dominance
//! forest is kept the same way (the test returns the members whose parent
//! changes: those of the smaller class and their children in the larger);
//! the test uses it to find a parent in the larger class. A merge made without that test (the phi classes at
//! the start, the pinned classes, the other rules) marks the merged class
//! for recomputation.

use crate::ir::Value;
use crate::out_of_ssa::class_interference_linear::{equal_intersecting_ancestors, AncestorMap};
use crate::out_of_ssa::class_interference_local::{
    classes_interfere_local, forest_parents, key_of, later, var_of, ClassSet, MergeUpdates, ParentMap,
};
use crate::out_of_ssa::congruence_classes_recomputation as recomputation;
use crate::out_of_ssa::values::ValueInterference;
use rustc_hash::{FxHashMap, FxHashSet};

/// The classes' members and `equal_anc_in` (module documentation).
#[derive(Default)]
pub(crate) struct CongruenceClasses {
    /// The members of each class with more than one member, by root.
    sets: FxHashMap<Value, ClassSet>,
    /// `equal_anc_in` of the members of the classes in `valid`.
    anc_in: AncestorMap,
    /// The parent of each member of the classes in `valid` in its class's
    /// dominance forest.
    parents: ParentMap,
    /// The roots of the classes whose `equal_anc_in` is up to date.
    valid: FxHashSet<Value>,
    /// The roots of the last value-based linear test that found no
    /// interference, and its members with an `equal_anc_out`; used by the
    /// next merge if it merges exactly these.
    last_allowed: Option<(Value, Value, MergeUpdates)>,
    /// Updates and cache hits seen so far, for the sampling of the
    /// self-checks (`congruence_classes_recomputation.rs`).
    events: u64,
    /// The same, of classes over `SMALL_CLASS` members only.
    large_events: u64,
    /// Cross-checked class queries of more than `CROSS_CHECK_PAIRS`
    /// pairs so far (see [`CongruenceClasses::cross_check_now`]).
    large_queries: u64,
}

/// Class queries of up to this many pairs of members are cross-checked
/// with the pairwise test every time.
pub(crate) const CROSS_CHECK_PAIRS: usize = 4096;

impl CongruenceClasses {
    /// The set of class `root` (a class without an entry is `root` alone,
    /// or empty when `root` is not defined in a reachable block).
    fn set(&self, ctx: &ValueInterference<'_>, root: Value) -> ClassSet {
        match self.sets.get(&root) {
            Some(s) => s.clone(),
            None => key_of(ctx, root).into_iter().collect(),
        }
    }

    /// The members of class `root` in dominance pre-DFS order (see
    /// [`CongruenceClasses::set`]).
    pub(crate) fn members(&self, ctx: &ValueInterference<'_>, root: Value) -> Vec<Value> {
        match self.sets.get(&root) {
            Some(s) => s.iter().map(|&k| var_of(k)).collect(),
            None => key_of(ctx, root).map(var_of).into_iter().collect(),
        }
    }

    /// Computes the `equal_anc_in` of class `root` if it is not up to date.
    fn make_valid(&mut self, ctx: &ValueInterference<'_>, root: Value) {
        if self.valid.insert(root) {
            let members = self.members(ctx, root);
            equal_intersecting_ancestors(&members, ctx, &mut self.anc_in);
            forest_parents(&members, ctx, &mut self.parents);
        }
    }

    /// The value-based linear test of classes `x` and `y` (roots, distinct):
    /// true when they interfere (`class_interference_local.rs`).
    pub(crate) fn value_interfere(&mut self, ctx: &ValueInterference<'_>, x: Value, y: Value) -> bool {
        self.make_valid(ctx, x);
        self.make_valid(ctx, y);
        self.self_check(ctx, x, "a cache hit");
        self.self_check(ctx, y, "a cache hit");
        let small_x;
        let small_y;
        let sx = match self.sets.get(&x) {
            Some(s) => s,
            None => {
                small_x = self.set(ctx, x);
                &small_x
            }
        };
        let sy = match self.sets.get(&y) {
            Some(s) => s,
            None => {
                small_y = self.set(ctx, y);
                &small_y
            }
        };
        let outs = classes_interfere_local(sx, sy, ctx, &self.anc_in, &self.parents);
        let answer = outs.is_none();
        self.last_allowed = outs.map(|o| (x, y, o));
        answer
    }

    /// Merges classes `x` and `y` (roots, distinct) into `root` (one of
    /// them).
    pub(crate) fn merge(&mut self, ctx: &ValueInterference<'_>, x: Value, y: Value, root: Value) {
        let mut sx = self.sets.remove(&x).unwrap_or_else(|| self.set(ctx, x));
        let mut sy = self.sets.remove(&y).unwrap_or_else(|| self.set(ctx, y));
        if sx.len() < sy.len() {
            std::mem::swap(&mut sx, &mut sy);
        }
        sx.extend(sy);
        self.sets.insert(root, sx);
        let allowed = self.last_allowed.take().filter(|&(a, b, _)| (a, b) == (x, y) || (a, b) == (y, x));
        let both_valid = self.valid.remove(&x) & self.valid.remove(&y);
        match allowed {
            Some((_, _, updates)) if both_valid => {
                self.parents.extend(updates.parents);
                for (member, out) in updates.outs {
                    let inside = self.anc_in.get(&member).copied().flatten();
                    self.anc_in.insert(member, later(ctx, inside, Some(out)));
                }
                self.valid.insert(root);
                self.self_check(ctx, root, "a merge");
            }
            _ => {}
        }
    }

    /// Whether the coalescer's cross-check (`CoalescingOptions::cross_check`)
    /// compares the linear answer for classes `x` and `y` with the pairwise
    /// test now. The pairwise test costs (members of `x`) × (members of
    /// `y`), so comparing every query is quadratic in the function. Queries
    /// of up to [`CROSS_CHECK_PAIRS`] pairs are compared every time; in a
    /// function of more than `pass_manager::sampling::SAMPLE_ABOVE` values,
    /// larger ones at the first 8 such queries and then at the 16th,
    /// 32nd, 64th, ..., and below that size always.
    pub(crate) fn cross_check_now(&mut self, ctx: &ValueInterference<'_>, x: Value, y: Value) -> bool {
        let size = |r: Value| self.sets.get(&r).map_or(1, |s| s.len());
        if size(x).saturating_mul(size(y)) <= CROSS_CHECK_PAIRS
            || !crate::pass_manager::sampling::should_sample(ctx.value_count())
        {
            return true;
        }
        let n = self.large_queries;
        self.large_queries += 1;
        if n == 0 {
            crate::pass_manager::sampling::note_sampled(format!(
                "out-of-ssa's cross-check of the linear class test with the pairwise one: queries of more than \
             {CROSS_CHECK_PAIRS} pairs at the first 8 and then the 16th, 32nd, 64th, ..., not at every one"
            ));
        }
        n < 8 || n.is_power_of_two()
    }

    /// With the self-checks on, compares the `equal_anc_in` and forest
    /// parents held for class `root`, if it is up to date, with their recomputation
    /// (`congruence_classes_recomputation.rs`), at sampled events.
    fn self_check(&mut self, ctx: &ValueInterference<'_>, root: Value, what: &str) {
        if !self.valid.contains(&root) {
            return;
        }
        let n = self.sets.get(&root).map_or(1, |s| s.len());
        let (event, large_event) = (self.events, self.large_events);
        self.events += 1;
        if n > recomputation::SMALL_CLASS {
            self.large_events += 1;
        }
        let how = recomputation::should_check(ctx.value_count(), n, event, large_event);
        if how != recomputation::Check::Skip {
            let members = self.members(ctx, root);
            recomputation::check_class(ctx, &members, &self.anc_in, &self.parents, what, how);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::critical_edges::split_critical_edges;
    use crate::analysis::dominance::DomTree;
    use crate::analysis::liveness::compute_liveness;
    use crate::construction::braun::{construct_program, BraunOptions};
    use crate::generate::source::{GenConfig, TestCase};
    use crate::out_of_ssa::congruence_classes_recomputation::{check_class, Check};
    use crate::out_of_ssa::copy_insertion::insert_copies;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// The classes as the coalescer grows them, one merge at a time: the two
    /// sides of each copy of generated functions after copy insertion, then
    /// random pairs, each pair of classes tested by the
    /// value-based linear test and merged when it allows, and after every
    /// merge whose incremental update kept the class up to date, its
    /// `equal_anc_in` compared with their recomputation
    /// (`congruence_classes_recomputation.rs`).
    #[test]
    fn merged_classes_match_their_recomputation_after_every_merge() {
        let (mut checked, mut largest) = (0, 0);
        for seed in 0..30u64 {
            let tc = TestCase::from_seed(seed, &GenConfig::default());
            let module = construct_program(&tc.program, &BraunOptions::all_on());
            let mut rng = SmallRng::seed_from_u64(seed);
            for f in &module.functions {
                // After Method I's copy insertion, as the coalescer sees it:
                // every copy gives two variables of one value.
                let mut g = f.clone();
                split_critical_edges(&mut g);
                let copies = insert_copies(&mut g);
                let f = &g;
                let dom = DomTree::compute(f);
                let live = compute_liveness(f);
                let ctx = ValueInterference::new(f, &dom, &live);
                let values: Vec<Value> = (0..f.value_count).map(Value).filter(|&v| key_of(&ctx, v).is_some()).collect();
                if values.len() < 2 {
                    continue;
                }
                let mut root_of: FxHashMap<Value, Value> = values.iter().map(|&v| (v, v)).collect();
                let mut classes = CongruenceClasses::default();
                // The copies' two sides first, in order, as the coalescer
                // tries its affinities; then random pairs.
                let pairs: Vec<(Value, Value)> = copies
                    .iter()
                    .map(|c| (c.dest, c.source))
                    .chain(
                        (0..4 * values.len())
                            .map(|_| (values[rng.gen_range(0..values.len())], values[rng.gen_range(0..values.len())])),
                    )
                    .filter(|&(a, b)| root_of.contains_key(&a) && root_of.contains_key(&b))
                    .collect();
                for (a, b) in pairs {
                    let (x, y) = (root_of[&a], root_of[&b]);
                    if x == y || classes.value_interfere(&ctx, x, y) {
                        continue;
                    }
                    let root = x.min(y);
                    classes.merge(&ctx, x, y, root);
                    for r in root_of.values_mut() {
                        if *r == x || *r == y {
                            *r = root;
                        }
                    }
                    if classes.valid.contains(&root) {
                        let members = classes.members(&ctx, root);
                        largest = largest.max(members.len());
                        check_class(
                            &ctx,
                            &members,
                            &classes.anc_in,
                            &classes.parents,
                            "a merge of the test",
                            Check::Full,
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked >= 200 && largest >= 8, "{checked} merges checked, largest class {largest}");
    }
}
