//! The machine engine: runs an allocated `mir::MFunction` on a model of the
//! target, `K` registers and a stack of spill slots.
//!
//! This is the oracle's view of the allocated program, so it executes the
//! instructions exactly as `src/types/mir.rs` documents them and nothing else. In
//! particular:
//!
//! * The annotations ([`ssaref_types::mir::Annot`], the phi annotations and
//!   `term_reads`) are not looked at: they do not affect execution. The
//!   phis of a block were implemented by SSA elimination as code at the end
//!   of its predecessors, and that code is what runs.
//! * Every register and every spill slot starts undefined. Parameter `i`
//!   defines `params[i].0` (with `args[i]`, or 0 for a missing argument).
//!   Transfers (`Move`, `Swap`, `Spill`, `Reload`) carry the "defined"
//!   state along with the contents, so moving an undefined location is not
//!   an error by itself; an operation or a terminator that reads an
//!   undefined location is [`InterpError::UseOfUndefinedLocation`]. A zero
//!   default would let an allocator that forgets a store or a move pass
//!   whenever the lost value happens to be 0; this way the run stops at the
//!   first use of the garbage instead.
//! * Each executed instruction and terminator costs one unit of fuel.
//!
//! Malformed input (a register count outside `MIN_REGS..=MAX_REGS`, a
//! register numbered `k` or above, a slot numbered `slot_count` or above,
//! two parameters in one location, a branch to a missing block) is reported
//! as [`InterpError::Malformed`] before the run starts, whether or not the
//! faulty instruction would be reached, and the engine never panics on it.
//! The register file is the `K` allocatable registers and nothing else, so a
//! register numbered `k` (an allocator that reserved a scratch register
//! beyond its budget) is malformed, not merely suspicious.

use ssaref_types::entity::EntityRef;
use ssaref_types::ir::{BinOp, Block};
use ssaref_types::mir::{Loc, MFunction, MInst, MTerm, MirProfile, Reg, Slot, MAX_REGS, MIN_REGS};
use ssaref_types::outcome::{End, Outcome, Trap};

use crate::machine::{check_args, InterpError, Machine};
use crate::semantics;

/// The registers and spill slots of one run; `None` is "undefined".
struct Locations {
    regs: Vec<Option<i64>>,
    slots: Vec<Option<i64>>,
}

/// Where in a block a location is read, for error messages.
#[derive(Clone, Copy)]
struct Site {
    block: Block,
    /// The instruction's index, or `None` for the terminator.
    inst: Option<usize>,
}

impl Locations {
    /// The contents of `r`, defined or not. Every register was checked
    /// against `k` before the run, so the range error cannot happen on
    /// validated input; it is reported rather than assumed.
    #[inline]
    fn reg(&self, r: Reg) -> Result<Option<i64>, InterpError> {
        self.regs.get(usize::from(r.0)).copied().ok_or_else(|| malformed(format!("register {} is out of range", r.0)))
    }

    /// The contents of `r` for an operation or a terminator, which must not
    /// read an undefined register.
    #[inline]
    fn read(&self, r: Reg, site: Site) -> Result<i64, InterpError> {
        self.reg(r)?.ok_or(InterpError::UseOfUndefinedLocation { loc: Loc::Reg(r), block: site.block, inst: site.inst })
    }

    #[inline]
    fn set_reg(&mut self, r: Reg, x: Option<i64>) -> Result<(), InterpError> {
        match self.regs.get_mut(usize::from(r.0)) {
            Some(cell) => {
                *cell = x;
                Ok(())
            }
            None => Err(malformed(format!("register {} is out of range", r.0))),
        }
    }

    #[inline]
    fn slot(&self, s: Slot) -> Result<Option<i64>, InterpError> {
        self.slots.get(s.0 as usize).copied().ok_or_else(|| malformed(format!("slot {} is out of range", s.0)))
    }

    #[inline]
    fn set_slot(&mut self, s: Slot, x: Option<i64>) -> Result<(), InterpError> {
        match self.slots.get_mut(s.0 as usize) {
            Some(cell) => {
                *cell = x;
                Ok(())
            }
            None => Err(malformed(format!("slot {} is out of range", s.0))),
        }
    }

    fn set(&mut self, loc: Loc, x: Option<i64>) -> Result<(), InterpError> {
        match loc {
            Loc::Reg(r) => self.set_reg(r, x),
            Loc::Slot(s) => self.set_slot(s, x),
        }
    }
}

/// Runs `f` with the given arguments and fuel budget.
pub(super) fn run(f: &MFunction, args: &[i64], fuel: u64) -> Result<Outcome, InterpError> {
    run_counting(f, args, fuel, &mut MirProfile::default())
}

/// Runs `f`, counting the executed instructions by kind into `profile`.
pub(super) fn run_counting(
    f: &MFunction,
    args: &[i64],
    fuel: u64,
    profile: &mut MirProfile,
) -> Result<Outcome, InterpError> {
    check_args(f.params.len(), args)?;
    let slot_table_len = validate(f)?;
    let mut locs = Locations { regs: vec![None; f.k], slots: vec![None; slot_table_len] };
    for (i, &(loc, _)) in f.params.iter().enumerate() {
        locs.set(loc, Some(args.get(i).copied().unwrap_or(0)))?;
    }
    let mut m = Machine::new(fuel);
    let mut block = Block(0);
    let end = 'run: loop {
        // `validate` checked that every branch target exists, and the entry.
        let data = f.blocks.get(block).ok_or_else(|| malformed(format!("{block} does not exist")))?;
        for (i, inst) in data.insts.iter().enumerate() {
            if !m.burn(1) {
                break 'run End::OutOfFuel;
            }
            profile.count(&inst.inst);
            let site = Site { block, inst: Some(i) };
            if let Err(trap) = exec(&inst.inst, site, &mut locs, &mut m)? {
                break 'run End::Trap(trap);
            }
        }
        if !m.burn(1) {
            break End::OutOfFuel;
        }
        profile.executed += 1;
        let site = Site { block, inst: None };
        block = match data.term {
            MTerm::Return(r) => break End::Return(locs.read(r, site)?),
            MTerm::Jump(target) => target,
            MTerm::Branch { cond, then_dest, else_dest } => {
                if locs.read(cond, site)? != 0 {
                    then_dest
                } else {
                    else_dest
                }
            }
        };
    };
    Ok(m.finish(end))
}

/// Executes one instruction. The outer error is a bug of the input; the
/// inner one is a program trap.
#[inline]
fn exec(inst: &MInst, site: Site, locs: &mut Locations, m: &mut Machine) -> Result<Result<(), Trap>, InterpError> {
    match *inst {
        MInst::Const { dst, imm } => locs.set_reg(dst, Some(imm))?,
        MInst::Unary { op, dst, src } => {
            let x = semantics::unary(op, locs.read(src, site)?);
            locs.set_reg(dst, Some(x))?;
        }
        MInst::Binary { op, dst, a, b } => {
            let (x, y) = (locs.read(a, site)?, locs.read(b, site)?);
            match semantics::binary(op, x, y) {
                Ok(z) => locs.set_reg(dst, Some(z))?,
                Err(trap) => return Ok(Err(trap)),
            }
        }
        MInst::FixedDiv { op, divisor } => {
            // x86's `cqo; idiv divisor`: the dividend is in rax; the quotient
            // goes to rax and the remainder to rdx, and the register of the
            // result not asked for is left undefined.
            let (rax, rdx) = (Reg(0), Reg(2));
            let (x, y) = (locs.read(rax, site)?, locs.read(divisor, site)?);
            match semantics::binary(op, x, y) {
                Ok(z) => {
                    let (dst, other) = if op == BinOp::Rem { (rdx, rax) } else { (rax, rdx) };
                    if usize::from(other.0) < locs.regs.len() {
                        locs.set_reg(other, None)?;
                    }
                    locs.set_reg(dst, Some(z))?;
                }
                Err(trap) => return Ok(Err(trap)),
            }
        }
        MInst::Load { dst, addr } => {
            let x = m.load(locs.read(addr, site)?);
            locs.set_reg(dst, Some(x))?;
        }
        MInst::Store { addr, src } => {
            let (a, x) = (locs.read(addr, site)?, locs.read(src, site)?);
            m.store(a, x);
        }
        MInst::Out { src } => {
            let x = locs.read(src, site)?;
            m.trace.push(x);
        }
        MInst::Move { dst, src } => {
            let x = locs.reg(src)?;
            locs.set_reg(dst, x)?;
        }
        MInst::Swap { a, b } => {
            let (x, y) = (locs.reg(a)?, locs.reg(b)?);
            locs.set_reg(a, y)?;
            locs.set_reg(b, x)?;
        }
        MInst::Spill { slot, src } => {
            let x = locs.reg(src)?;
            locs.set_slot(slot, x)?;
        }
        MInst::Reload { dst, slot } => {
            let x = locs.slot(slot)?;
            locs.set_reg(dst, x)?;
        }
    }
    Ok(Ok(()))
}

/// Checks the register count, every register, slot and branch target of
/// `f`, and that no two parameters share a location. Returns the number of
/// spill slots to allocate: one more than the largest slot named, which is
/// at most `slot_count`, so that a corrupt `slot_count` (up to `u32::MAX`)
/// does not make the oracle allocate gigabytes.
fn validate(f: &MFunction) -> Result<usize, InterpError> {
    let name = &f.name;
    if !(MIN_REGS..=MAX_REGS).contains(&f.k) {
        return Err(malformed(format!("{name} has {} registers; the target has {MIN_REGS} to {MAX_REGS}", f.k)));
    }
    if f.blocks.is_empty() {
        return Err(malformed(format!("{name} has no blocks")));
    }
    let mut slots_needed = 0usize;
    let check_reg = |r: Reg, block: Option<Block>| -> Result<(), InterpError> {
        if usize::from(r.0) < f.k {
            Ok(())
        } else {
            Err(malformed(format!(
                "{name}{}: register {} is not one of the {} allocatable registers",
                block.map(|b| format!(", {b}")).unwrap_or_default(),
                r.0,
                f.k
            )))
        }
    };
    let mut check_slot = |s: Slot, block: Option<Block>| -> Result<(), InterpError> {
        if s.0 < f.slot_count {
            slots_needed = slots_needed.max(s.0 as usize + 1);
            Ok(())
        } else {
            Err(malformed(format!(
                "{name}{}: slot {} is out of range (slot_count {})",
                block.map(|b| format!(", {b}")).unwrap_or_default(),
                s.0,
                f.slot_count
            )))
        }
    };
    for (i, &(loc, _)) in f.params.iter().enumerate() {
        match loc {
            Loc::Reg(r) => check_reg(r, None)?,
            Loc::Slot(s) => check_slot(s, None)?,
        }
        if f.params[..i].iter().any(|&(other, _)| other == loc) {
            return Err(malformed(format!(
                "{name}: parameter {i} arrives in the same location as an earlier parameter"
            )));
        }
    }
    for (b, data) in f.blocks.iter() {
        for inst in &data.insts {
            for r in inst.inst.reg_reads().into_iter().chain(inst.inst.reg_writes()) {
                check_reg(r, Some(b))?;
            }
            if let MInst::Spill { slot, .. } | MInst::Reload { slot, .. } = inst.inst {
                check_slot(slot, Some(b))?;
            }
            if let MInst::FixedDiv { op, divisor } = inst.inst {
                if !matches!(op, BinOp::Div | BinOp::Rem) {
                    return Err(malformed(format!("{name}, {b}: a fixed division by `{}`", op.mnemonic())));
                }
                if divisor == Reg(2) {
                    return Err(malformed(format!("{name}, {b}: a fixed division with its divisor in rdx")));
                }
            }
        }
        let targets = match data.term {
            MTerm::Jump(t) => vec![t],
            MTerm::Branch { cond, then_dest, else_dest } => {
                check_reg(cond, Some(b))?;
                vec![then_dest, else_dest]
            }
            MTerm::Return(r) => {
                check_reg(r, Some(b))?;
                vec![]
            }
        };
        for t in targets {
            if t.index() >= f.blocks.len() {
                return Err(malformed(format!("{name}, {b}: the terminator branches to {t}, which does not exist")));
            }
        }
    }
    Ok(slots_needed)
}

fn malformed(m: String) -> InterpError {
    InterpError::Malformed(m)
}
