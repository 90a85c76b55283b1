//! `ssaref emit`: prints one stage of the pipeline as text: the canonical
//! source, an SSA module, route 2's out-of-SSA program, the allocated
//! machine IR (optionally after each pass), or the x86-64 listing.

use crate::common::{backend, destructed, internal, load, print_destructed, Failure};
use crate::max_memory::MaxMemoryArgs;
use crate::options::{AllocArgs, ConstructionArgs, Route2Args, Routes, Stage};
use clap::Args;
use ssaref::analysis::ir_text;
use ssaref::pipeline;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct EmitArgs {
    /// The program (`*.src`).
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
            let mut text = String::new();
            for b in &allocated {
                if allocated.len() > 1 {
                    text.push_str(&format!("== {}\n", b.name));
                }
                // With `--passes`, the back end's report ends with the
                // allocated code.
                if a.passes {
                    text.push_str(&b.text);
                } else if a.stage == Stage::Alloc {
                    text.push_str(&ssaref::mir::print_module(&b.mir));
                }
                if a.stage == Stage::X86 {
                    if a.passes {
                        text.push_str("// x86-64\n");
                    }
                    let code = pipeline::lower_and_check(&b.mir).map_err(|e| internal(e.to_string()))?;
                    text.push_str(&ssaref::machine::x86_lower::listing(&code));
                }
            }
            text
        }
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}
