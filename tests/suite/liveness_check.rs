//! The fast liveness check (`liveness_check.rs`, Boissinot et al. CGO 2008,
//! [16] of Boissinot et al. CGO 2009 §IV-A) against the dataflow sets of
//! `liveness.rs`: every live-in, live-out and after-instruction query on
//! every value and block must get the same answer, on the corpus, on
//! generated programs (quickcheck, `QUICKCHECK_TESTS`, default 200), before
//! and after Method I copy insertion, irreducible CFGs included.
//! `proofs-notes/out-of-ssa.md`, "The liveness check", argues why.

use crate::common::case_files;
use quickcheck::{QuickCheck, TestResult};
use ssaref::analysis::liveness::{compute_liveness, live_after_each_inst};
use ssaref::analysis::reducibility::is_reducible;
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::entity::EntityRef;
use ssaref::generate::source::TestCase;
use ssaref::ir::{Function, Module, Value};
use ssaref::out_of_ssa::copy_insertion::insert_copies;
use ssaref::out_of_ssa::liveness_check::LivenessCheck;
use ssaref::ssa_text::print_function;

/// What the comparison saw.
#[derive(Default, Debug)]
struct Seen {
    functions: usize,
    irreducible: usize,
    queries: usize,
    live_answers: usize,
    /// Queries the plain closure `T_q` gets wrong on irreducible CFGs.
    closure_wrong: usize,
}

fn compare(f: &Function, seen: &mut Seen) -> Result<(), String> {
    let sets = compute_liveness(f);
    let check = LivenessCheck::new(f);
    seen.functions += 1;
    if check.is_reducible() != is_reducible(f) {
        return Err("reducibility disagrees with reducibility.rs".into());
    }
    if !check.is_reducible() {
        seen.irreducible += 1;
    }
    let values: Vec<Value> = (0..f.value_count as usize).map(Value::new).collect();
    for b in f.blocks.keys() {
        let after = live_after_each_inst(f, b, &sets);
        for &v in &values {
            seen.queries += 2 + after.len();
            let (si, ci) = (sets.live_in[b].contains(v), check.live_in(v, b));
            if si != ci {
                return Err(format!("live-in of {v} at {b}: sets {si}, check {ci}"));
            }
            let closure = check.live_in_with_closure(v, b);
            if !check.is_reducible() && closure != si {
                seen.closure_wrong += 1;
            }
            // On a reducible CFG the loop-forest query and the 2008 paper's
            // closure must agree (`proofs-notes/out-of-ssa.md`, "The
            // liveness check").
            if check.is_reducible() && closure != ci {
                return Err(format!("live-in of {v} at {b}: loop forest {ci}, closure {closure}"));
            }
            let (so, co) = (sets.live_out[b].contains(v), check.live_out(v, b));
            if so != co {
                return Err(format!("live-out of {v} at {b}: sets {so}, check {co}"));
            }
            seen.live_answers += usize::from(si) + usize::from(so);
            for (i, set) in after.iter().enumerate() {
                let (sa, ca) = (set.contains(v), check.live_after_inst(v, b, i));
                if sa != ca {
                    return Err(format!("live after instruction {i} of {b}, {v}: sets {sa}, check {ca}"));
                }
            }
        }
    }
    Ok(())
}

fn compare_module(m: &Module, seen: &mut Seen) -> Result<(), String> {
    for f in &m.functions {
        compare(f, seen).map_err(|e| format!("{e}\n{}", print_function(f)))?;
        let mut g = f.clone();
        ssaref::analysis::critical_edges::split_critical_edges(&mut g);
        insert_copies(&mut g);
        compare(&g, seen).map_err(|e| format!("after Method I: {e}\n{}", print_function(&g)))?;
    }
    Ok(())
}

#[test]
fn corpus_liveness_check_answers_like_the_sets() {
    let mut seen = Seen::default();
    for path in case_files() {
        let text = std::fs::read_to_string(&path).expect("readable case");
        let program = ssaref::frontend::parser::parse_program(&text).expect("case parses");
        for opts in [BraunOptions::all_on(), BraunOptions::plain()] {
            let m = construct_program(&program, &opts);
            if let Err(e) = compare_module(&m, &mut seen) {
                panic!("{}: {e}", path.display());
            }
        }
    }
    eprintln!("{seen:?}");
    assert!(seen.irreducible > 0, "the corpus has irreducible CFGs");
    assert!(seen.live_answers > 1000);
}

/// Loops nested 40 deep (the `nested-loops` shape of `bench-shapes`), and
/// the same with a value defined and used in every body, so that the
/// definitions lie at every depth of the loop forest: the loop-forest query
/// must agree with the sets and the closure at every depth.
#[test]
fn deeply_nested_loops_liveness_check_answers_like_the_sets() {
    use ssaref::generate::source::WorstShape;
    let plain = WorstShape::NestedLoops.source(40);
    let mut bodies = String::from("fn main(n) {\n    var x = 0;\n    var y = 0;\n");
    for i in 0..40 {
        bodies.push_str(&format!("    var t{i} = x + {i};\n    while (x < n + t{i}) {{\n"));
    }
    bodies.push_str("    x = x + 1;\n");
    for i in (0..40).rev() {
        bodies.push_str(&format!("    y = y + t{i};\n    }}\n"));
    }
    bodies.push_str("    return x + y;\n}\n");
    let mut seen = Seen::default();
    for text in [plain, bodies] {
        let program = ssaref::frontend::parser::parse_program(&text).expect("the shape parses");
        let m = construct_program(&program, &BraunOptions::all_on());
        compare_module(&m, &mut seen).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(seen.irreducible == 0 && seen.live_answers > 10_000, "{seen:?}");
}

fn agrees(tc: TestCase) -> TestResult {
    let m = construct_program(&tc.program, &BraunOptions::all_on());
    let mut seen = Seen::default();
    match compare_module(&m, &mut seen) {
        Ok(()) => TestResult::passed(),
        Err(e) => TestResult::error(format!("{e}\n{}", tc.to_source())),
    }
}

#[test]
fn generated_liveness_check_answers_like_the_sets() {
    let n = std::env::var("QUICKCHECK_TESTS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    QuickCheck::new().tests(n).max_tests(n * 4).quickcheck(agrees as fn(TestCase) -> TestResult);
}

/// Random CFGs of up to 7 blocks, most of them irreducible, with values
/// defined and used at random places (kept strict by the SSA verifier):
/// the check must agree with the sets; the plain closure is counted.
#[test]
fn random_irreducible_cfgs_liveness_check_answers_like_the_sets() {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use ssaref::analysis::dominance::DomTree;
    use ssaref::ir::{BlockData, Inst, Op, Terminator};
    let mut seen = Seen::default();
    let mut rng = SmallRng::seed_from_u64(2008);
    for _ in 0..3000 {
        let n = rng.gen_range(2..=7usize);
        let mut f = Function { name: "main".into(), params: vec![], blocks: Default::default(), value_count: 0 };
        let cond = f.new_value();
        for _ in 0..n {
            f.blocks.push(BlockData::new(cond));
        }
        for b in f.blocks.keys().collect::<Vec<_>>() {
            let pick = |rng: &mut SmallRng| ssaref::ir::Block::new(rng.gen_range(1..n));
            f.blocks[b].term = match rng.gen_range(0..4) {
                0 => Terminator::Return(cond),
                1 => Terminator::Jump(pick(&mut rng)),
                _ => Terminator::Branch { cond, then_dest: pick(&mut rng), else_dest: pick(&mut rng) },
            };
        }
        f.blocks[ssaref::ir::Function::ENTRY].insts.push(Inst { dest: Some(cond), op: Op::Const(1) });
        f.recompute_preds_without_phis();
        let dom = DomTree::compute(&f);
        if f.blocks.keys().any(|b| !dom.is_reachable(b)) {
            continue;
        }
        // Values defined in random blocks, used in random blocks they
        // dominate.
        for _ in 0..4 {
            let d = ssaref::ir::Block::new(rng.gen_range(0..n));
            let v = f.new_value();
            f.blocks[d].insts.push(Inst { dest: Some(v), op: Op::Const(7) });
            for _ in 0..rng.gen_range(0..3) {
                let u = ssaref::ir::Block::new(rng.gen_range(0..n));
                if dom.dominates(d, u) {
                    f.blocks[u].insts.push(Inst { dest: None, op: Op::Out(v) });
                }
            }
        }
        ssaref::analysis::verifier::verify_function(&f).unwrap_or_else(|e| panic!("{e}\n{}", print_function(&f)));
        compare(&f, &mut seen).unwrap_or_else(|e| panic!("{e}\n{}", print_function(&f)));
    }
    eprintln!("{seen:?}");
    assert!(seen.irreducible > 100, "{seen:?}");
}

/// The campaigns' cross-check (`liveness_cross_check.rs`, run by out-of-ssa
/// with `OutOfSsaOptions::cross_check`) accepts the corpus and rejects a
/// live-in set with one value taken out, and a live-out set with one added.
#[test]
fn the_cross_check_rejects_a_wrong_live_set() {
    use ssaref::out_of_ssa::liveness_cross_check::cross_check_liveness;
    let mut rejected = 0;
    for path in case_files() {
        let text = std::fs::read_to_string(&path).expect("readable case");
        let program = ssaref::frontend::parser::parse_program(&text).expect("case parses");
        for f in &construct_program(&program, &BraunOptions::all_on()).functions {
            let sets = compute_liveness(f);
            let check = LivenessCheck::new(f);
            assert_eq!(cross_check_liveness(f, &sets, &check), Ok(()), "{}", path.display());
            let Some((b, v)) = f.blocks.keys().find_map(|b| sets.live_in[b].iter().next().map(|v| (b, v))) else {
                continue;
            };
            let mut wrong = sets.clone();
            wrong.live_in[b].remove(v);
            let err = cross_check_liveness(f, &wrong, &check).expect_err("a missing live-in value").to_string();
            assert!(err.contains(&format!("{v} is not live-in at {b} by the sets")), "{err}");
            let mut wrong = sets.clone();
            let dead = (0..f.value_count as usize)
                .map(Value::new)
                .find(|&v| !check.live_out(v, b) && !sets.live_out[b].contains(v));
            if let Some(d) = dead {
                wrong.live_out[b].insert(d);
                let err = cross_check_liveness(f, &wrong, &check).expect_err("an extra live-out value").to_string();
                assert!(err.contains(&format!("{d} is live-out of {b} by the sets")), "{err}");
            }
            rejected += 1;
        }
    }
    assert!(rejected >= 20, "only {rejected} functions had a live-in value");
}
