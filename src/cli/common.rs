//! What the commands share: the exit codes, `Failure` (an error message
//! and its exit code), reading a program or a case file (errors as
//! `FILE:LINE:COL: message`), the arguments of `main` and the `--regs`
//! check, printing an outcome, and the route-1/route-2 back end and
//! out-of-SSA program that `run`, `emit` and `repro` print or run (route 3:
//! regalloc2's input and output with `--passes`).

use crate::options::{AllocArgs, ConstructionArgs, Route, Route2Args};
use ssaref::analysis::ir_text;
use ssaref::ast;
use ssaref::frontend::case_file::CaseFile;
use ssaref::frontend::parser;
use ssaref::outcome::{End, Outcome};
use ssaref::pipeline;
use ssaref::route1::regalloc::allocate_module;
use std::process::ExitCode;

/// Exit code for a program that did not finish within its fuel.
pub const EXIT_OUT_OF_FUEL: u8 = 4;
/// Exit code for bad input (syntax errors, bad arguments).
pub const EXIT_BAD_INPUT: u8 = 1;
/// Exit code for an internal error of ssaref (a checker or a stage failed).
pub const EXIT_INTERNAL: u8 = 3;

/// An error to print and the exit code that goes with it.
pub struct Failure {
    pub message: String,
    pub code: u8,
}

pub fn bad_input(message: String) -> Failure {
    Failure { message, code: EXIT_BAD_INPUT }
}

pub fn internal(message: String) -> Failure {
    Failure { message: format!("internal error: {message}"), code: EXIT_INTERNAL }
}

/// Reads and parses a program; errors come out as `FILE:LINE:COL: message`.
pub fn load(file: &str) -> Result<(String, ast::Program), Failure> {
    let src = std::fs::read_to_string(file).map_err(|e| bad_input(format!("{file}: cannot read: {e}")))?;
    let program = parser::parse_program(&src).map_err(|d| bad_input(d.with_file(file)))?;
    Ok((src, program))
}

/// Parses the arguments of `main` and checks their number against its
/// parameters; a bad count is reported at `main`'s position.
pub fn parse_args(file: &str, src: &str, program: &ast::Program, raw: &[String]) -> Result<Vec<i64>, Failure> {
    let args = raw
        .iter()
        .map(|a| a.parse::<i64>().map_err(|_| bad_input(format!("argument `{a}` is not a 64-bit integer"))))
        .collect::<Result<Vec<_>, _>>()?;
    let main = program.main().expect("the parser requires `main`");
    if args.len() > main.params.len() {
        let pos = main_position(src);
        return Err(bad_input(format!(
            "{file}:{pos}: too many arguments: `main` takes {} but {} were given",
            main.params.len(),
            args.len()
        )));
    }
    Ok(args)
}

/// Where `fn main` starts in the source (1:1 if it cannot be found).
fn main_position(src: &str) -> ssaref::diag::Pos {
    ssaref::frontend::case_file::main_position(src)
}

pub fn print_outcome(outcome: &Outcome) -> ExitCode {
    print!("{}", outcome.render());
    if outcome.end == End::OutOfFuel {
        eprintln!("the program ran out of fuel (raise it with --fuel)");
        return ExitCode::from(EXIT_OUT_OF_FUEL);
    }
    ExitCode::SUCCESS
}

/// The back end's machine IR for `--stage alloc` and `--stage x86`: route 1,
/// route 2 with the chosen configuration, or route 3 (regalloc2). With
/// `passes`, also the IR after each pass (route 3: regalloc2's input and
/// its allocations and edits), as text.
pub fn backend(
    program: &ssaref::ast::Program,
    construction: &ConstructionArgs,
    route: Route,
    alloc: &AllocArgs,
    route2: &Route2Args,
    passes: bool,
) -> Result<(ssaref::mir::MModule, String), Failure> {
    let module = pipeline::build_ssa(program, &construction.config()).map_err(|e| internal(e.to_string()))?;
    backend_of_ssa(&module, route, alloc, route2, passes)
}

/// [`backend`] from an SSA module (a `.ssa` program, or the SSA built from
/// a source program).
pub fn backend_of_ssa(
    module: &ssaref::ir::Module,
    route: Route,
    alloc: &AllocArgs,
    route2: &Route2Args,
    passes: bool,
) -> Result<(ssaref::mir::MModule, String), Failure> {
    let mut text = String::new();
    let mir = match route {
        Route::SsaRa => {
            let (mir, reports) = allocate_module(module, &alloc.options()).map_err(|e| internal(e.to_string()))?;
            if passes {
                let npasses = reports.first().map_or(0, |r| r.stages.len());
                for i in 0..npasses {
                    text.push_str(&format!("// after {}\n", reports[0].stages[i].0));
                    for r in &reports {
                        text.push_str(&ir_text::print_function(&r.stages[i].1));
                    }
                }
            }
            mir
        }
        Route::Boissinot => {
            let r2 = route2.route2();
            let (destructed, pins, _) = ssaref::route2::out_of_ssa::translate_module_with_pins(module, &r2.out_of_ssa)
                .map_err(|e| internal(e.to_string()))?;
            if passes {
                text.push_str(&format!("// after out-of-SSA ({})\n", r2.describe()));
                text.push_str(&print_destructed(&destructed, &pins));
            }
            ssaref::route2::conventional_alloc::allocate_conventional_module_pinned(
                &destructed,
                &pins,
                usize::from(alloc.regs),
                r2.allocator,
            )
            .map_err(|e| internal(e.to_string()))?
        }
        Route::Regalloc2 => {
            let (mir, reports) = ssaref::route3::allocate_module(module, usize::from(alloc.regs))
                .map_err(|e| internal(e.to_string()))?;
            if passes {
                for r in &reports {
                    text.push_str(&r.render());
                }
            }
            mir
        }
    };
    if passes {
        text.push_str("// allocated\n");
    }
    Ok((mir, text))
}

/// Route 2's destructed program (`--stage out-of-ssa`) and the pinned
/// variables of each function.
pub fn destructed(
    program: &ssaref::ast::Program,
    construction: &ConstructionArgs,
    route2: &Route2Args,
) -> Result<(ssaref::ir::Module, Vec<ssaref::route2::renaming_constraints::Pins>), Failure> {
    let module = pipeline::build_ssa(program, &construction.config()).map_err(|e| internal(e.to_string()))?;
    let (destructed, pins, _) =
        ssaref::route2::out_of_ssa::translate_module_with_pins(&module, &route2.route2().out_of_ssa)
            .map_err(|e| internal(e.to_string()))?;
    Ok((destructed, pins))
}

/// A destructed module in the IR text form, each function followed by a
/// comment naming its pinned variables (§III-D).
pub fn print_destructed(m: &ssaref::ir::Module, pins: &[ssaref::route2::renaming_constraints::Pins]) -> String {
    ssaref::backend::print_destructed(m, pins)
}

pub fn check_regs(regs: &[usize]) -> Result<(), Failure> {
    match regs.iter().find(|k| !(2..=15).contains(*k)) {
        Some(k) => Err(bad_input(format!("--regs: {k} is outside 2..=15"))),
        None => Ok(()),
    }
}

/// Reads a case file; errors come out as `FILE:LINE:COL: message`.
pub fn load_case(file: &str) -> Result<CaseFile, Failure> {
    let src = std::fs::read_to_string(file).map_err(|e| bad_input(format!("{file}: cannot read: {e}")))?;
    CaseFile::parse(&src).map_err(|d| bad_input(d.with_file(file)))
}

/// The register counts of a case without a `// regs:` line (those of `ssaref fuzz`).
pub const DEFAULT_CASE_REGS: [usize; 6] = ssaref::testing::rotation::FIXED_REGS;

/// The differential check that a case file asks for, with register counts
/// `regs`: the configuration of its `// config:` line
/// (`testing/rotation.rs`; a campaign records the one it ran the case
/// with), else `DiffConfig::standard`. A bad `config:` line is an error at
/// its word, `FILE:LINE:COL: message`.
pub fn case_config(
    file: &str,
    config: Option<&(ssaref::diag::Pos, String)>,
    regs: &[usize],
    fuel: u64,
) -> Result<pipeline::DiffConfig, Failure> {
    let Some((pos, text)) = config else { return Ok(pipeline::DiffConfig::standard(regs, fuel)) };
    let program = ssaref::testing::rotation::ProgramConfig::parse(text, regs).map_err(|(offset, message)| {
        let at = ssaref::diag::Pos { line: pos.line, col: pos.col.saturating_add(offset as u32) };
        bad_input(ssaref::diag::Diag::new(at, message).with_file(file))
    })?;
    Ok(program.diff_config(fuel))
}
