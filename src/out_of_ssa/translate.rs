//! Out-of-SSA translation, out-of-ssa: Boissinot et al., "Revisiting Out-of-SSA
//! Translation for Correctness, Code Quality, and Efficiency" (CGO 2009),
//! §III (the four phases) with the fast variants of §IV.
//!
//! Needs: a function that passes the SSA verifier. Gives: a function in
//! conventional form (`verifier::verify_conventional`): no phis, and one
//! value number per congruence class, which may be assigned several times.
//! The oracle's SSA engine runs it as a register machine over value
//! numbers.
//!
//! | step | what | checked after it (with `check`) |
//! |------|------|---------------------------------|
//! | 1 | split the edges `br c, S, S` into a block with phis (the only edges Method I cannot place copies on, `copy_insertion.rs`) | — |
//! | 1b | with `renaming_constraints`: pin the operands and results of divisions to rax and rdx (§III-D, `renaming_constraints.rs`) | — |
//! | 2 | Method I with parallel copies (§II-A) | SSA verifier, CSSA (`cssa::check_cssa`, Lemma 1) |
//! | 3 | values, liveness (sets or the check of §IV-A), loop depths, affinities | with `cross_check`: the sets against the check (`liveness_cross_check.rs`) |
//! | 4 | coalescing with the chosen variant (§III-B, §III-E, `coalescing.rs`) | with `cross_check`: the linear class test agrees with the pairwise one; no two members of a class interfere by value (`checkers/class_interference_check.rs`: its own copy-chain values and liveness, not `values.rs`) |
//! | 5 | one variable per class, phis dropped, every parallel copy sequentialized by Algorithm 1 (§III-C) with one fresh variable for cycles, self-copies removed | conventional-form verifier; the renaming constraints on the result, with liveness recomputed (`renaming_constraints::check_constraints`) |
//!
//! The pass list is `translate_function` in `backend/out_of_ssa.rs`: each
//! step through the pass runner (`pass_manager/runner.rs`), the step, then
//! its checkers when the check switch is on. This file holds what the
//! steps share: edge splitting, the inputs of coalescing (step 3) and the
//! check of the renaming constraints.
//!
//! For `SreedharIII`, steps 2 to 4 are replaced by the virtualized
//! algorithm of §IV-C (`virtualization.rs`): no Method I copy is inserted,
//! the copies that cannot be coalesced are materialized and inserted at the
//! end, and the check of step 4 runs on that program.
//!
//! The interference that coalescing must respect is value-based
//! interference (§III-A): every variant merges classes by a test at least
//! as strict (`proofs-notes/out-of-ssa.md`), so one check serves all.

use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::{compute_liveness, Liveness};
use crate::analysis::loops::loop_depth;
use crate::error::PassError;
use crate::ir::{BlockData, Function, Terminator, Value};
use crate::out_of_ssa::coalescing::{affinities, Affinity, ClassTest, InterferenceGraph, InterferenceQuery};
use crate::out_of_ssa::interference_graph_bitmatrix::BitMatrixGraph;
use crate::out_of_ssa::liveness_check::LivenessCheck;
use crate::out_of_ssa::liveness_cross_check::cross_check_liveness;
use crate::out_of_ssa::renaming_constraints::{check_constraints, Pins};
use crate::out_of_ssa::translate_options::fail;
pub use crate::out_of_ssa::translate_options::{LivenessMethod, OutOfSsaOptions, OutOfSsaReport};
use crate::out_of_ssa::values::{CopyGroups, LivenessSource};
use rustc_hash::FxHashSet;

/// Splits every edge `br c, S, S` into a block `S` with phis: the second
/// edge goes through a new block. Returns the number of blocks added.
pub fn split_duplicate_edges(f: &mut Function) -> usize {
    let mut added = 0;
    for b in f.blocks.keys().collect::<Vec<_>>() {
        let Terminator::Branch { cond, then_dest, else_dest } = f.blocks[b].term else { continue };
        if then_dest != else_dest || f.blocks[then_dest].phis.is_empty() {
            continue;
        }
        let Some(index) = crate::analysis::liveness::pred_index(f, b, else_dest, 1) else { continue };
        let n = f.blocks.push(BlockData {
            preds: vec![b],
            phis: Vec::new(),
            insts: Vec::new(),
            term: Terminator::Jump(else_dest),
        });
        f.blocks[else_dest].preds[index] = n;
        f.blocks[b].term = Terminator::Branch { cond, then_dest, else_dest: n };
        added += 1;
    }
    added
}

/// A function translated out of SSA form, with the variables the register
/// allocator must put in fixed registers.
#[derive(Clone, Debug)]
pub struct TranslatedFunction {
    pub function: Function,
    /// The variables pinned to rax and rdx (at most one each), empty
    /// without [`OutOfSsaOptions::renaming_constraints`].
    pub pins: Pins,
    pub report: OutOfSsaReport,
}

/// What step 3 computes for coalescing (see the module documentation):
/// the copy groups, loop depths, affinities, and the liveness the chosen
/// method needs (the sets, the check of §IV-A, or both for the
/// cross-check), with the dominator tree and, for the two baselines of
/// §IV-D, the interference graph.
pub struct CoalescingInputs {
    pub groups: CopyGroups,
    pub depth: crate::entity::EntityVec<crate::ir::Block, u32>,
    pub affinities: Vec<Affinity>,
    pub sets: Option<Liveness>,
    pub check: Option<LivenessCheck>,
    dom: Option<DomTree>,
    edge_set: Option<InterferenceGraph>,
    bit_matrix: Option<BitMatrixGraph>,
}

impl CoalescingInputs {
    /// Step 3 on `g`, the program after Method I, whose inserted copies are
    /// `inserted`.
    pub fn compute(
        g: &Function,
        inserted: &[crate::out_of_ssa::copy_insertion::InsertedCopy],
        opts: &OutOfSsaOptions,
    ) -> Self {
        let groups = CopyGroups::from_inserted(g, inserted);
        let depth = loop_depth(g);
        let affinities = affinities(g, inserted, &depth);
        let need_sets = opts.liveness == LivenessMethod::Sets || opts.class_test.uses_graph() || opts.cross_check;
        let sets: Option<Liveness> = need_sets.then(|| compute_liveness(g));
        let need_check = opts.liveness == LivenessMethod::Check || opts.cross_check;
        let check: Option<LivenessCheck> = need_check.then(|| LivenessCheck::new(g));
        let dom = if check.is_some() { None } else { Some(DomTree::compute(g)) };
        // The two baselines of §IV-D (see `coalescing.rs`, "Class tests").
        let edge_set = match (&sets, opts.class_test) {
            (Some(live), ClassTest::Graph) => {
                Some(InterferenceGraph::build(g, live, &groups, &related_variables(g, &affinities)))
            }
            _ => None,
        };
        let bit_matrix = match (&sets, opts.class_test) {
            (Some(live), ClassTest::BitMatrix) => Some(BitMatrixGraph::build(g, live, &groups)),
            (Some(live), ClassTest::BitMatrixRelated) => {
                Some(BitMatrixGraph::build_over(g, live, &groups, &related_variables(g, &affinities)))
            }
            _ => None,
        };
        CoalescingInputs { groups, depth, affinities, sets, check, dom, edge_set, bit_matrix }
    }

    /// The dominator tree of the program.
    pub fn dom(&self) -> &DomTree {
        match (&self.check, &self.dom) {
            (Some(c), _) => c.dom(),
            (None, Some(d)) => d,
            (None, None) => unreachable!("the dominator tree is computed when the liveness check is not"),
        }
    }

    /// The liveness of `method`, which [`CoalescingInputs::compute`] computed.
    pub fn liveness(&self, method: LivenessMethod) -> LivenessSource<'_> {
        match (method, &self.check, &self.sets) {
            (LivenessMethod::Check, Some(c), _) => LivenessSource::Check(c),
            (LivenessMethod::Sets, _, Some(s)) => LivenessSource::Sets(s),
            _ => unreachable!("the configured liveness method is always computed"),
        }
    }

    /// The interference graph of a §IV-D baseline, if the class test uses one.
    pub fn graph(&self) -> Option<&dyn InterferenceQuery> {
        match (&self.edge_set, &self.bit_matrix) {
            (Some(e), _) => Some(e),
            (None, Some(m)) => Some(m),
            (None, None) => None,
        }
    }

    /// The liveness sets and the liveness check agree
    /// (`liveness_cross_check.rs`), when both were computed.
    pub fn cross_check(&self, f: &Function, g: &Function) -> Result<(), PassError> {
        match (&self.sets, &self.check) {
            (Some(s), Some(c)) => {
                cross_check_liveness(g, s, c).map_err(|e| fail(f, "liveness sets = liveness check (cross-check)", e))
            }
            _ => Ok(()),
        }
    }
}

/// The variables of `g` in a copy (an affinity of `affs`) or a phi: the
/// universe of the graphs of [`ClassTest::Graph`] and
/// [`ClassTest::BitMatrixRelated`].
fn related_variables(g: &Function, affs: &[Affinity]) -> FxHashSet<Value> {
    let mut universe = FxHashSet::default();
    for a in affs {
        universe.insert(a.dest);
        universe.insert(a.source);
    }
    for d in g.blocks.values() {
        for phi in &d.phis {
            universe.insert(phi.dest);
            universe.extend(phi.args.iter().copied());
        }
    }
    universe
}

/// With `renaming_constraints`, checks the translation against the renaming
/// constraints, with liveness recomputed
/// (`renaming_constraints::check_constraints`).
pub fn check_pins(f: &Function, opts: &OutOfSsaOptions, function: &Function, pins: &Pins) -> Result<(), PassError> {
    if opts.renaming_constraints {
        check_constraints(function, pins).map_err(|e| fail(f, "renaming constraints", e))?;
    }
    Ok(())
}
