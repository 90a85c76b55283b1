//! regalloc2: regalloc2, the register allocator of Cranelift and Wasmtime,
//! on ssaref's SSA, as a back end ssaref did not write. The SSA after
//! critical-edge splitting becomes regalloc2's input (`adapter.rs`: phis as
//! block parameters, divisions with fixed registers and clobbers), in a
//! machine environment of exactly the first K registers and no scratch
//! register (`env.rs`); regalloc2's output becomes ssaref's allocated
//! machine IR (`to_mir.rs`), which regalloc2's own checker and ssaref's
//! allocation checker both check (`allocate.rs`, the entry point). The
//! allocation itself is the stock crate's, or with the feature
//! `regalloc2-patched` the patched copy of `upstream/regalloc2/patched`
//! (`allocator_crate.rs`, `patched.rs`).
//!
//! May import: the data types, `analysis` and `checkers`, and the
//! `regalloc2` crate (and `regalloc2_patched`, with the feature). Never
//! `ssa_ra` or `out_of_ssa`: the routes are siblings, and what they share
//! (critical-edge splitting) lives in `analysis`.

pub mod adapter;
pub mod allocate;
pub mod allocator_crate;
pub mod env;
#[cfg(feature = "regalloc2-patched")]
pub mod patched;
pub mod to_mir;

pub use allocate::{check_regalloc2, Regalloc2Report};
