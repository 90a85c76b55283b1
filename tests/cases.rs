//! Replays every case of `tests/cases/` (format: README.md, "Test cases").
//!
//! For each case: the header's expected outcome equals the AST
//! interpreter's; then every stage (Cytron et al.'s SSA, and Braun et al.'s
//! SSA for all 128 combinations of construction options) gives the same
//! outcome, with every checker of the construction passing (SSA validity,
//! pruned, no trivial phi, minimal, phi count against Cytron's).
//!
//! `SSAREF_BLESS=1 cargo test --test cases` rewrites the expected outcomes
//! from the interpreter; review the diff before committing it.

mod common;

use common::{bless_case, case_files, parse_case, InterpOracle};
use pretty_assertions::assert_eq;
use ssaref::construction::braun::BraunOptions;
use ssaref::pipeline::{differential, Verdict};

const FUEL: u64 = 1_000_000;

#[test]
fn corpus_has_enough_cases() {
    let n = case_files().len();
    assert!(n >= 36, "tests/cases holds {n} cases; the foundation asks for the paper's examples and 30 more");
}

#[test]
fn every_case_matches_its_expected_outcome_at_every_stage() {
    let bless = std::env::var("SSAREF_BLESS").is_ok_and(|v| v == "1");
    let variants = BraunOptions::every_combination();
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in case_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).expect("readable case");
        let case = match parse_case(&text) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{name}:{e}"));
                continue;
            }
        };
        let program = match ssaref::frontend::parser::parse_program(&text) {
            Ok(p) => p,
            Err(d) => {
                failures.push(d.with_file(&name));
                continue;
            }
        };
        let source = ssaref_interp::run_ast(&program, &case.args, FUEL).expect("the oracle runs every case");
        if bless {
            let new_text = bless_case(&text, &source);
            if new_text != text {
                std::fs::write(&path, new_text).expect("write blessed case");
                eprintln!("blessed {name}");
            }
        } else {
            assert_eq!(case.expect, source.render_full(), "{name}: expected outcome (header) vs the AST interpreter");
        }
        match differential(&program, &case.args, &InterpOracle, &variants, FUEL) {
            Verdict::Agree { stages, .. } => {
                assert_eq!(stages.len(), 2 + variants.len(), "{name}: every stage ran");
                checked += 1;
            }
            other => failures.push(format!("{name}: {other:?}")),
        }
    }
    assert!(failures.is_empty(), "failing cases:\n{}", failures.join("\n"));
    eprintln!("{checked} cases agree at every stage (source, cytron, 128 Braun variants)");
}

#[test]
fn the_case_reader_rejects_a_header_without_expectations() {
    let err = parse_case("// nothing expected\nfn main() {}\n").unwrap_err();
    assert!(err.contains("expect"), "{err}");
}

#[test]
fn bless_rewrites_only_the_expect_block() {
    let text = "// what\n// args: 1\n// expect:\n// 5\n// return 0\nfn main(a) { out a; }\n";
    let outcome = ssaref::outcome::Outcome {
        trace: vec![1],
        end: ssaref::outcome::End::Return(0),
        mem: vec![0; ssaref::ast::MEM_WORDS],
    };
    let blessed = bless_case(text, &outcome);
    assert_eq!(blessed, "// what\n// args: 1\n// expect:\n// 1\n// return 0\nfn main(a) { out a; }\n");
}
