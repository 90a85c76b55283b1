//! `ssaref run`: runs a program at one stage of the pipeline (the AST, the
//! SSA of Braun et al. or of Cytron et al., route 2's out-of-SSA program, the
//! allocated machine IR, or x86-64 under Unicorn) and prints its outcome.

use crate::common::{backend, destructed, internal, load, parse_args, print_outcome, Failure};
use crate::max_memory::MaxMemoryArgs;
use crate::options::{AllocArgs, ConstructionArgs, Route, Route2Args, Stage};
use clap::Args;
use ssaref::outcome::{End, Outcome};
use ssaref::pipeline;
use std::process::ExitCode;

use ssaref_interp as interp;

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The program (`*.src`).
    file: String,
    /// Arguments of `main` (64-bit integers).
    #[arg(allow_negative_numbers = true)]
    args: Vec<String>,
    /// Which stage to run.
    #[arg(long, value_enum, default_value_t = Stage::X86)]
    stage: Stage,
    /// Which back end produces the allocated code.
    #[arg(long, value_enum, default_value_t = Route::SsaRa)]
    route: Route,
    #[command(flatten)]
    route2: Route2Args,
    #[command(flatten)]
    alloc: AllocArgs,
    /// Fuel budget (steps) before the run is stopped.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL)]
    fuel: u64,
    #[command(flatten)]
    construction: ConstructionArgs,
    #[command(flatten)]
    memory: MaxMemoryArgs,
}

pub fn cmd_run(a: RunArgs) -> Result<ExitCode, Failure> {
    a.memory.apply();
    let (src, program) = load(&a.file)?;
    let args = parse_args(&a.file, &src, &program, &a.args)?;
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
        Stage::OutOfSsa => interp::run_ssa(&destructed(&program, &a.construction, &a.route2)?.0, &args, a.fuel),
        Stage::Alloc => {
            let (mir, _) = backend(&program, &a.construction, a.route, &a.alloc, &a.route2, false)?;
            interp::run_mir(&mir, &args, a.fuel)
        }
        Stage::X86 => {
            let (mir, _) = backend(&program, &a.construction, a.route, &a.alloc, &a.route2, false)?;
            let code = pipeline::lower_and_check(&mir).map_err(|e| internal(e.to_string()))?;
            // --fuel counts MIR steps; the x86 budget counts block entries.
            match ssaref::machine::emulator::run_x86(&code, &args, ssaref::machine::emulator::budget_for(a.fuel)) {
                Ok(o) => Ok(o),
                Err(ssaref::machine::emulator::EmuError::BudgetExhausted { .. }) => {
                    Ok(Outcome { trace: Vec::new(), end: End::OutOfFuel, mem: Vec::new() })
                }
                Err(e) => return Err(internal(e.to_string())),
            }
        }
    }
    .map_err(|e| internal(e.to_string()))?;
    Ok(print_outcome(&outcome))
}
