//! out-of-ssa's register allocation: conventional allocators for code that has
//! left SSA form before allocation (Boissinot et al.'s out-of-SSA
//! translation), producing the allocated machine IR of `mir.rs`.
//!
//! The input is an `ir::Function` without phis in which a value number is a
//! program *variable* that may be defined several times, and copies are
//! `Op::Copy`. The oracle's SSA engine runs such functions as they are.
//! Two allocators:
//!
//! | allocator | file | source |
//! |---|---|---|
//! | [`ConventionalAllocator::SpillEverything`] | `spill_everything.rs` | Pereira's "Simple" baseline (§5 of the tech. report) |
//! | [`ConventionalAllocator::LinearScan`] | `linear_scan.rs` | Poletto and Sarkar's linear scan over lifetime intervals with holes (Traub et al.), with copy coalescing and spilling inside K |
//!
//! Both annotate every instruction with the *variables* it reads and
//! defines, and every program copy as a transfer with a copy annotation
//! (`alloc_checker.rs`, "out-of-ssa: copy annotations"); after allocation
//! out-of-ssa's pass list (`allocate_function` in `backend/out_of_ssa.rs`)
//! runs `alloc_checker::check_no_scratch` and
//! `alloc_checker::check_allocation` when the check switch is on, and
//! returns their failure as a [`PassError`], as ssa-ra does after its
//! passes.
//!
//! Under the calling convention (`call_pins.rs`: in a module with calls), both
//! place the parameters, arguments and results where the convention of K
//! says; linear scan treats a call's clobbers as fixed intervals, so that a
//! variable live across a call gets a callee-saved register or is spilled.
//!
//! Bad input (phis, `undef`, a value or block out of range, predecessor
//! lists that disagree with the terminators, repeated parameters, K outside
//! `MIN_REGS..=MAX_REGS`) is reported as a [`PassError`] from the check
//! `input`, never a panic.

pub mod alloc_input;
pub mod call_pins;
pub mod linear_scan;
mod linear_scan_emit;
pub mod spill_everything;

use crate::error::PassError;
use crate::ir::Function;
use crate::mir::MFunction;
use crate::out_of_ssa::renaming_constraints::Pins;

/// Which conventional allocator to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConventionalAllocator {
    /// Every variable in its own stack slot (`spill_everything.rs`).
    SpillEverything,
    /// Linear scan with coalescing (`linear_scan.rs`).
    LinearScan,
}

impl ConventionalAllocator {
    /// Both allocators, baseline first.
    pub const ALL: [ConventionalAllocator; 2] =
        [ConventionalAllocator::SpillEverything, ConventionalAllocator::LinearScan];

    /// The allocator's short name, used in pass names (`conv-ls`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ConventionalAllocator::SpillEverything => "spill-everything",
            ConventionalAllocator::LinearScan => "linear-scan",
        }
    }
}

/// Allocates one translated function with `k` registers by `which`, with
/// the variables pinned by the out-of-SSA translation (§III-D,
/// `renaming_constraints.rs`) in their registers as far as `k` allows:
/// linear scan honors the pins, and spill-everything meets the constraints
/// of every division and call by construction. In a module with calls
/// (`module_has_calls`), or when `f` has calls, the parameters, arguments
/// and results follow the calling convention of `k` (`call_pins.rs`). Each
/// allocator first validates its input (`alloc_input.rs`). The checks of
/// the result are in the pass list (`backend/out_of_ssa.rs`).
pub fn allocate(
    f: &Function,
    pins: &Pins,
    module_has_calls: bool,
    k: usize,
    which: ConventionalAllocator,
) -> Result<MFunction, PassError> {
    match which {
        ConventionalAllocator::SpillEverything => {
            crate::out_of_ssa::conventional::spill_everything::spill_everything_in(f, module_has_calls, k)
        }
        ConventionalAllocator::LinearScan => {
            crate::out_of_ssa::conventional::linear_scan::linear_scan_in(f, pins, module_has_calls, k)
        }
    }
}
