//! The emission of linear scan (`linear_scan.rs`, "Emission and
//! annotations"): the scan's registers, slots and temporaries turned into
//! machine IR, with the annotations of `alloc_checker.rs`.
//!
//! A call under the calling convention (`call_pins.rs`) reads its register
//! arguments from the argument registers the scan fixed them to (reloaded
//! there when spilled), its stack arguments from wherever they are, a
//! register or a slot (the lowering pushes them), and leaves its result in
//! rax, stored to the result's slot when it is spilled.

use crate::analysis::calling_convention::CallingConvention;
use crate::entity::EntityVec;
use crate::error::{ConventionalAllocError, PassError};
use crate::ir::{BinOp, Call, Inst, Op, Value};
use crate::mir::{Annot, Loc, MCall, MInst, MInstA, Reg, Slot, RAX, RDX};
use crate::out_of_ssa::conventional::alloc_input::fail;
use crate::out_of_ssa::renaming_constraints::{is_constrained_division, Pins};
use std::collections::HashMap;

/// A position in the layout (`linear_scan.rs`, "Positions and lifetime
/// intervals").
pub(super) type Pos = u32;

/// Where the parameters are written.
pub(super) const PARAM_DEF: Pos = 1;

/// The position where instruction `i` of the layout reads its operands.
pub(super) fn use_pos(i: u32) -> Pos {
    2 * i
}

/// The position where instruction `i` of the layout writes its result.
pub(super) fn def_pos(i: u32) -> Pos {
    2 * i + 1
}

/// The result of the scan: the register of each variable that kept one,
/// the spilled variables, and the register of each temporary.
pub(super) struct Allocation {
    pub(super) reg: EntityVec<Value, Option<Reg>>,
    pub(super) spilled: EntityVec<Value, bool>,
    pub(super) temp: HashMap<(Pos, Value), Reg>,
}

/// What the emission needs: the scan's result, the slot of each spilled
/// variable, the pins, and the convention when the function is allocated
/// under one.
pub(super) struct Emitter<'a> {
    pub(super) alloc: &'a Allocation,
    pub(super) slot: EntityVec<Value, Option<Slot>>,
    pub(super) pins: &'a Pins,
    pub(super) convention: Option<CallingConvention>,
}

impl Emitter<'_> {
    fn internal(m: ConventionalAllocError) -> PassError {
        fail("linear-scan", "emit", m)
    }

    pub(super) fn loc(&self, v: Value) -> Result<Loc, PassError> {
        if self.alloc.spilled[v] {
            self.slot[v].map(Loc::Slot).ok_or_else(|| Self::internal(ConventionalAllocError::SpilledWithoutSlot(v)))
        } else {
            self.alloc.reg[v].map(Loc::Reg).ok_or_else(|| Self::internal(ConventionalAllocError::NoRegister(v)))
        }
    }

    pub(super) fn temp(&self, p: Pos, v: Value) -> Result<Reg, PassError> {
        self.alloc
            .temp
            .get(&(p, v))
            .copied()
            .ok_or_else(|| Self::internal(ConventionalAllocError::NoTemporary { value: v, position: p }))
    }

    /// The register that holds `v` at position `p`, after reloading it when
    /// it is spilled (a read at `p`).
    pub(super) fn operand(&self, v: Value, p: Pos, out: &mut Vec<MInstA>) -> Result<Reg, PassError> {
        match self.loc(v)? {
            Loc::Reg(r) => Ok(r),
            Loc::Slot(slot) => {
                let t = self.temp(p, v)?;
                push(out, MInst::Reload { dst: t, slot }, vec![], None);
                Ok(t)
            }
        }
    }

    /// The call `d = call ...`, instruction `i` of the layout (module
    /// documentation).
    fn call(&self, inst: &Inst, call: &Call, d: Value, i: u32, out: &mut Vec<MInstA>) -> Result<(), PassError> {
        let unemittable = || Self::internal(ConventionalAllocError::Unemittable { op: inst.op.clone(), dest: None });
        let convention = self.convention.as_ref().ok_or_else(unemittable)?;
        let wrong = |index, expected, got| {
            Self::internal(ConventionalAllocError::ConstrainedCall { inst: inst.clone(), index, expected, got })
        };
        let mut args = Vec::with_capacity(call.args.len());
        for (n, &a) in call.args.iter().enumerate() {
            args.push(match convention.arg_regs.get(n) {
                Some(&want) => {
                    let r = self.operand(a, use_pos(i), out)?;
                    if r != want {
                        return Err(wrong(Some(n), want, r));
                    }
                    Loc::Reg(r)
                }
                None => self.loc(a)?,
            });
        }
        let result = self.loc(d)?;
        let dst = match result {
            Loc::Reg(r) => r,
            Loc::Slot(_) => self.temp(def_pos(i), d)?,
        };
        if dst != RAX {
            return Err(wrong(None, RAX, dst));
        }
        let mcall = MCall { callee: call.callee.clone(), args };
        push(out, MInst::Call(Box::new(mcall)), call.args.clone(), Some(d));
        if let Loc::Slot(slot) = result {
            push(out, MInst::Spill { slot, src: dst }, vec![], None);
        }
        Ok(())
    }

    pub(super) fn inst(&self, inst: &Inst, i: u32, out: &mut Vec<MInstA>) -> Result<(), PassError> {
        if let (Op::Call(call), Some(d)) = (&inst.op, inst.dest) {
            return self.call(inst, call, d, i, out);
        }
        let (u, w) = (use_pos(i), def_pos(i));
        if let (Op::Copy(b), Some(a)) = (&inst.op, inst.dest) {
            let b = *b;
            let transfer = match (self.loc(b)?, self.loc(a)?) {
                (Loc::Reg(src), Loc::Reg(dst)) => MInst::Move { dst, src },
                (Loc::Slot(slot), Loc::Reg(dst)) => MInst::Reload { dst, slot },
                (Loc::Reg(src), Loc::Slot(slot)) => MInst::Spill { slot, src },
                (Loc::Slot(_), Loc::Slot(slot)) => MInst::Spill { slot, src: self.operand(b, u, out)? },
            };
            push(out, transfer, vec![b], Some(a));
            return Ok(());
        }
        let args = inst.op.args();
        let mut regs = Vec::with_capacity(args.len());
        for (n, &a) in args.iter().enumerate() {
            // A variable read twice is reloaded once.
            let r = match args[..n].iter().position(|&x| x == a) {
                Some(m) => regs[m],
                None => self.operand(a, u, out)?,
            };
            regs.push(r);
        }
        let dst = match inst.dest {
            Some(d) => Some(match self.loc(d)? {
                Loc::Reg(r) => r,
                Loc::Slot(_) => self.temp(w, d)?,
            }),
            None => None,
        };
        let mi = match (&inst.op, dst) {
            (Op::Binary(op, _, _), Some(dst)) if is_constrained_division(inst, self.pins) => {
                // The scan put the dividend in rax and the result in its
                // register, and kept rdx from the divisor (clobbers).
                let want = if *op == BinOp::Rem { RDX } else { RAX };
                if regs[0] != RAX || dst != want || regs[1] == RDX {
                    return Err(Self::internal(ConventionalAllocError::ConstrainedDivision {
                        inst: inst.clone(),
                        dividend: regs[0],
                        divisor: regs[1],
                        result: dst,
                    }));
                }
                MInst::FixedDiv { op: *op, divisor: regs[1] }
            }
            (Op::Const(imm), Some(dst)) => MInst::Const { dst, imm: *imm },
            (Op::Unary(op, _), Some(dst)) => MInst::Unary { op: *op, dst, src: regs[0] },
            (Op::Binary(op, _, _), Some(dst)) => MInst::Binary { op: *op, dst, a: regs[0], b: regs[1] },
            (Op::Load(_), Some(dst)) => MInst::Load { dst, addr: regs[0] },
            (Op::Store { .. }, None) => MInst::Store { addr: regs[0], src: regs[1] },
            (Op::Out(_), None) => MInst::Out { src: regs[0] },
            (op, d) => return Err(Self::internal(ConventionalAllocError::Unemittable { op: op.clone(), dest: d })),
        };
        push(out, mi, args, inst.dest);
        if let (Some(d), Some(dst)) = (inst.dest, dst) {
            if let Loc::Slot(slot) = self.loc(d)? {
                push(out, MInst::Spill { slot, src: dst }, vec![], None);
            }
        }
        Ok(())
    }
}

pub(super) fn push(out: &mut Vec<MInstA>, inst: MInst, reads: Vec<Value>, defines: Option<Value>) {
    out.push(MInstA { inst, annot: Annot { reads, defines } });
}
