//! Differential fuzzing campaigns (`ssaref fuzz`) and the bodies of the
//! cargo-fuzz targets.
//!
//! | file | holds |
//! |---|---|
//! | `driver.rs` | the campaign: programs from consecutive seeds on J threads, failing cases written before they are reported |
//! | `ssa_share.rs` | which programs of a campaign come from the SSA-level generator |
//! | `rotation.rs` | which configuration each program runs, a function of its seed |
//! | `reach_table.rs` | the share of programs that reach each out-of-SSA configuration's own code paths |
//! | `shard.rs` | splitting one campaign over several machines |
//! | `summary_file.rs` | the machine-readable summary a campaign writes beside its cases |
//! | `merge.rs` | one report from the summaries of many shards (`ssaref fuzz-merge`) |
//! | `failure_case.rs` | the case file a failing program leaves |
//! | `fuzz_targets.rs` | the library side of the targets in `fuzz/` |
//! | `command_line_input.rs` | the input of the target `command_line`: an argument vector and a case file |
//! | `target_campaign.rs` | campaigns on production compilers (`targets/`): `ssaref fuzz --target` |
//!
//! May import: `generate`, `targets`, `reduce` and everything below them.

pub mod command_line_input;
pub mod driver;
pub mod failure_case;
pub mod fuzz_targets;
pub mod merge;
pub mod reach_table;
pub mod rotation;
pub mod shard;
pub mod ssa_share;
pub mod summary_file;
pub mod target_campaign;
