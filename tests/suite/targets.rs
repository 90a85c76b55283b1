//! Production compilers under the oracle (`ssaref::targets`): every case
//! of `tests/cases/` and every corpus program on a sample of the option
//! sets of every installed LLVM version (`llvm-N`), `gcc` and `clang`
//! (when it is installed); a planted adapter bug per target found and
//! reduced by a short campaign; exported cases that compile and run as
//! they say.
//!
//! The sample keeps the suite's time independent of the number of option
//! sets and versions: per target, [`SAMPLED_SETS`] option sets spread over
//! the target's list from an offset that depends on the target's name,
//! and each case on one of them, chosen by a hash of the case's name. A
//! program with calls runs on every sampled set, so that each target's
//! call lowering (arguments, frames, callee-saved registers, recursion)
//! meets the oracle at every optimization level of the sample.
//! Campaigns (`fuzz --target`) run every option set;
//! `SSAREF_ALL_OPTION_SETS=1` runs every case on every option set here.
//!
//! The targets need `llc-14`, `llc-19`, `gcc` and `clang-19`, which
//! `.ci/setup` installs. When one is missing, a test prints why and
//! passes, unless `SSAREF_REQUIRE_TARGETS=1` (which `.ci/test` sets): then
//! it fails (clang stays optional).

use crate::common::{all_case_files, all_corpus_files, ssa_case_files, InterpOracle};
use ssaref::campaign::target_campaign::{run_target_campaign, TargetCampaign};
use ssaref::frontend::ssa_case_file::SsaCaseFile;
use ssaref::targets::c_source::CPlant;
use ssaref::targets::gcc::CCompiler;
use ssaref::targets::llvm::{installed_versions, Llvm};
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
/// `tests/corpus/`, programs with calls included, with its name.
fn all_cases() -> Vec<(String, TargetCase)> {
    let mut out = Vec::new();
    for path in all_case_files().into_iter().chain(all_corpus_files()) {
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

/// The number of option sets of a target that the suite runs.
const SAMPLED_SETS: usize = 8;

/// FNV-1a, a stable hash of a name.
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// The batches of the suite: per option set, the indices of the cases it
/// runs. Every case on every set under `SSAREF_ALL_OPTION_SETS=1`; else
/// the sample of the module documentation, where the cases whose
/// `everywhere` flag is set (those with calls) run on every sampled set.
fn batches(target: &str, sets: &[String], names: &[String], everywhere: &[bool]) -> Vec<(String, Vec<usize>)> {
    if std::env::var("SSAREF_ALL_OPTION_SETS").is_ok_and(|v| v == "1") {
        return sets.iter().map(|o| (o.clone(), (0..names.len()).collect())).collect();
    }
    let n = sets.len();
    let k = SAMPLED_SETS.min(n);
    let offset = name_hash(target) as usize % n;
    let mut out: Vec<(String, Vec<usize>)> =
        (0..k).map(|j| (sets[(offset + j * n / k) % n].clone(), Vec::new())).collect();
    for (i, name) in names.iter().enumerate() {
        if everywhere.get(i).copied().unwrap_or(false) {
            out.iter_mut().for_each(|(_, cases)| cases.push(i));
            continue;
        }
        let file = name.rsplit('/').next().unwrap_or(name);
        out[(name_hash(file) % k as u64) as usize].1.push(i);
    }
    out.retain(|(_, cases)| !cases.is_empty());
    out
}

/// Runs the cases on the option sets of `target` that [`batches`] picks,
/// on two threads, and returns the disagreements. Asserts that nine in
/// ten runs agree, and that every option set in the sample ran a program
/// with calls that agrees.
fn disagreements(target: Arc<dyn Target>) -> Vec<String> {
    let all = all_cases();
    let names: Vec<String> = all.iter().map(|(n, _)| n.clone()).collect();
    let cases: Vec<TargetCase> = all.into_iter().map(|(_, c)| c).collect();
    let with_calls: Vec<bool> = cases.iter().map(TargetCase::has_calls).collect();
    let sets = target.option_sets();
    let batches = batches(target.name(), &sets, &names, &with_calls);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    let ran = std::sync::atomic::AtomicUsize::new(0);
    let sets_with_calls = std::sync::Mutex::new(std::collections::BTreeSet::new());
    let ran_calls = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((o, indices)) = batches.get(i) else { break };
                let batch: Vec<TargetCase> = indices.iter().map(|&c| cases[c].clone()).collect();
                let verdicts = run_against_oracle(target.as_ref(), &batch, o, &InterpOracle, FUEL, &Limits::default());
                for (&c, v) in indices.iter().zip(verdicts) {
                    match v {
                        TargetVerdict::Agree => {
                            ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            if with_calls[c] {
                                ran_calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                sets_with_calls.lock().unwrap().insert(o.clone());
                            }
                        }
                        TargetVerdict::Skipped => {}
                        v => failures.lock().unwrap().push(format!(
                            "{} `{o}` {}: {}",
                            target.name(),
                            names[c],
                            v.describe()
                        )),
                    }
                }
            });
        }
    });
    let ran = ran.into_inner();
    let runs: usize = batches.iter().map(|(_, c)| c.len()).sum();
    assert!(runs >= cases.len() && ran * 10 >= runs * 9, "only {ran} of {runs} runs agreed on {}", target.name());
    let sets_with_calls = sets_with_calls.into_inner().unwrap();
    assert_eq!(
        sets_with_calls.len(),
        batches.len(),
        "option sets with no call program that agrees on {}",
        target.name()
    );
    eprintln!(
        "{}: {ran} of {runs} runs agree, {} of them with calls ({} of {} option sets)",
        target.name(),
        ran_calls.into_inner(),
        batches.len(),
        sets.len()
    );
    failures.into_inner().unwrap()
}

#[test]
fn sampled_batches_run_each_case_once_on_spread_option_sets() {
    let sets: Vec<String> = Llvm::version(19).option_sets();
    let names: Vec<String> = (0..100).map(|i| format!("tests/cases/case{i}.src")).collect();
    let b = batches("llvm-19", &sets, &names, &[]);
    let mut seen: Vec<usize> = b.iter().flat_map(|(_, c)| c.iter().copied()).collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..100).collect::<Vec<_>>(), "each case runs exactly once");
    assert_eq!(b.len(), SAMPLED_SETS, "every sampled set gets cases");
    let levels: std::collections::BTreeSet<&str> = b.iter().map(|(o, _)| &o[..2]).collect();
    assert!(levels.len() >= 3, "the sample spans optimization levels: {levels:?}");
    // A case keeps its option set when other cases come and go.
    let fewer = batches("llvm-19", &sets, &names[..50], &[]);
    let set_of = |b: &[(String, Vec<usize>)], i: usize| b.iter().find(|(_, c)| c.contains(&i)).map(|(o, _)| o.clone());
    assert!((0..50).all(|i| set_of(&b, i) == set_of(&fewer, i)));
    // A case flagged as having calls runs on every sampled set, the others
    // where they ran before.
    let flags: Vec<bool> = (0..100).map(|i| i % 10 == 3).collect();
    let with = batches("llvm-19", &sets, &names, &flags);
    assert_eq!(with.len(), SAMPLED_SETS);
    for (i, &has_calls) in flags.iter().enumerate() {
        let on: Vec<&String> = with.iter().filter(|(_, c)| c.contains(&i)).map(|(o, _)| o).collect();
        if has_calls {
            assert_eq!(on.len(), SAMPLED_SETS, "case {i} has calls and runs on every sampled set");
        } else {
            assert_eq!(on, [&set_of(&b, i).unwrap()], "case {i} has no call and keeps its one set");
        }
    }
}

/// The LLVM versions the suite runs: those installed, and under
/// `SSAREF_REQUIRE_TARGETS=1` the two `.ci/setup` installs.
fn llvm_versions() -> Vec<u32> {
    let mut v = installed_versions();
    if std::env::var("SSAREF_REQUIRE_TARGETS").is_ok_and(|r| r == "1") {
        v.extend([14, 19]);
    }
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn cases_and_corpus_agree_on_every_installed_llvm_at_sampled_option_sets() {
    let versions = llvm_versions();
    if versions.is_empty() {
        available(&Llvm::newest());
        return;
    }
    let mut failures = Vec::new();
    for v in versions {
        let llvm: Arc<dyn Target> = Arc::new(Llvm::version(v));
        if available(llvm.as_ref()) {
            failures.extend(disagreements(llvm));
        }
    }
    assert!(failures.is_empty(), "{} disagreement(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn cases_and_corpus_agree_on_gcc_and_clang_at_sampled_option_sets() {
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

/// A short campaign with calls (`fuzz --target T --calls`) on GCC and on
/// the newest LLVM: nine in ten of its programs, source and IR-level, have
/// calls, and
/// every one the oracle runs to the end agrees on the target.
#[test]
fn a_campaign_with_calls_runs_calls_on_gcc_and_llvm() {
    for target in [Arc::new(CCompiler::gcc()) as Arc<dyn Target>, Arc::new(Llvm::newest())] {
        if !available(target.as_ref()) {
            continue;
        }
        let dir = std::env::temp_dir().join(format!("ssaref-calls-{}-{}", target.name(), std::process::id()));
        let mut config = TargetCampaign::new(vec![target.clone()], &dir);
        (config.calls, config.max_programs, config.batch, config.jobs, config.seed) = (true, Some(32), 16, 1, 20261129);
        config.duration = std::time::Duration::from_secs(120);
        let summary = run_target_campaign(&config, &InterpOracle, &AtomicBool::new(false));
        let _ = std::fs::remove_dir_all(&dir);
        let rendered = summary.render(&config.targets);
        let totals = &summary.per_target[target.name()];
        assert!(summary.ir_programs > 0 && summary.with_calls * 10 >= summary.programs * 9, "{rendered}");
        assert!(summary.failures.is_empty() && totals.agree + summary.skipped == summary.programs, "{rendered}");
    }
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
    let mut llvm = Llvm::default();
    llvm.plant = Some(LlvmPlant::SwapPhiOperands);
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

/// Starts the harness of one C program `body` (the function `ssaref_p0`)
/// with a CPU-time limit of `seconds`, stops it with SIGSTOP for `paused`
/// once the program has started, then lets it go on; what the harness
/// printed.
fn run_paused_harness(body: &str, seconds: u32, paused: std::time::Duration) -> String {
    use ssaref::targets::native::{compile, harness, Scratch, C_PRELUDE};
    let scratch = Scratch::new("cpu-limit-test").expect("scratch folder");
    let program = scratch.write("p.c", &format!("{C_PRELUDE}{body}")).expect("write the program");
    let main = scratch.write("h.c", &harness(&[(0, vec![])])).expect("write the harness");
    let binary = scratch.path("h");
    let args: Vec<String> =
        ["-O0", "-o", &binary.display().to_string(), &program.display().to_string(), &main.display().to_string()]
            .iter()
            .map(|s| s.to_string())
            .collect();
    compile("gcc", &args, "apt install gcc").expect("gcc compiles the harness");
    let out_path = scratch.path("out.txt");
    let out = std::fs::File::create(&out_path).expect("output file");
    let mut child = std::process::Command::new(&binary)
        .args(["0", &seconds.to_string()])
        .stdout(out)
        .spawn()
        .expect("start the harness");
    let start = std::time::Instant::now();
    while !std::fs::read_to_string(&out_path).unwrap_or_default().contains("c 0") {
        assert!(start.elapsed() < std::time::Duration::from_secs(60), "the harness never started its program");
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    let signal = |s: &str| {
        let ok = std::process::Command::new("kill").args([s, &child.id().to_string()]).status().expect("kill");
        assert!(ok.success(), "kill {s}");
    };
    signal("-STOP");
    std::thread::sleep(paused);
    signal("-CONT");
    child.wait().expect("the harness ends");
    std::fs::read_to_string(&out_path).expect("read the output")
}

/// The native harness limits a program's CPU time, not its wall-clock
/// time: a correct program that the machine does not run for a while (here
/// stopped for twice its limit, as a loaded machine would starve it) still
/// ends and is compared, while a program that loops for ever still hits
/// the limit. With `alarm` (wall-clock) the first run prints `x`.
#[test]
fn the_native_time_limit_is_cpu_time_so_a_starved_program_is_no_false_alarm() {
    if !available(&CCompiler::gcc()) {
        return;
    }
    let slow = "int64_t ssaref_p0(void) { volatile int64_t s = 0; \
                for (int64_t i = 0; i < 30000000; i++) s += i; return 7; }\n";
    let out = run_paused_harness(slow, 2, std::time::Duration::from_secs(4));
    assert!(out.contains("r 7") && !out.contains('x'), "a starved program was cut short: {out:?}");
    let forever = "int64_t ssaref_p0(void) { volatile int64_t s = 0; for (;;) s += 1; return s; }\n";
    let out = run_paused_harness(forever, 1, std::time::Duration::from_millis(10));
    assert!(out.contains('x') && !out.contains("r "), "a looping program was not stopped: {out:?}");
}

/// A harness that outlives its wall-clock backstop is a limit of the
/// harness: the verdict is inconclusive, never a divergence.
#[test]
fn the_wall_clock_backstop_is_inconclusive() {
    use ssaref::outcome::{End, Outcome};
    let expected = Outcome { trace: vec![], end: End::Return(1), mem: vec![] };
    let verdict = ssaref::targets::target::judge(expected.clone(), Err(TargetError::WallClock { seconds: 160 }));
    assert!(matches!(verdict, TargetVerdict::Inconclusive(_)) && !verdict.is_failure(), "{verdict:?}");
    let verdict = ssaref::targets::target::judge(expected, Err(TargetError::Timeout { seconds: 5 }));
    assert!(verdict.is_failure(), "{verdict:?}");
}
