//! ssa-ra, the default back end: Pereira's SSA-based register allocator
//! (one-argument phis to copies, critical-edge splitting, PhiLifting, PhiMemCoalesce, spilling, greedy
//! coloring in dominance order) followed by Pereira and Palsberg's
//! spill-free SSA elimination (spartan parallel copies, location transfer
//! graphs, ImplementSpartan with swaps, the §6 memory optimizations).
//! `regalloc.rs` lists the passes in order with the checker after each.
//!
//! May import: the data types, `analysis` and `checkers`. Never `out_of_ssa`:
//! the two routes are siblings, and what both need lives in `analysis`.

pub mod block_demand;
mod block_demand_check;
pub mod call_constraints;
pub mod coloring;
pub mod division_splits;
pub mod implement_spartan;
pub mod location_transfer_graph;
pub mod one_argument_phis;
pub mod phi_lifting;
pub mod phi_mem_coalesce;
pub mod precolors;
pub mod regalloc;
mod reload_recycling;
pub mod spill;
pub mod spill_code;
pub mod spill_during_coloring;
pub mod ssa_elimination;
