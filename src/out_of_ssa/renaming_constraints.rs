//! Register renaming constraints with pinned variables: Boissinot et al.,
//! "Revisiting Out-of-SSA Translation for Correctness, Code Quality, and
//! Efficiency" (CGO 2009), §III-D, for the one pre-colored operation of
//! the target, x86-64's `idiv`.
//!
//! Needs: a strict SSA function (before Method I). Gives: the same function
//! with the live ranges of the constrained operands split, and the
//! variables pinned to `rax` and `rdx` ([`Pins`]); after coalescing and
//! renaming, [`check_constraints`] checks the translated (conventional)
//! function against the constraints.
//!
//! # The constraints of `idiv`
//!
//! `cqo; idiv r` divides `rdx:rax` by `r`: the dividend must be in `rax`,
//! the quotient comes back in `rax` and the remainder in `rdx`. `cqo`
//! overwrites `rdx` before the divisor is read, so the divisor must not be
//! in `rdx`, and no variable that lives across the division may be in
//! `rdx`; after `%`, `rax` holds the quotient, which nobody asked for, so no
//! variable that lives across a `%` may be in `rax`.
//!
//! # Pinned variables (§III-D)
//!
//! [`split_divisions`] gives every division `d = a / b` (or `%`) a short
//! pinned live range on each constrained side, with copies just before and
//! just after it:
//!
//! ```text
//! a' = copy a          a' pinned to rax
//! d' = div a', b       d' pinned to rax (`/`) or rdx (`%`)
//! d  = copy d'
//! ```
//!
//! The copies are ordinary affinities for the coalescer, "coalesced just
//! like the copies related to the φ-functions". All variables pinned to one
//! register are pre-coalesced into one congruence class labeled with the
//! register (they never intersect: each lives from its copy to its
//! division, or from its division to its copy), and two classes labeled
//! with different registers interfere.
//!
//! The paper's pinned variables model operands and results; `idiv` also
//! destroys a register as a side effect. That is modeled as a pinned
//! definition of a dead variable, a *clobber* ([`Clobber`]): before each
//! division (at `cqo`) for `rdx`, and after each `%` for `rax`. A dead
//! definition at point `p` intersects exactly the variables live at `p`,
//! whatever their value, so a class may take the label of a register only
//! if none of its members is live at a clobber of that register
//! ([`Clobber::conflicts`]). `proofs-notes/out-of-ssa.md` ("Renaming
//! constraints") argues that a translation respecting these rules can be
//! allocated with every division as a bare `cqo; idiv`.

use crate::analysis::liveness::{compute_liveness, live_after_each_inst, live_before_each_inst};
use crate::ir::{BinOp, Block, Function, Inst, Op, Value};
use crate::mir::{Reg, RAX, RDX};
use crate::out_of_ssa::values::ValueInterference;
use std::collections::BTreeMap;

/// A register a variable can be pinned to.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum FixedReg {
    Rax,
    Rdx,
}

impl FixedReg {
    /// The machine register (`mir.rs` numbering).
    pub fn reg(self) -> Reg {
        match self {
            FixedReg::Rax => RAX,
            FixedReg::Rdx => RDX,
        }
    }

    /// The register's name.
    pub fn name(self) -> &'static str {
        match self {
            FixedReg::Rax => "rax",
            FixedReg::Rdx => "rdx",
        }
    }

    /// The register `idiv` leaves the result of `op` (`/` or `%`) in.
    pub fn result_of(op: BinOp) -> FixedReg {
        if op == BinOp::Rem {
            FixedReg::Rdx
        } else {
            FixedReg::Rax
        }
    }
}

/// The variables pinned to a register.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pins {
    map: BTreeMap<Value, FixedReg>,
}

impl Pins {
    /// No variable pinned.
    pub fn none() -> Self {
        Pins::default()
    }

    /// Pins `v` to `r`.
    pub fn pin(&mut self, v: Value, r: FixedReg) {
        self.map.insert(v, r);
    }

    /// The register `v` is pinned to.
    pub fn get(&self, v: Value) -> Option<FixedReg> {
        self.map.get(&v).copied()
    }

    /// Every pinned variable, in value order.
    pub fn iter(&self) -> impl Iterator<Item = (Value, FixedReg)> + '_ {
        self.map.iter().map(|(&v, &r)| (v, r))
    }

    /// True when nothing is pinned.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The pins after renaming every variable by `rename`.
    pub fn renamed(&self, rename: impl Fn(Value) -> Value) -> Pins {
        Pins { map: self.map.iter().map(|(&v, &r)| (rename(v), r)).collect() }
    }
}

/// True when the instruction is a division whose operands are pinned as
/// [`split_divisions`] pins them: `d = a / b` with `a` in rax and `d` in
/// rax, or `d = a % b` with `a` in rax and `d` in rdx.
pub fn is_constrained(inst: &Inst, pins: &Pins) -> bool {
    match (inst.dest, &inst.op) {
        (Some(d), Op::Binary(op @ (BinOp::Div | BinOp::Rem), a, _)) => {
            pins.get(*a) == Some(FixedReg::Rax) && pins.get(d) == Some(FixedReg::result_of(*op))
        }
        _ => false,
    }
}

/// Splits the live ranges of the operands and results of every division
/// (module documentation) and returns the pinned variables. The function
/// stays in strict SSA form; the copies are single instructions, not
/// parallel copies.
pub fn split_divisions(f: &mut Function) -> Pins {
    let mut pins = Pins::none();
    for b in f.blocks.keys().collect::<Vec<Block>>() {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut insts = Vec::with_capacity(old.len());
        for inst in old {
            match (inst.dest, inst.op) {
                (Some(d), Op::Binary(op @ (BinOp::Div | BinOp::Rem), a, divisor)) => {
                    let (a2, d2) = (f.new_value(), f.new_value());
                    insts.push(Inst { dest: Some(a2), op: Op::Copy(a) });
                    // `a / a` reads the divisor from the original variable:
                    // only the dividend is pinned.
                    insts.push(Inst { dest: Some(d2), op: Op::Binary(op, a2, divisor) });
                    insts.push(Inst { dest: Some(d), op: Op::Copy(d2) });
                    pins.pin(a2, FixedReg::Rax);
                    pins.pin(d2, FixedReg::result_of(op));
                }
                (dest, op) => insts.push(Inst { dest, op }),
            }
        }
        f.blocks[b].insts = insts;
    }
    pins
}

/// When a clobber happens, relative to its division.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ClobberPoint {
    /// Just before the division (`cqo` writes rdx before `idiv` reads the
    /// divisor): the variables live into the division.
    Before,
    /// Just after the division: the variables live out of it.
    After,
}

/// A register a constrained division destroys (module documentation).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Clobber {
    pub reg: FixedReg,
    pub block: Block,
    /// The division's index in `block`.
    pub inst: usize,
    pub point: ClobberPoint,
}

impl Clobber {
    /// True when a variable that is live before (`live_before`) and after
    /// (`live_after`) the division may not be pinned to this clobber's
    /// register.
    pub fn conflicts(&self, live_before: bool, live_after: bool) -> bool {
        match self.point {
            ClobberPoint::Before => live_before,
            ClobberPoint::After => live_after,
        }
    }
}

/// The clobbers of a function, for [`live_at_a_clobber`]: those in
/// reachable blocks sorted by block, the others apart.
#[derive(Clone, Debug, Default)]
pub struct ClobberIndex {
    reachable: Vec<Clobber>,
    unreachable: Vec<Clobber>,
}

impl ClobberIndex {
    /// Indexes `clobbers` (of the function `ctx` describes).
    pub fn new(clobbers: Vec<Clobber>, ctx: &ValueInterference<'_>) -> Self {
        let (mut reachable, unreachable): (Vec<Clobber>, Vec<Clobber>) =
            clobbers.into_iter().partition(|c| ctx.dom().is_reachable(c.block));
        reachable.sort_by_key(|c| (c.block, c.inst));
        ClobberIndex { reachable, unreachable }
    }

    /// The clobbers in the reachable block `b`.
    fn in_block(&self, b: Block) -> &[Clobber] {
        let from = self.reachable.partition_point(|c| c.block < b);
        let to = self.reachable.partition_point(|c| c.block <= b);
        &self.reachable[from..to]
    }
}

/// True when one of `vars` is live at one of the `clobbers` of `reg`, by
/// the liveness of `ctx` (the function the clobbers were taken from): such
/// a variable may not join the class labeled `reg`.
///
/// A variable `v` defined in the reachable block `d` is live in another
/// block only if it is live-in there (it is not defined there), and it is
/// live-in at `b` only if it is live-in at every block between `d` and
/// `b` in the dominator tree (from `b`'s entry, a path to a use that avoids
/// `d` passes each of them: `proofs-notes/out-of-ssa.md`, "Renaming
/// constraints"). So the clobbers tested for `v` are those of `d` and of
/// the blocks found by walking down the dominator tree from `d` through the
/// blocks where `v` is live-in: the cost is `v`'s live range, not the
/// number of clobbers. Clobbers in unreachable blocks, and variables not
/// defined in a reachable block, are tested directly.
pub fn live_at_a_clobber(
    clobbers: &ClobberIndex,
    reg: FixedReg,
    ctx: &ValueInterference<'_>,
    mut vars: impl Iterator<Item = Value>,
) -> bool {
    let hit = |v: Value, c: &Clobber| {
        c.reg == reg && c.conflicts(ctx.live_before_inst(v, c.block, c.inst), ctx.live_after_inst(v, c.block, c.inst))
    };
    let dom = ctx.dom();
    vars.any(|v| {
        if clobbers.unreachable.iter().any(|c| hit(v, c)) {
            return true;
        }
        let Some(d) = ctx.def_block(v).filter(|&d| dom.is_reachable(d)) else {
            return clobbers.reachable.iter().any(|c| hit(v, c));
        };
        if clobbers.in_block(d).iter().any(|c| hit(v, c)) {
            return true;
        }
        let mut work: Vec<Block> = dom.children[d].clone();
        while let Some(b) = work.pop() {
            if ctx.live_in(v, b) {
                if clobbers.in_block(b).iter().any(|c| hit(v, c)) {
                    return true;
                }
                work.extend(dom.children[b].iter().copied());
            }
        }
        false
    })
}

/// The clobbers of every constrained division of `f` ([`is_constrained`]).
pub fn clobbers(f: &Function, pins: &Pins) -> Vec<Clobber> {
    let mut out = Vec::new();
    for (block, data) in f.blocks.iter() {
        for (index, inst) in data.insts.iter().enumerate() {
            if is_constrained(inst, pins) {
                out.extend(clobbers_at(inst, block, index));
            }
        }
    }
    out
}

pub use crate::error::out_of_ssa_errors::ConstraintError;

/// Checks a translated function (no phis; a value is a variable that may
/// be assigned several times) against the renaming constraints, with
/// liveness recomputed from scratch: at most one variable is pinned to each
/// register; every division is constrained ([`is_constrained`]); no
/// constrained division has its divisor pinned to rdx; and no variable
/// pinned to a register is live at a clobber of that register.
pub fn check_constraints(f: &Function, pins: &Pins) -> Result<(), ConstraintError> {
    crate::pass_manager::self_checks::count();
    for r in [FixedReg::Rax, FixedReg::Rdx] {
        let vars: Vec<Value> = pins.iter().filter(|&(_, p)| p == r).map(|(v, _)| v).collect();
        if vars.len() > 1 {
            return Err(ConstraintError::SharedRegister { reg: r.reg(), vars });
        }
    }
    let live = compute_liveness(f);
    for (b, data) in f.blocks.iter() {
        let mut before: Option<Vec<_>> = None;
        let mut after: Option<Vec<_>> = None;
        for (i, inst) in data.insts.iter().enumerate() {
            let Op::Binary(BinOp::Div | BinOp::Rem, _, divisor) = inst.op else { continue };
            if !is_constrained(inst, pins) {
                return Err(ConstraintError::NotPinned { block: b, index: i, dest: inst.dest, op: inst.op.clone() });
            }
            if pins.get(divisor) == Some(FixedReg::Rdx) {
                return Err(ConstraintError::DivisorInRdx { block: b, index: i, divisor });
            }
            let before = before.get_or_insert_with(|| live_before_each_inst(f, b, &live));
            let after = after.get_or_insert_with(|| live_after_each_inst(f, b, &live));
            for c in clobbers_at(inst, b, i) {
                for (v, r) in pins.iter() {
                    if r == c.reg && c.conflicts(before[i].contains(v), after[i].contains(v)) {
                        return Err(ConstraintError::LiveAtClobber { block: b, index: i, value: v, reg: r.reg() });
                    }
                }
            }
        }
    }
    Ok(())
}

/// The clobbers of the division `inst`, the `i`-th instruction of `block`.
fn clobbers_at(inst: &Inst, block: Block, i: usize) -> Vec<Clobber> {
    let mut out = vec![Clobber { reg: FixedReg::Rdx, block, inst: i, point: ClobberPoint::Before }];
    if matches!(inst.op, Op::Binary(BinOp::Rem, ..)) {
        out.push(Clobber { reg: FixedReg::Rax, block, inst: i, point: ClobberPoint::After });
    }
    out
}
