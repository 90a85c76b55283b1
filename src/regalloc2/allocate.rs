//! regalloc2's pipeline: regalloc2 on ssaref's SSA, with two checkers.
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

use crate::analysis::critical_edges::split_critical_edges;
use crate::analysis::verifier::verify_function;
use crate::checkers::alloc_checker::{check_allocation, check_no_scratch};
use crate::error::{CheckError, Foreign, PassError};
use crate::ir::{Function, Module};
use crate::mir::{MFunction, MModule, MAX_REGS, MIN_REGS};
use crate::regalloc2::adapter::Adapter;
use crate::regalloc2::env::machine_env;
use crate::regalloc2::to_mir::{render_output, to_mir};
use regalloc2::{Output, RegallocOptions};

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

fn fail(k: usize, step: &str, check: &'static str, error: impl Into<CheckError>) -> PassError {
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

/// Allocates `f` with regalloc2 in `k` registers and checks the result
/// with regalloc2's checker and ssaref's (see the module documentation:
/// regalloc2's only up to [`THEIR_CHECKER_LIMIT`] instructions) when
/// checks are on (`pass_manager/self_checks.rs`).
pub fn allocate_regalloc2(f: &Function, k: usize) -> Result<(MFunction, Regalloc2Report), PassError> {
    let check = crate::pass_manager::self_checks::enabled();
    let (adapter, output) = run_regalloc2(f, k, check)?;
    if !check {
        let mir = to_mir(&adapter, &output).map_err(|e| fail(k, "to-mir", "translate", e))?;
        return Ok((mir, Regalloc2Report { input: adapter, output }));
    }
    let theirs = if runs_their_checker(f) {
        crate::pass_manager::self_checks::count();
        let env = machine_env(k);
        let mut theirs = regalloc2::checker::Checker::new(&adapter, &env);
        theirs.prepare(&output);
        theirs.run().map_err(Foreign)
    } else {
        Ok(())
    };
    let mir = to_mir(&adapter, &output).map_err(|e| fail(k, "to-mir", "translate", e))?;
    check_no_scratch(&mir).map_err(|e| fail(k, "to-mir", "no-scratch", e))?;
    let ours = check_allocation(&mir);
    let report = Regalloc2Report { input: adapter, output };
    if std::env::var_os("SSAREF_REGALLOC2_DEBUG").is_some() {
        use std::io::Write;
        let _ = write!(std::io::stderr(), "{}{}", report.render(), crate::mir::print_function(&mir));
    }
    match (ours, theirs) {
        (Ok(()), Ok(())) => Ok((mir, report)),
        (Err(ours), Err(theirs)) => Err(fail(k, "to-mir", "alloc", CheckError::BothReject { ours, theirs })),
        (ours, theirs) => Err(fail(
            k,
            "to-mir",
            "checkers-disagree",
            CheckError::CheckersDisagree { ours: ours.err(), theirs: theirs.err() },
        )),
    }
}

/// Critical-edge splitting, regalloc2's input and regalloc2's run; with
/// `check`, the SSA verifier after the splitting and regalloc2's SSA
/// validation too.
fn run_regalloc2(f: &Function, k: usize, check: bool) -> Result<(Adapter, Output), PassError> {
    if !(MIN_REGS..=MAX_REGS).contains(&k) {
        return Err(fail(k, "options", "k", CheckError::RegisterCount { k }));
    }
    let mut split = f.clone();
    split_critical_edges(&mut split);
    if check {
        verify_function(&split).map_err(|e| fail(k, "split-critical-edges", "verify", e))?;
    }
    let adapter = Adapter::new(split, k).map_err(|e| fail(k, "adapter", "input", e))?;
    let options = RegallocOptions { validate_ssa: check, ..RegallocOptions::default() };
    let output =
        regalloc2::run(&adapter, &machine_env(k), &options).map_err(|e| fail(k, "allocate", "regalloc2", e))?;
    Ok((adapter, output))
}

/// [`allocate_regalloc2`] without any checker (neither regalloc2's SSA
/// validation and checker nor ssaref's): the same allocated code, for
/// timing the allocator alone (`evaluation/backend_comparison.rs`,
/// `benches/allocation.rs`). Use [`allocate_regalloc2`] for anything else.
pub fn allocate_regalloc2_unchecked(f: &Function, k: usize) -> Result<MFunction, PassError> {
    let (adapter, output) = run_regalloc2(f, k, false)?;
    to_mir(&adapter, &output).map_err(|e| fail(k, "to-mir", "translate", e))
}

/// [`allocate_regalloc2`] on every function of `m`.
pub fn allocate_module(m: &Module, k: usize) -> Result<(MModule, Vec<Regalloc2Report>), PassError> {
    let mut functions = Vec::with_capacity(m.functions.len());
    let mut reports = Vec::with_capacity(m.functions.len());
    for f in &m.functions {
        let (mir, report) = allocate_regalloc2(f, k)?;
        functions.push(mir);
        reports.push(report);
    }
    Ok((MModule { functions }, reports))
}
