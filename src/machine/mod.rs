//! The machine level: allocated machine IR (`crate::mir`) lowered to x86-64
//! with iced-x86, the machine-code checker that decodes the bytes again,
//! and the Unicorn emulator that runs them.
//!
//! May import: the data types, and the calling convention
//! (`analysis/calling_convention.rs`, re-exported here as
//! `machine::calling_convention`). Architecture invariant: no pattern of
//! the lowering uses a register outside the K allocatable ones, and
//! `x86_check.rs` enforces it on the encoded bytes with iced-x86's own
//! instruction tables, not with the lowering's.

pub use crate::analysis::calling_convention;
pub mod emulator;
pub mod x86_check;
pub mod x86_check_stack;
pub mod x86_frames;
pub mod x86_lower;
pub mod x86_register_order;
