//! `ssaref emit`: prints one stage of the pipeline as text: the canonical
//! source, an SSA module, out-of-ssa's out-of-SSA program, the allocated
//! machine IR (optionally after each pass), or the x86-64 listing. A
//! `.ssa` file starts at the SSA stage, as in `ssaref run`.

use crate::args::{AllocArgs, ConstructionArgs, OutOfSsaArgs, Routes, Stage};
use crate::common::{
    backend, backend_of_ssa, bad_input, destructed, internal, load, pass_failure, print_destructed, Allocated, Failure,
};
use crate::max_memory::MaxMemoryArgs;
use crate::ssa_input::{is_ssa, load_ssa};
use crate::stdio::say;
use clap::Args;
use ssaref::pipeline;
use ssaref::ssa_text;
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
    /// Which back ends produce the allocated code: `ssa-ra`, `out-of-ssa`
    /// (or `boissinot`), `regalloc2`, `both` (ssa-ra and out-of-ssa) or `all`. With more than one,
    /// each is printed under `== NAME`.
    #[arg(long, value_enum, default_value_t = Routes::SsaRa)]
    route: Routes,
    #[command(flatten)]
    out_of_ssa: OutOfSsaArgs,
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
            ssa_text::print_module(&module)
        }
        Stage::Cytron => ssa_text::print_module(&ssaref::construction::cytron::construct_cytron(&program)),
        Stage::OutOfSsa => {
            let (m, pins) = destructed(&program, &a.construction, &a.out_of_ssa)?;
            print_destructed(&m, &pins)
        }
        Stage::Alloc | Stage::X86 => {
            let allocated = backend(&program, &a.construction, a.route, &a.alloc, &a.out_of_ssa, a.passes)?;
            return write_allocated(&allocated, a.stage, a.passes);
        }
    };
    say!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// `ssaref emit FILE.ssa`: the SSA as given (canonical text form),
/// out-of-ssa's destructed program, or a back end's allocated code or listing.
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
        Stage::Ssa => ssa_text::print_module(module),
        Stage::OutOfSsa => {
            let (m, pins) =
                pipeline::translate_out_of_ssa(module, &a.out_of_ssa.out_of_ssa().out_of_ssa, &a.construction.config())
                    .map_err(pass_failure)?;
            print_destructed(&m, &pins)
        }
        Stage::Alloc | Stage::X86 => {
            let allocated =
                backend_of_ssa(module, a.route, &a.alloc, &a.out_of_ssa, a.passes, &a.construction.config())?;
            return write_allocated(&allocated, a.stage, a.passes);
        }
    };
    say!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// Prints `--stage alloc` (with `--passes`, each back end's report,
/// which ends with the allocated code; otherwise the allocated code) or
/// `--stage x86` (the same with `--passes`, then the listing), under an
/// `== NAME` heading per back end when there are several. Every back end's
/// code is lowered and checked before anything is printed; the text is
/// then written to the output as it is made, not held (the x86 listing of
/// a large function is far larger than the function).
fn write_allocated(allocated: &[Allocated], stage: Stage, passes: bool) -> Result<ExitCode, Failure> {
    let mut codes = Vec::new();
    if stage == Stage::X86 {
        for b in allocated {
            codes.push(pipeline::lower_and_check_listed(&b.mir).map_err(pass_failure)?);
        }
    }
    let mut out = StdoutText { out: std::io::BufWriter::new(crate::stdio::CommandStdout), error: None };
    let written = (|| -> std::fmt::Result {
        use std::fmt::Write;
        for (i, b) in allocated.iter().enumerate() {
            if allocated.len() > 1 {
                writeln!(out, "== {}", b.name)?;
            }
            if passes {
                out.write_str(&b.text)?;
            } else if stage == Stage::Alloc {
                out.write_str(&ssaref::mir::print_module(&b.mir))?;
            }
            if let Some(code) = codes.get(i) {
                if passes {
                    out.write_str("// x86-64\n")?;
                }
                ssaref::machine::x86_lower::write_listing(code, &mut out)?;
            }
        }
        Ok(())
    })();
    let flushed = written.ok().map(|()| std::io::Write::flush(&mut out.out));
    match (out.error, flushed) {
        (None, Some(Ok(()))) => Ok(ExitCode::SUCCESS),
        (Some(e), _) | (None, Some(Err(e))) => Err(Failure::from(crate::stdio::OutputError(e))),
        (None, None) => Err(internal("cannot write the output")),
    }
}

/// The standard output as a `fmt::Write`, keeping the I/O error.
struct StdoutText {
    out: std::io::BufWriter<crate::stdio::CommandStdout>,
    error: Option<std::io::Error>,
}

impl std::fmt::Write for StdoutText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        std::io::Write::write_all(&mut self.out, s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            std::fmt::Error
        })
    }
}
