//! Micro-benchmarks (divan) of the allocation kernels and of SSA
//! construction, on fixed generated inputs (seeded, so every run times the
//! same code):
//! - `allocation::ssa_ra`: Pereira's allocation and Pereira and Palsberg's
//!   SSA elimination, every optimization on;
//! - `allocation::out_of_ssa`: Boissinot et al.'s out-of-SSA translation
//!   (Sharing, the fast configuration) and linear scan;
//! - `allocation::regalloc2`: regalloc2 (critical-edge splitting,
//!   regalloc2's input, regalloc2, its output read back);
//!
//! each for K in {2, 4, 8, 15}, on the unchecked entry points that
//! `ssaref stats --compare-backends` times (`evaluation/backend_comparison.rs`),
//! and `construction::braun` (all optimizations on) against
//! `construction::cytron` on the same programs.
//!
//! `cargo bench` runs them; `cargo bench --profile measure` without the
//! release profile's debug assertions (see Cargo.toml).

use divan::{black_box, Bencher};
use ssaref::ast::Program;
use ssaref::evaluation::backend_comparison::Engine;
use ssaref::ir::Module;
use ssaref::out_of_ssa::coalescing::CoalescingVariant;
use std::sync::OnceLock;

fn main() {
    divan::main();
}

/// SSA functions of about 4,000 instructions together, from generated
/// programs of seeds 1, 2, ... (`out_of_ssa_stats::bench_module`).
fn ssa_input() -> &'static Module {
    static INPUT: OnceLock<Module> = OnceLock::new();
    INPUT.get_or_init(|| ssaref::evaluation::out_of_ssa_stats::bench_module(4_000, 1, 60))
}

/// Twenty generated programs (seeds 1..=20, size 60), for construction.
fn programs() -> &'static [Program] {
    static INPUT: OnceLock<Vec<Program>> = OnceLock::new();
    INPUT.get_or_init(|| {
        let config = ssaref::generate::source::GenConfig { size: 60, ..ssaref::generate::source::GenConfig::default() };
        (1..=20).map(|s| ssaref::generate::source::TestCase::from_seed(s, &config).program).collect()
    })
}

const KS: [usize; 4] = [2, 4, 8, 15];

fn allocate(bencher: Bencher, engine: Engine, k: usize) {
    let input = ssa_input();
    bencher.bench(|| engine.allocate_unchecked(black_box(input), k).expect("allocates"));
}

mod allocation {
    use super::*;

    #[divan::bench(args = KS)]
    fn ssa_ra(bencher: Bencher, k: usize) {
        allocate(bencher, Engine::SsaRa, k);
    }

    #[divan::bench(args = KS)]
    fn out_of_ssa(bencher: Bencher, k: usize) {
        allocate(bencher, Engine::OutOfSsa(CoalescingVariant::Sharing), k);
    }

    #[divan::bench(args = KS)]
    fn regalloc2(bencher: Bencher, k: usize) {
        allocate(bencher, Engine::Regalloc2, k);
    }
}

mod construction {
    use super::*;
    use ssaref::construction::braun::{construct_program, BraunOptions};

    #[divan::bench]
    fn braun(bencher: Bencher) {
        let ps = programs();
        bencher
            .bench(|| ps.iter().map(|p| construct_program(black_box(p), &BraunOptions::all_on())).collect::<Vec<_>>());
    }

    #[divan::bench]
    fn cytron(bencher: Bencher) {
        let ps = programs();
        bencher.bench(|| {
            ps.iter().map(|p| ssaref::construction::cytron::construct_cytron(black_box(p))).collect::<Vec<_>>()
        });
    }
}
