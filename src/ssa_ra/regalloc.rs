//! ssa-ra's options and report: SSA-based register allocation (Pereira,
//! "The Design and Implementation of a SSA-based Register Allocator") and
//! spill-free SSA elimination (Pereira and Palsberg, "SSA Elimination after
//! Register Allocation", CC 2009).
//!
//! The pass list is `allocate_function` in `backend/ssa_ra.rs`: the passes
//! in order, each through the pass runner (`pass_manager/runner.rs`), which
//! times it alone, then runs its checkers and keeps a copy of the SSA after
//! each pass that rewrites it (for the oracle).
//!
//! Architecture invariant: no pass reserves a register. Spill code uses the
//! register its value was given (a reload is an ordinary value that the
//! assignment colors), and SSA elimination uses only the locations of the
//! parallel copy it implements (swaps for cycles).

use crate::ssa_ra::ssa_elimination::EliminationStats;
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
