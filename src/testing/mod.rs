//! The testing machinery: the program generators (source level, `gen/`;
//! SSA level, `irgen/`), the bodies of the fuzz targets, `ssaref fuzz`
//! campaigns, the test-case reducer, and the statistics tables of
//! `ssaref stats`.
//!
//! May import: everything below it (`pipeline` and every stage). Nothing in
//! the library imports this folder; only the command line, the tests and
//! the fuzz targets do.

pub mod backend_comparison;
pub mod campaign;
pub mod failure_case;
pub mod fuzzing;
pub mod gen;
pub mod ir_campaign;
pub mod irgen;
pub mod out_of_ssa_bench;
pub mod out_of_ssa_stats;
pub mod reduce;
pub mod reduce_ssa;
pub mod regalloc_stats;
pub mod reproduce;
pub mod rotation;
pub mod shard;
