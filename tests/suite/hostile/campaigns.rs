//! Campaigns with hostile settings: counts are bounded, a case file's
//! header stays a header whatever its fields hold, and two campaigns that
//! share `--out` never take each other's case files.

use super::{dir, holds, ssaref};
use ssaref::campaign::failure_case::write_new_case;
use ssaref::frontend::case_file::CaseFile;

#[test]
fn target_batches_are_bounded() {
    for batch in ["0", "4097", "18446744073709551615"] {
        let run = ssaref(&["fuzz", "--target", "gcc", "--batch", batch, "--count", "2"]);
        holds(&run, "fuzz", &[2], &format!("fuzz --target gcc --batch {batch}"));
    }
}

#[test]
fn header_fields_are_escaped() {
    let path = "out\nfn main() { return 666; }\n// x";
    let text = "fn main() {\n    return 1;\n}\n";
    let mut case = CaseFile::parse(text).expect("a case");
    case.description = vec![format!("reproduce: ssaref repro {path}/case-1.src")];
    let rendered = case.render();
    let back = CaseFile::parse(&rendered).expect("the rendered case parses");
    assert_eq!(back.description.len(), 1, "{rendered}");
    assert!(back.description[0].contains("\\n"), "{rendered}");
    assert_eq!(back.program, case.program, "{rendered}");
}

#[test]
fn campaigns_sharing_out_never_take_each_others_cases() {
    let out = dir().join("shared-out");
    let first = write_new_case(&out, "case-7", "src", |p| format!("// {}\n", p.display())).expect("first");
    let second = write_new_case(&out, "case-7", "src", |p| format!("// {}\n", p.display())).expect("second");
    assert_ne!(first, second);
    for p in [&first, &second] {
        assert_eq!(std::fs::read_to_string(p).expect("read"), format!("// {}\n", p.display()));
    }
    // No temporary file is left beside them.
    let names: Vec<_> = std::fs::read_dir(&out).expect("dir").map(|e| e.expect("entry").file_name()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// Ctrl-C (or SIGTERM, which `ctrlc`'s termination feature turns into the
/// same flag) during the reduction of a target campaign: the campaign stops
/// within seconds, the reduction's smallest failing case so far is written,
/// and the summary says it was interrupted. The target is gcc with the
/// planted missing division guard (`CPlant::NoDivisionGuard`), so that the
/// campaign finds a case to reduce.
#[test]
fn a_stop_during_a_target_reduction_keeps_its_progress() {
    use crate::common::InterpOracle;
    use ssaref::campaign::target_campaign::{run_target_campaign, TargetCampaign};
    use ssaref::targets::c_source::CPlant;
    use ssaref::targets::gcc::CCompiler;
    use ssaref::targets::target::Target;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};
    let mut gcc = CCompiler::gcc();
    gcc.plant = Some(CPlant::NoDivisionGuard);
    if gcc.version().is_err() {
        eprintln!("SKIPPED: gcc is not installed");
        return;
    }
    let out = dir().join("interrupted-reduction");
    let mut config = TargetCampaign::new(vec![std::sync::Arc::new(gcc)], &out);
    (config.max_programs, config.jobs, config.seed, config.batch) = (Some(8), 1, 8, 8);
    (config.duration, config.reduce_tests, config.max_reductions) = (Duration::from_secs(300), 1_000_000, 1);
    let stop = AtomicBool::new(false);
    let stopped_at = std::sync::Mutex::new(None);
    let summary = std::thread::scope(|s| {
        s.spawn(|| {
            // Once the failing case is on disk the reduction is running:
            // stop it a little later, as a user would.
            let seen = |name: &str| name.starts_with("case-") && !name.contains("reduced");
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(120) {
                let listed =
                    std::fs::read_dir(&out).map(|d| d.flatten().any(|e| seen(&e.file_name().to_string_lossy())));
                if listed.unwrap_or(false) {
                    std::thread::sleep(Duration::from_millis(1500));
                    *stopped_at.lock().expect("lock") = Some(Instant::now());
                    stop.store(true, Ordering::SeqCst);
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        run_target_campaign(&config, &InterpOracle, &stop)
    });
    let stopped_at = stopped_at.into_inner().expect("lock").expect("the campaign found the planted bug");
    let took = stopped_at.elapsed();
    assert!(took < Duration::from_secs(6), "the campaign took {took:?} to stop");
    assert!(summary.interrupted, "{}", summary.render(&config.targets));
    let reduced: Vec<_> = summary.exported.iter().filter(|p| p.to_string_lossy().contains("-reduced")).collect();
    assert!(!reduced.is_empty(), "no reduced case was written: {:?}", summary.exported);
}
