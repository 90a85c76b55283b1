//! Register renaming constraints with pinned variables: Boissinot et al.,
//! "Revisiting Out-of-SSA Translation for Correctness, Code Quality, and
//! Efficiency" (CGO 2009), §III-D, for the two pre-colored operations of
//! the target: x86-64's `idiv`, and calls, whose arguments and result the
//! calling convention places (`analysis/calling_convention.rs`).
//!
//! Needs: a strict SSA function (before Method I). Gives: the same function
//! with the live ranges of the constrained operands split, and the
//! variables pinned to `rax`, `rdx` and the argument registers ([`Pins`]);
//! after coalescing and renaming, [`check_constraints`] checks the
//! translated (conventional) function against the constraints.
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
//!
//! # Calls
//!
//! [`split_calls`] splits a call `d = call f(a0, ..., an)` the same way:
//!
//! ```text
//! a0' = copy a0        a0' pinned to argument register 0
//! ...                  (up to the sixth argument)
//! d'  = call f(a0', ..., a5', a6, ...)   d' pinned to rax
//! d   = copy d'
//! ```
//!
//! The copies before the call are the paper's parallel copy written as a
//! sequence: each destination is a fresh variable that no later copy of the
//! sequence reads, so any order implements it. Arguments beyond the sixth
//! go on the stack at every K and are not pinned.
//!
//! The translation runs once for every K, but the convention places
//! argument `i` in a register that depends on K (`rdi` at K = 15, `rdx` at
//! K = 3, on the stack when its register is not allocatable). So a pin
//! names a *role* of the convention ([`FixedReg::Arg`]), not a register:
//! all variables pinned to argument `i` are pre-coalesced into one class,
//! as the paper does for a register, and [`FixedReg::reg_at`] gives the
//! register at each K, which the conventional allocator uses
//! (`conventional/linear_scan.rs`). Two roles that are one register at
//! some K (`rdx` and argument 0 at K = 3) are two classes; the allocator
//! spills one of them where both are live.
//!
//! A call destroys every caller-saved register, and every role is
//! caller-saved at every K where it is a register (the result register and
//! the argument registers are caller-saved: `docs/calling-convention.md`).
//! So a call clobbers every role for the variables live *across* it
//! ([`ClobberPoint::Across`]: live before and after; its arguments die at
//! it, its result starts there): no labeled class may hold a variable that
//! lives across a call.

use crate::analysis::calling_convention::CallingConvention;
use crate::analysis::liveness::{compute_liveness, live_after_each_inst, live_before_each_inst};
use crate::ir::{BinOp, Block, Call, Function, Inst, Op, Value};
use crate::mir::{Reg, RAX, RDX};
use crate::out_of_ssa::values::ValueInterference;
use std::collections::BTreeMap;

/// The number of call arguments that can be in a register at some K
/// (System V's six argument registers); the others are always on the
/// stack.
pub const PINNED_CALL_ARGUMENTS: usize = 6;

/// A register, or a role of the calling convention, a variable can be
/// pinned to (module documentation, "Calls").
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum FixedReg {
    Rax,
    Rdx,
    /// The register of call argument `i` (below [`PINNED_CALL_ARGUMENTS`]),
    /// which depends on K.
    Arg(u8),
}

impl FixedReg {
    /// Every label: rax, rdx and the argument roles.
    pub const ALL: [FixedReg; 2 + PINNED_CALL_ARGUMENTS] = [
        FixedReg::Rax,
        FixedReg::Rdx,
        FixedReg::Arg(0),
        FixedReg::Arg(1),
        FixedReg::Arg(2),
        FixedReg::Arg(3),
        FixedReg::Arg(4),
        FixedReg::Arg(5),
    ];

    /// This label's bit in a mask of labels: its position in [`Self::ALL`].
    pub fn bit(self) -> u8 {
        let i = match self {
            FixedReg::Rax => 0,
            FixedReg::Rdx => 1,
            FixedReg::Arg(i) => 2 + i,
        };
        1 << i
    }

    /// The machine register (`mir.rs` numbering) with `k` registers, or
    /// `None` when it is not allocatable (rdx at K = 2) or the argument is
    /// on the stack at `k`.
    pub fn reg_at(self, k: usize) -> Option<Reg> {
        let r = match self {
            FixedReg::Rax => RAX,
            FixedReg::Rdx => RDX,
            FixedReg::Arg(i) => *CallingConvention::for_k(k)?.arg_regs.get(usize::from(i))?,
        };
        (usize::from(r.0) < k).then_some(r)
    }

    /// The label's name: the register, or `argI`.
    pub fn name(self) -> &'static str {
        const ARGS: [&str; PINNED_CALL_ARGUMENTS] = ["arg0", "arg1", "arg2", "arg3", "arg4", "arg5"];
        match self {
            FixedReg::Rax => "rax",
            FixedReg::Rdx => "rdx",
            FixedReg::Arg(i) => ARGS.get(usize::from(i)).copied().unwrap_or("arg?"),
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

/// True when the instruction is a division or a call whose operands are
/// pinned as [`split_divisions`] and [`split_calls`] pin them: `d = a / b`
/// with `a` in rax and `d` in rax, `d = a % b` with `a` in rax and `d` in
/// rdx, or `d = call f(a0, ...)` with `d` in rax and each of the first
/// [`PINNED_CALL_ARGUMENTS`] arguments `ai` pinned to argument `i`.
pub fn is_constrained(inst: &Inst, pins: &Pins) -> bool {
    match (inst.dest, &inst.op) {
        (Some(d), Op::Binary(op @ (BinOp::Div | BinOp::Rem), a, _)) => {
            pins.get(*a) == Some(FixedReg::Rax) && pins.get(d) == Some(FixedReg::result_of(*op))
        }
        (Some(d), Op::Call(call)) => call_is_pinned(d, call, pins),
        _ => false,
    }
}

/// True when the call `d = call ...` has its result pinned to rax and each
/// of its first [`PINNED_CALL_ARGUMENTS`] arguments pinned to its role.
fn call_is_pinned(d: Value, call: &Call, pins: &Pins) -> bool {
    pins.get(d) == Some(FixedReg::Rax)
        && call
            .args
            .iter()
            .take(PINNED_CALL_ARGUMENTS)
            .enumerate()
            .all(|(i, &a)| pins.get(a) == Some(FixedReg::Arg(i as u8)))
}

/// True when the instruction is a division that [`is_constrained`].
pub fn is_constrained_division(inst: &Inst, pins: &Pins) -> bool {
    matches!(inst.op, Op::Binary(BinOp::Div | BinOp::Rem, ..)) && is_constrained(inst, pins)
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

/// Splits the live ranges of the arguments and the result of every call
/// that `pins` do not constrain yet (module documentation, "Calls"), and
/// pins the new variables in `pins`. Works on strict SSA form and on
/// conventional code alike: the new variables are fresh.
pub fn split_calls(f: &mut Function, pins: &mut Pins) {
    for b in f.blocks.keys().collect::<Vec<Block>>() {
        if !f.blocks[b].insts.iter().any(|i| i.op.is_call() && !is_constrained(i, pins)) {
            continue;
        }
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut insts = Vec::with_capacity(old.len());
        for inst in old {
            match (inst.dest, inst.op) {
                (Some(d), Op::Call(mut call)) if !call_is_pinned(d, &call, pins) => {
                    for (i, a) in call.args.iter_mut().take(PINNED_CALL_ARGUMENTS).enumerate() {
                        let a2 = f.new_value();
                        insts.push(Inst { dest: Some(a2), op: Op::Copy(*a) });
                        pins.pin(a2, FixedReg::Arg(i as u8));
                        *a = a2;
                    }
                    let d2 = f.new_value();
                    insts.push(Inst { dest: Some(d2), op: Op::Call(call) });
                    insts.push(Inst { dest: Some(d), op: Op::Copy(d2) });
                    pins.pin(d2, FixedReg::Rax);
                }
                (dest, op) => insts.push(Inst { dest, op }),
            }
        }
        f.blocks[b].insts = insts;
    }
}

/// When a clobber happens, relative to its division or call.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ClobberPoint {
    /// Just before the division (`cqo` writes rdx before `idiv` reads the
    /// divisor): the variables live into the division.
    Before,
    /// Just after the division: the variables live out of it.
    After,
    /// During a call: the variables live across it (before and after).
    Across,
}

/// A register (or role) a constrained division or call destroys (module
/// documentation).
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
            ClobberPoint::Across => live_before && live_after,
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

    /// True when there is no clobber.
    pub fn is_empty(&self) -> bool {
        self.reachable.is_empty() && self.unreachable.is_empty()
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
pub fn live_at_a_clobber(
    clobbers: &ClobberIndex,
    reg: FixedReg,
    ctx: &ValueInterference<'_>,
    mut vars: impl Iterator<Item = Value>,
) -> bool {
    !clobbers.is_empty() && vars.any(|v| live_clobber_mask(clobbers, ctx, v) & reg.bit() != 0)
}

/// The registers ([`FixedReg::bit`]) at one of whose `clobbers` the
/// variable `v` is live, by the liveness of `ctx` (the function the
/// clobbers were taken from).
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
pub fn live_clobber_mask(clobbers: &ClobberIndex, ctx: &ValueInterference<'_>, v: Value) -> u8 {
    let mask = |cs: &[Clobber]| {
        cs.iter()
            .filter(|c| c.conflicts(ctx.live_before_inst(v, c.block, c.inst), ctx.live_after_inst(v, c.block, c.inst)))
            .fold(0, |m, c| m | c.reg.bit())
    };
    let dom = ctx.dom();
    let mut m = mask(&clobbers.unreachable);
    let Some(d) = ctx.def_block(v).filter(|&d| dom.is_reachable(d)) else {
        return m | mask(&clobbers.reachable);
    };
    m |= mask(clobbers.in_block(d));
    let mut work: Vec<Block> = dom.children[d].clone();
    while let Some(b) = work.pop() {
        if ctx.live_in(v, b) {
            m |= mask(clobbers.in_block(b));
            work.extend(dom.children[b].iter().copied());
        }
    }
    m
}

/// The clobbers of every constrained division and call of `f`
/// ([`is_constrained`]).
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
/// label; every division and every call is constrained
/// ([`is_constrained`]); no constrained division has its divisor pinned to
/// rdx; no variable pinned to a register is live at a clobber of that
/// register; and no pinned variable lives across a call. The rule for
/// calls is stated here again, from the convention, rather than taken from
/// the translation's clobbers: every label is a caller-saved register at
/// every K where it is one.
pub fn check_constraints(f: &Function, pins: &Pins) -> Result<(), ConstraintError> {
    crate::pass_manager::self_checks::count();
    for r in FixedReg::ALL {
        let vars: Vec<Value> = pins.iter().filter(|&(_, p)| p == r).map(|(v, _)| v).collect();
        if vars.len() > 1 {
            return Err(ConstraintError::SharedRegister { reg: r.name(), vars });
        }
    }
    let live = compute_liveness(f);
    for (b, data) in f.blocks.iter() {
        let mut before: Option<Vec<_>> = None;
        let mut after: Option<Vec<_>> = None;
        for (i, inst) in data.insts.iter().enumerate() {
            let not_pinned = || ConstraintError::NotPinned { block: b, index: i, dest: inst.dest, op: inst.op.clone() };
            match &inst.op {
                Op::Binary(BinOp::Div | BinOp::Rem, _, divisor) => {
                    if !is_constrained(inst, pins) {
                        return Err(not_pinned());
                    }
                    if pins.get(*divisor) == Some(FixedReg::Rdx) {
                        return Err(ConstraintError::DivisorInRdx { block: b, index: i, divisor: *divisor });
                    }
                    let before = before.get_or_insert_with(|| live_before_each_inst(f, b, &live));
                    let after = after.get_or_insert_with(|| live_after_each_inst(f, b, &live));
                    for c in clobbers_at(inst, b, i) {
                        for (v, r) in pins.iter() {
                            if r == c.reg && c.conflicts(before[i].contains(v), after[i].contains(v)) {
                                return Err(ConstraintError::LiveAtClobber {
                                    block: b,
                                    index: i,
                                    value: v,
                                    reg: r.name(),
                                });
                            }
                        }
                    }
                }
                Op::Call(call) => {
                    let result_in_rax = inst.dest.is_some_and(|d| pins.get(d) == Some(FixedReg::Rax));
                    let arguments_pinned =
                        call.args.iter().take(CallingConvention::system_v().arg_regs.len()).enumerate();
                    if !result_in_rax
                        || !arguments_pinned.clone().all(|(j, &a)| pins.get(a) == Some(FixedReg::Arg(j as u8)))
                    {
                        return Err(not_pinned());
                    }
                    let before = before.get_or_insert_with(|| live_before_each_inst(f, b, &live));
                    let after = after.get_or_insert_with(|| live_after_each_inst(f, b, &live));
                    for (v, r) in pins.iter() {
                        if Some(v) != inst.dest && before[i].contains(v) && after[i].contains(v) {
                            return Err(ConstraintError::LiveAtClobber { block: b, index: i, value: v, reg: r.name() });
                        }
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// The clobbers of the constrained division or call `inst`, the `i`-th
/// instruction of `block`.
fn clobbers_at(inst: &Inst, block: Block, i: usize) -> Vec<Clobber> {
    if inst.op.is_call() {
        return FixedReg::ALL.iter().map(|&reg| Clobber { reg, block, inst: i, point: ClobberPoint::Across }).collect();
    }
    let mut out = vec![Clobber { reg: FixedReg::Rdx, block, inst: i, point: ClobberPoint::Before }];
    if matches!(inst.op, Op::Binary(BinOp::Rem, ..)) {
        out.push(Clobber { reg: FixedReg::Rax, block, inst: i, point: ClobberPoint::After });
    }
    out
}
