//! `ssaref reduce`: shrinks a failing case while it fails the same way, with
//! the configuration of its `// config:` line if it has one, and writes the
//! result as a case file that keeps the line (by default NAME.reduced.src,
//! or NAME.reduced.ssa for a `.ssa` case, reduced by
//! `reduce/ssa.rs`).

use crate::common::{bad_input, case_config, load_case, probe_out_file, Failure, DEFAULT_CASE_REGS, EXIT_OUTPUT};
use crate::max_memory::MaxMemoryArgs;
use crate::ssa_input::{is_ssa, load_ssa};
use crate::stdio::{say, sayln};
use clap::Args;
use ssaref::frontend::case_file::CaseFile;
use ssaref::frontend::ssa_case_file::SsaCaseFile;
use ssaref::reduce::source::{ReduceStats, Reduction};
use std::process::ExitCode;

use ssaref_interp as interp;

#[derive(Args, Debug)]
pub struct ReduceArgs {
    /// A failing case as `ssaref fuzz` writes it (a case file, see docs/command-line.md).
    case: String,
    /// Where to write the reduced case (default: next to CASE, as
    /// NAME.reduced.src or NAME.reduced.ssa).
    #[arg(long, value_name = "PATH")]
    out: Option<String>,
    /// The most candidates to test (differential runs); the reducer then
    /// stops with the smallest failing case found.
    #[arg(long, value_name = "N", default_value_t = ssaref::reduce::source::ReduceConfig::DEFAULT_MAX_TESTS, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=crate::args::MAX_FUEL))]
    max_tests: u64,
    /// Fuel of each source run.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL, value_parser = crate::args::fuel())]
    fuel: u64,
    /// Reduce while the case fails on this production compiler (`llvm`,
    /// `gcc`, `clang`) under the option set of its `target:` line (or
    /// --options, or the first set that fails), and export the result in
    /// the target's format. Default: the target of the case's `target:`
    /// line, if it has one.
    #[arg(long, value_name = "TARGET")]
    target: Option<String>,
    /// With --target: the option set.
    #[arg(long)]
    options: Vec<String>,
    #[command(flatten)]
    memory: MaxMemoryArgs,
}

/// `DIR/NAME.reduced.src` for `DIR/NAME.src` (or `DIR/NAME.reduced.src`
/// for `DIR/NAME`); `DIR/NAME.reduced.ssa` for `DIR/NAME.ssa`.
fn reduced_path(case: &str) -> String {
    if let Some(stem) = case.strip_suffix(".ssa") {
        return format!("{stem}.reduced.ssa");
    }
    let stem = case.strip_suffix(".src").unwrap_or(case);
    format!("{stem}.reduced.src")
}

pub fn cmd_reduce(a: ReduceArgs) -> Result<ExitCode, Failure> {
    use ssaref::reduce::source::{reduce_with, ReduceConfig};
    a.memory.apply();
    let list = match a.target.clone() {
        Some(list) => Some(list),
        None => crate::target_cmd::recorded_target(&a.case)?,
    };
    if let Some(list) = list {
        // Where the result goes must be writable before the work starts.
        if let Some(out) = &a.out {
            probe_out_file(out)?;
        }
        return crate::target_cmd::reduce_on_target(&a.case, &list, &a.options, a.out.as_deref(), a.fuel, a.max_tests);
    }
    if is_ssa(&a.case) {
        return cmd_reduce_ssa(a);
    }
    let case = load_case(&a.case)?;
    let regs = case.regs.clone().unwrap_or_else(|| DEFAULT_CASE_REGS.to_vec());
    let tc = case.test_case(format!("case {}", a.case));
    let config = ReduceConfig { max_tests: a.max_tests.max(1), fuel: a.fuel };
    // The configuration the campaign ran the case with (its `// config:`
    // line), else the standard one; regalloc2 runs last either way.
    let mut diff = case_config(&a.case, case.config.as_ref(), &regs, a.fuel)?;
    diff.regalloc2 = true;
    let out = a.out.clone().unwrap_or_else(|| reduced_path(&a.case));
    // Where the result goes must be writable before the work starts.
    probe_out_file(&out)?;
    let start = std::time::Instant::now();
    let red =
        reduce_with(&tc, &regs, &interp::Interp, &config, &diff).map_err(|e| bad_input(format!("{}: {e}", a.case)))?;
    let elapsed = start.elapsed();
    if nothing_removed(&red) {
        return already_minimal(&a, &red, elapsed);
    }
    let origin = case.description.first().map_or(String::new(), |d| format!(" ({d})"));
    let mut reduced = CaseFile::for_failure(
        &format!("ssaref reduce: reduced from {}{origin}", a.case),
        &out,
        &red.case,
        &red.verdict,
        &red.regs,
    );
    reduced.config = case.config.clone();
    std::fs::write(&out, reduced.render()).map_err(|e| write_error(&out, e))?;
    print_summary(&a, &red, elapsed, &out, "statements", None)?;
    say!("{}", ssaref::generate::source::describe_failure(&red.case, &red.verdict));
    Ok(ExitCode::SUCCESS)
}

/// `ssaref reduce CASE.ssa`: the same for a program in SSA form (its
/// instructions and blocks shrink; the reduced case is a `.ssa` file).
fn cmd_reduce_ssa(a: ReduceArgs) -> Result<ExitCode, Failure> {
    use ssaref::reduce::source::{reduce_with, ReduceConfig};
    let file = load_ssa(&a.case)?;
    let regs = file.header.regs.clone().unwrap_or_else(|| DEFAULT_CASE_REGS.to_vec());
    let case = ssaref::generate::ssa::IrCase {
        module: file.module.clone(),
        args: file.args(),
        origin: format!("case {}", a.case),
    };
    let config = ReduceConfig { max_tests: a.max_tests.max(1), fuel: a.fuel };
    let out = a.out.clone().unwrap_or_else(|| reduced_path(&a.case));
    probe_out_file(&out)?;
    let start = std::time::Instant::now();
    // As for `.src` cases: the recorded configuration, else the standard
    // one; regalloc2 runs last either way.
    let mut diff = case_config(&a.case, file.header.config.as_ref(), &regs, a.fuel)?;
    diff.regalloc2 = true;
    let red = reduce_with(&case, &regs, &interp::Interp, &config, &diff)
        .map_err(|e| bad_input(format!("{}: {e}", a.case)))?;
    let elapsed = start.elapsed();
    if nothing_removed(&red) {
        return already_minimal(&a, &red, elapsed);
    }
    let origin = file.header.description.first().map_or(String::new(), |d| format!(" ({d})"));
    let mut reduced = SsaCaseFile::for_failure(
        &format!("ssaref reduce: reduced from {}{origin}", a.case),
        &out,
        &red.case,
        &red.verdict,
        &red.regs,
    );
    reduced.header.config = file.header.config.clone();
    std::fs::write(&out, reduced.render()).map_err(|e| write_error(&out, e))?;
    let blocks = |m: &ssaref::ir::Module| m.main().map_or(0, |f| f.blocks.len());
    let blocks = format!("  blocks of main: {} -> {}", blocks(&case.module), blocks(&red.case.module));
    print_summary(&a, &red, elapsed, &out, "phis and instructions", Some(blocks))?;
    say!("{}", ssaref::ssa_text::print_module(&red.case.module));
    say!("{}", ssaref::generate::source::describe_verdict(&red.verdict, "the SSA input"));
    Ok(ExitCode::SUCCESS)
}

/// A file of the result that cannot be written (exit code `EXIT_OUTPUT`).
fn write_error(out: &str, e: std::io::Error) -> Failure {
    Failure { message: format!("{out}: cannot write: {e}"), code: EXIT_OUTPUT }
}

/// True when the reduction kept no candidate and lowered no K: the
/// "reduced" case would be the case itself.
fn nothing_removed<T>(red: &Reduction<T>) -> bool {
    red.stats.accepted == 0 && red.k_before == red.k_after
}

/// The report of a reduction that removed nothing: no copy of the case is
/// written (it would claim a reduction that did not happen).
fn already_minimal<T>(a: &ReduceArgs, red: &Reduction<T>, elapsed: std::time::Duration) -> Result<ExitCode, Failure> {
    sayln!("reduced {}: {}", a.case, red.failure);
    sayln!(
        "  nothing removed: no candidate of {} in {:.1}s fails the same way; the case is already minimal, nothing written",
        red.stats.tests,
        elapsed.as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// The summary lines of a reduction; `what` names what its size counts,
/// `extra` is one more line.
fn print_summary<T>(
    a: &ReduceArgs,
    red: &Reduction<T>,
    elapsed: std::time::Duration,
    out: &str,
    what: &str,
    extra: Option<String>,
) -> Result<(), Failure> {
    let s: &ReduceStats = &red.stats;
    let k = |k: Option<usize>| k.map_or("-".to_string(), |k| k.to_string());
    sayln!("reduced {}: {}", a.case, red.failure);
    sayln!("  {what}: {} -> {}", s.statements_before, s.statements_after);
    if let Some(line) = extra {
        sayln!("{line}");
    }
    sayln!("  K: {} -> {}", k(red.k_before), k(red.k_after));
    sayln!(
        "  candidates tried: {} in {:.1}s (kept {}; {} agreed, {} failed another way, {} ran out of fuel in the reference run; {} invalid edits skipped)",
        s.tests,
        elapsed.as_secs_f64(),
        s.accepted,
        s.passing,
        s.other_failures,
        s.inconclusive,
        s.invalid
    );
    if s.stopped_early {
        sayln!("  stopped by --max-tests {} before a fixpoint", a.max_tests.max(1));
    }
    sayln!("wrote {out} (replay: ssaref repro {out})");
    Ok(())
}
