//! A step counter for the tests of the work bounds the papers promise (the
//! linear class-interference test, the fast liveness query, Algorithm 5 of
//! Braun et al., the parallel-copy sequentialization): the passes call
//! [`step`] in the loops whose iterations the bound limits, and a test
//! reads the count around one call (`count_steps`, in unit tests only) and compares it with
//! the bound on inputs of growing size.
//!
//! The counter exists only in the library's own unit tests (`cfg(test)`):
//! elsewhere [`step`] is empty and compiles to nothing, so campaigns and
//! timings pay nothing for it. A change that keeps every answer but costs
//! more work (a mutant that tests every pair, rescans a list, revisits a
//! block) passes every test of the answers and fails a bound.

#[cfg(test)]
use std::cell::Cell;

#[cfg(test)]
thread_local! {
    static STEPS: Cell<u64> = const { Cell::new(0) };
}

/// Counts `n` steps of work on this thread (unit tests only).
#[inline(always)]
pub fn step(n: u64) {
    #[cfg(test)]
    STEPS.with(|s| s.set(s.get() + n));
    #[cfg(not(test))]
    let _ = n;
}

/// Runs `f` and returns its result with the steps it counted.
#[cfg(test)]
pub fn count_steps<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = STEPS.with(Cell::get);
    let r = f();
    (r, STEPS.with(Cell::get) - before)
}
