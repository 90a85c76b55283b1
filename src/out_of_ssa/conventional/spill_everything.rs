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
//! Correctness (`proofs-notes/conventional-allocation.md`): after every
//! definition of a variable its slot is written, and no other instruction
//! writes it, so at every point the slot of `v` holds the latest value of
//! `v`; each reload is immediately followed by the instruction that reads
//! it, with nothing in between that writes the register.

use crate::entity::EntityVec;
use crate::error::{ConventionalAllocError, PassError};
use crate::ir::{BinOp, Function, Op, Terminator, Value};
use crate::mir::{Annot, Loc, MBlock, MFunction, MInst, MInstA, MTerm, Reg, Slot, RDX};
use crate::out_of_ssa::conventional::alloc_input::{fail, validate_input};

const R0: Reg = Reg(0);
const R1: Reg = Reg(1);

struct Emitter {
    slot: EntityVec<Value, Option<Slot>>,
    k: usize,
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

    fn inst(&self, inst: &crate::ir::Inst, out: &mut Vec<MInstA>) -> Result<(), PassError> {
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
/// code uses rax and rcx.
pub fn spill_everything(f: &Function, k: usize) -> Result<MFunction, PassError> {
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
    let em = Emitter { slot, k };
    let mut blocks = EntityVec::new();
    for data in f.blocks.values() {
        let mut out = Vec::new();
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
    let params = f.params.iter().map(|&p| Ok((Loc::Slot(em.slot(p)?), p))).collect::<Result<Vec<_>, PassError>>()?;
    Ok(MFunction { name: f.name.clone(), k, slot_count, params, blocks })
}
