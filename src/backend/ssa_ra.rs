//! ssa-ra, the default back end: SSA-based register allocation (Pereira,
//! "The Design and Implementation of a SSA-based Register Allocator") and
//! spill-free SSA elimination (Pereira and Palsberg, "SSA Elimination after
//! Register Allocation", CC 2009).
//!
//! [`allocate_function`] is its pass list: each pass through the pass
//! runner (`pass_manager/runner.rs`), which runs it with the check switch,
//! times it alone, then runs its checkers when the switch is on, and shows
//! the SSA after each pass that rewrites it to the caller's observer (the
//! differential driver runs the oracle on it). The options are
//! `ssa_ra/regalloc.rs`'s `RegallocOptions`.
//!
//! | pass | file | checked after it |
//! |---|---|---|
//! | one-argument phis to copies, then critical-edge splitting (so that every predecessor of a block with phis has one successor) | `ssa_ra/one_argument_phis.rs`, `analysis/critical_edges.rs` | SSA verifier |
//! | PhiLifting (§4.2) | `ssa_ra/phi_lifting.rs` | verifier, CSSA, pressure not raised (Theorem 1) |
//! | PhiMemCoalesce (§4.4) | `ssa_ra/phi_mem_coalesce.rs` | verifier, CSSA (and again with `checkers/class_interference_check.rs`'s own liveness) |
//! | in a module with calls, the entry split: every parameter read renamed by a one-argument phi, so that the register parameters live in the empty entry alone | `ssa_ra/call_constraints.rs` | verifier, CSSA (twice) |
//! | splits at calls and fixed divisions (K ≥ 3, §4.5 pre-colored registers): a parallel copy of the operands and every value live at each, as one-argument phis of a new block | `ssa_ra/division_splits.rs` | verifier, CSSA (twice), calls and divisions split (`checkers/coloring_check.rs`) |
//! | spilling (§4.5, §4.7; load lowering §6.2): decided during the coloring walk with the §4.6 weight deduction (`spill_during_coloring`), or as a separate pass before it | `ssa_ra/spill_during_coloring.rs`, or `ssa_ra/spill.rs` | verifier, CSSA, demand ≤ K (recounted by `checkers/coloring_check.rs`) |
//! | register assignment (§4.5), the pre-colored values first (`ssa_ra/precolors.rs`) | `ssa_ra/coloring.rs` | valid coloring; pre-colored registers at calls and divisions; frugal slots (`checkers/coloring_check.rs`) |
//! | spill-free SSA elimination (§5, §6) | `ssa_ra/ssa_elimination.rs` | spartan columns as given (inside), allocation checker, no scratch register, chordal optimum counted in the MIR in a function without calls (`checkers/coloring_check.rs`) |
//!
//! Architecture invariant: no pass reserves a register (see
//! `ssa_ra/regalloc.rs`).

use super::interface::{Backend, Prepared};
use super::ssa_ra_k_independent::{self as k_independent, KIndependent};
use crate::analysis::critical_edges::split_critical_edges;
use crate::analysis::cssa::check_cssa;
use crate::analysis::liveness::compute_liveness;
use crate::analysis::pressure::max_pressure;
use crate::analysis::verifier::verify_function;
use crate::checkers::{alloc_checker, class_interference_check, coloring_check};
use crate::error::{CheckError, PassError};
use crate::ir::{Function, Module, Value};
use crate::mir::{MFunction, MModule, MAX_REGS, MIN_REGS};
use crate::pass_manager::flags::Flags;
use crate::pass_manager::runner::{Observer, PassRunner, Unobserved};
use crate::ssa_ra::call_constraints::{is_call, is_pinned_site, memory_pinned, split_entry};
use crate::ssa_ra::coloring::{assign_registers_with_convention, check_assignment, ColoringOptions};
use crate::ssa_ra::division_splits::split_pinned;
use crate::ssa_ra::one_argument_phis::lower_one_argument_phis;
use crate::ssa_ra::phi_lifting::phi_lifting;
use crate::ssa_ra::phi_mem_coalesce::phi_mem_coalesce;
use crate::ssa_ra::regalloc::{AllocReport, RegallocOptions};
use crate::ssa_ra::spill::{spill_with_memory, SpillOptions, SpillResult};
use crate::ssa_ra::spill_during_coloring::{spill_during_coloring_with_memory, SpillDuringColoringOptions};
use crate::ssa_ra::ssa_elimination::{eliminate_ssa, EliminationOptions};

fn fail(pass: &str, check: &'static str, error: impl Into<CheckError>) -> PassError {
    PassError::new(format!("ssa-ra/{pass}"), check, error)
}

/// ssa-ra's passes on one function, for `opts.k` registers, each followed
/// by its checks when `flags` say so (the table of the module
/// documentation), and `observer` shown the SSA after each pass that
/// rewrites it. The time of each pass alone is in the report.
pub fn allocate_function(
    f: &Function,
    opts: &RegallocOptions,
    flags: Flags,
    observer: &mut dyn Observer<Function>,
) -> Result<(MFunction, AllocReport), PassError> {
    let calls = f.blocks.values().any(|b| b.insts.iter().any(|i| is_call(&i.op)));
    allocate_function_in(f, calls, opts, flags, observer)
}

/// [`allocate_function`] on a function of a module, which has calls when
/// `module_has_calls`: then the function's parameters follow the calling
/// convention too (`ssa_ra/call_constraints.rs`).
pub fn allocate_function_in(
    f: &Function,
    module_has_calls: bool,
    opts: &RegallocOptions,
    flags: Flags,
    observer: &mut dyn Observer<Function>,
) -> Result<(MFunction, AllocReport), PassError> {
    admit(opts)?;
    let mut passes = PassRunner::new(flags).timed().observed_by(observer);
    let f = k_independent_passes(f, opts.phi_mem_coalesce, &mut passes)?;
    k_dependent_passes(f, module_has_calls, opts, passes)
}

/// Refuses a K out of range.
fn admit(opts: &RegallocOptions) -> Result<(), PassError> {
    if !(MIN_REGS..=MAX_REGS).contains(&opts.k) {
        return Err(fail("options", "k", CheckError::RegisterCount { k: opts.k }));
    }
    Ok(())
}

/// The passes whose result does not depend on K nor on any option but
/// PhiMemCoalesce's switch: the critical-edge split, PhiLifting and
/// PhiMemCoalesce, each with its checks. Returns the function after them.
fn k_independent_passes(
    f: &Function,
    with_phi_mem_coalesce: bool,
    passes: &mut PassRunner<'_, Function>,
) -> Result<Function, PassError> {
    let mut f = f.clone();

    // PhiLifting and the phi columns of SSA elimination need every
    // predecessor of a block with phis to have one successor: one-argument
    // phis become copies (their block has one predecessor, which may end in
    // a `br`), then the critical edges are split.
    let mut pressure_before = 0;
    passes.rewrite(
        "split-critical-edges",
        &mut f,
        |f| {
            lower_one_argument_phis(f);
            split_critical_edges(f);
            Ok(())
        },
        |f, ()| {
            verify_function(f).map_err(|e| fail("split-critical-edges", "verify", e))?;
            pressure_before = max_pressure(f, &compute_liveness(f));
            Ok(())
        },
    )?;

    let lifted =
        passes.rewrite("phi-lifting", &mut f, |f| Ok(phi_lifting(f)), |f, _| check_phi_lifting(f, pressure_before))?;

    if with_phi_mem_coalesce {
        passes.rewrite(
            "phi-mem-coalesce",
            &mut f,
            |f| {
                phi_mem_coalesce(f, &lifted);
                Ok(())
            },
            |f, ()| check_phi_mem_coalesce(f),
        )?;
    }

    Ok(f)
}

/// The passes after [`k_independent_passes`], on their result `f` (a
/// function of a module that has calls when `module_has_calls`): the entry
/// split, the splits at calls and fixed divisions, spilling, the
/// assignment and SSA elimination, each with its checks, in `passes`
/// (which may have run the first passes).
fn k_dependent_passes(
    mut f: Function,
    module_has_calls: bool,
    opts: &RegallocOptions,
    mut passes: PassRunner<'_, Function>,
) -> Result<(MFunction, AllocReport), PassError> {
    // In a module with calls, the register parameters arrive in the
    // argument registers: the entry is cut from the rest, so that their own
    // live ranges are the empty entry block (`call_constraints.rs`).
    if module_has_calls && !f.params.is_empty() {
        passes.rewrite(
            "split-entry",
            &mut f,
            |f| Ok(split_entry(f, opts.k)),
            |f, _| check_splits(f, "split-entry", None),
        )?;
    }

    // Calls, and fixed divisions (K >= 3): the parallel copy before each,
    // so that its pre-colored operands and the values live across it are
    // colored together (Pereira §4.5, "Handling Pre-colored Virtual
    // Registers").
    if f.blocks.values().any(|b| b.insts.iter().any(|i| is_pinned_site(i, opts.k))) {
        passes.rewrite(
            "split-divisions",
            &mut f,
            |f| Ok(split_pinned(f, |i| is_pinned_site(i, opts.k))),
            |f, _| check_splits(f, "split-divisions", Some(opts.k)),
        )?;
    }

    let memory = memory_pinned(&f, opts.k, module_has_calls);
    let spilled = passes.rewrite(
        "spill",
        &mut f,
        |f| spill_pass(f, opts, &memory),
        |f, spilled| check_spill(f, spilled, opts.k),
    )?;

    let coloring = coloring_options(opts);
    let assignment = passes.run(
        "assign",
        || {
            assign_registers_with_convention(&f, &spilled, opts.k, &coloring, module_has_calls)
                .map_err(|e| fail("assign", "assign", e))
        },
        |assignment| {
            check_assignment(&f, &spilled, assignment, opts.k).map_err(|e| fail("assign", "coloring", e))?;
            coloring_check::check_precolored(&f, &spilled.spilled, &assignment.reg, opts.k)
                .map_err(|e| fail("assign", "pre-colored divisions and calls", e))?;
            coloring_check::check_frugal(&f, &assignment.slot).map_err(|e| fail("assign", "frugal", e))
        },
    )?;

    let (mf, elimination) = passes.run(
        "eliminate",
        || {
            eliminate_ssa(&f, &spilled, &assignment, opts.k, &elimination_options(opts))
                .map_err(|e| fail("eliminate", "spartan", e))
        },
        |(mf, _)| check_elimination(&f, &spilled, mf, module_has_calls),
    )?;

    let pass_times = passes.finish();
    let report = AllocReport {
        spilled: spilled.spilled.len(),
        slots: assignment.slot_count,
        registers_used: assignment.registers_used,
        max_demand: spilled.max_demand,
        elimination,
        pass_times,
    };
    Ok((mf, report))
}

/// [`allocate_function`] on every function of a module, one function after
/// the other. `observer` is shown, after each pass on each function, the
/// module with that function rewritten and every other function as given:
/// a program with the outcome of `m`, since each pass keeps the outcome of
/// the function it rewrites. The name it is shown is the pass's, followed
/// by `@` and the function's when `m` has more than one function.
pub fn allocate_module(
    m: &Module,
    opts: &RegallocOptions,
    flags: Flags,
    observer: &mut dyn Observer<Module>,
) -> Result<(MModule, Vec<AllocReport>), PassError> {
    let calls = m.has_calls();
    allocate_module_by(m, observer, |_, f, o| allocate_function_in(f, calls, opts, flags, o))
}

/// [`allocate_module`] with `allocate` (given the function's index) in
/// place of [`allocate_function_in`].
fn allocate_module_by(
    m: &Module,
    observer: &mut dyn Observer<Module>,
    mut allocate: impl FnMut(usize, &Function, &mut dyn Observer<Function>) -> Result<(MFunction, AllocReport), PassError>,
) -> Result<(MModule, Vec<AllocReport>), PassError> {
    let mut functions = Vec::with_capacity(m.functions.len());
    let mut reports = Vec::with_capacity(m.functions.len());
    let mut module = observer.observes().then(|| m.clone());
    for (i, f) in m.functions.iter().enumerate() {
        let (mf, r) = match module.as_mut() {
            Some(module) => {
                let name = |pass: &str| match m.functions.len() {
                    1 => pass.to_string(),
                    _ => format!("{pass}@{}", f.name),
                };
                let mut in_module = |pass: &str, g: &Function| {
                    module.functions[i] = g.clone();
                    observer.after_pass(&name(pass), module);
                };
                let out = allocate(i, f, &mut in_module)?;
                module.functions[i] = f.clone();
                out
            }
            None => allocate(i, f, &mut Unobserved)?,
        };
        functions.push(mf);
        reports.push(r);
    }
    Ok((MModule { functions }, reports))
}

/// The spilling pass of `opts`: decided during the coloring walk (Pereira
/// §4.5-4.6), or the separate pass before it.
/// The values of `memory` (stack arguments and parameters) are in memory
/// from the start.
fn spill_pass(f: &mut Function, opts: &RegallocOptions, memory: &[Value]) -> Result<SpillResult, PassError> {
    if opts.spill_during_coloring {
        let o = SpillDuringColoringOptions {
            load_lowering: opts.load_lowering,
            recycle_reloads: opts.recycle_reloads,
            ..SpillDuringColoringOptions::with_k(opts.k)
        };
        spill_during_coloring_with_memory(f, &o, memory)
    } else {
        let o = SpillOptions { k: opts.k, load_lowering: opts.load_lowering, recycle_reloads: opts.recycle_reloads };
        spill_with_memory(f, &o, memory)
    }
    .map_err(|e| fail("spill", "demand<=K", e))
}

fn coloring_options(opts: &RegallocOptions) -> ColoringOptions {
    ColoringOptions { local_coalescing: opts.coalescing, global_coalescing: opts.coalescing, avoid_precolored: true }
}

fn elimination_options(opts: &RegallocOptions) -> EliminationOptions {
    EliminationOptions {
        store_hoisting: opts.store_hoisting,
        redundant_memory_transfer_elimination: opts.redundant_memory_transfer_elimination,
    }
}

/// After PhiLifting: the verifier, CSSA, and the register pressure not
/// raised (Pereira's Theorem 1).
fn check_phi_lifting(f: &Function, pressure_before: usize) -> Result<(), PassError> {
    verify_function(f).map_err(|e| fail("phi-lifting", "verify", e))?;
    check_cssa(f).map_err(|e| fail("phi-lifting", "cssa", e))?;
    let pressure_after = max_pressure(f, &compute_liveness(f));
    if pressure_after > pressure_before {
        return Err(fail(
            "phi-lifting",
            "pressure (Pereira's Theorem 1)",
            CheckError::PressureRaised { before: pressure_before, after: pressure_after },
        ));
    }
    Ok(())
}

/// After PhiMemCoalesce: the verifier and CSSA, then CSSA again with the
/// independent checker's own liveness and classes (PhiMemCoalesce decides
/// with the liveness `check_cssa` uses).
fn check_phi_mem_coalesce(f: &Function) -> Result<(), PassError> {
    verify_function(f).map_err(|e| fail("phi-mem-coalesce", "verify", e))?;
    check_cssa(f).map_err(|e| fail("phi-mem-coalesce", "cssa", e))?;
    class_interference_check::check_cssa_independently(f)
        .map_err(|e| fail("phi-mem-coalesce", "cssa (independent liveness)", e))
}

/// After the split at the entry, or at calls and fixed divisions with K =
/// `sites`: the verifier, CSSA (also with the independent checker's own
/// liveness), and after the second each call and fixed division first in
/// its block with every value live at it defined there
/// (`checkers/coloring_check.rs`).
fn check_splits(f: &Function, pass: &str, sites: Option<usize>) -> Result<(), PassError> {
    verify_function(f).map_err(|e| fail(pass, "verify", e))?;
    check_cssa(f).map_err(|e| fail(pass, "cssa", e))?;
    class_interference_check::check_cssa_independently(f).map_err(|e| fail(pass, "cssa (independent liveness)", e))?;
    match sites {
        Some(k) => coloring_check::check_divisions_split(f, k).map_err(|e| fail(pass, "divisions and calls split", e)),
        None => Ok(()),
    }
}

/// After spilling: the verifier, the register demand recounted by the
/// coloring checker (not the spiller's own `block_points`) at most K, and
/// CSSA.
fn check_spill(f: &Function, spilled: &SpillResult, k: usize) -> Result<(), PassError> {
    verify_function(f).map_err(|e| fail("spill", "verify", e))?;
    let demand = coloring_check::max_register_demand(f, &spilled.spilled, k);
    if demand > k {
        return Err(fail("spill", "demand<=K (checker)", CheckError::Demand { demand, k }));
    }
    check_cssa(f).map_err(|e| fail("spill", "cssa", e))
}

/// After SSA elimination: no scratch register, ssaref's allocation checker,
/// and the chordal optimum counted in the machine IR. A function with calls
/// or with parameters under the convention has pre-colored registers
/// beyond the first ω, and Pereira's report claims the greedy optimum only
/// without them (§4.5), so the optimum is not checked there.
fn check_elimination(f: &Function, spilled: &SpillResult, mf: &MFunction, convention: bool) -> Result<(), PassError> {
    alloc_checker::check_no_scratch(mf).map_err(|e| fail("eliminate", "no-scratch-register", e))?;
    alloc_checker::check_allocation(mf).map_err(|e| fail("eliminate", "allocation-checker", e))?;
    let pinned =
        (convention && !f.params.is_empty()) || f.blocks.values().any(|b| b.insts.iter().any(|i| is_call(&i.op)));
    if pinned {
        return Ok(());
    }
    coloring_check::check_chordal_optimum(f, &spilled.spilled, mf)
        .map_err(|e| fail("eliminate", "chordal optimum (registers in the MIR)", e))
}

/// ssa-ra with one option set (its `k` is replaced by each K): Pereira's
/// allocation, then Pereira and Palsberg's SSA elimination. Stages:
/// `ssa-ra[k=K,TAG]/PASS` (the SSA after each pass), `ssa-ra[k=K,TAG]` (the
/// allocated machine IR) and `x86-ssa-ra[k=K,TAG]`, where `TAG` is `RegallocOptions::describe`: `opt` with
/// every switch on, `plain` without the §6 optimizations, else the
/// switches that are on (`pmc+coalesce+hoist`); spilling during coloring
/// (the default) is the switch `color-spill`, off for the separate pass
/// (`spill.rs`).
#[derive(Clone, Copy, Debug)]
pub struct SsaRa(pub RegallocOptions);

impl SsaRa {
    fn tag(&self) -> String {
        self.options(2).describe()
    }

    fn options(&self, k: usize) -> RegallocOptions {
        RegallocOptions { k, ..self.0 }
    }
}

impl Backend for SsaRa {
    fn name(&self) -> String {
        format!("ssa-ra[{}]", self.tag())
    }

    fn stage_names(&self, k: usize) -> (String, String) {
        let tag = self.tag();
        (format!("ssa-ra[k={k},{tag}]"), format!("x86-ssa-ra[k={k},{tag}]"))
    }

    fn allocate(
        &self,
        ssa: &Module,
        prepared: &Prepared,
        k: usize,
        flags: Flags,
        stages: &mut dyn Observer<Module>,
    ) -> Result<MModule, PassError> {
        // The SSA after each allocation pass is still SSA: the observer
        // (the oracle) runs it under the stage name `ssa-ra[k=K,TAG]/PASS`.
        let prefix = self.stage_names(k).0;
        let observes = stages.observes();
        let mut named = |pass: &str, m: &Module| stages.after_pass(&format!("{prefix}/{pass}"), m);
        let observer: &mut dyn Observer<Module> = if observes { &mut named } else { &mut Unobserved };
        let opts = self.options(k);
        let calls = ssa.has_calls();
        let shared = prepared.state.as_ref().and_then(|s| s.downcast_ref::<KIndependent>());
        let allocate = |i: usize, f: &Function, o: &mut dyn Observer<Function>| match shared
            .and_then(|s| s.get(i, f, &opts, flags))
        {
            Some(first) => {
                admit(&opts)?;
                let g = first.replay(o)?;
                k_dependent_passes(g, calls, &opts, PassRunner::new(flags).timed().observed_by(o))
            }
            None => allocate_function_in(f, calls, &opts, flags, o),
        };
        allocate_module_by(ssa, observer, allocate).map(|(mir, _)| mir)
    }

    /// The passes that do not depend on K, once per program for the option
    /// sets that agree on PhiMemCoalesce (`ssa_ra_k_independent.rs`).
    fn prepare(&self, ssa: &Module, flags: Flags, _stages: &mut dyn Observer<Module>) -> Result<Prepared, PassError> {
        let pmc = self.0.phi_mem_coalesce;
        let first = k_independent::prepare(ssa, pmc, flags, |f, passes| k_independent_passes(f, pmc, passes));
        Ok(Prepared { state: Some(std::sync::Arc::new(first)) })
    }

    fn prepare_key(&self) -> String {
        format!("ssa-ra-k-independent[pmc={}]", self.0.phi_mem_coalesce)
    }

    fn report(&self, ssa: &Module, k: usize, flags: Flags) -> String {
        let mut text = String::new();
        let mut listing = |pass: &str, m: &Module| {
            text.push_str(&format!("== after {pass} (K = {k})\n{}", crate::ssa_text::print_module(m)));
        };
        let allocated = allocate_module(ssa, &self.options(k), flags, &mut listing);
        match allocated {
            Ok((mir, _)) => text.push_str(&format!("== allocated (K = {k})\n{}", crate::mir::print_module(&mir))),
            Err(e) => text.push_str(&format!("== allocation with K = {k} failed: {e}\n")),
        }
        text
    }

    fn listing_title(&self, k: usize) -> String {
        format!("x86-64 (K = {k})")
    }

    fn handles_calls(&self) -> bool {
        true
    }
}
