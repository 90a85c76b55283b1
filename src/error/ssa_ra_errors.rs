//! The errors of ssa-ra's passes (Pereira's register allocator and Pereira
//! and Palsberg's SSA elimination): the spillers (`ssa_ra/spill.rs`,
//! `ssa_ra/spill_during_coloring.rs`), the register assignment and its
//! check (`ssa_ra/coloring.rs`) and SSA elimination
//! (`ssa_ra/ssa_elimination.rs`). Each is a bug of ssaref or an input the
//! pass does not accept, never a property of the program.

use crate::ir::{Block, Op, Value};
use crate::mir::{Loc, Reg, Slot};
use std::fmt;

/// The spiller could not bring the demand down to K.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpillError {
    /// Spilling during coloring needs the machine model's two registers.
    TooFewRegisters { k: usize },
    /// At point `point` of `block` (`None` for the block start) the demand
    /// exceeds `k` and none of the values `live` can go to memory.
    NothingToSpill { block: Block, point: Option<usize>, demand: usize, k: usize, live: Vec<Value> },
    /// The demand recounted from scratch after spilling differs from the
    /// one the spiller kept up to date.
    RecountDiffers { recount: usize, incremental: usize },
    /// The demand still exceeds `k` after spilling.
    DemandAboveK { demand: usize, k: usize },
    /// The demand still exceeds `k` after spilling during coloring.
    DemandAboveKDuringColoring { demand: usize, k: usize },
}

impl fmt::Display for SpillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpillError::TooFewRegisters { k } => write!(f, "K = {k} is below the machine model's 2 registers"),
            SpillError::NothingToSpill { block, point, demand, k, live } => {
                write!(
                    f,
                    "no value can be spilled at {block}, point {point:?}: demand {demand} > K = {k}, live {live:?}"
                )
            }
            SpillError::RecountDiffers { recount, incremental } => {
                write!(f, "the demand recounted after spilling is {recount}, the incremental one {incremental}")
            }
            SpillError::DemandAboveK { demand, k } => write!(f, "demand {demand} > K = {k} after spilling"),
            SpillError::DemandAboveKDuringColoring { demand, k } => {
                write!(f, "demand {demand} > K = {k} after spilling during coloring")
            }
        }
    }
}

impl std::error::Error for SpillError {}

/// A failed register assignment, or a failed check of one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ColoringError {
    /// `value` is live into `block` but the assignment gave it no register.
    LiveInWithoutRegister { value: Value, block: Block },
    /// `value` and `other`, both live into `block`, share `reg`.
    SharedAtStart { value: Value, other: Value, reg: Reg, block: Block },
    /// No register is free for `value`, defined at the start of `block`,
    /// within the limit `omega`.
    NoRegisterAtStart { value: Value, block: Block, omega: usize },
    /// No register is free for `value`, defined by instruction `inst` of
    /// `block`, within the limit `omega`.
    NoRegister { value: Value, block: Block, inst: usize, omega: usize },
    /// The check: `value` is live in `block` without a register.
    LiveWithoutRegister { value: Value, block: Block },
    /// The check: `value` has `reg`, which is not below `k`.
    BeyondK { value: Value, reg: Reg, k: usize },
    /// The check: `value` and `other` are live together in `block` and
    /// share `reg`.
    LiveTogether { value: Value, other: Value, block: Block, reg: Reg },
    /// The check: `value` is defined in `block` without a register.
    DefinedWithoutRegister { value: Value, block: Block },
    /// The check: `value` is written to `reg` in `block`, which still holds
    /// `holds`, live after the definition.
    Overwrites { value: Value, reg: Reg, block: Block, holds: Value },
    /// The check: a spilled value has no slot.
    SpilledWithoutSlot(Value),
}

impl fmt::Display for ColoringError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ColoringError::LiveInWithoutRegister { value, block } => {
                write!(f, "{value} is live into {block} but has no register")
            }
            ColoringError::SharedAtStart { value, other, reg, block } => {
                write!(f, "{value} and {other} share {reg} at the start of {block}")
            }
            ColoringError::NoRegisterAtStart { value, block, omega } => {
                write!(f, "no register for {value} at the start of {block} (ω = {omega})")
            }
            ColoringError::NoRegister { value, block, inst, omega } => {
                write!(f, "no register for {value} in {block} at instruction {inst} (ω = {omega})")
            }
            ColoringError::LiveWithoutRegister { value, block } => {
                write!(f, "{value} is live in {block} without a register")
            }
            ColoringError::BeyondK { value, reg, k } => write!(f, "{value} has {reg}, beyond K = {k}"),
            ColoringError::LiveTogether { value, other, block, reg } => {
                write!(f, "{value} and {other} are live together in {block} and share {reg}")
            }
            ColoringError::DefinedWithoutRegister { value, block } => {
                write!(f, "{value} is defined in {block} without a register")
            }
            ColoringError::Overwrites { value, reg, block, holds } => {
                write!(f, "{value} is written to {reg} in {block}, which still holds {holds}")
            }
            ColoringError::SpilledWithoutSlot(v) => write!(f, "spilled {v} has no slot"),
        }
    }
}

impl std::error::Error for ColoringError {}

/// SSA elimination met something the theory rules out.
///
/// The three failures of a parallel copy on the edge `pred -> succ` keep
/// the message of the error that `ssa_ra/implement_spartan.rs` or
/// `ssa_ra/location_transfer_graph.rs` returned: those errors hold the
/// parallel copy and its location transfer graph, types of the pass
/// itself, which sits above this module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EliminationError {
    /// A spilled value has no slot.
    SpilledWithoutSlot(Value),
    /// A register-resident value has no register.
    NoRegister(Value),
    /// `value` is read from a register but lives in `slot`.
    ReadFromSlot { value: Value, slot: Slot },
    /// The value an instruction defines has no register.
    DefinitionWithoutRegister(Value),
    /// `value = undef` reached SSA elimination.
    Undef(Value),
    /// The call defining `value` has its argument `index` (its result, for
    /// `None`) in `got`, where the calling convention at K wants `expected`.
    Call { value: Value, index: Option<usize>, expected: Reg, got: Loc },
    /// An instruction whose destination does not fit its operation.
    Malformed { op: Op, dest: Option<Value> },
    /// The fixed division defining `value` (`mir::MInst::FixedDiv`) was
    /// given registers `idiv` cannot take: the dividend not in rax, the
    /// result not in rax (`/`) or rdx (`%`), or the divisor in one of them.
    FixedDivision { value: Value, dividend: Reg, divisor: Reg, result: Reg },
    /// The edge `pred -> succ` carries phis but `pred` has `successors`
    /// successors.
    PhisOnBranchingEdge { pred: Block, succ: Block, successors: usize },
    /// `pred` is not a predecessor of `succ`.
    NotAPredecessor { pred: Block, succ: Block },
    /// The phi column of `pred -> succ` is not spartan (Pereira and
    /// Palsberg, Theorem 1).
    ColumnNotSpartan { pred: Block, succ: Block, reason: String },
    /// ImplementSpartan refuses the parallel copy of `pred -> succ`.
    ImplementSpartan { pred: Block, succ: Block, reason: String },
    /// ImplementSpartan's code for `pred -> succ` is wrong or longer than
    /// the optimum (Theorem 3).
    WrongImplementation { pred: Block, succ: Block, reason: String },
}

impl fmt::Display for EliminationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EliminationError::SpilledWithoutSlot(v) => write!(f, "spilled {v} has no slot"),
            EliminationError::NoRegister(v) => write!(f, "{v} has no register"),
            EliminationError::ReadFromSlot { value, slot } => {
                write!(f, "{value} is read from a register but lives in {slot}")
            }
            EliminationError::DefinitionWithoutRegister(v) => write!(f, "the definition of {v} has no register"),
            EliminationError::Undef(v) => write!(f, "{v} = undef reached SSA elimination"),
            EliminationError::Call { value, index: Some(i), expected, got } => {
                write!(f, "the call defining {value} has argument {i} in {got}; the convention wants {expected}")
            }
            EliminationError::Call { value, index: None, expected, got } => {
                write!(f, "the call defining {value} leaves its result in {got}; the convention wants {expected}")
            }
            EliminationError::Malformed { op, dest } => write!(f, "malformed instruction {op:?} defining {dest:?}"),
            EliminationError::FixedDivision { value, dividend, divisor, result } => write!(
                f,
                "the fixed division defining {value} has its dividend in {dividend}, its divisor in {divisor} and \
                 its result in {result}, which `idiv` cannot take"
            ),
            EliminationError::PhisOnBranchingEdge { pred, succ, successors } => write!(
                f,
                "{pred} -> {succ} carries phis but {pred} has {successors} successors (a critical edge, or a \
                 one-argument phi below a `br`)"
            ),
            EliminationError::NotAPredecessor { pred, succ } => write!(f, "{pred} is not a predecessor of {succ}"),
            EliminationError::ColumnNotSpartan { pred, succ, reason } => {
                write!(f, "the phi column {pred} -> {succ} is not spartan (Theorem 1): {reason}")
            }
            EliminationError::ImplementSpartan { pred, succ, reason } => {
                write!(f, "ImplementSpartan on {pred} -> {succ}: {reason}")
            }
            EliminationError::WrongImplementation { pred, succ, reason } => {
                write!(f, "ImplementSpartan on {pred} -> {succ} is wrong or not optimal: {reason}")
            }
        }
    }
}

impl std::error::Error for EliminationError {}
