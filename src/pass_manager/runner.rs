//! One way to run a pass: run it with the check switch (`flags.rs`) as the
//! pass's own, time it when asked, then run its checks when the flags say
//! so, and keep a copy of the IR it produced when asked. Running a pass's
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

/// Copies of the IR, each under the name of the pass after which it was
/// taken, in order.
pub type KeptStages<I> = Vec<(&'static str, I)>;

/// The time of each pass alone (the thread's CPU time,
/// `phase_clock::thread_cpu_time`), under its name, in order.
pub type PassTimes = Vec<(&'static str, Duration)>;

/// Runs the passes of one function (see the module documentation).
#[derive(Debug)]
pub struct PassRunner<I> {
    /// The check switch.
    flags: Flags,
    /// Record the time of each pass alone, its checks not counted.
    timed: bool,
    /// Keep a copy of the IR after each checked rewriting pass.
    keep: bool,
    times: PassTimes,
    kept: KeptStages<I>,
}

impl<I: Clone> PassRunner<I> {
    /// A runner that runs the checks when `flags` say so, records no time
    /// and keeps no copy.
    pub fn new(flags: Flags) -> Self {
        PassRunner { flags, timed: false, keep: false, times: Vec::new(), kept: Vec::new() }
    }

    /// The flags the passes run with.
    pub fn flags(&self) -> Flags {
        self.flags
    }

    /// Also records the time of each pass ([`PassRunner::finish`]).
    pub fn timed(self) -> Self {
        PassRunner { timed: true, ..self }
    }

    /// With `keep`, also keeps a copy of the IR after each rewriting pass
    /// ([`PassRunner::finish`]), checked when checks are on.
    pub fn keeping(self, keep: bool) -> Self {
        PassRunner { keep, ..self }
    }

    /// Runs `pass`, which rewrites `ir` in place, and returns its result;
    /// then, when checks are on, `checks` on the rewritten IR and that
    /// result, and keeps a copy of the IR under `name` when asked.
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
        if self.keep {
            self.kept.push((name, ir.clone()));
        }
        Ok(out)
    }

    /// Runs `pass`, which reads the IR and builds something new from it (a
    /// register assignment, a machine function), and returns it; then,
    /// when checks are on, `checks` on it. Nothing is kept: the IR did not
    /// change.
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

    /// The kept copies of the IR, each under its pass's name, in order
    /// (empty unless [`PassRunner::keeping`]), and the time of each pass
    /// that succeeded, in order (empty unless [`PassRunner::timed`]).
    pub fn finish(self) -> (KeptStages<I>, PassTimes) {
        (self.kept, self.times)
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
    fn checks_run_and_copies_are_kept_only_when_asked() {
        let mut ir = Vec::new();
        let mut r = PassRunner::new(Flags::checked()).timed().keeping(true);
        assert_eq!(append(&mut r, "a", &mut ir, 1), Ok(1));
        assert_eq!(append(&mut r, "b", &mut ir, 2), Ok(2));
        assert_eq!(r.run("c", || Ok(ir.len()), |n| if *n == 2 { Ok(()) } else { Err(error("n")) }), Ok(2));
        let (kept, times) = r.finish();
        assert_eq!(kept, vec![("a", vec![1]), ("b", vec![1, 2])]);
        assert_eq!(times.iter().map(|t| t.0).collect::<Vec<_>>(), ["a", "b", "c"]);

        // Without checks, a failing check is not run; the copy is kept.
        let mut r = PassRunner::new(Flags::unchecked()).keeping(true);
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
        assert_eq!(r.finish(), (vec![("a", vec![1, 2, 3])], Vec::new()));
    }

    #[test]
    fn a_failing_pass_or_check_stops_with_its_own_error() {
        let mut ir = vec![0u8];
        let mut r = PassRunner::new(Flags::checked()).timed().keeping(true);
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
        let (kept, times) = r.finish();
        // The failed pass has no time; the pass whose check failed has its
        // time, and no copy.
        assert!(kept.is_empty());
        assert_eq!(times.iter().map(|t| t.0).collect::<Vec<_>>(), ["b"]);
    }
}
