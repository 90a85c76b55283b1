//! How passes are run: the pass runner, which runs a pass, then its checks
//! when the check switch is on, and times it; the check switch itself and
//! the count of checkers that ran; the one clock every timing reads; and
//! the sampling of checkers that would be superlinear on large functions.
//!
//! May import: the data types and nothing else of the library. Every
//! folder above may import this one.

pub mod clock;
pub mod flags;
pub mod runner;
pub mod sampling;
pub mod self_checks;
