//! Production compilers under the oracle (`ssaref::targets`): every case
//! of `tests/cases/` and every corpus program on every option set of the
//! `llvm` and `gcc` targets (and `clang` when it is installed), one batch
//! per option set; a planted adapter bug per target found and reduced by
//! a short campaign; exported cases that compile and run as they say.
//!
//! The targets need `llc-14` and `gcc`, which `.ci/setup` installs. When
//! one is missing, a test prints why and passes, unless
//! `SSAREF_REQUIRE_TARGETS=1` (which `.ci/test` sets): then it fails.

use crate::common::{case_files, corpus_files, ssa_case_files, InterpOracle};
use ssaref::campaign::target_campaign::{run_target_campaign, TargetCampaign};
use ssaref::frontend::ssa_case_file::SsaCaseFile;
use ssaref::targets::c_source::CPlant;
use ssaref::targets::gcc::CCompiler;
use ssaref::targets::llvm::Llvm;
use ssaref::targets::llvm_ir::LlvmPlant;
use ssaref::targets::target::{run_against_oracle, Limits, Target, TargetCase, TargetError, TargetVerdict};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

const FUEL: u64 = 1_000_000;

/// Whether `target` can run here; prints why not (and fails under
/// `SSAREF_REQUIRE_TARGETS=1`).
fn available(target: &dyn Target) -> bool {
    match target.version() {
        Ok(_) => true,
        Err(e) => {
            assert!(
                std::env::var("SSAREF_REQUIRE_TARGETS").map_or(true, |v| v != "1"),
                "target {} is required but cannot run: {e}",
                target.name()
            );
            eprintln!("SKIPPED: target {} cannot run here: {e}", target.name());
            false
        }
    }
}

/// Every case of `tests/cases/` (`.src` and `.ssa`) and of
/// `tests/corpus/`, with its name.
fn all_cases() -> Vec<(String, TargetCase)> {
    let mut out = Vec::new();
    for path in case_files().into_iter().chain(corpus_files()) {
        let text = std::fs::read_to_string(&path).expect("readable case");
        let file = ssaref::frontend::case_file::CaseFile::parse(&text).expect("a valid case file");
        out.push((path.display().to_string(), TargetCase::source(file.program, file.args)));
    }
    for path in ssa_case_files() {
        let text = std::fs::read_to_string(&path).expect("readable case");
        let file = SsaCaseFile::parse(&text).expect("a valid .ssa case");
        let args = file.args();
        out.push((path.display().to_string(), TargetCase::ssa(file.module, args)));
    }
    out
}

/// Runs every case on every option set of `target`, on two threads, and
/// returns the disagreements.
fn disagreements(target: Arc<dyn Target>) -> Vec<String> {
    let cases = all_cases();
    let cases: Vec<TargetCase> = cases.iter().map(|(_, c)| c.clone()).collect();
    let names: Vec<String> = all_cases().into_iter().map(|(n, _)| n).collect();
    let sets = target.option_sets();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    let ran = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(o) = sets.get(i) else { break };
                let verdicts = run_against_oracle(target.as_ref(), &cases, o, &InterpOracle, FUEL, &Limits::default());
                for (name, v) in names.iter().zip(verdicts) {
                    match v {
                        TargetVerdict::Agree => {
                            ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        // Programs with calls are refused until the targets
                        // translate calls.
                        TargetVerdict::Skipped | TargetVerdict::NotRun(TargetError::CallsNotSupported) => {}
                        v => failures.lock().unwrap().push(format!("{} `{o}` {name}: {}", target.name(), v.describe())),
                    }
                }
            });
        }
    });
    let ran = ran.into_inner();
    assert!(ran >= sets.len() * 80, "only {ran} runs agreed on {}", target.name());
    eprintln!("{}: {ran} runs agree ({} option sets)", target.name(), sets.len());
    failures.into_inner().unwrap()
}

#[test]
fn cases_and_corpus_agree_on_llvm_at_every_option_set() {
    let llvm: Arc<dyn Target> = Arc::new(Llvm::default());
    if !available(llvm.as_ref()) {
        return;
    }
    let failures = disagreements(llvm);
    assert!(failures.is_empty(), "{} disagreement(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn cases_and_corpus_agree_on_gcc_and_clang_at_every_option_set() {
    let mut failures = Vec::new();
    let gcc: Arc<dyn Target> = Arc::new(CCompiler::gcc());
    if available(gcc.as_ref()) {
        failures.extend(disagreements(gcc));
    }
    let clang: Arc<dyn Target> = Arc::new(CCompiler::clang());
    // Clang is optional: not installed, it is skipped even in CI.
    if clang.version().is_ok() {
        failures.extend(disagreements(clang));
    } else {
        eprintln!("SKIPPED: clang is not installed (optional)");
    }
    assert!(failures.is_empty(), "{} disagreement(s):\n{}", failures.len(), failures.join("\n"));
}

/// A short campaign on `target`, which has a planted bug: it must fail,
/// and the reduced case must be smaller and exported. One batch of eight
/// programs from `seed`, on one thread: the seeds are chosen so that the
/// first failure, the one reduced, is a wrong outcome and not a timeout
/// (a planted bug that makes a loop run forever costs the time limit on
/// every candidate of the reduction that loops).
fn planted_bug_is_found_and_reduced(target: Arc<dyn Target>, tag: &str, seed: u64, export_suffix: &str) {
    let dir = std::env::temp_dir().join(format!("ssaref-planted-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut config = TargetCampaign::new(vec![target], &dir);
    config.max_programs = Some(8);
    config.duration = std::time::Duration::from_secs(120);
    config.jobs = 1;
    config.seed = seed;
    config.batch = 8;
    config.reduce_tests = 120;
    config.max_reductions = 1;
    let summary = run_target_campaign(&config, &InterpOracle, &AtomicBool::new(false));
    let lines = |p: &std::path::Path| std::fs::read_to_string(p).map_or(0, |t| t.lines().count());
    let reduced: Vec<&std::path::PathBuf> =
        summary.exported.iter().filter(|p| p.to_string_lossy().contains("-reduced.s")).collect();
    let shrunk = reduced.iter().all(|r| {
        let original = r.to_string_lossy().replace("-reduced.", ".");
        lines(r) < lines(std::path::Path::new(&original))
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        !summary.failures.is_empty(),
        "the planted bug ({tag}) was not found:\n{}",
        summary.render(&config.targets)
    );
    let exported: Vec<_> = summary.exported.iter().map(|p| p.display().to_string()).collect();
    assert!(
        exported.iter().any(|p| p.ends_with(export_suffix)),
        "no reduced case was exported as {export_suffix}: {exported:?}"
    );
    assert!(!reduced.is_empty(), "no reduced case file: {exported:?}");
    assert!(shrunk, "a reduced case is not smaller than the case it comes from: {exported:?}");
}

#[test]
fn a_planted_phi_swap_in_the_llvm_adapter_is_found_and_reduced() {
    let llvm = Llvm { plant: Some(LlvmPlant::SwapPhiOperands) };
    if !available(&llvm) {
        return;
    }
    planted_bug_is_found_and_reduced(Arc::new(llvm), "llvm", 8, ".ll");
}

#[test]
fn a_planted_missing_division_guard_in_the_c_adapter_is_found_and_reduced() {
    let mut gcc = CCompiler::gcc();
    gcc.plant = Some(CPlant::NoDivisionGuard);
    if !available(&gcc) {
        return;
    }
    planted_bug_is_found_and_reduced(Arc::new(gcc), "gcc", 8, ".c");
}
