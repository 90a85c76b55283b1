//! The front end of the source language: lexer, parser, the canonical
//! printer, and the case-file format (a program with its expected outcome).
//!
//! May import: the data types (`crate::{ast, diag, outcome, ...}`) and
//! `analysis`. Nothing here knows about SSA construction or any pass.

pub mod ast_print;
pub mod case_file;
pub mod lexer;
pub mod parser;
pub mod ssa_case_file;
