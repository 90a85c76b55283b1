//! Test-case reduction (`ssaref reduce`): a failing program made smaller
//! while it still fails the same way.
//!
//! - `source.rs`: source programs, by shrinking the AST.
//! - `ssa.rs`: SSA programs (`.ssa`), by removing blocks, phis and
//!   instructions while the verifier still accepts the function.
//!
//! May import: `generate` and everything below it.

pub mod source;
pub mod ssa;
