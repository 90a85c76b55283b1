//! Whether the pass being run checks itself, and how many checks ran.
//!
//! The check switch is one value, `flags::Flags`, passed down from the top
//! to the pass runner (`runner.rs`). While the runner runs a pass, it makes
//! the pass's flags the thread's current ones ([`with_flags`]); the
//! self-checks inside the pass (a recomputation compared with an
//! incremental structure, an assertion that costs more than a comparison)
//! ask [`in_checked_pass`], and every checker function calls [`count`] when
//! it starts. Code that calls a pass directly, outside a runner (a unit
//! test, a benchmark, a measurement of one pass), chooses the flags with
//! [`with_flags`]; with none chosen, the build's default applies
//! (`Flags::build_default`: on with debug assertions).
//!
//! A timed measurement runs with `Flags::unchecked()` and can then prove, by
//! [`invocations`] staying at zero, that no checker ran inside its timed
//! region. The count is per thread, so that a test can read its own.
//!
//! Architecture invariant: a checker that runs with checks off is a bug
//! that only a measurement notices; `tests/suite/self_checks.rs` runs every
//! back end with checks off and requires [`invocations`] to stay at zero.

use super::flags::Flags;
use std::cell::Cell;

const UNSET: u8 = 0;
const ON: u8 = 1;
const OFF: u8 = 2;

thread_local! {
    static THREAD: Cell<u8> = const { Cell::new(UNSET) };
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

/// Whether the pass running on this thread checks itself: the flags its
/// runner (or [`with_flags`]) gave it, else the build's default.
pub fn in_checked_pass() -> bool {
    match THREAD.with(Cell::get) {
        ON => true,
        OFF => false,
        _ => Flags::build_default().checks(),
    }
}

/// Runs `f` as a pass with `flags`, then restores the thread's previous
/// flags (also when `f` panics). The pass runner calls it around every pass
/// and its checks; code that calls a pass outside a runner calls it too.
pub fn with_flags<R>(flags: Flags, f: impl FnOnce() -> R) -> R {
    struct Restore(u8);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD.with(|t| t.set(self.0));
        }
    }
    let level = if flags.checks() { ON } else { OFF };
    let _restore = Restore(THREAD.with(|t| t.replace(level)));
    f()
}

/// Records that a checker started on this thread. Checker functions call
/// it first thing, whether or not their caller asked [`in_checked_pass`].
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
        let outer = in_checked_pass();
        let inner = with_flags(Flags::with_checks(!outer), || {
            assert_eq!(in_checked_pass(), !outer);
            with_flags(Flags::with_checks(outer), in_checked_pass)
        });
        assert_eq!(inner, outer);
        assert_eq!(in_checked_pass(), outer);
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
