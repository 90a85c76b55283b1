//! regalloc2's `Output` (allocations, edits, spill slots) as ssaref's
//! allocated machine IR, with the annotations the allocation checker needs.
//!
//! - Each block of the split SSA function is the block of the same number,
//!   with the same predecessors; its code is regalloc2's
//!   `block_insts_and_edits`, in order.
//! - An instruction becomes the `mir::MInst` of its operation over the
//!   registers of its allocations, annotated with the copy-canonical
//!   values it reads and defines (`mir.rs`). A `copy` becomes a `Move`
//!   without annotation (a transfer: the value is the same), or nothing
//!   when both allocations are the same register; the parameters'
//!   pseudo instruction becomes nothing, its allocations are where the
//!   parameters arrive.
//! - An edit `Move { from, to }` becomes `Move` (register to register),
//!   `Spill` (register to slot) or `Reload` (slot to register), without
//!   annotation; a move of a location to itself (regalloc2 emits them when
//!   the virtual register changes) becomes nothing. regalloc2 documents
//!   that it never emits a move between two stack slots; one would be an
//!   error here, since the machine IR cannot express it.
//! - Each phi with two or more arguments becomes a `mir::PhiAnnot` for each
//!   of its block parameter's allocations on entry to the block, read from
//!   `Output::debug_locations` (see `adapter.rs`). There may be two: regalloc2
//!   can keep a parameter in a register and in its spill slot from the
//!   start of the block, the moves at the end of each predecessor filling
//!   both. A parameter with no location there is dead on entry; its
//!   annotation is left out, which the checker would reject if anything
//!   read the value.
//! - A call becomes `mir::MInst::Call` with its arguments' allocations:
//!   the convention's argument registers (fixed uses), then wherever
//!   regalloc2 put each stack argument, a register or a slot.
//! - Spill slot `n` is `mir::Slot(n)`. regalloc2 gives every operand a
//!   location, the definition of a dead parameter included (a slot, see
//!   `tests/cases/dead_parameters.src`); a parameter without one is an
//!   error, not a slot invented here.

use crate::entity::EntityRef;
use crate::ir::{self, BinOp, Op, Terminator};
use crate::mir::{Annot, Loc, MBlock, MCall, MFunction, MInst, MInstA, MTerm, PhiAnnot, Reg, Slot};
use crate::regalloc2::adapter::{Adapter, DivForm, InstKind};
use crate::regalloc2::env::reg_of;
use regalloc2::{Allocation, AllocationKind, Edit, Function as _, InstOrEdit, Output, ProgPoint};

pub use crate::error::regalloc2_errors::ToMirError;

/// A location of ours for an allocation of regalloc2's.
fn loc(a: Allocation, k: usize) -> Result<Loc, ToMirError> {
    match a.kind() {
        AllocationKind::Reg => {
            let p = a.as_reg().ok_or(ToMirError::RegisterMissing)?;
            reg_of(p, k).map(Loc::Reg).ok_or(ToMirError::RegisterOutOfRange { preg: p, k })
        }
        AllocationKind::Stack => {
            let s = a.as_stack().ok_or(ToMirError::SlotMissing)?;
            Ok(Loc::Slot(Slot(s.index() as u32)))
        }
        AllocationKind::None => Err(ToMirError::NoAllocation),
    }
}

/// A register for an operand that must be in one.
fn reg(a: Allocation, k: usize) -> Result<Reg, ToMirError> {
    match loc(a, k)? {
        Loc::Reg(r) => Ok(r),
        Loc::Slot(s) => Err(ToMirError::RegisterOperandInSlot(s)),
    }
}

/// The machine code of one edit.
fn edit_inst(e: &Edit, k: usize) -> Result<Option<MInst>, ToMirError> {
    let Edit::Move { from, to } = *e;
    Ok(match (loc(from, k)?, loc(to, k)?) {
        (a, b) if a == b => None,
        (Loc::Reg(src), Loc::Reg(dst)) => Some(MInst::Move { dst, src }),
        (Loc::Reg(src), Loc::Slot(slot)) => Some(MInst::Spill { slot, src }),
        (Loc::Slot(slot), Loc::Reg(dst)) => Some(MInst::Reload { dst, slot }),
        (Loc::Slot(a), Loc::Slot(b)) => {
            return Err(ToMirError::SlotToSlot(a, b));
        }
    })
}

/// The machine instruction of operation `inst` with allocations `allocs`
/// (in operand order, see `adapter.rs`), or `None` for a copy that moves
/// nothing.
fn op_inst(a: &Adapter, inst: &ir::Inst, div: DivForm, allocs: &[Allocation]) -> Result<Option<MInstA>, ToMirError> {
    let k = a.k;
    let r = |i: usize| -> Result<Reg, ToMirError> {
        let alloc = *allocs.get(i).ok_or(ToMirError::MissingOperand(i))?;
        reg(alloc, k)
    };
    let reads: Vec<_> = inst.op.args().iter().map(|&v| a.canonical(v)).collect();
    let annot = Annot { reads, defines: inst.dest.map(|d| a.canonical(d)) };
    let mi = match (&inst.op, div) {
        (Op::Copy(_), _) => {
            let (src, dst) = (r(0)?, r(1)?);
            return Ok((src != dst).then_some(MInstA { inst: MInst::Move { dst, src }, annot: Annot::default() }));
        }
        (Op::Binary(op @ (BinOp::Div | BinOp::Rem), _, _), DivForm::Fixed) => {
            MInst::FixedDiv { op: *op, divisor: r(1)? }
        }
        (Op::Const(imm), _) => MInst::Const { dst: r(0)?, imm: *imm },
        (Op::Unary(op, _), _) => MInst::Unary { op: *op, dst: r(1)?, src: r(0)? },
        (Op::Binary(op, _, _), _) => MInst::Binary { op: *op, dst: r(2)?, a: r(0)?, b: r(1)? },
        (Op::Load(_), _) => MInst::Load { dst: r(1)?, addr: r(0)? },
        (Op::Store { .. }, _) => MInst::Store { addr: r(0)?, src: r(1)? },
        (Op::Out(_), _) => MInst::Out { src: r(0)? },
        (Op::Undef, _) => return Err(ToMirError::Undef),
        (Op::Call(call), _) => {
            // The arguments' allocations, then the result's (rax, fixed).
            let args = (0..call.args.len())
                .map(|i| loc(*allocs.get(i).ok_or(ToMirError::MissingOperand(i))?, k))
                .collect::<Result<Vec<Loc>, ToMirError>>()?;
            MInst::Call(Box::new(MCall { callee: call.callee.clone(), args }))
        }
    };
    Ok(Some(MInstA { inst: mi, annot }))
}

/// The allocated machine IR of `a` under regalloc2's output `out`.
pub fn to_mir(a: &Adapter, out: &Output) -> Result<MFunction, ToMirError> {
    let k = a.k;
    let f = &a.func;
    let slot_count = out.num_spillslots as u32;
    let mut params = Vec::new();
    let mut blocks = crate::entity::EntityVec::new();
    // regalloc2's debug locations by label (a stable sort keeps each
    // label's entries in regalloc2's order), so that each phi finds its own
    // with a binary search instead of a scan of all of them (one scan per
    // phi would be quadratic in the function's size).
    let mut by_label: Vec<usize> = (0..out.debug_locations.len()).collect();
    by_label.sort_by_key(|&i| out.debug_locations[i].0);
    let locations_of = |label: u32| {
        let start = by_label.partition_point(|&i| out.debug_locations[i].0 < label);
        let end = by_label.partition_point(|&i| out.debug_locations[i].0 <= label);
        by_label[start..end].iter().map(|&i| &out.debug_locations[i])
    };
    for (b, data) in f.blocks.iter() {
        let rblock = a.r2_block(b);
        let first = a.block_insns(rblock).first();
        let mut phis: Vec<PhiAnnot> = Vec::new();
        for phi in a.param_phis(b) {
            let label = phi.dest.index() as u32;
            let at_entry = locations_of(label).filter(|&&(_, from, _, _)| from == ProgPoint::before(first));
            for &(_, _, _, alloc) in at_entry {
                let l = loc(alloc, k)?;
                if !phis.iter().any(|p| p.dest == phi.dest && p.loc == l) {
                    phis.push(PhiAnnot {
                        dest: phi.dest,
                        loc: l,
                        args: phi.args.iter().map(|&v| a.canonical(v)).collect(),
                    });
                }
            }
        }
        let mut insts = Vec::new();
        let mut term = None;
        for item in out.block_insts_and_edits(a, rblock) {
            match item {
                InstOrEdit::Edit(e) => {
                    if let Some(inst) = edit_inst(e, k)? {
                        insts.push(MInstA { inst, annot: Annot::default() });
                    }
                }
                InstOrEdit::Inst(i) => {
                    let data_i = a.inst(i);
                    let allocs = out.inst_allocs(i);
                    match data_i.kind {
                        InstKind::Params => params = param_locations(a, allocs)?,
                        InstKind::Op { block, index } => {
                            if let Some(mi) = op_inst(a, &f.blocks[block].insts[index], data_i.div, allocs)? {
                                insts.push(mi);
                            }
                        }
                        InstKind::Term(block) => term = Some(terminator(a, &f.blocks[block].term, allocs)?),
                    }
                }
            }
        }
        let (term, term_reads) = term.ok_or(ToMirError::NoTerminator(b))?;
        blocks.push(MBlock { preds: data.preds.clone(), phis, insts, term, term_reads });
    }
    if f.params.len() != params.len() {
        return Err(ToMirError::NoParams);
    }
    Ok(MFunction { name: f.name.clone(), k, slot_count, params, blocks })
}

/// Where each parameter of the function arrives: the allocations of the
/// parameters' pseudo instruction. regalloc2 gives every operand a
/// location, a dead parameter's definition included (a slot).
fn param_locations(a: &Adapter, allocs: &[Allocation]) -> Result<Vec<(Loc, ir::Value)>, ToMirError> {
    let mut params = Vec::with_capacity(a.func.params.len());
    for (j, &p) in a.func.params.iter().enumerate() {
        let l = match allocs.get(j) {
            Some(&alloc) if alloc.is_some() => loc(alloc, a.k)?,
            _ => return Err(ToMirError::ParamWithoutLocation(p)),
        };
        params.push((l, a.canonical(p)));
    }
    Ok(params)
}

/// A block's terminator over the register of its operand's allocation,
/// and the copy-canonical value it reads.
fn terminator(a: &Adapter, term: &Terminator, allocs: &[Allocation]) -> Result<(MTerm, Option<ir::Value>), ToMirError> {
    let r0 = || allocs.first().copied().ok_or(ToMirError::TerminatorOperand);
    Ok(match *term {
        Terminator::Jump(t) => (MTerm::Jump(t), None),
        Terminator::Branch { cond, then_dest, else_dest } => {
            (MTerm::Branch { cond: reg(r0()?, a.k)?, then_dest, else_dest }, Some(a.canonical(cond)))
        }
        Terminator::Return(v) => (MTerm::Return(reg(r0()?, a.k)?), Some(a.canonical(v))),
    })
}

/// regalloc2's output as text: the number of spill slots, then the
/// allocations of every instruction with the edits before and after it.
pub fn render_output(a: &Adapter, out: &Output) -> String {
    use std::fmt::Write as _;
    let mut s = format!("spill slots: {}\n", out.num_spillslots);
    let edits_at = |s: &mut String, point: ProgPoint| {
        for (_, edit) in out.edits.iter().filter(|(p, _)| *p == point) {
            let Edit::Move { from, to } = edit;
            let _ = writeln!(s, "  edit: move {from} -> {to}");
        }
    };
    for i in 0..a.num_insts() {
        let inst = regalloc2::Inst::new(i);
        edits_at(&mut s, ProgPoint::before(inst));
        let allocs: Vec<String> = out.inst_allocs(inst).iter().map(|x| x.to_string()).collect();
        let _ = writeln!(s, "inst{i}: [{}]", allocs.join(", "));
        edits_at(&mut s, ProgPoint::after(inst));
    }
    s
}
