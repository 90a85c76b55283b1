//! The benchmarks: `ssaref bench-emulator` (Unicorn with a fresh or a
//! reused engine) and `ssaref bench-out-of-ssa` (time and peak memory of
//! out-of-SSA translation against both Sreedhar III baselines,
//! `evaluation/out_of_ssa_bench.rs`, measured with the counting allocator of
//! `counting_alloc.rs`).

use crate::common::{internal, Failure};
use crate::counting_alloc::{self, CountingProbe};
use crate::stdio::{say, sayln};
use clap::Args;
use ssaref::construction::braun::BraunOptions;
use ssaref::differential::later_stage_fuel;
use ssaref::pipeline;
use ssaref::ssa_ra::regalloc::RegallocOptions;
use std::process::ExitCode;

use ssaref_interp as interp;

#[derive(Args, Debug)]
pub struct BenchEmulatorArgs {
    /// Number of generated programs.
    #[arg(long, default_value_t = 300, value_parser = crate::args::count())]
    count: u64,
    /// Seed of the first program.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Number of registers.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(2..=15))]
    regs: u8,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Sizes in instructions of the generated compilation units.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,100000,1000000", value_parser = crate::args::size())]
    sizes: Vec<usize>,
    /// First seed of the generated functions.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Statements per generated function.
    #[arg(long, default_value_t = 150, value_parser = crate::args::size())]
    function_size: usize,
    /// Repetitions of each configuration (interleaved; medians reported).
    #[arg(long, default_value_t = 5, value_parser = crate::args::repetitions())]
    repetitions: usize,
}

pub fn cmd_bench_emulator(a: BenchEmulatorArgs) -> Result<ExitCode, Failure> {
    let gen = ssaref::generate::source::GenConfig::default();
    let opts = RegallocOptions::with_k(usize::from(a.regs));
    let config = pipeline::Config { braun: BraunOptions::all_on(), ..pipeline::Config::default() };
    let mut programs = Vec::new();
    let mut instructions = 0usize;
    for i in 0..a.count {
        let tc = ssaref::generate::source::TestCase::from_seed(a.seed.wrapping_add(i), &gen);
        let code = pipeline::compile(&tc.program, &ssaref::backend::SsaRa(opts), opts.k, &config)
            .map_err(|e| internal(e.to_string()))?
            .x86;
        instructions += iced_x86::Decoder::new(64, &code.bytes, iced_x86::DecoderOptions::NONE).iter().count();
        programs.push((code, tc.args));
    }
    let budget = ssaref::machine::emulator::budget_for(later_stage_fuel(interp::DEFAULT_FUEL));
    let b = ssaref::machine::emulator::bench_emulator(&programs, budget).map_err(|e| internal(e.to_string()))?;
    sayln!(
        "{} generated programs (seed {}), K = {}, {:.0} x86 instructions of code each on average",
        b.runs,
        a.seed,
        a.regs,
        instructions as f64 / b.runs.max(1) as f64
    );
    sayln!("fresh engine per run:          {:.3} ms/run", b.fresh_engine_ms);
    sayln!("reused engine, new code:       {:.3} ms/run", b.reused_new_code_ms);
    sayln!("reused engine, same code:      {:.3} ms/run", b.reused_same_code_ms);
    Ok(ExitCode::SUCCESS)
}

pub fn cmd_bench_out_of_ssa(a: BenchArgs) -> Result<ExitCode, Failure> {
    counting_alloc::enable();
    let table = ssaref::evaluation::out_of_ssa_bench::baseline_table(
        &a.sizes,
        a.seed,
        a.function_size,
        a.repetitions,
        &CountingProbe,
    )
    .map_err(internal)?;
    say!("{table}");
    Ok(ExitCode::SUCCESS)
}
