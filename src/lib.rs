//! ssaref: a verified reference implementation of SSA back-end algorithms.
//!
//! The folders follow the pipeline, and imports flow one way, from the top
//! of this list to the bottom (a folder imports only folders below it, and
//! the test `tests/layout.rs` keeps it so):
//!
//! | folder | what it holds |
//! |--------|---------------|
//! | `testing` | generators, fuzz entry points, campaigns, reduction, statistics |
//! | `pipeline.rs` | the one function that lists the passes and runs the checkers between them |
//! | `backend.rs` | the `Backend` trait (SSA and K in, allocated machine IR out) and routes 1-3 behind it |
//! | `route1`, `route2`, `route3`, `machine` | Pereira + Pereira and Palsberg; Boissinot et al. + conventional allocators; regalloc2; x86-64 |
//! | `construction`, `checkers` | Braun et al. and the Cytron et al. reference; the independent checkers |
//! | `frontend` | lexer, parser, printer, case files |
//! | `analysis` | IR text form, verifier, dominance, liveness, loops, intervals, pressure |
//! | `types` (crate `ssaref-types`) | AST, SSA IR, machine IR, outcomes, the oracle interface |
//!
//! See ARCHITECTURE.md for the code map and the architecture invariants.

// The data types, re-exported from their crate (`src/types/`) so that the
// oracle can depend on them without depending on any pass.
pub use ssaref_types::{ast, diag, entity, error, ir, mir, op, oracle, outcome};

pub mod analysis;
pub mod backend;
pub mod checkers;
pub mod construction;
pub mod frontend;
pub mod machine;
pub mod pipeline;
pub mod route1;
pub mod route2;
pub mod route3;
pub mod testing;
