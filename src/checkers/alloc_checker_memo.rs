//! The allocation checker's recent verdicts, so that a function is checked
//! once however many times it is handed in.
//!
//! Needs: nothing but the machine function.
//!
//! The differential check runs ssaref's allocation checker on every back
//! end's output whatever the back end checked itself
//! (`pipeline::check_backend_output`), and the back ends run the same
//! checker as the check of their last pass: the same function is checked
//! twice in a row. Two configurations (two ssa-ra option sets, two
//! out-of-ssa configurations, at the same K) often allocate identical
//! code, checked again each time. The checker is a function of the
//! [`MFunction`] alone (its `k` included), so a function equal to one it
//! accepted has the same verdict: `once` keeps the last `CAPACITY`
//! functions the checker accepted on this thread and accepts an equal one
//! without running it again. The comparison is full equality, never a
//! hash, so a function that differs anywhere is checked. A rejection is not
//! kept: a failing function is checked again, and says why each time.
//!
//! The self-checks inside the checker (`alloc_checker_states_recomputation.rs`)
//! run only in a checked pass; a verdict reached without them answers only
//! a caller that does not ask for them either.

use crate::mir::MFunction;
use crate::pass_manager::self_checks;
use std::cell::RefCell;
use std::collections::VecDeque;

/// How many accepted functions a thread keeps: more than one program's
/// allocations at one K by every back end.
pub(crate) const CAPACITY: usize = 32;

/// A function the checker accepted, and whether its self-checks ran.
struct Accepted {
    function: MFunction,
    self_checked: bool,
}

thread_local! {
    static ACCEPTED: RefCell<VecDeque<Accepted>> = const { RefCell::new(VecDeque::new()) };
}

/// The verdict of `check` on `m`: `Ok` at once when this thread's checker
/// accepted a function equal to `m` lately (with its self-checks if the
/// current pass asks for them), else `check(m)`, remembered when it
/// accepts.
pub(crate) fn once<E>(m: &MFunction, check: impl FnOnce(&MFunction) -> Result<(), E>) -> Result<(), E> {
    let self_checks = self_checks::in_checked_pass();
    let seen = ACCEPTED.with(|a| a.borrow().iter().any(|e| (e.self_checked || !self_checks) && e.function == *m));
    if seen {
        return Ok(());
    }
    check(m)?;
    ACCEPTED.with(|a| {
        let mut a = a.borrow_mut();
        if a.len() == CAPACITY {
            a.pop_front();
        }
        a.push_back(Accepted { function: m.clone(), self_checked: self_checks });
    });
    Ok(())
}

/// Forgets this thread's accepted functions, so that the next check of
/// each runs in full (for tests that count the checker's work).
pub fn forget() {
    ACCEPTED.with(|a| a.borrow_mut().clear());
}
