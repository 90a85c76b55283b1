//! Instructions of the final x86-64 code, counted as Pereira's Table 1
//! counts them ("the number of stores, loads, moves and xors present in the
//! final assembly code", the program's own included), static and executed.
//!
//! The encoded code of each function (`machine/x86_lower.rs`) is decoded
//! block by block (`X86Code::block_offsets`) and each instruction put in
//! one class:
//! - a load is a `mov` from memory into a register, a store a `mov` from a
//!   register into memory: spill slots (`[rsp + 8s]`), the stack words of
//!   a division, and the program's own `mem`; the machine model's control
//!   words (fuel, trace count, result, status) are not counted, nor the
//!   trace of `out`;
//! - a move is a `mov` between two 64-bit registers: the copies of the
//!   allocation and those of instruction selection (two-address forms);
//! - a swap is an `xchg` of two registers. The paper swaps with three
//!   `xor`s; both counts are given: `xors` (three per swap) and `xchg`
//!   (one per swap);
//! - `push` and `pop` (the lowering saves registers around a division and
//!   borrows one for a store to `mem`) are counted apart.
//!
//! The spill code alone (`MInst::Spill`, `MInst::Reload`) lowers to one
//! `mov` each and is counted from the allocated code. Executed counts weigh
//! each block's counts by the block's execution count from the oracle
//! (`spill_code_sources::block_counts` of a function with the blocks of the
//! allocated code).

use crate::evaluation::eval_error::EvalError;
use crate::machine::x86_lower::{layout, lower_function};
use crate::mir::{MFunction, MInst};
use iced_x86::{Decoder, DecoderOptions, Mnemonic, OpKind, Register};

/// Counts of one class of x86 instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct X86Counts {
    pub loads: u64,
    pub stores: u64,
    /// Of `loads` and `stores`: the allocator's spill code.
    pub spill_loads: u64,
    pub spill_stores: u64,
    pub moves: u64,
    /// `xchg` of two registers; the paper's xors are three times as many.
    pub xchg: u64,
    pub push_pop: u64,
    /// Every instruction, the classes above included.
    pub instructions: u64,
}

impl X86Counts {
    /// The paper's "xor" count: three per swap.
    pub fn xors(&self) -> u64 {
        3 * self.xchg
    }

    pub fn add(&mut self, o: &X86Counts) {
        self.loads += o.loads;
        self.stores += o.stores;
        self.spill_loads += o.spill_loads;
        self.spill_stores += o.spill_stores;
        self.moves += o.moves;
        self.xchg += o.xchg;
        self.push_pop += o.push_pop;
        self.instructions += o.instructions;
    }

    fn scaled(&self, n: u64) -> X86Counts {
        X86Counts {
            loads: self.loads * n,
            stores: self.stores * n,
            spill_loads: self.spill_loads * n,
            spill_stores: self.spill_stores * n,
            moves: self.moves * n,
            xchg: self.xchg * n,
            push_pop: self.push_pop * n,
            instructions: self.instructions * n,
        }
    }
}

/// Whether a memory operand is one of the machine model's control words or
/// the trace (not counted): an absolute address without base register, or
/// an address in the trace.
fn is_harness(i: &iced_x86::Instruction) -> bool {
    let disp = i.memory_displacement64();
    (i.memory_base() == Register::None && i.memory_index() == Register::None)
        || (layout::TRACE_BASE..layout::TRACE_BASE + 8 * layout::TRACE_CAPACITY).contains(&disp)
}

/// The counts of each block of `mf`, lowered.
pub fn block_x86_counts(mf: &MFunction) -> Result<Vec<X86Counts>, EvalError> {
    let code = lower_function(mf).map_err(EvalError::Lower)?;
    let n = code.block_offsets.len();
    let mut out = vec![X86Counts::default(); n];
    for (b, c) in out.iter_mut().enumerate() {
        let start = code.block_offsets[b] as usize;
        // The last block ends where the code does; the exits after it are
        // control-word stores, a jump and a `hlt`, none of them counted
        // but in `instructions`.
        let end = code.block_offsets.get(b + 1).map_or(code.bytes.len(), |&o| o as usize);
        let bytes = code.bytes.get(start..end).unwrap_or(&[]);
        let mut d = Decoder::with_ip(64, bytes, layout::CODE_BASE + start as u64, DecoderOptions::NONE);
        while d.can_decode() {
            let i = d.decode();
            c.instructions += 1;
            match i.mnemonic() {
                Mnemonic::Mov => match (i.op0_kind(), i.op1_kind()) {
                    (OpKind::Register, OpKind::Register) => c.moves += 1,
                    (OpKind::Register, OpKind::Memory) if !is_harness(&i) => c.loads += 1,
                    (OpKind::Memory, OpKind::Register) if !is_harness(&i) => c.stores += 1,
                    _ => {}
                },
                Mnemonic::Xchg if i.op0_kind() == OpKind::Register && i.op1_kind() == OpKind::Register => c.xchg += 1,
                Mnemonic::Push | Mnemonic::Pop => c.push_pop += 1,
                _ => {}
            }
        }
        for inst in &mf.blocks[crate::ir::Block(b as u32)].insts {
            match inst.inst {
                MInst::Spill { .. } => c.spill_stores += 1,
                MInst::Reload { .. } => c.spill_loads += 1,
                _ => {}
            }
        }
    }
    Ok(out)
}

/// Static and executed x86 counts of the allocated function `mf`, given
/// the execution count of each of its blocks (`block_counts` of a function
/// with its blocks).
pub fn x86_counts(mf: &MFunction, counts: &[u64]) -> Result<(X86Counts, X86Counts), EvalError> {
    let per_block = block_x86_counts(mf)?;
    if counts.len() != per_block.len() {
        return Err(EvalError::BlockCounts { counts: counts.len(), blocks: per_block.len(), of: None });
    }
    let mut stat = X86Counts::default();
    let mut dynamic = X86Counts::default();
    for (c, &n) in per_block.iter().zip(counts) {
        stat.add(c);
        dynamic.add(&c.scaled(n));
    }
    Ok((stat, dynamic))
}

/// A weighted cost of executed code: `memory` per load or store, 1 per
/// move, and `swap` per swap (3 for the paper's three xors, 1 for `xchg`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    pub memory: f64,
    pub swap: f64,
}

impl Weights {
    pub fn cost(&self, c: &X86Counts) -> f64 {
        self.memory * (c.loads + c.stores) as f64 + c.moves as f64 + self.swap * c.xchg as f64
    }
}
