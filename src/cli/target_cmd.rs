//! `--target LIST` of `fuzz`, `check`, `repro` and `reduce`: the same
//! commands on production compilers (`ssaref::targets`) instead of
//! ssaref's back ends.
//!
//! - `fuzz --target`: `campaign::target_campaign`;
//! - `check --target FILE`: the program on every option set of each target
//!   (or those of `--options`), each compared with the oracle;
//! - `repro --target CASE`: the case under the option set its `target:`
//!   line records (else every set), and the case in the target's format;
//! - `reduce --target CASE`: the case reduced while it fails on that
//!   target and option set, written as a case file and exported.
//!
//! `repro` and `reduce` without `--target` take the target from the case's
//! `target:` line when it has one ([`recorded_target`]).

use crate::common::{
    bad_input, load, parse_args, usage, Failure, EXIT_INCONCLUSIVE, EXIT_INTERNAL, EXIT_OUT_OF_FUEL, EXIT_TOOL_MISSING,
};
use crate::ssa_input::{is_ssa, load_ssa, ssa_args};
use crate::stdio::sayln;
use ssaref::campaign::ssa_share::Generated;
use ssaref::campaign::target_campaign::{export_case, parse_target_line, write_target_case};
use ssaref::frontend::case_file::CaseHeader;
use ssaref::generate::source::TestCase;
use ssaref::generate::ssa::IrCase;
use ssaref::reduce::for_target::reduce_for_target;
use ssaref::targets::target::{run_against_oracle, Limits, Target, TargetCase, TargetVerdict};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use ssaref_interp as interp;

/// The targets of `--target LIST`, each installed: an unknown name is a
/// command-line error, a target whose tool is missing (`llvm-19` without
/// `llc-19`) exit code 8.
pub fn targets(list: &str) -> Result<Vec<Arc<dyn Target>>, Failure> {
    let list = ssaref::targets::registry::parse_list(list).map_err(|e| usage(e.to_string()))?;
    if list.is_empty() {
        return Err(usage("--target names no target (they are listed in docs/targets.md)".into()));
    }
    for t in &list {
        if let Err(e) = t.version() {
            return Err(Failure { code: EXIT_TOOL_MISSING, message: format!("target {}: {e}", t.name()) });
        }
    }
    Ok(list)
}

/// The target named by the `target:` line of the case file `file`, if it
/// has one (a case that `fuzz --target` wrote): `repro` and `reduce`
/// without `--target` replay such a case where it failed, not on ssaref's
/// own back ends, where it passed. A file that does not load gives `None`;
/// the command then reports the error as it would for any case.
/// A `target:` line naming no target is bad input, at that line.
pub fn recorded_target(file: &str) -> Result<Option<String>, Failure> {
    let Ok((_, description)) = load_any(file, &[]) else { return Ok(None) };
    let Some((name, _)) = parse_target_line(&description) else { return Ok(None) };
    if ssaref::targets::registry::parse_list(&name).is_ok_and(|l| !l.is_empty()) {
        return Ok(Some(name));
    }
    let text = std::fs::read(file).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    let line = text.lines().position(|l| l.trim_start().starts_with("// target:")).map_or(1, |i| i + 1);
    Err(bad_input(format!("{file}:{line}:1: `target: {name}` names no target (they are listed in docs/targets.md)")))
}

/// A program file as a generated case (source or SSA level), with its
/// header's description lines.
fn load_any(file: &str, raw_args: &[String]) -> Result<(Generated, Vec<String>), Failure> {
    if is_ssa(file) {
        let case = load_ssa(file)?;
        let args = ssa_args(file, &case, raw_args)?;
        let description = case.header.description.clone();
        Ok((Generated::Ir(IrCase { module: case.module, args, origin: format!("case {file}") }), description))
    } else {
        let (src, program) = load(file)?;
        let args = parse_args(file, &src, &program, raw_args)?;
        let description = CaseHeader::parse(&src).map(|h| h.description).unwrap_or_default();
        Ok((Generated::Source(TestCase { program, args, origin: format!("case {file}") }), description))
    }
}

fn target_case(g: &Generated) -> TargetCase {
    match g {
        Generated::Source(tc) => TargetCase::source(tc.program.clone(), tc.args.clone()),
        Generated::Ir(c) => TargetCase::ssa(c.module.clone(), c.args.clone()),
    }
}

/// The option sets to run on `target`: `options` if given (each must be
/// one of the target's), else the case's `target:` line's when it names
/// this target and `prefer_recorded`, else all.
fn option_sets(
    target: &dyn Target,
    options: &[String],
    recorded: Option<&(String, String)>,
    prefer_recorded: bool,
) -> Result<Vec<String>, Failure> {
    let all = target.option_sets();
    if !options.is_empty() {
        // Several targets share one list: each runs the sets it offers.
        let chosen: Vec<String> = options.iter().filter(|o| all.contains(o)).cloned().collect();
        if chosen.is_empty() {
            return Err(usage(format!(
                "none of --options is an option set of {} (they are: {})",
                target.name(),
                all.join(" ")
            )));
        }
        return Ok(chosen);
    }
    if prefer_recorded {
        if let Some((t, o)) = recorded {
            if t == target.name() && all.contains(o) {
                return Ok(vec![o.clone()]);
            }
        }
    }
    Ok(all)
}

/// `check --target` and `repro --target`: runs the case on each option set
/// and prints one verdict line each; `repro` also prints the case in the
/// target's format for the first failing set.
pub fn check_on_targets(
    file: &str,
    raw_args: &[String],
    list: &str,
    options: &[String],
    fuel: u64,
    repro: bool,
) -> Result<ExitCode, Failure> {
    let targets = targets(list)?;
    let (generated, description) = load_any(file, raw_args)?;
    let recorded = parse_target_line(&description);
    let case = target_case(&generated);
    let (mut failed, mut out_of_fuel, mut inconclusive) = (false, false, false);
    for t in &targets {
        if let Err(e) = t.version() {
            sayln!("skip   {}: {e}", t.name());
            continue;
        }
        for o in option_sets(t.as_ref(), options, recorded.as_ref(), repro)? {
            let v = run_against_oracle(
                t.as_ref(),
                std::slice::from_ref(&case),
                &o,
                &interp::Interp,
                fuel,
                &Limits::for_fuel(fuel),
            )
            .into_iter()
            .next()
            .unwrap_or(TargetVerdict::Skipped);
            let word = match &v {
                TargetVerdict::Agree => "agree ",
                v if v.is_failure() => "FAIL  ",
                TargetVerdict::Inconclusive(_) => "inconclusive ",
                _ => "skip  ",
            };
            out_of_fuel |= v == TargetVerdict::Skipped;
            inconclusive |= matches!(v, TargetVerdict::Inconclusive(_));
            sayln!(
                "{word} {} {o}{}",
                t.name(),
                if v == TargetVerdict::Agree { String::new() } else { format!(": {}", v.describe()) }
            );
            if v.is_failure() && repro && !failed {
                if let TargetVerdict::Diverge { expected, .. } = &v {
                    for f in t.export(&case, &o, expected, "case").map_err(|e| bad_input(e.to_string()))? {
                        sayln!("== case{}\n{}", f.suffix, f.text);
                    }
                }
            }
            failed |= v.is_failure();
        }
    }
    // The exit codes of docs/command-line.md: a target's failure is a
    // finding (3, as in `fuzz --target`), a reference out of fuel is 4.
    Ok(match (failed, inconclusive, out_of_fuel) {
        (true, _, _) => ExitCode::from(EXIT_INTERNAL),
        (false, true, _) => ExitCode::from(EXIT_INCONCLUSIVE),
        (false, false, true) => ExitCode::from(EXIT_OUT_OF_FUEL),
        (false, false, false) => ExitCode::SUCCESS,
    })
}

/// `reduce --target`: reduces the case on the first target of the list
/// under its recorded option set (or `--options`, or the first set that
/// fails), writes `NAME.reduced.src` (or `.ssa`) and the export.
pub fn reduce_on_target(
    file: &str,
    list: &str,
    options: &[String],
    out: Option<&str>,
    fuel: u64,
    max_tests: u64,
) -> Result<ExitCode, Failure> {
    let targets = targets(list)?;
    let target = targets.first().ok_or_else(|| bad_input("--target names no target".into()))?;
    target.version().map_err(|e| bad_input(e.to_string()))?;
    let (generated, description) = load_any(file, &[])?;
    let recorded = parse_target_line(&description);
    let case = target_case(&generated);
    let sets = option_sets(target.as_ref(), options, recorded.as_ref(), true)?;
    let chosen = sets
        .iter()
        .find(|o| {
            run_against_oracle(
                target.as_ref(),
                std::slice::from_ref(&case),
                o,
                &interp::Interp,
                fuel,
                &Limits::for_fuel(fuel),
            )
            .first()
            .is_some_and(TargetVerdict::is_failure)
        })
        .ok_or_else(|| bad_input(format!("{file}: the case does not fail on {}", target.name())))?
        .clone();
    let stem = out.map_or_else(
        || file.strip_suffix(".src").or_else(|| file.strip_suffix(".ssa")).unwrap_or(file).to_string() + ".reduced",
        |o| o.strip_suffix(".src").or_else(|| o.strip_suffix(".ssa")).unwrap_or(o).to_string(),
    );
    // Ctrl-C or SIGTERM ends the reduction with the smallest failing case
    // so far, which is written as at the end; a second one ends the
    // process (exit code 130) without leaving scratch directories behind.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let handler_stop = std::sync::Arc::clone(&stop);
    let _ = ctrlc::set_handler(move || {
        if handler_stop.swap(true, std::sync::atomic::Ordering::SeqCst) {
            ssaref::targets::native::remove_scratch_of_this_process();
            std::process::exit(130);
        }
    });
    let stopped = || stop.load(std::sync::atomic::Ordering::SeqCst);
    let (t, i) = (target.as_ref(), &interp::Interp);
    let result = match &generated {
        Generated::Source(tc) => reduce_for_target(tc, t, &chosen, i, fuel, max_tests, &stopped)
            .map(|r| (Generated::Source(r.case), r.expected, r.verdict, r.tests, r.size_before, r.size_after)),
        Generated::Ir(c) => reduce_for_target(c, t, &chosen, i, fuel, max_tests, &stopped)
            .map(|r| (Generated::Ir(r.case), r.expected, r.verdict, r.tests, r.size_before, r.size_after)),
    }
    .map_err(|e| bad_input(format!("{file}: {e}")))?;
    let (reduced, expected, verdict, tests, before, after) = result;
    if stopped() {
        sayln!("interrupted (Ctrl-C or SIGTERM): the smallest failing case so far follows");
    }
    let stem_path = PathBuf::from(&stem);
    let first = format!("ssaref reduce --target: reduced from {file}");
    let path = write_target_case(&stem_path, &first, &reduced, target.name(), &chosen, &verdict, &expected)
        .map_err(|e| bad_input(format!("{stem}: {e}")))?;
    let exported = export_case(target.as_ref(), &target_case(&reduced), &chosen, &expected, &stem_path)
        .map_err(|e| bad_input(e.to_string()))?;
    sayln!(
        "reduced on {} `{chosen}` from size {before} to {after} in {tests} candidate runs: {}",
        target.name(),
        verdict.describe()
    );
    sayln!("wrote {}", path.display());
    for p in exported {
        sayln!("wrote {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}
