//! Whether the passes check themselves, and how many checks ran.
//!
//! Every check that a pass makes of its own work (a checker between
//! passes, a recomputation compared with an incremental structure, an
//! assertion that costs more than a comparison) asks [`enabled`] before it
//! runs, and every checker function calls [`count`] when it starts. A timed
//! measurement turns checks off and can then prove, by [`invocations`]
//! staying at zero, that no checker ran inside its timed region.
//!
//! The setting has three levels, the innermost that is set wins:
//! 1. a thread's own setting, for the duration of [`with_checks`] (tests
//!    use it, so that tests running on other threads are not affected);
//! 2. the process's setting, [`set_process_checks`] (the command line's
//!    `--no-check`, and `ssaref reproduce`, which measures with checks off);
//! 3. the build: on when debug assertions are on (`cargo test`, the
//!    `release` profile), off otherwise (the `measure` profile).
//!
//! The count is per thread, so that a test can read its own.
//!
//! Architecture invariant: a checker that runs with checks off is a bug
//! that only a measurement notices; `tests/suite/self_checks.rs` runs every
//! back end with checks off and requires [`invocations`] to stay at zero.

use std::cell::Cell;
use std::sync::atomic::{AtomicU8, Ordering};

const UNSET: u8 = 0;
const ON: u8 = 1;
const OFF: u8 = 2;

static PROCESS: AtomicU8 = AtomicU8::new(UNSET);

thread_local! {
    static THREAD: Cell<u8> = const { Cell::new(UNSET) };
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

fn level(on: bool) -> u8 {
    if on {
        ON
    } else {
        OFF
    }
}

/// Whether checks run on this thread now.
pub fn enabled() -> bool {
    match THREAD.with(Cell::get) {
        ON => true,
        OFF => false,
        _ => match PROCESS.load(Ordering::Relaxed) {
            ON => true,
            OFF => false,
            _ => cfg!(debug_assertions),
        },
    }
}

/// Sets the process's setting (`None`: back to the build's default).
/// Threads that set their own with [`with_checks`] keep it.
pub fn set_process_checks(on: Option<bool>) {
    PROCESS.store(on.map_or(UNSET, level), Ordering::Relaxed);
}

/// Runs `f` with checks on or off on this thread, then restores the
/// thread's previous setting (also when `f` panics).
pub fn with_checks<R>(on: bool, f: impl FnOnce() -> R) -> R {
    struct Restore(u8);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(THREAD.with(|t| t.replace(level(on))));
    f()
}

/// Records that a checker started on this thread. Checker functions call
/// it first thing, whether or not their caller asked [`enabled`].
pub fn count() {
    COUNT.with(|c| c.set(c.get() + 1));
}

/// How many checkers started on this thread so far.
pub fn invocations() -> u64 {
    COUNT.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_setting_wins_and_is_restored() {
        let outer = enabled();
        let inner = with_checks(!outer, || {
            assert_eq!(enabled(), !outer);
            with_checks(outer, enabled)
        });
        assert_eq!(inner, outer);
        assert_eq!(enabled(), outer);
    }

    #[test]
    fn count_is_per_thread() {
        let before = invocations();
        count();
        count();
        assert_eq!(invocations(), before + 2);
        let other = std::thread::spawn(invocations).join().unwrap();
        assert_eq!(other, 0);
    }
}
