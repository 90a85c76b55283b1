//! The options and the report of out-of-ssa's out-of-SSA translation
//! (`translate.rs`, and `virtualization.rs` for Sreedhar III), and the
//! error both return. Kept apart so that the two files import them from
//! below instead of from each other.

use crate::error::{CheckError, PassError};
use crate::ir::{Function, Op};
use crate::out_of_ssa::coalescing::{ClassTest, CoalescingVariant};

/// How liveness questions are answered.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum LivenessMethod {
    /// Live-in and live-out sets by dataflow (`liveness.rs`).
    Sets,
    /// The fast liveness check (`liveness_check.rs`), no sets.
    Check,
}

impl LivenessMethod {
    pub const ALL: [LivenessMethod; 2] = [LivenessMethod::Sets, LivenessMethod::Check];

    pub fn name(self) -> &'static str {
        match self {
            LivenessMethod::Sets => "sets",
            LivenessMethod::Check => "check",
        }
    }
}

/// Options of `translate::translate_out_of_ssa`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct OutOfSsaOptions {
    pub variant: CoalescingVariant,
    pub liveness: LivenessMethod,
    pub class_test: ClassTest,
    /// Run the checkers between the steps (see the module documentation).
    /// The input is verified either way.
    pub check: bool,
    /// The cheap cross-checks: answer every class query to which the
    /// linear test applies with the pairwise test too (counted in
    /// [`OutOfSsaReport::linear_mismatches`]; a mismatch is an error, with
    /// or without `check`), and compare the liveness sets with the liveness check
    /// (`liveness_cross_check.rs`) whichever method is in use.
    pub cross_check: bool,
    /// Pin the dividend and the result of every division to the registers
    /// of x86's `idiv` (§III-D); the pins come back in
    /// `translate::TranslatedFunction::pins` for the register allocator.
    pub renaming_constraints: bool,
}

impl OutOfSsaOptions {
    /// The fast configuration of §IV-D ("Us I + Linear + InterCheck +
    /// LiveCheck"): linear class test, liveness check, no graph, checks on.
    pub fn fast(variant: CoalescingVariant) -> Self {
        OutOfSsaOptions {
            variant,
            liveness: LivenessMethod::Check,
            class_test: ClassTest::Linear,
            check: true,
            cross_check: false,
            renaming_constraints: true,
        }
    }

    /// The first Sreedhar III baseline of §IV-D, the one the paper
    /// measured: liveness sets and the interference graph of every
    /// variable, a triangular bit matrix plus adjacency lists
    /// (`interference_graph_bitmatrix.rs`), checks on.
    pub fn sreedhar_iii_bitmatrix() -> Self {
        OutOfSsaOptions { class_test: ClassTest::BitMatrix, ..Self::sreedhar_iii_graph() }
    }

    /// The Sreedhar III baseline as the paper built it (§IV-D): liveness
    /// sets and the interference graph of the copy- and phi-related
    /// variables as a triangular bit matrix plus adjacency lists, checks on.
    pub fn sreedhar_iii_bitmatrix_related() -> Self {
        OutOfSsaOptions { class_test: ClassTest::BitMatrixRelated, ..Self::sreedhar_iii_graph() }
    }

    /// The second, cheaper Sreedhar III baseline: liveness sets and an
    /// interference graph over the copy- and phi-related variables only,
    /// stored as a hash set of edges (`coalescing::InterferenceGraph`),
    /// checks on.
    pub fn sreedhar_iii_graph() -> Self {
        OutOfSsaOptions {
            variant: CoalescingVariant::SreedharIII,
            liveness: LivenessMethod::Sets,
            class_test: ClassTest::Graph,
            check: true,
            cross_check: false,
            renaming_constraints: true,
        }
    }
}

impl Default for OutOfSsaOptions {
    fn default() -> Self {
        Self::fast(CoalescingVariant::Sharing)
    }
}

/// What `translate::translate_out_of_ssa` did, for statistics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutOfSsaReport {
    /// Edges split in step 1.
    pub split_edges: usize,
    /// Copies of the input function.
    pub original_copies: usize,
    /// Copies inserted by Method I (for Sreedhar III: materialized).
    pub inserted_copies: usize,
    /// Copy instructions of the result (static count), cycle-breaking
    /// copies included.
    pub remaining_copies: usize,
    /// Copies through the fresh variable that break a cycle.
    pub cycle_copies: usize,
    /// Copies removed by copy sharing.
    pub shared_copies: usize,
    /// The remaining copies weighted by `10^depth` of their block.
    pub weighted_copies: u64,
    /// Classes with more than one member.
    pub classes: usize,
    /// Class interference queries made by coalescing.
    pub class_queries: usize,
    /// Linear class queries whose quadratic answer differed (with
    /// `cross_check`; must be 0).
    pub linear_mismatches: usize,
    /// Edges of the interference graph, when one was built.
    pub graph_edges: usize,
    /// Divisions whose operands were pinned (§III-D).
    pub pinned_divisions: usize,
    /// Variables made to pin the arguments and results of calls (§III-D).
    pub pinned_call_variables: usize,
}

impl OutOfSsaReport {
    /// Adds the counts of `other`.
    pub fn add(&mut self, other: &OutOfSsaReport) {
        self.split_edges += other.split_edges;
        self.original_copies += other.original_copies;
        self.inserted_copies += other.inserted_copies;
        self.remaining_copies += other.remaining_copies;
        self.cycle_copies += other.cycle_copies;
        self.shared_copies += other.shared_copies;
        self.weighted_copies = self.weighted_copies.saturating_add(other.weighted_copies);
        self.classes += other.classes;
        self.class_queries += other.class_queries;
        self.linear_mismatches += other.linear_mismatches;
        self.graph_edges += other.graph_edges;
        self.pinned_divisions += other.pinned_divisions;
        self.pinned_call_variables += other.pinned_call_variables;
    }
}

pub fn fail(f: &Function, check: &'static str, error: impl Into<CheckError>) -> PassError {
    PassError::new(format!("out-of-SSA ({})", f.name), check, error)
}

pub(crate) fn count_copies(f: &Function) -> usize {
    f.blocks.values().flat_map(|d| &d.insts).filter(|i| matches!(i.op, Op::Copy(_))).count()
}
