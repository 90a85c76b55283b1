//! The ssaref oracle: interpreters for the source AST and for the SSA IR.
//!
//! Differential testing compares every stage of the pipeline against what
//! this crate says a program does, so the oracle has to be trustworthy on its
//! own.
//!
//! # Architecture invariant
//!
//! The oracle depends on `ssaref` ONLY for data types: `ssaref_types::ast`,
//! `ssaref_types::ir`, `ssaref_types::op`, `ssaref_types::outcome` and `ssaref_types::entity`. It
//! never calls a transformation or an analysis of ssaref (no dominance, no
//! SSA construction, no parser outside tests), so a bug in a pass cannot hide
//! in the oracle. It implements the operator semantics itself
//! ([`semantics`]), on purpose, even though ssaref has a constant folder that
//! does the same.
//!
//! # Packaging
//!
//! The `ssaref` binary cannot depend on this package (that would be a package
//! cycle), so it includes this file as a module with
//! `#[path = "../interp/src/lib.rs"] mod interp;`. Hence the code here never
//! writes `crate::` paths (only `self::`/`super::`), names ssaref types as
//! `ssaref::...`, carries no crate-level attributes other than lints, and
//! keeps its modules as files next to this one.
//!
//! # Semantics
//!
//! Both engines implement the same total, deterministic semantics:
//!
//! * Every value is an `i64`; `+`, `-`, `*` and unary `-` wrap.
//! * `/` and `%` truncate toward zero; a zero divisor and `i64::MIN / -1`
//!   (and `i64::MIN % -1`) raise the trap `divide-error`.
//! * Shift counts are taken modulo 64, and `>>` is arithmetic.
//! * Comparisons, `!`, `&&` and `||` yield 0 or 1; `&&` and `||`
//!   short-circuit. `~` is the bitwise complement.
//! * `mem` has [`ssaref_types::ast::MEM_WORDS`] words, all 0 at entry, indexed by
//!   `i & 4095`.
//! * Variables are function-scoped and start at 0; parameters start with the
//!   arguments (missing ones are 0, extra ones are an error).
//! * Falling off the end of `main` returns 0.
//!
//! # Fuel
//!
//! A run gets a fuel budget. In the AST engine each executed statement and
//! each evaluated expression node costs one unit (labels and bare `{ }`
//! blocks are not executed and cost nothing); in the SSA engine each executed
//! instruction, phi and terminator costs one unit. When the budget is
//! exhausted the run ends with [`End::OutOfFuel`], keeping the trace and the
//! memory produced so far. Such a run is inconclusive, so the two engines do
//! not need to count identically.

use std::fmt;

use ssaref_types::ir::{Block, Value};
use ssaref_types::outcome::{End, Outcome};

mod ast_engine;
mod mir_engine;
pub mod semantics;
mod ssa_engine;

/// The fuel budget used when the caller has no better idea.
pub const DEFAULT_FUEL: u64 = 1_000_000;

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

/// Runs the function `main` of a source program.
///
/// The function is first compiled into the oracle's own flat code (see the
/// `ast_engine` module), which is then executed; neither step recurses once
/// per statement nesting level.
pub fn run_ast(program: &ssaref_types::ast::Program, args: &[i64], fuel: u64) -> Result<Outcome, InterpError> {
    let main = program.main().ok_or(InterpError::NoMain)?;
    let code = ast_engine::compile(main)?;
    code.run(args, fuel)
}

/// Runs the function `main` of an SSA module.
pub fn run_ssa(module: &ssaref_types::ir::Module, args: &[i64], fuel: u64) -> Result<Outcome, InterpError> {
    let main = module.main().ok_or(InterpError::NoMain)?;
    ssa_engine::run(main, args, fuel)
}

/// Runs the function `main` of an SSA module like [`run_ssa`] (or of a
/// destructed module, whose values are assigned several times), and counts
/// the executed instructions and copies. The counting is the only addition.
pub fn profile_ssa(
    module: &ssaref_types::ir::Module,
    args: &[i64],
    fuel: u64,
) -> Result<(Outcome, ssaref_types::oracle::SsaProfile), InterpError> {
    let main = module.main().ok_or(InterpError::NoMain)?;
    let mut profile = ssaref_types::oracle::SsaProfile::default();
    let outcome = ssa_engine::run_counting(main, args, fuel, &mut profile)?;
    Ok((outcome, profile))
}

/// Runs the function `main` of an allocated machine-IR module: the code
/// over registers and spill slots that register allocation and SSA
/// elimination produce. Annotations are not executed (see the
/// `mir_engine` module).
pub fn run_mir(module: &ssaref_types::mir::MModule, args: &[i64], fuel: u64) -> Result<Outcome, InterpError> {
    let main = module.main().ok_or(InterpError::NoMain)?;
    mir_engine::run(main, args, fuel)
}

/// Runs `main` of an allocated module like [`run_mir`], and counts the
/// executed spill code, moves and swaps. The counting is the only addition;
/// the statistics of route 1 use it.
pub fn profile_mir(
    module: &ssaref_types::mir::MModule,
    args: &[i64],
    fuel: u64,
) -> Result<(Outcome, ssaref_types::mir::MirProfile), InterpError> {
    let main = module.main().ok_or(InterpError::NoMain)?;
    let mut profile = ssaref_types::mir::MirProfile::default();
    let outcome = mir_engine::run_counting(main, args, fuel, &mut profile)?;
    Ok((outcome, profile))
}

/// Fails when `main` gets more arguments than it has parameters.
fn check_args(params: usize, args: &[i64]) -> Result<(), InterpError> {
    if args.len() > params {
        Err(InterpError::TooManyArguments { expected: params, got: args.len() })
    } else {
        Ok(())
    }
}

/// The state every engine shares: the trace, `mem` and the fuel left.
struct Machine {
    trace: Vec<i64>,
    mem: Vec<i64>,
    fuel: u64,
}

impl Machine {
    fn new(fuel: u64) -> Self {
        Machine { trace: Vec::new(), mem: vec![0; ssaref_types::ast::MEM_WORDS], fuel }
    }

    /// Takes `cost` units of fuel; false (taking nothing) when too few are left.
    #[inline(always)]
    fn burn(&mut self, cost: u64) -> bool {
        if self.fuel < cost {
            false
        } else {
            self.fuel -= cost;
            true
        }
    }

    #[inline(always)]
    fn load(&self, addr: i64) -> i64 {
        self.mem[semantics::mem_index(addr)]
    }

    #[inline(always)]
    fn store(&mut self, addr: i64, value: i64) {
        self.mem[semantics::mem_index(addr)] = value;
    }

    fn finish(self, end: End) -> Outcome {
        Outcome { trace: self.trace, end, mem: self.mem }
    }
}

/// The oracle as the library's differential driver sees it
/// (`ssaref_types::oracle::Oracle`). Implementing a trait of the library is using
/// its types, not its passes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Interp;

impl ssaref_types::oracle::Oracle for Interp {
    fn run_source(&self, program: &ssaref_types::ast::Program, args: &[i64], fuel: u64) -> Result<Outcome, String> {
        run_ast(program, args, fuel).map_err(|e| e.to_string())
    }

    fn run_ssa(&self, module: &ssaref_types::ir::Module, args: &[i64], fuel: u64) -> Result<Outcome, String> {
        run_ssa(module, args, fuel).map_err(|e| e.to_string())
    }

    fn profile_ssa(
        &self,
        module: &ssaref_types::ir::Module,
        args: &[i64],
        fuel: u64,
    ) -> Result<(Outcome, ssaref_types::oracle::SsaProfile), String> {
        profile_ssa(module, args, fuel).map_err(|e| e.to_string())
    }

    fn run_mir(&self, module: &ssaref_types::mir::MModule, args: &[i64], fuel: u64) -> Result<Outcome, String> {
        run_mir(module, args, fuel).map_err(|e| e.to_string())
    }

    fn profile_mir(
        &self,
        module: &ssaref_types::mir::MModule,
        args: &[i64],
        fuel: u64,
    ) -> Result<(Outcome, ssaref_types::mir::MirProfile), String> {
        profile_mir(module, args, fuel).map_err(|e| e.to_string())
    }
}
