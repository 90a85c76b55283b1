//! `ssaref repro`: replays a saved case with the configuration its
//! `// config:` line records (else `DiffConfig::standard`): the program,
//! the SSA the back ends allocate, then for the
//! failing back end first and one back end of each other family
//! (`backend.rs`) what its `Backend::report` says (route 1: the IR after
//! each pass; route 2: the destructed program; route 3: regalloc2's input
//! and edits; then the allocated code) and the x86-64 listing, then every
//! stage's verdict.

use crate::common::{case_config, check_regs, load_case, Failure, DEFAULT_CASE_REGS, EXIT_OUT_OF_FUEL};
use crate::options::Routes;
use clap::Args;
use ssaref::analysis::ir_text;
use ssaref::backend::{family, Backend};
use ssaref::construction::braun::construct_program;
use ssaref::pipeline::{self, Verdict};
use std::process::ExitCode;
use std::sync::Arc;

use ssaref_interp as interp;

#[derive(Args, Debug)]
pub struct ReproArgs {
    /// A case written by `ssaref fuzz` (or any `*.src` with an `// args:` line).
    case: String,
    /// Register counts (default: the case's `// regs:` line, else 2,3,4,6,8,15).
    #[arg(long, value_delimiter = ',')]
    regs: Vec<usize>,
    /// Fuel of the source run.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL)]
    fuel: u64,
    /// Which back ends: `ssa-ra`, `boissinot`, `regalloc2`, `both` (routes 1
    /// and 2) or `all`.
    #[arg(long, value_enum, default_value_t = Routes::All)]
    route: Routes,
}

/// `repro`'s annotated disassembly of `mir`, under the heading `title`, or
/// why the lowering or the machine-code checker failed.
fn print_listing(mir: &ssaref::mir::MModule, title: &str) {
    match pipeline::lower_and_check(mir) {
        Ok(code) => {
            println!("== {title}");
            print!("{}", ssaref::machine::x86_lower::listing(&code));
        }
        Err(e) => println!("== {title}: lowering failed: {e}"),
    }
}

/// Whether the stage or pass `failing` (with register count `k`) belongs
/// to `backend`: exactly one of its stage names, or a name that starts
/// with its preparation's stages (route 2's `out-of-ssa[...]`) or with its
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
    let case = load_case(&a.case)?;
    let (program, args) = (case.program, case.args);
    let regs =
        if !a.regs.is_empty() { a.regs.clone() } else { case.regs.unwrap_or_else(|| DEFAULT_CASE_REGS.to_vec()) };
    check_regs(&regs)?;
    // The configuration the campaign ran the case with, if it says.
    let config = a.route.restrict(case_config(&a.case, case.config.as_ref(), &regs, a.fuel)?);
    let verdict = pipeline::differential_full_catching(&program, &args, &interp::Interp, &config);
    // Show the K and the route-2 configuration of the failing stage.
    let failing = match &verdict {
        Verdict::Diverge { stage, .. } => Some(stage.clone()),
        Verdict::CheckFailed(e) => Some(e.pass.clone()),
        _ => None,
    };
    let first_k = failing
        .as_deref()
        .and_then(ssaref::testing::reduce::stage_k)
        .filter(|k| regs.contains(k))
        .unwrap_or_else(|| regs.first().copied().unwrap_or(4));
    println!("== program (args {args:?})");
    print!("{}", ssaref::frontend::ast_print::print_program(&program));
    let ssa = construct_program(&program, &config.backend_ssa);
    println!("== SSA (Braun et al., {}; every back end allocates it)", config.backend_ssa.describe());
    print!("{}", ir_text::print_module(&ssa));
    // The failing back end first, then one back end of each other family
    // (for route 2, its default configuration).
    let mut display = config.clone();
    let default_route2 = pipeline::Route2 {
        out_of_ssa: ssaref::route2::out_of_ssa::OutOfSsaOptions::default(),
        allocator: ssaref::route2::conventional_alloc::ConventionalAllocator::LinearScan,
    };
    if let Some(i) = display.route2.iter().position(|r| r.describe() == default_route2.describe()) {
        let r = display.route2.remove(i);
        display.route2.insert(0, r);
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
    for b in &shown {
        print!("{}", b.report(&ssa, first_k));
        if let Ok(out) = b.prepare(&ssa).and_then(|p| b.allocate(&ssa, &p, first_k)) {
            print_listing(&out.mir, &b.listing_title(first_k));
        }
    }
    println!("== stages");
    match &verdict {
        Verdict::Agree { outcome, stages } => {
            for s in stages {
                println!("agree    {}", s.stage);
            }
            print!("{}", outcome.render_full());
            Ok(ExitCode::SUCCESS)
        }
        Verdict::Inconclusive => {
            println!("the source ran out of fuel: nothing to compare");
            Ok(ExitCode::from(EXIT_OUT_OF_FUEL))
        }
        other => {
            let tc =
                ssaref::testing::gen::TestCase { program: program.clone(), args: args.clone(), origin: a.case.clone() };
            print!("{}", ssaref::testing::gen::describe_failure(&tc, other));
            Ok(ExitCode::from(1))
        }
    }
}
