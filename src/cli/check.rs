//! `ssaref check`: the differential check of one program: every stage and
//! every checker, for several construction variants and register counts,
//! on every back end (`--route` narrows it), against the source interpreter.
//! A `.ssa` file goes through every back end (`pipeline::differential_ssa`)
//! against the oracle's run of the SSA itself.

use crate::common::{check_regs, internal, load, parse_args, Failure, EXIT_OUT_OF_FUEL};
use crate::max_memory::MaxMemoryArgs;
use crate::options::Routes;
use crate::ssa_input::{is_ssa, load_ssa, ssa_args};
use clap::Args;
use ssaref::construction::braun::BraunOptions;
use ssaref::pipeline::{self, Verdict};
use std::process::ExitCode;

use ssaref_interp as interp;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The program (`*.src`, or `*.ssa` in the SSA text form).
    file: String,
    /// Arguments of `main`.
    #[arg(allow_negative_numbers = true)]
    args: Vec<String>,
    /// Fuel budget of the source run.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL)]
    fuel: u64,
    /// Check all 128 combinations of construction options (default: four
    /// representative ones).
    #[arg(long)]
    all_variants: bool,
    /// Register counts for both back ends, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [2usize, 3, 4, 6, 8, 15])]
    regs: Vec<usize>,
    /// Which back ends: `ssa-ra`, `boissinot`, `regalloc2`, `both` (routes 1
    /// and 2) or `all`.
    #[arg(long, value_enum, default_value_t = Routes::All)]
    route: Routes,
    #[command(flatten)]
    memory: MaxMemoryArgs,
}

pub fn cmd_check(a: CheckArgs) -> Result<ExitCode, Failure> {
    a.memory.apply();
    if is_ssa(&a.file) {
        let case = load_ssa(&a.file)?;
        let args = ssa_args(&a.file, &case, &a.args)?;
        check_regs(&a.regs)?;
        let config = a.route.restrict(pipeline::DiffConfig::standard(&a.regs, a.fuel));
        let verdict = pipeline::differential_ssa_catching(&case.module, &args, &interp::Interp, &config);
        return report(verdict, "the SSA input");
    }
    let (src, program) = load(&a.file)?;
    let args = parse_args(&a.file, &src, &program, &a.args)?;
    let variants = if a.all_variants {
        BraunOptions::every_combination()
    } else {
        vec![
            BraunOptions::plain(),
            BraunOptions { marker: true, ..BraunOptions::plain() },
            BraunOptions::all_on(),
            BraunOptions { marker: true, ..BraunOptions::all_on() },
        ]
    };
    check_regs(&a.regs)?;
    let mut config = a.route.restrict(pipeline::DiffConfig::standard(&a.regs, a.fuel));
    config.variants = variants;
    report(pipeline::differential_full_catching(&program, &args, &interp::Interp, &config), "the source")
}

/// Prints the stages of an agreeing verdict and the outcome, or turns a
/// failing one into an internal error; `reference` names the stage every
/// other is compared with.
fn report(verdict: Verdict, reference: &str) -> Result<ExitCode, Failure> {
    match verdict {
        Verdict::Agree { outcome, stages } => {
            for s in &stages {
                println!("agree  {}", s.stage);
            }
            print!("{}", outcome.render_full());
            Ok(ExitCode::SUCCESS)
        }
        Verdict::Inconclusive => {
            eprintln!("{reference} ran out of fuel: nothing to compare");
            Ok(ExitCode::from(EXIT_OUT_OF_FUEL))
        }
        Verdict::Diverge { stage, expected, got } => {
            let got = match got {
                Ok(o) => o.render_full(),
                Err(e) => format!("error: {e}\n"),
            };
            Err(internal(format!(
                "stage {stage} diverges from {reference}\n--- {reference}\n{}--- {stage}\n{got}",
                expected.render_full()
            )))
        }
        Verdict::CheckFailed(e) => Err(internal(e.to_string())),
        Verdict::SourceError(e) | Verdict::Panic(e) => Err(internal(e)),
    }
}
