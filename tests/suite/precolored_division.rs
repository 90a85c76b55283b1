//! ssa-ra's pre-colored divisions (`ssa_ra/division_splits.rs`,
//! proofs-notes/precolored-division.md): at K >= 3 every division is
//! x86's own `cqo; idiv r` (`MInst::FixedDiv`) and agrees with the oracle;
//! at K = 2 it keeps the general form. Each check of the note is shown
//! rejecting a planted mistake: a division left unsplit, a value live
//! across a division in rdx, a dividend out of rax, and a demand that
//! forgets the register `idiv` overwrites.

use crate::common::passes::allocate_module;
use crate::common::{parse_case, parse_one, InterpOracle};
use ssaref::campaign::rotation::ssa_ra_rotation;
use ssaref::checkers::coloring_check::{
    check_divisions_split, check_precolored, max_register_demand, ColoringCheckError,
};
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::entity::EntitySet;
use ssaref::frontend::parser::parse_program;
use ssaref::ir::{BinOp, Value};
use ssaref::mir::{MInst, MModule, RAX, RDX};
use ssaref::oracle::Oracle;
use ssaref::ssa_ra::coloring::{assign_registers, ColoringOptions};
use ssaref::ssa_ra::division_splits::split_divisions;
use ssaref::ssa_ra::regalloc::RegallocOptions;
use ssaref::ssa_ra::spill::{spill, SpillOptions};

/// A division with `v3` live across it and its dividend live after it.
const ONE_DIVISION: &str = "
fn main(v0, v1) {
b0:
    v3 = add v0, v1
    v2 = div v0, v1
    v4 = add v2, v3
    v5 = add v4, v0
    ret v5
}
";

/// The divisions of `m`'s machine code: (fixed, general).
fn divisions(m: &MModule) -> (usize, usize) {
    let insts = m.functions.iter().flat_map(|f| f.blocks.values()).flat_map(|b| b.insts.iter());
    insts.fold((0, 0), |(fixed, general), i| match i.inst {
        MInst::FixedDiv { .. } => (fixed + 1, general),
        MInst::Binary { op: BinOp::Div | BinOp::Rem, .. } => (fixed, general + 1),
        _ => (fixed, general),
    })
}

/// Every ssa-ra option set of the campaign's rotation, every K.
#[test]
fn divisions_are_fixed_from_k_3_and_general_at_k_2_and_agree_with_the_oracle() {
    for name in ["division_under_register_pressure", "collatz", "gcd_euclid"] {
        let text = std::fs::read_to_string(format!("{}/tests/cases/{name}.src", env!("CARGO_MANIFEST_DIR")))
            .expect("the case exists");
        let case = parse_case(&text).expect("a case header");
        let program = parse_program(&case.body).expect("parses");
        let expected = InterpOracle.run_source(&program, &case.args, 1_000_000).expect("runs");
        let ssa = construct_program(&program, &BraunOptions::all_on());
        for k in 2..=15 {
            let sets = std::iter::once(RegallocOptions::with_k(2)).chain(ssa_ra_rotation());
            for opts in sets.map(|o| RegallocOptions { k, ..o }) {
                let tag = opts.describe();
                let (m, _) = allocate_module(&ssa, &opts).unwrap_or_else(|e| panic!("{name}, K = {k}, {tag}: {e}"));
                let (fixed, general) = divisions(&m);
                assert!(fixed + general > 0, "{name} divides");
                match k {
                    2 => assert_eq!(fixed, 0, "{name}: no fixed division at K = 2"),
                    _ => assert_eq!(general, 0, "{name}, K = {k}: every division is `cqo; idiv`"),
                }
                let got = InterpOracle.run_mir(&m, &case.args, 1_000_000).expect("runs");
                assert_eq!(got, expected, "{name}, K = {k}, {tag}");
            }
        }
    }
}

#[test]
fn the_split_check_rejects_a_division_left_unsplit() {
    let mut f = parse_one(ONE_DIVISION);
    // The planted mistake: the division as given, with v0, v1 and v3 live
    // at it and none of them a phi of its block.
    let err = check_divisions_split(&f, 3).expect_err("an unsplit division is rejected");
    assert!(matches!(err, ColoringCheckError::NotSplit { .. }), "{err}");
    // At K = 2 no division is fixed: nothing to split.
    assert_eq!(check_divisions_split(&f, 2), Ok(()));
    assert_eq!(split_divisions(&mut f, 3), 1);
    assert_eq!(check_divisions_split(&f, 3), Ok(()));
    // The new block starts with the dividend, the divisor and the two
    // values live across (v0, v3) as one-argument phis.
    let last = f.blocks.values().last().expect("a block");
    assert_eq!((last.preds.len(), last.phis.len()), (1, 4), "{}", ssaref::ssa_text::print_function(&f));
}

#[test]
fn the_precolored_check_rejects_a_value_live_across_in_rdx_and_a_dividend_out_of_rax() {
    let k = 5;
    let mut f = parse_one(ONE_DIVISION);
    split_divisions(&mut f, k);
    let s = spill(&mut f, &SpillOptions { k, load_lowering: false, recycle_reloads: false }).expect("spill");
    assert!(s.spilled.is_empty(), "demand 5 at K = 5: v0 and v3 across, rax, rdx and the divisor");
    let a = assign_registers(&f, &s, k, &ColoringOptions::default()).expect("assign");
    assert_eq!(check_precolored(&f, &s.spilled, &a.reg, k), Ok(()));
    let block = f.blocks.values().last().expect("the split block");
    let across = block.phis.iter().map(|p| p.dest).find(|&v| a.reg[v] != Some(RAX)).expect("a phi out of rax");
    let dividend = block.phis[0].dest;
    assert_eq!(a.reg[dividend], Some(RAX), "the dividend's phi comes first and takes rax");
    for (value, reg) in [(across, RDX), (dividend, ssaref::mir::RCX)] {
        let mut planted = a.reg.clone();
        planted[value] = Some(reg);
        let err = check_precolored(&f, &s.spilled, &planted, k).expect_err("the planted register is rejected");
        assert!(matches!(err, ColoringCheckError::Precolored { .. }), "{err}");
    }
}

#[test]
fn the_demand_counts_the_register_idiv_overwrites() {
    let f = parse_one(ONE_DIVISION);
    let none: EntitySet<Value> = EntitySet::with_capacity(f.value_count as usize);
    // At the division: v0, v1 and v3 live before it, and rdx.
    assert_eq!(max_register_demand(&f, &none, 3), 4);
    // At K = 2 the division is the general form, which needs no register
    // beyond its operands.
    assert_eq!(max_register_demand(&f, &none, 2), 3);
}
