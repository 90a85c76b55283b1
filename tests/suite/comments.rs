//! Comments and documents stay true: every file they name exists, and code
//! comments state what the code does, not what it did.
//!
//! Where the scanner looks: the comments (the text after `//`, so also
//! `///` and `//!`) of every `.rs` file under `src/`, `interp/`, `tests/`,
//! `examples/`, `benches/` and `fuzz/`, and every `.md` file at the root and
//! under `docs/` and `proofs-notes/`.
//!
//! What a mention is: a run of letters, digits and `_ . / -` that ends in
//! `.rs`, `.md`, `.src`, `.ssa` or `.toml` (trailing dots trimmed, so a
//! name that ends a sentence counts), backticked or not. Not mentions of
//! repository files, and so not checked:
//! - a path that starts with `/`, `~` or `$` (outside the repository, which
//!   covers URLs, whose run starts at the `//` after `https:`);
//! - a pattern: a run with an empty file stem (what `*.src` or
//!   `{a,b}.rs` leave), a run containing `...`, or one with a capitalised
//!   placeholder word of [`PLACEHOLDERS`] (`DIR/case-SEED.src`);
//! - a name of [`ELSEWHERE`] (a file of another project, or a file that a
//!   command writes or a user passes in an example), accepted only when the
//!   word that says where it lives is on the mention's line or on one of
//!   the three lines before it.
//!
//! How a mention resolves, against the files of the repository (`target/`
//! and `.git/` aside):
//! - a path with a `/` resolves when it names an existing file relative to
//!   the mentioning file's directory or one of its ancestors up to the
//!   root (which covers paths from the root and Markdown links such as
//!   `../src/lib.rs`), relative to `src/`, or as a suffix, at a `/`, of an
//!   existing path (`conventional/mod.rs`);
//! - a bare file name resolves when some file has that name; a bare `.rs`
//!   name in a comment under `src/` must name a file under `src/`, since a
//!   library comment that names a file means a library file (a test of the
//!   same name does not make the mention true).
//!
//! History in code comments: [`HISTORY_PHRASES`] lists phrases that only
//! tell what old code did ("used to be", "was quadratic", "previously"); a
//! code comment that contains one fails. "used to" and "no longer" are not
//! on the list: "is used to compute" and "a block no longer reachable" are
//! statements about the code as it is.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The folders whose `.rs` files' comments are scanned.
const CODE_DIRS: &[&str] = &["src", "interp", "tests", "examples", "benches", "fuzz"];
/// The folders whose `.md` files are scanned, besides the root's.
const DOC_DIRS: &[&str] = &["docs", "proofs-notes"];
const EXTENSIONS: &[&str] = &["rs", "md", "src", "ssa", "toml"];

/// Capitalised words that stand for a part of a name in a pattern
/// (`DIR/NAME.reduced.src`, `case-SEED-TARGET.src`).
const PLACEHOLDERS: &[&str] = &["FILE", "NAME", "SEED", "DIR", "CASE", "STEM", "TARGET"];

/// A file named in comments or documents that is not in this repository
/// by design.
struct Elsewhere {
    /// The name as written.
    name: &'static str,
    /// A word that must be on the mention's line or on one of the three
    /// lines before it: the project the file belongs to, or the command
    /// that writes or reads it.
    near: &'static str,
    /// Why the file is not in this repository.
    why: &'static str,
}

const ELSEWHERE: &[Elsewhere] = &[
    Elsewhere { name: "moves.rs", near: "regalloc2", why: "regalloc2's parallel-move resolver" },
    Elsewhere { name: "frontend/src/ssa.rs", near: "Cranelift", why: "Cranelift's SSA builder" },
    Elsewhere { name: "REPORT.md", near: "report", why: "the report `ssaref reproduce` writes" },
    Elsewhere { name: "good.src", near: "ssaref run", why: "a user's program in an example command" },
    Elsewhere { name: "prog.src", near: "ssaref check", why: "a user's program in an example command" },
    Elsewhere { name: "case-42.src", near: "ssaref repro", why: "a case file a campaign writes, in an example" },
    Elsewhere {
        name: "fuzz-cases/case-17-llvm.src",
        near: "--target llvm",
        why: "a case file a target campaign writes, in an example",
    },
];

/// Phrases that only tell what old code did.
const HISTORY_PHRASES: &[&str] =
    &["used to be", "was quadratic", "were quadratic", "was superlinear", "previously", "formerly"];

/// The files of a tree, as `/`-separated paths relative to its root.
struct Tree {
    files: HashSet<String>,
}

impl Tree {
    fn new<I: IntoIterator<Item = String>>(files: I) -> Tree {
        Tree { files: files.into_iter().collect() }
    }

    /// The files under `root`, `target/` and `.git/` aside.
    fn read(root: &Path) -> Tree {
        fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if path.is_dir() {
                    if name != "target" && name != ".git" {
                        walk(root, &path, out);
                    }
                } else {
                    let rel = path.strip_prefix(root).unwrap();
                    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into()).collect();
                    out.push(parts.join("/"));
                }
            }
        }
        let mut files = Vec::new();
        walk(root, root, &mut files);
        Tree::new(files)
    }

    /// Does `mention`, found in the file `from`, name a file of the tree?
    fn resolves(&self, from: &str, mention: &str) -> bool {
        let mention = mention.trim_start_matches("./");
        if !mention.contains('/') {
            let library = from.starts_with("src/") && mention.ends_with(".rs");
            return self
                .files
                .iter()
                .any(|f| (f == mention || f.ends_with(&format!("/{mention}"))) && (!library || f.starts_with("src/")));
        }
        let mut dir = parent(from);
        loop {
            if normalize(&join(dir, mention)).is_some_and(|p| self.files.contains(&p)) {
                return true;
            }
            if dir.is_empty() {
                break;
            }
            dir = parent(dir);
        }
        self.files.contains(&format!("src/{mention}")) || self.files.iter().any(|f| f.ends_with(&format!("/{mention}")))
    }
}

fn parent(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

fn join(dir: &str, rel: &str) -> String {
    if dir.is_empty() {
        rel.to_string()
    } else {
        format!("{dir}/{rel}")
    }
}

/// `path` with its `.` and `..` components resolved; `None` when it
/// leaves the root.
fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// The comment of a line of Rust: the text after the first `//` that is
/// not inside a string literal (an even number of `"` before it).
fn comment(line: &str) -> Option<&str> {
    let mut from = 0;
    while let Some(i) = line[from..].find("//") {
        let at = from + i;
        if line[..at].matches('"').count().is_multiple_of(2) {
            return Some(&line[at + 2..]);
        }
        from = at + 2;
    }
    None
}

/// The mentions of repository files in `text` (see the module comment).
fn mentions(text: &str) -> Vec<&str> {
    let in_run = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-');
    text.split(|c: char| !in_run(c)).map(|run| run.trim_end_matches('.')).filter(|run| is_mention(run)).collect()
}

fn is_mention(run: &str) -> bool {
    let Some((stem, extension)) = run.rsplit_once('.') else { return false };
    let file_stem = stem.rsplit('/').next().unwrap();
    EXTENSIONS.contains(&extension)
        && !file_stem.is_empty()
        && !run.starts_with(['/', '~', '$'])
        && !run.contains("...")
        && !run.split(|c: char| !c.is_ascii_alphabetic()).any(|word| PLACEHOLDERS.contains(&word))
}

/// The entry of [`ELSEWHERE`] that `mention`, on line `n` (0-based) of
/// `lines`, names with its word nearby.
fn elsewhere(lines: &[&str], n: usize, mention: &str) -> Option<usize> {
    ELSEWHERE
        .iter()
        .position(|e| e.name == mention && lines[n.saturating_sub(3)..=n].iter().any(|l| l.contains(e.near)))
}

/// The mentions of the file `path` (its text `text`) that do not resolve
/// in `tree`, as `path:line: mention`; marks in `used` the entries of
/// [`ELSEWHERE`] that accepted a mention.
fn unresolved(tree: &Tree, path: &str, text: &str, used: &mut [bool]) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let scanned = if path.ends_with(".rs") { comment(line) } else { Some(*line) };
        for mention in scanned.map(mentions).unwrap_or_default() {
            if tree.resolves(path, mention) {
                continue;
            }
            match elsewhere(&lines, n, mention) {
                Some(i) => used[i] = true,
                None => out.push(format!("{path}:{}: {mention}", n + 1)),
            }
        }
    }
    out
}

/// The comments of the Rust file `path` that contain a history phrase.
fn history(path: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(comment) = comment(line) else { continue };
        let lower = comment.to_lowercase();
        for phrase in HISTORY_PHRASES.iter().filter(|p| lower.contains(*p)) {
            out.push(format!("{path}:{}: \"{phrase}\"", n + 1));
        }
    }
    out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The scanned files of `tree`: the Rust files of [`CODE_DIRS`] and the
/// Markdown files of the root and [`DOC_DIRS`].
fn scanned(tree: &Tree) -> Vec<String> {
    let mut out: Vec<String> = tree
        .files
        .iter()
        .filter(|f| {
            let top = f.split('/').next().unwrap();
            let at_root = !f.contains('/');
            (f.ends_with(".rs") && !at_root && CODE_DIRS.contains(&top))
                || (f.ends_with(".md") && (at_root || DOC_DIRS.contains(&top)))
        })
        .cloned()
        .collect();
    out.sort();
    out
}

#[test]
fn every_file_a_comment_or_document_names_exists() {
    let root = root();
    let tree = Tree::read(&root);
    let files = scanned(&tree);
    assert!(files.iter().any(|f| f == "src/lib.rs") && files.iter().any(|f| f == "ARCHITECTURE.md"));
    let mut found = Vec::new();
    let mut used = vec![false; ELSEWHERE.len()];
    for file in &files {
        let text = std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        found.extend(unresolved(&tree, file, &text, &mut used));
    }
    assert!(found.is_empty(), "names of files that do not exist:\n{}", found.join("\n"));
    // The list of files kept elsewhere cannot go stale.
    let unused: Vec<String> = ELSEWHERE
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|(e, _)| format!("{} ({}), near \"{}\"", e.name, e.why, e.near))
        .collect();
    assert!(unused.is_empty(), "ELSEWHERE entries no mention needs:\n{}", unused.join("\n"));
}

#[test]
fn no_code_comment_tells_history() {
    let root = root();
    let tree = Tree::read(&root);
    let mut found = Vec::new();
    for file in scanned(&tree).iter().filter(|f| f.ends_with(".rs") && *f != "tests/suite/comments.rs") {
        let text = std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        found.extend(history(file, &text));
    }
    assert!(found.is_empty(), "code comments that tell history (say what the code does now):\n{}", found.join("\n"));
}

#[test]
fn the_scanner_finds_what_it_should() {
    let tree = Tree::new(
        ["src/a.rs", "src/out_of_ssa/b.rs", "tests/suite/c.rs", "tests/cases/d.src", "docs/e.md"].map(String::from),
    );
    let check = |path: &str, text: &str| unresolved(&tree, path, text, &mut [false; ELSEWHERE.len()]);

    // Existing files, by path from the root, from src/, from the file's
    // folder, by suffix, by a Markdown link, and by bare name.
    assert!(check("src/out_of_ssa/x.rs", "// `src/a.rs`, `a.rs`, `b.rs`, `out_of_ssa/b.rs`, d.src.").is_empty());
    assert!(check("tests/suite/x.rs", "//! `suite/c.rs`, `cases/d.src` and ../cases/d.src").is_empty());
    assert!(check("docs/x.md", "See [it](../src/out_of_ssa/b.rs) and [e](e.md), `c.rs`.").is_empty());
    // Missing files, one report each, with the line.
    assert_eq!(
        check("src/x.rs", "fn f() {}\n// `src/gone.rs` and gone.md\n"),
        ["src/x.rs:2: src/gone.rs", "src/x.rs:2: gone.md"]
    );
    assert_eq!(check("docs/x.md", "a\nb\n[it](../src/b.rs)"), ["docs/x.md:3: ../src/b.rs"]);
    // A bare `.rs` name in the library must be a library file.
    assert_eq!(check("src/x.rs", "// the tests (`c.rs`)"), ["src/x.rs:1: c.rs"]);
    assert!(check("tests/suite/x.rs", "// the tests (`c.rs`)").is_empty());
    // Only comments are scanned in Rust; strings, URLs, patterns and
    // placeholders are not mentions.
    assert!(check("src/x.rs", "let p = \"src/gone.rs\"; // done").is_empty());
    assert!(check("src/x.rs", "// https://example.org/src/gone.rs, /tmp/x.src").is_empty());
    assert!(check("src/x.rs", "// tests/cases/*.src, DIR/case-SEED.src, ...-reduced.src").is_empty());
    // Another project's file, only with its project's name nearby.
    assert!(check("src/x.rs", "// regalloc2's resolver\n// (its `moves.rs`)").is_empty());
    assert_eq!(check("src/x.rs", "// the resolver\n// (its `moves.rs`)"), ["src/x.rs:2: moves.rs"]);

    // History phrases, in comments only.
    assert_eq!(
        history("src/x.rs", "// This was quadratic.\nlet s = \"previously\";"),
        ["src/x.rs:1: \"was quadratic\""]
    );
    assert!(history("src/x.rs", "// A block no longer reachable is removed.").is_empty());
}
