//! The command-line options that several commands share: which stage
//! (`Stage`) and which back end (`Route`), out-of-ssa's configuration
//! (`OutOfSsaArgs`), ssa-ra's allocation options (`AllocArgs`) and the SSA
//! construction options (`ConstructionArgs`), each turned into the library's
//! configuration by one method.

use clap::{Args, ValueEnum};
use ssaref::construction::braun::BraunOptions;
use ssaref::differential::DiffConfig;
use ssaref::pipeline::Config;
use ssaref::ssa_ra::regalloc::RegallocOptions;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Stage {
    /// Interpret the AST.
    Source,
    /// Interpret Braun et al.'s SSA.
    Ssa,
    /// Interpret the reference SSA of Cytron et al.
    Cytron,
    /// Interpret out-of-ssa's destructed program (Boissinot et al.'s out-of-SSA
    /// translation with `--coalescing` and `--liveness`).
    OutOfSsa,
    /// Interpret the allocated machine IR (`--route`: ssa-ra's SSA-based
    /// allocation and spill-free SSA elimination, or out-of-ssa's conventional
    /// allocation).
    Alloc,
    /// Lower the allocated code to x86-64 (iced-x86), check it, and run it
    /// under the Unicorn emulator.
    X86,
}

/// Which back end runs after SSA construction.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Route {
    /// Pereira's SSA-based register allocation, then Pereira and
    /// Palsberg's spill-free SSA elimination.
    #[value(alias = "pereira")]
    SsaRa,
    /// Boissinot et al.'s out-of-SSA translation, then a conventional
    /// register allocator.
    #[value(alias = "boissinot")]
    OutOfSsa,
    /// regalloc2 (Cranelift's allocator) after critical-edge
    /// splitting, checked by regalloc2's checker and ssaref's.
    Regalloc2,
}

/// The back ends a command that checks every stage runs (`check`, `fuzz`,
/// `repro`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Routes {
    /// The ssa-ra back end only.
    #[value(alias = "pereira")]
    SsaRa,
    /// The out-of-ssa back end only.
    #[value(alias = "boissinot")]
    OutOfSsa,
    /// The regalloc2 back end only.
    Regalloc2,
    /// ssa-ra and out-of-ssa.
    Both,
    /// Every back end: ssa-ra, out-of-ssa and regalloc2.
    All,
}

impl Routes {
    pub fn ssa_ra(self) -> bool {
        matches!(self, Routes::SsaRa | Routes::Both | Routes::All)
    }

    pub fn out_of_ssa(self) -> bool {
        matches!(self, Routes::OutOfSsa | Routes::Both | Routes::All)
    }

    pub fn regalloc2(self) -> bool {
        matches!(self, Routes::Regalloc2 | Routes::All)
    }

    /// `config` restricted to these routes.
    pub fn restrict(self, mut config: DiffConfig) -> DiffConfig {
        if !self.ssa_ra() {
            config.regalloc.clear();
        }
        if !self.out_of_ssa() {
            config.out_of_ssa.clear();
        }
        config.regalloc2 = self.regalloc2();
        config
    }
}

pub fn parse_coalescing(s: &str) -> Result<ssaref::out_of_ssa::coalescing::CoalescingVariant, String> {
    ssaref::out_of_ssa::coalescing::CoalescingVariant::from_slug(s).ok_or_else(|| {
        let names: Vec<&str> =
            ssaref::out_of_ssa::coalescing::CoalescingVariant::ALL.iter().map(|v| v.slug()).collect();
        format!("unknown coalescing variant `{s}` (one of {})", names.join(", "))
    })
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum LivenessArg {
    /// The fast liveness check (Boissinot et al. 2008).
    Check,
    /// Live-in/live-out sets by data flow.
    Sets,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum AllocatorArg {
    /// Every variable in a stack slot (Pereira §5's baseline).
    SpillEverything,
    /// Linear scan over lifetime intervals with holes.
    LinearScan,
}

#[derive(Args, Debug)]
pub struct OutOfSsaArgs {
    /// out-of-ssa's coalescing variant (Boissinot et al. §III-E): intersect,
    /// sreedhar-i, chaitin, value, sreedhar-iii, value+is, sharing.
    #[arg(long, value_parser = parse_coalescing, default_value = "sharing")]
    coalescing: ssaref::out_of_ssa::coalescing::CoalescingVariant,
    /// out-of-ssa's liveness: the fast check or dataflow sets.
    #[arg(long = "liveness", value_enum, default_value_t = LivenessArg::Check)]
    liveness_method: LivenessArg,
    /// out-of-ssa's register allocator.
    #[arg(long, value_enum, default_value_t = AllocatorArg::LinearScan)]
    allocator: AllocatorArg,
}

impl OutOfSsaArgs {
    pub fn out_of_ssa(&self) -> ssaref::backend::OutOfSsa {
        use ssaref::out_of_ssa::translate::{LivenessMethod, OutOfSsaOptions};
        let liveness = match self.liveness_method {
            LivenessArg::Check => LivenessMethod::Check,
            LivenessArg::Sets => LivenessMethod::Sets,
        };
        let allocator = match self.allocator {
            AllocatorArg::SpillEverything => ssaref::out_of_ssa::conventional::ConventionalAllocator::SpillEverything,
            AllocatorArg::LinearScan => ssaref::out_of_ssa::conventional::ConventionalAllocator::LinearScan,
        };
        ssaref::backend::OutOfSsa {
            out_of_ssa: OutOfSsaOptions { liveness, ..OutOfSsaOptions::fast(self.coalescing) },
            allocator,
        }
    }
}

#[derive(Args, Debug)]
pub struct AllocArgs {
    /// Number of registers (2..=15): the first K of rax, rcx, rdx, rbx, rbp, rsi, rdi, r8..r15.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(2..=15))]
    pub regs: u8,
    /// Skip PhiMemCoalesce (Pereira §4.4).
    #[arg(long)]
    no_phi_mem_coalesce: bool,
    /// Skip local and global register coalescing (Pereira §4.5).
    #[arg(long)]
    no_coalescing: bool,
    /// Skip store hoisting (Pereira and Palsberg §6.1).
    #[arg(long)]
    no_store_hoisting: bool,
    /// Skip load lowering (§6.2).
    #[arg(long)]
    no_load_lowering: bool,
    /// Skip redundant memory transfer elimination (§6.3).
    #[arg(long)]
    no_rmte: bool,
    /// Spill in a separate pass before coloring (`spill.rs`) instead of
    /// during the coloring walk with the §4.6 weight deduction (Pereira §4.5).
    #[arg(long)]
    separate_spill_pass: bool,
}

impl AllocArgs {
    pub fn options(&self) -> RegallocOptions {
        RegallocOptions {
            k: self.regs as usize,
            phi_mem_coalesce: !self.no_phi_mem_coalesce,
            coalescing: !self.no_coalescing,
            store_hoisting: !self.no_store_hoisting,
            load_lowering: !self.no_load_lowering,
            redundant_memory_transfer_elimination: !self.no_rmte,
            recycle_reloads: true,
            spill_during_coloring: !self.separate_spill_pass,
        }
    }
}

#[derive(Args, Debug)]
pub struct ConstructionArgs {
    /// Use the marker algorithm of Braun et al. §3.3.
    #[arg(long)]
    marker: bool,
    /// Skip Algorithm 5 (redundant phi SCC removal).
    #[arg(long)]
    no_scc: bool,
    /// Skip the witness cache of §3.1.
    #[arg(long)]
    no_witness: bool,
    /// No constant folding.
    #[arg(long)]
    no_fold: bool,
    /// No arithmetic simplification.
    #[arg(long)]
    no_simplify: bool,
    /// No common subexpression elimination.
    #[arg(long)]
    no_cse: bool,
    /// No copy propagation.
    #[arg(long)]
    no_copy_prop: bool,
    /// No on-the-fly optimization at all (same as the four --no-* above).
    #[arg(long)]
    no_opt: bool,
    /// Skip the checkers between passes and every pass's own checks.
    #[arg(long)]
    no_check: bool,
}

impl ConstructionArgs {
    pub fn config(&self) -> Config {
        let braun = BraunOptions {
            marker: self.marker,
            remove_redundant_sccs: !self.no_scc,
            witness_cache: !self.no_witness,
            fold_constants: !(self.no_fold || self.no_opt),
            simplify_arithmetic: !(self.no_simplify || self.no_opt),
            cse: !(self.no_cse || self.no_opt),
            copy_propagation: !(self.no_copy_prop || self.no_opt),
        };
        // The check switch of every pass and back end of the pipeline.
        Config { braun, flags: ssaref::pass_manager::flags::Flags::with_checks(!self.no_check) }
    }
}

// The bounds of the command line's counts and sizes (docs/command-line.md,
// "Bounds"): a value outside its bound is a command-line error (exit code
// 2), whatever the command.

/// The most worker threads of `fuzz --jobs`.
pub const MAX_JOBS: u64 = 1024;
/// The most steps of `--fuel` (hours of interpretation).
pub const MAX_FUEL: u64 = 1_000_000_000_000;
/// The largest program size of `gen --size` and the benchmarks' `--sizes`
/// (statements or instructions).
pub const MAX_SIZE: usize = 10_000_000;
/// The most programs of a count (`gen --count`, `stats --gen`,
/// `bench-emulator --count`) and the most repetitions of a benchmark.
pub const MAX_COUNT: u64 = 1_000_000;
/// The most seeds of one batch, `fuzz --target --batch`.
pub const MAX_BATCH: u64 = 4096;
/// The longest campaign, `fuzz --seconds` (one year).
pub const MAX_SECONDS: u64 = 366 * 24 * 3600;

/// A register count K of a `--regs` list: 2 to 15.
pub fn reg_count() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(2..=15)
}

/// The register counts of a `--regs` list, each once, in their first
/// order: a list that repeats a K runs it once, so it holds at most the 14
/// counts of 2..=15 however long the command line.
pub fn distinct_regs(regs: &[usize]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for &k in regs {
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// `--fuel`: 0 to `MAX_FUEL`.
pub fn fuel() -> clap::builder::RangedU64ValueParser<u64> {
    clap::builder::RangedU64ValueParser::<u64>::new().range(0..=MAX_FUEL)
}

/// A program size: 1 to `MAX_SIZE`.
pub fn size() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_SIZE as u64)
}

/// A count of programs: 0 to `MAX_COUNT`.
pub fn count() -> clap::builder::RangedU64ValueParser<u64> {
    clap::builder::RangedU64ValueParser::<u64>::new().range(0..=MAX_COUNT)
}

/// A number of repetitions: 1 to `MAX_COUNT`.
pub fn repetitions() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_COUNT)
}
