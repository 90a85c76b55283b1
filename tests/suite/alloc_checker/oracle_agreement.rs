//! The checker and the oracle agree: what the checker accepts computes the
//! SSA program's outcome, and the bugs it rejects change the outcome.

use super::*;
use pretty_assertions::assert_eq;

// ---------------------------------------------------------------------------
// The checker and the oracle agree: what the checker accepts computes the
// SSA program's outcome, and the bugs it rejects change the outcome.

fn mir_module(f: MFunction) -> MModule {
    MModule { functions: vec![f] }
}

/// The SSA program's outcome, after checking that the text is valid SSA.
fn ssa_outcome(ssa: &str, args: &[i64]) -> Outcome {
    let m = parse_module(ssa).unwrap_or_else(|e| panic!("{e}\n{ssa}"));
    verify_module(&m).unwrap_or_else(|e| panic!("{e}\n{ssa}"));
    run_ssa(&m, args, DEFAULT_FUEL).expect("the SSA program runs")
}

fn mir_outcome(f: MFunction, args: &[i64]) -> Result<Outcome, InterpError> {
    run_mir(&mir_module(f), args, DEFAULT_FUEL)
}

/// Checks that `good` computes the SSA outcome on `args` and `bad` does not
/// (it computes something else or fails).
fn agree(ssa: &str, good: MFunction, bad: MFunction, args: &[i64]) {
    let expected = ssa_outcome(ssa, args);
    assert_eq!(mir_outcome(good, args), Ok(expected.clone()));
    let got = mir_outcome(bad, args);
    assert_ne!(got, Ok(expected), "the rejected allocation computes the SSA outcome");
}

#[test]
fn accepted_allocations_compute_the_ssa_outcome() {
    for args in [[7, 3], [-2, 9], [0, 0]] {
        let expected = ssa_outcome(STRAIGHT_SSA, &args);
        assert_eq!(mir_outcome(straight_allocated(), &args), Ok(expected));
    }
    let o = ssa_outcome(SWAP_LOOP_SSA, &[3]);
    assert_eq!(o.trace, vec![10, 20, 10]);
    assert_eq!(o.end, End::Return(10));
    assert_eq!(mir_outcome(swap_loop_allocated(true), &[3]), Ok(o));
}

#[test]
fn the_clobbered_register_changes_the_result() {
    agree(CLOBBER_SSA, clobber_allocated(false), clobber_allocated(true), &[3, 4]);
}

#[test]
fn the_lost_swap_changes_the_trace() {
    let bad = mir_outcome(swap_loop_allocated(false), &[3]).expect("runs");
    assert_eq!(bad.trace, vec![10, 10, 10]);
    agree(SWAP_LOOP_SSA, swap_loop_allocated(true), swap_loop_allocated(false), &[3]);
}

#[test]
fn the_stale_copy_changes_the_trace_or_reads_an_unwritten_slot() {
    let mut good = stale_allocated();
    good.blocks[Block(3)].insts[0] = mov(RBX, RDX);
    agree(STALE_SSA, good.clone(), stale_allocated(), &[3]);
    let bad = mir_outcome(stale_allocated(), &[3]).expect("runs");
    assert_eq!(bad.trace, vec![10, 20, 10, 1]);
    agree(STALE_SSA, good, stale_allocated(), &[0]);
    assert!(matches!(mir_outcome(stale_allocated(), &[0]), Err(InterpError::UseOfUndefinedLocation { .. })));
}

#[test]
fn the_path_in_the_wrong_order_changes_the_result() {
    agree(PATH_SSA, path_allocated(false), path_allocated(true), &[10, 3]);
}

#[test]
fn the_wrong_slot_changes_the_result() {
    agree(SPILL_SSA, spill_allocated(SpillBug::None), spill_allocated(SpillBug::WrongSlot), &[10, 3]);
}

#[test]
fn the_missing_store_is_a_read_of_an_unwritten_slot() {
    agree(SPILL_SSA, spill_allocated(SpillBug::None), spill_allocated(SpillBug::MissingStore), &[10, 3]);
    assert_eq!(
        mir_outcome(spill_allocated(SpillBug::MissingStore), &[10, 3]),
        Err(InterpError::UseOfUndefinedLocation { loc: reg(RAX), block: Block(0), inst: Some(7) })
    );
}

#[test]
fn the_conflict_shows_on_one_path_only() {
    // The checker rejects the allocation because of the then-path; on the
    // else-path the outcome is still right, which is why testing alone
    // needs the right input to notice.
    agree(DIAMOND_SSA, diamond_allocated(false), diamond_allocated(true), &[1, 8]);
    assert_eq!(mir_outcome(diamond_allocated(true), &[0, 8]), Ok(ssa_outcome(DIAMOND_SSA, &[0, 8])));
}

#[test]
fn a_register_beyond_k_is_malformed_for_the_oracle_too() {
    let mut f = clobber_allocated(false);
    f.blocks[Block(0)].insts[0].inst = MInst::Binary { op: BinOp::Add, dst: RDX, a: RAX, b: RCX };
    assert!(check_no_scratch(&f).is_err());
    assert!(matches!(mir_outcome(f, &[1, 2]), Err(InterpError::Malformed(_))));
}

/// `FixedDiv` (out-of-ssa's `cqo; idiv`): the dividend must be in rax, and
/// the register of the result not asked for holds nothing afterwards, so a
/// value left in rdx across `/`, or in rax across `%`, is caught. A divisor
/// in rdx is malformed.
#[test]
fn fixed_divisions_clobber_and_constrain_their_registers() {
    let div = |op: BinOp, divisor: Reg, reads: &[u32], d: u32| op_fixed(op, divisor, reads, d);
    // v2 = v0 / v1 with v0 in rax, v1 in rcx; v3 in rdx lives across it.
    let across = |op: BinOp, keep: Reg| {
        function(
            4,
            0,
            &[(reg(RAX), 0), (reg(RCX), 1), (reg(keep), 3)],
            vec![block(&[], vec![], vec![div(op, RCX, &[0, 1], 2), out(keep, 3)], ret(RCX, 1))],
        )
    };
    accept(&across(BinOp::Div, RBX));
    accept(&across(BinOp::Rem, RBX));
    let e = reject(&across(BinOp::Div, RDX));
    assert_wrong_value(&e, Site::Inst { block: Block(0), index: 1 }, reg(RDX), 3, LocState::Clobbered);
    // The dividend itself, read again after `%`.
    let dividend_after_rem = function(
        4,
        0,
        &[(reg(RAX), 0), (reg(RCX), 1)],
        vec![block(&[], vec![], vec![div(BinOp::Rem, RCX, &[0, 1], 2), out(RAX, 0)], ret(RCX, 1))],
    );
    let e = reject(&dividend_after_rem);
    assert_wrong_value(&e, Site::Inst { block: Block(0), index: 1 }, reg(RAX), 0, LocState::Clobbered);
    // The dividend is read from rax whatever the annotation says.
    let wrong_dividend = function(
        3,
        0,
        &[(reg(RCX), 0), (reg(RAX), 1)],
        vec![block(&[], vec![], vec![div(BinOp::Div, RAX, &[0, 1], 2)], ret(RAX, 2))],
    );
    let e = reject(&wrong_dividend);
    assert_wrong_value(&e, Site::Inst { block: Block(0), index: 0 }, reg(RAX), 0, LocState::Value(v(1)));
    let by_rdx = function(
        3,
        0,
        &[(reg(RAX), 0), (reg(RDX), 1)],
        vec![block(&[], vec![], vec![div(BinOp::Div, RDX, &[0, 1], 2)], ret(RAX, 2))],
    );
    assert!(matches!(reject(&by_rdx).kind, AllocCheckErrorKind::Malformed(_)));
}

fn op_fixed(o: BinOp, divisor: Reg, reads: &[u32], d: u32) -> MInstA {
    op(MInst::FixedDiv { op: o, divisor }, reads, Some(d))
}
