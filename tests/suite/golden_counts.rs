//! The passes' decisions on a fixed corpus, pinned: out-of-ssa's copies left
//! per coalescing variant (static, weighted, executed), out-of-ssa's
//! conventional allocators' slots, loads, stores and moves at several K,
//! and ssa-ra's
//! spills, slots, loads, stores, moves and swaps at several K for both
//! spilling strategies. Outcomes are checked everywhere else; what this
//! test adds is that a change to a decision (a spill weight, an
//! interference rule that turns conservative) cannot go unnoticed even when
//! the code stays correct. Mutation testing found such mutants alive
//! (docs/campaigns.md, "Mutation testing").
//!
//! The expected figures are `tests/golden/counts.txt`. When a change is
//! meant to alter them, `SSAREF_BLESS=1 cargo test --release --test
//! suite golden_counts` rewrites the file; the diff is then part of the review.

use crate::common::passes::translate_module;
use crate::common::InterpOracle;
use ssaref::backend::{Backend, OutOfSsa};
use ssaref::construction::braun::construct_program;
use ssaref::construction::braun::BraunOptions;
use ssaref::evaluation::out_of_ssa_stats::copy_table;
use ssaref::evaluation::regalloc_stats::{measure, AllocCounts};
use ssaref::generate::source::{GenConfig, TestCase};
use ssaref::out_of_ssa::coalescing::{ClassTest, CoalescingVariant};
use ssaref::out_of_ssa::conventional::ConventionalAllocator;
use ssaref::out_of_ssa::translate::{LivenessMethod, OutOfSsaOptions};
use ssaref::pass_manager::runner::Unobserved;
use ssaref::ssa_ra::regalloc::RegallocOptions;

const FUEL: u64 = 200_000;
const SEEDS: std::ops::Range<u64> = 0..30;

fn corpus() -> Vec<(ssaref::ast::Program, Vec<i64>)> {
    SEEDS
        .map(|s| {
            let tc = TestCase::from_seed(s, &GenConfig::default());
            (tc.program, tc.args)
        })
        .collect()
}

/// The static and executed spill code of `c`, as one pinned line's tail.
fn counts(c: &AllocCounts) -> String {
    format!(
        "slots {:>4} loads {:>4} stores {:>4} moves {:>4} swaps {:>3} executed loads {:>6} stores {:>6} moves {:>6} swaps {:>5}",
        c.slots, c.loads, c.stores, c.moves, c.swaps, c.dynamic.loads, c.dynamic.stores, c.dynamic.moves, c.dynamic.swaps
    )
}

fn render() -> String {
    let corpus = corpus();
    let mut out = String::new();
    for liveness in [LivenessMethod::Check, LivenessMethod::Sets] {
        let table = copy_table(
            &corpus,
            &InterpOracle,
            FUEL,
            liveness,
            &BraunOptions::all_on(),
            ssaref::pass_manager::flags::Flags::checked(),
        )
        .expect("out-of-ssa runs");
        out.push_str(&format!("out-of-ssa, liveness {}, {} programs\n", liveness.name(), table.programs));
        for row in &table.rows {
            let r = &row.report;
            out.push_str(&format!(
                "  {:<14} remaining {:>4} weighted {:>8} executed {:>7} shared {:>3} classes {:>4}\n",
                row.variant.map_or("?", |v| v.name()),
                r.remaining_copies,
                r.weighted_copies,
                row.dynamic_copies,
                r.shared_copies,
                r.classes
            ));
        }
    }
    // The pairwise class tests (the linear test answers the queries above).
    let modules: Vec<_> = corpus.iter().map(|(p, _)| construct_program(p, &BraunOptions::all_on())).collect();
    for test in [ClassTest::Quadratic, ClassTest::BitMatrix] {
        out.push_str(&format!("out-of-ssa, class test {}\n", test.name()));
        for v in CoalescingVariant::ALL {
            let opts = OutOfSsaOptions { class_test: test, ..OutOfSsaOptions::fast(v) };
            let (mut remaining, mut classes) = (0, 0);
            for m in &modules {
                let (_, r) = translate_module(m, &opts).expect("out-of-ssa translates");
                remaining += r.remaining_copies;
                classes += r.classes;
            }
            out.push_str(&format!("  {:<14} remaining {remaining:>4} classes {classes:>4}\n", v.name()));
        }
    }
    // out-of-ssa's conventional allocators after the fast configuration
    // (sharing), at four K: what linear scan decides (priorities, evictions,
    // copy coalescing, pins) is pinned like ssa-ra's spilling.
    for allocator in ConventionalAllocator::ALL {
        for k in [2, 3, 4, 8] {
            let backend = OutOfSsa { out_of_ssa: OutOfSsaOptions::fast(CoalescingVariant::Sharing), allocator };
            let mut c = AllocCounts::default();
            for (m, (_, args)) in modules.iter().zip(&corpus) {
                let (flags, mut none) = (ssaref::pass_manager::flags::Flags::checked(), Unobserved);
                let prepared = backend.prepare(m, flags, &mut none).expect("out-of-ssa translates");
                let mir = backend.allocate(m, &prepared, k, flags, &mut none).expect("out-of-ssa allocates");
                c.programs += 1;
                c.add_static(&mir);
                let _ = c.add_run(&mir, args, &InterpOracle, FUEL);
            }
            out.push_str(&format!("out-of-ssa, K = {k:>2}, {:<16} {}\n", allocator.name(), counts(&c)));
        }
    }
    let mut ssa_ra = Vec::new();
    for k in [2, 3, 4, 8] {
        for during in [true, false] {
            let opts = RegallocOptions { spill_during_coloring: during, ..RegallocOptions::with_k(k) };
            ssa_ra.push((if during { "during coloring" } else { "separate pass" }.to_string(), opts));
        }
    }
    // Each switch off alone, and the §6 optimizations off together, at two K:
    // what every switch changes is pinned too.
    for k in [3, 4] {
        let all = RegallocOptions::with_k(k);
        ssa_ra.push(("plain".to_string(), all.without_section_6()));
        for i in 0..RegallocOptions::SWITCHES.len() {
            let mut opts = all;
            *opts.switch(i).expect("a switch") = false;
            ssa_ra.push((format!("no {}", RegallocOptions::SWITCHES[i]), opts));
        }
    }
    for (name, opts) in ssa_ra {
        let k = opts.k;
        {
            let c = measure(&corpus, &opts, &InterpOracle, FUEL).expect("ssa-ra allocates");
            out.push_str(&format!("ssa-ra, K = {k:>2}, {name:<15} spilled {:>4} {}\n", c.values_spilled, counts(&c)));
        }
    }
    out
}

#[test]
fn decisions_on_the_fixed_corpus_are_the_pinned_ones() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/counts.txt");
    let got = render();
    if std::env::var("SSAREF_BLESS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("create tests/golden");
        std::fs::write(&path, &got).expect("write the golden file");
        return;
    }
    let want = std::fs::read_to_string(&path).expect("tests/golden/counts.txt (SSAREF_BLESS=1 writes it)");
    pretty_assertions::assert_eq!(want, got, "a pass decides differently on the fixed corpus; if meant, bless");
}
