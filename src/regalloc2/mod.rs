//! regalloc2: regalloc2, the register allocator of Cranelift and Wasmtime,
//! on ssaref's SSA, as a back end ssaref did not write. The SSA after
//! critical-edge splitting becomes regalloc2's input (`adapter.rs`: phis as
//! block parameters, divisions with fixed registers and clobbers), in a
//! machine environment of exactly the first K registers and no scratch
//! register (`env.rs`); regalloc2's output becomes ssaref's allocated
//! machine IR (`to_mir.rs`), which regalloc2's own checker and ssaref's
//! allocation checker both check (`allocate.rs`, the entry point).
//!
//! May import: the data types, `analysis` and `checkers`, and the
//! `regalloc2` crate. Never `ssa_ra` or `out_of_ssa`: the routes are siblings,
//! and what they share (critical-edge splitting) lives in `analysis`.

pub mod adapter;
pub mod allocate;
pub mod env;
#[cfg(feature = "regalloc2-patched")]
pub mod patched;
pub mod run;
pub mod to_mir;

pub use allocate::{check_regalloc2, Regalloc2Report};
