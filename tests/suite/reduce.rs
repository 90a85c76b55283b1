//! The test-case reducer (`src/reduce/source.rs`), driven by oracles that plant a
//! divergence at the allocated-code stage whenever the allocated program
//! has some property: it must shrink a large generated program to a tiny
//! one that still has the property, keep the failing stage, lower K as far
//! as the failure allows, never keep a candidate whose source runs out of
//! fuel, and do the same thing twice.

use crate::common::InterpOracle;
use ssaref::ast::{BinOp, Expr, Stmt};
use ssaref::differential::{differential_full, DiffConfig, Verdict};
use ssaref::entity::EntityRef;
use ssaref::frontend::case_file::CaseFile;
use ssaref::frontend::parser;
use ssaref::generate::source::{GenConfig, TestCase};
use ssaref::mir::{MInst, MModule, MTerm};
use ssaref::oracle::Oracle;
use ssaref::outcome::{End, Outcome};
use ssaref::reduce::source::{reduce, Divergence, Failure, ReduceConfig, ReduceError, Reduction};
use ssaref::{ast, ir};

const FUEL: u64 = 100_000;

/// The real oracle, except that `run_mir` appends 424242 to the trace of
/// every allocated program for which `planted` holds, and `run_ssa` to that
/// of every SSA program for which `planted_ssa` holds.
struct PlantedOracle {
    planted: fn(&MModule) -> bool,
    planted_ssa: fn(&ir::Module) -> bool,
}

fn never(_: &ir::Module) -> bool {
    false
}

/// True when `main` has no `out`.
fn prints_nothing(m: &ir::Module) -> bool {
    !m.main().is_some_and(|f| f.blocks.iter().any(|(_, b)| b.insts.iter().any(|i| matches!(i.op, ir::Op::Out(_)))))
}

impl Oracle for PlantedOracle {
    fn run_source(
        &self,
        program: &ast::Program,
        args: &[i64],
        fuel: u64,
    ) -> Result<Outcome, ssaref::oracle::OracleError> {
        InterpOracle.run_source(program, args, fuel)
    }

    fn run_ssa(&self, module: &ir::Module, args: &[i64], fuel: u64) -> Result<Outcome, ssaref::oracle::OracleError> {
        let mut outcome = InterpOracle.run_ssa(module, args, fuel)?;
        if (self.planted_ssa)(module) {
            outcome.trace.push(424242);
        }
        Ok(outcome)
    }

    fn run_mir(&self, module: &MModule, args: &[i64], fuel: u64) -> Result<Outcome, ssaref::oracle::OracleError> {
        let mut outcome = InterpOracle.run_mir(module, args, fuel)?;
        if (self.planted)(module) {
            outcome.trace.push(424242);
        }
        Ok(outcome)
    }
}

fn main_insts(m: &MModule) -> impl Iterator<Item = &MInst> {
    m.main().into_iter().flat_map(|f| f.blocks.iter().flat_map(|(_, b)| b.insts.iter().map(|i| &i.inst)))
}

fn multiplies(m: &MModule) -> bool {
    main_insts(m).any(|i| matches!(i, MInst::Binary { op: BinOp::Mul, .. }))
}

fn multiplies_with_4_registers(m: &MModule) -> bool {
    multiplies(m) && m.main().is_some_and(|f| f.k >= 4)
}

/// True when the CFG of `main` has a cycle.
fn loops(m: &MModule) -> bool {
    let Some(f) = m.main() else { return false };
    let succs = |b: ir::Block| match f.blocks[b].term {
        MTerm::Jump(t) => vec![t],
        MTerm::Branch { then_dest, else_dest, .. } => vec![then_dest, else_dest],
        MTerm::Return(_) => vec![],
    };
    f.blocks.iter().any(|(start, _)| {
        let mut seen = vec![false; f.blocks.len()];
        let mut stack = succs(start);
        while let Some(b) = stack.pop() {
            if b == start {
                return true;
            }
            if !std::mem::replace(&mut seen[b.index()], true) {
                stack.extend(succs(b));
            }
        }
        false
    })
}

fn verdict(tc: &TestCase, regs: &[usize], oracle: &dyn Oracle) -> Verdict {
    differential_full(&tc.program, &tc.args, oracle, &DiffConfig::standard(regs, FUEL))
}

fn has_mul(e: &Expr) -> bool {
    match e {
        Expr::Binary(BinOp::Mul, ..) => true,
        Expr::Lit(_) | Expr::Var(_) => false,
        Expr::Load(a) | Expr::Unary(_, a) => has_mul(a),
        Expr::Binary(_, a, b) | Expr::LogicalAnd(a, b) | Expr::LogicalOr(a, b) => has_mul(a) || has_mul(b),
        Expr::Call(_, args) => args.iter().any(has_mul),
    }
}

fn program_has_mul(p: &ast::Program) -> bool {
    let mut found = false;
    ast::walk_stmts(&p.functions[0].body, |s, _| match s {
        Stmt::Var(_, e) | Stmt::Assign(_, e) | Stmt::Out(e) | Stmt::Return(e) | Stmt::If(e, ..) | Stmt::While(e, _) => {
            found |= has_mul(e)
        }
        Stmt::Store(a, v) => found |= has_mul(a) || has_mul(v),
        _ => {}
    });
    found
}

/// The first generated program of at least `min_statements` statements
/// that fails at `ssa-ra[k=6,opt]` under `oracle` and not under the real
/// oracle.
fn large_failing_case(oracle: &dyn Oracle, min_statements: usize) -> TestCase {
    let config = GenConfig { size: 40, ..GenConfig::default() };
    (0..200)
        .map(|seed| TestCase::from_seed(seed, &config))
        .filter(|tc| tc.statement_count() >= min_statements)
        .find(|tc| {
            matches!(verdict(tc, &[6], oracle), Verdict::Diverge { stage, .. } if stage == "ssa-ra[k=6,opt]")
                && matches!(verdict(tc, &[6], &InterpOracle), Verdict::Agree { .. })
        })
        .expect("some generated program multiplies")
}

fn source_ends(r: &Reduction) -> bool {
    let o = InterpOracle.run_source(&r.case.program, &r.case.args, FUEL).expect("the oracle runs the source");
    o.end != End::OutOfFuel
}

#[test]
fn a_large_program_reduces_to_a_multiplication_at_the_same_stage_with_k_2() {
    let oracle = PlantedOracle { planted: multiplies, planted_ssa: never };
    let tc = large_failing_case(&oracle, 30);
    let r = reduce(&tc, &[6, 8], &oracle, &ReduceConfig::new(FUEL)).expect("the case fails");
    let text = ssaref::frontend::ast_print::print_program(&r.case.program);
    assert_eq!(r.failure, Failure::Diverge { stage: "ssa-ra[k=*,opt]".into(), how: Divergence::WrongOutcome });
    assert!(r.stats.statements_before >= 30, "{:?}", r.stats);
    assert!(r.case.statement_count() <= 2, "not reduced enough:\n{text}");
    assert!(program_has_mul(&r.case.program), "the construct is gone:\n{text}");
    assert_eq!((r.k_before, r.k_after, r.regs.as_slice()), (Some(6), Some(2), &[2][..]));
    assert!(matches!(&r.verdict, Verdict::Diverge { stage, .. } if stage == "ssa-ra[k=2,opt]"), "{:?}", r.verdict);
    assert_eq!(verdict(&r.case, &r.regs, &oracle), r.verdict, "the reduced case replays");
    assert!(source_ends(&r));
    assert!(!r.stats.stopped_early && r.stats.tests < ReduceConfig::DEFAULT_MAX_TESTS, "{:?}", r.stats);
    assert_eq!(r.stats.statements_after, r.case.statement_count());

    // The reduced case file replays: same program, arguments and K.
    let file = CaseFile::for_failure("reduced", "x.reduced.src", &r.case, &r.verdict, &r.regs);
    let back = CaseFile::parse(&file.render()).expect("the written case parses");
    assert_eq!((&back.program, &back.args, &back.regs), (&r.case.program, &r.case.args, &Some(r.regs.clone())));
    assert!(file.description.iter().any(|l| l.contains("ssa-ra[k=2,opt]")), "{:?}", file.description);
}

#[test]
fn k_goes_down_only_as_far_as_the_failure_persists_and_reduction_is_deterministic() {
    let oracle = PlantedOracle { planted: multiplies_with_4_registers, planted_ssa: never };
    let tc = large_failing_case(&oracle, 15);
    let config = ReduceConfig::new(FUEL);
    let r = reduce(&tc, &[15, 6], &oracle, &config).expect("the case fails");
    assert_eq!((r.k_before, r.k_after), (Some(15), Some(4)));
    assert!(matches!(&r.verdict, Verdict::Diverge { stage, .. } if stage == "ssa-ra[k=4,opt]"), "{:?}", r.verdict);
    assert!(program_has_mul(&r.case.program));
    let again = reduce(&tc, &[15, 6], &oracle, &config).expect("the case fails");
    assert_eq!((&again.case, &again.regs, &again.stats), (&r.case, &r.regs, &r.stats), "not deterministic");
}

#[test]
fn a_candidate_whose_source_runs_out_of_fuel_is_never_kept() {
    // The planted failure needs a loop in the allocated code. Removing the
    // increment, or replacing the condition by 1, gives smaller programs
    // that still loop, but forever: the reducer must not keep them.
    let oracle = PlantedOracle { planted: loops, planted_ssa: never };
    let program = parser::parse_program(
        "fn main(a) { var i = 0; var s = 0; while (i < 3) { i = i + 1; s = s + a * i; mem[i] = s; } out s; return i; }",
    )
    .expect("parses");
    let tc = TestCase { program, args: vec![5], origin: "test".into() };
    let r = reduce(&tc, &[3], &oracle, &ReduceConfig::new(FUEL)).expect("the case fails");
    let text = ssaref::frontend::ast_print::print_program(&r.case.program);
    assert!(r.stats.inconclusive > 0, "no candidate ran out of fuel: {:?}", r.stats);
    assert!(source_ends(&r), "kept a program that runs out of fuel:\n{text}");
    assert!(text.contains("while"), "{text}");
    assert!(r.case.statement_count() <= 3, "{text}");
    assert_eq!(r.k_after, Some(2));
}

#[test]
fn a_candidate_failing_at_another_stage_is_not_kept() {
    // Without its `out`s the program is smaller and still fails, but at the
    // first SSA stage (`cytron`) instead of the allocated code.
    let oracle = PlantedOracle { planted: multiplies, planted_ssa: prints_nothing };
    let program =
        parser::parse_program("fn main(a, b) { var x = a * b; out x; out a; mem[x] = 1; return 0; }").expect("parses");
    let tc = TestCase { program, args: vec![3, 4], origin: "test".into() };
    let r = reduce(&tc, &[2], &oracle, &ReduceConfig::new(FUEL)).expect("the case fails");
    let text = ssaref::frontend::ast_print::print_program(&r.case.program);
    assert!(matches!(&r.verdict, Verdict::Diverge { stage, .. } if stage == "ssa-ra[k=2,opt]"), "{:?}", r.verdict);
    assert!(r.stats.other_failures > 0, "{:?}", r.stats);
    assert!(text.contains("out") && program_has_mul(&r.case.program), "{text}");
    assert!(r.case.statement_count() <= 2, "{text}");
}

#[test]
fn the_bound_on_tests_is_kept() {
    let oracle = PlantedOracle { planted: multiplies, planted_ssa: never };
    let tc = large_failing_case(&oracle, 15);
    let config = ReduceConfig { max_tests: 7, fuel: FUEL };
    let r = reduce(&tc, &[6], &oracle, &config).expect("the case fails");
    assert_eq!(r.stats.tests, 7);
    assert!(r.stats.stopped_early);
    assert!(r.case.statement_count() < tc.statement_count(), "seven tests remove something");
    assert!(matches!(r.verdict, Verdict::Diverge { .. }));
}

#[test]
fn a_case_that_does_not_fail_is_refused() {
    let tc = TestCase {
        program: parser::parse_program("fn main(a) { out a * 3; }").expect("parses"),
        args: vec![2],
        origin: "test".into(),
    };
    let err = reduce(&tc, &[2], &InterpOracle, &ReduceConfig::new(FUEL)).expect_err("nothing fails");
    assert!(matches!(&err, ReduceError::NotFailing(v) if matches!(**v, Verdict::Agree { .. })), "{err:?}");
    let tc = TestCase {
        program: parser::parse_program("fn main() { while (1) { } }").expect("parses"),
        args: vec![],
        origin: "test".into(),
    };
    let err = reduce(&tc, &[2], &InterpOracle, &ReduceConfig::new(FUEL)).expect_err("out of fuel");
    assert!(matches!(&err, ReduceError::NotFailing(v) if **v == Verdict::Inconclusive), "{err:?}");
    assert!(err.to_string().contains("out of fuel"), "{err}");
}

/// A panic keeps its kind when the candidate renumbers values and blocks:
/// `vN` and `bN` are normalized, everything else of the message is kept.
#[test]
fn panic_messages_match_up_to_value_and_block_numbers() {
    use ssaref::reduce::source::normalize_numbers;
    assert_eq!(
        normalize_numbers("v12 and v3 share rax in b4 (bv1, v2x, k=4, at src/a.rs:10:5)"),
        "v* and v* share rax in b* (bv1, v2x, k=4, at src/a.rs:10:5)"
    );
    let a = Failure::of(&Verdict::Panic("no register for v7 in b2".into()));
    let b = Failure::of(&Verdict::Panic("no register for v31 in b0".into()));
    let c = Failure::of(&Verdict::Panic("no slot for v31 in b0".into()));
    assert_eq!(a, b);
    assert_ne!(a, c);
}

/// True when some function calls another with two arguments or more.
fn calls_with_two_arguments(m: &ir::Module) -> bool {
    m.functions.iter().any(|f| {
        f.blocks.iter().any(|(_, b)| b.insts.iter().any(|i| matches!(&i.op, ir::Op::Call(c) if c.args.len() >= 2)))
    })
}

#[test]
fn a_planted_failure_in_a_program_with_calls_reduces_to_one_small_call() {
    // Every SSA stage of a module with a call of two arguments or more
    // diverges: the reducer must keep one such call and remove the other
    // calls, arguments and functions.
    let oracle = PlantedOracle { planted: |_| false, planted_ssa: calls_with_two_arguments };
    let config = GenConfig { calls: true, ..GenConfig::default() };
    let tc = (0..200)
        .map(|seed| TestCase::from_seed(seed, &config))
        .find(|tc| {
            tc.program.functions.len() >= 3
                && tc.statement_count() >= 40
                && matches!(verdict(tc, &[], &oracle), Verdict::Diverge { .. })
                && matches!(verdict(tc, &[], &InterpOracle), Verdict::Agree { .. })
        })
        .expect("some generated program with calls fails");
    let r = reduce(&tc, &[], &oracle, &ReduceConfig::new(FUEL)).expect("the case fails");
    let text = ssaref::frontend::ast_print::print_program(&r.case.program);
    assert!(matches!(r.failure, Failure::Diverge { how: Divergence::WrongOutcome, .. }), "{:?}", r.failure);
    assert!(r.stats.statements_before >= 40, "{:?}", r.stats);
    assert!(r.case.program.functions.len() <= 2, "uncalled functions are left:\n{text}");
    assert!(r.case.statement_count() <= 4, "not reduced enough:\n{text}");
    let params: usize = r.case.program.functions.iter().map(|f| f.params.len()).sum();
    assert!(params <= 2, "unused parameters are left:\n{text}");
    assert_eq!(text.matches('(').count() - text.matches("fn ").count(), 1, "one call is left:\n{text}");
    assert_eq!(verdict(&r.case, &r.regs, &oracle), r.verdict, "the reduced case replays");
    assert!(source_ends(&r));
}
