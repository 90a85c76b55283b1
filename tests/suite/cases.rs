//! Replays every case of `tests/cases/` (format: docs/testing.md, "Test cases").
//!
//! For each case: the header's expected outcome equals the AST
//! interpreter's; then every stage (Cytron et al.'s SSA, and Braun et al.'s
//! SSA for all 128 combinations of construction options) gives the same
//! outcome, with every checker of the construction passing (SSA validity,
//! pruned, no trivial phi, minimal, phi count against Cytron's).
//!
//! The `.ssa` cases (programs in the SSA text form, same header) have no
//! AST: their expected outcome is the SSA interpreter's, and every back end
//! (all three back ends, every stage down to x86-64) must give it at every K
//! from 2 to 15 (`differential::differential_ssa`).
//!
//! `SSAREF_BLESS=1 cargo test --test suite cases` rewrites the expected outcomes
//! from the interpreter; review the diff before committing it.

use crate::common::{all_case_files as case_files, bless_case, parse_case, ssa_case_files, InterpOracle};
use pretty_assertions::assert_eq;
use ssaref::construction::braun::BraunOptions;
use ssaref::differential::{differential, differential_ssa, DiffConfig, Verdict};
use ssaref::frontend::ssa_case_file::SsaCaseFile;

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
        if source.end.is_inconclusive() {
            match inconclusive_at_every_stage(&program, &case.args, &source) {
                Ok(()) => checked += 1,
                Err(e) => failures.push(format!("{name}: {e}")),
            }
            continue;
        }
        match differential(&program, &case.args, &InterpOracle, &variants, FUEL) {
            Verdict::Agree { stages, .. } => {
                assert_eq!(stages.len(), 2 + variants.len(), "{name}: every stage ran");
                checked += 1;
            }
            other => failures.push(format!("{name}: {other}")),
        }
    }
    assert!(failures.is_empty(), "failing cases:\n{}", failures.join("\n"));
    eprintln!("{checked} cases agree at every stage (source, cytron, 128 Braun variants)");
}

/// A case whose source run is inconclusive (the call depth exceeded) has
/// nothing for `differential` to compare, so each SSA stage is run here
/// and must end the same way: Cytron et al.'s SSA and every Braun et al.
/// variant, each checked by the construction's checkers.
fn inconclusive_at_every_stage(
    program: &ssaref::ast::Program,
    args: &[i64],
    source: &ssaref::outcome::Outcome,
) -> Result<(), String> {
    let variants = BraunOptions::every_combination();
    let flags = ssaref::pass_manager::flags::Flags::checked();
    let (cytron, built) = ssaref::pipeline::build_ssa_variants(program, &variants, flags).map_err(|e| e.to_string())?;
    for (stage, module) in std::iter::once(("cytron".to_string(), cytron))
        .chain(variants.iter().zip(built).map(|(o, m)| (format!("ssa[{}]", o.describe()), m)))
    {
        let got = ssaref_interp::run_ssa(&module, args, FUEL).map_err(|e| format!("{stage}: {e}"))?;
        if got != *source {
            return Err(format!("{stage} ends with {}, the source with {}", got.end, source.end));
        }
    }
    Ok(())
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

/// Every K the back ends support.
const EVERY_K: [usize; 14] = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/// Runs a `.ssa` program through every back end at every K; returns the
/// number of stages that agreed, or the failing verdict.
fn every_back_end(case: &SsaCaseFile, args: &[i64]) -> Result<usize, String> {
    let config = DiffConfig::standard(&EVERY_K, FUEL).with_regalloc2();
    match differential_ssa(&case.module, args, &InterpOracle, &config) {
        Verdict::Agree { stages, .. } => Ok(stages.len()),
        other => Err(format!("{other}")),
    }
}

#[test]
fn every_ssa_case_matches_its_expected_outcome_on_every_back_end() {
    let bless = std::env::var("SSAREF_BLESS").is_ok_and(|v| v == "1");
    let files = ssa_case_files();
    assert!(!files.is_empty(), "tests/cases has .ssa cases");
    let mut failures = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).expect("readable case");
        let header = parse_case(&text).unwrap_or_else(|e| panic!("{name}:{e}"));
        let case = SsaCaseFile::parse(&text).unwrap_or_else(|e| panic!("{}", e.with_file(&name)));
        let args = case.args();
        let ssa = ssaref_interp::run_ssa(&case.module, &args, FUEL).expect("the oracle runs every case");
        if bless {
            let new_text = bless_case(&text, &ssa);
            if new_text != text {
                std::fs::write(&path, new_text).expect("write blessed case");
                eprintln!("blessed {name}");
            }
        } else {
            assert_eq!(header.expect, ssa.render_full(), "{name}: expected outcome (header) vs the SSA interpreter");
        }
        match every_back_end(&case, &args) {
            Ok(n) => eprintln!("{name}: {n} stages agree"),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "failing .ssa cases:\n{}", failures.join("\n"));
}

/// Boissinot et al.'s Fig. 1 on ssa-ra, out-of-ssa (all 28 configurations)
/// and regalloc2
/// at every K, with arguments that take each path: through b1 (u flows into
/// the phi), and through b2 with u != 0 (the branch-use edge, v into the
/// phi) and u = 0 (the branch must still read u, not the copied v).
#[test]
fn boissinot_fig1_branch_use_on_every_route_at_every_k() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/boissinot_fig1_branch_use.ssa");
    let case = SsaCaseFile::parse(&std::fs::read_to_string(path).expect("the case exists")).expect("valid");
    let expected = [(vec![0, -1], "0\n7\nreturn 7\n"), (vec![0, 5], "13\nreturn 13\n"), (vec![1, 5], "6\nreturn 6\n")];
    for (args, outcome) in expected {
        let ssa = ssaref_interp::run_ssa(&case.module, &args, FUEL).expect("runs");
        assert_eq!(ssa.render(), outcome, "args {args:?}: worked out by hand");
        let stages = every_back_end(&case, &args).unwrap_or_else(|e| panic!("args {args:?}: {e}"));
        // ssa-input; ssa-ra: 2 option sets x 14 K x (SSA after each pass,
        // alloc, x86); out-of-ssa: 14 destructions + 28 x 14 x 2; regalloc2: 14 x 2.
        assert!(stages > 1 + 28 * 14 * 2 + 14 * 2, "args {args:?}: only {stages} stages ran");
    }
}

#[test]
fn failing_verdicts_print_outcomes_as_text_not_all_of_mem() {
    use ssaref::outcome::{End, Outcome};
    let mut mem = vec![0; ssaref::ast::MEM_WORDS];
    mem[3] = 5;
    let expected = Outcome { trace: vec![1, 2], end: End::Return(0), mem: mem.clone() };
    let got = Outcome { trace: vec![1], end: End::Return(7), mem };
    let text = Verdict::Diverge { stage: "x86-ssa-ra[k=2,opt]".into(), expected, got: Ok(got) }.to_string();
    assert_eq!(
        text,
        "stage x86-ssa-ra[k=2,opt] diverges\n  expected:\n    1\n    2\n    return 0\n    mem[3] = 5\n  got:\n    1\n    return 7\n    mem[3] = 5\n"
    );
}

/// The forest parents of out-of-ssa's congruence classes stay right when a
/// merge brings in a member above two members defined at one point that an
/// earlier merge ordered the other way (the case's header): every
/// out-of-ssa configuration at K = 2 with the self-checks on, which compare
/// the parents with their recomputation after every merge.
#[test]
fn forest_parents_stay_right_across_members_defined_at_one_point() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/out_of_ssa_forest_parent_tie.ssa");
    let case = SsaCaseFile::parse(&std::fs::read_to_string(path).expect("the case exists")).expect("valid");
    let args = case.args();
    let config = DiffConfig::standard(&[2], FUEL);
    let before = ssaref::pass_manager::self_checks::invocations();
    let verdict = ssaref::pass_manager::self_checks::with_flags(ssaref::pass_manager::flags::Flags::checked(), || {
        differential_ssa(&case.module, &args, &InterpOracle, &config)
    });
    assert!(matches!(verdict, Verdict::Agree { .. }), "{verdict}");
    assert!(ssaref::pass_manager::self_checks::invocations() > before, "the self-checks ran");
}
