//! The `ssaref` command line. See docs/command-line.md.
//!
//! This file holds the `--help` texts (the doc comments of `Cli` and
//! `Command`), `main`, which hands each command to its function, and the
//! global allocator. Each command has one file with its arguments and its
//! function:
//! - `run.rs`: `run`; `emit.rs`: `emit`; `check.rs`: `check`;
//! - `fuzz.rs`: `fuzz`; `fuzz_merge.rs`: `fuzz-merge`; `repro.rs`: `repro`; `reduce.rs`: `reduce`;
//! - `stats.rs`: `stats`; `gen.rs`: `gen`;
//! - `bench.rs`: `bench-emulator` and `bench-out-of-ssa`;
//!   `bench_construction.rs`: `bench-construction`; `bench_shapes.rs`: `bench-shapes`;
//! - `reproduce.rs`: `reproduce`;
//! - `target_cmd.rs`: `--target` of `fuzz`, `check`, `repro`, `reduce`.
//!
//! What several commands share sits below them:
//! - `options.rs`: the shared options (stage, route, out-of-ssa's configuration,
//!   allocation and construction options);
//! - `common.rs`: the exit codes, `Failure`, reading a program or a case
//!   file, the arguments of `main`, and the back end that `run`, `emit` and
//!   `repro` print or run;
//! - `ssa_input.rs`: reading a `.ssa` program (for `run` and `check`);
//! - `stdio.rs`: writing to stdout (a failure is exit code 6) and to
//!   stderr (a failure is ignored) without panicking;
//! - `max_memory.rs`: `--max-memory` of `run`, `check`, `emit`, `repro` and `reduce`;
//! - `counting_alloc.rs`: mimalloc, counting the bytes in use for the
//!   benchmarks and enforcing `--max-memory`.
//!
//! Exit codes: docs/command-line.md, "Exit codes", is their one table; the
//! constants live in `common.rs`, except 5 (`EXIT_OUT_OF_MEMORY`), which
//! the allocator itself exits with and which lives in `counting_alloc.rs`.
//! Nothing is printed with `print!` or `eprint!`, which panic when the
//! write fails: `stdio.rs` has the macros that do not.
//!
//! Architecture invariant: the command line may import everything of the
//! library; nothing imports the command line. Within it, imports go one
//! way: `main.rs` → the command files → `ssa_input.rs` → `common.rs` →
//! `stdio.rs`, `options.rs`; `run.rs`, `check.rs`, `emit.rs`, `repro.rs` and `reduce.rs` → `max_memory.rs`;
//! `bench.rs`, `bench_construction.rs`, `reproduce.rs`, `max_memory.rs` and `main.rs` →
//! `counting_alloc.rs`; no file imports `main.rs`.

// Built with `--cfg fuzzing` by cargo-fuzz, this file is the crate root of
// the fuzz target `command_line` (`fuzz_entry.rs`), which has no `main`.
#![cfg_attr(fuzzing, no_main)]

mod args;
mod bench;
mod bench_construction;
mod bench_shapes;
mod check;
mod common;
mod counting_alloc;
mod emit;
mod fuzz;
#[cfg(fuzzing)]
mod fuzz_entry;
mod fuzz_merge;
mod gen;
mod max_memory;
mod reduce;
mod repro;
mod reproduce;
mod run;
mod ssa_input;
mod stats;
mod stdio;
mod target_cmd;

use bench::{cmd_bench_emulator, cmd_bench_out_of_ssa, BenchArgs, BenchEmulatorArgs};
use bench_construction::{cmd_bench_construction, BenchConstructionArgs};
use bench_shapes::{cmd_bench_shapes, BenchShapesArgs};
use check::{cmd_check, CheckArgs};
use clap::{Parser, Subcommand};
use emit::{cmd_emit, EmitArgs};
use fuzz::{cmd_fuzz, FuzzArgs};
use fuzz_merge::{cmd_fuzz_merge, FuzzMergeArgs};
use gen::{cmd_gen, GenArgs};
use reduce::{cmd_reduce, ReduceArgs};
use repro::{cmd_repro, ReproArgs};
use reproduce::{cmd_reproduce, cmd_reproduce_count, ReproduceArgs, ReproduceCountArgs};
use run::{cmd_run, RunArgs};
use stats::{cmd_stats, StatsArgs};
use std::process::ExitCode;
use stdio::{note, noteln};

#[derive(Parser, Debug)]
#[command(name = "ssaref", version, about = "Verified reference implementation of SSA back-end algorithms")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Runs a program: prints each `out` value, then `return V` or `trap divide-error`.
    Run(RunArgs),
    /// Prints a stage of the pipeline: the canonical source, or the SSA IR.
    Emit(EmitArgs),
    /// Runs every stage and every checker on a program and compares outcomes.
    Check(CheckArgs),
    /// A differential fuzzing campaign: generated programs through every stage.
    Fuzz(FuzzArgs),
    /// One report from the shards of a campaign: reads the summaries that
    /// `fuzz` writes into each `--out` and adds them up.
    FuzzMerge(FuzzMergeArgs),
    /// Replays a saved case: every stage's outcome, the IR after each pass, the allocated code.
    Repro(ReproArgs),
    /// Shrinks a failing case while it fails the same way (same stage, K
    /// lowered if it still fails); writes NAME.reduced.src (or .ssa) next to it.
    Reduce(ReduceArgs),
    /// ssa-ra statistics (spills, slots, loads, stores, moves, swaps; static
    /// and dynamic) with each optimization of Pereira and Palsberg §6 on and off;
    /// with `--compare-backends`, ssa-ra, out-of-ssa and regalloc2 side by side.
    Stats(StatsArgs),
    /// Generates random programs as `.src` text, or (`--stats`) measures what they contain.
    Gen(GenArgs),
    /// Benchmark: Unicorn with a fresh engine per run, a reused engine on new
    /// code, and a reused engine on the same code (milliseconds per run).
    BenchEmulator(BenchEmulatorArgs),
    /// Times out-of-SSA translation (Boissinot et al. §IV-D) and measures its
    /// per-function peak memory: the fast configuration against three
    /// Sreedhar III baselines, the paper's (bit matrix of the copy/phi
    /// variables, with adjacency lists), the bit matrix of all variables and
    /// an edge set of the copy/phi variables, interleaved and repeated,
    /// medians.
    BenchOutOfSsa(BenchArgs),
    /// Times SSA construction and measures its peak memory on generated
    /// structured functions: Braun et al. (plain and all-on) against Cytron
    /// et al., interleaved, with the ratios from the same run.
    BenchConstruction(BenchConstructionArgs),
    /// Times `run` on functions of extreme shape (many parameters, deeply
    /// nested loops, a join of many predecessors, many functions) for a
    /// series of sizes and each back end, with the growth against linear.
    BenchShapes(BenchShapesArgs),
    /// Redoes each paper's evaluation (Braun et al. Tables 1-3, Boissinot et
    /// al. Fig. 5 and §IV-D, Pereira Table 1 and Fig. 9, Pereira and
    /// Palsberg §6-§7) and writes DIR/REPORT.md with SVG plots.
    Reproduce(ReproduceArgs),
    /// Builds one workload of `reproduce` once, for its instruction counter.
    #[command(hide = true)]
    ReproduceCount(ReproduceCountArgs),
}

#[cfg(not(fuzzing))]
fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so `ssaref emit ... | head` would end in a
    // "Broken pipe" panic from `print!`. Restore the default action: the
    // process ends quietly when its reader goes away, as Unix tools do.
    // SAFETY: called first thing in `main`, before any thread exists;
    // `signal` with `SIG_DFL` only resets the disposition of SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    on_command_stack(std::env::args_os().collect())
}

/// The stack of the thread that runs a command: it holds [`ssaref::ast::MAX_NESTING`]
/// levels of every recursive walk over a program's statements (the tree's
/// derived `Clone` and `PartialEq` in the reducer, the exports of `--target`).
/// It is address space, resident only as far as a walk goes.
#[cfg(not(fuzzing))]
const COMMAND_STACK_BYTES: usize = 256 << 20;

/// Runs the command line `args` on a thread with a stack of
/// [`COMMAND_STACK_BYTES`], or on this thread when no such thread can be
/// made (an operating-system limit on address space).
#[cfg(not(fuzzing))]
fn on_command_stack(args: Vec<std::ffi::OsString>) -> ExitCode {
    std::thread::scope(|s| {
        let thread = std::thread::Builder::new().name("ssaref".into()).stack_size(COMMAND_STACK_BYTES);
        let on_thread = args.clone();
        let standard = || -> (Box<dyn std::io::Write>, Box<dyn std::io::Write>) {
            (Box::new(std::io::stdout()), Box::new(std::io::stderr()))
        };
        let command = move || {
            let (out, err) = standard();
            run_in_process(on_thread, out, err)
        };
        match thread.spawn_scoped(s, command) {
            Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => {
                let (out, err) = standard();
                run_in_process(args, out, err)
            }
        }
    })
}

/// Runs the command line `args` (the program's name first) on this
/// thread, with what it prints going to `out` and `err` instead of stdout
/// and stderr, and returns its exit code: `main`, and the fuzz target
/// `command_line` (`fuzz_entry.rs`).
pub fn run_in_process(
    args: Vec<std::ffi::OsString>,
    out: Box<dyn std::io::Write>,
    err: Box<dyn std::io::Write>,
) -> ExitCode {
    stdio::with_sinks(out, err, || dispatch(args))
}

/// Parses the command line `args` (the program's name first) and runs its
/// command.
fn dispatch(args: impl IntoIterator<Item = std::ffi::OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => return command_line_error(&e),
    };
    // Every command chooses the check switch (`pass_manager/flags.rs`) and
    // passes it down: on, unless `--no-check`; `reproduce`, which
    // measures, runs with it off.
    let result = match cli.command {
        Command::Run(a) => cmd_run(a),
        Command::Emit(a) => cmd_emit(a),
        Command::Check(a) => cmd_check(a),
        Command::Stats(a) => cmd_stats(a),
        Command::BenchOutOfSsa(a) => cmd_bench_out_of_ssa(a),
        Command::Fuzz(a) => cmd_fuzz(a),
        Command::FuzzMerge(a) => cmd_fuzz_merge(a),
        Command::Repro(a) => cmd_repro(a),
        Command::Reduce(a) => cmd_reduce(a),
        Command::Gen(a) => cmd_gen(a),
        Command::BenchEmulator(a) => cmd_bench_emulator(a),
        Command::BenchConstruction(a) => cmd_bench_construction(a),
        Command::BenchShapes(a) => cmd_bench_shapes(a),
        Command::Reproduce(a) => cmd_reproduce(a),
        Command::ReproduceCount(a) => cmd_reproduce_count(a),
    };
    // What is still buffered must reach stdout too, or the command fails.
    let result = result.and_then(|code| stdio::flush_stdout().map(|()| code).map_err(common::Failure::from));
    match result {
        Ok(code) => code,
        Err(f) => {
            noteln!("{}", f.message);
            ExitCode::from(f.code)
        }
    }
}

/// A command line that clap rejects (exit code 2, message on stderr), or
/// `--help` and `--version` (exit code 0, text on stdout): as clap's
/// `exit`, except that stdout that cannot be written is an error of its own
/// (exit code 6) rather than a silent success.
fn command_line_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    let text = e.render().to_string();
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let written = stdio::write_stdout(format_args!("{text}")).and_then(|()| stdio::flush_stdout());
        return match written.map_err(common::Failure::from) {
            Ok(()) => ExitCode::SUCCESS,
            Err(f) => {
                noteln!("{}", f.message);
                ExitCode::from(f.code)
            }
        };
    }
    note!("{text}");
    ExitCode::from(common::EXIT_USAGE)
}

#[global_allocator]
static ALLOCATOR: counting_alloc::Counting = counting_alloc::Counting;
