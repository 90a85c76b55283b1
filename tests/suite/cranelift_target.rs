//! The Cranelift target (feature `cranelift`, `src/targets/cranelift/`):
//! every case of `tests/cases/` and every program of `tests/corpus/`, with
//! calls or without, run
//! through Cranelift at every option set agrees with the oracle, both as
//! source (`cranelift-frontend` builds the SSA) and as ssaref's SSA (blocks
//! with parameters); the `.ssa` cases too. A planted adapter bug is found
//! and reduced by a short campaign of `ssaref::campaign::target_campaign`,
//! and exported as `.clif`.

use crate::common::{all_case_files, all_corpus_files, parse_case, ssa_case_files};
use ssaref::construction::braun::BraunOptions;
use ssaref::frontend::ssa_case_file::SsaCaseFile;
use ssaref::outcome::{End, Outcome};
use ssaref::targets::cranelift::{self, CraneliftOptions};

const FUEL: u64 = 1_000_000;

/// The fuel a Cranelift run gets: it counts cycle-starting block entries,
/// which are fewer than the oracle's steps.
fn target_fuel() -> u64 {
    ssaref::differential::later_stage_fuel(FUEL)
}

fn check(failures: &mut Vec<String>, what: &str, expected: &Outcome, got: Result<Outcome, cranelift::CraneliftError>) {
    // An inconclusive oracle run (deeper than the call-depth bound) has
    // nothing to compare with.
    if matches!(expected.end, End::OutOfFuel | End::CallDepthExceeded) {
        return;
    }
    match got {
        Ok(o) if &o == expected => {}
        Ok(o) => failures.push(format!("{what}: expected\n{}got\n{}", expected.render_full(), o.render_full())),
        Err(e) => failures.push(format!("{what}: {e}")),
    }
}

/// Source programs with their arguments, from `tests/cases/` and
/// `tests/corpus/`, those with calls included.
fn source_programs() -> Vec<(String, ssaref::ast::Program, Vec<i64>)> {
    let mut v = Vec::new();
    for path in all_case_files().into_iter().chain(all_corpus_files()) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let case = parse_case(&text).unwrap_or_else(|e| panic!("{name}:{e}"));
        let program =
            ssaref::frontend::parser::parse_program(&text).unwrap_or_else(|d| panic!("{}", d.with_file(&name)));
        v.push((name, program, case.args));
    }
    v
}

#[test]
fn cases_and_corpus_agree_with_the_oracle_at_every_option_set() {
    let sets = CraneliftOptions::every();
    assert_eq!(sets.len(), 12);
    let mut failures = Vec::new();
    let mut runs = 0;
    for (name, program, args) in source_programs() {
        let expected = ssaref_interp::run_ast(&program, &args, FUEL).expect("the oracle runs every case");
        let ssa = ssaref::construction::braun::construct_program(&program, &BraunOptions::all_on());
        for options in &sets {
            let what = format!("{name} [source, {}]", options.describe());
            check(&mut failures, &what, &expected, cranelift::run_source(&program, options, &args, target_fuel()));
            let what = format!("{name} [ssa, {}]", options.describe());
            check(&mut failures, &what, &expected, cranelift::run_ssa(&ssa, options, &args, target_fuel()));
            runs += 2;
        }
    }
    for path in ssa_case_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let case = SsaCaseFile::parse(&text).unwrap_or_else(|e| panic!("{}", e.with_file(&name)));
        let args = case.args();
        let expected = ssaref_interp::run_ssa(&case.module, &args, FUEL).expect("the oracle runs every case");
        for options in &sets {
            let what = format!("{name} [{}]", options.describe());
            check(&mut failures, &what, &expected, cranelift::run_ssa(&case.module, options, &args, target_fuel()));
            runs += 1;
        }
    }
    assert!(failures.is_empty(), "{} of {runs} runs disagree:\n{}", failures.len(), failures.join("\n"));
    assert!(runs > 1500, "only {runs} runs");
}

/// The disagreements the cases find with `plant` at the first option set:
/// a check that the comparison above can fail.
fn disagreements_with_plant(plant: cranelift::Plant) -> usize {
    let options = CraneliftOptions { plant: Some(plant), ..CraneliftOptions::every()[0] };
    let mut failures = Vec::new();
    for (name, program, args) in source_programs() {
        let expected = ssaref_interp::run_ast(&program, &args, FUEL).unwrap();
        let ssa = ssaref::construction::braun::construct_program(&program, &BraunOptions::all_on());
        check(&mut failures, &name, &expected, cranelift::run_source(&program, &options, &args, target_fuel()));
        check(&mut failures, &name, &expected, cranelift::run_ssa(&ssa, &options, &args, target_fuel()));
    }
    failures.len()
}

#[test]
fn the_cases_catch_a_missing_remainder_guard_and_swapped_block_or_call_arguments() {
    assert!(disagreements_with_plant(cranelift::Plant::NoRemainderGuard) >= 2, "rem_min_minus_one_trap passes");
    assert!(disagreements_with_plant(cranelift::Plant::SwapBlockArgs) >= 1);
    // calls_argument_swap.src, at least, at source and SSA.
    assert!(disagreements_with_plant(cranelift::Plant::SwapCallArgs) >= 2);
}

#[test]
fn the_version_in_the_export_is_the_one_in_cargo_lock() {
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock")).unwrap();
    let entry =
        format!("name = \"cranelift-codegen\"\nversion = \"{}\"", cranelift::cranelift_export::CRANELIFT_VERSION);
    assert!(lock.contains(&entry), "Cargo.lock has another cranelift-codegen than {entry}");
}

/// A short campaign of the `cranelift` target with `plant`: it must fail,
/// reduce the case (to fewer lines) and export it as `.clif` with a run
/// line or the trap. One batch of eight programs from `seed` on one
/// thread, chosen so that the first failure, the one reduced, is a wrong
/// outcome (a looping candidate costs its fuel, not much more).
fn planted_bug_is_found_and_reduced(plant: cranelift::Plant, tag: &str, seed: u64) {
    use ssaref::campaign::target_campaign::{run_target_campaign, TargetCampaign};
    let dir = std::env::temp_dir().join(format!("ssaref-planted-cranelift-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let target: std::sync::Arc<dyn ssaref::targets::target::Target> =
        std::sync::Arc::new(cranelift::cranelift_target::Cranelift::planted(plant));
    let mut config = TargetCampaign::new(vec![target], &dir);
    config.max_programs = Some(8);
    config.duration = std::time::Duration::from_secs(120);
    config.jobs = 1;
    config.seed = seed;
    config.batch = 8;
    config.reduce_tests = 1_000;
    config.max_reductions = 1;
    let summary =
        run_target_campaign(&config, &crate::common::InterpOracle, &std::sync::atomic::AtomicBool::new(false));
    let exported: Vec<std::path::PathBuf> = summary.exported.clone();
    let clif: Vec<String> = exported
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "clif"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let lines = |p: &std::path::Path| std::fs::read_to_string(p).map_or(0, |t| t.lines().count());
    let reduced: Vec<&std::path::PathBuf> =
        exported.iter().filter(|p| p.to_string_lossy().contains("-reduced.s")).collect();
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
    assert!(!reduced.is_empty(), "no reduced case: {exported:?}");
    assert!(shrunk, "a reduced case is not smaller than the case it comes from: {exported:?}");
    assert!(!clif.is_empty(), "no .clif export: {exported:?}");
    for text in &clif {
        assert!(text.contains("test run\n") && text.contains("target x86_64"), "{text}");
        assert!(text.contains("function %main(") && text.contains("function %run("), "{text}");
        assert!(text.contains("; run: %run(") || text.contains("must trap"), "{text}");
    }
}

#[test]
fn a_planted_block_argument_swap_is_found_and_reduced() {
    planted_bug_is_found_and_reduced(cranelift::Plant::SwapBlockArgs, "swap", 8);
}
