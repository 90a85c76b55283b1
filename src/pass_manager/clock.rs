//! The time of each phase of a pass, recorded only when asked.
//!
//! A pass names its phases with [`phase`] (Cytron et al.'s construction:
//! CFG lowering, dominators, frontiers, phi placement, renaming; Braun et
//! al.'s: the AST walk, unreachable code, Algorithm 5, dead phis and
//! emission). A measurement that wants the phases runs the pass inside
//! [`record`], which hands back the time of each phase, summed by name in
//! the order the names first appeared. Outside [`record`], [`phase`] only
//! reads a thread-local flag: the passes cost the same as without it.
//!
//! Per thread, so that a measurement sees only its own passes. The clock
//! is the thread's CPU time ([`thread_cpu_time`]), not wall time: on a
//! shared machine, the time a thread waits for a core is not the pass's.

use std::cell::RefCell;
use std::time::Duration;

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`): unlike wall
/// time, it does not count the time the thread waits for a core on a
/// loaded machine. Zero if the clock cannot be read.
pub fn thread_cpu_time() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec, and the clock id is a
    // constant that every Linux kernel since 2.6.12 supports.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(t.tv_sec.max(0) as u64, t.tv_nsec.clamp(0, 999_999_999) as u32)
}

/// The time of each phase, under its name, in the order of first appearance.
pub type PhaseTimes = Vec<(&'static str, Duration)>;

thread_local! {
    static RECORDED: RefCell<Option<PhaseTimes>> = const { RefCell::new(None) };
}

/// Runs `f`, one phase named `name`, and adds its time to the record when
/// one is being made on this thread.
pub fn phase<R>(name: &'static str, f: impl FnOnce() -> R) -> R {
    if !RECORDED.with(|r| r.borrow().is_some()) {
        return f();
    }
    let start = thread_cpu_time();
    let out = f();
    let took = thread_cpu_time().saturating_sub(start);
    RECORDED.with(|r| {
        if let Some(times) = r.borrow_mut().as_mut() {
            match times.iter_mut().find(|t| t.0 == name) {
                Some(t) => t.1 += took,
                None => times.push((name, took)),
            }
        }
    });
    out
}

/// Runs `f` and returns what it returned with the time of each phase it
/// ran (see the module documentation). A record made inside another gets
/// its own phases; the outer one does not see them.
pub fn record<R>(f: impl FnOnce() -> R) -> (R, PhaseTimes) {
    let outer = RECORDED.with(|r| r.replace(Some(Vec::new())));
    let out = f();
    let times = RECORDED.with(|r| r.replace(outer)).unwrap_or_default();
    (out, times)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keeps the thread busy for `d` of its CPU time (a sleep would not
    /// count: the clock is CPU time).
    fn spin(d: Duration) {
        let start = thread_cpu_time();
        while thread_cpu_time().saturating_sub(start) < d {
            std::hint::black_box(0u64);
        }
    }

    #[test]
    fn phases_are_recorded_only_inside_a_record_and_summed_by_name() {
        assert_eq!(phase("a", || 1), 1);
        let (out, times) = record(|| {
            phase("a", || spin(Duration::from_millis(2)));
            phase("b", || ());
            phase("a", || spin(Duration::from_millis(2)));
            let (_, inner) = record(|| phase("c", || ()));
            assert_eq!(inner.iter().map(|t| t.0).collect::<Vec<_>>(), ["c"]);
            7
        });
        assert_eq!(out, 7);
        assert_eq!(times.iter().map(|t| t.0).collect::<Vec<_>>(), ["a", "b"]);
        assert!(times[0].1 >= Duration::from_millis(4));
        let (_, none) = record(|| ());
        assert!(none.is_empty());
    }
}
