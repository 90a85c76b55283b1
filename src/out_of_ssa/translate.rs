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
//! Steps 2, 4 and 5 run through the pass runner (`pass_manager/runner.rs`):
//! the step, then its checkers when `check` is on.
//!
//! For `SreedharIII`, steps 2 to 4 are replaced by the virtualized
//! algorithm of §IV-C (`virtualization.rs`): no Method I copy is inserted,
//! the copies that cannot be coalesced are materialized and inserted at the
//! end, and the check of step 4 runs on that program.
//!
//! The interference that coalescing must respect is value-based
//! interference (§III-A): every variant merges classes by a test at least
//! as strict (`proofs-notes/out-of-ssa.md`), so one check serves all.

use crate::analysis::cssa::check_cssa;
use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::{compute_liveness, Liveness};
use crate::analysis::loops::loop_depth;
use crate::analysis::verifier::verify_function;
use crate::checkers::class_interference_check::check_classes_do_not_interfere;
use crate::error::{CheckError, PassError, TranslateError};
use crate::ir::{BlockData, Function, Module, Terminator, Value};
use crate::out_of_ssa::coalescing::{
    affinities, class_lists, coalesce, Affinity, ClassTest, CoalescingOptions, CoalescingVariant, InterferenceGraph,
    InterferenceQuery,
};
use crate::out_of_ssa::copy_insertion::insert_copies;
use crate::out_of_ssa::interference_graph_bitmatrix::BitMatrixGraph;
use crate::out_of_ssa::liveness_check::LivenessCheck;
use crate::out_of_ssa::liveness_cross_check::cross_check_liveness;
use crate::out_of_ssa::rename::rename_and_sequentialize;
use crate::out_of_ssa::renaming_constraints::{check_constraints, is_constrained, split_divisions, Pins};
use crate::out_of_ssa::translate_options::{count_copies, fail};
pub use crate::out_of_ssa::translate_options::{LivenessMethod, OutOfSsaOptions, OutOfSsaReport};
use crate::out_of_ssa::values::{CopyGroups, LivenessSource, ValueInterference};
use crate::pass_manager::runner::PassRunner;
use rustc_hash::FxHashSet;

/// Splits every edge `br c, S, S` into a block `S` with phis: the second
/// edge goes through a new block. Returns the number of blocks added.
fn split_duplicate_edges(f: &mut Function) -> usize {
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
pub struct OutOfSsa {
    pub function: Function,
    /// The variables pinned to rax and rdx (at most one each), empty
    /// without [`OutOfSsaOptions::renaming_constraints`].
    pub pins: Pins,
    pub report: OutOfSsaReport,
}

/// Translates `f` out of SSA form (see the module documentation); the pins
/// are dropped (see [`translate_function`]).
pub fn translate_out_of_ssa(f: &Function, opts: &OutOfSsaOptions) -> Result<(Function, OutOfSsaReport), PassError> {
    translate_function(f, opts).map(|t| (t.function, t.report))
}

/// Translates `f` out of SSA form (see the module documentation).
pub fn translate_function(f: &Function, opts: &OutOfSsaOptions) -> Result<OutOfSsa, PassError> {
    // The input is always verified, so that bad input is an error and never
    // a panic in a later step.
    verify_function(f).map_err(|e| fail(f, "SSA verifier (input)", e))?;
    translate_verified(f, f.clone(), opts)
}

/// [`translate_function`] without its first two steps, verifying `f` and
/// copying it: `f` must have passed `verify_function` and `g` must equal
/// `f` (the copy the translation rewrites). The §IV-D measurement
/// (`evaluation/out_of_ssa_bench.rs`) calls it to leave both steps out of
/// its timed region, as the paper's timings of the translation do.
pub fn translate_verified(f: &Function, mut g: Function, opts: &OutOfSsaOptions) -> Result<OutOfSsa, PassError> {
    // The checkers and cross-checks run when asked and when checks are on
    // (`pass_manager/self_checks.rs`).
    let on = crate::pass_manager::self_checks::enabled();
    let opts = &OutOfSsaOptions { check: opts.check && on, cross_check: opts.cross_check && on, ..*opts };
    if opts.cross_check {
        crate::pass_manager::self_checks::count();
    }
    let mut report = OutOfSsaReport { original_copies: count_copies(f), ..Default::default() };
    // Steps 1, 1b and 2.
    report.split_edges = split_duplicate_edges(&mut g);
    let pins = if opts.renaming_constraints { split_divisions(&mut g) } else { Pins::none() };
    report.pinned_divisions = g.blocks.values().flat_map(|d| &d.insts).filter(|i| is_constrained(i, &pins)).count();
    let mut steps = PassRunner::new(opts.check);
    if opts.variant == CoalescingVariant::SreedharIII {
        // Method III: copies are materialized on the fly (§IV-C); its steps
        // run their checkers themselves.
        let (function, pins, report) = steps.run(
            "virtualization",
            || crate::out_of_ssa::virtualization::translate_virtualized(f, g, pins, report, opts),
            |(function, pins, _)| check_pins(f, opts, function, pins),
        )?;
        return Ok(OutOfSsa { function, pins, report });
    }
    let inserted = steps.rewrite(
        "Method I",
        &mut g,
        |g| Ok(insert_copies(g)),
        |g, _| {
            verify_function(g).map_err(|e| fail(f, "SSA verifier (after Method I)", e))?;
            check_cssa(g).map_err(|e| fail(f, "CSSA (Lemma 1)", e))
        },
    )?;
    report.inserted_copies = inserted.len();
    // Step 3.
    let groups = CopyGroups::from_inserted(&g, &inserted);
    let depth = loop_depth(&g);
    let affs = affinities(&g, &inserted, &depth);
    let need_sets = opts.liveness == LivenessMethod::Sets || opts.class_test.uses_graph() || opts.cross_check;
    let sets: Option<Liveness> = need_sets.then(|| compute_liveness(&g));
    let need_check = opts.liveness == LivenessMethod::Check || opts.cross_check;
    let check: Option<LivenessCheck> = need_check.then(|| LivenessCheck::new(&g));
    if let (true, Some(s), Some(c)) = (opts.cross_check, &sets, &check) {
        cross_check_liveness(&g, s, c).map_err(|e| fail(f, "liveness sets = liveness check (cross-check)", e))?;
    }
    let dom_owned;
    let dom: &DomTree = match &check {
        Some(c) => c.dom(),
        None => {
            dom_owned = DomTree::compute(&g);
            &dom_owned
        }
    };
    let source = match (opts.liveness, &check, &sets) {
        (LivenessMethod::Check, Some(c), _) => LivenessSource::Check(c),
        (LivenessMethod::Sets, _, Some(s)) => LivenessSource::Sets(s),
        _ => unreachable!("the configured liveness method is always computed"),
    };
    let ctx = ValueInterference::with_source(&g, dom, source, &groups);
    // The two baselines of §IV-D (see `coalescing.rs`, "Class tests").
    let edge_set = match (&sets, opts.class_test) {
        (Some(live), ClassTest::Graph) => {
            Some(InterferenceGraph::build(&g, live, &groups, &related_variables(&g, &affs)))
        }
        _ => None,
    };
    let bit_matrix = match (&sets, opts.class_test) {
        (Some(live), ClassTest::BitMatrix) => Some(BitMatrixGraph::build(&g, live, &groups)),
        (Some(live), ClassTest::BitMatrixRelated) => {
            Some(BitMatrixGraph::build_over(&g, live, &groups, &related_variables(&g, &affs)))
        }
        _ => None,
    };
    let graph: Option<&dyn InterferenceQuery> = match (&edge_set, &bit_matrix) {
        (Some(e), _) => Some(e),
        (None, Some(m)) => Some(m),
        (None, None) => None,
    };
    report.graph_edges = graph.map_or(0, |gr| gr.edge_count());
    // Step 4. The cross-check of the linear class test is part of the
    // step: it runs with `cross_check`, checks on or off.
    let copts = CoalescingOptions { variant: opts.variant, class_test: opts.class_test, cross_check: opts.cross_check };
    let (result, lists) = steps.run(
        "coalescing",
        || {
            let result = coalesce(&g, &ctx, graph, &affs, copts, &pins);
            if opts.cross_check && result.linear_mismatches > 0 {
                let error = TranslateError::ClassTestsDisagree {
                    mismatches: result.linear_mismatches,
                    queries: result.class_queries,
                    variant: opts.variant.name(),
                    class_test: opts.class_test.name(),
                };
                return Err(fail(f, "linear class test = quadratic (cross-check)", error));
            }
            let lists = class_lists(&result, result.class_of.keys().copied());
            Ok((result, lists))
        },
        |(_, lists)| {
            check_classes_do_not_interfere(&g, &groups.all_ranges(&g), lists).map_err(|error| {
                fail(
                    f,
                    "no interference in a class",
                    CheckError::ClassInterference { error, variant: opts.variant.name() },
                )
            })
        },
    )?;
    report.class_queries = result.class_queries;
    report.linear_mismatches = result.linear_mismatches;
    report.shared_copies = result.shared.len();
    report.classes = lists.len();
    // Step 5; the conventional-form verifier runs inside it.
    let (function, pins) = steps.run(
        "rename",
        || rename_and_sequentialize(f, &g, &groups, &result, &pins, &depth, opts.check, &mut report),
        |(function, pins)| check_pins(f, opts, function, pins),
    )?;
    Ok(OutOfSsa { function, pins, report })
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
fn check_pins(f: &Function, opts: &OutOfSsaOptions, function: &Function, pins: &Pins) -> Result<(), PassError> {
    if opts.renaming_constraints {
        check_constraints(function, pins).map_err(|e| fail(f, "renaming constraints", e))?;
    }
    Ok(())
}

/// Translates every function of `m`; the reports are summed and the pins
/// dropped (see [`translate_module_with_pins`]).
pub fn translate_module(m: &Module, opts: &OutOfSsaOptions) -> Result<(Module, OutOfSsaReport), PassError> {
    translate_module_with_pins(m, opts).map(|(module, _, report)| (module, report))
}

/// Translates every function of `m`; returns the pins of each function, in
/// order, and the summed reports.
pub fn translate_module_with_pins(
    m: &Module,
    opts: &OutOfSsaOptions,
) -> Result<(Module, Vec<Pins>, OutOfSsaReport), PassError> {
    let mut out = Module::default();
    let mut pins = Vec::with_capacity(m.functions.len());
    let mut report = OutOfSsaReport::default();
    for f in &m.functions {
        let t = translate_function(f, opts)?;
        report.add(&t.report);
        out.functions.push(t.function);
        pins.push(t.pins);
    }
    Ok((out, pins, report))
}
