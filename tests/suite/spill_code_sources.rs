//! `evaluation/spill_code_sources.rs`: the split of executed spill code
//! into the spill code proper and the transfers of phi-related values.
//! Its own check (the block-weighted sums equal the oracle's executed
//! loads, stores, moves and swaps) runs inside; here, on the corpus program
//! whose popcount loop defines a phi-related value that store hoisting
//! stores on every iteration, the split must show it.

use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::evaluation::spill_code_sources::{linear_scan_sources, ssa_ra_sources, ProgramBlockCounts};
use ssaref::frontend::case_file::CaseFile;
use ssaref::out_of_ssa::translate::OutOfSsaOptions;
use ssaref::ssa_ra::regalloc::RegallocOptions;

#[test]
fn store_hoisting_shows_as_transfer_stores_and_linear_scan_has_none_of_them() {
    let text = std::fs::read_to_string("tests/corpus/xorshift_stats.src").expect("corpus program");
    let case = CaseFile::parse(&text).expect("parses");
    let ssa = construct_program(&case.program, &BraunOptions::all_on());
    let oracle = ssaref_interp::Interp;
    let fuel = 100_000_000;
    let counts = ProgramBlockCounts::measure(&ssa, &case.args, &oracle, fuel).expect("block counts");
    let all = RegallocOptions::with_k(8);
    let with = ssa_ra_sources(&ssa, &all, &counts.ssa_ra, &case.args, &oracle, fuel).expect("measured");
    let no_sh = RegallocOptions { store_hoisting: false, ..all };
    let without = ssa_ra_sources(&ssa, &no_sh, &counts.ssa_ra, &case.args, &oracle, fuel).expect("measured");
    // The spill decisions do not depend on store hoisting: the spill code
    // proper is the same, the transfer stores differ.
    assert_eq!((with.def_stores, with.use_reloads), (without.def_stores, without.use_reloads));
    assert!(
        with.transfer_stores > without.transfer_stores + 10_000,
        "store hoisting: {} transfer stores, without it {}",
        with.transfer_stores,
        without.transfer_stores
    );
    let ls = linear_scan_sources(&ssa, OutOfSsaOptions::default(), 8, &counts.linear_scan, &case.args, &oracle, fuel)
        .expect("measured");
    assert!(ls.transfers() < with.transfers(), "linear scan {ls:?}, ssa-ra {with:?}");
    assert!(ls.out_of_ssa_copies >= ls.moves, "linear scan's moves implement out-of-SSA copies: {ls:?}");
}
