//! Property suites over random programs of every shape (`src/testing/gen/`), with
//! quickcheck: a failing program is shrunk (`src/generate/source/shrink.rs`) and printed
//! as `.src` text with its arguments.
//!
//! - Interpreting the AST and the SSA form of every construction variant of
//!   `ssaref::generate::source::construction_variants` (phi and marker, with and without
//!   Algorithm 5, each on-the-fly optimization alone and left out) gives the
//!   same outcome, and every checker of the construction passes (SSA
//!   verifier, pruned, no trivial phi, minimal, phi count ≤ Cytron's):
//!   `differential::differential`.
//! - Printing then parsing the SSA form gives it back.
//! - Printing then parsing the program gives it back.
//!
//! Each property runs [`DEFAULT_TESTS`] cases, or `QUICKCHECK_TESTS` when
//! it is set (for instance `QUICKCHECK_TESTS=100000 cargo test --release
//! --test suite properties` for a long run); `QUICKCHECK_GENERATOR_SIZE` scales
//! the programs (100 is the default size).

use crate::common::InterpOracle;
use pretty_assertions::StrComparison;
use quickcheck::{QuickCheck, TestResult};
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::differential::{differential, Verdict};
use ssaref::frontend::ast_print::print_program;
use ssaref::frontend::parser::parse_program;
use ssaref::generate::source::{construction_variants, TestCase};
use ssaref::ssa_text::{parse_module, print_module};

/// Cases per property when `QUICKCHECK_TESTS` is not set: enough to reach
/// the generator's rarer shapes, few enough that this file stays a small
/// part of `cargo test`. Campaigns (`ssaref fuzz`) run many more.
const DEFAULT_TESTS: u64 = 2000;

/// A runner with [`DEFAULT_TESTS`] cases, or `QUICKCHECK_TESTS`.
fn runner() -> QuickCheck {
    let tests = std::env::var("QUICKCHECK_TESTS").ok().and_then(|n| n.parse().ok()).unwrap_or(DEFAULT_TESTS);
    QuickCheck::new().tests(tests).max_tests(tests.saturating_mul(10))
}

/// The interpreter's default fuel (`ssaref_interp::DEFAULT_FUEL`).
const FUEL: u64 = ssaref_interp::DEFAULT_FUEL;

/// The SSA text of the variant a stage or pass name refers to
/// (`ssa[phi+scc]`, `braun[phi+scc]`), if any.
fn ssa_of(tc: &TestCase, name: &str) -> String {
    let described = |o: &BraunOptions| name.contains(&format!("[{}]", o.describe()));
    match construction_variants().into_iter().find(described) {
        Some(opts) => format!("--- SSA of {}\n{}", name, print_module(&construct_program(&tc.program, &opts))),
        None => String::new(),
    }
}

/// Property (a): every stage agrees with the source and every checker passes.
fn stages_agree(tc: TestCase) -> TestResult {
    let verdict = differential(&tc.program, &tc.args, &InterpOracle, &construction_variants(), FUEL);
    match verdict {
        Verdict::Agree { .. } | Verdict::Inconclusive | Verdict::Limit { .. } => TestResult::passed(),
        Verdict::Diverge { stage, expected, got } => {
            let got_text = match &got {
                Ok(o) => o.render_full(),
                Err(e) => format!("error: {e}\n"),
            };
            let source = expected.render_full();
            TestResult::error(format!(
                "stage {stage} diverges from the source (left: source, right: {stage})\n{}\n{}",
                StrComparison::new(&source, &got_text),
                ssa_of(&tc, &stage)
            ))
        }
        Verdict::CheckFailed(e) => TestResult::error(format!("{e}\n{}", ssa_of(&tc, &e.pass))),
        Verdict::SourceError(e) => TestResult::error(format!("the oracle cannot run the source: {e}")),
        Verdict::Panic(m) => TestResult::error(format!("ssaref panicked: {m}")),
    }
}

/// Property (b): the SSA text form round-trips, for variants with and
/// without on-the-fly optimizations and Algorithm 5.
fn ir_text_round_trips(tc: TestCase) -> TestResult {
    let plain = BraunOptions::plain();
    let all = BraunOptions::all_on();
    let variants =
        [plain, all, BraunOptions { marker: true, ..all }, BraunOptions { remove_redundant_sccs: false, ..plain }];
    for opts in variants {
        let mut module = construct_program(&tc.program, &opts);
        let text = print_module(&module);
        let parsed = match parse_module(&text) {
            Ok(m) => m,
            Err(e) => {
                return TestResult::error(format!("{}: the printed SSA does not parse: {e}\n{text}", opts.describe()))
            }
        };
        module.functions.iter_mut().for_each(|f| f.trim_value_count());
        if parsed != module {
            return TestResult::error(format!(
                "{}: print then parse changes the SSA (left: printed, right: reprinted)\n{}\n{:?}\n{:?}",
                opts.describe(),
                StrComparison::new(&text, &print_module(&parsed)),
                module,
                parsed
            ));
        }
    }
    TestResult::passed()
}

/// Property (c): the source text round-trips.
fn source_text_round_trips(tc: TestCase) -> TestResult {
    let text = print_program(&tc.program);
    match parse_program(&text) {
        Ok(p) if p == tc.program => TestResult::passed(),
        Ok(p) => TestResult::error(format!(
            "print then parse changes the program (left: printed, right: reprinted)\n{}",
            StrComparison::new(&text, &print_program(&p))
        )),
        Err(d) => TestResult::error(format!("the printed program does not parse: {d}")),
    }
}

#[test]
fn every_construction_variant_agrees_with_the_interpreter_and_passes_the_checkers() {
    runner().quickcheck(stages_agree as fn(TestCase) -> TestResult);
}

#[test]
fn printing_then_parsing_the_ssa_gives_it_back() {
    runner().quickcheck(ir_text_round_trips as fn(TestCase) -> TestResult);
}

#[test]
fn printing_then_parsing_the_program_gives_it_back() {
    runner().quickcheck(source_text_round_trips as fn(TestCase) -> TestResult);
}

/// A program of the call generator (`GenConfig::calls`), from a seed and
/// quickcheck's size; it shrinks like any test case.
#[derive(Clone, Debug)]
struct CallCase(TestCase);

impl quickcheck::Arbitrary for CallCase {
    fn arbitrary(g: &mut quickcheck::Gen) -> Self {
        let seed = u64::arbitrary(g);
        let mut config = ssaref::generate::source::GenConfig { calls: true, ..Default::default() };
        config.size = (config.size * g.size() / 100).max(4);
        let mut tc = TestCase::from_seed(seed, &config);
        tc.origin = format!("seed {seed}, --calls, size {}", config.size);
        CallCase(tc)
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        Box::new(ssaref::generate::source::shrink::candidates(&self.0).map(CallCase))
    }
}

/// Runs of the call property that ended by fuel or call depth, of all runs.
static CALL_RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static CALL_INCONCLUSIVE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Property (d): a program with calls prints and parses back, its SSA form
/// verifies, and its source and SSA stages agree.
fn calls_parse_verify_and_agree(case: CallCase) -> TestResult {
    use std::sync::atomic::Ordering;
    let tc = case.0;
    if !tc.program.has_calls() {
        return TestResult::error("the call generator made a program without calls");
    }
    let reparsed = source_text_round_trips(tc.clone());
    if reparsed.is_error() {
        return reparsed;
    }
    let module = construct_program(&tc.program, &BraunOptions::all_on());
    if let Err(e) = ssaref::analysis::verifier::verify_module(&module) {
        return TestResult::error(format!("the SSA form does not verify: {e:?}"));
    }
    CALL_RUNS.fetch_add(1, Ordering::Relaxed);
    match differential(&tc.program, &tc.args, &InterpOracle, &construction_variants(), FUEL) {
        Verdict::Agree { .. } | Verdict::Limit { .. } => TestResult::passed(),
        Verdict::Inconclusive => {
            CALL_INCONCLUSIVE.fetch_add(1, Ordering::Relaxed);
            TestResult::passed()
        }
        // Runs again, to say how it fails.
        _ => stages_agree(tc),
    }
}

#[test]
fn programs_with_calls_parse_verify_agree_and_seldom_end_by_fuel_or_depth() {
    use std::sync::atomic::Ordering;
    // Fewer cases than the other properties: each program has several
    // functions and runs 16 constructions.
    let tests = std::env::var("QUICKCHECK_TESTS").ok().and_then(|n| n.parse().ok()).unwrap_or(500);
    QuickCheck::new()
        .tests(tests)
        .max_tests(tests.saturating_mul(10))
        .quickcheck(calls_parse_verify_and_agree as fn(CallCase) -> TestResult);
    let (runs, inconclusive) = (CALL_RUNS.load(Ordering::Relaxed), CALL_INCONCLUSIVE.load(Ordering::Relaxed));
    eprintln!("programs with calls: {inconclusive} of {runs} runs end by fuel or call depth");
    assert!(runs > 0 && inconclusive * 100 <= runs * 3, "{inconclusive} of {runs} runs are inconclusive");
}
