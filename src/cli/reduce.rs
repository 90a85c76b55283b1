//! `ssaref reduce`: shrinks a failing case while it fails the same way, with
//! the configuration of its `// config:` line if it has one, and writes the
//! result as a case file (by default NAME.reduced.src) that keeps the line.

use crate::common::{bad_input, case_config, load_case, Failure, DEFAULT_CASE_REGS};
use clap::Args;
use ssaref::frontend::case_file::CaseFile;
use std::process::ExitCode;

use ssaref_interp as interp;

#[derive(Args, Debug)]
pub struct ReduceArgs {
    /// A failing case as `ssaref fuzz` writes it (a case file, see README.md).
    case: String,
    /// Where to write the reduced case (default: next to CASE, as NAME.reduced.src).
    #[arg(long, value_name = "PATH")]
    out: Option<String>,
    /// The most candidates to test (differential runs); the reducer then
    /// stops with the smallest failing case found.
    #[arg(long, value_name = "N", default_value_t = ssaref::testing::reduce::ReduceConfig::DEFAULT_MAX_TESTS)]
    max_tests: u64,
    /// Fuel of each source run.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL)]
    fuel: u64,
}

/// `DIR/NAME.reduced.src` for `DIR/NAME.src` (or `DIR/NAME.reduced.src`
/// for `DIR/NAME`).
fn reduced_path(case: &str) -> String {
    let stem = case.strip_suffix(".src").unwrap_or(case);
    format!("{stem}.reduced.src")
}

pub fn cmd_reduce(a: ReduceArgs) -> Result<ExitCode, Failure> {
    use ssaref::testing::reduce::{reduce_with, ReduceConfig};
    let case = load_case(&a.case)?;
    let regs = case.regs.clone().unwrap_or_else(|| DEFAULT_CASE_REGS.to_vec());
    let tc = case.test_case(format!("case {}", a.case));
    let config = ReduceConfig { max_tests: a.max_tests.max(1), fuel: a.fuel };
    // The configuration the campaign ran the case with (its `// config:`
    // line), else the standard one; route 3 runs last either way.
    let mut diff = case_config(&a.case, case.config.as_ref(), &regs, a.fuel)?;
    diff.route3 = true;
    let start = std::time::Instant::now();
    let red =
        reduce_with(&tc, &regs, &interp::Interp, &config, &diff).map_err(|e| bad_input(format!("{}: {e}", a.case)))?;
    let elapsed = start.elapsed();
    let out = a.out.clone().unwrap_or_else(|| reduced_path(&a.case));
    let origin = case.description.first().map_or(String::new(), |d| format!(" ({d})"));
    let mut reduced = CaseFile::for_failure(
        &format!("ssaref reduce: reduced from {}{origin}", a.case),
        &out,
        &red.case,
        &red.verdict,
        &red.regs,
    );
    reduced.config = case.config.clone();
    std::fs::write(&out, reduced.render()).map_err(|e| bad_input(format!("{out}: cannot write: {e}")))?;
    let s = &red.stats;
    let k = |k: Option<usize>| k.map_or("-".to_string(), |k| k.to_string());
    println!("reduced {}: {}", a.case, red.failure);
    println!("  statements: {} -> {}", s.statements_before, s.statements_after);
    println!("  K: {} -> {}", k(red.k_before), k(red.k_after));
    println!(
        "  candidates tried: {} in {:.1}s (kept {}; {} agreed, {} failed another way, {} ran out of fuel in the source; {} invalid edits skipped)",
        s.tests,
        elapsed.as_secs_f64(),
        s.accepted,
        s.passing,
        s.other_failures,
        s.inconclusive,
        s.invalid
    );
    if s.stopped_early {
        println!("  stopped by --max-tests {} before a fixpoint", config.max_tests);
    }
    println!("wrote {out} (replay: ssaref repro {out})");
    print!("{}", ssaref::testing::gen::describe_failure(&red.case, &red.verdict));
    Ok(ExitCode::SUCCESS)
}
