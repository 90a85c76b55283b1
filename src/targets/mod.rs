//! Production compilers under the oracle.

#[cfg(feature = "cranelift")]
pub mod cranelift;
