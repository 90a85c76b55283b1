//! Case files: a program preceded by a header of `//` comment lines, as
//! `ssaref fuzz` writes its failing cases and `ssaref reduce` its reduced
//! ones, and as `ssaref repro` and `ssaref reduce` read them.
//!
//! ```text
//! // ssaref fuzz failure, seed 42          (description lines: free text)
//! // reproduce: ssaref repro case-42.src
//! // | stage ssa-ra[k=4,opt] diverges from the source
//! // regs: 2 3 4                            (optional; each K in 2..=15)
//! // config: braun=phi+scc ssa-ra[opt] ssa-ra[plain] out-of-ssa[sharing,check,linear-scan]
//! //                                        (optional; the back ends to replay)
//! // args: 3 -4                             (optional; i64 arguments of `main`)
//! // expect:                                (optional; then the outcome lines)
//! // 7
//! // return 0
//! fn main(a, b) { ... }
//! ```
//!
//! The header is the run of lines that start with `//` at the top of the
//! file; the program is the whole text (the lexer skips comments), so
//! positions in both count from the first line of the file. A header line
//! whose comment (after `//` and one optional space) starts with `regs:`,
//! `config:`, `args:` or `expect:` is a key; each key may appear once (a K
//! of `regs:` or a back end of `config:` listed twice counts once), and every
//! header line after `expect:` belongs to the expected outcome. Other lines
//! are description. The test cases of `tests/cases/` are case files too
//! (description, `args:`, `expect:`).
//!
//! Errors are [`Diag`]s (`LINE:COL: message`, 1-based, columns in
//! characters) pointing at the offending word; parsing never panics.

use crate::ast::Program;
use crate::diag::{Diag, Pos};
use crate::frontend::lexer::{tokenize, TokenKind};

/// The keys of a case-file header.
const KEYS: [&str; 4] = ["regs:", "config:", "args:", "expect:"];

/// A parsed case file.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CaseFile {
    /// The description lines, in order, without their `// `.
    pub description: Vec<String>,
    /// The register counts of the `regs:` line, if there is one.
    pub regs: Option<Vec<usize>>,
    /// The text after `config:` and where it starts, if there is such a
    /// line: the configuration a campaign ran the case with
    /// (`campaign/rotation.rs` reads it; the front end does not).
    pub config: Option<(Pos, String)>,
    /// The arguments of `main` (none without an `args:` line).
    pub args: Vec<i64>,
    /// The lines of the expected outcome (`Outcome::render_full`), if the
    /// header has an `expect:` block.
    pub expect: Option<Vec<String>>,
    pub program: Program,
}

/// A program and the arguments of its `main`.
#[derive(Clone, PartialEq, Eq)]
pub struct TestCase {
    pub program: Program,
    /// One argument per parameter of `main`.
    pub args: Vec<i64>,
    /// Where the case comes from, for reports: `seed 42`, `bytes`, with
    /// `, shrunk` once a shrinker changed it.
    pub origin: String,
}

impl CaseFile {
    /// Parses a case file. Besides the header and the program, checks that
    /// `main` takes at least as many parameters as there are arguments (the
    /// missing ones are 0), reporting an excess at `fn main`.
    pub fn parse(text: &str) -> Result<CaseFile, Diag> {
        let header = CaseHeader::parse(text)?;
        let program = crate::frontend::parser::parse_program(text)?;
        let params = program.main().map_or(0, |m| m.params.len());
        if header.args.len() > params {
            return Err(Diag::new(
                main_position(text),
                format!("too many arguments: `main` takes {params} but {} were given", header.args.len()),
            ));
        }
        let CaseHeader { description, regs, config, args, expect } = header;
        Ok(CaseFile { description, regs, config, args, expect, program })
    }

    /// The test case: the program and its arguments, one per parameter of
    /// `main` (missing ones are 0).
    pub fn test_case(&self, origin: String) -> TestCase {
        let mut args = self.args.clone();
        args.resize(self.program.main().map_or(0, |m| m.params.len()), 0);
        TestCase { program: self.program.clone(), args, origin }
    }

    /// The file's text; [`CaseFile::parse`] reads it back as the same
    /// case. A description line that would read as a key, or is empty, is
    /// written with a leading `| `.
    pub fn render(&self) -> String {
        let mut s = render_header(
            &self.description,
            self.regs.as_deref(),
            self.config.as_ref(),
            &self.args,
            self.expect.as_deref(),
        );
        s.push_str(&crate::frontend::ast_print::print_program(&self.program));
        s
    }
}

/// A header's text, as [`CaseHeader::parse`] reads it back: a description
/// line that would read as a key, or is empty, is written with a leading
/// `| `.
pub(crate) fn render_header(
    description: &[String],
    regs: Option<&[usize]>,
    config: Option<&(Pos, String)>,
    args: &[i64],
    expect: Option<&[String]>,
) -> String {
    let mut s = String::new();
    for line in description {
        // A control character (a newline in a path, say) is written as its
        // escape, so that every description line stays one comment line.
        let line: String = line
            .chars()
            .flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] })
            .collect();
        if line.trim().is_empty() || KEYS.iter().any(|k| line.trim_start().starts_with(k)) {
            s.push_str(&format!("// | {line}\n"));
        } else {
            s.push_str(&format!("// {line}\n"));
        }
    }
    if let Some(regs) = regs {
        let regs: Vec<String> = regs.iter().map(|k| k.to_string()).collect();
        s.push_str(&format!("// regs: {}\n", regs.join(" ")));
    }
    if let Some((_, config)) = config {
        s.push_str(&format!("// config: {config}\n"));
    }
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    s.push_str(&format!("// args:{}{}\n", if args.is_empty() { "" } else { " " }, args.join(" ")));
    if let Some(expect) = expect {
        s.push_str("// expect:\n");
        for l in expect {
            s.push_str(&format!("// {l}\n"));
        }
    }
    s
}

/// The header of a case file (`.src` or `.ssa`): the run of `//` lines at
/// the top, with its keys.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct CaseHeader {
    /// The description lines, in order, without their `// `.
    pub description: Vec<String>,
    /// The register counts of the `regs:` line, if there is one.
    pub regs: Option<Vec<usize>>,
    /// The text of the `config:` line and where it starts, if there is one.
    pub config: Option<(Pos, String)>,
    /// The arguments of the `args:` line (none without one).
    pub args: Vec<i64>,
    /// The lines of the expected outcome, if there is an `expect:` block.
    pub expect: Option<Vec<String>>,
}

impl CaseHeader {
    /// Parses the header of a case file, whatever follows it.
    pub fn parse(text: &str) -> Result<CaseHeader, Diag> {
        let mut case = CaseHeader::default();
        let mut args_seen = false;
        let mut outcome = ExpectedOutcome::default();
        for (i, line) in crate::frontend::lexer::lines(text).enumerate() {
            let Some(at) = line.find("//").filter(|&at| line[..at].trim().is_empty()) else { break };
            let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
            // Column (in characters, 1-based) of byte offset `b` of the line.
            let col = |b: usize| u32::try_from(line[..b].chars().count() + 1).unwrap_or(u32::MAX);
            let pos = |b: usize| Pos { line: line_no, col: col(b) };
            let mut start = at + 2;
            if line[start..].starts_with(' ') {
                start += 1;
            }
            let comment = &line[start..];
            if let Some(expect) = case.expect.as_mut() {
                outcome.line(comment, pos(start))?;
                expect.push(comment.to_string());
                continue;
            }
            let key_at = start + (comment.len() - comment.trim_start().len());
            let Some(key) = KEYS.iter().find(|k| line[key_at..].starts_with(**k)) else {
                case.description.push(comment.to_string());
                continue;
            };
            let values_at = key_at + key.len();
            let mut words = words(&line[values_at..]).into_iter().map(|(b, w)| (values_at + b, w)).peekable();
            match *key {
                "regs:" => {
                    if case.regs.is_some() {
                        return Err(Diag::new(pos(key_at), "a second `regs:` line"));
                    }
                    let mut regs = Vec::new();
                    for (b, w) in words.by_ref() {
                        match w.parse::<usize>() {
                            // A K given twice counts once, so the list
                            // holds at most the 14 counts of 2..=15.
                            Ok(k) if (2..=15).contains(&k) => {
                                if !regs.contains(&k) {
                                    regs.push(k)
                                }
                            }
                            _ => {
                                return Err(Diag::new(
                                    pos(b),
                                    format!("bad register count `{w}` (each K must be in 2..=15)"),
                                ))
                            }
                        }
                    }
                    if regs.is_empty() {
                        return Err(Diag::new(pos(key_at), "`regs:` lists no register count"));
                    }
                    case.regs = Some(regs);
                }
                "config:" => {
                    if case.config.is_some() {
                        return Err(Diag::new(pos(key_at), "a second `config:` line"));
                    }
                    let Some(&(first, _)) = words.peek() else {
                        return Err(Diag::new(pos(key_at), "`config:` is empty"));
                    };
                    case.config = Some((pos(first), line[first..].trim_end().to_string()));
                }
                "args:" => {
                    if args_seen {
                        return Err(Diag::new(pos(key_at), "a second `args:` line"));
                    }
                    args_seen = true;
                    for (b, w) in words.by_ref() {
                        let a = w
                            .parse::<i64>()
                            .map_err(|_| Diag::new(pos(b), format!("argument `{w}` is not a 64-bit integer")))?;
                        case.args.push(a);
                    }
                }
                _ => {
                    if let Some((b, w)) = words.next() {
                        return Err(Diag::new(pos(b), format!("unexpected `{w}` after `expect:`")));
                    }
                    case.expect = Some(Vec::new());
                    outcome.key = pos(key_at);
                }
            }
        }
        if case.expect.is_some() {
            outcome.finish()?;
        }
        Ok(case)
    }
}

/// The checks of an `expect:` block, line by line: the lines of
/// `Outcome::render_full`, each in its one spelling: the `out` values
/// (decimal `i64`s), then `return V`, `trap divide-error` or
/// `call-depth-exceeded` (an inconclusive run, see `outcome::End`), then
/// `mem[I] = V` for non-zero words of `mem`, in increasing `I` below
/// `MEM_WORDS`.
struct ExpectedOutcome {
    /// Where the `expect:` key is.
    key: Pos,
    /// Whether the end (`return` or `trap`) has been seen.
    ended: bool,
    /// The next `mem` index allowed.
    next_mem: usize,
}

impl Default for ExpectedOutcome {
    fn default() -> Self {
        ExpectedOutcome { key: Pos::START, ended: false, next_mem: 0 }
    }
}

impl ExpectedOutcome {
    fn line(&mut self, line: &str, at: Pos) -> Result<(), Diag> {
        let bad = |what: &str| Diag::new(at, format!("expected outcome: `{line}` {what}"));
        let int = |w: &str| w.parse::<i64>().ok().filter(|v| v.to_string() == w);
        if let Some(rest) = line.strip_prefix("mem[") {
            if !self.ended {
                return Err(bad("comes before the `return` or `trap` line"));
            }
            let parsed = rest.split_once("] = ").and_then(|(i, v)| Some((i.parse::<usize>().ok()?, int(v)?)));
            let Some((i, v)) = parsed.filter(|(i, _)| i.to_string() == rest.split(']').next().unwrap_or("")) else {
                return Err(bad("is not `mem[I] = V`"));
            };
            if i >= crate::ast::MEM_WORDS || i < self.next_mem || v == 0 {
                return Err(bad(&format!(
                    "is out of order or range (indexes increase, below {}; values are not 0)",
                    crate::ast::MEM_WORDS
                )));
            }
            self.next_mem = i + 1;
            return Ok(());
        }
        if self.ended {
            return Err(bad("follows the end of the run (only `mem[I] = V` lines may)"));
        }
        if line == "trap divide-error"
            || line == "call-depth-exceeded"
            || line.strip_prefix("return ").is_some_and(|v| int(v).is_some())
        {
            self.ended = true;
            return Ok(());
        }
        if int(line).is_some() {
            return Ok(());
        }
        Err(bad("is not an `out` value (a 64-bit integer), `return V`, `trap divide-error` or `mem[I] = V`"))
    }

    fn finish(&self) -> Result<(), Diag> {
        if self.ended {
            Ok(())
        } else {
            Err(Diag::new(self.key, "`expect:` has no `return V` or `trap divide-error` line"))
        }
    }
}

/// The whitespace-separated words of `s` with their byte offsets.
fn words(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        match (c.is_whitespace(), start) {
            (true, Some(b)) => {
                out.push((b, &s[b..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

/// Where `fn main` starts in the source (1:1 if it cannot be found).
pub fn main_position(src: &str) -> Pos {
    let Ok(tokens) = tokenize(src) else { return Pos::START };
    tokens.windows(2).find(|w| w[0].kind == TokenKind::Fn && w[1].text == "main").map_or(Pos::START, |w| w[0].pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_round_trips() {
        let text = "// ssaref fuzz failure, seed 3\n// | args: not a key\n// regs: 2 4\n// config: ssa-ra[opt]  out-of-ssa[x]\n// args: 5 -1\n\
                    // expect:\n// 7\n// return 0\nfn main(a, b) {\n    out a;\n    return 0;\n}\n";
        let case = CaseFile::parse(text).expect("parses");
        assert_eq!(case.description, ["ssaref fuzz failure, seed 3", "| args: not a key"]);
        assert_eq!(case.regs, Some(vec![2, 4]));
        assert_eq!(case.config, Some((Pos { line: 4, col: 12 }, "ssa-ra[opt]  out-of-ssa[x]".to_string())));
        assert_eq!(case.args, [5, -1]);
        assert_eq!(case.expect, Some(vec!["7".to_string(), "return 0".to_string()]));
        assert_eq!(case.render(), text);
        assert_eq!(CaseFile::parse(&case.render()), Ok(case));
    }

    #[test]
    fn errors_point_at_the_offending_word() {
        let bad = [
            ("// regs: 2 16\nfn main() {}\n", "1:12: bad register count `16`"),
            ("// x\n//   args: 1 é2\nfn main(a, b) {}\n", "2:14: argument `é2`"),
            ("// args: 1\n// args: 2\nfn main(a) {}\n", "2:4: a second `args:`"),
            ("// regs:\nfn main() {}\n", "1:4: `regs:` lists no register count"),
            ("// config:  \nfn main() {}\n", "1:4: `config:` is empty"),
            ("// config: a\n// config: b\nfn main() {}\n", "2:4: a second `config:`"),
            ("// expect: 3\nfn main() {}\n", "1:12: unexpected `3`"),
            ("// args: 1 2\n\nfn main(a) {}\n", "3:1: too many arguments"),
            ("// args: 1\nfn main(a) { out }\n", "2:18: "),
            ("// expect:\n// hello world\nfn main() {}\n", "2:4: expected outcome: `hello world` is not"),
            ("// expect:\n// trap segfault\nfn main() {}\n", "2:4: expected outcome: `trap segfault`"),
            ("// expect:\n// 99999999999999999999\n// return 0\nfn main() {}\n", "2:4: "),
            ("// expect:\n// return 007\nfn main() {}\n", "2:4: "),
            ("// expect:\n// return 1\n// 5\nfn main() {}\n", "3:4: expected outcome: `5` follows the end"),
            ("// expect:\n// return 1\n// mem[4096] = 1\nfn main() {}\n", "3:4: "),
            ("// expect:\n// return 1\n// mem[2] = 1\n// mem[1] = 1\nfn main() {}\n", "4:4: "),
            ("// expect:\n// 5\nfn main() {}\n", "1:4: `expect:` has no `return V`"),
        ];
        for (text, want) in bad {
            let err = CaseFile::parse(text).expect_err(text).to_string();
            assert!(err.starts_with(want), "{text:?}: {err}");
        }
    }

    #[test]
    fn missing_arguments_are_zero() {
        let case = CaseFile::parse("fn main(a, b) { return a; }\n").expect("parses");
        assert_eq!(case.regs, None);
        assert_eq!(case.test_case("t".into()).args, [0, 0]);
    }
}
