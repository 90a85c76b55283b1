//! Campaigns on production compilers (`ssaref fuzz --target llvm,gcc`):
//! generated programs run in the oracle and, those that end, on each
//! target (`targets/`), compared on the whole outcome.
//!
//! Program `i` is the program of seed `S + i`, source-level or IR-level
//! as in every campaign (`ssa_share.rs`). The workers take aligned blocks
//! of [`TargetCampaign::batch`] seeds; a block runs as one batch per
//! target and option set. The option set of a program is a function of
//! its seed alone (`targets::target::options_for_seed`: the same for an aligned
//! block of seeds, every set once in every `n` blocks), so a case replays
//! from its seed and its file, which records the target and the option
//! set (`target:` line).
//!
//! A failing case is written first (`case-SEED-TARGET.src` or `.ssa`,
//! the case-file format of every campaign), then, with
//! [`TargetCampaign::reduce`], reduced (`reduce/for_target.rs`) and
//! written again (`...-reduced.src`), then exported in the target's own
//! format next to it (`...-reduced.ll` or `.c`, and the harness).

use crate::campaign::ssa_share::Generated;
use crate::frontend::case_file::{CaseFile, CaseHeader};
use crate::frontend::ssa_case_file::SsaCaseFile;
use crate::generate::source::GenConfig;
use crate::oracle::Oracle;
use crate::outcome::Outcome;
use crate::reduce::for_target::{reduce_for_target, ToTargetCase};
use crate::targets::target::{options_for_seed, Limits, Target, TargetCase, TargetError, TargetVerdict};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a target campaign runs.
#[derive(Clone)]
pub struct TargetCampaign {
    pub targets: Vec<Arc<dyn Target>>,
    pub seed: u64,
    pub jobs: usize,
    pub duration: Duration,
    pub max_programs: Option<u64>,
    pub fuel: u64,
    /// The fraction of IR-level programs (`ssa_share.rs`).
    pub ir_share: f64,
    /// Source-level programs with calls (`GenConfig::calls`).
    pub calls: bool,
    pub out_dir: PathBuf,
    /// Seeds per batch.
    pub batch: u64,
    /// Reduce and export each failing case.
    pub reduce: bool,
    /// Candidates the reducer may run per case.
    pub reduce_tests: u64,
    /// The most failing cases reduced per target; the others are only
    /// written (many failures of one campaign are usually one bug).
    pub max_reductions: u64,
    pub limits: Limits,
    pub progress: bool,
}

impl TargetCampaign {
    /// A campaign of `targets` writing to `out_dir`: one minute, one job,
    /// seed 0, 25% IR-level programs, no calls, batches of 32, the first three failing
    /// cases of each target reduced.
    pub fn new(targets: Vec<Arc<dyn Target>>, out_dir: impl Into<PathBuf>) -> Self {
        TargetCampaign {
            targets,
            seed: 0,
            jobs: 1,
            duration: Duration::from_secs(60),
            max_programs: None,
            fuel: 1_000_000,
            ir_share: 0.25,
            calls: false,
            out_dir: out_dir.into(),
            batch: 32,
            reduce: true,
            reduce_tests: 2_000,
            max_reductions: 3,
            limits: Limits::default(),
            progress: false,
        }
    }
}

/// One target's totals.
#[derive(Clone, Debug, Default)]
pub struct TargetTotals {
    /// Programs run on the target (their oracle run ended).
    pub programs: u64,
    pub agree: u64,
    pub failures: u64,
    /// Programs the target could not run at all (a tool missing).
    pub not_run: u64,
    /// Programs a limit of the harness stopped before their outcome could
    /// be compared (`TargetVerdict::Inconclusive`): not failures.
    pub inconclusive: u64,
    pub batches: u64,
    /// Programs per option set.
    pub options: BTreeMap<String, u64>,
    /// Thread time in the target (compile, link, run).
    pub time: Duration,
}

/// The totals of a campaign.
#[derive(Clone, Debug, Default)]
pub struct TargetSummary {
    /// Programs generated.
    pub programs: u64,
    pub ir_programs: u64,
    /// Programs with at least one call.
    pub with_calls: u64,
    /// Programs whose oracle run is inconclusive, out of fuel or past the
    /// call-depth bound (not run on any target).
    pub skipped: u64,
    pub per_target: BTreeMap<String, TargetTotals>,
    /// The failing cases' files, and the reduced ones and exports.
    pub failures: Vec<PathBuf>,
    /// Failing cases that could not be written: the seed, the target and
    /// why. They are failures too.
    pub unwritten: Vec<(u64, String, String)>,
    /// Whether `stop` (Ctrl-C or SIGTERM) ended the campaign before its
    /// budget.
    pub interrupted: bool,
    pub exported: Vec<PathBuf>,
    /// Reductions started, per target.
    pub reductions: BTreeMap<String, u64>,
    pub elapsed: Duration,
}

impl TargetSummary {
    /// The summary as `ssaref fuzz --target` prints it.
    pub fn render(&self, targets: &[Arc<dyn Target>]) -> String {
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        let mut s = String::new();
        if self.interrupted {
            s.push_str("interrupted (Ctrl-C or SIGTERM) before the end of its budget\n");
        }
        s += &format!(
            "{} programs in {secs:.1}s ({} IR-level, {} with calls), {} skipped (the oracle's run is inconclusive); {} failure(s)\n",
            self.programs,
            self.ir_programs,
            self.with_calls,
            self.skipped,
            self.failures.len() + self.unwritten.len()
        );
        for t in targets {
            let Some(tot) = self.per_target.get(t.name()) else { continue };
            let sets = t.option_sets().len();
            s.push_str(&format!(
                "{}: {} programs in {} batches, {:.1} programs/s ({:.1} per second of its thread time), {} agree, {} fail, {} not run; {} of {} option sets ran:\n",
                t.name(),
                tot.programs,
                tot.batches,
                tot.programs as f64 / secs,
                tot.programs as f64 / tot.time.as_secs_f64().max(1e-9),
                tot.agree,
                tot.failures,
                tot.not_run,
                tot.options.len(),
                sets
            ));
            s.push_str(&format!("  {} inconclusive (a limit of the harness: its trace capacity, or its wall-clock backstop on a loaded machine)\n", tot.inconclusive));
            let list: Vec<String> = tot.options.iter().map(|(o, n)| format!("{o} ({n})")).collect();
            s.push_str(&format!("  {}\n", list.join(", ")));
        }
        for f in self.failures.iter().chain(&self.exported) {
            s.push_str(&format!("  case: {}\n", f.display()));
        }
        for (seed, target, e) in &self.unwritten {
            s.push_str(&format!("  case of seed {seed} on {target} NOT WRITTEN: {e}\n"));
        }
        s
    }
}

/// One generated program with its oracle outcome.
struct Program {
    seed: u64,
    generated: Generated,
    case: TargetCase,
    expected: Outcome,
}

/// Runs a target campaign until the time or program budget is spent or
/// `stop` is set. Failing cases are on disk when this returns.
pub fn run_target_campaign(config: &TargetCampaign, oracle: &(dyn Oracle + Sync), stop: &AtomicBool) -> TargetSummary {
    let next = AtomicU64::new(0);
    let summary = Mutex::new(TargetSummary::default());
    let start = Instant::now();
    let batch = config.batch.max(1);
    let over = || stop.load(Ordering::Relaxed) || start.elapsed() >= config.duration;
    std::thread::scope(|s| {
        for _ in 0..config.jobs.max(1) {
            s.spawn(|| loop {
                if over() {
                    break;
                }
                let block = next.fetch_add(1, Ordering::Relaxed);
                let first = block.saturating_mul(batch);
                let Some(count) =
                    config.max_programs.map_or(Some(batch), |m| m.checked_sub(first).map(|r| r.min(batch)))
                else {
                    break;
                };
                if count == 0 {
                    break;
                }
                run_block(config, oracle, first, count, &summary, &over);
                if config.progress {
                    let sum = summary.lock().expect("summary lock");
                    let _ = write!(
                        std::io::stderr(),
                        "\r{} programs, {:.1}/s, {} failure(s)   ",
                        sum.programs,
                        sum.programs as f64 / start.elapsed().as_secs_f64().max(1e-9),
                        sum.failures.len()
                    );
                }
            });
        }
    });
    if config.progress {
        let _ = writeln!(std::io::stderr());
    }
    let mut sum = summary.into_inner().expect("summary lock");
    sum.elapsed = start.elapsed();
    sum.interrupted = stop.load(Ordering::Relaxed);
    sum
}

/// Generates programs `first .. first + count` and runs them on every
/// target, one batch per option set. Once `over` (the time is up, or
/// Ctrl-C) it generates, runs and reduces nothing more.
fn run_block(
    config: &TargetCampaign,
    oracle: &(dyn Oracle + Sync),
    first: u64,
    count: u64,
    summary: &Mutex<TargetSummary>,
    over: &(dyn Fn() -> bool + Sync),
) {
    let mut programs = Vec::new();
    let (mut skipped, mut ir, mut with_calls, mut generated_count) = (0, 0, 0, 0);
    for i in first..first.saturating_add(count) {
        if over() {
            break;
        }
        generated_count += 1;
        let seed = config.seed.wrapping_add(i);
        let generated =
            Generated::from_seed(seed, config.ir_share, &GenConfig { calls: config.calls, ..GenConfig::default() });
        ir += u64::from(generated.is_ir());
        with_calls += u64::from(generated.has_calls());
        let case = match &generated {
            Generated::Source(tc) => tc.target_case(),
            Generated::Ir(c) => c.target_case(),
        };
        match case.oracle_outcome(oracle, config.fuel) {
            Ok(o) if !o.end.is_inconclusive() => programs.push(Program { seed, generated, case, expected: o }),
            _ => skipped += 1,
        }
    }
    {
        let mut sum = summary.lock().expect("summary lock");
        sum.programs += generated_count;
        sum.ir_programs += ir;
        sum.with_calls += with_calls;
        sum.skipped += skipped;
    }
    for target in &config.targets {
        let sets = target.option_sets();
        let mut groups: BTreeMap<String, Vec<&Program>> = BTreeMap::new();
        for p in &programs {
            if let Some(o) = options_for_seed(&sets, p.seed, config.batch) {
                groups.entry(o.clone()).or_default().push(p);
            }
        }
        for (options, group) in groups {
            if over() {
                return;
            }
            let cases: Vec<TargetCase> = group.iter().map(|p| p.case.clone()).collect();
            let t0 = Instant::now();
            let limits = Limits { fuel: crate::differential::later_stage_fuel(config.fuel), ..config.limits };
            let results = target.run_batch(&cases, &options, &limits);
            let time = t0.elapsed();
            let verdicts: Vec<TargetVerdict> = match results {
                Ok(r) => {
                    group.iter().zip(r).map(|(p, got)| crate::targets::target::judge(p.expected.clone(), got)).collect()
                }
                Err(e) => group.iter().map(|_| TargetVerdict::NotRun(e.clone())).collect(),
            };
            {
                let mut sum = summary.lock().expect("summary lock");
                let tot = sum.per_target.entry(target.name().to_string()).or_default();
                tot.batches += 1;
                tot.time += time;
                *tot.options.entry(options.clone()).or_default() += group.len() as u64;
                for v in &verdicts {
                    tot.programs += 1;
                    match v {
                        TargetVerdict::Agree => tot.agree += 1,
                        TargetVerdict::NotRun(_) => tot.not_run += 1,
                        TargetVerdict::Inconclusive(_) => tot.inconclusive += 1,
                        _ => tot.failures += 1,
                    }
                }
            }
            for (p, v) in group.iter().zip(&verdicts) {
                if v.is_failure() {
                    handle_failure(config, oracle, target.as_ref(), &options, p, v, summary, over);
                }
            }
        }
    }
}

/// Writes a failing case, then reduces and exports it unless `over`; a
/// reduction that `over` stops midway writes the smallest failing case it
/// found.
// The campaign's state is passed as it is, rather than bundled for this
// one call.
#[allow(clippy::too_many_arguments)]
fn handle_failure(
    config: &TargetCampaign,
    oracle: &(dyn Oracle + Sync),
    target: &dyn Target,
    options: &str,
    p: &Program,
    verdict: &TargetVerdict,
    summary: &Mutex<TargetSummary>,
    over: &(dyn Fn() -> bool + Sync),
) {
    let stem = config.out_dir.join(format!("case-{}-{}", p.seed, target.name()));
    let first_line = format!("ssaref fuzz --target failure, seed {}", p.seed);
    let written = write_target_case(&stem, &first_line, &p.generated, target.name(), options, verdict, &p.expected);
    match &written {
        Ok(path) => {
            let _ = writeln!(
                std::io::stderr(),
                "\nFAILURE on {} `{options}`: seed {}, case written to {}",
                target.name(),
                p.seed,
                path.display()
            );
            summary.lock().expect("summary lock").failures.push(path.clone());
        }
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "\nFAILURE on {} `{options}`: seed {}; could not write the case: {e}",
                target.name(),
                p.seed
            );
            let mut sum = summary.lock().expect("summary lock");
            sum.unwritten.push((p.seed, target.name().to_string(), e.to_string()));
        }
    }
    if !config.reduce || over() {
        return;
    }
    {
        let mut sum = summary.lock().expect("summary lock");
        let started = sum.reductions.entry(target.name().to_string()).or_default();
        if *started >= config.max_reductions {
            return;
        }
        *started += 1;
    }
    let reduced_stem = PathBuf::from(format!("{}-reduced", stem.display()));
    let line = format!("{first_line}, reduced");
    let result = match &p.generated {
        Generated::Source(tc) => reduce_for_target(tc, target, options, oracle, config.fuel, config.reduce_tests, over)
            .map(|r| (Generated::Source(r.case), r.expected, r.verdict)),
        Generated::Ir(c) => reduce_for_target(c, target, options, oracle, config.fuel, config.reduce_tests, over)
            .map(|r| (Generated::Ir(r.case), r.expected, r.verdict)),
    };
    match result {
        Ok((generated, expected, verdict)) => {
            let mut paths = Vec::new();
            if let Ok(path) =
                write_target_case(&reduced_stem, &line, &generated, target.name(), options, &verdict, &expected)
            {
                paths.push(path);
            }
            let case = match &generated {
                Generated::Source(tc) => tc.target_case(),
                Generated::Ir(c) => c.target_case(),
            };
            if let Ok(files) = export_case(target, &case, options, &expected, &reduced_stem) {
                paths.extend(files);
            }
            summary.lock().expect("summary lock").exported.extend(paths);
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "\ncould not reduce seed {}: {e}", p.seed);
        }
    }
}

/// The header lines of a target case: what failed and how to replay it.
/// The `target: NAME OPTIONS` line is what `repro`, `check` and `reduce`
/// read back ([`parse_target_line`]).
fn header_lines(first_line: &str, path: &Path, target: &str, options: &str, verdict: &TargetVerdict) -> Vec<String> {
    let mut lines = vec![
        first_line.to_string(),
        format!("reproduce: ssaref repro --target {target} {}", path.display()),
        format!("target: {target} {options}"),
    ];
    lines.extend(verdict.describe().lines().map(|l| format!("| {l}")));
    lines
}

/// The target and option set a case file's `target:` description line
/// names, if it has one.
pub fn parse_target_line(description: &[String]) -> Option<(String, String)> {
    description.iter().find_map(|l| {
        let rest = l.strip_prefix("target: ")?;
        let (t, o) = rest.split_once(' ')?;
        Some((t.to_string(), o.trim().to_string()))
    })
}

/// Writes the case file of a failing program to `STEM.src` or `STEM.ssa`.
pub fn write_target_case(
    stem: &Path,
    first_line: &str,
    generated: &Generated,
    target: &str,
    options: &str,
    verdict: &TargetVerdict,
    expected: &Outcome,
) -> std::io::Result<PathBuf> {
    let expect: Option<Vec<String>> = Some(expected.render_full().lines().map(String::from).collect());
    let dir = stem.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = stem.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let ext = if matches!(generated, Generated::Source(_)) { "src" } else { "ssa" };
    crate::campaign::failure_case::write_new_case(dir, &name, ext, |path| match generated {
        Generated::Source(tc) => {
            let file = CaseFile {
                description: header_lines(first_line, path, target, options, verdict),
                regs: None,
                config: None,
                args: tc.args.clone(),
                expect: expect.clone(),
                program: tc.program.clone(),
            };
            file.render()
        }
        Generated::Ir(c) => {
            let header = CaseHeader {
                description: header_lines(first_line, path, target, options, verdict),
                regs: None,
                config: None,
                args: c.args.clone(),
                expect: expect.clone(),
            };
            SsaCaseFile { header, module: c.module.clone() }.render()
        }
    })
}

/// Why [`export_case`] wrote no case.
#[derive(Debug)]
pub enum ExportError {
    /// The target cannot export the case.
    Target(TargetError),
    /// Writing the file `path` fails.
    Write { path: PathBuf, error: std::io::Error },
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::Target(e) => e.fmt(f),
            ExportError::Write { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for ExportError {}

/// Writes a case in the target's own format next to `stem`; returns the
/// files written.
pub fn export_case(
    target: &dyn Target,
    case: &TargetCase,
    options: &str,
    expected: &Outcome,
    stem: &Path,
) -> Result<Vec<PathBuf>, ExportError> {
    let stem_text = stem.display().to_string();
    let files = target.export(case, options, expected, &stem_text).map_err(ExportError::Target)?;
    let mut out = Vec::new();
    for f in files {
        let path = PathBuf::from(format!("{stem_text}{}", f.suffix));
        if let Err(error) = std::fs::write(&path, f.text) {
            return Err(ExportError::Write { path, error });
        }
        out.push(path);
    }
    Ok(out)
}
