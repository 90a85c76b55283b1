//! Tests of the oracle's machine level with calls, `run_mir` on
//! hand-built modules: arguments in the convention's registers and on the
//! stack, the result in rax, caller-saved registers without a value after
//! a call, callee-saved registers and slots kept, one fuel budget, the call
//! depth bound, and malformed calls.
//!
//! The convention at K = 4 (docs/calling-convention.md): arguments in rdx,
//! rcx, then the stack; rbx callee-saved; rax, rcx, rdx caller-saved. At
//! K = 2: arguments in rcx, then the stack; no callee-saved register.

use ssaref_interp::{run_mir, InterpError, DEFAULT_FUEL};
use ssaref_types::ast::MAX_CALL_DEPTH;
use ssaref_types::entity::EntityVec;
use ssaref_types::ir::{BinOp, Value};
use ssaref_types::mir::{Annot, Loc, MBlock, MCall, MFunction, MInst, MInstA, MModule, MTerm, Reg, Slot};
use ssaref_types::outcome::{End, Outcome};

const RAX: Reg = Reg(0);
const RCX: Reg = Reg(1);
const RDX: Reg = Reg(2);
const RBX: Reg = Reg(3);

fn function(name: &str, k: usize, slot_count: u32, params: Vec<Loc>, insts: Vec<MInst>, ret: Reg) -> MFunction {
    let mut blocks = EntityVec::new();
    blocks.push(MBlock {
        preds: vec![],
        phis: vec![],
        insts: insts.into_iter().map(|inst| MInstA { inst, annot: Annot::default() }).collect(),
        term: MTerm::Return(ret),
        term_reads: None,
    });
    let params = params.into_iter().enumerate().map(|(i, l)| (l, Value(i as u32))).collect();
    MFunction { name: name.to_string(), k, slot_count, params, blocks }
}

fn call(callee: &str, args: Vec<Loc>) -> MInst {
    MInst::Call(Box::new(MCall { callee: callee.to_string(), args }))
}

fn reg(r: Reg) -> Loc {
    Loc::Reg(r)
}

fn run(functions: Vec<MFunction>, fuel: u64) -> Result<Outcome, InterpError> {
    run_mir(&MModule { functions }, &[], fuel)
}

fn returns(functions: Vec<MFunction>) -> i64 {
    match run(functions, DEFAULT_FUEL) {
        Ok(Outcome { end: End::Return(v), .. }) => v,
        other => panic!("expected a return, got {other:?}"),
    }
}

fn malformed(functions: Vec<MFunction>) -> String {
    match run(functions, DEFAULT_FUEL) {
        Err(InterpError::Malformed(m)) => m,
        other => panic!("expected Malformed, got {other:?}"),
    }
}

/// `sub(a, b) = a - b` at K = 4, which also overwrites rbx (its prologue
/// and epilogue would save and restore it).
fn sub() -> MFunction {
    let insts = vec![MInst::Binary { op: BinOp::Sub, dst: RAX, a: RDX, b: RCX }, MInst::Const { dst: RBX, imm: 1 }];
    function("sub", 4, 0, vec![reg(RDX), reg(RCX)], insts, RAX)
}

#[test]
fn arguments_in_order_result_in_rax_callee_saved_kept() {
    let main = vec![
        MInst::Const { dst: RDX, imm: 5 },
        MInst::Const { dst: RCX, imm: 7 },
        MInst::Const { dst: RBX, imm: 100 },
        call("sub", vec![reg(RDX), reg(RCX)]),
        MInst::Binary { op: BinOp::Add, dst: RAX, a: RAX, b: RBX },
    ];
    assert_eq!(returns(vec![function("main", 4, 0, vec![], main, RAX), sub()]), 98);
}

#[test]
fn caller_saved_registers_hold_nothing_after_a_call() {
    let main = vec![
        MInst::Const { dst: RDX, imm: 5 },
        MInst::Const { dst: RCX, imm: 7 },
        call("sub", vec![reg(RDX), reg(RCX)]),
        MInst::Binary { op: BinOp::Add, dst: RAX, a: RAX, b: RCX },
    ];
    let got = run(vec![function("main", 4, 0, vec![], main, RAX), sub()], DEFAULT_FUEL);
    assert!(matches!(got, Err(InterpError::UseOfUndefinedLocation { loc: Loc::Reg(RCX), .. })), "{got:?}");
}

#[test]
fn slots_survive_a_call_and_stack_arguments_go_anywhere() {
    // K = 2: one argument register (rcx); `f(a, b, c) = a - b + c` takes
    // b in its slot 0 and c in rax.
    let f_insts = vec![
        MInst::Spill { slot: Slot(1), src: RAX },
        MInst::Reload { dst: RAX, slot: Slot(0) },
        MInst::Binary { op: BinOp::Sub, dst: RCX, a: RCX, b: RAX },
        MInst::Reload { dst: RAX, slot: Slot(1) },
        MInst::Binary { op: BinOp::Add, dst: RAX, a: RCX, b: RAX },
    ];
    let f = function("f", 2, 2, vec![reg(RCX), Loc::Slot(Slot(0)), reg(RAX)], f_insts, RAX);
    let main = vec![
        MInst::Const { dst: RAX, imm: 40 },
        MInst::Spill { slot: Slot(0), src: RAX },
        MInst::Const { dst: RAX, imm: 2 },
        MInst::Spill { slot: Slot(1), src: RAX },
        MInst::Const { dst: RCX, imm: 10 },
        MInst::Const { dst: RAX, imm: 1000 },
        call("f", vec![reg(RCX), Loc::Slot(Slot(0)), reg(RAX)]),
        MInst::Reload { dst: RCX, slot: Slot(1) },
        MInst::Binary { op: BinOp::Mul, dst: RAX, a: RAX, b: RCX },
    ];
    assert_eq!(returns(vec![function("main", 2, 2, vec![], main, RAX), f]), (10 - 40 + 1000) * 2);
}

#[test]
fn recursion_stops_at_the_depth_bound_with_its_trace() {
    let f = function(
        "f",
        2,
        0,
        vec![],
        vec![MInst::Const { dst: RAX, imm: 3 }, MInst::Out { src: RAX }, call("f", vec![])],
        RAX,
    );
    let main = function("main", 2, 0, vec![], vec![call("f", vec![])], RAX);
    let got = run(vec![main, f], u64::MAX).expect("runs");
    assert_eq!(got.end, End::CallDepthExceeded);
    // main is one activation; f ran MAX_CALL_DEPTH - 1 times.
    assert_eq!(got.trace.len(), MAX_CALL_DEPTH - 1);
}

#[test]
fn one_fuel_budget_covers_the_call_tree() {
    // main: call, add; f: const, ret; 5 units in all (with main's return).
    let f = function("f", 2, 0, vec![], vec![MInst::Const { dst: RAX, imm: 3 }], RAX);
    let main = vec![call("f", vec![]), MInst::Binary { op: BinOp::Add, dst: RAX, a: RAX, b: RAX }];
    let module = || vec![function("main", 2, 0, vec![], main.clone(), RAX), f.clone()];
    assert_eq!(run(module(), 5).expect("runs").end, End::Return(6));
    assert_eq!(run(module(), 4).expect("runs").end, End::OutOfFuel);
}

#[test]
fn an_undefined_argument_is_a_use_of_an_undefined_location() {
    let main = vec![MInst::Const { dst: RDX, imm: 5 }, call("sub", vec![reg(RDX), reg(RCX)])];
    let got = run(vec![function("main", 4, 0, vec![], main, RAX), sub()], DEFAULT_FUEL);
    assert!(matches!(got, Err(InterpError::UseOfUndefinedLocation { loc: Loc::Reg(RCX), .. })), "{got:?}");
}

#[test]
fn malformed_calls() {
    let main = |args: Vec<Loc>, callee: &str| function("main", 4, 1, vec![], vec![call(callee, args)], RAX);
    // Arguments swapped: the first argument's register is rdx at K = 4.
    let m = malformed(vec![main(vec![reg(RCX), reg(RDX)], "sub"), sub()]);
    assert!(m.contains("argument 0 is in rcx") && m.contains("puts it in rdx"), "{m}");
    let m = malformed(vec![main(vec![reg(RDX)], "sub"), sub()]);
    assert!(m.contains("with 1 arguments"), "{m}");
    let m = malformed(vec![main(vec![], "nowhere"), sub()]);
    assert!(m.contains("does not exist"), "{m}");
    let m = malformed(vec![main(vec![reg(RDX), Loc::Slot(Slot(1))], "sub"), sub()]);
    assert!(m.contains("slot 1 is out of range"), "{m}");
    // A parameter outside its convention register, in a module with calls.
    let mut odd = sub();
    odd.params[0].0 = reg(RAX);
    let m = malformed(vec![main(vec![reg(RDX), reg(RCX)], "sub"), odd]);
    assert!(m.contains("parameter 0 is in rax"), "{m}");
}

#[test]
fn a_call_prints_with_its_argument_locations() {
    let text = call("f", vec![reg(RDX), reg(RCX), Loc::Slot(Slot(3))]).to_string();
    assert_eq!(text, "rax = call f(rdx, rcx, [s3])");
}
