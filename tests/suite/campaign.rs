//! `ssaref fuzz`'s driver (`campaign::run_campaign`): a failing case is
//! written to disk before it is reported, also when a pass panics, and the
//! campaign goes on.

use crate::common::InterpOracle;
use ssaref::campaign::driver::{run_campaign, CampaignConfig};
use ssaref::campaign::shard::Shard;
use ssaref::generate::source::{GenConfig, TestCase};
use ssaref::oracle::Oracle;
use ssaref::outcome::Outcome;
use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;

/// The real oracle, except that running allocated code panics: a stand-in
/// for a pass that panics (the pipeline cannot tell the two apart).
struct PanicsOnMir;

impl Oracle for PanicsOnMir {
    fn run_source(
        &self,
        p: &ssaref::ast::Program,
        args: &[i64],
        fuel: u64,
    ) -> Result<Outcome, ssaref::oracle::OracleError> {
        InterpOracle.run_source(p, args, fuel)
    }
    fn run_ssa(&self, m: &ssaref::ir::Module, args: &[i64], fuel: u64) -> Result<Outcome, ssaref::oracle::OracleError> {
        InterpOracle.run_ssa(m, args, fuel)
    }
    fn run_mir(&self, _: &ssaref::mir::MModule, _: &[i64], _: u64) -> Result<Outcome, ssaref::oracle::OracleError> {
        panic!("planted panic")
    }
}

fn config(out: &std::path::Path, out_of_ssa: bool) -> CampaignConfig {
    CampaignConfig::new(out)
        .with_max_programs(4)
        .with_jobs(2)
        .with_seed(77)
        .with_regs(vec![2, 4])
        .with_fuel(100_000)
        .with_routes(true, if out_of_ssa { ssaref::backend::OutOfSsa::all() } else { Vec::new() }, false)
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
    // ssa-ra, out-of-ssa and the x86 stages of both ran.
    assert!(summary.stages > 4 * 20, "{}", summary.render(2));
    assert!(!dir.exists(), "no failing case, no directory");
}

/// An oracle that rejects every source program: each program of a campaign
/// is then a written case named by its seed (`case-SEED.src`), at the cost
/// of generating it, so the seeds a campaign ran can be read off the disk.
struct RejectsEverySource;

impl Oracle for RejectsEverySource {
    fn run_source(&self, _: &ssaref::ast::Program, _: &[i64], _: u64) -> Result<Outcome, ssaref::oracle::OracleError> {
        Err(ssaref::oracle::OracleError::Other("planted source error".into()))
    }
    fn run_ssa(&self, _: &ssaref::ir::Module, _: &[i64], _: u64) -> Result<Outcome, ssaref::oracle::OracleError> {
        Err(ssaref::oracle::OracleError::Other("not reached".into()))
    }
    fn run_mir(&self, _: &ssaref::mir::MModule, _: &[i64], _: u64) -> Result<Outcome, ssaref::oracle::OracleError> {
        Err(ssaref::oracle::OracleError::Other("not reached".into()))
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
        // A share of the default campaign's programs have calls.
        let calls = ssaref::campaign::ssa_share::is_call_program(seed, ssaref::campaign::ssa_share::DEFAULT_CALL_SHARE);
        let gen = GenConfig { calls, ..GenConfig::default() };
        assert_eq!(file.program, TestCase::from_seed(seed, &gen).program, "{name}");
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

/// The real oracle, except that allocated code whose `main` has a `mul`
/// prints one value more: a planted miscompile that IR-level programs meet.
struct PlantedMul;

impl Oracle for PlantedMul {
    fn run_source(
        &self,
        p: &ssaref::ast::Program,
        args: &[i64],
        fuel: u64,
    ) -> Result<Outcome, ssaref::oracle::OracleError> {
        InterpOracle.run_source(p, args, fuel)
    }
    fn run_ssa(&self, m: &ssaref::ir::Module, args: &[i64], fuel: u64) -> Result<Outcome, ssaref::oracle::OracleError> {
        InterpOracle.run_ssa(m, args, fuel)
    }
    fn run_mir(
        &self,
        m: &ssaref::mir::MModule,
        args: &[i64],
        fuel: u64,
    ) -> Result<Outcome, ssaref::oracle::OracleError> {
        let mut o = InterpOracle.run_mir(m, args, fuel)?;
        let muls = m.main().into_iter().flat_map(|f| f.blocks.iter().flat_map(|(_, b)| b.insts.iter()));
        if muls.into_iter().any(|i| matches!(i.inst, ssaref::mir::MInst::Binary { op: ssaref::ast::BinOp::Mul, .. })) {
            o.trace.push(424242);
        }
        Ok(o)
    }
}

/// `--ir-share`: the IR-level programs of a campaign are the seeds'
/// (`ir_campaign::is_ir_program`), are counted, and a failing one is
/// written as a `.ssa` case file that replays (the same failure from the
/// file) and reduces; a share of 0 runs none.
#[test]
fn ir_level_programs_mix_in_and_their_failures_are_ssa_cases_that_replay() {
    use ssaref::campaign::ssa_share::is_ir_program;
    use ssaref::frontend::ssa_case_file::SsaCaseFile;
    use ssaref::reduce::source::{Failure, ReduceConfig};
    let dir = std::env::temp_dir().join(format!("ssaref-campaign-ir-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = config(&dir, false).with_max_programs(12).with_ir_share(0.5).with_seed(300);
    let summary = run_campaign(&config, &PlantedMul, &AtomicBool::new(false));
    let expected_ir = (300..312).filter(|&s| is_ir_program(s, 0.5)).count() as u64;
    assert!(expected_ir > 0 && expected_ir < 12, "{expected_ir}");
    assert_eq!(summary.ir_programs, expected_ir);
    assert!(summary.render(2).contains(&format!("{expected_ir} of the programs were IR-level")));
    let ssa_cases: Vec<_> = summary.failures.iter().filter(|p| p.extension().is_some_and(|e| e == "ssa")).collect();
    assert!(!ssa_cases.is_empty(), "{}", summary.render(2));
    for path in ssa_cases {
        let seed: u64 = path
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.strip_prefix("case-"))
            .and_then(|s| s.parse().ok())
            .expect("case-SEED.ssa");
        assert!(is_ir_program(seed, 0.5));
        let file = SsaCaseFile::parse(&std::fs::read_to_string(path).expect("on disk")).expect("a valid .ssa case");
        let calls = ssaref::campaign::ssa_share::is_call_program(seed, ssaref::campaign::ssa_share::DEFAULT_CALL_SHARE);
        let gen = ssaref::generate::ssa::IrGenConfig { calls, ..Default::default() };
        let case = ssaref::generate::ssa::IrCase::from_seed(seed, &gen);
        assert_eq!(file.module, case.module, "the file holds the program of its seed");
        assert_eq!(file.header.regs, Some(vec![2, 4]));
        let regs = file.header.regs.clone().unwrap_or_default();
        // The campaign's configuration of this program, as recorded.
        let (_, recorded) = file.header.config.clone().expect("a config: line");
        let program = ssaref::campaign::rotation::ProgramConfig::parse(&recorded, &regs).expect("a valid config line");
        assert_eq!(program, config.program(seed).0, "the recorded configuration is the seed's");
        let diff = program.diff_config(100_000);
        let replay = ssaref::differential::differential_ssa_catching(&file.module, &file.args(), &PlantedMul, &diff);
        assert!(Failure::of(&replay).is_some(), "{path:?} replays as a failure");
        let reduced = ssaref::reduce::ssa::reduce_ssa(
            &ssaref::generate::ssa::IrCase { module: file.module.clone(), args: file.args(), origin: "t".into() },
            &regs,
            &PlantedMul,
            &ReduceConfig { max_tests: 400, fuel: 100_000 },
        )
        .expect("the case fails");
        assert!(reduced.stats.statements_after < reduced.stats.statements_before);
    }
    let none = config.with_max_programs(6).with_ir_share(0.0);
    assert_eq!(run_campaign(&none, &InterpOracle, &AtomicBool::new(false)).ir_programs, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The default campaign in miniature: rotating configurations, a quarter of
/// the programs IR-level, all three back ends with x86. The first tier of
/// the mutation-testing recipe (docs/campaigns.md) runs it with
/// `SSAREF_GATE_PROGRAMS=200`; `cargo test` runs 24 programs.
#[test]
fn a_short_rotating_campaign_over_every_back_end_finds_nothing() {
    let count: u64 = std::env::var("SSAREF_GATE_PROGRAMS").ok().and_then(|s| s.parse().ok()).unwrap_or(24);
    let dir = std::env::temp_dir().join(format!("ssaref-campaign-gate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = CampaignConfig::new(&dir)
        .with_max_programs(count)
        .with_jobs(2)
        .with_seed(20261124)
        .with_fuel(200_000)
        .with_ir_share(0.25)
        .with_routes(true, ssaref::backend::OutOfSsa::all(), true);
    let summary = run_campaign(&config, &InterpOracle, &AtomicBool::new(false));
    let report = summary.render(2);
    assert_eq!(summary.programs, count, "{report}");
    assert!(summary.failures.is_empty(), "{report}");
    assert!(summary.ir_programs > 0 && summary.ir_programs < count, "{report}");
    // Every program ran K = 2 (and 3, and four more), the class tests
    // rotated, and about 100 stages per program compared (x86 included).
    assert_eq!(summary.coverage.regs.get(&2), Some(&count), "{report}");
    assert!(summary.coverage.class_tests.len() >= 4.min(count as usize), "{report}");
    assert!(summary.stages > count * 60, "{report}");
}
