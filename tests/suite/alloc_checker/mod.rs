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
use ssaref::analysis::verifier::verify_module;
use ssaref::checkers::alloc_checker::{
    check_allocation, check_module, check_no_scratch, AllocCheckError, AllocCheckErrorKind, LocState, Site,
};
use ssaref::entity::EntityVec;
use ssaref::ir::{BinOp, Block, UnOp, Value};
use ssaref::mir::{Annot, Loc, MBlock, MFunction, MInst, MInstA, MModule, MTerm, PhiAnnot, Reg, Slot};
use ssaref::outcome::{End, Outcome};
use ssaref::ssa_text::parse_module;
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

mod accept_reject;
mod memo;
mod oracle_agreement;
mod structural;
