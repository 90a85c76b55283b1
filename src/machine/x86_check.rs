//! The machine-code checker: no register outside the `K` allocatable ones.
//!
//! Pereira and Palsberg ("SSA Elimination after Register Allocation", CC
//! 2009) eliminate SSA after allocation without a spare register, and
//! Pereira's allocator works within `K`. A lowering that quietly used an
//! extra register (r11 as a temporary, say) would still produce correct
//! results and hide an allocation bug: a value the allocator put nowhere
//! could travel in the hidden register. This checker reads the encoded
//! bytes, not the lowering's intentions: it decodes them with iced-x86 and
//! asks iced-x86's instruction-info tables which registers each instruction
//! reads and writes, explicitly or implicitly.
//!
//! The rule. Let `A` be the first `K` registers of rax, rcx, rdx, rbx, rbp,
//! rsi, rdi, r8 ... r15. For every other general-purpose register `r`:
//!
//! * rsp may be used freely (spill slots are rsp-relative; push and pop);
//! * no instruction writes `r` as an explicit operand;
//! * an instruction may write `r` as an *implicit* operand (`cqo` writes
//!   rdx, `idiv` writes rax and rdx): the instruction set forces that;
//! * an instruction may read `r`, explicitly or implicitly, only if an
//!   implicit write of `r` precedes it in the same straight-line run of
//!   code (no branch target and no jump in between). So the remainder
//!   `idiv` leaves in rdx may be read right away when rdx is not
//!   allocatable (`K = 2`), but no value can be parked in rdx across a join
//!   or carried from one operation to another.
//!
//! The stack discipline (`x86_check_stack.rs`): rsp is 16-byte aligned at
//! every `call`, and a `ret` leaves with the stack as its function found
//! it and every callee-saved register of the convention at K restored.
//!
//! A register of `A` is the allocator's, and the allocation checker
//! (`alloc_checker.rs`) and the differential run vouch for its use.

use crate::machine::x86_lower::{layout, X86Code};
use crate::mir::MAX_REGS;
use iced_x86::{Decoder, DecoderOptions, FlowControl, InstructionInfoFactory, OpAccess, OpKind, Register};
use std::collections::BTreeSet;

/// The allocatable registers in allocation order, as iced names them.
pub use crate::machine::x86_register_order::ALLOCATION_ORDER;

/// What the checker found wrong, with the instruction's address and text
/// (defined with the other checkers' errors, which name it).
pub use crate::error::{McError, McProblem};

fn reads(acc: OpAccess) -> bool {
    matches!(acc, OpAccess::Read | OpAccess::CondRead | OpAccess::ReadWrite | OpAccess::ReadCondWrite)
}

fn writes(acc: OpAccess) -> bool {
    matches!(acc, OpAccess::Write | OpAccess::CondWrite | OpAccess::ReadWrite | OpAccess::ReadCondWrite)
}

/// The targets of the direct branches and calls of `instructions`.
fn branch_targets(instructions: &[iced_x86::Instruction]) -> BTreeSet<u64> {
    instructions
        .iter()
        .filter(|i| {
            matches!(
                i.flow_control(),
                FlowControl::UnconditionalBranch | FlowControl::ConditionalBranch | FlowControl::Call
            )
        })
        .map(|i| i.near_branch_target())
        .collect()
}

/// Checks that `code` uses no general-purpose register outside its `K`
/// allocatable ones, except rsp and as the rule above allows.
pub fn check_machine_code(code: &X86Code) -> Result<(), McError> {
    crate::pass_manager::self_checks::count();
    let k = code.k.min(MAX_REGS);
    let allocatable: BTreeSet<Register> = ALLOCATION_ORDER[..k].iter().copied().collect();
    let mut decoder = Decoder::with_ip(64, &code.bytes, layout::CODE_BASE, DecoderOptions::NONE);
    let instructions: Vec<iced_x86::Instruction> = decoder.iter().collect();
    // Branch targets start a new straight-line run.
    let targets = branch_targets(&instructions);
    let mut factory = InstructionInfoFactory::new();
    let mut implicit: BTreeSet<Register> = BTreeSet::new();
    for ins in &instructions {
        let err = |problem: McProblem| McError { ip: ins.ip(), instruction: ins.to_string(), problem };
        if ins.is_invalid() {
            return Err(err(McProblem::Undecodable));
        }
        if targets.contains(&ins.ip()) {
            implicit.clear();
        }
        let mut explicit: BTreeSet<Register> = BTreeSet::new();
        for op in 0..ins.op_count() {
            match ins.op_kind(op) {
                OpKind::Register => {
                    explicit.insert(ins.op_register(op).full_register());
                }
                OpKind::Memory => {
                    for r in [ins.memory_base(), ins.memory_index()] {
                        if r != Register::None {
                            explicit.insert(r.full_register());
                        }
                    }
                }
                _ => {}
            }
        }
        let info = factory.info(ins);
        let mut newly_implicit = Vec::new();
        for used in info.used_registers() {
            let r = used.register().full_register();
            if !r.is_gpr64() || r == Register::RSP || allocatable.contains(&r) {
                continue;
            }
            let is_explicit = explicit.contains(&r);
            if reads(used.access()) && !implicit.contains(&r) {
                return Err(err(McProblem::ReadsOutsideK { register: r, k }));
            }
            if writes(used.access()) {
                if is_explicit {
                    return Err(err(McProblem::WritesOutsideK { register: r, k }));
                }
                newly_implicit.push(r);
            }
        }
        implicit.extend(newly_implicit);
        if matches!(
            ins.flow_control(),
            FlowControl::UnconditionalBranch
                | FlowControl::ConditionalBranch
                | FlowControl::Call
                | FlowControl::IndirectBranch
                | FlowControl::Return
                | FlowControl::Interrupt
                | FlowControl::Exception
        ) {
            implicit.clear();
        }
    }
    crate::machine::x86_check_stack::check_stack_discipline(&instructions, k)
}
