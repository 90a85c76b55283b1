//! The `Backend` trait: SSA and K in, allocated machine IR out (see the
//! folder's `mod.rs`).

use crate::error::{CheckError, PassError};
use crate::ir::{Function, Module};
use crate::mir::MModule;
use crate::pass_manager::flags::Flags;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// Refuses `f` when it contains a call: `stage` (a back end) does not
/// handle calls yet, and says so rather than give a wrong answer.
pub fn refuse_calls(f: &Function, stage: &'static str) -> Result<(), PassError> {
    if f.blocks.values().any(|b| b.insts.iter().any(|i| i.op.is_call())) {
        let error = CheckError::CallsNotSupported { function: f.name.clone(), stage };
        return Err(PassError::new(stage, "calls", error));
    }
    Ok(())
}

/// What a back end's [`Backend::prepare`] did once per program, before any
/// K: programs for the oracle to run, and state for [`Backend::allocate`].
#[derive(Clone, Default)]
pub struct Prepared {
    /// Programs the oracle runs (as SSA, or phi-free code whose value
    /// numbers are variables), each with its stage name, in order.
    pub stages: Vec<(String, Module)>,
    /// Whatever the back end wants to keep for [`Backend::allocate`]
    /// (out-of-ssa: the pinned variables of its destructed program).
    pub state: Option<Arc<dyn Any + Send + Sync>>,
}

impl fmt::Debug for Prepared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.stages.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Prepared").field("stages", &names).field("state", &self.state.is_some()).finish()
    }
}

/// What a back end gives for one K.
#[derive(Clone, Debug)]
pub struct BackendOutput {
    /// The allocated program: one function per function of the SSA, same
    /// names, each with `k` registers. Its annotations name the SSA values
    /// (copy-canonical, see `mir.rs`) that the allocation checker follows.
    pub mir: MModule,
    /// Programs the oracle runs before the machine IR, each with its stage
    /// name (ssa-ra: the SSA after each pass). Usually empty.
    pub ir_stages: Vec<(String, Module)>,
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
    /// out-of-SSA translation), with its checks when `flags` say so.
    /// Default: nothing.
    fn prepare(&self, ssa: &Module, flags: Flags) -> Result<Prepared, PassError> {
        let _ = (ssa, flags);
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
    /// checked). An error is reported as `Verdict::CheckFailed`; name the
    /// pass with `k=K` in it.
    fn allocate(&self, ssa: &Module, prepared: &Prepared, k: usize, flags: Flags) -> Result<BackendOutput, PassError>;

    /// The allocated code of [`Backend::allocate`] alone, for a caller that
    /// does not run the IR stages (`ssaref emit`): the same code, checked
    /// the same way. Default: [`Backend::allocate`]'s `mir`; ssa-ra keeps
    /// no copies of its SSA stages for it.
    fn allocate_code(
        &self,
        ssa: &Module,
        prepared: &Prepared,
        k: usize,
        flags: Flags,
    ) -> Result<crate::mir::MModule, PassError> {
        self.allocate(ssa, prepared, k, flags).map(|out| out.mir)
    }

    /// What `ssaref repro` prints about this back end for `k` registers,
    /// before the x86-64 listing: by default the allocated machine IR
    /// under `== NAME: allocated (K = k)`, or why there is none.
    fn report(&self, ssa: &Module, k: usize, flags: Flags) -> String {
        let name = self.name();
        match self.prepare(ssa, flags).and_then(|p| self.allocate(ssa, &p, k, flags)) {
            Ok(out) => format!("== {name}: allocated (K = {k})\n{}", crate::mir::print_module(&out.mir)),
            Err(e) => format!("== {name}: allocation with K = {k} failed: {e}\n"),
        }
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
