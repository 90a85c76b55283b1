//! The native side of the targets: the C harness the compiled programs
//! link with, the child process that runs them, and the parser of what
//! the harness prints.
//!
//! The programs of a batch are functions `ssaref_p0`, `ssaref_p1`, ...
//! taking `main`'s parameters as `int64_t`s and returning `int64_t`. They
//! reach the harness through three symbols:
//! - `int64_t ssaref_mem[4096]`: the memory, cleared before each program;
//! - `void ssaref_out(int64_t)`: an `out` statement;
//! - `void ssaref_trap(void)` (never returns): a division or remainder
//!   whose divisor is 0 or that is `i64::MIN / -1`; it `longjmp`s back to
//!   the harness, which reports the trap and goes on with the next
//!   program.
//!
//! The harness's `main(argc, argv)` runs programs `argv[1]` (default 0) to
//! the last, on a thread with a stack of 256 MiB (so that a program whose
//! oracle run stays within `ast::MAX_CALL_DEPTH` activations has room for
//! that many native frames of up to 256 KiB each), each under a limit of
//! `argv[2]` seconds of CPU time (`setitimer(ITIMER_PROF)`), and prints,
//! with its own buffer and `write`, for each program: `c I` (flushed before
//! the program starts), one `o V` per `out`, then `r V` (return) or `t`
//! (trap), one `m I V` per non-zero word of memory, and `e`. When the
//! timer rings it prints `x` and exits with status 3. The limit is CPU
//! time, not wall-clock time, so that a correct program on a loaded
//! machine is never reported as running for ever; the wall-clock budget
//! of [`run_binary`] is only a backstop, and its end is inconclusive
//! ([`TargetError::WallClock`]). A program that crashes the process
//! leaves a `c I` without its `e`; [`run_binary`] then restarts the
//! harness at the next program, so one crash or timeout costs one program,
//! not the batch.

use crate::outcome::{End, Outcome, Trap};
use crate::targets::target::{Limits, TargetError};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The fixed part of the harness (the dispatch table follows it).
const HARNESS: &str = r#"#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

int64_t ssaref_mem[4096];
static jmp_buf ssaref_jump;
static char ssaref_buf[1 << 16];
static size_t ssaref_len;

static void ssaref_flush(void) {
    size_t done = 0;
    while (done < ssaref_len) {
        ssize_t w = write(1, ssaref_buf + done, ssaref_len - done);
        if (w <= 0) _exit(4);
        done += (size_t)w;
    }
    ssaref_len = 0;
}

static void ssaref_put(const char *s) {
    size_t n = strlen(s);
    if (ssaref_len + n > sizeof ssaref_buf) ssaref_flush();
    memcpy(ssaref_buf + ssaref_len, s, n);
    ssaref_len += n;
}

static void ssaref_put_value(const char *tag, int64_t v) {
    char line[64];
    snprintf(line, sizeof line, "%s %lld\n", tag, (long long)v);
    ssaref_put(line);
}

void ssaref_out(int64_t v) { ssaref_put_value("o", v); }

void ssaref_trap(void) { longjmp(ssaref_jump, 1); }

static void ssaref_cpu_limit(unsigned seconds) {
    struct itimerval t;
    memset(&t, 0, sizeof t);
    t.it_value.tv_sec = seconds;
    setitimer(ITIMER_PROF, &t, NULL);
}

static void ssaref_alarm(int sig) {
    (void)sig;
    ssaref_put("x\n");
    ssaref_flush();
    _exit(3);
}

static int64_t ssaref_call(int i);
static int ssaref_count(void);

static int ssaref_start;
static unsigned ssaref_seconds;

static void *ssaref_run(void *unused) {
    (void)unused;
    int start = ssaref_start;
    unsigned seconds = ssaref_seconds;
    for (int i = start; i < ssaref_count(); i++) {
        memset(ssaref_mem, 0, sizeof ssaref_mem);
        ssaref_put_value("c", i);
        ssaref_flush();
        ssaref_cpu_limit(seconds);
        if (setjmp(ssaref_jump) == 0) {
            int64_t r = ssaref_call(i);
            ssaref_cpu_limit(0);
            ssaref_put_value("r", r);
        } else {
            ssaref_cpu_limit(0);
            ssaref_put("t\n");
        }
        for (int j = 0; j < 4096; j++) {
            if (ssaref_mem[j] != 0) {
                char line[80];
                snprintf(line, sizeof line, "m %d %lld\n", j, (long long)ssaref_mem[j]);
                ssaref_put(line);
            }
        }
        ssaref_put("e\n");
    }
    ssaref_flush();
    return NULL;
}

int main(int argc, char **argv) {
    ssaref_start = argc > 1 ? atoi(argv[1]) : 0;
    ssaref_seconds = argc > 2 ? (unsigned)atoi(argv[2]) : 5;
    signal(SIGPROF, ssaref_alarm);
    pthread_attr_t attr;
    pthread_t thread;
    if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, (size_t)256 << 20) != 0
        || pthread_create(&thread, &attr, ssaref_run, NULL) != 0 || pthread_join(thread, NULL) != 0) {
        return 5;
    }
    return 0;
}
"#;

/// The declarations a C file of programs needs to reach the harness.
pub const C_PRELUDE: &str = "#include <stdint.h>\n\
extern int64_t ssaref_mem[4096];\n\
void ssaref_out(int64_t v);\n\
_Noreturn void ssaref_trap(void);\n";

/// The name of program `i`'s function.
pub fn function_name(i: usize) -> String {
    format!("ssaref_p{i}")
}

/// The symbol of the function `name` of the program whose `main` is
/// `prefix` (`function_name`): `main` is `prefix` itself, any other
/// function `prefix_name`. Function names are identifiers, so the symbols
/// of two programs of a batch never meet.
pub fn program_function_name(prefix: &str, name: &str) -> String {
    if name == "main" {
        prefix.to_string()
    } else {
        format!("{prefix}_{name}")
    }
}

/// The harness for the programs `calls`: program `j` of the run is the
/// function of batch index `calls[j].0` (`function_name`), called with the
/// arguments `calls[j].1` (one per parameter of its function).
pub fn harness(calls: &[(usize, Vec<i64>)]) -> String {
    let mut s = String::from(HARNESS);
    for (i, a) in calls {
        let params = vec!["int64_t"; a.len()].join(", ");
        let _ = writeln!(s, "int64_t {}({});", function_name(*i), if a.is_empty() { "void" } else { &params });
    }
    let _ = writeln!(s, "static int ssaref_count(void) {{ return {}; }}", calls.len());
    s.push_str("static int64_t ssaref_call(int i) {\n    switch (i) {\n");
    for (j, (i, a)) in calls.iter().enumerate() {
        let list: Vec<String> = a.iter().map(|&v| c_literal(v)).collect();
        let _ = writeln!(s, "    case {j}: return {}({});", function_name(*i), list.join(", "));
    }
    s.push_str("    }\n    return 0;\n}\n");
    s
}

/// An `int64_t` constant in C (`INT64_MIN` has no literal of its own).
pub fn c_literal(v: i64) -> String {
    if v == i64::MIN {
        "INT64_MIN".into()
    } else {
        format!("INT64_C({v})")
    }
}

/// A fresh temporary directory for one batch, removed on drop.
pub struct Scratch {
    pub dir: PathBuf,
}

impl Scratch {
    /// Creates `$TMPDIR/ssaref-TAG-PID-N`.
    pub fn new(tag: &str) -> Result<Scratch, TargetError> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ssaref-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| TargetError::Io(format!("{}: {e}", dir.display())))?;
        Ok(Scratch { dir })
    }

    /// The path of `name` in the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Writes `text` to `name`; returns the path.
    pub fn write(&self, name: &str, text: &str) -> Result<PathBuf, TargetError> {
        let p = self.path(name);
        std::fs::write(&p, text).map_err(|e| TargetError::Io(format!("{}: {e}", p.display())))?;
        Ok(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Removes every [`Scratch`] directory of this process: for the exits that
/// run no destructors (the memory limit of `--max-memory`, a second
/// Ctrl-C), so that no `$TMPDIR/ssaref-TAG-PID-N` is left behind.
pub fn remove_scratch_of_this_process() {
    let pid = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Some(rest) = name.strip_prefix("ssaref-") else { continue };
        // `TAG-PID-N`: the process is the second field from the end.
        let mut fields = rest.rsplitn(3, '-');
        let (n, owner) = (fields.next(), fields.next());
        if fields.next().is_some() && owner == Some(pid.as_str()) && n.is_some_and(|n| n.parse::<u64>().is_ok()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether `tool` can be started (`tool --version` runs).
pub fn tool_version(tool: &str, hint: &str) -> Result<String, TargetError> {
    match Command::new(tool).arg("--version").stdin(Stdio::null()).output() {
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stdout);
            let line = text.lines().find(|l| l.contains("version") || l.contains(tool)).unwrap_or("").trim();
            Ok(if line.is_empty() { tool.to_string() } else { line.to_string() })
        }
        Err(_) => Err(TargetError::ToolMissing { tool: tool.into(), hint: hint.into() }),
    }
}

/// Runs a compiler command; a failure is [`TargetError::Compile`] with the
/// command line and the end of its error output.
pub fn compile(tool: &str, args: &[String], hint: &str) -> Result<(), TargetError> {
    let out = Command::new(tool)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|_| TargetError::ToolMissing { tool: tool.into(), hint: hint.into() })?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    Err(TargetError::Compile {
        command: format!("{tool} {}", args.join(" ")),
        stderr: format!("{} ({})", error_summary(&err), out.status),
    })
}

/// Lines of a compiler's error output that say what went wrong: LLVM's
/// fatal errors and machine verifier reports, GCC's and Clang's errors and
/// internal compiler errors, failed assertions.
const HEADLINE_MARKERS: [&str; 7] = [
    "LLVM ERROR",
    "*** Bad machine code",
    "- instruction:",
    "error:",
    "Assertion",
    "internal compiler error",
    "UNREACHABLE",
];

/// How many headline lines and how many last lines a summary keeps.
const HEADLINE_LINES: usize = 8;
const TAIL_LINES: usize = 8;

/// A compiler's error output cut to its headline lines (the first
/// [`HEADLINE_LINES`] that carry a [`HEADLINE_MARKERS`] marker, so that a
/// long crash backtrace does not hide the message above it) followed by
/// its last [`TAIL_LINES`] lines.
fn error_summary(err: &str) -> String {
    let lines: Vec<&str> = err.lines().collect();
    let tail_start = lines.len().saturating_sub(TAIL_LINES);
    let headline: Vec<&str> = lines[..tail_start]
        .iter()
        .filter(|l| HEADLINE_MARKERS.iter().any(|m| l.contains(m)))
        .take(HEADLINE_LINES)
        .copied()
        .collect();
    let tail = lines[tail_start..].join("\n");
    if headline.is_empty() {
        tail
    } else {
        format!("{}\n...\n{tail}", headline.join("\n"))
    }
}

/// How many times its CPU-time limit the wall-clock backstop of a program
/// allows.
const WALL_CLOCK_FACTOR: u32 = 20;

/// Runs the linked harness `binary` over its `count` programs; one result
/// per program. A program that crashes or times out gets that error and
/// the harness is restarted at the next one.
pub fn run_binary(
    binary: &Path,
    count: usize,
    limits: &Limits,
    scratch: &Scratch,
) -> Result<Vec<Result<Outcome, TargetError>>, TargetError> {
    let mut results: Vec<Result<Outcome, TargetError>> = Vec::with_capacity(count);
    let seconds = limits.per_program.as_secs().max(1);
    while results.len() < count {
        let start = results.len();
        let out_path = scratch.path(&format!("out-{start}.txt"));
        let out_file =
            std::fs::File::create(&out_path).map_err(|e| TargetError::Io(format!("{}: {e}", out_path.display())))?;
        let mut child = Command::new(binary)
            .arg(start.to_string())
            .arg(seconds.to_string())
            .stdin(Stdio::null())
            .stdout(out_file)
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| TargetError::Io(format!("{}: {e}", binary.display())))?;
        // The harness's own CPU-time limit ends a program that runs too
        // long. This wall-clock budget is the backstop for a harness that
        // cannot even print; it is generous because a loaded machine gives
        // the harness a small share of a core.
        let budget = limits.per_program * (count - start) as u32 * WALL_CLOCK_FACTOR + Duration::from_secs(60);
        let t0 = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if t0.elapsed() > budget => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                Err(e) => return Err(TargetError::Io(e.to_string())),
            }
        };
        let text = std::fs::read_to_string(&out_path).map_err(|e| TargetError::Io(e.to_string()))?;
        let (done, open) = parse_output(&text, start);
        results.extend(done);
        if results.len() >= count {
            break;
        }
        // The program that was running when the process ended.
        let why = match (&status, open) {
            (_, Some(Open::TimedOut)) => TargetError::Timeout { seconds },
            (None, _) => TargetError::WallClock { seconds: budget.as_secs() },
            (Some(s), _) => TargetError::Crash(describe_status(s)),
        };
        results.push(Err(why));
    }
    Ok(results)
}

/// How the output ended for the program that had no `e` line.
enum Open {
    Running,
    TimedOut,
}

/// The outcomes the harness printed from program `start` on, and the
/// state of a last program without its `e` line, if any.
fn parse_output(text: &str, start: usize) -> (Vec<Result<Outcome, TargetError>>, Option<Open>) {
    let mut done = Vec::new();
    let mut cur: Option<(Vec<i64>, Option<End>, Vec<i64>)> = None;
    let mut timed_out = false;
    for line in text.lines() {
        let mut words = line.split(' ');
        let tag = words.next().unwrap_or("");
        let nums: Vec<i64> = words.filter_map(|w| w.parse().ok()).collect();
        match (tag, &mut cur, nums.as_slice()) {
            ("c", _, [i]) if *i as usize == start + done.len() => {
                cur = Some((Vec::new(), None, vec![0; crate::ast::MEM_WORDS]));
            }
            ("o", Some((trace, None, _)), [v]) => trace.push(*v),
            ("r", Some((_, end @ None, _)), [v]) => *end = Some(End::Return(*v)),
            ("t", Some((_, end @ None, _)), []) => *end = Some(End::Trap(Trap::DivideError)),
            ("m", Some((_, Some(_), mem)), [i, v]) if (0..mem.len() as i64).contains(i) => mem[*i as usize] = *v,
            ("e", Some(_), []) => {
                let (trace, end, mem) = cur.take().unwrap_or_default();
                done.push(match end {
                    Some(end) => Ok(Outcome { trace, end, mem }),
                    None => Err(TargetError::Crash("the harness printed no end".into())),
                });
            }
            ("x", _, []) => timed_out = true,
            _ => {
                // A line the harness cannot have printed: the process
                // wrote over its own output. The program is lost.
                if cur.is_some() {
                    return (done, Some(Open::Running));
                }
            }
        }
    }
    let open = cur.map(|_| if timed_out { Open::TimedOut } else { Open::Running });
    (done, open)
}

/// An exit status in words.
fn describe_status(s: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (_, Some(sig)) => format!("killed by signal {sig} ({})", signal_name(sig)),
        (Some(c), _) => format!("exit status {c}"),
        _ => s.to_string(),
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        _ => "another signal",
    }
}

/// The comment of an exported case that says how the harness calls
/// `function` and what the run must print: the call's arguments, the
/// harness's output format, the oracle's outcome and the expected output,
/// each line after `prefix` (`"; "` for LLVM IR, `" * "` in C).
pub fn expected_run_comment(prefix: &str, function: &str, args: &[i64], expected: &Outcome) -> String {
    let args = args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ");
    let mut s = format!(
        "{prefix}{function} is called with ({args}); the harness prints `o V` per out, `r V` (return) or `t` (trap divide-error), `m I V` per non-zero word of memory\n"
    );
    s.push_str(&expected_comment(prefix, expected));
    let _ = writeln!(s, "{prefix}expected output of the run:");
    for line in expected_output(expected).lines() {
        let _ = writeln!(s, "{prefix}  {line}");
    }
    s
}

/// The expected outcome as comment lines (`PREFIX` before each).
pub fn expected_comment(prefix: &str, expected: &Outcome) -> String {
    let mut s = format!("{prefix}expected outcome (ssaref's oracle):\n");
    for line in expected.render_full().lines() {
        let _ = writeln!(s, "{prefix}  {line}");
    }
    s
}

/// What the harness prints for `expected`, program 0: the text a run of an
/// exported case must print to agree.
pub fn expected_output(expected: &Outcome) -> String {
    let mut s = String::from("c 0\n");
    for v in &expected.trace {
        let _ = writeln!(s, "o {v}");
    }
    match expected.end {
        End::Return(v) => {
            let _ = writeln!(s, "r {v}");
        }
        End::Trap(_) => s.push_str("t\n"),
        End::OutOfFuel | End::CallDepthExceeded => s.push_str("x\n"),
    }
    for (i, v) in expected.nonzero_mem() {
        let _ = writeln!(s, "m {i} {v}");
    }
    s.push_str("e\n");
    s
}

#[cfg(test)]
mod tests {
    use super::error_summary;

    #[test]
    fn the_summary_keeps_the_message_above_a_long_backtrace() {
        let mut err = String::from("*** Bad machine code: Tied physical registers must match. ***\n- function: f\n");
        err.push_str("- instruction: undef renamable $edx = AND32ri undef renamable $eax(tied-def 0), 4095\n");
        err.push_str("LLVM ERROR: Found 2 machine code errors.\n");
        for i in 0..40 {
            err.push_str(&format!(" #{i} 0x0000 llvm::frame{i}\n"));
        }
        let s = error_summary(&err);
        assert!(s.starts_with("*** Bad machine code: Tied physical registers must match."), "{s}");
        assert!(s.contains("- instruction: undef renamable $edx") && s.contains("LLVM ERROR: Found 2"), "{s}");
        assert!(s.ends_with(" #39 0x0000 llvm::frame39") && !s.contains("frame31\n"), "{s}");
        assert!(!s.contains("- function: f"), "{s}");
        // Short output without a marker is kept whole.
        assert_eq!(error_summary("a\nb"), "a\nb");
    }
}
