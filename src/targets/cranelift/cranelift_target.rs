//! The `cranelift` target: [`Cranelift`] behind the `Target` trait of
//! `targets/target.rs`, with the option sets of
//! [`CraneliftOptions::every`] (`opt=LEVEL,ra=ALGORITHM,cpu=CPU`).
//!
//! Cranelift runs in process: a batch is one compilation and one Unicorn
//! run per case, with no tool to start. Errors map onto `TargetError`:
//! a rejection or panic of Cranelift (its verifier, regalloc2's checker)
//! is `Compile`, running out of fuel is `Timeout`, running out of the
//! emulator's wall-clock time first is `WallClock` (inconclusive), anything else
//! that stops the code (a fault, a trap the language does not have) is
//! `Crash`.

use super::cranelift_export::{export_clif, CRANELIFT_VERSION};
use super::{clif_of_source, clif_of_ssa, compile_and_run, CraneliftError, CraneliftOptions, Plant};
use crate::outcome::Outcome;
use crate::targets::target::{ExportedFile, Limits, Target, TargetCase, TargetError, TargetInput};
use cranelift_codegen::ir::Function;

/// The Cranelift target. `plant` is for the tests that show a campaign
/// finds an adapter bug; the registered target has none.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cranelift {
    pub plant: Option<Plant>,
}

impl Cranelift {
    /// The target with a planted adapter bug.
    pub fn planted(plant: Plant) -> Self {
        Cranelift { plant: Some(plant) }
    }

    fn options(&self, text: &str) -> Result<CraneliftOptions, TargetError> {
        CraneliftOptions::every()
            .into_iter()
            .find(|o| o.describe() == text)
            .map(|o| CraneliftOptions { plant: self.plant, ..o })
            .ok_or_else(|| {
                TargetError::BadOptions(format!("`{text}` (cranelift offers {})", self.option_sets().join(" ")))
            })
    }

    fn translate(&self, case: &TargetCase) -> Result<(Vec<Function>, usize), TargetError> {
        let r = match &case.input {
            TargetInput::Source(p) => clif_of_source(p, self.plant),
            TargetInput::Ssa(m) => clif_of_ssa(m, self.plant),
        };
        r.map_err(|e| TargetError::Unsupported(e.to_string()))
    }

    fn run_one(&self, case: &TargetCase, options: &CraneliftOptions, limits: &Limits) -> Result<Outcome, TargetError> {
        let (funcs, params) = self.translate(case)?;
        if case.args.len() > params {
            return Err(TargetError::Unsupported(format!("main takes {params} argument(s), got {}", case.args.len())));
        }
        compile_and_run(&funcs, params, options, &case.args, limits.fuel, limits.per_program).map_err(|e| match e {
            CraneliftError::Compile(m) => TargetError::Compile { command: self.command(options), stderr: m },
            CraneliftError::OutOfFuel => TargetError::Timeout { seconds: limits.per_program.as_secs() },
            CraneliftError::TimeUp => TargetError::WallClock { seconds: limits.per_program.as_secs() },
            CraneliftError::TraceFull => {
                TargetError::TraceFull { capacity: super::cranelift_ops::TRACE_CAPACITY as u64 }
            }
            CraneliftError::Run(m) => TargetError::Crash(m),
        })
    }

    fn command(&self, options: &CraneliftOptions) -> String {
        format!("cranelift-codegen {CRANELIFT_VERSION} compile ({})", options.describe())
    }
}

impl Target for Cranelift {
    fn name(&self) -> &str {
        "cranelift"
    }

    fn option_sets(&self) -> Vec<String> {
        CraneliftOptions::every().iter().map(CraneliftOptions::describe).collect()
    }

    fn version(&self) -> Result<String, TargetError> {
        Ok(format!("cranelift-codegen {CRANELIFT_VERSION} (in process, x86-64 under Unicorn)"))
    }

    fn run_batch(
        &self,
        cases: &[TargetCase],
        options: &str,
        limits: &Limits,
    ) -> Result<Vec<Result<Outcome, TargetError>>, TargetError> {
        let options = self.options(options)?;
        Ok(cases.iter().map(|c| self.run_one(c, &options, limits)).collect())
    }

    fn export(
        &self,
        case: &TargetCase,
        options: &str,
        expected: &Outcome,
        stem: &str,
    ) -> Result<Vec<ExportedFile>, TargetError> {
        let opts = self.options(options)?;
        let (funcs, params) = self.translate(case)?;
        let actual = match self.run_one(case, &opts, &Limits::default()) {
            Ok(o) => o.render_full(),
            Err(e) => e.to_string(),
        };
        let origin = format!("{stem}: a case ssaref's oracle and Cranelift disagree on (`clif-util test {stem}.clif`)");
        let text = export_clif(&funcs, params, &opts, &case.full_args(), expected, &actual, &origin);
        Ok(vec![ExportedFile { suffix: ".clif".into(), text }])
    }
}
