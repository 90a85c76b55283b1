//! The copy statistics of Boissinot et al., "Revisiting Out-of-SSA
//! Translation for Correctness, Code Quality, and Efficiency" (CGO 2009),
//! §III-E, Fig. 5: for each coalescing variant, the copies left after
//! out-of-SSA translation, static and dynamic, relative to `Intersect`
//! (`ssaref stats --route boissinot`).
//!
//! Needs: an oracle that counts executed copies (`Oracle::profile_ssa`).
//! Every destructed program is also run to the source's outcome; a
//! disagreement is an error, not a statistic.
//!
//! Static copies are the copy instructions of the destructed program (the
//! cycle-breaking copies of Algorithm 1 included). Dynamic copies are the
//! copies the oracle executes on the program's arguments. The paper's
//! "dynamic" column uses a static estimate of block frequencies; we also
//! print that estimate (copies weighted by `10^depth`).

use crate::ast::Program;
use crate::backend::out_of_ssa::translate_module;
use crate::construction::braun::{construct_program, BraunOptions};
use crate::evaluation::eval_error::{EvalError, Within};
use crate::oracle::Oracle;
use crate::out_of_ssa::coalescing::CoalescingVariant;
use crate::out_of_ssa::translate::{LivenessMethod, OutOfSsaOptions, OutOfSsaReport};
use crate::outcome::End;
use crate::pass_manager::flags::Flags;
use std::fmt;

/// The totals of one variant over the corpus.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VariantCopies {
    pub variant: Option<CoalescingVariant>,
    /// The summed reports of every function of every program.
    pub report: OutOfSsaReport,
    /// Copies executed by the oracle.
    pub dynamic_copies: u64,
}

/// The table of Fig. 5.
#[derive(Clone, Debug, Default)]
pub struct CopyTable {
    /// Programs measured (those whose source run ends within the fuel).
    pub programs: usize,
    /// Programs skipped (out of fuel).
    pub skipped: usize,
    /// The liveness method used.
    pub liveness: Option<LivenessMethod>,
    /// The SSA construction variant (`BraunOptions::describe`).
    pub construction: String,
    /// One row per variant, in [`CoalescingVariant::ALL`] order.
    pub rows: Vec<VariantCopies>,
}

/// Translates every program of `corpus` with every variant and counts the
/// copies left (see the module documentation), with the translation's
/// checks when `flags` say so.
pub fn copy_table(
    corpus: &[(Program, Vec<i64>)],
    oracle: &dyn Oracle,
    fuel: u64,
    liveness: LivenessMethod,
    construction: &BraunOptions,
    flags: Flags,
) -> Result<CopyTable, EvalError> {
    let mut table = CopyTable {
        liveness: Some(liveness),
        construction: construction.describe(),
        rows: CoalescingVariant::ALL
            .iter()
            .map(|&v| VariantCopies { variant: Some(v), ..Default::default() })
            .collect(),
        ..Default::default()
    };
    for (k, (program, args)) in corpus.iter().enumerate() {
        let expected = oracle.run_source(program, args, fuel).map_err(EvalError::Oracle)?;
        if expected.end == End::OutOfFuel {
            table.skipped += 1;
            continue;
        }
        table.programs += 1;
        let module = construct_program(program, construction);
        for row in &mut table.rows {
            let variant = row.variant.unwrap_or(CoalescingVariant::Intersect);
            let opts = OutOfSsaOptions { liveness, ..OutOfSsaOptions::fast(variant) };
            let (out, report) = translate_module(&module, &opts, flags).within(|| format!("program {k}"))?;
            let (got, profile) = oracle
                .profile_ssa(&out, args, crate::differential::later_stage_fuel(fuel))
                .map_err(|e| EvalError::Oracle(e).within(format!("program {k}")))?;
            if got != expected {
                let diverge = EvalError::Diverge {
                    stage: "the destructed program".into(),
                    got: Box::new(got),
                    expected: Box::new(expected),
                };
                return Err(diverge.within(format!("program {k}, {}", variant.name())));
            }
            row.report.add(&report);
            row.dynamic_copies += profile.copies;
        }
    }
    Ok(table)
}

impl CopyTable {
    /// The row of `variant`.
    pub fn row(&self, variant: CoalescingVariant) -> Option<&VariantCopies> {
        self.rows.iter().find(|r| r.variant == Some(variant))
    }
}

fn ratio(x: f64, base: f64) -> String {
    if base == 0.0 {
        "-".into()
    } else {
        format!("{:.3}", x / base)
    }
}

impl fmt::Display for CopyTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Boissinot et al. Fig. 5: copies left after out-of-SSA, {} programs ({} skipped, out of fuel), liveness {}",
            self.programs,
            self.skipped,
            self.liveness.map_or("?", |l| l.name())
        )?;
        writeln!(f, "SSA construction: {}", self.construction)?;
        let base = self.row(CoalescingVariant::Intersect).cloned().unwrap_or_default();
        if let Some(first) = self.rows.first() {
            writeln!(
                f,
                "Method I inserted {} copies; the SSA programs had {} copies before; \
                 {} divisions pinned to rax/rdx (§III-D) added {} more",
                first.report.inserted_copies,
                first.report.original_copies,
                first.report.pinned_divisions,
                2 * first.report.pinned_divisions
            )?;
        }
        writeln!(
            f,
            "{:<14} {:>8} {:>7} {:>12} {:>7} {:>14} {:>7} {:>7} {:>7}",
            "variant", "static", "ratio", "dynamic", "ratio", "weighted", "ratio", "cycles", "shared"
        )?;
        for r in &self.rows {
            writeln!(
                f,
                "{:<14} {:>8} {:>7} {:>12} {:>7} {:>14} {:>7} {:>7} {:>7}",
                r.variant.map_or("?", |v| v.name()),
                r.report.remaining_copies,
                ratio(r.report.remaining_copies as f64, base.report.remaining_copies as f64),
                r.dynamic_copies,
                ratio(r.dynamic_copies as f64, base.dynamic_copies as f64),
                r.report.weighted_copies,
                ratio(r.report.weighted_copies as f64, base.report.weighted_copies as f64),
                r.report.cycle_copies,
                r.report.shared_copies,
            )?;
        }
        Ok(())
    }
}

/// The input of the out-of-SSA benchmark (`ssaref bench-out-of-ssa`): SSA
/// functions built from generated programs of seeds `seed`, `seed + 1`, ...
/// (each program's `main`, renamed `f<seed>`, with `size` statements) until
/// they hold at least `instructions` instructions together, like a
/// compilation unit of many functions.
pub fn bench_module(instructions: usize, seed: u64, size: usize) -> crate::ir::Module {
    let config = crate::generate::source::GenConfig { size, ..crate::generate::source::GenConfig::default() };
    let mut module = crate::ir::Module::default();
    let mut total = 0;
    let mut s = seed;
    while total < instructions {
        let tc = crate::generate::source::TestCase::from_seed(s, &config);
        for mut f in construct_program(&tc.program, &BraunOptions::all_on()).functions {
            total += f.inst_count();
            f.name = format!("f{s}");
            module.functions.push(f);
        }
        s = s.wrapping_add(1);
    }
    module
}
