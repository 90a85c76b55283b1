//! What every engine of the oracle shares: its error type, the check of
//! `main`'s arguments, and the machine state (the trace, `mem`, the fuel
//! left).

use crate::semantics;
use ssaref_types::ir::{Block, Value};
use ssaref_types::outcome::{End, Outcome};
use std::fmt;

/// A failure of the oracle to run a program.
///
/// These are never program outcomes (a program that divides by zero has the
/// outcome "trap divide-error", not an error): each one means the input is
/// not a well-formed program or module, which is a bug of whatever part of
/// ssaref produced it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum InterpError {
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
        loc: ssaref_types::mir::Loc,
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
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterpError::NoMain => f.write_str("no function named `main`"),
            InterpError::TooManyArguments { expected, got } => {
                write!(f, "`main` takes {expected} argument(s) but {got} were given")
            }
            InterpError::UndefExecuted { block, value: Some(v) } => {
                write!(f, "executed `{v} = undef` in {block}")
            }
            InterpError::UndefExecuted { block, value: None } => {
                write!(f, "executed an `undef` instruction in {block}")
            }
            InterpError::UseOfUndefinedValue { value, block } => {
                write!(f, "{block} reads {value}, which has not been defined in this run")
            }
            InterpError::UseOfUndefinedLocation { loc, block, inst: Some(i) } => {
                write!(f, "instruction {i} of {block} reads {loc}, which has not been written in this run")
            }
            InterpError::UseOfUndefinedLocation { loc, block, inst: None } => {
                write!(f, "the terminator of {block} reads {loc}, which has not been written in this run")
            }
            InterpError::Malformed(m) => write!(f, "malformed input: {m}"),
        }
    }
}

impl std::error::Error for InterpError {}

/// Fails when `main` gets more arguments than it has parameters.
pub(crate) fn check_args(params: usize, args: &[i64]) -> Result<(), InterpError> {
    if args.len() > params {
        Err(InterpError::TooManyArguments { expected: params, got: args.len() })
    } else {
        Ok(())
    }
}

/// The state every engine shares: the trace, `mem` and the fuel left.
pub(crate) struct Machine {
    pub(crate) trace: Vec<i64>,
    pub(crate) mem: Vec<i64>,
    pub(crate) fuel: u64,
}

impl Machine {
    pub(crate) fn new(fuel: u64) -> Self {
        Machine { trace: Vec::new(), mem: vec![0; ssaref_types::ast::MEM_WORDS], fuel }
    }

    /// Takes `cost` units of fuel; false (taking nothing) when too few are left.
    #[inline(always)]
    pub(crate) fn burn(&mut self, cost: u64) -> bool {
        if self.fuel < cost {
            false
        } else {
            self.fuel -= cost;
            true
        }
    }

    #[inline(always)]
    pub(crate) fn load(&self, addr: i64) -> i64 {
        self.mem[semantics::mem_index(addr)]
    }

    #[inline(always)]
    pub(crate) fn store(&mut self, addr: i64, value: i64) {
        self.mem[semantics::mem_index(addr)] = value;
    }

    pub(crate) fn finish(self, end: End) -> Outcome {
        Outcome { trace: self.trace, end, mem: self.mem }
    }
}
