//! regalloc2 as a back end: the regalloc2 crate after critical-edge
//! splitting.

use super::interface::{Backend, BackendOutput, Prepared};
use crate::error::PassError;
use crate::ir::Module;

/// regalloc2: regalloc2 after critical-edge splitting, checked by
/// regalloc2's checker and ssaref's. Stages `regalloc2[k=K]` and
/// `x86-regalloc2[k=K]`.
#[derive(Clone, Copy, Debug)]
pub struct Regalloc2;

impl Backend for Regalloc2 {
    fn name(&self) -> String {
        "regalloc2".to_string()
    }

    fn allocate(&self, ssa: &Module, _prepared: &Prepared, k: usize) -> Result<BackendOutput, PassError> {
        let (mir, _) = crate::regalloc2::allocate_module(ssa, k)?;
        Ok(BackendOutput { mir, ir_stages: Vec::new() })
    }

    fn report(&self, ssa: &Module, k: usize) -> String {
        let mut text = String::new();
        for f in &ssa.functions {
            match crate::regalloc2::allocate_regalloc2(f, k) {
                Ok((_, report)) => {
                    text.push_str(&format!("== regalloc2 (`{}`, K = {k})\n", f.name));
                    text.push_str(&report.render());
                }
                Err(e) => text.push_str(&format!("== regalloc2 on `{}` with K = {k} failed: {e}\n", f.name)),
            }
        }
        if let Ok((mir, _)) = crate::regalloc2::allocate_module(ssa, k) {
            text.push_str(&format!("== regalloc2: allocated (K = {k})\n{}", crate::mir::print_module(&mir)));
        }
        text
    }

    fn listing_title(&self, k: usize) -> String {
        format!("regalloc2: x86-64 (K = {k})")
    }
}
