//! Correct allocations are accepted; one rejected allocation per kind of
//! allocator bug, with the place and the values in the error.

use super::*;
use pretty_assertions::assert_eq;

// ---------------------------------------------------------------------------
// Correct allocations are accepted.

#[test]
fn accepts_moves_a_swap_and_spills() {
    accept(&straight_allocated());
}

#[test]
fn accepts_a_loop_whose_phis_swap() {
    accept(&swap_loop_allocated(true));
}

#[test]
fn accepts_the_correct_variant_of_every_bug() {
    accept(&clobber_allocated(false));
    accept(&path_allocated(false));
    accept(&spill_allocated(SpillBug::None));
    accept(&diamond_allocated(false));
}

#[test]
fn accepts_a_value_spilled_before_a_loop_and_reloaded_in_it() {
    // v0 is stored to slot 0 before the loop and reloaded on every trip:
    // the slot keeps v0 across the back edge and the phis.
    let mut f = swap_loop_allocated(true);
    f.slot_count = 1;
    f.blocks[Block(0)].insts.insert(0, spill(0, RAX));
    f.blocks[Block(2)].insts.splice(0..0, [reload(RBX, 0), out(RBX, 0)]);
    accept(&f);
    assert_eq!(check_module(&MModule { functions: vec![f] }), Ok(()));
}

#[test]
fn accepts_a_branch_to_the_same_block_twice() {
    // `br v0, b1, b1`: b1 has two predecessor edges from b0, and the
    // else-edge is the second. With the phi taking v1 on both edges the
    // allocation is right; with v2 on the else-edge, the one location at
    // the end of b0 cannot hold both.
    let mut f = function(
        3,
        0,
        &[(reg(RAX), 0)],
        vec![
            block(&[], vec![], vec![konst(RCX, 1, 1), konst(RDX, 2, 2)], br(RAX, 0, 1, 1)),
            block(&[0, 0], vec![phi(3, reg(RCX), &[1, 1])], vec![], ret(RCX, 3)),
        ],
    );
    accept(&f);
    f.blocks[Block(1)].phis[0].args[1] = v(2);
    let e = reject(&f);
    assert_wrong_value(
        &e,
        Site::PhiEdge { pred: Block(0), block: Block(1), edge: 1, phi: 0 },
        reg(RCX),
        2,
        LocState::Value(v(1)),
    );
}

// ---------------------------------------------------------------------------
// One rejected allocation per kind of bug.

#[test]
fn rejects_a_clobbered_register() {
    let e = reject(&clobber_allocated(true));
    assert_wrong_value(&e, Site::Inst { block: Block(0), index: 1 }, reg(RAX), 0, LocState::Value(v(2)));
    assert_eq!(e.register(), Some(RAX));
    assert_eq!(e.to_string(), "function `main`, block b0, instruction 1: rax should hold v0, but it holds v2");
}

#[test]
fn rejects_a_lost_swap_in_a_phi_cycle() {
    let e = reject(&swap_loop_allocated(false));
    assert_wrong_value(
        &e,
        Site::PhiEdge { pred: Block(2), block: Block(1), edge: 1, phi: 0 },
        reg(RAX),
        4,
        LocState::Value(v(3)),
    );
    assert_eq!(
        e.to_string(),
        "function `main`, edge b2 -> b1 (predecessor 1), phi 0 of b1: rax should hold v4, \
         but it holds v3"
    );
}

#[test]
fn rejects_a_path_implemented_in_the_wrong_order() {
    let e = reject(&path_allocated(true));
    assert_wrong_value(
        &e,
        Site::PhiEdge { pred: Block(0), block: Block(1), edge: 0, phi: 1 },
        reg(RDX),
        1,
        LocState::Value(v(0)),
    );
}

#[test]
fn rejects_a_reload_from_the_wrong_slot() {
    let e = reject(&spill_allocated(SpillBug::WrongSlot));
    assert_wrong_value(&e, Site::Inst { block: Block(0), index: 8 }, reg(RAX), 0, LocState::Value(v(1)));
}

#[test]
fn rejects_a_missing_store() {
    let e = reject(&spill_allocated(SpillBug::MissingStore));
    assert_wrong_value(&e, Site::Inst { block: Block(0), index: 7 }, reg(RAX), 0, LocState::Unknown);
    assert_eq!(
        e.to_string(),
        "function `main`, block b0, instruction 7: rax should hold v0, but it holds nothing \
         (no path to here writes it)"
    );
}

#[test]
fn rejects_a_conflict_at_a_join() {
    let e = reject(&diamond_allocated(true));
    assert_wrong_value(&e, Site::Terminator(Block(3)), reg(RCX), 1, LocState::Conflict);
    assert_eq!(
        e.to_string(),
        "function `main`, block b3, terminator: rcx should hold v1, but it holds different \
         values on different incoming paths"
    );
}

#[test]
fn rejects_a_copy_from_an_earlier_trip_around_a_loop() {
    let e = reject(&stale_allocated());
    assert_wrong_value(&e, Site::Inst { block: Block(3), index: 1 }, reg(RBX), 5, LocState::Conflict);
    // Reloading from rdx's own copy instead is right.
    let mut f = stale_allocated();
    f.blocks[Block(3)].insts[0] = mov(RBX, RDX);
    accept(&f);
}

#[test]
fn rejects_a_register_beyond_k() {
    // With k = 4, the allocator broke the phi cycle through rbp, register
    // 4, as a scratch register, instead of swapping.
    let mut f = swap_loop_allocated(false);
    let scratch = Reg(4);
    f.blocks[Block(2)].insts.extend([mov(scratch, RAX), mov(RAX, RCX), mov(RCX, scratch)]);
    let e = check_no_scratch(&f).expect_err("rbp is register 4");
    assert_eq!(e.site, Site::Inst { block: Block(2), index: 3 }, "{e}");
    assert_eq!(e.kind, AllocCheckErrorKind::RegisterOutOfRange { reg: scratch, k: 4 });
    assert_eq!(
        e.to_string(),
        "function `main`, block b2, instruction 3: rbp (register #4) is not one of the 4 \
         allocatable registers"
    );
    assert_eq!(reject(&f), e);
    // The values are right: with five registers the same code is accepted.
    f.k = 5;
    accept(&f);
    assert_eq!(check_no_scratch(&f), Ok(()));
    // A register that does not exist at all prints by its number.
    let mut g = clobber_allocated(false);
    g.blocks[Block(0)].term = MTerm::Return(Reg(20));
    let e = reject(&g);
    assert_eq!(e.site, Site::Terminator(Block(0)));
    assert_eq!(
        e.to_string(),
        "function `main`, block b0, terminator: register #20 is not one of the 2 allocatable \
         registers"
    );
    let mut g = clobber_allocated(false);
    g.params[1].0 = reg(RDX);
    assert_eq!(check_no_scratch(&g).map_err(|e| e.site), Err(Site::Param(1)));
    let mut g = swap_loop_allocated(true);
    g.blocks[Block(1)].phis[2].loc = Loc::Reg(Reg(4));
    assert_eq!(check_no_scratch(&g).map_err(|e| e.site), Err(Site::Block(Block(1))));
}
