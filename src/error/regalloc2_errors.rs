//! The errors of the regalloc2 back end's own code: the adapter that gives
//! a function to the regalloc2 crate (`regalloc2/adapter.rs`) and the
//! translation of regalloc2's output to ssaref's machine IR
//! (`regalloc2/to_mir.rs`). The crate's own errors are `CheckError`'s
//! `Regalloc2` and `BothReject` variants.

use crate::ir;
use crate::mir::Slot;

/// A function that `Adapter::new` cannot give regalloc2.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum AdapterError {
    /// Value number `v` is defined by a cycle of copies or one-argument
    /// phis.
    CopyCycle(u32),
    /// The function holds an `undef`.
    Undef,
    /// Value number `v` is not below `value_count`.
    ValueOutOfRange { v: u32, value_count: usize },
    /// A block is unreachable from the entry.
    Unreachable,
    /// An operation of the block has no result.
    NoResult(ir::Block),
    /// The block contains an `undef`.
    UndefIn(ir::Block),
    /// The block ends a critical edge.
    CriticalEdge(ir::Block),
    /// `block` is not among the predecessors of its successor `succ`.
    NotAPredecessor { block: ir::Block, succ: ir::Block },
    /// The block contains a call, but no calling convention was chosen
    /// (a bug of the adapter).
    Call(ir::Block),
    /// There is no calling convention for this register count.
    RegisterCount(usize),
}

impl std::fmt::Display for AdapterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AdapterError::CopyCycle(v) => write!(f, "v{v} is defined by a cycle of copies or one-argument phis"),
            AdapterError::Undef => f.write_str("regalloc2's input cannot hold `undef`"),
            AdapterError::ValueOutOfRange { v, value_count } => write!(f, "v{v} is beyond value_count {value_count}"),
            AdapterError::Unreachable => f.write_str("a block is unreachable from the entry"),
            AdapterError::NoResult(b) => write!(f, "{b}: an operation without a result"),
            AdapterError::UndefIn(b) => write!(f, "{b}: `undef` cannot be allocated"),
            AdapterError::CriticalEdge(b) => write!(f, "{b} has a critical edge (split them first)"),
            AdapterError::NotAPredecessor { block, succ } => {
                write!(f, "{block} is not among the predecessors of its successor {succ}")
            }
            AdapterError::Call(b) => write!(f, "{b}: a call outside the calling convention"),
            AdapterError::RegisterCount(k) => write!(f, "no calling convention has K = {k}"),
        }
    }
}

impl std::error::Error for AdapterError {}

/// Why regalloc2's output cannot be read back as allocated machine IR: a
/// bug of the adapter or of regalloc2.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ToMirError {
    /// A register allocation without a register.
    RegisterMissing,
    /// A stack allocation without a slot.
    SlotMissing,
    /// A physical register that is not one of the `k` allocatable ones.
    RegisterOutOfRange { preg: regalloc2::PReg, k: usize },
    /// An operand without an allocation.
    NoAllocation,
    /// Operand `index` of an instruction has no allocation.
    MissingOperand(usize),
    /// An operand that must be in a register is in a slot.
    RegisterOperandInSlot(Slot),
    /// A move from one stack slot to another.
    SlotToSlot(Slot, Slot),
    /// An `undef`, which has no machine code.
    Undef,
    /// A parameter without a location.
    ParamWithoutLocation(ir::Value),
    /// A terminator without its operand.
    TerminatorOperand,
    /// A block without a terminator.
    NoTerminator(ir::Block),
    /// The parameters' pseudo instruction is missing.
    NoParams,
}

impl std::fmt::Display for ToMirError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToMirError::RegisterMissing => f.write_str("a register allocation without a register"),
            ToMirError::SlotMissing => f.write_str("a stack allocation without a slot"),
            ToMirError::RegisterOutOfRange { preg, k } => {
                write!(f, "{preg} is not one of the {k} allocatable registers")
            }
            ToMirError::NoAllocation => f.write_str("an operand without an allocation"),
            ToMirError::MissingOperand(i) => write!(f, "operand {i} has no allocation"),
            ToMirError::RegisterOperandInSlot(s) => write!(f, "an operand with a register constraint in {s}"),
            ToMirError::SlotToSlot(a, b) => write!(f, "regalloc2 emitted a move from stack slot {a} to stack slot {b}"),
            ToMirError::Undef => f.write_str("`undef` cannot be allocated"),
            ToMirError::ParamWithoutLocation(p) => write!(f, "regalloc2 gave parameter {p} no location"),
            ToMirError::TerminatorOperand => f.write_str("a terminator without its operand"),
            ToMirError::NoTerminator(b) => write!(f, "{b} has no terminator in regalloc2's output"),
            ToMirError::NoParams => f.write_str("the parameters' pseudo instruction is missing"),
        }
    }
}

impl std::error::Error for ToMirError {}
