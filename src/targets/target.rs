//! The [`Target`] trait, its inputs, errors and verdicts, and the run of
//! a batch against the oracle (the module documentation of `mod.rs` says
//! what a target is and what is compared).

use crate::ast;
use crate::ir;
use crate::oracle::Oracle;
use crate::outcome::Outcome;
use std::fmt;
use std::time::Duration;

/// What a case is, as it enters a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetInput {
    /// A source program; `main` is run.
    Source(ast::Program),
    /// An IR-level SSA module; `main` is run.
    Ssa(ir::Module),
}

/// One program and the arguments of its `main`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetCase {
    pub input: TargetInput,
    pub args: Vec<i64>,
}

impl TargetCase {
    /// The source program of a case.
    pub fn source(program: ast::Program, args: Vec<i64>) -> Self {
        TargetCase { input: TargetInput::Source(program), args }
    }

    /// The IR-level module of a case.
    pub fn ssa(module: ir::Module, args: Vec<i64>) -> Self {
        TargetCase { input: TargetInput::Ssa(module), args }
    }

    /// The oracle's outcome of the case.
    pub fn oracle_outcome(&self, oracle: &dyn Oracle, fuel: u64) -> Result<Outcome, crate::oracle::OracleError> {
        match &self.input {
            TargetInput::Source(p) => oracle.run_source(p, &self.args, fuel),
            TargetInput::Ssa(m) => oracle.run_ssa(m, &self.args, fuel),
        }
    }

    /// True when the case's program contains a call.
    pub fn has_calls(&self) -> bool {
        match &self.input {
            TargetInput::Source(p) => p.has_calls(),
            TargetInput::Ssa(m) => m.has_calls(),
        }
    }

    /// The number of parameters of `main` (0 without a `main`).
    pub fn main_params(&self) -> usize {
        match &self.input {
            TargetInput::Source(p) => p.main().map_or(0, |f| f.params.len()),
            TargetInput::Ssa(m) => m.main().map_or(0, |f| f.params.len()),
        }
    }

    /// The arguments padded with zeros to one per parameter of `main`.
    pub fn full_args(&self) -> Vec<i64> {
        let mut a = self.args.clone();
        a.resize(self.main_params().max(a.len()), 0);
        a
    }
}

/// Why a target could not give a case's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetError {
    /// A tool the target needs is not installed (not a finding).
    ToolMissing { tool: String, hint: String },
    /// The target does not offer this option set (not a finding).
    BadOptions(String),
    /// The input is outside what the target can take, e.g. no `main`
    /// (not a finding of the target: the input is malformed).
    Unsupported(String),
    /// A compiler or assembler rejected or crashed on the program: a
    /// finding, with the command and the end of its error output.
    Compile { command: String, stderr: String },
    /// The program ran past its CPU-time limit although the oracle says it
    /// ends (a finding).
    Timeout { seconds: u64 },
    /// The harness ran past its wall-clock backstop before any program
    /// reached its CPU-time limit: a limit of the harness on a loaded
    /// machine, inconclusive.
    WallClock { seconds: u64 },
    /// The program died (a signal, or an exit the harness did not make).
    Crash(String),
    /// Something around the run failed: a temporary file, spawning.
    Io(String),
    /// The harness's trace of `capacity` words filled up: a limit of the
    /// harness, not a finding when the oracle's trace is that long too
    /// ([`judge`]).
    TraceFull { capacity: u64 },
}

impl TargetError {
    /// True for errors that say something is wrong with the target or the
    /// adapter (a failing case), false for tools that are missing, option
    /// sets that do not exist, inputs that are malformed, and I/O.
    pub fn is_finding(&self) -> bool {
        matches!(self, TargetError::Compile { .. } | TargetError::Timeout { .. } | TargetError::Crash(_))
    }
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetError::ToolMissing { tool, hint } => write!(f, "`{tool}` is not installed ({hint})"),
            TargetError::BadOptions(m) => write!(f, "unknown option set: {m}"),
            TargetError::Unsupported(m) => write!(f, "unsupported input: {m}"),
            TargetError::Compile { command, stderr } => write!(f, "`{command}` failed: {stderr}"),
            TargetError::Timeout { seconds } => write!(f, "did not end within {seconds} s of CPU time (or its fuel)"),
            TargetError::WallClock { seconds } => {
                write!(f, "the harness ran past its wall-clock backstop of {seconds} s")
            }
            TargetError::Crash(m) => write!(f, "the program crashed: {m}"),
            TargetError::Io(m) => write!(f, "I/O error: {m}"),
            TargetError::TraceFull { capacity } => write!(f, "the harness's trace of {capacity} words is full"),
        }
    }
}

impl std::error::Error for TargetError {}

/// Limits of a run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Wall-clock time each program may run natively.
    pub per_program: Duration,
    /// The work a program may do, for targets that count it (`cranelift`:
    /// entries of the blocks that start cycles): the oracle's fuel through
    /// `differential::later_stage_fuel`, so a correct program never runs
    /// out and a looping one stops long before the time limit.
    pub fuel: u64,
}

impl Limits {
    /// The limits for cases the oracle ran with `fuel`: the default time,
    /// and the work bound of that fuel.
    pub fn for_fuel(fuel: u64) -> Self {
        Limits { fuel: crate::differential::later_stage_fuel(fuel), ..Limits::default() }
    }
}

impl Default for Limits {
    /// Five seconds per program: the programs that are run end within the
    /// oracle's fuel, a few million steps at most. The work bound of the
    /// oracle's default fuel of one million steps.
    fn default() -> Self {
        Limits { per_program: Duration::from_secs(5), fuel: crate::differential::later_stage_fuel(1_000_000) }
    }
}

/// One file of an exported case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportedFile {
    /// The file name's suffix after the case's stem: `.ll`, `-harness.c`.
    pub suffix: String,
    pub text: String,
}

/// A production compiler as a target of the oracle (see the module
/// documentation).
pub trait Target: Send + Sync {
    /// The name used on the command line and in case files.
    fn name(&self) -> &str;

    /// The option sets, each a short, stable string; the first is the
    /// default.
    fn option_sets(&self) -> Vec<String>;

    /// The tool's version line, or [`TargetError::ToolMissing`].
    fn version(&self) -> Result<String, TargetError>;

    /// Runs every case under `options` and gives one result per case, in
    /// order. `Err` for the whole batch only when nothing could run (a
    /// tool missing, an unknown option set); a compile error of the batch
    /// is narrowed down to the cases that cause it.
    fn run_batch(
        &self,
        cases: &[TargetCase],
        options: &str,
        limits: &Limits,
    ) -> Result<Vec<Result<Outcome, TargetError>>, TargetError>;

    /// One case in the target's own format, with `expected` and the exact
    /// commands that compile and run it in a comment; the files are named
    /// `STEM` + each suffix.
    fn export(
        &self,
        case: &TargetCase,
        options: &str,
        expected: &Outcome,
        stem: &str,
    ) -> Result<Vec<ExportedFile>, TargetError>;
}

/// How one case fared on a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetVerdict {
    /// The target's outcome is the oracle's.
    Agree,
    /// The oracle's run is inconclusive (out of fuel, or deeper than
    /// `ast::MAX_CALL_DEPTH`): the case was not run.
    Skipped,
    /// The oracle cannot run the case: it is malformed.
    OracleError(String),
    /// The target gives another outcome, or fails.
    Diverge { expected: Outcome, got: Result<Outcome, TargetError> },
    /// The target could not run at all (not a finding).
    NotRun(TargetError),
    /// A limit of the harness stopped the run before its outcome could be
    /// compared (not a finding): the reason.
    Inconclusive(String),
}

impl TargetVerdict {
    /// True for a divergence that is a finding.
    pub fn is_failure(&self) -> bool {
        match self {
            TargetVerdict::Diverge { got: Err(e), .. } => e.is_finding() || matches!(e, TargetError::TraceFull { .. }),
            TargetVerdict::Diverge { .. } => true,
            _ => false,
        }
    }

    /// One line saying what happened.
    pub fn describe(&self) -> String {
        match self {
            TargetVerdict::Agree => "agree".into(),
            TargetVerdict::Skipped => "skipped (the oracle's run is inconclusive: out of fuel or call depth)".into(),
            TargetVerdict::OracleError(e) => format!("the oracle cannot run it: {e}"),
            TargetVerdict::NotRun(e) => format!("not run: {e}"),
            TargetVerdict::Inconclusive(m) => format!("inconclusive: {m} (a limit of the harness)"),
            TargetVerdict::Diverge { expected, got: Ok(o) } => format!(
                "diverges: expected {}, got {}",
                expected.render_full().trim_end().replace('\n', "; "),
                o.render_full().trim_end().replace('\n', "; ")
            ),
            // A compiler that rejects or crashes on a valid program (GCC's
            // cc1 exhausting its stack on deep nesting, say) failed; the
            // program's outcome was never compared, so it is no divergence.
            TargetVerdict::Diverge { got: Err(e @ TargetError::Compile { .. }), .. } => {
                format!("the compiler failed (no outcome to compare): {e}")
            }
            TargetVerdict::Diverge { expected, got: Err(e) } => {
                format!("diverges: expected {}, got: {e}", expected.render_full().trim_end().replace('\n', "; "))
            }
        }
    }
}

/// Runs the cases in the oracle (with `fuel`) and, those that end, on
/// `target` under `options` in one batch; one verdict per case, in order.
pub fn run_against_oracle(
    target: &dyn Target,
    cases: &[TargetCase],
    options: &str,
    oracle: &dyn Oracle,
    fuel: u64,
    limits: &Limits,
) -> Vec<TargetVerdict> {
    let mut verdicts: Vec<Option<TargetVerdict>> = Vec::with_capacity(cases.len());
    let mut expected = Vec::new();
    let mut to_run = Vec::new();
    let mut run_index = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        match case.oracle_outcome(oracle, fuel) {
            Ok(o) if o.end.is_inconclusive() => verdicts.push(Some(TargetVerdict::Skipped)),
            Ok(o) => {
                verdicts.push(None);
                expected.push(o);
                to_run.push(case.clone());
                run_index.push(i);
            }
            Err(e) => verdicts.push(Some(TargetVerdict::OracleError(e.to_string()))),
        }
    }
    if !to_run.is_empty() {
        match target.run_batch(&to_run, options, limits) {
            Ok(results) => {
                for ((i, exp), got) in run_index.iter().zip(expected).zip(results) {
                    verdicts[*i] = Some(judge(exp, got));
                }
            }
            Err(e) => {
                for i in run_index {
                    verdicts[i] = Some(TargetVerdict::NotRun(e.clone()));
                }
            }
        }
    }
    verdicts.into_iter().map(|v| v.unwrap_or(TargetVerdict::Skipped)).collect()
}

/// The verdict of a target's result `got` for a case whose oracle outcome
/// is `expected`. A full trace of the harness is inconclusive when the
/// oracle's trace is at least that long, and a divergence when the target
/// printed more than the oracle.
pub fn judge(expected: Outcome, got: Result<Outcome, TargetError>) -> TargetVerdict {
    match got {
        Ok(o) if o == expected => TargetVerdict::Agree,
        Err(TargetError::TraceFull { capacity }) if expected.trace.len() as u64 >= capacity => {
            TargetVerdict::Inconclusive(TargetError::TraceFull { capacity }.to_string())
        }
        Err(e @ TargetError::WallClock { .. }) => TargetVerdict::Inconclusive(e.to_string()),
        Err(e) if !e.is_finding() && !matches!(e, TargetError::TraceFull { .. }) => TargetVerdict::NotRun(e),
        got => TargetVerdict::Diverge { expected, got },
    }
}

/// The option set of `target` that the program of seed `seed` runs in a
/// campaign: a function of the seed alone, the same for each aligned
/// block of `batch` seeds (so a block runs as one batch), and every option
/// set once in every `n` consecutive blocks (`campaign::rotation::pick`'s
/// rule, here on the block number).
pub fn options_for_seed(sets: &[String], seed: u64, batch: u64) -> Option<&String> {
    let n = sets.len().max(1) as u64;
    let block = seed / batch.max(1);
    sets.get(((block % n + (block / n % n) * 5) % n) as usize)
}

#[cfg(test)]
mod tests {
    use super::{TargetError, TargetVerdict};
    use crate::outcome::{End, Outcome};

    #[test]
    fn a_compiler_failure_is_described_as_such_not_as_a_divergence() {
        let failed = TargetVerdict::Diverge {
            expected: Outcome { trace: vec![], end: End::Return(0), mem: vec![] },
            got: Err(TargetError::Compile { command: "gcc -O2 case.c".into(), stderr: "cc1: segfault".into() }),
        };
        let line = failed.describe();
        assert!(failed.is_failure());
        assert!(line.starts_with("the compiler failed") && !line.contains("diverges"), "{line}");
        assert!(line.contains("`gcc -O2 case.c` failed: cc1: segfault"), "{line}");
    }
}
