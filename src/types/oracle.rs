//! The interface through which the library reaches the oracle.
//!
//! The oracle (crate `ssaref-interp`, directory `interp/`) depends on this
//! crate for its data types and on nothing else. The library's differential
//! driver (`src/pipeline.rs`) takes an `&dyn Oracle` rather than naming the
//! oracle's crate; the oracle implements this trait, and the binary, the
//! tests and the fuzz targets hand it in.

use crate::ast;
use crate::ir;
use crate::mir;
use crate::outcome::Outcome;

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
    fn run_source(&self, program: &ast::Program, args: &[i64], fuel: u64) -> Result<Outcome, String>;

    /// Runs `main` of an SSA module (phis as parallel copies on edges).
    fn run_ssa(&self, module: &ir::Module, args: &[i64], fuel: u64) -> Result<Outcome, String>;

    /// Like [`Oracle::run_ssa`], also counting the executed instructions
    /// and copies (for the statistics of out-of-SSA translation). An oracle
    /// that cannot count returns `Err`.
    fn profile_ssa(&self, module: &ir::Module, args: &[i64], fuel: u64) -> Result<(Outcome, SsaProfile), String> {
        let _ = (module, args, fuel);
        Err("this oracle does not count executed instructions".into())
    }

    /// Runs `main` of an allocated machine-IR module (registers and spill
    /// slots; the phi annotations are not executed, the code SSA
    /// elimination placed in the predecessors is). Reading a register or
    /// slot that was never written is an `Err`, not a program outcome.
    fn run_mir(&self, module: &mir::MModule, args: &[i64], fuel: u64) -> Result<Outcome, String>;

    /// Like [`Oracle::run_mir`], also counting the executed spill code,
    /// moves and swaps (for statistics). An oracle that cannot count
    /// returns `Err`.
    fn profile_mir(
        &self,
        module: &mir::MModule,
        args: &[i64],
        fuel: u64,
    ) -> Result<(Outcome, mir::MirProfile), String> {
        let _ = (module, args, fuel);
        Err("this oracle does not count executed instructions".into())
    }
}
