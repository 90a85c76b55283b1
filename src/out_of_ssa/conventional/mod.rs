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
//! [`allocate_conventional`] runs `alloc_checker::check_no_scratch` and
//! `alloc_checker::check_allocation` and returns their failure as a
//! [`PassError`], as ssa-ra does after its passes.
//!
//! Bad input (phis, `undef`, a value or block out of range, predecessor
//! lists that disagree with the terminators, repeated parameters, K outside
//! `MIN_REGS..=MAX_REGS`) is reported as a [`PassError`] from the check
//! `input`, never a panic.

pub mod alloc_input;
pub mod linear_scan;
pub mod spill_everything;

use crate::checkers::alloc_checker;
use crate::error::PassError;
use crate::ir::{Function, Module};
use crate::mir::{MFunction, MModule};
use crate::out_of_ssa::conventional::alloc_input::fail;
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

/// Allocates one out-of-ssa function with `k` registers by `which` (each
/// allocator first validates its input, see `validate_input`), then, when
/// checks are on (`pass_manager/self_checks.rs`), checks the result with the
/// allocation checker (and that no register beyond `k` is named).
pub fn allocate_conventional(f: &Function, k: usize, which: ConventionalAllocator) -> Result<MFunction, PassError> {
    allocate_conventional_pinned(f, &Pins::none(), k, which)
}

/// [`allocate_conventional`] with the variables pinned by the out-of-SSA
/// translation (§III-D, `renaming_constraints.rs`) in their registers, as
/// far as `k` allows: linear scan honors the pins, and spill-everything
/// meets the constraints of every division by construction.
pub fn allocate_conventional_pinned(
    f: &Function,
    pins: &Pins,
    k: usize,
    which: ConventionalAllocator,
) -> Result<MFunction, PassError> {
    let mf = match which {
        ConventionalAllocator::SpillEverything => {
            crate::out_of_ssa::conventional::spill_everything::spill_everything(f, k)?
        }
        ConventionalAllocator::LinearScan => {
            crate::out_of_ssa::conventional::linear_scan::linear_scan_pinned(f, pins, k)?
        }
    };
    if crate::pass_manager::self_checks::enabled() {
        alloc_checker::check_no_scratch(&mf).map_err(|e| fail(which.name(), "no-scratch-register", e))?;
        alloc_checker::check_allocation(&mf).map_err(|e| fail(which.name(), "allocation-checker", e))?;
    }
    Ok(mf)
}

/// Allocates every function of a out-of-ssa module (see
/// [`allocate_conventional`]).
pub fn allocate_conventional_module(m: &Module, k: usize, which: ConventionalAllocator) -> Result<MModule, PassError> {
    allocate_conventional_module_pinned(m, &[], k, which)
}

/// Allocates every function of a out-of-ssa module with its pins (`pins[i]`
/// for function `i`; a function without an entry has none), see
/// [`allocate_conventional_pinned`].
pub fn allocate_conventional_module_pinned(
    m: &Module,
    pins: &[Pins],
    k: usize,
    which: ConventionalAllocator,
) -> Result<MModule, PassError> {
    let none = Pins::none();
    let functions = m
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| allocate_conventional_pinned(f, pins.get(i).unwrap_or(&none), k, which))
        .collect::<Result<_, _>>()?;
    Ok(MModule { functions })
}
