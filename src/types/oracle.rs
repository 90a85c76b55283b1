//! The interface through which the library reaches the oracle.
//!
//! The oracle (crate `ssaref-interp`, directory `interp/`) depends on this
//! crate for its data types and on nothing else. The library's differential
//! driver (`src/pipeline.rs`) takes an `&dyn Oracle` rather than naming the
//! oracle's crate; the oracle implements this trait, and the binary, the
//! tests and the fuzz targets hand it in.
//!
//! [`OracleError`], the trait's error, is the interpreter's (which
//! re-exports it as `InterpError`): it is defined here so that the trait,
//! and the verdicts built from it, carry it as a value.

use crate::ast;
use crate::ir;
use crate::ir::{Block, Value};
use crate::mir;
use crate::outcome::Outcome;
use std::fmt;

/// A failure of the oracle to run a program.
///
/// These are never program outcomes (a program that divides by zero has the
/// outcome "trap divide-error", not an error): each one means the input is
/// not a well-formed program or module, which is a bug of whatever part of
/// ssaref produced it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum OracleError {
    /// There is no function named `main`.
    NoMain,
    /// `main` was given more arguments than it has parameters.
    TooManyArguments {
        /// The number of parameters of `main`.
        expected: usize,
        /// The number of arguments given.
        got: usize,
    },
    /// An `undef` instruction was executed (SSA engine).
    UndefExecuted {
        /// The block holding the instruction.
        block: Block,
        /// The value the instruction defines, if it names one.
        value: Option<Value>,
    },
    /// A value was read before any definition of it ran in this execution
    /// (SSA engine): the dynamic check that definitions dominate uses.
    UseOfUndefinedValue {
        /// The value read.
        value: Value,
        /// The block whose phi, instruction or terminator read it.
        block: Block,
    },
    /// An operation or a terminator read a register or a spill slot that
    /// nothing has written in this run (machine engine): a value the
    /// allocated code lost, or never stored.
    UseOfUndefinedLocation {
        /// The location read.
        loc: crate::mir::Loc,
        /// The block of the reading instruction or terminator.
        block: Block,
        /// The index of the reading instruction in its block, or `None` for
        /// the terminator.
        inst: Option<usize>,
    },
    /// The input is not well formed: a bad block or value number, a phi
    /// whose arity differs from its block's predecessor count, an unknown
    /// label, a `break` outside a loop, and so on.
    Malformed(String),
    /// The oracle does not count executed instructions (the default of
    /// [`Oracle::profile_ssa`] and [`Oracle::profile_mir`]).
    NoProfile,
    /// A failure of an oracle other than the interpreter, in its words.
    Other(String),
}

impl fmt::Display for OracleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OracleError::NoMain => f.write_str("no function named `main`"),
            OracleError::TooManyArguments { expected, got } => {
                write!(f, "`main` takes {expected} argument(s) but {got} were given")
            }
            OracleError::UndefExecuted { block, value: Some(v) } => {
                write!(f, "executed `{v} = undef` in {block}")
            }
            OracleError::UndefExecuted { block, value: None } => {
                write!(f, "executed an `undef` instruction in {block}")
            }
            OracleError::UseOfUndefinedValue { value, block } => {
                write!(f, "{block} reads {value}, which has not been defined in this run")
            }
            OracleError::UseOfUndefinedLocation { loc, block, inst: Some(i) } => {
                write!(f, "instruction {i} of {block} reads {loc}, which has not been written in this run")
            }
            OracleError::UseOfUndefinedLocation { loc, block, inst: None } => {
                write!(f, "the terminator of {block} reads {loc}, which has not been written in this run")
            }
            OracleError::Malformed(m) => write!(f, "malformed input: {m}"),
            OracleError::NoProfile => f.write_str("this oracle does not count executed instructions"),
            OracleError::Other(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for OracleError {}

/// What [`Oracle::profile_ssa`] counts in one run of an `ir::Function`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct SsaProfile {
    /// Instructions executed (terminators and phis not counted).
    pub insts: u64,
    /// `copy` instructions executed.
    pub copies: u64,
}

/// An independent evaluator of every stage of the pipeline.
pub trait Oracle {
    /// Runs `main` of a source program. `Err` means the oracle could not run
    /// it at all (not a program trap).
    fn run_source(&self, program: &ast::Program, args: &[i64], fuel: u64) -> Result<Outcome, OracleError>;

    /// Runs `main` of an SSA module (phis as parallel copies on edges).
    fn run_ssa(&self, module: &ir::Module, args: &[i64], fuel: u64) -> Result<Outcome, OracleError>;

    /// Like [`Oracle::run_ssa`], also counting the executed instructions
    /// and copies (for the statistics of out-of-SSA translation). An oracle
    /// that cannot count returns `Err`.
    fn profile_ssa(&self, module: &ir::Module, args: &[i64], fuel: u64) -> Result<(Outcome, SsaProfile), OracleError> {
        let _ = (module, args, fuel);
        Err(OracleError::NoProfile)
    }

    /// Runs `main` of an allocated machine-IR module (registers and spill
    /// slots; the phi annotations are not executed, the code SSA
    /// elimination placed in the predecessors is). Reading a register or
    /// slot that was never written is an `Err`, not a program outcome.
    fn run_mir(&self, module: &mir::MModule, args: &[i64], fuel: u64) -> Result<Outcome, OracleError>;

    /// Like [`Oracle::run_mir`], also counting the executed spill code,
    /// moves and swaps (for statistics). An oracle that cannot count
    /// returns `Err`.
    fn profile_mir(
        &self,
        module: &mir::MModule,
        args: &[i64],
        fuel: u64,
    ) -> Result<(Outcome, mir::MirProfile), OracleError> {
        let _ = (module, args, fuel);
        Err(OracleError::NoProfile)
    }
}
