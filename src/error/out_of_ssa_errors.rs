//! The errors of out-of-ssa's checks (Boissinot et al., "Revisiting
//! Out-of-SSA Translation for Correctness, Code Quality, and Efficiency",
//! CGO 2009): the cross-check of the two liveness methods
//! (`out_of_ssa/liveness_cross_check.rs`) and the renaming constraints of
//! the fixed registers of a division (`out_of_ssa/renaming_constraints.rs`),
//! and the failures of the translation and of the conventional allocators
//! (`out_of_ssa/conventional/`).

use crate::ir::{Block, Inst, Op, Value};
use crate::mir::Reg;
use std::fmt;

/// Where the liveness sets and the liveness check disagree.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LivenessDisagreement {
    /// The sets have no entry for the block.
    MissingBlock(Block),
    /// `value` is live-in at `block` by the sets exactly when `by_sets`,
    /// and by the check exactly when not.
    LiveIn { value: Value, block: Block, by_sets: bool },
    /// `value` is live-out of `block` by the sets exactly when `by_sets`,
    /// and by the check exactly when not.
    LiveOut { value: Value, block: Block, by_sets: bool },
}

impl fmt::Display for LivenessDisagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let not = |live: bool| if live { "" } else { "not " };
        match *self {
            LivenessDisagreement::MissingBlock(b) => write!(f, "the liveness sets have no entry for {b}"),
            LivenessDisagreement::LiveIn { value, block, by_sets } => write!(
                f,
                "{value} is {}live-in at {block} by the sets but {}by the liveness check",
                not(by_sets),
                not(!by_sets)
            ),
            LivenessDisagreement::LiveOut { value, block, by_sets } => write!(
                f,
                "{value} is {}live-out of {block} by the sets but {}by the liveness check",
                not(by_sets),
                not(!by_sets)
            ),
        }
    }
}

impl std::error::Error for LivenessDisagreement {}

/// A renaming constraint that a translated function breaks.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ConstraintError {
    /// Several variables are pinned to one register or role (its name).
    SharedRegister { reg: &'static str, vars: Vec<Value> },
    /// Instruction `index` of `block`, a division or a call, is not
    /// constrained.
    NotPinned { block: Block, index: usize, dest: Option<Value>, op: Op },
    /// The divisor of instruction `index` of `block` is pinned to rdx.
    DivisorInRdx { block: Block, index: usize, divisor: Value },
    /// `value`, pinned to `reg` (a register or role, by name), is live where
    /// the division or call at instruction `index` of `block` destroys that
    /// register.
    LiveAtClobber { block: Block, index: usize, value: Value, reg: &'static str },
}

impl std::fmt::Display for ConstraintError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConstraintError::SharedRegister { reg, vars } => {
                write!(f, "{} variables are pinned to {reg}: {vars:?}", vars.len())
            }
            ConstraintError::NotPinned { block, index, dest, op } => {
                let dest = dest.map_or_else(|| "_".to_string(), |d| d.to_string());
                write!(f, "{block}, instruction {index}: the division or call is not pinned ({dest} = {op:?})")
            }
            ConstraintError::DivisorInRdx { block, index, divisor } => {
                write!(f, "{block}, instruction {index}: the divisor {divisor} is pinned to rdx")
            }
            ConstraintError::LiveAtClobber { block, index, value, reg } => write!(
                f,
                "{block}, instruction {index}: {value} is pinned to {reg} but live where the division or call destroys it"
            ),
        }
    }
}

impl std::error::Error for ConstraintError {}

/// A failure of out-of-ssa's translation itself: a bug of ssaref, or a
/// function too large to translate.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum TranslateError {
    /// Numbering the copies would need more than `u32::MAX` values.
    TooManyValues,
    /// A parallel copy of the block holds an instruction that is not a
    /// copy.
    NonCopyInParallelCopy(Block),
    /// The linear and the pairwise class test of Boissinot et al. (§IV-B)
    /// answered `mismatches` of `queries` class queries differently, with
    /// the coalescing `variant` and the class test `class_test`.
    ClassTestsDisagree { mismatches: usize, queries: usize, variant: &'static str, class_test: &'static str },
}

impl fmt::Display for TranslateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TranslateError::TooManyValues => f.write_str("too many values to number the copies"),
            TranslateError::NonCopyInParallelCopy(b) => write!(f, "a non-copy instruction in a parallel copy of {b}"),
            TranslateError::ClassTestsDisagree { mismatches, queries, variant, class_test } => write!(
                f,
                "{mismatches} of {queries} class queries got different answers from the linear and the pairwise \
                 test ({variant}, {class_test} test)"
            ),
        }
    }
}

impl std::error::Error for TranslateError {}

/// A conventional allocator of out-of-ssa (linear scan, spill everywhere)
/// fails on a function it accepted: a bug of ssaref. `position` is the
/// linear scan's numbering of program points.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ConventionalAllocError {
    /// The scan evicted an interval that is not a variable's.
    NonVariableEvicted,
    /// The temporary of `value` at `position`, before the eviction, is
    /// fixed to another register than the one `value` held.
    TemporaryFixedElsewhere { value: Value, position: u32 },
    /// No register can be freed for the temporary of `value` at
    /// `position`.
    NoRegisterForTemporary { value: Value, position: u32 },
    /// The scan left the temporary of `value` at `position` without a
    /// register.
    TemporaryWithoutRegister { value: Value, position: u32 },
    /// The emitter finds no temporary for `value` at `position`.
    NoTemporary { value: Value, position: u32 },
    /// A spilled value has no slot.
    SpilledWithoutSlot(Value),
    /// A value in a register has none.
    NoRegister(Value),
    /// Spilling everywhere finds no slot for the value.
    NoSlot(Value),
    /// A constrained division whose dividend is not in rax, whose result
    /// is not in rax (`/`) or rdx (`%`), or whose divisor is in rdx.
    ConstrainedDivision { inst: Inst, dividend: Reg, divisor: Reg, result: Reg },
    /// A call whose result is not in rax, or whose register argument
    /// `index` is not in the calling convention's register `expected`.
    ConstrainedCall { inst: Inst, index: Option<usize>, expected: Reg, got: Reg },
    /// An instruction whose destination does not fit its operation.
    Unallocatable { op: Op, dest: Option<Value> },
    /// The linear scan's emitter meets an instruction whose destination
    /// register does not fit its operation.
    Unemittable { op: Op, dest: Option<Reg> },
}

impl fmt::Display for ConventionalAllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConventionalAllocError::NonVariableEvicted => f.write_str("a non-variable was evicted"),
            ConventionalAllocError::TemporaryFixedElsewhere { value, position } => {
                write!(f, "the temporary of {value} at {position} is fixed to another register than {value}'s")
            }
            ConventionalAllocError::NoRegisterForTemporary { value, position } => {
                write!(f, "no register can be freed for the temporary of {value} at position {position}")
            }
            ConventionalAllocError::TemporaryWithoutRegister { value, position } => {
                write!(f, "the temporary of {value} at {position} has no register")
            }
            ConventionalAllocError::NoTemporary { value, position } => {
                write!(f, "no temporary for {value} at {position}")
            }
            ConventionalAllocError::SpilledWithoutSlot(v) => write!(f, "spilled {v} has no slot"),
            ConventionalAllocError::NoRegister(v) => write!(f, "{v} has no register"),
            ConventionalAllocError::NoSlot(v) => write!(f, "{v} has no slot"),
            ConventionalAllocError::ConstrainedDivision { inst, dividend, divisor, result } => write!(
                f,
                "the constrained division `{inst:?}` got dividend {dividend}, divisor {divisor}, result {result}"
            ),
            ConventionalAllocError::ConstrainedCall { inst, index, expected, got } => match index {
                Some(i) => write!(f, "the call `{inst:?}` got argument {i} in {got}, not in {expected}"),
                None => write!(f, "the call `{inst:?}` got its result in {got}, not in {expected}"),
            },
            ConventionalAllocError::Unallocatable { op, dest } => write!(f, "cannot allocate {op:?} defining {dest:?}"),
            ConventionalAllocError::Unemittable { op, dest } => write!(f, "cannot allocate {op:?} defining {dest:?}"),
        }
    }
}

impl std::error::Error for ConventionalAllocError {}
