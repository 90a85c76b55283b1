//! Out-of-SSA groundwork of Boissinot et al. (CGO 2009), out-of-ssa: copy
//! insertion by Method I with parallel copies (`copy_insertion.rs`), values
//! and value-based interference (`values.rs`), and the linear interference
//! test between congruence classes (`class_interference_linear.rs`). The claims
//! checked here are argued in `proofs-notes/out-of-ssa.md`:
//!
//! - Lemma 1 (Method I yields CSSA and keeps the semantics):
//!   `corpus_copy_insertion_keeps_semantics_and_yields_cssa`,
//!   `generated_copy_insertion_keeps_semantics_and_yields_cssa`, and the
//!   paper's examples (`swap_problem_*`, `lost_copy_problem_*`,
//!   `branch_use_*`);
//! - the dominance-based intersection test agrees with the liveness test of
//!   `liveness.rs` and values are preserved by copies: the same two corpus
//!   tests;
//! - the linear class test (Algorithm 2, two lists, equal intersecting
//!   ancestors) agrees with the quadratic one in both modes: the same two
//!   corpus tests; in value mode, the walk near the smaller class
//!   (`class_interference_local.rs`) gives the full walk's answer and
//!   merged `equal_anc_in` on every pair compared.

use crate::common::{case_files, parse_one, BOISSINOT_FIG3_SWAP};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use ssaref::analysis::critical_edges::split_critical_edges;
use ssaref::analysis::cssa::{check_cssa, phi_congruence_classes};
use ssaref::analysis::dominance::DomTree;
use ssaref::analysis::liveness::{compute_liveness, Interference};
use ssaref::analysis::verifier::verify_function;
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::ir::{Block, Function, Inst, Module, Op, Terminator, Value};
use ssaref::out_of_ssa::class_interference_linear::{
    class_has_intersection, classes_interfere_linear, classes_interfere_linear_with, classes_interfere_quadratic,
    equal_intersecting_ancestors, sorted_class, AncestorMap, InterferenceMode,
};
use ssaref::out_of_ssa::class_interference_local::merged_equal_ancestors_local;
use ssaref::out_of_ssa::copy_insertion::{insert_copies, InsertedCopy, ParallelCopyPlace};
use ssaref::out_of_ssa::values::{intersect, value_interfere, ValueInterference};
use ssaref::outcome::{End, Outcome};
use ssaref::ssa_text::print_function;
use std::time::Instant;

const FUEL: u64 = 1_000_000;

fn run(f: &Function, args: &[i64]) -> Outcome {
    let m = Module { functions: vec![f.clone()] };
    ssaref_interp::run_ssa(&m, args, FUEL).unwrap_or_else(|e| panic!("runs: {e}\n{}", print_function(f)))
}

/// What the corpus tests count.
#[derive(Default, Debug)]
struct Counts {
    modules: usize,
    functions: usize,
    copies: usize,
    intersect_pairs: usize,
    phi_class_pairs: usize,
    merged_pairs: usize,
    copy_pairs: usize,
    interfering: usize,
    /// Value-mode queries on classes that intersect but do not interfere.
    same_value_only: usize,
    /// Value-mode queries also answered by the walk near the smaller class.
    local_walks: usize,
}

/// Checks one function after copy insertion: verifies, is CSSA, every copy
/// is where it should be, `intersect` agrees with `liveness.rs`, values
/// follow copies, and the linear class test agrees with the quadratic one.
fn check_function(f: &Function, copies: &[InsertedCopy], seed: u64, counts: &mut Counts) -> Result<(), String> {
    verify_function(f).map_err(|e| format!("does not verify: {e}"))?;
    check_cssa(f).map_err(|e| e.to_string())?;
    for c in copies {
        let (b, at_end) = match c.place {
            ParallelCopyPlace::End(b) => (b, true),
            ParallelCopyPlace::AfterPhis(b) => (b, false),
        };
        let insts = &f.blocks[b].insts;
        let pos =
            insts.iter().position(|i| i.dest == Some(c.dest)).ok_or_else(|| format!("copy {} not in {b}", c.dest))?;
        if insts[pos].op != Op::Copy(c.source) {
            return Err(format!("copy {} does not read {}", c.dest, c.source));
        }
        // The copies of a parallel copy are contiguous at the end, or at the
        // start, of their block.
        let same = |i: &Inst| copies.iter().any(|d| d.place == c.place && Some(d.dest) == i.dest);
        let ok = if at_end { insts[pos..].iter().all(same) } else { insts[..=pos].iter().all(same) };
        if !ok {
            return Err(format!("copy {} is not with its parallel copy", c.dest));
        }
    }
    // Sequential emission equals parallel execution: within one parallel
    // copy no destination is read by another copy.
    for c in copies {
        if copies.iter().any(|d| d.place == c.place && d.source == c.dest) {
            return Err(format!("copy {} overwrites a source of its parallel copy", c.dest));
        }
    }
    counts.functions += 1;
    counts.copies += copies.len();
    let dom = DomTree::compute(f);
    let live = compute_liveness(f);
    let ctx = ValueInterference::new(f, &dom, &live);
    let plain = Interference::new(f, &live);
    let defined: Vec<Value> = (0..f.value_count).map(Value).filter(|&v| ctx.def_order(v).is_some()).collect();
    if defined.len() <= 400 {
        for (i, &a) in defined.iter().enumerate() {
            for &b in &defined[i + 1..] {
                counts.intersect_pairs += 1;
                if intersect(&ctx, a, b) != plain.interfere(a, b) {
                    return Err(format!("intersect({a}, {b}) disagrees with liveness.rs"));
                }
            }
        }
    }
    for c in copies {
        if ctx.def_order(c.dest).is_some() && ctx.value_of(c.dest) != ctx.value_of(c.source) {
            return Err(format!("copy {} = {} changed the value", c.dest, c.source));
        }
    }
    // Every pair of phi-congruence classes (with at least two members).
    let classes = phi_congruence_classes(f);
    let phi_classes: Vec<Vec<Value>> =
        classes.nontrivial().map(|c| sorted_class(&ctx, classes.members(c))).filter(|c| !c.is_empty()).collect();
    for class in &phi_classes {
        if class_has_intersection(class, &ctx) {
            return Err(format!("Algorithm 2 finds an intersection in CSSA class {class:?}"));
        }
    }
    for mode in InterferenceMode::ALL {
        for (i, a) in phi_classes.iter().enumerate() {
            for b in &phi_classes[i + 1..] {
                counts.phi_class_pairs += 1;
                compare(a, b, &ctx, mode, counts)?;
            }
        }
    }
    // Merges, starting from the phi-congruence classes and the singletons:
    // two classes are merged when they do not interfere, so every class
    // stays interference-free in its mode.
    let mut rng = SmallRng::seed_from_u64(seed);
    for mode in InterferenceMode::ALL {
        let mut pool: Vec<Vec<Value>> = (0..classes.class_count())
            .map(|c| sorted_class(&ctx, classes.members(ssaref::analysis::cssa::ClassId(c as u32))))
            .filter(|c| !c.is_empty())
            .collect();
        // First the merges a coalescer tries: the two sides of every copy.
        for data in f.blocks.values() {
            for inst in &data.insts {
                let (Some(d), Op::Copy(s)) = (inst.dest, &inst.op) else { continue };
                let find = |v: Value| pool.iter().position(|c| c.contains(&v));
                let (Some(i), Some(j)) = (find(d), find(*s)) else { continue };
                if i != j {
                    counts.copy_pairs += 1;
                    try_merge(&mut pool, i, j, &ctx, mode, counts)?;
                }
            }
        }
        // Then random pairs.
        for _ in 0..(4 * pool.len()).min(400) {
            if pool.len() < 2 {
                break;
            }
            let i = rng.gen_range(0..pool.len());
            let mut j = rng.gen_range(0..pool.len() - 1);
            if j >= i {
                j += 1;
            }
            counts.merged_pairs += 1;
            try_merge(&mut pool, i, j, &ctx, mode, counts)?;
        }
    }
    Ok(())
}

/// Merges classes `i` and `j` of `pool` when they do not interfere (after
/// comparing the two tests).
fn try_merge(
    pool: &mut Vec<Vec<Value>>,
    i: usize,
    j: usize,
    ctx: &ValueInterference<'_>,
    mode: InterferenceMode,
    counts: &mut Counts,
) -> Result<(), String> {
    if !compare(&pool[i], &pool[j], ctx, mode, counts)? {
        if mode == InterferenceMode::Value
            && classes_interfere_quadratic(&pool[i], &pool[j], ctx, InterferenceMode::Intersection)
        {
            counts.same_value_only += 1;
        }
        let other = pool.swap_remove(i.max(j));
        let keep = &mut pool[i.min(j)];
        keep.extend(other);
        *keep = sorted_class(ctx, keep);
    }
    Ok(())
}

/// Compares the linear and the quadratic class tests; returns the verdict.
fn compare(
    a: &[Value],
    b: &[Value],
    ctx: &ValueInterference<'_>,
    mode: InterferenceMode,
    counts: &mut Counts,
) -> Result<bool, String> {
    let quadratic = classes_interfere_quadratic(a, b, ctx, mode);
    let linear = classes_interfere_linear(a, b, ctx, mode);
    if quadratic != linear {
        return Err(format!("{mode:?}: linear says {linear}, quadratic says {quadratic} for {a:?} and {b:?}"));
    }
    if mode == InterferenceMode::Value {
        let (mut a_in, mut b_in) = (AncestorMap::default(), AncestorMap::default());
        equal_intersecting_ancestors(a, ctx, &mut a_in);
        equal_intersecting_ancestors(b, ctx, &mut b_in);
        let full = classes_interfere_linear_with(a, b, ctx, mode, &a_in, &b_in);
        if merged_equal_ancestors_local(a, b, ctx) != full {
            return Err(format!("the local walk differs from the full walk for {a:?} and {b:?}"));
        }
        counts.local_walks += 1;
    }
    counts.interfering += usize::from(quadratic);
    Ok(quadratic)
}

/// Splits critical edges and inserts copies in every function of `module`,
/// checks each function, and compares the outcome with the source's.
fn check_module(
    program: &ssaref::ast::Program,
    args: &[i64],
    module: &Module,
    seed: u64,
    counts: &mut Counts,
) -> Result<(), String> {
    let mut out = module.clone();
    for f in &mut out.functions {
        split_critical_edges(f);
        let copies = insert_copies(f);
        check_function(f, &copies, seed, counts)
            .map_err(|e| format!("function {}: {e}\n{}", f.name, print_function(f)))?;
    }
    counts.modules += 1;
    let expected = ssaref_interp::run_ast(program, args, FUEL).map_err(|e| e.to_string())?;
    if expected.end == End::OutOfFuel {
        return Ok(());
    }
    let later = ssaref::differential::later_stage_fuel(FUEL);
    let got = ssaref_interp::run_ssa(&out, args, later).map_err(|e| e.to_string())?;
    if got != expected {
        return Err(format!("outcome {} but the source gives {}", got.render(), expected.render()));
    }
    Ok(())
}

#[test]
fn corpus_copy_insertion_keeps_semantics_and_yields_cssa() {
    let start = Instant::now();
    let mut failures = Vec::new();
    let mut counts = Counts::default();
    for (k, path) in case_files().into_iter().enumerate() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).expect("readable case");
        let case = crate::common::parse_case(&text).expect("case header parses");
        let program = ssaref::frontend::parser::parse_program(&text).expect("case parses");
        for (variant, opts) in [("all_on", BraunOptions::all_on()), ("plain", BraunOptions::plain())] {
            let module = construct_program(&program, &opts);
            if let Err(e) = check_module(&program, &case.args, &module, k as u64, &mut counts) {
                failures.push(format!("{name} [{variant}]: {e}"));
            }
        }
    }
    eprintln!("corpus: {counts:?} in {:?}", start.elapsed());
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n\n"));
    assert!(counts.modules >= 2 * 36);
    assert!(counts.interfering > 0 && counts.merged_pairs > counts.interfering);
    assert!(counts.same_value_only > 0, "value-based interference is exercised");
    assert!(counts.local_walks > 0, "the local walk is compared");
}

#[test]
fn generated_copy_insertion_keeps_semantics_and_yields_cssa() {
    use ssaref::generate::source::{GenConfig, Shape, TestCase};
    let start = Instant::now();
    let mut failures = Vec::new();
    let mut counts = Counts::default();
    for seed in 0..200u64 {
        let (shape, config) =
            if seed % 2 == 0 { ("patterns", Shape::Patterns.config()) } else { ("default", GenConfig::default()) };
        let tc = TestCase::from_seed(seed, &config);
        let opts = if seed % 4 < 2 { BraunOptions::all_on() } else { BraunOptions::plain() };
        let module = construct_program(&tc.program, &opts);
        if let Err(e) = check_module(&tc.program, &tc.args, &module, seed, &mut counts) {
            failures.push(format!("seed {seed} ({shape}, {}): {e}\n{}", opts.describe(), tc.to_source()));
        }
        if failures.len() >= 3 {
            break;
        }
    }
    eprintln!("generated: {counts:?} in {:?}", start.elapsed());
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n\n"));
    assert!(counts.interfering > 0 && counts.merged_pairs > counts.interfering);
    assert!(counts.same_value_only > 0, "value-based interference is exercised");
    assert!(counts.local_walks > 0, "the local walk is compared");
}

// ---------------------------------------------------------------------------
// The paper's examples.
// ---------------------------------------------------------------------------

/// Naive phi replacement: every phi `a0 = φ(a1, ..., an)` becomes the
/// copies `a0 = copy ai` at the end of each predecessor, in phi order (an
/// IR that defines `a0` several times: it does not verify, but the oracle
/// runs it).
fn naive_phi_replacement(f: &Function) -> Function {
    let mut g = f.clone();
    for b in f.blocks.keys() {
        for phi in std::mem::take(&mut g.blocks[b].phis) {
            for (i, &p) in f.blocks[b].preds.iter().enumerate() {
                g.blocks[p].insts.push(Inst { dest: Some(phi.dest), op: Op::Copy(phi.args[i]) });
            }
        }
    }
    g
}

#[test]
fn swap_problem_is_solved_by_copy_insertion_and_not_by_naive_replacement() {
    let f = parse_one(BOISSINOT_FIG3_SWAP);
    assert!(check_cssa(&f).is_err(), "the swap problem is not CSSA");
    let naive = naive_phi_replacement(&f);
    let mut g = f.clone();
    let copies = insert_copies(&mut g);
    verify_function(&g).expect("verifies");
    check_cssa(&g).expect("Method I yields CSSA");
    assert_eq!(copies.len(), 3 * 2 + 3);
    for n in 0..4 {
        let expected = run(&f, &[n]);
        assert_eq!(run(&g, &[n]), expected, "n = {n}");
        if n > 0 {
            assert_ne!(run(&naive, &[n]), expected, "naive replacement loses the swap, n = {n}");
        }
    }
    // One iteration swaps 1 and 2: out 2, return 1.
    assert_eq!(run(&g, &[1]).trace, vec![2]);
}

/// The lost-copy problem (Fig. 4): the phi's destination is used after the
/// loop, and the loop's back edge `b1 → b1` is critical (it is not split
/// here: Method I does not need it).
const LOST_COPY: &str = "
fn main(v0) {
b0:
    v1 = const 1
    v9 = const 3
    jump b1
b1(b0, b1):
    v2 = phi v1, v3
    v3 = mul v2, v9
    v4 = lt v3, v0
    br v4, b1, b2
b2(b1):
    out v2
    ret v3
}
";

#[test]
fn lost_copy_problem_is_solved_by_copy_insertion_and_not_by_naive_replacement() {
    let f = parse_one(LOST_COPY);
    assert!(check_cssa(&f).is_err(), "the lost-copy problem is not CSSA");
    let naive = naive_phi_replacement(&f);
    for split in [false, true] {
        let mut g = f.clone();
        if split {
            split_critical_edges(&mut g);
        }
        insert_copies(&mut g);
        verify_function(&g).expect("verifies");
        check_cssa(&g).expect("Method I yields CSSA");
        for n in [0, 2, 50, 100] {
            assert_eq!(run(&g, &[n]), run(&f, &[n]), "n = {n}, split = {split}");
        }
    }
    // x runs 1, 3, 9, 27, 81: the source prints 27, the naive code prints
    // the last x, 81.
    assert_eq!(run(&f, &[50]).trace, vec![27]);
    assert_eq!(run(&naive, &[50]).trace, vec![81]);
}

/// Fig. 1: a branch reads `u` (v1), which flows into the phi of its
/// successor along another edge; the edge `b2 → b3` is critical.
const BRANCH_USE: &str = "
fn main(v0) {
b0:
    v1 = const 0
    br v0, b1, b2
b1(b0):
    jump b3
b2(b0):
    v2 = const 7
    br v1, b3, b4
b3(b1, b2):
    v3 = phi v1, v2
    out v3
    ret v3
b4(b2):
    ret v1
}
";

#[test]
fn branch_use_copy_goes_before_the_branch_and_yields_cssa() {
    let f = parse_one(BRANCH_USE);
    // Fig. 1(a) is not CSSA: u is live at the definition of v (the branch
    // reads it after), and both are arguments of the phi.
    let err = check_cssa(&f).expect_err("Fig. 1(a) is not CSSA");
    assert_eq!((err.a, err.b), (Value(1), Value(2)));
    // Fig. 1(b): Method III's single copy `v' = v` before the branch; u
    // and v' are in one class and u is live at v' (the branch reads it).
    let mut partial = f.clone();
    let v_prime = partial.new_value();
    partial.blocks[Block(2)].insts.push(Inst { dest: Some(v_prime), op: Op::Copy(Value(2)) });
    partial.blocks[Block(3)].phis[0].args[1] = v_prime;
    verify_function(&partial).expect("Fig. 1(b) verifies");
    let err = check_cssa(&partial).expect_err("Fig. 1(b) is not CSSA");
    assert_eq!((err.a, err.b), (Value(1), v_prime));
    // Fig. 1(c): giving w, u and v' one name (u) is wrong: the copy before
    // the branch changes the branch's operand.
    let mut renamed = f.clone();
    renamed.blocks[Block(3)].phis.clear();
    renamed.blocks[Block(2)].insts.push(Inst { dest: Some(Value(1)), op: Op::Copy(Value(2)) });
    renamed.blocks[Block(3)].insts[0].op = Op::Out(Value(1));
    renamed.blocks[Block(3)].term = Terminator::Return(Value(1));
    assert_ne!(run(&renamed, &[0]), run(&f, &[0]));
    // Method I: the copy of v is the last instruction of b2, before the
    // branch that reads u, and the result is CSSA.
    let mut g = f.clone();
    let copies = insert_copies(&mut g);
    verify_function(&g).expect("verifies");
    check_cssa(&g).expect("Method I yields CSSA");
    let in_b2: Vec<&InsertedCopy> = copies.iter().filter(|c| c.place == ParallelCopyPlace::End(Block(2))).collect();
    assert_eq!(in_b2.len(), 1);
    assert_eq!(g.blocks[Block(2)].insts.last().unwrap().dest, Some(in_b2[0].dest));
    assert_eq!(g.blocks[Block(2)].term.arg(), Some(Value(1)), "the branch still reads u");
    for n in [0, 1] {
        assert_eq!(run(&g, &[n]), run(&f, &[n]));
    }
}

#[test]
fn value_interference_lets_a_copy_share_a_class_with_its_source() {
    // v2 = copy v1 while v1 stays live: they intersect but have one value.
    let f = parse_one(
        "
fn main(v0) {
b0:
    v1 = add v0, v0
    v2 = copy v1
    v3 = add v1, v2
    v4 = add v3, v0
    ret v4
}
",
    );
    let dom = DomTree::compute(&f);
    let live = compute_liveness(&f);
    let ctx = ValueInterference::new(&f, &dom, &live);
    assert!(intersect(&ctx, Value(1), Value(2)));
    assert!(!value_interfere(&ctx, Value(1), Value(2)));
    assert!(value_interfere(&ctx, Value(0), Value(1)));
    let (a, b) = (vec![Value(1)], vec![Value(2)]);
    assert!(classes_interfere_linear(&a, &b, &ctx, InterferenceMode::Intersection));
    assert!(!classes_interfere_linear(&a, &b, &ctx, InterferenceMode::Value));
    let (a, b) = (vec![Value(0)], vec![Value(1), Value(2)]);
    assert!(!class_has_intersection(&a, &ctx) && class_has_intersection(&b, &ctx));
    assert!(classes_interfere_linear(&a, &b, &ctx, InterferenceMode::Value));
    assert!(classes_interfere_quadratic(&a, &b, &ctx, InterferenceMode::Value));
}

/// The three Sreedhar III baselines of §IV-D are what their names say:
/// Sreedhar III with liveness sets, checks on, and the bit matrix of the
/// phi- and copy-related variables (the paper's), the all-variables bit
/// matrix, or the edge set of the phi- and copy-related variables.
#[test]
fn the_sreedhar_iii_baselines_are_the_papers_and_the_two_others() {
    use ssaref::out_of_ssa::coalescing::{ClassTest, CoalescingVariant};
    use ssaref::out_of_ssa::translate::{LivenessMethod, OutOfSsaOptions};
    let related = OutOfSsaOptions::sreedhar_iii_bitmatrix_related();
    let matrix = OutOfSsaOptions::sreedhar_iii_bitmatrix();
    let graph = OutOfSsaOptions::sreedhar_iii_graph();
    for o in [related, matrix, graph] {
        assert_eq!((o.variant, o.liveness, o.check), (CoalescingVariant::SreedharIII, LivenessMethod::Sets, true));
    }
    assert_eq!(
        (related.class_test, matrix.class_test, graph.class_test),
        (ClassTest::BitMatrixRelated, ClassTest::BitMatrix, ClassTest::Graph)
    );
    assert_eq!(ClassTest::from_name("graph-bitmatrix-related"), Some(ClassTest::BitMatrixRelated));
}
