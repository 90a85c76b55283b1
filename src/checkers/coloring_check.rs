//! The checks of ssa-ra's register assignment that must not trust the
//! assignment (Pereira §4.5; Pereira and Palsberg, CC 2009, §3):
//! - **chordal optimum**: when nothing was spilled, the allocated machine
//!   code names exactly ω registers, where ω is the maximum register demand
//!   of the SSA function. The registers are counted in the MIR, not taken
//!   from the pass's count, and the demand is recomputed here from the
//!   liveness sets, not with the spiller's `block_points`;
//! - **frugal**: every phi-congruence class uses at most one spill slot. The
//!   classes are recomputed here by a union-find over the phis, not with the
//!   map the colorer used to hand out slots.
//!
//! - **pre-colored calls**: every call is the first instruction of its
//!   block with every value live at it one of the block's phis (as at a
//!   division); its register arguments are in the calling convention's
//!   argument registers, its stack arguments in memory, its result in rax,
//!   and every value live across it in a callee-saved register (Pereira
//!   §4.5: a call's clobbers are pre-colored definitions overlapping every
//!   value live across it). At a call the demand counts every
//!   caller-saved register. The convention is the shared data of
//!   `analysis/calling_convention.rs`; nothing of `ssa_ra/call_constraints.rs`.
//! - **pre-colored divisions**: at K ≥ 3 every division is x86's own
//!   (`mir::MInst::FixedDiv`): before assignment, each is the first
//!   instruction of its block and every value live at it is one of that
//!   block's phis (the splits of `ssa_ra/division_splits.rs`); after it, the
//!   dividend is in rax, the result in rax (`/`) or rdx (`%`), and the
//!   divisor and every value live across the division in neither (Pereira
//!   §4.5, "Handling Pre-colored Virtual Registers"). The register demand
//!   counts, at such a division, the register `idiv` overwrites beside its
//!   result. The liveness walk and the test of what a fixed division is are
//!   this file's own.
//!
//! Needs: the SSA function the assignment colored (after spilling) and what
//! the pass produced (the MIR, the slots); shares no code with
//! `ssa_ra/coloring.rs` or `ssa_ra/spill.rs`. `proofs-notes/register-assignment.md`
//! says why ω registers suffice.

use crate::analysis::calling_convention::CallingConvention;
use crate::analysis::liveness::compute_liveness;
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BinOp, Block, Function, Inst, Op, Value};
use crate::mir::{Loc, MFunction, MTerm, Reg, Slot, RAX, RDX};
use std::collections::BTreeSet;

/// Every register the machine code names: parameters, phi locations,
/// instruction operands and terminators.
pub fn registers_named(m: &MFunction) -> BTreeSet<Reg> {
    let mut regs = BTreeSet::new();
    let mut loc = |l: Loc| {
        if let Loc::Reg(r) = l {
            regs.insert(r);
        }
    };
    for &(l, _) in &m.params {
        loc(l);
    }
    for data in m.blocks.values() {
        for phi in &data.phis {
            loc(phi.loc);
        }
        for inst in &data.insts {
            let clobbered = inst.inst.clobbered(m.k);
            for r in inst.inst.reg_reads().into_iter().chain(inst.inst.reg_writes()).chain(clobbered) {
                loc(Loc::Reg(r));
            }
        }
        if let MTerm::Branch { cond: r, .. } | MTerm::Return(r) = data.term {
            loc(Loc::Reg(r));
        }
    }
    regs
}

/// `idiv` as ssa-ra gives it at K registers: `/` and `%` when rdx is
/// allocatable.
fn is_idiv(inst: &Inst, k: usize) -> bool {
    k >= 3 && matches!(inst.op, Op::Binary(BinOp::Div | BinOp::Rem, _, _))
}

/// What ssa-ra pins at K registers, by name: a fixed division or a call.
fn pinned_site(inst: &Inst, k: usize) -> Option<&'static str> {
    match inst.op {
        Op::Call(_) => Some("call"),
        _ => is_idiv(inst, k).then_some("division"),
    }
}

/// The registers beyond those live before or after `inst` that it needs at
/// K registers: the one a fixed division overwrites; at a call, every
/// caller-saved register is taken, by its register arguments (live before
/// it), its result (after it) or a clobber, and its stack arguments are in
/// memory.
fn clobbered_beyond_live(inst: &Inst, k: usize) -> usize {
    match &inst.op {
        Op::Call(call) => CallingConvention::for_k(k).map_or(0, |cc| {
            let in_registers = call.args.len().min(cc.arg_regs.len());
            cc.caller_saved.len().saturating_sub(in_registers.max(1))
        }),
        _ => usize::from(is_idiv(inst, k)),
    }
}

/// The maximum register demand of `f` with `k` registers: the most values
/// that are not in `spilled` and must be in registers at one point. A value
/// is counted where it is live, and a definition nobody reads still needs
/// its register right after its instruction; the phi results of a block
/// (and the parameters, in the entry) are defined together at its start. A
/// fixed division also needs the register it overwrites beside its result.
pub fn max_register_demand(f: &Function, spilled: &EntitySet<Value>, k: usize) -> usize {
    crate::pass_manager::self_checks::count();
    let live = compute_liveness(f);
    let resident = |v: Value| !spilled.contains(v);
    let mut most = 0;
    for (b, data) in f.blocks.iter() {
        let mut now: BTreeSet<Value> = live.live_out[b].iter().filter(|&v| resident(v)).collect();
        let out_size = now.len();
        if let Some(a) = data.term.arg().filter(|&a| resident(a)) {
            now.insert(a);
        }
        most = most.max(now.len()).max(out_size);
        for inst in data.insts.iter().rev() {
            let after = now.len();
            let dead_def = inst.dest.is_some_and(|d| resident(d) && !now.contains(&d));
            if let Some(d) = inst.dest {
                now.remove(&d);
            }
            inst.op.for_each_arg(|a| {
                if resident(a) {
                    now.insert(a);
                }
            });
            let clobber = clobbered_beyond_live(inst, k);
            most = most.max(now.len() + clobber).max(after + usize::from(dead_def) + clobber);
        }
        let mut start = now;
        for phi in &data.phis {
            if resident(phi.dest) {
                start.insert(phi.dest);
            }
        }
        if b == Function::ENTRY {
            start.extend(f.params.iter().copied().filter(|&p| resident(p)));
        }
        most = most.max(start.len());
    }
    most
}

/// What [`check_chordal_optimum`] or [`check_frugal`] found wrong.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ColoringCheckError {
    /// Nothing was spilled, yet the machine code names `used` registers
    /// for a maximum register demand of `demand`.
    NotOptimal { used: usize, demand: usize },
    /// `value` and `other` are joined by phis but live in different slots.
    NotFrugal { value: Value, slot: Slot, other: Value, other_slot: Slot },
    /// `value`, `role` of the `site` (a fixed division or a call) in
    /// `block`, is in `reg`.
    Precolored { value: Value, role: &'static str, reg: Option<Reg>, block: Block, site: &'static str },
    /// `value` is live at the `site` (a fixed division or a call) at `inst`
    /// of `block` but is not one of the block's phis, or the site is not the
    /// block's first instruction.
    NotSplit { value: Option<Value>, block: Block, inst: usize, site: &'static str },
}

impl std::fmt::Display for ColoringCheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ColoringCheckError::NotOptimal { used, demand } => write!(
                f,
                "nothing was spilled, yet the machine code names {used} registers for a maximum demand of {demand}"
            ),
            ColoringCheckError::NotFrugal { value, slot, other, other_slot } => {
                write!(f, "{value} and {other} are joined by phis but live in {slot} and {other_slot}: not frugal")
            }
            ColoringCheckError::Precolored { value, role, reg, block, site } => match reg {
                Some(r) => write!(f, "{value}, {role} of the {site} in {block}, is in {r}"),
                None => write!(f, "{value}, {role} of the {site} in {block}, has no register"),
            },
            ColoringCheckError::NotSplit { value: Some(v), block, inst, site } => {
                write!(f, "{v} is live at the {site} at instruction {inst} of {block} but is not a phi of {block}")
            }
            ColoringCheckError::NotSplit { value: None, block, inst, site } => {
                write!(f, "the {site} at instruction {inst} of {block} is not the first of its block")
            }
        }
    }
}

impl std::error::Error for ColoringCheckError {}

/// Checks the chordal optimum: with nothing spilled, `m` names exactly as
/// many registers as the maximum demand of `f` (see the module
/// documentation).
pub fn check_chordal_optimum(
    f: &Function,
    spilled: &EntitySet<Value>,
    m: &MFunction,
) -> Result<(), ColoringCheckError> {
    crate::pass_manager::self_checks::count();
    if !spilled.is_empty() {
        return Ok(());
    }
    let used = registers_named(m).len();
    let demand = max_register_demand(f, spilled, m.k);
    if used != demand {
        return Err(ColoringCheckError::NotOptimal { used, demand });
    }
    Ok(())
}

/// Checks frugality: the values joined by phis (a phi's result and its
/// arguments, transitively) that have a slot all have the same slot.
pub fn check_frugal(f: &Function, slot: &EntityVec<Value, Option<Slot>>) -> Result<(), ColoringCheckError> {
    crate::pass_manager::self_checks::count();
    let n = (f.value_count as usize).max(slot.len());
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for data in f.blocks.values() {
        for phi in &data.phis {
            for &a in &phi.args {
                if a.index() < n && phi.dest.index() < n {
                    let (x, y) = (root(&mut parent, a.index()), root(&mut parent, phi.dest.index()));
                    parent[x] = y;
                }
            }
        }
    }
    let mut slot_of_class: Vec<Option<(Slot, Value)>> = vec![None; n];
    for (v, s) in slot.iter() {
        let Some(s) = *s else { continue };
        let r = root(&mut parent, v.index());
        match slot_of_class[r] {
            Some((t, w)) if t != s => {
                return Err(ColoringCheckError::NotFrugal { value: v, slot: s, other: w, other_slot: t });
            }
            _ => slot_of_class[r] = Some((s, v)),
        }
    }
    Ok(())
}

/// The resident values live before and after each instruction of `b`, by a
/// walk backward from its live-out set: `(index, before, after)` for each
/// instruction `pick` accepts.
fn live_around(
    f: &Function,
    b: Block,
    live_out: impl Iterator<Item = Value>,
    resident: impl Fn(Value) -> bool,
    pick: impl Fn(&Inst) -> bool,
) -> Vec<(usize, BTreeSet<Value>, BTreeSet<Value>)> {
    let data = &f.blocks[b];
    let mut now: BTreeSet<Value> = live_out.filter(|&v| resident(v)).collect();
    now.extend(data.term.arg().filter(|&a| resident(a)));
    let mut found = Vec::new();
    for (i, inst) in data.insts.iter().enumerate().rev() {
        let after = now.clone();
        if let Some(d) = inst.dest {
            now.remove(&d);
        }
        inst.op.for_each_arg(|a| {
            if resident(a) {
                now.insert(a);
            }
        });
        if pick(inst) {
            found.push((i, now.clone(), after));
        }
    }
    found
}

/// Checks the splits at fixed divisions (module documentation): each is
/// the first instruction of its block, and every value live just before it
/// is a phi of that block.
pub fn check_divisions_split(f: &Function, k: usize) -> Result<(), ColoringCheckError> {
    crate::pass_manager::self_checks::count();
    let live = compute_liveness(f);
    for (b, data) in f.blocks.iter() {
        let phis: BTreeSet<Value> = data.phis.iter().map(|p| p.dest).collect();
        let sites = live_around(f, b, live.live_out[b].iter(), |_| true, |inst| pinned_site(inst, k).is_some());
        for (i, before, _) in sites {
            let site = pinned_site(&data.insts[i], k).unwrap_or("division");
            if i != 0 {
                return Err(ColoringCheckError::NotSplit { value: None, block: b, inst: i, site });
            }
            if let Some(&v) = before.iter().find(|v| !phis.contains(v)) {
                return Err(ColoringCheckError::NotSplit { value: Some(v), block: b, inst: i, site });
            }
        }
    }
    Ok(())
}

/// Checks the registers at every fixed division and call of `f` at `k`
/// registers (module documentation): `reg` gives each value's register,
/// `spilled` the values in memory.
pub fn check_precolored(
    f: &Function,
    spilled: &EntitySet<Value>,
    reg: &EntityVec<Value, Option<Reg>>,
    k: usize,
) -> Result<(), ColoringCheckError> {
    crate::pass_manager::self_checks::count();
    let live = compute_liveness(f);
    let resident = |v: Value| !spilled.contains(v);
    for (b, data) in f.blocks.iter() {
        let sites = live_around(f, b, live.live_out[b].iter(), resident, |inst| pinned_site(inst, k).is_some());
        for (i, before, after) in sites {
            let inst = &data.insts[i];
            let across: Vec<Value> =
                after.iter().copied().filter(|v| before.contains(v) && Some(*v) != inst.dest).collect();
            let site = pinned_site(inst, k).unwrap_or("division");
            let wrong = |value: Value, role: &'static str, ok: bool| match ok {
                true => Ok(()),
                false => Err(ColoringCheckError::Precolored { value, role, reg: reg[value], block: b, site }),
            };
            match &inst.op {
                Op::Binary(op, dividend, divisor) => {
                    let result = if *op == BinOp::Rem { RDX } else { RAX };
                    wrong(*dividend, "the dividend (rax)", reg[*dividend] == Some(RAX))?;
                    if let Some(q) = inst.dest {
                        wrong(q, "the result (rax for /, rdx for %)", reg[q] == Some(result))?;
                    }
                    let neither = |v: Value| reg[v].is_some_and(|r| r != RAX && r != RDX);
                    wrong(*divisor, "the divisor (neither rax nor rdx)", neither(*divisor))?;
                    for &v in &across {
                        wrong(v, "live across (neither rax nor rdx)", neither(v))?;
                    }
                }
                Op::Call(call) => {
                    let Some(cc) = CallingConvention::for_k(k) else { continue };
                    for (&a, &r) in call.args.iter().zip(&cc.arg_regs) {
                        wrong(a, "a register argument (its argument register)", reg[a] == Some(r))?;
                    }
                    for &a in call.args.iter().skip(cc.arg_regs.len()) {
                        wrong(a, "a stack argument (in memory)", !resident(a))?;
                    }
                    if let Some(q) = inst.dest {
                        wrong(q, "the result (rax)", reg[q] == Some(RAX))?;
                    }
                    let saved = |v: Value| reg[v].is_some_and(|r| cc.is_callee_saved(r));
                    for &v in &across {
                        wrong(v, "live across (a callee-saved register)", saved(v))?;
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}
