//! The speed and memory comparison of Boissinot et al., "Revisiting
//! Out-of-SSA Translation for Correctness, Code Quality, and Efficiency"
//! (CGO 2009), §IV-D (Fig. 6 and 7): the fast configuration ("Us I +
//! Linear + InterCheck + LiveCheck": no interference graph, no liveness
//! sets, the linear class test) against out-of-ssa's two Sreedhar III
//! baselines, on the same functions, in one run:
//!
//! - **Sreedhar III, bit matrix** ([`OutOfSsaOptions::sreedhar_iii_bitmatrix`]):
//!   the baseline the paper measured, liveness sets and the interference
//!   graph of every variable as a triangular bit matrix plus adjacency
//!   lists (`out_of_ssa/interference_graph_bitmatrix.rs`);
//! - **Sreedhar III, edge set** ([`OutOfSsaOptions::sreedhar_iii_graph`]):
//!   a cheaper one, liveness sets and a hash set of edges over the copy-
//!   and phi-related variables only.
//!
//! The measurement is interleaved and repeated (`timing::interleaved`): each
//! repetition runs every configuration once, in turn, so that a change of
//! the machine's load hits all of them. Each run translates the functions
//! one at a time and drops each result before the next, as a compiler
//! translating function by function would: the peak memory of a run is
//! that of its largest translation, every analysis the configuration
//! builds (liveness sets or check, the graph) included, as in the paper
//! ("timings include their construction"). The checkers are off in every
//! configuration: they are not part of the translation the paper timed.
//!
//! This is the one harness of §IV-D: `ssaref bench-out-of-ssa` prints
//! [`BaselineTable`] (median thread CPU time with its spread, wall-time
//! ratios, median peak memory), and `ssaref reproduce`
//! (`reproduce/boissinot.rs`) calls [`measure_baselines`] on its inputs
//! and reports wall time and the largest peak. Memory comes from a
//! [`MemoryProbe`] that the caller supplies.

use crate::evaluation::eval_error::EvalError;
use crate::evaluation::timing::{interleaved, min_max, MemoryProbe, Run, Timing};
use crate::ir::Module;
use crate::out_of_ssa::coalescing::CoalescingVariant;
use crate::out_of_ssa::translate::{translate_out_of_ssa, OutOfSsaOptions};
use std::any::Any;
use std::cell::Cell;
use std::fmt;

/// One configuration of the comparison.
#[derive(Clone, Copy, Debug)]
pub struct Configuration {
    /// Its column tag in [`BaselineTable`]: `fast`, `BM` or `ES`.
    pub tag: &'static str,
    /// Its one-line name in [`BaselineTable`].
    pub name: &'static str,
    /// What it is, in the words of `ssaref reproduce`'s report.
    pub description: &'static str,
    /// The translation's options, checks off.
    pub options: OutOfSsaOptions,
}

/// The three configurations compared, in table order: the fast one, then
/// the two baselines. The fast configuration uses the `Value` variant, as
/// the paper's "Us I" does. Adding a baseline is adding an entry here;
/// `reproduce`'s tables and plots follow (`bench-out-of-ssa`'s table has a
/// fixed layout of three).
pub fn configurations() -> Vec<Configuration> {
    let unchecked = |o: OutOfSsaOptions| OutOfSsaOptions { check: false, ..o };
    vec![
        Configuration {
            tag: "fast",
            name: "fast (Us I+Linear+InterCheck+LiveCheck)",
            description: "fast (Value, linear class test, liveness check)",
            options: unchecked(OutOfSsaOptions::fast(CoalescingVariant::Value)),
        },
        Configuration {
            tag: "BM",
            name: "Sreedhar III, bit matrix of all variables",
            description: "Sreedhar III (liveness sets, interference graph of every variable, bit matrix + \
                          adjacency lists; the paper's baseline)",
            options: unchecked(OutOfSsaOptions::sreedhar_iii_bitmatrix()),
        },
        Configuration {
            tag: "ES",
            name: "Sreedhar III, edge set of copy/phi variables",
            description: "Sreedhar III (liveness sets, interference graph of copy- and phi-related variables, \
                          hash set of edges)",
            options: unchecked(OutOfSsaOptions::sreedhar_iii_graph()),
        },
    ]
}

/// One configuration's figures on one module.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigFigures {
    pub name: &'static str,
    /// Wall time, thread CPU time and peak memory of each repetition.
    pub timing: Timing,
    /// Copies left (static), the same in every repetition.
    pub copies: usize,
    /// Edges of the interference graph (0 without one).
    pub graph_edges: usize,
}

impl ConfigFigures {
    /// Median thread CPU time in milliseconds.
    pub fn median_ms(&self) -> f64 {
        self.timing.cpu_median() * 1e3
    }

    /// Median wall time in milliseconds.
    pub fn median_wall_ms(&self) -> f64 {
        self.timing.median() * 1e3
    }

    /// Fastest and slowest repetition, in milliseconds of thread CPU time.
    pub fn spread_ms(&self) -> (f64, f64) {
        let (min, max) = min_max(&self.timing.cpu_seconds);
        (min * 1e3, max * 1e3)
    }

    /// Median peak memory in KiB.
    pub fn median_kib(&self) -> f64 {
        self.timing.median_peak_bytes() / 1024.0
    }
}

/// One row of the comparison: a module and every configuration's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct BaselineRow {
    pub instructions: usize,
    pub functions: usize,
    pub blocks: usize,
    /// Value numbers of all functions together.
    pub variables: usize,
    /// In [`configurations`] order.
    pub configs: Vec<ConfigFigures>,
    /// The paper's Fig. 7 "Evaluated" footprints (a perfect memory), summed
    /// over the functions, in bytes, for every variable of each function
    /// (`V`) and its blocks (`B`): the half-size bit matrix `⌈V/8⌉ × V/2`,
    /// liveness sets as bit sets `⌈V/8⌉ × B × 2`, and the liveness check's
    /// sets `⌈B/8⌉ × B × 2`.
    pub evaluated: Fig7Evaluated,
}

/// The "Evaluated" footprints of Fig. 7 (see [`BaselineRow::evaluated`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fig7Evaluated {
    pub bit_matrix: u64,
    pub liveness_sets: u64,
    pub liveness_check: u64,
}

impl Fig7Evaluated {
    fn of(module: &Module) -> Self {
        let mut e = Fig7Evaluated::default();
        for f in &module.functions {
            let (v, b) = (u64::from(f.value_count), f.block_count() as u64);
            e.bit_matrix += v.div_ceil(8) * v / 2;
            e.liveness_sets += v.div_ceil(8) * b * 2;
            e.liveness_check += b.div_ceil(8) * b * 2;
        }
        e
    }
}

impl BaselineRow {
    /// `configs[i]`'s median thread CPU time over the fast configuration's
    /// (above 1: the fast one is faster).
    pub fn time_ratio(&self, i: usize) -> f64 {
        self.configs[i].median_ms() / self.configs[0].median_ms().max(1e-9)
    }

    /// The same ratio in wall time.
    pub fn wall_time_ratio(&self, i: usize) -> f64 {
        self.configs[i].median_wall_ms() / self.configs[0].median_wall_ms().max(1e-9)
    }

    /// `configs[i]`'s median peak memory over the fast configuration's.
    pub fn memory_ratio(&self, i: usize) -> f64 {
        self.configs[i].median_kib() / self.configs[0].median_kib().max(1e-9)
    }
}

/// The whole comparison, one row per module.
#[derive(Clone, Debug, PartialEq)]
pub struct BaselineTable {
    pub repetitions: usize,
    pub rows: Vec<BaselineRow>,
}

/// Translates every function of `module` with each configuration of
/// [`configurations`], `repetitions` times, interleaved (see the module
/// documentation). An error of the translation is returned as the pass error.
pub fn measure_baselines(
    module: &Module,
    repetitions: usize,
    probe: &dyn MemoryProbe,
) -> Result<BaselineRow, EvalError> {
    let configs = configurations();
    // Copies and graph edges of each configuration's latest run.
    let counts: Vec<(Cell<usize>, Cell<usize>)> = configs.iter().map(|_| Default::default()).collect();
    let mut runs: Vec<Run<'_>> = configs
        .iter()
        .zip(&counts)
        .map(|(c, (copies, edges))| {
            let opts = c.options;
            Box::new(move || {
                let (mut c, mut e) = (0, 0);
                for f in &module.functions {
                    let (g, report) = translate_out_of_ssa(f, &opts)?;
                    c += report.remaining_copies;
                    e += report.graph_edges;
                    drop(g);
                }
                copies.set(c);
                edges.set(e);
                Ok(Box::new(()) as Box<dyn Any>)
            }) as Run<'_>
        })
        .collect();
    let timings = interleaved(repetitions, probe, &mut runs)?;
    drop(runs);
    let configs = configs
        .iter()
        .zip(timings)
        .zip(&counts)
        .map(|((c, timing), (copies, edges))| ConfigFigures {
            name: c.name,
            timing,
            copies: copies.get(),
            graph_edges: edges.get(),
        })
        .collect();
    Ok(BaselineRow {
        instructions: module.functions.iter().map(|f| f.inst_count()).sum(),
        functions: module.functions.len(),
        blocks: module.functions.iter().map(|f| f.block_count()).sum(),
        variables: module.functions.iter().map(|f| f.value_count as usize).sum(),
        configs,
        evaluated: Fig7Evaluated::of(module),
    })
}

/// [`measure_baselines`] on the benchmark module of each size
/// (`out_of_ssa_stats::bench_module`).
pub fn baseline_table(
    sizes: &[usize],
    seed: u64,
    function_size: usize,
    repetitions: usize,
    probe: &dyn MemoryProbe,
) -> Result<BaselineTable, EvalError> {
    let mut rows = Vec::new();
    for &size in sizes {
        let module = crate::evaluation::out_of_ssa_stats::bench_module(size, seed, function_size);
        rows.push(measure_baselines(&module, repetitions, probe)?);
    }
    Ok(BaselineTable { repetitions: repetitions.max(1), rows })
}

impl fmt::Display for BaselineTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let configs = configurations();
        writeln!(
            f,
            "out-of-SSA, Boissinot et al. §IV-D: thread CPU time, median of {} interleaved runs (min-max), \
             peak memory; checks off",
            self.repetitions
        )?;
        for c in &configs {
            writeln!(f, "  {:<4} = {}", c.tag, c.name)?;
        }
        writeln!(f, "  time× and mem× are a baseline's median over the fast configuration's (paper: ~2 and ~10)")?;
        writeln!(
            f,
            "{:>8} {:>5} {:>7} | {:>21} {:>9} | {:>21} {:>9} {:>9} | {:>21} {:>9} {:>8} | {:>6} {:>6} | {:>6} {:>6}",
            "insts",
            "funcs",
            "vars",
            "fast ms",
            "fast KiB",
            "BM ms",
            "BM KiB",
            "BM edges",
            "ES ms",
            "ES KiB",
            "ES edges",
            "BM t×",
            "BM m×",
            "ES t×",
            "ES m×"
        )?;
        for r in &self.rows {
            let cell = |c: &ConfigFigures| {
                let (lo, hi) = c.spread_ms();
                format!("{:.1} ({:.1}-{:.1})", c.median_ms(), lo, hi)
            };
            writeln!(
                f,
                "{:>8} {:>5} {:>7} | {:>21} {:>9.0} | {:>21} {:>9.0} {:>9} | {:>21} {:>9.0} {:>8} | {:>6.2} {:>6.2} | {:>6.2} {:>6.2}",
                r.instructions,
                r.functions,
                r.variables,
                cell(&r.configs[0]),
                r.configs[0].median_kib(),
                cell(&r.configs[1]),
                r.configs[1].median_kib(),
                r.configs[1].graph_edges,
                cell(&r.configs[2]),
                r.configs[2].median_kib(),
                r.configs[2].graph_edges,
                r.time_ratio(1),
                r.memory_ratio(1),
                r.time_ratio(2),
                r.memory_ratio(2),
            )?;
        }
        let copies: Vec<String> = self
            .rows
            .iter()
            .map(|r| r.configs.iter().map(|c| c.copies.to_string()).collect::<Vec<_>>().join("/"))
            .collect();
        writeln!(f, "copies left (fast/BM/ES) per row: {}", copies.join(", "))?;
        for r in &self.rows {
            let e = r.evaluated;
            let baseline = e.bit_matrix + e.liveness_sets;
            writeln!(
                f,
                "Fig. 7 evaluated, {} insts: bit matrix {} B + liveness sets {} B = {} B (BM) vs liveness check {} B \
                 (fast): {:.1}×",
                r.instructions,
                e.bit_matrix,
                e.liveness_sets,
                baseline,
                e.liveness_check,
                baseline as f64 / e.liveness_check.max(1) as f64
            )?;
        }
        let wall: Vec<String> =
            self.rows.iter().map(|r| format!("{:.2}/{:.2}", r.wall_time_ratio(1), r.wall_time_ratio(2))).collect();
        writeln!(f, "wall-time ratios BM t×/ES t× per row: {}", wall.join(", "))
    }
}
