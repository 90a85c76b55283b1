//! The `gcc` and `clang` targets: ssaref's programs as C (`c_source.rs`),
//! compiled with the harness (`native.rs`) in one compiler invocation per
//! batch, run in a child process.
//!
//! A source program is translated from its AST, so the compiler builds
//! SSA form itself from C's labels, gotos and loops; an IR-level program
//! is translated from its SSA form, with per-edge temporaries for the
//! phis' parallel copies. The option sets are `O0`, `O1`, `O2`, `O3` and
//! `Os`. The programs and the harness are separate files, so the
//! compiler sees the arguments of `main` only as the harness passes them
//! (no constant folding across the call).
//!
//! Clang gets `-fbracket-depth=4096`: its parser stops at 256 nested
//! brackets by default ("bracket nesting level exceeded maximum of 256"),
//! an implementation limit below what the C translation of an expression
//! at the language's depth limit of 256 nests (`tests/cases/deep_expression.src`).
//! Past that limit its recursive descent needs more than the usual 8 MiB
//! of stack (`clang-19` dies of SIGSEGV on that case, and compiles it with
//! `ulimit -s unlimited`), so clang runs under `sh -c` with the stack
//! limit raised to the hard limit (`STACK_WRAPPER`).

use crate::outcome::Outcome;
use crate::targets::c_source::{self, CPlant};
use crate::targets::native::{self, Scratch};
use crate::targets::target::{ExportedFile, Limits, Target, TargetCase, TargetError, TargetInput};

/// The shell script that runs clang (`$0`, its arguments `$@`) with the
/// stack limit raised as far as the hard limit allows.
const STACK_WRAPPER: &str = "ulimit -s unlimited 2>/dev/null || ulimit -s \"$(ulimit -H -s)\"; exec \"$0\" \"$@\"";

/// A C compiler as a target.
#[derive(Clone, Debug)]
pub struct CCompiler {
    /// `gcc` or `clang`: the target's name.
    name: &'static str,
    /// The binaries to try, in order (`SSAREF_CC_GCC` / `SSAREF_CC_CLANG`
    /// first when set).
    binaries: Vec<String>,
    /// A deliberate adapter bug, for the tests that show campaigns find
    /// one; `None` everywhere else.
    pub plant: Option<CPlant>,
}

impl CCompiler {
    /// GCC (`gcc`).
    pub fn gcc() -> Self {
        let mut binaries: Vec<String> = std::env::var("SSAREF_CC_GCC").into_iter().collect();
        binaries.push("gcc".into());
        CCompiler { name: "gcc", binaries, plant: None }
    }

    /// Clang (`clang`, else the newest of `clang-19`, `clang-16`,
    /// `clang-14`).
    pub fn clang() -> Self {
        let mut binaries: Vec<String> = std::env::var("SSAREF_CC_CLANG").into_iter().collect();
        binaries.extend(["clang", "clang-19", "clang-16", "clang-14"].map(String::from));
        CCompiler { name: "clang", binaries, plant: None }
    }

    fn hint(&self) -> &'static str {
        if self.name == "gcc" {
            "Debian package gcc; .ci/setup installs it"
        } else {
            "Debian package clang-19; .ci/setup installs it"
        }
    }

    /// Flags this compiler gets besides the option set's (the module
    /// documentation says why).
    fn extra_flags(&self) -> &'static [&'static str] {
        if self.name == "clang" {
            &["-fbracket-depth=4096"]
        } else {
            &[]
        }
    }

    /// The first binary that runs, and its version line.
    fn binary(&self) -> Result<(String, String), TargetError> {
        for b in &self.binaries {
            if let Ok(v) = native::tool_version(b, self.hint()) {
                return Ok((b.clone(), v));
            }
        }
        Err(TargetError::ToolMissing { tool: self.name.into(), hint: self.hint().into() })
    }

    /// The C file of the programs `(index, case)`.
    fn programs(&self, cases: &[(usize, &TargetCase)]) -> String {
        let mut s = String::from(native::C_PRELUDE);
        s.push_str(&c_source::helpers(self.plant));
        for (i, case) in cases {
            s.push('\n');
            let name = native::function_name(*i);
            match &case.input {
                TargetInput::Source(p) => s.push_str(&c_source::source_program(p, &name)),
                TargetInput::Ssa(m) => s.push_str(&c_source::ssa_program(m, &name)),
            }
        }
        s
    }
}

fn parse_options(options: &str) -> Result<&'static str, TargetError> {
    match options {
        "O0" => Ok("-O0"),
        "O1" => Ok("-O1"),
        "O2" => Ok("-O2"),
        "O3" => Ok("-O3"),
        "Os" => Ok("-Os"),
        _ => Err(TargetError::BadOptions(format!("`{options}` is not an option set of the C compilers"))),
    }
}

/// The arguments `main` is called with: one per parameter.
fn call_args(case: &TargetCase) -> Vec<i64> {
    let mut a = case.args.clone();
    a.resize(case.main_params(), 0);
    a
}

fn has_main(case: &TargetCase) -> bool {
    match &case.input {
        TargetInput::Source(p) => p.main().is_some(),
        TargetInput::Ssa(m) => m.main().is_some(),
    }
}

impl Target for CCompiler {
    fn name(&self) -> &str {
        self.name
    }

    fn option_sets(&self) -> Vec<String> {
        ["O2", "O0", "O1", "O3", "Os"].map(String::from).to_vec()
    }

    fn version(&self) -> Result<String, TargetError> {
        self.binary().map(|(_, v)| v)
    }

    fn run_batch(
        &self,
        cases: &[TargetCase],
        options: &str,
        limits: &Limits,
    ) -> Result<Vec<Result<Outcome, TargetError>>, TargetError> {
        let flag = parse_options(options)?;
        let (cc, _) = self.binary()?;
        let scratch = Scratch::new(self.name)?;
        let mut results: Vec<Option<Result<Outcome, TargetError>>> = vec![None; cases.len()];
        let mut runnable: Vec<(usize, &TargetCase)> = Vec::new();
        for (i, case) in cases.iter().enumerate() {
            if has_main(case) {
                runnable.push((i, case));
            } else {
                results[i] = Some(Err(TargetError::Unsupported("no function named `main`".into())));
            }
        }
        // One compilation for the batch; when it fails, one per program, so
        // that the error is the program's and the others still run.
        let build = |set: &[(usize, &TargetCase)], name: &str| -> Result<std::path::PathBuf, TargetError> {
            let programs = scratch.write(&format!("{name}.c"), &self.programs(set))?;
            let calls: Vec<(usize, Vec<i64>)> = set.iter().map(|(i, c)| (*i, call_args(c))).collect();
            let harness = scratch.write(&format!("{name}-harness.c"), &native::harness(&calls))?;
            let binary = scratch.path(name);
            let mut args: Vec<String> = vec![flag.into()];
            args.extend(self.extra_flags().iter().map(|f| f.to_string()));
            args.extend([
                "-w".into(),
                "-o".into(),
                binary.display().to_string(),
                programs.display().to_string(),
                harness.display().to_string(),
            ]);
            if self.name == "clang" {
                let mut wrapped = vec!["-c".to_string(), STACK_WRAPPER.to_string(), cc.clone()];
                wrapped.extend(args);
                native::compile("sh", &wrapped, self.hint())?;
            } else {
                native::compile(&cc, &args, self.hint())?;
            }
            Ok(binary)
        };
        let mut binaries = Vec::new();
        match build(&runnable, "batch") {
            Ok(b) => binaries.push((b, runnable.clone())),
            Err(TargetError::Compile { .. }) => {
                for &(i, c) in &runnable {
                    match build(&[(i, c)], &format!("case{i}")) {
                        Ok(b) => binaries.push((b, vec![(i, c)])),
                        Err(e) => results[i] = Some(Err(e)),
                    }
                }
            }
            Err(e) => return Err(e),
        }
        for (binary, set) in binaries {
            let outcomes = native::run_binary(&binary, set.len(), limits, &scratch)?;
            for ((i, _), o) in set.iter().zip(outcomes) {
                results[*i] = Some(o);
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
        let flag = parse_options(options)?;
        let cc = self.binary().map_or_else(|_| self.name.to_string(), |(b, _)| b);
        let name = stem.rsplit('/').next().unwrap_or(stem);
        let args = call_args(case);
        let mut text = format!("/* ssaref case for {} ({cc}), option set `{options}`\n", self.name);
        let flags: String =
            std::iter::once(flag).chain(self.extra_flags().iter().copied()).collect::<Vec<_>>().join(" ");
        let stack = if self.name == "clang" { "ulimit -s unlimited; " } else { "" };
        text.push_str(&format!(
            " * reproduce:\n *   {stack}{cc} {flags} -w -o {name} {name}.c {name}-harness.c && ./{name}\n"
        ));
        text.push_str(&native::expected_run_comment(" * ", "ssaref_p0", &args, expected));
        text.push_str(" */\n");
        text.push_str(&self.programs(&[(0, case)]));
        Ok(vec![
            ExportedFile { suffix: ".c".into(), text },
            ExportedFile { suffix: "-harness.c".into(), text: native::harness(&[(0, args)]) },
        ])
    }
}
