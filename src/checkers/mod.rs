//! The independent checkers: the SSA properties Braun et al. prove (pruned,
//! no trivial phi, minimal, phi count against Cytron et al.), the
//! allocation checker (which SSA value each location holds; no register
//! outside the K allocatable ones), out-of-ssa's class check after coalescing
//! and an independent CSSA check (`class_interference_check.rs`), and ssa-ra's
//! chordal optimum and frugal slots (`coloring_check.rs`). Where an edge
//! sits in its successor's predecessor list, they ask their own index
//! (`edge_positions.rs`), not the passes'.
//!
//! May import: the data types and `analysis`. Architecture invariant: a
//! checker never imports the pass it checks, so a bug cannot be shared
//! between them. The passes import the checkers, never the other way.

pub mod alloc_checker;
mod alloc_checker_calls;
pub mod alloc_checker_memo;
mod alloc_checker_states;
mod alloc_checker_states_recomputation;
pub mod class_interference_check;
pub mod coloring_check;
mod edge_positions;
pub mod ssa_properties;
