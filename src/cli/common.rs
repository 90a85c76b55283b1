//! What the commands share: the exit codes, `Failure` (an error message
//! and its exit code), reading a program or a case file (errors as
//! `FILE:LINE:COL: message`), the arguments of `main` and the `--regs`
//! check, printing an outcome, the back ends of `--route` (as `Backend`s)
//! whose allocated code `run` and `emit` run or print (with `--passes`,
//! what each reports), and out-of-ssa's out-of-SSA program.

use crate::args::{AllocArgs, ConstructionArgs, OutOfSsaArgs, Routes};
use ssaref::ast;
use ssaref::backend::Backend;
use ssaref::differential::DiffConfig;
use ssaref::frontend::case_file::CaseFile;
use ssaref::frontend::parser;
use ssaref::outcome::{End, Outcome};
use ssaref::pipeline;
use std::process::ExitCode;
use std::sync::Arc;

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

/// A bug of ssaref: `error` (a message, a pass error, an evaluation error)
/// after `internal error: `.
pub fn internal(error: impl std::fmt::Display) -> Failure {
    Failure { message: format!("internal error: {error}"), code: EXIT_INTERNAL }
}

/// Reads and parses a program; errors come out as `FILE:LINE:COL: message`.
pub fn load(file: &str) -> Result<(String, ast::Program), Failure> {
    let src = std::fs::read_to_string(file).map_err(|e| bad_input(format!("{file}: cannot read: {e}")))?;
    let program = parser::parse_program(&src).map_err(|d| bad_input(d.with_file(file)))?;
    Ok((src, program))
}

/// Parses the arguments of `main` and checks their number against its
/// parameters; a bad count is reported at `main`'s position. With none on
/// the command line, a case file's `// args:` line gives them (as for
/// `.ssa` files).
pub fn parse_args(file: &str, src: &str, program: &ast::Program, raw: &[String]) -> Result<Vec<i64>, Failure> {
    let from_header;
    let raw = if raw.is_empty() {
        let header = ssaref::frontend::case_file::CaseHeader::parse(src).map_err(|d| bad_input(d.with_file(file)))?;
        from_header = header.args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        &from_header[..]
    } else {
        raw
    };
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

/// The back ends of `--route` in `run` and `emit`, as `Backend`s
/// (`backend.rs`), in the order of `fuzz` and `repro`: ssa-ra with the
/// allocation options, out-of-ssa with its one configuration, regalloc2.
pub fn chosen_backends(route: Routes, alloc: &AllocArgs, out_of_ssa: &OutOfSsaArgs) -> Vec<Arc<dyn Backend>> {
    let mut out: Vec<Arc<dyn Backend>> = Vec::new();
    if route.ssa_ra() {
        out.push(Arc::new(ssaref::backend::SsaRa(alloc.options())));
    }
    if route.out_of_ssa() {
        out.push(Arc::new(out_of_ssa.out_of_ssa()));
    }
    if route.regalloc2() {
        out.push(Arc::new(ssaref::backend::Regalloc2));
    }
    out
}

/// One back end's allocated code for `--stage alloc` and `--stage x86`.
pub struct Allocated {
    /// The back end's name (`Backend::name`).
    pub name: String,
    pub mir: ssaref::mir::MModule,
    /// With `passes`, what the back end reports (`Backend::report`: route
    /// 1, the SSA after each pass; out-of-ssa, the destructed program; route
    /// 3, regalloc2's input, allocations and edits), ending with the
    /// allocated code; otherwise empty.
    pub text: String,
}

/// The machine IR of each back end of `--route` for `--stage alloc` and
/// `--stage x86`, with `--regs` registers (see [`Allocated`]).
pub fn backend(
    program: &ssaref::ast::Program,
    construction: &ConstructionArgs,
    route: Routes,
    alloc: &AllocArgs,
    out_of_ssa: &OutOfSsaArgs,
    passes: bool,
) -> Result<Vec<Allocated>, Failure> {
    let module = pipeline::build_ssa(program, &construction.config()).map_err(|e| internal(e.to_string()))?;
    backend_of_ssa(&module, route, alloc, out_of_ssa, passes)
}

/// [`backend`] from an SSA module (a `.ssa` program, or the SSA built from
/// a source program).
pub fn backend_of_ssa(
    module: &ssaref::ir::Module,
    route: Routes,
    alloc: &AllocArgs,
    out_of_ssa: &OutOfSsaArgs,
    passes: bool,
) -> Result<Vec<Allocated>, Failure> {
    let k = usize::from(alloc.regs);
    let mut out = Vec::new();
    for b in chosen_backends(route, alloc, out_of_ssa) {
        let mir = pipeline::allocate(module, b.as_ref(), k, &pipeline::Config::default())
            .map_err(|e| internal(e.to_string()))?;
        let text = if passes { b.report(module, k) } else { String::new() };
        out.push(Allocated { name: b.name(), mir, text });
    }
    Ok(out)
}

/// out-of-ssa's destructed program (`--stage out-of-ssa`) and the pinned
/// variables of each function.
pub fn destructed(
    program: &ssaref::ast::Program,
    construction: &ConstructionArgs,
    out_of_ssa: &OutOfSsaArgs,
) -> Result<(ssaref::ir::Module, Vec<ssaref::out_of_ssa::renaming_constraints::Pins>), Failure> {
    let module = pipeline::build_ssa(program, &construction.config()).map_err(|e| internal(e.to_string()))?;
    let (destructed, pins, _) =
        ssaref::out_of_ssa::translate::translate_module_with_pins(&module, &out_of_ssa.out_of_ssa().out_of_ssa)
            .map_err(|e| internal(e.to_string()))?;
    Ok((destructed, pins))
}

/// A destructed module in the IR text form, each function followed by a
/// comment naming its pinned variables (§III-D).
pub fn print_destructed(m: &ssaref::ir::Module, pins: &[ssaref::out_of_ssa::renaming_constraints::Pins]) -> String {
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
pub const DEFAULT_CASE_REGS: [usize; 6] = ssaref::campaign::rotation::FIXED_REGS;

/// The differential check that a case file asks for, with register counts
/// `regs`: the configuration of its `// config:` line
/// (`campaign/rotation.rs`; a campaign records the one it ran the case
/// with), else `DiffConfig::standard`. A bad `config:` line is an error at
/// its word, `FILE:LINE:COL: message`.
pub fn case_config(
    file: &str,
    config: Option<&(ssaref::diag::Pos, String)>,
    regs: &[usize],
    fuel: u64,
) -> Result<DiffConfig, Failure> {
    let Some((pos, text)) = config else { return Ok(DiffConfig::standard(regs, fuel)) };
    let program = ssaref::campaign::rotation::ProgramConfig::parse(text, regs).map_err(|(offset, message)| {
        let at = ssaref::diag::Pos { line: pos.line, col: pos.col.saturating_add(offset as u32) };
        bad_input(ssaref::diag::Diag::new(at, message).with_file(file))
    })?;
    Ok(program.diff_config(fuel))
}
