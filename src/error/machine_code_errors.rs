//! The errors of the machine-code checker (`machine/x86_check.rs`) and of
//! its stack discipline (`machine/x86_check_stack.rs`): the instruction
//! that breaks a rule, and which rule, as a value.

use iced_x86::Register;
use std::fmt;

/// What the machine-code checker found wrong, with the instruction's
/// address and text.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct McError {
    pub ip: u64,
    pub instruction: String,
    pub problem: McProblem,
}

impl fmt::Display for McError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x} `{}`: {}", self.ip, self.instruction, self.problem)
    }
}

impl std::error::Error for McError {}

/// The rule an instruction breaks.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum McProblem {
    /// The bytes do not decode to an instruction.
    Undecodable,
    /// The instruction reads `register`, outside the `k` allocatable
    /// registers, where no implicit operand of its straight-line run put
    /// a value.
    ReadsOutsideK { register: Register, k: usize },
    /// The instruction names `register`, outside the `k` allocatable
    /// registers, as an explicit operand that it writes.
    WritesOutsideK { register: Register, k: usize },
    /// The stack discipline does not hold.
    Stack(StackError),
}

impl fmt::Display for McProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McProblem::Undecodable => f.write_str("cannot be decoded"),
            McProblem::ReadsOutsideK { register, k } => write!(
                f,
                "reads {register:?}, which is not among the {k} allocatable registers and holds no value an implicit operand put there"
            ),
            McProblem::WritesOutsideK { register, k } => {
                write!(f, "writes {register:?}, which is not among the {k} allocatable registers, as an explicit operand")
            }
            McProblem::Stack(e) => e.fmt(f),
        }
    }
}

/// Where the stack check's path to an instruction starts: the first byte
/// of the code, entered with rsp 16-byte aligned, or a `call` target, a
/// function entered with its return address just pushed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StackRoot {
    Entry,
    Function,
}

/// How an instruction breaks the stack discipline of
/// `machine/x86_check_stack.rs`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum StackError {
    /// It frees `bytes` of stack with only `depth` pushed since its root.
    FreesUnpushed { bytes: u64, depth: u64 },
    /// It writes rsp other than by `push`, `pop`, `call`, `ret`, an
    /// immediate `add` or `sub`, or `lea rsp, [rsp + disp]`.
    UnfollowedRspWrite,
    /// A `call` with rsp `below` bytes under the aligned rsp of its root.
    MisalignedCall { below: u64, root: StackRoot },
    /// A `ret` on a path from the entry code, which no call entered.
    ReturnFromEntry,
    /// A `ret` with `depth` bytes still pushed above the return address.
    ReturnWithStackLeft { depth: u64 },
    /// A `ret` with the callee-saved `register` not holding its value at
    /// the function's entry.
    CalleeSavedNotRestored { register: &'static str },
    /// It changes the stack where paths with different stacks meet.
    ChangeAtUnknownStack,
    /// A branch into the middle of an instruction or out of the code.
    BranchOutsideCode,
    /// An indirect branch or call.
    IndirectFlow,
}

impl fmt::Display for StackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::analysis::calling_convention::STACK_ALIGNMENT;
        match self {
            StackError::FreesUnpushed { bytes, depth } => {
                write!(f, "frees {bytes} bytes of stack with only {depth} pushed since the entry")
            }
            StackError::UnfollowedRspWrite => f.write_str("changes rsp in a way the stack check does not follow"),
            StackError::MisalignedCall { below, root } => write!(
                f,
                "rsp is not {STACK_ALIGNMENT}-byte aligned at a call: {below} bytes below the {}'s aligned rsp",
                if *root == StackRoot::Entry { "entry" } else { "caller's call" }
            ),
            StackError::ReturnFromEntry => f.write_str("returns from the entry code, which no call entered"),
            StackError::ReturnWithStackLeft { depth } => {
                write!(f, "returns with {depth} bytes still on the stack: its return address is not at rsp")
            }
            StackError::CalleeSavedNotRestored { register } => write!(
                f,
                "returns with callee-saved {register} not holding its value at the function's entry (not restored by a pop of its saved word)"
            ),
            StackError::ChangeAtUnknownStack => {
                f.write_str("changes the stack where paths with different stacks meet")
            }
            StackError::BranchOutsideCode => {
                f.write_str("branches into the middle of an instruction or out of the code")
            }
            StackError::IndirectFlow => f.write_str("an indirect branch or call, which the stack check cannot follow"),
        }
    }
}
