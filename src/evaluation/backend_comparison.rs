//! The comparison of Pereira, "The Design and Implementation of a SSA-based
//! Register Allocator", §5 (Table 1: spills, stack slots, stores, loads,
//! moves and xors; Fig. 9: SSA-based allocation against LLVM's at 4, 8, 12
//! and 16 registers), drawn here between ssaref's two routes and a
//! production allocator, regalloc2 (`ssaref stats --compare-backends`).
//!
//! Rows, for each K:
//! - ssa-ra: Pereira's SSA-based allocation, then Pereira and Palsberg's
//!   spill-free SSA elimination, every optimization on
//!   (`RegallocOptions::with_k`);
//! - out-of-ssa: Boissinot et al.'s out-of-SSA translation with one coalescing
//!   variant (the fast configuration), then linear scan. Unless the caller
//!   fixes the variant, every variant is measured and the one with the
//!   fewest executed spill instructions, moves and swaps over all K wins
//!   ([`Comparison::out_of_ssa_selection`] keeps every variant's totals);
//! - regalloc2 (regalloc2).
//!
//! Counts are those of `regalloc_stats.rs` ([`AllocCounts`]): static
//! `Reload`s, `Spill`s, `Move`s and `Swap`s of the allocated machine IR and
//! its stack slots, and the same instructions as executed by the oracle
//! (`Oracle::profile_mir`) on the program's arguments. Every allocation
//! counted is the checked one (each back end's own checkers, then
//! `pipeline::check_backend_output`, ssaref's allocation checker), and its
//! run must give the source's outcome: a disagreement is an error, not a
//! statistic. Programs whose source run ends out of fuel are skipped.
//!
//! Allocation time is measured on the unchecked entry points
//! (`backend::ssa_ra::allocate_function` with `Flags::unchecked()`, out-of-ssa's translation
//! with `check: false` and `linear_scan_pinned`,
//! `backend::regalloc2::allocate_function`), which must give the same
//! machine IR as the checked ones (an error otherwise). Each timing round
//! allocates every program with every back end, interleaved (the back-end
//! order rotates between rounds); the figure is the median over the rounds
//! of each back end's total time, divided by the SSA instructions of the
//! corpus. It includes what each back end does besides allocating: ssa-ra
//! splits critical edges and lifts phis; out-of-ssa translates out of SSA;
//! regalloc2 splits critical edges and builds regalloc2's input and reads its
//! output back.

use crate::ast::Program;
use crate::backend::out_of_ssa::translate_module_with_pins;
use crate::backend::{Backend, OutOfSsa, Regalloc2, SsaRa};
use crate::construction::braun::{construct_program, BraunOptions};
use crate::error::PassError;
use crate::evaluation::eval_error::EvalError;
use crate::evaluation::regalloc_stats::AllocCounts;
use crate::evaluation::timing::median_duration;
use crate::ir::Module;
use crate::mir::MModule;
use crate::oracle::Oracle;
use crate::out_of_ssa::coalescing::CoalescingVariant;
use crate::out_of_ssa::conventional::ConventionalAllocator;
use crate::out_of_ssa::renaming_constraints::Pins;
use crate::out_of_ssa::translate::OutOfSsaOptions;
use crate::outcome::{End, Outcome};
use crate::pass_manager::flags::Flags;
use crate::pass_manager::runner::Unobserved;
use crate::ssa_ra::regalloc::RegallocOptions;
use std::fmt::Write;
use std::time::{Duration, Instant};

/// The register counts of the comparison, one table each: dense at 8 or
/// fewer, where Pereira (§5) found SSA-based allocation ahead of LLVM's,
/// and up to the 15 registers x86-64 leaves allocatable.
pub const STANDARD_REGS: [usize; 7] = [2, 3, 4, 6, 8, 12, 15];

/// What [`compare_backends`] measures.
#[derive(Clone, Debug)]
pub struct CompareConfig {
    /// One table per register count.
    pub regs: Vec<usize>,
    /// Timing rounds (the median is reported); 0 skips timing.
    pub repeat: usize,
    /// Fuel of the source run (the allocated code gets
    /// `differential::later_stage_fuel` of it).
    pub fuel: u64,
    /// out-of-ssa's coalescing variant; `None` measures all and picks the best.
    pub out_of_ssa_variant: Option<CoalescingVariant>,
}

impl CompareConfig {
    /// [`STANDARD_REGS`], 5 timing rounds, out-of-ssa's variant chosen by
    /// measuring.
    pub fn standard(fuel: u64) -> Self {
        CompareConfig { regs: STANDARD_REGS.to_vec(), repeat: 5, fuel, out_of_ssa_variant: None }
    }
}

/// One of the compared back ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// ssa-ra, every optimization on.
    SsaRa,
    /// out-of-ssa with this coalescing variant and linear scan.
    OutOfSsa(CoalescingVariant),
    /// regalloc2.
    Regalloc2,
}

impl Engine {
    /// The row's label.
    pub fn label(self) -> String {
        match self {
            Engine::SsaRa => "ssa-ra (Pereira + Pereira–Palsberg)".to_string(),
            Engine::OutOfSsa(v) => format!("out-of-ssa ({} + linear scan)", v.slug()),
            Engine::Regalloc2 => "regalloc2".to_string(),
        }
    }

    fn backend(self) -> Box<dyn Backend> {
        match self {
            Engine::SsaRa => Box::new(SsaRa(RegallocOptions::with_k(2))),
            Engine::OutOfSsa(v) => Box::new(OutOfSsa {
                out_of_ssa: OutOfSsaOptions::fast(v),
                allocator: ConventionalAllocator::LinearScan,
            }),
            Engine::Regalloc2 => Box::new(Regalloc2),
        }
    }

    /// The checked allocation: the back end's own checkers, then ssaref's
    /// allocation checker on its output.
    pub fn allocate_checked(self, ssa: &Module, k: usize) -> Result<MModule, PassError> {
        let b = self.backend();
        let flags = Flags::checked();
        let mir =
            b.prepare(ssa, flags, &mut Unobserved).and_then(|p| b.allocate(ssa, &p, k, flags, &mut Unobserved))?;
        crate::pipeline::check_backend_output(ssa, &mir, k, &b.stage_names(k).0)?;
        Ok(mir)
    }

    /// The same allocation without any checker, as timed.
    pub fn allocate_unchecked(self, ssa: &Module, k: usize) -> Result<MModule, PassError> {
        let functions: Result<Vec<crate::mir::MFunction>, PassError> = match self {
            Engine::SsaRa => {
                let opts = RegallocOptions::with_k(k);
                ssa.functions
                    .iter()
                    .map(|f| {
                        let calls = ssa.has_calls();
                        crate::backend::ssa_ra::allocate_function_in(
                            f,
                            calls,
                            &opts,
                            Flags::unchecked(),
                            &mut Unobserved,
                        )
                        .map(|(m, _)| m)
                    })
                    .collect()
            }
            Engine::OutOfSsa(v) => {
                let opts = OutOfSsaOptions { check: false, ..OutOfSsaOptions::fast(v) };
                let (destructed, pins, _) = translate_module_with_pins(ssa, &opts, Flags::unchecked())?;
                let none = Pins::none();
                destructed
                    .functions
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        crate::out_of_ssa::conventional::linear_scan::linear_scan_pinned(
                            f,
                            pins.get(i).unwrap_or(&none),
                            k,
                        )
                    })
                    .collect()
            }
            Engine::Regalloc2 => ssa
                .functions
                .iter()
                .map(|f| crate::backend::regalloc2::allocate_function(f, k, Flags::unchecked()).map(|(m, _)| m))
                .collect(),
        };
        Ok(MModule { functions: functions? })
    }
}

/// One row of a table: a back end's counts at one K, and its timing.
#[derive(Clone, Debug)]
pub struct Row {
    pub engine: Engine,
    /// Static and dynamic counts over the corpus.
    pub counts: AllocCounts,
    /// Total allocation time of each timing round.
    pub rounds: Vec<Duration>,
}

impl Row {
    /// Static spill instructions, moves and swaps.
    pub fn static_total(&self) -> u64 {
        let c = &self.counts;
        c.loads + c.stores + c.moves + c.swaps
    }

    /// Executed spill instructions, moves and swaps.
    pub fn dynamic_total(&self) -> u64 {
        let d = &self.counts.dynamic;
        d.loads + d.stores + d.moves + d.swaps
    }

    /// The median of the rounds (`timing::median_duration`), `None`
    /// without timing rounds.
    pub fn median(&self) -> Option<Duration> {
        median_duration(&self.rounds)
    }
}

/// The rows at one K: ssa-ra, out-of-ssa, regalloc2.
#[derive(Clone, Debug)]
pub struct KTable {
    pub k: usize,
    pub rows: Vec<Row>,
}

/// A comparison over one corpus.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The corpus's description (`generated: 300 programs, seed 1`).
    pub corpus: String,
    /// Programs measured.
    pub programs: usize,
    /// Programs skipped (their source run ran out of fuel).
    pub skipped: usize,
    /// SSA instructions of the measured programs (the time's denominator).
    pub instructions: usize,
    /// Timing rounds.
    pub repeat: usize,
    /// out-of-ssa's variant in the tables.
    pub out_of_ssa_variant: CoalescingVariant,
    /// Each variant measured to choose it, with its static and dynamic
    /// totals (spill instructions, moves, swaps) summed over every K;
    /// empty when the variant was given.
    pub out_of_ssa_selection: Vec<(CoalescingVariant, u64, u64)>,
    /// One table per K, in the order of `CompareConfig::regs`.
    pub tables: Vec<KTable>,
}

/// A program of the corpus, ready for every back end.
struct Input {
    ssa: Module,
    args: Vec<i64>,
    expected: Outcome,
}

/// Counts one back end's checked allocations of every input at `k`.
fn count(engine: Engine, inputs: &[Input], k: usize, oracle: &dyn Oracle, fuel: u64) -> Result<AllocCounts, EvalError> {
    let mut c = AllocCounts::default();
    for (i, input) in inputs.iter().enumerate() {
        let at = |e: EvalError| e.within(format!("program {i}, {} at K = {k}", engine.label()));
        let mir = engine.allocate_checked(&input.ssa, k).map_err(|e| at(e.into()))?;
        c.programs += 1;
        c.add_static(&mir);
        let got = c.add_run(&mir, &input.args, oracle, crate::differential::later_stage_fuel(fuel)).map_err(at)?;
        if got != input.expected {
            let expected = Box::new(input.expected.clone());
            return Err(at(EvalError::Diverge { stage: "the allocated code".into(), got: Box::new(got), expected }));
        }
    }
    Ok(c)
}

/// Measures ssa-ra, out-of-ssa and regalloc2 on `corpus` (see the module
/// documentation). `name` describes the corpus in the output.
pub fn compare_backends(
    name: &str,
    corpus: &[(Program, Vec<i64>)],
    oracle: &dyn Oracle,
    config: &CompareConfig,
) -> Result<Comparison, EvalError> {
    let mut inputs = Vec::new();
    let mut skipped = 0;
    for (program, args) in corpus {
        let expected = oracle.run_source(program, args, config.fuel).map_err(EvalError::Oracle)?;
        if expected.end == End::OutOfFuel {
            skipped += 1;
            continue;
        }
        let ssa = construct_program(program, &BraunOptions::all_on());
        inputs.push(Input { ssa, args: args.clone(), expected });
    }
    let instructions = inputs.iter().map(|i| i.ssa.functions.iter().map(|f| f.inst_count()).sum::<usize>()).sum();
    // out-of-ssa's variant: given, or the one with the fewest executed spill
    // instructions, moves and swaps over every K (then the fewest static).
    let mut out_of_ssa_counts: Vec<(CoalescingVariant, Vec<AllocCounts>)> = Vec::new();
    let candidates: Vec<CoalescingVariant> = match config.out_of_ssa_variant {
        Some(v) => vec![v],
        None => CoalescingVariant::ALL.to_vec(),
    };
    for &v in &candidates {
        let per_k = config
            .regs
            .iter()
            .map(|&k| count(Engine::OutOfSsa(v), &inputs, k, oracle, config.fuel))
            .collect::<Result<Vec<_>, _>>()?;
        out_of_ssa_counts.push((v, per_k));
    }
    let totals = |per_k: &[AllocCounts]| {
        let stat: u64 = per_k.iter().map(|c| c.loads + c.stores + c.moves + c.swaps).sum();
        let dynamic: u64 =
            per_k.iter().map(|c| c.dynamic.loads + c.dynamic.stores + c.dynamic.moves + c.dynamic.swaps).sum();
        (stat, dynamic)
    };
    let out_of_ssa_selection: Vec<(CoalescingVariant, u64, u64)> = if config.out_of_ssa_variant.is_some() {
        Vec::new()
    } else {
        out_of_ssa_counts
            .iter()
            .map(|(v, per_k)| {
                let (s, d) = totals(per_k);
                (*v, s, d)
            })
            .collect()
    };
    let (best, best_counts) = out_of_ssa_counts
        .into_iter()
        .min_by_key(|(_, per_k)| {
            let (s, d) = totals(per_k);
            (d, s)
        })
        .ok_or(EvalError::NoOutOfSsaVariant)?;
    let engines = [Engine::SsaRa, Engine::OutOfSsa(best), Engine::Regalloc2];
    let mut tables = Vec::new();
    for (ki, &k) in config.regs.iter().enumerate() {
        let mut rows = Vec::new();
        for &engine in &engines {
            let counts = match engine {
                Engine::OutOfSsa(_) => best_counts[ki],
                _ => count(engine, &inputs, k, oracle, config.fuel)?,
            };
            rows.push(Row { engine, counts, rounds: Vec::new() });
        }
        tables.push(KTable { k, rows });
    }
    time_rounds(&inputs, &engines, config, &mut tables)?;
    Ok(Comparison {
        corpus: name.to_string(),
        programs: inputs.len(),
        skipped,
        instructions,
        repeat: config.repeat,
        out_of_ssa_variant: best,
        out_of_ssa_selection,
        tables,
    })
}

/// The timing rounds: every program with every back end, interleaved, the
/// back-end order rotating between rounds. In the first round, each
/// unchecked allocation is compared with the checked one.
fn time_rounds(
    inputs: &[Input],
    engines: &[Engine],
    config: &CompareConfig,
    tables: &mut [KTable],
) -> Result<(), EvalError> {
    for round in 0..config.repeat {
        for (ki, &k) in config.regs.iter().enumerate() {
            let mut spent = vec![Duration::ZERO; engines.len()];
            for (i, input) in inputs.iter().enumerate() {
                for j in 0..engines.len() {
                    let e = (j + round) % engines.len();
                    let t = Instant::now();
                    let mir = engines[e].allocate_unchecked(&input.ssa, k);
                    spent[e] += t.elapsed();
                    let at = |err: EvalError| err.within(format!("program {i}, {} at K = {k}", engines[e].label()));
                    let mir = mir.map_err(|err| at(err.into()))?;
                    if round == 0 && engines[e].allocate_checked(&input.ssa, k).ok().as_ref() != Some(&mir) {
                        return Err(at(EvalError::UncheckedDiffers));
                    }
                }
            }
            for (e, d) in spent.into_iter().enumerate() {
                tables[ki].rows[e].rounds.push(d);
            }
        }
    }
    Ok(())
}

/// `x / base` as `0.42×`, or `–` when the base is 0 (and `x` is not).
fn ratio(x: f64, base: f64) -> String {
    if base == 0.0 {
        if x == 0.0 {
            "=".to_string()
        } else {
            "–".to_string()
        }
    } else {
        format!("{:.2}×", x / base)
    }
}

impl Comparison {
    /// Nanoseconds per SSA instruction of a row's median round.
    pub fn ns_per_inst(&self, row: &Row) -> Option<f64> {
        row.median().map(|d| d.as_nanos() as f64 / self.instructions.max(1) as f64)
    }

    /// The table of K = `k`, in Markdown.
    pub fn table_markdown(&self, t: &KTable) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "| back end | loads | stores | moves | swaps | total | vs ssa-ra | slots | dyn loads | dyn stores | dyn moves | dyn swaps | dyn total | vs ssa-ra | ns/inst | vs ssa-ra |"
        );
        let _ = writeln!(s, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
        let base = &t.rows[0];
        for r in &t.rows {
            let c = &r.counts;
            let time = self.ns_per_inst(r);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.engine.label(),
                c.loads,
                c.stores,
                c.moves,
                c.swaps,
                r.static_total(),
                ratio(r.static_total() as f64, base.static_total() as f64),
                c.slots,
                c.dynamic.loads,
                c.dynamic.stores,
                c.dynamic.moves,
                c.dynamic.swaps,
                r.dynamic_total(),
                ratio(r.dynamic_total() as f64, base.dynamic_total() as f64),
                time.map_or("–".to_string(), |t| format!("{t:.0}")),
                match (time, self.ns_per_inst(base)) {
                    (Some(t), Some(b)) => ratio(t, b),
                    _ => "–".to_string(),
                },
            );
        }
        s
    }

    /// The corpus line, out-of-ssa's choice, and a summary over every K:
    /// executed spill instructions (loads + stores), executed moves + swaps,
    /// and time per instruction, for each back end.
    pub fn summary_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Corpus {}: {} programs measured ({} skipped: source out of fuel), {} SSA instructions; time: median of {} interleaved rounds.",
            self.corpus, self.programs, self.skipped, self.instructions, self.repeat
        );
        let _ = writeln!(s);
        if self.out_of_ssa_selection.is_empty() {
            let _ = writeln!(s, "out-of-ssa's coalescing variant: {} (given).", self.out_of_ssa_variant.slug());
        } else {
            let list: Vec<String> = self
                .out_of_ssa_selection
                .iter()
                .map(|(v, st, dy)| format!("{} {dy} dynamic / {st} static", v.slug()))
                .collect();
            let _ = writeln!(
                s,
                "out-of-ssa's coalescing variant: {}, the fewest executed spill instructions, moves and swaps over all K (measured: {}).",
                self.out_of_ssa_variant.slug(),
                list.join("; ")
            );
        }
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "| K | dyn loads+stores ssa-ra | out-of-ssa | regalloc2 | dyn moves+swaps ssa-ra | out-of-ssa | regalloc2 | slots ssa-ra | out-of-ssa | regalloc2 | ns/inst ssa-ra | out-of-ssa | regalloc2 |"
        );
        let _ = writeln!(s, "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
        for t in &self.tables {
            let mem: Vec<String> =
                t.rows.iter().map(|r| (r.counts.dynamic.loads + r.counts.dynamic.stores).to_string()).collect();
            let mov: Vec<String> =
                t.rows.iter().map(|r| (r.counts.dynamic.moves + r.counts.dynamic.swaps).to_string()).collect();
            let slots: Vec<String> = t.rows.iter().map(|r| r.counts.slots.to_string()).collect();
            let time: Vec<String> =
                t.rows.iter().map(|r| self.ns_per_inst(r).map_or("–".to_string(), |x| format!("{x:.0}"))).collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                t.k,
                mem.join(" | "),
                mov.join(" | "),
                slots.join(" | "),
                time.join(" | ")
            );
        }
        s
    }
}

/// The comparisons in Markdown: each corpus's summary, then for each K the
/// table of each corpus, one after the other (never one table of both).
pub fn render_markdown(comparisons: &[Comparison]) -> String {
    let mut s = String::new();
    for c in comparisons {
        let _ = writeln!(s, "### Summary: {}\n", c.corpus);
        s.push_str(&c.summary_markdown());
        s.push('\n');
    }
    let ks: Vec<usize> = comparisons.first().map_or(Vec::new(), |c| c.tables.iter().map(|t| t.k).collect());
    for (ki, k) in ks.iter().enumerate() {
        let _ = writeln!(s, "### K = {k}\n");
        for c in comparisons {
            if let Some(t) = c.tables.get(ki) {
                let _ = writeln!(s, "{}:\n", c.corpus);
                s.push_str(&c.table_markdown(t));
                s.push('\n');
            }
        }
    }
    s
}

/// Why [`load_corpus_dir`] cannot load a corpus.
#[derive(Debug)]
pub enum CorpusError {
    /// The directory or a file of it cannot be read.
    Read { path: std::path::PathBuf, error: std::io::Error },
    /// A file is not a case file: the diagnostic, with its position.
    Parse { path: std::path::PathBuf, diag: crate::diag::Diag },
}

impl std::fmt::Display for CorpusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CorpusError::Read { path, error } => write!(f, "{}: cannot read: {error}", path.display()),
            CorpusError::Parse { path, diag } => f.write_str(&diag.with_file(&path.display().to_string())),
        }
    }
}

impl std::error::Error for CorpusError {}

/// The programs `*.src` of `dir`, in name order, with their `// args:`
/// (the realistic corpus is `tests/corpus`), leaving out the programs with
/// calls, which the back ends compared here refuse for now. Errors print
/// as `FILE:LINE:COL`.
pub fn load_corpus_dir(dir: &std::path::Path) -> Result<Vec<(Program, Vec<i64>)>, CorpusError> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(|error| CorpusError::Read { path: dir.to_path_buf(), error })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "src"))
        .collect();
    files.sort();
    let mut corpus = Vec::new();
    for path in files {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) => return Err(CorpusError::Read { path, error }),
        };
        let case = match crate::frontend::case_file::CaseFile::parse(&text) {
            Ok(case) => case,
            Err(diag) => return Err(CorpusError::Parse { path, diag }),
        };
        if !case.program.has_calls() {
            corpus.push((case.program, case.args));
        }
    }
    Ok(corpus)
}
