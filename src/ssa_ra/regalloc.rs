//! ssa-ra, the default back end: SSA-based register allocation (Pereira,
//! "The Design and Implementation of a SSA-based Register Allocator") and
//! spill-free SSA elimination (Pereira and Palsberg, "SSA Elimination after
//! Register Allocation", CC 2009).
//!
//! [`allocate_function`] runs the passes in order, each through the pass
//! runner (`pass_manager/runner.rs`), which times it alone, then runs its
//! checkers and keeps a copy of the SSA after each pass that rewrites it
//! (for the oracle):
//!
//! | pass | file | checked after it |
//! |---|---|---|
//! | one-argument phis to copies, then critical-edge splitting (so that every predecessor of a block with phis has one successor) | `one_argument_phis.rs`, `critical_edges.rs` | SSA verifier |
//! | PhiLifting (§4.2) | `phi_lifting.rs` | verifier, CSSA, pressure not raised (Theorem 1) |
//! | PhiMemCoalesce (§4.4) | `phi_mem_coalesce.rs` | verifier, CSSA (and again with `checkers/class_interference_check.rs`'s own liveness) |
//! | spilling (§4.5, §4.7; load lowering §6.2): decided during the coloring walk with the §4.6 weight deduction (`spill_during_coloring`), or as a separate pass before it | `spill_during_coloring.rs`, or `spill.rs` | verifier, CSSA, demand ≤ K (recounted by `checkers/coloring_check.rs`) |
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
use crate::checkers::{alloc_checker, class_interference_check, coloring_check};
use crate::error::{CheckError, PassError};
use crate::ir::{Function, Module};
use crate::mir::{MFunction, MModule, MAX_REGS, MIN_REGS};
use crate::pass_manager::runner::PassRunner;
use crate::ssa_ra::coloring::{assign_registers, check_assignment, ColoringOptions};
use crate::ssa_ra::one_argument_phis::lower_one_argument_phis;
use crate::ssa_ra::phi_lifting::phi_lifting;
use crate::ssa_ra::phi_mem_coalesce::phi_mem_coalesce;
use crate::ssa_ra::spill::{spill, SpillOptions};
use crate::ssa_ra::spill_during_coloring::{spill_during_coloring, SpillDuringColoringOptions};
use crate::ssa_ra::ssa_elimination::{eliminate_ssa, EliminationOptions, EliminationStats};
use std::time::Duration;

/// Every switch of ssa-ra.
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
    /// Spill decisions made during the coloring walk, with the §4.6 weight
    /// deduction (`spill_during_coloring.rs`, Pereira §4.5-4.6); false: the
    /// separate spilling pass before coloring (`spill.rs`).
    pub spill_during_coloring: bool,
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
            spill_during_coloring: true,
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

    /// The names of the six switches, in the order of [`Self::switch`]:
    /// PhiMemCoalesce, coalescing, reload recycling, store hoisting, load
    /// lowering, redundant memory transfer elimination.
    pub const SWITCHES: [&'static str; 7] = ["pmc", "coalesce", "recycle", "hoist", "lower", "rmte", "color-spill"];

    /// The switch named `SWITCHES[i]`.
    pub fn switch(&mut self, i: usize) -> Option<&mut bool> {
        Some(match i {
            0 => &mut self.phi_mem_coalesce,
            1 => &mut self.coalescing,
            2 => &mut self.recycle_reloads,
            3 => &mut self.store_hoisting,
            4 => &mut self.load_lowering,
            5 => &mut self.redundant_memory_transfer_elimination,
            6 => &mut self.spill_during_coloring,
            _ => return None,
        })
    }

    /// The switches, in the order of [`Self::SWITCHES`].
    pub fn switches(mut self) -> [bool; 7] {
        std::array::from_fn(|i| self.switch(i).is_some_and(|on| *on))
    }

    /// A short name of the switches (not `k`): `opt` when all are on,
    /// `plain` without the §6 optimizations only, `none` when all are off,
    /// else the switches that are on joined by `+` (`pmc+recycle+hoist`).
    /// [`Self::from_description`] reads it back.
    pub fn describe(&self) -> String {
        let all = RegallocOptions::with_k(self.k);
        if *self == all {
            return "opt".into();
        }
        if *self == all.without_section_6() {
            return "plain".into();
        }
        let on: Vec<&str> =
            self.switches().iter().zip(Self::SWITCHES).filter(|(on, _)| **on).map(|(_, name)| name).collect();
        if on.is_empty() {
            "none".into()
        } else {
            on.join("+")
        }
    }

    /// The options that [`Self::describe`] names, with `k` = 2; `None` for
    /// a name that is not a description.
    pub fn from_description(s: &str) -> Option<RegallocOptions> {
        let all = RegallocOptions::with_k(2);
        match s {
            "opt" => return Some(all),
            "plain" => return Some(all.without_section_6()),
            _ => {}
        }
        let mut out = all;
        for i in 0..Self::SWITCHES.len() {
            *out.switch(i)? = false;
        }
        if s == "none" {
            return Some(out);
        }
        for name in s.split('+') {
            let i = Self::SWITCHES.iter().position(|n| *n == name)?;
            *out.switch(i)? = true;
        }
        Some(out)
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
    /// The thread CPU time of each pass alone, its checkers not counted, in order
    /// (`ssaref reproduce` measures the share of SSA elimination with it).
    pub pass_times: Vec<(&'static str, Duration)>,
}

fn fail(pass: &str, check: &'static str, error: impl Into<CheckError>) -> PassError {
    PassError::new(format!("ssa-ra/{pass}"), check, error)
}

/// Allocates one function with `opts.k` registers; checks every pass.
pub fn allocate_function(f: &Function, opts: &RegallocOptions) -> Result<(MFunction, AllocReport), PassError> {
    allocate(f, opts, true, true)
}

/// [`allocate_function`], every checker included, but without the copies
/// of the SSA after each pass (`AllocReport::stages` is empty): for a
/// caller that wants only the allocated code (`ssaref emit`), which at a
/// million statements would otherwise hold four more copies of the
/// function.
pub fn allocate_function_checked(f: &Function, opts: &RegallocOptions) -> Result<(MFunction, AllocReport), PassError> {
    allocate(f, opts, true, false)
}

/// [`allocate_function`] without the checkers between the passes and
/// without the copies of the SSA after each pass (`AllocReport::stages` is
/// empty): the same allocation, for timing the allocator alone
/// (`evaluation/backend_comparison.rs`, `benches/allocation.rs`). Its output
/// is not checked; use [`allocate_function`] for anything else.
pub fn allocate_function_unchecked(
    f: &Function,
    opts: &RegallocOptions,
) -> Result<(MFunction, AllocReport), PassError> {
    allocate(f, opts, false, false)
}

/// The passes, with the checkers when `check` is on, keeping a copy of the
/// SSA after each checked pass that rewrites it when `keep` is on; the time
/// of each pass alone is recorded either way.
fn allocate(
    f: &Function,
    opts: &RegallocOptions,
    check: bool,
    keep: bool,
) -> Result<(MFunction, AllocReport), PassError> {
    if !(MIN_REGS..=MAX_REGS).contains(&opts.k) {
        return Err(fail("options", "k", CheckError::RegisterCount { k: opts.k }));
    }
    let mut passes = PassRunner::new(check && crate::pass_manager::self_checks::enabled()).timed().keeping(keep);
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

    let lifted = passes.rewrite(
        "phi-lifting",
        &mut f,
        |f| Ok(phi_lifting(f)),
        |f, _| {
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
        },
    )?;

    if opts.phi_mem_coalesce {
        passes.rewrite(
            "phi-mem-coalesce",
            &mut f,
            |f| {
                phi_mem_coalesce(f, &lifted);
                Ok(())
            },
            |f, ()| {
                verify_function(f).map_err(|e| fail("phi-mem-coalesce", "verify", e))?;
                check_cssa(f).map_err(|e| fail("phi-mem-coalesce", "cssa", e))?;
                // PhiMemCoalesce decides with the liveness `check_cssa` uses:
                // cross-check with the checker's own liveness and classes.
                class_interference_check::check_cssa_independently(f)
                    .map_err(|e| fail("phi-mem-coalesce", "cssa (independent liveness)", e))
            },
        )?;
    }

    let spilled = passes.rewrite(
        "spill",
        &mut f,
        |f| {
            if opts.spill_during_coloring {
                let o = SpillDuringColoringOptions {
                    load_lowering: opts.load_lowering,
                    recycle_reloads: opts.recycle_reloads,
                    ..SpillDuringColoringOptions::with_k(opts.k)
                };
                spill_during_coloring(f, &o)
            } else {
                let spill_opts = SpillOptions {
                    k: opts.k,
                    load_lowering: opts.load_lowering,
                    recycle_reloads: opts.recycle_reloads,
                };
                spill(f, &spill_opts)
            }
            .map_err(|e| fail("spill", "demand<=K", e))
        },
        |f, spilled| {
            verify_function(f).map_err(|e| fail("spill", "verify", e))?;
            // The demand recounted by the coloring checker, not the
            // spiller's own `block_points`.
            let demand = coloring_check::max_register_demand(f, &spilled.spilled);
            if demand > opts.k {
                return Err(fail("spill", "demand<=K (checker)", CheckError::Demand { demand, k: opts.k }));
            }
            check_cssa(f).map_err(|e| fail("spill", "cssa", e))
        },
    )?;

    let coloring_opts = ColoringOptions {
        local_coalescing: opts.coalescing,
        global_coalescing: opts.coalescing,
        avoid_precolored: true,
    };
    let assignment = passes.run(
        "assign",
        || assign_registers(&f, &spilled, opts.k, &coloring_opts).map_err(|e| fail("assign", "assign", e)),
        |assignment| {
            check_assignment(&f, &spilled, assignment, opts.k).map_err(|e| fail("assign", "coloring", e))?;
            coloring_check::check_frugal(&f, &assignment.slot).map_err(|e| fail("assign", "frugal", e))
        },
    )?;

    let elim_opts = EliminationOptions {
        store_hoisting: opts.store_hoisting,
        redundant_memory_transfer_elimination: opts.redundant_memory_transfer_elimination,
    };
    let (mf, elimination) = passes.run(
        "eliminate",
        || eliminate_ssa(&f, &spilled, &assignment, opts.k, &elim_opts).map_err(|e| fail("eliminate", "spartan", e)),
        |(mf, _)| {
            alloc_checker::check_no_scratch(mf).map_err(|e| fail("eliminate", "no-scratch-register", e))?;
            alloc_checker::check_allocation(mf).map_err(|e| fail("eliminate", "allocation-checker", e))?;
            coloring_check::check_chordal_optimum(&f, &spilled.spilled, mf)
                .map_err(|e| fail("eliminate", "chordal optimum (registers in the MIR)", e))
        },
    )?;

    let (stages, pass_times) = passes.finish();
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
    allocate_module_with(m, opts, allocate_function)
}

/// [`allocate_module`] with [`allocate_function_checked`]: every checker,
/// no copies of the SSA after each pass.
pub fn allocate_module_checked(m: &Module, opts: &RegallocOptions) -> Result<(MModule, Vec<AllocReport>), PassError> {
    allocate_module_with(m, opts, allocate_function_checked)
}

type AllocateOne = fn(&Function, &RegallocOptions) -> Result<(MFunction, AllocReport), PassError>;

fn allocate_module_with(
    m: &Module,
    opts: &RegallocOptions,
    allocate_one: AllocateOne,
) -> Result<(MModule, Vec<AllocReport>), PassError> {
    let mut functions = Vec::new();
    let mut reports = Vec::new();
    for f in &m.functions {
        let (mf, r) = allocate_one(f, opts)?;
        functions.push(mf);
        reports.push(r);
    }
    Ok((MModule { functions }, reports))
}
