//! Writing to the standard output and the standard error without
//! panicking. Rust's `print!` and `eprint!` panic when the write fails
//! (`ssaref run good.src > /dev/full`); the commands use the macros of
//! this file instead:
//! - `say!` / `sayln!` write to stdout and, when the write fails, return
//!   from the enclosing function with an `OutputError`, which `common.rs`
//!   turns into a `Failure` of exit code `EXIT_OUTPUT` ("cannot write the
//!   output: ..."), which `main` reports on stderr (if it can);
//! - `note!` / `noteln!` write to stderr and ignore a failure: a message
//!   that cannot be shown must not change the exit code of the command
//!   (a syntax error with `2>/dev/full` still exits 1).
//!
//! A write that fails because the reader went away (`| head`) does not
//! reach these functions: `main` restores SIGPIPE's default action, which
//! ends the process quietly, as Unix tools do.

use std::cell::RefCell;
use std::io::Write;

/// A write to stdout that failed.
pub struct OutputError(pub std::io::Error);

/// Where a thread's output goes instead of stdout and stderr, while
/// [`with_sinks`] runs a command on it.
struct Sinks {
    out: Box<dyn Write>,
    err: Box<dyn Write>,
}

thread_local! {
    static SINKS: RefCell<Option<Sinks>> = const { RefCell::new(None) };
}

/// Runs `command` with what this thread writes to stdout going to `out`
/// and what it writes to stderr going to `err` (the command line driven
/// in-process, by the fuzz target `command_line`); then restores the
/// standard streams.
pub fn with_sinks<T>(out: Box<dyn Write>, err: Box<dyn Write>, command: impl FnOnce() -> T) -> T {
    let before = SINKS.with(|s| s.replace(Some(Sinks { out, err })));
    let result = command();
    SINKS.with(|s| *s.borrow_mut() = before);
    result
}

/// Writes `args` to this thread's sink of stdout, if it has one: `None`
/// when it has none.
fn to_sink(args: std::fmt::Arguments<'_>, stdout: bool) -> Option<std::io::Result<()>> {
    SINKS.with(|s| {
        let mut s = s.borrow_mut();
        let sinks = s.as_mut()?;
        Some(if stdout { sinks.out.write_fmt(args) } else { sinks.err.write_fmt(args) })
    })
}

/// Writes `args` to stdout.
pub fn write_stdout(args: std::fmt::Arguments<'_>) -> Result<(), OutputError> {
    match to_sink(args, true) {
        Some(r) => r.map_err(OutputError),
        None => std::io::stdout().lock().write_fmt(args).map_err(OutputError),
    }
}

/// Flushes stdout (what is still buffered when the command ends).
pub fn flush_stdout() -> Result<(), OutputError> {
    let sunk = SINKS.with(|s| s.borrow_mut().as_mut().map(|sinks| sinks.out.flush()));
    match sunk {
        Some(r) => r.map_err(OutputError),
        None => std::io::stdout().lock().flush().map_err(OutputError),
    }
}

/// Writes `args` to stderr, ignoring a failure.
pub fn write_stderr(args: std::fmt::Arguments<'_>) {
    if to_sink(args, false).is_none() {
        let _ = std::io::stderr().lock().write_fmt(args);
    }
}

/// `print!` that returns an `OutputError` (a `Failure` of exit code 6)
/// from the enclosing function when stdout cannot be written.
macro_rules! say {
    ($($arg:tt)*) => { $crate::stdio::write_stdout(format_args!($($arg)*))? };
}

/// `println!` that returns an `OutputError` (a `Failure` of exit code 6)
/// from the enclosing function when stdout cannot be written.
macro_rules! sayln {
    () => { $crate::stdio::write_stdout(format_args!("\n"))? };
    ($($arg:tt)*) => { $crate::stdio::write_stdout(format_args!("{}\n", format_args!($($arg)*)))? };
}

/// `eprint!` that ignores a failure to write.
macro_rules! note {
    ($($arg:tt)*) => { $crate::stdio::write_stderr(format_args!($($arg)*)) };
}

/// `eprintln!` that ignores a failure to write.
macro_rules! noteln {
    () => { $crate::stdio::write_stderr(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::stdio::write_stderr(format_args!("{}\n", format_args!($($arg)*))) };
}

pub(crate) use {note, noteln, say, sayln};
