//! The error of the evaluations: what stopped a measurement, wrapped in
//! the program, workload or section it happened in.
//!
//! An evaluation runs passes, the oracle and the x86 lowering over a
//! corpus, so its error is one of theirs, or an outcome that differs from
//! the source's; [`EvalError::In`] adds where, and its text is the context,
//! a colon and the error (`program 3: after ...`).

use std::fmt;

use crate::error::{PassError, SpillError};
use crate::ir::Block;
use crate::machine::x86_lower::LowerError;
use crate::oracle::OracleError;
use crate::outcome::Outcome;

/// Why an evaluation stopped.
#[derive(Clone, Debug)]
pub enum EvalError {
    /// A pass or checker failed: a bug of ssaref.
    Pass(PassError),
    /// The oracle could not run a program.
    Oracle(OracleError),
    /// The x86 lowering failed.
    Lower(LowerError),
    /// `stage` (e.g. `the allocated code`) gives `got` where the source
    /// gives `expected` (boxed, as outcomes are large).
    Diverge { stage: String, got: Box<Outcome>, expected: Box<Outcome> },
    /// Drawing a plot failed.
    Plot(String),
    /// The module described by the text (`the program`, `the allocated
    /// module`, ...) has no `main`.
    NoMain(&'static str),
    /// The back end kept no stage of the kind described by `kept` (e.g.
    /// `function after spilling`).
    NoStage { backend: &'static str, kept: &'static str },
    /// The back-end comparison finds no out-of-ssa variant to measure.
    NoOutOfSsaVariant,
    /// An allocation with the checks off differs from the one with them on.
    UncheckedDiffers,
    /// `counts` block counts for a function of `blocks` blocks (the blocks
    /// of the allocator `of`, when it is named).
    BlockCounts { counts: usize, blocks: usize, of: Option<&'static str> },
    /// The linear scan's code has `code` blocks, its input `input`.
    LinearScanBlocks { code: usize, input: usize },
    /// The block-weighted counts (stores, loads, moves, swaps) differ from
    /// the oracle's.
    WeightedCounts { ours: [u64; 4], oracle: [u64; 4] },
    /// Running the spiller again fails.
    Respill(SpillError),
    /// Running the spiller again gives another function than the
    /// allocator's.
    RespillDiffers,
    /// The allocated code of the block has fewer loads or stores than the
    /// spill code placed there.
    FewerThanSpillCode(Block),
    /// A command the evaluation runs fails, with its error output.
    Command { command: &'static str, stderr: String },
    /// `error`, in the program, workload or section `context`.
    In { context: String, error: Box<EvalError> },
}

impl EvalError {
    /// This error in `context`.
    pub fn within(self, context: impl Into<String>) -> EvalError {
        EvalError::In { context: context.into(), error: Box::new(self) }
    }

    /// The error under the contexts.
    pub fn innermost(&self) -> &EvalError {
        match self {
            EvalError::In { error, .. } => error.innermost(),
            other => other,
        }
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Pass(e) => e.fmt(f),
            EvalError::Oracle(e) => e.fmt(f),
            EvalError::Plot(m) => f.write_str(m),
            EvalError::NoMain(what) => write!(f, "{what} has no `main`"),
            EvalError::NoStage { backend, kept } => write!(f, "{backend} kept no {kept}"),
            EvalError::NoOutOfSsaVariant => f.write_str("no out-of-ssa variant to measure"),
            EvalError::UncheckedDiffers => f.write_str("the unchecked allocation differs from the checked one"),
            EvalError::BlockCounts { of, .. } => {
                f.write_str("block counts of a function with other blocks")?;
                match of {
                    Some(of) => write!(f, " than {of}"),
                    None => Ok(()),
                }
            }
            EvalError::LinearScanBlocks { .. } => f.write_str("linear scan's code has other blocks than its input"),
            EvalError::WeightedCounts { ours, oracle } => {
                write!(
                    f,
                    "block-weighted counts (stores, loads, moves, swaps) {ours:?} differ from the oracle's {oracle:?}"
                )
            }
            EvalError::Respill(e) => write!(f, "spilling again: {e}"),
            EvalError::RespillDiffers => f.write_str("spilling again gave another function than the allocator's"),
            EvalError::FewerThanSpillCode(b) => {
                write!(f, "{b}: fewer loads or stores in the allocated code than spill code")
            }
            EvalError::Command { command, stderr } => write!(f, "{command} failed: {stderr}"),
            EvalError::Lower(e) => e.fmt(f),
            EvalError::Diverge { stage, got, expected } => {
                write!(f, "{stage} gives {} but the source gives {}", got.render(), expected.render())
            }
            EvalError::In { context, error } => write!(f, "{context}: {error}"),
        }
    }
}

impl std::error::Error for EvalError {}

impl From<PassError> for EvalError {
    fn from(e: PassError) -> Self {
        EvalError::Pass(e)
    }
}

impl From<LowerError> for EvalError {
    fn from(e: LowerError) -> Self {
        EvalError::Lower(e)
    }
}

/// `map_err` into an [`EvalError`] in a context, for the evaluations.
pub(crate) trait Within<T> {
    /// The error, converted, in the context `what()`.
    fn within(self, what: impl FnOnce() -> String) -> Result<T, EvalError>;
}

impl<T, E: Into<EvalError>> Within<T> for Result<T, E> {
    fn within(self, what: impl FnOnce() -> String) -> Result<T, EvalError> {
        self.map_err(|e| e.into().within(what()))
    }
}
