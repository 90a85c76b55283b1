//! The library entry points of the cargo-fuzz targets in `fuzz/`.
//!
//! Each target in `fuzz/fuzz_targets/` is a thin wrapper around one function
//! of this module, so the same checks also run in ordinary tests (more
//! targets are added as the pipeline grows). A function here panics exactly
//! when it finds a bug.

use crate::frontend::ast_print::print_program;
use crate::frontend::parser::parse_program;
use crate::mir::{Loc, Reg, Slot};
use crate::ssa_ra::implement_spartan::{check_implementation, implement_spartan, ElimOptions, SkipHooks};
use crate::ssa_ra::location_transfer_graph::{LocationTransferGraph, ParallelCopy};
use arbitrary::Unstructured;

/// Parses `data` as (lossy UTF-8) source text. Parsing must never panic, a
/// program that parses must be valid, and it must print to text that parses
/// back to itself.
pub fn fuzz_parse(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let Ok(program) = parse_program(&src) else {
        return;
    };
    if let Err(e) = program.validate() {
        panic!("the parser accepted an invalid program ({e}):\n{src}");
    }
    let printed = print_program(&program);
    let reparsed = parse_program(&printed);
    assert!(
        reparsed.as_ref() == Ok(&program),
        "print/parse round trip failed\n--- input:\n{src}\n--- printed:\n{printed}\n--- reparsed:\n{reparsed:?}"
    );
}

/// Builds a parallel copy from `data` and checks spill-free SSA elimination
/// on it (`implement_spartan.rs`, Pereira and Palsberg, CC 2009, §3-§6):
///
/// - the copy has a location transfer graph exactly when it is well defined,
///   and then `check_spartan` and `check_spartan_graph` agree (Theorem 2
///   and its converse);
/// - `implement_spartan` fails exactly on copies that are not spartan, and
///   never panics;
/// - on a spartan copy, with the options and omission hooks the bytes pick,
///   the code is correct, uses no location outside the copy and has the
///   least number of instructions (`check_implementation`), and so it is
///   without options.
///
/// The copy ranges over up to 15 registers and 4 slots. Half of the inputs
/// (by the first byte) keep only the moves that leave the copy spartan, so
/// that large spartan copies are common; that they are spartan is checked
/// too.
pub fn fuzz_implement_spartan(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(case) = SpartanCase::build(&mut u) else {
        return;
    };
    let SpartanCase { constructive, pc, opts, store_mask, load_mask } = case;
    let bit = |mask: u32, m: Slot, r: Reg| (mask >> ((m.0 * 15 + u32::from(r.0)) % 32)) & 1 == 1;
    let skip_store = |m: Slot, r: Reg| bit(store_mask, m, r);
    let skip_load = |m: Slot, r: Reg| bit(load_mask, m, r);
    let hooks = SkipHooks { skip_store: &skip_store, skip_load: &skip_load };

    let graph = LocationTransferGraph::new(&pc);
    assert_eq!(graph.is_ok(), pc.is_well_defined(), "graph construction and well-definedness disagree on {pc}");
    let spartan = pc.check_spartan().map_err(|e| e.to_string());
    if let (true, Err(e)) = (constructive, &spartan) {
        panic!("a copy built to be spartan is rejected: {e}");
    }
    if let Ok(graph) = &graph {
        let spartan_graph = graph.check_spartan_graph().map_err(|e| e.to_string());
        assert_eq!(
            spartan.is_ok(),
            spartan_graph.is_ok(),
            "Theorem 2 (or its converse) fails on {pc}: check_spartan says {spartan:?}, \
             check_spartan_graph says {spartan_graph:?}"
        );
    }
    match (implement_spartan(&pc, &opts, &hooks), &spartan) {
        (Ok(insts), Ok(())) => {
            if let Err(e) = check_implementation(&pc, &opts, &hooks, &insts) {
                panic!("spill-free SSA elimination is wrong: {e}");
            }
            // Without options, hooks that would allow everything are not
            // asked, and nothing is omitted.
            let plain = ElimOptions::default();
            let insts = implement_spartan(&pc, &plain, &SkipHooks::ALWAYS)
                .unwrap_or_else(|e| panic!("the spartan copy {pc} is rejected: {e}"));
            if let Err(e) = check_implementation(&pc, &plain, &SkipHooks::NEVER, &insts) {
                panic!("spill-free SSA elimination is wrong without options: {e}");
            }
        }
        (Err(_), Err(_)) => {}
        (Ok(insts), Err(e)) => {
            panic!("implement_spartan accepted {pc}, which is not spartan ({e}): {insts:?}")
        }
        (Err(e), Ok(())) => panic!("implement_spartan rejected the spartan copy {pc}: {e}"),
    }
}

/// The input of [`fuzz_implement_spartan`].
struct SpartanCase {
    /// Whether moves that would make the copy non-spartan were dropped.
    constructive: bool,
    pc: ParallelCopy,
    opts: ElimOptions,
    /// Bit `(m * 15 + r) % 32` answers `skip_store(m, r)`.
    store_mask: u32,
    /// Bit `(m * 15 + r) % 32` answers `skip_load(m, r)`.
    load_mask: u32,
}

impl SpartanCase {
    fn build(u: &mut Unstructured<'_>) -> arbitrary::Result<SpartanCase> {
        let constructive: bool = u.arbitrary()?;
        let regs: u32 = u.int_in_range(1..=15)?;
        let slots: u32 = u.int_in_range(0..=4)?;
        let opts = ElimOptions { store_hoisting: u.arbitrary()?, load_lowering: u.arbitrary()? };
        let (store_mask, load_mask) = (u.arbitrary()?, u.arbitrary()?);
        let loc = |i: u32| {
            if i < regs {
                Loc::Reg(Reg(i as u8))
            } else {
                Loc::Slot(Slot(i - regs))
            }
        };
        let mut moves: Vec<(Loc, Loc)> = Vec::new();
        let n: usize = u.int_in_range(0..=24)?;
        for _ in 0..n {
            let d = loc(u.int_in_range(0..=regs + slots - 1)?);
            let s = loc(u.int_in_range(0..=regs + slots - 1)?);
            // In constructive mode, keep the copy spartan: destinations and
            // sources stay distinct, no move goes from a slot to another,
            // and a slot is a self loop, only read or only written.
            let is_slot = |l: Loc| matches!(l, Loc::Slot(_));
            let breaks_spartan =
                moves.iter().any(|&(md, ms)| md == d || ms == s || (is_slot(d) && ms == d) || (is_slot(s) && md == s))
                    || (is_slot(d) && is_slot(s) && d != s);
            if constructive && breaks_spartan {
                continue;
            }
            moves.push((d, s));
        }
        Ok(SpartanCase { constructive, pc: ParallelCopy::new(moves), opts, store_mask, load_mask })
    }
}

/// Fuel of the source run in [`fuzz_construct`] (the interpreter's default).
pub const CONSTRUCT_FUEL: u64 = 1_000_000;

/// Builds a program from `data` with the generator of `crate::generate::source` (every
/// byte string gives a valid program), then checks SSA construction on it:
/// every variant of `gen::construction_variants` passes the checkers, and
/// the oracle gives the AST, Cytron et al.'s SSA and every variant's SSA the
/// same outcome (`differential::differential`). Panics with the program (as
/// `.src` text, with its arguments) and both outcomes on any failure; a
/// source that runs out of fuel is inconclusive, not a failure.
pub fn fuzz_construct(data: &[u8], oracle: &dyn crate::oracle::Oracle) {
    use crate::generate::source::{construction_variants, describe_failure, GenConfig, TestCase};
    let tc = TestCase::from_bytes(&mut arbitrary::Unstructured::new(data), &GenConfig::default());
    let verdict =
        crate::differential::differential(&tc.program, &tc.args, oracle, &construction_variants(), CONSTRUCT_FUEL);
    if !verdict.is_ok() {
        panic!("SSA construction fails on a generated program\n{}", describe_failure(&tc, &verdict));
    }
}

/// The register counts [`fuzz_pipeline`] and [`fuzz_alloc_checker`] pick
/// from (the first byte chooses).
pub const FUZZ_REGS: [usize; 6] = [2, 3, 4, 6, 8, 15];

/// The whole pipeline from bytes: the first byte picks K (of
/// [`FUZZ_REGS`]) and whether ssa-ra runs with the §6 optimizations, the
/// second byte out-of-ssa's configuration (`backend::OutOfSsa::rotation`); the
/// rest builds a program with the generator. Every stage runs, from the
/// source to x86-64 under Unicorn, with every checker
/// (`differential::differential_full`). Panics with the program (as `.src`
/// text, with its arguments) and the diverging stage on any failure.
pub fn fuzz_pipeline(data: &[u8], oracle: &dyn crate::oracle::Oracle) {
    use crate::differential::{differential_full, DiffConfig};
    use crate::generate::source::{describe_failure, GenConfig, TestCase};
    let (&first, rest) = data.split_first().unwrap_or((&0, &[]));
    let k = FUZZ_REGS[usize::from(first) % FUZZ_REGS.len()];
    let tc = TestCase::from_bytes(&mut Unstructured::new(rest), &GenConfig::default());
    let mut config = DiffConfig::standard(&[k], CONSTRUCT_FUEL);
    config.variants.truncate(2);
    let opts = config.regalloc[usize::from(first / 8) % config.regalloc.len()];
    config.regalloc = vec![opts];
    // One out-of-ssa configuration per input, picked by the second byte.
    config.out_of_ssa = vec![crate::backend::OutOfSsa::rotation(u64::from(data.get(1).copied().unwrap_or(0)))];
    let verdict = differential_full(&tc.program, &tc.args, oracle, &config);
    if !verdict.is_ok() {
        panic!("the pipeline fails with K = {k}\n{}", describe_failure(&tc, &verdict));
    }
}

/// What [`fuzz_alloc_checker`] did with its input (for the smoke test's
/// statistics: a checker that rejects everything would pass vacuously).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MutantVerdict {
    /// No mutant was run (the program has no main, the original ran out of
    /// fuel, or the bytes ran out before a mutation).
    Skipped,
    /// The checker rejected the mutant.
    Rejected,
    /// The checker accepted the mutant, and it computes what the original
    /// computes.
    AcceptedAndCorrect,
}

/// The allocation checker on arbitrary programs: bytes build a program
/// (first byte: K), ssa-ra allocates it, and the remaining bytes mutate
/// the allocated code: an operand or destination register replaced by
/// another, a transfer (move, swap, spill, reload) deleted or exchanged with
/// a neighbour, a slot renamed. The checker (`alloc_checker::check_allocation`) must accept
/// the unmutated code, and whenever it accepts a mutant, the mutant must
/// run to exactly the outcome of the original in the oracle's MIR engine:
/// acceptance is a proof of correctness, so an accepted wrong mutant is a
/// bug of the checker.
pub fn fuzz_alloc_checker(data: &[u8], oracle: &dyn crate::oracle::Oracle) -> MutantVerdict {
    use crate::generate::source::{GenConfig, TestCase};
    use crate::mir::{MFunction, MInst, MModule};
    let (&first, rest) = data.split_first().unwrap_or((&0, &[]));
    let k = FUZZ_REGS[usize::from(first) % FUZZ_REGS.len()];
    let half = rest.len() / 2;
    let (prog_bytes, mut_bytes) = rest.split_at(half);
    let tc = TestCase::from_bytes(&mut Unstructured::new(prog_bytes), &GenConfig::default());
    let ssa =
        crate::construction::braun::construct_program(&tc.program, &crate::construction::braun::BraunOptions::all_on());
    let opts = crate::ssa_ra::regalloc::RegallocOptions::with_k(k);
    let (mir, _) = crate::backend::ssa_ra::allocate_module(
        &ssa,
        &opts,
        crate::pass_manager::flags::Flags::checked(),
        &mut crate::pass_manager::runner::Unobserved,
    )
    .unwrap_or_else(|e| panic!("allocation fails: {e}"));
    let Some(main) = mir.main() else { return MutantVerdict::Skipped };
    if let Err(e) = crate::checkers::alloc_checker::check_allocation(main) {
        panic!("the checker rejects ssa-ra's own allocation: {e}");
    }
    let fuel = crate::differential::later_stage_fuel(CONSTRUCT_FUEL);
    let Ok(original) = oracle.run_mir(&mir, &tc.args, fuel) else { return MutantVerdict::Skipped };
    if original.end == crate::outcome::End::OutOfFuel {
        return MutantVerdict::Skipped;
    }
    let mut u = Unstructured::new(mut_bytes);
    let mut mutant: MFunction = main.clone();
    let nblocks = mutant.blocks.len();
    let mutations: u8 = u.int_in_range(1..=3).unwrap_or(1);
    for _ in 0..mutations {
        let Ok(bi) = u.choose_index(nblocks) else { return MutantVerdict::Skipped };
        let Some((_, block)) = mutant.blocks.iter_mut().nth(bi) else { return MutantVerdict::Skipped };
        if block.insts.is_empty() {
            continue;
        }
        let i = u.choose_index(block.insts.len()).unwrap_or(0);
        let new_reg = crate::mir::Reg(u.int_in_range(0..=(k as u8 - 1)).unwrap_or(0));
        // Operations stay, and stay in order: the checker vouches for the
        // locations the operations read, not for the operations themselves
        // (deleting an `out`, or exchanging a load with a store, is not an
        // allocation error). Transfers may go anywhere or disappear.
        let is_transfer = |j: usize| block.insts.get(j).is_some_and(|x| x.inst.is_transfer());
        match u.int_in_range(0..=3u8).unwrap_or(0) {
            0 if is_transfer(i) => {
                block.insts.remove(i);
            }
            1 if i + 1 < block.insts.len() && (is_transfer(i) || is_transfer(i + 1)) => block.insts.swap(i, i + 1),
            2 => {
                // Replace one register the instruction names.
                let which: u8 = u.int_in_range(0..=2).unwrap_or(0);
                let inst = &mut block.insts[i].inst;
                let regs: Vec<&mut crate::mir::Reg> = match inst {
                    MInst::Const { dst, .. } | MInst::Reload { dst, .. } => vec![dst],
                    MInst::Unary { dst, src, .. } | MInst::Move { dst, src } => vec![dst, src],
                    MInst::Binary { dst, a, b, .. } => vec![dst, a, b],
                    MInst::Load { dst, addr } => vec![dst, addr],
                    MInst::Store { addr, src } => vec![addr, src],
                    MInst::Out { src } | MInst::Spill { src, .. } => vec![src],
                    MInst::Swap { a, b } => vec![a, b],
                    MInst::FixedDiv { divisor, .. } => vec![divisor],
                    MInst::Call(call) => call
                        .args
                        .iter_mut()
                        .filter_map(|l| match l {
                            crate::mir::Loc::Reg(r) => Some(r),
                            crate::mir::Loc::Slot(_) => None,
                        })
                        .collect(),
                };
                let n = regs.len().max(1);
                if let Some(r) = regs.into_iter().nth(usize::from(which) % n) {
                    *r = new_reg;
                }
            }
            _ => {
                if let MInst::Spill { slot, .. } | MInst::Reload { slot, .. } = &mut block.insts[i].inst {
                    if mutant.slot_count > 0 {
                        slot.0 = u.int_in_range(0..=mutant.slot_count - 1).unwrap_or(0);
                    }
                }
            }
        }
    }
    if mutant == *main {
        return MutantVerdict::Skipped;
    }
    if crate::checkers::alloc_checker::check_allocation(&mutant).is_err() {
        return MutantVerdict::Rejected;
    }
    let module = MModule { functions: vec![mutant.clone()] };
    let got = oracle.run_mir(&module, &tc.args, fuel);
    if got.as_ref() != Ok(&original) {
        panic!(
            "the allocation checker accepts a mutant that computes something else\n--- program\n{}--- mutant\n{}--- original outcome\n{}--- mutant outcome\n{:?}",
            crate::frontend::ast_print::print_program(&tc.program),
            crate::mir::print_function(&mutant),
            original.render_full(),
            got.map(|o| o.render_full())
        );
    }
    MutantVerdict::AcceptedAndCorrect
}
