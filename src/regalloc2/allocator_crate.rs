//! The regalloc2 crate the route allocates with: the stock crate, or, with
//! the feature `regalloc2-patched`, the copy of `upstream/regalloc2/patched`
//! (`patched.rs`; docs/scaling.md, "regalloc2"). Everything else of the
//! route (the adapter, `to_mir`, regalloc2's checker) reads the stock
//! crate's types either way.

use crate::regalloc2::adapter::Adapter;
#[cfg(not(feature = "regalloc2-patched"))]
use crate::regalloc2::env::machine_env;
use regalloc2::{Output, RegAllocError, RegallocOptions};

/// regalloc2's allocation of `adapter` in the first `k` registers.
pub fn run(adapter: &Adapter, k: usize, options: &RegallocOptions) -> Result<Output, RegAllocError> {
    #[cfg(feature = "regalloc2-patched")]
    return crate::regalloc2::patched::run(adapter, k, options);
    #[cfg(not(feature = "regalloc2-patched"))]
    regalloc2::run(adapter, &machine_env(k), options)
}
