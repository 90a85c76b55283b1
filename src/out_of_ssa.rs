//! Out-of-SSA translation, route 2: Boissinot et al., "Revisiting Out-of-SSA
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
//! | 3 | values, liveness (sets or the check of §IV-A), loop depths, affinities | — |
//! | 4 | coalescing with the chosen variant (§III-B, §III-E, `coalescing.rs`) | no two members of a class interfere by value (every pair) |
//! | 5 | one variable per class, phis dropped, every parallel copy sequentialized by Algorithm 1 (§III-C) with one fresh variable for cycles, self-copies removed | conventional-form verifier; the renaming constraints on the result, with liveness recomputed (`renaming_constraints::check_constraints`) |
//!
//! For `SreedharIII`, steps 2 to 4 are replaced by the virtualized
//! algorithm of §IV-C (`virtualization.rs`): no Method I copy is inserted,
//! the copies that cannot be coalesced are materialized and inserted at the
//! end, and the check of step 4 runs on that program.
//!
//! The interference that coalescing must respect is value-based
//! interference (§III-A): every variant merges classes by a test at least
//! as strict (`proofs-notes/out-of-ssa.md`), so one check serves all.

use crate::coalescing::{
    affinities, class_lists, coalesce, depth_weight, ClassTest, Coalescing, CoalescingOptions, CoalescingVariant,
    InterferenceGraph,
};
use crate::copy_insertion::insert_copies;
use crate::cssa::check_cssa;
use crate::dominance::DomTree;
use crate::entity::EntityVec;
use crate::ir::{Block, BlockData, Function, Inst, Module, Op, Terminator, Value};
use crate::liveness::{compute_liveness, Liveness};
use crate::liveness_check::LivenessCheck;
use crate::loops::loop_depth;
use crate::pipeline::PassError;
use crate::renaming_constraints::{check_constraints, is_constrained, split_divisions, Pins};
use crate::sequentialize::sequentialize_parallel_copy;
use crate::values::{value_interfere, CopyGroups, LivenessSource, ValueInterference};
use crate::verifier::{verify_conventional, verify_function};
use rustc_hash::FxHashSet;

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

/// Options of [`translate_out_of_ssa`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct OutOfSsaOptions {
    pub variant: CoalescingVariant,
    pub liveness: LivenessMethod,
    pub class_test: ClassTest,
    /// Run the checkers between the steps (see the module documentation).
    /// The input is verified either way.
    pub check: bool,
    /// Answer every linear class query with the quadratic test too
    /// (counted in [`OutOfSsaReport::linear_mismatches`]).
    pub cross_check: bool,
    /// Pin the dividend and the result of every division to the registers
    /// of x86's `idiv` (§III-D); the pins come back in
    /// [`OutOfSsa::pins`] for the register allocator.
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

    /// The comparison configuration of §IV-D: Sreedhar III with an
    /// interference graph and liveness sets, checks on.
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

/// What [`translate_out_of_ssa`] did, for statistics.
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
    }
}

pub(crate) fn fail(f: &Function, check: &'static str, message: String) -> PassError {
    PassError { pass: format!("out-of-SSA ({})", f.name), check, message }
}

/// Splits every edge `br c, S, S` into a block `S` with phis: the second
/// edge goes through a new block. Returns the number of blocks added.
fn split_duplicate_edges(f: &mut Function) -> usize {
    let mut added = 0;
    for b in f.blocks.keys().collect::<Vec<_>>() {
        let Terminator::Branch { cond, then_dest, else_dest } = f.blocks[b].term else { continue };
        if then_dest != else_dest || f.blocks[then_dest].phis.is_empty() {
            continue;
        }
        let Some(index) = crate::liveness::pred_index(f, b, else_dest, 1) else { continue };
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

pub(crate) fn count_copies(f: &Function) -> usize {
    f.blocks.values().flat_map(|d| &d.insts).filter(|i| matches!(i.op, Op::Copy(_))).count()
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
    verify_function(f).map_err(|e| fail(f, "SSA verifier (input)", e.to_string()))?;
    let mut report = OutOfSsaReport { original_copies: count_copies(f), ..Default::default() };
    // Steps 1, 1b and 2.
    let mut g = f.clone();
    report.split_edges = split_duplicate_edges(&mut g);
    let pins = if opts.renaming_constraints { split_divisions(&mut g) } else { Pins::none() };
    report.pinned_divisions = g.blocks.values().flat_map(|d| &d.insts).filter(|i| is_constrained(i, &pins)).count();
    if opts.variant == CoalescingVariant::SreedharIII {
        // Method III: copies are materialized on the fly (§IV-C).
        let (function, pins, report) = crate::virtualization::translate_virtualized(f, g, pins, report, opts)?;
        return check_pins(f, opts, OutOfSsa { function, pins, report });
    }
    let inserted = insert_copies(&mut g);
    report.inserted_copies = inserted.len();
    if opts.check {
        verify_function(&g).map_err(|e| fail(f, "SSA verifier (after Method I)", e.to_string()))?;
        check_cssa(&g).map_err(|e| fail(f, "CSSA (Lemma 1)", e.to_string()))?;
    }
    // Step 3.
    let groups = CopyGroups::from_inserted(&g, &inserted);
    let depth = loop_depth(&g);
    let affs = affinities(&g, &inserted, &depth);
    let need_sets = opts.liveness == LivenessMethod::Sets || opts.class_test == ClassTest::Graph;
    let sets: Option<Liveness> = need_sets.then(|| compute_liveness(&g));
    let check: Option<LivenessCheck> = (opts.liveness == LivenessMethod::Check).then(|| LivenessCheck::new(&g));
    let dom_owned;
    let dom: &DomTree = match &check {
        Some(c) => c.dom(),
        None => {
            dom_owned = DomTree::compute(&g);
            &dom_owned
        }
    };
    let source = match (&check, &sets) {
        (Some(c), _) => LivenessSource::Check(c),
        (None, Some(s)) => LivenessSource::Sets(s),
        (None, None) => unreachable!("one liveness method is always computed"),
    };
    let ctx = ValueInterference::with_source(&g, dom, source, &groups);
    let graph = match (&sets, opts.class_test) {
        (Some(live), ClassTest::Graph) => {
            let mut universe = FxHashSet::default();
            for a in &affs {
                universe.insert(a.dest);
                universe.insert(a.source);
            }
            for d in g.blocks.values() {
                for phi in &d.phis {
                    universe.insert(phi.dest);
                    universe.extend(phi.args.iter().copied());
                }
            }
            Some(InterferenceGraph::build(&g, live, &groups, &universe))
        }
        _ => None,
    };
    report.graph_edges = graph.as_ref().map_or(0, |gr| gr.edge_count());
    // Step 4.
    let copts = CoalescingOptions { variant: opts.variant, class_test: opts.class_test, cross_check: opts.cross_check };
    let result = coalesce(&g, &ctx, graph.as_ref(), &affs, copts, &pins);
    report.class_queries = result.class_queries;
    report.linear_mismatches = result.linear_mismatches;
    report.shared_copies = result.shared.len();
    let lists = class_lists(&result, result.class_of.keys().copied());
    report.classes = lists.len();
    if opts.check {
        for class in &lists {
            for (i, &a) in class.iter().enumerate() {
                for &b in &class[i + 1..] {
                    if value_interfere(&ctx, a, b) {
                        return Err(fail(
                            f,
                            "no interference in a class",
                            format!("{a} and {b} interfere but share a class ({})", opts.variant.name()),
                        ));
                    }
                }
            }
        }
    }
    // Step 5.
    let (function, pins) = rename_and_sequentialize(f, &g, &groups, &result, &pins, &depth, opts.check, &mut report)?;
    check_pins(f, opts, OutOfSsa { function, pins, report })
}

/// With `check` and `renaming_constraints`, checks the translation against
/// the renaming constraints, with liveness recomputed
/// (`renaming_constraints::check_constraints`).
fn check_pins(f: &Function, opts: &OutOfSsaOptions, t: OutOfSsa) -> Result<OutOfSsa, PassError> {
    if opts.check && opts.renaming_constraints {
        check_constraints(&t.function, &t.pins).map_err(|e| fail(f, "renaming constraints", e))?;
    }
    Ok(t)
}

/// Step 5 (see the module documentation): every variable of `g` renamed to
/// its class in `result`, phis dropped, each parallel copy of `groups`
/// renamed and sequentialized; counts the copies left into `report`.
/// Returns the function and its `pins` renamed. `f` is the input, for
/// error messages.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rename_and_sequentialize(
    f: &Function,
    g: &Function,
    groups: &CopyGroups,
    result: &Coalescing,
    pins: &Pins,
    depth: &EntityVec<Block, u32>,
    check: bool,
    report: &mut OutOfSsaReport,
) -> Result<(Function, Pins), PassError> {
    let mut h = g.clone();
    let rename = |v: Value| result.class(v);
    h.params = h.params.iter().map(|&p| rename(p)).collect();
    let mut spare: Option<Value> = None;
    for b in g.blocks.keys() {
        let data = &g.blocks[b];
        let ranges = groups.ranges(b);
        let mut insts: Vec<Inst> = Vec::with_capacity(data.insts.len());
        let mut i = 0;
        while i < data.insts.len() {
            if let Some(&(_, end)) = ranges.iter().find(|&&(s, _)| s as usize == i) {
                // A parallel copy: renamed, without self-copies, shared
                // copies and duplicate destinations, then sequentialized.
                let mut moves: Vec<(Value, Value)> = Vec::new();
                for inst in &data.insts[i..end as usize] {
                    let (Some(d), Op::Copy(s)) = (inst.dest, &inst.op) else {
                        return Err(fail(
                            f,
                            "parallel copy",
                            format!("a non-copy instruction in a parallel copy of {b}"),
                        ));
                    };
                    if result.shared.contains(&d) {
                        continue;
                    }
                    let (d, s) = (rename(d), rename(*s));
                    if d != s && !moves.iter().any(|&(x, _)| x == d) {
                        moves.push((d, s));
                    }
                }
                let spare_v = *spare.get_or_insert_with(|| h.new_value());
                let seq = sequentialize_parallel_copy(&moves, spare_v);
                report.cycle_copies += seq.len() - moves.len();
                insts.extend(seq.into_iter().map(|(d, s)| Inst { dest: Some(d), op: Op::Copy(s) }));
                i = end as usize;
                continue;
            }
            let inst = &data.insts[i];
            i += 1;
            if let (Some(d), Op::Copy(s)) = (inst.dest, &inst.op) {
                if result.shared.contains(&d) || rename(d) == rename(*s) {
                    continue;
                }
            }
            let mut op = inst.op.clone();
            op.map_args(rename);
            insts.push(Inst { dest: inst.dest.map(rename), op });
        }
        let hb = &mut h.blocks[b];
        hb.phis.clear();
        hb.insts = insts;
        hb.term.map_arg(rename);
    }
    report.remaining_copies = count_copies(&h);
    report.weighted_copies = h
        .blocks
        .iter()
        .map(|(b, d)| {
            let n = d.insts.iter().filter(|i| matches!(i.op, Op::Copy(_))).count() as u64;
            n.saturating_mul(depth_weight(depth.get(b).copied().unwrap_or(0)))
        })
        .fold(0u64, |a, x| a.saturating_add(x));
    let pins = pins.renamed(rename);
    if check {
        verify_conventional(&h).map_err(|e| fail(f, "conventional form", e.to_string()))?;
    }
    Ok((h, pins))
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
