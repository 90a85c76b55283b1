//! `ssaref fuzz`'s driver (`campaign::run_campaign`): a failing case is
//! written to disk before it is reported, also when a pass panics, and the
//! campaign goes on.

mod common;

use common::InterpOracle;
use ssaref::oracle::Oracle;
use ssaref::outcome::Outcome;
use ssaref::testing::campaign::{run_campaign, CampaignConfig};
use ssaref::testing::gen::{GenConfig, TestCase};
use ssaref::testing::shard::Shard;
use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;

/// The real oracle, except that running allocated code panics: a stand-in
/// for a pass that panics (the pipeline cannot tell the two apart).
struct PanicsOnMir;

impl Oracle for PanicsOnMir {
    fn run_source(&self, p: &ssaref::ast::Program, args: &[i64], fuel: u64) -> Result<Outcome, String> {
        InterpOracle.run_source(p, args, fuel)
    }
    fn run_ssa(&self, m: &ssaref::ir::Module, args: &[i64], fuel: u64) -> Result<Outcome, String> {
        InterpOracle.run_ssa(m, args, fuel)
    }
    fn run_mir(&self, _: &ssaref::mir::MModule, _: &[i64], _: u64) -> Result<Outcome, String> {
        panic!("planted panic")
    }
}

fn config(out: &std::path::Path, route2: bool) -> CampaignConfig {
    CampaignConfig::new(out)
        .with_max_programs(4)
        .with_jobs(2)
        .with_seed(77)
        .with_regs(vec![2, 4])
        .with_fuel(100_000)
        .with_routes(true, if route2 { ssaref::pipeline::Route2::all() } else { Vec::new() }, false)
}

#[test]
fn a_panicking_pass_is_a_written_case_and_the_campaign_goes_on() {
    let dir = std::env::temp_dir().join(format!("ssaref-campaign-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let summary = run_campaign(&config(&dir, false), &PanicsOnMir, &AtomicBool::new(false));
    assert_eq!(summary.programs, 4);
    assert_eq!(summary.failures.len(), 4, "{}", summary.render(2));
    assert_eq!(summary.histogram.get("panic"), Some(&4));
    for case in &summary.failures {
        let text = std::fs::read_to_string(case).expect("the case is on disk");
        assert!(text.contains("planted panic"), "{text}");
        // The case file is a program the tools read back.
        ssaref::frontend::case_file::CaseFile::parse(&text).expect("a valid case file");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_clean_campaign_over_both_routes_writes_nothing() {
    let dir = std::env::temp_dir().join(format!("ssaref-campaign-clean-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let summary = run_campaign(&config(&dir, true), &InterpOracle, &AtomicBool::new(false));
    assert_eq!(summary.programs, 4);
    assert!(summary.failures.is_empty(), "{}", summary.render(2));
    // Route 1, route 2 and the x86 stages of both ran.
    assert!(summary.stages > 4 * 20, "{}", summary.render(2));
    assert!(!dir.exists(), "no failing case, no directory");
}

/// An oracle that rejects every source program: each program of a campaign
/// is then a written case named by its seed (`case-SEED.src`), at the cost
/// of generating it, so the seeds a campaign ran can be read off the disk.
struct RejectsEverySource;

impl Oracle for RejectsEverySource {
    fn run_source(&self, _: &ssaref::ast::Program, _: &[i64], _: u64) -> Result<Outcome, String> {
        Err("planted source error".into())
    }
    fn run_ssa(&self, _: &ssaref::ir::Module, _: &[i64], _: u64) -> Result<Outcome, String> {
        Err("not reached".into())
    }
    fn run_mir(&self, _: &ssaref::mir::MModule, _: &[i64], _: u64) -> Result<Outcome, String> {
        Err("not reached".into())
    }
}

/// The seeds a campaign of `count` programs from seed 1000 ran in `shard`.
fn seeds_of_campaign(shard: Shard, count: u64) -> BTreeSet<u64> {
    let dir =
        std::env::temp_dir().join(format!("ssaref-campaign-shard-{}-{shard}", std::process::id()).replace('/', "-"));
    let _ = std::fs::remove_dir_all(&dir);
    let config = config(&dir, false).with_seed(1000).with_shard(shard).with_max_programs(count);
    let summary = run_campaign(&config, &RejectsEverySource, &AtomicBool::new(false));
    assert_eq!(summary.programs, count);
    assert_eq!(summary.failures.len() as u64, count, "{}", summary.render(2));
    let mut seeds = BTreeSet::new();
    for case in &summary.failures {
        let name = case.file_name().and_then(|n| n.to_str()).expect("a file name");
        let seed: u64 = name
            .strip_prefix("case-")
            .and_then(|n| n.strip_suffix(".src"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("case file name {name}"));
        // The case is the program of its seed: the shard is reproducible.
        let text = std::fs::read_to_string(case).expect("the case is on disk");
        let file = ssaref::frontend::case_file::CaseFile::parse(&text).expect("a valid case file");
        assert_eq!(file.program, TestCase::from_seed(seed, &GenConfig::default()).program, "{name}");
        assert!(seeds.insert(seed), "seed {seed} ran twice");
    }
    let _ = std::fs::remove_dir_all(&dir);
    seeds
}

#[test]
fn shards_partition_the_seeds_of_one_campaign() {
    let whole = seeds_of_campaign(Shard::WHOLE, 12);
    assert_eq!(whole, (1000..1012).collect::<BTreeSet<u64>>());
    let mut union = BTreeSet::new();
    for i in 0..3 {
        let shard = Shard::new(i, 3).expect("a shard");
        let part = seeds_of_campaign(shard, 4);
        // Program j of shard I/3 is the program of seed 1000 + I + 3 j.
        assert_eq!(part, (0..4).map(|j| 1000 + i + 3 * j).collect::<BTreeSet<u64>>(), "shard {shard}");
        assert!(part.is_disjoint(&union), "shard {shard} overlaps an earlier one");
        union.extend(part);
    }
    assert_eq!(union, whole, "the shards together run the unsharded campaign");
}
