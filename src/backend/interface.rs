//! The `Backend` trait: SSA and K in, allocated machine IR out (see the
//! folder's `mod.rs`).

use crate::error::PassError;
use crate::ir::Module;
use crate::mir::MModule;
use crate::pass_manager::flags::Flags;
use crate::pass_manager::runner::{Observer, Unobserved};
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// What a back end's [`Backend::prepare`] did once per program, before any
/// K, for [`Backend::allocate`] (out-of-ssa: its destructed program and the
/// variables it pins).
#[derive(Clone, Default)]
pub struct Prepared {
    /// Whatever the back end wants to keep for [`Backend::allocate`].
    pub state: Option<Arc<dyn Any + Send + Sync>>,
}

impl fmt::Debug for Prepared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prepared").field("state", &self.state.is_some()).finish()
    }
}

/// A register allocator (with whatever out-of-SSA translation it needs)
/// under ssaref's differential test. See the module documentation.
///
/// Implementations must be deterministic: the same SSA and K give the same
/// output, so that campaigns and the reducer can replay a failure.
pub trait Backend: Send + Sync {
    /// The back end's name: letters, digits and `-`, then optionally a
    /// configuration in brackets (`ssa-ra[opt]`, `out-of-ssa[sharing,...]`).
    /// The part before `[` is its family; `ssaref repro` shows one back end
    /// per family.
    fn name(&self) -> String;

    /// The names of the stages of its allocated code for `k` registers:
    /// the machine IR in the oracle and the x86-64 code under Unicorn.
    /// Default: `NAME[k=K]` and `x86-NAME[k=K]`. A name must contain
    /// `k=K`, which the reducer abstracts.
    fn stage_names(&self, k: usize) -> (String, String) {
        let name = self.name();
        (format!("{name}[k={k}]"), format!("x86-{name}[k={k}]"))
    }

    /// Work that does not depend on K, done once per program (out-of-ssa: the
    /// out-of-SSA translation), with its checks when `flags` say so. A
    /// program it produces that the oracle can run (SSA, or phi-free code
    /// whose value numbers are variables) is shown to `stages` with its
    /// stage name. Default: nothing.
    fn prepare(&self, ssa: &Module, flags: Flags, stages: &mut dyn Observer<Module>) -> Result<Prepared, PassError> {
        let _ = (ssa, flags, stages);
        Ok(Prepared::default())
    }

    /// Back ends with the same key share one [`Backend::prepare`] per
    /// program, and its stages run once (out-of-ssa's allocators share the
    /// translation). Default: the name, so no sharing.
    fn prepare_key(&self) -> String {
        self.name()
    }

    /// Allocates `ssa` (after [`Backend::prepare`]) in `k` registers, `k` in
    /// `mir::MIN_REGS..=mir::MAX_REGS`, with the back end's own checks when
    /// `flags` say so (the pipeline checks the output whatever the back end
    /// checked). The result has one function per function of the SSA, same
    /// names, each with `k` registers; its annotations name the SSA values
    /// (copy-canonical, see `mir.rs`) that the allocation checker follows.
    /// Each program it makes on the way that the oracle can run (ssa-ra:
    /// the SSA after each pass) is shown to `stages` with its stage name,
    /// which contains `k=K`. An error is reported as `Verdict::CheckFailed`;
    /// name the pass with `k=K` in it.
    fn allocate(
        &self,
        ssa: &Module,
        prepared: &Prepared,
        k: usize,
        flags: Flags,
        stages: &mut dyn Observer<Module>,
    ) -> Result<MModule, PassError>;

    /// What `ssaref repro` prints about this back end for `k` registers,
    /// before the x86-64 listing: by default the allocated machine IR
    /// under `== NAME: allocated (K = k)`, or why there is none.
    fn report(&self, ssa: &Module, k: usize, flags: Flags) -> String {
        let name = self.name();
        let mut none = Unobserved;
        match self.prepare(ssa, flags, &mut none).and_then(|p| self.allocate(ssa, &p, k, flags, &mut none)) {
            Ok(mir) => format!("== {name}: allocated (K = {k})\n{}", crate::mir::print_module(&mir)),
            Err(e) => format!("== {name}: allocation with K = {k} failed: {e}\n"),
        }
    }

    /// Whether the back end allocates programs with calls, following the
    /// calling convention (`analysis/calling_convention.rs`). The
    /// differential driver reports the stages of one that does not as not
    /// supported yet. Default: no.
    fn handles_calls(&self) -> bool {
        false
    }

    /// The heading of the x86-64 listing that `ssaref repro` prints after
    /// [`Backend::report`].
    fn listing_title(&self, k: usize) -> String {
        format!("{}: x86-64 (K = {k})", self.name())
    }
}

impl fmt::Debug for dyn Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Backend({})", self.name())
    }
}

/// The family of a back end's name: the part before `[`.
pub fn family(name: &str) -> &str {
    name.split('[').next().unwrap_or(name)
}
