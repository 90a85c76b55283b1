//! ssa-ra as a back end: Pereira's allocation, then Pereira and Palsberg's
//! SSA elimination.

use super::interface::{Backend, BackendOutput, Prepared};
use crate::error::PassError;
use crate::ir::Module;

/// ssa-ra with one option set (its `k` is replaced by each K): Pereira's
/// allocation, then Pereira and Palsberg's SSA elimination. Stages:
/// `ssa-ra[k=K,TAG]/PASS` (the SSA after each pass), `ssa-ra[k=K,TAG]` (the
/// allocated machine IR) and `x86-ssa-ra[k=K,TAG]`, where `TAG` is `RegallocOptions::describe`: `opt` with
/// every switch on, `plain` without the §6 optimizations, else the
/// switches that are on (`pmc+coalesce+hoist`); spilling during coloring
/// (the default) is the switch `color-spill`, off for the separate pass
/// (`spill.rs`).
#[derive(Clone, Copy, Debug)]
pub struct SsaRa(pub crate::ssa_ra::regalloc::RegallocOptions);

impl SsaRa {
    fn tag(&self) -> String {
        self.options(2).describe()
    }

    fn options(&self, k: usize) -> crate::ssa_ra::regalloc::RegallocOptions {
        crate::ssa_ra::regalloc::RegallocOptions { k, ..self.0 }
    }
}

impl Backend for SsaRa {
    fn name(&self) -> String {
        format!("ssa-ra[{}]", self.tag())
    }

    fn stage_names(&self, k: usize) -> (String, String) {
        let tag = self.tag();
        (format!("ssa-ra[k={k},{tag}]"), format!("x86-ssa-ra[k={k},{tag}]"))
    }

    fn allocate(&self, ssa: &Module, _prepared: &Prepared, k: usize) -> Result<BackendOutput, PassError> {
        let (mir, reports) = crate::ssa_ra::regalloc::allocate_module(ssa, &self.options(k))?;
        // The SSA after each allocation pass is still SSA: the oracle runs it.
        // The stages are moved out of the reports, not copied.
        let npasses = reports.first().map_or(0, |r| r.stages.len());
        let names: Vec<&'static str> = reports.first().map_or(Vec::new(), |r| r.stages.iter().map(|s| s.0).collect());
        let mut per_function: Vec<_> = reports.into_iter().map(|r| r.stages.into_iter()).collect();
        let tag = self.tag();
        let ir_stages = names
            .into_iter()
            .take(npasses)
            .map(|name| {
                let functions = per_function.iter_mut().filter_map(|stages| stages.next().map(|(_, f)| f)).collect();
                (format!("ssa-ra[k={k},{tag}]/{name}"), Module { functions })
            })
            .collect();
        Ok(BackendOutput { mir, ir_stages })
    }

    fn allocate_code(&self, ssa: &Module, _prepared: &Prepared, k: usize) -> Result<crate::mir::MModule, PassError> {
        crate::ssa_ra::regalloc::allocate_module_checked(ssa, &self.options(k)).map(|(mir, _)| mir)
    }

    fn report(&self, ssa: &Module, k: usize) -> String {
        let mut text = String::new();
        match crate::ssa_ra::regalloc::allocate_module(ssa, &self.options(k)) {
            Ok((mir, reports)) => {
                let npasses = reports.first().map_or(0, |r| r.stages.len());
                for i in 0..npasses {
                    text.push_str(&format!("== after {} (K = {k})\n", reports[0].stages[i].0));
                    for r in &reports {
                        text.push_str(&crate::ssa_text::print_function(&r.stages[i].1));
                    }
                }
                text.push_str(&format!("== allocated (K = {k})\n{}", crate::mir::print_module(&mir)));
            }
            Err(e) => text.push_str(&format!("== allocation with K = {k} failed: {e}\n")),
        }
        text
    }

    fn listing_title(&self, k: usize) -> String {
        format!("x86-64 (K = {k})")
    }
}
