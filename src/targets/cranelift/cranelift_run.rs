//! Compiling the Cranelift functions of a program for x86-64, linking them,
//! and running the code under Unicorn.
//!
//! Compilation runs with Cranelift's IR verifier and regalloc2's symbolic
//! checker on, one function at a time. The functions are laid out one
//! after the other, `main` first, each at a 16-byte boundary, and linked
//! here: the only relocation the code may need is the 32-bit
//! displacement of a direct `call` to another function of the program
//! (`X86CallPCRel4`, from a `colocated` callee), resolved by the callee's
//! name; anything else (a libcall, a constant pool, an unknown callee) is
//! an error. Every function's trap records are kept, at their offsets in
//! the linked code, to tell a trap's meaning.
//!
//! The run follows `machine/emulator.rs` (one Unicorn engine per thread,
//! reused, the Haswell CPU model, the fresh CPU state restored before every
//! run, translations of the previous code flushed), with a memory map of
//! its own: the code, a page holding the return address's target, the
//! context block (`cranelift_ops.rs`: `mem`, the trace, the fuel) and a
//! stack. The function is entered as the System V ABI says: the context
//! block's address in `rdi`, the arguments in `rsi`, `rdx`, `rcx`, `r8`,
//! `r9`, then on the stack, and a return address whose target stops the
//! emulator. The stack holds [`STACK_BYTES`], room for the oracle's
//! `ast::MAX_CALL_DEPTH` activations of frames up to 64 KiB each: a run
//! the oracle finishes within that depth never meets the end of the stack,
//! and code that recurses deeper faults there (a crash, which is a finding). The outcome is read back in the oracle's terms: the trace,
//! `return rax` or the trap, and the final `mem`. A trap is the CPU
//! raising #DE (`idiv`) or #UD (`ud2`) at an instruction whose trap record
//! says `int_divz` or `int_ovf`: the trap `divide-error`. Anything else
//! (the fuel's or the trace's trap, a fault, a trap without a record) is
//! an error, not a program outcome.

use super::cranelift_ops::{self as ops, OUT_OF_FUEL, TRACE_FULL};
use crate::ast::MEM_WORDS;
use crate::outcome::{End, Outcome, Trap};
use cranelift_codegen::binemit::Reloc;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{ExternalName, Function, TrapCode, UserFuncName};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_codegen::FinalizedRelocTarget;
use std::cell::RefCell;
use std::time::Duration;
use unicorn_engine::unicorn_const::{uc_error, Arch, Mode, Prot};
use unicorn_engine::{RegisterX86, Unicorn, X86CpuModel};

/// Where the code is mapped.
const CODE_BASE: u64 = 0x0010_0000;
/// The page the return address points into; reaching it ends the run.
const EXIT_PAGE: u64 = 0x0700_0000;
/// Where the context block is mapped.
const CONTEXT_BASE: u64 = 0x1000_0000;
/// The top of the stack.
const STACK_TOP: u64 = 0x4000_0000;
/// The stack's size.
const STACK_BYTES: u64 = 64 << 20;
const PAGE: u64 = 4096;

/// Why Cranelift code gave no program outcome.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum CraneliftError {
    /// Cranelift rejected the function or failed: its verifier, the
    /// register allocator's checker, an unsupported feature, a panic.
    Compile(String),
    /// The fuel ran out: the code looped longer than the program can.
    OutOfFuel,
    /// Unicorn's wall-clock limit ran out before the fuel did: a limit of
    /// the harness on a loaded machine, not a finding.
    TimeUp,
    /// An `out` found the trace full: a limit of the harness.
    TraceFull,
    /// A fault, an unexpected trap, a Unicorn failure.
    Run(String),
}

impl std::fmt::Display for CraneliftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CraneliftError::Compile(m) => write!(f, "cranelift: {m}"),
            CraneliftError::OutOfFuel => f.write_str("the code ran out of fuel"),
            CraneliftError::TimeUp => f.write_str("the emulator's wall-clock limit ran out before the fuel"),
            CraneliftError::TraceFull => write!(f, "the trace is full ({} words)", ops::TRACE_CAPACITY),
            CraneliftError::Run(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for CraneliftError {}

/// Compiled code: the bytes and the trap records (offset, code).
#[derive(Clone, Debug)]
pub struct Compiled {
    pub bytes: Vec<u8>,
    pub traps: Vec<(u32, TrapCode)>,
    /// Number of `i64` parameters after the context block's address.
    pub params: usize,
}

/// The target ISA for the given shared settings (`name = value` pairs) and
/// x86-64 CPU preset (`baseline` or a preset name such as `haswell`).
pub fn isa(shared: &[(&str, &str)], cpu: &str) -> Result<OwnedTargetIsa, CraneliftError> {
    let err = |m: String| CraneliftError::Compile(m);
    let mut flags = settings::builder();
    for (name, value) in shared {
        flags.set(name, value).map_err(|e| err(format!("setting {name}={value}: {e}")))?;
    }
    let mut builder = cranelift_codegen::isa::lookup_by_name("x86_64").map_err(|e| err(e.to_string()))?;
    if cpu != "baseline" {
        builder.enable(cpu).map_err(|e| err(format!("cpu {cpu}: {e}")))?;
    }
    builder.finish(settings::Flags::new(flags)).map_err(|e| err(e.to_string()))
}

/// The name a translated function carries (`UserFuncName::testcase`), as
/// its callers' `call`s name it.
fn function_name(func: &Function) -> Vec<u8> {
    match &func.name {
        UserFuncName::Testcase(t) => t.raw().to_vec(),
        UserFuncName::User(u) => format!("u{}:{}", u.namespace, u.index).into_bytes(),
    }
}

/// Compiles the functions of a program, `funcs[0]` being `main` with
/// `params` parameters, and links them (a panic of Cranelift is caught and
/// reported as an error).
pub fn compile(funcs: &[Function], isa: &OwnedTargetIsa, params: usize) -> Result<Compiled, CraneliftError> {
    let mut bytes: Vec<u8> = Vec::new();
    let mut traps = Vec::new();
    let mut starts: Vec<(Vec<u8>, usize)> = Vec::with_capacity(funcs.len());
    // (where the displacement goes, callee, addend) per call.
    let mut calls: Vec<(usize, ExternalName, i64)> = Vec::new();
    for func in funcs {
        while !bytes.len().is_multiple_of(16) {
            bytes.push(0xcc);
        }
        let start = bytes.len();
        let code = compile_one(func, isa)?;
        starts.push((function_name(func), start));
        for r in &code.relocs {
            match (&r.kind, &r.target) {
                (Reloc::X86CallPCRel4 | Reloc::X86CallPLTRel4, FinalizedRelocTarget::ExternalName(name)) => {
                    calls.push((start + r.offset as usize, name.clone(), r.addend));
                }
                _ => return Err(CraneliftError::Compile(format!("the code needs a relocation: {r:?}"))),
            }
        }
        traps.extend(code.traps.iter().map(|&(o, c)| (o + start as u32, c)));
        bytes.extend_from_slice(&code.bytes);
    }
    for (at, name, addend) in calls {
        let callee = match &name {
            ExternalName::TestCase(t) => starts.iter().find(|(n, _)| n == t.raw()).map(|&(_, s)| s),
            _ => None,
        };
        let Some(callee) = callee else {
            return Err(CraneliftError::Compile(format!(
                "a call of {}, which the program does not define",
                name.display(None)
            )));
        };
        let displacement = callee as i64 + addend - at as i64;
        let field = i32::try_from(displacement).map_err(|_| CraneliftError::Compile("a call out of range".into()))?;
        bytes[at..at + 4].copy_from_slice(&field.to_le_bytes());
    }
    Ok(Compiled { bytes, traps, params })
}

/// One function's code before linking.
struct Unlinked {
    bytes: Vec<u8>,
    traps: Vec<(u32, TrapCode)>,
    relocs: Vec<cranelift_codegen::FinalizedMachReloc>,
}

/// Compiles one function (a panic of Cranelift is caught and reported as
/// an error).
fn compile_one(func: &Function, isa: &OwnedTargetIsa) -> Result<Unlinked, CraneliftError> {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut ctx = Context::for_function(func.clone());
        match ctx.compile(&**isa, &mut ControlPlane::default()) {
            Ok(code) => Ok(Unlinked {
                bytes: code.code_buffer().to_vec(),
                traps: code.buffer.traps().iter().map(|t| (t.offset, t.code)).collect(),
                relocs: code.buffer.relocs().to_vec(),
            }),
            Err(e) => Err(CraneliftError::Compile(cranelift_codegen::print_errors::pretty_error(e.func, e.inner))),
        }
    }));
    match result {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into());
            Err(CraneliftError::Compile(format!("panicked: {msg}")))
        }
    }
}

fn round_up(x: u64) -> u64 {
    x.div_ceil(PAGE).max(1) * PAGE
}

#[derive(Default)]
struct HookState {
    interrupt: Option<u32>,
}

/// A Unicorn engine set up for Cranelift code.
struct Engine {
    uc: Unicorn<'static, HookState>,
    code_mapped: u64,
    last_code: Vec<u8>,
    fresh: unicorn_engine::Context,
}

fn uc_err(what: &str, e: uc_error) -> CraneliftError {
    CraneliftError::Run(format!("unicorn: {what}: {e:?}"))
}

/// The argument registers of the System V ABI after `rdi`.
const ARG_REGS: [RegisterX86; 5] =
    [RegisterX86::RSI, RegisterX86::RDX, RegisterX86::RCX, RegisterX86::R8, RegisterX86::R9];

/// Every general-purpose register, reset to 0 before a run.
const GPRS: [RegisterX86; 16] = [
    RegisterX86::RAX,
    RegisterX86::RCX,
    RegisterX86::RDX,
    RegisterX86::RBX,
    RegisterX86::RSP,
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

impl Engine {
    fn new() -> Result<Engine, CraneliftError> {
        let mut uc =
            Unicorn::new_with_data(Arch::X86, Mode::MODE_64, HookState::default()).map_err(|e| uc_err("open", e))?;
        uc.ctl_set_cpu_model(X86CpuModel::HASWELL as i32).map_err(|e| uc_err("cpu model", e))?;
        uc.mem_map(EXIT_PAGE, PAGE, Prot::READ | Prot::EXEC).map_err(|e| uc_err("map exit", e))?;
        uc.mem_map(CONTEXT_BASE, round_up(ops::CONTEXT_BYTES), Prot::READ | Prot::WRITE)
            .map_err(|e| uc_err("map context", e))?;
        uc.mem_map(STACK_TOP - STACK_BYTES, STACK_BYTES, Prot::READ | Prot::WRITE)
            .map_err(|e| uc_err("map stack", e))?;
        uc.add_intr_hook(|uc, intno| {
            uc.get_data_mut().interrupt = Some(intno);
            let _ = uc.emu_stop();
        })
        .map_err(|e| uc_err("hook", e))?;
        let fresh = uc.context_init().map_err(|e| uc_err("save context", e))?;
        Ok(Engine { uc, code_mapped: 0, last_code: Vec::new(), fresh })
    }

    fn load_code(&mut self, bytes: &[u8]) -> Result<(), CraneliftError> {
        let len = bytes.len() as u64;
        if len > self.code_mapped {
            if self.code_mapped > 0 {
                self.uc.mem_unmap(CODE_BASE, self.code_mapped).map_err(|e| uc_err("unmap code", e))?;
            }
            let size = round_up(len.max(64 * 1024)).next_power_of_two();
            if CODE_BASE + size > EXIT_PAGE {
                return Err(CraneliftError::Run(format!("{len} bytes of code do not fit")));
            }
            self.uc.mem_map(CODE_BASE, size, Prot::READ | Prot::EXEC).map_err(|e| uc_err("map code", e))?;
            self.code_mapped = size;
            self.last_code.clear();
        }
        if self.last_code != bytes {
            if !self.last_code.is_empty() {
                let end = CODE_BASE + self.last_code.len() as u64;
                self.uc.ctl_remove_cache(CODE_BASE, end).map_err(|e| uc_err("flush cache", e))?;
            }
            self.uc.mem_write(CODE_BASE, bytes).map_err(|e| uc_err("write code", e))?;
            self.last_code.clear();
            self.last_code.extend_from_slice(bytes);
        }
        Ok(())
    }

    fn run(&mut self, code: &Compiled, args: &[i64], fuel: u64, limit: Duration) -> Result<Outcome, CraneliftError> {
        if args.len() > code.params {
            return Err(CraneliftError::Run(format!("main takes {} argument(s), got {}", code.params, args.len())));
        }
        self.load_code(&code.bytes)?;
        let mem_bytes = MEM_WORDS * 8;
        self.uc.mem_write(CONTEXT_BASE, &vec![0u8; mem_bytes]).map_err(|e| uc_err("clear mem", e))?;
        let mut control = [0u8; 16];
        // Trace length 0; fuel + 1, since the code traps when it reaches 0.
        control[8..16].copy_from_slice(&fuel.saturating_add(1).to_le_bytes());
        self.uc
            .mem_write(CONTEXT_BASE + ops::TRACE_LEN_OFFSET as u64, &control)
            .map_err(|e| uc_err("clear control", e))?;
        self.uc.context_restore(&self.fresh).map_err(|e| uc_err("restore context", e))?;
        for r in GPRS {
            self.uc.reg_write(r, 0).map_err(|e| uc_err("reset register", e))?;
        }
        self.uc.reg_write(RegisterX86::RFLAGS, 0x2).map_err(|e| uc_err("reset flags", e))?;
        // Arguments past the fifth go on the stack above the return
        // address; at entry `rsp + 8` is 16-byte aligned.
        let value = |i: usize| args.get(i).copied().unwrap_or(0);
        let stacked = code.params.saturating_sub(ARG_REGS.len()) as u64;
        let base = (STACK_TOP - 4096 - stacked * 8) & !15;
        let rsp = base - 8;
        if STACK_TOP - rsp > STACK_BYTES / 2 {
            return Err(CraneliftError::Run(format!("{} arguments do not fit on the stack", code.params)));
        }
        self.uc.mem_write(rsp, &EXIT_PAGE.to_le_bytes()).map_err(|e| uc_err("write return address", e))?;
        for i in 0..code.params {
            match ARG_REGS.get(i) {
                Some(&r) => self.uc.reg_write(r, value(i) as u64).map_err(|e| uc_err("write argument", e))?,
                None => {
                    let at = base + (i - ARG_REGS.len()) as u64 * 8;
                    self.uc.mem_write(at, &value(i).to_le_bytes()).map_err(|e| uc_err("write argument", e))?;
                }
            }
        }
        self.uc.reg_write(RegisterX86::RDI, CONTEXT_BASE).map_err(|e| uc_err("write context", e))?;
        self.uc.reg_write(RegisterX86::RSP, rsp).map_err(|e| uc_err("set rsp", e))?;
        self.uc.get_data_mut().interrupt = None;
        let micros = u64::try_from(limit.as_micros()).unwrap_or(u64::MAX);
        let started = self.uc.emu_start(CODE_BASE, EXIT_PAGE, micros, 0);
        let interrupt = self.uc.get_data().interrupt;
        let pc = self.uc.pc_read().unwrap_or(0);
        let trap_at = |pc: u64| -> Option<TrapCode> {
            let offset = u32::try_from(pc.checked_sub(CODE_BASE)?).ok()?;
            code.traps.iter().find(|&&(o, _)| o == offset).map(|&(_, c)| c)
        };
        let end = match (started, interrupt) {
            // #DE (interrupt 0) from `idiv`, #UD (interrupt 6) from `ud2`,
            // or Unicorn's report of an invalid instruction (`ud2`).
            (_, Some(0 | 6)) | (Err(uc_error::INSN_INVALID), None) => match trap_at(pc) {
                Some(TrapCode::INTEGER_DIVISION_BY_ZERO | TrapCode::INTEGER_OVERFLOW) => End::Trap(Trap::DivideError),
                Some(c) if c == OUT_OF_FUEL => return Err(CraneliftError::OutOfFuel),
                Some(c) if c == TRACE_FULL => return Err(CraneliftError::TraceFull),
                Some(c) => return Err(CraneliftError::Run(format!("trap {c} at offset {:#x}", pc - CODE_BASE))),
                None => {
                    let what = interrupt.map_or("an invalid instruction".to_string(), |n| format!("interrupt {n}"));
                    return Err(CraneliftError::Run(format!("{what} at {pc:#x}, where no trap is recorded")));
                }
            },
            (_, Some(n)) => return Err(CraneliftError::Run(format!("the code raised interrupt {n} at {pc:#x}"))),
            (Err(e), None) => return Err(CraneliftError::Run(format!("emulator fault at {pc:#x}: {e:?}"))),
            (Ok(()), None) => {
                if pc != EXIT_PAGE {
                    // Unicorn stops without an error when the time is up.
                    return Err(CraneliftError::TimeUp);
                }
                let rax = self.uc.reg_read(RegisterX86::RAX).map_err(|e| uc_err("read rax", e))?;
                End::Return(rax as i64)
            }
        };
        let mut len = [0u8; 8];
        self.uc.mem_read(CONTEXT_BASE + ops::TRACE_LEN_OFFSET as u64, &mut len).map_err(|e| uc_err("read trace", e))?;
        let len = u64::from_le_bytes(len).min(ops::TRACE_CAPACITY as u64);
        let mut trace_bytes = vec![0u8; (len * 8) as usize];
        self.uc
            .mem_read(CONTEXT_BASE + ops::TRACE_OFFSET as u64, &mut trace_bytes)
            .map_err(|e| uc_err("read trace", e))?;
        let trace = trace_bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
        let mut mem = vec![0u8; mem_bytes];
        self.uc.mem_read(CONTEXT_BASE, &mut mem).map_err(|e| uc_err("read mem", e))?;
        let mem = mem.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
        Ok(Outcome { trace, end, mem })
    }
}

thread_local! {
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
}

/// Runs compiled code on this thread's engine with `args` (missing ones are
/// 0), `fuel` (entries of cycle-starting blocks) and a time limit.
pub fn run(code: &Compiled, args: &[i64], fuel: u64, limit: Duration) -> Result<Outcome, CraneliftError> {
    ENGINE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let engine = match slot.take() {
            Some(engine) => engine,
            None => Engine::new()?,
        };
        slot.insert(engine).run(code, args, fuel, limit)
    })
}
