//! ssaref: a verified reference implementation of SSA back-end algorithms.
//!
//! See ARCHITECTURE.md for the code map and the architecture invariants.

pub mod ast;
pub mod ast_print;
pub mod braun;
pub mod cfg_lowering;
pub mod checkers;
pub mod cytron;
pub mod diag;
pub mod dominance;
pub mod entity;
pub mod fold;
pub mod fuzzing;
pub mod ir;
pub mod ir_text;
pub mod lexer;
pub mod mir;
pub mod op;
pub mod oracle;
pub mod outcome;
pub mod parser;
pub mod pipeline;
pub mod reducibility;
pub mod verifier;
