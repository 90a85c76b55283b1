//! Property suite of ssa-ra (issue "SSA-based register allocation"): for
//! generated programs of every shape (quickcheck, shrinking on failure), and
//! for every K from 2 to 15, the allocated code and the SSA after each
//! allocation pass run to the source's outcome, with and without the §6
//! optimizations, and every checker of `regalloc::allocate_function` passes.
//! `DiffConfig::standard` also runs out-of-ssa (every coalescing variant ×
//! liveness method × conventional allocator, then x86 under Unicorn) for
//! every K, so the same programs cover Boissinot et al.'s route.
//! `QUICKCHECK_TESTS` sets the count (default 24 here: each program is
//! allocated 28 times by ssa-ra and 392 times by out-of-ssa);
//! `QUICKCHECK_GENERATOR_SIZE` scales the programs.

use crate::common::InterpOracle;
use quickcheck::{QuickCheck, TestResult};
use ssaref::differential::{differential_full, DiffConfig, Verdict};
use ssaref::generate::source::{describe_failure, Shape, TestCase};

fn tests() -> u64 {
    std::env::var("QUICKCHECK_TESTS").ok().and_then(|v| v.parse().ok()).unwrap_or(24)
}

fn config() -> DiffConfig {
    let regs: Vec<usize> = (2..=15).collect();
    let mut c = DiffConfig::standard(&regs, 1_000_000);
    // The construction variants have their own suite (tests/suite/properties.rs).
    c.variants.truncate(1);
    c
}

fn allocation_agrees(tc: TestCase) -> TestResult {
    match differential_full(&tc.program, &tc.args, &InterpOracle, &config()) {
        Verdict::Agree { .. } => TestResult::passed(),
        Verdict::Inconclusive => TestResult::discard(),
        other => TestResult::error(describe_failure(&tc, &other)),
    }
}

#[test]
fn allocated_code_agrees_with_the_source_for_every_k() {
    QuickCheck::new().tests(tests()).max_tests(tests() * 4).quickcheck(allocation_agrees as fn(TestCase) -> TestResult);
}

/// High register pressure on purpose: phi operands end up in memory.
#[test]
fn high_pressure_programs_spill_and_agree() {
    let mut spilled_phi_classes = 0;
    for seed in 0..tests() {
        let tc = TestCase::from_seed(seed, &Shape::Pressure.config());
        let verdict = differential_full(&tc.program, &tc.args, &InterpOracle, &config());
        assert!(verdict.is_ok(), "{}", describe_failure(&tc, &verdict));
        let ssa = ssaref::construction::braun::construct_program(
            &tc.program,
            &ssaref::construction::braun::BraunOptions::all_on(),
        );
        let (mir, _) =
            crate::common::passes::allocate_module(&ssa, &ssaref::ssa_ra::regalloc::RegallocOptions::with_k(2))
                .expect("allocates");
        spilled_phi_classes += mir
            .functions
            .iter()
            .flat_map(|f| f.blocks.values())
            .flat_map(|b| &b.phis)
            .filter(|p| matches!(p.loc, ssaref::mir::Loc::Slot(_)))
            .count();
    }
    assert!(spilled_phi_classes > 0, "the pressure shape must put phi results in memory at K = 2");
}
