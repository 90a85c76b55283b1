//! Execution of the lowered x86-64 code under the Unicorn emulator.
//!
//! One engine per thread is created on first use and reused (`ssaref
//! bench-emulator` measures a fresh engine per run against a reused one). The
//! memory map is fixed (`x86_lower::layout`): code, `mem`, a control page
//! (return value, status, trace count), the trace, and the stack. Between
//! runs, the code is rewritten and Unicorn's translation cache for it
//! flushed, every general-purpose register and the flags are reset to 0,
//! `mem` and the control words are cleared, and the arguments are placed in
//! their parameter locations (registers or spill slots).
//!
//! The CPU model is Haswell, the first with BMI2 (`shlx`, `sarx`).
//!
//! The outcome is read back in the interpreter's terms: the trace, then
//! `return v` (the status word says the code returned) or `trap
//! divide-error` (the CPU raised #DE, interrupt 0), and the final `mem`.
//! Everything else is an error of ssaref, not a program outcome: another
//! exception, an access to unmapped memory, the budget running out. A full
//! trace is a limit of the harness: the differential check calls the stage
//! inconclusive when the reference's trace is at least that long.
//!
//! A module with calls (`x86_frames.rs`) starts at its entry stub with
//! rsp 16-byte aligned and `main`'s arguments placed by the calling
//! convention; the callee-saved registers of the convention hold distinct
//! poison values ([`callee_saved_poison`]), and a run that returns with
//! one of them changed is [`EmuError::CalleeSavedNotRestored`], a
//! divergence. The stack is mapped for the call-depth bound times the
//! largest activation; the call-depth word of the control page is set to
//! `ast::MAX_CALL_DEPTH`, and a run that passes it ends
//! `call-depth-exceeded`, the oracle's inconclusive end.
//!
//! The budget counts block entries and is enforced by the code itself (see
//! `x86_lower.rs`, "The budget"): the harness stores it at
//! `layout::FUEL` before the run. Unicorn runs without an instruction count,
//! which would make it instrument every instruction.

use crate::ast::MEM_WORDS;
use crate::machine::x86_lower::CallHarness;
use crate::machine::x86_lower::{layout, X86Code};
use crate::mir::{Loc, Reg, MAX_REGS};
use crate::outcome::{End, Outcome, Trap};
use std::cell::RefCell;
use unicorn_engine::unicorn_const::{Arch, Mode, Prot};
use unicorn_engine::{RegisterX86, Unicorn, X86CpuModel};

/// Registers in allocation order (`mir::REGISTER_NAMES`).
const REGS: [RegisterX86; MAX_REGS] = [
    RegisterX86::RAX,
    RegisterX86::RCX,
    RegisterX86::RDX,
    RegisterX86::RBX,
    RegisterX86::RBP,
    RegisterX86::RSI,
    RegisterX86::RDI,
    RegisterX86::R8,
    RegisterX86::R9,
    RegisterX86::R10,
    RegisterX86::R11,
    RegisterX86::R12,
    RegisterX86::R13,
    RegisterX86::R14,
    RegisterX86::R15,
];

const PAGE: u64 = 4096;
const MEM_BYTES: u64 = MEM_WORDS as u64 * 8;

fn round_up(x: u64) -> u64 {
    x.div_ceil(PAGE).max(1) * PAGE
}

/// Why a run produced no program outcome: always an error of ssaref (or a
/// budget set too low), never something the program did.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum EmuError {
    /// The budget of block entries ran out before the code reached its exit.
    /// `trace` holds what the code wrote before.
    BudgetExhausted { budget: u64, pc: u64, trace: Vec<i64> },
    /// An `out` found the trace full: a limit of the harness, not of the
    /// program. `trace` holds the [`layout::TRACE_CAPACITY`] words written.
    TraceFull { trace: Vec<i64> },
    /// Unicorn itself fails at the step `what` (opening the engine, mapping
    /// a region, ...).
    Unicorn { what: &'static str, error: unicorn_engine::unicorn_const::uc_error },
    /// The operating system refused the address space of a new engine's
    /// translation buffer (a limit such as `prlimit --as`): a limit of the
    /// harness, like a full trace.
    NoAddressSpace { bytes: u64 },
    /// A module with calls returned with a callee-saved register of the
    /// convention not holding the value the harness put there before the
    /// entry stub: a prologue or epilogue that does not give it back.
    CalleeSavedNotRestored { register: &'static str, poison: u64, found: u64 },
    /// The stack for the call-depth bound times the largest activation does
    /// not fit below [`layout::STACK_TOP`]: a limit of the harness.
    StackTooLarge { bytes: u64 },
    /// Anything else: a fault, an unexpected interrupt, bad parameters.
    Fault(String),
}

impl std::fmt::Display for EmuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmuError::BudgetExhausted { budget, pc, .. } => {
                write!(f, "the budget of {budget} block entries ran out (at {pc:#x})")
            }
            EmuError::TraceFull { trace } => write!(f, "the trace is full ({} words)", trace.len()),
            EmuError::Unicorn { what, error } => write!(f, "unicorn: {what}: {error:?}"),
            EmuError::NoAddressSpace { bytes } => write!(
                f,
                "the operating system refused the emulator {} MiB of address space for its translations",
                bytes >> 20
            ),
            EmuError::CalleeSavedNotRestored { register, poison, found } => write!(
                f,
                "callee-saved {register} was not restored: the harness put {poison:#x} there before the entry stub and found {found:#x} at the end"
            ),
            EmuError::StackTooLarge { bytes } => {
                write!(f, "a stack of {bytes} bytes for the call-depth bound does not fit in the emulator's map")
            }
            EmuError::Fault(m) => f.write_str(m),
        }
    }
}

impl From<String> for EmuError {
    fn from(s: String) -> Self {
        EmuError::Fault(s)
    }
}

/// What the interrupt hook saw.
#[derive(Default)]
struct HookState {
    interrupt: Option<u32>,
}

/// A Unicorn engine set up for ssaref's machine model.
pub struct Emulator {
    uc: Unicorn<'static, HookState>,
    code_mapped: u64,
    stack_mapped: u64,
    /// The code of the previous run: the same code is neither rewritten nor
    /// retranslated, and different code flushes the old translations.
    last_code: Vec<u8>,
    /// The CPU state of a fresh engine. Restored before every run: a run
    /// that ended by #DE leaves the CPU in the middle of delivering the
    /// exception (the hook stopped it), and a second #DE would then be
    /// delivered as a double fault.
    fresh: unicorn_engine::Context,
}

fn uc_err(what: &'static str, error: unicorn_engine::unicorn_const::uc_error) -> EmuError {
    EmuError::Unicorn { what, error }
}

/// The size of each engine's translation buffer, which Unicorn reserves
/// as address space when the engine starts (its default is 1 GiB). The
/// code of a program is a few megabytes at most; a buffer that fills up is
/// flushed and refilled, so the size costs time, never correctness.
pub const TRANSLATION_BUFFER_BYTES: u32 = 256 << 20;

/// Sets the translation buffer of the engine `uc`, not yet started, to
/// [`TRANSLATION_BUFFER_BYTES`], and checks that the operating system
/// grants that much address space. Unicorn ends the process (exit status 1,
/// "Could not allocate dynamic translator buffer") when the reservation
/// fails; the check turns that into [`EmuError::NoAddressSpace`] first.
pub fn prepare_translation_buffer<D>(uc: &mut Unicorn<'_, D>) -> Result<(), EmuError> {
    use unicorn_engine::unicorn_const::ControlType;
    let bytes = TRANSLATION_BUFFER_BYTES;
    let write = ControlType(ControlType::TCG_BUFFER_SIZE.0 | ControlType::IO_WRITE.0);
    // SAFETY: the handle is the live engine of `uc`; the control takes one
    // `uint32_t` and only records it for the engine's start.
    let set = unsafe { unicorn_engine::uc_ctl(uc.get_handle(), write, bytes) };
    Result::<(), _>::from(set).map_err(|e| uc_err("translation buffer size", e))?;
    // The probe maps what Unicorn will map (private, readable and
    // writable, so that it counts against RLIMIT_AS and RLIMIT_DATA alike),
    // without committing memory, and unmaps it at once.
    // SAFETY: an anonymous mapping at an address of the kernel's choice,
    // unmapped below with its own address and length.
    unsafe {
        let len = bytes as usize;
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
        let probe = libc::mmap(std::ptr::null_mut(), len, prot, flags, -1, 0);
        if probe == libc::MAP_FAILED {
            return Err(EmuError::NoAddressSpace { bytes: u64::from(bytes) });
        }
        libc::munmap(probe, len);
    }
    Ok(())
}

impl Emulator {
    /// Creates an engine with the fixed regions mapped.
    pub fn new() -> Result<Emulator, EmuError> {
        let mut uc =
            Unicorn::new_with_data(Arch::X86, Mode::MODE_64, HookState::default()).map_err(|e| uc_err("open", e))?;
        prepare_translation_buffer(&mut uc)?;
        uc.ctl_set_cpu_model(X86CpuModel::HASWELL as i32).map_err(|e| uc_err("cpu model", e))?;
        uc.mem_map(layout::MEM_BASE, MEM_BYTES, Prot::READ | Prot::WRITE).map_err(|e| uc_err("map mem", e))?;
        uc.mem_map(layout::CONTROL_PAGE, PAGE, Prot::READ | Prot::WRITE).map_err(|e| uc_err("map control", e))?;
        uc.mem_map(layout::TRACE_BASE, layout::TRACE_CAPACITY * 8, Prot::READ | Prot::WRITE)
            .map_err(|e| uc_err("map trace", e))?;
        uc.add_intr_hook(|uc, intno| {
            uc.get_data_mut().interrupt = Some(intno);
            let _ = uc.emu_stop();
        })
        .map_err(|e| uc_err("hook", e))?;
        let fresh = uc.context_init().map_err(|e| uc_err("save context", e))?;
        Ok(Emulator { uc, code_mapped: 0, stack_mapped: 0, last_code: Vec::new(), fresh })
    }

    fn ensure_code(&mut self, len: u64) -> Result<(), EmuError> {
        if len <= self.code_mapped {
            return Ok(());
        }
        if self.code_mapped > 0 {
            self.uc.mem_unmap(layout::CODE_BASE, self.code_mapped).map_err(|e| uc_err("unmap code", e))?;
        }
        let size = round_up(len.max(64 * 1024)).next_power_of_two();
        self.uc.mem_map(layout::CODE_BASE, size, Prot::READ | Prot::EXEC).map_err(|e| uc_err("map code", e))?;
        self.code_mapped = size;
        Ok(())
    }

    fn ensure_stack(&mut self, len: u64) -> Result<(), EmuError> {
        if len <= self.stack_mapped {
            return Ok(());
        }
        // The stack may not reach down into the trace.
        let room = layout::STACK_TOP - (layout::TRACE_BASE + layout::TRACE_CAPACITY * 8);
        if round_up(len.max(64 * 1024)).next_power_of_two() > room {
            return Err(EmuError::StackTooLarge { bytes: len });
        }
        if self.stack_mapped > 0 {
            self.uc
                .mem_unmap(layout::STACK_TOP - self.stack_mapped, self.stack_mapped)
                .map_err(|e| uc_err("unmap stack", e))?;
        }
        let size = round_up(len.max(64 * 1024)).next_power_of_two();
        self.uc
            .mem_map(layout::STACK_TOP - size, size, Prot::READ | Prot::WRITE)
            .map_err(|e| uc_err("map stack", e))?;
        self.stack_mapped = size;
        Ok(())
    }

    /// Writes `bytes` as the code to run, unless it is already there, and
    /// flushes the translations of the code it replaces.
    fn load_code(&mut self, bytes: &[u8]) -> Result<(), EmuError> {
        if self.last_code != bytes {
            // Forget the translations of the previous program's code.
            if !self.last_code.is_empty() {
                let end = layout::CODE_BASE + self.last_code.len() as u64;
                self.uc.ctl_remove_cache(layout::CODE_BASE, end).map_err(|e| uc_err("flush cache", e))?;
            }
            self.uc.mem_write(layout::CODE_BASE, bytes).map_err(|e| uc_err("write code", e))?;
            self.last_code.clear();
            self.last_code.extend_from_slice(bytes);
        }
        Ok(())
    }

    /// Places `args` in the parameter locations of `code` (a missing
    /// argument is 0), its spill slots addressed from `rsp`.
    fn place_params(&mut self, code: &X86Code, args: &[i64], rsp: u64) -> Result<(), EmuError> {
        for (i, loc) in code.params.iter().enumerate() {
            let v = args.get(i).copied().unwrap_or(0);
            match *loc {
                Loc::Reg(r) => {
                    let reg = REGS.get(usize::from(r.0)).filter(|_| usize::from(r.0) < code.k);
                    let reg = reg.ok_or_else(|| format!("parameter {i} in {r}, outside the allocatable registers"))?;

                    self.uc.reg_write(*reg, v as u64).map_err(|e| uc_err("write parameter", e))?;
                }
                Loc::Slot(s) => {
                    if s.0 >= code.slot_count {
                        let n = code.slot_count;
                        return Err(EmuError::Fault(format!("parameter {i} in {s}, beyond the {n} slot(s)")));
                    }
                    let at = rsp + u64::from(s.0) * 8;
                    self.uc.mem_write(at, &v.to_le_bytes()).map_err(|e| uc_err("write parameter", e))?;
                }
            }
        }
        Ok(())
    }

    /// Runs `code` with `args`, entering at most `budget` blocks.
    pub fn run(&mut self, code: &X86Code, args: &[i64], budget: u64) -> Result<Outcome, EmuError> {
        if args.len() > code.params.len() {
            let n = code.params.len();
            return Err(EmuError::Fault(format!("{} takes {n} argument(s), got {}", code.name, args.len())));
        }
        let len = code.bytes.len() as u64;
        self.ensure_code(len)?;
        let slot_bytes = u64::from(code.slot_count) * 8;
        let harness = code.harness.as_ref();
        let stack_args = harness.map_or(0, |h| 8 * args.len().saturating_sub(h.arg_regs.len()) as u64);
        match harness {
            Some(h) => self.ensure_stack(h.stack_bytes.saturating_add(stack_args + 128))?,
            None => self.ensure_stack(slot_bytes + layout::PUSH_RESERVE + 64)?,
        }
        self.load_code(&code.bytes)?;
        self.uc.mem_write(layout::MEM_BASE, &[0u8; MEM_BYTES as usize]).map_err(|e| uc_err("clear mem", e))?;
        let mut control = [0u8; layout::CONTROL_BYTES];
        control[24..32].copy_from_slice(&budget.to_le_bytes());
        control[32..40].copy_from_slice(&(crate::ast::MAX_CALL_DEPTH as u64).to_le_bytes());
        self.uc.mem_write(layout::CONTROL_PAGE, &control).map_err(|e| uc_err("clear control", e))?;
        self.uc.context_restore(&self.fresh).map_err(|e| uc_err("restore context", e))?;
        for r in REGS {
            self.uc.reg_write(r, 0).map_err(|e| uc_err("reset register", e))?;
        }
        self.uc.reg_write(RegisterX86::RFLAGS, 0x2).map_err(|e| uc_err("reset flags", e))?;
        if let Some(h) = harness {
            // rsp: 16-byte aligned, the stack arguments above it.
            let rsp = (layout::STACK_TOP - stack_args - 64) & !15;
            self.uc.reg_write(RegisterX86::RSP, rsp).map_err(|e| uc_err("set rsp", e))?;
            self.place_call_args(h, code, args, rsp)?;
        } else {
            // rsp: 16-byte aligned, the slots above it, room for pushes below.
            let rsp = (layout::STACK_TOP - slot_bytes - 64) & !15;
            self.uc.reg_write(RegisterX86::RSP, rsp).map_err(|e| uc_err("set rsp", e))?;
            self.place_params(code, args, rsp)?;
        }
        self.uc.get_data_mut().interrupt = None;
        let started = self.uc.emu_start(layout::CODE_BASE, code.exit, 0, 0);
        let interrupt = self.uc.get_data().interrupt;
        let mut control = [0u8; layout::CONTROL_BYTES];
        self.uc.mem_read(layout::CONTROL_PAGE, &mut control).map_err(|e| uc_err("read control", e))?;
        let word = |i: usize| u64::from_le_bytes(control[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        let (result, status, count) = (word(0) as i64, word(1), word(2));
        let end = match (started, interrupt) {
            (_, Some(0)) => End::Trap(Trap::DivideError),
            (_, Some(n)) => return Err(EmuError::Fault(format!("the code raised interrupt {n}"))),
            (Err(e), None) => {
                let pc = self.uc.pc_read().unwrap_or(0);
                return Err(EmuError::Fault(format!("emulator fault at {pc:#x}: {e:?}")));
            }
            (Ok(()), None) => match status {
                layout::STATUS_RETURNED => {
                    if let Some(h) = harness {
                        self.check_callee_saved(h)?;
                    }
                    End::Return(result)
                }
                layout::STATUS_CALL_DEPTH_EXCEEDED => End::CallDepthExceeded,
                layout::STATUS_TRACE_FULL => return Err(EmuError::TraceFull { trace: self.read_trace(count)? }),
                layout::STATUS_OUT_OF_FUEL => {
                    let pc = self.uc.pc_read().unwrap_or(0);
                    return Err(EmuError::BudgetExhausted { budget, pc, trace: self.read_trace(count)? });
                }
                other => {
                    let pc = self.uc.pc_read().unwrap_or(0);
                    return Err(EmuError::Fault(format!("the code stopped at {pc:#x} with status {other}")));
                }
            },
        };
        let trace = self.read_trace(count)?;
        let mut mem_bytes = vec![0u8; MEM_BYTES as usize];
        self.uc.mem_read(layout::MEM_BASE, &mut mem_bytes).map_err(|e| uc_err("read mem", e))?;
        let mem = mem_bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
        Ok(Outcome { trace, end, mem })
    }
}

/// The value the harness puts in the callee-saved register `r` before the
/// entry stub of a module with calls: distinct for each register, and
/// unlike any small number a program computes by chance.
pub fn callee_saved_poison(r: Reg) -> u64 {
    0x5afe_c0de_0000_0000 | ((u64::from(r.0) + 1) * 0x0101_0101)
}

impl Emulator {
    /// Places `main`'s arguments of a module with calls by the convention
    /// (registers, then the stack words at `rsp`, `rsp + 8`, ... where the
    /// entry stub's `call` leaves them as the first stack arguments), and
    /// poisons the callee-saved registers.
    fn place_call_args(&mut self, h: &CallHarness, code: &X86Code, args: &[i64], rsp: u64) -> Result<(), EmuError> {
        let reg = |r: Reg| REGS.get(usize::from(r.0)).copied().ok_or_else(|| format!("register {r} out of range"));
        for &r in &h.callee_saved {
            self.uc.reg_write(reg(r)?, callee_saved_poison(r)).map_err(|e| uc_err("poison register", e))?;
        }
        for i in 0..code.params.len() {
            let v = args.get(i).copied().unwrap_or(0);
            match h.arg_regs.get(i) {
                Some(&r) => self.uc.reg_write(reg(r)?, v as u64).map_err(|e| uc_err("write argument", e))?,
                None => {
                    let at = rsp + 8 * (i - h.arg_regs.len()) as u64;
                    self.uc.mem_write(at, &v.to_le_bytes()).map_err(|e| uc_err("write argument", e))?;
                }
            }
        }
        Ok(())
    }

    /// Checks that every callee-saved register holds its poison again.
    fn check_callee_saved(&mut self, h: &CallHarness) -> Result<(), EmuError> {
        for &r in &h.callee_saved {
            let Some((&reg, name)) = REGS.get(usize::from(r.0)).zip(r.name()) else { continue };
            let found = self.uc.reg_read(reg).map_err(|e| uc_err("read register", e))?;
            let poison = callee_saved_poison(r);
            if found != poison {
                return Err(EmuError::CalleeSavedNotRestored { register: name, poison, found });
            }
        }
        Ok(())
    }

    /// The first `count` words of the trace (at most its capacity).
    fn read_trace(&mut self, count: u64) -> Result<Vec<i64>, EmuError> {
        let count = count.min(layout::TRACE_CAPACITY);
        let mut trace_bytes = vec![0u8; (count * 8) as usize];
        self.uc.mem_read(layout::TRACE_BASE, &mut trace_bytes).map_err(|e| uc_err("read trace", e))?;
        Ok(trace_bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes"))).collect())
    }
}

thread_local! {
    static ENGINE: RefCell<Option<Emulator>> = const { RefCell::new(None) };
}

/// Runs `code` on this thread's engine, creating it on first use.
pub fn run_x86(code: &X86Code, args: &[i64], budget: u64) -> Result<Outcome, EmuError> {
    ENGINE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let emu = match slot.take() {
            Some(emu) => emu,
            None => Emulator::new()?,
        };
        slot.insert(emu).run(code, args, budget)
    })
}

/// The budget (block entries) for a stage whose MIR run takes at most
/// `mir_fuel` steps: every block entered executes its terminator, one MIR
/// step, so a correct lowering enters at most that many blocks.
pub fn budget_for(mir_fuel: u64) -> u64 {
    mir_fuel.saturating_add(1)
}

/// What [`bench_emulator`] measured, in milliseconds per run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmulatorBench {
    pub runs: usize,
    /// A new engine for every run (open, map, run, close).
    pub fresh_engine_ms: f64,
    /// One engine, a different program every run (what a campaign does).
    pub reused_new_code_ms: f64,
    /// One engine, the same program again and again (translations cached).
    pub reused_same_code_ms: f64,
}

/// Times the three ways of running `programs` side by side (for
/// `ssaref bench-emulator`; a benchmark, not a test). Each is run with the
/// given budget; outcomes are ignored.
pub fn bench_emulator(programs: &[(X86Code, Vec<i64>)], budget: u64) -> Result<EmulatorBench, EmuError> {
    use std::time::Instant;
    let n = programs.len().max(1) as f64;
    let t = Instant::now();
    for (code, args) in programs {
        let mut emu = Emulator::new()?;
        let _ = emu.run(code, args, budget);
    }
    let fresh = t.elapsed().as_secs_f64() * 1e3 / n;
    let mut emu = Emulator::new()?;
    let t = Instant::now();
    for (code, args) in programs {
        let _ = emu.run(code, args, budget);
    }
    let reused = t.elapsed().as_secs_f64() * 1e3 / n;
    // Each program twice in a row; only the second run, whose code is
    // already translated, is timed.
    let mut same = std::time::Duration::ZERO;
    for (code, args) in programs {
        let _ = emu.run(code, args, budget);
        let t = Instant::now();
        let _ = emu.run(code, args, budget);
        same += t.elapsed();
    }
    Ok(EmulatorBench {
        runs: programs.len(),
        fresh_engine_ms: fresh,
        reused_new_code_ms: reused,
        reused_same_code_ms: same.as_secs_f64() * 1e3 / n,
    })
}
