//! The benchmarks: `ssaref bench-emulator` (Unicorn with a fresh or a
//! reused engine) and `ssaref bench-out-of-ssa` (time and peak memory of
//! out-of-SSA translation, measured with the counting allocator of
//! `counting_alloc.rs`).

use crate::common::{internal, Failure};
use crate::counting_alloc;
use clap::Args;
use ssaref::construction::braun::construct_program;
use ssaref::construction::braun::BraunOptions;
use ssaref::pipeline;
use ssaref::route1::regalloc::{allocate_module, RegallocOptions};
use std::process::ExitCode;

use ssaref_interp as interp;

#[derive(Args, Debug)]
pub struct BenchEmulatorArgs {
    /// Number of generated programs.
    #[arg(long, default_value_t = 300)]
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
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,100000,1000000")]
    sizes: Vec<usize>,
    /// First seed of the generated functions.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Statements per generated function.
    #[arg(long, default_value_t = 150)]
    function_size: usize,
}

pub fn cmd_bench_emulator(a: BenchEmulatorArgs) -> Result<ExitCode, Failure> {
    let gen = ssaref::testing::gen::GenConfig::default();
    let opts = RegallocOptions::with_k(usize::from(a.regs));
    let mut programs = Vec::new();
    let mut instructions = 0usize;
    for i in 0..a.count {
        let tc = ssaref::testing::gen::TestCase::from_seed(a.seed.wrapping_add(i), &gen);
        let ssa = construct_program(&tc.program, &BraunOptions::all_on());
        let (mir, _) = allocate_module(&ssa, &opts).map_err(|e| internal(e.to_string()))?;
        let code = pipeline::lower_and_check(&mir).map_err(|e| internal(e.to_string()))?;
        instructions += iced_x86::Decoder::new(64, &code.bytes, iced_x86::DecoderOptions::NONE).iter().count();
        programs.push((code, tc.args));
    }
    let budget = ssaref::machine::emulator::budget_for(pipeline::later_stage_fuel(interp::DEFAULT_FUEL));
    let b = ssaref::machine::emulator::bench_emulator(&programs, budget).map_err(|e| internal(e.to_string()))?;
    println!(
        "{} generated programs (seed {}), K = {}, {:.0} x86 instructions of code each on average",
        b.runs,
        a.seed,
        a.regs,
        instructions as f64 / b.runs.max(1) as f64
    );
    println!("fresh engine per run:          {:.3} ms/run", b.fresh_engine_ms);
    println!("reused engine, new code:       {:.3} ms/run", b.reused_new_code_ms);
    println!("reused engine, same code:      {:.3} ms/run", b.reused_same_code_ms);
    Ok(ExitCode::SUCCESS)
}

pub fn cmd_bench_out_of_ssa(a: BenchArgs) -> Result<ExitCode, Failure> {
    use ssaref::route2::coalescing::CoalescingVariant;
    use ssaref::route2::out_of_ssa::{translate_out_of_ssa, OutOfSsaOptions};
    use std::time::Instant;
    counting_alloc::enable();
    let fast = OutOfSsaOptions { check: false, ..OutOfSsaOptions::fast(CoalescingVariant::Value) };
    let slow = OutOfSsaOptions { check: false, ..OutOfSsaOptions::sreedhar_iii_graph() };
    println!(
        "out-of-SSA: fast = Value, linear class test, liveness check, no graph; \
         Sreedhar III = interference graph, liveness sets (checks off in both)"
    );
    println!(
        "{:>9} {:>6} {:>8} | {:>10} {:>10} {:>7} | {:>10} {:>10} {:>7} | {:>6} {:>6}",
        "insts", "funcs", "blocks", "fast ms", "fast KiB", "copies", "S-III ms", "S-III KiB", "copies", "time×", "mem×"
    );
    for &size in &a.sizes {
        let module = ssaref::testing::out_of_ssa_stats::bench_module(size, a.seed, a.function_size);
        let insts: usize = module.functions.iter().map(|f| f.inst_count()).sum();
        let blocks: usize = module.functions.iter().map(|f| f.block_count()).sum();
        let mut results = Vec::new();
        for opts in [&fast, &slow] {
            let mut copies = 0;
            counting_alloc::reset_peak();
            let base = counting_alloc::current();
            let start = Instant::now();
            for f in &module.functions {
                let (g, report) = translate_out_of_ssa(f, opts).map_err(|e| internal(e.to_string()))?;
                copies += report.remaining_copies;
                drop(g);
            }
            let ms = start.elapsed().as_secs_f64() * 1e3;
            let kib = (counting_alloc::peak().saturating_sub(base)) as f64 / 1024.0;
            results.push((ms, kib, copies));
        }
        let ((fm, fk, fc), (sm, sk, sc)) = (results[0], results[1]);
        println!(
            "{:>9} {:>6} {:>8} | {:>10.1} {:>10.0} {:>7} | {:>10.1} {:>10.0} {:>7} | {:>6.2} {:>6.2}",
            insts,
            module.functions.len(),
            blocks,
            fm,
            fk,
            fc,
            sm,
            sk,
            sc,
            sm / fm.max(1e-9),
            sk / fk.max(1e-9)
        );
    }
    Ok(ExitCode::SUCCESS)
}
