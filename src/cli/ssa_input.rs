//! Programs given in SSA form (`*.ssa`, the text form of
//! `ssa_text.rs`, optionally with a case-file header): reading and
//! verifying them, with errors as `FILE:LINE:COL: message` (or
//! `FILE: message` when the verifier's error has no position), and the
//! arguments of their `main`. `run` and `check` use it; the reference
//! outcome of such a program is the oracle's run of the SSA itself.

use crate::common::{bad_input, Failure};
use ssaref::frontend::ssa_case_file::SsaCaseFile;

/// True when `file` is a program in SSA form (its name ends in `.ssa`).
pub fn is_ssa(file: &str) -> bool {
    file.ends_with(".ssa")
}

/// Reads, parses and verifies a `.ssa` file.
pub fn load_ssa(file: &str) -> Result<SsaCaseFile, Failure> {
    let text = crate::common::read_text(file)?;
    SsaCaseFile::parse(&text).map_err(|e| bad_input(e.with_file(file)))
}

/// The arguments of `main`: those of the command line, or when there are
/// none those of the file's `// args:` line; missing ones are 0.
pub fn ssa_args(file: &str, case: &SsaCaseFile, raw: &[String]) -> Result<Vec<i64>, Failure> {
    if raw.is_empty() {
        return Ok(case.args());
    }
    let mut args = raw
        .iter()
        .map(|a| a.parse::<i64>().map_err(|_| bad_input(format!("{file}: argument `{a}` is not a 64-bit integer"))))
        .collect::<Result<Vec<_>, _>>()?;
    let params = case.module.main().map_or(0, |m| m.params.len());
    if args.len() > params {
        return Err(bad_input(format!(
            "{file}: too many arguments: `main` takes {params} but {} were given",
            args.len()
        )));
    }
    args.resize(params, 0);
    Ok(args)
}
