//! Register assignment for SSA form, after Pereira, "The Design and
//! Implementation of a SSA-based Register Allocator", §4.5: one greedy pass
//! over the dominator tree in pre-order, assigning each value a register at
//! its definition; local coalescing of copies; global coalescing by the
//! preference lists of `ComputePreference` (Fig. 6); and the handling of
//! pre-colored registers by avoidance.
//!
//! Why one pass suffices (proofs-notes/register-assignment.md): in strict
//! SSA a value's live range is a subtree of the dominator tree, so the
//! values live at a definition all interfere with each other and with the
//! new value (Pereira's Lemma 1); they form a clique, hence at most ω − 1 of
//! them, where ω is the maximum register demand, and a register among the
//! first ω is free. Choosing only among the first ω registers keeps the
//! coloring optimal: exactly ω registers when nothing was spilled.
//!
//! Pre-colored operands: x86-64 `idiv` takes its dividend in rax and
//! clobbers rdx. Following §4.5 ("avoid assigning to a virtual v any
//! physical register r if the live range of v overlaps the live range of any
//! other virtual pre-colored with r"), values live across a division prefer
//! registers other than rax and rdx, and division operands and results
//! prefer rax. This is a preference, not a constraint: the x86-64 lowering
//! preserves rax and rdx around `idiv` itself when they hold live values, so
//! correctness never depends on it, and the chordal guarantee is kept.

use crate::analysis::cssa::phi_congruence_classes;
use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::compute_liveness;
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BinOp, Function, Op, Value};
use crate::mir::{Reg, Slot};
use crate::ssa_ra::spill::{block_points, SpillResult};
use std::collections::HashMap;

/// Switches of the assignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColoringOptions {
    /// Give a copy its source's register when the source dies at it.
    pub local_coalescing: bool,
    /// Preference lists for phi-related values (`ComputePreference`).
    pub global_coalescing: bool,
    /// Keep values live across `idiv` out of rax and rdx when possible.
    pub avoid_precolored: bool,
}

impl Default for ColoringOptions {
    fn default() -> Self {
        ColoringOptions { local_coalescing: true, global_coalescing: true, avoid_precolored: true }
    }
}

/// Where every value lives.
#[derive(Clone, Debug)]
pub struct Assignment {
    /// The register of a register-resident value; for a spilled value
    /// defined by an instruction, the register its definition writes
    /// before the store.
    pub reg: EntityVec<Value, Option<Reg>>,
    /// The slot of a spilled value (one per phi-congruence class).
    pub slot: EntityVec<Value, Option<Slot>>,
    pub slot_count: u32,
    /// Number of distinct registers the assignment uses.
    pub registers_used: usize,
    /// The register limit the assignment kept to (the maximum demand ω).
    pub omega: usize,
}

pub use crate::error::ssa_ra_errors::ColoringError;

/// Values live across a division or remainder (not its operands or result).
fn live_across_division(f: &Function, spill: &SpillResult) -> EntitySet<Value> {
    let live = compute_liveness(f);
    let mut set = EntitySet::with_capacity(f.value_count as usize);
    for b in f.blocks.keys() {
        let points = block_points(f, b, &live.live_out[b], &spill.spilled);
        for p in &points {
            let Some(i) = p.inst else { continue };
            let Some(inst) = f.blocks[b].insts.get(i) else { continue };
            if matches!(inst.op, Op::Binary(BinOp::Div | BinOp::Rem, _, _)) {
                for &v in p.after.iter().filter(|v| p.before.contains(v)) {
                    if Some(v) != inst.dest && !inst.op.args().contains(&v) {
                        set.insert(v);
                    }
                }
            }
        }
    }
    set
}

/// Assigns registers (and slots to spilled values), never more than
/// `spill.max_demand` registers.
pub fn assign_registers(
    f: &Function,
    spill: &SpillResult,
    k: usize,
    opts: &ColoringOptions,
) -> Result<Assignment, ColoringError> {
    let n = f.value_count as usize;
    let omega = spill.max_demand.clamp(1, k);
    let live = compute_liveness(f);
    let dom = DomTree::compute(f);
    let across_div = if opts.avoid_precolored { live_across_division(f, spill) } else { EntitySet::with_capacity(n) };
    let mut reg: EntityVec<Value, Option<Reg>> = EntityVec::from_elem(None, n);

    // Phi relations for the preference lists: phi result <-> arguments.
    let mut phi_partners: HashMap<Value, Vec<Value>> = HashMap::new();
    for data in f.blocks.values() {
        for phi in &data.phis {
            for &a in &phi.args {
                phi_partners.entry(phi.dest).or_default().push(a);
                phi_partners.entry(a).or_default().push(phi.dest);
            }
        }
    }
    let mut division_operand: EntitySet<Value> = EntitySet::with_capacity(n);
    for data in f.blocks.values() {
        for inst in &data.insts {
            if let Op::Binary(BinOp::Div | BinOp::Rem, a, _) = inst.op {
                division_operand.insert(a);
                if let Some(d) = inst.dest {
                    division_operand.insert(d);
                }
            }
        }
    }

    let choose = |v: Value,
                  occupied: &[Option<Value>],
                  reg: &EntityVec<Value, Option<Reg>>,
                  local: Option<Reg>|
     -> Option<Reg> {
        let free: Vec<usize> = (0..omega).filter(|&r| occupied[r].is_none()).collect();
        if let Some(r) = local {
            if free.contains(&(r.0 as usize)) {
                return Some(r);
            }
        }
        let mut best: Option<(i64, usize)> = None;
        for &r in &free {
            let mut score: i64 = 0;
            if opts.global_coalescing {
                // ComputePreference: +1 per phi partner already in r.
                if let Some(ps) = phi_partners.get(&v) {
                    score += 4 * ps.iter().filter(|p| reg[**p] == Some(Reg(r as u8))).count() as i64;
                }
            }
            if opts.avoid_precolored {
                if across_div.contains(v) && (r == 0 || r == 2) {
                    score -= 2;
                }
                if division_operand.contains(v) && r == 0 {
                    score += 1;
                }
            }
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, r));
            }
        }
        best.map(|(_, r)| Reg(r as u8))
    };

    for &b in &dom.preorder {
        let points = block_points(f, b, &live.live_out[b], &spill.spilled);
        let mut occupied: Vec<Option<Value>> = vec![None; omega];
        // Values live into the block were defined in dominators: colored.
        let start = &points[0];
        for &v in &start.before {
            let r = reg[v].ok_or(ColoringError::LiveInWithoutRegister { value: v, block: b })?;
            if let Some(w) = occupied[r.0 as usize] {
                return Err(ColoringError::SharedAtStart { value: v, other: w, reg: r, block: b });
            }
            occupied[r.0 as usize] = Some(v);
        }
        // Parameters and phi results are defined at the block start.
        let mut starters: Vec<Value> = Vec::new();
        if b == Function::ENTRY {
            starters.extend(f.params.iter().copied().filter(|p| !spill.spilled.contains(*p)));
        }
        starters.extend(f.blocks[b].phis.iter().map(|p| p.dest).filter(|d| !spill.spilled.contains(*d)));
        for &d in &starters {
            let r = choose(d, &occupied, &reg, None).ok_or(ColoringError::NoRegisterAtStart {
                value: d,
                block: b,
                omega,
            })?;
            reg[d] = Some(r);
            occupied[r.0 as usize] = Some(d);
        }
        for &d in &starters {
            // A result nothing reads gives its register back at once.
            if !points.get(1).is_some_and(|p| p.before.contains(&d)) {
                occupied[reg[d].expect("just assigned").0 as usize] = None;
            }
        }
        for p in points.iter().skip(1) {
            let Some(i) = p.inst else { continue };
            let Some(inst) = f.blocks[b].insts.get(i) else { continue };
            // Operands that die here free their registers first.
            for &v in &p.before {
                if !p.after.contains(&v) {
                    if let Some(r) = reg[v] {
                        if occupied[r.0 as usize] == Some(v) {
                            occupied[r.0 as usize] = None;
                        }
                    }
                }
            }
            let Some(d) = inst.dest else { continue };
            let local = match inst.op {
                Op::Copy(s) if opts.local_coalescing && !spill.spilled.contains(s) && !p.after.contains(&s) => reg[s],
                _ => None,
            };
            let r = choose(d, &occupied, &reg, local).ok_or(ColoringError::NoRegister {
                value: d,
                block: b,
                inst: i,
                omega,
            })?;
            reg[d] = Some(r);
            if p.after.contains(&d) {
                occupied[r.0 as usize] = Some(d);
            }
        }
    }

    // Frugal slots: one per phi-congruence class that has a spilled member.
    let classes = phi_congruence_classes(f);
    let mut class_slot: HashMap<usize, Slot> = HashMap::new();
    let mut slot: EntityVec<Value, Option<Slot>> = EntityVec::from_elem(None, n);
    let mut slot_count = 0u32;
    for v in spill.spilled.iter() {
        let c = classes.class_of(v).index();
        let s = *class_slot.entry(c).or_insert_with(|| {
            slot_count += 1;
            Slot(slot_count - 1)
        });
        slot[v] = Some(s);
    }
    let mut used = vec![false; k];
    for r in reg.values().flatten() {
        used[r.0 as usize] = true;
    }
    let registers_used = used.iter().filter(|&&u| u).count();
    Ok(Assignment { reg, slot, slot_count, registers_used, omega })
}

/// Checks an assignment against the function, without trusting
/// `assign_registers`: no two values live at the same point share a
/// register (and a definition's register is free of values live after it),
/// every register-resident value has a register below K, and every spilled
/// value has a slot. Frugality and the chordal optimum are checked by
/// `checkers/coloring_check.rs`, which recounts the classes, the demand and
/// the registers without this pass's helpers (`regalloc.rs` runs it).
pub fn check_assignment(f: &Function, spill: &SpillResult, a: &Assignment, k: usize) -> Result<(), ColoringError> {
    crate::pass_manager::self_checks::count();
    let live = compute_liveness(f);
    for b in f.blocks.keys() {
        for p in block_points(f, b, &live.live_out[b], &spill.spilled) {
            for set in [&p.before, &p.after] {
                let mut seen: HashMap<Reg, Value> = HashMap::new();
                for &v in set.iter() {
                    let Some(r) = a.reg[v] else {
                        return Err(ColoringError::LiveWithoutRegister { value: v, block: b });
                    };
                    if r.0 as usize >= k {
                        return Err(ColoringError::BeyondK { value: v, reg: r, k });
                    }
                    if let Some(w) = seen.insert(r, v) {
                        return Err(ColoringError::LiveTogether { value: v, other: w, block: b, reg: r });
                    }
                }
            }
            if let Some(d) = p.inst.and_then(|i| f.blocks[b].insts.get(i)).and_then(|inst| inst.dest) {
                let Some(r) = a.reg[d] else {
                    return Err(ColoringError::DefinedWithoutRegister { value: d, block: b });
                };
                if let Some(&w) = p.after.iter().find(|&&w| w != d && a.reg[w] == Some(r)) {
                    return Err(ColoringError::Overwrites { value: d, reg: r, block: b, holds: w });
                }
            }
        }
    }
    for v in spill.spilled.iter() {
        if a.slot[v].is_none() {
            return Err(ColoringError::SpilledWithoutSlot(v));
        }
    }
    Ok(())
}
