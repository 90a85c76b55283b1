//! The machine-code checker's stack discipline: rsp is 16-byte aligned at
//! every `call`, and every `ret` leaves with the stack as the function
//! found it and each callee-saved register of the convention holding its
//! value at the function's entry (the prologue's pushes popped back in
//! reverse order). It reads the decoded bytes, not the lowering's frames.
//!
//! # The abstract state
//!
//! Each instruction is reached from a *root*: the first byte of the code
//! (the entry stub, or `main` of a module without calls), where the
//! harness leaves rsp 16-byte aligned, or the target of a `call`, a
//! function entry, where rsp is 8 below a 16-byte boundary (the return
//! address). At an instruction the state is either unknown (reached with
//! different stacks, as the shared exits are) or known:
//!
//! * `depth`: the bytes pushed since the root, followed through `push`,
//!   `pop`, `sub rsp, imm`, `add rsp, imm` and `lea rsp, [rsp + disp]`;
//!   any other write of rsp is an error;
//! * `saved`: the stack words that hold a register's value at the root's
//!   entry, each named by the depth its push reached; a write into such a
//!   word through `[rsp + disp]` forgets it;
//! * `entry`: the registers that hold their value at the root's entry.
//!   Any write clears a register's bit, except a `pop r` of a word that
//!   holds `r`'s entry value, which sets it. A `call` clears the bits of the
//!   caller-saved registers and keeps the callee-saved ones (the callee is
//!   checked on its own).
//!
//! Where paths join, two known states with the same root and depth keep
//! the words and bits both have; otherwise the state is unknown. A `call`,
//! a `ret` or a change of rsp in an unknown state is an error. The lattice
//! is short (a bit or a word is only ever lost), so each instruction is
//! visited a bounded number of times: the check is linear in the code
//! size. Instructions no root reaches never run and are not checked.
//!
//! proofs-notes/x86-frames.md states what a
//! passing check guarantees.

use crate::analysis::calling_convention::{CallingConvention, STACK_ALIGNMENT};
use crate::error::{McError, McProblem, StackError, StackRoot as Root};
use crate::machine::x86_lower::layout;
use iced_x86::{FlowControl, Instruction, InstructionInfoFactory, Mnemonic, OpAccess, OpKind, Register};
use std::collections::HashMap;

/// The known state at an instruction (see the module documentation).
#[derive(Clone, PartialEq, Eq, Debug)]
struct Known {
    root: Root,
    depth: u64,
    saved: Vec<(u64, Register)>,
    entry: u32,
}

#[derive(Clone, PartialEq, Eq, Debug)]
enum State {
    Known(Known),
    Unknown,
}

fn bit(r: Register) -> Option<u32> {
    let full = r.full_register();
    full.is_gpr64().then(|| 1u32 << full.number())
}

fn join(a: &State, b: &State) -> State {
    match (a, b) {
        (State::Known(x), State::Known(y)) if x.root == y.root && x.depth == y.depth => State::Known(Known {
            root: x.root,
            depth: x.depth,
            saved: x.saved.iter().copied().filter(|w| y.saved.contains(w)).collect(),
            entry: x.entry & y.entry,
        }),
        _ => State::Unknown,
    }
}

impl Known {
    fn fresh(root: Root) -> Known {
        Known { root, depth: 0, saved: Vec::new(), entry: u32::MAX }
    }

    fn holds_entry(&self, r: Register) -> bool {
        bit(r).is_some_and(|b| self.entry & b != 0)
    }

    fn set_entry(&mut self, r: Register, holds: bool) {
        if let Some(b) = bit(r) {
            if holds {
                self.entry |= b;
            } else {
                self.entry &= !b;
            }
        }
    }

    /// Frees `bytes` of stack, forgetting the words above the new top.
    fn free(&mut self, bytes: u64) -> Result<(), StackError> {
        if bytes > self.depth {
            return Err(StackError::FreesUnpushed { bytes, depth: self.depth });
        }
        self.depth -= bytes;
        let depth = self.depth;
        self.saved.retain(|&(key, _)| key <= depth);
        Ok(())
    }

    fn reserve(&mut self, bytes: u64) {
        self.depth = self.depth.saturating_add(bytes);
    }

    /// A write of `size` bytes at `[rsp + disp]`: a saved word it touches
    /// no longer holds its register's entry value.
    fn write_stack(&mut self, disp: i64, size: u64) {
        let depth = self.depth as i64;
        let size = size.max(1) as i64;
        // The word pushed when the depth reached `key` is at `[rsp + depth - key]`.
        self.saved.retain(|&(key, _)| {
            let at = depth - key as i64;
            disp >= at + 8 || at >= disp + size
        });
    }
}

/// Checks the stack discipline of `ins` in state `s` and returns the state
/// after it, with the convention `convention` for the `call`s and `ret`s.
fn transfer(
    ins: &Instruction,
    mut s: Known,
    factory: &mut InstructionInfoFactory,
    convention: &CallingConvention,
) -> Result<Known, StackError> {
    let rsp_imm = |i: &Instruction| {
        (i.op0_kind() == OpKind::Register && i.op0_register() == Register::RSP)
            .then(|| i.immediate(1) as i64)
            .filter(|_| matches!(i.op1_kind(), OpKind::Immediate8to64 | OpKind::Immediate32to64 | OpKind::Immediate32))
    };
    match ins.mnemonic() {
        Mnemonic::Push => {
            let entry = ins.op0_kind() == OpKind::Register && s.holds_entry(ins.op0_register());
            s.reserve(8);
            if entry {
                s.saved.push((s.depth, ins.op0_register().full_register()));
            }
            return Ok(s);
        }
        Mnemonic::Pop => {
            let top = s.saved.last().copied().filter(|&(key, _)| key == s.depth);
            s.free(8)?;
            if ins.op0_kind() == OpKind::Register {
                let r = ins.op0_register().full_register();
                s.set_entry(r, top.is_some_and(|(_, saved)| saved == r));
            } else if ins.memory_base() == Register::RSP && ins.memory_index() == Register::None {
                s.write_stack(ins.memory_displacement64() as i64, 8);
            }
            return Ok(s);
        }
        Mnemonic::Sub if rsp_imm(ins).is_some_and(|n| n >= 0) => {
            s.reserve(rsp_imm(ins).unwrap_or(0) as u64);
            return Ok(s);
        }
        Mnemonic::Add if rsp_imm(ins).is_some_and(|n| n >= 0) => {
            s.free(rsp_imm(ins).unwrap_or(0) as u64)?;
            return Ok(s);
        }
        Mnemonic::Lea
            if ins.op0_register() == Register::RSP
                && ins.memory_base() == Register::RSP
                && ins.memory_index() == Register::None =>
        {
            let disp = ins.memory_displacement64() as i64;
            if disp >= 0 {
                s.free(disp as u64)?;
            } else {
                s.reserve(disp.unsigned_abs());
            }
            return Ok(s);
        }
        Mnemonic::Call => return call(s, convention),
        Mnemonic::Ret => {
            ret(&s, convention)?;
            return Ok(s);
        }
        _ => {}
    }
    other_writes(ins, s, factory)
}

/// An instruction that does not move rsp: each register it writes loses
/// its entry value, and a write through `[rsp + disp]` forgets the saved
/// words it touches. Any other write of rsp is an error.
fn other_writes(ins: &Instruction, mut s: Known, factory: &mut InstructionInfoFactory) -> Result<Known, StackError> {
    let info = factory.info(ins);
    for used in info.used_registers() {
        let r = used.register().full_register();
        if matches!(
            used.access(),
            OpAccess::Write | OpAccess::CondWrite | OpAccess::ReadWrite | OpAccess::ReadCondWrite
        ) {
            if r == Register::RSP {
                return Err(StackError::UnfollowedRspWrite);
            }
            s.set_entry(r, false);
        }
    }
    for op in 0..ins.op_count() {
        let writes = matches!(info.op_access(op), OpAccess::Write | OpAccess::CondWrite | OpAccess::ReadWrite);
        if ins.op_kind(op) == OpKind::Memory
            && writes
            && ins.memory_base() == Register::RSP
            && ins.memory_index() == Register::None
        {
            s.write_stack(ins.memory_displacement64() as i64, ins.memory_size().size() as u64);
        }
    }
    Ok(s)
}

/// A `call`: rsp must be a multiple of 16; the caller-saved registers
/// lose their entry values.
fn call(mut s: Known, convention: &CallingConvention) -> Result<Known, StackError> {
    let below = match s.root {
        Root::Entry => s.depth,
        Root::Function => s.depth + 8,
    };
    if below % u64::from(STACK_ALIGNMENT) != 0 {
        return Err(StackError::MisalignedCall { below, root: s.root });
    }
    let callee_saved: u32 =
        convention.callee_saved.iter().filter_map(|r| r.name()).filter_map(register_named).fold(0, |m, b| m | b);
    s.entry &= callee_saved;
    Ok(s)
}

/// A `ret`: only a function returns, with nothing left on its stack and
/// every callee-saved register holding its entry value.
fn ret(s: &Known, convention: &CallingConvention) -> Result<(), StackError> {
    if s.root == Root::Entry {
        return Err(StackError::ReturnFromEntry);
    }
    if s.depth != 0 {
        return Err(StackError::ReturnWithStackLeft { depth: s.depth });
    }
    for r in &convention.callee_saved {
        let name = r.name().unwrap_or("?");
        if register_named(name).is_none_or(|b| s.entry & b == 0) {
            return Err(StackError::CalleeSavedNotRestored { register: name });
        }
    }
    Ok(())
}

/// The bit of the register named `name` (`mir::REGISTER_NAMES`).
fn register_named(name: &str) -> Option<u32> {
    let i = crate::mir::REGISTER_NAMES.iter().position(|&n| n == name)?;
    bit(crate::machine::x86_register_order::ALLOCATION_ORDER[i])
}

/// Joins `s` into the state of instruction `at`, and queues `at` when its
/// state changed.
fn reach(at: usize, s: State, states: &mut [Option<State>], work: &mut Vec<usize>) {
    let merged = match &states[at] {
        None => s,
        Some(old) => join(old, &s),
    };
    if states[at].as_ref() != Some(&merged) {
        states[at] = Some(merged);
        work.push(at);
    }
}

/// Checks the stack discipline of decoded `instructions` of code with `k`
/// registers (see the module documentation).
pub fn check_stack_discipline(instructions: &[Instruction], k: usize) -> Result<(), McError> {
    let Some(convention) = CallingConvention::for_k(k) else { return Ok(()) };
    let index: HashMap<u64, usize> = instructions.iter().enumerate().map(|(i, ins)| (ins.ip(), i)).collect();
    let mut states: Vec<Option<State>> = vec![None; instructions.len()];
    let mut work: Vec<usize> = Vec::new();
    let mut factory = InstructionInfoFactory::new();
    if instructions.first().is_some_and(|i| i.ip() == layout::CODE_BASE) {
        reach(0, State::Known(Known::fresh(Root::Entry)), &mut states, &mut work);
    }
    while let Some(i) = work.pop() {
        let ins = &instructions[i];
        let err = |e: StackError| McError { ip: ins.ip(), instruction: ins.to_string(), problem: McProblem::Stack(e) };
        let Some(state) = states[i].clone() else { continue };
        let flow = ins.flow_control();
        let changes_stack =
            matches!(flow, FlowControl::Call | FlowControl::Return)
                || matches!(ins.mnemonic(), Mnemonic::Push | Mnemonic::Pop)
                || factory.info(ins).used_registers().iter().any(|u| {
                    u.register() == Register::RSP && !matches!(u.access(), OpAccess::Read | OpAccess::CondRead)
                });
        let after = match state {
            State::Known(s) => State::Known(transfer(ins, s, &mut factory, &convention).map_err(err)?),
            State::Unknown if changes_stack => {
                return Err(err(StackError::ChangeAtUnknownStack));
            }
            State::Unknown => State::Unknown,
        };
        let target = || index.get(&ins.near_branch_target()).copied().ok_or_else(|| err(StackError::BranchOutsideCode));
        match flow {
            FlowControl::Next | FlowControl::Interrupt => {}
            FlowControl::Call => reach(target()?, State::Known(Known::fresh(Root::Function)), &mut states, &mut work),
            FlowControl::ConditionalBranch => reach(target()?, after.clone(), &mut states, &mut work),
            FlowControl::UnconditionalBranch => {
                reach(target()?, after, &mut states, &mut work);
                continue;
            }
            FlowControl::Return | FlowControl::Exception => continue,
            _ => return Err(err(StackError::IndirectFlow)),
        }
        if i + 1 < instructions.len() {
            reach(i + 1, after, &mut states, &mut work);
        }
    }
    Ok(())
}
