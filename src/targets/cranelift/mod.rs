//! Cranelift under the oracle (Cargo feature `cranelift`).
//!
//! A source program's `main` goes through `cranelift-frontend`'s
//! `FunctionBuilder` straight from the AST (`cranelift_source.rs`), an SSA
//! program's `main` in as blocks with parameters (`cranelift_ssa.rs`);
//! both use the operations of `cranelift_ops.rs`, which give every
//! operator the oracle's meaning. The function is compiled for x86-64 with
//! Cranelift's verifier and regalloc2's checker on, at one of the
//! [`CraneliftOptions::every`] option sets, and run under Unicorn
//! (`cranelift_run.rs`); `cranelift_export.rs` writes a failing case as a
//! `.clif` test for Cranelift's own `clif-util test`;
//! `cranelift_target.rs` puts it all behind the `Target` trait.
//!
//! Only `main` is compiled: the language has no calls, so no other
//! function can change the outcome.

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

/// `main` of a source program in Cranelift IR, with its parameter count.
pub fn clif_of_source(
    program: &crate::ast::Program,
    plant: Option<Plant>,
) -> Result<(Function, usize), CraneliftError> {
    let main = program.main().ok_or_else(|| CraneliftError::Run("no function named `main`".into()))?;
    if program.has_calls() {
        return Err(CraneliftError::CallsNotSupported);
    }
    let n = main.params.len();
    let mut func = Function::with_name_signature(UserFuncName::testcase("main"), signature(n));
    cranelift_source::lower_source(main, &mut func, plant);
    Ok((func, n))
}

/// `main` of an SSA module in Cranelift IR, with its parameter count.
pub fn clif_of_ssa(module: &crate::ir::Module, plant: Option<Plant>) -> Result<(Function, usize), CraneliftError> {
    let main = module.main().ok_or_else(|| CraneliftError::Run("no function named `main`".into()))?;
    if module.has_calls() {
        return Err(CraneliftError::CallsNotSupported);
    }
    let n = main.params.len();
    let mut func = Function::with_name_signature(UserFuncName::testcase("main"), signature(n));
    cranelift_ssa::lower_ssa(main, &mut func, plant).map_err(|e| CraneliftError::Run(e.to_string()))?;
    Ok((func, n))
}

/// The wall-clock limit of one run under Unicorn: a run that ends within
/// the oracle's fuel takes a fraction of it; only wrong code that loops
/// (with more fuel than the program needs) meets it.
pub const RUN_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Compiles `func` with `options` and runs it with `args`, `fuel` and a
/// wall-clock limit.
pub fn compile_and_run(
    func: &Function,
    params: usize,
    options: &CraneliftOptions,
    args: &[i64],
    fuel: u64,
    limit: std::time::Duration,
) -> Result<Outcome, CraneliftError> {
    let isa = options.isa()?;
    let code = cranelift_run::compile(func, &isa, params)?;
    cranelift_run::run(&code, args, fuel, limit)
}

/// Runs a source program's `main` through Cranelift with `options`.
pub fn run_source(
    program: &crate::ast::Program,
    options: &CraneliftOptions,
    args: &[i64],
    fuel: u64,
) -> Result<Outcome, CraneliftError> {
    let (func, n) = clif_of_source(program, options.plant)?;
    compile_and_run(&func, n, options, args, fuel, RUN_TIME_LIMIT)
}

/// Runs an SSA module's `main` through Cranelift with `options`.
pub fn run_ssa(
    module: &crate::ir::Module,
    options: &CraneliftOptions,
    args: &[i64],
    fuel: u64,
) -> Result<Outcome, CraneliftError> {
    let (func, n) = clif_of_ssa(module, options.plant)?;
    compile_and_run(&func, n, options, args, fuel, RUN_TIME_LIMIT)
}
