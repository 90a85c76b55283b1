//! The evaluation: what the papers measured, measured on ssaref.
//!
//! | file | holds |
//! |---|---|
//! | `regalloc_stats.rs` | spill, move and swap counts of an allocation, static and executed (`ssaref stats`) |
//! | `out_of_ssa_stats.rs` | copies left by each coalescing variant of Boissinot et al. (`ssaref stats --route out-of-ssa`) |
//! | `timing.rs` | how everything here measures: wall and thread CPU time, peak memory, the median, interleaved repetitions |
//! | `out_of_ssa_bench.rs` | time and memory of the out-of-SSA translation, Boissinot et al. §IV-D (`ssaref bench-out-of-ssa`, `ssaref reproduce`) |
//! | `spill_code_sources.rs` | executed spill code split by where it comes from (stores after definitions, reloads before uses, transfers of phi-related values), ssa-ra against linear scan |
//! | `x86_counts.rs` | loads, stores, moves and swaps of the final x86-64 code, static and executed, as Pereira's Table 1 counts them |
//! | `backend_comparison.rs` | the three back ends side by side, Pereira §5 (`ssaref stats --compare-backends`) |
//! | `reproduce/` | each paper's evaluation redone, ours beside the paper's (`ssaref reproduce`) |
//! | `eval_error.rs` | `EvalError`: what stopped a measurement, in the program or section it happened in |
//!
//! May import: `generate` and everything below it.

pub mod backend_comparison;
pub mod eval_error;
pub mod out_of_ssa_bench;
pub mod out_of_ssa_stats;
pub mod regalloc_stats;
pub mod reproduce;
pub mod spill_code_sources;
pub mod timing;
pub mod x86_counts;
