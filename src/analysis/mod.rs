//! The SSA IR's text form, its verifier, and the analyses every later stage
//! shares: dominance, reducibility, strongly connected components, loops,
//! liveness, live intervals, register pressure, phi congruence classes,
//! critical-edge splitting (ssa-ra and regalloc2 both split before
//! allocating), the calling convention per K (data: the back ends, the
//! allocation checker and the x86-64 lowering all follow it), and the pass runner that ssa-ra and out-of-ssa share.
//!
//! May import: the data types (`crate::{ir, entity, ...}`) and nothing else
//! of the library. Every pass and checker above may import this folder; a
//! checker that reuses an analysis here cross-checks it against an
//! independent one (ARCHITECTURE.md).

pub mod calling_convention;
pub mod critical_edges;
pub mod cssa;
pub mod dominance;
pub mod intervals;
pub mod liveness;
pub mod loops;
pub mod pressure;
pub mod range_set;
pub mod reach;
pub mod reducibility;
pub mod scc;
pub mod set_fingerprint;
pub mod verifier;
pub mod work_steps;
