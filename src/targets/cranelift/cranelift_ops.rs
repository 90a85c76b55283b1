//! The operations of the language in Cranelift IR, shared by the two
//! translations (`cranelift_source.rs`, `cranelift_ssa.rs`), and the
//! layout of the context block the compiled function works on.
//!
//! Every value is an `i64`. Each operator is emitted so that Cranelift's
//! meaning is the oracle's (`interp/src/semantics.rs`):
//!
//! - `+ - *` and unary `-`: `iadd`, `isub`, `imul`, `ineg` wrap, as the
//!   language does.
//! - `/`: `sdiv` traps on a zero divisor (`int_divz`) and on
//!   `i64::MIN / -1` (`int_ovf`); both are the trap `divide-error`
//!   (`cranelift_run.rs` maps the trap codes).
//! - `%`: `srem` traps on a zero divisor but gives 0 for `i64::MIN % -1`,
//!   where the language traps; a guard before it traps with `int_ovf`
//!   when the dividend is `i64::MIN` and the divisor -1.
//! - `<<` and `>>`: `ishl` and `sshr` take the count modulo the type's
//!   width, 64, which is the language's rule; no mask is emitted, so
//!   Cranelift's own masking is what runs.
//! - Comparisons and `!`: `icmp` gives an `i8` 0 or 1, widened by `uextend`.
//! - `mem[a]`: the word at `ctx + (a & 4095) * 8`.
//! - `out v`: appended to the trace in the context block; a full trace
//!   traps with [`TRACE_FULL`].
//!
//! - `f(args)`: a `call` of the function `f`, compiled beside the caller
//!   (`colocated`, so a direct `call rel32` that `cranelift_run.rs`
//!   links), in Cranelift's System V convention, with the context block's
//!   address as its first argument.
//!
//! The context block (its address is every function's first parameter) holds
//! `mem`, the trace and the fuel; see the offsets below. The fuel counts
//! entries of the blocks that can start a cycle (labels and loop headers of
//! a source program, targets of retreating edges of an SSA function): each
//! such entry decrements it, and reaching 0 traps with [`OUT_OF_FUEL`], so
//! that wrong code that loops forever stops. Every call burns one unit
//! too, so that wrong code that recurses without end stops as well; the
//! oracle charges each call at least as much, so the compiled code never
//! burns more units than the oracle's run.

use crate::ast::MEM_WORDS;
use crate::op::{BinOp, UnOp};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{
    AbiParam, ExtFuncData, ExternalName, FuncRef, InstBuilder, MemFlagsData, Signature, TrapCode, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilder;

/// Offset of `mem` (`MEM_WORDS` words) in the context block.
pub const MEM_OFFSET: i32 = 0;
/// Offset of the number of trace words written.
pub const TRACE_LEN_OFFSET: i32 = (MEM_WORDS * 8) as i32;
/// Offset of the fuel word.
pub const FUEL_OFFSET: i32 = TRACE_LEN_OFFSET + 8;
/// Offset of the trace words.
pub const TRACE_OFFSET: i32 = TRACE_LEN_OFFSET + 64;
/// Number of trace words the context block holds.
pub const TRACE_CAPACITY: i64 = 1 << 16;
/// Size of the whole context block in bytes.
pub const CONTEXT_BYTES: u64 = TRACE_OFFSET as u64 + TRACE_CAPACITY as u64 * 8;

/// The trap code of the fuel running out.
pub const OUT_OF_FUEL: TrapCode = TrapCode::unwrap_user(1);
/// The trap code of an `out` beyond [`TRACE_CAPACITY`].
pub const TRACE_FULL: TrapCode = TrapCode::unwrap_user(2);

/// A deliberate mistake in the translation, for tests that show a campaign
/// finds and reduces an adapter bug. Never set outside such tests.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Plant {
    /// `%` without its guard: `i64::MIN % -1` gives 0 instead of trapping.
    NoRemainderGuard,
    /// The first two arguments of every branch into a block with two or
    /// more parameters are passed swapped (SSA programs: phi arguments).
    SwapBlockArgs,
    /// The first two arguments of every call with two or more are passed
    /// swapped.
    SwapCallArgs,
}

/// Memory flags for the context block: always aligned and mapped.
fn flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// A comparison's `i8` result widened to 0 or 1 as `i64`.
fn widen(b: &mut FunctionBuilder, c: Value) -> Value {
    b.ins().uextend(I64, c)
}

/// `op x, y` with the language's meaning.
pub fn binary(b: &mut FunctionBuilder, plant: Option<Plant>, op: BinOp, x: Value, y: Value) -> Value {
    let cmp = |b: &mut FunctionBuilder, cc: IntCC| {
        let c = b.ins().icmp(cc, x, y);
        widen(b, c)
    };
    match op {
        BinOp::Add => b.ins().iadd(x, y),
        BinOp::Sub => b.ins().isub(x, y),
        BinOp::Mul => b.ins().imul(x, y),
        BinOp::Div => b.ins().sdiv(x, y),
        BinOp::Rem => {
            if plant != Some(Plant::NoRemainderGuard) {
                let min = b.ins().icmp_imm_s(IntCC::Equal, x, i64::MIN);
                let minus_one = b.ins().icmp_imm_s(IntCC::Equal, y, -1);
                let both = b.ins().band(min, minus_one);
                b.ins().trapnz(both, TrapCode::INTEGER_OVERFLOW);
            }
            b.ins().srem(x, y)
        }
        BinOp::Shl => b.ins().ishl(x, y),
        BinOp::Shr => b.ins().sshr(x, y),
        BinOp::And => b.ins().band(x, y),
        BinOp::Or => b.ins().bor(x, y),
        BinOp::Xor => b.ins().bxor(x, y),
        BinOp::Eq => cmp(b, IntCC::Equal),
        BinOp::Ne => cmp(b, IntCC::NotEqual),
        BinOp::Lt => cmp(b, IntCC::SignedLessThan),
        BinOp::Le => cmp(b, IntCC::SignedLessThanOrEqual),
        BinOp::Gt => cmp(b, IntCC::SignedGreaterThan),
        BinOp::Ge => cmp(b, IntCC::SignedGreaterThanOrEqual),
    }
}

/// `op x` with the language's meaning.
pub fn unary(b: &mut FunctionBuilder, op: UnOp, x: Value) -> Value {
    match op {
        UnOp::Neg => b.ins().ineg(x),
        UnOp::Not => {
            let c = b.ins().icmp_imm_s(IntCC::Equal, x, 0);
            widen(b, c)
        }
        UnOp::BitNot => b.ins().bnot(x),
    }
}

/// 0 or 1: whether `x` is not 0.
pub fn truth(b: &mut FunctionBuilder, x: Value) -> Value {
    let c = b.ins().icmp_imm_s(IntCC::NotEqual, x, 0);
    widen(b, c)
}

/// The address of `mem[addr & 4095]`.
fn mem_address(b: &mut FunctionBuilder, ctx: Value, addr: Value) -> Value {
    let index = b.ins().band_imm_s(addr, MEM_WORDS as i64 - 1);
    let offset = b.ins().ishl_imm_u(index, 3);
    b.ins().iadd(ctx, offset)
}

/// `mem[addr]`.
pub fn load(b: &mut FunctionBuilder, ctx: Value, addr: Value) -> Value {
    let p = mem_address(b, ctx, addr);
    b.ins().load(I64, flags(), p, MEM_OFFSET)
}

/// `mem[addr] = value`.
pub fn store(b: &mut FunctionBuilder, ctx: Value, addr: Value, value: Value) {
    let p = mem_address(b, ctx, addr);
    b.ins().store(flags(), value, p, MEM_OFFSET);
}

/// `out value`: the trace word at the current length, then the length + 1.
pub fn out(b: &mut FunctionBuilder, ctx: Value, value: Value) {
    let len = b.ins().load(I64, flags(), ctx, TRACE_LEN_OFFSET);
    let full = b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, len, TRACE_CAPACITY);
    b.ins().trapnz(full, TRACE_FULL);
    let offset = b.ins().ishl_imm_u(len, 3);
    let p = b.ins().iadd(ctx, offset);
    b.ins().store(flags(), value, p, TRACE_OFFSET);
    let next = b.ins().iadd_imm_s(len, 1);
    b.ins().store(flags(), next, ctx, TRACE_LEN_OFFSET);
}

/// One unit of fuel: decrement, trap at 0.
pub fn burn_fuel(b: &mut FunctionBuilder, ctx: Value) {
    let fuel = b.ins().load(I64, flags(), ctx, FUEL_OFFSET);
    let left = b.ins().iadd_imm_s(fuel, -1);
    b.ins().store(flags(), left, ctx, FUEL_OFFSET);
    b.ins().trapz(left, OUT_OF_FUEL);
}

/// `callee(ctx, args...)`: one unit of fuel, then the call of a function
/// of the same program, whose reference `refs` keeps per callee name (one
/// declaration per function that calls it).
pub fn call(
    b: &mut FunctionBuilder,
    refs: &mut std::collections::HashMap<String, FuncRef>,
    plant: Option<Plant>,
    callee: &str,
    ctx: Value,
    args: &[Value],
) -> Value {
    let fref = match refs.get(callee) {
        Some(&f) => f,
        None => {
            let sig = b.import_signature(signature(args.len()));
            let f = b.import_function(ExtFuncData {
                name: ExternalName::testcase(callee),
                signature: sig,
                colocated: true,
                patchable: false,
            });
            refs.insert(callee.to_string(), f);
            f
        }
    };
    burn_fuel(b, ctx);
    let mut all = Vec::with_capacity(args.len() + 1);
    all.push(ctx);
    all.extend_from_slice(args);
    if plant == Some(Plant::SwapCallArgs) && args.len() >= 2 {
        all.swap(1, 2);
    }
    let inst = b.ins().call(fref, &all);
    b.inst_results(inst)[0]
}

/// The signature of a translated function with `params` parameters: the
/// context block's address, the parameters, and one `i64` result.
pub fn signature(params: usize) -> Signature {
    let mut sig = Signature::new(CallConv::SystemV);
    sig.params.push(AbiParam::new(I64));
    for _ in 0..params {
        sig.params.push(AbiParam::new(I64));
    }
    sig.returns.push(AbiParam::new(I64));
    sig
}

/// What the translations tell `FunctionBuilder::finalize` about the target:
/// x86-64 with the System V calling convention.
pub fn frontend_config() -> cranelift_codegen::isa::TargetFrontendConfig {
    cranelift_codegen::isa::TargetFrontendConfig {
        default_call_conv: CallConv::SystemV,
        pointer_width: target_lexicon::PointerWidth::U64,
        page_size_align_log2: 12,
    }
}
