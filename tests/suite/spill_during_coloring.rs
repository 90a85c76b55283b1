//! ssa-ra's spill decisions during the coloring walk
//! (`ssa_ra/spill_during_coloring.rs`, Pereira §4.5-4.6):
//!
//! - on generated programs (`QUICKCHECK_TESTS`, default 40) at K = 2, 3, 4,
//!   6 and 8, after the passes ssa-ra runs before spilling, the output is
//!   SSA and CSSA, its register demand is at most K as the coloring checker
//!   recounts it (`checkers/coloring_check.rs`, not the pass's own
//!   `block_points`), and ssa-ra with this strategy passes every checker
//!   of `regalloc::allocate_function` (assignment, frugal slots, allocation
//!   checker, no scratch register, chordal optimum), the allocation checker
//!   once more on the module here, and runs to the source's outcome; so
//!   does ssa-ra with the separate spilling pass (`spill.rs`);
//! - on a hand-made function, the §4.6 deduction of the spilled parameters
//!   from a phi result's weight changes which value is spilled, and the
//!   decisions are asserted with and without it.

use crate::common::passes::allocate_module;
use crate::common::InterpOracle;
use ssaref::analysis::critical_edges::split_critical_edges;
use ssaref::analysis::cssa::check_cssa;
use ssaref::analysis::verifier::verify_function;
use ssaref::checkers::{alloc_checker, coloring_check};
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::generate::source::{GenConfig, TestCase};
use ssaref::ir::{Block, Function, Value};
use ssaref::oracle::Oracle;
use ssaref::outcome::End;
use ssaref::ssa_ra::one_argument_phis::lower_one_argument_phis;
use ssaref::ssa_ra::phi_lifting::phi_lifting;
use ssaref::ssa_ra::phi_mem_coalesce::phi_mem_coalesce;
use ssaref::ssa_ra::regalloc::RegallocOptions;
use ssaref::ssa_ra::spill_during_coloring::{
    spill_during_coloring, spill_during_coloring_with_decisions, SpillDuringColoringOptions,
};
use ssaref::ssa_text::{parse_module, print_function};

const FUEL: u64 = 1_000_000;
const KS: [usize; 5] = [2, 3, 4, 6, 8];

fn count() -> u64 {
    std::env::var("QUICKCHECK_TESTS").ok().and_then(|s| s.parse().ok()).unwrap_or(40)
}

/// The passes ssa-ra runs before spilling (`regalloc::allocate_function`).
fn before_spilling(f: &Function) -> Function {
    let mut g = f.clone();
    lower_one_argument_phis(&mut g);
    split_critical_edges(&mut g);
    let lifted = phi_lifting(&mut g);
    phi_mem_coalesce(&mut g, &lifted);
    g
}

#[test]
fn output_keeps_demand_within_k_and_passes_every_checker_on_generated_programs() {
    let mut spills = 0;
    let mut runs = 0;
    for seed in 0..count() {
        let tc = TestCase::from_seed(seed, &GenConfig::default());
        let ssa = construct_program(&tc.program, &BraunOptions::all_on());
        let expected = InterpOracle.run_source(&tc.program, &tc.args, FUEL).expect("the source runs");
        for k in KS {
            for f in &ssa.functions {
                let mut g = before_spilling(f);
                let result = spill_during_coloring(&mut g, &SpillDuringColoringOptions::with_k(k))
                    .unwrap_or_else(|e| panic!("seed {seed}, K = {k}: {e}"));
                verify_function(&g).unwrap_or_else(|e| panic!("seed {seed}, K = {k}: {e}\n{}", print_function(&g)));
                check_cssa(&g).unwrap_or_else(|e| panic!("seed {seed}, K = {k}: {e}\n{}", print_function(&g)));
                let demand = coloring_check::max_register_demand(&g, &result.spilled, k);
                assert!(demand <= k, "seed {seed}, K = {k}: demand {demand}\n{}", print_function(&g));
                assert_eq!(demand, result.max_demand, "seed {seed}, K = {k}: the pass and the checker count alike");
                spills += result.spilled.len();
            }
            // Both strategies (the separate pass is not the default, so it
            // is kept under test here).
            for during in [true, false] {
                let opts = RegallocOptions { spill_during_coloring: during, ..RegallocOptions::with_k(k) };
                let (mir, _) = allocate_module(&ssa, &opts)
                    .unwrap_or_else(|e| panic!("seed {seed}, K = {k}, during coloring {during}: {e}"));
                alloc_checker::check_module(&mir).unwrap_or_else(|e| panic!("seed {seed}, K = {k}: {e}"));
                if expected.end != End::OutOfFuel {
                    let got = InterpOracle.run_mir(&mir, &tc.args, ssaref::differential::later_stage_fuel(FUEL));
                    assert_eq!(got.as_ref(), Ok(&expected), "seed {seed}, K = {k}, during coloring {during}");
                    runs += 1;
                }
            }
        }
    }
    assert!(spills > 100, "only {spills} values spilled: the programs do not exercise spilling");
    assert!(runs > 0);
}

/// A diamond into `b3`, CSSA without critical edges. With K = 3:
/// - in `b0`, the point of `v3` has demand 4 and `v0` (the phi argument
///   from `b1`, live through to the end of `b1`) is the lightest value live
///   through it: Fig. 6 gives it (2 + 2) / 11;
/// - in `b3`, the point of `v11` has demand 4; live through it are `v8`,
///   the phi result (2 + 2 for its parameters, 2 for its use, over 5
///   points: 1.2), `v9` (2 for its definition and 2 for each of two uses,
///   over 6 points: 1.0) and `v10` (4 over 2: 2.0). Without the deduction
///   `v9` goes; with it, `v8`'s parameter `v0` is already spilled, its term
///   2 is deducted and `v8` weighs 4 / 5 = 0.8, so `v8` goes, and its
///   parameter and it share a slot (no load on the edge from `b1`).
const DEDUCTION_CASE: &str = "\
fn main() {
b0:
    v0 = const 7
    v1 = const 1
    v2 = const 2
    v3 = const 3
    v4 = add v1, v2
    v5 = add v4, v3
    out v5
    v6 = const 1
    br v6, b1, b2
b1(b0):
    jump b3
b2(b0):
    v7 = const 8
    jump b3
b3(b1, b2):
    v8 = phi v0, v7
    v9 = const 5
    v10 = const 1
    v11 = const 2
    v12 = add v10, v11
    v13 = add v12, v8
    v14 = add v13, v9
    v15 = add v14, v9
    ret v15
}
";

#[test]
fn the_section_4_6_deduction_changes_which_value_is_spilled() {
    let m = parse_module(DEDUCTION_CASE).expect("parses");
    let f = &m.functions[0];
    verify_function(f).expect("SSA");
    check_cssa(f).expect("CSSA");
    let (b0, b3) = (Block(0), Block(3));
    let opts = SpillDuringColoringOptions {
        load_lowering: false,
        recycle_reloads: false,
        ..SpillDuringColoringOptions::with_k(3)
    };

    let mut with = f.clone();
    let (r, decisions) = spill_during_coloring_with_decisions(&mut with, &opts).expect("spills");
    assert_eq!(decisions, vec![(Value(0), b0), (Value(8), b3)], "with the deduction the phi result goes");
    assert!(r.max_demand <= 3);

    let mut without = f.clone();
    let opts = SpillDuringColoringOptions { phi_weight_deduction: false, ..opts };
    let (r, decisions) = spill_during_coloring_with_decisions(&mut without, &opts).expect("spills");
    assert_eq!(decisions, vec![(Value(0), b0), (Value(9), b3)], "without it the lighter v9 goes");
    assert!(r.max_demand <= 3);

    // With the deduction, the phi's column from b1 is memory to memory in
    // one slot: one reload fewer than without.
    let reloads = |g: &Function| {
        g.blocks.values().flat_map(|d| &d.insts).filter(|i| matches!(i.op, ssaref::ir::Op::Copy(_))).count()
    };
    assert_eq!(reloads(&with), 1, "v8 reloaded once, at its use:\n{}", print_function(&with));
    assert_eq!(reloads(&without), 2, "v9 reloaded at each of its two uses:\n{}", print_function(&without));
}

#[test]
fn ssa_ra_runs_the_deduction_case_to_its_outcome_with_either_strategy() {
    let m = parse_module(DEDUCTION_CASE).expect("parses");
    let expected = ssaref_interp::run_ssa(&m, &[], FUEL).expect("runs");
    assert_eq!(expected.render(), "6\nreturn 20\n", "worked out by hand: v5 = 3 + 3, v15 = 3 + 7 + 5 + 5");
    for during in [true, false] {
        for k in KS {
            let opts = RegallocOptions { spill_during_coloring: during, ..RegallocOptions::with_k(k) };
            let (mir, _) = allocate_module(&m, &opts).unwrap_or_else(|e| panic!("K = {k}: {e}"));
            let got = InterpOracle.run_mir(&mir, &[], FUEL).expect("runs");
            assert_eq!(got, expected, "K = {k}, during coloring: {during}");
        }
    }
}

/// K below the machine model's two registers is refused with a message,
/// by both strategies, not a panic.
#[test]
fn a_k_below_two_is_an_error_with_a_message() {
    let tc = TestCase::from_seed(1, &GenConfig::default());
    let ssa = construct_program(&tc.program, &BraunOptions::all_on());
    let mut g = before_spilling(&ssa.functions[0]);
    let e = spill_during_coloring(&mut g, &SpillDuringColoringOptions::with_k(1)).expect_err("K = 1");
    assert_eq!(e.to_string(), "K = 1 is below the machine model's 2 registers");
    let e = allocate_module(&ssa, &RegallocOptions::with_k(1)).expect_err("K = 1");
    assert!(e.to_string().contains("K = 1"), "{e}");
}
