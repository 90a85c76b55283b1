//! ssaref: a verified reference implementation of SSA back-end algorithms.
//!
//! See ARCHITECTURE.md for the code map and the architecture invariants.

pub mod alloc_checker;
pub mod ast;
pub mod ast_print;
pub mod braun;
pub mod campaign;
pub mod cfg_lowering;
pub mod checkers;
pub mod class_interference;
pub mod coloring;
pub mod copy_insertion;
pub mod critical_edges;
pub mod cssa;
pub mod cytron;
pub mod diag;
pub mod dominance;
pub mod entity;
pub mod fold;
pub mod fuzzing;
pub mod gen;
pub mod implement_spartan;
pub mod intervals;
pub mod ir;
pub mod ir_text;
pub mod lexer;
pub mod liveness;
pub mod location_transfer_graph;
pub mod loops;
pub mod mir;
pub mod op;
pub mod oracle;
pub mod outcome;
pub mod parser;
pub mod phi_lifting;
pub mod phi_mem_coalesce;
pub mod pipeline;
pub mod pressure;
pub mod reducibility;
pub mod regalloc;
pub mod regalloc_stats;
pub mod sequentialize;
pub mod spill;
pub mod ssa_elimination;
pub mod values;
pub mod verifier;
