//! The spill-everything baseline: the "Simple" allocator of Pereira, "The
//! Design and Implementation of a SSA-based Register Allocator" (UCLA tech.
//! report), §5, "the naive algorithm, that spills every temporary".
//!
//! Needs: a out-of-ssa function (no phis; a value number is a variable that
//! may be defined several times), validated by
//! `conventional_alloc::validate_input`.
//!
//! Every variable lives in its own stack slot for the whole function, and
//! parameters arrive in their slots. Before each instruction its operands
//! are reloaded into registers, the result is computed into a register and
//! stored back to the variable's slot. No register holds a value from one
//! instruction to the next, so two registers suffice for every K in
//! `MIN_REGS..=MAX_REGS`: an operation reads at most two distinct variables
//! (rax and rcx; a variable read twice is reloaded once), and its result
//! reuses rax. Divisions meet `idiv`'s renaming constraints by
//! construction (dividend in rax, divisor in rax or rcx, nothing else in a
//! register), so they are `MInst::FixedDiv`, the remainder landing in rdx
//! (at K = 2, where rdx is not allocatable, `%` stays a general `Binary`).
//! A copy `a = copy b` is a reload of `b` into rax and a store
//! of rax into `a`'s slot; the store carries the copy annotation
//! `reads: [b], defines: Some(a)` (`alloc_checker.rs`, "out-of-ssa: copy
//! annotations"), every operation its variables, and the reloads and the
//! stores after operations nothing.
//!
//! Under the calling convention (`call_pins.rs`), a call reloads each register
//! argument into its argument register and passes each stack argument
//! straight from its slot, and its result, in rax, is stored like any
//! other; the register parameters arrive in their argument registers and
//! are stored into their slots at the entry, the stack parameters arrive
//! in their slots. Nothing lives in a register across a call, so its
//! clobbers destroy nothing.
//!
//! Correctness (`proofs-notes/conventional-allocation.md`): after every
//! definition of a variable its slot is written, and no other instruction
//! writes it, so at every point the slot of `v` holds the latest value of
//! `v`; each reload is immediately followed by the instruction that reads
//! it, with nothing in between that writes the register.

use crate::analysis::calling_convention::CallingConvention;
use crate::entity::EntityVec;
use crate::error::{ConventionalAllocError, PassError};
use crate::ir::{BinOp, Function, Op, Terminator, Value};
use crate::mir::{Annot, Loc, MBlock, MCall, MFunction, MInst, MInstA, MTerm, Reg, Slot, RAX, RDX};
use crate::out_of_ssa::conventional::alloc_input::{fail, validate_input};
use crate::out_of_ssa::conventional::call_pins::convention_for;

const R0: Reg = Reg(0);
const R1: Reg = Reg(1);

struct Emitter {
    slot: EntityVec<Value, Option<Slot>>,
    k: usize,
    convention: Option<CallingConvention>,
}

impl Emitter {
    fn slot(&self, v: Value) -> Result<Slot, PassError> {
        self.slot
            .get(v)
            .copied()
            .flatten()
            .ok_or_else(|| fail("spill-everything", "input", ConventionalAllocError::NoSlot(v)))
    }

    fn push(out: &mut Vec<MInstA>, inst: MInst, reads: Vec<Value>, defines: Option<Value>) {
        out.push(MInstA { inst, annot: Annot { reads, defines } });
    }

    /// Reloads the distinct operands into rax and rcx; returns the register
    /// of each operand, in order.
    fn reload_operands(&self, args: &[Value], out: &mut Vec<MInstA>) -> Result<Vec<Reg>, PassError> {
        let mut loaded: Vec<(Value, Reg)> = Vec::new();
        let mut regs = Vec::new();
        for &a in args {
            let r = match loaded.iter().find(|(v, _)| *v == a) {
                Some(&(_, r)) => r,
                None => {
                    let r = if loaded.is_empty() { R0 } else { R1 };
                    Self::push(out, MInst::Reload { dst: r, slot: self.slot(a)? }, vec![], None);
                    loaded.push((a, r));
                    r
                }
            };
            regs.push(r);
        }
        Ok(regs)
    }

    /// A call under the convention: the register arguments reloaded into
    /// their registers, the stack arguments in their slots, the result
    /// stored from rax.
    fn call(&self, call: &crate::ir::Call, dest: Value, out: &mut Vec<MInstA>) -> Result<(), PassError> {
        let Some(convention) = &self.convention else {
            let op = Op::Call(Box::new(call.clone()));
            return Err(fail(
                "spill-everything",
                "input",
                ConventionalAllocError::Unallocatable { op, dest: Some(dest) },
            ));
        };
        let mut args = Vec::with_capacity(call.args.len());
        for (i, &a) in call.args.iter().enumerate() {
            let slot = self.slot(a)?;
            args.push(match convention.arg_regs.get(i) {
                Some(&r) => {
                    Self::push(out, MInst::Reload { dst: r, slot }, vec![], None);
                    Loc::Reg(r)
                }
                None => Loc::Slot(slot),
            });
        }
        let mcall = MCall { callee: call.callee.clone(), args };
        Self::push(out, MInst::Call(Box::new(mcall)), call.args.clone(), Some(dest));
        Self::push(out, MInst::Spill { slot: self.slot(dest)?, src: RAX }, vec![], None);
        Ok(())
    }

    fn inst(&self, inst: &crate::ir::Inst, out: &mut Vec<MInstA>) -> Result<(), PassError> {
        if let (Op::Call(call), Some(d)) = (&inst.op, inst.dest) {
            return self.call(call, d, out);
        }
        let args = inst.op.args();
        let regs = self.reload_operands(&args, out)?;
        // Where the result is, to store it.
        let mut result = R0;
        let mi = match (&inst.op, inst.dest) {
            (Op::Copy(b), Some(a)) => {
                Self::push(out, MInst::Spill { slot: self.slot(a)?, src: regs[0] }, vec![*b], Some(a));
                return Ok(());
            }
            (Op::Const(imm), Some(_)) => MInst::Const { dst: R0, imm: *imm },
            (Op::Unary(op, _), Some(_)) => MInst::Unary { op: *op, dst: R0, src: regs[0] },
            // The dividend is in rax and the divisor in rax or rcx, as `idiv`
            // wants; only `%` at K = 2 lacks rdx for its result.
            (Op::Binary(BinOp::Div, _, _), Some(_)) => MInst::FixedDiv { op: BinOp::Div, divisor: regs[1] },
            (Op::Binary(BinOp::Rem, _, _), Some(_)) if self.k > usize::from(RDX.0) => {
                result = RDX;
                MInst::FixedDiv { op: BinOp::Rem, divisor: regs[1] }
            }
            (Op::Binary(op, _, _), Some(_)) => MInst::Binary { op: *op, dst: R0, a: regs[0], b: regs[1] },
            (Op::Load(_), Some(_)) => MInst::Load { dst: R0, addr: regs[0] },
            (Op::Store { .. }, None) => MInst::Store { addr: regs[0], src: regs[1] },
            (Op::Out(_), None) => MInst::Out { src: regs[0] },
            (op, d) => {
                return Err(fail(
                    "spill-everything",
                    "input",
                    ConventionalAllocError::Unallocatable { op: op.clone(), dest: d },
                ));
            }
        };
        Self::push(out, mi, args, inst.dest);
        if let Some(d) = inst.dest {
            Self::push(out, MInst::Spill { slot: self.slot(d)?, src: result }, vec![], None);
        }
        Ok(())
    }
}

/// Allocates `f` with every variable in memory (see the module
/// documentation). `k` only sets the register count of the result: the
/// code uses rax and rcx, and, at calls, the argument registers. `f` is
/// taken as a module of its own ([`spill_everything_in`]).
pub fn spill_everything(f: &Function, k: usize) -> Result<MFunction, PassError> {
    spill_everything_in(f, false, k)
}

/// [`spill_everything`] on a function of a module, which has calls when
/// `module_has_calls` (then the parameters follow the calling convention).
pub fn spill_everything_in(f: &Function, module_has_calls: bool, k: usize) -> Result<MFunction, PassError> {
    validate_input(f, k, "spill-everything")?;
    let mut slot: EntityVec<Value, Option<Slot>> = EntityVec::from_elem(None, f.value_count as usize);
    let mut slot_count = 0u32;
    // Every value is below `value_count` (validated).
    f.for_each_value_mention(|v| {
        if slot[v].is_none() {
            slot[v] = Some(Slot(slot_count));
            slot_count += 1;
        }
    });
    let em = Emitter { slot, k, convention: convention_for(f, module_has_calls, k) };
    // Under the convention, the register parameters arrive in their
    // argument registers and are stored at the entry.
    let mut params = Vec::with_capacity(f.params.len());
    let mut entry_stores = Vec::new();
    for (i, &p) in f.params.iter().enumerate() {
        let slot = em.slot(p)?;
        match em.convention.as_ref().and_then(|c| c.arg_regs.get(i)) {
            Some(&r) => {
                Emitter::push(&mut entry_stores, MInst::Spill { slot, src: r }, vec![], None);
                params.push((Loc::Reg(r), p));
            }
            None => params.push((Loc::Slot(slot), p)),
        }
    }
    let mut blocks = EntityVec::new();
    for data in f.blocks.values() {
        let mut out = std::mem::take(&mut entry_stores);
        for inst in &data.insts {
            em.inst(inst, &mut out)?;
        }
        let (term, term_reads) = match data.term {
            Terminator::Jump(t) => (MTerm::Jump(t), None),
            Terminator::Branch { cond, then_dest, else_dest } => {
                Emitter::push(&mut out, MInst::Reload { dst: R0, slot: em.slot(cond)? }, vec![], None);
                (MTerm::Branch { cond: R0, then_dest, else_dest }, Some(cond))
            }
            Terminator::Return(v) => {
                Emitter::push(&mut out, MInst::Reload { dst: R0, slot: em.slot(v)? }, vec![], None);
                (MTerm::Return(R0), Some(v))
            }
        };
        blocks.push(MBlock { preds: data.preds.clone(), phis: Vec::new(), insts: out, term, term_reads });
    }
    Ok(MFunction { name: f.name.clone(), k, slot_count, params, blocks })
}
