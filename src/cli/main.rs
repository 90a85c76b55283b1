//! The `ssaref` command line. See README.md, "Command line".

use clap::{Args, Parser, Subcommand, ValueEnum};
use ssaref::analysis::ir_text;
use ssaref::ast;
use ssaref::construction::braun::construct_program;
use ssaref::construction::braun::BraunOptions;
use ssaref::frontend::case_file::CaseFile;
use ssaref::frontend::parser;
use ssaref::outcome::{End, Outcome};
use ssaref::pipeline::{self, Config, Verdict};
use ssaref::route1::regalloc::{allocate_module, RegallocOptions};
use std::process::ExitCode;

use ssaref_interp as interp;

/// Exit code for a program that did not finish within its fuel.
const EXIT_OUT_OF_FUEL: u8 = 4;
/// Exit code for bad input (syntax errors, bad arguments).
const EXIT_BAD_INPUT: u8 = 1;
/// Exit code for an internal error of ssaref (a checker or a stage failed).
const EXIT_INTERNAL: u8 = 3;

#[derive(Parser, Debug)]
#[command(name = "ssaref", version, about = "Verified reference implementation of SSA back-end algorithms")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Runs a program: prints each `out` value, then `return V` or `trap divide-error`.
    Run(RunArgs),
    /// Prints a stage of the pipeline: the canonical source, or the SSA IR.
    Emit(EmitArgs),
    /// Runs every stage and every checker on a program and compares outcomes.
    Check(CheckArgs),
    /// A differential fuzzing campaign: generated programs through every stage.
    Fuzz(FuzzArgs),
    /// Replays a saved case: every stage's outcome, the IR after each pass, the allocated code.
    Repro(ReproArgs),
    /// Shrinks a failing case while it fails the same way (same stage, K
    /// lowered if it still fails); writes NAME.reduced.src next to it.
    Reduce(ReduceArgs),
    /// Route-1 statistics (spills, slots, loads, stores, moves, swaps; static
    /// and dynamic) with each optimization of Pereira and Palsberg §6 on and off.
    Stats(StatsArgs),
    /// Generates random programs as `.src` text, or (`--stats`) measures what they contain.
    Gen(GenArgs),
    /// Benchmark: Unicorn with a fresh engine per run, a reused engine on new
    /// code, and a reused engine on the same code (milliseconds per run).
    BenchEmulator(BenchEmulatorArgs),
    /// Times out-of-SSA translation (Boissinot et al. §IV-D) and measures its
    /// peak memory: the fast configuration against Sreedhar III with an
    /// interference graph and liveness sets.
    BenchOutOfSsa(BenchArgs),
}

#[derive(Args, Debug)]
struct BenchEmulatorArgs {
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
struct BenchArgs {
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

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Stage {
    /// Interpret the AST.
    Source,
    /// Interpret Braun et al.'s SSA.
    Ssa,
    /// Interpret the reference SSA of Cytron et al.
    Cytron,
    /// Interpret route 2's destructed program (Boissinot et al.'s out-of-SSA
    /// translation with `--coalescing` and `--liveness`).
    OutOfSsa,
    /// Interpret the allocated machine IR (`--route`: route 1's SSA-based
    /// allocation and spill-free SSA elimination, or route 2's conventional
    /// allocation).
    Alloc,
    /// Lower the allocated code to x86-64 (iced-x86), check it, and run it
    /// under the Unicorn emulator.
    X86,
}

/// Which back end runs after SSA construction.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Route {
    /// Route 1: Pereira's SSA-based register allocation, then Pereira and
    /// Palsberg's spill-free SSA elimination.
    #[value(alias = "pereira")]
    SsaRa,
    /// Route 2: Boissinot et al.'s out-of-SSA translation, then a
    /// conventional register allocator.
    Boissinot,
}

/// The back ends a campaign runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum FuzzRoute {
    /// Route 1 only.
    #[value(alias = "pereira")]
    SsaRa,
    /// Route 2 only.
    Boissinot,
    /// Both routes on every program.
    Both,
}

fn parse_coalescing(s: &str) -> Result<ssaref::route2::coalescing::CoalescingVariant, String> {
    ssaref::route2::coalescing::CoalescingVariant::from_slug(s).ok_or_else(|| {
        let names: Vec<&str> = ssaref::route2::coalescing::CoalescingVariant::ALL.iter().map(|v| v.slug()).collect();
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
struct Route2Args {
    /// Route 2's coalescing variant (Boissinot et al. §III-E): intersect,
    /// sreedhar-i, chaitin, value, sreedhar-iii, value+is, sharing.
    #[arg(long, value_parser = parse_coalescing, default_value = "sharing")]
    coalescing: ssaref::route2::coalescing::CoalescingVariant,
    /// Route 2's liveness: the fast check or dataflow sets.
    #[arg(long = "liveness", value_enum, default_value_t = LivenessArg::Check)]
    liveness_method: LivenessArg,
    /// Route 2's register allocator.
    #[arg(long, value_enum, default_value_t = AllocatorArg::LinearScan)]
    allocator: AllocatorArg,
}

impl Route2Args {
    fn route2(&self) -> pipeline::Route2 {
        use ssaref::route2::out_of_ssa::{LivenessMethod, OutOfSsaOptions};
        let liveness = match self.liveness_method {
            LivenessArg::Check => LivenessMethod::Check,
            LivenessArg::Sets => LivenessMethod::Sets,
        };
        let allocator = match self.allocator {
            AllocatorArg::SpillEverything => ssaref::route2::conventional_alloc::ConventionalAllocator::SpillEverything,
            AllocatorArg::LinearScan => ssaref::route2::conventional_alloc::ConventionalAllocator::LinearScan,
        };
        pipeline::Route2 {
            out_of_ssa: OutOfSsaOptions { liveness, ..OutOfSsaOptions::fast(self.coalescing) },
            allocator,
        }
    }
}

#[derive(Args, Debug)]
struct AllocArgs {
    /// Number of registers (2..=15): the first K of rax, rcx, rdx, rbx, rbp, rsi, rdi, r8..r15.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(2..=15))]
    regs: u8,
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
}

impl AllocArgs {
    fn options(&self) -> RegallocOptions {
        RegallocOptions {
            k: self.regs as usize,
            phi_mem_coalesce: !self.no_phi_mem_coalesce,
            coalescing: !self.no_coalescing,
            store_hoisting: !self.no_store_hoisting,
            load_lowering: !self.no_load_lowering,
            redundant_memory_transfer_elimination: !self.no_rmte,
            recycle_reloads: true,
        }
    }
}

#[derive(Args, Debug)]
struct ConstructionArgs {
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
    /// Skip the checkers between passes.
    #[arg(long)]
    no_check: bool,
}

impl ConstructionArgs {
    fn config(&self) -> Config {
        let braun = BraunOptions {
            marker: self.marker,
            remove_redundant_sccs: !self.no_scc,
            witness_cache: !self.no_witness,
            fold_constants: !(self.no_fold || self.no_opt),
            simplify_arithmetic: !(self.no_simplify || self.no_opt),
            cse: !(self.no_cse || self.no_opt),
            copy_propagation: !(self.no_copy_prop || self.no_opt),
        };
        Config { braun, check: !self.no_check }
    }
}

#[derive(Args, Debug)]
struct RunArgs {
    /// The program (`*.src`).
    file: String,
    /// Arguments of `main` (64-bit integers).
    #[arg(allow_negative_numbers = true)]
    args: Vec<String>,
    /// Which stage to run.
    #[arg(long, value_enum, default_value_t = Stage::X86)]
    stage: Stage,
    /// Which back end produces the allocated code.
    #[arg(long, value_enum, default_value_t = Route::SsaRa)]
    route: Route,
    #[command(flatten)]
    route2: Route2Args,
    #[command(flatten)]
    alloc: AllocArgs,
    /// Fuel budget (steps) before the run is stopped.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL)]
    fuel: u64,
    #[command(flatten)]
    construction: ConstructionArgs,
}

#[derive(Args, Debug)]
struct EmitArgs {
    /// The program (`*.src`).
    file: String,
    /// Which stage to print.
    #[arg(long, value_enum, default_value_t = Stage::Ssa)]
    stage: Stage,
    /// With `--stage alloc` or `x86`, also print the IR after each pass.
    #[arg(long)]
    passes: bool,
    /// Which back end produces the allocated code.
    #[arg(long, value_enum, default_value_t = Route::SsaRa)]
    route: Route,
    #[command(flatten)]
    route2: Route2Args,
    #[command(flatten)]
    alloc: AllocArgs,
    #[command(flatten)]
    construction: ConstructionArgs,
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// The program (`*.src`).
    file: String,
    /// Arguments of `main`.
    #[arg(allow_negative_numbers = true)]
    args: Vec<String>,
    /// Fuel budget of the source run.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL)]
    fuel: u64,
    /// Check all 128 combinations of construction options (default: four
    /// representative ones).
    #[arg(long)]
    all_variants: bool,
    /// Register counts for both back ends, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [2usize, 3, 4, 6, 8, 15])]
    regs: Vec<usize>,
}

#[derive(Args, Debug)]
struct GenArgs {
    /// Seed of the (first) program; program i of --count is seed S+i.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Number of programs.
    #[arg(long, default_value_t = 1)]
    count: u64,
    /// Print a table of what the programs contain instead of the programs.
    #[arg(long)]
    stats: bool,
    /// Kind of program: swarm, everything, structured, gotos, patterns, pressure.
    #[arg(long, default_value = "swarm")]
    shape: String,
    /// Target size in statements (default: the shape's).
    #[arg(long)]
    size: Option<usize>,
    /// Turn swarm testing off: every feature of the shape in every program.
    #[arg(long)]
    no_swarm: bool,
    /// Write the programs to DIR/gen-SEED.src (needed for --count > 1 without --stats).
    #[arg(long, value_name = "DIR")]
    out: Option<String>,
    /// Fuel budget of each run (with --stats).
    #[arg(long, default_value_t = interp::DEFAULT_FUEL)]
    fuel: u64,
}

#[derive(Args, Debug)]
struct FuzzArgs {
    /// Stop after this many seconds.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Stop after this many programs.
    #[arg(long)]
    count: Option<u64>,
    /// Worker threads (default: every core).
    #[arg(long)]
    jobs: Option<usize>,
    /// First seed; program i uses seed + i (default: from the clock, printed).
    #[arg(long)]
    seed: Option<u64>,
    /// Register counts to allocate with, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [2usize, 3, 4, 6, 8, 15])]
    regs: Vec<usize>,
    /// Where failing cases are written.
    #[arg(long, default_value = "fuzz-cases")]
    out: String,
    /// Fuel of each source run.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL)]
    fuel: u64,
    /// Which back ends: route 1 (`ssa-ra`), route 2 (`boissinot`) or both.
    /// Route 2 rotates through every coalescing variant, liveness method and
    /// allocator, one configuration per program (unless `--coalescing` fixes
    /// the variant).
    #[arg(long, value_enum, default_value_t = FuzzRoute::Both)]
    route: FuzzRoute,
    /// Only this coalescing variant in route 2.
    #[arg(long, value_parser = parse_coalescing)]
    coalescing: Option<ssaref::route2::coalescing::CoalescingVariant>,
}

#[derive(Args, Debug)]
struct ReproArgs {
    /// A case written by `ssaref fuzz` (or any `*.src` with an `// args:` line).
    case: String,
    /// Register counts (default: the case's `// regs:` line, else 2,3,4,6,8,15).
    #[arg(long, value_delimiter = ',')]
    regs: Vec<usize>,
    /// Fuel of the source run.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL)]
    fuel: u64,
}

#[derive(Args, Debug)]
struct ReduceArgs {
    /// A failing case as `ssaref fuzz` writes it (a case file, see README.md).
    case: String,
    /// Where to write the reduced case (default: next to CASE, as NAME.reduced.src).
    #[arg(long, value_name = "PATH")]
    out: Option<String>,
    /// The most candidates to test (differential runs); the reducer then
    /// stops with the smallest failing case found.
    #[arg(long, value_name = "N", default_value_t = ssaref::testing::reduce::ReduceConfig::DEFAULT_MAX_TESTS)]
    max_tests: u64,
    /// Fuel of each source run.
    #[arg(long, default_value_t = interp::DEFAULT_FUEL)]
    fuel: u64,
}

#[derive(Args, Debug)]
struct StatsArgs {
    /// Programs (`*.src`); a `// args: ...` header line gives their arguments.
    files: Vec<String>,
    /// Also this many generated programs (seeds `--seed`, `--seed`+1, ...).
    #[arg(long, default_value_t = 0)]
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
    #[arg(long, default_value_t = interp::DEFAULT_FUEL)]
    fuel: u64,
    /// Which route: `ssa-ra` (route 1, register allocation) or `boissinot`
    /// (route 2, copies left by each out-of-SSA coalescing variant, Fig. 5).
    #[arg(long, value_enum, default_value_t = Route::SsaRa)]
    route: Route,
    /// With `--route boissinot`: `check` (fast liveness check) or `sets`.
    #[arg(long, default_value = "check")]
    liveness: String,
    /// With `--route boissinot`: the SSA construction, `all-on` (copies
    /// propagated, as after optimization) or `plain` (copies kept).
    #[arg(long, default_value = "all-on")]
    construction: String,
}

/// An error to print and the exit code that goes with it.
struct Failure {
    message: String,
    code: u8,
}

fn bad_input(message: String) -> Failure {
    Failure { message, code: EXIT_BAD_INPUT }
}

fn internal(message: String) -> Failure {
    Failure { message: format!("internal error: {message}"), code: EXIT_INTERNAL }
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so `ssaref emit ... | head` would end in a
    // "Broken pipe" panic from `print!`. Restore the default action: the
    // process ends quietly when its reader goes away, as Unix tools do.
    // SAFETY: called first thing in `main`, before any thread exists;
    // `signal` with `SIG_DFL` only resets the disposition of SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(a) => cmd_run(a),
        Command::Emit(a) => cmd_emit(a),
        Command::Check(a) => cmd_check(a),
        Command::Stats(a) => cmd_stats(a),
        Command::BenchOutOfSsa(a) => cmd_bench_out_of_ssa(a),
        Command::Fuzz(a) => cmd_fuzz(a),
        Command::Repro(a) => cmd_repro(a),
        Command::Reduce(a) => cmd_reduce(a),
        Command::Gen(a) => cmd_gen(a),
        Command::BenchEmulator(a) => cmd_bench_emulator(a),
    };
    match result {
        Ok(code) => code,
        Err(f) => {
            eprintln!("{}", f.message);
            ExitCode::from(f.code)
        }
    }
}

/// Reads and parses a program; errors come out as `FILE:LINE:COL: message`.
fn load(file: &str) -> Result<(String, ast::Program), Failure> {
    let src = std::fs::read_to_string(file).map_err(|e| bad_input(format!("{file}: cannot read: {e}")))?;
    let program = parser::parse_program(&src).map_err(|d| bad_input(d.with_file(file)))?;
    Ok((src, program))
}

/// Parses the arguments of `main` and checks their number against its
/// parameters; a bad count is reported at `main`'s position.
fn parse_args(file: &str, src: &str, program: &ast::Program, raw: &[String]) -> Result<Vec<i64>, Failure> {
    let args = raw
        .iter()
        .map(|a| a.parse::<i64>().map_err(|_| bad_input(format!("argument `{a}` is not a 64-bit integer"))))
        .collect::<Result<Vec<_>, _>>()?;
    let main = program.main().expect("the parser requires `main`");
    if args.len() > main.params.len() {
        let pos = main_position(src);
        return Err(bad_input(format!(
            "{file}:{pos}: too many arguments: `main` takes {} but {} were given",
            main.params.len(),
            args.len()
        )));
    }
    Ok(args)
}

/// Where `fn main` starts in the source (1:1 if it cannot be found).
fn main_position(src: &str) -> ssaref::diag::Pos {
    ssaref::frontend::case_file::main_position(src)
}

fn print_outcome(outcome: &Outcome) -> ExitCode {
    print!("{}", outcome.render());
    if outcome.end == End::OutOfFuel {
        eprintln!("the program ran out of fuel (raise it with --fuel)");
        return ExitCode::from(EXIT_OUT_OF_FUEL);
    }
    ExitCode::SUCCESS
}

/// The back end's machine IR for `--stage alloc` and `--stage x86`: route 1,
/// or route 2 with the chosen configuration. With `passes`, also the IR
/// after each pass, as text.
fn backend(
    program: &ssaref::ast::Program,
    construction: &ConstructionArgs,
    route: Route,
    alloc: &AllocArgs,
    route2: &Route2Args,
    passes: bool,
) -> Result<(ssaref::mir::MModule, String), Failure> {
    let module = pipeline::build_ssa(program, &construction.config()).map_err(|e| internal(e.to_string()))?;
    let mut text = String::new();
    let mir = match route {
        Route::SsaRa => {
            let (mir, reports) = allocate_module(&module, &alloc.options()).map_err(|e| internal(e.to_string()))?;
            if passes {
                let npasses = reports.first().map_or(0, |r| r.stages.len());
                for i in 0..npasses {
                    text.push_str(&format!("// after {}\n", reports[0].stages[i].0));
                    for r in &reports {
                        text.push_str(&ir_text::print_function(&r.stages[i].1));
                    }
                }
            }
            mir
        }
        Route::Boissinot => {
            let r2 = route2.route2();
            let (destructed, pins, _) = ssaref::route2::out_of_ssa::translate_module_with_pins(&module, &r2.out_of_ssa)
                .map_err(|e| internal(e.to_string()))?;
            if passes {
                text.push_str(&format!("// after out-of-SSA ({})\n", r2.describe()));
                text.push_str(&print_destructed(&destructed, &pins));
            }
            ssaref::route2::conventional_alloc::allocate_conventional_module_pinned(
                &destructed,
                &pins,
                usize::from(alloc.regs),
                r2.allocator,
            )
            .map_err(|e| internal(e.to_string()))?
        }
    };
    if passes {
        text.push_str("// allocated\n");
    }
    Ok((mir, text))
}

/// Route 2's destructed program (`--stage out-of-ssa`) and the pinned
/// variables of each function.
fn destructed(
    program: &ssaref::ast::Program,
    construction: &ConstructionArgs,
    route2: &Route2Args,
) -> Result<(ssaref::ir::Module, Vec<ssaref::route2::renaming_constraints::Pins>), Failure> {
    let module = pipeline::build_ssa(program, &construction.config()).map_err(|e| internal(e.to_string()))?;
    let (destructed, pins, _) =
        ssaref::route2::out_of_ssa::translate_module_with_pins(&module, &route2.route2().out_of_ssa)
            .map_err(|e| internal(e.to_string()))?;
    Ok((destructed, pins))
}

/// A destructed module in the IR text form, each function followed by a
/// comment naming its pinned variables (§III-D).
fn print_destructed(m: &ssaref::ir::Module, pins: &[ssaref::route2::renaming_constraints::Pins]) -> String {
    let mut text = String::new();
    for (i, f) in m.functions.iter().enumerate() {
        text.push_str(&ir_text::print_function(f));
        if let Some(p) = pins.get(i).filter(|p| !p.is_empty()) {
            let list: Vec<String> = p.iter().map(|(v, r)| format!("{v} in {}", r.name())).collect();
            text.push_str(&format!("// pinned: {}\n", list.join(", ")));
        }
    }
    text
}

fn cmd_run(a: RunArgs) -> Result<ExitCode, Failure> {
    let (src, program) = load(&a.file)?;
    let args = parse_args(&a.file, &src, &program, &a.args)?;
    let outcome = match a.stage {
        Stage::Source => interp::run_ast(&program, &args, a.fuel),
        Stage::Ssa => {
            let module =
                pipeline::build_ssa(&program, &a.construction.config()).map_err(|e| internal(e.to_string()))?;
            interp::run_ssa(&module, &args, a.fuel)
        }
        Stage::Cytron => {
            let module = ssaref::construction::cytron::construct_cytron(&program);
            ssaref::analysis::verifier::verify_module(&module).map_err(|e| internal(e.to_string()))?;
            interp::run_ssa(&module, &args, a.fuel)
        }
        Stage::OutOfSsa => interp::run_ssa(&destructed(&program, &a.construction, &a.route2)?.0, &args, a.fuel),
        Stage::Alloc => {
            let (mir, _) = backend(&program, &a.construction, a.route, &a.alloc, &a.route2, false)?;
            interp::run_mir(&mir, &args, a.fuel)
        }
        Stage::X86 => {
            let (mir, _) = backend(&program, &a.construction, a.route, &a.alloc, &a.route2, false)?;
            let code = pipeline::lower_and_check(&mir).map_err(|e| internal(e.to_string()))?;
            // --fuel counts MIR steps; the x86 budget counts block entries.
            match ssaref::machine::emulator::run_x86(&code, &args, ssaref::machine::emulator::budget_for(a.fuel)) {
                Ok(o) => Ok(o),
                Err(ssaref::machine::emulator::EmuError::BudgetExhausted { .. }) => {
                    Ok(Outcome { trace: Vec::new(), end: End::OutOfFuel, mem: Vec::new() })
                }
                Err(e) => return Err(internal(e.to_string())),
            }
        }
    }
    .map_err(|e| internal(e.to_string()))?;
    Ok(print_outcome(&outcome))
}

fn cmd_emit(a: EmitArgs) -> Result<ExitCode, Failure> {
    let (_, program) = load(&a.file)?;
    let text = match a.stage {
        Stage::Source => ssaref::frontend::ast_print::print_program(&program),
        Stage::Ssa => {
            let module =
                pipeline::build_ssa(&program, &a.construction.config()).map_err(|e| internal(e.to_string()))?;
            ir_text::print_module(&module)
        }
        Stage::Cytron => ir_text::print_module(&ssaref::construction::cytron::construct_cytron(&program)),
        Stage::OutOfSsa => {
            let (m, pins) = destructed(&program, &a.construction, &a.route2)?;
            print_destructed(&m, &pins)
        }
        Stage::Alloc => {
            let (mir, mut text) = backend(&program, &a.construction, a.route, &a.alloc, &a.route2, a.passes)?;
            text.push_str(&ssaref::mir::print_module(&mir));
            text
        }
        Stage::X86 => {
            let (mir, mut text) = backend(&program, &a.construction, a.route, &a.alloc, &a.route2, a.passes)?;
            if a.passes {
                text.push_str(&ssaref::mir::print_module(&mir));
                text.push_str("// x86-64\n");
            }
            let code = pipeline::lower_and_check(&mir).map_err(|e| internal(e.to_string()))?;
            text.push_str(&ssaref::machine::x86_lower::listing(&code));
            text
        }
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

fn cmd_check(a: CheckArgs) -> Result<ExitCode, Failure> {
    let (src, program) = load(&a.file)?;
    let args = parse_args(&a.file, &src, &program, &a.args)?;
    let variants = if a.all_variants {
        BraunOptions::every_combination()
    } else {
        vec![
            BraunOptions::plain(),
            BraunOptions { marker: true, ..BraunOptions::plain() },
            BraunOptions::all_on(),
            BraunOptions { marker: true, ..BraunOptions::all_on() },
        ]
    };
    check_regs(&a.regs)?;
    let mut config = pipeline::DiffConfig::standard(&a.regs, a.fuel);
    config.variants = variants;
    match pipeline::differential_full_catching(&program, &args, &interp::Interp, &config) {
        Verdict::Agree { outcome, stages } => {
            for s in &stages {
                println!("agree  {}", s.stage);
            }
            print!("{}", outcome.render_full());
            Ok(ExitCode::SUCCESS)
        }
        Verdict::Inconclusive => {
            eprintln!("the source program ran out of fuel: nothing to compare");
            Ok(ExitCode::from(EXIT_OUT_OF_FUEL))
        }
        Verdict::Diverge { stage, expected, got } => {
            let got = match got {
                Ok(o) => o.render_full(),
                Err(e) => format!("error: {e}\n"),
            };
            Err(internal(format!(
                "stage {stage} diverges from the source\n--- source\n{}--- {stage}\n{got}",
                expected.render_full()
            )))
        }
        Verdict::CheckFailed(e) => Err(internal(e.to_string())),
        Verdict::SourceError(e) | Verdict::Panic(e) => Err(internal(e)),
    }
}

fn cmd_gen(a: GenArgs) -> Result<ExitCode, Failure> {
    let shape = ssaref::testing::gen::Shape::from_name(&a.shape).ok_or_else(|| Failure {
        message: format!("unknown shape `{}` (swarm, everything, structured, gotos, patterns, pressure)", a.shape),
        code: 2,
    })?;
    let mut config = shape.config();
    if let Some(size) = a.size {
        config.size = size;
    }
    if a.no_swarm {
        config.swarm = false;
    }
    if a.stats {
        let stats = ssaref::testing::gen::stats::collect(a.seed, a.count, &config, &interp::Interp, a.fuel);
        print!("{stats}");
        return Ok(if stats.disagreements > 0 { ExitCode::from(EXIT_INTERNAL) } else { ExitCode::SUCCESS });
    }
    let seeds = (0..a.count).map(|i| a.seed.wrapping_add(i));
    match &a.out {
        None if a.count > 1 => Err(Failure { message: "--count > 1 needs --stats or --out DIR".into(), code: 2 }),
        None => {
            print!("{}", ssaref::testing::gen::TestCase::from_seed(a.seed, &config).to_source());
            Ok(ExitCode::SUCCESS)
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| bad_input(format!("{dir}: {e}")))?;
            for seed in seeds {
                let path = format!("{dir}/gen-{seed}.src");
                let text = ssaref::testing::gen::TestCase::from_seed(seed, &config).to_source();
                std::fs::write(&path, text).map_err(|e| bad_input(format!("{path}: {e}")))?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The arguments a `// args: ...` header line gives, if any.
fn cmd_stats(a: StatsArgs) -> Result<ExitCode, Failure> {
    let mut corpus = Vec::new();
    for file in &a.files {
        // The case-file reader: `// args:` from the header, errors as
        // FILE:LINE:COL.
        let case = load_case(file)?;
        corpus.push((case.program, case.args));
    }
    let shape = ssaref::testing::gen::Shape::from_name(&a.shape)
        .ok_or_else(|| bad_input(format!("stats: unknown shape `{}`", a.shape)))?;
    let config = shape.config();
    for i in 0..a.gen {
        let tc = ssaref::testing::gen::TestCase::from_seed(a.seed.wrapping_add(i), &config);
        corpus.push((tc.program, tc.args));
    }
    if corpus.is_empty() {
        return Err(bad_input("stats: give at least one program, or --gen N".into()));
    }
    if a.route == Route::Boissinot {
        let liveness = match a.liveness.as_str() {
            "check" => ssaref::route2::out_of_ssa::LivenessMethod::Check,
            "sets" => ssaref::route2::out_of_ssa::LivenessMethod::Sets,
            other => return Err(bad_input(format!("stats: unknown liveness method `{other}` (check, sets)"))),
        };
        let construction = match a.construction.as_str() {
            "all-on" => BraunOptions::all_on(),
            "plain" => BraunOptions::plain(),
            other => return Err(bad_input(format!("stats: unknown construction `{other}` (all-on, plain)"))),
        };
        let table =
            ssaref::testing::out_of_ssa_stats::copy_table(&corpus, &interp::Interp, a.fuel, liveness, &construction)
                .map_err(internal)?;
        print!("{table}");
        return Ok(ExitCode::SUCCESS);
    }
    let table = ssaref::testing::regalloc_stats::comparison_table(&corpus, a.regs as usize, &interp::Interp, a.fuel)
        .map_err(internal)?;
    print!("{table}");
    Ok(ExitCode::SUCCESS)
}

/// The global allocator of the binary: mimalloc (faster than glibc's malloc
/// on the passes' many small allocations; see ARCHITECTURE.md,
/// "Dependencies"), which also counts the bytes in use and their peak for
/// `bench-out-of-ssa` (a relaxed atomic add per allocation, only once that
/// command enables it).
mod counting_alloc {
    use mimalloc::MiMalloc;
    use std::alloc::{GlobalAlloc, Layout};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    pub struct Counting;

    static CURRENT: AtomicUsize = AtomicUsize::new(0);
    static PEAK: AtomicUsize = AtomicUsize::new(0);
    /// Off except in `bench-out-of-ssa`: counting on every allocation from
    /// several threads would make them fight over the counters' cache line.
    static ENABLED: AtomicBool = AtomicBool::new(false);

    /// Starts counting (for the rest of the process).
    pub fn enable() {
        ENABLED.store(true, Ordering::Relaxed);
    }

    // SAFETY: every call is forwarded to mimalloc unchanged; the
    // counters are only statistics.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: forwarded with the caller's layout.
            let p = unsafe { MiMalloc.alloc(layout) };
            if !p.is_null() && ENABLED.load(Ordering::Relaxed) {
                let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            }
            p
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: forwarded with the caller's pointer and layout.
            unsafe { MiMalloc.dealloc(ptr, layout) };
            if ENABLED.load(Ordering::Relaxed) {
                CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
            }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: forwarded with the caller's arguments.
            let p = unsafe { MiMalloc.realloc(ptr, layout, new_size) };
            if !p.is_null() && ENABLED.load(Ordering::Relaxed) {
                if new_size >= layout.size() {
                    let now = CURRENT.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size - layout.size();
                    PEAK.fetch_max(now, Ordering::Relaxed);
                } else {
                    CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
                }
            }
            p
        }
    }

    /// Bytes in use now.
    pub fn current() -> usize {
        CURRENT.load(Ordering::Relaxed)
    }

    /// Restarts the peak from the bytes in use now.
    pub fn reset_peak() {
        PEAK.store(CURRENT.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    /// The most bytes in use since the last reset.
    pub fn peak() -> usize {
        PEAK.load(Ordering::Relaxed)
    }
}

#[global_allocator]
static ALLOCATOR: counting_alloc::Counting = counting_alloc::Counting;

fn cmd_bench_out_of_ssa(a: BenchArgs) -> Result<ExitCode, Failure> {
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

fn check_regs(regs: &[usize]) -> Result<(), Failure> {
    match regs.iter().find(|k| !(2..=15).contains(*k)) {
        Some(k) => Err(bad_input(format!("--regs: {k} is outside 2..=15"))),
        None => Ok(()),
    }
}

fn cmd_fuzz(a: FuzzArgs) -> Result<ExitCode, Failure> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    check_regs(&a.regs)?;
    let seed = a.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
    });
    let jobs = a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let stop = Arc::new(AtomicBool::new(false));
    let handler_stop = Arc::clone(&stop);
    // A second Ctrl-C while stopping kills the process as usual.
    let _ = ctrlc::set_handler(move || {
        if handler_stop.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    });
    let regs_text: Vec<String> = a.regs.iter().map(|k| k.to_string()).collect();
    eprintln!(
        "ssaref fuzz: seed {seed}, {jobs} job(s), regs {}, {} s, cases go to {}/ (rerun with --seed {seed})",
        regs_text.join(","),
        a.seconds,
        a.out
    );
    let config = ssaref::testing::campaign::CampaignConfig {
        duration: std::time::Duration::from_secs(a.seconds),
        max_programs: a.count,
        jobs,
        seed,
        regs: a.regs.clone(),
        fuel: a.fuel,
        out_dir: std::path::PathBuf::from(&a.out),
        progress: true,
        route1: a.route != FuzzRoute::Boissinot,
        route2: if a.route == FuzzRoute::SsaRa {
            Vec::new()
        } else {
            pipeline::Route2::all()
                .into_iter()
                .filter(|r| a.coalescing.is_none_or(|v| r.out_of_ssa.variant == v))
                .collect()
        },
    };
    let summary = ssaref::testing::campaign::run_campaign(&config, &interp::Interp, &stop);
    print!("{}", summary.render(jobs));
    Ok(if summary.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Reads a case file; errors come out as `FILE:LINE:COL: message`.
fn load_case(file: &str) -> Result<CaseFile, Failure> {
    let src = std::fs::read_to_string(file).map_err(|e| bad_input(format!("{file}: cannot read: {e}")))?;
    CaseFile::parse(&src).map_err(|d| bad_input(d.with_file(file)))
}

/// The register counts of a case without a `// regs:` line (those of `ssaref fuzz`).
const DEFAULT_CASE_REGS: [usize; 6] = [2, 3, 4, 6, 8, 15];

/// `repro`'s annotated disassembly of `mir`, under the heading `title`, or
/// why the lowering or the machine-code checker failed.
fn print_listing(mir: &ssaref::mir::MModule, title: &str) {
    match pipeline::lower_and_check(mir) {
        Ok(code) => {
            println!("== {title}");
            print!("{}", ssaref::machine::x86_lower::listing(&code));
        }
        Err(e) => println!("== {title}: lowering failed: {e}"),
    }
}

/// `repro`'s view of route 2: the destructed program, the allocated code
/// and its disassembly, for one configuration and one K.
fn print_route2(ssa: &ssaref::ir::Module, r2: &pipeline::Route2, k: usize) {
    let tag = r2.describe();
    match ssaref::route2::out_of_ssa::translate_module_with_pins(ssa, &r2.out_of_ssa) {
        Ok((destructed, pins, _)) => {
            println!("== route 2: out of SSA ({tag})");
            print!("{}", print_destructed(&destructed, &pins));
            match ssaref::route2::conventional_alloc::allocate_conventional_module_pinned(
                &destructed,
                &pins,
                k,
                r2.allocator,
            ) {
                Ok(mir) => {
                    println!("== route 2: allocated ({tag}, K = {k})");
                    print!("{}", ssaref::mir::print_module(&mir));
                    print_listing(&mir, &format!("route 2: x86-64 ({tag}, K = {k})"));
                }
                Err(e) => println!("== route 2: allocation with K = {k} failed: {e}"),
            }
        }
        Err(e) => println!("== route 2: out-of-SSA ({tag}) failed: {e}"),
    }
}

fn cmd_repro(a: ReproArgs) -> Result<ExitCode, Failure> {
    let case = load_case(&a.case)?;
    let (program, args) = (case.program, case.args);
    let regs =
        if !a.regs.is_empty() { a.regs.clone() } else { case.regs.unwrap_or_else(|| DEFAULT_CASE_REGS.to_vec()) };
    check_regs(&regs)?;
    let config = pipeline::DiffConfig::standard(&regs, a.fuel);
    let verdict = pipeline::differential_full_catching(&program, &args, &interp::Interp, &config);
    // Show the K and the route-2 configuration of the failing stage.
    let failing = match &verdict {
        Verdict::Diverge { stage, .. } => Some(stage.clone()),
        Verdict::CheckFailed(e) => Some(e.pass.clone()),
        _ => None,
    };
    let first_k = failing
        .as_deref()
        .and_then(ssaref::testing::reduce::stage_k)
        .filter(|k| regs.contains(k))
        .unwrap_or_else(|| regs.first().copied().unwrap_or(4));
    let route2 = failing
        .as_deref()
        .and_then(|s| {
            pipeline::Route2::all().into_iter().find(|r| {
                let (v, l) = (r.out_of_ssa.variant.slug(), r.out_of_ssa.liveness.name());
                s.contains(&r.describe()) || s.starts_with(&format!("out-of-ssa[{v},{l}]"))
            })
        })
        .unwrap_or(pipeline::Route2 {
            out_of_ssa: ssaref::route2::out_of_ssa::OutOfSsaOptions::default(),
            allocator: ssaref::route2::conventional_alloc::ConventionalAllocator::LinearScan,
        });
    println!("== program (args {args:?})");
    print!("{}", ssaref::frontend::ast_print::print_program(&program));
    let ssa = construct_program(&program, &BraunOptions::all_on());
    println!("== SSA (Braun et al., all optimizations)");
    print!("{}", ir_text::print_module(&ssa));
    // Route 2 first when the failure is there.
    let route2_failed = failing.as_deref().is_some_and(|s| {
        s.starts_with("out-of-ssa") || s.starts_with("conv") || s.starts_with("x86-conv") || s.contains("conv-ra")
    });
    if route2_failed {
        print_route2(&ssa, &route2, first_k);
    }
    match allocate_module(&ssa, &RegallocOptions::with_k(first_k)) {
        Ok((mir, reports)) => {
            let npasses = reports.first().map_or(0, |r| r.stages.len());
            for i in 0..npasses {
                println!("== after {} (K = {first_k})", reports[0].stages[i].0);
                for r in &reports {
                    print!("{}", ir_text::print_function(&r.stages[i].1));
                }
            }
            println!("== allocated (K = {first_k})");
            print!("{}", ssaref::mir::print_module(&mir));
            print_listing(&mir, &format!("x86-64 (K = {first_k})"));
        }
        Err(e) => println!("== allocation with K = {first_k} failed: {e}"),
    }
    if !route2_failed {
        print_route2(&ssa, &route2, first_k);
    }
    println!("== stages");
    match &verdict {
        Verdict::Agree { outcome, stages } => {
            for s in stages {
                println!("agree    {}", s.stage);
            }
            print!("{}", outcome.render_full());
            Ok(ExitCode::SUCCESS)
        }
        Verdict::Inconclusive => {
            println!("the source ran out of fuel: nothing to compare");
            Ok(ExitCode::from(EXIT_OUT_OF_FUEL))
        }
        other => {
            let tc =
                ssaref::testing::gen::TestCase { program: program.clone(), args: args.clone(), origin: a.case.clone() };
            print!("{}", ssaref::testing::gen::describe_failure(&tc, other));
            Ok(ExitCode::from(1))
        }
    }
}

/// `DIR/NAME.reduced.src` for `DIR/NAME.src` (or `DIR/NAME.reduced.src`
/// for `DIR/NAME`).
fn reduced_path(case: &str) -> String {
    let stem = case.strip_suffix(".src").unwrap_or(case);
    format!("{stem}.reduced.src")
}

fn cmd_reduce(a: ReduceArgs) -> Result<ExitCode, Failure> {
    use ssaref::testing::reduce::{reduce, ReduceConfig};
    let case = load_case(&a.case)?;
    let regs = case.regs.clone().unwrap_or_else(|| DEFAULT_CASE_REGS.to_vec());
    let tc = case.test_case(format!("case {}", a.case));
    let config = ReduceConfig { max_tests: a.max_tests.max(1), fuel: a.fuel };
    let start = std::time::Instant::now();
    let red = reduce(&tc, &regs, &interp::Interp, &config).map_err(|e| bad_input(format!("{}: {e}", a.case)))?;
    let elapsed = start.elapsed();
    let out = a.out.clone().unwrap_or_else(|| reduced_path(&a.case));
    let origin = case.description.first().map_or(String::new(), |d| format!(" ({d})"));
    let reduced = CaseFile::for_failure(
        &format!("ssaref reduce: reduced from {}{origin}", a.case),
        &out,
        &red.case,
        &red.verdict,
        &red.regs,
    );
    std::fs::write(&out, reduced.render()).map_err(|e| bad_input(format!("{out}: cannot write: {e}")))?;
    let s = &red.stats;
    let k = |k: Option<usize>| k.map_or("-".to_string(), |k| k.to_string());
    println!("reduced {}: {}", a.case, red.failure);
    println!("  statements: {} -> {}", s.statements_before, s.statements_after);
    println!("  K: {} -> {}", k(red.k_before), k(red.k_after));
    println!(
        "  candidates tried: {} in {:.1}s (kept {}; {} agreed, {} failed another way, {} ran out of fuel in the source; {} invalid edits skipped)",
        s.tests,
        elapsed.as_secs_f64(),
        s.accepted,
        s.passing,
        s.other_failures,
        s.inconclusive,
        s.invalid
    );
    if s.stopped_early {
        println!("  stopped by --max-tests {} before a fixpoint", config.max_tests);
    }
    println!("wrote {out} (replay: ssaref repro {out})");
    print!("{}", ssaref::testing::gen::describe_failure(&red.case, &red.verdict));
    Ok(ExitCode::SUCCESS)
}

fn cmd_bench_emulator(a: BenchEmulatorArgs) -> Result<ExitCode, Failure> {
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
