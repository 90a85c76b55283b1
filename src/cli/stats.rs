//! `ssaref stats`: statistics over a corpus of programs (files and
//! generated ones): ssa-ra's spills and moves with each optimization of
//! Pereira and Palsberg §6 on and off, and with each spilling strategy
//! (during coloring, Pereira §4.5-4.6, or a separate pass), or out-of-ssa's
//! remaining copies per coalescing variant, or (`--compare-backends`)
//! ssa-ra, out-of-ssa and regalloc2 side by side (`evaluation/backend_comparison.rs`).

use crate::args::Route;
use crate::common::{bad_input, internal, load_case, usage, Failure};
use crate::stdio::say;
use clap::Args;
use ssaref::construction::braun::BraunOptions;
use std::process::ExitCode;

use ssaref_interp as interp;

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Programs (`*.src`); a `// args: ...` header line gives their arguments.
    files: Vec<String>,
    /// Also this many generated programs (seeds `--seed`, `--seed`+1, ...);
    /// with `--compare-backends`, the size of the generated corpus
    /// (default 300).
    #[arg(long, visible_alias = "count", default_value_t = 0, value_parser = crate::args::count())]
    gen: u64,
    /// First seed of the generated programs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Shape of the generated programs (see `ssaref gen --help`).
    #[arg(long, default_value = "swarm")]
    shape: String,
    /// Number of registers.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(2..=15))]
    regs: u8,
    /// Fuel of each run.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL, value_parser = crate::args::fuel())]
    fuel: u64,
    /// Which back end: `ssa-ra` (register allocation) or `out-of-ssa` (or
    /// `boissinot`: copies left by each out-of-SSA coalescing variant, Fig. 5).
    #[arg(long, value_enum, default_value_t = Route::SsaRa)]
    route: Route,
    /// With `--route out-of-ssa`: `check` (fast liveness check) or `sets`.
    #[arg(long, default_value = "check")]
    liveness: String,
    /// With `--route out-of-ssa`: the SSA construction, `all-on` (copies
    /// propagated, as after optimization) or `plain` (copies kept).
    #[arg(long, default_value = "all-on")]
    construction: String,
    /// ssa-ra, out-of-ssa (its best coalescing variant, found by measuring,
    /// unless `--coalescing` fixes it) and regalloc2 side by side: one
    /// Markdown table per K of `--compare-regs` with static and dynamic
    /// loads, stores, moves, swaps, stack slots and allocation time per
    /// instruction, for each corpus of `--corpus`.
    #[arg(long)]
    compare_backends: bool,
    /// With `--compare-backends`: the corpora, each reported on its own:
    /// `generated` (`--count` programs from `--seed`, shape `--shape`)
    /// and `realistic` (the `*.src` of `--corpus-dir`).
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [CorpusArg::Generated, CorpusArg::Realistic])]
    corpus: Vec<CorpusArg>,
    /// With `--compare-backends`: the realistic corpus's directory
    /// (default: `tests/corpus` here, else that of ssaref's source tree).
    #[arg(long)]
    corpus_dir: Option<String>,
    /// With `--compare-backends`: the register counts, one table each.
    #[arg(long, value_delimiter = ',', value_parser = crate::args::reg_count(), default_values_t = ssaref::evaluation::backend_comparison::STANDARD_REGS)]
    compare_regs: Vec<usize>,
    /// With `--compare-backends`: timing rounds (the median is reported).
    #[arg(long, default_value_t = 5, value_parser = crate::args::repetitions())]
    repeat: usize,
    /// With `--compare-backends`: out-of-ssa's coalescing variant, instead of
    /// the best one measured.
    #[arg(long, value_parser = crate::args::parse_coalescing)]
    coalescing: Option<ssaref::out_of_ssa::coalescing::CoalescingVariant>,
}

/// A corpus of `--compare-backends`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CorpusArg {
    /// Generated programs (`--count`, `--seed`, `--shape`).
    Generated,
    /// The programs of `--corpus-dir`.
    Realistic,
}

/// `ssaref stats --compare-backends`: the corpora of `--corpus`, each
/// measured on its own, rendered together.
fn cmd_compare_backends(a: &StatsArgs) -> Result<ExitCode, Failure> {
    use ssaref::evaluation::backend_comparison::{compare_backends, load_corpus_dir, render_markdown, CompareConfig};
    if !a.files.is_empty() {
        return Err(usage("stats --compare-backends: give the corpora with --corpus and --corpus-dir".into()));
    }
    let config = CompareConfig {
        regs: a.compare_regs.clone(),
        repeat: a.repeat,
        fuel: a.fuel,
        out_of_ssa_variant: a.coalescing,
    };
    let mut results = Vec::new();
    for corpus in &a.corpus {
        let (name, programs) = match corpus {
            CorpusArg::Generated => {
                let shape = ssaref::generate::source::Shape::from_name(&a.shape)
                    .ok_or_else(|| usage(format!("stats: unknown shape `{}`", a.shape)))?;
                let count = if a.gen == 0 { 300 } else { a.gen };
                let programs: Vec<_> = (0..count)
                    .map(|i| {
                        let tc = ssaref::generate::source::TestCase::from_seed(a.seed.wrapping_add(i), &shape.config());
                        (tc.program, tc.args)
                    })
                    .collect();
                (format!("generated ({count} programs, seed {}, shape {})", a.seed, a.shape), programs)
            }
            CorpusArg::Realistic => {
                let dir = a.corpus_dir.clone().map_or_else(crate::common::default_corpus, std::path::PathBuf::from);
                let programs = load_corpus_dir(&dir).map_err(|e| bad_input(e.to_string()))?;
                if programs.is_empty() {
                    return Err(bad_input(format!("{}: no *.src programs", dir.display())));
                }
                (format!("realistic ({}/*.src, {} programs)", dir.display(), programs.len()), programs)
            }
        };
        results.push(compare_backends(&name, &programs, &interp::Interp, &config).map_err(internal)?);
    }
    say!("{}", render_markdown(&results));
    Ok(ExitCode::SUCCESS)
}

/// `ssaref stats`: ssa-ra's table (or out-of-ssa's Fig. 5 table with `--route out-of-ssa`) over the files and generated programs.
pub fn cmd_stats(a: StatsArgs) -> Result<ExitCode, Failure> {
    if a.compare_backends {
        return cmd_compare_backends(&a);
    }
    let mut corpus = Vec::new();
    for file in &a.files {
        // The case-file reader: `// args:` from the header, errors as
        // FILE:LINE:COL.
        let case = load_case(file)?;
        corpus.push((case.program, case.args));
    }
    let shape = ssaref::generate::source::Shape::from_name(&a.shape)
        .ok_or_else(|| usage(format!("stats: unknown shape `{}`", a.shape)))?;
    let config = shape.config();
    for i in 0..a.gen {
        let tc = ssaref::generate::source::TestCase::from_seed(a.seed.wrapping_add(i), &config);
        corpus.push((tc.program, tc.args));
    }
    if corpus.is_empty() {
        return Err(usage("stats: give at least one program, or --gen N".into()));
    }
    if a.route == Route::Regalloc2 {
        return Err(usage("stats: no table for regalloc2 yet".into()));
    }
    if a.route == Route::OutOfSsa {
        let liveness = match a.liveness.as_str() {
            "check" => ssaref::out_of_ssa::translate::LivenessMethod::Check,
            "sets" => ssaref::out_of_ssa::translate::LivenessMethod::Sets,
            other => return Err(usage(format!("stats: unknown liveness method `{other}` (check, sets)"))),
        };
        let construction = match a.construction.as_str() {
            "all-on" => BraunOptions::all_on(),
            "plain" => BraunOptions::plain(),
            other => return Err(usage(format!("stats: unknown construction `{other}` (all-on, plain)"))),
        };
        let table = ssaref::evaluation::out_of_ssa_stats::copy_table(
            &corpus,
            &interp::Interp,
            a.fuel,
            liveness,
            &construction,
            ssaref::pass_manager::flags::Flags::checked(),
        )
        .map_err(internal)?;
        say!("{table}");
        return Ok(ExitCode::SUCCESS);
    }
    let table = ssaref::evaluation::regalloc_stats::comparison_table(&corpus, a.regs as usize, &interp::Interp, a.fuel)
        .map_err(internal)?;
    say!("{table}");
    let strategies =
        ssaref::evaluation::regalloc_stats::spill_strategy_table(&corpus, a.regs as usize, &interp::Interp, a.fuel)
            .map_err(internal)?;
    say!("{strategies}");
    Ok(ExitCode::SUCCESS)
}
