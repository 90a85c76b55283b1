//! The SSA engine: runs an `ir::Function` directly, block by block.
//!
//! Values live in a dense table indexed by value number, sized
//! `value_count`. A slot is empty until a parameter, phi or instruction
//! defining it runs, and reading an empty slot is
//! [`InterpError::UseOfUndefinedValue`]: a dynamic check that every executed
//! use is preceded by a definition on the path taken, which a correct SSA
//! construction guarantees.
//!
//! Phis are parallel copies on the incoming edge. Taking the edge from `P`
//! to `B` selects argument `i` of every phi of `B`, where `B.preds[i]` is
//! that edge: the first occurrence of `P` in `B.preds` for a jump or a
//! then-edge, the second one for the else-edge of a `br c, B, B`. All the
//! selected arguments are read before any phi destination is written.
//!
//! Malformed input (a missing block, a value number out of range, a phi
//! whose arity differs from its block's predecessor count, an edge missing
//! from the predecessor list of a block with phis, an instruction whose
//! destination does not match its operation) is reported as
//! [`InterpError::Malformed`] when execution reaches it; the engine never
//! panics on it.

use std::collections::HashMap;

use ssaref_types::ast::MAX_CALL_DEPTH;
use ssaref_types::entity::EntityRef;
use ssaref_types::ir::{Block, Call, Function, Inst, Module, Op, Terminator, Value};
use ssaref_types::oracle::SsaProfile;
use ssaref_types::outcome::{End, Outcome, Trap};

use crate::machine::{check_args, InterpError, Machine};
use crate::semantics;

/// The value table of one run.
struct Values {
    slots: Vec<Option<i64>>,
    /// The function's `value_count`, for error messages.
    value_count: u32,
}

impl Values {
    /// Reads `v` for a use in `block`.
    #[inline]
    fn get(&self, v: Value, block: Block) -> Result<i64, InterpError> {
        match self.slots.get(v.index()) {
            Some(Some(x)) => Ok(*x),
            Some(None) => Err(InterpError::UseOfUndefinedValue { value: v, block }),
            None => Err(self.out_of_range(v)),
        }
    }

    /// Defines `v`.
    #[inline]
    fn set(&mut self, v: Value, x: i64) -> Result<(), InterpError> {
        match self.slots.get_mut(v.index()) {
            Some(slot) => {
                *slot = Some(x);
                Ok(())
            }
            None => Err(self.out_of_range(v)),
        }
    }

    #[cold]
    fn out_of_range(&self, v: Value) -> InterpError {
        InterpError::Malformed(format!("{v} is out of range (value_count {})", self.value_count))
    }
}

/// Runs `main` of `module` with the given arguments and fuel budget.
pub(super) fn run(module: &Module, main: &Function, args: &[i64], fuel: u64) -> Result<Outcome, InterpError> {
    run_counting(module, main, args, fuel, &mut SsaProfile::default())
}

/// A suspended caller: its function, its values, where it resumes, and the
/// value its call defines.
struct Frame<'f> {
    f: &'f Function,
    values: Values,
    block: Block,
    next_inst: usize,
    dest: Value,
}

/// The value table of a function entered with `args`, its parameters set.
fn entry_values(f: &Function, args: &[i64]) -> Result<Values, InterpError> {
    let mut values = Values { slots: vec![None; table_len(f)], value_count: f.value_count };
    for (i, &p) in f.params.iter().enumerate() {
        values.set(p, args.get(i).copied().unwrap_or(0))?;
    }
    match f.blocks.get(Function::ENTRY) {
        None => Err(malformed(format!("{} has no blocks", f.name))),
        Some(entry) if !entry.phis.is_empty() => {
            Err(malformed(format!("the entry block {} of {} has phis", Function::ENTRY, f.name)))
        }
        Some(_) => Ok(values),
    }
}

/// Runs `main` of `module` like [`run`], counting executed instructions
/// and copies in `profile`. One fuel budget covers the whole call tree; a
/// call deeper than [`MAX_CALL_DEPTH`] ends the run with
/// [`End::CallDepthExceeded`].
pub(super) fn run_counting(
    module: &Module,
    main: &Function,
    args: &[i64],
    fuel: u64,
    profile: &mut SsaProfile,
) -> Result<Outcome, InterpError> {
    check_args(main.params.len(), args)?;
    let functions: HashMap<&str, &Function> = module.functions.iter().map(|f| (f.name.as_str(), f)).collect();
    let mut f = main;
    let mut values = entry_values(f, args)?;
    let mut callers: Vec<Frame<'_>> = Vec::new();
    let mut m = Machine::new(fuel);
    let mut block = Function::ENTRY;
    let mut next_inst = 0usize;
    // Reused for every parallel copy, so that taking an edge allocates
    // nothing once the buffer has grown to the largest phi count.
    let mut incoming: Vec<i64> = Vec::new();
    let end = 'run: loop {
        // Every block reached here was looked up when its edge was taken.
        let data = f.blocks.get(block).ok_or_else(|| missing_block(block))?;
        while let Some(inst) = data.insts.get(next_inst) {
            next_inst += 1;
            if !m.burn(1) {
                break 'run End::OutOfFuel;
            }
            profile.insts += 1;
            profile.copies += u64::from(matches!(inst.op, Op::Copy(_)));
            if let Op::Call(call) = &inst.op {
                if callers.len() + 1 >= MAX_CALL_DEPTH {
                    break 'run End::CallDepthExceeded;
                }
                let (callee, callee_values, dest) = enter(&functions, call, inst, block, &values)?;
                let caller_values = std::mem::replace(&mut values, callee_values);
                callers.push(Frame { f, values: caller_values, block, next_inst, dest });
                (f, block, next_inst) = (callee, Function::ENTRY, 0);
                continue 'run;
            }
            if let Err(trap) = exec(inst, block, &mut values, &mut m)? {
                break 'run End::Trap(trap);
            }
        }
        if !m.burn(1) {
            break End::OutOfFuel;
        }
        // The successor and which occurrence of `block` in its `preds` the
        // edge taken is.
        let (target, occurrence) = match data.term {
            Terminator::Return(v) => {
                let returned = values.get(v, block)?;
                let Some(caller) = callers.pop() else {
                    break End::Return(returned);
                };
                (f, values, block, next_inst) = (caller.f, caller.values, caller.block, caller.next_inst);
                values.set(caller.dest, returned)?;
                continue;
            }
            Terminator::Jump(target) => (target, 0),
            Terminator::Branch { cond, then_dest, else_dest } => {
                if values.get(cond, block)? != 0 {
                    (then_dest, 0)
                } else {
                    (else_dest, usize::from(then_dest == else_dest))
                }
            }
        };
        let next = f
            .blocks
            .get(target)
            .ok_or_else(|| malformed(format!("{block} branches to {target}, which does not exist")))?;
        if !next.phis.is_empty() {
            let edge = next
                .preds
                .iter()
                .enumerate()
                .filter(|&(_, &p)| p == block)
                .nth(occurrence)
                .map(|(i, _)| i)
                .ok_or_else(|| {
                    malformed(format!(
                        "the edge {block} -> {target} (occurrence {occurrence}) is missing from the \
                         predecessors of {target}"
                    ))
                })?;
            if !m.burn(next.phis.len() as u64) {
                break End::OutOfFuel;
            }
            incoming.clear();
            for phi in &next.phis {
                if phi.args.len() != next.preds.len() {
                    return Err(malformed(format!(
                        "the phi defining {} in {target} has {} arguments for {} predecessors",
                        phi.dest,
                        phi.args.len(),
                        next.preds.len()
                    )));
                }
                incoming.push(values.get(phi.args[edge], target)?);
            }
            for (phi, &x) in next.phis.iter().zip(&incoming) {
                values.set(phi.dest, x)?;
            }
        }
        (block, next_inst) = (target, 0);
    };
    Ok(m.finish(end))
}

/// The callee of the call `inst` in `block`, its value table with the
/// arguments read from `values`, and the value the call defines.
fn enter<'f>(
    functions: &HashMap<&str, &'f Function>,
    call: &Call,
    inst: &Inst,
    block: Block,
    values: &Values,
) -> Result<(&'f Function, Values, Value), InterpError> {
    let callee = *functions
        .get(call.callee.as_str())
        .ok_or_else(|| malformed(format!("{block} calls `{}`, which is not in the module", call.callee)))?;
    if callee.params.len() != call.args.len() {
        return Err(malformed(format!(
            "{block} calls `{}` with {} argument(s), but it has {} parameter(s)",
            call.callee,
            call.args.len(),
            callee.params.len()
        )));
    }
    let dest = inst.dest.ok_or_else(|| malformed(format!("a call in {block} has no destination")))?;
    let args = call.args.iter().map(|&a| values.get(a, block)).collect::<Result<Vec<_>, _>>()?;
    Ok((callee, entry_values(callee, &args)?, dest))
}

/// Above this `value_count`, the table is sized by the values the function
/// actually mentions instead, so that a corrupt `value_count` (up to
/// `u32::MAX`) does not make the oracle allocate gigabytes and abort.
const LARGE_VALUE_COUNT: u32 = 1 << 20;

/// The size of the value table: `value_count`, unless that is suspiciously
/// large. Every value the function mentions and `value_count` covers gets a
/// slot either way, so the outcome does not depend on the choice.
fn table_len(f: &Function) -> usize {
    if f.value_count <= LARGE_VALUE_COUNT {
        return f.value_count as usize;
    }
    let mut max = f.params.iter().map(|p| p.index() + 1).max().unwrap_or(0);
    let mut see = |v: Value| max = max.max(v.index() + 1);
    for data in f.blocks.values() {
        for phi in &data.phis {
            see(phi.dest);
            phi.args.iter().for_each(|&a| see(a));
        }
        for inst in &data.insts {
            if let Some(d) = inst.dest {
                see(d);
            }
            inst.op.for_each_arg(&mut see);
        }
        if let Terminator::Branch { cond: v, .. } | Terminator::Return(v) = data.term {
            see(v);
        }
    }
    max.min(f.value_count as usize)
}

/// Executes one instruction of `block`. The outer error is a bug of the
/// input; the inner one is a program trap.
#[inline]
fn exec(inst: &Inst, block: Block, values: &mut Values, m: &mut Machine) -> Result<Result<(), Trap>, InterpError> {
    let result = match inst.op {
        Op::Const(c) => c,
        Op::Undef => return Err(InterpError::UndefExecuted { block, value: inst.dest }),
        Op::Copy(a) => values.get(a, block)?,
        Op::Unary(op, a) => semantics::unary(op, values.get(a, block)?),
        Op::Binary(op, a, b) => match semantics::binary(op, values.get(a, block)?, values.get(b, block)?) {
            Ok(x) => x,
            Err(trap) => return Ok(Err(trap)),
        },
        Op::Load(a) => m.load(values.get(a, block)?),
        Op::Store { addr, value } => {
            no_dest(inst, block)?;
            m.store(values.get(addr, block)?, values.get(value, block)?);
            return Ok(Ok(()));
        }
        Op::Out(a) => {
            no_dest(inst, block)?;
            m.trace.push(values.get(a, block)?);
            return Ok(Ok(()));
        }
        Op::Call(_) => unreachable!("calls are executed by the run loop"),
    };
    let dest =
        inst.dest.ok_or_else(|| malformed(format!("an instruction in {block} defining a value has no destination")))?;
    values.set(dest, result)?;
    Ok(Ok(()))
}

/// Fails when `inst`, which defines no value, names a destination.
fn no_dest(inst: &Inst, block: Block) -> Result<(), InterpError> {
    match inst.dest {
        None => Ok(()),
        Some(d) => Err(malformed(format!("a store or out in {block} names the destination {d}"))),
    }
}

#[cold]
fn missing_block(b: Block) -> InterpError {
    malformed(format!("{b} does not exist"))
}

fn malformed(m: String) -> InterpError {
    InterpError::Malformed(m)
}
