//! Lowering of a module with calls: one code buffer, an entry stub, and
//! per function a prologue, a frame and an epilogue that follow the
//! calling convention of K (`analysis/calling_convention.rs`,
//! docs/calling-convention.md, "Frames at x86-64").
//!
//! The code, from [`layout::CODE_BASE`]:
//!
//! * The entry stub, where the harness starts with rsp 16-byte aligned,
//!   `main`'s register arguments in the convention's argument registers and
//!   its stack arguments at `[rsp]`, `[rsp + 8]`, ...: `call main`, then
//!   `mov [RESULT], rax`, the returned status, and a jump to the exit.
//! * Each function in module order. Its prologue decrements the call-depth
//!   word ([`layout::CALL_DEPTH`]) and leaves through the call-depth exit
//!   when it was 0, pushes the callee-saved registers the function writes
//!   (in register order), reserves the frame with `sub rsp, F`, and
//!   fetches the stack parameters from the caller's frame into their
//!   locations. `F` is the function's spill slots, `8 * slot_count`
//!   bytes, plus 8 bytes of padding when `8 + 8 * saved + 8 * slot_count`
//!   is not a multiple of 16, so that rsp is 16-byte aligned in the body.
//!   Spill slot `s` is still `[rsp + 8s]`, as in a function lowered alone.
//! * A `return r` moves `r` to `rax`, increments the call-depth word,
//!   frees the frame, pops the saved registers in reverse order and `ret`s.
//! * A call pushes its stack arguments right to left after `sub rsp, 8`
//!   when their number is odd (so `rsp` is aligned at the `call`, the
//!   convention's `stack_argument_bytes`), `call`s the callee and releases
//!   them with `add rsp`. A stack argument in a spill slot is pushed from
//!   memory (`push qword [rsp + 8s + pushed]`); a stack parameter whose
//!   location is a slot is moved with `push [m]; pop [m]`. No register is
//!   borrowed: there is still no scratch register.
//! * The exits of a function lowered alone, and the call-depth exit, which
//!   stores [`layout::STATUS_CALL_DEPTH_EXCEEDED`].
//!
//! proofs-notes/x86-frames.md proves that the
//! prologue and epilogue give every callee-saved register back and that
//! rsp is aligned at every call; `x86_check.rs` checks both on the bytes.

use crate::analysis::calling_convention::CallingConvention;
use crate::ast::MAX_CALL_DEPTH;
use crate::machine::x86_lower::{
    asm_err, layout, CallHarness, Frame, LResult, LowerError, Lowerer, ModuleState, X86Code,
};
use crate::mir::{Loc, MCall, MFunction, MInst, MModule, Reg, RAX};
use iced_x86::code_asm::registers::gpr64::rsp;
use iced_x86::code_asm::{qword_ptr, AsmMemoryOperand};
use std::collections::HashMap;

/// Lowers every function of a module with calls into one code buffer with
/// an entry stub that calls `main` (see the module documentation). With
/// `listing`, the notes of the listing are made too.
///
/// Fails (never panics) on malformed MIR: what [`super::x86_lower::lower_function`]
/// rejects, functions with different K, a call of a missing function or
/// with the wrong number of arguments, an argument or parameter that the
/// convention puts in a register and the MIR does not, a slot beyond the
/// function's slot count.
pub fn lower_module(m: &MModule, listing: bool) -> Result<X86Code, LowerError> {
    let main = m.main().ok_or(LowerError::NoMain)?;
    let convention = CallingConvention::for_k(main.k).ok_or(LowerError::RegisterCount { k: main.k })?;
    let mut lw = Lowerer::new(main.k, listing)?;
    let mut functions = HashMap::new();
    let mut entries = Vec::with_capacity(m.functions.len());
    for f in &m.functions {
        let label = lw.a.create_label();
        functions.entry(f.name.clone()).or_insert((label, f.params.len()));
        entries.push(label);
    }
    let depth_exceeded = lw.a.create_label();
    let frame = Frame { saved: Vec::new(), frame_bytes: 0, slot_count: 0 };
    lw.frames = Some(ModuleState { convention, functions, depth_exceeded, frame });
    lw.entry_stub(&main.name)?;
    let (mut main_labels, mut largest) = (Vec::new(), 0u64);
    for (f, mut entry) in m.functions.iter().zip(entries) {
        let frame = lw.frame_of(f)?;
        largest = largest.max(activation_bytes(f, &frame, lw.convention()));
        lw.a.set_label(&mut entry).map_err(asm_err)?;
        lw.prologue(f, frame)?;
        lw.blocks(f)?;
        if f.name == main.name && main_labels.is_empty() {
            main_labels = std::mem::take(&mut lw.labels);
        }
    }
    lw.exits()?;
    let convention = lw.convention().clone();
    let main_stack = 8 * main.params.len().saturating_sub(convention.arg_regs.len()) as u64;
    let stack_bytes = (MAX_CALL_DEPTH as u64).saturating_mul(largest).saturating_add(8 + main_stack);
    let harness = CallHarness { callee_saved: convention.callee_saved, arg_regs: convention.arg_regs, stack_bytes };
    lw.finish(main, &main_labels, Some(harness))
}

/// The most stack one activation of `f` takes: the return address, the
/// saved registers, the frame, the largest stack arguments of its calls,
/// and what one instruction pushes for a moment.
fn activation_bytes(f: &MFunction, frame: &Frame, convention: &CallingConvention) -> u64 {
    let outgoing = f
        .blocks
        .values()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match &i.inst {
            MInst::Call(call) => Some(u64::from(convention.stack_argument_bytes(call.args.len()))),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    8 + 8 * frame.saved.len() as u64 + u64::from(frame.frame_bytes) + outgoing + layout::PUSH_RESERVE
}

/// `[rsp + bytes]`, or an error when the displacement does not fit.
fn stack_operand(bytes: u64) -> LResult<AsmMemoryOperand> {
    let disp = i32::try_from(bytes).map_err(|_| LowerError::SlotTooFar((bytes / 8) as u32))?;
    Ok(qword_ptr(rsp + disp))
}

impl Lowerer {
    fn state(&self) -> &ModuleState {
        self.frames.as_ref().expect("module lowering sets the module state first")
    }

    fn convention(&self) -> &CallingConvention {
        &self.state().convention
    }

    /// `call main`, then the result and the returned status, then the exit.
    fn entry_stub(&mut self, main: &str) -> LResult<()> {
        let start = self.a.instructions().len();
        let (label, _) = self.state().functions[main];
        self.a.call(label).map_err(asm_err)?;
        self.a.mov(qword_ptr(layout::RESULT as i32), iced_x86::code_asm::registers::gpr64::rax).map_err(asm_err)?;
        self.a.mov(qword_ptr(layout::STATUS as i32), layout::STATUS_RETURNED as i32).map_err(asm_err)?;
        let exit = self.exit;
        self.a.jmp(exit).map_err(asm_err)?;
        self.note(start, None, || format!("entry stub: call {main}, store rax and the returned status"));
        Ok(())
    }

    /// The frame of `f`: the callee-saved registers it writes (an
    /// instruction's destination, or a stack parameter's register) and the
    /// bytes that keep rsp aligned. Checks that every slot is below its
    /// slot count, since a slot beyond the frame would overwrite a saved
    /// register or the return address.
    fn frame_of(&self, f: &MFunction) -> LResult<Frame> {
        if f.k != self.k {
            return Err(LowerError::MixedRegisterCounts { function: f.name.clone(), k: f.k, main: self.k });
        }
        let convention = self.convention();
        let mut written: Vec<Reg> =
            f.params.iter().filter_map(|&(l, _)| if let Loc::Reg(r) = l { Some(r) } else { None }).collect();
        for inst in f.blocks.values().flat_map(|b| &b.insts) {
            written.extend(inst.inst.reg_writes());
            let slot = match &inst.inst {
                MInst::Spill { slot, .. } | MInst::Reload { slot, .. } => Some(*slot),
                MInst::Call(call) => call.args.iter().find_map(|l| {
                    if let Loc::Slot(s) = l {
                        (s.0 >= f.slot_count).then_some(*s)
                    } else {
                        None
                    }
                }),
                _ => None,
            };
            if let Some(s) = slot.filter(|s| s.0 >= f.slot_count) {
                return Err(LowerError::SlotOutOfRange {
                    function: f.name.clone(),
                    slot: s.0,
                    slot_count: f.slot_count,
                });
            }
        }
        let saved: Vec<Reg> = convention.callee_saved.iter().copied().filter(|r| written.contains(r)).collect();
        let slots = 8 * u64::from(f.slot_count);
        let pad = if (8 + 8 * saved.len() as u64 + slots).is_multiple_of(16) { 0 } else { 8 };
        let frame_bytes = u32::try_from(slots + pad).ok().filter(|&b| i32::try_from(b).is_ok());
        let frame_bytes = frame_bytes.ok_or(LowerError::SlotTooFar(f.slot_count))?;
        Ok(Frame { saved, frame_bytes, slot_count: f.slot_count })
    }

    /// The call-depth check, the pushes of the saved registers, the frame,
    /// and the stack parameters fetched from the caller's frame.
    fn prologue(&mut self, f: &MFunction, frame: Frame) -> LResult<()> {
        let start = self.a.instructions().len();
        self.a.sub(qword_ptr(layout::CALL_DEPTH as i32), 1).map_err(asm_err)?;
        let depth_exceeded = self.state().depth_exceeded;
        self.a.jb(depth_exceeded).map_err(asm_err)?;
        for &r in &frame.saved {
            let reg = self.r64(r)?;
            self.a.push(reg).map_err(asm_err)?;
        }
        if frame.frame_bytes > 0 {
            self.a.sub(rsp, frame.frame_bytes as i32).map_err(asm_err)?;
        }
        self.note(start, None, || {
            let saved: Vec<String> = frame.saved.iter().map(|r| r.to_string()).collect();
            format!(
                "fn {}: call depth, save [{}], frame of {} bytes ({} slot(s))",
                f.name,
                saved.join(", "),
                frame.frame_bytes,
                frame.slot_count
            )
        });
        let arg_regs = self.convention().arg_regs.clone();
        // The caller's stack arguments start above the return address.
        let above = u64::from(frame.frame_bytes) + 8 * frame.saved.len() as u64 + 8;
        for (i, &(loc, _)) in f.params.iter().enumerate() {
            if let Some(&r) = arg_regs.get(i) {
                if loc != Loc::Reg(r) {
                    return Err(LowerError::ParameterLocation { function: f.name.clone(), index: i, loc, reg: r });
                }
                continue;
            }
            let start = self.a.instructions().len();
            let from = stack_operand(above + 8 * (i - arg_regs.len()) as u64)?;
            match loc {
                Loc::Reg(r) => {
                    let reg = self.r64(r)?;
                    self.a.mov(reg, from).map_err(asm_err)?;
                }
                Loc::Slot(s) => {
                    self.a.push(from).map_err(asm_err)?;
                    self.a.pop(stack_operand(8 * u64::from(s.0))?).map_err(asm_err)?;
                }
            }
            self.note(start, None, || format!("stack parameter {i} into {loc}"));
        }
        self.frames.as_mut().expect("module lowering").frame = frame;
        Ok(())
    }

    /// `return r`: the result in rax, the call-depth word given back, the
    /// frame freed, the saved registers popped in reverse order, `ret`.
    pub(super) fn epilogue(&mut self, r: Reg) -> LResult<()> {
        let value = self.r64(r)?;
        if r != RAX {
            self.a.mov(iced_x86::code_asm::registers::gpr64::rax, value).map_err(asm_err)?;
        }
        self.a.add(qword_ptr(layout::CALL_DEPTH as i32), 1).map_err(asm_err)?;
        let frame = self.state().frame.clone();
        if frame.frame_bytes > 0 {
            self.a.add(rsp, frame.frame_bytes as i32).map_err(asm_err)?;
        }
        for &saved in frame.saved.iter().rev() {
            let reg = self.r64(saved)?;
            self.a.pop(reg).map_err(asm_err)?;
        }
        self.a.ret().map_err(asm_err)
    }

    /// A call: the stack arguments pushed right to left over the alignment
    /// padding, the `call`, and their release. The register arguments are
    /// already in the convention's registers (the MIR says so; checked).
    pub(super) fn call(&mut self, call: &MCall) -> LResult<()> {
        let state = self.state();
        let (label, arity) = *state
            .functions
            .get(&call.callee)
            .ok_or_else(|| LowerError::UnknownCallee { callee: call.callee.clone() })?;
        if arity != call.args.len() {
            return Err(LowerError::CallArity { callee: call.callee.clone(), args: call.args.len(), params: arity });
        }
        let arg_regs = state.convention.arg_regs.clone();
        let total = u64::from(state.convention.stack_argument_bytes(call.args.len()));
        let slot_count = state.frame.slot_count;
        for (i, (&loc, &r)) in call.args.iter().zip(&arg_regs).enumerate() {
            if loc != Loc::Reg(r) {
                return Err(LowerError::ArgumentLocation { callee: call.callee.clone(), index: i, loc, reg: r });
            }
        }
        let stack_args = call.args.get(arg_regs.len()..).unwrap_or(&[]);
        let mut pushed = total - 8 * stack_args.len() as u64;
        if pushed > 0 {
            self.a.sub(rsp, pushed as i32).map_err(asm_err)?;
        }
        for &loc in stack_args.iter().rev() {
            match loc {
                Loc::Reg(r) => {
                    let reg = self.r64(r)?;
                    self.a.push(reg).map_err(asm_err)?;
                }
                Loc::Slot(s) if s.0 < slot_count => {
                    self.a.push(stack_operand(8 * u64::from(s.0) + pushed)?).map_err(asm_err)?;
                }
                Loc::Slot(s) => return Err(LowerError::SlotTooFar(s.0)),
            }
            pushed += 8;
        }
        self.a.call(label).map_err(asm_err)?;
        if total > 0 {
            let total = i32::try_from(total).map_err(|_| LowerError::SlotTooFar(u32::MAX))?;
            self.a.add(rsp, total).map_err(asm_err)?;
        }
        Ok(())
    }

    /// The exit of a run that passed the call-depth bound.
    pub(super) fn depth_exceeded_exit(&mut self) -> LResult<()> {
        let start = self.a.instructions().len();
        let mut label = self.state().depth_exceeded;
        self.a.set_label(&mut label).map_err(asm_err)?;
        self.a.mov(qword_ptr(layout::STATUS as i32), layout::STATUS_CALL_DEPTH_EXCEEDED as i32).map_err(asm_err)?;
        let exit = self.exit;
        self.a.jmp(exit).map_err(asm_err)?;
        self.note(start, None, || "call depth exceeded".into());
        Ok(())
    }
}
