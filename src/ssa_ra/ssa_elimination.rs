//! Spill-free SSA elimination after register allocation, and the emission of
//! the allocated machine IR, after Pereira and Palsberg, "SSA Elimination
//! after Register Allocation" (CC 2009).
//!
//! Each block's phis become one parallel copy per incoming edge (one column
//! of the phi matrix, §3), placed at the end of the predecessor (§5; there
//! are no critical edges and no one-argument phis, `regalloc.rs`, so the
//! predecessor has that one successor; checked here at run time). Each
//! parallel copy must be spartan (Theorem 1, checked here when checks are
//! on, `pass_manager/self_checks.rs`); its
//! location transfer graph is then made of paths and register cycles
//! (Theorem 2), implemented by `implement_spartan.rs` (Algorithms 1-2,
//! Theorem 3) with moves, loads, stores and swaps, and no other location;
//! when checks are on, each implementation is then run and counted against
//! the optimum (`implement_spartan::check_implementation`).
//!
//! The three optimizations of §6, each switchable:
//! - store hoisting (§6.1): when a phi result lives in memory, every
//!   argument of its class that lives in a register is stored to the class
//!   slot right after its definition, and the edges then need no store;
//! - load lowering (§6.2): realized by the spiller (`spill.rs`), which
//!   spills a phi result whose arguments would need more edge loads than
//!   the result has uses; the edge transfer then is a memory self-loop;
//! - redundant memory transfer elimination (§6.3): a `copy` between two
//!   spilled values of the same class (hence the same slot) emits nothing;
//!   without it, it is a load and a store through the copy's register.
//!
//! Every emitted instruction carries the copy-canonical SSA values it reads
//! and defines (`mir::Annot`), for `alloc_checker.rs`.

use crate::analysis::calling_convention::CallingConvention;
use crate::analysis::dominance::reverse_postorder;
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{BinOp, Function, Op, Terminator, Value};
use crate::mir::{Annot, Loc, MBlock, MCall, MFunction, MInst, MInstA, MTerm, PhiAnnot, Reg, Slot, RAX, RDX};
use crate::ssa_ra::coloring::Assignment;
use crate::ssa_ra::division_splits::is_fixed_division;
use crate::ssa_ra::implement_spartan::{check_implementation, implement_spartan, ElimOptions, SkipHooks};
use crate::ssa_ra::location_transfer_graph::ParallelCopy;
use crate::ssa_ra::spill::SpillResult;
use std::collections::HashSet;

/// The §6 optimizations that act here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EliminationOptions {
    pub store_hoisting: bool,
    pub redundant_memory_transfer_elimination: bool,
}

pub use crate::error::ssa_ra_errors::EliminationError;

/// Follows `copy` chains: the value each value is a copy of.
pub fn copy_canonical(f: &Function) -> EntityVec<Value, Value> {
    let n = f.value_count as usize;
    let mut canon: EntityVec<Value, Value> = (0..n).map(Value::new).collect();
    let order = reverse_postorder(f.blocks.len(), Function::ENTRY, |b| f.succs(b));
    for b in order {
        for inst in &f.blocks[b].insts {
            if let (Some(d), Op::Copy(s)) = (inst.dest, &inst.op) {
                canon[d] = canon[*s];
            }
        }
    }
    canon
}

struct Emitter<'a> {
    /// The number of registers, which decides the fixed divisions.
    k: usize,
    spill: &'a SpillResult,
    a: &'a Assignment,
    canon: EntityVec<Value, Value>,
    opts: EliminationOptions,
    /// Register-resident values stored to their class slot at definition
    /// (store hoisting), with that slot.
    hoisted: EntityVec<Value, Option<Slot>>,
    /// Slots into which edges need no store (store hoisting).
    hoisted_slots: HashSet<Slot>,
}

impl Emitter<'_> {
    fn loc(&self, v: Value) -> Result<Loc, EliminationError> {
        if self.spill.spilled.contains(v) {
            self.a.slot[v].map(Loc::Slot).ok_or(EliminationError::SpilledWithoutSlot(v))
        } else {
            self.a.reg[v].map(Loc::Reg).ok_or(EliminationError::NoRegister(v))
        }
    }

    fn reg(&self, v: Value) -> Result<Reg, EliminationError> {
        match self.loc(v)? {
            Loc::Reg(r) => Ok(r),
            Loc::Slot(s) => Err(EliminationError::ReadFromSlot { value: v, slot: s }),
        }
    }

    fn def_reg(&self, v: Value) -> Result<Reg, EliminationError> {
        self.a.reg[v].ok_or(EliminationError::DefinitionWithoutRegister(v))
    }

    fn push(out: &mut Vec<MInstA>, inst: MInst, reads: Vec<Value>, defines: Option<Value>) {
        out.push(MInstA { inst, annot: Annot { reads, defines } });
    }

    /// A register-resident value that store hoisting stores at definition.
    fn hoist_store(&self, v: Value, out: &mut Vec<MInstA>) -> Result<(), EliminationError> {
        if let Some(slot) = self.hoisted[v] {
            Self::push(out, MInst::Spill { slot, src: self.reg(v)? }, vec![], None);
        }
        Ok(())
    }

    /// Emits one instruction over the locations of its values: the
    /// operation, then the store of a spilled result (the spill code of
    /// §4.7 of Pereira's report) or the hoisted store of a register one.
    fn inst(&self, inst: &crate::ir::Inst, out: &mut Vec<MInstA>) -> Result<(), EliminationError> {
        let c = |v: Value| self.canon[v];
        let spilled = |v: Value| self.spill.spilled.contains(v);
        match (&inst.op, inst.dest) {
            (Op::Copy(s), Some(d)) => return self.emit_copy(*s, d, out),
            (op, Some(d)) => {
                let dst = self.def_reg(d)?;
                let reads: Vec<Value> = op.args().into_iter().map(c).collect();
                let mi = match *op {
                    Op::Const(imm) => MInst::Const { dst, imm },
                    Op::Unary(uop, a) => MInst::Unary { op: uop, dst, src: self.reg(a)? },
                    Op::Binary(bop, a, b) if is_fixed_division(op, self.k) => {
                        let (dividend, divisor) = (self.reg(a)?, self.reg(b)?);
                        let want = if bop == BinOp::Rem { RDX } else { RAX };
                        if dividend != RAX || dst != want || divisor == RAX || divisor == RDX {
                            return Err(EliminationError::FixedDivision { value: d, dividend, divisor, result: dst });
                        }
                        MInst::FixedDiv { op: bop, divisor }
                    }
                    Op::Binary(bop, a, b) => MInst::Binary { op: bop, dst, a: self.reg(a)?, b: self.reg(b)? },
                    Op::Load(a) => MInst::Load { dst, addr: self.reg(a)? },
                    Op::Undef => return Err(EliminationError::Undef(d)),
                    Op::Call(ref call) => self.call(call, d, dst)?,
                    Op::Copy(_) | Op::Store { .. } | Op::Out(_) => unreachable!("handled elsewhere"),
                };
                Self::push(out, mi, reads, Some(c(d)));
                if spilled(d) {
                    let slot = self.a.slot[d].expect("spilled has a slot");
                    Self::push(out, MInst::Spill { slot, src: dst }, vec![], None);
                } else {
                    self.hoist_store(d, out)?;
                }
            }
            (Op::Store { addr, value }, None) => {
                let mi = MInst::Store { addr: self.reg(*addr)?, src: self.reg(*value)? };
                Self::push(out, mi, vec![c(*addr), c(*value)], None);
            }
            (Op::Out(a), None) => Self::push(out, MInst::Out { src: self.reg(*a)? }, vec![c(*a)], None),
            (op, d) => return Err(EliminationError::Malformed { op: op.clone(), dest: d }),
        }
        Ok(())
    }

    /// A call defining `d` in `dst` (`call_constraints.rs`): the register
    /// arguments and the result where the calling convention at K puts
    /// them, the stack arguments wherever they are (their slots).
    fn call(&self, call: &crate::ir::Call, d: Value, dst: Reg) -> Result<MInst, EliminationError> {
        let cc = CallingConvention::for_k(self.k).ok_or(EliminationError::NoRegister(d))?;
        let mut args = Vec::with_capacity(call.args.len());
        for (i, &a) in call.args.iter().enumerate() {
            let got = self.loc(a)?;
            if let Some(&expected) = cc.arg_regs.get(i) {
                if got != Loc::Reg(expected) {
                    return Err(EliminationError::Call { value: d, index: Some(i), expected, got });
                }
            }
            args.push(got);
        }
        if dst != RAX {
            return Err(EliminationError::Call { value: d, index: None, expected: RAX, got: Loc::Reg(dst) });
        }
        Ok(MInst::Call(Box::new(MCall { callee: call.callee.clone(), args })))
    }

    /// Emits `d = copy s` by where the two values live: a move between
    /// registers (none when they share one), a load, a store, or, between
    /// two slots, a load and a store through `d`'s register. Redundant
    /// memory transfer elimination (Pereira and Palsberg §6.3): a copy
    /// between two spilled values of one phi-congruence class shares the
    /// class slot (frugal allocation), so it moves nothing and emits nothing.
    fn emit_copy(&self, s: Value, d: Value, out: &mut Vec<MInstA>) -> Result<(), EliminationError> {
        let spilled = |v: Value| self.spill.spilled.contains(v);
        match (spilled(s), spilled(d)) {
            (false, false) => {
                let (rs, rd) = (self.reg(s)?, self.reg(d)?);
                if rs != rd {
                    Self::push(out, MInst::Move { dst: rd, src: rs }, vec![], None);
                }
            }
            (true, false) => {
                let slot = self.a.slot[s].expect("spilled has a slot");
                Self::push(out, MInst::Reload { dst: self.reg(d)?, slot }, vec![], None);
            }
            (false, true) => {
                let slot = self.a.slot[d].expect("spilled has a slot");
                Self::push(out, MInst::Spill { slot, src: self.reg(s)? }, vec![], None);
            }
            (true, true) => {
                let (ss, sd) = (self.a.slot[s].expect("slot"), self.a.slot[d].expect("slot"));
                if !(ss == sd && self.opts.redundant_memory_transfer_elimination) {
                    let r = self.def_reg(d)?;
                    Self::push(out, MInst::Reload { dst: r, slot: ss }, vec![], None);
                    Self::push(out, MInst::Spill { slot: sd, src: r }, vec![], None);
                }
            }
        }
        if !spilled(d) {
            self.hoist_store(d, out)?;
        }
        Ok(())
    }
}

/// Counts of the elimination code, for statistics (static): the location
/// transfer graphs of the phi columns, and the instructions that implement
/// them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EliminationStats {
    /// Parallel copies implemented (non-empty phi columns).
    pub parallel_copies: usize,
    /// Edges of the location transfer graphs of every phi column (one per
    /// phi and edge), self-loops included.
    pub edges: usize,
    /// Memory self-loops: a phi and its argument in the same slot (memory
    /// transfers, which need no instruction).
    pub memory_self_loops: usize,
    /// Register self-loops: a phi and its argument in the same register.
    pub register_self_loops: usize,
    /// Instructions of the implementations (`implement_spartan`).
    pub moves: usize,
    pub loads: usize,
    pub stores: usize,
    pub swaps: usize,
    /// Stores that store hoisting placed after a definition instead.
    pub hoisted_stores: usize,
}

/// Emits the allocated function: operations over locations, the store and
/// reload code of spilling, and the spartan parallel copies of the phis.
pub fn eliminate_ssa(
    f: &Function,
    spill: &SpillResult,
    a: &Assignment,
    k: usize,
    opts: &EliminationOptions,
) -> Result<(MFunction, EliminationStats), EliminationError> {
    let n = f.value_count as usize;
    let mut em = Emitter {
        k,
        spill,
        a,
        canon: copy_canonical(f),
        opts: *opts,
        hoisted: EntityVec::from_elem(None, n),
        hoisted_slots: HashSet::new(),
    };
    if opts.store_hoisting {
        em.plan_store_hoisting(f);
    }
    let mut stats = EliminationStats::default();
    let edges = crate::analysis::liveness::OutEdges::new(f);
    let mut blocks: EntityVec<crate::ir::Block, MBlock> = EntityVec::new();
    for (b, data) in f.blocks.iter() {
        let mut out: Vec<MInstA> = Vec::new();
        let phis = em.block_start(f, b, &mut out)?;
        for inst in &data.insts {
            em.inst(inst, &mut out)?;
        }
        // §5: the phi columns of the successors, at the end of this block.
        let succs = data.term.successors();
        for (occurrence, &s) in succs.iter().enumerate() {
            if f.blocks[s].phis.is_empty() {
                continue;
            }
            if succs.len() != 1 {
                return Err(EliminationError::PhisOnBranchingEdge { pred: b, succ: s, successors: succs.len() });
            }
            let edge =
                edges.pred_index(b, s, occurrence).ok_or(EliminationError::NotAPredecessor { pred: b, succ: s })?;
            em.phi_column(f, b, s, edge, &mut stats, &mut out)?;
        }
        let (term, term_reads) = em.term(&data.term)?;
        blocks.push(MBlock { preds: data.preds.clone(), phis, insts: out, term, term_reads });
    }
    stats.hoisted_stores = em.hoisted.iter().filter(|(_, slot)| slot.is_some()).count();
    let params =
        f.params.iter().map(|&p| Ok((em.loc(p)?, em.canon[p]))).collect::<Result<Vec<_>, EliminationError>>()?;
    Ok((MFunction { name: f.name.clone(), k, slot_count: a.slot_count, params, blocks }, stats))
}

impl Emitter<'_> {
    /// Store hoisting (§6.1): every argument of a spilled phi's class that
    /// lives in a register is stored at its definition; the class shares
    /// one slot (frugal).
    fn plan_store_hoisting(&mut self, f: &Function) {
        for data in f.blocks.values() {
            for phi in &data.phis {
                if !self.spill.spilled.contains(phi.dest) {
                    continue;
                }
                let slot = self.a.slot[phi.dest].expect("spilled has a slot");
                self.hoisted_slots.insert(slot);
                for &arg in &phi.args {
                    if !self.spill.spilled.contains(arg) {
                        self.hoisted[arg] = Some(slot);
                    }
                }
            }
        }
    }

    /// The values defined at the start of block `b`, the parameters in the
    /// entry and the phi results: the hoisted stores of those in registers,
    /// and the phis' annotations.
    fn block_start(
        &self,
        f: &Function,
        b: crate::ir::Block,
        out: &mut Vec<MInstA>,
    ) -> Result<Vec<PhiAnnot>, EliminationError> {
        if b == Function::ENTRY {
            for &p in &f.params {
                if !self.spill.spilled.contains(p) {
                    self.hoist_store(p, out)?;
                }
            }
        }
        let mut phis = Vec::new();
        for phi in &f.blocks[b].phis {
            phis.push(PhiAnnot {
                dest: self.canon[phi.dest],
                loc: self.loc(phi.dest)?,
                args: phi.args.iter().map(|&x| self.canon[x]).collect(),
            });
            if !self.spill.spilled.contains(phi.dest) {
                self.hoist_store(phi.dest, out)?;
            }
        }
        Ok(phis)
    }

    /// The phi column of `s` for its predecessor `b` (operand `edge` of
    /// each phi) as one parallel copy, checked spartan (Theorem 1) and
    /// implemented by `ImplementSpartan` (Algorithm 2) at the end of `b`.
    fn phi_column(
        &self,
        f: &Function,
        b: crate::ir::Block,
        s: crate::ir::Block,
        edge: usize,
        stats: &mut EliminationStats,
        out: &mut Vec<MInstA>,
    ) -> Result<(), EliminationError> {
        let sdata = &f.blocks[s];
        // Theorem 1 is about the whole column, self-moves included: a
        // self-move that is dropped first could hide a repeated source.
        let mut column = Vec::with_capacity(sdata.phis.len());
        for phi in &sdata.phis {
            column.push((self.loc(phi.dest)?, self.loc(phi.args[edge])?));
        }
        stats.edges += column.len();
        if crate::pass_manager::self_checks::in_checked_pass() {
            ParallelCopy { moves: column.clone() }.check_spartan().map_err(|e| EliminationError::ColumnNotSpartan {
                pred: b,
                succ: s,
                reason: e.to_string(),
            })?;
        }
        let mut moves = Vec::new();
        for (dst, src) in column {
            if dst == src {
                match dst {
                    Loc::Slot(_) => stats.memory_self_loops += 1,
                    Loc::Reg(_) => stats.register_self_loops += 1,
                }
                continue;
            }
            moves.push((dst, src));
        }
        if moves.is_empty() {
            return Ok(());
        }
        stats.parallel_copies += 1;
        let pc = ParallelCopy { moves };
        let hoisted_slots = &self.hoisted_slots;
        let skip_store = |slot: Slot, _: Reg| hoisted_slots.contains(&slot);
        let hooks = SkipHooks { skip_store: &skip_store, skip_load: &|_: Slot, _: Reg| false };
        let elim = ElimOptions { store_hoisting: self.opts.store_hoisting, load_lowering: false };
        let code = implement_spartan(&pc, &elim, &hooks).map_err(|e| EliminationError::ImplementSpartan {
            pred: b,
            succ: s,
            reason: e.to_string(),
        })?;
        // Every parallel copy's implementation is run and counted: the
        // right values, and the least number of instructions
        // (Theorem 3 and `proofs-notes/spill-free-ssa-elimination.md`).
        if crate::pass_manager::self_checks::in_checked_pass() {
            check_implementation(&pc, &elim, &hooks, &code).map_err(|e| EliminationError::WrongImplementation {
                pred: b,
                succ: s,
                reason: e.to_string(),
            })?;
        }
        for inst in &code {
            match inst {
                MInst::Move { .. } => stats.moves += 1,
                MInst::Reload { .. } => stats.loads += 1,
                MInst::Spill { .. } => stats.stores += 1,
                MInst::Swap { .. } => stats.swaps += 1,
                _ => {}
            }
        }
        out.extend(code.into_iter().map(|inst| MInstA { inst, annot: Annot::default() }));
        Ok(())
    }

    /// A terminator over registers, with the value it reads.
    fn term(&self, term: &Terminator) -> Result<(MTerm, Option<Value>), EliminationError> {
        Ok(match *term {
            Terminator::Jump(t) => (MTerm::Jump(t), None),
            Terminator::Branch { cond, then_dest, else_dest } => {
                (MTerm::Branch { cond: self.reg(cond)?, then_dest, else_dest }, Some(self.canon[cond]))
            }
            Terminator::Return(v) => (MTerm::Return(self.reg(v)?), Some(self.canon[v])),
        })
    }
}
