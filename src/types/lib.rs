//! The data types of ssaref: what a program is at each stage of the
//! pipeline, what running it gives, and the interface through which the
//! library reaches the oracle.
//!
//! This is a crate of its own (`ssaref-types`, folder `src/types/`) so that
//! the oracle (`ssaref-interp`, folder `interp/`) can depend on these types
//! and on nothing else of ssaref. The library `ssaref` re-exports every
//! module here at its root (`ssaref::ir`, `ssaref::ast`, ...), so users
//! name them as before.
//!
//! May import: only the standard library. Nothing here computes anything
//! about a program beyond what its own invariants need (an AST validates
//! itself, an IR function lists its blocks).
//!
//! Architecture invariant: no pass, analysis or checker lives in this crate.
//! A bug that the oracle could share with a pass would have to be in a data
//! type, and data types here carry no algorithm.

pub mod ast;
pub mod diag;
pub mod entity;
pub mod ir;
pub mod mir;
pub mod op;
pub mod oracle;
pub mod outcome;
