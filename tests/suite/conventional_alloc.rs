//! out-of-ssa's conventional allocators (`out_of_ssa/conventional/`: the
//! spill-everything baseline and linear scan) on code after SSA
//! destruction. The input is made from SSA by `crate::common::out_of_ssa_function`
//! (Method I, then each phi class renamed to one variable), so its phi
//! variables are defined several times. The claims, argued in
//! `proofs-notes/conventional-allocation.md`:
//!
//! - for both allocators and K in {2, 3, 4, 6, 8, 15}, on every case of
//!   `tests/cases/` and on generated programs, the allocated code runs in
//!   the oracle to the source's outcome, and the allocation checker accepts
//!   it (`allocate_conventional` runs it; a rejection is an `Err`):
//!   `every_case_allocates_and_runs`, `generated_programs_allocate_and_run`,
//!   `quickcheck_programs_allocate_and_run`;
//! - linear scan's coalescing keeps the outcome: the same two tests run
//!   `linear_scan::coalesce_copies`'s output in the oracle;
//! - the copy annotations make the checker sound for variables defined
//!   several times: `a_copy_whose_source_is_redefined_is_checked`, and
//!   corrupting an allocation (two registers exchanged in one instruction,
//!   a reload dropped, a store dropped) is rejected whenever it changes
//!   what the code computes: `corrupted_allocations_are_rejected`;
//! - linear scan executes less spill code than the baseline:
//!   `linear_scan_spills_less_than_spill_everything` (prints the counts).

use crate::common::passes::{allocate_conventional, allocate_conventional_module};
use crate::common::{case_files, corruptions, out_of_ssa_module, parse_case};
use quickcheck::{QuickCheck, TestResult};
use ssaref::checkers::alloc_checker::{check_allocation, AllocCheckErrorKind};
use ssaref::differential::later_stage_fuel;
use ssaref::entity::EntityVec;
use ssaref::generate::source::{Shape, TestCase};
use ssaref::ir::{Block, Module, Value};
use ssaref::mir::{print_module, Annot, Loc, MBlock, MFunction, MInst, MInstA, MModule, MTerm, Reg, Slot};
use ssaref::out_of_ssa::conventional::linear_scan::coalesce_copies;
use ssaref::out_of_ssa::conventional::ConventionalAllocator;
use ssaref::outcome::{End, Outcome};
use ssaref::pipeline::{build_ssa, Config};

const FUEL: u64 = 1_000_000;
const KS: [usize; 6] = [2, 3, 4, 6, 8, 15];

fn tests() -> u64 {
    std::env::var("QUICKCHECK_TESTS").ok().and_then(|v| v.parse().ok()).unwrap_or(40)
}

fn config() -> Config {
    Config { flags: ssaref::pass_manager::flags::Flags::checked(), ..Config::default() }
}

/// The corpus: (name, out-of-ssa module, arguments, expected outcome).
fn corpus() -> Vec<(String, Module, Vec<i64>, Outcome)> {
    let mut out = Vec::new();
    for path in case_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).expect("readable");
        let case = parse_case(&text).expect("case header");
        let program = ssaref::frontend::parser::parse_program(&text).expect("parses");
        let expected = ssaref_interp::run_ast(&program, &case.args, FUEL).expect("runs");
        assert_eq!(expected.render_full(), case.expect, "{name}: the header's outcome");
        let ssa = build_ssa(&program, &config()).unwrap_or_else(|e| panic!("{name}: {e}"));
        out.push((name, out_of_ssa_module(&ssa), case.args, expected));
    }
    out
}

/// Checks one out-of-ssa module at every K with both allocators; returns the
/// failures.
fn check_module(name: &str, m: &Module, args: &[i64], expected: &Outcome) -> Vec<String> {
    let mut failures = Vec::new();
    let fuel = later_stage_fuel(FUEL);
    let run_ssa = |m: &Module| ssaref_interp::run_ssa(m, args, fuel).map_err(|e| e.to_string());
    match run_ssa(m) {
        Ok(o) if o == *expected => {}
        other => failures.push(format!("{name}: the out-of-ssa allocators' input computes {other:?}")),
    }
    let coalesced = Module { functions: m.functions.iter().map(coalesce_copies).collect() };
    match run_ssa(&coalesced) {
        Ok(o) if o == *expected => {}
        other => failures.push(format!("{name}: the coalesced input computes {other:?}")),
    }
    for which in ConventionalAllocator::ALL {
        for k in KS {
            match allocate_conventional_module(m, k, which) {
                Err(e) => failures.push(format!("{name}, {}, K = {k}: {e}", which.name())),
                Ok(mir) => match ssaref_interp::run_mir(&mir, args, fuel) {
                    Ok(o) if o == *expected => {}
                    other => failures.push(format!(
                        "{name}, {}, K = {k}: the MIR computes {other:?}\n{}",
                        which.name(),
                        print_module(&mir)
                    )),
                },
            }
        }
    }
    failures
}

#[test]
fn every_case_allocates_and_runs() {
    let mut failures = Vec::new();
    let mut redefined = 0;
    for (name, m, args, expected) in corpus() {
        redefined += m.functions.iter().map(defined_several_times).sum::<usize>();
        failures.extend(check_module(&name, &m, &args, &expected));
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(redefined > 20, "the corpus must exercise variables defined several times ({redefined})");
}

/// The number of variables of `f` with more than one definition.
fn defined_several_times(f: &ssaref::ir::Function) -> usize {
    let mut defs = vec![0usize; f.value_count as usize];
    for data in f.blocks.values() {
        for d in data.insts.iter().filter_map(|i| i.dest) {
            defs[d.0 as usize] += 1;
        }
    }
    defs.iter().filter(|&&n| n > 1).count()
}

#[test]
fn generated_programs_allocate_and_run() {
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut linear_scan_slots = 0;
    for seed in 0..tests() {
        // Every other program has high register pressure on purpose; the
        // others go through every shape.
        let shape = if seed % 2 == 0 { Shape::Pressure } else { Shape::ALL[(seed / 2) as usize % Shape::ALL.len()] };
        let shape_config = shape.config();
        let tc = TestCase::from_seed(seed, &shape_config);
        let Ok(expected) = ssaref_interp::run_ast(&tc.program, &tc.args, FUEL) else { continue };
        if expected.end == End::OutOfFuel {
            continue;
        }
        let ssa = build_ssa(&tc.program, &config()).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let m = out_of_ssa_module(&ssa);
        let f = check_module(&format!("seed {seed}\n{}", tc.to_source()), &m, &tc.args, &expected);
        failures.extend(f);
        ran += 1;
        if let Ok(mir) = allocate_conventional_module(&m, 2, ConventionalAllocator::LinearScan) {
            linear_scan_slots += mir.functions.iter().map(|f| u64::from(f.slot_count)).sum::<u64>();
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(ran as u64 * 2 >= tests(), "too few programs ran to completion ({ran})");
    assert!(linear_scan_slots > 0, "linear scan must spill at K = 2 on the pressure shape");
}

fn allocation_agrees(tc: TestCase) -> TestResult {
    let Ok(expected) = ssaref_interp::run_ast(&tc.program, &tc.args, FUEL) else { return TestResult::discard() };
    if expected.end == End::OutOfFuel {
        return TestResult::discard();
    }
    let ssa = match build_ssa(&tc.program, &config()) {
        Ok(m) => m,
        Err(e) => return TestResult::error(format!("{e}\n{}", tc.to_source())),
    };
    let failures = check_module(&tc.to_source(), &out_of_ssa_module(&ssa), &tc.args, &expected);
    if failures.is_empty() {
        TestResult::passed()
    } else {
        TestResult::error(failures.join("\n"))
    }
}

/// The same property under quickcheck, which shrinks a failing program.
#[test]
fn quickcheck_programs_allocate_and_run() {
    QuickCheck::new().tests(tests()).max_tests(tests() * 4).quickcheck(allocation_agrees as fn(TestCase) -> TestResult);
}

// ---------------------------------------------------------------------------
// The checker with copy annotations.

fn inst(inst: MInst, reads: &[u32], defines: Option<u32>) -> MInstA {
    MInstA { inst, annot: Annot { reads: reads.iter().map(|&n| Value(n)).collect(), defines: defines.map(Value) } }
}

/// `fn main(v0) { v1 = copy v0; v0 = add v0, v0; out v1; ret v0 }` with
/// `v0` in rax and `v1` wherever `v1_loc` says.
fn copy_then_redefine(v1: Reg, with_move: bool) -> MFunction {
    let (rax, rcx) = (Reg(0), Reg(1));
    let mut insts = Vec::new();
    if with_move {
        insts.push(inst(MInst::Move { dst: v1, src: rax }, &[0], Some(1)));
    }
    insts.push(inst(MInst::Binary { op: ssaref::ir::BinOp::Add, dst: rax, a: rax, b: rax }, &[0, 0], Some(0)));
    insts.push(inst(MInst::Out { src: v1 }, &[1], None));
    let _ = rcx;
    let mut blocks = EntityVec::new();
    blocks.push(MBlock { preds: vec![], phis: vec![], insts, term: MTerm::Return(rax), term_reads: Some(Value(0)) });
    MFunction { name: "main".into(), k: 2, slot_count: 0, params: vec![(Loc::Reg(rax), Value(0))], blocks }
}

#[test]
fn a_copy_whose_source_is_redefined_is_checked() {
    // Correct: the copy goes to rcx, and rcx still holds v1 after v0 is
    // redefined.
    check_allocation(&copy_then_redefine(Reg(1), true)).expect("accepted");
    // Wrong: the copy is coalesced into rax (an identity move), then v0's
    // redefinition overwrites rax while v1 is live.
    // (The add is the first to notice: rax now holds v1, not v0.)
    let e = check_allocation(&copy_then_redefine(Reg(0), true)).expect_err("v1 was overwritten");
    assert!(matches!(e.kind, AllocCheckErrorKind::WrongValue { .. }), "{e}");
    // Wrong: no copy at all; with copy-canonical annotations this would
    // pass as "rax holds v0 = v1", and it would print 2 * v0.
    let e = check_allocation(&copy_then_redefine(Reg(0), false)).expect_err("no copy");
    assert!(matches!(e.kind, AllocCheckErrorKind::WrongValue { expected: Value(1), .. }), "{e}");
    // A swap never carries a copy annotation, and a half annotation on a
    // move is rejected.
    let mut f = copy_then_redefine(Reg(1), true);
    f.blocks[Block(0)].insts[0].inst = MInst::Swap { a: Reg(0), b: Reg(1) };
    assert!(check_allocation(&f).is_err());
    let mut f = copy_then_redefine(Reg(1), true);
    f.blocks[Block(0)].insts[0].annot.reads.clear();
    assert!(matches!(check_allocation(&f).unwrap_err().kind, AllocCheckErrorKind::BadAnnotation(_)));
    // A copy annotation on a store into a slot and a reload from it.
    let mut f = copy_then_redefine(Reg(1), true);
    f.slot_count = 1;
    f.blocks[Block(0)].insts[0] = inst(MInst::Spill { slot: Slot(0), src: Reg(0) }, &[0], Some(1));
    f.blocks[Block(0)].insts.insert(2, inst(MInst::Reload { dst: Reg(1), slot: Slot(0) }, &[], None));
    check_allocation(&f).expect("accepted");
}

// ---------------------------------------------------------------------------
// Corrupted allocations.

#[test]
fn corrupted_allocations_are_rejected() {
    let mut rejected: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut failures = Vec::new();
    let fuel = later_stage_fuel(FUEL);
    for (name, m, args, expected) in corpus() {
        for which in ConventionalAllocator::ALL {
            let k = 3;
            let mir = allocate_conventional_module(&m, k, which).expect("allocates");
            let Some(main) = mir.main() else { continue };
            for (kind, bad) in corruptions(main).into_iter().take(40) {
                let checked = check_allocation(&bad);
                let bad_module = MModule {
                    functions: mir
                        .functions
                        .iter()
                        .map(|f| if f.name == "main" { bad.clone() } else { f.clone() })
                        .collect(),
                };
                let wrong = ssaref_interp::run_mir(&bad_module, &args, fuel).map_or(true, |o| o != expected);
                if checked.is_err() {
                    *rejected.entry(kind).or_default() += 1;
                } else if wrong {
                    failures
                        .push(format!("{name}, {}: a {kind} computes a wrong outcome but is accepted", which.name()));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("rejected corruptions: {rejected:?}");
    for kind in ["swapped registers", "dropped reload", "dropped store"] {
        assert!(rejected.get(kind).copied().unwrap_or(0) >= 20, "too few rejected {kind}s: {rejected:?}");
    }
}

// ---------------------------------------------------------------------------
// Spill code.

#[derive(Default, Debug, Clone, Copy)]
struct SpillCounts {
    static_loads: u64,
    static_stores: u64,
    static_moves: u64,
    dynamic_loads: u64,
    dynamic_stores: u64,
    dynamic_moves: u64,
}

#[test]
fn linear_scan_spills_less_than_spill_everything() {
    let k = 4;
    let mut counts = [SpillCounts::default(); 2];
    for (name, m, args, expected) in corpus() {
        for (slot, which) in ConventionalAllocator::ALL.into_iter().enumerate() {
            let mir = allocate_conventional_module(&m, k, which).expect("allocates");
            let c = &mut counts[slot];
            for f in &mir.functions {
                for i in f.blocks.values().flat_map(|b| &b.insts) {
                    match i.inst {
                        MInst::Reload { .. } => c.static_loads += 1,
                        MInst::Spill { .. } => c.static_stores += 1,
                        MInst::Move { .. } => c.static_moves += 1,
                        _ => {}
                    }
                }
            }
            let (o, p) = ssaref_interp::profile_mir(&mir, &args, later_stage_fuel(FUEL)).expect("runs");
            assert_eq!(o, expected, "{name}");
            c.dynamic_loads += p.loads;
            c.dynamic_stores += p.stores;
            c.dynamic_moves += p.moves;
        }
    }
    eprintln!("spill code on tests/cases at K = {k} (static / dynamic):");
    for (which, c) in ConventionalAllocator::ALL.into_iter().zip(counts) {
        eprintln!(
            "  {:<17} loads {:>5} / {:>8}  stores {:>5} / {:>8}  moves {:>4} / {:>7}",
            which.name(),
            c.static_loads,
            c.dynamic_loads,
            c.static_stores,
            c.dynamic_stores,
            c.static_moves,
            c.dynamic_moves
        );
    }
    let [se, ls] = counts;
    assert!(ls.static_loads + ls.static_stores < se.static_loads + se.static_stores);
    assert!(ls.dynamic_loads + ls.dynamic_stores < (se.dynamic_loads + se.dynamic_stores) / 4);
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let ssa = build_ssa(
        &ssaref::frontend::parser::parse_program("fn main(a) { var x = a; while (x) { x = x - 1; } return x; }")
            .unwrap(),
        &config(),
    )
    .unwrap();
    let good = out_of_ssa_module(&ssa).functions.remove(0);
    for which in ConventionalAllocator::ALL {
        assert!(allocate_conventional(&good, 2, which).is_ok());
        assert!(allocate_conventional(&good, 1, which).is_err());
        assert!(allocate_conventional(&good, 16, which).is_err());
        // SSA with phis is not out-of-ssa input.
        assert!(allocate_conventional(&ssa.functions[0], 4, which).is_err());
        let mut f = good.clone();
        f.value_count = 0;
        assert!(allocate_conventional(&f, 4, which).is_err());
        let mut f = good.clone();
        f.blocks[Block(0)].preds.push(Block(7));
        assert!(allocate_conventional(&f, 4, which).is_err());
        let mut f = good.clone();
        f.params = vec![f.params[0], f.params[0]];
        assert!(allocate_conventional(&f, 4, which).is_err());
        let mut f = good.clone();
        f.blocks = EntityVec::new();
        assert!(allocate_conventional(&f, 4, which).is_err());
    }
}
