//! The pipeline: every pass in order, with the checkers between them, and
//! the differential driver that runs every stage in the oracle.
//!
//! Passes:
//! 1. `parser::parse_program` (source text to AST; not run here);
//! 2. `braun::construct_program` (AST to SSA, Braun et al.), followed by the
//!    checks of [`check_construction`]: the SSA verifier, pruned, no trivial
//!    phi, minimal, and phi count against `cytron::construct_cytron`;
//! 3. ssa-ra, `regalloc::allocate_function`, which lists its own passes
//!    (critical edges, PhiLifting, PhiMemCoalesce, spilling, register
//!    assignment, spill-free SSA elimination) and runs a checker after each,
//!    ending with the allocation checker;
//! 4. out-of-ssa, `out_of_ssa::translate_out_of_ssa` (Boissinot et al.; lists
//!    its steps and checkers), then `conventional_alloc::allocate_conventional`
//!    (spill everything or linear scan, then the allocation checker);
//! 5. regalloc2, `regalloc2::allocate_module` (regalloc2 after critical-edge
//!    splitting; regalloc2's checker and the allocation checker), when
//!    [`DiffConfig::regalloc2`] is on;
//! 6. after any route, [`lower_and_check`]: x86-64 lowering (`x86_lower.rs`) and the
//!    machine-code checker (`x86_check.rs`), then `emulator::run_x86`.
//!
//! [`differential`] runs the construction stages in the oracle;
//! [`differential_full`] adds, for each K, the back ends (`backend.rs`:
//! all three back ends and users' allocators, all behind the `Backend`
//! trait, in the order of [`DiffConfig::schedule`]): the programs a back
//! end hands the oracle (ssa-ra's SSA after each allocation pass, route
//! 2's destructed program), then, never trusted to the back end, ssaref's
//! allocation checker on its machine IR ([`check_backend_output`]), the
//! machine IR in the oracle, and its x86-64 code under Unicorn.
//! [`differential_ssa`] runs the same back-end stages on a program given
//! in SSA form, against the oracle's run of that SSA.
//!
//! Architecture invariant: every IR handed from one pass to the next is
//! checked when [`Config::check`] is on, which is the default in debug
//! builds, in release builds with debug assertions (our release profile), and
//! in every test; ssa-ra always runs its checkers.

use crate::analysis::reducibility::is_reducible;
use crate::analysis::verifier::verify_module;
use crate::ast::Program;
use crate::backend::Backend;
use crate::checkers::ssa_properties as checkers;
use crate::construction::braun::{construct_program, BraunOptions};
use crate::construction::cytron::construct_cytron;
use crate::error::{CheckError, PassError};
use crate::ir::Module;
use crate::oracle::{Oracle, OracleError};
use crate::outcome::{End, Outcome};

/// How the pipeline runs.
#[derive(Clone, Debug)]
pub struct Config {
    pub braun: BraunOptions,
    /// Run the checkers between passes.
    pub check: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config { braun: BraunOptions::default(), check: cfg!(debug_assertions) }
    }
}

/// Builds the SSA form of a valid program and, when `config.check` is on,
/// checks it.
pub fn build_ssa(program: &Program, config: &Config) -> Result<Module, PassError> {
    let module = construct_program(program, &config.braun);
    if config.check {
        check_construction(program, &module, &config.braun)?;
    }
    Ok(module)
}

/// The checks of the construction (issue "Foundation", §5):
/// - the SSA verifier;
/// - pruned: every phi feeds a non-phi use (Braun et al. §4);
/// - no trivial phi (Alg. 3 removed them all);
/// - minimal, no redundant phi set (§3.2), required when Algorithm 5 ran, or
///   when the CFG is reducible and no on-the-fly optimization ran
///   (Theorem 1; copy propagation, CSE and folding can make the data flow
///   irreducible, §3.2);
/// - phi count ≤ Cytron et al.'s when Algorithm 5 ran or every CFG is
///   reducible, and equal when every CFG is reducible and no on-the-fly
///   optimization ran.
pub fn check_construction(program: &Program, module: &Module, opts: &BraunOptions) -> Result<(), PassError> {
    let cytron = construct_cytron(program);
    verify_module(&cytron).map_err(|e| PassError::new("cytron", "verify", e))?;
    check_construction_against(module, opts, &cytron)
}

/// [`check_construction`] with Cytron et al.'s SSA of the same program
/// already built (and verified), so that several variants can share it.
pub fn check_construction_against(module: &Module, opts: &BraunOptions, cytron: &Module) -> Result<(), PassError> {
    let pass = format!("braun[{}]", opts.describe());
    let fail = |check: &'static str, error: CheckError| PassError::new(pass.clone(), check, error);
    verify_module(module).map_err(|e| fail("verify", e.into()))?;
    let all_reducible = module.functions.iter().all(is_reducible);
    for f in &module.functions {
        checkers::check_pruned(f).map_err(|e| fail("pruned", e.into()))?;
        checkers::check_no_trivial_phis(f).map_err(|e| fail("no-trivial-phi", e.into()))?;
        let must_be_minimal = opts.remove_redundant_sccs || (is_reducible(f) && opts.no_optimizations());
        if must_be_minimal {
            checkers::check_minimal(f).map_err(|e| fail("minimal", e.into()))?;
        }
    }
    // Without Algorithm 5, irreducible control flow keeps redundant phi
    // SCCs (Fig. 5), so the bound holds only with it or on reducible CFGs.
    if opts.remove_redundant_sccs || all_reducible {
        checkers::compare_phi_counts(module, cytron).map_err(|e| fail("phi-count<=cytron", e.into()))?;
    }
    if all_reducible && opts.no_optimizations() {
        for (b, c) in module.functions.iter().zip(&cytron.functions) {
            let useful = useful_phi_count(c);
            if b.phi_count() != useful {
                return Err(fail(
                    "phi-count=cytron",
                    CheckError::Message(format!(
                        "`{}` is reducible and unoptimized but has {} phis where Cytron et al. place {} useful ones ({} in all)",
                        b.name,
                        b.phi_count(),
                        useful,
                        c.phi_count()
                    )),
                ));
            }
        }
    }
    Ok(())
}

/// The number of phis that transitively feed a non-phi use.
///
/// Cytron et al.'s construction, pruned by variable liveness (Choi et al.),
/// keeps a phi whose variable is read only by an assignment whose own
/// result is never used (`v = a && b;` with `v` dead afterwards: the phi of
/// the `&&` join is "live" because the assignment reads it). Braun et al.'s
/// construction, which ends with dead-phi removal, does not. The phis both
/// must agree on are the useful ones.
pub fn useful_phi_count(f: &crate::ir::Function) -> usize {
    checkers::useful_phis(f).len()
}

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
}

impl std::fmt::Display for StageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StageError::Oracle(e) => e.fmt(f),
            StageError::Emulator(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for StageError {}

/// What the differential check concluded.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Verdict {
    /// Every stage gave the source's outcome.
    Agree { outcome: Outcome, stages: Vec<StageResult> },
    /// The source program ran out of fuel: nothing to compare.
    Inconclusive,
    /// A stage's outcome differs from the source's (the first such stage).
    Diverge { stage: String, expected: Outcome, got: Result<Outcome, StageError> },
    /// A pass produced IR that a checker rejects.
    CheckFailed(PassError),
    /// The oracle could not run the source program.
    SourceError(OracleError),
    /// A pass or checker panicked (a bug of ssaref): the panic's message.
    /// Only [`differential_full_catching`] returns it.
    Panic(String),
}

impl Verdict {
    /// True for `Agree` and `Inconclusive`.
    pub fn is_ok(&self) -> bool {
        matches!(self, Verdict::Agree { .. } | Verdict::Inconclusive)
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
            Verdict::Inconclusive => f.write_str("inconclusive: the source ran out of fuel"),
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

/// Charges the time since `since` to one phase; returns now.
fn charge(since: std::time::Instant, phase: fn(&mut PhaseTimes) -> &mut std::time::Duration) -> std::time::Instant {
    let now = std::time::Instant::now();
    PHASES.with(|p| {
        let mut t = p.get();
        *phase(&mut t) += now - since;
        p.set(t);
    });
    now
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

/// out-of-ssa's configurations are back ends (`backend.rs`); the name stays
/// here for the callers that build a [`DiffConfig`].
pub use crate::backend::OutOfSsa;

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
    /// Run regalloc2 (regalloc2) for every K of `regs`, after ssa-ra and out-of-ssa.
    pub regalloc2: bool,
    /// Further back ends (users' allocators, see `backend.rs`), each run for
    /// every K of `regs` after all three back ends.
    pub backends: Vec<std::sync::Arc<dyn Backend>>,
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

    /// The (back end, K) pairs [`differential_full`] runs, in order: route
    /// 1 for each K and, within it, each option set (the order ssa-ra
    /// always had); then each out-of-ssa configuration for each K; then route
    /// 3 and the further back ends, each for every K.
    pub fn schedule(&self) -> Vec<(std::sync::Arc<dyn Backend>, usize)> {
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

    /// With regalloc2 (regalloc2) too.
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

/// Runs every stage: the source, Cytron's SSA, each construction variant;
/// for each K and ssa-ra option set, the SSA after each allocation pass,
/// the allocated machine IR and its x86-64 code under Unicorn; and for each
/// out-of-ssa configuration, the destructed program, then for each K the
/// allocated machine IR and its x86-64 code; with `config.regalloc2`, for each
/// K, regalloc2's allocated machine IR (`regalloc2[k=K]`) and its x86-64
/// code (`x86-regalloc2[k=K]`). Every route starts from the SSA
/// of `config.backend_ssa` (by default `BraunOptions::all_on()`: copy
/// propagation on, so the swap and lost-copy situations occur). Returns the first divergence or failed
/// check; a panic propagates (see [`differential_full_catching`]).
pub fn differential_full(program: &Program, args: &[i64], oracle: &dyn Oracle, config: &DiffConfig) -> Verdict {
    let first = differential(program, args, oracle, &config.variants, config.fuel);
    let (expected, stages) = match first {
        Verdict::Agree { outcome, stages } => (outcome, stages),
        other => return other,
    };
    if config.regs.is_empty() {
        return Verdict::Agree { outcome: expected, stages };
    }
    let t = std::time::Instant::now();
    let ssa = construct_program(program, &config.backend_ssa);
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
    for (backend, k) in config.schedule() {
        let key = backend.prepare_key();
        let index = match prepared.iter().position(|(p, _)| *p == key) {
            Some(i) => i,
            None => {
                let t = std::time::Instant::now();
                let p = match backend.prepare(ssa) {
                    Ok(p) => p,
                    Err(e) => return Verdict::CheckFailed(e),
                };
                let t = charge(t, |p| &mut p.out_of_ssa);
                if let Some(v) = run_ir_stages(&p.stages, args, oracle, later, &expected, &mut stages) {
                    return v;
                }
                charge(t, |p| &mut p.ssa_runs);
                prepared.push((key, p));
                prepared.len() - 1
            }
        };
        let t = std::time::Instant::now();
        let out = match backend.allocate(ssa, &prepared[index].1, k) {
            Ok(out) => out,
            Err(e) => return Verdict::CheckFailed(e),
        };
        let names = backend.stage_names(k);
        // Never trusted to the back end: ssaref's allocation checker.
        if let Err(e) = check_backend_output(ssa, &out.mir, k, &names.0) {
            return Verdict::CheckFailed(e);
        }
        let t = charge(t, |p| &mut p.allocation);
        if let Some(v) = run_ir_stages(&out.ir_stages, args, oracle, later, &expected, &mut stages) {
            return v;
        }
        charge(t, |p| &mut p.ssa_runs);
        if let Some(v) = allocated_stages(&out.mir, names, args, oracle, config, &expected, &mut stages) {
            return v;
        }
    }
    Verdict::Agree { outcome: expected, stages }
}

/// Runs programs of a back end in the oracle (`BackendOutput::ir_stages`,
/// `Prepared::stages`); pushes the agreeing stages, returns the verdict of
/// the first that disagrees.
fn run_ir_stages(
    programs: &[(String, Module)],
    args: &[i64],
    oracle: &dyn Oracle,
    fuel: u64,
    expected: &Outcome,
    stages: &mut Vec<StageResult>,
) -> Option<Verdict> {
    for (stage, module) in programs {
        let got = oracle.run_ssa(module, args, fuel).map_err(StageError::Oracle);
        if got.as_ref() != Ok(expected) {
            return Some(Verdict::Diverge { stage: stage.clone(), expected: expected.clone(), got });
        }
        stages.push(StageResult { stage: stage.clone(), outcome: got });
    }
    None
}

/// The checks the pipeline runs on every back end's output, whatever the
/// back end checked itself: one function per SSA function, with the same
/// name and `k` registers, and ssaref's allocation checker
/// (`alloc_checker::check_module`, which includes `check_no_scratch`).
/// Errors name the pass `stage` (the back end's machine-IR stage).
pub fn check_backend_output(ssa: &Module, mir: &crate::mir::MModule, k: usize, stage: &str) -> Result<(), PassError> {
    let fail = |check: &'static str, message: String| PassError::new(stage, check, message);
    let names = |fs: Vec<&str>| fs.join(", ");
    let ssa_names: Vec<&str> = ssa.functions.iter().map(|f| f.name.as_str()).collect();
    let mir_names: Vec<&str> = mir.functions.iter().map(|f| f.name.as_str()).collect();
    if ssa_names != mir_names {
        let message = format!("the functions are [{}], not those of the SSA, [{}]", names(mir_names), names(ssa_names));
        return Err(fail("functions", message));
    }
    if let Some(f) = mir.functions.iter().find(|f| f.k != k) {
        return Err(fail("k", format!("`{}` is allocated for K = {}, not {k}", f.name, f.k)));
    }
    crate::checkers::alloc_checker::check_module(mir).map_err(|e| PassError::new(stage, "alloc-checker", e))
}

/// The stages of one allocated module: the MIR in the oracle, then (with
/// `config.x86`) the x86-64 lowering, the machine-code checker, and the run
/// under Unicorn. `names` are the two stage names. Pushes the agreeing
/// stages; returns the verdict of the first disagreement or failed check,
/// or `None` when every stage agrees.
fn allocated_stages(
    mir: &crate::mir::MModule,
    names: (String, String),
    args: &[i64],
    oracle: &dyn Oracle,
    config: &DiffConfig,
    expected: &Outcome,
    stages: &mut Vec<StageResult>,
) -> Option<Verdict> {
    let later = later_stage_fuel(config.fuel);
    let t = std::time::Instant::now();
    // The step count of the MIR run bounds the x86 run: a correct lowering
    // enters at most `emulator::budget_for(steps)` blocks, so wrong code
    // that loops is stopped early.
    let (got, steps) = match oracle.profile_mir(mir, args, later) {
        Ok((o, profile)) => (Ok(o), Some(profile.executed)),
        Err(_) => (oracle.run_mir(mir, args, later).map_err(StageError::Oracle), None),
    };
    let (mir_stage, x86_stage) = names;
    if got.as_ref() != Ok(expected) {
        return Some(Verdict::Diverge { stage: mir_stage, expected: expected.clone(), got });
    }
    stages.push(StageResult { stage: mir_stage, outcome: got });
    let t = charge(t, |p| &mut p.mir_runs);
    if !config.x86 {
        return None;
    }
    let code = match lower_and_check(mir) {
        Ok(code) => code,
        Err(e) => return Some(Verdict::CheckFailed(e)),
    };
    let t = charge(t, |p| &mut p.lowering);
    let budget = crate::machine::emulator::budget_for(steps.unwrap_or(later));
    let got = crate::machine::emulator::run_x86(&code, args, budget).map_err(StageError::Emulator);
    charge(t, |p| &mut p.emulation);
    if got.as_ref() != Ok(expected) {
        return Some(Verdict::Diverge { stage: x86_stage, expected: expected.clone(), got });
    }
    stages.push(StageResult { stage: x86_stage, outcome: got });
    None
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
    let t = std::time::Instant::now();
    let expected = match oracle.run_ssa(module, args, config.fuel) {
        Ok(o) => o,
        Err(e) => return Verdict::SourceError(e),
    };
    charge(t, |p| &mut p.source);
    if expected.end == End::OutOfFuel {
        return Verdict::Inconclusive;
    }
    let stages = vec![StageResult { stage: "ssa-input".into(), outcome: Ok(expected.clone()) }];
    if config.regs.is_empty() {
        return Verdict::Agree { outcome: expected, stages };
    }
    backend_stages(module, args, oracle, config, expected, stages)
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

/// Lowers `main` of an allocated module to x86-64 and runs the
/// machine-code checker on the bytes.
pub fn lower_and_check(mir: &crate::mir::MModule) -> Result<crate::machine::x86_lower::X86Code, PassError> {
    let main = mir.main().ok_or_else(|| PassError::new("x86-lower", "lower", "the program has no `main`"))?;
    let code = crate::machine::x86_lower::lower_function(main).map_err(|e| PassError::new("x86-lower", "lower", e))?;
    crate::machine::x86_check::check_machine_code(&code).map_err(|e| PassError::new("x86-lower", "machine-code", e))?;
    Ok(code)
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
    let t = std::time::Instant::now();
    let expected = match oracle.run_source(program, args, fuel) {
        Ok(o) => o,
        Err(e) => return Verdict::SourceError(e),
    };
    let t = charge(t, |p| &mut p.source);
    if expected.end == End::OutOfFuel {
        return Verdict::Inconclusive;
    }
    let later = later_stage_fuel(fuel);
    let mut stages = vec![StageResult { stage: "source".into(), outcome: Ok(expected.clone()) }];
    let cytron = construct_cytron(program);
    if let Err(e) = verify_module(&cytron) {
        return Verdict::CheckFailed(PassError::new("cytron", "verify", e));
    }
    let mut modules = vec![("cytron".to_string(), cytron)];
    for opts in variants {
        let module = construct_program(program, opts);
        if let Err(e) = check_construction_against(&module, opts, &modules[0].1) {
            return Verdict::CheckFailed(e);
        }
        modules.push((format!("ssa[{}]", opts.describe()), module));
    }
    let t = charge(t, |p| &mut p.construction);
    for (stage, module) in modules {
        let got = oracle.run_ssa(&module, args, later).map_err(StageError::Oracle);
        if got.as_ref() != Ok(&expected) {
            return Verdict::Diverge { stage, expected, got };
        }
        stages.push(StageResult { stage, outcome: got });
    }
    charge(t, |p| &mut p.ssa_runs);
    Verdict::Agree { outcome: expected, stages }
}
