//! One interface for back ends: SSA and K in, allocated machine IR out.
//!
//! A back end is anything that turns ssaref's SSA ([`crate::ir::Module`],
//! after Braun et al.'s construction) into allocated machine IR
//! ([`crate::mir::MModule`]) for K registers: ssaref's ssa-ra (Pereira,
//! then Pereira and Palsberg), out-of-ssa (Boissinot et al., then a
//! conventional allocator), the regalloc2 crate, or a user's own allocator.
//! [`crate::pipeline::compile`] runs one back end between the construction
//! and the x86-64 lowering; [`crate::differential::differential_full`] runs
//! every back end of its [`crate::differential::DiffConfig`] the same way.
//! Neither trusts a back end: on every back end's output they run ssaref's
//! allocation checker
//! (`checkers/alloc_checker.rs`, with `check_no_scratch`), the x86-64
//! lowering and the machine-code checker; the differential check also runs
//! the machine IR in the oracle and the machine code under Unicorn, and
//! compares every outcome with the source program's. Campaigns (`campaign/driver.rs`), `ssaref repro` and
//! the reducer (`reduce/source.rs`) take the same list of back ends.
//!
//! A back end may also show the oracle programs of its own to run before
//! the machine IR, through the observer its [`Backend::prepare`] and
//! [`Backend::allocate`] are given (`pass_manager/runner.rs`'s
//! `Observer`): ssa-ra shows the SSA after each of its passes, as the pass
//! runner produces it, out-of-ssa its destructed program. Each must compute
//! the source's outcome too. The differential driver's observer runs the
//! oracle on it there and then; other callers pass `Unobserved`.
//!
//! The three built-in back ends are [`SsaRa`] (one option set, `ssa_ra.rs`), [`OutOfSsa`]
//! (one configuration) and [`Regalloc2`], at the end of this file; each
//! only calls its back end's entry points (`ssa_ra/regalloc.rs`,
//! `out_of_ssa/translate.rs` and `out_of_ssa/conventional/`,
//! `regalloc2/allocate.rs`) and names its stages.
//!
//! # Example
//!
//! A back end that gives up on every program (a real one is in
//! `examples/naive_allocator.rs`):
//!
//! ```
//! use ssaref::backend::{Backend, Prepared};
//! use ssaref::error::{PassError, SpillError};
//! use ssaref::ir::Module;
//! use ssaref::mir::MModule;
//! use ssaref::pass_manager::flags::Flags;
//! use ssaref::pass_manager::runner::Observer;
//!
//! struct GiveUp;
//!
//! impl Backend for GiveUp {
//!     fn name(&self) -> String {
//!         "give-up".to_string()
//!     }
//!     fn allocate(
//!         &self,
//!         _ssa: &Module,
//!         _prepared: &Prepared,
//!         k: usize,
//!         _flags: Flags,
//!         _stages: &mut dyn Observer<Module>,
//!     ) -> Result<MModule, PassError> {
//!         Err(PassError::new(format!("give-up[k={k}]"), "allocate", SpillError::TooFewRegisters { k }))
//!     }
//! }
//!
//! let b = GiveUp;
//! assert_eq!(b.stage_names(4), ("give-up[k=4]".to_string(), "x86-give-up[k=4]".to_string()));
//! ```
//!
//! With it in `DiffConfig::backends`, every program fails with
//! `Verdict::CheckFailed` at pass `give-up[k=K]`.

mod interface;
pub mod out_of_ssa;
pub mod regalloc2;
pub mod ssa_ra;
mod ssa_ra_k_independent;

pub use interface::{family, Backend, Prepared};
pub use out_of_ssa::{print_destructed, OutOfSsa};
pub use regalloc2::Regalloc2;
pub use ssa_ra::SsaRa;
