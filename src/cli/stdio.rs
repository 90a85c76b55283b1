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

/// The command's stdout as an `std::io::Write`: this thread's sink of
/// stdout while [`with_sinks`] runs a command on it, else stdout. For text
/// written in pieces as it is made (wrap it in a `BufWriter`); a command
/// never writes to `std::io::stdout()` itself, which would bypass the sink.
pub struct CommandStdout;

impl Write for CommandStdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let sunk = SINKS.with(|s| s.borrow_mut().as_mut().map(|sinks| sinks.out.write(buf)));
        sunk.unwrap_or_else(|| std::io::stdout().lock().write(buf))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        flush_stdout().map_err(|OutputError(e)| e)
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

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::io::Write;
    use std::rc::Rc;

    /// A sink whose bytes the test reads afterwards.
    struct Shared(Rc<RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Runs `ssaref args` in this process, as the fuzz target
    /// `command_line` does, and returns what it wrote to its stdout and
    /// stderr handles.
    fn in_process(args: &[&str]) -> (String, String) {
        let (out, err) = (Rc::new(RefCell::new(Vec::new())), Rc::new(RefCell::new(Vec::new())));
        let argv = std::iter::once("ssaref").chain(args.iter().copied()).map(Into::into).collect();
        let code = crate::run_in_process(argv, Box::new(Shared(out.clone())), Box::new(Shared(err.clone())));
        assert_eq!(code, std::process::ExitCode::SUCCESS, "{args:?}");
        let text = |v: &Rc<RefCell<Vec<u8>>>| String::from_utf8_lossy(&v.borrow()).into_owned();
        (text(&out), text(&err))
    }

    #[test]
    fn emit_and_check_write_only_through_the_command_handles() {
        let file = std::env::temp_dir().join(format!("ssaref-stdio-sinks-{}.src", std::process::id()));
        std::fs::write(&file, "fn main(n) {\n    out n + 1;\n    return n;\n}\n").expect("a scratch file");
        let path = file.to_string_lossy().into_owned();
        // The x86 listing is written in pieces, through a `BufWriter`.
        let (out, _) = in_process(&["emit", &path, "--stage", "x86"]);
        assert!(out.starts_with("; main: ") && out.contains("mov"), "{out}");
        let (out, _) = in_process(&["emit", &path, "--stage", "alloc", "--route", "all"]);
        assert!(out.contains("== regalloc2"), "{out}");
        // `check` reports each step on stderr as it starts.
        let (out, err) = in_process(&["check", &path, "5", "--regs", "2", "--route", "ssa-ra"]);
        assert!(err.contains("check: ") && err.contains("source run"), "{err}");
        assert!(!out.is_empty());
        let _ = std::fs::remove_file(&file);
    }
}
