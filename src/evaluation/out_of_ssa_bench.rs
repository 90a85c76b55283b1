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
//! The measurement is interleaved (each repetition runs every configuration
//! once, in turn, so that a change of the machine's load hits all of them)
//! and repeated; the table gives the median thread CPU time with its spread
//! (wall time counts the waits of a loaded machine; its ratios are printed
//! too), and the peak memory. Time and memory include every analysis the configuration
//! builds (liveness sets or check, the graph), as in the paper ("timings
//! include their construction"). The checkers are off in every
//! configuration: they are not part of the translation the paper timed.
//!
//! Memory comes from a [`MemoryProbe`] that the caller supplies (the binary
//! counts the bytes its allocator hands out, `cli/counting_alloc.rs`); the
//! library has no allocator of its own to ask. `ssaref bench-out-of-ssa`
//! prints [`BaselineTable`]; `ssaref reproduce` can reuse
//! [`measure_baselines`].

use crate::evaluation::error::EvalError;
use crate::ir::Module;
use crate::out_of_ssa::coalescing::CoalescingVariant;
use crate::out_of_ssa::translate::{translate_out_of_ssa, OutOfSsaOptions};
use std::fmt;
use std::time::Instant;

/// Bytes in use and their peak, as counted by the caller's allocator.
pub trait MemoryProbe {
    /// Bytes in use now.
    fn current(&self) -> usize;
    /// Restarts the peak from the bytes in use now.
    fn reset_peak(&self);
    /// The largest number of bytes in use since the last `reset_peak`.
    fn peak(&self) -> usize;
}

/// A probe that measures nothing (every figure 0), for callers without a
/// counting allocator.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMemoryProbe;

impl MemoryProbe for NoMemoryProbe {
    fn current(&self) -> usize {
        0
    }
    fn reset_peak(&self) {}
    fn peak(&self) -> usize {
        0
    }
}

/// The three configurations compared, in table order: the fast one, then
/// the two baselines, each with its label. The fast configuration uses the
/// `Value` variant, as the paper's "Us I" does.
pub fn configurations() -> Vec<(&'static str, OutOfSsaOptions)> {
    vec![
        ("fast (Us I+Linear+InterCheck+LiveCheck)", OutOfSsaOptions::fast(CoalescingVariant::Value)),
        ("Sreedhar III, bit matrix of all variables", OutOfSsaOptions::sreedhar_iii_bitmatrix()),
        ("Sreedhar III, edge set of copy/phi variables", OutOfSsaOptions::sreedhar_iii_graph()),
    ]
    .into_iter()
    .map(|(name, o)| (name, OutOfSsaOptions { check: false, ..o }))
    .collect()
}

/// CPU time of the calling thread, in milliseconds (`CLOCK_THREAD_CPUTIME_ID`):
/// unlike wall time, it does not count the time the thread waits for a core
/// on a loaded machine.
pub fn thread_cpu_ms() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec, and the clock id is a
    // constant that every Linux kernel since 2.6.12 supports.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    if rc != 0 {
        return 0.0;
    }
    t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 / 1e6
}

/// One configuration's figures on one module.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigFigures {
    pub name: &'static str,
    /// Thread CPU time of each repetition, in milliseconds, in run order.
    pub cpu_ms: Vec<f64>,
    /// Wall time of each repetition, in milliseconds, in run order.
    pub times_ms: Vec<f64>,
    /// Peak bytes above the bytes in use at the start, of each repetition.
    pub peak_bytes: Vec<usize>,
    /// Copies left (static), the same in every repetition.
    pub copies: usize,
    /// Edges of the interference graph (0 without one).
    pub graph_edges: usize,
}

fn median_f64(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

impl ConfigFigures {
    /// Median thread CPU time in milliseconds.
    pub fn median_ms(&self) -> f64 {
        median_f64(&self.cpu_ms)
    }

    /// Median wall time in milliseconds.
    pub fn median_wall_ms(&self) -> f64 {
        median_f64(&self.times_ms)
    }

    /// Fastest and slowest repetition, in milliseconds of thread CPU time.
    pub fn spread_ms(&self) -> (f64, f64) {
        let min = self.cpu_ms.iter().copied().fold(f64::INFINITY, f64::min);
        let max = self.cpu_ms.iter().copied().fold(0.0, f64::max);
        (if min.is_finite() { min } else { 0.0 }, max)
    }

    /// Median peak memory in KiB.
    pub fn median_kib(&self) -> f64 {
        let v: Vec<f64> = self.peak_bytes.iter().map(|&b| b as f64 / 1024.0).collect();
        median_f64(&v)
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
    let mut figures: Vec<ConfigFigures> = configs
        .iter()
        .map(|(name, _)| ConfigFigures {
            name,
            cpu_ms: Vec::new(),
            times_ms: Vec::new(),
            peak_bytes: Vec::new(),
            copies: 0,
            graph_edges: 0,
        })
        .collect();
    for _ in 0..repetitions.max(1) {
        for ((_, opts), fig) in configs.iter().zip(&mut figures) {
            let mut copies = 0;
            let mut edges = 0;
            probe.reset_peak();
            let base = probe.current();
            let start = Instant::now();
            let cpu = thread_cpu_ms();
            for f in &module.functions {
                let (g, report) = translate_out_of_ssa(f, opts)?;
                copies += report.remaining_copies;
                edges += report.graph_edges;
                drop(g);
            }
            fig.cpu_ms.push(thread_cpu_ms() - cpu);
            fig.times_ms.push(start.elapsed().as_secs_f64() * 1e3);
            fig.peak_bytes.push(probe.peak().saturating_sub(base));
            fig.copies = copies;
            fig.graph_edges = edges;
        }
    }
    Ok(BaselineRow {
        instructions: module.functions.iter().map(|f| f.inst_count()).sum(),
        functions: module.functions.len(),
        blocks: module.functions.iter().map(|f| f.block_count()).sum(),
        variables: module.functions.iter().map(|f| f.value_count as usize).sum(),
        configs: figures,
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
        let names: Vec<&str> = configurations().iter().map(|(n, _)| *n).collect();
        writeln!(
            f,
            "out-of-SSA, Boissinot et al. §IV-D: thread CPU time, median of {} interleaved runs (min-max), \
             peak memory; checks off",
            self.repetitions
        )?;
        for (i, n) in names.iter().enumerate() {
            let tag = ["fast", "BM", "ES"][i.min(2)];
            writeln!(f, "  {tag:<4} = {n}")?;
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
