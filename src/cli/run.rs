//! `ssaref run`: runs a program at one stage of the pipeline (the AST, the
//! SSA of Braun et al. or of Cytron et al., out-of-ssa's out-of-SSA program, the
//! allocated machine IR, or x86-64 under Unicorn) and prints its outcome.
//! A `.ssa` file starts at the SSA stage: `--stage source` and `cytron`,
//! which need the AST, do not apply, and `--stage ssa` runs it as given.

use crate::args::{AllocArgs, ConstructionArgs, OutOfSsaArgs, Routes, Stage};
use crate::common::{
    backend, backend_of_ssa, bad_input, destructed, expect_for, internal, load, parse_args, print_outcome, Allocated,
    Failure,
};
use crate::max_memory::MaxMemoryArgs;
use crate::ssa_input::{is_ssa, load_ssa, ssa_args};
use crate::stdio::sayln;
use clap::Args;
use ssaref::frontend::case_file::CaseHeader;
use ssaref::outcome::{End, Outcome};
use ssaref::pipeline;
use std::process::ExitCode;

use ssaref_interp as interp;

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The program (`*.src`, or `*.ssa` in the SSA text form).
    file: String,
    /// Arguments of `main` (64-bit integers).
    #[arg(allow_negative_numbers = true)]
    args: Vec<String>,
    /// Which stage to run.
    #[arg(long, value_enum, default_value_t = Stage::X86)]
    stage: Stage,
    /// Which back ends produce the allocated code: `ssa-ra`, `out-of-ssa`
    /// (or `boissinot`), `regalloc2`, `both` (ssa-ra and out-of-ssa) or `all`. With more than one,
    /// each outcome is printed under `== NAME`.
    #[arg(long, value_enum, default_value_t = Routes::SsaRa)]
    route: Routes,
    #[command(flatten)]
    out_of_ssa: OutOfSsaArgs,
    #[command(flatten)]
    alloc: AllocArgs,
    /// Fuel budget (steps) before the run is stopped.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL, value_parser = crate::args::fuel())]
    fuel: u64,
    #[command(flatten)]
    construction: ConstructionArgs,
    #[command(flatten)]
    memory: MaxMemoryArgs,
}

pub fn cmd_run(a: RunArgs) -> Result<ExitCode, Failure> {
    a.memory.apply();
    if is_ssa(&a.file) {
        return cmd_run_ssa(a);
    }
    let (src, program) = load(&a.file)?;
    let args = parse_args(&a.file, &src, &program, &a.args)?;
    let header = CaseHeader::parse(&src).map_err(|d| bad_input(d.with_file(&a.file)))?;
    let expect = expect_for(&a.args, header.expect.as_ref());
    let outcome = match a.stage {
        Stage::Source => interp::run_ast(&program, &args, a.fuel),
        Stage::Ssa => {
            let module =
                pipeline::build_ssa(&program, &a.construction.config()).map_err(|e| internal(e.to_string()))?;
            interp::run_ssa(&module, &args, a.fuel)
        }
        Stage::Cytron => {
            let module = ssaref::construction::cytron::construct_cytron(&program);
            ssaref::analysis::verifier::verify_module(&module).map_err(|e| internal(e.to_string()))?;
            interp::run_ssa(&module, &args, a.fuel)
        }
        Stage::OutOfSsa => interp::run_ssa(&destructed(&program, &a.construction, &a.out_of_ssa)?.0, &args, a.fuel),
        Stage::Alloc | Stage::X86 => {
            let allocated = backend(&program, &a.construction, a.route, &a.alloc, &a.out_of_ssa, false)?;
            return run_each(&a.file, &allocated, a.stage, &args, a.fuel, expect);
        }
    }
    .map_err(|e| internal(e.to_string()))?;
    print_outcome(&a.file, &outcome, expect)
}

/// `ssaref run FILE.ssa`: the SSA as given, out-of-ssa's destructed program,
/// or a back end's allocated code.
fn cmd_run_ssa(a: RunArgs) -> Result<ExitCode, Failure> {
    let case = load_ssa(&a.file)?;
    let args = ssa_args(&a.file, &case, &a.args)?;
    let expect = expect_for(&a.args, case.header.expect.as_ref());
    let module = &case.module;
    let outcome = match a.stage {
        Stage::Source | Stage::Cytron => {
            return Err(bad_input(format!(
                "{}: --stage {}: a .ssa program has no AST; use ssa, out-of-ssa, alloc or x86",
                a.file,
                if a.stage == Stage::Source { "source" } else { "cytron" }
            )))
        }
        Stage::Ssa => interp::run_ssa(module, &args, a.fuel).map_err(|e| e.to_string()),
        Stage::OutOfSsa => {
            let (destructed, _) =
                pipeline::translate_out_of_ssa(module, &a.out_of_ssa.out_of_ssa().out_of_ssa, &a.construction.config())
                    .map_err(|e| internal(e.to_string()))?;
            interp::run_ssa(&destructed, &args, a.fuel).map_err(|e| e.to_string())
        }
        Stage::Alloc | Stage::X86 => {
            let allocated = backend_of_ssa(module, a.route, &a.alloc, &a.out_of_ssa, false, &a.construction.config())?;
            return run_each(&a.file, &allocated, a.stage, &args, a.fuel, expect);
        }
    }
    .map_err(internal)?;
    print_outcome(&a.file, &outcome, expect)
}

/// Runs each back end's allocated code and prints its outcome, under
/// `== NAME` when there are several; the exit code is that of the first
/// outcome that is not a success (out of fuel), and an outcome that
/// differs from `expect` ends the command (exit code 7).
fn run_each(
    file: &str,
    allocated: &[Allocated],
    stage: Stage,
    args: &[i64],
    fuel: u64,
    expect: Option<&[String]>,
) -> Result<ExitCode, Failure> {
    let mut code = ExitCode::SUCCESS;
    let mut failed = false;
    for a in allocated {
        if allocated.len() > 1 {
            sayln!("== {}", a.name);
        }
        let outcome = run_allocated(file, &a.mir, stage, args, fuel)?;
        let c = print_outcome(file, &outcome, expect)?;
        if !failed && outcome.end == End::OutOfFuel {
            (code, failed) = (c, true);
        }
    }
    Ok(code)
}

/// Runs allocated code: the machine IR in the oracle (`--stage alloc`), or
/// its x86-64 code under Unicorn (`--stage x86`).
/// A full x86 trace, or an engine that the operating system refuses its
/// address space, is a limit of the harness: exit code 9, never an
/// internal error.
fn run_allocated(
    file: &str,
    mir: &ssaref::mir::MModule,
    stage: Stage,
    args: &[i64],
    fuel: u64,
) -> Result<Outcome, Failure> {
    use ssaref::machine::emulator::EmuError;
    if stage != Stage::X86 {
        return interp::run_mir(mir, args, fuel).map_err(internal);
    }
    if fuel == 0 {
        // No step runs on no fuel, at x86 as at every other stage (the
        // budget of block entries would let the entry block run).
        return Ok(Outcome { trace: Vec::new(), end: End::OutOfFuel, mem: Vec::new() });
    }
    let code = pipeline::lower_and_check(mir).map_err(crate::common::pass_failure)?;
    // --fuel counts MIR steps; the x86 budget counts block entries.
    match ssaref::machine::emulator::run_x86(&code, args, ssaref::machine::emulator::budget_for(fuel)) {
        Ok(o) => Ok(o),
        Err(EmuError::BudgetExhausted { trace, .. }) => Ok(Outcome { trace, end: End::OutOfFuel, mem: Vec::new() }),
        Err(e @ EmuError::TraceFull { .. }) => {
            Err(crate::common::inconclusive(file, format!("{e}; `--stage alloc` runs without that limit")))
        }
        Err(e @ EmuError::NoAddressSpace { .. }) => Err(crate::common::inconclusive(file, e)),
        Err(e) => Err(internal(e)),
    }
}
