//! `ssaref fuzz`: a differential fuzzing campaign over generated programs,
//! on ssa-ra, out-of-ssa, regalloc2 (regalloc2) or several, on every core until a time or program
//! limit or Ctrl-C; failing cases are written as case files.

use crate::args::{parse_coalescing, Routes};
use crate::common::Failure;
use crate::stdio::{noteln, say, sayln};
use clap::Args;
use ssaref::campaign::shard::Shard;
use std::process::ExitCode;

use ssaref_interp as interp;

#[derive(Args, Debug)]
pub struct FuzzArgs {
    /// Stop after this many seconds, at most a year (default: 60, or no
    /// time limit with --count).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(0..=crate::args::MAX_SECONDS))]
    seconds: Option<u64>,
    /// Stop after this many programs (and, without --seconds, only then).
    #[arg(long)]
    count: Option<u64>,
    /// Worker threads, 1 to 1024 (default: every core).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=crate::args::MAX_JOBS))]
    jobs: Option<usize>,
    /// First seed; program i uses seed + i (default: from the clock, printed).
    #[arg(long)]
    seed: Option<u64>,
    /// Run shard I of N (numbered from 0): program j is the program of
    /// seed S+I+j*N, so N shards with --count C run exactly one campaign
    /// with --count N*C, without overlap (for array jobs: a CI matrix, Slurm).
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<Shard>,
    /// Register counts to allocate every program with, comma-separated
    /// (default: 2, 3 and four more that rotate, so every K in 2..=15 runs
    /// within three programs; with --no-rotate, 2,3,4,6,8,15).
    #[arg(long, value_delimiter = ',', value_parser = crate::args::reg_count())]
    regs: Vec<usize>,
    /// Run the fixed configuration of campaigns before the rotation: the SSA
    /// of every optimization only, ssa-ra with and without the §6
    /// optimizations, the linear class test (and K 2,3,4,6,8,15 unless
    /// --regs). By default each program's seed picks its construction
    /// variant (of 128), K, ssa-ra switch set and out-of-ssa class test.
    #[arg(long)]
    no_rotate: bool,
    /// Where failing cases are written.
    #[arg(long, default_value = "fuzz-cases")]
    out: String,
    /// Fuel of each source run.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL, value_parser = crate::args::fuel())]
    fuel: u64,
    /// Which back ends: `ssa-ra`, `out-of-ssa` (or `boissinot`),
    /// `regalloc2`, ssa-ra and out-of-ssa (`both`) or every back end
    /// (`all`, the default).
    /// out-of-ssa rotates through every coalescing variant, liveness method and
    /// allocator, one configuration per program (unless `--coalescing` fixes
    /// the variant).
    #[arg(long, value_enum, default_value_t = Routes::All)]
    route: Routes,
    /// Only this coalescing variant in out-of-ssa.
    #[arg(long, value_parser = parse_coalescing)]
    coalescing: Option<ssaref::out_of_ssa::coalescing::CoalescingVariant>,
    /// The share of programs written by the IR-level generator (in SSA
    /// form, checked against the SSA's own run): a percentage (`25`,
    /// `25%`) or a fraction up to 1 (`0.25`); the program of a seed is
    /// IR-level or not whatever the jobs and shards.
    #[arg(long, value_name = "P", default_value = "25%", value_parser = parse_share)]
    ir_share: f64,
    /// Run the programs on production compilers instead of ssaref's back
    /// ends: `llvm`, `gcc`, `clang` (comma-separated); each target's option
    /// sets rotate with the seed (docs/targets.md).
    #[arg(long, value_name = "LIST")]
    target: Option<String>,
    /// With --target: seeds per batch (one compiler run per batch and
    /// option set).
    #[arg(long, default_value_t = 32, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=crate::args::MAX_BATCH))]
    batch: u64,
    /// With --target: write failing cases without reducing them.
    #[arg(long)]
    no_reduce: bool,
    /// Source-level programs of several functions with calls (recursion
    /// bounded by a decreasing argument); the stages that cannot run calls
    /// yet are counted as not supported, never as failures. Off by default.
    #[arg(long)]
    calls: bool,
}

pub fn cmd_fuzz(a: FuzzArgs) -> Result<ExitCode, Failure> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let seconds = a.seconds.unwrap_or(if a.count.is_some() { u64::MAX } else { 60 });
    let seed = a.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
    });
    let jobs = a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // A case that could not be written would be lost: check `--out` first.
    crate::common::probe_out_dir(std::path::Path::new(&a.out))?;
    let stop = Arc::new(AtomicBool::new(false));
    if let Some(list) = &a.target {
        return fuzz_targets(&a, list, seed, jobs, stop);
    }
    let handler_stop = Arc::clone(&stop);
    // A second Ctrl-C while stopping kills the process as usual.
    let _ = ctrlc::set_handler(move || {
        if handler_stop.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    });
    let regs_text = if a.regs.is_empty() {
        if a.no_rotate {
            "2,3,4,6,8,15".to_string()
        } else {
            "rotating 2..15".to_string()
        }
    } else {
        a.regs.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(",")
    };
    let shard_text = a.shard.map_or(String::new(), |s| format!(" --shard {s}"));
    let rotate_text = if a.no_rotate { " --no-rotate" } else { "" };
    noteln!(
        "ssaref fuzz: seed {seed}{}, {jobs} job(s), regs {regs_text}, {}, {}% IR-level{}, cases go to {}/ (rerun with --seed {seed}{shard_text}{rotate_text} --ir-share {}%{})",
        a.shard.map_or(String::new(), |s| format!(", shard {s}")),
        if seconds == u64::MAX { "no time limit".to_string() } else { format!("{seconds} s") },
        a.ir_share * 100.0,
        if a.calls { ", calls" } else { "" },
        a.out,
        a.ir_share * 100.0,
        if a.calls { " --calls" } else { "" }
    );
    let out_of_ssa = if !a.route.out_of_ssa() {
        Vec::new()
    } else {
        ssaref::campaign::rotation::out_of_ssa_rotation()
            .into_iter()
            .filter(|r| a.coalescing.is_none_or(|v| r.out_of_ssa.variant == v))
            .collect()
    };
    let mut config = ssaref::campaign::driver::CampaignConfig::new(&a.out)
        .with_duration(std::time::Duration::from_secs(seconds))
        .with_jobs(jobs)
        .with_seed(seed)
        .with_shard(a.shard.unwrap_or(Shard::WHOLE))
        .with_fuel(a.fuel)
        .with_progress(true)
        .with_rotation(!a.no_rotate)
        .with_ir_share(a.ir_share)
        .with_calls(a.calls)
        .with_routes(a.route.ssa_ra(), out_of_ssa, a.route.regalloc2());
    if let Some(count) = a.count {
        config = config.with_max_programs(count);
    }
    if !a.regs.is_empty() {
        config = config.with_regs(crate::args::distinct_regs(&a.regs));
    }
    let summary = ssaref::campaign::driver::run_campaign(&config, &interp::Interp, &stop);
    say!("{}", summary.render(jobs));
    // The machine-readable summary that `fuzz-merge` reads.
    let written = ssaref::campaign::summary_file::write(&config, jobs, &summary);
    match &written {
        Ok(path) => sayln!("summary for fuzz-merge: {}", path.display()),
        Err(e) => noteln!("{}: cannot write the campaign's summary: {e}", a.out),
    }
    Ok(if !summary.unwritten.is_empty() || written.is_err() {
        ExitCode::from(crate::common::EXIT_OUTPUT)
    } else if summary.failure_count() > 0 {
        ExitCode::from(crate::common::EXIT_INTERNAL)
    } else {
        ExitCode::SUCCESS
    })
}

/// `fuzz --target LIST`: a campaign on production compilers.
fn fuzz_targets(
    a: &FuzzArgs,
    list: &str,
    seed: u64,
    jobs: usize,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Result<ExitCode, Failure> {
    use ssaref::campaign::target_campaign::{run_target_campaign, TargetCampaign};
    let targets = crate::target_cmd::targets(list)?;
    for t in &targets {
        match t.version() {
            Ok(v) => noteln!("target {}: {v}", t.name()),
            Err(e) => return Err(crate::common::bad_input(format!("target {}: {e}", t.name()))),
        }
    }
    let handler_stop = std::sync::Arc::clone(&stop);
    let _ = ctrlc::set_handler(move || {
        if handler_stop.swap(true, std::sync::atomic::Ordering::SeqCst) {
            ssaref::targets::native::remove_scratch_of_this_process();
            std::process::exit(130);
        }
    });
    let mut config = TargetCampaign::new(targets.clone(), &a.out);
    config.seed = seed;
    config.jobs = jobs;
    let seconds = a.seconds.unwrap_or(if a.count.is_some() { u64::MAX } else { 60 });
    config.duration = std::time::Duration::from_secs(seconds);
    config.max_programs = a.count;
    config.fuel = a.fuel;
    config.ir_share = a.ir_share;
    config.calls = a.calls;
    config.batch = a.batch.max(1);
    config.reduce = !a.no_reduce;
    config.progress = true;
    noteln!(
        "ssaref fuzz --target {list}: seed {seed}, {jobs} job(s), {}, {}% IR-level{}, batches of {}, cases go to {}/ (rerun with --seed {seed} --batch {} --ir-share {}%{})",
        if seconds == u64::MAX { "no time limit".to_string() } else { format!("{seconds} s") },
        a.ir_share * 100.0,
        if a.calls { ", calls" } else { "" },
        config.batch,
        a.out,
        config.batch,
        a.ir_share * 100.0,
        if a.calls { " --calls" } else { "" }
    );
    let summary = run_target_campaign(&config, &interp::Interp, &stop);
    say!("{}", summary.render(&targets));
    Ok(if !summary.unwritten.is_empty() {
        ExitCode::from(crate::common::EXIT_OUTPUT)
    } else if summary.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::common::EXIT_INTERNAL)
    })
}

/// `--shard I/N` (`Shard`'s `FromStr` says what is wrong; clap prints it
/// and exits with code 2).
fn parse_shard(s: &str) -> Result<Shard, String> {
    s.parse().map_err(|e: ssaref::campaign::shard::ShardError| e.to_string())
}

/// `--ir-share P`: `P%`, a number above 1 (a percentage), or a fraction
/// from 0 to 1. Anything else, or above 100%, is a command-line error.
fn parse_share(s: &str) -> Result<f64, String> {
    let bad = || format!("`{s}` is not a share: give a percentage (25, 25%) or a fraction (0.25)");
    let (number, percent) = match s.strip_suffix('%') {
        Some(n) => (n, true),
        None => (s, false),
    };
    let x: f64 = number.trim().parse().map_err(|_| bad())?;
    if !x.is_finite() || x < 0.0 {
        return Err(bad());
    }
    let share = if percent || x > 1.0 { x / 100.0 } else { x };
    if share > 1.0 {
        return Err(format!("`{s}` is more than 100%"));
    }
    Ok(share)
}
