//! Calls at x86-64 (docs/calling-convention.md, "Frames at x86-64";
//! proofs-notes/x86-frames.md): regalloc2's
//! code with calls lowered with frames and run under Unicorn, and the
//! planted mistakes (c) and (d) of the calls issue, each caught.
//!
//! - The call-depth bound ends the x86 run `call-depth-exceeded`, with the
//!   MIR oracle's trace, at every K; a recursion 901 activations deep
//!   returns: `the_call_depth_bound_is_the_oracles_at_x86`.
//! - (c) An epilogue that pops rbx's saved word into rcx leaves rbx not
//!   restored: the machine-code checker rejects the `ret`, and the
//!   harness's poisoned rbx shows it when the code runs unchecked:
//!   `a_callee_saved_register_not_restored_is_caught`.
//! - (d) A frame 8 bytes larger than the one the lowering chose (its
//!   `sub rsp` and the `add rsp` of its epilogues alike) misaligns rsp at
//!   the function's calls: the machine-code checker rejects the `call`,
//!   while the run under Unicorn, which does not care, still agrees:
//!   `a_misaligned_stack_at_a_call_is_caught`.

use crate::common::parse_case;
use iced_x86::{Code, Decoder, DecoderOptions, Instruction, Mnemonic, OpKind, Register};
use ssaref::error::StackError;
use ssaref::frontend::parser::parse_program;
use ssaref::machine::emulator::{run_x86, EmuError};
use ssaref::machine::x86_check::{check_machine_code, McProblem};
use ssaref::machine::x86_lower::{layout, X86Code};
use ssaref::mir::MModule;
use ssaref::outcome::End;
use ssaref::pipeline::lower_and_check;

const FUEL: u64 = 10_000_000;

/// The case's arguments and regalloc2's allocated module at K.
fn allocated(case: &str, k: usize) -> (Vec<i64>, MModule) {
    let text = std::fs::read_to_string(format!("tests/cases/{case}")).unwrap();
    let case = parse_case(&text).unwrap();
    let ssa = ssaref::construction::braun::construct_program(&parse_program(&case.body).unwrap(), &Default::default());
    let (mir, _) = crate::common::passes::allocate_regalloc2_module(&ssa, k).unwrap();
    (case.args, mir)
}

fn decoded(code: &X86Code) -> Vec<Instruction> {
    Decoder::with_ip(64, &code.bytes, layout::CODE_BASE, DecoderOptions::NONE).iter().collect()
}

fn offset(ins: &Instruction) -> usize {
    (ins.ip() - layout::CODE_BASE) as usize
}

#[test]
fn the_call_depth_bound_is_the_oracles_at_x86() {
    for k in [2, 3, 4, 9, 15] {
        let (args, mir) = allocated("calls_depth_exceeded.src", k);
        let expected = ssaref_interp::run_mir(&mir, &args, FUEL).unwrap();
        assert_eq!(expected.end, End::CallDepthExceeded, "K = {k}");
        let code = lower_and_check(&mir).unwrap();
        let got = run_x86(&code, &args, FUEL).unwrap();
        assert_eq!(got, expected, "K = {k}");
        let (args, mir) = allocated("calls_deep_recursion.src", k);
        let code = lower_and_check(&mir).unwrap();
        assert_eq!(run_x86(&code, &args, FUEL).unwrap().end, End::Return(405450), "K = {k}");
    }
}

#[test]
fn a_callee_saved_register_not_restored_is_caught() {
    let (args, mir) = allocated("calls_callee_saved_pressure.src", 15);
    let code = lower_and_check(&mir).unwrap();
    let good = run_x86(&code, &args, FUEL).unwrap();
    // The epilogue's `pop rbx` right before a `ret` becomes `pop rcx`.
    let instructions = decoded(&code);
    let pops = instructions.windows(2).filter(|w| {
        w[0].code() == Code::Pop_r64 && w[0].op0_register() == Register::RBX && w[1].mnemonic() == Mnemonic::Ret
    });
    let mut planted = code.clone();
    let mut count = 0;
    for w in pops {
        assert_eq!(planted.bytes[offset(&w[0])], 0x5b);
        planted.bytes[offset(&w[0])] = 0x59;
        count += 1;
    }
    assert!(count > 0, "no epilogue pops rbx");
    let e = check_machine_code(&planted).unwrap_err();
    assert_eq!(e.problem, McProblem::Stack(StackError::CalleeSavedNotRestored { register: "rbx" }), "{e}");
    match run_x86(&planted, &args, FUEL) {
        Err(EmuError::CalleeSavedNotRestored { register: "rbx", .. }) => {}
        other => panic!("the poisoned rbx should show the mistake; the run gave {other:?}, the correct code {good:?}"),
    }
}

/// The index of the instruction after the prologue's call-depth check and
/// pushes of each function, and where each function's code ends.
fn functions(instructions: &[Instruction]) -> Vec<(usize, usize)> {
    let starts: Vec<usize> = instructions
        .iter()
        .enumerate()
        .filter(|(_, i)| {
            i.mnemonic() == Mnemonic::Sub
                && i.op0_kind() == OpKind::Memory
                && i.memory_displacement64() == layout::CALL_DEPTH
        })
        .map(|(n, _)| n)
        .collect();
    let ends = starts.iter().skip(1).copied().chain([instructions.len()]);
    starts.iter().zip(ends).map(|(&s, e)| (s, e)).collect()
}

fn is_rsp_imm8(ins: &Instruction, code: Code) -> bool {
    ins.code() == code && ins.op0_register() == Register::RSP
}

#[test]
fn a_misaligned_stack_at_a_call_is_caught() {
    let mut planted_any = 0;
    for k in 4..=15 {
        let (args, mir) = allocated("calls_fibonacci.src", k);
        let code = lower_and_check(&mir).unwrap();
        let good = run_x86(&code, &args, FUEL).unwrap();
        let instructions = decoded(&code);
        for (start, end) in functions(&instructions) {
            let body = &instructions[start..end];
            if !body.iter().any(|i| i.mnemonic() == Mnemonic::Call) {
                continue;
            }
            // The frame's `sub rsp, F` follows the depth check and the pushes.
            let Some(frame) = body[2..].iter().find(|i| i.mnemonic() != Mnemonic::Push) else { continue };
            if !is_rsp_imm8(frame, Code::Sub_rm64_imm8) || frame.immediate(1) > 100 {
                continue;
            }
            let mut planted = code.clone();
            planted.bytes[offset(frame) + frame.len() - 1] += 8;
            // Each epilogue's `add rsp, F`: followed by pops and a `ret`.
            for (n, ins) in body.iter().enumerate() {
                let then_ret = body[n + 1..].iter().find(|i| i.mnemonic() != Mnemonic::Pop);
                if is_rsp_imm8(ins, Code::Add_rm64_imm8) && then_ret.is_some_and(|i| i.mnemonic() == Mnemonic::Ret) {
                    planted.bytes[offset(ins) + ins.len() - 1] += 8;
                }
            }
            let e = check_machine_code(&planted).unwrap_err();
            assert!(matches!(e.problem, McProblem::Stack(StackError::MisalignedCall { .. })), "K = {k}: {e}");
            assert!(e.to_string().contains("not 16-byte aligned at a call"), "K = {k}: {e}");
            assert!(e.instruction.starts_with("call"), "K = {k}: {e}");
            // Unicorn does not fault on a misaligned call: only the checker sees it.
            assert_eq!(run_x86(&planted, &args, FUEL).unwrap(), good, "K = {k}");
            planted_any += 1;
        }
    }
    assert!(planted_any >= 3, "only {planted_any} frames planted");
}
