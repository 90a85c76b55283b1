//! The differential check: every stage of the pipeline run in the oracle,
//! each outcome compared with the source program's. The passes and their
//! checks are those of [`crate::pipeline`]; this module runs the oracle
//! between them and says which stage first disagrees.
//!
//! [`differential`] runs the construction stages: the source (the reference
//! outcome), Cytron et al.'s SSA, and Braun et al.'s SSA for each
//! construction variant, each checked. [`differential_full`] adds, for each
//! K, the back ends (`backend/`: all three back ends and users'
//! allocators, all behind the `Backend` trait, in the order of
//! [`DiffConfig::schedule`]): each back end's pass list, with an observer
//! that runs the oracle on each program a pass produces there and then
//! (ssa-ra's SSA after each allocation pass, out-of-ssa's destructed
//! program), then, never trusted to the back end, ssaref's allocation
//! checker on its machine IR ([`check_backend_output`]), the machine IR in
//! the oracle, and its x86-64 code ([`lower_and_check`]) under Unicorn.
//! [`differential_ssa`] runs the same back-end stages on a program given in
//! SSA form, against the oracle's run of that SSA.
//!
//! The thread time of each phase (source run, construction, allocation,
//! oracle runs, lowering, emulation) is summed in [`PhaseTimes`] for the
//! campaign's summary ([`take_phase_times`]).

use crate::analysis::verifier::verify_module;
use crate::ast::Program;
use crate::backend::{Backend, OutOfSsa};
use crate::construction::braun::BraunOptions;
use crate::differential_shared::SsaRuns;
use crate::error::PassError;
use crate::ir::Module;
use crate::mir::MModule;
use crate::oracle::{Oracle, OracleError};
use crate::outcome::Outcome;
use crate::pass_manager::clock::thread_cpu_time;
use crate::pass_manager::flags::Flags;
use crate::pass_manager::runner::Observer;
use crate::pipeline::{build_ssa, build_ssa_variants, check_backend_output, lower_and_check, Config};

/// The outcome of one stage in the differential check.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct StageResult {
    /// `source`, `cytron`, or `ssa[<variant>]`.
    pub stage: String,
    /// The outcome, or why the oracle could not run the stage.
    pub outcome: Result<Outcome, StageError>,
}

/// Why a stage has no outcome: the oracle could not run its IR, or the
/// emulator its machine code.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum StageError {
    Oracle(OracleError),
    Emulator(crate::machine::emulator::EmuError),
    /// The stages do not handle the program yet (calls, in the back ends
    /// and the machine code): not a divergence, and nothing was run.
    NotSupported(&'static str),
}

impl std::fmt::Display for StageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StageError::Oracle(e) => e.fmt(f),
            StageError::Emulator(e) => e.fmt(f),
            StageError::NotSupported(what) => write!(f, "{what} not supported yet"),
        }
    }
}

impl std::error::Error for StageError {}

/// What the differential check concluded.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Verdict {
    /// Every stage gave the source's outcome.
    Agree { outcome: Outcome, stages: Vec<StageResult> },
    /// The source program ran out of fuel or exceeded the call depth:
    /// nothing to compare.
    Inconclusive,
    /// A limit of the harness stopped `stage` before its outcome could be
    /// compared (see `judge_stage`): inconclusive too, never a failure.
    Limit { stage: String, limit: String },
    /// A stage's outcome differs from the source's (the first such stage).
    Diverge { stage: String, expected: Outcome, got: Result<Outcome, StageError> },
    /// A pass produced IR that a checker rejects.
    CheckFailed(PassError),
    /// The oracle could not run the source program.
    SourceError(OracleError),
    /// A pass or checker panicked (a bug of ssaref): the panic's message.
    /// Only [`differential_full_catching`] and [`differential_ssa_catching`]
    /// return it.
    Panic(String),
}

impl Verdict {
    /// True for `Agree`, `Inconclusive` and `Limit`.
    pub fn is_ok(&self) -> bool {
        matches!(self, Verdict::Agree { .. } | Verdict::Inconclusive | Verdict::Limit { .. })
    }
}

/// A verdict as a reader wants it in a failing test: outcomes as
/// [`Outcome::render_full`] prints them (non-zero `mem` words only), not the
/// `Debug` form with all of `mem`.
impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let indent = |text: &str| text.lines().map(|l| format!("    {l}\n")).collect::<String>();
        match self {
            Verdict::Agree { outcome, stages } => {
                write!(f, "agree ({} stages):\n{}", stages.len(), indent(&outcome.render_full()))
            }
            Verdict::Inconclusive => f.write_str("inconclusive: the source ran out of fuel or exceeded the call depth"),
            Verdict::Limit { stage, limit } => write!(f, "inconclusive: stage {stage} reached {limit}"),
            Verdict::Diverge { stage, expected, got } => {
                write!(f, "stage {stage} diverges\n  expected:\n{}", indent(&expected.render_full()))?;
                match got {
                    Ok(o) => write!(f, "  got:\n{}", indent(&o.render_full())),
                    Err(e) => write!(f, "  got an error: {e}"),
                }
            }
            Verdict::CheckFailed(e) => write!(f, "check failed: {e}"),
            Verdict::SourceError(e) => write!(f, "the oracle could not run the source: {e}"),
            Verdict::Panic(m) => write!(f, "panic: {m}"),
        }
    }
}

/// Thread time spent in each phase of the differential check, summed over
/// the calls of [`differential`] and [`differential_full`] on this thread
/// since the last [`take_phase_times`]. For the campaign's summary: where
/// the time goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseTimes {
    /// Running the source program (the reference outcome).
    pub source: std::time::Duration,
    /// Cytron's and Braun's constructions with their checkers.
    pub construction: std::time::Duration,
    /// Interpreting the SSA stages (constructions and allocation passes).
    pub ssa_runs: std::time::Duration,
    /// ssa-ra's passes with their checkers and the allocation checker.
    pub allocation: std::time::Duration,
    /// Interpreting the allocated machine IR.
    pub mir_runs: std::time::Duration,
    /// x86-64 lowering, encoding and the machine-code checker.
    pub lowering: std::time::Duration,
    /// out-of-ssa's out-of-SSA translation with its checkers.
    pub out_of_ssa: std::time::Duration,
    /// Running the machine code under Unicorn.
    pub emulation: std::time::Duration,
}

impl PhaseTimes {
    /// Adds `other` to `self`.
    pub fn add(&mut self, other: &PhaseTimes) {
        self.source += other.source;
        self.construction += other.construction;
        self.ssa_runs += other.ssa_runs;
        self.allocation += other.allocation;
        self.mir_runs += other.mir_runs;
        self.lowering += other.lowering;
        self.out_of_ssa += other.out_of_ssa;
        self.emulation += other.emulation;
    }

    /// The phases with their names, in pipeline order.
    pub fn named(&self) -> [(&'static str, std::time::Duration); 8] {
        [
            ("source run", self.source),
            ("construction+checks", self.construction),
            ("SSA runs", self.ssa_runs),
            ("out-of-SSA+checks", self.out_of_ssa),
            ("allocation+checks", self.allocation),
            ("MIR runs", self.mir_runs),
            ("x86 lowering+check", self.lowering),
            ("Unicorn", self.emulation),
        ]
    }
}

thread_local! {
    static PHASES: std::cell::Cell<PhaseTimes> = std::cell::Cell::new(PhaseTimes::default());
}

/// Charges the thread's CPU time since `since` (the one clock,
/// `pass_manager/clock.rs`) to one phase; returns now.
fn charge(since: std::time::Duration, phase: fn(&mut PhaseTimes) -> &mut std::time::Duration) -> std::time::Duration {
    let now = thread_cpu_time();
    PHASES.with(|p| {
        let mut t = p.get();
        *phase(&mut t) += now.saturating_sub(since);
        p.set(t);
    });
    now
}

/// The hook of [`with_progress`].
type ProgressHook = Box<dyn FnMut(&str)>;

thread_local! {
    static PROGRESS: std::cell::RefCell<Option<ProgressHook>> = std::cell::RefCell::new(None);
}

/// Runs `body` with `report` called, on this thread, at the start of each
/// step of the differential check (the constructions, each back end's
/// preparation, each allocation with its K, each machine-IR and x86 run),
/// with a short description of the step: `ssaref check` prints them as it
/// goes. Without it nothing is reported.
pub fn with_progress<R>(report: impl FnMut(&str) + 'static, body: impl FnOnce() -> R) -> R {
    struct Reset(Option<ProgressHook>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let old = self.0.take();
            PROGRESS.with(|p| *p.borrow_mut() = old);
        }
    }
    let _reset = Reset(PROGRESS.with(|p| p.borrow_mut().replace(Box::new(report))));
    body()
}

/// Reports a step to the hook of [`with_progress`], if any.
fn progress(step: impl FnOnce() -> String) {
    PROGRESS.with(|p| {
        if let Some(report) = p.borrow_mut().as_mut() {
            report(&step());
        }
    });
}

/// Returns this thread's phase times and resets them.
pub fn take_phase_times() -> PhaseTimes {
    PHASES.with(|p| p.take())
}

/// Fuel for the stages after the source, which count steps differently:
/// a stage that runs out of this much is a divergence, not a long program.
pub fn later_stage_fuel(fuel: u64) -> u64 {
    fuel.saturating_mul(8).saturating_add(10_000)
}

/// The (back end, K) pairs a differential run allocates, in order.
pub type Schedule = Vec<(std::sync::Arc<dyn Backend>, usize)>;

/// What [`differential_full`] runs.
#[derive(Clone, Debug)]
pub struct DiffConfig {
    /// Construction variants, each checked and interpreted.
    pub variants: Vec<BraunOptions>,
    /// The construction variant whose SSA every back end allocates
    /// ([`DiffConfig::standard`]: `BraunOptions::all_on()`, so that copy
    /// propagation makes the swap and lost-copy situations; campaigns
    /// rotate it through all 128).
    pub backend_ssa: BraunOptions,
    /// Register counts for ssa-ra (empty: no allocation).
    pub regs: Vec<usize>,
    /// ssa-ra option sets to run for each K (`k` is overwritten).
    pub regalloc: Vec<crate::ssa_ra::regalloc::RegallocOptions>,
    /// Fuel of the source run.
    pub fuel: u64,
    /// Lower the allocated code to x86-64, check it, and run it under
    /// Unicorn (the `x86[...]` stages).
    pub x86: bool,
    /// out-of-ssa configurations, each run for every K of `regs`.
    pub out_of_ssa: Vec<OutOfSsa>,
    /// Run regalloc2 for every K of `regs`, after ssa-ra and out-of-ssa.
    pub regalloc2: bool,
    /// Further back ends (users' allocators, see `backend/`), each run for
    /// every K of `regs` after all three back ends.
    pub backends: Vec<std::sync::Arc<dyn Backend>>,
    /// The check switch for every pass ([`DiffConfig::standard`]: on).
    /// ssaref's allocation checker and the machine-code checker judge every
    /// back end's output whatever it says.
    pub flags: Flags,
}

impl DiffConfig {
    /// Four construction variants, and ssa-ra with and without the §6
    /// optimizations for each K in `regs`.
    pub fn standard(regs: &[usize], fuel: u64) -> Self {
        let all = crate::ssa_ra::regalloc::RegallocOptions::with_k(2);
        DiffConfig {
            variants: vec![
                BraunOptions::plain(),
                BraunOptions { marker: true, ..BraunOptions::plain() },
                BraunOptions::all_on(),
                BraunOptions { marker: true, ..BraunOptions::all_on() },
            ],
            backend_ssa: BraunOptions::all_on(),
            regs: regs.to_vec(),
            regalloc: vec![all, all.without_section_6()],
            fuel,
            x86: true,
            out_of_ssa: OutOfSsa::all(),
            regalloc2: false,
            backends: Vec::new(),
            flags: Flags::checked(),
        }
    }

    /// Only the given back ends: no ssa-ra option set, no out-of-ssa
    /// configuration, no regalloc2.
    pub fn only(mut self, backends: Vec<std::sync::Arc<dyn Backend>>) -> Self {
        self.regalloc.clear();
        self.out_of_ssa.clear();
        self.regalloc2 = false;
        self.backends = backends;
        self
    }

    /// Every back end this configuration runs, in the order of
    /// [`DiffConfig::schedule`], each once.
    pub fn backend_list(&self) -> Vec<std::sync::Arc<dyn Backend>> {
        let mut out: Vec<std::sync::Arc<dyn Backend>> = Vec::new();
        for ra in &self.regalloc {
            out.push(std::sync::Arc::new(crate::backend::SsaRa(*ra)));
        }
        for r2 in &self.out_of_ssa {
            out.push(std::sync::Arc::new(*r2));
        }
        if self.regalloc2 {
            out.push(std::sync::Arc::new(crate::backend::Regalloc2));
        }
        out.extend(self.backends.iter().cloned());
        out
    }

    /// The (back end, K) pairs [`differential_full`] runs, in order: ssa-ra
    /// for each K and, within it, each option set; then each out-of-ssa
    /// configuration for each K; then regalloc2 and the further back ends,
    /// each for every K.
    pub fn schedule(&self) -> Schedule {
        let list = self.backend_list();
        let (ssa_ra, rest) = list.split_at(self.regalloc.len());
        let mut out = Vec::new();
        for &k in &self.regs {
            out.extend(ssa_ra.iter().map(|b| (std::sync::Arc::clone(b), k)));
        }
        for b in rest {
            out.extend(self.regs.iter().map(|&k| (std::sync::Arc::clone(b), k)));
        }
        out
    }

    /// [`DiffConfig::schedule`] for a module whose largest function has
    /// `size` instructions and phis, with what was left out, one line
    /// each. At or below the sampling size (`pass_manager/sampling.rs`) that is
    /// everything; above it (the rule of `docs/scaling.md`):
    /// - the out-of-ssa configurations whose coalescing is quadratic by
    ///   the paper do not run: the two interference-graph baselines of
    ///   Boissinot et al. §IV-D (the graph costs (variables)² bits, or an
    ///   edge for every interfering pair), and Chaitin's and Sreedhar III's
    ///   coalescing (their class tests are pairwise, "this quadratic number
    ///   of variable-to-variable interference tests", §III-E; the linear
    ///   test of §IV-B does not apply to their rules);
    /// - each remaining out-of-ssa configuration allocates at the smallest
    ///   K only (the most spilling), except the first with each
    ///   conventional allocator, which allocates at every K: the allocator
    ///   is the same whichever variant produced its input. Every
    ///   remaining configuration is still prepared, so its translation,
    ///   its checkers and the run of its result still happen.
    pub fn schedule_sampled(&self, size: usize) -> (Schedule, Vec<String>) {
        use crate::out_of_ssa::coalescing::{ClassTest, CoalescingVariant};
        let full = self.schedule();
        let Some(&smallest) = self.regs.iter().min() else {
            return (full, Vec::new());
        };
        if !crate::pass_manager::sampling::should_sample(size) {
            return (full, Vec::new());
        }
        let name = |r: &OutOfSsa| Backend::stage_names(r, smallest).0;
        let quadratic = |r: &OutOfSsa| {
            let o = &r.out_of_ssa;
            matches!(o.class_test, ClassTest::Graph | ClassTest::BitMatrix | ClassTest::BitMatrixRelated)
                || matches!(o.variant, CoalescingVariant::Chaitin | CoalescingVariant::SreedharIII)
        };
        let mut at_every_k: Vec<OutOfSsa> = Vec::new();
        let (mut dropped, mut one_k): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
        for r in &self.out_of_ssa {
            if quadratic(r) {
                dropped.push(name(r));
            } else if at_every_k.iter().any(|f| f.allocator == r.allocator) {
                one_k.push(name(r));
            } else {
                at_every_k.push(*r);
            }
        }
        let before = full.len();
        let kept: Vec<_> = full
            .into_iter()
            .filter(|(b, k)| {
                let n = b.stage_names(smallest).0;
                !dropped.contains(&n) && (*k == smallest || !one_k.contains(&n))
            })
            .collect();
        let mut notes = Vec::new();
        if !dropped.is_empty() {
            notes.push(format!(
                "out-of-ssa configurations quadratic by the paper not run: the interference-graph baselines, and \
                 Chaitin's and Sreedhar III's pairwise coalescing ({} configurations)",
                dropped.len()
            ));
        }
        if !one_k.is_empty() {
            notes.push(format!(
                "out-of-ssa configurations: each runs at K = {smallest} only, but the first with each conventional \
                 allocator at every K ({} configurations)",
                one_k.len()
            ));
        }
        notes.push(format!("back-end allocations: {} of {before} run", kept.len()));
        (kept, notes)
    }

    /// With regalloc2 too.
    pub fn with_regalloc2(mut self) -> Self {
        self.regalloc2 = true;
        self
    }

    /// Only regalloc2: no ssa-ra option set and no out-of-ssa configuration.
    pub fn regalloc2_only(mut self) -> Self {
        self.regalloc.clear();
        self.out_of_ssa.clear();
        self.regalloc2 = true;
        self
    }

    /// Only ssa-ra (no out-of-ssa configuration).
    pub fn ssa_ra_only(mut self) -> Self {
        self.out_of_ssa.clear();
        self
    }
}

/// Runs every stage of a valid program and compares each outcome with the
/// source's. The stages: the AST (reference), Cytron et al.'s SSA, and
/// Braun et al.'s SSA for each option set in `variants`. Every checker runs.
///
/// Fuel: the source runs with `fuel`; if it runs out, the verdict is
/// `Inconclusive`. Later stages get [`later_stage_fuel`], and running out
/// there is a divergence.
pub fn differential(
    program: &Program,
    args: &[i64],
    oracle: &dyn Oracle,
    variants: &[BraunOptions],
    fuel: u64,
) -> Verdict {
    differential_with(program, args, oracle, variants, fuel, Flags::checked())
}

/// [`differential`] with the check switch `flags`.
fn differential_with(
    program: &Program,
    args: &[i64],
    oracle: &dyn Oracle,
    variants: &[BraunOptions],
    fuel: u64,
    flags: Flags,
) -> Verdict {
    progress(|| "source run".to_string());
    let t = thread_cpu_time();
    let expected = match oracle.run_source(program, args, fuel) {
        Ok(o) => o,
        Err(e) => return Verdict::SourceError(e),
    };
    let t = charge(t, |p| &mut p.source);
    if expected.end.is_inconclusive() {
        return Verdict::Inconclusive;
    }
    let later = later_stage_fuel(fuel);
    let mut stages = vec![StageResult { stage: "source".into(), outcome: Ok(expected.clone()) }];
    progress(|| {
        format!("construction: Cytron et al. and {} variant(s) of Braun et al., with their checks", variants.len())
    });
    let (cytron, built) = match build_ssa_variants(program, variants, flags) {
        Ok(built) => built,
        Err(e) => return Verdict::CheckFailed(e),
    };
    let mut modules = vec![("cytron".to_string(), cytron)];
    modules.extend(variants.iter().zip(built).map(|(opts, m)| (format!("ssa[{}]", opts.describe()), m)));
    let t = charge(t, |p| &mut p.construction);
    progress(|| "runs of the constructions' SSA".to_string());
    for (stage, module) in modules {
        let got = oracle.run_ssa(&module, args, later).map_err(StageError::Oracle);
        if let Some(v) = judge_stage(stage, &expected, got, later, &mut stages) {
            return v;
        }
    }
    charge(t, |p| &mut p.ssa_runs);
    Verdict::Agree { outcome: expected, stages }
}

/// Runs every stage: the source, Cytron's SSA, each construction variant;
/// for each K and ssa-ra option set, the SSA after each allocation pass,
/// the allocated machine IR and its x86-64 code under Unicorn; and for each
/// out-of-ssa configuration, the destructed program, then for each K the
/// allocated machine IR and its x86-64 code; with `config.regalloc2`, for each
/// K, regalloc2's allocated machine IR (`regalloc2[k=K]`) and its x86-64
/// code (`x86-regalloc2[k=K]`). Every back end starts from the SSA of
/// `config.backend_ssa` (by default `BraunOptions::all_on()`: copy
/// propagation on, so the swap and lost-copy situations occur). Returns the
/// first divergence or failed check; a panic propagates (see
/// [`differential_full_catching`]).
pub fn differential_full(program: &Program, args: &[i64], oracle: &dyn Oracle, config: &DiffConfig) -> Verdict {
    let first = differential_with(program, args, oracle, &config.variants, config.fuel, config.flags);
    let (expected, stages) = match first {
        Verdict::Agree { outcome, stages } => (outcome, stages),
        other => return other,
    };
    if config.regs.is_empty() {
        return Verdict::Agree { outcome: expected, stages };
    }
    let t = thread_cpu_time();
    // The back ends' SSA is one of the variants checked above, as a rule;
    // another is checked here.
    let checked = config.variants.contains(&config.backend_ssa);
    let flags = if checked { Flags::unchecked() } else { config.flags };
    let ssa = match build_ssa(program, &Config { braun: config.backend_ssa, flags }) {
        Ok(ssa) => ssa,
        Err(e) => return Verdict::CheckFailed(e),
    };
    charge(t, |p| &mut p.construction);
    backend_stages(&ssa, args, oracle, config, expected, stages)
}

/// The back-end stages of [`differential_full`] and [`differential_ssa`]
/// on the SSA module `ssa`, whose outcome is `expected`: for each K and
/// ssa-ra option set, the SSA after each allocation pass, the allocated
/// machine IR and its x86-64 code; for each out-of-ssa configuration, the
/// destructed program, then for each K the allocated machine IR and its
/// x86-64 code; with `config.regalloc2`, regalloc2 for each K. Appends the
/// agreeing stages to `stages`.
fn backend_stages(
    ssa: &Module,
    args: &[i64],
    oracle: &dyn Oracle,
    config: &DiffConfig,
    expected: Outcome,
    mut stages: Vec<StageResult>,
) -> Verdict {
    let later = later_stage_fuel(config.fuel);
    // Back ends with the same `prepare_key` share one preparation, whose
    // stages run once.
    let mut prepared: Vec<(String, crate::backend::Prepared)> = Vec::new();
    let mut agreed = AgreedModules::new();
    let mut ssa_runs = SsaRuns::default();
    let size = ssa.functions.iter().map(|f| f.blocks.values().map(|d| d.insts.len() + d.phis.len()).sum()).max();
    let (schedule, notes) = config.schedule_sampled(size.unwrap_or(0));
    for note in notes {
        crate::pass_manager::sampling::note_sampled(note);
    }
    for (backend, k) in schedule {
        if ssa.has_calls() && !backend.handles_calls() {
            calls_not_supported(format!("{} (programs with calls)", backend.name()), &mut stages);
            continue;
        }
        let key = backend.prepare_key();
        let index = match prepared.iter().position(|(p, _)| *p == key) {
            Some(i) => i,
            None => {
                progress(|| format!("prepare {key}"));
                // out-of-ssa prepares its translation; another back end part
                // of its allocation.
                let oos = crate::backend::family(&backend.name()) == "out-of-ssa";
                let phase: fn(&mut PhaseTimes) -> &mut std::time::Duration =
                    if oos { |p| &mut p.out_of_ssa } else { |p| &mut p.allocation };
                let mut observer = OracleStages::new(args, oracle, later, &expected, &mut stages, &mut ssa_runs, phase);
                let p = backend.prepare(ssa, config.flags, &mut observer);
                if let (_, Some(v)) = observer.finish() {
                    return v;
                }
                match p {
                    Ok(p) => prepared.push((key, p)),
                    Err(e) => return Verdict::CheckFailed(e),
                }
                prepared.len() - 1
            }
        };
        progress(|| format!("allocate {} (K = {k})", backend.stage_names(k).0));
        let mut observer =
            OracleStages::new(args, oracle, later, &expected, &mut stages, &mut ssa_runs, |p| &mut p.allocation);
        let mir = backend.allocate(ssa, &prepared[index].1, k, config.flags, &mut observer);
        let t = match observer.finish() {
            (now, None) => now,
            (_, Some(v)) => return v,
        };
        let mir = match mir {
            Ok(mir) => mir,
            Err(e) => return Verdict::CheckFailed(e),
        };
        let names = backend.stage_names(k);
        // Never trusted to the back end: ssaref's allocation checker.
        if let Err(e) = check_backend_output(ssa, &mir, k, &names.0) {
            return Verdict::CheckFailed(e);
        }
        charge(t, |p| &mut p.allocation);
        if let Some(v) = allocated_stages(&mir, names, args, oracle, config, &expected, &mut stages, &mut agreed) {
            return v;
        }
    }
    Verdict::Agree { outcome: expected, stages }
}

/// The differential driver's observer of a back end's passes
/// (`pass_manager/runner.rs`'s `Observer`): it runs each program the back
/// end shows it (ssa-ra's SSA after each pass, out-of-ssa's destructed
/// program) in the oracle there and then, pushes the stages that agree,
/// and keeps the first that disagrees; it runs nothing after that. The
/// back end's time between two programs is charged to its own phase, the
/// oracle's to `ssa_runs`.
struct OracleStages<'a> {
    args: &'a [i64],
    oracle: &'a dyn Oracle,
    fuel: u64,
    expected: &'a Outcome,
    stages: &'a mut Vec<StageResult>,
    diverged: Option<Verdict>,
    /// The phase the back end's own time is charged to.
    phase: fn(&mut PhaseTimes) -> &mut std::time::Duration,
    /// The thread time when the back end last took over.
    since: std::time::Duration,
    /// Each distinct SSA module's run so far (`differential_shared.rs`).
    runs: &'a mut SsaRuns,
}

impl<'a> OracleStages<'a> {
    fn new(
        args: &'a [i64],
        oracle: &'a dyn Oracle,
        fuel: u64,
        expected: &'a Outcome,
        stages: &'a mut Vec<StageResult>,
        runs: &'a mut SsaRuns,
        phase: fn(&mut PhaseTimes) -> &mut std::time::Duration,
    ) -> Self {
        OracleStages { args, oracle, fuel, expected, stages, diverged: None, phase, since: thread_cpu_time(), runs }
    }

    /// Charges the back end's time since the last program; returns the
    /// thread time now and the verdict of the first stage that disagreed,
    /// if one did.
    fn finish(self) -> (std::time::Duration, Option<Verdict>) {
        (charge(self.since, self.phase), self.diverged)
    }
}

impl Observer<Module> for OracleStages<'_> {
    fn after_pass(&mut self, stage: &str, module: &Module) {
        if self.diverged.is_some() {
            return;
        }
        let t = charge(self.since, self.phase);
        let got = self.runs.run(module, self.oracle, self.args, self.fuel).map_err(StageError::Oracle);
        self.diverged = judge_stage(stage.to_string(), self.expected, got, self.fuel, self.stages);
        self.since = charge(t, |p| &mut p.ssa_runs);
    }
}

/// An allocated module of the program under check whose stages all agreed,
/// with the outcomes of its MIR run and its x86-64 run.
struct AgreedModule {
    mir: MModule,
    mir_outcome: Result<Outcome, StageError>,
    steps: Option<u64>,
    x86_outcome: Option<Result<Outcome, StageError>>,
}

/// The allocated modules of one program whose stages agreed. Two
/// configurations often allocate identical code at the same K (two ssa-ra
/// option sets, two out-of-ssa configurations); the oracle, the lowering
/// with its machine-code checker, and Unicorn are functions of the module
/// and the program's arguments, so an equal module (full equality, `k`
/// included) takes the outcomes of the first instead of running them
/// again, and its stages are judged and counted under its own names.
type AgreedModules = Vec<AgreedModule>;

/// The stages of one allocated module: the MIR in the oracle, then (with
/// `config.x86`) the x86-64 lowering, the machine-code checker, and the run
/// under Unicorn. `names` are the two stage names. Pushes the agreeing
/// stages; returns the verdict of the first disagreement or failed check,
/// or `None` when every stage agrees (and then adds the module to
/// `agreed`, unless an equal one gave its outcomes).
#[allow(clippy::too_many_arguments)]
fn allocated_stages(
    mir: &MModule,
    names: (String, String),
    args: &[i64],
    oracle: &dyn Oracle,
    config: &DiffConfig,
    expected: &Outcome,
    stages: &mut Vec<StageResult>,
    agreed: &mut AgreedModules,
) -> Option<Verdict> {
    let later = later_stage_fuel(config.fuel);
    let same = agreed.iter().find(|a| a.mir == *mir);
    progress(|| format!("run {}", names.0));
    let t = thread_cpu_time();
    // The step count of the MIR run bounds the x86 run: a correct lowering
    // enters at most `emulator::budget_for(steps)` blocks, so wrong code
    // that loops is stopped early.
    let (got, steps) = match same {
        Some(a) => (a.mir_outcome.clone(), a.steps),
        None => match oracle.profile_mir(mir, args, later) {
            Ok((o, profile)) => (Ok(o), Some(profile.executed)),
            Err(_) => (oracle.run_mir(mir, args, later).map_err(StageError::Oracle), None),
        },
    };
    let mir_outcome = same.is_none().then(|| got.clone());
    let (mir_stage, x86_stage) = names;
    if let Some(v) = judge_stage(mir_stage, expected, got, later, stages) {
        return Some(v);
    }
    let t = charge(t, |p| &mut p.mir_runs);
    let x86_outcome = if !config.x86 {
        None
    } else {
        let got = match same.and_then(|a| a.x86_outcome.clone()) {
            Some(got) => got,
            None => match x86_run(mir, args, steps.unwrap_or(later), &x86_stage, t) {
                Ok(got) => got,
                Err(e) => return Some(Verdict::CheckFailed(e)),
            },
        };
        let x86_outcome = same.is_none().then(|| got.clone());
        if let Some(v) = judge_stage(x86_stage, expected, got, later, stages) {
            return Some(v);
        }
        x86_outcome
    };
    if let Some(mir_outcome) = mir_outcome {
        agreed.push(AgreedModule { mir: mir.clone(), mir_outcome, steps, x86_outcome });
    }
    None
}

/// Lowers `mir` to x86-64, checks the machine code, and runs it under
/// Unicorn with the budget for `steps` MIR steps; the thread time since
/// `t` is charged to the lowering, then the run's to the emulation.
fn x86_run(
    mir: &MModule,
    args: &[i64],
    steps: u64,
    x86_stage: &str,
    t: std::time::Duration,
) -> Result<Result<Outcome, StageError>, PassError> {
    progress(|| format!("lower, check and run {}", x86_stage));
    let code = lower_and_check(mir)?;
    let t = charge(t, |p| &mut p.lowering);
    let budget = crate::machine::emulator::budget_for(steps);
    let got = crate::machine::emulator::run_x86(&code, args, budget).map_err(StageError::Emulator);
    charge(t, |p| &mut p.emulation);
    Ok(got)
}

/// Compares the outcome `got` of `stage`, run with `fuel`, with the
/// reference's `expected`: pushes the stage's result on `stages` when they
/// agree, else returns the verdict. A limit of the harness is [`Verdict::Limit`], never a
/// divergence, when what the stage did before it is consistent with the
/// reference: the stage ran out of its fuel (later stages count steps
/// differently, so a correct stage may need more than the source) or
/// reached the call-depth bound, with a trace that is a prefix of the
/// reference's, or the x86 trace filled up with the first words of a
/// reference trace at least that long, or the operating system refused
/// the emulator its address space (nothing ran).
/// A stage whose trace already differs diverges, whatever stopped it.
fn judge_stage(
    stage: String,
    expected: &Outcome,
    got: Result<Outcome, StageError>,
    fuel: u64,
    stages: &mut Vec<StageResult>,
) -> Option<Verdict> {
    use crate::machine::emulator::EmuError;
    let limit = match &got {
        Ok(o) if o == expected => {
            stages.push(StageResult { stage, outcome: got });
            return None;
        }
        Ok(o) if o.end == crate::outcome::End::CallDepthExceeded && expected.trace.starts_with(&o.trace) => {
            Some(format!(
                "the call-depth bound of {} activations (ast::MAX_CALL_DEPTH) with a trace that agrees so far",
                crate::ast::MAX_CALL_DEPTH
            ))
        }
        Ok(o) if o.end.is_inconclusive() && expected.trace.starts_with(&o.trace) => {
            Some(format!("its fuel of {fuel} steps (8 x --fuel + 10000) with a trace that agrees so far"))
        }
        Err(StageError::Emulator(EmuError::TraceFull { trace }))
            if expected.trace.len() >= trace.len() && expected.trace.starts_with(trace) =>
        {
            Some(format!("the trace capacity of the emulator ({} words) with a trace that agrees so far", trace.len()))
        }
        Err(StageError::Emulator(e @ (EmuError::NoAddressSpace { .. } | EmuError::StackTooLarge { .. }))) => {
            Some(e.to_string())
        }
        _ => None,
    };
    Some(match limit {
        Some(limit) => Verdict::Limit { stage, limit },
        None => Verdict::Diverge { stage, expected: expected.clone(), got },
    })
}

/// [`differential_full`], with a panic anywhere in the pipeline turned into
/// [`Verdict::Panic`], so that a campaign writes the case to disk and goes
/// on instead of losing it with the thread.
pub fn differential_full_catching(
    program: &Program,
    args: &[i64],
    oracle: &dyn Oracle,
    config: &DiffConfig,
) -> Verdict {
    let run = std::panic::AssertUnwindSafe(|| differential_full(program, args, oracle, config));
    match std::panic::catch_unwind(run) {
        Ok(v) => v,
        Err(payload) => {
            let message = if let Some(s) = payload.downcast_ref::<&str>() {
                (*s).to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                "a panic without a message".to_string()
            };
            Verdict::Panic(message)
        }
    }
}

/// The differential check of a program given in SSA form (a `.ssa` file,
/// an IR-level generated program): the reference outcome is the oracle's
/// run of `module` itself (stage `ssa-input`), and the back-end stages are
/// those of [`differential_full`] (its `config.variants` do not apply:
/// there is no AST to construct SSA from). The input must pass the SSA
/// verifier; if not, the verdict is `CheckFailed` with pass `input`.
pub fn differential_ssa(module: &Module, args: &[i64], oracle: &dyn Oracle, config: &DiffConfig) -> Verdict {
    if let Err(e) = verify_module(module) {
        return Verdict::CheckFailed(PassError::new("input", "verify", e));
    }
    let t = thread_cpu_time();
    let expected = match oracle.run_ssa(module, args, config.fuel) {
        Ok(o) => o,
        Err(e) => return Verdict::SourceError(e),
    };
    charge(t, |p| &mut p.source);
    if expected.end.is_inconclusive() {
        return Verdict::Inconclusive;
    }
    let stages = vec![StageResult { stage: "ssa-input".into(), outcome: Ok(expected.clone()) }];
    if config.regs.is_empty() {
        return Verdict::Agree { outcome: expected, stages };
    }
    backend_stages(module, args, oracle, config, expected, stages)
}

/// Pushes on `stages` a stage that does not handle calls yet (a back end
/// other than regalloc2, or the x86-64 lowering), reported as not
/// supported, once per name.
fn calls_not_supported(stage: String, stages: &mut Vec<StageResult>) {
    if !stages.iter().any(|s| s.stage == stage) {
        stages.push(StageResult { stage, outcome: Err(StageError::NotSupported("calls")) });
    }
}

/// [`differential_ssa`], with a panic turned into [`Verdict::Panic`] as
/// in [`differential_full_catching`].
pub fn differential_ssa_catching(module: &Module, args: &[i64], oracle: &dyn Oracle, config: &DiffConfig) -> Verdict {
    let run = std::panic::AssertUnwindSafe(|| differential_ssa(module, args, oracle, config));
    std::panic::catch_unwind(run).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        Verdict::Panic(message)
    })
}

#[cfg(test)]
mod tests {
    use super::{judge_stage, Verdict};
    use crate::outcome::{End, Outcome};

    /// The limit a stage reached, as its verdict names it, for a stage that
    /// ended with `end` after the first of the reference's two trace words.
    fn limit_named(end: End) -> String {
        let expected = Outcome { trace: vec![1, 2], end: End::Return(0), mem: vec![] };
        let got = Outcome { trace: vec![1], end, mem: vec![] };
        match judge_stage("alloc".into(), &expected, Ok(got), 100, &mut Vec::new()) {
            Some(Verdict::Limit { limit, .. }) => limit,
            other => panic!("a limit of the harness with a trace that agrees so far is no divergence: {other:?}"),
        }
    }

    #[test]
    fn a_stage_stopped_by_a_limit_names_the_limit_that_stopped_it() {
        let depth = limit_named(End::CallDepthExceeded);
        assert!(depth.starts_with("the call-depth bound of 1000 activations") && !depth.contains("fuel"), "{depth}");
        let fuel = limit_named(End::OutOfFuel);
        assert!(fuel.starts_with("its fuel of 100 steps") && !fuel.contains("call-depth"), "{fuel}");
    }
}
