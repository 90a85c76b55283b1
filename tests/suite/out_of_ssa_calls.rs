//! out-of-ssa with calls: Boissinot et al.'s §III-D pins at calls
//! (`out_of_ssa/renaming_constraints.rs`, `split_calls`) and the
//! conventional allocators under the calling convention
//! (`out_of_ssa/conventional/call_pins.rs`), argued in
//! `proofs-notes/out-of-ssa.md` ("Renaming constraints at calls").
//!
//! - Every case of `tests/cases/` and program of `tests/corpus/` with calls
//!   agrees with its expected outcome at every out-of-ssa stage: every
//!   coalescing variant, both liveness methods, both allocators and the
//!   two Sreedhar III baselines, at every K from 2 to 15, with the
//!   translation's checkers (CSSA, class interference, the renaming
//!   constraints) and ssaref's allocation checker accepting:
//!   `every_call_program_agrees_on_out_of_ssa_at_every_k`.
//! - The renaming-constraint check rejects a call whose operands are not
//!   pinned and a pinned variable that lives across a call:
//!   `the_constraint_checker_rejects_broken_pins_at_calls`.
//! - Without the translation's pins (renaming constraints off), linear
//!   scan splits the calls itself and the code keeps its outcome:
//!   `linear_scan_pins_calls_the_translation_left_unpinned`.

use crate::common::call_programs::assert_every_call_program_agrees;
use crate::common::parse_unverified;
use crate::common::passes::{allocate_conventional_module_pinned, translate_module_with_pins};
use ssaref::backend::out_of_ssa::OutOfSsa;
use ssaref::construction::braun::BraunOptions;
use ssaref::differential::DiffConfig;
use ssaref::frontend::parser::parse_program;
use ssaref::ir::Value;
use ssaref::out_of_ssa::coalescing::CoalescingVariant;
use ssaref::out_of_ssa::conventional::ConventionalAllocator;
use ssaref::out_of_ssa::renaming_constraints::{check_constraints, FixedReg, Pins};
use ssaref::out_of_ssa::translate::OutOfSsaOptions;
use ssaref::pass_manager::flags::Flags;
use ssaref::pipeline::{build_ssa, Config};

const FUEL: u64 = 1_000_000;

#[test]
fn every_call_program_agrees_on_out_of_ssa_at_every_k() {
    let regs: Vec<usize> = (2..=15).collect();
    let mut config = DiffConfig::standard(&regs, FUEL);
    config.regalloc.clear();
    config.variants.truncate(1);
    // The x86-64 stage of programs with calls is not this test's subject.
    config.x86 = false;
    let configurations = OutOfSsa::all();
    assert_eq!(configurations.len(), 30, "every variant, liveness method and allocator, and the two baselines");
    let stages: Vec<String> = configurations
        .iter()
        .flat_map(|c| regs.iter().map(|&k| ssaref::backend::Backend::stage_names(c, k).0))
        .collect();
    assert_every_call_program_agrees(&config, &stages, 13);
}

/// A translated caller: `v2` and `v3` pinned to arguments 0 and 1, `v4`
/// to rax; `v0` lives across the call.
const CALLER: &str = "
fn f(v0, v1) {
b0:
    v2 = sub v0, v1
    ret v2
}
fn main(v0, v1) {
b0:
    v2 = copy v1
    v3 = copy v0
    v4 = call f(v2, v3)
    v5 = copy v4
    v6 = add v5, v0
    ret v6
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
fn the_constraint_checker_rejects_broken_pins_at_calls() {
    let module = ssaref::ssa_text::parse_module(CALLER).expect("parses");
    let main = &module.functions[1];
    let good = [(2, FixedReg::Arg(0)), (3, FixedReg::Arg(1)), (4, FixedReg::Rax)];
    check_constraints(main, &pins(&good)).expect("the pins are right");
    // The second argument not pinned.
    let e = check_constraints(main, &pins(&good[..1].iter().chain(&good[2..]).copied().collect::<Vec<_>>()));
    assert!(e.unwrap_err().to_string().contains("not pinned"));
    // The arguments pinned to each other's roles (a swap).
    let swapped = [(2, FixedReg::Arg(1)), (3, FixedReg::Arg(0)), (4, FixedReg::Rax)];
    assert!(check_constraints(main, &pins(&swapped)).unwrap_err().to_string().contains("not pinned"));
    // The result pinned to an argument role.
    let result = [(2, FixedReg::Arg(0)), (3, FixedReg::Arg(1)), (4, FixedReg::Arg(2))];
    assert!(check_constraints(main, &pins(&result)).is_err());
    // `v0`, live across the call, pinned: every role is caller-saved.
    let across = [(2, FixedReg::Arg(0)), (3, FixedReg::Arg(1)), (4, FixedReg::Rax), (0, FixedReg::Arg(3))];
    let e = check_constraints(main, &pins(&across)).unwrap_err().to_string();
    assert!(e.contains("v0") && e.contains("arg3"), "{e}");
    let f = parse_unverified("fn g(v0) {\nb0:\n    ret v0\n}\n");
    check_constraints(&f, &Pins::none()).expect("no call, no pin");
}

#[test]
fn linear_scan_pins_calls_the_translation_left_unpinned() {
    let src = "fn f(a, b, c, d, e, g, h) { return a - 2 * b + 3 * c - d + e * g - h; }
               fn main(x, y) { var s = f(y, x, x, y, 7, x, y); out s; return f(s, y, x, x, y, s, 1) + x; }";
    let program = parse_program(src).unwrap();
    let ssa = build_ssa(&program, &Config { braun: BraunOptions::all_on(), flags: Flags::checked() }).unwrap();
    let want = ssaref_interp::run_ssa(&ssa, &[5, 9], FUEL).expect("runs");
    for constrained in [true, false] {
        let opts =
            OutOfSsaOptions { renaming_constraints: constrained, ..OutOfSsaOptions::fast(CoalescingVariant::Value) };
        let (translated, pins, _) = translate_module_with_pins(&ssa, &opts).expect("translates");
        assert_eq!(pins.iter().all(Pins::is_empty), !constrained);
        for k in 2..=15 {
            for which in ConventionalAllocator::ALL {
                let mir = allocate_conventional_module_pinned(&translated, &pins, k, which)
                    .unwrap_or_else(|e| panic!("K = {k}, {}: {e}", which.name()));
                let got = ssaref_interp::run_mir(&mir, &[5, 9], FUEL).expect("runs");
                assert_eq!(got, want, "K = {k}, {}, pins {constrained}", which.name());
            }
        }
    }
}
