//! regalloc2: regalloc2 as a back end (`src/regalloc2/`).
//!
//! - Every case of `tests/cases/` agrees with its expected outcome at every
//!   stage of regalloc2 (regalloc2's allocated code in the oracle, its x86-64
//!   lowering through the machine-code checker and Unicorn), for K in
//!   {2, 3, 4, 6, 8, 15}, with regalloc2's checker and ssaref's allocation
//!   checker both accepting: `every_case_agrees_on_regalloc2`.
//! - So do generated programs (`SSAREF_REGALLOC2_PROGRAMS`, default 1000):
//!   `generated_programs_agree_on_regalloc2`.
//! - ssaref's allocation checker rejects regalloc2's allocations once they
//!   are corrupted (two registers exchanged, one reload or one spill
//!   dropped), and never accepts a corruption that computes a wrong
//!   outcome: `corrupted_allocations_are_rejected`.
//! - A block parameter that regalloc2 keeps in two locations on entry gets
//!   two phi annotations, and the checker accepts them:
//!   `a_block_parameter_in_two_locations_has_two_annotations`.
//! - regalloc2's checker accepts the allocation of a function in which
//!   critical-edge splitting numbers a block before all of its
//!   predecessors (commit 451bd78 gave regalloc2 the blocks in reverse
//!   post-order; in index order its checker rejected correct allocations):
//!   `a_block_numbered_before_its_predecessors_is_no_false_alarm`.

use crate::common::{case_files, corruptions, parse_case, InterpOracle};
use pretty_assertions::assert_eq;
use ssaref::checkers::alloc_checker::check_allocation;
use ssaref::differential::{differential_full, later_stage_fuel, DiffConfig, Verdict};
use ssaref::entity::EntityRef;
use ssaref::frontend::parser::parse_program;
use ssaref::generate::source::{describe_failure, GenConfig, Shape, TestCase};
use ssaref::mir::MModule;

const FUEL: u64 = 1_000_000;
const REGS: [usize; 6] = [2, 3, 4, 6, 8, 15];

/// regalloc2 alone, one construction variant (the construction has its own
/// suites), every K of [`REGS`], down to x86-64 under Unicorn.
fn config() -> DiffConfig {
    let mut c = DiffConfig::standard(&REGS, FUEL).regalloc2_only();
    c.variants.truncate(1);
    c
}

/// The cases of `tests/cases/`: name, program, arguments, expected outcome.
fn corpus() -> Vec<(String, ssaref::ast::Program, Vec<i64>, String)> {
    case_files()
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            let case = parse_case(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let program = parse_program(&case.body).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, program, case.args, case.expect)
        })
        .collect()
}

#[test]
fn every_case_agrees_on_regalloc2() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (name, program, args, expect) in corpus() {
        match differential_full(&program, &args, &InterpOracle, &config()) {
            Verdict::Agree { outcome, stages } => {
                if outcome.render_full() != expect {
                    failures.push(format!("{name}: the source's outcome is not the expected one"));
                }
                for k in REGS {
                    for stage in [format!("regalloc2[k={k}]"), format!("x86-regalloc2[k={k}]")] {
                        if !stages.iter().any(|s| s.stage == stage) {
                            failures.push(format!("{name}: no stage {stage}"));
                        }
                    }
                }
                checked += 1;
            }
            other => failures.push(format!("{name}: {other:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 50, "only {checked} cases checked");
}

#[test]
fn generated_programs_agree_on_regalloc2() {
    let n: u64 = std::env::var("SSAREF_REGALLOC2_PROGRAMS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let (mut agreed, mut failures) = (0u64, Vec::new());
    for seed in 0..n {
        let gen = if seed % 2 == 0 { Shape::Patterns.config() } else { GenConfig::default() };
        let tc = TestCase::from_seed(seed, &gen);
        match differential_full(&tc.program, &tc.args, &InterpOracle, &config()) {
            Verdict::Agree { .. } => agreed += 1,
            Verdict::Inconclusive => {}
            other => failures.push(describe_failure(&tc, &other)),
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
    assert!(agreed * 10 >= n * 9, "only {agreed} of {n} programs were conclusive");
}

/// regalloc2's checker is skipped above `THEIR_CHECKER_LIMIT` instructions
/// (`regalloc2/allocate.rs`): every generated program of a campaign is below
/// it, so campaigns run both checkers; a large function is above it.
#[test]
fn campaign_programs_get_both_checkers_and_large_functions_only_ours() {
    use ssaref::construction::braun::{construct_program, BraunOptions};
    use ssaref::regalloc2::allocate::runs_their_checker;
    for seed in 0..300 {
        let gen = if seed % 2 == 0 { Shape::Patterns.config() } else { GenConfig::default() };
        let tc = TestCase::from_seed(seed, &gen);
        let ssa = construct_program(&tc.program, &BraunOptions::all_on());
        assert!(ssa.functions.iter().all(runs_their_checker), "seed {seed}");
    }
    let large = TestCase::from_seed(1, &GenConfig { size: 3000, ..Shape::Structured.config() });
    let ssa = construct_program(&large.program, &BraunOptions::plain());
    assert!(!ssa.functions.iter().all(runs_their_checker));
}

#[test]
fn corrupted_allocations_are_rejected() {
    let mut rejected: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut failures = Vec::new();
    let fuel = later_stage_fuel(FUEL);
    for (name, program, args, _) in corpus() {
        let ssa = ssaref::construction::braun::construct_program(&program, &Default::default());
        for k in [2, 3] {
            let (mir, _) =
                crate::common::passes::allocate_regalloc2_module(&ssa, k).unwrap_or_else(|e| panic!("{name}: {e}"));
            let expected = ssaref_interp::run_mir(&mir, &args, fuel);
            let Some(main) = mir.main() else { continue };
            for (kind, bad) in corruptions(main).into_iter().take(40) {
                let functions =
                    mir.functions.iter().map(|f| if f.name == "main" { bad.clone() } else { f.clone() }).collect();
                let wrong = ssaref_interp::run_mir(&MModule { functions }, &args, fuel) != expected;
                if check_allocation(&bad).is_err() {
                    *rejected.entry(kind).or_default() += 1;
                } else if wrong {
                    failures.push(format!("{name}, K = {k}: a {kind} computes a wrong outcome but is accepted"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for kind in ["swapped registers", "dropped reload", "dropped store"] {
        assert!(rejected.get(kind).copied().unwrap_or(0) >= 20, "too few rejected {kind}s: {rejected:?}");
    }
}

#[test]
fn a_corrupted_allocation_of_gcd_is_rejected() {
    // `v6 = rem v3, v2` reads the dividend from rax and the divisor from
    // another register; exchanging the registers of the first binary
    // operation with two different operands must be caught.
    let program =
        parse_program("fn main(a, b) { while (b != 0) { var t = a % b; a = b; b = t; out a; } return a + b * 3; }")
            .unwrap();
    let ssa = ssaref::construction::braun::construct_program(&program, &Default::default());
    let (mir, _) = crate::common::passes::allocate_regalloc2_module(&ssa, 4).unwrap();
    let main = mir.main().unwrap();
    check_allocation(main).expect("regalloc2's allocation is accepted");
    let (_, bad) = corruptions(main)
        .into_iter()
        .find(|(kind, _)| *kind == "swapped registers")
        .expect("a binary operation with two different registers");
    assert!(check_allocation(&bad).is_err(), "swapped registers accepted:\n{}", ssaref::mir::print_function(&bad));
}

#[test]
fn a_block_parameter_in_two_locations_has_two_annotations() {
    // At K = 2, regalloc2 keeps the loop header's `i` in a register and in
    // its spill slot from the start of the header (Braun et al.'s Fig. 2).
    let (_, program, args, expect) =
        corpus().into_iter().find(|(n, ..)| n == "braun_fig2_global_value_numbering.src").expect("the case exists");
    let ssa = ssaref::construction::braun::construct_program(&program, &Default::default());
    let (mir, _) = crate::common::passes::allocate_regalloc2_module(&ssa, 2).unwrap();
    let main = mir.main().unwrap();
    let doubled = main.blocks.values().any(|b| {
        b.phis.iter().enumerate().any(|(i, p)| b.phis[..i].iter().any(|q| q.dest == p.dest && q.loc != p.loc))
    });
    assert!(doubled, "no phi in two locations:\n{}", ssaref::mir::print_function(main));
    check_allocation(main).expect("accepted");
    let got = ssaref_interp::run_mir(&mir, &args, later_stage_fuel(FUEL)).unwrap();
    assert_eq!(got.render_full(), expect);
}

/// The regression case of regalloc2's checker's false alarm (reduced by
/// `ssaref reduce` from `tests/cases/nested_break_continue.src` with the
/// blocks handed to regalloc2 in index order): with that order restored,
/// K = 2 ends in `checkers-disagree`, ssaref's checker accepting and
/// regalloc2's rejecting (`UnknownValueInAllocation`).
#[test]
fn a_block_numbered_before_its_predecessors_is_no_false_alarm() {
    let program = parse_program("fn main() { while (i) { i = 0; while (1) { if (1) { break; } } } }").expect("parses");
    let ssa =
        ssaref::construction::braun::construct_program(&program, &ssaref::construction::braun::BraunOptions::all_on());
    let main = &ssa.functions[0];
    // What made the alarm: after critical-edge splitting, a block other
    // than the entry comes before every one of its predecessors.
    let mut split = main.clone();
    ssaref::analysis::critical_edges::split_critical_edges(&mut split);
    let early = split
        .blocks
        .iter()
        .any(|(b, data)| b.index() > 0 && !data.preds.is_empty() && data.preds.iter().all(|p| p.index() > b.index()));
    assert!(early, "the case no longer has a block numbered before its predecessors");
    for k in [2, 3, 4, 15] {
        if let Err(e) = crate::common::passes::allocate_regalloc2(main, k) {
            panic!("K = {k}: {e}");
        }
    }
}

/// What `ssaref repro` prints as regalloc2's input, for Braun et al.'s
/// Fig. 3 at K = 3: the blocks in the order regalloc2 gets them, each
/// instruction with its operand constraints, and the block arguments on the
/// terminator (and only there) of each block that has them.
#[test]
fn regalloc2_input_renders_as_repro_prints_it() {
    let (_, program, ..) =
        corpus().into_iter().find(|(n, ..)| n == "braun_fig3_while_sealing.src").expect("the case exists");
    let ssa = ssaref::construction::braun::construct_program(&program, &Default::default());
    let (_, report) = crate::common::passes::allocate_regalloc2(&ssa.functions[0], 3).expect("allocates");
    let text = report.render();
    let input = text.split("// regalloc2 output").next().unwrap();
    let expect = "\
// regalloc2 input (`main`, K = 3)
block0 = b0(): preds [] succs [block1]
  inst0: params                   [Def: v0i any]
  inst1: v1 = const 0             [Def: v1i reg]
  inst2: v2 = const 1             [Def: v2i reg]
  inst3: jump b1                  [] block1(v1, v2)
block1 = b1(v3, v4): preds [block0, block6] succs [block3, block2]
  inst4: v5 = lt v3, v0           [Use: v3i reg, Use: v0i reg, Def: v5i reg]
  inst5: br v5, b2, b3            [Use: v5i reg]
block2 = b3(): preds [block1] succs []
  inst6: out v3                   [Use: v3i reg]
  inst7: out v4                   [Use: v4i reg]
  inst8: v10 = const 0            [Def: v10i reg]
  inst9: ret v10                  [Use: v10i reg]
block3 = b2(): preds [block1] succs [block5, block4]
  inst10: v6 = const 3             [Def: v6i reg]
  inst11: v7 = rem v3, v6          [Use: v3i fixed(p0i), Use@Late: v6i reg, Def: v7i fixed(p2i)] clobbers [p0i]
  inst12: v8 = const 0             [Def: v8i reg]
  inst13: v9 = eq v7, v8           [Use: v7i reg, Use: v8i reg, Def: v9i reg]
  inst14: br v9, b4, b6            [Use: v9i reg]
block4 = b6(): preds [block3] succs [block6]
  inst15: v16 = const 1            [Def: v16i reg]
  inst16: v17 = add v4, v16        [Use: v4i reg, Use: v16i reg, Def: v17i reg]
  inst17: jump b5                  [] block6(v17)
block5 = b4(): preds [block3] succs [block6]
  inst18: v11 = const 2            [Def: v11i reg]
  inst19: v12 = mul v4, v11        [Use: v4i reg, Use: v11i reg, Def: v12i reg]
  inst20: jump b5                  [] block6(v12)
block6 = b5(v13): preds [block5, block4] succs [block1]
  inst21: v14 = const 1            [Def: v14i reg]
  inst22: v15 = add v3, v14        [Use: v3i reg, Use: v14i reg, Def: v15i reg]
  inst23: jump b1                  [] block1(v15, v13)
";
    assert_eq!(input, expect);
}
