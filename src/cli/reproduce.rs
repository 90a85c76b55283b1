//! `ssaref reproduce [--out DIR] [--quick]`: each paper's evaluation redone
//! on ssaref (`evaluation/reproduce/`), written as `DIR/REPORT.md` with its
//! SVG plots beside it. This file loads the corpus, fills in the header
//! (commit, date, machine, load average, build profile, command line),
//! provides the peak-memory probe of `counting_alloc.rs`, turns the
//! passes' own checks off for the whole run (`pass_manager/self_checks.rs`),
//! and writes the files.
//!
//! A build with debug assertions (`target/release`, `cargo test`) times
//! its assertions too, so the full run refuses it: run
//! `cargo run --profile measure -- reproduce`. `--quick` and the CI's
//! smoke run accept it, with a warning in the report's header and on
//! stderr, since they check the report's shape, not its figures.

use crate::common::{bad_input, internal, load_case, Failure};
use crate::counting_alloc::{self, CountingProbe};
use crate::stdio::{noteln, sayln};
use clap::Args;
use ssaref::evaluation::eval_error::EvalError;
use ssaref::evaluation::reproduce::measure::{
    compile_workload, construct_workload, construction_named, Case, InstructionCounter, Region, Scale, Workload,
};
use ssaref::evaluation::reproduce::report::generated_workload;
use ssaref::evaluation::reproduce::report::{reproduce, Header};
use ssaref::pass_manager::flags::Flags;
use ssaref::pass_manager::self_checks::with_flags;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ssaref_interp as interp;

#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Folder of the report (`REPORT.md` and the SVG plots); created if needed.
    #[arg(long, default_value = "reproduction")]
    out: PathBuf,
    /// A shorter run (about a minute on an unloaded 2-core machine):
    /// fewer repetitions and generated programs, sizes up to 100k.
    #[arg(long)]
    quick: bool,
    /// The smallest run, for the CI smoke test: every section, tiny inputs.
    #[arg(long, hide = true)]
    tiny: bool,
    /// Folder of the realistic corpus (`*.src` with `// args:` headers;
    /// default: `tests/corpus` here, else that of ssaref's source tree).
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Fuel of each source run.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL, value_parser = crate::args::fuel())]
    fuel: u64,
}

/// `ssaref reproduce-count` (hidden): builds one workload of `reproduce`
/// with one construction, once, so that an instruction counter can count
/// the region (see [`Callgrind`]).
#[derive(Args, Debug)]
pub struct ReproduceCountArgs {
    /// `corpus` or `generated`.
    #[arg(long)]
    workload: String,
    /// `cytron`, `plain` or `marker`.
    #[arg(long)]
    construction: String,
    /// `construction` (alone) or `pipeline` (construction, ssa-ra, lowering).
    #[arg(long)]
    region: String,
    /// The scale whose workload to build: `tiny`, `quick` or `full`.
    #[arg(long)]
    scale: String,
    #[arg(long, default_value = "tests/corpus")]
    corpus: PathBuf,
}

/// Registers of the pipeline whose executed instructions are counted.
const COUNT_K: usize = 8;

fn scale_named(name: &str) -> Option<Scale> {
    match name {
        "tiny" => Some(Scale::Tiny),
        "quick" => Some(Scale::Quick),
        "full" => Some(Scale::Full),
        _ => None,
    }
}

fn scale_name(scale: Scale) -> &'static str {
    match scale {
        Scale::Tiny => "tiny",
        Scale::Quick => "quick",
        Scale::Full => "full",
    }
}

pub fn cmd_reproduce_count(a: ReproduceCountArgs) -> Result<ExitCode, Failure> {
    // The passes' own checks stay off for the whole run, also in the passes
    // that the measurements call outside a pass runner.
    with_flags(Flags::unchecked(), || reproduce_count(a))
}

fn reproduce_count(a: ReproduceCountArgs) -> Result<ExitCode, Failure> {
    let scale = scale_named(&a.scale)
        .ok_or_else(|| Failure { message: format!("unknown scale `{}`", a.scale), code: crate::common::EXIT_USAGE })?;
    let construct = construction_named(&a.construction)
        .ok_or_else(|| bad_input(format!("unknown construction `{}`", a.construction)))?;
    let w = match a.workload.as_str() {
        "corpus" => load_corpus(&a.corpus, scale.corpus_programs())?,
        "generated" => generated_workload(scale),
        other => return Err(bad_input(format!("unknown workload `{other}`"))),
    };
    let n = match a.region.as_str() {
        "construction" => construct_workload(&w, &*construct),
        "pipeline" => compile_workload(&w, &*construct, COUNT_K).map_err(internal)?,
        other => return Err(bad_input(format!("unknown region `{other}`"))),
    };
    sayln!("{n}");
    Ok(ExitCode::SUCCESS)
}

/// Counts executed instructions with valgrind's callgrind: runs
/// `ssaref reproduce-count` under it, collecting only inside the region's
/// function (`--collect-atstart=no --toggle-collect`), and reads the
/// `Collected` total (user-space instructions of the region, every call
/// included). The machine's hardware counters would do the same faster,
/// but a virtual machine often has none.
struct Callgrind {
    exe: PathBuf,
    corpus: PathBuf,
}

impl InstructionCounter for Callgrind {
    fn method(&self) -> String {
        let version = command_output("valgrind", &["--version"]).unwrap_or_else(|| "valgrind".into());
        format!(
            "{version} `--tool=callgrind --collect-atstart=no --toggle-collect=` the region's function              (`measure::construct_workload` or `measure::compile_workload`), one run of each"
        )
    }

    fn count(
        &self,
        workload: &str,
        scale: Scale,
        construction: &str,
        region: Region,
    ) -> Result<Option<u64>, EvalError> {
        let function = match region {
            Region::Construction => "*measure::construct_workload*",
            Region::Pipeline => "*measure::compile_workload*",
        };
        let out = std::process::Command::new("valgrind")
            .args([
                "--tool=callgrind",
                "--callgrind-out-file=/dev/null",
                "--collect-atstart=no",
                &format!("--toggle-collect={function}"),
            ])
            .arg(&self.exe)
            .args(["reproduce-count", "--workload", workload, "--construction", construction, "--region"])
            .args([region.name(), "--scale", scale_name(scale), "--corpus"])
            .arg(&self.corpus)
            .output();
        let Ok(out) = out else { return Ok(None) };
        if !out.status.success() {
            return Err(EvalError::Command {
                command: "valgrind on `ssaref reproduce-count`",
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let collected = stderr
            .lines()
            .find_map(|l| l.split_once("Collected :").map(|(_, n)| n.trim().replace(',', "")))
            .and_then(|n| n.parse::<u64>().ok());
        Ok(collected)
    }
}

/// The corpus programs, in file-name order.
fn load_corpus(dir: &Path, limit: usize) -> Result<Workload, Failure> {
    let entries = std::fs::read_dir(dir).map_err(|e| bad_input(format!("{}: cannot read: {e}", dir.display())))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "src"))
        .collect();
    files.sort();
    files.truncate(limit);
    if files.is_empty() {
        return Err(bad_input(format!("{}: no *.src programs", dir.display())));
    }
    let mut cases = Vec::new();
    for file in &files {
        let case = load_case(&file.to_string_lossy())?;
        // The evaluations measure the back ends, which refuse calls for now.
        if case.program.has_calls() {
            continue;
        }
        let name = file.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        cases.push(Case { name, program: case.program, args: case.args });
    }
    Ok(Workload {
        label: "corpus".into(),
        description: format!("the realistic corpus `{}/*.src`, written as real code is written", dir.display()),
        cases,
    })
}

/// The output of a command, trimmed, if it ran and succeeded.
fn command_output(program: &str, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new(program).args(args).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// The first figure of `/proc/loadavg` (the 1-minute load average).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

/// Whether integer overflow panics in this build (the profile's
/// `overflow-checks`), found by trying it with the panic message silenced.
fn overflow_checks() -> bool {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let overflowed = std::panic::catch_unwind(|| {
        let x: u8 = std::hint::black_box(u8::MAX);
        std::hint::black_box(x + 1)
    })
    .is_err();
    std::panic::set_hook(hook);
    overflowed
}

/// The build's profile as the header states it, and whether it is fit for
/// timing (no debug assertions, no overflow checks).
fn profile() -> (String, bool) {
    let (debug, overflow) = (cfg!(debug_assertions), overflow_checks());
    let on_off = |b: bool| if b { "on" } else { "off" };
    let text = format!("debug assertions {}, overflow checks {}", on_off(debug), on_off(overflow));
    if debug || overflow {
        (
            format!(
                "**{text}: NOT FIT FOR TIMING** (a shape test; time with `cargo run --profile measure -- reproduce`)"
            ),
            false,
        )
    } else {
        (format!("{text} (`--profile measure`)"), true)
    }
}

fn header() -> Header {
    let commit = command_output("git", &["rev-parse", "HEAD"])
        .map(|c| match command_output("git", &["status", "--porcelain", "--untracked-files=no"]) {
            Some(_) => format!("{c} (with uncommitted changes)"),
            None => c,
        })
        .or_else(|| std::env::var("SSAREF_COMMIT").ok())
        .unwrap_or_else(|| "unknown".into());
    let date = command_output("date", &["-u", "+%Y-%m-%d %H:%M UTC"]).unwrap_or_else(|| "unknown".into());
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or_else(|| "unknown CPU".to_string(), |m| m.trim().to_string());
    Header {
        commit,
        date,
        machine: format!("{cpus} CPUs, {model}"),
        command: std::env::args().collect::<Vec<_>>().join(" "),
        profile: profile().0,
        load_average: Some(load_average),
        flags: Flags::unchecked(),
    }
}

pub fn cmd_reproduce(a: ReproduceArgs) -> Result<ExitCode, Failure> {
    // The passes' own checks stay off for the whole run, also in the passes
    // that the measurements call outside a pass runner: every timed region
    // measures the algorithm alone.
    with_flags(Flags::unchecked(), || reproduce_all(a))
}

fn reproduce_all(a: ReproduceArgs) -> Result<ExitCode, Failure> {
    counting_alloc::enable();
    let scale = match (a.tiny, a.quick) {
        (true, _) => Scale::Tiny,
        (false, true) => Scale::Quick,
        (false, false) => Scale::Full,
    };
    // The corpus is read first, so that a program it cannot take (one
    // nested past the bound included) is reported at its position, before
    // any other line.
    let corpus_dir = a.corpus.clone().unwrap_or_else(crate::common::default_corpus);
    let corpus = load_corpus(&corpus_dir, scale.corpus_programs())
        .map_err(|f| Failure { message: format!("{} (give the corpus with --corpus DIR)", f.message), ..f })?;
    let (_, fit) = profile();
    if !fit {
        if scale == Scale::Full {
            return Err(bad_input(
                "reproduce: this build has debug assertions or overflow checks, which the timed regions would \
                 measure; run the full report from `cargo run --profile measure -- reproduce` (`--quick` accepts \
                 this build, as a shape test)"
                    .into(),
            ));
        }
        noteln!(
            "WARNING: this build has debug assertions or overflow checks: the report's timings measure them too \
             (a shape test only; time with `cargo run --profile measure -- reproduce`)"
        );
    }
    // The report must be writable before the long work starts.
    crate::common::probe_out_dir(&a.out)?;
    let exe = std::env::current_exe().map_err(|e| internal(format!("cannot find the ssaref binary: {e}")))?;
    let counter = Callgrind { exe, corpus: corpus_dir.clone() };
    let report =
        reproduce(&header(), scale, &corpus, &interp::Interp, a.fuel, &CountingProbe, &counter).map_err(internal)?;
    let write = |name: &str, text: &str| {
        let path = a.out.join(name);
        std::fs::write(&path, text).map_err(|e| Failure {
            message: format!("{}: cannot write: {e}", path.display()),
            code: crate::common::EXIT_OUTPUT,
        })
    };
    write("REPORT.md", &report.markdown)?;
    for p in &report.plots {
        write(&p.file, &p.svg)?;
    }
    sayln!("wrote {} and {} plots", a.out.join("REPORT.md").display(), report.plots.len());
    Ok(ExitCode::SUCCESS)
}
