//! The `llvm` target: ssaref's SSA as LLVM IR (`llvm_ir.rs`), compiled by
//! `llc-14` to x86-64 assembly, linked with the harness (`native.rs`) by
//! `gcc`, run in a child process.
//!
//! A source program enters through ssaref's SSA construction (Braun et
//! al., every option on), an IR-level program as it is; either way LLVM's
//! back end sees ssaref's phis, so what is tested is LLVM's instruction
//! selection, PHI elimination, register allocation and the passes around
//! them, on ssaref's control flow.
//!
//! The option sets are every combination of: the optimization level and
//! register allocator (`O2` with `regalloc=greedy`, `basic` or `pbqp`;
//! `O0` with `regalloc=fast`); with or without `verify`
//! (`-verify-machineinstrs`); and the PHI-elimination copy placement: by
//! default, `split-all` (`--phi-elim-split-all-critical-edges`) or
//! `no-split` (`--disable-phi-elim-edge-splitting`). 24 sets, written like
//! `O2,regalloc=pbqp,verify,no-split`. The other pairs do not run:
//! `llc-14 -O0` accepts only the fast allocator ("Must use fast (default)
//! register allocator for unoptimized regalloc"), and `llc-14 -O1`/`-O2`
//! with `-regalloc=fast` crashes on every input, an empty function
//! included (`tests/external/`).

use crate::construction::braun::{construct_program, BraunOptions};
use crate::ir::Function;
use crate::outcome::Outcome;
use crate::targets::llvm_ir::{self, LlvmPlant};
use crate::targets::native::{self, Scratch};
use crate::targets::target::{ExportedFile, Limits, Target, TargetCase, TargetError, TargetInput};

/// The `llc` binary: `SSAREF_LLC` if set, else `llc-14`.
fn llc() -> String {
    std::env::var("SSAREF_LLC").unwrap_or_else(|_| "llc-14".into())
}

const LLC_HINT: &str = "Debian package llvm-14; .ci/setup installs it";
const GCC_HINT: &str = "Debian package gcc; .ci/setup installs it";

/// The `llvm` target (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct Llvm {
    /// A deliberate adapter bug, for the tests that show campaigns find
    /// one; `None` everywhere else.
    pub plant: Option<LlvmPlant>,
}

/// The parsed form of an option set.
struct LlcOptions {
    flags: Vec<String>,
}

fn parse_options(options: &str) -> Result<LlcOptions, TargetError> {
    let bad = || TargetError::BadOptions(format!("`{options}` is not an option set of llvm"));
    let mut words = options.split(',');
    let opt = match words.next() {
        Some("O0") => "-O0",
        Some("O2") => "-O2",
        _ => return Err(bad()),
    };
    let mut flags = vec![opt.to_string()];
    let ra = words.next().and_then(|w| w.strip_prefix("regalloc=")).ok_or_else(bad)?;
    // `-O0` takes only the fast allocator; `-O2` crashes with it.
    let allowed: &[&str] = if opt == "-O0" { &["fast"] } else { &["greedy", "basic", "pbqp"] };
    if !allowed.contains(&ra) {
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

/// The SSA function `main` of a case.
fn main_function(case: &TargetCase) -> Result<Function, TargetError> {
    let main = match &case.input {
        TargetInput::Source(p) => construct_program(p, &BraunOptions::all_on()).main().cloned(),
        TargetInput::Ssa(m) => m.main().cloned(),
    };
    main.ok_or_else(|| TargetError::Unsupported("no function named `main`".into()))
}

impl Llvm {
    /// The `.ll` module of `cases` (function `i` is case `i`).
    fn module(&self, functions: &[(usize, Function)]) -> String {
        let mut s = String::from(llvm_ir::MODULE_HEADER);
        for (i, f) in functions {
            s.push('\n');
            s.push_str(&llvm_ir::function(f, &native::function_name(*i), self.plant));
        }
        s
    }

    /// Compiles `functions` to `NAME.s` in `scratch`.
    fn llc(
        &self,
        functions: &[(usize, Function)],
        flags: &[String],
        scratch: &Scratch,
        name: &str,
    ) -> Result<String, TargetError> {
        let ll = scratch.write(&format!("{name}.ll"), &self.module(functions))?;
        let s = scratch.path(&format!("{name}.s"));
        let mut args = flags.to_vec();
        args.extend([ll.display().to_string(), "-o".into(), s.display().to_string()]);
        native::compile(&llc(), &args, LLC_HINT)?;
        Ok(s.display().to_string())
    }
}

impl Target for Llvm {
    fn name(&self) -> &str {
        "llvm"
    }

    fn option_sets(&self) -> Vec<String> {
        let mut sets = Vec::new();
        for (opt, allocators) in [("O2", &["greedy", "basic", "pbqp"][..]), ("O0", &["fast"][..])] {
            for ra in allocators {
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
        native::tool_version(&llc(), LLC_HINT)
    }

    fn run_batch(
        &self,
        cases: &[TargetCase],
        options: &str,
        limits: &Limits,
    ) -> Result<Vec<Result<Outcome, TargetError>>, TargetError> {
        let opts = parse_options(options)?;
        self.version()?;
        let scratch = Scratch::new("llvm")?;
        let mut results: Vec<Option<Result<Outcome, TargetError>>> = vec![None; cases.len()];
        let mut functions = Vec::new();
        for (i, case) in cases.iter().enumerate() {
            match main_function(case) {
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
                    let params = functions.iter().find(|(j, _)| *j == i).map_or(0, |(_, f)| f.params.len());
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
        let opts = parse_options(options)?;
        let f = main_function(case)?;
        let params = f.params.len();
        let mut args = case.args.clone();
        args.resize(params, 0);
        let name = stem.rsplit('/').next().unwrap_or(stem);
        let mut ll = format!("; ssaref case for LLVM's back end ({}), option set `{options}`\n", llc());
        ll.push_str(&format!(
            "; reproduce:\n;   {} {} {name}.ll -o {name}.s\n;   gcc -no-pie -w {name}.s {name}-harness.c -o {name}\n;   ./{name}\n",
            llc(),
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
