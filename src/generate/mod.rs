//! Program generation: random programs from a seed or from fuzzer bytes.
//!
//! - `source/`: source-level programs (the AST), sized by a statement
//!   budget, with loops that always terminate and the situations the papers
//!   name (lost copy, swap, critical edges, irreducible loops) made on
//!   purpose; also the shrinker of generated trees and the table of
//!   `ssaref gen --stats`.
//! - `ssa/`: SSA-level programs (`.ssa`), written directly as CFGs with
//!   phis, for shapes that no source program makes (`ssaref gen --ir`).
//!
//! May import: everything below it (`pipeline` and every stage). Nothing in
//! the passes imports this folder; campaigns, reduction, the evaluation,
//! the command line, the tests and the fuzz targets do.

pub mod source;
pub mod ssa;
