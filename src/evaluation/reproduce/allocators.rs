//! The allocators of Pereira's comparison (§5) and their static and
//! executed counts, shared by the sections that compare them
//! (`pereira.rs`, `pereira_x86.rs`, `spill_cause.rs`,
//! `pereira_palsberg.rs`): ssa-ra with a set of options (Ch -O1, Ch -O3)
//! and out-of-ssa's linear scan after Boissinot et al.'s out-of-SSA
//! translation (the paper's LLVM allocator).

use crate::backend::ssa_ra::allocate_module;
use crate::backend::{Backend, OutOfSsa};
use crate::construction::braun::{construct_program, BraunOptions};
use crate::evaluation::eval_error::EvalError;
use crate::evaluation::regalloc_stats::AllocCounts;
use crate::evaluation::reproduce::measure::Workload;
use crate::ir::Module;
use crate::mir::MModule;
use crate::oracle::Oracle;
use crate::out_of_ssa::conventional::ConventionalAllocator;
use crate::out_of_ssa::translate::OutOfSsaOptions;
use crate::outcome::End;
use crate::pass_manager::flags::Flags;
use crate::pass_manager::runner::Unobserved;
use crate::ssa_ra::regalloc::RegallocOptions;

/// An allocator of the comparison.
#[derive(Clone, Copy, Debug)]
pub enum Allocator {
    /// ssa-ra with these options (its `k` is replaced).
    SsaRa(RegallocOptions),
    /// out-of-ssa: out-of-SSA (fast configuration, Sharing), then linear scan.
    LinearScan,
}

impl Allocator {
    /// Pereira's Ch -O1: no coalescing, no PhiMemCoalesce.
    pub fn ch_o1() -> Allocator {
        Allocator::SsaRa(RegallocOptions { phi_mem_coalesce: false, coalescing: false, ..RegallocOptions::with_k(2) })
    }

    /// Pereira's Ch -O3: every option of ssa-ra.
    pub fn ch_o3() -> Allocator {
        Allocator::SsaRa(RegallocOptions::with_k(2))
    }

    /// The allocated code of `ssa` with `k` registers, and the values spilled
    /// (out-of-ssa: its slots, one per spilled variable).
    pub(crate) fn allocate(self, ssa: &Module, k: usize) -> Result<(MModule, usize), EvalError> {
        match self {
            Allocator::SsaRa(o) => {
                let (mir, reports) =
                    allocate_module(ssa, &RegallocOptions { k, ..o }, Flags::unchecked(), &mut Unobserved)?;
                Ok((mir, reports.iter().map(|r| r.spilled).sum()))
            }
            Allocator::LinearScan => {
                let b =
                    OutOfSsa { out_of_ssa: OutOfSsaOptions::default(), allocator: ConventionalAllocator::LinearScan };
                let prepared = b.prepare(ssa, Flags::unchecked(), &mut Unobserved)?;
                let mir = b.allocate(ssa, &prepared, k, Flags::unchecked(), &mut Unobserved)?;
                let slots = mir.functions.iter().map(|f| f.slot_count as usize).sum();
                Ok((mir, slots))
            }
        }
    }
}

/// Static and dynamic counts of `alloc` with `k` registers over `w`. Each
/// allocated program must compute the source's outcome.
pub fn measure(
    w: &Workload,
    alloc: Allocator,
    k: usize,
    oracle: &dyn Oracle,
    fuel: u64,
) -> Result<AllocCounts, EvalError> {
    let mut c = AllocCounts::default();
    for case in &w.cases {
        let expected = oracle.run_source(&case.program, &case.args, fuel).map_err(EvalError::Oracle)?;
        let ssa = construct_program(&case.program, &BraunOptions::all_on());
        let (mir, spilled) = alloc.allocate(&ssa, k).map_err(|e| e.within(case.name.clone()))?;
        c.programs += 1;
        c.values_spilled += spilled;
        c.add_static(&mir);
        if expected.end == End::OutOfFuel {
            continue;
        }
        let (got, profile) = oracle
            .profile_mir(&mir, &case.args, crate::differential::later_stage_fuel(fuel))
            .map_err(|e| EvalError::Oracle(e).within(case.name.clone()))?;
        if got != expected {
            let diverge = EvalError::Diverge {
                stage: format!("the allocated program (K = {k})"),
                got: Box::new(got),
                expected: Box::new(expected),
            };
            return Err(diverge.within(case.name.clone()));
        }
        c.runs += 1;
        c.dynamic.executed += profile.executed;
        c.dynamic.loads += profile.loads;
        c.dynamic.stores += profile.stores;
        c.dynamic.moves += profile.moves;
        c.dynamic.swaps += profile.swaps;
    }
    Ok(c)
}
