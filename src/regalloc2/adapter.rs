//! The SSA function, after critical-edge splitting, as regalloc2's input: a
//! type implementing `regalloc2::Function`.
//!
//! The mapping, block for block and instruction for instruction:
//! - The blocks of the split function are regalloc2's blocks in reverse
//!   post-order (`b0` first), with the same predecessors and successors;
//!   value `vN` is virtual register `N` of class `Int`. The order matters
//!   to regalloc2's checker, not to the allocator: the checker's data flow
//!   starts a block it has not yet reached from an empty state and lets
//!   that state flow on, so with a block numbered before all of its
//!   predecessors (what critical-edge splitting, which appends its blocks,
//!   gives) it loses facts at joins for good and rejects correct
//!   allocations. In reverse post-order every block but the entry comes
//!   after one of its predecessors, and the false alarms go away.
//! - A phi with two or more arguments is a *block parameter*; the jump at
//!   the end of each predecessor passes the phi's argument for that edge.
//!   After critical-edge splitting every predecessor of a block with
//!   several predecessors ends in a jump, so regalloc2 places the moves
//!   that implement the phis at the end of the predecessor, where the
//!   phi annotations of the allocated code (`mir::PhiAnnot`) say they are.
//! - A phi with one argument (its block has one predecessor) is the same
//!   value as its argument: the adapter renames its uses to the argument
//!   and gives it neither a block parameter nor an instruction. Braun et
//!   al.'s construction removes such phis, so this only serves other input.
//! - The parameters of the function are the definitions of one pseudo
//!   instruction at the start of the entry block ([`InstKind::Params`],
//!   operands `any_def`): regalloc2 allows no value to be live into the
//!   entry, and the allocated code's parameters arrive wherever that
//!   instruction's allocations say.
//! - Every other instruction is one regalloc2 instruction with its uses
//!   (`reg_use`: the allocated code has no memory operands) and its
//!   definition (`reg_def`). A `copy` is an instruction too; it becomes a
//!   register move.
//! - Divisions: `/`, and `%` when rdx is allocatable (K ≥ 3), use x86's
//!   `idiv` directly (`mir::MInst::FixedDiv`): the dividend is a fixed use
//!   of rax, the divisor a use at the end of the instruction (so that it
//!   is in neither rax nor rdx, both written at the end), the result a
//!   fixed definition of rax (`/`) or rdx (`%`), and the other of the two
//!   registers is a clobber when it is allocatable. `%` at K = 2 is the
//!   general form (`mir::MInst::Binary`), which the x86 lowering implements
//!   by saving rax and rdx around `idiv`. This is what out-of-ssa's renaming
//!   constraints (Boissinot et al. §III-D) achieve by pinned variables.
//! - Calls, in a module with calls (`calls` below), follow the calling
//!   convention of K (`analysis/calling_convention.rs`) the way Cranelift's
//!   x64 back end hands a call to regalloc2: each argument that has an
//!   argument register is a fixed use of it (`reg_fixed_use`), each stack
//!   argument a use in any location (`any_use`, so a spilled value is
//!   pushed from its slot), the result a fixed definition of rax
//!   (`reg_fixed_def`), and every other caller-saved register a clobber.
//!   regalloc2 forbids a clobber that is also a fixed definition or a late
//!   use, so rax is left out of the clobbers (the definition covers it) and
//!   every fixed use is early (no argument register is rax). With the
//!   clobbers, regalloc2 keeps no value live across the call in a
//!   caller-saved register: it moves it to a callee-saved one or spills it.
//! - In a module with calls, every function's parameters follow the
//!   convention too: the parameters' pseudo instruction defines parameter
//!   `i` by a fixed definition of the convention's argument register `i`,
//!   and a stack parameter anywhere (`any_def`; the prologue of the x86-64
//!   lowering fetches it from the caller's stack). In a module without
//!   calls, every parameter is an `any_def`, as before the convention.
//! - Terminators: a jump is a branch with no operands and the phi
//!   arguments as block arguments; a conditional branch a branch that
//!   uses its condition (its successors have one predecessor each, so
//!   they have no block parameters); a return a return that uses its
//!   value.
//!
//! The phi annotations need the location of each block parameter on entry
//! to its block, which regalloc2's `Output` gives only as debug
//! information: each block parameter is labeled (`debug_value_labels`) over
//! the first instruction of its block, and `to_mir.rs` reads the location
//! back from `Output::debug_locations`. The allocation checker then checks
//! what the adapter concluded, like everything else.

use crate::analysis::calling_convention::CallingConvention;
use crate::entity::EntityRef;
use crate::ir::{self, BinOp, Op, Terminator, Value};
use crate::mir::{RAX, RDX};
use crate::regalloc2::env::preg;
use regalloc2::{Block, Inst, InstRange, Operand, PRegSet, RegClass, VReg};
use std::fmt::Write as _;

/// What a regalloc2 instruction stands for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InstKind {
    /// The definitions of the function's parameters (no machine code).
    Params,
    /// Instruction `index` of block `block` of the split SSA function.
    Op { block: ir::Block, index: usize },
    /// The terminator of the block.
    Term(ir::Block),
}

/// How an instruction is implemented, as far as operands go.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DivForm {
    /// Not a division, or a division in the general form.
    General,
    /// `idiv` with its fixed registers (`mir::MInst::FixedDiv`).
    Fixed,
}

/// One regalloc2 instruction.
#[derive(Clone, Debug)]
pub struct InstData {
    pub kind: InstKind,
    pub operands: Vec<Operand>,
    pub clobbers: PRegSet,
    pub div: DivForm,
}

/// One regalloc2 block.
#[derive(Clone, Debug)]
struct BlockInfo {
    insts: InstRange,
    preds: Vec<Block>,
    succs: Vec<Block>,
    params: Vec<VReg>,
    /// The block arguments of the terminator, per successor.
    args: Vec<Vec<VReg>>,
}

/// regalloc2's view of one SSA function (see the module documentation).
#[derive(Clone, Debug)]
pub struct Adapter {
    /// The SSA function after critical-edge splitting.
    pub func: ir::Function,
    /// The number of allocatable registers.
    pub k: usize,
    /// The calling convention the function follows, in a module with
    /// calls; `None` in a module without.
    pub convention: Option<CallingConvention>,
    insts: Vec<InstData>,
    /// regalloc2's blocks, in reverse post-order.
    blocks: Vec<BlockInfo>,
    /// The SSA block of each regalloc2 block.
    order: Vec<ir::Block>,
    /// The regalloc2 block of each SSA block.
    index_of: Vec<usize>,
    /// The value each value is renamed to in regalloc2's input: itself, or
    /// for a one-argument phi, its argument (transitively).
    vreg_of: Vec<u32>,
    /// The copy-canonical value of each value, for the annotations of the
    /// allocated code (`mir.rs`): through copies and one-argument phis.
    canonical: Vec<u32>,
    /// Each block parameter labeled over its block's first instruction.
    labels: Vec<(VReg, Inst, Inst, u32)>,
}

fn vreg(v: u32) -> VReg {
    VReg::new(v as usize, RegClass::Int)
}

pub use crate::error::regalloc2_errors::AdapterError;

/// Follows `step` from `v` until it stops; `limit` bounds the chain (a
/// longer one would be a cycle, which dominance rules out).
fn resolve(v: u32, limit: usize, step: impl Fn(u32) -> Option<u32>) -> Result<u32, AdapterError> {
    let mut cur = v;
    for _ in 0..=limit {
        match step(cur) {
            Some(next) => cur = next,
            None => return Ok(cur),
        }
    }
    Err(AdapterError::CopyCycle(v))
}

/// For each block of `f`, the successors that list it as a predecessor and
/// its (first) position in their lists: the index of the phi arguments it
/// passes. Looked up per edge, a search of the successor's list would be
/// quadratic in a join's predecessors.
fn pred_positions(f: &ir::Function) -> Vec<Vec<(ir::Block, usize)>> {
    let mut pred_position: Vec<Vec<(ir::Block, usize)>> = vec![Vec::new(); f.blocks.len()];
    for (s, data) in f.blocks.iter() {
        for (i, &p) in data.preds.iter().enumerate() {
            if let Some(list) = pred_position.get_mut(p.index()) {
                if !list.iter().any(|&(t, _)| t == s) {
                    list.push((s, i));
                }
            }
        }
    }
    pred_position
}

impl Adapter {
    /// Builds regalloc2's input from a verified SSA function without
    /// critical edges and without `undef`; `in_module_with_calls` says
    /// whether its module has calls, which puts its parameters and its
    /// calls under the calling convention of `k`.
    pub fn new(func: ir::Function, k: usize, in_module_with_calls: bool) -> Result<Adapter, AdapterError> {
        let has_calls = func.blocks.values().any(|b| b.insts.iter().any(|i| i.op.is_call()));
        let convention = if in_module_with_calls || has_calls {
            Some(CallingConvention::for_k(k).ok_or(AdapterError::RegisterCount(k))?)
        } else {
            None
        };
        let n = func.value_count as usize;
        // The definitions that are renamings: one-argument phis (for both
        // maps) and copies (for the annotations only).
        let mut phi_alias: Vec<Option<u32>> = vec![None; n];
        let mut copy_alias: Vec<Option<u32>> = vec![None; n];
        for (_, data) in func.blocks.iter() {
            for phi in &data.phis {
                if let [arg] = phi.args[..] {
                    phi_alias[phi.dest.index()] = Some(arg.index() as u32);
                    copy_alias[phi.dest.index()] = Some(arg.index() as u32);
                }
            }
            for inst in &data.insts {
                if let (Some(d), Op::Copy(s)) = (inst.dest, &inst.op) {
                    copy_alias[d.index()] = Some(s.index() as u32);
                }
                if inst.op == Op::Undef {
                    return Err(AdapterError::Undef);
                }
            }
        }
        let in_range =
            |v: u32| if (v as usize) < n { Ok(v) } else { Err(AdapterError::ValueOutOfRange { v, value_count: n }) };
        let mut vreg_of = Vec::with_capacity(n);
        let mut canonical = Vec::with_capacity(n);
        for v in 0..n as u32 {
            vreg_of.push(in_range(resolve(v, n, |x| phi_alias.get(x as usize).copied().flatten())?)?);
            canonical.push(in_range(resolve(v, n, |x| copy_alias.get(x as usize).copied().flatten())?)?);
        }
        let mut a = Adapter {
            func,
            k,
            convention,
            insts: Vec::new(),
            blocks: Vec::new(),
            order: Vec::new(),
            index_of: Vec::new(),
            vreg_of,
            canonical,
            labels: Vec::new(),
        };
        a.build()?;
        Ok(a)
    }

    /// The virtual register that stands for `v` in regalloc2's input.
    pub fn vreg(&self, v: Value) -> VReg {
        vreg(self.vreg_of[v.index()])
    }

    /// The copy-canonical value of `v`, which the annotations name.
    pub fn canonical(&self, v: Value) -> Value {
        Value::new(self.canonical[v.index()] as usize)
    }

    /// The instruction `i` stands for, with its operands.
    pub fn inst(&self, i: Inst) -> &InstData {
        &self.insts[i.index()]
    }

    /// The phis of `b` that are block parameters (two or more arguments).
    pub fn param_phis(&self, b: ir::Block) -> impl Iterator<Item = &ir::Phi> {
        self.func.blocks[b].phis.iter().filter(|p| p.args.len() >= 2)
    }

    fn push(&mut self, kind: InstKind, operands: Vec<Operand>, clobbers: PRegSet, div: DivForm) {
        self.insts.push(InstData { kind, operands, clobbers, div });
    }

    /// The regalloc2 block of SSA block `b`.
    pub fn r2_block(&self, b: ir::Block) -> Block {
        Block::new(self.index_of[b.index()])
    }

    /// The operands, clobbers and division form of `inst` in block `b`
    /// (the mapping of the module documentation: fixed registers for a
    /// division that uses `idiv` directly, plain uses and a definition
    /// otherwise).
    fn operands(
        &self,
        b: ir::Block,
        inst: &ir::Inst,
        rdx_allocatable: bool,
    ) -> Result<(Vec<Operand>, PRegSet, DivForm), AdapterError> {
        let (rax, rdx) = (preg(RAX), preg(RDX));
        let def = || inst.dest.map(|d| self.vreg(d)).ok_or(AdapterError::NoResult(b));
        let operands = match &inst.op {
            Op::Binary(op @ (BinOp::Div | BinOp::Rem), x, y) if *op == BinOp::Div || rdx_allocatable => {
                let (result, other) = if *op == BinOp::Div { (rax, rdx) } else { (rdx, rax) };
                let mut clobbers = PRegSet::empty();
                if *op == BinOp::Rem || rdx_allocatable {
                    clobbers.add(other);
                }
                let ops = vec![
                    Operand::reg_fixed_use(self.vreg(*x), rax),
                    Operand::reg_use_at_end(self.vreg(*y)),
                    Operand::reg_fixed_def(def()?, result),
                ];
                (ops, clobbers, DivForm::Fixed)
            }
            Op::Store { addr, value } => (
                vec![Operand::reg_use(self.vreg(*addr)), Operand::reg_use(self.vreg(*value))],
                PRegSet::empty(),
                DivForm::General,
            ),
            Op::Out(v) => (vec![Operand::reg_use(self.vreg(*v))], PRegSet::empty(), DivForm::General),
            Op::Undef => return Err(AdapterError::UndefIn(b)),
            Op::Call(call) => {
                let convention = self.convention.as_ref().ok_or(AdapterError::Call(b))?;
                let mut ops: Vec<Operand> = call
                    .args
                    .iter()
                    .enumerate()
                    .map(|(i, &a)| match convention.arg_regs.get(i) {
                        Some(&r) => Operand::reg_fixed_use(self.vreg(a), preg(r)),
                        None => Operand::any_use(self.vreg(a)),
                    })
                    .collect();
                ops.push(Operand::reg_fixed_def(def()?, preg(convention.result)));
                let mut clobbers = PRegSet::empty();
                for &r in convention.caller_saved.iter().filter(|&&r| r != convention.result) {
                    clobbers.add(preg(r));
                }
                (ops, clobbers, DivForm::General)
            }
            other => {
                let mut ops: Vec<Operand> = other.args().iter().map(|&v| Operand::reg_use(self.vreg(v))).collect();
                ops.push(Operand::reg_def(def()?));
                (ops, PRegSet::empty(), DivForm::General)
            }
        };
        Ok(operands)
    }

    fn build(&mut self) -> Result<(), AdapterError> {
        let rdx_allocatable = self.k > usize::from(RDX.0);
        let n = self.func.blocks.len();
        let f = &self.func;
        self.order = crate::analysis::dominance::reverse_postorder(n, ir::Block::new(0), |b| f.succs(b));
        if self.order.len() != n {
            return Err(AdapterError::Unreachable);
        }
        self.index_of = vec![0; n];
        for (i, &b) in self.order.iter().enumerate() {
            self.index_of[b.index()] = i;
        }
        let pred_position = pred_positions(f);
        let blocks = self.order.clone();
        for &b in &blocks {
            let start = self.insts.len();
            if b.index() == 0 && !self.func.params.is_empty() {
                let arg_regs = self.convention.as_ref().map(|c| c.arg_regs.as_slice()).unwrap_or_default();
                let ops = (self.func.params.iter().enumerate())
                    .map(|(i, &p)| match arg_regs.get(i) {
                        Some(&r) => Operand::reg_fixed_def(self.vreg(p), preg(r)),
                        None => Operand::any_def(self.vreg(p)),
                    })
                    .collect();
                self.push(InstKind::Params, ops, PRegSet::empty(), DivForm::General);
            }
            let data = self.func.blocks[b].clone();
            for (index, inst) in data.insts.iter().enumerate() {
                let kind = InstKind::Op { block: b, index };
                let (ops, clobbers, div) = self.operands(b, inst, rdx_allocatable)?;
                self.push(kind, ops, clobbers, div);
            }
            let term_ops = match data.term {
                Terminator::Jump(_) => vec![],
                Terminator::Branch { cond, .. } => vec![Operand::reg_use(self.vreg(cond))],
                Terminator::Return(v) => vec![Operand::reg_use(self.vreg(v))],
            };
            self.push(InstKind::Term(b), term_ops, PRegSet::empty(), DivForm::General);
            let end = self.insts.len();
            let succs = data.term.successors();
            if succs.len() >= 2 && succs.iter().any(|&s| self.func.blocks[s].preds.len() >= 2) {
                return Err(AdapterError::CriticalEdge(b));
            }
            let mut args = Vec::with_capacity(succs.len());
            for &s in &succs {
                let index = pred_position[b.index()]
                    .iter()
                    .find(|&&(t, _)| t == s)
                    .map(|&(_, i)| i)
                    .ok_or(AdapterError::NotAPredecessor { block: b, succ: s })?;
                let list: Vec<VReg> = self.param_phis(s).map(|p| self.vreg(p.args[index])).collect();
                args.push(list);
            }
            let params: Vec<VReg> = self.param_phis(b).map(|p| vreg(p.dest.index() as u32)).collect();
            for &p in &params {
                self.labels.push((p, Inst::new(start), Inst::new(start + 1), p.vreg() as u32));
            }
            self.blocks.push(BlockInfo {
                insts: InstRange::new(Inst::new(start), Inst::new(end)),
                preds: data.preds.iter().map(|&p| self.r2_block(p)).collect(),
                succs: succs.iter().map(|&s| self.r2_block(s)).collect(),
                params,
                args,
            });
        }
        self.labels.sort_unstable();
        Ok(())
    }

    /// regalloc2's input as text: per block its predecessors, successors
    /// and parameters, then each instruction with what it stands for, its
    /// operands, clobbers and block arguments.
    pub fn render(&self) -> String {
        let mut s = String::new();
        for (i, b) in self.blocks.iter().enumerate() {
            let list = |bs: &[Block]| bs.iter().map(|b| format!("block{}", b.index())).collect::<Vec<_>>().join(", ");
            let params: Vec<String> = b.params.iter().map(|p| p.to_string()).collect();
            let _ = writeln!(
                s,
                "block{i} = {}({}): preds [{}] succs [{}]",
                self.order[i],
                params.join(", "),
                list(&b.preds),
                list(&b.succs)
            );
            for inst in b.insts.iter() {
                let d = &self.insts[inst.index()];
                let what = match d.kind {
                    InstKind::Params => "params".to_string(),
                    InstKind::Op { block, index } => {
                        crate::ssa_text::format_inst(&self.func.blocks[block].insts[index])
                    }
                    InstKind::Term(block) => crate::ssa_text::format_terminator(&self.func.blocks[block].term),
                };
                let ops: Vec<String> = d.operands.iter().map(|o| o.to_string()).collect();
                let _ = write!(s, "  inst{}: {what:<24} [{}]", inst.index(), ops.join(", "));
                let clobbers: Vec<String> = d.clobbers.into_iter().map(|p| p.to_string()).collect();
                if !clobbers.is_empty() {
                    let _ = write!(s, " clobbers [{}]", clobbers.join(", "));
                }
                let is_last = inst == b.insts.last();
                for (succ, args) in b.succs.iter().zip(&b.args).filter(|(_, a)| is_last && !a.is_empty()) {
                    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                    let _ = write!(s, " block{}({})", succ.index(), args.join(", "));
                }
                s.push('\n');
            }
        }
        s
    }
}

impl regalloc2::Function for Adapter {
    fn num_insts(&self) -> usize {
        self.insts.len()
    }

    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    fn entry_block(&self) -> Block {
        self.r2_block(ir::Block::new(0))
    }

    fn block_insns(&self, block: Block) -> InstRange {
        self.blocks[block.index()].insts
    }

    fn block_succs(&self, block: Block) -> &[Block] {
        &self.blocks[block.index()].succs
    }

    fn block_preds(&self, block: Block) -> &[Block] {
        &self.blocks[block.index()].preds
    }

    fn block_params(&self, block: Block) -> &[VReg] {
        &self.blocks[block.index()].params
    }

    fn is_ret(&self, insn: Inst) -> bool {
        matches!(self.insts[insn.index()].kind, InstKind::Term(b) if matches!(self.func.blocks[b].term, Terminator::Return(_)))
    }

    fn is_branch(&self, insn: Inst) -> bool {
        matches!(self.insts[insn.index()].kind, InstKind::Term(b) if !matches!(self.func.blocks[b].term, Terminator::Return(_)))
    }

    fn branch_blockparams(&self, block: Block, _insn: Inst, succ_idx: usize) -> &[VReg] {
        &self.blocks[block.index()].args[succ_idx]
    }

    fn inst_operands(&self, insn: Inst) -> &[Operand] {
        &self.insts[insn.index()].operands
    }

    fn inst_clobbers(&self, insn: Inst) -> PRegSet {
        self.insts[insn.index()].clobbers
    }

    fn num_vregs(&self) -> usize {
        self.func.value_count as usize
    }

    fn debug_value_labels(&self) -> &[(VReg, Inst, Inst, u32)] {
        &self.labels
    }

    fn spillslot_size(&self, _regclass: RegClass) -> usize {
        1
    }
}
