//! `ssaref repro`: replays a saved case: the program, its SSA, route 1's
//! IR after each pass, routes 1 and 2's allocated code and x86-64 listing
//! (the failing route first; route 3's, with regalloc2's input and edits,
//! when it failed or is the only route asked for), then every stage's verdict.

use crate::common::{check_regs, load_case, print_destructed, Failure, DEFAULT_CASE_REGS, EXIT_OUT_OF_FUEL};
use crate::options::Routes;
use clap::Args;
use ssaref::analysis::ir_text;
use ssaref::construction::braun::construct_program;
use ssaref::construction::braun::BraunOptions;
use ssaref::pipeline::{self, Verdict};
use ssaref::route1::regalloc::{allocate_module, RegallocOptions};
use std::process::ExitCode;

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

/// `repro`'s view of route 2: the destructed program, the allocated code
/// and its disassembly, for one configuration and one K.
fn print_route2(ssa: &ssaref::ir::Module, r2: &pipeline::Route2, k: usize) {
    let tag = r2.describe();
    match ssaref::route2::out_of_ssa::translate_module_with_pins(ssa, &r2.out_of_ssa) {
        Ok((destructed, pins, _)) => {
            println!("== route 2: out of SSA ({tag})");
            print!("{}", print_destructed(&destructed, &pins));
            match ssaref::route2::conventional_alloc::allocate_conventional_module_pinned(
                &destructed,
                &pins,
                k,
                r2.allocator,
            ) {
                Ok(mir) => {
                    println!("== route 2: allocated ({tag}, K = {k})");
                    print!("{}", ssaref::mir::print_module(&mir));
                    print_listing(&mir, &format!("route 2: x86-64 ({tag}, K = {k})"));
                }
                Err(e) => println!("== route 2: allocation with K = {k} failed: {e}"),
            }
        }
        Err(e) => println!("== route 2: out-of-SSA ({tag}) failed: {e}"),
    }
}

/// `repro`'s view of route 3: regalloc2's input, its allocations and
/// edits, the allocated code and its disassembly, for one K.
fn print_route3(ssa: &ssaref::ir::Module, k: usize) {
    for f in &ssa.functions {
        match ssaref::route3::allocate_regalloc2(f, k) {
            Ok((_, report)) => {
                println!("== route 3: regalloc2 (`{}`, K = {k})", f.name);
                print!("{}", report.render());
            }
            Err(e) => println!("== route 3: regalloc2 on `{}` with K = {k} failed: {e}", f.name),
        }
    }
    if let Ok((mir, _)) = ssaref::route3::allocate_module(ssa, k) {
        println!("== route 3: allocated (K = {k})");
        print!("{}", ssaref::mir::print_module(&mir));
        print_listing(&mir, &format!("route 3: x86-64 (K = {k})"));
    }
}

pub fn cmd_repro(a: ReproArgs) -> Result<ExitCode, Failure> {
    let case = load_case(&a.case)?;
    let (program, args) = (case.program, case.args);
    let regs =
        if !a.regs.is_empty() { a.regs.clone() } else { case.regs.unwrap_or_else(|| DEFAULT_CASE_REGS.to_vec()) };
    check_regs(&regs)?;
    let config = a.route.restrict(pipeline::DiffConfig::standard(&regs, a.fuel));
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
    let route2 = failing
        .as_deref()
        .and_then(|s| {
            pipeline::Route2::all().into_iter().find(|r| {
                let (v, l) = (r.out_of_ssa.variant.slug(), r.out_of_ssa.liveness.name());
                s.contains(&r.describe()) || s.starts_with(&format!("out-of-ssa[{v},{l}]"))
            })
        })
        .unwrap_or(pipeline::Route2 {
            out_of_ssa: ssaref::route2::out_of_ssa::OutOfSsaOptions::default(),
            allocator: ssaref::route2::conventional_alloc::ConventionalAllocator::LinearScan,
        });
    println!("== program (args {args:?})");
    print!("{}", ssaref::frontend::ast_print::print_program(&program));
    let ssa = construct_program(&program, &BraunOptions::all_on());
    println!("== SSA (Braun et al., all optimizations)");
    print!("{}", ir_text::print_module(&ssa));
    // Route 2 first when the failure is there.
    let route2_failed = failing.as_deref().is_some_and(|s| {
        s.starts_with("out-of-ssa") || s.starts_with("conv") || s.starts_with("x86-conv") || s.contains("conv-ra")
    });
    let route3_failed =
        failing.as_deref().is_some_and(|s| s.starts_with("regalloc2") || s.starts_with("x86-regalloc2"));
    if route3_failed || (a.route.route3() && !a.route.route1() && !a.route.route2()) {
        print_route3(&ssa, first_k);
    }
    if route2_failed {
        print_route2(&ssa, &route2, first_k);
    }
    match allocate_module(&ssa, &RegallocOptions::with_k(first_k)) {
        Ok((mir, reports)) => {
            let npasses = reports.first().map_or(0, |r| r.stages.len());
            for i in 0..npasses {
                println!("== after {} (K = {first_k})", reports[0].stages[i].0);
                for r in &reports {
                    print!("{}", ir_text::print_function(&r.stages[i].1));
                }
            }
            println!("== allocated (K = {first_k})");
            print!("{}", ssaref::mir::print_module(&mir));
            print_listing(&mir, &format!("x86-64 (K = {first_k})"));
        }
        Err(e) => println!("== allocation with K = {first_k} failed: {e}"),
    }
    if !route2_failed {
        print_route2(&ssa, &route2, first_k);
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
