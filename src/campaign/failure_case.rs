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
