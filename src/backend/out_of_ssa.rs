//! out-of-ssa as a back end: Boissinot et al.'s out-of-SSA translation,
//! then a conventional allocator.

use super::interface::{Backend, BackendOutput, Prepared};
use crate::error::PassError;
use crate::ir::Module;
use std::sync::Arc;

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

    fn translate(&self, ssa: &Module) -> Result<(Module, PinList), PassError> {
        let (destructed, pins, _) = crate::out_of_ssa::translate::translate_module_with_pins(ssa, &self.out_of_ssa)?;
        Ok((destructed, pins))
    }
}

type PinList = Vec<crate::out_of_ssa::renaming_constraints::Pins>;

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

    fn prepare(&self, ssa: &Module) -> Result<Prepared, PassError> {
        let (destructed, pins) = self.translate(ssa)?;
        // The destructed program has no phis; the oracle's SSA engine runs
        // it as a register machine over its variables.
        Ok(Prepared { stages: vec![(self.prepare_key(), destructed)], state: Some(Arc::new(pins)) })
    }

    fn allocate(&self, ssa: &Module, prepared: &Prepared, k: usize) -> Result<BackendOutput, PassError> {
        let pins = prepared.state.as_ref().and_then(|s| s.downcast_ref::<PinList>());
        let (destructed, pins) = match (prepared.stages.first(), pins) {
            (Some((_, d)), Some(p)) => (d, p),
            // Not prepared by `prepare` (a caller's own `Prepared`): translate here.
            _ => return self.allocate(ssa, &self.prepare(ssa)?, k),
        };
        let mir =
            crate::out_of_ssa::conventional::allocate_conventional_module_pinned(destructed, pins, k, self.allocator)?;
        Ok(BackendOutput { mir, ir_stages: Vec::new() })
    }

    fn report(&self, ssa: &Module, k: usize) -> String {
        let tag = self.describe();
        let mut text = String::new();
        match self.translate(ssa) {
            Ok((destructed, pins)) => {
                text.push_str(&format!("== out-of-ssa: out of SSA ({tag})\n"));
                text.push_str(&print_destructed(&destructed, &pins));
                match crate::out_of_ssa::conventional::allocate_conventional_module_pinned(
                    &destructed,
                    &pins,
                    k,
                    self.allocator,
                ) {
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
