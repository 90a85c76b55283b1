//! The `llvm` targets: ssaref's SSA as LLVM IR (`llvm_ir.rs`), compiled by
//! `llc-N` to x86-64 assembly, linked with the harness (`native.rs`) by
//! `gcc`, run in a child process. `llvm-N` is LLVM N (`llc-N`); `llvm` is
//! the newest version installed ([`installed_versions`]).
//!
//! A source program enters through ssaref's SSA construction (Braun et
//! al., every option on), an IR-level program as it is; either way LLVM's
//! back end sees ssaref's phis, so what is tested is LLVM's instruction
//! selection, PHI elimination, register allocation and the passes around
//! them, on ssaref's control flow.
//!
//! The option sets are every combination of: the optimization level and
//! register allocator (`O1`, `O2` or `O3` with `regalloc=greedy`, `basic`
//! or `pbqp`; `O0` with `regalloc=fast`); with or without `verify`
//! (`-verify-machineinstrs`); and the PHI-elimination copy placement: by
//! default, `split-all` (`--phi-elim-split-all-critical-edges`) or
//! `no-split` (`--disable-phi-elim-edge-splitting`). 60 sets, written like
//! `O2,regalloc=pbqp,verify,no-split`, the same on every version; from
//! LLVM 19 on, `O1`, `O2` and `O3` with `regalloc=fast` as well (78 sets).
//! The other pairs do not run: `llc -O0` accepts only the fast allocator
//! ("Must use fast (default) register allocator for unoptimized
//! regalloc", in 14 and 19 alike), and `llc-14 -O1` and above with
//! `-regalloc=fast` crashes on every input, an empty function included
//! (`tests/external/`); `llc-19` does not, and versions between are not
//! checked, so they do not get those sets.

use crate::construction::braun::{construct_program, BraunOptions};
use crate::ir::Function;
use crate::outcome::Outcome;
use crate::targets::llvm_ir::{self, LlvmPlant};
use crate::targets::native::{self, Scratch};
use crate::targets::target::{ExportedFile, Limits, Target, TargetCase, TargetError, TargetInput};

/// The first LLVM version whose `llc` runs the fast allocator at `-O1`
/// and above (the module documentation).
const FAST_WHEN_OPTIMIZING_FROM: u32 = 19;

const GCC_HINT: &str = "Debian package gcc; .ci/setup installs it";

/// The major versions `N` of the `llc-N` binaries in the directories of
/// `PATH`, in increasing order, each once.
pub fn installed_versions() -> Vec<u32> {
    let mut versions = Vec::new();
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(v) = name.to_str().and_then(|n| n.strip_prefix("llc-")).and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            if e.path().is_file() {
                versions.push(v);
            }
        }
    }
    versions.sort_unstable();
    versions.dedup();
    versions
}

/// An `llvm` target: one version of `llc` (see the module documentation).
#[derive(Clone, Debug)]
pub struct Llvm {
    /// `llvm-N`, or `llvm` when `SSAREF_LLC` names the binary.
    name: String,
    /// The `llc` binary.
    llc: String,
    /// The major version, when the name gives it.
    major: Option<u32>,
    /// A deliberate adapter bug, for the tests that show campaigns find
    /// one; `None` everywhere else.
    pub plant: Option<LlvmPlant>,
}

impl Default for Llvm {
    /// [`Llvm::newest`].
    fn default() -> Self {
        Llvm::newest()
    }
}

impl Llvm {
    /// LLVM `major` (`llc-MAJOR`), installed or not: running it without
    /// the binary is [`TargetError::ToolMissing`].
    pub fn version(major: u32) -> Self {
        Llvm { name: format!("llvm-{major}"), llc: format!("llc-{major}"), major: Some(major), plant: None }
    }

    /// The binary `SSAREF_LLC` when set (the target is then `llvm`, of no
    /// known version), else the newest installed version, else LLVM 19
    /// (not installed: running it says so).
    pub fn newest() -> Self {
        if let Ok(llc) = std::env::var("SSAREF_LLC") {
            return Llvm { name: "llvm".into(), llc, major: None, plant: None };
        }
        Llvm::version(installed_versions().last().copied().unwrap_or(FAST_WHEN_OPTIMIZING_FROM))
    }

    /// The major version, if known.
    pub fn major(&self) -> Option<u32> {
        self.major
    }

    fn llc_hint(&self) -> String {
        match self.major {
            Some(m) => format!("Debian package llvm-{m}; .ci/setup installs llvm-14 and llvm-19"),
            None => "the binary SSAREF_LLC names".into(),
        }
    }

    /// Whether this version runs the fast allocator at `-O1` and above.
    fn fast_when_optimizing(&self) -> bool {
        self.major.is_some_and(|m| m >= FAST_WHEN_OPTIMIZING_FROM)
    }

    /// The allocators offered at an optimization level.
    fn allocators(&self, opt: &str) -> &'static [&'static str] {
        match (opt, self.fast_when_optimizing()) {
            ("O0", _) => &["fast"],
            (_, true) => &["greedy", "basic", "pbqp", "fast"],
            (_, false) => &["greedy", "basic", "pbqp"],
        }
    }
}

/// The parsed form of an option set.
struct LlcOptions {
    flags: Vec<String>,
}

fn parse_options(target: &Llvm, options: &str) -> Result<LlcOptions, TargetError> {
    let bad = || TargetError::BadOptions(format!("`{options}` is not an option set of {}", target.name));
    let mut words = options.split(',');
    let opt = match words.next() {
        Some(o @ ("O0" | "O1" | "O2" | "O3")) => o,
        _ => return Err(bad()),
    };
    let mut flags = vec![format!("-{opt}")];
    let ra = words.next().and_then(|w| w.strip_prefix("regalloc=")).ok_or_else(bad)?;
    if !target.allocators(opt).contains(&ra) {
        return Err(bad());
    }
    flags.push(format!("-regalloc={ra}"));
    for w in words {
        match w {
            "verify" => flags.push("-verify-machineinstrs".into()),
            "split-all" => flags.push("--phi-elim-split-all-critical-edges".into()),
            "no-split" => flags.push("--disable-phi-elim-edge-splitting".into()),
            _ => return Err(bad()),
        }
    }
    Ok(LlcOptions { flags })
}

/// The SSA functions of a case, `main` among them.
fn case_functions(case: &TargetCase) -> Result<Vec<Function>, TargetError> {
    let module = match &case.input {
        TargetInput::Source(p) => construct_program(p, &BraunOptions::all_on()),
        TargetInput::Ssa(m) => m.clone(),
    };
    if module.main().is_none() {
        return Err(TargetError::Unsupported("no function named `main`".into()));
    }
    Ok(module.functions)
}

/// The number of parameters of `main` among `functions`.
fn main_params(functions: &[Function]) -> usize {
    functions.iter().find(|f| f.name == "main").map_or(0, |f| f.params.len())
}

impl Llvm {
    /// The `.ll` module of `cases` (the functions of case `i`, whose
    /// `main` is `native::function_name(i)`).
    fn module(&self, functions: &[(usize, Vec<Function>)]) -> String {
        let mut s = String::from(llvm_ir::MODULE_HEADER);
        for (i, fs) in functions {
            for f in fs {
                s.push('\n');
                s.push_str(&llvm_ir::function(f, &native::function_name(*i), self.plant));
            }
        }
        s
    }

    /// Compiles `functions` to `NAME.s` in `scratch`.
    fn llc(
        &self,
        functions: &[(usize, Vec<Function>)],
        flags: &[String],
        scratch: &Scratch,
        name: &str,
    ) -> Result<String, TargetError> {
        let ll = scratch.write(&format!("{name}.ll"), &self.module(functions))?;
        let s = scratch.path(&format!("{name}.s"));
        let mut args = flags.to_vec();
        args.extend([ll.display().to_string(), "-o".into(), s.display().to_string()]);
        native::compile(&self.llc, &args, &self.llc_hint())?;
        Ok(s.display().to_string())
    }
}

impl Target for Llvm {
    fn name(&self) -> &str {
        &self.name
    }

    fn option_sets(&self) -> Vec<String> {
        let mut sets = Vec::new();
        for opt in ["O2", "O0", "O1", "O3"] {
            for ra in self.allocators(opt) {
                for verify in ["", ",verify"] {
                    for phi in ["", ",split-all", ",no-split"] {
                        sets.push(format!("{opt},regalloc={ra}{verify}{phi}"));
                    }
                }
            }
        }
        sets
    }

    fn version(&self) -> Result<String, TargetError> {
        native::tool_version("gcc", GCC_HINT)?;
        native::tool_version(&self.llc, &self.llc_hint())
    }

    fn run_batch(
        &self,
        cases: &[TargetCase],
        options: &str,
        limits: &Limits,
    ) -> Result<Vec<Result<Outcome, TargetError>>, TargetError> {
        let opts = parse_options(self, options)?;
        self.version()?;
        let scratch = Scratch::new("llvm")?;
        let mut results: Vec<Option<Result<Outcome, TargetError>>> = vec![None; cases.len()];
        let mut functions = Vec::new();
        for (i, case) in cases.iter().enumerate() {
            match case_functions(case) {
                Ok(f) => functions.push((i, f)),
                Err(e) => results[i] = Some(Err(e)),
            }
        }
        // One llc for the batch; when it fails, one per function, so that
        // the error is the function's and the others still run.
        let mut assembly = Vec::new();
        let mut compiled = Vec::new();
        match self.llc(&functions, &opts.flags, &scratch, "batch") {
            Ok(s) => {
                assembly.push(s);
                compiled = functions.iter().map(|(i, _)| *i).collect();
            }
            Err(TargetError::Compile { .. }) => {
                for (i, f) in &functions {
                    match self.llc(std::slice::from_ref(&(*i, f.clone())), &opts.flags, &scratch, &format!("case{i}")) {
                        Ok(s) => {
                            assembly.push(s);
                            compiled.push(*i);
                        }
                        Err(e) => results[*i] = Some(Err(e)),
                    }
                }
            }
            Err(e) => return Err(e),
        }
        if !compiled.is_empty() {
            let calls: Vec<(usize, Vec<i64>)> = compiled
                .iter()
                .map(|&i| {
                    let params = functions.iter().find(|(j, _)| *j == i).map_or(0, |(_, f)| main_params(f));
                    let mut a = cases[i].args.clone();
                    a.resize(params, 0);
                    (i, a)
                })
                .collect();
            let harness = scratch.write("harness.c", &native::harness(&calls))?;
            let binary = scratch.path("batch");
            let mut args: Vec<String> = vec!["-no-pie".into(), "-w".into(), "-o".into(), binary.display().to_string()];
            args.push(harness.display().to_string());
            args.extend(assembly);
            native::compile("gcc", &args, GCC_HINT)?;
            let outcomes = native::run_binary(&binary, calls.len(), limits, &scratch)?;
            for (&i, o) in compiled.iter().zip(outcomes) {
                results[i] = Some(o);
            }
        }
        Ok(results.into_iter().map(|r| r.unwrap_or_else(|| Err(TargetError::Io("not run".into())))).collect())
    }

    fn export(
        &self,
        case: &TargetCase,
        options: &str,
        expected: &Outcome,
        stem: &str,
    ) -> Result<Vec<ExportedFile>, TargetError> {
        let opts = parse_options(self, options)?;
        let f = case_functions(case)?;
        let params = main_params(&f);
        let mut args = case.args.clone();
        args.resize(params, 0);
        let name = stem.rsplit('/').next().unwrap_or(stem);
        let mut ll = format!("; ssaref case for LLVM's back end ({}), option set `{options}`\n", self.llc);
        ll.push_str(&format!(
            "; reproduce:\n;   {} {} {name}.ll -o {name}.s\n;   gcc -no-pie -w {name}.s {name}-harness.c -o {name}\n;   ./{name}\n",
            self.llc,
            opts.flags.join(" ")
        ));
        ll.push_str(&native::expected_run_comment("; ", "@ssaref_p0", &args, expected));
        ll.push('\n');
        ll.push_str(&self.module(&[(0, f)]));
        Ok(vec![
            ExportedFile { suffix: ".ll".into(), text: ll },
            ExportedFile { suffix: "-harness.c".into(), text: native::harness(&[(0, args)]) },
        ])
    }
}
