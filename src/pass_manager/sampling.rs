//! Sampled checks for large functions: a checker that is inherently
//! superlinear gets a cheaper mode for large inputs, and says which
//! property is then checked only by sampling.
//!
//! A checker whose cost grows with the product of two sizes of the function
//! (blocks times values) asks [`should_sample`] with the function's size
//! (instructions and phis). Above [`SAMPLE_ABOVE`] it checks its property
//! at a deterministic sample of the function (no randomness: the same input
//! samples the same places) and records what it sampled with
//! [`note_sampled`]; `ssaref check` prints the records
//! ([`sampled_checks`]), and `--full-checks` ([`force_full_checks`]) turns
//! sampling off. The checkers that sample, and the property they then
//! check only in part, are listed in `docs/scaling.md`.
//!
//! The module is in `analysis` so that the verifier (`verifier.rs`) can use
//! it as well as the checkers and out-of-ssa. The setting is process-wide, as
//! the memory limit is
//! (`cli/max_memory.rs`): the checkers run deep inside the passes, and a
//! flag threaded through every pass's options would reach them only through
//! code they check.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Functions with more instructions and phis than this are checked by
/// sampling (unless [`force_full_checks`]). The corpus and the generated
/// programs of the tests stay far below it (at most a few thousand).
pub const SAMPLE_ABOVE: usize = 20_000;

static FULL: AtomicBool = AtomicBool::new(false);
static SAMPLED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// With `true`, every checker checks in full whatever the size.
pub fn force_full_checks(on: bool) {
    FULL.store(on, Ordering::Relaxed);
}

thread_local! {
    /// A lower threshold than [`SAMPLE_ABOVE`] for this thread, set by
    /// [`with_sample_above`].
    static THRESHOLD: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with `threshold` in place of [`SAMPLE_ABOVE`] on this thread,
/// then restores the previous one (also when `f` panics): a test shows
/// what sampling does on a small function.
pub fn with_sample_above<R>(threshold: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<usize>);
    impl Drop for Restore {
        fn drop(&mut self) {
            THRESHOLD.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(THRESHOLD.with(|t| t.replace(Some(threshold))));
    f()
}

/// True when a checker should sample a function of `size` instructions and
/// phis.
pub fn should_sample(size: usize) -> bool {
    !FULL.load(Ordering::Relaxed) && size > THRESHOLD.with(|t| t.get()).unwrap_or(SAMPLE_ABOVE)
}

/// Records that a check sampled: `what` names the check and the part of
/// its property it checked.
pub fn note_sampled(what: String) {
    let mut list = SAMPLED.lock().unwrap_or_else(|e| e.into_inner());
    if !list.contains(&what) {
        list.push(what);
    }
}

/// The checks that sampled so far, in the order they first did.
pub fn sampled_checks() -> Vec<String> {
    SAMPLED.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// `count` items out of `0..n`, evenly spaced from the first (all of them
/// when `n <= count`).
pub fn evenly_spaced(n: usize, count: usize) -> Vec<usize> {
    if n <= count {
        return (0..n).collect();
    }
    (0..count).map(|i| i * n / count).collect()
}
