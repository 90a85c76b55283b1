//! The filetests: the `.ssa` files under `tests/filetests/`, each holding a
//! test input in the SSA text form and, inline as `//` comments, the result
//! it expects (Cranelift's `filetests/verifier/*.clif` with their `; error:`
//! lines are the model). The folder names the check:
//!
//! - `verifier/`: each function of the file goes through
//!   `verifier::verify_function`. A rejected function carries
//!   `// error: MESSAGE` (the `message` of its `VerifyError`) at the end of
//!   the line the error is about: the header of the block it names, or the
//!   function header when it names no block. A function without one must be
//!   accepted. `verify_module` on the whole file must agree: the first
//!   function's error, or none (so function names are unique in a file).
//! - `conventional-verifier/`: the same, with `verifier::verify_conventional`
//!   (the check of out-of-SSA translation's output, where a value may be
//!   assigned several times) and no module check.
//! - `text-form/`: the file goes through `ssa_text::parse_module`. A line
//!   `// error: LINE:COL: MESSAGE` at the end of the leading comment says
//!   the parse fails with that error (positions count in the whole file,
//!   comment lines included). Otherwise the printed module must be the
//!   `// print:` block there (`// ` and one printed line per line) or, with
//!   no such block, the file itself without its comment and blank lines:
//!   the file is in canonical form and round-trips.
//! - `checkers/GROUP/`: the file must parse and pass the verifier; each
//!   function goes through every checker of the group (see
//!   [`CHECKER_GROUPS`]: `ssa-properties` for Braun et al.'s pruned, no
//!   trivial phi and minimal, `cssa` for the two CSSA checks). A rejection is
//!   a line `// error[CHECKER]: ERROR` (the error as displayed) right after
//!   the function header; a checker without such a line must accept.
//!
//! The pass filetests under `passes/` have their own harness,
//! `pass_filetests.rs`.
//!
//! Each file starts with a comment saying what it tests. For each file the
//! harness computes the text it should have, which is the file with its
//! expectations replaced by what the code does, and fails with the
//! difference when that is not the file. `SSAREF_BLESS=1 cargo test
//! --release --test suite filetests` writes that text into the file instead,
//! as `cases.rs` does for the case files; review the diff before committing.

use ssaref::analysis::verifier::{verify_conventional, verify_function, verify_module, VerifyError};
use ssaref::checkers::ssa_properties::{check_minimal, check_no_trivial_phis, check_pruned};
use ssaref::ir::{Block, Function, Module};
use ssaref::ssa_text::{parse_function, parse_module, print_module};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// The kinds of filetest, one per folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Verifier,
    ConventionalVerifier,
    TextForm,
    /// The checkers of `CHECKER_GROUPS[i]`.
    Checkers(usize),
}

impl Kind {
    /// Every kind.
    fn all() -> impl Iterator<Item = Kind> {
        [Kind::Verifier, Kind::ConventionalVerifier, Kind::TextForm]
            .into_iter()
            .chain((0..CHECKER_GROUPS.len()).map(Kind::Checkers))
    }

    /// The folder under `tests/filetests/`.
    fn folder(self) -> String {
        match self {
            Kind::Verifier => "verifier".into(),
            Kind::ConventionalVerifier => "conventional-verifier".into(),
            Kind::TextForm => "text-form".into(),
            Kind::Checkers(i) => format!("checkers/{}", CHECKER_GROUPS[i].0),
        }
    }
}

/// A checker, with its error as displayed.
type Checker = fn(&Function) -> Result<(), String>;

/// The checkers a `checkers/GROUP/` file goes through, by group, each named
/// as the function that implements it.
const CHECKER_GROUPS: &[(&str, &[(&str, Checker)])] = &[
    (
        "ssa-properties",
        &[
            ("check_pruned", |f| check_pruned(f).map_err(|e| e.to_string())),
            ("check_no_trivial_phis", |f| check_no_trivial_phis(f).map_err(|e| e.to_string())),
            ("check_minimal", |f| check_minimal(f).map_err(|e| e.to_string())),
        ],
    ),
    (
        "cssa",
        &[
            ("check_cssa", |f| ssaref::analysis::cssa::check_cssa(f).map_err(|e| e.to_string())),
            ("check_cssa_independently", |f| {
                ssaref::checkers::class_interference_check::check_cssa_independently(f).map_err(|e| e.to_string())
            }),
        ],
    ),
];

/// The comment that starts an error expectation.
const ERROR: &str = "// error:";
/// The comment line that starts the printed module of a `text-form/` file.
const PRINT: &str = "// print:";
/// The folder of the pass filetests, which `pass_filetests.rs` runs.
const PASSES: &str = "passes";

/// `tests/filetests/`.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/filetests")
}

/// The text of the filetest at `rel` (a path under `tests/filetests/`), for
/// the tests that ask more of its input than its inline expectation says.
pub fn read(rel: &str) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The one function of the filetest at `rel`.
pub fn function(rel: &str) -> Function {
    parse_function(&read(rel)).unwrap_or_else(|e| panic!("tests/filetests/{rel}:{e}"))
}

/// The lines of `text` without their comments and blank lines, each ended
/// by `\n`: what the printer writes for a text in canonical form.
pub fn without_comments(text: &str) -> String {
    text.lines().filter(|l| !is_comment_or_blank(l)).map(|l| format!("{l}\n")).collect()
}

fn is_comment_or_blank(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty() || t.starts_with("//")
}

/// Lines joined with a `\n` after each.
fn join(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The part of a line before its comment. In a text that parses, `/` occurs
/// only in comments.
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

/// The word a line's code starts with (empty when it starts with no word).
fn first_word(line: &str) -> &str {
    let t = code(line).trim_start();
    let end = t.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(t.len());
    &t[..end]
}

/// The indices of the function header lines, in order. In a text that
/// parses, exactly the function headers start with the word `fn`.
fn function_lines(lines: &[String]) -> Vec<usize> {
    lines.iter().enumerate().filter(|(_, l)| first_word(l) == "fn").map(|(i, _)| i).collect()
}

/// The index of the header line of `block` among `lines[range]`.
fn block_line(lines: &[String], range: std::ops::Range<usize>, block: Block) -> Option<usize> {
    let label = block.to_string();
    range.into_iter().find(|&i| {
        first_word(&lines[i]) == label && {
            let rest = code(&lines[i]).trim_start()[label.len()..].trim_start();
            rest.starts_with(':') || rest.starts_with('(')
        }
    })
}

/// The number of comment lines `lines` starts with.
fn leading_comment_lines(lines: &[String]) -> usize {
    lines.iter().take_while(|l| l.trim_start().starts_with("//")).count()
}

/// The file as it should be: `text` with its inline expectations replaced
/// by the results of the check `kind` names. An error when the file is not
/// a filetest of that kind (no leading comment, or an input the check
/// cannot take).
fn expected_text(kind: Kind, text: &str) -> Result<String, String> {
    let first = text.lines().next().unwrap_or("");
    if !first.starts_with("//") || first.starts_with(ERROR) || first.starts_with(PRINT) {
        return Err("a filetest starts with a comment saying what it tests".into());
    }
    match kind {
        Kind::Verifier => verifier_text(verify_function, Some(verify_module), text),
        Kind::ConventionalVerifier => verifier_text(verify_conventional, None, text),
        Kind::TextForm => Ok(text_form_text(text)),
        Kind::Checkers(group) => checkers_text(CHECKER_GROUPS[group].1, text),
    }
}

/// A check of a whole module.
type ModuleCheck = fn(&Module) -> Result<(), VerifyError>;

/// A `verifier/` or `conventional-verifier/` file with its `// error:`
/// comments replaced by the errors of `verify` on each function, each at
/// the end of the line it is about; `check_module`, if any, must report the
/// first of them.
fn verifier_text(
    verify: fn(&Function) -> Result<(), VerifyError>,
    check_module: Option<ModuleCheck>,
    text: &str,
) -> Result<String, String> {
    let mut lines: Vec<String> = text
        .lines()
        .map(|l| match l.find(ERROR) {
            Some(i) => l[..i].trim_end().to_string(),
            None => l.to_string(),
        })
        .collect();
    let module = parse_module(&join(&lines)).map_err(|e| format!("does not parse: {e}"))?;
    let mut names = HashSet::new();
    if let Some(f) = module.functions.iter().find(|f| !names.insert(f.name.as_str())) {
        return Err(format!("function `{}` is defined twice; a verifier file names its functions apart", f.name));
    }
    let starts = function_lines(&lines);
    assert_eq!(starts.len(), module.functions.len(), "one header line per function");
    let mut first_error = None;
    for (i, f) in module.functions.iter().enumerate() {
        let Err(e) = verify(f) else { continue };
        let end = starts.get(i + 1).copied().unwrap_or(lines.len());
        let at = match e.block {
            None => starts[i],
            Some(b) => block_line(&lines, starts[i] + 1..end, b)
                .ok_or_else(|| format!("function `{}`: {e}; the error names a block the file does not show", f.name))?,
        };
        lines[at] = format!("{} {ERROR} {}", lines[at], e.message);
        first_error.get_or_insert(e);
    }
    if let Some(module_error) = check_module.map(|check| check(&module).err()) {
        if module_error != first_error {
            return Err(format!(
                "the module check says {module_error:?}, but the first error of the function check is {first_error:?}"
            ));
        }
    }
    Ok(join(&lines))
}

/// A `text-form/` file with its expectation (an `// error:` line or a
/// `// print:` block at the end of the leading comment) replaced by what
/// the parser and printer do; no expectation when the file is in canonical
/// form.
fn text_form_text(text: &str) -> String {
    let original: Vec<String> = text.lines().map(String::from).collect();
    let header = leading_comment_lines(&original);
    let mut lines = Vec::new();
    let mut in_print_block = false;
    for (i, line) in original.into_iter().enumerate() {
        in_print_block = i < header && (line.starts_with(PRINT) || (in_print_block && line.starts_with("//")));
        if !(i < header && (in_print_block || line.starts_with(ERROR))) {
            lines.push(line);
        }
    }
    let at = leading_comment_lines(&lines);
    // The error line is in place before parsing, so that the position the
    // parser reports is the one in the file as it will be.
    let mut with_error = lines.clone();
    with_error.insert(at, ERROR.to_string());
    match parse_module(&join(&with_error)) {
        Err(e) => {
            with_error[at] = format!("{ERROR} {e}");
            join(&with_error)
        }
        Ok(module) => {
            let printed = print_module(&module);
            if printed != without_comments(&join(&lines)) {
                let block = std::iter::once(PRINT.to_string()).chain(printed.lines().map(|l| format!("// {l}")));
                lines.splice(at..at, block);
            }
            join(&lines)
        }
    }
}

/// A `checkers/GROUP/` file with the `// error[CHECKER]:` lines after each
/// function header replaced by the rejections of the group's `checkers`.
fn checkers_text(checkers: &[(&str, Checker)], text: &str) -> Result<String, String> {
    let lines: Vec<String> =
        text.lines().filter(|l| !l.trim_start().starts_with("// error[")).map(String::from).collect();
    let module = parse_module(&join(&lines)).map_err(|e| format!("does not parse: {e}"))?;
    verify_module(&module).map_err(|e| format!("is not valid SSA, which the checkers assume: {e}"))?;
    let starts = function_lines(&lines);
    assert_eq!(starts.len(), module.functions.len(), "one header line per function");
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        out.push(line.clone());
        if let Some(f) = starts.iter().position(|&s| s == i).map(|n| &module.functions[n]) {
            for (name, check) in checkers {
                if let Err(e) = check(f) {
                    out.push(format!("// error[{name}]: {e}"));
                }
            }
        }
    }
    Ok(join(&out))
}

/// The files under `dir`, recursively, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_filetest_holds_the_results_of_its_check() {
    let bless = std::env::var("SSAREF_BLESS").is_ok_and(|v| v == "1");
    let root = root();
    let mut counts: BTreeMap<String, usize> = Kind::all().map(|k| (k.folder(), 0)).collect();
    let mut failures = Vec::new();
    for path in files_under(&root) {
        let rel = path.strip_prefix(&root).expect("under the root");
        if rel.starts_with(PASSES) {
            continue;
        }
        let name = format!("tests/filetests/{}", rel.display());
        let folder = rel.parent().map(|p| p.to_string_lossy().replace('\\', "/")).unwrap_or_default();
        let Some(kind) = Kind::all().find(|k| k.folder() == folder) else {
            let known: Vec<String> = Kind::all().map(Kind::folder).collect();
            failures.push(format!("{name}: not in the folder of a check ({})", known.join(", ")));
            continue;
        };
        if path.extension().is_none_or(|x| x != "ssa") {
            failures.push(format!("{name}: a filetest is an `.ssa` file"));
            continue;
        }
        *counts.entry(kind.folder()).or_default() += 1;
        let text = std::fs::read_to_string(&path).expect("readable filetest");
        match expected_text(kind, &text) {
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok(want) if want == text => {}
            Ok(want) if bless => {
                std::fs::write(&path, want).expect("write blessed filetest");
                eprintln!("blessed {name}");
            }
            Ok(want) => failures.push(format!(
                "{name}: the inline expectations are not what the {} check gives \
                 (< the file, > the file with the actual results; SSAREF_BLESS=1 writes the latter):\n{}",
                kind.folder(),
                pretty_assertions::StrComparison::new(&text, &want)
            )),
        }
    }
    assert!(failures.is_empty(), "{} filetests fail:\n\n{}", failures.len(), failures.join("\n\n"));
    for (folder, n) in &counts {
        assert!(*n > 0, "tests/filetests/{folder} holds no filetest");
    }
    eprintln!("filetests: {counts:?}");
}

// ---------------------------------------------------------------------------
// The harness itself
// ---------------------------------------------------------------------------

/// A file whose `b1` is unreachable, with `error` (if any) at the end of
/// line `on` (0-based).
fn unreachable_b1(error: Option<&str>, on: usize) -> String {
    let mut lines: Vec<String> = ["// what", "fn f(v0) {", "b0:", "    ret v0", "b1:", "    ret v0", "}"]
        .iter()
        .map(|l| l.to_string())
        .collect();
    if let Some(e) = error {
        lines[on].push_str(&format!(" // error: {e}"));
    }
    join(&lines)
}

#[test]
fn verifier_expectations_must_name_the_error_on_its_line() {
    let right = unreachable_b1(Some("b1 is not reachable from the entry b0"), 4);
    assert_eq!(expected_text(Kind::Verifier, &right), Ok(right.clone()));
    for wrong in [
        unreachable_b1(None, 0),
        unreachable_b1(Some("b1 is not reachable from the entry b1"), 4),
        unreachable_b1(Some("b1 is not reachable from the entry b0"), 5),
        unreachable_b1(Some("b1 is not reachable from the entry b0"), 1),
    ] {
        let want = expected_text(Kind::Verifier, &wrong).expect("a verifier file");
        assert_ne!(want, wrong, "a missing, wrong or misplaced expectation is caught");
        assert_eq!(want, right, "and the actual result replaces it");
    }
    // An expectation on a function that the verifier accepts is caught too.
    let valid =
        "// what\nfn f(v0) { // error: the function has no blocks (it needs the entry b0)\nb0:\n    ret v0\n}\n";
    assert_eq!(expected_text(Kind::Verifier, valid).unwrap(), "// what\nfn f(v0) {\nb0:\n    ret v0\n}\n");
    // A function-level error goes on the function header.
    let empty = "// what\nfn f(v0) { // error: the function has no blocks (it needs the entry b0)\n}\n";
    assert_eq!(expected_text(Kind::Verifier, empty).as_deref(), Ok(empty));
    assert!(expected_text(Kind::Verifier, "fn f(v0) {\n}\n").unwrap_err().contains("starts with a comment"));
}

#[test]
fn text_form_expectations_count_the_error_line_in_the_position() {
    // Without its expectation, the file gets one at the end of the leading
    // comment, and the line number counts it.
    let bare = "// what\n// more\nfn f() {\n    ret v0\n}\n";
    let want =
        "// what\n// more\n// error: 5:5: instruction before the first block header `b0:`\nfn f() {\n    ret v0\n}\n";
    assert_eq!(text_form_text(bare), want);
    assert_eq!(text_form_text(want), want, "a right expectation is kept");
    let wrong = want.replace("5:5", "4:5");
    assert_eq!(text_form_text(&wrong), want, "a wrong position is replaced");
    // A text in canonical form needs no expectation; any other gets the
    // printed module.
    let canonical = "// what\n\nfn f(v0) {\nb0:\n    ret v0\n}\n";
    assert_eq!(text_form_text(canonical), canonical);
    let messy = "// what\nfn f( v0 ) {\nb0:\n  ret v0 // done\n}\n";
    let printed =
        "// what\n// print:\n// fn f(v0) {\n// b0:\n//     ret v0\n// }\nfn f( v0 ) {\nb0:\n  ret v0 // done\n}\n";
    assert_eq!(text_form_text(messy), printed);
    assert_eq!(text_form_text(printed), printed);
    assert_eq!(
        text_form_text(&printed.replace("//     ret v0", "//     ret v1")),
        printed,
        "a wrong print is replaced"
    );
    // An error expectation on a text that parses is removed.
    assert_eq!(text_form_text(&format!("// what\n{ERROR} 1:1: no\n\nfn f(v0) {{\nb0:\n    ret v0\n}}\n")), canonical);
}

#[test]
fn checker_expectations_follow_the_function_header() {
    let trivial = "// what\nfn t(v0) {\nb0:\n    jump b1\nb1(b0, b1):\n    v1 = phi v0, v1\n    jump b1\n}\n";
    let kind = Kind::all().find(|k| k.folder() == "checkers/ssa-properties").expect("the group exists");
    let want = expected_text(kind, trivial).expect("valid SSA");
    let lines: Vec<&str> = want.lines().collect();
    assert!(lines[2].starts_with("// error[check_pruned]: function `t`: "), "{want}");
    assert!(lines[3].starts_with("// error[check_no_trivial_phis]: function `t`: "), "{want}");
    assert!(lines[4].starts_with("// error[check_minimal]: function `t`: "), "{want}");
    assert_eq!(expected_text(kind, &want).as_deref(), Ok(want.as_str()), "a right file is kept");
    let wrong = want.replace("check_pruned]: function `t`", "check_pruned]: function `u`");
    assert_eq!(expected_text(kind, &wrong).as_deref(), Ok(want.as_str()), "a wrong message is replaced");
    let invalid = "// what\nfn f(v0) {\nb0:\n    ret v1\n}\n";
    assert!(expected_text(kind, invalid).unwrap_err().contains("not valid SSA"));
}
