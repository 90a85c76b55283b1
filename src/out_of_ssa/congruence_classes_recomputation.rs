//! The incremental state of out-of-ssa's congruence classes
//! (`congruence_classes.rs`) recomputed from its definition, for the
//! self-checks (`analysis/self_checks.rs`).
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
//! That costs (members)² queries, so the caller samples (see
//! `should_check`).

use crate::analysis::self_checks;
use crate::entity::EntityRef;
use crate::ir::Value;
use crate::out_of_ssa::values::{intersect, ValueInterference};
use rustc_hash::FxHashMap;

/// Classes up to this many members are checked at every update; larger
/// ones at one update in [`LARGE_CLASS_STRIDE`].
pub(crate) const SMALL_CLASS: usize = 64;
/// The sampling stride for classes over [`SMALL_CLASS`] members.
pub(crate) const LARGE_CLASS_STRIDE: u64 = 16;

/// Whether the `event`-th update (counted by the caller, from 0) of a class
/// of `members` members is checked: always for a small class, one in
/// [`LARGE_CLASS_STRIDE`] for a large one. Deterministic, so that a failure
/// reproduces.
pub(crate) fn should_check(members: usize, event: u64) -> bool {
    self_checks::enabled() && (members <= SMALL_CLASS || event.is_multiple_of(LARGE_CLASS_STRIDE))
}

/// Compares the `equal_anc_in` and the forest parents that
/// `congruence_classes.rs` holds for the members of one class (`members`,
/// in dominance pre-DFS order) with their recomputation; panics on the
/// first difference, naming the member, what is held and what is right.
/// `what` says which update led here.
pub(crate) fn check_class(
    ctx: &ValueInterference<'_>,
    members: &[Value],
    held_anc_in: &FxHashMap<Value, Option<Value>>,
    held_parents: &FxHashMap<Value, Option<Value>>,
    what: &str,
) {
    self_checks::count();
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
    for &a in members {
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
