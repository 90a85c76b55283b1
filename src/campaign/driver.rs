//! Differential fuzzing campaigns: `ssaref fuzz`.
//!
//! A campaign generates programs from consecutive seeds (`gen::TestCase::
//! from_seed`), runs every stage of each (`differential::differential_full`)
//! on J threads, and writes each failing case to the output directory
//! *before* it reports it, as a `.src` file that `ssaref run` and
//! `ssaref repro` accept: the program, its arguments, its seed, the stage
//! that failed, the outcomes, and the command that reproduces it.
//!
//! Everything is reproducible: program `i` of a campaign started with seed
//! `S` is the program of seed `S + i`, whatever the number of threads; of
//! shard `I/N` (`shard.rs`), the program of seed `S + I + i N`. The
//! configuration it runs with (construction variant, K, ssa-ra switches,
//! out-of-ssa configuration and class test) is a function of its seed too
//! (`rotation.rs`), and the case file records it. A share of the seeds
//! ([`CampaignConfig::ir_share`], `ssa_share.rs`) gives IR-level programs
//! instead, checked by `differential::differential_ssa` and written as `.ssa`
//! case files.

use crate::campaign::rotation::{Coverage, ProgramConfig, Rotation};
use crate::campaign::shard::Shard;
use crate::campaign::ssa_share::{write_ssa_case, Generated};
use crate::differential::{DiffConfig, Verdict};
use crate::frontend::case_file::CaseFile;
use crate::generate::source::{GenConfig, TestCase};
use crate::oracle::Oracle;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a campaign runs. Build it with [`CampaignConfig::new`] and the
/// `with_*` methods: fields are added over time, so it cannot be built
/// from its fields outside this crate.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CampaignConfig {
    /// Stop after this long.
    pub duration: Duration,
    /// Stop after this many programs (if given).
    pub max_programs: Option<u64>,
    pub jobs: usize,
    /// Program `i` uses seed `seed + i` (of a shard: `shard.seed(seed, i)`).
    pub seed: u64,
    /// The part of the seed space this campaign runs ([`Shard::WHOLE`]:
    /// all of it).
    pub shard: Shard,
    /// Which back ends run, and the configurations each program's seed
    /// picks (`rotation.rs`: construction variant, K, ssa-ra switches,
    /// out-of-ssa configuration and class test).
    pub rotation: Rotation,
    pub fuel: u64,
    /// Where failing cases go.
    pub out_dir: PathBuf,
    /// Print a progress line every second.
    pub progress: bool,
    /// Further back ends (users' allocators, `backend/`), run on every
    /// program after the routes.
    pub backends: Vec<std::sync::Arc<dyn crate::backend::Backend>>,
    /// The fraction (0 to 1) of programs written by the IR-level generator
    /// (`ssa_share.rs`); the others are source-level.
    pub ir_share: f64,
    /// Source-level programs of several functions with calls
    /// (`GenConfig::calls`); off by default.
    pub calls: bool,
}

impl CampaignConfig {
    /// A campaign that writes its failing cases to `out_dir`: one hour or
    /// until stopped, one job, seed 0, the whole seed space, every back end
    /// (ssa-ra, out-of-ssa, regalloc2) with every configuration rotating
    /// (`Rotation::default`), the
    /// interpreter's default fuel, no progress line, no further back end,
    /// no IR-level programs ([`Self::with_ir_share`]).
    pub fn new(out_dir: impl Into<PathBuf>) -> Self {
        CampaignConfig {
            duration: Duration::from_secs(3600),
            max_programs: None,
            jobs: 1,
            seed: 0,
            shard: Shard::WHOLE,
            rotation: Rotation::default(),
            fuel: 1_000_000,
            out_dir: out_dir.into(),
            progress: false,
            backends: Vec::new(),
            ir_share: 0.0,
            calls: false,
        }
    }

    /// Generate programs with calls (`GenConfig::calls`): the stages that
    /// cannot run calls yet are counted as not supported, never failures.
    pub fn with_calls(mut self, calls: bool) -> Self {
        self.calls = calls;
        self
    }

    /// Write this fraction (0 to 1) of the programs with the IR-level
    /// generator (`ssa_share.rs`).
    pub fn with_ir_share(mut self, share: f64) -> Self {
        self.ir_share = share;
        self
    }

    /// Stop after `duration`.
    pub fn with_duration(mut self, duration: Duration) -> Self {
        self.duration = duration;
        self
    }

    /// Stop after `count` programs.
    pub fn with_max_programs(mut self, count: u64) -> Self {
        self.max_programs = Some(count);
        self
    }

    /// Run on `jobs` threads.
    pub fn with_jobs(mut self, jobs: usize) -> Self {
        self.jobs = jobs;
        self
    }

    /// Start at seed `seed`.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Run only `shard` of the seed space.
    pub fn with_shard(mut self, shard: Shard) -> Self {
        self.shard = shard;
        self
    }

    /// Allocate every program with these register counts instead of
    /// rotating them.
    pub fn with_regs(mut self, regs: Vec<usize>) -> Self {
        self.rotation.regs = Some(regs);
        self
    }

    /// Which back ends run: ssa-ra, out-of-ssa's configurations (none: no
    /// out-of-ssa), regalloc2.
    pub fn with_routes(mut self, ssa_ra: bool, out_of_ssa: Vec<crate::backend::OutOfSsa>, regalloc2: bool) -> Self {
        self.rotation.ssa_ra = ssa_ra;
        self.rotation.out_of_ssa = out_of_ssa;
        self.rotation.regalloc2 = regalloc2;
        self
    }

    /// Rotate the configurations (the default) or run the fixed one of
    /// campaigns before the rotation (see `rotation.rs`).
    pub fn with_rotation(mut self, rotate: bool) -> Self {
        self.rotation.rotate = rotate;
        self
    }

    /// Fuel of each source run.
    pub fn with_fuel(mut self, fuel: u64) -> Self {
        self.fuel = fuel;
        self
    }

    /// Print a progress line every second.
    pub fn with_progress(mut self, progress: bool) -> Self {
        self.progress = progress;
        self
    }

    /// Run these back ends too, after the routes.
    pub fn with_backends(mut self, backends: Vec<std::sync::Arc<dyn crate::backend::Backend>>) -> Self {
        self.backends = backends;
        self
    }

    /// The differential check of the program of seed `seed`, with its
    /// configuration.
    pub fn program(&self, seed: u64) -> (ProgramConfig, DiffConfig) {
        let program = self.rotation.program(seed);
        let mut diff = program.diff_config(self.fuel);
        diff.backends = self.backends.clone();
        (program, diff)
    }
}

/// The totals of a campaign.
#[derive(Clone, Debug, Default)]
pub struct CampaignSummary {
    pub programs: u64,
    /// Of them, IR-level programs (`CampaignConfig::ir_share`).
    pub ir_programs: u64,
    /// Programs whose source ran out of fuel (nothing compared).
    pub inconclusive: u64,
    /// Programs a limit of the harness stopped before a stage could be
    /// compared (`Verdict::Limit`): inconclusive, not failures.
    pub limited: u64,
    /// Failing cases, as written to disk.
    pub failures: Vec<PathBuf>,
    /// Failing cases that could not be written: the seed and why. They
    /// are failures too (`failure_count`).
    pub unwritten: Vec<(u64, String)>,
    /// Whether `stop` (Ctrl-C) ended the campaign before its budget.
    pub interrupted: bool,
    /// Failures per first failing stage (stage name up to `[`).
    pub histogram: BTreeMap<String, u64>,
    pub elapsed: Duration,
    /// Thread time spent generating programs and checking them.
    pub generation: Duration,
    pub checking: Duration,
    /// Stage outcomes compared, summed over programs.
    pub stages: u64,
    /// Programs with calls.
    pub call_programs: u64,
    /// Stages that do not run programs with calls yet, summed over
    /// programs (not failures).
    pub not_supported: u64,
    /// Thread time per phase of the differential check.
    pub phases: crate::differential::PhaseTimes,
    /// Register counts summed over programs (for the full-check rate).
    pub full_checks: u64,
    /// The configurations that ran (`rotation.rs`).
    pub coverage: Coverage,
    /// The programs that reached each out-of-SSA configuration's own paths
    /// (`reach_table.rs`).
    pub reach: crate::campaign::reach_table::ReachTable,
    /// The programs whose verdict was not agreement, by seed, with the
    /// verdict's kind (the machine-readable summary lists them).
    pub unsettled: BTreeMap<u64, Unsettled>,
    /// Each failing program: its seed, its signature and its case file.
    pub failing: Vec<FailingProgram>,
}

/// The kind of a verdict other than agreement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unsettled {
    /// The source ran out of fuel or call depth (`Verdict::Inconclusive`).
    Inconclusive,
    /// A limit of the harness stopped a later stage (`Verdict::Limit`).
    Limit,
    /// A divergence, a checker's rejection, an oracle error or a panic.
    Failure,
}

impl Unsettled {
    /// Every kind, in the order of their names.
    pub const ALL: [Unsettled; 3] = [Unsettled::Inconclusive, Unsettled::Limit, Unsettled::Failure];

    /// The kind's name in the machine-readable summary.
    pub fn name(self) -> &'static str {
        match self {
            Unsettled::Inconclusive => "inconclusive",
            Unsettled::Limit => "limit",
            Unsettled::Failure => "failure",
        }
    }
}

/// A failing program of a campaign.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailingProgram {
    pub seed: u64,
    /// What failed, as [`failure_signature`] gives it.
    pub signature: (String, String),
    /// The case file as written, or why it could not be written.
    pub case: Result<PathBuf, UnwrittenCase>,
}

/// Why a failing case could not be written: the I/O error's kind and its
/// text (`std::io::Error` itself cannot be cloned or compared).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnwrittenCase {
    pub kind: std::io::ErrorKind,
    pub error: String,
}

impl std::fmt::Display for UnwrittenCase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.error)
    }
}

impl std::error::Error for UnwrittenCase {}

impl CampaignSummary {
    /// Programs checked per second per thread.
    pub fn rate_per_job(&self, jobs: usize) -> f64 {
        self.programs as f64 / self.elapsed.as_secs_f64().max(1e-9) / jobs.max(1) as f64
    }

    /// The failing programs: the cases written and those that could not be.
    pub fn failure_count(&self) -> usize {
        self.failures.len() + self.unwritten.len()
    }

    /// The summary as printed at the end of a campaign.
    pub fn render(&self, jobs: usize) -> String {
        let mut s = String::new();
        if self.interrupted {
            s.push_str("interrupted (Ctrl-C) before the end of its budget\n");
        }
        s += &format!(
            "{} programs in {:.1}s on {jobs} job(s): {:.1} programs/s per job, {} stage outcomes compared ({:.0} per program); {} inconclusive (source out of fuel); {} failure(s)\n",
            self.programs,
            self.elapsed.as_secs_f64(),
            self.rate_per_job(jobs),
            self.stages,
            self.stages as f64 / self.programs.max(1) as f64,
            self.inconclusive,
            self.failure_count(),
        );
        s += &format!(
            "{} inconclusive (a limit of the harness: a later stage's fuel or the trace capacity)\n",
            self.limited
        );
        s.push_str(&format!(
            "{} of the programs were IR-level (generated in SSA form, checked against the SSA's own run)\n",
            self.ir_programs
        ));
        if self.call_programs > 0 {
            s.push_str(&format!(
                "{} of the programs have calls; {} stage(s) that do not run calls yet were not run (not failures)\n",
                self.call_programs, self.not_supported
            ));
        }
        let total = (self.generation + self.checking).as_secs_f64().max(1e-9);
        // A full check: one program, one K, every stage (the constructions
        // and the source run are shared by the K of one program).
        let full = self.full_checks;
        s.push_str(&format!(
            "{full} full checks (one program, one K, every stage incl. x86 under Unicorn): {:.0} per second per core of thread time\n",
            full as f64 / total
        ));
        s.push_str(&format!("thread time: generation {:.1}%", 100.0 * self.generation.as_secs_f64() / total));
        for (name, d) in self.phases.named() {
            s.push_str(&format!(", {name} {:.1}%", 100.0 * d.as_secs_f64() / total));
        }
        let accounted: f64 =
            self.generation.as_secs_f64() + self.phases.named().iter().map(|(_, d)| d.as_secs_f64()).sum::<f64>();
        s.push_str(&format!(", other {:.1}%\n", 100.0 * (total - accounted).max(0.0) / total));
        s.push_str(&self.coverage.render());
        s.push_str(&self.reach.render());
        for (stage, n) in &self.histogram {
            s.push_str(&format!("  {n:>6} failing at {stage}\n"));
        }
        for f in &self.failures {
            s.push_str(&format!("  case: {}\n", f.display()));
        }
        for (seed, e) in &self.unwritten {
            s.push_str(&format!("  case of seed {seed} NOT WRITTEN: {e}\n"));
        }
        s
    }
}

/// The stage group a verdict failed at, for the histogram.
pub fn failing_stage(verdict: &Verdict) -> Option<String> {
    match verdict {
        Verdict::Agree { .. } | Verdict::Inconclusive | Verdict::Limit { .. } => None,
        Verdict::Diverge { stage, .. } => Some(stage.split('[').next().unwrap_or(stage).to_string()),
        Verdict::CheckFailed(e) => Some(format!("check {} ({})", e.pass, e.check)),
        Verdict::SourceError(_) => Some("source".into()),
        Verdict::Panic(_) => Some("panic".into()),
    }
}

/// The signature of a failing verdict, by which `fuzz-merge` groups
/// failures: the failing stage (up to `[`, as in the histogram) and the
/// check that failed there.
pub fn failure_signature(verdict: &Verdict) -> Option<(String, String)> {
    match verdict {
        Verdict::Agree { .. } | Verdict::Inconclusive | Verdict::Limit { .. } => None,
        Verdict::Diverge { stage, got, .. } => {
            let what = if got.is_ok() { "outcome differs" } else { "stage did not run to an outcome" };
            Some((stage.split('[').next().unwrap_or(stage).to_string(), what.to_string()))
        }
        Verdict::CheckFailed(e) => {
            Some((format!("check {}", e.pass.split('[').next().unwrap_or(&e.pass)), e.check.to_string()))
        }
        Verdict::SourceError(_) => Some(("source".into(), "the oracle could not run it".into())),
        Verdict::Panic(m) => Some(("panic".into(), m.lines().next().unwrap_or("").chars().take(120).collect())),
    }
}

/// Writes a failing case; returns its path. The file is a case file
/// (`case_file.rs`): the program with a header in the format of
/// `tests/cases/` (the expectation is the source's outcome), plus what
/// failed, how to reproduce it, and the configuration it ran with
/// (`regs:` and `config:`, which `ssaref repro`, `check` and `reduce`
/// replay).
pub fn write_case(
    dir: &Path,
    seed: u64,
    tc: &TestCase,
    verdict: &Verdict,
    config: &ProgramConfig,
) -> std::io::Result<PathBuf> {
    crate::campaign::failure_case::write_new_case(dir, &format!("case-{seed}"), "src", |path| {
        let mut case = CaseFile::for_failure(
            &format!("ssaref fuzz failure, seed {seed}"),
            &path.display().to_string(),
            tc,
            verdict,
            &config.regs,
        );
        case.config = Some((crate::diag::Pos::START, config.render()));
        case.render()
    })
}

/// Runs a campaign until the time or program budget is spent or `stop` is
/// set (Ctrl-C). Failing cases are on disk when this returns.
pub fn run_campaign(config: &CampaignConfig, oracle: &(dyn Oracle + Sync), stop: &AtomicBool) -> CampaignSummary {
    let next = AtomicU64::new(0);
    let summary = Mutex::new(CampaignSummary::default());
    let start = Instant::now();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        for _ in 0..config.jobs.max(1) {
            s.spawn(|| loop {
                if stop.load(Ordering::Relaxed) || start.elapsed() >= config.duration {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if config.max_programs.is_some_and(|m| i >= m) {
                    break;
                }
                run_program(config, oracle, i, &summary);
            });
        }
        if config.progress {
            s.spawn(|| {
                while !done.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(1000));
                    let sum = summary.lock().expect("summary lock");
                    let secs = start.elapsed().as_secs_f64().max(1e-9);
                    let hist: Vec<String> = sum.histogram.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                    // Progress that cannot be shown (stderr closed or full)
                    // does not stop the campaign.
                    let _ = write!(
                        std::io::stderr(),
                        "\r{} programs, {:.0}/s, {} divergence(s){}{}   ",
                        sum.programs,
                        sum.programs as f64 / secs,
                        sum.failures.len(),
                        if hist.is_empty() { "" } else { " | " },
                        hist.join(", ")
                    );
                    let _ = std::io::stderr().flush();
                }
            });
        }
        // The progress thread stops once the workers are done.
        while next.load(Ordering::Relaxed) < u64::MAX
            && !stop.load(Ordering::Relaxed)
            && start.elapsed() < config.duration
        {
            if config.max_programs.is_some_and(|m| next.load(Ordering::Relaxed) >= m) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        done.store(true, Ordering::Relaxed);
    });
    if config.progress {
        let _ = writeln!(std::io::stderr());
    }
    let mut sum = summary.into_inner().expect("summary lock");
    sum.elapsed = start.elapsed();
    sum.interrupted = stop.load(Ordering::Relaxed);
    sum
}

/// Generates, checks and counts program `i` of the campaign (of its
/// shard), and writes its case if it fails.
fn run_program(config: &CampaignConfig, oracle: &(dyn Oracle + Sync), i: u64, summary: &Mutex<CampaignSummary>) {
    // The program's place in the unsharded campaign.
    let global = config.shard.global_index(i);
    let seed = config.seed.wrapping_add(global);
    let (program, diff) = config.program(seed);
    let t0 = crate::pass_manager::clock::thread_cpu_time();
    let gen = GenConfig { calls: config.calls, ..GenConfig::default() };
    let generated = Generated::from_seed(seed, config.ir_share, &gen);
    let t1 = crate::pass_manager::clock::thread_cpu_time();
    let _ = crate::differential::take_phase_times();
    let _ = crate::analysis::reach::take();
    let verdict = generated.verdict(oracle, &diff);
    let hits = crate::analysis::reach::take();
    let t2 = crate::pass_manager::clock::thread_cpu_time();
    let phases = crate::differential::take_phase_times();
    let failed = failing_stage(&verdict);
    let written = failed.as_ref().map(|_| match &generated {
        Generated::Source(tc) => write_case(&config.out_dir, seed, tc, &verdict, &program),
        Generated::Ir(case) => write_ssa_case(&config.out_dir, seed, case, &verdict, &program),
    });
    let mut sum = summary.lock().expect("summary lock");
    sum.programs += 1;
    sum.ir_programs += u64::from(generated.is_ir());
    sum.generation += t1 - t0;
    sum.checking += t2 - t1;
    sum.phases.add(&phases);
    sum.full_checks += program.regs.len() as u64;
    sum.coverage.add(&program);
    sum.reach.add(&program.out_of_ssa, &hits);
    match &verdict {
        Verdict::Inconclusive => {
            sum.inconclusive += 1;
            sum.unsettled.insert(seed, Unsettled::Inconclusive);
        }
        Verdict::Limit { .. } => {
            sum.limited += 1;
            sum.unsettled.insert(seed, Unsettled::Limit);
        }
        Verdict::Agree { stages, .. } => {
            let refused =
                stages.iter().filter(|s| matches!(s.outcome, Err(crate::differential::StageError::NotSupported(_))));
            let refused = refused.count() as u64;
            sum.stages += stages.len() as u64 - refused;
            sum.not_supported += refused;
        }
        _ => {
            sum.unsettled.insert(seed, Unsettled::Failure);
        }
    }
    if let (Some(signature), Some(case)) = (failure_signature(&verdict), &written) {
        let case = match case {
            Ok(path) => Ok(path.clone()),
            Err(e) => Err(UnwrittenCase { kind: e.kind(), error: e.to_string() }),
        };
        sum.failing.push(FailingProgram { seed, signature, case });
    }
    sum.call_programs += u64::from(generated.has_calls());
    if let Some(stage) = failed {
        *sum.histogram.entry(stage.clone()).or_default() += 1;
        match written {
            Some(Ok(path)) => {
                let _ = writeln!(
                    std::io::stderr(),
                    "\nFAILURE at {stage}: seed {seed}, case written to {}",
                    path.display()
                );
                sum.failures.push(path);
            }
            Some(Err(e)) => {
                let _ = writeln!(std::io::stderr(), "\nFAILURE at {stage}: seed {seed}; could not write the case: {e}");
                sum.unwritten.push((seed, e.to_string()));
            }
            None => {}
        }
    }
}
