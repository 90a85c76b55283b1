//! `ssaref bench-shapes`: `ssaref run` on functions of extreme shape
//! (`gen --shape params|params-constants|nested-loops|wide-join|
//! many-functions|divisions`, see
//! `generate/source/worst_case.rs`) for a series of sizes and each back
//! end, each run a child process of this binary, so that every pass and
//! the emulator count as a user's `run` pays for them (the passes' own
//! checks only with `--check`). Prints the wall time, the child's CPU time
//! and its peak resident memory, and the growth of the CPU time against the previous size of the series divided by the
//! growth of the size (1.0 is linear). A benchmark, never a test: no
//! threshold is checked.

use crate::common::{bad_input, internal, Failure, EXIT_USAGE};
use crate::stdio::sayln;
use clap::Args;
use ssaref::generate::source::WorstShape;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct BenchShapesArgs {
    /// Shapes to run (default: all six).
    #[arg(long, value_delimiter = ',')]
    shapes: Vec<String>,
    /// Sizes (default: each shape's series, 3k, 10k, 30k; parameters 1k,
    /// 3k, 10k); each 1 to 10,000,000, as `gen --size`.
    #[arg(long, value_delimiter = ',', value_parser = crate::args::size())]
    sizes: Vec<usize>,
    /// Back ends (`run --route`): ssa-ra, out-of-ssa, regalloc2.
    #[arg(long, value_delimiter = ',', default_value = "ssa-ra,out-of-ssa,regalloc2")]
    routes: Vec<String>,
    /// A run still going after this many seconds is stopped (and printed
    /// as such); the larger sizes of that shape and back end are skipped.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    timeout: u64,
    /// The ssaref binary to time (default: this one), e.g. an earlier
    /// build, for before/after figures.
    #[arg(long, value_name = "PATH")]
    exe: Option<std::path::PathBuf>,
    /// Run the passes' own checks in the child, as a user runs `run`
    /// (without `--no-check`); by default they are off, so that the figures
    /// are the algorithms' cost.
    #[arg(long, alias = "checks")]
    check: bool,
}

/// What one child run measured.
struct Measured {
    wall: f64,
    cpu: f64,
    max_rss_kib: i64,
    /// The exit status, or `None` when stopped by the timeout.
    status: Option<i32>,
}

/// Runs `exe run FILE --route ROUTE`, waiting for it with `wait4` for its
/// resource use.
fn run_child(
    exe: &std::path::Path,
    file: &std::path::Path,
    route: &str,
    timeout: Duration,
    checks: bool,
) -> Result<Measured, Failure> {
    let start = Instant::now();
    let child = Command::new(exe)
        .arg("run")
        .arg(file)
        .args(["--route", route])
        .args(if checks { None } else { Some("--no-check") })
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| internal(format!("cannot start {}: {e}", exe.display())))?;
    let pid = child.id() as libc::pid_t;
    let mut stopped = false;
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: `rusage` is plain data that `wait4` fills in; `pid` is our
        // own child, not yet waited for.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let flags = if stopped { 0 } else { libc::WNOHANG };
        // SAFETY: as above; the pointers are to live locals.
        let r = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
        if r == pid {
            let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
            let exited = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
            return Ok(Measured {
                wall: start.elapsed().as_secs_f64(),
                cpu: tv(usage.ru_utime) + tv(usage.ru_stime),
                max_rss_kib: usage.ru_maxrss,
                status: if stopped { None } else { Some(exited.unwrap_or(-1)) },
            });
        }
        if r < 0 {
            return Err(internal(format!("wait4: {}", std::io::Error::last_os_error())));
        }
        if start.elapsed() > timeout {
            // SAFETY: sends SIGKILL to our own child, which has not been
            // reaped (wait4 above returned 0), so the pid is still its.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
            stopped = true;
            continue;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

pub fn cmd_bench_shapes(a: BenchShapesArgs) -> Result<ExitCode, Failure> {
    let shapes: Vec<WorstShape> = if a.shapes.is_empty() {
        WorstShape::ALL.to_vec()
    } else {
        a.shapes
            .iter()
            .map(|s| {
                WorstShape::from_name(s).ok_or_else(|| Failure {
                    message: format!(
                        "unknown shape `{s}` (params, params-constants, nested-loops, wide-join, many-functions)"
                    ),
                    code: EXIT_USAGE,
                })
            })
            .collect::<Result<_, _>>()?
    };
    for r in &a.routes {
        if !["ssa-ra", "out-of-ssa", "regalloc2"].contains(&r.as_str()) {
            return Err(Failure {
                message: format!("unknown back end `{r}` (ssa-ra, out-of-ssa, regalloc2)"),
                code: EXIT_USAGE,
            });
        }
    }
    let exe = match a.exe {
        Some(p) => p,
        None => std::env::current_exe().map_err(|e| internal(format!("cannot find this program: {e}")))?,
    };
    let dir = std::env::temp_dir();
    let timeout = Duration::from_secs(a.timeout);
    sayln!(
        "`ssaref run FILE --route R{}` on `gen --shape S --size N`; growth: CPU time ratio / size ratio to the previous size",
        if a.check { "" } else { " --no-check" }
    );
    sayln!(
        "{:<15} {:>7} {:<11} {:>9} {:>9} {:>9} {:>7} {:>6}",
        "shape",
        "size",
        "back end",
        "wall s",
        "cpu s",
        "max MiB",
        "growth",
        "exit"
    );
    for shape in shapes {
        let sizes: Vec<usize> = if a.sizes.is_empty() { shape.default_sizes().to_vec() } else { a.sizes.clone() };
        for route in &a.routes {
            let mut previous: Option<(usize, f64)> = None;
            for &size in &sizes {
                let file = dir.join(format!("ssaref-bench-shapes-{}-{}-{size}.src", std::process::id(), shape.name()));
                std::fs::write(&file, shape.source(size)).map_err(|e| bad_input(format!("{}: {e}", file.display())))?;
                let m = run_child(&exe, &file, route, timeout, a.check);
                let _ = std::fs::remove_file(&file);
                let m = m?;
                let growth = previous
                    .map_or(String::new(), |(n, t)| format!("{:.2}", (m.cpu / t.max(1e-3)) / (size as f64 / n as f64)));
                let exit = m.status.map_or("stopped".to_string(), |s| s.to_string());
                sayln!(
                    "{:<15} {:>7} {:<11} {:>9.2} {:>9.2} {:>9.1} {:>7} {:>6}",
                    shape.name(),
                    size,
                    route,
                    m.wall,
                    m.cpu,
                    m.max_rss_kib as f64 / 1024.0,
                    growth,
                    exit
                );
                if m.status.is_none() {
                    break;
                }
                previous = Some((size, m.cpu));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
