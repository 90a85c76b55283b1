//! Route 1, the default back end: SSA-based register allocation (Pereira,
//! "The Design and Implementation of a SSA-based Register Allocator") and
//! spill-free SSA elimination (Pereira and Palsberg, CC 2009).
//!
//! [`allocate_function`] lists the passes in order and runs a checker after
//! each one:
//!
//! | pass | file | checked after it |
//! |---|---|---|
//! | one-argument phis to copies, then critical-edge splitting (so that every predecessor of a block with phis has one successor) | `one_argument_phis.rs`, `critical_edges.rs` | SSA verifier |
//! | PhiLifting (§4.2) | `phi_lifting.rs` | verifier, CSSA, pressure not raised (Theorem 1) |
//! | PhiMemCoalesce (§4.4) | `phi_mem_coalesce.rs` | verifier, CSSA (and again with `checkers/class_interference.rs`'s own liveness) |
//! | spilling (§4.5, §4.7; load lowering §6.2) | `spill.rs` | verifier, CSSA, demand ≤ K |
//! | register assignment (§4.5) | `coloring.rs` | valid coloring; frugal slots (`checkers/coloring_check.rs`) |
//! | spill-free SSA elimination (§5, §6) | `ssa_elimination.rs` | spartan columns as given (inside), allocation checker, no scratch register, chordal optimum counted in the MIR (`checkers/coloring_check.rs`) |
//!
//! Architecture invariant: no pass reserves a register. Spill code uses the
//! register its value was given (a reload is an ordinary value that the
//! assignment colors), and SSA elimination uses only the locations of the
//! parallel copy it implements (swaps for cycles).

use crate::analysis::critical_edges::split_critical_edges;
use crate::analysis::cssa::check_cssa;
use crate::analysis::liveness::compute_liveness;
use crate::analysis::pressure::max_pressure;
use crate::analysis::verifier::verify_function;
use crate::checkers::{alloc_checker, class_interference, coloring_check};
use crate::error::PassError;
use crate::ir::{Function, Module};
use crate::mir::{MFunction, MModule, MAX_REGS, MIN_REGS};
use crate::route1::coloring::{assign_registers, check_assignment, ColoringOptions};
use crate::route1::one_argument_phis::lower_one_argument_phis;
use crate::route1::phi_lifting::phi_lifting;
use crate::route1::phi_mem_coalesce::phi_mem_coalesce;
use crate::route1::spill::{spill, SpillOptions};
use crate::route1::ssa_elimination::{eliminate_ssa, EliminationOptions, EliminationStats};
use std::time::{Duration, Instant};

/// Every switch of route 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegallocOptions {
    /// Number of registers, 2..=15.
    pub k: usize,
    /// PhiMemCoalesce (§4.4); without it every lifted copy stays.
    pub phi_mem_coalesce: bool,
    /// Local and global coalescing in the assignment (§4.5).
    pub coalescing: bool,
    /// Store hoisting (Pereira and Palsberg §6.1).
    pub store_hoisting: bool,
    /// Load lowering (§6.2).
    pub load_lowering: bool,
    /// Redundant memory transfer elimination (§6.3).
    pub redundant_memory_transfer_elimination: bool,
    /// Reload recycling inside blocks (Pereira §4.7).
    pub recycle_reloads: bool,
}

impl RegallocOptions {
    /// Everything on, with `k` registers.
    pub fn with_k(k: usize) -> Self {
        RegallocOptions {
            k,
            phi_mem_coalesce: true,
            coalescing: true,
            store_hoisting: true,
            load_lowering: true,
            redundant_memory_transfer_elimination: true,
            recycle_reloads: true,
        }
    }

    /// Plain ImplementSpartan: none of the §6 optimizations.
    pub fn without_section_6(self) -> Self {
        RegallocOptions {
            store_hoisting: false,
            load_lowering: false,
            redundant_memory_transfer_elimination: false,
            ..self
        }
    }
}

/// What the allocation of one function did, pass by pass.
#[derive(Clone, Debug)]
pub struct AllocReport {
    /// The SSA function after each SSA-level pass, for the differential
    /// check and for `ssaref emit`: (pass name, function).
    pub stages: Vec<(&'static str, Function)>,
    /// Values spilled (including load-lowered phi results).
    pub spilled: usize,
    pub slots: u32,
    pub registers_used: usize,
    pub max_demand: usize,
    pub elimination: EliminationStats,
    /// The time of each pass alone, its checkers not counted, in order
    /// (`ssaref reproduce` measures the share of SSA elimination with it).
    pub pass_times: Vec<(&'static str, Duration)>,
}

fn fail(pass: &str, check: &'static str, message: impl ToString) -> PassError {
    PassError { pass: format!("ssa-ra/{pass}"), check, message: message.to_string() }
}

/// Allocates one function with `opts.k` registers; checks every pass.
pub fn allocate_function(f: &Function, opts: &RegallocOptions) -> Result<(MFunction, AllocReport), PassError> {
    if !(MIN_REGS..=MAX_REGS).contains(&opts.k) {
        return Err(fail("options", "k", format!("K = {} is outside {MIN_REGS}..={MAX_REGS}", opts.k)));
    }
    let mut stages = Vec::new();
    let mut pass_times = Vec::new();
    let mut f = f.clone();

    // PhiLifting and the phi columns of SSA elimination need every
    // predecessor of a block with phis to have one successor: one-argument
    // phis become copies (their block has one predecessor, which may end in
    // a `br`), then the critical edges are split.
    let start = Instant::now();
    lower_one_argument_phis(&mut f);
    split_critical_edges(&mut f);
    pass_times.push(("split-critical-edges", start.elapsed()));
    verify_function(&f).map_err(|e| fail("split-critical-edges", "verify", e))?;
    let pressure_before = max_pressure(&f, &compute_liveness(&f));
    stages.push(("split-critical-edges", f.clone()));

    let start = Instant::now();
    let lifted = phi_lifting(&mut f);
    pass_times.push(("phi-lifting", start.elapsed()));
    verify_function(&f).map_err(|e| fail("phi-lifting", "verify", e))?;
    check_cssa(&f).map_err(|e| fail("phi-lifting", "cssa", e))?;
    let pressure_after = max_pressure(&f, &compute_liveness(&f));
    if pressure_after > pressure_before {
        return Err(fail(
            "phi-lifting",
            "pressure (Pereira's Theorem 1)",
            format!("PhiLifting raised the register pressure from {pressure_before} to {pressure_after}"),
        ));
    }
    stages.push(("phi-lifting", f.clone()));

    if opts.phi_mem_coalesce {
        let start = Instant::now();
        phi_mem_coalesce(&mut f, &lifted);
        pass_times.push(("phi-mem-coalesce", start.elapsed()));
        verify_function(&f).map_err(|e| fail("phi-mem-coalesce", "verify", e))?;
        check_cssa(&f).map_err(|e| fail("phi-mem-coalesce", "cssa", e))?;
        // PhiMemCoalesce decides with the liveness `check_cssa` uses: cross-
        // check with the checker's own liveness and classes.
        class_interference::check_cssa_independently(&f)
            .map_err(|e| fail("phi-mem-coalesce", "cssa (independent liveness)", e))?;
        stages.push(("phi-mem-coalesce", f.clone()));
    }

    let spill_opts =
        SpillOptions { k: opts.k, load_lowering: opts.load_lowering, recycle_reloads: opts.recycle_reloads };
    let start = Instant::now();
    let spilled = spill(&mut f, &spill_opts).map_err(|e| fail("spill", "demand<=K", e))?;
    pass_times.push(("spill", start.elapsed()));
    verify_function(&f).map_err(|e| fail("spill", "verify", e))?;
    check_cssa(&f).map_err(|e| fail("spill", "cssa", e))?;
    stages.push(("spill", f.clone()));

    let coloring_opts = ColoringOptions {
        local_coalescing: opts.coalescing,
        global_coalescing: opts.coalescing,
        avoid_precolored: true,
    };
    let start = Instant::now();
    let assignment = assign_registers(&f, &spilled, opts.k, &coloring_opts).map_err(|e| fail("assign", "assign", e))?;
    pass_times.push(("assign", start.elapsed()));
    check_assignment(&f, &spilled, &assignment, opts.k).map_err(|e| fail("assign", "coloring", e))?;
    coloring_check::check_frugal(&f, &assignment.slot).map_err(|e| fail("assign", "frugal", e))?;

    let elim_opts = EliminationOptions {
        store_hoisting: opts.store_hoisting,
        redundant_memory_transfer_elimination: opts.redundant_memory_transfer_elimination,
    };
    let start = Instant::now();
    let (mf, elimination) =
        eliminate_ssa(&f, &spilled, &assignment, opts.k, &elim_opts).map_err(|e| fail("eliminate", "spartan", e))?;
    pass_times.push(("eliminate", start.elapsed()));
    alloc_checker::check_no_scratch(&mf).map_err(|e| fail("eliminate", "no-scratch-register", e))?;
    alloc_checker::check_allocation(&mf).map_err(|e| fail("eliminate", "allocation-checker", e))?;
    coloring_check::check_chordal_optimum(&f, &spilled.spilled, &mf)
        .map_err(|e| fail("eliminate", "chordal optimum (registers in the MIR)", e))?;

    let report = AllocReport {
        stages,
        spilled: spilled.spilled.len(),
        slots: assignment.slot_count,
        registers_used: assignment.registers_used,
        max_demand: spilled.max_demand,
        elimination,
        pass_times,
    };
    Ok((mf, report))
}

/// Allocates every function of a module.
pub fn allocate_module(m: &Module, opts: &RegallocOptions) -> Result<(MModule, Vec<AllocReport>), PassError> {
    let mut functions = Vec::new();
    let mut reports = Vec::new();
    for f in &m.functions {
        let (mf, r) = allocate_function(f, opts)?;
        functions.push(mf);
        reports.push(r);
    }
    Ok((MModule { functions }, reports))
}
