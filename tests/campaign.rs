//! `ssaref fuzz`'s driver (`campaign::run_campaign`): a failing case is
//! written to disk before it is reported, also when a pass panics, and the
//! campaign goes on.

mod common;

use common::InterpOracle;
use ssaref::oracle::Oracle;
use ssaref::outcome::Outcome;
use ssaref::testing::campaign::{run_campaign, CampaignConfig};
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
    CampaignConfig {
        duration: std::time::Duration::from_secs(600),
        max_programs: Some(4),
        jobs: 2,
        seed: 77,
        regs: vec![2, 4],
        fuel: 100_000,
        out_dir: out.to_path_buf(),
        progress: false,
        route1: true,
        route2: if route2 { ssaref::pipeline::Route2::all() } else { Vec::new() },
        route3: false,
        backends: Vec::new(),
    }
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
