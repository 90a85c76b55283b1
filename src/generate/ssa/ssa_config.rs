//! [`IrGenConfig`]: the sizes and rates of the IR-level generator.

/// Sizes and rates of the IR-level generator. The defaults make programs
/// of 2 to 14 blocks (plus latch blocks) that stay far below the oracle's
/// default fuel (see the module documentation, "Termination").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrGenConfig {
    /// Fewest blocks of the skeleton (at least 2), latch blocks not counted.
    pub min_blocks: u64,
    /// Most blocks of the skeleton, latch blocks not counted.
    pub max_blocks: u64,
    /// How far back (in block order) the spanning-tree parent of a block
    /// may be; small windows give deep, narrow CFGs.
    pub parent_window: usize,
    /// Most random instructions per block, besides the fuel, condition and
    /// phi-feed instructions.
    pub max_insts: u64,
    /// Most phis per join block, besides the fuel phi.
    pub max_phis: u64,
    /// Most parameters of `main`.
    pub max_params: u64,
    /// Largest initial fuel, the number of cycle-closing edges a run may
    /// take.
    pub max_fuel: u64,
    /// Percentage of divisions whose divisor is arbitrary (may trap).
    pub trap_percent: u64,
    /// Percentage of guarded edges that go through a latch block (a
    /// one-jump block, so that the back edge itself is not critical).
    pub latch_percent: u64,
    /// Percentage of single-predecessor blocks that get one or two
    /// one-argument phis (ssa-ra lowers them to copies,
    /// `ssa_ra/one_argument_phis.rs`; the case that showed why is
    /// `tests/cases/ssa_ra_one_argument_phi.ssa`).
    pub one_arg_phi_percent: u64,
    /// Modules of several functions with calls (`ir_calls.rs`); off by
    /// default, as at the source level (`GenConfig::calls`).
    pub calls: bool,
}

impl Default for IrGenConfig {
    fn default() -> Self {
        IrGenConfig {
            min_blocks: 2,
            max_blocks: 14,
            parent_window: 4,
            max_insts: 4,
            max_phis: 4,
            max_params: 3,
            max_fuel: 24,
            trap_percent: 6,
            latch_percent: 25,
            one_arg_phi_percent: 20,
            calls: false,
        }
    }
}
