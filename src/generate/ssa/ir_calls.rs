//! IR-level modules of several functions that call each other
//! ([`IrGenConfig::calls`], `ssaref gen --ir --calls`, the IR-level share
//! of `ssaref fuzz --calls`), after the source level's
//! `generate/source/calls.rs`.
//!
//! A module gets one to three helpers `f0`, `f1`, ... besides `main`, each
//! with its own skeleton (`cfg.rs`) and values (`fill.rs`), and zero to
//! seven parameters after a hidden first one, the depth `d`. Any function
//! may call any helper, itself and the helpers that call it included, so
//! the call graph has self-recursion and mutual recursion; what bounds it
//! is the depth argument:
//! - every helper starts with a block of its own that returns a constant
//!   when `d < 1` and otherwise enters the helper's skeleton
//!   (`prepend_depth_guard`), before any call;
//! - every call from a helper passes `d - 1` (defined in the skeleton's
//!   entry block), and every call from `main` a constant from 0 to
//!   [`MAX_DEPTH`];
//!
//! so every chain of calls is at most `MAX_DEPTH + 1` activations deep. The
//! call tree stays small too: a helper's cycles take at most
//! [`HELPER_FUEL`] guarded edges (the module documentation's fuel; a
//! helper's initial fuel is always a constant), `main`'s at most
//! [`MAIN_FUEL`], and a function holds at most [`MAX_CALLS`] calls.
//!
//! The situations made on purpose (`fill.rs`, `Filler::call`), each counted
//! by `call_shapes.rs` and reported by `ssaref gen --ir --calls --stats`:
//! calls anywhere among the random instructions, so inside cycles and in
//! blocks with phis, whose arguments may be those phis and whose results
//! flow into later phis; the caller's own parameters passed in another
//! order; up to eight arguments, more than the six argument registers of
//! K = 15; eight to twelve values defined before a call and all used after
//! it; results never read.

use super::cfg::random_skeleton;
use super::fill::{fill, Calls};
use super::ssa_config::IrGenConfig;
use crate::entity::EntityVec;
use crate::generate::source::Entropy;
use crate::ir::{BinOp, Block, BlockData, Function, Inst, Module, Op, Terminator, Value};

/// The largest depth `main` passes.
pub const MAX_DEPTH: u64 = 3;

/// The most guarded edges a helper's run takes (its initial fuel).
pub const HELPER_FUEL: u64 = 2;

/// The most guarded edges `main`'s run takes when it has calls (a
/// parameter as the initial fuel is masked to `0..=7` then).
pub const MAIN_FUEL: u64 = 7;

/// The most calls in one function.
pub const MAX_CALLS: u64 = 3;

/// The most parameters of a helper, the depth included.
pub const MAX_ARITY: u64 = 8;

/// A module of `main` (with `nparams` parameters) and its helpers.
pub(super) fn module_with_calls(e: &mut dyn Entropy, config: &IrGenConfig, nparams: usize) -> Module {
    let n = e.range(1, 3) as usize;
    let callees: Vec<(String, usize)> = (0..n)
        .map(|i| {
            // A quarter of the helpers take more arguments than K = 15 has
            // argument registers.
            let arity = if e.chance(25) { e.range(7, MAX_ARITY) } else { e.range(1, 6) };
            (format!("f{i}"), arity as usize)
        })
        .collect();
    let helper_config = IrGenConfig { max_blocks: config.max_blocks.min(8), max_fuel: HELPER_FUEL, ..config.clone() };
    let main_config = IrGenConfig { max_fuel: config.max_fuel.min(MAIN_FUEL), ..config.clone() };
    let mut functions = Vec::with_capacity(n + 1);
    let mut calls = Calls { callees: callees.clone(), in_helper: true, max_depth: MAX_DEPTH, max_calls: MAX_CALLS };
    for (name, arity) in &callees {
        let skeleton = random_skeleton(e, &helper_config);
        let mut f = fill(e, &helper_config, &skeleton, *arity, name, Some(&calls));
        let ret = e.range(0, 20) as i64 - 10;
        prepend_depth_guard(&mut f, ret);
        functions.push(f);
    }
    calls.in_helper = false;
    let skeleton = random_skeleton(e, &main_config);
    functions.push(fill(e, &main_config, &skeleton, nparams, "main", Some(&calls)));
    Module { functions }
}

/// Puts a new entry block before `f`'s blocks: `br d >= 1` into the old
/// entry, else into a new block that returns `ret`. `d` is the first
/// parameter. The old blocks keep their order, each one block later.
fn prepend_depth_guard(f: &mut Function, ret: i64) {
    let d = f.params[0];
    let shift = |b: Block| Block(b.0 + 1);
    let old = std::mem::replace(&mut f.blocks, EntityVec::new());
    let exit = Block(old.len() as u32 + 1);
    let one = f.new_value();
    let cond = f.new_value();
    f.blocks.push(BlockData {
        preds: Vec::new(),
        phis: Vec::new(),
        insts: vec![
            Inst { dest: Some(one), op: Op::Const(1) },
            Inst { dest: Some(cond), op: Op::Binary(BinOp::Ge, d, one) },
        ],
        term: Terminator::Branch { cond, then_dest: Block(1), else_dest: exit },
    });
    for (b, data) in old.iter() {
        let mut data = data.clone();
        data.preds =
            if b == Function::ENTRY { vec![Block(0)] } else { data.preds.iter().copied().map(shift).collect() };
        data.term = match data.term {
            Terminator::Jump(t) => Terminator::Jump(shift(t)),
            Terminator::Branch { cond, then_dest, else_dest } => {
                Terminator::Branch { cond, then_dest: shift(then_dest), else_dest: shift(else_dest) }
            }
            Terminator::Return(v) => Terminator::Return(v),
        };
        f.blocks.push(data);
    }
    let r: Value = f.new_value();
    f.blocks.push(BlockData {
        preds: vec![Block(0)],
        phis: Vec::new(),
        insts: vec![Inst { dest: Some(r), op: Op::Const(ret) }],
        term: Terminator::Return(r),
    });
}
