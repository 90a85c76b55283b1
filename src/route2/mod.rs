//! Route 2: Boissinot et al.'s out-of-SSA translation (Method I with
//! parallel copies, value-based interference, the fast liveness check, the
//! linear class-interference test, the coalescing variants, virtualization,
//! register renaming constraints, parallel-copy sequentialization), then a
//! conventional allocator (spill-everything or linear scan) on the
//! phi-free program. `out_of_ssa.rs` lists the translation's steps and
//! `conventional_alloc.rs` the allocators.
//!
//! May import: the data types, `analysis` and `checkers`. Never `route1`.

pub mod alloc_input;
pub mod class_interference;
pub mod class_interference_local;
pub mod class_intervals;
pub mod coalescing;
pub mod congruence_classes;
pub mod conventional_alloc;
pub mod copy_insertion;
pub mod copy_sharing_witnesses;
pub mod interference_graph_bitmatrix;
pub mod linear_scan;
pub mod liveness_check;
pub mod liveness_cross_check;
pub mod out_of_ssa;
pub mod out_of_ssa_options;
pub mod rename;
pub mod renaming_constraints;
pub mod sequentialize;
pub mod spill_everything;
pub mod values;
pub mod virtualization;
