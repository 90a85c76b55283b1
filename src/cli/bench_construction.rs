//! `ssaref bench-construction`: SSA construction time and peak memory, Braun
//! et al. (plain and with every option on) against Cytron et al., on
//! generated structured functions of growing size (`--shape` picks another
//! shape of `gen`, such as `gotos`). "Braun marker" is the configuration of
//! Braun et al.'s Table 2 (the marker algorithm of §3.3, no on-the-fly
//! optimization, Alg. 5 on).
//!
//! Each program is generated in-process (`gen --shape structured --size N`
//! makes the same program), then the constructions run interleaved,
//! `--repeat` times each (`evaluation/timing.rs`), so that a change in the
//! machine's load hits all of them alike. Braun et al. start from the AST;
//! Cytron et al. from the AST too, so their time includes the lowering to a
//! CFG over variables that they need. Peak memory is the most bytes in use
//! during one construction above what was in use before it, counted by
//! `counting_alloc.rs`. The ratios are of medians from the same run. A
//! benchmark, never a test: no threshold is checked.

use crate::common::{internal, Failure};
use crate::counting_alloc::{self, CountingProbe};
use crate::stdio::sayln;
use clap::Args;
use ssaref::ast;
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::construction::cytron::construct_cytron;
use ssaref::evaluation::timing::{interleaved, min_max, Run, Timing};
use ssaref::generate::source::{Shape, TestCase};
use std::any::Any;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct BenchConstructionArgs {
    /// Target sizes in statements of the generated functions.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,100000", value_parser = crate::args::size())]
    sizes: Vec<usize>,
    /// Seed of the generated programs (`gen --seed S --shape H`).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Shape of the generated programs (`gen --shape`): `structured` (no
    /// `goto`) or any other, such as `gotos`.
    #[arg(long, default_value = "structured")]
    shape: String,
    /// Runs of each construction per size, interleaved.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=crate::args::MAX_COUNT as i64))]
    repeat: u32,
}

/// The constructions compared, in the order they run within a repetition.
const NAMES: [&str; 4] = ["Braun plain", "Braun marker", "Braun all-on", "Cytron"];
/// The position of Cytron et al.'s construction in `NAMES`.
const CYTRON: usize = NAMES.len() - 1;

/// One construction of the program, keeping what it built until the
/// clocks stop.
fn run_one(which: usize, program: &ast::Program) -> Run<'_> {
    Box::new(move || {
        let module = match which {
            0 => construct_program(program, &BraunOptions::plain()),
            1 => construct_program(program, &BraunOptions { marker: true, ..BraunOptions::plain() }),
            2 => construct_program(program, &BraunOptions::all_on()),
            _ => construct_cytron(program),
        };
        Ok(Box::new(module) as Box<dyn Any>)
    })
}

pub fn cmd_bench_construction(a: BenchConstructionArgs) -> Result<ExitCode, Failure> {
    let shape = Shape::from_name(&a.shape).ok_or_else(|| {
        crate::common::usage(format!(
            "unknown shape `{}` (swarm, everything, structured, gotos, patterns, pressure)",
            a.shape
        ))
    })?;
    counting_alloc::enable();
    sayln!(
        "SSA construction on `gen --seed {} --shape {} --size N`, {} interleaved runs each; \
         time: median [min-max]; memory: peak bytes above the start of each run (max over runs)",
        a.seed,
        a.shape,
        a.repeat
    );
    sayln!(
        "{:>8} {:>6} {:>7} | {:<12} {:>10} {:>19} {:>9} {:>10} | {:>8} {:>8}",
        "size",
        "stmts",
        "vars",
        "construction",
        "ms",
        "[min-max]",
        "ns/stmt",
        "peak MiB",
        "time×Cyt",
        "mem×Cyt"
    );
    let mut config = shape.config();
    for &size in &a.sizes {
        config.size = size;
        let tc = TestCase::from_seed(a.seed, &config);
        let program = tc.program;
        let mut stmts = 0usize;
        let mut vars = std::collections::HashSet::new();
        for f in &program.functions {
            vars.extend(f.params.iter().cloned());
            ast::walk_stmts(&f.body, |s, _| {
                stmts += 1;
                if let ast::Stmt::Var(name, _) | ast::Stmt::Assign(name, _) = s {
                    vars.insert(name.clone());
                }
            });
        }
        let mut runs: Vec<Run<'_>> = (0..NAMES.len()).map(|which| run_one(which, &program)).collect();
        let timings = interleaved(a.repeat as usize, &CountingProbe, &mut runs).map_err(internal)?;
        drop(runs);
        let spreads: Vec<(f64, f64)> = timings.iter().map(|t| min_max(&t.seconds)).collect();
        let medians: Vec<f64> = timings.iter().map(Timing::median).collect();
        let peaks: Vec<usize> = timings.iter().map(Timing::max_peak_bytes).collect();
        for which in 0..NAMES.len() {
            let (lo, hi) = spreads[which];
            let ratios = if which != CYTRON {
                format!(
                    "{:>8.2} {:>8.2}",
                    medians[which] / medians[CYTRON].max(1e-12),
                    peaks[which] as f64 / peaks[CYTRON].max(1) as f64
                )
            } else {
                format!("{:>8} {:>8}", "", "")
            };
            sayln!(
                "{:>8} {:>6} {:>7} | {:<12} {:>10.2} {:>19} {:>9.0} {:>10.1} | {}",
                size,
                stmts,
                vars.len(),
                NAMES[which],
                medians[which] * 1e3,
                format!("[{:.2}-{:.2}]", lo * 1e3, hi * 1e3),
                medians[which] * 1e9 / stmts.max(1) as f64,
                peaks[which] as f64 / (1024.0 * 1024.0),
                ratios
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
