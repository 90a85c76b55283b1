//! The allocation checker's incremental states (`alloc_checker_states.rs`)
//! compared with a recomputation, for the self-checks
//! (`pass_manager/self_checks.rs`).
//!
//! Needs: nothing but the states and the machine function.
//!
//! Three structures of the checker are updated in place and would hide a
//! wrong update behind a verdict that happens to be right:
//! - the live slots of every block, found by a worklist that recomputes a
//!   block only when a successor's set changed ([`check_live_slots`]
//!   recomputes every block in every round, on ordered sets of its own,
//!   until nothing changes);
//! - the dense state reused from block to block, which clears only the
//!   locations written since it was last loaded ([`load_checked`] compares
//!   every location with the sparse state it was loaded from);
//! - the sparse entry states, met in place with the state of each incoming
//!   edge ([`meet_checked`] compares every location with the meet of the
//!   two states before it, location by location).
//!
//! The last two cost the number of locations per event, the first the
//! rounds times the function: [`SMALL`] locations or blocks are checked at
//! every event, larger ones at one event in [`STRIDE`] (deterministic, so
//! that a failure reproduces) and a live-slot fixpoint over more than
//! [`LARGE_FUNCTION`] blocks not at all. One event in [`STRIDE`] is still
//! (blocks) × (locations) / 16: with every value in a slot of its own (the
//! conventional allocator's spill-everything), quadratic in the function.
//! So states of more than `pass_manager::sampling::SAMPLE_ABOVE` locations
//! (only a function of more values than that has them) are checked at the
//! first 8 events of the function's check and then at the 16th, 32nd,
//! 64th, ... ([`start_function`] starts the count); `ssaref check` prints
//! a `sampled` line for it.

use crate::checkers::alloc_checker_states::{Dense, Locations, Sparse};
use crate::entity::EntityRef;
use crate::ir::Block;
use crate::mir::{Loc, MFunction, MInst};
use crate::pass_manager::sampling;
use crate::pass_manager::self_checks;
use std::cell::Cell;
use std::collections::BTreeSet;
use std::fmt::Debug;

/// States of at most this many locations are checked at every event.
pub(crate) const SMALL: usize = 256;
/// The sampling stride for larger states.
pub(crate) const STRIDE: u64 = 16;
/// Functions with more blocks than this get no live-slot recomputation.
pub(crate) const LARGE_FUNCTION: usize = 5_000;

thread_local! {
    /// Events on states over [`SMALL`] locations since [`start_function`].
    static EVENTS: Cell<u64> = const { Cell::new(0) };
}

/// Starts the count of events of one function's check.
pub(crate) fn start_function() {
    EVENTS.with(|e| e.set(0));
}

/// Whether an event on a state of `locations` locations is checked
/// (module documentation).
fn sampled(locations: usize) -> bool {
    if locations <= SMALL {
        return true;
    }
    let n = EVENTS.with(|e| {
        let n = e.get();
        e.set(n + 1);
        n
    });
    if !sampling::should_sample(locations) {
        return n.is_multiple_of(STRIDE);
    }
    if n == 0 {
        sampling::note_sampled(format!(
            "the allocation checker's state self-check: states of more than {} locations compared with their \
             recomputation at the first 8 loads and meets of a function and then at the 16th, 32nd, 64th, ..., \
             not at one in {STRIDE}",
            sampling::SAMPLE_ABOVE
        ));
    }
    n < 8 || n.is_power_of_two()
}

/// `state.load(from)`, then, with the self-checks on and sampled, every
/// location of `state` compared with `from`; panics on a difference.
pub(crate) fn load_checked<T: Copy + PartialEq + Debug>(state: &mut Dense<T>, from: &Sparse<T>) {
    state.load(from);
    if self_checks::in_checked_pass() && sampled(state.len()) {
        self_checks::count();
        for i in 0..state.len() {
            assert!(
                state.get(i) == from.get(i),
                "self-check of the allocation checker: location {i} holds {:?} after loading a state where it is {:?}",
                state.get(i),
                from.get(i)
            );
        }
    }
}

/// `old.meet_with(incoming, meet)`, then, with the self-checks on and
/// sampled, every location below `locations` compared with the meet of the
/// two states before it, and the answer with whether one changed; panics
/// on a difference.
pub(crate) fn meet_checked<T: Copy + PartialEq + Debug>(
    old: &mut Sparse<T>,
    incoming: &Sparse<T>,
    meet: impl Fn(T, T) -> T,
    locations: usize,
) -> bool {
    if !(self_checks::in_checked_pass() && sampled(locations)) {
        return old.meet_with(incoming, meet);
    }
    self_checks::count();
    let before: Vec<T> = (0..locations).map(|i| old.get(i)).collect();
    let changed = old.meet_with(incoming, &meet);
    let mut differs = false;
    for (i, &b) in before.iter().enumerate() {
        let expected = meet(b, incoming.get(i));
        differs |= expected != b;
        assert!(
            old.get(i) == expected,
            "self-check of the allocation checker: location {i} is {:?} after a meet of {:?} and {:?}",
            old.get(i),
            b,
            incoming.get(i)
        );
    }
    assert!(
        changed == differs,
        "self-check of the allocation checker: a meet said {changed} for whether the state changed"
    );
    changed
}

/// Compares `held`, the live slots at the entry of every block by
/// `alloc_checker_states::live_slots` (same arguments), with a round-robin
/// recomputation of every block of `rpo` until nothing changes; panics on
/// the first difference. Skipped above [`LARGE_FUNCTION`] blocks.
pub(crate) fn check_live_slots(
    m: &MFunction,
    rpo: &[Block],
    succs: impl Fn(Block) -> Vec<Block>,
    index: impl Fn(Loc) -> usize,
    held: &[Vec<u32>],
) {
    if rpo.len() > LARGE_FUNCTION {
        return;
    }
    self_checks::count();
    let mut live: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); m.blocks.len()];
    loop {
        let mut changed = false;
        for &b in rpo {
            let mut set: BTreeSet<u32> = BTreeSet::new();
            for s in succs(b) {
                set.extend(live[s.index()].iter().copied());
                set.extend(
                    m.blocks[s].phis.iter().filter(|p| matches!(p.loc, Loc::Slot(_))).map(|p| index(p.loc) as u32),
                );
            }
            for inst in m.blocks[b].insts.iter().rev() {
                match inst.inst {
                    MInst::Spill { slot, .. } => {
                        set.remove(&(index(Loc::Slot(slot)) as u32));
                    }
                    MInst::Reload { slot, .. } => {
                        set.insert(index(Loc::Slot(slot)) as u32);
                    }
                    MInst::Call(ref call) => {
                        set.extend(call.args.iter().filter(|l| matches!(l, Loc::Slot(_))).map(|&l| index(l) as u32));
                    }
                    _ => {}
                }
            }
            if set != live[b.index()] {
                live[b.index()] = set;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for &b in rpo {
        let expected: Vec<u32> = live[b.index()].iter().copied().collect();
        assert!(
            held[b.index()] == expected,
            "self-check of the allocation checker: the live slots at the entry of {b} are held as {:?} but are {:?}",
            held[b.index()],
            expected
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events [`sampled`] checks from the start of a function, of the
    /// first `n`, for states of `locations` locations.
    fn checked_events(locations: usize, n: u64) -> Vec<u64> {
        start_function();
        (0..n).filter(|_| sampled(locations)).collect()
    }

    /// Small states are checked at every event, larger ones at one in
    /// [`STRIDE`], and states above the sampling size at the first 8 events
    /// and the powers of two, counted from the start of each function.
    #[test]
    fn large_states_are_checked_at_a_stride_and_huge_ones_at_powers_of_two() {
        assert_eq!(checked_events(SMALL, 40), (0..40).collect::<Vec<_>>());
        assert_eq!(checked_events(SMALL + 1, 40), vec![0, 16, 32]);
        let huge = sampling::SAMPLE_ABOVE + 1;
        assert_eq!(checked_events(huge, 100), vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64]);
        // A new function starts the count again.
        assert_eq!(checked_events(huge, 3), vec![0, 1, 2]);
        assert!(sampling::sampled_checks().iter().any(|s| s.starts_with("the allocation checker's state self-check")));
    }
}
