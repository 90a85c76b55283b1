//! Tests of the oracle's machine level, `run_mir`, on hand-built allocated
//! modules: every instruction, traps, swaps, parameters, the detection of
//! reads of undefined registers and slots, fuel, and malformed input.
//!
//! The modules are built directly, so these tests depend on nothing of
//! ssaref but its data types, like the oracle itself.

use ssaref_interp::{run_mir, Interp, InterpError, DEFAULT_FUEL};
use ssaref_types::entity::EntityVec;
use ssaref_types::ir::{BinOp, Block, UnOp, Value};
use ssaref_types::mir::{Annot, Loc, MBlock, MFunction, MInst, MInstA, MModule, MTerm, PhiAnnot, Reg, Slot};
use ssaref_types::oracle::Oracle;
use ssaref_types::outcome::{End, Outcome, Trap};

const RAX: Reg = Reg(0);
const RCX: Reg = Reg(1);
const RDX: Reg = Reg(2);
const RBX: Reg = Reg(3);

// ---------------------------------------------------------------------------
// Construction helpers. The annotations are left empty: the engine must not
// look at them.

fn block(insts: Vec<MInst>, term: MTerm) -> MBlock {
    MBlock {
        preds: vec![],
        phis: vec![],
        insts: insts.into_iter().map(|inst| MInstA { inst, annot: Annot::default() }).collect(),
        term,
        term_reads: None,
    }
}

/// A module whose only function is `main` with `k` registers, `slot_count`
/// slots, parameters in `params` and the given blocks (`b0` first).
fn module(k: usize, slot_count: u32, params: Vec<Loc>, blocks: Vec<MBlock>) -> MModule {
    let mut bs = EntityVec::new();
    for b in blocks {
        bs.push(b);
    }
    MModule {
        functions: vec![MFunction {
            name: "main".to_string(),
            k,
            slot_count,
            params: params.into_iter().enumerate().map(|(i, l)| (l, Value(i as u32))).collect(),
            blocks: bs,
        }],
    }
}

/// A single block that runs `insts` and returns `ret`, with 4 registers
/// and 4 slots.
fn straight(insts: Vec<MInst>, ret: Reg) -> MModule {
    module(4, 4, vec![], vec![block(insts, MTerm::Return(ret))])
}

fn run(m: &MModule, args: &[i64]) -> Result<Outcome, InterpError> {
    run_mir(m, args, DEFAULT_FUEL)
}

/// The value `m` returns, failing on anything else.
fn returns(m: &MModule, args: &[i64]) -> i64 {
    match run(m, args) {
        Ok(Outcome { end: End::Return(v), .. }) => v,
        other => panic!("expected a return, got {other:?}"),
    }
}

fn malformed(m: &MModule) -> String {
    match run(m, &[]) {
        Err(InterpError::Malformed(msg)) => msg,
        other => panic!("expected Malformed, got {other:?}"),
    }
}

fn konst(dst: Reg, imm: i64) -> MInst {
    MInst::Const { dst, imm }
}

fn bin(op: BinOp, dst: Reg, a: Reg, b: Reg) -> MInst {
    MInst::Binary { op, dst, a, b }
}

/// `a op b` computed by the engine, with `a` in rcx and `b` in rdx.
fn binary(op: BinOp, a: i64, b: i64) -> End {
    let m = straight(vec![konst(RCX, a), konst(RDX, b), bin(op, RAX, RCX, RDX)], RAX);
    run(&m, &[]).expect("runs").end
}

// ---------------------------------------------------------------------------
// Operations.

#[test]
fn const_and_return() {
    assert_eq!(returns(&straight(vec![konst(RBX, -42)], RBX), &[]), -42);
    assert_eq!(returns(&straight(vec![konst(RAX, i64::MIN)], RAX), &[]), i64::MIN);
}

#[test]
fn unary_operations() {
    let un = |op, x| {
        let m = straight(vec![konst(RCX, x), MInst::Unary { op, dst: RAX, src: RCX }], RAX);
        returns(&m, &[])
    };
    assert_eq!(un(UnOp::Neg, 5), -5);
    assert_eq!(un(UnOp::Neg, i64::MIN), i64::MIN);
    assert_eq!(un(UnOp::Not, 0), 1);
    assert_eq!(un(UnOp::Not, 7), 0);
    assert_eq!(un(UnOp::BitNot, 0), -1);
}

#[test]
fn binary_operations_take_their_operands_in_order() {
    assert_eq!(binary(BinOp::Sub, 10, 3), End::Return(7));
    assert_eq!(binary(BinOp::Div, -7, 2), End::Return(-3));
    assert_eq!(binary(BinOp::Rem, -7, 2), End::Return(-1));
    assert_eq!(binary(BinOp::Shl, 3, 65), End::Return(6));
    assert_eq!(binary(BinOp::Shr, -8, 1), End::Return(-4));
    assert_eq!(binary(BinOp::Lt, 1, 2), End::Return(1));
    assert_eq!(binary(BinOp::Lt, 2, 1), End::Return(0));
    assert_eq!(binary(BinOp::Add, i64::MAX, 1), End::Return(i64::MIN));
    assert_eq!(binary(BinOp::Mul, 1 << 62, 4), End::Return(0));
    assert_eq!(binary(BinOp::Xor, 6, 3), End::Return(5));
}

#[test]
fn binary_operation_may_overwrite_its_operand() {
    // `rcx = sub rcx, rdx` reads both operands before writing.
    let m = straight(vec![konst(RCX, 10), konst(RDX, 4), bin(BinOp::Sub, RCX, RCX, RDX)], RCX);
    assert_eq!(returns(&m, &[]), 6);
    let m = straight(vec![konst(RCX, 9), bin(BinOp::Mul, RCX, RCX, RCX)], RCX);
    assert_eq!(returns(&m, &[]), 81);
}

#[test]
fn division_traps_keep_the_trace_and_memory() {
    assert_eq!(binary(BinOp::Div, 1, 0), End::Trap(Trap::DivideError));
    assert_eq!(binary(BinOp::Rem, 1, 0), End::Trap(Trap::DivideError));
    assert_eq!(binary(BinOp::Div, i64::MIN, -1), End::Trap(Trap::DivideError));
    assert_eq!(binary(BinOp::Rem, i64::MIN, -1), End::Trap(Trap::DivideError));
    let m = straight(
        vec![
            konst(RCX, 5),
            MInst::Out { src: RCX },
            MInst::Store { addr: RCX, src: RCX },
            konst(RDX, 0),
            bin(BinOp::Div, RAX, RCX, RDX),
            // Not reached.
            MInst::Out { src: RCX },
        ],
        RAX,
    );
    let o = run(&m, &[]).expect("runs");
    assert_eq!(o.end, End::Trap(Trap::DivideError));
    assert_eq!(o.trace, vec![5]);
    assert_eq!(o.nonzero_mem(), vec![(5, 5)]);
}

#[test]
fn load_store_and_out() {
    let m = straight(
        vec![
            konst(RCX, -1),
            konst(RDX, 77),
            // mem[-1 & 4095] = mem[4095].
            MInst::Store { addr: RCX, src: RDX },
            konst(RBX, 4095),
            MInst::Load { dst: RAX, addr: RBX },
            MInst::Out { src: RAX },
            MInst::Out { src: RCX },
        ],
        RAX,
    );
    let o = run(&m, &[]).expect("runs");
    assert_eq!(o.end, End::Return(77));
    assert_eq!(o.trace, vec![77, -1]);
    assert_eq!(o.nonzero_mem(), vec![(4095, 77)]);
    assert_eq!(o.mem.len(), 4096);
}

// ---------------------------------------------------------------------------
// Transfers.

#[test]
fn move_copies_and_keeps_the_source() {
    let m = straight(
        vec![
            konst(RCX, 3),
            MInst::Move { dst: RAX, src: RCX },
            konst(RDX, 10),
            bin(BinOp::Mul, RAX, RAX, RDX),
            bin(BinOp::Add, RAX, RAX, RCX),
        ],
        RAX,
    );
    assert_eq!(returns(&m, &[]), 33);
}

#[test]
fn swap_exchanges() {
    let m = straight(
        vec![
            konst(RAX, 1),
            konst(RCX, 2),
            MInst::Swap { a: RAX, b: RCX },
            MInst::Out { src: RAX },
            MInst::Out { src: RCX },
            // Swapping a register with itself changes nothing.
            MInst::Swap { a: RCX, b: RCX },
            MInst::Out { src: RCX },
        ],
        RAX,
    );
    let o = run(&m, &[]).expect("runs");
    assert_eq!(o.trace, vec![2, 1, 1]);
    assert_eq!(o.end, End::Return(2));
}

#[test]
fn a_three_cycle_of_swaps() {
    // (rax, rcx, rdx) := (rcx, rdx, rax) with two swaps, no scratch.
    let m = straight(
        vec![
            konst(RAX, 1),
            konst(RCX, 2),
            konst(RDX, 3),
            MInst::Swap { a: RAX, b: RCX },
            MInst::Swap { a: RCX, b: RDX },
            MInst::Out { src: RAX },
            MInst::Out { src: RCX },
            MInst::Out { src: RDX },
        ],
        RAX,
    );
    assert_eq!(run(&m, &[]).expect("runs").trace, vec![2, 3, 1]);
}

#[test]
fn spill_and_reload() {
    let m = straight(
        vec![
            konst(RCX, 11),
            MInst::Spill { slot: Slot(3), src: RCX },
            konst(RCX, 0),
            MInst::Reload { dst: RAX, slot: Slot(3) },
            // The slot keeps its value after a reload.
            MInst::Reload { dst: RDX, slot: Slot(3) },
            bin(BinOp::Add, RAX, RAX, RDX),
            bin(BinOp::Add, RAX, RAX, RCX),
        ],
        RAX,
    );
    assert_eq!(returns(&m, &[]), 22);
}

// ---------------------------------------------------------------------------
// Parameters.

#[test]
fn parameters_arrive_in_their_locations() {
    let m = module(
        3,
        2,
        vec![Loc::Reg(RCX), Loc::Slot(Slot(1)), Loc::Reg(RAX)],
        vec![block(
            vec![
                MInst::Reload { dst: RDX, slot: Slot(1) },
                bin(BinOp::Sub, RCX, RCX, RDX),
                bin(BinOp::Sub, RAX, RCX, RAX),
            ],
            MTerm::Return(RAX),
        )],
    );
    assert_eq!(returns(&m, &[100, 10, 1]), 89);
    // Missing arguments are 0.
    assert_eq!(returns(&m, &[100]), 100);
    assert_eq!(returns(&m, &[]), 0);
    assert_eq!(run(&m, &[1, 2, 3, 4]), Err(InterpError::TooManyArguments { expected: 3, got: 4 }));
}

// ---------------------------------------------------------------------------
// Control flow.

/// `s = 0; for (i = n; i != 0; i = i - 1) { out i; s = s + i }; return s`,
/// with `n` in rax, `i` in rcx, `s` in rdx and 1 in rbx. The header's phi
/// annotations name registers that do not match the code and a slot beyond
/// `slot_count`: the engine must not look at them.
fn countdown() -> MModule {
    let b0 = block(vec![MInst::Move { dst: RCX, src: RAX }, konst(RDX, 0), konst(RBX, 1)], MTerm::Jump(Block(1)));
    let mut b1 = block(vec![], MTerm::Branch { cond: RCX, then_dest: Block(2), else_dest: Block(3) });
    b1.preds = vec![Block(0), Block(2)];
    b1.phis = vec![PhiAnnot { dest: Value(9), loc: Loc::Slot(Slot(99)), args: vec![Value(7), Value(8)] }];
    let mut b2 = block(
        vec![MInst::Out { src: RCX }, bin(BinOp::Add, RDX, RDX, RCX), bin(BinOp::Sub, RCX, RCX, RBX)],
        MTerm::Jump(Block(1)),
    );
    b2.preds = vec![Block(1)];
    let mut b3 = block(vec![], MTerm::Return(RDX));
    b3.preds = vec![Block(1)];
    module(4, 0, vec![Loc::Reg(RAX)], vec![b0, b1, b2, b3])
}

#[test]
fn branches_and_a_loop() {
    let o = run(&countdown(), &[4]).expect("runs");
    assert_eq!(o.trace, vec![4, 3, 2, 1]);
    assert_eq!(o.end, End::Return(10));
    assert_eq!(returns(&countdown(), &[0]), 0);
}

#[test]
fn a_branch_to_the_same_block_twice() {
    let m = module(
        2,
        0,
        vec![Loc::Reg(RAX)],
        vec![
            block(vec![], MTerm::Branch { cond: RAX, then_dest: Block(1), else_dest: Block(1) }),
            block(vec![MInst::Out { src: RAX }], MTerm::Return(RAX)),
        ],
    );
    assert_eq!(returns(&m, &[0]), 0);
    assert_eq!(returns(&m, &[5]), 5);
}

// ---------------------------------------------------------------------------
// Fuel: one unit per instruction and per terminator.

#[test]
fn fuel_counts_instructions_and_terminators() {
    let m = straight(vec![konst(RAX, 1), MInst::Out { src: RAX }, konst(RAX, 2)], RAX);
    let o = run_mir(&m, &[], 4).expect("runs");
    assert_eq!(o.end, End::Return(2));
    let o = run_mir(&m, &[], 3).expect("runs");
    assert_eq!(o.end, End::OutOfFuel);
    assert_eq!(o.trace, vec![1]);
    let o = run_mir(&m, &[], 0).expect("runs");
    assert_eq!(o.end, End::OutOfFuel);
    assert!(o.trace.is_empty());
}

#[test]
fn fuel_stops_an_infinite_loop() {
    let m = module(
        2,
        0,
        vec![],
        vec![
            block(vec![konst(RAX, 7)], MTerm::Jump(Block(1))),
            block(vec![MInst::Out { src: RAX }], MTerm::Jump(Block(1))),
        ],
    );
    // 2 units for b0, then 2 per trip around b1.
    let o = run_mir(&m, &[], 12).expect("runs");
    assert_eq!(o.end, End::OutOfFuel);
    assert_eq!(o.trace, vec![7; 5]);
    // The countdown from 4: 4 units in b0, 5 branches, 4 trips of 4 units
    // through b2, and the return.
    let o = run_mir(&countdown(), &[4], 4 + 5 + 16 + 1).expect("runs");
    assert_eq!(o.end, End::Return(10));
    let o = run_mir(&countdown(), &[4], 4 + 5 + 16).expect("runs");
    assert_eq!(o.end, End::OutOfFuel);
}

// ---------------------------------------------------------------------------
// Reads of locations nothing has written.

#[test]
fn an_operation_reading_an_unwritten_register_is_an_error() {
    let m = straight(vec![konst(RCX, 1), bin(BinOp::Add, RAX, RCX, RDX)], RAX);
    let e = run(&m, &[]).expect_err("rdx was never written");
    assert_eq!(e, InterpError::UseOfUndefinedLocation { loc: Loc::Reg(RDX), block: Block(0), inst: Some(1) });
    assert_eq!(e.to_string(), "instruction 1 of b0 reads rdx, which has not been written in this run");
}

#[test]
fn a_terminator_reading_an_unwritten_register_is_an_error() {
    let m = straight(vec![konst(RCX, 1)], RAX);
    let e = run(&m, &[]).expect_err("rax was never written");
    assert_eq!(e, InterpError::UseOfUndefinedLocation { loc: Loc::Reg(RAX), block: Block(0), inst: None });
    assert_eq!(e.to_string(), "the terminator of b0 reads rax, which has not been written in this run");
    let b0 = block(vec![], MTerm::Branch { cond: RBX, then_dest: Block(0), else_dest: Block(0) });
    assert!(matches!(
        run(&module(4, 0, vec![], vec![b0]), &[]),
        Err(InterpError::UseOfUndefinedLocation { inst: None, .. })
    ));
}

#[test]
fn a_reload_of_an_unwritten_slot_is_caught_at_the_use() {
    // The allocator forgot the spill: the reload fetches garbage, and the
    // `out` that uses it is the error. A zero default would print 0.
    let m = straight(
        vec![
            konst(RCX, 0),
            MInst::Reload { dst: RAX, slot: Slot(2) },
            MInst::Out { src: RCX },
            MInst::Out { src: RAX },
        ],
        RCX,
    );
    assert_eq!(
        run(&m, &[]),
        Err(InterpError::UseOfUndefinedLocation { loc: Loc::Reg(RAX), block: Block(0), inst: Some(3) })
    );
}

#[test]
fn transfers_carry_undefinedness_without_failing() {
    // Moving, swapping and spilling garbage is harmless as long as nothing
    // uses it.
    let m = straight(
        vec![
            konst(RAX, 5),
            MInst::Move { dst: RDX, src: RBX },
            MInst::Spill { slot: Slot(0), src: RDX },
            MInst::Swap { a: RCX, b: RBX },
        ],
        RAX,
    );
    assert_eq!(returns(&m, &[]), 5);
    // But a swap moves the garbage into the register the return reads.
    let m = straight(vec![konst(RAX, 5), MInst::Swap { a: RAX, b: RCX }], RAX);
    assert_eq!(
        run(&m, &[]),
        Err(InterpError::UseOfUndefinedLocation { loc: Loc::Reg(RAX), block: Block(0), inst: None })
    );
    // And a move of garbage overwrites a defined register.
    let m = straight(vec![konst(RCX, 5), MInst::Move { dst: RCX, src: RDX }, MInst::Out { src: RCX }], RCX);
    assert!(matches!(run(&m, &[]), Err(InterpError::UseOfUndefinedLocation { loc: Loc::Reg(RCX), inst: Some(2), .. })));
}

// ---------------------------------------------------------------------------
// Malformed input: reported, never a panic.

#[test]
fn register_counts_outside_the_target_are_malformed() {
    for k in [0, 1, 16, 100] {
        let m = module(k, 0, vec![], vec![block(vec![], MTerm::Return(RAX))]);
        assert!(malformed(&m).contains("registers"), "k = {k}");
    }
    let m = module(15, 0, vec![], vec![block(vec![konst(Reg(14), 3)], MTerm::Return(Reg(14)))]);
    assert_eq!(returns(&m, &[]), 3);
}

#[test]
fn a_register_beyond_k_is_malformed() {
    // With k = 3, rbx (register 3) would be a scratch register.
    let m = module(3, 0, vec![], vec![block(vec![konst(RBX, 1)], MTerm::Return(RAX))]);
    assert!(malformed(&m).contains("register 3 is not one of the 3 allocatable registers"));
    let m = module(3, 0, vec![], vec![block(vec![konst(RAX, 1)], MTerm::Return(RBX))]);
    malformed(&m);
    let m = module(3, 0, vec![Loc::Reg(Reg(200))], vec![block(vec![], MTerm::Return(RAX))]);
    malformed(&m);
    let m = module(3, 0, vec![], vec![block(vec![MInst::Swap { a: RAX, b: Reg(255) }], MTerm::Return(RAX))]);
    malformed(&m);
    // Even in a block that is never reached.
    let m = module(
        3,
        0,
        vec![],
        vec![block(vec![konst(RAX, 1)], MTerm::Return(RAX)), block(vec![konst(RBX, 1)], MTerm::Return(RAX))],
    );
    malformed(&m);
}

#[test]
fn a_slot_beyond_slot_count_is_malformed() {
    let m = module(
        2,
        2,
        vec![],
        vec![block(vec![konst(RAX, 1), MInst::Spill { slot: Slot(2), src: RAX }], MTerm::Return(RAX))],
    );
    assert!(malformed(&m).contains("slot 2 is out of range (slot_count 2)"));
    let m = module(2, 0, vec![Loc::Slot(Slot(0))], vec![block(vec![], MTerm::Return(RAX))]);
    malformed(&m);
}

#[test]
fn a_huge_slot_count_costs_nothing() {
    let m = module(
        2,
        u32::MAX,
        vec![],
        vec![block(
            vec![konst(RAX, 8), MInst::Spill { slot: Slot(1), src: RAX }, MInst::Reload { dst: RCX, slot: Slot(1) }],
            MTerm::Return(RCX),
        )],
    );
    assert_eq!(returns(&m, &[]), 8);
}

#[test]
fn bad_blocks_and_parameters_are_malformed() {
    let m = module(2, 0, vec![], vec![block(vec![], MTerm::Jump(Block(5)))]);
    assert!(malformed(&m).contains("b5, which does not exist"));
    let m = module(2, 0, vec![], vec![]);
    assert!(malformed(&m).contains("no blocks"));
    let m = module(2, 0, vec![Loc::Reg(RAX), Loc::Reg(RAX)], vec![block(vec![], MTerm::Return(RAX))]);
    assert!(malformed(&m).contains("same location"));
    let mut m = straight(vec![konst(RAX, 1)], RAX);
    m.functions[0].name = "other".to_string();
    assert_eq!(run(&m, &[]), Err(InterpError::NoMain));
}

#[test]
fn the_oracle_trait_reaches_the_machine_engine() {
    let o = Interp.run_mir(&countdown(), &[3], DEFAULT_FUEL).expect("runs");
    assert_eq!(o.trace, vec![3, 2, 1]);
    assert_eq!(o.end, End::Return(6));
    let e = Interp.run_mir(&straight(vec![], RAX), &[], DEFAULT_FUEL).expect_err("rax is unwritten");
    assert!(matches!(e, InterpError::UseOfUndefinedLocation { inst: None, .. }), "{e}");
    assert!(e.to_string().contains("reads rax"), "{e}");
}
