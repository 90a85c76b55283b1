//! The ssaref oracle: interpreters for the source AST and for the SSA IR.
//!
//! Differential testing compares every stage of the pipeline against what
//! this crate says a program does, so the oracle has to be trustworthy on its
//! own.
//!
//! # Architecture invariant
//!
//! The oracle never calls a pass. Its package depends on `ssaref-types`
//! alone, the data types of the pipeline (`ssaref_types::ast`, `ir`, `mir`,
//! `op`, `outcome`, `entity`, and the `oracle::Oracle` trait it implements),
//! and cannot name anything of the `ssaref` library: no transformation, no
//! analysis (no dominance, no SSA construction, no parser), so a bug in a
//! pass cannot hide in the oracle. It implements the operator semantics
//! itself ([`semantics`]), on purpose, even though ssaref has a constant
//! folder that does the same. `tests/suite/layout.rs` (in the `ssaref` package)
//! names any file here that imports more than those modules.
//!
//! # Packaging
//!
//! The `ssaref` binary depends on this crate; the `ssaref` library reaches
//! it only through the `Oracle` trait, which the binary, the tests and the
//! fuzz targets hand in. The crate is compiled once (ARCHITECTURE.md,
//! "Crate structure").
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
//! * Falling off the end of a function returns 0.
//! * A call evaluates its arguments left to right and runs its callee in
//!   a fresh activation (its own variables or values); `mem` and the trace
//!   are shared by the whole call tree. Both engines keep the suspended
//!   callers on a heap stack, so deep recursion costs no thread stack.
//!
//! # Fuel
//!
//! A run gets a fuel budget. In the AST engine each executed statement and
//! each evaluated expression node costs one unit (labels and bare `{ }`
//! blocks are not executed and cost nothing); in the SSA engine each executed
//! instruction, phi and terminator costs one unit. When the budget is
//! exhausted the run ends with [`End::OutOfFuel`](ssaref_types::outcome::End::OutOfFuel), keeping the trace and the
//! memory produced so far. Such a run is inconclusive, so the two engines do
//! not need to count identically. One budget covers the whole call tree: a
//! call costs what its node costs, and the callee's work is charged to the
//! same budget.
//!
//! # Call depth
//!
//! A call that would make the stack deeper than
//! [`ssaref_types::ast::MAX_CALL_DEPTH`] activations (`main` counting as
//! one) ends the run with
//! [`End::CallDepthExceeded`](ssaref_types::outcome::End::CallDepthExceeded),
//! keeping the trace and the memory. It is inconclusive like running out of
//! fuel (docs/source-language.md says why), and every engine (the
//! machine engine too) stops at the same call, since the depth of each
//! call does not depend on the IR.

use ssaref_types::outcome::Outcome;

mod ast_engine;
mod convention;
mod machine;
mod mir_engine;
pub mod semantics;
mod ssa_engine;

/// The fuel budget used when the caller has no better idea.
pub use machine::InterpError;

pub const DEFAULT_FUEL: u64 = 1_000_000;

/// Runs the function `main` of a source program.
///
/// The function is first compiled into the oracle's own flat code (see the
/// `ast_engine` module), which is then executed; neither step recurses once
/// per statement nesting level.
pub fn run_ast(program: &ssaref_types::ast::Program, args: &[i64], fuel: u64) -> Result<Outcome, InterpError> {
    ast_engine::compile_program(program)?.run(args, fuel)
}

/// Runs the function `main` of an SSA module.
pub fn run_ssa(module: &ssaref_types::ir::Module, args: &[i64], fuel: u64) -> Result<Outcome, InterpError> {
    let main = module.main().ok_or(InterpError::NoMain)?;
    ssa_engine::run(module, main, args, fuel)
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
    let outcome = ssa_engine::run_counting(module, main, args, fuel, &mut profile)?;
    Ok((outcome, profile))
}

/// Runs the function `main` of an allocated machine-IR module: the code
/// over registers and spill slots that register allocation and SSA
/// elimination produce. Annotations are not executed; calls follow the
/// calling convention, one fuel budget and the call-depth bound cover the
/// call tree (see the `mir_engine` module).
pub fn run_mir(module: &ssaref_types::mir::MModule, args: &[i64], fuel: u64) -> Result<Outcome, InterpError> {
    let main = module.main().ok_or(InterpError::NoMain)?;
    mir_engine::run(module, main, args, fuel)
}

/// Runs `main` of an allocated module like [`run_mir`], and counts the
/// executed spill code, moves and swaps. The counting is the only addition;
/// the statistics of ssa-ra use it.
pub fn profile_mir(
    module: &ssaref_types::mir::MModule,
    args: &[i64],
    fuel: u64,
) -> Result<(Outcome, ssaref_types::mir::MirProfile), InterpError> {
    let main = module.main().ok_or(InterpError::NoMain)?;
    let mut profile = ssaref_types::mir::MirProfile::default();
    let outcome = mir_engine::run_counting(module, main, args, fuel, &mut profile)?;
    Ok((outcome, profile))
}

/// The oracle as the library's differential driver sees it
/// (`ssaref_types::oracle::Oracle`). Implementing a trait of the library is using
/// its types, not its passes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Interp;

impl ssaref_types::oracle::Oracle for Interp {
    fn run_source(
        &self,
        program: &ssaref_types::ast::Program,
        args: &[i64],
        fuel: u64,
    ) -> Result<Outcome, InterpError> {
        run_ast(program, args, fuel)
    }

    fn run_ssa(&self, module: &ssaref_types::ir::Module, args: &[i64], fuel: u64) -> Result<Outcome, InterpError> {
        run_ssa(module, args, fuel)
    }

    fn profile_ssa(
        &self,
        module: &ssaref_types::ir::Module,
        args: &[i64],
        fuel: u64,
    ) -> Result<(Outcome, ssaref_types::oracle::SsaProfile), InterpError> {
        profile_ssa(module, args, fuel)
    }

    fn run_mir(&self, module: &ssaref_types::mir::MModule, args: &[i64], fuel: u64) -> Result<Outcome, InterpError> {
        run_mir(module, args, fuel)
    }

    fn profile_mir(
        &self,
        module: &ssaref_types::mir::MModule,
        args: &[i64],
        fuel: u64,
    ) -> Result<(Outcome, ssaref_types::mir::MirProfile), InterpError> {
        profile_mir(module, args, fuel)
    }
}
