//! out-of-ssa: Boissinot et al.'s out-of-SSA translation (Method I with
//! parallel copies, value-based interference, the fast liveness check, the
//! linear class-interference test, the coalescing variants, virtualization,
//! register renaming constraints, parallel-copy sequentialization), then a
//! conventional allocator (spill-everything or linear scan) on the
//! phi-free program. `translate.rs` lists the translation's steps and
//! `conventional/` the allocators.
//!
//! May import: the data types, `analysis` and `checkers`. Never `ssa_ra`.

pub mod class_interference_linear;
pub mod class_interference_local;
pub mod class_intervals;
pub mod clobber_masks;
pub mod coalescing;
pub mod congruence_classes;
pub mod congruence_classes_recomputation;
pub mod conventional;
pub mod copy_insertion;
pub mod copy_sharing_witnesses;
pub mod copy_sharing_witnesses_recomputation;
pub mod interference_graph_bitmatrix;
pub mod liveness_check;
pub mod liveness_cross_check;
pub mod phi_candidate_conflicts;
pub mod rename;
pub mod renaming_constraints;
pub mod sequentialize;
pub mod translate;
pub mod translate_options;
pub mod values;
pub mod virtualization;
