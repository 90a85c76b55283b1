//! out-of-ssa up to the destructed program: `out_of_ssa::translate_out_of_ssa`
//! (Boissinot et al., CGO 2009) with every coalescing variant and both
//! liveness methods. `proofs-notes/out-of-ssa.md` argues what is checked:
//!
//! - the destructed program runs to the source's outcome, for every variant
//!   × liveness method, on every `tests/cases/*.src` (against its
//!   `// expect:` block) and on generated programs (quickcheck,
//!   `QUICKCHECK_TESTS`, default 150): `corpus_every_variant_*`,
//!   `generated_every_variant_*`;
//! - the checkers between the steps pass (CSSA after Method I, no
//!   interference inside a class, conventional form at the end): the same
//!   tests, which translate with `check` on;
//! - the linear class test answers every query of coalescing like the
//!   quadratic one: `linear_class_test_agrees_on_every_coalescing_query`;
//! - the paper's figures: `swap_problem_*` (Fig. 3), `lost_copy_problem_*`
//!   (Fig. 4), `branch_use_*` (Fig. 1);
//! - copy counts move the way §III-E says on the paper's examples;
//! - copy sharing never removes two copies each because of the other:
//!   `copy_sharing_removes_one_of_two_copies_of_one_value_not_both`.

use crate::common::passes::{translate_module, translate_out_of_ssa};
use crate::common::{case_files, parse_case, parse_one, BOISSINOT_FIG3_SWAP, BOISSINOT_FIG4_LOST_COPY};
use quickcheck::{QuickCheck, TestResult};
use ssaref::analysis::verifier::verify_conventional;
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::generate::source::TestCase;
use ssaref::ir::{Function, Module, Op};
use ssaref::out_of_ssa::coalescing::{ClassTest, CoalescingVariant};
use ssaref::out_of_ssa::translate::{LivenessMethod, OutOfSsaOptions, OutOfSsaReport};
use ssaref::outcome::{End, Outcome};
use ssaref::ssa_text::{parse_module, print_function, print_module};

const FUEL: u64 = 1_000_000;

fn all_options() -> Vec<OutOfSsaOptions> {
    let mut v = Vec::new();
    for variant in CoalescingVariant::ALL {
        for liveness in LivenessMethod::ALL {
            v.push(OutOfSsaOptions { liveness, ..OutOfSsaOptions::fast(variant) });
        }
    }
    v
}

fn run_module(m: &Module, args: &[i64]) -> Result<Outcome, String> {
    ssaref_interp::run_ssa(m, args, ssaref::differential::later_stage_fuel(FUEL)).map_err(|e| e.to_string())
}

/// Translates `module` with `opts` and compares the outcome with `expected`.
fn check_translation(
    module: &Module,
    args: &[i64],
    expected: &Outcome,
    opts: &OutOfSsaOptions,
) -> Result<OutOfSsaReport, String> {
    let (out, report) = translate_module(module, opts).map_err(|e| e.to_string())?;
    if report.linear_mismatches != 0 {
        return Err(format!("{} linear class queries disagree with the quadratic test", report.linear_mismatches));
    }
    let got = run_module(&out, args)?;
    if &got != expected {
        return Err(format!(
            "outcome {} but the source gives {}\n{}",
            got.render(),
            expected.render(),
            print_module(&out)
        ));
    }
    Ok(report)
}

#[test]
fn corpus_every_variant_and_liveness_method_keeps_the_outcome() {
    let mut failures = Vec::new();
    let mut conclusive = 0;
    // Per variant and liveness method: the translations that coalesced
    // some class of two or more variables.
    let mut coalesced: std::collections::BTreeMap<String, usize> = Default::default();
    for path in case_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).expect("readable case");
        let case = parse_case(&text).expect("case header parses");
        let program = ssaref::frontend::parser::parse_program(&text).expect("case parses");
        let expected = ssaref_interp::run_ast(&program, &case.args, FUEL).expect("source runs");
        assert_eq!(expected.render_full(), case.expect, "{name}: the source's outcome is the expected one");
        if expected.end == End::OutOfFuel {
            continue;
        }
        conclusive += 1;
        for (label, braun) in [("all_on", BraunOptions::all_on()), ("plain", BraunOptions::plain())] {
            let module = construct_program(&program, &braun);
            for opts in all_options() {
                let key = format!("{} {}", opts.variant.name(), opts.liveness.name());
                match check_translation(&module, &case.args, &expected, &opts) {
                    Ok(report) => *coalesced.entry(key).or_default() += usize::from(report.classes > 0),
                    Err(e) => failures.push(format!("{name} [{label}, {key}]: {e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    assert!(conclusive >= 36, "only {conclusive} corpus cases end within the fuel");
    // Every variant with every liveness method had work to do: it formed
    // classes on a good part of the corpus (not an empty loop).
    assert_eq!(coalesced.len(), all_options().len(), "{coalesced:?}");
    for (key, n) in &coalesced {
        assert!(*n >= conclusive, "{key} coalesced on only {n} of {} translations: {coalesced:?}", 2 * conclusive);
    }
}

fn tests() -> u64 {
    std::env::var("QUICKCHECK_TESTS").ok().and_then(|v| v.parse().ok()).unwrap_or(150)
}

fn every_variant_agrees(tc: TestCase) -> TestResult {
    let Ok(expected) = ssaref_interp::run_ast(&tc.program, &tc.args, FUEL) else { return TestResult::discard() };
    if expected.end == End::OutOfFuel {
        return TestResult::discard();
    }
    let module = construct_program(&tc.program, &BraunOptions::all_on());
    for opts in all_options() {
        if let Err(e) = check_translation(&module, &tc.args, &expected, &opts) {
            return TestResult::error(format!(
                "{} {}: {e}\n{}",
                opts.variant.name(),
                opts.liveness.name(),
                tc.to_source()
            ));
        }
    }
    TestResult::passed()
}

#[test]
fn generated_every_variant_and_liveness_method_keeps_the_outcome() {
    QuickCheck::new()
        .tests(tests())
        .max_tests(tests() * 4)
        .quickcheck(every_variant_agrees as fn(TestCase) -> TestResult);
}

/// Runs both the linear and the quadratic class test on every query that
/// coalescing makes on the corpus and on generated programs (the
/// `cross_check` option), for the variants that use the linear test, and
/// also compares the results of the Linear, Quadratic, Graph (edge set)
/// and BitMatrix configurations, which must coalesce identically.
#[test]
fn linear_class_test_agrees_on_every_coalescing_query() {
    let mut modules = Vec::new();
    for path in case_files() {
        let text = std::fs::read_to_string(&path).expect("readable case");
        let program = ssaref::frontend::parser::parse_program(&text).expect("case parses");
        modules.push(construct_program(&program, &BraunOptions::all_on()));
    }
    for seed in 0..60u64 {
        let tc = TestCase::from_seed(seed, &ssaref::generate::source::GenConfig::default());
        modules.push(construct_program(&tc.program, &BraunOptions::all_on()));
    }
    let mut queries = 0;
    for m in &modules {
        for variant in [
            CoalescingVariant::Intersect,
            CoalescingVariant::Value,
            CoalescingVariant::ValueIs,
            CoalescingVariant::Sharing,
        ] {
            for liveness in LivenessMethod::ALL {
                let opts = OutOfSsaOptions { liveness, cross_check: true, ..OutOfSsaOptions::fast(variant) };
                let (linear, report) = translate_module(m, &opts).expect("translates");
                assert_eq!(report.linear_mismatches, 0, "{}:\n{}", variant.name(), print_module(m));
                queries += report.class_queries;
                for class_test in [ClassTest::Quadratic, ClassTest::Graph, ClassTest::BitMatrix] {
                    let opts = OutOfSsaOptions { class_test, liveness: LivenessMethod::Sets, ..opts };
                    let (other, _) = translate_module(m, &opts).expect("translates");
                    assert_eq!(linear, other, "{} with {class_test:?}:\n{}", variant.name(), print_module(m));
                }
            }
        }
    }
    assert!(queries > 1000, "{queries} queries");
}

// ---------------------------------------------------------------------------
// The paper's examples.
// ---------------------------------------------------------------------------

fn run_f(f: &Function, args: &[i64]) -> Outcome {
    let m = Module { functions: vec![f.clone()] };
    ssaref_interp::run_ssa(&m, args, FUEL).unwrap_or_else(|e| panic!("runs: {e}\n{}", print_function(f)))
}

fn copies(f: &Function) -> usize {
    f.blocks.values().flat_map(|d| &d.insts).filter(|i| matches!(i.op, Op::Copy(_))).count()
}

/// Translates `f` with every variant and liveness method; checks the
/// outcome on each argument list; returns the static copy count per
/// variant (the same for both liveness methods).
fn translate_everywhere(f: &Function, args: &[&[i64]]) -> Vec<(CoalescingVariant, usize)> {
    let expected: Vec<Outcome> = args.iter().map(|a| run_f(f, a)).collect();
    let mut counts = Vec::new();
    for opts in all_options() {
        let (g, report) = translate_out_of_ssa(f, &opts).unwrap_or_else(|e| panic!("{}: {e}", opts.variant.name()));
        verify_conventional(&g).expect("conventional form");
        assert!(g.blocks.values().all(|d| d.phis.is_empty()));
        assert_eq!(report.remaining_copies, copies(&g));
        for (a, e) in args.iter().zip(&expected) {
            assert_eq!(&run_f(&g, a), e, "{} {}:\n{}", opts.variant.name(), opts.liveness.name(), print_function(&g));
        }
        if let Some(&(_, n)) = counts.iter().find(|(v, _)| *v == opts.variant) {
            assert_eq!(n, copies(&g), "both liveness methods coalesce alike");
        } else {
            counts.push((opts.variant, copies(&g)));
        }
    }
    counts
}

#[test]
fn swap_problem_ends_with_one_swap_through_a_fresh_variable() {
    let f = parse_one(BOISSINOT_FIG3_SWAP);
    let counts = translate_everywhere(&f, &[&[0], &[1], &[2], &[5]]);
    for (variant, n) in &counts {
        // The loop counter needs one copy (v7 and v6 interfere? no: v6 dies
        // at the add) and the swap needs three copies through the spare.
        assert!(*n >= 3, "{}: a swap needs three copies, got {n}", variant.name());
    }
    let (g, report) = translate_out_of_ssa(&f, &OutOfSsaOptions::default()).expect("translates");
    assert_eq!(report.cycle_copies, 1, "one cycle broken through the fresh variable:\n{}", print_function(&g));
}

#[test]
fn lost_copy_problem_keeps_exactly_one_copy() {
    let f = parse_one(BOISSINOT_FIG4_LOST_COPY);
    let counts = translate_everywhere(&f, &[&[0], &[1], &[3], &[10]]);
    for (variant, n) in counts {
        // x2 (v2) and x3 (v3) interfere, so one copy stays (Fig. 4(d)).
        assert_eq!(n, 1, "{}", variant.name());
    }
}

/// Fig. 1: a branch reads `u`, and the copy for the phi in the successor
/// must go before the branch.
const BRANCH_USE: &str = "
fn main(v0) {
b0:
    v1 = const 3
    br v0, b1, b2
b1(b0):
    v2 = add v0, v1
    jump b3
b2(b0):
    v3 = sub v0, v1
    v4 = lt v3, v1
    br v3, b3, b4
b3(b1, b2):
    v5 = phi v2, v4
    ret v5
b4(b2):
    ret v3
}
";

#[test]
fn branch_use_copy_goes_before_the_branch() {
    use ssaref::ir::{Block, Terminator};
    let f = parse_one(BRANCH_USE);
    translate_everywhere(&f, &[&[0], &[1], &[3], &[4], &[-7]]);
    for opts in all_options() {
        let (g, _) = translate_out_of_ssa(&f, &opts).expect("translates");
        let name = format!("{} {}:\n{}", opts.variant.name(), opts.liveness.name(), print_function(&g));
        // The variable the phi became: what b3 returns, through the copies
        // b3 itself makes.
        let Terminator::Return(mut x) = g.blocks[Block(3)].term else { panic!("b3 returns: {name}") };
        for inst in g.blocks[Block(3)].insts.iter().rev() {
            if let (Some(d), Op::Copy(src)) = (inst.dest, &inst.op) {
                if d == x {
                    x = *src;
                }
            }
        }
        let Terminator::Branch { cond, .. } = g.blocks[Block(2)].term else { panic!("b2 branches: {name}") };
        // The value for the phi is written in b2, before its branch (no
        // other place runs on the edge b2 -> b3 only), and the branch does
        // not read the variable that write changed (Fig. 1(c)).
        assert!(g.blocks[Block(2)].insts.iter().any(|i| i.dest == Some(x)), "{x} is not written in b2: {name}");
        assert_ne!(cond, x, "the branch reads the phi's variable: {name}");
    }
}

/// §III-A's example: `b = a; c = a` with all three live after; the value
/// variants coalesce everything, Intersect keeps both copies.
const TWO_COPIES: &str = "
fn main(v0) {
b0:
    v1 = add v0, v0
    v2 = copy v1
    v3 = copy v1
    v4 = add v2, v3
    v5 = add v4, v1
    ret v5
}
";

#[test]
fn value_based_interference_removes_copies_of_one_value() {
    let f = parse_one(TWO_COPIES);
    let counts = translate_everywhere(&f, &[&[4]]);
    let of = |v: CoalescingVariant| counts.iter().find(|(x, _)| *x == v).unwrap().1;
    assert_eq!(of(CoalescingVariant::Intersect), 2);
    assert_eq!(of(CoalescingVariant::Value), 0);
    assert_eq!(of(CoalescingVariant::Sharing), 0);
    assert!(of(CoalescingVariant::Chaitin) <= 1);
}

/// Seeded programs of the default and `patterns` shapes, with both SSA
/// constructions (copies propagated or kept), through every variant and
/// liveness method.
/// Copy sharing (§III-E) removes a copy `a -> b` when a variable `c` of
/// `b`'s class with `a`'s value is live just after it. In both cases below
/// one parallel copy holds two copies of one value into one class (after
/// Value + IS merged two phis' classes), and each destination is such a `c`
/// for the other copy: removing both left the class without the value
/// (`out_of_ssa_sharing_miscompile.ssa` printed 8 instead of 7;
/// `out_of_ssa_sharing_double_edge.ssa` used a variable not defined on every
/// path). Exactly one goes now; the program runs like the SSA on several
/// arguments, with both liveness methods. `proofs-notes/out-of-ssa.md`,
/// "Copy sharing", argues why a variable whose own copy was removed may not
/// be the `c` of another removal.
#[test]
fn copy_sharing_removes_one_of_two_copies_of_one_value_not_both() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    for name in ["out_of_ssa_sharing_miscompile.ssa", "out_of_ssa_sharing_double_edge.ssa"] {
        let text = std::fs::read_to_string(dir.join(name)).expect("readable");
        let case = ssaref::frontend::ssa_case_file::SsaCaseFile::parse(&text).expect("valid SSA");
        for liveness in LivenessMethod::ALL {
            let opts = OutOfSsaOptions { liveness, ..OutOfSsaOptions::fast(CoalescingVariant::Sharing) };
            let (out, report) = translate_module(&case.module, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(report.shared_copies, 1, "{name}, {}: one of the two copies is shared", liveness.name());
            let nparams = case.module.functions[0].params.len();
            for mut args in [case.args(), vec![8, 3], vec![0, 0], vec![1, -1], vec![-18, 16], vec![5, 0]] {
                args.truncate(nparams);
                let want = ssaref_interp::run_ssa(&case.module, &args, FUEL).expect("runs");
                assert_eq!(run_module(&out, &args).unwrap(), want, "{name}, {}, args {args:?}", liveness.name());
            }
        }
    }
}

#[test]
fn seeded_programs_every_variant_and_liveness_method_keep_the_outcome() {
    let mut failures = Vec::new();
    let mut translated = 0;
    for seed in 0..160u64 {
        let Some((tc, module, expected)) = crate::common::seeded_ssa(seed, FUEL) else { continue };
        for opts in all_options() {
            translated += 1;
            if let Err(e) = check_translation(&module, &tc.args, &expected, &opts) {
                failures.push(format!(
                    "seed {seed}, {} {}: {e}\n{}",
                    opts.variant.name(),
                    opts.liveness.name(),
                    tc.to_source()
                ));
            }
        }
        if failures.len() >= 3 {
            break;
        }
    }
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n\n"));
    assert!(translated > 100 * 14);
}

/// Input that is not strict SSA is an error, with or without the checks.
#[test]
fn bad_input_is_an_error_not_a_panic() {
    let m = parse_module(
        "
fn main(v0) {
b0:
    br v0, b1, b2
b1(b0):
    v1 = const 2
    jump b2
b2(b0, b1):
    ret v1
}
",
    )
    .expect("parses");
    for check in [true, false] {
        for opts in [OutOfSsaOptions::default(), OutOfSsaOptions::sreedhar_iii_graph()] {
            let opts = OutOfSsaOptions { check, ..opts };
            assert!(translate_module(&m, &opts).is_err());
        }
    }
}

/// `OutOfSsaReport::add` sums every field: checked field by field on two
/// reports whose fields all differ, and on a module of two functions, whose
/// report must be the sum of the functions' reports.
#[test]
fn module_report_is_the_sum_of_the_function_reports() {
    use ssaref::out_of_ssa::translate::OutOfSsaReport;
    let report = |base: usize| OutOfSsaReport {
        split_edges: base + 1,
        original_copies: base + 2,
        inserted_copies: base + 3,
        remaining_copies: base + 4,
        cycle_copies: base + 5,
        shared_copies: base + 6,
        weighted_copies: base as u64 + 7,
        classes: base + 8,
        class_queries: base + 9,
        linear_mismatches: base + 10,
        graph_edges: base + 11,
        pinned_divisions: base + 12,
        pinned_call_variables: base + 13,
    };
    let mut sum = report(0);
    sum.add(&report(100));
    let mut want = report(100);
    want.split_edges += 1;
    want.original_copies += 2;
    want.inserted_copies += 3;
    want.remaining_copies += 4;
    want.cycle_copies += 5;
    want.shared_copies += 6;
    want.weighted_copies += 7;
    want.classes += 8;
    want.class_queries += 9;
    want.linear_mismatches += 10;
    want.graph_edges += 11;
    want.pinned_divisions += 12;
    want.pinned_call_variables += 13;
    assert_eq!(sum, want);
    let m = Module { functions: vec![parse_one(BOISSINOT_FIG3_SWAP), parse_one(BOISSINOT_FIG4_LOST_COPY)] };
    for opts in all_options() {
        let (_, total) = translate_module(&m, &opts).expect("translates");
        let mut by_hand = OutOfSsaReport::default();
        for f in &m.functions {
            by_hand.add(&translate_out_of_ssa(f, &opts).expect("translates").1);
        }
        assert_eq!(total, by_hand, "{opts:?}");
        assert!(total.inserted_copies + total.remaining_copies > 0, "{opts:?}: the reports are not empty");
    }
}

/// The independent-set search of the phi-based variants (Value+IS,
/// Sreedhar III): repeatedly the alive candidate with the fewest conflicts
/// among the *alive* candidates, ties broken by the heavier weight, then the
/// lower index. On the path 0 - 1 - 2 - 3 with candidate 2 the heaviest,
/// the end points (one conflict each) go before 2 (two): 0 is taken first
/// (lower index than 3), which drops 1; then 2 and 3 both conflict with one
/// alive candidate, and 2 is heavier. Counting conflicts with dropped
/// candidates, or every alive candidate, would pick 2 first or 3 second.
#[test]
fn the_independent_set_search_counts_conflicts_among_the_alive_candidates() {
    use ssaref::out_of_ssa::coalescing::greedy_independent_set;
    let edges = [(0, 1), (1, 2), (2, 3)];
    let mut conflict = vec![vec![false; 4]; 4];
    for (a, b) in edges {
        conflict[a][b] = true;
        conflict[b][a] = true;
    }
    assert_eq!(greedy_independent_set(vec![true; 4], &[1, 1, 5, 1], &conflict), vec![0, 2]);
    // A candidate not alive from the start is never chosen and its conflicts
    // do not count: without 0, 1 has one alive neighbour (2) like 3 does.
    assert_eq!(greedy_independent_set(vec![false, true, true, true], &[1, 3, 1, 2], &conflict), vec![1, 3]);
    // No conflicts: everything, heaviest first.
    let none = vec![vec![false; 3]; 3];
    assert_eq!(greedy_independent_set(vec![true; 3], &[1, 7, 4], &none), vec![1, 2, 0]);
}

/// The search as the module documentation states it, counting every
/// degree again at each choice: what the incremental degrees must equal.
fn independent_set_by_recount(mut alive: Vec<bool>, weights: &[u64], conflict: &[Vec<bool>]) -> Vec<usize> {
    let n = alive.len();
    let mut chosen = Vec::new();
    loop {
        let degree = |i: usize| (0..n).filter(|&j| alive[j] && conflict[i][j]).count();
        let best = (0..n).filter(|&i| alive[i]).min_by_key(|&i| (degree(i), std::cmp::Reverse(weights[i]), i));
        let Some(i) = best else { break };
        alive[i] = false;
        for j in 0..n {
            if conflict[i][j] {
                alive[j] = false;
            }
        }
        chosen.push(i);
    }
    chosen
}

/// The independent-set search with degrees kept up to date chooses what
/// recounting them at each choice chooses, on random conflict graphs
/// (symmetric, dense and sparse, some candidates dead from the start).
#[test]
fn the_independent_set_search_with_kept_degrees_agrees_with_recounting() {
    use ssaref::out_of_ssa::coalescing::greedy_independent_set;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..300 {
        let n = (next() % 24) as usize;
        let density = next() % 100;
        let mut edges = Vec::new();
        for i in 0..n {
            edges.extend((i + 1..n).filter(|_| next() % 100 < density).map(|j| (i, j)));
        }
        let mut conflict = vec![vec![false; n]; n];
        for (i, j) in edges {
            conflict[i][j] = true;
            conflict[j][i] = true;
        }
        let alive: Vec<bool> = (0..n).map(|_| next() % 8 != 0).collect();
        let weights: Vec<u64> = (0..n).map(|_| next() % 4).collect();
        assert_eq!(
            greedy_independent_set(alive.clone(), &weights, &conflict),
            independent_set_by_recount(alive, &weights, &conflict),
            "round {round}"
        );
    }
}
