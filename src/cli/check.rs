//! `ssaref check`: the differential check of one program: every stage and
//! every checker, for several construction variants and register counts,
//! on every back end (`--route` narrows it), against the source interpreter.
//! A `.ssa` file goes through every back end (`differential::differential_ssa`)
//! against the oracle's run of the SSA itself. A case file written by a
//! campaign is checked with the configuration its `// config:` line
//! records (`campaign/rotation.rs`).

use crate::args::Routes;
use crate::common::{
    bad_input, case_config, check_expect, expect_for, internal, load, parse_args, Failure, DEFAULT_CASE_REGS,
    EXIT_OUT_OF_FUEL,
};
use crate::max_memory::MaxMemoryArgs;
use crate::ssa_input::{is_ssa, load_ssa, ssa_args};
use crate::stdio::{noteln, say, sayln};
use clap::Args;
use ssaref::construction::braun::BraunOptions;
use ssaref::differential::{self, Verdict};
use ssaref::frontend::case_file::CaseHeader;
use ssaref::pass_manager::sampling;
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
    #[arg(long, default_value_t = interp::DEFAULT_FUEL, value_parser = crate::args::fuel())]
    fuel: u64,
    /// Check all 128 combinations of construction options (default: four
    /// representative ones).
    #[arg(long)]
    all_variants: bool,
    /// Register counts for every back end, comma-separated (default: the
    /// file's `// regs:` line, else 2,3,4,6,8,15).
    #[arg(long, value_delimiter = ',', value_parser = crate::args::reg_count())]
    regs: Vec<usize>,
    /// Which back ends: `ssa-ra`, `out-of-ssa` (or `boissinot`), `regalloc2`,
    /// `both` (ssa-ra and out-of-ssa) or `all`.
    #[arg(long, value_enum, default_value_t = Routes::All)]
    route: Routes,
    /// Check every function in full, however large (by default, above
    /// 20,000 instructions, a checker whose cost is quadratic samples, and
    /// the out-of-ssa configurations quadratic by the paper or at every K
    /// are left out, each said in a `sampled` line: `docs/scaling.md`).
    #[arg(long)]
    full_checks: bool,
    #[command(flatten)]
    memory: MaxMemoryArgs,
    /// Run the program on production compilers instead (`llvm`, `gcc`,
    /// `clang`, comma-separated), at every option set (or --options).
    #[arg(long, value_name = "LIST")]
    target: Option<String>,
    /// With --target: only these option sets (comma-separated lists are
    /// option sets themselves, so repeat the flag).
    #[arg(long)]
    options: Vec<String>,
}

pub fn cmd_check(a: CheckArgs) -> Result<ExitCode, Failure> {
    a.memory.apply();
    if let Some(list) = &a.target {
        return crate::target_cmd::check_on_targets(&a.file, &a.args, list, &a.options, a.fuel, false);
    }
    sampling::force_full_checks(a.full_checks);
    if is_ssa(&a.file) {
        let case = load_ssa(&a.file)?;
        let args = ssa_args(&a.file, &case, &a.args)?;
        let regs = regs_of(&a.regs, case.header.regs.as_deref());
        // A case written by a campaign replays the configuration it ran
        // with (its `// config:` line).
        let config = a.route.restrict(case_config(&a.file, case.header.config.as_ref(), &regs, a.fuel)?);
        let verdict = with_progress_on_stderr(|| {
            differential::differential_ssa_catching(&case.module, &args, &interp::Interp, &config)
        });
        return report(verdict, "the SSA input", &a.file, expect_for(&a.args, case.header.expect.as_ref()));
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
    // A case written by a campaign replays the configuration it ran with
    // (its `// config:` line), with the four variants (or all 128) besides.
    let header = CaseHeader::parse(&src).map_err(|d| bad_input(d.with_file(&a.file)))?;
    let regs = regs_of(&a.regs, header.regs.as_deref());
    let mut config = a.route.restrict(case_config(&a.file, header.config.as_ref(), &regs, a.fuel)?);
    for v in variants {
        if !config.variants.contains(&v) {
            config.variants.push(v);
        }
    }
    let verdict =
        with_progress_on_stderr(|| differential::differential_full_catching(&program, &args, &interp::Interp, &config));
    report(verdict, "the source", &a.file, expect_for(&a.args, header.expect.as_ref()))
}

/// Runs `body` printing each step of the differential check on stderr as
/// it starts, with the time since the start: `check` on a large function
/// takes minutes, and says where it is.
fn with_progress_on_stderr<R>(body: impl FnOnce() -> R) -> R {
    let start = std::time::Instant::now();
    differential::with_progress(
        // `noteln!` ignores a failed write to stderr, which must not stop
        // the check: the progress lines are a courtesy, the verdict goes to
        // stdout.
        move |step| noteln!("check: {:>8.1} s  {step}", start.elapsed().as_secs_f64()),
        body,
    )
}

/// `--regs` if given, else the file's `// regs:` line, else
/// `DEFAULT_CASE_REGS`.
fn regs_of(given: &[usize], header: Option<&[usize]>) -> Vec<usize> {
    if !given.is_empty() {
        return crate::args::distinct_regs(given);
    }
    header.map_or_else(|| DEFAULT_CASE_REGS.to_vec(), <[usize]>::to_vec)
}

/// Prints the stages of an agreeing verdict and the outcome, or turns a
/// failing one into an internal error; `reference` names the stage every
/// other is compared with. An agreed outcome that differs from `expect`
/// (the case file's `// expect:` block) is exit code 7.
fn report(verdict: Verdict, reference: &str, file: &str, expect: Option<&[String]>) -> Result<ExitCode, Failure> {
    match verdict {
        Verdict::Agree { outcome, stages } => {
            for s in &stages {
                match &s.outcome {
                    Err(e @ differential::StageError::NotSupported(_)) => sayln!("{e}  {}", s.stage),
                    _ => sayln!("agree  {}", s.stage),
                }
            }
            for what in sampling::sampled_checks() {
                sayln!("sampled  {what} (--full-checks checks all)");
            }
            say!("{}", outcome.render_full());
            check_expect(file, expect, &outcome)?;
            Ok(ExitCode::SUCCESS)
        }
        Verdict::Inconclusive => {
            noteln!("{reference} ran out of fuel or exceeded the call depth: nothing to compare");
            Ok(ExitCode::from(EXIT_OUT_OF_FUEL))
        }
        Verdict::Limit { stage, limit } => {
            Err(crate::common::inconclusive(file, format!("stage {stage} reached {limit}")))
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
        Verdict::SourceError(e) => Err(internal(e)),
        Verdict::Panic(e) => Err(internal(e)),
    }
}
