//! Test-case reduction (`ssaref reduce`): a failing program made smaller
//! while it still fails the same way.
//!
//! - `source.rs`: source programs, by shrinking the AST.
//! - `ssa.rs`: SSA programs (`.ssa`), by removing blocks, phis and
//!   instructions while the verifier still accepts the function.
//! - `for_target.rs`: a case that fails on a production compiler
//!   (`targets/`), with the candidates of the two above.
//!
//! May import: `generate`, `targets` and everything below them.

pub mod for_target;
pub mod source;
pub mod ssa;
