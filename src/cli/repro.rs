//! `ssaref repro`: replays a saved case with the configuration its
//! `// config:` line records (else `DiffConfig::standard`): the program,
//! the SSA the back ends allocate, then for the
//! failing back end what its `Backend::report` says (ssa-ra: the IR after
//! each pass; out-of-ssa: the destructed program; regalloc2: regalloc2's input
//! and edits; then the allocated code) and the x86-64 listing, and for one
//! back end of each other family (`backend/`) its allocated code (all of
//! it with `--listing`, or when only one back end is shown), then every
//! stage's verdict. A `.ssa` case (as `ssaref fuzz --ir-share` writes
//! them) is replayed the same way, from its SSA, against the oracle's run
//! of the SSA itself (`differential::differential_ssa`).

use crate::args::Routes;
use crate::common::{case_config, load_case, Failure, DEFAULT_CASE_REGS, EXIT_INTERNAL, EXIT_OUT_OF_FUEL};
use crate::max_memory::MaxMemoryArgs;
use crate::ssa_input::{is_ssa, load_ssa};
use crate::stdio::{say, sayln};
use clap::Args;
use ssaref::backend::{family, Backend};
use ssaref::construction::braun::construct_program;
use ssaref::differential::{self, Verdict};
use ssaref::pass_manager::flags::Flags;
use ssaref::pass_manager::runner::Unobserved;
use ssaref::pipeline;
use ssaref::ssa_text;
use std::process::ExitCode;
use std::sync::Arc;

use ssaref_interp as interp;

#[derive(Args, Debug)]
pub struct ReproArgs {
    /// A case written by `ssaref fuzz` (or any `*.src` or `*.ssa` with an
    /// `// args:` line).
    case: String,
    /// Register counts (default: the case's `// regs:` line, else 2,3,4,6,8,15).
    #[arg(long, value_delimiter = ',', value_parser = crate::args::reg_count())]
    regs: Vec<usize>,
    /// Fuel of the source run.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL, value_parser = crate::args::fuel())]
    fuel: u64,
    /// Which back ends: `ssa-ra`, `out-of-ssa` (or `boissinot`), `regalloc2`,
    /// `both` (ssa-ra and out-of-ssa) or `all`.
    #[arg(long, value_enum, default_value_t = Routes::All)]
    route: Routes,
    /// Print every back end's report (the IR after each pass, regalloc2's
    /// input and edits) and x86-64 listing, not only the failing one's.
    #[arg(long, visible_alias = "verbose")]
    listing: bool,
    /// Replay on production compilers (`llvm`, `gcc`, `clang`): under the
    /// option set of the case's `target:` line (else every set), printing
    /// the case in the target's format when it fails. Default: the target
    /// of the case's `target:` line, if it has one.
    #[arg(long, value_name = "LIST")]
    target: Option<String>,
    /// With --target: only these option sets (repeat the flag).
    #[arg(long)]
    options: Vec<String>,
    #[command(flatten)]
    memory: MaxMemoryArgs,
}

/// `repro`'s annotated disassembly of `mir`, under the heading `title`, or
/// why the lowering or the machine-code checker failed.
fn print_listing(mir: &ssaref::mir::MModule, title: &str) -> Result<(), Failure> {
    match pipeline::lower_and_check_listed(mir) {
        Ok(code) => {
            sayln!("== {title}");
            say!("{}", ssaref::machine::x86_lower::listing(&code));
        }
        Err(e) => sayln!("== {title}: lowering failed: {e}"),
    }
    Ok(())
}

/// Whether the stage or pass `failing` (with register count `k`) belongs
/// to `backend`: exactly one of its stage names, or a name that starts
/// with its preparation's stages (out-of-ssa's `out-of-ssa[...]`) or with its
/// family (`ssa-ra[k=4,opt]/spill`, `regalloc2[k=2]/to-mir`).
fn owns(backend: &dyn Backend, failing: &str, k: usize, exact: bool) -> bool {
    let (mir, x86) = backend.stage_names(k);
    if exact {
        return failing == mir || failing == x86;
    }
    let name = backend.name();
    let fam = family(&name);
    let failing_family = failing.split(['[', '/']).next().unwrap_or(failing);
    failing.starts_with(&backend.prepare_key()) || failing_family == fam
}

pub fn cmd_repro(a: ReproArgs) -> Result<ExitCode, Failure> {
    a.memory.apply();
    let list = match a.target.clone() {
        Some(list) => Some(list),
        None => crate::target_cmd::recorded_target(&a.case)?,
    };
    if let Some(list) = list {
        return crate::target_cmd::check_on_targets(&a.case, &[], &list, &a.options, a.fuel, true);
    }
    if is_ssa(&a.case) {
        return cmd_repro_ssa(a);
    }
    let case = load_case(&a.case)?;
    let (program, args) = (case.program, case.args);
    let regs = case_regs(&a.regs, case.regs)?;
    // The configuration the campaign ran the case with, if it says.
    let config = a.route.restrict(case_config(&a.case, case.config.as_ref(), &regs, a.fuel)?);
    let verdict = differential::differential_full_catching(&program, &args, &interp::Interp, &config);
    sayln!("== program (args {args:?})");
    say!("{}", ssaref::frontend::ast_print::print_program(&program));
    let ssa = construct_program(&program, &config.backend_ssa);
    sayln!("== SSA (Braun et al., {}; every back end allocates it)", config.backend_ssa.describe());
    say!("{}", ssa_text::print_module(&ssa));
    print_backends(&ssa, &config, &verdict, &regs, a.listing)?;
    let tc =
        ssaref::generate::source::TestCase { program: program.clone(), args: args.clone(), origin: a.case.clone() };
    let failure = ssaref::generate::source::describe_failure(&tc, &verdict);
    print_stages(&verdict, "the source", &failure, &a.case, case.expect.as_deref())
}

/// `ssaref repro CASE.ssa`: the same report for a program given in SSA
/// form; its reference outcome is the oracle's run of the SSA.
fn cmd_repro_ssa(a: ReproArgs) -> Result<ExitCode, Failure> {
    let case = load_ssa(&a.case)?;
    let args = case.args();
    let regs = case_regs(&a.regs, case.header.regs.clone())?;
    let config = a.route.restrict(case_config(&a.case, case.header.config.as_ref(), &regs, a.fuel)?);
    let verdict = differential::differential_ssa_catching(&case.module, &args, &interp::Interp, &config);
    sayln!("== SSA program (args {args:?})");
    let text = ssa_text::print_module(&case.module);
    say!("{text}");
    print_backends(&case.module, &config, &verdict, &regs, a.listing)?;
    let what = ssaref::generate::source::describe_verdict(&verdict, "the SSA input");
    print_stages(&verdict, "the SSA input", &format!("{text}\n{what}"), &a.case, case.header.expect.as_deref())
}

/// The register counts of a replay: `--regs`, else the case's `// regs:`
/// line, else those of `ssaref fuzz`.
fn case_regs(given: &[usize], header: Option<Vec<usize>>) -> Result<Vec<usize>, Failure> {
    // Both are in 2..=15: clap checks `--regs`, the case file parser the header.
    let regs = if !given.is_empty() {
        crate::args::distinct_regs(given)
    } else {
        header.unwrap_or_else(|| DEFAULT_CASE_REGS.to_vec())
    };
    Ok(regs)
}

/// The failing back end first, then one back end of each other family
/// (for out-of-ssa, its default configuration): what its report says and its
/// listing, at the K of the failing stage.
fn print_backends(
    ssa: &ssaref::ir::Module,
    config: &differential::DiffConfig,
    verdict: &Verdict,
    regs: &[usize],
    listing: bool,
) -> Result<(), Failure> {
    // Show the K and the out-of-ssa configuration of the failing stage.
    let failing = match verdict {
        Verdict::Diverge { stage, .. } => Some(stage.clone()),
        Verdict::CheckFailed(e) => Some(e.pass.clone()),
        _ => None,
    };
    let first_k = failing
        .as_deref()
        .and_then(ssaref::reduce::source::stage_k)
        .filter(|k| regs.contains(k))
        .unwrap_or_else(|| regs.first().copied().unwrap_or(4));
    let mut display = config.clone();
    let default_out_of_ssa = ssaref::backend::OutOfSsa {
        out_of_ssa: ssaref::out_of_ssa::translate::OutOfSsaOptions::default(),
        allocator: ssaref::out_of_ssa::conventional::ConventionalAllocator::LinearScan,
    };
    if let Some(i) = display.out_of_ssa.iter().position(|r| r.describe() == default_out_of_ssa.describe()) {
        let r = display.out_of_ssa.remove(i);
        display.out_of_ssa.insert(0, r);
    }
    let list = display.backend_list();
    let culprit = failing.as_deref().and_then(|s| {
        let find = |exact| list.iter().find(|b| owns(b.as_ref(), s, first_k, exact));
        find(true).or_else(|| find(false))
    });
    let mut shown: Vec<Arc<dyn Backend>> = culprit.into_iter().cloned().collect();
    for b in &list {
        if !shown.iter().any(|s| family(&s.name()) == family(&b.name())) {
            shown.push(Arc::clone(b));
        }
    }
    // The failing back end (or the only one, or all with `--listing`) in
    // full: its report and its x86-64 listing; the others only by their
    // allocated code.
    let single = shown.len() == 1;
    for (i, b) in shown.iter().enumerate() {
        let full = listing || single || (i == 0 && culprit.is_some());
        if full {
            say!("{}", b.report(ssa, first_k, Flags::checked()));
        }
        // The back end's own checks, not ssaref's allocation checker: the
        // listing of a case that fails that checker is shown.
        let (flags, mut none) = (Flags::checked(), Unobserved);
        match b.prepare(ssa, flags, &mut none).and_then(|p| b.allocate(ssa, &p, first_k, flags, &mut none)) {
            Ok(mir) if full => print_listing(&mir, &b.listing_title(first_k))?,
            Ok(mir) => {
                sayln!("== {}: allocated (K = {first_k})", b.name());
                say!("{}", ssaref::mir::print_module(&mir));
            }
            Err(e) if !full => sayln!("== {}: allocation with K = {first_k} failed: {e}", b.name()),
            Err(_) => {}
        }
    }
    Ok(())
}

/// Every stage's verdict; `failure` describes a failing one. The exit
/// code: 0 when every stage agrees (7 when with an outcome other than the
/// case file's `// expect:` block), 4 when `reference` ran out of fuel,
/// 3 (`EXIT_INTERNAL`) when the case fails.
fn print_stages(
    verdict: &Verdict,
    reference: &str,
    failure: &str,
    file: &str,
    expect: Option<&[String]>,
) -> Result<ExitCode, Failure> {
    sayln!("== stages");
    match verdict {
        Verdict::Agree { outcome, stages } => {
            for s in stages {
                sayln!("agree    {}", s.stage);
            }
            say!("{}", outcome.render_full());
            crate::common::check_expect(file, expect, outcome)?;
            Ok(ExitCode::SUCCESS)
        }
        Verdict::Inconclusive => {
            sayln!("{reference} ran out of fuel: nothing to compare");
            Ok(ExitCode::from(EXIT_OUT_OF_FUEL))
        }
        Verdict::Limit { stage, limit } => {
            Err(crate::common::inconclusive(file, format!("stage {stage} reached {limit}")))
        }
        _ => {
            say!("{failure}");
            Ok(ExitCode::from(EXIT_INTERNAL))
        }
    }
}
