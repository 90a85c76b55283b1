//! Case files of SSA programs (`*.ssa`): the header of `case_file.rs`
//! (description, `regs:`, `args:`, `expect:`) followed by a module in the
//! SSA text form (`ssa_text.rs`), as `ssaref run`, `check` and
//! `repro` read them and `ssaref fuzz --ir-share` writes them.
//!
//! The text form skips `//` comments, so the whole file is parsed as the
//! module and positions count from the first line of the file. Besides the
//! syntax, [`SsaCaseFile::parse`] runs the SSA verifier, requires `main`,
//! and checks the argument count against `main`'s parameters: a file that
//! parses is a program every back end must accept.

use crate::analysis::verifier::{verify_module, VerifyError};
use crate::diag::{Diag, Pos};
use crate::frontend::case_file::{render_header, CaseHeader};
use crate::ir::Module;
use crate::ssa_text::parse_module;

/// A parsed `.ssa` case file.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SsaCaseFile {
    pub header: CaseHeader,
    /// The module; it passes the SSA verifier and has a `main`.
    pub module: Module,
}

/// Why a `.ssa` file is rejected: an error at a position (the header, the
/// text form, or a verifier error located at its block's header), or a
/// verifier error with no position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SsaCaseError {
    At(Diag),
    Invalid(String),
}

impl SsaCaseError {
    /// `FILE:LINE:COL: message`, or `FILE: message` without a position.
    pub fn with_file(&self, file: &str) -> String {
        match self {
            SsaCaseError::At(d) => d.with_file(file),
            SsaCaseError::Invalid(m) => format!("{file}: {m}"),
        }
    }
}

impl SsaCaseFile {
    /// Parses and verifies a `.ssa` case file.
    pub fn parse(text: &str) -> Result<SsaCaseFile, SsaCaseError> {
        let header = CaseHeader::parse(text).map_err(SsaCaseError::At)?;
        let module = parse_module(text).map_err(SsaCaseError::At)?;
        if let Err(e) = verify_module(&module) {
            return Err(match verify_position(text, &e) {
                Some(pos) => SsaCaseError::At(Diag::new(pos, e.to_string())),
                None => SsaCaseError::Invalid(e.to_string()),
            });
        }
        let Some(main) = module.main() else {
            return Err(SsaCaseError::Invalid("the module has no function `main`".into()));
        };
        if header.args.len() > main.params.len() {
            let pos = function_line(text, "main").map_or(Pos::START, |line| Pos { line, col: 1 });
            return Err(SsaCaseError::At(Diag::new(
                pos,
                format!("too many arguments: `main` takes {} but {} were given", main.params.len(), header.args.len()),
            )));
        }
        let mut module = module;
        module.functions.iter_mut().for_each(renumber_sparse);
        Ok(SsaCaseFile { header, module })
    }

    /// The arguments of `main`, one per parameter (missing ones are 0).
    pub fn args(&self) -> Vec<i64> {
        let mut args = self.header.args.clone();
        args.resize(self.module.main().map_or(0, |m| m.params.len()), 0);
        args
    }

    /// The file's text: the header (as `case_file.rs` writes it) and the
    /// module in the canonical text form.
    pub fn render(&self) -> String {
        let h = &self.header;
        let mut s = render_header(&h.description, h.regs.as_deref(), h.config.as_ref(), &h.args, h.expect.as_deref());
        s.push_str(&crate::ssa_text::print_module(&self.module));
        s
    }
}

/// The line (1-based) of `fn NAME(` in the text, if any.
fn function_line(text: &str, name: &str) -> Option<u32> {
    text.lines().position(|l| fn_name(l) == Some(name)).map(|i| u32::try_from(i + 1).unwrap_or(u32::MAX))
}

/// The name of the function a line declares, if it is a function header.
fn fn_name(line: &str) -> Option<&str> {
    let code = line.split("//").next().unwrap_or("");
    let rest = code.trim_start().strip_prefix("fn")?;
    let rest = rest.trim_start();
    let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    (end > 0 && rest[..end].chars().next().is_some_and(|c| !c.is_ascii_digit())).then_some(&rest[..end])
}

/// Where a verifier error points: the header of its block in its
/// function, or the function header when the error names no block.
fn verify_position(text: &str, e: &VerifyError) -> Option<Pos> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| fn_name(l) == Some(e.function.as_str()))?;
    let to_pos = |i: usize, col: usize| Pos {
        line: u32::try_from(i + 1).unwrap_or(u32::MAX),
        col: u32::try_from(col + 1).unwrap_or(u32::MAX),
    };
    let Some(block) = e.block else { return Some(to_pos(start, 0)) };
    let label = block.to_string();
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        if fn_name(line).is_some() {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        let trimmed = code.trim_start();
        if let Some(after) = trimmed.strip_prefix(label.as_str()) {
            if after.trim_start().starts_with(['(', ':']) {
                let col = code.chars().count() - trimmed.chars().count();
                return Some(to_pos(i, col));
            }
        }
    }
    Some(to_pos(start, 0))
}

/// Renumbers the values of a verified function densely, in increasing
/// order (the `k`-th smallest number mentioned becomes `vk`), when its
/// numbers are sparse: when `value_count` exceeds twice the number of
/// distinct values plus 1024. Every pass sizes its tables by
/// `value_count`, so without this a four-line function naming
/// `v4294967294` would cost tens of gigabytes; with it, memory follows the
/// size of the program. The function means the same; it prints with the
/// new numbers. The verifier has seen the numbers as written, so its
/// errors name them.
fn renumber_sparse(f: &mut crate::ir::Function) {
    use crate::ir::Value;
    let mut numbers = Vec::new();
    f.for_each_value_mention(|v| numbers.push(v.0));
    numbers.sort_unstable();
    numbers.dedup();
    if u64::from(f.value_count) <= 2 * numbers.len() as u64 + 1024 {
        return;
    }
    // Every value mentioned is in `numbers`, so the search always succeeds.
    let new = |v: Value| Value(numbers.binary_search(&v.0).unwrap_or(0) as u32);
    f.params.iter_mut().for_each(|p| *p = new(*p));
    for data in f.blocks.values_mut() {
        for phi in &mut data.phis {
            phi.dest = new(phi.dest);
            phi.args.iter_mut().for_each(|a| *a = new(*a));
        }
        for inst in &mut data.insts {
            inst.dest = inst.dest.map(new);
            inst.op.map_args(new);
        }
        data.term.map_arg(new);
    }
    f.value_count = numbers.len() as u32;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_parses_with_its_header() {
        let text = "// what\n// args: 4\n// expect:\n// return 4\nfn main(v0) {\nb0:\n    ret v0\n}\n";
        let case = SsaCaseFile::parse(text).expect("valid");
        assert_eq!(case.args(), vec![4]);
        assert_eq!(case.header.expect, Some(vec!["return 4".to_string()]));
        assert_eq!(SsaCaseFile::parse(&case.render()).expect("round trip"), case);
    }

    #[test]
    fn a_description_line_that_reads_as_a_key_stays_a_description() {
        let mut case = SsaCaseFile::parse("// args: 4\nfn main(v0) {\nb0:\n    ret v0\n}\n").expect("valid");
        case.header.description = vec!["args: 9".into(), String::new(), "expect: nothing".into()];
        let back = SsaCaseFile::parse(&case.render()).expect("round trip");
        assert_eq!(back.args(), vec![4]);
        assert_eq!(back.header.expect, None);
        assert_eq!(back.header.description.len(), 3, "{}", case.render());
    }

    #[test]
    fn errors_have_positions() {
        let syntax = "fn main() {\nb0:\n    ret\n}\n";
        let SsaCaseError::At(d) = SsaCaseFile::parse(syntax).unwrap_err() else { panic!("positioned") };
        assert_eq!(d.pos().line, 3);
        let undefined = "// a\nfn main() {\nb0:\n    jump b1\nb1(b0):\n    ret v7\n}\n";
        let err = SsaCaseFile::parse(undefined).unwrap_err();
        assert!(err.with_file("x.ssa").starts_with("x.ssa:5:1: "), "{}", err.with_file("x.ssa"));
        let no_main = "fn other() {\nb0:\n    v0 = const 1\n    ret v0\n}\n";
        assert!(matches!(SsaCaseFile::parse(no_main), Err(SsaCaseError::Invalid(_))));
        let too_many = "// args: 1 2\nfn main(v0) {\nb0:\n    ret v0\n}\n";
        assert!(SsaCaseFile::parse(too_many).unwrap_err().with_file("f").starts_with("f:2:1: too many"));
    }

    #[test]
    fn sparse_value_numbers_are_renumbered_densely_and_dense_ones_kept() {
        let sparse = "fn main(v10000000) {\nb0:\n    v4294967294 = add v10000000, v10000000\n    ret v4294967294\n}\n";
        let case = SsaCaseFile::parse(sparse).expect("valid");
        let main = case.module.main().expect("main");
        assert_eq!(main.value_count, 2);
        assert_eq!(
            crate::ssa_text::print_module(&case.module),
            "fn main(v0) {\nb0:\n    v1 = add v0, v0\n    ret v1\n}\n"
        );
        let dense = "fn main(v0) {\nb0:\n    v900 = add v0, v0\n    ret v900\n}\n";
        let case = SsaCaseFile::parse(dense).expect("valid");
        assert_eq!(crate::ssa_text::print_module(&case.module), dense);
        let undefined = "fn main(v10000000) {\nb0:\n    ret v4294967294\n}\n";
        let err = SsaCaseFile::parse(undefined).expect_err("undefined").with_file("f.ssa");
        assert!(err.contains("v4294967294"), "{err}");
    }
}
