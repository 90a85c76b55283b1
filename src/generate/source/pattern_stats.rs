//! What the generated programs contain, measured: the table of
//! `ssaref gen --stats`.
//!
//! For each program (seeds `first`, `first + 1`, ...) this builds Braun et
//! al.'s SSA form with every on-the-fly optimization on
//! ([`BraunOptions::all_on`], copy propagation included, the form the
//! situations of [`super::patterns`] are defined on), looks for each
//! situation, and runs the program in the oracle, on the AST and on that
//! SSA form, to count traps, runs out of fuel, and disagreements (which must
//! be 0).

use super::calls::CallFeatures;
use super::jump_kinds::{JumpKinds, LISTS, POSITIONS, REGIONS};
use super::patterns::Patterns;
use super::source_config::GenConfig;
use crate::construction::braun::{construct_program, BraunOptions};
use crate::differential::later_stage_fuel;
use crate::frontend::case_file::TestCase;
use crate::oracle::Oracle;
use crate::outcome::End;
use std::fmt;

/// Counts over a set of generated programs.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Stats {
    pub programs: u64,
    /// Statements of the ASTs, nested ones included.
    pub statements: u64,
    /// Phis and instructions of the SSA forms (terminators not counted).
    pub ssa_instructions: u64,
    pub irreducible: u64,
    pub has_phis: u64,
    pub swap: u64,
    pub lost_copy: u64,
    pub branch_use: u64,
    pub rotation: u64,
    pub fan_out: u64,
    pub critical_edge: u64,
    /// Two loads of one word with a store between them, meeting in a phi
    /// (`patterns::has_mem_web`).
    pub mem_web: u64,
    /// Programs with a `goto` into a region of each kind of
    /// [`REGIONS`], forward (`[0]`) and backward (`[1]`) (`jump_kinds.rs`).
    pub into_region: [[u64; 2]; 4],
    /// Programs with a label at each of [`POSITIONS`].
    pub label_at: [u64; 6],
    /// Programs with a label in each of [`LISTS`].
    pub label_in: [u64; 5],
    /// Source runs that ended in a trap.
    pub trap: u64,
    /// Source runs that ran out of fuel.
    pub out_of_fuel: u64,
    /// Source runs that went deeper than `ast::MAX_CALL_DEPTH`.
    pub call_depth_exceeded: u64,
    /// Programs with each call situation of [`CallFeatures::NAMES`].
    pub calls: [u64; 9],
    /// Programs whose SSA run did not give the source run's outcome (or
    /// that the oracle could not run).
    pub disagreements: u64,
    /// The origins of the first disagreeing programs, to reproduce them.
    pub disagreeing: Vec<String>,
}

/// How many disagreeing programs [`Stats`] lists.
const LISTED: usize = 10;

impl Stats {
    /// Adds one program.
    pub fn record(&mut self, tc: &TestCase, oracle: &dyn Oracle, fuel: u64) {
        self.programs += 1;
        self.statements += tc.statement_count() as u64;
        let module = construct_program(&tc.program, &BraunOptions::all_on());
        self.ssa_instructions += module.functions.iter().map(|f| (f.phi_count() + f.inst_count()) as u64).sum::<u64>();
        let p = Patterns::of_module(&module);
        let flags = [
            (p.irreducible, &mut self.irreducible),
            (p.has_phis, &mut self.has_phis),
            (p.swap, &mut self.swap),
            (p.lost_copy, &mut self.lost_copy),
            (p.branch_use, &mut self.branch_use),
            (p.rotation, &mut self.rotation),
            (p.fan_out, &mut self.fan_out),
            (p.critical_edge, &mut self.critical_edge),
            (p.mem_web, &mut self.mem_web),
        ];
        for (on, count) in flags {
            *count += u64::from(on);
        }
        let jumps = JumpKinds::of_program(&tc.program);
        for (count, on) in self.into_region.iter_mut().flatten().zip(jumps.into.iter().flatten()) {
            *count += u64::from(*on);
        }
        for (count, on) in self.label_at.iter_mut().zip(jumps.label_at) {
            *count += u64::from(on);
        }
        for (count, on) in self.label_in.iter_mut().zip(jumps.label_in) {
            *count += u64::from(on);
        }
        for (count, on) in self.calls.iter_mut().zip(CallFeatures::of(&tc.program).flags()) {
            *count += u64::from(on);
        }
        let source = oracle.run_source(&tc.program, &tc.args, fuel);
        let agrees = match &source {
            Ok(o) => {
                match o.end {
                    End::Trap(_) => self.trap += 1,
                    End::OutOfFuel => self.out_of_fuel += 1,
                    End::CallDepthExceeded => self.call_depth_exceeded += 1,
                    End::Return(_) => {}
                }
                o.end.is_inconclusive() || oracle.run_ssa(&module, &tc.args, later_stage_fuel(fuel)).as_ref() == Ok(o)
            }
            Err(_) => false,
        };
        if !agrees {
            self.disagreements += 1;
            if self.disagreeing.len() < LISTED {
                self.disagreeing.push(tc.origin.clone());
            }
        }
    }
}

/// The statistics of `count` programs made from the seeds `first`,
/// `first + 1`, ... with `config`, each run with `fuel`.
pub fn collect(first: u64, count: u64, config: &GenConfig, oracle: &dyn Oracle, fuel: u64) -> Stats {
    let mut stats = Stats::default();
    for i in 0..count {
        let tc = TestCase::from_seed(first.wrapping_add(i), config);
        stats.record(&tc, oracle, fuel);
    }
    stats
}

impl fmt::Display for Stats {
    /// One row per quantity, with the count and the percentage of programs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.programs.max(1) as f64;
        writeln!(f, "{:<34} {:>10} {:>8}", "quantity", "count", "%")?;
        writeln!(f, "{:<34} {:>10} {:>8.2}", "programs", self.programs, 100.0)?;
        writeln!(f, "{:<34} {:>10.1}", "mean statements (AST)", self.statements as f64 / n)?;
        writeln!(f, "{:<34} {:>10.1}", "mean SSA instructions (phis incl.)", self.ssa_instructions as f64 / n)?;
        let rows = [
            ("irreducible", self.irreducible),
            ("has phis", self.has_phis),
            ("swap", self.swap),
            ("lost copy", self.lost_copy),
            ("branch-use", self.branch_use),
            ("rotation", self.rotation),
            ("fan-out", self.fan_out),
            ("critical edge", self.critical_edge),
            ("memory web", self.mem_web),
        ];
        let mut rows: Vec<(String, u64)> = rows.iter().map(|&(n, c)| (n.to_string(), c)).collect();
        for (r, name) in REGIONS.iter().enumerate() {
            for (d, dir) in ["forward", "backward"].iter().enumerate() {
                rows.push((format!("goto into {name}, {dir}"), self.into_region[r][d]));
            }
        }
        rows.extend(POSITIONS.iter().zip(self.label_at).map(|(p, c)| (format!("label {p}"), c)));
        rows.extend(LISTS.iter().zip(self.label_in).map(|(l, c)| (format!("label in {l}"), c)));
        if self.calls[0] > 0 {
            rows.extend(CallFeatures::NAMES.iter().zip(self.calls).map(|(n, c)| (format!("call: {n}"), c)));
            rows.push(("call depth exceeded".to_string(), self.call_depth_exceeded));
        }
        for (name, count) in
            [("trap", self.trap), ("out of fuel", self.out_of_fuel), ("AST-vs-SSA disagreement", self.disagreements)]
        {
            rows.push((name.to_string(), count));
        }
        for (name, count) in rows {
            writeln!(f, "{:<34} {:>10} {:>8.2}", name, count, 100.0 * count as f64 / n)?;
        }
        for origin in &self.disagreeing {
            writeln!(f, "disagreement: {origin}")?;
        }
        Ok(())
    }
}
