//! ssaref's integration tests, one binary with a module per subject (so the
//! library, Unicorn and regalloc2 are linked once).
//!
//! Test cases that are data rather than code live beside this folder:
//! `tests/cases/` and `tests/corpus/` (programs with their expected outcome
//! inline, run by `cases.rs` and `corpus.rs`), `tests/filetests/` (verifier,
//! text-form and checker cases with the expected error inline, run by
//! `filetests.rs`; one folder per pass under `tests/filetests/passes/`, IR in and IR out,
//! run by `pass_filetests.rs`), `tests/golden/` and `tests/open-bugs/`.

mod common;

mod algorithm_5_gate;
mod alloc_checker;
mod backend_comparison;
mod backend_names;
mod braun_textbook;
mod calling_convention;
mod calls;
mod calls_machine;
mod calls_planted;
mod calls_x86;
mod campaign;
mod cases;
mod check_switch;
mod checkers;
mod cli;
mod comments;
mod construction;
mod conventional_alloc;
mod copy_sharing_witnesses;
mod corpus;
#[cfg(feature = "cranelift")]
mod cranelift_target;
mod cssa_passes;
mod docs;
mod dominance;
mod error_types;
mod exhaustive_cfg;
mod external;
mod filetests;
mod fold;
mod function_length;
mod fuzz_merge;
mod fuzz_smoke;
mod generator;
mod golden_counts;
mod hostile;
mod implement_spartan;
mod independent_checkers;
mod interference_bitmatrix;
mod intervals_and_loops;
mod irgen;
mod layout;
mod liveness_check;
mod out_of_ssa;
mod out_of_ssa_calls;
mod out_of_ssa_translate;
mod parser;
mod pass_errors;
mod pass_filetests;
mod precolored_calls;
mod precolored_division;
mod properties;
mod reduce;
mod reduce_ssa;
mod regalloc;
mod regalloc2_backend;
mod regalloc_properties;
mod renaming_constraints;
mod reproduce;
mod rotation;
mod self_checks;
mod sequentialize;
mod spill_code_sources;
mod spill_during_coloring;
mod ssa_text;
mod stages;
mod targets;
mod upstream_regalloc2;
mod verifier;
mod verifier_contract;
mod virtualization;
mod worst_case_shapes;
mod x86;
