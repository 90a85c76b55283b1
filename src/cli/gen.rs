//! `ssaref gen`: writes generated programs as `.src` text, or (`--stats`)
//! prints a table of what they contain; with `--ir`, programs of the
//! IR-level generator (`generate/ssa/`) as `.ssa` text.

use crate::common::{Failure, EXIT_INTERNAL};
use crate::stdio::say;
use clap::Args;
use std::process::ExitCode;

/// The names `--shape` takes.
const SHAPES: &str =
    "swarm, everything, structured, gotos, patterns, pressure, params, params-constants, nested-loops, wide-join, many-functions, divisions";

use ssaref_interp as interp;

#[derive(Args, Debug)]
pub struct GenArgs {
    /// Seed of the (first) program; program i of --count is seed S+i.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Number of programs.
    #[arg(long, default_value_t = 1, value_parser = crate::args::count())]
    count: u64,
    /// Print a table of what the programs contain instead of the programs.
    #[arg(long)]
    stats: bool,
    /// Kind of program: swarm, everything, structured, gotos, patterns,
    /// pressure; or one of extreme shape, fixed by --size alone: params,
    /// params-constants, nested-loops, wide-join, many-functions, divisions.
    #[arg(long, default_value = "swarm")]
    shape: String,
    /// Target size in statements (default: the shape's).
    #[arg(long, value_parser = crate::args::size())]
    size: Option<usize>,
    /// Turn swarm testing off: every feature of the shape in every program.
    #[arg(long)]
    no_swarm: bool,
    /// Write the programs to DIR/gen-SEED.src (needed for --count > 1 without --stats).
    #[arg(long, value_name = "DIR")]
    out: Option<String>,
    /// Fuel budget of each run (with --stats).
    #[arg(long, default_value_t = interp::DEFAULT_FUEL, value_parser = crate::args::fuel())]
    fuel: u64,
    /// Programs of several functions that call each other, recursion
    /// included (bounded by a decreasing depth argument); off by default.
    #[arg(long)]
    calls: bool,
    /// IR-level programs (written directly in SSA form, `.ssa` text)
    /// instead of source programs; --shape, --size and --no-swarm do not apply.
    #[arg(long)]
    ir: bool,
}

pub fn cmd_gen(a: GenArgs) -> Result<ExitCode, Failure> {
    if a.ir {
        return cmd_gen_ir(&a);
    }
    if let Some(worst) = ssaref::generate::source::WorstShape::from_name(&a.shape) {
        if a.count > 1 || a.stats || a.out.is_some() {
            return Err(Failure {
                message: format!("--shape {} makes one program: no --count, --stats or --out", a.shape),
                code: crate::common::EXIT_USAGE,
            });
        }
        let size = a.size.unwrap_or(worst.default_sizes()[0]);
        say!("{}", worst.source(size));
        return Ok(ExitCode::SUCCESS);
    }
    let shape = ssaref::generate::source::Shape::from_name(&a.shape).ok_or_else(|| Failure {
        message: format!("unknown shape `{}` ({SHAPES})", a.shape),
        code: crate::common::EXIT_USAGE,
    })?;
    let mut config = shape.config();
    if let Some(size) = a.size {
        config.size = size;
    }
    if a.no_swarm {
        config.swarm = false;
    }
    config.calls = a.calls;
    if a.stats {
        let stats = ssaref::generate::source::pattern_stats::collect(a.seed, a.count, &config, &interp::Interp, a.fuel);
        say!("{stats}");
        return Ok(if stats.disagreements > 0 { ExitCode::from(EXIT_INTERNAL) } else { ExitCode::SUCCESS });
    }
    let seeds = (0..a.count).map(|i| a.seed.wrapping_add(i));
    match &a.out {
        None if a.count > 1 => Err(Failure { message: "--count > 1 needs --stats or --out DIR".into(), code: 2 }),
        // `--count 0` asks for no program.
        None if a.count == 0 => Ok(ExitCode::SUCCESS),
        None => {
            say!("{}", ssaref::generate::source::TestCase::from_seed(a.seed, &config).to_source());
            Ok(ExitCode::SUCCESS)
        }
        Some(dir) => {
            crate::common::probe_out_dir(std::path::Path::new(dir))?;
            for seed in seeds {
                let path = format!("{dir}/gen-{seed}.src");
                let text = ssaref::generate::source::TestCase::from_seed(seed, &config).to_source();
                std::fs::write(&path, text).map_err(|e| Failure {
                    message: format!("{path}: cannot write: {e}"),
                    code: crate::common::EXIT_OUTPUT,
                })?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `ssaref gen --ir`: IR-level programs, their `.ssa` text or statistics.
fn cmd_gen_ir(a: &GenArgs) -> Result<ExitCode, Failure> {
    use ssaref::generate::ssa::{shape_stats, IrCase, IrGenConfig};
    let config = IrGenConfig { calls: a.calls, ..IrGenConfig::default() };
    if a.stats {
        let stats = shape_stats::collect(a.seed, a.count, &config, &interp::Interp, a.fuel);
        say!("{stats}");
        return Ok(if stats.all_good() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_INTERNAL) });
    }
    match &a.out {
        None if a.count > 1 => Err(Failure { message: "--count > 1 needs --stats or --out DIR".into(), code: 2 }),
        // `--count 0` asks for no program.
        None if a.count == 0 => Ok(ExitCode::SUCCESS),
        None => {
            say!("{}", IrCase::from_seed(a.seed, &config).to_text());
            Ok(ExitCode::SUCCESS)
        }
        Some(dir) => {
            crate::common::probe_out_dir(std::path::Path::new(dir))?;
            for seed in (0..a.count).map(|i| a.seed.wrapping_add(i)) {
                let path = format!("{dir}/gen-ir-{seed}.ssa");
                let text = IrCase::from_seed(seed, &config).to_text();
                std::fs::write(&path, text).map_err(|e| Failure {
                    message: format!("{path}: cannot write: {e}"),
                    code: crate::common::EXIT_OUTPUT,
                })?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
