//! Reduction of a case that fails on a production compiler (`targets/`):
//! the candidates of ssaref's reducers (`Reducible::candidates`: the
//! source shrinker for a source program, the IR edits of `ssa.rs` for an
//! SSA one), kept while the case fails on the same target, under the same
//! option set, in the same way ([`FailureKind`]).
//!
//! Each step tries candidates in batches ([`TARGET_BATCH`] at a time, one
//! `Target::run_batch` each, so a step costs one compiler invocation, not
//! one per candidate) and moves to the first candidate of the batch, in
//! the reducer's order, that still fails; the next step starts at the same
//! candidate index, wrapping around, as `source.rs` does. It stops after a
//! whole round without success or after `max_tests` candidates.

use crate::generate::source::TestCase;
use crate::generate::ssa::IrCase;
use crate::oracle::Oracle;
use crate::outcome::Outcome;
use crate::reduce::source::{CandidateList, Reducible};
use crate::targets::target::{run_against_oracle, Limits, Target, TargetCase, TargetError, TargetVerdict};

/// Candidates per batch.
pub const TARGET_BATCH: usize = 24;

/// A case the target reducer can shrink.
pub trait ToTargetCase: Reducible {
    fn target_case(&self) -> TargetCase;
}

impl ToTargetCase for TestCase {
    fn target_case(&self) -> TargetCase {
        TargetCase::source(self.program.clone(), self.args.clone())
    }
}

impl ToTargetCase for IrCase {
    fn target_case(&self) -> TargetCase {
        TargetCase::ssa(self.module.clone(), self.args.clone())
    }
}

/// How a case fails on a target: what a candidate must keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// Another outcome than the oracle's.
    WrongOutcome,
    /// The compiler rejects or crashes on it.
    Compile,
    /// The program crashes.
    Crash,
    /// The program runs past the time limit.
    Timeout,
}

impl FailureKind {
    /// The kind of a verdict, `None` when it is no failure.
    pub fn of(v: &TargetVerdict) -> Option<FailureKind> {
        if !v.is_failure() {
            return None;
        }
        Some(match v {
            TargetVerdict::Diverge { got: Err(TargetError::Compile { .. }), .. } => FailureKind::Compile,
            TargetVerdict::Diverge { got: Err(TargetError::Crash(_)), .. } => FailureKind::Crash,
            TargetVerdict::Diverge { got: Err(TargetError::Timeout { .. }), .. } => FailureKind::Timeout,
            _ => FailureKind::WrongOutcome,
        })
    }
}

/// The result of a reduction.
#[derive(Clone, Debug)]
pub struct TargetReduction<T> {
    pub case: T,
    /// The oracle's outcome of the reduced case.
    pub expected: Outcome,
    pub verdict: TargetVerdict,
    pub kind: FailureKind,
    /// Candidates run, and how many were kept.
    pub tests: u64,
    pub accepted: u64,
    pub size_before: usize,
    pub size_after: usize,
    /// Whether `stop` ended the reduction before its end: the case is then
    /// the smallest failing one found so far.
    pub stopped: bool,
}

/// Why [`reduce_for_target`] gives no reduced case.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum TargetReduceError {
    /// The case does not fail on `target` under `options`: its verdict is
    /// `verdict`.
    NotFailing { target: String, options: String, verdict: Box<TargetVerdict> },
    /// The reduced case no longer fails.
    NoLongerFails,
}

impl std::fmt::Display for TargetReduceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TargetReduceError::NotFailing { target, options, verdict } => {
                write!(f, "the case does not fail on {target} under `{options}`: {}", verdict.describe())
            }
            TargetReduceError::NoLongerFails => f.write_str("the reduced case no longer fails"),
        }
    }
}

impl std::error::Error for TargetReduceError {}

/// Reduces `case`, which must fail on `target` under `options`. `stop` is
/// asked before each batch of candidates (Ctrl-C, a campaign's time up):
/// once it says so, the reduction ends with the smallest failing case so
/// far.
pub fn reduce_for_target<T: ToTargetCase>(
    case: &T,
    target: &dyn Target,
    options: &str,
    oracle: &dyn Oracle,
    fuel: u64,
    max_tests: u64,
    stop: &dyn Fn() -> bool,
) -> Result<TargetReduction<T>, TargetReduceError> {
    let limits = Limits { per_program: std::time::Duration::from_secs(2), ..Limits::for_fuel(fuel) };
    let first = run_against_oracle(target, &[case.target_case()], options, oracle, fuel, &limits);
    let verdict = first.into_iter().next().unwrap_or(TargetVerdict::Skipped);
    let Some(kind) = FailureKind::of(&verdict) else {
        return Err(TargetReduceError::NotFailing {
            target: target.name().to_string(),
            options: options.to_string(),
            verdict: Box::new(verdict),
        });
    };
    let mut cur = case.clone();
    let mut cur_verdict = verdict;
    let (mut tests, mut accepted, mut stopped) = (0u64, 0u64, false);
    let size_before = case.size();
    let mut start = 0usize;
    'steps: loop {
        let list = cur.candidates();
        let n = list.len();
        let mut tried = 0usize;
        while tried < n {
            if tests >= max_tests {
                break 'steps;
            }
            if stop() {
                stopped = true;
                break 'steps;
            }
            // The next batch of valid candidates, from `start` on, wrapping.
            let mut batch: Vec<(usize, T)> = Vec::new();
            while tried < n && batch.len() < TARGET_BATCH {
                let i = (start + tried) % n;
                tried += 1;
                if let Some(c) = list.get(i) {
                    if !c.same_as(&cur) {
                        batch.push((i, c));
                    }
                }
            }
            if batch.is_empty() {
                continue;
            }
            tests += batch.len() as u64;
            let cases: Vec<TargetCase> = batch.iter().map(|(_, c)| c.target_case()).collect();
            let verdicts = run_against_oracle(target, &cases, options, oracle, fuel, &limits);
            if let Some(((i, c), v)) = batch.into_iter().zip(verdicts).find(|(_, v)| FailureKind::of(v) == Some(kind)) {
                cur = c;
                cur_verdict = v;
                accepted += 1;
                start = i;
                continue 'steps;
            }
        }
        break;
    }
    let expected = match &cur_verdict {
        TargetVerdict::Diverge { expected, .. } => expected.clone(),
        _ => return Err(TargetReduceError::NoLongerFails),
    };
    let size_after = cur.size();
    Ok(TargetReduction {
        case: cur,
        expected,
        verdict: cur_verdict,
        kind,
        tests,
        accepted,
        size_before,
        size_after,
        stopped,
    })
}
