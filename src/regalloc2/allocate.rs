//! regalloc2 on ssaref's SSA: its two checkers and its report. The pass
//! list is `allocate_function` in `backend/regalloc2.rs`:
//!
//! | step | file | checked by |
//! |---|---|---|
//! | critical-edge splitting | `analysis/critical_edges.rs` | SSA verifier |
//! | regalloc2's input | `adapter.rs` | regalloc2's SSA validation (`validate_ssa`) |
//! | machine environment (first K registers, no scratch) | `env.rs` | |
//! | allocation | regalloc2 (Ion) | regalloc2's own checker (feature `checker`) |
//! | allocated machine IR | `to_mir.rs` | `alloc_checker::check_allocation` (with `check_no_scratch`) |
//!
//! The two checkers judge different things: regalloc2's checks its edits
//! and allocations against its input, symbolically; ssaref's checks the
//! machine IR that the adapter made of them, so it also catches a mistake
//! of the adapter. Both must accept; when only one does, the error gives
//! both verdicts (check `checkers-disagree`).
//!
//! **Large functions.** regalloc2's checker is superlinear: its abstract
//! state (a map from allocations to the values they may hold) is cloned and
//! merged at every block, so its cost grows with blocks × live allocations
//! and soon dwarfs the allocation itself (`docs/scaling.md` gives the
//! figures). For a function of
//! more than [`THEIR_CHECKER_LIMIT`] instructions it is therefore skipped
//! unless the environment variable `SSAREF_REGALLOC2_FULL_CHECK` is set, and
//! only ssaref's allocation checker, which checks the same property on the
//! machine IR in about linear time, judges the allocation. Generated
//! campaign programs are far below the limit, so campaigns always run both.
//!
//! With the environment variable `SSAREF_REGALLOC2_DEBUG` set, every
//! allocation also prints regalloc2's input and output and the allocated
//! code to stderr before the checkers' verdicts are compared, so that a
//! rejected allocation can be read (`ssaref repro` prints them only for an
//! allocation both checkers accept).

use crate::checkers::alloc_checker::{check_allocation, check_no_scratch};
use crate::error::{CheckError, Foreign, PassError};
use crate::ir::Function;
use crate::mir::MFunction;
use crate::regalloc2::adapter::Adapter;
use crate::regalloc2::env::machine_env;
use crate::regalloc2::to_mir::render_output;
use regalloc2::Output;

/// What regalloc2 was given and what it answered, for `ssaref repro`.
#[derive(Clone, Debug)]
pub struct Regalloc2Report {
    pub input: Adapter,
    pub output: Output,
}

impl Regalloc2Report {
    /// regalloc2's input, then its allocations and edits, as text.
    pub fn render(&self) -> String {
        format!(
            "// regalloc2 input (`{}`, K = {})\n{}// regalloc2 output\n{}",
            self.input.func.name,
            self.input.k,
            self.input.render(),
            render_output(&self.input, &self.output)
        )
    }
}

/// The error of `check` after regalloc2's step `step` with `k` registers.
pub fn fail(k: usize, step: &str, check: &'static str, error: impl Into<CheckError>) -> PassError {
    PassError::new(format!("regalloc2[k={k}]/{step}"), check, error)
}

/// The most instructions a function may have for regalloc2's checker to run
/// on its allocation by default (see the module documentation).
pub const THEIR_CHECKER_LIMIT: usize = 1_000;

/// Whether regalloc2's checker runs on the allocation of `f`.
pub fn runs_their_checker(f: &Function) -> bool {
    let insts: usize = f.blocks.values().map(|b| b.insts.len() + b.phis.len() + 1).sum();
    insts <= THEIR_CHECKER_LIMIT || std::env::var_os("SSAREF_REGALLOC2_FULL_CHECK").is_some()
}

/// The checks of regalloc2's allocation of `f` (the module documentation):
/// regalloc2's checker (up to [`THEIR_CHECKER_LIMIT`] instructions) on its
/// output, ssaref's allocation checker and `check_no_scratch` on the
/// machine IR `mir` made of it; both checkers must accept.
pub fn check_regalloc2(
    f: &Function,
    adapter: &Adapter,
    output: &Output,
    mir: &MFunction,
    k: usize,
) -> Result<(), PassError> {
    let theirs = if runs_their_checker(f) {
        crate::pass_manager::self_checks::count();
        let env = machine_env(k);
        let mut theirs = regalloc2::checker::Checker::new(adapter, &env);
        theirs.prepare(output);
        theirs.run().map_err(Foreign)
    } else {
        Ok(())
    };
    check_no_scratch(mir).map_err(|e| fail(k, "to-mir", "no-scratch", e))?;
    let ours = check_allocation(mir);
    if std::env::var_os("SSAREF_REGALLOC2_DEBUG").is_some() {
        use std::io::Write;
        let report = Regalloc2Report { input: adapter.clone(), output: output.clone() };
        let _ = write!(std::io::stderr(), "{}{}", report.render(), crate::mir::print_function(mir));
    }
    match (ours, theirs) {
        (Ok(()), Ok(())) => Ok(()),
        (Err(ours), Err(theirs)) => Err(fail(k, "to-mir", "alloc", CheckError::BothReject { ours, theirs })),
        (ours, theirs) => Err(fail(
            k,
            "to-mir",
            "checkers-disagree",
            CheckError::CheckersDisagree { ours: ours.err(), theirs: theirs.err() },
        )),
    }
}
