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

use std::io::Write;

/// A write to stdout that failed.
pub struct OutputError(pub std::io::Error);

/// Writes `args` to stdout.
pub fn write_stdout(args: std::fmt::Arguments<'_>) -> Result<(), OutputError> {
    std::io::stdout().lock().write_fmt(args).map_err(OutputError)
}

/// Flushes stdout (what is still buffered when the command ends).
pub fn flush_stdout() -> Result<(), OutputError> {
    std::io::stdout().lock().flush().map_err(OutputError)
}

/// Writes `args` to stderr, ignoring a failure.
pub fn write_stderr(args: std::fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
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
