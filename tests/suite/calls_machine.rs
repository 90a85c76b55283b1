//! Calls at the machine level (docs/calling-convention.md): regalloc2's
//! allocation of every program with calls under the convention of each K,
//! and planted mistakes in allocated code with calls, each caught.
//!
//! - Every case of `tests/cases/` and program of `tests/corpus/` with calls
//!   agrees with its expected outcome at every regalloc2 stage, the
//!   machine IR and its x86-64 code under Unicorn, for every K from 2 to
//!   15, with regalloc2's checker, ssaref's allocation checker and the
//!   machine-code checker accepting:
//!   `every_call_program_agrees_on_regalloc2_at_every_k`.
//! - A value kept in a caller-saved register across a call is rejected by
//!   the allocation checker (the register is `Clobbered`) and by the MIR
//!   oracle (a read of a location with no value), while the same code with
//!   the value in a callee-saved register passes both:
//!   `a_caller_saved_value_across_a_call_is_caught`.
//! - Arguments swapped at a call of regalloc2's code, by a swap of the
//!   argument registers before it, are rejected by the allocation checker
//!   and change the MIR oracle's outcome; a call whose argument list names
//!   the registers in the wrong order is malformed for both:
//!   `arguments_swapped_at_a_call_are_caught`.

use crate::common::call_programs::assert_every_call_program_agrees;
use crate::common::parse_case;
use ssaref::checkers::alloc_checker::{check_module, AllocCheckErrorKind, LocState};
use ssaref::differential::{later_stage_fuel, DiffConfig};
use ssaref::entity::EntityVec;
use ssaref::frontend::parser::parse_program;
use ssaref::ir::{BinOp, Value};
use ssaref::machine::calling_convention::CallingConvention;
use ssaref::mir::{Annot, Loc, MBlock, MCall, MFunction, MInst, MInstA, MModule, MTerm, Reg};
use ssaref::outcome::End;
use ssaref_interp::InterpError;

const FUEL: u64 = 1_000_000;

#[test]
fn every_call_program_agrees_on_regalloc2_at_every_k() {
    let regs: Vec<usize> = (2..=15).collect();
    let mut config = DiffConfig::standard(&regs, FUEL).regalloc2_only();
    config.variants.truncate(1);
    let stages: Vec<String> =
        regs.iter().flat_map(|k| [format!("regalloc2[k={k}]"), format!("x86-regalloc2[k={k}]")]).collect();
    assert_every_call_program_agrees(&config, &stages, 11);
}

fn inst(inst: MInst, reads: &[u32], defines: Option<u32>) -> MInstA {
    let reads = reads.iter().map(|&v| Value(v)).collect();
    MInstA { inst, annot: Annot { reads, defines: defines.map(Value) } }
}

fn function(name: &str, params: Vec<(Loc, Value)>, insts: Vec<MInstA>, ret: (Reg, u32)) -> MFunction {
    let mut blocks = EntityVec::new();
    let term = MTerm::Return(ret.0);
    blocks.push(MBlock { preds: vec![], phis: vec![], insts, term, term_reads: Some(Value(ret.1)) });
    MFunction { name: name.to_string(), k: 4, slot_count: 0, params, blocks }
}

/// At K = 4 (arguments in rdx, rcx; rbx callee-saved): `main` keeps
/// `v0 = 5` in `keep` across `double(7)` and returns `double(7) + v0`.
fn across_a_call(keep: Reg) -> MModule {
    let (rax, rdx) = (Reg(0), Reg(2));
    let double = function(
        "double",
        vec![(Loc::Reg(rdx), Value(0))],
        vec![inst(MInst::Binary { op: BinOp::Add, dst: rax, a: rdx, b: rdx }, &[0, 0], Some(1))],
        (rax, 1),
    );
    let call = MInst::Call(Box::new(MCall { callee: "double".into(), args: vec![Loc::Reg(rdx)] }));
    let main = function(
        "main",
        vec![],
        vec![
            inst(MInst::Const { dst: keep, imm: 5 }, &[], Some(0)),
            inst(MInst::Const { dst: rdx, imm: 7 }, &[], Some(1)),
            inst(call, &[1], Some(2)),
            inst(MInst::Binary { op: BinOp::Add, dst: rax, a: rax, b: keep }, &[2, 0], Some(3)),
        ],
        (rax, 3),
    );
    MModule { functions: vec![main, double] }
}

#[test]
fn a_caller_saved_value_across_a_call_is_caught() {
    let rbx = Reg(3);
    let good = across_a_call(rbx);
    assert_eq!(check_module(&good), Ok(()));
    assert_eq!(ssaref_interp::run_mir(&good, &[], FUEL).unwrap().end, End::Return(19));
    // rcx is caller-saved at K = 4: the call leaves it without a value.
    let rcx = Reg(1);
    let planted = across_a_call(rcx);
    let e = check_module(&planted).unwrap_err();
    assert_eq!(
        e.kind,
        AllocCheckErrorKind::WrongValue { loc: Loc::Reg(rcx), expected: Value(0), found: LocState::Clobbered }
    );
    let got = ssaref_interp::run_mir(&planted, &[], FUEL);
    assert!(matches!(got, Err(InterpError::UseOfUndefinedLocation { loc: Loc::Reg(r), .. }) if r == rcx), "{got:?}");
}

#[test]
fn arguments_swapped_at_a_call_are_caught() {
    let text = std::fs::read_to_string("tests/cases/calls_argument_swap.src").unwrap();
    let case = parse_case(&text).unwrap();
    let ssa = ssaref::construction::braun::construct_program(&parse_program(&case.body).unwrap(), &Default::default());
    let fuel = later_stage_fuel(FUEL);
    for k in 3..=15 {
        let (mir, _) = crate::common::passes::allocate_regalloc2_module(&ssa, k).unwrap();
        assert_eq!(check_module(&mir), Ok(()), "K = {k}");
        let expected = ssaref_interp::run_mir(&mir, &case.args, fuel).unwrap();
        assert_eq!(expected.render_full(), case.expect, "K = {k}");
        let convention = CallingConvention::for_k(k).unwrap();
        let (first, second) = (convention.arg_regs[0], convention.arg_regs[1]);
        let main = mir.functions.iter().position(|f| f.name == "main").unwrap();
        let (b, i) = mir.functions[main]
            .blocks
            .iter()
            .find_map(|(b, d)| d.insts.iter().position(|x| matches!(x.inst, MInst::Call(_))).map(|i| (b, i)))
            .unwrap();
        // The argument registers exchanged just before the call.
        let mut planted = mir.clone();
        let swap = MInstA { inst: MInst::Swap { a: first, b: second }, annot: Annot::default() };
        planted.functions[main].blocks[b].insts.insert(i, swap);
        let e = check_module(&planted).unwrap_err();
        assert!(matches!(e.kind, AllocCheckErrorKind::WrongValue { .. }), "K = {k}: {e}");
        let got = ssaref_interp::run_mir(&planted, &case.args, fuel).unwrap();
        assert_ne!(got, expected, "K = {k}");
        // The call's argument list in the wrong order: malformed.
        let mut planted = mir.clone();
        if let MInst::Call(call) = &mut planted.functions[main].blocks[b].insts[i].inst {
            call.args.swap(0, 1);
        }
        let e = check_module(&planted).unwrap_err();
        assert!(e.to_string().contains("argument 0 is in"), "K = {k}: {e}");
        let got = ssaref_interp::run_mir(&planted, &case.args, fuel);
        assert!(matches!(got, Err(InterpError::Malformed(_))), "K = {k}: {got:?}");
    }
}
