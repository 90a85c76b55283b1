//! Which stages a differential run executes (`differential::differential_full`):
//! the stage names in the verdict, per route and K, with the x86 and
//! Unicorn stages exactly when `DiffConfig::x86` is on. A driver that
//! silently skipped a stage would otherwise pass every other test.

use crate::common::InterpOracle;
use ssaref::backend::OutOfSsa;
use ssaref::differential::{differential_full, DiffConfig, Verdict};

const PROGRAM: &str =
    "fn main(n) { var s = 0; var i = 0; while (i < n) { s = s + i * i; i = i + 1; } out s; return s / 3; }";

fn stage_names(config: &DiffConfig) -> Vec<String> {
    let p = ssaref::frontend::parser::parse_program(PROGRAM).expect("parses");
    match differential_full(&p, &[5], &InterpOracle, config) {
        Verdict::Agree { stages, .. } => stages.into_iter().map(|s| s.stage).collect(),
        other => panic!("the program should agree everywhere: {other:?}"),
    }
}

fn config(regs: &[usize], x86: bool) -> DiffConfig {
    let mut c = DiffConfig::standard(regs, 100_000);
    c.variants.truncate(1);
    c.regalloc.truncate(1);
    c.out_of_ssa = vec![OutOfSsa::rotation(0)];
    c.x86 = x86;
    c
}

/// The stages, in order: the source, the constructions, then for each K
/// ssa-ra's SSA after each pass, its allocated MIR and its x86 code, then
/// out-of-ssa's destructed program once and, for each K, its allocated MIR and
/// x86 code.
fn expected(regs: &[usize], x86: bool) -> Vec<String> {
    let mut out: Vec<String> = vec!["source".into(), "cytron".into(), "ssa[phi+scc+witness]".into()];
    for k in regs {
        // The program divides: from K = 3 its divisions are split
        // (`ssa_ra/division_splits.rs`).
        let split = (*k >= 3).then_some("split-divisions");
        for pass in
            ["split-critical-edges", "phi-lifting", "phi-mem-coalesce"].into_iter().chain(split).chain(["spill"])
        {
            out.push(format!("ssa-ra[k={k},opt]/{pass}"));
        }
        out.push(format!("ssa-ra[k={k},opt]"));
        if x86 {
            out.push(format!("x86-ssa-ra[k={k},opt]"));
        }
    }
    out.push("out-of-ssa[intersect,sets]".into());
    for k in regs {
        out.push(format!("out-of-ssa[k={k},intersect,sets,spill-everything]"));
        if x86 {
            out.push(format!("x86-out-of-ssa[k={k},intersect,sets,spill-everything]"));
        }
    }
    out
}

#[test]
fn every_stage_runs_per_route_and_k_and_x86_only_when_asked() {
    for regs in [&[2usize, 5][..], &[3], &[15]] {
        for x86 in [true, false] {
            assert_eq!(stage_names(&config(regs, x86)), expected(regs, x86), "K in {regs:?}, x86 = {x86}");
        }
    }
}

#[test]
fn no_registers_means_construction_stages_only() {
    assert_eq!(stage_names(&config(&[], true)), ["source", "cytron", "ssa[phi+scc+witness]"]);
}

/// A back end that allocates for one register more than it is asked for
/// (K up to 14), and says nothing: only the pipeline's own allocation check
/// can notice.
struct OneRegisterTooMany;

impl ssaref::backend::Backend for OneRegisterTooMany {
    fn name(&self) -> String {
        "one-too-many".to_string()
    }

    fn allocate(
        &self,
        ssa: &ssaref::ir::Module,
        prepared: &ssaref::backend::Prepared,
        k: usize,
        flags: ssaref::pass_manager::flags::Flags,
        stages: &mut dyn ssaref::pass_manager::runner::Observer<ssaref::ir::Module>,
    ) -> Result<ssaref::mir::MModule, ssaref::error::PassError> {
        let ssa_ra = ssaref::backend::SsaRa(ssaref::ssa_ra::regalloc::RegallocOptions::with_k(k + 1));
        ssaref::backend::Backend::allocate(&ssa_ra, ssa, prepared, k + 1, flags, stages)
    }
}

/// `pipeline::compile` runs every pass: with each built-in back end, its
/// x86-64 code computes the source's outcome under Unicorn, and its machine
/// IR has K registers. A back end whose output breaks the pipeline's
/// allocation check fails there, though it reported no error.
#[test]
fn compile_runs_every_pass_and_its_code_computes_the_sources_outcome() {
    use ssaref::oracle::Oracle;
    let p = ssaref::frontend::parser::parse_program(PROGRAM).expect("parses");
    let expected = InterpOracle.run_source(&p, &[5], 100_000).expect("runs");
    let config =
        ssaref::pipeline::Config { flags: ssaref::pass_manager::flags::Flags::checked(), ..Default::default() };
    let mut backends = config_backends();
    backends.push(std::sync::Arc::new(ssaref::backend::Regalloc2));
    for k in [2, 3, 14] {
        for b in &backends {
            let compiled = ssaref::pipeline::compile(&p, b.as_ref(), k, &config)
                .unwrap_or_else(|e| panic!("{} at K = {k}: {e}", b.name()));
            assert!(compiled.mir.functions.iter().all(|f| f.k == k), "{} at K = {k}", b.name());
            assert_eq!(compiled.ssa.functions.len(), compiled.mir.functions.len());
            let got = ssaref::machine::emulator::run_x86(&compiled.x86, &[5], 1_000_000).expect("runs under Unicorn");
            assert_eq!(got, expected, "{} at K = {k}", b.name());
        }
        let e = ssaref::pipeline::compile(&p, &OneRegisterTooMany, k, &config).expect_err("K + 1 registers");
        assert_eq!((e.pass.as_str(), e.check), (format!("one-too-many[k={k}]").as_str(), "k"));
    }
}

/// ssa-ra and one out-of-ssa configuration, as [`config`] runs them.
fn config_backends() -> Vec<std::sync::Arc<dyn ssaref::backend::Backend>> {
    config(&[2], true).backend_list()
}

/// Above the sampling size (`pass_manager/sampling.rs`, here lowered for a
/// small program), an out-of-ssa configuration runs at the smallest K only
/// unless it is the first with its conventional allocator, and the run
/// says so in a `sampled` note; at or below the size nothing is skipped.
#[test]
fn above_the_sampling_size_out_of_ssa_configurations_after_the_first_run_at_the_smallest_k() {
    let all = OutOfSsa::all();
    let (first, second) = (all[0], all[1]);
    let other = *all.iter().find(|r| r.allocator != first.allocator).expect("two allocators");
    assert_eq!(first.allocator, second.allocator);
    let mut c = config(&[2, 3], false);
    c.out_of_ssa = vec![first, second, other];
    let conv = |r: &OutOfSsa, k: usize| ssaref::backend::Backend::stage_names(r, k).0;
    let full = stage_names(&c);
    for r in [first, second, other] {
        for k in [2, 3] {
            assert!(full.contains(&conv(&r, k)), "{} runs below the size", conv(&r, k));
        }
    }
    let sampled = ssaref::pass_manager::sampling::with_sample_above(10, || stage_names(&c));
    assert!(!sampled.contains(&conv(&second, 3)), "{} is skipped above the size", conv(&second, 3));
    for name in [conv(&first, 2), conv(&first, 3), conv(&second, 2), conv(&other, 2), conv(&other, 3)] {
        assert!(sampled.contains(&name), "{name} still runs above the size");
    }
    assert_eq!(full.len() - sampled.len(), 1, "only one allocation (its MIR stage) is skipped");
    let notes = ssaref::pass_manager::sampling::sampled_checks();
    assert!(notes.iter().any(|n| n.starts_with("out-of-ssa configurations: each runs at K = 2 only")), "{notes:?}");
}

/// Above the sampling size the configurations quadratic by the paper do
/// not run at all (the graph baselines, Chaitin and Sreedhar III); at or
/// below it every configuration runs at every K.
#[test]
fn above_the_sampling_size_the_quadratic_out_of_ssa_configurations_do_not_run() {
    use ssaref::out_of_ssa::coalescing::{ClassTest, CoalescingVariant};
    let mut c = DiffConfig::standard(&[2, 3], 100_000);
    c.out_of_ssa = OutOfSsa::all();
    let names = |s: &[(std::sync::Arc<dyn ssaref::backend::Backend>, usize)]| {
        s.iter().map(|(b, k)| b.stage_names(*k).0).collect::<Vec<_>>()
    };
    let (below, notes) = c.schedule_sampled(ssaref::pass_manager::sampling::SAMPLE_ABOVE);
    assert_eq!(names(&below), names(&c.schedule()));
    assert!(notes.is_empty(), "{notes:?}");
    let (above, notes) = c.schedule_sampled(ssaref::pass_manager::sampling::SAMPLE_ABOVE + 1);
    let above = names(&above);
    for r in &c.out_of_ssa {
        let o = &r.out_of_ssa;
        let graph = o.class_test != ClassTest::Linear;
        let pairwise = matches!(o.variant, CoalescingVariant::Chaitin | CoalescingVariant::SreedharIII);
        let runs = above.contains(&ssaref::backend::Backend::stage_names(r, 2).0);
        let quadratic = graph || pairwise;
        assert_eq!(runs, !quadratic, "{}", r.describe());
    }
    let ra = c.regalloc.len() * 2;
    // ssa-ra at both K, the first configuration of each allocator at both
    // K, the other 18 of the 20 that remain at K = 2.
    assert_eq!(above.len(), ra + 2 * 2 + 18, "{above:?}");
    assert_eq!(notes.len(), 3, "{notes:?}");
}

/// A back end that shows the oracle a program of its own that computes
/// something else (a planted bug in an intermediate stage), then allocates
/// correctly. The differential driver runs the oracle on what it is shown
/// there and then: the verdict names that stage, though every later stage
/// would agree.
struct WrongIntermediate;

impl ssaref::backend::Backend for WrongIntermediate {
    fn name(&self) -> String {
        "wrong-intermediate".to_string()
    }

    fn allocate(
        &self,
        ssa: &ssaref::ir::Module,
        prepared: &ssaref::backend::Prepared,
        k: usize,
        flags: ssaref::pass_manager::flags::Flags,
        stages: &mut dyn ssaref::pass_manager::runner::Observer<ssaref::ir::Module>,
    ) -> Result<ssaref::mir::MModule, ssaref::error::PassError> {
        let wrong = ssaref::ssa_text::parse_module("fn main(v0) {\nb0:\n    v1 = const 7\n    ret v1\n}\n")
            .expect("the planted program parses");
        stages.after_pass(&format!("wrong-intermediate[k={k}]/planted"), &wrong);
        let ssa_ra = ssaref::backend::SsaRa(ssaref::ssa_ra::regalloc::RegallocOptions::with_k(k));
        ssaref::backend::Backend::allocate(&ssa_ra, ssa, prepared, k, flags, stages)
    }
}

#[test]
fn a_program_shown_to_the_observer_is_run_there_and_then() {
    let p = ssaref::frontend::parser::parse_program(PROGRAM).expect("parses");
    let mut c = config(&[3], true);
    c.backends = vec![std::sync::Arc::new(WrongIntermediate)];
    c.regalloc.clear();
    c.out_of_ssa.clear();
    match differential_full(&p, &[5], &InterpOracle, &c) {
        Verdict::Diverge { stage, .. } => assert_eq!(stage, "wrong-intermediate[k=3]/planted"),
        other => panic!("the planted stage should diverge: {other:?}"),
    }
}

/// ssa-ra's module pass list shows the observer, after each pass on each
/// function, the whole module with that function rewritten and the others
/// as given, under `PASS@FUNCTION` when there is more than one function.
#[test]
fn ssa_ra_shows_each_function_rewritten_in_the_given_module() {
    // `main` has a loop phi, which PhiLifting rewrites.
    let text = "fn main(v0, v1) {\nb0:\n    v2 = const 0\n    jump b1\nb1(b0, b2):\n    v4 = phi v2, v6\n    \
                v5 = lt v4, v1\n    br v5, b2, b3\nb2(b1):\n    v6 = add v4, v0\n    jump b1\nb3(b1):\n    ret v4\n}\n\
                fn other() {\nb0:\n    v0 = const 2\n    ret v0\n}\n";
    let m = ssaref::ssa_text::parse_module(text).expect("parses");
    let mut seen: Vec<(String, Vec<String>)> = Vec::new();
    let mut observe = |name: &str, shown: &ssaref::ir::Module| {
        let printed = shown.functions.iter().map(ssaref::ssa_text::print_function).collect();
        seen.push((name.to_string(), printed));
    };
    let opts = ssaref::ssa_ra::regalloc::RegallocOptions::with_k(3);
    let flags = ssaref::pass_manager::flags::Flags::checked();
    ssaref::backend::ssa_ra::allocate_module(&m, &opts, flags, &mut observe).expect("allocates");
    let names: Vec<&str> = seen.iter().map(|s| s.0.as_str()).collect();
    let passes = ["split-critical-edges", "phi-lifting", "phi-mem-coalesce", "spill"];
    let expected: Vec<String> =
        ["main", "other"].iter().flat_map(|f| passes.iter().map(move |p| format!("{p}@{f}"))).collect();
    assert_eq!(names, expected);
    let given: Vec<String> = m.functions.iter().map(ssaref::ssa_text::print_function).collect();
    for (name, shown) in &seen {
        let untouched = if name.ends_with("@main") { 1 } else { 0 };
        assert_eq!(shown[untouched], given[untouched], "after {name}, the other function is as given");
    }
    assert_ne!(seen[1].1[0], given[0], "PhiLifting rewrote `main`");
}

/// Two back ends that allocate identical machine IR (the same out-of-ssa
/// configuration twice) each keep their machine-IR and x86 stages in the
/// verdict, with the source's outcome: the second takes the outcomes of the
/// first instead of running the oracle, the lowering and Unicorn again, and
/// is still judged and counted.
#[test]
fn equal_allocations_keep_their_stages() {
    use ssaref::backend::Backend;
    let mut c = config(&[2, 15], true);
    c.regalloc.clear();
    c.out_of_ssa = vec![OutOfSsa::rotation(0), OutOfSsa::rotation(0)];
    let p = ssaref::frontend::parser::parse_program(PROGRAM).expect("parses");
    let (outcome, stages) = match differential_full(&p, &[5], &InterpOracle, &c) {
        Verdict::Agree { outcome, stages } => (outcome, stages),
        other => panic!("the program should agree everywhere: {other:?}"),
    };
    for k in [2, 15] {
        let (mir, x86) = c.out_of_ssa[0].stage_names(k);
        for name in [mir, x86] {
            let found: Vec<_> = stages.iter().filter(|s| s.stage == name).collect();
            assert_eq!(found.len(), 2, "stage {name} once for each of the two configurations");
            assert!(found.iter().all(|s| s.outcome.as_ref() == Ok(&outcome)), "stage {name}: {found:?}");
        }
    }
}

/// ssa-ra's passes that do not depend on K run once per program and
/// switch of PhiMemCoalesce (`backend/ssa_ra_k_independent.rs`):
/// allocating after that preparation gives, at every K, the machine IR,
/// and the SSA after each pass under the same names in the same order,
/// that the full pass list gives; a preparation of another program is
/// not used.
#[test]
fn k_independent_passes_once_show_what_the_full_pass_list_shows() {
    use ssaref::backend::{Backend, Prepared, SsaRa};
    use ssaref::ir::Module;
    use ssaref::pass_manager::flags::Flags;
    use ssaref::pass_manager::runner::Unobserved;
    let flags = Flags::checked();
    let ssa = |source: &str| {
        let p = ssaref::frontend::parser::parse_program(source).expect("parses");
        let config = ssaref::pipeline::Config { flags, ..Default::default() };
        ssaref::pipeline::build_ssa(&p, &config).expect("builds")
    };
    let m = ssa(PROGRAM);
    let other = ssa("fn main(n) { var s = 1; while (s < n) { s = s * 2; } out s; return s % 5; }");
    let all = ssaref::ssa_ra::regalloc::RegallocOptions::with_k(2);
    for backend in [SsaRa(all), SsaRa(all.without_section_6())] {
        let prepared = backend.prepare(&m, flags, &mut Unobserved).expect("prepares");
        let foreign = backend.prepare(&other, flags, &mut Unobserved).expect("prepares");
        for k in [2, 3, 4, 8, 15] {
            let run = |p: &Prepared| {
                let mut shown: Vec<(String, Module)> = Vec::new();
                let mut record = |name: &str, g: &Module| shown.push((name.to_string(), g.clone()));
                let mir = backend.allocate(&m, p, k, flags, &mut record).expect("allocates");
                (mir, shown)
            };
            let full = run(&Prepared::default());
            let first = format!("{}/split-critical-edges", backend.stage_names(k).0);
            assert_eq!(full.1.first().map(|(name, _)| name), Some(&first), "{} at K = {k}", backend.name());
            assert_eq!(run(&prepared), full, "{} at K = {k}, prepared", backend.name());
            assert_eq!(run(&foreign), full, "{} at K = {k}, prepared for another program", backend.name());
        }
    }
}

/// The interpreter, counting its runs of SSA modules.
#[derive(Default)]
struct CountingInterp {
    ssa_runs: std::cell::Cell<usize>,
}

impl ssaref::oracle::Oracle for CountingInterp {
    fn run_source(
        &self,
        p: &ssaref::ast::Program,
        args: &[i64],
        fuel: u64,
    ) -> Result<ssaref::outcome::Outcome, ssaref::oracle::OracleError> {
        InterpOracle.run_source(p, args, fuel)
    }
    fn run_ssa(
        &self,
        m: &ssaref::ir::Module,
        args: &[i64],
        fuel: u64,
    ) -> Result<ssaref::outcome::Outcome, ssaref::oracle::OracleError> {
        self.ssa_runs.set(self.ssa_runs.get() + 1);
        InterpOracle.run_ssa(m, args, fuel)
    }
    fn run_mir(
        &self,
        m: &ssaref::mir::MModule,
        args: &[i64],
        fuel: u64,
    ) -> Result<ssaref::outcome::Outcome, ssaref::oracle::OracleError> {
        InterpOracle.run_mir(m, args, fuel)
    }
}

/// The differential check runs each distinct SSA module of a program once
/// (`differential_shared.rs`): an equal module takes the kept outcome, and
/// a module that differs in one constant is run.
#[test]
fn an_equal_ssa_module_is_run_once_and_a_different_one_again() {
    use ssaref::oracle::Oracle;
    let ssa = |source: &str| {
        let p = ssaref::frontend::parser::parse_program(source).expect("parses");
        ssaref::pipeline::build_ssa(&p, &Default::default()).expect("builds")
    };
    let a = ssa("fn main(n) { var s = 0; while (n > 0) { s = s + n; n = n - 1; } out s; return s; }");
    let b = ssa("fn main(n) { var s = 0; while (n > 0) { s = s + n; n = n - 2; } out s; return s; }");
    assert_ne!(a, b);
    let oracle = CountingInterp::default();
    let mut runs = ssaref::differential_shared::SsaRuns::default();
    let first = runs.run(&a, &oracle, &[7], 10_000);
    assert_eq!(runs.run(&a.clone(), &oracle, &[7], 10_000), first);
    assert_eq!(oracle.ssa_runs.get(), 1, "an equal module takes the kept outcome");
    assert_eq!(first, InterpOracle.run_ssa(&a, &[7], 10_000));
    let other = runs.run(&b, &oracle, &[7], 10_000);
    assert_eq!(oracle.ssa_runs.get(), 2, "a module that differs in one constant is run");
    assert_eq!(other, InterpOracle.run_ssa(&b, &[7], 10_000));
    assert_ne!(first, other);
}
