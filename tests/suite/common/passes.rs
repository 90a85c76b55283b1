//! The back ends' pass lists with every check on, under short names for
//! the tests (the pass lists themselves are in `src/backend/`, and take
//! the check switch as an argument).

use ssaref::error::PassError;
use ssaref::ir::{Function, Module};
use ssaref::mir::{MFunction, MModule};
use ssaref::out_of_ssa::conventional::ConventionalAllocator;
use ssaref::out_of_ssa::renaming_constraints::Pins;
use ssaref::out_of_ssa::translate::{OutOfSsaOptions, OutOfSsaReport, TranslatedFunction};
use ssaref::pass_manager::flags::Flags;
use ssaref::pass_manager::runner::Unobserved;
use ssaref::regalloc2::Regalloc2Report;
use ssaref::ssa_ra::regalloc::{AllocReport, RegallocOptions};

const CHECKED: Flags = Flags::checked();

/// ssa-ra on one function, every check on.
pub fn allocate_function(f: &Function, opts: &RegallocOptions) -> Result<(MFunction, AllocReport), PassError> {
    ssaref::backend::ssa_ra::allocate_function(f, opts, CHECKED, &mut Unobserved)
}

/// The SSA after each of ssa-ra's passes that rewrites it, under the
/// pass's name, as the pass list shows it to an observer.
pub type Stages = Vec<(String, Function)>;

/// ssa-ra on one function, every check on, and the SSA after each pass.
pub fn allocate_function_stages(f: &Function, opts: &RegallocOptions) -> Result<(MFunction, Stages), PassError> {
    let mut stages = Vec::new();
    let mut keep = |pass: &str, g: &Function| stages.push((pass.to_string(), g.clone()));
    let (mf, _) = ssaref::backend::ssa_ra::allocate_function(f, opts, CHECKED, &mut keep)?;
    Ok((mf, stages))
}

/// ssa-ra on every function of a module, every check on.
pub fn allocate_module(m: &Module, opts: &RegallocOptions) -> Result<(MModule, Vec<AllocReport>), PassError> {
    ssaref::backend::ssa_ra::allocate_module(m, opts, CHECKED, &mut Unobserved)
}

/// regalloc2 on one function, every check on.
pub fn allocate_regalloc2(f: &Function, k: usize) -> Result<(MFunction, Regalloc2Report), PassError> {
    ssaref::backend::regalloc2::allocate_function(f, k, CHECKED)
}

/// regalloc2 on every function of a module, every check on.
pub fn allocate_regalloc2_module(m: &Module, k: usize) -> Result<(MModule, Vec<Regalloc2Report>), PassError> {
    ssaref::backend::regalloc2::allocate_module(m, k, CHECKED)
}

/// Boissinot et al.'s translation of one function, every check on.
pub fn translate_function(f: &Function, opts: &OutOfSsaOptions) -> Result<TranslatedFunction, PassError> {
    ssaref::backend::out_of_ssa::translate_function(f, opts, CHECKED)
}

/// [`translate_function`] without the pins.
pub fn translate_out_of_ssa(f: &Function, opts: &OutOfSsaOptions) -> Result<(Function, OutOfSsaReport), PassError> {
    translate_function(f, opts).map(|t| (t.function, t.report))
}

/// The translation of every function of a module, every check on.
pub fn translate_module_with_pins(
    m: &Module,
    opts: &OutOfSsaOptions,
) -> Result<(Module, Vec<Pins>, OutOfSsaReport), PassError> {
    ssaref::backend::out_of_ssa::translate_module_with_pins(m, opts, CHECKED)
}

/// [`translate_module_with_pins`] without the pins.
pub fn translate_module(m: &Module, opts: &OutOfSsaOptions) -> Result<(Module, OutOfSsaReport), PassError> {
    ssaref::backend::out_of_ssa::translate_module(m, opts, CHECKED)
}

/// A conventional allocator on one translated function with its pins,
/// every check on.
pub fn allocate_conventional_pinned(
    f: &Function,
    pins: &Pins,
    k: usize,
    which: ConventionalAllocator,
) -> Result<MFunction, PassError> {
    ssaref::backend::out_of_ssa::allocate_function(f, pins, k, which, CHECKED)
}

/// [`allocate_conventional_pinned`] without pins.
pub fn allocate_conventional(f: &Function, k: usize, which: ConventionalAllocator) -> Result<MFunction, PassError> {
    allocate_conventional_pinned(f, &Pins::none(), k, which)
}

/// A conventional allocator on every function of a translated module with
/// its pins, every check on.
pub fn allocate_conventional_module_pinned(
    m: &Module,
    pins: &[Pins],
    k: usize,
    which: ConventionalAllocator,
) -> Result<MModule, PassError> {
    ssaref::backend::out_of_ssa::allocate_module(m, pins, k, which, CHECKED)
}

/// [`allocate_conventional_module_pinned`] without pins.
pub fn allocate_conventional_module(m: &Module, k: usize, which: ConventionalAllocator) -> Result<MModule, PassError> {
    allocate_conventional_module_pinned(m, &[], k, which)
}
