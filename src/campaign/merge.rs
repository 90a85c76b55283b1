//! One report from many shards: `ssaref fuzz-merge DIR...` reads the
//! machine-readable summaries (`summary_file.rs`) that the tasks of an
//! array job wrote, checks that they are shards of one campaign (same
//! seed, same number of shards, same settings, no shard twice), and adds
//! them up: the totals, the throughput, the configurations, the reach
//! table, and the failures grouped by signature with the case files of
//! each group.

use crate::campaign::driver::Unsettled;
use crate::campaign::reach_table::ReachTable;
use crate::campaign::rotation::Coverage;
use crate::campaign::shard::Shard;
use crate::campaign::summary_file::{FailureRecord, ShardSummary, Totals};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What one shard contributed, for the report's list of shards.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardRun {
    pub path: PathBuf,
    pub programs: u64,
    pub jobs: u64,
    pub elapsed_s: f64,
    pub interrupted: bool,
}

/// A failing program of a merged campaign: the shard that met it, and
/// its case file's path (in the directory of that shard's summary).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergedFailure {
    pub shard: u64,
    pub record: FailureRecord,
    pub case: Option<PathBuf>,
}

/// The shards of one campaign, added up.
#[derive(Clone, Debug)]
pub struct Merged {
    pub seed: u64,
    /// The number of shards the campaign was split into.
    pub shard_count: u64,
    pub settings: BTreeMap<String, String>,
    /// The shards read, by index.
    pub shards: BTreeMap<u64, ShardRun>,
    /// Summed (`elapsed_s`: the longest shard's).
    pub totals: Totals,
    /// Thread-seconds of wall clock: each shard's elapsed time times its
    /// jobs, summed.
    pub job_seconds: f64,
    pub coverage: Coverage,
    pub reach: ReachTable,
    pub unsettled: BTreeMap<u64, Unsettled>,
    /// Sorted by seed.
    pub failures: Vec<MergedFailure>,
}

/// What two summaries disagree on, so that they are not shards of one
/// campaign.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// Their seeds.
    Seed(u64, u64),
    /// Their numbers of shards.
    ShardCount(Shard, Shard),
    /// A setting: its name and its values (`None`: the file has none).
    Setting { name: String, first: Option<String>, second: Option<String> },
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Difference::Seed(a, b) => write!(f, "seed {a} and seed {b} (every shard takes the same --seed)"),
            Difference::ShardCount(a, b) => {
                write!(f, "shard {a} and shard {b} (every shard takes the same N in --shard I/N)")
            }
            Difference::Setting { name, first, second } => {
                let show = |v: &Option<String>| v.as_ref().map_or("(none)".to_string(), |v| format!("`{v}`"));
                write!(f, "setting {name} is {} and {}", show(first), show(second))
            }
        }
    }
}

/// Why summaries cannot be merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeError {
    /// No summary was given.
    NoSummaries,
    /// Two files are the same shard, whose programs would be counted twice.
    SameShard { first: PathBuf, second: PathBuf, shard: Shard },
    /// Two files are not shards of one campaign.
    NotOneCampaign { first: PathBuf, second: PathBuf, difference: Difference },
}

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MergeError::NoSummaries => f.write_str("no campaign summary to merge"),
            MergeError::SameShard { first, second, shard } => write!(
                f,
                "{} and {} are both shard {shard}: a shard's programs would be counted twice (two runs of one shard? merge one of them)",
                first.display(),
                second.display()
            ),
            MergeError::NotOneCampaign { first, second, difference } => write!(
                f,
                "{} and {} are not shards of one campaign: {difference}",
                first.display(),
                second.display()
            ),
        }
    }
}

impl std::error::Error for MergeError {}

/// Checks that `summaries` are distinct shards of one campaign and adds
/// them up; otherwise says which two files disagree, and on what.
pub fn merge(summaries: &[ShardSummary]) -> Result<Merged, MergeError> {
    let first = summaries.first().ok_or(MergeError::NoSummaries)?;
    let mut m = Merged {
        seed: first.seed,
        shard_count: first.shard.count(),
        settings: first.settings.clone(),
        shards: BTreeMap::new(),
        totals: Totals::default(),
        job_seconds: 0.0,
        coverage: Coverage::default(),
        reach: ReachTable::default(),
        unsettled: BTreeMap::new(),
        failures: Vec::new(),
    };
    let mut from: BTreeMap<u64, &ShardSummary> = BTreeMap::new();
    for s in summaries {
        check_consistent(first, s)?;
        if let Some(other) = from.insert(s.shard.index(), s) {
            return Err(MergeError::SameShard { first: other.path.clone(), second: s.path.clone(), shard: s.shard });
        }
        add(&mut m, s);
    }
    m.failures.sort_by_key(|f| f.record.seed);
    Ok(m)
}

/// Whether `s` is a shard of the campaign of `first`.
fn check_consistent(first: &ShardSummary, s: &ShardSummary) -> Result<(), MergeError> {
    let differ = |difference: Difference| {
        Err(MergeError::NotOneCampaign { first: first.path.clone(), second: s.path.clone(), difference })
    };
    if s.seed != first.seed {
        return differ(Difference::Seed(first.seed, s.seed));
    }
    if s.shard.count() != first.shard.count() {
        return differ(Difference::ShardCount(first.shard, s.shard));
    }
    let keys: std::collections::BTreeSet<&String> = first.settings.keys().chain(s.settings.keys()).collect();
    for k in keys {
        let (a, b) = (first.settings.get(k), s.settings.get(k));
        if a != b {
            return differ(Difference::Setting { name: k.clone(), first: a.cloned(), second: b.cloned() });
        }
    }
    Ok(())
}

/// Adds shard `s` to `m`.
fn add(m: &mut Merged, s: &ShardSummary) {
    let t = &s.totals;
    m.shards.insert(
        s.shard.index(),
        ShardRun {
            path: s.path.clone(),
            programs: t.programs,
            jobs: s.jobs,
            elapsed_s: t.elapsed_s,
            interrupted: t.interrupted,
        },
    );
    let sum = &mut m.totals;
    sum.programs += t.programs;
    sum.ir_programs += t.ir_programs;
    sum.inconclusive += t.inconclusive;
    sum.limited += t.limited;
    sum.stages += t.stages;
    sum.call_programs += t.call_programs;
    sum.not_supported += t.not_supported;
    sum.full_checks += t.full_checks;
    sum.unwritten += t.unwritten;
    sum.interrupted |= t.interrupted;
    sum.elapsed_s = sum.elapsed_s.max(t.elapsed_s);
    sum.generation_s += t.generation_s;
    sum.checking_s += t.checking_s;
    for (name, secs) in &t.phases_s {
        *sum.phases_s.entry(name.clone()).or_default() += secs;
    }
    m.job_seconds += t.elapsed_s * s.jobs.max(1) as f64;
    let c = &mut m.coverage;
    let add_all = |into: &mut BTreeMap<String, u64>, from: &BTreeMap<String, u64>| {
        for (k, v) in from {
            *into.entry(k.clone()).or_default() += v;
        }
    };
    add_all(&mut c.construction, &s.coverage.construction);
    add_all(&mut c.ssa_ra, &s.coverage.ssa_ra);
    add_all(&mut c.out_of_ssa, &s.coverage.out_of_ssa);
    for (k, v) in &s.coverage.regs {
        *c.regs.entry(*k).or_default() += v;
    }
    for (k, v) in &s.coverage.class_tests {
        *c.class_tests.entry(k).or_default() += v;
    }
    for (v, ct, programs, reached) in s.reach.rows() {
        m.reach.add_row(v, ct, programs, reached);
    }
    m.unsettled.extend(s.unsettled.iter().map(|(k, v)| (*k, *v)));
    let dir = s.path.parent().map(PathBuf::from).unwrap_or_default();
    m.failures.extend(s.failures.iter().map(|f| MergedFailure {
        shard: s.shard.index(),
        record: f.clone(),
        case: f.case.as_ref().map(|name| dir.join(name)),
    }));
}

impl Merged {
    /// The shards no summary was given for.
    pub fn missing(&self) -> Vec<u64> {
        (0..self.shard_count).filter(|i| !self.shards.contains_key(i)).collect()
    }

    /// The failing programs, counting those whose case was not written.
    pub fn failure_count(&self) -> usize {
        self.failures.len()
    }

    /// How many of the unsharded campaign's first programs the shards ran
    /// between them, all of them: the first index that no shard reached.
    pub fn covered_prefix(&self) -> u64 {
        (0..self.shard_count)
            .map(|i| self.shards.get(&i).map_or(i, |r| i.saturating_add(r.programs.saturating_mul(self.shard_count))))
            .min()
            .unwrap_or(0)
    }

    /// The report: the shards, the totals, the throughput, the
    /// configurations, the reach table and the failures by signature.
    pub fn render(&self) -> String {
        let t = &self.totals;
        let mut s =
            format!("{} shard(s) of {} of the campaign of seed {}:\n", self.shards.len(), self.shard_count, self.seed);
        for (i, r) in &self.shards {
            s += &format!(
                "  shard {i}/{}: {} programs in {:.1}s on {} job(s){} ({})\n",
                self.shard_count,
                r.programs,
                r.elapsed_s,
                r.jobs,
                if r.interrupted { ", interrupted" } else { "" },
                r.path.display()
            );
        }
        let missing = self.missing();
        if !missing.is_empty() {
            let list: Vec<String> = missing.iter().map(|i| format!("{i}/{}", self.shard_count)).collect();
            s += &format!("INCOMPLETE: no summary for shard(s) {}\n", list.join(", "));
        }
        let prefix = self.covered_prefix();
        if prefix == t.programs {
            s += &format!(
                "the programs are the unsharded campaign's first {prefix} (seeds {} to {}; rerun unsharded with --seed {} --count {prefix})\n",
                self.seed,
                self.seed.wrapping_add(prefix.saturating_sub(1)),
                self.seed
            );
        } else {
            s += &format!(
                "the programs include the unsharded campaign's first {prefix} (and {} more)\n",
                t.programs - prefix
            );
        }
        s += &format!(
            "{} programs, longest shard {:.1}s, {:.0} job-seconds: {:.1} programs/s per job, {} stage outcomes compared ({:.0} per program); {} inconclusive (source out of fuel); {} failure(s)\n",
            t.programs,
            t.elapsed_s,
            self.job_seconds,
            t.programs as f64 / self.job_seconds.max(1e-9),
            t.stages,
            t.stages as f64 / t.programs.max(1) as f64,
            t.inconclusive,
            self.failure_count()
        );
        s += &format!(
            "{} inconclusive (a limit of the harness: a later stage's fuel or the trace capacity)\n",
            t.limited
        );
        s += &format!("{} of the programs were IR-level\n", t.ir_programs);
        if t.call_programs > 0 {
            s += &format!(
                "{} of the programs have calls; {} stage(s) that do not run calls yet were not run (not failures)\n",
                t.call_programs, t.not_supported
            );
        }
        let thread = (t.generation_s + t.checking_s).max(1e-9);
        s += &format!(
            "{} full checks: {:.0} per second per core of thread time\n",
            t.full_checks,
            t.full_checks as f64 / thread
        );
        s += &format!("thread time: generation {:.1}%", 100.0 * t.generation_s / thread);
        for (name, secs) in &t.phases_s {
            s += &format!(", {name} {:.1}%", 100.0 * secs / thread);
        }
        s.push('\n');
        s += &self.coverage.render();
        s += &self.reach.render();
        s += &self.render_failures();
        s
    }

    /// The failures grouped by signature (stage, check), largest group
    /// first, each with its case files and the shard that met it.
    fn render_failures(&self) -> String {
        let mut groups: BTreeMap<(&str, &str), Vec<&MergedFailure>> = BTreeMap::new();
        for f in &self.failures {
            groups.entry((&f.record.stage, &f.record.check)).or_default().push(f);
        }
        let mut groups: Vec<_> = groups.into_iter().collect();
        groups.sort_by_key(|(_, fs)| std::cmp::Reverse(fs.len()));
        let mut s = String::new();
        if !groups.is_empty() {
            s += &format!("failures by signature ({} group(s)):\n", groups.len());
        }
        for ((stage, check), fs) in groups {
            s += &format!("  {:>6} at {stage}: {check}\n", fs.len());
            for f in fs {
                let shard = format!("shard {}/{}, seed {}", f.shard, self.shard_count, f.record.seed);
                match (&f.case, &f.record.error) {
                    (Some(case), _) => s += &format!("         case: {} ({shard})\n", case.display()),
                    (None, e) => s += &format!("         case NOT WRITTEN ({shard}): {}\n", e.as_deref().unwrap_or("")),
                }
            }
        }
        s
    }
}

impl Merged {
    /// What differs between the results of two merged campaigns, one
    /// line each (none: the same campaign, however it was split): the
    /// seed and settings, the programs (by seed), the verdict of every
    /// program, the stage outcomes compared, the configurations, the reach
    /// table and the failures' signatures. Times and shard layouts are not
    /// compared.
    pub fn differences(&self, other: &Merged) -> Vec<String> {
        let mut d = Vec::new();
        let mut differ = |what: &str, a: String, b: String| {
            if a != b {
                d.push(format!("{what}: {a} against {b}"));
            }
        };
        differ("seed", self.seed.to_string(), other.seed.to_string());
        differ("settings", format!("{:?}", self.settings), format!("{:?}", other.settings));
        let seeds = |m: &Merged| {
            let prefix = m.covered_prefix();
            if prefix == m.totals.programs {
                format!("the first {prefix} programs")
            } else {
                format!(
                    "{} programs, not a prefix of the unsharded campaign (the first {prefix} and more)",
                    m.totals.programs
                )
            }
        };
        differ("programs", seeds(self), seeds(other));
        let (a, b) = (&self.totals, &other.totals);
        differ("IR-level programs", a.ir_programs.to_string(), b.ir_programs.to_string());
        differ("stage outcomes compared", a.stages.to_string(), b.stages.to_string());
        differ("programs with calls", a.call_programs.to_string(), b.call_programs.to_string());
        differ("stages not supported", a.not_supported.to_string(), b.not_supported.to_string());
        differ("full checks", a.full_checks.to_string(), b.full_checks.to_string());
        differ("verdicts other than agreement", format!("{:?}", self.unsettled), format!("{:?}", other.unsettled));
        let signatures = |m: &Merged| {
            let s: Vec<_> = m.failures.iter().map(|f| (f.record.seed, &f.record.stage, &f.record.check)).collect();
            format!("{s:?}")
        };
        differ("failures", signatures(self), signatures(other));
        differ("configurations", format!("{:?}", self.coverage), format!("{:?}", other.coverage));
        differ("reach table", self.reach.render(), other.reach.render());
        if self.reach != other.reach {
            d.push("reach table: the counts differ".to_string());
        }
        d
    }
}
