//! The case file of a failing test case (`CaseFile::for_failure`, and
//! `SsaCaseFile::for_failure` for an SSA-level program): what campaigns
//! and the reducer write to disk before they report a failure.
//! The format itself (reading, writing) is the front end's
//! (`frontend/case_file.rs`); this file adds what needs the pipeline's
//! verdict and the generator's failure description.

use crate::differential::Verdict;
use crate::frontend::case_file::{CaseFile, CaseHeader, TestCase};
use crate::frontend::ssa_case_file::SsaCaseFile;
use crate::generate::ssa::IrCase;

impl CaseFile {
    /// The case file of a failure: `first_line`, the command that replays
    /// it from `path`, what failed (`| ` lines), the register counts, the
    /// arguments, and the source's outcome as the expectation when the
    /// verdict has one.
    pub fn for_failure(first_line: &str, path: &str, tc: &TestCase, verdict: &Verdict, regs: &[usize]) -> CaseFile {
        let mut description = vec![first_line.to_string(), format!("reproduce: ssaref repro {path}")];
        let what = crate::generate::source::describe_failure(tc, verdict);
        let program_text = crate::frontend::ast_print::print_program(&tc.program);
        // `describe_failure` gives the program, then the failure.
        let failure_part = what.split_once(&program_text).map_or(what.as_str(), |(_, rest)| rest);
        description.extend(failure_part.lines().filter(|l| !l.is_empty()).map(|l| format!("| {l}")));
        let expect = match verdict {
            Verdict::Diverge { expected, .. } => Some(expected.render_full().lines().map(String::from).collect()),
            _ => None,
        };
        CaseFile {
            description,
            regs: if regs.is_empty() { None } else { Some(regs.to_vec()) },
            config: None,
            args: tc.args.clone(),
            expect,
            program: tc.program.clone(),
        }
    }
}

impl SsaCaseFile {
    /// The `.ssa` case file of a failure, as [`CaseFile::for_failure`]
    /// writes it for a source program: `first_line`, the command that
    /// replays it from `path`, what failed, the register counts, the
    /// arguments, and the SSA interpreter's outcome as the expectation
    /// when the verdict has one.
    pub fn for_failure(first_line: &str, path: &str, case: &IrCase, verdict: &Verdict, regs: &[usize]) -> SsaCaseFile {
        let mut description = vec![first_line.to_string(), format!("reproduce: ssaref repro {path}")];
        let what = crate::generate::source::describe_verdict(verdict, "the SSA input");
        description.extend(what.lines().filter(|l| !l.is_empty()).map(|l| format!("| {l}")));
        let expect = match verdict {
            Verdict::Diverge { expected, .. } => Some(expected.render_full().lines().map(String::from).collect()),
            _ => None,
        };
        let header = CaseHeader {
            description,
            regs: if regs.is_empty() { None } else { Some(regs.to_vec()) },
            config: None,
            args: case.args.clone(),
            expect,
        };
        SsaCaseFile { header, module: case.module.clone() }
    }
}
/// Writes a new case file in `dir` under a name no other writer holds:
/// `STEM.EXT`, else `STEM-2.EXT`, `STEM-3.EXT`, ... (the name is claimed
/// with an exclusive create, so two campaigns sharing `--out` never take
/// each other's cases). The text, `render` of the claimed path, is written
/// to a temporary file beside it and renamed over the claim, so a reader
/// sees the whole case or none of it. Returns the path.
pub fn write_new_case(
    dir: &std::path::Path,
    stem: &str,
    ext: &str,
    render: impl Fn(&std::path::Path) -> String,
) -> std::io::Result<std::path::PathBuf> {
    use std::io::Write;
    std::fs::create_dir_all(dir)?;
    let mut n = 1u32;
    let path = loop {
        let name = if n == 1 { format!("{stem}.{ext}") } else { format!("{stem}-{n}.{ext}") };
        let path = dir.join(name);
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(_) => break path,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 10_000 => n += 1,
            Err(e) => return Err(e),
        }
    };
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        path.file_name().map_or_else(String::new, |f| f.to_string_lossy().into_owned()),
        std::process::id()
    ));
    let written = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(render(&path).as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, &path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        let _ = std::fs::remove_file(&path);
        return Err(e);
    }
    Ok(path)
}
