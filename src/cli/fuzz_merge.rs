//! `ssaref fuzz-merge DIR...`: one report from the shards of a campaign,
//! read from the machine-readable summaries (`summary-*.jsonl`) that
//! `ssaref fuzz` writes into its `--out` (docs/campaigns.md).

use crate::common::{bad_input, Failure, EXIT_INCONCLUSIVE, EXIT_INTERNAL, EXIT_MISMATCH};
use crate::stdio::{say, sayln};
use clap::Args;
use ssaref::campaign::summary_file::ShardSummary;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct FuzzMergeArgs {
    /// Output directories of `ssaref fuzz` (every `summary-*.jsonl` in
    /// each), or summary files.
    #[arg(required = true, value_name = "DIR")]
    paths: Vec<PathBuf>,
    /// Also merge the summaries in this directory (an unsharded run of
    /// the same campaign, say) and check that both have the same results:
    /// the same programs by seed, the same verdicts, the same stage
    /// outcomes compared, configurations, reach table and failures (exit
    /// code 7 if not).
    #[arg(long, value_name = "DIR")]
    same_as: Option<PathBuf>,
}

/// Exit code 0: every shard is there and nothing failed; 3: a shard found
/// a failing case; 9: shards are missing (and nothing failed); 7: with
/// `--same-as`, the results differ; 1: a file is not a summary, or the
/// files are not the shards of one campaign.
pub fn cmd_fuzz_merge(a: FuzzMergeArgs) -> Result<ExitCode, Failure> {
    let merged = merge_paths(&a.paths)?;
    say!("{}", merged.render());
    if let Some(reference) = &a.same_as {
        let other = merge_paths(std::slice::from_ref(reference))?;
        let differences = merged.differences(&other);
        if !differences.is_empty() {
            sayln!("the results differ from those of {}:", reference.display());
            for d in &differences {
                sayln!("  {d}");
            }
            return Ok(ExitCode::from(EXIT_MISMATCH));
        }
        sayln!("the same results as {}", reference.display());
    }
    Ok(if merged.failure_count() > 0 {
        ExitCode::from(EXIT_INTERNAL)
    } else if !merged.missing().is_empty() {
        ExitCode::from(EXIT_INCONCLUSIVE)
    } else {
        ExitCode::SUCCESS
    })
}

/// Reads and merges every summary at `paths`.
fn merge_paths(paths: &[PathBuf]) -> Result<ssaref::campaign::merge::Merged, Failure> {
    let mut files = Vec::new();
    for p in paths {
        files.extend(summary_files(p)?);
    }
    if files.is_empty() {
        let dirs: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(bad_input(format!("no campaign summary (summary-*.jsonl) in {}", dirs.join(", "))));
    }
    let summaries = files.iter().map(|f| read(f)).collect::<Result<Vec<ShardSummary>, Failure>>()?;
    ssaref::campaign::merge::merge(&summaries).map_err(|e| bad_input(e.to_string()))
}

/// The summaries at `p`: the file itself, or the directory's
/// `summary-*.jsonl`, sorted by name.
fn summary_files(p: &Path) -> Result<Vec<PathBuf>, Failure> {
    let cannot = |e: std::io::Error| bad_input(format!("{}: cannot read: {e}", p.display()));
    if !p.is_dir() {
        std::fs::metadata(p).map_err(cannot)?;
        return Ok(vec![p.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(p).map_err(cannot)? {
        let path = entry.map_err(cannot)?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name.starts_with("summary-") && name.ends_with(".jsonl") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Reads and parses one summary.
fn read(path: &Path) -> Result<ShardSummary, Failure> {
    let bytes = std::fs::read(path).map_err(|e| bad_input(format!("{}: cannot read: {e}", path.display())))?;
    let text = String::from_utf8(bytes).map_err(|e| bad_input(format!("{}:1:1: not UTF-8: {e}", path.display())))?;
    ssaref::campaign::summary_file::parse(path, &text).map_err(|e| bad_input(e.to_string()))
}
