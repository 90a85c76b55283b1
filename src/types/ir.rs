//! The SSA intermediate representation.
//!
//! A [`Function`] is a list of [`Block`]s; `b0` is the entry and has no
//! predecessors. A block holds phis, then instructions, then one
//! [`Terminator`]; having the terminator in its own field makes "no
//! instruction after a terminator" true by construction. The text form
//! (`*.ssa`) is specified in docs/ssa-text-form.md (the module
//! documentation of `ssa_text.rs`, which implements it).
//!
//! Phis are parallel copies on the incoming edges: the `i`-th argument of
//! every phi of block `B` is the value that flows along the edge from
//! `B.preds[i]`. `preds` is kept explicitly (not recomputed) because it fixes
//! that order; a block whose conditional branch names the same successor
//! twice is that successor's predecessor twice, once per edge.

use crate::entity::{EntitySet, EntityVec};
pub use crate::op::{BinOp, UnOp};

crate::entity!(
    /// A basic block.
    Block,
    "b"
);
crate::entity!(
    /// An SSA value: defined once, by a parameter, a phi or an instruction.
    Value,
    "v"
);

/// A function in SSA form.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Function {
    pub name: String,
    /// Values defined on entry by the arguments, in order.
    pub params: Vec<Value>,
    /// The blocks; `Block(0)` is the entry.
    pub blocks: EntityVec<Block, BlockData>,
    /// One more than the largest value number in use. Numbers need not be
    /// dense: passes may leave gaps.
    pub value_count: u32,
}

/// One basic block.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BlockData {
    /// Predecessors, one entry per incoming edge, in phi-argument order.
    pub preds: Vec<Block>,
    pub phis: Vec<Phi>,
    pub insts: Vec<Inst>,
    pub term: Terminator,
}

/// `dest = phi args[0], args[1], ...`; `args[i]` comes from `preds[i]`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Phi {
    pub dest: Value,
    pub args: Vec<Value>,
}

/// An instruction: an operation and the value it defines, if any.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Inst {
    pub dest: Option<Value>,
    pub op: Op,
}

/// The operations. `Store` and `Out` define no value; all others define one.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Op {
    /// A 64-bit constant.
    Const(i64),
    /// A value that is never used on an executed path (Braun et al.'s
    /// `Undefined`: a phi in unreachable code). Executing it is an error of
    /// ssaref, reported by the interpreter.
    Undef,
    /// `dest = src`.
    Copy(Value),
    Unary(UnOp, Value),
    Binary(BinOp, Value, Value),
    /// `dest = mem[addr & 4095]`.
    Load(Value),
    /// `mem[addr & 4095] = value`.
    Store {
        addr: Value,
        value: Value,
    },
    /// Appends the value to the output trace.
    Out(Value),
    /// Calls a function of the module with the arguments, in order, and
    /// defines the value it returns. A call may read and write `mem` and
    /// append to the trace, so it is never folded, merged with another
    /// call or moved across memory operations.
    Call(Box<Call>),
}

/// The callee and the arguments of an [`Op::Call`].
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Call {
    /// The name of the function called.
    pub callee: String,
    pub args: Vec<Value>,
}

/// How a block ends.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Terminator {
    Jump(Block),
    /// Goes to `then_dest` when `cond` is not 0, else to `else_dest`.
    Branch {
        cond: Value,
        then_dest: Block,
        else_dest: Block,
    },
    Return(Value),
}

impl Op {
    /// True when the operation defines a value.
    pub fn has_result(&self) -> bool {
        !matches!(self, Op::Store { .. } | Op::Out(_))
    }

    /// The values the operation reads, in order.
    pub fn args(&self) -> Vec<Value> {
        let mut v = Vec::new();
        self.for_each_arg(|a| v.push(a));
        v
    }

    /// Calls `f` on each value the operation reads, in order.
    pub fn for_each_arg(&self, mut f: impl FnMut(Value)) {
        match *self {
            Op::Const(_) | Op::Undef => {}
            Op::Copy(a) | Op::Unary(_, a) | Op::Load(a) | Op::Out(a) => f(a),
            Op::Binary(_, a, b) => {
                f(a);
                f(b);
            }
            Op::Store { addr, value } => {
                f(addr);
                f(value);
            }
            Op::Call(ref call) => call.args.iter().for_each(|&a| f(a)),
        }
    }

    /// Rewrites each value the operation reads.
    pub fn map_args(&mut self, mut f: impl FnMut(Value) -> Value) {
        match self {
            Op::Const(_) | Op::Undef => {}
            Op::Copy(a) | Op::Unary(_, a) | Op::Load(a) | Op::Out(a) => *a = f(*a),
            Op::Binary(_, a, b) => {
                *a = f(*a);
                *b = f(*b);
            }
            Op::Store { addr, value } => {
                *addr = f(*addr);
                *value = f(*value);
            }
            Op::Call(call) => call.args.iter_mut().for_each(|a| *a = f(*a)),
        }
    }

    /// True for a call.
    pub fn is_call(&self) -> bool {
        matches!(self, Op::Call(_))
    }
}

impl Terminator {
    /// The successor blocks, one per outgoing edge, in order.
    pub fn successors(&self) -> Vec<Block> {
        match *self {
            Terminator::Jump(b) => vec![b],
            Terminator::Branch { then_dest, else_dest, .. } => vec![then_dest, else_dest],
            Terminator::Return(_) => vec![],
        }
    }

    /// The value the terminator reads, if any.
    pub fn arg(&self) -> Option<Value> {
        match *self {
            Terminator::Jump(_) => None,
            Terminator::Branch { cond, .. } | Terminator::Return(cond) => Some(cond),
        }
    }

    /// Rewrites the value the terminator reads.
    pub fn map_arg(&mut self, f: impl FnOnce(Value) -> Value) {
        match self {
            Terminator::Jump(_) => {}
            Terminator::Branch { cond, .. } | Terminator::Return(cond) => *cond = f(*cond),
        }
    }

    /// Rewrites the successor blocks.
    pub fn map_successors(&mut self, mut f: impl FnMut(Block) -> Block) {
        match self {
            Terminator::Jump(b) => *b = f(*b),
            Terminator::Branch { then_dest, else_dest, .. } => {
                *then_dest = f(*then_dest);
                *else_dest = f(*else_dest);
            }
            Terminator::Return(_) => {}
        }
    }
}

impl BlockData {
    /// An empty block that returns `ret` (a placeholder terminator to be
    /// replaced by whoever fills the block).
    pub fn new(ret: Value) -> Self {
        BlockData { preds: Vec::new(), phis: Vec::new(), insts: Vec::new(), term: Terminator::Return(ret) }
    }
}

impl Function {
    /// The entry block.
    pub const ENTRY: Block = Block(0);

    /// A fresh value number.
    pub fn new_value(&mut self) -> Value {
        let v = Value(self.value_count);
        self.value_count += 1;
        v
    }

    /// Total number of phis.
    pub fn phi_count(&self) -> usize {
        self.blocks.values().map(|b| b.phis.len()).sum()
    }

    /// Total number of non-phi instructions (terminators not counted).
    pub fn inst_count(&self) -> usize {
        self.blocks.values().map(|b| b.insts.len()).sum()
    }

    /// Successors of `b`, one per edge.
    pub fn succs(&self, b: Block) -> Vec<Block> {
        self.blocks[b].term.successors()
    }

    /// The values read anywhere in the function: as phi arguments, as
    /// instruction operands or by a terminator.
    pub fn read_values(&self) -> EntitySet<Value> {
        let mut read = EntitySet::with_capacity(self.value_count as usize);
        for data in self.blocks.values() {
            for phi in &data.phis {
                for &a in &phi.args {
                    read.insert(a);
                }
            }
            for inst in &data.insts {
                inst.op.for_each_arg(|a| {
                    read.insert(a);
                });
            }
            if let Some(a) = data.term.arg() {
                read.insert(a);
            }
        }
        read
    }

    /// For each value, the block that defines it (`None` for numbers not in
    /// use). Parameters are defined in the entry block.
    pub fn def_blocks(&self) -> EntityVec<Value, Option<Block>> {
        let mut defs = EntityVec::from_elem(None, self.value_count as usize);
        for &p in &self.params {
            defs[p] = Some(Self::ENTRY);
        }
        for (b, data) in self.blocks.iter() {
            for phi in &data.phis {
                defs[phi.dest] = Some(b);
            }
            for inst in &data.insts {
                if let Some(d) = inst.dest {
                    defs[d] = Some(b);
                }
            }
        }
        defs
    }

    /// Recomputes every block's `preds` from the terminators, in block order
    /// (then-edge before else-edge). Only valid for functions without phis,
    /// whose argument order would be lost.
    pub fn recompute_preds_without_phis(&mut self) {
        debug_assert_eq!(self.phi_count(), 0);
        for data in self.blocks.values_mut() {
            data.preds.clear();
        }
        for b in self.blocks.keys() {
            for s in self.succs(b) {
                self.blocks[s].preds.push(b);
            }
        }
    }

    /// Number of blocks.
    pub fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// Calls `f` on every value the function mentions, defined or read:
    /// parameters, then for each block in order its phi destinations and
    /// arguments, its instructions' destinations and arguments, and its
    /// terminator's argument. Values may repeat.
    pub fn for_each_value_mention(&self, mut f: impl FnMut(Value)) {
        for &p in &self.params {
            f(p);
        }
        for data in self.blocks.values() {
            for phi in &data.phis {
                f(phi.dest);
                phi.args.iter().for_each(|&a| f(a));
            }
            for inst in &data.insts {
                if let Some(d) = inst.dest {
                    f(d);
                }
                inst.op.for_each_arg(&mut f);
            }
            if let Some(a) = data.term.arg() {
                f(a);
            }
        }
    }

    /// Sets `value_count` to one more than the largest value number the
    /// function mentions, or to 0 when it mentions none. This is the
    /// `value_count` the text-form parser computes, so it makes a function
    /// comparable with the result of printing and parsing it again. A mention
    /// of `Value(u32::MAX)`, which no `value_count` can cover, saturates to
    /// `u32::MAX`.
    pub fn trim_value_count(&mut self) {
        let mut count = 0u32;
        self.for_each_value_mention(|v| count = count.max(v.0.saturating_add(1)));
        self.value_count = count;
    }
}

/// A whole program in SSA form: one function per source function.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Module {
    pub functions: Vec<Function>,
}

impl Module {
    /// The function named `main`.
    pub fn main(&self) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == "main")
    }

    /// The function named `name`.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// True when some function of the module contains a call.
    pub fn has_calls(&self) -> bool {
        self.functions.iter().any(|f| f.blocks.values().any(|b| b.insts.iter().any(|i| i.op.is_call())))
    }
}
