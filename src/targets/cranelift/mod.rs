//! Cranelift under the oracle (Cargo feature `cranelift`).
//!
//! Each function of a source program goes through `cranelift-frontend`'s
//! `FunctionBuilder` straight from the AST (`cranelift_source.rs`), each
//! function of an SSA program in as blocks with parameters
//! (`cranelift_ssa.rs`); both use the operations of `cranelift_ops.rs`,
//! which give every operator the oracle's meaning and make each call a
//! Cranelift `call` in its System V convention. The functions are compiled
//! for x86-64 with Cranelift's verifier and regalloc2's checker on, at one
//! of the [`CraneliftOptions::every`] option sets, linked `main` first and
//! run under Unicorn (`cranelift_run.rs`); `cranelift_export.rs` writes a
//! failing case as a `.clif` test for Cranelift's own `clif-util test`;
//! `cranelift_target.rs` puts it all behind the `Target` trait.
//!
//! Every function is compiled, called or not, so that Cranelift's verifier
//! and checker see each one; a call deeper than the oracle's
//! `ast::MAX_CALL_DEPTH` never runs, since the oracle's run of such a
//! program is inconclusive and the target does not run it
//! (`targets/target.rs`, `TargetVerdict::Skipped`).

pub mod cranelift_export;
pub mod cranelift_ops;
pub mod cranelift_run;
pub mod cranelift_source;
pub mod cranelift_ssa;
pub mod cranelift_target;

pub use cranelift_ops::Plant;
pub use cranelift_ops::{frontend_config, signature};
pub use cranelift_run::CraneliftError;

use crate::outcome::Outcome;
use cranelift_codegen::ir::{Function, UserFuncName};
use cranelift_codegen::isa::OwnedTargetIsa;
use std::cell::RefCell;
use std::collections::HashMap;

/// Cranelift's optimization levels (setting `opt_level`).
pub const OPT_LEVELS: [&str; 3] = ["none", "speed", "speed_and_size"];
/// Cranelift's register allocation algorithms (setting `regalloc_algorithm`).
pub const REGALLOC_ALGORITHMS: [&str; 2] = ["backtracking", "single_pass"];
/// The x86-64 CPUs compiled for: the baseline (SSE2), and Haswell (BMI1,
/// BMI2, LZCNT, POPCNT, AVX2), the Unicorn CPU model, so that the lowering
/// rules that use those instructions are tested too.
pub const CPUS: [&str; 2] = ["baseline", "haswell"];

/// One option set of the Cranelift target.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CraneliftOptions {
    /// One of [`OPT_LEVELS`].
    pub opt_level: &'static str,
    /// One of [`REGALLOC_ALGORITHMS`].
    pub regalloc: &'static str,
    /// One of [`CPUS`].
    pub cpu: &'static str,
    /// A deliberate adapter bug, for the tests that show a campaign finds
    /// one; `None` everywhere else.
    pub plant: Option<Plant>,
}

impl CraneliftOptions {
    /// Every combination of optimization level, allocator and CPU (12).
    pub fn every() -> Vec<CraneliftOptions> {
        let mut sets = Vec::new();
        for opt_level in OPT_LEVELS {
            for regalloc in REGALLOC_ALGORITHMS {
                for cpu in CPUS {
                    sets.push(CraneliftOptions { opt_level, regalloc, cpu, plant: None });
                }
            }
        }
        sets
    }

    /// `opt=LEVEL,ra=ALGORITHM,cpu=CPU`, plus `plant=...` when planted.
    pub fn describe(&self) -> String {
        let mut s = format!("opt={},ra={},cpu={}", self.opt_level, self.regalloc, self.cpu);
        if let Some(p) = self.plant {
            s.push_str(&format!(",plant={p:?}"));
        }
        s
    }

    /// The settings given to Cranelift, `name = value`: the option set's,
    /// plus the verifier and the register allocator's checker.
    pub fn settings(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("opt_level", self.opt_level),
            ("regalloc_algorithm", self.regalloc),
            ("enable_verifier", "true"),
            ("regalloc_checker", "true"),
        ]
    }

    /// The ISA for this option set, built once per thread.
    pub fn isa(&self) -> Result<OwnedTargetIsa, CraneliftError> {
        thread_local! {
            static ISAS: RefCell<HashMap<(&'static str, &'static str, &'static str), OwnedTargetIsa>> =
                RefCell::new(HashMap::new());
        }
        let key = (self.opt_level, self.regalloc, self.cpu);
        if let Some(isa) = ISAS.with(|m| m.borrow().get(&key).cloned()) {
            return Ok(isa);
        }
        let isa = cranelift_run::isa(&self.settings(), self.cpu)?;
        ISAS.with(|m| m.borrow_mut().insert(key, isa.clone()));
        Ok(isa)
    }
}

/// The functions of a program in Cranelift IR, `main` first, each named
/// by its own name (`UserFuncName::testcase`), with `main`'s parameter
/// count.
pub type ClifProgram = (Vec<Function>, usize);

/// `names` in the order the functions are laid out: `main` first, then the
/// others as the program lists them.
fn main_first<'a>(names: impl Iterator<Item = &'a str>) -> Vec<(usize, &'a str)> {
    let mut order: Vec<(usize, &str)> = names.enumerate().collect();
    order.sort_by_key(|&(_, n)| n != "main");
    order
}

/// Every function of a source program in Cranelift IR, `main` first.
pub fn clif_of_source(program: &crate::ast::Program, plant: Option<Plant>) -> Result<ClifProgram, CraneliftError> {
    let main = program.main().ok_or_else(|| CraneliftError::Run("no function named `main`".into()))?;
    let n = main.params.len();
    let mut funcs = Vec::with_capacity(program.functions.len());
    for (i, name) in main_first(program.functions.iter().map(|f| f.name.as_str())) {
        let f = &program.functions[i];
        let mut func = Function::with_name_signature(UserFuncName::testcase(name), signature(f.params.len()));
        cranelift_source::lower_source(f, &mut func, plant);
        funcs.push(func);
    }
    Ok((funcs, n))
}

/// Every function of an SSA module in Cranelift IR, `main` first.
pub fn clif_of_ssa(module: &crate::ir::Module, plant: Option<Plant>) -> Result<ClifProgram, CraneliftError> {
    let main = module.main().ok_or_else(|| CraneliftError::Run("no function named `main`".into()))?;
    let n = main.params.len();
    let arity: HashMap<&str, usize> = module.functions.iter().map(|f| (f.name.as_str(), f.params.len())).collect();
    let mut funcs = Vec::with_capacity(module.functions.len());
    for (i, name) in main_first(module.functions.iter().map(|f| f.name.as_str())) {
        let f = &module.functions[i];
        let mut func = Function::with_name_signature(UserFuncName::testcase(name), signature(f.params.len()));
        cranelift_ssa::lower_ssa(f, &arity, &mut func, plant)
            .map_err(|e| CraneliftError::Run(format!("{name}: {e}")))?;
        funcs.push(func);
    }
    Ok((funcs, n))
}

/// The wall-clock limit of one run under Unicorn: a run that ends within
/// the oracle's fuel takes a fraction of it; only wrong code that loops
/// (with more fuel than the program needs) meets it.
pub const RUN_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Compiles and links `funcs` (`main` first, with `params` parameters)
/// with `options` and runs `main` with `args`, `fuel` and a wall-clock
/// limit.
pub fn compile_and_run(
    funcs: &[Function],
    params: usize,
    options: &CraneliftOptions,
    args: &[i64],
    fuel: u64,
    limit: std::time::Duration,
) -> Result<Outcome, CraneliftError> {
    let isa = options.isa()?;
    let code = cranelift_run::compile(funcs, &isa, params)?;
    cranelift_run::run(&code, args, fuel, limit)
}

/// Runs a source program through Cranelift with `options`.
pub fn run_source(
    program: &crate::ast::Program,
    options: &CraneliftOptions,
    args: &[i64],
    fuel: u64,
) -> Result<Outcome, CraneliftError> {
    let (funcs, n) = clif_of_source(program, options.plant)?;
    compile_and_run(&funcs, n, options, args, fuel, RUN_TIME_LIMIT)
}

/// Runs an SSA module through Cranelift with `options`.
pub fn run_ssa(
    module: &crate::ir::Module,
    options: &CraneliftOptions,
    args: &[i64],
    fuel: u64,
) -> Result<Outcome, CraneliftError> {
    let (funcs, n) = clif_of_ssa(module, options.plant)?;
    compile_and_run(&funcs, n, options, args, fuel, RUN_TIME_LIMIT)
}
