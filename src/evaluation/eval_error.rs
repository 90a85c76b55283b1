//! The error of the evaluations: what stopped a measurement, wrapped in
//! the program, workload or section it happened in.
//!
//! An evaluation runs passes, the oracle and the x86 lowering over a
//! corpus, so its error is one of theirs, or an outcome that differs from
//! the source's; [`EvalError::In`] adds where, and its text is the context,
//! a colon and the error (`program 3: after ...`).

use std::fmt;

use crate::error::PassError;
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
    /// A failure without more structure than its message.
    Message(String),
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
            EvalError::Plot(m) | EvalError::Message(m) => f.write_str(m),
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
