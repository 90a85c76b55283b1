//! `ssaref reproduce [--out DIR] [--quick]`: each paper's evaluation redone
//! on ssaref (`evaluation/reproduce/`), written as `DIR/REPORT.md` with its
//! SVG plots beside it. This file loads the corpus, fills in the header
//! (commit, date, machine, command line), provides the peak-memory probe
//! of `counting_alloc.rs`, and writes the files.

use crate::common::{bad_input, internal, load_case, Failure};
use crate::counting_alloc::{self, CountingProbe};
use crate::stdio::sayln;
use clap::Args;
use ssaref::evaluation::reproduce::measure::{Case, Scale, Workload};
use ssaref::evaluation::reproduce::report::{reproduce, Header};
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
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .map_or_else(String::new, |l| format!(", load average {l} at the start"));
    Header {
        commit,
        date,
        machine: format!("{cpus} CPUs, {model}{load}"),
        command: std::env::args().collect::<Vec<_>>().join(" "),
    }
}

pub fn cmd_reproduce(a: ReproduceArgs) -> Result<ExitCode, Failure> {
    counting_alloc::enable();
    let scale = match (a.tiny, a.quick) {
        (true, _) => Scale::Tiny,
        (false, true) => Scale::Quick,
        (false, false) => Scale::Full,
    };
    let corpus_dir = a.corpus.clone().unwrap_or_else(crate::common::default_corpus);
    let corpus = load_corpus(&corpus_dir, scale.corpus_programs())
        .map_err(|f| Failure { message: format!("{} (give the corpus with --corpus DIR)", f.message), ..f })?;
    // The report must be writable before the long work starts.
    crate::common::probe_out_dir(&a.out)?;
    let report = reproduce(&header(), scale, &corpus, &interp::Interp, a.fuel, &CountingProbe).map_err(internal)?;
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
