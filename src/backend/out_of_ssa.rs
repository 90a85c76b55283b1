//! out-of-ssa: Boissinot et al.'s out-of-SSA translation ("Revisiting
//! Out-of-SSA Translation for Correctness, Code Quality, and Efficiency",
//! CGO 2009), then a conventional register allocator. Its pass list is
//! [`translate_function`] then [`allocate_function`], each step through
//! the pass runner (`pass_manager/runner.rs`), followed by its checks when
//! the check switch is on:
//!
//! | step | what | checked after it |
//! |---|---|---|
//! | 1 | split the edges `br c, S, S` into a block with phis (`out_of_ssa/translate.rs`); with renaming constraints, pin the operands and results of divisions to rax and rdx, and the arguments and results of calls to their roles in the calling convention (§III-D, `out_of_ssa/renaming_constraints.rs`) | — |
//! | 2 | Method I with parallel copies (§II-A, `out_of_ssa/copy_insertion.rs`) | SSA verifier, CSSA (Lemma 1) |
//! | 3 | values, liveness (sets or the check of §IV-A), loop depths, affinities (`CoalescingInputs`) | with `cross_check`: the sets against the check |
//! | 4 | coalescing with the chosen variant (§III-B, §III-E, `out_of_ssa/coalescing.rs`) | with `cross_check`: the linear class test agrees with the pairwise one; no two members of a class interfere by value (`checkers/class_interference_check.rs`) |
//! | 5 | one variable per class, phis dropped, every parallel copy sequentialized by Algorithm 1 (§III-C, `out_of_ssa/rename.rs`, `out_of_ssa/sequentialize.rs`) | conventional-form verifier (inside); the renaming constraints, with liveness recomputed |
//! | — | for Sreedhar III, steps 2 to 5 are the virtualized algorithm of §IV-C (`out_of_ssa/virtualization.rs`) | its checkers (inside); the renaming constraints |
//! | 6 | the conventional allocator: linear scan or spill everything (`out_of_ssa/conventional/`), with the calling convention of K in a module with calls | no scratch register, ssaref's allocation checker |

use super::interface::{Backend, Prepared};
use crate::checkers::alloc_checker;
use crate::checkers::class_interference_check::check_classes_do_not_interfere;
use crate::error::{CheckError, PassError, TranslateError};
use crate::ir::{Function, Module, Value};
use crate::mir::{MFunction, MModule};
use crate::out_of_ssa::coalescing::{
    class_lists, coalesce, Coalescing, CoalescingOptions, CoalescingVariant, InterferenceQuery,
};
use crate::out_of_ssa::conventional::alloc_input::fail as conventional_fail;
use crate::out_of_ssa::conventional::ConventionalAllocator;
use crate::out_of_ssa::copy_insertion::insert_copies;
use crate::out_of_ssa::rename::rename_and_sequentialize;
use crate::out_of_ssa::renaming_constraints::{is_constrained_division, split_calls, split_divisions, Pins};
use crate::out_of_ssa::translate::{
    check_pins, split_duplicate_edges, CoalescingInputs, TranslatedFunction as Translation,
};
use crate::out_of_ssa::translate_options::{count_copies, fail, OutOfSsaOptions, OutOfSsaReport};
use crate::out_of_ssa::values::ValueInterference;
use crate::pass_manager::flags::Flags;
use crate::pass_manager::runner::{Observer, PassRunner};
use std::sync::Arc;

/// Boissinot et al.'s translation of `f` out of SSA form, each step
/// followed by its checks when `flags` say so (the table of the module
/// documentation). The input is always verified, so that bad input is an
/// error and never a panic in a later step.
pub fn translate_function(f: &Function, opts: &OutOfSsaOptions, flags: Flags) -> Result<Translation, PassError> {
    crate::analysis::verifier::verify_function(f).map_err(|e| fail(f, "SSA verifier (input)", e))?;
    translate_verified(f, f.clone(), opts, flags)
}

/// [`translate_function`] without verifying `f` and copying it: `f` must
/// have passed the verifier and `g` must equal `f` (the copy the
/// translation rewrites). The §IV-D measurement
/// (`evaluation/out_of_ssa_bench.rs`) leaves both out of its timed region,
/// as the paper's timings of the translation do.
pub fn translate_verified(
    f: &Function,
    mut g: Function,
    opts: &OutOfSsaOptions,
    flags: Flags,
) -> Result<Translation, PassError> {
    let opts = &OutOfSsaOptions {
        check: opts.check && flags.checks(),
        cross_check: opts.cross_check && flags.checks(),
        ..*opts
    };
    let mut steps = PassRunner::new(Flags::with_checks(opts.check));
    if opts.cross_check {
        crate::pass_manager::self_checks::count();
    }
    let mut report = OutOfSsaReport { original_copies: count_copies(f), ..Default::default() };
    // Step 1.
    let (split_edges, pins, call_variables) = steps.rewrite(
        "split-edges",
        &mut g,
        |g| {
            let split = split_duplicate_edges(g);
            let (mut pins, mut call_variables) = (Pins::none(), 0);
            if opts.renaming_constraints {
                pins = split_divisions(g);
                let before = g.value_count;
                split_calls(g, &mut pins);
                call_variables = (g.value_count - before) as usize;
            }
            Ok((split, pins, call_variables))
        },
        |_, _| Ok(()),
    )?;
    report.split_edges = split_edges;
    report.pinned_call_variables = call_variables;
    report.pinned_divisions =
        g.blocks.values().flat_map(|d| &d.insts).filter(|i| is_constrained_division(i, &pins)).count();
    if opts.variant == CoalescingVariant::SreedharIII {
        // Steps 2 to 5 virtualized (§IV-C); its steps run their checkers
        // themselves.
        let (function, pins, report) = steps.run(
            "virtualization",
            || crate::out_of_ssa::virtualization::translate_virtualized(f, g, pins, report, opts),
            |(function, pins, _)| check_pins(f, opts, function, pins),
        )?;
        return Ok(Translation { function, pins, report });
    }
    // Step 2.
    let inserted = steps.rewrite(
        "Method I",
        &mut g,
        |g| Ok(insert_copies(g)),
        |g, _| {
            crate::analysis::verifier::verify_function(g).map_err(|e| fail(f, "SSA verifier (after Method I)", e))?;
            crate::analysis::cssa::check_cssa(g).map_err(|e| fail(f, "CSSA (Lemma 1)", e))
        },
    )?;
    report.inserted_copies = inserted.len();
    // Step 3, with the cross-check of the two liveness methods.
    let inputs = steps.run(
        "liveness",
        || Ok(CoalescingInputs::compute(&g, &inserted, opts)),
        |inputs| if opts.cross_check { inputs.cross_check(f, &g) } else { Ok(()) },
    )?;
    let ctx = ValueInterference::with_source(&g, inputs.dom(), inputs.liveness(opts.liveness), &inputs.groups);
    let graph = inputs.graph();
    report.graph_edges = graph.map_or(0, |gr| gr.edge_count());
    // Step 4.
    let (result, lists) = steps.run(
        "coalescing",
        || coalesce_classes(f, &g, &ctx, graph, &inputs, opts, &pins),
        |(_, lists)| check_classes(f, &g, &inputs, lists, opts.variant),
    )?;
    report.class_queries = result.class_queries;
    report.linear_mismatches = result.linear_mismatches;
    report.shared_copies = result.shared.len();
    report.classes = lists.len();
    // Step 5; the conventional-form verifier runs inside it.
    let (function, pins) = steps.run(
        "rename",
        || rename_and_sequentialize(f, &g, &inputs.groups, &result, &pins, &inputs.depth, opts.check, &mut report),
        |(function, pins)| check_pins(f, opts, function, pins),
    )?;
    Ok(Translation { function, pins, report })
}

/// Step 4: coalescing with the chosen variant, and the class lists. With
/// `cross_check`, the linear class test must agree with the pairwise one on
/// every query (part of the step, so that it runs whenever `cross_check`
/// is asked).
fn coalesce_classes(
    f: &Function,
    g: &Function,
    ctx: &ValueInterference<'_>,
    graph: Option<&dyn InterferenceQuery>,
    inputs: &CoalescingInputs,
    opts: &OutOfSsaOptions,
    pins: &Pins,
) -> Result<(Coalescing, Vec<Vec<Value>>), PassError> {
    let copts = CoalescingOptions { variant: opts.variant, class_test: opts.class_test, cross_check: opts.cross_check };
    let result = coalesce(g, ctx, graph, &inputs.affinities, copts, pins);
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
}

/// After step 4: no two members of a class interfere by value, by the
/// checker's own copy-chain values and liveness.
fn check_classes(
    f: &Function,
    g: &Function,
    inputs: &CoalescingInputs,
    lists: &[Vec<Value>],
    variant: CoalescingVariant,
) -> Result<(), PassError> {
    check_classes_do_not_interfere(g, &inputs.groups.all_ranges(g), lists).map_err(|error| {
        fail(f, "no interference in a class", CheckError::ClassInterference { error, variant: variant.name() })
    })
}

/// [`translate_function`] on every function of `m`; the pins of each
/// function, in order, and the summed reports.
pub fn translate_module_with_pins(
    m: &Module,
    opts: &OutOfSsaOptions,
    flags: Flags,
) -> Result<(Module, Vec<Pins>, OutOfSsaReport), PassError> {
    let mut out = Module::default();
    let mut pins = Vec::with_capacity(m.functions.len());
    let mut report = OutOfSsaReport::default();
    for f in &m.functions {
        let t = translate_function(f, opts, flags)?;
        report.add(&t.report);
        out.functions.push(t.function);
        pins.push(t.pins);
    }
    Ok((out, pins, report))
}

/// [`translate_module_with_pins`] without the pins.
pub fn translate_module(
    m: &Module,
    opts: &OutOfSsaOptions,
    flags: Flags,
) -> Result<(Module, OutOfSsaReport), PassError> {
    translate_module_with_pins(m, opts, flags).map(|(module, _, report)| (module, report))
}

/// Step 6: the conventional allocator `which` on a translated function,
/// with its pinned variables in their registers as far as `k` allows
/// (linear scan honors the pins; spill-everything meets the constraints of
/// every division and call by construction); each allocator first
/// validates its input. The function is taken as a module of its own: its
/// parameters follow the calling convention when it has calls
/// ([`allocate_function_in`]). Checked, when `flags` say so, by the
/// allocation checker and `check_no_scratch`.
pub fn allocate_function(
    f: &Function,
    pins: &Pins,
    k: usize,
    which: ConventionalAllocator,
    flags: Flags,
) -> Result<MFunction, PassError> {
    allocate_function_in(f, pins, false, k, which, flags)
}

/// [`allocate_function`] on a function of a module, which has calls when
/// `module_has_calls`: then the function's parameters and calls follow the
/// calling convention of `k` (`out_of_ssa/conventional/call_pins.rs`).
pub fn allocate_function_in(
    f: &Function,
    pins: &Pins,
    module_has_calls: bool,
    k: usize,
    which: ConventionalAllocator,
    flags: Flags,
) -> Result<MFunction, PassError> {
    let name = which.name();
    PassRunner::<Function>::new(flags).run(
        name,
        || crate::out_of_ssa::conventional::allocate(f, pins, module_has_calls, k, which),
        |mf| {
            alloc_checker::check_no_scratch(mf).map_err(|e| conventional_fail(name, "no-scratch-register", e))?;
            alloc_checker::check_allocation(mf).map_err(|e| conventional_fail(name, "allocation-checker", e))
        },
    )
}

/// [`allocate_function`] on every function of a translated module, with
/// its pins (`pins[i]` for function `i`; a function without an entry has
/// none).
pub fn allocate_module(
    m: &Module,
    pins: &[Pins],
    k: usize,
    which: ConventionalAllocator,
    flags: Flags,
) -> Result<MModule, PassError> {
    let none = Pins::none();
    let calls = m.has_calls();
    let functions = m
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| allocate_function_in(f, pins.get(i).unwrap_or(&none), calls, k, which, flags))
        .collect::<Result<_, _>>()?;
    Ok(MModule { functions })
}

/// One configuration of out-of-ssa: Boissinot et al.'s out-of-SSA translation
/// with a coalescing variant and a liveness method, then a conventional
/// register allocator. As a back end: the translation once per program
/// (stage `out-of-ssa[VARIANT,LIVENESS]`, with `,CLASS-TEST` unless the
/// class test is linear, shared by the configurations with
/// the same translation), then the allocator with the renaming
/// constraints' pins for each K (stages `out-of-ssa[k=K,CONFIG]` and
/// `x86-out-of-ssa[k=K,CONFIG]`, where `CONFIG` names the allocator too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfSsa {
    pub out_of_ssa: crate::out_of_ssa::translate::OutOfSsaOptions,
    pub allocator: crate::out_of_ssa::conventional::ConventionalAllocator,
}

impl OutOfSsa {
    /// Every variant × liveness method × allocator (28 configurations), in
    /// a fixed order, each with the fast configuration's linear class test
    /// and every checker and cross-check on (`OutOfSsaOptions::cross_check`);
    /// then the two Sreedhar III baselines of §IV-D with linear scan (the
    /// interference graph of every variable as a bit matrix, and the hash
    /// set of edges over the copy- and phi-related variables), so that
    /// campaigns test them too: 30 in all.
    pub fn all() -> Vec<OutOfSsa> {
        use crate::out_of_ssa::coalescing::CoalescingVariant;
        use crate::out_of_ssa::conventional::ConventionalAllocator;
        use crate::out_of_ssa::translate::{LivenessMethod, OutOfSsaOptions};
        let mut out = Vec::new();
        for allocator in ConventionalAllocator::ALL {
            for liveness in LivenessMethod::ALL {
                for variant in CoalescingVariant::ALL {
                    let out_of_ssa = OutOfSsaOptions { liveness, cross_check: true, ..OutOfSsaOptions::fast(variant) };
                    out.push(OutOfSsa { out_of_ssa, allocator });
                }
            }
        }
        for out_of_ssa in [OutOfSsaOptions::sreedhar_iii_bitmatrix(), OutOfSsaOptions::sreedhar_iii_graph()] {
            out.push(OutOfSsa { out_of_ssa, allocator: ConventionalAllocator::LinearScan });
        }
        out
    }

    /// With another class-interference test (`ClassTest`).
    pub fn with_class_test(mut self, class_test: crate::out_of_ssa::coalescing::ClassTest) -> OutOfSsa {
        self.out_of_ssa.class_test = class_test;
        self
    }

    /// The configuration of [`OutOfSsa::all`] that [`OutOfSsa::describe`]
    /// names, with its class test; `None` for anything else.
    pub fn from_description(s: &str) -> Option<OutOfSsa> {
        use crate::out_of_ssa::coalescing::ClassTest;
        let mut parts = s.split(',');
        let (variant, liveness, allocator) = (parts.next()?, parts.next()?, parts.next()?);
        let class_test = match parts.next() {
            Some(name) => ClassTest::from_name(name)?,
            None => ClassTest::Linear,
        };
        if parts.next().is_some() {
            return None;
        }
        OutOfSsa::all()
            .into_iter()
            .find(|r| {
                r.out_of_ssa.variant.slug() == variant
                    && r.out_of_ssa.liveness.name() == liveness
                    && r.allocator.name() == allocator
            })
            .map(|r| r.with_class_test(class_test))
    }

    /// The `i`-th configuration of [`OutOfSsa::all`], cyclically: a campaign
    /// gives program `i` configuration `i`, so that consecutive programs
    /// cover every configuration.
    pub fn rotation(i: u64) -> OutOfSsa {
        let all = OutOfSsa::all();
        all[(i % all.len() as u64) as usize]
    }

    /// `variant,liveness,allocator`, as in stage names, then `,CLASS-TEST`
    /// unless the class test is the linear one (`quadratic`, `graph-edge-set`,
    /// `graph-bitmatrix`).
    pub fn describe(&self) -> String {
        format!(
            "{},{},{}{}",
            self.out_of_ssa.variant.slug(),
            self.out_of_ssa.liveness.name(),
            self.allocator.name(),
            self.class_suffix()
        )
    }

    /// `,quadratic`, `,graph-edge-set` or `,graph-bitmatrix`; empty for the
    /// linear class test.
    fn class_suffix(&self) -> String {
        match self.out_of_ssa.class_test {
            crate::out_of_ssa::coalescing::ClassTest::Linear => String::new(),
            other => format!(",{}", other.name()),
        }
    }

    fn translate(&self, ssa: &Module, flags: Flags) -> Result<(Module, PinList), PassError> {
        let (destructed, pins, _) = translate_module_with_pins(ssa, &self.out_of_ssa, flags)?;
        Ok((destructed, pins))
    }
}

type PinList = Vec<crate::out_of_ssa::renaming_constraints::Pins>;

/// What out-of-ssa's preparation keeps for its allocations: the destructed
/// program and the variables each function pins.
struct Destructed {
    module: Module,
    pins: PinList,
}

impl Backend for OutOfSsa {
    fn name(&self) -> String {
        format!("out-of-ssa[{}]", self.describe())
    }

    fn stage_names(&self, k: usize) -> (String, String) {
        let tag = self.describe();
        (format!("out-of-ssa[k={k},{tag}]"), format!("x86-out-of-ssa[k={k},{tag}]"))
    }

    fn prepare_key(&self) -> String {
        let o = &self.out_of_ssa;
        format!("out-of-ssa[{},{}{}]", o.variant.slug(), o.liveness.name(), self.class_suffix())
    }

    fn prepare(&self, ssa: &Module, flags: Flags, stages: &mut dyn Observer<Module>) -> Result<Prepared, PassError> {
        let (destructed, pins) = self.translate(ssa, flags)?;
        // The destructed program has no phis; the oracle's SSA engine runs
        // it as a register machine over its variables.
        stages.after_pass(&self.prepare_key(), &destructed);
        Ok(Prepared { state: Some(Arc::new(Destructed { module: destructed, pins })) })
    }

    fn allocate(
        &self,
        ssa: &Module,
        prepared: &Prepared,
        k: usize,
        flags: Flags,
        stages: &mut dyn Observer<Module>,
    ) -> Result<MModule, PassError> {
        match prepared.state.as_ref().and_then(|s| s.downcast_ref::<Destructed>()) {
            Some(d) => allocate_module(&d.module, &d.pins, k, self.allocator, flags),
            // Not prepared by `prepare` (a caller's own `Prepared`): translate here.
            None => self.allocate(ssa, &self.prepare(ssa, flags, stages)?, k, flags, stages),
        }
    }

    fn report(&self, ssa: &Module, k: usize, flags: Flags) -> String {
        let tag = self.describe();
        let mut text = String::new();
        match self.translate(ssa, flags) {
            Ok((destructed, pins)) => {
                text.push_str(&format!("== out-of-ssa: out of SSA ({tag})\n"));
                text.push_str(&print_destructed(&destructed, &pins));
                match allocate_module(&destructed, &pins, k, self.allocator, flags) {
                    Ok(mir) => text.push_str(&format!(
                        "== out-of-ssa: allocated ({tag}, K = {k})\n{}",
                        crate::mir::print_module(&mir)
                    )),
                    Err(e) => text.push_str(&format!("== out-of-ssa: allocation with K = {k} failed: {e}\n")),
                }
            }
            Err(e) => text.push_str(&format!("== out-of-ssa: out-of-SSA ({tag}) failed: {e}\n")),
        }
        text
    }

    fn handles_calls(&self) -> bool {
        true
    }

    fn listing_title(&self, k: usize) -> String {
        format!("out-of-ssa: x86-64 ({}, K = {k})", self.describe())
    }
}

/// A destructed module in the IR text form, each function followed by a
/// comment naming its pinned variables (Boissinot et al. §III-D).
pub fn print_destructed(m: &Module, pins: &[crate::out_of_ssa::renaming_constraints::Pins]) -> String {
    let mut text = String::new();
    for (i, f) in m.functions.iter().enumerate() {
        text.push_str(&crate::ssa_text::print_function(f));
        if let Some(p) = pins.get(i).filter(|p| !p.is_empty()) {
            let list: Vec<String> = p.iter().map(|(v, r)| format!("{v} in {}", r.name())).collect();
            text.push_str(&format!("// pinned: {}\n", list.join(", ")));
        }
    }
    text
}
