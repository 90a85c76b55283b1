//! Tests of the allocation checker (`alloc_checker.rs`) on hand-written
//! allocations: correct ones with moves, swaps, spills and a loop with phis,
//! which it accepts; one allocation per kind of allocator bug, which it
//! rejects, with the place and the values in the error; structural errors;
//! and no panics or deep recursion on garbage or long programs.
//!
//! The last group runs the same allocations in the oracle: the correct ones
//! compute what the SSA program computes, and several of the rejected ones
//! do not, so the checker rejects real bugs, not just unusual code.

use pretty_assertions::assert_eq;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use ssaref::analysis::ir_text::parse_module;
use ssaref::analysis::verifier::verify_module;
use ssaref::checkers::alloc_checker::{
    check_allocation, check_module, check_no_scratch, AllocCheckError, AllocCheckErrorKind, LocState, Site,
};
use ssaref::entity::EntityVec;
use ssaref::ir::{BinOp, Block, UnOp, Value};
use ssaref::mir::{Annot, Loc, MBlock, MFunction, MInst, MInstA, MModule, MTerm, PhiAnnot, Reg, Slot};
use ssaref::outcome::{End, Outcome};
use ssaref_interp::{run_mir, run_ssa, InterpError, DEFAULT_FUEL};

const RAX: Reg = Reg(0);
const RCX: Reg = Reg(1);
const RDX: Reg = Reg(2);
const RBX: Reg = Reg(3);

// ---------------------------------------------------------------------------
// Construction helpers. Values are written as numbers: `3` is `v3`.

fn v(n: u32) -> Value {
    Value(n)
}

fn reg(r: Reg) -> Loc {
    Loc::Reg(r)
}

fn slot(s: u32) -> Loc {
    Loc::Slot(Slot(s))
}

/// An operation defining `d` from the values `reads`.
fn op(inst: MInst, reads: &[u32], d: Option<u32>) -> MInstA {
    MInstA { inst, annot: Annot { reads: reads.iter().map(|&n| v(n)).collect(), defines: d.map(v) } }
}

/// A transfer: no annotation.
fn transfer(inst: MInst) -> MInstA {
    MInstA { inst, annot: Annot::default() }
}

fn konst(dst: Reg, imm: i64, d: u32) -> MInstA {
    op(MInst::Const { dst, imm }, &[], Some(d))
}

fn bin(o: BinOp, dst: Reg, (a, va): (Reg, u32), (b, vb): (Reg, u32), d: u32) -> MInstA {
    op(MInst::Binary { op: o, dst, a, b }, &[va, vb], Some(d))
}

fn out(src: Reg, value: u32) -> MInstA {
    op(MInst::Out { src }, &[value], None)
}

fn mov(dst: Reg, src: Reg) -> MInstA {
    transfer(MInst::Move { dst, src })
}

fn swap(a: Reg, b: Reg) -> MInstA {
    transfer(MInst::Swap { a, b })
}

fn spill(s: u32, src: Reg) -> MInstA {
    transfer(MInst::Spill { slot: Slot(s), src })
}

fn reload(dst: Reg, s: u32) -> MInstA {
    transfer(MInst::Reload { dst, slot: Slot(s) })
}

fn jump(b: u32) -> (MTerm, Option<Value>) {
    (MTerm::Jump(Block(b)), None)
}

fn br(cond: Reg, value: u32, then_dest: u32, else_dest: u32) -> (MTerm, Option<Value>) {
    (MTerm::Branch { cond, then_dest: Block(then_dest), else_dest: Block(else_dest) }, Some(v(value)))
}

fn ret(r: Reg, value: u32) -> (MTerm, Option<Value>) {
    (MTerm::Return(r), Some(v(value)))
}

fn phi(dest: u32, loc: Loc, args: &[u32]) -> PhiAnnot {
    PhiAnnot { dest: v(dest), loc, args: args.iter().map(|&n| v(n)).collect() }
}

fn block(preds: &[u32], phis: Vec<PhiAnnot>, insts: Vec<MInstA>, (term, term_reads): (MTerm, Option<Value>)) -> MBlock {
    MBlock { preds: preds.iter().map(|&b| Block(b)).collect(), phis, insts, term, term_reads }
}

fn function(k: usize, slot_count: u32, params: &[(Loc, u32)], blocks: Vec<MBlock>) -> MFunction {
    let mut bs = EntityVec::new();
    for b in blocks {
        bs.push(b);
    }
    MFunction {
        name: "main".to_string(),
        k,
        slot_count,
        params: params.iter().map(|&(l, n)| (l, v(n))).collect(),
        blocks: bs,
    }
}

fn accept(f: &MFunction) {
    if let Err(e) = check_allocation(f) {
        panic!("rejected: {e}\n{}", ssaref::mir::print_function(f));
    }
}

fn reject(f: &MFunction) -> AllocCheckError {
    match check_allocation(f) {
        Ok(()) => panic!("accepted:\n{}", ssaref::mir::print_function(f)),
        Err(e) => e,
    }
}

/// Asserts that `e` is a wrong value in `loc` at `site`.
fn assert_wrong_value(e: &AllocCheckError, site: Site, loc: Loc, expected: u32, found: LocState) {
    assert_eq!(e.function, "main");
    assert_eq!(e.site, site, "{e}");
    assert_eq!(e.kind, AllocCheckErrorKind::WrongValue { loc, expected: v(expected), found }, "{e}");
}

// ---------------------------------------------------------------------------
// The programs. Each is given as SSA text and as allocations of it.

/// Straight-line code that needs spills with two registers.
const STRAIGHT_SSA: &str = "\
fn main(v0, v1) {
b0:
    v2 = add v0, v1
    v3 = sub v0, v1
    v4 = mul v2, v3
    v5 = add v4, v0
    out v5
    ret v2
}";

/// `STRAIGHT_SSA` with `k = 2`: v0 in rax and v1 in rcx on entry. Uses
/// spills, reloads, a swap and a move.
fn straight_allocated() -> MFunction {
    function(
        2,
        2,
        &[(reg(RAX), 0), (reg(RCX), 1)],
        vec![block(
            &[],
            vec![],
            vec![
                spill(0, RAX),
                bin(BinOp::Add, RAX, (RAX, 0), (RCX, 1), 2),
                spill(1, RAX),
                reload(RAX, 0),
                bin(BinOp::Sub, RCX, (RAX, 0), (RCX, 1), 3),
                // rax: v3, rcx: v0.
                swap(RAX, RCX),
                reload(RCX, 1),
                bin(BinOp::Mul, RAX, (RCX, 2), (RAX, 3), 4),
                reload(RCX, 0),
                bin(BinOp::Add, RAX, (RAX, 4), (RCX, 0), 5),
                out(RAX, 5),
                reload(RCX, 1),
                mov(RAX, RCX),
            ],
            ret(RAX, 2),
        )],
    )
}

/// A loop whose phis swap two values on every trip: the back edge's
/// parallel copy is the cycle (rax, rcx) := (rcx, rax).
const SWAP_LOOP_SSA: &str = "\
fn main(v0) {
b0:
    v1 = const 10
    v2 = const 20
    jump b1
b1(b0, b2):
    v3 = phi v1, v4
    v4 = phi v2, v3
    v5 = phi v0, v7
    br v5, b2, b3
b2(b1):
    out v3
    v6 = const 1
    v7 = sub v5, v6
    jump b1
b3(b1):
    v8 = sub v3, v4
    ret v8
}";

/// `SWAP_LOOP_SSA` with `k = 4`: v3 in rax, v4 in rcx, v5 in rdx. With
/// `with_swap` false, the swap that implements the cycle is missing.
fn swap_loop_allocated(with_swap: bool) -> MFunction {
    let mut body = vec![out(RAX, 3), konst(RBX, 1, 6), bin(BinOp::Sub, RDX, (RDX, 5), (RBX, 6), 7)];
    if with_swap {
        body.push(swap(RAX, RCX));
    }
    function(
        4,
        0,
        &[(reg(RAX), 0)],
        vec![
            block(&[], vec![], vec![mov(RDX, RAX), konst(RAX, 10, 1), konst(RCX, 20, 2)], jump(1)),
            block(
                &[0, 2],
                vec![phi(3, reg(RAX), &[1, 4]), phi(4, reg(RCX), &[2, 3]), phi(5, reg(RDX), &[0, 7])],
                vec![],
                br(RDX, 5, 2, 3),
            ),
            block(&[1], vec![], body, jump(1)),
            block(&[1], vec![], vec![bin(BinOp::Sub, RAX, (RAX, 3), (RCX, 4), 8)], ret(RAX, 8)),
        ],
    )
}

/// A value used after another is computed from it.
const CLOBBER_SSA: &str = "\
fn main(v0, v1) {
b0:
    v2 = add v0, v1
    v3 = mul v0, v2
    ret v3
}";

/// `CLOBBER_SSA` with v0 in rax, v1 in rcx. With `clobber`, v2 is computed
/// into rax, over v0, which the multiplication still reads.
fn clobber_allocated(clobber: bool) -> MFunction {
    let dst = if clobber { RAX } else { RCX };
    function(
        2,
        0,
        &[(reg(RAX), 0), (reg(RCX), 1)],
        vec![block(
            &[],
            vec![],
            vec![bin(BinOp::Add, dst, (RAX, 0), (RCX, 1), 2), bin(BinOp::Mul, RAX, (RAX, 0), (dst, 2), 3)],
            ret(RAX, 3),
        )],
    )
}

/// Phis whose parallel copy is a path: (rcx, rdx) := (rax, rcx).
const PATH_SSA: &str = "\
fn main(v0, v1) {
b0:
    v2 = const 100
    out v2
    jump b1
b1(b0):
    v3 = phi v0
    v4 = phi v1
    v5 = sub v3, v4
    ret v5
}";

/// `PATH_SSA` with v0 in rax and v1 in rcx on entry, v3 in rcx and v4 in
/// rdx. The path must be implemented from its end: first rdx = rcx, then
/// rcx = rax. With `wrong_order`, rcx is written before its value is read.
fn path_allocated(wrong_order: bool) -> MFunction {
    let copies = if wrong_order { vec![mov(RCX, RAX), mov(RDX, RCX)] } else { vec![mov(RDX, RCX), mov(RCX, RAX)] };
    let mut b0 = vec![konst(RDX, 100, 2), out(RDX, 2)];
    b0.extend(copies);
    function(
        3,
        0,
        &[(reg(RAX), 0), (reg(RCX), 1)],
        vec![
            block(&[], vec![], b0, jump(1)),
            block(
                &[0],
                vec![phi(3, reg(RCX), &[0]), phi(4, reg(RDX), &[1])],
                vec![bin(BinOp::Sub, RAX, (RCX, 3), (RDX, 4), 5)],
                ret(RAX, 5),
            ),
        ],
    )
}

/// Two values spilled and reloaded around a computation that needs both
/// registers.
const SPILL_SSA: &str = "\
fn main(v0, v1) {
b0:
    v2 = const 1
    v3 = const 2
    v4 = add v2, v3
    out v4
    v5 = sub v0, v1
    ret v5
}";

/// How `spill_allocated` goes wrong.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SpillBug {
    None,
    /// v0 is reloaded from v1's slot.
    WrongSlot,
    /// v0 is never stored to its slot.
    MissingStore,
}

/// `SPILL_SSA` with `k = 2`: v0 in rax and v1 in rcx on entry, spilled to
/// slots 0 and 1.
fn spill_allocated(bug: SpillBug) -> MFunction {
    let mut insts = Vec::new();
    if bug != SpillBug::MissingStore {
        insts.push(spill(0, RAX));
    }
    insts.extend([
        spill(1, RCX),
        konst(RAX, 1, 2),
        konst(RCX, 2, 3),
        bin(BinOp::Add, RAX, (RAX, 2), (RCX, 3), 4),
        out(RAX, 4),
        reload(RAX, if bug == SpillBug::WrongSlot { 1 } else { 0 }),
        reload(RCX, 1),
        bin(BinOp::Sub, RAX, (RAX, 0), (RCX, 1), 5),
    ]);
    function(2, 2, &[(reg(RAX), 0), (reg(RCX), 1)], vec![block(&[], vec![], insts, ret(RAX, 5))])
}

/// A value live across a diamond that one arm must not clobber.
const DIAMOND_SSA: &str = "\
fn main(v0, v1) {
b0:
    br v0, b1, b2
b1(b0):
    v2 = const 5
    out v2
    jump b3
b2(b0):
    jump b3
b3(b1, b2):
    ret v1
}";

/// `DIAMOND_SSA` with v0 in rax and v1 in rcx. With `conflict`, the then
/// arm puts v2 in rcx, so the join receives v2 from one predecessor and v1
/// from the other in the register its return reads.
fn diamond_allocated(conflict: bool) -> MFunction {
    let r2 = if conflict { RCX } else { RAX };
    function(
        2,
        0,
        &[(reg(RAX), 0), (reg(RCX), 1)],
        vec![
            block(&[], vec![], vec![], br(RAX, 0, 1, 2)),
            block(&[0], vec![], vec![konst(r2, 5, 2), out(r2, 2)], jump(3)),
            block(&[0], vec![], vec![], jump(3)),
            block(&[1, 2], vec![], vec![], ret(RCX, 1)),
        ],
    )
}

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

/// `SWAP_LOOP_SSA` with an `out v5` on exit from the loop.
const STALE_SSA: &str = "\
fn main(v0) {
b0:
    v1 = const 10
    v2 = const 20
    jump b1
b1(b0, b2):
    v3 = phi v1, v4
    v4 = phi v2, v3
    v5 = phi v0, v7
    br v5, b2, b3
b2(b1):
    out v3
    v6 = const 1
    v7 = sub v5, v6
    jump b1
b3(b1):
    out v5
    v8 = sub v3, v4
    ret v8
}";

/// `STALE_SSA` allocated like `SWAP_LOOP_SSA`, where the loop counter v5
/// is spilled at the start of the body and reloaded on exit. The slot then
/// holds the counter of the last trip, not the current v5 that the header's
/// phi defined since (or nothing, when the loop runs zero times).
fn stale_allocated() -> MFunction {
    let mut f = swap_loop_allocated(true);
    f.slot_count = 1;
    f.blocks[Block(2)].insts.insert(0, spill(0, RDX));
    f.blocks[Block(3)].insts.splice(0..0, [reload(RBX, 0), out(RBX, 5)]);
    f
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

// ---------------------------------------------------------------------------
// Structural errors.

fn kind_message(e: &AllocCheckError) -> String {
    match &e.kind {
        AllocCheckErrorKind::BadAnnotation(m) | AllocCheckErrorKind::Malformed(m) => m.clone(),
        other => panic!("expected a message, got {other:?}"),
    }
}

#[test]
fn rejects_bad_ranges() {
    let mut f = straight_allocated();
    f.k = 1;
    assert_eq!(reject(&f).kind, AllocCheckErrorKind::RegisterCount { k: 1 });
    f.k = 16;
    assert_eq!(reject(&f).kind, AllocCheckErrorKind::RegisterCount { k: 16 });
    let mut f = straight_allocated();
    f.slot_count = 1;
    let e = reject(&f);
    assert_eq!(e.kind, AllocCheckErrorKind::SlotOutOfRange { slot: Slot(1), slot_count: 1 });
    assert_eq!(e.site, Site::Inst { block: Block(0), index: 2 });
    let mut f = straight_allocated();
    f.params[1].0 = reg(RAX);
    let e = reject(&f);
    assert_eq!(e.site, Site::Param(1));
    assert!(kind_message(&e).contains("like an earlier parameter"), "{e}");
}

#[test]
fn rejects_annotations_that_do_not_fit() {
    let mut f = straight_allocated();
    f.blocks[Block(0)].insts[1].annot.reads.pop();
    let e = reject(&f);
    assert!(kind_message(&e).contains("names 1 read value(s) for 2 register"), "{e}");

    let mut f = straight_allocated();
    f.blocks[Block(0)].insts[1].annot.defines = None;
    assert!(kind_message(&reject(&f)).contains("defines no value"));

    let mut f = straight_allocated();
    f.blocks[Block(0)].insts[0].annot.defines = Some(v(9));
    assert!(kind_message(&reject(&f)).contains("a transfer carries an annotation"));

    let mut f = straight_allocated();
    f.blocks[Block(0)].insts[10].annot.defines = Some(v(9));
    assert!(kind_message(&reject(&f)).contains("writes no register"));

    let mut f = straight_allocated();
    f.blocks[Block(0)].term_reads = None;
    let e = reject(&f);
    assert_eq!(e.site, Site::Terminator(Block(0)));
    assert!(kind_message(&e).contains("`term_reads` names no value"));

    let mut f = swap_loop_allocated(true);
    f.blocks[Block(1)].phis[0].args.pop();
    assert!(kind_message(&reject(&f)).contains("1 arguments for 2 predecessors"));

    let mut f = swap_loop_allocated(true);
    f.blocks[Block(1)].phis[1].loc = reg(RAX);
    assert!(kind_message(&reject(&f)).contains("both live in rax"));

    let mut f = swap_loop_allocated(true);
    f.blocks[Block(1)].phis[1].dest = v(3);
    assert!(kind_message(&reject(&f)).contains("both define v3"));
}

#[test]
fn rejects_bad_control_flow() {
    let mut f = swap_loop_allocated(true);
    f.blocks[Block(1)].preds = vec![Block(0), Block(3)];
    let e = reject(&f);
    assert_eq!(e.site, Site::Block(Block(1)));
    assert_eq!(
        kind_message(&e),
        "the predecessor list [b0, b3] does not match the edges into the block, which come \
         from [b0, b2]"
    );

    let mut f = swap_loop_allocated(true);
    f.blocks[Block(2)].term = MTerm::Jump(Block(9));
    assert!(kind_message(&reject(&f)).contains("b9, which does not exist"));

    let mut f = swap_loop_allocated(true);
    f.blocks[Block(1)].preds.push(Block(77));
    assert!(kind_message(&reject(&f)).contains("b77 does not exist"));

    let mut f = swap_loop_allocated(true);
    f.blocks[Block(2)].term = MTerm::Jump(Block(0));
    f.blocks[Block(1)].preds = vec![Block(0)];
    f.blocks[Block(0)].preds = vec![Block(2)];
    let e = reject(&f);
    assert_eq!(e.site, Site::Block(Block(0)));
    assert_eq!(kind_message(&e), "the entry block has predecessors");

    let mut f = straight_allocated();
    f.blocks[Block(0)].phis.push(phi(9, reg(RAX), &[]));
    assert_eq!(kind_message(&reject(&f)), "the entry block has phis");

    let f = function(2, 0, &[], vec![]);
    assert!(kind_message(&reject(&f)).contains("no blocks"));

    let g = straight_allocated();
    let e = check_module(&MModule { functions: vec![g.clone(), g] }).expect_err("two functions named main");
    assert!(kind_message(&e).contains("same name"));
}

// ---------------------------------------------------------------------------
// Robustness.

#[test]
fn never_panics_on_random_garbage() {
    let mut rng = SmallRng::seed_from_u64(0x5eed_a110c);
    let mut rejected = 0;
    for _ in 0..3000 {
        let n_blocks = rng.gen_range(0..5u32);
        let any_reg = |rng: &mut SmallRng| Reg(rng.gen_range(0..18));
        let any_value = |rng: &mut SmallRng| v(rng.gen_range(0..6));
        let any_block = |rng: &mut SmallRng| rng.gen_range(0..n_blocks + 1);
        let any_loc = |rng: &mut SmallRng| {
            if rng.gen_bool(0.7) {
                Loc::Reg(any_reg(rng))
            } else {
                slot(rng.gen_range(0..4))
            }
        };
        let mut blocks = Vec::new();
        for _ in 0..n_blocks {
            let mut insts = Vec::new();
            for _ in 0..rng.gen_range(0..5) {
                let (d, a, b) = (any_reg(&mut rng), any_reg(&mut rng), any_reg(&mut rng));
                let inst = match rng.gen_range(0..7) {
                    0 => MInst::Const { dst: d, imm: 1 },
                    1 => MInst::Unary { op: UnOp::Neg, dst: d, src: a },
                    2 => MInst::Binary { op: BinOp::Add, dst: d, a, b },
                    3 => MInst::Move { dst: d, src: a },
                    4 => MInst::Swap { a, b },
                    5 => MInst::Spill { slot: Slot(rng.gen_range(0..4)), src: a },
                    _ => MInst::Reload { dst: d, slot: Slot(rng.gen_range(0..4)) },
                };
                let reads = (0..rng.gen_range(0..3)).map(|_| any_value(&mut rng)).collect();
                let defines = rng.gen_bool(0.6).then(|| any_value(&mut rng));
                insts.push(MInstA { inst, annot: Annot { reads, defines } });
            }
            let term = match rng.gen_range(0..3) {
                0 => MTerm::Jump(Block(any_block(&mut rng))),
                1 => MTerm::Branch {
                    cond: any_reg(&mut rng),
                    then_dest: Block(any_block(&mut rng)),
                    else_dest: Block(any_block(&mut rng)),
                },
                _ => MTerm::Return(any_reg(&mut rng)),
            };
            let preds: Vec<Block> = (0..rng.gen_range(0..3)).map(|_| Block(any_block(&mut rng))).collect();
            let phis = (0..rng.gen_range(0..2))
                .map(|_| PhiAnnot {
                    dest: any_value(&mut rng),
                    loc: any_loc(&mut rng),
                    args: (0..rng.gen_range(0..3)).map(|_| any_value(&mut rng)).collect(),
                })
                .collect();
            blocks.push(MBlock {
                preds,
                phis,
                insts,
                term,
                term_reads: rng.gen_bool(0.7).then(|| any_value(&mut rng)),
            });
        }
        let params: Vec<(Loc, u32)> = (0..rng.gen_range(0..3)).map(|i| (any_loc(&mut rng), i)).collect();
        let f = function(rng.gen_range(0..17), rng.gen_range(0..5), &params, blocks);
        if let Err(e) = check_allocation(&f) {
            // Printing must not panic either.
            let _ = e.to_string();
            rejected += 1;
        }
        let _ = check_no_scratch(&f);
    }
    assert!(rejected > 0);
}

#[test]
fn a_long_chain_of_blocks_needs_no_deep_stack() {
    // 20,000 blocks, each passing v0 on through a phi in alternating
    // registers, checked on a thread with a small stack.
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let n = 20_000u32;
            let mut blocks = vec![block(&[], vec![], vec![], jump(1))];
            for b in 1..n {
                // v(b) arrives in `here` and is moved on to `there`, where
                // the next block's phi expects it.
                let (here, there) = if b % 2 == 1 { (RCX, RAX) } else { (RAX, RCX) };
                let dest = phi(b, reg(here), &[b - 1]);
                blocks.push(if b + 1 < n {
                    block(&[b - 1], vec![dest], vec![mov(there, here)], jump(b + 1))
                } else {
                    block(&[b - 1], vec![dest], vec![], ret(here, b))
                });
            }
            let f = function(2, 0, &[(reg(RCX), 0)], blocks);
            check_allocation(&f)
        })
        .expect("spawns");
    assert_eq!(handle.join().expect("no stack overflow"), Ok(()));
}

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

/// `FixedDiv` (route 2's `cqo; idiv`): the dividend must be in rax, and
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
