//! What the IR-level programs contain, measured: the table of
//! `ssaref gen --ir --stats`.
//!
//! For each program (seeds `first`, `first + 1`, ...): the SSA verifier
//! (every program must pass), its [`IrShapes`] and, with calls, its
//! [`CallShapes`], and a run in the oracle to count traps and runs out of
//! fuel or call depth (which must be 0: termination is built in).

use super::call_shapes::CallShapes;
use super::ir_case::IrCase;
use super::shapes::IrShapes;
use super::ssa_config::IrGenConfig;
use crate::analysis::verifier::verify_module;
use crate::oracle::Oracle;
use crate::outcome::End;
use std::fmt;

/// Counts over a set of IR-level programs.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct IrStats {
    pub programs: u64,
    /// Blocks, phis and instructions, summed over the programs.
    pub blocks: u64,
    pub phis: u64,
    pub instructions: u64,
    /// How many programs have each shape, in the order of
    /// [`IrShapes::named`].
    pub shapes: Vec<(&'static str, u64)>,
    /// Programs with each call situation of [`CallShapes::NAMES`].
    pub calls: [u64; 9],
    pub trap: u64,
    /// Runs that ran out of fuel, or that the oracle could not run.
    pub out_of_fuel: u64,
    pub oracle_errors: u64,
    /// Programs the verifier rejects.
    pub invalid: u64,
    /// The origins of the first bad programs (invalid, out of fuel, oracle
    /// error), to reproduce them.
    pub bad: Vec<String>,
}

/// How many bad programs [`IrStats`] lists.
const LISTED: usize = 10;

impl IrStats {
    /// Adds one program.
    pub fn record(&mut self, case: &IrCase, oracle: &dyn Oracle, fuel: u64) {
        self.programs += 1;
        for f in &case.module.functions {
            self.blocks += f.block_count() as u64;
            self.phis += f.phi_count() as u64;
            self.instructions += f.inst_count() as u64;
        }
        let shapes = IrShapes::of_module(&case.module);
        if self.shapes.is_empty() {
            self.shapes = shapes.named().iter().map(|&(name, _)| (name, 0)).collect();
        }
        for (row, (_, on)) in self.shapes.iter_mut().zip(shapes.named()) {
            row.1 += u64::from(on);
        }
        for (count, on) in self.calls.iter_mut().zip(CallShapes::of_module(&case.module).flags()) {
            *count += u64::from(on);
        }
        let mut bad = false;
        if verify_module(&case.module).is_err() {
            self.invalid += 1;
            bad = true;
        }
        match oracle.run_ssa(&case.module, &case.args, fuel) {
            Ok(o) => match o.end {
                End::Trap(_) => self.trap += 1,
                End::OutOfFuel | End::CallDepthExceeded => {
                    self.out_of_fuel += 1;
                    bad = true;
                }
                End::Return(_) => {}
            },
            Err(_) => {
                self.oracle_errors += 1;
                bad = true;
            }
        }
        if bad && self.bad.len() < LISTED {
            self.bad.push(case.origin.clone());
        }
    }

    /// True when every program was valid and ran to its end.
    pub fn all_good(&self) -> bool {
        self.invalid == 0 && self.out_of_fuel == 0 && self.oracle_errors == 0
    }
}

/// The statistics of `count` programs made from the seeds `first`,
/// `first + 1`, ... with `config`, each run with `fuel`.
pub fn collect(first: u64, count: u64, config: &IrGenConfig, oracle: &dyn Oracle, fuel: u64) -> IrStats {
    let mut stats = IrStats::default();
    for i in 0..count {
        stats.record(&IrCase::from_seed(first.wrapping_add(i), config), oracle, fuel);
    }
    stats
}

impl fmt::Display for IrStats {
    /// One row per quantity, with the count and the percentage of programs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.programs.max(1) as f64;
        writeln!(f, "{:<34} {:>10} {:>8}", "quantity", "count", "%")?;
        writeln!(f, "{:<34} {:>10} {:>8.2}", "programs (IR level)", self.programs, 100.0)?;
        writeln!(f, "{:<34} {:>10.1}", "mean blocks", self.blocks as f64 / n)?;
        writeln!(f, "{:<34} {:>10.1}", "mean phis", self.phis as f64 / n)?;
        writeln!(f, "{:<34} {:>10.1}", "mean instructions", self.instructions as f64 / n)?;
        let fixed = [
            ("trap", self.trap),
            ("out of fuel or depth (must be 0)", self.out_of_fuel),
            ("oracle error (must be 0)", self.oracle_errors),
            ("verifier rejects (must be 0)", self.invalid),
        ];
        let mut rows: Vec<(String, u64)> = self.shapes.iter().map(|&(name, c)| (name.to_string(), c)).collect();
        if self.calls[0] > 0 {
            rows.extend(CallShapes::NAMES.iter().zip(self.calls).map(|(name, c)| (format!("call: {name}"), c)));
        }
        rows.extend(fixed.iter().map(|&(name, c)| (name.to_string(), c)));
        for (name, count) in rows {
            writeln!(f, "{:<34} {:>10} {:>8.2}", name, count, 100.0 * count as f64 / n)?;
        }
        for origin in &self.bad {
            writeln!(f, "bad program: {origin}")?;
        }
        Ok(())
    }
}
