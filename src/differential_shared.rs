//! The oracle's runs of the SSA stages of one program, each distinct
//! module run once.
//!
//! Needs: an oracle whose run of a module is a function of the module, the
//! arguments and the fuel (`interp/` is one: it keeps no state between
//! runs).
//!
//! Within one program the back ends show the differential check many
//! equal SSA modules: ssa-ra's passes that do not depend on K give the
//! same function at every K and for option sets that agree on
//! PhiMemCoalesce, and at a K above the register pressure spilling leaves
//! the function as it found it. [`SsaRuns::run`] keeps every module it ran
//! with its outcome and answers an equal module (full equality, never a
//! hash) with that outcome instead of running it again. The caller judges
//! and counts the stage under its own name either way, so the stage
//! outcomes compared are those of running every module.

use crate::ir::Module;
use crate::oracle::{Oracle, OracleError};
use crate::outcome::Outcome;

/// The SSA modules of one program run so far, with their outcomes, for
/// one list of arguments and one fuel.
#[derive(Default)]
pub struct SsaRuns {
    runs: Vec<Run>,
}

/// One module run, with its [`size`] (compared first, since it is cheaper
/// than the modules) and its outcome.
struct Run {
    module: Module,
    size: (usize, usize),
    outcome: Result<Outcome, OracleError>,
}

/// The number of blocks and of phis and instructions of `module`.
fn size(module: &Module) -> (usize, usize) {
    let blocks = module.functions.iter().flat_map(|f| f.blocks.values());
    blocks.fold((0, 0), |(b, i), d| (b + 1, i + d.phis.len() + d.insts.len()))
}

impl SsaRuns {
    /// The outcome of `module` in `oracle` with `args` and `fuel`: kept from
    /// an earlier run of an equal module, else run now and kept. A caller
    /// passes the same oracle, arguments and fuel to every call on one
    /// `SsaRuns`.
    pub fn run(
        &mut self,
        module: &Module,
        oracle: &dyn Oracle,
        args: &[i64],
        fuel: u64,
    ) -> Result<Outcome, OracleError> {
        let n = size(module);
        if let Some(run) = self.runs.iter().find(|r| r.size == n && r.module == *module) {
            return run.outcome.clone();
        }
        let got = oracle.run_ssa(module, args, fuel);
        self.runs.push(Run { module: module.clone(), size: n, outcome: got.clone() });
        got
    }
}
