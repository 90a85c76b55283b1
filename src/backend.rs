//! One interface for back ends: SSA and K in, allocated machine IR out.
//!
//! A back end is anything that turns ssaref's SSA ([`crate::ir::Module`],
//! after Braun et al.'s construction) into allocated machine IR
//! ([`crate::mir::MModule`]) for K registers: ssaref's ssa-ra (Pereira,
//! then Pereira and Palsberg), out-of-ssa (Boissinot et al., then a
//! conventional allocator), the regalloc2 crate, or a user's own allocator.
//! [`crate::pipeline::compile`] runs one back end between the construction
//! and the x86-64 lowering; [`crate::differential::differential_full`] runs
//! every back end of its [`crate::differential::DiffConfig`] the same way.
//! Neither trusts a back end: on every back end's output they run ssaref's
//! allocation checker
//! (`checkers/alloc_checker.rs`, with `check_no_scratch`), the x86-64
//! lowering and the machine-code checker; the differential check also runs
//! the machine IR in the oracle and the machine code under Unicorn, and
//! compares every outcome with the source program's. Campaigns (`campaign/driver.rs`), `ssaref repro` and
//! the reducer (`reduce/source.rs`) take the same list of back ends.
//!
//! A back end may also hand the oracle programs of its own to run before
//! the machine IR ([`BackendOutput::ir_stages`], [`Prepared::stages`]):
//! ssa-ra gives the SSA after each of its passes, out-of-ssa its destructed
//! program. Each must compute the source's outcome too.
//!
//! The three built-in back ends are [`SsaRa`] (one option set), [`OutOfSsa`]
//! (one configuration) and [`Regalloc2`], at the end of this file; each
//! only calls its back end's entry points (`ssa_ra/regalloc.rs`,
//! `out_of_ssa/translate.rs` and `out_of_ssa/conventional/`,
//! `regalloc2/allocate.rs`) and names its stages.
//!
//! # Example
//!
//! A back end that gives up on every program (a real one is in
//! `examples/naive_allocator.rs`):
//!
//! ```
//! use ssaref::backend::{Backend, BackendOutput, Prepared};
//! use ssaref::error::PassError;
//! use ssaref::ir::Module;
//!
//! struct GiveUp;
//!
//! impl Backend for GiveUp {
//!     fn name(&self) -> String {
//!         "give-up".to_string()
//!     }
//!     fn allocate(&self, _ssa: &Module, _prepared: &Prepared, k: usize) -> Result<BackendOutput, PassError> {
//!         Err(PassError::new(format!("give-up[k={k}]"), "allocate", "not implemented"))
//!     }
//! }
//!
//! let b = GiveUp;
//! assert_eq!(b.stage_names(4), ("give-up[k=4]".to_string(), "x86-give-up[k=4]".to_string()));
//! ```
//!
//! With it in `DiffConfig::backends`, every program fails with
//! `Verdict::CheckFailed` at pass `give-up[k=K]`.

use crate::error::PassError;
use crate::ir::Module;
use crate::mir::MModule;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// What a back end's [`Backend::prepare`] did once per program, before any
/// K: programs for the oracle to run, and state for [`Backend::allocate`].
#[derive(Clone, Default)]
pub struct Prepared {
    /// Programs the oracle runs (as SSA, or phi-free code whose value
    /// numbers are variables), each with its stage name, in order.
    pub stages: Vec<(String, Module)>,
    /// Whatever the back end wants to keep for [`Backend::allocate`]
    /// (out-of-ssa: the pinned variables of its destructed program).
    pub state: Option<Arc<dyn Any + Send + Sync>>,
}

impl fmt::Debug for Prepared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.stages.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Prepared").field("stages", &names).field("state", &self.state.is_some()).finish()
    }
}

/// What a back end gives for one K.
#[derive(Clone, Debug)]
pub struct BackendOutput {
    /// The allocated program: one function per function of the SSA, same
    /// names, each with `k` registers. Its annotations name the SSA values
    /// (copy-canonical, see `mir.rs`) that the allocation checker follows.
    pub mir: MModule,
    /// Programs the oracle runs before the machine IR, each with its stage
    /// name (ssa-ra: the SSA after each pass). Usually empty.
    pub ir_stages: Vec<(String, Module)>,
}

/// A register allocator (with whatever out-of-SSA translation it needs)
/// under ssaref's differential test. See the module documentation.
///
/// Implementations must be deterministic: the same SSA and K give the same
/// output, so that campaigns and the reducer can replay a failure.
pub trait Backend: Send + Sync {
    /// The back end's name: letters, digits and `-`, then optionally a
    /// configuration in brackets (`ssa-ra[opt]`, `boissinot[sharing,...]`).
    /// The part before `[` is its family; `ssaref repro` shows one back end
    /// per family.
    fn name(&self) -> String;

    /// The names of the stages of its allocated code for `k` registers:
    /// the machine IR in the oracle and the x86-64 code under Unicorn.
    /// Default: `NAME[k=K]` and `x86-NAME[k=K]`. A name must contain
    /// `k=K`, which the reducer abstracts.
    fn stage_names(&self, k: usize) -> (String, String) {
        let name = self.name();
        (format!("{name}[k={k}]"), format!("x86-{name}[k={k}]"))
    }

    /// Work that does not depend on K, done once per program (out-of-ssa: the
    /// out-of-SSA translation). Default: nothing.
    fn prepare(&self, ssa: &Module) -> Result<Prepared, PassError> {
        let _ = ssa;
        Ok(Prepared::default())
    }

    /// Back ends with the same key share one [`Backend::prepare`] per
    /// program, and its stages run once (out-of-ssa's allocators share the
    /// translation). Default: the name, so no sharing.
    fn prepare_key(&self) -> String {
        self.name()
    }

    /// Allocates `ssa` (after [`Backend::prepare`]) in `k` registers, `k` in
    /// `mir::MIN_REGS..=mir::MAX_REGS`. An error is reported as
    /// `Verdict::CheckFailed`; name the pass with `k=K` in it.
    fn allocate(&self, ssa: &Module, prepared: &Prepared, k: usize) -> Result<BackendOutput, PassError>;

    /// The allocated code of [`Backend::allocate`] alone, for a caller that
    /// does not run the IR stages (`ssaref emit`): the same code, checked
    /// the same way. Default: [`Backend::allocate`]'s `mir`; ssa-ra keeps
    /// no copies of its SSA stages for it.
    fn allocate_code(&self, ssa: &Module, prepared: &Prepared, k: usize) -> Result<crate::mir::MModule, PassError> {
        self.allocate(ssa, prepared, k).map(|out| out.mir)
    }

    /// What `ssaref repro` prints about this back end for `k` registers,
    /// before the x86-64 listing: by default the allocated machine IR
    /// under `== NAME: allocated (K = k)`, or why there is none.
    fn report(&self, ssa: &Module, k: usize) -> String {
        let name = self.name();
        match self.prepare(ssa).and_then(|p| self.allocate(ssa, &p, k)) {
            Ok(out) => format!("== {name}: allocated (K = {k})\n{}", crate::mir::print_module(&out.mir)),
            Err(e) => format!("== {name}: allocation with K = {k} failed: {e}\n"),
        }
    }

    /// The heading of the x86-64 listing that `ssaref repro` prints after
    /// [`Backend::report`].
    fn listing_title(&self, k: usize) -> String {
        format!("{}: x86-64 (K = {k})", self.name())
    }
}

impl fmt::Debug for dyn Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Backend({})", self.name())
    }
}

/// The family of a back end's name: the part before `[`.
pub fn family(name: &str) -> &str {
    name.split('[').next().unwrap_or(name)
}

/// ssa-ra with one option set (its `k` is replaced by each K): Pereira's
/// allocation, then Pereira and Palsberg's SSA elimination. Stages:
/// `ssa-ra[k=K,TAG]/PASS` (the SSA after each pass), `alloc[k=K,TAG]` and
/// `x86[k=K,TAG]`, where `TAG` is `RegallocOptions::describe`: `opt` with
/// every switch on, `plain` without the §6 optimizations, else the
/// switches that are on (`pmc+coalesce+hoist`); spilling during coloring
/// (the default) is the switch `color-spill`, off for the separate pass
/// (`spill.rs`).
#[derive(Clone, Copy, Debug)]
pub struct SsaRa(pub crate::ssa_ra::regalloc::RegallocOptions);

impl SsaRa {
    fn tag(&self) -> String {
        self.options(2).describe()
    }

    fn options(&self, k: usize) -> crate::ssa_ra::regalloc::RegallocOptions {
        crate::ssa_ra::regalloc::RegallocOptions { k, ..self.0 }
    }
}

impl Backend for SsaRa {
    fn name(&self) -> String {
        format!("ssa-ra[{}]", self.tag())
    }

    fn stage_names(&self, k: usize) -> (String, String) {
        let tag = self.tag();
        (format!("alloc[k={k},{tag}]"), format!("x86[k={k},{tag}]"))
    }

    fn allocate(&self, ssa: &Module, _prepared: &Prepared, k: usize) -> Result<BackendOutput, PassError> {
        let (mir, reports) = crate::ssa_ra::regalloc::allocate_module(ssa, &self.options(k))?;
        // The SSA after each allocation pass is still SSA: the oracle runs it.
        // The stages are moved out of the reports, not copied.
        let npasses = reports.first().map_or(0, |r| r.stages.len());
        let names: Vec<&'static str> = reports.first().map_or(Vec::new(), |r| r.stages.iter().map(|s| s.0).collect());
        let mut per_function: Vec<_> = reports.into_iter().map(|r| r.stages.into_iter()).collect();
        let tag = self.tag();
        let ir_stages = names
            .into_iter()
            .take(npasses)
            .map(|name| {
                let functions = per_function.iter_mut().filter_map(|stages| stages.next().map(|(_, f)| f)).collect();
                (format!("ssa-ra[k={k},{tag}]/{name}"), Module { functions })
            })
            .collect();
        Ok(BackendOutput { mir, ir_stages })
    }

    fn allocate_code(&self, ssa: &Module, _prepared: &Prepared, k: usize) -> Result<crate::mir::MModule, PassError> {
        crate::ssa_ra::regalloc::allocate_module_checked(ssa, &self.options(k)).map(|(mir, _)| mir)
    }

    fn report(&self, ssa: &Module, k: usize) -> String {
        let mut text = String::new();
        match crate::ssa_ra::regalloc::allocate_module(ssa, &self.options(k)) {
            Ok((mir, reports)) => {
                let npasses = reports.first().map_or(0, |r| r.stages.len());
                for i in 0..npasses {
                    text.push_str(&format!("== after {} (K = {k})\n", reports[0].stages[i].0));
                    for r in &reports {
                        text.push_str(&crate::analysis::ir_text::print_function(&r.stages[i].1));
                    }
                }
                text.push_str(&format!("== allocated (K = {k})\n{}", crate::mir::print_module(&mir)));
            }
            Err(e) => text.push_str(&format!("== allocation with K = {k} failed: {e}\n")),
        }
        text
    }

    fn listing_title(&self, k: usize) -> String {
        format!("x86-64 (K = {k})")
    }
}

/// One configuration of out-of-ssa: Boissinot et al.'s out-of-SSA translation
/// with a coalescing variant and a liveness method, then a conventional
/// register allocator. As a back end: the translation once per program
/// (stage `out-of-ssa[VARIANT,LIVENESS]`, with `,CLASS-TEST` unless the
/// class test is linear, shared by the configurations with
/// the same translation), then the allocator with the renaming
/// constraints' pins for each K (stages `conv[k=K,CONFIG]` and
/// `x86-conv[k=K,CONFIG]`).
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
        format!("boissinot[{}]", self.describe())
    }

    fn stage_names(&self, k: usize) -> (String, String) {
        let tag = self.describe();
        (format!("conv[k={k},{tag}]"), format!("x86-conv[k={k},{tag}]"))
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
                text.push_str(&format!("== route 2: out of SSA ({tag})\n"));
                text.push_str(&print_destructed(&destructed, &pins));
                match crate::out_of_ssa::conventional::allocate_conventional_module_pinned(
                    &destructed,
                    &pins,
                    k,
                    self.allocator,
                ) {
                    Ok(mir) => text.push_str(&format!(
                        "== route 2: allocated ({tag}, K = {k})\n{}",
                        crate::mir::print_module(&mir)
                    )),
                    Err(e) => text.push_str(&format!("== route 2: allocation with K = {k} failed: {e}\n")),
                }
            }
            Err(e) => text.push_str(&format!("== route 2: out-of-SSA ({tag}) failed: {e}\n")),
        }
        text
    }

    fn listing_title(&self, k: usize) -> String {
        format!("route 2: x86-64 ({}, K = {k})", self.describe())
    }
}

/// A destructed module in the IR text form, each function followed by a
/// comment naming its pinned variables (Boissinot et al. §III-D).
pub fn print_destructed(m: &Module, pins: &[crate::out_of_ssa::renaming_constraints::Pins]) -> String {
    let mut text = String::new();
    for (i, f) in m.functions.iter().enumerate() {
        text.push_str(&crate::analysis::ir_text::print_function(f));
        if let Some(p) = pins.get(i).filter(|p| !p.is_empty()) {
            let list: Vec<String> = p.iter().map(|(v, r)| format!("{v} in {}", r.name())).collect();
            text.push_str(&format!("// pinned: {}\n", list.join(", ")));
        }
    }
    text
}

/// regalloc2: regalloc2 after critical-edge splitting, checked by
/// regalloc2's checker and ssaref's. Stages `regalloc2[k=K]` and
/// `x86-regalloc2[k=K]`.
#[derive(Clone, Copy, Debug)]
pub struct Regalloc2;

impl Backend for Regalloc2 {
    fn name(&self) -> String {
        "regalloc2".to_string()
    }

    fn allocate(&self, ssa: &Module, _prepared: &Prepared, k: usize) -> Result<BackendOutput, PassError> {
        let (mir, _) = crate::regalloc2::allocate_module(ssa, k)?;
        Ok(BackendOutput { mir, ir_stages: Vec::new() })
    }

    fn report(&self, ssa: &Module, k: usize) -> String {
        let mut text = String::new();
        for f in &ssa.functions {
            match crate::regalloc2::allocate_regalloc2(f, k) {
                Ok((_, report)) => {
                    text.push_str(&format!("== route 3: regalloc2 (`{}`, K = {k})\n", f.name));
                    text.push_str(&report.render());
                }
                Err(e) => text.push_str(&format!("== route 3: regalloc2 on `{}` with K = {k} failed: {e}\n", f.name)),
            }
        }
        if let Ok((mir, _)) = crate::regalloc2::allocate_module(ssa, k) {
            text.push_str(&format!("== route 3: allocated (K = {k})\n{}", crate::mir::print_module(&mir)));
        }
        text
    }

    fn listing_title(&self, k: usize) -> String {
        format!("route 3: x86-64 (K = {k})")
    }
}
