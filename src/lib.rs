//! ssaref: a verified reference implementation of SSA back-end algorithms.
//!
//! See ARCHITECTURE.md for the code map and the architecture invariants.

pub mod ast;
pub mod dominance;
pub mod entity;
pub mod ir;
pub mod lexer;
pub mod op;
pub mod outcome;
