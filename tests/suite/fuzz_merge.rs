//! One report from many shards: the machine-readable summary that a
//! campaign writes (`campaign/summary_file.rs`) and `ssaref fuzz-merge`
//! (`campaign/merge.rs`), which adds the shards up and refuses files that
//! are not the shards of one campaign.

use crate::common::InterpOracle;
use ssaref::campaign::driver::{run_campaign, CampaignConfig, CampaignSummary};
use ssaref::campaign::merge::{merge, Merged};
use ssaref::campaign::shard::Shard;
use ssaref::campaign::summary_file;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssaref-fuzz-merge-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The default campaign (every back end, everything rotating, a quarter
/// of IR-level programs), as `ssaref fuzz` runs it.
fn config(out: &Path, seed: u64, count: u64, shard: Shard) -> CampaignConfig {
    CampaignConfig::new(out).with_max_programs(count).with_jobs(2).with_seed(seed).with_shard(shard).with_ir_share(0.25)
}

/// Runs the campaign, writes its summary, and reads the summary back.
fn run_and_read(config: &CampaignConfig) -> summary_file::ShardSummary {
    let summary = run_campaign(config, &InterpOracle, &AtomicBool::new(false));
    let path = summary_file::write(config, config.jobs, &summary).expect("the summary is written");
    let text = std::fs::read_to_string(&path).expect("the summary is on disk");
    summary_file::parse(&path, &text).unwrap_or_else(|e| panic!("{e}"))
}

fn merged(shards: &[summary_file::ShardSummary]) -> Merged {
    merge(shards).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_union_of_three_shards_is_the_unsharded_campaign() {
    let (seed, per_shard) = (20_261_128, 8);
    let dir = temp_dir("union");
    let shards: Vec<_> = (0..3)
        .map(|i| run_and_read(&config(&dir.join("shards"), seed, per_shard, Shard::new(i, 3).expect("exists"))))
        .collect();
    let whole = run_and_read(&config(&dir.join("whole"), seed, 3 * per_shard, Shard::WHOLE));
    let (sharded, whole) = (merged(&shards), merged(&[whole]));
    assert!(sharded.missing().is_empty());
    assert_eq!(sharded.differences(&whole), Vec::<String>::new());
    // The same programs by seed: each shard's seeds, together, are the
    // unsharded campaign's.
    let mut seeds: Vec<u64> =
        shards.iter().flat_map(|s| (0..s.totals.programs).map(|j| s.shard.seed(s.seed, j))).collect();
    seeds.sort_unstable();
    assert_eq!(seeds, (seed..seed + 3 * per_shard).collect::<Vec<_>>());
    assert_eq!(sharded.covered_prefix(), 3 * per_shard);
    // The same verdicts, stage outcomes, configurations and reach table.
    assert_eq!(sharded.totals.programs, whole.totals.programs);
    assert_eq!(sharded.unsettled, whole.unsettled);
    assert!(sharded.totals.stages > 0);
    assert_eq!(sharded.totals.stages, whole.totals.stages);
    assert_eq!(sharded.coverage, whole.coverage);
    assert!(sharded.reach.rows().next().is_some(), "{}", sharded.render());
    assert_eq!(sharded.reach, whole.reach);
    // A missing shard, or a shard that ran one program fewer, is told
    // apart from the whole campaign.
    let partial = merged(&shards[..2]);
    assert_eq!(partial.missing(), [2]);
    assert!(
        partial.differences(&whole).iter().any(|d| d.starts_with("programs:")),
        "{:?}",
        partial.differences(&whole)
    );
    let short = run_and_read(&config(&dir.join("short"), seed, per_shard - 1, Shard::new(2, 3).expect("exists")));
    let uneven = merged(&[shards[0].clone(), shards[1].clone(), short]);
    assert!(!uneven.differences(&whole).is_empty());
    assert_eq!(uneven.covered_prefix(), 3 * (per_shard - 1) + 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes the summary of an empty campaign (no program ran) of `config`
/// into `dir`.
fn empty_summary(config: &CampaignConfig) -> PathBuf {
    summary_file::write(config, 1, &CampaignSummary::default()).expect("written")
}

fn fuzz_merge(args: &[&Path]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ssaref")).arg("fuzz-merge").args(args).output().expect("runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

#[test]
fn fuzz_merge_refuses_files_that_are_not_shards_of_one_campaign() {
    let dir = temp_dir("refuse");
    let shard = |i| Shard::new(i, 2).expect("exists");
    let base = |d: &str, i| CampaignConfig::new(dir.join(d)).with_seed(5).with_shard(shard(i));
    empty_summary(&base("a", 0));
    empty_summary(&base("b", 1).with_seed(6));
    let (code, _, err) = fuzz_merge(&[&dir.join("a"), &dir.join("b")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("seed 5 and seed 6"), "{err}");
    empty_summary(&base("c", 1).with_regs(vec![2, 3]));
    let (code, _, err) = fuzz_merge(&[&dir.join("a"), &dir.join("c")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("setting regs"), "{err}");
    empty_summary(&base("d", 0));
    let (code, _, err) = fuzz_merge(&[&dir.join("a"), &dir.join("d")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("both shard 0/2"), "{err}");
    // Consistent shards merge; the second of two is missing here.
    empty_summary(&base("e", 1));
    let (code, out, err) = fuzz_merge(&[&dir.join("a"), &dir.join("e")]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, _) = fuzz_merge(&[&dir.join("a")]);
    assert_eq!(code, 9, "{out}");
    assert!(out.contains("INCOMPLETE: no summary for shard(s) 1/2"), "{out}");
    // A damaged file is named with the line and column of the damage.
    let path = empty_summary(&base("f", 0));
    let text = std::fs::read_to_string(&path).expect("on disk");
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1] = "{\"record\":\"totals\",\"programs\":-1}";
    std::fs::write(&path, lines.join("\n")).expect("written");
    let (code, _, err) = fuzz_merge(&[&path]);
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with(&format!("{}:2:", path.display())), "{err}");
    let (code, _, err) = fuzz_merge(&[&dir.join("nothing-here")]);
    assert_eq!(code, 1, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fuzz_writes_the_summary_that_fuzz_merge_reads() {
    let dir = temp_dir("cli");
    let out = Command::new(env!("CARGO_BIN_EXE_ssaref"))
        .args(["fuzz", "--count", "3", "--seed", "9", "--shard", "1/2", "--jobs", "1", "--regs", "2"])
        .args(["--route", "ssa-ra", "--out"])
        .arg(&dir)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let path = dir.join("summary-9-shard-1-of-2.jsonl");
    assert!(stdout.contains(&format!("summary for fuzz-merge: {}", path.display())), "{stdout}");
    let (code, out, _) = fuzz_merge(&[&dir]);
    assert_eq!(code, 9, "{out}");
    assert!(out.contains("shard 1/2: 3 programs"), "{out}");
    let (code, out, _) = fuzz_merge(&[&dir, Path::new("--same-as"), &dir]);
    assert_eq!(code, 9, "{out}");
    assert!(out.contains("the same results as"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_slurm_script_the_docs_show_is_the_one_ci_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = std::fs::read_to_string(root.join(".ci/fuzz.sbatch")).expect("the script");
    let docs = std::fs::read_to_string(root.join("docs/campaigns.md")).expect("the docs");
    let after = &docs[docs.find("A Slurm array job: `.ci/fuzz.sbatch`").expect("the section names the script")..];
    let block = after.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("a shell block");
    assert_eq!(block, script);
}

/// A `--calls` campaign's summary carries the counts `fuzz --calls` prints
/// (programs with calls, stages not supported) and the `calls` setting;
/// `fuzz-merge` adds them up and prints them; a summary written before the
/// counts existed reads as 0 of each.
#[test]
fn the_summary_carries_the_call_counts() {
    let dir = temp_dir("calls");
    let config = config(&dir, 7, 12, Shard::WHOLE).with_calls(true);
    let summary = run_campaign(&config, &InterpOracle, &AtomicBool::new(false));
    // Every built-in back end runs calls: no stage is left out (a user's
    // back end that refuses calls would be counted there).
    assert!(summary.call_programs > 0 && summary.not_supported == 0, "{}", summary.render(2));
    let path = summary_file::write(&config, config.jobs, &summary).expect("the summary is written");
    let text = std::fs::read_to_string(&path).expect("the summary is on disk");
    let read = summary_file::parse(&path, &text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read.totals.call_programs, summary.call_programs);
    assert_eq!(read.totals.not_supported, summary.not_supported);
    assert_eq!(read.settings.get("calls").map(String::as_str), Some("yes"));
    let m = merged(std::slice::from_ref(&read));
    assert_eq!(m.totals.call_programs, summary.call_programs);
    let expected_line =
        format!("{} of the programs have calls; {} stage(s)", summary.call_programs, summary.not_supported);
    assert!(m.render().contains(&expected_line), "{}", m.render());
    let old = text
        .replace(&format!("\"call_programs\":{},", summary.call_programs), "")
        .replace(&format!("\"not_supported\":{},", summary.not_supported), "");
    assert_ne!(old, text, "the fields are in the file");
    let read_old = summary_file::parse(&path, &old).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((read_old.totals.call_programs, read_old.totals.not_supported), (0, 0));
    let _ = std::fs::remove_dir_all(&dir);
}
