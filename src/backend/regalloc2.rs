//! regalloc2, the allocator of Cranelift, as a crate, under ssaref's
//! checks. [`allocate_function`] is its pass list, each step through the
//! pass runner (`pass_manager/runner.rs`):
//!
//! | pass | file | checked after it |
//! |---|---|---|
//! | critical-edge splitting | `analysis/critical_edges.rs` | SSA verifier |
//! | regalloc2's input: blocks in reverse post-order, phis as block parameters, divisions with fixed registers and clobbers, calls and parameters by the calling convention | `regalloc2/adapter.rs` | regalloc2's SSA validation (`validate_ssa`, inside the allocation) |
//! | allocation, in the first K registers with no scratch register | the regalloc2 crate, `regalloc2/env.rs` | — |
//! | regalloc2's output as machine IR | `regalloc2/to_mir.rs` | regalloc2's own checker and ssaref's allocation checker with `check_no_scratch`; both must accept (`regalloc2/allocate.rs`, `check_regalloc2`) |

use super::interface::{Backend, Prepared};
use crate::analysis::critical_edges::split_critical_edges;
use crate::analysis::verifier::verify_function;
use crate::error::{CheckError, PassError};
use crate::ir::{Function, Module};
use crate::mir::{MFunction, MModule, MAX_REGS, MIN_REGS};
use crate::pass_manager::flags::Flags;
use crate::pass_manager::runner::{Observer, PassRunner};
use crate::regalloc2::adapter::Adapter;
use crate::regalloc2::allocate::{check_regalloc2, fail, Regalloc2Report};
use crate::regalloc2::to_mir::to_mir;

/// regalloc2's passes on one function, for `k` registers, each followed by
/// its checks when `flags` say so (the table of the module documentation).
/// The function is taken as a module of its own: its parameters follow the
/// calling convention when it has calls ([`allocate_function_in`]).
pub fn allocate_function(f: &Function, k: usize, flags: Flags) -> Result<(MFunction, Regalloc2Report), PassError> {
    allocate_function_in(f, false, k, flags)
}

/// [`allocate_function`] on a function of a module, which has calls when
/// `module_has_calls`: then every function's parameters and calls follow
/// the calling convention of `k` (`regalloc2/adapter.rs`).
pub fn allocate_function_in(
    f: &Function,
    module_has_calls: bool,
    k: usize,
    flags: Flags,
) -> Result<(MFunction, Regalloc2Report), PassError> {
    if !(MIN_REGS..=MAX_REGS).contains(&k) {
        return Err(fail(k, "options", "k", CheckError::RegisterCount { k }));
    }
    let mut passes = PassRunner::new(flags);
    let mut split = f.clone();
    passes.rewrite(
        "split-critical-edges",
        &mut split,
        |g| {
            split_critical_edges(g);
            Ok(())
        },
        |g, ()| verify_function(g).map_err(|e| fail(k, "split-critical-edges", "verify", e)),
    )?;
    let adapter = passes.run(
        "adapter",
        || Adapter::new(split, k, module_has_calls).map_err(|e| fail(k, "adapter", "input", e)),
        |_| Ok(()),
    )?;
    // regalloc2 validates its SSA input itself, inside the allocation, when
    // checks are on.
    let options = regalloc2::RegallocOptions { validate_ssa: flags.checks(), ..regalloc2::RegallocOptions::default() };
    let output = passes.run(
        "allocate",
        || {
            crate::regalloc2::allocator_crate::run(&adapter, k, &options)
                .map_err(|e| fail(k, "allocate", "regalloc2", e))
        },
        |_| Ok(()),
    )?;
    let mir = passes.run(
        "to-mir",
        || to_mir(&adapter, &output).map_err(|e| fail(k, "to-mir", "translate", e)),
        |mir| check_regalloc2(f, &adapter, &output, mir, k),
    )?;
    Ok((mir, Regalloc2Report { input: adapter, output }))
}

/// [`allocate_function`] on every function of `m`.
pub fn allocate_module(m: &Module, k: usize, flags: Flags) -> Result<(MModule, Vec<Regalloc2Report>), PassError> {
    let mut functions = Vec::with_capacity(m.functions.len());
    let mut reports = Vec::with_capacity(m.functions.len());
    for f in &m.functions {
        let (mir, report) = allocate_function_in(f, m.has_calls(), k, flags)?;
        functions.push(mir);
        reports.push(report);
    }
    Ok((MModule { functions }, reports))
}

/// regalloc2: regalloc2 after critical-edge splitting, checked by
/// regalloc2's checker and ssaref's. Stages `regalloc2[k=K]` and
/// `x86-regalloc2[k=K]`.
#[derive(Clone, Copy, Debug)]
pub struct Regalloc2;

impl Backend for Regalloc2 {
    fn name(&self) -> String {
        "regalloc2".to_string()
    }

    fn allocate(
        &self,
        ssa: &Module,
        _prepared: &Prepared,
        k: usize,
        flags: Flags,
        _stages: &mut dyn Observer<Module>,
    ) -> Result<MModule, PassError> {
        allocate_module(ssa, k, flags).map(|(mir, _)| mir)
    }

    fn report(&self, ssa: &Module, k: usize, flags: Flags) -> String {
        // Each function is allocated once; the module is printed when every
        // function allocated.
        let mut text = String::new();
        let mut functions = Some(Vec::with_capacity(ssa.functions.len()));
        for f in &ssa.functions {
            match allocate_function_in(f, ssa.has_calls(), k, flags) {
                Ok((mir, report)) => {
                    text.push_str(&format!("== regalloc2 (`{}`, K = {k})\n", f.name));
                    text.push_str(&report.render());
                    if let Some(fs) = functions.as_mut() {
                        fs.push(mir);
                    }
                }
                Err(e) => {
                    text.push_str(&format!("== regalloc2 on `{}` with K = {k} failed: {e}\n", f.name));
                    functions = None;
                }
            }
        }
        if let Some(functions) = functions {
            let mir = MModule { functions };
            text.push_str(&format!("== regalloc2: allocated (K = {k})\n{}", crate::mir::print_module(&mir)));
        }
        text
    }

    fn handles_calls(&self) -> bool {
        true
    }

    fn listing_title(&self, k: usize) -> String {
        format!("regalloc2: x86-64 (K = {k})")
    }
}
