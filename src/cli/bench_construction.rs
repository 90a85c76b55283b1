//! `ssaref bench-construction`: SSA construction time and peak memory, Braun
//! et al. (plain and with every option on) against Cytron et al., on
//! generated structured functions of growing size (issue 13, §1; `--shape`
//! picks another shape of `gen`, such as `gotos`). "Braun
//! marker" is the configuration of Braun et al.'s Table 2 (the marker
//! algorithm of §3.3, no on-the-fly optimization, Alg. 5 on).
//!
//! Each program is generated in-process (`gen --shape structured --size N`
//! makes the same program), then the three constructions run interleaved,
//! `--repeat` times each, so that a change in the machine's load hits all
//! three alike. Braun et al. start from the AST; Cytron et al. from the AST
//! too, so their time includes the lowering to a CFG over variables that
//! they need. Peak memory is the most bytes in use during one construction
//! above what was in use before it, counted by `counting_alloc.rs`. The
//! ratios are of medians from the same run. A benchmark, never a test: no
//! threshold is checked.

use crate::common::{bad_input, Failure};
use crate::counting_alloc;
use clap::Args;
use ssaref::ast;
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::construction::cytron::construct_cytron;
use ssaref::generate::source::{Shape, TestCase};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct BenchConstructionArgs {
    /// Target sizes in statements of the generated functions.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,100000")]
    sizes: Vec<usize>,
    /// Seed of the generated programs (`gen --seed S --shape H`).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Shape of the generated programs (`gen --shape`): `structured` (no
    /// `goto`) or any other, such as `gotos`.
    #[arg(long, default_value = "structured")]
    shape: String,
    /// Runs of each construction per size, interleaved.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
}

/// The constructions compared, in the order they run within a repetition.
const NAMES: [&str; 4] = ["Braun plain", "Braun marker", "Braun all-on", "Cytron"];
/// The position of Cytron et al.'s construction in `NAMES`.
const CYTRON: usize = NAMES.len() - 1;

/// One construction of the program; returns the bytes it kept at its peak.
fn run_one(which: usize, program: &ast::Program) -> (f64, usize) {
    counting_alloc::reset_peak();
    let base = counting_alloc::current();
    let start = Instant::now();
    let module = match which {
        0 => construct_program(program, &BraunOptions::plain()),
        1 => construct_program(program, &BraunOptions { marker: true, ..BraunOptions::plain() }),
        2 => construct_program(program, &BraunOptions::all_on()),
        _ => construct_cytron(program),
    };
    let seconds = start.elapsed().as_secs_f64();
    let bytes = counting_alloc::peak().saturating_sub(base);
    drop(module);
    (seconds, bytes)
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

pub fn cmd_bench_construction(a: BenchConstructionArgs) -> Result<ExitCode, Failure> {
    let shape = Shape::from_name(&a.shape).ok_or_else(|| {
        bad_input(format!("unknown shape `{}` (swarm, everything, structured, gotos, patterns, pressure)", a.shape))
    })?;
    counting_alloc::enable();
    println!(
        "SSA construction on `gen --seed {} --shape {} --size N`, {} interleaved runs each; \
         time: median [min-max]; memory: peak bytes above the start of each run (max over runs)",
        a.seed, a.shape, a.repeat
    );
    println!(
        "{:>8} {:>6} {:>7} | {:<12} {:>10} {:>19} {:>9} {:>10} | {:>8} {:>8}",
        "size", "stmts", "vars", "construction", "ms", "[min-max]", "ns/stmt", "peak MiB", "time×Cyt", "mem×Cyt"
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
        let mut times: [Vec<f64>; NAMES.len()] = Default::default();
        let mut peaks = [0usize; NAMES.len()];
        for _ in 0..a.repeat {
            for (which, (t, p)) in times.iter_mut().zip(peaks.iter_mut()).enumerate() {
                let (seconds, bytes) = run_one(which, &program);
                t.push(seconds);
                *p = (*p).max(bytes);
            }
        }
        let spreads: Vec<(f64, f64)> = times
            .iter()
            .map(|t| (t.iter().copied().fold(f64::INFINITY, f64::min), t.iter().copied().fold(0.0, f64::max)))
            .collect();
        let medians: Vec<f64> = times.iter_mut().map(|t| median(t)).collect();
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
            println!(
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
