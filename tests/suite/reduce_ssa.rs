//! Reduction of SSA-level cases (`src/reduce/ssa.rs`): a generated
//! IR-level program that fails under a planted divergence shrinks to a
//! strictly smaller program that fails the same way, every kept candidate
//! is valid SSA, and the reduced `.ssa` case file replays.

use crate::common::InterpOracle;
use ssaref::differential::{differential_ssa_catching, DiffConfig, Verdict};
use ssaref::frontend::ssa_case_file::SsaCaseFile;
use ssaref::generate::ssa::{IrCase, IrGenConfig};
use ssaref::ir;
use ssaref::mir::{MInst, MModule};
use ssaref::oracle::Oracle;
use ssaref::outcome::Outcome;
use ssaref::reduce::source::{Divergence, Failure, ReduceConfig, Reducible};
use ssaref::reduce::ssa::{measure, reduce_ssa};

const FUEL: u64 = 100_000;

/// The real oracle, except that `run_mir` appends 424242 to the trace of
/// every allocated program that multiplies: a planted miscompile of
/// every back end, which the reference run of the SSA does not see.
struct MulOracle;

fn multiplies(m: &MModule) -> bool {
    m.main()
        .into_iter()
        .flat_map(|f| f.blocks.iter().flat_map(|(_, b)| b.insts.iter()))
        .any(|i| matches!(i.inst, MInst::Binary { op: ssaref::ast::BinOp::Mul, .. }))
}

impl Oracle for MulOracle {
    fn run_source(
        &self,
        p: &ssaref::ast::Program,
        args: &[i64],
        fuel: u64,
    ) -> Result<Outcome, ssaref::oracle::OracleError> {
        InterpOracle.run_source(p, args, fuel)
    }
    fn run_ssa(&self, m: &ir::Module, args: &[i64], fuel: u64) -> Result<Outcome, ssaref::oracle::OracleError> {
        InterpOracle.run_ssa(m, args, fuel)
    }
    fn run_mir(&self, m: &MModule, args: &[i64], fuel: u64) -> Result<Outcome, ssaref::oracle::OracleError> {
        let mut o = InterpOracle.run_mir(m, args, fuel)?;
        if multiplies(m) {
            o.trace.push(424242);
        }
        Ok(o)
    }
}

fn ssa_multiplies(m: &ir::Module) -> bool {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.values())
        .flat_map(|b| b.insts.iter())
        .any(|i| matches!(i.op, ir::Op::Binary(ir::BinOp::Mul, ..)))
}

/// The first generated IR-level program of at least `min_blocks` blocks
/// that fails under [`MulOracle`] and passes under the real oracle.
fn large_failing_case(min_blocks: usize) -> IrCase {
    let config = IrGenConfig::default();
    (0..300)
        .map(|seed| IrCase::from_seed(seed, &config))
        .filter(|c| c.module.main().is_some_and(|f| f.blocks.len() >= min_blocks) && ssa_multiplies(&c.module))
        .find(|c| {
            let diff = DiffConfig::standard(&[4], FUEL);
            matches!(differential_ssa_catching(&c.module, &c.args, &MulOracle, &diff), Verdict::Diverge { .. })
                && matches!(differential_ssa_catching(&c.module, &c.args, &InterpOracle, &diff), Verdict::Agree { .. })
        })
        .expect("some generated program multiplies")
}

#[test]
fn a_generated_ssa_case_shrinks_to_a_multiplication_that_still_fails_and_replays() {
    let case = large_failing_case(6);
    let before = measure(&case);
    let r = reduce_ssa(&case, &[4], &MulOracle, &ReduceConfig { max_tests: 3000, fuel: FUEL }).expect("fails");
    let text = ssaref::ssa_text::print_module(&r.case.module);
    eprintln!("{:?} -> {:?}, {:?}\n{text}", before, measure(&r.case), r.stats);
    // The same failure, at K = 2 now.
    assert!(matches!(&r.failure, Failure::Diverge { how: Divergence::WrongOutcome, .. }), "{}", r.failure);
    assert_eq!(Failure::of(&r.verdict), Some(r.failure.clone()));
    assert_eq!(r.regs, vec![2]);
    // Strictly smaller, and tiny: the multiplication, what feeds it and an
    // end; one block (the planted bug needs no control flow).
    assert!(measure(&r.case) < before);
    assert!(r.stats.statements_after < r.stats.statements_before);
    let main = r.case.module.main().expect("main");
    assert_eq!(main.blocks.len(), 1, "{text}");
    assert!(r.case.size() <= 2, "{text}");
    assert!(ssa_multiplies(&r.case.module), "{text}");
    assert!(!r.stats.stopped_early);
    // The reduced case file parses (it passes the verifier) and replays.
    let file = SsaCaseFile::for_failure("reduced", "x.reduced.ssa", &r.case, &r.verdict, &r.regs);
    let back = SsaCaseFile::parse(&file.render()).expect("the reduced case file parses");
    assert_eq!(back.header.regs, Some(vec![2]));
    let replay = differential_ssa_catching(
        &back.module,
        &back.args(),
        &MulOracle,
        &DiffConfig::standard(&[2], FUEL).with_regalloc2(),
    );
    assert_eq!(Failure::of(&replay), Some(r.failure.clone()));
    // Deterministic.
    let again = reduce_ssa(&case, &[4], &MulOracle, &ReduceConfig { max_tests: 3000, fuel: FUEL }).expect("fails");
    assert_eq!(again.case.module, r.case.module);
}

#[test]
fn a_passing_ssa_case_is_not_reduced() {
    let case = IrCase::from_seed(3, &IrGenConfig::default());
    let err = reduce_ssa(&case, &[3], &InterpOracle, &ReduceConfig::new(FUEL)).expect_err("passes");
    assert!(err.to_string().contains("does not fail"), "{err}");
}

/// Every candidate of a batch of generated programs is valid SSA, strictly
/// smaller, and the candidates use each kind of edit: fewer blocks (bypass,
/// branch to jump), fewer edges, fewer phis.
#[test]
fn candidates_of_generated_programs_are_valid_and_smaller() {
    use ssaref::reduce::source::CandidateList;
    let (mut fewer_blocks, mut fewer_edges, mut fewer_phis) = (0, 0, 0);
    for seed in 0..20 {
        let case = IrCase::from_seed(seed, &IrGenConfig::default());
        let list = case.candidates();
        for i in 0..list.len() {
            let Some(c) = list.get(i) else { continue };
            ssaref::analysis::verifier::verify_module(&c.module).expect("a candidate is valid SSA");
            let (m, b) = (measure(&c), measure(&case));
            assert!(m < b, "seed {seed}: candidate {i} is not smaller");
            fewer_blocks += usize::from(m.0 < b.0);
            fewer_edges += usize::from(m.0 == b.0 && m.1 < b.1);
            let phis = |c: &IrCase| c.module.main().map_or(0, |f| f.phi_count());
            fewer_phis += usize::from(phis(&c) < phis(&case));
        }
    }
    assert!(fewer_blocks > 0 && fewer_edges > 0 && fewer_phis > 0, "{fewer_blocks} {fewer_edges} {fewer_phis}");
}
