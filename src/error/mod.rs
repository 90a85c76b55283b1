//! The error every pass and checker of the library returns: which pass's
//! output failed which check, and the failing checker's own error as a
//! value.
//!
//! [`CheckError`] is a closed enum over the checkers' error types, in the
//! manner of regalloc2's `CheckerError`: a caller `match`es on what failed
//! and reads the block, value, register or instruction from the variant,
//! instead of parsing a message. The alternative, a boxed `dyn Error`
//! source, would keep the producers' types apart but leave callers to
//! guess what to downcast to, with no exhaustiveness check.
//!
//! The enum names the checkers' error types, which live beside their
//! checkers in the library (`analysis/`, `checkers/`) or come from the
//! regalloc2 crate, so this module is part of the library, not of
//! `ssaref-types`: that crate, which the oracle depends on, stays free of
//! the checkers and of regalloc2. It sits one layer above `checkers/` and
//! one below the passes that return [`PassError`] (`ssa_ra/`, `out_of_ssa/`,
//! `regalloc2/`, `machine/`), so the errors of those passes are defined
//! here, one file per back end (`ssa_ra_errors.rs`,
//! `out_of_ssa_errors.rs`, `regalloc2_errors.rs`, `machine_errors.rs`),
//! and the passes re-export them: every failure keeps its type, and its
//! block, value, register or K, up to [`PassError`]. There is no variant
//! for a bare message (`tests/suite/error_types.rs` checks it).
//!
//! Every `Display` renders the message that case files, golden files and
//! test expectations record, so the text of a failure is the same whatever
//! the variant.

use std::fmt;

pub mod foreign;
pub mod machine_code_errors;
pub mod machine_errors;
pub mod out_of_ssa_errors;
pub mod regalloc2_errors;
pub mod ssa_ra_errors;

pub use crate::analysis::cssa::CssaError;
pub use crate::analysis::verifier::VerifyError;
pub use crate::checkers::alloc_checker::AllocCheckError;
pub use crate::checkers::class_interference_check::{IndependentCssaError, InterferenceError};
pub use crate::checkers::coloring_check::ColoringCheckError;
pub use crate::checkers::ssa_properties::PropertyError;
pub use foreign::Foreign;
pub use machine_code_errors::{McError, McProblem, StackError, StackRoot};
pub use machine_errors::LowerError;
pub use out_of_ssa_errors::{ConstraintError, ConventionalAllocError, LivenessDisagreement, TranslateError};
pub use regalloc2_errors::{AdapterError, ToMirError};
pub use ssa_ra_errors::{ColoringError, EliminationError, SpillError};

use crate::ir::{Block, Value};
use crate::mir::{MAX_REGS, MIN_REGS};

/// A pass produced IR that a checker rejects, or a pass failed: a bug of
/// ssaref (or an input the pass does not accept).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PassError {
    /// The pass whose output failed (e.g. `braun[phi+scc]`).
    pub pass: String,
    /// The checker that failed (e.g. `verify`, `minimal`).
    pub check: &'static str,
    /// What the checker found (boxed: a `Result` whose error is a
    /// `PassError` stays small on the path that succeeds).
    pub error: Box<CheckError>,
}

impl PassError {
    /// The failure of `check` after `pass`.
    pub fn new(pass: impl Into<String>, check: &'static str, error: impl Into<CheckError>) -> PassError {
        PassError { pass: pass.into(), check, error: Box::new(error.into()) }
    }
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "after {}: check `{}` failed: {}", self.pass, self.check, self.error)
    }
}

impl std::error::Error for PassError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.error)
    }
}

/// What a check found wrong.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum CheckError {
    /// The SSA verifier (`analysis/verifier.rs`) rejects the IR.
    Verify(VerifyError),
    /// The IR is not in CSSA form (`analysis/cssa.rs`).
    Cssa(CssaError),
    /// An SSA property does not hold (`checkers/ssa_properties.rs`): pruned,
    /// no trivial phi, minimal, at most Cytron et al.'s phis.
    Property(PropertyError),
    /// ssaref's allocation checker (`checkers/alloc_checker.rs`) rejects the
    /// allocated code.
    Alloc(AllocCheckError),
    /// The chordal-optimum or the frugality check
    /// (`checkers/coloring_check.rs`) fails.
    Coloring(ColoringCheckError),
    /// The independent CSSA check (`checkers/class_interference_check.rs`)
    /// finds two members of a phi-congruence class that interfere.
    IndependentCssa(IndependentCssaError),
    /// Two members of a class of out-of-ssa's coalescing `variant`
    /// interfere by value (`checkers/class_interference_check.rs`).
    ClassInterference { error: InterferenceError, variant: &'static str },
    /// The machine-code checker rejects the lowered x86-64.
    MachineCode(McError),
    /// A conventional allocator (out-of-ssa) does not accept its input.
    AllocInput(AllocInputError),
    /// The register count is outside `MIN_REGS..=MAX_REGS`.
    RegisterCount { k: usize },
    /// PhiLifting raised the register pressure, against Pereira's
    /// Theorem 1.
    PressureRaised { before: usize, after: usize },
    /// The register demand, recounted by the coloring checker, exceeds `k`
    /// after spilling.
    Demand { demand: usize, k: usize },
    /// regalloc2 rejects its input or cannot allocate it.
    Regalloc2(Foreign<regalloc2::RegAllocError>),
    /// Both ssaref's allocation checker and regalloc2's checker reject the
    /// code regalloc2 allocated.
    BothReject { ours: AllocCheckError, theirs: Foreign<regalloc2::checker::CheckerErrors> },
    /// One of ssaref's allocation checker and regalloc2's checker accepts
    /// the code regalloc2 allocated, the other rejects it.
    CheckersDisagree { ours: Option<AllocCheckError>, theirs: Option<Foreign<regalloc2::checker::CheckerErrors>> },
    /// A spiller of ssa-ra cannot bring the demand down to K.
    Spill(SpillError),
    /// ssa-ra's register assignment fails, or its check does.
    RegisterAssignment(ColoringError),
    /// ssa-ra's SSA elimination meets what the theory rules out.
    Elimination(EliminationError),
    /// The x86-64 lowering rejects the machine IR.
    Lower(LowerError),
    /// out-of-ssa's two liveness methods disagree.
    Liveness(LivenessDisagreement),
    /// A function out-of-ssa translated breaks a renaming constraint.
    Constraint(ConstraintError),
    /// The adapter cannot give the function to regalloc2.
    Adapter(AdapterError),
    /// regalloc2's output cannot be translated to machine IR.
    ToMir(ToMirError),
    /// Braun et al.'s construction, without its optimizations, on a
    /// reducible function, places other than Cytron et al.'s useful phis.
    PhiCountNotUseful { function: String, phis: usize, useful: usize, cytron: usize },
    /// The allocated module's functions, `allocated`, are not the SSA
    /// module's, `ssa` (each list joined by commas).
    FunctionsDiffer { allocated: String, ssa: String },
    /// `function` is allocated for `allocated` registers, not `k`.
    WrongK { function: String, allocated: usize, k: usize },
    /// out-of-ssa's translation fails.
    Translate(TranslateError),
    /// A conventional allocator of out-of-ssa fails.
    ConventionalAlloc(ConventionalAllocError),
    /// `function` contains a call, which `stage` does not handle yet: the
    /// stage refuses the program rather than give a wrong answer.
    CallsNotSupported { function: String, stage: &'static str },
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Verify(e) => e.fmt(f),
            CheckError::Cssa(e) => e.fmt(f),
            CheckError::Property(e) => e.fmt(f),
            CheckError::Alloc(e) => e.fmt(f),
            CheckError::Coloring(e) => e.fmt(f),
            CheckError::IndependentCssa(e) => e.fmt(f),
            CheckError::ClassInterference { error, variant } => write!(f, "{error} ({variant})"),
            CheckError::MachineCode(e) => e.fmt(f),
            CheckError::AllocInput(e) => e.fmt(f),
            CheckError::RegisterCount { k } => write!(f, "K = {k} is outside {MIN_REGS}..={MAX_REGS}"),
            CheckError::PressureRaised { before, after } => {
                write!(f, "PhiLifting raised the register pressure from {before} to {after}")
            }
            CheckError::Demand { demand, k } => write!(f, "demand {demand} > K = {k} after spilling"),
            CheckError::Regalloc2(e) => e.0.fmt(f),
            CheckError::BothReject { ours, theirs } => {
                write!(f, "{ours} (regalloc2's checker rejects it too: {:?})", theirs.0)
            }
            CheckError::CheckersDisagree { ours, theirs } => {
                f.write_str("ssaref's allocation checker ")?;
                match ours {
                    Some(e) => write!(f, "rejects: {e}")?,
                    None => f.write_str("accepts")?,
                }
                f.write_str("; regalloc2's checker ")?;
                match theirs {
                    Some(e) => write!(f, "rejects: {:?}", e.0),
                    None => f.write_str("accepts"),
                }
            }
            CheckError::Spill(e) => e.fmt(f),
            CheckError::RegisterAssignment(e) => e.fmt(f),
            CheckError::Elimination(e) => e.fmt(f),
            CheckError::Lower(e) => e.fmt(f),
            CheckError::Liveness(e) => e.fmt(f),
            CheckError::Constraint(e) => e.fmt(f),
            CheckError::Adapter(e) => e.fmt(f),
            CheckError::ToMir(e) => e.fmt(f),
            CheckError::PhiCountNotUseful { function, phis, useful, cytron } => write!(
                f,
                "`{function}` is reducible and unoptimized but has {phis} phis where Cytron et al. place {useful} \
                 useful ones ({cytron} in all)"
            ),
            CheckError::FunctionsDiffer { allocated, ssa } => {
                write!(f, "the functions are [{allocated}], not those of the SSA, [{ssa}]")
            }
            CheckError::WrongK { function, allocated, k } => {
                write!(f, "`{function}` is allocated for K = {allocated}, not {k}")
            }
            CheckError::Translate(e) => e.fmt(f),
            CheckError::ConventionalAlloc(e) => e.fmt(f),
            CheckError::CallsNotSupported { function, stage } => {
                write!(f, "`{function}` contains a call, and {stage} does not handle calls yet")
            }
        }
    }
}

impl std::error::Error for CheckError {}

/// A function that out-of-ssa's conventional allocators do not accept.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AllocInputError {
    /// The function's name.
    pub function: String,
    pub problem: InputProblem,
}

/// What is wrong with a conventional allocator's input.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum InputProblem {
    /// The register count is outside `MIN_REGS..=MAX_REGS`.
    RegisterCount { k: usize },
    /// The function has no block.
    NoBlocks,
    /// A value mentioned is not below `value_count`.
    ValueOutOfRange { value: Value, value_count: u32 },
    /// Parameter `index` repeats an earlier parameter.
    RepeatedParam { index: usize, value: Value },
    /// A block has phis: the allocators run after SSA destruction.
    Phis(Block),
    /// A block contains `undef`.
    Undef(Block),
    /// An instruction of the block defines a value exactly when its
    /// operation has none.
    Destination(Block),
    /// A block branches to a block that does not exist.
    MissingSuccessor { block: Block, succ: Block },
    /// A block's predecessor list does not match the edges into it.
    Preds(Block),
    /// The entry block has predecessors.
    EntryPreds,
}

impl fmt::Display for AllocInputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "function `{}`: ", self.function)?;
        match &self.problem {
            InputProblem::RegisterCount { k } => write!(f, "K = {k} is outside {MIN_REGS}..={MAX_REGS}"),
            InputProblem::NoBlocks => f.write_str("no blocks"),
            InputProblem::ValueOutOfRange { value, value_count } => {
                write!(f, "{value} is not below value_count {value_count}")
            }
            InputProblem::RepeatedParam { index, value } => write!(f, "parameter {index} repeats {value}"),
            InputProblem::Phis(b) => write!(f, "{b} has phis; out-of-ssa allocates code after SSA destruction"),
            InputProblem::Undef(b) => write!(f, "{b} contains `undef`"),
            InputProblem::Destination(b) => {
                write!(f, "{b} has an instruction whose destination does not fit its operation")
            }
            InputProblem::MissingSuccessor { block, succ } => {
                write!(f, "{block} branches to {succ}, which does not exist")
            }
            InputProblem::Preds(b) => write!(f, "the predecessor list of {b} does not match the edges into it"),
            InputProblem::EntryPreds => f.write_str("the entry block has predecessors"),
        }
    }
}

impl std::error::Error for AllocInputError {}

macro_rules! from_error {
    ($($ty:ty => $variant:ident),* $(,)?) => {
        $(impl From<$ty> for CheckError {
            fn from(e: $ty) -> CheckError {
                CheckError::$variant(e)
            }
        })*
    };
}

from_error! {
    VerifyError => Verify,
    CssaError => Cssa,
    PropertyError => Property,
    AllocCheckError => Alloc,
    ColoringCheckError => Coloring,
    IndependentCssaError => IndependentCssa,
    McError => MachineCode,
    AllocInputError => AllocInput,
    SpillError => Spill,
    ColoringError => RegisterAssignment,
    EliminationError => Elimination,
    LowerError => Lower,
    LivenessDisagreement => Liveness,
    ConstraintError => Constraint,
    AdapterError => Adapter,
    ToMirError => ToMir,
    TranslateError => Translate,
    ConventionalAllocError => ConventionalAlloc,
}

impl From<regalloc2::RegAllocError> for CheckError {
    fn from(e: regalloc2::RegAllocError) -> CheckError {
        CheckError::Regalloc2(Foreign(e))
    }
}
