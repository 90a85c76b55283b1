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
//! * A call (`MInst::Call`) runs its callee in fresh locations, as
//!   `run_counting` says, modelling the calling convention
//!   (docs/calling-convention.md; the oracle's own statement of it is
//!   `convention.rs`): a caller-saved register other than `rax` holds no
//!   value after a call, so an allocation that keeps a value there across
//!   the call fails at the first use, and the callee-saved registers and
//!   the spill slots are what the callee's prologue and epilogue, and its
//!   own frame, make them in machine code: unchanged.
//!
//! Malformed input (a register count outside `MIN_REGS..=MAX_REGS`, a
//! register numbered `k` or above, a slot numbered `slot_count` or above,
//! two parameters in one location, a branch to a missing block, a call of
//! a missing function or with the wrong number of arguments, and in a
//! module with calls an argument or a parameter outside the convention's
//! argument register) is reported
//! as [`InterpError::Malformed`] before the run starts, whether or not the
//! faulty instruction would be reached, and the engine never panics on it.
//! The register file is the `K` allocatable registers and nothing else, so a
//! register numbered `k` (an allocator that reserved a scratch register
//! beyond its budget) is malformed, not merely suspicious.

use ssaref_types::ast::MAX_CALL_DEPTH;
use ssaref_types::entity::EntityRef;
use ssaref_types::ir::{BinOp, Block};
use ssaref_types::mir::{Loc, MFunction, MInst, MModule, MTerm, MirProfile, Reg, Slot, MAX_REGS, MIN_REGS, RAX};
use ssaref_types::outcome::{End, Outcome, Trap};
use std::collections::HashMap;

use crate::convention;
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

    /// The contents of `l` for a call argument, which must be defined.
    fn read_loc(&self, l: Loc, site: Site) -> Result<i64, InterpError> {
        let x = match l {
            Loc::Reg(r) => self.reg(r)?,
            Loc::Slot(s) => self.slot(s)?,
        };
        x.ok_or(InterpError::UseOfUndefinedLocation { loc: l, block: site.block, inst: site.inst })
    }

    fn set(&mut self, loc: Loc, x: Option<i64>) -> Result<(), InterpError> {
        match loc {
            Loc::Reg(r) => self.set_reg(r, x),
            Loc::Slot(s) => self.set_slot(s, x),
        }
    }
}

/// Runs `main` of `module` with the given arguments and fuel budget.
pub(super) fn run(module: &MModule, main: &MFunction, args: &[i64], fuel: u64) -> Result<Outcome, InterpError> {
    run_counting(module, main, args, fuel, &mut MirProfile::default())
}

/// A suspended caller: its function, registers and slots, and where it
/// goes on when the callee returns.
struct Frame<'a> {
    f: &'a MFunction,
    locs: Locations,
    block: Block,
    next_inst: usize,
}

/// The fresh locations of an activation of `f`: every register and slot
/// undefined but the parameters', which hold `args` (0 for a missing one).
fn activation(f: &MFunction, slots: usize, args: &[i64]) -> Result<Locations, InterpError> {
    let mut locs = Locations { regs: vec![None; f.k], slots: vec![None; slots] };
    for (i, &(loc, _)) in f.params.iter().enumerate() {
        locs.set(loc, Some(args.get(i).copied().unwrap_or(0)))?;
    }
    Ok(locs)
}

/// Runs `main` of `module`, counting the executed instructions by kind
/// into `profile`. One fuel budget covers the whole call tree; a call
/// deeper than [`MAX_CALL_DEPTH`] ends the run with
/// [`End::CallDepthExceeded`]. A call reads its arguments from their
/// locations in the caller and writes them into the callee's parameter
/// locations in fresh locations; when the callee returns, the caller's
/// callee-saved registers and slots are as they were, its other
/// caller-saved registers are undefined, and `rax` holds the result.
pub(super) fn run_counting(
    module: &MModule,
    main: &MFunction,
    args: &[i64],
    fuel: u64,
    profile: &mut MirProfile,
) -> Result<Outcome, InterpError> {
    check_args(main.params.len(), args)?;
    let (functions, slot_table_lens) = validate_module(module)?;
    let index_of = |f: &MFunction| functions.get(f.name.as_str()).copied().unwrap_or(0);
    let mut f = main;
    let mut locs = activation(f, slot_table_lens[index_of(f)], args)?;
    let mut callers: Vec<Frame<'_>> = Vec::new();
    let mut m = Machine::new(fuel);
    let mut block = Block(0);
    let mut next_inst = 0usize;
    let end = 'run: loop {
        // `validate` checked that every branch target exists, and the entry.
        let data = f.blocks.get(block).ok_or_else(|| malformed(format!("{block} does not exist")))?;
        while let Some(inst) = data.insts.get(next_inst) {
            let site = Site { block, inst: Some(next_inst) };
            next_inst += 1;
            if !m.burn(1) {
                break 'run End::OutOfFuel;
            }
            profile.count(&inst.inst);
            if let MInst::Call(call) = &inst.inst {
                if callers.len() + 1 >= MAX_CALL_DEPTH {
                    break 'run End::CallDepthExceeded;
                }
                // `validate_module` checked that the callee exists.
                let index = functions.get(call.callee.as_str()).copied().unwrap_or(0);
                let callee = &module.functions[index];
                let values = call.args.iter().map(|&l| locs.read_loc(l, site)).collect::<Result<Vec<_>, _>>()?;
                let callee_locs = activation(callee, slot_table_lens[index], &values)?;
                let caller_locs = std::mem::replace(&mut locs, callee_locs);
                callers.push(Frame { f, locs: caller_locs, block, next_inst });
                (f, block, next_inst) = (callee, Block(0), 0);
                continue 'run;
            }
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
            MTerm::Return(r) => {
                let returned = locs.read(r, site)?;
                let Some(caller) = callers.pop() else {
                    break End::Return(returned);
                };
                (f, locs, block, next_inst) = (caller.f, caller.locs, caller.block, caller.next_inst);
                for i in 0..locs.regs.len() {
                    if !convention::is_callee_saved(Reg(i as u8)) {
                        locs.regs[i] = None;
                    }
                }
                locs.set_reg(RAX, Some(returned))?;
                continue;
            }
            MTerm::Jump(target) => target,
            MTerm::Branch { cond, then_dest, else_dest } => {
                if locs.read(cond, site)? != 0 {
                    then_dest
                } else {
                    else_dest
                }
            }
        };
        next_inst = 0;
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
        // `run_counting` runs calls itself.
        MInst::Call(_) => return Err(malformed("a call outside the engine's loop".to_string())),
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
            if let MInst::Call(call) = &inst.inst {
                for &l in &call.args {
                    if let Loc::Slot(s) = l {
                        check_slot(s, Some(b))?;
                    }
                }
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

/// Validates every function of `module` (`validate`), and in a module
/// with calls, every call and parameter against the calling convention:
/// the callee exists with as many parameters as the call has arguments and
/// the same `K`, and the first arguments and parameters are in the
/// convention's argument registers. Returns each function's index by name
/// and the number of slots of each.
fn validate_module(module: &MModule) -> Result<(HashMap<&str, usize>, Vec<usize>), InterpError> {
    let mut functions = HashMap::new();
    let mut slots = Vec::with_capacity(module.functions.len());
    for (i, f) in module.functions.iter().enumerate() {
        slots.push(validate(f)?);
        if functions.insert(f.name.as_str(), i).is_some() {
            return Err(malformed(format!("two functions are named {}", f.name)));
        }
    }
    let calls = module
        .functions
        .iter()
        .flat_map(|f| f.blocks.values().flat_map(move |d| d.insts.iter().map(move |i| (f, &i.inst))));
    let mut has_calls = false;
    for (f, inst) in calls {
        let MInst::Call(call) = inst else { continue };
        has_calls = true;
        let callee = functions.get(call.callee.as_str()).map(|&i| &module.functions[i]);
        let callee =
            callee.ok_or_else(|| malformed(format!("{} calls {}, which does not exist", f.name, call.callee)))?;
        if callee.params.len() != call.args.len() || callee.k != f.k {
            return Err(malformed(format!(
                "{} calls {} with {} arguments at K = {}; it has {} parameters at K = {}",
                f.name,
                callee.name,
                call.args.len(),
                f.k,
                callee.params.len(),
                callee.k
            )));
        }
        in_argument_registers(&f.name, "argument", f.k, &call.args)?;
    }
    if has_calls {
        for f in &module.functions {
            let params: Vec<Loc> = f.params.iter().map(|&(l, _)| l).collect();
            in_argument_registers(&f.name, "parameter", f.k, &params)?;
        }
    }
    Ok((functions, slots))
}

/// Fails unless the first of `locs` (arguments of a call or parameters of
/// `name`) are the convention's argument registers at `k`.
fn in_argument_registers(name: &str, what: &str, k: usize, locs: &[Loc]) -> Result<(), InterpError> {
    for (i, (&l, r)) in locs.iter().zip(convention::argument_registers(k)).enumerate() {
        if l != Loc::Reg(r) {
            return Err(malformed(format!(
                "{name}: {what} {i} is in {l}; the calling convention at K = {k} puts it in {r}"
            )));
        }
    }
    Ok(())
}

fn malformed(m: String) -> InterpError {
    InterpError::Malformed(m)
}
