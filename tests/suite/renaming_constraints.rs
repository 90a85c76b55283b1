//! Register renaming constraints (Boissinot et al. §III-D) for x86's
//! `idiv`, end to end on out-of-ssa (`renaming_constraints.rs`, the labels of
//! `coalescing.rs`, the pins of `linear_scan.rs`, `MInst::FixedDiv`). The
//! claims, argued in `proofs-notes/out-of-ssa.md` ("Renaming constraints"):
//!
//! - every coalescing variant leaves a translation that meets the
//!   constraints, checked from scratch by `check_constraints` (the
//!   translation runs it too, with `check`), on the corpus and on generated
//!   programs: `every_division_is_pinned_and_allocated_as_a_bare_idiv`;
//! - then both conventional allocators turn every division into a bare
//!   `cqo; idiv` (`FixedDiv`), except `%` at K = 2 where rdx is not
//!   allocatable, and the allocated code keeps the source's outcome (same
//!   test);
//! - `check_constraints` rejects each way of breaking the constraints:
//!   `the_constraint_checker_rejects_broken_pins`;
//! - linear scan stays correct when given pins that clash (a pinned
//!   variable live where its register is destroyed): it spills, and the
//!   code keeps its outcome: `linear_scan_survives_clashing_pins`;
//! - a dividend that lives on after `%` is not put in rax, and the divisor
//!   is never put in rdx: `live_dividends_and_divisors_stay_out_of_the_clobbered_registers`.

use crate::common::passes::{
    allocate_conventional_module_pinned, allocate_conventional_pinned, translate_function, translate_module_with_pins,
};
use crate::common::{case_files, parse_case, parse_unverified};
use ssaref::differential::later_stage_fuel;
use ssaref::generate::source::{GenConfig, TestCase};
use ssaref::ir::{BinOp, Module, Op, Value};
use ssaref::mir::{MInst, MModule};
use ssaref::out_of_ssa::coalescing::CoalescingVariant;
use ssaref::out_of_ssa::conventional::ConventionalAllocator;
use ssaref::out_of_ssa::renaming_constraints::{check_constraints, FixedReg, Pins};
use ssaref::out_of_ssa::translate::{LivenessMethod, OutOfSsaOptions};
use ssaref::outcome::{End, Outcome};
use ssaref::pipeline::{build_ssa, Config};

const FUEL: u64 = 1_000_000;
const KS: [usize; 6] = [2, 3, 4, 6, 8, 15];

/// (name, SSA module, arguments, expected outcome) for every corpus case and
/// 150 generated programs that divide.
fn programs() -> Vec<(String, Module, Vec<i64>, Outcome)> {
    let mut out = Vec::new();
    let config = Config { flags: ssaref::pass_manager::flags::Flags::checked(), ..Config::default() };
    for path in case_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).expect("readable case");
        let case = parse_case(&text).expect("case header");
        let program = ssaref::frontend::parser::parse_program(&text).expect("parses");
        let expected = ssaref_interp::run_ast(&program, &case.args, FUEL).expect("runs");
        out.push((name, build_ssa(&program, &config).expect("builds"), case.args, expected));
    }
    let mut seed = 0;
    let mut generated = 0;
    while generated < 150 {
        let tc = TestCase::from_seed(seed, &GenConfig::default());
        seed += 1;
        let Ok(expected) = ssaref_interp::run_ast(&tc.program, &tc.args, FUEL) else { continue };
        let ssa = build_ssa(&tc.program, &config).expect("builds");
        let divides = ssa.functions.iter().any(|f| {
            f.blocks.values().flat_map(|d| &d.insts).any(|i| matches!(i.op, Op::Binary(BinOp::Div | BinOp::Rem, ..)))
        });
        if divides && expected.end != End::OutOfFuel {
            out.push((format!("seed {}", seed - 1), ssa, tc.args, expected));
            generated += 1;
        }
    }
    out
}

fn count_divisions(m: &MModule) -> (usize, usize) {
    let insts = m.functions.iter().flat_map(|f| f.blocks.values()).flat_map(|b| &b.insts);
    let (mut fixed, mut general) = (0, 0);
    for i in insts {
        match i.inst {
            MInst::FixedDiv { .. } => fixed += 1,
            MInst::Binary { op: BinOp::Div | BinOp::Rem, .. } => general += 1,
            _ => {}
        }
    }
    (fixed, general)
}

#[test]
fn every_division_is_pinned_and_allocated_as_a_bare_idiv() {
    let programs = programs();
    let (mut fixed_total, mut general_total, mut pinned_total) = (0, 0, 0);
    for (name, ssa, args, expected) in &programs {
        let rems = ssa
            .functions
            .iter()
            .flat_map(|f| f.blocks.values())
            .flat_map(|d| &d.insts)
            .filter(|i| matches!(i.op, Op::Binary(BinOp::Rem, ..)))
            .count();
        for variant in CoalescingVariant::ALL {
            for liveness in LivenessMethod::ALL {
                let opts = OutOfSsaOptions { liveness, ..OutOfSsaOptions::fast(variant) };
                let (destructed, pins, report) = translate_module_with_pins(ssa, &opts)
                    .unwrap_or_else(|e| panic!("{name}, {}: {e}", variant.name()));
                for (f, p) in destructed.functions.iter().zip(&pins) {
                    check_constraints(f, p).unwrap_or_else(|e| panic!("{name}, {}: {e}", variant.name()));
                }
                pinned_total += report.pinned_divisions;
                // Allocation for the variant that matters most (and one
                // liveness method): the others differ only in copies.
                if liveness != LivenessMethod::Check || !matches!(variant, CoalescingVariant::Sharing) {
                    continue;
                }
                for k in KS {
                    for which in ConventionalAllocator::ALL {
                        let mir = allocate_conventional_module_pinned(&destructed, &pins, k, which)
                            .unwrap_or_else(|e| panic!("{name}, K = {k}, {}: {e}", which.name()));
                        let (fixed, general) = count_divisions(&mir);
                        let expected_general = if k == 2 { rems } else { 0 };
                        assert_eq!(
                            general,
                            expected_general,
                            "{name}, K = {k}, {}: {general} division(s) not lowered as a bare idiv\n{}",
                            which.name(),
                            ssaref::mir::print_module(&mir)
                        );
                        assert_eq!(fixed + general, report.pinned_divisions, "{name}: every division is allocated");
                        let got = ssaref_interp::run_mir(&mir, args, later_stage_fuel(FUEL))
                            .unwrap_or_else(|e| panic!("{name}, K = {k}, {}: {e}", which.name()));
                        assert_eq!(&got, expected, "{name}, K = {k}, {}", which.name());
                        fixed_total += fixed;
                        general_total += general;
                    }
                }
            }
        }
    }
    eprintln!(
        "{} programs: {pinned_total} pinned divisions over all variants; allocated: {fixed_total} bare idiv, \
         {general_total} general (% at K = 2)",
        programs.len()
    );
    assert!(fixed_total > 1000, "{fixed_total}");
}

const REM: &str = "
fn main(v0, v1) {
b0:
    v2 = copy v0
    v3 = rem v2, v1
    v4 = copy v3
    v5 = add v0, v4
    ret v5
}
";

fn pins(list: &[(u32, FixedReg)]) -> Pins {
    let mut p = Pins::none();
    for &(v, r) in list {
        p.pin(Value(v), r);
    }
    p
}

#[test]
fn the_constraint_checker_rejects_broken_pins() {
    let good = parse_unverified(REM);
    check_constraints(&good, &pins(&[(2, FixedReg::Rax), (3, FixedReg::Rdx)])).expect("the pins are right");
    // The dividend pinned to rax but live after `%`, which destroys rax.
    let live_dividend = parse_unverified(&REM.replace("v5 = add v0, v4", "v5 = add v2, v4"));
    let e =
        check_constraints(&live_dividend, &pins(&[(2, FixedReg::Rax), (3, FixedReg::Rdx)])).unwrap_err().to_string();
    assert!(e.contains("live where the division or call destroys it"), "{e}");
    // The result of `%` pinned to rax.
    let e = check_constraints(&good, &pins(&[(2, FixedReg::Rax), (3, FixedReg::Rax)])).unwrap_err().to_string();
    assert!(e.contains("pinned to rax"), "{e}");
    // A division with nothing pinned.
    let e = check_constraints(&good, &Pins::none()).unwrap_err().to_string();
    assert!(e.contains("not pinned"), "{e}");
    // The divisor pinned to rdx.
    let by_rdx = parse_unverified(&REM.replace("v3 = rem v2, v1", "v3 = rem v2, v3"));
    let e = check_constraints(&by_rdx, &pins(&[(2, FixedReg::Rax), (3, FixedReg::Rdx)])).unwrap_err().to_string();
    assert!(e.contains("divisor"), "{e}");
    // A variable live across the division pinned to rdx, which `cqo`
    // destroys.
    let across = parse_unverified(
        "
fn main(v0, v1) {
b0:
    v6 = copy v1
    v2 = copy v0
    v2 = div v2, v1
    v5 = add v2, v6
    ret v5
}
",
    );
    let e = check_constraints(&across, &pins(&[(2, FixedReg::Rax), (6, FixedReg::Rdx)])).unwrap_err().to_string();
    assert!(e.contains("v6"), "{e}");
}

#[test]
fn linear_scan_survives_clashing_pins() {
    let f = parse_unverified(&REM.replace("v5 = add v0, v4", "v5 = add v2, v4"));
    let bad = pins(&[(2, FixedReg::Rax), (3, FixedReg::Rdx)]);
    let m = Module { functions: vec![f.clone()] };
    let want = ssaref_interp::run_ssa(&m, &[17, 5], FUEL).expect("runs");
    for k in [2, 3, 4] {
        let mf = allocate_conventional_pinned(&f, &bad, k, ConventionalAllocator::LinearScan)
            .unwrap_or_else(|e| panic!("K = {k}: {e}"));
        let got = ssaref_interp::run_mir(&MModule { functions: vec![mf] }, &[17, 5], FUEL).expect("runs");
        assert_eq!(got, want, "K = {k}");
    }
}

#[test]
fn live_dividends_and_divisors_stay_out_of_the_clobbered_registers() {
    let program = ssaref::frontend::parser::parse_program(
        "fn main(a, b) { var r = a % b; var q = b / a; out a; out b; return r + q; }",
    )
    .expect("parses");
    let ssa = build_ssa(&program, &Config::default()).expect("builds");
    for variant in CoalescingVariant::ALL {
        let t = translate_function(&ssa.functions[0], &OutOfSsaOptions::fast(variant)).expect("translates");
        let a = t.function.params[0];
        let b = t.function.params[1];
        assert_ne!(t.pins.get(a), Some(FixedReg::Rax), "{}: a lives after `%`, which destroys rax", variant.name());
        assert_ne!(t.pins.get(b), Some(FixedReg::Rdx), "{}: b is a divisor", variant.name());
        assert_eq!(t.report.pinned_divisions, 2);
    }
}
