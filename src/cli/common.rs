//! What the commands share: the exit codes, `Failure` (an error message
//! and its exit code), reading a program or a case file (errors as
//! `FILE:LINE:COL: message`), the arguments of `main` and the `--regs`
//! check, printing an outcome, the back ends of `--route` (as `Backend`s)
//! whose allocated code `run` and `emit` run or print (with `--passes`,
//! what each reports), and out-of-ssa's out-of-SSA program.

use crate::args::{AllocArgs, ConstructionArgs, OutOfSsaArgs, Routes};
use crate::stdio::{noteln, say};
use ssaref::ast;
use ssaref::backend::Backend;
use ssaref::differential::DiffConfig;
use ssaref::frontend::case_file::CaseFile;
use ssaref::frontend::parser;
use ssaref::outcome::{End, Outcome};
use ssaref::pipeline;
use std::process::ExitCode;
use std::sync::Arc;

// The exit codes; docs/command-line.md, "Exit codes", is their one table.
/// Exit code for bad input: a program, SSA or case file that does not
/// parse or verify, a bad argument of `main`, a case that does not fail
/// (`reduce`).
pub const EXIT_BAD_INPUT: u8 = 1;
/// Exit code for a bad command line (clap's own code).
pub const EXIT_USAGE: u8 = 2;
/// Exit code for an internal error of ssaref: a checker rejected a
/// pass's output, a stage diverged (`check`), a case fails (`repro`,
/// `fuzz`).
pub const EXIT_INTERNAL: u8 = 3;
/// Exit code for a program that did not finish within its fuel.
pub const EXIT_OUT_OF_FUEL: u8 = 4;
/// Exit code for output that cannot be written: stdout, a file of `--out`,
/// a failing case of a campaign.
pub const EXIT_OUTPUT: u8 = 6;
/// Exit code for a program whose outcome differs from its case file's
/// `// expect:` block (`run`, `check`, `repro`).
pub const EXIT_MISMATCH: u8 = 7;
/// Exit code for a target named by `--target` (or a case's `target:`
/// line) whose tool is not installed, e.g. `llvm-19` without `llc-19`.
pub const EXIT_TOOL_MISSING: u8 = 8;

/// Exit code for a program that uses what the chosen stage or back end
/// does not handle yet (calls, at the back ends and x86-64).
pub const EXIT_NOT_SUPPORTED: u8 = 10;

/// Exit code for an inconclusive comparison: a limit of the harness (a
/// later stage's fuel, the emulator's trace capacity) stopped a stage
/// before its outcome could be compared. Never a failure.
pub const EXIT_INCONCLUSIVE: u8 = 9;

/// The failure of a run stopped by a limit of the harness (`what`):
/// exit code `EXIT_INCONCLUSIVE`.
pub fn inconclusive(file: &str, what: impl std::fmt::Display) -> Failure {
    Failure {
        message: format!("{file}: inconclusive: {what} (a limit of the harness, not of the program)"),
        code: EXIT_INCONCLUSIVE,
    }
}

/// An error to print and the exit code that goes with it.
pub struct Failure {
    pub message: String,
    pub code: u8,
}

impl From<crate::stdio::OutputError> for Failure {
    fn from(e: crate::stdio::OutputError) -> Failure {
        Failure { message: format!("ssaref: cannot write the output: {}", e.0), code: EXIT_OUTPUT }
    }
}

pub fn bad_input(message: String) -> Failure {
    Failure { message, code: EXIT_BAD_INPUT }
}

/// A bad command line found after clap's checks (a value that names
/// nothing, options that do not go together): exit code 2, as clap's.
pub fn usage(message: String) -> Failure {
    Failure { message, code: EXIT_USAGE }
}

/// A bug of ssaref: `error` (a message, a pass error, an evaluation error)
/// after `internal error: `.
pub fn internal(error: impl std::fmt::Display) -> Failure {
    Failure { message: format!("internal error: {error}"), code: EXIT_INTERNAL }
}

/// The failure of a back end's pass: a program it does not handle yet
/// (exit code `EXIT_NOT_SUPPORTED`), else an internal error.
pub fn pass_failure(e: ssaref::error::PassError) -> Failure {
    match &*e.error {
        ssaref::error::CheckError::CallsNotSupported { .. } => Failure {
            message: format!(
                "not supported yet: {} (--stage source, cytron or ssa run it, and so does --stage alloc --route regalloc2)",
                e.error
            ),
            code: EXIT_NOT_SUPPORTED,
        },
        _ => internal(e),
    }
}

/// Checks that files can be written in `dir` before the work starts (a
/// campaign's `--out`): creates it, then creates, writes and removes a
/// probe file. A failure has exit code `EXIT_OUTPUT`.
pub fn probe_out_dir(dir: &std::path::Path) -> Result<(), Failure> {
    let fail = |e: std::io::Error| Failure {
        message: format!("{}: cannot write there: {e}", dir.display()),
        code: EXIT_OUTPUT,
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    let probe = dir.join(format!(".ssaref-probe-{}", std::process::id()));
    std::fs::write(&probe, b"probe\n").map_err(fail)?;
    std::fs::remove_file(&probe).map_err(fail)
}

/// Checks that the file `path` can be written before the work starts
/// (`reduce --out`): writes it empty, then removes it unless it existed.
/// A failure has exit code `EXIT_OUTPUT`. A FIFO, a socket or a folder is
/// refused without opening it, and the probe opens without blocking, so
/// that it never waits for a reader.
pub fn probe_out_file(path: &str) -> Result<(), Failure> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let fail = |e: std::io::Error| Failure { message: format!("{path}: cannot write: {e}"), code: EXIT_OUTPUT };
    let meta = std::fs::metadata(path).ok();
    if let Some(kind) = meta.as_ref().map(std::fs::Metadata::file_type) {
        if kind.is_fifo() || kind.is_socket() || kind.is_dir() {
            return Err(Failure { message: format!("{path}: cannot write: not a regular file"), code: EXIT_OUTPUT });
        }
    }
    let existed = meta.is_some();
    std::fs::OpenOptions::new().append(true).create(true).custom_flags(libc::O_NONBLOCK).open(path).map_err(fail)?;
    if !existed {
        std::fs::remove_file(path).map_err(fail)?;
    }
    Ok(())
}

/// The realistic corpus when no `--corpus` is given: `tests/corpus` of
/// the current directory when there is one, else that of the source tree
/// the binary was built from (so that `reproduce` and `stats
/// --compare-backends` work from any directory).
pub fn default_corpus() -> std::path::PathBuf {
    let here = std::path::PathBuf::from("tests/corpus");
    if here.is_dir() {
        return here;
    }
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// The largest input file (program, SSA or case file) a command reads:
/// far above a million-statement program, far below the memory limit.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Reads a text file: a file that cannot be read or is larger than
/// `MAX_INPUT_BYTES` is `FILE: cannot read: ...` or `FILE: larger than ...`,
/// and one that is not UTF-8 is reported at its first bad byte,
/// `FILE:LINE:COL: ...` (the column in characters, as every position).
pub fn read_text(file: &str) -> Result<String, Failure> {
    use std::io::Read;
    let cannot = |e: std::io::Error| bad_input(format!("{file}: cannot read: {e}"));
    let mut bytes = Vec::new();
    std::fs::File::open(file).and_then(|f| f.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes)).map_err(cannot)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(bad_input(format!("{file}: larger than {} MiB, the largest input", MAX_INPUT_BYTES >> 20)));
    }
    String::from_utf8(bytes).map_err(|e| {
        let good = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let before = std::str::from_utf8(&bytes[..good]).unwrap_or_default();
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        let byte = bytes.get(good).copied().unwrap_or(0);
        bad_input(format!("{file}:{line}:{col}: the text is not UTF-8 (byte 0x{byte:02X})"))
    })
}

/// Reads and parses a program; errors come out as `FILE:LINE:COL: message`.
pub fn load(file: &str) -> Result<(String, ast::Program), Failure> {
    let src = read_text(file)?;
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
        .map(|a| a.parse::<i64>().map_err(|_| bad_input(format!("{file}: argument `{a}` is not a 64-bit integer"))))
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

/// Prints an outcome (`run`); out of fuel is exit code 4, and an outcome
/// that differs from `expect` (a case file's `// expect:` block, when it
/// applies) is a `Failure` of exit code 7 (`check_expect`).
pub fn print_outcome(file: &str, outcome: &Outcome, expect: Option<&[String]>) -> Result<ExitCode, Failure> {
    say!("{}", outcome.render());
    if outcome.end == End::OutOfFuel {
        noteln!("the program ran out of fuel (raise it with --fuel)");
        return Ok(ExitCode::from(EXIT_OUT_OF_FUEL));
    }
    check_expect(file, expect, outcome)?;
    Ok(ExitCode::SUCCESS)
}

/// Compares an outcome with the lines of a case file's `// expect:`
/// block (`Outcome::render_full`, which the case file parser has checked
/// line by line); a difference is a `Failure` of exit code
/// `EXIT_MISMATCH` showing both. No block, or a run out of fuel, is no
/// difference.
pub fn check_expect(file: &str, expect: Option<&[String]>, outcome: &Outcome) -> Result<(), Failure> {
    let Some(lines) = expect else { return Ok(()) };
    if outcome.end == End::OutOfFuel {
        return Ok(());
    }
    let want: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let got = outcome.render_full();
    if want == got {
        return Ok(());
    }
    Err(Failure {
        message: format!(
            "{file}: the outcome differs from the `// expect:` block\n--- expected\n{want}--- got\n{}",
            got.trim_end()
        ),
        code: EXIT_MISMATCH,
    })
}

/// The `// expect:` block that applies to a run: the file's, when the
/// arguments are the file's own (none on the command line).
pub fn expect_for<'a>(raw_args: &[String], expect: Option<&'a Vec<String>>) -> Option<&'a [String]> {
    if raw_args.is_empty() {
        expect.map(Vec::as_slice)
    } else {
        None
    }
}

/// The back ends of `--route` in `run` and `emit`, as `Backend`s
/// (`backend/`), in the order of `fuzz` and `repro`: ssa-ra with the
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
    /// With `passes`, what the back end reports (`Backend::report`: ssa-ra,
    /// the SSA after each pass; out-of-ssa, the destructed program;
    /// regalloc2, its input, allocations and edits), ending with the
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
    let config = construction.config();
    let module = pipeline::build_ssa(program, &config).map_err(|e| internal(e.to_string()))?;
    backend_of_ssa(&module, route, alloc, out_of_ssa, passes, &config)
}

/// [`backend`] from an SSA module (a `.ssa` program, or the SSA built from
/// a source program).
pub fn backend_of_ssa(
    module: &ssaref::ir::Module,
    route: Routes,
    alloc: &AllocArgs,
    out_of_ssa: &OutOfSsaArgs,
    passes: bool,
    config: &pipeline::Config,
) -> Result<Vec<Allocated>, Failure> {
    let k = usize::from(alloc.regs);
    let mut out = Vec::new();
    for b in chosen_backends(route, alloc, out_of_ssa) {
        let mir = pipeline::allocate(module, b.as_ref(), k, config).map_err(pass_failure)?;
        let text = if passes { b.report(module, k, config.flags) } else { String::new() };
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
    let config = construction.config();
    let module = pipeline::build_ssa(program, &config).map_err(|e| internal(e.to_string()))?;
    pipeline::translate_out_of_ssa(&module, &out_of_ssa.out_of_ssa().out_of_ssa, &config).map_err(pass_failure)
}

/// A destructed module in the IR text form, each function followed by a
/// comment naming its pinned variables (§III-D).
pub fn print_destructed(m: &ssaref::ir::Module, pins: &[ssaref::out_of_ssa::renaming_constraints::Pins]) -> String {
    ssaref::backend::print_destructed(m, pins)
}

/// Reads a case file; errors come out as `FILE:LINE:COL: message`.
pub fn load_case(file: &str) -> Result<CaseFile, Failure> {
    let src = read_text(file)?;
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
