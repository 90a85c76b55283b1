//! ssa-ra's calls (`ssa_ra/call_constraints.rs`, proofs-notes/precolored-calls.md):
//! every program with calls of `tests/cases/` and `tests/corpus/` agrees
//! with the oracle at every K from 2 to 15 under every ssa-ra option set
//! of the campaign's rotation; where there is no callee-saved register
//! every value live across a call is spilled; and each check of the note
//! is shown rejecting a planted mistake: a call left unsplit, a value live
//! across a call in a caller-saved register, an argument out of its
//! register, and a demand that forgets the clobbers.

use crate::common::passes::allocate_module;
use crate::common::{all_case_files, all_corpus_files, parse_case, InterpOracle};
use ssaref::analysis::calling_convention::CallingConvention;
use ssaref::campaign::rotation::ssa_ra_rotation;
use ssaref::checkers::coloring_check::{
    check_divisions_split, check_precolored, max_register_demand, ColoringCheckError,
};
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::entity::EntitySet;
use ssaref::frontend::parser::parse_program;
use ssaref::ir::{Function, Op, Value};
use ssaref::mir::{MInst, MModule, Reg};
use ssaref::oracle::Oracle;
use ssaref::ssa_ra::call_constraints::{is_pinned_site, memory_pinned};
use ssaref::ssa_ra::coloring::{assign_registers_with_convention, ColoringOptions};
use ssaref::ssa_ra::division_splits::split_pinned;
use ssaref::ssa_ra::regalloc::RegallocOptions;
use ssaref::ssa_ra::spill::{spill_with_memory, SpillOptions, SpillResult};

/// `v2` and `v0` live across the call of `g`, whose arguments are
/// swapped.
const ONE_CALL: &str = "
fn g(v0, v1) {
b0:
    v2 = sub v0, v1
    ret v2
}

fn main(v0, v1) {
b0:
    v2 = add v0, v1
    v3 = call g(v1, v0)
    v4 = add v3, v2
    v5 = add v4, v0
    ret v5
}
";

/// The calls in `m`'s machine code.
fn calls(m: &MModule) -> usize {
    let insts = m.functions.iter().flat_map(|f| f.blocks.values()).flat_map(|b| b.insts.iter());
    insts.filter(|i| matches!(i.inst, MInst::Call(_))).count()
}

/// The arguments and the program of a case, or of a corpus program (no
/// arguments).
fn args_and_program(path: &std::path::Path) -> (Vec<i64>, Option<ssaref::ast::Program>) {
    let text = std::fs::read_to_string(path).expect("readable");
    match parse_case(&text) {
        Ok(case) => (case.args, parse_program(&case.body).ok()),
        Err(_) => (Vec::new(), parse_program(&text).ok()),
    }
}

/// The files of `tests/cases/` and `tests/corpus/` whose program has calls.
fn call_programs() -> Vec<std::path::PathBuf> {
    let with_calls = |p: &std::path::PathBuf| args_and_program(p).1.is_some_and(|program| program.has_calls());
    all_case_files().into_iter().chain(all_corpus_files()).filter(with_calls).collect()
}

/// Every ssa-ra option set of the campaign's rotation, every K.
#[test]
fn every_program_with_calls_agrees_with_the_oracle_at_every_k_and_option_set() {
    let files = call_programs();
    assert!(files.len() >= 14, "the call cases and the four recursive corpus programs: {files:?}");
    for path in files {
        let name = path.file_name().expect("a name").to_string_lossy().to_string();
        let (args, program) = args_and_program(&path);
        let program = program.expect("parses");
        let Ok(expected) = InterpOracle.run_source(&program, &args, 1_000_000) else { continue };
        if expected.end.is_inconclusive() {
            continue;
        }
        let ssa = construct_program(&program, &BraunOptions::all_on());
        for k in 2..=15 {
            let sets = std::iter::once(RegallocOptions::with_k(2)).chain(ssa_ra_rotation());
            for opts in sets.map(|o| RegallocOptions { k, ..o }) {
                let tag = opts.describe();
                let (m, _) = allocate_module(&ssa, &opts).unwrap_or_else(|e| panic!("{name}, K = {k}, {tag}: {e}"));
                assert!(calls(&m) > 0, "{name} calls");
                // Spill code costs fuel: the machine IR gets more, and a run
                // that still hits a limit is inconclusive.
                let got = InterpOracle.run_mir(&m, &args, 20_000_000).expect("runs");
                if !got.end.is_inconclusive() {
                    assert_eq!((&got.trace, got.end), (&expected.trace, expected.end), "{name}, K = {k}, {tag}");
                    assert_eq!(got, expected, "{name}, K = {k}, {tag}: memory");
                }
            }
        }
    }
}

/// `main` of [`ONE_CALL`] split, spilled and assigned at K registers, as
/// ssa-ra does it (the module has calls).
fn allocate_main(k: usize) -> (Function, SpillResult, ssaref::ssa_ra::coloring::Assignment) {
    let module = ssaref::ssa_text::parse_module(ONE_CALL).expect("parses");
    let mut f = module.main().expect("a main").clone();
    split_pinned(&mut f, |i| is_pinned_site(i, k));
    let memory = memory_pinned(&f, k, true);
    let opts = SpillOptions { k, load_lowering: false, recycle_reloads: false };
    let s = spill_with_memory(&mut f, &opts, &memory).expect("spill");
    let a = assign_registers_with_convention(&f, &s, k, &ColoringOptions::default(), true).expect("assign");
    (f, s, a)
}

/// The block of `f` that starts with the call, and the call's arguments.
fn call_block(f: &Function) -> (&ssaref::ir::BlockData, Vec<Value>) {
    let block = f.blocks.values().find(|b| b.insts.iter().any(|i| i.op.is_call())).expect("a call");
    let call = block.insts.iter().find_map(|i| match &i.op {
        Op::Call(c) => Some(c.args.clone()),
        _ => None,
    });
    (block, call.expect("a call"))
}

#[test]
fn without_callee_saved_registers_every_value_live_across_a_call_is_spilled() {
    for k in [2, 3] {
        assert!(CallingConvention::for_k(k).expect("valid K").callee_saved.is_empty());
        let (f, s, a) = allocate_main(k);
        assert_eq!(check_precolored(&f, &s.spilled, &a.reg, k), Ok(()));
        let (block, args) = call_block(&f);
        let across: Vec<Value> = block.phis.iter().map(|p| p.dest).filter(|d| !args.contains(d)).collect();
        assert_eq!(across.len(), 2, "v0 and v2 live across: {}", ssaref::ssa_text::print_function(&f));
        assert!(across.iter().all(|&v| s.spilled.contains(v)), "K = {k}: every value live across is spilled");
    }
    // At K = 4, rbx is callee-saved: one of the two stays in it.
    let (f, s, a) = allocate_main(4);
    let (block, args) = call_block(&f);
    let kept: Vec<Value> =
        block.phis.iter().map(|p| p.dest).filter(|d| !args.contains(d) && !s.spilled.contains(*d)).collect();
    assert_eq!(kept.len(), 1, "{}", ssaref::ssa_text::print_function(&f));
    assert_eq!(a.reg[kept[0]], Some(Reg(3)), "rbx");
}

#[test]
fn the_split_check_rejects_a_call_left_unsplit() {
    let module = ssaref::ssa_text::parse_module(ONE_CALL).expect("parses");
    let mut f = module.main().expect("a main").clone();
    let err = check_divisions_split(&f, 4).expect_err("the call is not first in its block");
    assert!(matches!(err, ColoringCheckError::NotSplit { site: "call", .. }), "{err}");
    assert_eq!(split_pinned(&mut f, |i| is_pinned_site(i, 4)), 1);
    assert_eq!(check_divisions_split(&f, 4), Ok(()));
}

#[test]
fn the_precolored_check_rejects_a_value_across_in_a_caller_saved_register_and_a_misplaced_argument() {
    let k = 15;
    let (f, s, a) = allocate_main(k);
    assert!(s.spilled.is_empty(), "K = 15 has six callee-saved registers");
    assert_eq!(check_precolored(&f, &s.spilled, &a.reg, k), Ok(()));
    let cc = CallingConvention::for_k(k).expect("valid K");
    let (block, args) = call_block(&f);
    assert_eq!(a.reg[args[0]], Some(cc.arg_regs[0]), "the first argument in rdi");
    assert_eq!(a.reg[args[1]], Some(cc.arg_regs[1]), "the second in rsi");
    let across = block.phis.iter().map(|p| p.dest).find(|d| !args.contains(d)).expect("a value live across");
    assert!(cc.is_callee_saved(a.reg[across].expect("a register")));
    // A value live across in r10 (caller-saved), the arguments swapped.
    for (value, reg) in [(across, Reg(9)), (args[0], cc.arg_regs[1])] {
        let mut planted = a.reg.clone();
        planted[value] = Some(reg);
        let err = check_precolored(&f, &s.spilled, &planted, k).expect_err("the planted register is rejected");
        assert!(matches!(err, ColoringCheckError::Precolored { site: "call", .. }), "{err}");
    }
}

#[test]
fn the_demand_at_a_call_counts_every_caller_saved_register() {
    let module = ssaref::ssa_text::parse_module(ONE_CALL).expect("parses");
    for k in 2..=15 {
        let mut f = module.main().expect("a main").clone();
        split_pinned(&mut f, |i| is_pinned_site(i, k));
        let mut memory: EntitySet<Value> = EntitySet::with_capacity(f.value_count as usize);
        memory_pinned(&f, k, true).into_iter().for_each(|v| {
            memory.insert(v);
        });
        // The renamed v0 and v2 live across the call, and every
        // caller-saved register; a stack argument (K = 2) is in memory.
        let caller_saved = CallingConvention::for_k(k).expect("valid K").caller_saved.len();
        assert_eq!(max_register_demand(&f, &memory, k), 2 + caller_saved, "K = {k}");
    }
}
