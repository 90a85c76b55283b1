//! The incremental state of out-of-ssa's congruence classes
//! (`congruence_classes.rs`) recomputed from its definition, for the
//! self-checks (`pass_manager/self_checks.rs`).
//!
//! Needs: the [`ValueInterference`] of the function being coalesced, and a
//! class free of value interference (Boissinot et al., "Revisiting
//! Out-of-SSA Translation for Correctness, Code Quality, and Efficiency",
//! CGO 2009, §IV-B).
//!
//! `congruence_classes.rs` keeps, for every member of a class, its
//! `equal_anc_in`, and updates it in place when two classes merge (the
//! later of `equal_anc_in` and `equal_anc_out`, §IV-B). Here it comes from
//! its definition, pair by pair, without the stack walk, the chains or the
//! merge update: with `D(a)` the other members whose definition dominates
//! `a`'s, `equal_anc_in(a)` is a member of `D(a)` with `a`'s value that
//! intersects `a`, the latest such in the dominance pre-DFS order.
//!
//! Members defined at one point (phis of one block, the destinations of
//! one parallel copy) dominate each other, and which of them comes first
//! is a tie that the orders break differently: the merge walk orders them
//! by class, a from-scratch walk by number (`class_interference_local.rs`).
//! So a held entry is right when it is in the set and is defined either at
//! `a`'s own point or at the latest point of the set strictly above `a`;
//! `none` is right when no member of the set is strictly above `a`.
//!
//! The forest parent the class keeps for each member is compared the same
//! way, with `D(a)` as the set: a member of `D(a)` at `a`'s own point or at
//! the latest point of `D(a)` strictly above `a`, and `none` only when no
//! member is strictly above. That is all the merge walk relies on (its
//! forest search reads the parent's point, then the latest member there),
//! and it holds whichever way ties at one point were broken.
//!
//! That costs (members)² queries, as the definition is pairwise, so the
//! caller samples (see `should_check`): classes up to `SMALL_CLASS`
//! members at every update, larger ones up to `FULL_CLASS` members at one
//! update in `LARGE_CLASS_STRIDE`. For a class that grows one member at a
//! time to more than `FULL_CLASS` members (the phis of `gen --shape
//! nested-loops` or `wide-join` join one class), and in a function of more
//! than `pass_manager::sampling::SAMPLE_ABOVE` values, that would still be
//! (updates) × (members)², so there the larger classes are checked at
//! their first 8 updates and then at the 16th, 32nd, 64th, ... (counted
//! over the function's larger classes), and only at `SAMPLED_MEMBERS`
//! evenly spaced members, each against the whole class; `ssaref check`
//! prints a `sampled` line for it.

use crate::entity::EntityRef;
use crate::ir::Value;
use crate::out_of_ssa::values::{intersect, ValueInterference};
use crate::pass_manager::sampling;
use crate::pass_manager::self_checks;
use rustc_hash::FxHashMap;

/// Classes up to this many members are checked at every update; larger
/// ones at one update in `LARGE_CLASS_STRIDE`.
pub(crate) const SMALL_CLASS: usize = 64;
/// The sampling stride for classes over `SMALL_CLASS` members.
pub(crate) const LARGE_CLASS_STRIDE: u64 = 16;
/// In a function above the sampling size, the members of a class over
/// `SMALL_CLASS` members whose `equal_anc_in` and parent are recomputed
/// at a checked update.
pub(crate) const SAMPLED_MEMBERS: usize = 256;
/// The largest class checked at every member and at one update in
/// `LARGE_CLASS_STRIDE` in a function below the sampling size.
pub(crate) const FULL_CLASS: usize = 1024;

/// How an update of a class is checked.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Check {
    /// Not at all.
    Skip,
    /// Every member.
    Full,
    /// `SAMPLED_MEMBERS` evenly spaced members.
    Sampled,
}

/// How an update of a class of `members` members is checked, in a
/// function of `values` values: `event` counts the function's updates
/// before it, `large_event` those of classes over `SMALL_CLASS` members
/// (module documentation). Deterministic, so that a failure reproduces.
pub(crate) fn should_check(values: usize, members: usize, event: u64, large_event: u64) -> Check {
    if !self_checks::in_checked_pass() {
        Check::Skip
    } else if members <= SMALL_CLASS {
        Check::Full
    } else if sampling::should_sample(values) || members > FULL_CLASS {
        if large_event < 8 || large_event.is_power_of_two() {
            Check::Sampled
        } else {
            Check::Skip
        }
    } else if event.is_multiple_of(LARGE_CLASS_STRIDE) {
        Check::Full
    } else {
        Check::Skip
    }
}

/// Compares the `equal_anc_in` and the forest parents that
/// `congruence_classes.rs` holds for the members of one class (`members`,
/// in dominance pre-DFS order) with their recomputation; panics on the
/// first difference, naming the member, what is held and what is right.
/// `what` says which update led here. With [`Check::Sampled`], only
/// `SAMPLED_MEMBERS` evenly spaced members are compared (each against
/// the whole class).
pub(crate) fn check_class(
    ctx: &ValueInterference<'_>,
    members: &[Value],
    held_anc_in: &FxHashMap<Value, Option<Value>>,
    held_parents: &FxHashMap<Value, Option<Value>>,
    what: &str,
    how: Check,
) {
    self_checks::count();
    let checked: Vec<Value> = if how == Check::Sampled && members.len() > SAMPLED_MEMBERS {
        sampling::note_sampled(format!(
            "out-of-ssa's congruence-class self-check: equal_anc_in and forest parents recomputed at {SAMPLED_MEMBERS} \
             evenly spaced members of each class over {SMALL_CLASS} members (over {FULL_CLASS} in a function below \
             the sampling size), at the first 8 updates of such classes and then at the 16th, 32nd, 64th, ..., not \
             at every member of one update in {LARGE_CLASS_STRIDE}"
        ));
        sampling::evenly_spaced(members.len(), SAMPLED_MEMBERS).into_iter().map(|i| members[i]).collect()
    } else {
        members.to_vec()
    };
    let order = |v: Value| ctx.def_order(v);
    let name = |v: Option<Value>| v.map_or("none".to_string(), |v| format!("v{}", v.index()));
    // Whether `held` is right for `a` and the candidates `set` (module
    // documentation).
    let right = |a: Value, held: Option<Value>, set: &[Value]| {
        let above = set.iter().map(|&t| order(t)).filter(|&o| o != order(a)).max();
        match held {
            None => above.is_none(),
            Some(h) => set.contains(&h) && (order(h) == order(a) || Some(order(h)) == above),
        }
    };
    for &a in &checked {
        let dominating: Vec<Value> = members.iter().copied().filter(|&t| t != a && ctx.def_dominates(t, a)).collect();
        let equal: Vec<Value> = dominating
            .iter()
            .copied()
            .filter(|&t| ctx.value_of(t) == ctx.value_of(a) && intersect(ctx, a, t))
            .collect();
        let latest = |set: &[Value]| set.iter().copied().max_by_key(|&t| order(t));
        let held = held_anc_in.get(&a).copied();
        assert!(
            held.is_some_and(|e| right(a, e, &equal)),
            "self-check of the congruence classes after {what}: equal_anc_in(v{}) is held as {} but is {}",
            a.index(),
            held.map_or("missing".to_string(), name),
            name(latest(&equal))
        );
        let parent = held_parents.get(&a).copied();
        assert!(
            parent.is_some_and(|p| right(a, p, &dominating)),
            "self-check of the congruence classes after {what}: the forest parent of v{} is held as {} but is {}",
            a.index(),
            parent.map_or("missing".to_string(), name),
            name(latest(&dominating))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The updates [`should_check`] checks, of the first `n` of classes of
    /// `members` members in a function of `values` values (every update
    /// counted as one of a large class too).
    fn checked(values: usize, members: usize, n: u64) -> Vec<(u64, Check)> {
        self_checks::with_flags(crate::pass_manager::flags::Flags::checked(), || {
            (0..n).map(|e| (e, should_check(values, members, e, e))).filter(|&(_, c)| c != Check::Skip).collect()
        })
    }

    /// Small classes are checked at every update in full; larger ones at
    /// one update in `LARGE_CLASS_STRIDE` in full, and, in a function
    /// above the sampling size or above `FULL_CLASS` members, at the first
    /// 8 and the powers of two at sampled members. With the checks off,
    /// never.
    #[test]
    fn large_classes_of_large_functions_are_checked_at_powers_of_two_at_sampled_members() {
        let full = |es: &[u64]| es.iter().map(|&e| (e, Check::Full)).collect::<Vec<_>>();
        let huge = sampling::SAMPLE_ABOVE + 1;
        assert_eq!(checked(huge, SMALL_CLASS, 20), full(&(0..20).collect::<Vec<_>>()));
        assert_eq!(checked(sampling::SAMPLE_ABOVE, SMALL_CLASS + 1, 40), full(&[0, 16, 32]));
        let sampled: Vec<(u64, Check)> =
            [0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64].iter().map(|&e| (e, Check::Sampled)).collect();
        assert_eq!(checked(huge, SMALL_CLASS + 1, 100), sampled);
        assert_eq!(checked(sampling::SAMPLE_ABOVE, FULL_CLASS, 40), full(&[0, 16, 32]));
        assert_eq!(checked(sampling::SAMPLE_ABOVE, FULL_CLASS + 1, 100), sampled);
        let off =
            self_checks::with_flags(crate::pass_manager::flags::Flags::unchecked(), || should_check(huge, 2, 0, 0));
        assert_eq!(off, Check::Skip);
    }
}
