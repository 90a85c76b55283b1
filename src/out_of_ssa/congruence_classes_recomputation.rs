//! The incremental state of out-of-ssa's congruence classes
//! (`congruence_classes.rs`) recomputed from its definition, for the
//! self-checks (`analysis/self_checks.rs`).
//!
//! Needs: the [`ValueInterference`] of the function being coalesced, and a
//! class free of value interference (Boissinot et al., "Revisiting
//! Out-of-SSA Translation for Correctness, Code Quality, and Efficiency",
//! CGO 2009, §IV-B).
//!
//! `congruence_classes.rs` keeps, for every member of a class, its parent
//! in the class's dominance forest and its `equal_anc_in`, and updates both
//! in place when two classes merge (the later of `equal_anc_in` and
//! `equal_anc_out`, the parents the test returned). Here both come from
//! their definitions, pair by pair, without the stack walk, the chains or
//! the merge updates:
//! - the parent of `a` is the member `t` that comes latest before `a` in
//!   the dominance pre-DFS order among those whose definition dominates
//!   `a`'s (a pre-order lists a subtree contiguously, so that is the nearest
//!   dominating member);
//! - `equal_anc_in(a)` is the latest such `t` that also has `a`'s value and
//!   intersects `a`.
//!
//! That costs (members)² queries, so the caller samples (see
//! [`should_check`]).

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

/// Compares the parents and `equal_anc_in` that `congruence_classes.rs`
/// holds for the members of one class (`members`, in dominance pre-DFS
/// order) with their recomputation; panics on the first difference, naming
/// the member, what is held and what is right. `what` says which update
/// led here.
pub(crate) fn check_class(
    ctx: &ValueInterference<'_>,
    members: &[Value],
    held_anc_in: &FxHashMap<Value, Option<Value>>,
    held_parents: &FxHashMap<Value, Option<Value>>,
    what: &str,
) {
    self_checks::count();
    for (i, &a) in members.iter().enumerate() {
        let mut parent = None;
        let mut anc_in = None;
        for &t in &members[..i] {
            if ctx.def_dominates(t, a) {
                parent = Some(t);
                if ctx.value_of(t) == ctx.value_of(a) && intersect(ctx, a, t) {
                    anc_in = Some(t);
                }
            }
        }
        let name = |v: Option<Value>| v.map_or("none".to_string(), |v| format!("v{}", v.index()));
        let held_parent = held_parents.get(&a).copied();
        assert!(
            held_parent == Some(parent),
            "self-check of the congruence classes after {what}: the forest parent of v{} is held as {} but is {}",
            a.index(),
            held_parent.map_or("missing".to_string(), name),
            name(parent)
        );
        let held = held_anc_in.get(&a).copied();
        assert!(
            held == Some(anc_in),
            "self-check of the congruence classes after {what}: equal_anc_in(v{}) is held as {} but is {}",
            a.index(),
            held.map_or("missing".to_string(), name),
            name(anc_in)
        );
    }
}
