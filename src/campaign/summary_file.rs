//! The machine-readable summary of a campaign: the JSON Lines file that
//! `ssaref fuzz` writes into its output directory beside the failing
//! cases, and that `ssaref fuzz-merge` reads back (`merge.rs`) to make one
//! report from the shards of an array job.
//!
//! One JSON object per line, each with a `record` field naming its kind
//! (docs/campaigns.md gives the schema): first `campaign` (the seed, the
//! shard, the jobs and the settings that decide what each program runs),
//! then `totals`, `coverage`, one `reach` per row of the reach table, one
//! `program` per program whose verdict was not agreement, and one
//! `failure` per failing program. A program that agreed has no line: the
//! programs of a shard are the first `totals.programs` of its seed
//! sequence (`shard.rs`), so the seeds need not be listed.

use crate::analysis::reach::{Path as ReachPath, COUNT};
use crate::campaign::driver::{CampaignConfig, CampaignSummary, Unsettled};
use crate::campaign::rotation::Coverage;
use crate::campaign::shard::Shard;
use crate::out_of_ssa::coalescing::{ClassTest, CoalescingVariant};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The version of the format, in every `campaign` record.
pub const FORMAT: u32 = 1;

/// One line of the file.
#[derive(Serialize, Deserialize, Debug)]
#[serde(tag = "record", rename_all = "kebab-case")]
enum Record {
    Campaign(CampaignRecord),
    Totals(Totals),
    Coverage(CoverageRecord),
    Reach(ReachRecord),
    Program(ProgramRecord),
    Failure(FailureRecord),
}

/// Which campaign a file summarizes.
#[derive(Serialize, Deserialize, Debug, Clone)]
struct CampaignRecord {
    format: u32,
    seed: u64,
    shard_index: u64,
    shard_count: u64,
    jobs: u64,
    /// What decides each program's checks: two files with different
    /// settings are not shards of one campaign.
    settings: BTreeMap<String, String>,
}

/// The totals of one campaign (or, summed, of a merged one).
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct Totals {
    pub programs: u64,
    pub ir_programs: u64,
    pub inconclusive: u64,
    pub limited: u64,
    /// Stage outcomes compared.
    pub stages: u64,
    /// Programs with calls (`fuzz --calls`); absent from the summaries of
    /// campaigns without them.
    #[serde(default)]
    pub call_programs: u64,
    /// Stages that do not run programs with calls yet and were not run,
    /// summed over programs (not failures).
    #[serde(default)]
    pub not_supported: u64,
    pub full_checks: u64,
    /// Failing programs whose case could not be written.
    pub unwritten: u64,
    pub interrupted: bool,
    /// Wall-clock seconds.
    pub elapsed_s: f64,
    /// Thread seconds generating programs and checking them.
    pub generation_s: f64,
    pub checking_s: f64,
    /// Thread seconds per phase of the differential check.
    pub phases_s: BTreeMap<String, f64>,
}

/// The configurations that ran (`rotation::Coverage`).
#[derive(Serialize, Deserialize, Debug)]
struct CoverageRecord {
    construction: BTreeMap<String, u64>,
    /// By K, in decimal (a JSON key is a string).
    regs: BTreeMap<String, u64>,
    ssa_ra: BTreeMap<String, u64>,
    out_of_ssa: BTreeMap<String, u64>,
    class_tests: BTreeMap<String, u64>,
}

/// One row of the reach table (`reach_table.rs`).
#[derive(Serialize, Deserialize, Debug)]
struct ReachRecord {
    variant: String,
    class_test: String,
    programs: u64,
    /// Programs that reached each path, by the path's name.
    reached: BTreeMap<String, u64>,
}

/// A program whose verdict was not agreement.
#[derive(Serialize, Deserialize, Debug)]
struct ProgramRecord {
    seed: u64,
    verdict: String,
}

/// A failing program: its signature and its case file.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct FailureRecord {
    pub seed: u64,
    /// The failing stage, up to `[`.
    pub stage: String,
    /// The check that failed there.
    pub check: String,
    /// The case file's name, in the directory of the summary.
    pub case: Option<String>,
    /// Why the case could not be written.
    pub error: Option<String>,
}

/// The settings that decide what each program of `config` runs: the
/// rotation, the back ends, the fuel, the share of IR-level programs,
/// whether programs have calls, and the version of ssaref (not the jobs, the budget or the output).
pub fn settings(config: &CampaignConfig) -> BTreeMap<String, String> {
    let r = &config.rotation;
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
    let mut s = BTreeMap::new();
    s.insert("ssaref".into(), env!("CARGO_PKG_VERSION").to_string());
    s.insert("rotate".into(), yes_no(r.rotate));
    s.insert(
        "regs".into(),
        r.regs.as_ref().map_or("rotating".into(), |k| k.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(",")),
    );
    s.insert("ssa-ra".into(), yes_no(r.ssa_ra));
    s.insert("out-of-ssa".into(), r.out_of_ssa.iter().map(|o| o.describe()).collect::<Vec<_>>().join(" "));
    s.insert("regalloc2".into(), yes_no(r.regalloc2));
    s.insert("backends".into(), config.backends.iter().map(|b| b.name()).collect::<Vec<_>>().join(","));
    s.insert("fuel".into(), config.fuel.to_string());
    s.insert("ir-share".into(), config.ir_share.to_string());
    s.insert("calls".into(), yes_no(config.calls));
    s
}

/// The file's text: the records of `summary`, a campaign run with
/// `config` on `jobs` threads.
pub fn render(config: &CampaignConfig, jobs: usize, summary: &CampaignSummary) -> String {
    let mut records = vec![Record::Campaign(CampaignRecord {
        format: FORMAT,
        seed: config.seed,
        shard_index: config.shard.index(),
        shard_count: config.shard.count(),
        jobs: jobs as u64,
        settings: settings(config),
    })];
    let secs = |d: std::time::Duration| d.as_secs_f64();
    records.push(Record::Totals(Totals {
        programs: summary.programs,
        ir_programs: summary.ir_programs,
        inconclusive: summary.inconclusive,
        limited: summary.limited,
        stages: summary.stages,
        call_programs: summary.call_programs,
        not_supported: summary.not_supported,
        full_checks: summary.full_checks,
        unwritten: summary.unwritten.len() as u64,
        interrupted: summary.interrupted,
        elapsed_s: secs(summary.elapsed),
        generation_s: secs(summary.generation),
        checking_s: secs(summary.checking),
        phases_s: summary.phases.named().iter().map(|(n, d)| (n.to_string(), secs(*d))).collect(),
    }));
    let c = &summary.coverage;
    records.push(Record::Coverage(CoverageRecord {
        construction: c.construction.clone(),
        regs: c.regs.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        ssa_ra: c.ssa_ra.clone(),
        out_of_ssa: c.out_of_ssa.clone(),
        class_tests: c.class_tests.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
    }));
    for (v, t, programs, reached) in summary.reach.rows() {
        let reached = ReachPath::ALL.iter().map(|p| (p.name().to_string(), reached[*p as usize])).collect();
        records.push(Record::Reach(ReachRecord {
            variant: v.slug().into(),
            class_test: t.name().into(),
            programs,
            reached,
        }));
    }
    for (&seed, kind) in &summary.unsettled {
        records.push(Record::Program(ProgramRecord { seed, verdict: kind.name().into() }));
    }
    for f in &summary.failing {
        records.push(Record::Failure(FailureRecord {
            seed: f.seed,
            stage: f.signature.0.clone(),
            check: f.signature.1.clone(),
            case: f.case.as_ref().ok().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()),
            error: f.case.as_ref().err().map(|e| e.to_string()),
        }));
    }
    let mut text = String::new();
    for r in &records {
        // Serializing these plain structures cannot fail.
        text += &serde_json::to_string(r).unwrap_or_default();
        text.push('\n');
    }
    text
}

/// Writes the summary of a campaign into its output directory, as
/// `summary-SEED-shard-I-of-N.jsonl` (or `...-2.jsonl` and so on when a
/// run of the same shard left one there); returns the path.
pub fn write(config: &CampaignConfig, jobs: usize, summary: &CampaignSummary) -> std::io::Result<PathBuf> {
    let stem = format!("summary-{}-shard-{}-of-{}", config.seed, config.shard.index(), config.shard.count());
    let text = render(config, jobs, summary);
    crate::campaign::failure_case::write_new_case(&config.out_dir, &stem, "jsonl", |_| text.clone())
}

/// One file read back: a shard of a campaign.
#[derive(Clone, Debug)]
pub struct ShardSummary {
    /// The file it was read from.
    pub path: PathBuf,
    pub seed: u64,
    pub shard: Shard,
    pub jobs: u64,
    pub settings: BTreeMap<String, String>,
    pub totals: Totals,
    pub coverage: Coverage,
    pub reach: crate::campaign::reach_table::ReachTable,
    /// The programs that did not agree, by seed, with their verdict's kind.
    pub unsettled: BTreeMap<u64, Unsettled>,
    pub failures: Vec<FailureRecord>,
}

impl ShardSummary {
    /// Whether `seed` is one of the programs this shard ran.
    pub fn ran(&self, seed: u64) -> bool {
        let global = seed.wrapping_sub(self.seed);
        global % self.shard.count() == self.shard.index() && global / self.shard.count() < self.totals.programs
    }
}

/// What is wrong with a line of a campaign summary (or with the file as a
/// whole, at its last line).
#[derive(Debug)]
pub enum SummaryFault {
    /// The line is not one JSON record of the format.
    Json(serde_json::Error),
    /// The `campaign` record's format is not [`FORMAT`].
    Format(u32),
    /// The `campaign` record's shard does not exist.
    Shard(crate::campaign::shard::ShardError),
    /// A record before the `campaign` record.
    CampaignNotFirst,
    /// A second `campaign` record.
    SecondCampaign,
    /// A second `totals` record.
    SecondTotals,
    /// A `program` record's verdict is none of [`Unsettled::ALL`].
    UnknownVerdict(String),
    /// Two `program` records for one seed.
    SeedTwice(u64),
    /// A `coverage` record's register count is not a number.
    NotARegisterCount(String),
    /// A class test that `ClassTest::ALL` does not name.
    UnknownClassTest(String),
    /// A coalescing variant that `CoalescingVariant::ALL` does not name.
    UnknownVariant(String),
    /// A path of the reach table that `reach::Path::ALL` does not name.
    UnknownPath(String),
    /// The file has no `campaign` record.
    NoCampaign,
    /// The file has no `totals` record.
    NoTotals,
    /// A `program` record's seed is not one the shard ran.
    SeedNotInShard { seed: u64, shard: Shard },
}

impl std::fmt::Display for SummaryFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SummaryFault::Json(e) => write!(f, "{e}"),
            SummaryFault::Format(n) => write!(f, "format {n} (this ssaref reads format {FORMAT})"),
            SummaryFault::Shard(e) => write!(f, "{e}"),
            SummaryFault::CampaignNotFirst => f.write_str("the first record must be the `campaign` record"),
            SummaryFault::SecondCampaign => f.write_str("a second `campaign` record"),
            SummaryFault::SecondTotals => f.write_str("a second `totals` record"),
            SummaryFault::UnknownVerdict(v) => write!(f, "unknown verdict `{v}`"),
            SummaryFault::SeedTwice(seed) => write!(f, "seed {seed} listed twice"),
            SummaryFault::NotARegisterCount(k) => write!(f, "`{k}` is not a register count"),
            SummaryFault::UnknownClassTest(name) => write!(f, "unknown class test `{name}`"),
            SummaryFault::UnknownVariant(name) => write!(f, "unknown coalescing variant `{name}`"),
            SummaryFault::UnknownPath(name) => write!(f, "unknown path `{name}`"),
            SummaryFault::NoCampaign => f.write_str("no `campaign` record: not a campaign summary"),
            SummaryFault::NoTotals => f.write_str("no `totals` record: the summary is cut short"),
            SummaryFault::SeedNotInShard { seed, shard } => {
                write!(f, "seed {seed} is listed but is not one of the programs of shard {shard}")
            }
        }
    }
}

/// Why a file is not a campaign summary, and where: shown as
/// `file:line:col: message`.
#[derive(Debug)]
pub struct SummaryError {
    pub path: PathBuf,
    pub line: usize,
    pub col: usize,
    pub fault: SummaryFault,
}

impl std::fmt::Display for SummaryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}: {}", self.path.display(), self.line, self.col, self.fault)
    }
}

impl std::error::Error for SummaryError {}

/// The error `fault` at `line`, `col` of the file at `path`.
fn error_at(path: &Path, line: usize, col: usize, fault: SummaryFault) -> SummaryError {
    SummaryError { path: path.to_path_buf(), line, col, fault }
}

/// Reads the summary at `path` (`text` is its content), or says where and
/// why it is not one.
pub fn parse(path: &Path, text: &str) -> Result<ShardSummary, SummaryError> {
    let mut campaign: Option<CampaignRecord> = None;
    let mut totals: Option<Totals> = None;
    let mut coverage = Coverage::default();
    let mut reach = crate::campaign::reach_table::ReachTable::default();
    let mut unsettled = BTreeMap::new();
    let mut failures = Vec::new();
    let mut last_line = 0;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        last_line = n;
        if line.trim().is_empty() {
            continue;
        }
        let record: Record = serde_json::from_str(line).map_err(|e| {
            let col = e.column().max(1);
            error_at(path, n, col, SummaryFault::Json(e))
        })?;
        let at = |fault: SummaryFault| error_at(path, n, 1, fault);
        match (&campaign, record) {
            (None, Record::Campaign(c)) => {
                if c.format != FORMAT {
                    return Err(at(SummaryFault::Format(c.format)));
                }
                Shard::new(c.shard_index, c.shard_count).map_err(|e| at(SummaryFault::Shard(e)))?;
                campaign = Some(c);
            }
            (None, _) => return Err(at(SummaryFault::CampaignNotFirst)),
            (Some(_), Record::Campaign(_)) => return Err(at(SummaryFault::SecondCampaign)),
            (Some(_), Record::Totals(t)) => {
                if totals.replace(t).is_some() {
                    return Err(at(SummaryFault::SecondTotals));
                }
            }
            (Some(_), Record::Coverage(c)) => add_coverage(&mut coverage, c).map_err(at)?,
            (Some(_), Record::Reach(r)) => add_reach(&mut reach, r).map_err(at)?,
            (Some(_), Record::Program(p)) => {
                let kind = Unsettled::ALL
                    .into_iter()
                    .find(|k| k.name() == p.verdict)
                    .ok_or_else(|| at(SummaryFault::UnknownVerdict(p.verdict.clone())))?;
                if unsettled.insert(p.seed, kind).is_some() {
                    return Err(at(SummaryFault::SeedTwice(p.seed)));
                }
            }
            (Some(_), Record::Failure(f)) => failures.push(f),
        }
    }
    let end = |fault: SummaryFault| error_at(path, last_line.max(1), 1, fault);
    let c = campaign.ok_or_else(|| end(SummaryFault::NoCampaign))?;
    let totals = totals.ok_or_else(|| end(SummaryFault::NoTotals))?;
    let shard = Shard::new(c.shard_index, c.shard_count).map_err(|e| end(SummaryFault::Shard(e)))?;
    let summary = ShardSummary {
        path: path.to_path_buf(),
        seed: c.seed,
        shard,
        jobs: c.jobs,
        settings: c.settings,
        totals,
        coverage,
        reach,
        unsettled,
        failures,
    };
    if let Some(seed) = summary.unsettled.keys().find(|&&s| !summary.ran(s)) {
        return Err(end(SummaryFault::SeedNotInShard { seed: *seed, shard }));
    }
    Ok(summary)
}

/// Adds a `coverage` record's counts.
fn add_coverage(c: &mut Coverage, r: CoverageRecord) -> Result<(), SummaryFault> {
    let add = |into: &mut BTreeMap<String, u64>, from: BTreeMap<String, u64>| {
        for (k, v) in from {
            *into.entry(k).or_default() += v;
        }
    };
    add(&mut c.construction, r.construction);
    add(&mut c.ssa_ra, r.ssa_ra);
    add(&mut c.out_of_ssa, r.out_of_ssa);
    for (k, v) in r.regs {
        let k: usize = k.parse().map_err(|_| SummaryFault::NotARegisterCount(k.clone()))?;
        *c.regs.entry(k).or_default() += v;
    }
    for (name, v) in r.class_tests {
        let t = class_test(&name)?;
        *c.class_tests.entry(t.name()).or_default() += v;
    }
    Ok(())
}

/// The class test named `name`.
fn class_test(name: &str) -> Result<ClassTest, SummaryFault> {
    ClassTest::ALL.into_iter().find(|t| t.name() == name).ok_or_else(|| SummaryFault::UnknownClassTest(name.into()))
}

/// Adds a `reach` record's row.
fn add_reach(table: &mut crate::campaign::reach_table::ReachTable, r: ReachRecord) -> Result<(), SummaryFault> {
    let v = CoalescingVariant::ALL
        .into_iter()
        .find(|v| v.slug() == r.variant)
        .ok_or_else(|| SummaryFault::UnknownVariant(r.variant.clone()))?;
    let t = class_test(&r.class_test)?;
    let mut reached = [0u64; COUNT];
    for (name, n) in r.reached {
        let p =
            ReachPath::ALL.iter().find(|p| p.name() == name).ok_or_else(|| SummaryFault::UnknownPath(name.clone()))?;
        reached[*p as usize] = n;
    }
    table.add_row(v, t, r.programs, &reached);
    Ok(())
}
