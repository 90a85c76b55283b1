//! ssaref: a verified reference implementation of SSA back-end algorithms.
//!
//! The folders follow the pipeline, and imports flow one way, from the top
//! of this list to the bottom (a folder imports only folders below it, and
//! the test `tests/suite/layout.rs` keeps it so):
//!
//! | folder | what it holds |
//! |--------|---------------|
//! | `evaluation` | statistics, benchmarks and `reproduce`: the papers' evaluations redone |
//! | `campaign`, `reduce` | `ssaref fuzz` campaigns and fuzz-target bodies; test-case reduction |
//! | `generate` | program generators, source level and SSA level |
//! | `differential.rs`, `differential_shared.rs` | the differential check: every stage run in the oracle, each outcome compared with the source's; each distinct SSA module of a program run once |
//! | `pipeline.rs` | `compile`: the one function that lists the passes and runs the checkers between them |
//! | `backend` | the `Backend` trait (SSA and K in, allocated machine IR out) and the three back ends behind it, one file each |
//! | `ssa_ra`, `out_of_ssa`, `regalloc2`, `machine` | Pereira + Pereira and Palsberg; Boissinot et al. + conventional allocators; the regalloc2 crate; x86-64 |
//! | `error` | `PassError`, what every pass returns, with the failed checker's error as a value |
//! | `construction`, `checkers` | Braun et al. and the Cytron et al. reference; the independent checkers |
//! | `frontend` | lexer, parser, printer, case files |
//! | `analysis` | verifier, dominance, liveness, loops, intervals, pressure |
//! | `pass_manager`, `ssa_text.rs` | how passes run: the pass runner, the check switch, the clock, sampled checks; the SSA text form (printer and parser) |
//! | `types` (crate `ssaref-types`) | AST, SSA IR, machine IR, outcomes, the oracle interface |
//!
//! See ARCHITECTURE.md for the code map and the architecture invariants.

// The data types, re-exported from their crate (`src/types/`) so that the
// oracle can depend on them without depending on any pass.
pub use ssaref_types::{ast, diag, entity, ir, mir, op, oracle, outcome};

pub mod analysis;
pub mod backend;
pub mod campaign;
pub mod checkers;
pub mod construction;
pub mod differential;
pub mod differential_shared;
pub mod error;
pub mod evaluation;
pub mod frontend;
pub mod generate;
pub mod machine;
pub mod out_of_ssa;
pub mod pass_manager;
pub mod pipeline;
pub mod reduce;
pub mod regalloc2;
pub mod ssa_ra;
pub mod ssa_text;
pub mod targets;
