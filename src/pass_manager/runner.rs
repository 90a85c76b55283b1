//! One way to run a pass: run it with the check switch (`flags.rs`) as the
//! pass's own, time it when asked, then run its checks when the flags say
//! so, and show the IR it produced to an [`Observer`] when there is one
//! (the differential driver's oracle, `ssaref repro`'s listing). Running a pass's
//! checks counts as one checker invocation (`self_checks::count`), whatever
//! the checks call. Every back end (`backend/ssa_ra.rs`,
//! `backend/out_of_ssa.rs`, `backend/regalloc2.rs`) and the construction
//! and lowering of `pipeline.rs` list their passes as calls of
//! [`PassRunner::rewrite`] and [`PassRunner::run`], each with its checks
//! beside it, the way Cranelift's `Context` ends each pass in `verify_if`.
//!
//! The runner is the one reader of the switch: it decides whether a pass's
//! checks run, and it hands the flags to the pass for the pass's own
//! self-checks (`self_checks::with_flags`).
//!
//! The runner builds no error of its own: a pass and its checks return the
//! error that names them (the back ends' `PassError`), and the runner hands
//! it back unchanged. It is generic in that error so that it sits below
//! the passes and the error type alike.

use super::clock::thread_cpu_time;
use super::flags::Flags;
use super::self_checks::with_flags;
use std::time::Duration;

/// The time of each pass alone (the thread's CPU time,
/// `phase_clock::thread_cpu_time`), under its name, in order.
pub type PassTimes = Vec<(&'static str, Duration)>;

/// What a caller sees of the IR after each rewriting pass, its checks
/// done, outside the pass's time: the differential driver runs the oracle
/// on it (the SSA after each pass is still a program with the same
/// outcome), `ssaref repro` prints it. A pass list that works function by
/// function shows a module observer the whole module with one function
/// rewritten (`backend/ssa_ra.rs`, `allocate_module`).
pub trait Observer<I: ?Sized> {
    /// Whether it looks at the IR at all; a pass list may skip the copies
    /// it would make for an observer that does not.
    fn observes(&self) -> bool {
        true
    }

    /// `ir` after the pass (or stage) `name`.
    fn after_pass(&mut self, name: &str, ir: &I);
}

impl<I: ?Sized, F: FnMut(&str, &I)> Observer<I> for F {
    fn after_pass(&mut self, name: &str, ir: &I) {
        self(name, ir)
    }
}

/// The observer that looks at nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unobserved;

impl<I: ?Sized> Observer<I> for Unobserved {
    fn observes(&self) -> bool {
        false
    }

    fn after_pass(&mut self, _name: &str, _ir: &I) {}
}

/// Runs the passes of one function (see the module documentation).
pub struct PassRunner<'o, I> {
    /// The check switch.
    flags: Flags,
    /// Record the time of each pass alone, its checks not counted.
    timed: bool,
    /// Shown the IR after each rewriting pass.
    observer: Option<&'o mut dyn Observer<I>>,
    times: PassTimes,
}

impl<'o, I> PassRunner<'o, I> {
    /// A runner that runs the checks when `flags` say so, records no time
    /// and has no observer.
    pub fn new(flags: Flags) -> Self {
        PassRunner { flags, timed: false, observer: None, times: Vec::new() }
    }

    /// The flags the passes run with.
    pub fn flags(&self) -> Flags {
        self.flags
    }

    /// Also records the time of each pass ([`PassRunner::finish`]).
    pub fn timed(self) -> Self {
        PassRunner { timed: true, ..self }
    }

    /// Also shows the IR after each rewriting pass to `observer`.
    pub fn observed_by(self, observer: &'o mut dyn Observer<I>) -> Self {
        PassRunner { observer: Some(observer), ..self }
    }

    /// Runs `pass`, which rewrites `ir` in place, and returns its result;
    /// then, when checks are on, `checks` on the rewritten IR and that
    /// result; then shows the IR to the observer under `name`.
    pub fn rewrite<T, E>(
        &mut self,
        name: &'static str,
        ir: &mut I,
        pass: impl FnOnce(&mut I) -> Result<T, E>,
        checks: impl FnOnce(&I, &T) -> Result<(), E>,
    ) -> Result<T, E> {
        let out = self.time(name, || pass(ir))?;
        if self.flags.checks() {
            super::self_checks::count();
            with_flags(self.flags, || checks(ir, &out))?;
        }
        if let Some(observer) = self.observer.as_deref_mut() {
            observer.after_pass(name, ir);
        }
        Ok(out)
    }

    /// Runs `pass`, which reads the IR and builds something new from it (a
    /// register assignment, a machine function), and returns it; then,
    /// when checks are on, `checks` on it. The IR did not change: the
    /// observer is not shown it.
    pub fn run<T, E>(
        &mut self,
        name: &'static str,
        pass: impl FnOnce() -> Result<T, E>,
        checks: impl FnOnce(&T) -> Result<(), E>,
    ) -> Result<T, E> {
        let out = self.time(name, pass)?;
        if self.flags.checks() {
            super::self_checks::count();
            with_flags(self.flags, || checks(&out))?;
        }
        Ok(out)
    }

    /// The time of each pass that succeeded, in order (empty unless
    /// [`PassRunner::timed`]).
    pub fn finish(self) -> PassTimes {
        self.times
    }

    /// Runs `pass` and, when timed, records how long it took under `name`
    /// (nothing when it fails).
    fn time<T, E>(&mut self, name: &'static str, pass: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        let flags = self.flags;
        if !self.timed {
            return with_flags(flags, pass);
        }
        let start = thread_cpu_time();
        let out = with_flags(flags, pass)?;
        self.times.push((name, thread_cpu_time().saturating_sub(start)));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::PassRunner;
    use crate::pass_manager::flags::Flags;
    /// The tests' error: the name of the check that failed.
    type PassError = &'static str;

    fn error(check: &'static str) -> PassError {
        check
    }

    /// A rewriting pass that appends `x`, checked by "the IR ends with `x`".
    fn append(r: &mut PassRunner<Vec<u8>>, name: &'static str, ir: &mut Vec<u8>, x: u8) -> Result<usize, PassError> {
        r.rewrite(
            name,
            ir,
            |ir| {
                ir.push(x);
                Ok(ir.len())
            },
            |ir, len| if ir.last() == Some(&x) && *len == ir.len() { Ok(()) } else { Err(error("last")) },
        )
    }

    #[test]
    fn checks_run_and_the_observer_sees_each_rewrite() {
        let mut ir = Vec::new();
        let mut seen = Vec::new();
        let mut observer = |name: &str, ir: &Vec<u8>| seen.push((name.to_string(), ir.clone()));
        let mut r = PassRunner::new(Flags::checked()).timed().observed_by(&mut observer);
        assert_eq!(append(&mut r, "a", &mut ir, 1), Ok(1));
        assert_eq!(append(&mut r, "b", &mut ir, 2), Ok(2));
        assert_eq!(r.run("c", || Ok(ir.len()), |n| if *n == 2 { Ok(()) } else { Err(error("n")) }), Ok(2));
        let times = r.finish();
        assert_eq!(times.iter().map(|t| t.0).collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(seen, vec![("a".to_string(), vec![1]), ("b".to_string(), vec![1, 2])]);

        // Without checks, a failing check is not run; the observer still
        // sees the rewrite.
        let mut seen = Vec::new();
        let mut observer = |name: &str, ir: &Vec<u8>| seen.push((name.to_string(), ir.clone()));
        let mut r = PassRunner::new(Flags::unchecked()).observed_by(&mut observer);
        let failing = r.rewrite(
            "a",
            &mut ir,
            |ir| {
                ir.push(3);
                Ok(())
            },
            |_, _| Err(error("never")),
        );
        assert_eq!(failing, Ok(()));
        assert!(r.finish().is_empty());
        assert_eq!(seen, vec![("a".to_string(), vec![1, 2, 3])]);
    }

    #[test]
    fn a_failing_pass_or_check_stops_with_its_own_error() {
        let mut ir = vec![0u8];
        let mut seen = 0;
        let mut observer = |_: &str, _: &Vec<u8>| seen += 1;
        let mut r = PassRunner::new(Flags::checked()).timed().observed_by(&mut observer);
        let failed = r.rewrite("a", &mut ir, |_| Err::<(), _>(error("pass")), |_, _| Ok(()));
        assert_eq!(failed.unwrap_err(), "pass");
        let failed = r.rewrite(
            "b",
            &mut ir,
            |ir| {
                ir.push(1);
                Ok(())
            },
            |_, _| Err(error("check")),
        );
        assert_eq!(failed.unwrap_err(), "check");
        let times = r.finish();
        // The failed pass has no time; the pass whose check failed has its
        // time; the observer saw neither.
        assert_eq!(times.iter().map(|t| t.0).collect::<Vec<_>>(), ["b"]);
        assert_eq!(seen, 0);
    }
}
