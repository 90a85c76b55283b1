//! The pipeline on one page: [`compile`] runs every pass in order, with the
//! checks between them, the way QBE's `func()` or Cranelift's
//! `Context::compile` does. The differential check
//! (`differential.rs`) runs the same passes with the oracle between them.
//!
//! The passes, each followed by its checks:
//!
//! | pass | where | checked after it |
//! |---|---|---|
//! | parsing (before the pipeline) | `frontend/parser.rs`, `parse_program` | — |
//! | SSA construction (Braun et al., "Simple and Efficient Construction of Static Single Assignment Form", CC 2013) | `construction/braun/`, `construct_program` | [`check_construction`]: SSA verifier, pruned, no trivial phi, minimal, phi count against Cytron et al. (`construction/cytron.rs`) |
//! | the back end's preparation, once per program | `Backend::prepare` (out-of-ssa: `translate_function` in `backend/out_of_ssa.rs`) | the back end's own checkers |
//! | register allocation for K registers | `Backend::allocate`, whose pass lists are one function per back end: ssa-ra `allocate_function` in `backend/ssa_ra.rs`; out-of-ssa `allocate_function` in `backend/out_of_ssa.rs`; regalloc2 `allocate_function` in `backend/regalloc2.rs` | the back end's own checkers, then [`check_backend_output`]: one function per SSA function, K registers, ssaref's allocation checker |
//! | x86-64 lowering of `main`, or of the whole module when it has calls | `machine/x86_lower.rs`, `machine/x86_frames.rs` | the machine-code checker (`machine/x86_check.rs`) |
//!
//! `ssaref emit` and `ssaref run` are built from the same three steps
//! ([`build_ssa`], [`allocate`], [`lower`]): they may stop after the
//! allocation and share one SSA form among several back ends.
//!
//! Architecture invariant: the check switch is one value,
//! [`Config::flags`] (`pass_manager/flags.rs`), chosen by the caller and
//! passed down to every back end and every pass runner. With it on, every
//! IR handed from one pass to the next is checked; with it off, no checker
//! starts. The differential driver runs the oracle's own judges on every
//! back end's output whatever the switch says: ssaref's allocation checker
//! ([`check_backend_output`]) and the machine-code checker
//! ([`lower_and_check`]).

use crate::analysis::reducibility::is_reducible;
use crate::analysis::verifier::verify_module;
use crate::ast::Program;
use crate::backend::Backend;
use crate::checkers::ssa_properties as checkers;
use crate::construction::braun::{construct_program, BraunOptions};
use crate::construction::cytron::construct_cytron;
use crate::error::{CheckError, LowerError, PassError};
use crate::ir::Module;
use crate::machine::x86_lower::X86Code;
use crate::mir::MModule;
use crate::pass_manager::flags::Flags;
use crate::pass_manager::runner::{PassRunner, Unobserved};

/// How the pipeline runs.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub braun: BraunOptions,
    /// The check switch, for every pass and back end of the pipeline
    /// (default: the build's, `Flags::build_default`).
    pub flags: Flags,
}

/// A program after every pass of [`compile`].
#[derive(Clone, Debug)]
pub struct Compiled {
    /// Braun et al.'s SSA form of the program.
    pub ssa: Module,
    /// The allocated machine IR.
    pub mir: MModule,
    /// The x86-64 code of `main`.
    pub x86: X86Code,
}

/// Compiles a parsed program with `backend` for `k` registers: every pass
/// of the module documentation in order, each followed by its checks.
pub fn compile(program: &Program, backend: &dyn Backend, k: usize, config: &Config) -> Result<Compiled, PassError> {
    // Braun et al.'s construction; with the flags on, its checks.
    let ssa = build_ssa(program, config)?;
    // The back end's preparation and allocation, each with its own
    // checkers; then ssaref's allocation checker.
    let mir = allocate(&ssa, backend, k, config)?;
    // x86-64 lowering; then the machine-code checker.
    let x86 = lower(&mir, config)?;
    Ok(Compiled { ssa, mir, x86 })
}

/// The first pass of [`compile`]: Braun et al.'s construction of the SSA
/// form of a valid program and, when the flags say so, its checks
/// ([`check_construction`]).
pub fn build_ssa(program: &Program, config: &Config) -> Result<Module, PassError> {
    let mut passes = PassRunner::<Module>::new(config.flags);
    passes.run(
        "braun",
        || Ok(construct_program(program, &config.braun)),
        |module| check_construction(program, module, &config.braun),
    )
}

/// Braun et al.'s construction with each option set of `variants`, and
/// Cytron et al.'s SSA of the same program, which the differential driver
/// runs as a stage of its own: when the flags say so, Cytron et al.'s SSA
/// is verified and each variant checked against it
/// ([`check_construction_against`]), one pass each.
pub fn build_ssa_variants(
    program: &Program,
    variants: &[BraunOptions],
    flags: Flags,
) -> Result<(Module, Vec<Module>), PassError> {
    let mut passes = PassRunner::<Module>::new(flags);
    let cytron = passes.run(
        "cytron",
        || Ok(construct_cytron(program)),
        |cytron| verify_module(cytron).map_err(|e| PassError::new("cytron", "verify", e)),
    )?;
    let mut modules = Vec::with_capacity(variants.len());
    for opts in variants {
        let module = passes.run(
            "braun",
            || Ok(construct_program(program, opts)),
            |module| check_construction_against(module, opts, &cytron),
        )?;
        modules.push(module);
    }
    Ok((cytron, modules))
}

/// The checks of the construction:
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
                    CheckError::PhiCountNotUseful {
                        function: b.name.clone(),
                        phis: b.phi_count(),
                        useful,
                        cytron: c.phi_count(),
                    },
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

/// The back end's passes of [`compile`] on the SSA form `ssa`: its
/// preparation (once per program; out-of-ssa's out-of-SSA translation) and
/// its allocation for `k` registers, each with the back end's own checkers,
/// then, when the flags say so, [`check_backend_output`], which trusts
/// nothing the back end checked (the differential driver runs it always).
/// The allocated code alone: no observer is shown the back end's stages.
pub fn allocate(ssa: &Module, backend: &dyn Backend, k: usize, config: &Config) -> Result<MModule, PassError> {
    let prepared = backend.prepare(ssa, config.flags, &mut Unobserved)?;
    let mut passes = PassRunner::<MModule>::new(config.flags);
    passes.run(
        "allocate",
        || backend.allocate(ssa, &prepared, k, config.flags, &mut Unobserved),
        |mir| check_backend_output(ssa, mir, k, &backend.stage_names(k).0),
    )
}

/// out-of-ssa's preparation alone: Boissinot et al.'s translation of
/// every function of `ssa` out of SSA form with `opts`
/// (`translate_function` in `backend/out_of_ssa.rs`), and the variables
/// each function pins to fixed registers, with the checks when the flags
/// say so (`ssaref emit --stage out-of-ssa`, `ssaref run --stage
/// out-of-ssa`).
pub fn translate_out_of_ssa(
    ssa: &Module,
    opts: &crate::out_of_ssa::translate::OutOfSsaOptions,
    config: &Config,
) -> Result<(Module, Vec<crate::out_of_ssa::renaming_constraints::Pins>), PassError> {
    crate::backend::out_of_ssa::translate_module_with_pins(ssa, opts, config.flags)
        .map(|(module, pins, _)| (module, pins))
}

/// The checks the pipeline runs on every back end's output, whatever the
/// back end checked itself: one function per SSA function, with the same
/// name and `k` registers, and ssaref's allocation checker
/// (`alloc_checker::check_module`, which includes `check_no_scratch`).
/// Errors name the pass `stage` (the back end's machine-IR stage).
pub fn check_backend_output(ssa: &Module, mir: &MModule, k: usize, stage: &str) -> Result<(), PassError> {
    let fail = |check: &'static str, error: CheckError| PassError::new(stage, check, error);
    let names = |fs: Vec<&str>| fs.join(", ");
    let ssa_names: Vec<&str> = ssa.functions.iter().map(|f| f.name.as_str()).collect();
    let mir_names: Vec<&str> = mir.functions.iter().map(|f| f.name.as_str()).collect();
    if ssa_names != mir_names {
        let error = CheckError::FunctionsDiffer { allocated: names(mir_names), ssa: names(ssa_names) };
        return Err(fail("functions", error));
    }
    if let Some(f) = mir.functions.iter().find(|f| f.k != k) {
        return Err(fail("k", CheckError::WrongK { function: f.name.clone(), allocated: f.k, k }));
    }
    crate::checkers::alloc_checker::check_module(mir).map_err(|e| PassError::new(stage, "alloc-checker", e))
}

/// The last pass of [`compile`]: lowers `main` of an allocated module to
/// x86-64 (without the listing's notes) and, when the flags say so, runs
/// the machine-code checker on the bytes.
pub fn lower(mir: &MModule, config: &Config) -> Result<X86Code, PassError> {
    lower_main(mir, false, config.flags)
}

/// Lowers `main` of an allocated module to x86-64 and runs the
/// machine-code checker on the bytes, whether or not checks are on (the
/// differential driver).
pub fn lower_and_check(mir: &MModule) -> Result<X86Code, PassError> {
    lower_main(mir, false, Flags::checked())
}

/// [`lower_and_check`] with the notes of the listing
/// (`x86_lower::listing`), for the commands that print it.
pub fn lower_and_check_listed(mir: &MModule) -> Result<X86Code, PassError> {
    lower_main(mir, true, Flags::checked())
}

fn lower_main(mir: &MModule, listed: bool, flags: Flags) -> Result<X86Code, PassError> {
    use crate::machine::x86_lower::{lower_function, lower_function_listed};
    let main = mir.main().ok_or_else(|| PassError::new("x86-lower", "lower", LowerError::NoMain))?;
    // A module with calls is lowered whole, with its entry stub and frames
    // (`machine/x86_frames.rs`); without calls, `main` alone, as before.
    let with_calls = mir.function_with_calls().is_some();
    PassRunner::<X86Code>::new(flags).run(
        "x86-lower",
        || {
            match (with_calls, listed) {
                (true, _) => crate::machine::x86_frames::lower_module(mir, listed),
                (false, true) => lower_function_listed(main),
                (false, false) => lower_function(main),
            }
            .map_err(|e| PassError::new("x86-lower", "lower", e))
        },
        |code| {
            crate::machine::x86_check::check_machine_code(code)
                .map_err(|e| PassError::new("x86-lower", "machine-code", e))
        },
    )
}
