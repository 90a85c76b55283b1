//! The speed and memory comparison of Boissinot et al., "Revisiting
//! Out-of-SSA Translation for Correctness, Code Quality, and Efficiency"
//! (CGO 2009), §IV-D (Fig. 6 and 7): the fast configuration ("Us I +
//! Linear + InterCheck + LiveCheck": no interference graph, no liveness
//! sets, the linear class test) against out-of-ssa's Sreedhar III
//! baselines, on the same functions, in one run:
//!
//! - **Sreedhar III, bit matrix of φ/copy variables**
//!   ([`OutOfSsaOptions::sreedhar_iii_bitmatrix_related`]): the baseline as
//!   the paper built it, liveness sets and the interference graph of the
//!   φ- and copy-related variables as a triangular bit matrix plus
//!   adjacency lists (`out_of_ssa/interference_graph_bitmatrix.rs`);
//! - **Sreedhar III, bit matrix of all variables**
//!   ([`OutOfSsaOptions::sreedhar_iii_bitmatrix`]): the same over every
//!   variable, as a compiler that also allocates registers from the graph
//!   would build it;
//! - **Sreedhar III, edge set** ([`OutOfSsaOptions::sreedhar_iii_graph`]):
//!   liveness sets and a hash set of edges over the φ- and copy-related
//!   variables.
//!
//! The measurement is interleaved and repeated (`timing::interleaved_prepared`):
//! each repetition runs every configuration once, in turn, so that a
//! change of the machine's load hits all of them. Before each run, outside
//! its timed region, the input is verified once and copied (the translation
//! rewrites its copy): the paper times the translation, not the parsing or
//! copying of its input. Each run translates the functions one at a time
//! ([`translate_verified`]) and drops each result before the next, as a
//! compiler translating function by function would. The time of a run
//! includes every analysis the configuration builds (liveness sets or
//! check, the graph), as in the paper ("timings include their
//! construction"). The memory figure of a run is the largest, over its
//! functions, of the peak bytes allocated while one function is translated
//! (read from a [`MemoryProbe`] the caller supplies, reset before each
//! function): the liveness sets or check, the graph, the congruence classes
//! and the rest of the translation's working data, including the copies it
//! inserts into its copy of the function and the function it returns, but
//! not that copy's bytes before the translation starts nor any other
//! function's. The checkers are off in every configuration: they are not
//! part of the translation the paper timed.
//!
//! This is the one harness of §IV-D: `ssaref bench-out-of-ssa` prints
//! [`BaselineTable`] (median thread CPU time with its spread, wall-time
//! ratios, per-function peak memory), and `ssaref reproduce`
//! (`reproduce/boissinot.rs`) calls [`measure_baselines`] on its inputs.

use crate::analysis::verifier::verify_function;
use crate::backend::out_of_ssa::translate_verified;
use crate::evaluation::eval_error::EvalError;
use crate::evaluation::timing::{interleaved_prepared, min_max, MemoryProbe, Run, Timing};
use crate::ir::{Function, Module};
use crate::out_of_ssa::coalescing::CoalescingVariant;
use crate::out_of_ssa::translate_options::{fail, OutOfSsaOptions};
use crate::pass_manager::flags::Flags;
use std::any::Any;
use std::cell::{Cell, RefCell};
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

/// The configurations compared, in table order: the fast one, then the
/// baselines, the paper's first. The fast configuration uses the `Value`
/// variant, as the paper's "Us I" does. Adding a baseline is adding an
/// entry here; the tables and plots follow.
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
            tag: "BMR",
            name: "Sreedhar III, bit matrix of phi/copy variables",
            description: "Sreedhar III (liveness sets, interference graph of the phi- and copy-related variables, \
                          bit matrix + adjacency lists; the paper's baseline)",
            options: unchecked(OutOfSsaOptions::sreedhar_iii_bitmatrix_related()),
        },
        Configuration {
            tag: "BM",
            name: "Sreedhar III, bit matrix of all variables",
            description: "Sreedhar III (liveness sets, interference graph of every variable, bit matrix + \
                          adjacency lists)",
            options: unchecked(OutOfSsaOptions::sreedhar_iii_bitmatrix()),
        },
        Configuration {
            tag: "ES",
            name: "Sreedhar III, edge set of phi/copy variables",
            description: "Sreedhar III (liveness sets, interference graph of the phi- and copy-related variables, \
                          hash set of edges)",
            options: unchecked(OutOfSsaOptions::sreedhar_iii_graph()),
        },
    ]
}

/// One configuration's figures on one module.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigFigures {
    pub name: &'static str,
    /// Wall time and thread CPU time of each repetition, and its memory
    /// figure: the largest peak of one function's translation (see the
    /// module documentation).
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

    /// Median per-function peak memory in KiB.
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
    /// Instructions of the largest function.
    pub largest_function: usize,
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

    /// `configs[i]`'s median per-function peak memory over the fast
    /// configuration's.
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
/// documentation). A function that fails the verifier, or an error of the
/// translation, is returned as the pass error.
pub fn measure_baselines(
    module: &Module,
    repetitions: usize,
    probe: &dyn MemoryProbe,
) -> Result<BaselineRow, EvalError> {
    for f in &module.functions {
        verify_function(f).map_err(|e| EvalError::from(fail(f, "SSA verifier (input)", e)))?;
    }
    let configs = configurations();
    // Copies and graph edges of each configuration's latest run.
    let counts: Vec<(Cell<usize>, Cell<usize>)> = configs.iter().map(|_| Default::default()).collect();
    // The largest per-function peak of each configuration's runs, in order.
    let peaks: Vec<RefCell<Vec<usize>>> = configs.iter().map(|_| Default::default()).collect();
    // The copies of the functions the next run translates, made untimed.
    let prepared: RefCell<Vec<Function>> = RefCell::new(Vec::new());
    let mut prepare = |_: usize| *prepared.borrow_mut() = module.functions.clone();
    let mut runs: Vec<Run<'_>> = configs
        .iter()
        .zip(&counts)
        .zip(&peaks)
        .map(|((c, (copies, edges)), peak)| {
            let (opts, prepared) = (c.options, &prepared);
            Box::new(move || {
                let (mut c, mut e, mut largest) = (0, 0, 0);
                let copies_of_input = std::mem::take(&mut *prepared.borrow_mut());
                for (f, g) in module.functions.iter().zip(copies_of_input) {
                    probe.reset_peak();
                    let base = probe.current();
                    let t = translate_verified(f, g, &opts, Flags::unchecked())?;
                    largest = largest.max(probe.peak().saturating_sub(base));
                    c += t.report.remaining_copies;
                    e += t.report.graph_edges;
                    drop(t);
                }
                copies.set(c);
                edges.set(e);
                peak.borrow_mut().push(largest);
                Ok(Box::new(()) as Box<dyn Any>)
            }) as Run<'_>
        })
        .collect();
    let timings = interleaved_prepared(repetitions, probe, &mut prepare, &mut runs)?;
    drop(runs);
    let configs = configs
        .iter()
        .zip(timings)
        .zip(&counts)
        .zip(&peaks)
        .map(|(((c, mut timing), (copies, edges)), peak)| {
            // The timed runs are the last ones; the warm-up runs come first.
            let peak = peak.borrow();
            timing.peak_bytes = peak[peak.len() - timing.seconds.len()..].to_vec();
            ConfigFigures { name: c.name, timing, copies: copies.get(), graph_edges: edges.get() }
        })
        .collect();
    Ok(BaselineRow {
        instructions: module.functions.iter().map(|f| f.inst_count()).sum(),
        functions: module.functions.len(),
        blocks: module.functions.iter().map(|f| f.block_count()).sum(),
        variables: module.functions.iter().map(|f| f.value_count as usize).sum(),
        configs,
        largest_function: module.functions.iter().map(|f| f.inst_count()).max().unwrap_or(0),
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
             largest per-function peak memory; checks off, input verified and copied outside the timed region",
            self.repetitions
        )?;
        for c in &configs {
            writeln!(f, "  {:<4} = {}", c.tag, c.name)?;
        }
        writeln!(f, "  t× and m× are a baseline's median over the fast configuration's (paper, BMR: ~2 and ~10)")?;
        write!(f, "{:>8} {:>5} {:>7} {:>7}", "insts", "funcs", "vars", "largest")?;
        for (i, c) in configs.iter().enumerate() {
            write!(f, " | {:>21} {:>9}", format!("{} ms", c.tag), format!("{} KiB", c.tag))?;
            if i > 0 {
                write!(
                    f,
                    " {:>8} {:>6} {:>6}",
                    format!("{} edges", c.tag),
                    format!("{} t×", c.tag),
                    format!("{} m×", c.tag)
                )?;
            }
        }
        writeln!(f)?;
        for r in &self.rows {
            write!(f, "{:>8} {:>5} {:>7} {:>7}", r.instructions, r.functions, r.variables, r.largest_function)?;
            for (i, c) in r.configs.iter().enumerate() {
                let (lo, hi) = c.spread_ms();
                write!(f, " | {:>21} {:>9.0}", format!("{:.1} ({:.1}-{:.1})", c.median_ms(), lo, hi), c.median_kib())?;
                if i > 0 {
                    write!(f, " {:>8} {:>6.2} {:>6.2}", c.graph_edges, r.time_ratio(i), r.memory_ratio(i))?;
                }
            }
            writeln!(f)?;
        }
        let copies: Vec<String> = self
            .rows
            .iter()
            .map(|r| r.configs.iter().map(|c| c.copies.to_string()).collect::<Vec<_>>().join("/"))
            .collect();
        let tags: Vec<&str> = configs.iter().map(|c| c.tag).collect();
        writeln!(f, "copies left ({}) per row: {}", tags.join("/"), copies.join(", "))?;
        let wall: Vec<String> = self
            .rows
            .iter()
            .map(|r| (1..r.configs.len()).map(|i| format!("{:.2}", r.wall_time_ratio(i))).collect::<Vec<_>>().join("/"))
            .collect();
        writeln!(f, "wall-time ratios {} t× per row: {}", tags[1..].join("/"), wall.join(", "))
    }
}
