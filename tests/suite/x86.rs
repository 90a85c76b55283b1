//! The x86-64 lowering, the machine-code checker and the Unicorn harness.
//!
//! The lowering is checked against the oracle's MIR engine
//! (`ssaref_interp::run_mir`), which executes the machine IR by its
//! documented meaning; the two must give the same outcome. The
//! bounded-exhaustive test below covers every operation with every
//! assignment of its destination and operands to registers, for small K,
//! and checks that every other register keeps its value (no hidden use of
//! a register the allocator owns).

use iced_x86::code_asm::registers::gpr64::*;
use iced_x86::code_asm::CodeAssembler;
use ssaref::entity::EntityVec;
use ssaref::ir::{BinOp, Block, UnOp};
use ssaref::machine::x86_check::{check_machine_code, McProblem};
use ssaref::machine::x86_lower::{layout, lower_function, LowerError, X86Code};
use ssaref::mir::{Annot, Loc, MBlock, MFunction, MInst, MInstA, MModule, MTerm, Reg, Slot};
use ssaref::outcome::{End, Trap};

/// Operand pairs that trap for no operator (divisors 3, 2, -1, 65, 7),
/// with shift counts that exercise the modulo-64 rule.
const PAIRS: [(i64, i64); 6] = [(7, 3), (-7, 2), (i64::MIN, 3), (5, -1), (123_456_789_012, 65), (0, 7)];

fn inst(inst: MInst) -> MInstA {
    MInstA { inst, annot: Annot::default() }
}

fn function(k: usize, slot_count: u32, insts: Vec<MInstA>) -> MFunction {
    let mut blocks = EntityVec::new();
    blocks.push(MBlock { preds: vec![], phis: vec![], insts, term: MTerm::Return(Reg(0)), term_reads: None });
    MFunction { name: "main".into(), k, slot_count, params: vec![], blocks }
}

fn canary(r: usize) -> i64 {
    0x1111_0000_0000 * (r as i64 + 1) + r as i64
}

/// Sets every register, runs `op` on `(dst, a, b)`, then outputs every
/// register: the trace shows the result and that nothing else changed.
fn exercise(insts: &mut Vec<MInstA>, k: usize, op: MInst, a: Option<(Reg, i64)>, b: Option<(Reg, i64)>) {
    for r in 0..k {
        insts.push(inst(MInst::Const { dst: Reg(r as u8), imm: canary(r) }));
    }
    for (reg, v) in a.into_iter().chain(b) {
        insts.push(inst(MInst::Const { dst: reg, imm: v }));
    }
    insts.push(inst(op));
    for r in 0..k {
        insts.push(inst(MInst::Out { src: Reg(r as u8) }));
    }
}

/// Lowers, checks the machine code, runs under Unicorn and compares with
/// the oracle's MIR engine.
fn agree(f: &MFunction) -> ssaref::outcome::Outcome {
    let code = lower_function(f).unwrap_or_else(|e| panic!("lowering failed: {e}"));
    check_machine_code(&code).unwrap_or_else(|e| panic!("machine-code checker: {e}"));
    let got = ssaref::machine::emulator::run_x86(&code, &[], 10_000_000).unwrap_or_else(|e| panic!("emulator: {e}"));
    let module = MModule { functions: vec![f.clone()] };
    let want = ssaref_interp::run_mir(&module, &[], 10_000_000).expect("the MIR engine runs it");
    if got != want {
        panic!("x86 and MIR disagree (K = {})\n--- MIR\n{}--- x86\n{}", f.k, want.render_full(), got.render_full());
    }
    got
}

fn triples(k: usize) -> Vec<(u8, u8, u8)> {
    // All triples for small K; for K = 15 every triple over a spread of
    // registers (rax and rdx for the division, rsi for the REX byte
    // registers, r15 for REX.B).
    let regs: Vec<u8> = if k <= 4 { (0..k as u8).collect() } else { vec![0, 2, 5, 14] };
    let mut out = Vec::new();
    for &d in &regs {
        for &a in &regs {
            for &b in &regs {
                out.push((d, a, b));
            }
        }
    }
    out
}

#[test]
fn every_binary_operation_with_every_register_assignment() {
    let mut cases = 0;
    for k in [2, 3, 4, 15] {
        for op in BinOp::ALL {
            let mut insts = Vec::new();
            for (d, a, b) in triples(k) {
                for (x, y) in PAIRS {
                    let y = if a == b { x } else { y };
                    if matches!(op, BinOp::Div | BinOp::Rem) && (y == 0 || (x == i64::MIN && y == -1)) {
                        continue;
                    }
                    let m = MInst::Binary { op, dst: Reg(d), a: Reg(a), b: Reg(b) };
                    exercise(&mut insts, k, m, Some((Reg(a), x)), Some((Reg(b), y)));
                    cases += 1;
                }
            }
            agree(&function(k, 0, insts));
        }
    }
    eprintln!("{cases} binary operations agree");
    assert!(cases > 10_000, "{cases}");
}

#[test]
fn every_unary_operation_load_store_and_transfer_with_every_register_assignment() {
    for k in [2, 3, 4, 15] {
        let regs = triples(k);
        let mut insts = Vec::new();
        for &(d, a, _) in &regs {
            for x in [0, 1, -1, 4097, i64::MIN] {
                for op in [UnOp::Neg, UnOp::Not, UnOp::BitNot] {
                    exercise(&mut insts, k, MInst::Unary { op, dst: Reg(d), src: Reg(a) }, Some((Reg(a), x)), None);
                }
                exercise(&mut insts, k, MInst::Move { dst: Reg(d), src: Reg(a) }, Some((Reg(a), x)), None);
                exercise(&mut insts, k, MInst::Swap { a: Reg(d), b: Reg(a) }, Some((Reg(a), x)), None);
                exercise(&mut insts, k, MInst::Spill { slot: Slot(1), src: Reg(a) }, Some((Reg(a), x)), None);
                exercise(&mut insts, k, MInst::Reload { dst: Reg(d), slot: Slot(1) }, None, None);
                exercise(&mut insts, k, MInst::Store { addr: Reg(d), src: Reg(a) }, Some((Reg(a), x)), None);
                exercise(&mut insts, k, MInst::Load { dst: Reg(d), addr: Reg(a) }, Some((Reg(a), x)), None);
                exercise(&mut insts, k, MInst::Out { src: Reg(a) }, Some((Reg(a), x)), None);
            }
        }
        let out = agree(&function(k, 2, insts));
        assert!(!out.nonzero_mem().is_empty(), "the stores wrote mem");
    }
}

#[test]
fn division_traps_exactly_like_the_mir_for_every_register_assignment() {
    for k in [2, 3, 15] {
        for (d, a, b) in triples(k.min(3)) {
            for op in [BinOp::Div, BinOp::Rem] {
                for (x, y) in [(5, 0), (i64::MIN, -1), (0, 0)] {
                    let y = if a == b { x } else { y };
                    let mut insts = Vec::new();
                    let m = MInst::Binary { op, dst: Reg(d), a: Reg(a), b: Reg(b) };
                    exercise(&mut insts, k, m, Some((Reg(a), x)), Some((Reg(b), y)));
                    let out = agree(&function(k, 0, insts));
                    let traps = y == 0 || (x == i64::MIN && y == -1);
                    assert_eq!(out.end == End::Trap(Trap::DivideError), traps, "{x} {op:?} {y}");
                }
            }
        }
    }
}

/// The engine is reused: a trap must not leave state that changes the next
/// run (a trap left half-handled turns the next #DE into a double fault).
#[test]
fn the_engine_survives_traps_and_resets_between_runs() {
    let trap = function(
        2,
        0,
        vec![
            inst(MInst::Const { dst: Reg(0), imm: 1 }),
            inst(MInst::Const { dst: Reg(1), imm: 0 }),
            inst(MInst::Store { addr: Reg(0), src: Reg(0) }),
            inst(MInst::Binary { op: BinOp::Div, dst: Reg(0), a: Reg(0), b: Reg(1) }),
        ],
    );
    let clean = function(3, 0, vec![inst(MInst::Const { dst: Reg(0), imm: 42 })]);
    for _ in 0..3 {
        let out = agree(&trap);
        assert_eq!(out.end, End::Trap(Trap::DivideError));
        assert_eq!(out.nonzero_mem(), vec![(1, 1)]);
        let out = agree(&clean);
        assert_eq!(out.end, End::Return(42));
        assert!(out.nonzero_mem().is_empty(), "mem is cleared between runs");
    }
}

#[test]
fn arguments_arrive_in_registers_and_slots() {
    let mut f = function(
        2,
        3,
        vec![
            inst(MInst::Reload { dst: Reg(1), slot: Slot(2) }),
            inst(MInst::Binary { op: BinOp::Sub, dst: Reg(0), a: Reg(0), b: Reg(1) }),
        ],
    );
    f.params = vec![(Loc::Reg(Reg(0)), ssaref::ir::Value(0)), (Loc::Slot(Slot(2)), ssaref::ir::Value(1))];
    let code = lower_function(&f).expect("lowers");
    let out = ssaref::machine::emulator::run_x86(&code, &[50, 8], 1000).expect("runs");
    assert_eq!(out.end, End::Return(42));
    let err = ssaref::machine::emulator::run_x86(&code, &[1, 2, 3], 1000).expect_err("too many arguments");
    assert!(err.to_string().contains("argument"), "{err}");
}

#[test]
fn a_runaway_program_exhausts_the_budget_and_is_not_an_outcome() {
    let mut blocks = EntityVec::new();
    blocks.push(MBlock { preds: vec![], phis: vec![], insts: vec![], term: MTerm::Jump(Block(1)), term_reads: None });
    blocks.push(MBlock {
        preds: vec![Block(0), Block(1)],
        phis: vec![],
        insts: vec![inst(MInst::Const { dst: Reg(0), imm: 1 })],
        term: MTerm::Jump(Block(1)),
        term_reads: None,
    });
    let f = MFunction { name: "main".into(), k: 2, slot_count: 0, params: vec![], blocks };
    let code = lower_function(&f).expect("lowers");
    match ssaref::machine::emulator::run_x86(&code, &[], 10_000) {
        Err(ssaref::machine::emulator::EmuError::BudgetExhausted { budget: 10_000, .. }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_mir_is_an_error_not_a_panic() {
    let f = function(2, 0, vec![inst(MInst::Const { dst: Reg(2), imm: 1 })]);
    let e = lower_function(&f).unwrap_err();
    assert!(matches!(e, LowerError::RegisterOutOfRange { reg: Reg(2), k: 2 }), "{e}");
    assert!(e.to_string().contains("outside"));
    let f = function(16, 0, vec![]);
    assert!(matches!(lower_function(&f), Err(LowerError::RegisterCount { k: 16 })));
    let mut f = function(2, 0, vec![]);
    f.blocks.push(MBlock { preds: vec![], phis: vec![], insts: vec![], term: MTerm::Jump(Block(7)), term_reads: None });
    let e = lower_function(&f).unwrap_err();
    assert!(matches!(e, LowerError::MissingBlock(Block(7))), "{e}");
    assert!(e.to_string().contains("missing block"));
    // Slot 2^28 is 2 GiB above rsp, beyond a 32-bit displacement.
    let slot = Slot(1 << 28);
    let f = function(2, slot.0 + 1, vec![inst(MInst::Spill { slot, src: Reg(0) })]);
    let e = lower_function(&f).unwrap_err();
    assert!(matches!(e, LowerError::SlotTooFar(s) if s == slot.0), "{e}");
    assert!(e.to_string().contains("too far"));
}

/// No allocator emits a swap of a register with itself (a cycle of the
/// location transfer graph has distinct registers), but the MIR allows it:
/// the lowering encodes nothing for it, and the value stays.
#[test]
fn a_swap_of_a_register_with_itself_encodes_nothing() {
    let body = |swap: bool| {
        let mut insts = vec![inst(MInst::Const { dst: Reg(0), imm: 9 })];
        if swap {
            insts.push(inst(MInst::Swap { a: Reg(0), b: Reg(0) }));
        }
        function(2, 0, insts)
    };
    assert_eq!(agree(&body(true)).end, End::Return(9));
    let len = |swap| lower_function(&body(swap)).expect("lowers").bytes.len();
    assert_eq!(len(true), len(false));
}

fn assembled(k: usize, build: impl FnOnce(&mut CodeAssembler)) -> X86Code {
    let mut a = CodeAssembler::new(64).expect("64-bit");
    build(&mut a);
    let bytes = a.assemble(layout::CODE_BASE).expect("assembles");
    X86Code {
        name: "main".into(),
        k,
        slot_count: 0,
        params: vec![],
        exit: layout::CODE_BASE + bytes.len() as u64,
        bytes,
        block_offsets: vec![0],
        notes: vec![],
        harness: None,
    }
}

#[test]
fn the_checker_rejects_a_hidden_scratch_register() {
    // r11 as a temporary with K = 4.
    let code = assembled(4, |a| {
        a.mov(r11, rax).unwrap();
        a.mov(rax, rcx).unwrap();
        a.mov(rcx, r11).unwrap();
    });
    let err = check_machine_code(&code).unwrap_err();
    assert_eq!(err.problem, McProblem::WritesOutsideK { register: iced_x86::Register::R11, k: 4 }, "{err}");
    // The same with K = 12 (r11 allocatable) is fine.
    let mut ok = code.clone();
    ok.k = 12;
    check_machine_code(&ok).expect("r11 is allocatable with K = 12");
    // Reading rdx with K = 2 when nothing put a value there.
    let code = assembled(2, |a| a.mov(rax, rdx).unwrap());
    let err = check_machine_code(&code).unwrap_err();
    assert_eq!(err.problem, McProblem::ReadsOutsideK { register: iced_x86::Register::RDX, k: 2 }, "{err}");
    // Saving rdx with push is an explicit read of a register outside K.
    let code = assembled(2, |a| a.push(rdx).unwrap());
    assert!(check_machine_code(&code).is_err());
    // A register outside K that an instruction writes implicitly may not also
    // be one it names, even as an address: `idiv qword [rdx]` uses rdx as a
    // scratch register for the divisor's address.
    let code = assembled(2, |a| {
        a.cqo().unwrap();
        a.idiv(iced_x86::code_asm::qword_ptr(rdx)).unwrap();
    });
    let err = check_machine_code(&code).unwrap_err();
    assert_eq!(err.problem, McProblem::WritesOutsideK { register: iced_x86::Register::RDX, k: 2 }, "{err}");
}

#[test]
fn the_checker_allows_implicit_operands_within_a_straight_line_run() {
    // cqo/idiv write rdx implicitly; reading the remainder right after is
    // allowed with K = 2.
    let code = assembled(2, |a| {
        a.push(rcx).unwrap();
        a.cqo().unwrap();
        a.idiv(iced_x86::code_asm::qword_ptr(rsp)).unwrap();
        a.mov(rcx, rdx).unwrap();
        a.pop(rax).unwrap();
    });
    check_machine_code(&code).expect("implicit rdx, read in the same run");
    // Across a branch target, the implicit value no longer counts.
    let code = assembled(2, |a| {
        let mut l = a.create_label();
        a.cqo().unwrap();
        a.jmp(l).unwrap();
        a.set_label(&mut l).unwrap();
        a.mov(rcx, rdx).unwrap();
    });
    assert!(check_machine_code(&code).is_err());
}

#[test]
fn every_case_lowers_to_code_the_checker_accepts_for_every_k() {
    // The differential over the corpus (tests/suite/regalloc.rs) runs the x86
    // stage; here the point is the listing: every block and every MIR
    // instruction is annotated.
    for path in crate::common::case_files() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let program = ssaref::frontend::parser::parse_program(&text).expect("parses");
        let ssa = ssaref::construction::braun::construct_program(
            &program,
            &ssaref::construction::braun::BraunOptions::all_on(),
        );
        for k in [2, 3, 4, 6, 8, 15] {
            let opts = ssaref::ssa_ra::regalloc::RegallocOptions::with_k(k);
            let (mir, _) = crate::common::passes::allocate_module(&ssa, &opts).expect("allocates");
            let code = ssaref::pipeline::lower_and_check_listed(&mir).unwrap_or_else(|e| panic!("{path:?} K={k}: {e}"));
            let listing = ssaref::machine::x86_lower::listing(&code);
            let main = mir.main().expect("main");
            for (b, _) in main.blocks.iter() {
                assert!(listing.contains(&format!("\n{b}:\n")), "{path:?}: no label {b}");
            }
            let groups = listing.lines().filter(|l| l.trim_start().starts_with(';')).count();
            let insts: usize = main.blocks.values().map(|b| b.insts.len() + 1).sum();
            assert!(groups > insts, "{path:?}: {groups} annotations for {insts} instructions");
        }
    }
}

/// out-of-ssa's `FixedDiv` (`cqo; idiv r`, the renaming constraints of §III-D
/// met by the allocation): every divisor register but rdx, for both
/// operators and several K, with every other register checked to keep its
/// canary; the register the division destroys is not read (the MIR engine
/// makes it undefined).
#[test]
fn every_fixed_division_with_every_divisor_register() {
    let mut cases = 0;
    for k in [2, 3, 4, 15] {
        for op in [BinOp::Div, BinOp::Rem] {
            if op == BinOp::Rem && k < 3 {
                continue;
            }
            let m = MInst::FixedDiv { op, divisor: Reg(0) };
            let clobbered = m.clobbered(k);
            let mut insts = Vec::new();
            for b in (0..k as u8).filter(|&r| r != 2) {
                for (x, y) in PAIRS {
                    // A divisor in rax divides the dividend by itself.
                    let y = if b == 0 { x } else { y };
                    if y == 0 {
                        continue;
                    }
                    for r in 0..k {
                        insts.push(inst(MInst::Const { dst: Reg(r as u8), imm: canary(r) }));
                    }
                    insts.push(inst(MInst::Const { dst: Reg(0), imm: x }));
                    insts.push(inst(MInst::Const { dst: Reg(b), imm: y }));
                    insts.push(inst(MInst::FixedDiv { op, divisor: Reg(b) }));
                    for r in (0..k as u8).map(Reg).filter(|&r| Some(r) != clobbered) {
                        insts.push(inst(MInst::Out { src: r }));
                    }
                    cases += 1;
                }
            }
            // The return reads rax, which `%` destroys.
            insts.push(inst(MInst::Const { dst: Reg(0), imm: 0 }));
            agree(&function(k, 0, insts));
        }
    }
    eprintln!("{cases} fixed divisions agree");
    assert!(cases > 150, "{cases}");
}

#[test]
fn fixed_division_traps_exactly_like_the_mir() {
    for k in [2, 3, 15] {
        for op in [BinOp::Div, BinOp::Rem] {
            if op == BinOp::Rem && k < 3 {
                continue;
            }
            for (x, y) in [(5, 0), (i64::MIN, -1), (0, 0), (i64::MIN, 1)] {
                let insts = vec![
                    inst(MInst::Const { dst: Reg(0), imm: x }),
                    inst(MInst::Const { dst: Reg(1), imm: y }),
                    inst(MInst::FixedDiv { op, divisor: Reg(1) }),
                    inst(MInst::Out { src: Reg(1) }),
                    inst(MInst::Const { dst: Reg(0), imm: 0 }),
                ];
                let out = agree(&function(k, 0, insts));
                let traps = y == 0 || (x == i64::MIN && y == -1);
                assert_eq!(out.end == End::Trap(Trap::DivideError), traps, "{x} {op:?} {y} K={k}");
            }
        }
    }
}

/// A fixed division the lowering cannot encode is an error, never wrong
/// code: the divisor in rdx (overwritten by `cqo`), `%` without rdx
/// allocatable, an operator other than `/` and `%`.
#[test]
fn malformed_fixed_divisions_are_rejected() {
    let bad = [
        (3, MInst::FixedDiv { op: BinOp::Div, divisor: Reg(2) }),
        (2, MInst::FixedDiv { op: BinOp::Rem, divisor: Reg(1) }),
        (3, MInst::FixedDiv { op: BinOp::Add, divisor: Reg(1) }),
    ];
    for (k, m) in bad {
        let f = function(k, 0, vec![inst(MInst::Const { dst: Reg(0), imm: 1 }), inst(m.clone())]);
        assert!(lower_function(&f).is_err(), "lowered {m}");
        let module = MModule { functions: vec![f] };
        assert!(ssaref_interp::run_mir(&module, &[], 100).is_err(), "the MIR engine ran {m}");
    }
}

/// `bench-emulator`'s figures are milliseconds per run: the three timed
/// phases fit in the wall-clock time of the whole call (each phase's
/// total is its figure times the number of runs), and running a program
/// under Unicorn takes more than a microsecond. A check of the units and
/// the averaging, not of the speed.
#[test]
fn the_emulator_benchmark_reports_milliseconds_per_run() {
    use crate::common::passes::allocate_module;
    use ssaref::construction::braun::{construct_program, BraunOptions};
    use ssaref::ssa_ra::regalloc::RegallocOptions;
    let mut programs = Vec::new();
    for seed in 0..8 {
        let tc = ssaref::generate::source::TestCase::from_seed(seed, &ssaref::generate::source::GenConfig::default());
        let ssa = construct_program(&tc.program, &BraunOptions::all_on());
        let (mir, _) = allocate_module(&ssa, &RegallocOptions::with_k(4)).expect("allocates");
        programs.push((ssaref::pipeline::lower_and_check(&mir).expect("lowers"), tc.args));
    }
    let start = std::time::Instant::now();
    let b = ssaref::machine::emulator::bench_emulator(&programs, 10_000_000).expect("Unicorn runs");
    let total_ms = start.elapsed().as_secs_f64() * 1e3;
    assert_eq!(b.runs, 8);
    let figures = [b.fresh_engine_ms, b.reused_new_code_ms, b.reused_same_code_ms];
    assert!(figures.iter().sum::<f64>() * 8.0 <= total_ms, "{b:?} in {total_ms} ms");
    assert!(figures.iter().all(|&ms| ms > 1e-3), "{b:?}");
}

/// A jump to the next block in layout order is a fall-through: it encodes
/// no `jmp`. A jump to any other block does.
#[test]
fn a_jump_to_the_next_block_falls_through() {
    let jumps = |to_next: bool| {
        let mut blocks = EntityVec::new();
        let ret = |r: u8| MBlock {
            preds: vec![],
            phis: vec![],
            insts: vec![],
            term: MTerm::Return(Reg(r)),
            term_reads: None,
        };
        let first = MInst::Const { dst: Reg(0), imm: 5 };
        let target = if to_next { Block(1) } else { Block(2) };
        blocks.push(MBlock {
            preds: vec![],
            phis: vec![],
            insts: vec![inst(first)],
            term: MTerm::Jump(target),
            term_reads: None,
        });
        blocks.push(ret(0));
        blocks.push(ret(0));
        let f = MFunction { name: "main".into(), k: 2, slot_count: 0, params: vec![], blocks };
        let code = lower_function(&f).expect("lowers");
        let decoder = iced_x86::Decoder::with_ip(64, &code.bytes, layout::CODE_BASE, iced_x86::DecoderOptions::NONE);
        decoder.into_iter().filter(|i| i.mnemonic() == iced_x86::Mnemonic::Jmp).count()
    };
    let (to_next, to_other) = (jumps(true), jumps(false));
    assert_eq!(to_next + 1, to_other, "a jump to the next block encodes no jmp: {to_next} vs {to_other}");
}

/// The engine maps 64 KiB of code and of stack on its first run and maps a
/// larger region when a later program needs more: code over 64 KiB, and
/// slots more than 64 KiB above rsp. Programs of campaign size never need
/// either, so only this test runs the remapping. Small programs run between
/// the large ones (a larger mapping must serve them too), and every run
/// must agree with the MIR engine.
#[test]
fn the_engine_grows_its_code_and_stack_mappings_between_runs() {
    let small = function(
        2,
        1,
        vec![
            inst(MInst::Const { dst: Reg(0), imm: 5 }),
            inst(MInst::Spill { slot: Slot(0), src: Reg(0) }),
            inst(MInst::Reload { dst: Reg(1), slot: Slot(0) }),
            inst(MInst::Binary { op: BinOp::Add, dst: Reg(0), a: Reg(0), b: Reg(1) }),
        ],
    );
    // 9,000 ten-byte `mov r64, imm64`: over 80 KiB of code, with outputs
    // along the way and the result decided at the end.
    let mut insts = Vec::new();
    for i in 0..9000i64 {
        insts.push(inst(MInst::Const { dst: Reg((i % 2) as u8), imm: i.wrapping_mul(0x1_0000_0001) }));
        if i % 1000 == 999 {
            insts.push(inst(MInst::Out { src: Reg(1) }));
        }
    }
    insts.push(inst(MInst::Binary { op: BinOp::Sub, dst: Reg(0), a: Reg(0), b: Reg(1) }));
    let long = function(2, 0, insts);
    // 20,000 slots: the last one is 160 KiB above rsp.
    let far = Slot(19_999);
    let deep = function(
        3,
        20_000,
        vec![
            inst(MInst::Const { dst: Reg(0), imm: 7 }),
            inst(MInst::Const { dst: Reg(1), imm: 30 }),
            inst(MInst::Spill { slot: far, src: Reg(0) }),
            inst(MInst::Spill { slot: Slot(0), src: Reg(1) }),
            inst(MInst::Const { dst: Reg(0), imm: 0 }),
            inst(MInst::Reload { dst: Reg(2), slot: far }),
            inst(MInst::Reload { dst: Reg(0), slot: Slot(0) }),
            inst(MInst::Binary { op: BinOp::Add, dst: Reg(0), a: Reg(0), b: Reg(2) }),
            inst(MInst::Out { src: Reg(2) }),
        ],
    );
    let long_bytes = lower_function(&long).expect("lowers").bytes.len();
    assert!(long_bytes > 64 * 1024, "the long function is {long_bytes} bytes");
    for (f, result) in [
        (&small, 10),
        (&long, -0x1_0000_0001),
        (&small, 10),
        (&deep, 37),
        (&small, 10),
        (&long, -0x1_0000_0001),
        (&deep, 37),
    ] {
        assert_eq!(agree(f).end, End::Return(result), "K = {}, {} slot(s)", f.k, f.slot_count);
    }
}
