//! The programs with calls among `tests/cases/` and `tests/corpus/`, and
//! the check every back end's calls test makes on them: each agrees with
//! its expected outcome at every stage the test names.

use super::{all_case_files, all_corpus_files, parse_case, InterpOracle};
use ssaref::differential::{differential_full, DiffConfig, Verdict};
use ssaref::frontend::parser::parse_program;

/// The programs with calls among the cases and the corpus: name, program,
/// arguments, expected outcome.
pub fn call_programs() -> Vec<(String, ssaref::ast::Program, Vec<i64>, String)> {
    all_case_files()
        .into_iter()
        .chain(all_corpus_files())
        .filter_map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            let case = parse_case(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let program = parse_program(&case.body).unwrap_or_else(|e| panic!("{name}: {e}"));
            program.has_calls().then_some((name, program, case.args, case.expect))
        })
        .collect()
}

/// Runs every program with calls through the differential check under
/// `config` and asserts that each agrees with its expected outcome, with
/// an agreeing result for every stage named in `stages`, and that at
/// least `at_least` programs were compared. The one case whose reference
/// run passes the call-depth bound is inconclusive, as it must be.
pub fn assert_every_call_program_agrees(config: &DiffConfig, stages: &[String], at_least: usize) {
    let (mut failures, mut checked) = (Vec::new(), 0);
    for (name, program, args, expect) in call_programs() {
        match differential_full(&program, &args, &InterpOracle, config) {
            Verdict::Agree { outcome, stages: results } => {
                if outcome.render_full() != expect {
                    failures.push(format!("{name}: the source's outcome is not the expected one"));
                }
                for stage in stages {
                    if !results.iter().any(|s| &s.stage == stage && s.outcome.is_ok()) {
                        failures.push(format!("{name}: no agreeing stage {stage}"));
                    }
                }
                checked += 1;
            }
            Verdict::Inconclusive if name == "calls_depth_exceeded.src" => {}
            other => failures.push(format!("{name}: {other}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= at_least, "only {checked} programs with calls checked");
}
