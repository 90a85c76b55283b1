//! Route 2's register allocation: conventional allocators for code that has
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
//! (`alloc_checker.rs`, "Route 2: copy annotations"); after allocation
//! [`allocate_conventional`] runs `alloc_checker::check_no_scratch` and
//! `alloc_checker::check_allocation` and returns their failure as a
//! [`PassError`], as route 1 does after its passes.
//!
//! Bad input (phis, `undef`, a value or block out of range, predecessor
//! lists that disagree with the terminators, repeated parameters, K outside
//! `MIN_REGS..=MAX_REGS`) is reported as a [`PassError`] from the check
//! `input`, never a panic.

use crate::alloc_checker;
use crate::entity::EntityRef;
use crate::ir::{Function, Module, Op};
use crate::mir::{MFunction, MModule, MAX_REGS, MIN_REGS};
use crate::pipeline::PassError;
use crate::renaming_constraints::Pins;

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

/// A failure of route 2's allocation, as a [`PassError`].
pub(crate) fn fail(which: &str, check: &'static str, message: impl ToString) -> PassError {
    PassError { pass: format!("conv-ra/{which}"), check, message: message.to_string() }
}

/// Checks what both allocators rely on: `k` in range, at least one block,
/// no phis, no `undef`, every value below `value_count`, every successor and
/// predecessor in range, `preds` agreeing with the terminators as a
/// multiset, an entry without predecessors, every instruction defining a
/// value exactly when its operation has a result, and distinct parameters.
pub(crate) fn validate_input(f: &Function, k: usize, which: &str) -> Result<(), PassError> {
    let bad = |m: String| Err(fail(which, "input", format!("function `{}`: {m}", f.name)));
    if !(MIN_REGS..=MAX_REGS).contains(&k) {
        return bad(format!("K = {k} is outside {MIN_REGS}..={MAX_REGS}"));
    }
    let n = f.blocks.len();
    if n == 0 {
        return bad("no blocks".to_string());
    }
    let mut out_of_range = None;
    f.for_each_value_mention(|v| {
        if v.0 >= f.value_count && out_of_range.is_none() {
            out_of_range = Some(v);
        }
    });
    if let Some(v) = out_of_range {
        return bad(format!("{v} is not below value_count {}", f.value_count));
    }
    for (i, p) in f.params.iter().enumerate() {
        if f.params[..i].contains(p) {
            return bad(format!("parameter {i} repeats {p}"));
        }
    }
    let mut incoming = vec![Vec::new(); n];
    for (b, data) in f.blocks.iter() {
        if !data.phis.is_empty() {
            return bad(format!("{b} has phis; route 2 allocates code after SSA destruction"));
        }
        for inst in &data.insts {
            if matches!(inst.op, Op::Undef) {
                return bad(format!("{b} contains `undef`"));
            }
            if inst.dest.is_some() != inst.op.has_result() {
                return bad(format!("{b} has an instruction whose destination does not fit its operation"));
            }
        }
        for s in f.succs(b) {
            if s.index() >= n {
                return bad(format!("{b} branches to {s}, which does not exist"));
            }
            incoming[s.index()].push(b);
        }
    }
    for (b, data) in f.blocks.iter() {
        let mut listed = data.preds.clone();
        listed.sort();
        let actual = &mut incoming[b.index()];
        actual.sort();
        if listed != *actual {
            return bad(format!("the predecessor list of {b} does not match the edges into it"));
        }
    }
    if !f.blocks[Function::ENTRY].preds.is_empty() {
        return bad("the entry block has predecessors".to_string());
    }
    Ok(())
}

/// Allocates one route-2 function with `k` registers by `which` (each
/// allocator first validates its input, see `validate_input`), then
/// checks the result with the allocation checker (and that no register
/// beyond `k` is named).
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
        ConventionalAllocator::SpillEverything => crate::spill_everything::spill_everything(f, k)?,
        ConventionalAllocator::LinearScan => crate::linear_scan::linear_scan_pinned(f, pins, k)?,
    };
    alloc_checker::check_no_scratch(&mf).map_err(|e| fail(which.name(), "no-scratch-register", e))?;
    alloc_checker::check_allocation(&mf).map_err(|e| fail(which.name(), "allocation-checker", e))?;
    Ok(mf)
}

/// Allocates every function of a route-2 module (see
/// [`allocate_conventional`]).
pub fn allocate_conventional_module(m: &Module, k: usize, which: ConventionalAllocator) -> Result<MModule, PassError> {
    allocate_conventional_module_pinned(m, &[], k, which)
}

/// Allocates every function of a route-2 module with its pins (`pins[i]`
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
