//! A failed check arrives as a value: [`PassError`] carries the checker's
//! own error in a [`CheckError`] variant, which a caller matches on to read
//! the block, value or register at fault, while its text stays the message
//! case files and golden files record.

use crate::common::passes::allocate_conventional;
use crate::common::{parse_unverified, InterpOracle};
use ssaref::differential::{differential_ssa, DiffConfig, Verdict};
use ssaref::error::{AllocInputError, CheckError, InputProblem, PassError};
use ssaref::ir::{Block, Module, Value};
use ssaref::out_of_ssa::conventional::ConventionalAllocator;

/// `v2` is used in `b1` but defined in `b2`, which does not dominate `b1`.
const USE_BEFORE_DEF: &str = "
fn main(v0) {
b0:
    br v0, b1, b2
b1(b0):
    v1 = add v2, v0
    ret v1
b2(b0):
    v2 = add v0, v0
    ret v2
}
";

#[test]
fn a_verifier_failure_found_by_the_pipeline_is_the_verifiers_variant() {
    let module = Module { functions: vec![parse_unverified(USE_BEFORE_DEF)] };
    let config = DiffConfig::standard(&[4], 10_000);
    let verdict = differential_ssa(&module, &[1], &InterpOracle, &config);
    let Verdict::CheckFailed(e) = verdict else { panic!("the verifier rejects the input: {verdict}") };
    assert_eq!((e.pass.as_str(), e.check), ("input", "verify"));
    let CheckError::Verify(v) = &*e.error else { panic!("not the verifier's error: {e:?}") };
    assert_eq!((v.function.as_str(), v.block, v.value), ("main", Some(Block(1)), Some(Value(2))));
    // The text is the verifier's message behind the pass and the check.
    assert_eq!(e.to_string(), format!("after input: check `verify` failed: {v}"));
    assert!(v.to_string().starts_with("function `main`, block b1: v2 "), "{v}");
    // The checker's error is also the `source` of the pass error.
    let source = std::error::Error::source(&e).expect("a source");
    assert_eq!(source.to_string(), v.to_string());
}

#[test]
fn a_conventional_allocator_names_the_block_with_phis() {
    let f = parse_unverified(
        "
fn main(v0) {
b0:
    br v0, b1, b2
b1(b0):
    v1 = add v0, v0
    jump b3
b2(b0):
    v2 = sub v0, v0
    jump b3
b3(b1, b2):
    v3 = phi v1, v2
    ret v3
}
",
    );
    for which in [ConventionalAllocator::SpillEverything, ConventionalAllocator::LinearScan] {
        let e = allocate_conventional(&f, 4, which).expect_err("phis are not a conventional allocator's input");
        assert_eq!(
            *e.error,
            CheckError::AllocInput(AllocInputError { function: "main".into(), problem: InputProblem::Phis(Block(3)) })
        );
        assert_eq!(
            e.to_string(),
            format!(
                "after out-of-ssa/{}: check `input` failed: function `main`: b3 has phis; out-of-ssa allocates code \
                 after SSA destruction",
                which.name()
            )
        );
    }
}

#[test]
fn a_register_count_out_of_range_is_reported_with_the_count() {
    let f = parse_unverified("fn main(v0) {\nb0:\n    ret v0\n}\n");
    let opts = ssaref::ssa_ra::regalloc::RegallocOptions::with_k(1);
    let e: PassError = crate::common::passes::allocate_function(&f, &opts).expect_err("K = 1 is too few");
    assert_eq!(*e.error, CheckError::RegisterCount { k: 1 });
    assert_eq!(e.to_string(), "after ssa-ra/options: check `k` failed: K = 1 is outside 2..=15");
    let e = crate::common::passes::allocate_regalloc2(&f, 16).expect_err("K = 16 is too many");
    assert_eq!(*e.error, CheckError::RegisterCount { k: 16 });
    assert_eq!(e.to_string(), "after regalloc2[k=16]/options: check `k` failed: K = 16 is outside 2..=15");
}

#[test]
fn the_pipelines_allocation_check_names_the_register_and_the_value() {
    use ssaref::checkers::alloc_checker::{AllocCheckErrorKind, LocState, Site};
    use ssaref::entity::EntityVec;
    use ssaref::mir::{Annot, Loc, MBlock, MFunction, MInst, MInstA, MModule, MTerm, Reg};
    let ssa = Module { functions: vec![parse_unverified("fn main(v0) {\nb0:\n    v1 = add v0, v0\n    ret v1\n}\n")] };
    // `v1` is computed into rax, but the return reads rcx, which holds
    // nothing.
    let (rax, rcx) = (Reg(0), Reg(1));
    let add = MInstA {
        inst: MInst::Binary { op: ssaref::ir::BinOp::Add, dst: rax, a: rax, b: rax },
        annot: Annot { reads: vec![Value(0), Value(0)], defines: Some(Value(1)) },
    };
    let mut blocks = EntityVec::new();
    blocks.push(MBlock {
        preds: vec![],
        phis: vec![],
        insts: vec![add],
        term: MTerm::Return(rcx),
        term_reads: Some(Value(1)),
    });
    let main = MFunction { name: "main".into(), k: 2, slot_count: 0, params: vec![(Loc::Reg(rax), Value(0))], blocks };
    let mir = MModule { functions: vec![main] };
    let e = ssaref::pipeline::check_backend_output(&ssa, &mir, 2, "planted").expect_err("rcx does not hold v1");
    assert_eq!((e.pass.as_str(), e.check), ("planted", "alloc-checker"));
    let CheckError::Alloc(a) = &*e.error else { panic!("not the allocation checker's error: {e:?}") };
    assert_eq!(a.site, Site::Terminator(Block(0)));
    assert_eq!(
        a.kind,
        AllocCheckErrorKind::WrongValue { loc: Loc::Reg(rcx), expected: Value(1), found: LocState::Unknown }
    );
    assert_eq!(a.register(), Some(rcx));
    assert_eq!(e.to_string(), format!("after planted: check `alloc-checker` failed: {a}"));
}

#[test]
fn the_oracles_error_reaches_the_verdict_as_a_value() {
    use ssaref::oracle::OracleError;
    let module = Module { functions: vec![parse_unverified("fn f(v0) {\nb0:\n    ret v0\n}\n")] };
    let verdict = differential_ssa(&module, &[1], &InterpOracle, &DiffConfig::standard(&[4], 10_000));
    assert_eq!(verdict, Verdict::SourceError(OracleError::NoMain));
    assert_eq!(verdict.to_string(), "the oracle could not run the source: no function named `main`");
}

#[test]
fn when_the_two_allocation_checkers_disagree_both_verdicts_are_kept() {
    use ssaref::checkers::alloc_checker::{AllocCheckError, AllocCheckErrorKind, Site};
    let ours = AllocCheckError {
        function: "main".into(),
        site: Site::Function,
        kind: AllocCheckErrorKind::RegisterCount { k: 1 },
    };
    let e = PassError::new(
        "regalloc2[k=1]/to-mir",
        "checkers-disagree",
        CheckError::CheckersDisagree { ours: Some(ours.clone()), theirs: None },
    );
    let CheckError::CheckersDisagree { ours: Some(o), theirs: None } = &*e.error else { panic!("{e:?}") };
    assert_eq!(o.kind, AllocCheckErrorKind::RegisterCount { k: 1 });
    assert_eq!(
        e.to_string(),
        format!(
            "after regalloc2[k=1]/to-mir: check `checkers-disagree` failed: ssaref's allocation checker rejects: {ours}; \
             regalloc2's checker accepts"
        )
    );
}
