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
//! Pre-colored operands: x86-64 `idiv` takes its dividend in rax, leaves
//! its result in rax (`/`) or rdx (`%`) and overwrites the other. At K ≥ 3
//! every division is a fixed division (`division_splits.rs`), and §4.5's
//! rule ("avoid assigning to a virtual v any physical register r if the
//! live range of v overlaps the live range of any other virtual pre-colored
//! with r") is a constraint ([`Precolors`]): the dividend and the result
//! get their registers, and the divisor and every value live across the
//! division get neither rax nor rdx. After the splits, every value live at
//! a fixed division is defined at the start of its block or by a reload
//! just before it, where all of them are colored together, the pre-colored
//! ones first, so the rule is tested at the definitions themselves
//! (`proofs-notes/precolored-division.md` says why a register is always
//! left). At K = 2 `%` is not a fixed division (rdx is not allocatable),
//! and the rule is only a preference: values live across a division prefer
//! registers other than rax, and division operands and results prefer rax,
//! since the x86-64 lowering preserves rax and rdx around `idiv` itself.
//!
//! Calls are pre-colored the same way (`call_constraints.rs`, `precolors.rs`):
//! the register arguments in the argument registers, the result in rax,
//! and every value live across a call in a callee-saved register, since
//! its clobbers are pre-colored definitions that overlap it
//! (`proofs-notes/precolored-calls.md`). A function with calls chooses
//! among all K registers.

use crate::analysis::cssa::phi_congruence_classes;
use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::compute_liveness;
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BinOp, Block, Function, Op, Value};
use crate::mir::{Reg, Slot, RAX, RDX};
use crate::ssa_ra::call_constraints::is_call;
use crate::ssa_ra::precolors::Precolors;
use crate::ssa_ra::spill::{block_points, Point, SpillResult};
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

/// The weight of one phi partner already in a register. `ComputePreference`
/// (Pereira, Fig. 6) adds 1 per partner; here a partner adds 4, so that one
/// partner outweighs both pre-coloring terms together
/// ([`ACROSS_DIVISION_PENALTY`] and [`DIVISION_OPERAND_BONUS`]): the
/// preference list decides, and the avoidance of pre-colored registers only
/// breaks its ties. Among partners the order is the paper's, since every
/// partner adds the same weight.
const PHI_PARTNER_WEIGHT: i64 = 4;
/// What a value live across a division loses in rax or rdx, the registers
/// `idiv` writes (Pereira §4.5, "Handling Pre-colored Virtual Registers").
const ACROSS_DIVISION_PENALTY: i64 = 2;
/// What a division's dividend or result gains in rax, where `idiv` takes
/// the one and leaves the other.
const DIVISION_OPERAND_BONUS: i64 = 1;

/// Values live across a division or remainder (not its operands or result).
fn live_across_division(f: &Function, spill: &SpillResult, k: usize) -> EntitySet<Value> {
    let live = compute_liveness(f);
    let mut set = EntitySet::with_capacity(f.value_count as usize);
    for b in f.blocks.keys() {
        let points = block_points(f, b, &live.live_out[b], &spill.spilled, k);
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

/// The phi relations of the preference lists: a phi's result with each of
/// its arguments, both ways, once per occurrence.
fn phi_partners(f: &Function) -> HashMap<Value, Vec<Value>> {
    let mut partners: HashMap<Value, Vec<Value>> = HashMap::new();
    for data in f.blocks.values() {
        for phi in &data.phis {
            for &a in &phi.args {
                partners.entry(phi.dest).or_default().push(a);
                partners.entry(a).or_default().push(phi.dest);
            }
        }
    }
    partners
}

/// The dividends and results of divisions and remainders.
fn division_operands(f: &Function) -> EntitySet<Value> {
    let mut set: EntitySet<Value> = EntitySet::with_capacity(f.value_count as usize);
    for data in f.blocks.values() {
        for inst in &data.insts {
            if let Op::Binary(BinOp::Div | BinOp::Rem, a, _) = inst.op {
                set.insert(a);
                if let Some(d) = inst.dest {
                    set.insert(d);
                }
            }
        }
    }
    set
}

/// The choice of a register at a definition: the local-coalescing register
/// when it is free, else the free register among the first ω with the best
/// score, the lowest on a tie.
struct Chooser<'a> {
    omega: usize,
    opts: &'a ColoringOptions,
    phi_partners: HashMap<Value, Vec<Value>>,
    across_div: EntitySet<Value>,
    division_operand: EntitySet<Value>,
    precolors: Precolors,
}

impl Chooser<'_> {
    fn choose(
        &self,
        v: Value,
        occupied: &[Option<Value>],
        reg: &EntityVec<Value, Option<Reg>>,
        local: Option<Reg>,
    ) -> Option<Reg> {
        let free: Vec<usize> =
            (0..self.omega).filter(|&r| occupied[r].is_none() && self.precolors.allows(v, Reg(r as u8))).collect();
        if let Some(r) = local {
            if free.contains(&(r.0 as usize)) {
                return Some(r);
            }
        }
        let mut best: Option<(i64, usize)> = None;
        for &r in &free {
            let score = self.score(v, Reg(r as u8), reg);
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, r));
            }
        }
        best.map(|(_, r)| Reg(r as u8))
    }

    /// How much `v` wants `r`: its preference-list entry, weighted, and the
    /// pre-coloring terms.
    fn score(&self, v: Value, r: Reg, reg: &EntityVec<Value, Option<Reg>>) -> i64 {
        let mut score: i64 = 0;
        if self.opts.global_coalescing {
            // ComputePreference (Fig. 6): p[r] := p[r] + 1 for each phi
            // partner of v whose location is r, here weighted.
            if let Some(ps) = self.phi_partners.get(&v) {
                score += PHI_PARTNER_WEIGHT * ps.iter().filter(|p| reg[**p] == Some(r)).count() as i64;
            }
        }
        if self.opts.avoid_precolored {
            if self.across_div.contains(v) && (r == RAX || r == RDX) {
                score -= ACROSS_DIVISION_PENALTY;
            }
            if self.division_operand.contains(v) && r == RAX {
                score += DIVISION_OPERAND_BONUS;
            }
        }
        score
    }
}

/// Assigns registers (and slots to spilled values), never more than
/// `spill.max_demand` registers.
pub fn assign_registers(
    f: &Function,
    spill: &SpillResult,
    k: usize,
    opts: &ColoringOptions,
) -> Result<Assignment, ColoringError> {
    assign_registers_with_convention(f, spill, k, opts, false)
}

/// [`assign_registers`] for a function of a module with calls when
/// `convention_params`, whose register parameters arrive in the argument
/// registers (`call_constraints.rs`). A function with calls, or with parameters
/// under the convention, may use any of the K registers: its pre-colored
/// registers need not be among the first ω, and Pereira's report claims
/// the greedy optimum only without pre-colored registers (§4.5).
pub fn assign_registers_with_convention(
    f: &Function,
    spill: &SpillResult,
    k: usize,
    opts: &ColoringOptions,
    convention_params: bool,
) -> Result<Assignment, ColoringError> {
    let n = f.value_count as usize;
    let pinned = (convention_params && !f.params.is_empty())
        || f.blocks.values().any(|b| b.insts.iter().any(|i| is_call(&i.op)));
    let omega = if pinned { k } else { spill.max_demand.clamp(1, k) };
    let live = compute_liveness(f);
    let dom = DomTree::compute(f);
    // The preferences of the general division, at K = 2 only.
    let general_divisions = opts.avoid_precolored && k <= usize::from(RDX.0);
    let across_div = if general_divisions { live_across_division(f, spill, k) } else { EntitySet::with_capacity(n) };
    let division_operand = if general_divisions { division_operands(f) } else { EntitySet::with_capacity(n) };
    let precolors = Precolors::of(f, spill, k, convention_params);
    let chooser = Chooser { omega, opts, phi_partners: phi_partners(f), across_div, division_operand, precolors };
    let mut reg: EntityVec<Value, Option<Reg>> = EntityVec::from_elem(None, n);
    // One pass over the dominator tree in pre-order: every value live into
    // a block was defined in a dominator, so it already has its register.
    for &b in &dom.preorder {
        let points = block_points(f, b, &live.live_out[b], &spill.spilled, k);
        color_block(f, spill, b, &points, &chooser, &mut reg)?;
    }
    let (slot, slot_count) = frugal_slots(f, spill);
    let mut used = vec![false; k];
    for r in reg.values().flatten() {
        used[r.0 as usize] = true;
    }
    let registers_used = used.iter().filter(|&&u| u).count();
    Ok(Assignment { reg, slot, slot_count, registers_used, omega })
}

/// Colors the definitions of block `b`, whose program points are `points`,
/// given the registers of the values live into it.
fn color_block(
    f: &Function,
    spill: &SpillResult,
    b: Block,
    points: &[Point],
    chooser: &Chooser<'_>,
    reg: &mut EntityVec<Value, Option<Reg>>,
) -> Result<(), ColoringError> {
    let omega = chooser.omega;
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
    // The pre-colored values take their registers first.
    starters.sort_by_key(|d| !chooser.precolors.required.contains_key(d));
    for &d in &starters {
        let r = chooser.choose(d, &occupied, reg, None).ok_or(ColoringError::NoRegisterAtStart {
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
        // Local coalescing: a copy takes its source's register when the
        // source dies at it.
        let local = match inst.op {
            Op::Copy(s) if chooser.opts.local_coalescing && !spill.spilled.contains(s) && !p.after.contains(&s) => {
                reg[s]
            }
            _ => None,
        };
        let r = chooser.choose(d, &occupied, reg, local).ok_or(ColoringError::NoRegister {
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
    Ok(())
}

/// Frugal slots: one per phi-congruence class that has a spilled member.
fn frugal_slots(f: &Function, spill: &SpillResult) -> (EntityVec<Value, Option<Slot>>, u32) {
    let classes = phi_congruence_classes(f);
    let mut class_slot: HashMap<usize, Slot> = HashMap::new();
    let mut slot: EntityVec<Value, Option<Slot>> = EntityVec::from_elem(None, f.value_count as usize);
    let mut slot_count = 0u32;
    for v in spill.spilled.iter() {
        let c = classes.class_of(v).index();
        let s = *class_slot.entry(c).or_insert_with(|| {
            slot_count += 1;
            Slot(slot_count - 1)
        });
        slot[v] = Some(s);
    }
    (slot, slot_count)
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
        for p in block_points(f, b, &live.live_out[b], &spill.spilled, k) {
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
