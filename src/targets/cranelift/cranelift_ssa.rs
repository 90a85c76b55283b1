//! An SSA function (`ir::Function`) in Cranelift IR: blocks with
//! parameters instead of phis, and a `call` of the callee's own
//! translation for each call (`cranelift_ops::call`).
//!
//! Each reachable block becomes a Cranelift block with one `i64` parameter
//! per phi; every edge passes, for each phi of its target, the argument at
//! the edge's position in the target's `preds`. A `br c, B, B` has two
//! edges into `B`, and the `brif` passes each its own arguments (the first
//! occurrence of the predecessor is the then edge, docs/ssa-text-form.md),
//! so Cranelift's lowering has to keep the two edges apart. `copy` is not
//! an instruction in Cranelift IR: its result is its operand. `undef` is
//! `iconst 0` (the oracle rejects a program that executes one).
//!
//! Blocks are emitted in reverse postorder from the entry, so a value's
//! definition is emitted before its uses; unreachable blocks are left out
//! (nothing reachable can observe them). The targets of retreating edges
//! of the depth-first search burn fuel: every cycle holds one.

use super::cranelift_ops::{self as ops, Plant};
use crate::entity::EntityRef;
use crate::ir::{self, Op, Terminator};
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{BlockArg, FuncRef, Function, InstBuilder, Value};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use std::collections::HashMap;

/// Reachable blocks in reverse postorder, and which of them are entered by
/// a retreating edge of the depth-first search.
fn reverse_postorder(f: &ir::Function) -> (Vec<ir::Block>, Vec<bool>) {
    let n = f.block_count();
    let mut state = vec![0u8; n]; // 0 unseen, 1 on the stack, 2 done
    let mut retreat_target = vec![false; n];
    let mut post = Vec::with_capacity(n);
    if n == 0 {
        return (post, retreat_target);
    }
    let mut stack: Vec<(ir::Block, usize)> = vec![(ir::Function::ENTRY, 0)];
    state[0] = 1;
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        let succs = f.succs(b);
        if let Some(&s) = succs.get(*next) {
            *next += 1;
            match state.get(s.index()) {
                Some(0) => {
                    state[s.index()] = 1;
                    stack.push((s, 0));
                }
                Some(1) => retreat_target[s.index()] = true,
                _ => {}
            }
        } else {
            state[b.index()] = 2;
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    (post, retreat_target)
}

/// Why [`lower_ssa`] cannot translate a function: it is not valid SSA.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LowerSsaError {
    /// The function has no blocks.
    NoBlocks,
    /// A value is used before its definition.
    UseBeforeDefinition(ir::Value),
    /// A phi of the block lacks the argument of an incoming edge.
    PhiLacksArgument(ir::Block),
    /// A terminator names a block that does not exist.
    NoBlock(ir::Block),
    /// A jump without its outgoing edge.
    JumpWithoutEdge,
    /// The branch of the block lacks one of its two edges.
    BranchLacksEdge(ir::Block),
    /// A call in the block names a function the module does not have, or
    /// passes it another number of arguments than it takes.
    Callee { block: ir::Block, callee: String },
}

impl std::fmt::Display for LowerSsaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LowerSsaError::NoBlocks => f.write_str("the function has no blocks"),
            LowerSsaError::UseBeforeDefinition(v) => write!(f, "{v} is used before its definition"),
            LowerSsaError::PhiLacksArgument(b) => write!(f, "a phi of {b} lacks an argument"),
            LowerSsaError::NoBlock(b) => write!(f, "no block {b}"),
            LowerSsaError::JumpWithoutEdge => f.write_str("a jump without its edge"),
            LowerSsaError::BranchLacksEdge(b) => write!(f, "the branch of {b} lacks an edge"),
            LowerSsaError::Callee { block, callee } => {
                write!(f, "a call in {block} does not match a function `{callee}` of the module")
            }
        }
    }
}

impl std::error::Error for LowerSsaError {}

/// Translates `f` into the Cranelift function `clif` (whose signature must
/// be `cranelift_ops::signature(f.params.len())`); `arity` gives the
/// parameter count of each function of the module by name. `Err` says why
/// the SSA cannot be translated (a value used before its definition, a
/// call that matches no function: not valid SSA).
pub fn lower_ssa(
    f: &ir::Function,
    arity: &HashMap<&str, usize>,
    clif: &mut Function,
    plant: Option<Plant>,
) -> Result<(), LowerSsaError> {
    let mut fb_ctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(clif, &mut fb_ctx);
    let (order, retreat_target) = reverse_postorder(f);
    let mut blocks = HashMap::new();
    let mut values: HashMap<ir::Value, Value> = HashMap::new();
    let mut callees: HashMap<String, FuncRef> = HashMap::new();
    for &blk in &order {
        let cb = b.create_block();
        if blk == ir::Function::ENTRY {
            b.append_block_params_for_function_params(cb);
        } else {
            for phi in &f.blocks[blk].phis {
                let p = b.append_block_param(cb, I64);
                values.insert(phi.dest, p);
            }
        }
        blocks.insert(blk, cb);
    }
    let Some(&entry) = blocks.get(&ir::Function::ENTRY) else {
        return Err(LowerSsaError::NoBlocks);
    };
    let params = b.block_params(entry).to_vec();
    let ctx = params[0];
    for (i, &p) in f.params.iter().enumerate() {
        values.insert(p, params[i + 1]);
    }
    let get = |values: &HashMap<ir::Value, Value>, v: ir::Value| {
        values.get(&v).copied().ok_or(LowerSsaError::UseBeforeDefinition(v))
    };
    for &blk in &order {
        let data = &f.blocks[blk];
        b.switch_to_block(blocks[&blk]);
        if retreat_target[blk.index()] {
            ops::burn_fuel(&mut b, ctx);
        }
        for inst in &data.insts {
            let result = match inst.op {
                Op::Const(c) => Some(b.ins().iconst(I64, c)),
                Op::Undef => Some(b.ins().iconst(I64, 0)),
                Op::Copy(a) => Some(get(&values, a)?),
                Op::Unary(op, a) => {
                    let a = get(&values, a)?;
                    Some(ops::unary(&mut b, op, a))
                }
                Op::Binary(op, x, y) => {
                    let (x, y) = (get(&values, x)?, get(&values, y)?);
                    Some(ops::binary(&mut b, plant, op, x, y))
                }
                Op::Load(a) => {
                    let a = get(&values, a)?;
                    Some(ops::load(&mut b, ctx, a))
                }
                Op::Store { addr, value } => {
                    let (a, v) = (get(&values, addr)?, get(&values, value)?);
                    ops::store(&mut b, ctx, a, v);
                    None
                }
                Op::Out(a) => {
                    let a = get(&values, a)?;
                    ops::out(&mut b, ctx, a);
                    None
                }
                Op::Call(ref call) => {
                    if arity.get(call.callee.as_str()) != Some(&call.args.len()) {
                        return Err(LowerSsaError::Callee { block: blk, callee: call.callee.clone() });
                    }
                    let args = call.args.iter().map(|&a| get(&values, a)).collect::<Result<Vec<_>, _>>()?;
                    Some(ops::call(&mut b, &mut callees, plant, &call.callee, ctx, &args))
                }
            };
            if let (Some(d), Some(r)) = (inst.dest, result) {
                values.insert(d, r);
            }
        }
        // The arguments of each outgoing edge, in terminator order.
        let mut edge_args = Vec::new();
        for (succ, pred_pos) in crate::analysis::liveness::out_edges(f, blk) {
            let mut args: Vec<BlockArg> = Vec::new();
            for phi in &f.blocks[succ].phis {
                let a = phi.args.get(pred_pos).ok_or(LowerSsaError::PhiLacksArgument(succ))?;
                args.push(get(&values, *a)?.into());
            }
            if plant == Some(Plant::SwapBlockArgs) && args.len() >= 2 {
                args.swap(0, 1);
            }
            edge_args.push(args);
        }
        let target = |s: ir::Block| blocks.get(&s).copied().ok_or(LowerSsaError::NoBlock(s));
        match data.term {
            Terminator::Jump(s) => {
                let args = edge_args.first().ok_or(LowerSsaError::JumpWithoutEdge)?;
                b.ins().jump(target(s)?, args);
            }
            Terminator::Branch { cond, then_dest, else_dest } => {
                let c = get(&values, cond)?;
                let (Some(t), Some(e)) = (edge_args.first(), edge_args.get(1)) else {
                    return Err(LowerSsaError::BranchLacksEdge(blk));
                };
                b.ins().brif(c, target(then_dest)?, t, target(else_dest)?, e);
            }
            Terminator::Return(v) => {
                let v = get(&values, v)?;
                b.ins().return_(&[v]);
            }
        }
    }
    b.seal_all_blocks();
    b.finalize(ops::frontend_config());
    Ok(())
}
