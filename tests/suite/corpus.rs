//! Replays the realistic corpus `tests/corpus/*.src` (docs/testing.md, "Test
//! cases"): sorting, hashing, SHA-256, matrix and big-number kernels,
//! compression, an interpreter loop, graph search, a tokenizer, ... written
//! as real code is written, 100 to 1,500 statements each. Their expected
//! outcomes were cross-checked outside ssaref by the Python references of
//! `tests/corpus/reference/` (`tests/corpus/check_references.sh`; not run
//! here, since a CI machine may lack Python).
//!
//! For each program: the header's expected outcome equals the AST
//! interpreter's, then every stage agrees with it with every checker on:
//! Cytron et al.'s SSA and four representative Braun et al. variants (those
//! of `ssaref check`), ssa-ra (with and without the §6 optimizations) at
//! every K of 2, 3, 4, 6, 8, 15 down to x86-64 under Unicorn, and out-of-ssa
//! (coalescing variant × liveness × allocator) down to x86-64 too.
//! out-of-ssa is where the cost is: what `ssaref check` runs (out-of-ssa's 28
//! configurations at each of the 6 K) is 428 stages per program, about
//! 9,000 for the corpus, too many for the time budget of one test in
//! `cargo test`. So by default each out-of-ssa configuration runs at
//! one K per program, rotating with the program's index: every program
//! still meets every K (ssa-ra at all six, out-of-ssa spread over them) and
//! every out-of-ssa configuration, and every configuration meets every K
//! across the corpus (3,612 stages). `SSAREF_CORPUS_FULL=1`
//! runs everything at every K, as `ssaref check` and
//! `tests/corpus/check_references.sh --check` do.

use crate::common::{all_corpus_files as corpus_files, parse_case, InterpOracle};
use pretty_assertions::assert_eq;
use ssaref::backend::OutOfSsa;
use ssaref::differential::{differential_full_catching, DiffConfig, Verdict};

const FUEL: u64 = 1_000_000;
const REGS: [usize; 6] = [2, 3, 4, 6, 8, 15];

/// A corpus program: its file name, header and parsed program.
struct Program {
    name: String,
    case: crate::common::Case,
    program: ssaref::ast::Program,
}

fn corpus() -> Vec<Program> {
    corpus_files()
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(&path).expect("readable program");
            let case = parse_case(&text).unwrap_or_else(|e| panic!("{name}:{e}"));
            let program =
                ssaref::frontend::parser::parse_program(&text).unwrap_or_else(|d| panic!("{}", d.with_file(&name)));
            Program { name, case, program }
        })
        .collect()
}

#[test]
fn the_corpus_has_twenty_realistic_programs_with_their_references() {
    let programs = corpus();
    assert!(programs.len() >= 20, "tests/corpus holds {} programs; it should hold at least 20", programs.len());
    let reference_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/reference");
    for p in &programs {
        let n = ssaref::generate::source::statement_count(&p.program);
        eprintln!("{:<28} {n:>5} statements", p.name);
        assert!((100..=1500).contains(&n), "{}: {n} statements, outside 100..=1500", p.name);
        assert!(!p.case.description.trim().is_empty(), "{}: no description", p.name);
        let py = reference_dir.join(p.name.replace(".src", ".py"));
        assert!(py.exists(), "{}: no Python reference {}", p.name, py.display());
    }
}

#[test]
fn every_program_matches_its_expected_outcome() {
    for p in corpus() {
        let source = ssaref_interp::run_ast(&p.program, &p.case.args, FUEL).expect("the oracle runs every program");
        assert_ne!(source.end, ssaref::outcome::End::OutOfFuel, "{}: runs out of the default fuel", p.name);
        assert_eq!(p.case.expect, source.render_full(), "{}: expected outcome (header) vs the AST interpreter", p.name);
    }
}

/// The configurations that together make one program's differential run:
/// the first carries the construction variants, each one K; program
/// `index` runs out-of-ssa configuration `i` at K = `REGS[(i + index) % 6]`.
fn configs(index: usize, full: bool) -> Vec<DiffConfig> {
    let standard = DiffConfig::standard(&REGS, FUEL);
    if full {
        return vec![standard];
    }
    let all = OutOfSsa::all();
    REGS.iter()
        .enumerate()
        .map(|(ki, &k)| DiffConfig {
            variants: if ki == 0 { standard.variants.clone() } else { Vec::new() },
            regs: vec![k],
            out_of_ssa: all
                .iter()
                .enumerate()
                .filter(|(i, _)| (i + index) % REGS.len() == ki)
                .map(|(_, r)| *r)
                .collect(),
            ..standard.clone()
        })
        .collect()
}

#[test]
fn every_program_agrees_at_every_stage() {
    let full = std::env::var("SSAREF_CORPUS_FULL").is_ok_and(|v| v == "1");
    let programs = corpus();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(programs.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    let stages = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(p) = programs.get(index) else { break };
                for config in configs(index, full) {
                    match differential_full_catching(&p.program, &p.case.args, &InterpOracle, &config) {
                        Verdict::Agree { outcome, stages: s } if outcome.render_full() == p.case.expect => {
                            stages.fetch_add(s.len(), std::sync::atomic::Ordering::Relaxed);
                        }
                        other => {
                            failures.lock().unwrap().push(format!("{}: {other}", p.name));
                            break;
                        }
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "failing programs:\n{}", failures.join("\n"));
    eprintln!(
        "{} corpus programs agree at {} stages ({})",
        programs.len(),
        stages.into_inner(),
        if full {
            "every K, both back ends, every out-of-ssa configuration"
        } else {
            "out-of-ssa configurations rotated over K"
        }
    );
}

#[test]
fn the_rotation_meets_every_k_with_every_out_of_ssa_configuration() {
    let n = OutOfSsa::all().len();
    for i in 0..n {
        let mut ks: Vec<usize> = (0..REGS.len())
            .flat_map(|index| configs(index, false))
            .filter(|c| c.out_of_ssa.iter().any(|r| *r == OutOfSsa::all()[i]))
            .flat_map(|c| c.regs)
            .collect();
        ks.sort();
        assert_eq!(ks, REGS.to_vec(), "out-of-ssa configuration {i}");
    }
    // And each program runs every configuration once, ssa-ra at every K.
    let cs = configs(0, false);
    assert_eq!(cs.iter().map(|c| c.out_of_ssa.len()).sum::<usize>(), n);
    assert_eq!(cs.iter().flat_map(|c| c.regs.clone()).collect::<Vec<_>>(), REGS.to_vec());
    assert_eq!(cs.iter().map(|c| c.variants.len()).sum::<usize>(), 4);
}
