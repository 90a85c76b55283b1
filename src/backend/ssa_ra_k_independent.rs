//! ssa-ra's passes that do not depend on K, run once per program.
//!
//! Needs: the pass list of `ssa_ra.rs`, split there into its first passes
//! (`k_independent_passes`: the critical-edge split, PhiLifting of Pereira
//! §4.2, PhiMemCoalesce of §4.4) and the rest (`k_dependent_passes`),
//! which `ssa_ra.rs` hands in.
//!
//! The differential check allocates each program at several values of K
//! with several option sets. The first passes read neither K nor any
//! option but PhiMemCoalesce's switch, so [`prepare`] runs them once per
//! function, with their checks, and keeps the function after each pass as
//! the observer would have been shown it, then the result (or the error of
//! the pass or check that failed). For each K, `SsaRa::allocate` checks K
//! as the full pass list does, then [`SharedFunction::replay`]
//! shows the observer those functions under the pass names of that K, in
//! the order the passes would have shown them, and the passes that depend
//! on K run on the kept result. An error of the first passes is
//! returned at the same point, after the same check of K, as
//! running them again would have returned it.
//!
//! The kept result answers only an equal function (full equality, never a
//! hash), with the same switch and the same check flags: the passes are
//! deterministic functions of those (the `Backend` trait requires it), so
//! the shared result is exactly what running them again would produce.

use crate::error::PassError;
use crate::ir::{Function, Module};
use crate::pass_manager::flags::Flags;
use crate::pass_manager::runner::{Observer, PassRunner};
use crate::ssa_ra::regalloc::RegallocOptions;

/// The first passes of ssa-ra on one function.
pub(super) struct SharedFunction {
    /// The function the passes ran on.
    input: Function,
    /// PhiMemCoalesce's switch and the check flags they ran with.
    phi_mem_coalesce: bool,
    flags: Flags,
    /// The function after each pass that succeeded with its checks, under
    /// the pass's name: what the observer was shown.
    shown: Vec<(String, Function)>,
    /// The function after the last pass, or the error that stopped them.
    result: Result<Function, PassError>,
}

/// The first passes of ssa-ra on each function of a module.
pub(super) struct KIndependent {
    functions: Vec<SharedFunction>,
}

/// Runs `first_passes` (ssa-ra's first passes with PhiMemCoalesce's switch
/// `phi_mem_coalesce`) on every function of `m`, in a runner with
/// `flags`.
pub(super) fn prepare(
    m: &Module,
    phi_mem_coalesce: bool,
    flags: Flags,
    first_passes: impl Fn(&Function, &mut PassRunner<'_, Function>) -> Result<Function, PassError>,
) -> KIndependent {
    let functions = m
        .functions
        .iter()
        .map(|f| {
            let mut shown = Vec::new();
            let mut record = |name: &str, g: &Function| shown.push((name.to_string(), g.clone()));
            let mut passes = PassRunner::new(flags).observed_by(&mut record);
            let result = first_passes(f, &mut passes);
            SharedFunction { input: f.clone(), phi_mem_coalesce, flags, shown, result }
        })
        .collect();
    KIndependent { functions }
}

impl KIndependent {
    /// The first passes of function `i` of the module, when they ran on a
    /// function equal to `f` with the switch of `opts` and `flags`.
    pub(super) fn get(&self, i: usize, f: &Function, opts: &RegallocOptions, flags: Flags) -> Option<&SharedFunction> {
        let shared = self.functions.get(i)?;
        let same = shared.phi_mem_coalesce == opts.phi_mem_coalesce && shared.flags == flags && shared.input == *f;
        same.then_some(shared)
    }
}

impl SharedFunction {
    /// Shows `observer` the function after each first pass, as the passes
    /// showed it, and returns the function after them or their error: what
    /// running them again would do.
    pub(super) fn replay(&self, observer: &mut dyn Observer<Function>) -> Result<Function, PassError> {
        for (name, g) in &self.shown {
            observer.after_pass(name, g);
        }
        self.result.clone()
    }
}
