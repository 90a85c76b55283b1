//! `ssaref emit`: prints one stage of the pipeline as text: the canonical
//! source, an SSA module, route 2's out-of-SSA program, the allocated
//! machine IR (optionally after each pass), or the x86-64 listing. A
//! `.ssa` file starts at the SSA stage, as in `ssaref run`.

use crate::common::{
    backend, backend_of_ssa, bad_input, destructed, internal, load, print_destructed, Allocated, Failure,
};
use crate::max_memory::MaxMemoryArgs;
use crate::options::{AllocArgs, ConstructionArgs, Route2Args, Routes, Stage};
use crate::ssa_input::{is_ssa, load_ssa};
use clap::Args;
use ssaref::analysis::ir_text;
use ssaref::pipeline;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct EmitArgs {
    /// The program (`*.src`, or `*.ssa` in the SSA text form).
    file: String,
    /// Which stage to print.
    #[arg(long, value_enum, default_value_t = Stage::Ssa)]
    stage: Stage,
    /// With `--stage alloc` or `x86`, also print the IR after each pass.
    #[arg(long)]
    passes: bool,
    /// Which back ends produce the allocated code: `ssa-ra`, `boissinot`,
    /// `regalloc2`, `both` (routes 1 and 2) or `all`. With more than one,
    /// each is printed under `== NAME`.
    #[arg(long, value_enum, default_value_t = Routes::SsaRa)]
    route: Routes,
    #[command(flatten)]
    route2: Route2Args,
    #[command(flatten)]
    alloc: AllocArgs,
    #[command(flatten)]
    construction: ConstructionArgs,
    #[command(flatten)]
    memory: MaxMemoryArgs,
}

pub fn cmd_emit(a: EmitArgs) -> Result<ExitCode, Failure> {
    a.memory.apply();
    if is_ssa(&a.file) {
        return cmd_emit_ssa(a);
    }
    let (_, program) = load(&a.file)?;
    let text = match a.stage {
        Stage::Source => ssaref::frontend::ast_print::print_program(&program),
        Stage::Ssa => {
            let module =
                pipeline::build_ssa(&program, &a.construction.config()).map_err(|e| internal(e.to_string()))?;
            ir_text::print_module(&module)
        }
        Stage::Cytron => ir_text::print_module(&ssaref::construction::cytron::construct_cytron(&program)),
        Stage::OutOfSsa => {
            let (m, pins) = destructed(&program, &a.construction, &a.route2)?;
            print_destructed(&m, &pins)
        }
        Stage::Alloc | Stage::X86 => {
            let allocated = backend(&program, &a.construction, a.route, &a.alloc, &a.route2, a.passes)?;
            allocated_text(&allocated, a.stage, a.passes)?
        }
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// `ssaref emit FILE.ssa`: the SSA as given (canonical text form), route
/// 2's destructed program, or a back end's allocated code or listing.
fn cmd_emit_ssa(a: EmitArgs) -> Result<ExitCode, Failure> {
    let case = load_ssa(&a.file)?;
    let module = &case.module;
    let text = match a.stage {
        Stage::Source | Stage::Cytron => {
            return Err(bad_input(format!(
                "{}: --stage {}: a .ssa program has no AST; use ssa, out-of-ssa, alloc or x86",
                a.file,
                if a.stage == Stage::Source { "source" } else { "cytron" }
            )))
        }
        Stage::Ssa => ir_text::print_module(module),
        Stage::OutOfSsa => {
            let (m, pins, _) =
                ssaref::route2::out_of_ssa::translate_module_with_pins(module, &a.route2.route2().out_of_ssa)
                    .map_err(|e| internal(e.to_string()))?;
            print_destructed(&m, &pins)
        }
        Stage::Alloc | Stage::X86 => {
            let allocated = backend_of_ssa(module, a.route, &a.alloc, &a.route2, a.passes)?;
            allocated_text(&allocated, a.stage, a.passes)?
        }
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// The text of `--stage alloc` (with `--passes`, each back end's report,
/// which ends with the allocated code; otherwise the allocated code) or
/// `--stage x86` (the same with `--passes`, then the listing), under an
/// `== NAME` heading per back end when there are several.
fn allocated_text(allocated: &[Allocated], stage: Stage, passes: bool) -> Result<String, Failure> {
    let mut text = String::new();
    for b in allocated {
        if allocated.len() > 1 {
            text.push_str(&format!("== {}\n", b.name));
        }
        if passes {
            text.push_str(&b.text);
        } else if stage == Stage::Alloc {
            text.push_str(&ssaref::mir::print_module(&b.mir));
        }
        if stage == Stage::X86 {
            if passes {
                text.push_str("// x86-64\n");
            }
            let code = pipeline::lower_and_check(&b.mir).map_err(|e| internal(e.to_string()))?;
            text.push_str(&ssaref::machine::x86_lower::listing(&code));
        }
    }
    Ok(text)
}
