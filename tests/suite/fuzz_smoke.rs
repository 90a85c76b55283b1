//! The cargo-fuzz entry points `pipeline` and `alloc_checker`
//! (`ssaref::campaign::fuzz_targets`) on random bytes for about a second each, so that
//! `cargo test` runs what the fuzz targets run. `SSAREF_SMOKE_SECONDS`
//! sets a longer time. (The other targets' smoke
//! tests are in `parser.rs`, `generator.rs` and `implement_spartan.rs`.)

use crate::common::{count_panics, InterpOracle, PlantedOracle};
use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};
use std::time::{Duration, Instant};

fn for_about_a_second(seed: u64, mut f: impl FnMut(&[u8])) -> usize {
    let mut rng = SmallRng::seed_from_u64(seed);
    let start = Instant::now();
    let mut runs = 0;
    let secs = std::env::var("SSAREF_SMOKE_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    while start.elapsed() < Duration::from_secs(secs) || runs < 10 {
        let mut bytes = vec![0u8; (rng.next_u32() % 2048) as usize];
        rng.fill_bytes(&mut bytes);
        f(&bytes);
        runs += 1;
    }
    runs
}

#[test]
fn the_pipeline_fuzz_target_runs_on_random_bytes() {
    let runs = for_about_a_second(7, |b| ssaref::campaign::fuzz_targets::fuzz_pipeline(b, &InterpOracle));
    eprintln!("pipeline: {runs} inputs");
    // Degenerate inputs too.
    ssaref::campaign::fuzz_targets::fuzz_pipeline(&[], &InterpOracle);
    ssaref::campaign::fuzz_targets::fuzz_pipeline(&[0xff; 3], &InterpOracle);
}

/// Random inputs, fixed: `count` byte strings from `seed`.
fn inputs(seed: u64, count: usize) -> Vec<Vec<u8>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut bytes = vec![0u8; 64 + (rng.next_u32() % 1024) as usize];
            rng.fill_bytes(&mut bytes);
            bytes
        })
        .collect()
}

/// The `pipeline` target runs its checks: with a divergence planted in the
/// oracle's MIR engine (ssa-ra's and out-of-ssa's allocated code) it fails on
/// every input whose source runs to the end; with the SSA engine's, too.
#[test]
fn the_pipeline_fuzz_target_finds_a_planted_divergence() {
    let inputs = inputs(11, 24);
    let honest = count_panics(&inputs, |b| ssaref::campaign::fuzz_targets::fuzz_pipeline(b, &InterpOracle));
    assert_eq!(honest, 0);
    for planted in [PlantedOracle { ssa: false, mir: true }, PlantedOracle { ssa: true, mir: false }] {
        let found = count_panics(&inputs, |b| ssaref::campaign::fuzz_targets::fuzz_pipeline(b, &planted));
        eprintln!("{planted:?}: {found} of {} inputs fail", inputs.len());
        assert!(found * 4 >= inputs.len() * 3, "{planted:?}: only {found} of {} inputs fail", inputs.len());
    }
}

/// The `construct` target runs its checks: a divergence planted in the
/// SSA engine fails it.
#[test]
fn the_construct_fuzz_target_finds_a_planted_divergence() {
    let inputs = inputs(12, 24);
    assert_eq!(count_panics(&inputs, |b| ssaref::campaign::fuzz_targets::fuzz_construct(b, &InterpOracle)), 0);
    let planted = PlantedOracle { ssa: true, mir: false };
    let found = count_panics(&inputs, |b| ssaref::campaign::fuzz_targets::fuzz_construct(b, &planted));
    assert!(found * 4 >= inputs.len() * 3, "only {found} of {} inputs fail", inputs.len());
}

#[test]
fn the_alloc_checker_fuzz_target_runs_on_random_bytes() {
    use ssaref::campaign::fuzz_targets::MutantVerdict;
    let rejected = format!("{:?}", MutantVerdict::Rejected);
    let accepted = format!("{:?}", MutantVerdict::AcceptedAndCorrect);
    let mut counts = std::collections::BTreeMap::new();
    // About a second, and then on until both verdicts have been seen (a
    // busy machine runs fewer inputs in a second), at most `MAX_INPUTS`.
    const MAX_INPUTS: usize = 20_000;
    let mut rng = SmallRng::seed_from_u64(8);
    let start = Instant::now();
    let secs = std::env::var("SSAREF_SMOKE_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut runs = 0;
    while runs < MAX_INPUTS
        && (start.elapsed() < Duration::from_secs(secs)
            || !counts.contains_key(&rejected)
            || !counts.contains_key(&accepted))
    {
        let mut bytes = vec![0u8; (rng.next_u32() % 2048) as usize];
        rng.fill_bytes(&mut bytes);
        let verdict = ssaref::campaign::fuzz_targets::fuzz_alloc_checker(&bytes, &InterpOracle);
        *counts.entry(format!("{verdict:?}")).or_insert(0) += 1;
        runs += 1;
    }
    eprintln!("alloc_checker: {runs} inputs: {counts:?}");
    // Not vacuous: the checker both accepts and rejects mutants.
    assert!(counts.get(&rejected).copied().unwrap_or(0) > 0, "{counts:?}");
    assert!(counts.get(&accepted).copied().unwrap_or(0) > 0, "{counts:?}");
    ssaref::campaign::fuzz_targets::fuzz_alloc_checker(&[], &InterpOracle);
}
