//! The allocation checker's memory of the functions it accepted
//! (`alloc_checker_memo.rs`): an equal function is accepted without a
//! second run, a function that differs anywhere is checked again, and an
//! acceptance reached without the self-checks does not answer a checked
//! pass.

use super::*;
use pretty_assertions::assert_eq;
use ssaref::checkers::alloc_checker_memo::forget;
use ssaref::pass_manager::flags::Flags;
use ssaref::pass_manager::self_checks::{invocations, with_flags};

/// The checker invocations counted while `f` runs.
fn counted(f: impl FnOnce()) -> u64 {
    let before = invocations();
    f();
    invocations() - before
}

#[test]
fn an_equal_function_is_accepted_once_and_a_different_one_is_checked() {
    forget();
    let correct = diamond_allocated(false);
    with_flags(Flags::checked(), || {
        let first = counted(|| accept(&correct));
        assert!(first > 1, "the first check runs check_no_scratch and the data flow: {first}");
        // Only the start of the second check is counted: it runs nothing.
        assert_eq!(counted(|| accept(&correct.clone())), 1);
        // The buggy variant differs from the accepted one in one place.
        reject(&diamond_allocated(true));
    });
}

#[test]
fn an_acceptance_without_self_checks_does_not_answer_a_checked_pass() {
    forget();
    let f = straight_allocated();
    with_flags(Flags::unchecked(), || accept(&f));
    let checked = with_flags(Flags::checked(), || counted(|| accept(&f)));
    assert!(checked > 1, "the checked pass runs the checker again: {checked}");
    assert_eq!(with_flags(Flags::checked(), || counted(|| accept(&f))), 1);
}
